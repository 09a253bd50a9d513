//! Issue 11, items 7, 8 and 10: budgets per map and per command, not per item. The hostile
//! files are built here with the library's builder (directory entries sharing one LZMA stream,
//! Zip central records sharing one local entry, external lumps beside a map), and opened with
//! budgets set low through the API so that a run that ignored them would show at once.

use bspkit::branches::source::SOURCE;
use bspkit::build::BspBuilder;
use bspkit::compression::compress_valve_lzma;
use bspkit::lumps::pakfile::{PakBuilder, PakCompression, Pakfile};
use bspkit::{Bsp, ErrorKind, OpenOptions};

const MIB: u64 = 1 << 20;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("bspkit-budgets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Source directory entry `index`: `{fileofs, filelen, version, fourCC}` at 8 + 16 × index
/// (source.md §5).
fn set_entry(map: &mut [u8], index: usize, offset: u32, length: u32, fourcc: u32) {
    let at = 8 + 16 * index;
    map[at..at + 4].copy_from_slice(&offset.to_le_bytes());
    map[at + 4..at + 8].copy_from_slice(&length.to_le_bytes());
    map[at + 12..at + 16].copy_from_slice(&fourcc.to_le_bytes());
}

fn entry(map: &[u8], index: usize) -> (u32, u32) {
    let at = 8 + 16 * index;
    (u32::from_le_bytes(map[at..at + 4].try_into().unwrap()), u32::from_le_bytes(map[at + 4..at + 8].try_into().unwrap()))
}

/// A Source map whose lump 8 is `size` zero bytes LZMA-compressed, and whose lumps listed in
/// `sharing` point at the very same compressed bytes.
fn shared_stream_map(size: usize, sharing: &[usize]) -> Vec<u8> {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let lz = compress_valve_lzma(&vec![0u8; size], 6).unwrap();
    let mut map = BspBuilder::new(&SOURCE).lump(0, ents).lump(8, lz).build();
    let (o, l) = entry(&map, 8);
    for &i in sharing {
        set_entry(&mut map, i, o, l, size as u32);
    }
    map
}

fn opts(total: u64) -> OpenOptions {
    OpenOptions { max_decompressed_total: total, external_lumps: false, ..Default::default() }
}

/// Item 7: entries sharing one stream decode once and count once.
#[test]
fn shared_lzma_stream_decodes_once() {
    let sharing = [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13];
    let map = shared_stream_map(2 << 20, &sharing);
    // 13 entries × 2 MiB would be 26 MiB; the budget allows one decode and a half.
    let bsp = Bsp::from_bytes_with(&map, &opts(3 * MIB)).unwrap();
    let first = bsp.lump(8).unwrap().as_ptr();
    for &i in &sharing {
        let l = bsp.lump(i).unwrap();
        assert_eq!(l.len(), 2 << 20);
        assert_eq!(l.as_ptr(), first, "lump {i} decoded again instead of sharing");
    }
    assert_eq!(bsp.decompressed_bytes(), 2 * MIB);
    // A whole-map pass (check decodes the lumps it reads, in parallel) stays within the budget.
    let _ = bspkit::check::check(&bsp);
    assert!(bsp.budget_error().is_none());
}

/// Item 7: distinct compressed lumps count against one budget per map; the overrun is a
/// `limit_exceeded` error of that map, and `scan` reports it and goes on with the next map.
#[test]
fn decompression_budget_is_per_map() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let mut b = BspBuilder::new(&SOURCE).lump(0, ents.clone());
    for (n, i) in [1usize, 8, 9, 10].into_iter().enumerate() {
        // Different contents, so no two entries share bytes.
        b = b.lump(i, compress_valve_lzma(&vec![n as u8; 1 << 20], 6).unwrap());
    }
    let map = b.build();
    let bsp = Bsp::from_bytes_with(&map, &opts(5 * MIB / 2)).unwrap();
    let mut ok = 0;
    let mut refused = 0;
    for i in [1, 8, 9, 10] {
        match bsp.lump(i) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert_eq!(e.kind.name(), "limit_exceeded", "{e}");
                assert!(e.to_string().contains("all lumps"), "{e}");
                refused += 1;
            }
        }
    }
    assert_eq!((ok, refused), (2, 2), "1 MiB each under a 2.5 MiB budget");
    assert!(bsp.decompressed_bytes() <= 5 * MIB / 2);

    // `scan`: the hostile map is an error of its own, the healthy one is fine.
    let d = temp_dir("scan");
    std::fs::write(d.join("hostile.bsp"), &map).unwrap();
    std::fs::write(d.join("healthy.bsp"), BspBuilder::new(&SOURCE).lump(0, ents).build()).unwrap();
    let options = bspkit::scan::ScanOptions { open: opts(5 * MIB / 2), ..Default::default() };
    let (files, _) = bspkit::scan::collect_files(std::slice::from_ref(&d));
    assert_eq!(files.len(), 2);
    for f in &files {
        let rec = &bspkit::scan::scan_file(f, &options)[0];
        if f.ends_with("hostile.bsp") {
            assert_eq!(rec.error.as_ref().map(|e| e.kind), Some("limit_exceeded"), "{}", rec.display());
        } else {
            assert!(rec.error.is_none(), "{}", rec.display());
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Item 8: Zip central records sharing one local entry are refused; the total per command is
/// budgeted.
#[test]
fn pakfile_shared_local_entries_refused() {
    let mut b = PakBuilder::new();
    b.insert("a.txt", vec![b'a'; 1000]).unwrap();
    b.insert("b.txt", vec![b'b'; 1000]).unwrap();
    let mut zip = b.build(PakCompression::Stored).unwrap();
    assert_eq!(Pakfile::parse(&zip).unwrap().entries.len(), 2);
    // Point the second central record's local offset (field at +42) at the first entry.
    let cd = zip.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let second = cd + 1 + zip[cd + 1..].windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    zip[second + 42..second + 46].copy_from_slice(&0u32.to_le_bytes());
    let err = Pakfile::parse(&zip).unwrap_err();
    assert!(err.to_string().contains("share the local entry"), "{err}");

    // Total budget of one extract: two entries of 1000 bytes against 1500.
    let zip = b.build(PakCompression::Stored).unwrap();
    let pak = Pakfile::parse(&zip).unwrap();
    assert_eq!(pak.total_size(), 2000);
    let d = temp_dir("pak");
    let err = pak.extract_limited(&d, &[], 1 << 20, 1500).unwrap_err();
    assert_eq!(err.kind.name(), "limit_exceeded");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written before the refusal");
    let x = pak.extract_limited(&d, &[], 1 << 20, 2000).unwrap();
    assert_eq!(x.written.len(), 2);
    // One entry cap for every command: insert refuses what read would refuse.
    let mut big = PakBuilder::new();
    let err = big.insert("big.bin", vec![0u8; (bspkit::lumps::pakfile::DEFAULT_MAX_ENTRY + 1) as usize]).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::LimitExceeded { .. }));
    std::fs::remove_dir_all(&d).unwrap();
}

/// Item 10: external lumps are budgeted per map (all files together), and special files
/// beside a map are refused rather than read.
#[test]
fn external_lumps_budgeted_and_special_files_refused() {
    let d = temp_dir("ext");
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let map = BspBuilder::new(&SOURCE).lump(0, ents).lump(8, vec![0u8; 16]).build();
    let path = d.join("m.bsp");
    std::fs::write(&path, &map).unwrap();
    for i in [1u32, 8] {
        std::fs::write(bspkit::lmp::lmp_path(&path, i), bspkit::lmp::write_lmp(i, 0, 0, &[7u8; 4000]).unwrap()).unwrap();
    }
    let small = OpenOptions { max_external: 6000, ..Default::default() };
    let err = Bsp::open_with(&path, &small).err().expect("two 4 KB .lmp files under a 6 KB budget");
    assert_eq!(err.kind.name(), "limit_exceeded", "{err}");
    assert!(Bsp::open_with(&path, &OpenOptions { max_external: 9000, ..Default::default() }).is_ok());

    // A `.lmp` that is a link to /dev/zero is refused with a message, never read forever.
    std::fs::remove_file(bspkit::lmp::lmp_path(&path, 1)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", bspkit::lmp::lmp_path(&path, 1)).unwrap();
    let err = Bsp::open(&path).err().expect("a device sibling is refused");
    assert_eq!(err.kind.name(), "not_regular_file", "{err}");
    assert!(err.to_string().contains("character device"), "{err}");
    // Without external lumps the map itself opens.
    assert!(Bsp::open_with(&path, &OpenOptions { external_lumps: false, ..Default::default() }).is_ok());
    std::fs::remove_dir_all(&d).unwrap();
}

/// Item 10: Respawn partition names from the map are never joined into paths unchecked.
#[test]
fn respawn_partition_names_are_checked() {
    use bspkit::branches::respawn::is_safe_kind;
    for bad in ["/../../secret", "..", "a/b", "a\\b", "x..y", ""] {
        assert!(!is_safe_kind(bad), "{bad:?}");
    }
    for good in ["env", "fx", "script", "snd", "spawn", "a-b_c.d"] {
        assert!(is_safe_kind(good), "{good:?}");
    }
}

/// Item 11: a map truncated by another process while it is read gives no SIGBUS: maps up to
/// `MAP_READ_LIMIT` are read into memory, so the opened map keeps its bytes.
#[test]
fn truncation_while_reading_is_harmless() {
    let d = temp_dir("trunc");
    let path = d.join("m.bsp");
    let bytes = bspkit::build::sample_quake1();
    std::fs::write(&path, &bytes).unwrap();
    let bsp = Bsp::open(&path).unwrap();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(0).unwrap();
    for e in bsp.lumps() {
        bsp.lump(e.index).unwrap();
    }
    assert_eq!(bsp.data(), &bytes[..]);
    std::fs::remove_dir_all(&d).unwrap();
}
