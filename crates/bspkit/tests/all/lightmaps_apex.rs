//! Apex Legends lightmaps (issue 25) on builder-made maps (`bspkit::build::apex_room`): type-1
//! pages decode into the atlases texel for texel (sky A layer 0, sky B layer 1, the bytes the
//! builder wrote), the lit floor's `uv1` spans its page, `render` is lit and the GLB carries
//! `TEXCOORD_1` and the atlas; truncated texel lumps, oversized or unknown-type headers and
//! small budgets give warnings or typed errors, and `check` compares the texel lumps' sizes
//! with LIGHTMAP_HEADERS.

use crate::common;

use bspkit::build::{apex_lit_room, apex_room, apex_room_with, apex_sky_pattern, ApexPage};
use bspkit::check::problem::Code;
use bspkit::lightmap::{self, LightOptions};
use bspkit::mesh::{self, MeshOptions};
use bspkit::render::{render_map, RenderOptions};
use bspkit::Bsp;

const HEADERS: u16 = bspkit::branches::respawn::LUMP_LIGHTMAP_HEADERS as u16;

#[test]
fn apex_pages_decode_into_the_atlases() {
    let pages = [ApexPage::rgba(4, 2), ApexPage::rgba(3, 5), ApexPage { kind: 1, second: 0, width: 1, height: 1 }];
    let sky = apex_sky_pattern(&pages);
    let bytes = apex_room(&pages, sky.clone());
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.branch().id, "apex");
    let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
    assert_eq!(lm.faces.len(), 3, "{:?}", lm.warnings);
    let mut at = 0usize;
    let mut compared = 0;
    for (i, p) in pages.iter().enumerate() {
        let (w, h) = (p.width as u32, p.height as u32);
        let f = lm.face(HEADERS, i as u32).unwrap_or_else(|| panic!("page {i}"));
        assert_eq!((f.width, f.height, f.layers), (w, h, 2), "page {i}");
        let plane = (w * h * 4) as usize;
        for layer in 0..2u8 {
            let a = lm.atlas(f.page, 0, layer).unwrap();
            for y in 0..h {
                for x in 0..w {
                    let k = at + layer as usize * plane + ((y * w + x) * 4) as usize;
                    assert_eq!(a.texel(f.x + x, f.y + y), &sky[k..k + 3], "page {i} layer {layer} texel ({x}, {y})");
                    compared += 1;
                }
            }
        }
        at += 2 * plane;
    }
    assert_eq!(at, sky.len());
    assert_eq!(compared, 2 * (8 + 15 + 1));
    assert!(!lm.is_placeholder());

    // The floor's lightmap UVs are page 0's corners: its rectangle in the atlas, exactly.
    let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
    let world = &scene.models[0];
    let f = lm.face(HEADERS, 0).unwrap();
    assert_eq!(world.lightmap_pages, vec![f.page]);
    let [pw, ph] = lm.pages[f.page as usize];
    let xs: Vec<f32> = world.vertices.uv1.iter().map(|uv| uv[0] * pw as f32).collect();
    let ys: Vec<f32> = world.vertices.uv1.iter().map(|uv| uv[1] * ph as f32).collect();
    let near = |v: f32, want: u32| (v - want as f32).abs() < 0.6;
    assert!(xs.iter().all(|&x| near(x, f.x) || near(x, f.x + f.width)), "{xs:?} vs {}..{}", f.x, f.x + f.width);
    assert!(ys.iter().all(|&y| near(y, f.y) || near(y, f.y + f.height)), "{ys:?} vs {}..{}", f.y, f.y + f.height);

    // Lit in `render`, and the GLB carries TEXCOORD_1 and the lightmap image.
    let r = render_map(&bsp, &RenderOptions { size: 64, ..Default::default() }).unwrap();
    assert_eq!(r.lit_faces, 3, "{:?}", r.warnings);
    assert!(!r.warnings.iter().any(|w| w.contains("no baked lighting")), "{:?}", r.warnings);
    let opts = bspkit::export::ExportOptions { textures: None, ..Default::default() };
    let (glb, summary) = bspkit::export::export_glb(&bsp, &opts).unwrap();
    assert!(summary.lightmap_pages > 0);
    assert!(!summary.lightmap_placeholder);
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    let prims: Vec<&serde_json::Value> =
        doc["meshes"].as_array().unwrap().iter().flat_map(|m| m["primitives"].as_array().unwrap().iter()).collect();
    assert!(prims.iter().any(|p| p["attributes"].get("TEXCOORD_1").is_some()), "{prims:?}");
    assert!(!doc["images"].as_array().map_or(true, |i| i.is_empty()));

    // `check`: the sizes agree, so no count mismatch.
    let problems = bspkit::check::check(&bsp);
    assert!(!problems.iter().any(|p| p.code == Code::COUNT_MISMATCH && p.lump.contains("LIGHTMAP")), "{problems:?}");
}

#[test]
fn apex_bad_lightmap_lumps_are_reported_not_panics() {
    let pages = [ApexPage::rgba(4, 2), ApexPage::rgba(2, 2)];
    let sky = apex_sky_pattern(&pages);

    // Every truncation of the texel lump: the pages that fit decode, the rest are warnings.
    for cut in 1..sky.len() {
        let bsp_bytes = apex_room(&pages, sky[..cut].to_vec());
        let bsp = Bsp::from_bytes(&bsp_bytes).unwrap();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        let whole = usize::from(cut >= 64) + usize::from(cut >= 96);
        assert_eq!(lm.faces.len(), whole, "cut {cut}: {:?}", lm.warnings);
        if whole < 2 {
            assert!(lm.warnings.iter().any(|w| w.contains("run past the end")), "cut {cut}: {:?}", lm.warnings);
        }
        let p = bspkit::check::check(&bsp);
        let m: Vec<&String> =
            p.iter().filter(|p| p.code == Code::COUNT_MISMATCH && p.lump.contains("LIGHTMAP")).map(|p| &p.message).collect();
        assert_eq!(m.len(), 1, "cut {cut}: {m:?}");
        assert!(m[0].contains(&format!("{cut} bytes")) && m[0].contains("make 96"), "{m:?}");
        let _ = render_map(&bsp, &RenderOptions { size: 16, ..Default::default() }).unwrap();
    }

    // A header asking 65535 × 65535: outside the page limit, said, nothing allocated for it.
    let huge = [ApexPage::rgba(u16::MAX, u16::MAX), ApexPage::rgba(4, 2)];
    let bsp_bytes = apex_room(&huge, sky.clone());
    let lm = lightmap::build(&Bsp::from_bytes(&bsp_bytes).unwrap(), &LightOptions::default()).unwrap();
    assert!(lm.faces.is_empty(), "the second page's bytes lie past the first's size");
    assert!(lm.warnings.iter().any(|w| w.contains("65535×65535 is outside")), "{:?}", lm.warnings);

    // An unknown texel type: reported with the pages after it, not decoded.
    let typed = [ApexPage { kind: 4, second: 0, width: 4, height: 4 }, ApexPage::rgba(4, 2)];
    let lm = lightmap::build(&Bsp::from_bytes(&apex_room(&typed, sky.clone())).unwrap(), &LightOptions::default()).unwrap();
    assert!(lm.faces.is_empty());
    assert!(lm.warnings.iter().any(|w| w.contains("texel type 4") && w.contains("1 page(s) after it")), "{:?}", lm.warnings);

    // Pages that fit the lump but not the atlas budget: the budget's typed error.
    let big = [ApexPage::rgba(64, 64)];
    let bsp_bytes = apex_room(&big, apex_sky_pattern(&big));
    let bsp = Bsp::from_bytes(&bsp_bytes).unwrap();
    let e = lightmap::build(&bsp, &LightOptions { max_atlas_pixels: 1000, ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("max-atlas-pixels"), "{e}");
    assert!(lightmap::build(&bsp, &LightOptions::default()).is_ok());

    // No headers, no texels: nothing lit, no error.
    let lm = lightmap::build(&Bsp::from_bytes(&apex_room(&[], Vec::new())).unwrap(), &LightOptions::default()).unwrap();
    assert!(lm.faces.is_empty());
}

/// The garble test's seed map decodes (so garbling it reaches the decoder).
#[test]
fn apex_lit_room_is_lit() {
    let bsp_bytes = apex_lit_room();
    let lm = lightmap::build(&Bsp::from_bytes(&bsp_bytes).unwrap(), &LightOptions::default()).unwrap();
    assert_eq!(lm.faces.len(), 1, "{:?}", lm.warnings);
}

/// LIGHTMAP_DATA_REAL_TIME_LIGHTS of an Apex set: `2 × (a + 2t)` bytes a page in a `.bsp_lump`,
/// `a / 2` more in the `.bsp` (a 6 × 3 page: t = 18, a = 8 × 4 = 32, so 136 and 152). Sized so,
/// `check` neither notes the file's size nor counts a mismatch; a file of another size is both.
#[test]
fn apex_real_time_light_sizes_follow_the_pages() {
    use bspkit::branches::respawn::LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS as RTL;
    let pages = [ApexPage::rgba(6, 3)];
    let dir = common::scratch("apex-rtl");
    let map = dir.join("lobby.bsp");
    let codes = |bsp: &Bsp| -> (usize, usize) {
        let p = bspkit::check::check(bsp);
        let n = |c: Code| p.iter().filter(|p| p.code == c && p.lump.contains("REAL_TIME")).count();
        (n(Code::EXTERNAL_SIZE), n(Code::COUNT_MISMATCH))
    };
    for (inside, file, want) in [(152, None, (0, 0)), (150, None, (0, 1)), (152, Some(136), (0, 0)), (152, Some(140), (1, 1))] {
        std::fs::write(&map, apex_room_with(&pages, apex_sky_pattern(&pages), vec![(RTL, vec![0; inside])])).unwrap();
        let lump = dir.join("lobby.bsp.0069.bsp_lump");
        match file {
            Some(n) => std::fs::write(&lump, vec![0xFF; n]).unwrap(),
            None => {
                let _ = std::fs::remove_file(&lump);
            }
        }
        let bsp = Bsp::open(&map).unwrap();
        assert_eq!(codes(&bsp), want, "inside {inside}, file {file:?}: {:?}", bspkit::check::check(&bsp));
    }
}
