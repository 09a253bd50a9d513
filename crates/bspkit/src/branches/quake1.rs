//! Quake 1: BSP29, BSP2, 2PSB and Hexen II (quake_family.md C.2; lump order as GoldSrc B.1).

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_PLANES: usize = 1;
pub const LUMP_TEXTURES: usize = 2;
pub const LUMP_VERTICES: usize = 3;
pub const LUMP_VISIBILITY: usize = 4;
pub const LUMP_NODES: usize = 5;
pub const LUMP_TEXINFO: usize = 6;
pub const LUMP_FACES: usize = 7;
pub const LUMP_LIGHTING: usize = 8;
pub const LUMP_CLIPNODES: usize = 9;
pub const LUMP_LEAVES: usize = 10;
pub const LUMP_MARKSURFACES: usize = 11;
pub const LUMP_EDGES: usize = 12;
pub const LUMP_SURFEDGES: usize = 13;
pub const LUMP_MODELS: usize = 14;

/// The 15-slot table shared by BSP29 / GoldSrc, with the sizes of one set of record types.
macro_rules! quake_lumps {
    (node: $node:literal, face: $face:literal, clipnode: $clip:literal, leaf: $leaf:literal, mark: $mark:literal, edge: $edge:literal, model: $model:literal) => {
        &[
            LumpDef::entities("ENTITIES"),
            LumpDef::records("PLANES", 20),
            LumpDef::special("TEXTURES"),
            LumpDef::records("VERTICES", 12),
            LumpDef::special("VISIBILITY"),
            LumpDef::records("NODES", $node),
            LumpDef::records("TEXINFO", 40),
            LumpDef::records("FACES", $face),
            LumpDef::raw("LIGHTING"),
            LumpDef::records("CLIPNODES", $clip),
            LumpDef::records("LEAVES", $leaf),
            LumpDef::records("MARKSURFACES", $mark),
            LumpDef::records("EDGES", $edge),
            LumpDef::records("SURFEDGES", 4),
            LumpDef::records("MODELS", $model),
        ]
    };
}
pub(crate) use quake_lumps;

pub static QUAKE1: Branch = Branch {
    id: "quake1",
    family: Family::Quake,
    title: "Quake (BSP29)",
    games: "Quake, QuakeWorld and most Quake mods",
    header: HeaderKind::Quake { magic: None },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 64),
    stats: None,
    check: None,
};

pub static HEXEN2: Branch = Branch {
    id: "hexen2",
    family: Family::Quake,
    title: "Hexen II (BSP29, 80-byte models)",
    games: "Hexen II",
    header: HeaderKind::Quake { magic: None },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 80),
    stats: None,
    check: None,
};

pub static BSP2: Branch = Branch {
    id: "bsp2",
    family: Family::Quake,
    title: "Quake BSP2 (32-bit indices, float bounds)",
    games: "Quake source ports (FitzQuake family, ericw-tools -bsp2)",
    header: HeaderKind::Quake { magic: Some(*b"BSP2") },
    lumps: quake_lumps!(node: 44, face: 28, clipnode: 12, leaf: 44, mark: 4, edge: 8, model: 64),
    stats: None,
    check: None,
};

pub static BSP2PSB: Branch = Branch {
    id: "2psb",
    family: Family::Quake,
    title: "Quake 2PSB (RMQ 32-bit indices, 16-bit bounds)",
    games: "RemakeQuake",
    header: HeaderKind::Quake { magic: Some(*b"2PSB") },
    lumps: quake_lumps!(node: 32, face: 28, clipnode: 12, leaf: 32, mark: 4, edge: 8, model: 64),
    stats: None,
    check: None,
};
