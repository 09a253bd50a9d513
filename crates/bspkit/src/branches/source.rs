//! Source engine VBSP / PSBV (source.md). Lump names follow the Source 2007/2009 table
//! (source.md §5); per-game variants are separate branches below.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};
use crate::bytes::{u32_at, Endian};
use crate::detect::Detection;
use crate::error::{Error, ErrorKind, Result};

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_GAME_LUMP: usize = 35;
pub const LUMP_PAKFILE: usize = 40;

/// Source 2007/2009 lump table (source.md §5), with record sizes from §7–§24.
pub static LUMPS_2007: [LumpDef; 64] = [
    LumpDef::entities("ENTITIES"),
    LumpDef::records("PLANES", 20),
    LumpDef::records("TEXDATA", 32),
    LumpDef::records("VERTICES", 12),
    LumpDef::special("VISIBILITY"),
    LumpDef::records("NODES", 32),
    LumpDef::records("TEXINFO", 72),
    LumpDef::records("FACES", 56),
    LumpDef::raw("LIGHTING"),
    LumpDef::special("OCCLUSION"),
    LumpDef::versioned("LEAVES", &[(0, 56), (1, 32)]),
    LumpDef::raw("FACE_IDS"),
    LumpDef::records("EDGES", 4),
    LumpDef::records("SURFEDGES", 4),
    LumpDef::records("MODELS", 48),
    LumpDef::records("WORLD_LIGHTS", 88),
    LumpDef::records("LEAF_FACES", 2),
    LumpDef::records("LEAF_BRUSHES", 2),
    LumpDef::records("BRUSHES", 12),
    LumpDef::records("BRUSH_SIDES", 8),
    LumpDef::records("AREAS", 8),
    LumpDef::records("AREA_PORTALS", 12),
    LumpDef::raw("UNUSED0"),
    LumpDef::raw("UNUSED1"),
    LumpDef::raw("UNUSED2"),
    LumpDef::raw("UNUSED3"),
    LumpDef::records("DISP_INFO", 176),
    LumpDef::records("ORIGINAL_FACES", 56),
    LumpDef::raw("PHYS_DISP"),
    LumpDef::special("PHYS_COLLIDE"),
    LumpDef::records("VERT_NORMALS", 12),
    LumpDef::records("VERT_NORMAL_INDICES", 2),
    LumpDef::raw("DISP_LIGHTMAP_ALPHAS"),
    LumpDef::records("DISP_VERTS", 20),
    LumpDef::raw("DISP_LIGHTMAP_SAMPLE_POSITIONS"),
    LumpDef::special("GAME_LUMP"),
    LumpDef::raw("LEAF_WATER_DATA"),
    LumpDef::raw("PRIMITIVES"),
    LumpDef::records("PRIM_VERTS", 12),
    LumpDef::records("PRIM_INDICES", 2),
    LumpDef::special("PAKFILE"),
    LumpDef::records("CLIP_PORTAL_VERTS", 12),
    LumpDef::records("CUBEMAPS", 16),
    LumpDef::raw("TEXDATA_STRING_DATA"),
    LumpDef::records("TEXDATA_STRING_TABLE", 4),
    LumpDef::raw("OVERLAYS"),
    LumpDef::records("LEAF_MIN_DIST_TO_WATER", 2),
    LumpDef::raw("FACE_MACRO_TEXTURE_INFO"),
    LumpDef::records("DISP_TRIS", 2),
    LumpDef::raw("PHYS_COLLIDE_SURFACE"),
    LumpDef::raw("WATER_OVERLAYS"),
    LumpDef::raw("LEAF_AMBIENT_INDEX_HDR"),
    LumpDef::raw("LEAF_AMBIENT_INDEX"),
    LumpDef::raw("LIGHTING_HDR"),
    LumpDef::records("WORLD_LIGHTS_HDR", 88),
    LumpDef::raw("LEAF_AMBIENT_LIGHTING_HDR"),
    LumpDef::raw("LEAF_AMBIENT_LIGHTING"),
    LumpDef::raw("XZIP_PAKFILE"),
    LumpDef::records("FACES_HDR", 56),
    LumpDef::raw("MAP_FLAGS"),
    LumpDef::raw("OVERLAY_FADES"),
    LumpDef::raw("OVERLAY_SYSTEM_LEVELS"),
    LumpDef::raw("PHYS_LEVEL"),
    LumpDef::raw("DISP_MULTIBLEND"),
];

pub static SOURCE: Branch = Branch {
    id: "source",
    family: Family::Source,
    title: "Source (VBSP, 2007/2009 lump table)",
    games: "Half-Life 2 and episodes, Team Fortress 2, Garry's Mod, Portal, CS:S, CS:GO and other Source games",
    header: HeaderKind::Valve { version_first: false },
    lumps: &LUMPS_2007,
    stats: None,
    check: None,
};

pub static L4D2: Branch = Branch {
    id: "l4d2",
    family: Family::Source,
    title: "Source, Left 4 Dead 2 branch (version-first lump_t)",
    games: "Left 4 Dead 2",
    header: HeaderKind::Valve { version_first: true },
    lumps: &LUMPS_2007,
    stats: None,
    check: None,
};

/// Source branches, for the registry.
pub static BRANCHES: &[&Branch] = &[&SOURCE, &L4D2];

/// Does every non-empty directory entry lie inside the file, read in this order?
fn directory_fits(data: &[u8], endian: Endian, version_first: bool) -> bool {
    let (o, l) = if version_first { (4, 8) } else { (0, 4) };
    (0..64).all(|i| {
        let b = 8 + 16 * i;
        let (Some(ofs), Some(len)) = (u32_at(data, b + o, endian), u32_at(data, b + l, endian)) else { return false };
        len == 0 || (ofs as u64 + len as u64 <= data.len() as u64 && ofs >= 1036)
    })
}

/// Choose the Source branch for a VBSP/PSBV file (source.md §3, §4.2).
pub fn select(data: &[u8], endian: Endian, version: u32) -> Result<Detection> {
    let magic = if endian == Endian::Little { "VBSP" } else { "PSBV" };
    if !matches!(version, 17..=25 | 27 | 42 | 100) {
        return Err(Error::new(ErrorKind::UnsupportedVersion { magic: magic.into(), version: version as i64 }).in_lump("header").at(4));
    }
    let std = directory_fits(data, endian, false);
    let l4d2 = version == 21 && directory_fits(data, endian, true);
    let order = format!("magic {magic:?} ({} endian), version {version}", if endian == Endian::Little { "little" } else { "big" });
    let (branch, why): (&'static Branch, String) = if l4d2 && !std {
        (&L4D2, "lump_t entries fit the file only in version-first order (L4D2 branch)".into())
    } else {
        (&SOURCE, "lump_t entries fit the file in the standard order".into())
    };
    let mut d = Detection { branch, version, endian, why: vec![order, why], runners_up: Vec::new() };
    if l4d2 && std {
        d.runners_up.push(("l4d2", "version-first order also fits".into()));
    }
    Ok(d)
}
