//! `bspkit::view::visibility` (what `bsp view` culls with) for the Quake 3 family (plain rows,
//! one per cluster) and Source (`dvis_t`, run-length rows) on corpus maps: every row the page
//! decodes from the document, as `viewer/src/main.js` does, equals the map's own PVS (Quake 3:
//! the lump's bytes read here at `8 + cluster × sz_vecs`; Source: the library's `ClusterVis`),
//! and the world faces a camera in each cluster would draw are counted. And the served `vis.json`
//! is, byte for byte, the document built field by field as before `view::Visibility` held the
//! family's `LeafVisibility` (Quake 1, Quake 2, Source, Quake 3 maps).

use std::collections::BTreeSet;

use crate::common;
use bspkit::lumps::visibility::{ClusterVis, LeafVisibility, VisKind};
use bspkit::mesh::{self, MeshOptions};
use bspkit::Bsp;

/// Row `c` as the page decodes it (`pvsRow` in viewer/src/main.js).
fn page_row(v: &LeafVisibility, data: &[u8], c: usize) -> Option<Vec<u8>> {
    let ofs = usize::try_from(v.offsets[c]).ok()?;
    if !v.compressed {
        return data.get(ofs..ofs + v.row_bytes).map(<[u8]>::to_vec);
    }
    let mut row = vec![0u8; v.row_bytes];
    let (mut i, mut k) = (ofs, 0);
    while k < v.row_bytes && i < data.len() {
        let b = data[i];
        i += 1;
        if b != 0 {
            row[k] = b;
            k += 1;
        } else {
            k += if i < data.len() { data[i] as usize } else { v.row_bytes };
            i += 1;
        }
    }
    Some(row)
}

#[test]
fn quake3_and_source_pvs_documents_match_the_maps() {
    let Some(corpus) = common::corpus("quake3_and_source_pvs_documents_match_the_maps") else { return };
    let maps = [
        "quake3/turtlearena__sp1boss.bsp",
        "quake3/turtlearena__test_smash.bsp",
        "source/bsp_tool__tf2_test2.bsp",
        "source/bsp_tool__tf2_test_physcollide.bsp",
    ];
    let mut hiding = 0;
    for m in maps {
        let bsp = Bsp::open(corpus.join(m)).unwrap();
        let doc = bspkit::view::visibility(&bsp).unwrap().unwrap_or_else(|| panic!("{m}: no PVS document"));
        let v = &doc.leaves;
        assert!(v.clusters > 0, "{m}");
        // The rows as the page reads them: the document's hex.
        let hex = serde_json::to_value(&doc).unwrap()["data"].as_str().unwrap().to_owned();
        let data: Vec<u8> = (0..hex.len() / 2).map(|k| u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap()).collect();
        let quake3 = bsp.family() == bspkit::Family::Quake3;
        assert_eq!(v.compressed, !quake3, "{m}");
        let lump = bsp.lump(if quake3 { 16 } else { 4 }).unwrap();
        let source = (!quake3).then(|| ClusterVis::parse(lump, bsp.endian()).unwrap());
        // Every leaf's faces and the world's faces of the document's face lump.
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap();
        let world: BTreeSet<u32> = scene.models[0].surfaces.iter().filter(|s| s.lump == v.face_lump).map(|s| s.index).collect();
        let listed: BTreeSet<u32> = v.leaf_faces.iter().copied().collect();
        let (mut fewest, mut at) = (usize::MAX, 0);
        for c in 0..v.clusters {
            let row = page_row(v, &data, c).unwrap_or_else(|| panic!("{m}: cluster {c} has no row"));
            for j in 0..v.clusters {
                let page = row[j >> 3] & (1 << (j & 7)) != 0;
                let map = match &source {
                    Some(s) => s.can_see(c, j, VisKind::Pvs).unwrap(),
                    None => {
                        let sz = i32::from_le_bytes(lump[4..8].try_into().unwrap()) as usize;
                        lump[8 + c * sz + (j >> 3)] & (1 << (j & 7)) != 0
                    }
                };
                assert_eq!(page, map, "{m}: cluster {c} sees {j}");
            }
            // The world faces drawn from cluster c: those of visible leaves, and faces no leaf lists.
            let mut drawn: BTreeSet<u32> = world.difference(&listed).copied().collect();
            for (l, &lc) in v.leaf_cluster.iter().enumerate() {
                if lc >= 0 && row[lc as usize >> 3] & (1 << (lc & 7)) != 0 {
                    drawn.extend(&v.leaf_faces[v.leaf_first[l] as usize..v.leaf_first[l + 1] as usize]);
                }
            }
            let n = drawn.intersection(&world).count();
            if n < fewest {
                (fewest, at) = (n, c);
            }
        }
        eprintln!("{m}: {} clusters; from cluster {at} {fewest} of {} world faces are drawn", v.clusters, world.len());
        hiding += usize::from(fewest < world.len());
    }
    assert!(hiding >= 1, "no cluster of these maps hides a world face");
}

/// The viewer's `vis.json` as it was built field by field before `view::Visibility` held the
/// family's `LeafVisibility`: the leaves and rows, the node tree (a child ≥ 0 a node, else
/// `-(leaf + 1)`), planes, the world's root, the rows in lower-case hex, `available: true`.
fn vis_document_by_fields(bsp: &Bsp) -> serde_json::Value {
    use bspkit::tree::{NodeTree, TreeChild};
    let read = bspkit::branches::any::of(bsp.family()).leaf_visibility().expect("family with leaf visibility");
    let v = read(bsp).unwrap();
    let t = NodeTree::of(bsp).unwrap();
    let enc = |c: TreeChild| match c {
        TreeChild::Node(n) => n,
        TreeChild::Leaf(l) => -(l + 1),
    };
    let nodes: Vec<[i64; 3]> = t.nodes.iter().map(|n| [n.plane, enc(n.children[0]), enc(n.children[1])]).collect();
    let planes: Vec<[f32; 4]> = t.planes.iter().map(|(n, d)| [n[0], n[1], n[2], *d]).collect();
    let data: String = v.data.iter().map(|b| format!("{b:02x}")).collect();
    serde_json::json!({
        "available": true,
        "face_lump": v.face_lump,
        "nodes": nodes,
        "planes": planes,
        "root": enc(t.head(0).unwrap()),
        "leaf_cluster": v.leaf_cluster,
        "leaf_first": v.leaf_first,
        "leaf_faces": v.leaf_faces,
        "clusters": v.clusters,
        "row_bytes": v.row_bytes,
        "offsets": v.offsets,
        "compressed": v.compressed,
        "data": data,
    })
}

/// `bsp view`'s visibility document, byte for byte, on a map of each family with compressed
/// per-leaf rows (Quake 1), `dvis_t` clusters (Quake 2, Source) and plain rows (Quake 3).
#[test]
fn viewer_vis_document_is_unchanged() {
    let Some(corpus) = common::corpus("viewer_vis_document_is_unchanged") else { return };
    for m in [
        "quake1/bsp_tool__q1_mp_lobby.bsp",
        "quake2/bsp_tool__q2_mp_lobby.bsp",
        "source/bsp_tool__tf2_test2.bsp",
        "quake3/turtlearena__sp1boss.bsp",
    ] {
        let bsp = Bsp::open(corpus.join(m)).unwrap();
        let served = bspkit::view::map_view(&bsp, m, &bspkit::view::export_options(None)).vis;
        let doc: serde_json::Value = serde_json::from_slice(&served).unwrap();
        assert_eq!(doc["available"], true, "{m}: {doc}");
        assert_eq!(served, serde_json::to_vec(&vis_document_by_fields(&bsp)).unwrap(), "{m}");
    }
}

/// `bsp view --skip hull` on a sealed map (Titanfall 2 `mp_hippodrome`, boxed in by MRVN-Radiant):
/// the export leaves the box's walls out, and the page's first frame is the one it has without the
/// flag: the walls are marked once (by the export), and the view's frame is taken on the box
/// found on the marked scene, which is the same box.
#[test]
fn skipping_the_sealing_box_keeps_the_first_frame() {
    let Some(corpus) = common::corpus("skipping_the_sealing_box_keeps_the_first_frame") else { return };
    let bytes = std::fs::read(corpus.join("respawn/catornot__mp_hippodrome.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let summary = |skip_hull: bool| {
        let mut opts = bspkit::view::export_options(None);
        if skip_hull {
            opts.skip |= mesh::SurfaceFlags::HULL;
        }
        let v = bspkit::view::map_view(&bsp, "mp_hippodrome.bsp", &opts);
        assert!(v.glb.is_ok(), "{:?}", v.glb.err());
        serde_json::from_slice::<serde_json::Value>(&v.summary).unwrap()
    };
    let (kept, skipped) = (summary(false), summary(true));
    assert!(kept["frame"].is_object(), "{kept}");
    assert_eq!(kept["frame"], skipped["frame"]);
    let triangles = |s: &serde_json::Value| s["export"]["triangles"].as_u64().unwrap();
    assert!(triangles(&skipped) < triangles(&kept), "{} / {}", triangles(&skipped), triangles(&kept));
}
