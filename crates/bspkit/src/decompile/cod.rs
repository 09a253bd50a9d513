//! Call of Duty 1 / 2 / 4: brushes from the BRUSHES and BRUSHSIDES lumps, written as Call of
//! Duty Radiant `.map` ([`super::mapfile::Dialect::CodRadiant`]).
//!
//! A brush is a side count and a material; its sides follow each other in BRUSHSIDES, brush by
//! brush. The first six sides are the brush's box and store, in place of a plane index, the
//! coordinate of the box face as an `f32` in the order min x, max x, min y, max y, min z, max z
//! (respawn_cod_facts.md §2.2; the order read off the four corpus maps, where each pair is
//! increasing and the boxes enclose the brushes' other planes); sides 6.. index PLANES.
//! Sides the other planes clip away are the compiler's bevels and are left out.
//!
//! Not recovered: texture alignment. The brush sides record only a material; the drawn triangle
//! soups carry texture coordinates, but no side-to-surface link, so every side is written at the
//! editor's default (64 units per repeat, no offset or rotation) and texture fidelity measures
//! names only. Contents come from the materials (the editor has no per-side contents).

use super::geom::{self, Plane};
use super::mapfile::{MapPrimitive, MapSide, TexProjection};
use super::original::{BrushFrom, Budget, OrigBrush, OrigFace, OrigSide, Original, TexTruth};
use super::quake::{entity_models, model_offset};
use crate::branches::cod::lumps::{self as ids, cod1_ids, cod2_ids, is_cod12};
use crate::branches::cod::records::{Brush, BrushSide, Material, Model, Plane as DPlane};
use crate::branches::cod::records12::Model12;
use crate::bsp::Bsp;
use crate::error::{Error, Result};

/// Below this area (square units) a side polygon is a bevel.
const BEVEL_AREA: f64 = 0.01;

/// Lump ids of one game.
struct Ids {
    materials: usize,
    planes: usize,
    sides: usize,
    brushes: usize,
    models: usize,
}

/// Call of Duty 1, 2 or 4.
pub(super) fn extract(bsp: &Bsp, budget: &mut Budget) -> Result<Original> {
    let branch = bsp.branch();
    let (ids, brush_runs) = if is_cod12(branch) {
        let i = if branch.id == ids::COD2.id {
            Ids {
                materials: cod2_ids::MATERIALS,
                planes: cod2_ids::PLANES,
                sides: cod2_ids::BRUSHSIDES,
                brushes: cod2_ids::BRUSHES,
                models: cod2_ids::MODELS,
            }
        } else {
            Ids {
                materials: cod1_ids::MATERIALS,
                planes: cod1_ids::PLANES,
                sides: cod1_ids::BRUSHSIDES,
                brushes: cod1_ids::BRUSHES,
                models: cod1_ids::MODELS,
            }
        };
        let runs: Vec<(i64, i64)> =
            bsp.records::<Model12>(i.models)?.iter().map(|m| (m.first_brush.get() as i64, m.brush_count.get() as i64)).collect();
        (i, runs)
    } else {
        let i = Ids {
            materials: ids::LUMP_MATERIALS,
            planes: ids::LUMP_PLANES,
            sides: ids::LUMP_BRUSHSIDES,
            brushes: ids::LUMP_BRUSHES,
            models: ids::LUMP_MODELS,
        };
        let runs = bsp.records::<Model>(i.models)?.iter().map(|m| (m.first_brush.get() as i64, m.brush_count.get() as i64)).collect();
        (i, runs)
    };
    let materials = bsp.records::<Material>(ids.materials)?;
    let planes = bsp.records::<DPlane>(ids.planes)?;
    let sides = bsp.records::<BrushSide>(ids.sides)?;
    let brushes = bsp.records::<Brush>(ids.brushes)?;
    let (mut entities, ent_models) = entity_models(bsp)?;
    let model_entities = super::original::ModelEntities::new(&ent_models);
    let entity_of_model = |m: usize| model_entities.get(m);
    let material_name = |i: u64| usize::try_from(i).ok().and_then(|i| materials.get(i)).map(|m| m.name().into_owned());

    // Each brush's first side: the side counts added up in lump order.
    let mut first_side = Vec::with_capacity(brushes.len());
    let mut at = 0usize;
    for b in brushes {
        first_side.push(at);
        at = at.saturating_add(b.num_sides.get() as usize);
    }

    let mut orig = Original::default();
    let mut used = vec![false; brushes.len()];
    let placed = |orig: &mut Original,
                  entities: &mut Vec<super::mapfile::MapEntity>,
                  budget: &mut Budget,
                  bi: usize,
                  ei: usize,
                  off: [f64; 3]|
     -> Result<()> {
        let brush = &brushes[bi];
        let n = brush.num_sides.get() as usize;
        let range = super::original::side_range(sides, bi, first_side[bi] as i64, n as i64).map_err(|e| bsp.lump_error(ids.brushes, e))?;
        if n < 6 {
            orig.notes.push(format!("brush {bi}: {n} sides, fewer than its box's six; left out"));
            orig.skipped_brushes += 1;
            return Ok(());
        }
        let mut bplanes = Vec::with_capacity(n);
        for (k, s) in range.iter().enumerate() {
            let p = if k < 6 {
                let d = s.distance() as f64;
                if !(d.is_finite() && d.abs() < 1e6) {
                    return Err(
                        bsp.lump_error(ids.sides, Error::malformed(format!("brush {bi} side {k}: box coordinate {d} out of range")))
                    );
                }
                let mut normal = [0.0; 3];
                // Even sides are the box's minimum (normal −axis), odd ones its maximum.
                let sign = if k % 2 == 0 { -1.0 } else { 1.0 };
                normal[k / 2] = sign;
                Plane { normal, dist: sign * d }
            } else {
                let i = s.plane_or_dist.get() as usize;
                let p = planes.get(i).ok_or_else(|| {
                    bsp.lump_error(ids.sides, Error::malformed(format!("brush {bi} side {k}: plane {i} is out of range")))
                })?;
                let pl = Plane { normal: p.normal.map(|c| c.get() as f64), dist: p.dist.get() as f64 };
                if !(pl.normal.iter().all(|c| c.is_finite()) && (geom::length(pl.normal) - 1.0).abs() < 1e-3 && pl.dist.abs() < 1e6) {
                    return Err(bsp.lump_error(ids.planes, Error::malformed(format!("plane {i} is not a finite unit-length plane"))));
                }
                pl
            };
            bplanes.push(Plane { normal: p.normal, dist: p.dist + geom::dot(p.normal, off) });
        }
        let mut scratch = Vec::new();
        let mut out_sides = Vec::new();
        let mut orig_sides = Vec::new();
        for (i, (s, p)) in range.iter().zip(&bplanes).enumerate() {
            budget.spend(bplanes.len() as u64)?;
            let mut steps = u64::MAX;
            let w = geom::side_polygon(&bplanes, i, &mut scratch, &mut steps);
            if geom::area(&w) < BEVEL_AREA {
                orig.bevels += 1;
                continue;
            }
            let name = material_name(s.material.get() as u64).unwrap_or_default();
            out_sides.push(MapSide {
                points: geom::three_points(p, &w),
                // Call of Duty 1 / 2 materials are stored below `textures/`; the editor names
                // them without it (as Quake 3's Radiant does); CoD4's have no prefix.
                texture: if name.is_empty() { "caulk".into() } else { super::quake::map_shader_name(&name) },
                projection: TexProjection::Standard { offset: [0.0, 0.0], rotation: 0.0, scale: [64.0, 64.0] },
                flags: None,
            });
            orig_sides.push(OrigSide { plane: *p, truth: TexTruth::Name(if name.is_empty() { "caulk".into() } else { name }) });
        }
        if out_sides.len() < 4 {
            orig.notes.push(format!("brush {bi}: only {} sides bound a volume; left out", out_sides.len()));
            orig.skipped_brushes += 1;
            return Ok(());
        }
        let index = entities[ei].primitives.len();
        entities[ei].primitives.push(MapPrimitive::Brush(out_sides));
        // Contents are the materials': compared through the side materials, not written.
        let bevels = bplanes.len() - orig_sides.len();
        orig.brushes.push(OrigBrush { source: bi, from: BrushFrom::Lump, bevels, entity: ei, index, sides: orig_sides, contents: None });
        Ok(())
    };
    for (m, &(first, count)) in brush_runs.iter().enumerate() {
        let Some(ei) = entity_of_model(m) else {
            if count > 0 {
                orig.notes.push(format!("model {m}: {count} brushes, no entity names it; left out"));
            }
            continue;
        };
        let off = model_offset(&entities[ei], m);
        for bi in first.max(0)..first.max(0).saturating_add(count.max(0)) {
            budget.spend(1)?;
            let Some(b) = usize::try_from(bi).ok().filter(|&b| b < brushes.len()) else {
                return Err(bsp.lump_error(ids.models, Error::malformed(format!("model {m}: brush {bi} out of range"))));
            };
            if std::mem::replace(&mut used[b], true) {
                continue;
            }
            placed(&mut orig, &mut entities, budget, b, ei, off)?;
        }
    }
    // Brushes no model lists belong to the world (none on the corpus maps).
    let unlisted: Vec<usize> = used.iter().enumerate().filter(|(_, u)| !**u).map(|(b, _)| b).collect();
    for b in unlisted {
        budget.spend(1)?;
        placed(&mut orig, &mut entities, budget, b, 0, [0.0; 3])?;
    }
    if entities.is_empty() {
        return Err(Error::malformed("the map has no entities (no worldspawn to hold the brushes)".to_string()));
    }
    drawn_faces(bsp, &mut orig, budget)?;
    orig.entities = entities;
    Ok(orig)
}

/// The drawn triangles of the map's scene as faces for coverage, by the entity that places each
/// model (the world's when none does).
pub(super) fn drawn_faces(bsp: &Bsp, orig: &mut Original, budget: &mut Budget) -> Result<()> {
    // A map whose drawn surfaces cannot be read still decompiles; its coverage is then that of
    // no faces (`null`), with the reason noted.
    let scene = match crate::mesh::build(bsp, &Default::default()) {
        Ok(s) => s,
        Err(e) => {
            orig.notes.push(format!("drawn surfaces not read ({e}): face coverage not measured"));
            return Ok(());
        }
    };
    for model in &scene.models {
        let ei = model.entity.unwrap_or(0);
        // Brush models' vertices are relative to their entity's origin, as their brushes are.
        let off = if model.index == 0 { [0.0; 3] } else { model.origin.map(|c| c as f64) };
        let pos = &model.vertices.positions;
        for s in &model.surfaces {
            let texture = scene.material(s.material).map(|m| m.name.clone()).unwrap_or_default();
            let idx = model.indices.get(s.indices.start as usize..s.indices.end as usize).unwrap_or(&[]);
            budget.spend(idx.len() as u64 / 3 + 1)?;
            for t in idx.chunks_exact(3) {
                let Some(c) =
                    t.iter().map(|&i| pos.get(i as usize).map(|p| geom::add(p.map(|x| x as f64), off))).collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                let pts = [c[0], c[1], c[2]];
                // Scene triangles wind counter-clockwise seen from the front.
                let Some(normal) = geom::normalize(geom::cross(geom::sub(pts[1], pts[0]), geom::sub(pts[2], pts[0]))) else { continue };
                if geom::area(&pts) < 1e-6 {
                    continue;
                }
                orig.faces.push(OrigFace {
                    entity: ei,
                    texture: texture.clone(),
                    plane: Plane { normal, dist: geom::dot(normal, pts[0]) },
                    polygons: vec![pts.to_vec()],
                });
            }
        }
    }
    Ok(())
}
