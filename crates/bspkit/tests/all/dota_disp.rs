//! Dota 2's displacements in the branch layer: `View::disp_infos` hands out the v22/v23 records
//! only when the map proves every one (builder maps, both versions, and the ways a record fails
//! the proof), and every consumer then uses them: the scene builds the displacement grid, and
//! on the corpus map `dotatesting` (whose ground is a displacement) the render draws it and the
//! scene holds its triangles.

use crate::common;
use crate::common::fixtures::dota_ground;

use bspkit::branches::source::view::DispInfos;
use bspkit::branches::source::View;
use bspkit::mesh::{self, MeshOptions, SurfaceKind};
use bspkit::Bsp;
use zerocopy::LittleEndian;

/// The map's dispinfo records as the branch layer gives them.
fn disp_infos(bytes: &[u8]) -> (String, usize, Option<usize>, Option<String>) {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    assert_eq!(bsp.branch().id, "dota2");
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    let d = v.disp_infos().unwrap();
    let form = match &d {
        DispInfos::DotaV22(_) => "v22",
        DispInfos::DotaV23(_) => "v23",
        DispInfos::Unproven(_) => "unproven",
        _ => "other",
    };
    let why = if let DispInfos::Unproven(w) = &d { Some(w.clone()) } else { None };
    (form.to_string(), d.len(), v.disp_info_count().unwrap(), why)
}

#[test]
fn proven_dota_records_come_from_the_branch_layer_in_both_versions() {
    for (version, form) in [(23, "v23"), (22, "v22")] {
        let bytes = dota_ground([128.0, 128.0, 0.0], 0, version);
        assert_eq!(disp_infos(&bytes), (form.to_string(), 1, Some(1), None), "v{version}");
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let d = View::<LittleEndian>::new(&bsp).unwrap().disp_infos().unwrap().get(0).unwrap();
        assert_eq!(
            (d.start_position, d.power, d.map_face, d.disp_vert_start, d.disp_tri_start),
            ([128.0, 128.0, 0.0], 2, 0, 0, 0),
            "v{version}"
        );
        assert_eq!(d.allowed_verts, [u32::MAX; 10], "v{version}");
    }
}

#[test]
fn dota_records_the_map_does_not_prove_are_declined_with_the_reason() {
    let cases: [(Vec<u8>, &str); 4] = [
        // The start position is not a corner of the face.
        (dota_ground([64.0, 128.0, 0.0], 0, 23), "is not a corner of face 0"),
        // MapFace names no face.
        (dota_ground([128.0, 128.0, 0.0], 7, 23), "MapFace 7 names no face"),
        // A v23 map holding a v22-sized record, and a v22 map holding a v23-sized one.
        (relabel(dota_ground([128.0, 128.0, 0.0], 0, 22), 23), "180 bytes is not a whole number of 184-byte records"),
        (relabel(dota_ground([128.0, 128.0, 0.0], 0, 23), 22), "184 bytes is not a whole number of 180-byte records"),
    ];
    for (k, (bytes, why)) in cases.iter().enumerate() {
        let (form, len, count, reason) = disp_infos(bytes);
        assert_eq!((form.as_str(), len, count), ("unproven", 0, None), "case {k}");
        let reason = reason.unwrap();
        assert!(reason.contains(why), "case {k}: {reason}");
    }
}

/// `bytes` (a builder map) with its header version set to `version`.
fn relabel(mut bytes: Vec<u8>, version: u32) -> Vec<u8> {
    bytes[4..8].copy_from_slice(&version.to_le_bytes());
    bytes
}

/// The scene builds a proven Dota displacement as its grid (power 2: 25 vertices, 32
/// triangles), and skips the face with the proof's reason when the record is not proven.
#[test]
fn the_scene_builds_proven_dota_displacements_and_says_why_not_otherwise() {
    for version in [22, 23] {
        let bytes = dota_ground([128.0, 128.0, 0.0], 0, version);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let disps: Vec<_> = scene.models.iter().flat_map(|m| &m.surfaces).filter(|s| s.kind == SurfaceKind::Displacement).collect();
        assert_eq!(disps.len(), 1, "v{version}: {:?}", scene.skipped);
        assert_eq!((disps[0].vertices.len(), disps[0].indices.len() / 3), (25, 32), "v{version}");
        // Distances 0..24 along +z: the grid rises from the start corner's row.
        let m = &scene.models[0];
        let zs: Vec<f32> =
            m.vertices.positions[disps[0].vertices.start as usize..disps[0].vertices.end as usize].iter().map(|p| p[2]).collect();
        assert_eq!(zs, (0..25).map(|k| k as f32).collect::<Vec<_>>(), "v{version}");
    }
    let bytes = dota_ground([64.0, 128.0, 0.0], 0, 23);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert!(scene.models.iter().flat_map(|m| &m.surfaces).all(|s| s.kind != SurfaceKind::Displacement));
    assert_eq!(scene.skipped.len(), 1, "{:?}", scene.skipped);
    assert!(scene.skipped[0].reason.contains("not proven by the map"), "{:?}", scene.skipped);
    assert!(scene.skipped[0].reason.contains("not a corner"), "{:?}", scene.skipped);
}

/// `dotatesting` (Dota 2 v23, 2014): its ground is one power-3 displacement (128 triangles) and
/// every other surface is a tool texture, so before the branch layer read Dota's records the
/// render drew nothing. Now the scene holds the grid and the render covers part of the frame.
#[test]
fn dotatesting_ground_displacement_is_built_and_rendered() {
    let Some(corpus) = common::corpus("dota_disp::dotatesting_ground_displacement_is_built_and_rendered") else { return };
    let Some(map) = common::maps_in(&corpus, "source").into_iter().find(|m| m.path.ends_with("dotatesting__test.bsp")) else {
        panic!("dotatesting__test.bsp is in the corpus manifest")
    };
    let bsp = Bsp::open(&map.path).unwrap();
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    assert!(matches!(v.disp_infos().unwrap(), DispInfos::DotaV23(d) if d.len() == 1));
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    let disp_tris: usize =
        scene.models.iter().flat_map(|m| &m.surfaces).filter(|s| s.kind == SurfaceKind::Displacement).map(|s| s.indices.len() / 3).sum();
    assert_eq!(disp_tris, 128, "{:?}", scene.skipped);
    assert!(scene.skipped.is_empty(), "{:?}", scene.skipped);

    let bg = bspkit::render::BACKGROUND;
    for view in [bspkit::render::View::Iso, bspkit::render::View::Top] {
        let r = bspkit::render::render_map(&bsp, &bspkit::render::RenderOptions { view, ..Default::default() }).unwrap();
        assert_eq!(r.drawn_triangles, 128, "{view:?}");
        let px = r.frame.rgb.chunks_exact(3).filter(|p| *p != bg).count();
        let share = px as f64 / (r.frame.width as f64 * r.frame.height as f64);
        eprintln!("dotatesting {view:?}: {:.1}% of {}×{} covered", share * 100.0, r.frame.width, r.frame.height);
        assert!(share > 0.2, "{view:?}: {:.1}% covered", share * 100.0);
    }
}

/// The rows of block `name` inside the first `dispinfo` of a decompiled `.vmf`.
fn dispinfo_rows(text: &str, name: &str) -> Option<Vec<String>> {
    let ents = bspkit::decompile::vmf::read(text.as_bytes()).unwrap();
    let world = ents.iter().find(|b| b.name == "world")?;
    let side = world.blocks("solid").flat_map(|s| s.blocks("side")).find(|s| s.blocks("dispinfo").next().is_some())?;
    let block = side.blocks("dispinfo").next()?.blocks(name).next()?;
    Some((0..).map_while(|r| block.get(&format!("row{r}")).map(str::to_string)).collect())
}

/// Lump 63 (one 80-byte record per displacement vertex) goes to Hammer's `multiblend`,
/// `alphablend` and `multiblend_color_0..3` rows; without the lump (or with one of another
/// size) no such block is written.
#[test]
fn dota_blend_records_are_written_as_hammer_blocks() {
    use bspkit::decompile::{decompile, DecompileOptions};
    let mut blend = Vec::new();
    for k in 0..25 {
        let w = k as f32 / 100.0;
        for x in [w, 1.0 - w, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0] {
            blend.extend(f32::to_le_bytes(x));
        }
    }
    let bytes = common::fixtures::dota_ground_blended([128.0, 128.0, 0.0], 0, 23, &blend);
    let d = decompile(&Bsp::from_bytes(&bytes).unwrap(), &DecompileOptions::default()).unwrap();
    let mb = dispinfo_rows(&d.text, "multiblend").expect("a multiblend block");
    assert_eq!(mb.len(), 5);
    assert_eq!(mb[0], "0 1 0 0 0.01 0.99 0 0 0.02 0.98 0 0 0.03 0.97 0 0 0.04 0.96 0 0");
    assert_eq!(dispinfo_rows(&d.text, "alphablend").unwrap()[4], ["0.5 0 0 0"; 5].join(" "));
    assert_eq!(dispinfo_rows(&d.text, "multiblend_color_0").unwrap()[0], ["1 0.5 0.25"; 5].join(" "));
    assert_eq!(dispinfo_rows(&d.text, "multiblend_color_3").unwrap()[2], ["1 1 2"; 5].join(" "));
    // No lump 63, or one record short: no blend blocks.
    for blend in [&[][..], &blend[..blend.len() - 80]] {
        let bytes = common::fixtures::dota_ground_blended([128.0, 128.0, 0.0], 0, 23, blend);
        let d = decompile(&Bsp::from_bytes(&bytes).unwrap(), &DecompileOptions::default()).unwrap();
        assert!(dispinfo_rows(&d.text, "distances").is_some());
        assert!(dispinfo_rows(&d.text, "multiblend").is_none() && !d.text.contains("multiblend"));
    }
}

/// `dotatesting`'s blend rows come back as its source `.vmf` has them (Jay2645/DotaTesting
/// `test.vmf`, MIT: the only non-default weights are 0.951835 and 0.934851 in row 0 and
/// 0.95 / 0.05 at row 4, vertex 4; every alphablend 0, every colour 1).
#[test]
fn dotatesting_blend_rows_equal_its_source_vmf() {
    let Some(corpus) = common::corpus("dota_disp::dotatesting_blend_rows_equal_its_source_vmf") else { return };
    let map = common::maps_in(&corpus, "source").into_iter().find(|m| m.path.ends_with("dotatesting__test.bsp")).expect("dotatesting");
    let d = bspkit::decompile::decompile(&Bsp::open(&map.path).unwrap(), &Default::default()).unwrap();
    let plain = ["0 1 0 0"; 9].join(" ");
    let mut want = vec![plain.clone(); 9];
    want[0] = "0 1 0 0 0 1 0 0 0 1 0 0 0 0.951835 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 0.934851 0 0".into();
    want[4] = "0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 0.95 0.05 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0".into();
    assert_eq!(dispinfo_rows(&d.text, "multiblend").unwrap(), want);
    assert_eq!(dispinfo_rows(&d.text, "alphablend").unwrap(), vec![["0"; 36].join(" "); 9]);
    for c in 0..4 {
        assert_eq!(dispinfo_rows(&d.text, &format!("multiblend_color_{c}")).unwrap(), vec![["1"; 27].join(" "); 9], "colour {c}");
    }
}
