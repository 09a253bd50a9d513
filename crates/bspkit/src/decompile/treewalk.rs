//! What a family without a brush lump gives the tree rebuild ([`super::tree`]): node planes
//! with their two children, and leaf contents. [`walk`] turns a model's tree into the convex
//! regions of the leaves it keeps; [`contents_at`] finds the leaf under a point.
//!
//! Genesis3D feeds it ([`super::genesis3d`]); Quake 1 / GoldSrc keep their own walk in
//! [`super::quake1`], which reads the records of each of their layouts in place.

use super::geom::Plane;
use super::original::Budget;
use super::tree::{self, Face, Region};
use crate::error::Result;

/// A node's child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Child {
    Node(usize),
    Leaf(usize),
}

/// A family's BSP tree in the rebuild's coordinates.
pub(crate) trait TreeSource {
    /// Node `n`'s plane (normal of unit length) and its children, front (the plane's normal
    /// side) first; an error names the record that is out of range or not a plane.
    fn node(&self, n: usize) -> Result<(Plane, [Child; 2])>;
    /// Leaf `l`'s contents.
    fn leaf_contents(&self, l: usize) -> Result<i32>;
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

/// The convex regions of the leaves under `head` whose contents `keep` accepts, each the part
/// of `start` on its side of every node plane on its path.
pub(crate) fn walk(
    src: &impl TreeSource,
    head: Child,
    start: Vec<Face>,
    keep: impl Fn(i32) -> bool,
    budget: &mut Budget,
) -> Result<Walked> {
    let mut out = Walked { regions: Vec::new(), volume: 0.0, slivers: 0 };
    let mut stack = vec![(head, start, 0usize)];
    while let Some((child, faces, depth)) = stack.pop() {
        budget.spend(1 + faces.len() as u64)?;
        match child {
            Child::Leaf(l) => {
                let c = src.leaf_contents(l)?;
                if !keep(c) {
                    continue;
                }
                let vol = tree::volume(&faces);
                out.volume += vol;
                if vol < tree::MIN_VOLUME {
                    out.slivers += 1;
                    continue;
                }
                out.regions.push(Region { faces, contents: c });
            }
            Child::Node(n) => {
                if depth >= MAX_DEPTH {
                    return Err(crate::error::Error::malformed(format!("node {n}: the tree is deeper than {MAX_DEPTH} nodes (a cycle?)")));
                }
                let (plane, children) = src.node(n)?;
                let mut work = 0;
                let (back, front) = tree::split(faces, &plane, &mut work);
                budget.spend(work)?;
                if let Some(f) = back {
                    stack.push((children[1], f, depth + 1));
                }
                if let Some(f) = front {
                    stack.push((children[0], f, depth + 1));
                }
            }
        }
    }
    Ok(out)
}

/// The contents of the leaf at `p` under `head` (`None` where the walk fails); adds the nodes
/// visited to `steps`.
pub(crate) fn contents_at(src: &impl TreeSource, head: Child, p: [f64; 3], steps: &mut u64) -> Option<i32> {
    let mut c = head;
    for _ in 0..MAX_DEPTH {
        *steps += 1;
        match c {
            Child::Leaf(l) => return src.leaf_contents(l).ok(),
            Child::Node(n) => {
                let (plane, children) = src.node(n).ok()?;
                c = children[usize::from(plane.distance(p) < 0.0)];
            }
        }
    }
    None
}
