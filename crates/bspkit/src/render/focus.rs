//! What the picture frames: the playable area, not the whole bounding box.
//!
//! A map's bounding box is often much larger than what a player sees: a Source 3D skybox or a
//! Respawn sky model sits far away, compilers keep stray brushes (an intermission box, a
//! leak-test cube) outside the level, and an `iso` camera that sees every corner of the box
//! leaves most of the picture empty. The focus is found in three steps:
//!
//! 1. Every drawn triangle (placed) gives its centroid, weighted by its area, capped at
//!    [`CAP_TIMES`] the area of the triangle at [`CAP_RANK`] of them by area (a ground plane
//!    far larger than the level would else outweigh it).
//! 2. The triangles are put on a coarse grid (cell side from the area-weighted spread of the
//!    map, [`GRID_CELLS`] cells along the widest axis); cells touching each other form
//!    clusters; each triangle's weight is shared among the cells it spans. A cluster is kept when
//!    it holds at least [`MIN_CLUSTER_SHARE`] of the largest
//!    cluster's area or a player start: islands far from the level (skybox, stray brushes) are
//!    dropped, the rooms of one level, joined by corridors and walls, stay together.
//! 3. The focus box is the area-weighted [`QUANTILE`] … 1 − `QUANTILE` range of the kept
//!    triangles' corners (each with a third of its triangle's area) on each axis, widened to
//!    hold the player starts of the kept clusters, after being cut to the box of the kept cells
//!    holding at least [`DENSE_SHARE`] of the densest one's weight (wide surfaces around the
//!    level, a ground plane, spread thin). The camera is then fitted to the corners, clamped
//!    into that box, of the kept triangles inside it that face the view and are not capped
//!    (step 1):
//!    what the picture shows of the level, not culled back faces nor the far reaches of a
//!    ground plane.

use std::hash::{Hash, Hasher};

use super::camera::Bounds;

/// Cells along the widest axis of the map's area-weighted 5 %–95 % box.
pub const GRID_CELLS: f32 = 24.0;
/// Least share of the largest cluster's area that keeps a cluster without a player start.
pub const MIN_CLUSTER_SHARE: f64 = 0.2;
/// Area share cut from each end of each axis of the focus box.
pub const QUANTILE: f64 = 0.01;
/// Most points all triangles together put on the grid (step 2). A triangle spanning `n` cells
/// puts about `n² / 2` points there (at most 64 steps an edge); past this total every
/// triangle's steps are halved until the points fit. Corpus maps stay far below it (the
/// `budgets` tests check), so their frames are as without it; 50,000 overlapping copies of a
/// room's wall (issue 23's render-work case) asked for 32 million points, and were that long
/// in this step before the render work budget was ever consulted.
pub const MAX_GRID_POINTS: u64 = 4 << 20;

/// One drawn triangle, placed: its corners and area.
#[derive(Debug, Clone, Copy)]
pub struct Tri {
    pub p: [[f32; 3]; 3],
    pub area: f32,
}

impl Tri {
    pub fn new(p: [[f32; 3]; 3]) -> Option<Tri> {
        let (u, v) = (super::camera::sub(p[1], p[0]), super::camera::sub(p[2], p[0]));
        let c = super::camera::cross(u, v);
        let area = 0.5 * super::camera::dot(c, c).sqrt();
        (area.is_finite() && p.iter().flatten().all(|x| x.is_finite())).then_some(Tri { p, area })
    }
    /// Whether the triangle's front (counter-clockwise, as the renderer culls) faces a view
    /// looking along `forward`.
    pub fn faces(&self, forward: [f32; 3]) -> bool {
        let (u, v) = (super::camera::sub(self.p[1], self.p[0]), super::camera::sub(self.p[2], self.p[0]));
        super::camera::dot(super::camera::cross(u, v), forward) < 0.0
    }
    fn centroid(&self) -> [f32; 3] {
        [0, 1, 2].map(|k| (self.p[0][k] + self.p[1][k] + self.p[2][k]) / 3.0)
    }
}

/// The focus of a set of triangles: the box and the points to fit the camera to.
#[derive(Debug, Clone)]
pub struct Focus {
    pub bounds: Bounds,
    /// The kept triangles' corners clamped into `bounds`, and the kept player starts.
    pub points: Vec<[f32; 3]>,
    /// The triangles (indices into those given) whose corners are `points`, then the kept
    /// player starts (the rest of `points`).
    pub fitted: Vec<usize>,
    pub starts: Vec<[f32; 3]>,
    /// Points the triangles would put on the grid without [`MAX_GRID_POINTS`] (what a map asks
    /// of this step).
    pub grid_points: u64,
}

/// A cell's coordinates, hashed one `i64` at a time (an array of integers is hashed as one
/// byte string).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Cell([i64; 3]);

impl Hash for Cell {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_i64(self.0[0]);
        state.write_i64(self.0[1]);
        state.write_i64(self.0[2]);
    }
}

type CellMap<V> = crate::cellhash::CellMap<Cell, V>;

/// Points a triangle of `n` steps an edge puts on the grid.
fn points_of(n: u64) -> u64 {
    (n + 1) * (n + 2) / 2
}

/// The value below which `q` of the total weight lies, of `(value, weight)` pairs.
fn weighted_quantile(v: &mut [(f32, f64)], q: f64) -> f32 {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|x| x.1).sum();
    let want = total * q;
    let mut acc = 0.0;
    for &(x, w) in v.iter() {
        acc += w;
        if acc >= want {
            return x;
        }
    }
    v.last().map_or(0.0, |x| x.0)
}

/// The area-weighted `q` … `1 − q` box of `(centroid, area)` pairs (`None` for none).
fn quantile_box(items: &[([f32; 3], f64)], q: f64) -> Option<Bounds> {
    if items.is_empty() {
        return None;
    }
    // Zero-area triangles still count a little, so that a map of slivers has a box.
    let mut b = Bounds { min: [0.0; 3], max: [0.0; 3] };
    for k in 0..3 {
        let mut v: Vec<(f32, f64)> = items.iter().map(|(c, a)| (c[k], a.max(1e-6))).collect();
        b.min[k] = weighted_quantile(&mut v, q);
        b.max[k] = weighted_quantile(&mut v, 1.0 - q);
    }
    Some(b)
}

/// A triangle weighs at most this many times the area of the triangle at [`CAP_RANK`] of the
/// map's triangles by area.
pub const CAP_TIMES: f64 = 4.0;
/// Least share of the densest cell's weight that makes a cell part of the frame (the focus box
/// is cut to the cells of the kept clusters holding at least this).
pub const DENSE_SHARE: f64 = 0.05;
/// Where in the triangles sorted by area the reference of [`CAP_TIMES`] is.
pub const CAP_RANK: f64 = 0.9;

/// The most a triangle weighs: a few enormous triangles (Titanfall 2 `mp_crossfire`'s ground
/// plane, two triangles around the level hundreds of times its size; a backdrop) would else
/// outweigh the whole level and the frame would show them with the level a speck in the middle.
/// Where the triangles are alike (a box room of 12) nothing is capped.
fn weight_cap(tris: &[Tri]) -> f64 {
    let mut areas: Vec<f32> = tris.iter().map(|t| t.area).collect();
    if areas.is_empty() {
        return f64::MAX;
    }
    let k = ((areas.len() - 1) as f64 * CAP_RANK) as usize;
    let reference = *areas.select_nth_unstable_by(k, f32::total_cmp).1 as f64;
    if reference > 0.0 {
        reference * CAP_TIMES
    } else {
        f64::MAX
    }
}

/// See the module documentation. `starts` are the player starts' origins; `toward` the view's
/// direction: the camera is fitted to the triangles facing it (`None`: every one).
pub fn focus(tris: &[Tri], starts: &[[f32; 3]], toward: Option<[f32; 3]>) -> Option<Focus> {
    let cap = weight_cap(tris);
    let items: Vec<([f32; 3], f64)> = tris.iter().map(|t| (t.centroid(), (t.area as f64).min(cap))).collect();
    let spread = quantile_box(&items, 0.05)?;
    let widest = spread.size().into_iter().fold(0.0f32, f32::max);
    let side = (widest / GRID_CELLS).max(16.0);
    let origin = spread.min;
    // Written out per axis (not `[0, 1, 2].map`): this runs for every point below, and the
    // array adaptor is slow in unoptimised (test) builds. The same arithmetic.
    let axis = |x: f32, k: usize| ((x - origin[k]) / side).floor().clamp(-1e15, 1e15) as i64;
    let cell = |p: [f32; 3]| -> Cell { Cell([axis(p[0], 0), axis(p[1], 1), axis(p[2], 2)]) };
    // Weight per occupied cell: each triangle occupies the cells of points spread over it no
    // further apart than a cell (up to 64 steps an edge), so a long wall or a wide floor links
    // the cells it spans, and shares its (capped) weight among those points; its centroid's
    // cell is occupied too. Past MAX_GRID_POINTS in all, the steps are halved (fewer points,
    // further apart) until they fit.
    let steps: Vec<u64> = tris
        .iter()
        .map(|t| {
            let longest = [(0, 1), (1, 2), (2, 0)]
                .into_iter()
                .map(|(i, j)| {
                    let d = super::camera::sub(t.p[i], t.p[j]);
                    super::camera::dot(d, d).sqrt()
                })
                .fold(0.0f32, f32::max);
            (longest / side).ceil().clamp(1.0, 64.0) as u64
        })
        .collect();
    let grid_points: u64 = steps.iter().map(|&n| points_of(n)).sum();
    let mut most = 64;
    while most > 1 && steps.iter().map(|&n| points_of(n.min(most))).sum::<u64>() > MAX_GRID_POINTS {
        most /= 2;
    }
    let mut cells: CellMap<f64> = CellMap::default();
    for ((t, (c, w)), &n) in tris.iter().zip(&items).zip(&steps) {
        cells.entry(cell(*c)).or_default();
        let n = n.min(most) as usize;
        let (u, v) = (super::camera::sub(t.p[1], t.p[0]), super::camera::sub(t.p[2], t.p[0]));
        let share = w / ((n + 1) * (n + 2) / 2) as f64;
        let p0 = t.p[0];
        for i in 0..=n {
            for j in 0..=n - i {
                let (a, b) = (i as f32 / n as f32, j as f32 / n as f32);
                let p = [p0[0] + u[0] * a + v[0] * b, p0[1] + u[1] * a + v[1] * b, p0[2] + u[2] * a + v[2] * b];
                *cells.entry(cell(p)).or_default() += share;
            }
        }
    }
    // Clusters of touching cells (26 neighbours), by flood fill.
    let mut label: CellMap<usize> = CellMap::default();
    label.reserve(cells.len());
    let mut areas: Vec<f64> = Vec::new();
    let mut keys: Vec<Cell> = cells.keys().copied().collect();
    keys.sort_unstable();
    for &start in &keys {
        if label.contains_key(&start) {
            continue;
        }
        let id = areas.len();
        let mut sum = 0.0;
        let mut stack = vec![start];
        label.insert(start, id);
        while let Some(c) = stack.pop() {
            sum += cells[&c];
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let n = Cell([c.0[0] + dx, c.0[1] + dy, c.0[2] + dz]);
                        if cells.contains_key(&n) && !label.contains_key(&n) {
                            label.insert(n, id);
                            stack.push(n);
                        }
                    }
                }
            }
        }
        areas.push(sum);
    }
    let largest = areas.iter().copied().fold(0.0, f64::max);
    let mut keep: Vec<bool> = areas.iter().map(|&a| a >= largest * MIN_CLUSTER_SHARE).collect();
    let mut kept_starts = Vec::new();
    for &s in starts.iter().filter(|s| s.iter().all(|x| x.is_finite())) {
        // A start stands in a room: the cluster of a cell within two cells of it.
        let c = cell(s);
        let near = (-2..=2)
            .flat_map(|dx| (-2..=2).flat_map(move |dy| (-2..=2).map(move |dz| Cell([c.0[0] + dx, c.0[1] + dy, c.0[2] + dz]))))
            .find_map(|n| label.get(&n).copied());
        if let Some(id) = near {
            keep[id] = true;
            kept_starts.push(s);
        }
    }
    let kept: Vec<usize> = (0..tris.len()).filter(|&i| keep[label[&cell(items[i].0)]]).collect();
    // Corners, each with a third of its triangle's area: a few large faces (a box room of 12
    // triangles) span their whole extent, where their centroids would gather in the middle.
    let kept_items: Vec<([f32; 3], f64)> = kept.iter().flat_map(|&i| tris[i].p.map(|p| (p, items[i].1 / 3.0))).collect();
    let mut bounds = quantile_box(&kept_items, QUANTILE)?;
    // Cut to the dense cells of the kept clusters: where the level's detail is, not the far
    // reaches of a few wide (capped) surfaces around it.
    let densest = label.iter().filter(|(_, &id)| keep[id]).map(|(c, _)| cells[c]).fold(0.0, f64::max);
    let mut dense: Option<([i64; 3], [i64; 3])> = None;
    for (c, _) in label.iter().filter(|(c, &id)| keep[id] && cells[*c] >= densest * DENSE_SHARE) {
        let d = dense.get_or_insert((c.0, c.0));
        for (k, &x) in c.0.iter().enumerate() {
            d.0[k] = d.0[k].min(x);
            d.1[k] = d.1[k].max(x);
        }
    }
    if let Some((lo, hi)) = dense {
        for k in 0..3 {
            let (a, b) = (origin[k] + lo[k] as f32 * side, origin[k] + (hi[k] + 1) as f32 * side);
            let (min, max) = (bounds.min[k].max(a), bounds.max[k].min(b));
            if min <= max {
                (bounds.min[k], bounds.max[k]) = (min, max);
            }
        }
    }
    for s in &kept_starts {
        for (k, &c) in s.iter().enumerate() {
            bounds.min[k] = bounds.min[k].min(c);
            bounds.max[k] = bounds.max[k].max(c);
        }
    }
    let clamp = |p: [f32; 3]| [0, 1, 2].map(|k| p[k].clamp(bounds.min[k], bounds.max[k]));
    // The points the camera is fitted to: corners of the kept triangles the view sees (facing
    // `toward`) that are not capped. Back faces are culled from the picture (the inner side of
    // a level's boundary walls: Titanfall 2 `mp_crossfire`'s widen the box by half toward the
    // camera), and a capped surface (a ground plane around the level) clamped into the box
    // would put its corners at the box's, framing empty ground: the level sat in the upper-left
    // third of crossfire's picture. Nor a triangle whose centroid is outside the box (clamped,
    // its corners would be points on the box's faces where nothing is drawn: crossfire's slab
    // edges). Every kept corner when none is left. (What the picture shows
    // is cut further by the renderer: buried parts are hidden, `render::iso_points`.)
    let inside = |p: [f32; 3]| (0..3).all(|k| p[k] >= bounds.min[k] && p[k] <= bounds.max[k]);
    let sees = |i: &usize| (tris[*i].area as f64) < cap && !matches!(toward, Some(d) if !tris[*i].faces(d)) && inside(items[*i].0);
    let mut fitted: Vec<usize> = kept.iter().copied().filter(sees).collect();
    if fitted.is_empty() {
        fitted = kept;
    }
    let mut points: Vec<[f32; 3]> = fitted.iter().flat_map(|&i| tris[i].p).map(clamp).collect();
    points.extend(kept_starts.iter().copied());
    Some(Focus { bounds, points, fitted, starts: kept_starts, grid_points })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A floor of `n × n` unit-area quads (two triangles each) at `at`, `size` units a side.
    fn floor(at: [f32; 3], size: f32, n: usize) -> Vec<Tri> {
        let s = size / n as f32;
        let mut v = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let (x, y) = (at[0] + i as f32 * s, at[1] + j as f32 * s);
                let q = [[x, y, at[2]], [x + s, y, at[2]], [x + s, y + s, at[2]], [x, y + s, at[2]]];
                v.extend(Tri::new([q[0], q[1], q[2]]));
                v.extend(Tri::new([q[0], q[2], q[3]]));
            }
        }
        v
    }

    #[test]
    fn a_far_island_is_left_out_unless_a_player_starts_there() {
        let mut tris = floor([0.0; 3], 1024.0, 16);
        // A small box far away (5 % of the level's area), like a skybox or a stray brush.
        tris.extend(floor([20_000.0, 20_000.0, 4000.0], 229.0, 4));
        let f = focus(&tris, &[], None).unwrap();
        assert!(f.bounds.max[0] <= 1024.0 && f.bounds.max[2] <= 0.0, "{:?}", f.bounds);
        assert!(f.points.iter().all(|p| p[0] <= 1024.0));
        let f = focus(&tris, &[[20_100.0, 20_100.0, 4040.0]], None).unwrap();
        assert!(f.bounds.max[0] >= 20_100.0, "{:?}", f.bounds);
    }

    #[test]
    fn a_huge_ground_plane_does_not_take_the_frame() {
        // A level of 1,024 × 1,024 units in 1,024 triangles on two heights, standing on a ground
        // three times as wide around it in 8 triangles (each 580 times a level triangle), joined
        // to it, as Titanfall 2's mp_crossfire's ground slabs are.
        let mut tris = floor([0.0; 3], 1024.0, 16);
        tris.extend(floor([0.0, 0.0, 256.0], 1024.0, 16));
        tris.extend(floor([-1024.0, -1024.0, -64.0], 3072.0, 2));
        let f = focus(&tris, &[], None).unwrap();
        assert!(f.bounds.min[0] >= -64.0 && f.bounds.max[0] <= 1100.0 && f.bounds.min[1] >= -64.0, "{:?}", f.bounds);
        // Points of the ground are clamped into the level's box.
        assert!(f.points.iter().all(|p| p[0] >= -64.0 && p[0] <= 1100.0));
        // Alike triangles are not capped: a single room keeps its whole extent.
        let room = floor([0.0; 3], 4096.0, 2);
        let f = focus(&room, &[], None).unwrap();
        assert!(f.bounds.min[0] <= 0.0 && f.bounds.max[0] >= 4096.0, "{:?}", f.bounds);
    }

    #[test]
    fn overlapping_copies_are_thinned_to_the_grid_limit() {
        // A room's floor (two triangles whose long edges span 90 cells: 64 steps, 2,145 points
        // apiece) and 2,500 copies of it over one another: 5.4 million points asked, thinned
        // to MAX_GRID_POINTS, and the frame is still the room's.
        let room = floor([0.0; 3], 1024.0, 1);
        let one = focus(&room, &[], None).unwrap();
        assert_eq!(one.grid_points, 2 * 2145);
        let tris: Vec<Tri> = room.iter().copied().cycle().take(2 * 2500).collect();
        let f = focus(&tris, &[], None).unwrap();
        assert_eq!(f.grid_points, 2 * 2500 * 2145);
        assert!(f.grid_points > MAX_GRID_POINTS);
        assert_eq!(format!("{:?}", f.bounds), format!("{:?}", one.bounds));
    }

    #[test]
    fn nothing_to_frame() {
        assert!(focus(&[], &[[0.0; 3]], None).is_none());
        assert!(Tri::new([[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).is_none());
        // Slivers only: still a box.
        let t = Tri::new([[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]).unwrap();
        assert!(focus(&[t], &[], None).is_some());
    }
}
