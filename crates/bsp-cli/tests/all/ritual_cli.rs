//! `bsp` on Ritual's Quake 3 descendants (builder rooms: F.A.K.K.2, Alice, Medal of Honor demo /
//! retail / Breakthrough), run as a child process: `bsp formats` lists them, `bsp info` prints
//! the detection evidence and a row per lump, `bsp check` is clean, `bsp rewrite` is byte for
//! byte, and `bsp export` writes a GLB the Khronos validator accepts (when
//! `BSPKIT_GLTF_VALIDATOR` names it; skipped with a note otherwise).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

fn run(args: &[&str]) -> Output {
    Command::new(BSP).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn scratch() -> crate::cli::Scratch {
    crate::cli::scratch("cli-ritual")
}

#[test]
fn ritual_rooms_info_check_rewrite_export() {
    let formats = stdout(&run(&["formats"]));
    let d = scratch();
    let mut glbs = Vec::new();
    for branch in bspkit::branches::quake3::RITUAL {
        assert!(formats.contains(branch.id), "bsp formats lacks {}: {formats}", branch.id);
        let map = d.join(format!("{}.bsp", branch.id));
        let bytes = bspkit::build::ritual_room(branch).unwrap();
        std::fs::write(&map, &bytes).unwrap();

        let info = run(&["info", s(&map)]);
        assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
        let text = stdout(&info);
        assert!(text.contains(&format!("[{}]", branch.id)), "{text}");
        for row in ["shaders", "faces", "leaves", "entities", "total"] {
            assert!(text.lines().any(|l| l.contains(row)), "{}: no {row} row in {text}", branch.id);
        }
        if branch.id == "mohaa" {
            // OpenMoHAA's `%6i   %-22s%7i` columns.
            assert!(text.contains("\n     2   sideequations              64\n"), "{text}");
        }
        let json: serde_json::Value = serde_json::from_slice(&run(&["info", "--json", s(&map)]).stdout).unwrap();
        assert_eq!(json["format"]["branch"], branch.id);
        assert_eq!(json["format"]["family"], "quake3");
        assert_eq!(json["problems"].as_array().unwrap().len(), 0);

        let check = run(&["check", s(&map)]);
        assert!(check.status.success(), "{}: {}", branch.id, stdout(&check));

        let out = d.join(format!("{}-rw.bsp", branch.id));
        let rw = run(&["rewrite", s(&map), "-o", s(&out)]);
        assert!(rw.status.success(), "{}", String::from_utf8_lossy(&rw.stderr));
        assert_eq!(std::fs::read(&out).unwrap(), bytes, "{}", branch.id);

        let glb = d.join(format!("{}.glb", branch.id));
        let ex = run(&["export", s(&map), "-o", s(&glb), "--no-textures"]);
        assert!(ex.status.success(), "{}: {}", branch.id, String::from_utf8_lossy(&ex.stderr));
        assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");
        glbs.push(glb);
    }
    validate(&glbs);
}

/// Every file with 0 errors and 0 warnings from the Khronos validator (`tools/gltf-validate`).
fn validate(files: &[PathBuf]) {
    let Some(script) = std::env::var_os("BSPKIT_GLTF_VALIDATOR").map(PathBuf::from).filter(|p| p.is_file()) else {
        assert!(
            std::env::var("BSPKIT_REQUIRE_ORACLES").map_or(true, |v| v != "1"),
            "BSPKIT_REQUIRE_ORACLES=1 but BSPKIT_GLTF_VALIDATOR names no validator script"
        );
        eprintln!("note: glTF validation skipped: set BSPKIT_GLTF_VALIDATOR (scripts/test.sh does)");
        return;
    };
    let o = Command::new("node").arg(&script).args(files).output().expect("node runs");
    let text = String::from_utf8_lossy(&o.stdout);
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        seen += 1;
        assert!(r.get("failure").is_none() && r["errors"] == 0 && r["warnings"] == 0, "glTF validator: {line}");
    }
    assert_eq!(seen, files.len());
}
