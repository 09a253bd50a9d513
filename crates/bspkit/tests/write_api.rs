//! The one-call API other modules use to replace a lump on disk (e.g. a rebuilt pakfile).

use bspkit::build::BspBuilder;
use bspkit::Bsp;

#[test]
fn replace_lump_in_file_is_one_atomic_call() {
    use bspkit::branches::source::SOURCE;
    let dir = std::env::temp_dir().join(format!("bspkit-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.bsp");
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let bytes = BspBuilder::new(&SOURCE).lump(0, ents.clone()).lump(1, vec![3u8; 40]).lump(40, b"PK\x05\x06old".to_vec()).build();
    std::fs::write(&path, &bytes).unwrap();
    let pak = b"PK\x05\x06 a new, longer pakfile".to_vec();
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
    std::fs::remove_dir_all(&dir).unwrap();
}
