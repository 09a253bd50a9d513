//! Quake 3 IBSP 46 and descendants: IBSP 47 (RTCW / ET / Quake Live), Raven RBSP 1,
//! qfusion FBSP 1 (quake_family.md Part A; quake_facts.md §5, §6.3).
//!
//! IBSP 46 and 47 share every record. RBSP and FBSP widen brush sides (12), draw vertices
//! (80), surfaces (148) and light-grid points (30, with four light styles) and add lump 17,
//! the light array (one `u16` grid-point index per cell). FBSP's lightmap pages are
//! 512 × 512 instead of 128 × 128. [`View`] is generic over a [`Layout`] marker.

use std::marker::PhantomData;

use zerocopy::byteorder::{F32, I32, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian as LE, Unaligned};

use super::quake2::{child, index, range, record};
use crate::branch::{Branch, Family, HeaderKind, LumpDef};
use crate::bsp::Bsp;
use crate::check::{Checker, Problem};
use crate::error::{Error, Result};
use crate::lumps::visibility::Q3Vis;
use crate::stats::Stat;

pub mod texture;

pub const LUMP_ENTITIES: usize = 0;
pub const LUMP_SHADERS: usize = 1;
pub const LUMP_PLANES: usize = 2;
pub const LUMP_NODES: usize = 3;
pub const LUMP_LEAVES: usize = 4;
pub const LUMP_LEAF_SURFACES: usize = 5;
pub const LUMP_LEAF_BRUSHES: usize = 6;
pub const LUMP_MODELS: usize = 7;
pub const LUMP_BRUSHES: usize = 8;
pub const LUMP_BRUSH_SIDES: usize = 9;
pub const LUMP_DRAW_VERTICES: usize = 10;
pub const LUMP_DRAW_INDICES: usize = 11;
pub const LUMP_FOGS: usize = 12;
pub const LUMP_SURFACES: usize = 13;
pub const LUMP_LIGHTMAPS: usize = 14;
pub const LUMP_LIGHT_GRID: usize = 15;
pub const LUMP_VISIBILITY: usize = 16;
/// RBSP / FBSP only.
pub const LUMP_LIGHT_ARRAY: usize = 17;
/// Quake Live only (IBSP 47 with an 18th lump, quake_facts.md §5.1).
pub const LUMP_ADVERTISEMENTS: usize = 17;

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

/// Typed, zero-copy access to a Quake 3-family map's lumps.
///
/// ```
/// # fn main() -> Result<(), bspkit::Error> {
/// use bspkit::branches::quake3::{self, Rbsp};
/// let bytes = bspkit::build::BspBuilder::new(&quake3::RBSP).lump(quake3::LUMP_SURFACES, vec![0u8; 148]).build();
/// let bsp = bspkit::Bsp::from_bytes(&bytes)?;
/// let view = quake3::View::<Rbsp>::new(&bsp)?;
/// assert_eq!(view.surfaces()?.len(), 1);
/// # Ok(()) }
/// ```
pub struct View<'a, L: Layout = Ibsp> {
    bsp: &'a Bsp<'a>,
    layout: PhantomData<L>,
}

impl<'a, L: Layout> View<'a, L> {
    /// A view of `bsp`, which must be of one of this layout's branches.
    pub fn new(bsp: &'a Bsp<'a>) -> Result<Self> {
        if !L::BRANCH_IDS.contains(&bsp.branch().id) {
            return Err(Error::malformed(format!("a {} map cannot be read with the {:?} layout", bsp.branch().id, L::BRANCH_IDS)));
        }
        Ok(View { bsp, layout: PhantomData })
    }
    pub fn bsp(&self) -> &'a Bsp<'a> {
        self.bsp
    }
    pub fn shaders(&self) -> Result<&'a [Shader]> {
        self.bsp.records(LUMP_SHADERS)
    }
    pub fn planes(&self) -> Result<&'a [Plane]> {
        self.bsp.records(LUMP_PLANES)
    }
    pub fn nodes(&self) -> Result<&'a [Node]> {
        self.bsp.records(LUMP_NODES)
    }
    pub fn leaves(&self) -> Result<&'a [Leaf]> {
        self.bsp.records(LUMP_LEAVES)
    }
    pub fn leaf_surfaces(&self) -> Result<&'a [LeafIndex]> {
        self.bsp.records(LUMP_LEAF_SURFACES)
    }
    pub fn leaf_brushes(&self) -> Result<&'a [LeafIndex]> {
        self.bsp.records(LUMP_LEAF_BRUSHES)
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
    pub fn draw_vertices(&self) -> Result<&'a [L::DrawVert]> {
        self.bsp.records(LUMP_DRAW_VERTICES)
    }
    pub fn draw_indices(&self) -> Result<&'a [DrawIndex]> {
        self.bsp.records(LUMP_DRAW_INDICES)
    }
    pub fn fogs(&self) -> Result<&'a [Fog]> {
        self.bsp.records(LUMP_FOGS)
    }
    pub fn surfaces(&self) -> Result<&'a [L::Surface]> {
        self.bsp.records(LUMP_SURFACES)
    }
    pub fn lightmaps(&self) -> Result<&'a [L::Lightmap]> {
        self.bsp.records(LUMP_LIGHTMAPS)
    }
    pub fn light_grid(&self) -> Result<&'a [L::LightGrid]> {
        self.bsp.records(LUMP_LIGHT_GRID)
    }
    /// The light array (RBSP / FBSP); empty for IBSP.
    pub fn light_array(&self) -> Result<&'a [LightArrayIndex]> {
        if L::LIGHT_ARRAY {
            self.bsp.records(LUMP_LIGHT_ARRAY)
        } else {
            Ok(&[])
        }
    }
    /// A surface's vertices (`first_vert .. + num_verts`).
    pub fn surface_vertices(&self, surface: &L::Surface) -> Result<&'a [L::DrawVert]> {
        let verts = self.draw_vertices()?;
        sub(verts, surface.vert_range()).ok_or_else(|| self.range_error("vertex", surface.vert_range(), verts.len()))
    }
    /// A surface's triangle indexes (`first_index .. + num_indexes`), relative to its first vertex.
    pub fn surface_indices(&self, surface: &L::Surface) -> Result<&'a [DrawIndex]> {
        let idx = self.draw_indices()?;
        sub(idx, surface.index_range()).ok_or_else(|| self.range_error("index", surface.index_range(), idx.len()))
    }
    fn range_error(&self, what: &str, (first, count): (i64, i64), len: usize) -> Error {
        self.bsp.lump_error(LUMP_SURFACES, Error::malformed(format!("{what} range {first}+{count} is outside 0..{len}")))
    }
    /// Cluster visibility (quake_family.md A.8).
    pub fn visibility(&self) -> Result<Q3Vis<'a>> {
        Q3Vis::parse(self.bsp.lump(LUMP_VISIBILITY)?).map_err(|e| self.bsp.lump_error(LUMP_VISIBILITY, e))
    }
}

/// `list[first .. first + count]`, or `None` when the range is negative or too long.
fn sub<T>(list: &[T], (first, count): (i64, i64)) -> Option<&[T]> {
    let first = usize::try_from(first).ok()?;
    list.get(first..first.checked_add(usize::try_from(count).ok()?)?)
}

macro_rules! q3_lumps {
    (brushside: $bs:literal, vertex: $v:literal, face: $f:literal, lightmap: $lm:expr, lightgrid: $lg:literal $(, $extra:expr)*) => {
        &[
            LumpDef::entities("ENTITIES"),
            LumpDef::records("SHADERS", 72),
            LumpDef::records("PLANES", 16),
            LumpDef::records("NODES", 36),
            LumpDef::records("LEAVES", 48),
            LumpDef::records("LEAF_FACES", 4),
            LumpDef::records("LEAF_BRUSHES", 4),
            LumpDef::records("MODELS", 40),
            LumpDef::records("BRUSHES", 12),
            LumpDef::records("BRUSH_SIDES", $bs),
            LumpDef::records("DRAW_VERTICES", $v),
            LumpDef::records("DRAW_INDICES", 4),
            LumpDef::records("FOGS", 72),
            LumpDef::records("FACES", $f),
            $lm,
            LumpDef::records("LIGHT_GRID", $lg),
            LumpDef::special("VISIBILITY"),
            $($extra,)*
        ]
    };
}

pub static QUAKE3: Branch = Branch {
    id: "quake3",
    family: Family::Quake3,
    title: "Quake III Arena (IBSP 46)",
    games: "Quake III Arena, Team Arena, ioquake3 / Spearmint games (Turtle Arena, …)",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 8),
    stats: Some(stats::<Ibsp>),
    check: Some(check::<Ibsp>),
};

pub static IBSP47: Branch = Branch {
    id: "ibsp47",
    family: Family::Quake3,
    title: "Quake III engine IBSP 47",
    games: "Return to Castle Wolfenstein, Wolfenstein: Enemy Territory, Quake Live",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 8),
    stats: Some(stats::<Ibsp>),
    check: Some(check::<Ibsp>),
};

/// Quake Live: IBSP 47 records plus lump 17, advertisements. RTCW / ET files of the same
/// version have 17 lumps; detection tells them apart by a non-empty 18th directory entry.
pub static QUAKELIVE: Branch = Branch {
    id: "quakelive",
    family: Family::Quake3,
    title: "Quake Live (IBSP 47 + advertisements)",
    games: "Quake Live",
    header: HeaderKind::IdMagic { magic: *b"IBSP" },
    lumps: q3_lumps!(brushside: 8, vertex: 44, face: 104, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 8,
        LumpDef::records("ADVERTISEMENTS", 128)),
    stats: Some(stats::<Ibsp>),
    check: Some(check::<Ibsp>),
};

pub static RBSP: Branch = Branch {
    id: "rbsp",
    family: Family::Quake3,
    title: "Raven RBSP 1",
    games: "Star Wars Jedi Knight II, Jedi Academy, Soldier of Fortune II",
    header: HeaderKind::IdMagic { magic: *b"RBSP" },
    lumps: q3_lumps!(brushside: 12, vertex: 80, face: 148, lightmap: LumpDef::records("LIGHTMAPS", 49152), lightgrid: 30,
        LumpDef::records("LIGHT_ARRAY", 2)),
    stats: Some(stats::<Rbsp>),
    check: Some(check::<Rbsp>),
};

/// FBSP shares RBSP's records (quake_facts.md §5.3) except the 512 × 512 lightmap page.
pub static FBSP: Branch = Branch {
    id: "fbsp",
    family: Family::Quake3,
    title: "qfusion FBSP 1",
    games: "Warsow, Warfork, qfusion games",
    header: HeaderKind::IdMagic { magic: *b"FBSP" },
    lumps: q3_lumps!(brushside: 12, vertex: 80, face: 148, lightmap: LumpDef::versioned("LIGHTMAPS", &[(0, 512 * 512 * 3)]), lightgrid: 30,
        LumpDef::records("LIGHT_ARRAY", 2)),
    stats: Some(stats::<Fbsp>),
    check: Some(check::<Fbsp>),
};

/// q3map2 `-info` rows (quake_facts.md §6.3). Counts divide the on-disk lump by the on-disk
/// record; rows q3map2 marks `*` print count × its internal RBSP-sized struct (brush side 12,
/// surface 148, draw vertex 80, grid point 30). The light grid's count is the number of grid
/// cells: IBSP stores one point per cell (len / 8), RBSP / FBSP one light-array entry per
/// cell (len / 2). entdata counts parsed entities and gives the entity lump length.
fn stats<L: Layout>(bsp: &Bsp) -> Vec<Stat> {
    let len = |i: usize| bsp.lump(i).map(|l| l.len() as u64).unwrap_or(0);
    let row = |name: &str, i: usize, internal: Option<u64>| {
        let disk = bsp.record_size(i).unwrap_or(1) as u64;
        let count = len(i) / disk;
        Stat::new(name, Some(count), count * internal.unwrap_or(disk))
    };
    let grid_count = if L::LIGHT_ARRAY { len(LUMP_LIGHT_ARRAY) / 2 } else { len(LUMP_LIGHT_GRID) / 8 };
    let page = (L::LIGHTMAP_SIZE * L::LIGHTMAP_SIZE * 3) as u64;
    vec![
        row("models", LUMP_MODELS, None),
        row("shaders", LUMP_SHADERS, None),
        row("brushes", LUMP_BRUSHES, None),
        row("brushsides", LUMP_BRUSH_SIDES, Some(12)),
        row("fogs", LUMP_FOGS, None),
        row("planes", LUMP_PLANES, None),
        Stat::new("entdata", Some(bsp.entities().map(|e| e.len() as u64).unwrap_or(0)), len(LUMP_ENTITIES)),
        row("nodes", LUMP_NODES, None),
        row("leafs", LUMP_LEAVES, None),
        row("leafsurfaces", LUMP_LEAF_SURFACES, None),
        row("leafbrushes", LUMP_LEAF_BRUSHES, None),
        row("drawsurfaces", LUMP_SURFACES, Some(148)),
        row("drawverts", LUMP_DRAW_VERTICES, Some(80)),
        row("drawindexes", LUMP_DRAW_INDICES, None),
        Stat::new("lightmaps", Some(len(LUMP_LIGHTMAPS) / page), len(LUMP_LIGHTMAPS)),
        Stat::new("lightgrid", Some(grid_count), grid_count * 30),
        Stat::new("visibility", None, len(LUMP_VISIBILITY)),
        Stat::new("total", None, bsp.data().len() as u64),
    ]
}

/// The light-grid cell size: worldspawn's `gridsize` key, else 64 × 64 × 128 (quake_family.md A.7).
pub fn grid_size(bsp: &Bsp) -> [f32; 3] {
    let default = [64.0, 64.0, 128.0];
    let Ok(ents) = bsp.entities() else { return default };
    let Some(text) = ents.list.first().and_then(|e| e.get("gridsize")) else { return default };
    let v: Vec<f32> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    match v.as_slice() {
        [x, y, z] if v.iter().all(|s| s.is_finite() && *s >= 1.0) => [*x, *y, *z],
        _ => default,
    }
}

/// Light-grid cells along x, y and z over model 0's bounds (quake_family.md A.7):
/// `floor(maxs / size) - ceil(mins / size) + 1` per axis. `None` without a world model.
pub fn grid_dimensions(bsp: &Bsp) -> Option<[u64; 3]> {
    let models: &[Model] = bsp.records(LUMP_MODELS).ok()?;
    let m = models.first()?;
    let size = grid_size(bsp);
    let mut dims = [0u64; 3];
    for k in 0..3 {
        let n = (m.maxs[k].get() / size[k]).floor() - (m.mins[k].get() / size[k]).ceil() + 1.0;
        // Inverted or non-finite bounds give an empty grid; the cast saturates huge values.
        dims[k] = if n.is_finite() && n >= 1.0 { n as u64 } else { 0 };
    }
    Some(dims)
}

fn label(bsp: &Bsp, index: usize) -> String {
    format!("{index} ({})", bsp.branch().lumps.get(index).map(|l| l.name).unwrap_or("?"))
}

fn len<T>(r: &Result<&[T]>) -> Option<usize> {
    r.as_ref().ok().map(|s| s.len())
}

/// Surface types q3map2 writes: 0 bad, 1 planar, 2 patch, 3 triangle soup, 4 flare, 5 foliage.
const MAX_SURFACE_TYPE: i64 = 5;

/// Every cross-reference of a Quake 3-family map in range (quake_family.md A.4).
fn check<L: Layout>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<L>::new(bsp) else { return };
    // Node tree cycles and shared nodes; the NODES checks below cover children out of range.
    crate::tree::check(bsp, problems);
    let (shaders, planes, nodes, leaves) = (v.shaders(), v.planes(), v.nodes(), v.leaves());
    let (leaf_surfaces, leaf_brushes, models, brushes) = (v.leaf_surfaces(), v.leaf_brushes(), v.models(), v.brushes());
    let (sides, verts, indices, fogs, surfaces) = (v.brush_sides(), v.draw_vertices(), v.draw_indices(), v.fogs(), v.surfaces());
    let (lightmaps, grid, array) = (v.lightmaps(), v.light_grid(), v.light_array());
    let vis = match v.visibility() {
        Ok(vis) => Some(vis),
        Err(e) => {
            problems.push(Problem::new(label(bsp, LUMP_VISIBILITY), None, e.kind.to_string()));
            None
        }
    };

    let l = label(bsp, LUMP_NODES);
    let mut c = Checker::new(problems, &l);
    for (i, n) in nodes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", n.plane.get() as i64, len(&planes), "planes");
        for ch in n.children {
            child(&mut c, i, ch.get() as i64, len(&nodes).unwrap_or(0), len(&leaves));
        }
    }

    let l = label(bsp, LUMP_LEAVES);
    let mut c = Checker::new(problems, &l);
    let clusters = vis.filter(|v| v.n_vecs > 0).map(|v| v.n_vecs);
    for (i, leaf) in leaves.as_deref().unwrap_or(&[]).iter().enumerate() {
        let r = (leaf.first_leaf_surface.get() as i64, leaf.num_leaf_surfaces.get() as i64);
        range(&mut c, i, "leafsurfaces", r, len(&leaf_surfaces), "leafsurfaces");
        let r = (leaf.first_leaf_brush.get() as i64, leaf.num_leaf_brushes.get() as i64);
        range(&mut c, i, "leafbrushes", r, len(&leaf_brushes), "leafbrushes");
        // A negative cluster marks a leaf outside the map.
        if leaf.cluster.get() >= 0 {
            index(&mut c, i, "cluster", leaf.cluster.get() as i64, clusters, "visibility clusters");
        }
    }

    let l = label(bsp, LUMP_LEAF_SURFACES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_surfaces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "surface", x.get() as i64, len(&surfaces), "surfaces");
    }
    let l = label(bsp, LUMP_LEAF_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "brush", x.get() as i64, len(&brushes), "brushes");
    }

    let l = label(bsp, LUMP_MODELS);
    let mut c = Checker::new(problems, &l);
    for (i, m) in models.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "surfaces", (m.first_surface.get() as i64, m.num_surfaces.get() as i64), len(&surfaces), "surfaces");
        range(&mut c, i, "brushes", (m.first_brush.get() as i64, m.num_brushes.get() as i64), len(&brushes), "brushes");
    }

    let l = label(bsp, LUMP_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, b) in brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "sides", (b.first_side.get() as i64, b.num_sides.get() as i64), len(&sides), "brushsides");
        index(&mut c, i, "shader", b.shader.get() as i64, len(&shaders), "shaders");
    }
    let l = label(bsp, LUMP_BRUSH_SIDES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in sides.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", s.plane(), len(&planes), "planes");
        index(&mut c, i, "shader", s.shader(), len(&shaders), "shaders");
        if let Some(surf) = s.surface().filter(|&x| x != -1) {
            index(&mut c, i, "surface", surf, len(&surfaces), "surfaces");
        }
    }

    let l = label(bsp, LUMP_FOGS);
    let mut c = Checker::new(problems, &l);
    let brush_list = brushes.as_deref().unwrap_or(&[]);
    for (i, f) in fogs.as_deref().unwrap_or(&[]).iter().enumerate() {
        let b = f.brush.get() as i64;
        index(&mut c, i, "brush", b, len(&brushes), "brushes");
        // visibleSide is a side of that brush, or −1 when the fog has no visible side.
        let side = f.visible_side.get() as i64;
        if side != -1 {
            if let Some(brush) = usize::try_from(b).ok().and_then(|b| brush_list.get(b)) {
                c.index(i, "visibleSide", side, brush.num_sides.get().max(0) as usize, "the brush's sides");
            }
        }
    }

    let l = label(bsp, LUMP_SURFACES);
    let mut c = Checker::new(problems, &l);
    let index_list = indices.as_deref().unwrap_or(&[]);
    // With external lightmaps (an empty lump) the page numbers refer to image files
    // (Turtle Arena's sp1boss / test_smash use page 0 with an empty lump), so no bound then.
    let pages = len(&lightmaps).filter(|&n| n > 0);
    for (i, s) in surfaces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "shader", s.shader(), len(&shaders), "shaders");
        if s.fog() != -1 {
            index(&mut c, i, "fog", s.fog(), len(&fogs), "fogs");
        }
        let t = s.surface_type();
        if !(0..=MAX_SURFACE_TYPE).contains(&t) {
            c.problems.push(Problem::new(c.lump, Some(i), format!("surface type {t} is unknown (0..={MAX_SURFACE_TYPE})")));
        }
        let (first_vert, num_verts) = s.vert_range();
        range(&mut c, i, "vertices", (first_vert, num_verts), len(&verts), "drawverts");
        let (first, count) = s.index_range();
        range(&mut c, i, "indexes", (first, count), len(&indices), "drawindexes");
        // Indexes are triangle lists.
        if count % 3 != 0 {
            c.problems.push(Problem::new(c.lump, Some(i), format!("{count} indexes do not make whole triangles")));
        }
        // Each index is relative to the surface's first vertex.
        if first >= 0 && count >= 0 {
            let within = index_list.get(first as usize..).map(|x| &x[..x.len().min(count as usize)]).unwrap_or(&[]);
            if let Some((k, bad)) = within.iter().enumerate().find(|(_, x)| !(0..num_verts).contains(&(x.get() as i64))) {
                c.problems.push(Problem::new(
                    c.lump,
                    Some(i),
                    format!("drawindex {} = {} is outside the surface's {num_verts} vertices", first as usize + k, bad.get()),
                ));
            }
        }
        if t == 2 {
            let (w, h) = s.patch_size();
            if w.saturating_mul(h) != num_verts {
                c.problems.push(Problem::new(c.lump, Some(i), format!("patch {w}×{h} does not match its {num_verts} vertices")));
            }
        }
        for lm in s.lightmap_nums() {
            let lm = lm.get() as i64;
            if lm >= 0 {
                index(&mut c, i, "lightmap", lm, pages, "lightmaps");
            }
        }
    }

    // RBSP / FBSP: every light-array cell names a grid point.
    if L::LIGHT_ARRAY {
        let l = label(bsp, LUMP_LIGHT_ARRAY);
        let mut c = Checker::new(problems, &l);
        if let Some(n) = len(&grid) {
            if let Some((i, x)) = array.as_deref().unwrap_or(&[]).iter().enumerate().find(|(_, x)| x.get() as usize >= n) {
                c.index(i, "grid point", x.get() as i64, n, "lightgrid");
            }
        }
    }

    // The grid must have one cell per point of model 0's grid (ioquake3 warns "light grid
    // mismatch" otherwise): IBSP stores a point per cell, RBSP / FBSP an array entry per cell.
    let cells = if L::LIGHT_ARRAY { len(&array) } else { len(&grid) };
    if let (Some(cells), Some(dims)) = (cells.filter(|&n| n > 0), grid_dimensions(bsp)) {
        let expected = dims.iter().fold(1u64, |a, &d| a.saturating_mul(d));
        if expected != cells as u64 {
            let lump = if L::LIGHT_ARRAY { LUMP_LIGHT_ARRAY } else { LUMP_LIGHT_GRID };
            problems.push(Problem::new(
                label(bsp, lump),
                None,
                format!("{cells} grid cells, but model 0's bounds give {}×{}×{} = {expected}", dims[0], dims[1], dims[2]),
            ));
        }
    }

    if let Some(vis) = vis.filter(|v| v.n_vecs > 0) {
        // A row must hold a bit per cluster.
        if vis.sz_vecs.saturating_mul(8) < vis.n_vecs {
            let l = label(bsp, LUMP_VISIBILITY);
            problems.push(Problem::new(&l, None, format!("rows of {} bytes cannot hold {} clusters", vis.sz_vecs, vis.n_vecs)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
