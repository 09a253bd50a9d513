//! An original corpus map and its decompile, drawn side by side by the project's renderer with
//! one camera at the map's player start: the map's own drawn faces (left) and the decompiled
//! `.map` read back, its brush sides as polygons (right), both untextured (a tint per material
//! name), so the same material on the same plane gives the same pixels. From inside the map
//! only the sides facing the open are seen, as the compiler keeps only those as faces (from
//! outside, the decompile's outer hull would hide everything). With `BSPKIT_DECOMPILE_PICTURES=DIR` the pictures
//! are written there (how `docs/pictures/decompile_*.png` were made).

use crate::common;

use bspkit::decompile::{decompile, mapfile, scene::brush_scene, DecompileOptions};
use bspkit::mesh::Scene;
use bspkit::render::{frame, inside, render_scene, Frame, Look, View};
use bspkit::Bsp;

/// A tint per material name. A Quake map whose texture lump lacks a name is drawn by the scene as
/// `(miptex N)` and written by the decompiler as `miptexN` (a `.map` texture is one word): both
/// are the same texture, so both get one tint.
fn looks(s: &Scene) -> Vec<Look> {
    s.materials
        .iter()
        .map(|m| match m.name.strip_prefix("(miptex ").and_then(|r| r.strip_suffix(')')) {
            Some(n) => Look::untextured(&format!("miptex{n}")),
            None => Look::untextured(&m.name),
        })
        .collect()
}

/// Where the camera is: one of the renderer's views, or [`inside`] the map.
#[derive(Debug, Clone, Copy)]
enum Cam {
    View(View),
    Inside,
}

/// The two frames and the share of pixels where they are the same colour.
fn side_by_side(path: &std::path::Path, size: u32, cam: Cam) -> (Frame, Frame, f64) {
    let bsp = Bsp::open(path).unwrap();
    let d = decompile(&bsp, &DecompileOptions { measure: false, ..Default::default() }).unwrap();
    let back = mapfile::read_map(d.text.as_bytes()).unwrap();
    let dec = brush_scene(bsp.family(), &back).unwrap();
    let orig = bspkit::mesh::build(&bsp, &Default::default()).unwrap();
    let ents = bsp.entities().ok();
    let (camera, dims) = match cam {
        Cam::View(view) => frame(view, &orig, ents.as_ref(), size).0,
        Cam::Inside => inside(&orig, ents.as_ref(), size).expect("a floor inside the map"),
    };
    let a = render_scene(&orig, &looks(&orig), None, &camera, dims);
    let b = render_scene(&dec, &looks(&dec), None, &camera, dims);
    let same = a.rgb.chunks_exact(3).zip(b.rgb.chunks_exact(3)).filter(|(x, y)| x == y).count() as f64 / (a.rgb.len() / 3) as f64;
    (a, b, same)
}

/// `a` and `b` next to each other with a white bar between.
fn compose(a: &Frame, b: &Frame) -> Frame {
    let gap = 6u32;
    let (w, h) = (a.width + gap + b.width, a.height.max(b.height));
    let mut rgb = vec![255u8; (w * h * 3) as usize];
    for (f, x0) in [(a, 0), (b, a.width + gap)] {
        for y in 0..f.height {
            let src = &f.rgb[(y * f.width * 3) as usize..((y + 1) * f.width * 3) as usize];
            let at = ((y * w + x0) * 3) as usize;
            rgb[at..at + src.len()].copy_from_slice(src);
        }
    }
    Frame { width: w, height: h, rgb, covered: a.covered + b.covered, work: a.work + b.work }
}

#[test]
fn original_and_decompile_side_by_side() {
    let Some(corpus) = common::corpus("decompile_picture::original_and_decompile_side_by_side") else { return };
    let out = std::env::var_os("BSPKIT_DECOMPILE_PICTURES").map(std::path::PathBuf::from);
    for (folder, file, view, floor) in [
        // Floors: the share measured (100.0, 60.3, 9.85 %) less a margin. Tree-rebuilt Quake
        // brushes give every drawn face back; mp_test's walls do not show in the render of the
        // original (its soups hold wall triangles: a renderer question, not investigated); crossfire's brush sides all carry one material (its
        // CM_BRUSH_SIDE_PROPERTIES name one texture) and its player start is not a class the
        // spawn view knows (drawn from the iso view, where the decompile's outer hull shows).
        // mp_test from its player start showed floor and sky only: drawn from the iso view
        // (60.3 % the same: the original draws the floor and a low rim, the decompile the walls).
        ("quake1", "qbsp__lq_e0m1.bsp", Cam::View(View::Spawn), 0.99),
        ("cod", "bsp_tool__cod4_mp_test.d3dbsp", Cam::View(View::Iso), 0.55),
        // crossfire has no player start in its main entity lump, and seen from outside the
        // decompile's sealing hull (which the compiler removes from the original) hides the
        // map: the 41.7 % measured before came from a frame that took in the whole ground
        // plane, which both sides draw alike. With the playable-area frame (issue 25) the iso
        // view gives 1.9 %, the top view 9.85 %: a bound on the hull, not on the brushes.
        ("respawn", "bsp_tool__tf2r_mp_crossfire.bsp", Cam::Inside, 0.08),
    ] {
        let Some(m) = common::maps_in(&corpus, folder).into_iter().find(|m| m.path.ends_with(file)) else {
            panic!("{file} is not in the corpus")
        };
        let (a, b, same) = side_by_side(&m.path, 384, view);
        eprintln!(
            "{file}: original covers {:.1} %, decompile {:.1} %, same colour on {:.1} % of the pixels",
            a.coverage() * 100.0,
            b.coverage() * 100.0,
            same * 100.0
        );
        assert!(a.coverage() > 0.1 && b.coverage() > 0.1, "{file}: something is drawn on both sides");
        assert!(same >= floor, "{file}: {same}");
        if let Some(dir) = &out {
            let name = file.split("__").last().unwrap().split('.').next().unwrap();
            std::fs::write(dir.join(format!("decompile_{name}.png")), compose(&a, &b).to_png().unwrap()).unwrap();
        }
    }
}
