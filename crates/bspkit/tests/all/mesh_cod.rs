//! Call of Duty 4's scene geometry (`bspkit::mesh::build`): every corpus `.d3dbsp` against its
//! own triangle soups, and a builder-made map with broken soups and a brush model.

use crate::common;

use bspkit::branches::cod::{self, DrawVert, Material, Model, TriangleSoup};
use bspkit::build::BspBuilder;
use bspkit::mesh::{self, MeshOptions, ModelSelect, SurfaceFlags, SurfaceKind};
use bspkit::Bsp;
use common::mesh::{cross, f64s as d3};
use zerocopy::{FromZeros, IntoBytes};

#[test]
fn corpus_cod_maps_build() {
    let Some(corpus) = common::corpus("mesh cod") else { return };
    let maps = common::maps_in(&corpus, "cod");
    assert!(maps.len() >= 4, "{} cod maps", maps.len());
    for map in maps {
        let name = map.path.file_name().unwrap().to_string_lossy().to_string();
        let bsp = Bsp::open(&map.path).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let soups: &[TriangleSoup] = bsp.records(cod::LUMP_TRIANGLES).unwrap();
        let models: &[Model] = bsp.records(cod::LUMP_MODELS).unwrap();
        assert!(!soups.is_empty(), "{name}");
        assert!(scene.skipped.is_empty(), "{name}: {:?}", scene.skipped);
        assert_eq!(scene.models.len(), models.len().max(1));
        // Triangles: the soups' index counts over three, soup by soup and in total over the
        // soups the models name.
        let named: usize = models.iter().map(|m| m.tri_soup_count[0].get() as usize).sum();
        let want: usize = models
            .iter()
            .flat_map(|m| {
                let f = m.first_tri_soup[0].get() as usize;
                soups[f..f + m.tri_soup_count[0].get() as usize].iter()
            })
            .map(|s| s.index_count.get() as usize / 3)
            .sum();
        assert_eq!(scene.triangle_count(), want, "{name}");
        // Every soup is in some model's run: all of them are drawn.
        let all: usize = soups.iter().map(|s| s.index_count.get() as usize / 3).sum();
        assert_eq!(scene.triangle_count(), all, "{name}");
        assert_eq!(scene.surface_count(), named, "{name}");
        let (mut agree, mut total) = (0, 0);
        for m in &scene.models {
            let v = &m.vertices;
            let n = v.positions.len();
            assert_eq!((v.normals.len(), v.uv0.len(), v.colours.len()), (n, n, n));
            assert!(v.uv1.is_empty());
            for s in &m.surfaces {
                assert_eq!((s.lump as usize, s.kind), (cod::LUMP_TRIANGLES, SurfaceKind::TriangleSoup));
                let soup = &soups[s.index as usize];
                assert_eq!(s.indices.len(), soup.index_count.get() as usize, "{name}: soup {}", s.index);
                assert_eq!(s.vertices.len(), soup.vertex_count.get() as usize);
                let mat: &[Material] = bsp.records(cod::LUMP_MATERIALS).unwrap();
                assert_eq!(scene.material(s.material).unwrap().name, mat[soup.material.get() as usize].name());
                let idx = &m.indices[s.indices.start as usize..s.indices.end as usize];
                assert!(idx.iter().all(|i| s.vertices.contains(i)), "{name}: soup {} indexes outside its vertices", s.index);
                for t in idx.chunks_exact(3) {
                    let [a, b, c] = [t[0], t[1], t[2]].map(|i| d3(v.positions[i as usize]));
                    let tn = cross([0, 1, 2].map(|k| b[k] - a[k]), [0, 1, 2].map(|k| c[k] - a[k]));
                    let vn = d3(v.normals[t[0] as usize]);
                    let d = tn[0] * vn[0] + tn[1] * vn[1] + tn[2] * vn[2];
                    if d.abs() > 1e-6 {
                        total += 1;
                        agree += (d > 0.0) as usize;
                    }
                }
            }
        }
        // Counter-clockwise around the stored normals.
        assert!(agree * 100 >= total * 95, "{name}: {agree} of {total} triangles face their normals");
        eprintln!(
            "{name}: {} models, {} soups, {} vertices, {} triangles ({agree} of {total} facing their normals)",
            scene.models.len(),
            scene.surface_count(),
            scene.models.iter().map(|m| m.vertices.len()).sum::<usize>(),
            scene.triangle_count()
        );
    }
}

#[test]
fn builder_map_soups_models_and_broken_references() {
    let soup = |material: u16, first_vertex: u32, vertex_count: u16, first_index: u32, index_count: u16| {
        let mut s = TriangleSoup::new_zeroed();
        s.material.set(material);
        s.first_vertex.set(first_vertex);
        s.vertex_count.set(vertex_count);
        s.first_index.set(first_index);
        s.index_count.set(index_count);
        s
    };
    let soups = [
        soup(0, 0, 4, 0, 6), // a quad
        soup(1, 0, 3, 0, 3), // material 1: caulk
        soup(5, 0, 3, 0, 3), // material out of range
        soup(0, 2, 4, 0, 3), // vertices 2..6 of 4
        soup(0, 0, 3, 4, 3), // indices 4..7 of 6
        soup(0, 0, 3, 3, 3), // index 3 of a 3-vertex soup
        soup(0, 0, 4, 0, 4), // not whole triangles
        soup(0, 0, 4, 0, 6), // model 1's quad
        soup(0, 0, 4, 0, 6), // in no model's run
    ];
    let verts: Vec<DrawVert> = [[0., 0., 0.], [64., 0., 0.], [64., 64., 0.], [0., 64., 0.]]
        .iter()
        .map(|p: &[f32; 3]| {
            let mut v = DrawVert::new_zeroed();
            v.xyz = p.map(zerocopy::little_endian::F32::new);
            v.normal = [0., 0., 2.].map(zerocopy::little_endian::F32::new);
            v.tex_coord = [p[0] / 64., p[1] / 64.].map(zerocopy::little_endian::F32::new);
            v.colour = [1, 2, 3, 4];
            v
        })
        .collect();
    // Counter-clockwise seen from +Z after the mesh swaps the last two corners.
    let indices: Vec<u8> = [0u16, 2, 1, 0, 3, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
    let mut mats = [Material::new_zeroed(), Material::new_zeroed()];
    mats[0].name[..8].copy_from_slice(b"ch_floor");
    mats[1].name[..5].copy_from_slice(b"caulk");
    let mut models = [Model::new_zeroed(), Model::new_zeroed()];
    for set in 0..2 {
        models[0].tri_soup_count[set].set(7);
        models[1].first_tri_soup[set].set(7);
        models[1].tri_soup_count[set].set(1);
    }
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"script_brushmodel\"\n\"targetname\" \"lift\"\n\"model\" \"*1\"\n\"origin\" \"0 0 32\"\n}\n\0";
    // The layered set, then (with no layered soups) the simple one.
    let sets = [
        (cod::LUMP_TRIANGLES, cod::LUMP_DRAWVERTS, cod::LUMP_DRAWINDICES),
        (cod::LUMP_UNLAYERED_TRIANGLES, cod::LUMP_UNLAYERED_DRAWVERTS, cod::LUMP_UNLAYERED_DRAWINDICES),
    ];
    for (soup_lump, vert_lump, index_lump) in sets {
        let bytes = BspBuilder::new(&cod::COD4)
            .lump(cod::LUMP_ENTITIES, ents.to_vec())
            .lump(cod::LUMP_MATERIALS, mats.as_bytes().to_vec())
            .lump(soup_lump, soups.as_bytes().to_vec())
            .lump(vert_lump, verts.as_bytes().to_vec())
            .lump(index_lump, indices.clone())
            .lump(cod::LUMP_MODELS, models.as_bytes().to_vec())
            .build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let skipped: Vec<(u32, &str)> = scene.skipped.iter().map(|s| (s.index, s.reason.as_str())).collect();
        assert_eq!(skipped.iter().map(|s| s.0).collect::<Vec<_>>(), [2, 3, 4, 5, 6, 8], "{skipped:?}");
        assert!(skipped[0].1.contains("material 5"));
        assert!(skipped[1].1.contains("vertex range 2+4"));
        assert!(skipped[2].1.contains("index range 4+3"));
        assert!(skipped[3].1.contains("index 1 is 3"), "{skipped:?}");
        assert!(skipped[4].1.contains("whole triangles"));
        assert!(skipped[5].1.contains("no model"));
        assert_eq!(scene.models.len(), 2);
        let world = &scene.models[0];
        assert_eq!(world.surfaces.len(), 2);
        assert_eq!(world.indices[..6], [0, 1, 2, 0, 2, 3]);
        assert_eq!(world.vertices.normals[0], [0., 0., 1.]);
        assert_eq!(world.vertices.uv0[2], [1., 1.]);
        assert_eq!(world.vertices.colours[3], [1, 2, 3, 4]);
        assert_eq!(world.surfaces[1].flags, SurfaceFlags::NODRAW);
        assert_eq!(scene.material(world.surfaces[0].material).unwrap().name, "ch_floor");
        let lift = &scene.models[1];
        assert_eq!((lift.name.as_str(), lift.origin, lift.entity), ("*1 script_brushmodel lift", [0., 0., 32.], Some(1)));
        assert_eq!(lift.indices.len(), 6);
        let world_only = mesh::build(&bsp, &MeshOptions { models: ModelSelect::World, ..Default::default() }).unwrap();
        assert_eq!(world_only.models.len(), 1);
        assert_eq!(world_only.skipped.len(), 5, "only the world's soups are looked at");
        assert_eq!(world_only.models[0], scene.models[0]);
        assert!(scene.skipped.iter().chain(&world_only.skipped).all(|s| s.lump as usize == soup_lump));
        assert!(world.surfaces.iter().all(|s| s.lump as usize == soup_lump));
    }
}

#[test]
fn damaged_maps_never_panic() {
    common::mesh::damaged_corpus_maps_build(
        "mesh cod damaged",
        "cod",
        &[cod::LUMP_TRIANGLES, cod::LUMP_MODELS, cod::LUMP_DRAWINDICES, cod::LUMP_MATERIALS],
    );
}
