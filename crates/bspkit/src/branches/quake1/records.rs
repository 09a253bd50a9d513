//! Quake 1 record types: BSP29 (= GoldSrc), Hexen II, BSP2 and 2PSB, with small traits that
//! widen every index to `i64` so the readers and checks are written once, generic over a
//! [`Layout`] (quake_family.md B.3–B.16, quake_facts.md 1.1–1.4).

use zerocopy::byteorder::{LittleEndian, F32, I16, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub(crate) type LE = LittleEndian;

crate::schema::types::declare_record! {
    /// Plane, 20 bytes (quake_family.md B.3).
    pub struct Plane {
        pub normal: [F32<LE>; 3],
        pub dist: F32<LE>,
        /// 0..2 axial X/Y/Z, 3..5 non-axial closest to X/Y/Z.
        pub kind: I32<LE>,
    }
}

crate::schema::types::declare_record! {
    /// Vertex, 12 bytes (quake_family.md B.5).
    pub struct Vertex {
        pub point: [F32<LE>; 3],
    }
}

crate::schema::types::declare_record! {
    /// Texinfo, 40 bytes (quake_family.md B.8, quake_facts.md 1.1).
    pub struct TexInfo {
        /// `s` then `t`: xyz and offset.
        pub vecs: [[F32<LE>; 4]; 2],
        /// Index into the texture lump's offset table.
        pub miptex: I32<LE>,
        /// Bit 0: special (sky / liquid, no lightmap).
        pub flags: I32<LE>,
    }
}

/// Surfedge, 4 bytes: signed edge index, negative = edge used in reverse (quake_family.md B.15).
pub type SurfEdge = I32<LE>;

crate::schema::types::declare_record! {
    /// BSP29 / GoldSrc node, 24 bytes (quake_family.md B.7).
    pub struct Node29 {
        pub plane: I32<LE>,
        pub children: [I16<LE>; 2],
        pub mins: [I16<LE>; 3],
        pub maxs: [I16<LE>; 3],
        pub first_face: U16<LE>,
        pub num_faces: U16<LE>,
    }
}

crate::schema::types::declare_record! {
    /// BSP2 node, 44 bytes: 32-bit children and face range, float bounds (quake_facts.md 1.2).
    pub struct NodeBsp2 {
        pub plane: I32<LE>,
        pub children: [I32<LE>; 2],
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub first_face: U32<LE>,
        pub num_faces: U32<LE>,
    }
}

crate::schema::types::declare_record! {
    /// 2PSB node, 32 bytes: 32-bit children and face range, 16-bit bounds (quake_facts.md 1.3).
    pub struct Node2psb {
        pub plane: I32<LE>,
        pub children: [I32<LE>; 2],
        pub mins: [I16<LE>; 3],
        pub maxs: [I16<LE>; 3],
        pub first_face: U32<LE>,
        pub num_faces: U32<LE>,
    }
}

crate::schema::types::declare_record! {
    /// BSP29 / GoldSrc face, 20 bytes (quake_family.md B.9).
    pub struct Face29 {
        pub plane: U16<LE>,
        pub side: U16<LE>,
        pub first_edge: I32<LE>,
        pub num_edges: U16<LE>,
        pub texinfo: U16<LE>,
        pub styles: [u8; 4],
        /// Byte offset into the lighting lump, −1 = none.
        pub light_ofs: I32<LE>,
    }
}

crate::schema::types::declare_record! {
    /// BSP2 / 2PSB face, 28 bytes (quake_facts.md 1.2).
    pub struct FaceBsp2 {
        pub plane: I32<LE>,
        pub side: I32<LE>,
        pub first_edge: I32<LE>,
        pub num_edges: I32<LE>,
        pub texinfo: I32<LE>,
        pub styles: [u8; 4],
        pub light_ofs: I32<LE>,
    }
}

crate::schema::types::declare_record! {
    /// BSP29 / GoldSrc clipnode, 8 bytes (quake_family.md B.11).
    pub struct ClipNode29 {
        pub plane: I32<LE>,
        pub children: [I16<LE>; 2],
    }
}

crate::schema::types::declare_record! {
    /// BSP2 / 2PSB clipnode, 12 bytes (quake_facts.md 1.2).
    pub struct ClipNodeBsp2 {
        pub plane: I32<LE>,
        pub children: [I32<LE>; 2],
    }
}

crate::schema::types::declare_record! {
    /// BSP29 / GoldSrc leaf, 28 bytes (quake_family.md B.12; open_questions.md D1).
    pub struct Leaf29 {
        pub contents: I32<LE>,
        /// Offset of the leaf's compressed PVS row in the visibility lump, −1 = none.
        pub vis_ofs: I32<LE>,
        pub mins: [I16<LE>; 3],
        pub maxs: [I16<LE>; 3],
        pub first_mark: U16<LE>,
        pub num_marks: U16<LE>,
        pub ambient: [u8; 4],
    }
}

crate::schema::types::declare_record! {
    /// BSP2 leaf, 44 bytes (quake_facts.md 1.2).
    pub struct LeafBsp2 {
        pub contents: I32<LE>,
        pub vis_ofs: I32<LE>,
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub first_mark: U32<LE>,
        pub num_marks: U32<LE>,
        pub ambient: [u8; 4],
    }
}

crate::schema::types::declare_record! {
    /// 2PSB leaf, 32 bytes (quake_facts.md 1.3).
    pub struct Leaf2psb {
        pub contents: I32<LE>,
        pub vis_ofs: I32<LE>,
        pub mins: [I16<LE>; 3],
        pub maxs: [I16<LE>; 3],
        pub first_mark: U32<LE>,
        pub num_marks: U32<LE>,
        pub ambient: [u8; 4],
    }
}

crate::schema::types::declare_record! {
    /// BSP29 / GoldSrc edge, 4 bytes (quake_family.md B.14).
    pub struct Edge29 {
        pub v: [U16<LE>; 2],
    }
}

crate::schema::types::declare_record! {
    /// BSP2 / 2PSB edge, 8 bytes (quake_facts.md 1.2).
    pub struct EdgeBsp2 {
        pub v: [U32<LE>; 2],
    }
}

crate::schema::types::declare_record! {
    /// Quake / GoldSrc model, 64 bytes (quake_family.md B.16): hull 0 roots the node tree,
    /// hulls 1–3 root clipnode trees.
    pub struct Model {
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub origin: [F32<LE>; 3],
        pub head_nodes: [I32<LE>; 4],
        /// Leaves in the PVS rows (leaf 0, the shared solid leaf, excluded).
        pub vis_leafs: I32<LE>,
        pub first_face: I32<LE>,
        pub num_faces: I32<LE>,
    }
}

crate::schema::types::declare_record! {
    /// Hexen II model, 80 bytes: eight hull roots (quake_facts.md 1.4).
    pub struct ModelH2 {
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub origin: [F32<LE>; 3],
        pub head_nodes: [I32<LE>; 8],
        pub vis_leafs: I32<LE>,
        pub first_face: I32<LE>,
        pub num_faces: I32<LE>,
    }
}

// ---------------------------------------------------------------------------------------------
// Field access common to the record sets.

/// What a node child points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Child {
    Node(i64),
    Leaf(i64),
}

/// What a clipnode child points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipChild {
    Node(i64),
    /// A contents value (−1 empty, −2 solid, … −15).
    Contents(i32),
}

/// Lowest contents value Quake and GoldSrc define (`CONTENTS_TRANSLUCENT`, quake_family.md B.12).
pub const CONTENTS_MIN: i32 = -15;

/// Bounds trait for every record type used through a [`Layout`].
pub trait Record: FromBytes + IntoBytes + Immutable + KnownLayout + Unaligned + Copy + std::fmt::Debug + 'static {}
impl<T: FromBytes + IntoBytes + Immutable + KnownLayout + Unaligned + Copy + std::fmt::Debug + 'static> Record for T {}

pub trait NodeRecord: Record {
    fn plane(&self) -> i64;
    /// Child 0 (front) or 1 (back). BSP29 children are read as unsigned, as the Quake engines
    /// do, so maps with more than 32767 nodes work: below `num_nodes` a node, else leaf `0xffff - c`.
    fn child(&self, side: usize, num_nodes: usize) -> Child;
    fn faces(&self) -> (i64, i64);
    fn bounds(&self) -> ([f32; 3], [f32; 3]);
    fn make(plane: i32, children: [Child; 2], mins: [f32; 3], maxs: [f32; 3], first_face: u32, num_faces: u32) -> Self;
}

pub trait FaceRecord: Record {
    fn plane(&self) -> i64;
    fn side(&self) -> i64;
    fn edges(&self) -> (i64, i64);
    fn texinfo(&self) -> i64;
    fn styles(&self) -> [u8; 4];
    fn light_ofs(&self) -> i64;
    fn make(plane: u32, side: u32, first_edge: i32, num_edges: u32, texinfo: u32, styles: [u8; 4], light_ofs: i32) -> Self;
}

pub trait ClipNodeRecord: Record {
    fn plane(&self) -> i64;
    /// BSP29 children are unsigned with 0xFFF1..=0xFFFF as contents −15..−1, as ericw-tools
    /// reads them (quake_facts.md 1.1), which equals the signed reading below 32768 clipnodes.
    fn child(&self, side: usize) -> ClipChild;
    fn make(plane: i32, children: [ClipChild; 2]) -> Self;
}

pub trait LeafRecord: Record {
    fn contents(&self) -> i32;
    fn vis_ofs(&self) -> i64;
    fn marks(&self) -> (i64, i64);
    fn make(contents: i32, vis_ofs: i32, mins: [f32; 3], maxs: [f32; 3], first_mark: u32, num_marks: u32) -> Self;
}

pub trait MarkRecord: Record {
    fn face(&self) -> i64;
    fn make(face: u32) -> Self;
}

pub trait EdgeRecord: Record {
    fn v(&self, i: usize) -> i64;
    fn make(a: u32, b: u32) -> Self;
}

pub trait ModelRecord: Record {
    /// Hull roots: hull 0 indexes nodes, the others clipnodes.
    fn head_nodes(&self) -> &[I32<LE>];
    fn vis_leafs(&self) -> i64;
    fn faces(&self) -> (i64, i64);
    /// `mins`, `maxs` (quake_family.md B.16).
    fn bounds(&self) -> ([f32; 3], [f32; 3]);
    fn make(mins: [f32; 3], maxs: [f32; 3], head_nodes: &[i32], vis_leafs: i32, first_face: i32, num_faces: i32) -> Self;
}

pub(crate) fn f3(v: [f32; 3]) -> [F32<LE>; 3] {
    v.map(F32::new)
}
fn s3(v: [f32; 3]) -> [I16<LE>; 3] {
    v.map(|x| I16::new(x.clamp(i16::MIN as f32, i16::MAX as f32) as i16))
}
fn g3<T: Copy>(v: [T; 3], f: impl Fn(T) -> f32) -> [f32; 3] {
    v.map(f)
}
fn child_i32(c: Child) -> i32 {
    match c {
        Child::Node(n) => n as i32,
        Child::Leaf(l) => !(l as i32),
    }
}
fn clip_i32(c: ClipChild) -> i32 {
    match c {
        ClipChild::Node(n) => n as i32,
        ClipChild::Contents(v) => v,
    }
}
fn child_from_i32(c: i32) -> Child {
    if c >= 0 {
        Child::Node(c as i64)
    } else {
        Child::Leaf(!c as i64)
    }
}
fn clip_from_i32(c: i32) -> ClipChild {
    if c >= 0 {
        ClipChild::Node(c as i64)
    } else {
        ClipChild::Contents(c)
    }
}

// The accessors are always inlined: unoptimised (test) builds honour only `always`, and the
// checks call them once per field of every record (the garble test decodes thousands of maps).
impl NodeRecord for Node29 {
    #[inline(always)]
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    #[inline(always)]
    fn child(&self, side: usize, num_nodes: usize) -> Child {
        let c = self.children[side & 1].get() as u16;
        if (c as usize) < num_nodes {
            Child::Node(c as i64)
        } else {
            Child::Leaf(0xffff - c as i64)
        }
    }
    #[inline(always)]
    fn faces(&self) -> (i64, i64) {
        (self.first_face.get() as i64, self.num_faces.get() as i64)
    }
    fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        (g3(self.mins, |v| v.get() as f32), g3(self.maxs, |v| v.get() as f32))
    }
    fn make(plane: i32, children: [Child; 2], mins: [f32; 3], maxs: [f32; 3], first_face: u32, num_faces: u32) -> Self {
        Node29 {
            plane: I32::new(plane),
            children: children.map(|c| I16::new(child_i32(c) as i16)),
            mins: s3(mins),
            maxs: s3(maxs),
            first_face: U16::new(first_face as u16),
            num_faces: U16::new(num_faces as u16),
        }
    }
}

impl NodeRecord for NodeBsp2 {
    #[inline(always)]
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    #[inline(always)]
    fn child(&self, side: usize, _: usize) -> Child {
        child_from_i32(self.children[side & 1].get())
    }
    #[inline(always)]
    fn faces(&self) -> (i64, i64) {
        (self.first_face.get() as i64, self.num_faces.get() as i64)
    }
    fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        (g3(self.mins, |v| v.get()), g3(self.maxs, |v| v.get()))
    }
    fn make(plane: i32, children: [Child; 2], mins: [f32; 3], maxs: [f32; 3], first_face: u32, num_faces: u32) -> Self {
        NodeBsp2 {
            plane: I32::new(plane),
            children: children.map(|c| I32::new(child_i32(c))),
            mins: f3(mins),
            maxs: f3(maxs),
            first_face: U32::new(first_face),
            num_faces: U32::new(num_faces),
        }
    }
}

impl NodeRecord for Node2psb {
    #[inline(always)]
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    #[inline(always)]
    fn child(&self, side: usize, _: usize) -> Child {
        child_from_i32(self.children[side & 1].get())
    }
    #[inline(always)]
    fn faces(&self) -> (i64, i64) {
        (self.first_face.get() as i64, self.num_faces.get() as i64)
    }
    fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        (g3(self.mins, |v| v.get() as f32), g3(self.maxs, |v| v.get() as f32))
    }
    fn make(plane: i32, children: [Child; 2], mins: [f32; 3], maxs: [f32; 3], first_face: u32, num_faces: u32) -> Self {
        Node2psb {
            plane: I32::new(plane),
            children: children.map(|c| I32::new(child_i32(c))),
            mins: s3(mins),
            maxs: s3(maxs),
            first_face: U32::new(first_face),
            num_faces: U32::new(num_faces),
        }
    }
}

impl FaceRecord for Face29 {
    #[inline(always)]
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    #[inline(always)]
    fn side(&self) -> i64 {
        self.side.get() as i64
    }
    #[inline(always)]
    fn edges(&self) -> (i64, i64) {
        (self.first_edge.get() as i64, self.num_edges.get() as i64)
    }
    #[inline(always)]
    fn texinfo(&self) -> i64 {
        self.texinfo.get() as i64
    }
    fn styles(&self) -> [u8; 4] {
        self.styles
    }
    #[inline(always)]
    fn light_ofs(&self) -> i64 {
        self.light_ofs.get() as i64
    }
    fn make(plane: u32, side: u32, first_edge: i32, num_edges: u32, texinfo: u32, styles: [u8; 4], light_ofs: i32) -> Self {
        Face29 {
            plane: U16::new(plane as u16),
            side: U16::new(side as u16),
            first_edge: I32::new(first_edge),
            num_edges: U16::new(num_edges as u16),
            texinfo: U16::new(texinfo as u16),
            styles,
            light_ofs: I32::new(light_ofs),
        }
    }
}

impl FaceRecord for FaceBsp2 {
    #[inline(always)]
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    #[inline(always)]
    fn side(&self) -> i64 {
        self.side.get() as i64
    }
    #[inline(always)]
    fn edges(&self) -> (i64, i64) {
        (self.first_edge.get() as i64, self.num_edges.get() as i64)
    }
    #[inline(always)]
    fn texinfo(&self) -> i64 {
        self.texinfo.get() as i64
    }
    fn styles(&self) -> [u8; 4] {
        self.styles
    }
    #[inline(always)]
    fn light_ofs(&self) -> i64 {
        self.light_ofs.get() as i64
    }
    fn make(plane: u32, side: u32, first_edge: i32, num_edges: u32, texinfo: u32, styles: [u8; 4], light_ofs: i32) -> Self {
        FaceBsp2 {
            plane: I32::new(plane as i32),
            side: I32::new(side as i32),
            first_edge: I32::new(first_edge),
            num_edges: I32::new(num_edges as i32),
            texinfo: I32::new(texinfo as i32),
            styles,
            light_ofs: I32::new(light_ofs),
        }
    }
}

impl ClipNodeRecord for ClipNode29 {
    #[inline(always)]
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    #[inline(always)]
    fn child(&self, side: usize) -> ClipChild {
        let c = self.children[side & 1].get() as u16;
        if c > 0xfff0 {
            ClipChild::Contents(c as i16 as i32)
        } else {
            ClipChild::Node(c as i64)
        }
    }
    fn make(plane: i32, children: [ClipChild; 2]) -> Self {
        ClipNode29 { plane: I32::new(plane), children: children.map(|c| I16::new(clip_i32(c) as i16)) }
    }
}

impl ClipNodeRecord for ClipNodeBsp2 {
    #[inline(always)]
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    #[inline(always)]
    fn child(&self, side: usize) -> ClipChild {
        clip_from_i32(self.children[side & 1].get())
    }
    fn make(plane: i32, children: [ClipChild; 2]) -> Self {
        ClipNodeBsp2 { plane: I32::new(plane), children: children.map(|c| I32::new(clip_i32(c))) }
    }
}

macro_rules! leaf_impl {
    ($t:ty, $bounds:ident, $mark:ident, $mark_ty:ty) => {
        impl LeafRecord for $t {
            #[inline(always)]
            fn contents(&self) -> i32 {
                self.contents.get()
            }
            #[inline(always)]
            fn vis_ofs(&self) -> i64 {
                self.vis_ofs.get() as i64
            }
            #[inline(always)]
            fn marks(&self) -> (i64, i64) {
                (self.first_mark.get() as i64, self.num_marks.get() as i64)
            }
            fn make(contents: i32, vis_ofs: i32, mins: [f32; 3], maxs: [f32; 3], first_mark: u32, num_marks: u32) -> Self {
                Self {
                    contents: I32::new(contents),
                    vis_ofs: I32::new(vis_ofs),
                    mins: $bounds(mins),
                    maxs: $bounds(maxs),
                    first_mark: $mark::new(first_mark as $mark_ty),
                    num_marks: $mark::new(num_marks as $mark_ty),
                    ambient: [0; 4],
                }
            }
        }
    };
}
leaf_impl!(Leaf29, s3, U16, u16);
leaf_impl!(LeafBsp2, f3, U32, u32);
leaf_impl!(Leaf2psb, s3, U32, u32);

impl MarkRecord for U16<LE> {
    #[inline(always)]
    fn face(&self) -> i64 {
        self.get() as i64
    }
    fn make(face: u32) -> Self {
        U16::new(face as u16)
    }
}
impl MarkRecord for U32<LE> {
    #[inline(always)]
    fn face(&self) -> i64 {
        self.get() as i64
    }
    fn make(face: u32) -> Self {
        U32::new(face)
    }
}

impl EdgeRecord for Edge29 {
    #[inline(always)]
    fn v(&self, i: usize) -> i64 {
        self.v[i & 1].get() as i64
    }
    fn make(a: u32, b: u32) -> Self {
        Edge29 { v: [U16::new(a as u16), U16::new(b as u16)] }
    }
}
impl EdgeRecord for EdgeBsp2 {
    #[inline(always)]
    fn v(&self, i: usize) -> i64 {
        self.v[i & 1].get() as i64
    }
    fn make(a: u32, b: u32) -> Self {
        EdgeBsp2 { v: [U32::new(a), U32::new(b)] }
    }
}

macro_rules! model_impl {
    ($t:ty, $hulls:literal) => {
        impl ModelRecord for $t {
            fn head_nodes(&self) -> &[I32<LE>] {
                &self.head_nodes
            }
            #[inline(always)]
            fn vis_leafs(&self) -> i64 {
                self.vis_leafs.get() as i64
            }
            #[inline(always)]
            fn faces(&self) -> (i64, i64) {
                (self.first_face.get() as i64, self.num_faces.get() as i64)
            }
            fn bounds(&self) -> ([f32; 3], [f32; 3]) {
                (self.mins.map(|c| c.get()), self.maxs.map(|c| c.get()))
            }
            fn make(mins: [f32; 3], maxs: [f32; 3], head_nodes: &[i32], vis_leafs: i32, first_face: i32, num_faces: i32) -> Self {
                let mut h = [I32::new(0); $hulls];
                for (d, s) in h.iter_mut().zip(head_nodes) {
                    *d = I32::new(*s);
                }
                Self {
                    mins: f3(mins),
                    maxs: f3(maxs),
                    origin: f3([0.0; 3]),
                    head_nodes: h,
                    vis_leafs: I32::new(vis_leafs),
                    first_face: I32::new(first_face),
                    num_faces: I32::new(num_faces),
                }
            }
        }
    };
}
model_impl!(Model, 4);
model_impl!(ModelH2, 8);

/// Which record type each variable lump uses.
pub trait Layout: 'static {
    type Node: NodeRecord;
    type Face: FaceRecord;
    type ClipNode: ClipNodeRecord;
    type Leaf: LeafRecord;
    type Mark: MarkRecord;
    type Edge: EdgeRecord;
    type Model: ModelRecord;
}

/// BSP29 records (Quake) — also GoldSrc BSP30 and Blue Shift.
#[derive(Debug, Clone, Copy)]
pub struct Bsp29;
/// BSP29 with Hexen II's 80-byte models.
#[derive(Debug, Clone, Copy)]
pub struct Hexen2;
/// `BSP2` records.
#[derive(Debug, Clone, Copy)]
pub struct Bsp2;
/// `2PSB` records.
#[derive(Debug, Clone, Copy)]
pub struct Rmq;

impl Layout for Bsp29 {
    type Node = Node29;
    type Face = Face29;
    type ClipNode = ClipNode29;
    type Leaf = Leaf29;
    type Mark = U16<LE>;
    type Edge = Edge29;
    type Model = Model;
}
impl Layout for Hexen2 {
    type Node = Node29;
    type Face = Face29;
    type ClipNode = ClipNode29;
    type Leaf = Leaf29;
    type Mark = U16<LE>;
    type Edge = Edge29;
    type Model = ModelH2;
}
impl Layout for Bsp2 {
    type Node = NodeBsp2;
    type Face = FaceBsp2;
    type ClipNode = ClipNodeBsp2;
    type Leaf = LeafBsp2;
    type Mark = U32<LE>;
    type Edge = EdgeBsp2;
    type Model = Model;
}
impl Layout for Rmq {
    type Node = Node2psb;
    type Face = FaceBsp2;
    type ClipNode = ClipNodeBsp2;
    type Leaf = Leaf2psb;
    type Mark = U32<LE>;
    type Edge = EdgeBsp2;
    type Model = Model;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branch::Branch;
    use crate::branches::quake1::lumps::*;
    use std::mem::size_of;

    #[test]
    fn record_sizes_match_the_spec() {
        // quake_family.md B.3, B.5, B.7–B.9, B.11, B.12, B.14, B.16.
        assert_eq!(size_of::<Plane>(), 20);
        assert_eq!(size_of::<Vertex>(), 12);
        assert_eq!(size_of::<Node29>(), 24);
        assert_eq!(size_of::<TexInfo>(), 40);
        assert_eq!(size_of::<Face29>(), 20);
        assert_eq!(size_of::<ClipNode29>(), 8);
        assert_eq!(size_of::<Leaf29>(), 28);
        assert_eq!(size_of::<U16<LE>>(), 2);
        assert_eq!(size_of::<Edge29>(), 4);
        assert_eq!(size_of::<SurfEdge>(), 4);
        assert_eq!(size_of::<Model>(), 64);
        // quake_facts.md 1.2 (BSP2), 1.3 (2PSB), 1.4 (Hexen II).
        assert_eq!(size_of::<NodeBsp2>(), 44);
        assert_eq!(size_of::<FaceBsp2>(), 28);
        assert_eq!(size_of::<ClipNodeBsp2>(), 12);
        assert_eq!(size_of::<LeafBsp2>(), 44);
        assert_eq!(size_of::<EdgeBsp2>(), 8);
        assert_eq!(size_of::<Node2psb>(), 32);
        assert_eq!(size_of::<Leaf2psb>(), 32);
        assert_eq!(size_of::<ModelH2>(), 80);
    }

    /// The lump tables declare the sizes of the record types the views read.
    #[test]
    fn lump_tables_agree_with_the_records() {
        fn sizes<L: Layout>(b: &Branch) {
            let s = |i: usize| b.lumps[i].record_size(0);
            assert_eq!(s(LUMP_PLANES), Some(size_of::<Plane>()), "{}", b.id);
            assert_eq!(s(LUMP_VERTICES), Some(size_of::<Vertex>()));
            assert_eq!(s(LUMP_NODES), Some(size_of::<L::Node>()), "{}", b.id);
            assert_eq!(s(LUMP_TEXINFO), Some(size_of::<TexInfo>()));
            assert_eq!(s(LUMP_FACES), Some(size_of::<L::Face>()), "{}", b.id);
            assert_eq!(s(LUMP_CLIPNODES), Some(size_of::<L::ClipNode>()), "{}", b.id);
            assert_eq!(s(LUMP_LEAVES), Some(size_of::<L::Leaf>()), "{}", b.id);
            assert_eq!(s(LUMP_MARKSURFACES), Some(size_of::<L::Mark>()), "{}", b.id);
            assert_eq!(s(LUMP_EDGES), Some(size_of::<L::Edge>()), "{}", b.id);
            assert_eq!(s(LUMP_SURFEDGES), Some(size_of::<SurfEdge>()));
            assert_eq!(s(LUMP_MODELS), Some(size_of::<L::Model>()), "{}", b.id);
        }
        sizes::<Bsp29>(&QUAKE1);
        sizes::<Hexen2>(&HEXEN2);
        sizes::<Bsp2>(&BSP2);
        sizes::<Rmq>(&BSP2PSB);
        sizes::<Bsp29>(&crate::branches::goldsrc::GOLDSRC);
    }

    #[test]
    fn bsp29_children_read_unsigned() {
        let n = Node29::make(0, [Child::Node(3), Child::Leaf(5)], [0.0; 3], [0.0; 3], 0, 0);
        assert_eq!(n.child(0, 10), Child::Node(3));
        assert_eq!(n.child(1, 10), Child::Leaf(5));
        // Past 32767 nodes a raw 40000 is a node, not a leaf.
        let mut big = n;
        big.children[0] = I16::new(40000u16 as i16);
        assert_eq!(big.child(0, 50000), Child::Node(40000));
        let c = ClipNode29::make(0, [ClipChild::Contents(-2), ClipChild::Node(7)]);
        assert_eq!((c.child(0), c.child(1)), (ClipChild::Contents(-2), ClipChild::Node(7)));
    }
}
