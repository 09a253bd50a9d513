//! Baked lighting samples: the sample formats every family stores its lightmaps in, their
//! conversion to linear light, and [`FaceLight`], the description of where one face's lightmap
//! samples are. Data only: the family modules (`branches/<family>/lighting.rs`) fill a
//! [`LightSet`] from a map, and [`crate::lightmap`] packs the faces into atlases.
//!
//! # From stored values to linear light
//! Every value is a light *multiplier* of the face's texture (1.0 = the texture as drawn at full
//! brightness). The 8-bit formats are multipliers in the engines' gamma space (the old engines
//! multiply the palette or framebuffer colour directly, and overbright lets a value brighten the
//! texture): a stored byte `v` means the gamma-space multiplier `v / 255 × overbright`, with the
//! family's overbright ([`overbright`]), and the linear multiplier is that value to the power 2.2
//! ([`GAMMA`]).
//!
//! | family | stored | overbright (gamma-space value of byte 255) |
//! |---|---|---|
//! | Quake 1 (grey, `.lit`, `RGBLIGHTING`) | 8-bit | 255 / 128 (128 is full brightness, as in the software renderer and GLQuake) |
//! | Quake 1 `LIGHTING_E5BGR9` | shared-exponent float | as Quake 1: a value 1.0 is the 8-bit value 255 (ericw-tools writes the same light unclamped) |
//! | GoldSrc | 8-bit RGB | 1 (the engine's `lightgamma` brightening is not modelled) |
//! | Quake 2 | 8-bit RGB | 1 (`gl_modulate` 1) |
//! | Quake 3 | 8-bit RGB pages | 4 (`r_mapOverBrightBits` 2, the default: the engine shifts by one bit and the hardware overbright doubles again) |
//! | Call of Duty 1 / United Offensive | 8-bit RGB pages | 2 (opencod1's `R_ColorShiftLightingBytes` shifts by `1 − overbrightBits` and the hardware overbright doubles again) |
//! | Call of Duty 2, 4; Respawn | 8-bit RGB pages | 1 (taken: the engines' scale is not published) |
//! | Source | `ColorRGBExp32` | linear already: `c × 2^exponent / 255` (VRAD's scale, where 255 is full brightness: lit rooms of the corpus's TF2 maps have a median of about 218) |

use std::ops::Range;

/// The exponent of the power curve between the engines' gamma-space light values and linear
/// light.
pub const GAMMA: f32 = 2.2;

/// Largest lightmap side (in luxels) a face may have; larger faces are skipped with a warning.
/// Engines use 17–18 (Quake), 128/512 (Quake 3 pages), 1024 (decoupled lightmaps).
pub const MAX_FACE_SIDE: u32 = 2048;

/// How one lightmap sample is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleFormat {
    /// One byte per luxel, grey (Quake 1's `LIGHTING` lump).
    Grey8,
    /// Three bytes per luxel, R G B.
    Rgb8,
    /// Source's `ColorRGBExp32`: R G B bytes and a signed exponent byte; linear `c × 2^e`.
    RgbExp32,
    /// ericw-tools' `LIGHTING_E5BGR9`: a little-endian u32, red in bits 0–8, green 9–17, blue
    /// 18–26, exponent 27–31; value `m × 2^(e − 24)` (OpenGL's shared-exponent RGB9_E5).
    E5bgr9,
}

impl SampleFormat {
    /// Bytes per sample.
    pub const fn bytes(self) -> usize {
        match self {
            SampleFormat::Grey8 => 1,
            SampleFormat::Rgb8 => 3,
            SampleFormat::RgbExp32 | SampleFormat::E5bgr9 => 4,
        }
    }
    /// The form samples take in an atlas: grey is widened to RGB, the others are kept as stored.
    pub const fn atlas_form(self) -> SampleFormat {
        match self {
            SampleFormat::Grey8 => SampleFormat::Rgb8,
            f => f,
        }
    }
    /// Whether values are floating point (kept losslessly by `--hdr`).
    pub const fn is_hdr(self) -> bool {
        matches!(self, SampleFormat::RgbExp32 | SampleFormat::E5bgr9)
    }
    pub const fn name(self) -> &'static str {
        match self {
            SampleFormat::Grey8 => "grey8",
            SampleFormat::Rgb8 => "rgb8",
            SampleFormat::RgbExp32 => "rgbexp32",
            SampleFormat::E5bgr9 => "e5bgr9",
        }
    }
}

/// Source's `ColorRGBExp32` as stored: `c × 2^e` per channel (source.md §19); linear light is
/// this divided by 255 ([`to_linear`]).
#[inline]
pub fn rgbexp32(s: [u8; 4]) -> [f32; 3] {
    let e = s[3] as i8 as i32;
    // 2^e for e in −128..=127 without powi's rounding: build the float's bits where possible.
    let scale = pow2(e);
    [s[0] as f32 * scale, s[1] as f32 * scale, s[2] as f32 * scale]
}

/// `2^e` exactly for −149 ≤ e ≤ 127 (subnormals included), 0 below, +∞ above.
#[inline]
fn pow2(e: i32) -> f32 {
    if e >= -126 {
        if e > 127 {
            f32::INFINITY
        } else {
            f32::from_bits(((e + 127) as u32) << 23)
        }
    } else if e >= -149 {
        f32::from_bits(1u32 << (e + 149))
    } else {
        0.0
    }
}

/// ericw-tools' packed E5BGR9 sample as three floats (bias 15, 9-bit mantissas).
#[inline]
pub fn e5bgr9(packed: u32) -> [f32; 3] {
    let scale = pow2((packed >> 27) as i32 - 24);
    [(packed & 0x1ff) as f32 * scale, ((packed >> 9) & 0x1ff) as f32 * scale, ((packed >> 18) & 0x1ff) as f32 * scale]
}

/// The stored value of one sample as floats: 8-bit values as `byte / 255` (grey repeated), the
/// float formats decoded ([`rgbexp32`], [`e5bgr9`]). `s` holds at least [`SampleFormat::bytes`].
#[inline]
pub fn stored(format: SampleFormat, s: &[u8]) -> [f32; 3] {
    match format {
        SampleFormat::Grey8 => [s[0] as f32 / 255.0; 3],
        SampleFormat::Rgb8 => [s[0] as f32 / 255.0, s[1] as f32 / 255.0, s[2] as f32 / 255.0],
        SampleFormat::RgbExp32 => rgbexp32([s[0], s[1], s[2], s[3]]),
        SampleFormat::E5bgr9 => e5bgr9(u32::from_le_bytes([s[0], s[1], s[2], s[3]])),
    }
}

/// The family's overbright: the gamma-space multiplier a stored 1.0 (byte 255) stands for
/// (module documentation). `None` for Source, whose samples are linear.
pub fn overbright(family: crate::branch::Family) -> Option<f32> {
    use crate::branch::Family;
    match family {
        Family::Quake => Some(255.0 / 128.0),
        Family::GoldSrc | Family::Quake2 => Some(1.0),
        Family::Quake3 => Some(4.0),
        _ => None,
    }
}

/// One sample as linear light (1.0 = the texture at full brightness): 8-bit and E5BGR9 values
/// through the family's `overbright` and [`GAMMA`]; `ColorRGBExp32` as stored divided by 255.
#[inline]
pub fn to_linear(format: SampleFormat, overbright: Option<f32>, s: &[u8]) -> [f32; 3] {
    match (format, overbright) {
        (SampleFormat::RgbExp32, _) => stored(format, s).map(|c| c / 255.0),
        (_, None) => stored(format, s),
        (SampleFormat::Grey8, Some(o)) => [(s[0] as f32 * (o / 255.0)).powf(GAMMA); 3],
        (SampleFormat::Rgb8, Some(o)) => [s[0], s[1], s[2]].map(|c| (c as f32 * (o / 255.0)).powf(GAMMA)),
        (SampleFormat::E5bgr9, Some(o)) => stored(format, s).map(|c| (c * o).powf(GAMMA)),
    }
}

/// Where one face's samples for one light style are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StyleSlot {
    /// Light style number (0 = normal light, 1–63 animated or switchable, …).
    pub style: u8,
    /// Byte offset of luxel (0, 0) of layer 0 in [`LightSet::data`].
    pub offset: usize,
}

/// One face's lightmap: its luxel rectangle, where each style's samples are, and how a
/// world-space position maps to luxel coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceLight {
    /// Lump (Call of Duty: lump id) and record index of the face, as the mesh scene names it.
    pub lump: u16,
    pub index: u32,
    /// Luxels across and down.
    pub width: u32,
    pub height: u32,
    /// Bytes from one row of luxels to the next in [`LightSet::data`].
    pub stride: usize,
    /// Sample sets per style: 1, or 4 for Source bump-mapped faces (flat, then the three bump
    /// basis directions, each `width × height` samples).
    pub layers: u8,
    /// Bytes from one layer to the next.
    pub layer_step: usize,
    /// Range of this face's styles in [`LightSet::slots`].
    pub slots: (u32, u8),
    /// World position → luxel coordinates.
    pub mapping: Mapping,
    /// The face's own offset as stored (its lighting lump offset, or its Quake 3 page number).
    pub source_offset: i64,
}

impl FaceLight {
    pub fn slot_range(&self) -> Range<usize> {
        self.slots.0 as usize..self.slots.0 as usize + self.slots.1 as usize
    }
}

/// How positions map to a face's luxel coordinates, in which luxel `(i, j)`'s centre is at
/// `(i, j)` (its square spans `i − ½ .. i + ½`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mapping {
    /// `s = ax·x + ay·y + az·z + a0`, `t` likewise: Quake/GoldSrc/Quake 2 texture axes divided
    /// by the luxel size minus the snapped mins, BSPX `DECOUPLED_LM`'s matrix, Source's lightmap
    /// vectors minus the face's luxel mins.
    Planar { s: [f64; 4], t: [f64; 4] },
    /// Quake 3, Respawn, Call of Duty: per-vertex lightmap coordinates normalised to a page of
    /// `page_size` (width, height) texels; the face's rectangle starts at texel `origin` of that
    /// page (style 0's page for RBSP).
    Page { origin: [u32; 2], page_size: [u32; 2] },
}

/// All lit faces of a map with the one sample buffer they read from.
#[derive(Debug, Clone, Default)]
pub struct LightSet<'a> {
    /// The sample bytes (a lump, a BSPX lump, or the `.lit` file's data).
    pub data: std::borrow::Cow<'a, [u8]>,
    pub format: Option<SampleFormat>,
    /// What `data` is, for messages and the manifest: `"LIGHTING"`, `"BSPX RGBLIGHTING"`,
    /// `"e1m1.lit"`, `"LIGHTMAPS"`, …
    pub source: String,
    /// Lump index of `data` when it is a lump of the map.
    pub source_lump: Option<usize>,
    /// The gamma-space multiplier of a stored 1.0 ([`overbright`]); `None` = samples are linear.
    pub overbright: Option<f32>,
    pub faces: Vec<FaceLight>,
    pub slots: Vec<StyleSlot>,
    /// Faces left out and why (one line each, naming the face, lump and offset).
    pub warnings: Vec<String>,
}

impl LightSet<'_> {
    /// Add a face whose styles follow one another from byte `base` of [`LightSet::data`], each
    /// `(layers + skipped) × width × height` samples (rows of `width`, layers of
    /// `width × height`, then `skipped` sets that are not lighting): the layout of Quake,
    /// GoldSrc, Quake 2 and Source. A face whose samples do not fit is left out with the reason
    /// in the `Err`.
    #[allow(clippy::too_many_arguments)]
    pub fn push_consecutive(
        &mut self,
        lump: usize,
        index: usize,
        styles: &[u8],
        base: u64,
        size: [i64; 2],
        (layers, skipped): (u8, u8),
        mapping: Mapping,
        source_offset: i64,
    ) -> Result<(), String> {
        let bytes = self.format.map_or(1, |f| f.bytes());
        let side = |v: i64| u32::try_from(v).ok().filter(|&v| (1..=MAX_FACE_SIDE).contains(&v));
        let (Some(width), Some(height)) = (side(size[0]), side(size[1])) else {
            return Err(format!("lightmap size {}×{} is outside 1..={MAX_FACE_SIDE}", size[0], size[1]));
        };
        let layer = width as usize * height as usize * bytes;
        let first = self.slots.len();
        for (k, &style) in styles.iter().enumerate() {
            let at = base.saturating_add((k * (layers + skipped) as usize * layer) as u64);
            self.slots.push(StyleSlot { style, offset: usize::try_from(at).unwrap_or(usize::MAX) });
        }
        let face = FaceLight {
            lump: lump as u16,
            index: index as u32,
            width,
            height,
            stride: width as usize * bytes,
            layers,
            layer_step: layer,
            slots: (first as u32, styles.len() as u8),
            mapping,
            source_offset,
        };
        if let Err(e) = self.check(&face) {
            self.slots.truncate(first);
            return Err(e);
        }
        self.faces.push(face);
        Ok(())
    }
    /// Add a lightmap page of `size` texels as one lit "face" whose vertices carry page-relative
    /// coordinates ([`Mapping::Page`]): `layers` images of `size` RGBA8 texels that follow one
    /// another from byte `at` of `src` (Respawn's LIGHTMAP_DATA_SKY, Call of Duty 4's
    /// LIGHTBYTES). Their RGB is appended to [`LightSet::data`] (which becomes owned; alpha,
    /// whose use is not documented, is not kept), layer after layer, as style 0. A page whose
    /// images run past the end of `src` is left out with the reason in the `Err`.
    pub fn push_rgba_page(&mut self, lump: usize, index: usize, src: &[u8], at: usize, size: [u32; 2], layers: u8) -> Result<(), String> {
        self.push_page4(lump, index, src, at, size, layers, [0, 1, 2])
    }
    /// [`LightSet::push_rgba_page`] for texels stored B G R A (Direct3D's `A8R8G8B8` in memory:
    /// Call of Duty 2's LIGHTBYTES); the samples kept are R G B.
    pub fn push_bgra_page(&mut self, lump: usize, index: usize, src: &[u8], at: usize, size: [u32; 2], layers: u8) -> Result<(), String> {
        self.push_page4(lump, index, src, at, size, layers, [2, 1, 0])
    }
    /// A page of 4-byte texels whose red, green and blue are at bytes `order` of each texel.
    #[allow(clippy::too_many_arguments)]
    fn push_page4(
        &mut self,
        lump: usize,
        index: usize,
        src: &[u8],
        at: usize,
        size: [u32; 2],
        layers: u8,
        order: [usize; 3],
    ) -> Result<(), String> {
        let [w, h] = size;
        if w == 0 || h == 0 || w > MAX_FACE_SIDE || h > MAX_FACE_SIDE {
            return Err(format!("page size {w}×{h} is outside 1..={MAX_FACE_SIDE}"));
        }
        let texels = w as usize * h as usize;
        let need = texels * 4 * layers as usize;
        let Some(rgba) = at.checked_add(need).and_then(|end| src.get(at..end)) else {
            return Err(format!(
                "{layers} RGBA image(s) of {w}×{h} at byte {at} run past the end of {} ({} bytes)",
                self.source,
                src.len()
            ));
        };
        let data = self.data.to_mut();
        let offset = data.len();
        data.try_reserve_exact(texels * 3 * layers as usize)
            .map_err(|_| format!("no memory for {} lightmap bytes", texels * 3 * layers as usize))?;
        // Zeros copied in, then the samples put in place by an index loop: an unoptimised (test)
        // build ran the chunk iterator, the array `map` and the closure as calls per texel (a
        // quarter of the garbled-export test's CPU, on the Call of Duty 4 maps).
        extend_zeroed(data, texels * 3 * layers as usize);
        let out = &mut data[offset..];
        let (mut i, mut o) = (0, 0);
        while o < out.len() {
            out[o] = rgba[i + order[0]];
            out[o + 1] = rgba[i + order[1]];
            out[o + 2] = rgba[i + order[2]];
            i += 4;
            o += 3;
        }
        let first = self.slots.len();
        self.slots.push(StyleSlot { style: 0, offset });
        self.faces.push(FaceLight {
            lump: lump as u16,
            index: index as u32,
            width: w,
            height: h,
            stride: w as usize * 3,
            layers,
            layer_step: texels * 3,
            slots: (first as u32, 1),
            mapping: Mapping::Page { origin: [0, 0], page_size: size },
            source_offset: at as i64,
        });
        Ok(())
    }
    /// Check that every sample of `f` lies inside [`LightSet::data`]; the message says why not.
    pub fn check(&self, f: &FaceLight) -> Result<(), String> {
        let Some(format) = self.format else { return Err("no sample format".into()) };
        if f.width == 0 || f.height == 0 || f.width > MAX_FACE_SIDE || f.height > MAX_FACE_SIDE {
            return Err(format!("lightmap size {}×{} is outside 1..={MAX_FACE_SIDE}", f.width, f.height));
        }
        let row = f.width as usize * format.bytes();
        let last = (f.height as usize - 1).checked_mul(f.stride).and_then(|r| r.checked_add(row));
        let layers = (f.layers.max(1) as usize - 1).checked_mul(f.layer_step);
        for s in &self.slots[f.slot_range()] {
            let end = last.zip(layers).and_then(|(l, y)| s.offset.checked_add(l)?.checked_add(y));
            match end {
                Some(end) if end <= self.data.len() => {}
                _ => {
                    return Err(format!(
                        "style {} samples at byte {} ({}×{}, {} layer(s)) run past the end of {} ({} bytes)",
                        s.style,
                        s.offset,
                        f.width,
                        f.height,
                        f.layers,
                        self.source,
                        self.data.len()
                    ))
                }
            }
        }
        Ok(())
    }
}

/// What [`crate::lightmap::build`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LightOptions {
    /// Prefer the map's HDR lighting (Source lump 53 with faces 58, BSPX `LIGHTING_E5BGR9`).
    pub hdr: bool,
    /// Read a Quake `.lit` file beside the map (only for maps opened from a path).
    pub external: bool,
    /// Use BSPX `DECOUPLED_LM` where present (as engines that know it do); `false` reads the
    /// texinfo-sized lightmaps the same maps also carry for older engines.
    pub decoupled: bool,
    /// Most atlas pixels one build may fill, every page, style and layer together
    /// ([`DEFAULT_MAX_ATLAS_PIXELS`]); more is a `limit_exceeded` error before any atlas is
    /// allocated (the images `bsp lightmaps --out` and `export --hdr` write are these atlases).
    pub max_atlas_pixels: u64,
}

/// Default of [`LightOptions::max_atlas_pixels`]: 64 Mi pixels (768 MB as HDR floats). The
/// largest corpus map fills a small fraction of it (README, "Safe writes, special files and
/// budgets").
pub const DEFAULT_MAX_ATLAS_PIXELS: u64 = 64 << 20;

impl Default for LightOptions {
    fn default() -> Self {
        LightOptions { hdr: false, external: true, decoupled: true, max_atlas_pixels: DEFAULT_MAX_ATLAS_PIXELS }
    }
}

/// Largest `.lit` file read: its header and three bytes for each byte of the grey lump.
pub fn lit_limit(grey_len: usize) -> u64 {
    8 + 3 * grey_len as u64
}

/// BSPX `DECOUPLED_LM`, one record per face, 40 bytes (ericw-tools `bspx_decoupled_lm_perface`):
/// the face's own lightmap size and offset and a world → luxel matrix, luxel centres at integer
/// coordinates.
#[derive(Clone, Copy, Debug, zerocopy::FromBytes, zerocopy::IntoBytes, zerocopy::Immutable, zerocopy::KnownLayout, zerocopy::Unaligned)]
#[repr(C)]
pub struct DecoupledLm {
    pub width: zerocopy::byteorder::U16<zerocopy::LittleEndian>,
    pub height: zerocopy::byteorder::U16<zerocopy::LittleEndian>,
    /// Offset in the face's usual units (Quake: luxels of the grey lump; Quake 2: bytes); −1 = none.
    pub offset: zerocopy::byteorder::I32<zerocopy::LittleEndian>,
    /// Rows `s` and `t`: x, y, z, constant.
    pub world_to_lm: [[zerocopy::byteorder::F32<zerocopy::LittleEndian>; 4]; 2],
}

impl DecoupledLm {
    pub fn mapping(&self) -> Mapping {
        let row = |r: &[zerocopy::byteorder::F32<zerocopy::LittleEndian>; 4]| r.map(|v| v.get() as f64);
        Mapping::Planar { s: row(&self.world_to_lm[0]), t: row(&self.world_to_lm[1]) }
    }
}

/// The luxel rectangle of a Quake / GoldSrc / Quake 2 face, as the engines compute it
/// (QuakeSpasm's and ericw-tools' `CalcSurfaceExtents`): each corner's texture coordinate is
/// summed in double precision from the single-precision vertex and texinfo values, then rounded
/// to single precision (the x87 behaviour the original tools had); the luxel grid is anchored at
/// `floor(min / step)` in texture space — not at the face's own minimum, and not at the texture
/// origin — and ends at `ceil(max / step)`. Returns the snapped mins (in luxels) and the size
/// (`ceil(max/step) − floor(min/step) + 1` each way), `None` without corners or with non-finite
/// values.
pub fn luxel_extents(points: &[[f32; 3]], vecs: &[[f32; 4]; 2], step: f32) -> Option<([i64; 2], [i64; 2])> {
    let mut mins = [f32::INFINITY; 2];
    let mut maxs = [f32::NEG_INFINITY; 2];
    for p in points {
        for j in 0..2 {
            let v = &vecs[j];
            let val = (p[0] as f64 * v[0] as f64 + p[1] as f64 * v[1] as f64 + p[2] as f64 * v[2] as f64 + v[3] as f64) as f32;
            if !val.is_finite() {
                return None;
            }
            mins[j] = mins[j].min(val);
            maxs[j] = maxs[j].max(val);
        }
    }
    if points.is_empty() || step.is_nan() || step <= 0.0 {
        return None;
    }
    let lo = [0, 1].map(|j| (mins[j] as f64 / step as f64).floor());
    let hi = [0, 1].map(|j| (maxs[j] as f64 / step as f64).ceil());
    if lo.iter().chain(&hi).any(|v| v.abs() > 1e15) {
        return None;
    }
    Some(([lo[0] as i64, lo[1] as i64], [(hi[0] - lo[0]) as i64 + 1, (hi[1] - lo[1]) as i64 + 1]))
}

/// The [`Mapping::Planar`] of a texinfo-projected face: texture coordinate / `step` − `mins`.
pub fn texture_mapping(vecs: &[[f32; 4]; 2], step: f32, mins: [i64; 2]) -> Mapping {
    let row = |j: usize| {
        let v = vecs[j].map(|c| c as f64 / step as f64);
        [v[0], v[1], v[2], v[3] - mins[j] as f64]
    };
    Mapping::Planar { s: row(0), t: row(1) }
}

/// The BSPX per-face tables of Quake 1, GoldSrc and Quake 2 maps that change a face's lightmap,
/// used only when they have one entry per face (as the engines check).
#[derive(Debug, Clone, Copy, Default)]
pub struct QuakeFaceTables<'d> {
    pub decoupled: Option<&'d [DecoupledLm]>,
    pub lmshift: Option<&'d [u8]>,
}

impl<'d> QuakeFaceTables<'d> {
    /// Read from the BSPX lumps `lump(name)` gives, for a map of `faces` faces;
    /// `DECOUPLED_LM` only when `opts.decoupled`.
    pub fn new(lump: impl Fn(&str) -> Option<&'d [u8]>, faces: usize, opts: &LightOptions) -> Self {
        use zerocopy::FromBytes;
        QuakeFaceTables {
            decoupled: lump("DECOUPLED_LM")
                .filter(|_| opts.decoupled)
                .and_then(|d| <[DecoupledLm]>::ref_from_bytes(d).ok())
                .filter(|d| d.len() == faces),
            lmshift: lump("LMSHIFT").filter(|d| d.len() == faces),
        }
    }
}

/// One Quake-family face as stored (Quake 1, GoldSrc, Quake 2).
#[derive(Debug, Clone, Copy)]
pub struct QuakeFace {
    pub lump: usize,
    pub index: usize,
    pub styles: [u8; 4],
    pub light_ofs: i64,
    /// The texinfo's `s` and `t` rows; `None` when the face's texinfo index is out of range.
    pub vecs: Option<[[f32; 4]; 2]>,
}

impl LightSet<'_> {
    /// Add a Quake-family face: styles up to the first 255; size, offset and mapping from
    /// `DECOUPLED_LM` when present, else the texinfo extents of the corners `points` fills in
    /// at `1 << LMSHIFT` units a luxel (16 by default); `scale` turns the stored offset into a
    /// byte offset of [`LightSet::data`]. A face that cannot be placed becomes a warning.
    pub fn push_quake_face(
        &mut self,
        f: QuakeFace,
        tables: &QuakeFaceTables,
        scale: u64,
        corners: &mut Vec<[f32; 3]>,
        points: impl FnOnce(&mut Vec<[f32; 3]>) -> Result<(), String>,
    ) {
        let n_styles = f.styles.iter().take_while(|&&s| s != 255).count();
        let warn =
            |set: &mut Self, what: String| set.warnings.push(format!("face {} (lump {} record {}): {what}", f.index, f.lump, f.index));
        let placed = if let Some(d) = tables.decoupled.and_then(|d| d.get(f.index)) {
            Ok(([d.width.get() as i64, d.height.get() as i64], d.offset.get() as i64, d.mapping()))
        } else if f.light_ofs < 0 || n_styles == 0 {
            return;
        } else {
            let shift = tables.lmshift.and_then(|s| s.get(f.index).copied()).unwrap_or(4);
            let step = (1u32 << shift.min(31)) as f32;
            match f.vecs {
                _ if shift > 10 => Err(format!("LMSHIFT {shift} is out of range 0..=10")),
                None => Err("its texinfo is out of range".to_string()),
                Some(vecs) => points(corners).and_then(|()| {
                    let (mins, size) = luxel_extents(corners, &vecs, step).ok_or("its texture coordinates are not finite")?;
                    Ok((size, f.light_ofs, texture_mapping(&vecs, step, mins)))
                }),
            }
        };
        match placed {
            Err(e) => warn(self, e),
            Ok((_, ofs, _)) if ofs < 0 || n_styles == 0 => {}
            Ok((size, ofs, mapping)) => {
                let base = (ofs as u64).saturating_mul(scale);
                if let Err(e) = self.push_consecutive(f.lump, f.index, &f.styles[..n_styles], base, size, (1, 0), mapping, ofs) {
                    warn(self, format!("lightofs {ofs}: {e}"));
                }
            }
        }
    }
}

/// `n` zero bytes added to `data` (capacity reserved by the caller), copied from a block of
/// zeros: `resize` is a loop of calls per byte in an unoptimised build.
pub(crate) fn extend_zeroed(data: &mut Vec<u8>, n: usize) {
    const ZEROS: [u8; 4096] = [0; 4096];
    let mut left = n;
    while left > 0 {
        let k = left.min(ZEROS.len());
        data.extend_from_slice(&ZEROS[..k]);
        left -= k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index loop of `push_page4` appends what the chunk iterator and array `map` did (the
    /// form before), for RGBA and BGRA pages of one and several layers, after data already held;
    /// a page past the end of the source is refused and appends nothing.
    #[test]
    fn page_texels_are_the_mapped_chunks() {
        let src: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 9) as u8).collect();
        for (order, bgra) in [([0usize, 1, 2], false), ([2, 1, 0], true)] {
            for (at, size, layers) in [(0, [1, 1], 1u8), (3, [7, 5], 1), (10, [16, 8], 3), (1, [33, 9], 4)] {
                let mut set = LightSet { data: std::borrow::Cow::Owned(vec![9, 8, 7]), ..Default::default() };
                let r =
                    if bgra { set.push_bgra_page(1, 2, &src, at, size, layers) } else { set.push_rgba_page(1, 2, &src, at, size, layers) };
                r.unwrap();
                let need = size[0] as usize * size[1] as usize * 4 * layers as usize;
                let mut want = vec![9, 8, 7];
                want.extend(src[at..at + need].chunks_exact(4).flat_map(|t| order.map(|k| t[k])));
                assert_eq!(&*set.data, &want[..], "order {order:?}, at {at}, size {size:?}, layers {layers}");
                assert_eq!(set.slots[0].offset, 3);
            }
        }
        let mut set = LightSet::default();
        assert!(set.push_rgba_page(1, 2, &src, 4990, [2, 2], 1).is_err());
        assert!(set.data.is_empty() && set.faces.is_empty());
    }

    #[test]
    fn rgbexp32_is_component_times_two_to_the_exponent() {
        assert_eq!(rgbexp32([128, 64, 1, 0]), [128.0, 64.0, 1.0]);
        assert_eq!(rgbexp32([128, 64, 2, (-7i8) as u8]), [1.0, 0.5, 2.0 / 128.0]);
        assert_eq!(rgbexp32([255, 0, 0, 127]), [255.0 * 2f32.powi(127), 0.0, 0.0]);
        assert_eq!(rgbexp32([1, 0, 0, 128]), [2f64.powi(-128) as f32, 0.0, 0.0]);
        for e in -128i32..=127 {
            assert_eq!(pow2(e) as f64, 2f64.powi(e), "2^{e}");
        }
    }

    #[test]
    fn e5bgr9_follows_the_shared_exponent_rule() {
        // exponent 15 + 9 = 24 → scale 1: mantissas are the values.
        let p = (24u32 << 27) | (3 << 18) | (2 << 9) | 1;
        assert_eq!(e5bgr9(p), [1.0, 2.0, 3.0]);
        let half = (15u32 << 27) | 256; // 256 × 2^(15 − 24) = 0.5
        assert_eq!(e5bgr9(half), [0.5, 0.0, 0.0]);
    }

    #[test]
    fn decoupled_record_is_40_bytes() {
        assert_eq!(std::mem::size_of::<DecoupledLm>(), 40);
    }

    #[test]
    fn extents_snap_to_the_grid_in_texture_space() {
        // s from 40 to 100: floor(40/16) = 2, ceil(100/16) = 7 → 6 luxels, mins 2.
        let vecs = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]];
        let pts = [[40.0, 0.0, 0.0], [100.0, 0.0, 0.0], [100.0, 16.0, 0.0], [40.0, 16.0, 0.0]];
        let (mins, size) = luxel_extents(&pts, &vecs, 16.0).unwrap();
        assert_eq!((mins, size), ([2, 0], [6, 2]));
        let Mapping::Planar { s, .. } = texture_mapping(&vecs, 16.0, mins) else { unreachable!() };
        // The corner at s = 40 is 0.5 luxel right of luxel 2's centre (which is luxel 0 here).
        assert_eq!(s[0] * 40.0 + s[3], 0.5);
    }

    #[test]
    fn quake_byte_128_is_full_brightness() {
        let o = overbright(crate::branch::Family::Quake);
        assert_eq!(to_linear(SampleFormat::Grey8, o, &[128]), [1.0; 3]);
        assert!(to_linear(SampleFormat::Grey8, o, &[255])[0] > 4.0);
        assert_eq!(to_linear(SampleFormat::RgbExp32, None, &[255, 0, 255, 1]), [2.0, 0.0, 2.0]);
    }
}
