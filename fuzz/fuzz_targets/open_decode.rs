//! Open any bytes as a map and decode everything the library offers (lumps, record views,
//! entities, visibility, info rows, checks), then walk its node tree and look a point up.
//! Must return Ok or a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(bsp) = bspkit::Bsp::from_bytes(data) {
        let report = bspkit::decode_all(&bsp);
        std::hint::black_box(report);
        if let Ok(tree) = bspkit::tree::NodeTree::of(&bsp) {
            for model in 0..tree.heads.len().min(4) {
                let _ = tree.walk(model);
                if let Ok(leaf) = tree.point_leaf(model, [0.0, 0.0, 0.0]) {
                    assert!(leaf < tree.num_leaves);
                }
            }
        }
    }
});
