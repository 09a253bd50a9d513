//! Call of Duty 4 lightmaps (respawn_cod_facts.md §2.2, §2.5): LIGHTBYTES (lump 1) is a run of
//! lightmaps of 0x300000 bytes each (the compiler's `LIGHTMAP_BYTES`, at most 31). Measured on
//! the corpus maps, each is three images: two 512 × 512 RGBA8 "secondary" images (bsp_tool
//! reads the lump as 512² RGBA images; their RGB is the baked light, alpha near 128 in lit
//! texels) and a 1024 × 1024 single-byte "primary" image whose texels are 0 or 255 and cover the
//! same rectangles at twice the resolution (a sun-visibility mask). Soups name their lightmap
//! (TRIANGLES `lightmap`; a number past the lump's lightmaps, 31 in the corpus, means none) and
//! draw vertices carry a lightmap coordinate 0..1 over the 512 × 512 page, origin top-left.
//!
//! So each lightmap is one lit "face" of [`Mapping::Page`](crate::lumps::lighting::Mapping::Page) (identity: lump 1, the lightmap's
//! number) with the two secondary images as layers 0 and 1; the primary mask, at another
//! resolution, is not put in the atlases. Overbright is taken as 1 (byte 255 = the texture as
//! drawn): the engine's scale is not published. Call of Duty 1 / 2 lightmaps are not decoded.

use std::borrow::Cow;

use super::lumps::{is_cod12, LUMP_LIGHTBYTES};
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::lighting::{LightSet, SampleFormat};

/// Bytes of one CoD4 lightmap.
pub const LIGHTMAP_BYTES: usize = 0x30_0000;
/// Side of a secondary image.
pub const PAGE: u32 = 512;
/// Secondary images per lightmap.
pub const SECONDARY_IMAGES: u8 = 2;

/// The lightmaps of a Call of Duty 4 map.
pub fn collect<'a>(bsp: &'a Bsp<'a>) -> Result<LightSet<'a>> {
    let mut set = LightSet {
        data: Cow::Owned(Vec::new()),
        format: Some(SampleFormat::Rgb8),
        source: "LIGHTBYTES".into(),
        source_lump: Some(LUMP_LIGHTBYTES),
        overbright: Some(1.0),
        ..Default::default()
    };
    if is_cod12(bsp.branch()) {
        set.format = None;
        set.warnings.push(format!("{} lightmaps are not decoded", bsp.branch().id));
        return Ok(set);
    }
    let bytes = bsp.lump(LUMP_LIGHTBYTES)?;
    if bytes.len() % LIGHTMAP_BYTES != 0 {
        set.warnings.push(format!(
            "LIGHTBYTES is {} bytes, not a whole number of {LIGHTMAP_BYTES}-byte lightmaps: the last {} bytes are not read",
            bytes.len(),
            bytes.len() % LIGHTMAP_BYTES
        ));
    }
    for i in 0..bytes.len() / LIGHTMAP_BYTES {
        let at = i * LIGHTMAP_BYTES;
        if let Err(e) = set.push_rgba_page(LUMP_LIGHTBYTES, i, bytes, at, [PAGE, PAGE], SECONDARY_IMAGES) {
            set.warnings.push(format!("lightmap {i} (LIGHTBYTES byte {at}): {e}"));
        }
    }
    Ok(set)
}
