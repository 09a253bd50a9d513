//! Genesis3D (`GBSP` 15): brushes rebuilt from each model's node tree, as for Quake 1
//! ([`super::quake1`]): the chunks keep faces, the tree and per-leaf collision planes
//! (LEAF_SIDES, bevels included), no brushes. Every leaf with contents (any bit set: solid,
//! window, clip, the liquids' `EMPTY2`, area, …) is a convex region bounded by the node planes
//! on its path ([`super::treewalk`]) and the model's bounds; regions are cut where a side spans
//! drawn faces of several textures, merged while their union stays convex ([`super::tree`]),
//! and each side takes the texture of the drawn face on its plane that it overlaps most.
//!
//! Written as a Valve 220 `.map` with `contents flags value` on every side (the leaf's
//! Genesis3D contents bits, the texinfo's flags, 0), not as GEdit's `.3dt` (docs/decompile.md
//! says why). Genesis3D is Y-up; the `.map` is Z-up as the Quake-family editors expect, turned
//! as `bsp export` turns Genesis3D meshes ([`crate::branches::genesis3d::view::to_z_up`]:
//! `(x, y, z)` → `(x, −z, y)`, a rotation, so lengths, areas and volumes are unchanged).
//! Positions, planes and texture axes are turned alike, and so are the three-number `origin`
//! keys of the entities (counted in a note); other keys are written as stored.
//!
//! Texture axes: the engine's texel is `dot(p, vec) / draw_scale + shift` per axis
//! ([`crate::branches::genesis3d::records::TexInfo::texel`]), so the Valve 220 row is the
//! turned `vec / draw_scale` with offset `shift`: the written side gives each corner the texel
//! the engine gives it.
//!
//! Models: a `%Model%` entity's `Model` key names its model. The compiler leaves each model's
//! faces and tree where they were built (the entity's `origin` is the pivot, not a placement),
//! so no model is moved.

use std::collections::HashMap;

use super::geom::{self, Plane};
use super::mapfile::{MapEntity, MapPrimitive, MapSide};
use super::original::{BrushFrom, Budget, OrigBrush, OrigFace, OrigSide, Original, TexTruth};
use super::quake;
use super::quake1::{best_drawn_texture, cut_by_texture, finite, overlaps, DrawFace, Extracted, QuakeFormat, TreeQuality};
use super::tree::{self, Origin, Region};
use super::treewalk::{self, Child, TreeSource};
use crate::branches::genesis3d::lumps::{CHUNK_LEAFS, CHUNK_NODES};
use crate::branches::genesis3d::records as g;
use crate::branches::genesis3d::view::{to_z_up, View};
use crate::bsp::Bsp;
use crate::error::{Error, Result};

/// The region starts as the model's bounds grown by this much, so a node plane on the bounds
/// still cuts a closed region.
const BOUNDS_MARGIN: f64 = 8.0;
/// Merge work allowed per region (face pairs compared, planes clipped), beyond a fixed floor.
const MERGE_WORK_PER_REGION: u64 = 20_000;
/// Texture written on sides no drawn face lies on (inside solid, or at the model's bounds).
pub(super) const TOOL_TEXTURE: &str = "skip";
/// `BSP_CONTENTS_CLIP2` (`GBSPFILE.H`): a clip brush. The compiler keeps clip brushes in the
/// node tree, as leaves with this bit (and `DETAIL2`) and no drawn faces; the collision tree
/// (BNODES) holds none of them (docs/decompile.md, session 41).
const CONTENTS_CLIP: i32 = 1 << 6;
/// Texture written on every side of a clip region (its contents bits say what it is).
const CLIP_TEXTURE: &str = "clip";

/// Plane `i` of the level, turned to Z-up (`None`: out of range or not a unit plane).
fn plane_at(planes: &[g::Plane], i: i64) -> Option<Plane> {
    let p = planes.get(usize::try_from(i).ok()?)?;
    finite(Plane { normal: to_z_up(p.normal.map(|c| c.get() as f64)), dist: p.dist.get() as f64 })
}

/// A negative child is leaf `-(child + 1)` (`GBSPFILE.H`, as in Quake 2).
fn child(c: i64) -> Child {
    if c < 0 {
        Child::Leaf((-(c + 1)) as usize)
    } else {
        Child::Node(c as usize)
    }
}

/// The level's tree as [`TreeSource`].
struct Tree<'a> {
    bsp: &'a Bsp<'a>,
    nodes: &'a [g::Node],
    leafs: &'a [g::Leaf],
    planes: &'a [g::Plane],
}

impl TreeSource for Tree<'_> {
    fn node(&self, n: usize) -> Result<(Plane, [Child; 2])> {
        let bad = |what: String| self.bsp.lump_error(CHUNK_NODES, Error::malformed(format!("node {n}: {what}")));
        let node = self.nodes.get(n).ok_or_else(|| bad(format!("out of range 0..{}", self.nodes.len())))?;
        let pi = node.plane.get() as i64;
        let plane = plane_at(self.planes, pi).ok_or_else(|| bad(format!("plane {pi} is out of range or not a unit plane")))?;
        Ok((plane, node.children.map(|c| child(c.get() as i64))))
    }
    fn leaf_contents(&self, l: usize) -> Result<i32> {
        let leaf = self.leafs.get(l).ok_or_else(|| {
            self.bsp.lump_error(CHUNK_LEAFS, Error::malformed(format!("leaf {l} is out of range 0..{}", self.leafs.len())))
        })?;
        Ok(leaf.contents.get())
    }
}

/// How far a drawn face's corners may lie from a side's plane for the face to count as on it
/// when their plane records differ: the compiler keeps near-equal planes of sloped walls as
/// separate records (genvs2: a node plane and a face's plane 0.05–0.18 units apart across the
/// face, normals 10⁻⁵ apart), so a side on the node's plane finds no face on its exact plane.
const NEAR_PLANE: f64 = 0.25;

/// Drawn faces by their normal rounded to 10⁻² (the side's own cell and its neighbours are
/// searched).
fn by_direction(draw: &[DrawFace]) -> HashMap<[i64; 3], Vec<usize>> {
    let mut out: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, d) in draw.iter().enumerate() {
        out.entry(d.plane.normal.map(|c| (c * 100.0).round() as i64)).or_default().push(i);
    }
    out
}

/// The texture of the drawn face a side overlaps most among those on a near-equal plane
/// (normal within 10⁻⁴ per axis, every corner within [`NEAR_PLANE`] of the side's plane).
fn near_plane_texture(f: &tree::Face, draw: &[DrawFace], near: &HashMap<[i64; 3], Vec<usize>>, budget: &mut Budget) -> Result<Option<u32>> {
    let fb = tree::bounds(std::slice::from_ref(f));
    let cell = f.plane.normal.map(|c| (c * 100.0).round() as i64);
    let mut best = (0.0, None);
    for dx in -1..=1 {
        for dy in -1..=1 {
            for dz in -1..=1 {
                let Some(cands) = near.get(&[cell[0] + dx, cell[1] + dy, cell[2] + dz]) else { continue };
                budget.spend(cands.len() as u64)?;
                for &c in cands {
                    let d = &draw[c];
                    if !overlaps(&fb, &d.bounds)
                        || (0..3).any(|k| (d.plane.normal[k] - f.plane.normal[k]).abs() > 1e-4)
                        || d.polygon.iter().any(|p| f.plane.distance(*p).abs() > NEAR_PLANE)
                    {
                        continue;
                    }
                    budget.spend((d.polygon.len() * f.winding.len()) as u64)?;
                    let a = geom::intersect_area(&d.polygon, &f.winding, f.plane.normal);
                    if a > best.0 {
                        best = (a, Some(d.tex));
                    }
                }
            }
        }
    }
    Ok(best.1.filter(|_| best.0 > 1e-3))
}

/// Each entity with its model: entity 0 is the world (model 0), a `%Model%` entity's `Model`
/// key names its model. Entity 0 gets `classname worldspawn` when it has none (GEdit writes
/// the world's keys without one), and `origin` / `Origin` keys of three numbers are turned to
/// Z-up; the counts of both go to `notes`.
fn entities(bsp: &Bsp, notes: &mut Vec<String>) -> Result<(Vec<MapEntity>, Vec<Option<usize>>)> {
    let ents = bsp.entities()?;
    let (mut out, mut models) = (Vec::with_capacity(ents.len()), Vec::with_capacity(ents.len()));
    let mut turned = 0usize;
    for (i, e) in ents.iter().enumerate() {
        let mut pairs: Vec<(String, String)> = e.iter().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        let model = if i == 0 {
            Some(0)
        } else if e.get("classname").as_deref() == Some("%Model%") {
            e.get("Model").and_then(|m| m.trim().parse::<usize>().ok()).filter(|&n| n > 0)
        } else {
            None
        };
        for (_, v) in pairs.iter_mut().filter(|(k, _)| k.eq_ignore_ascii_case("origin")) {
            let xs: Vec<f64> = v.split_whitespace().filter_map(|t| t.parse::<f64>().ok()).filter(|x| x.is_finite()).collect();
            if xs.len() == 3 && v.split_whitespace().count() == 3 {
                let p = to_z_up([xs[0], xs[1], xs[2]]);
                *v = format!("{} {} {}", p[0], p[1], p[2]);
                turned += 1;
            }
        }
        if i == 0 && !pairs.iter().any(|(k, _)| k == "classname") {
            pairs.insert(0, ("classname".into(), "worldspawn".into()));
            notes.push("entity 0 (the world's keys) has no classname: written with classname worldspawn".into());
        }
        models.push(model);
        out.push(MapEntity { pairs, primitives: Vec::new() });
    }
    if turned > 0 {
        notes.push(format!("{turned} origin keys turned from Genesis3D's Y-up to the .map's Z-up: (x, y, z) -> (x, -z, y)"));
    }
    Ok((out, models))
}

/// Extract the entities, rebuilt brushes and drawn faces of a Genesis3D level.
pub(super) fn extract(bsp: &Bsp, budget: &mut Budget, work_budget: u64) -> Result<Extracted> {
    let v = View::new(bsp)?;
    let (planes, nodes, leafs, models) = (v.planes()?, v.nodes()?, v.leafs()?, v.models()?);
    let (faces, vert_index, verts, texinfo, textures) = (v.faces()?, v.vert_index()?, v.verts()?, v.texinfo()?, v.textures()?);
    let tree_src = Tree { bsp, nodes, leafs, planes };
    let mut orig = Original::default();
    let (mut entities, ent_models) = entities(bsp, &mut orig.notes)?;
    let mut tq = TreeQuality { source: "tree", ..Default::default() };

    // Per texinfo: name, Valve 220 rows (texels per unit, turned to Z-up) and flags; the tool
    // texture last.
    let mut names = Vec::with_capacity(texinfo.len() + 1);
    let mut rows: Vec<Option<[[f64; 4]; 2]>> = Vec::with_capacity(texinfo.len() + 1);
    let mut tex_flags = Vec::with_capacity(texinfo.len() + 1);
    for t in texinfo {
        budget.spend(1)?;
        let ti = t.texture.get();
        let name = match usize::try_from(ti).ok().and_then(|i| textures.get(i)) {
            Some(tx) if !tx.name().trim().is_empty() => tx.name().replace(|c: char| c.is_whitespace() || c == '"', "_"),
            _ => format!("texture{ti}"),
        };
        let row = |k: usize| -> Option<[f64; 4]> {
            let s = t.draw_scale[k].get() as f64;
            let s = if s == 0.0 { 1.0 } else { s };
            let a = to_z_up(t.vecs[k].map(|c| c.get() as f64 / s));
            let r = [a[0], a[1], a[2], t.shift[k].get() as f64];
            r.iter().all(|c| c.is_finite()).then_some(r)
        };
        names.push(name);
        rows.push(row(0).zip(row(1)).map(|(a, b)| [a, b]));
        tex_flags.push(t.flags.get() as i64);
    }
    let tool = names.len() as u32;
    names.push(TOOL_TEXTURE.to_string());
    rows.push(None);
    tex_flags.push(0);
    let clip = names.len() as u32;
    names.push(CLIP_TEXTURE.to_string());
    rows.push(None);
    tex_flags.push(0);

    let entity_of_model = |m: usize| ent_models.iter().position(|x| *x == Some(m));
    let mut near_plane_sides = 0usize;
    let (mut tree_brushes, mut model_volumes, mut face_rows) = (Vec::new(), Vec::new(), Vec::new());
    let mut pts: Vec<[f64; 3]> = Vec::new();
    for (m, model) in models.iter().enumerate() {
        let Some(ei) = entity_of_model(m) else {
            if m > 0 {
                orig.notes.push(format!("model {m}: no %Model% entity names it; left out"));
            }
            continue;
        };
        let (lo, hi) = (model.mins.map(|c| c.get() as f64), model.maxs.map(|c| c.get() as f64));
        if !(0..3).all(|k| lo[k].is_finite() && hi[k].is_finite() && lo[k] <= hi[k] && lo[k].abs() < 1e6 && hi[k].abs() < 1e6) {
            orig.notes.push(format!("model {m}: bounds {lo:?}..{hi:?} are not a box; left out"));
            continue;
        }
        // The box turned: y and z swap, the new y is the old z negated.
        let (mins, maxs) = ([lo[0], -hi[2], lo[1]], [hi[0], -lo[2], hi[1]]);
        let head = child(model.root_node[0].get() as i64);

        // Drawn faces, facing out of the region they bound.
        let first = model.first_face.get().max(0) as usize;
        let count = model.num_faces.get().max(0) as usize;
        let mut draw: Vec<DrawFace> = Vec::new();
        for face in faces.iter().skip(first).take(count) {
            budget.spend(1)?;
            let (fv, nv) = (face.first_vert.get(), face.num_verts.get());
            let Some(list) = usize::try_from(fv).ok().zip(usize::try_from(nv).ok()).and_then(|(a, n)| vert_index.get(a..a.checked_add(n)?))
            else {
                continue;
            };
            budget.spend(list.len() as u64)?;
            pts.clear();
            for i in list {
                match usize::try_from(i.get()).ok().and_then(|i| verts.get(i)) {
                    Some(p) => pts.push(to_z_up(p.point.map(|c| c.get() as f64))),
                    None => {
                        pts.clear();
                        break;
                    }
                }
            }
            if pts.len() < 3 || !pts.iter().flatten().all(|c| c.is_finite() && c.abs() < 1e6) {
                continue;
            }
            let Some(mut plane) = plane_at(planes, face.plane.get() as i64) else { continue };
            if face.plane_side.get() != 0 {
                plane = plane.flipped();
            }
            let Some(ti) = u32::try_from(face.texinfo.get()).ok().filter(|&t| (t as usize) < texinfo.len()) else { continue };
            // A face seen from inside a see-through region (water, a window): contents 0 is empty.
            let empty_at = |p, steps: &mut u64| treewalk::contents_at(&tree_src, head, p, steps).map(|c| c == 0);
            draw.push(DrawFace::facing_out(plane, &pts, ti, empty_at, budget)?);
        }
        let by_plane = DrawFace::by_plane(&draw);

        // Regions: the leaves with contents.
        let start = tree::box_faces(mins.map(|c| c - BOUNDS_MARGIN), maxs.map(|c| c + BOUNDS_MARGIN), Origin::Bound);
        let walked = treewalk::walk(&tree_src, head, start, |c| c != 0, budget)?;
        tq.leaf_volume += walked.volume;
        tq.slivers_dropped += walked.slivers;
        tq.regions += walked.regions.len();
        let (mut regions, cuts) = cut_by_texture(walked.regions, &draw, &by_plane, budget)?;
        tq.texture_cuts += cuts;

        // Textures: the drawn face on each side's plane that the side overlaps most; where no
        // face has the side's exact plane, one on a near-equal plane record.
        let near = by_direction(&draw);
        for r in regions.iter_mut() {
            for f in r.faces.iter_mut().filter(|f| f.origin == Origin::Plane) {
                if let Some((t, _)) = best_drawn_texture(f, &draw, &by_plane, budget)? {
                    f.tex = Some(t);
                } else if let Some(t) = near_plane_texture(f, &draw, &near, budget)? {
                    f.tex = Some(t);
                    near_plane_sides += 1;
                }
            }
        }
        let limit = (regions.len() as u64).saturating_mul(MERGE_WORK_PER_REGION).saturating_add(1_000_000).min(work_budget / 4);
        let (merged, stats) = tree::merge(regions, limit);
        budget.spend(stats.work)?;
        tq.merge_tries += stats.tries;
        tq.merge_stopped |= stats.stopped;
        tq.merged_brushes += merged.len();
        let regions: Vec<Region> = merged;

        // Output brushes. A clip region has no drawn face of its own: every side is written
        // with the clip texture.
        for r in &regions {
            let mut sides = Vec::with_capacity(r.faces.len());
            let mut osides = Vec::with_capacity(r.faces.len());
            let is_clip = r.contents & CONTENTS_CLIP != 0;
            tq.clip_brushes += usize::from(is_clip);
            for f in &r.faces {
                let t = if is_clip { clip } else { f.tex.unwrap_or(tool) } as usize;
                if t == tool as usize {
                    tq.tool_sides += 1;
                }
                let projection = match rows[t] {
                    Some(rw) => quake::valve_from_vecs(rw, f.plane.normal),
                    None => quake::default_valve(f.plane.normal, 1.0),
                };
                sides.push(MapSide {
                    points: geom::three_points(&f.plane, &f.winding),
                    texture: names[t].clone(),
                    projection,
                    flags: Some([r.contents as i64, tex_flags[t], 0]),
                });
                osides.push(OrigSide { plane: f.plane, truth: TexTruth::Name(names[t].clone()) });
            }
            let index = entities[ei].primitives.len();
            entities[ei].primitives.push(MapPrimitive::Brush(sides));
            tree_brushes.push((ei, index));
            orig.brushes.push(OrigBrush {
                source: orig.brushes.len(),
                from: BrushFrom::Tree,
                bevels: 0,
                entity: ei,
                index,
                sides: osides,
                contents: Some(r.contents as i64),
            });
        }
        model_volumes.push((ei, walked.volume));
        for d in draw {
            face_rows.push(rows[d.tex as usize]);
            orig.faces.push(OrigFace { entity: ei, texture: names[d.tex as usize].clone(), plane: d.plane, polygons: vec![d.polygon] });
        }
    }
    if near_plane_sides > 0 {
        orig.notes.push(format!(
            "{near_plane_sides} sides took the texture of a drawn face on a near-equal plane record (none on their exact plane)"
        ));
    }
    if tq.merge_stopped {
        orig.notes.push("merge work allowance spent: some regions stayed unmerged".into());
    }
    orig.entities = entities;
    Ok(Extracted { orig, tree: tq, tree_brushes, model_volumes, face_rows, format: QuakeFormat::Valve220, renamed: HashMap::new() })
}

/// The texture projection of a side, for tests: rows back from what is written.
#[cfg(test)]
fn rows_of(p: &super::mapfile::TexProjection) -> Option<[[f64; 4]; 2]> {
    quake::vecs_from_valve(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written Valve 220 axes give each corner of a face the texel the engine gives it.
    #[test]
    fn written_axes_give_the_engines_texels() {
        let mut t: g::TexInfo = zerocopy::FromZeros::new_zeroed();
        t.vecs = [[0.04f32, 0.0, 0.0], [0.0, -0.04, 0.0]].map(|v| v.map(zerocopy::byteorder::F32::new));
        t.draw_scale = [0.08f32, 0.08].map(zerocopy::byteorder::F32::new);
        t.shift = [3.0f32, -5.0].map(zerocopy::byteorder::F32::new);
        let s = [0.08f64, 0.08];
        let rows: [[f64; 4]; 2] = std::array::from_fn(|k| {
            let a = to_z_up(t.vecs[k].map(|c| c.get() as f64 / s[k]));
            [a[0], a[1], a[2], t.shift[k].get() as f64]
        });
        let p = quake::valve_from_vecs(rows, [0.0, 0.0, 1.0]);
        let back = rows_of(&p).unwrap();
        for pos in [[10.0f32, 20.0, 30.0], [-64.0, 0.0, 128.0]] {
            let engine = t.texel(pos);
            let q = to_z_up(pos.map(f64::from));
            for k in 0..2 {
                let written = geom::dot([back[k][0], back[k][1], back[k][2]], q) + back[k][3];
                assert!((written - engine[k] as f64).abs() < 1e-3, "{written} vs {}", engine[k]);
            }
        }
    }

    /// The builder's small level (one textured quad over a solid leaf) with model bounds set to
    /// the box under the quad: one brush comes back, covering the quad, with the quad's
    /// texture, the leaf's contents, and axes giving every corner the engine's texel.
    /// Where chunk `kind`'s records start: chunk headers `{i32 type, i32 size, i32 count}`
    /// follow each other from the start.
    fn chunk_at(data: &[u8], kind: usize) -> usize {
        let mut at = 0;
        loop {
            let word = |k: usize| i32::from_le_bytes(data[at + 4 * k..at + 4 * k + 4].try_into().unwrap());
            let (k, size, count) = (word(0), word(1), word(2));
            if k == kind as i32 {
                return at + 12;
            }
            at += 12 + (size * count) as usize;
        }
    }

    /// The builder's small level with its model bounds set to the box under the quad.
    fn small_level_bounded() -> Vec<u8> {
        let mut data = crate::branches::genesis3d::room::small_level();
        let models = chunk_at(&data, crate::branches::genesis3d::lumps::CHUNK_MODELS);
        // Genesis3D's Y-up box under the quad (the quad lies at z = 0, facing +z).
        for (k, x) in [0.0f32, 0.0, -64.0, 64.0, 64.0, 0.0].iter().enumerate() {
            data[models + 8 + 4 * k..models + 12 + 4 * k].copy_from_slice(&x.to_le_bytes());
        }
        data
    }

    /// The small level's solid leaf made a clip leaf (`CLIP2 | DETAIL2`, as the compiler stores
    /// a clip brush): the brush comes back with the clip texture on every side, the leaf's
    /// contents in every side's flags, and is counted as a clip brush.
    #[test]
    fn a_clip_leaf_comes_back_as_a_clip_brush() {
        let mut data = small_level_bounded();
        // Leaf 1 (60-byte records, contents first) is the solid leaf under the quad.
        let leaf1 = chunk_at(&data, CHUNK_LEAFS) + 60;
        data[leaf1..leaf1 + 4].copy_from_slice(&(CONTENTS_CLIP | 1 << 5).to_le_bytes());
        let bsp = Bsp::from_bytes(&data).unwrap();
        let d = crate::decompile::decompile(&bsp, &Default::default()).unwrap();
        let t = d.report.quality.as_ref().unwrap().tree.as_ref().unwrap();
        assert_eq!((t.merged_brushes, t.clip_brushes, t.tool_sides), (1, 1, 0));
        let parsed = crate::decompile::mapfile::read_map(d.text.as_bytes()).unwrap();
        let brushes: Vec<_> = parsed[0].brushes().collect();
        assert_eq!(brushes.len(), 1);
        assert_eq!(brushes[0].len(), 6);
        assert!(brushes[0].iter().all(|s| s.texture == CLIP_TEXTURE && s.flags == Some([0x60, 0, 0])), "{:?}", brushes[0]);
        // The solid leaf as built is no clip brush.
        let d = crate::decompile::decompile(&Bsp::from_bytes(&small_level_bounded()).unwrap(), &Default::default()).unwrap();
        assert_eq!(d.report.quality.as_ref().unwrap().tree.as_ref().unwrap().clip_brushes, 0);
        let parsed = crate::decompile::mapfile::read_map(d.text.as_bytes()).unwrap();
        assert!(parsed[0].brushes().flatten().all(|s| s.texture != CLIP_TEXTURE));
    }

    #[test]
    fn builder_level_comes_back() {
        let data = small_level_bounded();
        let bsp = Bsp::from_bytes(&data).unwrap();
        let d = crate::decompile::decompile(&bsp, &Default::default()).unwrap();
        assert_eq!(d.report.dialect, "genesis3d-valve220");
        let q = d.report.quality.as_ref().unwrap();
        assert!(q.face_coverage.unwrap() > 99.99, "{:?}", q.face_coverage);
        let t = q.tree.as_ref().unwrap();
        assert_eq!((t.regions, t.merged_brushes, t.faces, t.faces_same_texture), (1, 1, 1, 1));
        assert!(t.volume_error.unwrap() < 1e-6);
        let parsed = crate::decompile::mapfile::read_map(d.text.as_bytes()).unwrap();
        assert_eq!(parsed[0].pairs[0], ("classname".to_string(), "worldspawn".to_string()));
        // The start's origin "0 0 32", turned to Z-up.
        assert!(parsed[1].pairs.contains(&("origin".to_string(), "0 -32 0".to_string())), "{:?}", parsed[1].pairs);
        let brushes: Vec<_> = parsed[0].brushes().collect();
        assert_eq!(brushes.len(), 1);
        let stone: Vec<_> = brushes[0].iter().filter(|s| s.texture == "stone").collect();
        assert_eq!(stone.len(), 1, "{:?}", brushes[0]);
        assert!(brushes[0].iter().all(|s| s.flags == Some([1, 0, 0])), "{:?}", brushes[0]);
        let rows = rows_of(&stone[0].projection).unwrap();
        let v = View::new(&bsp).unwrap();
        let tex = &v.texinfo().unwrap()[0];
        for p in v.verts().unwrap() {
            let p = p.point.map(|c| c.get());
            let engine = tex.texel(p);
            let q = to_z_up(p.map(f64::from));
            for k in 0..2 {
                let written = geom::dot([rows[k][0], rows[k][1], rows[k][2]], q) + rows[k][3];
                assert!((written - engine[k] as f64).abs() < 1e-9, "{written} vs {}", engine[k]);
            }
        }
    }
}
