//! Open any bytes as a map and decode everything the library offers (lumps, record views,
//! entities, visibility, info rows, checks). Must return Ok or a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(bsp) = bspkit::Bsp::from_bytes(data) {
        let report = bspkit::decode_all(&bsp);
        std::hint::black_box(report);
    }
});
