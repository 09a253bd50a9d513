//! The Genesis3D node tree as [`TreeParts`] ([`crate::branches::ops::FamilyOps::node_tree`]).

use crate::branches::genesis3d;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::tree::node_tree::{signed_child, TreeNode, TreeParts};

/// The node tree of a Genesis3D level.
pub fn parts(bsp: &Bsp) -> Result<TreeParts> {
    let v = genesis3d::view::View::new(bsp)?;
    // Children as in Quake 2: negative = leaf `-(child + 1)` (engine `Plane.cpp`).
    let nodes = v
        .nodes()?
        .iter()
        .map(|n| TreeNode { plane: n.plane.get() as i64, children: n.children.map(|c| signed_child(c.get() as i64)) })
        .collect();
    let planes = v.planes()?.iter().map(|p| (p.normal.map(|c| c.get()), p.dist.get())).collect();
    // Every model roots its own part of the node tree at `root_node[0]`.
    let heads = v.models()?.iter().map(|m| Some(signed_child(m.root_node[0].get() as i64))).collect();
    Ok(TreeParts { nodes, planes, num_leaves: v.leafs()?.len(), heads, nodes_lump: genesis3d::lumps::CHUNK_NODES })
}
