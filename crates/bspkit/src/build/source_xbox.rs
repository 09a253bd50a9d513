//! A small original-Xbox Half-Life 2 map (`source_xbox`, VBSP 19) for tests and fuzz seeds: a
//! worldspawn, one plane, two lightmap pages (`dlightmappage_t`: a gradient of palette indices
//! over a grey palette) and three page infos naming them. The rest of a Source map is what the
//! corpus maps re-laid by the tests supply; no real Xbox map was found.

use crate::branches::source::lumps::{LUMP_XBOX_LIGHTMAP_PAGES, LUMP_XBOX_LIGHTMAP_PAGE_INFOS, SOURCE_XBOX, XBOX_LIGHTMAP_PAGE_BYTES};
use crate::build::builder::BspBuilder;

/// `n` lightmap pages: 256 × 128 indices, then 256 palette entries `{i, i, i, exponent 0}`.
pub fn xbox_lightmap_pages(n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * XBOX_LIGHTMAP_PAGE_BYTES);
    for p in 0..n {
        out.extend((0..256 * 128).map(|i| ((i % 256) as u8).wrapping_add(p as u8)));
        out.extend((0..=255u8).flat_map(|i| [i, i, i, 0]));
    }
    out
}

/// Page infos `{page, s, t, pad, average colour}` naming `pages` in turn.
pub fn xbox_page_infos(pages: &[u8]) -> Vec<u8> {
    pages.iter().enumerate().flat_map(|(k, &p)| [p, (k * 16) as u8, 0, 0, 128, 128, 128, 0]).collect()
}

/// The builder's minimal Xbox map (see the module notes).
pub fn source_xbox_map() -> Vec<u8> {
    BspBuilder::new(&SOURCE_XBOX)
        .lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(1, [0f32, 0.0, 1.0, 0.0].iter().flat_map(|f| f.to_le_bytes()).chain(2i32.to_le_bytes()).collect::<Vec<u8>>())
        .lump(LUMP_XBOX_LIGHTMAP_PAGES, xbox_lightmap_pages(2))
        .lump(LUMP_XBOX_LIGHTMAP_PAGE_INFOS, xbox_page_infos(&[0, 1, 1]))
        .build()
}
