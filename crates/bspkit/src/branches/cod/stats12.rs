//! `bsp info` rows of Call of Duty 1 / United Offensive and Call of Duty 2 maps.
//!
//! Call of Duty 2: the rows `cod2map -info` prints (the reconstruction's `PrintBSPFileSizes`,
//! riicchhaarrd/cod2map `common/bspfile.c`), in its order and with its names: entdata counts
//! entities, lightmaps count 4 MiB pages (its `LIGHTMAP_BYTES`), visibility has no count and
//! paths count 1 when present. Its `lights` row is left out: no lump of the file holds lights.
//!
//! Call of Duty 1 has no known info tool output; its rows follow the same naming over its own
//! lumps (lightmaps count 512 × 512 RGB pages).

use super::lumps::{cod1_ids as c1, cod2_ids as c2, COD1_LIGHTMAP_SIZE};
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

/// Bytes of one Call of Duty 2 lightmap page (cod2map `LIGHTMAP_BYTES`).
pub const COD2_LIGHTMAP_BYTES: u64 = 0x40_0000;

fn len(bsp: &Bsp, id: usize) -> u64 {
    bsp.lump(id).map(|l| l.len() as u64).unwrap_or(0)
}

/// The rows for this map.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    let rec = |name: &str, id: usize| Stat::records(name, bsp, id, bsp.record_size(id).unwrap_or(1));
    let entdata = |id: usize| Stat::new("entdata", Some(bsp.entities().map(|e| e.len() as u64).unwrap_or(0)), len(bsp, id));
    if bsp.branch().id == "cod2" {
        let light = len(bsp, c2::LIGHTBYTES);
        vec![
            rec("models", c2::MODELS),
            rec("materials", c2::MATERIALS),
            rec("brushes", c2::BRUSHES),
            rec("brushsides", c2::BRUSHSIDES),
            rec("planes", c2::PLANES),
            entdata(c2::ENTITIES),
            rec("nodes", c2::NODES),
            rec("leafs", c2::LEAFS),
            rec("leafbrushes", c2::LEAFBRUSHES),
            rec("leafsurfaces", c2::LEAFSURFACES),
            rec("collisionverts", c2::COLLISIONVERTS),
            rec("collisionedges", c2::COLLISIONEDGES),
            rec("collisiontris", c2::COLLISIONTRIS),
            rec("collisionborders", c2::COLLISIONBORDERS),
            rec("collisionparts", c2::COLLISIONPARTITIONS),
            rec("collisionaabbs", c2::COLLISIONAABBS),
            rec("drawverts", c2::DRAWVERTS),
            rec("drawindexes", c2::DRAWINDICES),
            rec("trianglesoups", c2::TRIANGLES),
            rec("shadowverts", c2::SHADOWVERTS),
            rec("shadowindices", c2::SHADOWINDICES),
            rec("shadowclusters", c2::SHADOWCLUSTERS),
            rec("shadowaabbtrees", c2::SHADOWAABBTREES),
            rec("shadowsources", c2::SHADOWSOURCES),
            Stat::new("lightmaps", Some(light / COD2_LIGHTMAP_BYTES), light),
            rec("light grid hash", c2::LIGHTGRIDENTRIES),
            Stat::bytes_only("light grid values", bsp, c2::LIGHTGRIDCOLORS),
            Stat::bytes_only("visibility", bsp, c2::VISIBILITY),
            rec("portalverts", c2::PORTALVERTS),
            rec("occluders", c2::OCCLUDERS),
            rec("occluderplanes", c2::OCCLUDERPLANES),
            rec("occluderedges", c2::OCCLUDEREDGES),
            rec("occluderindexes", c2::OCCLUDERINDICES),
            rec("aabbtrees", c2::AABBTREES),
            rec("cells", c2::CELLS),
            rec("portals", c2::PORTALS),
            rec("cullgroups", c2::CULLGROUPS),
            rec("cullgroupindexes", c2::CULLGROUPINDICES),
            Stat::new("paths", Some(u64::from(len(bsp, c2::PATHCONNECTIONS) > 0)), len(bsp, c2::PATHCONNECTIONS)),
        ]
    } else {
        let light = len(bsp, c1::LIGHTMAPS);
        vec![
            rec("models", c1::MODELS),
            rec("materials", c1::MATERIALS),
            rec("brushes", c1::BRUSHES),
            rec("brushsides", c1::BRUSHSIDES),
            rec("planes", c1::PLANES),
            entdata(c1::ENTITIES),
            rec("nodes", c1::NODES),
            rec("leafs", c1::LEAFS),
            rec("leafbrushes", c1::LEAFBRUSHES),
            rec("leafsurfaces", c1::LEAFSURFACES),
            rec("collisionsurfaces", c1::COLLISIONSURFACES),
            rec("collisionverts", c1::COLLISIONVERTS),
            rec("collisionindexes", c1::COLLISIONINDICES),
            rec("drawverts", c1::DRAWVERTS),
            rec("drawindexes", c1::DRAWINDICES),
            rec("trianglesoups", c1::TRIANGLESOUPS),
            Stat::new("lightmaps", Some(light / COD1_LIGHTMAP_SIZE as u64), light),
            rec("lights", c1::LIGHTS),
            rec("lightindexes", c1::LIGHTINDICES),
            Stat::bytes_only("lightviscache", bsp, c1::LIGHTVISCACHE),
            Stat::bytes_only("visibility", bsp, c1::VISIBILITY),
            rec("portalverts", c1::PORTALVERTS),
            rec("occluders", c1::OCCLUDERS),
            rec("occluderplanes", c1::OCCLUDERPLANES),
            rec("occluderedges", c1::OCCLUDEREDGES),
            rec("occluderindexes", c1::OCCLUDERINDICES),
            rec("aabbtrees", c1::AABBTREES),
            rec("cells", c1::CELLS),
            rec("portals", c1::PORTALS),
            rec("cullgroups", c1::CULLGROUPS),
            rec("cullgroupindexes", c1::CULLGROUPINDICES),
        ]
    }
}
