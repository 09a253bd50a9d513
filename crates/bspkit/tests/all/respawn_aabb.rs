//! Apex cell AABB nodes (issue 22, real maps): `check` reads a CELL_AABB_NODES entry's packed
//! words as a real Apex map stores them — count in bits 0–7, first in 8–23, flags on top, for
//! the children and for the object references (docs/real-maps.md, `mp_lobby`). Before, the
//! count was taken from the top byte: every real node read as childless (so nothing was
//! checked), and a map MRVN-Radiant compiles for Apex, whose flags byte is 0x40, gave false
//! `range_out_of_range` errors.

use bspkit::branches::respawn::{LUMP_CELL_AABB_NODES, LUMP_OBJ_REFERENCES};
use bspkit::build::{apex_room, apex_room_with};
use bspkit::check::problem::Code;
use bspkit::Bsp;

/// One node: zero bounds, `children` and `obj_refs` as packed words.
fn node(children: u32, obj_refs: u32) -> Vec<u8> {
    let mut n = vec![0u8; 32];
    n[12..16].copy_from_slice(&children.to_le_bytes());
    n[28..32].copy_from_slice(&obj_refs.to_le_bytes());
    n
}

/// `check`'s messages about CELL_AABB_NODES (each a `range_out_of_range` error).
fn aabb_problems(nodes: Vec<u8>, obj_refs: usize) -> Vec<String> {
    let refs: Vec<u8> = (0..obj_refs as u32).flat_map(|i| i.to_le_bytes()).collect();
    let bytes = apex_room_with(&[], Vec::new(), vec![(LUMP_CELL_AABB_NODES, nodes), (LUMP_OBJ_REFERENCES, refs)]);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.branch().id, "apex");
    let found: Vec<_> = bspkit::check::check(&bsp).into_iter().filter(|p| p.lump.contains("CELL_AABB_NODES")).collect();
    assert!(found.iter().all(|p| p.code == Code::RANGE_OUT_OF_RANGE), "{found:?}");
    found.into_iter().map(|p| p.message).collect()
}

#[test]
fn apex_cell_aabb_runs_are_read_from_the_low_bytes() {
    // A root with two children (nodes 1, 2) and no references; two leaves with 1 and 2
    // references; every flags byte 0x40, as MRVN-Radiant writes them.
    let tree = [node(0x4000_0102, 0x4000_0000), node(0x4000_0300, 0x4000_0001), node(0x4000_0300, 0x4000_0102)].concat();
    assert_eq!(aabb_problems(tree, 3), Vec::<String>::new());

    // The same tree with the second leaf's references running one past OBJ_REFERENCES.
    let tree = [node(0x4000_0102, 0x4000_0000), node(0x4000_0300, 0x4000_0001), node(0x4000_0300, 0x4000_0202)].concat();
    let p = aabb_problems(tree, 3);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("object references range 2+2") && p[0].contains("OBJ_REFERENCES"), "{p:?}");

    // A root naming three children of a three-node tree (1..4): the child run is reported.
    let tree = [node(0x0000_0103, 0), node(0x0000_0300, 0), node(0x0000_0300, 0)].concat();
    let p = aabb_problems(tree, 0);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("children range 1+3"), "{p:?}");
}

#[test]
fn apex_room_without_aabb_nodes_checks_clean() {
    let bytes = apex_room(&[], Vec::new());
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let p = bspkit::check::check(&bsp);
    assert!(p.iter().all(|p| !p.lump.contains("AABB")), "{p:?}");
}
