//! Genesis3D levels (`GBSP` 15 chunk files): the corpus level (`genesis3d/genesis3d__genvs2.bsp`)
//! against its own chunk headers, read here without the library, and builder-made levels for
//! edits and damage.

use crate::common;

use bspkit::branches::genesis3d::{self as g3d, View};
use bspkit::edit::Editor;
use bspkit::lumps::entities::EditEntity;
use bspkit::{Bsp, Family};

/// `(type, size, elements, data offset)` of every chunk before END, read straight from the
/// bytes (engine `Gbspfile.cpp`: `{i32 Type, i32 Size, i32 Elements}` then the data).
fn raw_chunks(d: &[u8]) -> (Vec<(u32, u32, u32, usize)>, bool) {
    let rd = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap());
    let mut out = Vec::new();
    let mut at = 0;
    while at + 12 <= d.len() {
        let (t, s, n) = (rd(at), rd(at + 4), rd(at + 8));
        if t == 0xffff {
            return (out, true);
        }
        out.push((t, s, n, at + 12));
        at += 12 + (s * n) as usize;
    }
    (out, false)
}

fn corpus_level() -> Option<std::path::PathBuf> {
    let corpus = common::corpus("genesis3d corpus level")?;
    let maps = common::maps_in(&corpus, "genesis3d");
    assert!(!maps.is_empty(), "the manifest lists no genesis3d map");
    Some(maps[0].path.clone())
}

#[test]
fn corpus_level_reads_checks_and_round_trips() {
    let Some(path) = corpus_level() else { return };
    let bytes = std::fs::read(&path).unwrap();
    let bsp = Bsp::open(&path).unwrap();
    assert_eq!((bsp.family(), bsp.branch().id, bsp.detection().version), (Family::Genesis3D, "genesis3d", 15));
    let problems = bspkit::check::check(&bsp);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes);

    // Every chunk is a lump at its data, with the length its header gives; every record
    // view has the header's element count, and the header's element size is the record size.
    let (chunks, has_end) = raw_chunks(&bytes);
    assert!(has_end);
    assert_eq!(bsp.lumps().len(), chunks.len());
    for (&(t, s, n, at), e) in chunks.iter().zip(bsp.lumps()) {
        assert_eq!((e.index, e.offset, e.length), (t as usize, at as u64, s as u64 * n as u64));
        if let Some(size) = bsp.record_size(e.index) {
            assert_eq!(size, s as usize, "chunk {t}");
        }
    }
    let elements = |t: usize| chunks.iter().find(|c| c.0 as usize == t).map(|c| c.2 as usize).unwrap();
    let v = View::new(&bsp).unwrap();
    assert_eq!(v.header().unwrap().unwrap().tag(), "GBSP");
    assert_eq!(v.models().unwrap().len(), elements(g3d::CHUNK_MODELS));
    assert_eq!(v.nodes().unwrap().len(), elements(g3d::CHUNK_NODES));
    assert_eq!(v.leafs().unwrap().len(), elements(g3d::CHUNK_LEAFS));
    assert_eq!(v.faces().unwrap().len(), elements(g3d::CHUNK_FACES));
    assert_eq!(v.vert_index().unwrap().len(), elements(g3d::CHUNK_VERT_INDEX));
    assert_eq!(v.verts().unwrap().len(), elements(g3d::CHUNK_VERTS));
    assert_eq!(v.texinfo().unwrap().len(), elements(g3d::CHUNK_TEXINFO));
    assert_eq!(v.textures().unwrap().len(), elements(g3d::CHUNK_TEXTURES));
    assert_eq!(v.palettes().unwrap().len(), elements(g3d::CHUNK_PALETTES));
    assert!(v.sky().unwrap().is_some());
    assert!(v.motions().unwrap().starts_with(b"Genesis_Motion_File"));

    // GBSPLib's table: each "Num X" row counts the X chunk's elements.
    let stats = bspkit::stats::stats(&bsp);
    let row = |name: &str| stats.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no row {name}"));
    for (name, t) in [
        ("Num Models", g3d::CHUNK_MODELS),
        ("Num Nodes", g3d::CHUNK_NODES),
        ("Num Total Leafs", g3d::CHUNK_LEAFS),
        ("Num Clusters", g3d::CHUNK_CLUSTERS),
        ("Num Area Portals", g3d::CHUNK_AREA_PORTALS),
        ("Num Leafs Sides", g3d::CHUNK_LEAF_SIDES),
        ("Num Planes", g3d::CHUNK_PLANES),
        ("Num Faces", g3d::CHUNK_FACES),
        ("Num Leaf Faces", g3d::CHUNK_LEAF_FACES),
        ("Num Vert Index", g3d::CHUNK_VERT_INDEX),
        ("Num Verts", g3d::CHUNK_VERTS),
        ("Num FaceInfo", g3d::CHUNK_TEXINFO),
        ("Num Textures", g3d::CHUNK_TEXTURES),
    ] {
        let c = chunks.iter().find(|c| c.0 as usize == t).unwrap();
        assert_eq!((row(name).count, row(name).bytes), (Some(c.2 as u64), c.1 as u64 * c.2 as u64), "{name}");
    }
    assert_eq!(row("Num Areas").count, Some(elements(g3d::CHUNK_AREAS) as u64 - 1));
    assert_eq!(row("Tex Data Size").bytes, elements(g3d::CHUNK_TEXDATA) as u64);

    // Entities: the chunk's first int is the entity count; the binary pairs read as text.
    let ent = chunks.iter().find(|c| c.0 as usize == g3d::CHUNK_ENTDATA).unwrap();
    let count = u32::from_le_bytes(bytes[ent.3..ent.3 + 4].try_into().unwrap()) as usize;
    let ents = bsp.entities().unwrap();
    assert_eq!(ents.len(), count);
    assert!(ents.iter().any(|e| e.get("classname").as_deref() == Some("%Model%")));
    assert_eq!(g3d::ents::from_text(bsp.entities_text().unwrap()).unwrap(), bsp.lump(g3d::CHUNK_ENTDATA).unwrap());

    // Geometry an exporter reads: every face resolves to a polygon with colours and a texture.
    let geo = v.geometry().unwrap();
    let mut corners = 0;
    for f in 0..geo.faces.len() {
        let pts: Vec<_> = geo.corners(f).unwrap().collect::<Result<_, _>>().unwrap();
        assert!(pts.len() >= 3);
        assert!(pts.iter().all(|c| c.color.is_some()));
        let n = geo.normal(f).unwrap();
        assert!((n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-3, "face {f} normal {n:?}");
        let tex = geo.texture(f).unwrap().expect("a texture");
        assert!(geo.texels(tex).is_some());
        corners += pts.len();
    }
    assert_eq!(corners, v.vert_index().unwrap().len());
    assert_eq!(geo.model_faces(0).map(|r| r.len()), Some(v.models().unwrap()[0].num_faces.get() as usize));
    // Every model's node tree walks without a cycle down to leafs.
    let tree = bspkit::tree::NodeTree::of(&bsp).unwrap();
    assert_eq!(tree.heads.len(), v.models().unwrap().len());
    assert!(tree.walk(0).unwrap().leaves > 1000);
}

#[test]
fn corpus_level_entity_edit_writes_a_clean_level() {
    let Some(path) = corpus_level() else { return };
    let bsp = Bsp::open(&path).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let mut doc = ed.entities().unwrap();
    let n = doc.len();
    doc.entities[1].set("%name%", "renamed_by_bspkit").unwrap();
    doc.push(EditEntity::new([("classname", "light"), ("light", "150"), ("origin", "0 0 0")]).unwrap());
    ed.set_entities(&doc).unwrap();
    assert_eq!(ed.changed().collect::<Vec<_>>(), [g3d::CHUNK_ENTDATA]);
    let out = ed.to_bytes().unwrap();
    let back = Bsp::from_bytes(&out).unwrap();
    assert!(bspkit::check::check(&back).is_empty());
    let ents = back.entities().unwrap();
    assert_eq!(ents.len(), n + 1);
    assert_eq!(ents.list[1].get("%name%").as_deref(), Some("renamed_by_bspkit"));
    // Every other chunk is unchanged.
    for e in bsp.lumps().iter().filter(|e| e.index != g3d::CHUNK_ENTDATA) {
        assert_eq!(back.lump(e.index).unwrap(), bsp.lump(e.index).unwrap(), "chunk {}", e.index);
    }
}

#[test]
fn builder_level_reads_checks_and_edits() {
    let bytes = g3d::room::small_level();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.branch().id, "genesis3d");
    assert!(bsp.detection().why[0].contains("GBSP"));
    let problems = bspkit::check::check(&bsp);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes);
    assert_eq!(bsp.entities().unwrap().list[1].get("classname").as_deref(), Some("DeathMatchStart"));
    let geo = View::new(&bsp).unwrap().geometry().unwrap();
    let c: Vec<_> = geo.corners(0).unwrap().map(Result::unwrap).collect();
    assert_eq!(c[2].position, [64.0, 64.0, 0.0]);
    assert_eq!(c[2].texel, [64.0, 64.0]);
    assert_eq!(geo.normal(0).unwrap(), [0.0, 0.0, 1.0]);
    assert_eq!(geo.lightmaps(0).unwrap().map(|l| l.len()), Some(12));
    assert_eq!(geo.texels(geo.texture(0).unwrap().unwrap()).map(|(t, _)| t.len()), Some(64));
    // The node tree: the face's plane (z = 0, up) puts points above it in leaf 0.
    let tree = bspkit::tree::NodeTree::of(&bsp).unwrap();
    assert_eq!((tree.point_leaf(0, [32.0, 32.0, 10.0]).unwrap(), tree.point_leaf(0, [32.0, 32.0, -10.0]).unwrap()), (0, 1));

    // Resize one chunk, empty another, add a missing one: the chain is rewritten with new
    // element counts, everything else unchanged.
    let mut ed = Editor::new(&bsp).unwrap();
    let mut verts = ed.lump(g3d::CHUNK_VERTS).unwrap().into_owned();
    verts.extend_from_within(..12);
    ed.set_lump(g3d::CHUNK_VERTS, verts.clone()).unwrap();
    ed.remove_lump(g3d::CHUNK_MOTIONS).unwrap();
    ed.set_lump(g3d::CHUNK_PORTALS, vec![0u8; 16]).unwrap();
    let out = ed.to_bytes().unwrap();
    let back = Bsp::from_bytes(&out).unwrap();
    assert_eq!(back.lump(g3d::CHUNK_VERTS).unwrap(), &verts[..]);
    assert_eq!(back.lump(g3d::CHUNK_MOTIONS).unwrap(), b"");
    assert_eq!(View::new(&back).unwrap().portals().unwrap().len(), 1);
    let (chunks, has_end) = raw_chunks(&out);
    assert!(has_end);
    assert_eq!(chunks.iter().find(|c| c.0 as usize == g3d::CHUNK_VERTS).map(|c| (c.1, c.2)), Some((12, 5)));
    for e in bsp.lumps().iter().filter(|e| ![g3d::CHUNK_VERTS, g3d::CHUNK_MOTIONS].contains(&e.index)) {
        assert_eq!(back.lump(e.index).unwrap(), bsp.lump(e.index).unwrap(), "chunk {}", e.index);
    }
    // A length that is not a whole number of records is refused, naming the chunk.
    let mut ed = Editor::new(&bsp).unwrap();
    ed.set_lump(g3d::CHUNK_FACES, vec![0u8; 37]).unwrap();
    let err = ed.to_bytes().unwrap_err();
    assert!(err.to_string().contains("FACES"), "{err}");
    // The end chunk cannot be written as a lump.
    let mut ed = Editor::new(&bsp).unwrap();
    assert!(ed.set_lump(0xffff, vec![1]).is_ok());
    assert!(ed.to_bytes().is_err());
}

#[test]
fn damaged_levels_are_errors_or_problems_never_panics() {
    let bytes = g3d::room::small_level();
    let (chunks, _) = raw_chunks(&bytes);
    // Cut anywhere: an error, or (at a chunk boundary) a level that checks with problems.
    for cut in (0..bytes.len()).step_by(7).chain(chunks.iter().map(|c| c.3 - 12)) {
        let part = &bytes[..cut];
        if let Ok(bsp) = Bsp::from_bytes(part) {
            let problems = bspkit::check::check(&bsp);
            let _ = bspkit::decode_all(&bsp);
            assert!(!problems.is_empty() || cut == 0, "cut at {cut} has no problem");
        }
    }
    // Flip each header field to hostile values.
    for c in &chunks {
        for (field, value) in [(4usize, -1i32), (4, i32::MAX), (8, i32::MAX), (0, 77)] {
            let mut bad = bytes.clone();
            let at = c.3 - 12 + field;
            bad[at..at + 4].copy_from_slice(&value.to_le_bytes());
            match Bsp::from_bytes(&bad) {
                Ok(bsp) => {
                    let _ = bspkit::decode_all(&bsp);
                    let _ = bspkit::write::rewrite(&bsp);
                }
                Err(e) => assert!(e.offset.is_some(), "{e}"),
            }
        }
    }
    // Another version is named as unsupported.
    let mut v14 = bytes.clone();
    v14[20..24].copy_from_slice(&14u32.to_le_bytes());
    let err = Bsp::from_bytes(&v14).err().expect("version 14 is refused");
    assert!(err.to_string().contains("GBSP"), "{err}");
    let forced = Bsp::from_bytes_with(&v14, &bspkit::OpenOptions { branch: Some("genesis3d".into()), ..Default::default() }).unwrap();
    assert!(bspkit::check::check(&forced).iter().any(|p| p.to_string().contains("version 14")));
}

/// Hostile face light fields and texture records (negative, huge, past the data, a palette
/// out of range) give lightmap and texture warnings or `Missing` entries, never a panic, and
/// the export and the picture of such a level still succeed.
#[test]
fn hostile_light_and_texture_records_never_panic() {
    use bspkit::texture::{TextureOptions, TextureSource};
    let bytes = g3d::room::small_level();
    let (chunks, _) = raw_chunks(&bytes);
    let data_of = |t: usize| chunks.iter().find(|c| c.0 as usize == t).unwrap().3;
    let faces = data_of(g3d::CHUNK_FACES);
    let textures = data_of(g3d::CHUNK_TEXTURES);
    // Face: light_offset (20), light_width (24), light_height (28), light_types (32..36).
    // Texture: width (36), height (40), offset (44), palette (48).
    let fields = [(faces, 20usize), (faces, 24), (faces, 28), (textures, 36), (textures, 40), (textures, 44), (textures, 48)];
    let mut runs = 0;
    for (base, field) in fields {
        for value in [-1i32, 0, 1, 3, 255, 1 << 20, i32::MAX, i32::MIN] {
            let mut bad = bytes.clone();
            bad[base + field..base + field + 4].copy_from_slice(&value.to_le_bytes());
            if field == 20 && base == faces {
                bad[base + 32..base + 36].copy_from_slice(&[0, 11, 0, 255]);
            }
            let bsp = Bsp::from_bytes(&bad).unwrap();
            let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
            assert!(lm.faces.len() <= 1);
            for t in TextureSource::new(&bsp, &TextureOptions::default()).textures().flatten() {
                assert_eq!(t.image().pixels.len(), t.width() as usize * t.height() as usize * 4);
            }
            let scene = bspkit::mesh::build(&bsp, &bspkit::mesh::MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
            assert!(scene.models.iter().all(|m| m.vertices.uv1.len() == m.vertices.len()));
            let dir = common::scratch("g3d-hostile");
            bspkit::export::export(&bsp, &dir.join("out.glb"), &Default::default()).unwrap();
            let opts = bspkit::render::RenderOptions { size: 32, ..Default::default() };
            bspkit::render::render_map(&bsp, &opts).unwrap();
            runs += 1;
        }
    }
    assert_eq!(runs, fields.len() * 8);
}
