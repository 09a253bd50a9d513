//! Issue 22, Dark Messiah of Might and Magic (`darkmessiah`; VDC "BSP (Source)/Game-Specific"):
//! the split version word (20, 4), 96-byte texinfo, 52-byte models, the game lump directory with
//! one more int in its header and in each entry, and 136-byte version-6 static props. Builder
//! maps: detection with its evidence, typed records, check, byte-identical rewrite, `--branch`;
//! a corpus TF2 map re-laid in Dark Messiah's forms: the same faces and triangles as the
//! original, check clean, rewrite byte for byte, an edit that moves the game lump keeps its
//! children readable. No real Dark Messiah map was found, so the branch keeps its dagger.

use crate::common;

use bspkit::branches::source::{self, View};
use bspkit::lumps::gamelump::{DirForm, GameLumps};
use bspkit::lumps::staticprops::PropLayout;
use bspkit::{Bsp, OpenOptions};
use zerocopy::LittleEndian;

#[test]
fn builder_map_is_detected_with_evidence_and_reads_typed() {
    let map = bspkit::build::dark_messiah_map();
    assert_eq!(&map[4..8], &[20, 0, 4, 0]);
    let bsp = Bsp::from_bytes(&map).unwrap();
    let d = bsp.detection();
    let why = d.why.join("; ");
    assert_eq!((bsp.branch().id, d.version), ("darkmessiah", 20), "{why}");
    assert!(why.contains("version word 0x00040014 = short 20, short 4"), "{why}");
    assert!(why.contains("texinfo lump of 96 bytes = 1 records of 96"), "{why}");
    assert!(why.contains("models lump of 52 bytes = 1 records of 52"), "{why}");
    assert!(why.contains("game lump directory of 1 20-byte entries"), "{why}");
    assert_eq!(d.runners_up.first().map(|r| r.0), Some("source"));

    // Typed records as stored, and in Valve's form for the cross-family code.
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    let (ti, m) = (v.texinfo_dm().unwrap(), v.models_dm().unwrap());
    assert_eq!((ti.len(), ti[0].unknown, ti[0].texture_vecs[0][0].get()), (1, [0xd4; 24], 1.0));
    assert_eq!(v.texinfo().unwrap()[0].lightmap_vecs[1][1].get(), 1.0 / 16.0);
    assert_eq!((m.len(), m[0].maxs[2].get(), v.models().unwrap()[0].mins[0].get()), (1, 64.0, -64.0));
    assert_eq!(v.face_material(0).unwrap(), None);

    // The game lump in its own form, offsets absolute; the props in the 136-byte form.
    let g = GameLumps::of(&bsp).unwrap();
    assert_eq!(g.dir.form, DirForm::DarkMessiah);
    assert_eq!(g.dir.base, bspkit::lumps::gamelump::OffsetBase::Absolute);
    let sp = g.static_props().unwrap().unwrap();
    assert_eq!((sp.layout, sp.element_size), (PropLayout::V6Dm, Some(136)));
    let props = sp.props().unwrap();
    assert_eq!(props.len(), 2);
    assert_eq!((props[1].origin[0], props[1].model_name.as_deref()), (96.0, Some("models/props/barrel.mdl")));

    assert!(bspkit::check::check(&bsp).is_empty(), "{:?}", bspkit::check::check(&bsp));
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), map);
    // Its game lump form has no compressed children: compressing them is refused.
    let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
    assert!(ed.compress_game_lump_children(true).is_err());

    // `--branch source` reads the same bytes with Valve's forms: the game lump no longer parses.
    let forced = Bsp::from_bytes_with(&map, &OpenOptions { branch: Some("source".into()), ..Default::default() }).unwrap();
    assert_eq!(forced.branch().id, "source");
    assert!(GameLumps::of(&forced).is_err() || GameLumps::of(&forced).unwrap().static_props().map_or(true, |p| p.is_none()));
    // And `--branch darkmessiah` opens a Valve map.
    let valve = bspkit::build::BspBuilder::new(&source::SOURCE).lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec()).build();
    let forced = Bsp::from_bytes_with(&valve, &OpenOptions { branch: Some("darkmessiah".into()), ..Default::default() }).unwrap();
    assert_eq!(forced.branch().id, "darkmessiah");
    // A Valve v20 word stays Valve's.
    assert_eq!(Bsp::from_bytes(&valve).unwrap().branch().id, "source");
}

/// Truncated maps and lying lumps give typed errors or check problems naming the lump, never a
/// panic; a texinfo lump that is not whole 96-byte records is named by `check`.
#[test]
fn damaged_dark_messiah_maps_fail_cleanly() {
    let map = bspkit::build::dark_messiah_map();
    for cut in (0..map.len()).step_by(7) {
        if let Ok(bsp) = Bsp::from_bytes(&map[..cut]) {
            let _ = bspkit::check::check(&bsp);
            let _ = bspkit::mesh::build(&bsp, &Default::default());
        }
    }
    let g = u32::from_le_bytes(map[8 + 16 * 35..8 + 16 * 35 + 4].try_into().unwrap()) as usize;
    for at in (g..map.len().min(g + 120)).step_by(4) {
        let mut bad = map.clone();
        bad[at..at + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
        if let Ok(bsp) = Bsp::from_bytes(&bad) {
            let _ = bspkit::check::check(&bsp);
            let _ = GameLumps::of(&bsp).map(|g| g.static_props().map(|p| p.map(|p| p.props())));
        }
    }
    // Texinfo one byte short of its record.
    let mut short = map.clone();
    let ti_len = 8 + 16 * 6 + 4;
    short[ti_len..ti_len + 4].copy_from_slice(&95u32.to_le_bytes());
    let bsp = Bsp::from_bytes(&short).unwrap();
    let problems = bspkit::check::check(&bsp);
    assert!(problems.iter().any(|p| format!("{p:?}").contains("TEXINFO")), "{problems:?}");
}

/// A real TF2 map (corpus) re-laid in Dark Messiah's forms draws the same faces: the fork's
/// texinfo and model records feed the mesh exactly as Valve's did.
#[test]
fn corpus_map_in_dark_messiah_forms_checks_rewrites_and_exports() {
    let Some(dir) = common::corpus("corpus_map_in_dark_messiah_forms_checks_rewrites_and_exports") else { return };
    let base = std::fs::read(dir.join("source/bsp_tool__tf2_mp_lobby.bsp")).unwrap();
    let dm = bspkit::build::dark_messiah_from_valve(&base).unwrap();
    let (valve, bsp) = (Bsp::from_bytes(&base).unwrap(), Bsp::from_bytes(&dm).unwrap());
    assert_eq!(bsp.branch().id, "darkmessiah", "{:?}", bsp.detection().why);
    let problems = bspkit::check::check(&bsp);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), dm);
    let (a, b) = (bspkit::mesh::build(&valve, &Default::default()).unwrap(), bspkit::mesh::build(&bsp, &Default::default()).unwrap());
    let tris = |s: &bspkit::mesh::Scene| s.triangle_count();
    assert!(tris(&a) > 0);
    // The same models (positions, UVs, lightmap UVs, surfaces) and materials as the original.
    assert_eq!(a.models, b.models);
    assert_eq!(a.materials, b.materials);
    assert_eq!(b.props.len(), 2, "{:?}", b.warnings);
    let (va, vb) = (View::<LittleEndian>::new(&valve).unwrap(), View::<LittleEndian>::new(&bsp).unwrap());
    let names =
        |v: &View<LittleEndian>| (0..v.faces().unwrap().len()).map(|i| v.face_material(i).unwrap().map(str::to_string)).collect::<Vec<_>>();
    assert_eq!(names(&va), names(&vb));

    // Growing the entity lump moves the game lump: its absolute child offsets follow.
    let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
    let mut ents = bsp.lump(0).unwrap().to_vec();
    let end = ents.iter().rposition(|&c| c == b'}').unwrap() + 1;
    ents.splice(end..end, b"\n{\n\"classname\" \"info_target\"\n\"targetname\" \"moved\"\n}".iter().copied());
    ed.set_lump(0, ents).unwrap();
    let edited = ed.to_bytes().unwrap();
    let bsp2 = Bsp::from_bytes(&edited).unwrap();
    assert_ne!(bsp2.entry(35).unwrap().offset, bsp.entry(35).unwrap().offset);
    assert!(bspkit::check::check(&bsp2).is_empty(), "{:?}", bspkit::check::check(&bsp2));
    assert_eq!(GameLumps::of(&bsp2).unwrap().static_props().unwrap().unwrap().props().unwrap().len(), 2);

    let dir = common::scratch("dark-messiah");
    let out = dir.join("dm.glb");
    let opts = bspkit::export::ExportOptions { format: Some(bspkit::export::Format::Glb), ..Default::default() };
    let summary = bspkit::export::export(&bsp, &out, &opts).unwrap();
    assert_eq!(summary.triangles, tris(&b));
}
