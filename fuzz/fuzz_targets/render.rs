//! Issue 23: any bytes opened as a map, rendered at 64 px with low scene and render-work
//! budgets. `Ok` or a typed error, never a panic or an abort (the rasterizer's buffers are
//! reserved fallibly).
#![no_main]

use bspkit::mesh::SceneLimits;
use bspkit::render::RenderOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(bsp) = bspkit::Bsp::from_bytes(data) else { return };
    let limits = SceneLimits { max_vertices: 20_000, max_triangles: 10_000 };
    let opts = RenderOptions { size: 64, limits, max_work: 40_000, ..Default::default() };
    if let Err(e) = bspkit::render::render_map(&bsp, &opts) {
        std::hint::black_box(e.to_string());
    }
});
