//! The export's own memory, in process: for each map two JSON lines (the bench programs' fields)
//! whose `work` is the peak heap bytes one `export::export` allocated on top of what was in use
//! when it started — `Bsp::from_bytes` and everything after it count, the map's bytes (which the
//! caller holds, as `bsp export` holds the file it read) do not:
//! - `bspkit_export_heap`: GLB, geometry only (no textures, no lightmaps);
//! - `bspkit_export_full_heap`: GLB with textures and lightmaps, as `bspkit_export_full`.
//!
//! A counting global allocator measures it, so this program's times are not meaningful (and it
//! is kept apart from `bspkit_export`, whose times are). The GLB goes to the null device;
//! `report_export.py` divides by the size of the GLB `bsp export` wrote for the same map.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use bspkit::export::{export, ExportOptions, Format};
use bspkit::Bsp;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = IN_USE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        IN_USE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                IN_USE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[cfg(unix)]
const NULL: &str = "/dev/null";
#[cfg(not(unix))]
const NULL: &str = "NUL";

/// Peak heap bytes of one export of `bytes` beyond what is in use when it starts.
fn peak_heap(bytes: &[u8], full: bool) -> Result<u64, String> {
    let base = IN_USE.load(Relaxed);
    PEAK.store(base, Relaxed);
    {
        let bsp = Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
        let mut opts = ExportOptions { format: Some(Format::Glb), ..Default::default() };
        if !full {
            opts.textures = None;
            opts.lightmaps = false;
        }
        export(&bsp, NULL.as_ref(), &opts).map_err(|e| e.to_string())?;
    }
    Ok((PEAK.load(Relaxed) - base) as u64)
}

fn main() {
    bspkit_bench::main_with("bspkit_export_heap", |b| peak_heap(b, false));
    bspkit_bench::main_with("bspkit_export_full_heap", |b| peak_heap(b, true));
}
