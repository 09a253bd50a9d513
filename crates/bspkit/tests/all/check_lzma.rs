//! Issue 12, item 10: `check` decodes the compressed lumps its checks read and measures the
//! others from their Valve LZMA header (magic, sizes, properties); `CheckOptions::verify_lzma`
//! (`bsp check --verify-lzma`) decodes every one and reports a stream that does not decode.
//! Builder-made Source maps with a damaged LZMA lump, and corpus maps with every lump
//! compressed (through the library's editor) or compressed by their compiler (Xbox 360).

use crate::common;

use bspkit::branches::source::{self, check::READS};
use bspkit::build::BspBuilder;
use bspkit::check::{check, check_with, CheckOptions, Code, Problem};
use bspkit::compression::{compress_valve_lzma, LZMA_HEADER_LEN};
use bspkit::edit::{Editor, NEVER_COMPRESSED};
use bspkit::{Bsp, OpenOptions};

const VERIFY: CheckOptions = CheckOptions { verify_lzma: true };

fn worldspawn() -> Vec<u8> {
    b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec()
}

/// 4096 bytes of lightmap samples (1024 `ColorRGBExp32`), LZMA-compressed.
fn lighting() -> Vec<u8> {
    let samples: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
    compress_valve_lzma(&samples, 6).unwrap()
}

/// The same lump with its stream damaged and its header intact: every byte of the stream
/// after the range decoder's leading zero set to 0xFF.
fn damaged_stream(mut lump: Vec<u8>) -> Vec<u8> {
    for b in &mut lump[LZMA_HEADER_LEN + 1..] {
        *b = 0xFF;
    }
    lump
}

/// A Source map (entities, then `lump` at `index`), opened from memory.
fn map_with(index: usize, lump: Vec<u8>) -> Vec<u8> {
    BspBuilder::new(&source::SOURCE).lump(source::LUMP_ENTITIES, worldspawn()).lump(index, lump).build()
}

fn unreadable(problems: &[Problem], lump: &str) -> bool {
    problems.iter().any(|p| p.code == Code::LUMP_UNREADABLE && p.lump == lump)
}

fn errors(problems: &[Problem]) -> Vec<String> {
    problems.iter().filter(|p| p.severity == bspkit::check::Severity::Error).map(|p| p.to_string()).collect()
}

#[test]
fn a_measured_lump_with_a_damaged_stream_needs_verify_lzma() {
    let map = map_with(source::LUMP_LIGHTING, damaged_stream(lighting()));
    // The damage is real: decoding the lump fails.
    assert!(Bsp::from_bytes(&map).unwrap().lump(source::LUMP_LIGHTING).is_err());

    // Default: no check reads the samples, so the lump is measured (4096 bytes, a whole number
    // of samples) and never decoded.
    let bsp = Bsp::from_bytes(&map).unwrap();
    assert!(bsp.entry(source::LUMP_LIGHTING).unwrap().compressed);
    let problems = check(&bsp);
    assert!(errors(&problems).is_empty(), "{problems:?}");
    assert!(!bsp.was_decompressed(source::LUMP_LIGHTING));
    assert_eq!(bsp.lump_len(source::LUMP_LIGHTING).unwrap(), 4096);
    assert_eq!(bsp.decompressed_bytes(), 0);

    // --verify-lzma decodes it and reports it.
    let bsp = Bsp::from_bytes(&map).unwrap();
    let problems = check_with(&bsp, &VERIFY);
    assert!(unreadable(&problems, "8 (LIGHTING)"), "{problems:?}");
    assert!(bsp.was_decompressed(source::LUMP_LIGHTING));

    // The same lump healthy: clean both ways.
    let map = map_with(source::LUMP_LIGHTING, lighting());
    assert!(errors(&check(&Bsp::from_bytes(&map).unwrap())).is_empty());
    assert!(errors(&check_with(&Bsp::from_bytes(&map).unwrap(), &VERIFY)).is_empty());
}

#[test]
fn a_damaged_header_is_reported_by_default() {
    let good = lighting();
    let body = (good.len() - LZMA_HEADER_LEN) as u32;
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut l = good.clone();
    l[8..12].copy_from_slice(&(body + 1).to_le_bytes());
    cases.push(("compressed size past the lump", l));
    let mut l = good.clone();
    l[8..12].copy_from_slice(&3u32.to_le_bytes());
    cases.push(("3 bytes of stream for 4096 bytes", l));
    let mut l = good.clone();
    l[12] = 225;
    cases.push(("properties byte above 224", l));
    let mut l = good.clone();
    l[12] = 4 + 9; // lc 4, lp 1: lc + lp > 4
    cases.push(("lc + lp above 4", l));
    let mut l = good.clone();
    l[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push(("output size past the limit", l));
    for (what, lump) in cases {
        let map = map_with(source::LUMP_LIGHTING, lump);
        let bsp = Bsp::from_bytes(&map).unwrap();
        let problems = check(&bsp);
        assert!(unreadable(&problems, "8 (LIGHTING)"), "{what}: {problems:?}");
        assert!(!bsp.was_decompressed(source::LUMP_LIGHTING), "{what}: measured, not decoded");
        // Decoding refuses it for the same reason: the two modes agree.
        let verified = check_with(&Bsp::from_bytes(&map).unwrap(), &VERIFY);
        let same = |ps: &[Problem]| ps.iter().filter(|p| p.lump == "8 (LIGHTING)").map(|p| p.to_string()).collect::<Vec<_>>();
        assert_eq!(same(&problems), same(&verified), "{what}");
    }

    // The stated output size is checked against the record size without decoding: 4094 bytes
    // is not a whole number of 4-byte samples.
    let mut l = lighting();
    l[4..8].copy_from_slice(&4094u32.to_le_bytes());
    let map = map_with(source::LUMP_LIGHTING, l);
    let bsp = Bsp::from_bytes(&map).unwrap();
    let problems = check(&bsp);
    assert!(problems.iter().any(|p| p.code == Code::BAD_LUMP_LENGTH && p.lump == "8 (LIGHTING)"), "{problems:?}");
    assert!(!bsp.was_decompressed(source::LUMP_LIGHTING));
}

#[test]
fn a_lump_the_checks_read_is_always_decoded() {
    // Brushes are read (their side ranges are checked): a damaged stream is an error by default.
    let brushes: Vec<u8> = (0..64i32).flat_map(|i| [i * 6, 6, 1]).flat_map(|v| v.to_le_bytes()).collect();
    let map = map_with(source::LUMP_BRUSHES, damaged_stream(compress_valve_lzma(&brushes, 6).unwrap()));
    let bsp = Bsp::from_bytes(&map).unwrap();
    assert!(READS.contains(&source::LUMP_BRUSHES));
    let problems = check(&bsp);
    assert!(unreadable(&problems, "18 (BRUSHES)"), "{problems:?}");
    assert!(bsp.was_decompressed(source::LUMP_BRUSHES));
}

/// Every lump of a corpus map compressed (except the game lump and the pakfile, never
/// compressed whole): default `check` decodes exactly the compressed lumps in `READS` (a lump a
/// check reads but missing from the list would be decoded too, and fail here), and finds what
/// it finds on the map as compiled and with `--verify-lzma`.
#[test]
fn check_decodes_exactly_the_lumps_it_reads() {
    let Some(corpus) = common::corpus("check_decodes_exactly_the_lumps_it_reads") else { return };
    let opts = OpenOptions { external_lumps: false, ..Default::default() };
    let mut seen = 0;
    for m in common::maps_in(&corpus, "source") {
        let Ok(bytes) = std::fs::read(&m.path) else { continue };
        if bytes.len() > 300_000 || &bytes[..4] != b"VBSP" {
            continue;
        }
        let Ok(bsp) = Bsp::from_bytes_with(&bytes, &opts) else { continue };
        let mut ed = Editor::new(&bsp).unwrap();
        for e in bsp.lumps().iter().filter(|e| e.length > 0 && !NEVER_COMPRESSED.contains(&e.index)) {
            ed.compress_lump(e.index).unwrap();
        }
        let packed = ed.to_bytes().unwrap();
        let name = m.path.display();

        let compiled: Vec<String> = check(&bsp).iter().map(|p| p.to_string()).collect();
        let c = Bsp::from_bytes_with(&packed, &opts).unwrap();
        let default: Vec<String> = check(&c).iter().map(|p| p.to_string()).collect();
        assert_eq!(default, compiled, "{name}: compressing every lump changed what check finds");
        // Dota 2's check also reads the vertices (`check::reads`: its dispinfo proof).
        let reads = source::check::reads(bsp.branch());
        assert_eq!(reads.contains(&source::LUMP_VERTICES), bsp.branch().id == "dota2");
        for e in c.lumps().iter().filter(|e| e.compressed) {
            assert_eq!(c.was_decompressed(e.index), reads.contains(&e.index), "{name}: lump {} ({}) decoded?", e.index, e.name);
        }
        let verified: Vec<String> =
            check_with(&Bsp::from_bytes_with(&packed, &opts).unwrap(), &VERIFY).iter().map(|p| p.to_string()).collect();
        assert_eq!(verified, compiled, "{name}: --verify-lzma");
        seen += 1;
    }
    assert!(seen >= 3, "only {seen} little-endian Source maps under 300 KB in the corpus");
}

/// The Xbox 360 map, compressed by its compiler: the default check leaves its lightmap samples
/// (LIGHTING_HDR, 245,736 bytes, ≈70 % of the decoding) and leaf ambient lighting undecoded,
/// decodes every lump it reads, and finds the same as `--verify-lzma`.
#[test]
fn x360_check_skips_the_lighting() {
    let Some(corpus) = common::corpus("x360_check_skips_the_lighting") else { return };
    let maps = common::maps_in(&corpus, "source_x360");
    assert!(!maps.is_empty(), "the corpus has an Xbox 360 map");
    for m in maps {
        let bsp = Bsp::open(&m.path).unwrap();
        let default: Vec<String> = check(&bsp).iter().map(|p| p.to_string()).collect();
        let name = m.path.display();
        for i in [source::LUMP_LIGHTING_HDR, source::LUMP_LEAF_AMBIENT_LIGHTING_HDR] {
            assert!(bsp.entry(i).is_some_and(|e| e.compressed), "{name}: lump {i} compressed");
            assert!(!bsp.was_decompressed(i), "{name}: lump {i} decoded by default");
        }
        for e in bsp.lumps().iter().filter(|e| e.compressed) {
            assert_eq!(bsp.was_decompressed(e.index), READS.contains(&e.index), "{name}: lump {} ({})", e.index, e.name);
        }
        let all = Bsp::open(&m.path).unwrap();
        let verified: Vec<String> = check_with(&all, &VERIFY).iter().map(|p| p.to_string()).collect();
        assert!(all.lumps().iter().filter(|e| e.compressed).all(|e| all.was_decompressed(e.index)));
        assert_eq!(default, verified, "{name}");
    }
}

/// `bsp info` / `bsp lumps` count records from an LZMA lump's stated size: the lighting is not
/// decoded for them either, and the counts are those of the decoded lumps.
#[test]
fn info_counts_lzma_lumps_without_decoding_them() {
    let Some(corpus) = common::corpus("info_counts_lzma_lumps_without_decoding_them") else { return };
    for m in common::maps_in(&corpus, "source_x360") {
        let bsp = Bsp::open(&m.path).unwrap();
        let info = bspkit::info::info(&bsp);
        assert!(!bsp.was_decompressed(source::LUMP_LIGHTING_HDR), "{}", m.path.display());
        let decoded = Bsp::open(&m.path).unwrap();
        decoded.decompress_all();
        let json = |v: &[bspkit::info::LumpInfo]| serde_json::to_value(v).unwrap();
        assert_eq!(json(&bspkit::info::lump_infos(&decoded)), json(&info.lumps), "{}", m.path.display());
        assert_eq!(bspkit::stats::stats(&decoded), info.stats, "{}", m.path.display());
        let row = info.lumps.iter().find(|l| l.index == source::LUMP_LIGHTING_HDR).unwrap();
        assert_eq!(row.count, Some(decoded.lump(source::LUMP_LIGHTING_HDR).unwrap().len() as u64 / 4));
    }
}
