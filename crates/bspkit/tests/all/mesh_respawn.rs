//! Respawn meshes in the scene model: the corpus maps (Titanfall 2) build with every mesh once,
//! and builder maps cover the Titanfall (v29) and Apex (v49) layouts and broken references.

use crate::common;

use bspkit::branches::respawn::{self, MeshRecord, ModelRecord, View};
use bspkit::build::BspBuilder;
use bspkit::mesh::{self, MeshOptions, ModelSelect, Scene, SurfaceFlags};
use bspkit::Bsp;
use zerocopy::{FromZeros, IntoBytes};

/// Invariants every scene holds: indices in range and inside their surface's vertices,
/// normals unit, per-vertex attributes as long as the positions.
fn assert_well_formed(scene: &Scene, what: &str) {
    for m in &scene.models {
        let n = m.vertices.len();
        assert_eq!(m.vertices.normals.len(), n, "{what}: normals");
        assert_eq!(m.vertices.uv0.len(), n, "{what}: uv0");
        assert!(m.vertices.uv1.is_empty() || m.vertices.uv1.len() == n, "{what}: uv1");
        assert!(m.lightmap_pages.is_empty() || m.lightmap_pages.len() == m.surfaces.len(), "{what}: lightmap pages");
        assert!(m.vertices.colours.is_empty() || m.vertices.colours.len() == n, "{what}: colours");
        assert_eq!(m.indices.len() % 3, 0, "{what}: whole triangles");
        for s in &m.surfaces {
            for &i in &m.indices[s.indices.start as usize..s.indices.end as usize] {
                assert!(s.vertices.contains(&i), "{what}: mesh {} index {i} outside {:?}", s.index, s.vertices);
            }
            assert!((s.material as usize) < scene.materials.len());
        }
        for nrm in &m.vertices.normals {
            let len = (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-3, "{what}: normal {nrm:?} not unit");
        }
    }
}

#[test]
fn corpus_respawn_maps_export_every_mesh_once() {
    let Some(corpus) = common::corpus("corpus_respawn_maps_export_every_mesh_once") else { return };
    let maps = common::maps_in(&corpus, "respawn");
    assert_eq!(maps.len(), 3, "the corpus has 3 Respawn maps");
    for m in maps {
        let bsp = Bsp::open(&m.path).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", m.path.display()));
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        assert_well_formed(&scene, &name);
        let view = View::<respawn::Titanfall2>::new(&bsp).unwrap();
        let meshes = view.meshes().unwrap();
        // Every mesh of the lump once, across the models.
        let mut seen = vec![0u32; meshes.len()];
        for s in scene.models.iter().flat_map(|m| &m.surfaces) {
            assert_eq!(s.lump as usize, respawn::LUMP_MESHES);
            seen[s.index as usize] += 1;
        }
        let covered: usize = view.models().unwrap().iter().map(|m| m.num_meshes() as usize).sum();
        assert_eq!(covered, meshes.len(), "{name}: the models cover the meshes lump");
        assert!(
            seen.iter().all(|&n| n == 1),
            "{name}: meshes not exported exactly once: {:?}",
            seen.iter().enumerate().filter(|(_, &n)| n != 1).collect::<Vec<_>>()
        );
        assert!(scene.skipped.iter().all(|s| s.lump as usize != respawn::LUMP_MESHES), "{name}: {:?}", scene.skipped);
        // Triangles: the sum of the meshes' index counts / 3.
        let expected: usize = meshes.iter().map(|m| m.num_triangles() as usize).sum();
        assert_eq!(scene.triangle_count(), expected, "{name}");
        // Every surface has a named material and a vertex kind.
        for s in scene.models.iter().flat_map(|m| &m.surfaces) {
            assert!(!scene.materials[s.material as usize].name.is_empty(), "{name}: mesh {} unnamed", s.index);
            assert!(matches!(s.vertex_kind.map(|k| k.key()), Some("lit_flat" | "lit_bump" | "unlit" | "unlit_ts")));
        }
        // Without lightmaps asked for, no lightmap UVs; with them, the lit vertices' stored UVs
        // mapped into the atlas page of their material sort's LIGHTMAP_HEADERS page, unlit
        // surfaces on none.
        assert!(scene.models.iter().all(|m| m.vertices.uv1.is_empty() && m.lightmap_pages.is_empty()));
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
        let lit = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        assert_well_formed(&lit, &name);
        let atlas_pages = lm.pages.len() as u32;
        let mut lit_surfaces = 0;
        for md in &lit.models {
            for (s, &page) in md.surfaces.iter().zip(&md.lightmap_pages) {
                let has_uv = matches!(s.vertex_kind.map(|k| k.key()), Some("lit_flat" | "lit_bump"));
                assert_eq!(page != u32::MAX, has_uv, "{name}: mesh {} ({:?}) page {page}", s.index, s.vertex_kind);
                if has_uv {
                    lit_surfaces += 1;
                    assert!(page < atlas_pages, "{name}: mesh {} page {page} of {atlas_pages}", s.index);
                    let uvs = &md.vertices.uv1[s.vertices.start as usize..s.vertices.end as usize];
                    assert!(uvs.iter().flatten().all(|c| c.is_finite()), "{name}: mesh {}", s.index);
                }
            }
        }
        assert!(lit_surfaces > 0, "{name}: every corpus Respawn map has lit meshes");
        let props = view.static_props().unwrap().map(|p| p.count).unwrap_or(0);
        assert_eq!(scene.props.len(), props, "{name}: props");
        let no_props = mesh::build(&bsp, &MeshOptions { no_props: true, ..Default::default() }).unwrap();
        assert!(no_props.props.is_empty());
        let world = mesh::build(&bsp, &MeshOptions { models: ModelSelect::World, ..Default::default() }).unwrap();
        assert_eq!(world.models.len(), 1);

        // Winding: counter-clockwise triangles face along their vertex normals.
        let (mut along, mut against) = (0usize, 0usize);
        for md in &scene.models {
            for t in md.indices.chunks_exact(3) {
                let p = |i: u32| md.vertices.positions[i as usize];
                let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
                let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
                let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
                let vn = md.vertices.normals[t[0] as usize];
                let d = n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2];
                if d > 0.0 {
                    along += 1;
                } else if d < 0.0 {
                    against += 1;
                }
            }
        }
        assert!(along > 9 * against, "{name}: {along} triangles face along their normals, {against} against");
        let kinds: std::collections::BTreeSet<_> =
            scene.models.iter().flat_map(|m| &m.surfaces).filter_map(|s| s.vertex_kind.map(|k| k.key())).collect();
        eprintln!(
            "{name}: {} models, {} meshes, {} triangles, {} materials, {} props, kinds {kinds:?}, winding {along}/{against}",
            scene.models.len(),
            scene.surface_count(),
            scene.triangle_count(),
            scene.materials.len(),
            scene.props.len()
        );
    }
}

const ENTS: &[u8] =
    b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"func_brush\"\n\"model\" \"*1\"\n\"origin\" \"10 20 30\"\n}\n\0";

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|i| i.to_le_bytes()).collect()
}

fn vec3s(v: &[[f32; 3]]) -> Vec<u8> {
    v.iter().flat_map(|p| p.iter().flat_map(|c| c.to_le_bytes())).collect()
}

/// Titanfall (v29): two models, one lit-flat mesh in each (the second through a material sort
/// with a vertex offset), a mesh whose material sort is missing, skipped.
#[test]
fn titanfall_builder_map_meshes() {
    use respawn::*;
    let mut world = <ModelR1>::new_zeroed();
    world.num_meshes.set(2);
    let mut brush = <ModelR1>::new_zeroed();
    brush.first_mesh.set(2);
    brush.num_meshes.set(1);
    let mesh = |first: u32, sort: u16| {
        let mut m = <MeshR1>::new_zeroed();
        m.first_mesh_index.set(first);
        m.num_triangles.set(1);
        m.material_sort.set(sort);
        m
    };
    let meshes = [mesh(0, 0), mesh(0, 7), mesh(3, 1)];
    let mut sorts = [<MaterialSortR1>::new_zeroed(), <MaterialSortR1>::new_zeroed()];
    sorts[1].texture_data.set(1);
    sorts[1].vertex_offset.set(1);
    let mut tds = [<TextureDataR1>::new_zeroed(), <TextureDataR1>::new_zeroed()];
    tds[0].size = [64.into(), 32.into()];
    tds[1].name_index.set(1);
    let mut verts = [<VertexLitFlatR1>::new_zeroed(); 4];
    for (i, v) in verts.iter_mut().enumerate() {
        v.position_index.set(i as u32);
        v.colour = [10, 20, 30, 255];
        v.albedo_uv = [(i as f32).into(), 0.5.into()];
    }
    let bytes = BspBuilder::new(&TITANFALL)
        .version(29)
        .lump(LUMP_ENTITIES, ENTS.to_vec())
        .lump(LUMP_VERTICES, vec3s(&[[0., 0., 0.], [0., 64., 0.], [64., 0., 0.], [64., 64., 0.]]))
        .lump(LUMP_VERTEX_NORMALS, vec3s(&[[0., 0., 2.]]))
        .lump(LUMP_MODELS, [world.as_bytes(), brush.as_bytes()].concat())
        .lump(LUMP_MESHES, meshes.as_bytes().to_vec())
        .lump(LUMP_MESH_INDICES, u16s(&[0, 1, 2, 0, 1, 2]))
        .lump(LUMP_MATERIAL_SORTS, sorts.as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA, tds.as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA_STRING_TABLE, [0u32, 10].as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA_STRING_DATA, b"dev/grid1\0tools/toolsskybox\0".to_vec())
        .lump(LUMP_VERTEX_LIT_FLAT, verts.as_bytes().to_vec())
        .build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert_well_formed(&scene, "titanfall");
    assert_eq!(scene.models.len(), 2);
    let (w, b) = (&scene.models[0], &scene.models[1]);
    assert_eq!(w.surfaces.len(), 1, "the mesh with a missing material sort is skipped");
    assert_eq!(scene.skipped.len(), 1);
    assert_eq!((scene.skipped[0].lump as usize, scene.skipped[0].index), (LUMP_MESHES, 1));
    assert!(scene.skipped[0].reason.contains("material sort 7"), "{}", scene.skipped[0].reason);
    assert_eq!(w.surfaces[0].vertex_kind.map(|k| k.key()), Some("lit_flat"));
    assert_eq!(scene.materials[w.surfaces[0].material as usize].name, "dev/grid1");
    assert_eq!(scene.materials[w.surfaces[0].material as usize].size, Some([64, 32]));
    // Clockwise 0 1 2 becomes counter-clockwise 0 2 1.
    assert_eq!(w.indices, vec![0, 2, 1]);
    assert_eq!(w.vertices.positions[1], [0., 64., 0.]);
    assert_eq!(w.vertices.normals[0], [0., 0., 1.]);
    assert_eq!(w.vertices.colours[0], [10, 20, 30, 255]);
    assert_eq!(w.vertices.uv0[2], [2.0, 0.5]);
    // The brush model: indices 3.. with the sort's vertex offset 1, placed by its entity.
    assert_eq!(b.origin, [10., 20., 30.]);
    assert_eq!(b.entity, Some(1));
    assert_eq!(b.vertices.positions, vec![[0., 64., 0.], [64., 0., 0.], [64., 64., 0.]]);
    let bm = &scene.materials[b.surfaces[0].material as usize];
    assert_eq!(bm.name, "tools/toolsskybox");
    assert!(bm.flags.contains(SurfaceFlags::SKY) && !bm.flags.contains(SurfaceFlags::TOOL));
    assert_eq!(scene.triangle_count(), 2);
}

/// Apex (v49): texture names from SURFACE_NAMES, the 20-byte unlit vertex without a colour, a
/// vertex naming a missing normal (skipped), no panic on a mesh index past the lump.
#[test]
fn apex_builder_map_meshes() {
    use respawn::*;
    let mut world = <ModelR5>::new_zeroed();
    world.num_meshes.set(3);
    let mesh = |first: u32, tris: u16| {
        let mut m = <MeshR5>::new_zeroed();
        m.first_mesh_index.set(first);
        m.num_triangles.set(tris);
        m.flags.set(0x400); // unlit
        m
    };
    let meshes = [mesh(0, 1), mesh(3, 1), mesh(6, 50)];
    let mut td = <TextureDataR5>::new_zeroed();
    td.name_index.set(4);
    let mut verts = [<VertexUnlitR5>::new_zeroed(); 4];
    for (i, v) in verts.iter_mut().enumerate() {
        v.position_index.set(i as u32);
    }
    verts[3].normal_index.set(9);
    let bytes = BspBuilder::new(&APEX)
        .version(49)
        .lump(LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(LUMP_VERTICES, vec3s(&[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [1., 1., 0.]]))
        .lump(LUMP_VERTEX_NORMALS, vec3s(&[[0., 0., 1.]]))
        .lump(LUMP_MODELS, world.as_bytes().to_vec())
        .lump(LUMP_MESHES, meshes.as_bytes().to_vec())
        .lump(LUMP_MESH_INDICES, u16s(&[0, 1, 2, 1, 3, 2]))
        .lump(LUMP_MATERIAL_SORTS, <MaterialSortR5>::new_zeroed().as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA, td.as_bytes().to_vec())
        .lump(LUMP_SURFACE_NAMES, b"xx\0\0world/dev/grid\0".to_vec())
        .lump(LUMP_VERTEX_UNLIT, verts.as_bytes().to_vec())
        .build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
    assert_well_formed(&scene, "apex");
    let w = &scene.models[0];
    assert_eq!(w.surfaces.len(), 1);
    assert_eq!(w.surfaces[0].vertex_kind.map(|k| k.key()), Some("unlit"));
    assert!(w.vertices.colours.is_empty(), "Apex unlit vertices have no colour");
    assert_eq!(scene.materials[0].name, "world/dev/grid");
    let skipped: Vec<u32> = scene.skipped.iter().map(|s| s.index).collect();
    assert_eq!(skipped, vec![1, 2], "{:?}", scene.skipped);
    assert!(scene.skipped[0].reason.contains("normal 9"), "{}", scene.skipped[0].reason);
    assert!(
        scene.skipped[1].reason.contains("MESH_INDICES") || scene.skipped[1].reason.contains("run past"),
        "{}",
        scene.skipped[1].reason
    );
}

/// Titanfall 2 maps built without their geometry lumps give an empty scene, not an error or
/// a panic; a model past the meshes is a warning.
#[test]
fn titanfall2_empty_and_truncated() {
    use respawn::*;
    let bytes = BspBuilder::new(&TITANFALL2).version(37).lump(LUMP_ENTITIES, b"{\n}\n\0".to_vec()).build();
    let scene = mesh::build(&Bsp::from_bytes(&bytes).unwrap(), &MeshOptions::default()).unwrap();
    assert_eq!(scene.triangle_count(), 0);
    let mut model = <ModelR1>::new_zeroed();
    model.num_meshes.set(5);
    let bytes = BspBuilder::new(&TITANFALL2).version(37).lump(LUMP_MODELS, model.as_bytes().to_vec()).build();
    let scene = mesh::build(&Bsp::from_bytes(&bytes).unwrap(), &MeshOptions::default()).unwrap();
    assert!(scene.warnings.iter().any(|w| w.contains("run past")), "{:?}", scene.warnings);
}
