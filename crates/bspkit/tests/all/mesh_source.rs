//! Source scene geometry (`mesh::build` on Source maps): every corpus map of the `source` and
//! `source_x360` folders builds, every face is accounted for once, polygon areas and normals
//! match the raw records, displacement grids have the sizes of their power, prop counts match
//! the `sprp` lump; builder maps (both byte orders) check displacements and skipped faces.

use crate::common;

use bspkit::branches::source::view::{DispInfos, FaceInfo, Faces};
use bspkit::branches::source::{self, View};
use bspkit::build::BspBuilder;
use bspkit::lightmap::{self, LightOptions};
use bspkit::lumps::gamelump::GameLumps;
use bspkit::mesh::{self, MeshOptions, Scene, SurfaceFlags, SurfaceKind};
use bspkit::{Bsp, Endian};
use common::mesh::{cross, dot, f64s, len, polygon_area, sub, V3};
use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

/// The face's vertex loop read straight from the surfedge, edge and vertex lumps.
fn raw_loop<O: ByteOrder>(v: &View<O>, f: &FaceInfo) -> Vec<V3> {
    let (se, edges, verts) = (v.surfedges().unwrap(), v.edges().unwrap(), v.vertices().unwrap());
    (f.firstedge..f.firstedge + f.numedges)
        .map(|i| {
            let s = se[i as usize].edge.get() as i64;
            let e = edges.get(s.unsigned_abs() as usize).unwrap();
            let p = verts[if s < 0 { e[1] } else { e[0] } as usize].pos;
            [p[0].get() as f64, p[1].get() as f64, p[2].get() as f64]
        })
        .collect()
}

fn side<O: ByteOrder>(faces: &Faces<O>, i: usize) -> u8 {
    match faces {
        Faces::Standard(f) => f[i].side,
        Faces::Vtmb(f) => f[i].side,
        Faces::Strata(f) => f[i].side,
        Faces::VindictusV2(f) => f[i].side,
    }
}

fn power<O: ByteOrder>(d: &DispInfos<O>, i: usize) -> i32 {
    match d {
        DispInfos::Standard(d) => d[i].power.get(),
        DispInfos::Strata(d) => d[i].power.get(),
        DispInfos::Vindictus(d) => d[i].power.get(),
        DispInfos::DotaV22(d) => d[i].power.get(),
        DispInfos::DotaV23(d) => d[i].power.get(),
        DispInfos::Unproven(why) => panic!("unproven dispinfo: {why}"),
        DispInfos::Unknown => panic!("unknown dispinfo layout"),
    }
}

#[derive(Debug, Default)]
struct Counts {
    surfaces: usize,
    triangles: usize,
    displacements: usize,
    props: usize,
    skipped: usize,
    polygons_checked: usize,
}

/// Check `scene` (built with every model) against the raw records of `bsp`.
fn check<O: ByteOrder>(bsp: &Bsp, scene: &Scene, name: &str) -> Counts {
    let v = View::<O>::new(bsp).unwrap();
    let faces = v.faces().unwrap();
    let lump = v.faces_lump() as u16;
    let planes = v.planes().unwrap();
    // Every face of a model range appears exactly once, as a surface or a skipped entry.
    let mut seen = vec![0u32; faces.len()];
    let mut nonconvex = 0usize;
    let mut owned = vec![false; faces.len()];
    for m in v.models().unwrap().iter() {
        let (a, n) = (m.firstface.get().max(0) as usize, m.numfaces.get().max(0) as usize);
        for o in owned.iter_mut().skip(a).take(n) {
            *o = true;
        }
    }
    for m in &scene.models {
        let nv = m.vertices.positions.len();
        assert_eq!(m.vertices.normals.len(), nv, "{name}");
        assert_eq!(m.vertices.uv0.len(), nv, "{name}");
        assert!(m.vertices.uv1.is_empty() || m.vertices.uv1.len() == nv, "{name}: uv1");
        assert!(m.vertices.colours.is_empty() || m.vertices.colours.len() == nv, "{name}: colours");
        assert!(m.lightmap_pages.is_empty() || m.lightmap_pages.len() == m.surfaces.len(), "{name}: pages");
        assert!(m.indices.iter().all(|&i| (i as usize) < nv), "{name}: index out of range");
        for s in &m.surfaces {
            assert_eq!(s.lump, lump, "{name}");
            seen[s.index as usize] += 1;
            let f = faces.get(s.index as usize).unwrap();
            let tris = &m.indices[s.indices.start as usize..s.indices.end as usize];
            let pos = |i: u32| f64s(m.vertices.positions[i as usize]);
            match s.kind {
                SurfaceKind::Displacement => {
                    let p = power(&v.disp_infos().unwrap(), f.dispinfo as usize);
                    let n = (1usize << p) + 1;
                    assert_eq!(s.vertices.len(), n * n, "{name}: face {} vertices", s.index);
                    assert_eq!(tris.len() / 3, 2 * 4usize.pow(p as u32), "{name}: face {} triangles", s.index);
                    assert!(!m.vertices.colours.is_empty(), "{name}: displacement alpha");
                }
                SurfaceKind::Polygon | SurfaceKind::TriangleSoup => {
                    let plane = &planes[f.planenum as usize];
                    // The stored plane faces the face's front; `side` is its parity.
                    let normal = [0, 1, 2].map(|k| plane.normal[k].get() as f64);
                    assert_eq!(side(&faces, s.index as usize) as i64, f.planenum & 1, "{name}: face {} side", s.index);
                    let ring = raw_loop(&v, &f);
                    let polygon_area = polygon_area(&ring);
                    // Signed areas about the normal: a fan covers the polygon exactly once even
                    // where T-junction vertices make the stored loop slightly non-convex (the
                    // engine draws the same fan), so the signed sum must equal the polygon area.
                    let convex = (0..ring.len()).all(|k| {
                        let (a, b, c) = (ring[k], ring[(k + 1) % ring.len()], ring[(k + 2) % ring.len()]);
                        dot(cross(sub(b, a), sub(c, b)), normal) <= 1e-6 * len(sub(b, a)) * len(sub(c, b))
                    });
                    nonconvex += usize::from(!convex);
                    let mut tri_area = 0.0;
                    for t in tris.chunks_exact(3) {
                        let c = cross(sub(pos(t[1]), pos(t[0])), sub(pos(t[2]), pos(t[0])));
                        tri_area += dot(c, normal) / 2.0;
                        // Counter-clockwise seen from the front.
                        if convex && len(c) > 1e-3 {
                            assert!(dot(c, normal) / len(c) > 0.99, "{name}: face {} triangle faces away from its plane", s.index);
                        }
                    }
                    let rel = (tri_area - polygon_area).abs() / polygon_area.max(1e-9);
                    assert!(rel <= 1e-4, "{name}: face {} area {tri_area} vs polygon {polygon_area}", s.index);
                    for i in s.vertices.clone() {
                        let d = sub(f64s(m.vertices.normals[i as usize]), normal);
                        assert!(len(d) < 1e-5, "{name}: face {} normal", s.index);
                    }
                    assert!(tris.len() / 3 >= ring.len() - 2, "{name}: face {} triangles", s.index);
                }
                k => panic!("{name}: unexpected kind {k:?}"),
            }
        }
    }
    for sk in &scene.skipped {
        assert_eq!(sk.lump, lump, "{name}");
        assert!(!sk.reason.is_empty());
        seen[sk.index as usize] += 1;
    }
    let unowned = owned.iter().filter(|o| !**o).count();
    for (i, (&n, &o)) in seen.iter().zip(&owned).enumerate() {
        assert_eq!(n, u32::from(o), "{name}: face {i} appears {n} times (in a model: {o})");
    }
    if nonconvex > 0 {
        eprintln!("{name}: {nonconvex} faces have a slightly non-convex vertex loop (fan kept, as the engine draws it)");
    }
    if unowned > 0 {
        eprintln!("{name}: {unowned} faces belong to no model");
    }
    let counts = Counts {
        surfaces: scene.surface_count(),
        triangles: scene.triangle_count(),
        displacements: scene.models.iter().flat_map(|m| &m.surfaces).filter(|s| s.kind == SurfaceKind::Displacement).count(),
        props: scene.props.len(),
        skipped: scene.skipped.len(),
        polygons_checked: scene.models.iter().flat_map(|m| &m.surfaces).filter(|s| s.kind != SurfaceKind::Displacement).count(),
    };
    counts
}

fn build_and_check(bsp: &Bsp, name: &str) -> Counts {
    let lm = lightmap::build(bsp, &LightOptions::default()).ok();
    let opts = MeshOptions { lightmaps: lm.as_ref(), ..Default::default() };
    let scene = mesh::build(bsp, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    if lm.as_ref().is_some_and(|l| !l.faces.is_empty()) {
        assert!(scene.models.iter().all(|m| m.vertices.uv1.len() == m.vertices.positions.len()), "{name}: uv1 filled");
        // Every lightmap UV lies on its page (displacements through the grid, faces by projection).
        let uv1 = scene.models.iter().flat_map(|m| &m.vertices.uv1);
        assert!(uv1.flatten().all(|c| (0.0..=1.0).contains(c)), "{name}: uv1 outside the page");
    }
    // Props: the same count as the sprp lump's own reading.
    let expected =
        GameLumps::of(bsp).ok().and_then(|g| g.static_props().ok().flatten()).and_then(|sp| sp.props().ok()).map_or(0, |p| p.len());
    assert_eq!(scene.props.len(), expected, "{name}: props");
    let mut reasons: Vec<&str> = scene.skipped.iter().map(|s| s.reason.as_str()).collect();
    reasons.sort();
    reasons.dedup();
    for r in reasons.iter().take(5) {
        eprintln!("{name}: skipped because {r}");
    }
    for w in scene.warnings.iter().take(5) {
        eprintln!("{name}: warning: {w}");
    }
    let c = match bsp.endian() {
        Endian::Little => check::<LittleEndian>(bsp, &scene, name),
        Endian::Big => check::<BigEndian>(bsp, &scene, name),
    };
    // The world-only scene is model 0 of the full one.
    let world = mesh::build(bsp, &MeshOptions { models: mesh::ModelSelect::World, lightmaps: lm.as_ref(), ..Default::default() }).unwrap();
    assert_eq!(world.models.len(), 1);
    assert_eq!(world.models[0], scene.models[0], "{name}: world model");
    // no_props leaves props out.
    let np = mesh::build(bsp, &MeshOptions { no_props: true, ..Default::default() }).unwrap();
    assert!(np.props.is_empty());
    c
}

#[test]
fn every_source_corpus_map_builds() {
    let Some(dir) = common::corpus("every_source_corpus_map_builds") else { return };
    let mut maps = common::maps_in(&dir, "source");
    maps.extend(common::maps_in(&dir, "source_x360"));
    assert!(maps.len() >= 2);
    let mut with_disp = 0;
    for m in &maps {
        let name = m.path.file_name().unwrap().to_string_lossy().to_string();
        let bsp = Bsp::open(&m.path).unwrap();
        let c = build_and_check(&bsp, &name);
        eprintln!(
            "{name} ({}, {:?}): {} surfaces, {} triangles, {} displacements, {} props, {} skipped",
            bsp.branch().id,
            bsp.endian(),
            c.surfaces,
            c.triangles,
            c.displacements,
            c.props,
            c.skipped
        );
        let faces = bsp.entry(7).map_or(0, |e| e.length) + bsp.entry(58).map_or(0, |e| e.length);
        assert!(c.polygons_checked > 0 || faces == 0, "{name}: no polygons");
        with_disp += usize::from(c.displacements > 0);
    }
    assert!(with_disp > 0, "some corpus map has displacements");
}

/// Bytes in either byte order.
struct W(Endian, Vec<u8>);
impl W {
    fn i32(&mut self, v: i32) -> &mut Self {
        let b = match self.0 {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.1.extend_from_slice(&b);
        self
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.i32(v.to_bits() as i32)
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        let b = match self.0 {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.1.extend_from_slice(&b);
        self
    }
    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.1.extend_from_slice(b);
        self
    }
}

/// A one-quad map: face 0 the quad, face 1 a quad with a broken surfedge, face 2 a power-2
/// displacement on the quad, face 3 a displacement of hostile power 9.
fn disp_map(e: Endian) -> Vec<u8> {
    let w = || W(e, Vec::new());
    let mut planes = w();
    planes.f32(0.0).f32(0.0).f32(1.0).f32(0.0).i32(2);
    let mut verts = w();
    // Clockwise seen from +Z; corner 2 is nearest the displacement's start position.
    for p in [[0.0, 0.0, 0.0], [0.0, 128.0, 0.0], [128.0, 128.0, 0.0], [128.0, 0.0, 0.0]] {
        for c in p {
            verts.f32(c);
        }
    }
    let mut edges = w();
    for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
        edges.u16(a).u16(b);
    }
    let mut surfedges = w();
    for s in [0, 1, 2, 3, 0, 1, 2, 99] {
        surfedges.i32(s);
    }
    let mut texinfo = w();
    for r in [[1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0625, 0.0, 0.0, 0.0], [0.0, 0.0625, 0.0, 0.0]] {
        for c in r {
            texinfo.f32(c);
        }
    }
    texinfo.i32(0).i32(0);
    let mut texdata = w();
    texdata.f32(0.5).f32(0.5).f32(0.5).i32(0).i32(64).i32(32).i32(64).i32(32);
    let mut table = w();
    table.i32(0);
    let mut faces = w();
    for (first, disp) in [(0, -1i16), (4, -1), (0, 0), (0, 1)] {
        faces.u16(0).bytes(&[0, 0]).i32(first).u16(4).u16(0).u16(disp as u16).u16(u16::MAX);
        faces.bytes(&[255; 4]).i32(-1).f32(0.0).i32(0).i32(0).i32(0).i32(0).i32(0).u16(0).u16(0).i32(0);
    }
    let mut models = w();
    for c in [0.0, 0.0, 0.0, 128.0, 128.0, 0.0, 0.0, 0.0, 0.0] {
        models.f32(c);
    }
    models.i32(0).i32(0).i32(4);
    let mut disp = w();
    for (start, power) in [([128.0, 128.0, 0.0], 2), ([0.0; 3], 9)] {
        disp.f32(start[0]).f32(start[1]).f32(start[2]).i32(0).i32(0).i32(power).i32(0).f32(0.0).i32(1).u16(2).u16(0);
        disp.i32(0).i32(0).bytes(&[0u8; 128]);
    }
    let mut dverts = w();
    for k in 0..25 {
        dverts.f32(0.0).f32(0.0).f32(1.0).f32(k as f32).f32(k as f32 * 10.0);
    }
    BspBuilder::new(&source::SOURCE)
        .endian(e)
        .lump(source::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(source::LUMP_PLANES, planes.1)
        .lump(source::LUMP_VERTICES, verts.1)
        .lump(source::LUMP_EDGES, edges.1)
        .lump(source::LUMP_SURFEDGES, surfedges.1)
        .lump(source::LUMP_TEXINFO, texinfo.1)
        .lump(source::LUMP_TEXDATA, texdata.1)
        .lump(source::LUMP_TEXDATA_STRING_TABLE, table.1)
        .lump(source::LUMP_TEXDATA_STRING_DATA, b"Tools/ToolsTrigger\0".to_vec())
        .lump(source::LUMP_FACES, faces.1)
        .lump(source::LUMP_MODELS, models.1)
        .lump(source::LUMP_DISP_INFO, disp.1)
        .lump(source::LUMP_DISP_VERTS, dverts.1)
        .build()
}

#[test]
fn builder_map_displacement_and_broken_faces() {
    for e in [Endian::Little, Endian::Big] {
        let file = disp_map(e);
        let bsp = Bsp::from_bytes(&file).unwrap();
        assert_eq!(bsp.endian(), e);
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let c = match e {
            Endian::Little => check::<LittleEndian>(&bsp, &scene, "builder"),
            Endian::Big => check::<BigEndian>(&bsp, &scene, "builder"),
        };
        assert_eq!((c.surfaces, c.displacements, c.skipped), (2, 1, 2), "{e:?}");
        // The broken surfedge and the hostile power are skipped with their reasons.
        let sk = |i: u32| scene.skipped.iter().find(|s| s.index == i).unwrap_or_else(|| panic!("face {i} not skipped"));
        assert!(sk(1).reason.contains("edge 99"), "{}", sk(1).reason);
        assert!(sk(3).reason.contains("power 9"), "{}", sk(3).reason);
        let m = &scene.models[0];
        // Face 0: a fan of 2 triangles with the material's flags and UVs from the texinfo.
        let quad = &m.surfaces[0];
        assert_eq!((quad.index, quad.kind, quad.indices.len()), (0, SurfaceKind::Polygon, 6));
        assert_eq!(scene.materials[quad.material as usize].name, "Tools/ToolsTrigger");
        assert_eq!(scene.materials[quad.material as usize].size, Some([64, 32]));
        assert!(quad.flags.contains(SurfaceFlags::TRIGGER));
        let v2 = quad.vertices.start as usize + 2;
        assert_eq!(m.vertices.uv0[v2], [2.0, -4.0]);
        // Face 2: the displacement starts at the corner nearest (128, 128, 0).
        let d = &m.surfaces[1];
        assert_eq!((d.index, d.kind), (2, SurfaceKind::Displacement));
        let first = d.vertices.start as usize;
        assert_eq!(m.vertices.positions[first], [128.0, 128.0, 0.0]);
        // Row 1 steps towards the next corner in loop order (128, 0), column 1 towards (0, 128).
        assert_eq!(m.vertices.positions[first + 5], [128.0, 96.0, 5.0]);
        assert_eq!(m.vertices.positions[first + 1], [96.0, 128.0, 1.0]);
        // UV0 from the undisplaced position; alpha from the disp vert.
        assert_eq!(m.vertices.uv0[first + 1], [1.5, -4.0]);
        assert_eq!(m.vertices.colours[first + 2], [255, 255, 255, 20]);
        assert_eq!(m.vertices.colours[quad.vertices.start as usize], [255; 4]);
        // Triangles face up (+Z) and the diagonal alternates per cell.
        let tris = &m.indices[d.indices.start as usize..d.indices.end as usize];
        for t in tris.chunks_exact(3) {
            let p = |i: u32| f64s(m.vertices.positions[i as usize]);
            assert!(cross(sub(p(t[1]), p(t[0])), sub(p(t[2]), p(t[0])))[2] > 0.0);
        }
        let has_diag = |cell: &[u32], a: u32, b: u32| cell.contains(&(a + first as u32)) && cell.contains(&(b + first as u32));
        assert!(has_diag(&tris[0..3], 0, 6) || has_diag(&tris[3..6], 0, 6), "cell 0 split along 0–6");
        assert!(has_diag(&tris[6..9], 2, 6) && has_diag(&tris[9..12], 2, 6), "cell 1 split along 2–6");
        assert!(m.vertices.normals[first..first + 25].iter().all(|n| n[2] > 0.0));
    }
}

/// Hostile bytes: every mutation of the builder map either fails to open or builds a scene,
/// never panics.
#[test]
fn mutated_maps_never_panic() {
    for e in [Endian::Little, Endian::Big] {
        let file = disp_map(e);
        let mut state = 0x2545_f491_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let mut built = 0;
        for _ in 0..3000 {
            let mut f = file.clone();
            let at = 8 + next() as usize % (f.len() - 12);
            let v = match next() % 4 {
                0 => [0xff; 4],
                1 => [0x7f, 0xff, 0xff, 0xff],
                2 => [0x80, 0, 0, 0],
                _ => next().to_le_bytes(),
            };
            f[at..at + 4].copy_from_slice(&v);
            let Ok(bsp) = Bsp::from_bytes(&f) else { continue };
            if let Ok(scene) = mesh::build(&bsp, &MeshOptions::default()) {
                built += 1;
                for m in &scene.models {
                    assert!(m.indices.iter().all(|&i| (i as usize) < m.vertices.positions.len()));
                }
            }
        }
        assert!(built > 100, "{e:?}: only {built} mutated maps built");
    }
}
