//! `bsp scan` exit codes and JSON lines, on builder-made maps in a temporary directory.

use std::process::Command;

fn temp_dir(name: &str) -> crate::cli::Scratch {
    crate::cli::scratch(&format!("scan-{name}"))
}

fn bsp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bsp"))
}

#[test]
fn scan_exit_codes_and_json() {
    let dir = temp_dir("cli");
    std::fs::write(dir.join("good.bsp"), bspkit::build::sample_quake1()).unwrap();
    let out = bsp().args(["scan", "--json", "--jobs", "2"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["branch"], "quake1");
    assert_eq!(lines[0]["family"], "quake");
    assert!(lines[0]["error"].is_null());
    assert!(lines[0]["lumps"]["count"].as_u64().unwrap() > 0);

    std::fs::write(dir.join("bad.bsp"), b"this is not a map").unwrap();
    let out = bsp().arg("scan").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("FAIL") && text.contains("bad.bsp"), "{text}");

    let out = bsp().args(["scan", "--jobs", "many"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bsp().arg("scan").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
