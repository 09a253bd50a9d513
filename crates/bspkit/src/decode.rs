//! Decode everything the library knows about a map, generically: every lump (decompressed),
//! every record lump as records of its declared size, the entities, visibility and — in the
//! thorough mode — the info rows and the checks. Used by the robustness tests and fuzz targets
//! ([`decode_all`]), as a "does this map read cleanly" probe, and by `bsp scan`'s benchmarks
//! (`scan::decode_all`, a projection of the same walk).
//!
//! Never panics on any input; failures are collected as typed errors.

use crate::branch::LumpKind;
use crate::branches::any;
use crate::branches::ops::VisForm;
use crate::bsp::Bsp;
use crate::error::Error;
use crate::lumps::visibility::{ClusterVis, Q3Vis, VisKind};

/// Most visibility bytes decompressed by [`decode_all`], so that a hostile cluster count
/// cannot make the walk quadratic in the lump size.
pub const MAX_VIS_BYTES: usize = 16 << 20;

/// How much [`decode_with`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Also touch every entity pair as text, read Respawn partitions, and build the info rows
    /// (which runs the checks).
    pub thorough: bool,
    /// Most visibility bytes to decompress; `None` decodes every row.
    pub vis_budget: Option<usize>,
}

impl DecodeOptions {
    /// The robustness probe of [`decode_all`]: everything, with visibility capped.
    pub const PROBE: DecodeOptions = DecodeOptions { thorough: true, vis_budget: Some(MAX_VIS_BYTES) };
    /// The generic walk the benchmarks time (`scan::decode_all`): lumps, records, entities and
    /// every visibility row, no checks.
    pub const WALK: DecodeOptions = DecodeOptions { thorough: false, vis_budget: None };
}

/// What [`decode_with`] read.
#[derive(Debug, Default, Clone)]
pub struct DecodeReport {
    /// Lumps read (decompressed where needed).
    pub lumps: usize,
    /// Bytes in those lumps.
    pub bytes: u64,
    /// Lumps with a known record size whose length is a multiple of it.
    pub record_lumps: usize,
    /// Records seen in lumps with a known record size.
    pub records: u64,
    pub entities: usize,
    pub entity_pairs: usize,
    /// Visibility rows decompressed (PVS and PAS count separately) and set bits in them.
    pub vis_rows: usize,
    pub vis_bits: u64,
    /// Rows of the native info table (thorough mode).
    pub stats: usize,
    /// Problems found by the checks (thorough mode).
    pub problems: usize,
    /// A sum over the bytes and records seen, so that the work cannot be optimised away.
    pub checksum: u64,
    /// Every error met on the way, in order (one per lump, structure or visibility lump that
    /// failed).
    pub errors: Vec<Error>,
}

/// Decode every lump and view of `bsp` ([`DecodeOptions::PROBE`]).
pub fn decode_all(bsp: &Bsp) -> DecodeReport {
    decode_with(bsp, DecodeOptions::PROBE)
}

/// Decode every lump of `bsp`, its records, entities and visibility, as `opts` says.
pub fn decode_with(bsp: &Bsp, opts: DecodeOptions) -> DecodeReport {
    // Every lump is read below: decode the compressed ones in parallel first.
    bsp.decompress_all();
    let mut r = DecodeReport::default();
    let mut sum = 0u64;
    for e in bsp.lumps() {
        let bytes = match bsp.lump(e.index) {
            Ok(b) => b,
            Err(err) => {
                r.errors.push(err);
                continue;
            }
        };
        r.lumps += 1;
        r.bytes += bytes.len() as u64;
        // Touch the lump's bytes: a word-sum reads every byte at memory speed.
        sum = sum.wrapping_add(word_sum(bytes));
        if let Some(size) = bsp.record_size(e.index).filter(|&s| s > 0) {
            if bytes.len() % size == 0 {
                r.record_lumps += 1;
                r.records += (bytes.len() / size) as u64;
                sum = sum.wrapping_add(first_bytes_sum(bytes, size));
            } else {
                let err = Error::new(crate::error::ErrorKind::BadLumpLength { length: bytes.len() as u64, record_size: size });
                r.errors.push(bsp.lump_error(e.index, err));
            }
        }
    }
    r.checksum = sum;
    match bsp.entities() {
        Ok(ents) => {
            r.entities = ents.len();
            r.entity_pairs = ents.iter().map(|e| e.pairs.len()).sum();
            if opts.thorough {
                // Touch every pair as text, as the CLI does.
                for ent in ents.iter() {
                    for (k, v) in ent.iter() {
                        std::hint::black_box((k, v));
                    }
                }
            }
        }
        Err(err) => r.errors.push(err),
    }
    visibility(bsp, opts.vis_budget, &mut r);
    if opts.thorough {
        if let Err(err) = any::of(bsp.family()).decode_thorough(bsp) {
            r.errors.push(err);
        }
        let info = crate::info::info(bsp);
        r.stats = info.stats.len();
        r.problems = info.problems.len();
    }
    r
}

fn word_sum(bytes: &[u8]) -> u64 {
    // Every little-endian 64-bit word of the whole 64-byte blocks, then the remaining bytes one by
    // one, added modulo 2^64 (so the order does not matter). The words are eight-byte arrays of
    // one cast, put together with shifts and added into a u128 (which no number of words in
    // memory can overflow) in an index loop of operators: an unoptimised (test) build makes no
    // call per word (an iterator, a closure, zerocopy's `get` and `wrapping_add` did: about a sixth
    // of the garble test's samples, which decodes every corpus map hundreds of times); optimised, the
    // loop is still one vectorised load and add per word.
    let (blocks, rest) = bytes.split_at(bytes.len() / 64 * 64);
    use zerocopy::FromBytes;
    // On a little-endian machine, blocks at a 4-byte-aligned address (most lumps) are read as
    // 32-bit halves: each word is its low half plus its high half times 2^32, so the sum is the
    // sum of the low halves plus that of the high halves times 2^32 (modulo 2^64). Two loads
    // and adds per word instead of eight byte loads, shifts and ors: the garble test's largest
    // item of the library's own code, unoptimised.
    if cfg!(target_endian = "little") {
        if let Ok(blocks) = <[[u32; 16]]>::ref_from_bytes(blocks) {
            let mut total = 0u64;
            // Per GiB, fewer than 2^32 halves of less than 2^32 each: neither sum can overflow.
            // Each block is destructured into its sixteen halves (even ones low, odd ones high):
            // no bounds check or loop step per half, which unoptimised code pays for.
            for piece in blocks.chunks(1 << 24) {
                let (mut low, mut high) = (0u64, 0u64);
                let mut i = 0;
                while i < piece.len() {
                    let [l0, h0, l1, h1, l2, h2, l3, h3, l4, h4, l5, h5, l6, h6, l7, h7] = piece[i];
                    low += l0 as u64 + l1 as u64 + l2 as u64 + l3 as u64 + l4 as u64 + l5 as u64 + l6 as u64 + l7 as u64;
                    high += h0 as u64 + h1 as u64 + h2 as u64 + h3 as u64 + h4 as u64 + h5 as u64 + h6 as u64 + h7 as u64;
                    i += 1;
                }
                total = total.wrapping_add(low).wrapping_add(high << 32);
            }
            let mut k = 0;
            while k < rest.len() {
                total = total.wrapping_add(rest[k] as u64);
                k += 1;
            }
            return total;
        }
    }
    let words = <[[u8; 8]]>::ref_from_bytes(blocks).unwrap_or(&[]);
    let mut total = 0u128;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let word = w[0] as u64
            | (w[1] as u64) << 8
            | (w[2] as u64) << 16
            | (w[3] as u64) << 24
            | (w[4] as u64) << 32
            | (w[5] as u64) << 40
            | (w[6] as u64) << 48
            | (w[7] as u64) << 56;
        total += word as u128;
        i += 1;
    }
    let mut k = 0;
    while k < rest.len() {
        total += rest[k] as u128;
        k += 1;
    }
    // The low 64 bits: the sum modulo 2^64.
    total as u64
}

/// The first byte of each `size`-byte record, summed: proves the stride walk happened. A plain
/// sum, so the loads do not wait on a multiply chain; an index loop, so an unoptimised (test)
/// build makes no call per record (a chunk iterator and a closure did). At most 255 per record:
/// no slice in memory can overflow it.
fn first_bytes_sum(bytes: &[u8], size: usize) -> u64 {
    if size == 0 {
        return 0;
    }
    let mut sum = 0u64;
    let mut at = 0;
    while at < bytes.len() {
        sum += u64::from(bytes[at]);
        at += size;
    }
    sum
}

/// Set bits in a row. An index loop: unoptimised (test) builds made an iterator, a closure and a
/// fold call per byte (about 4 % of the garble test's samples).
fn popcount(row: &[u8]) -> u64 {
    let mut bits = 0u64;
    let mut i = 0;
    while i < row.len() {
        bits += row[i].count_ones() as u64;
        i += 1;
    }
    bits
}

/// Visibility where the format is generic: Quake 2 / Source cluster PVS and PAS rows, Quake 3
/// bit rows. Quake 1 / GoldSrc visibility needs the leaf table and is counted as bytes only.
/// A lump that fails adds one error, however many of its rows are bad.
fn visibility(bsp: &Bsp, budget: Option<usize>, r: &mut DecodeReport) {
    let Some(index) = bsp.lump_index("VISIBILITY") else { return };
    if !matches!(bsp.branch().lumps.get(index).map(|d| d.kind), Some(LumpKind::Special)) {
        return;
    }
    let data = match bsp.lump(index) {
        Ok(d) => d,
        Err(err) => return r.errors.push(err),
    };
    match any::of(bsp.family()).vis_form() {
        Some(VisForm::Clusters) => match ClusterVis::parse(data, bsp.endian()) {
            Ok(vis) => {
                let mut row = Vec::new();
                let mut budget = budget.unwrap_or(usize::MAX);
                let mut first_error = None;
                'rows: for c in 0..vis.num_clusters {
                    for kind in [VisKind::Pvs, VisKind::Pas] {
                        if budget < vis.row_bytes() {
                            break 'rows;
                        }
                        budget -= vis.row_bytes();
                        match vis.row(c, kind, &mut row) {
                            Ok(()) => {
                                r.vis_rows += 1;
                                r.vis_bits += popcount(&row);
                            }
                            Err(err) => {
                                first_error.get_or_insert(err);
                            }
                        }
                    }
                }
                if let Some(err) = first_error {
                    r.errors.push(bsp.lump_error(index, err));
                }
            }
            Err(err) => r.errors.push(bsp.lump_error(index, err)),
        },
        Some(VisForm::Quake3) => match Q3Vis::parse(data) {
            Ok(vis) => {
                if vis.sz_vecs > 0 {
                    for row in vis.vecs.chunks_exact(vis.sz_vecs) {
                        r.vis_rows += 1;
                        r.vis_bits += popcount(row);
                    }
                }
            }
            Err(err) => r.errors.push(bsp.lump_error(index, err)),
        },
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `word_sum` is the sum it was with eight lanes of words per 64-byte block (the checksum of
    /// a report does not change with the faster form), at every length around a block.
    #[test]
    fn word_sum_is_the_eight_lane_sum() {
        fn lanes(bytes: &[u8]) -> u64 {
            let mut lanes = [0u64; 8];
            let mut blocks = bytes.chunks_exact(64);
            for block in &mut blocks {
                for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                    *lane = lane.wrapping_add(u64::from_le_bytes(word.try_into().unwrap()));
                }
            }
            let s = lanes.iter().fold(0u64, |a, &l| a.wrapping_add(l));
            blocks.remainder().iter().fold(s, |a, &b| a.wrapping_add(u64::from(b)))
        }
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        // Every start within a word: the 32-bit path (4-byte-aligned starts on little-endian
        // machines) and the byte path give the same sums.
        for start in 0..8 {
            for len in (0..200).chain([511, 512, 513, 900, 992]) {
                let b = &bytes[start..start + len];
                assert_eq!(word_sum(b), lanes(b), "start {start}, length {len}");
            }
        }
        assert_eq!(word_sum(&[0xff; 128]), 0u64.wrapping_sub(16));
    }

    /// `first_bytes_sum` is the sum of each record's first byte, as the chunk iterator took it.
    #[test]
    fn first_bytes_sum_is_the_records_first_bytes() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
        for size in [1, 2, 3, 4, 7, 8, 12, 20, 64, 999, 1000] {
            let len = bytes.len() / size * size;
            let chunks: u64 = bytes[..len].chunks_exact(size).map(|rec| u64::from(rec[0])).sum();
            assert_eq!(first_bytes_sum(&bytes[..len], size), chunks, "record size {size}");
        }
        assert_eq!(first_bytes_sum(&[], 4), 0);
        assert_eq!(first_bytes_sum(&bytes, 0), 0);
    }

    /// `popcount` counts what the iterator form counted.
    #[test]
    fn popcount_is_the_iterator_count() {
        let bytes: Vec<u8> = (0..3000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 9) as u8).collect();
        for len in (0..70).chain([255, 256, 1000, 2999, 3000]) {
            let old: u64 = bytes[..len].iter().map(|b| u64::from(b.count_ones())).sum();
            assert_eq!(popcount(&bytes[..len]), old, "length {len}");
        }
        assert_eq!(popcount(&[0xff; 9]), 72);
    }

    #[test]
    fn decodes_the_sample_map_without_errors() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let r = decode_all(&bsp);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(r.lumps, bsp.lumps().len());
        assert!(r.entities > 0 && r.stats > 0);
    }
}
