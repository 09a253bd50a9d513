//! Respawn lightmaps (respawn_cod_facts.md §1.8): LIGHTMAP_HEADERS (0x53) names pages of
//! `width × height` texels; for each page in turn, LIGHTMAP_DATA_SKY (0x62) holds two 4-byte
//! images of that size, one after the other, "sky A" then "sky B" (the split bsp_tool's and
//! SourceIO's readers use; the Titanfall 2 corpus lumps are exactly `Σ width × height × 8`
//! bytes). Lit vertices (LIT_FLAT, LIT_BUMP) carry a lightmap coordinate that is 0..1 over their
//! material sort's page, origin top-left, so each page is one lit "face" of [`Mapping::Page`](crate::lumps::lighting::Mapping::Page)
//! (identity: lump 0x53, the header's index), sky A its layer 0 and sky B its layer 1.
//!
//! Apex Legends (v47–52) keeps the layout for pages of texel type 1, the header's first byte
//! (Apex splits Titanfall's 32-bit kind into bytes: type, a second byte, two zero bytes).
//! Evidence, season 13's `mp_lobby` (rBSP 51.1): one header `01 08 00 00`, 384 × 304, and a
//! LIGHTMAP_DATA_SKY of 933,888 bytes = 116,736 texels × 8; read as two planes, the first
//! plane's fourth bytes vary (0–255) and its first three are continuous within each chart, the
//! second plane's fourth bytes are all 0, so the page is two 4-byte planes, not 8-byte texels.
//! Other Apex texel types (MRVN-Radiant's notes name BC- and ASTC-compressed kinds) have no
//! map to check them on: they are reported, not decoded, and the pages after one are not
//! decoded either (their place in the lump depends on its size).
//!
//! What the engine does with the two images is not published, so the atlases show the stored
//! RGB (alpha is not kept) and the overbright is taken as 1 (a byte 255 is the texture as
//! drawn). In Apex's sky A the fourth byte is not an exponent of the RGB (next to each other,
//! texels whose fourth bytes differ by one have the same largest RGB byte, median ratio 1.00
//! in `mp_lobby`), so leaving it out changes no colour; its meaning is not known, nor that of
//! sky B (bytes centred on 127). LIGHTMAP_DATA_REAL_TIME_LIGHTS (per-light masks) is not read.

use std::borrow::Cow;

use super::lumps::{LUMP_LIGHTMAP_DATA_SKY, LUMP_LIGHTMAP_HEADERS};
use super::records::LightmapHeader;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::lighting::{LightSet, SampleFormat};

/// Images per page in LIGHTMAP_DATA_SKY (sky A, sky B).
pub const SKY_IMAGES: u8 = 2;

/// The Apex texel type (first byte of a LIGHTMAP_HEADERS record) whose pages are two RGBA8
/// images, as in Titanfall 2: the only type seen on a real map.
pub const APEX_TYPE_RGBA_PLANES: u8 = 1;

/// An Apex page's texel type: the first byte of the header's kind word.
pub fn apex_type<O: zerocopy::ByteOrder>(h: &LightmapHeader<O>) -> u8 {
    (h.kind.get() & 0xFF) as u8
}

/// The lit pages of a Titanfall / Titanfall 2 / Apex map.
pub fn collect<'a>(bsp: &'a Bsp<'a>) -> Result<LightSet<'a>> {
    let mut set = LightSet {
        data: Cow::Owned(Vec::new()),
        format: Some(SampleFormat::Rgb8),
        source: "LIGHTMAP_DATA_SKY".into(),
        source_lump: Some(LUMP_LIGHTMAP_DATA_SKY),
        overbright: Some(1.0),
        ..Default::default()
    };
    if bsp.branch().id == "titanfall_x360" {
        // No console map has been seen: whether its pages are RGBA8 like the PC's or a GPU
        // texture format is not known, so nothing is guessed.
        set.format = None;
        set.warnings.push("titanfall_x360 lightmaps (the console's texel format is not known) are not decoded".into());
        return Ok(set);
    }
    let apex = bsp.branch().id == "apex";
    let headers: &[LightmapHeader] = bsp.records(LUMP_LIGHTMAP_HEADERS)?;
    let sky = bsp.lump(LUMP_LIGHTMAP_DATA_SKY)?;
    let mut at = 0usize;
    for (i, h) in headers.iter().enumerate() {
        if apex && apex_type(h) != APEX_TYPE_RGBA_PLANES {
            set.warnings.push(format!(
                "page {i} (LIGHTMAP_HEADERS record {i}): Apex texel type {} is not decoded (only type {APEX_TYPE_RGBA_PLANES}, two RGBA8 planes, has been seen on a map); it and the {} page(s) after it are left out",
                apex_type(h),
                headers.len() - i - 1
            ));
            break;
        }
        let size = [h.width.get() as u32, h.height.get() as u32];
        let bytes = size[0] as usize * size[1] as usize * 4 * SKY_IMAGES as usize;
        let before = set.data.len();
        match set.push_rgba_page(LUMP_LIGHTMAP_HEADERS, i, sky, at, size, SKY_IMAGES) {
            Ok(()) => {
                let sky_a = &set.data[before..before + bytes / 8 * 3];
                if sky_a.iter().all(|&b| b == 0) {
                    set.warnings.push(format!(
                        "page {i} (LIGHTMAP_HEADERS record {i}): sky A is zero in all {} texels (no baked light: a placeholder)",
                        bytes / 8
                    ));
                }
            }
            Err(e) => set.warnings.push(format!("page {i} (LIGHTMAP_HEADERS record {i}): {e}")),
        }
        at = at.saturating_add(bytes);
    }
    Ok(set)
}
