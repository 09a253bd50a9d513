//! Link options of the `bsp` executable (docs/setup-test-time.md, "Start-up").
//!
//! On x86-64 Linux with glibc, `bsp` is linked as a *static position-independent executable*
//! (static-pie) when the C toolchain has glibc's static libraries (`libc.a`, `libm.a`, …, and
//! the static-pie start file `rcrt1.o`; Debian's `libc6-dev`). No dynamic loader runs and no
//! shared library is opened, mapped, relocated or bound at start (`bsp --version`: 704,000 →
//! 489,000 instructions, 227 → 198 page faults); the executable still relocates itself
//! (glibc's static-pie start), so it is still loaded at a random address at every run.
//!
//! Cargo can set `crt-static` only for a whole build (it would also make the Python module's
//! `cdylib` and the proc-macros static). So only the binaries of this package are relinked:
//! `-static-pie` is passed to the C compiler driver that links them, and the libraries rustc's
//! standard library names (`-lc`, `-lm`, `-lgcc_s`, `-lpthread`, …, which it asks for as shared
//! libraries) are found first in a folder of this build's `OUT_DIR` where each `lib*.so` is a
//! linker script naming the static archive (`libgcc_s` → GCC's static unwinder `libgcc_eh.a`,
//! what Rust's own `crt-static` builds link). Where one of those files is missing, or the target
//! is not the host (the C compiler asked would not be the target's), `bsp` is linked as before:
//! a dynamic position-independent executable with `libgcc_eh` linked statically.
//!
//! Either way the relative relocations are packed (`-z pack-relative-relocs`, DT_RELR: glibc
//! 2.36+; older GNU ld warns and ignores the option): a bitmap of a few KB instead of 24 bytes
//! for each of the ~30,000 pointers in the binary's tables. Only this package's targets are
//! affected: the library, the Python module and the other crates link as before.
use std::path::{Path, PathBuf};
use std::process::Command;

/// The static archives (and start file) the static-pie link needs, by the shared library name
/// rustc asks for. `c` also takes the unwinder and GCC's helpers, as `crt-static` links them.
const STATIC_FOR: [(&str, &[&str]); 7] = [
    ("c", &["libc.a", "libgcc_eh.a", "libgcc.a"]),
    ("m", &["libm.a"]),
    ("gcc_s", &["libgcc_eh.a"]),
    ("pthread", &["libpthread.a"]),
    ("dl", &["libdl.a"]),
    ("rt", &["librt.a"]),
    ("util", &["libutil.a"]),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BSPKIT_DYNAMIC_BSP");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    // The dynamic link's unwinder (and the static link's, harmlessly twice).
    println!("cargo:rustc-link-lib=static=gcc_eh");
    // What the binary became, for the test that reads it back (tests/all/startup_cli.rs).
    let linkage = if static_pie() { "static-pie" } else { "dynamic" };
    println!("cargo:rustc-env=BSP_LINKAGE={linkage}");
}

/// Sets up the static-pie link where it can be done; whether it was.
fn static_pie() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    // `BSPKIT_DYNAMIC_BSP=1`: the dynamic link as before, e.g. where glibc's static libraries
    // misbehave.
    if var("CARGO_CFG_TARGET_ARCH") != "x86_64" || var("HOST") != var("TARGET") || !var("BSPKIT_DYNAMIC_BSP").is_empty() {
        return false;
    }
    // The C compiler driver rustc links with (cargo passes a configured linker on as RUSTC_LINKER).
    let driver = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let Some(folder) = static_library_folder(&driver) else {
        println!("cargo:warning=glibc's static libraries (libc.a, libm.a, rcrt1.o: Debian's libc6-dev, Fedora's glibc-static) not found: `bsp` is linked dynamically");
        return false;
    };
    println!("cargo:rustc-link-arg-bins=-L{}", folder.display());
    println!("cargo:rustc-link-arg-bins=-static-pie");
    true
}

/// Writes the linker scripts into `OUT_DIR/static-libs`; `None` when a file is missing.
fn static_library_folder(driver: &str) -> Option<PathBuf> {
    find(driver, "rcrt1.o")?;
    let folder = PathBuf::from(std::env::var_os("OUT_DIR")?).join("static-libs");
    std::fs::create_dir_all(&folder).ok()?;
    for (shared, archives) in STATIC_FOR {
        let mut paths = Vec::new();
        for archive in archives {
            paths.push(find(driver, archive)?);
        }
        let script = format!(
            "/* bsp-cli build.rs: the static archives for -l{shared} (static-pie `bsp`). */\nGROUP ( {} )\n",
            paths.iter().map(|p| format!("\"{}\"", p.display())).collect::<Vec<_>>().join(" ")
        );
        std::fs::write(folder.join(format!("lib{shared}.so")), script).ok()?;
    }
    Some(folder)
}

/// The driver's path of a library file, if it has one (`cc -print-file-name=NAME` prints the
/// name unchanged when it finds none).
fn find(driver: &str, name: &str) -> Option<PathBuf> {
    let out = Command::new(driver).arg(format!("-print-file-name={name}")).output().ok()?;
    let printed = String::from_utf8(out.stdout).ok()?;
    let path = Path::new(printed.trim());
    (out.status.success() && path.is_absolute() && path.is_file()).then(|| path.to_path_buf())
}
