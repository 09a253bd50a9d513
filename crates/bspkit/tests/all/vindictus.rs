//! Issue 22, Vindictus (`vindictus` and `vindictus69`; Nexon's Source fork, record forms from
//! bsp_tool's `nexon/vindictus69.py`): widened faces in two forms by lump version (72 / 76
//! bytes), nodes, leaves, edges, leaf faces/brushes, brush sides, area portals, dispinfo and
//! overlays; a game lump directory of 20-byte entries; static props with a scale list. Builder
//! maps: detection by content with its evidence (the models cover exactly the faces Vindictus's
//! size counts), the version told by the props, typed records, check, byte-identical rewrite,
//! `--branch`; corpus TF2 maps re-laid in both forms: the same triangles, materials and props
//! as the original. No real Vindictus map was found, so both branches keep their dagger.

use crate::common;

use bspkit::branches::source::view::{Faces, Leaves, Nodes};
use bspkit::branches::source::{self, View};
use bspkit::build::VindictusForm;
use bspkit::lumps::gamelump::{DirForm, GameLumps};
use bspkit::lumps::staticprops::PropLayout;
use bspkit::{Bsp, OpenOptions};
use zerocopy::LittleEndian;

fn why(bsp: &Bsp) -> String {
    bsp.detection().why.join("; ")
}

#[test]
fn builder_maps_are_detected_by_content_and_read_typed() {
    for (face_version, form, id, prop_size) in [(1, VindictusForm::V69, "vindictus69", 60), (2, VindictusForm::Later, "vindictus", 64)] {
        let map = bspkit::build::vindictus_map(face_version, form);
        let bsp = Bsp::from_bytes(&map).unwrap();
        let w = why(&bsp);
        assert_eq!((bsp.branch().id, bsp.detection().version), (id, 20), "{w}");
        let size = if face_version == 2 { 76 } else { 72 };
        assert!(
            w.contains(&format!(
                "faces lump version {face_version}: {size} bytes = 1 Vindictus faces of {size} bytes, exactly the 1 faces the models cover"
            )),
            "{w}"
        );
        assert!(w.contains("nodes 48 bytes = 1 × 48, leaves 112 bytes = 2 × 56, edges 40 bytes = 5 × 8"), "{w}");
        assert!(
            w.contains(&format!("static props version 6 with scales and {prop_size}-byte"))
                || w.contains(&format!("{prop_size}-byte props")),
            "{w}"
        );
        assert_eq!(bsp.detection().runners_up.first().map(|r| r.0), Some("source"));

        // Typed records in the fork's forms.
        let v = View::<LittleEndian>::new(&bsp).unwrap();
        match (v.faces().unwrap(), face_version) {
            (Faces::Strata(f), 1) => assert_eq!((f.len(), f[0].numedges.get(), f[0].dispinfo.get()), (1, 4, -1)),
            (Faces::VindictusV2(f), 2) => assert_eq!((f.len(), f[0].numedges.get(), f[0].unknown.get()), (1, 4, 0)),
            _ => panic!("faces of version {face_version} read in the wrong form"),
        }
        let Nodes::Vindictus(n) = v.nodes().unwrap() else { panic!("nodes not in Vindictus form") };
        assert_eq!((n[0].children[1].get(), n[0].maxs[0].get(), n[0].numfaces.get()), (-2, 64, 1));
        let Leaves::Vindictus(l) = v.leaves().unwrap() else { panic!("leaves not in Vindictus form") };
        assert_eq!((l.len(), l[0].cluster.get(), l[0].numleaffaces.get(), l[1].contents.get()), (2, -1, 1, 1));
        assert_eq!(v.edges().unwrap().get(4), Some([3, 0]));
        assert_eq!(v.leaf_faces().unwrap().get(0), Some(0));
        assert_eq!(v.face_material(0).unwrap(), Some("DEV/DEV_MEASUREGENERIC01"));

        // The game lump in its own form; the props after their scale list.
        let g = GameLumps::of(&bsp).unwrap();
        assert_eq!(g.dir.form, DirForm::Vindictus);
        assert_eq!(g.dir.base, bspkit::lumps::gamelump::OffsetBase::Absolute);
        let sp = g.static_props().unwrap().unwrap();
        let layout = if prop_size == 60 { PropLayout::V5 } else { PropLayout::V6 };
        assert_eq!((sp.version, sp.scales, sp.layout, sp.element_size), (6, 1, layout, Some(prop_size)));
        let props = sp.props().unwrap();
        assert_eq!((props.len(), props[0].origin[0], props[0].model_name.as_deref()), (1, 32.0, Some("models/props/crate.mdl")));

        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{id}: {problems:?}");
        assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), map);
        let scene = bspkit::mesh::build(&bsp, &Default::default()).unwrap();
        assert_eq!(scene.triangle_count(), 2, "{:?}", scene.warnings);
        assert_eq!(scene.props.len(), 1, "{:?}", scene.warnings);

        // `--branch source` reads the same bytes with Valve's forms: the faces no longer fit.
        let forced = Bsp::from_bytes_with(&map, &OpenOptions { branch: Some("source".into()), ..Default::default() }).unwrap();
        assert_eq!(forced.branch().id, "source");
        assert!(!bspkit::check::check(&forced).is_empty());
    }
    // The Valve map the builder re-lays stays Valve's; `--branch vindictus` opens it.
    let valve = bspkit::build::vindictus::valve_square();
    assert_eq!(Bsp::from_bytes(&valve).unwrap().branch().id, "source");
    let forced = Bsp::from_bytes_with(&valve, &OpenOptions { branch: Some("vindictus".into()), ..Default::default() }).unwrap();
    assert_eq!(forced.branch().id, "vindictus");
    assert_eq!(source::lumps::layout(forced.branch()), source::lumps::Layout::Vindictus);

    // The Source conversions would rebuild the game lump in Valve's directory form: refused.
    let map = bspkit::build::vindictus_map(2, VindictusForm::Later);
    let bsp = Bsp::from_bytes(&map).unwrap();
    for to in ["vindictus", "source"] {
        let opts = bspkit::convert::ConvertOptions {
            to: bspkit::branches::by_id(to).unwrap(),
            endian: None,
            lzma: bspkit::convert::Lzma::On,
            static_props: None,
        };
        let Err(e) = bspkit::convert::convert(&bsp, &opts) else { panic!("converting {to} was not refused") };
        assert!(e.to_string().contains("own directory form"), "{e}");
    }
}

/// Truncated maps and lying lumps give typed errors or check problems naming the lump, never a
/// panic; a faces lump that is not whole records is named by `check`.
#[test]
fn damaged_vindictus_maps_fail_cleanly() {
    for (fv, form) in [(1, VindictusForm::V69), (2, VindictusForm::Later)] {
        let map = bspkit::build::vindictus_map(fv, form);
        for cut in (0..map.len()).step_by(5) {
            if let Ok(bsp) = Bsp::from_bytes(&map[..cut]) {
                let _ = bspkit::check::check(&bsp);
                let _ = bspkit::mesh::build(&bsp, &Default::default());
            }
        }
        for at in (1036..map.len()).step_by(4) {
            let mut bad = map.clone();
            bad[at..at + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
            if let Ok(bsp) = Bsp::from_bytes_with(&bad, &OpenOptions { branch: Some(form.branch().id.into()), ..Default::default() }) {
                let _ = bspkit::check::check(&bsp);
                let _ = bspkit::mesh::build(&bsp, &Default::default());
                let _ = GameLumps::of(&bsp).map(|g| g.static_props().map(|p| p.map(|p| p.props())));
            }
        }
        // Faces one byte short of their records, read as Vindictus.
        let mut short = map.clone();
        let len_at = 8 + 16 * 7 + 4;
        let n = u32::from_le_bytes(short[len_at..len_at + 4].try_into().unwrap());
        short[len_at..len_at + 4].copy_from_slice(&(n - 1).to_le_bytes());
        let bsp = Bsp::from_bytes_with(&short, &OpenOptions { branch: Some(form.branch().id.into()), ..Default::default() }).unwrap();
        let problems = bspkit::check::check(&bsp);
        assert!(problems.iter().any(|p| format!("{p:?}").contains("FACES")), "{problems:?}");
    }
}

/// Corpus TF2 maps (displacements, overlays, props) re-laid in both Vindictus forms draw the
/// same triangles with the same materials, check as the originals do, rewrite byte for byte,
/// and keep their props through an edit that moves the game lump.
#[test]
fn corpus_maps_in_vindictus_forms_check_rewrite_and_export() {
    let Some(dir) = common::corpus("corpus_maps_in_vindictus_forms_check_rewrite_and_export") else { return };
    for name in ["bsp_tool__tf2_test2.bsp", "bsp_tool__tf2_test_displacement_decompile.bsp", "bsp_tool__tf2_mp_lobby.bsp"] {
        let base = std::fs::read(dir.join("source").join(name)).unwrap();
        let valve = Bsp::from_bytes(&base).unwrap();
        let before: Vec<String> = bspkit::check::check(&valve).iter().map(|p| format!("{p:?}")).collect();
        let a = bspkit::mesh::build(&valve, &Default::default()).unwrap();
        let opts = bspkit::export::ExportOptions { format: Some(bspkit::export::Format::Glb), ..Default::default() };
        let glb = |bsp: &Bsp, tag: &str| {
            let out = std::env::temp_dir().join(format!("bspkit_vin_{}_{tag}.glb", std::process::id()));
            let summary = bspkit::export::export(bsp, &out, &opts).unwrap();
            let bytes = std::fs::read(&out).unwrap();
            std::fs::remove_file(&out).ok();
            (summary.triangles, bytes.len())
        };
        let exported = glb(&valve, "valve");
        assert!(exported.0 > 0);
        for (fv, form) in [(1, VindictusForm::V69), (2, VindictusForm::Later)] {
            let vin = bspkit::build::vindictus_from_valve(&base, fv, form).unwrap();
            let bsp = Bsp::from_bytes(&vin).unwrap();
            // Without props, nothing tells 1.69 from later builds: the later branch, 1.69 runner-up.
            let id = if a.props.is_empty() { "vindictus" } else { form.branch().id };
            assert_eq!(bsp.branch().id, id, "{name}: {}", why(&bsp));
            assert!(bsp.detection().runners_up.iter().any(|r| r.0 == "source"));
            let after: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| format!("{p:?}")).collect();
            assert_eq!(after.len(), before.len(), "{name} {fv}: {after:?} vs {before:?}");
            assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), vin, "{name} {fv}");
            let b = bspkit::mesh::build(&bsp, &Default::default()).unwrap();
            assert!(a.triangle_count() > 0);
            assert_eq!(a.models, b.models, "{name} {fv}");
            assert_eq!(a.materials, b.materials, "{name} {fv}");
            assert_eq!(a.props.len(), b.props.len(), "{name} {fv}: {:?}", b.warnings);
            for (p, q) in a.props.iter().zip(&b.props) {
                assert_eq!(format!("{p:?}"), format!("{q:?}"), "{name} {fv}");
            }
            let (va, vb) = (View::<LittleEndian>::new(&valve).unwrap(), View::<LittleEndian>::new(&bsp).unwrap());
            assert_eq!(va.overlays().unwrap().len(), vb.overlays().unwrap().len());
            for i in 0..va.overlays().unwrap().len() {
                let (oa, ob) = (va.overlays().unwrap(), vb.overlays().unwrap());
                let (ta, fa) = oa.get(i).unwrap();
                let (tb, fb) = ob.get(i).unwrap();
                assert_eq!((ta, fa.collect::<Vec<_>>()), (tb, fb.collect::<Vec<_>>()));
            }
            assert_eq!(va.disp_infos().unwrap().iter().collect::<Vec<_>>(), vb.disp_infos().unwrap().iter().collect::<Vec<_>>());
            assert_eq!(va.area_portals().unwrap().len(), vb.area_portals().unwrap().len());
            assert_eq!(va.brush_sides().unwrap().iter().collect::<Vec<_>>(), vb.brush_sides().unwrap().iter().collect::<Vec<_>>());

            // Growing the entity lump moves the game lump: its absolute child offsets follow.
            let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
            let mut ents = bsp.lump(0).unwrap().to_vec();
            let end = ents.iter().rposition(|&c| c == b'}').unwrap() + 1;
            ents.splice(end..end, b"\n{\n\"classname\" \"info_target\"\n\"targetname\" \"moved\"\n}".iter().copied());
            ed.set_lump(0, ents).unwrap();
            let edited = ed.to_bytes().unwrap();
            let bsp2 = Bsp::from_bytes(&edited).unwrap();
            assert_eq!(bsp2.branch().id, id);
            assert_ne!(bsp2.entry(35).unwrap().offset, bsp.entry(35).unwrap().offset);
            assert_eq!(bspkit::check::check(&bsp2).len(), before.len());
            let n = |b: &Bsp| GameLumps::of(b).unwrap().static_props().unwrap().map_or(0, |p| p.props().unwrap().len());
            assert_eq!(n(&bsp2), a.props.len());

            // The GLB of the re-laid map: the same triangles and the same bytes as the original's.
            assert_eq!(glb(&bsp, &fv.to_string()), exported, "{name} {fv}");
        }
    }
}
