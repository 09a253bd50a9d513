//! Quake 2 IBSP 38 and Qbism QBSP 38 (quake_family.md C.3; quake_facts.md §4, §4.1, §6.2).
//!
//! Both share one 19-lump table; Qbism widens the index fields of nodes, faces, leaves,
//! leaf faces / brushes, edges and brush sides to 32 bits (and node / leaf bounds to floats).
//! [`View`] is generic over a [`Layout`] marker ([`Ibsp`] or [`Qbism`]) so one set of
//! accessors and one set of checks serves both.

use std::marker::PhantomData;

use zerocopy::byteorder::{F32, I16, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian as LE, Unaligned};

use crate::branch::{Branch, Family, HeaderKind, LumpDef};
use crate::bsp::Bsp;
use crate::check::{Checker, Problem};
use crate::error::{Error, Result};
use crate::lumps::visibility::{ClusterVis, VisKind};
use crate::stats::Stat;

pub mod texture;

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_PLANES: usize = 1;
pub const LUMP_VERTICES: usize = 2;
pub const LUMP_VISIBILITY: usize = 3;
pub const LUMP_NODES: usize = 4;
pub const LUMP_TEXINFO: usize = 5;
pub const LUMP_FACES: usize = 6;
pub const LUMP_LIGHTING: usize = 7;
pub const LUMP_LEAVES: usize = 8;
pub const LUMP_LEAF_FACES: usize = 9;
pub const LUMP_LEAF_BRUSHES: usize = 10;
pub const LUMP_EDGES: usize = 11;
pub const LUMP_SURFEDGES: usize = 12;
pub const LUMP_MODELS: usize = 13;
pub const LUMP_BRUSHES: usize = 14;
pub const LUMP_BRUSH_SIDES: usize = 15;
pub const LUMP_POP: usize = 16;
pub const LUMP_AREAS: usize = 17;
pub const LUMP_AREA_PORTALS: usize = 18;

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

/// Typed, zero-copy access to a Quake 2 map's lumps.
///
/// ```
/// # fn main() -> Result<(), bspkit::Error> {
/// use bspkit::branches::quake2::{self, Ibsp};
/// let bytes = bspkit::build::BspBuilder::new(&quake2::QUAKE2).lump(quake2::LUMP_MODELS, vec![0u8; 48]).build();
/// let bsp = bspkit::Bsp::from_bytes(&bytes)?;
/// let view = quake2::View::<Ibsp>::new(&bsp)?;
/// assert_eq!(view.models()?.len(), 1);
/// # Ok(()) }
/// ```
pub struct View<'a, L: Layout = Ibsp> {
    bsp: &'a Bsp<'a>,
    layout: PhantomData<L>,
}

impl<'a, L: Layout> View<'a, L> {
    /// A view of `bsp`, which must be of this layout's branch.
    pub fn new(bsp: &'a Bsp<'a>) -> Result<Self> {
        if bsp.branch().id != L::BRANCH_ID {
            return Err(Error::malformed(format!("a {} map cannot be read with the {} layout", bsp.branch().id, L::BRANCH_ID)));
        }
        Ok(View { bsp, layout: PhantomData })
    }
    pub fn bsp(&self) -> &'a Bsp<'a> {
        self.bsp
    }
    pub fn planes(&self) -> Result<&'a [Plane]> {
        self.bsp.records(LUMP_PLANES)
    }
    pub fn vertices(&self) -> Result<&'a [Vertex]> {
        self.bsp.records(LUMP_VERTICES)
    }
    pub fn nodes(&self) -> Result<&'a [L::Node]> {
        self.bsp.records(LUMP_NODES)
    }
    pub fn texinfo(&self) -> Result<&'a [TexInfo]> {
        self.bsp.records(LUMP_TEXINFO)
    }
    pub fn faces(&self) -> Result<&'a [L::Face]> {
        self.bsp.records(LUMP_FACES)
    }
    /// RGB lightmap samples, 3 bytes per luxel.
    pub fn lighting(&self) -> Result<&'a [u8]> {
        self.bsp.lump(LUMP_LIGHTING)
    }
    pub fn leaves(&self) -> Result<&'a [L::Leaf]> {
        self.bsp.records(LUMP_LEAVES)
    }
    pub fn leaf_faces(&self) -> Result<&'a [L::LeafIndex]> {
        self.bsp.records(LUMP_LEAF_FACES)
    }
    pub fn leaf_brushes(&self) -> Result<&'a [L::LeafIndex]> {
        self.bsp.records(LUMP_LEAF_BRUSHES)
    }
    pub fn edges(&self) -> Result<&'a [L::Edge]> {
        self.bsp.records(LUMP_EDGES)
    }
    pub fn surfedges(&self) -> Result<&'a [SurfEdge]> {
        self.bsp.records(LUMP_SURFEDGES)
    }
    pub fn models(&self) -> Result<&'a [Model]> {
        self.bsp.records(LUMP_MODELS)
    }
    pub fn brushes(&self) -> Result<&'a [Brush]> {
        self.bsp.records(LUMP_BRUSHES)
    }
    pub fn brush_sides(&self) -> Result<&'a [L::BrushSide]> {
        self.bsp.records(LUMP_BRUSH_SIDES)
    }
    pub fn areas(&self) -> Result<&'a [Area]> {
        self.bsp.records(LUMP_AREAS)
    }
    pub fn area_portals(&self) -> Result<&'a [AreaPortal]> {
        self.bsp.records(LUMP_AREA_PORTALS)
    }
    /// A face's polygon corners, in winding order, written into `out` (cleared first; reuse
    /// it across faces). Surfedge `e ≥ 0` starts at `edges[e].v[0]`, `e < 0` at `edges[-e].v[1]`.
    pub fn face_points(&self, face: &L::Face, out: &mut Vec<[f32; 3]>) -> Result<()> {
        out.clear();
        let (surfedges, edges, vertices) = (self.surfedges()?, self.edges()?, self.vertices()?);
        let (first, count) = face.edge_range();
        let bad = |what: String| self.bsp.lump_error(LUMP_FACES, Error::malformed(what));
        let list = usize::try_from(first)
            .ok()
            .zip(usize::try_from(count).ok())
            .and_then(|(f, n)| surfedges.get(f..f.checked_add(n)?))
            .ok_or_else(|| bad(format!("surfedge range {first}+{count} is outside 0..{}", surfedges.len())))?;
        for se in list {
            let se = se.get() as i64;
            let edge =
                usize::try_from(se.abs()).ok().and_then(|e| edges.get(e)).ok_or_else(|| bad(format!("surfedge {se} names no edge")))?;
            let v = edge.vertices()[usize::from(se < 0)];
            let p = usize::try_from(v).ok().and_then(|v| vertices.get(v)).ok_or_else(|| bad(format!("edge vertex {v} is out of range")))?;
            out.push(p.point.map(|c| c.get()));
        }
        Ok(())
    }
    /// Cluster PVS / PHS (quake_facts.md §4 lump 3).
    pub fn visibility(&self) -> Result<ClusterVis<'a>> {
        let data = self.bsp.lump(LUMP_VISIBILITY)?;
        ClusterVis::parse(data, self.bsp.endian()).map_err(|e| self.bsp.lump_error(LUMP_VISIBILITY, e))
    }
}

macro_rules! q2_lumps {
    (node: $node:literal, face: $face:literal, leaf: $leaf:literal, index: $idx:literal, edge: $edge:literal, side: $side:literal) => {
        &[
            LumpDef::entities("ENTITIES"),
            LumpDef::records("PLANES", 20),
            LumpDef::records("VERTICES", 12),
            LumpDef::special("VISIBILITY"),
            LumpDef::records("NODES", $node),
            LumpDef::records("TEXINFO", 76),
            LumpDef::records("FACES", $face),
            LumpDef::raw("LIGHTING"),
            LumpDef::records("LEAVES", $leaf),
            LumpDef::records("LEAF_FACES", $idx),
            LumpDef::records("LEAF_BRUSHES", $idx),
            LumpDef::records("EDGES", $edge),
            LumpDef::records("SURFEDGES", 4),
            LumpDef::records("MODELS", 48),
            LumpDef::records("BRUSHES", 12),
            LumpDef::records("BRUSH_SIDES", $side),
            LumpDef::raw("POP"),
            LumpDef::records("AREAS", 8),
            LumpDef::records("AREA_PORTALS", 8),
        ]
    };
}

pub static QUAKE2: Branch = Branch {
    id: "quake2",
    family: Family::Quake2,
    title: "Quake II (IBSP 38)",
    games: "Quake II and its mods, Kingpin, SiN (variants), Heretic II",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q2_lumps!(node: 28, face: 20, leaf: 28, index: 2, edge: 4, side: 4),
    stats: Some(stats),
    check: Some(check::<Ibsp>),
};

pub static QBISM: Branch = Branch {
    id: "qbism",
    family: Family::Quake2,
    title: "Quake II Qbism (QBSP 38, 32-bit indices)",
    games: "Quake II source ports with extended limits",
    header: HeaderKind::IdMagic { magic: *b"QBSP" },
    lumps: q2_lumps!(node: 44, face: 28, leaf: 52, index: 4, edge: 8, side: 8),
    stats: Some(stats),
    check: Some(check::<Qbism>),
};

/// The q2tools `4bsp` / `4vis` / `4rad` FILE STATS rows (quake_facts.md §6.2): count = lump
/// length / record size and size = count × record size; entdata counts parsed entities and
/// gives the entity lump length (NUL included); lightdata and visdata are raw lump lengths.
/// Areas, area portals and pop are not printed by the tool.
fn stats(bsp: &Bsp) -> Vec<Stat> {
    let rec = |name: &str, index: usize| {
        let size = bsp.record_size(index).unwrap_or(1);
        let mut s = Stat::records(name, bsp, index, size);
        s.bytes = s.count.unwrap_or(0) * size as u64;
        s
    };
    let entities = bsp.entities().map(|e| e.len() as u64).unwrap_or(0);
    let ent_bytes = bsp.lump(LUMP_ENTITIES).map(|l| l.len() as u64).unwrap_or(0);
    vec![
        rec("models", LUMP_MODELS),
        rec("brushes", LUMP_BRUSHES),
        rec("brushsides", LUMP_BRUSH_SIDES),
        rec("planes", LUMP_PLANES),
        rec("texinfo", LUMP_TEXINFO),
        Stat::new("entdata", Some(entities), ent_bytes),
        rec("vertices", LUMP_VERTICES),
        rec("nodes", LUMP_NODES),
        rec("faces", LUMP_FACES),
        rec("leafs", LUMP_LEAVES),
        rec("leaffaces", LUMP_LEAF_FACES),
        rec("leafbrushes", LUMP_LEAF_BRUSHES),
        rec("edges", LUMP_EDGES),
        rec("surfedges", LUMP_SURFEDGES),
        Stat::bytes_only("lightdata", bsp, LUMP_LIGHTING),
        Stat::bytes_only("visdata", bsp, LUMP_VISIBILITY),
    ]
}

/// Lump label as the generic checks print it.
fn label(bsp: &Bsp, index: usize) -> String {
    format!("{index} ({})", bsp.branch().lumps.get(index).map(|l| l.name).unwrap_or("?"))
}

/// Length of a lump that decoded; `None` when it did not (the generic check already
/// reported it), so references into it are not checked.
fn len<T>(r: &Result<&[T]>) -> Option<usize> {
    r.as_ref().ok().map(|s| s.len())
}

/// Index check against a table whose length may be unknown.
pub(crate) fn index(c: &mut Checker, rec: usize, field: &str, value: i64, len: Option<usize>, target: &str) {
    if let Some(n) = len {
        c.index(rec, field, value, n, target);
    }
}
pub(crate) fn range(c: &mut Checker, rec: usize, field: &str, r: (i64, i64), len: Option<usize>, target: &str) {
    if let Some(n) = len {
        c.range(rec, field, r, n, target);
    }
}

/// Node child: ≥ 0 a node, < 0 leaf `-(child + 1)`.
pub(crate) fn child(c: &mut Checker, rec: usize, value: i64, nodes: usize, leaves: Option<usize>) {
    if value >= 0 {
        c.index(rec, "child node", value, nodes, "nodes");
    } else {
        index(c, rec, "child leaf", -(value + 1), leaves, "leaves");
    }
}

/// Every cross-reference of a Quake 2 map in range (quake_facts.md §4).
fn check<L: Layout>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<L>::new(bsp) else { return };
    // Node tree cycles and shared nodes; the NODES checks below cover children out of range.
    crate::tree::check(bsp, problems);
    let (planes, vertices, nodes, texinfo, faces) = (v.planes(), v.vertices(), v.nodes(), v.texinfo(), v.faces());
    let (leaves, leaf_faces, leaf_brushes, edges, surfedges) = (v.leaves(), v.leaf_faces(), v.leaf_brushes(), v.edges(), v.surfedges());
    let (models, brushes, sides, areas, portals) = (v.models(), v.brushes(), v.brush_sides(), v.areas(), v.area_portals());
    let lighting = v.lighting().map(|l| l.len()).unwrap_or(0);
    let vis = v.visibility();
    if let Err(e) = &vis {
        problems.push(Problem::new(label(bsp, LUMP_VISIBILITY), None, e.kind.to_string()));
    }
    let vis = vis.ok();

    let l = label(bsp, LUMP_NODES);
    let mut c = Checker::new(problems, &l);
    for (i, n) in nodes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", n.plane(), len(&planes), "planes");
        for ch in n.children() {
            child(&mut c, i, ch, len(&nodes).unwrap_or(0), len(&leaves));
        }
        range(&mut c, i, "faces", n.face_range(), len(&faces), "faces");
    }

    let l = label(bsp, LUMP_TEXINFO);
    let mut c = Checker::new(problems, &l);
    for (i, t) in texinfo.as_deref().unwrap_or(&[]).iter().enumerate() {
        let next = t.next_texinfo.get() as i64;
        if next != -1 {
            index(&mut c, i, "nexttexinfo", next, len(&texinfo), "texinfo");
        }
    }

    let l = label(bsp, LUMP_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, f) in faces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", f.plane(), len(&planes), "planes");
        index(&mut c, i, "texinfo", f.texinfo(), len(&texinfo), "texinfo");
        range(&mut c, i, "surfedges", f.edge_range(), len(&surfedges), "surfedges");
        if !(0..=1).contains(&f.side()) {
            c.problems.push(Problem::new(c.lump, Some(i), format!("side {} is neither 0 (front) nor 1 (back)", f.side())));
        }
        // A polygon needs three edges.
        if f.edge_range().1 < 3 {
            c.problems.push(Problem::new(c.lump, Some(i), format!("{} edges cannot make a polygon", f.edge_range().1)));
        }
        // A lit face's samples start inside the lighting lump (−1 = unlit).
        let ofs = f.light_offset();
        if ofs != -1 {
            c.index(i, "lightofs", ofs, lighting, "lighting bytes");
        }
    }

    let l = label(bsp, LUMP_LEAVES);
    let mut c = Checker::new(problems, &l);
    let clusters = vis.filter(|v| v.num_clusters > 0).map(|v| v.num_clusters);
    let num_areas = len(&areas).filter(|&n| n > 0);
    for (i, leaf) in leaves.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "leaffaces", leaf.leaf_face_range(), len(&leaf_faces), "leaffaces");
        range(&mut c, i, "leafbrushes", leaf.leaf_brush_range(), len(&leaf_brushes), "leafbrushes");
        // Cluster −1 marks a leaf outside every cluster; others index the vis table. A map
        // compiled without vis still numbers its clusters (ericw-tools' example-quake2 /
        // example-qbism: clusters up to 108, empty visibility lump), so there is no bound then.
        if leaf.cluster() != -1 {
            index(&mut c, i, "cluster", leaf.cluster(), clusters, "clusters");
        }
        index(&mut c, i, "area", leaf.area(), num_areas, "areas");
    }

    let l = label(bsp, LUMP_LEAF_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_faces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "face", x.value(), len(&faces), "faces");
    }
    let l = label(bsp, LUMP_LEAF_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "brush", x.value(), len(&brushes), "brushes");
    }

    let l = label(bsp, LUMP_EDGES);
    let mut c = Checker::new(problems, &l);
    for (i, e) in edges.as_deref().unwrap_or(&[]).iter().enumerate() {
        for vtx in e.vertices() {
            index(&mut c, i, "vertex", vtx, len(&vertices), "vertices");
        }
    }
    let l = label(bsp, LUMP_SURFEDGES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in surfedges.as_deref().unwrap_or(&[]).iter().enumerate() {
        // The sign gives the direction; the magnitude is the edge.
        index(&mut c, i, "edge", (s.get() as i64).abs(), len(&edges), "edges");
    }

    let l = label(bsp, LUMP_MODELS);
    let mut c = Checker::new(problems, &l);
    for (i, m) in models.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "faces", (m.first_face.get() as i64, m.num_faces.get() as i64), len(&faces), "faces");
        index(&mut c, i, "headnode", m.head_node.get() as i64, len(&nodes), "nodes");
    }

    let l = label(bsp, LUMP_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, b) in brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "sides", (b.first_side.get() as i64, b.num_sides.get() as i64), len(&sides), "brushsides");
    }
    let l = label(bsp, LUMP_BRUSH_SIDES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in sides.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", s.plane(), len(&planes), "planes");
        // Bevel sides added for collision carry texinfo −1.
        if s.texinfo() != -1 {
            index(&mut c, i, "texinfo", s.texinfo(), len(&texinfo), "texinfo");
        }
    }

    let l = label(bsp, LUMP_AREAS);
    let mut c = Checker::new(problems, &l);
    for (i, a) in areas.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "areaportals", (a.first_area_portal.get() as i64, a.num_area_portals.get() as i64), len(&portals), "areaportals");
    }
    let l = label(bsp, LUMP_AREA_PORTALS);
    let mut c = Checker::new(problems, &l);
    for (i, p) in portals.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "otherarea", p.other_area.get() as i64, len(&areas), "areas");
    }

    // Every cluster's PVS and PHS row decodes inside the lump.
    if let Some(vis) = vis {
        let l = label(bsp, LUMP_VISIBILITY);
        let mut row = Vec::new();
        for cl in 0..vis.num_clusters {
            for kind in [VisKind::Pvs, VisKind::Pas] {
                if let Err(e) = vis.row(cl, kind, &mut row) {
                    problems.push(Problem::new(&l, Some(cl), format!("{kind:?} row: {}", e.kind)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn view_refuses_other_layout() {
        let bytes = crate::build::BspBuilder::new(&QBISM).build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert!(View::<Ibsp>::new(&bsp).is_err());
        assert!(View::<Qbism>::new(&bsp).is_ok());
    }
}
