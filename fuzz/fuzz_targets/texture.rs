//! Issue 23: any bytes opened as a map, every texture it names resolved and decoded (embedded
//! miptex, pakfile entries) with a low texel budget. Each texture is `Ok` or a typed miss,
//! never a panic; the texels decoded never pass the budget.
#![no_main]

use bspkit::texture::{Budget, TextureOptions, TextureSource};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(bsp) = bspkit::Bsp::from_bytes(data) else { return };
    let budget = Budget { max_pixels: 1 << 20, max_image_pixels: 1 << 18, max_bytes: 4 << 20, ..Default::default() };
    let src = TextureSource::new(&bsp, &TextureOptions { budget, ..Default::default() });
    for t in src.textures() {
        std::hint::black_box(&t);
    }
    assert!(src.used().pixels <= budget.max_pixels, "{} texels decoded", src.used().pixels);
});
