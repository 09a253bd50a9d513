//! A geometric audit of the scene model over every corpus map, whatever its family: indices in
//! range, each surface identity (lump, index) at most once, unit normals, finite positions and
//! UVs, consistent buffers. For Quake 1 / GoldSrc also: each face's triangles cover exactly its
//! polygon (total area equal within 1e-4) and face the way its plane does (triangles of less than
//! a square unit excepted).

use crate::common;

use bspkit::branches::quake1::{self, EdgeRecord, FaceRecord, Layout, View};
use bspkit::mesh::{self, MeshOptions, Scene};
use bspkit::{Bsp, Family};
use common::mesh::{cross, dot};

fn sub(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
    std::array::from_fn(|k| a[k] as f64 - b[k] as f64)
}

/// The checks every family's scene must pass.
fn generic(name: &str, scene: &Scene) {
    let mut seen = std::collections::HashSet::new();
    for m in &scene.models {
        let v = &m.vertices;
        let n = v.len();
        assert_eq!(v.normals.len(), n, "{name} model {}: normals", m.index);
        assert_eq!(v.uv0.len(), n, "{name} model {}: uv0", m.index);
        assert!(v.uv1.is_empty() || v.uv1.len() == n, "{name} model {}: uv1", m.index);
        assert!(v.colours.is_empty() || v.colours.len() == n, "{name} model {}: colours", m.index);
        assert_eq!(m.indices.len() % 3, 0, "{name} model {}: indices", m.index);
        assert!(m.indices.iter().all(|&i| (i as usize) < n), "{name} model {}: index out of range", m.index);
        assert!(m.lightmap_pages.is_empty() || m.lightmap_pages.len() == m.surfaces.len(), "{name}: lightmap pages");
        for p in &v.positions {
            assert!(p.iter().all(|c| c.is_finite()), "{name}: position {p:?}");
        }
        for nn in &v.normals {
            let l = nn.iter().map(|c| (*c as f64).powi(2)).sum::<f64>().sqrt();
            assert!((l - 1.0).abs() <= 1e-3, "{name} model {}: normal {nn:?} has length {l}", m.index);
        }
        for uv in v.uv0.iter().chain(&v.uv1) {
            assert!(uv.iter().all(|c| c.is_finite()), "{name}: uv {uv:?}");
        }
        let mut tris = 0;
        for s in &m.surfaces {
            assert!(seen.insert((s.lump, s.index)), "{name}: surface ({}, {}) appears twice", s.lump, s.index);
            assert!(s.indices.start <= s.indices.end && s.indices.end as usize <= m.indices.len(), "{name}: index span");
            assert!(s.vertices.start <= s.vertices.end && s.vertices.end as usize <= n, "{name}: vertex span");
            assert_eq!(s.indices.len() % 3, 0, "{name}: surface {} index count", s.index);
            assert!((s.material as usize) < scene.materials.len(), "{name}: material {}", s.material);
            for &i in &m.indices[s.indices.start as usize..s.indices.end as usize] {
                assert!(s.vertices.contains(&i), "{name}: surface {} indexes vertex {i} outside its run", s.index);
            }
            tris += s.indices.len() / 3;
        }
        assert_eq!(tris, m.indices.len() / 3, "{name} model {}: triangles = indices / 3", m.index);
    }
    for s in &scene.skipped {
        assert!(!s.reason.is_empty(), "{name}: skipped ({}, {}) without a reason", s.lump, s.index);
    }
}

/// Quake 1 / GoldSrc: triangles cover each face's polygon and face along its plane.
fn quake(name: &str, bsp: &Bsp, scene: &Scene) -> usize {
    fn with<L: Layout>(name: &str, bsp: &Bsp, scene: &Scene) -> usize {
        let view = View::<L>::new(bsp);
        let (faces, surfedges, edges, vertices, planes) =
            (view.faces().unwrap(), view.surfedges().unwrap(), view.edges().unwrap(), view.vertices().unwrap(), view.planes().unwrap());
        let mut checked = 0;
        for m in &scene.models {
            let v = &m.vertices;
            for s in &m.surfaces {
                let f = &faces[s.index as usize];
                let (first, count) = f.edges();
                let poly: Vec<[f32; 3]> = surfedges[first as usize..(first + count) as usize]
                    .iter()
                    .map(|se| {
                        let se = se.get() as i64;
                        let e = &edges[se.unsigned_abs() as usize];
                        vertices[e.v(usize::from(se < 0)) as usize].point.map(|c| c.get())
                    })
                    .collect();
                let mut plane = planes[f.plane() as usize].normal.map(|c| c.get() as f64);
                if f.side() != 0 {
                    plane = plane.map(|c| -c);
                }
                let mut newell = [0.0; 3];
                for k in 0..poly.len() {
                    let n = cross(sub(poly[k], [0.0; 3]), sub(poly[(k + 1) % poly.len()], [0.0; 3]));
                    newell = std::array::from_fn(|a| newell[a] + n[a]);
                }
                // Areas projected on the face's plane: compilers leave corners a little off the
                // plane, and only the projection is the same however the polygon is cut.
                let poly_area = dot(newell, plane).abs() / 2.0;
                let mut area = 0.0;
                for t in m.indices[s.indices.start as usize..s.indices.end as usize].chunks_exact(3) {
                    let p = [0, 1, 2].map(|k| v.positions[t[k] as usize]);
                    let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
                    let l = dot(n, n).sqrt();
                    // Within 25°, as compilers leave corners off the plane; slivers under a square unit
                    // may point anywhere.
                    assert!(
                        l < 2.0 || dot(n, plane) >= 0.9 * l,
                        "{name}: face {} triangle {p:?} faces away from its plane {plane:?}: {n:?}",
                        s.index
                    );
                    area += dot(n, plane).abs() / 2.0;
                }
                let rel = (area - poly_area).abs() / poly_area;
                assert!(rel <= 1e-4, "{name}: face {}: triangles cover {area}, polygon {poly_area}", s.index);
                checked += 1;
            }
        }
        checked
    }
    match quake1::lumps::record_set(bsp.branch()) {
        quake1::lumps::RecordSet::Bsp29 => with::<quake1::Bsp29>(name, bsp, scene),
        quake1::lumps::RecordSet::Hexen2 => with::<quake1::Hexen2>(name, bsp, scene),
        quake1::lumps::RecordSet::Bsp2 => with::<quake1::Bsp2>(name, bsp, scene),
        quake1::lumps::RecordSet::Rmq => with::<quake1::Rmq>(name, bsp, scene),
    }
}

#[test]
fn every_corpus_map_meshes_cleanly() {
    let Some(dir) = common::corpus("mesh_audit") else { return };
    // Development aid only: BSPKIT_MESH_FAMILIES=quake1,goldsrc limits the folders audited.
    let only: Option<Vec<String>> =
        std::env::var("BSPKIT_MESH_FAMILIES").ok().map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let mut audited = 0;
    for map in common::maps(&dir) {
        if only.as_ref().is_some_and(|o| !o.contains(&map.folder)) {
            continue;
        }
        let name = map.path.display().to_string();
        let bsp = Bsp::open(&map.path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).ok();
        let scene =
            mesh::build(&bsp, &MeshOptions { lightmaps: lm.as_ref(), ..Default::default() }).unwrap_or_else(|e| panic!("{name}: {e}"));
        generic(&name, &scene);
        if matches!(bsp.family(), Family::Quake | Family::GoldSrc) {
            let faces = quake(&name, &bsp, &scene);
            eprintln!("{name}: {} triangles, {faces} faces audited, skipped {:?}", scene.triangle_count(), scene.skipped);
        }
        audited += 1;
    }
    assert!(audited > 0, "no map audited");
}
