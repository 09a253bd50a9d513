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

/// Which record set a Quake 3-family branch uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordSet {
    /// IBSP 46 and 47 (and Quake Live).
    Ibsp,
    /// Raven RBSP 1.
    Rbsp,
    /// qfusion FBSP 1.
    Fbsp,
}

/// The record set of `branch`.
pub fn record_set(branch: &Branch) -> RecordSet {
    if branch == &RBSP {
        RecordSet::Rbsp
    } else if branch == &FBSP {
        RecordSet::Fbsp
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
        }
    };
}
pub(crate) use with_record_set;
