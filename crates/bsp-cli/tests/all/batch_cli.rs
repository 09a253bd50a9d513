//! Commands over several maps go on past a file that fails (each file gets its result or its
//! error, the exit code is the worst); `check` severities, `--strict`, grouped text; `scan`
//! summaries, symbolic links and missing paths; maps inside archives (`a.pk3!maps/x.bsp`);
//! entity edits that reach every key; and the smaller defects: errors name the file (and the
//! lump, with the same offsets everywhere), exit codes say what happened, BSP2 says BSP2, and
//! writing a Respawn map alone (`--no-external`) under a new name says what it leaves behind. On builder-made maps in a
//! temporary directory (the Respawn case on the corpus).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bspkit::build::BspBuilder;
use serde_json::Value;

use crate::common;
use common::fixtures::{fog, q3, surface};

fn scratch(name: &str) -> crate::cli::Scratch {
    crate::cli::scratch(&format!("batch-{name}"))
}

fn bsp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bsp")).args(args).output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// good.bsp, bad.bsp (not a map), later.bsp (good), missing.bsp (absent).
fn three_maps(d: &Path) -> [PathBuf; 4] {
    let good = d.join("good.bsp");
    let bad = d.join("bad.bsp");
    let later = d.join("later.bsp");
    std::fs::write(&good, bspkit::build::sample_quake1()).unwrap();
    std::fs::write(&bad, b"this is not a map at all").unwrap();
    std::fs::write(&later, bspkit::build::sample_quake1()).unwrap();
    [good, bad, later, d.join("missing.bsp")]
}

#[test]
fn reading_commands_go_on_past_a_bad_file() {
    let d = scratch("past");
    let [good, bad, later, missing] = three_maps(&d);
    for cmd in ["check", "info", "lumps"] {
        let o = bsp(&[cmd, s(&good), s(&bad), s(&later), s(&missing)]);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(err.contains("bad.bsp") && err.contains("missing.bsp"), "{cmd}: {err}");
        assert_eq!(err.lines().filter(|l| l.starts_with("bsp: error:")).count(), 2, "{cmd}: {err}");
        // The file after the bad one was still read.
        let all = text(&o.stdout) + &err;
        assert!(all.contains("later.bsp") || cmd == "lumps", "{cmd}: {all}");

        let o = bsp(&[cmd, "--json", s(&good), s(&bad), s(&later), s(&missing)]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{cmd}: {e}: {}", text(&o.stdout)));
        let list = v.as_array().unwrap();
        assert_eq!(list.len(), 4, "{cmd}: {v}");
        for (item, failed) in list.iter().zip([false, true, false, true]) {
            assert_eq!(item["error"].is_object(), failed, "{cmd}: {item}");
            if failed {
                let kind = item["error"]["kind"].as_str().unwrap();
                assert!(["unknown_format", "io", "truncated"].contains(&kind), "{cmd}: {item}");
                assert!(item["path"].as_str().unwrap().ends_with(".bsp"));
            }
        }
        assert_eq!(list[1]["error"]["kind"], "unknown_format");
        assert_eq!(list[3]["error"]["kind"], "io");
    }
    // Only good maps: exit 0; `lumps --json` of one map is still the bare array of rows.
    let o = bsp(&["check", s(&good), s(&later)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = bsp(&["lumps", "--json", s(&good)]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v.as_array().unwrap()[0]["name"].is_string(), "{v}");
    // A directory as a map says so.
    let o = bsp(&["info", s(&d)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is a directory"), "{}", text(&o.stderr));
}

#[test]
fn check_exit_codes_follow_severity() {
    let d = scratch("severity");
    let note = d.join("note.bsp"); // a Quake 3 global fog: a note
    let warning = d.join("warning.bsp"); // flares with fogs out of range: one warning
    let error = d.join("error.bsp"); // planar surfaces with fogs out of range: errors
    std::fs::write(&note, q3(&[fog(-1, -1)], &[surface(1, 0)])).unwrap();
    std::fs::write(&warning, q3(&[], &[surface(4, 2), surface(4, 2)])).unwrap();
    let many: Vec<Vec<u8>> = (0..6).map(|_| surface(1, 7)).collect();
    std::fs::write(&error, q3(&[], &many)).unwrap();

    let o = bsp(&["check", s(&note)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(text(&o.stdout).contains("note[global_fog]"), "{}", text(&o.stdout));
    assert!(text(&o.stderr).contains("0 errors, 0 warnings, 1 note"), "{}", text(&o.stderr));
    let o = bsp(&["check", "--strict", s(&note)]);
    assert_eq!(o.status.code(), Some(0));

    let o = bsp(&["check", s(&warning)]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout).lines().filter(|l| l.contains("warning[flare_fog]")).count(), 1, "{}", text(&o.stdout));
    let o = bsp(&["check", "--strict", s(&warning)]);
    assert_eq!(o.status.code(), Some(1));

    // Six errors of one kind in one lump: one line with the count and examples; --all: six.
    let o = bsp(&["check", s(&error), s(&note)]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("error[index_out_of_range]")).collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].contains("6 times, e.g. [0] fog 7 is outside"), "{out}");
    let o = bsp(&["check", "--all", s(&error)]);
    assert_eq!(text(&o.stdout).lines().filter(|l| l.contains("error[index_out_of_range]")).count(), 6);
    // JSON keeps every instance, with severity and code.
    let o = bsp(&["check", "--json", s(&error)]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let problems = v[0]["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 6);
    assert!(problems.iter().all(|p| p["severity"] == "error" && p["code"] == "index_out_of_range" && p["index"].is_u64()));
    assert_eq!(v[0]["counts"], serde_json::json!({"errors": 6, "warnings": 0, "notes": 0}));
}

/// `--verify-lzma`: a Source map whose LIGHTING lump has a sound LZMA header over a damaged
/// stream checks clean by default (the samples are only measured) and fails with the flag; a
/// damaged header fails either way.
#[test]
fn check_verify_lzma_decodes_every_lump() {
    use bspkit::branches::source::{LUMP_ENTITIES, LUMP_LIGHTING, SOURCE};
    use bspkit::compression::{compress_valve_lzma, LZMA_HEADER_LEN};
    let d = scratch("verify-lzma");
    let samples: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
    let mut lump = compress_valve_lzma(&samples, 6).unwrap();
    lump[LZMA_HEADER_LEN + 1..].fill(0xFF);
    let map = |lump: Vec<u8>| {
        BspBuilder::new(&SOURCE).lump(LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec()).lump(LUMP_LIGHTING, lump).build()
    };
    let stream = d.join("stream.bsp");
    std::fs::write(&stream, map(lump.clone())).unwrap();
    let o = bsp(&["check", s(&stream)]);
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o.stdout), text(&o.stderr));
    let o = bsp(&["check", "--verify-lzma", "--json", s(&stream)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let problems = v[0]["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["code"] == "lump_unreadable" && p["lump"] == "8 (LIGHTING)"), "{v}");

    let header = d.join("header.bsp");
    lump[12] = 225; // no decoder accepts this properties byte
    std::fs::write(&header, map(lump)).unwrap();
    for args in [vec!["check", s(&header)], vec!["check", "--verify-lzma", s(&header)]] {
        let o = bsp(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(text(&o.stdout).contains("error[lump_unreadable] 8 (LIGHTING)"), "{args:?}: {}", text(&o.stdout));
    }
}

/// A `.pk3` holding `maps/x.bsp` (the sample map) and a text file.
fn pk3(path: &Path) {
    let mut p = bspkit::lumps::pakfile::PakBuilder::new();
    p.insert("maps/x.bsp", bspkit::build::sample_quake1()).unwrap();
    p.insert("readme.txt", b"hello".to_vec()).unwrap();
    std::fs::write(path, p.build(bspkit::lumps::pakfile::PakCompression::Stored).unwrap()).unwrap();
}

#[test]
fn maps_inside_archives_are_named_like_scan_prints_them() {
    let d = scratch("archive");
    let archive = d.join("pak0.pk3");
    pk3(&archive);
    let o = bsp(&["scan", "--json", s(&archive)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let rec: Value = serde_json::from_slice(o.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    let name = format!("{}!{}", rec["path"].as_str().unwrap(), rec["entry"].as_str().unwrap());
    assert!(name.ends_with("pak0.pk3!maps/x.bsp"), "{name}");
    for args in [vec!["info", &name], vec!["check", &name], vec!["ents", &name], vec!["ents", "export", &name], vec!["lumps", &name]] {
        let o = bsp(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        // `check` prints problems only (none here); its summary line is on stderr.
        assert!(!o.stdout.is_empty() || args[0] == "check", "{args:?}");
        assert!(text(&o.stderr).contains("0 errors") || args[0] != "check", "{}", text(&o.stderr));
    }
    let o = bsp(&["info", "--json", &name]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["path"], name.as_str());
    assert_eq!(v["format"]["branch"], "quake1");
    let o = bsp(&["ents", "get", &name, "--classname", "worldspawn"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // An entry that is not there; editing inside an archive; the archive itself as a map.
    let o = bsp(&["check", &format!("{}!maps/nosuch.bsp", s(&archive))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no entry \"maps/nosuch.bsp\""), "{}", text(&o.stderr));
    let o = bsp(&["ents", "set", &name, "--key", "a", "--value", "b", "-o", s(&d.join("o.bsp"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("inside an archive"), "{}", text(&o.stderr));
    let o = bsp(&["info", s(&archive)]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("archive") && err.contains("bsp scan") && err.lines().count() == 1, "{err}");
}

#[test]
fn scan_summary_links_and_missing_paths() {
    let d = scratch("scan");
    let maps = d.join("maps");
    std::fs::create_dir_all(maps.join("sub")).unwrap();
    std::fs::write(maps.join("sub/good.bsp"), bspkit::build::sample_quake1()).unwrap();
    std::fs::write(maps.join("sub/fogged.bsp"), q3(&[], &[surface(1, 3)])).unwrap();
    std::fs::write(maps.join("sub/flares.bsp"), q3(&[], &[surface(4, 3)])).unwrap();
    // A link back up (a loop) and a second link to the same directory: each map once.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&maps, maps.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(maps.join("sub"), d.join("again")).unwrap();
    }
    let o = bsp(&["scan", s(&maps), s(&d.join("again"))]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("3 maps: 1 ok, 1 with errors, 1 with warnings, 0 failed"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("problems") && l.contains("fogged.bsp") && l.contains("1 error")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("problems") && l.contains("flares.bsp") && l.contains("1 warning")), "{out}");
    // Per branch: maps, with errors, with warnings.
    assert!(out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["quake3", "quake3", "46", "2", "1", "1"]), "{out}");
    // Through a link to a directory.
    #[cfg(unix)]
    {
        let o = bsp(&["scan", "--json", s(&d.join("again"))]);
        assert_eq!(text(&o.stdout).lines().count(), 3, "{}", text(&o.stdout));
    }
    // --strict counts warnings; a path that does not exist is an error, not a failed map.
    std::fs::remove_file(maps.join("sub/fogged.bsp")).unwrap();
    assert_eq!(bsp(&["scan", s(&maps)]).status.code(), Some(0));
    assert_eq!(bsp(&["scan", "--strict", s(&maps)]).status.code(), Some(1));
    let o = bsp(&["scan", s(&maps), s(&d.join("nosuch"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("nosuch"), "{}", text(&o.stderr));
}

/// A Quake map whose relay has two outputs with the same key.
fn relay_map(path: &Path) {
    use bspkit::branches::quake1::*;
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"logic_relay\"\n\"targetname\" \"relay\"\n\"OnTrigger\" \"a,Kill\"\n\"OnTrigger\" \"b,Kill\"\n}\n{\n\"classname\" \"light\"\n\"targetname\" \"lamp1\"\n}\n\0";
    let bytes = bspkit::build::sample_quake1();
    let b = bspkit::Bsp::from_bytes(&bytes).unwrap();
    let mut ed = bspkit::edit::Editor::new(&b).unwrap();
    ed.set_lump(LUMP_ENTITIES, ents.to_vec()).unwrap();
    std::fs::write(path, ed.to_bytes().unwrap()).unwrap();
}

fn values(map: &Path, key: &str) -> Vec<String> {
    let o = bsp(&["ents", "get", "--json", s(map), "--targetname", "relay", "--key", key]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_array().unwrap().iter().map(|x| x["value"].as_str().unwrap().to_string()).collect()
}

#[test]
fn entity_edits_reach_every_key() {
    let d = scratch("ents");
    let map = d.join("m.bsp");
    relay_map(&map);
    let out = d.join("out.bsp");
    let set = |extra: &[&str]| {
        let mut a = vec!["ents", "set", s(&map), "--targetname", "relay", "--key", "OnTrigger", "--value", "c,Kill", "-o", s(&out)];
        a.extend_from_slice(extra);
        bsp(&a)
    };
    // A duplicated key without saying which: refused, nothing written.
    let o = set(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("2 times") && text(&o.stderr).contains("--nth"), "{}", text(&o.stderr));
    assert!(!out.exists());
    assert_eq!(set(&["--nth", "2"]).status.code(), Some(0));
    assert_eq!(values(&out, "OnTrigger"), ["a,Kill", "c,Kill"]);
    assert_eq!(set(&["--all"]).status.code(), Some(0));
    assert_eq!(values(&out, "OnTrigger"), ["c,Kill", "c,Kill"]);
    assert_eq!(set(&["--append"]).status.code(), Some(0));
    assert_eq!(values(&out, "OnTrigger"), ["a,Kill", "b,Kill", "c,Kill"]);
    assert_eq!(set(&["--nth", "3"]).status.code(), Some(2));
    assert_eq!(set(&["--all", "--append"]).status.code(), Some(2), "conflicting flags");

    // unset: every pair, or the Nth; no matching entity with the key is exit 1.
    let o = bsp(&["ents", "unset", s(&map), "--targetname", "relay", "--key", "OnTrigger", "--nth", "1", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(values(&out, "OnTrigger"), ["b,Kill"]);
    let o = bsp(&["ents", "unset", s(&map), "--where", "classname~relay$", "--key", "OnTrigger", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(values(&out, "OnTrigger").is_empty());
    let o = bsp(&["ents", "unset", s(&map), "--has", "nosuchkey", "--key", "OnTrigger", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(1));

    // get: which entity each value came from; several --where, regex and --has filters.
    let o = bsp(&["ents", "get", s(&map), "--where", "classname~^(light|logic_)", "--has", "targetname", "--key", "targetname"]);
    assert_eq!(text(&o.stdout), "#1 logic_relay\trelay\n#2 light\tlamp1\n");
    let o = bsp(&["ents", "get", s(&map), "--where", "classname~^l", "--where", "targetname=lamp1"]);
    assert!(text(&o.stdout).starts_with("#2 {"), "{}", text(&o.stdout));
    let o = bsp(&["ents", "get", "--json", s(&map), "--classname", "light"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["entity"], 2);
    assert_eq!(v[0]["pairs"][0], serde_json::json!(["classname", "light"]));
    // A bad regular expression is one line.
    let o = bsp(&["ents", "get", s(&map), "--where", "classname~(("]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
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
}

#[test]
fn respawn_written_alone_under_a_new_name_says_what_it_leaves_behind() {
    let Some(corpus) = common::corpus("respawn_written_alone_under_a_new_name_says_what_it_leaves_behind") else { return };
    let Some(m) = common::maps_in(&corpus, "respawn").into_iter().find(|m| {
        let stem = m.path.file_stem().unwrap().to_string_lossy().into_owned();
        m.path.with_file_name(format!("{stem}_env.ent")).exists()
    }) else {
        return;
    };
    let d = scratch("respawn");
    let new = d.join("renamed.bsp");
    // With --no-external only the `.bsp` is written (the set is written otherwise: mapset_cli.rs).
    let o = bsp(&["rewrite", s(&m.path), "-o", s(&new), "--no-external"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("only the .bsp was written") && err(&o).contains("_env.ent"), "{}", err(&o));
    // The missing partitions are warnings of their own code, not errors.
    let o = bsp(&["check", s(&new)]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("warning[missing_partition]"));
}
