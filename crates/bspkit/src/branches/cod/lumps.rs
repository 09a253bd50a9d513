//! Call of Duty 4 lump table: the 55 lump ids and the branch descriptor
//! (respawn_cod_facts.md §2.2). Data only.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

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
};
