//! Call of Duty lightmaps, lump 1 of every branch. Each lightmap is one lit "face" of
//! [`Mapping::Page`] (identity: lump 1, the lightmap's
//! number): triangle soups name their lightmap and draw vertices carry a lightmap coordinate
//! 0..1 over the 512 × 512 page, origin top-left. A soup naming a number past the lump's
//! lightmaps is drawn without one. Call of Duty 1 names none with 0xFFFF (opencod1 reads the
//! word signed and skips negative ones), Call of Duty 2 with 31 (cod2map `EmitTriSoupRecord`
//! writes the surface's `lightStyle`, `LIGHTSTYLE_NONE` = 31, for surfaces without a lightmap),
//! Call of Duty 4 with 31 on the corpus maps; for CoD1 / CoD2, other numbers past the pages are
//! reported in one warning.
//!
//! * Call of Duty 4 (respawn_cod_facts.md §2.2, §2.5): LIGHTBYTES is a run of lightmaps of
//!   0x300000 bytes each (the compiler's `LIGHTMAP_BYTES`, at most 31). Measured on the corpus
//!   maps, each is three images: two 512 × 512 RGBA8 "secondary" images (bsp_tool reads the
//!   lump as 512² RGBA images; their RGB is the baked light, alpha near 128 in lit texels) and
//!   a 1024 × 1024 single-byte "primary" image whose texels are 0 or 255 and cover the same
//!   rectangles at twice the resolution (a sun-visibility mask). The two secondary images are
//!   layers 0 and 1; the mask, at another resolution, is not put in the atlases.
//! * Call of Duty 1 / United Offensive: LIGHTMAPS is a run of 512 × 512 RGB pages, 786,432
//!   bytes each, rows top to bottom (opencod1, PrawyCoD1/opencod1 at 8e6f658,
//!   `renderer/tr_bsp.c`: `R_LoadLightmaps` requires the lump to be 786,432 bytes times the
//!   number of lightmaps the soups name, `R_CopyLightmap` copies 512 rows of 512 three-byte
//!   texels; the soup's lightmap is the signed 16-bit word at +2, negative for none). The
//!   texels are read in place (no copy). Overbright is 2: `R_ColorShiftLightingBytes` shifts
//!   by `1 − overbrightBits` and the hardware gamma ramp doubles again when that is 1, so a
//!   byte 255 is twice the texture's brightness either way.
//! * Call of Duty 2: LIGHTBYTES is a run of lightmaps of 0x400000 bytes (cod2map.exe
//!   reconstruction, riicchhaarrd/cod2map `cod2src/cod2map.h`: `LIGHTMAP_BYTES`,
//!   `LIGHTMAP_SIZE` 512, at most 124), each three 512 × 512 images of 4-byte texels stored
//!   B G R A, then a 1024 × 1024 one-byte sun-visibility image (the browser port
//!   skillman1337/cod2.ts, `browser/decoders/retail-world-stage.ts`: three 0x100000-byte
//!   "channels" swapped from BGRA, a "sunmap" at 0x300000). The three images are layers 0–2
//!   (red, green and blue from bytes 2, 1, 0); the sun image is not put in the atlases. On the
//!   one real map with lighting found (docs/real-maps.md) the rows are 2,048 bytes apart (the
//!   byte difference between texels 2,048 bytes apart is 7.9 on average, 1,024 apart 124) and
//!   every texel is grey, so the channel order is the sources' word only.
//!
//! Overbright is taken as 1 for Call of Duty 2 and 4 (byte 255 = the texture as drawn): the
//! engines' scale is not published.

use std::borrow::Cow;

use super::lumps::{is_cod12, LUMP_LIGHTBYTES};
use super::records12::TriSoup12;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::lighting::{LightSet, Mapping, SampleFormat};

/// Bytes of one CoD4 lightmap.
pub const LIGHTMAP_BYTES: usize = 0x30_0000;
/// Bytes of one Call of Duty 2 lightmap (cod2map `LIGHTMAP_BYTES`).
pub const COD2_LIGHTMAP_BYTES: usize = super::stats12::COD2_LIGHTMAP_BYTES as usize;
/// Bytes of one Call of Duty 1 lightmap: 512 × 512 RGB.
pub const COD1_LIGHTMAP_BYTES: usize = super::lumps::COD1_LIGHTMAP_SIZE;
/// Side of a lightmap page (CoD4's secondary images, CoD1 and CoD2 pages).
pub const PAGE: u32 = 512;
/// Secondary images per CoD4 lightmap.
pub const SECONDARY_IMAGES: u8 = 2;
/// Colour images per Call of Duty 2 lightmap.
pub const COD2_IMAGES: u8 = 3;
/// A Call of Duty 1 soup's lightmap number for "none" (−1 as a signed word).
pub const NO_LIGHTMAP_COD1: u16 = 0xFFFF;
/// A Call of Duty 2 soup's lightmap number for "none" (cod2map `LIGHTSTYLE_NONE`).
pub const NO_LIGHTMAP_COD2: u16 = 31;

/// The lightmaps of a Call of Duty map.
pub fn collect<'a>(bsp: &'a Bsp<'a>) -> Result<LightSet<'a>> {
    let branch = bsp.branch().id;
    let (name, page_bytes) = match branch {
        "cod2" => ("LIGHTBYTES", COD2_LIGHTMAP_BYTES),
        _ if is_cod12(bsp.branch()) => ("LIGHTMAPS", COD1_LIGHTMAP_BYTES),
        _ => ("LIGHTBYTES", LIGHTMAP_BYTES),
    };
    let cod1 = page_bytes == COD1_LIGHTMAP_BYTES;
    let mut set = LightSet {
        data: Cow::Owned(Vec::new()),
        format: Some(SampleFormat::Rgb8),
        source: name.into(),
        source_lump: Some(LUMP_LIGHTBYTES),
        overbright: Some(if cod1 { 2.0 } else { 1.0 }),
        ..Default::default()
    };
    let bytes = bsp.lump(LUMP_LIGHTBYTES)?;
    if bytes.len() % page_bytes != 0 {
        set.warnings.push(format!(
            "{name} is {} bytes, not a whole number of {page_bytes}-byte lightmaps: the last {} bytes are not read",
            bytes.len(),
            bytes.len() % page_bytes
        ));
    }
    let pages = bytes.len() / page_bytes;
    if cod1 {
        // In place: the pages are the samples as stored, one after another.
        set.data = Cow::Borrowed(bytes);
        for i in 0..pages {
            let at = i * page_bytes;
            let page = Mapping::Page { origin: [0, 0], page_size: [PAGE, PAGE] };
            if let Err(e) = set.push_consecutive(LUMP_LIGHTBYTES, i, &[0], at as u64, [PAGE as i64; 2], (1, 0), page, at as i64) {
                set.warnings.push(format!("lightmap {i} ({name} byte {at}): {e}"));
            }
        }
    } else {
        for i in 0..pages {
            let at = i * page_bytes;
            let pushed = if branch == "cod2" {
                set.push_bgra_page(LUMP_LIGHTBYTES, i, bytes, at, [PAGE, PAGE], COD2_IMAGES)
            } else {
                set.push_rgba_page(LUMP_LIGHTBYTES, i, bytes, at, [PAGE, PAGE], SECONDARY_IMAGES)
            };
            if let Err(e) = pushed {
                set.warnings.push(format!("lightmap {i} ({name} byte {at}): {e}"));
            }
        }
    }
    // With no page at all, `lightmap::collect` says the lump is empty instead.
    if is_cod12(bsp.branch()) && pages > 0 {
        if let Some(w) = soups_past_the_pages(bsp, name, pages) {
            set.warnings.push(w);
        }
    }
    Ok(set)
}

/// One line naming the soups whose lightmap number lies past the lump's `pages` (they are drawn
/// without a lightmap), leaving out the branch's "none" ([`NO_LIGHTMAP_COD1`],
/// [`NO_LIGHTMAP_COD2`]); `None` when there are none.
fn soups_past_the_pages(bsp: &Bsp, name: &str, pages: usize) -> Option<String> {
    use super::lumps::{cod1_ids, cod2_ids};
    let cod2 = bsp.branch().id == "cod2";
    let lump = if cod2 { cod2_ids::TRIANGLES } else { cod1_ids::TRIANGLESOUPS };
    // A soups lump that does not read is reported by `check` and by the scene.
    let soups: &[TriSoup12] = bsp.records(lump).ok()?;
    let mut past: std::collections::BTreeMap<u16, usize> = Default::default();
    let none = if cod2 { NO_LIGHTMAP_COD2 } else { NO_LIGHTMAP_COD1 };
    for s in soups.iter().map(|s| s.lightmap.get()).filter(|&l| l != none && l as usize >= pages) {
        *past.entry(s).or_default() += 1;
    }
    if past.is_empty() {
        return None;
    }
    let list: Vec<String> = past.iter().map(|(l, n)| format!("{l} ({n} soups)")).collect();
    Some(format!("soups name lightmaps past the {pages} lightmap(s) of {name}: {}; they are drawn without a lightmap", list.join(", ")))
}
