//! The Quake 2 family's node tree as [`TreeParts`] ([`crate::branches::ops::FamilyOps::node_tree`])
//! and its leaves' visibility for the viewer
//! ([`crate::branches::ops::FamilyOps::leaf_visibility`]).

use crate::branches::quake2;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::visibility::LeafVisibility;
use crate::tree::node_tree::{signed_child, TreeNode, TreeParts};

/// The node tree of a Quake 2 family map, in the branch's record set.
pub fn parts(bsp: &Bsp) -> Result<TreeParts> {
    match bsp.branch().id {
        "qbism" => quake2_parts::<quake2::Qbism>(bsp),
        "sin" => quake2_parts::<quake2::Sin>(bsp),
        "sof" => quake2_parts::<quake2::Sof>(bsp),
        "daikatana" => quake2_parts::<quake2::Daikatana>(bsp),
        _ => quake2_parts::<quake2::Ibsp>(bsp),
    }
}

fn quake2_parts<L: quake2::Layout>(bsp: &Bsp) -> Result<TreeParts> {
    use quake2::NodeRecord;
    let v = quake2::View::<L>::new(bsp)?;
    let nodes = v
        .nodes()?
        .iter()
        .map(|n| {
            let [a, b] = n.children();
            TreeNode { plane: n.plane(), children: [signed_child(a), signed_child(b)] }
        })
        .collect();
    let planes = v.planes()?.iter().map(|p| ([p.normal[0].get(), p.normal[1].get(), p.normal[2].get()], p.dist.get())).collect();
    let heads = v.models()?.iter().map(|m| Some(signed_child(m.head_node.get() as i64))).collect();
    Ok(TreeParts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump: quake2::LUMP_NODES })
}

/// The leaves and visibility rows of a Quake 2 family map for the viewer
/// ([`crate::branches::ops::FamilyOps::leaf_visibility`]), in the branch's record set.
pub fn leaf_visibility<'a>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    match bsp.branch().id {
        "qbism" => vis::<quake2::Qbism>(bsp),
        "sin" => vis::<quake2::Sin>(bsp),
        "sof" => vis::<quake2::Sof>(bsp),
        "daikatana" => vis::<quake2::Daikatana>(bsp),
        _ => vis::<quake2::Ibsp>(bsp),
    }
}

fn vis<'a, L: crate::branches::quake2::Layout>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    use crate::branches::quake2::records::{IndexRecord, LeafRecord};
    let v = crate::branches::quake2::View::<L>::new(bsp)?;
    let leaves = v.leaves()?;
    let list = v.leaf_faces()?;
    Ok(LeafVisibility::of_clusters(
        crate::branches::quake2::LUMP_FACES as u16,
        leaves.iter().map(|l| (l.cluster(), l.leaf_face_range())),
        |k| list.get(k).map(|f| f.value()),
        &v.visibility()?,
    ))
}
