//! Face coverage within a compiler's vertex snap: pairing a drawn triangle with a brush side
//! whose plane its vertices were rounded off.
//!
//! q3map2 builds a brush side's drawn surface from the side's winding and rounds every vertex
//! coordinate to the nearest 1/8 unit before writing it (`DrawSurfaceForSide`, its
//! `SNAP_FLOAT_TO_INT` of 8; every planar-surface vertex of the Quake 3 corpus maps lies on that
//! grid). A coordinate moves by at most half a grid step, so a vertex moves off the side's plane
//! (normal `n`) by at most `(|nx| + |ny| + |nz|) · step / 2` (0.108 units at most, on a diagonal
//! plane). The triangle's own plane can then lean a few degrees off the side's (small
//! triangles lean most), which the same-plane test of the measure rejects, so those faces counted
//! as uncovered although the side that made them came back.
//!
//! Here a triangle pairs with a side of its entity when it faces the same way (positive dot
//! product of the normals) and every vertex lies within that bound of the side's plane, plus
//! [`STORAGE_SLACK`] for the `f32` plane distance and the plane read back from three points. The
//! triangle is projected onto the side's plane and intersected with the side's polygon there;
//! the covered share of the projection is the covered share of the triangle. A side moved by a
//! unit or more, or missing, leaves the triangle uncovered (unit tests below).
//!
//! Candidate sides come from a grid of cells ([`crate::cellhash`]), so the search per triangle
//! visits the sides near it, not all sides of the map.

use super::geom::{self, Plane};
use super::original::Budget;
use crate::cellhash::CellMap;
use crate::error::Result;

/// q3map2's vertex grid: coordinates of drawn brush-side vertices are multiples of 1/8 unit.
pub(crate) const Q3MAP2_VERTEX_GRID: f64 = 1.0 / 8.0;

/// Distances the stored data adds beyond the snap: the `f32` plane distance (under 2.5·10⁻⁴
/// for |d| < 4096) and the plane read back from its three written points; the same 10⁻³ units
/// brush fidelity allows for a distance.
pub(crate) const STORAGE_SLACK: f64 = 1e-3;

/// How far a vertex snapped to `grid` can lie from a plane with `normal`.
pub(crate) fn snap_bound(normal: [f64; 3], grid: f64) -> f64 {
    normal.iter().map(|c| c.abs()).sum::<f64>() * grid / 2.0 + STORAGE_SLACK
}

/// Axis-aligned bounds (min, max).
pub(crate) type Bounds = ([f64; 3], [f64; 3]);

/// A decompiled brush side: its entity (after grouping), plane, polygon and the polygon's
/// bounds. The polygon is the measure's own, borrowed (copying every side's was 2 % of a 10 MB
/// Quake 3 decompile in perf).
pub(crate) struct SidePoly<'a> {
    pub entity: usize,
    pub plane: Plane,
    pub bounds: Bounds,
    pub poly: &'a [[f64; 3]],
}

/// Grid cell edge, units: about a small room's wall, so most sides touch a few cells.
const CELL: f64 = 128.0;
/// A side or triangle spanning more cells than this is searched through its entity's list.
const MAX_CELLS: i64 = 512;

fn cell_range(b: &Bounds, margin: f64) -> Option<([i64; 3], [i64; 3])> {
    let lo: [i64; 3] = std::array::from_fn(|k| geom::floor_i64((b.0[k] - margin) / CELL));
    let hi: [i64; 3] = std::array::from_fn(|k| geom::floor_i64((b.1[k] + margin) / CELL));
    let n = (0..3).try_fold(1i64, |acc, k| acc.checked_mul(hi[k].checked_sub(lo[k])?.checked_add(1)?))?;
    (b.0.iter().chain(&b.1).all(|c| c.is_finite()) && n > 0 && n <= MAX_CELLS).then_some((lo, hi))
}

fn cells(lo: [i64; 3], hi: [i64; 3]) -> impl Iterator<Item = [i64; 3]> {
    (lo[0]..=hi[0]).flat_map(move |x| (lo[1]..=hi[1]).flat_map(move |y| (lo[2]..=hi[2]).map(move |z| [x, y, z])))
}

/// No next link: the end of a cell's chain.
const END: usize = usize::MAX;

/// Sides by grid cell, per entity; sides too wide for the grid in a per-entity list.
pub(crate) struct SideGrid {
    /// Per entity and cell, the first and last link of its chain in `links`. A vector per cell
    /// was an allocation for each of hundreds of thousands of cells (perf: building the grid was
    /// 7 % of a 10 MB Quake 3 decompile, freeing it 1 %).
    cells: CellMap<(usize, [i64; 3]), (usize, usize)>,
    /// `(side, next link)`: each cell's sides in ascending order, as they were added.
    links: Vec<(u32, usize)>,
    wide: CellMap<usize, Vec<u32>>,
    all: CellMap<usize, Vec<u32>>,
    stamp: Vec<u32>,
    round: u32,
    /// Each side's [`snap_bound`], worked out once (it was worked out at every listing of the
    /// side, and again for each candidate: 0.6 % of a 10 MB Quake 3 decompile in callgrind).
    bound: Vec<f64>,
    /// [`SideGrid::covered`]'s candidates and projected face, kept between calls (two new
    /// vectors per face, grown a push at a time, were 4 % of a 10 MB Quake 3 decompile's
    /// instructions in callgrind).
    cands: Vec<u32>,
    projected: Vec<[f64; 3]>,
}

impl SideGrid {
    /// Index `sides` for triangles snapped to `grid`.
    #[cfg(test)]
    pub(crate) fn new(sides: &[SidePoly], grid: f64, budget: &mut Budget) -> Result<SideGrid> {
        Self::build(sides, grid, budget, None)
    }

    /// [`SideGrid::new`] for the faces `queries` (entity, polygon bounds) only: a cell's chain is
    /// built only where one of them will look it up, and there it is the whole chain, in the
    /// same order, so [`SideGrid::covered`] finds the same sides for them. The budget is spent
    /// as for the whole grid. (Building every side's cells was 5.6 % of a 10 MB Quake 3
    /// decompile in callgrind, for the 1,256 faces of 20,000 that needed it.)
    pub(crate) fn near(sides: &[SidePoly], grid: f64, budget: &mut Budget, queries: &[(usize, Bounds)]) -> Result<SideGrid> {
        let mut wanted: CellMap<(usize, [i64; 3]), ()> = CellMap::default();
        // Per entity, the box of the cells wanted: a side outside it skips the lookups.
        let mut extent: CellMap<usize, ([i64; 3], [i64; 3])> = CellMap::default();
        for (entity, b) in queries {
            let Some((lo, hi)) = cell_range(b, 0.0) else { continue };
            for c in cells(lo, hi) {
                wanted.insert((*entity, c), ());
            }
            let e = extent.entry(*entity).or_insert((lo, hi));
            *e = (std::array::from_fn(|k| e.0[k].min(lo[k])), std::array::from_fn(|k| e.1[k].max(hi[k])));
        }
        Self::build(sides, grid, budget, Some((&wanted, &extent)))
    }

    /// The grid, with the chains of every cell (`only` `None`) or of the cells `only` names.
    #[allow(clippy::type_complexity)]
    fn build(
        sides: &[SidePoly],
        grid: f64,
        budget: &mut Budget,
        only: Option<(&CellMap<(usize, [i64; 3]), ()>, &CellMap<usize, ([i64; 3], [i64; 3])>)>,
    ) -> Result<SideGrid> {
        let mut g = SideGrid {
            cells: CellMap::default(),
            links: Vec::new(),
            wide: CellMap::default(),
            all: CellMap::default(),
            stamp: vec![0; sides.len()],
            round: 0,
            bound: sides.iter().map(|s| snap_bound(s.plane.normal, grid)).collect(),
            cands: Vec::new(),
            projected: Vec::new(),
        };
        for (i, s) in sides.iter().enumerate() {
            let i = i as u32;
            g.all.entry(s.entity).or_default().push(i);
            match cell_range(&s.bounds, g.bound[i as usize]) {
                Some((lo, hi)) => match only {
                    None => {
                        for c in cells(lo, hi) {
                            budget.spend(1)?;
                            g.link(i, (s.entity, c));
                        }
                    }
                    Some((wanted, extent)) => {
                        // The same work units as the whole grid: one a cell.
                        budget.spend((0..3).map(|k| (hi[k] - lo[k] + 1) as u64).product())?;
                        let near = extent.get(&s.entity).is_some_and(|(elo, ehi)| (0..3).all(|k| hi[k] >= elo[k] && lo[k] <= ehi[k]));
                        if near {
                            for c in cells(lo, hi).filter(|c| wanted.contains_key(&(s.entity, *c))) {
                                g.link(i, (s.entity, c));
                            }
                        }
                    }
                },
                None => g.wide.entry(s.entity).or_default().push(i),
            }
        }
        Ok(g)
    }

    /// Append side `side` to the chain of `cell`.
    fn link(&mut self, side: u32, cell: (usize, [i64; 3])) {
        let link = self.links.len();
        self.links.push((side, END));
        match self.cells.entry(cell) {
            std::collections::hash_map::Entry::Occupied(mut o) => {
                let (_, last) = o.get_mut();
                self.links[*last].1 = link;
                *last = link;
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert((link, link));
            }
        }
    }

    /// The area of triangle (or convex polygon) `face` of `entity`, facing along `normal`, that
    /// the sides cover within the snap bound, capped at its area.
    pub(crate) fn covered(
        &mut self,
        sides: &[SidePoly],
        entity: usize,
        face: &[[f64; 3]],
        normal: [f64; 3],
        budget: &mut Budget,
    ) -> Result<f64> {
        let a = geom::area(face);
        if a <= 0.0 || face.len() < 3 {
            return Ok(0.0);
        }
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.round = 1;
        }
        let fb = bounds(face);
        let round = self.round;
        let (stamp, cands, bounds_of) = (&mut self.stamp, &mut self.cands, &self.bound);
        cands.clear();
        // A side's first listing only, and only where its bounds meet the face's within the
        // side's snap bound: the sides the loop below goes on with, in the same order (a
        // repeat was skipped there, and a side out of bounds is out at every listing). The
        // budget still counts every listing.
        let mut listed = 0u64;
        let mut take = |i: u32| {
            listed += 1;
            if std::mem::replace(&mut stamp[i as usize], round) == round {
                return;
            }
            let s = &sides[i as usize];
            let bound = bounds_of[i as usize];
            if (0..3).all(|k| fb.0[k] <= s.bounds.1[k] + bound && s.bounds.0[k] <= fb.1[k] + bound) {
                cands.push(i);
            }
        };
        match cell_range(&fb, 0.0) {
            Some((lo, hi)) => {
                for c in cells(lo, hi) {
                    budget.spend(1)?;
                    if let Some(&(first, _)) = self.cells.get(&(entity, c)) {
                        let mut link = first;
                        while let Some(&(side, next)) = self.links.get(link) {
                            take(side);
                            link = next;
                        }
                    }
                }
                self.wide.get(&entity).into_iter().flatten().for_each(|&i| take(i));
            }
            None => self.all.get(&entity).into_iter().flatten().for_each(|&i| take(i)),
        }
        budget.spend(listed)?;
        let mut covered = 0.0;
        let projected = &mut self.projected;
        for &i in self.cands.iter() {
            let s = &sides[i as usize];
            let bound = self.bound[i as usize];
            if geom::dot(normal, s.plane.normal) <= 0.0 || face.iter().any(|p| s.plane.distance(*p).abs() > bound) {
                continue;
            }
            projected.clear();
            projected.extend(face.iter().map(|p| geom::sub(*p, geom::scale(s.plane.normal, s.plane.distance(*p)))));
            let pa = geom::area(projected);
            if pa <= 0.0 {
                continue;
            }
            budget.spend(s.poly.len() as u64)?;
            covered += geom::intersect_area(projected, s.poly, s.plane.normal) / pa * a;
        }
        Ok(covered.min(a))
    }
}

/// Axis-aligned bounds of a polygon.
pub(crate) fn bounds(w: &[[f64; 3]]) -> Bounds {
    w.iter().fold(([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]), |(lo, hi), p| {
        (std::array::from_fn(|k| lo[k].min(p[k])), std::array::from_fn(|k| hi[k].max(p[k])))
    })
}

#[cfg(test)]
mod tests {
    use super::super::mapfile::{Dialect, MapEntity, MapPrimitive, MapSide, TexProjection};
    use super::super::original::{OrigFace, Original};
    use super::*;

    /// A 6-unit box (small triangles lean most when snapped) with its corner cut by a plane with normal (1, 2, 3)/√14 moved `shift`
    /// units out (`None`: the cut left out), as the decompile's brush.
    fn brush(shift: Option<f64>) -> Vec<MapSide> {
        let mut planes = Vec::new();
        for k in 0..3 {
            let mut n = [0.0; 3];
            n[k] = 1.0;
            planes.push(Plane { normal: n, dist: 6.0 });
            n[k] = -1.0;
            planes.push(Plane { normal: n, dist: 0.0 });
        }
        if let Some(s) = shift {
            planes.push(cut(s));
        }
        let mut scratch = Vec::new();
        (0..planes.len())
            .map(|i| {
                let mut steps = u64::MAX;
                let w = geom::side_polygon(&planes, i, &mut scratch, &mut steps);
                MapSide {
                    points: geom::three_points(&planes[i], &w),
                    texture: "base_floor/concrete".into(),
                    projection: TexProjection::BrushPrimitive { m: [[1.0 / 128.0, 0.0, 0.0], [0.0, 1.0 / 128.0, 0.0]] },
                    flags: Some([0, 0, 0]),
                }
            })
            .collect()
    }

    fn cut(shift: f64) -> Plane {
        let n = geom::normalize([1.0, 2.0, 3.0]).unwrap();
        Plane { normal: n, dist: geom::dot(n, [4.1, 3.7, 3.3]) + shift }
    }

    /// The cut's drawn triangles as q3map2 writes them: the side's winding fanned, every
    /// coordinate rounded to 1/8 unit; each face's plane from its own vertices, as the Quake 3
    /// extractor takes it.
    fn snapped_faces() -> Vec<OrigFace> {
        let sides = brush(Some(0.0));
        let all: Vec<Plane> = sides.iter().map(|s| s.plane().unwrap()).collect();
        let mut steps = u64::MAX;
        let w = geom::side_polygon(&all, 6, &mut Vec::new(), &mut steps);
        assert!(w.len() >= 3);
        let w: Vec<[f64; 3]> = w.iter().map(|p| p.map(|c| (c * 8.0).round() / 8.0)).collect();
        // Vertices that moved off the plane, as on the corpus maps.
        assert!(w.iter().any(|p| cut(0.0).distance(*p).abs() > 0.01));
        (1..w.len() - 1)
            .map(|i| {
                let t = vec![w[0], w[i], w[i + 1]];
                let normal = geom::normalize(geom::cross(geom::sub(t[1], t[0]), geom::sub(t[2], t[0]))).unwrap();
                // Drawn facing out of the brush, as the side.
                let normal = if geom::dot(normal, cut(0.0).normal) < 0.0 { geom::scale(normal, -1.0) } else { normal };
                OrigFace {
                    entity: 0,
                    texture: "textures/base_floor/concrete".into(),
                    plane: Plane { normal, dist: geom::dot(normal, t[0]) },
                    polygons: vec![t],
                }
            })
            .collect()
    }

    fn coverage(sides: Vec<MapSide>, snap: f64) -> f64 {
        let e = MapEntity { pairs: vec![("classname".into(), "worldspawn".into())], primitives: vec![MapPrimitive::Brush(sides)] };
        let orig = Original { entities: vec![e.clone()], faces: snapped_faces(), vertex_snap: snap, ..Original::default() };
        let (q, ..) = super::super::measure_parsed(&[e], &orig, Dialect::Quake3BrushDef, &mut Budget::new(1_000_000)).unwrap();
        q.face_coverage.unwrap()
    }

    /// Triangles given as [`Original::triangles`] measure exactly as the same triangles given
    /// as faces (the Quake 3 extractor's compact form), and the grid's chains hand each cell's
    /// sides out in the order they were added.
    #[test]
    fn triangles_measure_as_faces() {
        use super::super::original::OrigTriangle;
        let e = MapEntity {
            pairs: vec![("classname".into(), "worldspawn".into())],
            primitives: vec![MapPrimitive::Brush(brush(Some(0.0))), MapPrimitive::Brush(brush(Some(0.03)))],
        };
        let faces = snapped_faces();
        let as_faces = Original { entities: vec![e.clone()], faces: faces.clone(), vertex_snap: Q3MAP2_VERTEX_GRID, ..Original::default() };
        let as_triangles = Original {
            entities: vec![e.clone()],
            triangles: faces
                .iter()
                .map(|f| OrigTriangle {
                    entity: f.entity,
                    texture: 1,
                    plane: f.plane,
                    pts: [f.polygons[0][0], f.polygons[0][1], f.polygons[0][2]],
                })
                .collect(),
            triangle_textures: vec![String::new(), "textures/base_floor/concrete".into()],
            vertex_snap: Q3MAP2_VERTEX_GRID,
            ..Original::default()
        };
        let measure = |o: &Original| {
            super::super::measure_parsed(std::slice::from_ref(&e), o, Dialect::Quake3BrushDef, &mut Budget::new(1_000_000)).unwrap()
        };
        let (a, b) = (measure(&as_faces), measure(&as_triangles));
        assert!(a.0.covered_area > 0.0);
        assert_eq!((a.0, a.1, a.2), (b.0, b.1, b.2));

        // Three sides over shared cells, and one alone: each cell's chain is ascending.
        let square = |x: f64| vec![[x, 0.0, 0.0], [x + 300.0, 0.0, 0.0], [x + 300.0, 300.0, 0.0], [x, 300.0, 0.0]];
        let polys = [square(0.0), square(100.0), square(1000.0), square(50.0)];
        let plane = Plane { normal: [0.0, 0.0, 1.0], dist: 0.0 };
        let sides: Vec<SidePoly> = polys.iter().map(|p| SidePoly { entity: 0, plane, bounds: bounds(p), poly: p }).collect();
        let g = SideGrid::new(&sides, Q3MAP2_VERTEX_GRID, &mut Budget::new(1_000_000)).unwrap();
        let chain = |c: [i64; 3]| {
            let mut out = Vec::new();
            let mut link = g.cells.get(&(0, c)).map_or(END, |&(first, _)| first);
            while let Some(&(side, next)) = g.links.get(link) {
                out.push(side);
                link = next;
            }
            out
        };
        assert_eq!(chain([1, 1, 0]), vec![0, 1, 3]);
        assert_eq!(chain([8, 1, 0]), vec![2]);
        assert_eq!(chain([20, 1, 0]), Vec::<u32>::new());
    }

    /// A grid built only for some faces answers them as the whole grid does (the same area,
    /// bit for bit) and costs the same work units; sides of three entities on snapped planes,
    /// one too wide for the cells.
    #[test]
    fn grid_near_faces_answers_them_as_the_whole_grid() {
        let mut next = geom::xorshift(0x0123_4567_89ab_cdef);
        let mut r = move |span: u64| (next() % (span * 8)) as f64 / 8.0;
        let mut polys = Vec::new();
        let mut planes = Vec::new();
        for k in 0..300 {
            let normal = geom::normalize([r(4) - 2.0, r(4) - 2.0, 1.0 + r(2)]).unwrap();
            let plane = Plane { normal, dist: r(400) - 200.0 };
            let (u, v) = plane.basis();
            let size = if k == 7 { 40_000.0 } else { 8.0 + r(200) };
            let o = geom::add(geom::scale(normal, plane.dist), geom::add(geom::scale(u, r(1500) - 750.0), geom::scale(v, r(1500) - 750.0)));
            let at = |a: f64, b: f64| geom::add(o, geom::add(geom::scale(u, a), geom::scale(v, b)));
            polys.push(vec![at(0.0, 0.0), at(size, 0.0), at(size, size), at(0.0, size)]);
            planes.push(plane);
        }
        let sides: Vec<SidePoly> = polys
            .iter()
            .zip(&planes)
            .enumerate()
            .map(|(i, (p, pl))| SidePoly { entity: i % 3, plane: *pl, bounds: bounds(p), poly: p })
            .collect();
        // Faces: a snapped triangle off each of some sides, and one of an entity with no sides.
        let mut faces = Vec::new();
        for (i, s) in sides.iter().enumerate().step_by(4) {
            let t: Vec<[f64; 3]> = s.poly[..3].iter().map(|p| p.map(|c| (c * 8.0).round() / 8.0)).collect();
            faces.push((if i == 40 { 9 } else { s.entity }, t, s.plane.normal));
        }
        let cells: u64 = sides
            .iter()
            .filter_map(|s| cell_range(&s.bounds, snap_bound(s.plane.normal, Q3MAP2_VERTEX_GRID)))
            .map(|(lo, hi)| (0..3).map(|k| (hi[k] - lo[k] + 1) as u64).product::<u64>())
            .sum();
        let queries: Vec<(usize, Bounds)> = faces.iter().map(|(e, t, _)| (*e, bounds(t))).collect();
        assert!(SideGrid::new(&sides, Q3MAP2_VERTEX_GRID, &mut Budget::new(cells - 1)).is_err());
        assert!(SideGrid::near(&sides, Q3MAP2_VERTEX_GRID, &mut Budget::new(cells - 1), &queries).is_err());
        let mut whole = SideGrid::new(&sides, Q3MAP2_VERTEX_GRID, &mut Budget::new(cells)).unwrap();
        let mut near = SideGrid::near(&sides, Q3MAP2_VERTEX_GRID, &mut Budget::new(cells), &queries).unwrap();
        assert!(near.links.len() < whole.links.len() / 2, "{} of {}", near.links.len(), whole.links.len());
        let mut hits = 0;
        for (e, t, n) in &faces {
            let a = whole.covered(&sides, *e, t, *n, &mut Budget::new(u64::MAX)).unwrap();
            let b = near.covered(&sides, *e, t, *n, &mut Budget::new(u64::MAX)).unwrap();
            assert_eq!(a.to_bits(), b.to_bits());
            hits += usize::from(a > 0.0);
        }
        assert!(hits > faces.len() / 2, "{hits} of {}", faces.len());
    }

    #[test]
    fn the_bound_is_half_a_grid_step_along_the_normal() {
        assert!((snap_bound([0.0, 0.0, 1.0], Q3MAP2_VERTEX_GRID) - (1.0 / 16.0 + STORAGE_SLACK)).abs() < 1e-12);
        let d = 1.0 / 3f64.sqrt();
        assert!((snap_bound([d, d, d], Q3MAP2_VERTEX_GRID) - (3f64.sqrt() / 16.0 + STORAGE_SLACK)).abs() < 1e-12);
    }

    #[test]
    fn snapped_triangles_are_covered_by_their_side() {
        // The same-plane test alone misses them (their normals lean off the side's) ...
        let strict = coverage(brush(Some(0.0)), 0.0);
        assert!(strict < 99.9, "{strict}");
        // ... the snap bound pairs them, and the projection covers them whole.
        let snapped = coverage(brush(Some(0.0)), Q3MAP2_VERTEX_GRID);
        eprintln!("same-plane test alone {strict} %, within the snap {snapped} %");
        assert!(snapped > 99.999, "{snapped}");
    }

    #[test]
    fn a_moved_or_missing_side_leaves_them_uncovered() {
        for shift in [0.5, -0.5, 4.0, -4.0] {
            let c = coverage(brush(Some(shift)), Q3MAP2_VERTEX_GRID);
            eprintln!("side moved {shift}: {c} %");
            assert!(c < 1.0, "side moved {shift}: {c}");
        }
        let c = coverage(brush(None), Q3MAP2_VERTEX_GRID);
        assert!(c < 1.0, "side missing: {c}");
    }
}
