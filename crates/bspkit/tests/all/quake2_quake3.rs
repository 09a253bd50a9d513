//! Quake 2 (IBSP 38, Qbism) and Quake 3-family (IBSP 46/47, RBSP, FBSP) typed lumps,
//! visibility, checks and native-tool stats, on the corpus and on builder-made maps.

use crate::common;

use bspkit::branch::Branch;
use bspkit::branches::quake3::ShaderRecord;
use bspkit::branches::{quake2, quake3};
use bspkit::build::BspBuilder;
use bspkit::lumps::visibility::VisKind;
use bspkit::stats::Stat;
use bspkit::Bsp;
use zerocopy::byteorder::{F32, I16, I32, U16, U32};
use zerocopy::{FromZeros, IntoBytes, LittleEndian as LE};

// ---------------------------------------------------------------------------------------
// Decoding every typed lump

fn decode_q2<L: quake2::Layout>(bsp: &Bsp) -> usize {
    let v = quake2::View::<L>::new(bsp).unwrap();
    let n = v.planes().unwrap().len()
        + v.vertices().unwrap().len()
        + v.nodes().unwrap().len()
        + v.texinfo().unwrap().len()
        + v.faces().unwrap().len()
        + v.lighting().unwrap().len()
        + v.leaves().unwrap().len()
        + v.leaf_faces().unwrap().len()
        + v.leaf_brushes().unwrap().len()
        + v.edges().unwrap().len()
        + v.surfedges().unwrap().len()
        + v.models().unwrap().len()
        + v.brushes().unwrap().len()
        + v.brush_sides().unwrap().len()
        + v.areas().unwrap().len()
        + v.area_portals().unwrap().len();
    for t in v.texinfo().unwrap() {
        use quake2::TexInfoRecord;
        assert!(!t.texture_name().is_empty(), "texinfo without a texture name");
    }
    // Every face's corners resolve; consecutive surfedges share a vertex, so the
    // polygon has one corner per edge and no corner repeats its predecessor.
    let mut pts = Vec::new();
    for f in v.faces().unwrap() {
        v.face_points(f, &mut pts).unwrap();
        assert!(pts.len() >= 3);
        assert!(pts.windows(2).all(|w| w[0] != w[1]), "degenerate face winding {pts:?}");
    }
    let vis = v.visibility().unwrap();
    let mut row = Vec::new();
    for c in 0..vis.num_clusters {
        for kind in [VisKind::Pvs, VisKind::Pas] {
            vis.row(c, kind, &mut row).unwrap();
            assert_eq!(row.len(), vis.row_bytes());
        }
        // A cluster always sees and hears itself.
        assert!(vis.can_see(c, c, VisKind::Pvs).unwrap(), "cluster {c} does not see itself");
        assert!(vis.can_see(c, c, VisKind::Pas).unwrap(), "cluster {c} does not hear itself");
    }
    n
}

fn decode_q3<L: quake3::Layout>(bsp: &Bsp) -> usize {
    let v = quake3::View::<L>::new(bsp).unwrap();
    let n = v.shaders().unwrap().len()
        + v.planes().unwrap().len()
        + v.nodes().unwrap().len()
        + v.leaves().unwrap().len()
        + v.leaf_surfaces().unwrap().len()
        + v.leaf_brushes().unwrap().len()
        + v.models().unwrap().len()
        + v.brushes().unwrap().len()
        + v.brush_sides().unwrap().len()
        + v.draw_vertices().unwrap().len()
        + v.draw_indices().unwrap().len()
        + v.fogs().unwrap().len()
        + v.surfaces().unwrap().len()
        + v.lightmaps().unwrap().len()
        + v.light_grid().unwrap().len()
        + v.light_array().unwrap().len();
    for s in v.shaders().unwrap() {
        assert!(!s.name().is_empty(), "shader without a name");
    }
    for s in v.surfaces().unwrap() {
        let verts = v.surface_vertices(s).unwrap().len() as i32;
        assert!(v.surface_indices(s).unwrap().iter().all(|i| (0..verts).contains(&i.get())));
    }
    let vis = v.visibility().unwrap();
    for c in 0..vis.n_vecs {
        assert!(vis.visible(c, c), "cluster {c} does not see itself");
    }
    n
}

fn decode(bsp: &Bsp) -> usize {
    match bsp.branch().id {
        "quake2" => decode_q2::<quake2::Ibsp>(bsp),
        "qbism" => decode_q2::<quake2::Qbism>(bsp),
        "quake3" | "ibsp47" | "quakelive" => decode_q3::<quake3::Ibsp>(bsp),
        "rbsp" => decode_q3::<quake3::Rbsp>(bsp),
        "fbsp" => decode_q3::<quake3::Fbsp>(bsp),
        other => panic!("not a Quake 2 / 3 branch: {other}"),
    }
}

fn assert_clean(bsp: &Bsp, what: &str) {
    let problems = bspkit::check::check(bsp);
    assert!(problems.is_empty(), "{what}: {} problems, first: {}", problems.len(), problems[0]);
}

#[test]
fn corpus_maps_decode_and_check_clean() {
    let Some(corpus) = common::corpus("corpus_maps_decode_and_check_clean") else { return };
    let mut seen = 0;
    for folder in ["quake2", "quake3"] {
        for m in common::maps_in(&corpus, folder) {
            let bsp = Bsp::open(&m.path).unwrap_or_else(|e| panic!("{e}"));
            let records = decode(&bsp);
            assert!(records > 0, "{}: no records decoded", m.path.display());
            assert_clean(&bsp, &m.path.display().to_string());
            seen += 1;
        }
    }
    assert!(seen >= 10, "only {seen} Quake 2 / 3 corpus maps");
}

// ---------------------------------------------------------------------------------------
// Native-tool stats against the ground truth

/// One parsed row: name, count (if printed), bytes.
type Row = (String, Option<u64>, u64);

/// Every `FILE STATS` block of a q2tools log (`name: N size: B`, then `lightdata size: B`,
/// `visdata size: B`), in order. Each tool (4bsp, 4vis, 4rad) prints one after writing the
/// file; only the last describes the finished map.
fn parse_q2_blocks(text: &str) -> Vec<Vec<Row>> {
    let mut blocks = Vec::new();
    for (start, _) in text.match_indices("FILE STATS") {
        let mut rows = Vec::new();
        for line in text[start..].lines().skip(1) {
            if line.contains("END ") {
                break;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [name, count, "size:", bytes] => {
                    rows.push((name.trim_end_matches(':').to_string(), Some(count.parse().unwrap()), bytes.parse().unwrap()))
                }
                [name, "size:", bytes] => rows.push((name.to_string(), None, bytes.parse().unwrap())),
                other => panic!("unexpected FILE STATS line {other:?}"),
            }
        }
        blocks.push(rows);
    }
    blocks
}

fn parse_q2_file_stats(text: &str) -> Vec<Row> {
    parse_q2_blocks(text).pop().expect("a FILE STATS block")
}

/// The rows of `q3map2 -info` (`%9d name %9d [*]`, or `name %9d` for visibility and total),
/// from the components header to `total`.
fn parse_q3map2_info(text: &str) -> Vec<Row> {
    let start = text.find("Abstracted BSP file components").expect("q3map2 -info header");
    let mut rows = Vec::new();
    for line in text[start..].lines().skip(1) {
        let words: Vec<&str> = line.split_whitespace().filter(|w| *w != "*").collect();
        match words.as_slice() {
            [] => continue,
            [count, name, bytes] => rows.push((name.to_string(), Some(count.parse().unwrap()), bytes.parse().unwrap())),
            [name, bytes] => rows.push((name.to_string(), None, bytes.parse().unwrap())),
            other => panic!("unexpected q3map2 line {other:?}"),
        }
        if rows.last().is_some_and(|r| r.0 == "total") {
            break;
        }
    }
    rows
}

fn as_rows(stats: &[Stat]) -> Vec<Row> {
    stats.iter().map(|s| (s.name.clone(), s.count, s.bytes)).collect()
}

#[test]
fn stats_match_native_tools() {
    let Some(corpus) = common::corpus("stats_match_native_tools") else { return };
    let mut compared = 0;
    for folder in ["quake2", "quake3"] {
        for m in common::maps_in(&corpus, folder) {
            let Some(text) = common::info_txt(&m.path) else { continue };
            let bsp = Bsp::open(&m.path).unwrap();
            let expected = if folder == "quake2" { parse_q2_file_stats(&text) } else { parse_q3map2_info(&text) };
            assert!(expected.len() >= 16, "{}: parsed only {} rows", m.path.display(), expected.len());
            assert_eq!(as_rows(&bspkit::stats::stats(&bsp)), expected, "{}", m.path.display());
            if folder == "quake2" {
                // 4vis only adds visdata and 4rad only lightdata: every other row is the
                // same in each tool's block, so the stats of an unlit or unvised map follow
                // the same rules.
                for block in parse_q2_blocks(&text) {
                    let geometry =
                        |rows: &[Row]| rows.iter().filter(|r| r.0 != "lightdata" && r.0 != "visdata").cloned().collect::<Vec<_>>();
                    assert_eq!(geometry(&block), geometry(&expected), "{}", m.path.display());
                }
            }
            compared += 1;
        }
    }
    assert!(compared >= 2, "no ground truth compared");
}

#[test]
fn file_stats_parser_takes_the_final_block() {
    let log = "FILE STATS >>>\nmodels: 1 size: 48\n lightdata size: 0\n visdata size: 0\nEND 4bsp\n\
               FILE STATS >>>\nmodels: 1 size: 48\n lightdata size: 7\n visdata size: 44\nEND 4rad\n";
    let rows = parse_q2_file_stats(log);
    assert_eq!(rows[1], ("lightdata".to_string(), None, 7));
    assert_eq!(rows[2], ("visdata".to_string(), None, 44));
}

// ---------------------------------------------------------------------------------------
// Builder-made maps for branches with no real file

const ENTS: &[u8] = b"{\n\"classname\" \"worldspawn\"\n\"gridsize\" \"128 128 64\"\n}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 24\"\n}\n\0";

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f3(v: [f32; 3]) -> [F32<LE>; 3] {
    v.map(F32::new)
}
fn cat<T: IntoBytes + zerocopy::Immutable>(records: &[T]) -> Vec<u8> {
    records.iter().flat_map(|r| r.as_bytes().to_vec()).collect()
}

/// A six-plane box room: planes in opposite pairs.
fn box_planes() -> [[f32; 4]; 6] {
    [[1., 0., 0., 64.], [-1., 0., 0., 64.], [0., 1., 0., 64.], [0., -1., 0., 64.], [0., 0., 1., 64.], [0., 0., -1., 64.]]
}

/// A small, consistent Quake 2 map (IBSP or Qbism records, chosen by the branch).
fn q2_map(branch: &'static Branch, bad_face_plane: bool) -> Vec<u8> {
    use quake2::*;
    let qbism = branch.id == "qbism";
    let planes: Vec<Plane> =
        box_planes().iter().map(|p| Plane { normal: f3([p[0], p[1], p[2]]), dist: F32::new(p[3]), kind: I32::new(0) }).collect();
    let verts: Vec<Vertex> =
        [[-64., -64., 64.], [64., -64., 64.], [64., 64., 64.], [-64., 64., 64.]].iter().map(|v| Vertex { point: f3(*v) }).collect();
    // One cluster: offsets 12 and 13 point at one-byte PVS / PHS rows.
    let mut vis = i32s(&[1, 12, 13]);
    vis.extend_from_slice(&[0x01, 0x01]);
    let mut tex = TexInfo::new_zeroed();
    tex.texture[..9].copy_from_slice(b"e1u1/wall");
    tex.next_texinfo = I32::new(-1);
    let face_plane = if bad_face_plane { 99 } else { 4 };
    let (nodes, faces, leaves, leaf_idx, edges, sides);
    // Edge 4 is stored 0 → 3 and used backwards by surfedge −4.
    let edge_list = [[0u32, 0], [0, 1], [1, 2], [2, 3], [0, 3]];
    if qbism {
        let mut n = NodeQbism::new_zeroed();
        n.children = [I32::new(-1), I32::new(-2)];
        n.num_faces = U32::new(1);
        nodes = n.as_bytes().to_vec();
        let mut f = FaceQbism::new_zeroed();
        f.plane = U32::new(face_plane);
        f.num_edges = I32::new(4);
        f.styles = [0, 255, 255, 255];
        faces = f.as_bytes().to_vec();
        let mut l0 = LeafQbism::new_zeroed();
        l0.area = I32::new(1);
        l0.num_leaf_faces = U32::new(1);
        l0.num_leaf_brushes = U32::new(1);
        let mut l1 = LeafQbism::new_zeroed();
        l1.contents = I32::new(1);
        l1.cluster = I32::new(-1);
        leaves = cat(&[l0, l1]);
        leaf_idx = U32::<LE>::new(0).as_bytes().to_vec();
        edges = cat(&edge_list.map(|e| EdgeQbism { v: e.map(U32::new) }));
        sides = cat(&[
            BrushSideQbism { plane: U32::new(0), texinfo: I32::new(0) },
            BrushSideQbism { plane: U32::new(1), texinfo: I32::new(-1) },
        ]);
    } else {
        let mut n = Node::new_zeroed();
        n.children = [I32::new(-1), I32::new(-2)];
        n.num_faces = U16::new(1);
        nodes = n.as_bytes().to_vec();
        let mut f = Face::new_zeroed();
        f.plane = U16::new(face_plane as u16);
        f.num_edges = I16::new(4);
        f.styles = [0, 255, 255, 255];
        faces = f.as_bytes().to_vec();
        let mut l0 = Leaf::new_zeroed();
        l0.area = I16::new(1);
        l0.num_leaf_faces = U16::new(1);
        l0.num_leaf_brushes = U16::new(1);
        let mut l1 = Leaf::new_zeroed();
        l1.contents = I32::new(1);
        l1.cluster = I16::new(-1);
        leaves = cat(&[l0, l1]);
        leaf_idx = U16::<LE>::new(0).as_bytes().to_vec();
        edges = cat(&edge_list.map(|e| Edge { v: e.map(|x| U16::new(x as u16)) }));
        sides = cat(&[BrushSide { plane: U16::new(0), texinfo: I16::new(0) }, BrushSide { plane: U16::new(1), texinfo: I16::new(-1) }]);
    }
    let mut model = Model::new_zeroed();
    model.num_faces = I32::new(1);
    BspBuilder::new(branch)
        .lump(LUMP_ENTITIES, ENTS)
        .lump(LUMP_PLANES, cat(&planes))
        .lump(LUMP_VERTICES, cat(&verts))
        .lump(LUMP_VISIBILITY, vis)
        .lump(LUMP_NODES, nodes)
        .lump(LUMP_TEXINFO, tex.as_bytes().to_vec())
        .lump(LUMP_FACES, faces)
        .lump(LUMP_LIGHTING, vec![128u8; 3 * 4])
        .lump(LUMP_LEAVES, leaves)
        .lump(LUMP_LEAF_FACES, leaf_idx.clone())
        .lump(LUMP_LEAF_BRUSHES, leaf_idx)
        .lump(LUMP_EDGES, edges)
        .lump(LUMP_SURFEDGES, i32s(&[1, 2, 3, -4]))
        .lump(LUMP_MODELS, model.as_bytes().to_vec())
        .lump(LUMP_BRUSHES, i32s(&[0, 2, 1]))
        .lump(LUMP_BRUSH_SIDES, sides)
        .lump(LUMP_AREAS, i32s(&[0, 0, 1, 0]))
        .lump(LUMP_AREA_PORTALS, i32s(&[0, 1]))
        .build()
}

/// A small, consistent Quake 3-family map (IBSP, RBSP or FBSP records, by branch).
fn q3_map(branch: &'static Branch, bad_surface_shader: bool) -> Vec<u8> {
    use quake3::*;
    let raven = matches!(branch.id, "rbsp" | "fbsp");
    let page = if branch.id == "fbsp" { 512 * 512 * 3 } else { 128 * 128 * 3 };
    let mut shaders = [Shader::new_zeroed(), Shader::new_zeroed()];
    shaders[0].name[..15].copy_from_slice(b"textures/common");
    shaders[1].name[..13].copy_from_slice(b"textures/fog1");
    let planes: Vec<Plane> = box_planes().iter().map(|p| Plane { normal: f3([p[0], p[1], p[2]]), dist: F32::new(p[3]) }).collect();
    let mut node = Node::new_zeroed();
    node.children = [I32::new(-1), I32::new(-2)];
    let mut l0 = Leaf::new_zeroed();
    l0.num_leaf_surfaces = I32::new(1);
    l0.num_leaf_brushes = I32::new(1);
    let mut l1 = Leaf::new_zeroed();
    l1.cluster = I32::new(-1);
    let mut model = Model::new_zeroed();
    model.mins = f3([-64.; 3]);
    model.maxs = f3([64.; 3]);
    model.num_surfaces = I32::new(1);
    model.num_brushes = I32::new(1);
    let fog = {
        let mut f = Fog::new_zeroed();
        f.shader = shaders[1].name;
        f.visible_side = I32::new(5);
        f
    };
    let shader = if bad_surface_shader { 99 } else { 0 };
    let corners = [[-64., -64., 64.], [64., -64., 64.], [64., 64., 64.], [-64., 64., 64.]];
    let (sides, verts, surface, grid);
    if raven {
        sides = cat(&(0..6).map(|p| BrushSideRbsp { plane: I32::new(p), shader: I32::new(0), surface: I32::new(-1) }).collect::<Vec<_>>());
        verts = cat(&corners
            .iter()
            .map(|c| {
                let mut v = DrawVertRbsp::new_zeroed();
                v.xyz = f3(*c);
                v.color = [[255; 4]; 4];
                v
            })
            .collect::<Vec<_>>());
        let mut s = SurfaceRbsp::new_zeroed();
        s.shader = I32::new(shader);
        s.surface_type = I32::new(1);
        s.num_verts = I32::new(4);
        s.num_indexes = I32::new(6);
        s.lightmap_styles = [0, 255, 255, 255];
        s.vertex_styles = [0, 255, 255, 255];
        s.lightmap_num = [0, -3, -3, -3].map(I32::new);
        surface = s.as_bytes().to_vec();
        let mut g = LightGridRbsp::new_zeroed();
        g.styles = [0, 255, 255, 255];
        grid = cat(&[g, g]);
    } else {
        sides = cat(&(0..6).map(|p| BrushSide { plane: I32::new(p), shader: I32::new(0) }).collect::<Vec<_>>());
        verts = cat(&corners
            .iter()
            .map(|c| {
                let mut v = DrawVert::new_zeroed();
                v.xyz = f3(*c);
                v
            })
            .collect::<Vec<_>>());
        let mut s = Surface::new_zeroed();
        s.shader = I32::new(shader);
        s.surface_type = I32::new(1);
        s.num_verts = I32::new(4);
        s.num_indexes = I32::new(6);
        surface = s.as_bytes().to_vec();
        grid = vec![0u8; 8 * 3];
    }
    let mut b = BspBuilder::new(branch)
        .lump(LUMP_ENTITIES, ENTS)
        .lump(LUMP_SHADERS, cat(&shaders))
        .lump(LUMP_PLANES, cat(&planes))
        .lump(LUMP_NODES, node.as_bytes().to_vec())
        .lump(LUMP_LEAVES, cat(&[l0, l1]))
        .lump(LUMP_LEAF_SURFACES, i32s(&[0]))
        .lump(LUMP_LEAF_BRUSHES, i32s(&[0]))
        .lump(LUMP_MODELS, model.as_bytes().to_vec())
        .lump(LUMP_BRUSHES, i32s(&[0, 6, 0]))
        .lump(LUMP_BRUSH_SIDES, sides)
        .lump(LUMP_DRAW_VERTICES, verts)
        .lump(LUMP_DRAW_INDICES, i32s(&[0, 1, 2, 0, 2, 3]))
        .lump(LUMP_FOGS, fog.as_bytes().to_vec())
        .lump(LUMP_SURFACES, surface)
        .lump(LUMP_LIGHTMAPS, vec![0u8; page])
        .lump(LUMP_LIGHT_GRID, grid)
        .lump(LUMP_VISIBILITY, [i32s(&[1, 1]), vec![1]].concat());
    if raven {
        b = b.lump(LUMP_LIGHT_ARRAY, cat(&[0u16, 1, 1].map(U16::<LE>::new)));
    }
    if branch.id == "quakelive" {
        let mut ad = Advertisement::new_zeroed();
        ad.cell_id = I32::new(7);
        ad.normal = f3([0., 0., -1.]);
        ad.rect = corners.map(f3);
        ad.model[..2].copy_from_slice(b"*0");
        b = b.lump(LUMP_ADVERTISEMENTS, cat(&[ad, ad]));
    }
    b.build()
}

fn stat<'s>(stats: &'s [Stat], name: &str) -> &'s Stat {
    stats.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no {name} row"))
}

#[test]
fn builder_quake2_maps_decode_and_check_clean() {
    for branch in [&quake2::QUAKE2, &quake2::QBISM] {
        let bytes = q2_map(branch, false);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bsp.branch().id, branch.id);
        assert!(decode(&bsp) > 0);
        assert_clean(&bsp, branch.id);
        let stats = bspkit::stats::stats(&bsp);
        assert_eq!(stat(&stats, "entdata").count, Some(2));
        assert_eq!(stat(&stats, "faces").count, Some(1));
        assert_eq!(stat(&stats, "edges").bytes, 5 * bsp.record_size(quake2::LUMP_EDGES).unwrap() as u64);
        assert_eq!(stat(&stats, "visdata").bytes, 14);
        // The face's winding: surfedges 1, 2, 3 forwards, then edge 4 backwards.
        fn points<L: quake2::Layout>(bsp: &Bsp) -> Vec<[f32; 3]> {
            let v = quake2::View::<L>::new(bsp).unwrap();
            let mut pts = vec![[9.0; 3]];
            v.face_points(&v.faces().unwrap()[0], &mut pts).unwrap();
            pts
        }
        let pts = if branch.id == "qbism" { points::<quake2::Qbism>(&bsp) } else { points::<quake2::Ibsp>(&bsp) };
        assert_eq!(pts, [[-64., -64., 64.], [64., -64., 64.], [64., 64., 64.], [-64., 64., 64.]]);

        // A reference out of range is reported against its lump and record.
        let bad = q2_map(branch, true);
        let problems = bspkit::check::check(&Bsp::from_bytes(&bad).unwrap());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!((problems[0].lump.as_str(), problems[0].index), ("6 (FACES)", Some(0)));
    }
}

#[test]
fn builder_quake3_family_maps_decode_and_check_clean() {
    for branch in [&quake3::QUAKE3, &quake3::IBSP47, &quake3::QUAKELIVE, &quake3::RBSP, &quake3::FBSP] {
        let bytes = q3_map(branch, false);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bsp.branch().id, branch.id);
        assert!(decode(&bsp) > 0);
        assert_clean(&bsp, branch.id);
        let stats = bspkit::stats::stats(&bsp);
        assert_eq!(stat(&stats, "lightmaps").count, Some(1), "{}", branch.id);
        assert_eq!(stat(&stats, "drawverts").count, Some(4));
        assert_eq!(stat(&stats, "drawverts").bytes, 4 * 80);
        assert_eq!(stat(&stats, "total").bytes, bytes.len() as u64);
        fn triangles<L: quake3::Layout>(bsp: &Bsp) -> (usize, Vec<i32>) {
            let v = quake3::View::<L>::new(bsp).unwrap();
            let s = &v.surfaces().unwrap()[0];
            (v.surface_vertices(s).unwrap().len(), v.surface_indices(s).unwrap().iter().map(|i| i.get()).collect())
        }
        let tris = match branch.id {
            "rbsp" => triangles::<quake3::Rbsp>(&bsp),
            "fbsp" => triangles::<quake3::Fbsp>(&bsp),
            _ => triangles::<quake3::Ibsp>(&bsp),
        };
        assert_eq!(tris, (4, vec![0, 1, 2, 0, 2, 3]));
        // worldspawn's gridsize 128 128 64 over the ±64 world gives 1 × 1 × 3 cells: three
        // points (IBSP) or three light-array entries naming two points (RBSP / FBSP).
        assert_eq!(quake3::grid_dimensions(&bsp), Some([1, 1, 3]));
        assert_eq!((stat(&stats, "lightgrid").count, stat(&stats, "lightgrid").bytes), (Some(3), 3 * 30));

        let bad = q3_map(branch, true);
        let problems = bspkit::check::check(&Bsp::from_bytes(&bad).unwrap());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!((problems[0].lump.as_str(), problems[0].index), ("13 (FACES)", Some(0)));
    }
}

// ---------------------------------------------------------------------------------------
// Damaged input

/// Every typed accessor and visibility row, ignoring errors: used on damaged maps, where only
/// a panic is a failure.
fn touch_everything(bsp: &Bsp) {
    fn q2<L: quake2::Layout>(bsp: &Bsp) {
        let Ok(v) = quake2::View::<L>::new(bsp) else { return };
        let _ = (v.planes(), v.vertices(), v.nodes(), v.texinfo(), v.faces(), v.lighting(), v.leaves());
        let _ = (v.leaf_faces(), v.leaf_brushes(), v.edges(), v.surfedges(), v.models(), v.brushes());
        let _ = (v.brush_sides(), v.areas(), v.area_portals());
        let mut pts = Vec::new();
        for f in v.faces().unwrap_or(&[]).iter().take(64) {
            let _ = v.face_points(f, &mut pts);
        }
        if let Ok(vis) = v.visibility() {
            let mut row = Vec::new();
            for c in 0..vis.num_clusters.min(64) {
                let _ = vis.row(c, VisKind::Pvs, &mut row);
                let _ = vis.can_see(c, c + 1, VisKind::Pas);
            }
        }
    }
    fn q3<L: quake3::Layout>(bsp: &Bsp) {
        let Ok(v) = quake3::View::<L>::new(bsp) else { return };
        let _ = (v.shaders(), v.planes(), v.nodes(), v.leaves(), v.leaf_surfaces(), v.leaf_brushes(), v.models());
        let _ = (v.brushes(), v.brush_sides(), v.draw_vertices(), v.draw_indices(), v.fogs(), v.surfaces());
        let _ = (v.lightmaps(), v.light_grid(), v.light_array(), quake3::grid_dimensions(bsp));
        for s in v.surfaces().unwrap_or(&[]).iter().take(64) {
            let _ = (v.surface_vertices(s), v.surface_indices(s));
        }
        if let Ok(vis) = v.visibility() {
            for c in 0..vis.n_vecs.min(64) {
                let _ = vis.visible(c, c + 1);
            }
        }
    }
    match bsp.branch().id {
        "quake2" => q2::<quake2::Ibsp>(bsp),
        "qbism" => q2::<quake2::Qbism>(bsp),
        "quake3" | "ibsp47" => q3::<quake3::Ibsp>(bsp),
        "rbsp" => q3::<quake3::Rbsp>(bsp),
        "fbsp" => q3::<quake3::Fbsp>(bsp),
        _ => {}
    }
    let _ = bspkit::check::check(bsp);
    let _ = bspkit::stats::stats(bsp);
}

#[test]
fn damaged_maps_never_panic() {
    let mut maps = vec![
        q2_map(&quake2::QUAKE2, false),
        q2_map(&quake2::QBISM, false),
        q3_map(&quake3::QUAKE3, false),
        q3_map(&quake3::IBSP47, false),
        q3_map(&quake3::QUAKELIVE, false),
        q3_map(&quake3::RBSP, false),
        q3_map(&quake3::FBSP, false),
    ];
    if let Some(corpus) = common::corpus("damaged_maps_never_panic (corpus part)") {
        for m in common::maps_in(&corpus, "quake2").into_iter().chain(common::maps_in(&corpus, "quake3")) {
            if std::fs::metadata(&m.path).map(|md| md.len() < 120_000).unwrap_or(false) {
                maps.push(std::fs::read(&m.path).unwrap());
            }
        }
    }
    // A fixed xorshift sequence: the same damage on every run.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut opened = 0;
    for base in &maps {
        // Most records sit before the big lightmap lump of the builder maps.
        let hot = base.len().min(8192);
        for round in 0..300 {
            let mut m = base.clone();
            if round % 10 == 9 {
                m.truncate((next() % base.len() as u64) as usize);
            } else {
                for _ in 0..1 + next() % 4 {
                    let pos = (next() % hot as u64) as usize;
                    m[pos] = [0x00, 0xff, 0x7f, 0x80, next() as u8][(next() % 5) as usize];
                }
            }
            if let Ok(bsp) = Bsp::from_bytes(&m) {
                touch_everything(&bsp);
                opened += 1;
            }
        }
    }
    assert!(opened > maps.len() * 100, "only {opened} damaged maps opened");
}

/// IBSP 47 is RTCW / ET or Quake Live: only a non-empty 18th directory entry (advertisements)
/// makes it Quake Live; q3map2's empty 18th entry does not.
#[test]
fn quake_live_is_told_from_rtcw_by_its_advertisements() {
    let ql = q3_map(&quake3::QUAKELIVE, false);
    let bsp = Bsp::from_bytes(&ql).unwrap();
    assert_eq!(bsp.branch().id, "quakelive");
    assert!(bsp.detection().why.iter().any(|w| w.contains("2 128-byte advertisements")), "{:?}", bsp.detection().why);
    let ads: &[quake3::Advertisement] = bsp.records(quake3::LUMP_ADVERTISEMENTS).unwrap();
    assert_eq!((ads.len(), ads[1].cell_id.get(), ads[1].model().as_ref()), (2, 7, "*0"));
    let rtcw = q3_map(&quake3::IBSP47, false);
    let bsp = Bsp::from_bytes(&rtcw).unwrap();
    assert_eq!(bsp.branch().id, "ibsp47");
    assert!(bsp.detection().runners_up.iter().any(|(b, _)| *b == "quakelive"));
    // An 18-entry header whose last entry is empty (as q3map2 writes every IBSP) is RTCW / ET.
    let mut empty_ads = ql.clone();
    let entry = 8 + 8 * quake3::LUMP_ADVERTISEMENTS;
    empty_ads[entry + 4..entry + 8].copy_from_slice(&0i32.to_le_bytes());
    assert_eq!(Bsp::from_bytes(&empty_ads).unwrap().branch().id, "ibsp47");
    // A Quake Live map read as RTCW (by --branch) still opens; the writer keeps it byte for byte.
    let forced = Bsp::from_bytes_with(&ql, &bspkit::OpenOptions { branch: Some("ibsp47".into()), ..Default::default() }).unwrap();
    assert_eq!(forced.branch().id, "ibsp47");
    let bsp = Bsp::from_bytes(&ql).unwrap();
    assert_eq!(bspkit::edit::Editor::new(&bsp).unwrap().to_bytes().unwrap(), ql);
}

/// Issue 22: real Warfork maps carry garbage in the brush sides' surface field past a growth of
/// q3map2's side array (1024, 2048, ... sides: values such as -16777148 or 776328744). The
/// qfusion engines never read the field, so FBSP reports one note naming the reason. Real Jedi
/// Academy maps carry the same garbage (cmp_ctf_kothis, docs/real-maps.md) and Raven's engines
/// never read it either (OpenJK's CMod_LoadBrushSides), so RBSP reports the same note; Quake 3
/// keeps the error.
#[test]
fn fbsp_side_surfaces_past_a_growth_boundary_are_one_note() {
    use quake3::*;
    for branch in [&quake3::FBSP, &quake3::RBSP, &quake3::QUAKE3] {
        let bytes = q3_map(branch, false);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        // 2100 sides: the first 1024 as the compiler wrote them (-1: no surface made from the
        // side, or the map's one surface), the rest uninitialised memory.
        let garbage = [-16777148, 776328744, 0x4d54474d, 0];
        let sides: Vec<BrushSideRbsp> = (0..2100)
            .map(|i: i32| {
                let surface = if i < 1024 { [-1, 0][i as usize % 2] } else { garbage[i as usize % garbage.len()] };
                BrushSideRbsp { plane: I32::new(i % 6), shader: I32::new(0), surface: I32::new(surface) }
            })
            .collect();
        let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
        if branch.id == "quake3" {
            // Quake 3's 8-byte side has no surface field: its shader takes the garbage.
            let q3: Vec<u8> = sides.iter().flat_map(|s| i32s(&[s.plane.get(), s.surface.get()])).collect();
            ed.set_lump(LUMP_BRUSH_SIDES, q3).unwrap();
            let problems = bspkit::check::check(&Bsp::from_bytes(&ed.to_bytes().unwrap()).unwrap());
            assert!(!problems.is_empty() && problems.iter().all(|p| p.code.as_str() == "index_out_of_range"), "{problems:?}");
            continue;
        }
        ed.set_lump(LUMP_BRUSH_SIDES, cat(&sides)).unwrap();
        let grown = ed.to_bytes().unwrap();
        let problems = bspkit::check::check(&Bsp::from_bytes(&grown).unwrap());
        // Every fourth garbage value (0) happens to be the map's one surface: not reported.
        let out_of_range = (1024..2100).filter(|i| garbage[i % 4] != 0).count();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!((p.code.as_str(), p.severity), ("unread_side_surface", bspkit::check::Severity::Note));
        assert_eq!((p.lump.as_str(), p.index), ("9 (BRUSH_SIDES)", Some(1024)));
        assert!(p.message.starts_with(&format!("{out_of_range} brush side(s)")), "{}", p.message);
        assert!(p.message.contains("-16777148") && p.message.contains("never read"), "{}", p.message);
        let engines = if branch.id == "fbsp" { "qfusion" } else { "CMod_LoadBrushSides" };
        assert!(p.message.contains(engines), "{}", p.message);
    }
}

/// A real Quake 3 map (mvctf01, docs/real-maps.md) has 42 patch surfaces whose draw indexes hold
/// 1098907648 (the bits of the float 16.0). Engines build a patch from its control grid and never
/// read its indexes, so those are one note; the same indexes on a planar surface stay an error.
#[test]
fn patch_indexes_outside_the_patch_are_one_note() {
    use quake3::*;
    let bytes = q3_map(&quake3::QUAKE3, false);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let garbage = i32s(&[0x4180_0000, 0, 0, 0, 0, 0x4180_0000]);
    for (kind, expect_note) in [(2, true), (1, false)] {
        let mut s = bsp.records::<Surface>(LUMP_SURFACES).unwrap()[0];
        s.surface_type = I32::new(kind);
        (s.patch_width, s.patch_height) = (I32::new(2), I32::new(2));
        let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
        ed.set_lump(LUMP_SURFACES, s.as_bytes().to_vec()).unwrap();
        ed.set_lump(LUMP_DRAW_INDICES, garbage.clone()).unwrap();
        let edited = ed.to_bytes().unwrap();
        let problems = bspkit::check::check(&Bsp::from_bytes(&edited).unwrap());
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        if expect_note {
            assert_eq!((p.code.as_str(), p.severity), ("unread_patch_indexes", bspkit::check::Severity::Note));
            assert_eq!(p.index, Some(0));
            assert!(p.message.starts_with("1 patch surface(s)") && p.message.contains("drawindex 0 = 1098907648"), "{}", p.message);
        } else {
            assert_eq!((p.code.as_str(), p.severity), ("index_out_of_range", bspkit::check::Severity::Error));
        }
    }
}
