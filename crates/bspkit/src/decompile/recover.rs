//! Brush sides a brush lump does not hold, recovered from the BSP tree.
//!
//! Dota 2's brush-side lump names plane 0 (with only a texinfo) for some sides, so the brushes
//! do not close. The tree still holds them: a brush's leaves (the leaves whose brush list names
//! it) are convex regions bounded by node planes and the model's bounds, walked as in
//! [`super::tree`]. A solid leaf holds every brush that overlaps it, so each region is cut down
//! to the sides the lump does hold; the union of the cut regions is then the brush. A plane that
//! bounds every corner of every cut region and carries one of their faces (a node plane, or the
//! model's bounds, which vbsp sets to its brushes' extent) is a side of the union's hull. The
//! planes are taken only when proven: the brush the held and recovered sides bound has the cut
//! regions' summed volume (so the union is that convex brush, not more, not less). Otherwise
//! nothing is invented and the brush stays open.

use super::geom::{Plane, ON_EPSILON};
use super::tree::{self, Face, Origin};

/// How far (units) a corner may stand in front of a plane and still count as behind it: vbsp
/// stores vertices and planes as floats; leaf corners are recomputed from node planes.
const CORNER_EPS: f64 = 0.05;
/// Most regions and distinct face planes one brush's proof looks at (a hostile tree could
/// otherwise make it quadratic); past them the brush stays open.
const MAX_REGIONS: usize = 4096;
const MAX_PLANES: usize = 1024;
/// Relative volume difference allowed between the regions' union and the closed brush.
const VOLUME_TOLERANCE: f64 = 1e-3;

/// The convex leaf regions of the brushes in `wanted`, per brush, walking each model's tree
/// from its head node (`heads`: head node and the model's bounds). `node(n)` gives a node's
/// plane and children, `leaf(l)` its leaf-brush range, `leaf_brush(i)` an entry of that list.
/// Costs at most `limit` work units; past it the regions found so far are returned (a brush
/// whose leaves were not all reached fails the volume proof and stays open).
pub(crate) fn brush_regions(
    heads: &[(i64, [f64; 3], [f64; 3])],
    node: impl Fn(usize) -> Option<(Plane, [i64; 2])>,
    leaf: impl Fn(usize) -> Option<(i64, i64)>,
    leaf_brush: impl Fn(usize) -> Option<i64>,
    wanted: &[bool],
    limit: u64,
) -> Vec<Vec<Vec<Face>>> {
    let mut out: Vec<Vec<Vec<Face>>> = vec![Vec::new(); wanted.len()];
    let mut work = 0u64;
    for &(head, mins, maxs) in heads {
        let start = tree::box_faces(mins, maxs, Origin::Bound);
        let mut stack = vec![(head, start, 0usize)];
        while let Some((n, region, depth)) = stack.pop() {
            work += 1;
            if work > limit || depth > 4096 {
                return out;
            }
            if n < 0 {
                let Some((first, count)) = usize::try_from(-(n + 1)).ok().and_then(&leaf) else { continue };
                for i in first.max(0)..first.max(0).saturating_add(count.max(0)).min(first.max(0) + 65_536) {
                    work += 1;
                    let Some(b) = usize::try_from(i).ok().and_then(&leaf_brush) else { break };
                    if let Some(slot) = usize::try_from(b).ok().filter(|&b| wanted.get(b) == Some(&true)).and_then(|b| out.get_mut(b)) {
                        slot.push(region.clone());
                    }
                }
                continue;
            }
            let Some((plane, [front, back])) = usize::try_from(n).ok().and_then(&node) else { continue };
            let (behind, ahead) = tree::split(region, &plane, &mut work);
            if let Some(r) = ahead {
                stack.push((front, r, depth + 1));
            }
            if let Some(r) = behind {
                stack.push((back, r, depth + 1));
            }
        }
    }
    out
}

/// Do `planes` (outward) bound a closed brush? (Sides reaching 200,000 units run to the
/// clipping square's edge, as the Source decompile's own check.)
pub(crate) fn closes(planes: &[Plane]) -> bool {
    let all: Vec<(Plane, Origin, Option<u32>)> = planes.iter().map(|p| (*p, Origin::Plane, None)).collect();
    let hull = tree::from_planes(&all);
    hull.len() >= 4 && hull.iter().flat_map(|f| f.winding.iter()).flatten().all(|c| c.abs() < 200_000.0)
}

/// The planes (outward) bounding the union of `regions` that are not among `known`, when the
/// union is proven to be the convex brush `known` + those planes bound; `None` otherwise.
pub(crate) fn missing_planes(known: &[Plane], regions: &[Vec<Face>]) -> Option<Vec<Plane>> {
    if regions.len() > MAX_REGIONS || known.len() > MAX_PLANES {
        return None;
    }
    // A solid leaf holds every brush that overlaps it (vbsp does not split solid space between
    // brushes), so each region is first cut down to the sides the lump does hold.
    let mut work = 0u64;
    let regions: Vec<Vec<Face>> = regions
        .iter()
        .filter_map(|r| known.iter().try_fold(r.clone(), |r, p| tree::split(r, p, &mut work).0))
        .filter(|r| tree::volume(r) > tree::MIN_VOLUME)
        .collect();
    if regions.is_empty() {
        return None;
    }
    let corners = || regions.iter().flatten().flat_map(|f| f.winding.iter());
    // Distinct face planes first (few: the regions share their node planes), then each is
    // checked against every corner once, so the cost is (planes × corners), not (faces × corners).
    let mut seen: Vec<Plane> = Vec::new();
    for f in regions.iter().flatten() {
        if !known.iter().chain(&seen).any(|p| p.same_as(&f.plane, 1e-4, ON_EPSILON)) {
            seen.push(f.plane);
            if seen.len() > MAX_PLANES {
                return None;
            }
        }
    }
    let found: Vec<Plane> = seen.into_iter().filter(|p| corners().all(|c| p.distance(*c) <= CORNER_EPS)).collect();
    if found.is_empty() {
        return None;
    }
    let all: Vec<(Plane, Origin, Option<u32>)> =
        known.iter().chain(&found).enumerate().map(|(i, p)| (*p, Origin::Plane, Some(i as u32))).collect();
    let hull = tree::from_planes(&all);
    let closed = hull.len() >= 4 && hull.iter().flat_map(|f| f.winding.iter()).flatten().all(|c| c.abs() < 200_000.0);
    if !closed {
        return None;
    }
    // Keep only the recovered planes that bound the hull (a plane touching it along an edge
    // carries no side).
    let bounding: Vec<Plane> =
        found.iter().enumerate().filter(|(i, _)| hull.iter().any(|f| f.tex == Some((known.len() + i) as u32))).map(|(_, p)| *p).collect();
    let whole = tree::volume(&hull);
    let parts: f64 = regions.iter().map(|r| tree::volume(r)).sum();
    ((whole - parts).abs() <= VOLUME_TOLERANCE * whole.max(1e-9) && !bounding.is_empty()).then_some(bounding)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(mins: [f64; 3], maxs: [f64; 3]) -> Vec<Face> {
        tree::box_faces(mins, maxs, Origin::Plane)
    }
    fn axis(k: usize, sign: f64, dist: f64) -> Plane {
        let mut n = [0.0; 3];
        n[k] = sign;
        Plane { normal: n, dist }
    }

    #[test]
    fn the_missing_sides_of_a_box_split_in_two_leaves_are_found() {
        // The box 0..64 × 0..32 × 0..16 as two leaves split at x = 32; the lump holds all but +x and −z.
        let regions = vec![boxed([0.0, 0.0, 0.0], [32.0, 32.0, 16.0]), boxed([32.0, 0.0, 0.0], [64.0, 32.0, 16.0])];
        let known = [axis(0, -1.0, 0.0), axis(1, 1.0, 32.0), axis(1, -1.0, 0.0), axis(2, 1.0, 16.0)];
        let mut got = missing_planes(&known, &regions).expect("recovered");
        got.sort_by(|a, b| a.normal.partial_cmp(&b.normal).unwrap());
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().any(|p| p.same_as(&axis(0, 1.0, 64.0), 1e-9, 1e-9)), "{got:?}");
        assert!(got.iter().any(|p| p.same_as(&axis(2, -1.0, 0.0), 1e-9, 1e-9)), "{got:?}");
    }

    #[test]
    fn leaves_that_do_not_fill_a_convex_brush_give_nothing() {
        // An L of two leaves: its hull is larger than the leaves, so no plane set is proven.
        let regions = vec![boxed([0.0, 0.0, 0.0], [64.0, 32.0, 16.0]), boxed([0.0, 32.0, 0.0], [32.0, 64.0, 16.0])];
        let known = [axis(0, -1.0, 0.0), axis(1, -1.0, 0.0), axis(2, 1.0, 16.0), axis(2, -1.0, 0.0)];
        assert!(missing_planes(&known, &regions).is_none());
        assert!(missing_planes(&known, &[]).is_none());
    }
}
