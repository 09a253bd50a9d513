//! VPK v1/v2 directories: header, the extension/path/name tree walk under an entry cap, and
//! reading every entry stored in the directory file itself (preload bytes and data).
#![no_main]

use bspkit::assets::vpk;
use libfuzzer_sys::fuzz_target;

const CAP: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = vpk::parse(data, 100_000) else { return };
    for e in dir.entries.iter().take(256) {
        // Archives other than the directory itself are not opened here (no path given).
        if let Ok(bytes) = vpk::read(&dir, e, data, None, CAP) {
            assert_eq!(bytes.len() as u64, e.size());
        }
    }
});
