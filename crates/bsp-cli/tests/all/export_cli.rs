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

use crate::common;

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

fn tmp(name: &str) -> crate::cli::Scratch {
    crate::cli::scratch(&format!("export-{name}"))
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
pub(crate) fn validate(files: &[PathBuf]) {
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

/// The JSON chunk of a GLB.
/// The primitives of an exported GLB's JSON whose material has the lightmap (its occlusion
/// texture), each checked to read it through `TEXCOORD_1` from an image named `lightmap…`;
/// `what` names the map in the failure messages.
pub(crate) fn lit_primitives(doc: &Value, what: &str) -> usize {
    let lightmap_images: Vec<usize> = doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, im)| im["name"].as_str().is_some_and(|n| n.starts_with("lightmap")))
        .map(|(k, _)| k)
        .collect();
    assert!(!lightmap_images.is_empty(), "{what}: a lightmap image");
    let mut lit = 0;
    for p in doc["meshes"].as_array().unwrap().iter().flat_map(|m| m["primitives"].as_array().unwrap()) {
        let material = &doc["materials"][p["material"].as_u64().unwrap() as usize];
        if let Some(occ) = material.get("occlusionTexture") {
            assert_eq!(occ["texCoord"], 1, "{what}");
            assert!(p["attributes"]["TEXCOORD_1"].is_u64(), "{what}: lit primitive without TEXCOORD_1");
            let source = doc["textures"][occ["index"].as_u64().unwrap() as usize]["source"].as_u64().unwrap() as usize;
            assert!(lightmap_images.contains(&source), "{what}: occlusion texture is not a lightmap");
            lit += 1;
        }
    }
    lit
}

pub(crate) fn glb_json(path: &Path) -> Value {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..4], b"glTF");
    assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()) as usize, b.len(), "GLB length");
    let n = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    assert_eq!(&b[16..20], b"JSON");
    serde_json::from_slice(&b[20..20 + n]).unwrap()
}

/// What the summary says agrees with the document: triangles, nodes, materials, alpha modes.
fn structure(map: &Path, glb: &Path, summary: &Value) {
    let doc = glb_json(glb);
    let name = map.display();
    let accessors = doc["accessors"].as_array().cloned().unwrap_or_default();
    let mut triangles = 0;
    for mesh in doc["meshes"].as_array().into_iter().flatten() {
        for p in mesh["primitives"].as_array().unwrap() {
            triangles += accessors[p["indices"].as_u64().unwrap() as usize]["count"].as_u64().unwrap() / 3;
        }
    }
    assert_eq!(Some(triangles), summary["triangles"].as_u64(), "{name}: triangles");
    let nodes = doc["nodes"].as_array().map_or(0, |n| n.len()) as u64;
    assert_eq!(Some(nodes), summary["models"].as_u64().zip(summary["props"].as_u64()).map(|(a, b)| a + b), "{name}: nodes");
    assert_eq!(doc["materials"].as_array().map_or(0, |m| m.len()) as u64, summary["materials"].as_u64().unwrap(), "{name}");
    // This GoldSrc map embeds its textures with their palettes: its `{` one is alpha-tested.
    if map.to_string_lossy().contains("in-bsp-texture-test") {
        let masked: Vec<&Value> =
            doc["materials"].as_array().unwrap().iter().filter(|m| m["name"].as_str().is_some_and(|n| n.starts_with('{'))).collect();
        assert!(!masked.is_empty(), "{name}: no {{ material");
        for m in masked {
            assert_eq!(m["alphaMode"], "MASK", "{name}: {}", m["name"]);
            assert!(m["pbrMetallicRoughness"]["baseColorTexture"].is_object(), "{name}");
        }
        assert!(doc["images"].as_array().unwrap().iter().all(|i| i["mimeType"] == "image/png" && i["bufferView"].is_u64()));
    }
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
        structure(&map.path, &glb, &v);
        files.push(glb);
    }
    assert!(!files.is_empty(), "no map exported");
    validate(&files);
}

/// `dotatesting` (Dota 2 v23): its ground is one power-3 displacement and every other surface a
/// tool texture, so the GLB holds exactly the displacement's 128 triangles (none before Dota's
/// dispinfo records were read by the branch layer: the face was skipped as unreadable), in one
/// primitive, and the Khronos validator passes it with no error and no warning.
#[test]
fn dota_2_ground_displacement_is_exported() {
    let Some(dir) = common::corpus("dota_2_ground_displacement_is_exported") else { return };
    let map = common::maps_in(&dir, "source")
        .into_iter()
        .find(|m| m.path.ends_with("dotatesting__test.bsp"))
        .expect("dotatesting in the manifest");
    let out = tmp("dota");
    let glb = out.join("dotatesting.glb");
    let (v, _) = export(&map.path, &glb, &[]);
    structure(&map.path, &glb, &v);
    assert_eq!(v["triangles"], 128, "{v}");
    assert_eq!(v["skipped"].as_array().map(Vec::len), Some(0), "{v}");
    let doc = glb_json(&glb);
    let primitives: Vec<&Value> = doc["meshes"].as_array().unwrap().iter().flat_map(|m| m["primitives"].as_array().unwrap()).collect();
    assert_eq!(primitives.len(), 1);
    // The grid's 9 × 9 vertices, with the blend alpha as vertex colour.
    let accessor = |k: &str| &doc["accessors"][primitives[0]["attributes"][k].as_u64().unwrap() as usize];
    assert_eq!(accessor("POSITION")["count"], 81);
    assert_eq!(accessor("COLOR_0")["count"], 81);
    validate(&[glb]);
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
        "lightmap_placeholder",
        "lightmap_style_images",
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
}

/// `--skip hull` leaves out the walls of a box sealing the map, as `bsp render` cuts them
/// (`mesh::hull`): Titanfall 2 `mp_hippodrome` loses its box's faces and nothing else, and the
/// file is valid; LibreQuake e0m1, which no box seals, is written byte for byte as without it.
#[test]
fn skip_hull_leaves_out_the_sealing_box() {
    let Some(corpus) = common::corpus("skip_hull_leaves_out_the_sealing_box") else { return };
    let dir = tmp("skip-hull");
    let kinds = ["--skip", "sky,nodraw,trigger,clip,tool"];
    let with_hull = ["--skip", "sky,nodraw,trigger,clip,tool,hull"];
    let hippo = corpus.join("respawn/catornot__mp_hippodrome.bsp");
    let (a, _) = export(&hippo, &dir.join("a.glb"), &kinds);
    let (b, _) = export(&hippo, &dir.join("b.glb"), &with_hull);
    let cut = b["skipped_by_flag"]["hull"].as_u64().unwrap_or(0);
    assert!(cut > 0 && a["skipped_by_flag"].get("hull").is_none(), "{a}\n{b}");
    // Only the walls went: every other kind is skipped as before, and fewer triangles are left.
    for k in ["sky", "nodraw", "trigger", "clip", "tool"] {
        assert_eq!(a["skipped_by_flag"][k], b["skipped_by_flag"][k], "{k}");
    }
    let (ta, tb) = (a["triangles"].as_u64().unwrap(), b["triangles"].as_u64().unwrap());
    assert!(tb < ta && tb > 0, "{ta} -> {tb} triangles");
    validate(&[dir.join("b.glb")]);
    let e0m1 = corpus.join("quake1/qbsp__lq_e0m1.bsp");
    export(&e0m1, &dir.join("c.glb"), &kinds);
    export(&e0m1, &dir.join("d.glb"), &with_hull);
    assert!(std::fs::read(dir.join("c.glb")).unwrap() == std::fs::read(dir.join("d.glb")).unwrap(), "e0m1 changed");
}

#[test]
fn strict_fails_on_warnings() {
    let dir = tmp("strict");
    let map = room(&dir, "bspkit_grey");
    // A --palette that cannot be read is not replaced by the shipped one: the Quake texture is
    // a placeholder, with warnings.
    let bad = dir.join("missing.lmp");
    let (v, code) = export(&map, &dir.join("a.glb"), &["--strict", "--palette", bad.to_str().unwrap()]);
    assert_eq!(v["placeholder_textures"], 1);
    assert_eq!(code, 1);
    let (_, code) = export(&map, &dir.join("b.glb"), &["--strict", "--no-textures", "--palette", bad.to_str().unwrap()]);
    assert_eq!(code, 0);
    // With no palette given, the palette that ships with bspkit decodes it: nothing to warn of.
    let (v, code) = export(&map, &dir.join("c.glb"), &["--strict"]);
    assert_eq!((v["placeholder_textures"].as_u64(), v["textures"].as_u64()), (Some(0), Some(1)), "{v}");
    assert_eq!(code, 0, "{v}");
}

/// `--models world` keeps model 0 only; by default brush models are nodes placed by their entity.
#[test]
fn models_world_or_all() {
    let Some(dir) = common::corpus("export_cli models") else { return };
    let map = dir.join("quake1/qbsp__example-bsp29.bsp");
    let out = tmp("models");
    let (all, _) = export(&map, &out.join("all.glb"), &[]);
    let (world, _) = export(&map, &out.join("world.glb"), &["--models", "world"]);
    assert!(all["models"].as_u64().unwrap() > 1, "{all}");
    assert_eq!(world["models"], 1);
    assert!(world["triangles"].as_u64() < all["triangles"].as_u64());
    let doc = glb_json(&out.join("all.glb"));
    let placed = doc["nodes"].as_array().unwrap().iter().filter(|n| n["extras"]["entity"].is_u64()).count();
    assert!(placed > 0, "no brush model names its entity");
}

/// Respawn surfaces carry their vertex kind: each model node's `extras.vertex_kinds` counts the
/// surfaces per kind, the same counts as the library's scene.
#[test]
fn respawn_nodes_name_their_vertex_kinds() {
    let Some(dir) = common::corpus("export_cli vertex kinds") else { return };
    let out = tmp("vertex-kinds");
    for map in common::maps_in(&dir, "respawn") {
        let glb = out.join("map.glb");
        export(&map.path, &glb, &["--no-textures", "--no-lightmaps", "--skip", "none"]);
        let doc = glb_json(&glb);
        let bsp = bspkit::Bsp::open(&map.path).unwrap();
        let scene = bspkit::mesh::build(&bsp, &Default::default()).unwrap();
        let nodes = doc["nodes"].as_array().unwrap();
        for m in &scene.models {
            let mut want = std::collections::BTreeMap::<String, u64>::new();
            for s in &m.surfaces {
                *want.entry(s.vertex_kind.expect("Respawn surfaces have a vertex kind").key().to_string()).or_default() += 1;
            }
            let node = nodes.iter().find(|n| n["extras"]["model"] == m.index).expect("a node per model");
            let got: std::collections::BTreeMap<String, u64> =
                serde_json::from_value(node["extras"]["vertex_kinds"].clone()).unwrap_or_default();
            assert_eq!(got, want, "{} model {}", map.path.display(), m.index);
        }
        // With lightmaps on (the default), the lit meshes' own lightmap UVs are TEXCOORD_1.
        export(&map.path, &glb, &["--no-textures"]);
        let doc = glb_json(&glb);
        let uv1 = doc["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["primitives"].as_array().unwrap())
            .any(|p| p["attributes"]["TEXCOORD_1"].is_u64());
        assert!(uv1, "{}: no TEXCOORD_1", map.path.display());
    }
}

/// A Portable Float Map (`PF`, little-endian): width, height, RGB rows top to bottom.
fn read_pfm(path: &Path) -> (u32, u32, Vec<[f32; 3]>) {
    let b = std::fs::read(path).unwrap();
    let mut lines = b.splitn(4, |&c| c == b'\n');
    assert_eq!(lines.next(), Some(&b"PF"[..]), "{}", path.display());
    let size = std::str::from_utf8(lines.next().unwrap()).unwrap();
    let (w, h) = size.split_once(' ').map(|(w, h)| (w.parse::<u32>().unwrap(), h.parse::<u32>().unwrap())).unwrap();
    assert_eq!(lines.next(), Some(&b"-1.0"[..]));
    let data = lines.next().unwrap();
    assert_eq!(data.len(), w as usize * h as usize * 12, "{}", path.display());
    let px: Vec<[f32; 3]> = data.chunks_exact(12).map(|c| [0, 4, 8].map(|k| f32::from_le_bytes(c[k..k + 4].try_into().unwrap()))).collect();
    let rows: Vec<[f32; 3]> = px.chunks_exact(w as usize).rev().flatten().copied().collect();
    (w, h, rows)
}

/// `--hdr`: every atlas of `lightmap::build` (HDR lighting, every style and layer) is a `.pfm`
/// beside the GLB holding its stored values exactly and a `.png` of its 8-bit pixels, and the
/// manifest lists them and every
/// face's rectangle. The builder room, and a Source map with HDR lighting and bump-mapped faces
/// when the corpus is there.
#[test]
fn hdr_writes_every_lightmap_image_losslessly() {
    let dir = tmp("hdr");
    let mut maps = vec![room(&dir, "bspkit_grey")];
    if let Some(c) = common::corpus("hdr_writes_every_lightmap_image_losslessly") {
        maps.extend(
            ["source/bsp_tool__tf2_test2.bsp", "source_x360/bsp_tool__shack.360.bsp", "quake1/qbsp__lq_e0m1.bsp"]
                .map(|m| c.join(m))
                .into_iter()
                .filter(|p| p.is_file()),
        );
    }
    let mut glbs = Vec::new();
    for (i, map) in maps.iter().enumerate() {
        let glb = dir.join(format!("m{i}.glb"));
        let (v, _) = export(map, &glb, &["--hdr"]);
        let files: Vec<PathBuf> = v["files"].as_array().unwrap().iter().map(|f| PathBuf::from(f["path"].as_str().unwrap())).collect();
        assert_eq!(files[0], glb, "the output comes first");
        let manifest_path = dir.join(format!("m{i}_lightmaps.json"));
        assert!(files.contains(&manifest_path), "{files:?}");
        let manifest: Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
        let bsp = bspkit::Bsp::open(map).unwrap();
        let lm = bspkit::lightmap::build(&bsp, &bspkit::lightmap::LightOptions { hdr: true, ..Default::default() }).unwrap();
        assert_eq!(manifest["source"]["name"], lm.source.as_str());
        assert_eq!(manifest["faces"].as_array().unwrap().len(), lm.faces.len(), "{}", map.display());
        for (f, m) in lm.faces.iter().zip(manifest["faces"].as_array().unwrap()) {
            let got: Vec<u64> = ["lump", "index", "page", "x", "y", "width", "height"].iter().map(|k| m[k].as_u64().unwrap()).collect();
            assert_eq!(got, [f.lump as u64, f.index as u64, f.page as u64, f.x as u64, f.y as u64, f.width as u64, f.height as u64]);
        }
        let atlases = manifest["atlases"].as_array().unwrap();
        assert_eq!(atlases.len(), lm.atlases.len(), "{}: one file per page × style × layer", map.display());
        assert!(!atlases.is_empty(), "{}: no lightmap", map.display());
        for (a, m) in lm.atlases.iter().zip(atlases) {
            assert_eq!(
                (m["page"].as_u64(), m["style"].as_u64(), m["layer"].as_u64()),
                (Some(a.page as u64), Some(a.style as u64), Some(a.layer as u64))
            );
            let pfm = dir.join(m["hdr"].as_str().unwrap());
            assert!(files.contains(&pfm), "{} not in the summary", pfm.display());
            // The PNG: the atlas's 8-bit pixels.
            let png = dir.join(m["png"].as_str().unwrap());
            assert!(files.contains(&png), "{} not in the summary", png.display());
            let img = bspkit::texture::ImageRgba::decode_png(&std::fs::read(&png).unwrap(), 1 << 30).unwrap();
            let rgb: Vec<u8> = img.pixels.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            assert!((img.width, img.height) == (a.width, a.height) && rgb == *a.rgb8(), "{}", png.display());
            let (w, h, px) = read_pfm(&pfm);
            assert_eq!((w, h), (a.width, a.height));
            for y in 0..h {
                for x in 0..w {
                    let want = a.stored(x, y);
                    let got = px[(y * w + x) as usize];
                    assert!(got == want || (got[0].is_nan() && want[0].is_nan()), "{}: ({x}, {y}) {got:?} {want:?}", pfm.display());
                }
            }
        }
        eprintln!("{}: {} faces, {} images from {}", map.display(), lm.faces.len(), lm.atlases.len(), lm.source);
        glbs.push(glb);
    }
    validate(&glbs);
}
