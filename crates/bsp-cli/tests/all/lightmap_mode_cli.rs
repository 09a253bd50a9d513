//! `bsp export --lightmap-mode vertex`: the baked lighting where Blender's and three.js's default
//! glTF import show it (COLOR_0 × base colour, `KHR_materials_unlit`), checked three ways on a
//! corpus map with embedded textures and lightmaps (GoldSrc `in-bsp-texture-test`):
//!
//! * the document: every primitive has COLOR_0, every material is unlit, no occlusion texture
//!   and no lightmap image; the colours vary (light and shadow) and are not all white; the
//!   default mode is unchanged (occlusion texture, no unlit);
//! * the Khronos validator: 0 errors, 0 warnings for both modes (skipped without it);
//! * Blender (`blender` on PATH or `BSPKIT_BLENDER`; skipped without it): the GLB imported with
//!   the built-in importer's defaults and rendered by `tools/blender/render_glb.py`. The vertex-
//!   mode picture is not black, differs from the same scene with its colours set to white (the
//!   baked light is what shows), and is brighter than the default mode's picture (whose light
//!   sits in the occlusion slot Blender does not draw). The pictures stay in the scratch folder when the test fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::cli::{scratch, BSP};
use crate::common;
use crate::export_cli::{glb_json, validate};

const MAP: &str = "goldsrc-renderer__in-bsp-texture-test.bsp";

fn export(map: &Path, out: &Path, args: &[&str]) {
    let o = Command::new(BSP).arg("export").arg(map).arg("-o").arg(out).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// The bytes of accessor `i` of a GLB (tightly packed, as bspkit writes them).
fn accessor_bytes(glb: &[u8], doc: &Value, i: usize) -> Vec<u8> {
    let a = &doc["accessors"][i];
    let v = &doc["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin = &glb[20 + json_len + 8..];
    let start = v["byteOffset"].as_u64().unwrap_or(0) as usize + a["byteOffset"].as_u64().unwrap_or(0) as usize;
    bin[start..start + v["byteLength"].as_u64().unwrap() as usize].to_vec()
}

fn blender() -> Option<PathBuf> {
    if let Some(b) = std::env::var_os("BSPKIT_BLENDER") {
        return Some(PathBuf::from(b));
    }
    let found =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).map(|d| d.join("blender")).find(|b| b.is_file())).unwrap_or_default();
    if found.is_none() {
        eprintln!("note: Blender render skipped: no `blender` on PATH (Debian package `blender`) and no BSPKIT_BLENDER");
    }
    found
}

/// Render each `(glb, png, white)` in one Blender start (`white`: also with its colours made
/// white; a start costs about 2.5 s of CPU); the script's statistics, one per GLB in order, or
/// `None` (with a note) when the script says the importer cannot run there.
fn blender_render(blender: &Path, jobs: &[(&Path, &Path, Option<&Path>)]) -> Option<Vec<Value>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/blender/render_glb.py");
    let mut cmd = Command::new(blender);
    cmd.args(["-b", "--factory-startup", "--python-exit-code", "1", "--python"]).arg(&script).arg("--");
    for (k, (glb, png, white)) in jobs.iter().enumerate() {
        if k > 0 {
            cmd.arg("+");
        }
        cmd.arg(glb).arg(png).args(white);
    }
    let o = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "blender failed: {text}\n{}", String::from_utf8_lossy(&o.stderr));
    if let Some(why) = text.lines().find_map(|l| l.strip_prefix("BSPKIT_SKIP ")) {
        eprintln!("note: Blender render skipped: {why}");
        return None;
    }
    let stats: Vec<Value> =
        text.lines().filter_map(|l| l.strip_prefix("BSPKIT_STATS ")).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(stats.len(), jobs.len(), "statistics: {text}");
    Some(stats)
}

#[test]
fn vertex_mode_lighting_shows_in_default_imports() {
    let Some(corpus) = common::corpus("vertex_mode_lighting_shows_in_default_imports") else { return };
    let map = corpus.join("goldsrc").join(MAP);
    let dir = scratch("lightmap-mode");
    let (vertex, occlusion) = (dir.join("vertex.glb"), dir.join("occlusion.glb"));
    export(&map, &vertex, &["--lightmap-mode", "vertex"]);
    export(&map, &occlusion, &[]);

    let doc = glb_json(&vertex);
    assert!(doc["extensionsUsed"].as_array().unwrap().iter().any(|e| e == "KHR_materials_unlit"), "{}", doc["extensionsUsed"]);
    let materials = doc["materials"].as_array().unwrap();
    assert!(!materials.is_empty());
    for m in materials {
        assert!(m["extensions"]["KHR_materials_unlit"].is_object(), "not unlit: {m}");
        assert!(m.get("occlusionTexture").is_none(), "occlusion texture in vertex mode: {m}");
        assert!(m["pbrMetallicRoughness"]["baseColorTexture"].is_object(), "the texture stays: {m}");
    }
    let images: Vec<&str> = doc["images"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert!(images.iter().all(|n| !n.starts_with("lightmap")), "{images:?}");
    let bytes = std::fs::read(&vertex).unwrap();
    let mut colours: Vec<[u8; 3]> = Vec::new();
    for prim in doc["meshes"].as_array().unwrap().iter().flat_map(|m| m["primitives"].as_array().unwrap()) {
        let c = prim["attributes"]["COLOR_0"].as_u64().unwrap_or_else(|| panic!("no COLOR_0: {prim}")) as usize;
        assert!(prim["attributes"]["TEXCOORD_1"].is_u64(), "TEXCOORD_1 stays");
        colours.extend(accessor_bytes(&bytes, &doc, c).chunks_exact(4).map(|p| [p[0], p[1], p[2]]));
    }
    let mut distinct = colours.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let white = colours.iter().filter(|c| **c == [255; 3]).count();
    eprintln!("{} vertices, {} distinct colours, {white} white", colours.len(), distinct.len());
    assert!(distinct.len() >= 20, "the baked light hardly varies: {} colours", distinct.len());
    assert!(white * 2 < colours.len(), "{white} of {} vertices white", colours.len());

    // The default is unchanged: the occlusion texture on TEXCOORD_1, no unlit materials.
    let def = glb_json(&occlusion);
    assert!(def.get("extensionsUsed").is_none_or(|e| !e.as_array().unwrap().iter().any(|x| x == "KHR_materials_unlit")));
    assert!(def["materials"].as_array().unwrap().iter().any(|m| m["occlusionTexture"]["texCoord"] == 1));

    validate(&[vertex.clone(), occlusion.clone()]);

    let Some(blender) = blender() else { return };
    let (png, white, plain_png) = (dir.join("blender_vertex.png"), dir.join("blender_vertex_white.png"), dir.join("blender_occlusion.png"));
    let Some(stats) = blender_render(&blender, &[(&vertex, &png, Some(&white)), (&occlusion, &plain_png, None)]) else {
        return;
    };
    let [lit, plain]: [Value; 2] = stats.try_into().unwrap();
    eprintln!("Blender: vertex mode {lit}; occlusion mode {plain}");
    let mean = |v: &Value, k: &str| v[k]["mean"].as_f64().unwrap();
    assert!(lit["colour_attributes"].as_u64().unwrap() > 0, "COLOR_0 not imported: {lit}");
    assert!(mean(&lit, "picture") > 0.05, "vertex mode renders black: {lit}");
    assert!(lit["difference"].as_f64().unwrap() > 0.02, "the baked light does not change the picture: {lit}");
    assert!(mean(&lit, "picture") > 2.0 * mean(&plain, "picture"), "vertex mode {lit} not brighter than occlusion mode {plain}");
}
