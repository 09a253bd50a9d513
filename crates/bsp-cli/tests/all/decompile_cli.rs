//! `bsp decompile` on corpus maps: writes the source, prints the quality, writes the report;
//! Source to `.vmf`; a family it cannot decompile yet is an error (exit 2), not a partial file.

use std::path::PathBuf;
use std::process::Command;

fn corpus() -> Option<PathBuf> {
    crate::common::corpus("decompile_cli")
}

#[test]
fn decompile_writes_map_and_report() {
    let Some(corpus) = corpus() else { return };
    let dir = crate::cli::scratch("decompile-cli");
    let (out, report) = (dir.join("lobby.map"), dir.join("lobby.json"));
    let r = Command::new(env!("CARGO_BIN_EXE_bsp"))
        .arg("decompile")
        .arg(corpus.join("quake2/bsp_tool__q2_mp_lobby.bsp"))
        .arg("-o")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .arg("--strict")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(stderr.contains("face coverage 100.0000%"), "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("\"classname\" \"worldspawn\""));
    let rep: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(rep["dialect"], "quake2-valve220");
    assert_eq!(rep["quality"]["brushes"], rep["quality"]["brushes_same"]);
    assert_eq!(rep["mismatches_total"], 0);

    // Source: a .vmf, its report and the Source checks in the summary.
    let vmf = dir.join("lobby.vmf");
    let r = Command::new(env!("CARGO_BIN_EXE_bsp"))
        .arg("decompile")
        .arg(corpus.join("source/bsp_tool__tf2_mp_lobby.bsp"))
        .arg("-o")
        .arg(&vmf)
        .arg("--json")
        .arg("--strict")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(stderr.contains("props "), "{stderr}");
    let rep: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(rep["dialect"], "source-vmf");
    assert_eq!(rep["format"], "vmf");
    let text = std::fs::read_to_string(&vmf).unwrap();
    assert!(text.contains("world\n{") && text.contains("\"classname\" \"worldspawn\""), "{text}");

    // Call of Duty 4 (`iwmap 4`), Titanfall 2 (MRVN-Radiant Valve 220) and Genesis3D (Valve 220
    // with contents flags value, brushes rebuilt from the tree), strict: every brush, material
    // and entity back.
    for (map, dialect, head) in [
        ("cod/bsp_tool__cod4_mp_lobby.d3dbsp", "cod-iwmap4", "iwmap 4\n"),
        ("respawn/bsp_tool__tf2r_mp_crossfire.bsp", "respawn-valve220", "// Decompiled by bspkit"),
        ("genesis3d/genesis3d__genvs2.bsp", "genesis3d-valve220", "// Decompiled by bspkit"),
    ] {
        let out = dir.join("out.map");
        let r = Command::new(env!("CARGO_BIN_EXE_bsp"))
            .arg("decompile")
            .arg(corpus.join(map))
            .arg("-o")
            .arg(&out)
            .arg("--json")
            .arg("--strict")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert!(r.status.success(), "{map}: {stderr}");
        let rep: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        assert_eq!(rep["dialect"], dialect);
        assert_eq!(rep["quality"]["brushes"], rep["quality"]["brushes_same"]);
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.starts_with(head), "{map}: {}", &text[..text.len().min(200)]);
    }
}

/// `--report` lists every brush and entity, one row a line (`--json` the same); `--list-limit`
/// keeps the first rows in output order and still counts them all.
#[test]
fn decompile_report_rows() {
    let Some(corpus) = corpus() else { return };
    let dir = crate::cli::scratch("decompile-rows");
    let map = corpus.join("quake2/bsp_tool__q2_mp_lobby.bsp");
    let run = |extra: &[&str]| {
        let report = dir.join("r.json");
        let r = Command::new(env!("CARGO_BIN_EXE_bsp"))
            .arg("decompile")
            .arg(&map)
            .arg("-o")
            .arg(dir.join("out.map"))
            .arg("--report")
            .arg(&report)
            .arg("--json")
            .args(extra)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let text = std::fs::read_to_string(&report).unwrap();
        assert_eq!(text.as_bytes(), r.stdout, "--report and --json write the same");
        (serde_json::from_str::<serde_json::Value>(&text).unwrap(), text)
    };
    let (full, text) = run(&[]);
    let brushes = full["quality"]["brushes"].as_u64().unwrap();
    assert!(brushes > 0);
    let rows = full["brush_list"].as_array().unwrap();
    assert_eq!((rows.len() as u64, full["brush_list_total"].as_u64()), (brushes, Some(brushes)));
    let same = rows.iter().filter(|r| r["same"] == true).count() as u64;
    assert_eq!(Some(same), full["quality"]["brushes_same"].as_u64());
    let sides: u64 = rows.iter().map(|r| r["sides"].as_u64().unwrap()).sum();
    assert_eq!(Some(sides), full["quality"]["sides"].as_u64());
    assert!(rows.iter().all(|r| r["from"] == "brush_lump" && r["lump_index"].is_u64()), "{rows:?}");
    let ents = full["entity_list"].as_array().unwrap();
    assert_eq!(ents.len() as u64, full["entity_list_total"].as_u64().unwrap());
    assert_eq!(ents[0]["classname"], "worldspawn");
    // One line a row: the report stays a line a brush on a large map.
    let row_lines = text.lines().filter(|l| l.trim_start().starts_with("{\"entity\":")).count() as u64;
    let entity_lines = text.lines().filter(|l| l.trim_start().starts_with("{\"index\":")).count();
    assert_eq!((row_lines, entity_lines), (brushes, ents.len()), "{text}");

    let (cut, _) = run(&["--list-limit", "2"]);
    assert_eq!(cut["brush_list"].as_array().unwrap()[..], rows[..2]);
    assert_eq!(cut["brush_list_total"], full["brush_list_total"]);
    assert_eq!(cut["entity_list"].as_array().unwrap()[..], ents[..ents.len().min(2)]);
    assert_eq!(cut["quality"], full["quality"]);
    let (none, _) = run(&["--list-limit", "0"]);
    assert_eq!((none["brush_list"].as_array().unwrap().len(), none["brush_list_total"].as_u64()), (0, Some(0)));
}
