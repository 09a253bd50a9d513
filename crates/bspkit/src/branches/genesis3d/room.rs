//! A small but complete Genesis3D level built in code: one lit, textured quad face of a box
//! over a node with two leafs (one open, one solid), its texture's 8-bit texels (four mip
//! levels) and palette, a cluster with a PVS row, two areas, a sky and an empty motion list.
//! Every reference resolves, so it checks clean; tests and the fuzz seeds use it.

use zerocopy::byteorder::{F32, I32, U32};
use zerocopy::{FromZeros, IntoBytes, LittleEndian as LE};

use super::lumps::*;
use super::records::*;
use crate::build::builder::BspBuilder;

/// A small level: one quad face of a box, its texture with texels and a palette, two leafs.
pub fn small_level() -> Vec<u8> {
    let mut model = Model::new_zeroed();
    model.num_faces = I32::new(1);
    model.num_leafs = I32::new(2);
    model.num_clusters = I32::new(1);
    let mut node = Node::new_zeroed();
    node.children = [I32::new(-1), I32::new(-2)];
    node.num_faces = I32::new(1);
    let planes: Vec<Plane> = [[0f32, 0., 1., 0.], [0., 0., -1., 0.]]
        .iter()
        .map(|p| Plane { normal: [p[0], p[1], p[2]].map(F32::new), dist: F32::new(p[3]), kind: I32::new(2) })
        .collect();
    let mut leaf0 = Leaf::new_zeroed();
    leaf0.num_faces = I32::new(1);
    leaf0.first_portal = I32::new(-1);
    leaf0.area = I32::new(1);
    let mut leaf1 = Leaf::new_zeroed();
    leaf1.contents = I32::new(1);
    leaf1.cluster = I32::new(-1);
    let mut face = Face::new_zeroed();
    face.num_verts = I32::new(4);
    face.light_offset = I32::new(0);
    face.light_width = I32::new(2);
    face.light_height = I32::new(2);
    face.light_types = [0, 255, 255, 255];
    let verts: Vec<Vertex> =
        [[0f32, 0., 0.], [64., 0., 0.], [64., 64., 0.], [0., 64., 0.]].iter().map(|p| Vertex { point: p.map(F32::new) }).collect();
    let mut tex = TexInfo::new_zeroed();
    tex.vecs = [[1f32, 0., 0.], [0., 1., 0.]].map(|v| v.map(F32::new));
    tex.draw_scale = [F32::new(1.0), F32::new(1.0)];
    let mut texture = Texture::new_zeroed();
    texture.name[..5].copy_from_slice(b"stone");
    texture.width = I32::new(8);
    texture.height = I32::new(8);
    texture.flags = U32::new(0);
    let mut sky = SkyData::new_zeroed();
    sky.textures = [I32::new(-1); 6];
    let ents =
        super::ents::from_text(b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"DeathMatchStart\"\n\"origin\" \"0 0 32\"\n}\n")
            .unwrap_or_default();
    let cat = |v: &[u8]| v.to_vec();
    BspBuilder::new(&GENESIS3D)
        .lump(CHUNK_MODELS, model.as_bytes().to_vec())
        .lump(CHUNK_NODES, node.as_bytes().to_vec())
        .lump(CHUNK_LEAFS, [leaf0.as_bytes(), leaf1.as_bytes()].concat())
        .lump(CHUNK_CLUSTERS, I32::<LE>::new(0).as_bytes().to_vec())
        .lump(CHUNK_AREAS, vec![0u8; 16])
        .lump(CHUNK_PLANES, planes.iter().flat_map(|p| p.as_bytes().to_vec()).collect::<Vec<u8>>())
        .lump(CHUNK_FACES, face.as_bytes().to_vec())
        .lump(CHUNK_LEAF_FACES, vec![0u8; 4])
        .lump(CHUNK_VERT_INDEX, [0i32, 1, 2, 3].iter().flat_map(|i| i.to_le_bytes()).collect::<Vec<u8>>())
        .lump(CHUNK_VERTS, verts.iter().flat_map(|p| p.as_bytes().to_vec()).collect::<Vec<u8>>())
        .lump(CHUNK_RGB_VERTS, vec![0u8; 4 * 12])
        .lump(CHUNK_ENTDATA, ents)
        .lump(CHUNK_TEXINFO, tex.as_bytes().to_vec())
        .lump(CHUNK_TEXTURES, texture.as_bytes().to_vec())
        .lump(CHUNK_TEXDATA, vec![7u8; 8 * 8 * 85 / 64])
        .lump(CHUNK_LIGHTDATA, vec![1u8; 1 + 2 * 2 * 3])
        .lump(CHUNK_VISDATA, vec![1u8; 4])
        .lump(CHUNK_SKYDATA, sky.as_bytes().to_vec())
        .lump(CHUNK_PALETTES, vec![0u8; 768])
        .lump(CHUNK_MOTIONS, cat(b"Genesis_Motion_File v1.0\r\nNumMotions 0\r\n"))
        .build()
}
