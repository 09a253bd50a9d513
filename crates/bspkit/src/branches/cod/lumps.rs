//! Call of Duty lump tables, data only: Call of Duty 4's 55 lump ids and descriptor
//! (respawn_cod_facts.md §2.2), and the fixed directories of Call of Duty 1 / United Offensive
//! (33 entries) and Call of Duty 2 (39 entries), whose sources are named at their tables.

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
pub const LUMP_UNLAYERED_CULLGROUPS: usize = 50;
pub const LUMP_UNLAYERED_AABBTREES: usize = 51;
pub const LUMP_LIGHTREGIONS: usize = 52;
pub const LUMP_LIGHTREGION_HULLS: usize = 53;
pub const LUMP_LIGHTREGION_AXES: usize = 54;

/// `cod4map`'s MAX_MAP_* limits, in records (respawn_cod_facts.md §2.4). Source: the
/// compiler reconstruction Rex109/x64-cod4map, `common/bspfile.h` at b9a3febb (each value
/// there is the byte size `cod4map -info` divides by, over the record size); every non-zero
/// Limit% the four corpus `cod4map -info` outputs print is reproduced from them (tested).
pub mod limits {
    pub const MAX_MAP_MODELS: u64 = 0xFFF;
    pub const MAX_MAP_MATERIALS: u64 = 1224;
    pub const MAX_MAP_BRUSHES: u64 = 0x8000;
    pub const MAX_MAP_BRUSHSIDES: u64 = 0xA0000;
    pub const MAX_MAP_PLANES: u64 = 0x10000;
    /// Bytes of entity text.
    pub const MAX_MAP_ENTSTRING: u64 = 0x100_0000;
    pub const MAX_MAP_NODES: u64 = 0x8000;
    pub const MAX_MAP_LEAFS: u64 = 0x8000;
    pub const MAX_MAP_LEAFBRUSHES: u64 = 0x40000;
    pub const MAX_MAP_LEAFSURFACES: u64 = 0x20000;
    pub const MAX_MAP_COLLISIONVERTS: u64 = 0x10000;
    pub const MAX_MAP_COLLISIONTRIS: u64 = 0x20000;
    pub const MAX_MAP_COLLISIONBORDERS: u64 = 0x8000;
    pub const MAX_MAP_COLLISIONPARTITIONS: u64 = 0x20000;
    pub const MAX_MAP_COLLISIONAABBS: u64 = 0x40000;
    /// Layered draw vertices: cod4map passes 0x2200000 bytes (0x80000 vertices).
    pub const MAX_MAP_LAYERED_DRAWVERTS: u64 = 0x80000;
    /// Bytes of vertex layer data.
    pub const MAX_MAP_VERTEXLAYERBYTES: u64 = 0x200000;
    /// Simple draw vertices.
    pub const MAX_MAP_DRAWVERTS: u64 = 0x90000;
    pub const MAX_MAP_LAYERED_DRAWINDICES: u64 = 0x100000;
    pub const MAX_MAP_DRAWINDICES: u64 = 0x120000;
    pub const MAX_MAP_TRISOUPS: u64 = 0x8000;
    pub const MAX_MAP_LIGHTMAPS: u64 = 31;
    /// Bytes of light grid rows.
    pub const MAX_MAP_LIGHTGRIDROWBYTES: u64 = 0x40000;
    pub const MAX_MAP_LIGHTGRIDENTRIES: u64 = 0x100000;
    pub const MAX_MAP_LIGHTGRIDCOLORS: u64 = 0xFFFF;
    /// Bytes of visibility.
    pub const MAX_MAP_VISIBILITY: u64 = 0x200000;
    pub const MAX_MAP_PORTALVERTS: u64 = 0x4000;
    pub const MAX_MAP_AABBTREES: u64 = 0x8000;
    pub const MAX_MAP_CELLS: u64 = 0x400;
    pub const MAX_MAP_PORTALS: u64 = 0x800;
    pub const MAX_MAP_CULLGROUPS: u64 = 0x800;
    pub const MAX_MAP_CULLGROUPINDICES: u64 = 0x1000;
    pub const MAX_MAP_REFLECTION_PROBES: u64 = 0xFF;
    /// Primary lights; the light regions row divides its bytes (one per light) by this too.
    pub const MAX_MAP_PRIMARY_LIGHTS: u64 = 0xFF;
    pub const MAX_MAP_LIGHTREGIONHULLS: u64 = 0x7F8;
    pub const MAX_MAP_LIGHTREGIONAXES: u64 = 0x3FC0;
    /// Bytes of path data.
    pub const MAX_MAP_PATHBYTES: u64 = 0x200000;
}

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
        20 => &[(0, 20)],
        24 => &[(0, 24)],
        28 => &[(0, 28)],
        32 => &[(0, 32)],
        36 => &[(0, 36)],
        40 => &[(0, 40)],
        44 => &[(0, 44)],
        48 => &[(0, 48)],
        52 => &[(0, 52)],
        56 => &[(0, 56)],
        68 => &[(0, 68)],
        72 => &[(0, 72)],
        76 => &[(0, 76)],
        112 => &[(0, 112)],
        128 => &[(0, 128)],
        168 => &[(0, 168)],
        REFLECTION_PROBE_SIZE => &[(0, REFLECTION_PROBE_SIZE)],
        LIGHTMAP_SIZE => &[(0, LIGHTMAP_SIZE)],
        COD1_LIGHTMAP_SIZE => &[(0, COD1_LIGHTMAP_SIZE)],
        _ => panic!("add the size to cod.rs size_entry"),
    }
}

/// Lump table indexed by id (§2.2, engine-style names). Sizes of lumps empty on every corpus
/// map come from the compiler reconstruction's structs (§2.3). Byte blobs (visibility, paths,
/// light grid header and rows) are special or raw.
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
    /* 12 */ r("CULLGROUPS", 32),
    /* 13 */ r("CULLGROUPINDICES", 4),
    /* 14 */ LumpDef::raw("OBSOLETE_1"),
    /* 15 */ LumpDef::raw("OBSOLETE_2"),
    /* 16 */ LumpDef::raw("OBSOLETE_3"),
    /* 17 */ LumpDef::raw("OBSOLETE_4"),
    /* 18 */ LumpDef::raw("OBSOLETE_5"),
    /* 19 */ r("PORTALVERTS", 12),
    /* 20 */ LumpDef::raw("OBSOLETE_6"),
    /* 21 */ LumpDef::raw("OBSOLETE_7"),
    /* 22 */ LumpDef::raw("OBSOLETE_8"),
    /* 23 */ LumpDef::raw("OBSOLETE_9"),
    /* 24 */ r("AABBTREES", 12),
    /* 25 */ r("CELLS", 112),
    /* 26 */ r("PORTALS", 16),
    /* 27 */ r("NODES", 36),
    /* 28 */ r("LEAFS", 24),
    /* 29 */ r("LEAFBRUSHES", 4),
    /* 30 */ r("LEAFSURFACES", 4),
    /* 31 */ r("COLLISIONVERTS", 12),
    /* 32 */ r("COLLISIONTRIS", 6),
    /* 33 */ r("COLLISIONEDGEWALKABLE", 1),
    /* 34 */ r("COLLISIONBORDERS", 28),
    /* 35 */ r("COLLISIONPARTITIONS", 12),
    /* 36 */ r("COLLISIONAABBS", 32),
    /* 37 */ r("MODELS", 48),
    /* 38 */ LumpDef::special("VISIBILITY"),
    /* 39 */ LumpDef::entities("ENTITIES"),
    /* 40 */ LumpDef::special("PATHCONNECTIONS"),
    /* 41 */ r("REFLECTION_PROBES", REFLECTION_PROBE_SIZE),
    /* 42 */ r("VERTEX_LAYER_DATA", 1),
    /* 43 */ r("PRIMARY_LIGHTS", 128),
    /* 44 */ LumpDef::special("LIGHTGRIDHEADER"),
    /* 45 */ LumpDef::raw("LIGHTGRIDROWS"),
    /* 46 */ LumpDef::raw("OBSOLETE_10"),
    /* 47 */ r("UNLAYERED_TRIANGLES", 24),
    /* 48 */ r("UNLAYERED_DRAWVERTS", 68),
    /* 49 */ r("UNLAYERED_DRAWINDICES", 2),
    /* 50 */ r("UNLAYERED_CULLGROUPS", 32),
    /* 51 */ r("UNLAYERED_AABBTREES", 12),
    /* 52 */ r("LIGHTREGIONS", 1),
    /* 53 */ r("LIGHTREGION_HULLS", 76),
    /* 54 */ r("LIGHTREGION_AXES", 20),
];

pub static COD4: Branch = Branch {
    id: "cod4",
    family: Family::Cod,
    title: "Call of Duty 4 (IBSP 22, .d3dbsp)",
    games: "Call of Duty 4: Modern Warfare",
    header: HeaderKind::CodLumpList,
    lumps: &COD4_LUMPS,
};

/// Bytes of one Call of Duty 1 lightmap: 512 × 512 RGB (opencod1 `R_LoadLightmaps` requires the
/// lump to be a whole number of 786432-byte pages).
pub const COD1_LIGHTMAP_SIZE: usize = 512 * 512 * 3;

/// Call of Duty 1 / United Offensive lump indices (`IBSP` 59, 33 directory entries). Source:
/// opencod1, a reconstruction of the 1.1 Windows binaries (PrawyCoD1/opencod1 at 8e6f658:
/// `qcommon/cm_local.h` for the collision lumps, `renderer/tr_bsp.c` `RE_LoadWorldMap` for the
/// renderer's: each loader is passed the header at `8 + 8 × index`).
pub mod cod1_ids {
    pub const MATERIALS: usize = 0;
    pub const LIGHTMAPS: usize = 1;
    pub const PLANES: usize = 2;
    pub const BRUSHSIDES: usize = 3;
    pub const BRUSHES: usize = 4;
    pub const TRIANGLESOUPS: usize = 6;
    pub const DRAWVERTS: usize = 7;
    pub const DRAWINDICES: usize = 8;
    pub const CULLGROUPS: usize = 9;
    pub const CULLGROUPINDICES: usize = 10;
    pub const PORTALVERTS: usize = 11;
    pub const OCCLUDERS: usize = 12;
    pub const OCCLUDERPLANES: usize = 13;
    pub const OCCLUDEREDGES: usize = 14;
    pub const OCCLUDERINDICES: usize = 15;
    pub const AABBTREES: usize = 16;
    pub const CELLS: usize = 17;
    pub const PORTALS: usize = 18;
    pub const LIGHTINDICES: usize = 19;
    pub const NODES: usize = 20;
    pub const LEAFS: usize = 21;
    pub const LEAFBRUSHES: usize = 22;
    pub const LEAFSURFACES: usize = 23;
    pub const COLLISIONSURFACES: usize = 24;
    pub const COLLISIONVERTS: usize = 25;
    pub const COLLISIONINDICES: usize = 26;
    pub const MODELS: usize = 27;
    pub const VISIBILITY: usize = 28;
    pub const ENTITIES: usize = 29;
    pub const LIGHTS: usize = 30;
    pub const LIGHTVISCACHE: usize = 32;
}

/// Call of Duty 2 lump indices (`IBSP` 4, 39 directory entries). Source: the cod2map.exe
/// reconstruction riicchhaarrd/cod2map at 21297c4 (`cod2src/cod2map.h` `LumpType_t`, the
/// `CopyLump` / `AddLump` order in `common/bspfile.c`).
pub mod cod2_ids {
    pub const MATERIALS: usize = 0;
    pub const LIGHTBYTES: usize = 1;
    pub const LIGHTGRIDENTRIES: usize = 2;
    pub const LIGHTGRIDCOLORS: usize = 3;
    pub const PLANES: usize = 4;
    pub const BRUSHSIDES: usize = 5;
    pub const BRUSHES: usize = 6;
    pub const TRIANGLES: usize = 7;
    pub const DRAWVERTS: usize = 8;
    pub const DRAWINDICES: usize = 9;
    pub const CULLGROUPS: usize = 10;
    pub const CULLGROUPINDICES: usize = 11;
    pub const SHADOWVERTS: usize = 12;
    pub const SHADOWINDICES: usize = 13;
    pub const SHADOWCLUSTERS: usize = 14;
    pub const SHADOWAABBTREES: usize = 15;
    pub const SHADOWSOURCES: usize = 16;
    pub const PORTALVERTS: usize = 17;
    pub const OCCLUDERS: usize = 18;
    pub const OCCLUDERPLANES: usize = 19;
    pub const OCCLUDEREDGES: usize = 20;
    pub const OCCLUDERINDICES: usize = 21;
    pub const AABBTREES: usize = 22;
    pub const CELLS: usize = 23;
    pub const PORTALS: usize = 24;
    pub const NODES: usize = 25;
    pub const LEAFS: usize = 26;
    pub const LEAFBRUSHES: usize = 27;
    pub const LEAFSURFACES: usize = 28;
    pub const COLLISIONVERTS: usize = 29;
    pub const COLLISIONEDGES: usize = 30;
    pub const COLLISIONTRIS: usize = 31;
    pub const COLLISIONBORDERS: usize = 32;
    pub const COLLISIONPARTITIONS: usize = 33;
    pub const COLLISIONAABBS: usize = 34;
    pub const MODELS: usize = 35;
    pub const VISIBILITY: usize = 36;
    pub const ENTITIES: usize = 37;
    pub const PATHCONNECTIONS: usize = 38;
}

/// Call of Duty 1 / United Offensive directory (see [`cod1_ids`]). Record sizes are the ones the
/// engine's loaders divide by (opencod1 `CMod_Load*`, `R_Load*`); entries 5 and 31 are read by
/// no loader there and stay bytes. Every size holds as `count × size = bytes` on the real maps
/// of docs/real-maps.md.
static COD1_LUMPS: [LumpDef; 33] = [
    /* 0 */ r("MATERIALS", 72),
    /* 1 */ r("LIGHTMAPS", COD1_LIGHTMAP_SIZE),
    /* 2 */ r("PLANES", 16),
    /* 3 */ r("BRUSHSIDES", 8),
    /* 4 */ r("BRUSHES", 4),
    /* 5 */ LumpDef::raw("UNUSED_5"),
    /* 6 */ r("TRIANGLESOUPS", 16),
    /* 7 */ r("DRAWVERTS", 44),
    /* 8 */ r("DRAWINDICES", 2),
    /* 9 */ r("CULLGROUPS", 32),
    /* 10 */ r("CULLGROUPINDICES", 4),
    /* 11 */ r("PORTALVERTS", 12),
    /* 12 */ r("OCCLUDERS", 20),
    /* 13 */ r("OCCLUDERPLANES", 4),
    /* 14 */ r("OCCLUDEREDGES", 4),
    /* 15 */ r("OCCLUDERINDICES", 2),
    /* 16 */ r("AABBTREES", 12),
    /* 17 */ r("CELLS", 52),
    /* 18 */ r("PORTALS", 16),
    /* 19 */ r("LIGHTINDICES", 2),
    /* 20 */ r("NODES", 36),
    /* 21 */ r("LEAFS", 36),
    /* 22 */ r("LEAFBRUSHES", 4),
    /* 23 */ r("LEAFSURFACES", 4),
    /* 24 */ r("COLLISIONSURFACES", 16),
    /* 25 */ r("COLLISIONVERTS", 12),
    /* 26 */ r("COLLISIONINDICES", 2),
    /* 27 */ r("MODELS", 48),
    /* 28 */ LumpDef::special("VISIBILITY"),
    /* 29 */ LumpDef::entities("ENTITIES"),
    /* 30 */ r("LIGHTS", 72),
    /* 31 */ LumpDef::raw("UNUSED_31"),
    /* 32 */ LumpDef::raw("LIGHTVISCACHE"),
];

/// Call of Duty 2 directory (see [`cod2_ids`]). Record sizes are the reconstruction's disk
/// structs; the light grid colours are bytes (its struct says six floats, its byte swapper
/// treats the lump as bytes: unresolved, so not typed). Entries 12–16 are the shadow lumps
/// the reconstruction names `LUMP_OBSOLETE_1..5`.
static COD2_LUMPS: [LumpDef; 39] = [
    /* 0 */ r("MATERIALS", 72),
    /* 1 */ LumpDef::raw("LIGHTBYTES"),
    /* 2 */ r("LIGHTGRIDENTRIES", 8),
    /* 3 */ LumpDef::raw("LIGHTGRIDCOLORS"),
    /* 4 */ r("PLANES", 16),
    /* 5 */ r("BRUSHSIDES", 8),
    /* 6 */ r("BRUSHES", 4),
    /* 7 */ r("TRIANGLES", 16),
    /* 8 */ r("DRAWVERTS", 68),
    /* 9 */ r("DRAWINDICES", 2),
    /* 10 */ r("CULLGROUPS", 32),
    /* 11 */ r("CULLGROUPINDICES", 4),
    /* 12 */ r("SHADOWVERTS", 12),
    /* 13 */ r("SHADOWINDICES", 2),
    /* 14 */ r("SHADOWCLUSTERS", 8),
    /* 15 */ r("SHADOWAABBTREES", 40),
    /* 16 */ r("SHADOWSOURCES", 8),
    /* 17 */ r("PORTALVERTS", 12),
    /* 18 */ r("OCCLUDERS", 20),
    /* 19 */ r("OCCLUDERPLANES", 4),
    /* 20 */ r("OCCLUDEREDGES", 4),
    /* 21 */ r("OCCLUDERINDICES", 2),
    /* 22 */ r("AABBTREES", 12),
    /* 23 */ r("CELLS", 52),
    /* 24 */ r("PORTALS", 16),
    /* 25 */ r("NODES", 36),
    /* 26 */ r("LEAFS", 36),
    /* 27 */ r("LEAFBRUSHES", 4),
    /* 28 */ r("LEAFSURFACES", 4),
    /* 29 */ r("COLLISIONVERTS", 16),
    /* 30 */ r("COLLISIONEDGES", 56),
    /* 31 */ r("COLLISIONTRIS", 72),
    /* 32 */ r("COLLISIONBORDERS", 28),
    /* 33 */ r("COLLISIONPARTITIONS", 12),
    /* 34 */ r("COLLISIONAABBS", 32),
    /* 35 */ r("MODELS", 48),
    /* 36 */ LumpDef::special("VISIBILITY"),
    /* 37 */ LumpDef::entities("ENTITIES"),
    /* 38 */ LumpDef::special("PATHCONNECTIONS"),
];

/// Call of Duty 1's single-player demo (`IBSP` 58). No source describes it; bsp_tool lists the
/// same lump ids as version 59, so it shares that table (tested only on builder maps).
pub static COD1_DEMO: Branch = Branch {
    id: "cod1_demo",
    family: Family::Cod,
    title: "Call of Duty 1 demo (IBSP 58)",
    games: "Call of Duty (single-player demo)",
    header: HeaderKind::IdLengthFirst { magic: *b"IBSP" },
    lumps: &COD1_LUMPS,
};

pub static COD1: Branch = Branch {
    id: "cod1",
    family: Family::Cod,
    title: "Call of Duty 1 / United Offensive (IBSP 59)",
    games: "Call of Duty, Call of Duty: United Offensive",
    header: HeaderKind::IdLengthFirst { magic: *b"IBSP" },
    lumps: &COD1_LUMPS,
};

pub static COD2: Branch = Branch {
    id: "cod2",
    family: Family::Cod,
    title: "Call of Duty 2 (IBSP 4, .d3dbsp)",
    games: "Call of Duty 2",
    header: HeaderKind::IdLengthFirst { magic: *b"IBSP" },
    lumps: &COD2_LUMPS,
};

/// Is `bsp`'s branch one of the fixed-directory Call of Duty 1 / 2 branches (not CoD4's list)?
pub fn is_cod12(branch: &Branch) -> bool {
    matches!(branch.header, HeaderKind::IdLengthFirst { .. })
}
