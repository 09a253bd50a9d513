//! Respawn record types, one `#[repr(C)]` little-endian struct per lump layout
//! (respawn_cod_facts.md §1.6, §1.8). Layouts shared by every version carry no suffix; where
//! a game changed a layout the types are suffixed with the community's engine names: `R1` for
//! Titanfall (rBSP v29, and Titanfall 2 where it kept the layout), `R2` for a Titanfall 2
//! (v36/37) change, `R5` for Apex Legends (v47–52). Each type says which version introduced it.
//!
//! Sources (facts only): bsp_tool 0.7.0's branch scripts `respawn/titanfall.py`,
//! `titanfall2.py`, `apex_legends*.py` (field order and widths of each struct format), checked
//! on the three v37 corpus maps (every reference below is in range there, §1.9). Bit fields are
//! stored most significant field first (bsp_tool's `BitField` convention).

use zerocopy::byteorder::{ByteOrder, F32, I16, I32, U16, U32, U64};
use zerocopy::LittleEndian as LE;

/// One declaration per record: the struct generic over the byte order, little-endian (PC) by
/// default, so `Plane` is the PC layout and `Plane<BigEndian>` the Xbox 360 one.
macro_rules! record {
    ($(#[$m:meta])* pub struct $name:ident<O: ByteOrder = LE> { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }) => {
        crate::schema::types::declare_record! { $(#[$m])* pub struct $name<O: ByteOrder = LE> { $($(#[$fm])* pub $f: $t,)* } }
    };
}

fn v3<O: ByteOrder>(v: &[F32<O>; 3]) -> [f32; 3] {
    [v[0].get(), v[1].get(), v[2].get()]
}
fn v2<O: ByteOrder>(v: &[F32<O>; 2]) -> [f32; 2] {
    [v[0].get(), v[1].get()]
}

// ---------------------------------------------------------------------------------------------
// Shared by every version (v29–v52).

record! {
    /// A point: VERTICES (0x03), VERTEX_NORMALS (0x1E), PORTAL_VERTICES (0x6D),
    /// OCCLUSION_MESH_VERTICES (0x75), SHADOW_MESH_OPAQUE_VERTICES (0x7C). 12 bytes, v29+.
    pub struct Vec3<O: ByteOrder = LE> { pub xyz: [F32<O>; 3], }
}
impl<O: ByteOrder> Vec3<O> {
    pub fn get(&self) -> [f32; 3] {
        v3(&self.xyz)
    }
}
record! {
    /// PLANES (0x01), 16 bytes, v29+ (lump version 1 in Titanfall, 0 in Apex).
    pub struct Plane<O: ByteOrder = LE> { pub normal: [F32<O>; 3], pub dist: F32<O>, }
}
record! {
    /// CUBEMAPS (0x2A), 16 bytes, v29+: an integer origin and one unknown word.
    pub struct Cubemap<O: ByteOrder = LE> { pub origin: [I32<O>; 3], pub unknown: U32<O>, }
}
record! {
    /// MESH_BOUNDS (0x51), 32 bytes, v29+; parallel to MESHES.
    pub struct MeshBounds<O: ByteOrder = LE> { pub origin: [F32<O>; 3], pub radius: F32<O>, pub extents: [F32<O>; 3], pub tan_yaw: F32<O>, }
}
record! {
    /// LIGHTMAP_HEADERS (0x53), 8 bytes, v29+: one lightmap page's type and size in texels.
    pub struct LightmapHeader<O: ByteOrder = LE> { pub kind: U32<O>, pub width: U16<O>, pub height: U16<O>, }
}
impl<O: ByteOrder> LightmapHeader<O> {
    /// Texels in this page.
    pub fn texels(&self) -> u64 {
        self.width.get() as u64 * self.height.get() as u64
    }
}
record! {
    /// OBJ_REFERENCE_BOUNDS (0x79), 32 bytes, v29+; parallel to OBJ_REFERENCES.
    pub struct ObjRefBounds<O: ByteOrder = LE> { pub mins: [F32<O>; 3], pub mins_zero: I32<O>, pub maxs: [F32<O>; 3], pub maxs_zero: I32<O>, }
}
record! {
    /// PORTAL_VERTEX_EDGES (0x6F), PORTAL_EDGE_INTERSECT_EDGE / _VERTEX (0x72, 0x73): up to 8
    /// indices, −1 = none. 16 bytes, v29+.
    pub struct IndexSet<O: ByteOrder = LE> { pub indices: [I16<O>; 8], }
}
impl<O: ByteOrder> IndexSet<O> {
    /// The indices in use (−1 ends nothing: every non-negative entry is returned).
    pub fn used(&self) -> impl Iterator<Item = i64> + '_ {
        self.indices.iter().map(|i| i.get() as i64).filter(|&i| i >= 0)
    }
}
record! {
    /// PORTAL_EDGE_INTERSECT_HEADER (0x74), 8 bytes, v29+; one per portal edge (pair of
    /// PORTAL_EDGES entries), naming its run of intersect sets.
    pub struct PortalEdgeIntersectHeader<O: ByteOrder = LE> { pub first_set: U32<O>, pub num_sets: U32<O>, }
}
record! {
    /// CELL_BSP_NODES (0x6A), 8 bytes, v29+: a split plane (−1 for a leaf) and a child, a
    /// node when the plane is set and a cell when it is −1.
    pub struct CellBspNode<O: ByteOrder = LE> { pub plane: I32<O>, pub child: U32<O>, }
}
record! {
    /// CELLS (0x6B), 8 bytes, v29+: a run of PORTALS and an optional LEAF_WATER_DATA (−1).
    pub struct Cell<O: ByteOrder = LE> { pub num_portals: U16<O>, pub first_portal: U16<O>, pub flags: U16<O>, pub leaf_water_data: I16<O>, }
}
record! {
    /// PORTALS (0x6C), 12 bytes, v29+. `kind` 1 (sky) portals name cell `len(CELLS) + 1`.
    pub struct Portal<O: ByteOrder = LE> {
        pub is_reversed: u8,
        pub kind: u8,
        pub num_refs: u8,
        pub padding: u8,
        pub first_ref: U16<O>,
        pub cell: U16<O>,
        pub plane: U32<O>,
    }
}
/// `Portal::kind` of a portal into the sky; its cell is out of range on purpose.
pub const PORTAL_SKYBOX: u8 = 1;
record! {
    /// SHADOW_MESH_ALPHA_VERTICES (0x7D), 20 bytes, v29+.
    pub struct ShadowMeshAlphaVertex<O: ByteOrder = LE> { pub position: [F32<O>; 3], pub uv: [F32<O>; 2], }
}
record! {
    /// SHADOW_MESHES (0x7F), 12 bytes, v29+. Indices run on from the previous mesh's; they
    /// index the opaque (`is_opaque` 1) or alpha vertices from `vertex_offset`.
    pub struct ShadowMesh<O: ByteOrder = LE> { pub vertex_offset: U32<O>, pub num_triangles: U32<O>, pub is_opaque: I16<O>, pub material_sort: I16<O>, }
}
record! {
    /// LIGHTPROBE_TREE (0x67), 8 bytes, v29+: nodes and leaves mixed (not interpreted).
    pub struct LightProbeTree<O: ByteOrder = LE> { pub tag: U32<O>, pub num_entries: U32<O>, }
}
record! {
    /// LIGHTPROBES (0x65), 48 bytes, v29–v50: an ambient cube, sky visibility and up to four
    /// static lights (weights, indices −1 = none).
    pub struct LightProbe<O: ByteOrder = LE> {
        pub cube: [[u8; 4]; 6],
        pub sky_dir_sun_vis: [I16<O>; 4],
        pub static_light_weights: [u8; 4],
        pub static_light_indices: [I16<O>; 4],
        pub padding: U32<O>,
    }
}
record! {
    /// LIGHTPROBES, 44 bytes: Apex v51 dropped [`LightProbe`]'s padding word.
    pub struct LightProbeR5v51<O: ByteOrder = LE> {
        pub cube: [[u8; 4]; 6],
        pub sky_dir_sun_vis: [I16<O>; 4],
        pub static_light_weights: [u8; 4],
        pub static_light_indices: [I16<O>; 4],
    }
}
record! {
    /// WORLD_LIGHTS (0x36) lump version 1, 100 bytes (v29; Titanfall 2 reads it too): a
    /// Source `dworldlight_t` with a shadow offset.
    pub struct WorldLight<O: ByteOrder = LE> {
        pub origin: [F32<O>; 3],
        pub intensity: [F32<O>; 3],
        pub normal: [F32<O>; 3],
        pub shadow_offset: [F32<O>; 3],
        pub viscluster: I32<O>,
        pub kind: I32<O>,
        pub style: I32<O>,
        pub stop_dot: F32<O>,
        pub stop_dot2: F32<O>,
        pub exponent: F32<O>,
        pub radius: F32<O>,
        pub constant: F32<O>,
        pub linear: F32<O>,
        pub quadratic: F32<O>,
        pub flags: I32<O>,
        pub texture_data: I32<O>,
        pub parent: I32<O>,
    }
}
record! {
    /// WORLD_LIGHTS lump version 2, 108 bytes (Titanfall 2): two more floats.
    pub struct WorldLightV2<O: ByteOrder = LE> { pub v1: WorldLight<O>, pub unknown: [F32<O>; 2], }
}
record! {
    /// WORLD_LIGHTS lump version 3, 112 bytes (Titanfall 2, every Apex map): three more floats.
    pub struct WorldLightV3<O: ByteOrder = LE> { pub v1: WorldLight<O>, pub unknown: [F32<O>; 3], }
}
record! {
    /// WORLD_LIGHT_PARENT_INFOS (0x37), 76 bytes, v36+ (lump version 3): a 3×4 matrix, two
    /// vectors and the WORLD_LIGHTS entry it belongs to.
    pub struct WorldLightParentInfo<O: ByteOrder = LE> {
        pub matrix: [F32<O>; 12],
        pub origin: [F32<O>; 3],
        pub unknown_2: [F32<O>; 3],
        pub unknown_3: I16<O>,
        pub world_light: I16<O>,
    }
}
record! {
    /// SHADOW_ENVIRONMENTS (0x05), 36 bytes, v36+: `[first, last)` runs of CSM_AABB_NODES,
    /// CSM_OBJ_REFERENCES and SHADOW_MESHES (the second triple are ends, not counts; seen in
    /// mp_looby) and the sun direction.
    pub struct ShadowEnvironment<O: ByteOrder = LE> {
        pub first_csm_aabb_node: I32<O>,
        pub first_csm_obj_reference: I32<O>,
        pub first_shadow_mesh: I32<O>,
        pub last_csm_aabb_node: I32<O>,
        pub last_csm_obj_reference: I32<O>,
        pub last_shadow_mesh: I32<O>,
        pub sun_normal: [F32<O>; 3],
    }
}
record! {
    /// LIGHTPROBE_PARENT_INFOS (0x04), 28 bytes, v36+: runs of LIGHTPROBES,
    /// LIGHTPROBE_REFERENCES and LIGHTPROBE_TREE.
    pub struct LightProbeParentInfo<O: ByteOrder = LE> {
        pub index: I32<O>,
        pub first_probe: U32<O>,
        pub num_probes: U32<O>,
        pub first_reference: U32<O>,
        pub num_references: U32<O>,
        pub first_tree: U32<O>,
        pub num_trees: U32<O>,
    }
}
record! {
    /// LIGHTPROBE_BSP_NODES (0x06), 24 bytes, v36+ (bsp_tool: lump version 2; mp_looby has
    /// version 0 with the same size): a plane and two children.
    pub struct LightProbeBspNode<O: ByteOrder = LE> { pub normal: [F32<O>; 3], pub dist: F32<O>, pub children: [U32<O>; 2], }
}
record! {
    /// LIGHTPROBE_REFERENCES (0x68), 16 bytes, v29: a position and its LIGHTPROBES entry.
    pub struct LightProbeRef<O: ByteOrder = LE> { pub origin: [F32<O>; 3], pub lightprobe: U32<O>, }
}
record! {
    /// LIGHTPROBE_REFERENCES, 20 bytes: Titanfall 2 (v36) added a word, kept by Apex.
    pub struct LightProbeRefR2<O: ByteOrder = LE> { pub r1: LightProbeRef<O>, pub unknown: I32<O>, }
}
record! {
    /// LIGHTMAP_DATA_RTL_PAGES (0x7A), 126 bytes, v36: 63 WORLD_LIGHTS indices (−1 = none).
    pub struct LightmapPage<O: ByteOrder = LE> { pub indices: [I16<O>; 63], }
}

// ---------------------------------------------------------------------------------------------
// Titanfall (v29) layouts, most kept by Titanfall 2.

record! {
    /// TEXTURE_DATA (0x02) lump version 1, 36 bytes, v29–v37: Source's texdata with its
    /// texinfo flags; `name_index` indexes TEXTURE_DATA_STRING_TABLE.
    pub struct TextureDataR1<O: ByteOrder = LE> {
        pub reflectivity: [F32<O>; 3],
        pub name_index: I32<O>,
        pub size: [I32<O>; 2],
        pub view: [I32<O>; 2],
        pub flags: I32<O>,
    }
}
record! {
    /// MODELS (0x0E), 32 bytes, v29–v37: bounds and a run of MESHES.
    pub struct ModelR1<O: ByteOrder = LE> { pub mins: [F32<O>; 3], pub maxs: [F32<O>; 3], pub first_mesh: U32<O>, pub num_meshes: U32<O>, }
}
record! {
    /// MESHES (0x50), 28 bytes, v29. `flags & 0x600` picks the vertex lump ([`VertexKind`]).
    pub struct MeshR1<O: ByteOrder = LE> {
        pub first_mesh_index: U32<O>,
        pub num_triangles: U16<O>,
        pub first_vertex: U16<O>,
        pub num_vertices: U16<O>,
        pub vertex_type: U16<O>,
        pub styles: [i8; 4],
        pub luxel_origin: [I16<O>; 2],
        pub luxel_offset_max: [u8; 2],
        pub material_sort: U16<O>,
        pub flags: U32<O>,
    }
}
record! {
    /// MESHES, 28 bytes: Titanfall 2 (v36) split [`MeshR1`]'s vertex type into a byte and a
    /// CUBEMAPS index (−1 = none).
    pub struct MeshR2<O: ByteOrder = LE> {
        pub first_mesh_index: U32<O>,
        pub num_triangles: U16<O>,
        pub first_vertex: U16<O>,
        pub num_vertices: U16<O>,
        pub vertex_type: i8,
        pub cubemap: i8,
        pub styles: [i8; 4],
        pub luxel_origin: [I16<O>; 2],
        pub luxel_offset_max: [u8; 2],
        pub material_sort: U16<O>,
        pub flags: U32<O>,
    }
}
record! {
    /// MATERIAL_SORTS (0x52), 12 bytes, v29–v37: TEXTURE_DATA, LIGHTMAP_HEADERS and CUBEMAPS
    /// entries (−1 = none) and the offset added to mesh indices in the vertex lump.
    pub struct MaterialSortR1<O: ByteOrder = LE> {
        pub texture_data: I16<O>,
        pub lightmap_header: I16<O>,
        pub cubemap: I16<O>,
        pub last_vertex: I16<O>,
        pub vertex_offset: I32<O>,
    }
}
record! {
    /// VERTEX_UNLIT (0x47), 20 bytes, v29–v37 (tool brushes).
    pub struct VertexUnlitR1<O: ByteOrder = LE> { pub position_index: U32<O>, pub normal_index: U32<O>, pub albedo_uv: [F32<O>; 2], pub colour: [u8; 4], }
}
record! {
    /// VERTEX_LIT_FLAT (0x48) lump version 1, 36 bytes, v29–v37 (MRVN-Radiant writes it as
    /// version 0 with the same size).
    pub struct VertexLitFlatR1<O: ByteOrder = LE> {
        pub position_index: U32<O>,
        pub normal_index: U32<O>,
        pub albedo_uv: [F32<O>; 2],
        pub colour: [u8; 4],
        pub lightmap_uv: [F32<O>; 2],
        pub lightmap_step: [F32<O>; 2],
    }
}
record! {
    /// VERTEX_LIT_BUMP (0x49) lump version 1, 44 bytes, v29–v37 (common world geometry): a
    /// lit-flat vertex and two tangent indices.
    pub struct VertexLitBumpR1<O: ByteOrder = LE> { pub flat: VertexLitFlatR1<O>, pub tangent: [I32<O>; 2], }
}
record! {
    /// VERTEX_UNLIT_TS (0x4A), 28 bytes, v29–v37 (glass): an unlit vertex and two tangent
    /// indices.
    pub struct VertexUnlitTsR1<O: ByteOrder = LE> { pub unlit: VertexUnlitR1<O>, pub tangent: [I32<O>; 2], }
}
record! {
    /// VERTEX_BLINN_PHONG (0x4B), 92 bytes, v29–v37 (no official map uses it).
    pub struct VertexBlinnPhongR1<O: ByteOrder = LE> {
        pub position_index: U32<O>,
        pub normal_index: U32<O>,
        pub colour: [u8; 4],
        pub albedo_uv: [F32<O>; 2],
        pub lightmap_uv: [F32<O>; 2],
        pub tangent: [F32<O>; 16],
    }
}
record! {
    /// CSM_AABB_NODES (0x63) and CELL_AABB_NODES (0x77), 32 bytes, v29–v37: bounds, a run of
    /// child nodes and a run of CSM_OBJ_REFERENCES / OBJ_REFERENCES.
    pub struct AabbNodeR1<O: ByteOrder = LE> {
        pub mins: [F32<O>; 3],
        pub num_children: u8,
        pub num_obj_refs: u8,
        pub total_obj_refs: U16<O>,
        pub maxs: [F32<O>; 3],
        pub first_child: U16<O>,
        pub first_obj_ref: U16<O>,
    }
}
record! {
    /// LEVEL_INFO (0x7B), 28 bytes (one record), v29–v37: where the world model's decal,
    /// transparent and sky meshes start, the static prop count and the sun direction.
    pub struct LevelInfoR1<O: ByteOrder = LE> {
        pub first_decal_mesh: U32<O>,
        pub first_transparent_mesh: U32<O>,
        pub first_sky_mesh: U32<O>,
        pub num_static_props: U32<O>,
        pub sun_normal: [F32<O>; 3],
    }
}
record! {
    /// LEAF_WATER_DATA (0x24) lump version 1, 12 bytes, v29–v37 (Source's
    /// `dleafwaterdata_t`): surface and bottom heights and a TEXTURE_DATA entry.
    pub struct LeafWaterData<O: ByteOrder = LE> { pub surface_z: F32<O>, pub min_z: F32<O>, pub texture_data: U32<O>, }
}
record! {
    /// CM_GRID (0x55), 28 bytes (one record), v29–v37: the collision grid over the world
    /// model. `count[0] × count[1]` CM_GRID_CELLS cover the world, then one per model.
    pub struct CmGrid<O: ByteOrder = LE> {
        pub scale: F32<O>,
        pub offset: [I32<O>; 2],
        pub count: [I32<O>; 2],
        pub num_straddle_groups: I32<O>,
        pub first_brush_plane: I32<O>,
    }
}
record! {
    /// CM_GRID_CELLS (0x56), 4 bytes, v29–v37: a run of CM_GEO_SETS.
    pub struct CmGridCell<O: ByteOrder = LE> { pub first_geo_set: U16<O>, pub num_geo_sets: U16<O>, }
}
record! {
    /// A collision primitive reference, 4 bytes: CM_PRIMITIVES (0x59) entries and
    /// [`CmGeoSet::primitive`]. Bits 24–31 the type (0 brush, 64 tricoll; Titanfall 2 adds 96
    /// prop), 8–23 the index, 0–7 a CM_UNIQUE_CONTENTS entry.
    pub struct CmPrimitive<O: ByteOrder = LE> { pub packed: U32<O>, }
}
/// [`CmPrimitive`] types.
pub const PRIMITIVE_BRUSH: u32 = 0;
pub const PRIMITIVE_TRICOLL: u32 = 64;
pub const PRIMITIVE_PROP: u32 = 96;
impl<O: ByteOrder> CmPrimitive<O> {
    pub fn kind(&self) -> u32 {
        self.packed.get() >> 24
    }
    pub fn index(&self) -> u32 {
        (self.packed.get() >> 8) & 0xFFFF
    }
    pub fn unique_contents(&self) -> u32 {
        self.packed.get() & 0xFF
    }
}
record! {
    /// CM_GEO_SETS (0x57), 8 bytes, v29–v37: one primitive itself when `num_primitives` is
    /// 1, else a run of CM_PRIMITIVES from `primitive.index()`. Parallel to CM_GEO_SET_BOUNDS.
    pub struct CmGeoSet<O: ByteOrder = LE> { pub straddle_group: U16<O>, pub num_primitives: U16<O>, pub primitive: CmPrimitive<O>, }
}
record! {
    /// CM_GEO_SET_BOUNDS (0x58), CM_PRIMITIVE_BOUNDS (0x5A), TRICOLL_NODES (0x44), 16 bytes,
    /// v29–v37: an integer box with a yaw (as cos / sin × 0x8000).
    pub struct CmBounds<O: ByteOrder = LE> { pub origin: [I16<O>; 3], pub negative_cos: I16<O>, pub extents: [I16<O>; 3], pub positive_sin: I16<O>, }
}
record! {
    /// CM_BRUSHES (0x5C), 32 bytes, v29–v37: a box (6 axial sides) cut by
    /// `num_plane_offsets` more planes. Its sides' properties and texture vectors are
    /// `6 × index + brush_side_offset` onwards; its plane offsets `brush_side_offset` onwards.
    pub struct CmBrush<O: ByteOrder = LE> {
        pub origin: [F32<O>; 3],
        pub num_non_axial_no_discard: u8,
        pub num_plane_offsets: u8,
        pub index: I16<O>,
        pub extents: [F32<O>; 3],
        pub brush_side_offset: I32<O>,
    }
}
record! {
    /// CM_BRUSH_SIDE_PROPERTIES (0x5E), 2 bytes, v29–v37: bits 9–15 flags, 0–8 a
    /// TEXTURE_DATA entry.
    pub struct CmBrushSideProperty<O: ByteOrder = LE> { pub packed: U16<O>, }
}
impl<O: ByteOrder> CmBrushSideProperty<O> {
    pub fn flags(&self) -> u16 {
        self.packed.get() >> 9
    }
    pub fn texture_data(&self) -> u16 {
        self.packed.get() & 0x1FF
    }
}
record! {
    /// CM_BRUSH_SIDE_TEXTURE_VECTORS (0x5F), 32 bytes, v29–v37: S and T axes with offsets.
    pub struct CmBrushSideTextureVector<O: ByteOrder = LE> { pub s: [F32<O>; 4], pub t: [F32<O>; 4], }
}
record! {
    /// TRICOLL_TRIANGLES (0x42) lump version 2, 4 bytes, v29–v37: bits 24–31 flags, 17–23 C,
    /// 10–16 B, 0–9 A; the corners are `A`, `A + B`, `A + C` from the header's first vertex.
    pub struct TricollTriangle<O: ByteOrder = LE> { pub packed: U32<O>, }
}
impl<O: ByteOrder> TricollTriangle<O> {
    pub fn a(&self) -> u32 {
        self.packed.get() & 0x3FF
    }
    pub fn b(&self) -> u32 {
        (self.packed.get() >> 10) & 0x7F
    }
    pub fn c(&self) -> u32 {
        (self.packed.get() >> 17) & 0x7F
    }
    pub fn flags(&self) -> u32 {
        self.packed.get() >> 24
    }
}
record! {
    /// TRICOLL_HEADERS (0x45) lump version 1, 44 bytes, v29–v37: a triangle-collision mesh.
    pub struct TricollHeader<O: ByteOrder = LE> {
        pub flags: I16<O>,
        pub texture_flags: I16<O>,
        pub texture_data: I16<O>,
        pub num_vertices: I16<O>,
        pub num_triangles: I16<O>,
        pub num_bevel_indices: I16<O>,
        pub first_vertex: I32<O>,
        pub first_triangle: I32<O>,
        pub first_node: I32<O>,
        pub first_bevel_index: I32<O>,
        pub origin: [F32<O>; 3],
        pub scale: F32<O>,
    }
}
impl<O: ByteOrder> TricollHeader<O> {
    /// TRICOLL_NODES used, derived from the triangle count (bsp_tool's formula).
    pub fn num_nodes(&self) -> i64 {
        let t = self.num_triangles.get() as i64;
        2 * (t - (t + 3).rem_euclid(6) + 3) / 3
    }
}

// ---------------------------------------------------------------------------------------------
// Apex Legends (v47–v52) layouts.

record! {
    /// TEXTURE_DATA, 16 bytes, v47+: `name_index` is a byte offset into SURFACE_NAMES.
    pub struct TextureDataR5<O: ByteOrder = LE> { pub name_index: I32<O>, pub size: [I32<O>; 2], pub flags: I32<O>, }
}
record! {
    /// MODELS, 64 bytes, v47+: [`ModelR1`] plus the model's BVH collision tree.
    pub struct ModelR5<O: ByteOrder = LE> {
        pub mins: [F32<O>; 3],
        pub maxs: [F32<O>; 3],
        pub first_mesh: U32<O>,
        pub num_meshes: U32<O>,
        pub bvh_node: I32<O>,
        pub bvh_leaf: I32<O>,
        pub first_vertex: I32<O>,
        pub vertex_flags: I32<O>,
        pub packed_vertex_offset: [F32<O>; 3],
        pub node_scale: F32<O>,
    }
}
record! {
    /// MESHES, 28 bytes, v47+: the vertex range and lighting fields became 8 unknown words.
    pub struct MeshR5<O: ByteOrder = LE> {
        pub first_mesh_index: U32<O>,
        pub num_triangles: U16<O>,
        pub unknown: [I16<O>; 8],
        pub material_sort: U16<O>,
        pub flags: U32<O>,
    }
}
record! {
    /// MATERIAL_SORTS, 12 bytes, v47+: no cubemap; two unknown words.
    pub struct MaterialSortR5<O: ByteOrder = LE> { pub texture_data: I16<O>, pub lightmap_header: I16<O>, pub unknown: [I16<O>; 2], pub vertex_offset: U32<O>, }
}
record! {
    /// VERTEX_UNLIT, 20 bytes, v47+: the colour became an unknown word.
    pub struct VertexUnlitR5<O: ByteOrder = LE> { pub position_index: U32<O>, pub normal_index: U32<O>, pub albedo_uv: [F32<O>; 2], pub unknown: I32<O>, }
}
/// VERTEX_LIT_FLAT, 20 bytes, v47+: the same layout as [`VertexUnlitR5`].
pub type VertexLitFlatR5<O = LE> = VertexUnlitR5<O>;
record! {
    /// VERTEX_LIT_BUMP, 32 bytes, v47+.
    pub struct VertexLitBumpR5<O: ByteOrder = LE> {
        pub position_index: U32<O>,
        pub normal_index: U32<O>,
        pub albedo_uv: [F32<O>; 2],
        pub negative_one: I32<O>,
        pub lightmap_uv: [F32<O>; 2],
        pub colour: [u8; 4],
    }
}
record! {
    /// VERTEX_UNLIT_TS, 24 bytes, v47+.
    pub struct VertexUnlitTsR5<O: ByteOrder = LE> { pub position_index: U32<O>, pub normal_index: U32<O>, pub albedo_uv: [F32<O>; 2], pub unknown: [I32<O>; 2], }
}
record! {
    /// VERTEX_BLINN_PHONG, 24 bytes, v47+.
    pub struct VertexBlinnPhongR5<O: ByteOrder = LE> { pub position_index: U32<O>, pub normal_index: U32<O>, pub albedo_uv: [F32<O>; 2], pub lightmap_uv: [F32<O>; 2], }
}
record! {
    /// CELL_AABB_NODES and CSM_AABB_NODES, 32 bytes, v47+: bounds and two packed words. For
    /// cell nodes `children` is bits 0–7 count, 8–23 first, 24–31 flags, and `obj_refs` the same
    /// split over OBJ_REFERENCES (count, first, flags); CSM nodes put the flags on top (v47–49)
    /// or drop them for a 24-bit first child (v50+). The cell order is measured on a real map
    /// (docs/real-maps.md, Apex `mp_lobby`): the top bytes are 0 on all 1,081 nodes, and read
    /// with the count in the low byte every node but 11 roots is one node's child exactly once
    /// and the object-reference runs end exactly at OBJ_REFERENCES' 795 entries.
    pub struct AabbNodeR5<O: ByteOrder = LE> { pub mins: [F32<O>; 3], pub children: U32<O>, pub maxs: [F32<O>; 3], pub obj_refs: U32<O>, }
}
record! {
    /// LEVEL_INFO, 36 bytes (one record), v47+: the static prop count, the sun direction and
    /// the model count the `.ent` headers give (`ENTITIES02 model_count=N`).
    pub struct LevelInfoR5<O: ByteOrder = LE> { pub unknown: [U32<O>; 4], pub num_static_props: U32<O>, pub sun_normal: [F32<O>; 3], pub num_entity_models: U32<O>, }
}
record! {
    /// SURFACE_PROPERTIES (0x11), 8 bytes, v47+: a CONTENTS_MASKS entry and a SURFACE_NAMES
    /// byte offset.
    pub struct SurfaceProperty<O: ByteOrder = LE> { pub unknown_1: I16<O>, pub unknown_2: i8, pub contents_mask: i8, pub surface_name: I32<O>, }
}
record! {
    /// BVH_NODES (0x12), 64 bytes, v47+: a 4-wide BVH node (integer child bounds, then four
    /// words of 24-bit child indices with contents / child types on top).
    pub struct BvhNode<O: ByteOrder = LE> { pub x: [I16<O>; 8], pub y: [I16<O>; 8], pub z: [I16<O>; 8], pub index: [U32<O>; 4], }
}
record! {
    /// PACKED_VERTICES (0x14), 6 bytes, v47+: a position relative to the model's offset.
    pub struct PackedVertex<O: ByteOrder = LE> { pub xyz: [I16<O>; 3], }
}
record! {
    /// HEIGHTFIELDS (0x15), 40 bytes, v47+ (not interpreted).
    pub struct HeightField<O: ByteOrder = LE> { pub unknown: [U32<O>; 10], }
}
record! {
    /// WATER_BODIES (0x2C), 80 bytes, v47+: runs of WATER_BODY_CENTERS, _VERTICES, _INDICES.
    pub struct WaterBody<O: ByteOrder = LE> {
        pub origin: [F32<O>; 3],
        pub height: F32<O>,
        pub mins: [F32<O>; 3],
        pub maxs: [F32<O>; 3],
        pub first_center: U32<O>,
        pub num_centers: U32<O>,
        pub first_vertex: U32<O>,
        pub first_index: U32<O>,
        pub num_vertices: U32<O>,
        pub num_indices: U32<O>,
        pub targetname_hash: U64<O>,
        pub uv_scale: F32<O>,
        pub node_size: F32<O>,
    }
}
record! {
    /// WATER_BODY_CENTERS (0x2D) and WATER_BODY_VERTICES (0x2E), 24 bytes, v47+.
    pub struct WaterBodyVertex<O: ByteOrder = LE> { pub position: [F32<O>; 3], pub uv: [F32<O>; 2], pub colour: [u8; 4], }
}

// ---------------------------------------------------------------------------------------------
// Static props (game lump `sprp`, facts §1.4, §1.8).

record! {
    /// A static prop of `sprp` version 12, 84 bytes (Titanfall, v29): Source's v10 fields
    /// with a CUBEMAPS index, a uniform scale and collision flags to add / remove.
    pub struct StaticPropR1<O: ByteOrder = LE> {
        pub origin: [F32<O>; 3],
        pub angles: [F32<O>; 3],
        pub model: U16<O>,
        pub first_leaf: U16<O>,
        pub num_leaves: U16<O>,
        pub solid: u8,
        pub flags: u8,
        pub skin: I16<O>,
        pub cubemap: I16<O>,
        pub fade_min: F32<O>,
        pub fade_max: F32<O>,
        pub lighting_origin: [F32<O>; 3],
        pub forced_fade_scale: F32<O>,
        pub cpu_level: [i8; 2],
        pub gpu_level: [i8; 2],
        pub diffuse_modulation: [u8; 4],
        pub disable_x360: I32<O>,
        pub scale: F32<O>,
        pub collision_flags: [U32<O>; 2],
    }
}
record! {
    /// A static prop of `sprp` version 13 (Titanfall 2) and 47–52 (Apex), 64 bytes: no leaf
    /// range and no fade distances; the scale moved after the angles.
    pub struct StaticPropR2<O: ByteOrder = LE> {
        pub origin: [F32<O>; 3],
        pub angles: [F32<O>; 3],
        pub scale: F32<O>,
        pub model: U16<O>,
        pub solid: u8,
        pub flags: u8,
        pub skin: U16<O>,
        pub cubemap: U16<O>,
        pub forced_fade_scale: F32<O>,
        pub lighting_origin: [F32<O>; 3],
        pub cpu_level: [i8; 2],
        pub gpu_level: [i8; 2],
        pub diffuse_modulation: [u8; 4],
        pub collision_flags: [U16<O>; 2],
    }
}
record! {
    /// The 64-byte records after the props of `sprp` v13+ (not interpreted; absent in small
    /// maps).
    pub struct StaticPropExtra<O: ByteOrder = LE> { pub unknown_1: [F32<O>; 12], pub unknown_2: [I32<O>; 4], }
}

// ---------------------------------------------------------------------------------------------
// Common accessors the views and the exporter use.

/// The vertex lump a mesh draws from: `flags & 0x600` (facts §1.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VertexKind {
    LitFlat,
    LitBump,
    Unlit,
    UnlitTs,
}

impl VertexKind {
    /// Mesh flag mask selecting the vertex lump.
    pub const MASK: u32 = 0x600;
    pub fn from_flags(flags: u32) -> Self {
        match flags & Self::MASK {
            0x000 => VertexKind::LitFlat,
            0x200 => VertexKind::LitBump,
            0x400 => VertexKind::Unlit,
            _ => VertexKind::UnlitTs,
        }
    }
    /// Its key in the scene model, the glTF extras and JSON (`lit_flat`, `lit_bump`, `unlit`,
    /// `unlit_ts`, as serde writes it).
    pub fn key(self) -> &'static str {
        match self {
            VertexKind::LitFlat => "lit_flat",
            VertexKind::LitBump => "lit_bump",
            VertexKind::Unlit => "unlit",
            VertexKind::UnlitTs => "unlit_ts",
        }
    }
    /// The lump holding this kind of vertex.
    pub fn lump(self) -> usize {
        match self {
            VertexKind::Unlit => super::lumps::LUMP_VERTEX_UNLIT,
            VertexKind::LitFlat => super::lumps::LUMP_VERTEX_LIT_FLAT,
            VertexKind::LitBump => super::lumps::LUMP_VERTEX_LIT_BUMP,
            VertexKind::UnlitTs => super::lumps::LUMP_VERTEX_UNLIT_TS,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            VertexKind::LitFlat => "lit flat",
            VertexKind::LitBump => "lit bump",
            VertexKind::Unlit => "unlit",
            VertexKind::UnlitTs => "unlit TS",
        }
    }
}

/// A mesh's fields whatever its layout.
pub trait MeshRecord {
    fn first_mesh_index(&self) -> u32;
    fn num_triangles(&self) -> u32;
    fn material_sort(&self) -> u32;
    fn flags(&self) -> u32;
    fn vertex_kind(&self) -> VertexKind {
        VertexKind::from_flags(self.flags())
    }
}
macro_rules! mesh_record {
    ($($t:ident),*) => {$(
        impl<O: ByteOrder> MeshRecord for $t<O> {
            fn first_mesh_index(&self) -> u32 { self.first_mesh_index.get() }
            fn num_triangles(&self) -> u32 { self.num_triangles.get() as u32 }
            fn material_sort(&self) -> u32 { self.material_sort.get() as u32 }
            fn flags(&self) -> u32 { self.flags.get() }
        }
    )*};
}
mesh_record!(MeshR1, MeshR2, MeshR5);

/// A material sort's fields whatever its layout (−1 = none).
pub trait MaterialSortRecord {
    fn texture_data(&self) -> i64;
    fn lightmap_header(&self) -> i64;
    /// CUBEMAPS entry; `None` where the layout has no such field (Apex).
    fn cubemap(&self) -> Option<i64>;
    fn vertex_offset(&self) -> i64;
}
impl<O: ByteOrder> MaterialSortRecord for MaterialSortR1<O> {
    fn texture_data(&self) -> i64 {
        self.texture_data.get() as i64
    }
    fn lightmap_header(&self) -> i64 {
        self.lightmap_header.get() as i64
    }
    fn cubemap(&self) -> Option<i64> {
        Some(self.cubemap.get() as i64)
    }
    fn vertex_offset(&self) -> i64 {
        self.vertex_offset.get() as i64
    }
}
impl<O: ByteOrder> MaterialSortRecord for MaterialSortR5<O> {
    fn texture_data(&self) -> i64 {
        self.texture_data.get() as i64
    }
    fn lightmap_header(&self) -> i64 {
        self.lightmap_header.get() as i64
    }
    fn cubemap(&self) -> Option<i64> {
        None
    }
    fn vertex_offset(&self) -> i64 {
        self.vertex_offset.get() as i64
    }
}

/// A texture data entry's fields whatever its layout.
pub trait TextureDataRecord {
    /// TEXTURE_DATA_STRING_TABLE entry (v29–v37) or SURFACE_NAMES byte offset (v47+).
    fn name_index(&self) -> i64;
    fn size(&self) -> [i32; 2];
    fn flags(&self) -> u32;
}
macro_rules! texture_data_record {
    ($($t:ident),*) => {$(
        impl<O: ByteOrder> TextureDataRecord for $t<O> {
            fn name_index(&self) -> i64 { self.name_index.get() as i64 }
            fn size(&self) -> [i32; 2] { [self.size[0].get(), self.size[1].get()] }
            fn flags(&self) -> u32 { self.flags.get() as u32 }
        }
    )*};
}
texture_data_record!(TextureDataR1, TextureDataR5);

/// A model's mesh run whatever its layout.
pub trait ModelRecord {
    fn first_mesh(&self) -> u32;
    fn num_meshes(&self) -> u32;
    fn bounds(&self) -> ([f32; 3], [f32; 3]);
}
macro_rules! model_record {
    ($($t:ident),*) => {$(
        impl<O: ByteOrder> ModelRecord for $t<O> {
            fn first_mesh(&self) -> u32 { self.first_mesh.get() }
            fn num_meshes(&self) -> u32 { self.num_meshes.get() }
            fn bounds(&self) -> ([f32; 3], [f32; 3]) { (v3(&self.mins), v3(&self.maxs)) }
        }
    )*};
}
model_record!(ModelR1, ModelR5);

/// One vertex of any kind and version, in host values: what a mesh exporter needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexInfo {
    /// VERTICES entry.
    pub position: u32,
    /// VERTEX_NORMALS entry.
    pub normal: u32,
    pub albedo_uv: [f32; 2],
    /// Lightmap UV, for the kinds that carry one.
    pub lightmap_uv: Option<[f32; 2]>,
    /// RGBA, for the kinds that carry one.
    pub colour: Option<[u8; 4]>,
}

/// A vertex record of any kind.
pub trait VertexRecord {
    fn info(&self) -> VertexInfo;
}
macro_rules! vertex_record {
    ($t:ident, |$v:ident| $lm:expr, $col:expr) => {
        impl<O: ByteOrder> VertexRecord for $t<O> {
            fn info(&self) -> VertexInfo {
                let $v = self;
                VertexInfo {
                    position: $v.position_index.get(),
                    normal: $v.normal_index.get(),
                    albedo_uv: v2(&$v.albedo_uv),
                    lightmap_uv: $lm,
                    colour: $col,
                }
            }
        }
    };
}
vertex_record!(VertexUnlitR1, |v| None, Some(v.colour));
vertex_record!(VertexLitFlatR1, |v| Some(v2(&v.lightmap_uv)), Some(v.colour));
impl<O: ByteOrder> VertexRecord for VertexLitBumpR1<O> {
    fn info(&self) -> VertexInfo {
        self.flat.info()
    }
}
impl<O: ByteOrder> VertexRecord for VertexUnlitTsR1<O> {
    fn info(&self) -> VertexInfo {
        self.unlit.info()
    }
}
vertex_record!(VertexBlinnPhongR1, |v| Some(v2(&v.lightmap_uv)), Some(v.colour));
vertex_record!(VertexUnlitR5, |v| None, None);
vertex_record!(VertexLitBumpR5, |v| Some(v2(&v.lightmap_uv)), Some(v.colour));
vertex_record!(VertexUnlitTsR5, |v| None, None);
vertex_record!(VertexBlinnPhongR5, |v| Some(v2(&v.lightmap_uv)), None);

/// An AABB node's child and object-reference runs, whatever its layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AabbRuns {
    pub first_child: u32,
    pub num_children: u32,
    /// `None` where the layout's object-reference fields are not known (Apex).
    pub obj_refs: Option<(u32, u32)>,
}
impl<O: ByteOrder> AabbNodeR1<O> {
    pub fn runs(&self) -> AabbRuns {
        AabbRuns {
            first_child: self.first_child.get() as u32,
            num_children: self.num_children as u32,
            obj_refs: Some((self.first_obj_ref.get() as u32, self.num_obj_refs as u32)),
        }
    }
}
impl<O: ByteOrder> AabbNodeR5<O> {
    /// A CELL_AABB_NODES entry's runs: count in bits 0–7, first in 8–23 (flags on top), for
    /// both the children and the object references.
    pub fn cell_runs(&self) -> AabbRuns {
        let (c, o) = (self.children.get(), self.obj_refs.get());
        AabbRuns { first_child: (c >> 8) & 0xFFFF, num_children: c & 0xFF, obj_refs: Some(((o >> 8) & 0xFFFF, o & 0xFF)) }
    }
    /// A CSM_AABB_NODES entry's runs: v47–49 flags 8, first 16, count 8 bits; v50+ first 24,
    /// count 8 bits.
    pub fn csm_runs(&self, bsp_version: u32) -> AabbRuns {
        let c = self.children.get();
        if bsp_version >= 50 {
            AabbRuns { first_child: c >> 8, num_children: c & 0xFF, obj_refs: None }
        } else {
            AabbRuns { first_child: (c >> 8) & 0xFFFF, num_children: c & 0xFF, obj_refs: None }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::respawn::lumps::*;
    use std::mem::size_of;

    /// Every record type against the size facts §1.6 gives for its lump, and against the lump
    /// table of each branch that declares it.
    #[test]
    fn record_sizes_match_the_facts_and_the_lump_tables() {
        let sizes: &[(usize, usize)] = &[
            (size_of::<Vec3>(), 12),
            (size_of::<Plane>(), 16),
            (size_of::<Cubemap>(), 16),
            (size_of::<MeshBounds>(), 32),
            (size_of::<LightmapHeader>(), 8),
            (size_of::<ObjRefBounds>(), 32),
            (size_of::<IndexSet>(), 16),
            (size_of::<PortalEdgeIntersectHeader>(), 8),
            (size_of::<CellBspNode>(), 8),
            (size_of::<Cell>(), 8),
            (size_of::<Portal>(), 12),
            (size_of::<ShadowMeshAlphaVertex>(), 20),
            (size_of::<ShadowMesh>(), 12),
            (size_of::<LightProbeTree>(), 8),
            (size_of::<LightProbe>(), 48),
            (size_of::<LightProbeR5v51>(), 44),
            (size_of::<WorldLight>(), 100),
            (size_of::<WorldLightV2>(), 108),
            (size_of::<WorldLightV3>(), 112),
            (size_of::<WorldLightParentInfo>(), 76),
            (size_of::<ShadowEnvironment>(), 36),
            (size_of::<LightProbeParentInfo>(), 28),
            (size_of::<LightProbeBspNode>(), 24),
            (size_of::<LightProbeRef>(), 16),
            (size_of::<LightProbeRefR2>(), 20),
            (size_of::<LightmapPage>(), 126),
            (size_of::<TextureDataR1>(), 36),
            (size_of::<ModelR1>(), 32),
            (size_of::<MeshR1>(), 28),
            (size_of::<MeshR2>(), 28),
            (size_of::<MaterialSortR1>(), 12),
            (size_of::<VertexUnlitR1>(), 20),
            (size_of::<VertexLitFlatR1>(), 36),
            (size_of::<VertexLitBumpR1>(), 44),
            (size_of::<VertexUnlitTsR1>(), 28),
            (size_of::<VertexBlinnPhongR1>(), 92),
            (size_of::<AabbNodeR1>(), 32),
            (size_of::<LevelInfoR1>(), 28),
            (size_of::<LeafWaterData>(), 12),
            (size_of::<CmGrid>(), 28),
            (size_of::<CmGridCell>(), 4),
            (size_of::<CmPrimitive>(), 4),
            (size_of::<CmGeoSet>(), 8),
            (size_of::<CmBounds>(), 16),
            (size_of::<CmBrush>(), 32),
            (size_of::<CmBrushSideProperty>(), 2),
            (size_of::<CmBrushSideTextureVector>(), 32),
            (size_of::<TricollTriangle>(), 4),
            (size_of::<TricollHeader>(), 44),
            (size_of::<TextureDataR5>(), 16),
            (size_of::<ModelR5>(), 64),
            (size_of::<MeshR5>(), 28),
            (size_of::<MaterialSortR5>(), 12),
            (size_of::<VertexUnlitR5>(), 20),
            (size_of::<VertexLitFlatR5>(), 20),
            (size_of::<VertexLitBumpR5>(), 32),
            (size_of::<VertexUnlitTsR5>(), 24),
            (size_of::<VertexBlinnPhongR5>(), 24),
            (size_of::<AabbNodeR5>(), 32),
            (size_of::<LevelInfoR5>(), 36),
            (size_of::<SurfaceProperty>(), 8),
            (size_of::<BvhNode>(), 64),
            (size_of::<PackedVertex>(), 6),
            (size_of::<HeightField>(), 40),
            (size_of::<WaterBody>(), 80),
            (size_of::<WaterBodyVertex>(), 24),
            (size_of::<StaticPropR1>(), 84),
            (size_of::<StaticPropR2>(), 64),
            (size_of::<StaticPropExtra>(), 64),
        ];
        for (i, (got, want)) in sizes.iter().enumerate() {
            assert_eq!(got, want, "entry {i}");
        }
        // The lump tables declare the size of the record each version reads.
        let r1: &[(usize, usize)] = &[
            (LUMP_TEXTURE_DATA, size_of::<TextureDataR1>()),
            (LUMP_MODELS, size_of::<ModelR1>()),
            (LUMP_MESHES, size_of::<MeshR1>()),
            (LUMP_MATERIAL_SORTS, size_of::<MaterialSortR1>()),
            (LUMP_VERTEX_UNLIT, size_of::<VertexUnlitR1>()),
            (LUMP_VERTEX_LIT_FLAT, size_of::<VertexLitFlatR1>()),
            (LUMP_VERTEX_LIT_BUMP, size_of::<VertexLitBumpR1>()),
            (LUMP_VERTEX_UNLIT_TS, size_of::<VertexUnlitTsR1>()),
            (LUMP_VERTEX_BLINN_PHONG, size_of::<VertexBlinnPhongR1>()),
            (LUMP_CELL_AABB_NODES, size_of::<AabbNodeR1>()),
            (LUMP_LEVEL_INFO, size_of::<LevelInfoR1>()),
            (LUMP_LEAF_WATER_DATA, size_of::<LeafWaterData>()),
            (LUMP_CM_GRID, size_of::<CmGrid>()),
            (LUMP_CM_BRUSHES, size_of::<CmBrush>()),
            (LUMP_TRICOLL_HEADERS, size_of::<TricollHeader>()),
            (LUMP_WORLD_LIGHTS, size_of::<WorldLight>()),
        ];
        for &(lump, size) in r1 {
            assert_eq!(TITANFALL.lumps[lump].record_size(1), Some(size), "titanfall {lump:#x}");
            if lump != LUMP_WORLD_LIGHTS {
                assert_eq!(TITANFALL2.lumps[lump].record_size(0), Some(size), "titanfall2 {lump:#x}");
            }
        }
        assert_eq!(TITANFALL.lumps[LUMP_LIGHTPROBE_REFERENCES].record_size(0), Some(size_of::<LightProbeRef>()));
        assert_eq!(TITANFALL2.lumps[LUMP_LIGHTPROBE_REFERENCES].record_size(0), Some(size_of::<LightProbeRefR2>()));
        for (v, size) in [(1, size_of::<WorldLight>()), (2, size_of::<WorldLightV2>()), (3, size_of::<WorldLightV3>())] {
            assert_eq!(TITANFALL2.lumps[LUMP_WORLD_LIGHTS].record_size(v), Some(size));
        }
        let r5: &[(usize, usize)] = &[
            (LUMP_TEXTURE_DATA, size_of::<TextureDataR5>()),
            (LUMP_MODELS, size_of::<ModelR5>()),
            (LUMP_MESHES, size_of::<MeshR5>()),
            (LUMP_MATERIAL_SORTS, size_of::<MaterialSortR5>()),
            (LUMP_VERTEX_UNLIT, size_of::<VertexUnlitR5>()),
            (LUMP_VERTEX_LIT_FLAT, size_of::<VertexLitFlatR5>()),
            (LUMP_VERTEX_LIT_BUMP, size_of::<VertexLitBumpR5>()),
            (LUMP_VERTEX_UNLIT_TS, size_of::<VertexUnlitTsR5>()),
            (LUMP_VERTEX_BLINN_PHONG, size_of::<VertexBlinnPhongR5>()),
            (LUMP_CELL_AABB_NODES, size_of::<AabbNodeR5>()),
            (LUMP_LEVEL_INFO, size_of::<LevelInfoR5>()),
            (LUMP_WORLD_LIGHTS, size_of::<WorldLightV3>()),
            (LUMP_SURFACE_PROPERTIES, size_of::<SurfaceProperty>()),
            (LUMP_BVH_NODES, size_of::<BvhNode>()),
            (LUMP_PACKED_VERTICES, size_of::<PackedVertex>()),
            (LUMP_WATER_BODIES, size_of::<WaterBody>()),
            (LUMP_WATER_BODY_VERTICES, size_of::<WaterBodyVertex>()),
        ];
        for &(lump, size) in r5 {
            assert_eq!(APEX.lumps[lump].record_size(0), Some(size), "apex {lump:#x}");
        }
    }

    #[test]
    fn bit_fields_read_most_significant_field_first() {
        use zerocopy::IntoBytes;
        let p = CmPrimitive::<LE> { packed: U32::new(0x4012_3407) };
        assert_eq!((p.kind(), p.index(), p.unique_contents()), (PRIMITIVE_TRICOLL, 0x1234, 7));
        // The same word stored big-endian (Xbox 360) reads the same fields.
        let p = CmPrimitive::<zerocopy::BigEndian> { packed: U32::new(0x4012_3407) };
        assert_eq!(p.as_bytes()[0], 0x40);
        assert_eq!((p.kind(), p.index(), p.unique_contents()), (PRIMITIVE_TRICOLL, 0x1234, 7));
        let s = CmBrushSideProperty::<LE> { packed: U16::new(0x20 << 9 | 0x105) };
        assert_eq!((s.flags(), s.texture_data()), (0x20, 0x105));
        let t = TricollTriangle::<LE> { packed: U32::new(3 << 24 | 5 << 17 | 6 << 10 | 1000) };
        assert_eq!((t.a(), t.b(), t.c(), t.flags()), (1000, 6, 5, 3));
        assert_eq!(VertexKind::from_flags(0x200 | 0x10), VertexKind::LitBump);
        assert_eq!(VertexKind::from_flags(0x600).lump(), LUMP_VERTEX_UNLIT_TS);
        // Words as a real Apex map stores them (mp_lobby's node 1: 0x2a902, two children from 681).
        let n = AabbNodeR5::<LE> {
            mins: [F32::ZERO; 3],
            children: U32::new(0x4002_a902),
            maxs: [F32::ZERO; 3],
            obj_refs: U32::new(0x4000_0501),
        };
        assert_eq!(n.cell_runs(), AabbRuns { first_child: 0x2a9, num_children: 2, obj_refs: Some((5, 1)) });
        assert_eq!(n.csm_runs(50).first_child, 0x0040_02a9);
    }
}
