//! Static props, game lump `sprp` (source.md §14.3, bsp_tool_notes.md §3.2):
//!
//! ```text
//! i32 dictEntries; char name[dictEntries][128];
//! i32 leafEntries; u16 leaf[leafEntries];        (u32 in Strata v12/v13, see below)
//! i32 propCount;   StaticPropLump_t props[propCount];
//! ```
//!
//! The prop layout depends on the game lump version *and* the game, so the element size
//! `(remaining bytes) / propCount` picks it (open_questions.md A11):
//!
//! | version | size | layout |
//! |---|---|---|
//! | 4, 5, 6 | 56, 60, 64 | [`StaticPropV4`], [`StaticPropV5`], [`StaticPropV6`] |
//! | 7 | 68 / 72 | [`StaticPropV7`] / [`StaticPropV7Star`] (Source 2013 MP "v7*") |
//! | 8, 9 | 68, 72 | [`StaticPropV8`], [`StaticPropV9`] |
//! | 10 | 76 / 72 | [`StaticPropV10`] / [`StaticPropV7Star`] (TF2 writes v7* as version 10) |
//! | 11 | 76 / 80 | [`StaticPropV11`] (source.md) / [`StaticPropV11Ext`] |
//! | 12 | 80 | [`StaticPropV11Ext`] |
//! | 13 | 88 | [`StaticPropV13`] |
//!
//! Versions 12 and 13 and the 80-byte v11 are not in the seeds. Their layouts come from two
//! public tools: momentum-mod's Lumper (v11/v12 = v10 + `UniformScale`, 80 bytes; v13 = v10 +
//! a 3-float scale, 88 bytes) and bsp_tool's Strata branch (v13 with the same 88-byte field
//! list; v12/v13 store the leaf list as u32). bsp_tool reads other 80-byte v11 tails in other
//! branches, so the v11 80-byte decoding is a best reading, not a verified one. Any other size
//! keeps the props as raw records ([`PropLayout::Unknown`]).

use std::borrow::Cow;

use zerocopy::byteorder::{BigEndian, ByteOrder, LittleEndian, F32, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::bytes::{c_str, u32_at, Endian};
use crate::error::{Error, Result};

/// Bytes per model name in the dictionary (bsp_tool `MAX_NAME_LEN`).
pub const MODEL_NAME_LEN: usize = 128;

/// The common v4 prefix; also the whole v4 prop (source.md §14.3, 56 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV4<O: ByteOrder> {
    pub origin: [F32<O>; 3],
    /// Pitch, yaw, roll (newest VDC text; A11.5).
    pub angles: [F32<O>; 3],
    /// Index into the model dictionary (`PropType`).
    pub model: U16<O>,
    pub first_leaf: U16<O>,
    pub leaf_count: U16<O>,
    pub solid: u8,
    /// u8 flags; padding in the v7* layout.
    pub flags: u8,
    pub skin: I32<O>,
    pub fade_min: F32<O>,
    pub fade_max: F32<O>,
    pub lighting_origin: [F32<O>; 3],
}

/// v5: v4 + `ForcedFadeScale` (60 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV5<O: ByteOrder> {
    pub v4: StaticPropV4<O>,
    pub forced_fade_scale: F32<O>,
}

/// v6: v5 + DirectX levels (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV6<O: ByteOrder> {
    pub v5: StaticPropV5<O>,
    pub min_dx_level: U16<O>,
    pub max_dx_level: U16<O>,
}

/// v7 (standard): v6 + `DiffuseModulation` (68 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV7<O: ByteOrder> {
    pub v6: StaticPropV6<O>,
    pub diffuse_modulation: [u8; 4],
}

/// v7* (Source 2013 MP, written as version 7 or 10): v6 with the u8 flags as padding, then
/// u32 flags and the prop lightmap size (72 bytes; source.md §14.3, A11.1).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV7Star<O: ByteOrder> {
    pub v6: StaticPropV6<O>,
    pub flags: U32<O>,
    pub lightmap_res: [U16<O>; 2],
}

/// v8: v5 + CPU/GPU levels + `DiffuseModulation` (68 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV8<O: ByteOrder> {
    pub v5: StaticPropV5<O>,
    /// Min CPU, max CPU, min GPU, max GPU level.
    pub levels: [u8; 4],
    pub diffuse_modulation: [u8; 4],
}

/// v9: v8 + 4-byte `DisableX360` (72 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV9<O: ByteOrder> {
    pub v8: StaticPropV8<O>,
    pub disable_x360: U32<O>,
}

/// v10: v9 + `FlagsEx` (76 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV10<O: ByteOrder> {
    pub v9: StaticPropV9<O>,
    pub flags_ex: U32<O>,
}

/// v11 as source.md gives it: v8 + `FlagsEx` + `UniformScale` (76 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV11<O: ByteOrder> {
    pub v8: StaticPropV8<O>,
    pub flags_ex: U32<O>,
    pub uniform_scale: F32<O>,
}

/// 80-byte v11 / v12: v10 + `UniformScale` (Lumper; see the module notes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV11Ext<O: ByteOrder> {
    pub v10: StaticPropV10<O>,
    pub uniform_scale: F32<O>,
}

/// v13: v10 + per-axis scale (88 bytes; Lumper, bsp_tool Strata).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV13<O: ByteOrder> {
    pub v10: StaticPropV10<O>,
    pub scale: [F32<O>; 3],
}

/// Outerlight's The Ship (version 5, 188 bytes): v5 + a 128-byte target name (bspsrc's
/// public-domain `bsplib` struct notes; the VDC page names The Ship's props as modified).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV5Ship<O: ByteOrder> {
    pub v5: StaticPropV5<O>,
    pub targetname: [u8; MODEL_NAME_LEN],
}

/// Outerlight's Bloody Good Time (version 6, 192 bytes): v6 + a 128-byte target name.
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV6Bgt<O: ByteOrder> {
    pub v6: StaticPropV6<O>,
    pub targetname: [u8; MODEL_NAME_LEN],
}

/// Dark Messiah (version 6, 136 bytes): v6 + 72 bytes whose meaning no source gives (kept raw).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV6Dm<O: ByteOrder> {
    pub v6: StaticPropV6<O>,
    pub unknown: [u8; 72],
}

/// Black Mesa's 76-byte version 11: the v7* prefix (u32 flags, prop lightmap size) +
/// `DiffuseModulation` (per bspsrc's `bsplib` notes, rarely set to anything but the default in
/// the stock maps).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV11Bm<O: ByteOrder> {
    pub v7s: StaticPropV7Star<O>,
    pub diffuse_modulation: [u8; 4],
}

/// Black Mesa's 80-byte version 11: the 76-byte form + `FlagsEx`.
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct StaticPropV11BmEx<O: ByteOrder> {
    pub bm: StaticPropV11Bm<O>,
    pub flags_ex: U32<O>,
}

/// The layout chosen for a `sprp` lump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum PropLayout {
    V4,
    V5,
    V6,
    V7,
    V7Star,
    V8,
    V9,
    V10,
    V11,
    V11Ext,
    V13,
    /// The Ship, version 5 + target name (188 bytes).
    V5Ship,
    /// Bloody Good Time, version 6 + target name (192 bytes).
    V6Bgt,
    /// Dark Messiah, version 6 + 72 unknown bytes (136 bytes).
    V6Dm,
    /// Fairy Tale Busters: version 7 stored in the 76-byte v8-prefix + `FlagsEx` + scale order
    /// (the [`StaticPropV11`] record; VDC "v7 with a version-10-like field order").
    V7Ftb,
    /// Black Mesa version 11, 76 bytes ([`StaticPropV11Bm`]).
    V11Bm,
    /// Black Mesa version 11, 80 bytes ([`StaticPropV11BmEx`]).
    V11BmEx,
    /// No known layout for this version and element size; props are kept raw.
    Unknown,
}

impl PropLayout {
    pub fn size(self) -> Option<usize> {
        Some(match self {
            PropLayout::V4 => 56,
            PropLayout::V5 => 60,
            PropLayout::V6 => 64,
            PropLayout::V7 | PropLayout::V8 => 68,
            PropLayout::V7Star | PropLayout::V9 => 72,
            PropLayout::V10 | PropLayout::V11 => 76,
            PropLayout::V11Ext => 80,
            PropLayout::V13 => 88,
            PropLayout::V5Ship => 188,
            PropLayout::V6Bgt => 192,
            PropLayout::V6Dm => 136,
            PropLayout::V7Ftb | PropLayout::V11Bm => 76,
            PropLayout::V11BmEx => 80,
            PropLayout::Unknown => return None,
        })
    }

    /// The layouts a game lump version may use, the default (for lumps without props) first.
    pub fn candidates(version: u16) -> &'static [PropLayout] {
        match version {
            4 => &[PropLayout::V4],
            5 => &[PropLayout::V5],
            6 => &[PropLayout::V6],
            7 => &[PropLayout::V7, PropLayout::V7Star],
            8 => &[PropLayout::V8],
            9 => &[PropLayout::V9],
            10 => &[PropLayout::V10, PropLayout::V7Star],
            11 => &[PropLayout::V11, PropLayout::V11Ext],
            12 => &[PropLayout::V11Ext],
            13 => &[PropLayout::V13],
            _ => &[],
        }
    }

    /// The layouts a game lump version may use in one game's maps, the default first: the
    /// games whose props differ from Valve's at the same version (source.md §14.3 "modified
    /// with no layout given"; sizes from bspsrc's public-domain `bsplib` structs and bsp_tool's
    /// branch notes, read as facts).
    pub fn candidates_in(version: u16, game: PropGame) -> &'static [PropLayout] {
        match (game, version) {
            (PropGame::Outerlight, 5) => &[PropLayout::V5Ship, PropLayout::V5],
            (PropGame::Outerlight, 6) => &[PropLayout::V6Bgt, PropLayout::V6],
            (PropGame::DarkMessiah, 6) => &[PropLayout::V6Dm, PropLayout::V6],
            (PropGame::FairyTaleBusters, 7) => &[PropLayout::V7Ftb, PropLayout::V7, PropLayout::V7Star],
            (PropGame::BlackMesa, 11) => &[PropLayout::V11BmEx, PropLayout::V11Bm],
            // Vindictus (bsp_tool nexon/vindictus69.py, vindictus.py): 1.69 stores v5 props
            // under version 6, later builds v6 props; its own 64-byte v7 and 72-byte v8 props
            // have no decoder here (kept raw, layout unknown).
            (PropGame::Vindictus, 6) => &[PropLayout::V6, PropLayout::V5],
            (PropGame::Vindictus, 7 | 8) => &[],
            _ => Self::candidates(version),
        }
    }
}

/// The game whose static prop forms apply: Valve's, or a licensee's that changed them at the
/// same version number. Chosen from the map's branch ([`PropGame::of_branch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum PropGame {
    #[default]
    Valve,
    /// The Ship (v5, 188 bytes) and Bloody Good Time (v6, 192 bytes).
    Outerlight,
    /// Zeno Clash: a second 128-byte name list follows the model dictionary; props are 68-byte v7.
    ZenoClash,
    /// Fairy Tale Busters: 76-byte version 7.
    FairyTaleBusters,
    /// Black Mesa: 76 / 80-byte version 11 in the v7* order.
    BlackMesa,
    /// Dark Messiah: 136-byte version 6.
    DarkMessiah,
    /// Vindictus: from version 6 a counted list of 16-byte scales `{ int prop; float scale[3]; }`
    /// sits between the leaves and the props.
    Vindictus,
}

impl PropGame {
    /// The prop forms a branch's maps use (by its id).
    pub fn of_branch(id: &str) -> PropGame {
        match id {
            "outerlight" => PropGame::Outerlight,
            "zenoclash" => PropGame::ZenoClash,
            "ftb" => PropGame::FairyTaleBusters,
            "blackmesa" => PropGame::BlackMesa,
            "darkmessiah" => PropGame::DarkMessiah,
            "vindictus" | "vindictus69" => PropGame::Vindictus,
            _ => PropGame::Valve,
        }
    }
}

/// One static prop with every field its layout has, in host values.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StaticProp {
    pub origin: [f32; 3],
    pub angles: [f32; 3],
    pub model: u16,
    /// The dictionary name, when `model` is in range.
    pub model_name: Option<String>,
    pub first_leaf: u16,
    pub leaf_count: u16,
    pub solid: u8,
    /// u8 flags, or the u32 flags of v7*.
    pub flags: u32,
    pub skin: i32,
    pub fade_min: f32,
    pub fade_max: f32,
    pub lighting_origin: [f32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forced_fade_scale: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dx_level: Option<[u16; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lightmap_res: Option<[u16; 2]>,
    /// Min CPU, max CPU, min GPU, max GPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_gpu_levels: Option<[u8; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diffuse_modulation: Option<[u8; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_x360: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags_ex: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uniform_scale: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<[f32; 3]>,
    /// The prop's target name (The Ship, Bloody Good Time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targetname: Option<String>,
}

fn v3<O: ByteOrder>(v: &[F32<O>; 3]) -> [f32; 3] {
    [v[0].get(), v[1].get(), v[2].get()]
}

impl<O: ByteOrder> StaticPropV4<O> {
    fn decode(&self) -> StaticProp {
        StaticProp {
            origin: v3(&self.origin),
            angles: v3(&self.angles),
            model: self.model.get(),
            model_name: None,
            first_leaf: self.first_leaf.get(),
            leaf_count: self.leaf_count.get(),
            solid: self.solid,
            flags: self.flags as u32,
            skin: self.skin.get(),
            fade_min: self.fade_min.get(),
            fade_max: self.fade_max.get(),
            lighting_origin: v3(&self.lighting_origin),
            forced_fade_scale: None,
            dx_level: None,
            lightmap_res: None,
            cpu_gpu_levels: None,
            diffuse_modulation: None,
            disable_x360: None,
            flags_ex: None,
            uniform_scale: None,
            scale: None,
            targetname: None,
        }
    }
}
impl<O: ByteOrder> StaticPropV5<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { forced_fade_scale: Some(self.forced_fade_scale.get()), ..self.v4.decode() }
    }
}
impl<O: ByteOrder> StaticPropV6<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { dx_level: Some([self.min_dx_level.get(), self.max_dx_level.get()]), ..self.v5.decode() }
    }
}
impl<O: ByteOrder> StaticPropV7<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { diffuse_modulation: Some(self.diffuse_modulation), ..self.v6.decode() }
    }
}
impl<O: ByteOrder> StaticPropV7Star<O> {
    fn decode(&self) -> StaticProp {
        StaticProp {
            flags: self.flags.get(),
            lightmap_res: Some([self.lightmap_res[0].get(), self.lightmap_res[1].get()]),
            ..self.v6.decode()
        }
    }
}
impl<O: ByteOrder> StaticPropV8<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { cpu_gpu_levels: Some(self.levels), diffuse_modulation: Some(self.diffuse_modulation), ..self.v5.decode() }
    }
}
impl<O: ByteOrder> StaticPropV9<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { disable_x360: Some(self.disable_x360.get()), ..self.v8.decode() }
    }
}
impl<O: ByteOrder> StaticPropV10<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { flags_ex: Some(self.flags_ex.get()), ..self.v9.decode() }
    }
}
impl<O: ByteOrder> StaticPropV11<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { flags_ex: Some(self.flags_ex.get()), uniform_scale: Some(self.uniform_scale.get()), ..self.v8.decode() }
    }
}
impl<O: ByteOrder> StaticPropV11Ext<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { uniform_scale: Some(self.uniform_scale.get()), ..self.v10.decode() }
    }
}
impl<O: ByteOrder> StaticPropV13<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { scale: Some(v3(&self.scale)), ..self.v10.decode() }
    }
}

impl<O: ByteOrder> StaticPropV5Ship<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { targetname: Some(c_str(&self.targetname).into_owned()), ..self.v5.decode() }
    }
}
impl<O: ByteOrder> StaticPropV6Bgt<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { targetname: Some(c_str(&self.targetname).into_owned()), ..self.v6.decode() }
    }
}
impl<O: ByteOrder> StaticPropV6Dm<O> {
    fn decode(&self) -> StaticProp {
        self.v6.decode()
    }
}
impl<O: ByteOrder> StaticPropV11Bm<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { diffuse_modulation: Some(self.diffuse_modulation), ..self.v7s.decode() }
    }
}
impl<O: ByteOrder> StaticPropV11BmEx<O> {
    fn decode(&self) -> StaticProp {
        StaticProp { flags_ex: Some(self.flags_ex.get()), ..self.bm.decode() }
    }
}

/// A parsed `sprp` game lump.
#[derive(Debug, Clone)]
pub struct StaticProps<'a> {
    data: Cow<'a, [u8]>,
    pub version: u16,
    pub endian: Endian,
    pub model_names: Vec<String>,
    /// Zeno Clash's second 128-byte name list, between the dictionary and the leaves (empty
    /// elsewhere; bspsrc's reader skips it as "model path strings").
    pub extra_names: Vec<String>,
    /// Whose prop forms were applied.
    pub game: PropGame,
    /// The leaf list (u16, or u32 for the Strata versions).
    pub leaves: Vec<u32>,
    /// Bytes per leaf entry: 2, or 4 in v12/v13.
    pub leaf_width: usize,
    /// Vindictus's scale records (16 bytes each) before the props; 0 elsewhere.
    pub scales: usize,
    pub count: usize,
    /// Bytes per prop found in the lump (`None` when there are no props).
    pub element_size: Option<usize>,
    pub layout: PropLayout,
    props_start: usize,
}

/// Bytes of one Vindictus scale record (bsp_tool `StaticPropScale`, `i3f`).
pub const VINDICTUS_SCALE_LEN: usize = 16;

/// The size of the props in a Vindictus `sprp` child of game lump version `version` (`None`
/// when it does not parse or holds no props). Detection tells Vindictus 1.69 from later builds
/// by it.
pub fn vindictus_prop_size(data: &[u8], version: u16, endian: Endian) -> Option<usize> {
    StaticProps::parse_in(Cow::Borrowed(data), version, endian, PropGame::Vindictus).ok()?.element_size
}

impl<'a> StaticProps<'a> {
    /// Parse `data` (the decompressed `sprp` child) of game lump version `version`.
    pub fn parse(data: Cow<'a, [u8]>, version: u16, endian: Endian) -> Result<Self> {
        Self::parse_in(data, version, endian, PropGame::Valve)
    }

    /// Parse `data` with the prop forms of `game` (see [`PropGame`]).
    pub fn parse_in(data: Cow<'a, [u8]>, version: u16, endian: Endian, game: PropGame) -> Result<Self> {
        // Strata's v12/v13 may store u32 leaves (bsp_tool); try that first, then u16, and keep
        // the first reading that gives a known layout (else the first that parses at all).
        let widths: &[usize] = if version >= 12 { &[4, 2] } else { &[2] };
        let mut fallback: Option<Result<StaticProps<'static>>> = None;
        for &w in widths {
            let r = Self::parse_with(&data, version, endian, w, game);
            match r {
                Ok(p) if p.layout != PropLayout::Unknown => return Ok(p.with_data(data)),
                Ok(p) if !matches!(fallback, Some(Ok(_))) => fallback = Some(Ok(p)),
                Err(e) if fallback.is_none() => fallback = Some(Err(e)),
                _ => {}
            }
        }
        match fallback {
            Some(Ok(p)) => Ok(p.with_data(data)),
            Some(Err(e)) => Err(e),
            None => Err(Error::malformed("static props could not be parsed")),
        }
    }

    fn with_data(self, data: Cow<'a, [u8]>) -> StaticProps<'a> {
        let StaticProps {
            version,
            endian,
            model_names,
            extra_names,
            game,
            leaves,
            leaf_width,
            scales,
            count,
            element_size,
            layout,
            props_start,
            ..
        } = self;
        StaticProps {
            data,
            version,
            endian,
            model_names,
            extra_names,
            game,
            leaves,
            leaf_width,
            scales,
            count,
            element_size,
            layout,
            props_start,
        }
    }

    fn parse_with(data: &[u8], version: u16, endian: Endian, leaf_width: usize, game: PropGame) -> Result<StaticProps<'static>> {
        let count_at = |pos: usize, what: &str| -> Result<usize> {
            let n = u32_at(data, pos, endian).ok_or_else(|| Error::truncated(pos as u64 + 4, data.len() as u64).at(pos as u64))? as i32;
            if n < 0 {
                return Err(Error::malformed(format!("static prop {what} count {n} is negative")).at(pos as u64));
            }
            Ok(n as usize)
        };
        let span = |pos: usize, n: usize, size: usize| -> Result<usize> {
            let end = (n as u64).checked_mul(size as u64).and_then(|b| b.checked_add(pos as u64)).unwrap_or(u64::MAX);
            if end > data.len() as u64 {
                return Err(Error::truncated(end, data.len() as u64).at(pos as u64));
            }
            Ok(end as usize)
        };
        let dict = count_at(0, "model name")?;
        let dict_end = span(4, dict, MODEL_NAME_LEN)?;
        let model_names = data[4..dict_end].chunks_exact(MODEL_NAME_LEN).map(|n| c_str(n).into_owned()).collect();
        // Zeno Clash: `i32 n; char name[n][128]` before the leaves.
        let (extra_names, dict_end) = if game == PropGame::ZenoClash {
            let n = count_at(dict_end, "second name")?;
            let end = span(dict_end + 4, n, MODEL_NAME_LEN)?;
            (data[dict_end + 4..end].chunks_exact(MODEL_NAME_LEN).map(|n| c_str(n).into_owned()).collect(), end)
        } else {
            (Vec::new(), dict_end)
        };
        let nleaves = count_at(dict_end, "leaf")?;
        let leaves_end = span(dict_end + 4, nleaves, leaf_width)?;
        let leaves = data[dict_end + 4..leaves_end]
            .chunks_exact(leaf_width)
            .map(|c| match (leaf_width, endian) {
                (2, e) => e.u16([c[0], c[1]]) as u32,
                (_, e) => e.u32([c[0], c[1], c[2], c[3]]),
            })
            .collect();
        // Vindictus, version ≥ 6: `i32 n; {i32 prop; f32 scale[3]}[n]` before the prop count.
        let (scales, leaves_end) = if game == PropGame::Vindictus && version >= 6 {
            let n = count_at(leaves_end, "scale")?;
            (n, span(leaves_end + 4, n, VINDICTUS_SCALE_LEN)?)
        } else {
            (0, leaves_end)
        };
        let count = count_at(leaves_end, "prop")?;
        let props_start = leaves_end + 4;
        let remaining = data.len().checked_sub(props_start).ok_or_else(|| Error::truncated(props_start as u64, data.len() as u64))?;
        let candidates = PropLayout::candidates_in(version, game);
        let (element_size, layout) = if count == 0 {
            (None, candidates.first().copied().unwrap_or(PropLayout::Unknown))
        } else {
            if remaining % count != 0 {
                return Err(Error::malformed(format!(
                    "static props: {remaining} bytes are not a whole number of {count} props (version {version})"
                ))
                .at(props_start as u64));
            }
            let size = remaining / count;
            (Some(size), candidates.iter().copied().find(|l| l.size() == Some(size)).unwrap_or(PropLayout::Unknown))
        };
        Ok(StaticProps {
            data: Cow::Owned(Vec::new()),
            version,
            endian,
            model_names,
            extra_names,
            game,
            leaves,
            leaf_width,
            scales,
            count,
            element_size,
            layout,
            props_start,
        })
    }

    /// Where the props start in the lump's bytes.
    pub fn props_start(&self) -> usize {
        self.props_start
    }

    /// The props' bytes.
    pub fn prop_bytes(&self) -> &[u8] {
        self.data.get(self.props_start..).unwrap_or(&[])
    }

    /// The props as zero-copy records of type `T` (which must match [`Self::layout`] and byte order).
    pub fn records<T: FromBytes + Immutable + KnownLayout>(&self) -> Result<&[T]> {
        <[T]>::ref_from_bytes(self.prop_bytes()).map_err(|_| {
            Error::new(crate::error::ErrorKind::BadLumpLength {
                length: self.prop_bytes().len() as u64,
                record_size: std::mem::size_of::<T>(),
            })
        })
    }

    /// Every prop decoded, with its model name filled in. Props of an unknown layout give an
    /// error, and so does a count above [`MAX_STATIC_PROPS`] (a small LZMA game lump can
    /// declare millions): read those in batches with [`Self::props_range`].
    pub fn props(&self) -> Result<Vec<StaticProp>> {
        if self.count as u64 > MAX_STATIC_PROPS {
            return Err(Error::new(crate::error::ErrorKind::LimitExceeded {
                what: "static props decoded at once",
                requested: self.count as u64,
                limit: MAX_STATIC_PROPS,
            }));
        }
        self.props_range(0, self.count)
    }

    /// Props `start..start + n` decoded (clamped to the count): one batch, so that a caller can
    /// stream any number of props with bounded memory.
    pub fn props_range(&self, start: usize, n: usize) -> Result<Vec<StaticProp>> {
        macro_rules! decode_all {
            ($t:ident) => {
                match self.endian {
                    Endian::Little => batch(self.records::<$t<LittleEndian>>()?, start, n).iter().map(|p| p.decode()).collect::<Vec<_>>(),
                    Endian::Big => batch(self.records::<$t<BigEndian>>()?, start, n).iter().map(|p| p.decode()).collect::<Vec<_>>(),
                }
            };
        }
        if self.count == 0 {
            return Ok(Vec::new());
        }
        let mut props = match self.layout {
            PropLayout::V4 => decode_all!(StaticPropV4),
            PropLayout::V5 => decode_all!(StaticPropV5),
            PropLayout::V6 => decode_all!(StaticPropV6),
            PropLayout::V7 => decode_all!(StaticPropV7),
            PropLayout::V7Star => decode_all!(StaticPropV7Star),
            PropLayout::V8 => decode_all!(StaticPropV8),
            PropLayout::V9 => decode_all!(StaticPropV9),
            PropLayout::V10 => decode_all!(StaticPropV10),
            PropLayout::V11 => decode_all!(StaticPropV11),
            PropLayout::V11Ext => decode_all!(StaticPropV11Ext),
            PropLayout::V13 => decode_all!(StaticPropV13),
            PropLayout::V5Ship => decode_all!(StaticPropV5Ship),
            PropLayout::V6Bgt => decode_all!(StaticPropV6Bgt),
            PropLayout::V6Dm => decode_all!(StaticPropV6Dm),
            PropLayout::V7Ftb => decode_all!(StaticPropV11),
            PropLayout::V11Bm => decode_all!(StaticPropV11Bm),
            PropLayout::V11BmEx => decode_all!(StaticPropV11BmEx),
            PropLayout::Unknown => {
                return Err(Error::malformed(format!(
                    "static props version {} with {}-byte props: layout not known (kept raw)",
                    self.version,
                    self.element_size.unwrap_or(0)
                )))
            }
        };
        for p in &mut props {
            p.model_name = self.model_names.get(p.model as usize).cloned();
        }
        Ok(props)
    }
}

/// Most static props decoded at once by [`StaticProps::props`] (about a million; Source itself
/// allows far fewer). More are read in batches ([`StaticProps::props_range`]).
pub const MAX_STATIC_PROPS: u64 = 1 << 20;

fn batch<T>(all: &[T], start: usize, n: usize) -> &[T] {
    let start = start.min(all.len());
    &all[start..start.saturating_add(n).min(all.len())]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;
    use zerocopy::FromZeros;
    type L = LittleEndian;

    #[test]
    fn record_sizes_match_the_spec() {
        // source.md §14.3 per-version table; v7* table; v11 80/v13 88 from the module notes.
        assert_eq!(size_of::<StaticPropV4<L>>(), 56);
        assert_eq!(size_of::<StaticPropV5<L>>(), 60);
        assert_eq!(size_of::<StaticPropV6<L>>(), 64);
        assert_eq!(size_of::<StaticPropV7<L>>(), 68);
        assert_eq!(size_of::<StaticPropV7Star<L>>(), 72);
        assert_eq!(size_of::<StaticPropV8<L>>(), 68);
        assert_eq!(size_of::<StaticPropV9<L>>(), 72);
        assert_eq!(size_of::<StaticPropV10<L>>(), 76);
        assert_eq!(size_of::<StaticPropV11<L>>(), 76);
        assert_eq!(size_of::<StaticPropV11Ext<L>>(), 80);
        assert_eq!(size_of::<StaticPropV13<L>>(), 88);
        for l in [PropLayout::V4, PropLayout::V7Star, PropLayout::V11Ext, PropLayout::V13] {
            assert!(l.size().is_some());
        }
    }

    fn lump(endian: Endian, names: &[&str], leaves: &[u16], props: &[Vec<u8>]) -> Vec<u8> {
        let mut out = endian.u32_bytes(names.len() as u32).to_vec();
        for n in names {
            let mut b = [0u8; 128];
            b[..n.len()].copy_from_slice(n.as_bytes());
            out.extend_from_slice(&b);
        }
        out.extend_from_slice(&endian.u32_bytes(leaves.len() as u32));
        for l in leaves {
            out.extend_from_slice(&match endian {
                Endian::Little => l.to_le_bytes(),
                Endian::Big => l.to_be_bytes(),
            });
        }
        out.extend_from_slice(&endian.u32_bytes(props.len() as u32));
        for p in props {
            out.extend_from_slice(p);
        }
        out
    }

    #[test]
    fn version_10_is_chosen_by_size() {
        let mut star = StaticPropV7Star::<L>::new_zeroed();
        star.v6.v5.v4.origin[0].set(12.5);
        star.v6.v5.v4.model.set(1);
        star.flags.set(0x104);
        star.lightmap_res[0].set(32);
        let data = lump(Endian::Little, &["a.mdl", "b.mdl"], &[3, 4, 5], &[star.as_bytes().to_vec()]);
        let sp = StaticProps::parse(Cow::Owned(data), 10, Endian::Little).unwrap();
        assert_eq!((sp.layout, sp.element_size, sp.count), (PropLayout::V7Star, Some(72), 1));
        assert_eq!(sp.leaves, vec![3, 4, 5]);
        let p = &sp.props().unwrap()[0];
        assert_eq!((p.origin[0], p.flags, p.model_name.as_deref(), p.lightmap_res), (12.5, 0x104, Some("b.mdl"), Some([32, 0])));

        let mut v10 = StaticPropV10::<BigEndian>::new_zeroed();
        v10.flags_ex.set(7);
        v10.v9.v8.v5.v4.skin.set(-2);
        let data = lump(Endian::Big, &["m.mdl"], &[], &[v10.as_bytes().to_vec(), v10.as_bytes().to_vec()]);
        let sp = StaticProps::parse(Cow::Owned(data), 10, Endian::Big).unwrap();
        assert_eq!(sp.layout, PropLayout::V10);
        let p = sp.props().unwrap();
        assert_eq!((p.len(), p[1].flags_ex, p[1].skin), (2, Some(7), -2));
    }

    #[test]
    fn props_are_budgeted_and_read_in_batches() {
        // Issue 11, item 9: a count past MAX_STATIC_PROPS is refused by `props`, and
        // `props_range` reads any part with memory for that part only.
        let n = MAX_STATIC_PROPS as usize + 1;
        let mut one = StaticPropV4::<L>::new_zeroed();
        one.model.set(0);
        let rec = one.as_bytes().to_vec();
        let mut data = lump(Endian::Little, &["m.mdl"], &[], &[]);
        let at = data.len() - 4;
        data[at..].copy_from_slice(&(n as u32).to_le_bytes());
        data.reserve(n * rec.len());
        for i in 0..n {
            let mut r = rec.clone();
            r[0..4].copy_from_slice(&(i as f32).to_le_bytes());
            data.extend_from_slice(&r);
        }
        let sp = StaticProps::parse(Cow::Owned(data), 4, Endian::Little).unwrap();
        assert_eq!(sp.count, n);
        let err = sp.props().unwrap_err();
        assert_eq!(err.kind.name(), "limit_exceeded");
        let tail = sp.props_range(n - 3, 4096).unwrap();
        assert_eq!(tail.len(), 3);
        assert_eq!(tail[2].origin[0], (n - 1) as f32);
        assert_eq!(tail[0].model_name.as_deref(), Some("m.mdl"));
        assert!(sp.props_range(n + 10, 5).unwrap().is_empty());
    }

    #[test]
    fn unknown_sizes_stay_raw_and_bad_counts_fail() {
        let data = lump(Endian::Little, &[], &[], &[vec![0u8; 50]]);
        let sp = StaticProps::parse(Cow::Owned(data), 10, Endian::Little).unwrap();
        assert_eq!(sp.layout, PropLayout::Unknown);
        assert!(sp.props().is_err());
        let data = lump(Endian::Little, &[], &[], &[vec![0u8; 50], vec![0u8; 51]]);
        assert!(StaticProps::parse(Cow::Owned(data), 10, Endian::Little).is_err());
        let mut data = lump(Endian::Little, &[], &[], &[]);
        data[..4].copy_from_slice(&0x0100_0000u32.to_le_bytes());
        assert!(StaticProps::parse(Cow::Owned(data), 4, Endian::Little).is_err());
    }
}
