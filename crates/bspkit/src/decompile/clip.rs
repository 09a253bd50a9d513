//! Clip brushes from a clip hull (Quake 1, Hexen II, BSP2, GoldSrc).
//!
//! The compilers build clip hull 1 from the solid brushes *and* the clip brushes, each grown by
//! the player box mirrored (a point is solid in hull 1 when the player box there meets a brush;
//! the Minkowski sum `brush ⊕ box` with `box` = −player box: the brush's planes moved out, plus
//! the bevel planes of its edges against the box's axes), and leave clip brushes out of hull 0.
//! So the clip brushes are in hull 1 and not in hull 0, and can be found without guessing shapes
//! (`box` below is that growth box):
//!
//! * `S1` (hull 1's solid leaves) eroded by the box is `{x : x + box ⊂ S1}`: the points the
//!   player's origin can never reach. Erosion of a union is not the union of erosions, so it is
//!   computed from the other side: the eroded set is what is left after removing every *empty*
//!   hull-1 leaf grown by the reflected box.
//! * From it the hull-0 solid (`S0`) is removed; what remains is clip volume (and narrow gaps the
//!   box cannot enter, whose growth adds nothing to hull 1: those pieces are dropped by their
//!   measured gain).
//! * The pieces are merged like the tree's other regions and written as clip brushes.
//!
//! Measured on every decompile: the volume of hull 1's solid (clipped to the model's bounds
//! grown by the box) that the grown hull-0 brushes reproduce, without and with the clip
//! brushes. Written here (see [`super::tree`] for why no crate): half-space polytopes with the
//! decompiler's tolerances.

use std::cell::OnceCell;
use std::collections::HashMap;

use super::geom::{self, Plane};
use super::tree::{self, Face, Origin, Region};

/// An axis-aligned box (a clip hull's size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HullBox {
    pub mins: [f64; 3],
    pub maxs: [f64; 3],
}

impl HullBox {
    /// `max over the box of dot(n, b)`: how far the box reaches along `n`.
    pub(crate) fn support(&self, n: [f64; 3]) -> f64 {
        (0..3).map(|k| (n[k] * self.mins[k]).max(n[k] * self.maxs[k])).sum()
    }
    /// The box mirrored through the origin (`-box`).
    pub(crate) fn reflected(&self) -> HullBox {
        HullBox { mins: self.maxs.map(|c| -c), maxs: self.mins.map(|c| -c) }
    }
}

/// A convex set as outward half-spaces, with its bounds.
#[derive(Debug, Clone)]
pub(crate) struct Convex {
    pub planes: Vec<Plane>,
    pub bounds: ([f64; 3], [f64; 3]),
}

const AXES: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// `faces ⊕ b`, exactly: its facets are the region's faces moved out by the box, the box's
/// faces moved out by the region, and for every region edge that is extreme along a direction
/// perpendicular to it and to a box axis, that direction (the compilers' edge bevels).
pub(crate) fn grow(faces: &[Face], b: &HullBox) -> Convex {
    grow_by(&growth(faces), faces, b)
}

/// A facet direction of a region's growth and how far the region reaches along it
/// (`max dot(n, corner)`).
type Facet = ([f64; 3], f64);

/// [`grow`] from the region's [`growth`]: each facet moved out by the box's reach along it.
fn grow_by(facets: &[Facet], faces: &[Face], b: &HullBox) -> Convex {
    let planes = facets.iter().map(|&(n, reach)| Plane { normal: n, dist: reach + b.support(n) }).collect();
    let (lo, hi) = tree::bounds(faces);
    Convex { planes, bounds: (std::array::from_fn(|k| lo[k] + b.mins[k]), std::array::from_fn(|k| hi[k] + b.maxs[k])) }
}

/// The facet directions of a region's growth by any box, with the region's reach along each,
/// in [`grow`]'s order: which directions are facets, and the reach, depend on the region
/// alone (a box axis, a face normal, or an edge's bevel against an axis), only the distance
/// the box adds does not. So a region grown for hull 1 and again for hull 2 (and 3) finds them
/// once ([`GrowthCache`]); the planes are the same numbers (`reach + support`, as before).
fn growth(faces: &[Face]) -> Vec<Facet> {
    // Each corner is in about three faces' windings: the largest dot product is the same over
    // the distinct points (bit for bit), at about a third of the cost (`grow` was a tenth of
    // LibreQuake e0m2's decompile in perf).
    let mut pts: Vec<[f64; 3]> = faces.iter().flat_map(|f| f.winding.iter().copied()).collect();
    pts.sort_unstable_by_key(|p| p.map(f64::to_bits));
    pts.dedup_by_key(|p| p.map(f64::to_bits));
    let reach = |n: [f64; 3]| pts.iter().map(|p| geom::dot(n, *p)).fold(f64::NEG_INFINITY, f64::max);
    let key = |n: [f64; 3]| n.map(|c| (c * 1e6).round() as i64);
    // The directions taken: a few dozen, so a list beats a hashed set.
    let mut seen: Vec<[i64; 3]> = Vec::new();
    let mut facets = Vec::new();
    let add = |n: [f64; 3], facets: &mut Vec<Facet>, seen: &mut Vec<[i64; 3]>| {
        let k = key(n);
        if !seen.contains(&k) {
            seen.push(k);
            facets.push((n, reach(n)));
        }
    };
    for f in faces {
        add(f.plane.normal, &mut facets, &mut seen);
    }
    for a in AXES {
        add(a, &mut facets, &mut seen);
        add(geom::scale(a, -1.0), &mut facets, &mut seen);
    }
    // Each edge is in two faces' windings, the other way round: the second visit tests the
    // same two directions (negated exactly) against the same corners and adds nothing, so an
    // edge whose corners are bit-identical to one already visited is skipped.
    let mut edges: Vec<[[u64; 3]; 2]> = Vec::with_capacity(pts.len() * 2);
    for f in faces {
        let w = &f.winding;
        for i in 0..w.len() {
            let (p, q) = (w[i], w[(i + 1) % w.len()]);
            let (pb, qb) = (p.map(f64::to_bits), q.map(f64::to_bits));
            let edge = if pb <= qb { [pb, qb] } else { [qb, pb] };
            if edges.contains(&edge) {
                continue;
            }
            edges.push(edge);
            for a in AXES {
                let Some(n) = geom::normalize(geom::cross(geom::sub(q, p), a)) else { continue };
                for n in [n, geom::scale(n, -1.0)] {
                    // A direction already added adds nothing (and its reach is a pass over
                    // every corner).
                    if seen.contains(&key(n)) {
                        continue;
                    }
                    // A facet only where the edge itself is extreme along `n`. Most edges are
                    // not, and a corner beyond the edge's lower end says so early: rounding is
                    // monotonic, so `top − 1e-6 ≥ m` holds exactly when some corner's
                    // `dot − 1e-6 ≥ m` does, and the full test below then fails too.
                    let m = geom::dot(n, p).min(geom::dot(n, q));
                    if pts.iter().any(|x| geom::dot(n, *x) - 1e-6 >= m) {
                        continue;
                    }
                    let top = reach(n);
                    if geom::dot(n, p) > top - 1e-6 && geom::dot(n, q) > top - 1e-6 {
                        add(n, &mut facets, &mut seen);
                    }
                }
            }
        }
    }
    facets
}

/// Each region's [`growth`], found when first needed and kept for the next hull: the hull-0
/// brushes (and the clip brushes of lower hulls) are grown by every clip hull's box, and the
/// directions and reaches do not depend on the box (perf: `grow` was 12–14 % of the LibreQuake
/// decompiles, most of it these regions). Indexed like the regions it is given with.
#[derive(Default)]
pub(crate) struct GrowthCache(Vec<OnceCell<Vec<Facet>>>);

impl GrowthCache {
    /// Room for `n` regions (the ones already there keep what they found).
    pub(crate) fn cover(&mut self, n: usize) {
        if self.0.len() < n {
            self.0.resize_with(n, OnceCell::new);
        }
    }
}

#[cfg(test)]
/// `faces ⊖ b` (`{x : x + b ⊂ region}`): every plane moved in by the box; `None` when empty or a
/// sliver.
pub(crate) fn shrink(faces: &[Face], b: &HullBox) -> Option<Vec<Face>> {
    let planes: Vec<(Plane, Origin, Option<u32>)> =
        faces.iter().map(|f| (Plane { normal: f.plane.normal, dist: f.plane.dist - b.support(f.plane.normal) }, f.origin, f.tex)).collect();
    let out = tree::from_planes(&planes);
    (out.len() >= 4 && tree::volume(&out) >= tree::MIN_VOLUME).then_some(out)
}

fn overlap(a: &([f64; 3], [f64; 3]), b: &([f64; 3], [f64; 3])) -> bool {
    (0..3).all(|k| a.0[k] < b.1[k] - 1e-3 && b.0[k] < a.1[k] - 1e-3)
}

type Bounds = ([f64; 3], [f64; 3]);

/// A piece being carved: its faces, bounds and, where already measured, its volume (a part
/// cut off is measured for the sliver test, and that figure travels with it).
type Carved = (Vec<Face>, Bounds, Option<f64>);

/// The parts of `piece` (with its bounds) outside the convex `c`, pushed to `out` with theirs
/// (slivers dropped). Costs the planes clipped in `work`. The bounds travel with the pieces:
/// a piece is tested against every set near it, and `tree::bounds` was 22 % of the samples of a
/// debug run of the Quake 1 / GoldSrc corpus decompile (perf), recomputed here per piece and set.
fn carve(piece: Vec<Face>, bounds: Bounds, volume: Option<f64>, c: (&[Plane], &Bounds), out: &mut Vec<Carved>, work: &mut u64) {
    if !overlap(&bounds, c.1) {
        out.push((piece, bounds, volume));
        return;
    }
    // The bounds of what is left, kept exact (taken again after each cut) for `split_within`.
    let (mut rest, mut rest_bounds) = (piece, bounds);
    for p in c.0 {
        // The pieces' face origins are never read (the brushes made of them get `Plane`).
        let (back, front, cut) = tree::split_within(rest, &rest_bounds, p, work, false);
        if let Some(f) = front {
            let v = tree::volume(&f);
            if v >= tree::MIN_VOLUME {
                // Uncut, its bounds are those of what was left (the same fold of the same corners).
                let b = if cut { tree::bounds(&f) } else { rest_bounds };
                out.push((f, b, Some(v)));
            }
        }
        match back {
            Some(b) => {
                if cut {
                    rest_bounds = tree::bounds(&b);
                }
                rest = b
            }
            None => return,
        }
    }
}

/// How a subtraction treats a piece that a set's bounds meet but the set itself does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Apart {
    /// Carved plane by plane like any other: the cuts before the plane that has it wholly in
    /// front leave parts that all stay. The parts become clip brushes after merging, so where
    /// they are the output (the erosion and the hull-0 subtraction of the candidates) they are
    /// cut exactly as they always were.
    Carve,
    /// Kept whole when one of the set's planes has every corner of the piece on or in front of
    /// it. Where only the volume left is wanted (hull measurement, a candidate's gain) this is
    /// the same set with fewer parts: the volume agrees up to rounding and the slivers under
    /// [`tree::MIN_VOLUME`] that a needless cut would have dropped. Such cuts multiply: every
    /// part is carved by every later set near it (perf: the measurement was 22–45 % of the
    /// LibreQuake decompiles).
    Whole,
}

/// Whether one of `planes` has every corner of `piece` on or in front of it within the split's
/// tolerance (`-ON_EPSILON`): then the piece and the convex set they bound do not overlap.
/// Costs a unit per face of the piece (a pass over its corners, without clipping).
fn apart(piece: &[Face], bounds: &Bounds, planes: &[Plane], work: &mut u64) -> bool {
    *work += piece.len() as u64;
    planes.iter().any(|p| {
        let n = p.normal;
        // The box's lowest corner along the normal: in front, so is every corner.
        let lo: f64 = (0..3).map(|k| (n[k] * bounds.0[k]).min(n[k] * bounds.1[k])).sum::<f64>() - p.dist;
        if lo >= -geom::ON_EPSILON + 1e-6 {
            return true;
        }
        piece.iter().all(|f| f.winding.iter().all(|c| p.distance(*c) >= -geom::ON_EPSILON))
    })
}

/// How far in front of a set's plane (units) [`contained`] lets a corner lie. The parts later
/// cut from a piece have its corners or new ones on its edges and faces (give or take rounding,
/// and a cut face's corners that a split's tolerance let stand), so the splits by that set,
/// which count a corner up to [`geom::ON_EPSILON`] in front as behind, find each part wholly
/// behind every plane: nothing of it is left. Far below that tolerance, so that what the parts
/// move by stays inside it (the parts left were bit-identical on every Quake 1, GoldSrc and
/// Genesis3D corpus map and in `parts_a_later_set_holds_are_dropped_uncut`).
const CONTAINED_EPS: f64 = 1e-6;

/// Whether every corner of `piece` lies behind (or within [`CONTAINED_EPS`] in front of) every
/// one of `planes`: the convex set they bound holds the piece, and a subtraction of that set
/// leaves nothing of it. Costs a unit per face of the piece (a pass over its corners, without
/// clipping). No planes bound nothing.
fn contained(piece: &[Face], bounds: &Bounds, planes: &[Plane], work: &mut u64) -> bool {
    *work += piece.len() as u64;
    !planes.is_empty()
        && planes.iter().all(|p| {
            let n = p.normal;
            // The box's highest corner along the normal: behind, so is every corner.
            let hi: f64 = (0..3).map(|k| (n[k] * bounds.0[k]).max(n[k] * bounds.1[k])).sum::<f64>() - p.dist;
            hi <= CONTAINED_EPS || piece.iter().all(|f| f.winding.iter().all(|c| p.distance(*c) <= CONTAINED_EPS))
        })
}

type Cells = crate::cellhash::CellMap<[i64; 3], Vec<usize>>;

/// The edge of a [`Grid`]'s cells (units).
const CELL: f64 = 256.0;
/// A set spanning more grid cells than this is listed in one catch-all cell (found by every
/// look-up).
const MAX_SPAN: i64 = 512;

/// The grid cells `b` spans, from the lowest corner's to the highest's, and how many.
fn cell_span(b: &Bounds) -> ([i64; 3], [i64; 3], i64) {
    let (lo, hi) = (b.0.map(|v| (v / CELL).floor() as i64), b.1.map(|v| (v / CELL).floor() as i64));
    let span: i64 = (0..3).map(|k| (hi[k] - lo[k] + 1).max(1)).product();
    (lo, hi, span)
}

/// A spatial list of convex sets, found by bounds (a uniform grid over their extents).
///
/// The sets of [`Grid::grown`] are grown only when a piece first meets their bounds: the
/// clip recovery's reach grid (every empty hull-1 leaf grown) is looked up only around the
/// uncovered volume, so most of its growths were never used.
pub(crate) struct Grid<'a> {
    bounds: Vec<Bounds>,
    planes: Vec<OnceCell<Vec<Plane>>>,
    /// Where unmade planes come from: each region grown by the box, its facets from the cache
    /// where one is given.
    grow_from: Option<(&'a [Region], HullBox, Option<&'a GrowthCache>)>,
    cells: Cells,
}

impl<'a> Grid<'a> {
    pub(crate) fn new(items: Vec<Convex>) -> Grid<'a> {
        let bounds: Vec<Bounds> = items.iter().map(|c| c.bounds).collect();
        let planes = items.into_iter().map(|c| OnceCell::from(c.planes)).collect();
        Grid::with(bounds, planes, None)
    }

    /// The grid of `regions` each grown by `b` ([`grow`]), a set's growth made when first used:
    /// its bounds are [`grow`]'s, taken the same way from the region's.
    pub(crate) fn grown(regions: &'a [Region], b: HullBox, cache: Option<&'a GrowthCache>) -> Grid<'a> {
        let bounds = regions
            .iter()
            .map(|r| {
                let (lo, hi) = tree::bounds(&r.faces);
                (std::array::from_fn(|k| lo[k] + b.mins[k]), std::array::from_fn(|k| hi[k] + b.maxs[k]))
            })
            .collect();
        let planes = regions.iter().map(|_| OnceCell::new()).collect();
        // A cache too short for the regions is not used (each growth is then found anew).
        let cache = cache.filter(|c| c.0.len() >= regions.len());
        Grid::with(bounds, planes, Some((regions, b, cache)))
    }

    fn with(
        bounds: Vec<Bounds>,
        planes: Vec<OnceCell<Vec<Plane>>>,
        grow_from: Option<(&'a [Region], HullBox, Option<&'a GrowthCache>)>,
    ) -> Grid<'a> {
        let mut cells: Cells = HashMap::default();
        for (i, b) in bounds.iter().enumerate() {
            let (lo, hi, span) = cell_span(b);
            if span > MAX_SPAN {
                cells.entry([i64::MIN; 3]).or_default().push(i);
                continue;
            }
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        cells.entry([x, y, z]).or_default().push(i);
                    }
                }
            }
        }
        Grid { bounds, planes, grow_from, cells }
    }

    /// Set `i`: its planes (grown now if not yet) and bounds.
    fn set(&self, i: usize) -> (&[Plane], &Bounds) {
        let planes = self.planes[i].get_or_init(|| match self.grow_from {
            Some((regions, b, Some(cache))) => {
                let faces = &regions[i].faces;
                grow_by(cache.0[i].get_or_init(|| growth(faces)), faces, &b).planes
            }
            Some((regions, b, None)) => grow(&regions[i].faces, &b).planes,
            None => Vec::new(),
        });
        (planes, &self.bounds[i])
    }

    /// Indices of the sets whose bounds may overlap `b`, each once, in order.
    pub(crate) fn near(&self, b: &([f64; 3], [f64; 3])) -> Vec<usize> {
        let (lo, hi, span) = cell_span(b);
        let mut out: Vec<usize> = self.cells.get(&[i64::MIN; 3]).cloned().unwrap_or_default();
        if span > 4096 {
            out.extend((0..self.bounds.len()).filter(|&i| overlap(&self.bounds[i], b)));
        } else {
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        if let Some(v) = self.cells.get(&[x, y, z]) {
                            out.extend(v.iter().copied().filter(|&i| overlap(&self.bounds[i], b)));
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// One piece less the sets `near` names, in turn: the parts left with their bounds.
    /// `None` once the work passes `limit` (checked after each set, as every caller counts it).
    fn carve_by(&self, piece: Carved, near: &[usize], work: &mut u64, limit: u64, whole: Apart) -> Option<Vec<Carved>> {
        // Each part with whether it is new since the last containment test (a part kept whole
        // was tested against every set from the one before on, which covers the sets left).
        let mut cur = vec![(piece, true)];
        let mut parts = Vec::new();
        for (at, &i) in near.iter().enumerate() {
            // A new part that one of the sets left holds whole is gone once that set is reached,
            // with every part later cut from it: dropped now, uncut (the parts left, and their
            // order, are the same). Perf on LibreQuake e0m2: the hull measurement was 43 % of the
            // decompile, most of it carving parts of a leaf that a later grown brush covers.
            cur.retain_mut(|((q, qb, _), fresh)| !std::mem::take(fresh) || !near[at..].iter().any(|&k| self.holds(k, q, qb, work)));
            if cur.is_empty() {
                break;
            }
            let mut next = Vec::with_capacity(cur.len());
            for ((q, qb, qv), _) in cur {
                // `carve` keeps a piece whole that does not meet the set's bounds: checked
                // here first, so that a set is grown only when a piece meets it.
                if !overlap(&qb, &self.bounds[i]) {
                    next.push(((q, qb, qv), false));
                    continue;
                }
                let set = self.set(i);
                if whole == Apart::Whole && apart(&q, &qb, set.0, work) {
                    next.push(((q, qb, qv), false));
                    continue;
                }
                carve(q, qb, qv, set, &mut parts, work);
                next.extend(parts.drain(..).map(|p| (p, true)));
            }
            cur = next;
            if *work > limit {
                return None;
            }
            if cur.is_empty() {
                break;
            }
        }
        Some(cur.into_iter().map(|(p, _)| p).collect())
    }

    /// Whether set `i` holds `piece` (with its bounds) whole: [`contained`], after its bounds.
    fn holds(&self, i: usize, piece: &[Face], bounds: &Bounds, work: &mut u64) -> bool {
        let sb = &self.bounds[i];
        // A set holds only pieces inside its bounds (give or take the tolerance).
        if !(0..3).all(|k| bounds.0[k] >= sb.0[k] - 1e-3 && bounds.1[k] <= sb.1[k] + 1e-3) {
            return false;
        }
        contained(piece, bounds, self.set(i).0, work)
    }

    /// `pieces` less every set of the grid; the volume left. Stops (returns `None`) past `limit`
    /// work units.
    pub(crate) fn subtract(&self, pieces: Vec<Vec<Face>>, work: &mut u64, limit: u64) -> Option<Vec<Vec<Face>>> {
        Some(self.subtract_measured(pieces, work, limit, Apart::Carve)?.into_iter().map(|(q, _)| q).collect())
    }

    /// [`Grid::subtract`], each part with its volume ([`tree::volume`], taken once); `whole`
    /// says whether pieces a set does not meet are kept whole ([`Apart`]).
    fn subtract_measured(&self, pieces: Vec<Vec<Face>>, work: &mut u64, limit: u64, whole: Apart) -> Option<Vec<(Vec<Face>, f64)>> {
        let mut done = Vec::new();
        for p in pieces {
            let b = tree::bounds(&p);
            let near = self.near(&b);
            let cur = self.carve_by((p, b, None), &near, work, limit, whole)?;
            done.extend(cur.into_iter().map(|(q, _, v)| {
                let v = v.unwrap_or_else(|| tree::volume(&q));
                (q, v)
            }));
        }
        Some(done)
    }
}

/// A piece of uncovered hull volume with its bounds and volume.
struct Piece {
    faces: Vec<Face>,
    bounds: Bounds,
    volume: f64,
}

/// A piece after a subtraction: one of the input pieces untouched (by index), or a new part.
enum Kept {
    Same(usize),
    New(Piece),
}

impl Kept {
    fn volume(&self, input: &[Piece]) -> f64 {
        match self {
            Kept::Same(i) => input[*i].volume,
            Kept::New(p) => p.volume,
        }
    }

    /// The pieces `kept` names, the untouched ones moved out of `input`.
    fn take(kept: Vec<Kept>, mut input: Vec<Piece>) -> Vec<Piece> {
        kept.into_iter()
            .map(|k| match k {
                Kept::Same(i) => {
                    let p = &mut input[i];
                    Piece { faces: std::mem::take(&mut p.faces), bounds: p.bounds, volume: p.volume }
                }
                Kept::New(p) => p,
            })
            .collect()
    }
}

impl Convex {
    /// `pieces` less this one set, on pieces that stay as they are (the result names the
    /// untouched ones by index and copies only the pieces the set meets): what
    /// [`Grid::subtract_measured`] with [`Apart::Whole`] on a grid of this set alone gives: the
    /// same parts in the same order and the same work. Each piece is tested against the set's
    /// bounds directly; a grid of one set made per candidate brush and looked up per piece
    /// (hashing every cell the piece spans, a list per piece) was most of the candidates' test.
    fn subtract_kept(&self, pieces: &[Piece], work: &mut u64, limit: u64) -> Option<Vec<Kept>> {
        // Such a grid would list a set this large in its catch-all cell, found by every piece.
        let catch_all = cell_span(&self.bounds).2 > MAX_SPAN;
        let mut done = Vec::with_capacity(pieces.len());
        for (pi, p) in pieces.iter().enumerate() {
            // `carve` keeps a piece whole unless its bounds overlap the set's.
            if !overlap(&p.bounds, &self.bounds) {
                // `subtract` checks the allowance after each set near the piece.
                if catch_all && *work > limit {
                    return None;
                }
                done.push(Kept::Same(pi));
                continue;
            }
            // Only the gain is read from what is left ([`Apart::Whole`]): a piece the growth
            // does not meet stays as it is, uncopied.
            if apart(&p.faces, &p.bounds, &self.planes, work) {
                if *work > limit {
                    return None;
                }
                done.push(Kept::Same(pi));
                continue;
            }
            let mut cur = Vec::new();
            carve(p.faces.clone(), p.bounds, Some(p.volume), (&self.planes, &self.bounds), &mut cur, work);
            if *work > limit {
                return None;
            }
            done.extend(cur.into_iter().map(|(faces, bounds, volume)| {
                let volume = volume.unwrap_or_else(|| tree::volume(&faces));
                Kept::New(Piece { faces, bounds, volume })
            }));
        }
        Some(done)
    }
}

/// What [`recover`] found for one model.
#[derive(Debug, Default)]
pub(crate) struct ClipResult {
    /// The clip brushes (merged), model space.
    pub brushes: Vec<Region>,
    /// Hull 1's solid volume inside the grown bounds, and what the grown hull-0 solid covers of
    /// it without and with the clip brushes grown (cubic units).
    pub hull_volume: f64,
    pub covered_without: f64,
    pub covered_with: f64,
    /// Work spent; the allowance ran out (no clip brushes for this model then).
    pub work: u64,
    pub stopped: bool,
}

/// Where a hull's player origin can reach: its empty leaves grown by the reflected box (what
/// is left of the hull's solid without these is the hull eroded by the box).
pub(crate) fn reach<'a>(empty: &'a [Region], b: &HullBox) -> Grid<'a> {
    Grid::grown(empty, b.reflected(), None)
}

/// Clip brushes of one model from one clip hull: `solid1` / `empty1` are the hull's solid and
/// empty leaf regions inside `start1` (= `start0 ⊕ b`), `solid0` the regions already solid in
/// the hull (the decompiled hull-0 brushes, and the clip brushes of lower hulls), `start0` the
/// region hull 0 was walked in, `lower` the [`reach`] of each lower hull (a clip brush is in
/// every hull, so its pieces lie outside them all). `contents` is given to the brushes made.
/// With `find` false only the coverage is measured (no brushes). `grown` holds each `solid0`
/// region's [`growth`] (at least `solid0.len()` of them), kept across hulls. Spends at most
/// about `limit` work units.
#[allow(clippy::too_many_arguments)]
pub(crate) fn recover(
    solid1: &[Region],
    empty1: &[Region],
    solid0: &[Region],
    grown: &GrowthCache,
    start0: &[Face],
    b: &HullBox,
    lower: &[Grid],
    contents: i32,
    limit: u64,
    find: bool,
) -> ClipResult {
    let mut r = ClipResult::default();
    let mut work = 0u64;
    r.hull_volume = solid1.iter().map(|s| tree::volume(&s.faces)).sum();
    let grown0 = Grid::grown(solid0, *b, Some(grown));
    // Hull 1 less the grown hull 0: what the clip brushes must give back.
    let Some(left) = grown0.subtract_measured(solid1.iter().map(|s| s.faces.clone()).collect(), &mut work, limit, Apart::Whole) else {
        r.stopped = true;
        r.work = work;
        return r;
    };
    let left_volume: f64 = left.iter().map(|p| p.1).sum();
    r.covered_without = r.hull_volume - left_volume;
    r.covered_with = r.covered_without;
    if left_volume < 1.0 || !find {
        r.work = work;
        return r;
    }
    // Candidates: the hull-1 solid leaves within a box's reach of uncovered volume (a clip
    // brush's erosion may sit in a leaf the grown hull 0 covers, next to the uncovered part).
    let left_bounds: Vec<Bounds> = left.iter().map(|p| tree::bounds(&p.0)).collect();
    let left_grid = Grid::new(left_bounds.iter().map(|lb| Convex { planes: Vec::new(), bounds: grown_bounds(lb, b) }).collect());
    let start_planes: Vec<Plane> = start0.iter().map(|f| f.plane).collect();
    let own = reach(empty1, b);
    let solid0_grid = Grid::new(
        solid0.iter().map(|s| Convex { planes: s.faces.iter().map(|f| f.plane).collect(), bounds: tree::bounds(&s.faces) }).collect(),
    );
    let mut pieces = Vec::new();
    for s in solid1 {
        if left_grid.near(&tree::bounds(&s.faces)).is_empty() {
            continue;
        }
        // Inside hull 0's start region (points beyond it reach past hull 1's).
        let mut cur = Some(s.faces.clone());
        for p in &start_planes {
            let Some(c) = cur else { break };
            cur = tree::split_unmarked(c, p, &mut work).0;
        }
        let Some(c) = cur else { continue };
        let mut eroded = Some(vec![c]);
        for g in std::iter::once(&own).chain(lower) {
            eroded = eroded.and_then(|e| g.subtract(e, &mut work, limit));
        }
        let Some(eroded) = eroded else {
            r.stopped = true;
            r.work = work;
            return r;
        };
        let Some(clip) = solid0_grid.subtract(eroded, &mut work, limit) else {
            r.stopped = true;
            r.work = work;
            return r;
        };
        pieces.extend(clip);
    }
    let regions: Vec<Region> = pieces
        .into_iter()
        .map(|mut faces| {
            for f in faces.iter_mut() {
                f.origin = Origin::Plane;
                f.tex = None;
            }
            Region { faces, contents }
        })
        .collect();
    let (merged, stats) = tree::merge(regions, limit.saturating_sub(work));
    work += stats.work;
    // Keep the pieces whose growth covers hull-1 volume nothing else covers, largest first.
    let mut merged: Vec<(f64, Region)> = merged.into_iter().map(|m| (tree::volume(&m.faces), m)).collect();
    merged.sort_by(|a, b| b.0.total_cmp(&a.0));
    // The uncovered pieces with their bounds and volumes, kept from one candidate to the next:
    // a candidate's growth meets few of them, and the others were copied and measured again
    // per candidate (perf: most of the clip recovery's time on LibreQuake e0m2). The sums are
    // taken over the same volumes in the same order as before, so the figures are unchanged.
    let mut left: Vec<Piece> = left.into_iter().zip(left_bounds).map(|((faces, volume), bounds)| Piece { faces, bounds, volume }).collect();
    let mut left_sum: f64 = left.iter().map(|p| p.volume).sum();
    for (_, m) in merged {
        let Some(after) = grow(&m.faces, b).subtract_kept(&left, &mut work, limit) else {
            r.stopped = true;
            break;
        };
        let after_sum: f64 = after.iter().map(|a| a.volume(&left)).sum();
        let gain = left_sum - after_sum;
        if gain > 1.0 {
            r.brushes.push(m);
            left = Kept::take(after, left);
            left_sum = after_sum;
        }
    }
    let left_volume = left_sum;
    r.covered_with = r.hull_volume - left_volume;
    r.work = work;
    r
}

fn grown_bounds(b: &([f64; 3], [f64; 3]), h: &HullBox) -> ([f64; 3], [f64; 3]) {
    (std::array::from_fn(|k| b.0[k] - h.maxs[k]), std::array::from_fn(|k| b.1[k] - h.mins[k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(lo: [f64; 3], hi: [f64; 3]) -> Vec<Face> {
        tree::box_faces(lo, hi, Origin::Plane)
    }

    #[test]
    fn grow_is_the_minkowski_sum() {
        let b = HullBox { mins: [-16.0, -16.0, -24.0], maxs: [16.0, 16.0, 32.0] };
        let g = grow(&cube([0.0; 3], [64.0; 3]), &b);
        let faces = tree::from_planes(&g.planes.iter().map(|p| (*p, Origin::Plane, None)).collect::<Vec<_>>());
        assert!((tree::volume(&faces) - 96.0 * 96.0 * 120.0).abs() < 1e-6);
        // A wedge: the sum of a right prism and the box has the diagonal's bevel.
        let n = geom::normalize([1.0, 1.0, 0.0]).unwrap();
        let mut wedge = cube([0.0; 3], [64.0; 3]);
        wedge.push(Face::new(
            Plane { normal: n, dist: 64.0 / std::f64::consts::SQRT_2 },
            tree::Winding::from_slice(&[]),
            Origin::Plane,
            None,
        ));
        let planes: Vec<_> = wedge.iter().map(|f| (f.plane, Origin::Plane, None)).collect();
        let wedge = tree::from_planes(&planes);
        let g = grow(&wedge, &b);
        let faces = tree::from_planes(&g.planes.iter().map(|p| (*p, Origin::Plane, None)).collect::<Vec<_>>());
        // Growing then shrinking gives the wedge back.
        let back = shrink(&faces, &b).unwrap();
        assert!((tree::volume(&back) - tree::volume(&wedge)).abs() < 1e-3, "{} {}", tree::volume(&back), tree::volume(&wedge));
        // And the sum holds every corner of the wedge moved by every corner of the box.
        for f in &wedge {
            for p in f.winding.iter() {
                for c in 0..8 {
                    let q: [f64; 3] = std::array::from_fn(|k| p[k] + if c >> k & 1 == 1 { b.maxs[k] } else { b.mins[k] });
                    assert!(g.planes.iter().all(|pl| pl.distance(q) <= 1e-6), "{q:?}");
                }
            }
        }
    }

    /// A region's growth found for one box and kept gives, for another box, the planes a
    /// fresh [`grow`] by that box gives, bit for bit and in order (hulls 1 and 2 share it).
    #[test]
    fn a_kept_growth_grows_by_any_box() {
        let hull1 = HullBox { mins: [-16.0, -16.0, -32.0], maxs: [16.0, 16.0, 24.0] };
        let hull2 = HullBox { mins: [-32.0, -32.0, -64.0], maxs: [32.0, 32.0, 24.0] };
        let n = geom::normalize([1.0, 2.0, 3.0]).unwrap();
        let mut wedge = cube([0.0; 3], [64.0, 48.0, 80.0]);
        wedge.push(Face::new(Plane { normal: n, dist: 70.0 }, tree::Winding::from_slice(&[]), Origin::Plane, None));
        let wedge = tree::from_planes(&wedge.iter().map(|f| (f.plane, Origin::Plane, None)).collect::<Vec<_>>());
        let regions = vec![Region { faces: cube([-8.0; 3], [40.0, 8.0, 8.0]), contents: -2 }, Region { faces: wedge, contents: -2 }];
        let mut cache = GrowthCache::default();
        cache.cover(regions.len());
        let bits = |p: &[Plane]| p.iter().map(|p| (p.normal.map(f64::to_bits), p.dist.to_bits())).collect::<Vec<_>>();
        for b in [hull1, hull2, hull1] {
            let grid = Grid::grown(&regions, b, Some(&cache));
            for (i, r) in regions.iter().enumerate() {
                let fresh = grow(&r.faces, &b);
                assert_eq!(bits(grid.set(i).0), bits(&fresh.planes));
                assert_eq!(grid.set(i).1, &fresh.bounds);
            }
        }
        // Every facet was found once, by the first box, and kept.
        assert!(cache.0.iter().all(|c| c.get().is_some_and(|f| f.len() >= 6)));
    }

    #[test]
    fn a_set_that_misses_a_piece_leaves_it_whole_when_only_measured() {
        // The set: x ≥ 32, y ≥ 32, x + y + z ≥ 200 inside a box to 96: its bounds meet the
        // cube 0..64, the set does not (the cube reaches x + y + z = 192 at most). Carved plane
        // by plane the cube is cut in three that all stay; measured, it stays one.
        let piece = cube([0.0; 3], [64.0; 3]);
        let d = geom::normalize([-1.0, -1.0, -1.0]).unwrap();
        let mut planes = vec![
            Plane { normal: [-1.0, 0.0, 0.0], dist: -32.0 },
            Plane { normal: [0.0, -1.0, 0.0], dist: -32.0 },
            Plane { normal: d, dist: -200.0 / 3f64.sqrt() },
        ];
        for k in 0..3 {
            let mut n = [0.0; 3];
            n[k] = 1.0;
            planes.push(Plane { normal: n, dist: 96.0 });
        }
        let set = tree::from_planes(&planes.iter().map(|p| (*p, Origin::Plane, None)).collect::<Vec<_>>());
        let grid = Grid::new(vec![Convex { planes, bounds: tree::bounds(&set) }]);
        assert!(overlap(&tree::bounds(&piece), &tree::bounds(&set)));
        let (mut w1, mut w2) = (0, 0);
        let carved = grid.subtract_measured(vec![piece.clone()], &mut w1, u64::MAX, Apart::Carve).unwrap();
        let whole = grid.subtract_measured(vec![piece.clone()], &mut w2, u64::MAX, Apart::Whole).unwrap();
        assert_eq!((carved.len(), whole.len()), (3, 1));
        let total = |v: &[(Vec<Face>, f64)]| v.iter().map(|p| p.1).sum::<f64>();
        assert!((total(&carved) - 64f64.powi(3)).abs() < 1e-9 * 64f64.powi(3));
        assert!((total(&whole) - 64f64.powi(3)).abs() < 1e-9 * 64f64.powi(3));
        // The test is counted as work (one unit per face of the piece), the cuts it saves are not.
        assert_eq!(w2, piece.len() as u64);
        assert!(w1 > w2);
        // A set the cube does meet is carved the same either way.
        let meets = Grid::new(vec![Convex {
            planes: cube([32.0; 3], [96.0; 3]).iter().map(|f| f.plane).collect(),
            bounds: ([32.0; 3], [96.0; 3]),
        }]);
        let a = meets.subtract_measured(vec![piece.clone()], &mut 0, u64::MAX, Apart::Carve).unwrap();
        let b = meets.subtract_measured(vec![piece], &mut 0, u64::MAX, Apart::Whole).unwrap();
        assert_eq!(a.len(), b.len());
        assert!(a.iter().zip(&b).all(|(x, y)| x.1.to_bits() == y.1.to_bits()));
    }

    /// A part that a later set holds whole is dropped before it is cut: the parts left are
    /// bit for bit those of carving set by set (`carve` alone, the subtraction before the
    /// containment test), in the same order, with less work. Random boxes less random sets
    /// (boxes, some with a slanted face), many of them holding the parts the first set leaves.
    #[test]
    fn parts_a_later_set_holds_are_dropped_uncut() {
        let mut next = geom::xorshift(0x2545_f491_4f6c_dd1d);
        let mut rnd = move || (next() >> 11) as f64 / (1u64 << 53) as f64;
        let bits = |v: &[(Vec<Face>, f64)]| {
            v.iter()
                .map(|(f, vol)| (vol.to_bits(), f.iter().flat_map(|f| f.winding.iter().flatten().map(|c| c.to_bits())).collect::<Vec<_>>()))
                .collect::<Vec<_>>()
        };
        let (mut dropped, mut trials) = (0, 0);
        for _ in 0..400 {
            let piece = cube([0.0; 3], [64.0; 3]);
            let mut sets = Vec::new();
            for _ in 0..2 + (rnd() * 4.0) as usize {
                // Often wider than the piece: such a set holds what others leave of it.
                let lo: [f64; 3] = std::array::from_fn(|_| rnd() * 112.0 - 80.0);
                let hi = lo.map(|c| c + 32.0 + rnd() * 112.0);
                let mut planes: Vec<Plane> = cube(lo, hi).iter().map(|f| f.plane).collect();
                if rnd() < 0.3 {
                    let n = geom::normalize([rnd() - 0.5, rnd() - 0.5, rnd() - 0.5]).unwrap();
                    let mid: [f64; 3] = std::array::from_fn(|k| (lo[k] + hi[k]) / 2.0);
                    planes.push(Plane { normal: n, dist: geom::dot(n, mid) + 10.0 });
                }
                let faces = tree::from_planes(&planes.iter().map(|p| (*p, Origin::Plane, None)).collect::<Vec<_>>());
                if faces.len() < 4 {
                    continue;
                }
                sets.push(Convex { planes, bounds: tree::bounds(&faces) });
            }
            // Set by set, as before the test.
            let mut w_before = 0;
            let mut cur = vec![(piece.clone(), tree::bounds(&piece), None)];
            for s in &sets {
                let mut out = Vec::new();
                for (q, qb, qv) in cur {
                    carve(q, qb, qv, (&s.planes, &s.bounds), &mut out, &mut w_before);
                }
                cur = out;
            }
            let before: Vec<(Vec<Face>, f64)> = cur
                .into_iter()
                .map(|(q, _, v)| {
                    let v = v.unwrap_or_else(|| tree::volume(&q));
                    (q, v)
                })
                .collect();
            let mut w_after = 0;
            let after = Grid::new(sets).subtract_measured(vec![piece], &mut w_after, u64::MAX, Apart::Carve).unwrap();
            assert_eq!(bits(&before), bits(&after));
            trials += 1;
            dropped += usize::from(w_after < w_before);
        }
        assert!(trials > 300 && dropped > 20, "{trials} {dropped}");
    }

    #[test]
    fn a_clip_box_in_a_room_comes_back() {
        // Hull 0: walls 8 thick around a 256³ room; hull 1: the walls grown, and a clip box
        // 64×64×64 standing in the room, grown.
        // The box Quake grows brushes by: the player box (−16 −16 −24, 16 16 32) mirrored.
        let b = HullBox { mins: [-16.0, -16.0, -32.0], maxs: [16.0, 16.0, 24.0] };
        let start0 = cube([-136.0; 3], [136.0; 3]);
        let start1_lo = [-152.0, -152.0, -168.0];
        let start1_hi = [152.0, 152.0, 160.0];
        let walls = |lo: [f64; 3], hi: [f64; 3], olo: [f64; 3], ohi: [f64; 3]| -> Vec<Region> {
            // The shell between the outer box and the inner box, as six slabs.
            let mut v = Vec::new();
            for k in 0..3 {
                for side in 0..2 {
                    let mut a = olo;
                    let mut z = ohi;
                    if side == 0 {
                        z[k] = lo[k];
                    } else {
                        a[k] = hi[k];
                    }
                    a[..k].copy_from_slice(&lo[..k]);
                    z[..k].copy_from_slice(&hi[..k]);
                    v.push(Region { faces: cube(a, z), contents: -2 });
                }
            }
            v
        };
        let solid0 = walls([-128.0; 3], [128.0; 3], [-136.0; 3], [136.0; 3]);
        let inner1 = ([-112.0, -112.0, -104.0], [112.0, 112.0, 96.0]);
        let mut solid1 = walls(inner1.0, inner1.1, start1_lo, start1_hi);
        // The clip box (−32..32, −32..32, −128..−64) grown: (−48..48, −48..48, −160..−40) cut to
        // the room's hull-1 space: z from −104.
        let clip1 = ([-48.0, -48.0, -104.0], [48.0, 48.0, -40.0]);
        solid1.push(Region { faces: cube(clip1.0, clip1.1), contents: -2 });
        // Empty: the room less the clip box, as boxes (around it and above it).
        let mut empty1 = Vec::new();
        let (lo, hi) = inner1;
        for (a, z) in [
            ([lo[0], lo[1], lo[2]], [clip1.0[0], hi[1], clip1.1[2]]),
            ([clip1.1[0], lo[1], lo[2]], [hi[0], hi[1], clip1.1[2]]),
            ([clip1.0[0], lo[1], lo[2]], [clip1.1[0], clip1.0[1], clip1.1[2]]),
            ([clip1.0[0], clip1.1[1], lo[2]], [clip1.1[0], hi[1], clip1.1[2]]),
            ([lo[0], lo[1], clip1.1[2]], hi),
        ] {
            empty1.push(Region { faces: cube(a, z), contents: -1 });
        }
        let mut grown = GrowthCache::default();
        grown.cover(solid0.len());
        let r = recover(&solid1, &empty1, &solid0, &grown, &start0, &b, &[], -2, 10_000_000, true);
        assert!(!r.stopped);
        assert_eq!(r.brushes.len(), 1, "{:?}", r.brushes.iter().map(|b| tree::bounds(&b.faces)).collect::<Vec<_>>());
        let (lo, hi) = tree::bounds(&r.brushes[0].faces);
        for k in 0..3 {
            assert!((lo[k] - [-32.0, -32.0, -128.0][k]).abs() < 1e-6 && (hi[k] - [32.0, 32.0, -64.0][k]).abs() < 1e-6, "{lo:?} {hi:?}");
        }
        assert!(r.covered_without < r.hull_volume - 1000.0);
        assert!((r.covered_with - r.hull_volume).abs() < 1e-3 * r.hull_volume, "{r:?}");
    }
}
