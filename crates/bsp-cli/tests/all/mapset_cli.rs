//! Respawn map sets (`.bsp` + `.bsp_lump` + `.ent`) written as a set by the `bsp` writing
//! commands: byte-identical rewrite of every file, an entity edit under a new name gives a
//! complete renamed set, `--fold-external`, an in-place edit of an external entity lump, and
//! damaged sets named in the problem list. Corpus maps are copied into temporary directories.

use crate::cli;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bspkit::directory::LumpOrigin;
use bspkit::{Bsp, OpenOptions};
use cli::{err, run, s, scratch};

use crate::common;

/// The map's stem (`mp_looby` for `mp_looby.bsp`).
fn stem(map: &Path) -> String {
    map.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Every file of the map's set in its folder: name → bytes.
fn set_files(map: &Path) -> BTreeMap<String, Vec<u8>> {
    let dir = map.parent().unwrap();
    let name = map.file_name().unwrap().to_string_lossy().into_owned();
    let prefix = format!("{}_", stem(map));
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n == name || n.starts_with(&format!("{name}.")) || (n.starts_with(&prefix) && n.ends_with(".ent"))
        })
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// Copy the map's set into `dir` (writable), returning the copied map's path.
fn copy_set(map: &Path, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for (name, bytes) in set_files(map) {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    dir.join(map.file_name().unwrap())
}

fn respawn_maps(test: &str) -> Vec<PathBuf> {
    let Some(corpus) = common::corpus(test) else { return Vec::new() };
    let maps: Vec<PathBuf> = common::maps_in(&corpus, "respawn").into_iter().map(|m| m.path).collect();
    assert_eq!(maps.len(), 3, "the corpus has 3 Respawn maps");
    maps
}

/// mp_looby of the corpus; `None` without a corpus (the test then skips, as `common::corpus` said).
fn looby(maps: &[PathBuf]) -> Option<&PathBuf> {
    if maps.is_empty() {
        return None;
    }
    Some(maps.iter().find(|m| m.ends_with("mp_looby.bsp")).expect("mp_looby in the corpus"))
}

/// The set renamed: `old` names with the stem replaced by `new`.
fn renamed(files: &BTreeMap<String, Vec<u8>>, old: &str, new: &str) -> Vec<String> {
    files.keys().map(|n| format!("{new}{}", &n[old.len()..])).collect()
}

#[test]
fn rewrite_of_every_respawn_set_is_byte_identical() {
    let maps = respawn_maps("rewrite_of_every_respawn_set_is_byte_identical");
    for map in &maps {
        let d = scratch(&format!("rewrite-{}", stem(map)));
        let input = copy_set(map, &d.join("in"));
        let out_dir = d.join("out");
        std::fs::create_dir_all(&out_dir).unwrap();
        let out = out_dir.join(input.file_name().unwrap());
        let o = run(&["rewrite", s(&input), "-o", s(&out)]);
        assert!(o.status.success(), "{}: {}", map.display(), err(&o));
        let (a, b) = (set_files(&input), set_files(&out));
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{}: the same files", map.display());
        for (name, bytes) in &a {
            assert!(b[name] == *bytes, "{}: {name} differs", map.display());
        }
        if map.ends_with("mp_looby.bsp") {
            assert_eq!(a.keys().filter(|n| n.ends_with(".bsp_lump")).count(), 64);
            assert_eq!(a.keys().filter(|n| n.ends_with(".ent")).count(), 5);
        }
        eprintln!("{}: {} files byte-identical", map.display(), a.len());
    }
}

#[test]
fn entity_edit_under_a_new_name_writes_a_complete_set() {
    let maps = respawn_maps("entity_edit_under_a_new_name_writes_a_complete_set");
    for map in &maps {
        let d = scratch(&format!("rename-{}", stem(map)));
        let input = copy_set(map, &d.join("in"));
        let new = d.join("new.bsp");
        let o = run(&["ents", "set", s(&input), "--classname", "worldspawn", "--key", "message", "--value", "renamed set", "-o", s(&new)]);
        assert!(o.status.success(), "{}: {}", map.display(), err(&o));
        let before = set_files(&input);
        let after = set_files(&new);
        let mut expected = renamed(&before, &stem(&input), "new");
        expected.sort();
        assert_eq!(after.keys().cloned().collect::<Vec<_>>(), expected, "{}", map.display());
        // The partitions are copied as they were.
        for (name, bytes) in before.iter().filter(|(n, _)| n.ends_with(".ent")) {
            assert!(after[&format!("new{}", &name[stem(&input).len()..])] == *bytes);
        }
        let o = run(&["check", s(&new)]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", map.display(), String::from_utf8_lossy(&o.stdout));
        assert!(!String::from_utf8_lossy(&o.stdout).contains("missing_partition"));
        let o = run(&["ents", "get", s(&new), "--classname", "worldspawn", "--key", "message"]);
        assert!(String::from_utf8_lossy(&o.stdout).contains("renamed set"), "{}", String::from_utf8_lossy(&o.stdout));
        // The input set is untouched.
        assert_eq!(set_files(&input), before);
    }
}

#[test]
fn fold_external_gives_one_file_with_the_same_lumps() {
    let maps = respawn_maps("fold_external_gives_one_file_with_the_same_lumps");
    let Some(map) = looby(&maps) else { return };
    let d = scratch("mapset-fold");
    let input = copy_set(map, &d.join("in"));
    let folded = d.join("folded.bsp");
    let o = run(&["rewrite", s(&input), "-o", s(&folded), "--fold-external"]);
    assert!(o.status.success(), "{}", err(&o));
    let files = set_files(&folded);
    assert!(files.keys().all(|n| !n.contains(".bsp_lump")), "{:?}", files.keys());
    assert_eq!(files.keys().filter(|n| n.ends_with(".ent")).count(), 5);
    let compare = |folded: &Path| {
        let set = Bsp::open(&input).unwrap();
        let one = Bsp::open(folded).unwrap();
        assert!(one.lumps().iter().all(|e| e.origin == LumpOrigin::File));
        let mut prefix_kept = 0;
        for e in set.lumps() {
            let (a, b) = (set.raw_lump(e.index).unwrap(), one.raw_lump(e.index).unwrap());
            if a != b {
                // The one lump whose in-file copy holds more than its `.bsp_lump` (a prefix of it)
                // keeps the in-file copy.
                assert!(b.starts_with(a) && matches!(e.origin, LumpOrigin::BspLump(_)), "lump {} differs", e.index);
                prefix_kept += 1;
            }
        }
        assert!(prefix_kept <= 1);
        assert_eq!(run(&["check", s(folded)]).status.code(), Some(0));
    };
    compare(&folded);
    // In place: the `.bsp_lump` files are removed once the `.bsp` holds their lumps.
    let inplace = copy_set(map, &d.join("inplace"));
    let o = run(&["rewrite", s(&inplace), "--in-place", "--fold-external"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(set_files(&inplace).keys().all(|n| !n.contains(".bsp_lump")));
    compare(&inplace);
    // Folding a Quake map is refused.
    let q = d.join("q.bsp");
    std::fs::write(&q, bspkit::build::sample_quake1()).unwrap();
    assert_eq!(run(&["rewrite", s(&q), "-o", s(&d.join("q2.bsp")), "--fold-external"]).status.code(), Some(2));
}

/// `rewrite --fold-external` then `rewrite --split-external` with the set's lumps (and lump
/// 0x69's shorter `.bsp_lump` length): mp_looby's 70 files are back byte-identical.
#[test]
fn fold_then_split_external_gives_the_set_back() {
    let maps = respawn_maps("fold_then_split_external_gives_the_set_back");
    let Some(map) = looby(&maps) else { return };
    let d = scratch("mapset-split");
    let folded_dir = d.join("folded");
    std::fs::create_dir_all(&folded_dir).unwrap();
    let folded = folded_dir.join("mp_looby.bsp");
    let o = run(&["rewrite", s(map), "-o", s(&folded), "--fold-external"]);
    assert!(o.status.success(), "{}", err(&o));
    // The plan: each `.bsp_lump` of the set, with its length where shorter than the lump.
    let set = Bsp::open(map).unwrap();
    let alone = Bsp::open_with(map, &OpenOptions { external_lumps: false, ..Default::default() }).unwrap();
    let plan: Vec<String> = set
        .lumps()
        .iter()
        .filter(|e| matches!(e.origin, LumpOrigin::BspLump(_)))
        .map(|e| {
            let inside = alone.entry(e.index).unwrap().length;
            if e.length < inside {
                format!("{:04x}:{}", e.index, e.length)
            } else {
                format!("{:04x}", e.index)
            }
        })
        .collect();
    assert_eq!(plan.len(), 64);
    let split_dir = d.join("split");
    std::fs::create_dir_all(&split_dir).unwrap();
    let split = split_dir.join("mp_looby.bsp");
    let o = run(&["rewrite", s(&folded), "-o", s(&split), "--split-external", &plan.join(",")]);
    assert!(o.status.success(), "{}", err(&o));
    let (a, b) = (set_files(map), set_files(&split));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(b[name] == *bytes, "{name} differs");
    }
    assert_eq!(a.len(), 70);
    // A list that does not parse, and a Quake map: refused, exit 2.
    assert_eq!(run(&["rewrite", s(&folded), "-o", s(&d.join("x.bsp")), "--split-external", "zz"]).status.code(), Some(2));
    let q = d.join("q.bsp");
    std::fs::write(&q, bspkit::build::sample_quake1()).unwrap();
    assert_eq!(run(&["rewrite", s(&q), "-o", s(&d.join("q2.bsp")), "--split-external", "0"]).status.code(), Some(2));
}

#[test]
fn in_place_edit_of_an_external_entity_lump_writes_its_bsp_lump() {
    let maps = respawn_maps("in_place_edit_of_an_external_entity_lump_writes_its_bsp_lump");
    let Some(map) = looby(&maps) else { return };
    let d = scratch("mapset-inplace");
    let input = copy_set(map, &d.join("in"));
    let ents_file = input.with_file_name("mp_looby.bsp.0000.bsp_lump");
    let before = set_files(&input);
    let o = run(&["ents", "set", s(&input), "--classname", "worldspawn", "--key", "message", "--value", "edited in place", "--in-place"]);
    assert!(o.status.success(), "{}", err(&o));
    let after = set_files(&input);
    let text = std::fs::read(&ents_file).unwrap();
    assert!(text.windows(15).any(|w| w == b"edited in place"), "the .bsp_lump holds the edit");
    assert_ne!(before["mp_looby.bsp.0000.bsp_lump"], after["mp_looby.bsp.0000.bsp_lump"]);
    // Only the entity lump's file, the `.bsp` (its own copy of the lump agrees) and the external
    // game lump change: its child offsets point into the `.bsp`, after the grown entity lump.
    let changed: Vec<&String> = before.keys().filter(|n| before[*n] != after[*n]).collect();
    assert_eq!(changed, vec!["mp_looby.bsp", "mp_looby.bsp.0000.bsp_lump", "mp_looby.bsp.0023.bsp_lump"]);
    let (gb, ga) = (&before["mp_looby.bsp.0023.bsp_lump"], &after["mp_looby.bsp.0023.bsp_lump"]);
    assert_eq!(gb.len(), ga.len());
    let sprp = Bsp::open(&input).unwrap();
    assert!(bspkit::branches::respawn::View::<bspkit::branches::respawn::Titanfall2>::new(&sprp).unwrap().static_props().is_ok());
    let full = Bsp::open(&input).unwrap();
    let alone = Bsp::open_with(&input, &OpenOptions { external_lumps: false, ..Default::default() }).unwrap();
    assert_eq!(full.raw_lump(0).unwrap(), alone.raw_lump(0).unwrap());
    let o = run(&["check", s(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let o = run(&["ents", "get", s(&input), "--classname", "worldspawn", "--key", "message"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("edited in place"));
}

/// A truncated `.bsp_lump` and a missing `.ent` are named by `check`, and a written set keeps
/// naming them; a stale `.bsp_lump` beside the target is named and refused.
#[test]
fn damaged_sets_are_named() {
    let maps = respawn_maps("damaged_sets_are_named");
    let Some(map) = looby(&maps) else { return };
    let d = scratch("mapset-damaged");
    let input = copy_set(map, &d.join("in"));
    let planes = input.with_file_name("mp_looby.bsp.0001.bsp_lump");
    let bytes = std::fs::read(&planes).unwrap();
    std::fs::write(&planes, &bytes[..bytes.len() - 5]).unwrap();
    std::fs::remove_file(input.with_file_name("mp_looby_fx.ent")).unwrap();
    let o = run(&["check", s(&input)]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("mp_looby.bsp.0001.bsp_lump") && out.contains("external_size"), "{out}");
    assert!(out.contains("mp_looby_fx.ent") && out.contains("missing_partition"), "{out}");
    let new = d.join("new.bsp");
    let o = run(&["rewrite", s(&input), "-o", s(&new), "--allow-problems"]);
    let o2 = run(&["check", s(&new)]);
    let out = String::from_utf8_lossy(&o2.stdout).into_owned();
    assert!(out.contains("new.bsp.0001.bsp_lump") && out.contains("new_fx.ent"), "{}\n{out}", err(&o));
    // A stale `.bsp_lump` named after the target would override a written lump: refused.
    let other = d.join("other.bsp");
    std::fs::write(d.join("other.bsp.0003.bsp_lump"), b"stale").unwrap();
    let o = run(&["rewrite", s(&input), "-o", s(&other), "--fold-external"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("other.bsp.0003.bsp_lump"), "{}", err(&o));
    assert!(!other.exists());
}

/// A failure midway: a rename that cannot happen (a directory stands where a `.bsp_lump` goes)
/// is an error naming that file, and the `.bsp`, renamed last, is not written.
#[test]
fn a_failed_rename_names_the_file_and_never_writes_the_bsp() {
    let maps = respawn_maps("a_failed_rename_names_the_file_and_never_writes_the_bsp");
    let Some(map) = looby(&maps) else { return };
    let d = scratch("mapset-rename-fails");
    let input = copy_set(map, &d.join("in"));
    let out = d.join("out");
    std::fs::create_dir_all(out.join("new.bsp.0000.bsp_lump").join("x")).unwrap();
    let new = out.join("new.bsp");
    let o = run(&["rewrite", s(&input), "-o", s(&new)]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("new.bsp.0000.bsp_lump"), "{}", err(&o));
    assert!(!new.exists(), "the .bsp is renamed last");
    // No temporary file is left behind.
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("bspkit-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An Apex streaming set (issue 22, as the real season-13 `mp_lobby`): the `.bsp` is the header
/// alone, its lumps are in `.bsp_lump` files, and empty lumps point past its end. `check` is
/// clean, `rewrite -o` writes every file of the set byte for byte. Made with the builder.
#[test]
fn apex_streaming_set_checks_clean_and_rewrites_byte_for_byte() {
    use bspkit::branches::respawn;
    let d = scratch("streaming");
    let input_dir = d.join("in");
    std::fs::create_dir_all(&input_dir).unwrap();
    let full = bspkit::build::BspBuilder::new(&respawn::APEX)
        .version(51 | 1 << 16)
        .lump(respawn::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .build();
    let bsp = Bsp::from_bytes(&full).unwrap();
    let mut header = full[..2064].to_vec();
    for e in bsp.lumps().iter().filter(|e| e.length > 0) {
        std::fs::write(input_dir.join(format!("lobby.bsp.{:04x}.bsp_lump", e.index)), bsp.raw_lump(e.index).unwrap()).unwrap();
    }
    let at = 16 + 16 * respawn::LUMP_WATER_BODIES;
    header[at..at + 4].copy_from_slice(&5943300u32.to_le_bytes());
    let input = input_dir.join("lobby.bsp");
    std::fs::write(&input, header).unwrap();

    let o = run(&["check", s(&input)]);
    assert!(o.status.success() && !String::from_utf8_lossy(&o.stdout).contains("lump_unreadable"), "{}", err(&o));
    let out = d.join("out").join("lobby.bsp");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let o = run(&["rewrite", s(&input), "-o", s(&out)]);
    assert!(o.status.success(), "{}", err(&o));
    let (a, b) = (set_files(&input), set_files(&out));
    assert_eq!(a.len(), 2);
    assert_eq!(a, b);
}
