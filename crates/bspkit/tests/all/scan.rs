//! `bspkit::scan` over the real-map corpus and over builder-made maps inside a `.pk3`.

use crate::common;

use std::io::Write;
use std::path::Path;

use bspkit::scan::{self, ScanOptions};

fn temp_dir(name: &str) -> common::Scratch {
    common::scratch(&format!("scan-{name}"))
}

fn write_zip(path: &Path, entries: &[(&str, &[u8])]) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        w.start_file(*name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn corpus_every_map_scanned_problems_match_check() {
    let Some(corpus) = common::corpus("corpus_every_map_scanned_problems_match_check") else { return };
    let (files, failed_dirs) = scan::collect_files(std::slice::from_ref(&corpus));
    assert!(failed_dirs.is_empty(), "{failed_dirs:?}");
    // External lump files are loaded by Bsp::open, never listed on their own.
    assert!(files.iter().all(|f| scan::is_map_file(f) || scan::is_archive(f)), "{files:?}");
    let records = scan::scan_files(&files, &ScanOptions::default(), |_, _| {});
    for m in common::maps(&corpus) {
        let path = m.path.to_string_lossy().into_owned();
        let rec = records.iter().find(|r| r.path == path).unwrap_or_else(|| panic!("{path} was not scanned"));
        assert!(rec.error.is_none(), "{path}: {:?}", rec.error);
        // The scan reports exactly what `bsp check` reports for the same map.
        let bsp = bspkit::Bsp::open(&m.path).unwrap();
        assert_eq!(rec.problems, bspkit::check::check(&bsp), "{path}");
        assert_eq!(rec.branch, Some(bsp.branch().id));
        let l = rec.lumps.unwrap();
        assert_eq!(l.count, bsp.lumps().len());
        assert_eq!(l.non_empty, bsp.lumps().iter().filter(|e| e.length > 0).count());
        // The generic decoder walks the whole map; no decode error on a map check accepts.
        let c = scan::decode_all(&bsp);
        assert_eq!(c.lumps, bsp.lumps().len(), "{path}");
        if rec.problems.is_empty() {
            assert_eq!(c.errors, 0, "{path}: {c:?}");
        }
    }
    let s = scan::summarize(&records);
    assert_eq!(s.maps, records.len());
    assert_eq!(s.failed, 0);
}

#[test]
fn pk3_entries_are_scanned() {
    let dir = temp_dir("pk3");
    let good = bspkit::build::sample_quake1();
    write_zip(&dir.join("pak0.pk3"), &[("maps/a.bsp", &good), ("maps/readme.txt", b"not a map"), ("maps/broken.BSP", b"garbage!garbage!")]);
    // A nested directory and a stray external-lump file, which must not be listed.
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/b.bsp"), &good).unwrap();
    std::fs::write(dir.join("sub/b.bsp.0000.bsp_lump"), b"x").unwrap();
    let (files, _) = scan::collect_files(&[dir.to_path_buf()]);
    assert_eq!(files.len(), 2, "{files:?}");
    let recs = scan::scan_files(&files, &ScanOptions::default(), |_, _| {});
    assert_eq!(recs.len(), 3, "{recs:?}");
    let a = recs.iter().find(|r| r.entry.as_deref() == Some("maps/a.bsp")).unwrap();
    assert!(a.ok(), "{a:?}");
    assert_eq!((a.branch, a.size), (Some("quake1"), good.len() as u64));
    let broken = recs.iter().find(|r| r.entry.as_deref() == Some("maps/broken.BSP")).unwrap();
    assert_eq!(broken.error.as_ref().map(|e| e.kind), Some("unknown_format"));
    let b = recs.iter().find(|r| r.entry.is_none()).unwrap();
    assert!(b.ok() && b.path.ends_with("b.bsp"), "{b:?}");

    // An entry larger than the cap is refused without reading it.
    let small = ScanOptions { max_archive_entry: 16, ..ScanOptions::default() };
    let recs = scan::scan_file(&dir.join("pak0.pk3"), &small);
    let a = recs.iter().find(|r| r.entry.as_deref() == Some("maps/a.bsp")).unwrap();
    assert_eq!(a.error.as_ref().map(|e| e.kind), Some("limit_exceeded"));

    // Not a zip at all: one failed record, no panic.
    std::fs::write(dir.join("bad.zip"), b"PK\x03\x04 truncated").unwrap();
    let recs = scan::scan_file(&dir.join("bad.zip"), &ScanOptions::default());
    assert_eq!(recs.len(), 1);
    assert!(recs[0].error.is_some());
}
