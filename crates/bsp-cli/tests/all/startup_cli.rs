//! What `bsp` loads at start (docs/setup-test-time.md, "Start-up"): on Linux with glibc the
//! unwinder is linked in statically (crates/bsp-cli/build.rs), so the dynamic loader does not
//! load `libgcc_s.so.1` — about 0.5 ms of CPU time per process. The shared libraries an
//! executable needs are its `DT_NEEDED` entries, read here from the ELF file itself.

use crate::cli;

/// The `DT_NEEDED` names of a 64-bit little-endian ELF executable (ELF gABI: program headers,
/// `PT_DYNAMIC`, string table found through the `PT_LOAD` segment that maps `DT_STRTAB`).
fn needed_libraries(elf: &[u8]) -> Vec<String> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "64-bit little-endian ELF");
    let (phoff, phentsize, phnum) = (u64_at(0x20) as usize, u16_at(0x36), u16_at(0x38));
    let headers: Vec<[u64; 4]> = (0..phnum)
        .map(|i| {
            let h = phoff + i * phentsize;
            // p_type, p_offset, p_vaddr, p_filesz
            [u32::from_le_bytes(elf[h..h + 4].try_into().unwrap()) as u64, u64_at(h + 8), u64_at(h + 16), u64_at(h + 32)]
        })
        .collect();
    let file_offset = |vaddr: u64| {
        let load = headers.iter().find(|h| h[0] == 1 && h[2] <= vaddr && vaddr < h[2] + h[3]).expect("address in a PT_LOAD");
        (vaddr - load[2] + load[1]) as usize
    };
    let dynamic = headers.iter().find(|h| h[0] == 2).expect("PT_DYNAMIC");
    let entries: Vec<(u64, u64)> =
        (0..dynamic[3] as usize / 16).map(|i| dynamic[1] as usize + 16 * i).map(|o| (u64_at(o), u64_at(o + 8))).collect();
    let strtab = file_offset(entries.iter().find(|e| e.0 == 5).expect("DT_STRTAB").1);
    entries
        .iter()
        .filter(|e| e.0 == 1)
        .map(|e| {
            let s = &elf[strtab + e.1 as usize..];
            String::from_utf8_lossy(&s[..s.iter().position(|&b| b == 0).unwrap()]).into_owned()
        })
        .collect()
}

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
fn bsp_does_not_load_libgcc_s_at_start() {
    let needed = needed_libraries(&std::fs::read(cli::BSP).unwrap());
    assert!(needed.iter().any(|n| n.starts_with("libc.so")), "the reader found the libraries: {needed:?}");
    assert!(!needed.iter().any(|n| n.starts_with("libgcc_s")), "{needed:?}");
    // And it still runs.
    let out = cli::run(&["--version"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("bsp "));
}
