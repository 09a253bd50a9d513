//! Drawn triangles of one shader by grid cell of their centroid, for the brush-side search of the
//! Quake 3 decompile ([`super::quake`]): a side takes as texture samples the triangles of its
//! shader whose centroid lies inside its polygon (within [`super::quake::inside`]'s margin) and
//! whose corners lie on its plane. Walking every triangle of the shader for every side was
//! quadratic in a shader's use (54 % of a 10.6 MB OpenArena map's decompile in perf); the grid
//! hands a side only the triangles whose centroid lies in a box around its polygon that
//! contains every centroid the two tests can accept, in the triangles' order, so the samples and
//! the fitted matrices are the same.

use super::geom;
use crate::cellhash::CellMap;

/// Grid cell edge, units: a wall panel or a room's floor tile, so most sides touch a few cells.
const CELL: f64 = 64.0;

/// Axis-aligned bounds (min, max).
pub(crate) type Bounds = ([f64; 3], [f64; 3]);

/// Triangle indices (into the model's list, ascending) by cell of their centroid, in flat
/// arrays: no vector per cell, and a query may walk either the box's cells or the occupied
/// ones, whichever is fewer.
pub(crate) struct TriGrid {
    all: Vec<usize>,
    /// The occupied cells, each with its range of `at`.
    occupied: Vec<([i64; 3], u32, u32)>,
    /// Per occupied cell (in `occupied` order), positions in `all` (ascending) of the triangles
    /// whose centroid is in it.
    at: Vec<u32>,
    /// Cell → its index in `occupied`.
    cells: CellMap<[i64; 3], u32>,
}

fn cell_of(c: [f64; 3]) -> [i64; 3] {
    c.map(|x| geom::floor_i64(x / CELL))
}

/// A hash lookup of a box cell costs about this many occupied cells compared against the box
/// (a multiply–rotate hash and a probe against six comparisons).
const LOOKUP_PER_SCAN: u64 = 6;

impl TriGrid {
    /// Index the triangles `all` (ascending) whose centroids `centroid(i)` gives.
    pub(crate) fn new(all: Vec<usize>, centroid: impl Fn(usize) -> [f64; 3]) -> TriGrid {
        let mut cells: CellMap<[i64; 3], u32> = CellMap::default();
        let mut occupied: Vec<([i64; 3], u32, u32)> = Vec::new();
        // Each triangle's cell number, then a counting sort by it (stable: ascending within
        // a cell, as pushing into a vector per cell gave).
        let of: Vec<u32> = all
            .iter()
            .map(|&i| {
                let cell = cell_of(centroid(i));
                let k = *cells.entry(cell).or_insert_with(|| {
                    occupied.push((cell, 0, 0));
                    (occupied.len() - 1) as u32
                });
                occupied[k as usize].2 += 1;
                k
            })
            .collect();
        let mut start = 0u32;
        for o in &mut occupied {
            let n = o.2;
            (o.1, o.2) = (start, start);
            start += n;
        }
        let mut at = vec![0u32; all.len()];
        for (pos, &k) in of.iter().enumerate() {
            let o = &mut occupied[k as usize];
            at[o.2 as usize] = pos as u32;
            o.2 += 1;
        }
        TriGrid { all, occupied, at, cells }
    }

    /// The triangles whose centroid lies in `b` (and maybe a few outside it), ascending, into
    /// `out`; all of them when `b` is `None` or spans more cells than there are triangles.
    /// `marks` is scratch (a bit per triangle of the grid).
    pub(crate) fn near<'a>(
        &'a self,
        b: Option<&Bounds>,
        centroid: impl Fn(usize) -> [f64; 3],
        out: &'a mut Vec<usize>,
        marks: &mut Vec<u64>,
    ) -> &'a [usize] {
        self.near_walking(b, centroid, out, marks, None)
    }

    /// [`TriGrid::near`], the box's occupied cells found by scanning the occupied cells
    /// (`Some(true)`), by looking up each cell of the box (`Some(false)`), or by whichever is
    /// cheaper for this box (`None`).
    fn near_walking<'a>(
        &'a self,
        b: Option<&Bounds>,
        centroid: impl Fn(usize) -> [f64; 3],
        out: &'a mut Vec<usize>,
        marks: &mut Vec<u64>,
        scan: Option<bool>,
    ) -> &'a [usize] {
        let Some(b) = b else { return &self.all };
        let (lo, hi) = (cell_of(b.0), cell_of(b.1));
        let span = (0..3).try_fold(1i64, |acc, k| acc.checked_mul(hi[k].checked_sub(lo[k])?.checked_add(1)?));
        out.clear();
        match span {
            Some(n) if n > 0 && (n as u64) <= self.cells.len() as u64 => {
                // Each triangle is in one cell: the cells' triangles marked by their position
                // in `all` and read out in its order are the cells' lists merged, ascending
                // (sorting the gathered list was 2 % of a 10 MB Quake 3 decompile in callgrind).
                marks.clear();
                marks.resize(self.all.len().div_ceil(64), 0);
                let mut mark = |&(_, from, to): &([i64; 3], u32, u32)| {
                    for &at in &self.at[from as usize..to as usize] {
                        marks[at as usize / 64] |= 1 << (at % 64);
                    }
                };
                // The same cells either way: the box's that are occupied.
                if scan.unwrap_or((self.occupied.len() as u64) < (n as u64).saturating_mul(LOOKUP_PER_SCAN)) {
                    let inb = |c: &[i64; 3]| (0..3).all(|k| c[k] >= lo[k] && c[k] <= hi[k]);
                    self.occupied.iter().filter(|o| inb(&o.0)).for_each(&mut mark);
                } else {
                    for x in lo[0]..=hi[0] {
                        for y in lo[1]..=hi[1] {
                            for z in lo[2]..=hi[2] {
                                if let Some(&k) = self.cells.get(&[x, y, z]) {
                                    mark(&self.occupied[k as usize]);
                                }
                            }
                        }
                    }
                }
                for (w, &word) in marks.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        out.push(self.all[w * 64 + bits.trailing_zeros() as usize]);
                        bits &= bits - 1;
                    }
                }
            }
            // A box wider than the grid: the list, filtered by the box.
            _ => {
                let inb = |c: [f64; 3]| (0..3).all(|k| c[k] >= b.0[k] && c[k] <= b.1[k]);
                out.extend(self.all.iter().copied().filter(|&i| inb(centroid(i))));
            }
        }
        out
    }
}

/// A box holding every point `c` with `inside(poly, normal, c, eps)` true and within `slab` of
/// the plane `(normal, dist)`; `None` (search everything) when the polygon is not a convex one
/// with corners blunt enough for the bound below.
///
/// [`super::quake::inside`] accepts `c` when, for every edge, its in-plane distance outside
/// the edge's line is at most `eps`: for a convex polygon that is the polygon grown by `eps`,
/// whose corners move out by `eps / cos(φ / 2)` (`φ` the turn between the two edges' outward
/// normals), as a prism along the normal. The slab adds `slab` along the normal, and the
/// polygon's own distance from the plane is added too; the margin is then widened by a tenth
/// plus 0.01 unit against rounding.
#[cfg(test)]
pub(crate) fn inside_bounds(poly: &[[f64; 3]], normal: [f64; 3], dist: f64, eps: f64, slab: f64) -> Option<Bounds> {
    inside_bounds_with(poly, normal, dist, eps, slab, &mut Vec::new())
}

/// [`inside_bounds`] with the edge normals in `out_normals` (scratch, cleared first): no
/// allocation per side once it has room.
pub(crate) fn inside_bounds_with(
    poly: &[[f64; 3]],
    normal: [f64; 3],
    dist: f64,
    eps: f64,
    slab: f64,
    out_normals: &mut Vec<[f64; 3]>,
) -> Option<Bounds> {
    out_normals.clear();
    let n = poly.len();
    if n < 3 || !poly.iter().flatten().all(|c| c.is_finite()) {
        return None;
    }
    let mid = geom::scale(poly.iter().fold([0.0; 3], |a, p| geom::add(a, *p)), 1.0 / n as f64);
    // Outward edge normals, as `inside` orients them (from the first edge and the centroid).
    let mut sign = 0.0;
    for i in 0..n {
        let e = geom::sub(poly[(i + 1) % n], poly[i]);
        // An edge `inside` skips: the corner bound below would not hold.
        let en = geom::normalize(geom::cross(e, normal))?;
        if sign == 0.0 {
            sign = if geom::dot(en, geom::sub(mid, poly[i])) < 0.0 { 1.0 } else { -1.0 };
        }
        out_normals.push(geom::scale(en, sign));
    }
    // Convex, and oriented as `inside` takes it: every corner inside every edge's line.
    let size = poly.iter().flatten().fold(1.0f64, |a, c| a.max(c.abs()));
    let tol = 1e-9 * size;
    for (i, u) in out_normals.iter().enumerate() {
        if poly.iter().any(|v| geom::dot(*u, geom::sub(*v, poly[i])) > tol) {
            return None;
        }
    }
    // The sharpest corner: cos(φ / 2) = sqrt((1 + u·u') / 2).
    let mut min_cos = f64::INFINITY;
    for i in 0..n {
        let c = ((1.0 + geom::dot(out_normals[i], out_normals[(i + 1) % n])) / 2.0).max(0.0).sqrt();
        min_cos = min_cos.min(c);
    }
    if min_cos < 0.05 {
        return None;
    }
    let off_plane = poly.iter().map(|v| (geom::dot(normal, *v) - dist).abs()).fold(0.0, f64::max);
    let margin = (eps / min_cos + slab + off_plane) * 1.1 + 0.01;
    let lo: [f64; 3] = std::array::from_fn(|k| poly.iter().map(|v| v[k]).fold(f64::INFINITY, f64::min));
    let hi: [f64; 3] = std::array::from_fn(|k| poly.iter().map(|v| v[k]).fold(f64::NEG_INFINITY, f64::max));
    Some((lo.map(|x| x - margin), hi.map(|x| x + margin)))
}

#[cfg(test)]
mod tests {
    use super::super::quake::inside;
    use super::*;

    /// Points on a fine lattice around polygons (sharp, blunt, either winding): every point
    /// `inside` accepts, within the slab, lies in the box.
    #[test]
    fn box_holds_every_accepted_point() {
        let up = [0.0, 0.0, 1.0];
        let polys: Vec<Vec<[f64; 3]>> = vec![
            vec![[0.0, 0.0, 8.0], [8.0, 0.0, 8.0], [8.0, 4.0, 8.0], [0.0, 4.0, 8.0]],
            vec![[0.0, 4.0, 8.0], [8.0, 4.0, 8.0], [8.0, 0.0, 8.0], [0.0, 0.0, 8.0]],
            // A sliver: a corner of about 11 degrees, whose grown corner moves out by 0.5 unit.
            vec![[0.0, 0.0, 8.0], [20.0, 2.0, 8.0], [20.0, -2.0, 8.0]],
        ];
        for poly in &polys {
            let b = inside_bounds(poly, up, 8.0, 0.05, 0.1).expect("convex polygon");
            let mut accepted = 0;
            for ix in -60..=460 {
                for iy in -100..=140 {
                    for z in [7.9, 8.0, 8.1] {
                        let c = [ix as f64 * 0.05, iy as f64 * 0.05, z];
                        if inside(poly, up, c, 0.05) {
                            accepted += 1;
                            assert!((0..3).all(|k| c[k] >= b.0[k] && c[k] <= b.1[k]), "{c:?} outside {b:?}");
                        }
                    }
                }
            }
            assert!(accepted > 0);
        }
    }

    #[test]
    fn degenerate_polygons_search_everything() {
        let up = [0.0, 0.0, 1.0];
        // Collinear corners: `inside` accepts a strip without end along the line.
        assert!(inside_bounds(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], up, 0.0, 0.05, 0.1).is_none());
        // Not convex.
        let dart = [[0.0, 0.0, 0.0], [10.0, 5.0, 0.0], [0.0, 1.0, 0.0], [-10.0, 5.0, 0.0]];
        assert!(inside_bounds(&dart, up, 0.0, 0.05, 0.1).is_none());
        // A repeated corner (an edge `inside` skips).
        assert!(inside_bounds(&[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], up, 0.0, 0.05, 0.1).is_none());
    }

    #[test]
    fn near_gives_the_triangles_in_the_box_in_order() {
        let cents: Vec<[f64; 3]> = (0..600).map(|i| [(i * 37 % 500) as f64, (i * 11 % 300) as f64, 0.0]).collect();
        // One shader's triangles: every third of the model's (positions in the list differ
        // from the indices).
        let all: Vec<usize> = (0..600).step_by(3).collect();
        let g = TriGrid::new(all.clone(), |i| cents[i]);
        // A box around one centroid, holding some others.
        let c = cents[21];
        let b = ([c[0] - 60.0, c[1] - 60.0, -1.0], [c[0] + 60.0, c[1] + 60.0, 1.0]);
        let (mut buf, mut marks) = (Vec::new(), Vec::new());
        let got = g.near(Some(&b), |i| cents[i], &mut buf, &mut marks).to_vec();
        let inb = |c: [f64; 3]| (0..3).all(|k| c[k] >= b.0[k] && c[k] <= b.1[k]);
        let want: Vec<usize> = all.iter().copied().filter(|&i| inb(cents[i])).collect();
        assert!(!want.is_empty());
        // Exactly the triangles of the box's cells, ascending.
        let (lo, hi) = (cell_of(b.0), cell_of(b.1));
        let of_cells: Vec<usize> =
            all.iter().copied().filter(|&i| (0..3).all(|k| (lo[k]..=hi[k]).contains(&cell_of(cents[i])[k]))).collect();
        assert_eq!(got, of_cells);
        assert!(want.iter().all(|i| got.contains(i)));
        // Again with the scratch as the last call left it.
        assert_eq!(g.near(Some(&b), |i| cents[i], &mut buf, &mut marks), &of_cells[..]);
        // A box wider than the grid: filtered list.
        let wide = ([-1e5, -1e5, -1e5], [1e5, 1e5, 1e5]);
        assert_eq!(g.near(Some(&wide), |i| cents[i], &mut buf, &mut marks), &all[..]);
        assert_eq!(g.near(None, |i| cents[i], &mut buf, &mut marks).len(), 200);
    }

    /// Scanning the occupied cells and looking up the box's cells mark the same triangles, for
    /// boxes from one cell to most of the grid, wherever they lie.
    #[test]
    fn both_cell_walks_give_the_box_cells() {
        let cents: Vec<[f64; 3]> =
            (0..900).map(|i| [(i * 37 % 700) as f64 - 200.0, (i * 11 % 500) as f64, (i * 7 % 130) as f64 - 64.0]).collect();
        let all: Vec<usize> = (0..900).filter(|i| i % 4 != 1).collect();
        let g = TriGrid::new(all.clone(), |i| cents[i]);
        let (mut buf, mut marks) = (Vec::new(), Vec::new());
        let (mut scanned, mut looked_up) = (0, 0);
        for (k, &c) in cents.iter().enumerate().step_by(17) {
            let r = [1.0, 30.0, 70.0, 150.0, 260.0][k % 5];
            let b = ([c[0] - r, c[1] - r / 2.0, c[2] - 1.0], [c[0] + r, c[1] + r, c[2] + r / 3.0]);
            let (lo, hi) = (cell_of(b.0), cell_of(b.1));
            let of_cells: Vec<usize> =
                all.iter().copied().filter(|&i| (0..3).all(|k| (lo[k]..=hi[k]).contains(&cell_of(cents[i])[k]))).collect();
            let by_scan = g.near_walking(Some(&b), |i| cents[i], &mut buf, &mut marks, Some(true)).to_vec();
            let by_lookup = g.near_walking(Some(&b), |i| cents[i], &mut buf, &mut marks, Some(false)).to_vec();
            let chosen = g.near(Some(&b), |i| cents[i], &mut buf, &mut marks).to_vec();
            let span = (0..3).map(|k| hi[k] - lo[k] + 1).product::<i64>() as usize;
            if span <= g.cells.len() {
                assert_eq!(by_scan, of_cells, "box {b:?}");
                assert_eq!(by_lookup, of_cells, "box {b:?}");
                assert_eq!(chosen, of_cells, "box {b:?}");
                if g.occupied.len() < span * LOOKUP_PER_SCAN as usize {
                    scanned += 1;
                } else {
                    looked_up += 1;
                }
            }
        }
        // Both walks were the chosen one for some box.
        assert!(scanned > 0 && looked_up > 0, "{scanned} {looked_up}");
    }
}
