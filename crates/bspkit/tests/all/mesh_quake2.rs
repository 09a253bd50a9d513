//! The scene model of Quake 2-family maps: every corpus map builds; every face is in exactly
//! one surface or listed as skipped; each polygon's triangles cover the polygon's area
//! (computed here from the raw face, surfedge, edge and vertex records) and face the way its
//! plane does; normals are unit length; lightmap UVs land in their pages. Builder maps of all
//! five branches (Quake 2, Qbism, SiN, Soldier of Fortune, Daikatana) give the expected
//! surfaces, flags and model placement, and a broken edge index gives a skipped face.

use crate::common;

use bspkit::branch::Branch;
use bspkit::branches::quake2::{self, FaceRecord, Layout};
use bspkit::build::BspBuilder;
use bspkit::lightmap::{self, LightOptions};
use bspkit::mesh::{self, MeshOptions, ModelSelect, Scene, SurfaceFlags, SurfaceKind, FALLBACK_TEXTURE_SIZE};
use bspkit::Bsp;
use common::mesh::{cross, dot, f64s, is_convex, len, polygon_area, sub};
use zerocopy::byteorder::{F32, I16, I32, U16, U32};
use zerocopy::{FromZeros, IntoBytes};

/// A face's corners and front plane (normal, distance) straight from the records, or `None`
/// if a reference is broken.
fn raw_face<L: Layout>(view: &quake2::View<L>, i: usize) -> Option<(Vec<[f64; 3]>, [f64; 3], f64)> {
    let f = &view.faces().ok()?[i];
    let (first, n) = f.edge_range();
    let (surfedges, edges, vertices) = (view.surfedges().ok()?, view.edges().ok()?, view.vertices().ok()?);
    let mut out = Vec::new();
    for k in 0..n {
        let se = surfedges.get(usize::try_from(first + k).ok()?)?.get() as i64;
        let edge = edges.get(se.unsigned_abs() as usize)?;
        use quake2::EdgeRecord;
        let v = edge.vertices()[usize::from(se < 0)];
        out.push(vertices.get(usize::try_from(v).ok()?)?.point.map(|c| c.get() as f64));
    }
    let plane = view.planes().ok()?.get(usize::try_from(f.plane()).ok()?)?;
    let (n, d) = (plane.normal.map(|c| c.get() as f64), plane.dist.get() as f64);
    Some(if f.side() != 0 { (out, n.map(|c| -c), -d) } else { (out, n, d) })
}

/// A triangle faces the way its plane does, as far as its corners lie on the plane: compilers
/// round corners (and add some on the polygon's edges), so a corner can sit a fraction of a
/// unit off the plane. With the corners within `off` of the plane, the triangle's normal can
/// tilt by at most `asin((2·off + ε) / h)`, `h` its smallest altitude; where that bound is
/// below 1 the triangle cannot have flipped, so it must also be on the plane's front. Slivers
/// whose altitude is under the corners' offsets are rounding noise and only count towards the
/// surface's sum. Returns the triangle's area vector.
fn check_triangle(name: &str, model: usize, face: u32, corners: [[f64; 3]; 3], plane: ([f64; 3], f64)) -> [f64; 3] {
    let [a, b, c] = corners;
    let (normal, dist) = plane;
    let n = cross(sub(b, a), sub(c, a));
    let longest = len(sub(b, a)).max(len(sub(c, b))).max(len(sub(a, c)));
    let altitude = if longest > 0.0 { len(n) / longest } else { 0.0 };
    let off = corners.iter().map(|p| (dot(*p, normal) - dist).abs()).fold(0.0, f64::max);
    let bound = (2.0 * off + 1e-4 * longest.max(1.0)) / altitude.max(1e-300);
    if bound < 1.0 {
        let cos = dot(n, normal) / len(n) / len(normal);
        let sin = len(cross(n, normal)) / len(n) / len(normal);
        assert!(cos > 0.0, "{name}: model {model} face {face} triangle is wound against its plane: cos {cos}");
        assert!(
            sin <= bound,
            "{name}: model {model} face {face} triangle tilts {sin} (sine) off its plane, corners {off} off allow {bound}"
        );
    }
    n
}

/// Where each face ended up: its model and surface, counted.
fn face_places(scene: &Scene, lump: u16, faces: usize) -> Vec<Vec<(usize, usize)>> {
    let mut at = vec![Vec::new(); faces];
    for (mi, m) in scene.models.iter().enumerate() {
        for (si, s) in m.surfaces.iter().enumerate() {
            assert_eq!(s.lump, lump);
            at[s.index as usize].push((mi, si));
        }
    }
    at
}

/// Check a scene against the raw records; returns (surfaces, triangles, skipped).
fn check_scene<L: Layout>(name: &str, bsp: &Bsp, scene: &Scene) -> (usize, usize, usize) {
    let mut bent = 0;
    let view = quake2::View::<L>::new(bsp).unwrap();
    let faces = view.faces().unwrap().len();
    let at = face_places(scene, quake2::LUMP_FACES as u16, faces);
    let mut skipped = vec![0usize; faces];
    for s in &scene.skipped {
        assert_eq!(s.lump, quake2::LUMP_FACES as u16, "{name}: skipped lump");
        skipped[s.index as usize] += 1;
    }
    for i in 0..faces {
        assert_eq!(at[i].len() + skipped[i], 1, "{name}: face {i} is in {} surfaces and skipped {} times", at[i].len(), skipped[i]);
    }
    for (mi, m) in scene.models.iter().enumerate() {
        let v = &m.vertices;
        assert_eq!(v.normals.len(), v.len(), "{name}: normals");
        assert_eq!(v.uv0.len(), v.len(), "{name}: uv0");
        assert!(v.colours.is_empty(), "{name}: Quake 2 has no vertex colours");
        assert!(m.indices.iter().all(|&i| (i as usize) < v.len()), "{name}: index out of range");
        for n in &v.normals {
            assert!((len(f64s(*n)) - 1.0).abs() < 1e-5, "{name}: normal {n:?} is not unit length");
        }
        for s in &m.surfaces {
            assert_eq!(s.kind, SurfaceKind::Polygon);
            assert!((s.material as usize) < scene.materials.len());
            let (corners, normal, dist) =
                raw_face(&view, s.index as usize).unwrap_or_else(|| panic!("{name}: face {} built but broken", s.index));
            assert_eq!((s.vertices.end - s.vertices.start) as usize, corners.len(), "{name}: face {} corners", s.index);
            assert_eq!((s.indices.end - s.indices.start) as usize, 3 * (corners.len() - 2), "{name}: face {} triangles", s.index);
            for (k, c) in corners.iter().enumerate() {
                assert_eq!(f64s(v.positions[s.vertices.start as usize + k]), *c, "{name}: face {} corner {k}", s.index);
            }
            let want = polygon_area(&corners);
            let mut got = 0.0;
            let mut sum = [0.0; 3];
            let mut convex = true;
            // Triangles are checked one by one on convex polygons; a few compiled faces turn
            // back on themselves (a corner listed twice), and there only the sums below hold.
            let simple = is_convex(&corners, normal);
            bent += usize::from(!simple);
            for t in m.indices[s.indices.start as usize..s.indices.end as usize].chunks(3) {
                assert!(t.iter().all(|&i| s.vertices.contains(&i)), "{name}: face {} uses another face's vertex", s.index);
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| f64s(v.positions[i as usize]));
                let n = cross(sub(b, a), sub(c, a));
                got += len(n) / 2.0;
                convex &= dot(n, normal) > 0.0;
                let n = if simple { check_triangle(name, mi, s.index, [a, b, c], (normal, dist)) } else { cross(sub(b, a), sub(c, a)) };
                sum = [sum[0] + n[0], sum[1] + n[1], sum[2] + n[2]];
            }
            // Together the triangles face the plane's front; within 2.6° of its normal unless a
            // corner is off the plane (one corpus face has a corner 2.2 units off).
            let off = corners.iter().map(|p| (dot(*p, normal) - dist).abs()).fold(0.0, f64::max);
            if len(sum) > 1e-3 {
                let cos = dot(sum, normal) / len(sum) / len(normal);
                let least = if off <= 1e-3 { 0.999 } else { 0.0 };
                assert!(cos > least, "{name}: model {mi} face {} triangles together face {cos} off the plane", s.index);
            }
            // The triangles' vector area is the polygon's (Newell's) for any closed polygon, so a
            // missing, doubled or reversed triangle shows. Their plain total is the polygon's too
            // when the polygon is flat and every triangle faces front; compilers' rounding can
            // lift a corner off the plane or push an edge corner (T-junction fix) just outside
            // the edge, which leaves a sliver facing back.
            let close = |got: f64| (got - want).abs() <= 1e-4 * want || (got - want).abs() < 1e-6;
            assert!(close(len(sum) / 2.0), "{name}: face {} vector area {} against {want}", s.index, len(sum) / 2.0);
            if off <= 1e-3 && convex {
                assert!(close(got), "{name}: face {} area {got} against {want}", s.index);
            } else {
                bent += 1;
            }
        }
    }
    if bent > 0 {
        eprintln!("{name}: {bent} times a face is not convex, bent (a corner over 0.001 unit off its plane) or has a back-facing sliver");
    }
    (scene.surface_count(), scene.triangle_count(), scene.skipped.len())
}

fn corpus_maps(folder: &str) -> Vec<common::CorpusMap> {
    let Some(dir) = common::corpus("mesh_quake2") else { return Vec::new() };
    common::maps_in(&dir, folder)
}

/// Every Quake 2-family corpus map builds, and its scene agrees with its records.
#[test]
fn corpus_maps_build() {
    let maps = corpus_maps("quake2");
    for m in &maps {
        let bsp = Bsp::open(&m.path).unwrap();
        let name = m.path.file_name().unwrap().to_string_lossy().to_string();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let (s, t, k) = match bsp.branch().id {
            "qbism" => check_scene::<quake2::Qbism>(&name, &bsp, &scene),
            _ => check_scene::<quake2::Ibsp>(&name, &bsp, &scene),
        };
        let models = bsp.lump(quake2::LUMP_MODELS).unwrap().len() / 48;
        assert_eq!(scene.models.len(), models, "{name}: every model built");
        assert_eq!(scene.models[0].name, "world");
        assert!(t > 0, "{name}: no triangles");
        // No sizes were given, so every texture fell back, and one warning says so.
        assert!(scene.materials.iter().all(|m| m.size.is_none()));
        let fell_back: Vec<_> = scene.warnings.iter().filter(|w| w.contains("no known size")).collect();
        assert_eq!(fell_back.len(), 1, "{name}: {:?}", scene.warnings);
        assert!(fell_back[0].starts_with(&format!("{} of {} textures", scene.materials.len(), scene.materials.len())));
        for k in &scene.skipped {
            eprintln!("{name}: skipped face {}: {}", k.index, k.reason);
        }
        eprintln!("{name}: {} models, {s} surfaces, {t} triangles, {k} skipped, {} materials", scene.models.len(), scene.materials.len());
    }
}

/// Texture sizes from the caller divide the UVs; the fallback otherwise.
#[test]
fn texture_sizes_divide_uvs() {
    let Some(m) = corpus_maps("quake2").into_iter().next() else { return };
    let bsp = Bsp::open(&m.path).unwrap();
    let plain = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    let size = |_: &str| Some([128u32, 32]);
    let sized = mesh::build(&bsp, &MeshOptions { texture_size: Some(&size), ..Default::default() }).unwrap();
    assert!(sized.warnings.iter().all(|w| !w.contains("no known size")));
    assert!(sized.materials.iter().all(|m| m.size == Some([128, 32])));
    let (a, b) = (&plain.models[0].vertices.uv0, &sized.models[0].vertices.uv0);
    assert_eq!(a.len(), b.len());
    let (fx, fy) = (FALLBACK_TEXTURE_SIZE[0] as f32, FALLBACK_TEXTURE_SIZE[1] as f32);
    for (p, s) in a.iter().zip(b) {
        assert!((p[0] * fx - s[0] * 128.0).abs() <= 1e-3 * (1.0 + (p[0] * fx).abs()), "{p:?} {s:?}");
        assert!((p[1] * fy - s[1] * 32.0).abs() <= 1e-3 * (1.0 + (p[1] * fy).abs()), "{p:?} {s:?}");
    }
}

/// With lightmaps, every vertex has a UV1 and every surface a page; lit faces' UVs fall inside
/// their page and their face's rectangle.
#[test]
fn corpus_lightmap_uvs() {
    for m in corpus_maps("quake2") {
        let bsp = Bsp::open(&m.path).unwrap();
        let name = m.path.file_name().unwrap().to_string_lossy().to_string();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        let mut lit = 0;
        for model in &scene.models {
            assert_eq!(model.vertices.uv1.len(), model.vertices.len(), "{name}: uv1");
            assert_eq!(model.lightmap_pages.len(), model.surfaces.len(), "{name}: pages");
            for (s, &page) in model.surfaces.iter().zip(&model.lightmap_pages) {
                let Some(e) = lm.face(s.lump, s.index) else {
                    assert_eq!(page, u32::MAX, "{name}: unlit face {} has a page", s.index);
                    continue;
                };
                lit += 1;
                assert_eq!(page, e.page);
                let [pw, ph] = lm.pages[page as usize];
                for uv in &model.vertices.uv1[s.vertices.start as usize..s.vertices.end as usize] {
                    let (x, y) = (uv[0] * pw as f32, uv[1] * ph as f32);
                    // Corners lie on the luxel grid's outer edge: within half a luxel of the rectangle.
                    assert!(x >= e.x as f32 - 0.01 && x <= (e.x + e.width) as f32 + 0.01, "{name}: face {} u {x}", s.index);
                    assert!(y >= e.y as f32 - 0.01 && y <= (e.y + e.height) as f32 + 0.01, "{name}: face {} v {y}", s.index);
                }
            }
        }
        assert_eq!(lit, lm.faces.len(), "{name}: every lit face is a surface");
        eprintln!("{name}: {lit} lit surfaces on {} pages", lm.pages.len());
    }
}

// ---- builder maps of every branch -----------------------------------------------------------

const ENTS: &[u8] = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n\"targetname\" \"door1\"\n\"origin\" \"8 16 32\"\n\"angles\" \"0 90 0\"\n\"angle\" \"-1\"\n}\n\0";

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The unit cube's eight corners scaled by 64, and the six sides as corner lists, wound
/// clockwise seen from outside (as Quake compilers store them), each with its outward plane.
const CUBE: [[f32; 3]; 8] =
    [[0., 0., 0.], [64., 0., 0.], [64., 64., 0.], [0., 64., 0.], [0., 0., 64.], [64., 0., 64.], [64., 64., 64.], [0., 64., 64.]];
const SIDES: [([usize; 4], [f32; 4]); 6] = [
    ([0, 1, 2, 3], [0., 0., -1., 0.]),
    ([4, 7, 6, 5], [0., 0., 1., 64.]),
    ([0, 4, 5, 1], [0., -1., 0., 0.]),
    ([2, 6, 7, 3], [0., 1., 0., 64.]),
    ([1, 5, 6, 2], [1., 0., 0., 64.]),
    ([0, 3, 7, 4], [-1., 0., 0., 0.]),
];

/// The four texinfos of the test map: a wall, a sky, the branch's see-through kind and a
/// trigger; with the flags the scene must give them.
fn texinfos(branch: &str) -> (Vec<u8>, [SurfaceFlags; 4]) {
    let names: [&[u8]; 4] = [b"base/wall", b"base/sky", b"base/glass", b"base/trigger"];
    let (flags, see) = match branch {
        "sin" => ([0, 0x4, 0x2, 0], SurfaceFlags::ALPHA_TEST | SurfaceFlags::TRANSLUCENT),
        "sof" => ([0, 0x4, 0x800, 0], SurfaceFlags::ALPHA_TEST),
        "daikatana" => ([0, 0x4, 0x4_0000, 0], SurfaceFlags::TRANSLUCENT),
        _ => ([0, 0x4, 0x20, 0], SurfaceFlags::TRANSLUCENT),
    };
    let vecs = [[1f32, 0., 0., 0.], [0., -1., 0., 0.]].map(|r| r.map(F32::new));
    let mut out = Vec::new();
    for (k, name) in names.iter().enumerate() {
        if branch == "sin" {
            let mut t = quake2::TexInfoSin::new_zeroed();
            t.vecs = vecs;
            t.flags = I32::new(flags[k]);
            t.texture[..name.len()].copy_from_slice(name);
            t.next_texinfo = I32::new(-1);
            if k == 2 {
                t.translucence = F32::new(0.5);
            }
            out.extend_from_slice(t.as_bytes());
        } else {
            let mut t = quake2::TexInfo::new_zeroed();
            t.vecs = vecs;
            t.flags = I32::new(flags[k]);
            t.texture[..name.len()].copy_from_slice(name);
            t.next_texinfo = I32::new(-1);
            out.extend_from_slice(t.as_bytes());
        }
    }
    (out, [SurfaceFlags::NONE, SurfaceFlags::SKY, see, SurfaceFlags::TRIGGER])
}

/// One face record of `branch`.
fn face(branch: &str, plane: u16, side: i16, first_edge: i32, num_edges: i16, texinfo: i16) -> Vec<u8> {
    macro_rules! q2face {
        ($t:ty) => {{
            let mut f = <$t>::new_zeroed();
            f.plane = U16::new(plane);
            f.side = I16::new(side);
            f.first_edge = I32::new(first_edge);
            f.num_edges = I16::new(num_edges);
            f.texinfo = I16::new(texinfo);
            f.light_offset = I32::new(-1);
            f.as_bytes().to_vec()
        }};
    }
    match branch {
        "sin" => q2face!(quake2::FaceSin),
        "sof" => q2face!(quake2::FaceSof),
        "qbism" => {
            let mut f = quake2::FaceQbism::new_zeroed();
            f.plane = U32::new(plane as u32);
            f.side = I32::new(side as i32);
            f.first_edge = I32::new(first_edge);
            f.num_edges = I32::new(num_edges as i32);
            f.texinfo = I32::new(texinfo as i32);
            f.light_offset = I32::new(-1);
            f.as_bytes().to_vec()
        }
        _ => q2face!(quake2::Face),
    }
}

/// A cube of six faces (model 0) and a quad door (model 1, placed by a `func_door`), in
/// `branch`'s layouts. Face 2 (the cube's −Y side) is stored on its plane's back side.
fn cube_map(branch: &'static Branch) -> Vec<u8> {
    let id = branch.id;
    let mut planes = Vec::new();
    let mut edges: Vec<[u32; 2]> = vec![[0, 0]];
    let mut surfedges = Vec::new();
    let mut faces = Vec::new();
    let mut verts: Vec<[f32; 3]> = CUBE.to_vec();
    let (texinfo, _) = texinfos(id);
    let mut add_face = |corners: &[usize], plane: [f32; 4], texinfo: i16, back: bool| {
        let p = (planes.len() / 20) as u16;
        let stored = if back { plane.map(|c| -c) } else { plane };
        planes.extend_from_slice(
            quake2::Plane { normal: [stored[0], stored[1], stored[2]].map(F32::new), dist: F32::new(stored[3]), kind: I32::new(0) }
                .as_bytes(),
        );
        let first = surfedges.len() as i32;
        for k in 0..corners.len() {
            let (a, b) = (corners[k] as u32, corners[(k + 1) % corners.len()] as u32);
            // Use every other edge backwards, as compilers share edges between faces.
            if k % 2 == 0 {
                edges.push([a, b]);
                surfedges.push(edges.len() as i32 - 1);
            } else {
                edges.push([b, a]);
                surfedges.push(-(edges.len() as i32 - 1));
            }
        }
        faces.extend(face(id, p, i16::from(back), first, corners.len() as i16, texinfo));
    };
    for (k, (corners, plane)) in SIDES.iter().enumerate() {
        // Face 2 is stored on the back of a plane that faces inwards.
        add_face(corners, *plane, [0, 1, 2, 3, 0, 0][k], k == 2);
    }
    // The door: a quad at x = 100 facing +x.
    verts.extend([[100., 0., 0.], [100., 0., 32.], [100., 16., 32.], [100., 16., 0.]]);
    add_face(&[8, 9, 10, 11], [1., 0., 0., 100.], 0, false);
    let edge_bytes: Vec<u8> = if id == "qbism" {
        edges.iter().flat_map(|e| quake2::EdgeQbism { v: e.map(U32::new) }.as_bytes().to_vec()).collect()
    } else {
        edges.iter().flat_map(|e| quake2::Edge { v: e.map(|v| U16::new(v as u16)) }.as_bytes().to_vec()).collect()
    };
    let mut models = Vec::new();
    for (first, n) in [(0, 6), (6, 1)] {
        let mut m = quake2::Model::new_zeroed();
        m.first_face = I32::new(first);
        m.num_faces = I32::new(n);
        models.extend_from_slice(m.as_bytes());
    }
    BspBuilder::new(branch)
        .lump(quake2::LUMP_ENTITIES, ENTS)
        .lump(quake2::LUMP_PLANES, planes)
        .lump(
            quake2::LUMP_VERTICES,
            verts.iter().flat_map(|v| quake2::Vertex { point: v.map(F32::new) }.as_bytes().to_vec()).collect::<Vec<u8>>(),
        )
        .lump(quake2::LUMP_TEXINFO, texinfo)
        .lump(quake2::LUMP_FACES, faces)
        .lump(quake2::LUMP_EDGES, edge_bytes)
        .lump(quake2::LUMP_SURFEDGES, i32s(&surfedges))
        .lump(quake2::LUMP_MODELS, models)
        .build()
}

const BRANCHES: [&Branch; 5] = [&quake2::QUAKE2, &quake2::QBISM, &quake2::SIN, &quake2::SOF, &quake2::DAIKATANA];

fn check_any(name: &str, bsp: &Bsp, scene: &Scene) -> (usize, usize, usize) {
    match bsp.branch().id {
        "qbism" => check_scene::<quake2::Qbism>(name, bsp, scene),
        "sin" => check_scene::<quake2::Sin>(name, bsp, scene),
        "sof" => check_scene::<quake2::Sof>(name, bsp, scene),
        "daikatana" => check_scene::<quake2::Daikatana>(name, bsp, scene),
        _ => check_scene::<quake2::Ibsp>(name, bsp, scene),
    }
}

/// Each branch's cube map: seven quads in two models, the flags each branch's texinfo bits
/// mean, the door placed by its entity, UVs from the texinfo axes.
#[test]
fn builder_maps_of_every_branch() {
    for branch in BRANCHES {
        let bytes = cube_map(branch);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bsp.branch().id, branch.id, "detected as its own branch");
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let name = branch.id;
        assert_eq!(check_any(name, &bsp, &scene), (7, 14, 0), "{name}");
        assert_eq!(scene.models.len(), 2);
        let (world, door) = (&scene.models[0], &scene.models[1]);
        assert_eq!((world.name.as_str(), world.entity), ("world", Some(0)));
        assert_eq!((door.name.as_str(), door.entity, door.index), ("*1 func_door door1", Some(1), 1));
        assert_eq!(door.origin, [8.0, 16.0, 32.0]);
        assert_eq!(door.angles, [0.0, 90.0, 0.0], "{name}: angles from `angles`, not the move direction `angle`");
        let (_, want) = texinfos(name);
        for (k, s) in world.surfaces.iter().enumerate() {
            let t = [0, 1, 2, 3, 0, 0][k];
            assert_eq!(s.flags, want[t], "{name}: face {k} flags");
            assert_eq!(scene.materials[s.material as usize].name, ["base/wall", "base/sky", "base/glass", "base/trigger"][t]);
        }
        // Outward normals, the back-side face included.
        for (k, s) in world.surfaces.iter().enumerate() {
            let p = SIDES[k].1;
            assert_eq!(world.vertices.normals[s.vertices.start as usize], [p[0], p[1], p[2]], "{name}: face {k} normal");
        }
        // uv0 = (x, -y) / 64.
        for (p, uv) in world.vertices.positions.iter().zip(&world.vertices.uv0) {
            assert_eq!(*uv, [p[0] / 64.0, -p[1] / 64.0]);
        }
        assert_eq!(door.surfaces[0].flags, SurfaceFlags::NONE);
        // Materials carry the flags all their surfaces share: the wall is on five faces.
        let wall = scene.materials.iter().find(|m| m.name == "base/wall").unwrap();
        assert_eq!(wall.flags, SurfaceFlags::NONE);
        assert_eq!(scene.materials.iter().find(|m| m.name == "base/sky").unwrap().flags, SurfaceFlags::SKY);
        // The world alone.
        let world_only = mesh::build(&bsp, &MeshOptions { models: ModelSelect::World, ..Default::default() }).unwrap();
        assert_eq!((world_only.models.len(), world_only.surface_count(), world_only.skipped.len()), (1, 6, 0));
    }
}

/// A surfedge naming an edge past the edges lump skips that face (with the reason), keeps the
/// others, and neither fails nor panics; so do a bad plane, a bad texinfo and a face outside
/// every model. A face two models claim stays in the first (with a warning).
#[test]
fn broken_references_are_skipped() {
    for branch in BRANCHES {
        let name = branch.id;
        let bytes = cube_map(branch);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let surfedges_at = bsp.entry(quake2::LUMP_SURFEDGES).unwrap().offset as usize;
        let mut broken = bytes.clone();
        // Face 1's second corner: surfedges 4..8.
        broken[surfedges_at + 5 * 4..surfedges_at + 6 * 4].copy_from_slice(&40_000i32.to_le_bytes());
        let bsp = Bsp::from_bytes(&broken).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        assert_eq!(scene.skipped.len(), 1, "{name}: {:?}", scene.skipped);
        let k = &scene.skipped[0];
        assert_eq!((k.lump, k.index), (quake2::LUMP_FACES as u16, 1));
        assert!(k.reason.contains("40000"), "{name}: {}", k.reason);
        assert_eq!(check_any(name, &bsp, &scene), (6, 12, 1));

        // A plane and a texinfo out of range, and model 1 claiming faces of model 0.
        let faces_at = bsp.entry(quake2::LUMP_FACES).unwrap().offset as usize;
        let size = face(name, 0, 0, 0, 0, 0).len();
        let mut broken = bytes.clone();
        broken[faces_at + 3 * size..faces_at + 4 * size].copy_from_slice(&face(name, 999, 0, 12, 4, 0));
        broken[faces_at + 4 * size..faces_at + 5 * size].copy_from_slice(&face(name, 4, 0, 16, 4, 77));
        let models_at = bsp.entry(quake2::LUMP_MODELS).unwrap().offset as usize;
        broken[models_at + 48 + 40..models_at + 48 + 48].copy_from_slice(&i32s(&[5, 1]));
        let bsp = Bsp::from_bytes(&broken).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let reasons: Vec<(u32, &str)> = scene.skipped.iter().map(|s| (s.index, s.reason.as_str())).collect();
        assert_eq!(reasons.len(), 3, "{name}: {reasons:?}");
        assert!(reasons[0].0 == 3 && reasons[0].1.contains("plane 999"), "{name}: {reasons:?}");
        assert!(reasons[1].0 == 4 && reasons[1].1.contains("texinfo 77"), "{name}: {reasons:?}");
        assert!(reasons[2].0 == 6 && reasons[2].1.contains("in no model"), "{name}: {reasons:?}");
        // Face 5 stays in the world; model 1's claim on it is a warning.
        assert!(scene.warnings.iter().any(|w| w.contains("model 1") && w.contains("already")), "{name}: {:?}", scene.warnings);
        assert_eq!(check_any(name, &bsp, &scene), (4, 8, 3));
    }
}

/// Faces that all reuse one long surfedge run cannot make the scene grow past the budget.
#[test]
fn shared_surfedges_are_bounded() {
    let branch = &quake2::QUAKE2;
    let n_edges = 30_000i16;
    let n_faces = 200usize;
    let mut edges = vec![0u8; 4];
    let mut surfedges = Vec::new();
    for k in 0..n_edges as u16 {
        edges.extend(quake2::Edge { v: [U16::new(k % 3), U16::new((k + 1) % 3)] }.as_bytes());
        surfedges.push(k as i32 + 1);
    }
    let faces: Vec<u8> = (0..n_faces).flat_map(|_| face("quake2", 0, 0, 0, n_edges, 0)).collect();
    let (texinfo, _) = texinfos("quake2");
    let plane = quake2::Plane { normal: [0., 0., 1.].map(F32::new), dist: F32::new(0.), kind: I32::new(2) };
    let mut model = quake2::Model::new_zeroed();
    model.num_faces = I32::new(n_faces as i32);
    let verts: Vec<u8> = [[0f32, 0., 0.], [1., 0., 0.], [0., 1., 0.]]
        .iter()
        .flat_map(|v| quake2::Vertex { point: v.map(F32::new) }.as_bytes().to_vec())
        .collect();
    let bytes = BspBuilder::new(branch)
        .lump(quake2::LUMP_PLANES, plane.as_bytes().to_vec())
        .lump(quake2::LUMP_VERTICES, verts)
        .lump(quake2::LUMP_TEXINFO, texinfo)
        .lump(quake2::LUMP_FACES, faces)
        .lump(quake2::LUMP_EDGES, edges)
        .lump(quake2::LUMP_SURFEDGES, i32s(&surfedges))
        .lump(quake2::LUMP_MODELS, model.as_bytes().to_vec())
        .build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    let budget = (n_edges as usize).max(1 << 16);
    assert!(scene.models[0].vertices.len() <= budget);
    assert_eq!(scene.surface_count() + scene.skipped.len(), n_faces);
    assert!(scene.skipped.iter().all(|s| s.reason.contains("budget")));
    assert!(scene.warnings.iter().any(|w| w.contains("were left out")));
}

/// bsp_tool 0.7.0's `face_mesh` corners (positions and texel coordinates) of five faces of
/// every Quake 2 corpus map, recorded once in `fixtures/bsp_tool_faces.tsv` by
/// `bench/bsp_tool_faces.py` (its first line names the command); this test never runs
/// bsp_tool. bspkit's surface of each face has the same corners in the same order, and its
/// UV0 times the fallback size is bsp_tool's texel coordinate.
#[test]
fn corners_match_bsp_tool() {
    const FIXTURE: &str = include_str!("../fixtures/bsp_tool_faces.tsv");
    let Some(dir) = common::corpus("mesh_quake2 bsp_tool") else { return };
    let mut scenes: std::collections::HashMap<String, (Scene, Vec<(usize, usize)>)> = Default::default();
    let mut compared = 0;
    for line in FIXTURE.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let (map, face, corner) = (f[0], f[1].parse::<usize>().unwrap(), f[2].parse::<usize>().unwrap());
        let nums = |s: &str| s.split(' ').map(|x| x.parse::<f64>().unwrap()).collect::<Vec<_>>();
        let (pos, st) = (nums(f[3]), nums(f[4]));
        let (scene, at) = scenes.entry(map.to_string()).or_insert_with(|| {
            let bsp = Bsp::open(dir.join(map)).unwrap();
            let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
            let mut at = vec![(usize::MAX, 0); bsp.lump(quake2::LUMP_FACES).unwrap().len()];
            for (mi, m) in scene.models.iter().enumerate() {
                for (si, s) in m.surfaces.iter().enumerate() {
                    at[s.index as usize] = (mi, si);
                }
            }
            (scene, at)
        });
        let (mi, si) = at[face];
        let model = &scene.models[mi];
        let s = &model.surfaces[si];
        let v = s.vertices.start as usize + corner;
        assert!(v < s.vertices.end as usize, "{map}: face {face} has no corner {corner}");
        assert_eq!(model.vertices.positions[v].map(|c| c as f64).to_vec(), pos, "{map}: face {face} corner {corner}");
        let uv = model.vertices.uv0[v];
        for a in 0..2 {
            let got = uv[a] as f64 * FALLBACK_TEXTURE_SIZE[a] as f64;
            assert!((got - st[a]).abs() <= 1e-4 * (1.0 + st[a].abs()), "{map}: face {face} corner {corner} texel {got} against {}", st[a]);
        }
        compared += 1;
    }
    assert!(compared > 100, "{compared} corners compared");
    eprintln!("{compared} corners of {} maps agree with bsp_tool", scenes.len());
}
