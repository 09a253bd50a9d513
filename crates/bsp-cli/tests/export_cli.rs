//! `bsp export`: every corpus map exported as GLB (textures and lightmaps on) and checked by the
//! Khronos glTF validator with no error and no warning; `.gltf` and `.obj` outputs; the `--json`
//! summary against README.md's schema; `--skip` on a builder map.
//!
//! The validator is `tools/gltf-validate/validate.mjs` (npm `gltf-validator`), named by
//! `BSPKIT_GLTF_VALIDATOR` (`scripts/test.sh` installs it and sets it). Without it the
//! validation is skipped with a note — unless `BSPKIT_REQUIRE_ORACLES=1`, when it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[path = "../../bspkit/tests/common/mod.rs"]
mod common;

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bsp-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `bsp export MAP -o OUT ARGS… --json`: the summary, and the exit code.
fn export(map: &Path, out: &Path, args: &[&str]) -> (Value, i32) {
    let o = Command::new(BSP).arg("export").arg(map).arg("-o").arg(out).args(args).arg("--json").output().unwrap();
    let code = o.status.code().unwrap_or(-1);
    assert!(code == 0 || code == 1, "bsp export {} failed ({code}): {}", map.display(), String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{}: --json is not JSON ({e}): {}", map.display(), String::from_utf8_lossy(&o.stdout)));
    (v, code)
}

/// The validator script, or `None` (with a note) when it is not set up.
fn validator() -> Option<PathBuf> {
    let script = std::env::var_os("BSPKIT_GLTF_VALIDATOR").map(PathBuf::from);
    let required = std::env::var("BSPKIT_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
    match script {
        Some(s) if s.is_file() => Some(s),
        _ if required => panic!("BSPKIT_REQUIRE_ORACLES=1 but BSPKIT_GLTF_VALIDATOR names no validator script (run scripts/test.sh)"),
        _ => {
            eprintln!("note: glTF validation skipped: set BSPKIT_GLTF_VALIDATOR (scripts/test.sh does)");
            None
        }
    }
}

/// Validate `files` in one run of the validator: every file with 0 errors and 0 warnings.
fn validate(files: &[PathBuf]) {
    let Some(script) = validator() else { return };
    if files.is_empty() {
        return;
    }
    let o = Command::new("node").arg(&script).args(files).output().expect("node runs");
    let text = String::from_utf8_lossy(&o.stdout);
    let mut bad = Vec::new();
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("validator output {line:?}: {e}"));
        seen += 1;
        if r.get("failure").is_some() || r["errors"] != 0 || r["warnings"] != 0 {
            bad.push(line.to_string());
        }
    }
    assert_eq!(seen, files.len(), "validator reported {seen} of {} files: {}", files.len(), String::from_utf8_lossy(&o.stderr));
    assert!(bad.is_empty(), "glTF validator found problems:\n{}", bad.join("\n"));
    assert!(o.status.success(), "validator exit {:?}", o.status.code());
}

#[test]
fn every_corpus_map_exports_valid_glb() {
    let Some(dir) = common::corpus("export_cli") else { return };
    // Development aid only: BSPKIT_EXPORT_FAMILIES=quake1,goldsrc limits the folders exported.
    let only: Option<Vec<String>> =
        std::env::var("BSPKIT_EXPORT_FAMILIES").ok().map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let out = tmp("corpus");
    let mut files = Vec::new();
    for (i, map) in common::maps(&dir).into_iter().enumerate() {
        if only.as_ref().is_some_and(|o| !o.contains(&map.folder)) {
            continue;
        }
        let glb = out.join(format!("{i:02}_{}.glb", map.path.file_stem().unwrap().to_string_lossy()));
        let t = std::time::Instant::now();
        let (v, _) = export(&map.path, &glb, &[]);
        eprintln!(
            "{}: {} triangles, {} materials, {} lightmap pages, {} bytes, {:.2}s",
            map.path.display(),
            v["triangles"],
            v["materials"],
            v["lightmap_pages"],
            v["files"][0]["bytes"],
            t.elapsed().as_secs_f64()
        );
        assert!(glb.is_file(), "{}: nothing written", map.path.display());
        files.push(glb);
    }
    assert!(!files.is_empty(), "no map exported");
    validate(&files);
    let _ = std::fs::remove_dir_all(&out);
}

/// The sample room written to `dir`, with its texture renamed to `texture` (same length or
/// shorter, NUL-padded in the 16-byte miptex name).
fn room(dir: &Path, texture: &str) -> PathBuf {
    let mut bytes = bspkit::build::sample_quake1();
    let bsp = bspkit::Bsp::from_bytes(&bytes).unwrap();
    let lump = bsp.lump_index("TEXTURES").unwrap();
    let at = bsp.entry(lump).unwrap().offset as usize;
    drop(bsp);
    let first = i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
    let name = &mut bytes[at + first..at + first + 16];
    name.fill(0);
    name[..texture.len()].copy_from_slice(texture.as_bytes());
    let path = dir.join(format!("room_{}.bsp", texture.replace('*', "_")));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn gltf_and_obj_outputs() {
    let dir = tmp("formats");
    let map = room(&dir, "bspkit_grey");
    let (v, code) = export(&map, &dir.join("room.gltf"), &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["format"], "gltf");
    assert_eq!((v["surfaces"].as_u64(), v["triangles"].as_u64()), (Some(6), Some(12)));
    for f in ["room.gltf", "room.bin"] {
        assert!(dir.join(f).is_file(), "{f} not written");
    }
    let files: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(files.iter().any(|f| f.ends_with("room_lightmap0.png")), "{files:?}");
    assert!(files.iter().all(|f| Path::new(f).is_file()), "{files:?}");
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.join("room.gltf")).unwrap()).unwrap();
    assert_eq!(doc["buffers"][0]["uri"], "room.bin");
    let prim = &doc["meshes"][0]["primitives"][0];
    for attr in ["POSITION", "NORMAL", "TEXCOORD_0", "TEXCOORD_1"] {
        assert!(prim["attributes"][attr].is_u64(), "{attr} missing");
    }
    // The room spans 256 × 256 × 128 units: Y-up and metres.
    let pos = &doc["accessors"][prim["attributes"]["POSITION"].as_u64().unwrap() as usize];
    let (min, max) = (&pos["min"], &pos["max"]);
    let span = |k: usize| max[k].as_f64().unwrap() - min[k].as_f64().unwrap();
    assert!((span(0) - 256.0 * 0.0254).abs() < 1e-4 && (span(1) - 128.0 * 0.0254).abs() < 1e-4, "{min} {max}");
    validate(&[dir.join("room.gltf")]);

    let (v, _) = export(&map, &dir.join("room.obj"), &["--scale", "1"]);
    assert_eq!(v["format"], "obj");
    let obj = std::fs::read_to_string(dir.join("room.obj")).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 12);
    assert_eq!(obj.lines().filter(|l| l.starts_with("v ")).count() as u64, v["vertices"].as_u64().unwrap());
    assert!(obj.contains("mtllib room.mtl"));
    let mtl = std::fs::read_to_string(dir.join("room.mtl")).unwrap();
    assert!(mtl.contains("newmtl bspkit_grey"), "{mtl}");
    // Game units: every coordinate within the room's ±128.
    for l in obj.lines().filter(|l| l.starts_with("v ")) {
        assert!(l.split_whitespace().skip(1).all(|c| c.parse::<f32>().unwrap().abs() <= 128.0), "{l}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn readme_schema() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let start = readme.find("### `bsp export --json`").expect("README documents bsp export --json");
    let body = &readme[start..];
    let open = body.find("```").unwrap() + 3;
    let close = body[open..].find("```").unwrap() + open;
    body[open..close].to_string()
}

#[test]
fn json_summary_matches_the_readme() {
    let dir = tmp("json");
    let map = room(&dir, "bspkit_grey");
    let (v, _) = export(&map, &dir.join("room.glb"), &[]);
    let doc = readme_schema();
    let want = [
        "format",
        "models",
        "surfaces",
        "triangles",
        "vertices",
        "materials",
        "textures",
        "placeholder_textures",
        "lightmap_pages",
        "props",
        "skipped",
        "skipped_by_flag",
        "skipped_surfaces",
        "warnings",
        "files",
    ];
    let mut got: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    got.sort_unstable();
    let mut w = want.to_vec();
    w.sort_unstable();
    assert_eq!(got, w);
    for k in want.iter().chain(&["lump", "index", "reason", "path", "bytes"]) {
        assert!(doc.contains(&format!("\"{k}\"")), "{k:?} is not in README's schema");
    }
    assert_eq!(v["files"][0]["bytes"].as_u64(), Some(std::fs::metadata(dir.join("room.glb")).unwrap().len()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn skip_leaves_out_surfaces_by_kind() {
    let dir = tmp("skip");
    let sky = room(&dir, "sky1");
    let (v, _) = export(&sky, &dir.join("a.glb"), &[]);
    assert_eq!((v["surfaces"].as_u64(), v["skipped_surfaces"].as_u64()), (Some(0), Some(6)), "{v}");
    assert_eq!(v["skipped_by_flag"]["sky"], 6);
    let (v, _) = export(&sky, &dir.join("b.glb"), &["--skip", "none"]);
    assert_eq!((v["surfaces"].as_u64(), v["skipped_surfaces"].as_u64()), (Some(6), Some(0)), "{v}");
    let (v, _) = export(&sky, &dir.join("c.glb"), &["--skip", "trigger,clip"]);
    assert_eq!(v["surfaces"].as_u64(), Some(6));
    let trigger = room(&dir, "trigger");
    let (v, _) = export(&trigger, &dir.join("d.glb"), &["--skip", "trigger"]);
    assert_eq!(v["skipped_by_flag"]["trigger"], 6);
    let water = room(&dir, "*water0");
    let (v, _) = export(&water, &dir.join("e.glb"), &[]);
    assert_eq!(v["surfaces"].as_u64(), Some(6), "water is drawn by default");
    // Nothing left to draw is still a valid file.
    validate(&[dir.join("a.glb"), dir.join("b.glb")]);
    let o = Command::new(BSP).arg("export").arg(&sky).arg("-o").arg(dir.join("f.glb")).args(["--skip", "bogus"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn strict_fails_on_warnings() {
    let dir = tmp("strict");
    let map = room(&dir, "bspkit_grey");
    // Without a palette the Quake texture cannot be decoded: a placeholder and a warning.
    let (v, code) = export(&map, &dir.join("a.glb"), &["--strict"]);
    assert_eq!(v["placeholder_textures"], 1);
    assert_eq!(code, 1);
    let (_, code) = export(&map, &dir.join("b.glb"), &["--strict", "--no-textures"]);
    assert_eq!(code, 0);
    let _ = std::fs::remove_dir_all(&dir);
}
