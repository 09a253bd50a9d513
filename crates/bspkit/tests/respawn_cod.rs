//! Respawn rBSP and Call of Duty 4 `.d3dbsp`: corpus maps open with the right branch and named
//! lumps, `.bsp_lump` siblings agree with the in-file lumps, entity partitions parse, and the
//! CoD4 rows equal `cod4map -info` (parsed from the `.info.txt` files).

mod common;

use std::path::{Path, PathBuf};

use bspkit::branches::{cod, respawn};
use bspkit::build::BspBuilder;
use bspkit::directory::LumpOrigin;
use bspkit::{Bsp, ErrorKind, OpenOptions};

fn no_external() -> OpenOptions {
    OpenOptions { external_lumps: false, ..OpenOptions::default() }
}

/// Every non-empty lump has a name from the branch table (no `UNKNOWN_<n>`), and every lump with
/// a declared record size divides by it.
fn assert_named_and_sized(bsp: &Bsp, path: &Path) {
    for e in bsp.lumps() {
        if e.length > 0 {
            assert!(!e.name.starts_with("UNKNOWN"), "{}: lump {} is unnamed", path.display(), e.index);
            assert!(bsp.branch().lumps.get(e.index).is_some(), "{}: lump {} outside the table", path.display(), e.index);
        }
        if let Some(size) = bsp.record_size(e.index) {
            let len = bsp.lump(e.index).unwrap().len();
            assert_eq!(len % size, 0, "{}: lump {} ({}) {len} bytes, record size {size}", path.display(), e.index, e.name);
        }
    }
}

#[test]
fn respawn_corpus_maps_open_named() {
    let Some(corpus) = common::corpus("respawn_corpus_maps_open_named") else { return };
    let maps = common::maps_in(&corpus, "respawn");
    assert!(maps.len() >= 3, "{} respawn maps", maps.len());
    for m in &maps {
        for opts in [OpenOptions::default(), no_external()] {
            let bsp = Bsp::open_with(&m.path, &opts).unwrap_or_else(|e| panic!("{e}"));
            let version = bsp.header().version;
            let want = match version {
                29 => "titanfall",
                36 | 37 => "titanfall2",
                _ => "apex",
            };
            assert_eq!(bsp.branch().id, want, "{}", m.path.display());
            assert_eq!(bsp.lumps().len(), 128);
            assert_eq!(bsp.header().extra, Some(127), "{}: last lump index", m.path.display());
            assert_named_and_sized(&bsp, &m.path);
            let ents = bsp.entities().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ents.list[0].classname().as_deref(), Some("worldspawn"), "{}", m.path.display());
        }
    }
}

/// open_questions.md B5: each `.bsp_lump` equals the lump it replaces, except where its size
/// differs; there (mp_looby 0x69) it is a prefix of the in-file lump and `check` reports it.
#[test]
fn bsp_lump_siblings_match_in_file_lumps() {
    let Some(corpus) = common::corpus("bsp_lump_siblings_match_in_file_lumps") else { return };
    let mut externals = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let inner = Bsp::open_with(&m.path, &no_external()).unwrap();
        let outer = Bsp::open(&m.path).unwrap();
        let mut mismatched = Vec::new();
        for e in outer.lumps() {
            let LumpOrigin::BspLump(p) = &e.origin else {
                // Only lumps without a sibling stay in the file.
                assert_eq!(e.origin, LumpOrigin::File);
                continue;
            };
            externals += 1;
            assert!(p.file_name().unwrap().to_string_lossy().ends_with(&format!(".{:04x}.bsp_lump", e.index)));
            let ext = outer.lump(e.index).unwrap();
            let own = inner.lump(e.index).unwrap();
            assert_eq!(respawn::directory_length(&outer, e.index), Some(own.len() as u64));
            if ext != own {
                assert!(
                    own.starts_with(ext) && ext.len() < own.len(),
                    "{}: lump {:#x} differs and is not a prefix",
                    m.path.display(),
                    e.index
                );
                mismatched.push(format!("{} ({})", e.index, e.name));
            }
        }
        // Every non-empty lump of a map with siblings has one.
        if outer.lumps().iter().any(|e| matches!(e.origin, LumpOrigin::BspLump(_))) {
            for e in inner.lumps().iter().filter(|e| e.length > 0) {
                assert!(matches!(outer.entry(e.index).unwrap().origin, LumpOrigin::BspLump(_)), "lump {:#x} has no sibling", e.index);
            }
        }
        let problems = bspkit::check::check(&outer);
        let reported: Vec<String> = problems.iter().filter(|p| p.message.contains(".bsp_lump")).map(|p| p.lump.clone()).collect();
        assert_eq!(reported, mismatched, "{}", m.path.display());
        // Nothing else is wrong with these maps.
        assert_eq!(problems.len(), mismatched.len(), "{}: {problems:?}", m.path.display());
        assert!(bspkit::check::check(&inner).is_empty(), "{}", m.path.display());
    }
    assert!(externals > 0, "no .bsp_lump in the corpus");
}

#[test]
fn entity_partitions_are_listed_and_parse() {
    let Some(corpus) = common::corpus("entity_partitions_are_listed_and_parse") else { return };
    let mut files = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let bsp = Bsp::open(&m.path).unwrap();
        let kinds = respawn::partition_kinds(&bsp).unwrap();
        let parts = respawn::entity_partitions(&bsp).unwrap();
        let found: Vec<&str> = parts.iter().map(|p| p.kind.as_str()).collect();
        assert_eq!(found, kinds, "{}: ENTITY_PARTITIONS vs .ent files", m.path.display());
        for p in &parts {
            files += 1;
            let header = p.header().unwrap();
            assert!(header.starts_with(b"ENTITIES0"), "{}", p.path.display());
            let ents = p.entities().unwrap_or_else(|e| panic!("{e}"));
            // The text runs to the end of the file or to a NUL (mp_looby's files end with one,
            // crossfire's do not): nothing but whitespace follows the last entity.
            if let Some(last) = ents.list.last() {
                assert!(ents.text[last.span.end..].iter().all(u8::is_ascii_whitespace), "{}", p.path.display());
            }
            if matches!(p.kind.as_str(), "spawn" | "env" | "script") {
                assert!(!ents.is_empty(), "{}", p.path.display());
                assert!(ents.iter().all(|e| e.classname().is_some()));
            }
        }
    }
    assert!(files >= 4, "{files} .ent files");
}

/// An Apex map whose lumps all live in `.bsp_lump` files: the `.bsp` is the header alone and
/// its directory points past the end (facts §1.1, "streaming" maps).
#[test]
fn header_only_apex_map_opens_from_bsp_lumps() {
    let lumps: Vec<(usize, Vec<u8>)> =
        vec![(respawn::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec()), (0x01, vec![7u8; 32]), (0x03, vec![9u8; 24])];
    let mut b = BspBuilder::new(&respawn::APEX).version(49 | 1 << 16);
    for (i, bytes) in &lumps {
        b = b.lump(*i, bytes.clone());
    }
    let full = b.build();
    let dir = std::env::temp_dir().join(format!("bspkit-apex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let map: PathBuf = dir.join("mp_header_only.bsp");
    std::fs::write(&map, &full[..2064]).unwrap();
    for (i, bytes) in &lumps {
        std::fs::write(dir.join(format!("mp_header_only.bsp.{i:04x}.bsp_lump")), bytes).unwrap();
    }
    let bsp = Bsp::open(&map).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bsp.branch().id, "apex");
    assert_eq!(bsp.detection().version, 49);
    for (i, bytes) in &lumps {
        assert_eq!(bsp.lump(*i).unwrap(), &bytes[..]);
    }
    assert_eq!(bsp.entities().unwrap().len(), 1);
    drop(bsp);
    // In memory there are no siblings: the directory is out of bounds.
    let err = Bsp::from_bytes(&full[..2064]).err().unwrap();
    assert!(matches!(err.kind, ErrorKind::LumpOutOfBounds { .. }), "{err}");
    // Without one sibling, opening fails with the lump named.
    std::fs::remove_file(dir.join("mp_header_only.bsp.0003.bsp_lump")).unwrap();
    let err = Bsp::open(&map).err().unwrap();
    assert!(matches!(err.kind, ErrorKind::LumpOutOfBounds { .. }), "{err}");
    assert_eq!(err.lump.as_deref(), Some("3 (VERTICES)"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cod_corpus_maps_open_named_and_check_clean() {
    let Some(corpus) = common::corpus("cod_corpus_maps_open_named_and_check_clean") else { return };
    let maps = common::maps_in(&corpus, "cod");
    assert!(maps.len() >= 4);
    for m in &maps {
        let bsp = Bsp::open(&m.path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bsp.branch().id, "cod4");
        assert_named_and_sized(&bsp, &m.path);
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{}: {problems:?}", m.path.display());
    }
}

/// One `cod4map -info` row: (count, name, bytes). Rows look like
/// `  0.02%      1 models                   48 B      0 KB   0.0%`; visibility has no count.
fn parse_info_rows(text: &str) -> Vec<(Option<u64>, String, u64)> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let Some((_, rest)) = t.split_once("% ") else { continue };
        let Some(b) = rest.find(" B ").or_else(|| rest.strip_suffix(" B").map(|r| r.len())) else { continue };
        let head = rest[..b].trim();
        let (head, bytes) = head.rsplit_once(' ').unwrap();
        let bytes: u64 = bytes.parse().unwrap();
        let head = head.trim();
        let (count, name) = match head.split_once(' ') {
            Some((c, n)) if c.chars().all(|ch| ch.is_ascii_digit()) => (Some(c.parse().unwrap()), n.trim()),
            _ => (None, head),
        };
        rows.push((count, name.to_string(), bytes));
    }
    rows
}

#[test]
fn cod_stats_equal_cod4map_info() {
    let Some(corpus) = common::corpus("cod_stats_equal_cod4map_info") else { return };
    let mut compared = 0;
    for m in common::maps_in(&corpus, "cod") {
        let Some(text) = common::info_txt(&m.path) else { continue };
        let want = parse_info_rows(&text);
        assert!(want.len() >= 40, "{}: parsed {} rows", m.path.display(), want.len());
        // The file size line: `<path>: <bytes>`.
        let size: u64 = text.lines().find_map(|l| l.rsplit_once(": ").and_then(|(_, n)| n.trim().parse().ok())).unwrap();
        let bsp = Bsp::open(&m.path).unwrap();
        assert_eq!(bsp.data().len() as u64, size);
        let got: Vec<(Option<u64>, String, u64)> = bspkit::stats::stats(&bsp).into_iter().map(|s| (s.count, s.name, s.bytes)).collect();
        assert_eq!(got, want, "{}", m.path.display());
        compared += 1;
    }
    assert!(compared >= 4, "{compared} .info.txt files compared");
}

#[test]
fn info_row_parser_reads_both_row_forms() {
    let rows = parse_info_rows(
        "  0.02%      1 models                   48 B      0 KB   0.0%\n  0.00%        visibility                0 B      0 KB   0.0%\n  3.23%      1 lightmaps           3145728 B   3072 KB  99.8%\n---------------------total 1956\n",
    );
    assert_eq!(rows, vec![(Some(1), "models".into(), 48), (None, "visibility".into(), 0), (Some(1), "lightmaps".into(), 3145728)]);
}

/// The checks find broken references (synthetic maps from the builder).
#[test]
fn cod_check_finds_bad_references() {
    let brush = |sides: u16, material: u16| [sides.to_le_bytes(), material.to_le_bytes()].concat();
    let side = |plane: u32, material: u32| [plane.to_le_bytes(), material.to_le_bytes()].concat();
    let mut sides = Vec::new();
    for _ in 0..6 {
        sides.extend(side(0x4200_0000, 0)); // axial: a float distance, not a plane index
    }
    sides.extend(side(5, 0)); // plane 5 of 1: out of range
    let good = BspBuilder::new(&cod::COD4)
        .lump(cod::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(cod::LUMP_MATERIALS, vec![0u8; 72])
        .lump(cod::LUMP_PLANES, vec![0u8; 16])
        .lump(cod::LUMP_BRUSHSIDES, sides.clone())
        .lump(cod::LUMP_BRUSHSIDEEDGECOUNTS, vec![1u8; 7])
        .lump(cod::LUMP_BRUSHEDGES, vec![0u8; 7])
        .lump(cod::LUMP_BRUSHES, brush(7, 0))
        .lump(cod::LUMP_LEAFBRUSHES, 0u32.to_le_bytes().to_vec());
    let bytes = good.clone().build();
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!((problems[0].lump.as_str(), problems[0].index), ("5 (BRUSHSIDES)", Some(6)));

    let bytes = good.lump(cod::LUMP_BRUSHES, brush(9, 3)).lump(cod::LUMP_LEAFBRUSHES, 4u32.to_le_bytes().to_vec()).build();
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert!(text.iter().any(|p| p.contains("material 3 is outside MATERIALS")), "{text:?}");
    assert!(text.iter().any(|p| p.contains("sides range 0+9")), "{text:?}");
    assert!(text.iter().any(|p| p.contains("brushes use 9 sides")), "{text:?}");
    assert!(text.iter().any(|p| p.starts_with("29 (LEAFBRUSHES)[0]")), "{text:?}");
}
