//! Quake 1 lump table: directory slots and the branch descriptors of BSP29, Hexen II, BSP2 and
//! 2PSB (quake_family.md B.1, C.2; quake_facts.md 1.2–1.4). Data only: nothing here reads a map.

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
};

pub static HEXEN2: Branch = Branch {
    id: "hexen2",
    family: Family::Quake,
    title: "Hexen II (BSP29, 80-byte models)",
    games: "Hexen II",
    header: HeaderKind::Quake { magic: None },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 80),
};

pub static BSP2: Branch = Branch {
    id: "bsp2",
    family: Family::Quake,
    title: "Quake BSP2 (32-bit indices, float bounds)",
    games: "Quake source ports (FitzQuake family, ericw-tools -bsp2)",
    header: HeaderKind::Quake { magic: Some(*b"BSP2") },
    lumps: quake_lumps!(node: 44, face: 28, clipnode: 12, leaf: 44, mark: 4, edge: 8, model: 64),
};

pub static BSP2PSB: Branch = Branch {
    id: "2psb",
    family: Family::Quake,
    title: "Quake 2PSB (RMQ 32-bit indices, 16-bit bounds)",
    games: "RemakeQuake",
    header: HeaderKind::Quake { magic: Some(*b"2PSB") },
    lumps: quake_lumps!(node: 32, face: 28, clipnode: 12, leaf: 32, mark: 4, edge: 8, model: 64),
};

/// Quake 64 (Nightdive's 2021 PC release of Midway's Nintendo 64 port): BSP29's records and
/// table behind the version word `'Q' << 24 | '6' << 16 | '4' << 8 | ' '` (bytes `" 46Q"`,
/// quakespasm `bspfile.h` `BSPVERSION_QUAKE64`). Its textures are `miptex64_t` (a `shift` after
/// the size, pixels right after the 44-byte header, sizes not multiples of 16) and its lighting
/// holds 16-bit RGB luxels (quakespasm `Mod_LoadTextures`, `Mod_LoadLighting`).
pub static QUAKE64: Branch = Branch {
    id: "quake64",
    family: Family::Quake,
    title: "Quake 64 (BSP29 with 16-bit lighting and shifted textures)",
    games: "Quake 64 (2021 PC release)",
    header: HeaderKind::Quake { magic: Some(*b" 46Q") },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 64),
};

/// Which record set a Quake 1 / GoldSrc branch uses (quake_family.md C.2, quake_facts.md 1.2–1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordSet {
    /// BSP29 records: Quake, GoldSrc, Blue Shift.
    Bsp29,
    /// BSP29 with Hexen II's 80-byte models.
    Hexen2,
    /// `BSP2` (32-bit indices, float bounds).
    Bsp2,
    /// `2PSB` (32-bit indices, 16-bit bounds).
    Rmq,
}

/// The record set of `branch` (BSP29 for any branch that is not one of the widened ones).
pub fn record_set(branch: &Branch) -> RecordSet {
    if branch == &HEXEN2 {
        RecordSet::Hexen2
    } else if branch == &BSP2 {
        RecordSet::Bsp2
    } else if branch == &BSP2PSB {
        RecordSet::Rmq
    } else {
        RecordSet::Bsp29
    }
}

/// Call the generic function `$f::<L>(args)` with the record set `L` of `$branch`.
macro_rules! with_record_set {
    ($branch:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $crate::branches::quake1::lumps::record_set($branch) {
            $crate::branches::quake1::lumps::RecordSet::Bsp29 => $f::<$crate::branches::quake1::records::Bsp29>($($arg),*),
            $crate::branches::quake1::lumps::RecordSet::Hexen2 => $f::<$crate::branches::quake1::records::Hexen2>($($arg),*),
            $crate::branches::quake1::lumps::RecordSet::Bsp2 => $f::<$crate::branches::quake1::records::Bsp2>($($arg),*),
            $crate::branches::quake1::lumps::RecordSet::Rmq => $f::<$crate::branches::quake1::records::Rmq>($($arg),*),
        }
    };
}
pub(crate) use with_record_set;
