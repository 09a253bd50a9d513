//! Typed, zero-copy views of a Respawn map's lumps. [`View`] is generic over the game
//! ([`Titanfall`], [`TitanfallX360`], [`Titanfall2`], [`Apex`]) whose record layouts and byte
//! order ([`Game::O`]) it reads; the layouts that
//! differ between games are the [`Game`] trait's associated types, and the traits in
//! [`super::records`] ([`MeshRecord`], [`MaterialSortRecord`], [`VertexRecord`], …) read them
//! alike. [`with_respawn_view!`](crate::with_respawn_view) runs generic code for whichever game
//! a map is (for library users; code inside the crate matches on the branch itself).
//!
//! ```
//! # fn main() -> Result<(), bspkit::Error> {
//! use bspkit::branches::respawn::{self, MeshRecord, Titanfall2, View};
//! let mut mesh = [0u8; 28];
//! mesh[4] = 1; // one triangle
//! let bytes = bspkit::build::BspBuilder::new(&respawn::TITANFALL2)
//!     .version(37)
//!     .lump(respawn::LUMP_MESHES, mesh.to_vec())
//!     .lump(respawn::LUMP_MESH_INDICES, vec![0u8; 6])
//!     .build();
//! let bsp = bspkit::Bsp::from_bytes(&bytes)?;
//! let view = View::<Titanfall2>::new(&bsp)?;
//! let meshes = view.meshes()?;
//! assert_eq!(meshes[0].num_triangles(), 1);
//! assert_eq!(view.mesh_indices()?.len(), 3);
//! # Ok(()) }
//! ```

use std::borrow::Cow;
use std::marker::PhantomData;

use zerocopy::byteorder::{ByteOrder, F32, I16, U16, U32};
use zerocopy::{BigEndian, FromBytes, Immutable, KnownLayout, LittleEndian as LE};

use super::lumps::*;
use super::records::*;
use super::sprp::RespawnStaticProps;
use crate::bsp::Bsp;
use crate::error::{Error, Result};
use crate::lumps::gamelump::GameLumps;

mod sealed {
    pub trait Sealed {}
}

/// An index record: a u16 or u32 array entry.
pub trait IndexRecord {
    fn value(&self) -> u64;
}
impl<O: ByteOrder> IndexRecord for U16<O> {
    fn value(&self) -> u64 {
        self.get() as u64
    }
}
impl<O: ByteOrder> IndexRecord for U32<O> {
    fn value(&self) -> u64 {
        self.get() as u64
    }
}

/// A Respawn game: the record layouts of its maps.
pub trait Game: sealed::Sealed + 'static {
    /// The branch (`--branch`) whose maps this game reads.
    const BRANCH_ID: &'static str;
    /// The branch whose record layouts it shares (`titanfall` for the Xbox 360 build, whose
    /// records are Titanfall's byte-swapped; itself otherwise).
    const LAYOUT_OF: &'static str;
    /// The byte order of every record: little-endian on PC, big-endian on Xbox 360.
    type O: ByteOrder;
    type TextureData: TextureDataRecord + FromBytes + Immutable + KnownLayout;
    type Model: ModelRecord + FromBytes + Immutable + KnownLayout;
    type Mesh: MeshRecord + FromBytes + Immutable + KnownLayout;
    type MaterialSort: MaterialSortRecord + FromBytes + Immutable + KnownLayout;
    type VertexUnlit: VertexRecord + FromBytes + Immutable + KnownLayout;
    type VertexLitFlat: VertexRecord + FromBytes + Immutable + KnownLayout;
    type VertexLitBump: VertexRecord + FromBytes + Immutable + KnownLayout;
    type VertexUnlitTs: VertexRecord + FromBytes + Immutable + KnownLayout;
    type VertexBlinnPhong: VertexRecord + FromBytes + Immutable + KnownLayout;
    /// OBJ_REFERENCES / CSM_OBJ_REFERENCES entries (u16 before Apex, u32 in Apex).
    type ObjRef: IndexRecord + FromBytes + Immutable + KnownLayout;
    /// CELL_AABB_NODES / CSM_AABB_NODES.
    type AabbNode: FromBytes + Immutable + KnownLayout;
}

/// Titanfall, rBSP v29 (and Titanfall: Online).
pub struct Titanfall;
/// Titanfall on Xbox 360, `PSBr` 29: Titanfall's records in big-endian byte order.
pub struct TitanfallX360;
/// Titanfall 2, rBSP v36 (tech test) and v37.
pub struct Titanfall2;
/// Apex Legends, rBSP v47–v52.
pub struct Apex;
impl sealed::Sealed for Titanfall {}
impl sealed::Sealed for TitanfallX360 {}
impl sealed::Sealed for Titanfall2 {}
impl sealed::Sealed for Apex {}

impl Game for Titanfall {
    const BRANCH_ID: &'static str = "titanfall";
    const LAYOUT_OF: &'static str = "titanfall";
    type O = LE;
    type TextureData = TextureDataR1;
    type Model = ModelR1;
    type Mesh = MeshR1;
    type MaterialSort = MaterialSortR1;
    type VertexUnlit = VertexUnlitR1;
    type VertexLitFlat = VertexLitFlatR1;
    type VertexLitBump = VertexLitBumpR1;
    type VertexUnlitTs = VertexUnlitTsR1;
    type VertexBlinnPhong = VertexBlinnPhongR1;
    type ObjRef = U16<LE>;
    type AabbNode = AabbNodeR1;
}
impl Game for TitanfallX360 {
    const BRANCH_ID: &'static str = "titanfall_x360";
    const LAYOUT_OF: &'static str = "titanfall";
    type O = BigEndian;
    type TextureData = TextureDataR1<BigEndian>;
    type Model = ModelR1<BigEndian>;
    type Mesh = MeshR1<BigEndian>;
    type MaterialSort = MaterialSortR1<BigEndian>;
    type VertexUnlit = VertexUnlitR1<BigEndian>;
    type VertexLitFlat = VertexLitFlatR1<BigEndian>;
    type VertexLitBump = VertexLitBumpR1<BigEndian>;
    type VertexUnlitTs = VertexUnlitTsR1<BigEndian>;
    type VertexBlinnPhong = VertexBlinnPhongR1<BigEndian>;
    type ObjRef = U16<BigEndian>;
    type AabbNode = AabbNodeR1<BigEndian>;
}
impl Game for Titanfall2 {
    const BRANCH_ID: &'static str = "titanfall2";
    const LAYOUT_OF: &'static str = "titanfall2";
    type O = LE;
    type TextureData = TextureDataR1;
    type Model = ModelR1;
    type Mesh = MeshR2;
    type MaterialSort = MaterialSortR1;
    type VertexUnlit = VertexUnlitR1;
    type VertexLitFlat = VertexLitFlatR1;
    type VertexLitBump = VertexLitBumpR1;
    type VertexUnlitTs = VertexUnlitTsR1;
    type VertexBlinnPhong = VertexBlinnPhongR1;
    type ObjRef = U16<LE>;
    type AabbNode = AabbNodeR1;
}
impl Game for Apex {
    const BRANCH_ID: &'static str = "apex";
    const LAYOUT_OF: &'static str = "apex";
    type O = LE;
    type TextureData = TextureDataR5;
    type Model = ModelR5;
    type Mesh = MeshR5;
    type MaterialSort = MaterialSortR5;
    type VertexUnlit = VertexUnlitR5;
    type VertexLitFlat = VertexLitFlatR5;
    type VertexLitBump = VertexLitBumpR5;
    type VertexUnlitTs = VertexUnlitTsR5;
    type VertexBlinnPhong = VertexBlinnPhongR5;
    type ObjRef = U32<LE>;
    type AabbNode = AabbNodeR5;
}

/// Run `$body` with `$view` bound to the [`View`] of the map's game; the value of `$body`
/// (which must be the same type for every game) is returned, or the view's error.
#[macro_export]
macro_rules! with_respawn_view {
    ($bsp:expr, |$view:ident| $body:expr) => {{
        use $crate::branches::respawn::view::{Apex, Titanfall, Titanfall2, TitanfallX360, View};
        let bsp = $bsp;
        match bsp.branch().id {
            "titanfall" => View::<Titanfall>::new(bsp).map(|$view| $body),
            "titanfall_x360" => View::<TitanfallX360>::new(bsp).map(|$view| $body),
            "titanfall2" => View::<Titanfall2>::new(bsp).map(|$view| $body),
            _ => View::<Apex>::new(bsp).map(|$view| $body),
        }
    }};
}

/// The vertices of one kind, in the layout of the map's game.
pub enum Vertices<'a, G: Game> {
    Unlit(&'a [G::VertexUnlit]),
    LitFlat(&'a [G::VertexLitFlat]),
    LitBump(&'a [G::VertexLitBump]),
    UnlitTs(&'a [G::VertexUnlitTs]),
}

impl<G: Game> Vertices<'_, G> {
    pub fn len(&self) -> usize {
        match self {
            Vertices::Unlit(v) => v.len(),
            Vertices::LitFlat(v) => v.len(),
            Vertices::LitBump(v) => v.len(),
            Vertices::UnlitTs(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Vertex `i` in host values.
    pub fn get(&self, i: usize) -> Option<VertexInfo> {
        match self {
            Vertices::Unlit(v) => v.get(i).map(VertexRecord::info),
            Vertices::LitFlat(v) => v.get(i).map(VertexRecord::info),
            Vertices::LitBump(v) => v.get(i).map(VertexRecord::info),
            Vertices::UnlitTs(v) => v.get(i).map(VertexRecord::info),
        }
    }
}

/// WORLD_LIGHTS in the layout of its lump version.
pub enum WorldLights<'a, O: ByteOrder = LE> {
    V1(&'a [WorldLight<O>]),
    V2(&'a [WorldLightV2<O>]),
    V3(&'a [WorldLightV3<O>]),
}

impl<O: ByteOrder> WorldLights<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            WorldLights::V1(l) => l.len(),
            WorldLights::V2(l) => l.len(),
            WorldLights::V3(l) => l.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The fields every version shares.
    pub fn get(&self, i: usize) -> Option<&WorldLight<O>> {
        match self {
            WorldLights::V1(l) => l.get(i),
            WorldLights::V2(l) => l.get(i).map(|l| &l.v1),
            WorldLights::V3(l) => l.get(i).map(|l| &l.v1),
        }
    }
}

/// LIGHTPROBES in the layout of the map's version.
pub enum LightProbes<'a, O: ByteOrder = LE> {
    /// 48 bytes, v29–v50.
    Padded(&'a [LightProbe<O>]),
    /// 44 bytes, v51+.
    R5v51(&'a [LightProbeR5v51<O>]),
}

impl<O: ByteOrder> LightProbes<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            LightProbes::Padded(l) => l.len(),
            LightProbes::R5v51(l) => l.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// LIGHTPROBE_REFERENCES in the layout of the map's game.
pub enum LightProbeRefs<'a, O: ByteOrder = LE> {
    R1(&'a [LightProbeRef<O>]),
    R2(&'a [LightProbeRefR2<O>]),
}

impl<O: ByteOrder> LightProbeRefs<'_, O> {
    pub fn len(&self) -> usize {
        match self {
            LightProbeRefs::R1(l) => l.len(),
            LightProbeRefs::R2(l) => l.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The LIGHTPROBES entry of reference `i`.
    pub fn lightprobe(&self, i: usize) -> Option<u32> {
        match self {
            LightProbeRefs::R1(l) => l.get(i).map(|r| r.lightprobe.get()),
            LightProbeRefs::R2(l) => l.get(i).map(|r| r.r1.lightprobe.get()),
        }
    }
}

/// LEVEL_INFO in the layout of the map's game.
pub enum LevelInfo<'a, O: ByteOrder = LE> {
    R1(&'a LevelInfoR1<O>),
    R5(&'a LevelInfoR5<O>),
}

impl<O: ByteOrder> LevelInfo<'_, O> {
    pub fn num_static_props(&self) -> u32 {
        match self {
            LevelInfo::R1(l) => l.num_static_props.get(),
            LevelInfo::R5(l) => l.num_static_props.get(),
        }
    }
}

/// Typed access to a Respawn map of game `G`.
pub struct View<'a, G: Game> {
    bsp: &'a Bsp<'a>,
    _g: PhantomData<G>,
}

impl<G: Game> Clone for View<'_, G> {
    fn clone(&self) -> Self {
        View { bsp: self.bsp, _g: PhantomData }
    }
}

impl<'a, G: Game> View<'a, G> {
    /// A view of `bsp`, which must be a map of game `G`.
    pub fn new(bsp: &'a Bsp<'a>) -> Result<Self> {
        if bsp.branch().id != G::BRANCH_ID {
            return Err(Error::malformed(format!("a {} map cannot be read as {}", bsp.branch().id, G::BRANCH_ID)));
        }
        Ok(View { bsp, _g: PhantomData })
    }
    pub fn bsp(&self) -> &'a Bsp<'a> {
        self.bsp
    }
    /// The map's version (the low 16 bits of the header word: 29, 36, 37, 47–52).
    pub fn version(&self) -> u32 {
        super::lumps::split_version(self.bsp.header().version).0
    }
    /// Any lump as records of `T` (the caller picks the layout).
    pub fn lump<T: FromBytes + Immutable + KnownLayout>(&self, index: usize) -> Result<&'a [T]> {
        self.bsp.records(index)
    }
    /// Number of `size`-byte records in a lump (0 when absent; rounded down).
    pub fn count(&self, index: usize, size: usize) -> usize {
        self.bsp.lump(index).map(|l| l.len() / size.max(1)).unwrap_or(0)
    }
    pub fn is_apex(&self) -> bool {
        G::LAYOUT_OF == Apex::BRANCH_ID
    }

    pub fn planes(&self) -> Result<&'a [Plane<G::O>]> {
        self.lump(LUMP_PLANES)
    }
    /// Vertex positions (VERTICES).
    pub fn vertices(&self) -> Result<&'a [Vec3<G::O>]> {
        self.lump(LUMP_VERTICES)
    }
    pub fn vertex_normals(&self) -> Result<&'a [Vec3<G::O>]> {
        self.lump(LUMP_VERTEX_NORMALS)
    }
    pub fn texture_data(&self) -> Result<&'a [G::TextureData]> {
        self.lump(LUMP_TEXTURE_DATA)
    }
    pub fn models(&self) -> Result<&'a [G::Model]> {
        self.lump(LUMP_MODELS)
    }
    pub fn meshes(&self) -> Result<&'a [G::Mesh]> {
        self.lump(LUMP_MESHES)
    }
    pub fn mesh_indices(&self) -> Result<&'a [U16<G::O>]> {
        self.lump(LUMP_MESH_INDICES)
    }
    pub fn mesh_bounds(&self) -> Result<&'a [MeshBounds<G::O>]> {
        self.lump(LUMP_MESH_BOUNDS)
    }
    pub fn material_sorts(&self) -> Result<&'a [G::MaterialSort]> {
        self.lump(LUMP_MATERIAL_SORTS)
    }
    pub fn lightmap_headers(&self) -> Result<&'a [LightmapHeader<G::O>]> {
        self.lump(LUMP_LIGHTMAP_HEADERS)
    }
    pub fn cubemaps(&self) -> Result<&'a [Cubemap<G::O>]> {
        self.lump(LUMP_CUBEMAPS)
    }
    pub fn vertex_unlit(&self) -> Result<&'a [G::VertexUnlit]> {
        self.lump(LUMP_VERTEX_UNLIT)
    }
    pub fn vertex_lit_flat(&self) -> Result<&'a [G::VertexLitFlat]> {
        self.lump(LUMP_VERTEX_LIT_FLAT)
    }
    pub fn vertex_lit_bump(&self) -> Result<&'a [G::VertexLitBump]> {
        self.lump(LUMP_VERTEX_LIT_BUMP)
    }
    pub fn vertex_unlit_ts(&self) -> Result<&'a [G::VertexUnlitTs]> {
        self.lump(LUMP_VERTEX_UNLIT_TS)
    }
    pub fn vertex_blinn_phong(&self) -> Result<&'a [G::VertexBlinnPhong]> {
        self.lump(LUMP_VERTEX_BLINN_PHONG)
    }
    /// The vertices a mesh of this kind indexes (through its material sort's offset).
    pub fn vertices_of(&self, kind: VertexKind) -> Result<Vertices<'a, G>> {
        Ok(match kind {
            VertexKind::Unlit => Vertices::Unlit(self.vertex_unlit()?),
            VertexKind::LitFlat => Vertices::LitFlat(self.vertex_lit_flat()?),
            VertexKind::LitBump => Vertices::LitBump(self.vertex_lit_bump()?),
            VertexKind::UnlitTs => Vertices::UnlitTs(self.vertex_unlit_ts()?),
        })
    }
    /// The triangle corners of mesh `i` as vertex numbers in its kind's vertex lump (the mesh
    /// indices plus the material sort's vertex offset), three per triangle. Errors name the
    /// lump that is too short.
    pub fn mesh_corners(&self, i: usize) -> Result<impl Iterator<Item = u64> + 'a> {
        let meshes = self.meshes()?;
        let mesh = meshes.get(i).ok_or_else(|| self.bsp.lump_error(LUMP_MESHES, Error::malformed(format!("no mesh {i}"))))?;
        let sorts = self.material_sorts()?;
        let sort = sorts.get(mesh.material_sort() as usize).ok_or_else(|| {
            self.bsp.lump_error(LUMP_MATERIAL_SORTS, Error::malformed(format!("mesh {i} names material sort {}", mesh.material_sort())))
        })?;
        let indices = self.mesh_indices()?;
        let first = mesh.first_mesh_index() as usize;
        let run = indices
            .get(first..first.saturating_add(3 * mesh.num_triangles() as usize))
            .ok_or_else(|| self.bsp.lump_error(LUMP_MESH_INDICES, Error::malformed(format!("mesh {i} indices run past the lump"))))?;
        let offset = sort.vertex_offset();
        Ok(run.iter().map(move |x| (x.get() as i64 + offset).max(0) as u64))
    }
    /// The name of texture data entry `i` (its material path), if it resolves.
    pub fn texture_name(&self, i: usize) -> Option<Cow<'a, str>> {
        let td = self.texture_data().ok()?.get(i)?;
        let index = usize::try_from(td.name_index()).ok()?;
        let offset =
            if self.is_apex() { index } else { self.lump::<U32<G::O>>(LUMP_TEXTURE_DATA_STRING_TABLE).ok()?.get(index)?.get() as usize };
        let data = self.bsp.lump(if self.is_apex() { LUMP_SURFACE_NAMES } else { LUMP_TEXTURE_DATA_STRING_DATA }).ok()?;
        Some(crate::bytes::c_str(data.get(offset..)?))
    }
    /// The material name of mesh `i` (mesh → material sort → texture data → name).
    pub fn mesh_material(&self, i: usize) -> Option<Cow<'a, str>> {
        let mesh = self.meshes().ok()?.get(i)?;
        let sort = self.material_sorts().ok()?.get(mesh.material_sort() as usize)?;
        self.texture_name(usize::try_from(sort.texture_data()).ok()?)
    }
    pub fn obj_references(&self) -> Result<&'a [G::ObjRef]> {
        self.lump(LUMP_OBJ_REFERENCES)
    }
    pub fn obj_reference_bounds(&self) -> Result<&'a [ObjRefBounds<G::O>]> {
        self.lump(LUMP_OBJ_REFERENCE_BOUNDS)
    }
    pub fn csm_obj_references(&self) -> Result<&'a [G::ObjRef]> {
        self.lump(LUMP_CSM_OBJ_REFERENCES)
    }
    pub fn cell_aabb_nodes(&self) -> Result<&'a [G::AabbNode]> {
        self.lump(LUMP_CELL_AABB_NODES)
    }
    pub fn csm_aabb_nodes(&self) -> Result<&'a [G::AabbNode]> {
        self.lump(LUMP_CSM_AABB_NODES)
    }
    pub fn cell_bsp_nodes(&self) -> Result<&'a [CellBspNode<G::O>]> {
        self.lump(LUMP_CELL_BSP_NODES)
    }
    pub fn cells(&self) -> Result<&'a [Cell<G::O>]> {
        self.lump(LUMP_CELLS)
    }
    pub fn portals(&self) -> Result<&'a [Portal<G::O>]> {
        self.lump(LUMP_PORTALS)
    }
    pub fn portal_vertices(&self) -> Result<&'a [Vec3<G::O>]> {
        self.lump(LUMP_PORTAL_VERTICES)
    }
    /// PORTAL_EDGES: vertex pairs, flattened.
    pub fn portal_edges(&self) -> Result<&'a [U16<G::O>]> {
        self.lump(LUMP_PORTAL_EDGES)
    }
    pub fn portal_vertex_edges(&self) -> Result<&'a [IndexSet<G::O>]> {
        self.lump(LUMP_PORTAL_VERTEX_EDGES)
    }
    pub fn portal_vertex_references(&self) -> Result<&'a [U16<G::O>]> {
        self.lump(LUMP_PORTAL_VERTEX_REFERENCES)
    }
    pub fn portal_edge_references(&self) -> Result<&'a [U16<G::O>]> {
        self.lump(LUMP_PORTAL_EDGE_REFERENCES)
    }
    pub fn portal_edge_intersect_edges(&self) -> Result<&'a [IndexSet<G::O>]> {
        self.lump(LUMP_PORTAL_EDGE_INTERSECT_EDGE)
    }
    pub fn portal_edge_intersect_vertices(&self) -> Result<&'a [IndexSet<G::O>]> {
        self.lump(LUMP_PORTAL_EDGE_INTERSECT_VERTEX)
    }
    pub fn portal_edge_intersect_headers(&self) -> Result<&'a [PortalEdgeIntersectHeader<G::O>]> {
        self.lump(LUMP_PORTAL_EDGE_INTERSECT_HEADER)
    }
    pub fn occlusion_mesh_vertices(&self) -> Result<&'a [Vec3<G::O>]> {
        self.lump(LUMP_OCCLUSION_MESH_VERTICES)
    }
    pub fn occlusion_mesh_indices(&self) -> Result<&'a [I16<G::O>]> {
        self.lump(LUMP_OCCLUSION_MESH_INDICES)
    }
    pub fn shadow_meshes(&self) -> Result<&'a [ShadowMesh<G::O>]> {
        self.lump(LUMP_SHADOW_MESHES)
    }
    pub fn shadow_mesh_indices(&self) -> Result<&'a [U16<G::O>]> {
        self.lump(LUMP_SHADOW_MESH_INDICES)
    }
    pub fn shadow_mesh_opaque_vertices(&self) -> Result<&'a [Vec3<G::O>]> {
        self.lump(LUMP_SHADOW_MESH_OPAQUE_VERTICES)
    }
    pub fn shadow_mesh_alpha_vertices(&self) -> Result<&'a [ShadowMeshAlphaVertex<G::O>]> {
        self.lump(LUMP_SHADOW_MESH_ALPHA_VERTICES)
    }
    /// SHADOW_ENVIRONMENTS (v36+; empty for Titanfall, whose slot is unused).
    pub fn shadow_environments(&self) -> Result<&'a [ShadowEnvironment<G::O>]> {
        self.only_after_29(LUMP_SHADOW_ENVIRONMENTS)
    }
    /// LIGHTPROBE_PARENT_INFOS (v36+).
    pub fn lightprobe_parent_infos(&self) -> Result<&'a [LightProbeParentInfo<G::O>]> {
        self.only_after_29(LUMP_LIGHTPROBE_PARENT_INFOS)
    }
    /// LIGHTPROBE_BSP_NODES (Titanfall 2 only).
    pub fn lightprobe_bsp_nodes(&self) -> Result<&'a [LightProbeBspNode<G::O>]> {
        if G::LAYOUT_OF == Titanfall2::BRANCH_ID {
            self.lump(LUMP_LIGHTPROBE_BSP_NODES)
        } else {
            Ok(&[])
        }
    }
    pub fn lightprobe_tree(&self) -> Result<&'a [LightProbeTree<G::O>]> {
        self.lump(LUMP_LIGHTPROBE_TREE)
    }
    pub fn light_probes(&self) -> Result<LightProbes<'a, G::O>> {
        if self.is_apex() && self.version() >= 51 {
            self.lump(LUMP_LIGHTPROBES).map(LightProbes::R5v51)
        } else {
            self.lump(LUMP_LIGHTPROBES).map(LightProbes::Padded)
        }
    }
    pub fn lightprobe_references(&self) -> Result<LightProbeRefs<'a, G::O>> {
        if G::LAYOUT_OF == Titanfall::BRANCH_ID {
            self.lump(LUMP_LIGHTPROBE_REFERENCES).map(LightProbeRefs::R1)
        } else {
            self.lump(LUMP_LIGHTPROBE_REFERENCES).map(LightProbeRefs::R2)
        }
    }
    pub fn static_prop_lightprobe_indices(&self) -> Result<&'a [U32<G::O>]> {
        self.lump(LUMP_STATIC_PROP_LIGHTPROBE_INDICES)
    }
    /// WORLD_LIGHTS in the layout of its lump version (1, 2 or 3; every Apex map reads 3).
    pub fn world_lights(&self) -> Result<WorldLights<'a, G::O>> {
        let version = self.bsp.entry(LUMP_WORLD_LIGHTS).and_then(|e| e.version).unwrap_or(0);
        match (G::LAYOUT_OF, version) {
            ("apex", _) | ("titanfall2", 3) => self.lump(LUMP_WORLD_LIGHTS).map(WorldLights::V3),
            ("titanfall2", 2) => self.lump(LUMP_WORLD_LIGHTS).map(WorldLights::V2),
            _ => self.lump(LUMP_WORLD_LIGHTS).map(WorldLights::V1),
        }
    }
    /// WORLD_LIGHT_PARENT_INFOS (v36+).
    pub fn world_light_parent_infos(&self) -> Result<&'a [WorldLightParentInfo<G::O>]> {
        self.only_after_29(LUMP_WORLD_LIGHT_PARENT_INFOS)
    }
    /// LIGHTMAP_DATA_RTL_PAGES (Titanfall 2).
    pub fn lightmap_pages(&self) -> Result<&'a [LightmapPage<G::O>]> {
        if G::LAYOUT_OF == Titanfall2::BRANCH_ID {
            self.lump(LUMP_LIGHTMAP_DATA_RTL_PAGES)
        } else {
            Ok(&[])
        }
    }
    /// The one LEVEL_INFO record, when the lump holds one.
    pub fn level_info(&self) -> Result<Option<LevelInfo<'a, G::O>>> {
        Ok(if self.is_apex() {
            self.lump::<LevelInfoR5<G::O>>(LUMP_LEVEL_INFO)?.first().map(LevelInfo::R5)
        } else {
            self.lump::<LevelInfoR1<G::O>>(LUMP_LEVEL_INFO)?.first().map(LevelInfo::R1)
        })
    }
    /// The map's static props (game lump `sprp`), `None` without one.
    pub fn static_props(&self) -> Result<Option<RespawnStaticProps<'a>>> {
        let gl = GameLumps::of(self.bsp)?;
        let Some(e) = gl.find(b"sprp") else { return Ok(None) };
        let data = gl.bytes_of(e).map_err(|err| self.bsp.lump_error(LUMP_GAME_LUMP, err))?;
        RespawnStaticProps::parse(data, e.version, self.bsp.branch().id).map(Some).map_err(|err| self.bsp.lump_error(LUMP_GAME_LUMP, err))
    }

    // Titanfall / Titanfall 2 only: empty for Apex, whose slots hold other lumps.

    fn only_before_apex<T: FromBytes + Immutable + KnownLayout>(&self, index: usize) -> Result<&'a [T]> {
        if self.is_apex() {
            Ok(&[])
        } else {
            self.lump(index)
        }
    }
    fn only_after_29<T: FromBytes + Immutable + KnownLayout>(&self, index: usize) -> Result<&'a [T]> {
        if G::LAYOUT_OF == Titanfall::BRANCH_ID {
            Ok(&[])
        } else {
            self.lump(index)
        }
    }
    /// TEXTURE_DATA_STRING_TABLE: byte offsets into TEXTURE_DATA_STRING_DATA (v29–v37).
    pub fn texture_data_string_table(&self) -> Result<&'a [U32<G::O>]> {
        self.only_before_apex(LUMP_TEXTURE_DATA_STRING_TABLE)
    }
    pub fn leaf_water_data(&self) -> Result<&'a [LeafWaterData<G::O>]> {
        self.only_before_apex(LUMP_LEAF_WATER_DATA)
    }
    /// The one CM_GRID record, when present.
    pub fn cm_grid(&self) -> Result<Option<&'a CmGrid<G::O>>> {
        Ok(self.only_before_apex::<CmGrid<G::O>>(LUMP_CM_GRID)?.first())
    }
    pub fn cm_grid_cells(&self) -> Result<&'a [CmGridCell<G::O>]> {
        self.only_before_apex(LUMP_CM_GRID_CELLS)
    }
    pub fn cm_geo_sets(&self) -> Result<&'a [CmGeoSet<G::O>]> {
        self.only_before_apex(LUMP_CM_GEO_SETS)
    }
    pub fn cm_geo_set_bounds(&self) -> Result<&'a [CmBounds<G::O>]> {
        self.only_before_apex(LUMP_CM_GEO_SET_BOUNDS)
    }
    pub fn cm_primitives(&self) -> Result<&'a [CmPrimitive<G::O>]> {
        self.only_before_apex(LUMP_CM_PRIMITIVES)
    }
    pub fn cm_primitive_bounds(&self) -> Result<&'a [CmBounds<G::O>]> {
        self.only_before_apex(LUMP_CM_PRIMITIVE_BOUNDS)
    }
    pub fn cm_unique_contents(&self) -> Result<&'a [U32<G::O>]> {
        self.only_before_apex(LUMP_CM_UNIQUE_CONTENTS)
    }
    pub fn cm_brushes(&self) -> Result<&'a [CmBrush<G::O>]> {
        self.only_before_apex(LUMP_CM_BRUSHES)
    }
    pub fn cm_brush_side_plane_offsets(&self) -> Result<&'a [U16<G::O>]> {
        self.only_before_apex(LUMP_CM_BRUSH_SIDE_PLANE_OFFSETS)
    }
    pub fn cm_brush_side_properties(&self) -> Result<&'a [CmBrushSideProperty<G::O>]> {
        self.only_before_apex(LUMP_CM_BRUSH_SIDE_PROPERTIES)
    }
    pub fn cm_brush_side_texture_vectors(&self) -> Result<&'a [CmBrushSideTextureVector<G::O>]> {
        self.only_before_apex(LUMP_CM_BRUSH_SIDE_TEXTURE_VECTORS)
    }
    pub fn tricoll_triangles(&self) -> Result<&'a [TricollTriangle<G::O>]> {
        self.only_before_apex(LUMP_TRICOLL_TRIANGLES)
    }
    pub fn tricoll_nodes(&self) -> Result<&'a [CmBounds<G::O>]> {
        self.only_before_apex(LUMP_TRICOLL_NODES)
    }
    pub fn tricoll_headers(&self) -> Result<&'a [TricollHeader<G::O>]> {
        self.only_before_apex(LUMP_TRICOLL_HEADERS)
    }
    pub fn tricoll_bevel_starts(&self) -> Result<&'a [U16<G::O>]> {
        self.only_before_apex(LUMP_TRICOLL_BEVEL_STARTS)
    }
    pub fn tricoll_bevel_indices(&self) -> Result<&'a [U32<G::O>]> {
        self.only_before_apex(LUMP_TRICOLL_BEVEL_INDICES)
    }

    // Apex only: empty for Titanfall and Titanfall 2.

    fn only_apex<T: FromBytes + Immutable + KnownLayout>(&self, index: usize) -> Result<&'a [T]> {
        if self.is_apex() {
            self.lump(index)
        } else {
            Ok(&[])
        }
    }
    pub fn contents_masks(&self) -> Result<&'a [U32<G::O>]> {
        self.only_apex(LUMP_CONTENTS_MASKS)
    }
    pub fn surface_properties(&self) -> Result<&'a [SurfaceProperty<G::O>]> {
        self.only_apex(LUMP_SURFACE_PROPERTIES)
    }
    pub fn bvh_nodes(&self) -> Result<&'a [BvhNode<G::O>]> {
        self.only_apex(LUMP_BVH_NODES)
    }
    pub fn bvh_leaf_data(&self) -> Result<&'a [U32<G::O>]> {
        self.only_apex(LUMP_BVH_LEAF_DATA)
    }
    pub fn packed_vertices(&self) -> Result<&'a [PackedVertex<G::O>]> {
        self.only_apex(LUMP_PACKED_VERTICES)
    }
    pub fn heightfields(&self) -> Result<&'a [HeightField<G::O>]> {
        self.only_apex(LUMP_HEIGHTFIELDS)
    }
    pub fn heightfield_samples(&self) -> Result<&'a [U16<G::O>]> {
        self.only_apex(LUMP_HEIGHTFIELD_SAMPLES)
    }
    pub fn cubemaps_ambient_rcp(&self) -> Result<&'a [F32<G::O>]> {
        self.only_apex(LUMP_CUBEMAPS_AMBIENT_RCP)
    }
    pub fn water_bodies(&self) -> Result<&'a [WaterBody<G::O>]> {
        self.only_apex(LUMP_WATER_BODIES)
    }
    pub fn water_body_centers(&self) -> Result<&'a [WaterBodyVertex<G::O>]> {
        self.only_apex(LUMP_WATER_BODY_CENTERS)
    }
    pub fn water_body_vertices(&self) -> Result<&'a [WaterBodyVertex<G::O>]> {
        self.only_apex(LUMP_WATER_BODY_VERTICES)
    }
    pub fn water_body_indices(&self) -> Result<&'a [U16<G::O>]> {
        self.only_apex(LUMP_WATER_BODY_INDICES)
    }
}
