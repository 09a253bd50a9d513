//! `cod4map -info` rows for Call of Duty 4 maps, with the compiler's limits (its Limit%
//! column, respawn_cod_facts.md §2.4).

use super::lumps::limits::*;
use super::lumps::*;
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

fn len(bsp: &Bsp, id: usize) -> u64 {
    bsp.lump(id).map(|l| l.len() as u64).unwrap_or(0)
}

/// Bytes of the collision edge-walk bit array for `tris` triangles: 3 bits each, rounded up to
/// bytes and then to 4 (the compiler's `GetCollisionEdgeWalkSize`).
pub fn edge_walk_bytes(tris: u64) -> u64 {
    ((tris * 3).div_ceil(8) + 3) & !3
}

/// `cod4map -info` rows, in its order and with its names (§2.2), each with the byte limit
/// its Limit% divides by (§2.4; none for the light grid header, which the tool passes 0 for).
/// Counts the tool derives from other lumps follow it: entdata counts entities,
/// collisionedgewalk 3 bits per collision triangle, layered data one per layered vertex,
/// light grid rows one u16 per row after the 20-byte light grid header (observed on the four
/// corpus maps).
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    if is_cod12(bsp.branch()) {
        return super::stats12::stats(bsp);
    }
    let rec = |name: &str, id: usize, size: usize, max: u64| Stat::records(name, bsp, id, size).with_max_bytes(max * size as u64);
    let with = |name: &str, count: u64, id: usize, max_bytes: u64| Stat::new(name, Some(count), len(bsp, id)).with_max_bytes(max_bytes);
    let present = |id: usize| u64::from(len(bsp, id) > 0);
    let count_of = |id: usize, size: u64| len(bsp, id) / size;
    vec![
        rec("models", LUMP_MODELS, 48, MAX_MAP_MODELS),
        rec("materials", LUMP_MATERIALS, 72, MAX_MAP_MATERIALS),
        rec("brushes", LUMP_BRUSHES, 4, MAX_MAP_BRUSHES),
        rec("brushsides", LUMP_BRUSHSIDES, 8, MAX_MAP_BRUSHSIDES),
        rec("planes", LUMP_PLANES, 16, MAX_MAP_PLANES),
        with("entdata", bsp.entities().map(|e| e.len() as u64).unwrap_or(0), LUMP_ENTITIES, MAX_MAP_ENTSTRING),
        rec("nodes", LUMP_NODES, 36, MAX_MAP_NODES),
        rec("leafs", LUMP_LEAFS, 24, MAX_MAP_LEAFS),
        rec("leafbrushes", LUMP_LEAFBRUSHES, 4, MAX_MAP_LEAFBRUSHES),
        rec("leafsurfaces", LUMP_LEAFSURFACES, 4, MAX_MAP_LEAFSURFACES),
        rec("collisionverts", LUMP_COLLISIONVERTS, 12, MAX_MAP_COLLISIONVERTS),
        rec("collisiontris", LUMP_COLLISIONTRIS, 6, MAX_MAP_COLLISIONTRIS),
        with(
            "collisionedgewalk",
            count_of(LUMP_COLLISIONTRIS, 6).saturating_mul(3),
            LUMP_COLLISIONEDGEWALKABLE,
            edge_walk_bytes(MAX_MAP_COLLISIONTRIS),
        ),
        rec("collisionborders", LUMP_COLLISIONBORDERS, 28, MAX_MAP_COLLISIONBORDERS),
        rec("collisionparts", LUMP_COLLISIONPARTITIONS, 12, MAX_MAP_COLLISIONPARTITIONS),
        rec("collisionaabbs", LUMP_COLLISIONAABBS, 32, MAX_MAP_COLLISIONAABBS),
        rec("layered verts", LUMP_DRAWVERTS, 68, MAX_MAP_LAYERED_DRAWVERTS),
        with("layered data", count_of(LUMP_DRAWVERTS, 68), LUMP_VERTEX_LAYER_DATA, MAX_MAP_VERTEXLAYERBYTES),
        rec("simple verts", LUMP_UNLAYERED_DRAWVERTS, 68, MAX_MAP_DRAWVERTS),
        rec("layered indexes", LUMP_DRAWINDICES, 2, MAX_MAP_LAYERED_DRAWINDICES),
        rec("simple indexes", LUMP_UNLAYERED_DRAWINDICES, 2, MAX_MAP_DRAWINDICES),
        rec("layered tri soups", LUMP_TRIANGLES, 24, MAX_MAP_TRISOUPS),
        rec("simple tri soups", LUMP_UNLAYERED_TRIANGLES, 24, MAX_MAP_TRISOUPS),
        rec("lightmaps", LUMP_LIGHTBYTES, LIGHTMAP_SIZE, MAX_MAP_LIGHTMAPS),
        Stat::new("light grid header", Some(present(LUMP_LIGHTGRIDHEADER)), len(bsp, LUMP_LIGHTGRIDHEADER)),
        with("light grid rows", len(bsp, LUMP_LIGHTGRIDHEADER).saturating_sub(20) / 2, LUMP_LIGHTGRIDROWS, MAX_MAP_LIGHTGRIDROWBYTES),
        rec("light grid points", LUMP_LIGHTGRIDENTRIES, 4, MAX_MAP_LIGHTGRIDENTRIES),
        rec("light grid colors", LUMP_LIGHTGRIDCOLORS, 168, MAX_MAP_LIGHTGRIDCOLORS),
        Stat::bytes_only("visibility", bsp, LUMP_VISIBILITY).with_max_bytes(MAX_MAP_VISIBILITY),
        rec("portalverts", LUMP_PORTALVERTS, 12, MAX_MAP_PORTALVERTS),
        rec("layered aabbtrees", LUMP_AABBTREES, 12, MAX_MAP_AABBTREES),
        rec("simple aabbtrees", LUMP_UNLAYERED_AABBTREES, 12, MAX_MAP_AABBTREES),
        rec("cells", LUMP_CELLS, 112, MAX_MAP_CELLS),
        rec("portals", LUMP_PORTALS, 16, MAX_MAP_PORTALS),
        rec("cullgroups", LUMP_CULLGROUPS, 32, MAX_MAP_CULLGROUPS),
        rec("cullgroupindexes", LUMP_CULLGROUPINDICES, 4, MAX_MAP_CULLGROUPINDICES),
        rec("reflection_probes", LUMP_REFLECTION_PROBES, REFLECTION_PROBE_SIZE, MAX_MAP_REFLECTION_PROBES),
        rec("primary lights", LUMP_PRIMARY_LIGHTS, 128, MAX_MAP_PRIMARY_LIGHTS),
        rec("light regions", LUMP_LIGHTREGIONS, 1, MAX_MAP_PRIMARY_LIGHTS),
        rec("light region hulls", LUMP_LIGHTREGION_HULLS, 76, MAX_MAP_LIGHTREGIONHULLS),
        rec("light region axes", LUMP_LIGHTREGION_AXES, 20, MAX_MAP_LIGHTREGIONAXES),
        with("paths", present(LUMP_PATHCONNECTIONS), LUMP_PATHCONNECTIONS, MAX_MAP_PATHBYTES),
    ]
}

/// The Limit% cod4map prints for a row: `bytes / max_bytes × 100` in single precision (0 when
/// the row has no limit), as `%6.2f`.
pub fn limit_percent(bytes: u64, max_bytes: Option<u64>) -> f32 {
    match max_bytes {
        Some(m) if m > 0 => (bytes as f32 / m as f32) * 100.0,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_reproduce_the_compilers_byte_maxima() {
        // The byte sizes the reconstruction's PrintBSPFileSizes passes (§2.4).
        assert_eq!(MAX_MAP_MODELS * 48, 196_560);
        assert_eq!(MAX_MAP_MATERIALS * 72, 88_128);
        assert_eq!(MAX_MAP_LIGHTMAPS * LIGHTMAP_SIZE as u64, 0x5D0_0000);
        assert_eq!(MAX_MAP_LAYERED_DRAWVERTS * 68, 0x220_0000);
        assert_eq!(MAX_MAP_DRAWVERTS * 68, 0x264_0000);
        assert_eq!(MAX_MAP_LIGHTGRIDCOLORS * 168, 0xA7_FF58);
        assert_eq!(MAX_MAP_REFLECTION_PROBES * REFLECTION_PROBE_SIZE as u64, 0x1FE_43BC);
        assert_eq!(edge_walk_bytes(MAX_MAP_COLLISIONTRIS), 0xC000);
        assert_eq!(edge_walk_bytes(232), 88);
        // mp_lobby's first and lightmap rows: 0.02% and 3.23%.
        assert_eq!(format!("{:6.2}", limit_percent(48, Some(196_560))), "  0.02");
        assert_eq!(format!("{:6.2}", limit_percent(3_145_728, Some(0x5D0_0000))), "  3.23");
        assert_eq!(format!("{:6.2}", limit_percent(22, None)), "  0.00");
    }
}
