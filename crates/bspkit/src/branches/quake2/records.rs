//! Quake 2 record types, IBSP 38 and Qbism (quake_facts.md §4, §4.1), and the [`Layout`] markers
//! that pick one set.

use zerocopy::byteorder::{F32, I16, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian as LE, Unaligned};

macro_rules! record {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned, Clone, Copy, Debug)]
        pub struct $name { $($(#[$fm])* pub $f: $t,)* }
    };
}
pub(crate) use record;

record! {
    /// `dplane_t`, 20 bytes (quake_facts.md §4 lump 1, as Quake 1).
    pub struct Plane { pub normal: [F32<LE>; 3], pub dist: F32<LE>, pub kind: I32<LE>, }
}
record! {
    /// A vertex position, 12 bytes.
    pub struct Vertex { pub point: [F32<LE>; 3], }
}
record! {
    /// `dnode_t`, 28 bytes. A negative child is leaf `-(child + 1)`.
    pub struct Node {
        pub plane: I32<LE>,
        pub children: [I32<LE>; 2],
        pub mins: [I16<LE>; 3],
        pub maxs: [I16<LE>; 3],
        pub first_face: U16<LE>,
        pub num_faces: U16<LE>,
    }
}
record! {
    /// Qbism node, 44 bytes: float bounds, 32-bit face range (quake_facts.md §4.1).
    pub struct NodeQbism {
        pub plane: I32<LE>,
        pub children: [I32<LE>; 2],
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub first_face: U32<LE>,
        pub num_faces: U32<LE>,
    }
}
record! {
    /// `texinfo_t`, 76 bytes, shared by both layouts.
    pub struct TexInfo {
        /// s and t axes: xyz then offset.
        pub vecs: [[F32<LE>; 4]; 2],
        pub flags: I32<LE>,
        pub value: I32<LE>,
        /// Texture path below `textures/`, NUL-padded.
        pub texture: [u8; 32],
        /// Next frame of an animated texture, −1 = none.
        pub next_texinfo: I32<LE>,
    }
}
impl TexInfo {
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.texture)
    }
}
record! {
    /// `dface_t`, 20 bytes.
    pub struct Face {
        pub plane: U16<LE>,
        pub side: I16<LE>,
        pub first_edge: I32<LE>,
        pub num_edges: I16<LE>,
        pub texinfo: I16<LE>,
        pub styles: [u8; 4],
        /// Byte offset into the lighting lump, −1 = none.
        pub light_offset: I32<LE>,
    }
}
record! {
    /// Qbism face, 28 bytes.
    pub struct FaceQbism {
        pub plane: U32<LE>,
        pub side: I32<LE>,
        pub first_edge: I32<LE>,
        pub num_edges: I32<LE>,
        pub texinfo: I32<LE>,
        pub styles: [u8; 4],
        pub light_offset: I32<LE>,
    }
}
record! {
    /// `dleaf_t`, 28 bytes. Cluster −1 = no cluster (solid).
    pub struct Leaf {
        pub contents: I32<LE>,
        pub cluster: I16<LE>,
        pub area: I16<LE>,
        pub mins: [I16<LE>; 3],
        pub maxs: [I16<LE>; 3],
        pub first_leaf_face: U16<LE>,
        pub num_leaf_faces: U16<LE>,
        pub first_leaf_brush: U16<LE>,
        pub num_leaf_brushes: U16<LE>,
    }
}
record! {
    /// Qbism leaf, 52 bytes.
    pub struct LeafQbism {
        pub contents: I32<LE>,
        pub cluster: I32<LE>,
        pub area: I32<LE>,
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub first_leaf_face: U32<LE>,
        pub num_leaf_faces: U32<LE>,
        pub first_leaf_brush: U32<LE>,
        pub num_leaf_brushes: U32<LE>,
    }
}
record! {
    /// `dedge_t`, 4 bytes: two vertex indices.
    pub struct Edge { pub v: [U16<LE>; 2], }
}
record! {
    /// Qbism edge, 8 bytes.
    pub struct EdgeQbism { pub v: [U32<LE>; 2], }
}
record! {
    /// `dmodel_t`, 48 bytes.
    pub struct Model {
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub origin: [F32<LE>; 3],
        pub head_node: I32<LE>,
        pub first_face: I32<LE>,
        pub num_faces: I32<LE>,
    }
}
record! {
    /// `dbrush_t`, 12 bytes.
    pub struct Brush { pub first_side: I32<LE>, pub num_sides: I32<LE>, pub contents: I32<LE>, }
}
record! {
    /// `dbrushside_t`, 4 bytes. Texinfo −1 = none (bevel sides).
    pub struct BrushSide { pub plane: U16<LE>, pub texinfo: I16<LE>, }
}
record! {
    /// Qbism brush side, 8 bytes.
    pub struct BrushSideQbism { pub plane: U32<LE>, pub texinfo: I32<LE>, }
}
record! {
    /// `darea_t`, 8 bytes (area 0 is reserved).
    pub struct Area { pub num_area_portals: I32<LE>, pub first_area_portal: I32<LE>, }
}
record! {
    /// `dareaportal_t`, 8 bytes.
    pub struct AreaPortal { pub portal: I32<LE>, pub other_area: I32<LE>, }
}

/// Leaf-face / leaf-brush index (u16; u32 in Qbism).
pub type LeafIndex = U16<LE>;
pub type LeafIndexQbism = U32<LE>;
/// Signed edge index: negative = edge used backwards.
pub type SurfEdge = I32<LE>;

/// Field access shared by the standard and widened records, as `i64` so checks need no casts.
pub trait NodeRecord {
    fn plane(&self) -> i64;
    fn children(&self) -> [i64; 2];
    fn face_range(&self) -> (i64, i64);
}
pub trait FaceRecord {
    fn plane(&self) -> i64;
    /// 0 = front of the plane, 1 = back.
    fn side(&self) -> i64;
    fn edge_range(&self) -> (i64, i64);
    fn texinfo(&self) -> i64;
    fn light_offset(&self) -> i64;
    fn styles(&self) -> [u8; 4];
}
pub trait LeafRecord {
    fn contents(&self) -> i64;
    fn cluster(&self) -> i64;
    fn area(&self) -> i64;
    fn leaf_face_range(&self) -> (i64, i64);
    fn leaf_brush_range(&self) -> (i64, i64);
}
pub trait IndexRecord {
    fn value(&self) -> i64;
}
pub trait EdgeRecord {
    fn vertices(&self) -> [i64; 2];
}
pub trait BrushSideRecord {
    fn plane(&self) -> i64;
    fn texinfo(&self) -> i64;
}

macro_rules! impl_records {
    ($node:ty, $face:ty, $leaf:ty, $index:ty, $edge:ty, $side:ty) => {
        impl NodeRecord for $node {
            fn plane(&self) -> i64 {
                self.plane.get() as i64
            }
            fn children(&self) -> [i64; 2] {
                [self.children[0].get() as i64, self.children[1].get() as i64]
            }
            fn face_range(&self) -> (i64, i64) {
                (self.first_face.get() as i64, self.num_faces.get() as i64)
            }
        }
        impl FaceRecord for $face {
            fn plane(&self) -> i64 {
                self.plane.get() as i64
            }
            fn side(&self) -> i64 {
                self.side.get() as i64
            }
            fn edge_range(&self) -> (i64, i64) {
                (self.first_edge.get() as i64, self.num_edges.get() as i64)
            }
            fn texinfo(&self) -> i64 {
                self.texinfo.get() as i64
            }
            fn light_offset(&self) -> i64 {
                self.light_offset.get() as i64
            }
            fn styles(&self) -> [u8; 4] {
                self.styles
            }
        }
        impl LeafRecord for $leaf {
            fn contents(&self) -> i64 {
                self.contents.get() as i64
            }
            fn cluster(&self) -> i64 {
                self.cluster.get() as i64
            }
            fn area(&self) -> i64 {
                self.area.get() as i64
            }
            fn leaf_face_range(&self) -> (i64, i64) {
                (self.first_leaf_face.get() as i64, self.num_leaf_faces.get() as i64)
            }
            fn leaf_brush_range(&self) -> (i64, i64) {
                (self.first_leaf_brush.get() as i64, self.num_leaf_brushes.get() as i64)
            }
        }
        impl IndexRecord for $index {
            fn value(&self) -> i64 {
                self.get() as i64
            }
        }
        impl EdgeRecord for $edge {
            fn vertices(&self) -> [i64; 2] {
                [self.v[0].get() as i64, self.v[1].get() as i64]
            }
        }
        impl BrushSideRecord for $side {
            fn plane(&self) -> i64 {
                self.plane.get() as i64
            }
            fn texinfo(&self) -> i64 {
                self.texinfo.get() as i64
            }
        }
    };
}
impl_records!(Node, Face, Leaf, LeafIndex, Edge, BrushSide);
impl_records!(NodeQbism, FaceQbism, LeafQbism, LeafIndexQbism, EdgeQbism, BrushSideQbism);

/// The record types of one Quake 2 layout.
pub trait Layout: 'static {
    /// The branch id this layout reads.
    const BRANCH_ID: &'static str;
    type Node: FromBytes + Immutable + KnownLayout + NodeRecord;
    type Face: FromBytes + Immutable + KnownLayout + FaceRecord;
    type Leaf: FromBytes + Immutable + KnownLayout + LeafRecord;
    type LeafIndex: FromBytes + Immutable + KnownLayout + IndexRecord;
    type Edge: FromBytes + Immutable + KnownLayout + EdgeRecord;
    type BrushSide: FromBytes + Immutable + KnownLayout + BrushSideRecord;
}

/// Standard Quake 2 IBSP 38.
#[derive(Debug, Clone, Copy)]
pub enum Ibsp {}
/// Qbism QBSP 38.
#[derive(Debug, Clone, Copy)]
pub enum Qbism {}

impl Layout for Ibsp {
    const BRANCH_ID: &'static str = "quake2";
    type Node = Node;
    type Face = Face;
    type Leaf = Leaf;
    type LeafIndex = LeafIndex;
    type Edge = Edge;
    type BrushSide = BrushSide;
}
impl Layout for Qbism {
    const BRANCH_ID: &'static str = "qbism";
    type Node = NodeQbism;
    type Face = FaceQbism;
    type Leaf = LeafQbism;
    type LeafIndex = LeafIndexQbism;
    type Edge = EdgeQbism;
    type BrushSide = BrushSideQbism;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branch::Branch;
    use crate::branches::quake2::lumps::*;
    use std::mem::size_of;

    /// Sizes from quake_facts.md §4 (IBSP 38) and §4.1 (Qbism).
    #[test]
    fn record_sizes() {
        assert_eq!(size_of::<Plane>(), 20);
        assert_eq!(size_of::<Vertex>(), 12);
        assert_eq!(size_of::<Node>(), 28);
        assert_eq!(size_of::<NodeQbism>(), 44);
        assert_eq!(size_of::<TexInfo>(), 76);
        assert_eq!(size_of::<Face>(), 20);
        assert_eq!(size_of::<FaceQbism>(), 28);
        assert_eq!(size_of::<Leaf>(), 28);
        assert_eq!(size_of::<LeafQbism>(), 52);
        assert_eq!(size_of::<LeafIndex>(), 2);
        assert_eq!(size_of::<LeafIndexQbism>(), 4);
        assert_eq!(size_of::<Edge>(), 4);
        assert_eq!(size_of::<EdgeQbism>(), 8);
        assert_eq!(size_of::<SurfEdge>(), 4);
        assert_eq!(size_of::<Model>(), 48);
        assert_eq!(size_of::<Brush>(), 12);
        assert_eq!(size_of::<BrushSide>(), 4);
        assert_eq!(size_of::<BrushSideQbism>(), 8);
        assert_eq!(size_of::<Area>(), 8);
        assert_eq!(size_of::<AreaPortal>(), 8);
    }

    /// The lump tables declare the sizes of the record types the views use.
    #[test]
    fn tables_match_types() {
        fn sizes<L: Layout>(b: &Branch) {
            let s = |i: usize| b.lumps[i].record_size(0);
            assert_eq!(s(LUMP_NODES), Some(size_of::<L::Node>()));
            assert_eq!(s(LUMP_FACES), Some(size_of::<L::Face>()));
            assert_eq!(s(LUMP_LEAVES), Some(size_of::<L::Leaf>()));
            assert_eq!(s(LUMP_LEAF_FACES), Some(size_of::<L::LeafIndex>()));
            assert_eq!(s(LUMP_LEAF_BRUSHES), Some(size_of::<L::LeafIndex>()));
            assert_eq!(s(LUMP_EDGES), Some(size_of::<L::Edge>()));
            assert_eq!(s(LUMP_BRUSH_SIDES), Some(size_of::<L::BrushSide>()));
            assert_eq!(s(LUMP_TEXINFO), Some(size_of::<TexInfo>()));
            assert_eq!(s(LUMP_MODELS), Some(size_of::<Model>()));
        }
        sizes::<Ibsp>(&QUAKE2);
        sizes::<Qbism>(&QBISM);
    }
}
