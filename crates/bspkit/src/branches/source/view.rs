//! Typed views of a Source map's lumps: [`View`] borrows the map and hands out slices of the
//! record types in [`super::records`] — zero-copy, no allocation per record. Lumps whose form
//! depends on the branch (Strata v25, VTMB) or the lump version come back as small enums;
//! their `iter()` yields a plain summary of the fields cross-reference code needs.

use std::marker::PhantomData;

use zerocopy::byteorder::ByteOrder;
use zerocopy::FromBytes;

use super::lumps::*;
use super::records::*;
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::error::{Error, Result};
use crate::lumps::visibility::ClusterVis;

/// A typed view of a Source map in byte order `O` (`zerocopy::LittleEndian` for `VBSP`,
/// `zerocopy::BigEndian` for `PSBV`; see [`View::endian_matches`]).
pub struct View<'a, O: ByteOrder> {
    pub bsp: &'a Bsp<'a>,
    layout: Layout,
    _o: PhantomData<O>,
}

impl<O: ByteOrder> Clone for View<'_, O> {
    fn clone(&self) -> Self {
        View { bsp: self.bsp, layout: self.layout, _o: PhantomData }
    }
}

/// A face's cross-reference fields, whatever its stored form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceInfo {
    pub planenum: i64,
    pub firstedge: i64,
    pub numedges: i64,
    pub texinfo: i64,
    pub dispinfo: i64,
    pub lightofs: i64,
    /// Light styles in use (not 255), up to 8 (VTMB).
    pub num_styles: usize,
    /// `(size[0] + 1) × (size[1] + 1)` luxels (§19).
    pub luxels: i64,
    pub orig_face: i64,
    pub num_prims: i64,
    pub first_prim: i64,
}

pub enum Faces<'a, O: ByteOrder> {
    Standard(&'a [Face<O>]),
    Vtmb(&'a [FaceVtmb<O>]),
    Strata(&'a [FaceStrata<O>]),
    /// Vindictus faces of lump version 2 (76 bytes); its version 1 is [`Faces::Strata`]'s layout.
    VindictusV2(&'a [FaceVinV2<O>]),
}

/// How far (units) a Dota 2 displacement's start position may lie from its face's corner: both
/// are the same stored floats, so this only absorbs the f32 → f64 widening.
pub const DOTA_CORNER_EPS: f64 = 0.01;

/// [`View::disp_infos_dota`]'s proof of `records`: `Err` names the first record the map does not
/// prove and why. `face(i)`: face `i`'s dispinfo field and corner loop; `n_verts`, `n_tris`:
/// the records in lumps 33 and 48.
fn prove_dota_disps(
    records: impl Iterator<Item = DispInfoSummary>,
    n_verts: usize,
    n_tris: usize,
    face: impl Fn(usize) -> Option<(i64, Vec<[f64; 3]>)>,
) -> std::result::Result<(), String> {
    for (i, d) in records.enumerate() {
        let why = |s: String| format!("dispinfo {i}: {s}");
        if !(2..=4).contains(&d.power) {
            return Err(why(format!("power {} (Hammer makes 2 to 4)", d.power)));
        }
        let nv = ((1usize << d.power) + 1).pow(2);
        let nt = 2 * (1usize << d.power).pow(2);
        let fits =
            |start: i64, count: usize, len: usize| usize::try_from(start).ok().and_then(|s| s.checked_add(count)).is_some_and(|e| e <= len);
        if !fits(d.disp_vert_start, nv, n_verts) || !fits(d.disp_tri_start, nt, n_tris) {
            return Err(why(format!(
                "vertices {}+{nv} or triangles {}+{nt} outside the lumps ({n_verts}, {n_tris})",
                d.disp_vert_start, d.disp_tri_start
            )));
        }
        let Some((back, corners)) = usize::try_from(d.map_face).ok().and_then(&face) else {
            return Err(why(format!("MapFace {} names no face", d.map_face)));
        };
        if back != i as i64 {
            return Err(why(format!("MapFace {} names a face whose dispinfo is {back}", d.map_face)));
        }
        let s = d.start_position.map(f64::from);
        if corners.len() != 4 || !corners.iter().any(|c| (0..3).all(|k| (c[k] - s[k]).abs() <= DOTA_CORNER_EPS)) {
            return Err(why(format!(
                "start position {:?} is not a corner of face {} ({} corners)",
                d.start_position,
                d.map_face,
                corners.len()
            )));
        }
    }
    Ok(())
}

fn styles_used(s: &[u8]) -> usize {
    s.iter().filter(|&&x| x != 255).count()
}

impl<'a, O: ByteOrder> Faces<'a, O> {
    pub fn len(&self) -> usize {
        match self {
            Faces::Standard(f) => f.len(),
            Faces::Vtmb(f) => f.len(),
            Faces::Strata(f) => f.len(),
            Faces::VindictusV2(f) => f.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether each style's average sample sits in the lighting lump just before `lightofs`
    /// (§19, A16). VTMB's faces carry their eight averages in the record (`avg_light_color`), and
    /// its compiler packs the samples back to back from offset 0: in 8 shipped maps of the game
    /// every lit face starts where the one before ends and the last ends at the lump's end.
    pub fn averages_before_samples(&self) -> bool {
        !matches!(self, Faces::Vtmb(_))
    }
    pub fn get(&self, i: usize) -> Option<FaceInfo> {
        // The three face layouts share these field names; they differ in the primitive fields.
        macro_rules! face_info {
            ($f:ident = $record:expr; num_prims: $num_prims:expr, first_prim: $first_prim:expr) => {{
                let $f = $record;
                FaceInfo {
                    planenum: $f.planenum.get() as i64,
                    firstedge: $f.firstedge.get() as i64,
                    numedges: $f.numedges.get() as i64,
                    texinfo: $f.texinfo.get() as i64,
                    dispinfo: $f.dispinfo.get() as i64,
                    lightofs: $f.lightofs.get() as i64,
                    num_styles: styles_used(&$f.styles),
                    luxels: ($f.lightmap_size[0].get() as i64 + 1).saturating_mul($f.lightmap_size[1].get() as i64 + 1),
                    orig_face: $f.orig_face.get() as i64,
                    num_prims: $num_prims,
                    first_prim: $first_prim,
                }
            }};
        }
        Some(match self {
            Faces::Standard(f) => {
                face_info!(f = f.get(i)?; num_prims: f.num_prims.get() as i64, first_prim: f.first_prim_id.get() as i64)
            }
            Faces::Vtmb(f) => face_info!(f = f.get(i)?; num_prims: 0, first_prim: 0),
            Faces::Strata(f) => {
                face_info!(f = f.get(i)?; num_prims: (f.prims.get() >> 1) as i64, first_prim: f.first_prim_id.get() as i64)
            }
            Faces::VindictusV2(f) => {
                face_info!(f = f.get(i)?; num_prims: (f.prims.get() >> 1) as i64, first_prim: f.first_prim_id.get() as i64)
            }
        })
    }
    pub fn iter(&self) -> impl Iterator<Item = FaceInfo> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A node's cross-reference fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeInfo {
    pub planenum: i64,
    pub children: [i64; 2],
    pub firstface: i64,
    pub numfaces: i64,
}

pub enum Nodes<'a, O: ByteOrder> {
    Standard(&'a [Node<O>]),
    Strata(&'a [NodeStrata<O>]),
    Vindictus(&'a [NodeVin<O>]),
}

impl<O: ByteOrder> Nodes<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            Nodes::Standard(n) => n.len(),
            Nodes::Strata(n) => n.len(),
            Nodes::Vindictus(n) => n.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> impl Iterator<Item = NodeInfo> + '_ {
        // Both node layouts share these field names (Strata widens them).
        macro_rules! node_info {
            ($n:expr) => {{
                let n = $n;
                NodeInfo {
                    planenum: n.planenum.get() as i64,
                    children: [n.children[0].get() as i64, n.children[1].get() as i64],
                    firstface: n.firstface.get() as i64,
                    numfaces: n.numfaces.get() as i64,
                }
            }};
        }
        (0..self.len()).filter_map(|i| {
            Some(match self {
                Nodes::Standard(n) => node_info!(n.get(i)?),
                Nodes::Strata(n) => node_info!(n.get(i)?),
                Nodes::Vindictus(n) => node_info!(n.get(i)?),
            })
        })
    }
}

/// A leaf's cross-reference fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafInfo {
    pub contents: i64,
    pub cluster: i64,
    pub area: i64,
    pub firstleafface: i64,
    pub numleaffaces: i64,
    pub firstleafbrush: i64,
    pub numleafbrushes: i64,
    pub leaf_water_data_id: i64,
}

pub enum Leaves<'a, O: ByteOrder> {
    /// Lump version 0, 56 bytes with a light cube.
    V0(&'a [LeafV0<O>]),
    /// Lump version 1, 32 bytes.
    V1(&'a [Leaf<O>]),
    Strata(&'a [LeafStrata<O>]),
    Vindictus(&'a [LeafVin<O>]),
}

impl<O: ByteOrder> Leaves<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            Leaves::V0(l) => l.len(),
            Leaves::V1(l) => l.len(),
            Leaves::Strata(l) => l.len(),
            Leaves::Vindictus(l) => l.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> impl Iterator<Item = LeafInfo> + '_ {
        // The three leaf layouts share these field names (Strata widens them).
        macro_rules! leaf_info {
            ($l:expr) => {{
                let l = $l;
                LeafInfo {
                    contents: l.contents.get() as i64,
                    cluster: l.cluster.get() as i64,
                    area: l.area() as i64,
                    firstleafface: l.firstleafface.get() as i64,
                    numleaffaces: l.numleaffaces.get() as i64,
                    firstleafbrush: l.firstleafbrush.get() as i64,
                    numleafbrushes: l.numleafbrushes.get() as i64,
                    leaf_water_data_id: l.leaf_water_data_id.get() as i64,
                }
            }};
        }
        (0..self.len()).filter_map(|i| {
            Some(match self {
                Leaves::V0(l) => leaf_info!(l.get(i)?),
                Leaves::V1(l) => leaf_info!(l.get(i)?),
                Leaves::Strata(l) => leaf_info!(l.get(i)?),
                Leaves::Vindictus(l) => leaf_info!(l.get(i)?),
            })
        })
    }
}

/// A brush side's cross-reference fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrushSideInfo {
    pub planenum: i64,
    pub texinfo: i64,
    pub dispinfo: i64,
}

pub enum BrushSides<'a, O: ByteOrder> {
    Standard(&'a [BrushSide<O>]),
    Strata(&'a [BrushSideStrata<O>]),
    Vindictus(&'a [BrushSideVin<O>]),
}

impl<O: ByteOrder> BrushSides<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            BrushSides::Standard(s) => s.len(),
            BrushSides::Strata(s) => s.len(),
            BrushSides::Vindictus(s) => s.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> impl Iterator<Item = BrushSideInfo> + '_ {
        (0..self.len()).filter_map(|i| {
            Some(match self {
                BrushSides::Standard(s) => {
                    let s = s.get(i)?;
                    BrushSideInfo { planenum: s.planenum.get() as i64, texinfo: s.texinfo.get() as i64, dispinfo: s.dispinfo.get() as i64 }
                }
                BrushSides::Strata(s) => {
                    let s = s.get(i)?;
                    BrushSideInfo { planenum: s.planenum.get() as i64, texinfo: s.texinfo.get() as i64, dispinfo: s.dispinfo.get() as i64 }
                }
                BrushSides::Vindictus(s) => {
                    let s = s.get(i)?;
                    BrushSideInfo { planenum: s.planenum.get() as i64, texinfo: s.texinfo.get() as i64, dispinfo: s.dispinfo.get() as i64 }
                }
            })
        })
    }
}

/// Edges: 16-bit or (Strata) 32-bit vertex indices.
pub enum Edges<'a, O: ByteOrder> {
    Standard(&'a [Edge<O>]),
    Strata(&'a [Edge32<O>]),
}

impl<O: ByteOrder> Edges<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            Edges::Standard(e) => e.len(),
            Edges::Strata(e) => e.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, i: usize) -> Option<[u32; 2]> {
        match self {
            Edges::Standard(e) => e.get(i).map(|e| e.vertices()),
            Edges::Strata(e) => e.get(i).map(|e| e.vertices()),
        }
    }
}

/// An index list (leaf faces, leaf brushes, vertex normal indices): 16- or 32-bit entries.
pub enum Indices<'a, O: ByteOrder> {
    U16(&'a [Index16<O>]),
    U32(&'a [Index32<O>]),
}

impl<O: ByteOrder> Indices<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            Indices::U16(v) => v.len(),
            Indices::U32(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Indices::U16(v) => v.get(i).map(|x| x.index.get() as u32),
            Indices::U32(v) => v.get(i).map(|x| x.index.get()),
        }
    }
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A displacement's fields as every `ddispinfo_t` layout (Valve's, Strata's, Vindictus')
/// stores them, widened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispInfoSummary {
    pub start_position: [f32; 3],
    pub disp_vert_start: i64,
    pub disp_tri_start: i64,
    pub power: i32,
    pub map_face: i64,
    pub allowed_verts: [u32; 10],
}

pub enum DispInfos<'a, O: ByteOrder> {
    Standard(&'a [DispInfo<O>]),
    Strata(&'a [DispInfoStrata<O>]),
    Vindictus(&'a [DispInfoVin<O>]),
    /// Dota 2 v22 records, every one proven by the map ([`View::disp_infos`]).
    DotaV22(&'a [DispInfoDotaV22<O>]),
    /// Dota 2 v23 records, every one proven by the map ([`View::disp_infos`]).
    DotaV23(&'a [DispInfoDotaV23<O>]),
    /// Dota 2 records the map does not prove: why. None is read (a wrong layout would fail
    /// everywhere, so reading the records that pass would only hide it).
    Unproven(String),
    /// A form with no known fields (CSO2 2018): count unknown here.
    Unknown,
}

/// The [`DispInfoSummary`] of one record of any layout: the fields have the same names.
macro_rules! disp_summary {
    ($d:expr) => {
        DispInfoSummary {
            start_position: v3(&$d.start_position),
            disp_vert_start: $d.disp_vert_start.get() as i64,
            disp_tri_start: $d.disp_tri_start.get() as i64,
            power: $d.power.get(),
            map_face: $d.map_face.get() as i64,
            allowed_verts: $d.allowed_verts.map(|a| a.get()),
        }
    };
}

impl<O: ByteOrder> DispInfos<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            DispInfos::Standard(d) => d.len(),
            DispInfos::Strata(d) => d.len(),
            DispInfos::Vindictus(d) => d.len(),
            DispInfos::DotaV22(d) => d.len(),
            DispInfos::DotaV23(d) => d.len(),
            DispInfos::Unproven(_) | DispInfos::Unknown => 0,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Record `i`, `None` past the end, in an unknown layout or in unproven Dota 2 records.
    pub fn get(&self, i: usize) -> Option<DispInfoSummary> {
        match self {
            DispInfos::Standard(d) => d.get(i).map(|d| disp_summary!(d)),
            DispInfos::Strata(d) => d.get(i).map(|d| disp_summary!(d)),
            DispInfos::Vindictus(d) => d.get(i).map(|d| disp_summary!(d)),
            DispInfos::DotaV22(d) => d.get(i).map(|d| disp_summary!(d)),
            DispInfos::DotaV23(d) => d.get(i).map(|d| disp_summary!(d)),
            DispInfos::Unproven(_) | DispInfos::Unknown => None,
        }
    }
    pub fn iter(&self) -> impl Iterator<Item = DispInfoSummary> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

pub enum Overlays<'a, O: ByteOrder> {
    Standard(&'a [Overlay<O>]),
    Strata(&'a [OverlayStrata<O>]),
    Vindictus(&'a [OverlayVin<O>]),
    Unknown,
}

impl<O: ByteOrder> Overlays<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            Overlays::Standard(o) => o.len(),
            Overlays::Strata(o) => o.len(),
            Overlays::Vindictus(o) => o.len(),
            Overlays::Unknown => 0,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `(texinfo, faces)` of overlay `i`; faces are the first `face_count` (≤ 64) entries.
    pub fn get(&self, i: usize) -> Option<(i64, impl Iterator<Item = i64> + '_)> {
        let (t, faces, n): (i64, &[zerocopy::byteorder::I32<O>; 64], usize) = match self {
            Overlays::Standard(o) => {
                let o = o.get(i)?;
                (o.texinfo.get() as i64, &o.ofaces, o.face_count())
            }
            Overlays::Strata(o) => {
                let o = o.get(i)?;
                (o.texinfo.get() as i64, &o.ofaces, o.face_count())
            }
            Overlays::Vindictus(o) => {
                let o = o.get(i)?;
                (o.texinfo.get() as i64, &o.ofaces, o.face_count())
            }
            Overlays::Unknown => return None,
        };
        Some((t, faces.iter().take(n.min(64)).map(|f| f.get() as i64)))
    }
}

pub enum WorldLights<'a, O: ByteOrder> {
    V0(&'a [WorldLight<O>]),
    V1(&'a [WorldLightV1<O>]),
}

impl<O: ByteOrder> WorldLights<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            WorldLights::V0(l) => l.len(),
            WorldLights::V1(l) => l.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub enum AmbientIndex<'a, O: ByteOrder> {
    U16(&'a [LeafAmbientIndex<O>]),
    U32(&'a [LeafAmbientIndex32<O>]),
}

impl<O: ByteOrder> AmbientIndex<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            AmbientIndex::U16(v) => v.len(),
            AmbientIndex::U32(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `(sample count, first sample)` for leaf `i`.
    pub fn get(&self, i: usize) -> Option<(i64, i64)> {
        match self {
            AmbientIndex::U16(v) => v.get(i).map(|x| (x.ambient_sample_count.get() as i64, x.first_ambient_sample.get() as i64)),
            AmbientIndex::U32(v) => v.get(i).map(|x| (x.ambient_sample_count.get() as i64, x.first_ambient_sample.get() as i64)),
        }
    }
}

/// Per-leaf ambient samples: the two generations of open_questions.md A28.
pub enum AmbientLighting<'a> {
    /// Source 2006: one 24-byte cube per leaf, no index lump.
    Cubes(&'a [CompressedLightCube]),
    /// Source 2007+: `dleafambientlighting_t` addressed through the index lump.
    Samples(&'a [LeafAmbientLighting]),
}

impl AmbientLighting<'_> {
    pub fn len(&self) -> usize {
        match self {
            AmbientLighting::Cubes(c) => c.len(),
            AmbientLighting::Samples(s) => s.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub enum Primitives<'a, O: ByteOrder> {
    Standard(&'a [Primitive<O>]),
    Strata(&'a [PrimitiveStrata<O>]),
}

impl<O: ByteOrder> Primitives<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            Primitives::Standard(p) => p.len(),
            Primitives::Strata(p) => p.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `(first index, index count, first vert, vert count)` of primitive `i`.
    pub fn get(&self, i: usize) -> Option<[i64; 4]> {
        match self {
            Primitives::Standard(p) => p
                .get(i)
                .map(|p| [p.first_index.get() as i64, p.index_count.get() as i64, p.first_vert.get() as i64, p.vert_count.get() as i64]),
            Primitives::Strata(p) => p
                .get(i)
                .map(|p| [p.first_index.get() as i64, p.index_count.get() as i64, p.first_vert.get() as i64, p.vert_count.get() as i64]),
        }
    }
}

pub enum AreaPortals<'a, O: ByteOrder> {
    Standard(&'a [AreaPortal<O>]),
    Wide(&'a [AreaPortal32<O>]),
}

impl<O: ByteOrder> AreaPortals<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            AreaPortals::Standard(p) => p.len(),
            AreaPortals::Wide(p) => p.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `(other area, first clip portal vert, clip portal vert count, plane)` of portal `i`.
    pub fn get(&self, i: usize) -> Option<[i64; 4]> {
        match self {
            AreaPortals::Standard(p) => p.get(i).map(|p| {
                [
                    p.other_area.get() as i64,
                    p.first_clip_portal_vert.get() as i64,
                    p.num_clip_portal_verts.get() as i64,
                    p.planenum.get() as i64,
                ]
            }),
            AreaPortals::Wide(p) => p.get(i).map(|p| {
                [
                    p.other_area.get() as i64,
                    p.first_clip_portal_vert.get() as i64,
                    p.num_clip_portal_verts.get() as i64,
                    p.planenum.get() as i64,
                ]
            }),
        }
    }
}

/// The occlusion lump (§21): three counted arrays.
pub enum OccluderList<'a, O: ByteOrder> {
    V0(&'a [OccluderDataV0<O>]),
    V1(&'a [OccluderData<O>]),
}

pub struct Occlusion<'a, O: ByteOrder> {
    pub occluders: OccluderList<'a, O>,
    pub polys: &'a [OccluderPoly<O>],
    pub vertex_indices: &'a [Surfedge<O>],
}

impl<O: ByteOrder> Occlusion<'_, O> {
    pub fn occluder_count(&self) -> usize {
        match &self.occluders {
            OccluderList::V0(o) => o.len(),
            OccluderList::V1(o) => o.len(),
        }
    }
    /// `(firstpoly, polycount)` of occluder `i`.
    pub fn occluder_polys(&self, i: usize) -> Option<(i64, i64)> {
        match &self.occluders {
            OccluderList::V0(o) => o.get(i).map(|o| (o.firstpoly.get() as i64, o.polycount.get() as i64)),
            OccluderList::V1(o) => o.get(i).map(|o| (o.firstpoly.get() as i64, o.polycount.get() as i64)),
        }
    }
}

/// One block of the physics collision lump (§22); collision blobs stay raw (A20).
#[derive(Debug, Clone, Copy)]
pub struct PhysModel<'a> {
    pub model_index: i32,
    pub data_size: i32,
    pub keydata_size: i32,
    pub solid_count: i32,
    /// The `solid_count` collision sections, each with its 4-byte size prefix.
    pub solids: &'a [u8],
    /// The key data text.
    pub keydata: &'a [u8],
}

/// [`View::each_phys_model`] over the lump's bytes. Each header's four fields are read as
/// [`count_at`] reads a count: `take`'s slice cast per header was most of `bsp check`'s time
/// unoptimised on a lump of zeros (millions of empty models); where fewer than 16 bytes are
/// left, `take` gives the error it always gave.
fn walk_phys_models<'a, O: ByteOrder>(data: &'a [u8], mut f: impl FnMut(PhysModel<'a>)) -> Result<usize> {
    const HEADER: usize = std::mem::size_of::<PhysModelHeader<zerocopy::LittleEndian>>();
    let mut n = 0usize;
    let mut at = 0usize;
    while at < data.len() {
        let [model_index, data_size, keydata_size, solid_count] = match crate::bytes::array::<HEADER>(data, at) {
            Some(b) => {
                at += HEADER;
                let field =
                    |k: usize| zerocopy::byteorder::I32::<O>::from_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]).get();
                [field(0), field(1), field(2), field(3)]
            }
            None => {
                let h: &[PhysModelHeader<O>] = take(data, &mut at, 1, "physics model header")?;
                [h[0].model_index.get(), h[0].data_size.get(), h[0].keydata_size.get(), h[0].solid_count.get()]
            }
        };
        if model_index == -1 {
            break;
        }
        let start = at;
        for _ in 0..solid_count.max(0) {
            let size = count_at::<O>(data, &mut at, "collision section size")?;
            take_bytes(data, &mut at, size, "collision section bytes")?;
        }
        let solids = &data[start..at];
        let keydata = take_bytes(data, &mut at, keydata_size, "key data bytes")?;
        n += 1;
        f(PhysModel { model_index, data_size, keydata_size, solid_count, solids, keydata });
    }
    Ok(n)
}

/// Split `count` records of `T` off the front of `data`.
fn take<'a, T: zerocopy::FromBytes + zerocopy::Immutable + zerocopy::KnownLayout + zerocopy::Unaligned>(
    data: &'a [u8],
    at: &mut usize,
    count: i32,
    what: &str,
) -> Result<&'a [T]> {
    let size = std::mem::size_of::<T>();
    let n = usize::try_from(count).map_err(|_| Error::malformed(format!("negative {what} count {count}")).at(*at as u64))?;
    let end =
        n.checked_mul(size).and_then(|b| b.checked_add(*at)).filter(|&e| e <= data.len()).ok_or_else(|| {
            Error::malformed(format!("{n} {what} of {size} bytes do not fit the lump ({} bytes)", data.len())).at(*at as u64)
        })?;
    let out = <[T]>::ref_from_bytes(&data[*at..end]).map_err(|_| Error::malformed(format!("{what} misaligned")))?;
    *at = end;
    Ok(out)
}

/// [`take`] for plain bytes: a slice, no cast. The physics walk calls it for every model, and a
/// lump claiming 511 MiB of empty models is 33.5 million of them (`lzma_peak`).
fn take_bytes<'a>(data: &'a [u8], at: &mut usize, count: i32, what: &str) -> Result<&'a [u8]> {
    let n = usize::try_from(count).map_err(|_| Error::malformed(format!("negative {what} count {count}")).at(*at as u64))?;
    let end = at
        .checked_add(n)
        .filter(|&e| e <= data.len())
        .ok_or_else(|| Error::malformed(format!("{n} {what} of 1 bytes do not fit the lump ({} bytes)", data.len())).at(*at as u64))?;
    let out = &data[*at..end];
    *at = end;
    Ok(out)
}

fn count_at<O: ByteOrder>(data: &[u8], at: &mut usize, what: &str) -> Result<i32> {
    let b = crate::bytes::array::<4>(data, *at).ok_or_else(|| Error::malformed(format!("{what} count missing")).at(*at as u64))?;
    *at += 4;
    Ok(zerocopy::byteorder::I32::<O>::from_bytes(b).get())
}

impl<'a, O: ByteOrder> View<'a, O> {
    /// A view of `bsp`. The caller picks `O` to match [`Bsp::endian`]; [`View::new`] checks it.
    pub fn new(bsp: &'a Bsp<'a>) -> Result<Self> {
        let v = View { bsp, layout: layout(bsp.branch()), _o: PhantomData };
        if !v.endian_matches() {
            return Err(Error::malformed("byte order of the view does not match the map"));
        }
        Ok(v)
    }

    /// Does `O` match the map's byte order?
    pub fn endian_matches(&self) -> bool {
        let probe = zerocopy::byteorder::U16::<O>::new(1);
        let little = zerocopy::IntoBytes::as_bytes(&probe)[0] == 1;
        little == (self.bsp.endian() == Endian::Little)
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    fn recs<T: zerocopy::FromBytes + zerocopy::Immutable + zerocopy::KnownLayout>(&self, i: usize) -> Result<&'a [T]> {
        self.bsp.records::<T>(i)
    }

    /// How many `T` records lump `i` holds, from its length alone: a compressed lump is not
    /// decoded (its LZMA header states the length). For checks that only measure a lump.
    fn count<T>(&self, i: usize) -> Result<usize> {
        self.bsp.record_count(i, std::mem::size_of::<T>())
    }

    fn version(&self, i: usize) -> u32 {
        self.bsp.entry(i).and_then(|e| e.version).unwrap_or(0)
    }

    fn has(&self, i: usize) -> bool {
        self.bsp.entry(i).is_some_and(|e| e.length > 0)
    }

    pub fn planes(&self) -> Result<&'a [Plane<O>]> {
        self.recs(LUMP_PLANES)
    }
    pub fn vertices(&self) -> Result<&'a [Vertex<O>]> {
        self.recs(LUMP_VERTICES)
    }
    /// [`View::vertices`]'s length, without decompressing the lump.
    pub fn vertices_len(&self) -> Result<usize> {
        self.count::<Vertex<O>>(LUMP_VERTICES)
    }
    pub fn edges(&self) -> Result<Edges<'a, O>> {
        Ok(match self.layout {
            // Vindictus edges are the same two u32s.
            Layout::Strata | Layout::Vindictus => Edges::Strata(self.recs(LUMP_EDGES)?),
            _ => Edges::Standard(self.recs(LUMP_EDGES)?),
        })
    }
    pub fn surfedges(&self) -> Result<&'a [Surfedge<O>]> {
        self.recs(LUMP_SURFEDGES)
    }
    fn faces_at(&self, i: usize) -> Result<Faces<'a, O>> {
        Ok(match self.layout {
            Layout::Vtmb if i != LUMP_FACES_HDR => Faces::Vtmb(self.recs(i)?),
            Layout::Strata => Faces::Strata(self.recs(i)?),
            // Vindictus: the lump version picks the form (bsp_tool vindictus69.py).
            Layout::Vindictus if self.version(i) == 2 => Faces::VindictusV2(self.recs(i)?),
            Layout::Vindictus => Faces::Strata(self.recs(i)?),
            _ => Faces::Standard(self.recs(i)?),
        })
    }
    /// The LDR faces (lump 7).
    pub fn faces_ldr(&self) -> Result<Faces<'a, O>> {
        self.faces_at(LUMP_FACES)
    }
    /// The HDR faces (lump 58).
    pub fn faces_hdr(&self) -> Result<Faces<'a, O>> {
        self.faces_at(LUMP_FACES_HDR)
    }
    /// The faces the engine draws: lump 7, or lump 58 when 7 is empty (HDR-only maps, A15).
    pub fn faces(&self) -> Result<Faces<'a, O>> {
        if !self.has(LUMP_FACES) && self.has(LUMP_FACES_HDR) {
            self.faces_hdr()
        } else {
            self.faces_ldr()
        }
    }
    /// Index of the lump [`View::faces`] reads.
    pub fn faces_lump(&self) -> usize {
        if !self.has(LUMP_FACES) && self.has(LUMP_FACES_HDR) {
            LUMP_FACES_HDR
        } else {
            LUMP_FACES
        }
    }
    pub fn original_faces(&self) -> Result<Faces<'a, O>> {
        self.faces_at(LUMP_ORIGINAL_FACES)
    }
    pub fn brushes(&self) -> Result<&'a [Brush<O>]> {
        self.recs(LUMP_BRUSHES)
    }
    pub fn brush_sides(&self) -> Result<BrushSides<'a, O>> {
        Ok(match self.layout {
            Layout::Strata => BrushSides::Strata(self.recs(LUMP_BRUSH_SIDES)?),
            Layout::Vindictus => BrushSides::Vindictus(self.recs(LUMP_BRUSH_SIDES)?),
            _ => BrushSides::Standard(self.recs(LUMP_BRUSH_SIDES)?),
        })
    }
    pub fn nodes(&self) -> Result<Nodes<'a, O>> {
        Ok(match self.layout {
            Layout::Strata => Nodes::Strata(self.recs(LUMP_NODES)?),
            Layout::Vindictus => Nodes::Vindictus(self.recs(LUMP_NODES)?),
            _ => Nodes::Standard(self.recs(LUMP_NODES)?),
        })
    }
    /// Leaves by lump version (§9.2, A5): 0 → 56 bytes, 1 → 32 bytes; Strata's own form.
    pub fn leaves(&self) -> Result<Leaves<'a, O>> {
        Ok(match self.layout {
            Layout::Strata => Leaves::Strata(self.recs(LUMP_LEAVES)?),
            Layout::Vindictus => Leaves::Vindictus(self.recs(LUMP_LEAVES)?),
            Layout::Vtmb => Leaves::V1(self.recs(LUMP_LEAVES)?),
            Layout::Standard | Layout::DarkMessiah if self.version(LUMP_LEAVES) == 0 => Leaves::V0(self.recs(LUMP_LEAVES)?),
            Layout::Standard | Layout::DarkMessiah => Leaves::V1(self.recs(LUMP_LEAVES)?),
        })
    }
    fn indices(&self, i: usize) -> Result<Indices<'a, O>> {
        Ok(match self.layout {
            Layout::Strata => Indices::U32(self.recs(i)?),
            _ => Indices::U16(self.recs(i)?),
        })
    }
    /// Leaf faces / leaf brushes: 32-bit in Strata and Vindictus.
    fn leaf_indices(&self, i: usize) -> Result<Indices<'a, O>> {
        Ok(match self.layout {
            Layout::Vindictus => Indices::U32(self.recs(i)?),
            _ => self.indices(i)?,
        })
    }
    pub fn leaf_faces(&self) -> Result<Indices<'a, O>> {
        self.leaf_indices(LUMP_LEAF_FACES)
    }
    pub fn leaf_brushes(&self) -> Result<Indices<'a, O>> {
        self.leaf_indices(LUMP_LEAF_BRUSHES)
    }
    /// Texinfo in Valve's form: borrowed, or for Dark Messiah's 96-byte records
    /// ([`View::texinfo_dm`]) each one's Valve fields copied out.
    pub fn texinfo(&self) -> Result<std::borrow::Cow<'a, [TexInfo<O>]>> {
        Ok(match self.layout {
            Layout::DarkMessiah => std::borrow::Cow::Owned(self.texinfo_dm()?.iter().map(TexInfoDm::to_valve).collect()),
            _ => std::borrow::Cow::Borrowed(self.recs(LUMP_TEXINFO)?),
        })
    }
    /// Dark Messiah's `texinfo_dm_t` records as stored (lump 6 of the `darkmessiah` branch).
    pub fn texinfo_dm(&self) -> Result<&'a [TexInfoDm]> {
        self.recs(LUMP_TEXINFO)
    }
    pub fn texdata(&self) -> Result<&'a [TexData<O>]> {
        self.recs(LUMP_TEXDATA)
    }
    pub fn string_table(&self) -> Result<&'a [StringTableEntry<O>]> {
        self.recs(LUMP_TEXDATA_STRING_TABLE)
    }
    pub fn string_data(&self) -> Result<&'a [u8]> {
        self.bsp.lump(LUMP_TEXDATA_STRING_DATA)
    }
    /// [`View::string_data`]'s length, without decompressing the lump.
    pub fn string_data_len(&self) -> Result<usize> {
        self.count::<u8>(LUMP_TEXDATA_STRING_DATA)
    }
    /// The material name of a texdata entry (§10.4), or `None` if a link is out of range.
    pub fn texdata_name(&self, texdata: usize) -> Result<Option<&'a str>> {
        let Some(td) = self.texdata()?.get(texdata) else { return Ok(None) };
        let Some(entry) = usize::try_from(td.name_string_table_id.get()).ok().and_then(|i| self.string_table().ok()?.get(i).copied())
        else {
            return Ok(None);
        };
        let data = self.string_data()?;
        let Some(rest) = usize::try_from(entry.offset.get()).ok().and_then(|o| data.get(o..)) else { return Ok(None) };
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        Ok(std::str::from_utf8(&rest[..end]).ok())
    }
    /// The material name of face `i` of [`View::faces`] (face → texinfo → texdata → name).
    pub fn face_material(&self, face: usize) -> Result<Option<&'a str>> {
        let Some(f) = self.faces()?.get(face) else { return Ok(None) };
        let Some(ti) = usize::try_from(f.texinfo).ok().and_then(|t| self.texinfo().ok()?.get(t).copied()) else { return Ok(None) };
        match usize::try_from(ti.texdata.get()) {
            Ok(td) => self.texdata_name(td),
            Err(_) => Ok(None),
        }
    }
    /// Models in Valve's form: borrowed, or for Dark Messiah's 52-byte records
    /// ([`View::models_dm`]) each one's Valve fields copied out.
    pub fn models(&self) -> Result<std::borrow::Cow<'a, [Model<O>]>> {
        Ok(match self.layout {
            Layout::DarkMessiah => std::borrow::Cow::Owned(self.models_dm()?.iter().map(ModelDm::to_valve).collect()),
            _ => std::borrow::Cow::Borrowed(self.recs(LUMP_MODELS)?),
        })
    }
    /// Dark Messiah's `dmodel_dm_t` records as stored (lump 14 of the `darkmessiah` branch).
    pub fn models_dm(&self) -> Result<&'a [ModelDm]> {
        self.recs(LUMP_MODELS)
    }
    /// The dispinfo records (§15.1) in the branch's layout. Dota 2's come back only when the
    /// map proves every one ([`DispInfos::Unproven`] says why not; [`View::disp_infos_dota`]).
    pub fn disp_infos(&self) -> Result<DispInfos<'a, O>> {
        Ok(match (self.layout, self.bsp.branch().id) {
            (_, "dota2") => self.disp_infos_dota()?,
            // CSO2 2018's dispinfo fields are not known (only the record size, 242 bytes).
            (_, "cso2_2018") => DispInfos::Unknown,
            (Layout::Strata, _) => DispInfos::Strata(self.recs(LUMP_DISP_INFO)?),
            (Layout::Vindictus, _) => DispInfos::Vindictus(self.recs(LUMP_DISP_INFO)?),
            _ => DispInfos::Standard(self.recs(LUMP_DISP_INFO)?),
        })
    }
    pub fn disp_verts(&self) -> Result<&'a [DispVert<O>]> {
        self.recs(LUMP_DISP_VERTS)
    }
    /// [`View::disp_verts`]'s length, without decompressing the lump.
    pub fn disp_verts_len(&self) -> Result<usize> {
        self.count::<DispVert<O>>(LUMP_DISP_VERTS)
    }
    /// Dota 2's per-vertex blend records (lump 63), one per displacement vertex: `None` for
    /// another branch, an empty lump, or a lump that is not exactly one 80-byte record per
    /// record of lump 33 (the count is what ties the two lumps together).
    pub fn disp_multiblend(&self) -> Result<Option<&'a [DispMultiBlend<O>]>> {
        if self.bsp.branch().id != "dota2" || !self.has(LUMP_DISP_MULTIBLEND) {
            return Ok(None);
        }
        let raw = self.bsp.lump(LUMP_DISP_MULTIBLEND)?;
        if raw.len() != self.disp_verts_len()?.saturating_mul(std::mem::size_of::<DispMultiBlend<O>>()) {
            return Ok(None);
        }
        Ok(<[DispMultiBlend<O>]>::ref_from_bytes(raw).ok())
    }
    pub fn disp_tris(&self) -> Result<&'a [DispTri<O>]> {
        self.recs(LUMP_DISP_TRIS)
    }
    /// [`View::disp_tris`]'s length, without decompressing the lump.
    pub fn disp_tris_len(&self) -> Result<usize> {
        self.count::<DispTri<O>>(LUMP_DISP_TRIS)
    }
    /// Cubemaps in Valve's 16-byte form; an error for CSO2 2018, whose 164-byte cubemaps have
    /// no known fields ([`View::cubemaps_cso2`]).
    pub fn cubemaps(&self) -> Result<&'a [Cubemap<O>]> {
        if self.bsp.branch().id == "cso2_2018" {
            return Err(Error::malformed("CSO2 2018 cubemaps are 164-byte records whose fields are not known").in_lump("CUBEMAPS"));
        }
        self.recs(LUMP_CUBEMAPS)
    }
    /// CSO2 2018's cubemaps as stored (opaque 164-byte records).
    pub fn cubemaps_cso2(&self) -> Result<&'a [CubemapCso2]> {
        self.recs(LUMP_CUBEMAPS)
    }
    /// How many dispinfo records the map holds, where their size is known: the typed forms
    /// (Dota 2's when proven), and CSO2 2018's opaque 242-byte records; `None` for Dota 2
    /// records the map does not prove.
    pub fn disp_info_count(&self) -> Result<Option<usize>> {
        Ok(match self.disp_infos()? {
            DispInfos::Unknown if self.bsp.branch().id == "cso2_2018" => Some(self.disp_infos_cso2()?.len()),
            DispInfos::Unknown | DispInfos::Unproven(_) => None,
            d => Some(d.len()),
        })
    }
    /// Dota 2's dispinfo records (v22: 180 bytes, v23: 184; [`DispInfoDotaV23`]), each proven
    /// by the map before any is handed out.
    ///
    /// source.md §15 gives no layout for them; BSPSource's v22/v23 readers give the field
    /// order. A layout taken from another tool is not trusted on its own: every record must
    /// show that the map agrees with it. Its `MapFace` names a four-sided face whose dispinfo
    /// field names the record back, its start position is a corner of that face (the same
    /// stored floats, so within [`DOTA_CORNER_EPS`]), its power is 2 to 4 (what Hammer makes),
    /// and its vertex and triangle ranges lie in lumps 33 and 48 with the counts the power
    /// implies. One record that fails gives [`DispInfos::Unproven`] naming it and why, and
    /// none is read: a wrong layout would fail everywhere, so a partial read would only hide
    /// it. The `dota2` branch also opens INFRA (v22), whose records may be Valve's 176-byte
    /// form: read as 180 bytes they fail the proof (a torn lump or a face that does not name
    /// them back). A lump the proof needs that does not read is a reason too, not an error:
    /// the rest of the map stays readable.
    pub fn disp_infos_dota(&self) -> Result<DispInfos<'a, O>> {
        let raw = self.bsp.lump(LUMP_DISP_INFO)?;
        let version = self.bsp.header().version;
        let size = match version {
            22 => std::mem::size_of::<DispInfoDotaV22<O>>(),
            23 => std::mem::size_of::<DispInfoDotaV23<O>>(),
            _ => return Ok(DispInfos::Unproven(format!("no Dota 2 dispinfo layout for version {version}"))),
        };
        if raw.len() % size != 0 {
            return Ok(DispInfos::Unproven(format!("{} bytes is not a whole number of {size}-byte records", raw.len())));
        }
        let torn = || Error::malformed("dispinfo lump is not whole records").in_lump("DISP_INFO");
        let infos = match version {
            22 => DispInfos::DotaV22(<[DispInfoDotaV22<O>]>::ref_from_bytes(raw).map_err(|_| torn())?),
            _ => DispInfos::DotaV23(<[DispInfoDotaV23<O>]>::ref_from_bytes(raw).map_err(|_| torn())?),
        };
        if infos.is_empty() {
            return Ok(infos);
        }
        let lumps = (|| Ok::<_, Error>((self.faces()?, self.planes()?, self.vertices()?, self.edges()?, self.surfedges()?)))();
        let counts = (|| Ok::<_, Error>((self.disp_verts_len()?, self.disp_tris_len()?)))();
        let ((faces, planes, vertices, edges, surfedges), (n_verts, n_tris)) = match (lumps, counts) {
            (Ok(l), Ok(c)) => (l, c),
            (Err(e), _) | (_, Err(e)) => return Ok(DispInfos::Unproven(format!("a lump the proof needs is unreadable: {e}"))),
        };
        // Face `fi`'s dispinfo field and corner loop, `None` when a link is broken.
        let face = |fi: usize| -> Option<(i64, Vec<[f64; 3]>)> {
            let f = faces.get(fi)?;
            planes.get(usize::try_from(f.planenum).ok()?)?;
            let (first, n) = (usize::try_from(f.firstedge).ok()?, usize::try_from(f.numedges).ok()?);
            let mut corners = Vec::with_capacity(n.min(256));
            for se in surfedges.get(first..first.checked_add(n)?)? {
                let se = se.edge.get() as i64;
                let e = edges.get(se.unsigned_abs() as usize)?;
                let vi = if se < 0 { e[1] } else { e[0] } as usize;
                corners.push(v3(&vertices.get(vi)?.pos).map(f64::from));
            }
            Some((f.dispinfo, corners))
        };
        match prove_dota_disps(infos.iter(), n_verts, n_tris, face) {
            Ok(()) => Ok(infos),
            Err(why) => Ok(DispInfos::Unproven(why)),
        }
    }
    /// CSO2 2018's dispinfo as stored (opaque 242-byte records).
    pub fn disp_infos_cso2(&self) -> Result<&'a [DispInfoCso2]> {
        self.recs(LUMP_DISP_INFO)
    }
    pub fn overlays(&self) -> Result<Overlays<'a, O>> {
        Ok(match (self.layout, self.bsp.branch().id) {
            (_, "dota2") => Overlays::Unknown,
            (Layout::Strata, _) => Overlays::Strata(self.recs(LUMP_OVERLAYS)?),
            (Layout::Vindictus, _) => Overlays::Vindictus(self.recs(LUMP_OVERLAYS)?),
            _ => Overlays::Standard(self.recs(LUMP_OVERLAYS)?),
        })
    }
    pub fn overlay_fades(&self) -> Result<&'a [OverlayFade<O>]> {
        self.recs(LUMP_OVERLAY_FADES)
    }
    /// Water overlays (lump 50) as raw bytes.
    pub fn water_overlays_raw(&self) -> Result<&'a [u8]> {
        self.bsp.lump(LUMP_WATER_OVERLAYS)
    }
    /// Water overlays (lump 50, `dwateroverlay_t`, `docs/format-notes/source_facts.md` §1), or
    /// `None` where the layout is not known: Strata and Vindictus widen `doverlay_t` and Dota 2
    /// changes it (§18), so their water overlays are not assumed to keep the SDK layout.
    pub fn water_overlays(&self) -> Result<Option<&'a [WaterOverlay<O>]>> {
        Ok(match (self.layout, self.bsp.branch().id) {
            (_, "dota2") | (Layout::Strata | Layout::Vindictus, _) => None,
            _ => Some(self.recs(LUMP_WATER_OVERLAYS)?),
        })
    }
    fn world_lights_at(&self, i: usize) -> Result<WorldLights<'a, O>> {
        Ok(if self.layout == Layout::Strata || self.version(i) == 1 {
            WorldLights::V1(self.recs(i)?)
        } else {
            WorldLights::V0(self.recs(i)?)
        })
    }
    /// World lights (§23): lump 15 (LDR) or 54 (HDR); version 1 is the 100-byte form.
    pub fn world_lights(&self, hdr: bool) -> Result<WorldLights<'a, O>> {
        self.world_lights_at(if hdr { LUMP_WORLD_LIGHTS_HDR } else { LUMP_WORLD_LIGHTS })
    }
    /// Leaf ambient index (§20): lump 52 (LDR) or 51 (HDR).
    /// Empty on the original Xbox, whose lumps 51 and 52 hold lightmap pages instead.
    pub fn leaf_ambient_index(&self, hdr: bool) -> Result<AmbientIndex<'a, O>> {
        let i = if hdr { LUMP_LEAF_AMBIENT_INDEX_HDR } else { LUMP_LEAF_AMBIENT_INDEX };
        if self.bsp.branch().id == SOURCE_XBOX.id {
            return Ok(AmbientIndex::U16(&[]));
        }
        Ok(match self.layout {
            Layout::Strata => AmbientIndex::U32(self.recs(i)?),
            _ => AmbientIndex::U16(self.recs(i)?),
        })
    }
    /// Leaf ambient lighting (§20, A28): lump 56 (LDR) or 55 (HDR). The 24-byte cube form is
    /// used when the branch says so or the lump version is 0.
    pub fn leaf_ambient_lighting(&self, hdr: bool) -> Result<AmbientLighting<'a>> {
        let i = if hdr { LUMP_LEAF_AMBIENT_LIGHTING_HDR } else { LUMP_LEAF_AMBIENT_LIGHTING };
        Ok(if self.bsp.record_size(i) == Some(24) {
            AmbientLighting::Cubes(self.bsp.records(i)?)
        } else {
            AmbientLighting::Samples(self.bsp.records(i)?)
        })
    }
    /// [`View::leaf_ambient_lighting`]'s length, without decompressing the lump.
    pub fn leaf_ambient_lighting_len(&self, hdr: bool) -> Result<usize> {
        let i = if hdr { LUMP_LEAF_AMBIENT_LIGHTING_HDR } else { LUMP_LEAF_AMBIENT_LIGHTING };
        if self.bsp.record_size(i) == Some(24) {
            self.count::<CompressedLightCube>(i)
        } else {
            self.count::<LeafAmbientLighting>(i)
        }
    }
    /// Lightmap samples (§19): lump 8 (LDR) or 53 (HDR).
    pub fn lighting(&self, hdr: bool) -> Result<&'a [ColorRGBExp32]> {
        self.bsp.records(if hdr { LUMP_LIGHTING_HDR } else { LUMP_LIGHTING })
    }
    /// The faces whose `lightofs` index the LDR (lump 8) or HDR (lump 53) lighting: lump 7
    /// or lump 58 (falling back to 7 when 58 is empty: an LDR-compiled HDR lump set).
    pub fn lit_faces(&self, hdr: bool) -> Result<Faces<'a, O>> {
        if hdr && self.has(LUMP_FACES_HDR) {
            self.faces_hdr()
        } else {
            self.faces_ldr()
        }
    }
    /// The lightmap samples of face `face` of [`View::lit_faces`] (§19, A16): `styles × luxels`
    /// samples (× 4 when its texinfo has `SURF_BUMPLIGHT`) from `lightofs`. `None` when the face
    /// has no lightmap or its range is outside the lump.
    pub fn face_lightmap(&self, face: usize, hdr: bool) -> Result<Option<&'a [ColorRGBExp32]>> {
        let Some(f) = self.lit_faces(hdr)?.get(face) else { return Ok(None) };
        if f.lightofs < 0 || f.num_styles == 0 || f.lightofs % 4 != 0 {
            return Ok(None);
        }
        let bump =
            usize::try_from(f.texinfo).ok().and_then(|t| self.texinfo().ok()?.get(t).copied()).is_some_and(|t| t.flags.get() & 0x800 != 0);
        let n = (f.num_styles as i64).saturating_mul(f.luxels).saturating_mul(if bump { 4 } else { 1 });
        let samples = self.lighting(hdr)?;
        let first = (f.lightofs / 4) as usize;
        Ok(usize::try_from(n).ok().and_then(|n| samples.get(first..first.checked_add(n)?)))
    }
    /// The per-style average samples stored just before a face's lightmap, in reverse style
    /// order (§19, A16); for VTMB the record's own `avg_light_color`, in style order.
    pub fn face_average_colors(&self, face: usize, hdr: bool) -> Result<Option<&'a [ColorRGBExp32]>> {
        let faces = self.lit_faces(hdr)?;
        let Some(f) = faces.get(face) else { return Ok(None) };
        if f.lightofs < 0 || f.num_styles == 0 || f.lightofs % 4 != 0 {
            return Ok(None);
        }
        if let Faces::Vtmb(_) = faces {
            // `avg_light_color` opens each 104-byte record of lump 7 (the only VTMB face lump).
            let size = std::mem::size_of::<FaceVtmb<O>>();
            let at = face.saturating_mul(size);
            let bytes = self.bsp.lump(LUMP_FACES)?.get(at..at.saturating_add(4 * f.num_styles));
            return Ok(bytes.and_then(|b| <[ColorRGBExp32]>::ref_from_bytes(b).ok()));
        }
        let samples = self.lighting(hdr)?;
        let end = (f.lightofs / 4) as usize;
        Ok(end.checked_sub(f.num_styles).and_then(|s| samples.get(s..end)))
    }
    /// The lightmap lump the drawn faces use: 8, or 53 when 8 is empty (A15).
    pub fn lighting_lump(&self) -> usize {
        if !self.has(LUMP_LIGHTING) && self.has(LUMP_LIGHTING_HDR) {
            LUMP_LIGHTING_HDR
        } else {
            LUMP_LIGHTING
        }
    }
    /// Parse the occlusion lump (§21); doccluderdata_t is 36 bytes at lump version 0, else 40.
    pub fn occlusion(&self) -> Result<Occlusion<'a, O>> {
        let data = self.bsp.lump(LUMP_OCCLUSION)?;
        let err = |e: Error| self.bsp.lump_error(LUMP_OCCLUSION, e);
        if data.is_empty() {
            return Ok(Occlusion { occluders: OccluderList::V1(&[]), polys: &[], vertex_indices: &[] });
        }
        let mut at = 0;
        let n = count_at::<O>(data, &mut at, "occluder").map_err(err)?;
        let occluders = if self.version(LUMP_OCCLUSION) == 0 {
            OccluderList::V0(take(data, &mut at, n, "occluders").map_err(err)?)
        } else {
            OccluderList::V1(take(data, &mut at, n, "occluders").map_err(err)?)
        };
        let n = count_at::<O>(data, &mut at, "occluder polygon").map_err(err)?;
        let polys = take(data, &mut at, n, "occluder polygons").map_err(err)?;
        let n = count_at::<O>(data, &mut at, "occluder vertex index").map_err(err)?;
        let vertex_indices = take(data, &mut at, n, "occluder vertex indices").map_err(err)?;
        Ok(Occlusion { occluders, polys, vertex_indices })
    }
    /// Walk the physics collision lump (§22, A20): every model block up to the terminator
    /// (`model_index == -1`), collision sections kept raw.
    pub fn phys_models(&self) -> Result<Vec<PhysModel<'a>>> {
        let mut out = Vec::new();
        self.each_phys_model(|m| out.push(m))?;
        Ok(out)
    }
    /// Walk the physics models (lump 29) without collecting them; the number walked. A lump
    /// of zeros reads as one empty 16-byte model after another (tens of millions in a large
    /// lump): `check` walks them here rather than holding a list (issue 23: 2.1 GB for one
    /// 511 MiB lump).
    pub fn each_phys_model(&self, f: impl FnMut(PhysModel<'a>)) -> Result<usize> {
        let data = self.bsp.lump(LUMP_PHYS_COLLIDE)?;
        walk_phys_models::<O>(data, f).map_err(|e| self.bsp.lump_error(LUMP_PHYS_COLLIDE, e))
    }
    /// Level flags (lump 59), if the map has them.
    pub fn map_flags(&self) -> Result<Option<u32>> {
        Ok(self.recs::<MapFlags<O>>(LUMP_MAP_FLAGS)?.first().map(|f| f.level_flags.get()))
    }
    /// Face IDs (lump 11): 16-bit, 32-bit in Strata.
    pub fn face_ids(&self) -> Result<Indices<'a, O>> {
        self.indices(LUMP_FACE_IDS)
    }
    pub fn primitives(&self) -> Result<Primitives<'a, O>> {
        Ok(match self.layout {
            Layout::Strata => Primitives::Strata(self.recs(LUMP_PRIMITIVES)?),
            _ => Primitives::Standard(self.recs(LUMP_PRIMITIVES)?),
        })
    }
    pub fn prim_verts(&self) -> Result<&'a [Vertex<O>]> {
        self.recs(LUMP_PRIM_VERTS)
    }
    /// [`View::prim_verts`]'s length, without decompressing the lump.
    pub fn prim_verts_len(&self) -> Result<usize> {
        self.count::<Vertex<O>>(LUMP_PRIM_VERTS)
    }
    /// Prim indices (lump 39): 16-bit, 32-bit in Strata.
    pub fn prim_indices(&self) -> Result<Indices<'a, O>> {
        self.indices(LUMP_PRIM_INDICES)
    }
    /// [`View::prim_indices`]'s length, without decompressing the lump.
    pub fn prim_indices_len(&self) -> Result<usize> {
        match self.layout {
            Layout::Strata => self.count::<Index32<O>>(LUMP_PRIM_INDICES),
            _ => self.count::<Index16<O>>(LUMP_PRIM_INDICES),
        }
    }
    pub fn leaf_water_data(&self) -> Result<&'a [LeafWaterData<O>]> {
        self.recs(LUMP_LEAF_WATER_DATA)
    }
    /// [`View::leaf_water_data`]'s length, without decompressing the lump.
    pub fn leaf_water_data_len(&self) -> Result<usize> {
        self.count::<LeafWaterData<O>>(LUMP_LEAF_WATER_DATA)
    }
    pub fn leaf_min_dist_to_water(&self) -> Result<&'a [LeafMinDistToWater<O>]> {
        self.recs(LUMP_LEAF_MIN_DIST_TO_WATER)
    }
    pub fn area_portals(&self) -> Result<AreaPortals<'a, O>> {
        Ok(match self.layout {
            Layout::Strata | Layout::Vindictus => AreaPortals::Wide(self.recs(LUMP_AREA_PORTALS)?),
            _ => AreaPortals::Standard(self.recs(LUMP_AREA_PORTALS)?),
        })
    }
    pub fn areas(&self) -> Result<&'a [Area<O>]> {
        self.recs(LUMP_AREAS)
    }
    pub fn clip_portal_verts(&self) -> Result<&'a [Vertex<O>]> {
        self.recs(LUMP_CLIP_PORTAL_VERTS)
    }
    /// [`View::clip_portal_verts`]'s length, without decompressing the lump.
    pub fn clip_portal_verts_len(&self) -> Result<usize> {
        self.count::<Vertex<O>>(LUMP_CLIP_PORTAL_VERTS)
    }
    pub fn vert_normals(&self) -> Result<&'a [Vertex<O>]> {
        self.recs(LUMP_VERT_NORMALS)
    }
    /// [`View::vert_normals`]'s length, without decompressing the lump.
    pub fn vert_normals_len(&self) -> Result<usize> {
        self.count::<Vertex<O>>(LUMP_VERT_NORMALS)
    }
    pub fn vert_normal_indices(&self) -> Result<Indices<'a, O>> {
        self.indices(LUMP_VERT_NORMAL_INDICES)
    }
    /// Visibility (§12): PVS and PAS rows per cluster.
    pub fn visibility(&self) -> Result<ClusterVis<'a>> {
        let data = self.bsp.lump(LUMP_VISIBILITY)?;
        ClusterVis::parse(data, self.bsp.endian()).map_err(|e| self.bsp.lump_error(LUMP_VISIBILITY, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk before the headers were read field by field: every header through `take`.
    fn walk_with_take<'a, O: ByteOrder>(data: &'a [u8], mut f: impl FnMut(PhysModel<'a>)) -> Result<usize> {
        let mut n = 0usize;
        let mut at = 0usize;
        while at < data.len() {
            let h: &[PhysModelHeader<O>] = take(data, &mut at, 1, "physics model header")?;
            let h = h[0];
            if h.model_index.get() == -1 {
                break;
            }
            let start = at;
            for _ in 0..h.solid_count.get().max(0) {
                let size = count_at::<O>(data, &mut at, "collision section size")?;
                take_bytes(data, &mut at, size, "collision section bytes")?;
            }
            let solids = &data[start..at];
            let keydata = take_bytes(data, &mut at, h.keydata_size.get(), "key data bytes")?;
            n += 1;
            f(PhysModel {
                model_index: h.model_index.get(),
                data_size: h.data_size.get(),
                keydata_size: h.keydata_size.get(),
                solid_count: h.solid_count.get(),
                solids,
                keydata,
            });
        }
        Ok(n)
    }

    /// What a walk gives: each model's fields and byte ranges, then the count or the error.
    /// A walk over a lump's bytes, calling back per model.
    type Walk = fn(&[u8], &mut dyn FnMut(PhysModel<'_>)) -> Result<usize>;

    fn walked(data: &[u8], walk: Walk) -> (Vec<String>, String) {
        let mut seen = Vec::new();
        let end = walk(data, &mut |m: PhysModel<'_>| {
            let at = |s: &[u8]| s.as_ptr() as usize - data.as_ptr() as usize;
            seen.push(format!(
                "{} {} {} {} {}+{} {}+{}",
                m.model_index,
                m.data_size,
                m.keydata_size,
                m.solid_count,
                at(m.solids),
                m.solids.len(),
                at(m.keydata),
                m.keydata.len()
            ));
        });
        (seen, format!("{end:?}"))
    }

    /// Same models, counts and errors (with their offsets) as through `take`, in both byte
    /// orders: lumps of zeros, sound models with solids and key data, the end marker, and
    /// every cut of them (headers, sizes and key data cut short, negative counts).
    #[test]
    fn phys_walk_reads_headers_as_take_did() {
        fn model<O: ByteOrder>(index: i32, solids: &[&[u8]], key: &[u8]) -> Vec<u8> {
            let i = |v: i32| zerocopy::byteorder::I32::<O>::new(v).to_bytes();
            let mut out = Vec::new();
            let size: usize = solids.iter().map(|s| 4 + s.len()).sum();
            for v in [index, size as i32, key.len() as i32, solids.len() as i32] {
                out.extend_from_slice(&i(v));
            }
            for s in solids {
                out.extend_from_slice(&i(s.len() as i32));
                out.extend_from_slice(s);
            }
            out.extend_from_slice(key);
            out
        }
        fn check<O: ByteOrder>() {
            let i = |v: i32| zerocopy::byteorder::I32::<O>::new(v).to_bytes();
            let mut lumps: Vec<Vec<u8>> = vec![vec![], vec![0; 16], vec![0; 16 * 50], vec![0; 16 * 50 + 7]];
            let mut sound = model::<O>(0, &[b"abcdef", b""], b"solid {}");
            sound.extend(model::<O>(3, &[], b""));
            sound.extend(model::<O>(7, &[&[9; 40]], b"k"));
            let mut ended = sound.clone();
            ended.extend(model::<O>(-1, &[], b""));
            ended.extend([1, 2, 3]);
            let mut negative = model::<O>(2, &[], b"");
            negative[8..12].copy_from_slice(&i(-5));
            let mut many = model::<O>(2, &[b"xy"], b"");
            many[12..16].copy_from_slice(&i(1 << 30));
            let mut negative_solids = model::<O>(4, &[], b"key");
            negative_solids[12..16].copy_from_slice(&i(-3));
            for l in [&sound, &ended, &negative, &many, &negative_solids] {
                for cut in 0..=l.len() {
                    lumps.push(l[..cut].to_vec());
                }
            }
            for l in &lumps {
                let new = walked(l, |d, f| walk_phys_models::<O>(d, f));
                let old = walked(l, |d, f| walk_with_take::<O>(d, f));
                assert_eq!(new, old, "{} bytes", l.len());
            }
        }
        check::<zerocopy::LittleEndian>();
        check::<zerocopy::BigEndian>();
    }
}
