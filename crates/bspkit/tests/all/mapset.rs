//! `bspkit::mapset` on a builder-made Respawn set (no corpus needed): an entity edit of an
//! external entity lump goes to its `.bsp_lump`, a new name gets the whole set renamed, folding
//! puts the external bytes in the `.bsp`, and maps that are not sets are refused.

use std::path::PathBuf;

use bspkit::branches::respawn::{self, LUMP_ENTITIES, LUMP_ENTITY_PARTITIONS};
use bspkit::build::BspBuilder;
use bspkit::directory::LumpOrigin;
use bspkit::edit::Editor;
use bspkit::mapset::{split_external, split_plan, write_set, MapSet, SetOptions};

use crate::common;
use bspkit::Bsp;

fn scratch(name: &str) -> common::Scratch {
    common::scratch(&format!("mapset-lib-{name}"))
}

const INSIDE: &[u8] = b"{\n\"classname\" \"worldspawn\"\n}\n\0";
const EXTERNAL: &[u8] = b"{\n\"classname\" \"worldspawn\"\n\"message\" \"external\"\n}\n\0";
const ENV: &[u8] = b"ENTITIES01\n{\n\"classname\" \"info_target\"\n}\n\0";

/// `m.bsp` whose entity lump lives in `m.bsp.0000.bsp_lump`, with an `env` partition.
fn make_set(dir: &std::path::Path) -> PathBuf {
    make_set_named(dir, "m")
}

/// `<name>.bsp`, as [`make_set`] makes `m.bsp`.
fn make_set_named(dir: &std::path::Path, name: &str) -> PathBuf {
    common::respawn_external_set(dir, name, INSIDE, EXTERNAL, ENV)
}

fn edit_message(ed: &mut Editor, value: &str) {
    let mut doc = ed.entities().unwrap();
    doc.entities[0].set("message", value).unwrap();
    ed.set_entities(&doc).unwrap();
}

#[test]
fn builder_set_edit_rename_fold() {
    let d = scratch("set");
    let map = make_set(&d);
    let bsp = Bsp::open(&map).unwrap();
    let set = MapSet::of(&bsp).unwrap();
    assert_eq!(set.lumps.len(), 1);
    assert_eq!(set.partitions.len(), 1);

    // Edits start from the external bytes and go to the external file under the new name.
    let mut ed = Editor::new(&bsp).unwrap();
    assert!(ed.entities().unwrap().entities[0].get("message").is_some_and(|v| v == "external"));
    edit_message(&mut ed, "renamed");
    let new = d.join("n.bsp");
    // Written as the `.bsp` alone, the edit would be lost: refused, naming the file.
    let e = ed.write(&d.join("alone.bsp")).unwrap_err();
    assert!(e.to_string().contains("m.bsp.0000.bsp_lump"), "{e}");
    assert!(!d.join("alone.bsp").exists());
    let report = write_set(&mut ed, &new, &SetOptions::default()).unwrap();
    assert_eq!(report.written.last(), Some(&new), "the .bsp is written last");
    assert_eq!(report.written.len(), 3);
    let ext = std::fs::read(d.join("n.bsp.0000.bsp_lump")).unwrap();
    assert!(String::from_utf8_lossy(&ext).contains("\"renamed\""));
    assert_eq!(std::fs::read(d.join("n_env.ent")).unwrap(), ENV);
    let back = Bsp::open(&new).unwrap();
    assert!(matches!(back.entry(LUMP_ENTITIES).unwrap().origin, LumpOrigin::BspLump(_)));
    // The `.bsp`'s own copy agrees with its `.bsp_lump`.
    let alone = Bsp::open_with(&new, &bspkit::OpenOptions { external_lumps: false, ..Default::default() }).unwrap();
    assert_eq!(alone.raw_lump(LUMP_ENTITIES).unwrap(), ext.as_slice());
    // The source set is untouched.
    assert_eq!(std::fs::read(d.join("m.bsp.0000.bsp_lump")).unwrap(), EXTERNAL);
    drop(ed);

    // Unchanged, in place: the set's files are as they were.
    let before: Vec<Vec<u8>> = ["m.bsp", "m.bsp.0000.bsp_lump", "m_env.ent"].iter().map(|n| std::fs::read(d.join(n)).unwrap()).collect();
    let mut ed = Editor::new(&bsp).unwrap();
    let report = write_set(&mut ed, &map, &SetOptions::default()).unwrap();
    assert_eq!(report.written, vec![map.clone()]);
    let after: Vec<Vec<u8>> = ["m.bsp", "m.bsp.0000.bsp_lump", "m_env.ent"].iter().map(|n| std::fs::read(d.join(n)).unwrap()).collect();
    assert_eq!(before, after);
    drop(ed);

    // Folded: one file holding the external bytes, the partition kept.
    let mut ed = Editor::new(&bsp).unwrap();
    let folded = d.join("f.bsp");
    write_set(&mut ed, &folded, &SetOptions { fold_external: true, ..Default::default() }).unwrap();
    assert!(!d.join("f.bsp.0000.bsp_lump").exists());
    assert!(d.join("f_env.ent").exists());
    let one = Bsp::open(&folded).unwrap();
    assert_eq!(one.entry(LUMP_ENTITIES).unwrap().origin, LumpOrigin::File);
    assert_eq!(one.raw_lump(LUMP_ENTITIES).unwrap(), EXTERNAL);
}

#[test]
fn maps_that_are_not_sets_are_refused() {
    let bytes = BspBuilder::new(&respawn::TITANFALL2).version(37).lump(LUMP_ENTITIES, INSIDE.to_vec()).build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let e = write_set(&mut ed, std::path::Path::new("x.bsp"), &SetOptions::default()).unwrap_err();
    assert!(e.to_string().contains("memory"), "{e}");
    let q = bspkit::build::sample_quake1();
    let bsp = Bsp::from_bytes(&q).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let e = write_set(&mut ed, std::path::Path::new("x.bsp"), &SetOptions::default()).unwrap_err();
    assert!(e.to_string().contains("Respawn"), "{e}");
}

#[test]
fn edited_partitions_are_written_in_place_and_renamed() {
    let d = scratch("partitions");
    // (Names that are no part of the scratch path: `check`'s problems are compared with the
    // map's name blanked out of them.)
    let map = make_set_named(&d, "partmap");
    let bsp = Bsp::open(&map).unwrap();
    let part = respawn::entity_partitions(&bsp).unwrap().remove(0);
    let mut doc = part.doc().unwrap();
    doc.entities[0].set("targetname", "spot").unwrap();
    let edited = part.with_doc(&doc);
    assert_ne!(edited, ENV);
    let opts = SetOptions { partitions: [("env".to_string(), edited.clone())].into(), ..Default::default() };

    // Under a new name: the renamed partition holds the edit, the source's is untouched.
    let mut ed = Editor::new(&bsp).unwrap();
    let new = d.join("renamed.bsp");
    let report = write_set(&mut ed, &new, &opts).unwrap();
    assert!(report.written.contains(&d.join("renamed_env.ent")));
    assert_eq!(std::fs::read(d.join("renamed_env.ent")).unwrap(), edited);
    assert_eq!(std::fs::read(d.join("partmap_env.ent")).unwrap(), ENV);
    drop(ed);

    // In place: the partition's file is replaced, the other files are as they were.
    let mut ed = Editor::new(&bsp).unwrap();
    let report = write_set(&mut ed, &map, &opts).unwrap();
    assert_eq!(report.written, vec![d.join("partmap_env.ent"), map.clone()]);
    let back = respawn::entity_partitions(&Bsp::open(&map).unwrap()).unwrap();
    assert_eq!(back[0].entities().unwrap().list[0].get("targetname").as_deref(), Some("spot"));
    assert_eq!(std::fs::read(d.join("partmap.bsp.0000.bsp_lump")).unwrap(), EXTERNAL);
    drop(ed);

    // A kind the set lacks, or bytes that are not a partition, are refused before any write.
    let mut ed = Editor::new(&bsp).unwrap();
    let nope = SetOptions { partitions: [("fx".to_string(), ENV.to_vec())].into(), ..Default::default() };
    let e = write_set(&mut ed, &map, &nope).unwrap_err();
    assert!(e.to_string().contains("\"fx\""), "{e}");
    let bad = SetOptions { partitions: [("env".to_string(), b"not a partition".to_vec())].into(), ..Default::default() };
    assert!(write_set(&mut ed, &map, &bad).is_err());
    assert_eq!(std::fs::read(d.join("partmap_env.ent")).unwrap(), edited);
}

/// An Apex streaming set as the real `mp_lobby` of season 13 is laid out (issue 22): the `.bsp`
/// is the 2064-byte header alone, every non-empty lump lives in a `.bsp_lump`, the directory
/// offsets run on as if the lumps were concatenated after the header, and empty lumps carry
/// such an offset too (past the end of the `.bsp`).
fn make_streaming_set(dir: &std::path::Path, name: &str) -> PathBuf {
    let full = BspBuilder::new(&respawn::APEX)
        .version(51 | 1 << 16)
        .lump(LUMP_ENTITIES, EXTERNAL.to_vec())
        .lump(LUMP_ENTITY_PARTITIONS, b"01* env\0".to_vec())
        .build();
    let full_bsp = Bsp::from_bytes(&full).unwrap();
    let mut header = full[..16 + 128 * 16].to_vec();
    for e in full_bsp.lumps().iter().filter(|e| e.length > 0) {
        assert!(e.offset >= header.len() as u64, "the builder puts lumps after the header");
        std::fs::write(dir.join(format!("{name}.bsp.{:04x}.bsp_lump", e.index)), full_bsp.raw_lump(e.index).unwrap()).unwrap();
    }
    // Empty lumps whose offsets point past the end (as PACKED_VERTICES, WATER_BODIES... do).
    for (index, offset) in [(respawn::LUMP_PACKED_VERTICES, 40536u32), (respawn::LUMP_WATER_BODIES, 5943300)] {
        header[16 + 16 * index..16 + 16 * index + 4].copy_from_slice(&offset.to_le_bytes());
    }
    let map = dir.join(format!("{name}.bsp"));
    std::fs::write(&map, header).unwrap();
    std::fs::write(dir.join(format!("{name}_env.ent")), ENV).unwrap();
    map
}

#[test]
fn apex_streaming_set_reads_checks_and_rewrites() {
    let d = scratch("streaming");
    let map = make_streaming_set(&d, "lobby");
    assert_eq!(std::fs::metadata(&map).unwrap().len(), 2064);
    let bsp = Bsp::open(&map).unwrap();
    assert_eq!(bsp.branch().id, "apex");
    // Empty lumps are empty wherever their offsets point: no `lump_unreadable`.
    assert_eq!(bsp.raw_lump(respawn::LUMP_WATER_BODIES).unwrap(), b"");
    let problems: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect();
    assert!(problems.is_empty(), "{problems:?}");
    // The `.bsp` alone does not open: its lumps are elsewhere.
    let alone = Bsp::open_with(&map, &bspkit::OpenOptions { external_lumps: false, ..Default::default() });
    assert!(alone.err().expect("the .bsp alone must not open").to_string().contains("ENTITIES"));

    // Rewritten under a new name: every file of the set, byte for byte.
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let report = write_set(&mut ed, &out.join("lobby.bsp"), &SetOptions::default()).unwrap();
    assert_eq!(report.written.len(), 4, "{:?}", report.written);
    for name in ["lobby.bsp", "lobby.bsp.0000.bsp_lump", "lobby.bsp.0018.bsp_lump", "lobby_env.ent"] {
        assert_eq!(std::fs::read(d.join(name)).unwrap(), std::fs::read(out.join(name)).unwrap(), "{name}");
    }
    drop(ed);

    // An edit in place: the `.bsp_lump` holds it, the header's length follows, nothing else moves.
    let before = std::fs::read(&map).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    edit_message(&mut ed, "streamed");
    let new_len = ed.raw_lump(LUMP_ENTITIES).unwrap().len();
    write_set(&mut ed, &map, &SetOptions::default()).unwrap();
    drop(ed);
    let after = std::fs::read(&map).unwrap();
    assert_eq!(after.len(), 2064);
    assert_eq!(u32::from_le_bytes(after[20..24].try_into().unwrap()) as usize, new_len);
    assert_eq!(before[..20], after[..20]);
    assert_eq!(before[24..], after[24..]);
    let back = Bsp::open(&map).unwrap();
    assert!(String::from_utf8_lossy(back.raw_lump(LUMP_ENTITIES).unwrap()).contains("\"streamed\""));

    // A lump the set had no file for gets a `.bsp_lump` (the game reads nothing from the `.bsp`).
    let mut ed = Editor::new(&back).unwrap();
    ed.set_raw_lump(respawn::LUMP_PACKED_VERTICES, vec![0; 16], None, None).unwrap();
    write_set(&mut ed, &out.join("more.bsp"), &SetOptions { allow_new_problems: true, ..Default::default() }).unwrap();
    assert_eq!(std::fs::read(out.join("more.bsp.0014.bsp_lump")).unwrap(), vec![0; 16]);

    // Folding has no layout to put the lumps back in: refused, nothing written.
    let mut ed = Editor::new(&back).unwrap();
    let e = write_set(&mut ed, &d.join("folded.bsp"), &SetOptions { fold_external: true, ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("streaming"), "{e}");
    assert!(!d.join("folded.bsp").exists());
}

/// Every file name in `dir` with its bytes, sorted.
fn files_of(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    v.sort();
    v
}

/// Fold a set into one `.bsp`, split it again by the set's plan: the same files, byte for byte.
fn fold_and_split(map: &std::path::Path, work: &std::path::Path) -> (usize, Vec<(String, Vec<u8>)>) {
    let name = map.file_name().unwrap();
    let bsp = Bsp::open(map).unwrap();
    let plan = split_plan(&bsp).unwrap();
    let (folded_dir, split_dir) = (work.join("folded"), work.join("split"));
    std::fs::create_dir_all(&folded_dir).unwrap();
    std::fs::create_dir_all(&split_dir).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    write_set(&mut ed, &folded_dir.join(name), &SetOptions { fold_external: true, ..Default::default() }).unwrap();
    drop(ed);
    assert!(files_of(&folded_dir).iter().all(|(n, _)| !n.ends_with(".bsp_lump")), "folded: no .bsp_lump");
    let folded = Bsp::open(folded_dir.join(name)).unwrap();
    assert!(folded.lumps().iter().all(|e| e.origin == LumpOrigin::File));
    let report = split_external(&folded, &split_dir.join(name), &plan).unwrap();
    assert_eq!(report.written.last().unwrap(), &split_dir.join(name), "the .bsp is written last");
    (plan.len(), files_of(&split_dir))
}

/// The builder set: folded then split, the set's three files are back, byte for byte (the
/// `.bsp` holds the external bytes once folded: its in-file copy differed).
#[test]
fn builder_set_folds_and_splits_back() {
    let d = scratch("split");
    let map = make_set(&d);
    let work = d.join("work");
    let (n, files) = fold_and_split(&map, &work);
    assert_eq!(n, 1);
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["m.bsp", "m.bsp.0000.bsp_lump", "m_env.ent"]);
    assert_eq!(files[1].1, EXTERNAL);
    assert_eq!(files[2].1, ENV);
    // The `.bsp` differs from the source's (its entity lump was the in-file copy); it holds the
    // external bytes, and the split set reads as the source set does.
    let back = Bsp::open(work.join("split/m.bsp")).unwrap();
    assert_eq!(back.raw_lump(LUMP_ENTITIES).unwrap(), EXTERNAL);

    // Refusals: a lump already external, a length past the end, a stray `.bsp_lump` beside the
    // target; nothing written.
    let set = Bsp::open(&map).unwrap();
    let e = split_external(&set, &d.join("x.bsp"), &[(LUMP_ENTITIES, None)]).unwrap_err();
    assert!(e.to_string().contains("already loaded from an external file"), "{e}");
    let folded = Bsp::open(work.join("folded/m.bsp")).unwrap();
    let e = split_external(&folded, &d.join("x.bsp"), &[(LUMP_ENTITIES, Some(1 << 20))]).unwrap_err();
    assert!(e.to_string().contains("fewer than"), "{e}");
    std::fs::write(d.join("x.bsp.0001.bsp_lump"), b"stray").unwrap();
    let e = split_external(&folded, &d.join("x.bsp"), &[(LUMP_ENTITIES, None)]).unwrap_err();
    assert!(e.to_string().contains("x.bsp.0001.bsp_lump"), "{e}");
    assert!(!d.join("x.bsp").exists() && !d.join("x.bsp.0000.bsp_lump").exists());
}

/// Every corpus Respawn map that comes with `.bsp_lump` files: folded into one `.bsp` and split
/// again, every file of the set is back byte-identical (mp_looby: 64 `.bsp_lump`, 5 `.ent`;
/// lump 0x69's file is the start of its in-file copy, which folding keeps and the plan cuts).
#[test]
fn corpus_respawn_sets_fold_and_split_back_byte_identical() {
    let Some(corpus) = common::corpus("corpus_respawn_sets_fold_and_split_back_byte_identical") else { return };
    let mut sets = 0;
    for (k, m) in common::maps_in(&corpus, "respawn").iter().enumerate() {
        let bsp = Bsp::open(&m.path).unwrap();
        if MapSet::of(&bsp).unwrap().lumps.is_empty() {
            continue;
        }
        let d = scratch(&format!("corpus-split-{k}"));
        let (n, files) = fold_and_split(&m.path, &d);
        let stem = m.path.file_stem().unwrap().to_string_lossy().to_string();
        let originals = files_of(m.path.parent().unwrap());
        let originals: Vec<_> =
            originals.into_iter().filter(|(f, _)| f.starts_with(&format!("{stem}.")) || f.starts_with(&format!("{stem}_"))).collect();
        assert_eq!(files.len(), originals.len(), "{}", m.path.display());
        for ((a, x), (b, y)) in files.iter().zip(&originals) {
            assert_eq!(a, b);
            assert!(x == y, "{a}: {} bytes back, {} in the corpus", x.len(), y.len());
        }
        eprintln!("{}: {n} .bsp_lump, {} files, byte-identical", m.path.display(), files.len());
        sets += 1;
    }
    assert!(sets >= 1);
}
