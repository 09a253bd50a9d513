//! The Quake 3 family's scene geometry (`bspkit::mesh::build`): every corpus map of the
//! `quake3` folder (IBSP 46 and the RTCW IBSP 47 test room), checked against the maps' own
//! records, and builder-made RBSP / FBSP / Quake Live maps with patches, flares and broken
//! surfaces.

use crate::common;

use common::mesh::{cross, dot, f64s as d3, len, sub, V3};
use std::collections::{HashMap, HashSet};

use bspkit::branches::quake3::{self, Layout};
use bspkit::build::BspBuilder;
use bspkit::mesh::{self, MeshOptions, Model, ModelSelect, Scene, SurfaceKind, DEFAULT_PATCH_LEVEL};
use bspkit::Bsp;
use zerocopy::little_endian::{F32, I32};
use zerocopy::{FromZeros, IntoBytes};

/// A position's exact bits, for matching.
type Key = [u32; 3];
/// An edge by the exact positions of its ends.
type EdgeKey = (Key, Key);
/// Tessellated points along an edge.
type Pts = Vec<[f32; 3]>;

/// What the tests need of a surface record, whatever the layout.
#[derive(Debug, Clone)]
struct Rec {
    kind: i32,
    verts: Vec<[f32; 3]>,
    normal: [f32; 3],
    patch: (usize, usize),
    /// Its draw indices as stored (relative to its first vertex).
    indices: Vec<i32>,
}

fn records<L: Layout>(bsp: &Bsp) -> Vec<Rec>
where
    L::Surface: zerocopy::IntoBytes + zerocopy::Immutable,
    L::DrawVert: zerocopy::IntoBytes + zerocopy::Immutable,
{
    let v = quake3::View::<L>::new(bsp).unwrap();
    let all = v.draw_vertices().unwrap();
    let vsize = std::mem::size_of::<L::DrawVert>();
    let bytes = all.as_bytes();
    v.surfaces()
        .unwrap()
        .iter()
        .map(|s| {
            use quake3::SurfaceRecord;
            // The normal is the third lightmap vector, 16 bytes before the patch size at the end.
            let sb = s.as_bytes();
            let f = |at: usize| f32::from_le_bytes(sb[at..at + 4].try_into().unwrap());
            let end = sb.len() - 8;
            let normal = [f(end - 12), f(end - 8), f(end - 4)];
            let (first, n) = s.vert_range();
            let verts = if first >= 0 && n >= 0 && (first + n) as usize <= all.len() {
                (first as usize..(first + n) as usize)
                    .map(|i| {
                        let r = &bytes[i * vsize..];
                        [0, 4, 8].map(|o| f32::from_le_bytes(r[o..o + 4].try_into().unwrap()))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let indices = v.surface_indices(s).map(|i| i.iter().map(|x| x.get()).collect()).unwrap_or_default();
            let (w, h) = s.patch_size();
            Rec { indices, kind: s.surface_type() as i32, verts, normal, patch: (w.max(0) as usize, h.max(0) as usize) }
        })
        .collect()
}

fn surface_records(bsp: &Bsp) -> Vec<Rec> {
    match bsp.branch().id {
        "rbsp" => records::<quake3::Rbsp>(bsp),
        "fbsp" => records::<quake3::Fbsp>(bsp),
        _ => records::<quake3::Ibsp>(bsp),
    }
}

/// Checks that hold for any Quake 3-family scene; returns the triangle count.
fn check_scene(bsp: &Bsp, scene: &Scene, level: u32, what: &str) -> usize {
    let recs = surface_records(bsp);
    // Every non-flare surface exactly once, as a surface or as a skip; flares nowhere.
    let mut seen: HashMap<u32, usize> = HashMap::new();
    for m in &scene.models {
        for s in &m.surfaces {
            assert_eq!(s.lump as usize, quake3::LUMP_SURFACES);
            *seen.entry(s.index).or_default() += 1;
        }
    }
    for s in &scene.skipped {
        assert!(!s.reason.is_empty());
        *seen.entry(s.index).or_default() += 1;
    }
    for (i, r) in recs.iter().enumerate() {
        let n = seen.get(&(i as u32)).copied().unwrap_or(0);
        if r.kind == 4 {
            assert_eq!(n, 0, "{what}: flare {i} has geometry");
        } else {
            assert_eq!(n, 1, "{what}: surface {i} (type {}) appears {n} times", r.kind);
        }
    }
    let mut tris = 0;
    for m in &scene.models {
        check_model(m, &recs, level, what);
        tris += m.indices.len() / 3;
    }
    assert_eq!(tris, scene.triangle_count());
    tris
}

fn check_model(m: &Model, recs: &[Rec], level: u32, what: &str) {
    let v = &m.vertices;
    let n = v.positions.len();
    assert_eq!((v.normals.len(), v.uv0.len(), v.colours.len()), (n, n, n), "{what}");
    assert!(v.uv1.is_empty() || v.uv1.len() == n);
    assert!(m.indices.len() % 3 == 0);
    for s in &m.surfaces {
        let r = &recs[s.index as usize];
        let idx = &m.indices[s.indices.start as usize..s.indices.end as usize];
        assert!(idx.iter().all(|i| s.vertices.contains(i)), "{what}: surface {} indexes outside its vertices", s.index);
        for nrm in &v.normals[s.vertices.start as usize..s.vertices.end as usize] {
            assert!((len(d3(*nrm)) - 1.0).abs() < 1e-5, "{what}: normal {nrm:?} is not unit");
        }
        match s.kind {
            SurfaceKind::Polygon => {
                assert_eq!(r.kind, 1);
                check_planar(m, s, r, what);
            }
            SurfaceKind::TriangleSoup => assert_eq!(r.kind, 3),
            SurfaceKind::Patch => {
                assert_eq!(r.kind, 2);
                let (w, h) = r.patch;
                let subpatches = (w - 1) / 2 * ((h - 1) / 2);
                assert_eq!(idx.len() / 3, 2 * (level * level) as usize * subpatches, "{what}: patch {}", s.index);
                check_patch_corners(m, s, r, level);
            }
            k => panic!("{what}: unexpected kind {k:?}"),
        }
    }
}

/// A planar surface: its triangles cover the polygon of its stored vertices (same area, Newell
/// projection on the plane normal) and face the way the plane does; vertex normals follow the
/// plane.
fn check_planar(m: &Model, s: &mesh::Surface, r: &Rec, what: &str) {
    let pn = d3(r.normal);
    let pos = &m.vertices.positions;
    let idx = &m.indices[s.indices.start as usize..s.indices.end as usize];
    let mut area = 0.0;
    for t in idx.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| d3(pos[i as usize]));
        let n = cross(sub(b, a), sub(c, a));
        // Counter-clockwise seen from the front: the triangle normal is the plane's.
        assert!(dot(n, pn) >= -1e-3 * len(n).max(1.0), "{what}: surface {} triangle faces away from its plane", s.index);
        area += dot(n, pn) / 2.0;
    }
    let polygon = boundary_area(r, pn);
    assert!(
        (area - polygon).abs() <= 1e-4 * polygon.abs().max(1.0),
        "{what}: surface {} triangles cover {area}, its polygon {polygon}",
        s.index
    );
    for nrm in &m.vertices.normals[s.vertices.start as usize..s.vertices.end as usize] {
        assert!(dot(d3(*nrm), pn) > 0.5, "{what}: surface {} vertex normal {nrm:?} against plane {pn:?}", s.index);
    }
}

/// Area of the polygon the stored triangles cover (a planar surface's vertices are in no
/// particular order, and q3map2's merged "meta" surfaces need not be convex): half the sum of
/// `a × b` over the boundary edges `a → b` (the directed edges whose reverse no triangle uses,
/// matched by exact position), projected on the plane normal. Stored triangles run clockwise.
fn boundary_area(r: &Rec, n: V3) -> f64 {
    let key = |i: i32| r.verts[i as usize].map(f32::to_bits);
    let mut directed: HashMap<EdgeKey, (i32, i32, usize)> = HashMap::new();
    for t in r.indices.chunks_exact(3) {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            directed.entry((key(a), key(b))).or_insert((a, b, 0)).2 += 1;
        }
    }
    let mut sum = [0.0; 3];
    for ((ka, kb), &(a, b, uses)) in &directed {
        let back = directed.get(&(*kb, *ka)).map_or(0, |e| e.2);
        let net = uses as f64 - back as f64;
        if net > 0.0 {
            let c = cross(d3(r.verts[a as usize]), d3(r.verts[b as usize]));
            sum = [0, 1, 2].map(|k| sum[k] + net * c[k]);
        }
    }
    -dot(sum, n) / 2.0
}

/// Sub-patch corners of the tessellated grid are the control points themselves, exactly.
fn check_patch_corners(m: &Model, s: &mesh::Surface, r: &Rec, level: u32) {
    let (w, h) = r.patch;
    let l = level as usize;
    let cols = (w - 1) / 2 * l + 1;
    let grid = &m.vertices.positions[s.vertices.start as usize..s.vertices.end as usize];
    for j in (0..h).step_by(2) {
        for i in (0..w).step_by(2) {
            assert_eq!(grid[(j / 2 * l) * cols + i / 2 * l], r.verts[j * w + i], "patch {} corner ({i}, {j})", s.index);
        }
    }
}

/// Exact-position edge use of a mesh: edges used once are its border. With patches whose
/// shared edges coincide, merging by exact position leaves no border inside the union.
fn border_edges(meshes: &[(&Model, &mesh::Surface)]) -> usize {
    let key = |p: [f32; 3]| p.map(f32::to_bits);
    let mut uses: HashMap<([u32; 3], [u32; 3]), usize> = HashMap::new();
    for (m, s) in meshes {
        let idx = &m.indices[s.indices.start as usize..s.indices.end as usize];
        for t in idx.chunks_exact(3) {
            for k in 0..3 {
                let (a, b) = (key(m.vertices.positions[t[k] as usize]), key(m.vertices.positions[t[(k + 1) % 3] as usize]));
                *uses.entry(if a < b { (a, b) } else { (b, a) }).or_default() += 1;
            }
        }
    }
    uses.values().filter(|&&n| n == 1).count()
}

fn triangles_face_vertex_normals(m: &Model, s: &mesh::Surface) -> (usize, usize) {
    let (p, n) = (&m.vertices.positions, &m.vertices.normals);
    let idx = &m.indices[s.indices.start as usize..s.indices.end as usize];
    let (mut agree, mut total) = (0, 0);
    for t in idx.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| d3(p[i as usize]));
        let tn = cross(sub(b, a), sub(c, a));
        if len(tn) < 1e-6 {
            continue;
        }
        let vn = [0, 1, 2].iter().fold([0.0; 3], |acc, &k| {
            let x = d3(n[t[k] as usize]);
            [acc[0] + x[0], acc[1] + x[1], acc[2] + x[2]]
        });
        total += 1;
        if dot(tn, vn) > 0.0 {
            agree += 1;
        }
    }
    (agree, total)
}

#[test]
fn corpus_quake3_maps_build() {
    let Some(corpus) = common::corpus("mesh quake3") else { return };
    let maps = common::maps_in(&corpus, "quake3");
    assert!(maps.len() >= 6, "{} quake3 maps", maps.len());
    let mut saw_ibsp47 = false;
    let mut saw_patch = false;
    for map in maps {
        let bsp = Bsp::open(&map.path).unwrap();
        let name = map.path.file_name().unwrap().to_string_lossy().to_string();
        saw_ibsp47 |= bsp.branch().id == "ibsp47";
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let tris = check_scene(&bsp, &scene, DEFAULT_PATCH_LEVEL, &name);
        assert!(tris > 0, "{name}");
        assert_eq!(scene.models.len(), quake3::View::<quake3::Ibsp>::new(&bsp).unwrap().models().unwrap().len());
        let patches = scene.models.iter().flat_map(|m| &m.surfaces).filter(|s| s.kind == SurfaceKind::Patch).count();
        saw_patch |= patches > 0;
        // Patches face the side their vertex normals point to.
        let (mut agree, mut total) = (0, 0);
        for m in &scene.models {
            for s in m.surfaces.iter().filter(|s| s.kind == SurfaceKind::Patch) {
                let (a, t) = triangles_face_vertex_normals(m, s);
                agree += a;
                total += t;
            }
        }
        assert!(agree * 100 >= total * 95, "{name}: {agree} of {total} patch triangles face their vertex normals");

        // Level 2 changes only the patches' triangle counts.
        let coarse = mesh::build(&bsp, &MeshOptions { patch_level: Some(2), ..Default::default() }).unwrap();
        check_scene(&bsp, &coarse, 2, &name);

        // The world alone.
        let world = mesh::build(&bsp, &MeshOptions { models: ModelSelect::World, ..Default::default() }).unwrap();
        assert_eq!(world.models.len(), 1);
        assert_eq!(world.models[0], scene.models[0]);

        // Lightmap UVs: one per vertex, one page per surface, inside the page.
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
        let lit = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        let mut lit_surfaces = 0;
        for m in &lit.models {
            assert_eq!(m.vertices.uv1.len(), m.vertices.positions.len());
            assert_eq!(m.lightmap_pages.len(), m.surfaces.len());
            for (s, &page) in m.surfaces.iter().zip(&m.lightmap_pages) {
                if page == u32::MAX {
                    continue;
                }
                lit_surfaces += 1;
                assert!(lm.face(s.lump, s.index).is_some_and(|f| f.page == page));
                for uv in &m.vertices.uv1[s.vertices.start as usize..s.vertices.end as usize] {
                    assert!(uv.iter().all(|c| (-0.01..=1.01).contains(c)), "{name}: surface {} uv1 {uv:?}", s.index);
                }
            }
        }
        assert_eq!(lit_surfaces, lm.faces.len(), "{name}: every lit face is used");
        eprintln!(
            "{name}: {} models, {} surfaces ({patches} patches), {} skipped, {tris} triangles (level 2: {}), {lit_surfaces} lit",
            scene.models.len(),
            scene.surface_count(),
            scene.skipped.len(),
            coarse.triangle_count()
        );
    }
    assert!(saw_ibsp47, "the RTCW test room is in the corpus");
    assert!(saw_patch, "some corpus map has patches");
}

/// Any two sub-patch edges in the corpus built from the same three control points (in either
/// direction) give bit-identical tessellated points.
#[test]
fn corpus_patch_edges_coincide() {
    let Some(corpus) = common::corpus("mesh quake3 patch edges") else { return };
    let mut shared = 0;
    for map in common::maps_in(&corpus, "quake3") {
        let bsp = Bsp::open(&map.path).unwrap();
        let recs = surface_records(&bsp);
        let scene = mesh::build(&bsp, &MeshOptions { patch_level: Some(5), ..Default::default() }).unwrap();
        let l = 5usize;
        let key = |p: [f32; 3]| p.map(f32::to_bits);
        let mut edges: HashMap<[[u32; 3]; 3], Vec<[f32; 3]>> = HashMap::new();
        for m in &scene.models {
            for s in m.surfaces.iter().filter(|s| s.kind == SurfaceKind::Patch) {
                let r = &recs[s.index as usize];
                let (w, h) = r.patch;
                let cols = (w - 1) / 2 * l + 1;
                let grid = &m.vertices.positions[s.vertices.start as usize..s.vertices.end as usize];
                let cp = |i: usize, j: usize| r.verts[j * w + i];
                // Sub-patch edges along rows (j even) and along columns (i even).
                let mut segs: Vec<([[f32; 3]; 3], Pts)> = Vec::new();
                for j in (0..h).step_by(2) {
                    for i in (0..w - 1).step_by(2) {
                        let pts = (0..=l).map(|k| grid[(j / 2 * l) * cols + i / 2 * l + k]).collect();
                        segs.push(([cp(i, j), cp(i + 1, j), cp(i + 2, j)], pts));
                    }
                }
                for i in (0..w).step_by(2) {
                    for j in (0..h - 1).step_by(2) {
                        let pts = (0..=l).map(|k| grid[(j / 2 * l + k) * cols + i / 2 * l]).collect();
                        segs.push(([cp(i, j), cp(i, j + 1), cp(i, j + 2)], pts));
                    }
                }
                for (c, mut pts) in segs {
                    let mut k = c.map(key);
                    if k[2] < k[0] {
                        k.reverse();
                        pts.reverse();
                    }
                    if let Some(prev) = edges.get(&k) {
                        shared += 1;
                        assert_eq!(prev, &pts, "{}: patch {} edge differs from an earlier one", map.path.display(), s.index);
                    } else {
                        edges.insert(k, pts);
                    }
                }
            }
        }
    }
    eprintln!("{shared} sub-patch edges met again");
}

// ---------------------------------------------------------------------------------------
// Builder-made maps

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f3(v: [f32; 3]) -> [F32; 3] {
    v.map(F32::new)
}

/// A surface for the builder maps, in IBSP or RBSP records.
struct S {
    kind: i32,
    shader: i32,
    verts: (i32, i32),
    indexes: (i32, i32),
    patch: (i32, i32),
    normal: [f32; 3],
    /// Lightmap page (−1: none); a lit surface's rectangle is the 16 × 16 texels at the
    /// page's corner.
    lightmap: i32,
}

const S0: S = S { kind: 1, shader: 0, verts: (0, 0), indexes: (0, 0), patch: (0, 0), normal: [0., 0., 1.], lightmap: -1 };

/// A vertex: position, st, normal.
type Vx = ([f32; 3], [f32; 2], [f32; 3]);

/// A Quake 3-family map of `branch` with these shaders (name, surface flags, contents), draw
/// vertices, indices and surfaces; model 0 holds surfaces `..world`, model 1 the rest, used by
/// a `func_door` at origin 8 0 0.
fn q3_map(
    branch: &'static bspkit::branch::Branch,
    shaders: &[(&str, i32, i32)],
    verts: &[Vx],
    idx: &[i32],
    surfs: &[S],
    world: i32,
) -> Vec<u8> {
    use quake3::*;
    let raven = matches!(branch.id, "rbsp" | "fbsp");
    let sh: Vec<u8> = shaders
        .iter()
        .flat_map(|(n, s, c)| {
            let mut r = Shader::new_zeroed();
            r.name[..n.len()].copy_from_slice(n.as_bytes());
            r.surface_flags = I32::new(*s);
            r.content_flags = I32::new(*c);
            r.as_bytes().to_vec()
        })
        .collect();
    let mut vb = Vec::new();
    for (p, st, n) in verts {
        if raven {
            let mut v = DrawVertRbsp::new_zeroed();
            v.xyz = f3(*p);
            v.st = st.map(F32::new);
            v.normal = f3(*n);
            v.color = [[200, 100, 50, 255]; 4];
            v.lightmap = [st.map(|c| F32::new(c * LM_SCALE)); 4];
            vb.extend_from_slice(v.as_bytes());
        } else {
            let mut v = DrawVert::new_zeroed();
            v.xyz = f3(*p);
            v.st = st.map(F32::new);
            v.normal = f3(*n);
            v.color = [200, 100, 50, 255];
            v.lightmap = st.map(|c| F32::new(c * LM_SCALE));
            vb.extend_from_slice(v.as_bytes());
        }
    }
    let mut sb = Vec::new();
    for s in surfs {
        if raven {
            let mut r = SurfaceRbsp::new_zeroed();
            r.shader = I32::new(s.shader);
            r.surface_type = I32::new(s.kind);
            (r.first_vert, r.num_verts) = (I32::new(s.verts.0), I32::new(s.verts.1));
            (r.first_index, r.num_indexes) = (I32::new(s.indexes.0), I32::new(s.indexes.1));
            (r.patch_width, r.patch_height) = (I32::new(s.patch.0), I32::new(s.patch.1));
            r.lightmap_vecs[2] = f3(s.normal);
            r.lightmap_styles = [0, 255, 255, 255];
            r.lightmap_num = [s.lightmap, -1, -1, -1].map(I32::new);
            (r.lightmap_x[0], r.lightmap_y[0], r.lightmap_width, r.lightmap_height) =
                (I32::new(0), I32::new(0), I32::new(16), I32::new(16));
            sb.extend_from_slice(r.as_bytes());
        } else {
            let mut r = Surface::new_zeroed();
            r.shader = I32::new(s.shader);
            r.surface_type = I32::new(s.kind);
            (r.first_vert, r.num_verts) = (I32::new(s.verts.0), I32::new(s.verts.1));
            (r.first_index, r.num_indexes) = (I32::new(s.indexes.0), I32::new(s.indexes.1));
            (r.patch_width, r.patch_height) = (I32::new(s.patch.0), I32::new(s.patch.1));
            r.lightmap_vecs[2] = f3(s.normal);
            r.lightmap_num = I32::new(s.lightmap);
            (r.lightmap_x, r.lightmap_y, r.lightmap_width, r.lightmap_height) = (I32::new(0), I32::new(0), I32::new(16), I32::new(16));
            sb.extend_from_slice(r.as_bytes());
        }
    }
    let mut models = [Model::new_zeroed(), Model::new_zeroed()];
    models[0].num_surfaces = I32::new(world);
    models[1].first_surface = I32::new(world);
    models[1].num_surfaces = I32::new(surfs.len() as i32 - world);
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n\"origin\" \"8 0 0\"\n\"angle\" \"90\"\n}\n\0";
    let mut b = BspBuilder::new(branch)
        .lump(LUMP_ENTITIES, ents.to_vec())
        .lump(LUMP_SHADERS, sh)
        .lump(LUMP_MODELS, models.iter().flat_map(|m| m.as_bytes().to_vec()).collect::<Vec<u8>>())
        .lump(LUMP_DRAW_VERTICES, vb)
        .lump(LUMP_DRAW_INDICES, i32s(idx))
        .lump(LUMP_SURFACES, sb);
    if surfs.iter().any(|s| s.lightmap >= 0) {
        let page = if branch.id == "fbsp" { 512 * 512 * 3 } else { 128 * 128 * 3 };
        b = b.lump(LUMP_LIGHTMAPS, vec![77u8; page]);
    }
    if branch.id == "quakelive" {
        // Quake Live is told from IBSP 47 by a non-empty advertisements lump.
        b = b.lump(LUMP_ADVERTISEMENTS, Advertisement::new_zeroed().as_bytes().to_vec());
    }
    b.build()
}

/// Vertex lightmap coordinates are their `st` times this.
const LM_SCALE: f32 = 1.0 / 64.0;

/// A 3 × 3 control grid (a flat square when `bulge` is 0) from `origin`, rows along `dv`.
fn grid(origin: [f32; 3], du: [f32; 3], dv: [f32; 3], w: usize, h: usize, bulge: f32) -> Vec<Vx> {
    let mut out = Vec::new();
    for j in 0..h {
        for i in 0..w {
            let p = [0, 1, 2].map(|c| origin[c] + du[c] * i as f32 + dv[c] * j as f32);
            let z = if i % 2 == 1 && j % 2 == 1 { bulge } else { 0.0 };
            out.push(([p[0], p[1], p[2] + z], [i as f32 / 2.0, j as f32 / 2.0], [0., 0., 1.]));
        }
    }
    out
}

#[test]
fn builder_maps_of_every_branch_build() {
    for branch in [&quake3::QUAKE3, &quake3::IBSP47, &quake3::QUAKELIVE, &quake3::RBSP, &quake3::FBSP] {
        // A planar quad (clockwise from above, as q3map2 stores it), a 5 × 3 patch (two
        // sub-patches) bulging up, a flare, a soup with an index past its vertices, a patch of
        // an even width, and in model 1 a triangle soup with a caulk shader.
        let mut verts: Vec<Vx> = [[0., 0., 0.], [0., 64., 0.], [64., 64., 0.], [64., 0., 0.]]
            .iter()
            .enumerate()
            .map(|(k, p)| (*p, [k as f32, 0.], [0., 0., 1.]))
            .collect();
        verts.extend(grid([0., 0., 32.], [16., 0., 0.], [0., 16., 0.], 5, 3, 8.0));
        verts.extend([([0., 0., 0.], [0., 0.], [0., 0., 0.]); 3]);
        let idx = [0, 1, 2, 0, 2, 3, 0, 1, 5, 0, 1, 2];
        let surfs = [
            S { verts: (0, 4), indexes: (0, 6), ..S0 },
            S { kind: 2, shader: 1, verts: (4, 15), patch: (5, 3), ..S0 },
            S { kind: 4, ..S0 },
            S { kind: 3, verts: (19, 3), indexes: (6, 3), ..S0 },
            S { kind: 2, verts: (4, 15), patch: (4, 3), ..S0 },
            S { kind: 3, shader: 2, verts: (19, 3), indexes: (9, 3), ..S0 },
        ];
        let shaders = [("textures/base/floor", 0, 0x2000_0001), ("textures/liquids/pool", 0, 0x20), ("textures/common/caulk", 0x80, 1)];
        let bytes = q3_map(branch, &shaders, &verts, &idx, &surfs, 5);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bsp.branch().id, branch.id);
        for level in [1, 3, DEFAULT_PATCH_LEVEL] {
            let scene = mesh::build(&bsp, &MeshOptions { patch_level: Some(level), ..Default::default() }).unwrap();
            let what = format!("{} level {level}", branch.id);
            check_scene(&bsp, &scene, level, &what);
            assert_eq!(scene.models.len(), 2);
            let reasons: Vec<(u32, &str)> = scene.skipped.iter().map(|s| (s.index, s.reason.as_str())).collect();
            assert_eq!(reasons.len(), 2, "{reasons:?}");
            assert!(reasons[0].0 == 3 && reasons[0].1.contains("index 2 is 5"), "{reasons:?}");
            assert!(reasons[1].0 == 4 && reasons[1].1.contains("4×3"), "{reasons:?}");
            assert!(scene.warnings.iter().any(|w| w.contains("1 flare")), "{:?}", scene.warnings);
            let world = &scene.models[0];
            assert_eq!(world.surfaces.len(), 2);
            assert_eq!(world.surfaces[0].indices.len(), 6);
            assert_eq!(world.surfaces[1].indices.len() as u32 / 3, 2 * level * level * 2);
            assert_eq!(world.vertices.colours[0], [200, 100, 50, 255]);
            let (agree, total) = triangles_face_vertex_normals(world, &world.surfaces[1]);
            assert_eq!((agree, total), (total, 2 * 2 * (level * level) as usize), "{what}: patch triangles face +Z");
            // The patch: a single crack-free sheet whose border is its outline.
            assert_eq!(border_edges(&[(world, &world.surfaces[1])]), 2 * (2 * level as usize + level as usize));
            let door = &scene.models[1];
            assert_eq!((door.name.as_str(), door.origin, door.angles, door.entity), ("*1 func_door", [8., 0., 0.], [0., 90., 0.], Some(1)));
            let mat = |s: &mesh::Surface| scene.material(s.material).unwrap();
            assert_eq!(mat(&world.surfaces[0]).name, "textures/base/floor");
            // RBSP's flag bits are not read (Raven numbers them differently): names still flag
            // liquids and caulk.
            let raven = branch.id == "rbsp";
            let translucent = if raven { mesh::SurfaceFlags::NONE } else { mesh::SurfaceFlags::TRANSLUCENT };
            assert_eq!(world.surfaces[0].flags, translucent, "{what}");
            assert_eq!(world.surfaces[1].flags, mesh::SurfaceFlags::WATER, "{what}");
            assert_eq!(door.surfaces[0].flags, mesh::SurfaceFlags::NODRAW, "{what}");
        }
    }
}

#[test]
fn patches_sharing_control_points_do_not_crack() {
    // Two 5 × 5 patches (four sub-patches each) with curved edges: B's first column is A's last
    // column, stored in the opposite direction, and B's grid is transposed (its rows run along
    // the shared edge). Level 7 gives weights that are not exact binary fractions.
    let curve = |i: usize, j: usize| -> [f32; 3] {
        let (x, y) = (i as f32 * 10.3, j as f32 * 7.9);
        [x, y, ((i * 7 + j * 3) % 5) as f32 * 3.7]
    };
    let mut verts: Vec<Vx> = Vec::new();
    for j in 0..5 {
        for i in 0..5 {
            verts.push((curve(i, j), [0., 0.], [0., 0., 1.]));
        }
    }
    // B: control (r, c) = A's column 4 + c, row 4 − r; stored row-major with width 5, so B's
    // u runs along A's rows… transposed: B's index (row = c, col = r).
    for c in 0..5 {
        for r in 0..5 {
            verts.push((curve(4 + c, 4 - r), [0., 0.], [0., 0., 1.]));
        }
    }
    let surfs = [S { kind: 2, verts: (0, 25), patch: (5, 5), ..S0 }, S { kind: 2, verts: (25, 25), patch: (5, 5), ..S0 }];
    for branch in [&quake3::QUAKE3, &quake3::FBSP] {
        let bytes = q3_map(branch, &[("textures/x", 0, 1)], &verts, &[], &surfs, 2);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        for level in [1, 2, 7, 8] {
            let scene = mesh::build(&bsp, &MeshOptions { patch_level: Some(level), ..Default::default() }).unwrap();
            let w = &scene.models[0];
            assert_eq!(w.surfaces.len(), 2);
            let l = level as usize;
            let each = border_edges(&[(w, &w.surfaces[0])]);
            assert_eq!(each, 4 * 2 * l, "one patch's outline");
            // Together: the shared edge (2·level segments) disappears from the border.
            let both = border_edges(&[(w, &w.surfaces[0]), (w, &w.surfaces[1])]);
            assert_eq!(both, 2 * each - 2 * (2 * l), "{} level {level}: the shared edge cracks", branch.id);
        }
    }
}

#[test]
fn hostile_patches_are_skipped_and_bounded() {
    let verts: Vec<Vx> = grid([0.; 3], [1., 0., 0.], [0., 1., 0.], 3, 3, 0.0);
    let surfs = [
        // Sizes far beyond the nine vertices present.
        S { kind: 2, verts: (0, 9), patch: (0x7fff_ffff, 0x7fff_ffff), ..S0 },
        S { kind: 2, verts: (0, 9), patch: (-3, 3), ..S0 },
        S { kind: 2, verts: (0, 9), patch: (3, 1), ..S0 },
        S { kind: 2, verts: (0, 0x7fff_ffff), patch: (3, 3), ..S0 },
        S { kind: 1, verts: (5, 9), indexes: (0x7fff_fff0, 0x7fff_ffff), ..S0 },
        S { kind: 7, verts: (0, 3), ..S0 },
        S { kind: 2, shader: 9, verts: (0, 9), patch: (3, 3), ..S0 },
        S { kind: 2, verts: (0, 9), patch: (3, 3), ..S0 },
    ];
    let bytes = q3_map(&quake3::QUAKE3, &[("textures/x", 0, 1)], &verts, &[], &surfs, 8);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions { patch_level: Some(u32::MAX), ..Default::default() }).unwrap();
    assert_eq!(scene.skipped.len(), 7, "{:?}", scene.skipped);
    let skipped: HashSet<u32> = scene.skipped.iter().map(|s| s.index).collect();
    assert_eq!(skipped, (0..7).collect());
    // The good patch at the clamped level.
    let l = quake3::mesh::MAX_PATCH_LEVEL as usize;
    assert_eq!(scene.models[0].indices.len() / 3, 2 * l * l);
    assert!(scene.warnings.iter().any(|w| w.contains("clamped")));
}

/// Issue 23: patches sharing one control grid. Each surface of a few dozen bytes tessellates to
/// 65² vertices at the finest level; before, 220 KB of them made a 672 MB GLB under the old
/// fixed cap (16 Mi vertices, surfaces past it skipped). Now the scene budget
/// ([`bspkit::mesh::SceneLimits`]) stops the build with an error naming it.
#[test]
fn patches_sharing_control_points_hit_the_scene_budget() {
    let verts: Vec<Vx> = grid([0.; 3], [1., 0., 0.], [0., 1., 0.], 3, 3, 4.0);
    let surfs: Vec<S> = (0..100).map(|_| S { kind: 2, verts: (0, 9), patch: (3, 3), ..S0 }).collect();
    let bytes = q3_map(&quake3::QUAKE3, &[("textures/x", 0, 1)], &verts, &[], &surfs, 100);
    assert!(bytes.len() < 16_000, "{}", bytes.len());
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let fine = |max_vertices: u64, max_triangles: u64| MeshOptions {
        patch_level: Some(64),
        limits: mesh::SceneLimits { max_vertices, max_triangles },
        ..Default::default()
    };
    // 100 × 65² = 422,500 vertices and 100 × 2 × 64² = 819,200 triangles.
    let scene = mesh::build(&bsp, &fine(422_500, 819_200)).unwrap();
    assert_eq!(scene.models[0].vertices.len(), 422_500);
    assert!(scene.skipped.is_empty());
    for (v, t, flag) in [(422_499, 819_200, "--max-scene-vertices"), (422_500, 819_199, "--max-scene-triangles")] {
        let e = mesh::build(&bsp, &fine(v, t)).unwrap_err();
        assert_eq!(e.kind.name(), "limit_exceeded", "{e}");
        assert!(e.to_string().contains(flag), "{e}");
    }
}

#[test]
fn damaged_maps_never_panic() {
    common::mesh::damaged_corpus_maps_build(
        "mesh quake3 damaged",
        "quake3",
        &[quake3::LUMP_SURFACES, quake3::LUMP_MODELS, quake3::LUMP_DRAW_INDICES, quake3::LUMP_SHADERS],
    );
}

/// Lightmap UVs of a lit patch follow its interpolated lightmap coordinates: the builder's
/// vertices have lightmap coordinates `st × LM_SCALE`, linear over a flat grid, so every
/// tessellated vertex's UV is the atlas UV of its own `uv0 × LM_SCALE`.
#[test]
fn patch_lightmap_uvs_interpolate() {
    for branch in [&quake3::QUAKE3, &quake3::RBSP, &quake3::FBSP] {
        let verts = grid([0.; 3], [8., 0., 0.], [0., 8., 0.], 5, 3, 0.0);
        let surfs = [S { kind: 2, verts: (0, 15), patch: (5, 3), lightmap: 0, ..S0 }];
        let bytes = q3_map(branch, &[("textures/x", 0, 1)], &verts, &[], &surfs, 1);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
        let face = *lm.face(quake3::LUMP_SURFACES as u16, 0).unwrap_or_else(|| panic!("{}: {:?}", branch.id, lm.warnings));
        let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), patch_level: Some(3), ..Default::default() }).unwrap();
        let w = &scene.models[0];
        assert_eq!(w.lightmap_pages, [face.page]);
        let s = &w.surfaces[0];
        assert_eq!(s.vertices.len(), 7 * 4);
        for k in s.vertices.start as usize..s.vertices.end as usize {
            let want = lm.uv_native(&face, w.vertices.uv0[k].map(|c| c * LM_SCALE)).unwrap();
            let got = w.vertices.uv1[k];
            assert!((got[0] - want[0]).abs() < 1e-5 && (got[1] - want[1]).abs() < 1e-5, "{}: vertex {k}: {got:?} vs {want:?}", branch.id);
        }
        // Coordinates inside the rectangle stay on the atlas page.
        assert!(w.vertices.uv1.iter().all(|uv| uv.iter().all(|c| (0.0..=1.0).contains(c))));
    }
}
