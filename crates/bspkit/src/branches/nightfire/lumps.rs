//! James Bond 007: Nightfire's directory (version 42) and its branch descriptor: a GoldSrc-style
//! header (`i32 version; {i32 offset, i32 length}[18]`, 148 bytes) over a lump list of its own
//! (source notes in [`super`]). Lumps are named as the Nightfire compiler reconstruction names
//! them (`LUMP_*` of its `bspfile.cpp`); sizes are its `sizeof` of each record.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

pub const ENTITIES: usize = 0;
pub const PLANES: usize = 1;
pub const TEXTURES: usize = 2;
pub const MATERIALS: usize = 3;
pub const VERTEXES: usize = 4;
pub const NORMALS: usize = 5;
pub const INDICES: usize = 6;
pub const VISIBILITY: usize = 7;
pub const NODES: usize = 8;
pub const FACES: usize = 9;
pub const LIGHTING: usize = 10;
pub const LEAFS: usize = 11;
pub const MARKSURFACES: usize = 12;
pub const MARKBRUSHES: usize = 13;
pub const MODELS: usize = 14;
pub const BRUSHES: usize = 15;
pub const BRUSHSIDES: usize = 16;
pub const TEXMATRIX: usize = 17;

/// The version word at offset 0.
pub const VERSION: u32 = 42;

/// The 18 directory slots in index order.
pub static LUMPS: [LumpDef; 18] = [
    LumpDef::entities("ENTITIES"),
    LumpDef::records("PLANES", 20),
    LumpDef::records("TEXTURES", 64),
    LumpDef::records("MATERIALS", 64),
    LumpDef::records("VERTEXES", 12),
    LumpDef::records("NORMALS", 12),
    LumpDef::records("INDICES", 4),
    LumpDef::special("VISIBILITY"),
    LumpDef::records("NODES", 36),
    LumpDef::records("FACES", 48),
    LumpDef::raw("LIGHTING"),
    LumpDef::records("LEAFS", 48),
    LumpDef::records("MARKSURFACES", 4),
    LumpDef::records("MARKBRUSHES", 4),
    LumpDef::records("MODELS", 56),
    LumpDef::records("BRUSHES", 12),
    LumpDef::records("BRUSHSIDES", 8),
    LumpDef::records("TEXMATRIX", 32),
];

pub static NIGHTFIRE: Branch = Branch {
    id: "nightfire",
    family: Family::Nightfire,
    title: "James Bond 007: Nightfire (version 42)",
    games: "James Bond 007: Nightfire (PC)",
    header: HeaderKind::Quake { magic: None },
    lumps: &LUMPS,
};

/// The compiler's object limits (its `PrintBSPFileSizes` table: `MAX_MAP_*`), by info row name.
pub const LIMITS: [(&str, u64); 15] = [
    ("models", 1024),
    ("brushes", 32767),
    ("brushsides", 196602),
    ("faces", 262144),
    ("planes", 262144),
    ("verts", 262144),
    ("normals", 262144),
    ("indices", 262144),
    ("nodes", 262144),
    ("leaves", 32000),
    ("markbrushes", 262144),
    ("marksurfaces", 262144),
    ("textures", 1024),
    ("materials", 1024),
    ("texmatrix", 65536),
];
