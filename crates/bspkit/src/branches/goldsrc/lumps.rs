//! GoldSrc lump tables: the BSP30 and Blue Shift branch descriptors (quake_family.md Part B).
//! Data only.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};
use crate::branches::quake1::lumps::quake_lumps;

pub static GOLDSRC: Branch = Branch {
    id: "goldsrc",
    family: Family::GoldSrc,
    title: "GoldSrc (BSP30)",
    games: "Half-Life, Counter-Strike 1.x, Team Fortress Classic and other GoldSrc games",
    header: HeaderKind::Quake { magic: None },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 64),
};

/// Blue Shift stores the planes entry first and the entities entry second.
pub static BLUESHIFT: Branch = Branch {
    id: "blueshift",
    family: Family::GoldSrc,
    title: "GoldSrc Blue Shift (BSP30, entries 0 and 1 swapped)",
    games: "Half-Life: Blue Shift",
    header: HeaderKind::Quake { magic: None },
    lumps: &[
        LumpDef::records("PLANES", 20),
        LumpDef::entities("ENTITIES"),
        LumpDef::special("TEXTURES"),
        LumpDef::records("VERTICES", 12),
        LumpDef::special("VISIBILITY"),
        LumpDef::records("NODES", 24),
        LumpDef::records("TEXINFO", 40),
        LumpDef::records("FACES", 20),
        LumpDef::raw("LIGHTING"),
        LumpDef::records("CLIPNODES", 8),
        LumpDef::records("LEAVES", 28),
        LumpDef::records("MARKSURFACES", 2),
        LumpDef::records("EDGES", 4),
        LumpDef::records("SURFEDGES", 4),
        LumpDef::records("MODELS", 64),
    ],
};
