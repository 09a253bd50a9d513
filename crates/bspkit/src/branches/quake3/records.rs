//! Quake 3-family record types (quake_family.md A.2–A.9; quake_facts.md §5) and the [`Layout`]
//! markers that pick IBSP, RBSP or FBSP records.

use zerocopy::byteorder::{F32, I16, I32, U16};
use zerocopy::{FromBytes, Immutable, KnownLayout, LittleEndian as LE};

use crate::branches::quake2::records::record;

record! {
    /// `dshader_t`, 72 bytes (quake_family.md A.4 "texture").
    pub struct Shader { pub name: [u8; 64], pub surface_flags: I32<LE>, pub content_flags: I32<LE>, }
}
impl Shader {
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.name)
    }
}
record! {
    /// `dplane_t`, 16 bytes; planes `i` and `i ^ 1` are opposites.
    pub struct Plane { pub normal: [F32<LE>; 3], pub dist: F32<LE>, }
}
record! {
    /// `dnode_t`, 36 bytes; a negative child is leaf `-(child + 1)`.
    pub struct Node { pub plane: I32<LE>, pub children: [I32<LE>; 2], pub mins: [I32<LE>; 3], pub maxs: [I32<LE>; 3], }
}
record! {
    /// `dleaf_t`, 48 bytes; cluster < 0 = outside the map.
    pub struct Leaf {
        pub cluster: I32<LE>,
        pub area: I32<LE>,
        pub mins: [I32<LE>; 3],
        pub maxs: [I32<LE>; 3],
        pub first_leaf_surface: I32<LE>,
        pub num_leaf_surfaces: I32<LE>,
        pub first_leaf_brush: I32<LE>,
        pub num_leaf_brushes: I32<LE>,
    }
}
record! {
    /// `dmodel_t`, 40 bytes; model 0 is the world.
    pub struct Model {
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub first_surface: I32<LE>,
        pub num_surfaces: I32<LE>,
        pub first_brush: I32<LE>,
        pub num_brushes: I32<LE>,
    }
}
record! {
    /// `dbrush_t`, 12 bytes.
    pub struct Brush { pub first_side: I32<LE>, pub num_sides: I32<LE>, pub shader: I32<LE>, }
}
record! {
    /// `dbrushside_t`, 8 bytes (IBSP).
    pub struct BrushSide { pub plane: I32<LE>, pub shader: I32<LE>, }
}
record! {
    /// RBSP / FBSP brush side, 12 bytes: adds the surface made from it (−1 = none).
    pub struct BrushSideRbsp { pub plane: I32<LE>, pub shader: I32<LE>, pub surface: I32<LE>, }
}
record! {
    /// `drawVert_t`, 44 bytes.
    pub struct DrawVert {
        pub xyz: [F32<LE>; 3],
        pub st: [F32<LE>; 2],
        pub lightmap: [F32<LE>; 2],
        pub normal: [F32<LE>; 3],
        pub color: [u8; 4],
    }
}
record! {
    /// RBSP / FBSP draw vertex, 80 bytes: a lightmap coordinate and colour per light style.
    pub struct DrawVertRbsp {
        pub xyz: [F32<LE>; 3],
        pub st: [F32<LE>; 2],
        pub lightmap: [[F32<LE>; 2]; 4],
        pub normal: [F32<LE>; 3],
        pub color: [[u8; 4]; 4],
    }
}
/// A draw index ("meshvert"), relative to the surface's first vertex.
pub type DrawIndex = I32<LE>;
/// Leaf-surface / leaf-brush index.
pub type LeafIndex = I32<LE>;
record! {
    /// `dfog_t`, 72 bytes (quake_family.md A.4 "effect").
    pub struct Fog { pub shader: [u8; 64], pub brush: I32<LE>, pub visible_side: I32<LE>, }
}
record! {
    /// `dsurface_t`, 104 bytes (quake_family.md A.4 "face").
    pub struct Surface {
        pub shader: I32<LE>,
        pub fog: I32<LE>,
        pub surface_type: I32<LE>,
        pub first_vert: I32<LE>,
        pub num_verts: I32<LE>,
        pub first_index: I32<LE>,
        pub num_indexes: I32<LE>,
        pub lightmap_num: I32<LE>,
        pub lightmap_x: I32<LE>,
        pub lightmap_y: I32<LE>,
        pub lightmap_width: I32<LE>,
        pub lightmap_height: I32<LE>,
        pub lightmap_origin: [F32<LE>; 3],
        /// s and t lightmap vectors, then the surface normal.
        pub lightmap_vecs: [[F32<LE>; 3]; 3],
        pub patch_width: I32<LE>,
        pub patch_height: I32<LE>,
    }
}
record! {
    /// RBSP / FBSP surface, 148 bytes (quake_facts.md §5.2): four light styles.
    pub struct SurfaceRbsp {
        pub shader: I32<LE>,
        pub fog: I32<LE>,
        pub surface_type: I32<LE>,
        pub first_vert: I32<LE>,
        pub num_verts: I32<LE>,
        pub first_index: I32<LE>,
        pub num_indexes: I32<LE>,
        pub lightmap_styles: [u8; 4],
        pub vertex_styles: [u8; 4],
        pub lightmap_num: [I32<LE>; 4],
        pub lightmap_x: [I32<LE>; 4],
        pub lightmap_y: [I32<LE>; 4],
        pub lightmap_width: I32<LE>,
        pub lightmap_height: I32<LE>,
        pub lightmap_origin: [F32<LE>; 3],
        pub lightmap_vecs: [[F32<LE>; 3]; 3],
        pub patch_width: I32<LE>,
        pub patch_height: I32<LE>,
    }
}
/// A 128 × 128 RGB lightmap page.
pub type Lightmap = [u8; 128 * 128 * 3];
/// qfusion's 512 × 512 RGB lightmap page (quake_facts.md §5.3).
pub type LightmapFbsp = [u8; 512 * 512 * 3];
record! {
    /// Light-grid point, 8 bytes (quake_family.md A.4 "lightvol").
    pub struct LightGrid { pub ambient: [u8; 3], pub directed: [u8; 3], pub lat_long: [u8; 2], }
}
record! {
    /// RBSP / FBSP grid point, 30 bytes: colours per light style.
    pub struct LightGridRbsp {
        pub ambient: [[u8; 3]; 4],
        pub directed: [[u8; 3]; 4],
        pub styles: [u8; 4],
        pub lat_long: [u8; 2],
    }
}
record! {
    /// Quake Live advertisement surface, 128 bytes (quake_facts.md §5.1): the cell id the game
    /// fills, the surface normal, its four corners and the model it belongs to.
    pub struct Advertisement {
        pub cell_id: I32<LE>,
        pub normal: [F32<LE>; 3],
        pub rect: [[F32<LE>; 3]; 4],
        pub model: [u8; 64],
    }
}
impl Advertisement {
    pub fn model(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.model)
    }
}
/// RBSP / FBSP light array: per grid cell, the index of its point in the light grid.
pub type LightArrayIndex = U16<LE>;

// Ritual's Quake 3 descendants (F.A.K.K.2 / Alice: the FAKK2 SDK's `qfiles.h`; Medal of Honor:
// OpenMoHAA's `code/qcommon/qfiles.h`). Declared once each with `declare_record!`.
crate::schema::types::declare_record! {
    /// F.A.K.K.2 / Alice `dshader_t`, 76 bytes: Quake 3's shader and the patch `subdivisions`.
    pub struct ShaderFakk { pub q3: Shader, pub subdivisions: I32<LE> }
    /// Medal of Honor `dshader_t`, 140 bytes: adds `subdivisions` and the fence-mask image name.
    pub struct ShaderMohaa { pub q3: Shader, pub subdivisions: I32<LE>, pub fence_mask_image: [u8; 64] }
    /// Medal of Honor `dleaf_t`, 64 bytes (BSP version 19 and later): Quake 3's leaf, then its
    /// terrain patches and static models.
    pub struct LeafMohaa {
        pub q3: Leaf,
        pub first_terrain_patch: I32<LE>,
        pub num_terrain_patches: I32<LE>,
        pub first_static_model: I32<LE>,
        pub num_static_models: I32<LE>
    }
    /// Medal of Honor `dleaf_t_ver17`, 56 bytes (BSP versions 17 and 18: the demo): no static models.
    pub struct LeafMohaaOld { pub q3: Leaf, pub first_terrain_patch: I32<LE>, pub num_terrain_patches: I32<LE> }
    /// Ritual `dsurface_t`, 108 bytes: Quake 3's surface and the patch `subdivisions` (a float).
    pub struct SurfaceRitual {
        pub shader: I32<LE>,
        pub fog: I32<LE>,
        pub surface_type: I32<LE>,
        pub first_vert: I32<LE>,
        pub num_verts: I32<LE>,
        pub first_index: I32<LE>,
        pub num_indexes: I32<LE>,
        pub lightmap_num: I32<LE>,
        pub lightmap_x: I32<LE>,
        pub lightmap_y: I32<LE>,
        pub lightmap_width: I32<LE>,
        pub lightmap_height: I32<LE>,
        pub lightmap_origin: [F32<LE>; 3],
        pub lightmap_vecs: [[F32<LE>; 3]; 3],
        pub patch_width: I32<LE>,
        pub patch_height: I32<LE>,
        pub subdivisions: F32<LE>
    }
    /// Medal of Honor `dbrushside_t`, 12 bytes: adds the side equation (an index into
    /// SIDE_EQUATIONS, used for fence-mask texture projection by the collision code).
    pub struct BrushSideMohaa { pub plane: I32<LE>, pub shader: I32<LE>, pub equation: I32<LE> }
    /// Medal of Honor `dsideequation_t`, 32 bytes: s and t texture-projection planes.
    pub struct SideEquation { pub s: [F32<LE>; 4], pub t: [F32<LE>; 4] }
    /// Ritual `dlightdef_t`, 52 bytes: per-shader light-emission settings for the light compiler.
    pub struct LightDef {
        pub light_intensity: I32<LE>,
        pub light_angle: I32<LE>,
        pub lightmap_resolution: I32<LE>,
        pub two_sided: I32<LE>,
        pub light_linear: I32<LE>,
        pub light_color: [F32<LE>; 3],
        pub light_falloff: F32<LE>,
        pub backsplash_fraction: F32<LE>,
        pub backsplash_distance: F32<LE>,
        pub light_subdivide: F32<LE>,
        pub autosprite: I32<LE>
    }
    /// Ritual `mapspherel_t` / Medal of Honor `dspherel_t`, 56 bytes: a point or spot light
    /// that lights entities, in leaf `leaf`.
    pub struct SphereLight {
        pub origin: [F32<LE>; 3],
        pub color: [F32<LE>; 3],
        pub intensity: F32<LE>,
        pub leaf: I32<LE>,
        pub needs_trace: I32<LE>,
        pub spot_light: I32<LE>,
        pub spot_dir: [F32<LE>; 3],
        pub spot_radius_by_distance: F32<LE>
    }
    /// Medal of Honor `dterPatch_t`, 388 bytes: a 9 × 9 height-map terrain patch (the C
    /// struct's 3 bytes of tail padding are `pad`).
    pub struct TerrainPatch {
        pub flags: u8,
        pub scale: u8,
        pub lightmap_coords: [u8; 2],
        pub tex_coords: [F32<LE>; 8],
        pub x: i8,
        pub y: i8,
        pub base_z: I16<LE>,
        pub shader: U16<LE>,
        pub lightmap: I16<LE>,
        pub dummy: [I16<LE>; 4],
        pub vert_flags: [[I16<LE>; 63]; 2],
        pub heightmap: [[u8; 9]; 9],
        pub pad: [u8; 3]
    }
    /// Medal of Honor `dstaticModel_t`, 164 bytes: a placed TIKI model and its run of per-vertex
    /// colours in STATIC_MODEL_DATA (the C struct's 2 bytes of tail padding are `pad`).
    pub struct StaticModel {
        pub model: [u8; 128],
        pub origin: [F32<LE>; 3],
        pub angles: [F32<LE>; 3],
        pub scale: F32<LE>,
        pub first_vertex_data: I32<LE>,
        pub num_vertex_data: I16<LE>,
        pub pad: [u8; 2]
    }
}
/// Medal of Honor's `short` lists: terrain-patch and static-model indexes per leaf, light-grid offsets.
pub type RitualIndex = I16<LE>;
/// A static-model vertex colour (RGB; STATIC_MODEL_DATA).
pub type StaticModelColour = [u8; 3];

crate::schema::types::declare_record! {
    /// Elite Force II `dbrush_t`, 12 bytes: Quake 3's fields with the side count first
    /// (Spearmint `code/qcommon/bsp_ef2.c`, an open reimplementation's loader).
    pub struct BrushEf2 { pub num_sides: I32<LE>, pub first_side: I32<LE>, pub shader: I32<LE> }
    /// Elite Force II `dleaf_t`, 48 bytes: the leaf-surface count before its first index (the
    /// game's `qfiles.h`, UberGames/EF2GameSource; Spearmint's loader reads Quake 3's order).
    pub struct LeafEf2 {
        pub cluster: I32<LE>,
        pub area: I32<LE>,
        pub mins: [I32<LE>; 3],
        pub maxs: [I32<LE>; 3],
        pub num_leaf_surfaces: I32<LE>,
        pub first_leaf_surface: I32<LE>,
        pub first_leaf_brush: I32<LE>,
        pub num_leaf_brushes: I32<LE>
    }
    /// Elite Force II `dbrushside_t`, 8 bytes: the shader before the plane.
    pub struct BrushSideEf2 { pub shader: I32<LE>, pub plane: I32<LE> }
    /// Elite Force II `drawVert_t`, 48 bytes: the normal and colour before a LOD value and the
    /// lightmap coordinate (a collapse-map index in triangle soups with LOD).
    pub struct DrawVertEf2 {
        pub xyz: [F32<LE>; 3],
        pub st: [F32<LE>; 2],
        pub normal: [F32<LE>; 3],
        pub color: [u8; 4],
        pub lod_extra: F32<LE>,
        pub lightmap: [F32<LE>; 2]
    }
    /// Elite Force II `dsurface_t`, 132 bytes: Ritual's surface, then its base lighting surface
    /// and the terrain fields.
    pub struct SurfaceEf2 {
        pub shader: I32<LE>,
        pub fog: I32<LE>,
        pub surface_type: I32<LE>,
        pub first_vert: I32<LE>,
        pub num_verts: I32<LE>,
        pub first_index: I32<LE>,
        pub num_indexes: I32<LE>,
        pub lightmap_num: I32<LE>,
        pub lightmap_x: I32<LE>,
        pub lightmap_y: I32<LE>,
        pub lightmap_width: I32<LE>,
        pub lightmap_height: I32<LE>,
        pub lightmap_origin: [F32<LE>; 3],
        pub lightmap_vecs: [[F32<LE>; 3]; 3],
        pub patch_width: I32<LE>,
        pub patch_height: I32<LE>,
        pub subdivisions: F32<LE>,
        pub base_lighting_surface: I32<LE>,
        pub inverted: I32<LE>,
        pub face_flags: [I32<LE>; 4]
    }
}

/// A brush's side run and shader, whatever the field order.
pub trait BrushRecord {
    fn first_side(&self) -> i64;
    fn num_sides(&self) -> i64;
    fn shader(&self) -> i64;
}
/// Brush records whose fields carry the Quake 3 names, whatever their order.
macro_rules! brush_by_name {
    ($($t:ty),*) => {$(
        impl BrushRecord for $t {
            fn first_side(&self) -> i64 {
                self.first_side.get() as i64
            }
            fn num_sides(&self) -> i64 {
                self.num_sides.get() as i64
            }
            fn shader(&self) -> i64 {
                self.shader.get() as i64
            }
        }
    )*};
}
brush_by_name!(Brush, BrushEf2);
impl BrushSideRecord for BrushSideEf2 {
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn shader(&self) -> i64 {
        self.shader.get() as i64
    }
    fn surface(&self) -> Option<i64> {
        None
    }
}

impl StaticModel {
    pub fn model(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.model)
    }
}
impl ShaderMohaa {
    pub fn fence_mask_image(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.fence_mask_image)
    }
}

/// The Quake 3 shader fields every shader record starts with.
pub trait ShaderRecord {
    fn q3(&self) -> &Shader;
    /// The shader name.
    fn name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.q3().name)
    }
}
impl ShaderRecord for Shader {
    fn q3(&self) -> &Shader {
        self
    }
}
impl ShaderRecord for ShaderFakk {
    fn q3(&self) -> &Shader {
        &self.q3
    }
}
impl ShaderRecord for ShaderMohaa {
    fn q3(&self) -> &Shader {
        &self.q3
    }
}
/// A leaf's cluster and its leaf-surface and leaf-brush runs, whatever the field order.
pub trait LeafRecord {
    fn cluster(&self) -> i64;
    /// `(first, count)` of its LEAF_FACES run.
    fn leaf_surfaces(&self) -> (i64, i64);
    /// `(first, count)` of its LEAF_BRUSHES run.
    fn leaf_brushes(&self) -> (i64, i64);
}
/// Leaf records whose fields carry the Quake 3 names, whatever their order.
macro_rules! leaf_by_name {
    ($($t:ty),*) => {$(
        impl LeafRecord for $t {
            fn cluster(&self) -> i64 {
                self.cluster.get() as i64
            }
            fn leaf_surfaces(&self) -> (i64, i64) {
                (self.first_leaf_surface.get() as i64, self.num_leaf_surfaces.get() as i64)
            }
            fn leaf_brushes(&self) -> (i64, i64) {
                (self.first_leaf_brush.get() as i64, self.num_leaf_brushes.get() as i64)
            }
        }
    )*};
}
leaf_by_name!(Leaf, LeafEf2);
macro_rules! leaf_via_q3 {
    ($($t:ty),*) => {$(
        impl LeafRecord for $t {
            fn cluster(&self) -> i64 {
                self.q3.cluster()
            }
            fn leaf_surfaces(&self) -> (i64, i64) {
                self.q3.leaf_surfaces()
            }
            fn leaf_brushes(&self) -> (i64, i64) {
                self.q3.leaf_brushes()
            }
        }
    )*};
}
leaf_via_q3!(LeafMohaa, LeafMohaaOld);

/// Field access shared by the IBSP and RBSP surfaces.
pub trait SurfaceRecord {
    fn shader(&self) -> i64;
    fn fog(&self) -> i64;
    fn surface_type(&self) -> i64;
    fn vert_range(&self) -> (i64, i64);
    fn index_range(&self) -> (i64, i64);
    /// Lightmap page per light style (one for IBSP, four for RBSP); negative = none / special.
    fn lightmap_nums(&self) -> &[I32<LE>];
    fn patch_size(&self) -> (i64, i64);
}
macro_rules! impl_surface {
    ($t:ty, |$s:ident| $lm:expr) => {
        impl SurfaceRecord for $t {
            fn shader(&self) -> i64 {
                self.shader.get() as i64
            }
            fn fog(&self) -> i64 {
                self.fog.get() as i64
            }
            fn surface_type(&self) -> i64 {
                self.surface_type.get() as i64
            }
            fn vert_range(&self) -> (i64, i64) {
                (self.first_vert.get() as i64, self.num_verts.get() as i64)
            }
            fn index_range(&self) -> (i64, i64) {
                (self.first_index.get() as i64, self.num_indexes.get() as i64)
            }
            fn lightmap_nums(&self) -> &[I32<LE>] {
                let $s = self;
                $lm
            }
            fn patch_size(&self) -> (i64, i64) {
                (self.patch_width.get() as i64, self.patch_height.get() as i64)
            }
        }
    };
}
impl_surface!(Surface, |s| std::slice::from_ref(&s.lightmap_num));
impl_surface!(SurfaceRbsp, |s| &s.lightmap_num[..]);
impl_surface!(SurfaceRitual, |s| std::slice::from_ref(&s.lightmap_num));
impl_surface!(SurfaceEf2, |s| std::slice::from_ref(&s.lightmap_num));

pub trait BrushSideRecord {
    fn plane(&self) -> i64;
    fn shader(&self) -> i64;
    /// The surface made from this side (RBSP); `None` in IBSP.
    fn surface(&self) -> Option<i64>;
}
impl BrushSideRecord for BrushSide {
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn shader(&self) -> i64 {
        self.shader.get() as i64
    }
    fn surface(&self) -> Option<i64> {
        None
    }
}
impl BrushSideRecord for BrushSideMohaa {
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn shader(&self) -> i64 {
        self.shader.get() as i64
    }
    fn surface(&self) -> Option<i64> {
        None
    }
}
impl BrushSideRecord for BrushSideRbsp {
    fn plane(&self) -> i64 {
        self.plane.get() as i64
    }
    fn shader(&self) -> i64 {
        self.shader.get() as i64
    }
    fn surface(&self) -> Option<i64> {
        Some(self.surface.get() as i64)
    }
}

/// The record types of one Quake 3 layout.
pub trait Layout: 'static {
    /// Branch ids this layout reads.
    const BRANCH_IDS: &'static [&'static str];
    /// Lightmap page edge in texels (q3map2's "game lightmap size").
    const LIGHTMAP_SIZE: usize;
    /// Whether lump 17 is the light array.
    const LIGHT_ARRAY: bool;
    /// Whether LIGHT_GRID holds Quake 3 grid points, one per cell (Ritual's grids differ).
    const LIGHT_GRID: bool = true;
    type Shader: FromBytes + Immutable + KnownLayout + ShaderRecord;
    type Leaf: FromBytes + Immutable + KnownLayout + LeafRecord;
    type Brush: FromBytes + Immutable + KnownLayout + BrushRecord;
    type BrushSide: FromBytes + Immutable + KnownLayout + BrushSideRecord;
    type DrawVert: FromBytes + Immutable + KnownLayout;
    type Surface: FromBytes + Immutable + KnownLayout + SurfaceRecord;
    type Lightmap: FromBytes + Immutable + KnownLayout;
    type LightGrid: FromBytes + Immutable + KnownLayout;
}

/// IBSP 46 and 47.
#[derive(Debug, Clone, Copy)]
pub enum Ibsp {}
/// Raven RBSP 1.
#[derive(Debug, Clone, Copy)]
pub enum Rbsp {}
/// qfusion FBSP 1.
#[derive(Debug, Clone, Copy)]
pub enum Fbsp {}

impl Layout for Ibsp {
    type Brush = Brush;
    type Shader = Shader;
    type Leaf = Leaf;
    const BRANCH_IDS: &'static [&'static str] = &["quake3", "ibsp47", "quakelive"];
    const LIGHTMAP_SIZE: usize = 128;
    const LIGHT_ARRAY: bool = false;
    type BrushSide = BrushSide;
    type DrawVert = DrawVert;
    type Surface = Surface;
    type Lightmap = Lightmap;
    type LightGrid = LightGrid;
}
impl Layout for Rbsp {
    type Brush = Brush;
    type Shader = Shader;
    type Leaf = Leaf;
    const BRANCH_IDS: &'static [&'static str] = &["rbsp"];
    const LIGHTMAP_SIZE: usize = 128;
    const LIGHT_ARRAY: bool = true;
    type BrushSide = BrushSideRbsp;
    type DrawVert = DrawVertRbsp;
    type Surface = SurfaceRbsp;
    type Lightmap = Lightmap;
    type LightGrid = LightGridRbsp;
}
impl Layout for Fbsp {
    type Brush = Brush;
    type Shader = Shader;
    type Leaf = Leaf;
    const BRANCH_IDS: &'static [&'static str] = &["fbsp"];
    const LIGHTMAP_SIZE: usize = 512;
    const LIGHT_ARRAY: bool = true;
    type BrushSide = BrushSideRbsp;
    type DrawVert = DrawVertRbsp;
    type Surface = SurfaceRbsp;
    type Lightmap = LightmapFbsp;
    type LightGrid = LightGridRbsp;
}
/// Heavy Metal: F.A.K.K.2 and American McGee's Alice (`FAKK` 12 / 42).
#[derive(Debug, Clone, Copy)]
pub enum Fakk {}
/// Star Trek: Elite Force II (`EF2!` 20).
#[derive(Debug, Clone, Copy)]
pub enum Ef2 {}
/// Medal of Honor: Allied Assault demo (`2015` 17 / 18): the old leaf, a fog lump.
#[derive(Debug, Clone, Copy)]
pub enum MohaaOld {}
/// Medal of Honor: Allied Assault / Spearhead / Breakthrough (`2015` / `EALA` 19..21).
#[derive(Debug, Clone, Copy)]
pub enum Mohaa {}

impl Layout for Fakk {
    type Brush = Brush;
    const BRANCH_IDS: &'static [&'static str] = &["fakk2", "alice"];
    const LIGHTMAP_SIZE: usize = 128;
    const LIGHT_ARRAY: bool = false;
    const LIGHT_GRID: bool = false;
    type Shader = ShaderFakk;
    type Leaf = Leaf;
    type BrushSide = BrushSide;
    type DrawVert = DrawVert;
    type Surface = SurfaceRitual;
    type Lightmap = Lightmap;
    type LightGrid = u8;
}
impl Layout for Ef2 {
    type Brush = BrushEf2;
    const BRANCH_IDS: &'static [&'static str] = &["ef2"];
    const LIGHTMAP_SIZE: usize = 128;
    const LIGHT_ARRAY: bool = false;
    const LIGHT_GRID: bool = false;
    type Shader = ShaderFakk;
    type Leaf = LeafEf2;
    type BrushSide = BrushSideEf2;
    type DrawVert = DrawVertEf2;
    type Surface = SurfaceEf2;
    type Lightmap = Lightmap;
    type LightGrid = u8;
}
impl Layout for MohaaOld {
    type Brush = Brush;
    const BRANCH_IDS: &'static [&'static str] = &["mohaa_demo"];
    const LIGHTMAP_SIZE: usize = 128;
    const LIGHT_ARRAY: bool = false;
    const LIGHT_GRID: bool = false;
    type Shader = ShaderMohaa;
    type Leaf = LeafMohaaOld;
    type BrushSide = BrushSideMohaa;
    type DrawVert = DrawVert;
    type Surface = SurfaceRitual;
    type Lightmap = Lightmap;
    type LightGrid = u8;
}
impl Layout for Mohaa {
    type Brush = Brush;
    const BRANCH_IDS: &'static [&'static str] = &["mohaa", "mohaa_bt"];
    const LIGHTMAP_SIZE: usize = 128;
    const LIGHT_ARRAY: bool = false;
    const LIGHT_GRID: bool = false;
    type Shader = ShaderMohaa;
    type Leaf = LeafMohaa;
    type BrushSide = BrushSideMohaa;
    type DrawVert = DrawVert;
    type Surface = SurfaceRitual;
    type Lightmap = Lightmap;
    type LightGrid = u8;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branch::Branch;
    use crate::branches::quake3::lumps::*;
    use std::mem::size_of;

    /// Sizes from quake_family.md A.3 / A.4 (IBSP) and quake_facts.md §5.2, §5.3 (RBSP, FBSP).
    #[test]
    fn record_sizes() {
        assert_eq!(size_of::<Shader>(), 72);
        assert_eq!(size_of::<Plane>(), 16);
        assert_eq!(size_of::<Node>(), 36);
        assert_eq!(size_of::<Leaf>(), 48);
        assert_eq!(size_of::<LeafIndex>(), 4);
        assert_eq!(size_of::<Model>(), 40);
        assert_eq!(size_of::<Brush>(), 12);
        assert_eq!(size_of::<BrushSide>(), 8);
        assert_eq!(size_of::<BrushSideRbsp>(), 12);
        assert_eq!(size_of::<DrawVert>(), 44);
        assert_eq!(size_of::<DrawVertRbsp>(), 80);
        assert_eq!(size_of::<DrawIndex>(), 4);
        assert_eq!(size_of::<Fog>(), 72);
        assert_eq!(size_of::<Surface>(), 104);
        assert_eq!(size_of::<SurfaceRbsp>(), 148);
        assert_eq!(size_of::<Lightmap>(), 49152);
        assert_eq!(size_of::<LightmapFbsp>(), 786432);
        assert_eq!(size_of::<LightGrid>(), 8);
        assert_eq!(size_of::<LightGridRbsp>(), 30);
        assert_eq!(size_of::<LightArrayIndex>(), 2);
        assert_eq!(size_of::<Advertisement>(), 128);
        // Ritual: FAKK2 SDK qfiles.h and OpenMoHAA qfiles.h (C sizes with the compiler's padding).
        assert_eq!(size_of::<ShaderFakk>(), 76);
        assert_eq!(size_of::<ShaderMohaa>(), 140);
        assert_eq!(size_of::<LeafMohaa>(), 64);
        assert_eq!(size_of::<LeafMohaaOld>(), 56);
        assert_eq!(size_of::<SurfaceRitual>(), 108);
        assert_eq!(size_of::<BrushSideMohaa>(), 12);
        assert_eq!(size_of::<SideEquation>(), 32);
        assert_eq!(size_of::<LightDef>(), 52);
        assert_eq!(size_of::<SphereLight>(), 56);
        assert_eq!(size_of::<TerrainPatch>(), 388);
        assert_eq!(size_of::<StaticModel>(), 164);
        // Field offsets the C layout fixes (dterPatch_t: texCoords after 4 bytes, heightmap after
        // the 2 × 63 vertex flags; dstaticModel_t: numVertexData after 160 bytes).
        assert_eq!(std::mem::offset_of!(TerrainPatch, tex_coords), 4);
        assert_eq!(std::mem::offset_of!(TerrainPatch, vert_flags), 52);
        assert_eq!(std::mem::offset_of!(TerrainPatch, heightmap), 304);
        assert_eq!(std::mem::offset_of!(StaticModel, num_vertex_data), 160);
        assert_eq!(std::mem::offset_of!(SurfaceRitual, subdivisions), 104);
        // Elite Force II (Spearmint bsp_ef2.c).
        assert_eq!(size_of::<BrushEf2>(), 12);
        assert_eq!(size_of::<LeafEf2>(), 48);
        assert_eq!(size_of::<BrushSideEf2>(), 8);
        assert_eq!(size_of::<DrawVertEf2>(), 48);
        assert_eq!(size_of::<SurfaceEf2>(), 132);
        assert_eq!(std::mem::offset_of!(DrawVertEf2, lightmap), 40);
        assert_eq!(std::mem::offset_of!(SurfaceEf2, face_flags), 116);
    }

    #[test]
    fn tables_match_types() {
        fn sizes<L: Layout>(b: &Branch) {
            let s = |i: usize| b.lumps[i].record_size(0);
            assert_eq!(s(LUMP_BRUSH_SIDES), Some(size_of::<L::BrushSide>()), "{}", b.id);
            assert_eq!(s(LUMP_DRAW_VERTICES), Some(size_of::<L::DrawVert>()), "{}", b.id);
            assert_eq!(s(LUMP_SURFACES), Some(size_of::<L::Surface>()), "{}", b.id);
            assert_eq!(s(LUMP_LIGHTMAPS), Some(size_of::<L::Lightmap>()), "{}", b.id);
            assert_eq!(s(LUMP_LIGHT_GRID), Some(size_of::<L::LightGrid>()), "{}", b.id);
            assert_eq!(size_of::<L::Lightmap>(), L::LIGHTMAP_SIZE * L::LIGHTMAP_SIZE * 3);
            assert_eq!(b.lumps.len(), if L::LIGHT_ARRAY { 18 } else { 17 }, "{}", b.id);
        }
        sizes::<Ibsp>(&QUAKE3);
        sizes::<Ibsp>(&IBSP47);
        sizes::<Rbsp>(&RBSP);
        assert_eq!(QUAKELIVE.lumps.len(), 18);
        assert_eq!(QUAKELIVE.lumps[LUMP_ADVERTISEMENTS].record_size(0), Some(size_of::<Advertisement>()));
        assert_eq!(
            &QUAKELIVE.lumps[..17].iter().map(|d| d.name).collect::<Vec<_>>(),
            &IBSP47.lumps.iter().map(|d| d.name).collect::<Vec<_>>()
        );
        sizes::<Fbsp>(&FBSP);
    }
}
