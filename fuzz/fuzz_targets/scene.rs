//! Issue 23: any bytes opened as a map, built into a scene with low output budgets. Must return
//! `Ok` within the budgets or a typed error (a `limit_exceeded` one naming its flag when a
//! budget is what stopped it), never panic or abort.
#![no_main]

use bspkit::mesh::{MeshOptions, SceneLimits};
use libfuzzer_sys::fuzz_target;

const LIMITS: SceneLimits = SceneLimits { max_vertices: 20_000, max_triangles: 10_000 };

fuzz_target!(|data: &[u8]| {
    let Ok(bsp) = bspkit::Bsp::from_bytes(data) else { return };
    match bspkit::mesh::build(&bsp, &MeshOptions { limits: LIMITS, ..Default::default() }) {
        Ok(scene) => {
            let vertices: usize = scene.models.iter().map(|m| m.vertices.len()).sum();
            let triangles: usize = scene.models.iter().map(|m| m.indices.len() / 3).sum();
            assert!(vertices as u64 <= LIMITS.max_vertices, "{vertices} vertices");
            assert!(triangles as u64 <= LIMITS.max_triangles, "{triangles} triangles");
        }
        Err(e) if e.kind.name() == "limit_exceeded" => assert!(e.to_string().contains("--max-"), "{e}"),
        Err(e) => {
            std::hint::black_box(e.to_string());
        }
    }
});
