//! Quake 3-family lump table: directory slots and the branch descriptors of IBSP 46/47, Quake
//! Live, RBSP and FBSP (quake_family.md Part A; quake_facts.md §5). Data only.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_SHADERS: usize = 1;
pub const LUMP_PLANES: usize = 2;
pub const LUMP_NODES: usize = 3;
pub const LUMP_LEAVES: usize = 4;
pub const LUMP_LEAF_SURFACES: usize = 5;
pub const LUMP_LEAF_BRUSHES: usize = 6;
pub const LUMP_MODELS: usize = 7;
pub const LUMP_BRUSHES: usize = 8;
pub const LUMP_BRUSH_SIDES: usize = 9;
pub const LUMP_DRAW_VERTICES: usize = 10;
pub const LUMP_DRAW_INDICES: usize = 11;
pub const LUMP_FOGS: usize = 12;
pub const LUMP_SURFACES: usize = 13;
pub const LUMP_LIGHTMAPS: usize = 14;
pub const LUMP_LIGHT_GRID: usize = 15;
pub const LUMP_VISIBILITY: usize = 16;
/// RBSP / FBSP only.
pub const LUMP_LIGHT_ARRAY: usize = 17;
/// Quake Live only (IBSP 47 with an 18th lump, quake_facts.md §5.1).
pub const LUMP_ADVERTISEMENTS: usize = 17;

macro_rules! q3_lumps {
    (brushside: $bs:literal, vertex: $v:literal, face: $f:literal, lightmap: $lm:expr, lightgrid: $lg:literal $(, $extra:expr)*) => {
        &[
            LumpDef::entities("ENTITIES"),
            LumpDef::records("SHADERS", 72),
            LumpDef::records("PLANES", 16),
            LumpDef::records("NODES", 36),
            LumpDef::records("LEAVES", 48),
            LumpDef::records("LEAF_FACES", 4),
            LumpDef::records("LEAF_BRUSHES", 4),
            LumpDef::records("MODELS", 40),
            LumpDef::records("BRUSHES", 12),
            LumpDef::records("BRUSH_SIDES", $bs),
            LumpDef::records("DRAW_VERTICES", $v),
            LumpDef::records("DRAW_INDICES", 4),
            LumpDef::records("FOGS", 72),
            LumpDef::records("FACES", $f),
            $lm,
            LumpDef::records("LIGHT_GRID", $lg),
            LumpDef::special("VISIBILITY"),
            $($extra,)*
        ]
    };
}

pub static QUAKE3: Branch = Branch {
    id: "quake3",
    family: Family::Quake3,
    title: "Quake III Arena (IBSP 46)",
    games: "Quake III Arena, Team Arena, ioquake3 / Spearmint games (Turtle Arena, …)",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 8),
};

pub static IBSP47: Branch = Branch {
    id: "ibsp47",
    family: Family::Quake3,
    title: "Quake III engine IBSP 47",
    games: "Return to Castle Wolfenstein, Wolfenstein: Enemy Territory, Quake Live",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 8),
};

/// Quake Live: IBSP 47 records plus lump 17, advertisements. RTCW / ET files of the same
/// version have 17 lumps; detection tells them apart by a non-empty 18th directory entry.
pub static QUAKELIVE: Branch = Branch {
    id: "quakelive",
    family: Family::Quake3,
    title: "Quake Live (IBSP 47 + advertisements)",
    games: "Quake Live",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 8,
        LumpDef::records("ADVERTISEMENTS", 128)),
};

pub static RBSP: Branch = Branch {
    id: "rbsp",
    family: Family::Quake3,
    title: "Raven RBSP 1",
    games: "Star Wars Jedi Knight II, Jedi Academy, Soldier of Fortune II",
    header: HeaderKind::IdMagic { magic: *b"RBSP" },
    lumps: q3_lumps!(brushside: 12, vertex: 80, face: 148, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 30,
        LumpDef::records("LIGHT_ARRAY", 2)),
};

/// FBSP shares RBSP's records (quake_facts.md §5.3) except the 512 × 512 lightmap page.
pub static FBSP: Branch = Branch {
    id: "fbsp",
    family: Family::Quake3,
    title: "qfusion FBSP 1",
    games: "Warsow, Warfork, qfusion games",
    header: HeaderKind::IdMagic { magic: *b"FBSP" },
    lumps: q3_lumps!(brushside: 12, vertex: 80, face: 148, lightmap: LumpDef::versioned("LIGHTMAPS", &[(0, 512 * 512 * 3)]), lightgrid: 30,
        LumpDef::records("LIGHT_ARRAY", 2)),
};

// Ritual's descendants reorder the lumps (geometry first, entities at 14) and add their own.
// F.A.K.K.2 SDK `qfiles.h` (`HEADER_LUMPS` 20); OpenMoHAA `code/qcommon/qfiles.h` (28 slots,
// `Q_GetLumpByVersion`: up to version 18 a FOGS lump sits at 13 and every later lump one slot on).
// Names follow the Quake 3 table's where the content is the same, so views find them by name.
// The light-grid palette and data are kept as bytes (their layout is not in either header);
// TERRAIN_INDEXES, STATIC_MODEL_INDEXES and LIGHT_GRID_OFFSETS are `short`s and
// STATIC_MODEL_DATA is 3-byte RGB per static-model vertex (OpenMoHAA's R_LoadStaticModelData,
// R_LoadTerrainIndexes, R_LoadStaticModelIndexes). DUMMY10 (slot 27 from version 19 on) is
// kept as bytes.

/// Heavy Metal: F.A.K.K.2 (`FAKK` 12), 20 lumps.
pub static FAKK2: Branch = Branch {
    id: "fakk2",
    family: Family::Quake3,
    title: "Ritual FAKK 12 (Heavy Metal: F.A.K.K.2)",
    games: "Heavy Metal: F.A.K.K.2",
    header: HeaderKind::Ritual { magic: *b"FAKK" },
    lumps: FAKK_LUMPS,
};

/// American McGee's Alice (`FAKK` 42): F.A.K.K.2's table (the engine it licensed).
pub static ALICE: Branch = Branch {
    id: "alice",
    family: Family::Quake3,
    title: "Ritual FAKK 42 (American McGee's Alice)",
    games: "American McGee's Alice",
    header: HeaderKind::Ritual { magic: *b"FAKK" },
    lumps: FAKK_LUMPS,
};

const FAKK_LUMPS: &[LumpDef] = &[
    LumpDef::records("SHADERS", 76),
    LumpDef::records("PLANES", 16),
    LumpDef::records("LIGHTMAPS", 49152),
    LumpDef::records("FACES", 108),
    LumpDef::records("DRAW_VERTICES", 44),
    LumpDef::records("DRAW_INDICES", 4),
    LumpDef::records("LEAF_BRUSHES", 4),
    LumpDef::records("LEAF_FACES", 4),
    LumpDef::records("LEAVES", 48),
    LumpDef::records("NODES", 36),
    LumpDef::records("BRUSH_SIDES", 8),
    LumpDef::records("BRUSHES", 12),
    LumpDef::records("FOGS", 72),
    LumpDef::records("MODELS", 40),
    LumpDef::entities("ENTITIES"),
    LumpDef::special("VISIBILITY"),
    LumpDef::raw("LIGHT_GRID"),
    LumpDef::records("ENTITY_LIGHTS", 56),
    LumpDef::raw("ENTITY_LIGHTS_VIS"),
    LumpDef::records("LIGHT_DEFS", 52),
];

/// Star Trek: Elite Force II (`EF2!` 20), 30 lumps: F.A.K.K.2's, with base and continuous
/// lightmaps after LIGHTMAPS and the lighting-group lumps, static LOD models and a BSP info lump
/// at the end (Spearmint `code/qcommon/bsp_ef2.c`). Brushes, brush sides, draw vertices and
/// surfaces have their own layouts (`records::BrushEf2` …); the lighting lumps, whose layouts
/// no loader reads, stay bytes.
pub static EF2: Branch = Branch {
    id: "ef2",
    family: Family::Quake3,
    title: "Ritual EF2! 20 (Star Trek: Elite Force II)",
    games: "Star Trek: Elite Force II",
    header: HeaderKind::Ritual { magic: *b"EF2!" },
    lumps: &[
        LumpDef::records("SHADERS", 76),
        LumpDef::records("PLANES", 16),
        LumpDef::records("LIGHTMAPS", 49152),
        LumpDef::raw("BASE_LIGHTMAPS"),
        LumpDef::raw("CONT_LIGHTMAPS"),
        LumpDef::records("FACES", 132),
        LumpDef::records("DRAW_VERTICES", 48),
        LumpDef::records("DRAW_INDICES", 4),
        LumpDef::records("LEAF_BRUSHES", 4),
        LumpDef::records("LEAF_FACES", 4),
        LumpDef::records("LEAVES", 48),
        LumpDef::records("NODES", 36),
        LumpDef::records("BRUSH_SIDES", 8),
        LumpDef::records("BRUSHES", 12),
        LumpDef::records("FOGS", 72),
        LumpDef::records("MODELS", 40),
        LumpDef::entities("ENTITIES"),
        LumpDef::special("VISIBILITY"),
        LumpDef::raw("LIGHT_GRID"),
        LumpDef::raw("ENTITY_LIGHTS"),
        LumpDef::raw("ENTITY_LIGHTS_VIS"),
        LumpDef::raw("LIGHT_DEFS"),
        LumpDef::raw("BASE_LIGHTING_VERTS"),
        LumpDef::raw("CONT_LIGHTING_VERTS"),
        LumpDef::raw("BASE_LIGHTING_SURFS"),
        LumpDef::raw("LIGHTING_SURFS"),
        LumpDef::raw("LIGHTING_VERT_SURFS"),
        LumpDef::raw("LIGHTING_GROUPS"),
        LumpDef::raw("STATIC_LOD_MODELS"),
        LumpDef::raw("BSP_INFO"),
    ],
};

/// Medal of Honor lumps 0..=12, shared by every version (OpenMoHAA `qfiles.h`).
macro_rules! mohaa_lumps {
    (leaf: $leaf:literal, fogs: [$($fog:expr)?], tail: [$($tail:expr)?]) => {
        &[
            LumpDef::records("SHADERS", 140),
            LumpDef::records("PLANES", 16),
            LumpDef::records("LIGHTMAPS", 49152),
            LumpDef::records("FACES", 108),
            LumpDef::records("DRAW_VERTICES", 44),
            LumpDef::records("DRAW_INDICES", 4),
            LumpDef::records("LEAF_BRUSHES", 4),
            LumpDef::records("LEAF_FACES", 4),
            LumpDef::records("LEAVES", $leaf),
            LumpDef::records("NODES", 36),
            LumpDef::records("SIDE_EQUATIONS", 32),
            LumpDef::records("BRUSH_SIDES", 12),
            LumpDef::records("BRUSHES", 12),
            $($fog,)?
            LumpDef::records("MODELS", 40),
            LumpDef::entities("ENTITIES"),
            LumpDef::special("VISIBILITY"),
            LumpDef::raw("LIGHT_GRID_PALETTE"),
            LumpDef::records("LIGHT_GRID_OFFSETS", 2),
            LumpDef::raw("LIGHT_GRID_DATA"),
            LumpDef::records("SPHERE_LIGHTS", 56),
            LumpDef::raw("SPHERE_LIGHT_VIS"),
            LumpDef::records("LIGHT_DEFS", 52),
            LumpDef::records("TERRAIN", 388),
            LumpDef::records("TERRAIN_INDEXES", 2),
            LumpDef::records("STATIC_MODEL_DATA", 3),
            LumpDef::records("STATIC_MODEL_DEFS", 164),
            LumpDef::records("STATIC_MODEL_INDEXES", 2),
            $($tail,)?
        ]
    };
}

/// Medal of Honor: Allied Assault demo (`2015` 17 / 18): 56-byte leaves and a FOGS lump at 13.
pub static MOHAA_DEMO: Branch = Branch {
    id: "mohaa_demo",
    family: Family::Quake3,
    title: "Ritual/2015 BSP 18 (Medal of Honor: Allied Assault demo)",
    games: "Medal of Honor: Allied Assault demo",
    header: HeaderKind::Ritual { magic: *b"2015" },
    lumps: mohaa_lumps!(leaf: 56, fogs: [LumpDef::records("FOGS", 72)], tail: []),
};

/// Medal of Honor: Allied Assault / Spearhead (`2015` 19..21): 64-byte leaves, no fogs, slot 27 unused.
pub static MOHAA: Branch = Branch {
    id: "mohaa",
    family: Family::Quake3,
    title: "Ritual/2015 BSP 19 (Medal of Honor: Allied Assault)",
    games: "Medal of Honor: Allied Assault, Spearhead",
    header: HeaderKind::Ritual { magic: *b"2015" },
    lumps: MOHAA_LUMPS,
};

/// Medal of Honor: Allied Assault — Breakthrough (`EALA`): the 19 table under EA Los Angeles' magic.
pub static MOHAA_BT: Branch = Branch {
    id: "mohaa_bt",
    family: Family::Quake3,
    title: "EALA BSP (Medal of Honor: Breakthrough)",
    games: "Medal of Honor: Allied Assault — Breakthrough",
    header: HeaderKind::Ritual { magic: *b"EALA" },
    lumps: MOHAA_LUMPS,
};

const MOHAA_LUMPS: &[LumpDef] = mohaa_lumps!(leaf: 64, fogs: [], tail: [LumpDef::raw("DUMMY10")]);

/// The Ritual branches, for the registry.
pub static RITUAL: [&Branch; 6] = [&FAKK2, &ALICE, &EF2, &MOHAA_DEMO, &MOHAA, &MOHAA_BT];

/// Which record set a Quake 3-family branch uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordSet {
    /// IBSP 46 and 47 (and Quake Live).
    Ibsp,
    /// Raven RBSP 1.
    Rbsp,
    /// qfusion FBSP 1.
    Fbsp,
    /// F.A.K.K.2 / Alice.
    Fakk,
    /// Elite Force II.
    Ef2,
    /// Medal of Honor demo (BSP 17 / 18).
    MohaaOld,
    /// Medal of Honor 19..21 and Breakthrough.
    Mohaa,
}

/// The record set of `branch`.
pub fn record_set(branch: &Branch) -> RecordSet {
    if branch == &RBSP {
        RecordSet::Rbsp
    } else if branch == &FBSP {
        RecordSet::Fbsp
    } else if branch == &FAKK2 || branch == &ALICE {
        RecordSet::Fakk
    } else if branch == &EF2 {
        RecordSet::Ef2
    } else if branch == &MOHAA_DEMO {
        RecordSet::MohaaOld
    } else if branch == &MOHAA || branch == &MOHAA_BT {
        RecordSet::Mohaa
    } else {
        RecordSet::Ibsp
    }
}

/// Call the generic function `$f::<L>(args)` with the record set `L` of `$branch`.
macro_rules! with_record_set {
    ($branch:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $crate::branches::quake3::lumps::record_set($branch) {
            $crate::branches::quake3::lumps::RecordSet::Ibsp => $f::<$crate::branches::quake3::records::Ibsp>($($arg),*),
            $crate::branches::quake3::lumps::RecordSet::Rbsp => $f::<$crate::branches::quake3::records::Rbsp>($($arg),*),
            $crate::branches::quake3::lumps::RecordSet::Fbsp => $f::<$crate::branches::quake3::records::Fbsp>($($arg),*),
            $crate::branches::quake3::lumps::RecordSet::Fakk => $f::<$crate::branches::quake3::records::Fakk>($($arg),*),
            $crate::branches::quake3::lumps::RecordSet::Ef2 => $f::<$crate::branches::quake3::records::Ef2>($($arg),*),
            $crate::branches::quake3::lumps::RecordSet::MohaaOld => $f::<$crate::branches::quake3::records::MohaaOld>($($arg),*),
            $crate::branches::quake3::lumps::RecordSet::Mohaa => $f::<$crate::branches::quake3::records::Mohaa>($($arg),*),
        }
    };
}
pub(crate) use with_record_set;
