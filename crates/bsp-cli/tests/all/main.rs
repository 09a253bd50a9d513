//! The integration tests of `bsp-cli`, one test binary: each former `tests/NAME.rs` is the module
//! `NAME` here (one binary links the crate and its dependencies once instead of once per file,
//! which cut the debug build of the tests and `target/` to a fraction — README, "Set-up cost").
//! A new test file goes in this folder and gets a `mod NAME;` line below; its helpers come from
//! `use crate::common;` / `use crate::cli;`. `layout::every_test_file_is_a_module` checks that none is forgotten.

mod cli;
#[path = "../../../bspkit/tests/common/mod.rs"]
mod common;

mod batch_cli;
mod cmd_quake;
mod convert_cli;
mod decompile_cli;
mod export_cli;
mod help_cli;
mod info_native;
mod json_schema;
mod library_cli;
mod lightmaps_cli;
mod mapset_cli;
mod new_families_cli;
mod readable_cli;
mod render_cli;
mod ritual_cli;
mod safe_writes;
mod scan_cli;
mod scan_tables;
mod textures_cli;
mod write_cli;

mod layout {
    use std::path::Path;

    /// Every `.rs` file of this folder is a module of this binary, and no test file sits
    /// directly in `tests/` (cargo would build it as a binary of its own, linking everything
    /// again).
    #[test]
    fn every_test_file_is_a_module() {
        let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let main = std::fs::read_to_string(tests.join("all/main.rs")).unwrap();
        let declared: Vec<&str> = main.lines().filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';')).collect();
        for entry in std::fs::read_dir(tests.join("all")).unwrap() {
            let path = entry.unwrap().path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
            if path.extension().is_some_and(|e| e == "rs") && stem != "main" {
                assert!(declared.contains(&stem), "tests/all/{stem}.rs is not declared as `mod {stem};` in main.rs");
            }
        }
        for entry in std::fs::read_dir(&tests).unwrap() {
            let path = entry.unwrap().path();
            assert!(
                !(path.is_file() && path.extension().is_some_and(|e| e == "rs")),
                "{}: move it into tests/all/ as a module (see main.rs)",
                path.display()
            );
        }
    }
}
