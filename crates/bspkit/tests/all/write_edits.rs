//! Random lump edits on every corpus map (deterministic PRNG). After each edit the new file is
//! reopened and: every other lump's bytes are the same (the game lump after undoing its offset
//! rebase), the directory is consistent (lumps inside the file, aligned as before, not
//! overlapping), `check` finds no new problem, and for Source maps an entity-only edit keeps
//! the map checksum (source.md §25). Edits chain: each starts from the previous result.

use crate::common;

use std::collections::BTreeMap;

use bspkit::branch::{HeaderKind, LumpKind};
use bspkit::edit::Editor;
use bspkit::lumps::entities::EditEntity;
use bspkit::write::{self, GameLumpOffsets, GAME_LUMP};
use bspkit::{Bsp, Family, OpenOptions};

/// SplitMix64: small, deterministic, good enough to pick edits.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn open<'a>(bytes: &'a [u8], branch: &str) -> Bsp<'a> {
    Bsp::from_bytes_with(bytes, &OpenOptions { branch: Some(branch.into()), external_lumps: false, ..Default::default() }).unwrap()
}

/// Stored bytes of every lump of the file itself, by index, with their offsets.
fn lumps(bsp: &Bsp) -> BTreeMap<usize, (u64, Vec<u8>)> {
    bsp.lumps().iter().map(|e| (e.index, (e.offset, bsp.raw_lump(e.index).unwrap().to_vec()))).collect()
}

/// BSPX lumps after the last lump (quake_facts.md §2): name → bytes, read through their absolute offsets.
fn bspx(bsp: &Bsp) -> Vec<(Vec<u8>, Vec<u8>)> {
    let d = bsp.data();
    let end = bsp.lumps().iter().map(|e| e.offset + e.length).max().unwrap_or(0) as usize;
    let at = (end + 3) & !3;
    if d.get(at..at + 4) != Some(b"BSPX") {
        return Vec::new();
    }
    let rd = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap()) as usize;
    (0..rd(at + 4))
        .map(|i| {
            let e = at + 8 + 32 * i;
            (d[e..e + 24].to_vec(), d[rd(e + 24)..rd(e + 24) + rd(e + 28)].to_vec())
        })
        .collect()
}

#[derive(Debug)]
enum Edit {
    Entities,
    DuplicateLastRecord(usize),
    AppendBytes(usize, usize),
    Empty(usize),
    NewLump(usize),
}

fn pick_edit(bsp: &Bsp, rng: &mut Rng) -> Option<Edit> {
    let kind = bsp.branch().header;
    let candidates: Vec<usize> = bsp.lumps().iter().map(|e| e.index).collect();
    for _ in 0..20 {
        let roll = rng.below(10);
        if roll < 3 && bsp.entities_index().is_some() && bsp.entities().is_ok() {
            return Some(Edit::Entities);
        }
        if kind == HeaderKind::CodLumpList && roll == 7 {
            // An id the list does not have: the directory grows by one entry. The id is one
            // without a record layout (an obsolete id, or past the table): bytes of 7 in a
            // typed lump would be content that `check` rightly calls broken.
            let untyped = |i: usize| bsp.branch().lumps.get(i).map_or(true, |d| d.kind == LumpKind::Raw);
            if let Some(id) = (0..64).find(|&i| bsp.entry(i).is_none() && untyped(i)) {
                return Some(Edit::NewLump(id));
            }
        }
        let index = candidates[rng.below(candidates.len())];
        let len = bsp.lump(index).map(|l| l.len()).unwrap_or(0);
        let def = bsp.branch().lumps.get(index).map(|d| d.kind).unwrap_or(LumpKind::Raw);
        match def {
            LumpKind::Records { .. } if len > 0 && bsp.record_size(index).is_some_and(|s| len % s == 0) => {
                return Some(Edit::DuplicateLastRecord(index))
            }
            LumpKind::Raw if index != GAME_LUMP && index != 40 => {
                if roll >= 8 && len > 0 {
                    return Some(Edit::Empty(index));
                }
                return Some(Edit::AppendBytes(index, 1 + rng.below(9)));
            }
            _ => {}
        }
    }
    None
}

fn edit_entities(ed: &mut Editor, rng: &mut Rng) {
    let mut doc = ed.entities().unwrap();
    match rng.below(3) {
        0 if doc.len() > 1 => {
            let victim = 1 + rng.below(doc.len() - 1);
            let mut i = 0;
            doc.remove_where(|_| {
                i += 1;
                i - 1 == victim
            });
        }
        1 => doc.push(EditEntity::new([("classname", "info_target"), ("targetname", &format!("t{}", rng.next() % 1000))]).unwrap()),
        _ if !doc.is_empty() => {
            let i = rng.below(doc.len());
            doc.entities[i].set("bspkit_test", &"x".repeat(rng.below(40))).unwrap();
        }
        _ => doc.push(EditEntity::new([("classname", "worldspawn")]).unwrap()),
    }
    ed.set_entities(&doc).unwrap();
}

#[test]
fn random_edits_move_only_what_must_move() {
    let Some(corpus) = common::corpus("random_edits_move_only_what_must_move") else { return };
    let mut rng = Rng(0x05EE_DB5B);
    let mut total = 0;
    let mut game_lump_moves = 0;
    let mut checksums = 0;
    let mut bspx_checked = 0;
    let mut by_kind = BTreeMap::new();
    for m in common::maps(&corpus) {
        let original = std::fs::read(&m.path).unwrap();
        let branch = Bsp::from_bytes(&original).map(|b| b.branch().id).unwrap_or("quake1");
        let branch = open(&original, branch).branch().id;
        let mut current = original;
        let edits = if current.len() > 2_000_000 { 4 } else { 10 };
        for step in 0..edits {
            let bsp = open(&current, branch);
            let Some(edit) = pick_edit(&bsp, &mut rng) else { break };
            let ctx = format!("{} step {step} {edit:?}", m.path.display());
            let before_lumps = lumps(&bsp);
            let before_bspx = bspx(&bsp);
            let before_problems: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| write::problem_shape(&p.to_string())).collect();
            let aligned = bsp.lumps().iter().all(|e| e.length == 0 || e.offset % 4 == 0);
            let gl_conv = before_lumps
                .get(&GAME_LUMP)
                .filter(|_| matches!(bsp.family(), Family::Source | Family::Respawn))
                .and_then(|(o, b)| write::game_lump_convention(b, bsp.endian(), *o));
            let mut ed = Editor::new(&bsp).unwrap();
            let touched: Vec<usize> = match edit {
                Edit::Entities => {
                    edit_entities(&mut ed, &mut rng);
                    ed.changed().collect()
                }
                Edit::DuplicateLastRecord(i) => {
                    let size = bsp.record_size(i).unwrap();
                    let mut data = ed.lump(i).unwrap().into_owned();
                    let last = data[data.len() - size..].to_vec();
                    data.extend_from_slice(&last);
                    ed.set_lump(i, data).unwrap();
                    vec![i]
                }
                Edit::AppendBytes(i, n) => {
                    let mut data = ed.lump(i).unwrap().into_owned();
                    data.extend((0..n).map(|_| rng.next() as u8));
                    ed.set_lump(i, data).unwrap();
                    vec![i]
                }
                Edit::Empty(i) => {
                    ed.remove_lump(i).unwrap();
                    vec![i]
                }
                Edit::NewLump(i) => {
                    ed.set_lump(i, vec![7u8; 5 + rng.below(7)]).unwrap();
                    vec![i]
                }
            };
            let expected: BTreeMap<usize, Vec<u8>> = touched.iter().map(|&i| (i, ed.lump(i).unwrap().into_owned())).collect();
            let out = ed.to_bytes().unwrap_or_else(|e| panic!("{ctx}: {e}"));
            drop(ed);
            let nb = open(&out, branch);
            // Directory consistent: inside the file (checked by opening), aligned, no overlap.
            let mut spans: Vec<(u64, u64)> = nb.lumps().iter().filter(|e| e.length > 0).map(|e| (e.offset, e.offset + e.length)).collect();
            spans.sort();
            assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "{ctx}: overlapping lumps");
            if aligned {
                assert!(nb.lumps().iter().all(|e| e.length == 0 || e.offset % 4 == 0), "{ctx}: alignment lost");
            }
            let after = lumps(&nb);
            for (i, (old_ofs, old)) in &before_lumps {
                if touched.contains(i) {
                    continue;
                }
                let (new_ofs, new) = after.get(i).unwrap_or_else(|| panic!("{ctx}: lump {i} vanished"));
                if *i == GAME_LUMP && gl_conv == Some(GameLumpOffsets::Absolute) && new_ofs != old_ofs {
                    let mut undone = new.clone();
                    write::rebase_game_lump(&mut undone, nb.endian(), *old_ofs as i64 - *new_ofs as i64).unwrap();
                    assert_eq!(&undone, old, "{ctx}: game lump differs beyond its offsets");
                    game_lump_moves += 1;
                    assert_eq!(write::game_lump_convention(new, nb.endian(), *new_ofs), Some(GameLumpOffsets::Absolute), "{ctx}");
                } else {
                    assert!(new == old, "{ctx}: lump {i} changed");
                }
            }
            if !before_bspx.is_empty() {
                assert_eq!(bspx(&nb), before_bspx, "{ctx}: BSPX lumps differ");
                bspx_checked += 1;
            }
            for (i, data) in &expected {
                assert_eq!(nb.lump(*i).unwrap(), &data[..], "{ctx}: edited lump {i}");
            }
            let problems: Vec<String> = bspkit::check::check(&nb)
                .iter()
                .map(|p| p.to_string())
                .filter(|p| !before_problems.contains(&write::problem_shape(p)))
                .collect();
            // One more record in a table that other tables count or run parallel to (Source
            // leaves and their ambient index, CoD brush edges and their counts, …), or an emptied
            // lump that others point into, is a mismatch the edit itself makes: there, only what
            // the writer answers for is checked — every lump still reads (inside the file,
            // decompresses) — and content problems are allowed.
            let problems: Vec<String> = if matches!(edit, Edit::DuplicateLastRecord(_) | Edit::Empty(_)) {
                nb.lumps().iter().filter_map(|e| nb.lump(e.index).err().map(|err| format!("lump {}: {err}", e.index))).collect()
            } else {
                problems
            };
            assert!(problems.is_empty(), "{ctx}: new problems {problems:?}");
            if bsp.family() == Family::Source && matches!(edit, Edit::Entities) {
                assert_eq!(write::map_checksum(&nb).unwrap(), write::map_checksum(&bsp).unwrap(), "{ctx}: map checksum changed");
                checksums += 1;
            }
            *by_kind.entry(format!("{:?}", edit).split('(').next().unwrap().to_string()).or_insert(0) += 1;
            total += 1;
            current = out;
        }
    }
    eprintln!("{total} edits checked: {by_kind:?}; game lump moved {game_lump_moves}×; {checksums} Source checksums kept");
    assert!(game_lump_moves > 0 && checksums > 0 && bspx_checked > 0, "{bspx_checked} BSPX checks");
    assert!(total >= 150, "only {total} edits");
    for k in ["Entities", "DuplicateLastRecord", "AppendBytes", "Empty", "NewLump"] {
        assert!(by_kind.contains_key(k), "no {k} edit was drawn: {by_kind:?}");
    }
}
