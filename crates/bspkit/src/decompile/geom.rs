//! Convex polygon geometry for the decompiler, in `f64`: a brush side's polygon is the side's
//! plane clipped by every other side of the brush, and the points written for a plane are picked
//! from it.

/// A plane: unit normal and distance (`dot(normal, p) = dist` on the plane).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    pub normal: [f64; 3],
    pub dist: f64,
}

/// Half the edge of the square every side polygon starts from: beyond any coordinate a map of
/// these families can hold (Quake 3 and Source limits are ±65536 / ±16384).
const BASE_EXTENT: f64 = 262_144.0;
/// Distance within which a point counts as on a plane while clipping.
pub const ON_EPSILON: f64 = 0.01;

pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
pub fn length(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}
pub fn normalize(a: [f64; 3]) -> Option<[f64; 3]> {
    let l = length(a);
    (l > 1e-12 && l.is_finite()).then(|| scale(a, 1.0 / l))
}

impl Plane {
    /// The plane through three points, normal `(p0 − p1) × (p2 − p1)`: the convention of the
    /// Quake-derived map compilers (qbsp `PlaneFromPoints`), which vbsp and q3map2 share.
    pub fn from_points(p: [[f64; 3]; 3]) -> Option<Plane> {
        let n = normalize(cross(sub(p[0], p[1]), sub(p[2], p[1])))?;
        Some(Plane { normal: n, dist: dot(p[0], n) })
    }
    pub fn flipped(self) -> Plane {
        Plane { normal: scale(self.normal, -1.0), dist: -self.dist }
    }
    pub fn distance(&self, p: [f64; 3]) -> f64 {
        dot(self.normal, p) - self.dist
    }
    /// Same plane within `normal_eps` on the normal and `dist_eps` on the distance.
    pub fn same_as(&self, o: &Plane, normal_eps: f64, dist_eps: f64) -> bool {
        dot(self.normal, o.normal) > 1.0 - normal_eps && (self.dist - o.dist).abs() < dist_eps
    }
    /// Two unit vectors spanning the plane, `u × v = normal`.
    pub fn basis(&self) -> ([f64; 3], [f64; 3]) {
        let n = self.normal;
        // The world axis least aligned with the normal keeps the cross product well-conditioned.
        let a = if n[0].abs() <= n[1].abs() && n[0].abs() <= n[2].abs() {
            [1.0, 0.0, 0.0]
        } else if n[1].abs() <= n[2].abs() {
            [0.0, 1.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        };
        let u = normalize(cross(a, n)).unwrap_or([1.0, 0.0, 0.0]);
        let v = cross(n, u);
        (u, v)
    }
}

/// A large square on `plane`, wound so that its corners' `from_points` normal is the plane's.
pub fn base_winding(plane: &Plane) -> Vec<[f64; 3]> {
    let mut w = Vec::with_capacity(4);
    base_winding_into(plane, &mut w);
    w
}

/// [`base_winding`] into `w` (cleared first), for callers that reuse one buffer.
pub fn base_winding_into(plane: &Plane, w: &mut Vec<[f64; 3]>) {
    let (u, v) = plane.basis();
    let o = scale(plane.normal, plane.dist);
    let e = BASE_EXTENT;
    // (p0 − p1) × (p2 − p1) with p0 = o+u·e+v·e… goes along the normal for this order.
    let corners = [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0)];
    w.clear();
    w.extend(corners.iter().map(|&(a, b)| add(o, add(scale(u, a * e), scale(v, b * e)))));
    if Plane::from_points([w[0], w[1], w[2]]).is_some_and(|p| dot(p.normal, plane.normal) < 0.0) {
        w.reverse();
    }
}

/// Keep the part of `w` behind `plane` (distance ≤ 0), into `out` (cleared first).
pub fn clip_behind(w: &[[f64; 3]], plane: &Plane, out: &mut Vec<[f64; 3]>) {
    out.clear();
    let n = w.len();
    if n == 0 {
        return;
    }
    // Edge by edge, (0, 1) … (n − 1, 0); each corner's distance is taken once and carried to
    // the next edge (the same values; no remainder per corner).
    let mut edge = |a: [f64; 3], da: f64, b: [f64; 3], db: f64| {
        if da <= ON_EPSILON {
            out.push(a);
        }
        if (da > ON_EPSILON && db < -ON_EPSILON) || (da < -ON_EPSILON && db > ON_EPSILON) {
            let t = da / (da - db);
            out.push(add(a, scale(sub(b, a), t)));
        }
    };
    let first = plane.distance(w[0]);
    let mut da = first;
    for i in 1..n {
        let db = plane.distance(w[i]);
        edge(w[i - 1], da, w[i], db);
        da = db;
    }
    edge(w[n - 1], da, w[0], first);
    if out.len() < 3 {
        out.clear();
    }
}

/// The parts of `w` behind `plane` and in front of it, into `back` and `front` (cleared
/// first): the same points as [`clip_behind`] by `plane` and by `plane.flipped()`, with each
/// corner's distance taken once (the flipped plane's distances are these negated, exactly, and
/// so are the crossing points). Also says which side got `w` itself, corner for corner (no
/// corner beyond the plane's tolerance on the other side: then every corner is kept and no
/// edge crosses), so a caller can keep what it knows of `w`.
pub fn split_polygon(w: &[[f64; 3]], plane: &Plane, back: &mut Vec<[f64; 3]>, front: &mut Vec<[f64; 3]>) -> (bool, bool) {
    back.clear();
    front.clear();
    let n = w.len();
    if n == 0 {
        return (false, false);
    }
    let (mut back_whole, mut front_whole) = (true, true);
    let mut da = plane.distance(w[0]);
    let first = da;
    for i in 0..n {
        let a = w[i];
        let b = w[(i + 1) % n];
        let db = if i + 1 == n { first } else { plane.distance(b) };
        if da <= ON_EPSILON {
            back.push(a);
        } else {
            back_whole = false;
        }
        if -da <= ON_EPSILON {
            front.push(a);
        } else {
            front_whole = false;
        }
        if (da > ON_EPSILON && db < -ON_EPSILON) || (da < -ON_EPSILON && db > ON_EPSILON) {
            let t = da / (da - db);
            let p = add(a, scale(sub(b, a), t));
            back.push(p);
            front.push(p);
        }
        da = db;
    }
    if back.len() < 3 {
        back.clear();
        back_whole = false;
    }
    if front.len() < 3 {
        front.clear();
        front_whole = false;
    }
    (back_whole, front_whole)
}

/// Area of a planar polygon.
pub fn area(w: &[[f64; 3]]) -> f64 {
    if w.len() < 3 {
        return 0.0;
    }
    let mut acc = [0.0; 3];
    for i in 1..w.len() - 1 {
        acc = add(acc, cross(sub(w[i], w[0]), sub(w[i + 1], w[0])));
    }
    length(acc) * 0.5
}

/// The polygon of side `index` of a brush bounded by `planes` (outward normals), or empty when
/// the other planes clip it away (a bevel or a redundant side). `budget` counts clip steps and
/// the function stops (returning empty) once it is spent.
pub fn side_polygon(planes: &[Plane], index: usize, scratch: &mut Vec<[f64; 3]>, budget: &mut u64) -> Vec<[f64; 3]> {
    let mut w = base_winding(&planes[index]);
    for (j, p) in planes.iter().enumerate() {
        if j == index || w.is_empty() {
            continue;
        }
        if *budget == 0 {
            return Vec::new();
        }
        *budget -= 1;
        // A second copy of the same plane: the first one keeps the polygon.
        if p.same_as(&planes[index], 1e-9, 1e-6) {
            if j < index {
                return Vec::new();
            }
            continue;
        }
        // No corner in front: `clip_behind` would copy every corner and cut no edge (`w` has
        // three corners or more here), so `w` stays as it is, uncopied.
        if w.iter().all(|&c| p.distance(c) <= ON_EPSILON) {
            continue;
        }
        clip_behind(&w, p, scratch);
        std::mem::swap(&mut w, scratch);
    }
    w
}

/// The part of convex polygon `a` inside convex polygon `b` (both on the plane with normal
/// `normal`, `b` wound either way).
pub fn intersect(a: &[[f64; 3]], b: &[[f64; 3]], normal: [f64; 3]) -> Vec<[f64; 3]> {
    let mut w = Vec::new();
    intersect_into(a, b, normal, &mut w, &mut Vec::new());
    w
}

/// Two polygon buffers: [`intersect_area`]'s result and its clipping scratch.
type PolygonBuffers = (Vec<[f64; 3]>, Vec<[f64; 3]>);

/// `area(&intersect(a, b, normal))` (the same figure) with buffers kept per thread instead of
/// two new vectors per pair: the Quake 1 texture match and quality measure intersect tens of
/// thousands of face pairs for their area alone (callgrind, LibreQuake e0m1: `intersect`
/// 7.7 % of the decompile, much of it allocation).
pub fn intersect_area(a: &[[f64; 3]], b: &[[f64; 3]], normal: [f64; 3]) -> f64 {
    thread_local! {
        static BUFFERS: std::cell::RefCell<PolygonBuffers> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    }
    BUFFERS.with_borrow_mut(|(w, scratch)| {
        intersect_into(a, b, normal, w, scratch);
        area(w)
    })
}

/// [`intersect`] into `w` (cleared first), with `scratch` for the clips: no allocation once
/// both have room (the coverage measure intersects tens of thousands of pairs).
pub fn intersect_into(a: &[[f64; 3]], b: &[[f64; 3]], normal: [f64; 3], w: &mut Vec<[f64; 3]>, scratch: &mut Vec<[f64; 3]>) {
    w.clear();
    let n = b.len();
    if n < 3 {
        return;
    }
    w.extend_from_slice(a);
    // Orientation of b around the normal.
    let mut acc = [0.0; 3];
    for i in 1..n - 1 {
        acc = add(acc, cross(sub(b[i], b[0]), sub(b[i + 1], b[0])));
    }
    let sign = if dot(acc, normal) >= 0.0 { 1.0 } else { -1.0 };
    for i in 0..n {
        let e = sub(b[(i + 1) % n], b[i]);
        // Outward edge normal of a counter-clockwise polygon: e × n.
        let Some(en) = normalize(scale(cross(e, normal), sign)) else { continue };
        let plane = Plane { normal: en, dist: dot(en, b[i]) };
        // As in `side_polygon`: with three corners or more and none in front, the clip is `w`.
        if w.len() >= 3 && w.iter().all(|&c| plane.distance(c) <= ON_EPSILON) {
            continue;
        }
        clip_behind(w, &plane, scratch);
        std::mem::swap(w, scratch);
        if w.is_empty() {
            break;
        }
    }
}

/// `v.round()` up to the sign of a zero result (`-0.3` gives `0.0`, not `-0.0`): for callers
/// that only subtract it or turn it into an integer. Without the call into `libm` (its
/// `round`, not inlined on baseline x86-64, was 2 % of a 10 MB Quake 3 decompile in
/// callgrind): below 2⁵² the integer part `v as i64` and the fraction `v − t` are exact, and
/// the fraction picks the neighbour half away from zero as `round` does; NaN, infinities and
/// larger values (already whole) are returned as they are, as `round` returns them.
pub fn round_nearest(v: f64) -> f64 {
    if v.abs() < 4_503_599_627_370_496.0 {
        let t = (v as i64) as f64;
        let f = v - t;
        if f >= 0.5 {
            t + 1.0
        } else if f <= -0.5 {
            t - 1.0
        } else {
            t
        }
    } else {
        v
    }
}

/// `v.floor() as i64`, without the call into `libm`'s `floor` (grid cells; 1 % of a 10 MB
/// Quake 3 decompile in callgrind): `v as i64` is the integer part, saturating (NaN gives 0,
/// as `floor` then `as` do); it is one too large exactly when it lies above `v`.
pub fn floor_i64(v: f64) -> i64 {
    let t = v as i64;
    if (t as f64) > v {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// Round to the nearest integer where the value is within `eps` of it.
pub fn snap(v: f64, eps: f64) -> f64 {
    // `v.round()` without the call into `libm` (1 % of a 10 MB Quake 3 decompile in
    // callgrind): `round_nearest` is `round` up to the sign of a zero result, which `copysign`
    // puts back (a rounded value has the sign of `v`; NaN stays NaN).
    let r = round_nearest(v).copysign(v);
    if (v - r).abs() < eps {
        r
    } else {
        v
    }
}

/// Three points for `plane`, oriented so [`Plane::from_points`] gives back its normal: three
/// well-spread corners of the side's polygon when, snapped to integers, they still give the
/// plane (within `f32` precision of the stored plane); otherwise points built from the plane
/// itself, 1024 units apart, written exactly.
pub fn three_points(plane: &Plane, polygon: &[[f64; 3]]) -> [[f64; 3]; 3] {
    if polygon.len() >= 3 {
        // The first corner, the corner farthest from it, and the corner farthest from that line.
        let a = polygon[0];
        let b = last_max(polygon, |x| length(sub(x, a)));
        let ab = sub(b, a);
        let c = last_max(polygon, |x| length(cross(ab, sub(x, a))));
        let pts = [a, b, c].map(|p| p.map(|v| snap(v, 0.001)));
        for cand in [[pts[0], pts[1], pts[2]], [pts[0], pts[2], pts[1]]] {
            if let Some(p) = Plane::from_points(cand) {
                if p.same_as(plane, 1e-10, 1e-4) {
                    return cand;
                }
            }
        }
    }
    let (u, v) = plane.basis();
    let o = scale(plane.normal, plane.dist);
    let s = 1024.0;
    let pts = [add(o, scale(u, s)), o, add(o, scale(v, s))];
    // (p0 − p1) × (p2 − p1) = u × v = normal.
    pts
}

/// The corner of non-empty `polygon` that `Iterator::max_by` on `key` (by `total_cmp`) picks,
/// the last of the largest, with each corner's key worked out once instead of twice per
/// comparison (the same keys, so the same corner).
fn last_max(polygon: &[[f64; 3]], key: impl Fn([f64; 3]) -> f64) -> [f64; 3] {
    let mut best = (polygon[0], key(polygon[0]));
    for &p in &polygon[1..] {
        let k = key(p);
        if best.1.total_cmp(&k) != std::cmp::Ordering::Greater {
            best = (p, k);
        }
    }
    best.0
}

/// A fixed pseudo-random sequence (xorshift64) for the decompile's unit tests: repeatable, no
/// dependency.
#[cfg(test)]
pub(crate) fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> Vec<Plane> {
        let mut v = Vec::new();
        for axis in 0..3 {
            for s in [1.0, -1.0] {
                let mut n = [0.0; 3];
                n[axis] = s;
                v.push(Plane { normal: n, dist: 64.0 });
            }
        }
        v
    }

    #[test]
    fn cube_sides_and_points() {
        let planes = cube();
        let mut scratch = Vec::new();
        let mut budget = 1000;
        for i in 0..6 {
            let w = side_polygon(&planes, i, &mut scratch, &mut budget);
            assert_eq!(w.len(), 4);
            assert!((area(&w) - 128.0 * 128.0).abs() < 1e-6);
            let pts = three_points(&planes[i], &w);
            let p = Plane::from_points(pts).unwrap();
            assert!(p.same_as(&planes[i], 1e-12, 1e-9), "{p:?} {:?}", planes[i]);
            assert!(pts.iter().flatten().all(|c| c.fract() == 0.0));
        }
    }

    #[test]
    fn bevel_side_is_empty() {
        let mut planes = cube();
        // An edge bevel touching the cube only along an edge.
        let n = normalize([1.0, 1.0, 0.0]).unwrap();
        planes.push(Plane { normal: n, dist: dot(n, [64.0, 64.0, 0.0]) });
        let mut budget = 1000;
        assert!(
            side_polygon(&planes, 6, &mut Vec::new(), &mut budget).len() < 3
                || area(&side_polygon(&planes, 6, &mut Vec::new(), &mut budget)) < 1e-6
        );
    }

    #[test]
    fn oblique_plane_points_fall_back_exactly() {
        let n = normalize([0.3, 0.5, 0.7]).unwrap();
        let plane = Plane { normal: n, dist: 100.25 };
        let p = Plane::from_points(three_points(&plane, &[])).unwrap();
        assert!(p.same_as(&plane, 1e-12, 1e-9));
    }

    /// `split_polygon` gives bit for bit what clipping by the plane and by the flipped plane
    /// gives (the decompile's output must not change with it).
    #[test]
    fn split_polygon_is_both_clips() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut rnd = move || (next() >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0;
        let (mut back, mut front, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..2000 {
            let plane = Plane { normal: normalize([rnd(), rnd(), rnd()]).unwrap(), dist: rnd() * 0.5 };
            let other = Plane { normal: normalize([rnd(), rnd(), rnd()]).unwrap(), dist: rnd() };
            // A side polygon of a random slab, and every fourth one on a plane through a corner.
            let mut w = base_winding(&other);
            for _ in 0..3 {
                let cut = Plane { normal: normalize([rnd(), rnd(), rnd()]).unwrap(), dist: rnd().abs() };
                clip_behind(&w.clone(), &cut, &mut w);
            }
            let plane = if i % 4 == 0 && !w.is_empty() { Plane { normal: plane.normal, dist: dot(plane.normal, w[0]) } } else { plane };
            let (back_whole, front_whole) = split_polygon(&w, &plane, &mut back, &mut front);
            clip_behind(&w, &plane, &mut a);
            clip_behind(&w, &plane.flipped(), &mut b);
            let bits = |v: &[[f64; 3]]| v.iter().flatten().map(|c| c.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&back), bits(&a), "{i}");
            assert_eq!(bits(&front), bits(&b), "{i}");
            // A side said to be whole is `w` itself.
            for (whole, part) in [(back_whole, &back), (front_whole, &front)] {
                if whole {
                    assert_eq!(bits(part), bits(&w), "{i}");
                }
            }
        }
    }

    /// `round_nearest` is `round` (the sign of a zero aside) and `floor_i64` is `floor` then
    /// `as i64` on halves, neighbours of halves, large, tiny and special values and random bit
    /// patterns.
    #[test]
    fn round_nearest_is_round() {
        let mut next = xorshift(0x5851_f42d_4c95_7f2d);
        let mut values = vec![0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994, 4503599627370495.5];
        values.extend([-4503599627370495.5, 4503599627370496.0, 9007199254740993.0, 1e300, f64::MAX, f64::MIN_POSITIVE, 5e-324]);
        // The ends of `i64`: −2⁶³ and the float just below 2⁶³.
        let top = 2f64.powi(63);
        values.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -top, f64::from_bits(top.to_bits() - 1), -1e300]);
        for _ in 0..200_000 {
            let r = next();
            values.push(f64::from_bits(r));
            values.push((r % 2_000_001) as f64 / 1000.0 - 1000.0);
            values.push((r % 4_001) as f64 / 2.0 - 1000.0);
        }
        for half in [0.5f64, 1.5, 1e6 + 0.5, 2f64.powi(51) + 0.5] {
            // The floats either side of each half (positive, so one step of the bits).
            let (below, above) = (f64::from_bits(half.to_bits() - 1), f64::from_bits(half.to_bits() + 1));
            values.extend([below, half, above].iter().flat_map(|&v| [v, -v]));
        }
        for &v in &values {
            assert_eq!(floor_i64(v), v.floor() as i64, "{v:e}");
            assert_eq!(floor_i64(v / 64.0), (v / 64.0).floor() as i64, "{v:e}");
        }
        for v in values {
            let (a, b) = (round_nearest(v), v.round());
            assert!(a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0) || (a.is_nan() && b.is_nan()), "{v:e}: {a} {b}");
        }
    }

    /// `last_max` picks the corner `max_by` picks, ties (equal lengths, NaN) included.
    #[test]
    fn last_max_is_max_by() {
        let mut next = xorshift(0x1405_7b7e_f767_814f);
        for n in 1..12 {
            for _ in 0..2_000 {
                // Few distinct coordinates: many equal lengths.
                let mut poly: Vec<[f64; 3]> = (0..n).map(|_| [0, 1, 2].map(|_| (next() % 5) as f64 - 2.0)).collect();
                if next() % 10 == 0 {
                    poly[(next() % n) as usize][0] = f64::NAN;
                }
                let a = poly[0];
                let key = |x: [f64; 3]| length(sub(x, a));
                let want = *poly.iter().max_by(|x, y| key(**x).total_cmp(&key(**y))).unwrap();
                assert_eq!(last_max(&poly, key).map(f64::to_bits), want.map(f64::to_bits), "{poly:?}");
            }
        }
    }

    #[test]
    fn intersection_area() {
        let sq = |x0: f64, x1: f64| vec![[x0, 0.0, 0.0], [x1, 0.0, 0.0], [x1, 10.0, 0.0], [x0, 10.0, 0.0]];
        let i = intersect(&sq(0.0, 10.0), &sq(5.0, 20.0), [0.0, 0.0, 1.0]);
        assert!((area(&i) - 50.0).abs() < 1e-9);
        let mut rev = sq(5.0, 20.0);
        rev.reverse();
        assert!((area(&intersect(&sq(0.0, 10.0), &rev, [0.0, 0.0, 1.0])) - 50.0).abs() < 1e-9);
    }

    /// `intersect_area` is `area(&intersect(..))` bit for bit, on random slanted polygons
    /// (kept buffers of any earlier, larger polygon must not leak into a later answer).
    #[test]
    fn intersect_area_is_the_area_of_intersect() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        let mut rnd = move || (next() >> 11) as f64 / (1u64 << 53) as f64 * 100.0 - 50.0;
        let mut overlapping = 0;
        for _ in 0..2000 {
            let normal = normalize([rnd(), rnd(), rnd()]).unwrap();
            let plane = Plane { normal, dist: rnd() };
            // Two random convex polygons on the plane: the base square clipped by random planes.
            let mut poly = || {
                let mut w = base_winding(&plane);
                let mut out = Vec::new();
                for _ in 0..3 + (rnd().abs() / 10.0) as usize {
                    let n = normalize([rnd(), rnd(), rnd()]).unwrap();
                    clip_behind(&w, &Plane { normal: n, dist: rnd().abs() }, &mut out);
                    std::mem::swap(&mut w, &mut out);
                }
                w
            };
            let (a, b) = (poly(), poly());
            let want = area(&intersect(&a, &b, normal));
            assert_eq!(intersect_area(&a, &b, normal).to_bits(), want.to_bits());
            overlapping += usize::from(want > 0.0);
        }
        assert!(overlapping > 200, "{overlapping}");
    }
}
