//! Open any bytes as a map, read its lightmaps (LDR and HDR) into atlases and ask for every
//! face's UVs and an 8-bit image of every atlas, with a low atlas budget (issue 23). Must
//! return Ok or a typed error, never panic, and stay within the atlas pixel budget.
#![no_main]

use libfuzzer_sys::fuzz_target;

const MAX_PIXELS: u64 = 200_000;

fuzz_target!(|data: &[u8]| {
    let Ok(bsp) = bspkit::Bsp::from_bytes(data) else { return };
    for hdr in [false, true] {
        let opts = bspkit::lightmap::LightOptions { hdr, external: false, decoupled: true, max_atlas_pixels: MAX_PIXELS };
        let Ok(lm) = bspkit::lightmap::build(&bsp, &opts) else { continue };
        let pixels: u64 = lm.atlases.iter().map(|a| a.width as u64 * a.height as u64).sum();
        assert!(pixels <= MAX_PIXELS, "{pixels} atlas pixels");
        for f in &lm.faces {
            std::hint::black_box((lm.uv(f, [1.0, 2.0, 3.0]), lm.uv_native(f, [0.5, 0.5]), lm.uv_grid(f, [0.25, 1.0])));
            assert!(lm.face(f.lump, f.index).is_some());
        }
        for a in &lm.atlases {
            std::hint::black_box(a.rgb8().len());
        }
    }
});
