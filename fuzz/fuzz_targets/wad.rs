//! WAD2 / WAD3 archives: directory, entry bounds, miptex headers and palettes, and the
//! decode to RGBA (Quake textures with a fixed palette, GoldSrc ones with their own).
#![no_main]

use bspkit::assets::wad::Wad;
use bspkit::assets::Palette;
use bspkit::branches::quake1::texture::decode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(wad) = Wad::parse(data) else { return };
    assert!(wad.entries.len() * 32 <= data.len());
    let pal = Palette::from_rgb(&[7; 768]);
    for e in wad.entries.iter().take(256) {
        std::hint::black_box(wad.find(&e.name));
        if let Ok(b) = wad.data(e) {
            assert!(b.len() <= data.len());
        }
        if let Ok(t) = wad.miptex(e) {
            if let Ok(tex) = decode(&t, Some(&pal), String::new()) {
                assert_eq!(tex.image().pixels.len() as u64, t.width() as u64 * t.height() as u64 * 4);
            }
        }
    }
});
