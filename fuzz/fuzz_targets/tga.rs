//! TGA images (Quake 3 textures): header checks, colour maps, run-length packets, flips,
//! under an output cap; and the same bytes as a VMT and a Quake 3 shader script.
#![no_main]

use bspkit::assets::{tga, vmt::Vmt};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(img) = tga::decode(data, 1 << 22) {
        assert_eq!(img.pixels.len(), img.width as usize * img.height as usize * 4);
    }
    if let Ok(v) = Vmt::parse(data) {
        std::hint::black_box((v.alpha_mode(), v.base_texture_path()));
    }
    let mut ix = std::collections::HashMap::new();
    bspkit::branches::quake3::texture::parse_script(&String::from_utf8_lossy(data), "fuzz", &mut ix);
});
