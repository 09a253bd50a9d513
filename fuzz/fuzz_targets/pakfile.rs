//! Source pakfile (lump 40, a Zip archive): the end record search, the central directory,
//! each entry read under a small cap (stored, deflate, LZMA; CRC-checked), and the
//! extraction path check on every entry name and on the raw input taken as a name.
#![no_main]

use std::path::Component;

use bspkit::lumps::pakfile::{safe_relative_path, Pakfile};
use libfuzzer_sys::fuzz_target;

const CAP: u64 = 1 << 20;

/// A name accepted for extraction must stay below the output directory.
fn check_name(name: &str) {
    if let Ok(rel) = safe_relative_path(name) {
        assert!(rel.is_relative(), "{name:?} -> {rel:?}");
        assert!(rel.components().all(|c| matches!(c, Component::Normal(_))), "{name:?} -> {rel:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    check_name(&String::from_utf8_lossy(data));
    let Ok(pak) = Pakfile::parse(data) else { return };
    for e in pak.entries.iter().take(256) {
        check_name(&e.name);
        std::hint::black_box(pak.find(&e.name));
        if let Ok(raw) = pak.raw_data(e) {
            assert!(raw.len() <= data.len());
        }
        if let Ok(bytes) = pak.read(e, CAP) {
            assert_eq!(bytes.len() as u64, e.size);
            assert!(bytes.len() as u64 <= CAP);
        }
    }
});
