//! Valve `.lmp` external lump files: the 20-byte header and the data it bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(lmp) = bspkit::lmp::LmpFile::parse(data) {
        std::hint::black_box(lmp.header.to_bytes());
        assert!(lmp.data.len() <= data.len());
    }
});
