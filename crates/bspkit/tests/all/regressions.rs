//! Inputs that once made the library panic, hang or misbehave, kept as tests. Each is built
//! here from a few bytes (fuzzer or review findings), never taken from a real map.

use bspkit::{decode_all, Bsp, ErrorKind};

/// A `.d3dbsp` whose chunk count fills the file: every id lookup scanned the whole list, so
/// `check` took quadratic time (hours for a few MB). Now the count is capped.
#[test]
fn cod_huge_chunk_list_is_refused_quickly() {
    let count: u32 = 400_000;
    let mut data = Vec::with_capacity(12 + 8 * count as usize);
    data.extend_from_slice(b"IBSP");
    data.extend_from_slice(&22u32.to_le_bytes());
    data.extend_from_slice(&count.to_le_bytes());
    for i in 0..count {
        data.extend_from_slice(&(1000 + i).to_le_bytes()); // distinct unknown ids
        data.extend_from_slice(&0u32.to_le_bytes());
    }
    let start = std::time::Instant::now();
    let err = Bsp::from_bytes(&data).err().expect("refused");
    assert!(matches!(err.kind, ErrorKind::LimitExceeded { .. }), "{err}");
    assert!(start.elapsed().as_secs() < 5);

    // At the cap, a full decode stays fast.
    let count = bspkit::directory::MAX_COD_CHUNKS as u32;
    data.truncate(12 + 8 * count as usize);
    data[8..12].copy_from_slice(&count.to_le_bytes());
    let bsp = Bsp::from_bytes(&data).unwrap();
    let report = decode_all(&bsp);
    assert_eq!(report.lumps, count as usize);
    assert!(start.elapsed().as_secs() < 10);
}
