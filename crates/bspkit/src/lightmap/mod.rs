//! Baked lightmaps of every family as atlases, with the mapping from a face's positions to
//! atlas coordinates (the second UV set of an exported mesh).
//!
//! [`build`] reads the map's lighting through its family's `lighting` module (called through
//! the family's [`crate::branches::ops::FamilyOps`] value in [`collect`]), packs each lit face's luxel rectangle into pages with a
//! border of [`PADDING`] texels (copies of the face's edge texels, so filtering never mixes two
//! faces) and copies the samples in. Every light style (and, for Source bump-mapped faces,
//! every bump layer) gets its own set of pages with the **same layout**, so one UV set serves
//! them all: [`Lightmaps::atlas`] gives the image of one `(page, style, layer)`.
//!
//! ```
//! # fn main() -> bspkit::Result<()> {
//! let bytes = bspkit::build::sample_quake1();
//! let bsp = bspkit::Bsp::from_bytes(&bytes)?;
//! let lm = bspkit::lightmap::build(&bsp, &Default::default())?;
//! for face in &lm.faces {
//!     // The UV of a corner of the face, in the atlas of its page.
//!     let _uv = lm.uv(face, [0.0, 0.0, 0.0]);
//!     assert!(lm.atlas(face.page, 0, 0).is_some());
//! }
//! # Ok(()) }
//! ```
//!
//! # UVs for an exporter
//! For face `index` of lump `lump` (the identity the mesh scene's face spans carry),
//! [`Lightmaps::face`] gives its [`FaceEntry`] (page, rectangle, styles). Then, per vertex:
//! * Quake 1, GoldSrc, Quake 2, Source polygons, Genesis3D: [`Lightmaps::uv`] of the vertex's
//!   position (game units, map space; Genesis3D: the scene's Z-up frame).
//! * Quake 3 (all surface types): [`Lightmaps::uv_native`] of the draw vertex's own lightmap
//!   coordinate (page-relative 0..1; RBSP: style 0's).
//! * Respawn (Titanfall, Titanfall 2) and Call of Duty (1, United Offensive, 2, 4): each
//!   lightmap page of the map is one entry (lump 0x53 / lump 1, the page's number: what a
//!   material sort / soup names), and
//!   [`Lightmaps::uv_native`] maps the lit vertex's stored page coordinate.
//! * Source displacements: [`Lightmaps::uv_grid`] of the vertex's place in the displacement
//!   grid — for a grid of side `n` with vertex `k = row × n + column` (rows from the corner
//!   nearest the start position towards its next corner, columns towards the one before it),
//!   pass `[column / (n − 1), row / (n − 1)]`.
//!
//! UVs are 0..1 over the page, origin top-left (glTF's convention), pointing at luxel centres.
//!
//! # Samples
//! Atlases keep the samples as stored ([`SampleFormat::atlas_form`]): 8-bit RGB (Quake 1 grey
//! widened), `ColorRGBExp32` or E5BGR9 words. [`Atlas::rgb8`] gives 8-bit pixels for a PNG
//! (8-bit sources unchanged; float sources encoded so that a byte `b` means the gamma-space
//! multiplier `b / 128`), [`Atlas::stored`] the exact values as floats, and
//! [`crate::lumps::lighting`] documents the conversion to linear light.

pub mod atlas;
pub mod maps;

use crate::branch::Family;
use crate::branches::any;
use crate::bsp::Bsp;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::lighting::{extend_zeroed, LightSet, GAMMA};
pub use crate::lumps::lighting::{LightOptions, Mapping, SampleFormat};
pub use maps::{encode_png, Atlas, FaceEntry, Lightmaps, PLACEHOLDER_MAX, PNG_OVERBRIGHT};

/// Texels of border around every face's rectangle.
pub const PADDING: u32 = 1;
/// Largest page side.
pub const MAX_PAGE: u32 = 4096;
/// Most bytes all atlases of a map may take together.
pub const MAX_ATLAS_BYTES: u64 = 1 << 30;

/// The lit faces of `bsp` and their samples, from the family's `lighting` module. A map whose
/// lighting data is empty (unlit, or Quake 3 with external lightmap images, which are not read)
/// gives no faces and one warning saying so.
pub fn collect<'a>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    let mut set = collect_family(bsp, opts)?;
    if set.format.is_some() && set.data.is_empty() {
        let lit = set.faces.len() + set.warnings.iter().filter(|w| w.starts_with("face ") || w.starts_with("surface ")).count();
        set.warnings.retain(|w| !w.starts_with("face ") && !w.starts_with("surface "));
        set.warnings.push(format!("{} is empty: the map has no baked lighting ({lit} faces name a lightmap)", set.source));
        set.faces.clear();
        set.slots.clear();
    }
    Ok(set)
}

fn collect_family<'a>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    any::of(bsp.family()).lighting(bsp, opts)
}

/// Read `bsp`'s lightmaps and pack them into atlases.
pub fn build(bsp: &Bsp, opts: &LightOptions) -> Result<Lightmaps> {
    build_with(bsp, opts, AtlasOptions::ALL)
}

/// Read `bsp`'s lightmaps and pack them into atlases, filling only the images `want` asks
/// for (the layout, and so every UV, is the same whatever is selected).
pub fn build_with(bsp: &Bsp, opts: &LightOptions, want: AtlasOptions) -> Result<Lightmaps> {
    let set = collect(bsp, opts)?;
    pack_limited(bsp.family(), set, want, opts.max_atlas_pixels)
}

/// Which images of a page [`build_with`] and [`pack_with`] fill, and in what form. An
/// exporter that shows one image per page asks for [`AtlasOptions::BASE`] and saves the memory
/// and the copying of the rest (a Quake map with switchable lights has one more atlas per
/// light style; grey samples take a third of the bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtlasOptions {
    /// Every light style; `false`: style 0 only (a page none of whose faces has style 0 gets
    /// its lowest style instead, so every page still has an image).
    pub styles: bool,
    /// Every layer (Source bump-mapped faces' three bump directions); `false`: layer 0 only.
    pub layers: bool,
    /// Keep grey samples (Quake 1's `LIGHTING`) grey: atlases of [`SampleFormat::Grey8`], one
    /// byte a texel, instead of widened to RGB.
    pub grey: bool,
}

impl AtlasOptions {
    /// Every style and every layer ([`build`]).
    pub const ALL: AtlasOptions = AtlasOptions { styles: true, layers: true, grey: false };
    /// One image per page (style 0, layer 0), grey samples kept grey.
    pub const BASE: AtlasOptions = AtlasOptions { styles: false, layers: false, grey: true };
}

impl Default for AtlasOptions {
    fn default() -> Self {
        AtlasOptions::ALL
    }
}

/// Pack a collected [`LightSet`] into atlases.
pub fn pack(family: Family, set: LightSet) -> Result<Lightmaps> {
    pack_with(family, set, AtlasOptions::ALL)
}

/// [`pack`], filling only the images `want` asks for.
pub fn pack_with(family: Family, set: LightSet, want: AtlasOptions) -> Result<Lightmaps> {
    pack_limited(family, set, want, crate::lumps::lighting::DEFAULT_MAX_ATLAS_PIXELS)
}

/// What [`LightOptions::max_atlas_pixels`] is called in its error: the option and the flag.
pub const ATLAS_PIXELS: &str = "lightmap atlas pixels (LightOptions::max_atlas_pixels, --max-atlas-pixels)";

/// [`pack_with`] with at most `max_pixels` atlas pixels over every page, style and layer.
pub fn pack_limited(family: Family, set: LightSet, want: AtlasOptions, max_pixels: u64) -> Result<Lightmaps> {
    let sizes: Vec<[u32; 2]> = set.faces.iter().map(|f| [f.width, f.height]).collect();
    let layout = atlas::pack(&sizes, PADDING, MAX_PAGE);
    let mut lm = Lightmaps {
        family,
        source: set.source.clone(),
        source_lump: set.source_lump,
        format: set.format,
        overbright: set.overbright,
        pages: layout.pages.clone(),
        atlases: Vec::new(),
        faces: Vec::with_capacity(set.faces.len()),
        warnings: set.warnings.clone(),
    };
    let Some(format) = set.format else { return Ok(lm) };
    let form = if want.grey && format == SampleFormat::Grey8 { format } else { format.atlas_form() };
    // Which (style, layer, page) images are needed, and their total size, before allocating.
    let mut keys: Vec<(u8, u8, u32)> = Vec::new();
    for (f, p) in set.faces.iter().zip(&layout.placements) {
        for s in &set.slots[f.slot_range()] {
            keys.extend((0..f.layers).map(|l| (s.style, l, p.page)));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    if !want.layers {
        keys.retain(|k| k.1 == 0);
    }
    if !want.styles {
        // Per page, style 0 or else the lowest style it has (keys are sorted by style first).
        let mut base: Vec<Option<u8>> = vec![None; layout.pages.len()];
        for k in &keys {
            let b = &mut base[k.2 as usize];
            if b.is_none() {
                *b = Some(k.0);
            }
        }
        keys.retain(|k| base[k.2 as usize] == Some(k.0));
    }
    let pixels: u64 = keys.iter().map(|k| layout.pages[k.2 as usize]).map(|[w, h]| w as u64 * h as u64).sum();
    if pixels > max_pixels {
        return Err(Error::new(ErrorKind::LimitExceeded { what: ATLAS_PIXELS, requested: pixels, limit: max_pixels }));
    }
    let bytes = pixels * form.bytes() as u64;
    if bytes > MAX_ATLAS_BYTES {
        return Err(Error::new(ErrorKind::LimitExceeded { what: "lightmap atlas bytes", requested: bytes, limit: MAX_ATLAS_BYTES }));
    }
    lm.atlases = keys
        .iter()
        .map(|&(style, layer, page)| {
            let [width, height] = layout.pages[page as usize];
            // Fallible: a refused allocation is an error, not an abort.
            let n = width as usize * height as usize * form.bytes();
            let mut texels = Vec::new();
            texels.try_reserve_exact(n).map_err(|_| Error::new(ErrorKind::OutOfMemory { what: "lightmap atlases", bytes: n as u64 }))?;
            // Zeros copied in blocks: `resize` is a call per byte in an unoptimised build.
            extend_zeroed(&mut texels, n);
            Ok(Atlas { page, style, layer, width, height, format: form, texels })
        })
        .collect::<Result<_>>()?;
    let find = |k: (u8, u8, u32)| keys.binary_search(&k).ok();
    for (f, p) in set.faces.iter().zip(&layout.placements) {
        let mut styles = [255u8; 8];
        let mut offsets = [0u64; 8];
        for (k, s) in set.slots[f.slot_range()].iter().enumerate().take(8) {
            styles[k] = s.style;
            offsets[k] = s.offset as u64;
            for layer in 0..f.layers {
                let Some(a) = find((s.style, layer, p.page)) else { continue };
                let src = s.offset + layer as usize * f.layer_step;
                blit(&mut lm.atlases[a], p, f.width, f.height, &set.data[src..], f.stride, format);
            }
        }
        lm.faces.push(FaceEntry {
            lump: f.lump,
            index: f.index,
            page: p.page,
            x: p.x,
            y: p.y,
            width: f.width,
            height: f.height,
            layers: f.layers,
            styles,
            num_styles: f.slots.1.min(8),
            source_offset: f.source_offset,
            offsets,
            mapping: f.mapping,
        });
    }
    // In place: (lump, index) is unique per face, and a stable sort would allocate a copy of
    // the entries (the largest buffer of the lightmap build on maps with many faces).
    lm.faces.sort_unstable_by_key(|f| (f.lump, f.index));
    Ok(lm)
}

/// Copy a `w × h` face from `src` (rows `stride` bytes apart) to its place in `a`, repeating its
/// edge texels into the padding. Row by row: the face's row, then its end texels outwards.
fn blit(a: &mut Atlas, p: &atlas::Placement, w: u32, h: u32, src: &[u8], stride: usize, format: SampleFormat) {
    let (sb, db) = (format.bytes(), a.format.bytes());
    let (w, pad) = (w as usize, PADDING as usize);
    let row_bytes = (w + 2 * pad) * db;
    for yy in 0..h as usize + 2 * pad {
        let sy = yy.saturating_sub(pad).min(h as usize - 1);
        let from = &src[sy * stride..sy * stride + w * sb];
        let start = ((p.y as usize + yy - pad) * a.width as usize + p.x as usize - pad) * db;
        let row = &mut a.texels[start..start + row_bytes];
        let (left, rest) = row.split_at_mut(pad * db);
        let (mid, right) = rest.split_at_mut(w * db);
        if sb == db {
            mid.copy_from_slice(from);
        } else {
            // Grey widened to RGB: three stores a texel (`fill` on a 3-byte slice was a call).
            for (d, &s) in mid.chunks_exact_mut(3).zip(from) {
                d[0] = s;
                d[1] = s;
                d[2] = s;
            }
        }
        let mut edge = [0u8; 4];
        edge[..db].copy_from_slice(&mid[..db]);
        left.chunks_exact_mut(db).for_each(|d| d.copy_from_slice(&edge[..db]));
        edge[..db].copy_from_slice(&mid[mid.len() - db..]);
        right.chunks_exact_mut(db).for_each(|d| d.copy_from_slice(&edge[..db]));
    }
}

/// One lightmap page image (one style, layer 0) as 8-bit RGB, read bilinearly.
pub struct LightPage<'a> {
    pub w: u32,
    pub h: u32,
    pub rgb: std::borrow::Cow<'a, [u8]>,
}

impl LightPage<'_> {
    /// The bytes at UV (`u`, `v`) (0..1 over the page, top-left origin, texel centres at
    /// (i + ½) / size), bilinear, clamped to the page.
    pub fn sample(&self, u: f32, v: f32) -> [f32; 3] {
        let (w, h) = (self.w as usize, self.h as usize);
        if w == 0 || h == 0 || self.rgb.len() < w * h * 3 {
            return [0.0; 3];
        }
        let fx = (u * self.w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
        let fy = (v * self.h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
        let (fx, fy) = if fx.is_finite() && fy.is_finite() { (fx, fy) } else { (0.0, 0.0) };
        let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        // The four texels' offsets found once and the channels by an index loop (not a closure
        // and `from_fn` per channel): this runs per pixel, and those were most of it in
        // unoptimised (test) builds. The same arithmetic in the same order.
        let rgb: &[u8] = &self.rgb;
        let (i00, i10, i01, i11) = ((y0 * w + x0) * 3, (y0 * w + x1) * 3, (y1 * w + x0) * 3, (y1 * w + x1) * 3);
        let mut out = [0.0f32; 3];
        let mut k = 0;
        while k < 3 {
            let top = rgb[i00 + k] as f32 * (1.0 - tx) + rgb[i10 + k] as f32 * tx;
            let bottom = rgb[i01 + k] as f32 * (1.0 - tx) + rgb[i11 + k] as f32 * tx;
            out[k] = top * (1.0 - ty) + bottom * ty;
            k += 1;
        }
        out
    }
}

/// The JSON manifest of `lm` (`bsp lightmaps`' `lightmaps.json` without its `path` and
/// `branch`, and `bsp export --hdr`'s; README documents the schema): the source, the pages,
/// each atlas with the files written for it (`files[i]` = (PNG, HDR side file) of
/// `lm.atlases[i]`), every face's rectangle, styles and sample offsets.
pub fn manifest(lm: &Lightmaps, files: &[(Option<String>, Option<String>)]) -> serde_json::Value {
    use serde_json::json;
    json!({
        "family": lm.family.as_str(),
        "source": {"name": lm.source, "lump": lm.source_lump, "format": lm.format.map(|f| f.name())},
        "overbright": lm.overbright,
        "png_overbright": lm.png_overbright(),
        "gamma": GAMMA,
        "padding": PADDING,
        "pages": lm.pages.iter().enumerate().map(|(i, p)| json!({"page": i, "width": p[0], "height": p[1]})).collect::<Vec<_>>(),
        "atlases": lm.atlases.iter().zip(files).map(|(a, (png, hdr))| {
            json!({"page": a.page, "style": a.style, "layer": a.layer, "png": png, "hdr": hdr})
        }).collect::<Vec<_>>(),
        "faces": lm.faces.iter().map(|f| json!({
            "lump": f.lump, "index": f.index, "page": f.page, "x": f.x, "y": f.y, "width": f.width, "height": f.height,
            "layers": f.layers, "styles": f.styles(), "offsets": f.sample_offsets(), "source_offset": f.source_offset,
        })).collect::<Vec<_>>(),
        "warnings": lm.warnings,
    })
}

/// An atlas as a Portable Float Map (`PF`, little-endian, rows bottom to top) of its stored
/// values ([`Atlas::stored`]): lossless for 8-bit samples, for E5BGR9 and for every
/// `ColorRGBExp32` whose value fits in `f32` (exponent ≤ 120; larger ones, which no compiler
/// writes, become infinite).
pub fn encode_pfm(a: &Atlas) -> Vec<u8> {
    let mut out = format!("PF\n{} {}\n-1.0\n", a.width, a.height).into_bytes();
    out.reserve(a.width as usize * a.height as usize * 12);
    for y in (0..a.height).rev() {
        for x in 0..a.width {
            for c in a.stored(x, y) {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::maps::rgb8_of;
    use super::*;
    use crate::lumps::lighting::stored;

    /// `max_byte` and the placeholder test's early stop agree with the iterator's maximum over
    /// the first layers (the form before), per page and for all pages, on atlases whose bytes
    /// stay at or below the placeholder bound, pass it, or reach 255, in 8-bit and RGBExp32 form.
    #[test]
    fn max_byte_is_the_largest_first_layer_byte() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |top: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % (top as u64 + 1)) as u8
        };
        for case in 0..60u32 {
            let top = [0, 3, PLACEHOLDER_MAX as u32, PLACEHOLDER_MAX as u32 + 1, 40, 255][case as usize % 6];
            let format = if case % 4 == 3 { SampleFormat::RgbExp32 } else { SampleFormat::Rgb8 };
            let atlases: Vec<Atlas> = (0..1 + case % 5)
                .map(|k| {
                    let (width, height) = (1 + k % 3, 2 + case % 4);
                    let texels = (0..width * height * format.bytes() as u32).map(|_| next(top)).collect();
                    Atlas { page: k % 2, style: (k / 2) as u8, layer: (k % 3 == 2) as u8, width, height, format, texels }
                })
                .collect();
            let lm = Lightmaps {
                family: crate::Family::Quake,
                source: String::new(),
                source_lump: None,
                format: Some(format),
                overbright: None,
                pages: vec![[4, 4]; 2],
                atlases,
                faces: Vec::new(),
                warnings: Vec::new(),
            };
            for page in [None, Some(0), Some(1), Some(7)] {
                let first = lm.atlases.iter().filter(|a| a.layer == 0 && page.map_or(true, |p| a.page == p));
                let want = first.map(|a| a.rgb8().iter().copied().max().unwrap_or(0)).max().unwrap_or(0);
                assert_eq!(lm.max_byte(page), want, "case {case}, page {page:?}");
                let past = lm.max_byte_past(page, PLACEHOLDER_MAX);
                assert_eq!(past <= PLACEHOLDER_MAX, want <= PLACEHOLDER_MAX, "case {case}, page {page:?}");
            }
        }
    }

    #[test]
    fn rgbexp32_tables_give_the_direct_bytes() {
        // Every exponent, every component byte in every channel.
        let mut texels = Vec::new();
        for e in 0..=255u8 {
            for m in 0..=255u8 {
                texels.extend_from_slice(&[m, 255 - m, m / 2 + 64, e]);
            }
        }
        let a = Atlas { page: 0, style: 0, layer: 0, width: 256, height: 256, format: SampleFormat::RgbExp32, texels };
        let rgb = a.rgb8();
        for (k, s) in a.texels.chunks_exact(4).enumerate() {
            let want = stored(SampleFormat::RgbExp32, s).map(|v| rgb8_of(SampleFormat::RgbExp32, v));
            assert_eq!(&rgb[k * 3..k * 3 + 3], &want, "texel {s:?}");
        }
    }

    #[test]
    fn float_sources_encode_128_as_full_brightness() {
        let a = Atlas {
            page: 0,
            style: 0,
            layer: 0,
            width: 2,
            height: 1,
            format: SampleFormat::RgbExp32,
            texels: vec![255, 255, 255, 1, 0, 0, 0, 0],
        };
        let rgb = a.rgb8();
        assert_eq!(&rgb[..3], &[(2f32.powf(1.0 / GAMMA) * 128.0).round() as u8; 3]);
        assert_eq!(&rgb[3..], &[0, 0, 0]);
        let pfm = encode_pfm(&a);
        assert!(pfm.starts_with(b"PF\n2 1\n-1.0\n"));
        assert_eq!(pfm.len(), 12 + 2 * 12);
    }
}
