//! Smaller defects of the command-line tool (issue "batch commands … a README that is true",
//! items 8 and 9): errors name the file (and the lump, with the same offsets everywhere), exit
//! codes say what happened, BSP2 says BSP2, and writing a Respawn map under a new name says what
//! it leaves behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bspkit::build::BspBuilder;

#[path = "../../bspkit/tests/common/mod.rs"]
mod common;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bsp-cli-defects-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn bsp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bsp")).args(args).output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A Source map with a pakfile holding these entries.
fn source_with_pak(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use bspkit::branches::source::*;
    let mut p = bspkit::lumps::pakfile::PakBuilder::new();
    for (n, d) in entries {
        p.insert(n, d.to_vec()).unwrap();
    }
    let pak = p.build(bspkit::lumps::pakfile::PakCompression::Stored).unwrap();
    BspBuilder::new(&SOURCE).lump(LUMP_ENTITIES, common::fixtures::WORLD).lump(LUMP_PAKFILE, pak).build()
}

#[test]
fn errors_name_the_file() {
    let d = scratch("names");
    let quake = d.join("q.bsp");
    std::fs::write(&quake, bspkit::build::sample_quake1()).unwrap();
    let source = d.join("s.bsp");
    std::fs::write(&source, source_with_pak(&[("materials/a.vmt", b"x")])).unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["props", s(&quake)],
        vec!["gamelumps", s(&quake)],
        vec!["lump", "extract", s(&quake), "0", "--lmp", "-o", "/dev/null"],
        vec!["lmp", "diff", s(&quake), s(&quake), "-o", s(&d)],
        vec!["pak", "remove", s(&source), "nosuch.txt", "-o", "/dev/null"],
        vec!["decompress", s(&quake), "-o", "/dev/null"],
        vec!["compress", s(&quake), "-o", "/dev/null"],
    ];
    for args in cases {
        let o = bsp(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = err(&o);
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(e.contains(&format!("error: {}", args.iter().find(|a| a.ends_with(".bsp")).unwrap())), "{args:?}: {e}");
    }
    // decompress on a Quake map used to write a copy and exit 0.
    assert!(!d.join("copy.bsp").exists());
    let o = bsp(&["decompress", s(&quake), "-o", s(&d.join("copy.bsp"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!d.join("copy.bsp").exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn lmp_takes_the_common_flags_and_needs_the_map() {
    let d = scratch("lmp");
    let map = d.join("m.bsp");
    std::fs::write(&map, source_with_pak(&[])).unwrap();
    for args in [
        vec!["lmp", s(&map)],
        vec!["lmp", "--branch", "source", "--no-external", s(&map)],
        vec!["lmp", "list", "--branch", "source", s(&map)],
    ] {
        let o = bsp(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", err(&o));
    }
    let o = bsp(&["lmp", s(&d.join("missing.bsp"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("missing.bsp"), "{}", err(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn entity_errors_report_one_offset_everywhere() {
    let d = scratch("entoffset");
    let map = d.join("m.bsp");
    // A key without a value, 40 bytes into the entity lump.
    let bytes = bspkit::build::sample_quake1();
    let b = bspkit::Bsp::from_bytes(&bytes).unwrap();
    let mut ed = bspkit::edit::Editor::new(&b).unwrap();
    ed.set_lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"lonely\" }\n\0".to_vec()).unwrap();
    let out = ed.to_bytes().unwrap();
    std::fs::write(&map, &out).unwrap();
    let ents_offset = bspkit::Bsp::from_bytes(&out).unwrap().entry(0).unwrap().offset;
    let o = bsp(&["ents", s(&map)]);
    let reference = err(&o);
    assert!(reference.contains("lump 0 (ENTITIES)"), "{reference}");
    let file_offset = ents_offset + 41;
    assert!(reference.contains(&format!("offset {file_offset}:")), "{reference}");
    let tail = |e: &str| e.split_once(s(&map)).map(|(_, t)| t.to_string()).unwrap_or_default();
    for args in [
        vec!["ents", "get", s(&map)],
        vec!["ents", "set", s(&map), "--key", "a", "--value", "b", "-o", "/dev/null"],
        vec!["ents", "diff", s(&map), s(&map)],
        vec!["ents", "export", s(&map)],
    ] {
        let o = bsp(&args);
        if args[1] == "export" {
            // export prints the text as stored, without parsing it.
            assert_eq!(o.status.code(), Some(0));
            continue;
        }
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(tail(&err(&o)), tail(&reference), "{args:?}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bsp2_says_bsp2() {
    let d = scratch("bsp2");
    let map = d.join("b.bsp");
    let bytes = bspkit::branches::quake1::room::box_room(&bspkit::branches::quake1::BSP2);
    std::fs::write(&map, bytes).unwrap();
    let o = bsp(&["info", s(&map)]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.lines().nth(1).unwrap().contains("version BSP2"), "{out}");
    let o = bsp(&["scan", s(&map)]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains(" bsp2 BSP2 ") && !out.contains("v0"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn pak_add_says_what_it_replaces() {
    let d = scratch("pakcase");
    let map = d.join("m.bsp");
    std::fs::write(&map, source_with_pak(&[("materials/Wall.vmt", b"old")])).unwrap();
    let local = d.join("new.vmt");
    std::fs::write(&local, b"new").unwrap();
    let out = d.join("out.bsp");
    let o = bsp(&["pak", "add", s(&map), "materials/wall.vmt", s(&local), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("replaces pakfile entry materials/Wall.vmt") && err(&o).contains("case"), "{}", err(&o));
    let o = bsp(&["pak", "cat", s(&out), "materials/wall.vmt"]);
    assert_eq!(o.stdout, b"new");
    let o = bsp(&["pak", "add", s(&map), "materials/other.vmt", s(&local), "-o", s(&out)]);
    assert!(!err(&o).contains("replaces"), "{}", err(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn respawn_written_under_a_new_name_says_what_it_leaves_behind() {
    let Some(corpus) = common::corpus("respawn_written_under_a_new_name_says_what_it_leaves_behind") else { return };
    let Some(m) = common::maps_in(&corpus, "respawn").into_iter().find(|m| {
        let stem = m.path.file_stem().unwrap().to_string_lossy().into_owned();
        m.path.with_file_name(format!("{stem}_env.ent")).exists()
    }) else {
        return;
    };
    let d = scratch("respawn");
    let new = d.join("renamed.bsp");
    let o = bsp(&["rewrite", s(&m.path), "-o", s(&new)]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("only the .bsp was written") && err(&o).contains("_env.ent"), "{}", err(&o));
    // The missing partitions are warnings of their own code, not errors.
    let o = bsp(&["check", s(&new)]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("warning[missing_partition]"));
    std::fs::remove_dir_all(&d).unwrap();
}
