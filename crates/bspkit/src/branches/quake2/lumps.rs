//! Quake 2 lump table: directory slots and the IBSP 38 / Qbism branch descriptors
//! (quake_family.md C.3; quake_facts.md §4, §4.1). Data only.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_PLANES: usize = 1;
pub const LUMP_VERTICES: usize = 2;
pub const LUMP_VISIBILITY: usize = 3;
pub const LUMP_NODES: usize = 4;
pub const LUMP_TEXINFO: usize = 5;
pub const LUMP_FACES: usize = 6;
pub const LUMP_LIGHTING: usize = 7;
pub const LUMP_LEAVES: usize = 8;
pub const LUMP_LEAF_FACES: usize = 9;
pub const LUMP_LEAF_BRUSHES: usize = 10;
pub const LUMP_EDGES: usize = 11;
pub const LUMP_SURFEDGES: usize = 12;
pub const LUMP_MODELS: usize = 13;
pub const LUMP_BRUSHES: usize = 14;
pub const LUMP_BRUSH_SIDES: usize = 15;
pub const LUMP_POP: usize = 16;
pub const LUMP_AREAS: usize = 17;
pub const LUMP_AREA_PORTALS: usize = 18;

macro_rules! q2_lumps {
    (node: $node:literal, face: $face:literal, leaf: $leaf:literal, index: $idx:literal, edge: $edge:literal, side: $side:literal) => {
        &[
            LumpDef::entities("ENTITIES"),
            LumpDef::records("PLANES", 20),
            LumpDef::records("VERTICES", 12),
            LumpDef::special("VISIBILITY"),
            LumpDef::records("NODES", $node),
            LumpDef::records("TEXINFO", 76),
            LumpDef::records("FACES", $face),
            LumpDef::raw("LIGHTING"),
            LumpDef::records("LEAVES", $leaf),
            LumpDef::records("LEAF_FACES", $idx),
            LumpDef::records("LEAF_BRUSHES", $idx),
            LumpDef::records("EDGES", $edge),
            LumpDef::records("SURFEDGES", 4),
            LumpDef::records("MODELS", 48),
            LumpDef::records("BRUSHES", 12),
            LumpDef::records("BRUSH_SIDES", $side),
            LumpDef::raw("POP"),
            LumpDef::records("AREAS", 8),
            LumpDef::records("AREA_PORTALS", 8),
        ]
    };
}

pub static QUAKE2: Branch = Branch {
    id: "quake2",
    family: Family::Quake2,
    title: "Quake II (IBSP 38)",
    games: "Quake II and its mods, Kingpin, SiN (variants), Heretic II",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q2_lumps!(node: 28, face: 20, leaf: 28, index: 2, edge: 4, side: 4),
};

pub static QBISM: Branch = Branch {
    id: "qbism",
    family: Family::Quake2,
    title: "Quake II Qbism (QBSP 38, 32-bit indices)",
    games: "Quake II source ports with extended limits",
    header: HeaderKind::IdMagic { magic: *b"QBSP" },
    lumps: q2_lumps!(node: 44, face: 28, leaf: 52, index: 4, edge: 8, side: 8),
};
