//! Quake 3 IBSP 46 and descendants: IBSP 47 (RTCW / ET / Quake Live), Raven RBSP 1,
//! qfusion FBSP 1 (quake_family.md Part A).

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

macro_rules! q3_lumps {
    (brushside: $bs:literal, vertex: $v:literal, face: $f:literal, lightmap: $lm:literal, lightgrid: $lg:literal $(, $extra:expr)*) => {
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
            LumpDef::records("LIGHTMAPS", $lm),
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
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: 49152, lightgrid: 8),
    stats: None,
    check: None,
};

pub static IBSP47: Branch = Branch {
    id: "ibsp47",
    family: Family::Quake3,
    title: "Quake III engine IBSP 47",
    games: "Return to Castle Wolfenstein, Wolfenstein: Enemy Territory, Quake Live",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: 49152, lightgrid: 8),
    stats: None,
    check: None,
};

pub static RBSP: Branch = Branch {
    id: "rbsp",
    family: Family::Quake3,
    title: "Raven RBSP 1",
    games: "Star Wars Jedi Knight II, Jedi Academy, Soldier of Fortune II",
    header: HeaderKind::IdMagic { magic: *b"RBSP" },
    lumps: q3_lumps!(brushside: 12, vertex: 80, face: 148, lightmap: 49152, lightgrid: 30, LumpDef::records("LIGHT_ARRAY", 2)),
    stats: None,
    check: None,
};

pub static FBSP: Branch = Branch {
    id: "fbsp",
    family: Family::Quake3,
    title: "qfusion FBSP 1",
    games: "Warsow, Warfork, qfusion games",
    header: HeaderKind::IdMagic { magic: *b"FBSP" },
    lumps: q3_lumps!(brushside: 12, vertex: 80, face: 148, lightmap: 49152, lightgrid: 32, LumpDef::records("LIGHT_ARRAY", 4)),
    stats: None,
    check: None,
};
