//! q2tools `4bsp` FILE STATS rows for Quake 2 maps.

use super::lumps::*;
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

/// The q2tools `4bsp` / `4vis` / `4rad` FILE STATS rows (quake_facts.md §6.2): count = lump
/// length / record size and size = count × record size; entdata counts parsed entities and
/// gives the entity lump length (NUL included); lightdata and visdata are raw lump lengths.
/// Areas, area portals and pop are not printed by the tool. SiN, Soldier of Fortune and
/// Daikatana maps add rows for their own lumps.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    let rec = |name: &str, index: usize| {
        let size = bsp.record_size(index).unwrap_or(1);
        let mut s = Stat::records(name, bsp, index, size);
        s.bytes = s.count.unwrap_or(0) * size as u64;
        s
    };
    let entities = bsp.entities().map(|e| e.len() as u64).unwrap_or(0);
    let ent_bytes = bsp.lump(LUMP_ENTITIES).map(|l| l.len() as u64).unwrap_or(0);
    let mut rows = vec![
        rec("models", LUMP_MODELS),
        rec("brushes", LUMP_BRUSHES),
        rec("brushsides", LUMP_BRUSH_SIDES),
        rec("planes", LUMP_PLANES),
        rec("texinfo", LUMP_TEXINFO),
        Stat::new("entdata", Some(entities), ent_bytes),
        rec("vertices", LUMP_VERTICES),
        rec("nodes", LUMP_NODES),
        rec("faces", LUMP_FACES),
        rec("leafs", LUMP_LEAVES),
        rec("leaffaces", LUMP_LEAF_FACES),
        rec("leafbrushes", LUMP_LEAF_BRUSHES),
        rec("edges", LUMP_EDGES),
        rec("surfedges", LUMP_SURFEDGES),
        Stat::bytes_only("lightdata", bsp, LUMP_LIGHTING),
        Stat::bytes_only("visdata", bsp, LUMP_VISIBILITY),
    ];
    // The derived branches' own lumps: SiN's bspc prints lightinfo after texinfo; the
    // Soldier of Fortune and Daikatana lumps (no public table of theirs) follow the rest.
    match bsp.branch().id {
        "sin" => rows.insert(5, rec("lightinfo", LUMP_SIN_LIGHT_INFO)),
        "sof" => rows.extend([rec("regionfaces", LUMP_SOF_REGION_FACES), rec("lights", LUMP_SOF_LIGHTS), rec("regions", LUMP_SOF_REGIONS)]),
        "daikatana" => rows.extend([rec("extsurfinfo", LUMP_DK_EXT_SURF_INFO), rec("planepolys", LUMP_DK_PLANE_POLYS)]),
        _ => {}
    }
    rows
}
