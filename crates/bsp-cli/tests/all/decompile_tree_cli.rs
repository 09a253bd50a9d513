//! `bsp decompile` on Quake 1 and GoldSrc corpus maps: brushes rebuilt from the tree, the tree
//! figures printed and in the report; `--standard` and `--no-brushlist` change what is written.

use std::process::Command;

fn bsp(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let r = Command::new(env!("CARGO_BIN_EXE_bsp")).arg("decompile").args(args).output().unwrap();
    (r.status.success(), String::from_utf8_lossy(&r.stderr).into_owned())
}

#[test]
fn decompile_tree_families() {
    let Some(corpus) = crate::common::corpus("decompile_tree_cli") else { return };
    let dir = crate::cli::scratch("decompile-tree-cli");
    let (out, report) = (dir.join("hl.map"), dir.join("hl.json"));
    let map = corpus.join("goldsrc/goldsrc-renderer__vis-test.bsp");
    let (ok, stderr) =
        bsp(&[map.as_os_str(), "-o".as_ref(), out.as_os_str(), "--report".as_ref(), report.as_os_str(), "--strict".as_ref()]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("face coverage 100.0000%") && stderr.contains("tree: 59 regions"), "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    // GoldSrc: Valve 220 sides, the wad key kept, NULL on sides no face lies on.
    assert!(text.contains("\"wad\" ") && text.contains(" NULL [ ") && text.contains("\"mapversion\" \"220\""), "{text}");
    let rep: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(rep["dialect"], "goldsrc-valve220");
    assert_eq!(rep["quality"]["tree"]["source"], "tree");
    assert!(rep["quality"]["tree"]["volume_error"].as_f64().unwrap() < 0.1);
    assert_eq!(rep["quality"]["tree"]["faces"], rep["quality"]["tree"]["faces_same_texture"]);

    // Quake with a BSPX brush list: read from it, or rebuilt from the tree; standard form.
    let q1 = corpus.join("quake1/qbsp__example-bsp29.bsp");
    let (a, b) = (dir.join("list.map"), dir.join("tree.map"));
    let (ok, stderr) = bsp(&[q1.as_os_str(), "-o".as_ref(), a.as_os_str()]);
    assert!(ok && stderr.contains("BRUSHLIST") && stderr.contains("brushlist: "), "{stderr}");
    let (ok, stderr) = bsp(&[q1.as_os_str(), "-o".as_ref(), b.as_os_str(), "--no-brushlist".as_ref(), "--standard".as_ref()]);
    assert!(ok && stderr.contains("tree: ") && !stderr.contains("BRUSHLIST"), "{stderr}");
    let (list, tree) = (std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
    assert!(list.contains("] [ ") && !tree.contains("] [ "), "the standard form has no Valve axes");
    assert!(tree.contains("// Format: Quake, standard texture axes, brushes rebuilt from the BSP tree"));
}

/// LibreQuake e0m4 (no texture names stored): each name given its region's contents' prefix is
/// printed once, with its sides, and is one row of the report's `contents_names` (the sky's
/// `miptex21 -> sky_miptex21` was printed four times, three with 0 sides, one per texinfo entry).
#[test]
fn decompile_tree_contents_names_once() {
    let Some(corpus) = crate::common::corpus("decompile_tree_contents_names_once") else { return };
    let dir = crate::cli::scratch("decompile-names-cli");
    let (out, report) = (dir.join("e0m4.map"), dir.join("e0m4.json"));
    let map = corpus.join("quake1/qbsp__lq_e0m4.bsp");
    let (ok, stderr) = bsp(&[map.as_os_str(), "-o".as_ref(), out.as_os_str(), "--report".as_ref(), report.as_os_str()]);
    assert!(ok, "{stderr}");
    let line = stderr.lines().find(|l| l.contains("names given their contents' prefix:")).unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(line.matches("miptex21 -> sky_miptex21 (sky, ").count(), 1, "{line}");
    assert!(!line.contains(" 0 sides)"), "{line}");
    let rep: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let rows = rep["quality"]["tree"]["contents_names"].as_array().unwrap();
    let mut written: Vec<&str> = rows.iter().map(|r| r["written"].as_str().unwrap()).collect();
    written.sort_unstable();
    written.dedup();
    assert_eq!(written.len(), rows.len(), "{rows:?}");
    assert!(rows.iter().all(|r| r["sides"].as_u64().unwrap() > 0), "{rows:?}");
    // The printed list is the report's, row for row.
    for r in rows {
        let shown = format!(
            "{} -> {} ({}, {} sides)",
            r["original"].as_str().unwrap(),
            r["written"].as_str().unwrap(),
            r["contents"].as_str().unwrap(),
            r["sides"]
        );
        assert!(line.contains(&shown), "{shown}: {line}");
    }
}
