//! `bsp lightmaps`, `bsp export` (both lightmap modes) and `bsp render` on the Titanfall 2 and
//! Call of Duty 4 corpus maps: lit pages written as PNGs with their manifest, the GLB's lit
//! primitives carrying `TEXCOORD_1` with the lightmap as their occlusion texture (vertex mode:
//! `COLOR_0` on every primitive), every GLB 0 errors / 0 warnings in the Khronos validator
//! (skipped without it), and `render` naming its lit faces. The same on a builder-made Apex
//! map with one type-1 page (issue 25).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::cli::{scratch, BSP};
use crate::common;
use crate::export_cli::{glb_json, lit_primitives, validate};

fn run(args: &[&std::ffi::OsStr]) -> String {
    let o = Command::new(BSP).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn titanfall2_and_cod4_maps_get_lightmaps_in_every_output() {
    let Some(corpus) = common::corpus("lightmap_families_cli") else { return };
    let out = scratch("lightmap-families");
    let mut glbs = Vec::new();
    let mut maps = common::maps_in(&corpus, "respawn");
    maps.extend(common::maps_in(&corpus, "cod"));
    assert_eq!(maps.len(), 7, "3 Titanfall 2 and 4 CoD4 corpus maps");
    for (i, m) in maps.iter().enumerate() {
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        let dir = out.join(format!("lm{i}"));
        run(&["lightmaps".as_ref(), m.path.as_os_str(), "--out".as_ref(), dir.as_os_str()]);
        let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("lightmaps.json")).unwrap()).unwrap();
        let faces = manifest["faces"].as_array().unwrap();
        assert!(!faces.is_empty(), "{name}: lit faces");
        for a in manifest["atlases"].as_array().unwrap() {
            let png = dir.join(a["png"].as_str().unwrap());
            assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"), "{name}: {}", png.display());
        }

        let glb = out.join(format!("m{i}.glb"));
        run(&["export".as_ref(), m.path.as_os_str(), "-o".as_ref(), glb.as_os_str()]);
        let doc = glb_json(&glb);
        assert!(lit_primitives(&doc, &name) > 0, "{name}: lit primitives");

        let vertex = out.join(format!("v{i}.glb"));
        run(&["export".as_ref(), m.path.as_os_str(), "-o".as_ref(), vertex.as_os_str(), "--lightmap-mode".as_ref(), "vertex".as_ref()]);
        let vdoc = glb_json(&vertex);
        for p in vdoc["meshes"].as_array().unwrap().iter().flat_map(|m| m["primitives"].as_array().unwrap()) {
            assert!(p["attributes"]["COLOR_0"].is_u64(), "{name}: vertex mode without COLOR_0");
        }
        glbs.extend([glb, vertex]);

        let png = out.join(format!("r{i}.png"));
        let said = run(&["render".as_ref(), m.path.as_os_str(), "-o".as_ref(), png.as_os_str(), "--size".as_ref(), "128".as_ref()]);
        assert!(said.contains("lit faces"), "{name}: {said}");
        assert!(Path::new(&png).is_file());
    }
    validate(&glbs);
}

/// Apex (issue 25): `bspkit::build::apex_room` with one 8 × 4 type-1 page through `lightmaps`
/// (one lit face, its two layers as PNGs), `export` (the page as a lightmap image on the lit
/// primitive's occlusion slot, `TEXCOORD_1`; validator-clean when the validator is installed) and
/// `render` (1 lit face).
#[test]
fn apex_builder_map_gets_lightmaps_in_every_output() {
    use bspkit::build::{apex_room, apex_sky_pattern, ApexPage};
    let out = scratch("lightmap-apex");
    let pages = [ApexPage::rgba(8, 4)];
    let map = out.join("apex_room.bsp");
    std::fs::write(&map, apex_room(&pages, apex_sky_pattern(&pages))).unwrap();
    let dir = out.join("lm");
    let said = run(&["lightmaps".as_ref(), map.as_os_str(), "--out".as_ref(), dir.as_os_str()]);
    let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("lightmaps.json")).unwrap()).unwrap();
    assert_eq!(manifest["faces"].as_array().unwrap().len(), 1, "{said}");
    let atlases = manifest["atlases"].as_array().unwrap();
    assert_eq!(atlases.len(), 2, "sky A and sky B: {atlases:?}");
    for a in atlases {
        assert!(std::fs::read(dir.join(a["png"].as_str().unwrap())).unwrap().starts_with(b"\x89PNG"));
    }
    let glb = out.join("apex_room.glb");
    run(&["export".as_ref(), map.as_os_str(), "-o".as_ref(), glb.as_os_str()]);
    let doc = glb_json(&glb);
    let p = &doc["meshes"][0]["primitives"][0];
    assert!(p["attributes"]["TEXCOORD_1"].is_u64(), "{p}");
    let occ = &doc["materials"][p["material"].as_u64().unwrap() as usize]["occlusionTexture"];
    let source = doc["textures"][occ["index"].as_u64().unwrap() as usize]["source"].as_u64().unwrap() as usize;
    assert!(doc["images"][source]["name"].as_str().unwrap().starts_with("lightmap"), "{doc}");
    let png = out.join("apex_room.png");
    let said = run(&["render".as_ref(), map.as_os_str(), "-o".as_ref(), png.as_os_str(), "--size".as_ref(), "64".as_ref()]);
    assert!(said.contains("1 lit faces"), "{said}");
    validate(&[glb]);
}
