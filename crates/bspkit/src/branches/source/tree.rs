//! The Source family's node tree as [`TreeParts`] ([`crate::branches::ops::FamilyOps::node_tree`])
//! and its leaves' visibility for the viewer
//! ([`crate::branches::ops::FamilyOps::leaf_visibility`]).

use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::visibility::LeafVisibility;
use crate::tree::node_tree::{signed_child, TreeNode, TreeParts};

/// The node tree of a Source map, in either byte order.
pub fn parts(bsp: &Bsp) -> Result<TreeParts> {
    match bsp.endian() {
        crate::bytes::Endian::Little => source_parts::<zerocopy::LittleEndian>(bsp),
        crate::bytes::Endian::Big => source_parts::<zerocopy::BigEndian>(bsp),
    }
}

fn source_parts<O: zerocopy::ByteOrder>(bsp: &Bsp) -> Result<TreeParts> {
    use crate::branches::source;
    let v = source::View::<O>::new(bsp)?;
    let nodes = v.nodes()?.iter().map(|n| TreeNode { plane: n.planenum, children: n.children.map(signed_child) }).collect();
    let planes = v.planes()?.iter().map(|p| ([p.normal[0].get(), p.normal[1].get(), p.normal[2].get()], p.dist.get())).collect();
    // Every Source model roots its own tree at `headnode` (source.md, dmodel_t).
    let heads = v.models()?.iter().map(|m| Some(signed_child(m.headnode.get() as i64))).collect();
    Ok(TreeParts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump: source::LUMP_NODES })
}

/// The leaves and visibility rows of a Source map for the viewer
/// ([`crate::branches::ops::FamilyOps::leaf_visibility`]), in either byte order.
pub fn leaf_visibility<'a>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    match bsp.endian() {
        crate::bytes::Endian::Little => vis::<zerocopy::LittleEndian>(bsp),
        crate::bytes::Endian::Big => vis::<zerocopy::BigEndian>(bsp),
    }
}

fn vis<'a, O: zerocopy::ByteOrder>(bsp: &'a Bsp<'a>) -> Result<LeafVisibility<'a>> {
    let v = crate::branches::source::View::<O>::new(bsp)?;
    let leaves = v.leaves()?;
    let list = v.leaf_faces()?;
    Ok(LeafVisibility::of_clusters(
        v.faces_lump() as u16,
        leaves.iter().map(|l| (l.cluster, (l.firstleafface, l.numleaffaces))),
        |k| list.get(k).map(i64::from),
        &v.visibility()?,
    ))
}
