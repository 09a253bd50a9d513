//! Quake 2 record types, IBSP 38 and Qbism (quake_facts.md §4, §4.1), the records SiN, Soldier
//! of Fortune and Daikatana change or add (sources at their descriptors in `lumps`), and the
//! [`Layout`] markers that pick one set.

use zerocopy::byteorder::{F32, I16, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, KnownLayout, LittleEndian as LE};

macro_rules! record {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }) => {
        crate::schema::types::declare_record! { $(#[$m])* pub struct $name { $($(#[$fm])* pub $f: $t,)* } }
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

record! {
    /// SiN `sin_texinfo_t`, 180 bytes: a 64-byte texture name and surface properties.
    pub struct TexInfoSin {
        pub vecs: [[F32<LE>; 4]; 2],
        pub flags: I32<LE>,
        pub texture: [u8; 64],
        pub next_texinfo: I32<LE>,
        pub trans_mag: F32<LE>,
        pub trans_angle: I32<LE>,
        pub base_angle: I32<LE>,
        pub anim_time: F32<LE>,
        pub nonlit: F32<LE>,
        pub translucence: F32<LE>,
        pub friction: F32<LE>,
        pub restitution: F32<LE>,
        pub color: [F32<LE>; 3],
        pub group_name: [u8; 32],
    }
}
impl TexInfoSin {
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.texture)
    }
}
record! {
    /// SiN `sin_dface_t`, 36 bytes: 16 light styles and a LIGHT_INFO index (−1 = none).
    pub struct FaceSin {
        pub plane: U16<LE>,
        pub side: I16<LE>,
        pub first_edge: I32<LE>,
        pub num_edges: I16<LE>,
        pub texinfo: I16<LE>,
        pub styles: [u8; 16],
        pub light_offset: I32<LE>,
        pub light_info: I32<LE>,
    }
}
record! {
    /// SiN `sin_dbrushside_t`, 8 bytes: with a LIGHT_INFO index.
    pub struct BrushSideSin { pub plane: U16<LE>, pub texinfo: I16<LE>, pub light_info: I32<LE>, }
}
record! {
    /// SiN `sin_lightvalue_t`, 60 bytes: surface light emission.
    pub struct LightValueSin {
        pub value: I32<LE>,
        pub color: [F32<LE>; 3],
        pub direct: F32<LE>,
        pub direct_angle: F32<LE>,
        pub direct_style: F32<LE>,
        pub direct_style_name: [u8; 32],
    }
}
record! {
    /// Soldier of Fortune `dface_t`, 44 bytes: a region and a range of REGION_FACES, the
    /// lightmap mip fields, texture mins and extents (two padding gaps from the struct's
    /// natural alignment).
    pub struct FaceSof {
        pub plane: U16<LE>,
        pub side: I16<LE>,
        pub first_edge: I32<LE>,
        pub num_edges: I16<LE>,
        pub texinfo: I16<LE>,
        pub region: I16<LE>,
        pub pad0: [u8; 2],
        pub first_region_face: I32<LE>,
        pub num_region_faces: I16<LE>,
        pub styles: [u8; 4],
        pub pad1: [u8; 2],
        pub light_offset: I32<LE>,
        pub light_mip: [u8; 4],
        pub texture_mins: [I16<LE>; 2],
        pub extents: [I16<LE>; 2],
    }
}
record! {
    /// Soldier of Fortune `dleaf_t`, 32 bytes: with a region (2 bytes of tail padding).
    pub struct LeafSof {
        pub contents: I32<LE>,
        pub cluster: I16<LE>,
        pub area: I16<LE>,
        pub region: I16<LE>,
        pub mins: [I16<LE>; 3],
        pub maxs: [I16<LE>; 3],
        pub first_leaf_face: U16<LE>,
        pub num_leaf_faces: U16<LE>,
        pub first_leaf_brush: U16<LE>,
        pub num_leaf_brushes: U16<LE>,
        pub pad: [u8; 2],
    }
}
record! {
    /// Soldier of Fortune `dregionface_t`, 8 bytes: an edge range (surfedges).
    pub struct RegionFaceSof { pub first_edge: I32<LE>, pub num_edges: I16<LE>, pub pad: [u8; 2], }
}
record! {
    /// Soldier of Fortune `light_t`, 36 bytes; `kind` is surface, point, spotlight or sun (0–3),
    /// `falloff` linear, inverse or inverse square (0–2).
    pub struct LightSof {
        pub origin: [F32<LE>; 3],
        pub color: [F32<LE>; 3],
        pub intensity: F32<LE>,
        pub kind: I32<LE>,
        pub falloff: I32<LE>,
    }
}
record! {
    /// Soldier of Fortune `dregion_t`, 76 bytes: fog settings of a region.
    pub struct RegionSof {
        pub mode: I32<LE>,
        pub density: F32<LE>,
        pub density_range: F32<LE>,
        pub start: F32<LE>,
        pub end: F32<LE>,
        pub height: F32<LE>,
        pub color: [u8; 4],
        pub flags: U32<LE>,
        pub time: F32<LE>,
        pub distance_cull: F32<LE>,
        pub chop_size: F32<LE>,
        pub expansion: [F32<LE>; 8],
    }
}
record! {
    /// Daikatana `extsurfinfo_t`, 12 bytes: the RGB colour of the texinfo at the same index.
    pub struct ExtSurfInfoDk { pub color: [F32<LE>; 3], }
}

/// Daikatana PLANE_POLYS entry: a plane's face count, or one of its face indices.
pub type PlanePoly = I32<LE>;
/// One plane's list from Daikatana's PLANE_POLYS: the plane and its face indices.
pub type PlanePolyList<'a> = (usize, &'a [PlanePoly]);

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
pub trait TexInfoRecord {
    /// The s and t projection rows `[x, y, z, offset]` (quake_facts.md §4).
    fn vecs(&self) -> [[f32; 4]; 2];
    /// The next frame of an animated texture, −1 = none.
    fn next_texinfo(&self) -> i64;
    fn flags(&self) -> i64;
    fn texture_name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(self.texture_bytes())
    }
    /// The texture name as stored, up to its first NUL (the bytes [`Self::texture_name`] reads).
    fn texture_bytes(&self) -> &[u8];
}

// The accessors are always inlined: unoptimised (test) builds honour only `always`, and the
// checks call them once per field of every record (the garble test decodes thousands of maps).
macro_rules! node_record {
    ($($t:ty),*) => {$(
        impl NodeRecord for $t {
            #[inline(always)]
            fn plane(&self) -> i64 {
                self.plane.get() as i64
            }
            #[inline(always)]
            fn children(&self) -> [i64; 2] {
                [self.children[0].get() as i64, self.children[1].get() as i64]
            }
            #[inline(always)]
            fn face_range(&self) -> (i64, i64) {
                (self.first_face.get() as i64, self.num_faces.get() as i64)
            }
        }
    )*};
}
macro_rules! face_record {
    ($($t:ty),*) => {$(
        impl FaceRecord for $t {
            #[inline(always)]
            fn plane(&self) -> i64 {
                self.plane.get() as i64
            }
            #[inline(always)]
            fn side(&self) -> i64 {
                self.side.get() as i64
            }
            #[inline(always)]
            fn edge_range(&self) -> (i64, i64) {
                (self.first_edge.get() as i64, self.num_edges.get() as i64)
            }
            #[inline(always)]
            fn texinfo(&self) -> i64 {
                self.texinfo.get() as i64
            }
            #[inline(always)]
            fn light_offset(&self) -> i64 {
                self.light_offset.get() as i64
            }
            /// The first four styles (SiN stores sixteen).
            fn styles(&self) -> [u8; 4] {
                [self.styles[0], self.styles[1], self.styles[2], self.styles[3]]
            }
        }
    )*};
}
macro_rules! leaf_record {
    ($($t:ty),*) => {$(
        impl LeafRecord for $t {
            #[inline(always)]
            fn contents(&self) -> i64 {
                self.contents.get() as i64
            }
            #[inline(always)]
            fn cluster(&self) -> i64 {
                self.cluster.get() as i64
            }
            #[inline(always)]
            fn area(&self) -> i64 {
                self.area.get() as i64
            }
            #[inline(always)]
            fn leaf_face_range(&self) -> (i64, i64) {
                (self.first_leaf_face.get() as i64, self.num_leaf_faces.get() as i64)
            }
            #[inline(always)]
            fn leaf_brush_range(&self) -> (i64, i64) {
                (self.first_leaf_brush.get() as i64, self.num_leaf_brushes.get() as i64)
            }
        }
    )*};
}
macro_rules! index_record {
    ($($t:ty),*) => {$(
        impl IndexRecord for $t {
            #[inline(always)]
            fn value(&self) -> i64 {
                self.get() as i64
            }
        }
    )*};
}
macro_rules! edge_record {
    ($($t:ty),*) => {$(
        impl EdgeRecord for $t {
            #[inline(always)]
            fn vertices(&self) -> [i64; 2] {
                [self.v[0].get() as i64, self.v[1].get() as i64]
            }
        }
    )*};
}
macro_rules! side_record {
    ($($t:ty),*) => {$(
        impl BrushSideRecord for $t {
            #[inline(always)]
            fn plane(&self) -> i64 {
                self.plane.get() as i64
            }
            #[inline(always)]
            fn texinfo(&self) -> i64 {
                self.texinfo.get() as i64
            }
        }
    )*};
}
macro_rules! texinfo_record {
    ($($t:ty),*) => {$(
        impl TexInfoRecord for $t {
            fn vecs(&self) -> [[f32; 4]; 2] {
                self.vecs.map(|r| r.map(|v| v.get()))
            }
            #[inline(always)]
            fn next_texinfo(&self) -> i64 {
                self.next_texinfo.get() as i64
            }
            fn flags(&self) -> i64 {
                self.flags.get() as i64
            }
            fn texture_bytes(&self) -> &[u8] {
                crate::bytes::c_bytes(&self.texture)
            }
        }
    )*};
}
node_record!(Node, NodeQbism);
face_record!(Face, FaceQbism, FaceSin, FaceSof);
leaf_record!(Leaf, LeafQbism, LeafSof);
index_record!(LeafIndex, LeafIndexQbism);
edge_record!(Edge, EdgeQbism);
side_record!(BrushSide, BrushSideQbism, BrushSideSin);
texinfo_record!(TexInfo, TexInfoSin);

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
    type TexInfo: FromBytes + Immutable + KnownLayout + TexInfoRecord;
}

/// Standard Quake 2 IBSP 38.
#[derive(Debug, Clone, Copy)]
pub enum Ibsp {}
/// Qbism QBSP 38.
#[derive(Debug, Clone, Copy)]
pub enum Qbism {}
/// SiN (RBSP 1 / IBSP 41).
#[derive(Debug, Clone, Copy)]
pub enum Sin {}
/// Soldier of Fortune (IBSP 46, 22 lumps).
#[derive(Debug, Clone, Copy)]
pub enum Sof {}
/// Daikatana (IBSP 41).
#[derive(Debug, Clone, Copy)]
pub enum Daikatana {}

/// `impl Layout` for a marker: branch id, then node, face, leaf, leaf index, edge, brush side
/// and texinfo record types.
macro_rules! layout {
    ($marker:ty, $id:literal, $node:ty, $face:ty, $leaf:ty, $index:ty, $edge:ty, $side:ty, $texinfo:ty) => {
        impl Layout for $marker {
            const BRANCH_ID: &'static str = $id;
            type Node = $node;
            type Face = $face;
            type Leaf = $leaf;
            type LeafIndex = $index;
            type Edge = $edge;
            type BrushSide = $side;
            type TexInfo = $texinfo;
        }
    };
}
layout!(Ibsp, "quake2", Node, Face, Leaf, LeafIndex, Edge, BrushSide, TexInfo);
layout!(Qbism, "qbism", NodeQbism, FaceQbism, LeafQbism, LeafIndexQbism, EdgeQbism, BrushSideQbism, TexInfo);
layout!(Sin, "sin", Node, FaceSin, Leaf, LeafIndex, Edge, BrushSideSin, TexInfoSin);
layout!(Sof, "sof", Node, FaceSof, LeafSof, LeafIndex, Edge, BrushSide, TexInfo);
// Daikatana leaves are Quake 2's 28 bytes in shipped maps (lumps.rs, DAIKATANA).
layout!(Daikatana, "daikatana", Node, Face, Leaf, LeafIndex, Edge, BrushSide, TexInfo);

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
        // SiN (bspc sinfiles.h), Soldier of Fortune (SoF SDK qfiles.h), Daikatana (qfiles.h).
        assert_eq!(size_of::<TexInfoSin>(), 180);
        assert_eq!(size_of::<FaceSin>(), 36);
        assert_eq!(size_of::<BrushSideSin>(), 8);
        assert_eq!(size_of::<LightValueSin>(), 60);
        assert_eq!(size_of::<FaceSof>(), 44);
        assert_eq!(size_of::<LeafSof>(), 32);
        assert_eq!(size_of::<RegionFaceSof>(), 8);
        assert_eq!(size_of::<LightSof>(), 36);
        assert_eq!(size_of::<RegionSof>(), 76);
        assert_eq!(size_of::<ExtSurfInfoDk>(), 12);
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
            assert_eq!(s(LUMP_TEXINFO), Some(size_of::<L::TexInfo>()));
            assert_eq!(s(LUMP_MODELS), Some(size_of::<Model>()));
            assert_eq!(b.id, L::BRANCH_ID);
        }
        sizes::<Ibsp>(&QUAKE2);
        sizes::<Qbism>(&QBISM);
        sizes::<Sin>(&SIN);
        sizes::<Sof>(&SOF);
        sizes::<Daikatana>(&DAIKATANA);
        assert_eq!(SIN.lumps[LUMP_SIN_LIGHT_INFO].record_size(0), Some(size_of::<LightValueSin>()));
        assert_eq!(SOF.lumps[LUMP_SOF_REGION_FACES].record_size(0), Some(size_of::<RegionFaceSof>()));
        assert_eq!(SOF.lumps[LUMP_SOF_LIGHTS].record_size(0), Some(size_of::<LightSof>()));
        assert_eq!(SOF.lumps[LUMP_SOF_REGIONS].record_size(0), Some(size_of::<RegionSof>()));
        assert_eq!(DAIKATANA.lumps[LUMP_DK_EXT_SURF_INFO].record_size(0), Some(size_of::<ExtSurfInfoDk>()));
        assert_eq!((SIN.lumps.len(), SOF.lumps.len(), DAIKATANA.lumps.len()), (20, 22, 21));
    }
}
