//! `cod4map -info` rows for Call of Duty 4 maps.

use super::lumps::*;
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

fn len(bsp: &Bsp, id: usize) -> u64 {
    bsp.lump(id).map(|l| l.len() as u64).unwrap_or(0)
}

/// `cod4map -info` rows, in its order and with its names (§2.2). Counts the tool derives from
/// other lumps follow it: entdata counts entities, collisionedgewalk 3 bits per collision
/// triangle, layered data one per layered vertex, light grid rows one u16 per row after the
/// 20-byte light grid header (observed on the four corpus maps).
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    let rec = |name: &str, id: usize, size: usize| Stat::records(name, bsp, id, size);
    let with = |name: &str, count: u64, id: usize| Stat::new(name, Some(count), len(bsp, id));
    let present = |id: usize| u64::from(len(bsp, id) > 0);
    let count_of = |id: usize, size: u64| len(bsp, id) / size;
    vec![
        rec("models", LUMP_MODELS, 48),
        rec("materials", LUMP_MATERIALS, 72),
        rec("brushes", LUMP_BRUSHES, 4),
        rec("brushsides", LUMP_BRUSHSIDES, 8),
        rec("planes", LUMP_PLANES, 16),
        with("entdata", bsp.entities().map(|e| e.len() as u64).unwrap_or(0), LUMP_ENTITIES),
        rec("nodes", LUMP_NODES, 36),
        rec("leafs", LUMP_LEAFS, 24),
        rec("leafbrushes", LUMP_LEAFBRUSHES, 4),
        rec("leafsurfaces", LUMP_LEAFSURFACES, 4),
        rec("collisionverts", LUMP_COLLISIONVERTS, 12),
        rec("collisiontris", LUMP_COLLISIONTRIS, 6),
        with("collisionedgewalk", count_of(LUMP_COLLISIONTRIS, 6).saturating_mul(3), LUMP_COLLISIONEDGEWALKABLE),
        rec("collisionborders", LUMP_COLLISIONBORDERS, 28),
        rec("collisionparts", LUMP_COLLISIONPARTITIONS, 12),
        rec("collisionaabbs", LUMP_COLLISIONAABBS, 32),
        rec("layered verts", LUMP_DRAWVERTS, 68),
        with("layered data", count_of(LUMP_DRAWVERTS, 68), LUMP_VERTEX_LAYER_DATA),
        rec("simple verts", LUMP_UNLAYERED_DRAWVERTS, 68),
        rec("layered indexes", LUMP_DRAWINDICES, 2),
        rec("simple indexes", LUMP_UNLAYERED_DRAWINDICES, 2),
        rec("layered tri soups", LUMP_TRIANGLES, 24),
        rec("simple tri soups", LUMP_UNLAYERED_TRIANGLES, 24),
        rec("lightmaps", LUMP_LIGHTBYTES, LIGHTMAP_SIZE),
        with("light grid header", present(LUMP_LIGHTGRIDHEADER), LUMP_LIGHTGRIDHEADER),
        with("light grid rows", len(bsp, LUMP_LIGHTGRIDHEADER).saturating_sub(20) / 2, LUMP_LIGHTGRIDROWS),
        rec("light grid points", LUMP_LIGHTGRIDENTRIES, 4),
        rec("light grid colors", LUMP_LIGHTGRIDCOLORS, 168),
        Stat::bytes_only("visibility", bsp, LUMP_VISIBILITY),
        rec("portalverts", LUMP_PORTALVERTS, 12),
        rec("layered aabbtrees", LUMP_AABBTREES, 12),
        rec("simple aabbtrees", LUMP_UNLAYERED_AABBTREES, 12),
        rec("cells", LUMP_CELLS, 112),
        unknown_size("portals", bsp, LUMP_PORTALS),
        unknown_size("cullgroups", bsp, LUMP_CULLGROUPS),
        unknown_size("cullgroupindexes", bsp, LUMP_CULLGROUPINDICES),
        rec("reflection_probes", LUMP_REFLECTION_PROBES, REFLECTION_PROBE_SIZE),
        rec("primary lights", LUMP_PRIMARY_LIGHTS, 128),
        rec("light regions", LUMP_LIGHTREGIONS, 1),
        unknown_size("light region hulls", bsp, LUMP_LIGHTREGION_HULLS),
        unknown_size("light region axes", bsp, LUMP_LIGHTREGION_AXES),
        with("paths", present(LUMP_PATHCONNECTIONS), LUMP_PATHCONNECTIONS),
    ]
}

/// A row whose record size is not known: count 0 when empty, otherwise no count.
fn unknown_size(name: &str, bsp: &Bsp, id: usize) -> Stat {
    let bytes = len(bsp, id);
    Stat::new(name, (bytes == 0).then_some(0), bytes)
}
