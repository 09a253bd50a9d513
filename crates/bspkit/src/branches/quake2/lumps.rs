//! Quake 2 lump table: directory slots and the branch descriptors of IBSP 38, Qbism
//! (quake_family.md C.3; quake_facts.md §4, §4.1) and the Quake 2-derived SiN, Soldier of
//! Fortune and Daikatana tables (sources at each descriptor). Data only.

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

/// SiN: light values (`sin_lightvalue_t`), indexed by faces and brush sides.
pub const LUMP_SIN_LIGHT_INFO: usize = 19;
/// Soldier of Fortune: region faces (`dregionface_t`), lights (`light_t`), regions (`dregion_t`).
pub const LUMP_SOF_REGION_FACES: usize = 19;
pub const LUMP_SOF_LIGHTS: usize = 20;
pub const LUMP_SOF_REGIONS: usize = 21;
/// Daikatana: a colour per texinfo (`extsurfinfo_t`) and the plane-polygon lists (ints).
pub const LUMP_DK_EXT_SURF_INFO: usize = 19;
pub const LUMP_DK_PLANE_POLYS: usize = 20;

macro_rules! q2_lumps {
    (node: $node:literal, face: $face:literal, leaf: $leaf:literal, index: $idx:literal, edge: $edge:literal, side: $side:literal, texinfo: $ti:literal $(, $extra:expr)*) => {
        &[
            LumpDef::entities("ENTITIES"),
            LumpDef::records("PLANES", 20),
            LumpDef::records("VERTICES", 12),
            LumpDef::special("VISIBILITY"),
            LumpDef::records("NODES", $node),
            LumpDef::records("TEXINFO", $ti),
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
            $($extra,)*
        ]
    };
}

pub static QUAKE2: Branch = Branch {
    id: "quake2",
    family: Family::Quake2,
    title: "Quake II (IBSP 38)",
    games: "Quake II and its mods, Kingpin, Heretic II",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q2_lumps!(node: 28, face: 20, leaf: 28, index: 2, edge: 4, side: 4, texinfo: 76),
};

pub static QBISM: Branch = Branch {
    id: "qbism",
    family: Family::Quake2,
    title: "Quake II Qbism (QBSP 38, 32-bit indices)",
    games: "Quake II source ports with extended limits",
    header: HeaderKind::IdMagic { magic: *b"QBSP" },
    lumps: q2_lumps!(node: 44, face: 28, leaf: 52, index: 4, edge: 8, side: 8, texinfo: 76),
};

/// SiN (Ritual): 20 lumps, Quake 2's plus LIGHTINFO; wider texinfo (180 bytes: 64-byte name,
/// surface physics and colour), faces (36: 16 light styles, a light-info index) and brush
/// sides (8: a light-info index). Released maps say `RBSP` 1, early ones `IBSP` 41; both read
/// alike (id's bspc `code/bspc/sinfiles.h`, `l_bsp_sin.c`; bsp_tool `branches/ritual/sin.py`).
pub static SIN: Branch = Branch {
    id: "sin",
    family: Family::Quake2,
    title: "SiN (RBSP 1 / IBSP 41, Quake II-based)",
    games: "SiN, SiN Gold (Wages of Sin)",
    header: HeaderKind::IdMagic { magic: *b"RBSP" },
    lumps: q2_lumps!(node: 28, face: 36, leaf: 28, index: 2, edge: 4, side: 8, texinfo: 180, LumpDef::records("LIGHT_INFO", 60)),
};

/// Soldier of Fortune (Raven): `IBSP` 46 like Quake 3, but a Quake 2 table of 22 lumps: region
/// faces, lights and fog regions added; faces carry a region and lightmap-mip fields (44
/// bytes), leaves a region (32). Sizes as the SoF SDK's `qcommon/qfiles.h` declares them with
/// `MAXLIGHTMAPS` 4 (`q_shared.h`) and the compiler's natural alignment (in
/// d3nd3/sof-plus-plus-nix; bsp_tool `branches/raven/soldier_of_fortune.py` names the table).
pub static SOF: Branch = Branch {
    id: "sof",
    family: Family::Quake2,
    title: "Soldier of Fortune (IBSP 46, Quake II-based)",
    games: "Soldier of Fortune (PC, Dreamcast)",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q2_lumps!(
        node: 28, face: 44, leaf: 32, index: 2, edge: 4, side: 4, texinfo: 76,
        LumpDef::records("REGION_FACES", 8),
        LumpDef::records("LIGHTS", 36),
        LumpDef::records("REGIONS", 76)
    ),
};

/// Daikatana (Ion Storm): `IBSP` 41, 21 lumps: Quake 2's plus EXTSURFINFO (an RGB colour per
/// texinfo) and PLANEPOLYS (per plane a count, then that many face indices) (Daikatana 1.3
/// source `user/qfiles.h`, in atsb/daikatana-restoration-project).
///
/// Leaves are Quake 2's 28-byte `dleaf_t`, as measured on a shipped map (docs/real-maps.md,
/// e1m7: 183,960 bytes = 6,570 leaves = 6,476 nodes + 93 models + 1, every leaf's face and brush
/// range and cluster in bounds; read as 32 or 36 bytes the lump is not whole or its ranges run
/// wild). The 1.3 source's header appends an `int brushnum` (32 bytes) that no measured map
/// carries; its loaders would refuse the shipped lump ("funny lump size").
pub static DAIKATANA: Branch = Branch {
    id: "daikatana",
    family: Family::Quake2,
    title: "Daikatana (IBSP 41, Quake II-based)",
    games: "Daikatana",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q2_lumps!(
        node: 28, face: 20, leaf: 28, index: 2, edge: 4, side: 4, texinfo: 76,
        LumpDef::records("EXT_SURF_INFO", 12),
        LumpDef::records("PLANE_POLYS", 4)
    ),
};
