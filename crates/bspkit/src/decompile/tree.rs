//! Convex regions of a BSP tree as brushes: the geometry shared by the families without a
//! brush lump (Quake 1, Hexen II, BSP2, GoldSrc).
//!
//! A node's plane splits the space of its subtree in two; a leaf is the convex intersection of
//! the half-spaces on its path from the model's head node, clipped to the model's bounds. The
//! walk carries that region as a polytope (each face a plane and its polygon), so a plane that
//! does not cut the region costs one pass over its corners and redundant planes never become
//! brush sides. Neighbouring regions are then merged greedily while their union stays convex
//! (checked exactly: every corner of each inside the other's remaining planes, and the merged
//! volume the sum of the two), within a work budget so a hostile tree cannot make it quadratic.
//!
//! Written here rather than taken from a crate: the clipping must use the same planes and
//! tolerances as the rest of the decompiler ([`super::geom`]), and no maintained crate offers
//! half-space polytopes with per-face data.

use std::collections::HashMap;

use super::geom::{self, Plane, ON_EPSILON};

/// A face polygon below this area (square units) is a sliver: the plane only touches the region.
pub(crate) const MIN_FACE_AREA: f64 = 1e-3;
/// A region below this volume (cubic units) is dropped as a sliver (its volume is still counted
/// in the original's, so the loss is measured).
pub(crate) const MIN_VOLUME: f64 = 1e-2;

/// Where a face's plane came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The model's bounds (the region was cut there, no map brush side is there).
    Bound,
    /// A node plane, or a brush side read from a brush list.
    Plane,
}

/// Corners a [`Winding`] holds in place; longer polygons go to the heap.
const INLINE_CORNERS: usize = 8;

/// A face's polygon. Carving makes and drops faces by the million on a large Quake 1 map, and
/// most polygons have a handful of corners: held in place they cost no allocation (perf on
/// LibreQuake e0m2: malloc and free were about a sixth of the decompile with a `Vec` per face).
// Inline on purpose: the large variant is the point (no allocation per face).
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum Winding {
    Inline(u8, [[f64; 3]; INLINE_CORNERS]),
    Heap(Vec<[f64; 3]>),
}

impl Winding {
    pub(crate) fn from_slice(points: &[[f64; 3]]) -> Winding {
        if points.len() <= INLINE_CORNERS {
            let mut a = [[0.0; 3]; INLINE_CORNERS];
            a[..points.len()].copy_from_slice(points);
            Winding::Inline(points.len() as u8, a)
        } else {
            Winding::Heap(points.to_vec())
        }
    }

    /// The same corners in reverse order.
    fn reversed(points: &[[f64; 3]]) -> Winding {
        let mut w = Winding::from_slice(points);
        w.reverse();
        w
    }
}

impl std::ops::Deref for Winding {
    type Target = [[f64; 3]];
    fn deref(&self) -> &[[f64; 3]] {
        match self {
            Winding::Inline(n, a) => &a[..usize::from(*n)],
            Winding::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Winding {
    fn deref_mut(&mut self) -> &mut [[f64; 3]] {
        match self {
            Winding::Inline(n, a) => &mut a[..usize::from(*n)],
            Winding::Heap(v) => v,
        }
    }
}

impl std::fmt::Debug for Winding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One face of a convex region: its outward plane, its polygon and what it carries.
#[derive(Debug, Clone)]
pub(crate) struct Face {
    pub plane: Plane,
    pub winding: Winding,
    pub origin: Origin,
    /// The texture assigned to the face (an index the caller defines), `None` for none.
    pub tex: Option<u32>,
    /// `geom::area(&winding)`, taken when the face is made: a face that a split leaves whole
    /// keeps it, and volumes sum it (the winding never changes after, so neither does this).
    area: f64,
}

impl Face {
    #[cfg(test)]
    pub(crate) fn new(plane: Plane, winding: Winding, origin: Origin, tex: Option<u32>) -> Face {
        let area = geom::area(&winding);
        Face { plane, winding, origin, tex, area }
    }
}

/// A convex region: its faces (outward planes) and its contents.
#[derive(Debug, Clone)]
pub(crate) struct Region {
    pub faces: Vec<Face>,
    pub contents: i32,
}

fn corners(faces: &[Face]) -> impl Iterator<Item = &[f64; 3]> {
    faces.iter().flat_map(|f| f.winding.iter())
}

/// The box `mins..maxs` as six outward faces.
pub(crate) fn box_faces(mins: [f64; 3], maxs: [f64; 3], origin: Origin) -> Vec<Face> {
    let mut planes = Vec::with_capacity(6);
    for k in 0..3 {
        let mut n = [0.0; 3];
        n[k] = 1.0;
        planes.push(Plane { normal: n, dist: maxs[k] });
        n[k] = -1.0;
        planes.push(Plane { normal: n, dist: -mins[k] });
    }
    from_planes(&planes.iter().map(|p| (*p, origin, None)).collect::<Vec<_>>())
}

/// The faces of the polytope bounded by `planes` (outward), each plane clipped by the others;
/// planes that do not bound it (their polygon is empty or a sliver) are left out.
pub(crate) fn from_planes(planes: &[(Plane, Origin, Option<u32>)]) -> Vec<Face> {
    let only: Vec<Plane> = planes.iter().map(|p| p.0).collect();
    let mut scratch = Vec::new();
    let mut out = Vec::with_capacity(planes.len());
    for (i, (plane, origin, tex)) in planes.iter().enumerate() {
        let mut steps = u64::MAX;
        let w = geom::side_polygon(&only, i, &mut scratch, &mut steps);
        let area = geom::area(&w);
        if area >= MIN_FACE_AREA {
            out.push(Face { plane: *plane, winding: Winding::from_slice(&w), origin: *origin, tex: *tex, area });
        }
    }
    out
}

/// Volume of a closed convex polytope from its faces (a cone from an inner point per face):
/// [`volume_of`] with each face's area as it was taken when the face was made (the same
/// figure: the same function of the same corners).
pub(crate) fn volume(faces: &[Face]) -> f64 {
    let (mut c, mut n) = ([0.0; 3], 0.0);
    for p in corners(faces) {
        c = geom::add(c, *p);
        n += 1.0;
    }
    if n == 0.0 {
        return 0.0;
    }
    let c = geom::scale(c, 1.0 / n);
    faces.iter().map(|f| (-f.plane.distance(c)).max(0.0) * f.area / 3.0).sum()
}

/// [`volume`] of faces given as planes and polygons (the same sums in the same order).
pub(crate) fn volume_of<'a>(faces: impl Iterator<Item = (&'a Plane, &'a [[f64; 3]])> + Clone) -> f64 {
    let (mut c, mut n) = ([0.0; 3], 0.0);
    for p in faces.clone().flat_map(|f| f.1.iter()) {
        c = geom::add(c, *p);
        n += 1.0;
    }
    if n == 0.0 {
        return 0.0;
    }
    let c = geom::scale(c, 1.0 / n);
    faces.map(|(plane, w)| (-plane.distance(c)).max(0.0) * geom::area(w) / 3.0).sum()
}

/// Axis-aligned bounds of a region's corners.
pub(crate) fn bounds(faces: &[Face]) -> ([f64; 3], [f64; 3]) {
    point_bounds(corners(faces))
}

/// Axis-aligned bounds of points.
pub(crate) fn point_bounds<'a>(points: impl Iterator<Item = &'a [f64; 3]>) -> ([f64; 3], [f64; 3]) {
    points.fold(([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]), |(lo, hi), p| {
        (std::array::from_fn(|k| lo[k].min(p[k])), std::array::from_fn(|k| hi[k].max(p[k])))
    })
}

/// Split a region by `plane`: (the part behind it, the part in front), `None` for an empty part.
/// Costs one unit per face clipped. Takes the region by value: most planes of a walk or a carve
/// leave it whole, and then it is handed back without copying its windings.
pub(crate) fn split(faces: Vec<Face>, plane: &Plane, work: &mut u64) -> (Option<Vec<Face>>, Option<Vec<Face>>) {
    let (back, front, _) = split_cut(faces, plane, work, true);
    (back, front)
}

/// [`split`] for regions whose faces' [`Origin`] nobody reads (the clip hulls' regions and
/// the pieces carved from them: their brushes' faces are all set to [`Origin::Plane`]): the
/// same parts, except that a region left whole does not have its faces on `plane` marked,
/// which was a pass over its faces per plane that does not cut it (perf on LibreQuake e0m2:
/// about 3 % of the decompile, nearly all of it in the clip recovery's carving).
pub(crate) fn split_unmarked(faces: Vec<Face>, plane: &Plane, work: &mut u64) -> (Option<Vec<Face>>, Option<Vec<Face>>) {
    let (back, front, _) = split_cut(faces, plane, work, false);
    (back, front)
}

/// Margin (units) by which [`split_within`]'s bounds must clear the plane's tolerance.
const BOUNDS_CLEAR: f64 = 1e-6;

/// [`split`] of a region whose corners' axis-aligned bounds are `bounds` (exactly: their
/// minima and maxima), also saying whether the region was cut (its parts are new). Where the
/// bounds lie wholly on one side of `plane`, so do the corners, and the pass over them is
/// skipped: the box's extreme `dot(n, corner) − dist`, summed in the order [`Plane::distance`]
/// sums, bounds every corner's (rounding is monotonic), so the answer is the same bit for bit.
/// Perf on LibreQuake e0m2: `split` was a third of the decompile, nearly all of it called from
/// the clip brushes' carving, and its corner pass about a fifth of that.
/// With `mark` false, a region left whole is handed back as it is ([`split_unmarked`]).
pub(crate) fn split_within(
    faces: Vec<Face>,
    bounds: &([f64; 3], [f64; 3]),
    plane: &Plane,
    work: &mut u64,
    mark: bool,
) -> (Option<Vec<Face>>, Option<Vec<Face>>, bool) {
    let n = plane.normal;
    let t = |k: usize| {
        let (a, b) = (n[k] * bounds.0[k], n[k] * bounds.1[k]);
        (a.min(b), a.max(b))
    };
    let (t0, t1, t2) = (t(0), t(1), t(2));
    let hi = t0.1 + t1.1 + t2.1 - plane.dist;
    let lo = t0.0 + t1.0 + t2.0 - plane.dist;
    let mut faces = faces;
    if hi <= ON_EPSILON - BOUNDS_CLEAR {
        if mark {
            mark_on(&mut faces, plane);
        }
        return (Some(faces), None, false);
    }
    if lo >= -ON_EPSILON + BOUNDS_CLEAR {
        if mark {
            mark_on(&mut faces, &plane.flipped());
        }
        return (None, Some(faces), false);
    }
    split_cut(faces, plane, work, mark)
}

/// A face already on the plane a region is wholly behind now comes from it (not the bounds).
fn mark_on(v: &mut [Face], p: &Plane) {
    for f in v.iter_mut().filter(|f| f.plane.same_as(p, 1e-6, ON_EPSILON)) {
        f.origin = Origin::Plane;
    }
}

/// [`split`], and whether the region was cut (false: it was handed back whole, its faces on
/// the plane marked when `mark` holds).
fn split_cut(mut faces: Vec<Face>, plane: &Plane, work: &mut u64, mark: bool) -> (Option<Vec<Face>>, Option<Vec<Face>>, bool) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in corners(&faces) {
        let d = plane.distance(*p);
        lo = lo.min(d);
        hi = hi.max(d);
        // Corners on both sides: neither test below can hold, whatever the rest are.
        if lo < -ON_EPSILON && hi > ON_EPSILON {
            break;
        }
    }
    // Wholly on one side: a face already on the plane now comes from it (not from the bounds).
    if hi <= ON_EPSILON {
        if mark {
            mark_on(&mut faces, plane);
        }
        return (Some(faces), None, false);
    }
    if lo >= -ON_EPSILON {
        if mark {
            mark_on(&mut faces, &plane.flipped());
        }
        return (None, Some(faces), false);
    }
    *work += faces.len() as u64 * 2;
    SPLIT_BUFFERS.with_borrow_mut(|buffers| cut(faces, plane, buffers))
}

/// The polygon buffers of [`split_cut`], kept per thread: four vectors per cut were a good part
/// of the decompile's malloc and free (perf on LibreQuake e0m2: about a tenth of its time),
/// and cuts happen by the hundred thousand.
#[derive(Default)]
struct SplitBuffers {
    cap: Vec<[f64; 3]>,
    scratch: Vec<[f64; 3]>,
    back: Vec<[f64; 3]>,
    front: Vec<[f64; 3]>,
}

thread_local! {
    static SPLIT_BUFFERS: std::cell::RefCell<SplitBuffers> = std::cell::RefCell::new(SplitBuffers::default());
}

/// The cut of [`split_cut`] once corners lie on both sides of `plane`.
fn cut(faces: Vec<Face>, plane: &Plane, buffers: &mut SplitBuffers) -> (Option<Vec<Face>>, Option<Vec<Face>>, bool) {
    let flipped = plane.flipped();
    let SplitBuffers { cap, scratch, back: wb, front: wf } = buffers;
    // The new face: the plane clipped by every face of the region (their planes only, so it is
    // taken before the faces are handed on).
    geom::base_winding_into(plane, cap);
    for f in &faces {
        geom::clip_behind(cap, &f.plane, scratch);
        std::mem::swap(cap, scratch);
        if cap.is_empty() {
            break;
        }
    }
    let (mut back, mut front) = (Vec::with_capacity(faces.len() + 1), Vec::with_capacity(faces.len() + 1));
    let part = |w: &[[f64; 3]], f: &Face| {
        let area = geom::area(w);
        (area >= MIN_FACE_AREA).then(|| Face { plane: f.plane, winding: Winding::from_slice(w), origin: f.origin, tex: f.tex, area })
    };
    for f in faces {
        // Both sides in one pass (as clipping by `plane` and by `flipped`, each distance once).
        // A side that gets the face whole gets the face itself, with its area.
        let (back_whole, front_whole) = geom::split_polygon(&f.winding, plane, wb, wf);
        let to_front = if front_whole { (f.area >= MIN_FACE_AREA).then(|| f.clone()) } else { part(wf, &f) };
        let to_back = if back_whole { (f.area >= MIN_FACE_AREA).then_some(f) } else { part(wb, &f) };
        back.extend(to_back);
        front.extend(to_front);
    }
    let area = geom::area(cap);
    if area >= MIN_FACE_AREA {
        let rev = Winding::reversed(cap);
        let rev_area = geom::area(&rev);
        back.push(Face { plane: *plane, winding: Winding::from_slice(cap), origin: Origin::Plane, tex: None, area });
        front.push(Face { plane: flipped, winding: rev, origin: Origin::Plane, tex: None, area: rev_area });
    }
    let closed = |v: Vec<Face>| (v.len() >= 4).then_some(v);
    (closed(back), closed(front), true)
}

/// Quantised plane, for finding the faces on one plane (node planes are copied exactly, so
/// equal planes give equal keys).
pub(crate) type PlaneKey = ([i64; 3], i64);

pub(crate) fn key(p: &Plane) -> PlaneKey {
    (p.normal.map(|c| (c * 1e6).round() as i64), (p.dist * 1e3).round() as i64)
}

fn touch(a: &([f64; 3], [f64; 3]), b: &([f64; 3], [f64; 3])) -> bool {
    (0..3).all(|k| a.0[k] <= b.1[k] + 0.1 && b.0[k] <= a.1[k] + 0.1)
}

/// A region being merged, with its cached volume and bounds.
struct Merging {
    region: Region,
    volume: f64,
    bounds: ([f64; 3], [f64; 3]),
}

/// The union of `a` and `b` when it is convex and their textures agree on shared planes.
fn try_merge(a: &Merging, b: &Merging, work: &mut u64) -> Option<Merging> {
    if a.region.contents != b.region.contents || !touch(&a.bounds, &b.bounds) {
        return None;
    }
    // A face of `a` with a face of `b` on the opposite plane: where they meet.
    let (fa, fb) = a.region.faces.iter().enumerate().find_map(|(i, f)| {
        let flipped = f.plane.flipped();
        b.region.faces.iter().position(|g| g.plane.same_as(&flipped, 1e-9, 1e-6)).map(|j| (i, j))
    })?;
    *work += (a.region.faces.len() * b.region.faces.len()) as u64;
    // Each one's corners behind the other's remaining planes: the union lies inside them.
    let inside = |x: &Merging, skip: usize, y: &Merging| {
        x.region.faces.iter().enumerate().all(|(i, f)| i == skip || corners(&y.region.faces).all(|p| f.plane.distance(*p) <= ON_EPSILON))
    };
    if !inside(a, fa, b) || !inside(b, fb, a) {
        return None;
    }
    let mut planes: Vec<(Plane, Origin, Option<u32>)> = Vec::with_capacity(a.region.faces.len() + b.region.faces.len());
    for (skip, x) in [(fa, a), (fb, b)] {
        for (i, f) in x.region.faces.iter().enumerate() {
            if i == skip {
                continue;
            }
            if let Some(s) = planes.iter_mut().find(|s| s.0.same_as(&f.plane, 1e-9, 1e-6)) {
                match (s.2, f.tex) {
                    (Some(t), Some(u)) if t != u => return None,
                    (None, Some(u)) => s.2 = Some(u),
                    _ => {}
                }
                if f.origin == Origin::Plane {
                    s.1 = Origin::Plane;
                }
            } else {
                planes.push((f.plane, f.origin, f.tex));
            }
        }
    }
    *work += (planes.len() * planes.len()) as u64;
    let faces = from_planes(&planes);
    let v = volume(&faces);
    let sum = a.volume + b.volume;
    if (v - sum).abs() > 1e-6 * sum + 1e-3 {
        return None;
    }
    let bounds = bounds(&faces);
    Some(Merging { region: Region { faces, contents: a.region.contents }, volume: v, bounds })
}

/// What [`merge`] did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MergeStats {
    pub tries: u64,
    pub merges: usize,
    /// Work units spent.
    pub work: u64,
    /// The allowance ran out before every pair was tried.
    pub stopped: bool,
}

/// Merge neighbouring regions greedily while the union stays convex, spending at most `limit`
/// work units (face pairs compared and planes clipped); past it the rest stays unmerged.
pub(crate) fn merge(regions: Vec<Region>, limit: u64) -> (Vec<Region>, MergeStats) {
    let mut stats = MergeStats::default();
    let mut all: Vec<Option<Merging>> = regions
        .into_iter()
        .map(|r| {
            let volume = volume(&r.faces);
            let bounds = bounds(&r.faces);
            Some(Merging { region: r, volume, bounds })
        })
        .collect();
    let mut by_plane: HashMap<PlaneKey, Vec<usize>> = HashMap::new();
    for (i, m) in all.iter().enumerate() {
        for f in &m.as_ref().expect("just made").region.faces {
            by_plane.entry(key(&f.plane)).or_default().push(i);
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..all.len()).collect();
    let mut work = 0u64;
    'queue: while let Some(i) = queue.pop_front() {
        let Some(a) = all[i].as_ref() else { continue };
        let keys: Vec<PlaneKey> = a.region.faces.iter().filter(|f| f.origin == Origin::Plane).map(|f| key(&f.plane.flipped())).collect();
        for k in keys {
            let cands: Vec<usize> = by_plane.get(&k).cloned().unwrap_or_default();
            for j in cands {
                work += 1;
                if work > limit {
                    stats.stopped = true;
                    break 'queue;
                }
                if j == i {
                    continue;
                }
                let (Some(a), Some(b)) = (all[i].as_ref(), all[j].as_ref()) else { continue };
                stats.tries += 1;
                if let Some(m) = try_merge(a, b, &mut work) {
                    stats.merges += 1;
                    all[i] = None;
                    all[j] = None;
                    let n = all.len();
                    for f in &m.region.faces {
                        by_plane.entry(key(&f.plane)).or_default().push(n);
                    }
                    all.push(Some(m));
                    queue.push_back(n);
                    continue 'queue;
                }
            }
        }
    }
    stats.work = work;
    // Stale indices are dropped from the plane lists only here: they are skipped on the way.
    (all.into_iter().flatten().map(|m| m.region).collect(), stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_box_and_merge_back() {
        let b = box_faces([0.0; 3], [64.0; 3], Origin::Bound);
        assert_eq!(b.len(), 6);
        assert!((volume(&b) - 64.0f64.powi(3)).abs() < 1e-6);
        let mut work = 0;
        // A plane through the box: two halves whose volumes add up.
        let p = Plane { normal: geom::normalize([1.0, 1.0, 0.0]).unwrap(), dist: 64.0 / std::f64::consts::SQRT_2 };
        let (back, front) = split(b.clone(), &p, &mut work);
        let (back, front) = (back.unwrap(), front.unwrap());
        assert_eq!((back.len(), front.len()), (5, 5));
        assert!((volume(&back) + volume(&front) - 64.0f64.powi(3)).abs() < 1e-6);
        // A plane missing the box leaves it whole on one side.
        let miss = Plane { normal: [1.0, 0.0, 0.0], dist: 100.0 };
        assert!(matches!(split(b.clone(), &miss, &mut work), (Some(_), None)));
        // The halves merge back into the box (the cut plane disappears).
        let regions = vec![Region { faces: back, contents: -2 }, Region { faces: front, contents: -2 }];
        let (merged, stats) = merge(regions, 1_000_000);
        assert_eq!((merged.len(), stats.merges), (1, 1));
        assert_eq!(merged[0].faces.len(), 6);
        assert!((volume(&merged[0].faces) - 64.0f64.powi(3)).abs() < 1e-6);
    }

    /// `split_within` gives bit for bit what `split` gives (the decompile's output must not
    /// change with it), on random regions and planes, many of them missing the region or
    /// touching it at a corner, where the bounds test decides.
    #[test]
    fn split_within_is_split() {
        let mut next = super::super::geom::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut rnd = move || (next() >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0;
        let bits = |v: &Option<Vec<Face>>| {
            v.as_ref().map(|faces| {
                faces.iter().map(|f| (f.origin, f.winding.iter().flatten().map(|c| c.to_bits()).collect::<Vec<_>>())).collect::<Vec<_>>()
            })
        };
        let (mut fast, mut cut) = (0, 0);
        for i in 0..3000 {
            let lo = [rnd(), rnd(), rnd()];
            let hi = lo.map(|c| c + rnd().abs() + 1.0);
            let mut region = box_faces(lo, hi, Origin::Bound);
            // A slanted cut first, so not every region is a box.
            let n = geom::normalize([rnd(), rnd(), rnd()]).unwrap();
            let mid: [f64; 3] = std::array::from_fn(|k| (lo[k] + hi[k]) / 2.0);
            if let (Some(b), _) = split(region.clone(), &Plane { normal: n, dist: geom::dot(n, mid) + 1.0 }, &mut 0) {
                region = b;
            }
            let b = bounds(&region);
            let n = geom::normalize([rnd(), rnd(), rnd()]).unwrap();
            // Through a corner every third time, near the region otherwise.
            let dist = if i % 3 == 0 { geom::dot(n, region[0].winding[0]) } else { geom::dot(n, mid) + rnd() };
            let plane = Plane { normal: n, dist };
            let (mut w1, mut w2) = (0, 0);
            let (b1, f1) = split(region.clone(), &plane, &mut w1);
            // Unmarked: the same corners, and the same origins wherever the region was cut.
            let (b3, f3, cut3) = split_within(region.clone(), &b, &plane, &mut 0, false);
            let corners_only = |v: &Option<Vec<Face>>| bits(v).map(|faces| faces.into_iter().map(|f| f.1).collect::<Vec<_>>());
            assert_eq!((corners_only(&b1), corners_only(&f1)), (corners_only(&b3), corners_only(&f3)), "{i}");
            if cut3 {
                assert_eq!((bits(&b1), bits(&f1)), (bits(&b3), bits(&f3)), "{i}");
            }
            let (b2, f2, was_cut) = split_within(region, &b, &plane, &mut w2, true);
            assert_eq!((bits(&b1), bits(&f1), w1), (bits(&b2), bits(&f2), w2), "{i}");
            assert_eq!(cut3, was_cut, "{i}");
            // Each part's faces carry their polygon's area (kept or taken anew).
            for f in b2.iter().chain(&f2).flatten() {
                assert_eq!(f.area.to_bits(), geom::area(&f.winding).to_bits(), "{i}");
            }
            assert_eq!(was_cut, w1 > 0, "{i}");
            cut += usize::from(was_cut);
            fast += usize::from(!was_cut);
        }
        assert!(fast > 300 && cut > 300, "{fast} {cut}");
    }

    #[test]
    fn windings_in_place_and_on_the_heap() {
        let pts: Vec<[f64; 3]> = (0..20).map(|i| [i as f64, -(i as f64), 0.5]).collect();
        for n in [0, 3, INLINE_CORNERS, INLINE_CORNERS + 1, 20] {
            let w = Winding::from_slice(&pts[..n]);
            assert_eq!(&w[..], &pts[..n]);
            assert_eq!(matches!(w, Winding::Heap(_)), n > INLINE_CORNERS);
            let r = Winding::reversed(&pts[..n]);
            assert!(r.iter().eq(pts[..n].iter().rev()));
        }
    }

    #[test]
    fn an_l_shape_stays_two_brushes() {
        // Three unit cubes in an L: any two adjacent merge, the third cannot join them.
        let cube = |x: f64, y: f64| Region { faces: box_faces([x, y, 0.0], [x + 1.0, y + 1.0, 1.0], Origin::Plane), contents: -2 };
        let (merged, stats) = merge(vec![cube(0.0, 0.0), cube(1.0, 0.0), cube(0.0, 1.0)], 1_000_000);
        assert_eq!(merged.len(), 2);
        assert_eq!(stats.merges, 1);
        let total: f64 = merged.iter().map(|r| volume(&r.faces)).sum();
        assert!((total - 3.0).abs() < 1e-9);
        // Different contents never merge; conflicting textures on a shared plane neither.
        let mut a = cube(0.0, 0.0);
        let mut b = cube(1.0, 0.0);
        b.contents = -3;
        assert_eq!(merge(vec![a.clone(), b.clone()], 1_000_000).0.len(), 2);
        b.contents = -2;
        for (r, t) in [(&mut a, 1), (&mut b, 2)] {
            for f in r.faces.iter_mut().filter(|f| f.plane.normal[2] > 0.5) {
                f.tex = Some(t);
            }
        }
        assert_eq!(merge(vec![a, b], 1_000_000).0.len(), 2);
        // No allowance: nothing merged, nothing lost.
        let (m, s) = merge(vec![cube(0.0, 0.0), cube(1.0, 0.0)], 0);
        assert_eq!((m.len(), s.stopped), (2, true));
    }
}
