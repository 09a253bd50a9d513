//! Every corpus map, read and written back unchanged through the real writer, gives the same bytes.

use crate::common;

use bspkit::{Bsp, OpenOptions};

#[test]
fn every_corpus_map_rewrites_byte_identical() {
    let Some(corpus) = common::corpus("every_corpus_map_rewrites_byte_identical") else { return };
    let maps = common::maps(&corpus);
    assert!(maps.len() >= 50);
    let mut families = std::collections::BTreeSet::new();
    for m in &maps {
        // The writer writes the .bsp itself; external lumps stay in their own files.
        let bsp = Bsp::open_with(&m.path, &OpenOptions { external_lumps: false, ..Default::default() }).unwrap();
        let out = bspkit::write::rewrite(&bsp).unwrap_or_else(|e| panic!("{}: {e}", m.path.display()));
        let original = std::fs::read(&m.path).unwrap();
        assert_eq!(out.len(), original.len(), "{}: size", m.path.display());
        if let Some(i) = out.iter().zip(&original).position(|(a, b)| a != b) {
            panic!("{}: first differing byte at {i}", m.path.display());
        }
        families.insert(bsp.family().as_str());
    }
    assert_eq!(families.len(), 8, "every family covered: {families:?}");
}
