//! Damaged headers: whatever opens must rewrite to the same bytes, and nothing panics, on
//! small corpus maps and synthetic maps of every branch with random bytes of the header and
//! directory changed (deterministic PRNG). Edits of such files fail cleanly or succeed.

use crate::common;

use bspkit::{Bsp, OpenOptions};

fn mutate_and_rewrite(original: &[u8], branch: &str, seed: &mut u64, rounds: usize) -> (usize, usize) {
    let (mut opened, mut identical) = (0, 0);
    let head = original.len().min(2100);
    for _ in 0..rounds {
        let mut d = original.to_vec();
        for _ in 0..1 + (*seed % 3) as usize {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let at = (*seed >> 33) as usize % head;
            d[at] = (*seed >> 20) as u8;
        }
        let opts = OpenOptions { branch: Some(branch.into()), external_lumps: false, ..Default::default() };
        let Ok(bsp) = Bsp::from_bytes_with(&d, &opts) else { continue };
        opened += 1;
        let r = bspkit::write::rewrite(&bsp);
        if let Err(e) = &r {
            if std::env::var_os("FUZZ_VERBOSE").is_some() {
                eprintln!("{branch}: {e}");
            }
        }
        if let Ok(out) = r {
            if out != d {
                let at = out.iter().zip(&d).position(|(a, b)| a != b);
                let dir: Vec<_> = bsp.lumps().iter().map(|e| (e.index, e.offset, e.length)).collect();
                panic!("{branch}: rewrite differs: lens {} {} first diff {at:?}; dir {dir:?}", out.len(), d.len());
            }
            identical += 1;
        }
        // Edits of damaged files succeed or fail with an error; they never panic.
        let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
        let n = bsp.lumps().len().max(1);
        for k in 0..3 {
            let i = bsp.lumps()[(*seed as usize + k) % n].index;
            let mut data = ed.raw_lump(i).map(|l| l.into_owned()).unwrap_or_default();
            data.extend_from_slice(&[k as u8; 5]);
            let _ = ed.set_raw_lump(i, data, None, None);
        }
        let _ = ed.to_bytes();
    }
    (opened, identical)
}

#[test]
fn damaged_headers_rewrite_identically_or_fail_cleanly() {
    let mut seed = 99u64;
    let mut total = (0, 0);
    for b in bspkit::branches::all() {
        let bytes = bspkit::build::BspBuilder::new(b).lump(0, b"{}\0".to_vec()).lump(1, vec![1u8; 40]).lump(2, vec![2u8; 13]).build();
        let (o, i) = mutate_and_rewrite(&bytes, b.id, &mut seed, 200);
        total = (total.0 + o, total.1 + i);
    }
    if let Some(corpus) = common::corpus("damaged_headers_rewrite_identically_or_fail_cleanly") {
        for m in common::maps(&corpus).into_iter().filter(|m| std::fs::metadata(&m.path).map(|x| x.len() < 300_000).unwrap_or(false)) {
            let bytes = std::fs::read(&m.path).unwrap();
            let branch = Bsp::from_bytes(&bytes).unwrap().branch().id;
            let (o, i) = mutate_and_rewrite(&bytes, branch, &mut seed, 60);
            total = (total.0 + o, total.1 + i);
        }
    }
    eprintln!("{} damaged files opened, {} rewritten identically", total.0, total.1);
    assert!(total.1 > 500);
    assert_eq!(total.0, total.1, "every file that opens rewrites identically");
}
