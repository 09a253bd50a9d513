//! Source lump tables (source.md §5, §27): directory slots, the lump-name table of each game
//! branch with record sizes from §7–§24, the branch descriptors and the versions each carries.
//! Data only.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_PLANES: usize = 1;
pub const LUMP_TEXDATA: usize = 2;
pub const LUMP_VERTICES: usize = 3;
pub const LUMP_VISIBILITY: usize = 4;
pub const LUMP_NODES: usize = 5;
pub const LUMP_TEXINFO: usize = 6;
pub const LUMP_FACES: usize = 7;
pub const LUMP_LIGHTING: usize = 8;
pub const LUMP_OCCLUSION: usize = 9;
pub const LUMP_LEAVES: usize = 10;
pub const LUMP_FACE_IDS: usize = 11;
pub const LUMP_EDGES: usize = 12;
pub const LUMP_SURFEDGES: usize = 13;
pub const LUMP_MODELS: usize = 14;
pub const LUMP_WORLD_LIGHTS: usize = 15;
pub const LUMP_LEAF_FACES: usize = 16;
pub const LUMP_LEAF_BRUSHES: usize = 17;
pub const LUMP_BRUSHES: usize = 18;
pub const LUMP_BRUSH_SIDES: usize = 19;
pub const LUMP_AREAS: usize = 20;
pub const LUMP_AREA_PORTALS: usize = 21;
pub const LUMP_FACE_BRUSH_LIST: usize = 23;
pub const LUMP_DISP_INFO: usize = 26;
pub const LUMP_ORIGINAL_FACES: usize = 27;
pub const LUMP_PHYS_DISP: usize = 28;
pub const LUMP_PHYS_COLLIDE: usize = 29;
pub const LUMP_VERT_NORMALS: usize = 30;
pub const LUMP_VERT_NORMAL_INDICES: usize = 31;
pub const LUMP_DISP_VERTS: usize = 33;
pub const LUMP_DISP_LIGHTMAP_SAMPLE_POSITIONS: usize = 34;
pub const LUMP_GAME_LUMP: usize = 35;
pub const LUMP_LEAF_WATER_DATA: usize = 36;
pub const LUMP_PRIMITIVES: usize = 37;
pub const LUMP_PRIM_VERTS: usize = 38;
pub const LUMP_PRIM_INDICES: usize = 39;
pub const LUMP_PAKFILE: usize = 40;
pub const LUMP_CLIP_PORTAL_VERTS: usize = 41;
pub const LUMP_CUBEMAPS: usize = 42;
pub const LUMP_TEXDATA_STRING_DATA: usize = 43;
pub const LUMP_TEXDATA_STRING_TABLE: usize = 44;
pub const LUMP_OVERLAYS: usize = 45;
pub const LUMP_LEAF_MIN_DIST_TO_WATER: usize = 46;
pub const LUMP_FACE_MACRO_TEXTURE_INFO: usize = 47;
pub const LUMP_DISP_TRIS: usize = 48;
pub const LUMP_WATER_OVERLAYS: usize = 50;
pub const LUMP_LEAF_AMBIENT_INDEX_HDR: usize = 51;
pub const LUMP_LEAF_AMBIENT_INDEX: usize = 52;
pub const LUMP_LIGHTING_HDR: usize = 53;
pub const LUMP_WORLD_LIGHTS_HDR: usize = 54;
pub const LUMP_LEAF_AMBIENT_LIGHTING_HDR: usize = 55;
pub const LUMP_LEAF_AMBIENT_LIGHTING: usize = 56;
pub const LUMP_FACES_HDR: usize = 58;
pub const LUMP_MAP_FLAGS: usize = 59;
pub const LUMP_OVERLAY_FADES: usize = 60;
pub const LUMP_DISP_MULTIBLEND: usize = 63;

/// The lump-layout generation a branch uses: which record forms its geometry lumps take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// VTMB v17: 104-byte faces (source.md §7.5).
    Vtmb,
    /// Every Valve branch from 2004 to CS:GO and most licensees.
    Standard,
    /// Strata Source v25: widened indices and float bounds (bsp_tool strata.py).
    Strata,
    /// Dark Messiah of Might and Magic: 96-byte texinfo and 52-byte models (VDC "BSP
    /// (Source)/Game-Specific"), every other lump as the 2007 table.
    DarkMessiah,
    /// Vindictus (both versions): widened faces (lump versions 1 and 2), nodes, leaves, edges,
    /// leaf faces/brushes, brush sides, area portals, dispinfo and overlays (bsp_tool
    /// `nexon/vindictus69.py`).
    Vindictus,
}

/// The layout generation of a Source branch.
pub fn layout(branch: &Branch) -> Layout {
    match branch.id {
        "vtmb" => Layout::Vtmb,
        "strata" => Layout::Strata,
        "darkmessiah" => Layout::DarkMessiah,
        "vindictus" | "vindictus69" => Layout::Vindictus,
        _ => Layout::Standard,
    }
}

const fn with(mut t: [LumpDef; 64], i: usize, d: LumpDef) -> [LumpDef; 64] {
    t[i] = d;
    t
}

/// Source 2007/2009 lump table (source.md §5), with record sizes from §7–§24. Lumps 61–63
/// keep their later-branch names so v20 maps from those branches still read.
pub static LUMPS_2007: [LumpDef; 64] = [
    LumpDef::entities("ENTITIES"),
    LumpDef::records("PLANES", 20),
    LumpDef::records("TEXDATA", 32),
    LumpDef::records("VERTICES", 12),
    LumpDef::special("VISIBILITY"),
    LumpDef::records("NODES", 32),
    LumpDef::records("TEXINFO", 72),
    LumpDef::records("FACES", 56),
    // ColorRGBExp32 samples (§19).
    LumpDef::records("LIGHTING", 4),
    LumpDef::special("OCCLUSION"),
    LumpDef::versioned("LEAVES", &[(0, 56), (1, 32)]),
    LumpDef::records("FACE_IDS", 2),
    LumpDef::records("EDGES", 4),
    LumpDef::records("SURFEDGES", 4),
    LumpDef::records("MODELS", 48),
    LumpDef::versioned("WORLD_LIGHTS", &[(0, 88), (1, 100)]),
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
    LumpDef::records("DISP_LIGHTMAP_SAMPLE_POSITIONS", 1),
    LumpDef::special("GAME_LUMP"),
    LumpDef::records("LEAF_WATER_DATA", 12),
    LumpDef::records("PRIMITIVES", 10),
    LumpDef::records("PRIM_VERTS", 12),
    LumpDef::records("PRIM_INDICES", 2),
    LumpDef::special("PAKFILE"),
    LumpDef::records("CLIP_PORTAL_VERTS", 12),
    LumpDef::records("CUBEMAPS", 16),
    LumpDef::raw("TEXDATA_STRING_DATA"),
    LumpDef::records("TEXDATA_STRING_TABLE", 4),
    LumpDef::versioned("OVERLAYS", &[(0, 352)]),
    LumpDef::records("LEAF_MIN_DIST_TO_WATER", 2),
    LumpDef::records("FACE_MACRO_TEXTURE_INFO", 2),
    LumpDef::records("DISP_TRIS", 2),
    LumpDef::raw("PHYS_COLLIDE_SURFACE"),
    LumpDef::raw("WATER_OVERLAYS"),
    LumpDef::records("LEAF_AMBIENT_INDEX_HDR", 4),
    LumpDef::records("LEAF_AMBIENT_INDEX", 4),
    LumpDef::records("LIGHTING_HDR", 4),
    LumpDef::versioned("WORLD_LIGHTS_HDR", &[(0, 88), (1, 100)]),
    // Version 1: dleafambientlighting_t (28). Version 0 is the first-generation 24-byte cube
    // per leaf (open_questions.md A28).
    LumpDef::versioned("LEAF_AMBIENT_LIGHTING_HDR", &[(0, 24), (1, 28)]),
    LumpDef::versioned("LEAF_AMBIENT_LIGHTING", &[(0, 24), (1, 28)]),
    LumpDef::raw("XZIP_PAKFILE"),
    LumpDef::records("FACES_HDR", 56),
    LumpDef::records("MAP_FLAGS", 4),
    LumpDef::records("OVERLAY_FADES", 8),
    LumpDef::raw("OVERLAY_SYSTEM_LEVELS"),
    LumpDef::raw("PHYS_LEVEL"),
    LumpDef::raw("DISP_MULTIBLEND"),
];

/// Source 2006 (§5): 51/52 are the Xbox lightmap pages, 55/56 one 24-byte cube per leaf,
/// 60–63 unused.
pub static LUMPS_2006: [LumpDef; 64] = {
    let t = with(LUMPS_2007, 51, LumpDef::raw("LIGHTMAP_PAGES"));
    let t = with(t, 52, LumpDef::raw("LIGHTMAP_PAGE_INFOS"));
    let t = with(t, 55, LumpDef::records("LEAF_AMBIENT_LIGHTING_HDR", 24));
    let t = with(t, 56, LumpDef::records("LEAF_AMBIENT_LIGHTING", 24));
    let t = with(t, 60, LumpDef::raw("UNUSED60"));
    let t = with(t, 61, LumpDef::raw("UNUSED61"));
    let t = with(t, 62, LumpDef::raw("UNUSED62"));
    with(t, 63, LumpDef::raw("UNUSED63"))
};

/// Source 2004 (§5): VVIS portal lumps at 22–25; 53–56 HDR lumps (2004-v2); 50–52 and 57–63 unused.
pub static LUMPS_2004: [LumpDef; 64] = {
    let t = with(LUMPS_2006, 22, LumpDef::raw("PORTALS"));
    let t = with(t, 23, LumpDef::raw("CLUSTERS"));
    let t = with(t, 24, LumpDef::raw("PORTAL_VERTS"));
    let t = with(t, 25, LumpDef::raw("CLUSTER_PORTALS"));
    let t = with(t, 50, LumpDef::raw("UNUSED50"));
    let t = with(t, 51, LumpDef::raw("UNUSED51"));
    let t = with(t, 52, LumpDef::raw("UNUSED52"));
    let t = with(t, 57, LumpDef::raw("UNUSED57"));
    let t = with(t, 58, LumpDef::raw("UNUSED58"));
    with(t, 59, LumpDef::raw("UNUSED59"))
};

/// Bytes of one original-Xbox lightmap page (Valve's `bspfile.h`, `dlightmappage_t`): 256 × 128
/// palette indices, then a palette of 256 `ColorRGBExp32` entries.
pub const XBOX_LIGHTMAP_PAGE_BYTES: usize = 256 * 128 + 256 * 4;
/// The original Xbox's lightmap pages lump (`LUMP_LIGHTMAPPAGES`).
pub const LUMP_XBOX_LIGHTMAP_PAGES: usize = 51;
/// The original Xbox's page infos lump (`LUMP_LIGHTMAPPAGEINFOS`).
pub const LUMP_XBOX_LIGHTMAP_PAGE_INFOS: usize = 52;

/// Original-Xbox Half-Life 2 (bsp_tool `valve/source_xbox.py`: VBSP 19): Source 2004's table
/// with the Xbox lightmap lumps of Valve's `bspfile.h` at 51 (`LUMP_LIGHTMAPPAGES`, whole
/// `dlightmappage_t` pages) and 52 (`LUMP_LIGHTMAPPAGEINFOS`, 8-byte `dlightmappageinfo_t`).
pub static LUMPS_XBOX: [LumpDef; 64] = {
    let t = with(LUMPS_2004, 51, LumpDef::raw("LIGHTMAP_PAGES"));
    with(t, 52, LumpDef::records("LIGHTMAP_PAGE_INFOS", 8))
};

/// VTMB v17: Source 2004 names, 104-byte faces and original faces, 32-byte leaves (§7.5, §9.2).
pub static LUMPS_VTMB: [LumpDef; 64] = {
    let t = with(LUMPS_2004, 7, LumpDef::records("FACES", 104));
    let t = with(t, 27, LumpDef::records("ORIGINAL_FACES", 104));
    with(t, 10, LumpDef::records("LEAVES", 32))
};

/// Left 4 Dead (§5): lump 61 overlay system levels.
pub static LUMPS_L4D: [LumpDef; 64] = LUMPS_2007;

/// Dark Messiah of Might and Magic (VDC "BSP (Source)/Game-Specific"): the 2007 table with
/// `texinfo_dm_t` (72 + 24 unknown bytes before `flags`) and `dmodel_dm_t` (48 + one int
/// between `origin` and `headnode`). Its game lump directory is read by
/// [`crate::lumps::gamelump::DirForm::DarkMessiah`].
/// Dark Messiah's header version word: `short version = 20; short unknown = 4` (VDC
/// `dheader_dm_t`, "always 4?"), read as one little-endian int.
pub const DARK_MESSIAH_VERSION: u32 = 20 | 4 << 16;

pub static LUMPS_DARK_MESSIAH: [LumpDef; 64] = {
    let t = with(LUMPS_2007, LUMP_TEXINFO, LumpDef::records("TEXINFO", 96));
    with(t, LUMP_MODELS, LumpDef::records("MODELS", 52))
};

/// Vindictus (both versions): the 2007 table with the widened records of bsp_tool's
/// `nexon/vindictus69.py` (sizes asserted in `records.rs`). Faces come in two forms chosen by
/// the lump version: 1 → 72 bytes, 2 → 76 bytes; version 0 (Valve's compilers leave
/// ORIGINAL_FACES and an empty FACES_HDR at 0) is read as 1, an assumption. Its game lump directory is read by
/// [`crate::lumps::gamelump::DirForm::Vindictus`].
pub static LUMPS_VINDICTUS: [LumpDef; 64] = {
    let t = with(LUMPS_2007, LUMP_NODES, LumpDef::records("NODES", 48));
    let t = with(t, LUMP_FACES, LumpDef::versioned("FACES", &[(0, 72), (1, 72), (2, 76)]));
    let t = with(t, LUMP_LEAVES, LumpDef::records("LEAVES", 56));
    let t = with(t, LUMP_EDGES, LumpDef::records("EDGES", 8));
    let t = with(t, LUMP_LEAF_FACES, LumpDef::records("LEAF_FACES", 4));
    let t = with(t, LUMP_LEAF_BRUSHES, LumpDef::records("LEAF_BRUSHES", 4));
    let t = with(t, LUMP_BRUSH_SIDES, LumpDef::records("BRUSH_SIDES", 16));
    let t = with(t, LUMP_AREA_PORTALS, LumpDef::records("AREA_PORTALS", 20));
    let t = with(t, LUMP_DISP_INFO, LumpDef::versioned("DISP_INFO", &[(0, 232)]));
    let t = with(t, LUMP_ORIGINAL_FACES, LumpDef::versioned("ORIGINAL_FACES", &[(0, 72), (1, 72), (2, 76)]));
    let t = with(t, LUMP_OVERLAYS, LumpDef::versioned("OVERLAYS", &[(0, 356)]));
    with(t, LUMP_FACES_HDR, LumpDef::versioned("FACES_HDR", &[(0, 72), (1, 72), (2, 76)]))
};

/// Left 4 Dead 2 (§5): static-prop collision lumps 22–25 and 49, PhysX lump 62.
pub static LUMPS_L4D2: [LumpDef; 64] = {
    let t = with(LUMPS_2007, 22, LumpDef::raw("PROP_COLLISION"));
    let t = with(t, 23, LumpDef::raw("PROP_HULLS"));
    let t = with(t, 24, LumpDef::raw("PROP_HULL_VERTS"));
    let t = with(t, 25, LumpDef::raw("PROP_TRIS"));
    with(t, 49, LumpDef::raw("PROP_BLOB"))
};

/// Alien Swarm / Portal 2 (§5, §27): the L4D2 table plus 63 displacement multiblend.
pub static LUMPS_ASW: [LumpDef; 64] = LUMPS_L4D2;

/// CS:GO: lump 23 holds one 4-byte entry per face in the local sample, not prop hulls; the
/// name follows bsp_tool's `FACE_BRUSH_LIST` (strata.py), with 22 `FACE_BRUSHES`.
pub static LUMPS_CSGO: [LumpDef; 64] = {
    let t = with(LUMPS_ASW, 22, LumpDef::raw("FACE_BRUSHES"));
    with(t, 23, LumpDef::raw("FACE_BRUSH_LIST"))
};

/// Tactical Intervention v22 (§3, §5): lump 24 holds client-side entities (text).
pub static LUMPS_TACINT: [LumpDef; 64] = with(LUMPS_ASW, 24, LumpDef::special("FAKE_ENTITIES"));

/// Dota 2 pre-Reborn v22/v23 (§3): modified `ddispinfo_t` and `doverlay_t` with no known
/// layout (a v23 sample has a 184-byte dispinfo lump for one displacement), so kept raw.
pub static LUMPS_DOTA: [LumpDef; 64] = {
    let t = with(LUMPS_ASW, 26, LumpDef::raw("DISP_INFO"));
    with(t, 45, LumpDef::raw("OVERLAYS"))
};

/// Strata Source v25 (bsp_tool `branches/strata/strata.py`, checked against the vbspinfo
/// Memory/Objects ratios of `momentum_mp_lobby`). Sizes hold for every lump version seen:
/// the sample's original faces are lump version 0 yet 72 bytes each.
pub static LUMPS_STRATA: [LumpDef; 64] = {
    let t = with(LUMPS_CSGO, 5, LumpDef::records("NODES", 48));
    let t = with(t, 7, LumpDef::records("FACES", 72));
    let t = with(t, 10, LumpDef::records("LEAVES", 56));
    let t = with(t, 11, LumpDef::records("FACE_IDS", 4));
    let t = with(t, 12, LumpDef::records("EDGES", 8));
    let t = with(t, 16, LumpDef::records("LEAF_FACES", 4));
    let t = with(t, 17, LumpDef::records("LEAF_BRUSHES", 4));
    let t = with(t, 19, LumpDef::records("BRUSH_SIDES", 16));
    let t = with(t, 21, LumpDef::records("AREA_PORTALS", 20));
    let t = with(t, 23, LumpDef::records("FACE_BRUSH_LIST", 8));
    let t = with(t, 26, LumpDef::versioned("DISP_INFO", &[(0, 232)]));
    let t = with(t, 27, LumpDef::records("ORIGINAL_FACES", 72));
    let t = with(t, 31, LumpDef::records("VERT_NORMAL_INDICES", 4));
    let t = with(t, 37, LumpDef::records("PRIMITIVES", 20));
    let t = with(t, 39, LumpDef::records("PRIM_INDICES", 4));
    let t = with(t, 45, LumpDef::versioned("OVERLAYS", &[(0, 356)]));
    let t = with(t, 51, LumpDef::records("LEAF_AMBIENT_INDEX_HDR", 8));
    let t = with(t, 52, LumpDef::records("LEAF_AMBIENT_INDEX", 8));
    let t = with(t, 15, LumpDef::records("WORLD_LIGHTS", 100));
    let t = with(t, 54, LumpDef::records("WORLD_LIGHTS_HDR", 100));
    with(t, 58, LumpDef::records("FACES_HDR", 72))
};

/// Counter-Strike Online 2's 2018-onwards maps (`cso2_2018`): the 2007 table with 242-byte
/// dispinfo and 164-byte cubemaps. The sizes are the facts bsp_tool's `nexon/cso2_2018.py`
/// states (taken from L-Leite's cso2-bsp-converter `src/bsptypes.hpp`: "10 bytes more than
/// Vindictus" for `ddispinfo_t`, "dcubemap_t: 164 bytes"); their fields are not given, so the
/// records stay opaque (`records::DispInfoCso2`, `records::CubemapCso2`).
pub static LUMPS_CSO2_2018: [LumpDef; 64] = {
    let t = LUMPS_2007;
    let t = with(t, LUMP_DISP_INFO, LumpDef::records("DISP_INFO", 242));
    with(t, LUMP_CUBEMAPS, LumpDef::records("CUBEMAPS", 164))
};

const fn source_branch(
    id: &'static str,
    title: &'static str,
    games: &'static str,
    version_first: bool,
    lumps: &'static [LumpDef; 64],
) -> Branch {
    Branch { id, family: Family::Source, title, games, header: HeaderKind::Valve { version_first }, lumps }
}

pub static VTMB: Branch =
    source_branch("vtmb", "Source v17, Vampire: The Masquerade – Bloodlines", "Vampire: The Masquerade – Bloodlines", false, &LUMPS_VTMB);
pub static SOURCE2004: Branch = source_branch(
    "source2004",
    "Source 2004 (VBSP v18/v19)",
    "Half-Life 2 (release), HL2:DM, CS:S, HL:S, SiN Episodes",
    false,
    &LUMPS_2004,
);
pub static SOURCE_XBOX: Branch = source_branch(
    "source_xbox",
    "Source 2004 on the original Xbox (VBSP v19, lightmap pages)",
    "Half-Life 2 (original Xbox)",
    false,
    &LUMPS_XBOX,
);
pub static SOURCE2006: Branch = source_branch(
    "source2006",
    "Source 2006 (v20, one light cube per leaf)",
    "Lost Coast, Episode One, SDK Base 2006, early v20 DoD:S/CS:S",
    false,
    &LUMPS_2006,
);
pub static SOURCE: Branch = source_branch(
    "source",
    "Source 2007/2009 (Orange Box, SDK 2013)",
    "Half-Life 2 episodes, Team Fortress 2, Portal, Garry's Mod, SDK 2013 games, X360/PS3 ports",
    false,
    &LUMPS_2007,
);
pub static L4D: Branch = source_branch("l4d", "Source, Left 4 Dead branch (v20)", "Left 4 Dead", false, &LUMPS_L4D);
pub static L4D2: Branch = source_branch("l4d2", "Source, Left 4 Dead 2 branch (version-first lump_t)", "Left 4 Dead 2", true, &LUMPS_L4D2);
pub static ALIEN_SWARM: Branch = source_branch(
    "alienswarm",
    "Source v21, Alien Swarm branch",
    "Alien Swarm, Alien Swarm: Reactive Drop and other v21 games",
    false,
    &LUMPS_ASW,
);
pub static PORTAL2: Branch = source_branch("portal2", "Source v21, Portal 2", "Portal 2", false, &LUMPS_ASW);
pub static CSGO: Branch =
    source_branch("csgo", "Source v21, Counter-Strike: Global Offensive", "Counter-Strike: Global Offensive", false, &LUMPS_CSGO);
pub static TACINT: Branch =
    source_branch("tacint", "Source v22, Tactical Intervention", "Tactical Intervention (Steam)", false, &LUMPS_TACINT);
pub static DOTA2: Branch = source_branch("dota2", "Source v22/v23, Dota 2 (pre-Reborn)", "Dota 2 betas, INFRA (v22)", false, &LUMPS_DOTA);
pub static STRATA: Branch = source_branch("strata", "Strata Source (VBSP v25)", "Momentum Mod, Portal: Revolution", false, &LUMPS_STRATA);
pub static CONTAGION: Branch = source_branch("contagion", "Source v27, Contagion", "Contagion", false, &LUMPS_ASW);
pub static DESOLATION: Branch =
    source_branch("desolation", "Source v42, Desolation (old)", "Desolation (srctools DESOLATION_OLD)", false, &LUMPS_2007);
pub static CSO2: Branch =
    source_branch("cso2", "Source v100, Counter-Strike Online 2", "Counter-Strike Online 2 (2013–2017 maps)", false, &LUMPS_2007);
pub static CSO2_2018: Branch = source_branch(
    "cso2_2018",
    "Source v100, Counter-Strike Online 2 (2018 layout)",
    "Counter-Strike Online 2 (2018-onwards maps: 242-byte dispinfo, 164-byte cubemaps)",
    false,
    &LUMPS_CSO2_2018,
);
pub static OUTERLIGHT: Branch = source_branch(
    "outerlight",
    "Source v20, Outerlight (The Ship, Bloody Good Time)",
    "The Ship: Murder Party, Bloody Good Time",
    false,
    &LUMPS_2007,
);
pub static ZENO_CLASH: Branch = source_branch("zenoclash", "Source v20, Zeno Clash", "Zeno Clash", false, &LUMPS_2007);
pub static FTB: Branch = source_branch(
    "ftb",
    "Source v20, Fairy Tale Busters",
    "Fairy Tale Busters (open beta; bsp_tool utoplanet.merubasu)",
    false,
    &LUMPS_2007,
);
pub static BLACK_MESA: Branch = source_branch("blackmesa", "Source v20, Black Mesa", "Black Mesa (commercial release)", false, &LUMPS_2007);
pub static DARK_MESSIAH: Branch = source_branch(
    "darkmessiah",
    "Source v20.4, Dark Messiah of Might and Magic",
    "Dark Messiah of Might and Magic (single player and multiplayer)",
    false,
    &LUMPS_DARK_MESSIAH,
);
pub static VINDICTUS: Branch = source_branch(
    "vindictus",
    "Source v20, Vindictus",
    "Vindictus / Mabinogi Heroes (Steam-era builds: static props 6 with v6 props, 7, 8)",
    false,
    &LUMPS_VINDICTUS,
);
pub static VINDICTUS69: Branch = source_branch(
    "vindictus69",
    "Source v20, Vindictus 1.69",
    "Vindictus 1.69 (pre-Steam builds: static props 5, or 6 with v5 props)",
    false,
    &LUMPS_VINDICTUS,
);
pub static SFM: Branch = source_branch("sfm", "Source v21, Source Filmmaker", "Source Filmmaker", false, &LUMPS_ASW);

/// Source branches, for the registry.
pub static BRANCHES: &[&Branch] = &[
    &SOURCE,
    &L4D2,
    &VTMB,
    &SOURCE2004,
    &SOURCE_XBOX,
    &SOURCE2006,
    &L4D,
    &ALIEN_SWARM,
    &PORTAL2,
    &CSGO,
    &TACINT,
    &DOTA2,
    &STRATA,
    &CONTAGION,
    &DESOLATION,
    &CSO2,
    &CSO2_2018,
    &OUTERLIGHT,
    &ZENO_CLASH,
    &FTB,
    &BLACK_MESA,
    &SFM,
    &DARK_MESSIAH,
    &VINDICTUS,
    &VINDICTUS69,
];

/// The VBSP versions a branch's maps carry (source.md §3, §27): those [`select`](super::detect::select) maps to this
/// branch, or — where only the contents tell branches apart (v20: Source 2006 / L4D; v21:
/// Portal 2 / CS:GO; v22: Tactical Intervention) — to a sibling of the same version. Empty for
/// branches of other families.
pub fn versions(branch: &Branch) -> &'static [u32] {
    if branch.family != Family::Source {
        return &[];
    }
    match branch.id {
        "vtmb" => &[17],
        // Half-Life: Source has one v18 map, everything else of that era is 19.
        "source2004" => &[18, 19],
        "source_xbox" => &[19],
        "source2006" | "source" | "l4d" | "outerlight" | "zenoclash" | "ftb" | "blackmesa" | "darkmessiah" | "vindictus"
        | "vindictus69" => &[20],
        "l4d2" | "alienswarm" | "portal2" | "csgo" => &[21],
        // Source Filmmaker ships v20 and v21 maps (VDC); its own compiler writes 21.
        "sfm" => &[20, 21],
        "tacint" => &[22],
        // Early betas (and INFRA) are 22, later pre-Reborn Dota 2 is 23.
        "dota2" => &[22, 23],
        "strata" => &[25],
        "contagion" => &[27],
        "desolation" => &[42],
        "cso2" | "cso2_2018" => &[100],
        _ => &[],
    }
}

/// The version a builder writes for a Source branch: its latest of [`versions`].
pub fn version_of(branch: &Branch) -> Option<u32> {
    versions(branch).last().copied()
}
