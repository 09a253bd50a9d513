//! Typed, zero-copy view of a Quake 3-family map's lumps, and light-grid geometry.

use std::marker::PhantomData;

use super::lumps::*;
use super::records::*;
use crate::branch::Branch;
use crate::bsp::Bsp;
use crate::error::{Error, Result};
use crate::lumps::visibility::Q3Vis;

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
    slots: Slots,
    layout: PhantomData<L>,
}

/// Where each lump sits in a branch's directory. Ritual's descendants reorder Quake 3's lumps
/// (`lumps::FAKK2`, `lumps::MOHAA`), so slots are found by lump name, once per view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slots {
    pub shaders: usize,
    pub planes: usize,
    pub nodes: usize,
    pub leaves: usize,
    pub leaf_surfaces: usize,
    pub leaf_brushes: usize,
    pub models: usize,
    pub brushes: usize,
    pub brush_sides: usize,
    pub draw_vertices: usize,
    pub draw_indices: usize,
    /// Medal of Honor 19 and later have no fogs.
    pub fogs: Option<usize>,
    pub surfaces: usize,
    pub lightmaps: usize,
    /// Quake 3 grid points (not Ritual's grids, which are kept as bytes).
    pub light_grid: Option<usize>,
    pub visibility: usize,
    /// RBSP / FBSP light array.
    pub light_array: Option<usize>,
    pub entities: usize,
}

impl Slots {
    /// The slots of `branch` read with layout `L`; a name the table lacks falls back to its Quake 3 slot.
    pub fn of<L: Layout>(branch: &Branch) -> Slots {
        let at = |name: &str, q3: usize| branch.lump_index(name).unwrap_or(q3);
        Slots {
            shaders: at("SHADERS", LUMP_SHADERS),
            planes: at("PLANES", LUMP_PLANES),
            nodes: at("NODES", LUMP_NODES),
            leaves: at("LEAVES", LUMP_LEAVES),
            leaf_surfaces: at("LEAF_FACES", LUMP_LEAF_SURFACES),
            leaf_brushes: at("LEAF_BRUSHES", LUMP_LEAF_BRUSHES),
            models: at("MODELS", LUMP_MODELS),
            brushes: at("BRUSHES", LUMP_BRUSHES),
            brush_sides: at("BRUSH_SIDES", LUMP_BRUSH_SIDES),
            draw_vertices: at("DRAW_VERTICES", LUMP_DRAW_VERTICES),
            draw_indices: at("DRAW_INDICES", LUMP_DRAW_INDICES),
            fogs: branch.lump_index("FOGS"),
            surfaces: at("FACES", LUMP_SURFACES),
            lightmaps: at("LIGHTMAPS", LUMP_LIGHTMAPS),
            light_grid: if L::LIGHT_GRID { Some(at("LIGHT_GRID", LUMP_LIGHT_GRID)) } else { None },
            visibility: at("VISIBILITY", LUMP_VISIBILITY),
            light_array: if L::LIGHT_ARRAY { Some(at("LIGHT_ARRAY", LUMP_LIGHT_ARRAY)) } else { None },
            entities: at("ENTITIES", LUMP_ENTITIES),
        }
    }
}

impl<'a, L: Layout> View<'a, L> {
    /// A view of `bsp`, which must be of one of this layout's branches.
    pub fn new(bsp: &'a Bsp<'a>) -> Result<Self> {
        if !L::BRANCH_IDS.contains(&bsp.branch().id) {
            return Err(Error::malformed(format!("a {} map cannot be read with the {:?} layout", bsp.branch().id, L::BRANCH_IDS)));
        }
        Ok(View { bsp, slots: Slots::of::<L>(bsp.branch()), layout: PhantomData })
    }
    pub fn bsp(&self) -> &'a Bsp<'a> {
        self.bsp
    }
    /// Where this map's lumps sit in its directory.
    pub fn slots(&self) -> &Slots {
        &self.slots
    }
    pub fn shaders(&self) -> Result<&'a [L::Shader]> {
        self.bsp.records(self.slots.shaders)
    }
    pub fn planes(&self) -> Result<&'a [Plane]> {
        self.bsp.records(self.slots.planes)
    }
    pub fn nodes(&self) -> Result<&'a [Node]> {
        self.bsp.records(self.slots.nodes)
    }
    pub fn leaves(&self) -> Result<&'a [L::Leaf]> {
        self.bsp.records(self.slots.leaves)
    }
    pub fn leaf_surfaces(&self) -> Result<&'a [LeafIndex]> {
        self.bsp.records(self.slots.leaf_surfaces)
    }
    pub fn leaf_brushes(&self) -> Result<&'a [LeafIndex]> {
        self.bsp.records(self.slots.leaf_brushes)
    }
    pub fn models(&self) -> Result<&'a [Model]> {
        self.bsp.records(self.slots.models)
    }
    pub fn brushes(&self) -> Result<&'a [L::Brush]> {
        self.bsp.records(self.slots.brushes)
    }
    pub fn brush_sides(&self) -> Result<&'a [L::BrushSide]> {
        self.bsp.records(self.slots.brush_sides)
    }
    pub fn draw_vertices(&self) -> Result<&'a [L::DrawVert]> {
        self.bsp.records(self.slots.draw_vertices)
    }
    pub fn draw_indices(&self) -> Result<&'a [DrawIndex]> {
        self.bsp.records(self.slots.draw_indices)
    }
    /// Fogs; empty where the branch has no fog lump (Medal of Honor 19 and later).
    pub fn fogs(&self) -> Result<&'a [Fog]> {
        match self.slots.fogs {
            Some(i) => self.bsp.records(i),
            None => Ok(&[]),
        }
    }
    pub fn surfaces(&self) -> Result<&'a [L::Surface]> {
        self.bsp.records(self.slots.surfaces)
    }
    pub fn lightmaps(&self) -> Result<&'a [L::Lightmap]> {
        self.bsp.records(self.slots.lightmaps)
    }
    /// Quake 3 light-grid points; empty for Ritual's grids (kept as bytes).
    pub fn light_grid(&self) -> Result<&'a [L::LightGrid]> {
        match self.slots.light_grid {
            Some(i) => self.bsp.records(i),
            None => Ok(&[]),
        }
    }
    /// The light array (RBSP / FBSP); empty for IBSP.
    pub fn light_array(&self) -> Result<&'a [LightArrayIndex]> {
        match self.slots.light_array {
            Some(i) => self.bsp.records(i),
            None => Ok(&[]),
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
        self.bsp.lump_error(self.slots.surfaces, Error::malformed(format!("{what} range {first}+{count} is outside 0..{len}")))
    }
    /// Cluster visibility (quake_family.md A.8).
    pub fn visibility(&self) -> Result<Q3Vis<'a>> {
        Q3Vis::parse(self.bsp.lump(self.slots.visibility)?).map_err(|e| self.bsp.lump_error(self.slots.visibility, e))
    }
}

/// `list[first .. first + count]`, or `None` when the range is negative or too long.
pub(crate) fn sub<T>(list: &[T], (first, count): (i64, i64)) -> Option<&[T]> {
    let first = usize::try_from(first).ok()?;
    list.get(first..first.checked_add(usize::try_from(count).ok()?)?)
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
    let models: &[Model] = bsp.records(bsp.branch().lump_index("MODELS")?).ok()?;
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
