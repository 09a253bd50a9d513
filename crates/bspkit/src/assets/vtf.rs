//! Valve Texture Format: `.vtf` versions 7.0–7.5, Strata Source's 7.6 (without its per-mip
//! compression) and the Xbox 360 `VTFX` variant.
//!
//! ```text
//! PC ("VTF\0", little-endian):
//!   0 u32 version[2]   12 u32 header_size   16 u16 width, height   20 u32 flags
//!   24 u16 frames, first_frame   32 f32 reflectivity[3]   48 f32 bump_scale
//!   52 i32 format   56 u8 mip_count   57 i32 low_format   61 u8 low_width, low_height
//!   63 u16 depth (7.2+)   68 u32 resource_count (7.3+)   80 resources: {u8 tag[3]; u8 flags; u32 data}
//! 7.0–7.2: the low-resolution thumbnail follows the header, then the image data.
//! 7.3+: resource tag 0x30 ("0") gives the image data offset, 0x01 the thumbnail's.
//! Image data: mips smallest first; in each mip every frame, in each frame every face
//! (cube maps: 6, or 7 with a sphere map before 7.5), in each face every depth slice.
//!
//! Xbox 360 ("VTFX", big-endian header): 16 u32 flags  20 u16 width, height, depth, frames
//!   28 u16 preload  30 u8 mip_skip, resource_count  32 f32 reflectivity[3]  44 f32 bump_scale
//!   48 i32 format  52 u8 low_sample[4]  56 u32 compressed_size  60 resources.
//!   Image data may be one Valve LZMA block; mips are stored largest first.
//! ```
//!
//! The container is read here (no crate reads VTF); DXT1/3/5 blocks are decoded with the
//! `texture2ddecoder` crate. That crate decodes the colour half of a DXT3/DXT5 block in the
//! three-colour mode when its first endpoint is not greater than the second, which Direct3D
//! never does for those formats; such blocks are first rewritten to the equivalent four-colour
//! block (endpoints swapped and indices remapped) so the result is the Direct3D one.
//!
//! Half floats (RGBA16161616F) go through [`f16_to_f32`], a few lines checked bit for bit
//! against the `half` crate on all 65,536 values: current `half` releases need Rust 1.81.
//!
//! Every size is computed in `u64` and checked against the data before anything is decoded:
//! the decoded output is at most 8 bytes per byte of input (DXT1 → RGBA), plus floats for HDR.

use std::borrow::Cow;

use crate::assets::image::{image_bytes, unit_to_u8, ImageF32, ImageRgba, Layer};
use crate::error::{Error, ErrorKind, Result};

/// `TEXTUREFLAGS_ENVMAP`: a cube map.
pub const FLAG_ENVMAP: u32 = 0x4000;
/// `TEXTUREFLAGS_NOMIP`.
pub const FLAG_NOMIP: u32 = 0x100;
/// `TEXTUREFLAGS_ONEBITALPHA`, `TEXTUREFLAGS_EIGHTBITALPHA`.
pub const FLAG_ONEBITALPHA: u32 = 0x1000;
pub const FLAG_EIGHTBITALPHA: u32 = 0x2000;

/// Resource tags (7.3+).
pub const RES_HIGH: [u8; 3] = [0x30, 0, 0];
pub const RES_LOW: [u8; 3] = [0x01, 0, 0];

/// A VTF image format number (`ImageFormat` in the Source SDK).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format(pub i32);

/// Storage of one format: bytes per pixel, or bytes per 4×4 block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Storage {
    Pixel(u64),
    Block(u64),
}

impl Format {
    pub const NONE: Format = Format(-1);
    pub const RGBA8888: Format = Format(0);
    pub const ABGR8888: Format = Format(1);
    pub const RGB888: Format = Format(2);
    pub const BGR888: Format = Format(3);
    pub const RGB565: Format = Format(4);
    pub const I8: Format = Format(5);
    pub const IA88: Format = Format(6);
    pub const P8: Format = Format(7);
    pub const A8: Format = Format(8);
    pub const RGB888_BLUESCREEN: Format = Format(9);
    pub const BGR888_BLUESCREEN: Format = Format(10);
    pub const ARGB8888: Format = Format(11);
    pub const BGRA8888: Format = Format(12);
    pub const DXT1: Format = Format(13);
    pub const DXT3: Format = Format(14);
    pub const DXT5: Format = Format(15);
    pub const BGRX8888: Format = Format(16);
    pub const BGR565: Format = Format(17);
    pub const BGRX5551: Format = Format(18);
    pub const BGRA4444: Format = Format(19);
    pub const DXT1_ONEBITALPHA: Format = Format(20);
    pub const BGRA5551: Format = Format(21);
    pub const UV88: Format = Format(22);
    pub const UVWQ8888: Format = Format(23);
    pub const RGBA16161616F: Format = Format(24);
    pub const RGBA16161616: Format = Format(25);
    pub const UVLX8888: Format = Format(26);
    pub const R32F: Format = Format(27);
    pub const RGB323232F: Format = Format(28);
    pub const RGBA32323232F: Format = Format(29);

    /// Every format this module decodes (all of 0–29 but P8, which Valve never implemented).
    pub const DECODABLE: [Format; 29] = [
        Format(0),
        Format(1),
        Format(2),
        Format(3),
        Format(4),
        Format(5),
        Format(6),
        Format(8),
        Format(9),
        Format(10),
        Format(11),
        Format(12),
        Format(13),
        Format(14),
        Format(15),
        Format(16),
        Format(17),
        Format(18),
        Format(19),
        Format(20),
        Format(21),
        Format(22),
        Format(23),
        Format(24),
        Format(25),
        Format(26),
        Format(27),
        Format(28),
        Format(29),
    ];

    /// The SDK name without `IMAGE_FORMAT_`.
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 30] = [
            "RGBA8888",
            "ABGR8888",
            "RGB888",
            "BGR888",
            "RGB565",
            "I8",
            "IA88",
            "P8",
            "A8",
            "RGB888_BLUESCREEN",
            "BGR888_BLUESCREEN",
            "ARGB8888",
            "BGRA8888",
            "DXT1",
            "DXT3",
            "DXT5",
            "BGRX8888",
            "BGR565",
            "BGRX5551",
            "BGRA4444",
            "DXT1_ONEBITALPHA",
            "BGRA5551",
            "UV88",
            "UVWQ8888",
            "RGBA16161616F",
            "RGBA16161616",
            "UVLX8888",
            "R32F",
            "RGB323232F",
            "RGBA32323232F",
        ];
        match self.0 {
            -1 => "NONE",
            i @ 0..=29 => NAMES[i as usize],
            _ => "unknown",
        }
    }

    fn storage(self) -> Option<Storage> {
        Some(match self.0 {
            0 | 1 | 11 | 12 | 16 | 23 | 26 | 27 => Storage::Pixel(4),
            2 | 3 | 9 | 10 => Storage::Pixel(3),
            4 | 6 | 17 | 18 | 19 | 21 | 22 => Storage::Pixel(2),
            5 | 7 | 8 => Storage::Pixel(1),
            13 | 20 => Storage::Block(8),
            14 | 15 => Storage::Block(16),
            24 | 25 => Storage::Pixel(8),
            28 => Storage::Pixel(12),
            29 => Storage::Pixel(16),
            _ => return None,
        })
    }

    /// Bytes of a `w × h` image in this format (`None` for unknown formats).
    pub fn image_size(self, w: u32, h: u32) -> Option<u64> {
        Some(match self.storage()? {
            Storage::Pixel(b) => w as u64 * h as u64 * b,
            Storage::Block(b) => (w as u64).div_ceil(4) * (h as u64).div_ceil(4) * b,
        })
    }

    /// Does the format hold floating-point or 16-bit (HDR) values?
    pub fn is_hdr(self) -> bool {
        matches!(self.0, 24 | 25 | 27 | 28 | 29)
    }
}

/// The header fields of a VTF, PC or Xbox 360.
#[derive(Debug, Clone, PartialEq)]
pub struct VtfHeader {
    /// `(7, 0)` … `(7, 5)`; `VTFX` files have their own numbers (`(0x360, 8)`).
    pub version: (u32, u32),
    /// An Xbox 360 `VTFX` file.
    pub x360: bool,
    pub header_size: u32,
    pub width: u16,
    pub height: u16,
    pub flags: u32,
    pub frames: u16,
    pub first_frame: u16,
    pub reflectivity: [f32; 3],
    pub bump_scale: f32,
    pub format: Format,
    pub mip_count: u8,
    pub low_format: Format,
    pub low_width: u8,
    pub low_height: u8,
    pub depth: u16,
    /// `(tag, flags, data)` of each resource (7.3+, VTFX).
    pub resources: Vec<([u8; 3], u8, u32)>,
}

/// A parsed VTF: its header and the image data (decompressed for `VTFX` files).
#[derive(Debug, Clone)]
pub struct Vtf<'a> {
    pub header: VtfHeader,
    /// Image data: mips in file order, starting at the largest or smallest (see `largest_first`).
    data: Cow<'a, [u8]>,
    largest_first: bool,
    faces: u32,
}

fn f32_at(d: &[u8], o: usize, big: bool) -> f32 {
    let b = [d[o], d[o + 1], d[o + 2], d[o + 3]];
    f32::from_bits(if big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) })
}

/// IEEE 754 half (binary16) to `f32`, exactly (every half value is representable).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1F) as u32;
    let man = (h & 0x3FF) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise the mantissa.
            let shift = m.leading_zeros() - 21;
            sign | ((127 - 15 + 1 - shift) << 23) | ((m << shift) & 0x3FF) << 13
        }
        (31, 0) => sign | 0x7F80_0000,
        (31, m) => sign | 0x7FC0_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

impl<'a> Vtf<'a> {
    /// Parse a `.vtf` (PC or Xbox 360). `max_bytes` caps the decompressed image data of `VTFX`
    /// files. Every mip of every frame, face and slice must be present in the data.
    pub fn parse(bytes: &'a [u8], max_bytes: u64) -> Result<Self> {
        match bytes.get(..4) {
            Some(b"VTF\0") => Self::parse_pc(bytes),
            Some(b"VTFX") => Self::parse_x360(bytes, max_bytes),
            _ => Err(Error::malformed(format!("not a VTF file (starts {})", crate::bytes::describe_head(bytes))).at(0)),
        }
    }

    fn parse_pc(b: &'a [u8]) -> Result<Self> {
        if b.len() < 63 {
            return Err(Error::truncated(63, b.len() as u64).at(0));
        }
        let u32_ = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16_ = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let version = (u32_(4), u32_(8));
        if version.0 != 7 || version.1 > 6 {
            return Err(Error::new(ErrorKind::UnsupportedVersion {
                magic: "VTF".into(),
                version: (version.0 * 10 + version.1.min(9)) as i64,
            })
            .at(4));
        }
        let header_size = u32_(12);
        let mut h = VtfHeader {
            version,
            x360: false,
            header_size,
            width: u16_(16),
            height: u16_(18),
            flags: u32_(20),
            frames: u16_(24),
            first_frame: u16_(26),
            reflectivity: [f32_at(b, 32, false), f32_at(b, 36, false), f32_at(b, 40, false)],
            bump_scale: f32_at(b, 48, false),
            format: Format(u32_(52) as i32),
            mip_count: b[56],
            low_format: Format(u32_(57) as i32),
            low_width: b[61],
            low_height: b[62],
            depth: 1,
            resources: Vec::new(),
        };
        if version.1 >= 2 {
            h.depth = crate::bytes::u16_at(b, 63, crate::bytes::Endian::Little)
                .ok_or_else(|| Error::truncated(65, b.len() as u64).at(63))?
                .max(1);
        }
        let image_start = if version.1 >= 3 {
            let n = crate::bytes::u32_at(b, 68, crate::bytes::Endian::Little).ok_or_else(|| Error::truncated(72, b.len() as u64).at(68))?;
            // Each resource takes 8 bytes of the file: the count is bounded by the file.
            if 80 + n as u64 * 8 > b.len() as u64 {
                return Err(Error::malformed(format!("{n} VTF resources do not fit the {}-byte file", b.len())).at(68));
            }
            for i in 0..n as usize {
                let o = 80 + i * 8;
                h.resources.push(([b[o], b[o + 1], b[o + 2]], b[o + 3], u32_(o + 4)));
            }
            h.resources
                .iter()
                .find(|r| r.0 == RES_HIGH)
                .map(|r| r.2 as u64)
                .ok_or_else(|| Error::malformed("VTF has no image data resource (tag 0x30)").at(80))?
        } else {
            let low = if h.low_format == Format::NONE { Some(0) } else { h.low_format.image_size(h.low_width as u32, h.low_height as u32) };
            let low = low.ok_or_else(|| Error::malformed(format!("unknown thumbnail format {}", h.low_format.0)).at(57))?;
            header_size as u64 + low
        };
        // 7.6 (Strata Source) keeps the 7.5 layout unless an auxiliary compression resource
        // ("AXC") says the image data is compressed, which is not read here.
        if let Some(i) = h.resources.iter().position(|r| r.0 == *b"AXC") {
            return Err(Error::malformed("VTF 7.6 image data compressed per mip (AXC resource) is not supported").at(80 + 8 * i as u64));
        }
        let data = b.get(image_start as usize..).filter(|_| image_start <= b.len() as u64).ok_or_else(|| {
            Error::malformed(format!("VTF image data offset {image_start} is past the {}-byte file", b.len())).at(if version.1 >= 3 {
                80
            } else {
                12
            })
        })?;
        Self::finish(h, Cow::Borrowed(data), false, image_start)
    }

    fn parse_x360(b: &'a [u8], max_bytes: u64) -> Result<Self> {
        if b.len() < 60 {
            return Err(Error::truncated(60, b.len() as u64).at(0));
        }
        let u32_ = |o: usize| u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16_ = |o: usize| u16::from_be_bytes([b[o], b[o + 1]]);
        let flags = u32_(16);
        let (width, height) = (u16_(20), u16_(22));
        let mut h = VtfHeader {
            version: (u32_(4), u32_(8)),
            x360: true,
            header_size: u32_(12),
            width,
            height,
            flags,
            frames: u16_(26),
            first_frame: 0,
            reflectivity: [f32_at(b, 32, true), f32_at(b, 36, true), f32_at(b, 40, true)],
            bump_scale: f32_at(b, 44, true),
            format: Format(u32_(48) as i32),
            mip_count: if flags & FLAG_NOMIP != 0 { 1 } else { full_mip_count(width as u32, height as u32, u16_(24).max(1) as u32) },
            low_format: Format::NONE,
            low_width: 0,
            low_height: 0,
            depth: u16_(24).max(1),
            resources: Vec::new(),
        };
        let n = b[31] as usize;
        if 60 + n * 8 > b.len() {
            return Err(Error::malformed(format!("{n} VTFX resources do not fit the {}-byte file", b.len())).at(31));
        }
        for i in 0..n {
            let o = 60 + i * 8;
            h.resources.push(([b[o], b[o + 1], b[o + 2]], b[o + 3], u32_(o + 4)));
        }
        let start = h
            .resources
            .iter()
            .find(|r| r.0 == RES_HIGH)
            .map(|r| r.2 as u64)
            .ok_or_else(|| Error::malformed("VTFX has no image data resource").at(60))?;
        let raw = b
            .get(start as usize..)
            .filter(|_| start <= b.len() as u64)
            .ok_or_else(|| Error::malformed(format!("VTFX image data offset {start} is past the file")).at(60))?;
        let compressed = u32_(56);
        let data = if compressed != 0 {
            let raw =
                raw.get(..compressed as usize).ok_or_else(|| Error::truncated(start + compressed as u64, b.len() as u64).at(start))?;
            Cow::Owned(crate::compression::decompress_valve_lzma(raw, crate::bytes::Endian::Big, max_bytes).map_err(|e| e.at(start))?)
        } else {
            Cow::Borrowed(raw)
        };
        Self::finish(h, data, true, start)
    }

    /// Work out the face count and check that all image data is present.
    fn finish(h: VtfHeader, data: Cow<'a, [u8]>, largest_first: bool, start: u64) -> Result<Self> {
        if h.format.storage().is_none() {
            return Err(Error::malformed(format!("unknown VTF image format {}", h.format.0)).at(if h.x360 { 48 } else { 52 }));
        }
        if h.mip_count == 0 {
            return Err(Error::malformed("VTF has no mip levels").at(56));
        }
        let mut v = Vtf { header: h, data, largest_first, faces: 1 };
        if v.header.flags & FLAG_ENVMAP != 0 {
            // Before 7.5 a cube map may carry a sphere map as a 7th face; files whose first
            // frame is 0xFFFF have none (as VTFLib reads them). Prefer what the data holds.
            let seven = !v.header.x360 && v.header.version.1 < 5 && v.header.first_frame != 0xFFFF;
            v.faces = if seven { 7 } else { 6 };
            if seven && v.total_size().is_some_and(|t| t > v.data.len() as u64) {
                v.faces = 6;
            }
        }
        let total = v.total_size().ok_or_else(|| Error::malformed("VTF image size overflows").at(16))?;
        if total > v.data.len() as u64 {
            return Err(Error::truncated(start + total, start + v.data.len() as u64).at(start));
        }
        Ok(v)
    }

    /// Cube faces (6 or 7), else 1.
    pub fn faces(&self) -> u32 {
        self.faces
    }

    /// Texels [`Vtf::layers`] decodes, in all and of one layer: mip 0 of every frame, face and
    /// slice (for a budget check before any pixel is allocated).
    pub fn layer_pixels(&self) -> (u64, u64) {
        let (w, h, d) = self.mip_dims(0);
        let frames = self.header.frames.max(1) as u64;
        let one = w as u64 * h as u64;
        (frames * self.faces as u64 * d as u64 * one, one)
    }

    fn mip_dims(&self, mip: u32) -> (u32, u32, u32) {
        let s = |v: u32| (v >> mip.min(31)).max(1);
        (s(self.header.width as u32), s(self.header.height as u32), s(self.header.depth as u32))
    }

    /// Bytes of one whole mip level (all frames, faces and slices).
    fn mip_size(&self, mip: u32) -> Option<u64> {
        let (w, h, d) = self.mip_dims(mip);
        self.header
            .format
            .image_size(w, h)?
            .checked_mul(d as u64)?
            .checked_mul(self.header.frames.max(1) as u64)?
            .checked_mul(self.faces as u64)
    }

    fn total_size(&self) -> Option<u64> {
        (0..self.header.mip_count as u32).try_fold(0u64, |acc, m| acc.checked_add(self.mip_size(m)?))
    }

    /// The stored bytes of one image (within the checked total, so in range).
    pub fn raw(&self, frame: u32, face: u32, slice: u32, mip: u32) -> Result<&[u8]> {
        let frames = self.header.frames.max(1) as u32;
        let (w, h, d) = self.mip_dims(mip);
        if frame >= frames || face >= self.faces || slice >= d || mip >= self.header.mip_count as u32 {
            return Err(Error::malformed(format!(
                "VTF image frame {frame} face {face} slice {slice} mip {mip} is outside {frames} frames, {} faces, {d} slices, {} mips",
                self.faces, self.header.mip_count
            )));
        }
        let levels: Vec<u32> = if self.largest_first { (0..mip).collect() } else { (mip + 1..self.header.mip_count as u32).collect() };
        let overflow = || Error::malformed("VTF image offset overflows");
        let mut ofs = 0u64;
        for m in levels {
            ofs = ofs.checked_add(self.mip_size(m).ok_or_else(overflow)?).ok_or_else(overflow)?;
        }
        let one = self.header.format.image_size(w, h).ok_or_else(overflow)?;
        let index = (frame as u64 * self.faces as u64 + face as u64) * d as u64 + slice as u64;
        ofs += index * one;
        crate::bytes::slice(&self.data, ofs, one)
    }

    /// Decode one image to RGBA (and floats for HDR formats).
    pub fn decode(&self, frame: u32, face: u32, slice: u32, mip: u32) -> Result<(ImageRgba, Option<ImageF32>)> {
        let (w, h, _) = self.mip_dims(mip);
        let raw = self.raw(frame, face, slice, mip)?;
        let raw: Cow<[u8]> = if self.header.x360 { Cow::Owned(swap_x360(self.header.format, raw)) } else { Cow::Borrowed(raw) };
        decode_image(self.header.format, w, h, &raw)
    }

    /// Mip 0 of every frame, face and slice, labelled (cube faces `rt lf bk ft up dn sph`).
    pub fn layers(&self) -> Result<Vec<Layer>> {
        const FACES: [&str; 7] = ["rt", "lf", "bk", "ft", "up", "dn", "sph"];
        let frames = self.header.frames.max(1) as u32;
        let depth = self.header.depth.max(1) as u32;
        let mut out = Vec::new();
        for frame in 0..frames {
            for face in 0..self.faces {
                for slice in 0..depth {
                    let mut label = Vec::new();
                    if frames > 1 {
                        label.push(format!("frame{frame}"));
                    }
                    if self.faces > 1 {
                        label.push(FACES[face as usize].to_string());
                    }
                    if depth > 1 {
                        label.push(format!("z{slice}"));
                    }
                    let (rgba, hdr) = self.decode(frame, face, slice, 0)?;
                    out.push(Layer { label: label.join("_"), rgba, hdr });
                }
            }
        }
        Ok(out)
    }
}

fn full_mip_count(w: u32, h: u32, d: u32) -> u8 {
    let m = w.max(h).max(d).max(1);
    (32 - m.leading_zeros()) as u8
}

/// Xbox 360 data is big-endian: 16-bit words (DXT blocks, 16-bit channels) and 32-bit floats
/// are swapped to little-endian. 8-bit-per-channel layouts are taken as stored.
fn swap_x360(format: Format, raw: &[u8]) -> Vec<u8> {
    let word = match format.0 {
        13 | 14 | 15 | 20 | 24 | 25 | 4 | 17 | 18 | 19 | 21 => 2,
        27..=29 => 4,
        _ => 1,
    };
    let mut v = raw.to_vec();
    if word > 1 {
        for c in v.chunks_exact_mut(word) {
            c.reverse();
        }
    }
    v
}

/// Rewrite a DXT3/DXT5 colour block whose endpoints would select the three-colour mode into
/// the four-colour block Direct3D decodes it as (see the module notes).
fn four_colour(block: &mut [u8]) {
    let c0 = u16::from_le_bytes([block[0], block[1]]);
    let c1 = u16::from_le_bytes([block[2], block[3]]);
    if c0 > c1 {
        return;
    }
    if c0 == c1 {
        block[4..8].fill(0);
        return;
    }
    block.swap(0, 2);
    block.swap(1, 3);
    for b in &mut block[4..8] {
        *b ^= 0x55;
    }
}

fn dxt(format: Format, w: u32, h: u32, raw: &[u8]) -> Result<Vec<u8>> {
    let (wu, hu) = (w as usize, h as usize);
    let mut out = vec![0u32; image_bytes(w, h, 1)?];
    let res = match format {
        Format::DXT1 => texture2ddecoder::decode_bc1(raw, wu, hu, &mut out),
        Format::DXT1_ONEBITALPHA => texture2ddecoder::decode_bc1a(raw, wu, hu, &mut out),
        _ => {
            let mut fixed = raw.to_vec();
            for block in fixed.chunks_exact_mut(16) {
                four_colour(&mut block[8..16]);
            }
            if format == Format::DXT3 {
                texture2ddecoder::decode_bc2(&fixed, wu, hu, &mut out)
            } else {
                texture2ddecoder::decode_bc3(&fixed, wu, hu, &mut out)
            }
        }
    };
    res.map_err(|e| Error::malformed(format!("{}: {e}", format.name())))?;
    // The crate's pixels are 0xAARRGGBB.
    Ok(out
        .iter()
        .flat_map(|p| {
            let [b, g, r, a] = p.to_le_bytes();
            [r, g, b, a]
        })
        .collect())
}

fn expand5(v: u16) -> u8 {
    let c = (v & 31) as u8;
    (c << 3) | (c >> 2)
}
fn expand6(v: u16) -> u8 {
    let c = (v & 63) as u8;
    (c << 2) | (c >> 4)
}
fn expand4(v: u8) -> u8 {
    (v & 15) << 4 | (v & 15)
}

/// Decode a `w × h` image of `format` from exactly its bytes (little-endian layout).
pub fn decode_image(format: Format, w: u32, h: u32, raw: &[u8]) -> Result<(ImageRgba, Option<ImageF32>)> {
    let need = format.image_size(w, h).ok_or_else(|| Error::malformed(format!("unknown VTF image format {}", format.0)))?;
    if (raw.len() as u64) < need {
        return Err(Error::truncated(need, raw.len() as u64));
    }
    let px = |n: usize| raw.chunks_exact(n).take(w as usize * h as usize);
    let map = |n: usize, f: &dyn Fn(&[u8]) -> [u8; 4]| -> Vec<u8> { px(n).flat_map(f).collect() };
    let u16le = |p: &[u8], i: usize| u16::from_le_bytes([p[2 * i], p[2 * i + 1]]);
    let mut hdr = None;
    let pixels = match format.0 {
        0 | 23 | 26 => map(4, &|p| [p[0], p[1], p[2], p[3]]),
        1 => map(4, &|p| [p[3], p[2], p[1], p[0]]),
        2 => map(3, &|p| [p[0], p[1], p[2], 255]),
        3 => map(3, &|p| [p[2], p[1], p[0], 255]),
        4 => map(2, &|p| {
            let v = u16le(p, 0);
            [expand5(v), expand6(v >> 5), expand5(v >> 11), 255]
        }),
        5 => map(1, &|p| [p[0], p[0], p[0], 255]),
        6 => map(2, &|p| [p[0], p[0], p[0], p[1]]),
        8 => map(1, &|p| [0, 0, 0, p[0]]),
        9 => map(3, &|p| if p == [0, 0, 255] { [0; 4] } else { [p[0], p[1], p[2], 255] }),
        10 => map(3, &|p| if p == [255, 0, 0] { [0; 4] } else { [p[2], p[1], p[0], 255] }),
        // Stored G, B, A, R (the order the SDK's tables and VTFLib give this format).
        11 => map(4, &|p| [p[3], p[0], p[1], p[2]]),
        12 => map(4, &|p| [p[2], p[1], p[0], p[3]]),
        16 => map(4, &|p| [p[2], p[1], p[0], 255]),
        17 => map(2, &|p| {
            let v = u16le(p, 0);
            [expand5(v >> 11), expand6(v >> 5), expand5(v), 255]
        }),
        18 | 21 => map(2, &|p| {
            let v = u16le(p, 0);
            let a = if format.0 == 18 || v & 0x8000 != 0 { 255 } else { 0 };
            [expand5(v >> 10), expand5(v >> 5), expand5(v), a]
        }),
        19 => map(2, &|p| [expand4(p[1]), expand4(p[0] >> 4), expand4(p[0]), expand4(p[1] >> 4)]),
        22 => map(2, &|p| [p[0], p[1], 0, 255]),
        13 | 14 | 15 | 20 => dxt(format, w, h, raw)?,
        24 | 25 | 27 | 28 | 29 => {
            let (n, ch): (usize, usize) = match format.0 {
                24 | 25 => (8, 4),
                27 => (4, 1),
                28 => (12, 3),
                _ => (16, 4),
            };
            let mut f = Vec::with_capacity(image_bytes(w, h, 4)?);
            for p in px(n) {
                let mut c = [0.0f32, 0.0, 0.0, 1.0];
                for (i, v) in c.iter_mut().enumerate().take(ch) {
                    *v = match format.0 {
                        24 => f16_to_f32(u16le(p, i)),
                        25 => u16le(p, i) as f32 / 65535.0,
                        _ => f32::from_le_bytes([p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]]),
                    };
                }
                if ch == 1 {
                    c = [c[0], c[0], c[0], 1.0];
                }
                f.extend_from_slice(&c);
            }
            let rgba = if format.0 == 25 {
                // 16-bit integers: to 8 bits by rounding, not through the floats.
                px(8).flat_map(|p| std::array::from_fn::<u8, 4, _>(|i| ((u16le(p, i) as u32 * 255 + 32767) / 65535) as u8)).collect()
            } else {
                f.iter().map(|&v| unit_to_u8(v)).collect()
            };
            hdr = Some(ImageF32::new(w, h, f)?);
            rgba
        }
        _ => return Err(Error::malformed(format!("VTF image format {} ({}) is not decoded", format.0, format.name()))),
    };
    Ok((ImageRgba::new(w, h, pixels)?, hdr))
}

/// Writes `.vtf` files (PC, 7.0–7.5) for fixtures and tests: no thumbnail, image data given
/// in file order (mips smallest first).
#[derive(Debug, Clone)]
pub struct VtfBuilder {
    pub version_minor: u32,
    pub width: u16,
    pub height: u16,
    pub format: Format,
    pub flags: u32,
    pub frames: u16,
    pub first_frame: u16,
    pub depth: u16,
    pub mips: u8,
}

impl VtfBuilder {
    /// A 7.5 texture with one frame, one slice and one mip.
    pub fn new(format: Format, width: u16, height: u16) -> Self {
        VtfBuilder { version_minor: 5, width, height, format, flags: 0, frames: 1, first_frame: 0, depth: 1, mips: 1 }
    }

    /// Faces per frame this header implies.
    pub fn faces(&self) -> u32 {
        if self.flags & FLAG_ENVMAP == 0 {
            1
        } else if self.version_minor < 5 && self.first_frame != 0xFFFF {
            7
        } else {
            6
        }
    }

    /// Bytes of image data the header calls for.
    pub fn image_size(&self) -> u64 {
        (0..self.mips as u32)
            .map(|m| {
                let s = |v: u16| ((v as u32) >> m).max(1);
                self.format.image_size(s(self.width), s(self.height)).unwrap_or(0)
                    * s(self.depth) as u64
                    * self.frames.max(1) as u64
                    * self.faces() as u64
            })
            .sum()
    }

    /// The file: header (with one image resource from 7.3 on), then `image`.
    pub fn build(&self, image: &[u8]) -> Vec<u8> {
        let v = self.version_minor;
        let header_size: u32 = match v {
            0 | 1 => 64,
            2 => 80,
            _ => 88,
        };
        let mut out = vec![0u8; header_size as usize];
        out[..4].copy_from_slice(b"VTF\0");
        out[4..8].copy_from_slice(&7u32.to_le_bytes());
        out[8..12].copy_from_slice(&v.to_le_bytes());
        out[12..16].copy_from_slice(&header_size.to_le_bytes());
        out[16..18].copy_from_slice(&self.width.to_le_bytes());
        out[18..20].copy_from_slice(&self.height.to_le_bytes());
        out[20..24].copy_from_slice(&self.flags.to_le_bytes());
        out[24..26].copy_from_slice(&self.frames.to_le_bytes());
        out[26..28].copy_from_slice(&self.first_frame.to_le_bytes());
        for (i, r) in [0.5f32, 0.5, 0.5].iter().enumerate() {
            out[32 + 4 * i..36 + 4 * i].copy_from_slice(&r.to_le_bytes());
        }
        out[48..52].copy_from_slice(&1.0f32.to_le_bytes());
        out[52..56].copy_from_slice(&self.format.0.to_le_bytes());
        out[56] = self.mips;
        out[57..61].copy_from_slice(&(-1i32).to_le_bytes());
        if v >= 2 {
            out[63..65].copy_from_slice(&self.depth.to_le_bytes());
        }
        if v >= 3 {
            out[68..72].copy_from_slice(&1u32.to_le_bytes());
            out[80..83].copy_from_slice(&RES_HIGH);
            out[84..88].copy_from_slice(&header_size.to_le_bytes());
        }
        out.extend_from_slice(image);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats() {
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x03FF), 1023.0 * 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7BFF), 65504.0);
        assert!(f16_to_f32(0x7C00).is_infinite());
        assert!(f16_to_f32(0x7E00).is_nan());
        assert_eq!(f16_to_f32(0x8000).to_bits(), 0x8000_0000);
        // Every value against the `half` crate (bit-exact; NaNs only need to stay NaN).
        for h in 0..=u16::MAX {
            let (ours, theirs) = (f16_to_f32(h), half::f16::from_bits(h).to_f32());
            assert!(ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()), "{h:#06x}: {ours} vs {theirs}");
        }
    }

    #[test]
    fn every_format_decodes_a_built_file() {
        for &f in &Format::DECODABLE {
            for minor in [0, 2, 3, 5] {
                let mut b = VtfBuilder::new(f, 8, 4);
                b.version_minor = minor;
                b.mips = 3;
                b.frames = 2;
                let img: Vec<u8> = (0..b.image_size()).map(|i| (i * 37 % 251) as u8).collect();
                let file = b.build(&img);
                let v = Vtf::parse(&file, 1 << 20).unwrap_or_else(|e| panic!("{} 7.{minor}: {e}", f.name()));
                for mip in 0..3 {
                    let (rgba, hdr) = v.decode(1, 0, 0, mip).unwrap();
                    assert_eq!((rgba.width, rgba.height), (8 >> mip, (4 >> mip).max(1)));
                    assert_eq!(hdr.is_some(), f.is_hdr(), "{}", f.name());
                }
                assert!(Vtf::parse(&file[..file.len() - 1], 1 << 20).is_err(), "{} truncated", f.name());
            }
        }
    }

    #[test]
    fn layout_and_pixels() {
        // BGR888 2x2, 2 mips: the smallest mip comes first in the file.
        let mut b = VtfBuilder::new(Format::BGR888, 2, 2);
        b.mips = 2;
        let mut data = vec![9, 8, 7];
        data.extend((0..12).map(|i| i as u8));
        let file = b.build(&data);
        let v = Vtf::parse(&file, 1 << 20).unwrap();
        assert_eq!(v.decode(0, 0, 0, 1).unwrap().0.pixels, vec![7, 8, 9, 255]);
        assert_eq!(v.decode(0, 0, 0, 0).unwrap().0.pixel(1, 0), Some([5, 4, 3, 255]));
        // A cube map before 7.5 has 7 faces unless first_frame is 0xFFFF.
        let mut c = VtfBuilder::new(Format::I8, 1, 1);
        c.flags = FLAG_ENVMAP;
        c.version_minor = 4;
        assert_eq!(c.faces(), 7);
        let file = c.build(&[1, 2, 3, 4, 5, 6, 7]);
        let v = Vtf::parse(&file, 1 << 20).unwrap();
        assert_eq!(v.faces(), 7);
        assert_eq!(v.layers().unwrap().iter().map(|l| l.rgba.pixels[0]).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(v.layers().unwrap()[6].label, "sph");
        // Only six faces' data: read as six.
        assert_eq!(Vtf::parse(&c.build(&[1, 2, 3, 4, 5, 6]), 1 << 20).unwrap().faces(), 6);
    }

    #[test]
    fn dxt_modes() {
        // DXT1 block: c0 = white, c1 = black, 4-colour mode; indices 0,1,2,3 in the first row.
        let blk = [0xFF, 0xFF, 0, 0, 0b1110_0100, 0, 0, 0];
        let (img, _) = decode_image(Format::DXT1, 4, 4, &blk).unwrap();
        assert_eq!(&img.pixels[..16], &[255, 255, 255, 255, 0, 0, 0, 255, 170, 170, 170, 255, 85, 85, 85, 255]);
        // Three-colour mode (c0 <= c1): index 3 is black, transparent only in ONEBITALPHA.
        let blk3 = [0, 0, 0xFF, 0xFF, 0b1100_0000, 0, 0, 0];
        assert_eq!(decode_image(Format::DXT1, 4, 4, &blk3).unwrap().0.pixel(3, 0), Some([0, 0, 0, 255]));
        assert_eq!(decode_image(Format::DXT1_ONEBITALPHA, 4, 4, &blk3).unwrap().0.pixel(3, 0), Some([0, 0, 0, 0]));
        // DXT5 with the same colour half: always four colours (index 3 = 2/3 white).
        let mut blk5 = vec![255, 255, 0, 0, 0, 0, 0, 0];
        blk5.extend_from_slice(&blk3);
        let (img, _) = decode_image(Format::DXT5, 4, 4, &blk5).unwrap();
        assert_eq!(img.pixel(3, 0), Some([170, 170, 170, 255]));
        assert_eq!(img.pixel(0, 0), Some([0, 0, 0, 255]));
        // Equal endpoints: one colour everywhere.
        let mut eq = vec![255; 8];
        eq.extend_from_slice(&[0x1F, 0, 0x1F, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        let (img, _) = decode_image(Format::DXT3, 4, 4, &eq).unwrap();
        assert!(img.pixels.chunks(4).all(|p| p == [0, 0, 255, 255]));
    }

    #[test]
    fn hostile_headers() {
        let mut b = VtfBuilder::new(Format::DXT1, 4, 4);
        b.version_minor = 3;
        let file = b.build(&[0; 8]);
        for cut in 0..file.len() {
            assert!(Vtf::parse(&file[..cut], 1 << 20).is_err());
        }
        let mut huge = file.clone();
        huge[16..20].copy_from_slice(&[0xFF; 4]);
        assert!(Vtf::parse(&huge, 1 << 20).is_err());
        let mut res = file.clone();
        res[68..72].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Vtf::parse(&res, 1 << 20).is_err());
        let mut fmt = file.clone();
        fmt[52..56].copy_from_slice(&99i32.to_le_bytes());
        assert!(Vtf::parse(&fmt, 1 << 20).is_err());
        let mut mips = file.clone();
        mips[56] = 255;
        assert!(Vtf::parse(&mips, 1 << 20).is_err());
    }
}
