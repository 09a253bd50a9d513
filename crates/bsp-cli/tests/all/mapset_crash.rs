//! Issue 23, output sets: a Respawn set write killed at every step (the test hook
//! `bspkit::write::set::SET_ABORT_HOOK_ENV` aborts the process after its K-th link, rename or
//! removal, as a crash or `kill -9` would). Every state left is the old set, the new set, or
//! the new set with files listed in the set's journal (`.NAME.bspkit-stale`) that `bsp` does
//! not read, `check` reports as `interrupted_set` errors and the next write removes. Builder-
//! made sets (no corpus needed): `m.bsp` (Titanfall 2) whose entity lump lives in
//! `m.bsp.0000.bsp_lump`, with an `env` partition.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bspkit::branches::respawn::LUMP_ENTITIES;
use bspkit::directory::LumpOrigin;
use bspkit::write::set::SET_ABORT_HOOK_ENV;
use bspkit::{Bsp, OpenOptions};

use crate::cli::{err, run, s, scratch, BSP};

// The same length as EXTERNAL: a `.bsp_lump` whose size disagrees with the directory and is
// newer than the `.bsp` is itself reported (an interrupted write of another kind).
const INSIDE: &[u8] = b"{\n\"classname\" \"worldspawn\"\n\"message\" \"inside__\"\n}\n\0";
const EXTERNAL: &[u8] = b"{\n\"classname\" \"worldspawn\"\n\"message\" \"external\"\n}\n\0";
const ENV: &[u8] = b"ENTITIES01\n{\n\"classname\" \"info_target\"\n}\n\0";

/// `<dir>/<name>.bsp` with its entity lump in a `.bsp_lump` (message `external`, the `.bsp`'s
/// own copy says `inside__`) and an `env` partition.
fn make_set(dir: &Path, name: &str) -> PathBuf {
    crate::common::respawn_external_set(dir, name, INSIDE, EXTERNAL, ENV)
}

/// The worldspawn `message` of the map as `bsp` opens it (with its external files), and
/// whether the entity lump came from a `.bsp_lump`.
fn message(map: &Path, opts: &OpenOptions) -> (String, bool) {
    let bsp = Bsp::open_with(map, opts).unwrap_or_else(|e| panic!("{}: {e}", map.display()));
    let external = matches!(bsp.entry(LUMP_ENTITIES).unwrap().origin, LumpOrigin::BspLump(_));
    let m = bsp.entities().unwrap().list[0].get("message").unwrap_or_default().into_owned();
    (m, external)
}

fn killed_at(k: u64, args: &[&str]) -> Output {
    Command::new(BSP).args(args).env(SET_ABORT_HOOK_ENV, k.to_string()).output().unwrap()
}

/// `check` of the map: its exit code and stdout.
fn check(map: &Path) -> (Option<i32>, String) {
    let o = run(&["check", s(map)]);
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Run a set write killed after step 0, 1, 2, … (each in its own folder `d/kK`) until it
/// finishes: `step(k, dir)` makes the set, runs the write killed after step `k` and names the
/// state it left. A finished write must leave no journal (`.MAP.bspkit-stale`). The states in
/// order.
fn every_step(d: &Path, journal: &str, mut step: impl FnMut(u64, &Path) -> (Output, &'static str)) -> Vec<&'static str> {
    let mut seen = Vec::new();
    for k in 0.. {
        let dir = d.join(format!("k{k}"));
        let (o, state) = step(k, &dir);
        seen.push(state);
        if o.status.success() {
            assert!(!dir.join(journal).exists(), "a finished write left its journal");
            break;
        }
        assert!(k < 20, "the hook never let the write finish");
    }
    seen
}

/// `ents set … --in-place --fold-external` killed after each step. Before, a crash between
/// the folded `.bsp`'s rename and the removal of `m.bsp.0000.bsp_lump` left that file beside
/// the folded map, overriding its entity lump (`bsp` read the old message from it, `check`
/// was clean). Now: the old set before the rename; from it the folded map, any old
/// `.bsp_lump` still there listed in the journal, left out when the map is opened, an error
/// for `check`, and removed by the next write.
#[test]
fn fold_in_place_killed_at_every_step() {
    let d = scratch("mapset-crash-fold");
    let args = |map: &Path| {
        ["ents", "set", s(map), "--classname", "worldspawn", "--key", "message", "--value", "folded", "--in-place", "--fold-external"]
            .map(str::to_string)
    };
    let seen = every_step(&d, ".m.bsp.bspkit-stale", |k, dir| {
        let map = make_set(dir, "m");
        let a = args(&map);
        let o = killed_at(k, &a.iter().map(String::as_str).collect::<Vec<_>>());
        let lump = dir.join("m.bsp.0000.bsp_lump");
        let journal = dir.join(".m.bsp.bspkit-stale");
        let state = match message(&map, &OpenOptions::default()) {
            (m, true) if m == "external" => {
                assert!(lump.is_file());
                assert_eq!(check(&map).0, Some(0), "crash after step {k}: the old set is whole");
                "old"
            }
            (m, false) if m == "folded" && !lump.exists() => "new",
            (m, false) if m == "folded" => {
                // The stale lump is there: the journal names it, and the crash is reported.
                assert!(journal.is_file(), "crash after step {k}: a stale .bsp_lump without a journal");
                // What the game reads (every .bsp_lump beside the map): the old message. The
                // journal is what tells the two apart.
                let moved = dir.join("copy");
                std::fs::create_dir_all(&moved).unwrap();
                for n in ["m.bsp", "m.bsp.0000.bsp_lump", "m_env.ent"] {
                    std::fs::copy(dir.join(n), moved.join(n)).unwrap();
                }
                assert_eq!(message(&moved.join("m.bsp"), &OpenOptions::default()), ("external".to_string(), true));
                let (code, text) = check(&map);
                assert_eq!(code, Some(1), "{text}");
                assert!(text.contains("interrupted_set") && text.contains("m.bsp.0000.bsp_lump"), "{text}");
                // The next write of the set removes it and the journal.
                let o = run(&["rewrite", s(&map), "--in-place"]);
                assert!(o.status.success(), "{}", err(&o));
                assert!(!lump.exists() && !journal.exists(), "the next write left the stale files");
                assert_eq!(message(&map, &OpenOptions::default()), ("folded".to_string(), false));
                assert_eq!(check(&map).0, Some(0));
                "new+stale"
            }
            other => panic!("crash after step {k}: a mixed set {other:?}"),
        };
        (o, state)
    });
    eprintln!("fold in place killed after each step: {seen:?}");
    assert_eq!(seen.first(), Some(&"old"));
    assert_eq!(seen.last(), Some(&"new"));
    assert!(seen.contains(&"new+stale"), "{seen:?}");
    let switch = seen.iter().position(|t| *t != "old").unwrap();
    assert!(seen[switch..].iter().all(|t| *t != "old"), "{seen:?}");
}

/// `rewrite m.bsp -o o.bsp --split-external 0000` (the reverse of folding) over an older
/// `o.bsp` without `.bsp_lump` files, killed after each step. Before, a crash after the new
/// `o.bsp.0000.bsp_lump` was renamed in and before `o.bsp` was left that file overriding the
/// older map's entity lump (a mixed set, nothing reported). Now the file is journalled as
/// created: until the switch the older map is read as it was, `check` reports the file, and
/// the next write of `o.bsp` removes it.
#[test]
fn split_over_an_older_map_killed_at_every_step() {
    let d = scratch("mapset-crash-split");
    let seen = every_step(&d, ".o.bsp.bspkit-stale", |k, dir| {
        // A folded map to split: `m.bsp` holding the external message in the file.
        let set = make_set(dir, "m");
        let o = run(&["rewrite", s(&set), "-o", s(&dir.join("f.bsp")), "--fold-external"]);
        assert!(o.status.success(), "{}", err(&o));
        // The older `o.bsp`: its own entity lump (message `inside__`), no external file.
        let older = dir.join("o.bsp");
        std::fs::copy(dir.join("m.bsp"), &older).unwrap();
        let o = killed_at(k, &["rewrite", s(&dir.join("f.bsp")), "-o", s(&older), "--split-external", "0000"]);
        let lump = dir.join("o.bsp.0000.bsp_lump");
        let journal = dir.join(".o.bsp.bspkit-stale");
        let state = match message(&older, &OpenOptions::default()) {
            (m, false) if m == "inside__" => {
                if lump.exists() {
                    // Renamed in before the crash: the journal names it, it is not read.
                    assert!(journal.is_file(), "crash after step {k}: a new .bsp_lump beside the older map, no journal");
                    let (code, text) = check(&older);
                    assert_eq!(code, Some(1), "{text}");
                    assert!(text.contains("interrupted_set") && text.contains("o.bsp.0000.bsp_lump"), "{text}");
                    let o = run(&["rewrite", s(&older), "--in-place"]);
                    assert!(o.status.success(), "{}", err(&o));
                    assert!(!lump.exists() && !journal.exists(), "the next write left the created files");
                    assert_eq!(message(&older, &OpenOptions::default()), ("inside__".to_string(), false));
                    "old+created"
                } else {
                    "old"
                }
            }
            (m, true) if m == "external" => "new",
            other => panic!("crash after step {k}: a mixed set {other:?}"),
        };
        (o, state)
    });
    eprintln!("split over an older map killed after each step: {seen:?}");
    assert_eq!(seen.first(), Some(&"old"));
    assert_eq!(seen.last(), Some(&"new"));
    assert!(seen.contains(&"old+created"), "{seen:?}");
    let switch = seen.iter().position(|t| *t == "new").unwrap();
    assert!(seen[switch..].iter().all(|t| *t == "new"), "{seen:?}");
}

/// `ents set … --in-place` of the external entity lump to a value of the same length, killed
/// after each step. The `.bsp_lump` is replaced under its own name before the `.bsp`: a crash
/// between the two renames left a mixed set that nothing reported (the size rule of
/// `branches::respawn::check` needs sizes that disagree). Now the journal lists the file as
/// replaced; while the `.bsp` is the old one and the file is newer than the journal, `check`
/// reports the mix as `interrupted_set` and the next write makes the set whole.
#[test]
fn same_size_edit_in_place_killed_at_every_step() {
    let d = scratch("mapset-crash-same-size");
    let seen = every_step(&d, ".m.bsp.bspkit-stale", |k, dir| {
        let map = make_set(dir, "m");
        let o =
            killed_at(k, &["ents", "set", s(&map), "--classname", "worldspawn", "--key", "message", "--value", "edited__", "--in-place"]);
        let journal = dir.join(".m.bsp.bspkit-stale");
        let (code, text) = check(&map);
        let state = match message(&map, &OpenOptions::default()) {
            (m, true) if m == "external" => {
                assert_eq!(code, Some(0), "crash after step {k}: the old set is whole\n{text}");
                "old"
            }
            (m, true) if m == "edited__" && code == Some(0) => "new",
            (m, true) if m == "edited__" => {
                assert!(journal.is_file(), "crash after step {k}: {text}");
                assert_eq!(code, Some(1), "{text}");
                assert!(text.contains("interrupted_set") && text.contains("m.bsp.0000.bsp_lump") && text.contains("replaced"), "{text}");
                let o = run(&["rewrite", s(&map), "--in-place"]);
                assert!(o.status.success(), "{}", err(&o));
                assert!(!journal.exists(), "the next write left the journal");
                assert_eq!(message(&map, &OpenOptions::default()), ("edited__".to_string(), true));
                assert_eq!(check(&map).0, Some(0));
                "mixed"
            }
            other => panic!("crash after step {k}: {other:?}\n{text}"),
        };
        (o, state)
    });
    eprintln!("same-size edit in place killed after each step: {seen:?}");
    assert_eq!(seen.first(), Some(&"old"));
    assert_eq!(seen.last(), Some(&"new"));
    assert!(seen.contains(&"mixed"), "{seen:?}");
}
