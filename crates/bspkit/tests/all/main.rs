//! The integration tests of `bspkit`, one test binary: each former `tests/NAME.rs` is the module
//! `NAME` here (one binary links the crate and its dependencies once instead of once per file,
//! which cut the debug build of the tests and `target/` to a fraction — docs/setup-test-time.md, "Set-up cost").
//! A new test file goes in this folder and gets a `mod NAME;` line below; its helpers come from
//! `use crate::common;`. `every_test_file_is_a_module` checks that none is forgotten.

#[path = "../common/mod.rs"]
mod common;

mod bsp_tool_counts;
mod budgets;
mod check_cases;
mod check_lzma;
mod cod12;
mod convert;
mod convert_matrix;
mod convert_quake3;
mod convert_respawn;
mod convert_siblings;
mod convert_source_versions;
mod corpus_open;
mod cso2_2018;
mod dark_messiah;
mod decompile;
mod decompile_cod_respawn;
mod decompile_picture;
mod decompile_recompile;
mod decompile_recompile_q3;
mod decompile_report;
mod decompile_source;
mod decompile_tree;
mod dota_disp;
mod engine_quake1;
mod engine_quake3;
mod error_locations;
mod garble;
mod genesis3d;
mod lightmaps;
mod lightmaps_apex;
mod lightmaps_cod12;
mod lightmaps_respawn_cod;
mod mapset;
mod mesh_audit;
mod mesh_cod;
mod mesh_genesis3d;
mod mesh_quake2;
mod mesh_quake3;
mod mesh_respawn;
mod mesh_source;
mod nightfire;
mod quake1_goldsrc;
mod quake2_derived;
mod quake2_quake3;
mod quake64;
mod regressions;
mod render;
mod render_starts;
mod respawn_aabb;
mod respawn_cod;
mod ritual;
mod rtcw;
mod samples;
mod scan;
mod source_core;
mod source_forks;
mod source_gamelump_pak;
mod source_xbox;
mod texture_corpus;
mod texture_oracle;
mod texture_sources;
mod titanfall_x360;
mod tree;
mod view_visibility;
mod vindictus;
mod world_bounds;
mod write_api;
mod write_edits;
mod write_entities;
mod write_fuzz;
mod write_lzma;
mod write_roundtrip;

/// Every test file of this folder is a module of this binary (`common::every_test_file_is_a_module`).
#[test]
fn every_test_file_is_a_module() {
    common::every_test_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}

/// Issue 24: a `BSPKIT_CORPUS` that names no directory (a fresh clone given the README's
/// `../shared/maps` from another folder layout) makes the corpus tests skip with a note instead
/// of failing; a relative path is also looked up from the workspace root, where the README's
/// commands run (cargo runs the tests in the crate's folder).
#[test]
fn corpus_naming_no_directory_is_a_skip() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(common::corpus_dir("no/such/corpus-folder".as_ref()).is_none());
    assert!(common::corpus_dir(&root.join("no-such-corpus-folder")).is_none());
    // A file is not a corpus either.
    assert!(common::corpus_dir(&root.join("README.md")).is_none());
    // Relative to the workspace root, not to the crate's folder the test runs in.
    assert!(!std::path::Path::new("crates/bspkit/src").is_dir());
    assert_eq!(common::corpus_dir("crates/bspkit/src".as_ref()), Some(root.join("crates/bspkit/src")));
}
