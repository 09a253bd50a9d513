//! The one-call API other modules use to replace a lump on disk (e.g. a rebuilt pakfile).

use crate::common;

use bspkit::build::BspBuilder;
use bspkit::Bsp;

#[test]
fn replace_lump_in_file_is_one_atomic_call() {
    use bspkit::branches::source::SOURCE;
    let dir = common::scratch("api");
    let path = dir.join("m.bsp");
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    // Pakfiles that parse (`check` reports one that does not, and the write would be refused).
    let zip = |entries: &[(&str, &[u8])]| {
        let mut p = bspkit::lumps::pakfile::PakBuilder::new();
        for (name, data) in entries {
            p.insert(name, data.to_vec()).unwrap();
        }
        p.build(bspkit::lumps::pakfile::PakCompression::Stored).unwrap()
    };
    let bytes = BspBuilder::new(&SOURCE).lump(0, ents.clone()).lump(1, vec![3u8; 40]).lump(40, zip(&[("old.txt", b"old")])).build();
    std::fs::write(&path, &bytes).unwrap();
    let pak = zip(&[("a.txt", b"a new, longer pakfile"), ("b.txt", b"b")]);
    bspkit::edit::replace_lump_in_file(&path, 40, pak.clone(), &path).unwrap();
    let after = std::fs::read(&path).unwrap();
    let bsp = Bsp::from_bytes(&after).unwrap();
    assert_eq!(bsp.lump(40).unwrap(), &pak[..]);
    assert_eq!(bsp.lump(0).unwrap(), &ents[..]);
    assert_eq!(bsp.lump(1).unwrap(), &[3u8; 40][..]);
    // A lump the branch does not have is refused and the file stays as it was.
    assert!(bspkit::edit::replace_lump_in_file(&path, 99, vec![1], &path).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), after);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn write_refuses_a_result_with_new_problems() {
    use bspkit::branches::quake1::*;
    let dir = common::scratch("api-check");
    let bytes = bspkit::build::sample_quake1();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let target = dir.join("out.bsp");
    std::fs::write(&target, b"precious").unwrap();
    let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
    // 30 bytes of planes is not a whole number of 20-byte records: `check` reports it.
    ed.set_lump(LUMP_PLANES, vec![0u8; 30]).unwrap();
    let err = ed.write(&target).unwrap_err();
    assert!(err.to_string().contains("new problems"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), b"precious");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "temporary file left behind");
    // The sample is a real room whose faces, nodes and clipnodes use every plane: a valid edit
    // keeps the count (here, every plane's distance nudged) and is written.
    let mut planes = bsp.lump(LUMP_PLANES).unwrap().to_vec();
    for plane in planes.chunks_exact_mut(20) {
        let dist = f32::from_le_bytes(plane[12..16].try_into().unwrap()) + 1.0;
        plane[12..16].copy_from_slice(&dist.to_le_bytes());
    }
    ed.set_lump(LUMP_PLANES, planes.clone()).unwrap();
    ed.write(&target).unwrap();
    assert_eq!(Bsp::open(&target).unwrap().lump(LUMP_PLANES).unwrap(), &planes[..]);
}
