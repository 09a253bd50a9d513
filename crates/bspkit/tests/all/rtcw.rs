//! The corpus's real IBSP 47 map, `quake3/rtcwviewer__TESTROOM.bsp` (Return to Castle
//! Wolfenstein test room from Helioform/RTCW-BSP-Map-Viewer): detection, checks, typed
//! decoding, byte-identical rewrite, and the `q3map2 -info` rows against the header read here.

use crate::common;

use bspkit::branches::quake3;
use bspkit::Bsp;

fn testroom() -> Option<std::path::PathBuf> {
    let corpus = common::corpus("rtcw TESTROOM")?;
    let m = common::maps_in(&corpus, "quake3").into_iter().find(|m| m.magic == "IBSP v47");
    Some(m.expect("the manifest lists an IBSP v47 map").path)
}

#[test]
fn testroom_is_ibsp47_clean_and_round_trips() {
    let Some(path) = testroom() else { return };
    let bytes = std::fs::read(&path).unwrap();
    let bsp = Bsp::open(&path).unwrap();
    let d = bsp.detection();
    assert_eq!((d.branch.id, d.version), ("ibsp47", 47));
    assert!(d.runners_up.iter().any(|(b, _)| *b == "quakelive"), "{:?}", d.runners_up);
    let problems = bspkit::check::check(&bsp);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes);

    // Typed records decode; every surface's indices and vertices resolve.
    let v = quake3::View::<quake3::Ibsp>::new(&bsp).unwrap();
    let (surfaces, verts, indices) = (v.surfaces().unwrap(), v.draw_vertices().unwrap(), v.draw_indices().unwrap());
    assert!(!surfaces.is_empty());
    for s in surfaces {
        let (fv, nv) = (s.first_vert.get() as usize, s.num_verts.get() as usize);
        let (fi, ni) = (s.first_index.get() as usize, s.num_indexes.get() as usize);
        assert!(fv + nv <= verts.len() && fi + ni <= indices.len());
        assert!(indices[fi..fi + ni].iter().all(|i| (i.get() as usize) < nv));
    }

    // The entity lump: the two entities the RTCW viewer's own dump of this map lists.
    let ents = bsp.entities().unwrap();
    assert_eq!(ents.len(), 2);
    assert_eq!(ents.list[0].classname().as_deref(), Some("worldspawn"));
    assert_eq!(ents.list[1].classname().as_deref(), Some("info_player_start"));
    assert_eq!(ents.list[1].get("origin").as_deref(), Some("-112 -56 16"));
}

/// `q3map2 -info` counts each lump as its length over the record size (quake_facts.md §6.3);
/// the lengths come from the directory read here, the sizes from the IBSP 46/47 records.
#[test]
fn testroom_info_rows_follow_the_header() {
    let Some(path) = testroom() else { return };
    let bytes = std::fs::read(&path).unwrap();
    let len = |i: usize| u32::from_le_bytes(bytes[12 + 8 * i..16 + 8 * i].try_into().unwrap()) as u64;
    let bsp = Bsp::open(&path).unwrap();
    let stats = bspkit::stats::stats(&bsp);
    let count = |name: &str| stats.iter().find(|s| s.name == name).and_then(|s| s.count);
    for (name, lump, size) in [
        ("models", 7, 40),
        ("shaders", 1, 72),
        ("brushes", 8, 12),
        ("brushsides", 9, 8),
        ("planes", 2, 16),
        ("nodes", 3, 36),
        ("leafs", 4, 48),
        ("leafsurfaces", 5, 4),
        ("leafbrushes", 6, 4),
        ("drawsurfaces", 13, 104),
        ("drawverts", 10, 44),
        ("drawindexes", 11, 4),
        ("lightmaps", 14, 128 * 128 * 3),
        ("lightgrid", 15, 8),
    ] {
        assert_eq!(len(lump) % size, 0, "{name}");
        assert_eq!(count(name), Some(len(lump) / size), "{name}");
    }
    let total = stats.iter().find(|s| s.name == "total").unwrap();
    assert_eq!(total.bytes, bytes.len() as u64);
}
