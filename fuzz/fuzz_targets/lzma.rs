//! Valve LZMA lumps: the 17-byte header and the decoder, with a small output cap.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bspkit::compression::parse_header(data);
    if let Ok(out) = bspkit::compression::decompress_valve_lzma(data, bspkit::Endian::Little, 1 << 20) {
        assert!(out.len() <= 1 << 20);
    }
});
