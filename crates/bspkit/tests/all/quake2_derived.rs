//! The Quake 2-derived branches whose magic collides with another game's: SiN (`RBSP` 1 like
//! Raven's Quake 3 maps, and `IBSP` 41 like Daikatana), Soldier of Fortune (`IBSP` 46 like
//! Quake 3) and Daikatana (`IBSP` 41). No real map of these is in the corpus: every map here
//! is written by bspkit's builder, with each branch's own record layouts.

use bspkit::branch::Branch;
use bspkit::branches::{quake2, quake3};
use bspkit::build::BspBuilder;
use bspkit::edit::Editor;
use bspkit::lumps::entities::EditEntity;
use bspkit::{Bsp, OpenOptions};
use zerocopy::byteorder::{F32, I16, I32, U16};
use zerocopy::{FromZeros, IntoBytes, LittleEndian as LE};

const ENTS: &[u8] = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 24\"\n}\n\0";

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn cat<T: IntoBytes + zerocopy::Immutable>(records: &[T]) -> Vec<u8> {
    records.iter().flat_map(|r| r.as_bytes().to_vec()).collect()
}

/// A small consistent map of a Quake 2-derived branch: a box's six planes, one quad face,
/// two leaves, one brush, plus the branch's own lumps, each referenced where the branch
/// references it.
fn derived_map(branch: &'static Branch) -> Vec<u8> {
    derived_builder(branch).build()
}

/// [`derived_map`]'s builder, for tests that replace a lump before building.
fn derived_builder(branch: &'static Branch) -> BspBuilder {
    use quake2::*;
    let planes: Vec<Plane> =
        [[1., 0., 0., 64.], [-1., 0., 0., 64.], [0., 1., 0., 64.], [0., -1., 0., 64.], [0., 0., 1., 64.], [0., 0., -1., 64.]]
            .iter()
            .map(|p: &[f32; 4]| Plane { normal: [p[0], p[1], p[2]].map(F32::new), dist: F32::new(p[3]), kind: I32::new(0) })
            .collect();
    let verts: Vec<Vertex> = [[-64., -64., 64.], [64., -64., 64.], [64., 64., 64.], [-64., 64., 64.]]
        .iter()
        .map(|v: &[f32; 3]| Vertex { point: v.map(F32::new) })
        .collect();
    let mut node = Node::new_zeroed();
    node.children = [I32::new(-1), I32::new(-2)];
    node.num_faces = U16::new(1);
    let edges = cat(&[[0u16, 0], [0, 1], [1, 2], [2, 3], [0, 3]].map(|e| Edge { v: e.map(U16::new) }));
    let mut model = Model::new_zeroed();
    model.num_faces = I32::new(1);
    let mut b = BspBuilder::new(branch)
        .lump(LUMP_ENTITIES, ENTS)
        .lump(LUMP_PLANES, cat(&planes))
        .lump(LUMP_VERTICES, cat(&verts))
        .lump(LUMP_NODES, node.as_bytes().to_vec())
        .lump(LUMP_LIGHTING, vec![128u8; 3 * 4])
        .lump(LUMP_LEAF_FACES, U16::<LE>::new(0).as_bytes().to_vec())
        .lump(LUMP_LEAF_BRUSHES, U16::<LE>::new(0).as_bytes().to_vec())
        .lump(LUMP_EDGES, edges)
        .lump(LUMP_SURFEDGES, i32s(&[1, 2, 3, -4]))
        .lump(LUMP_MODELS, model.as_bytes().to_vec())
        .lump(LUMP_BRUSHES, i32s(&[0, 2, 1]))
        .lump(LUMP_AREAS, i32s(&[0, 0, 1, 0]))
        .lump(LUMP_AREA_PORTALS, i32s(&[0, 1]));
    // Two leaves: an open one holding the face and brush, a solid one.
    macro_rules! leaves {
        ($t:ty, $small:ty) => {{
            let mut l0 = <$t>::new_zeroed();
            l0.area = <$small>::new(1);
            l0.num_leaf_faces = U16::new(1);
            l0.num_leaf_brushes = U16::new(1);
            let mut l1 = <$t>::new_zeroed();
            l1.contents = I32::new(1);
            l1.cluster = <$small>::new(-1);
            (l0, l1)
        }};
    }
    match branch.id {
        "sin" => {
            let mut t = TexInfoSin::new_zeroed();
            t.texture[..8].copy_from_slice(b"sin/wall");
            t.next_texinfo = I32::new(-1);
            let mut f = FaceSin::new_zeroed();
            f.plane = U16::new(4);
            f.num_edges = I16::new(4);
            f.styles = [255; 16];
            f.styles[0] = 0;
            f.light_offset = I32::new(0);
            f.light_info = I32::new(0);
            let sides = cat(&[
                BrushSideSin { plane: U16::new(0), texinfo: I16::new(0), light_info: I32::new(-1) },
                BrushSideSin { plane: U16::new(1), texinfo: I16::new(-1), light_info: I32::new(0) },
            ]);
            let (l0, l1) = leaves!(Leaf, I16<LE>);
            let mut light = LightValueSin::new_zeroed();
            light.value = I32::new(300);
            b = b
                .lump(LUMP_TEXINFO, t.as_bytes().to_vec())
                .lump(LUMP_FACES, f.as_bytes().to_vec())
                .lump(LUMP_BRUSH_SIDES, sides)
                .lump(LUMP_LEAVES, cat(&[l0, l1]))
                .lump(LUMP_SIN_LIGHT_INFO, light.as_bytes().to_vec());
        }
        "sof" => {
            let t = q2_texinfo(b"sof/wall");
            let mut f = FaceSof::new_zeroed();
            f.plane = U16::new(4);
            f.num_edges = I16::new(4);
            f.region = I16::new(0);
            f.num_region_faces = I16::new(1);
            f.styles = [0, 255, 255, 255];
            f.light_offset = I32::new(-1);
            let (mut l0, l1) = leaves!(LeafSof, I16<LE>);
            l0.region = I16::new(-1);
            let mut rf = RegionFaceSof::new_zeroed();
            rf.num_edges = I16::new(4);
            let mut light = LightSof::new_zeroed();
            light.intensity = F32::new(200.0);
            b = b
                .lump(LUMP_TEXINFO, t.as_bytes().to_vec())
                .lump(LUMP_FACES, f.as_bytes().to_vec())
                .lump(LUMP_BRUSH_SIDES, q2_sides())
                .lump(LUMP_LEAVES, cat(&[l0, l1]))
                .lump(LUMP_SOF_REGION_FACES, rf.as_bytes().to_vec())
                .lump(LUMP_SOF_LIGHTS, light.as_bytes().to_vec())
                .lump(LUMP_SOF_REGIONS, RegionSof::new_zeroed().as_bytes().to_vec());
        }
        "daikatana" => {
            let t = q2_texinfo(b"dk/wall");
            let mut f = Face::new_zeroed();
            f.plane = U16::new(4);
            f.num_edges = I16::new(4);
            f.styles = [0, 255, 255, 255];
            f.light_offset = I32::new(-1);
            // Quake 2's 28-byte leaves, as shipped maps store them.
            let (l0, l1) = leaves!(Leaf, I16<LE>);
            // Plane 4 lists face 0; the other five planes list none.
            let polys = i32s(&[0, 0, 0, 0, 1, 0, 0]);
            b = b
                .lump(LUMP_TEXINFO, t.as_bytes().to_vec())
                .lump(LUMP_FACES, f.as_bytes().to_vec())
                .lump(LUMP_BRUSH_SIDES, q2_sides())
                .lump(LUMP_LEAVES, cat(&[l0, l1]))
                .lump(LUMP_DK_EXT_SURF_INFO, cat(&[ExtSurfInfoDk { color: [1.0, 0.5, 0.25].map(F32::new) }]))
                .lump(LUMP_DK_PLANE_POLYS, polys);
        }
        other => panic!("not a derived branch: {other}"),
    }
    b
}

/// A Quake 2 texinfo (Soldier of Fortune and Daikatana keep its 76 bytes).
fn q2_texinfo(name: &[u8]) -> quake2::TexInfo {
    let mut t = quake2::TexInfo::new_zeroed();
    t.texture[..name.len()].copy_from_slice(name);
    t.next_texinfo = I32::new(-1);
    t
}

/// The brush's two Quake 2 sides (the second a bevel without texinfo).
fn q2_sides() -> Vec<u8> {
    use quake2::BrushSide;
    cat(&[BrushSide { plane: U16::new(0), texinfo: I16::new(0) }, BrushSide { plane: U16::new(1), texinfo: I16::new(-1) }])
}

/// A map of a colliding Quake 3-family branch with a few whole records.
fn q3_family_map(branch: &'static Branch) -> Vec<u8> {
    use quake3::*;
    let size = |i: usize| branch.lumps[i].record_size(0).unwrap();
    BspBuilder::new(branch)
        .lump(LUMP_ENTITIES, ENTS)
        .lump(LUMP_SHADERS, vec![0u8; size(LUMP_SHADERS)])
        .lump(LUMP_PLANES, vec![0u8; 6 * size(LUMP_PLANES)])
        .lump(LUMP_NODES, vec![0u8; size(LUMP_NODES)])
        .lump(LUMP_LEAVES, vec![0u8; 2 * size(LUMP_LEAVES)])
        .lump(LUMP_MODELS, vec![0u8; size(LUMP_MODELS)])
        .lump(LUMP_DRAW_VERTICES, vec![0u8; 4 * size(LUMP_DRAW_VERTICES)])
        .lump(LUMP_DRAW_INDICES, vec![0u8; 6 * size(LUMP_DRAW_INDICES)])
        .build()
}

fn with_header(bytes: &[u8], magic: &[u8; 4], version: u32) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[..4].copy_from_slice(magic);
    b[4..8].copy_from_slice(&version.to_le_bytes());
    b
}

fn forced<'a>(bytes: &'a [u8], branch: &str) -> bspkit::Result<Bsp<'a>> {
    Bsp::from_bytes_with(bytes, &OpenOptions { branch: Some(branch.into()), ..Default::default() })
}

/// Each pair sharing a magic and version is told apart by its directory, both ways, with the
/// evidence naming the lump count and the loser as runner-up.
#[test]
fn colliding_magics_are_decided_by_content() {
    let sin_rbsp = derived_map(&quake2::SIN);
    let sin_ibsp41 = with_header(&sin_rbsp, b"IBSP", 41);
    let cases: [(&str, Vec<u8>, &str, &str); 6] = [
        ("sin", sin_rbsp, "rbsp", "20 entries"),
        ("rbsp", q3_family_map(&quake3::RBSP), "sin", "18 entries"),
        ("sin", sin_ibsp41, "daikatana", "20 entries"),
        ("daikatana", derived_map(&quake2::DAIKATANA), "sin", "21 entries"),
        ("sof", derived_map(&quake2::SOF), "quake3", "22 entries"),
        ("quake3", q3_family_map(&quake3::QUAKE3), "sof", "17 entries"),
    ];
    for (want, bytes, rival, count) in &cases {
        let bsp = Bsp::from_bytes(bytes).unwrap_or_else(|e| panic!("{want}: {e}"));
        let d = bsp.detection();
        assert_eq!(d.branch.id, *want, "why: {:?}, runners-up: {:?}", d.why, d.runners_up);
        assert!(d.why.iter().any(|w| w.contains(count)), "{want}: {:?}", d.why);
        let (_, rival_why) = d.runners_up.iter().find(|(b, _)| b == rival).unwrap_or_else(|| panic!("{want}: no runner-up {rival}"));
        assert!(!rival_why.is_empty());
    }
}

/// `--branch` reaches each branch and its rival; the derived maps check clean, rewrite
/// byte-identical, and keep their branch through an entity edit.
#[test]
fn derived_maps_check_clean_and_round_trip() {
    for branch in [&quake2::SIN, &quake2::SOF, &quake2::DAIKATANA] {
        let bytes = derived_map(branch);
        let bsp = forced(&bytes, branch.id).unwrap();
        assert_eq!(bsp.branch().id, branch.id);
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{}: {problems:?}", branch.id);
        assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes, "{}", branch.id);
        assert_eq!(bsp.entities().unwrap().len(), 2);
        let tree = bspkit::tree::NodeTree::of(&bsp).unwrap();
        assert!(tree.point_leaf(0, [0.0, 0.0, 100.0]).unwrap() < tree.num_leaves, "{}", branch.id);
        // Lighting is read with the branch's own face layout: the SiN face is lit (offset 0),
        // the Soldier of Fortune and Daikatana faces are not (offset −1).
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap_or_else(|e| panic!("{}: {e}", branch.id));
        let lit = branch == &quake2::SIN;
        assert_eq!(lm.face(quake2::LUMP_FACES as u16, 0).is_some(), lit, "{}", branch.id);

        let mut ed = Editor::new(&bsp).unwrap();
        let mut doc = ed.entities().unwrap();
        doc.push(EditEntity::new([("classname", "light"), ("light", "300")]).unwrap());
        ed.set_entities(&doc).unwrap();
        let out = ed.to_bytes().unwrap();
        let back = Bsp::from_bytes(&out).unwrap();
        assert_eq!(back.branch().id, branch.id, "detected after an edit: {:?}", back.detection().why);
        assert_eq!(back.entities().unwrap().len(), 3);
        assert!(bspkit::check::check(&back).is_empty(), "{}", branch.id);
    }
    // The colliding branch can be forced on the same bytes (the table is then read with its
    // lump count) and says what detection would have chosen.
    let sof = derived_map(&quake2::SOF);
    let as_q3 = forced(&sof, "quake3").unwrap();
    assert_eq!(as_q3.branch().id, "quake3");
    assert_eq!(as_q3.lumps().len(), 17);
    assert!(as_q3.detection().runners_up.iter().any(|(b, _)| *b == "sof"));
    let q3 = q3_family_map(&quake3::QUAKE3);
    assert_eq!(forced(&q3, "quake3").unwrap().lumps().len(), 17);
    let sin = with_header(&derived_map(&quake2::SIN), b"IBSP", 41);
    assert_eq!(forced(&sin, "sin").unwrap().lumps().len(), 20);
}

/// Each branch's own lumps are typed, checked and counted in the info rows.
#[test]
fn derived_lumps_are_typed_checked_and_counted() {
    use quake2::*;
    let stat = |bsp: &Bsp, name: &str| bspkit::stats::stats(bsp).into_iter().find(|s| s.name == name).and_then(|s| s.count);

    let bytes = derived_map(&SIN);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let v = View::<Sin>::new(&bsp).unwrap();
    assert_eq!(v.light_info().unwrap()[0].value.get(), 300);
    assert_eq!(v.texinfo().unwrap()[0].name(), "sin/wall");
    assert_eq!(v.faces().unwrap()[0].styles()[..2], [0, 255]);
    assert_eq!(stat(&bsp, "lightinfo"), Some(1));
    let names: Vec<String> = bspkit::stats::stats(&bsp).into_iter().map(|s| s.name).collect();
    assert_eq!(names[4..7], ["texinfo", "lightinfo", "entdata"]);

    let bytes = derived_map(&SOF);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let v = View::<Sof>::new(&bsp).unwrap();
    assert_eq!((v.region_faces().unwrap().len(), v.lights().unwrap().len(), v.regions().unwrap().len()), (1, 1, 1));
    assert_eq!(v.leaves().unwrap()[1].contents(), 1);
    assert_eq!((stat(&bsp, "regionfaces"), stat(&bsp, "lights"), stat(&bsp, "regions")), (Some(1), Some(1), Some(1)));

    let bytes = derived_map(&DAIKATANA);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let v = View::<Daikatana>::new(&bsp).unwrap();
    let lists = v.plane_poly_lists().unwrap().unwrap();
    assert_eq!(lists.len(), 1);
    assert_eq!((lists[0].0, lists[0].1[0].get()), (4, 0));
    assert_eq!(v.ext_surf_info().unwrap()[0].color[1].get(), 0.5);
    assert_eq!((stat(&bsp, "extsurfinfo"), stat(&bsp, "planepolys")), (Some(1), Some(7)));

    // Broken references of the branch's own fields are problems.
    let damaged = |branch: &'static bspkit::branch::Branch, lump: usize, at: usize, value: &[u8]| -> Vec<String> {
        let mut bad = derived_map(branch);
        let start = Bsp::from_bytes(&bad).unwrap().entry(lump).unwrap().offset as usize + at;
        bad[start..start + value.len()].copy_from_slice(value);
        bspkit::check::check(&Bsp::from_bytes(&bad).unwrap()).iter().map(|p| p.to_string()).collect()
    };
    let p = damaged(&SIN, LUMP_FACES, 32, &5i32.to_le_bytes());
    assert!(p.iter().any(|p| p.contains("6 (FACES)[0]: lightinfo 5 is outside lightinfo")), "{p:?}");
    let p = damaged(&SOF, LUMP_FACES, 12, &3i16.to_le_bytes());
    assert!(p.iter().any(|p| p.contains("6 (FACES)[0]: region 3 is outside regions")), "{p:?}");
    let p = damaged(&DAIKATANA, LUMP_DK_PLANE_POLYS, 0, &9i32.to_le_bytes());
    assert!(p.iter().any(|p| p.contains("20 (PLANE_POLYS): the per-plane counts do not walk the lump exactly")), "{p:?}");
}

/// Issue 22: a shipped Daikatana map's LEAVES lump (e1m7: 183,960 bytes) is whole only as
/// Quake 2's 28-byte leaves (6,570 of them; 32 does not divide it, 36 reads ranges out of
/// bounds). A built map with that layout detects as Daikatana with every record lump whole and
/// checks clean; leaves with the 1.3 source header's extra `brushnum` (32 bytes) are named.
#[test]
fn daikatana_leaves_are_quake2s_28_bytes() {
    use quake2::*;
    let bytes = derived_map(&DAIKATANA);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.record_size(LUMP_LEAVES), Some(28));
    assert_eq!(bsp.raw_lump(LUMP_LEAVES).unwrap().len(), 2 * 28);
    assert_eq!(bsp.branch().id, "daikatana");
    let why = bsp.detection().why.join("; ");
    assert!(why.contains("17 of 17 record lumps are whole records"), "{why}");
    assert!(bspkit::check::check(&bsp).is_empty(), "{:?}", bspkit::check::check(&bsp));
    // The same leaves each followed by a brush number (32 bytes, the 1.3 header's dleaf_t).
    let leaves = bsp.raw_lump(LUMP_LEAVES).unwrap();
    let with_brush: Vec<u8> = leaves.chunks(28).flat_map(|l| [l, &[0u8; 4][..]].concat()).collect();
    let mut ed = Editor::new(&bsp).unwrap();
    ed.set_lump(LUMP_LEAVES, with_brush).unwrap();
    let other = ed.to_bytes().unwrap();
    let problems = bspkit::check::check(&forced(&other, "daikatana").unwrap());
    assert!(problems.iter().any(|p| p.code.as_str() == "bad_lump_length" && p.lump == "8 (LEAVES)"), "{problems:?}");
}

/// Issue 22, session 38: two conventions of the 41 shipped Soldier of Fortune maps that `check`
/// took for broken references. Leaf 0 is the solid placeholder Quake 2's compiler reserves,
/// zero-filled but for its contents, so its region is 0 even in a map without regions (all 41
/// maps); and a model whose tree is one leaf names it as −(leaf + 1) (irqctb2's model 8). Both
/// check clean; a real leaf's region and a negative head past the leaves are still errors.
#[test]
fn sof_placeholder_leaf_and_leaf_headed_model_check_clean() {
    use quake2::*;
    let leaf = |contents: i32, area: i16, region: i16, holds: u16| {
        let mut l = LeafSof::new_zeroed();
        l.contents = I32::new(contents);
        l.cluster = I16::new(if contents == 0 { 0 } else { -1 });
        l.area = I16::new(area);
        l.region = I16::new(region);
        l.num_leaf_faces = U16::new(holds);
        l.num_leaf_brushes = U16::new(holds);
        l
    };
    let model = |head: i32, faces: i32| {
        let mut m = Model::new_zeroed();
        m.head_node = I32::new(head);
        m.num_faces = I32::new(faces);
        m
    };
    // No regions: the face names none, the region lumps are empty.
    let mut face = FaceSof::new_zeroed();
    face.plane = U16::new(4);
    face.num_edges = I16::new(4);
    face.region = I16::new(-1);
    face.styles = [0, 255, 255, 255];
    face.light_offset = I32::new(-1);
    let build = |leaves: &[LeafSof], models: &[Model]| -> Vec<String> {
        let bytes = derived_builder(&SOF)
            .lump(LUMP_FACES, face.as_bytes().to_vec())
            .lump(LUMP_LEAVES, cat(leaves))
            .lump(LUMP_MODELS, cat(models))
            .lump(LUMP_SOF_REGION_FACES, Vec::new())
            .lump(LUMP_SOF_REGIONS, Vec::new())
            .build();
        let bsp = forced(&bytes, "sof").unwrap();
        assert_eq!(View::<Sof>::new(&bsp).unwrap().regions().unwrap().len(), 0);
        bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect()
    };
    let placeholder = leaf(1, 0, 0, 0);
    let open = leaf(0, 1, -1, 1);
    let world_and_door = [model(0, 1), model(-2, 0)];

    let p = build(&[placeholder, open], &world_and_door);
    assert!(p.is_empty(), "{p:?}");

    // The same 0 on a leaf that is not the placeholder is a reference to a region that is not there.
    let p = build(&[placeholder, leaf(0, 1, 0, 1)], &world_and_door);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("8 (LEAVES)[1]: region 0 is outside regions (count 0)"), "{p:?}");
    // Leaf 0 with another region, or not solid, is not the placeholder.
    let p = build(&[leaf(1, 0, 2, 0), open], &world_and_door);
    assert!(p.iter().any(|p| p.contains("8 (LEAVES)[0]: region 2 is outside regions")), "{p:?}");
    let p = build(&[leaf(0, 0, 0, 0), open], &world_and_door);
    assert!(p.iter().any(|p| p.contains("8 (LEAVES)[0]: region 0 is outside regions")), "{p:?}");

    // A negative head names a leaf; past the two leaves it is named as such.
    let p = build(&[placeholder, open], &[model(0, 1), model(-3, 0)]);
    assert!(p.iter().any(|p| p.contains("13 (MODELS)[1]: headnode leaf 2 is outside leaves (count 2)")), "{p:?}");
    let p = build(&[placeholder, open], &[model(0, 1), model(5, 0)]);
    assert!(p.iter().any(|p| p.contains("13 (MODELS)[1]: headnode 5 is outside nodes (count 1)")), "{p:?}");
}
