//! The Quake 1 family's node tree as [`TreeParts`] ([`crate::branches::ops::FamilyOps::node_tree`])
//! and its leaves' visibility for the viewer
//! ([`crate::branches::ops::FamilyOps::leaf_visibility`]): BSP29, BSP2, 2PSB and Hexen II nodes
//! (GoldSrc reads BSP29's).

use crate::branches::quake1;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::visibility::LeafVisibility;
use crate::tree::node_tree::{TreeChild, TreeNode, TreeParts};

/// The node tree of a Quake 1 family map (GoldSrc too), in the branch's record set.
pub fn parts(bsp: &Bsp) -> Result<TreeParts> {
    match bsp.branch().id {
        "hexen2" => quake1_parts::<quake1::Hexen2>(bsp),
        "bsp2" => quake1_parts::<quake1::Bsp2>(bsp),
        "2psb" => quake1_parts::<quake1::Rmq>(bsp),
        _ => quake1_parts::<quake1::Bsp29>(bsp),
    }
}

fn quake1_parts<L: quake1::Layout>(bsp: &Bsp) -> Result<TreeParts> {
    use quake1::{Child, ModelRecord, NodeRecord};
    let v = quake1::View::<L>::new(bsp);
    let raw = v.nodes()?;
    let nodes = raw
        .iter()
        .map(|n| {
            let child = |side| match n.child(side, raw.len()) {
                Child::Node(k) => TreeChild::Node(k),
                Child::Leaf(k) => TreeChild::Leaf(k),
            };
            TreeNode { plane: n.plane(), children: [child(0), child(1)] }
        })
        .collect();
    let planes = v.planes()?.iter().map(|p| ([p.normal[0].get(), p.normal[1].get(), p.normal[2].get()], p.dist.get())).collect();
    // Hull 0 of each model roots its node tree (quake_family.md B.16).
    let heads = v.models()?.iter().map(|m| m.head_nodes().first().map(|h| TreeChild::Node(h.get() as i64))).collect();
    let nodes_lump = bsp.branch().lump_index("NODES").unwrap_or(quake1::LUMP_NODES);
    Ok(TreeParts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump })
}

/// The leaves and visibility rows of a Quake 1 family map (GoldSrc too) for the viewer
/// ([`crate::branches::ops::FamilyOps::leaf_visibility`]), in the branch's record set.
pub fn leaf_visibility<'a>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    match bsp.branch().id {
        "hexen2" => vis::<quake1::Hexen2>(bsp),
        "bsp2" => vis::<quake1::Bsp2>(bsp),
        "2psb" => vis::<quake1::Rmq>(bsp),
        _ => vis::<quake1::Bsp29>(bsp),
    }
}

fn vis<'a, L: crate::branches::quake1::Layout>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    use crate::branches::quake1::{LeafRecord, MarkRecord, ModelRecord};
    let v = crate::branches::quake1::View::<L>::new(bsp);
    let leaves = v.leaves()?;
    let marks = v.marksurfaces()?;
    let clusters = v.models()?.first().map_or(0, |m| m.vis_leafs().max(0) as usize).min(leaves.len().saturating_sub(1));
    let offsets = (0..clusters).map(|c| leaves[c + 1].vis_ofs().max(-1)).collect();
    // Leaf 0 is the shared solid leaf; leaf i ≥ 1 is cluster i − 1.
    Ok(LeafVisibility::compressed(
        v.slots().faces as u16,
        leaves.iter().enumerate().map(|(i, l)| (i as i64 - 1, l.marks())),
        |k| marks.get(k).map(|m| m.face()),
        v.vis_row_bytes()?,
        offsets,
        v.visibility()?,
    ))
}
