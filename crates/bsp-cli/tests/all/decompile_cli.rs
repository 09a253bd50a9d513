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
    let dir = std::env::temp_dir().join(format!("bspkit-decompile-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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

    std::fs::remove_dir_all(&dir).ok();
}
