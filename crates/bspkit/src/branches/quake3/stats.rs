//! q3map2 `-info` rows for Quake 3-family maps.

use super::lumps::*;
use super::records::*;
use super::view::{Slots, View};
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

/// The q3map2 `-info` rows of any Quake 3-family map, with the branch's record set.
pub fn q3map2_info(bsp: &Bsp) -> Vec<Stat> {
    with_record_set!(bsp.branch(), stats(bsp))
}

/// q3map2 `-info` rows (quake_facts.md §6.3). Counts divide the on-disk lump by the on-disk
/// record; rows q3map2 marks `*` print count × its internal RBSP-sized struct (brush side 12,
/// surface 148, draw vertex 80, grid point 30). The light grid's count is the number of grid
/// cells: IBSP stores one point per cell (len / 8), RBSP / FBSP one light-array entry per
/// cell (len / 2). entdata counts parsed entities and gives the entity lump length.
pub fn stats<L: Layout>(bsp: &Bsp) -> Vec<Stat> {
    let Ok(view) = View::<L>::new(bsp) else { return Vec::new() };
    let slot = *view.slots();
    if matches!(record_set(bsp.branch()), RecordSet::Fakk | RecordSet::Ef2 | RecordSet::MohaaOld | RecordSet::Mohaa) {
        return ritual_stats(bsp, &slot);
    }
    let len = |i: usize| bsp.lump(i).map(|l| l.len() as u64).unwrap_or(0);
    let row = |name: &str, i: usize, internal: Option<u64>| {
        let disk = bsp.record_size(i).unwrap_or(1) as u64;
        let count = len(i) / disk;
        Stat::new(name, Some(count), count * internal.unwrap_or(disk))
    };
    let grid_count = if L::LIGHT_ARRAY { len(LUMP_LIGHT_ARRAY) / 2 } else { len(LUMP_LIGHT_GRID) / 8 };
    let page = (L::LIGHTMAP_SIZE * L::LIGHTMAP_SIZE * 3) as u64;
    vec![
        row("models", LUMP_MODELS, None),
        row("shaders", LUMP_SHADERS, None),
        row("brushes", LUMP_BRUSHES, None),
        row("brushsides", LUMP_BRUSH_SIDES, Some(12)),
        row("fogs", LUMP_FOGS, None),
        row("planes", LUMP_PLANES, None),
        Stat::new("entdata", Some(bsp.entities().map(|e| e.len() as u64).unwrap_or(0)), len(LUMP_ENTITIES)),
        row("nodes", LUMP_NODES, None),
        row("leafs", LUMP_LEAVES, None),
        row("leafsurfaces", LUMP_LEAF_SURFACES, None),
        row("leafbrushes", LUMP_LEAF_BRUSHES, None),
        row("drawsurfaces", LUMP_SURFACES, Some(148)),
        row("drawverts", LUMP_DRAW_VERTICES, Some(80)),
        row("drawindexes", LUMP_DRAW_INDICES, None),
        Stat::new("lightmaps", Some(len(LUMP_LIGHTMAPS) / page), len(LUMP_LIGHTMAPS)),
        Stat::new("lightgrid", Some(grid_count), grid_count * 30),
        Stat::new("visibility", None, len(LUMP_VISIBILITY)),
        Stat::new("total", None, bsp.data().len() as u64),
    ]
}

/// Ritual's maps: a row per lump of the branch's table in directory order, named like the Medal
/// of Honor engine's own size listing (OpenMoHAA `CM_PrintBSPFileSizes`: `sideequations`,
/// `leafbrushes`): records counted by the on-disk record size, byte lumps by length only,
/// entities by parsed entity.
fn ritual_stats(bsp: &Bsp, slot: &Slots) -> Vec<Stat> {
    let mut rows = Vec::new();
    for (i, def) in bsp.branch().lumps.iter().enumerate() {
        let bytes = bsp.lump(i).map(|l| l.len() as u64).unwrap_or(0);
        let name = def.name.to_ascii_lowercase().replace('_', "");
        let count = if i == slot.entities {
            Some(bsp.entities().map(|e| e.len() as u64).unwrap_or(0))
        } else {
            bsp.record_size(i).map(|size| bytes / size as u64)
        };
        rows.push(Stat::new(&name, count, bytes));
    }
    rows.push(Stat::new("total", None, bsp.data().len() as u64));
    rows
}
