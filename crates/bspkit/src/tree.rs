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

use crate::branch::Family;
use crate::branches::{genesis3d, quake1, quake2, quake3};
use crate::bsp::Bsp;
use crate::check::problem::{Code, Problem};
use crate::error::{Error, ErrorKind, Result};

/// Where a node's child points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeChild {
    /// Another node (may be out of range in a damaged map).
    Node(i64),
    /// A leaf (may be out of range in a damaged map).
    Leaf(i64),
}

/// One node: its splitting plane and its front (0) and back (1) children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeNode {
    pub plane: i64,
    pub children: [TreeChild; 2],
}

/// What [`NodeTree::walk`] saw below one root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WalkSummary {
    /// Nodes reached.
    pub nodes: usize,
    /// Leaf references reached (a leaf shared by two parents counts twice).
    pub leaves: usize,
    /// The longest root-to-leaf path, in nodes.
    pub depth: usize,
}

/// A map's node tree in a family-independent form, borrowed from the map for error locations.
#[derive(Clone)]
pub struct NodeTree<'a> {
    bsp: &'a Bsp<'a>,
    pub nodes: Vec<TreeNode>,
    /// Plane normal and distance, by plane index.
    pub planes: Vec<([f32; 3], f32)>,
    pub num_leaves: usize,
    /// Each model's root: `Some(child)` where the model has a node tree of its own (Quake 3
    /// keeps one tree, rooted at node 0, for the world model only).
    pub heads: Vec<Option<TreeChild>>,
    nodes_lump: usize,
    node_size: usize,
}

/// Node, leaf and model lump contents of one family, gathered before the shared code runs.
struct Parts {
    nodes: Vec<TreeNode>,
    planes: Vec<([f32; 3], f32)>,
    num_leaves: usize,
    heads: Vec<Option<TreeChild>>,
    nodes_lump: usize,
}

/// Quake 2 / Quake 3 / Source child encoding: negative = leaf `-(child + 1)` (quake_family.md).
fn signed_child(c: i64) -> TreeChild {
    if c >= 0 {
        TreeChild::Node(c)
    } else {
        TreeChild::Leaf(-(c + 1))
    }
}

fn quake1_parts<L: quake1::Layout>(bsp: &Bsp) -> Result<Parts> {
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
    Ok(Parts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump })
}

fn quake2_parts<L: quake2::Layout>(bsp: &Bsp) -> Result<Parts> {
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
    Ok(Parts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump: quake2::LUMP_NODES })
}

fn quake3_parts(bsp: &Bsp) -> Result<Parts> {
    quake3::lumps::with_record_set!(bsp.branch(), quake3_parts_with(bsp))
}

fn quake3_parts_with<L: quake3::Layout>(bsp: &Bsp) -> Result<Parts> {
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
    Ok(Parts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump: v.slots().nodes })
}

fn source_parts<O: zerocopy::ByteOrder>(bsp: &Bsp) -> Result<Parts> {
    use crate::branches::source;
    let v = source::View::<O>::new(bsp)?;
    let nodes = v.nodes()?.iter().map(|n| TreeNode { plane: n.planenum, children: n.children.map(signed_child) }).collect();
    let planes = v.planes()?.iter().map(|p| ([p.normal[0].get(), p.normal[1].get(), p.normal[2].get()], p.dist.get())).collect();
    // Every Source model roots its own tree at `headnode` (source.md, dmodel_t).
    let heads = v.models()?.iter().map(|m| Some(signed_child(m.headnode.get() as i64))).collect();
    Ok(Parts { nodes, planes, num_leaves: v.leaves()?.len(), heads, nodes_lump: source::LUMP_NODES })
}

fn genesis3d_parts(bsp: &Bsp) -> Result<Parts> {
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
    Ok(Parts { nodes, planes, num_leaves: v.leafs()?.len(), heads, nodes_lump: genesis3d::lumps::CHUNK_NODES })
}

impl<'a> NodeTree<'a> {
    /// Read the node tree of a Quake 1 / GoldSrc / Quake 2 / Quake 3 / Source / Genesis3D map. Other families
    /// give [`ErrorKind::NoSuchLump`]. Lump errors (bad lengths) name the lump.
    pub fn of(bsp: &'a Bsp<'a>) -> Result<Self> {
        let parts = match bsp.family() {
            Family::Quake | Family::GoldSrc => match bsp.branch().id {
                "hexen2" => quake1_parts::<quake1::Hexen2>(bsp),
                "bsp2" => quake1_parts::<quake1::Bsp2>(bsp),
                "2psb" => quake1_parts::<quake1::Rmq>(bsp),
                _ => quake1_parts::<quake1::Bsp29>(bsp),
            },
            Family::Quake2 => match bsp.branch().id {
                "qbism" => quake2_parts::<quake2::Qbism>(bsp),
                "sin" => quake2_parts::<quake2::Sin>(bsp),
                "sof" => quake2_parts::<quake2::Sof>(bsp),
                "daikatana" => quake2_parts::<quake2::Daikatana>(bsp),
                _ => quake2_parts::<quake2::Ibsp>(bsp),
            },
            Family::Quake3 => quake3_parts(bsp),
            Family::Genesis3D => genesis3d_parts(bsp),
            Family::Source => match bsp.endian() {
                crate::bytes::Endian::Little => source_parts::<zerocopy::LittleEndian>(bsp),
                crate::bytes::Endian::Big => source_parts::<zerocopy::BigEndian>(bsp),
            },
            f => Err(Error::new(ErrorKind::NoSuchLump(format!("node tree: not supported for the {} family", f.as_str())))),
        }?;
        let node_size = bsp.record_size(parts.nodes_lump).unwrap_or(1).max(1);
        Ok(NodeTree {
            bsp,
            nodes: parts.nodes,
            planes: parts.planes,
            num_leaves: parts.num_leaves,
            heads: parts.heads,
            nodes_lump: parts.nodes_lump,
            node_size,
        })
    }

    /// The lump name as problems print it, e.g. `5 (NODES)`.
    fn label(&self) -> String {
        let name = self.bsp.branch().lumps.get(self.nodes_lump).map(|d| d.name).unwrap_or("NODES");
        format!("{} ({name})", self.nodes_lump)
    }

    /// An error about node `node`, located at that record (file, lump, file offset).
    fn node_error(&self, node: i64, msg: String) -> Error {
        let base = self.bsp.entry(self.nodes_lump).map(|e| e.offset).unwrap_or(0);
        let at = base.saturating_add((node.max(0) as u64).saturating_mul(self.node_size as u64));
        self.bsp.lump_error(self.nodes_lump, Error::malformed(msg).at(at))
    }

    /// The root of model `model`'s tree.
    pub fn head(&self, model: usize) -> Result<TreeChild> {
        match self.heads.get(model) {
            Some(Some(h)) => Ok(*h),
            Some(None) => Err(Error::new(ErrorKind::NoSuchLump(format!("model {model} has no node tree of its own")))),
            None => Err(Error::new(ErrorKind::NoSuchLump(format!("model {model} (the map has {})", self.heads.len())))),
        }
    }

    /// The leaf containing `point` in model `model`'s tree: from the model's root, go to the
    /// front child when `dot(normal, point) - dist >= 0`, else to the back child, until a leaf.
    /// A path longer than the node count must repeat a node, so it is reported as a cycle.
    pub fn point_leaf(&self, model: usize, point: [f32; 3]) -> Result<usize> {
        let mut cur = self.head(model)?;
        let mut from = -1i64;
        for _ in 0..=self.nodes.len() {
            let n = match cur {
                TreeChild::Leaf(l) => {
                    return usize::try_from(l).ok().filter(|&l| l < self.num_leaves).ok_or_else(|| {
                        self.node_error(from, format!("{} leads to leaf {l}, outside LEAVES (count {})", who(from), self.num_leaves))
                    });
                }
                TreeChild::Node(n) => n,
            };
            let node = usize::try_from(n).ok().and_then(|i| self.nodes.get(i)).ok_or_else(|| {
                self.node_error(from, format!("{} leads to node {n}, outside NODES (count {})", who(from), self.nodes.len()))
            })?;
            let (normal, dist) = usize::try_from(node.plane).ok().and_then(|p| self.planes.get(p)).ok_or_else(|| {
                self.node_error(n, format!("node {n} plane {} is outside PLANES (count {})", node.plane, self.planes.len()))
            })?;
            let d = normal[0] * point[0] + normal[1] * point[1] + normal[2] * point[2] - dist;
            from = n;
            cur = node.children[usize::from(d < 0.0)];
        }
        Err(self.node_error(from, format!("node tree of model {model} has a cycle (a path longer than its {} nodes)", self.nodes.len())))
    }

    /// Walk the tree below `model`'s root, visiting each node once. The first cycle, node
    /// reached twice, or child outside NODES/LEAVES is an error naming the node.
    pub fn walk(&self, model: usize) -> Result<WalkSummary> {
        let mut colour = vec![WHITE; self.nodes.len()];
        let mut summary = WalkSummary::default();
        let mut first = None;
        self.dfs(self.head(model)?, &mut colour, &mut summary, &mut |node, kind| {
            first.get_or_insert((node, kind));
            false
        });
        match first {
            None => Ok(summary),
            Some((node, kind)) => Err(self.node_error(node, kind.message(node))),
        }
    }

    /// Cycles and nodes with two parents, over every model's tree. Each node is visited once over
    /// all models: a model whose root lies in a tree already walked (several models sharing the
    /// world's tree) is not a fault and is skipped. Children outside NODES/LEAVES are not
    /// descended and not reported here: the branch checks report those.
    pub fn problems(&self) -> Vec<Problem> {
        let mut colour = vec![WHITE; self.nodes.len()];
        let mut summary = WalkSummary::default();
        let label = self.label();
        let mut out = Vec::new();
        for head in &self.heads {
            let Some(head) = *head else { continue };
            self.dfs(head, &mut colour, &mut summary, &mut |node, kind| {
                if !matches!(kind, Fault::NodeOutOfRange(_) | Fault::LeafOutOfRange(_)) {
                    let code = if matches!(kind, Fault::Cycle(_)) { Code::TREE_CYCLE } else { Code::TREE_SHARED_NODE };
                    out.push(Problem::error(code, label.clone(), Some(node as usize), kind.message(node)));
                }
                true
            });
        }
        out
    }

    /// Iterative depth-first walk from `root`. `fault(node, what)` is called for each bad child
    /// of `node`; returning false stops the walk.
    fn dfs(&self, root: TreeChild, colour: &mut [u8], summary: &mut WalkSummary, fault: &mut dyn FnMut(i64, Fault) -> bool) {
        let root = match root {
            TreeChild::Leaf(_) => {
                summary.leaves += 1;
                return;
            }
            TreeChild::Node(n) => n,
        };
        let Some(r) = usize::try_from(root).ok().filter(|&r| r < colour.len()) else {
            fault(-1, Fault::NodeOutOfRange(root));
            return;
        };
        if colour[r] != WHITE {
            return;
        }
        colour[r] = GREY;
        summary.nodes += 1;
        // (node, next side to look at); each node is pushed once, so the stack is bounded.
        let mut stack: Vec<(usize, u8)> = vec![(r, 0)];
        while let Some(top) = stack.last_mut() {
            let (n, side) = *top;
            if side == 2 {
                colour[n] = BLACK;
                stack.pop();
                continue;
            }
            top.1 += 1;
            summary.depth = summary.depth.max(stack.len());
            let bad = match self.nodes[n].children[side as usize] {
                TreeChild::Leaf(l) => {
                    summary.leaves += 1;
                    (usize::try_from(l).map_or(true, |l| l >= self.num_leaves)).then_some(Fault::LeafOutOfRange(l))
                }
                TreeChild::Node(k) => match usize::try_from(k).ok().filter(|&k| k < colour.len()) {
                    None => Some(Fault::NodeOutOfRange(k)),
                    Some(k) if colour[k] == GREY => Some(Fault::Cycle(k as i64)),
                    Some(k) if colour[k] == BLACK => Some(Fault::SecondParent(k as i64)),
                    Some(k) => {
                        colour[k] = GREY;
                        summary.nodes += 1;
                        stack.push((k, 0));
                        None
                    }
                },
            };
            if let Some(f) = bad {
                if !fault(n as i64, f) {
                    return;
                }
            }
        }
    }
}

const WHITE: u8 = 0;
/// On the current path: reaching it again closes a cycle.
const GREY: u8 = 1;
/// Finished: reaching it again means a second parent.
const BLACK: u8 = 2;

#[derive(Debug, Clone, Copy)]
enum Fault {
    Cycle(i64),
    SecondParent(i64),
    NodeOutOfRange(i64),
    LeafOutOfRange(i64),
}

impl Fault {
    fn message(self, node: i64) -> String {
        let node = who(node);
        match self {
            Fault::Cycle(k) => format!("{node} has child node {k}, one of its own ancestors (a cycle)"),
            Fault::SecondParent(k) => format!("{node} has child node {k}, which already has another parent"),
            Fault::NodeOutOfRange(k) => format!("{node} leads to node {k}, outside NODES"),
            Fault::LeafOutOfRange(k) => format!("{node} leads to leaf {k}, outside LEAVES"),
        }
    }
}

/// Names the parent in messages; -1 stands for the model's root reference.
fn who(node: i64) -> String {
    if node < 0 {
        "the model's root".to_string()
    } else {
        format!("node {node}")
    }
}

/// The [`Problem`]s of [`NodeTree::problems`] for a map, or nothing when its node tree cannot
/// be read (the lump checks report why). Used by the branch checks.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    // `NodeTree` borrows `Bsp<'a>` for `'a`; reborrow with matching lifetimes.
    fn run<'a>(bsp: &'a Bsp<'a>, problems: &mut Vec<Problem>) {
        if let Ok(tree) = NodeTree::of(bsp) {
            problems.extend(tree.problems());
        }
    }
    run(bsp, problems)
}
