//! Quake 2 and Quake 3 families: brushes from the BRUSHES and BRUSHSIDES lumps.
//!
//! Each brush side is a plane (outward); the side's polygon is that plane clipped by the brush's
//! other planes, and sides the others clip away are the bevels the compiler added for collision
//! (quake_facts.md §4 lumps 14–15, §5 lumps 8–9), which the map source never had.

use super::geom::{self, Plane};
use super::mapfile::{base_axes, MapEntity, MapPatch, MapPrimitive, MapSide, TexProjection};
use super::original::{BrushFrom, Budget, OrigBrush, OrigFace, OrigSide, OrigTriangle, Original, TexTruth};
use super::trigrid::{inside_bounds_with, TriGrid};
use crate::branches::quake2::records::{
    self as q2, BrushSideRecord as _, FaceRecord as _, IndexRecord as _, LeafRecord as _, NodeRecord as _, TexInfoRecord,
};
use crate::branches::quake3::records::{self as q3, BrushSideRecord as _, SurfaceRecord as _};
use crate::bsp::Bsp;
use crate::error::{Error, Result};

/// Below this area (square units) a side polygon is a bevel: it touches the brush along an edge
/// or at a corner only.
const BEVEL_AREA: f64 = 0.01;

/// The entities of the map with their pairs in order and the brush model each one names
/// (`*N`; the first entity is the world, model 0).
pub(super) fn entity_models(bsp: &Bsp) -> Result<(Vec<MapEntity>, Vec<Option<usize>>)> {
    let ents = bsp.entities()?;
    let mut out = Vec::with_capacity(ents.len());
    let mut models = Vec::with_capacity(ents.len());
    for (i, e) in ents.iter().enumerate() {
        let pairs: Vec<(String, String)> = e.iter().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        let model = if i == 0 {
            Some(0)
        } else {
            e.get("model").and_then(|m| m.strip_prefix('*').and_then(|n| n.parse::<usize>().ok())).filter(|&n| n > 0)
        };
        models.push(model);
        out.push(MapEntity { pairs, primitives: Vec::new() });
    }
    Ok((out, models))
}

/// The offset to add to a brush model's geometry to place it in the world: its entity's
/// `origin` (the compilers subtract it from an origin-brush entity's brushes).
pub(super) fn model_offset(e: &MapEntity, model: usize) -> [f64; 3] {
    if model == 0 {
        return [0.0; 3];
    }
    let Some((_, v)) = e.pairs.iter().find(|(k, _)| k == "origin") else { return [0.0; 3] };
    let mut it = v.split_whitespace().map(|t| t.parse::<f64>().ok().filter(|x| x.is_finite()));
    match (it.next().flatten(), it.next().flatten(), it.next().flatten()) {
        (Some(x), Some(y), Some(z)) if x.abs() < 1e6 && y.abs() < 1e6 && z.abs() < 1e6 => [x, y, z],
        _ => [0.0; 3],
    }
}

/// `p` if its numbers are finite, its normal of unit length (within `f32` rounding) and its
/// distance inside the coordinate range clipping works in.
fn finite(p: Plane) -> Option<Plane> {
    let ok = p.normal.iter().all(|c| c.is_finite()) && (geom::length(p.normal) - 1.0).abs() < 1e-3 && p.dist.abs() < 1e6;
    ok.then_some(p)
}

fn shifted(p: Plane, off: [f64; 3]) -> Plane {
    Plane { normal: p.normal, dist: p.dist + geom::dot(p.normal, off) }
}

/// The side polygons of a brush (empty for bevels) and whether each is a real side.
fn brush_polygons(planes: &[Plane], budget: &mut Budget) -> Result<Vec<Vec<[f64; 3]>>> {
    let mut scratch = Vec::new();
    let mut out = Vec::with_capacity(planes.len());
    for i in 0..planes.len() {
        budget.spend(planes.len() as u64)?;
        let mut steps = u64::MAX;
        let w = geom::side_polygon(planes, i, &mut scratch, &mut steps);
        out.push(if geom::area(&w) < BEVEL_AREA { Vec::new() } else { w });
    }
    Ok(out)
}

/// The editor's default projection of a face (axes of its nearest axial plane), `scale` units
/// per texel: Quake 2 / 3 editors use 1, MRVN-Radiant (Titanfall) 0.25.
pub(super) fn default_valve(normal: [f64; 3], scale: f64) -> TexProjection {
    let a = normal.map(f64::abs);
    let (u, v) = if a[2] >= a[0] && a[2] >= a[1] {
        ([1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0])
    } else if a[0] >= a[1] {
        ([0.0, 1.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0])
    } else {
        ([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0])
    };
    TexProjection::Valve { u, v, rotation: 0.0, scale: [scale, scale] }
}

/// Valve 220 axes from texinfo rows (texels per unit along each axis, offset in texels): the
/// axis is the row normalised, the scale its inverse length, so the rows come back exactly.
pub(super) fn valve_from_vecs(vecs: [[f64; 4]; 2], normal: [f64; 3]) -> TexProjection {
    let mut axes = [[0.0; 4]; 2];
    let mut scales = [1.0; 2];
    for (k, row) in vecs.iter().enumerate() {
        let l = geom::length([row[0], row[1], row[2]]);
        if !(l > 1e-9 && l.is_finite()) {
            return default_valve(normal, 1.0);
        }
        axes[k] = [row[0] / l, row[1] / l, row[2] / l, row[3]];
        scales[k] = 1.0 / l;
    }
    TexProjection::Valve { u: axes[0], v: axes[1], rotation: 0.0, scale: scales }
}

/// Texinfo rows back from a Valve 220 projection (the inverse of [`valve_from_vecs`]).
pub(super) fn vecs_from_valve(p: &TexProjection) -> Option<[[f64; 4]; 2]> {
    match p {
        TexProjection::Valve { u, v, scale, .. } if scale[0] != 0.0 && scale[1] != 0.0 => {
            Some([[u[0] / scale[0], u[1] / scale[0], u[2] / scale[0], u[3]], [v[0] / scale[1], v[1] / scale[1], v[2] / scale[1], v[3]]])
        }
        _ => None,
    }
}

/// Value of a texinfo (SiN has none).
trait TexValue {
    fn value(&self) -> i64;
}
impl TexValue for q2::TexInfo {
    fn value(&self) -> i64 {
        self.value.get() as i64
    }
}
impl TexValue for q2::TexInfoSin {
    fn value(&self) -> i64 {
        0
    }
}

/// Quake 2 family (IBSP 38, Qbism, SiN, SoF, Daikatana).
pub(super) fn quake2(bsp: &Bsp, budget: &mut Budget) -> Result<Original> {
    use q2::Layout as _;
    match bsp.branch().id {
        id if id == q2::Qbism::BRANCH_ID => quake2_with::<q2::Qbism>(bsp, budget),
        id if id == q2::Sin::BRANCH_ID => quake2_with::<q2::Sin>(bsp, budget),
        id if id == q2::Sof::BRANCH_ID => quake2_with::<q2::Sof>(bsp, budget),
        id if id == q2::Daikatana::BRANCH_ID => quake2_with::<q2::Daikatana>(bsp, budget),
        _ => quake2_with::<q2::Ibsp>(bsp, budget),
    }
}

fn quake2_with<L: q2::Layout>(bsp: &Bsp, budget: &mut Budget) -> Result<Original>
where
    L::TexInfo: TexValue,
{
    use crate::branches::quake2::lumps::*;
    let v = crate::branches::quake2::view::View::<L>::new(bsp)?;
    let (planes, nodes, leaves, leaf_brushes, models) = (v.planes()?, v.nodes()?, v.leaves()?, v.leaf_brushes()?, v.models()?);
    let (brushes, sides, texinfo, faces) = (v.brushes()?, v.brush_sides()?, v.texinfo()?, v.faces()?);
    let (mut entities, ent_models) = entity_models(bsp)?;
    let plane_of = |i: i64, lump: usize| -> Result<Plane> {
        let p = usize::try_from(i)
            .ok()
            .and_then(|i| planes.get(i))
            .ok_or_else(|| bsp.lump_error(lump, Error::malformed(format!("plane {i} is out of range"))))?;
        finite(Plane { normal: p.normal.map(|c| c.get() as f64), dist: p.dist.get() as f64 })
            .ok_or_else(|| bsp.lump_error(LUMP_PLANES, Error::malformed(format!("plane {i} is not a finite unit-length plane"))))
    };

    let (brush_model, _) = super::original::brush_models(
        brushes.len(),
        models.iter().map(|m| m.head_node.get() as i64),
        nodes.len(),
        |n| nodes[n].children(),
        |l| leaves.get(l).map(|leaf| leaf.leaf_brush_range()),
        |i| leaf_brushes.get(i).map(|b| b.value()),
        budget,
    )?;
    let model_entities = super::original::ModelEntities::new(&ent_models);
    let entity_of_model = |m: usize| model_entities.get(m);

    let mut orig = Original::default();
    for (bi, brush) in brushes.iter().enumerate() {
        let m = brush_model[bi];
        let Some(ei) = entity_of_model(m) else {
            orig.notes.push(format!("brush {bi}: model {m} has no entity; left out"));
            continue;
        };
        let off = model_offset(&entities[ei], m);
        let (first, count) = (brush.first_side.get() as i64, brush.num_sides.get() as i64);
        let range = super::original::side_range(sides, bi, first, count).map_err(|e| bsp.lump_error(LUMP_BRUSHES, e))?;
        let bplanes: Vec<Plane> =
            range.iter().map(|s| plane_of(s.plane(), LUMP_BRUSH_SIDES).map(|p| shifted(p, off))).collect::<Result<_>>()?;
        let polys = brush_polygons(&bplanes, budget)?;
        let contents = brush.contents.get() as i64;
        let mut out_sides = Vec::new();
        let mut orig_sides = Vec::new();
        for ((s, p), poly) in range.iter().zip(&bplanes).zip(&polys) {
            if poly.is_empty() {
                continue;
            }
            let ti = usize::try_from(s.texinfo()).ok().and_then(|t| texinfo.get(t));
            let (texture, projection, flags, truth) = match ti {
                Some(t) => {
                    let vecs = t.vecs().map(|r| r.map(|c| c as f64));
                    let name = t.texture_name().into_owned();
                    (
                        name.clone(),
                        valve_from_vecs(vecs, p.normal),
                        [contents, t.flags(), t.value()],
                        TexTruth::Rows { name, rows: vecs, flags: [t.flags(), t.value()] },
                    )
                }
                None => ("NULL".to_string(), default_valve(p.normal, 1.0), [contents, 0, 0], TexTruth::None),
            };
            out_sides.push(MapSide { points: geom::three_points(p, poly), texture, projection, flags: Some(flags) });
            orig_sides.push(OrigSide { plane: *p, truth });
        }
        let dropped = range.len() - out_sides.len();
        orig.bevels += dropped;
        if out_sides.len() < 4 {
            orig.notes.push(format!("brush {bi}: only {} sides bound a volume; left out", out_sides.len()));
            orig.skipped_brushes += 1;
            continue;
        }
        let index = entities[ei].primitives.len();
        orig.keep_clipped(ei, index, &out_sides, bplanes, polys);
        entities[ei].primitives.push(MapPrimitive::Brush(out_sides));
        orig.brushes.push(OrigBrush {
            source: bi,
            from: BrushFrom::Lump,
            bevels: dropped,
            entity: ei,
            index,
            sides: orig_sides,
            contents: Some(contents),
        });
    }

    // Drawn faces, for coverage.
    let corners = v.corner_tables()?;
    let mut pts = Vec::new();
    for (m, model) in models.iter().enumerate() {
        let Some(ei) = entity_of_model(m) else { continue };
        let off = model_offset(&entities[ei], m);
        let (first, count) = (model.first_face.get() as i64, model.num_faces.get() as i64);
        for fi in first.max(0)..first.max(0).saturating_add(count.max(0)) {
            budget.spend(1)?;
            let Some(face) = usize::try_from(fi).ok().and_then(|f| faces.get(f)) else { break };
            corners.face_points(face, &mut pts)?;
            let mut plane = plane_of(face.plane(), LUMP_FACES)?;
            if face.side() != 0 {
                plane = plane.flipped();
            }
            let polygon: Vec<[f64; 3]> = pts.iter().map(|p| geom::add(p.map(|c| c as f64), off)).collect();
            if !polygon.iter().flatten().all(|c| c.abs() < 1e6) {
                continue;
            }
            let texture = usize::try_from(face.texinfo())
                .ok()
                .and_then(|t| texinfo.get(t))
                .map(|t| t.texture_name().into_owned())
                .unwrap_or_default();
            orig.faces.push(OrigFace { entity: ei, texture, plane: shifted(plane, off), polygons: vec![polygon] });
        }
    }
    orig.entities = entities;
    Ok(orig)
}

/// Shader names in a `.map` are below `textures/` (q3map2 adds the prefix back).
pub(super) fn map_shader_name(name: &str) -> String {
    map_shader_str(name).to_string()
}

/// [`map_shader_name`] as a part of `name`, no string of its own (the measure compares one per
/// side).
pub(super) fn map_shader_str(name: &str) -> &str {
    name.strip_prefix("textures/").unwrap_or(name)
}

trait Q3Vert {
    fn xyz(&self) -> [f64; 3];
    fn st(&self) -> [f64; 2];
}
impl Q3Vert for q3::DrawVert {
    fn xyz(&self) -> [f64; 3] {
        self.xyz.map(|c| c.get() as f64)
    }
    fn st(&self) -> [f64; 2] {
        self.st.map(|c| c.get() as f64)
    }
}
impl Q3Vert for q3::DrawVertEf2 {
    fn xyz(&self) -> [f64; 3] {
        self.xyz.map(|c| c.get() as f64)
    }
    fn st(&self) -> [f64; 2] {
        self.st.map(|c| c.get() as f64)
    }
}
impl Q3Vert for q3::DrawVertRbsp {
    fn xyz(&self) -> [f64; 3] {
        self.xyz.map(|c| c.get() as f64)
    }
    fn st(&self) -> [f64; 2] {
        self.st.map(|c| c.get() as f64)
    }
}

/// Quake 3 family (IBSP 46/47, Quake Live, RBSP, FBSP).
pub(super) fn quake3(bsp: &Bsp, budget: &mut Budget) -> Result<Original> {
    crate::branches::quake3::lumps::with_record_set!(bsp.branch(), quake3_with(bsp, budget))
}

/// Surface types (quake_family.md A.4 "face"): 1 planar, 2 patch.
const MST_PLANAR: i64 = 1;
const MST_PATCH: i64 = 2;

fn quake3_with<L: q3::Layout>(bsp: &Bsp, budget: &mut Budget) -> Result<Original>
where
    L::DrawVert: Q3Vert,
{
    use crate::branches::quake3::lumps::*;
    use q3::{BrushRecord, ShaderRecord};
    let v = crate::branches::quake3::view::View::<L>::new(bsp)?;
    let (shaders, planes, models, brushes, sides) = (v.shaders()?, v.planes()?, v.models()?, v.brushes()?, v.brush_sides()?);
    let (surfaces, verts, indices) = (v.surfaces()?, v.draw_vertices()?, v.draw_indices()?);
    let (mut entities, ent_models) = entity_models(bsp)?;
    let plane_of = |i: i64| -> Result<Plane> {
        let p = usize::try_from(i)
            .ok()
            .and_then(|i| planes.get(i))
            .ok_or_else(|| bsp.lump_error(LUMP_BRUSH_SIDES, Error::malformed(format!("plane {i} is out of range"))))?;
        finite(Plane { normal: p.normal.map(|c| c.get() as f64), dist: p.dist.get() as f64 })
            .ok_or_else(|| bsp.lump_error(LUMP_PLANES, Error::malformed(format!("plane {i} is not a finite unit-length plane"))))
    };
    // Each shader's name once: read per side, the name (its C string checked as UTF-8) and
    // the owned copy were 2 % of a 10 MB Quake 3 decompile in callgrind.
    let shader_names: Vec<String> = shaders.iter().map(|s| s.name().into_owned()).collect();
    let shader_name = |i: i64| usize::try_from(i).ok().and_then(|i| shader_names.get(i)).map_or("", String::as_str);
    let model_entities = super::original::ModelEntities::new(&ent_models);
    let entity_of_model = |m: usize| model_entities.get(m);

    // Drawn triangles of planar surfaces by model, with their texture coordinates: the faces
    // for coverage and the samples brush-primitive matrices are fitted to.
    struct Tri {
        pts: [[f64; 3]; 3],
        st: [[f64; 2]; 3],
        shader: i64,
        normal: [f64; 3],
        surface: i64,
        centroid: [f64; 3],
    }
    // q3map2 rounds drawn brush-side vertices to 1/8 unit (module `snapcover`).
    let mut orig = Original { vertex_snap: super::snapcover::Q3MAP2_VERTEX_GRID, ..Original::default() };
    let mut tris_by_model: Vec<Vec<Tri>> = Vec::with_capacity(models.len());
    // Triangles the planar surfaces before each surface index (at most; a model's share is a
    // difference of two entries).
    let mut planar_before = Vec::with_capacity(surfaces.len() + 1);
    planar_before.push(0usize);
    for s in surfaces.iter() {
        let n = if s.surface_type() == MST_PLANAR { usize::try_from(s.index_range().1).map_or(0, |n| n / 3) } else { 0 };
        planar_before.push(planar_before.last().copied().unwrap_or(0).saturating_add(n));
    }
    let mut reserve_left = indices.len() / 3;
    for (m, model) in models.iter().enumerate() {
        let off = entity_of_model(m).map(|ei| model_offset(&entities[ei], m)).unwrap_or([0.0; 3]);
        let (first, count) = (model.first_surface.get() as i64, model.num_surfaces.get() as i64);
        // Room for every triangle the model's planar surfaces index, reserved once (no regrowth
        // through a large model's list).
        let in_range = |i: i64| usize::try_from(i).map_or(0, |i| i.min(surfaces.len()));
        let most = planar_before[in_range(first.max(0).saturating_add(count.max(0)))] - planar_before[in_range(first.max(0))];
        // All models' reservations together stay within the index lump's triangles (a hostile
        // map's models may all claim every surface).
        let mut tris = Vec::with_capacity(most.min(reserve_left));
        reserve_left -= tris.capacity().min(reserve_left);
        for si in first.max(0)..first.max(0).saturating_add(count.max(0)) {
            budget.spend(1)?;
            let Some(surf) = usize::try_from(si).ok().and_then(|s| surfaces.get(s)) else { break };
            let (fv, nv) = surf.vert_range();
            let Some(sv) = usize::try_from(fv).ok().zip(usize::try_from(nv).ok()).and_then(|(f, n)| verts.get(f..f.checked_add(n)?)) else {
                orig.notes.push(format!("surface {si}: vertices out of range"));
                continue;
            };
            match surf.surface_type() {
                MST_PATCH => {
                    let (w, h) = surf.patch_size();
                    let (Ok(w), Ok(h)) = (usize::try_from(w), usize::try_from(h)) else { continue };
                    if w < 3 || h < 3 || w.checked_mul(h) != Some(sv.len()) {
                        orig.notes.push(format!("surface {si}: patch {w}×{h} does not match its {} vertices", sv.len()));
                        continue;
                    }
                    let Some(ei) = entity_of_model(m) else { continue };
                    let points = sv
                        .iter()
                        .map(|p| {
                            let x = geom::add(p.xyz(), off);
                            let st = p.st();
                            [x[0], x[1], x[2], st[0], st[1]]
                        })
                        .collect();
                    let texture = map_shader_name(shader_name(surf.shader()));
                    entities[ei].primitives.push(MapPrimitive::Patch(MapPatch { texture, width: w, height: h, points }));
                    orig.patches += 1;
                }
                MST_PLANAR => {
                    let (fi, ni) = surf.index_range();
                    let Some(si_) =
                        usize::try_from(fi).ok().zip(usize::try_from(ni).ok()).and_then(|(f, n)| indices.get(f..f.checked_add(n)?))
                    else {
                        continue;
                    };
                    for t in si_.chunks_exact(3) {
                        budget.spend(1)?;
                        let idx = [t[0].get(), t[1].get(), t[2].get()];
                        // No vector per triangle: the three corners or none.
                        let [Some(c0), Some(c1), Some(c2)] = idx.map(|i| usize::try_from(i).ok().and_then(|i| sv.get(i))) else {
                            continue;
                        };
                        let c = [c0, c1, c2];
                        let pts = [c[0].xyz(), c[1].xyz(), c[2].xyz()].map(|p| geom::add(p, off));
                        if !pts.iter().flatten().all(|c| c.abs() < 1e6) {
                            continue;
                        }
                        // Quake 3 triangles are wound clockwise seen from the front.
                        let Some(normal) = geom::normalize(geom::cross(geom::sub(pts[2], pts[0]), geom::sub(pts[1], pts[0]))) else {
                            continue;
                        };
                        let centroid = geom::scale(geom::add(geom::add(pts[0], pts[1]), pts[2]), 1.0 / 3.0);
                        tris.push(Tri { pts, st: [c[0].st(), c[1].st(), c[2].st()], shader: surf.shader(), normal, surface: si, centroid });
                    }
                }
                _ => {}
            }
        }
        tris_by_model.push(tris);
    }

    orig.triangles.reserve(tris_by_model.iter().map(Vec::len).sum());
    let mut used = vec![false; brushes.len()];
    for (m, model) in models.iter().enumerate() {
        let Some(ei) = entity_of_model(m) else { continue };
        let off = model_offset(&entities[ei], m);
        let (first, count) = (model.first_brush.get() as i64, model.num_brushes.get() as i64);
        // Triangles of this model by shader, in order, on a grid of their centroids: a side
        // looks only at its shader's near its polygon (every triangle per side was quadratic
        // on large maps, then every triangle of the shader; a side's samples are the same).
        let tris = &tris_by_model[m];
        // Shader numbers come from the map, as grid cells do: hashed as cells (`cellhash`), not
        // SipHash (the maps are only looked up, their order never shows).
        let mut by_shader: crate::cellhash::CellMap<i64, Vec<usize>> = Default::default();
        for (i, t) in tris.iter().enumerate() {
            by_shader.entry(t.shader).or_default().push(i);
        }
        let centroid = |i: usize| tris[i].centroid;
        let by_shader: crate::cellhash::CellMap<i64, TriGrid> =
            by_shader.into_iter().map(|(s, all)| (s, TriGrid::new(all, centroid))).collect();
        let (mut near, mut marks, mut edges, mut edge_normals) = (Vec::new(), Vec::new(), Inside::default(), Vec::new());
        // A side's samples, gathered here and copied out at their size.
        let mut samples_buf: Vec<([f64; 3], [f64; 2])> = Vec::new();
        for bi in first.max(0)..first.max(0).saturating_add(count.max(0)) {
            let Some(bu) = usize::try_from(bi).ok().filter(|&b| b < brushes.len()) else { break };
            if std::mem::replace(&mut used[bu], true) {
                continue;
            }
            let brush = &brushes[bu];
            let (f, n) = (brush.first_side(), brush.num_sides());
            let range = super::original::side_range(sides, bi, f, n).map_err(|e| bsp.lump_error(LUMP_BRUSHES, e))?;
            let bplanes: Vec<Plane> = range.iter().map(|s| plane_of(s.plane()).map(|p| shifted(p, off))).collect::<Result<_>>()?;
            let polys = brush_polygons(&bplanes, budget)?;
            // Room for every side at once (a side per push regrew them).
            let mut out_sides = Vec::with_capacity(range.len());
            let mut orig_sides = Vec::with_capacity(range.len());
            for ((s, p), poly) in range.iter().zip(&bplanes).zip(&polys) {
                if poly.is_empty() {
                    continue;
                }
                let name = shader_name(s.shader());
                // Samples: vertices of the triangles of this shader on this side.
                let samples = &mut samples_buf;
                samples.clear();
                // The compiler shifts each surface's coordinates by whole texture widths, so
                // the matrix is fitted to one surface and checked on all modulo 1.
                let mut fit_from: Option<(i64, usize, usize)> = None;
                budget.spend(tris.len() as u64 / 8 + 1)?;
                let of_shader = match by_shader.get(&s.shader()) {
                    Some(g) => g.near(
                        inside_bounds_with(poly, p.normal, p.dist, SAMPLE_INSIDE, SAMPLE_OFF_PLANE, &mut edge_normals).as_ref(),
                        centroid,
                        &mut near,
                        &mut marks,
                    ),
                    None => &[],
                };
                // The polygon's edges for `inside`, worked out at the first triangle tested.
                let mut edges_ready = false;
                for t in of_shader.iter().map(|&i| &tris[i]).filter(|t| geom::dot(t.normal, p.normal) > 0.9999) {
                    if t.pts.iter().any(|q| p.distance(*q).abs() > SAMPLE_OFF_PLANE) {
                        continue;
                    }
                    if !std::mem::replace(&mut edges_ready, true) {
                        edges.set(poly, p.normal);
                    }
                    if !edges.contains(t.centroid, SAMPLE_INSIDE) {
                        continue;
                    }
                    match &mut fit_from {
                        None => fit_from = Some((t.surface, samples.len(), samples.len() + 3)),
                        Some((s, _, end)) if *s == t.surface && *end == samples.len() => *end += 3,
                        _ => {}
                    }
                    for k in 0..3 {
                        samples.push((t.pts[k], t.st[k]));
                    }
                }
                let fitted = fit_from.and_then(|(_, a, b)| fit_brush_primitive(p.normal, &samples[a..b]));
                let projection = TexProjection::BrushPrimitive { m: fitted.unwrap_or([[1.0 / 128.0, 0.0, 0.0], [0.0, 1.0 / 128.0, 0.0]]) };
                let truth = if samples.is_empty() || fitted.is_none() {
                    TexTruth::Name(name.to_string())
                } else {
                    // A vector of its own, of the samples' size (grown a push at a time per side
                    // before: 1 % of a 10 MB Quake 3 decompile in callgrind).
                    TexTruth::Samples { name: name.to_string(), samples: samples.clone() }
                };
                out_sides.push(MapSide {
                    points: geom::three_points(p, poly),
                    texture: map_shader_name(name),
                    projection,
                    flags: Some([0, 0, 0]),
                });
                orig_sides.push(OrigSide { plane: *p, truth });
            }
            orig.bevels += range.len() - out_sides.len();
            if out_sides.len() < 4 {
                orig.notes.push(format!("brush {bi}: only {} sides bound a volume; left out", out_sides.len()));
                orig.skipped_brushes += 1;
                continue;
            }
            let index = entities[ei].primitives.len();
            orig.keep_clipped(ei, index, &out_sides, bplanes, polys);
            entities[ei].primitives.push(MapPrimitive::Brush(out_sides));
            let bevels = range.len() - orig_sides.len();
            orig.brushes.push(OrigBrush {
                source: bu,
                from: BrushFrom::Lump,
                bevels,
                entity: ei,
                index,
                sides: orig_sides,
                contents: None,
            });
        }
        for t in tris {
            // The shader's name by index (the last entry, empty, for an index out of range):
            // one record per triangle, not a face with a name and two vectors of its own.
            let texture = usize::try_from(t.shader).ok().filter(|&i| i < shaders.len()).unwrap_or(shaders.len());
            orig.triangles.push(OrigTriangle {
                entity: ei,
                texture,
                plane: Plane { normal: t.normal, dist: geom::dot(t.normal, t.pts[0]) },
                pts: t.pts,
            });
        }
    }
    orig.triangle_textures = shader_names.iter().cloned().chain([String::new()]).collect();
    orig.entities = entities;
    Ok(orig)
}

/// A triangle is a side's texture sample when its corners lie within this distance of the
/// side's plane and its centroid is [`inside`] the side's polygon within [`SAMPLE_INSIDE`].
const SAMPLE_OFF_PLANE: f64 = 0.1;
const SAMPLE_INSIDE: f64 = 0.05;

/// `c` inside convex `poly` (on a plane with `normal`), within `eps`.
pub(super) fn inside(poly: &[[f64; 3]], normal: [f64; 3], c: [f64; 3], eps: f64) -> bool {
    let n = poly.len();
    let mut sign = 0.0;
    for i in 0..n {
        let e = geom::sub(poly[(i + 1) % n], poly[i]);
        let Some(en) = geom::normalize(geom::cross(e, normal)) else { continue };
        let d = geom::dot(en, geom::sub(c, poly[i]));
        if sign == 0.0 {
            // The winding's direction is unknown: learn it from the polygon's own centroid.
            let mid = geom::scale(poly.iter().fold([0.0; 3], |a, p| geom::add(a, *p)), 1.0 / n as f64);
            sign = if geom::dot(en, geom::sub(mid, poly[i])) < 0.0 { 1.0 } else { -1.0 };
        }
        if d * sign > eps {
            return false;
        }
    }
    true
}

/// [`inside`] for one polygon and many points: its edges' outward normals (the same numbers)
/// worked out once, not for every point (per point, 2 % of a 10 MB Quake 3 decompile in
/// callgrind).
#[derive(Default)]
pub(super) struct Inside {
    /// Per edge `inside` does not skip: the edge's normal in the plane and its first corner.
    edges: Vec<([f64; 3], [f64; 3])>,
    sign: f64,
}

impl Inside {
    pub(super) fn set(&mut self, poly: &[[f64; 3]], normal: [f64; 3]) {
        self.edges.clear();
        self.sign = 0.0;
        let n = poly.len();
        for i in 0..n {
            let e = geom::sub(poly[(i + 1) % n], poly[i]);
            let Some(en) = geom::normalize(geom::cross(e, normal)) else { continue };
            if self.sign == 0.0 {
                let mid = geom::scale(poly.iter().fold([0.0; 3], |a, p| geom::add(a, *p)), 1.0 / n as f64);
                self.sign = if geom::dot(en, geom::sub(mid, poly[i])) < 0.0 { 1.0 } else { -1.0 };
            }
            self.edges.push((en, poly[i]));
        }
    }
    /// `inside(poly, normal, c, eps)` for the polygon last [`Inside::set`].
    pub(super) fn contains(&self, c: [f64; 3], eps: f64) -> bool {
        // Written as `inside` tests it (a NaN distance passes there too).
        !self.edges.iter().any(|(en, p)| geom::dot(*en, geom::sub(c, *p)) * self.sign > eps)
    }
}

/// Least-squares brush-primitive matrix for `samples` (point, st) on a plane with `normal`:
/// `st = m · (x, y, 1)` with `(x, y)` on [`base_axes`]. `None` below three independent points.
pub(super) fn fit_brush_primitive(normal: [f64; 3], samples: &[([f64; 3], [f64; 2])]) -> Option<[[f64; 3]; 2]> {
    if samples.len() < 3 {
        return None;
    }
    let (bx, by) = base_axes(normal);
    // Centre the coordinates for conditioning, then solve the 3×3 normal equations.
    let n = samples.len() as f64;
    let mean = samples.iter().fold([0.0; 2], |a, (p, _)| [a[0] + geom::dot(*p, bx) / n, a[1] + geom::dot(*p, by) / n]);
    let mut ata = [[0.0f64; 3]; 3];
    let mut atb = [[0.0f64; 3]; 2];
    for (p, st) in samples {
        let r = [geom::dot(*p, bx) - mean[0], geom::dot(*p, by) - mean[1], 1.0];
        for i in 0..3 {
            for j in 0..3 {
                ata[i][j] += r[i] * r[j];
            }
            for k in 0..2 {
                atb[k][i] += r[i] * st[k];
            }
        }
    }
    let inv = invert3(ata)?;
    let mut m = [[0.0; 3]; 2];
    for k in 0..2 {
        let c: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| inv[i][j] * atb[k][j]).sum());
        // Undo the centring: s = a(x − mx) + b(y − my) + c.
        m[k] = [c[0], c[1], c[2] - c[0] * mean[0] - c[1] * mean[1]];
    }
    if !m.iter().flatten().all(|v| v.is_finite()) {
        return None;
    }
    Some(tidy(m, normal, samples))
}

/// The fitted matrix with `f32` noise taken out where the samples allow: scales snapped to
/// multiples of 2⁻¹⁶ within 2·10⁻⁵, offsets refitted and snapped to 2⁻¹⁰ within 10⁻⁴ (of a
/// texture), kept only if every sample still fits within 10⁻⁴ (about `f32` precision of
/// coordinates a few hundred textures from the origin).
fn tidy(m: [[f64; 3]; 2], normal: [f64; 3], samples: &[([f64; 3], [f64; 2])]) -> [[f64; 3]; 2] {
    let snap = |v: f64, step: f64, eps: f64| {
        let r = (v / step).round() * step;
        if (v - r).abs() < eps {
            r
        } else {
            v
        }
    };
    // The plane's axes once, not per sample (`atan2` and `sincos` per sample were 4 % of a
    // 10 MB Quake 3 decompile in perf); the values are the same.
    let axes = base_axes(normal);
    let fits =
        |m: &[[f64; 3]; 2]| samples.iter().all(|(p, st)| eval_on_axes(m, axes, *p).iter().zip(st).all(|(a, b)| (a - b).abs() < 1e-4));
    let mut t = m;
    for row in &mut t {
        row[0] = snap(row[0], 1.0 / 65536.0, 2e-5);
        row[1] = snap(row[1], 1.0 / 65536.0, 2e-5);
    }
    for k in 0..2 {
        let lin = [[t[k][0], t[k][1], 0.0], [0.0; 3]];
        let mean = samples.iter().map(|(p, st)| st[k] - eval_on_axes(&lin, axes, *p)[0]).sum::<f64>() / samples.len() as f64;
        t[k][2] = snap(mean, 1.0 / 1024.0, 1e-4);
    }
    if fits(&t) {
        t
    } else {
        m
    }
}

fn invert3(a: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    let scale = a.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    // Also refuses a NaN determinant.
    if det.abs().partial_cmp(&(1e-12 * scale.powi(3))) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let r = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let (i1, i2, j1, j2) = ((j + 1) % 3, (j + 2) % 3, (i + 1) % 3, (i + 2) % 3);
            (a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1]) / det
        })
    });
    Some(r)
}

/// Evaluate a brush-primitive matrix at `p`.
#[cfg(test)]
pub(super) fn eval_brush_primitive(m: &[[f64; 3]; 2], normal: [f64; 3], p: [f64; 3]) -> [f64; 2] {
    eval_on_axes(m, base_axes(normal), p)
}

/// A brush-primitive matrix evaluated at `p`, the plane's [`base_axes`] already worked out (the
/// same value as working them out per point).
pub(super) fn eval_on_axes(m: &[[f64; 3]; 2], (bx, by): ([f64; 3], [f64; 3]), p: [f64; 3]) -> [f64; 2] {
    let (x, y) = (geom::dot(p, bx), geom::dot(p, by));
    [m[0][0] * x + m[0][1] * y + m[0][2], m[1][0] * x + m[1][1] * y + m[1][2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Inside`, set once per polygon, answers as `inside` does for every point: polygons of
    /// either winding, with a repeated corner (an edge skipped), collinear, empty; points
    /// inside, outside, on the margin, NaN.
    #[test]
    fn inside_set_once_answers_as_inside() {
        let mut next = geom::xorshift(0x2545_f491_4f6c_dd1d);
        let mut r = move || (next() % 20_001) as f64 / 100.0 - 100.0;
        let normal = geom::normalize([0.1, -0.2, 0.97]).unwrap();
        let (u, v) = Plane { normal, dist: 3.0 }.basis();
        let on = |a: f64, b: f64| geom::add(geom::scale(normal, 3.0), geom::add(geom::scale(u, a), geom::scale(v, b)));
        let mut polys: Vec<Vec<[f64; 3]>> = vec![
            vec![on(0.0, 0.0), on(40.0, 0.0), on(40.0, 20.0), on(0.0, 20.0)],
            vec![on(0.0, 20.0), on(40.0, 20.0), on(40.0, 0.0), on(0.0, 0.0)],
            vec![on(0.0, 0.0), on(0.0, 0.0), on(10.0, 0.0), on(0.0, 10.0)],
            vec![on(0.0, 0.0), on(1.0, 0.0), on(2.0, 0.0)],
            vec![on(-30.0, -5.0), on(25.0, 3.0), on(-2.0, 60.0)],
            Vec::new(),
        ];
        polys.push((0..7).map(|k| on(50.0 * (k as f64).cos(), 50.0 * (k as f64).sin())).collect());
        let mut edges = Inside::default();
        for poly in &polys {
            edges.set(poly, normal);
            let mut points: Vec<[f64; 3]> = (0..2_000).map(|_| on(r(), r())).collect();
            points.extend(poly.iter().map(|p| geom::add(*p, geom::scale(u, 0.05))));
            points.push([f64::NAN, 0.0, 0.0]);
            for c in points {
                for eps in [0.0, 0.05] {
                    assert_eq!(edges.contains(c, eps), inside(poly, normal, c, eps), "{poly:?} {c:?}");
                }
            }
        }
    }

    #[test]
    fn valve_rows_round_trip() {
        let rows = [[0.5, 0.0, 0.25, 16.0], [0.0, -2.0, 0.0, -3.5]];
        let p = valve_from_vecs(rows, [0.0, 0.0, 1.0]);
        let back = vecs_from_valve(&p).unwrap();
        for (a, b) in rows.iter().flatten().zip(back.iter().flatten()) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    #[test]
    fn brush_primitive_fit_is_exact() {
        let normal = geom::normalize([0.2, -0.4, 0.9]).unwrap();
        let m = [[0.01, -0.003, 0.25], [0.002, 0.0078, -1.5]];
        let (u, v) = Plane { normal, dist: 10.0 }.basis();
        let samples: Vec<_> = [(0.0, 0.0), (100.0, 0.0), (0.0, 50.0), (30.0, 70.0)]
            .iter()
            .map(|&(a, b)| {
                let p = geom::add(geom::scale(normal, 10.0), geom::add(geom::scale(u, a), geom::scale(v, b)));
                (p, eval_brush_primitive(&m, normal, p))
            })
            .collect();
        let f = fit_brush_primitive(normal, &samples).unwrap();
        for (a, b) in m.iter().flatten().zip(f.iter().flatten()) {
            assert!((a - b).abs() < 1e-9, "{m:?} {f:?}");
        }
        assert!(fit_brush_primitive(normal, &samples[..2]).is_none());
    }
}
