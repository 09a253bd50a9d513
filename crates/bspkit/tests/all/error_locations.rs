//! "Every error names the file, the lump and the offset": real corpus maps, damaged in a copy
//! written to a temporary directory and opened from that path, give errors whose message
//! carries all three.

use crate::common;

use std::path::{Path, PathBuf};

use bspkit::{Bsp, ErrorKind};

/// A fresh temporary directory for this test (removed at the end of the test).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("bspkit-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first corpus map of `folder` whose detected branch is `branch`.
fn corpus_map(corpus: &Path, folder: &str, branch: &str) -> Option<(PathBuf, Vec<u8>)> {
    common::maps_in(corpus, folder).into_iter().find_map(|m| {
        let bytes = std::fs::read(&m.path).ok()?;
        (Bsp::from_bytes(&bytes).ok()?.branch().id == branch).then_some((m.path, bytes))
    })
}

/// The message must name the damaged file, the lump and an offset.
fn assert_located(msg: &str, file: &str, lump: &str) {
    eprintln!("{msg}");
    assert!(msg.contains(file), "no file name {file:?} in {msg:?}");
    assert!(msg.contains(lump), "no lump {lump:?} in {msg:?}");
    assert!(msg.contains("offset "), "no offset in {msg:?}");
}

#[test]
fn record_lump_cut_short_names_file_lump_and_offset() {
    let Some(corpus) = common::corpus("record_lump_cut_short_names_file_lump_and_offset") else { return };
    let (src, mut bytes) = corpus_map(&corpus, "quake1", "quake1").expect("a BSP29 map in the corpus");
    let dir = TempDir::new("errloc-q1");
    // BSP29 directory: version, then (offset, length) pairs; NODES is lump 5 (quake_family.md B.2).
    let at = 4 + 8 * bspkit::branches::quake1::LUMP_NODES + 4;
    let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    bytes[at..at + 4].copy_from_slice(&(len - 1).to_le_bytes());
    let path = dir.0.join("short_nodes.bsp");
    std::fs::write(&path, &bytes).unwrap();

    let bsp = Bsp::open(&path).unwrap();
    let err = bsp.records::<bspkit::branches::quake1::Node29>(bspkit::branches::quake1::LUMP_NODES).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::BadLumpLength { .. }), "{err}");
    let lump_offset = bsp.entry(bspkit::branches::quake1::LUMP_NODES).unwrap().offset;
    let msg = err.to_string();
    assert_located(&msg, "short_nodes.bsp", "NODES");
    assert!(msg.contains(&format!("offset {lump_offset}")), "{msg}");
    // The check report names the lump too.
    let problems = bspkit::check::check(&bsp);
    assert!(problems.iter().any(|p| p.lump.contains("NODES")), "{src:?}: {problems:?}");
}

#[test]
fn lump_running_past_the_end_names_file_lump_and_offset() {
    let Some(corpus) = common::corpus("lump_running_past_the_end_names_file_lump_and_offset") else { return };
    let (_, bytes) = corpus_map(&corpus, "quake2", "quake2").expect("a Quake 2 map in the corpus");
    let dir = TempDir::new("errloc-q2");
    // Cut the file in the middle of its last lump.
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let last = bsp.lumps().iter().filter(|e| e.length > 8).max_by_key(|e| e.offset).unwrap().clone();
    let cut = (last.offset + last.length / 2) as usize;
    let path = dir.0.join("cut.bsp");
    std::fs::write(&path, &bytes[..cut]).unwrap();

    let err = match Bsp::open(&path) {
        Err(e) => e,
        Ok(bsp) => bsp.lump(last.index).unwrap_err(),
    };
    assert_located(&err.to_string(), "cut.bsp", last.name);
}

#[test]
fn bad_lzma_lump_names_file_lump_and_offset() {
    let Some(corpus) = common::corpus("bad_lzma_lump_names_file_lump_and_offset") else { return };
    let Some((_, mut bytes)) = common::maps_in(&corpus, "source").into_iter().find_map(|m| {
        let bytes = std::fs::read(&m.path).ok()?;
        (&bytes[..4] == b"VBSP").then_some((m.path, bytes))
    }) else {
        panic!("a little-endian Source map in the corpus")
    };
    let dir = TempDir::new("errloc-lzma");
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    // The planes lump (1), overwritten by a Valve LZMA header (source.md §LZMA) announcing
    // 4096 bytes, followed by a stream that is not LZMA.
    let e = bsp.entry(1).unwrap().clone();
    assert!(e.length >= 64, "planes lump too small to damage");
    let (ofs, len) = (e.offset as usize, e.length as usize);
    let mut lump = Vec::new();
    lump.extend_from_slice(b"LZMA");
    lump.extend_from_slice(&4096u32.to_le_bytes());
    lump.extend_from_slice(&((len - 17) as u32).to_le_bytes());
    lump.extend_from_slice(&[0x5d, 0, 0, 1, 0]);
    lump.resize(len, 0xff);
    bytes[ofs..ofs + len].copy_from_slice(&lump);
    // fourCC (the last field of lump_t in either order) holds the uncompressed size.
    let dir_at = 8 + 16 + 12;
    bytes[dir_at..dir_at + 4].copy_from_slice(&4096u32.to_le_bytes());
    let path = dir.0.join("bad_lzma.bsp");
    std::fs::write(&path, &bytes).unwrap();

    let bsp = Bsp::open(&path).unwrap();
    assert!(bsp.entry(1).unwrap().compressed);
    let err = bsp.lump(1).unwrap_err();
    let msg = err.to_string();
    assert_located(&msg, "bad_lzma.bsp", "PLANES");
    assert!(msg.contains(&format!("offset {ofs}")), "{msg}");
}

/// The "not a known BSP format" message lists what is supported; every branch's magic must be
/// in that list, so a new family cannot be left out of it (the Ritual magics and Quake 64's
/// `" 46Q"` were, until session 39).
#[test]
fn unknown_format_message_names_every_registered_magic() {
    use bspkit::branch::HeaderKind;
    let err = match Bsp::from_bytes(b"ZZZZ\x01\x00\x00\x00 not a map at all, only some bytes") {
        Err(e) => e,
        Ok(_) => panic!("garbage opened as a map"),
    };
    assert!(matches!(err.kind, ErrorKind::UnknownFormat { .. }), "{err}");
    let msg = err.to_string();
    for branch in bspkit::branches::all() {
        let magic: String = match branch.header {
            HeaderKind::Quake { magic: Some(m) }
            | HeaderKind::IdMagic { magic: m }
            | HeaderKind::Ritual { magic: m }
            | HeaderKind::IdLengthFirst { magic: m } => String::from_utf8_lossy(&m).into_owned(),
            HeaderKind::Quake { magic: None } => "int 29".into(),
            HeaderKind::Valve { .. } => "VBSP".into(),
            HeaderKind::Respawn => "rBSP".into(),
            HeaderKind::CodLumpList => "IBSP".into(),
            HeaderKind::Chunks => "GBSP".into(),
        };
        assert!(msg.contains(&magic), "branch {} (magic {magic:?}) missing from {msg:?}", branch.id);
    }
}
