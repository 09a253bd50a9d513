//! Issue 23, LZMA peak memory: two lumps each claiming 511 MiB in a file of about 150 KB (a
//! Source map built here: LIGHTING and PHYS_COLLIDE, both zeros) stay within the per-map
//! decompression budget (1 GiB), and the peak memory of `bsp info` and `bsp check` (VmHWM of
//! the child process, read from /proc while it runs) must stay near that budget. Before: 2.11
//! GB for both here (2.63 GB in the file): the physics walk of `check` listed the
//! lump's 33.5 million empty 16-byte models (1.6 GB of list) on top of the decoded lump.

use std::path::Path;
use std::process::{Command, Stdio};

use bspkit::branches::source::SOURCE;
use bspkit::build::BspBuilder;
use bspkit::compression::compress_valve_lzma;

use crate::cli::{s, scratch, BSP};
use crate::common;

const MIB: u64 = 1 << 20;

/// Peak resident memory of `bsp ARGS` ([`common::peak_rss_of`]) and whether it succeeded.
fn peak(args: &[&str]) -> (bool, u64) {
    let mut cmd = Command::new(BSP);
    cmd.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    let (status, high) = common::peak_rss_of(&mut cmd, std::time::Duration::from_secs(1800));
    (status.success(), high)
}

/// Source directory entry `index`'s fourCC (the uncompressed size of an LZMA lump, source.md §6).
fn set_fourcc(map: &mut [u8], index: usize, size: u32) {
    let at = 8 + 16 * index + 12;
    map[at..at + 4].copy_from_slice(&size.to_le_bytes());
}

#[test]
fn two_511_mib_lumps_stay_near_the_budget() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("note: no /proc: peak memory not measured");
        return;
    }
    let d = scratch("lzma-peak");
    let size = 511 * MIB as usize;
    let lz = compress_valve_lzma(&vec![0u8; size], 0).unwrap();
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let mut map = BspBuilder::new(&SOURCE).lump(0, ents).lump(8, lz.clone()).lump(29, lz).build();
    set_fourcc(&mut map, 8, size as u32);
    set_fourcc(&mut map, 29, size as u32);
    assert!(map.len() < 200_000, "{} bytes", map.len());
    let path = d.join("two.bsp");
    std::fs::write(&path, &map).unwrap();
    let budget = bspkit::bsp::DEFAULT_MAX_DECOMPRESSED_TOTAL;
    for cmd in ["info", "check"] {
        let (ok, high) = peak(&[cmd, s(&path)]);
        eprintln!("bsp {cmd}: peak {} MiB (budget {} MiB, file {} bytes)", high / MIB, budget / MIB, map.len());
        assert!(ok, "bsp {cmd} failed");
        // Near the budget: the decoded lumps (at most the budget), one decoder's dictionary and
        // the program itself; far below the 2.11 GB of before.
        assert!(high < budget + 160 * MIB, "bsp {cmd}: peak {} MiB", high / MIB);
    }
    std::fs::remove_dir_all(&d).unwrap();
}
