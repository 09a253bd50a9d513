//! BSP node trees: point-in-leaf lookup and a structural walk, for the Quake 1 family (Quake,
//! Hexen II, BSP2, 2PSB, GoldSrc), Quake 2 (IBSP 38, Qbism), Quake 3 (IBSP 46/47, RBSP, FBSP)
//! Source (both byte orders) and Genesis3D.
//!
//! A map's node lump is untrusted: a child may point back at an ancestor (a cycle), at a node
//! that another parent already uses, or outside the lump. Nothing here recurses, and every loop
//! is bounded by the node count, which is bounded by the lump's length: [`NodeTree::point_leaf`]
//! takes at most one step per node, and [`NodeTree::walk`] / [`NodeTree::problems`] visit each
//! node at most once (one colour byte per node, an explicit stack of at most one entry per node).
//!
//! Each family reads its node, plane, leaf and model lumps into [`TreeParts`] in its own folder
//! ([`FamilyOps::node_tree`](crate::branches::ops::FamilyOps::node_tree)); [`node_tree`] holds
//! the shared code and names no family, so the family checks use it below this module.
//!
//! ```
//! # fn main() -> bspkit::Result<()> {
//! let bytes = bspkit::build::sample_quake1();
//! let bsp = bspkit::Bsp::from_bytes(&bytes)?;
//! let tree = bspkit::tree::NodeTree::of(&bsp)?;
//! let summary = tree.walk(0)?;
//! assert!(summary.nodes > 0);
//! let leaf = tree.point_leaf(0, [0.0, 0.0, 0.0])?;
//! assert!(leaf < tree.num_leaves);
//! # Ok(()) }
//! ```

pub mod node_tree;

pub use node_tree::{signed_child, NodeTree, TreeChild, TreeNode, TreeParts, WalkSummary};

use crate::branches::any;
use crate::bsp::Bsp;
use crate::check::problem::Problem;
use crate::error::Result;

impl<'a> NodeTree<'a> {
    /// Read the node tree of a Quake 1 / GoldSrc / Quake 2 / Quake 3 / Source / Genesis3D map
    /// (the family's [`FamilyOps::node_tree`](crate::branches::ops::FamilyOps::node_tree)).
    /// Other families give [`crate::error::ErrorKind::NoSuchLump`]. Lump errors (bad lengths)
    /// name the lump.
    pub fn of(bsp: &'a Bsp<'a>) -> Result<Self> {
        let parts = any::of(bsp.family()).node_tree(bsp)?;
        Ok(NodeTree::from_parts(bsp, parts))
    }
}

/// The [`Problem`]s of [`NodeTree::problems`] for a map, or nothing when its node tree cannot
/// be read (the lump checks report why).
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    node_tree::check_parts(bsp, any::of(bsp.family()).node_tree(bsp), problems)
}
