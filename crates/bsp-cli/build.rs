//! Link options of the `bsp` executable (docs/setup-test-time.md, "Start-up").
//!
//! A position-independent executable is relocated by the dynamic loader at every start: the
//! release `bsp` carries about 33,000 relative relocations (vtables, panic locations and the
//! library's string and schema tables point into the binary). `-z pack-relative-relocs` (GNU ld
//! 2.38+, lld 15+, glibc 2.36+: DT_RELR) stores them as a bitmap of a few KB instead of 24 bytes
//! each, which the loader reads at start. The executable stays position-independent (address
//! randomisation kept). Older GNU ld warns and ignores the option.
//!
//! The unwinder (`_Unwind_*`, for panics and backtraces) is linked from GCC's static
//! `libgcc_eh.a` — the one Rust's own `crt-static` builds use — so the loader no longer opens,
//! maps, relocates and binds `libgcc_s.so.1` at every start (about 0.5 ms of CPU time per
//! process here). `std` still names `-lgcc_s`, but the linker's `--as-needed` (rustc's default)
//! drops it once nothing is left undefined for it. Only this package's targets are affected:
//! the library, the Python module and the other crates link as before.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
        println!("cargo:rustc-link-lib=static=gcc_eh");
    }
}
