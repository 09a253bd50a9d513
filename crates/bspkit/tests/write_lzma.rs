//! LZMA lump compression through the writer: decompress → compress → decompress gives the same
//! lump bytes, on a synthetic map and on the corpus's compressed Xbox 360 map. The game lump
//! and the pakfile are never compressed as a whole (source.md §6).

mod common;

use bspkit::build::BspBuilder;
use bspkit::edit::{Editor, NEVER_COMPRESSED};
use bspkit::{Bsp, Family, OpenOptions};

/// Every lump decompressed; the game lump with its child offsets made lump-relative, since it
/// moves when the lumps before it change size.
fn all_lumps(bsp: &Bsp) -> Vec<(usize, Vec<u8>)> {
    bsp.lumps()
        .iter()
        .map(|e| {
            let mut b = bsp.lump(e.index).unwrap().to_vec();
            if e.index == bspkit::write::GAME_LUMP
                && bspkit::write::game_lump_convention(&b, bsp.endian(), e.offset) == Some(bspkit::write::GameLumpOffsets::Absolute)
            {
                bspkit::write::rebase_game_lump(&mut b, bsp.endian(), -(e.offset as i64)).unwrap();
            }
            (e.index, b)
        })
        .collect()
}

fn same(a: &[(usize, Vec<u8>)], b: &[(usize, Vec<u8>)], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for ((i, x), (_, y)) in a.iter().zip(b) {
        assert!(x == y, "{what}: lump {i} differs");
    }
}

/// Apply `f` to every non-empty lump, write, reopen.
fn pass(bytes: &[u8], f: impl Fn(&mut Editor, usize) -> bool) -> (Vec<u8>, usize) {
    let bsp = Bsp::from_bytes_with(bytes, &OpenOptions { external_lumps: false, ..Default::default() }).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let mut n = 0;
    for e in bsp.lumps().iter().filter(|e| e.length > 0) {
        if f(&mut ed, e.index) {
            n += 1;
        }
    }
    (ed.to_bytes().unwrap(), n)
}

fn compress_all(bytes: &[u8]) -> (Vec<u8>, usize) {
    pass(bytes, |ed, i| !NEVER_COMPRESSED.contains(&i) && ed.compress_lump(i).unwrap())
}

fn decompress_all(bytes: &[u8]) -> (Vec<u8>, usize) {
    pass(bytes, |ed, i| ed.decompress_lump(i).unwrap())
}

fn check_cycle(original: &[u8], what: &str) -> usize {
    let (plain, _) = decompress_all(original);
    let p = Bsp::from_bytes(&plain).unwrap();
    assert!(
        p.lumps().iter().all(|e| !e.compressed
            && (e.fourcc == Some(0) || e.length == 0 || !Bsp::from_bytes(original).unwrap().entry(e.index).unwrap().compressed)),
        "{what}"
    );
    let want = all_lumps(&p);
    same(&want, &all_lumps(&Bsp::from_bytes(original).unwrap()), &format!("{what}: decompressed map"));
    let (packed, n) = compress_all(&plain);
    let c = Bsp::from_bytes(&packed).unwrap();
    for e in c.lumps() {
        if e.compressed {
            assert!(!NEVER_COMPRESSED.contains(&e.index), "{what}: lump {} compressed", e.index);
            // fourCC holds the uncompressed size (source.md §6).
            assert_eq!(e.fourcc, Some(c.lump(e.index).unwrap().len() as u32), "{what}: lump {}", e.index);
        }
    }
    same(&all_lumps(&c), &want, &format!("{what}: compressed map"));
    let (again, _) = decompress_all(&packed);
    same(&all_lumps(&Bsp::from_bytes(&again).unwrap()), &want, &format!("{what}: decompressed again"));
    assert!(bspkit::check::check(&c).is_empty() || !bspkit::check::check(&p).is_empty(), "{what}: compressed map has problems");
    n
}

#[test]
fn synthetic_source_map_compress_cycle() {
    use bspkit::branches::source::SOURCE;
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let planes: Vec<u8> = (0..2000u32).flat_map(|i| (i % 7).to_le_bytes()).collect();
    let bytes = BspBuilder::new(&SOURCE)
        .lump(0, ents)
        .lump(1, planes)
        .lump(35, 0u32.to_le_bytes().to_vec())
        .lump(40, b"PK\x05\x06".to_vec())
        .build();
    let n = check_cycle(&bytes, "synthetic");
    assert!(n >= 2, "{n}");
}

#[test]
fn corpus_compressed_maps_compress_cycle() {
    let Some(corpus) = common::corpus("corpus_compressed_maps_compress_cycle") else { return };
    let mut seen = 0;
    for m in common::maps(&corpus) {
        let bytes = std::fs::read(&m.path).unwrap();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        if bsp.family() != Family::Source {
            continue;
        }
        let compressed = bsp.lumps().iter().filter(|e| e.compressed).count();
        let n = check_cycle(&bytes, &m.path.display().to_string());
        if compressed > 0 {
            // Every lump the console compiler compressed is compressed again.
            assert!(n >= compressed, "{}: {n} < {compressed}", m.path.display());
            seen += 1;
        }
    }
    assert!(seen >= 1, "no LZMA map in the corpus");
}
