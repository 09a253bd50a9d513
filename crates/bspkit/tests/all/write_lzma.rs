//! LZMA lump compression through the writer: decompress → compress → decompress gives the same
//! lump bytes, on a synthetic map and on the corpus's compressed Xbox 360 map. The game lump
//! and the pakfile are never compressed as a whole (source.md §6).

use crate::common;

use bspkit::build::BspBuilder;
use bspkit::edit::{Editor, NEVER_COMPRESSED};
use bspkit::write::{self, GAME_LUMP};
use bspkit::{Bsp, Family, OpenOptions};

/// Every lump decompressed; the game lump is compared through its decoded children.
fn all_lumps(bsp: &Bsp) -> Vec<(usize, Vec<u8>)> {
    bsp.lumps()
        .iter()
        .map(|e| if e.index == GAME_LUMP { (e.index, Vec::new()) } else { (e.index, bsp.lump(e.index).unwrap().to_vec()) })
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
    pass(bytes, |ed, i| {
        if i == GAME_LUMP {
            ed.compress_game_lump_children(true).unwrap() > 0
        } else {
            !NEVER_COMPRESSED.contains(&i) && ed.compress_lump(i).unwrap()
        }
    })
}

fn decompress_all(bytes: &[u8]) -> (Vec<u8>, usize) {
    pass(bytes, |ed, i| if i == GAME_LUMP { ed.compress_game_lump_children(false).unwrap() > 0 } else { ed.decompress_lump(i).unwrap() })
}

/// The game lump's children decoded: (id, version, bytes), whatever their compression.
fn game_children(bsp: &Bsp) -> Vec<(u32, u16, Vec<u8>)> {
    let Some(e) = bsp.entry(GAME_LUMP).filter(|e| e.length > 0) else { return Vec::new() };
    let raw = bsp.lump(GAME_LUMP).unwrap();
    let base = match write::game_lump_convention(raw, bsp.endian(), e.offset) {
        Some(write::GameLumpOffsets::Absolute) => e.offset as i64,
        _ => 0,
    };
    let dir = write::game_lump_directory(raw, bsp.endian()).unwrap();
    let compressed = dir.iter().any(|c| c.flags & 1 != 0);
    dir.iter()
        .enumerate()
        .filter(|(i, c)| !(compressed && i + 1 == dir.len() && c.id == 0 && c.length == 0))
        .map(|(_, c)| {
            let s = (c.offset - base) as usize;
            let stored = &raw[s..s + c.stored as usize];
            let data = if c.flags & 1 != 0 {
                bspkit::compression::decompress_valve_lzma(stored, bsp.endian(), 1 << 30).unwrap()
            } else {
                stored.to_vec()
            };
            assert_eq!(data.len() as i64, c.length, "filelen is the uncompressed size (A13)");
            (c.id, c.version, data)
        })
        .collect()
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
    let want_children = game_children(&p);
    assert!(
        !p.entry(GAME_LUMP).is_some_and(|e| e.length > 0) || !want_children.is_empty(),
        "{what}: {:?} {:?}",
        p.entry(GAME_LUMP),
        write::game_lump_directory(p.lump(GAME_LUMP).unwrap(), p.endian())
    );
    let o = Bsp::from_bytes(original).unwrap();
    same(&want, &all_lumps(&o), &format!("{what}: decompressed map"));
    assert!(game_children(&o) == want_children, "{what}: game lump children differ after decompression");
    if let Some(g) = p.entry(GAME_LUMP).filter(|e| e.length > 0) {
        let dir = write::game_lump_directory(p.lump(GAME_LUMP).unwrap(), p.endian()).unwrap();
        assert!(dir.iter().all(|c| c.flags & 1 == 0), "{what}: game lump child still compressed at {}", g.offset);
    }
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
    assert!(game_children(&c) == want_children, "{what}: compressed game lump children decode to other bytes");
    if let Some(e) = c.entry(GAME_LUMP).filter(|e| e.length > 0) {
        let raw = c.lump(GAME_LUMP).unwrap();
        let dir = write::game_lump_directory(raw, c.endian()).unwrap();
        if dir.iter().any(|d| d.flags & 1 != 0) {
            // A13: an empty dummy entry, counted, holds the end offset.
            let last = dir.last().unwrap();
            let base = if write::game_lump_convention(raw, c.endian(), e.offset) == Some(write::GameLumpOffsets::Absolute) {
                e.offset as i64
            } else {
                0
            };
            assert_eq!((last.id, last.length, last.offset), (0, 0, base + raw.len() as i64), "{what}: dummy entry");
        }
    }
    let (again, _) = decompress_all(&packed);
    let again = Bsp::from_bytes(&again).unwrap();
    same(&all_lumps(&again), &want, &format!("{what}: decompressed again"));
    assert!(game_children(&again) == want_children, "{what}: game lump children differ after the cycle");
    assert!(bspkit::check::check(&c).is_empty() || !bspkit::check::check(&p).is_empty(), "{what}: compressed map has problems");
    n
}

#[test]
fn synthetic_source_map_compress_cycle() {
    use bspkit::branches::source::SOURCE;
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let planes: Vec<u8> = (0..2000u32).flat_map(|i| (i % 7).to_le_bytes()).collect();
    // A game lump with one child of 400 compressible bytes and absolute offsets; it follows
    // lumps 0 (30 bytes, padded to 32) and 1 (8000 bytes): 1036 + 32 + 8000 = 9068.
    let mut game = Vec::new();
    for v in [1u32, u32::from_be_bytes(*b"sprp"), 10 << 16, 9068 + 20, 400] {
        game.extend_from_slice(&v.to_le_bytes());
    }
    game.extend([7u8; 400]);
    let bytes = BspBuilder::new(&SOURCE).lump(0, ents).lump(1, planes).lump(35, game).lump(40, b"PK\x05\x06".to_vec()).build();
    assert_eq!(Bsp::from_bytes(&bytes).unwrap().entry(35).unwrap().offset, 9068);
    let n = check_cycle(&bytes, "synthetic");
    assert!(n >= 3, "{n}: entities, planes and the game lump child");
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
