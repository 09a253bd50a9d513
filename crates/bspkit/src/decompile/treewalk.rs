//! What a family without a brush lump gives the tree rebuild ([`super::tree`]): node planes
//! with their two children, and leaf contents. [`walk`] turns a model's tree into the convex
//! regions of the leaves it keeps, [`walk_hull`] a collision hull's into its solid and empty
//! regions; [`contents_at`] finds the leaf under a point.
//!
//! Genesis3D ([`super::genesis3d`]) and Quake 1 / Hexen II / BSP2 / GoldSrc ([`super::quake1`]:
//! hull 0 and the clip hulls, each layout's records read in place) feed it.

use super::geom::Plane;
use super::original::Budget;
use super::tree::{self, Face, Region};
use crate::error::{Error, Result};

/// A node's child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Child {
    Node(usize),
    Leaf(usize),
    /// A leaf kept as its contents value, with no record (Quake 1's clip hulls).
    Contents(i32),
}

/// A family's BSP tree in the rebuild's coordinates.
pub(crate) trait TreeSource {
    /// Node `n`'s plane (normal of unit length) and its children, front (the plane's normal
    /// side) first; an error names the record that is out of range or not a plane.
    fn node(&self, n: usize) -> Result<(Plane, [Child; 2])>;
    /// Leaf `l`'s contents.
    fn leaf_contents(&self, l: usize) -> Result<i32>;
    /// The error for a path deeper than [`MAX_DEPTH`] nodes, at node `n`.
    fn too_deep(&self, n: usize) -> Error {
        Error::malformed(format!("node {n}: the tree is deeper than {MAX_DEPTH} nodes (a cycle?)"))
    }
}

/// Deepest node path walked: real trees are a few hundred nodes deep; a garbled one with a
/// cycle stops here instead of growing the walk without end.
pub(crate) const MAX_DEPTH: usize = 4096;

/// What [`walk`] found: the regions of the kept leaves (slivers left out), their volume
/// (slivers included) and the number of slivers.
pub(crate) struct Walked {
    pub regions: Vec<Region>,
    pub volume: f64,
    pub slivers: usize,
}

/// The one walk: every leaf under `head` with the part of `start` on its side of every node
/// plane on its path, handed to `at_leaf` with the leaf's contents. `marked` keeps each side's
/// origin (a node plane or the start) through the splits; hulls whose regions' origins are
/// never read split without it.
fn descend(
    src: &impl TreeSource,
    head: Child,
    start: Vec<Face>,
    marked: bool,
    budget: &mut Budget,
    mut at_leaf: impl FnMut(i32, Vec<Face>),
) -> Result<()> {
    let mut stack = vec![(head, start, 0usize)];
    while let Some((child, faces, depth)) = stack.pop() {
        budget.spend(1 + faces.len() as u64)?;
        let contents = match child {
            Child::Leaf(l) => src.leaf_contents(l)?,
            Child::Contents(c) => c,
            Child::Node(n) => {
                if depth >= MAX_DEPTH {
                    return Err(src.too_deep(n));
                }
                let (plane, children) = src.node(n)?;
                let mut work = 0;
                let (back, front) =
                    if marked { tree::split(faces, &plane, &mut work) } else { tree::split_unmarked(faces, &plane, &mut work) };
                budget.spend(work)?;
                if let Some(f) = back {
                    stack.push((children[1], f, depth + 1));
                }
                if let Some(f) = front {
                    stack.push((children[0], f, depth + 1));
                }
                continue;
            }
        };
        at_leaf(contents, faces);
    }
    Ok(())
}

/// The convex regions of the leaves under `head` whose contents `keep` accepts, each the part
/// of `start` on its side of every node plane on its path.
pub(crate) fn walk(
    src: &impl TreeSource,
    head: Child,
    start: Vec<Face>,
    mut keep: impl FnMut(i32) -> bool,
    budget: &mut Budget,
) -> Result<Walked> {
    let mut out = Walked { regions: Vec::new(), volume: 0.0, slivers: 0 };
    descend(src, head, start, true, budget, |c, faces| {
        if !keep(c) {
            return;
        }
        let vol = tree::volume(&faces);
        out.volume += vol;
        if vol < tree::MIN_VOLUME {
            out.slivers += 1;
            return;
        }
        out.regions.push(Region { faces, contents: c });
    })?;
    Ok(out)
}

/// A collision hull's leaves under `head` inside `start`: the regions whose contents `solid`
/// accepts, and the others (slivers left out of both; sides' origins not kept).
pub(crate) fn walk_hull(
    src: &impl TreeSource,
    head: Child,
    start: Vec<Face>,
    solid: impl Fn(i32) -> bool,
    budget: &mut Budget,
) -> Result<(Vec<Region>, Vec<Region>)> {
    let (mut solids, mut empties) = (Vec::new(), Vec::new());
    descend(src, head, start, false, budget, |c, faces| {
        if tree::volume(&faces) < tree::MIN_VOLUME {
            return;
        }
        let r = Region { faces, contents: c };
        if solid(c) {
            solids.push(r);
        } else {
            empties.push(r);
        }
    })?;
    Ok((solids, empties))
}

/// The contents of the leaf at `p` under `head` (`None` where the walk fails); adds the nodes
/// visited to `steps`.
pub(crate) fn contents_at(src: &impl TreeSource, head: Child, p: [f64; 3], steps: &mut u64) -> Option<i32> {
    let mut c = head;
    for _ in 0..MAX_DEPTH {
        *steps += 1;
        match c {
            Child::Leaf(l) => return src.leaf_contents(l).ok(),
            Child::Contents(contents) => return Some(contents),
            Child::Node(n) => {
                let (plane, children) = src.node(n).ok()?;
                c = children[usize::from(plane.distance(p) < 0.0)];
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decompile::tree::Origin;

    /// Node 0 splits at x = 0: in front a contents child (solid, as a clip hull stores it),
    /// behind node 1, which splits at y = 0: leaf record 0 (solid) in front, empty behind.
    /// Node 2 is its own child (a cycle).
    struct Small;
    impl TreeSource for Small {
        fn node(&self, n: usize) -> Result<(Plane, [Child; 2])> {
            match n {
                0 => Ok((Plane { normal: [1.0, 0.0, 0.0], dist: 0.0 }, [Child::Contents(-2), Child::Node(1)])),
                1 => Ok((Plane { normal: [0.0, 1.0, 0.0], dist: 0.0 }, [Child::Leaf(0), Child::Contents(-1)])),
                2 => Ok((Plane { normal: [0.0, 0.0, 1.0], dist: 0.0 }, [Child::Node(2), Child::Node(2)])),
                _ => Err(Error::malformed(format!("node {n} is out of range"))),
            }
        }
        fn leaf_contents(&self, l: usize) -> Result<i32> {
            if l == 0 {
                Ok(-2)
            } else {
                Err(Error::malformed(format!("leaf {l} is out of range")))
            }
        }
        fn too_deep(&self, n: usize) -> Error {
            Error::malformed(format!("small tree too deep at {n}"))
        }
    }

    fn cube() -> Vec<Face> {
        tree::box_faces([-1.0; 3], [1.0; 3], Origin::Bound)
    }

    /// Leaves given by record and by contents value are both reached, by both walks and by the
    /// point lookup; the volumes split the cube (8) as the planes do.
    #[test]
    fn record_and_contents_leaves_are_walked() {
        let mut budget = Budget::new(1_000_000);
        let w = walk(&Small, Child::Node(0), cube(), |c| c == -2, &mut budget).unwrap();
        assert_eq!((w.regions.len(), w.slivers), (2, 0));
        assert!((w.volume - 6.0).abs() < 1e-9, "{}", w.volume);
        let (solid, empty) = walk_hull(&Small, Child::Node(0), cube(), |c| c == -2, &mut budget).unwrap();
        let vol = |rs: &[Region]| rs.iter().map(|r| tree::volume(&r.faces)).sum::<f64>();
        assert_eq!((solid.len(), empty.len()), (2, 1));
        assert!((vol(&solid) - 6.0).abs() < 1e-9 && (vol(&empty) - 2.0).abs() < 1e-9);
        assert!(empty.iter().all(|r| r.contents == -1));
        let mut steps = 0;
        assert_eq!(contents_at(&Small, Child::Node(0), [0.5, -0.5, 0.0], &mut steps), Some(-2));
        assert_eq!(contents_at(&Small, Child::Node(0), [-0.5, 0.5, 0.0], &mut steps), Some(-2));
        assert_eq!(contents_at(&Small, Child::Node(0), [-0.5, -0.5, 0.0], &mut steps), Some(-1));
        // One step per node or leaf visited: 2, 3 and 3.
        assert_eq!(steps, 8);
    }

    /// A cycle stops at the depth limit with the source's own error, for both walks.
    #[test]
    fn a_cycle_fails_with_the_sources_error() {
        let mut budget = Budget::new(u64::MAX / 2);
        let e = walk(&Small, Child::Node(2), cube(), |_| true, &mut budget).err().unwrap();
        assert!(e.to_string().contains("small tree too deep at 2"), "{e}");
        let e = walk_hull(&Small, Child::Node(2), cube(), |_| true, &mut budget).err().unwrap();
        assert!(e.to_string().contains("small tree too deep at 2"), "{e}");
    }
}
