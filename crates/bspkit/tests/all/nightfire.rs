//! James Bond 007: Nightfire (version 42) on the builder's room (`bspkit::build::nightfire_room`):
//! detection with its evidence, `--branch`, typed records and their schemas, the compiler's
//! info rows, check, byte-identical rewrite and edits, a texture rename, the scene (inward
//! walls, sky flags, UVs from the projections), and typed errors for truncated files and lying
//! counts. No shipped Nightfire map was found (docs/real-maps-new-branches.md); maps compiled by
//! the compiler reconstruction are measured in docs/real-maps.md, and the unlit, unvised form
//! they have is rebuilt here from the room.

use bspkit::branches::nightfire::{self, Face, Leaf, Model, NIGHTFIRE};
use bspkit::build::nightfire_room;
use bspkit::edit::Editor;
use bspkit::lumps::entities::EditEntity;
use bspkit::mesh::{self, MeshOptions, SurfaceFlags};
use bspkit::{Bsp, Family, OpenOptions};
use zerocopy::FromBytes;

#[test]
fn room_detects_with_evidence_and_checks_clean() {
    let bytes = nightfire_room();
    assert_eq!(u32::from_le_bytes(bytes[..4].try_into().unwrap()), 42);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!((bsp.family(), bsp.branch().id, bsp.detection().version), (Family::Nightfire, "nightfire", 42));
    let why = bsp.detection().why.join("; ");
    assert!(why.contains("version 42") && why.contains("entry 0 entity text") && !why.contains("not:"), "{why}");
    // The header is GoldSrc's form with 18 entries: the first lump starts at 148.
    assert_eq!(bsp.header().len, 148);
    let problems = bspkit::check::check(&bsp);
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(bsp.entities().unwrap().len(), 2);
    let report = bspkit::decode_all(&bsp);
    assert!(format!("{report:?}").len() > 10);
    // A version-42 word over a directory of another shape is still read as Nightfire, and the
    // evidence says what does not hold.
    let mut other = bytes.clone();
    other[4 + 8 * nightfire::PLANES + 4..][..4].copy_from_slice(&21u32.to_le_bytes());
    let d = bspkit::detect::detect(&other).unwrap();
    assert!(d.why.join("; ").contains("not: PLANES whole 20-byte records"), "{:?}", d.why);
}

#[test]
fn branch_can_be_forced_and_goldsrc_reads_it_wrongly() {
    let bytes = nightfire_room();
    let as_goldsrc = Bsp::from_bytes_with(&bytes, &OpenOptions { branch: Some("goldsrc".into()), ..Default::default() });
    if let Ok(b) = as_goldsrc {
        assert!(b.detection().runners_up.iter().any(|(id, _)| *id == "nightfire"));
        assert!(!bspkit::check::check(&b).is_empty(), "GoldSrc's 15-lump table cannot read a Nightfire map cleanly");
    }
    let forced = Bsp::from_bytes_with(&bytes, &OpenOptions { branch: Some("nightfire".into()), ..Default::default() }).unwrap();
    assert_eq!(forced.branch().id, "nightfire");
}

#[test]
fn room_rewrites_byte_for_byte_and_keeps_its_branch_through_edits() {
    let bytes = nightfire_room();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes);
    let mut ed = Editor::new(&bsp).unwrap();
    let mut doc = ed.entities().unwrap();
    doc.push(EditEntity::new([("classname", "info_player_deathmatch"), ("origin", "32 0 40")]).unwrap());
    ed.set_entities(&doc).unwrap();
    let out = ed.to_bytes().unwrap();
    let back = Bsp::from_bytes(&out).unwrap();
    assert_eq!(back.branch().id, "nightfire");
    assert_eq!(back.entities().unwrap().len(), 3);
    assert!(bspkit::check::check(&back).is_empty());
    for e in bsp.lumps() {
        if e.name != "ENTITIES" {
            assert_eq!(bsp.lump(e.index).unwrap(), back.lump(e.index).unwrap(), "{}", e.name);
        }
    }
    // A texture rename writes the 64-byte TEXTURES field and nothing else.
    let mut ed = Editor::new(&bsp).unwrap();
    let renamed = bspkit::rename::rename_texture(&mut ed, "bspkit/room", "bspkit/wall").unwrap();
    assert_eq!((renamed.count, renamed.lumps.as_slice()), (1, &[nightfire::TEXTURES][..]));
    let out = ed.to_bytes().unwrap();
    let back = Bsp::from_bytes(&out).unwrap();
    assert_eq!(bspkit::texture::map_texture_names(&back).unwrap(), ["bspkit/wall", "special/sky"]);
    assert!(bspkit::check::check(&back).is_empty());
}

#[test]
fn records_are_typed_and_info_rows_count_them() {
    let bytes = nightfire_room();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let faces: &[Face] = bsp.records(nightfire::FACES).unwrap();
    assert_eq!(faces.len(), 6);
    assert_eq!((faces[4].styles[0], faces[4].lightmap_offset.get(), faces[5].flags.get()), (0, 0, 4));
    let leafs: &[Leaf] = bsp.records(nightfire::LEAFS).unwrap();
    assert_eq!((leafs[1].mark_surface_count.get(), leafs[0].mark_brush_count.get()), (6, 1));
    let models: &[Model] = bsp.records(nightfire::MODELS).unwrap();
    assert_eq!(models[0].face_count.get(), 6);
    // Every record lump has a field schema of its record size.
    for (i, def) in NIGHTFIRE.lumps.iter().enumerate() {
        if let Some(size) = def.record_size(0) {
            let s = bspkit::schema::lump_schema(&NIGHTFIRE, def.name, 0, bspkit::bytes::Endian::Little);
            assert_eq!(s.map(|s| s.size), Some(size), "lump {i} {}", def.name);
        }
    }
    let rows = bspkit::stats::stats(&bsp);
    let row = |name: &str| rows.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no {name} row: {rows:?}"));
    assert_eq!(row("faces").count, Some(6));
    assert_eq!(row("verts").count, Some(24));
    assert_eq!(row("indices").count, Some(36));
    assert_eq!(row("textures").count, Some(2));
    assert_eq!(row("leaves").count, Some(2));
    assert_eq!((row("models").max_count, row("models").max_bytes), (Some(1024), Some(1024 * 56)));
    assert_eq!((row("lightdata").count, row("lightdata").bytes), (None, 64));
}

#[test]
fn room_builds_a_scene_with_inward_walls_and_a_sky() {
    let bytes = nightfire_room();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert!(scene.skipped.is_empty(), "{:?}", scene.skipped);
    let world = &scene.models[0];
    assert_eq!((world.surfaces.len(), world.indices.len() / 3), (6, 12));
    assert_eq!(scene.materials.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["bspkit/room", "special/sky"]);
    assert!(world.surfaces[5].flags.contains(SurfaceFlags::SKY));
    assert!(!world.surfaces[0].flags.contains(SurfaceFlags::SKY));
    assert!(scene.warnings.iter().any(|w| w.contains("64×64")), "{:?}", scene.warnings);
    for t in world.indices.chunks(3) {
        let p = |k: u32| world.vertices.positions[k as usize];
        let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
        let (u, w) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
        let n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
        let to_centre = [-a[0], -a[1], 64.0 - a[2]];
        assert!(n[0] * to_centre[0] + n[1] * to_centre[1] + n[2] * to_centre[2] > 0.0, "a wall faces out");
    }
    // UVs: the projection's texels over the assumed 64-texel size; the floor (wall 4, z axis)
    // takes s from x, t from -y: corner (128, 128, 0) is at (2, -2).
    let floor = &world.surfaces[4];
    let k = (floor.vertices.start..floor.vertices.end).find(|&k| world.vertices.positions[k as usize] == [128.0, 128.0, 0.0]).unwrap();
    assert_eq!(world.vertices.uv0[k as usize], [2.0, -2.0]);
    // With a texture size the UVs divide by it.
    let size = |_: &str| Some([128, 32]);
    let sized = mesh::build(&bsp, &MeshOptions { texture_size: Some(&size), ..Default::default() }).unwrap();
    assert_eq!(sized.models[0].vertices.uv0[k as usize], [1.0, -4.0]);
}

/// Replace lump `index` of `bytes` and rebuild the file.
fn with_lump(bytes: &[u8], index: usize, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let mut lump = bsp.lump(index).unwrap().to_vec();
    f(&mut lump);
    ed.set_lump(index, lump).unwrap();
    ed.to_bytes().unwrap()
}

#[test]
fn lying_counts_are_reported_by_lump() {
    let room = nightfire_room();
    // A face claiming thousands of indices: check names FACES, the scene skips it.
    let bytes = with_lump(&room, nightfire::FACES, |l| {
        <[Face]>::mut_from_bytes(l).unwrap()[2].index_count.set(60_000);
    });
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let problems = bspkit::check::check(&bsp);
    assert!(problems.iter().any(|p| p.lump.contains("FACES") && p.code.as_str() == "range_out_of_range"), "{problems:#?}");
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert_eq!(scene.skipped.len(), 1);
    // An index past its face's vertices; a leaf's mark brushes past MARKBRUSHES; a lit face
    // pointing past LIGHTING; one normal too few.
    let bytes = with_lump(&room, nightfire::INDICES, |l| l[4] = 9);
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("FACES") && p.message.contains("index 9")), "{problems:#?}");
    let bytes = with_lump(&room, nightfire::LEAFS, |l| {
        <[Leaf]>::mut_from_bytes(l).unwrap()[0].mark_brush_count.set(3);
    });
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("LEAFS") && p.message.contains("MARKBRUSHES")), "{problems:#?}");
    let bytes = with_lump(&room, nightfire::FACES, |l| {
        <[Face]>::mut_from_bytes(l).unwrap()[4].lightmap_offset.set(64);
    });
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("FACES") && p.message.contains("lightmap offset")), "{problems:#?}");
    let bytes = with_lump(&room, nightfire::NORMALS, |l| l.truncate(l.len() - 12));
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("NORMALS") && p.code.as_str() == "count_mismatch"), "{problems:#?}");
    // A lump that is not a whole number of records: a typed error naming it.
    let bytes = with_lump(&room, nightfire::MODELS, |l| l.truncate(40));
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let e = bsp.records::<Model>(nightfire::MODELS).unwrap_err().to_string();
    assert!(e.contains("MODELS"), "{e}");
    assert!(bspkit::check::check(&bsp).iter().any(|p| p.lump.contains("MODELS")));
    assert!(mesh::build(&bsp, &MeshOptions::default()).unwrap_err().to_string().contains("MODELS"));
}

#[test]
fn truncated_rooms_give_typed_errors() {
    let bytes = nightfire_room();
    let e = Bsp::from_bytes(&bytes[..100]).err().unwrap().to_string();
    assert!(e.contains("header") && e.contains("truncated"), "{e}");
    match Bsp::from_bytes(&bytes[..bytes.len() - 100]) {
        Ok(bsp) => panic!("opened a truncated file as {}", bsp.branch().id),
        Err(e) => assert!(e.to_string().contains("lump"), "{e}"),
    }
    for k in (0..bytes.len()).step_by(7) {
        if let Ok(bsp) = Bsp::from_bytes(&bytes[..k]) {
            std::hint::black_box(bspkit::decode_all(&bsp));
            let _ = mesh::build(&bsp, &MeshOptions::default());
        }
    }
}

/// The lit floor's lightmap projection, as the compiler makes it (16 units a luxel), spans
/// 16 × 16 luxels and checks clean; projections the compiler cannot have written (a face over
/// 128 luxels an axis, a zero axis, a huge one) are warnings naming FACES, never a panic. The
/// samples themselves are not decoded (their layout is not known).
#[test]
fn lightmap_extent_follows_the_projection_and_bad_ones_warn() {
    use bspkit::branches::nightfire::lightmap::{luxel_extent, MAX_EXTENT};
    use bspkit::branches::nightfire::{TexMatrix, Vec3};
    let room = nightfire_room();
    let bsp = Bsp::from_bytes(&room).unwrap();
    let faces: &[Face] = bsp.records(nightfire::FACES).unwrap();
    let points: &[Vec3] = bsp.records(nightfire::VERTEXES).unwrap();
    let matrices: &[TexMatrix] = bsp.records(nightfire::TEXMATRIX).unwrap();
    let floor = &faces[4];
    let first = floor.first_vertex.get() as usize;
    let corners: Vec<[f32; 3]> = points[first..first + 4].iter().map(|p| p.xyz.map(|x| x.get())).collect();
    let e = luxel_extent(&corners, &matrices[floor.lightmap_matrix.get() as usize]).unwrap();
    assert_eq!((e.mins, e.maxs, e.size(), e.units_per_luxel), ([-8, -8], [8, 8], [16, 16], [16.0, 16.0]));
    assert!(bspkit::check::check(&bsp).is_empty());

    let warned = |bytes: &[u8], text: &str| {
        let problems = bspkit::check::check(&Bsp::from_bytes(bytes).unwrap());
        let hit = problems.iter().any(|p| {
            p.lump.contains("FACES")
                && p.code.as_str() == "bad_value"
                && p.severity == bspkit::check::Severity::Warning
                && p.message.contains(text)
        });
        assert!(hit, "{text}: {problems:#?}");
    };
    let scaled = |k: f32| {
        with_lump(&room, nightfire::TEXMATRIX, |l| {
            let m = &mut <[TexMatrix]>::mut_from_bytes(l).unwrap()[6];
            m.s = m.s.map(|x| zerocopy::little_endian::F32::new(x.get() * k));
        })
    };
    // One luxel a unit: 256 luxels along s.
    warned(&scaled(16.0), &format!("spans 256 × 16 luxels: the compiler keeps each axis under {MAX_EXTENT}"));
    warned(&scaled(0.0), "zero or non-finite length");
    warned(&scaled(f32::MAX), "luxels");
    // The unlit walls' projections are not read, whatever they hold.
    let bytes = with_lump(&room, nightfire::TEXMATRIX, |l| {
        let m = &mut <[TexMatrix]>::mut_from_bytes(l).unwrap()[0];
        m.s = [zerocopy::little_endian::F32::new(0.0); 4];
    });
    assert!(bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap()).iter().all(|p| !p.message.contains("lightmap")));
}

/// The room as the compiler writes it before its light and visibility tools run (measured on
/// maps compiled by the reconstruction of Gearbox's `bbsp`, docs/real-maps.md): no LIGHTING,
/// no VISIBILITY, every face with styles 0 and lightmap offset 0, leaf 0 with visibility
/// offset 0. It checks clean; the same offsets into a lump that has bytes stay errors.
#[test]
fn an_unlit_unvised_compile_stores_offset_0_and_checks_clean() {
    let room = nightfire_room();
    let unlit = with_lump(&room, nightfire::FACES, |l| {
        for f in <[Face]>::mut_from_bytes(l).unwrap() {
            f.styles = [0; 4];
            f.lightmap_offset.set(0);
        }
    });
    // The compiler gives every face a lightmap projection; the walls' (shared with their
    // texture projections in the room) become 16 units a luxel, as the floor's.
    let unlit = with_lump(&unlit, nightfire::TEXMATRIX, |l| {
        use zerocopy::little_endian::F32;
        for m in &mut <[bspkit::branches::nightfire::TexMatrix]>::mut_from_bytes(l).unwrap()[..6] {
            m.s = m.s.map(|x| F32::new(x.get() / 16.0));
            m.t = m.t.map(|x| F32::new(x.get() / 16.0));
        }
    });
    let unlit = with_lump(&unlit, nightfire::LEAFS, |l| {
        let leaves = <[Leaf]>::mut_from_bytes(l).unwrap();
        leaves[0].vis_offset.set(0);
        leaves[1].vis_offset.set(-1);
    });
    let bare = with_lump(&with_lump(&unlit, nightfire::LIGHTING, |l| l.clear()), nightfire::VISIBILITY, |l| l.clear());
    let bsp = Bsp::from_bytes(&bare).unwrap();
    assert_eq!(bsp.branch().id, "nightfire");
    assert!(bsp.lump(nightfire::LIGHTING).unwrap().is_empty() && bsp.lump(nightfire::VISIBILITY).unwrap().is_empty());
    let problems = bspkit::check::check(&bsp);
    assert!(problems.is_empty(), "{problems:#?}");
    // With samples present, an offset past them is still an error; so is a visibility offset
    // past the visibility bytes.
    let past = with_lump(&unlit, nightfire::FACES, |l| <[Face]>::mut_from_bytes(l).unwrap()[1].lightmap_offset.set(64));
    let problems = bspkit::check::check(&Bsp::from_bytes(&past).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("FACES") && p.message.contains("lightmap offset 64")), "{problems:#?}");
    let past = with_lump(&unlit, nightfire::LEAFS, |l| <[Leaf]>::mut_from_bytes(l).unwrap()[0].vis_offset.set(5));
    let problems = bspkit::check::check(&Bsp::from_bytes(&past).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("LEAFS") && p.message.contains("visibility offset 5")), "{problems:#?}");
    // Without visibility bytes only offset 0 is read as none.
    let past = with_lump(&bare, nightfire::LEAFS, |l| <[Leaf]>::mut_from_bytes(l).unwrap()[0].vis_offset.set(1));
    let problems = bspkit::check::check(&Bsp::from_bytes(&past).unwrap());
    assert!(problems.iter().any(|p| p.lump.contains("LEAFS") && p.message.contains("visibility offset 1")), "{problems:#?}");
}
