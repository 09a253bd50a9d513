//! Node-tree walker (`bspkit::tree`; Quake 1 family, Quake 2, Quake 3, Source): hostile trees (cycles, shared nodes, 100k-deep chains)
//! end promptly with an error or a check problem, never a stack overflow or an endless loop;
//! point-in-leaf lookups on the builder's room and on real maps land in open space.

use crate::common;

use std::time::Instant;

use bspkit::branch::Family;
use bspkit::branches::quake1::{self, Child, LeafRecord, NodeRecord};
use bspkit::branches::quake2::{self, LeafRecord as _};
use bspkit::branches::quake3;
use bspkit::build::BspBuilder;
use bspkit::tree::{NodeTree, TreeChild};
use bspkit::{Branch, Bsp};
use zerocopy::IntoBytes;

/// `bytes` (a map of `branch`) written again with lump `index` replaced.
fn with_lump(branch: &'static Branch, bytes: &[u8], index: usize, data: Vec<u8>) -> Vec<u8> {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    let mut b = BspBuilder::new(branch).version(bsp.header().version);
    for e in bsp.lumps() {
        let lump = if e.index == index { data.clone() } else { bsp.lump(e.index).unwrap().to_vec() };
        b = b.lump(e.index, lump);
    }
    b.build()
}

fn node<N: NodeRecord>(children: [Child; 2]) -> N {
    N::make(0, children, [-128.0; 3], [128.0; 3], 0, 0)
}

/// The BSP2 room with its node lump replaced by `nodes`.
fn bsp2_room_with_nodes(nodes: &[quake1::NodeBsp2]) -> Vec<u8> {
    let room = quake1::room::box_room(&quake1::BSP2);
    with_lump(&quake1::BSP2, &room, quake1::LUMP_NODES, nodes.as_bytes().to_vec())
}

fn check_messages(bytes: &[u8]) -> Vec<String> {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect()
}

#[test]
fn room_tree_is_clean_and_the_room_centre_is_open() {
    for branch in [&quake1::QUAKE1, &quake1::HEXEN2, &quake1::BSP2, &quake1::BSP2PSB, &bspkit::branches::goldsrc::GOLDSRC] {
        let bytes = quake1::room::box_room(branch);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let tree = NodeTree::of(&bsp).unwrap();
        let s = tree.walk(0).unwrap();
        assert_eq!(s.nodes, tree.nodes.len(), "{}", branch.id);
        assert!(tree.problems().is_empty(), "{}", branch.id);
        let leaf = tree.point_leaf(0, [0.0, 0.0, 0.0]).unwrap();
        assert_ne!(leaf, 0, "{}: the centre is not the solid leaf", branch.id);
        // Outside the box is solid (leaf 0, the shared solid leaf).
        assert_eq!(tree.point_leaf(0, [1000.0, 0.0, 0.0]).unwrap(), 0, "{}", branch.id);
    }
}

#[test]
fn node_pointing_at_itself_is_a_cycle() {
    // BSP29 reads children as unsigned: 0 < node count, so child 0 = node 0 itself.
    let room = quake1::room::box_room(&quake1::QUAKE1);
    let bsp = Bsp::from_bytes(&room).unwrap();
    let mut nodes = quake1::View::<quake1::Bsp29>::new(&bsp).nodes().unwrap().to_vec();
    nodes[0].children[0].set(0);
    nodes[0].children[1].set(0);
    let bytes = with_lump(&quake1::QUAKE1, &room, quake1::LUMP_NODES, nodes.as_bytes().to_vec());
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let tree = NodeTree::of(&bsp).unwrap();
    assert_eq!(tree.nodes[0].children[0], TreeChild::Node(0));
    let err = tree.point_leaf(0, [0.0, 0.0, 0.0]).unwrap_err();
    assert!(err.to_string().contains("cycle"), "{err}");
    assert!(err.to_string().contains("NODES"), "{err}");
    let err = tree.walk(0).unwrap_err();
    assert!(err.to_string().contains("cycle"), "{err}");
    assert!(err.offset.is_some());
    let msgs = check_messages(&bytes);
    assert!(msgs.iter().any(|m| m.contains("NODES") && m.contains("cycle")), "{msgs:?}");
}

#[test]
fn node_with_two_parents_is_reported() {
    // Node 0's children are both node 1; node 1 ends in the room's open leaf 1.
    let nodes: Vec<quake1::NodeBsp2> = vec![node([Child::Node(1), Child::Node(1)]), node([Child::Leaf(1), Child::Leaf(0)])];
    let bytes = bsp2_room_with_nodes(&nodes);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let tree = NodeTree::of(&bsp).unwrap();
    let err = tree.walk(0).unwrap_err();
    assert!(err.to_string().contains("another parent"), "{err}");
    // A lookup still ends (the graph has no cycle).
    assert_eq!(tree.point_leaf(0, [0.0, 0.0, 0.0]).unwrap(), 1);
    let msgs = check_messages(&bytes);
    assert!(msgs.iter().any(|m| m.contains("another parent")), "{msgs:?}");
}

#[test]
fn hundred_thousand_deep_chain_and_long_cycle_end_promptly() {
    const N: usize = 100_000;
    // Node i's front child is node i + 1; the last one's front child is the open leaf 1. The
    // room's plane 0 is x = -128 facing +x, so the centre of the room is in front of every node.
    let mut nodes: Vec<quake1::NodeBsp2> = (0..N).map(|i| node([Child::Node(i as i64 + 1), Child::Leaf(0)])).collect();
    nodes[N - 1] = node([Child::Leaf(1), Child::Leaf(0)]);
    let start = Instant::now();
    let bytes = bsp2_room_with_nodes(&nodes);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let tree = NodeTree::of(&bsp).unwrap();
    assert_eq!(tree.point_leaf(0, [0.0, 0.0, 0.0]).unwrap(), 1);
    let s = tree.walk(0).unwrap();
    assert_eq!((s.nodes, s.depth), (N, N));
    assert!(tree.problems().is_empty());

    // The same chain closed back onto node 0: a cycle 100k nodes long.
    nodes[N - 1] = node([Child::Node(0), Child::Leaf(0)]);
    let bytes = bsp2_room_with_nodes(&nodes);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let tree = NodeTree::of(&bsp).unwrap();
    assert!(tree.point_leaf(0, [0.0, 0.0, 0.0]).unwrap_err().to_string().contains("cycle"));
    assert!(tree.walk(0).unwrap_err().to_string().contains("cycle"));
    let msgs = check_messages(&bytes);
    assert!(msgs.iter().any(|m| m.contains("cycle")), "{}", msgs.len());
    // A whole check of the 100k-node map (twice built and walked) stays well under this.
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
}

#[test]
fn children_out_of_range_are_errors_not_panics() {
    let nodes: Vec<quake1::NodeBsp2> = vec![node([Child::Node(7), Child::Leaf(99)])];
    let bytes = bsp2_room_with_nodes(&nodes);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let tree = NodeTree::of(&bsp).unwrap();
    let err = tree.point_leaf(0, [0.0, 0.0, 0.0]).unwrap_err();
    // Issue 24: table sizes read as a count, not as a range like `(0..1)` / `(0..0)`.
    assert!(err.to_string().contains("leads to node 7, outside NODES (count 1)"), "{err}");
    let err = tree.point_leaf(0, [-1000.0, 0.0, 0.0]).unwrap_err();
    assert!(err.to_string().contains("leads to leaf 99, outside LEAVES (count "), "{err}");
    assert!(!err.to_string().contains("(0.."), "{err}");
    assert!(tree.walk(0).is_err());
    assert!(tree.point_leaf(5, [0.0; 3]).is_err(), "no model 5");
}

fn source_open<O: zerocopy::ByteOrder>(bsp: &Bsp, leaf: usize) -> bool {
    let v = bspkit::branches::source::View::<O>::new(bsp).unwrap();
    v.leaves().unwrap().iter().nth(leaf).unwrap().contents & 1 == 0
}

fn origin(text: &str) -> Option<[f32; 3]> {
    let v: Vec<f32> = text.split_whitespace().filter_map(|t| t.parse().ok()).collect();
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

/// Every Quake 1 / GoldSrc / Quake 2 / Quake 3 corpus map: the tree walks clean, and each
/// player start (the classnames the engines spawn players at) lies in a leaf that is not solid.
#[test]
fn corpus_trees_walk_clean_and_player_starts_are_in_open_leaves() {
    let Some(corpus) = common::corpus("corpus_trees_walk_clean_and_player_starts_are_in_open_leaves") else { return };
    let starts = [
        "info_player_start",
        "info_player_deathmatch",
        "info_player_coop",
        "team_CTF_redplayer",
        "info_player_team1",
        "info_player_terrorist",
        "info_player_counterterrorist",
        "info_player_teamspawn",
    ];
    let (mut maps, mut lookups) = (0, 0);
    for m in common::maps(&corpus) {
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        if !matches!(bsp.family(), Family::Quake | Family::GoldSrc | Family::Quake2 | Family::Quake3 | Family::Source) {
            continue;
        }
        let Ok(tree) = NodeTree::of(&bsp) else { continue };
        maps += 1;
        let name = m.path.display();
        let s = tree.walk(0).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(s.nodes > 0 || tree.nodes.is_empty(), "{name}");
        let problems = tree.problems();
        assert!(problems.is_empty(), "{name}: {problems:?}");
        let Ok(ents) = bsp.entities() else { continue };
        for e in ents.iter() {
            let Some(class) = e.classname() else { continue };
            if !starts.contains(&class.as_ref()) {
                continue;
            }
            let Some(p) = e.get("origin").and_then(|o| origin(&o)) else { continue };
            let leaf = tree.point_leaf(0, p).unwrap_or_else(|e| panic!("{name}: {e}"));
            lookups += 1;
            let open = match bsp.family() {
                // quake_family.md B.12: CONTENTS_SOLID = -2; leaf 0 is the shared solid leaf.
                Family::Quake | Family::GoldSrc => match bsp.branch().id {
                    "bsp2" => quake1::View::<quake1::Bsp2>::new(&bsp).leaves().unwrap()[leaf].contents() != -2,
                    "2psb" => quake1::View::<quake1::Rmq>::new(&bsp).leaves().unwrap()[leaf].contents() != -2,
                    _ => quake1::View::<quake1::Bsp29>::new(&bsp).leaves().unwrap()[leaf].contents() != -2,
                },
                // Quake 2: CONTENTS_SOLID is bit 0 of the leaf contents.
                Family::Quake2 => match bsp.branch().id {
                    "qbism" => quake2::View::<quake2::Qbism>::new(&bsp).unwrap().leaves().unwrap()[leaf].contents() & 1 == 0,
                    _ => quake2::View::<quake2::Ibsp>::new(&bsp).unwrap().leaves().unwrap()[leaf].contents() & 1 == 0,
                },
                // Source: CONTENTS_SOLID is bit 0, as in Quake 2 (source.md, dleaf_t).
                Family::Source => match bsp.endian() {
                    bspkit::Endian::Little => source_open::<zerocopy::LittleEndian>(&bsp, leaf),
                    bspkit::Endian::Big => source_open::<zerocopy::BigEndian>(&bsp, leaf),
                },
                // Quake 3: a leaf outside the map has cluster -1.
                _ => quake3::View::<quake3::Ibsp>::new(&bsp).unwrap().leaves().unwrap()[leaf].cluster.get() >= 0,
            };
            assert!(open, "{name}: {class} at {p:?} is in solid leaf {leaf}");
        }
    }
    eprintln!("{maps} maps walked, {lookups} player starts looked up");
    assert!(maps > 0 && lookups > 0);
}

/// A real Quake 2, Quake 3 and Source map each, with node 0's front child pointed back at
/// node 0 in a copy: the walk and the lookup stop with a cycle error, and the Quake 2 and
/// Quake 3 checks report it.
#[test]
fn corpus_maps_with_a_node_pointing_at_itself() {
    let Some(corpus) = common::corpus("corpus_maps_with_a_node_pointing_at_itself") else { return };
    let mut done = Vec::new();
    for m in common::maps(&corpus) {
        let Ok(bytes) = std::fs::read(&m.path) else { continue };
        let Ok(bsp) = Bsp::from_bytes(&bytes) else { continue };
        let family = bsp.family();
        if !matches!(family, Family::Quake2 | Family::Quake3 | Family::Source) || done.contains(&family) {
            continue;
        }
        let Ok(tree) = NodeTree::of(&bsp) else { continue };
        let Some(e) = bsp.lumps().iter().find(|e| e.name == "NODES").filter(|e| !e.compressed && e.length > 0) else { continue };
        if tree.nodes.len() < 2 || !matches!(tree.head(0), Ok(TreeChild::Node(0))) {
            continue;
        }
        // Every one of these node records starts with i32 plane, i32 children[2] (the front
        // child at +4), in the map's byte order.
        let at = e.offset as usize + 4;
        let mut bad = bytes.clone();
        bad[at..at + 4].copy_from_slice(&bsp.endian().u32_bytes(0));
        drop(tree);
        let bsp = Bsp::from_bytes(&bad).unwrap();
        let tree = NodeTree::of(&bsp).unwrap();
        assert_eq!(tree.nodes[0].children[0], TreeChild::Node(0), "{}", m.path.display());
        let err = tree.walk(0).unwrap_err();
        assert!(err.to_string().contains("cycle"), "{}: {err}", m.path.display());
        // A point in front of node 0's plane comes back to node 0 for ever, unless bounded.
        let (n, d) = tree.planes[tree.nodes[0].plane as usize];
        let p = [n[0] * (d + 1.0), n[1] * (d + 1.0), n[2] * (d + 1.0)];
        assert!(tree.point_leaf(0, p).unwrap_err().to_string().contains("cycle"), "{}", m.path.display());
        let msgs: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect();
        assert!(msgs.iter().any(|m| m.contains("cycle")), "{}: {msgs:?}", m.path.display());
        done.push(family);
    }
    assert_eq!(done.len(), 3, "found {done:?}");
}
