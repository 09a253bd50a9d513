//! The integration tests of `bspkit`, one test binary: each former `tests/NAME.rs` is the module
//! `NAME` here (one binary links the crate and its dependencies once instead of once per file,
//! which cut the debug build of the tests and `target/` to a fraction — README, "Set-up cost").
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
mod convert_quake3;
mod convert_respawn;
mod convert_siblings;
mod convert_source_versions;
mod corpus_open;
mod dark_messiah;
mod decompile;
mod decompile_cod_respawn;
mod decompile_picture;
mod decompile_source;
mod decompile_tree;
mod engine_quake1;
mod engine_quake3;
mod error_locations;
mod garble;
mod genesis3d;
mod lightmaps;
mod lightmaps_respawn_cod;
mod mapset;
mod mesh_audit;
mod mesh_cod;
mod mesh_genesis3d;
mod mesh_quake2;
mod mesh_quake3;
mod mesh_respawn;
mod mesh_source;
mod quake1_goldsrc;
mod quake2_derived;
mod quake2_quake3;
mod quake64;
mod regressions;
mod render;
mod respawn_cod;
mod ritual;
mod rtcw;
mod samples;
mod scan;
mod source_core;
mod source_forks;
mod source_gamelump_pak;
mod texture_corpus;
mod texture_oracle;
mod texture_sources;
mod tree;
mod vindictus;
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
