//! `bsp export --light-styles --bump-layers`: every lightmap page's other light styles (and
//! Source's bump-direction layers) embedded in the GLB, named by the material's
//! `extras.lightmap` (`bspkit::export::LIGHTMAP_EXTRAS`), on corpus maps that have styles ≠ 0
//! (Quake 1 BSP29 and BSP2, GoldSrc, Quake 2, Genesis3D) or bump layers (Source):
//!
//! * every material is what the default export writes (name, alpha, the same base-colour and
//!   occlusion image bytes, the same extras besides `lightmap`);
//! * each page's embedded images are exactly the library's atlases of that page other than the
//!   base one (`bspkit::lightmap::build`: same (style, layer) set, same PNG bytes), and the
//!   `style` named is the base image's;
//! * the Khronos validator: 0 errors, 0 warnings (skipped without it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::cli::{scratch, BSP};
use crate::common;
use crate::export_cli::{glb_json, validate};

/// (folder, file, whether it has bump layers rather than styles ≠ 0).
const MAPS: [(&str, &str, bool); 7] = [
    ("quake1", "qbsp__lq_e0m1.bsp", false),
    ("quake1", "qbsp__example-bsp2.bsp", false),
    ("goldsrc", "qbsp__example-halflife.bsp", false),
    ("quake2", "qbsp__example-quake2.bsp", false),
    ("quake2", "qbsp__lq_e0m1-quake2.bsp", false),
    ("genesis3d", "genesis3d__genvs2.bsp", false),
    ("source", "bsp_tool__tf2_test2.bsp", true),
];

fn export(map: &Path, out: &Path, args: &[&str]) -> Value {
    let o = Command::new(BSP).arg("export").arg(map).arg("-o").arg(out).args(args).arg("--json").output().unwrap();
    assert!(o.status.success(), "{} {args:?}: {}", map.display(), String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The bytes of image `i` of a GLB (in its binary chunk).
fn image_bytes(glb: &[u8], doc: &Value, texture: &Value) -> Vec<u8> {
    let image = &doc["images"][doc["textures"][texture.as_u64().unwrap() as usize]["source"].as_u64().unwrap() as usize];
    let v = &doc["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin = &glb[20 + json_len + 8..];
    let start = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    bin[start..start + v["byteLength"].as_u64().unwrap() as usize].to_vec()
}

/// A material with its texture indices replaced by the images' bytes and the extras that say
/// what was embedded (`extras.lightmap`, `extras.bump_layers`: docs/gltf-light-styles.md) taken
/// out: what must not change when the extra images are embedded.
fn resolved(glb: &[u8], doc: &Value, m: &Value) -> Value {
    let mut m = m.clone();
    for slot in ["/pbrMetallicRoughness/baseColorTexture", "/occlusionTexture"] {
        if let Some(t) = m.pointer_mut(slot) {
            let bytes = image_bytes(glb, doc, &t["index"]);
            t["index"] = Value::from(format!("{:016x}:{}", fxhash(&bytes), bytes.len()));
        }
    }
    if let Some(e) = m.get_mut("extras").and_then(Value::as_object_mut) {
        e.remove("lightmap");
        e.remove("bump_layers");
        if e.is_empty() {
            m.as_object_mut().unwrap().remove("extras");
        }
    }
    m
}

fn fxhash(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf29ce484222325u64, |h, &x| (h ^ x as u64).wrapping_mul(0x100000001b3))
}

#[test]
fn light_styles_and_bump_layers_are_embedded_beside_unchanged_materials() {
    let Some(corpus) = common::corpus("light_styles_and_bump_layers_are_embedded_beside_unchanged_materials") else { return };
    let dir = scratch("light-styles");
    let mut to_validate = Vec::new();
    for (folder, file, bump) in MAPS {
        let map = corpus.join(folder).join(file);
        let stem = file.trim_end_matches(".bsp");
        let (plain, styled) = (dir.join(format!("{stem}.glb")), dir.join(format!("{stem}_styles.glb")));
        let s0 = export(&map, &plain, &[]);
        let s1 = export(&map, &styled, &["--light-styles", "--bump-layers"]);
        assert_eq!(s0["lightmap_style_images"], 0, "{file}");
        let (g0, g1) = (std::fs::read(&plain).unwrap(), std::fs::read(&styled).unwrap());
        let (d0, d1) = (glb_json(&plain), glb_json(&styled));
        // The materials are the default export's.
        let (m0, m1) = (d0["materials"].as_array().unwrap(), d1["materials"].as_array().unwrap());
        assert_eq!(m0.len(), m1.len(), "{file}");
        for (a, b) in m0.iter().zip(m1) {
            assert_eq!(resolved(&g0, &d0, a), resolved(&g1, &d1, b), "{file}: material {}", a["name"]);
            assert!(a.pointer("/extras/bump_layers").is_none(), "{file}: bump marker without --bump-layers");
        }
        // The bump marker is there exactly when the map has bump-mapped faces.
        let marked = m1.iter().filter(|m| m.pointer("/extras/bump_layers") == Some(&Value::Bool(true))).count();
        assert_eq!(marked > 0, bump, "{file}: {marked} materials marked bump-mapped");
        // Per page, the embedded images against the library's atlases.
        let bsp = bspkit::Bsp::open(&map).unwrap();
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
        let mut pages: BTreeMap<u64, Value> = BTreeMap::new();
        for m in m1 {
            let Some(e) = m.pointer("/extras/lightmap") else { continue };
            let page = e["page"].as_u64().unwrap();
            // TEXCOORD_1 of this material points into that page: its occlusion image is the page's base.
            assert!(m["occlusionTexture"].is_object(), "{file}: {m}");
            if let Some(prev) = pages.insert(page, e.clone()) {
                assert_eq!(&prev, e, "{file}: page {page} named two ways");
            }
        }
        assert!(!pages.is_empty(), "{file}: no material names other styles or layers");
        let mut seen = BTreeSet::new();
        for (page, e) in &pages {
            let page = *page as u32;
            let base = lm.atlas(page, 0, 0).or_else(|| lm.atlases.iter().find(|a| a.page == page && a.layer == 0)).unwrap();
            assert_eq!(e["style"].as_u64(), Some(base.style as u64), "{file}: page {page}");
            let want: Vec<(u8, u8)> = lm
                .atlases
                .iter()
                .filter(|a| a.page == page && !(a.style == base.style && a.layer == 0))
                .map(|a| (a.style, a.layer))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let got: Vec<(u8, u8)> = e["images"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| (i["style"].as_u64().unwrap() as u8, i["layer"].as_u64().unwrap() as u8))
                .collect();
            assert_eq!(got, want, "{file}: page {page}");
            for (i, &(style, layer)) in e["images"].as_array().unwrap().iter().zip(&got) {
                let png = lm.atlas_png(lm.atlas(page, style, layer).unwrap()).unwrap();
                assert!(image_bytes(&g1, &d1, &i["texture"]) == png, "{file}: page {page} style {style} layer {layer}: other bytes");
                seen.insert((style, layer));
            }
        }
        assert_eq!(
            s1["lightmap_style_images"].as_u64().unwrap() as usize,
            pages.values().map(|e| e["images"].as_array().unwrap().len()).sum::<usize>()
        );
        if bump {
            assert!((1..4).all(|l| seen.contains(&(0, l))), "{file}: bump layers {seen:?}");
        } else {
            assert!(seen.iter().any(|&(s, l)| s != 0 && l == 0), "{file}: no style ≠ 0 {seen:?}");
        }
        eprintln!("{file}: {} pages with extra images, (style, layer) {seen:?}, GLB {} -> {} bytes", pages.len(), g0.len(), g1.len());
        to_validate.push(styled);
    }
    validate(&to_validate);
}
