//! Decompile one map and print what it took: `cargo run --release -p bspkit --example
//! decompile_time -- MAP [--no-measure] [--no-clip-brushes]`. Run it under `/usr/bin/time` (or
//! `perf stat`) for the process's CPU time; the line printed is the decompile's own wall time
//! (without reading the file), its brushes and clip brushes. How the README's release timings
//! were measured.

use bspkit::decompile::{decompile, DecompileOptions};
use bspkit::Bsp;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: decompile_time MAP [--no-measure] [--no-clip-brushes]");
        std::process::exit(2);
    };
    let mut opts = DecompileOptions::default();
    for a in args {
        match a.as_str() {
            "--no-measure" => opts.measure = false,
            "--no-clip-brushes" => opts.clip_brushes = false,
            other => {
                eprintln!("unknown option {other}");
                std::process::exit(2);
            }
        }
    }
    let bsp = match Bsp::open(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let t = std::time::Instant::now();
    match decompile(&bsp, &opts) {
        Ok(d) => {
            let clip = d.report.quality.as_ref().and_then(|q| q.tree.as_ref()).map_or(0, |t| t.clip_brushes);
            println!("{path}\t{:.1} ms\t{} brushes\t{clip} clip", t.elapsed().as_secs_f64() * 1e3, d.report.brushes);
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
