//! The Quake 3 family's node tree as [`TreeParts`] ([`crate::branches::ops::FamilyOps::node_tree`])
//! and its leaves' visibility for the viewer
//! ([`crate::branches::ops::FamilyOps::leaf_visibility`]).

use crate::branches::quake3;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::visibility::LeafVisibility;
use crate::tree::node_tree::{signed_child, TreeChild, TreeNode, TreeParts};

/// The node tree of a Quake 3 family map, in the branch's record set.
pub fn parts(bsp: &Bsp) -> Result<TreeParts> {
    quake3::lumps::with_record_set!(bsp.branch(), quake3_parts_with(bsp))
}

fn quake3_parts_with<L: quake3::Layout>(bsp: &Bsp) -> Result<TreeParts> {
    // Nodes, planes and models have one layout in every Quake 3 branch; their slots differ
    // in Ritual's (found by name).
    let v = quake3::View::<L>::new(bsp)?;
    let nodes: Vec<TreeNode> = v
        .nodes()?
        .iter()
        .map(|n| TreeNode {
            plane: n.plane.get() as i64,
            children: [signed_child(n.children[0].get() as i64), signed_child(n.children[1].get() as i64)],
        })
        .collect();
    let planes = v.planes()?.iter().map(|p| ([p.normal[0].get(), p.normal[1].get(), p.normal[2].get()], p.dist.get())).collect();
    // Only the world model has a tree: node 0, or leaf 0 when the map has no nodes.
    let world = if nodes.is_empty() { TreeChild::Leaf(0) } else { TreeChild::Node(0) };
    let heads = (0..v.models()?.len()).map(|i| (i == 0).then_some(world)).collect();
    Ok(TreeParts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump: v.slots().nodes })
}

/// The leaves and visibility rows of a Quake 3 family map for the viewer
/// ([`crate::branches::ops::FamilyOps::leaf_visibility`]), in the branch's record set.
pub fn leaf_visibility<'a>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    quake3::lumps::with_record_set!(bsp.branch(), vis(bsp))
}

fn vis<'a, L: crate::branches::quake3::Layout>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    use crate::branches::quake3::records::LeafRecord;
    let v = crate::branches::quake3::View::<L>::new(bsp)?;
    let leaves = v.leaves()?;
    let list = v.leaf_surfaces()?;
    // The lump's two counts are left out of the rows' `data`.
    Ok(LeafVisibility::of_plain_rows(
        v.slots().surfaces as u16,
        leaves.iter().map(|l| (l.cluster(), l.leaf_surfaces())),
        |k| list.get(k).map(|f| f.get() as i64),
        &v.visibility()?,
    ))
}
