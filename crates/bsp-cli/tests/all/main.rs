//! The integration tests of `bsp-cli`, one test binary: each former `tests/NAME.rs` is the module
//! `NAME` here (one binary links the crate and its dependencies once instead of once per file,
//! which cut the debug build of the tests and `target/` to a fraction — docs/setup-test-time.md, "Set-up cost").
//! A new test file goes in this folder and gets a `mod NAME;` line below; its helpers come from
//! `use crate::common;` / `use crate::cli;`. `every_test_file_is_a_module` checks that none is forgotten.

mod cli;
#[path = "../../../bspkit/tests/common/mod.rs"]
mod common;

mod batch_cli;
mod browser_view;
mod cmd_quake;
mod convert_cli;
mod decompile_cli;
mod decompile_tree_cli;
mod export_cli;
mod export_sets;
mod help_cli;
mod info_native;
mod json_schema;
mod library_cli;
mod light_styles_cli;
mod lightmap_cod12_cli;
mod lightmap_families_cli;
mod lightmap_mode_cli;
mod lightmaps_cli;
mod lzma_peak;
mod mapset_cli;
mod mapset_crash;
mod new_families_cli;
mod option_files_cli;
mod output_sets;
mod readable_cli;
mod render_cli;
mod ritual_cli;
mod safe_writes;
mod scan_cli;
mod scan_tables;
mod scene_budgets_cli;
mod startup_cli;
mod textures_cli;
mod view_cli;
mod write_cli;

/// Every test file of this folder is a module of this binary (`common::every_test_file_is_a_module`).
#[test]
fn every_test_file_is_a_module() {
    common::every_test_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}
