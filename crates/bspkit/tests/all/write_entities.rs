//! Entity writing on the corpus: every entity lump re-serialises to its exact bytes, an edit
//! re-serialises only the edited entity, and a Stripper config written by `stripper::diff`
//! turns the original entities into the edited ones.

use crate::common;

use bspkit::edit::Editor;
use bspkit::lumps::entities::{EditEntity, EntityDoc};
use bspkit::stripper::{self, Config};
use bspkit::Bsp;

#[test]
fn entity_lumps_round_trip_and_diff_to_stripper() {
    let Some(corpus) = common::corpus("entity_lumps_round_trip_and_diff_to_stripper") else { return };
    let mut lumps = 0;
    let (mut patched, mut inexpressible) = (0, 0);
    let mut seed = 7u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for m in common::maps(&corpus) {
        let bsp = Bsp::open_with(&m.path, &bspkit::OpenOptions { external_lumps: false, ..Default::default() }).unwrap();
        let Some(index) = bsp.entities_index() else { continue };
        // Entity text lumps only: Genesis3D's binary entity chunk is round-tripped through its
        // text form in tests/genesis3d.rs.
        if bsp.family() == bspkit::Family::Genesis3D {
            continue;
        }
        let ed = Editor::new(&bsp).unwrap();
        let lump = ed.lump(index).unwrap().into_owned();
        let a = EntityDoc::parse(&lump).unwrap_or_else(|e| panic!("{}: {e}", m.path.display()));
        assert!(a.to_bytes() == lump, "{}: unchanged entities do not reproduce the lump", m.path.display());
        lumps += 1;
        if a.is_empty() {
            continue;
        }
        // One edited entity: everything before it and after it keeps its bytes.
        let k = next() % a.len();
        let mut b = a.clone();
        b.entities[k].set("bspkit_edit", "1").unwrap();
        let out = b.to_bytes();
        let first = out.iter().zip(&lump).position(|(x, y)| x != y).unwrap_or(lump.len().min(out.len()));
        let tail = out.iter().rev().zip(lump.iter().rev()).position(|(x, y)| x != y).unwrap_or(0);
        let changed = out.len() - first - tail;
        assert!(changed <= lump.len() / a.len().max(1) * 4 + 64 || a.len() < 3, "{}: {changed} bytes rewritten", m.path.display());
        // A richer edit, then the config that performs it.
        for _ in 0..3 {
            let i = next() % b.len();
            match next() % 4 {
                0 if i > 0 => {
                    let mut n = 0;
                    b.remove_where(|_| {
                        n += 1;
                        n - 1 == i
                    });
                }
                1 => b.push(EditEntity::new([("classname", "info_target"), ("targetname", "bspkit")]).unwrap()),
                2 => b.entities[i].insert("OnTrigger", "x,Kill,,0,-1").unwrap(),
                _ => {
                    let key = b.entities[i].pairs().next().map(|(k, _)| k.into_owned());
                    if let Some(key) = key {
                        b.entities[i].set(&key, "changed").unwrap();
                    }
                }
            }
        }
        let cfg = match stripper::diff(&a, &b) {
            Ok(c) => c,
            // Empty values cannot be written in a config; such maps are reported, not patched.
            Err(e) if e.to_string().contains("empty value") => {
                inexpressible += 1;
                continue;
            }
            Err(e) => panic!("{}: {e}", m.path.display()),
        };
        let mut sim = a.clone();
        Config::parse(&cfg).unwrap().apply(&mut sim).unwrap();
        assert_eq!(stripper::canonical(&sim), stripper::canonical(&b), "{}:\n{cfg}", m.path.display());
        patched += 1;
    }
    eprintln!("{lumps} entity lumps round-tripped; {patched} diffs applied; {inexpressible} needed an empty value");
    assert!(lumps >= 40, "{lumps} entity lumps");
    assert!(patched >= 20, "{patched} diffs applied");
}
