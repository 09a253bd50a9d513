//! The packed lightmaps' types: [`Lightmaps`], its [`FaceEntry`] per lit face and [`Atlas`] per
//! image, with the UV mapping. Apart from the packing in the parent module so that a family's
//! scene builder can take a `Lightmaps` without importing the module that dispatches to the
//! families ([`crate::branches::ops`]: no import cycle).

use crate::branch::Family;
use crate::error::Result;
use crate::lumps::lighting::{stored, to_linear, Mapping, SampleFormat, GAMMA};

/// The gamma-space multiplier of byte 255 in [`Atlas::rgb8`] pixels of float sources: 128 is
/// full brightness, as in Quake.
pub const PNG_OVERBRIGHT: f32 = 255.0 / 128.0;

/// Largest [`Atlas::rgb8`] byte of lightmaps that are black everywhere (about 3 % of full
/// brightness): [`Lightmaps::is_placeholder`].
pub const PLACEHOLDER_MAX: u8 = 8;

/// One lit face's place in the atlases.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceEntry {
    /// Lump and record index of the face (Quake 3: the surfaces lump).
    pub lump: u16,
    pub index: u32,
    pub page: u32,
    /// The face's luxels start at texel (`x`, `y`) of the page (the padding lies around them).
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// 1, or 4 for Source bump-mapped faces (flat, then the three bump directions).
    pub layers: u8,
    pub(super) styles: [u8; 8],
    pub(super) num_styles: u8,
    /// The face's lighting offset as stored (Quake 3: its page number).
    pub source_offset: i64,
    /// Byte offset of each style's first sample in the lighting data (same order as
    /// [`FaceEntry::styles`]).
    pub(super) offsets: [u64; 8],
    pub mapping: Mapping,
}

impl FaceEntry {
    /// The light styles this face has, in stored order.
    pub fn styles(&self) -> &[u8] {
        &self.styles[..self.num_styles as usize]
    }
    /// Byte offsets of each style's samples in the lighting data (see [`Lightmaps::source`]).
    pub fn sample_offsets(&self) -> &[u64] {
        &self.offsets[..self.num_styles as usize]
    }
}

/// The image of one page for one light style and layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Atlas {
    pub page: u32,
    pub style: u8,
    pub layer: u8,
    pub width: u32,
    pub height: u32,
    /// [`SampleFormat::Rgb8`], [`SampleFormat::RgbExp32`] or [`SampleFormat::E5bgr9`]
    /// ([`SampleFormat::Grey8`] when [`AtlasOptions::grey`](super::AtlasOptions::grey) asks for it).
    pub format: SampleFormat,
    /// Row-major texels, [`SampleFormat::bytes`] each; texels no face covers are zero.
    pub texels: Vec<u8>,
}

impl Atlas {
    /// The file name of this image without its extension, `lightmap_p{page}_s{style}_l{layer}`:
    /// what `bsp lightmaps` writes, and `bsp export --hdr` after the output's stem.
    pub fn file_stem(&self) -> String {
        format!("lightmap_p{}_s{}_l{}", self.page, self.style, self.layer)
    }
    /// The stored bytes of texel (`x`, `y`).
    pub fn texel(&self, x: u32, y: u32) -> &[u8] {
        let b = self.format.bytes();
        let at = (y as usize * self.width as usize + x as usize) * b;
        &self.texels[at..at + b]
    }
    /// Texel (`x`, `y`) as stored values ([`crate::lumps::lighting::stored`]): 8-bit as
    /// `byte / 255`, float formats decoded exactly.
    pub fn stored(&self, x: u32, y: u32) -> [f32; 3] {
        stored(self.format, self.texel(x, y))
    }
    /// 8-bit RGB pixels for an image: 8-bit samples as they are; `ColorRGBExp32` as
    /// `round(128 × (value / 255)^(1/2.2))`; E5BGR9 as `round(255 × value)` (its 8-bit scale), clamped.
    pub fn rgb8(&self) -> std::borrow::Cow<'_, [u8]> {
        match self.format {
            SampleFormat::Rgb8 => std::borrow::Cow::Borrowed(&self.texels),
            SampleFormat::Grey8 => self.texels.iter().flat_map(|&v| [v; 3]).collect(),
            SampleFormat::RgbExp32 => {
                // A component's pixel depends only on its byte and the shared exponent: one
                // table of 256 results per exponent met (a handful per map), not a `powf` per
                // component. Same arithmetic as below, so the same bytes.
                let mut tables: Vec<Option<Box<[u8; 256]>>> = vec![None; 256];
                let mut out = Vec::with_capacity(self.texels.len() / 4 * 3);
                for s in self.texels.chunks_exact(4) {
                    let t = tables[s[3] as usize].get_or_insert_with(|| {
                        Box::new(std::array::from_fn(|m| {
                            rgb8_of(SampleFormat::RgbExp32, stored(SampleFormat::RgbExp32, &[m as u8, 0, 0, s[3]])[0])
                        }))
                    });
                    out.extend_from_slice(&[t[s[0] as usize], t[s[1] as usize], t[s[2] as usize]]);
                }
                std::borrow::Cow::Owned(out)
            }
            f => self.texels.chunks_exact(f.bytes()).flat_map(|s| stored(f, s).map(|v| rgb8_of(f, v))).collect(),
        }
    }
}

/// The [`Atlas::rgb8`] byte of stored value `v` of a float format.
pub(super) fn rgb8_of(f: SampleFormat, v: f32) -> u8 {
    let g = match f {
        SampleFormat::RgbExp32 => (v / 255.0).max(0.0).powf(1.0 / GAMMA) * (255.0 / PNG_OVERBRIGHT),
        _ => v * 255.0,
    };
    if g.is_nan() {
        0
    } else {
        g.round().clamp(0.0, 255.0) as u8
    }
}

/// A map's lightmaps packed into atlases.
#[derive(Debug, Clone)]
pub struct Lightmaps {
    pub family: Family,
    /// Where the samples came from (`"LIGHTING"`, `"BSPX RGBLIGHTING"`, `"e1m1.lit"`, …).
    pub source: String,
    /// Its lump index when it is a lump of the map.
    pub source_lump: Option<usize>,
    /// The samples' stored form.
    pub format: Option<SampleFormat>,
    /// The gamma-space multiplier of a stored 1.0 (`None`: samples are linear, Source).
    pub overbright: Option<f32>,
    /// Width and height of each page.
    pub pages: Vec<[u32; 2]>,
    /// One per page, style and layer in use, sorted by (style, layer, page).
    pub atlases: Vec<Atlas>,
    /// Lit faces, sorted by (lump, index).
    pub faces: Vec<FaceEntry>,
    /// Faces left out and why, and notes on the choice of samples.
    pub warnings: Vec<String>,
}

impl Lightmaps {
    /// The entry of face `index` of lump `lump`; `None` when the face has no lightmap. For
    /// Source, lumps 7 (faces) and 58 (HDR faces) name the same faces.
    pub fn face(&self, lump: u16, index: u32) -> Option<&FaceEntry> {
        let source_faces = |l: u16| self.family == Family::Source && (l == 7 || l == 58);
        let exact = |lump: u16| {
            let i = self.faces.partition_point(|f| (f.lump, f.index) < (lump, index));
            self.faces.get(i).filter(|f| f.lump == lump && f.index == index)
        };
        match exact(lump) {
            Some(f) => Some(f),
            // The other Source face lump (LDR 7 / HDR 58), lump 7 first as the faces are sorted;
            // each a binary search, so a map of many unlit faces stays linear.
            None if source_faces(lump) => exact(7).or_else(|| exact(58)),
            None => None,
        }
    }
    /// The image of `page` for light style `style` and layer `layer`.
    pub fn atlas(&self, page: u32, style: u8, layer: u8) -> Option<&Atlas> {
        self.atlases.iter().find(|a| a.page == page && a.style == style && a.layer == layer)
    }
    /// The largest [`Atlas::rgb8`] byte of the first layer (every style) of `page`, or of every
    /// page with `None`; 0 without atlases.
    pub fn max_byte(&self, page: Option<u32>) -> u8 {
        self.max_byte_past(page, u8::MAX)
    }
    /// [`Lightmaps::max_byte`], except that it stops at the first byte above `stop` (and returns
    /// it): the same answer to "is the largest byte above `stop`?", without reading (or
    /// converting) the rest. With `stop` 255 it is the largest byte. Index loops: an unoptimised
    /// (test) build ran the iterator's `max` as calls per byte (a fifth of the garbled-export
    /// test's CPU).
    pub(crate) fn max_byte_past(&self, page: Option<u32>, stop: u8) -> u8 {
        let mut max = 0u8;
        for a in self.atlases.iter().filter(|a| a.layer == 0 && page.map_or(true, |p| a.page == p)) {
            let bytes = a.rgb8();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] > max {
                    max = bytes[i];
                    if max > stop || max == u8::MAX {
                        return max;
                    }
                }
                i += 1;
            }
        }
        max
    }
    /// Are these lightmaps black placeholders: faces are lit, yet no texel of the first layer
    /// of any page and style is above [`PLACEHOLDER_MAX`]? Compilers that do not bake
    /// (MRVN-Radiant's Titanfall 2 maps, CoD4 `mp_lobby`) or bake without lights (VRAD's "0
    /// direct lights") store such pages; drawn with them every lit face would be black, so
    /// `bsp render`, the export's flag ([`crate::export`]: summary and material extras
    /// `lightmap_placeholder`), `bsp view` and the Blender add-on all show the map unlit
    /// (shaded from its normals) instead. One rule for the whole map, not per page: a single
    /// dark page of a lit map is dark on purpose.
    pub fn is_placeholder(&self) -> bool {
        !self.faces.is_empty() && self.max_byte_past(None, PLACEHOLDER_MAX) <= PLACEHOLDER_MAX
    }
    /// The distinct light styles, ascending.
    pub fn styles(&self) -> Vec<u8> {
        let mut s: Vec<u8> = self.atlases.iter().map(|a| a.style).collect();
        s.dedup();
        s
    }
    fn to_uv(&self, f: &FaceEntry, luxel: [f64; 2]) -> [f32; 2] {
        let [w, h] = self.pages.get(f.page as usize).copied().unwrap_or([1, 1]);
        [((f.x as f64 + luxel[0] + 0.5) / w as f64) as f32, ((f.y as f64 + luxel[1] + 0.5) / h as f64) as f32]
    }
    /// The atlas UV (0..1 over the face's page) of world position `pos` (game units) on face
    /// `f`; `None` for Quake 3 faces, whose UVs come from [`Lightmaps::uv_native`].
    pub fn uv(&self, f: &FaceEntry, pos: [f32; 3]) -> Option<[f32; 2]> {
        let Mapping::Planar { s, t } = &f.mapping else { return None };
        let p = pos.map(|c| c as f64);
        let dot = |r: &[f64; 4]| r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + r[3];
        Some(self.to_uv(f, [dot(s), dot(t)]))
    }
    /// The atlas UV of a draw vertex's own lightmap coordinate `st` (0..1 over its page: Quake
    /// 3, Respawn, Call of Duty 4); `None` for faces of [`Mapping::Planar`].
    pub fn uv_native(&self, f: &FaceEntry, st: [f32; 2]) -> Option<[f32; 2]> {
        let Mapping::Page { origin, page_size } = f.mapping else { return None };
        // Page texel coordinates are centre-based: texel i spans i .. i + 1, so subtract ½.
        let at = |k: usize| st[k] as f64 * page_size[k] as f64 - origin[k] as f64 - 0.5;
        Some(self.to_uv(f, [at(0), at(1)]))
    }
    /// The atlas UV of the point `grid` (fractions 0..1 across and down) of the face's luxel
    /// rectangle, corner luxel centre to corner luxel centre: Source displacements (module
    /// documentation).
    pub fn uv_grid(&self, f: &FaceEntry, grid: [f32; 2]) -> [f32; 2] {
        let span = |k: usize, n: u32| grid[k] as f64 * (n.max(1) - 1) as f64;
        self.to_uv(f, [span(0, f.width), span(1, f.height)])
    }
    /// Linear light of texel (`x`, `y`) of `a` ([`crate::lumps::lighting::to_linear`]).
    pub fn linear(&self, a: &Atlas, x: u32, y: u32) -> [f32; 3] {
        to_linear(a.format, self.overbright, a.texel(x, y))
    }
    /// PNG of atlas `a`: 8-bit greyscale when the map's samples are grey (Quake 1's
    /// `LIGHTING`: the same pixels, a third of the bytes to filter and compress), else
    /// [`Atlas::rgb8`] as RGB.
    pub fn atlas_png(&self, a: &Atlas) -> Result<Vec<u8>> {
        if a.format == SampleFormat::Grey8 {
            return crate::assets::image::encode_png(a.width, a.height, png::ColorType::Grayscale, &a.texels);
        }
        if self.format == Some(SampleFormat::Grey8) && a.format == SampleFormat::Rgb8 {
            let grey: Vec<u8> = a.texels.iter().step_by(3).copied().collect();
            return crate::assets::image::encode_png(a.width, a.height, png::ColorType::Grayscale, &grey);
        }
        encode_png(a.width, a.height, &a.rgb8())
    }
    /// The gamma-space multiplier of byte 255 in [`Atlas::rgb8`] images.
    pub fn png_overbright(&self) -> f32 {
        match self.format {
            Some(SampleFormat::RgbExp32) | None => PNG_OVERBRIGHT,
            _ => self.overbright.unwrap_or(PNG_OVERBRIGHT),
        }
    }
}

/// Encode 8-bit RGB pixels as a PNG ([`crate::assets::image::encode_png`]: fast compression).
pub fn encode_png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>> {
    crate::assets::image::encode_png(width, height, png::ColorType::Rgb, rgb)
}
