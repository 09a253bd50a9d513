//! A small complete James Bond 007: Nightfire map (version 42), written for tests and fuzz
//! seeds: a 256 × 256 × 128 box room of six inward faces (a 4-vertex, 2-triangle list each;
//! the ceiling `special/sky`), one lit face (the floor, style 0, 64 bytes of LIGHTING, its own
//! lightmap projection of 16 units a luxel), a floor brush with six sides, a one-node tree
//! split on the floor plane (leaf 0 solid, leaf 1 the room with its visibility byte), one model
//! and two entities. Every cross-reference the family's checks read holds
//! ([`crate::branches::nightfire::check`]). Unlike the compiler, which writes sky and nodraw
//! faces without vertices, the builder gives its sky ceiling its four corners, so the sky flag
//! reaches the scene and its tests.

use crate::branches::nightfire::lumps::*;
use crate::branches::nightfire::records::*;
use crate::build::builder::BspBuilder;
use zerocopy::little_endian::{F32, I32, U32};
use zerocopy::{Immutable, IntoBytes};

const MINS: [f32; 3] = [-128.0, -128.0, 0.0];
const MAXS: [f32; 3] = [128.0, 128.0, 128.0];

fn f3(v: [f32; 3]) -> [F32; 3] {
    v.map(F32::new)
}
fn cat<T: IntoBytes + Immutable>(items: &[T]) -> Vec<u8> {
    items.as_bytes().to_vec()
}
fn name64(s: &str) -> Name64 {
    let mut name = [0u8; 64];
    name[..s.len()].copy_from_slice(s.as_bytes());
    Name64 { name }
}

/// The room (see the module notes).
pub fn nightfire_room() -> Vec<u8> {
    let mut b = BspBuilder::new(&NIGHTFIRE);
    b = b.lump(ENTITIES, b"{\n\"classname\" \"worldspawn\"\n\"message\" \"bspkit nightfire room\"\n}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 40\"\n}\n\0".to_vec());
    b = b.lump(TEXTURES, cat(&[name64("bspkit/room"), name64("special/sky")]));
    b = b.lump(MATERIALS, cat(&[name64("concrete")]));

    // Six inward walls: wall k lies on axis k / 2, at the minimum (k even, facing +axis) or the
    // maximum (facing -axis). Plane k is the wall's, facing into the room.
    let corner = |c: usize| -> [f32; 3] { std::array::from_fn(|a| if c >> a & 1 == 1 { MAXS[a] } else { MINS[a] }) };
    let (mut planes, mut pos, mut normals, mut indices, mut faces, mut matrices) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::<U32>::new(), Vec::new(), Vec::new());
    for k in 0..6usize {
        let (axis, max) = (k / 2, k % 2 == 1);
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let mut n = [0.0f32; 3];
        n[axis] = if max { -1.0 } else { 1.0 };
        let dist = if max { -MAXS[axis] } else { MINS[axis] };
        planes.push(Plane { normal: f3(n), dist: F32::new(dist), axis: I32::new(axis as i32) });
        let first = pos.len() as u32;
        for (a, c) in [(0, 0), (1, 0), (1, 1), (0, 1)] {
            pos.push(Vec3 { xyz: f3(corner((max as usize) << axis | a << u | c << v)) });
            normals.push(Vec3 { xyz: f3(n) });
        }
        // Counter-clockwise seen from inside the room for both wall kinds.
        let tris: [u32; 6] = if max { [0, 2, 1, 0, 3, 2] } else { [0, 1, 2, 0, 2, 3] };
        let first_index = indices.len() as u32;
        indices.extend(tris.map(U32::new));
        // Projection: texels along the wall's two other axes.
        let (mut s, mut t) = ([0.0f32; 4], [0.0f32; 4]);
        s[u] = 1.0;
        t[v] = -1.0;
        matrices.push(TexMatrix { s: s.map(F32::new), t: t.map(F32::new) });
        let floor = k == 4;
        let ceiling = k == 5;
        faces.push(Face {
            plane: U32::new(k as u32),
            first_vertex: U32::new(first),
            vertex_count: U32::new(4),
            first_index: U32::new(first_index),
            index_count: U32::new(6),
            // The ceiling is sky (SURF_SKY, 4).
            flags: U32::new(if ceiling { 4 } else { 0 }),
            texture: U32::new(u32::from(ceiling)),
            material: U32::new(0),
            texture_matrix: U32::new(k as u32),
            // The lit floor has its own lightmap projection (TEXMATRIX 6, below); the others
            // are unlit, their projection not read.
            lightmap_matrix: U32::new(if floor { 6 } else { k as u32 }),
            styles: if floor { [0, 255, 255, 255] } else { [255; 4] },
            lightmap_offset: I32::new(if floor { 0 } else { -1 }),
        });
    }
    b = b.lump(PLANES, cat(&planes));
    b = b.lump(VERTEXES, cat(&pos));
    b = b.lump(NORMALS, cat(&normals));
    b = b.lump(INDICES, cat(&indices));
    b = b.lump(FACES, cat(&faces));
    // The floor's lightmap projection as the compiler makes it (`GetLightmapProjections`): for
    // a floor, s = (0, -1, 0), t = normal × s = (1, 0, 0), over 16 units a luxel with offsets 0,
    // so the 256-unit floor spans 16 × 16 luxels (-8..8 on both axes).
    matrices.push(TexMatrix { s: [0.0, -1.0 / 16.0, 0.0, 0.0].map(F32::new), t: [1.0 / 16.0, 0.0, 0.0, 0.0].map(F32::new) });
    b = b.lump(TEXMATRIX, cat(&matrices));
    // The floor's samples: 64 grey bytes (one style). How many bytes a luxel takes is not known
    // (see `branches::nightfire::lightmap`); only the offset is checked.
    b = b.lump(LIGHTING, vec![128u8; 64]);

    // The floor brush under the room: six sides on the room's planes (the check reads planes only).
    b = b.lump(BRUSHES, cat(&[Brush { flags: U32::new(1), first_side: U32::new(0), side_count: U32::new(6) }]));
    b = b.lump(BRUSHSIDES, cat(&(0..6u32).map(|k| BrushSide { face: U32::new(k), plane: U32::new(k) }).collect::<Vec<_>>()));

    // The tree: the floor plane (4) splits the room (leaf 1) from the solid below (leaf 0).
    let node = Node { plane: I32::new(4), children: [I32::new(-2), I32::new(-1)], mins: f3([-128.0, -128.0, -16.0]), maxs: f3(MAXS) };
    b = b.lump(NODES, cat(&[node]));
    let leaf = |contents: u32, vis: i32, (fs, ns): (u32, u32), (fb, nb): (u32, u32)| Leaf {
        contents: U32::new(contents),
        vis_offset: I32::new(vis),
        mins: f3(MINS),
        maxs: f3(MAXS),
        first_mark_surface: U32::new(fs),
        mark_surface_count: U32::new(ns),
        first_mark_brush: U32::new(fb),
        mark_brush_count: U32::new(nb),
    };
    b = b.lump(LEAFS, cat(&[leaf(1, -1, (0, 0), (0, 1)), leaf(0, 0, (0, 6), (0, 0))]));
    b = b.lump(MARKSURFACES, cat(&(0..6u32).map(U32::new).collect::<Vec<_>>()));
    b = b.lump(MARKBRUSHES, cat(&[U32::new(0)]));
    // One visibility byte: leaf 1 sees itself.
    b = b.lump(VISIBILITY, vec![1u8]);
    let model = Model {
        mins: f3(MINS),
        maxs: f3(MAXS),
        head_nodes: [U32::new(0); 4],
        first_leaf: U32::new(0),
        leaf_count: U32::new(2),
        first_face: U32::new(0),
        face_count: U32::new(6),
    };
    b = b.lump(MODELS, cat(&[model]));
    b.build()
}
