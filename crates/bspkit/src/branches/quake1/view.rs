//! Typed, zero-copy view of a Quake 1 / GoldSrc map's lumps, generic over the record set.

use std::marker::PhantomData;

use super::lumps::*;
use super::records::*;
use crate::branch::{Branch, Family};
use crate::bsp::Bsp;
use crate::error::{Error, Result};
use crate::lumps::miptex::MipTexLump;
use crate::lumps::visibility;

/// Lump indices by role, looked up by name so Blue Shift's swapped directory works.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slots {
    pub(crate) entities: usize,
    pub(crate) planes: usize,
    pub(crate) textures: usize,
    pub(crate) vertices: usize,
    pub(crate) visibility: usize,
    pub(crate) nodes: usize,
    pub(crate) texinfo: usize,
    pub(crate) faces: usize,
    pub(crate) lighting: usize,
    pub(crate) clipnodes: usize,
    pub(crate) leaves: usize,
    pub(crate) marksurfaces: usize,
    pub(crate) edges: usize,
    pub(crate) surfedges: usize,
    pub(crate) models: usize,
}

impl Slots {
    pub(crate) fn of(branch: &Branch) -> Slots {
        // The usual slot is checked first (one comparison instead of a scan of the directory
        // per role: this runs for every view).
        let i = |name: &str, default: usize| match branch.lumps.get(default) {
            Some(l) if l.name.eq_ignore_ascii_case(name) => default,
            _ => branch.lump_index(name).unwrap_or(default),
        };
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
    /// Which lump holds each role in this map's branch (Blue Shift swaps two).
    pub(crate) fn slots(&self) -> Slots {
        self.slots
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
        let form = crate::lumps::miptex::form_of(self.bsp.branch().id);
        MipTexLump::parse_form(data, self.bsp.family() == Family::GoldSrc, form).map_err(|e| self.bsp.lump_error(self.slots.textures, e))
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
