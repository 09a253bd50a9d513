//! Issue 23: any bytes opened as a map, rendered at 64 px with low scene and render-work
//! budgets. `Ok` within the work budget or a typed error (the work budget's own error names
//! its limit), never a panic or an abort (the rasterizer's buffers are reserved fallibly).
#![no_main]

use bspkit::mesh::SceneLimits;
use bspkit::render::RenderOptions;
use bspkit::ErrorKind;
use libfuzzer_sys::fuzz_target;

const MAX_WORK: u64 = 40_000;
const LIMITS: SceneLimits = SceneLimits { max_vertices: 20_000, max_triangles: 10_000 };

fuzz_target!(|data: &[u8]| {
    let Ok(bsp) = bspkit::Bsp::from_bytes(data) else { return };
    let opts = RenderOptions { size: 64, limits: LIMITS, max_work: MAX_WORK, ..Default::default() };
    match bspkit::render::render_map(&bsp, &opts) {
        Ok(r) => assert!(r.frame.work <= MAX_WORK, "{} pixels tested", r.frame.work),
        Err(e) => {
            if let ErrorKind::LimitExceeded { what, requested, limit } = &e.kind {
                if *what == bspkit::render::RENDER_WORK {
                    assert!(*limit == MAX_WORK && requested > limit, "{e}");
                }
            }
            std::hint::black_box(e.to_string());
        }
    }
});
