//! Ritual's Quake 3 descendants (F.A.K.K.2 `FAKK` 12, Alice `FAKK` 42, Medal of Honor demo
//! `2015` 18, retail `2015` 19, Breakthrough `EALA` 21) on the builder's room
//! (`bspkit::build::ritual_room`): detection with its evidence, `--branch`, typed records, check,
//! byte-identical rewrite and edits, info rows, scene and lightmaps, and typed errors for
//! truncated files and lying counts.

use bspkit::branches::quake3::{self, BrushSideMohaa, LeafMohaa, SurfaceRitual};
use bspkit::build::ritual_room;
use bspkit::edit::Editor;
use bspkit::lumps::entities::EditEntity;
use bspkit::mesh::{self, MeshOptions, SurfaceKind};
use bspkit::{Bsp, OpenOptions};
use zerocopy::FromBytes;

const CASES: [(&str, &[u8; 4], u32); 6] = [
    ("fakk2", b"FAKK", 12),
    ("alice", b"FAKK", 42),
    ("ef2", b"EF2!", 20),
    ("mohaa_demo", b"2015", 18),
    ("mohaa", b"2015", 19),
    ("mohaa_bt", b"EALA", 21),
];

fn room(id: &str) -> Vec<u8> {
    ritual_room(bspkit::branches::by_id(id).unwrap()).unwrap()
}

#[test]
fn rooms_detect_with_evidence_and_check_clean() {
    for (id, magic, version) in CASES {
        let bytes = room(id);
        assert_eq!(&bytes[..4], magic);
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), version);
        let bsp = Bsp::from_bytes(&bytes).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(bsp.branch().id, id);
        let why = bsp.detection().why.join("; ");
        assert!(why.contains(&format!("version {version}")), "{id}: {why}");
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{id}: {problems:#?}");
        // Every lump is read: entities, and every record lump divides into whole records.
        assert_eq!(bsp.entities().unwrap().len(), 2, "{id}");
        let report = bspkit::decode_all(&bsp);
        assert!(format!("{report:?}").len() > 10);
    }
}

#[test]
fn version_decides_among_medal_of_honor_tables() {
    // The demo's table read as retail would misplace every lump from 13 on; the version picks it.
    let mut bytes = room("mohaa_demo");
    bytes[4..8].copy_from_slice(&19u32.to_le_bytes());
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.branch().id, "mohaa");
    // Read as retail, the 56-byte demo leaves are not whole 64-byte records: a typed error.
    assert!(!bspkit::check::check(&bsp).is_empty());
    // Unknown versions are refused with the magic named.
    bytes[4..8].copy_from_slice(&22u32.to_le_bytes());
    let e = Bsp::from_bytes(&bytes).err().unwrap().to_string();
    assert!(e.contains("2015") && e.contains("22"), "{e}");
    let mut fakk = room("fakk2");
    fakk[4..8].copy_from_slice(&13u32.to_le_bytes());
    assert!(Bsp::from_bytes(&fakk).is_err());
}

#[test]
fn branch_can_be_forced() {
    let bytes = room("fakk2");
    let bsp = Bsp::from_bytes_with(&bytes, &OpenOptions { branch: Some("alice".into()), ..Default::default() }).unwrap();
    assert_eq!(bsp.branch().id, "alice");
    assert!(bsp.detection().runners_up.iter().any(|(b, _)| *b == "fakk2"));
    assert!(bspkit::check::check(&bsp).is_empty());
}

#[test]
fn rooms_rewrite_byte_for_byte_and_keep_their_branch_through_an_edit() {
    for (id, _, _) in CASES {
        let bytes = room(id);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes, "{id}");
        let mut ed = Editor::new(&bsp).unwrap();
        let mut doc = ed.entities().unwrap();
        doc.push(EditEntity::new([("classname", "light"), ("light", "300"), ("origin", "0 0 64")]).unwrap());
        ed.set_entities(&doc).unwrap();
        let out = ed.to_bytes().unwrap();
        let back = Bsp::from_bytes(&out).unwrap();
        assert_eq!(back.branch().id, id);
        assert_eq!(back.entities().unwrap().len(), 3);
        assert!(bspkit::check::check(&back).is_empty(), "{id}");
        // The header's checksum word (offset 8) is carried over.
        assert_eq!(out[8..12], bytes[8..12], "{id}");
    }
}

#[test]
fn records_are_typed_and_views_find_ritual_slots() {
    let bytes = room("mohaa");
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let v = quake3::View::<quake3::Mohaa>::new(&bsp).unwrap();
    assert_eq!(v.slots().surfaces, 3);
    assert_eq!(v.slots().entities, 14);
    assert_eq!(v.slots().fogs, None);
    let leaves: &[LeafMohaa] = v.leaves().unwrap();
    assert_eq!(leaves[1].num_static_models.get(), 1);
    let sides: &[BrushSideMohaa] = v.brush_sides().unwrap();
    assert_eq!((sides[0].equation.get(), sides[5].equation.get()), (0, 1));
    assert_eq!(v.shaders().unwrap()[0].q3.name(), "textures/bspkit/grey");
    let surfaces: &[SurfaceRitual] = v.surfaces().unwrap();
    assert_eq!(surfaces.len(), 7);
    // The demo keeps its fogs at slot 13 and MODELS moves to 14.
    let demo = room("mohaa_demo");
    let bsp = Bsp::from_bytes(&demo).unwrap();
    let v = quake3::View::<quake3::MohaaOld>::new(&bsp).unwrap();
    assert_eq!((v.slots().fogs, v.slots().models, v.slots().entities), (Some(13), 14, 15));
    assert_eq!(v.fogs().unwrap().len(), 1);
    // A view of the wrong layout is refused.
    assert!(quake3::View::<quake3::Ibsp>::new(&bsp).is_err());
}

#[test]
fn info_rows_count_every_lump() {
    for (id, _, _) in CASES {
        let bytes = room(id);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let rows = bspkit::stats::stats(&bsp);
        let count = |name: &str| rows.iter().find(|r| r.name == name).and_then(|r| r.count);
        assert_eq!(count("faces"), Some(7), "{id}: {rows:?}");
        assert_eq!(count("entities"), Some(2), "{id}");
        assert_eq!(count("brushsides"), Some(6), "{id}");
        assert_eq!(rows.len(), bsp.branch().lumps.len() + 1, "{id}");
        if id.starts_with("mohaa") {
            assert_eq!(count("terrain"), Some(1), "{id}");
            assert_eq!(count("staticmodeldefs"), Some(1), "{id}");
        } else if id == "ef2" {
            assert_eq!(count("bspinfo"), None, "{id}");
        } else {
            assert_eq!(count("entitylights"), Some(1), "{id}");
        }
    }
}

#[test]
fn rooms_build_scenes_and_lightmaps() {
    for (id, _, _) in CASES {
        let bytes = room(id);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        assert!(scene.skipped.is_empty(), "{id}: {:?}", scene.skipped);
        let world = &scene.models[0];
        assert_eq!(world.surfaces.len(), 7, "{id}");
        assert_eq!(world.surfaces.iter().filter(|s| s.kind == SurfaceKind::Patch).count(), 1, "{id}");
        // Six walls of two triangles, and the patch's grid.
        let walls: usize = world.surfaces.iter().filter(|s| s.kind == SurfaceKind::Polygon).map(|s| s.indices.len() / 3).sum();
        let idx = |s: &mesh::Surface| world.indices[s.indices.start as usize..s.indices.end as usize].to_vec();
        assert_eq!(walls, 12, "{id}");
        // Walls face into the room: each triangle's normal points towards the centre.
        for s in world.surfaces.iter().filter(|s| s.kind == SurfaceKind::Polygon) {
            let p = |k: u32| world.vertices.positions[k as usize];
            let t = idx(s);
            let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
            let (u, w) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
            let n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
            let to_centre = [-a[0], -a[1], 64.0 - a[2]];
            assert!(n[0] * to_centre[0] + n[1] * to_centre[1] + n[2] * to_centre[2] > 0.0, "{id}: a wall faces out");
        }
        assert_eq!(scene.materials[0].name, "textures/bspkit/grey");
        let faces = bsp.branch().lump_index("FACES").unwrap() as u16;
        assert!(lm.face(faces, 0).is_some(), "{id}: wall 0 is lit");
        let tree = bspkit::tree::NodeTree::of(&bsp).unwrap();
        assert_eq!(tree.point_leaf(0, [0.0, 0.0, 64.0]).unwrap(), 1, "{id}");
        assert_eq!(tree.point_leaf(0, [0.0, 0.0, -8.0]).unwrap(), 0, "{id}");
    }
}

/// Replace lump `name` of `bytes` (built by the room) and rebuild the file.
fn with_lump(id: &str, name: &str, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bytes = room(id);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let i = bsp.branch().lump_index(name).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let mut lump = bsp.lump(i).unwrap().to_vec();
    f(&mut lump);
    ed.set_lump(i, lump).unwrap();
    ed.to_bytes().unwrap()
}

#[test]
fn lying_counts_are_reported_by_lump() {
    // A surface claiming a million vertices: check names FACES, the scene skips the surface.
    let bytes = with_lump("mohaa", "FACES", |l| {
        let s = SurfaceRitual::mut_from_prefix(l).unwrap().0;
        s.num_verts.set(1_000_000);
    });
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let problems = bspkit::check::check(&bsp);
    assert!(problems.iter().any(|p| p.lump.contains("FACES") && p.code.as_str() == "range_out_of_range"), "{problems:#?}");
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert_eq!(scene.skipped.len(), 1);
    assert_eq!(scene.skipped[0].lump, 3);

    // A brush side naming a side equation that does not exist.
    let bytes = with_lump("mohaa", "BRUSH_SIDES", |l| {
        let s = BrushSideMohaa::mut_from_prefix(l).unwrap().0;
        s.equation.set(7);
    });
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("BRUSH_SIDES") && p.message.contains("equation")), "{problems:#?}");

    // A leaf whose static-model run leaves STATIC_MODEL_INDEXES; a static model whose colours
    // leave STATIC_MODEL_DATA; a sphere light in a leaf that does not exist.
    let bytes = with_lump("mohaa", "LEAVES", |l| {
        let leaf = &mut <[LeafMohaa]>::mut_from_bytes(l).unwrap()[1];
        leaf.num_static_models.set(5);
    });
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("LEAVES") && p.message.contains("static model")), "{problems:#?}");
    let bytes = with_lump("mohaa", "STATIC_MODEL_DEFS", |l| {
        let m = quake3::StaticModel::mut_from_prefix(l).unwrap().0;
        m.num_vertex_data.set(100);
    });
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("STATIC_MODEL_DEFS")), "{problems:#?}");
    let bytes = with_lump("fakk2", "ENTITY_LIGHTS", |l| {
        let s = quake3::SphereLight::mut_from_prefix(l).unwrap().0;
        s.leaf.set(9);
    });
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("ENTITY_LIGHTS") && p.message.contains("leaf")), "{problems:#?}");

    // A lump that is not a whole number of records: a typed error naming the lump.
    let bytes = with_lump("fakk2", "SHADERS", |l| l.truncate(70));
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let e = quake3::View::<quake3::Fakk>::new(&bsp).unwrap().shaders().unwrap_err().to_string();
    assert!(e.contains("SHADERS"), "{e}");
    let problems = bspkit::check::check(&bsp);
    assert!(problems.iter().any(|p| p.lump.contains("SHADERS")), "{problems:#?}");
}

#[test]
fn truncated_rooms_give_typed_errors() {
    for (id, _, _) in CASES {
        let bytes = room(id);
        let header = 12 + 8 * bspkit::branches::by_id(id).unwrap().lumps.len();
        // Inside the directory: a truncation error naming the header.
        let e = Bsp::from_bytes(&bytes[..header - 3]).err().unwrap().to_string();
        assert!(e.contains("header") && e.contains("truncated"), "{id}: {e}");
        // Past the directory: lumps outside the file are named.
        let cut = &bytes[..bytes.len() - 100];
        match Bsp::from_bytes(cut) {
            Ok(bsp) => panic!("{id}: opened a truncated file as {}", bsp.branch().id),
            Err(e) => assert!(e.to_string().contains("lump"), "{id}: {e}"),
        }
        // Every prefix opens or fails with an error; none panics.
        for k in (0..bytes.len()).step_by(97) {
            if let Ok(bsp) = Bsp::from_bytes(&bytes[..k]) {
                std::hint::black_box(bspkit::decode_all(&bsp));
            }
        }
    }
}

#[test]
fn elite_force_2_reads_its_own_field_orders() {
    let bytes = room("ef2");
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let v = quake3::View::<quake3::Ef2>::new(&bsp).unwrap();
    assert_eq!((v.slots().surfaces, v.slots().entities, v.slots().brushes), (5, 16, 13));
    // numSides comes first in the brush, the shader first in the side.
    let b = &v.brushes().unwrap()[0];
    assert_eq!((b.num_sides.get(), b.first_side.get()), (6, 0));
    let s = &v.brush_sides().unwrap()[3];
    assert_eq!((s.shader.get(), s.plane.get()), (0, 6));
    // The leaf's surface count comes before its first index.
    let leaf = &v.leaves().unwrap()[1];
    assert_eq!((leaf.num_leaf_surfaces.get(), leaf.first_leaf_surface.get()), (7, 0));
    // The lightmap coordinate is the vertex's last field.
    let vert = &v.draw_vertices().unwrap()[0];
    assert!(vert.lightmap[0].get() > 0.0 && vert.lod_extra.get() == 0.0);
    // A brush whose side run is read in Quake 3's order would be out of range: swap the fields.
    let bytes = with_lump("ef2", "BRUSHES", |l| {
        let b = quake3::BrushEf2::mut_from_prefix(l).unwrap().0;
        b.first_side.set(6);
    });
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("BRUSHES") && p.message.contains("sides")), "{problems:#?}");
    // The demo's `FAKK` 19 has no known layout: refused, not misread.
    let mut demo = room("fakk2");
    demo[4..8].copy_from_slice(&19u32.to_le_bytes());
    assert!(Bsp::from_bytes(&demo).is_err());
}

/// Medal of Honor's side equation 0 means none (OpenMoHAA's CMod_LoadBrushSides), as the retail
/// compiler writes it: real Allied Assault maps (pstngh/moh-maps, docs/real-maps.md) have every
/// side at 0 and an empty SIDE_EQUATIONS lump, which `check` had reported as thousands of
/// equations out of range. −1, which the engine would index, is an error.
#[test]
fn mohaa_side_equation_0_is_none() {
    for id in ["mohaa", "mohaa_bt", "mohaa_demo"] {
        let bytes = room(id);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let (sides_at, eq_at) = (bsp.branch().lump_index("BRUSH_SIDES").unwrap(), bsp.branch().lump_index("SIDE_EQUATIONS").unwrap());
        let mut sides = bsp.lump(sides_at).unwrap().to_vec();
        for side in sides.chunks_exact_mut(12) {
            BrushSideMohaa::mut_from_bytes(side).unwrap().equation.set(0);
        }
        let mut ed = Editor::new(&bsp).unwrap();
        ed.set_lump(sides_at, sides.clone()).unwrap();
        ed.set_lump(eq_at, Vec::new()).unwrap();
        let none = ed.to_bytes().unwrap();
        let problems = bspkit::check::check(&Bsp::from_bytes(&none).unwrap());
        assert!(problems.is_empty(), "{id}: {problems:#?}");
        // The same map with one side at −1: an error naming the equation.
        BrushSideMohaa::mut_from_bytes(&mut sides[..12]).unwrap().equation.set(-1);
        let mut ed = Editor::new(&bsp).unwrap();
        ed.set_lump(sides_at, sides).unwrap();
        ed.set_lump(eq_at, Vec::new()).unwrap();
        let problems = bspkit::check::check(&Bsp::from_bytes(&ed.to_bytes().unwrap()).unwrap());
        assert_eq!(problems.len(), 1, "{id}: {problems:#?}");
        assert!(problems[0].lump.contains("BRUSH_SIDES") && problems[0].message.contains("equation -1"), "{id}: {problems:#?}");
    }
}
