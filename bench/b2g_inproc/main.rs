//! bsp-to-glb's export, in process, for `export.sh` (issue 8's comparison without process
//! start-up). Not part of the bench workspace: bsp-to-glb is not on crates.io, so `export.sh`
//! writes a Cargo.toml beside its build that points at the checkout in `BSP_TO_GLB_DIR` and at
//! this file.
//!
//! Usage: `b2g_inproc RUNS MAP...`; one JSON line per map, the same fields as the bench
//! programs (`tool`, `map`, `size`, `ok`, `error`, `min_s`, `runs`, `work` = GLB bytes). The
//! call is `export_bsp_with_options` with its default options, which is what its command line
//! runs for `--bsp MAP --out OUT`; the GLB stays in memory (its command line then writes it).
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10);
    for map in args {
        let bytes = match std::fs::read(&map) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{map}: {e}");
                continue;
            }
        };
        let options = bsp_to_glb::ExportOptions::default();
        let (mut best, mut done, mut result) = (f64::INFINITY, 0usize, Ok(0usize));
        for _ in 0..runs.max(1) {
            let t = Instant::now();
            let r = std::panic::catch_unwind(|| bsp_to_glb::export_bsp_with_options(std::hint::black_box(&bytes), &options));
            let dt = t.elapsed().as_secs_f64();
            match r {
                Ok(Ok(out)) => {
                    best = best.min(dt);
                    done += 1;
                    result = Ok(out.glb.len());
                }
                Ok(Err(e)) => {
                    result = Err(e);
                    break;
                }
                Err(_) => {
                    result = Err("panic".to_string());
                    break;
                }
            }
        }
        let q = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        match result {
            Ok(work) => println!(
                "{{\"tool\": \"b2g_inproc\", \"map\": \"{}\", \"size\": {}, \"ok\": true, \"error\": null, \"min_s\": {best}, \"runs\": {done}, \"work\": {work}}}",
                q(&map),
                bytes.len()
            ),
            Err(e) => println!(
                "{{\"tool\": \"b2g_inproc\", \"map\": \"{}\", \"size\": {}, \"ok\": false, \"error\": \"{}\", \"min_s\": null, \"runs\": 0, \"work\": null}}",
                q(&map),
                bytes.len(),
                q(&e)
            ),
        }
    }
}
