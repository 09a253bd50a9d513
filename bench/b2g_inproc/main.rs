//! bsp-to-glb's export, in process, for `export.sh` (issue 8's comparison without process
//! start-up). Not part of the bench workspace: bsp-to-glb is not on crates.io, so `export.sh`
//! writes a Cargo.toml beside its build that points at the checkout in `BSP_TO_GLB_DIR`, at this
//! file and at the bench programs' shared driver (`../src/lib.rs`, included as a module).
//!
//! Usage: `b2g_inproc RUNS MAP...`; one JSON line per map, the same fields as every bench program
//! (`work` = GLB bytes). The call is `export_bsp_with_options` with its default options, which is
//! what its command line runs for `--bsp MAP --out OUT`; the GLB stays in memory (its command
//! line then writes it).

#[path = "../src/lib.rs"]
#[allow(dead_code)]
mod driver;

fn export(bytes: &[u8]) -> Result<u64, String> {
    let out = bsp_to_glb::export_bsp_with_options(bytes, &bsp_to_glb::ExportOptions::default())?;
    Ok(out.glb.len() as u64)
}

fn main() {
    driver::main_with("b2g_inproc", export);
}
