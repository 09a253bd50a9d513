//! Call of Duty 1 demo (`IBSP` 58), Call of Duty 1 / United Offensive (`IBSP` 59) and Call of
//! Duty 2 (`IBSP` 4) on the builder's room (`bspkit::build::cod12_room`) and on a real United
//! Offensive map committed under `tests/fixtures` (MIT, origin in docs/real-maps.md): detection
//! with its evidence, `--branch`, typed records, check, byte-identical rewrite and edits, info
//! rows, the scene, and typed errors for truncated files and lying counts.

use bspkit::branches::cod::{self, Leaf12, Model12, TriSoup12};
use bspkit::build::cod12_room;
use bspkit::edit::Editor;
use bspkit::lumps::entities::EditEntity;
use bspkit::mesh::{self, MeshOptions};
use bspkit::{Bsp, OpenOptions};
use zerocopy::FromBytes;

const CASES: [(&str, u32); 3] = [("cod1_demo", 58), ("cod1", 59), ("cod2", 4)];

fn room(id: &str) -> Vec<u8> {
    cod12_room(bspkit::branches::by_id(id).unwrap()).unwrap()
}

/// A real map: `empty.bsp` of nonoo/coduo-bsp-recompiler (MIT), compiled for United Offensive.
fn real_uo_map() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cod1_uo_empty.bsp")).unwrap()
}

#[test]
fn rooms_detect_with_evidence_and_check_clean() {
    for (id, version) in CASES {
        let bytes = room(id);
        assert_eq!(&bytes[..4], b"IBSP");
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), version);
        let bsp = Bsp::from_bytes(&bytes).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(bsp.branch().id, id);
        let why = bsp.detection().why.join("; ");
        assert!(why.contains(&format!("version {version}")) && why.contains("{length, offset}"), "{id}: {why}");
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{id}: {problems:#?}");
        assert_eq!(bsp.entities().unwrap().len(), 2, "{id}");
        // The directory stores {length, offset}: the materials lump (72 bytes) follows the header.
        let header = 8 + 8 * bsp.branch().lumps.len();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 72, "{id}");
        assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize, header, "{id}");
        let report = bspkit::decode_all(&bsp);
        assert!(format!("{report:?}").len() > 10);
    }
}

#[test]
fn branch_can_be_forced() {
    let bytes = room("cod1");
    let bsp = Bsp::from_bytes_with(&bytes, &OpenOptions { branch: Some("cod1_demo".into()), ..Default::default() }).unwrap();
    assert_eq!(bsp.branch().id, "cod1_demo");
    assert!(bsp.detection().runners_up.iter().any(|(b, _)| *b == "cod1"));
    assert!(bspkit::check::check(&bsp).is_empty());
    // Read with Call of Duty 2's 39-entry table, the same bytes misplace every lump.
    let as_cod2 = Bsp::from_bytes_with(&bytes, &OpenOptions { branch: Some("cod2".into()), ..Default::default() });
    assert!(as_cod2.map(|b| !bspkit::check::check(&b).is_empty()).unwrap_or(true));
    // Unknown IBSP versions stay unsupported.
    let mut other = bytes.clone();
    other[4..8].copy_from_slice(&60u32.to_le_bytes());
    let e = Bsp::from_bytes(&other).err().unwrap().to_string();
    assert!(e.contains("IBSP") && e.contains("60"), "{e}");
}

#[test]
fn rooms_rewrite_byte_for_byte_and_keep_their_branch_through_an_edit() {
    for (id, _) in CASES {
        let bytes = room(id);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes, "{id}");
        let mut ed = Editor::new(&bsp).unwrap();
        let mut doc = ed.entities().unwrap();
        doc.push(EditEntity::new([("classname", "mp_deathmatch_spawn"), ("origin", "32 0 24")]).unwrap());
        ed.set_entities(&doc).unwrap();
        let out = ed.to_bytes().unwrap();
        let back = Bsp::from_bytes(&out).unwrap();
        assert_eq!(back.branch().id, id);
        assert_eq!(back.entities().unwrap().len(), 3);
        assert!(bspkit::check::check(&back).is_empty(), "{id}");
        // Every other lump reads back the same through the rewritten {length, offset} directory.
        for e in bsp.lumps() {
            if e.name != "ENTITIES" {
                assert_eq!(bsp.lump(e.index).unwrap(), back.lump(e.index).unwrap(), "{id} {}", e.name);
            }
        }
    }
}

#[test]
fn records_are_typed_and_info_rows_count_them() {
    for (id, _) in CASES {
        let bytes = room(id);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let b = bsp.branch();
        let soups: &[TriSoup12] = bsp.records(b.lump_index(if id == "cod2" { "TRIANGLES" } else { "TRIANGLESOUPS" }).unwrap()).unwrap();
        assert_eq!((soups[0].vertex_count.get(), soups[0].index_count.get()), (24, 36), "{id}");
        let leafs: &[Leaf12] = bsp.records(b.lump_index("LEAFS").unwrap()).unwrap();
        assert_eq!((leafs.len(), leafs[1].cell.get()), (2, -1), "{id}");
        let models: &[Model12] = bsp.records(b.lump_index("MODELS").unwrap()).unwrap();
        assert_eq!(models[0].brush_count.get(), 1, "{id}");
        let verts = bsp.lump(b.lump_index("DRAWVERTS").unwrap()).unwrap().len();
        assert_eq!(verts, 24 * if id == "cod2" { 68 } else { 44 }, "{id}");
        // Every record lump has a field schema of its record size.
        for (i, def) in b.lumps.iter().enumerate() {
            if let Some(size) = def.record_size(0) {
                let s = bspkit::schema::lump_schema(b, def.name, 0, bspkit::bytes::Endian::Little);
                assert_eq!(s.map(|s| s.size), Some(size), "{id} lump {i} {}", def.name);
            }
        }
        let rows = bspkit::stats::stats(&bsp);
        let count = |name: &str| rows.iter().find(|r| r.name == name).and_then(|r| r.count);
        assert_eq!(count("trianglesoups"), Some(1), "{id}: {rows:?}");
        assert_eq!(count("drawverts"), Some(24), "{id}");
        assert_eq!(count("drawindexes"), Some(36), "{id}");
        assert_eq!(count("brushsides"), Some(6), "{id}");
        assert_eq!(count("entdata"), Some(2), "{id}");
        assert_eq!(count("leafs"), Some(2), "{id}");
    }
}

#[test]
fn rooms_build_scenes_with_inward_walls() {
    for (id, _) in CASES {
        let bytes = room(id);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        assert!(scene.skipped.is_empty(), "{id}: {:?}", scene.skipped);
        let world = &scene.models[0];
        assert_eq!((world.surfaces.len(), world.indices.len() / 3), (1, 12), "{id}");
        assert_eq!(scene.materials[0].name, "bspkit/room");
        // Walls face into the room: each triangle's normal points towards the centre.
        for t in world.indices.chunks(3) {
            let p = |k: u32| world.vertices.positions[k as usize];
            let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
            let (u, w) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
            let n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
            let to_centre = [-a[0], -a[1], 64.0 - a[2]];
            assert!(n[0] * to_centre[0] + n[1] * to_centre[1] + n[2] * to_centre[2] > 0.0, "{id}: a wall faces out");
        }
    }
}

/// Replace lump `name` of `bytes` and rebuild the file.
fn with_lump(bytes: &[u8], name: &str, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    let i = bsp.branch().lump_index(name).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let mut lump = bsp.lump(i).unwrap().to_vec();
    f(&mut lump);
    ed.set_lump(i, lump).unwrap();
    ed.to_bytes().unwrap()
}

#[test]
fn lying_counts_are_reported_by_lump() {
    for (id, _) in CASES {
        let soups = if id == "cod2" { "TRIANGLES" } else { "TRIANGLESOUPS" };
        // A soup claiming thousands of vertices: check names the soups lump, the scene skips it.
        let bytes = with_lump(&room(id), soups, |l| {
            TriSoup12::mut_from_prefix(l).unwrap().0.vertex_count.set(60_000);
        });
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let problems = bspkit::check::check(&bsp);
        assert!(problems.iter().any(|p| p.lump.contains(soups) && p.code.as_str() == "range_out_of_range"), "{id}: {problems:#?}");
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        assert_eq!(scene.skipped.len(), 1, "{id}");
        // A leaf in a cell that does not exist; a brush with fewer than its six axial sides.
        let bytes = with_lump(&room(id), "LEAFS", |l| {
            <[Leaf12]>::mut_from_bytes(l).unwrap()[0].cell.set(3);
        });
        let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
        assert!(problems.iter().any(|p| p.lump.contains("LEAFS") && p.message.contains("cell 3")), "{id}: {problems:#?}");
        let bytes = with_lump(&room(id), "BRUSHES", |l| l[0] = 5);
        let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
        assert!(problems.iter().any(|p| p.lump.contains("BRUSHES") && p.message.contains("6 axial")), "{id}: {problems:#?}");
        // A lump that is not a whole number of records: a typed error naming it.
        let bytes = with_lump(&room(id), "MODELS", |l| l.truncate(40));
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let e = bsp.records::<Model12>(bsp.branch().lump_index("MODELS").unwrap()).unwrap_err().to_string();
        assert!(e.contains("MODELS"), "{id}: {e}");
        assert!(bspkit::check::check(&bsp).iter().any(|p| p.lump.contains("MODELS")), "{id}");
    }
}

#[test]
fn truncated_rooms_give_typed_errors() {
    for (id, _) in CASES {
        let bytes = room(id);
        let header = 8 + 8 * bspkit::branches::by_id(id).unwrap().lumps.len();
        let e = Bsp::from_bytes(&bytes[..header - 3]).err().unwrap().to_string();
        assert!(e.contains("header") && e.contains("truncated"), "{id}: {e}");
        let cut = &bytes[..bytes.len() - 100];
        match Bsp::from_bytes(cut) {
            Ok(bsp) => panic!("{id}: opened a truncated file as {}", bsp.branch().id),
            Err(e) => assert!(e.to_string().contains("lump"), "{id}: {e}"),
        }
        for k in (0..bytes.len()).step_by(61) {
            if let Ok(bsp) = Bsp::from_bytes(&bytes[..k]) {
                std::hint::black_box(bspkit::decode_all(&bsp));
            }
        }
    }
}

#[test]
fn real_united_offensive_map_reads_checks_rewrites_and_draws() {
    let bytes = real_uo_map();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.branch().id, "cod1");
    assert!(bspkit::check::check(&bsp).is_empty());
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes);
    // Figures of the map (docs/real-maps.md): 3 materials, 42 brush sides, 118 nodes, 120 leafs.
    let rows = bspkit::stats::stats(&bsp);
    let count = |name: &str| rows.iter().find(|r| r.name == name).and_then(|r| r.count);
    assert_eq!([count("materials"), count("brushsides"), count("nodes"), count("leafs")], [Some(3), Some(42), Some(118), Some(120)]);
    assert_eq!(bsp.entities().unwrap().len(), 5);
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert!(scene.skipped.is_empty(), "{:?}", scene.skipped);
    let tris: usize = scene.models.iter().map(|m| m.indices.len() / 3).sum();
    assert_eq!(tris, 14);
    assert!(bspkit::texture::map_texture_names(&bsp).unwrap().iter().any(|n| n == "textures/common/caulk"));
    // An edit keeps every other lump and the branch.
    let mut ed = Editor::new(&bsp).unwrap();
    let mut doc = ed.entities().unwrap();
    doc.push(EditEntity::new([("classname", "mp_teamdeathmatch_spawn"), ("origin", "0 0 32")]).unwrap());
    ed.set_entities(&doc).unwrap();
    let out = ed.to_bytes().unwrap();
    let back = Bsp::from_bytes(&out).unwrap();
    assert_eq!(back.branch().id, "cod1");
    assert!(bspkit::check::check(&back).is_empty());
    assert_eq!(cod::COD1.lumps.len(), 33);
}

#[test]
fn soups_keep_only_the_vertices_their_indices_use() {
    // Call of Duty 2's compiler lets soups name long shared vertex runs (real-maps.md,
    // surf_concept): ten more vertices in the run, unused, are not copied into the scene.
    for (id, _) in CASES {
        let (soups, size) = if id == "cod2" { ("TRIANGLES", 68) } else { ("TRIANGLESOUPS", 44) };
        let grown = with_lump(&room(id), "DRAWVERTS", |l| {
            let first = l[..size].to_vec();
            (0..10).for_each(|_| l.extend_from_slice(&first));
        });
        let bytes = with_lump(&grown, soups, |l| {
            TriSoup12::mut_from_prefix(l).unwrap().0.vertex_count.set(34);
        });
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let world = &scene.models[0];
        assert_eq!((world.vertices.positions.len(), world.indices.len() / 3), (24, 12), "{id}");
        assert_eq!(world.surfaces[0].vertices, 0..24, "{id}");
        // The same triangles as the room's own.
        let plain = mesh::build(&Bsp::from_bytes(&room(id)).unwrap(), &MeshOptions::default()).unwrap();
        assert_eq!(world.indices, plain.models[0].indices, "{id}");
    }
}
