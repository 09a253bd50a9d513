//! Quake 1: BSP29, BSP2, 2PSB and Hexen II (quake_family.md C.2; lump order as GoldSrc B.1;
//! widened layouts from quake_facts.md 1.2–1.4). GoldSrc (`goldsrc.rs`) reuses the BSP29
//! records, the typed [`View`], the `bspinfo` rows and the checks defined here.
//!
//! The four record sets differ only in a few lumps, so the code that reads them is written once,
//! generic over a [`Layout`] (which record type each lump uses); the records expose their
//! fields through small traits ([`NodeRecord`], [`FaceRecord`], …) that widen every index to
//! `i64`, so checks never overflow.

use std::marker::PhantomData;

use zerocopy::byteorder::{LittleEndian, F32, I16, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::branch::{Branch, CheckFn, Family, HeaderKind, LumpDef, StatsFn};
use crate::bsp::Bsp;
use crate::check::{Checker, Problem};
use crate::error::{Error, Result};
use crate::lumps::miptex::MipTexLump;
use crate::lumps::visibility;
use crate::stats::Stat;

pub mod room;
pub mod texture;

type LE = LittleEndian;

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_PLANES: usize = 1;
pub const LUMP_TEXTURES: usize = 2;
pub const LUMP_VERTICES: usize = 3;
pub const LUMP_VISIBILITY: usize = 4;
pub const LUMP_NODES: usize = 5;
pub const LUMP_TEXINFO: usize = 6;
pub const LUMP_FACES: usize = 7;
pub const LUMP_LIGHTING: usize = 8;
pub const LUMP_CLIPNODES: usize = 9;
pub const LUMP_LEAVES: usize = 10;
pub const LUMP_MARKSURFACES: usize = 11;
pub const LUMP_EDGES: usize = 12;
pub const LUMP_SURFEDGES: usize = 13;
pub const LUMP_MODELS: usize = 14;

/// The 15-slot table shared by BSP29 / GoldSrc, with the sizes of one set of record types.
macro_rules! quake_lumps {
    (node: $node:literal, face: $face:literal, clipnode: $clip:literal, leaf: $leaf:literal, mark: $mark:literal, edge: $edge:literal, model: $model:literal) => {
        &[
            LumpDef::entities("ENTITIES"),
            LumpDef::records("PLANES", 20),
            LumpDef::special("TEXTURES"),
            LumpDef::records("VERTICES", 12),
            LumpDef::special("VISIBILITY"),
            LumpDef::records("NODES", $node),
            LumpDef::records("TEXINFO", 40),
            LumpDef::records("FACES", $face),
            LumpDef::raw("LIGHTING"),
            LumpDef::records("CLIPNODES", $clip),
            LumpDef::records("LEAVES", $leaf),
            LumpDef::records("MARKSURFACES", $mark),
            LumpDef::records("EDGES", $edge),
            LumpDef::records("SURFEDGES", 4),
            LumpDef::records("MODELS", $model),
        ]
    };
}
pub(crate) use quake_lumps;

pub static QUAKE1: Branch = Branch {
    id: "quake1",
    family: Family::Quake,
    title: "Quake (BSP29)",
    games: "Quake, QuakeWorld and most Quake mods",
    header: HeaderKind::Quake { magic: None },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 64),
    stats: Some(stats::<Bsp29> as StatsFn),
    check: Some(check::<Bsp29> as CheckFn),
};

pub static HEXEN2: Branch = Branch {
    id: "hexen2",
    family: Family::Quake,
    title: "Hexen II (BSP29, 80-byte models)",
    games: "Hexen II",
    header: HeaderKind::Quake { magic: None },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 80),
    stats: Some(stats::<Hexen2> as StatsFn),
    check: Some(check::<Hexen2> as CheckFn),
};

pub static BSP2: Branch = Branch {
    id: "bsp2",
    family: Family::Quake,
    title: "Quake BSP2 (32-bit indices, float bounds)",
    games: "Quake source ports (FitzQuake family, ericw-tools -bsp2)",
    header: HeaderKind::Quake { magic: Some(*b"BSP2") },
    lumps: quake_lumps!(node: 44, face: 28, clipnode: 12, leaf: 44, mark: 4, edge: 8, model: 64),
    stats: Some(stats::<Bsp2> as StatsFn),
    check: Some(check::<Bsp2> as CheckFn),
};

pub static BSP2PSB: Branch = Branch {
    id: "2psb",
    family: Family::Quake,
    title: "Quake 2PSB (RMQ 32-bit indices, 16-bit bounds)",
    games: "RemakeQuake",
    header: HeaderKind::Quake { magic: Some(*b"2PSB") },
    lumps: quake_lumps!(node: 32, face: 28, clipnode: 12, leaf: 32, mark: 4, edge: 8, model: 64),
    stats: Some(stats::<Rmq> as StatsFn),
    check: Some(check::<Rmq> as CheckFn),
};

// ---------------------------------------------------------------------------------------------
// Records. Sizes: quake_family.md B.3–B.16 (BSP29 = GoldSrc), quake_facts.md 1.1–1.4.

/// Plane, 20 bytes (quake_family.md B.3).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Plane {
    pub normal: [F32<LE>; 3],
    pub dist: F32<LE>,
    /// 0..2 axial X/Y/Z, 3..5 non-axial closest to X/Y/Z.
    pub kind: I32<LE>,
}

/// Vertex, 12 bytes (quake_family.md B.5).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Vertex {
    pub point: [F32<LE>; 3],
}

/// Texinfo, 40 bytes (quake_family.md B.8, quake_facts.md 1.1).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct TexInfo {
    /// `s` then `t`: xyz and offset.
    pub vecs: [[F32<LE>; 4]; 2],
    /// Index into the texture lump's offset table.
    pub miptex: I32<LE>,
    /// Bit 0: special (sky / liquid, no lightmap).
    pub flags: I32<LE>,
}

/// Surfedge, 4 bytes: signed edge index, negative = edge used in reverse (quake_family.md B.15).
pub type SurfEdge = I32<LE>;

/// BSP29 / GoldSrc node, 24 bytes (quake_family.md B.7).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Node29 {
    pub plane: I32<LE>,
    pub children: [I16<LE>; 2],
    pub mins: [I16<LE>; 3],
    pub maxs: [I16<LE>; 3],
    pub first_face: U16<LE>,
    pub num_faces: U16<LE>,
}

/// BSP2 node, 44 bytes: 32-bit children and face range, float bounds (quake_facts.md 1.2).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct NodeBsp2 {
    pub plane: I32<LE>,
    pub children: [I32<LE>; 2],
    pub mins: [F32<LE>; 3],
    pub maxs: [F32<LE>; 3],
    pub first_face: U32<LE>,
    pub num_faces: U32<LE>,
}

/// 2PSB node, 32 bytes: 32-bit children and face range, 16-bit bounds (quake_facts.md 1.3).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Node2psb {
    pub plane: I32<LE>,
    pub children: [I32<LE>; 2],
    pub mins: [I16<LE>; 3],
    pub maxs: [I16<LE>; 3],
    pub first_face: U32<LE>,
    pub num_faces: U32<LE>,
}

/// BSP29 / GoldSrc face, 20 bytes (quake_family.md B.9).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
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

/// BSP2 / 2PSB face, 28 bytes (quake_facts.md 1.2).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct FaceBsp2 {
    pub plane: I32<LE>,
    pub side: I32<LE>,
    pub first_edge: I32<LE>,
    pub num_edges: I32<LE>,
    pub texinfo: I32<LE>,
    pub styles: [u8; 4],
    pub light_ofs: I32<LE>,
}

/// BSP29 / GoldSrc clipnode, 8 bytes (quake_family.md B.11).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct ClipNode29 {
    pub plane: I32<LE>,
    pub children: [I16<LE>; 2],
}

/// BSP2 / 2PSB clipnode, 12 bytes (quake_facts.md 1.2).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct ClipNodeBsp2 {
    pub plane: I32<LE>,
    pub children: [I32<LE>; 2],
}

/// BSP29 / GoldSrc leaf, 28 bytes (quake_family.md B.12; open_questions.md D1).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
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

/// BSP2 leaf, 44 bytes (quake_facts.md 1.2).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct LeafBsp2 {
    pub contents: I32<LE>,
    pub vis_ofs: I32<LE>,
    pub mins: [F32<LE>; 3],
    pub maxs: [F32<LE>; 3],
    pub first_mark: U32<LE>,
    pub num_marks: U32<LE>,
    pub ambient: [u8; 4],
}

/// 2PSB leaf, 32 bytes (quake_facts.md 1.3).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Leaf2psb {
    pub contents: I32<LE>,
    pub vis_ofs: I32<LE>,
    pub mins: [I16<LE>; 3],
    pub maxs: [I16<LE>; 3],
    pub first_mark: U32<LE>,
    pub num_marks: U32<LE>,
    pub ambient: [u8; 4],
}

/// BSP29 / GoldSrc edge, 4 bytes (quake_family.md B.14).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Edge29 {
    pub v: [U16<LE>; 2],
}

/// BSP2 / 2PSB edge, 8 bytes (quake_facts.md 1.2).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct EdgeBsp2 {
    pub v: [U32<LE>; 2],
}

/// Quake / GoldSrc model, 64 bytes (quake_family.md B.16): hull 0 roots the node tree,
/// hulls 1–3 root clipnode trees.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
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

/// Hexen II model, 80 bytes: eight hull roots (quake_facts.md 1.4).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct ModelH2 {
    pub mins: [F32<LE>; 3],
    pub maxs: [F32<LE>; 3],
    pub origin: [F32<LE>; 3],
    pub head_nodes: [I32<LE>; 8],
    pub vis_leafs: I32<LE>,
    pub first_face: I32<LE>,
    pub num_faces: I32<LE>,
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
    fn make(mins: [f32; 3], maxs: [f32; 3], head_nodes: &[i32], vis_leafs: i32, first_face: i32, num_faces: i32) -> Self;
}

fn f3(v: [f32; 3]) -> [F32<LE>; 3] {
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

impl NodeRecord for Node29 {
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn child(&self, side: usize, num_nodes: usize) -> Child {
        let c = self.children[side & 1].get() as u16;
        if (c as usize) < num_nodes {
            Child::Node(c as i64)
        } else {
            Child::Leaf(0xffff - c as i64)
        }
    }
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
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn child(&self, side: usize, _: usize) -> Child {
        child_from_i32(self.children[side & 1].get())
    }
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
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn child(&self, side: usize, _: usize) -> Child {
        child_from_i32(self.children[side & 1].get())
    }
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
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn side(&self) -> i64 {
        self.side.get() as i64
    }
    fn edges(&self) -> (i64, i64) {
        (self.first_edge.get() as i64, self.num_edges.get() as i64)
    }
    fn texinfo(&self) -> i64 {
        self.texinfo.get() as i64
    }
    fn styles(&self) -> [u8; 4] {
        self.styles
    }
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
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn side(&self) -> i64 {
        self.side.get() as i64
    }
    fn edges(&self) -> (i64, i64) {
        (self.first_edge.get() as i64, self.num_edges.get() as i64)
    }
    fn texinfo(&self) -> i64 {
        self.texinfo.get() as i64
    }
    fn styles(&self) -> [u8; 4] {
        self.styles
    }
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
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
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
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
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
            fn contents(&self) -> i32 {
                self.contents.get()
            }
            fn vis_ofs(&self) -> i64 {
                self.vis_ofs.get() as i64
            }
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
    fn face(&self) -> i64 {
        self.get() as i64
    }
    fn make(face: u32) -> Self {
        U16::new(face as u16)
    }
}
impl MarkRecord for U32<LE> {
    fn face(&self) -> i64 {
        self.get() as i64
    }
    fn make(face: u32) -> Self {
        U32::new(face)
    }
}

impl EdgeRecord for Edge29 {
    fn v(&self, i: usize) -> i64 {
        self.v[i & 1].get() as i64
    }
    fn make(a: u32, b: u32) -> Self {
        Edge29 { v: [U16::new(a as u16), U16::new(b as u16)] }
    }
}
impl EdgeRecord for EdgeBsp2 {
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
            fn vis_leafs(&self) -> i64 {
                self.vis_leafs.get() as i64
            }
            fn faces(&self) -> (i64, i64) {
                (self.first_face.get() as i64, self.num_faces.get() as i64)
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

// ---------------------------------------------------------------------------------------------
// Typed view.

/// Lump indices by role, looked up by name so Blue Shift's swapped directory works.
#[derive(Debug, Clone, Copy)]
struct Slots {
    entities: usize,
    planes: usize,
    textures: usize,
    vertices: usize,
    visibility: usize,
    nodes: usize,
    texinfo: usize,
    faces: usize,
    lighting: usize,
    clipnodes: usize,
    leaves: usize,
    marksurfaces: usize,
    edges: usize,
    surfedges: usize,
    models: usize,
}

impl Slots {
    fn of(branch: &Branch) -> Slots {
        let i = |name: &str, default: usize| branch.lump_index(name).unwrap_or(default);
        Slots {
            entities: i("ENTITIES", LUMP_ENTITIES),
            planes: i("PLANES", LUMP_PLANES),
            textures: i("TEXTURES", LUMP_TEXTURES),
            vertices: i("VERTICES", LUMP_VERTICES),
            visibility: i("VISIBILITY", LUMP_VISIBILITY),
            nodes: i("NODES", LUMP_NODES),
            texinfo: i("TEXINFO", LUMP_TEXINFO),
            faces: i("FACES", LUMP_FACES),
            lighting: i("LIGHTING", LUMP_LIGHTING),
            clipnodes: i("CLIPNODES", LUMP_CLIPNODES),
            leaves: i("LEAVES", LUMP_LEAVES),
            marksurfaces: i("MARKSURFACES", LUMP_MARKSURFACES),
            edges: i("EDGES", LUMP_EDGES),
            surfedges: i("SURFEDGES", LUMP_SURFEDGES),
            models: i("MODELS", LUMP_MODELS),
        }
    }
}

/// Zero-copy typed access to a Quake-family map's lumps with the record set `L`
/// ([`Bsp29`], [`Hexen2`], [`Bsp2`], [`Rmq`]). Every getter borrows the map.
///
/// ```
/// # fn main() -> Result<(), bspkit::Error> {
/// use bspkit::branches::quake1::{Bsp29, View};
/// let bytes = bspkit::build::sample_quake1();
/// let bsp = bspkit::Bsp::from_bytes(&bytes)?;
/// let view = View::<Bsp29>::new(&bsp);
/// assert_eq!(view.faces()?.len(), 6);
/// let tex = view.textures()?.get(0)?.expect("embedded texture");
/// println!("{} {}x{}", tex.name(), tex.width(), tex.height());
/// # Ok(()) }
/// ```
pub struct View<'a, L: Layout> {
    pub bsp: &'a Bsp<'a>,
    slots: Slots,
    _layout: PhantomData<L>,
}

impl<'a, L: Layout> Clone for View<'a, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<'a, L: Layout> Copy for View<'a, L> {}

impl<'a, L: Layout> View<'a, L> {
    pub fn new(bsp: &'a Bsp<'a>) -> Self {
        View { bsp, slots: Slots::of(bsp.branch()), _layout: PhantomData }
    }
    pub fn planes(&self) -> Result<&'a [Plane]> {
        self.bsp.records(self.slots.planes)
    }
    pub fn vertices(&self) -> Result<&'a [Vertex]> {
        self.bsp.records(self.slots.vertices)
    }
    pub fn nodes(&self) -> Result<&'a [L::Node]> {
        self.bsp.records(self.slots.nodes)
    }
    pub fn texinfo(&self) -> Result<&'a [TexInfo]> {
        self.bsp.records(self.slots.texinfo)
    }
    pub fn faces(&self) -> Result<&'a [L::Face]> {
        self.bsp.records(self.slots.faces)
    }
    pub fn clipnodes(&self) -> Result<&'a [L::ClipNode]> {
        self.bsp.records(self.slots.clipnodes)
    }
    pub fn leaves(&self) -> Result<&'a [L::Leaf]> {
        self.bsp.records(self.slots.leaves)
    }
    pub fn marksurfaces(&self) -> Result<&'a [L::Mark]> {
        self.bsp.records(self.slots.marksurfaces)
    }
    pub fn edges(&self) -> Result<&'a [L::Edge]> {
        self.bsp.records(self.slots.edges)
    }
    pub fn surfedges(&self) -> Result<&'a [SurfEdge]> {
        self.bsp.records(self.slots.surfedges)
    }
    pub fn models(&self) -> Result<&'a [L::Model]> {
        self.bsp.records(self.slots.models)
    }
    /// The lighting lump (1 byte per luxel in Quake, RGB in GoldSrc).
    pub fn lighting(&self) -> Result<&'a [u8]> {
        self.bsp.lump(self.slots.lighting)
    }
    /// The visibility lump (compressed PVS rows).
    pub fn visibility(&self) -> Result<&'a [u8]> {
        self.bsp.lump(self.slots.visibility)
    }
    pub fn entities_index(&self) -> usize {
        self.slots.entities
    }
    /// The texture lump; GoldSrc textures carry a palette.
    pub fn textures(&self) -> Result<MipTexLump<'a>> {
        let data = self.bsp.lump(self.slots.textures)?;
        MipTexLump::parse(data, self.bsp.family() == Family::GoldSrc).map_err(|e| self.bsp.lump_error(self.slots.textures, e))
    }
    /// Bytes in one decompressed PVS row: one bit per leaf of the world model, leaf 0 excluded
    /// (quake_family.md B.6).
    pub fn vis_row_bytes(&self) -> Result<usize> {
        let n = self.models()?.first().map(|m| m.vis_leafs()).unwrap_or(0);
        Ok((n.max(0) as usize).div_ceil(8))
    }
    /// Decompress leaf `leaf`'s PVS row into `out`; `Ok(false)` when the leaf has none
    /// (`visofs` −1 or an empty visibility lump). Bit `j` of the row is leaf `j + 1`.
    pub fn leaf_pvs(&self, leaf: usize, out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        let leaves = self.leaves()?;
        let l = leaves.get(leaf).ok_or_else(|| Error::malformed(format!("leaf {leaf} out of range 0..{}", leaves.len())))?;
        let vis = self.visibility()?;
        let ofs = l.vis_ofs();
        if ofs < 0 || vis.is_empty() {
            return Ok(false);
        }
        let row = self.vis_row_bytes()?;
        visibility::decompress_row(vis, ofs as usize, row, out).map_err(|e| self.bsp.lump_error(self.slots.visibility, e))?;
        Ok(true)
    }
}

// ---------------------------------------------------------------------------------------------
// bspinfo rows (quake_facts.md 6.1: ericw-tools v0.18.1, same names and order).

pub fn stats<L: Layout>(bsp: &Bsp) -> Vec<Stat> {
    let s = Slots::of(bsp.branch());
    let size = |i: usize| bsp.record_size(i).unwrap_or(1);
    let tex_count = bsp.lump(s.textures).ok().and_then(|t| crate::bytes::i32_at(t, 0, crate::Endian::Little)).unwrap_or(0);
    let tex_bytes = bsp.lump(s.textures).map(|t| t.len() as u64).unwrap_or(0);
    vec![
        // bspinfo prints only the count for models; the bytes column carries the lump length.
        Stat::records("models", bsp, s.models, size(s.models)),
        Stat::records("planes", bsp, s.planes, size(s.planes)),
        Stat::records("vertexes", bsp, s.vertices, size(s.vertices)),
        Stat::records("nodes", bsp, s.nodes, size(s.nodes)),
        Stat::records("texinfos", bsp, s.texinfo, size(s.texinfo)),
        Stat::records("faces", bsp, s.faces, size(s.faces)),
        Stat::records("clipnodes", bsp, s.clipnodes, size(s.clipnodes)),
        Stat::records("leafs", bsp, s.leaves, size(s.leaves)),
        Stat::records("marksurfaces", bsp, s.marksurfaces, size(s.marksurfaces)),
        Stat::records("edges", bsp, s.edges, size(s.edges)),
        Stat::records("surfedges", bsp, s.surfedges, size(s.surfedges)),
        // The count is the texture lump's own count field, the bytes its whole length.
        Stat::new("textures", Some(tex_count.max(0) as u64), tex_bytes),
        Stat::bytes_only("lightdata", bsp, s.lighting),
        Stat::bytes_only("visdata", bsp, s.visibility),
        // The entity lump's length, trailing NUL included.
        Stat::bytes_only("entdata", bsp, s.entities),
    ]
}

/// The bspinfo rows of any Quake 1 / GoldSrc map (the stats hook of those branches).
pub fn bspinfo(bsp: &Bsp) -> Vec<Stat> {
    match bsp.branch().id {
        "hexen2" => stats::<Hexen2>(bsp),
        "bsp2" => stats::<Bsp2>(bsp),
        "2psb" => stats::<Rmq>(bsp),
        _ => stats::<Bsp29>(bsp),
    }
}

// ---------------------------------------------------------------------------------------------
// Cross-reference checks.

/// Records of a lump, or one problem saying why they can't be read (then the checks that need
/// them are skipped).
fn get<'a, T>(problems: &mut Vec<Problem>, name: &str, r: Result<&'a [T]>) -> Option<&'a [T]> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            // The generic pass already reports bad lump lengths; keep other errors.
            if !matches!(e.kind, crate::ErrorKind::BadLumpLength { .. }) {
                problems.push(Problem::new(name, None, e.kind.to_string()));
            }
            None
        }
    }
}

/// Check every cross-reference of a Quake-family map read with record set `L`.
///
/// Rules refined against real maps (each documented where it applies):
/// * edge 0 is a placeholder and only checked when a surfedge uses it;
/// * with an empty visibility lump a leaf's `visofs` may be 0 as well as −1;
/// * an empty lighting lump means the map was not lit: face light offsets are then ignored
///   (GoldSrc maps compiled without RAD store offset 0 with styles 0);
/// * a hull root 1..n may be a contents value (an empty hull: ZHLT writes −1), and when the
///   clipnode lump is empty (compiled without clip hulls) roots of 0 are accepted.
pub fn check<L: Layout>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let v = View::<L>::new(bsp);
    let (Some(planes), Some(vertices), Some(nodes), Some(texinfo), Some(faces), Some(clipnodes), Some(leaves), Some(marks), Some(edges)) = (
        get(problems, "PLANES", v.planes()),
        get(problems, "VERTICES", v.vertices()),
        get(problems, "NODES", v.nodes()),
        get(problems, "TEXINFO", v.texinfo()),
        get(problems, "FACES", v.faces()),
        get(problems, "CLIPNODES", v.clipnodes()),
        get(problems, "LEAVES", v.leaves()),
        get(problems, "MARKSURFACES", v.marksurfaces()),
        get(problems, "EDGES", v.edges()),
    ) else {
        return;
    };
    let (Some(surfedges), Some(models)) = (get(problems, "SURFEDGES", v.surfedges()), get(problems, "MODELS", v.models())) else {
        return;
    };
    let lighting = v.lighting().unwrap_or(&[]);
    let vis = v.visibility().unwrap_or(&[]);

    // Textures: every present entry and its mips lie inside the lump.
    let mut num_textures = 0;
    match v.textures() {
        Ok(t) => {
            num_textures = t.len();
            for (i, r) in t.iter().enumerate() {
                if let Err(e) = r {
                    problems.push(Problem::new("TEXTURES", Some(i), e.kind.to_string()));
                }
            }
        }
        Err(e) => problems.push(Problem::new("TEXTURES", None, e.kind.to_string())),
    }

    let mut c = Checker::new(problems, "FACES");
    for (i, f) in faces.iter().enumerate() {
        c.index(i, "plane", f.plane(), planes.len(), "PLANES");
        c.index(i, "texinfo", f.texinfo(), texinfo.len(), "TEXINFO");
        c.range(i, "surfedge", f.edges(), surfedges.len(), "SURFEDGES");
        let ofs = f.light_ofs();
        if ofs != -1 && !lighting.is_empty() {
            c.index(i, "light offset", ofs, lighting.len(), "LIGHTING bytes");
        }
    }
    let mut c = Checker::new(problems, "SURFEDGES");
    for (i, s) in surfedges.iter().enumerate() {
        c.index(i, "edge", (s.get() as i64).abs(), edges.len(), "EDGES");
    }
    let mut c = Checker::new(problems, "EDGES");
    // Edge 0 is the reserved placeholder (a surfedge −0 can't say "reversed"); some tiny maps
    // have no vertices at all, so it is only checked if a surfedge uses it.
    let edge0_used = surfedges.iter().any(|s| s.get() == 0);
    for (i, e) in edges.iter().enumerate().skip(usize::from(!edge0_used)) {
        c.index(i, "vertex 0", e.v(0), vertices.len(), "VERTICES");
        c.index(i, "vertex 1", e.v(1), vertices.len(), "VERTICES");
    }
    let mut c = Checker::new(problems, "NODES");
    for (i, n) in nodes.iter().enumerate() {
        c.index(i, "plane", n.plane(), planes.len(), "PLANES");
        c.range(i, "face", n.faces(), faces.len(), "FACES");
        for side in 0..2 {
            match n.child(side, nodes.len()) {
                Child::Node(k) => c.index(i, ["child 0 node", "child 1 node"][side], k, nodes.len(), "NODES"),
                Child::Leaf(k) => c.index(i, ["child 0 leaf", "child 1 leaf"][side], k, leaves.len(), "LEAVES"),
            }
        }
    }
    let mut c = Checker::new(problems, "CLIPNODES");
    for (i, n) in clipnodes.iter().enumerate() {
        c.index(i, "plane", n.plane(), planes.len(), "PLANES");
        for side in 0..2 {
            match n.child(side) {
                ClipChild::Node(k) => c.index(i, ["child 0", "child 1"][side], k, clipnodes.len(), "CLIPNODES"),
                ClipChild::Contents(k) if k < CONTENTS_MIN => {
                    c.problems.push(Problem::new("CLIPNODES", Some(i), format!("child {side} contents {k} is below {CONTENTS_MIN}")))
                }
                ClipChild::Contents(_) => {}
            }
        }
    }
    let mut c = Checker::new(problems, "LEAVES");
    for (i, l) in leaves.iter().enumerate() {
        c.range(i, "marksurface", l.marks(), marks.len(), "MARKSURFACES");
        let ofs = l.vis_ofs();
        // Without visibility data, offset 0 is what unvised compiles store (ericw-tools): the
        // engines add it to a null vis pointer and treat the null row as "all visible".
        if ofs != -1 && !(vis.is_empty() && ofs == 0) {
            c.index(i, "visofs", ofs, vis.len(), "VISIBILITY bytes");
        }
    }
    let mut c = Checker::new(problems, "MARKSURFACES");
    for (i, m) in marks.iter().enumerate() {
        c.index(i, "face", m.face(), faces.len(), "FACES");
    }
    let mut c = Checker::new(problems, "TEXINFO");
    for (i, t) in texinfo.iter().enumerate() {
        c.index(i, "miptex", t.miptex.get() as i64, num_textures, "TEXTURES");
    }
    let mut c = Checker::new(problems, "MODELS");
    for (i, m) in models.iter().enumerate() {
        c.range(i, "face", m.faces(), faces.len(), "FACES");
        for (hull, h) in m.head_nodes().iter().enumerate() {
            let h = h.get() as i64;
            if hull == 0 {
                c.index(i, "hull 0 root", h, nodes.len(), "NODES");
            } else if h < 0 {
                if h < CONTENTS_MIN as i64 {
                    c.problems.push(Problem::new("MODELS", Some(i), format!("hull {hull} root {h} is neither a clipnode nor contents")));
                }
            } else if !(clipnodes.is_empty() && h == 0) {
                c.index(i, &format!("hull {hull} root"), h, clipnodes.len(), "CLIPNODES");
            }
        }
    }
    if let Some(world) = models.first() {
        c.index(0, "visleafs", world.vis_leafs(), leaves.len(), "LEAVES (solid leaf 0 excluded)");
    }

    check_bspx(bsp, faces.len(), lighting.len(), problems);
    // Node tree cycles and shared nodes (children in range are checked above).
    crate::tree::check(bsp, problems);

    // Every PVS row decodes within the lump.
    let mut row = Vec::new();
    for i in 0..leaves.len() {
        if let Err(e) = v.leaf_pvs(i, &mut row) {
            problems.push(Problem::new("VISIBILITY", Some(i), format!("leaf {i}: {}", e.kind)));
        }
    }
}

/// BSPX lumps that refer to the standard lumps (quake_facts.md §2): the directory fits the
/// file; `DECOUPLED_LM` has one 40-byte record per face whose light offset (`i32` at +4, in
/// luxels of the plain lighting, −1 = none) lies in the lighting; `RGBLIGHTING` holds 3 bytes
/// for each byte of a non-empty plain lighting lump.
fn check_bspx(bsp: &Bsp, num_faces: usize, lighting_len: usize, problems: &mut Vec<Problem>) {
    let x = match crate::lumps::bspx::of(bsp) {
        Ok(Some(x)) => x,
        Ok(None) => return,
        Err(e) => {
            problems.push(Problem::new("BSPX", None, e.kind.to_string()));
            return;
        }
    };
    let data = bsp.data();
    let rgb = x.lump(data, "RGBLIGHTING");
    if let (Some(rgb), false, Family::Quake) = (rgb, lighting_len == 0, bsp.family()) {
        if rgb.len() != 3 * lighting_len {
            problems.push(Problem::new("BSPX RGBLIGHTING", None, format!("{} bytes for {lighting_len} luxels", rgb.len())));
        }
    }
    // Luxels the offsets may address: the plain lighting, or the coloured copy when only it exists.
    let luxels = if lighting_len > 0 { lighting_len } else { rgb.map(|r| r.len() / 3).unwrap_or(0) };
    if let Some(lm) = x.lump(data, "DECOUPLED_LM") {
        if lm.len() != 40 * num_faces {
            problems.push(Problem::new("BSPX DECOUPLED_LM", None, format!("{} bytes for {num_faces} faces of 40 bytes", lm.len())));
            return;
        }
        let mut c = Checker::new(problems, "BSPX DECOUPLED_LM");
        for (i, rec) in lm.chunks_exact(40).enumerate() {
            let ofs = crate::bytes::i32_at(rec, 4, crate::Endian::Little).unwrap_or(-1) as i64;
            if ofs >= 0 && luxels > 0 {
                c.index(i, "light offset", ofs, luxels, "lighting luxels");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
