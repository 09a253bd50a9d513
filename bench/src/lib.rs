//! Shared driver for the comparison programs: each `src/bin/<tool>.rs` supplies one function
//! that decodes a map from bytes and returns a count that depends on what it decoded.
//!
//! Usage of every program: `<tool> RUNS MAP...`. For each map it prints one JSON line:
//! `{"tool","map","size","ok","panic","error","min_s","runs","work"}`. A panic or error in a
//! tool is counted for that map (never aborting the run); the map is then not timed again.
//!
//! A map is timed RUNS times and then again until its runs add up to [`MIN_TIME`] (at most
//! [`MAX_RUNS`] runs): on a shared machine the minimum of 20 runs of a few microseconds still
//! carries the scheduler's noise, and every program gets the same rule.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

pub type DecodeFn = fn(&[u8]) -> Result<u64, String>;

/// A check run once per map before the timed runs (not timed); an error fails that map.
pub type VerifyFn = fn(&[u8]) -> Result<(), String>;

/// Timed runs of one map continue until they add up to this many seconds (after RUNS).
pub const MIN_TIME: f64 = 0.02;
/// Upper bound on the timed runs of one map.
pub const MAX_RUNS: usize = 10_000;

pub fn main_with(tool: &str, decode: DecodeFn) {
    main_with_verify(tool, decode, |_| Ok(()))
}

pub fn main_with_verify(tool: &str, decode: DecodeFn, verify: VerifyFn) {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or_else(|| {
        eprintln!("usage: {tool} RUNS MAP...");
        std::process::exit(2)
    });
    // Panics are counted, not printed: some readers panic on maps they do not support.
    std::panic::set_hook(Box::new(|_| {}));
    let (mut ok, mut failed, mut panicked) = (0, 0, 0);
    for map in args {
        let bytes = match std::fs::read(&map) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{map}: {e}");
                continue;
            }
        };
        let mut best = f64::INFINITY;
        let mut result = Ok(0);
        let mut panic = false;
        let mut done = 0;
        let verified = match catch_unwind(AssertUnwindSafe(|| verify(&bytes))) {
            Ok(r) => r,
            Err(_) => {
                panic = true;
                Err("panic in verification".to_string())
            }
        };
        if let Err(e) = verified {
            result = Err(e);
        }
        let mut spent = 0.0;
        while result.is_ok() && (done < runs.max(1) || (spent < MIN_TIME && done < MAX_RUNS)) {
            let t = Instant::now();
            let r = catch_unwind(AssertUnwindSafe(|| decode(std::hint::black_box(&bytes))));
            let dt = t.elapsed().as_secs_f64();
            spent += dt;
            match r {
                Ok(Ok(work)) => {
                    std::hint::black_box(work);
                    best = best.min(dt);
                    result = Ok(work);
                    done += 1;
                }
                Ok(Err(e)) => {
                    result = Err(e);
                    break;
                }
                Err(p) => {
                    panic = true;
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "panic".into());
                    result = Err(msg);
                    break;
                }
            }
        }
        match (&result, panic) {
            (Ok(_), _) => ok += 1,
            (Err(_), true) => panicked += 1,
            (Err(_), false) => failed += 1,
        }
        let line = serde_json::json!({
            "tool": tool,
            "map": map,
            "size": bytes.len(),
            "ok": result.is_ok(),
            "panic": panic,
            "error": result.as_ref().err(),
            "min_s": if result.is_ok() { Some(best) } else { None },
            "runs": done,
            "work": result.as_ref().ok(),
        });
        println!("{line}");
    }
    eprintln!("{tool}: {ok} ok, {failed} failed, {panicked} panicked");
}
