//! Titanfall / Titanfall 2 lightmaps (respawn_cod_facts.md §1.8): LIGHTMAP_HEADERS (0x53)
//! names pages of `width × height` texels; for each page in turn, LIGHTMAP_DATA_SKY (0x62)
//! holds two RGBA8 images of that size, "sky A" then "sky B" (the split bsp_tool's and
//! SourceIO's readers use; the corpus lumps are exactly `Σ width × height × 8` bytes). Lit
//! vertices (LIT_FLAT, LIT_BUMP) carry a lightmap coordinate that is 0..1 over their material
//! sort's page, origin top-left, so each page is one lit "face" of [`Mapping::Page`](crate::lumps::lighting::Mapping::Page)
//! (identity: lump 0x53, the header's index), sky A its layer 0 and sky B its layer 1.
//!
//! What the engine does with the two images is not published, so the atlases show the stored
//! RGB (alpha is not kept) and the overbright is taken as 1 (a byte 255 is the texture as
//! drawn). LIGHTMAP_DATA_REAL_TIME_LIGHTS (per-light masks, 8 or 9 bytes a texel) is not read.
//! Apex Legends pages (other header kinds, 8-byte HDR texels) are not decoded.

use std::borrow::Cow;

use super::lumps::{LUMP_LIGHTMAP_DATA_SKY, LUMP_LIGHTMAP_HEADERS};
use super::records::LightmapHeader;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::lighting::{LightSet, SampleFormat};

/// Images per page in LIGHTMAP_DATA_SKY (sky A, sky B).
pub const SKY_IMAGES: u8 = 2;

/// The lit pages of a Titanfall / Titanfall 2 map.
pub fn collect<'a>(bsp: &'a Bsp<'a>) -> Result<LightSet<'a>> {
    let mut set = LightSet {
        data: Cow::Owned(Vec::new()),
        format: Some(SampleFormat::Rgb8),
        source: "LIGHTMAP_DATA_SKY".into(),
        source_lump: Some(LUMP_LIGHTMAP_DATA_SKY),
        overbright: Some(1.0),
        ..Default::default()
    };
    if bsp.branch().id == "apex" {
        set.format = None;
        set.warnings.push("apex lightmaps (8-byte HDR texels) are not decoded".into());
        return Ok(set);
    }
    if bsp.branch().id == "titanfall_x360" {
        // No console map has been seen: whether its pages are RGBA8 like the PC's or a GPU
        // texture format is not known, so nothing is guessed.
        set.format = None;
        set.warnings.push("titanfall_x360 lightmaps (the console's texel format is not known) are not decoded".into());
        return Ok(set);
    }
    let headers: &[LightmapHeader] = bsp.records(LUMP_LIGHTMAP_HEADERS)?;
    let sky = bsp.lump(LUMP_LIGHTMAP_DATA_SKY)?;
    let mut at = 0usize;
    for (i, h) in headers.iter().enumerate() {
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
