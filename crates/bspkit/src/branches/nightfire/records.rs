//! Nightfire record types, declared once each with `declare_record!` (layouts and sizes from
//! the compiler reconstruction's `bsp_structs.h`, see [`super`]). All little-endian.

use zerocopy::little_endian::{F32, I32, U32};

crate::schema::types::declare_record! {
    /// A plane (PLANES, 20 bytes): normal, distance, closest axis (0..=2 axial, 3..=5 nearest).
    pub struct Plane {
        pub normal: [F32; 3],
        pub dist: F32,
        pub axis: I32
    }
    /// A name (TEXTURES and MATERIALS, 64 bytes, NUL-padded). Textures are image paths
    /// without extension; materials are surface material names (sounds, impacts).
    pub struct Name64 {
        pub name: [u8; 64]
    }
    /// A point or a normal (VERTEXES, NORMALS: 12 bytes; NORMALS holds one per vertex).
    pub struct Vec3 {
        pub xyz: [F32; 3]
    }
    /// A node (NODES, 36 bytes): a plane and two children (a child below 0 is leaf `-1 - child`,
    /// the Quake convention; the compiler keeps leaf 0 as the solid leaf), float bounds.
    pub struct Node {
        pub plane: I32,
        pub children: [I32; 2],
        pub mins: [F32; 3],
        pub maxs: [F32; 3]
    }
    /// A face (FACES, 48 bytes): a plane, a run of vertices (with their normals) and a run of
    /// INDICES counted from the face's first vertex, drawn as a triangle list; flags; a texture,
    /// a material, the texture and the lightmap projections (TEXMATRIX), four light styles and
    /// the offset of its samples in LIGHTING.
    pub struct Face {
        pub plane: U32,
        pub first_vertex: U32,
        pub vertex_count: U32,
        pub first_index: U32,
        pub index_count: U32,
        pub flags: U32,
        pub texture: U32,
        pub material: U32,
        pub texture_matrix: U32,
        pub lightmap_matrix: U32,
        pub styles: [u8; 4],
        pub lightmap_offset: I32
    }
    /// A leaf (LEAFS, 48 bytes): contents flags, visibility offset (−1: none), float bounds,
    /// runs of MARKSURFACES and MARKBRUSHES.
    pub struct Leaf {
        pub contents: U32,
        pub vis_offset: I32,
        pub mins: [F32; 3],
        pub maxs: [F32; 3],
        pub first_mark_surface: U32,
        pub mark_surface_count: U32,
        pub first_mark_brush: U32,
        pub mark_brush_count: U32
    }
    /// A model (MODELS, 56 bytes): bounds, four head nodes, runs of leaves and faces.
    pub struct Model {
        pub mins: [F32; 3],
        pub maxs: [F32; 3],
        pub head_nodes: [U32; 4],
        pub first_leaf: U32,
        pub leaf_count: U32,
        pub first_face: U32,
        pub face_count: U32
    }
    /// A brush (BRUSHES, 12 bytes): contents flags and a run of BRUSHSIDES.
    pub struct Brush {
        pub flags: U32,
        pub first_side: U32,
        pub side_count: U32
    }
    /// A brush side (BRUSHSIDES, 8 bytes): the side's drawn face (the compiler's field name;
    /// its meaning is not confirmed on a real map, so it is not checked) and its plane.
    pub struct BrushSide {
        pub face: U32,
        pub plane: U32
    }
    /// A texture projection (TEXMATRIX, 32 bytes): `s` and `t` as `{x, y, z, offset}`; a
    /// coordinate is `dot(position, xyz) + offset`.
    pub struct TexMatrix {
        pub s: [F32; 4],
        pub t: [F32; 4]
    }
}

impl Name64 {
    /// The name up to its first NUL (lossy UTF-8).
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.name)
    }
}
