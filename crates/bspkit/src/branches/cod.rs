//! Call of Duty 4 `.d3dbsp` (IBSP 22): a list of `{id, length}` entries, data packed in
//! directory order with 4-byte padding (respawn_cod_facts.md §2.1).
//!
//! Lumps are looked up by id, not by directory position; the table below is indexed by id
//! (55 ids, §2.2). Record sizes are declared where `count × size = bytes` holds on all four
//! corpus maps against `cod4map -info`. [`stats`] reproduces the rows of `cod4map -info`.

use zerocopy::little_endian::{F32, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::branch::{Branch, Family, HeaderKind, LumpDef};
use crate::bsp::Bsp;
use crate::check::{Checker, Problem};
use crate::stats::Stat;

pub mod texture;

pub const LUMP_MATERIALS: usize = 0;
pub const LUMP_LIGHTBYTES: usize = 1;
pub const LUMP_LIGHTGRIDENTRIES: usize = 2;
pub const LUMP_LIGHTGRIDCOLORS: usize = 3;
pub const LUMP_PLANES: usize = 4;
pub const LUMP_BRUSHSIDES: usize = 5;
pub const LUMP_BRUSHSIDEEDGECOUNTS: usize = 6;
pub const LUMP_BRUSHEDGES: usize = 7;
pub const LUMP_BRUSHES: usize = 8;
pub const LUMP_TRIANGLES: usize = 9;
pub const LUMP_DRAWVERTS: usize = 10;
pub const LUMP_DRAWINDICES: usize = 11;
pub const LUMP_CULLGROUPS: usize = 12;
pub const LUMP_CULLGROUPINDICES: usize = 13;
pub const LUMP_PORTALVERTS: usize = 19;
pub const LUMP_AABBTREES: usize = 24;
pub const LUMP_CELLS: usize = 25;
pub const LUMP_PORTALS: usize = 26;
pub const LUMP_NODES: usize = 27;
pub const LUMP_LEAFS: usize = 28;
pub const LUMP_LEAFBRUSHES: usize = 29;
pub const LUMP_LEAFSURFACES: usize = 30;
pub const LUMP_COLLISIONVERTS: usize = 31;
pub const LUMP_COLLISIONTRIS: usize = 32;
pub const LUMP_COLLISIONEDGEWALKABLE: usize = 33;
pub const LUMP_COLLISIONBORDERS: usize = 34;
pub const LUMP_COLLISIONPARTITIONS: usize = 35;
pub const LUMP_COLLISIONAABBS: usize = 36;
pub const LUMP_MODELS: usize = 37;
pub const LUMP_VISIBILITY: usize = 38;
pub const LUMP_ENTITIES: usize = 39;
pub const LUMP_PATHCONNECTIONS: usize = 40;
pub const LUMP_REFLECTION_PROBES: usize = 41;
pub const LUMP_VERTEX_LAYER_DATA: usize = 42;
pub const LUMP_PRIMARY_LIGHTS: usize = 43;
pub const LUMP_LIGHTGRIDHEADER: usize = 44;
pub const LUMP_LIGHTGRIDROWS: usize = 45;
pub const LUMP_UNLAYERED_TRIANGLES: usize = 47;
pub const LUMP_UNLAYERED_DRAWVERTS: usize = 48;
pub const LUMP_UNLAYERED_DRAWINDICES: usize = 49;
pub const LUMP_UNLAYERED_AABBTREES: usize = 51;
pub const LUMP_LIGHTREGIONS: usize = 52;
pub const LUMP_LIGHTREGION_HULLS: usize = 53;
pub const LUMP_LIGHTREGION_AXES: usize = 54;

/// Bytes of one lightmap (§2.2: 0x300000 per lightmap).
pub const LIGHTMAP_SIZE: usize = 0x30_0000;
/// Bytes of one reflection probe (§2.2).
pub const REFLECTION_PROBE_SIZE: usize = 131_140;

const fn r(name: &'static str, size: usize) -> LumpDef {
    // One size for every version (CoD4 has no per-lump versions).
    LumpDef::versioned(name, size_entry(size))
}
const fn size_entry(size: usize) -> &'static [(u32, usize)] {
    match size {
        1 => &[(0, 1)],
        2 => &[(0, 2)],
        4 => &[(0, 4)],
        6 => &[(0, 6)],
        8 => &[(0, 8)],
        12 => &[(0, 12)],
        16 => &[(0, 16)],
        24 => &[(0, 24)],
        28 => &[(0, 28)],
        32 => &[(0, 32)],
        36 => &[(0, 36)],
        48 => &[(0, 48)],
        68 => &[(0, 68)],
        72 => &[(0, 72)],
        112 => &[(0, 112)],
        128 => &[(0, 128)],
        168 => &[(0, 168)],
        REFLECTION_PROBE_SIZE => &[(0, REFLECTION_PROBE_SIZE)],
        LIGHTMAP_SIZE => &[(0, LIGHTMAP_SIZE)],
        _ => panic!("add the size to cod.rs size_entry"),
    }
}

/// Lump table indexed by id (§2.2, engine-style names). Unverified sizes stay Raw.
static COD4_LUMPS: [LumpDef; 55] = [
    /* 0 */ r("MATERIALS", 72),
    /* 1 */ r("LIGHTBYTES", LIGHTMAP_SIZE),
    /* 2 */ r("LIGHTGRIDENTRIES", 4),
    /* 3 */ r("LIGHTGRIDCOLORS", 168),
    /* 4 */ r("PLANES", 16),
    /* 5 */ r("BRUSHSIDES", 8),
    /* 6 */ r("BRUSHSIDEEDGECOUNTS", 1),
    /* 7 */ r("BRUSHEDGES", 1),
    /* 8 */ r("BRUSHES", 4),
    /* 9 */ r("TRIANGLES", 24),
    /* 10 */ r("DRAWVERTS", 68),
    /* 11 */ r("DRAWINDICES", 2),
    /* 12 */ LumpDef::raw("CULLGROUPS"),
    /* 13 */ LumpDef::raw("CULLGROUPINDICES"),
    /* 14 */ LumpDef::raw("OBSOLETE_1"),
    /* 15 */ LumpDef::raw("OBSOLETE_2"),
    /* 16 */ LumpDef::raw("OBSOLETE_3"),
    /* 17 */ LumpDef::raw("OBSOLETE_4"),
    /* 18 */ LumpDef::raw("OBSOLETE_5"),
    /* 19 */ LumpDef::raw("PORTALVERTS"),
    /* 20 */ LumpDef::raw("OBSOLETE_6"),
    /* 21 */ LumpDef::raw("OBSOLETE_7"),
    /* 22 */ LumpDef::raw("OBSOLETE_8"),
    /* 23 */ LumpDef::raw("OBSOLETE_9"),
    /* 24 */ r("AABBTREES", 12),
    /* 25 */ r("CELLS", 112),
    /* 26 */ LumpDef::raw("PORTALS"),
    /* 27 */ r("NODES", 36),
    /* 28 */ r("LEAFS", 24),
    /* 29 */ r("LEAFBRUSHES", 4),
    /* 30 */ LumpDef::raw("LEAFSURFACES"),
    /* 31 */ r("COLLISIONVERTS", 12),
    /* 32 */ r("COLLISIONTRIS", 6),
    /* 33 */ LumpDef::raw("COLLISIONEDGEWALKABLE"),
    /* 34 */ r("COLLISIONBORDERS", 28),
    /* 35 */ r("COLLISIONPARTITIONS", 12),
    /* 36 */ r("COLLISIONAABBS", 32),
    /* 37 */ r("MODELS", 48),
    /* 38 */ LumpDef::special("VISIBILITY"),
    /* 39 */ LumpDef::entities("ENTITIES"),
    /* 40 */ LumpDef::special("PATHCONNECTIONS"),
    /* 41 */ r("REFLECTION_PROBES", REFLECTION_PROBE_SIZE),
    /* 42 */ LumpDef::raw("VERTEX_LAYER_DATA"),
    /* 43 */ r("PRIMARY_LIGHTS", 128),
    /* 44 */ LumpDef::special("LIGHTGRIDHEADER"),
    /* 45 */ LumpDef::raw("LIGHTGRIDROWS"),
    /* 46 */ LumpDef::raw("OBSOLETE_10"),
    /* 47 */ r("UNLAYERED_TRIANGLES", 24),
    /* 48 */ r("UNLAYERED_DRAWVERTS", 68),
    /* 49 */ r("UNLAYERED_DRAWINDICES", 2),
    /* 50 */ LumpDef::raw("UNLAYERED_CULLGROUPS"),
    /* 51 */ r("UNLAYERED_AABBTREES", 12),
    /* 52 */ r("LIGHTREGIONS", 1),
    /* 53 */ LumpDef::raw("LIGHTREGION_HULLS"),
    /* 54 */ LumpDef::raw("LIGHTREGION_AXES"),
];

pub static COD4: Branch = Branch {
    id: "cod4",
    family: Family::Cod,
    title: "Call of Duty 4 (IBSP 22, .d3dbsp)",
    games: "Call of Duty 4: Modern Warfare",
    header: HeaderKind::CodLumpList,
    lumps: &COD4_LUMPS,
    stats: Some(stats),
    check: Some(check),
};

/// A brush (4 bytes, §2.2): its side count (sides follow each other in BRUSHSIDES, brush by
/// brush) and material. Observed: the counts add up to the brushside count on every corpus map.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Brush {
    pub num_sides: U16,
    pub material: U16,
}

/// A brush side (8 bytes, §2.2). The first six sides of a brush are axial and store a float
/// distance in place of the plane index, so only sides 6.. reference PLANES.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct BrushSide {
    /// Plane index (sides 6..) or the distance of an axial plane (sides 0..6), as raw bits.
    pub plane_or_dist: U32,
    pub material: U32,
}

impl BrushSide {
    pub fn distance(&self) -> f32 {
        f32::from_bits(self.plane_or_dist.get())
    }
}

/// A BSP node (36 bytes): plane, two children (negative = leaf `-(c + 1)`), integer bounds.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Node {
    pub plane: I32,
    pub children: [I32; 2],
    pub mins: [I32; 3],
    pub maxs: [I32; 3],
}

/// A triangle soup (24 bytes; layered lump 9 and simple lump 47 share it): a run of vertices
/// and indices drawn with one material.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct TriangleSoup {
    pub material: U16,
    pub lightmap: u8,
    pub reflection_probe: u8,
    pub primary_light: u8,
    pub flags: u8,
    pub unused: [u8; 2],
    pub vertex_layer_data: U32,
    pub first_vertex: U32,
    pub vertex_count: U16,
    pub index_count: U16,
    pub first_index: U32,
}

/// A model (48 bytes): bounds, then surface and brush ranges. Only the brush range (the last
/// two u32) is interpreted here; it was checked against BRUSHES on the corpus.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Model {
    pub mins: [F32; 3],
    pub maxs: [F32; 3],
    pub surfaces: [U32; 4],
    pub first_brush: U32,
    pub brush_count: U32,
}

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

/// Cross-references that hold on every corpus map (§2.2, checked with the corpus test).
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let count = |id: usize| bsp.record_size(id).and_then(|s| bsp.lump(id).ok().map(|l| l.len() / s)).unwrap_or(0);
    let materials = count(LUMP_MATERIALS);
    let planes = count(LUMP_PLANES);
    let brushside_count = count(LUMP_BRUSHSIDES);
    let (nodes, leafs) = (count(LUMP_NODES), count(LUMP_LEAFS));
    let (Ok(brushes), Ok(sides)) = (bsp.records::<Brush>(LUMP_BRUSHES), bsp.records::<BrushSide>(LUMP_BRUSHSIDES)) else { return };

    let mut c = Checker::new(problems, "8 (BRUSHES)");
    let mut first = 0usize;
    for (i, b) in brushes.iter().enumerate() {
        let n = b.num_sides.get() as usize;
        c.index(i, "material", b.material.get() as i64, materials, "MATERIALS");
        c.range(i, "sides", (first as i64, n as i64), brushside_count, "BRUSHSIDES");
        if let Some(bs) = sides.get(first..first.saturating_add(n)) {
            for (j, s) in bs.iter().enumerate().skip(6) {
                c.problems.extend(plane_problem(first + j, s, planes));
            }
        }
        first = first.saturating_add(n);
    }
    if first != brushside_count {
        c.problems.push(Problem::new("8 (BRUSHES)", None, format!("brushes use {first} sides, BRUSHSIDES holds {brushside_count}")));
    }
    let mut c = Checker::new(problems, "5 (BRUSHSIDES)");
    for (i, s) in sides.iter().enumerate() {
        c.index(i, "material", s.material.get() as i64, materials, "MATERIALS");
    }
    // One edge count per brush side; the counts add up to the BRUSHEDGES length (§2.2).
    if let (Ok(counts), Ok(edges)) = (bsp.lump(LUMP_BRUSHSIDEEDGECOUNTS), bsp.lump(LUMP_BRUSHEDGES)) {
        if counts.len() != brushside_count {
            problems.push(Problem::new(
                "6 (BRUSHSIDEEDGECOUNTS)",
                None,
                format!("{} entries for {brushside_count} brush sides", counts.len()),
            ));
        }
        let sum: usize = counts.iter().map(|&b| b as usize).sum();
        if sum != edges.len() {
            problems.push(Problem::new("7 (BRUSHEDGES)", None, format!("{} bytes, the edge counts add up to {sum}", edges.len())));
        }
    }
    if let Ok(lb) = bsp.records::<U32>(LUMP_LEAFBRUSHES) {
        let mut c = Checker::new(problems, "29 (LEAFBRUSHES)");
        for (i, b) in lb.iter().enumerate() {
            c.index(i, "brush", b.get() as i64, brushes.len(), "BRUSHES");
        }
    }
    if let Ok(list) = bsp.records::<Node>(LUMP_NODES) {
        let mut c = Checker::new(problems, "27 (NODES)");
        for (i, n) in list.iter().enumerate() {
            c.index(i, "plane", n.plane.get() as i64, planes, "PLANES");
            for ch in n.children {
                let ch = ch.get() as i64;
                if ch >= 0 {
                    c.index(i, "child node", ch, nodes, "NODES");
                } else {
                    c.index(i, "child leaf", -(ch + 1), leafs, "LEAFS");
                }
            }
        }
    }
    if let Ok(list) = bsp.records::<Model>(LUMP_MODELS) {
        let mut c = Checker::new(problems, "37 (MODELS)");
        for (i, m) in list.iter().enumerate() {
            c.range(i, "brushes", (m.first_brush.get() as i64, m.brush_count.get() as i64), brushes.len(), "BRUSHES");
        }
    }
    for (soup_id, soup_name, verts, indices) in [
        (LUMP_TRIANGLES, "9 (TRIANGLES)", LUMP_DRAWVERTS, LUMP_DRAWINDICES),
        (LUMP_UNLAYERED_TRIANGLES, "47 (UNLAYERED_TRIANGLES)", LUMP_UNLAYERED_DRAWVERTS, LUMP_UNLAYERED_DRAWINDICES),
    ] {
        let (nv, ni) = (count(verts), count(indices));
        if let Ok(list) = bsp.records::<TriangleSoup>(soup_id) {
            let mut c = Checker::new(problems, soup_name);
            for (i, t) in list.iter().enumerate() {
                c.index(i, "material", t.material.get() as i64, materials, "MATERIALS");
                c.range(i, "vertices", (t.first_vertex.get() as i64, t.vertex_count.get() as i64), nv, "vertices");
                c.range(i, "indices", (t.first_index.get() as i64, t.index_count.get() as i64), ni, "indices");
            }
        }
    }
}

fn plane_problem(index: usize, side: &BrushSide, planes: usize) -> Option<Problem> {
    let p = side.plane_or_dist.get() as u64;
    (p >= planes as u64).then(|| Problem::new("5 (BRUSHSIDES)", Some(index), format!("plane {p} is outside PLANES (0..{planes})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_sizes_match_the_table() {
        // respawn_cod_facts.md §2.2: count × size = bytes on all four corpus maps.
        assert_eq!(std::mem::size_of::<Brush>(), 4);
        assert_eq!(std::mem::size_of::<BrushSide>(), 8);
        assert_eq!(std::mem::size_of::<Node>(), 36);
        assert_eq!(std::mem::size_of::<TriangleSoup>(), 24);
        assert_eq!(std::mem::size_of::<Model>(), 48);
        for (id, size) in [(LUMP_BRUSHES, 4), (LUMP_BRUSHSIDES, 8), (LUMP_NODES, 36), (LUMP_TRIANGLES, 24), (LUMP_MODELS, 48)] {
            assert_eq!(COD4.lumps[id].record_size(0), Some(size));
        }
        assert_eq!(COD4.lumps.len(), 55);
        assert_eq!(COD4.lump_index("ENTITIES"), Some(LUMP_ENTITIES));
    }
}
