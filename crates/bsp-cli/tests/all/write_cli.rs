//! The `bsp` writing commands, run as a child process: byte-identical rewrite, the input is
//! never touched without --in-place, and hostile conditions (read-only directory, file size
//! limit, a crash between writing the temporary file and the rename) never damage the target.

use crate::cli;

use std::path::{Path, PathBuf};
use std::process::Command;

use bspkit::build::BspBuilder;
use cli::{big_quake_map, run, s, scratch, BSP};

use crate::common;

/// Files in `dir` other than `keep`.
fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

#[test]
fn rewrite_is_byte_identical_and_input_is_protected() {
    let d = scratch("cli-protect");
    let input = d.join("in.bsp");
    let bytes = big_quake_map();
    std::fs::write(&input, &bytes).unwrap();
    let out = d.join("out.bsp");
    let o = run(&["rewrite", s(&input), "-o", s(&out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
    // Writing over the input needs --in-place.
    let o = run(&["ents", "set", s(&input), "--classname", "light", "--key", "light", "--value", "300", "-o", s(&input)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), bytes);
    let o = run(&["ents", "set", s(&input), "--classname", "light", "--key", "light", "--value", "300", "--in-place"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["ents", "get", s(&input), "--classname", "light", "--key", "light"]);
    // `#ENTITY CLASSNAME<TAB>VALUE`: entity 1 is the light.
    assert_eq!(String::from_utf8_lossy(&o.stdout), "#1 light\t300\n");
    // Only the entity lump changed.
    let a = bspkit::Bsp::from_bytes(&bytes).unwrap();
    let after = std::fs::read(&input).unwrap();
    let b = bspkit::Bsp::from_bytes(&after).unwrap();
    for e in a.lumps().iter().filter(|e| e.index != 0) {
        assert_eq!(a.lump(e.index).unwrap(), b.lump(e.index).unwrap());
    }
    assert_eq!(others(&d, &["in.bsp", "out.bsp"]), Vec::<String>::new());
}

#[test]
fn read_only_directory_leaves_target_alone() {
    let d = scratch("cli-readonly");
    let input = d.join("in.bsp");
    std::fs::write(&input, big_quake_map()).unwrap();
    let ro = d.join("ro");
    std::fs::create_dir(&ro).unwrap();
    let target = ro.join("out.bsp");
    std::fs::write(&target, b"precious").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores directory permissions: run the child as an unprivileged user then.
    let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(false);
    let mut cmd = if is_root {
        if Command::new("setpriv").arg("--version").output().is_err() {
            eprintln!("note: read_only_directory_leaves_target_alone skipped: running as root without setpriv");
            return;
        }
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BSP]);
        c
    } else {
        Command::new(BSP)
    };
    let o = cmd.args(["rewrite", s(&input), "-o", s(&target)]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ermission denied"));
    assert_eq!(std::fs::read(&target).unwrap(), b"precious");
    assert_eq!(others(&ro, &["out.bsp"]), Vec::<String>::new());
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn file_size_limit_leaves_target_alone() {
    let d = scratch("cli-fsize");
    let input = d.join("in.bsp");
    let bytes = big_quake_map();
    std::fs::write(&input, &bytes).unwrap();
    let target = d.join("out.bsp");
    std::fs::write(&target, b"precious").unwrap();
    // 64 blocks of 512 bytes (dash) is far below the map's size. With SIGXFSZ ignored the
    // write fails with EFBIG and bsp cleans up; with the default action the process is killed
    // mid-write and only a hidden temporary file can remain.
    for (trap, clean) in [("trap '' XFSZ; ", true), ("", false)] {
        let script = format!("{trap}ulimit -f 64; exec \"$0\" rewrite \"$1\" -o \"$2\"");
        let o = Command::new("sh").args(["-c", &script, BSP, s(&input), s(&target)]).output().unwrap();
        assert!(!o.status.success(), "limit did not bite");
        assert_eq!(std::fs::read(&target).unwrap(), b"precious", "target damaged");
        let left = others(&d, &["in.bsp", "out.bsp"]);
        if clean {
            assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(left, Vec::<String>::new(), "temporary file not removed");
        } else {
            assert!(left.iter().all(|n| n.starts_with(".out.bsp.bspkit-tmp-")), "{left:?}");
            for n in left {
                std::fs::remove_file(d.join(n)).unwrap();
            }
        }
    }
    // Without a limit the same command succeeds.
    let o = run(&["rewrite", s(&input), "-o", s(&target)]);
    assert!(o.status.success());
    assert_eq!(std::fs::read(&target).unwrap(), bytes);
}

#[test]
fn crash_before_rename_leaves_target_alone() {
    let d = scratch("cli-crash");
    let input = d.join("in.bsp");
    let bytes = big_quake_map();
    std::fs::write(&input, &bytes).unwrap();
    let o = Command::new(BSP)
        .args(["ents", "set", s(&input), "--classname", "light", "--key", "light", "--value", "1", "--in-place"])
        .env(bspkit::write::ABORT_HOOK_ENV, "1")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert_eq!(std::fs::read(&input).unwrap(), bytes, "input damaged by an interrupted in-place write");
    let left = others(&d, &["in.bsp"]);
    assert_eq!(left.len(), 1);
    assert!(left[0].starts_with(".in.bsp.bspkit-tmp-"), "{left:?}");
}

#[test]
fn lmp_extract_apply_and_diff() {
    use bspkit::branches::source::SOURCE;
    let d = scratch("cli-lmp");
    let ents_a = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let a = BspBuilder::new(&SOURCE).lump(0, ents_a).lump_v(1, vec![1u8; 40], 0).lump(40, b"PK\x05\x06".to_vec()).build();
    let ents_b = b"{\n\"classname\" \"worldspawn\"\n\"skyname\" \"x\"\n}\n\0".to_vec();
    let b = BspBuilder::new(&SOURCE).lump(0, ents_b.clone()).lump_v(1, vec![2u8; 60], 0).lump(40, b"PK\x05\x06".to_vec()).build();
    let (pa, pb) = (d.join("a.bsp"), d.join("b.bsp"));
    std::fs::write(&pa, &a).unwrap();
    std::fs::write(&pb, &b).unwrap();
    let patch = d.join("patch");
    let o = run(&["lmp", "diff", s(&pa), s(&pb), "-o", s(&patch)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut lmps: Vec<String> = std::fs::read_dir(&patch).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    lmps.sort();
    assert_eq!(lmps, ["a_l_0.lmp", "a_l_1.lmp"]);
    let mut cur = pa.clone();
    for (i, l) in lmps.iter().enumerate() {
        let next = d.join(format!("step{i}.bsp"));
        let o = run(&["lump", "apply", s(&cur), s(&patch.join(l)), "-o", s(&next)]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        cur = next;
    }
    let patched = std::fs::read(&cur).unwrap();
    let (x, y) = (bspkit::Bsp::from_bytes(&patched).unwrap(), bspkit::Bsp::from_bytes(&b).unwrap());
    for i in 0..64 {
        assert_eq!(x.lump(i).unwrap(), y.lump(i).unwrap(), "lump {i}");
    }
    // extract --lmp gives the 20-byte header and the data.
    let out = d.join("x.lmp");
    assert!(run(&["lump", "extract", s(&pb), "ENTITIES", "--lmp", "-o", s(&out)]).status.success());
    let lmp = std::fs::read(&out).unwrap();
    let parsed = bspkit::lmp::LmpFile::parse(&lmp).unwrap();
    assert_eq!((parsed.header.lump_index, parsed.data), (0, &ents_b[..]));
}

#[test]
fn pak_edits_go_through_the_writer() {
    use bspkit::lumps::pakfile::{PakBuilder, PakCompression, Pakfile};
    let d = scratch("cli-pak");
    let mut pak = PakBuilder::new();
    pak.insert("maps/readme.txt", b"old".to_vec()).unwrap();
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let map = BspBuilder::new(&bspkit::branches::source::SOURCE)
        .lump(0, ents.clone())
        .lump(40, pak.build(PakCompression::Stored).unwrap())
        .lump(42, vec![9u8; 24])
        .build();
    let input = d.join("in.bsp");
    std::fs::write(&input, &map).unwrap();
    let local = d.join("new.txt");
    std::fs::write(&local, b"hello").unwrap();
    // Without -o or --in-place nothing is written, and -o naming the input is refused.
    assert!(!run(&["pak", "add", s(&input), "maps/new.txt", s(&local)]).status.success());
    assert_eq!(run(&["pak", "add", s(&input), "maps/new.txt", s(&local), "-o", s(&input)]).status.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), map);
    let added = d.join("added.bsp");
    assert!(run(&["pak", "add", s(&input), "maps/new.txt", s(&local), "-o", s(&added)]).status.success());
    let cat = run(&["pak", "cat", s(&added), "maps/new.txt"]);
    assert_eq!(cat.stdout, b"hello");
    let bsp = bspkit::Bsp::open(&added).unwrap();
    assert_eq!(bsp.lump(0).unwrap(), &ents[..]);
    assert_eq!(bsp.lump(42).unwrap(), &[9u8; 24]);
    let removed = d.join("removed.bsp");
    assert!(run(&["pak", "remove", s(&added), "maps/readme.txt", "-o", s(&removed)]).status.success());
    let bsp = bspkit::Bsp::open(&removed).unwrap();
    let names: Vec<String> = Pakfile::parse(bsp.lump(40).unwrap()).unwrap().entries.iter().map(|e| e.name.clone()).collect();
    assert_eq!(names, ["maps/new.txt"]);
    assert_eq!(others(&d, &["in.bsp", "new.txt", "added.bsp", "removed.bsp"]), Vec::<String>::new());
}

#[test]
fn lmp_lists_the_external_lumps_beside_a_map() {
    let d = scratch("cli-lmplist");
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let map = BspBuilder::new(&bspkit::branches::source::SOURCE).lump(0, ents).build();
    let input = d.join("m.bsp");
    std::fs::write(&input, &map).unwrap();
    let none = run(&["lmp", "--json", s(&input)]);
    assert!(none.status.success());
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&none.stdout).unwrap(), serde_json::json!([]));
    assert!(run(&["lump", "extract", s(&input), "0", "--lmp", "-o", s(&d.join("m_l_0.lmp"))]).status.success());
    let one = run(&["lmp", "--json", s(&input)]);
    let rows: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    assert_eq!(rows[0]["lump_index"], 0);
    assert_eq!(rows[0]["applied"], true);
    // The same through the explicit subcommand; no file at all is a usage error.
    assert_eq!(run(&["lmp", "list", "--json", s(&input)]).stdout, one.stdout);
    assert_eq!(run(&["lmp"]).status.code(), Some(2));
}

/// `bsp rewrite` on every corpus map gives the same bytes, end to end: the checked, atomic write
/// path included (a Respawn map's `.ent` partitions lie beside the input, not the temporary file).
#[test]
fn rewrite_every_corpus_map_byte_identical() {
    let Some(corpus) = common::corpus("rewrite_every_corpus_map_byte_identical") else { return };
    let d = scratch("cli-rewrite-corpus");
    let maps: Vec<PathBuf> = common::maps(&corpus).into_iter().map(|m| m.path).collect();
    assert!(maps.len() >= 50, "only {} maps under {}", maps.len(), corpus.display());
    for (i, m) in maps.iter().enumerate() {
        let out = d.join(format!("{i}.bsp"));
        let o = run(&["rewrite", s(m), "-o", s(&out)]);
        assert!(o.status.success(), "{}: {}", m.display(), String::from_utf8_lossy(&o.stderr));
        assert!(std::fs::read(m).unwrap() == std::fs::read(&out).unwrap(), "{}: rewrite differs", m.display());
        std::fs::remove_file(&out).unwrap();
    }
}

/// A lump replacement that breaks references is refused (target untouched); with
/// `--allow-problems` it is written and the new problems are listed as warnings.
#[test]
fn allow_problems_writes_and_warns() {
    let d = scratch("cli-allow");
    let input = d.join("in.bsp");
    std::fs::write(&input, bspkit::build::sample_quake1()).unwrap();
    // Two planes for a room whose faces, nodes and clipnodes use eighteen.
    let planes = d.join("planes.bin");
    std::fs::write(&planes, [0u8; 40]).unwrap();
    let out = d.join("out.bsp");
    let refused = run(&["lump", "replace", s(&input), "PLANES", s(&planes), "-o", s(&out)]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("new problems"));
    assert!(!out.exists());
    let written = run(&["lump", "replace", s(&input), "PLANES", s(&planes), "-o", s(&out), "--allow-problems"]);
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let err = String::from_utf8_lossy(&written.stderr);
    assert!(err.contains("warning: new problem:") && err.contains("PLANES"), "{err}");
    assert_eq!(bspkit::Bsp::open(&out).unwrap().lump(1).unwrap(), &[0u8; 40]);
    // `bsp check` agrees that the written map has problems.
    assert_eq!(run(&["check", s(&out)]).status.code(), Some(1));
}
