//! Link options of the `bsp` executable (docs/setup-test-time.md, "Start-up").
//!
//! A position-independent executable is relocated by the dynamic loader at every start: the
//! release `bsp` carries about 11,000 relative relocations (vtables and string tables point into
//! the binary). `-z pack-relative-relocs` (GNU ld 2.38+, lld 15+, glibc 2.36+: DT_RELR) stores
//! them as a bitmap of a few KB instead of 24 bytes each, which the loader reads at start. The
//! executable stays position-independent (address randomisation kept). Older GNU ld warns and
//! ignores the option.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
