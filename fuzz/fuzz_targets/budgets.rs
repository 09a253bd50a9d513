//! Budgets per map (issue 11, items 7–9): any bytes opened as a map with a small total
//! decompression budget, every lump read twice and the whole map checked; the decoded total
//! must never pass the budget (entries sharing a stream count once). The same bytes as a
//! pakfile: overlapping entries refused, and an extract plan under a small total cap. Static
//! props read in batches never hold more than one batch.
#![no_main]

use libfuzzer_sys::fuzz_target;

const BUDGET: u64 = 4 << 20;

fuzz_target!(|data: &[u8]| {
    let opts = bspkit::OpenOptions {
        max_decompressed: 2 << 20,
        max_decompressed_total: BUDGET,
        external_lumps: false,
        ..Default::default()
    };
    if let Ok(bsp) = bspkit::Bsp::from_bytes_with(data, &opts) {
        for _ in 0..2 {
            for e in bsp.lumps() {
                let _ = bsp.lump(e.index);
            }
        }
        let _ = bspkit::check::check(&bsp);
        assert!(bsp.decompressed_bytes() <= BUDGET, "budget passed: {}", bsp.decompressed_bytes());
        if let Ok(gl) = bspkit::lumps::gamelump::GameLumps::of(&bsp) {
            if let Ok(Some(sp)) = gl.static_props() {
                let mut start = 0;
                while start < sp.count.min(1 << 16) {
                    match sp.props_range(start, 1024) {
                        Ok(b) if !b.is_empty() => {
                            assert!(b.len() <= 1024);
                            start += b.len();
                        }
                        _ => break,
                    }
                }
            }
        }
    }
    if let Ok(pak) = bspkit::lumps::pakfile::Pakfile::parse(data) {
        // No two entries share local bytes once parsed.
        let mut spans: Vec<(u64, u64)> = pak.entries.iter().map(|e| (e.local_offset, e.local_offset + 30 + e.compressed_size)).collect();
        spans.sort_unstable();
        assert!(spans.windows(2).all(|w| w[1].0 >= w[0].1), "overlapping entries accepted");
        for e in pak.entries.iter().take(64) {
            if let Ok(v) = pak.read(e, 1 << 20) {
                assert!(v.len() <= 1 << 20);
            }
        }
    }
});
