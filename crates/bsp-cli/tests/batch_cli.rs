//! Commands over several maps go on past a file that fails (each file gets its result or its
//! error, the exit code is the worst); `check` severities, `--strict`, grouped text; `scan`
//! summaries, symbolic links and missing paths; maps inside archives (`a.pk3!maps/x.bsp`);
//! entity edits that reach every key. All on builder-made maps in a temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "../../bspkit/tests/common/mod.rs"]
mod common;
use common::fixtures::{fog, q3, surface};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bsp-cli-batch-{name}-{}", std::process::id()));
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
    std::fs::remove_dir_all(&d).unwrap();
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
    std::fs::remove_dir_all(&d).unwrap();
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
    std::fs::remove_dir_all(&d).unwrap();
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
    std::fs::remove_dir_all(&d).unwrap();
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
    std::fs::remove_dir_all(&d).unwrap();
}
