//! Titanfall and Titanfall 2 (rBSP 29, 36, 37): brushes from the collision lumps, written as a
//! Valve 220 `.map` with `contents flags value` per face — the form MRVN-Radiant (the community
//! Radiant for Respawn maps) saves, as in the `mp_crossfire.map` source published beside the
//! corpus's `mp_crossfire.bsp` (`"mapversion" "220"`, three integers after each face).
//!
//! CM_BRUSHES (respawn_cod_facts.md §1.8–1.9): each brush is a box, `origin ± extents`, cut by
//! `num_plane_offsets` more planes; plane `k` of the run starting at `brush_side_offset` is
//! PLANES[`CM_GRID.first_brush_plane + k − CM_BRUSH_SIDE_PLANE_OFFSETS[k]`], outward (checked on
//! crossfire against its source: a ramp's plane comes back as written there). Side properties
//! (and texture vectors, where the lump is filled) run from `6 × index + brush_side_offset`,
//! the box's six first in the order −x, +x, −y, +y, −z, +z. That order is read off mp_looby's
//! texture vectors (the one corpus map with them): on all three brushes each box side's `s × t`
//! points into the side, as on every unmirrored Hammer face, only in this order (bsp_tool and a
//! bevy-based viewer assume +x, −x, … with a note that it is unchecked). Contents come from the
//! CM_PRIMITIVES entries naming the brush (through
//! CM_UNIQUE_CONTENTS); brushes of brush models are those the model's own grid cell (after the
//! `count.x × count.y` world cells) names.
//!
//! Not recovered: texture alignment where CM_BRUSH_SIDE_TEXTURE_VECTORS is empty (every corpus
//! map: the sides are written at 0.25 units per texel on the face's axis), per-side materials the
//! compiler merged, tricoll (patch / displacement / mesh) collision, and the entities of the
//! companion `.ent` files. Apex (v47+) has no brush lumps (BVH collision) and is refused.

use super::geom::{self, Plane};
use super::mapfile::{MapPrimitive, MapSide};
use super::original::{BrushFrom, Budget, OrigBrush, OrigSide, Original, TexTruth};
use super::quake::{default_valve, entity_models, valve_from_vecs};
use crate::branches::respawn::lumps::*;
use crate::branches::respawn::records::{CmPrimitive, PRIMITIVE_BRUSH};
use crate::branches::respawn::view::{Game, Titanfall, Titanfall2, TitanfallX360, View};
use crate::bsp::Bsp;
use crate::error::{Error, ErrorKind, Result};

const BEVEL_AREA: f64 = 0.01;
/// MRVN-Radiant's default texture scale for a face without stored vectors: 0.25 units per texel.
const MRVN_TEXEL_SCALE: f64 = 0.25;

/// Titanfall / Titanfall 2.
pub(super) fn extract(bsp: &Bsp, budget: &mut Budget) -> Result<Original> {
    match bsp.branch().id {
        "titanfall" => with(View::<Titanfall>::new(bsp)?, budget),
        "titanfall_x360" => with(View::<TitanfallX360>::new(bsp)?, budget),
        "titanfall2" => with(View::<Titanfall2>::new(bsp)?, budget),
        other => Err(Error::new(ErrorKind::Unsupported(format!(
            "decompiling {other} maps: Apex Legends maps keep BVH collision, no brush lumps"
        )))),
    }
}

fn with<G: Game>(v: View<'_, G>, budget: &mut Budget) -> Result<Original> {
    let bsp = v.bsp();
    let planes = v.planes()?;
    let brushes = v.cm_brushes()?;
    let offsets = v.cm_brush_side_plane_offsets()?;
    let props = v.cm_brush_side_properties()?;
    let vecs = v.cm_brush_side_texture_vectors()?;
    let unique = v.cm_unique_contents()?;
    let (cells, geo_sets, prims) = (v.cm_grid_cells()?, v.cm_geo_sets()?, v.cm_primitives()?);
    let grid = v.cm_grid()?;
    let first_plane = grid.map_or(0, |g| g.first_brush_plane.get() as i64);
    let (mut entities, ent_models) = entity_models(bsp)?;
    if entities.is_empty() {
        return Err(Error::malformed("the map has no entities (no worldspawn to hold the brushes)".to_string()));
    }
    let model_entities = super::original::ModelEntities::new(&ent_models);
    let entity_of_model = |m: usize| model_entities.get(m);

    // Contents and owning model of each brush, from the primitives the grid cells name.
    let mut contents: Vec<Option<i64>> = vec![None; brushes.len()];
    let mut owner: Vec<usize> = vec![0; brushes.len()];
    let world_cells = grid.map_or(0, |g| (g.count[0].get().max(0) as usize).saturating_mul(g.count[1].get().max(0) as usize));
    for (ci, cell) in cells.iter().enumerate() {
        let model = ci.saturating_sub(world_cells);
        let (f, n) = (cell.first_geo_set.get() as usize, cell.num_geo_sets.get() as usize);
        for gs in geo_sets.get(f..f.saturating_add(n).min(geo_sets.len())).unwrap_or(&[]) {
            budget.spend(1)?;
            let one = [gs.primitive];
            let run: &[CmPrimitive<G::O>] = if gs.num_primitives.get() == 1 {
                &one
            } else {
                let f = gs.primitive.index() as usize;
                prims.get(f..f.saturating_add(gs.num_primitives.get() as usize).min(prims.len())).unwrap_or(&[])
            };
            budget.spend(run.len() as u64)?;
            for p in run.iter().filter(|p| p.kind() == PRIMITIVE_BRUSH) {
                let b = p.index() as usize;
                if b < brushes.len() {
                    contents[b] = unique.get(p.unique_contents() as usize).map(|c| c.get() as i64);
                    if model > 0 {
                        owner[b] = model;
                    }
                }
            }
        }
    }

    let mut orig = Original::default();
    let mut scratch = Vec::new();
    for (bi, b) in brushes.iter().enumerate() {
        budget.spend(1)?;
        let origin = b.origin.map(|c| c.get() as f64);
        let ext = b.extents.map(|c| c.get() as f64);
        if !origin.iter().chain(&ext).all(|c| c.is_finite() && c.abs() < 1e6) {
            return Err(bsp.lump_error(LUMP_CM_BRUSHES, Error::malformed(format!("brush {bi}: box out of range"))));
        }
        let (index, offset, extra) = (b.index.get() as i64, b.brush_side_offset.get() as i64, b.num_plane_offsets as i64);
        let mut bplanes = Vec::with_capacity(6 + extra as usize);
        for axis in 0..3 {
            for sign in [-1.0, 1.0] {
                let mut normal = [0.0; 3];
                normal[axis] = sign;
                bplanes.push(Plane { normal, dist: sign * origin[axis] + ext[axis] });
            }
        }
        for k in offset..offset + extra {
            let o = usize::try_from(k)
                .ok()
                .and_then(|k| offsets.get(k))
                .ok_or_else(|| bsp.lump_error(LUMP_CM_BRUSHES, Error::malformed(format!("brush {bi}: plane offset {k} out of range"))))?;
            let pi = first_plane + k - o.get() as i64;
            let p = usize::try_from(pi)
                .ok()
                .and_then(|i| planes.get(i))
                .ok_or_else(|| bsp.lump_error(LUMP_CM_BRUSHES, Error::malformed(format!("brush {bi}: plane {pi} out of range"))))?;
            let pl = Plane { normal: p.normal.map(|c| c.get() as f64), dist: p.dist.get() as f64 };
            if !(pl.normal.iter().all(|c| c.is_finite()) && (geom::length(pl.normal) - 1.0).abs() < 1e-3 && pl.dist.abs() < 1e6) {
                return Err(bsp.lump_error(LUMP_PLANES, Error::malformed(format!("plane {pi} is not a finite unit-length plane"))));
            }
            bplanes.push(pl);
        }
        let first_side = 6 * index + offset;
        let mut out_sides = Vec::new();
        let mut orig_sides = Vec::new();
        let c = contents[bi].unwrap_or(1);
        for (k, p) in bplanes.iter().enumerate() {
            budget.spend(bplanes.len() as u64)?;
            let mut steps = u64::MAX;
            let w = geom::side_polygon(&bplanes, k, &mut scratch, &mut steps);
            if geom::area(&w) < BEVEL_AREA {
                orig.bevels += 1;
                continue;
            }
            let si = usize::try_from(first_side + k as i64).ok();
            let prop = si.and_then(|s| props.get(s));
            let name = prop.and_then(|p| v.texture_name(p.texture_data() as usize)).map(|n| n.into_owned()).unwrap_or_default();
            let name = if name.is_empty() { "TOOLS/TOOLSNODRAW".to_string() } else { name };
            let flags = prop.map_or(0, |p| p.flags() as i64);
            let rows = si.and_then(|s| vecs.get(s)).map(|t| [t.s.map(|c| c.get() as f64), t.t.map(|c| c.get() as f64)]);
            let (projection, truth) = match rows.filter(|r| r.iter().flatten().all(|c| c.is_finite())) {
                Some(rows) => (valve_from_vecs(rows, p.normal), TexTruth::Axes { name: name.clone(), rows }),
                None => (default_valve(p.normal, MRVN_TEXEL_SCALE), TexTruth::Name(name.clone())),
            };
            out_sides.push(MapSide { points: geom::three_points(p, &w), texture: name, projection, flags: Some([c, flags, 0]) });
            orig_sides.push(OrigSide { plane: *p, truth });
        }
        if out_sides.len() < 4 {
            orig.notes.push(format!("brush {bi}: only {} sides bound a volume; left out", out_sides.len()));
            orig.skipped_brushes += 1;
            continue;
        }
        let ei = entity_of_model(owner[bi]).unwrap_or(0);
        let index = entities[ei].primitives.len();
        entities[ei].primitives.push(MapPrimitive::Brush(out_sides));
        let bevels = bplanes.len() - orig_sides.len();
        orig.brushes.push(OrigBrush {
            source: bi,
            from: BrushFrom::Lump,
            bevels,
            entity: ei,
            index,
            sides: orig_sides,
            contents: contents[bi],
        });
    }
    if !vecs.is_empty() || !brushes.is_empty() {
        orig.notes.push(format!(
            "{} of {} brush sides have texture vectors (CM_BRUSH_SIDE_TEXTURE_VECTORS); the others are written at 0.25 units per texel",
            vecs.len().min(props.len()),
            props.len()
        ));
    }
    super::cod::drawn_faces(bsp, &mut orig, budget)?;
    orig.entities = entities;
    Ok(orig)
}
