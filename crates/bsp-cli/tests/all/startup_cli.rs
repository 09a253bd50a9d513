//! What `bsp` loads at start (docs/setup-test-time.md, "Start-up"). On x86-64 Linux with glibc
//! and glibc's static libraries, `bsp` is a static position-independent executable
//! (crates/bsp-cli/build.rs): no dynamic loader, no shared library (`libm`, `libc`) opened at
//! start, and still loaded at a random address. Elsewhere on Linux with glibc it is a dynamic
//! position-independent executable whose unwinder is linked in statically, so the loader does not
//! load `libgcc_s.so.1`. Both read here from the ELF file itself; the build script says which
//! of the two it chose (`BSP_LINKAGE`).

use crate::cli;

/// The `p_type` of each program header of a 64-bit little-endian ELF file.
fn program_header_types(elf: &[u8]) -> Vec<u32> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    (0..u16_at(0x38)).map(|i| phoff + i * u16_at(0x36)).map(|h| u32::from_le_bytes(elf[h..h + 4].try_into().unwrap())).collect()
}

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

const PT_INTERP: u32 = 3;
/// `e_type` of a position-independent executable (and of a shared object): loaded at an address
/// the kernel picks at random for each process.
const ET_DYN: u16 = 3;

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
fn bsp_is_position_independent_and_loads_what_its_build_chose() {
    let elf = std::fs::read(cli::BSP).unwrap();
    assert_eq!(u16::from_le_bytes([elf[16], elf[17]]), ET_DYN, "bsp must stay position-independent (address randomisation)");
    let needed = needed_libraries(&elf);
    let interpreter = program_header_types(&elf).contains(&PT_INTERP);
    match env!("BSP_LINKAGE") {
        "static-pie" => {
            assert!(!interpreter, "a static-pie executable names no dynamic loader");
            assert!(needed.is_empty(), "a static-pie executable loads no shared library: {needed:?}");
        }
        "dynamic" => {
            assert!(interpreter);
            assert!(needed.iter().any(|n| n.starts_with("libc.so")), "the reader found the libraries: {needed:?}");
            assert!(!needed.iter().any(|n| n.starts_with("libgcc_s")), "{needed:?}");
        }
        other => panic!("crates/bsp-cli/build.rs set BSP_LINKAGE={other}"),
    }
    // And it still runs.
    let out = cli::run(&["--version"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("bsp "));
}

/// Address randomisation is kept: two runs of `bsp` map its code at different addresses (read
/// from `/proc/PID/maps` of two `bsp view` servers). Skips where the kernel randomises nothing.
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
fn bsp_is_loaded_at_a_different_address_each_run() {
    if std::fs::read_to_string("/proc/sys/kernel/randomize_va_space").map(|s| s.trim() == "0").unwrap_or(true) {
        eprintln!("skipped: address randomisation is off on this machine (or /proc is not there)");
        return;
    }
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_quake1.bsp");
    let load_address = || {
        use std::io::BufRead;
        let mut child = std::process::Command::new(cli::BSP)
            .arg("view")
            .arg(&map)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The URL line: the server is up, so the executable is mapped.
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let maps = std::fs::read_to_string(format!("/proc/{}/maps", child.id())).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        let exe = std::fs::canonicalize(cli::BSP).unwrap();
        let first = maps.lines().find(|l| l.ends_with(exe.to_str().unwrap())).unwrap_or_else(|| panic!("{exe:?} in\n{maps}"));
        first.split('-').next().unwrap().to_string()
    };
    let (a, b) = (load_address(), load_address());
    assert_ne!(a, b, "bsp was mapped at {a} both times");
}
