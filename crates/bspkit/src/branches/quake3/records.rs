//! Quake 3-family record types (quake_family.md A.2–A.9; quake_facts.md §5) and the [`Layout`]
//! markers that pick IBSP, RBSP or FBSP records.

use zerocopy::byteorder::{F32, I32, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian as LE, Unaligned};

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
    const BRANCH_IDS: &'static [&'static str] = &["fbsp"];
    const LIGHTMAP_SIZE: usize = 512;
    const LIGHT_ARRAY: bool = true;
    type BrushSide = BrushSideRbsp;
    type DrawVert = DrawVertRbsp;
    type Surface = SurfaceRbsp;
    type Lightmap = LightmapFbsp;
    type LightGrid = LightGridRbsp;
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
