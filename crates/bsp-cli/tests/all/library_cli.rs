//! Questions across a library of maps: `bsp ents get` over many files, directories and archives
//! (each hit with its map's path), and `bsp scan --classname / --key / --texture`. On the
//! builder's sample map and copies of it edited by `bsp ents add`, in a temporary directory.

use std::path::Path;

use serde_json::Value;

use crate::cli::{err, run, s, scratch};

/// `d/a.bsp` (the sample: worldspawn, info_player_start, texture `bspkit_grey`),
/// `d/sub/quad.bsp` (the sample plus an `item_quad`) and `d/pak.pk3` holding `maps/q.bsp` (the
/// same as quad.bsp) and a text file.
fn library(name: &str) -> crate::cli::Scratch {
    let d = scratch(name);
    let a = d.join("a.bsp");
    std::fs::write(&a, bspkit::build::sample_quake1()).unwrap();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let quad = d.join("sub/quad.bsp");
    let o = run(&["ents", "add", s(&a), "classname=item_quad", "origin=8 16 -24", "-o", s(&quad)]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let mut p = bspkit::lumps::pakfile::PakBuilder::new();
    p.insert("maps/q.bsp", std::fs::read(&quad).unwrap()).unwrap();
    p.insert("readme.txt", b"not a map".to_vec()).unwrap();
    std::fs::write(d.join("pak.pk3"), p.build(bspkit::lumps::pakfile::PakCompression::Stored).unwrap()).unwrap();
    d
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn path(d: &Path, rel: &str) -> String {
    d.join(rel).to_str().unwrap().to_string()
}

#[test]
fn ents_get_searches_directories_and_archives() {
    let d = library("lib-ents-get");
    let o = run(&["ents", "get", s(&d), "--classname", "item_quad", "--key", "origin"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // Sorted by file, a map inside an archive named as `bsp scan` names it.
    let want =
        format!("{}!maps/q.bsp\t#2 item_quad\t8 16 -24\n{}\t#2 item_quad\t8 16 -24\n", path(&d, "pak.pk3"), path(&d, "sub/quad.bsp"));
    assert_eq!(stdout(&o), want);
    assert!(err(&o).contains("2 matching entities in 2 of 3 maps"), "{}", err(&o));

    // Files and directories mixed; whole entities without --key.
    let o = run(&["ents", "get", s(&d.join("a.bsp")), s(&d.join("sub")), "--classname", "info_player_start"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with(&format!("{}\t#1 ", path(&d, "a.bsp"))), "{lines:?}");
    assert!(lines[1].starts_with(&format!("{}\t#1 ", path(&d, "sub/quad.bsp"))), "{lines:?}");

    // JSON: the one-map objects with "path".
    let o = run(&["ents", "get", "--json", s(&d), "--classname", "item_quad", "--key", "origin"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> = v.as_array().unwrap().iter().map(|x| x["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [format!("{}!maps/q.bsp", path(&d, "pak.pk3")), path(&d, "sub/quad.bsp")]);
    assert_eq!(v[0]["entity"], 2);
    assert_eq!(v[0]["value"], "8 16 -24");

    // No match anywhere: exit 1, nothing on stdout.
    let o = run(&["ents", "get", s(&d), "--classname", "item_armor1"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(o.stdout.is_empty());

    // One map file alone: the lines as they always were, without a path.
    let o = run(&["ents", "get", s(&d.join("sub/quad.bsp")), "--classname", "item_quad", "--key", "origin"]);
    assert_eq!(stdout(&o), "#2 item_quad\t8 16 -24\n");
}

#[test]
fn ents_get_goes_on_past_a_map_that_cannot_be_read() {
    let d = library("lib-ents-bad");
    std::fs::write(d.join("broken.bsp"), b"IBSP\x26\0\0\0truncated").unwrap();
    let o = run(&["ents", "get", s(&d), "--classname", "item_quad"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    assert!(err(&o).contains("broken.bsp"), "{}", err(&o));
    assert!(err(&o).contains("1 could not be read"), "{}", err(&o));
    // A path that does not exist is a usage error.
    let o = run(&["ents", "get", s(&d.join("missing")), s(&d), "--classname", "item_quad"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}

/// `bsp scan --json` with the filter flags: the `path!entry` names of the records kept and
/// each one's `matched`.
fn scan(d: &Path, flags: &[&str]) -> Vec<(String, Value)> {
    let mut args = vec!["scan", "--json", s(d)];
    args.extend_from_slice(flags);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    stdout(&o)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let name = match v["entry"].as_str() {
                Some(e) => format!("{}!{e}", v["path"].as_str().unwrap()),
                None => v["path"].as_str().unwrap().to_string(),
            };
            (name, v["matched"].clone())
        })
        .collect()
}

#[test]
fn scan_keeps_maps_by_classname_key_and_texture() {
    let d = library("lib-scan-filter");
    let quads = [format!("{}!maps/q.bsp", path(&d, "pak.pk3")), path(&d, "sub/quad.bsp")];

    let kept = scan(&d, &["--classname", "item_quad"]);
    assert_eq!(kept.iter().map(|k| k.0.clone()).collect::<Vec<_>>(), quads);
    assert_eq!(kept[0].1, serde_json::json!(["classname item_quad"]));

    // Several values of one kind: any of them; kinds together: each must be found.
    assert_eq!(scan(&d, &["--classname", "item_quad", "--classname", "info_player_start"]).len(), 3);
    assert_eq!(scan(&d, &["--classname", "info_player_start", "--key", "angle"]).len(), 3);
    assert_eq!(scan(&d, &["--key", "angle", "--classname", "item_quad"]).len(), 2);
    assert!(scan(&d, &["--key", "no_such_key"]).is_empty());

    // Textures: part of the name, ignoring case; the name found is reported.
    let kept = scan(&d, &["--texture", "GREY"]);
    assert_eq!(kept.len(), 3);
    assert_eq!(kept[0].1, serde_json::json!(["texture bspkit_grey"]));
    assert!(scan(&d, &["--texture", "sky"]).is_empty());
    assert!(scan(&d, &["--texture", "grey", "--classname", "item_armor1"]).is_empty());

    // Without a filter the records carry no "matched"; the text output says what was found.
    assert!(scan(&d, &[]).iter().all(|k| k.1.is_null()));
    let o = run(&["scan", s(&d), "--classname", "item_quad"]);
    let text = stdout(&o);
    assert_eq!(text.matches("     has classname item_quad").count(), 2, "{text}");
    assert!(text.contains("2 of 3 maps read have what"), "{text}");
}
