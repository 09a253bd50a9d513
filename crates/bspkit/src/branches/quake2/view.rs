//! Typed, zero-copy view of a Quake 2 map's lumps.

use std::marker::PhantomData;

use super::lumps::*;
use super::records::*;
use crate::bsp::Bsp;
use crate::error::{Error, Result};
use crate::lumps::visibility::ClusterVis;

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
    pub fn texinfo(&self) -> Result<&'a [L::TexInfo]> {
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
    /// Over many faces, [`View::corner_tables`] looks the three lumps up once.
    pub fn face_points(&self, face: &L::Face, out: &mut Vec<[f32; 3]>) -> Result<()> {
        self.corner_tables()?.face_points(face, out)
    }
    /// The lumps a face's corners come from, looked up once for a walk over many faces.
    pub fn corner_tables(&self) -> Result<CornerTables<'a, L>> {
        Ok(CornerTables { bsp: self.bsp, surfedges: self.surfedges()?, edges: self.edges()?, vertices: self.vertices()? })
    }
    /// Cluster PVS / PHS (quake_facts.md §4 lump 3).
    pub fn visibility(&self) -> Result<ClusterVis<'a>> {
        let data = self.bsp.lump(LUMP_VISIBILITY)?;
        ClusterVis::parse(data, self.bsp.endian()).map_err(|e| self.bsp.lump_error(LUMP_VISIBILITY, e))
    }
}

impl<'a> View<'a, Sin> {
    /// SiN's light values (LIGHTINFO), indexed by faces and brush sides.
    pub fn light_info(&self) -> Result<&'a [LightValueSin]> {
        self.bsp.records(LUMP_SIN_LIGHT_INFO)
    }
}

impl<'a> View<'a, Sof> {
    /// Soldier of Fortune's region faces: edge ranges in SURFEDGES.
    pub fn region_faces(&self) -> Result<&'a [RegionFaceSof]> {
        self.bsp.records(LUMP_SOF_REGION_FACES)
    }
    pub fn lights(&self) -> Result<&'a [LightSof]> {
        self.bsp.records(LUMP_SOF_LIGHTS)
    }
    /// Fog regions, indexed by faces and leaves.
    pub fn regions(&self) -> Result<&'a [RegionSof]> {
        self.bsp.records(LUMP_SOF_REGIONS)
    }
}

impl<'a> View<'a, Daikatana> {
    /// One colour per texinfo (the engine reads it beside TEXINFO).
    pub fn ext_surf_info(&self) -> Result<&'a [ExtSurfInfoDk]> {
        self.bsp.records(LUMP_DK_EXT_SURF_INFO)
    }
    /// The plane-polygon lists as stored: for each plane in order, a count and that many face
    /// indices (Daikatana `r_model.cpp` `Mod_LoadPlanePolys`, as bsp_tool describes it).
    pub fn plane_polys(&self) -> Result<&'a [PlanePoly]> {
        self.bsp.records(LUMP_DK_PLANE_POLYS)
    }
    /// The plane-polygon lists, one `(plane, faces)` per plane with a non-empty list. `None` if
    /// the counts do not walk the lump exactly.
    pub fn plane_poly_lists(&self) -> Result<Option<Vec<PlanePolyList<'a>>>> {
        let ints = self.plane_polys()?;
        let planes = self.planes()?.len();
        let mut out = Vec::new();
        let mut at = 0usize;
        for plane in 0..planes {
            let Some(n) = ints.get(at).map(|n| n.get()) else { break };
            let Ok(n) = usize::try_from(n) else { return Ok(None) };
            let Some(list) = ints.get(at + 1..(at + 1).saturating_add(n)) else { return Ok(None) };
            if n > 0 {
                out.push((plane, list));
            }
            at += 1 + n;
        }
        Ok((at == ints.len()).then_some(out))
    }
}

/// SURFEDGES, EDGES and VERTICES of a map, for [`CornerTables::face_points`] (from
/// [`View::corner_tables`]).
pub struct CornerTables<'a, L: Layout> {
    bsp: &'a Bsp<'a>,
    surfedges: &'a [SurfEdge],
    edges: &'a [L::Edge],
    vertices: &'a [Vertex],
}

impl<L: Layout> CornerTables<'_, L> {
    /// As [`View::face_points`].
    pub fn face_points(&self, face: &L::Face, out: &mut Vec<[f32; 3]>) -> Result<()> {
        out.clear();
        let (surfedges, edges, vertices) = (self.surfedges, self.edges, self.vertices);
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_refuses_other_layout() {
        let bytes = crate::build::builder::BspBuilder::new(&QBISM).build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert!(View::<Ibsp>::new(&bsp).is_err());
        assert!(View::<Qbism>::new(&bsp).is_ok());
    }
}
