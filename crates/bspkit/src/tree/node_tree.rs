//! A map's node tree in a family-independent form ([`NodeTree`]) and what is done with it:
//! point-in-leaf lookup, a structural walk, the problems of a damaged tree. Each family reads
//! its own lumps into [`TreeParts`] (`branches::<family>::tree`); this module names no family,
//! so the family checks can use it ([`check_parts`]). See [`super`] for the bounds on untrusted
//! trees.

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

/// Node, leaf and model lump contents of one family, gathered by the family
/// ([`crate::branches::ops::FamilyOps::node_tree`]) before the shared code runs.
pub struct TreeParts {
    pub nodes: Vec<TreeNode>,
    /// Plane normal and distance, by plane index.
    pub planes: Vec<([f32; 3], f32)>,
    pub num_leaves: usize,
    /// Each model's root, as [`NodeTree::heads`].
    pub heads: Vec<Option<TreeChild>>,
    /// The node lump's index, for error locations.
    pub nodes_lump: usize,
}

/// Quake 2 / Quake 3 / Source child encoding: negative = leaf `-(child + 1)` (quake_family.md).
pub fn signed_child(c: i64) -> TreeChild {
    if c >= 0 {
        TreeChild::Node(c)
    } else {
        TreeChild::Leaf(-(c + 1))
    }
}

impl<'a> NodeTree<'a> {
    /// The tree of `parts`, read from `bsp` by its family ([`super::NodeTree::of`]).
    pub fn from_parts(bsp: &'a Bsp<'a>, parts: TreeParts) -> Self {
        let node_size = bsp.record_size(parts.nodes_lump).unwrap_or(1).max(1);
        NodeTree {
            bsp,
            nodes: parts.nodes,
            planes: parts.planes,
            num_leaves: parts.num_leaves,
            heads: parts.heads,
            nodes_lump: parts.nodes_lump,
            node_size,
        }
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
            Some(None) => Err(Error::new(ErrorKind::NoSuchLump(format!("node tree of model {model} (it has none of its own)")))),
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

/// The [`Problem`]s of [`NodeTree::problems`] for a map whose family read `parts`, or nothing
/// when its node tree cannot be read (the lump checks report why). Used by the family checks.
pub fn check_parts(bsp: &Bsp, parts: Result<TreeParts>, problems: &mut Vec<Problem>) {
    // `NodeTree` borrows `Bsp<'a>` for `'a`; reborrow with matching lifetimes.
    fn run<'a>(bsp: &'a Bsp<'a>, parts: Result<TreeParts>, problems: &mut Vec<Problem>) {
        if let Ok(parts) = parts {
            problems.extend(NodeTree::from_parts(bsp, parts).problems());
        }
    }
    run(bsp, parts, problems)
}
