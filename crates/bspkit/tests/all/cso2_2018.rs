//! Issue 22, Counter-Strike Online 2's second layout (`cso2_2018`, VBSP 100): Valve's 2007
//! table with 242-byte dispinfo and 164-byte cubemaps (sizes from bsp_tool's
//! `nexon/cso2_2018.py`, which cites L-Leite's cso2-bsp-converter; fields not given, so the
//! records are opaque). Builder maps of both layouts: detection by content with its evidence
//! (the faces name their dispinfo records; failing that, which record sizes divide the lumps),
//! `--branch`, opaque records, check, byte-identical rewrite, scene (displacements skipped with
//! the reason); the corpus displacement map re-laid in both layouts. No real CSO2 map was
//! found, so the branch keeps its dagger.

use crate::common;

use bspkit::branches::source::View;
use bspkit::build::{cso2_from_valve, cso2_map, Cso2Form};
use bspkit::{Bsp, OpenOptions};
use zerocopy::LittleEndian;

fn why(bsp: &Bsp) -> String {
    bsp.detection().why.join("; ")
}

fn forced<'a>(bytes: &'a [u8], id: &str) -> Bsp<'a> {
    Bsp::from_bytes_with(bytes, &OpenOptions { branch: Some(id.into()), ..Default::default() }).unwrap()
}

#[test]
fn builder_maps_of_both_layouts_are_told_apart_by_content() {
    let y18 = cso2_map(Cso2Form::Y2018);
    let bsp = Bsp::from_bytes(&y18).unwrap();
    let w = why(&bsp);
    assert_eq!((bsp.branch().id, bsp.detection().version), ("cso2_2018", 100), "{w}");
    assert!(w.contains("the faces name 1 dispinfo record(s) and lump 26 holds 242 bytes = 1 × 242"), "{w}");
    assert_eq!(bsp.detection().runners_up.first().map(|r| r.0), Some("cso2"));

    let y13 = cso2_map(Cso2Form::Y2013);
    let old = Bsp::from_bytes(&y13).unwrap();
    assert_eq!(old.branch().id, "cso2", "{}", why(&old));
    assert!(why(&old).contains("lump 26 holds 176 bytes = 1 × 176"), "{}", why(&old));
    assert_eq!(old.detection().runners_up.first().map(|r| r.0), Some("cso2_2018"));

    // Without faces naming dispinfo, the lump sizes decide; with nothing to tell, 2013-2017.
    let cubes_only = bspkit::build::BspBuilder::new(&bspkit::branches::source::CSO2_2018)
        .lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(42, vec![0u8; 164 * 2])
        .build();
    let b = Bsp::from_bytes(&cubes_only).unwrap();
    assert_eq!(b.branch().id, "cso2_2018", "{}", why(&b));
    assert!(why(&b).contains("cubemaps 328 bytes = 2 × 164, not whole 16-byte records"), "{}", why(&b));
    let empty = bspkit::build::BspBuilder::new(&bspkit::branches::source::CSO2_2018)
        .lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .build();
    let b = Bsp::from_bytes(&empty).unwrap();
    assert_eq!(b.branch().id, "cso2", "{}", why(&b));
    assert!(b.detection().runners_up.iter().any(|r| r.0 == "cso2_2018" && r.1.contains("no dispinfo or cubemap records")));
    // `--branch` forces the other layout; detection's choice is kept as the runner-up.
    let f = forced(&empty, "cso2_2018");
    assert_eq!(f.branch().id, "cso2_2018");
    assert!(f.detection().runners_up.iter().any(|r| r.0 == "cso2"));
}

#[test]
fn the_2018_layout_reads_checks_rewrites_and_draws() {
    let map = cso2_map(Cso2Form::Y2018);
    let bsp = Bsp::from_bytes(&map).unwrap();
    // Opaque records, counted by their own sizes.
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    assert_eq!(v.disp_infos_cso2().unwrap().len(), 1);
    assert_eq!(v.disp_info_count().unwrap(), Some(1));
    assert_eq!(v.cubemaps_cso2().unwrap().len(), 1);
    let e = v.cubemaps().unwrap_err().to_string();
    assert!(e.contains("CUBEMAPS") && e.contains("164-byte"), "{e}");
    let schema = |lump: &str| bspkit::schema::lump_schema(bsp.branch(), lump, 0, bspkit::bytes::Endian::Little);
    assert_eq!(schema("DISP_INFO").expect("a schema for DISP_INFO").size, 242);
    assert_eq!(schema("CUBEMAPS").expect("a schema for CUBEMAPS").size, 164);
    // bsp info rows: the 2018 record sizes.
    let rows = bspkit::stats::stats(&bsp);
    let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap_or_else(|| panic!("no row {n}"));
    assert_eq!((row("dispinfos").count, row("dispinfos").bytes), (Some(1), 242));
    assert_eq!((row("cubemapsamples").count, row("cubemapsamples").bytes), (Some(1), 164));

    let problems = bspkit::check::check(&bsp);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), map);
    // The one face is a displacement whose record has no known fields: skipped with the reason.
    let scene = bspkit::mesh::build(&bsp, &Default::default()).unwrap();
    assert_eq!(scene.triangle_count(), 0);
    assert_eq!(scene.skipped.len(), 1, "{:?}", scene.skipped);
    assert!(scene.skipped[0].reason.contains("dispinfo layout is not known"), "{:?}", scene.skipped);
    assert_eq!(scene.props.len(), 1, "{:?}", scene.warnings);
    // The 2013-2017 layout of the same map draws the displacement (32 triangles).
    let old = cso2_map(Cso2Form::Y2013);
    let s13 = bspkit::mesh::build(&Bsp::from_bytes(&old).unwrap(), &Default::default()).unwrap();
    assert_eq!(s13.triangle_count(), 32, "{:?}", s13.warnings);

    // A face naming a dispinfo record past the lump is reported against DISP_INFO.
    let mut bad = map.clone();
    let faces_at = u32::from_le_bytes(bad[8 + 16 * 7..8 + 16 * 7 + 4].try_into().unwrap()) as usize;
    bad[faces_at + 12..faces_at + 14].copy_from_slice(&5i16.to_le_bytes());
    let b = forced(&bad, "cso2_2018");
    let problems = bspkit::check::check(&b);
    assert!(problems.iter().any(|p| format!("{p:?}").contains("DISP_INFO")), "{problems:?}");
    // Read as the 2013-2017 layout, 242 bytes are not whole 176-byte records.
    let as_old = forced(&map, "cso2");
    let problems = bspkit::check::check(&as_old);
    assert!(problems.iter().any(|p| format!("{p:?}").contains("DISP_INFO")), "{problems:?}");
}

/// Truncated maps and lying lumps give typed errors or problems, never a panic.
#[test]
fn damaged_cso2_2018_maps_fail_cleanly() {
    let map = cso2_map(Cso2Form::Y2018);
    for cut in (0..map.len()).step_by(7) {
        if let Ok(bsp) = Bsp::from_bytes(&map[..cut]) {
            let _ = bspkit::check::check(&bsp);
            let _ = bspkit::mesh::build(&bsp, &Default::default());
            let _ = bspkit::stats::stats(&bsp);
        }
    }
    for at in (1036..map.len()).step_by(4) {
        let mut bad = map.clone();
        bad[at..at + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
        if let Ok(bsp) = Bsp::from_bytes_with(&bad, &OpenOptions { branch: Some("cso2_2018".into()), ..Default::default() }) {
            let _ = bspkit::check::check(&bsp);
            let _ = bspkit::mesh::build(&bsp, &Default::default());
        }
    }
    // Dispinfo one byte short of its record: named by check.
    let mut short = map.clone();
    let len_at = 8 + 16 * 26 + 4;
    let n = u32::from_le_bytes(short[len_at..len_at + 4].try_into().unwrap());
    short[len_at..len_at + 4].copy_from_slice(&(n - 1).to_le_bytes());
    let bsp = forced(&short, "cso2_2018");
    let problems = bspkit::check::check(&bsp);
    assert!(problems.iter().any(|p| format!("{p:?}").contains("DISP_INFO")), "{problems:?}");
}

/// The corpus displacement map (and a TF2 map without displacements) re-laid in both CSO2
/// layouts: detected as the layout it was written in, the same check problems as the original,
/// byte-identical rewrite, and every non-displacement triangle drawn alike (the 2013 layout
/// draws the displacements too; the 2018 one skips them with the reason).
#[test]
fn corpus_maps_in_cso2_layouts() {
    let Some(dir) = common::corpus("corpus_maps_in_cso2_layouts") else { return };
    for name in ["bsp_tool__tf2_test_displacement_decompile.bsp", "bsp_tool__tf2_test2.bsp"] {
        let base = std::fs::read(dir.join("source").join(name)).unwrap();
        let valve = Bsp::from_bytes(&base).unwrap();
        let before = bspkit::check::check(&valve).len();
        let a = bspkit::mesh::build(&valve, &Default::default()).unwrap();
        let disps = View::<LittleEndian>::new(&valve).unwrap().disp_infos().unwrap().len();
        for form in [Cso2Form::Y2013, Cso2Form::Y2018] {
            let bytes = cso2_from_valve(&base, form).unwrap();
            let bsp = Bsp::from_bytes(&bytes).unwrap();
            let expect = if disps == 0 && form == Cso2Form::Y2018 {
                // Nothing 2018-sized unless the map has dispinfo or cubemaps.
                let cubes = bsp.lump(42).map_or(0, |c| c.len());
                if cubes > 0 && cubes % 16 != 0 {
                    "cso2_2018"
                } else {
                    bsp.branch().id
                }
            } else {
                form.branch().id
            };
            assert_eq!(bsp.branch().id, expect, "{name}: {}", why(&bsp));
            let bsp = forced(&bytes, form.branch().id);
            assert_eq!(bspkit::check::check(&bsp).len(), before, "{name} {form:?}: {:?}", bspkit::check::check(&bsp));
            assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes, "{name} {form:?}");
            let b = bspkit::mesh::build(&bsp, &Default::default()).unwrap();
            if form == Cso2Form::Y2013 || disps == 0 {
                assert_eq!(a.models, b.models, "{name} {form:?}");
            } else {
                assert!(b.triangle_count() > 0 && b.triangle_count() < a.triangle_count(), "{name}");
                // Every face the original drew as a displacement is skipped with the reason.
                let skipped = b.skipped.iter().filter(|s| s.reason.contains("dispinfo layout is not known")).count();
                assert!(skipped > 0, "{name}: {:?}", b.skipped);
                assert_eq!(skipped + a.skipped.len(), b.skipped.len(), "{name}: {:?}", b.skipped);
            }
            assert_eq!(a.props.len(), b.props.len(), "{name} {form:?}");
            // Back to the other layout and again: the same bytes.
            let other = if form == Cso2Form::Y2013 { Cso2Form::Y2018 } else { Cso2Form::Y2013 };
            let round = cso2_from_valve(&cso2_from_valve(&bytes, other).unwrap(), form).unwrap();
            assert_eq!(round, bytes, "{name} {form:?}");
        }
    }
}
