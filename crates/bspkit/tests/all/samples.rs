//! The committed sample maps are exactly what the builders write today, and they read back.

use std::path::Path;

#[test]
fn committed_samples_match_the_builders() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    for (name, bytes) in bspkit::build::samples() {
        let committed = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("samples/{name}: {e}"));
        assert!(committed == bytes, "samples/{name} is stale: run `cargo run -p bspkit --example make_samples`");
        let bsp = bspkit::Bsp::from_bytes(&committed).unwrap();
        assert!(bspkit::check::check(&bsp).is_empty(), "samples/{name} does not check clean");
    }
}
