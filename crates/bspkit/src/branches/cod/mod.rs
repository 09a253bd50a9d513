//! Call of Duty 4 `.d3dbsp` (IBSP 22): a list of `{id, length}` entries, data packed in
//! directory order with 4-byte padding (respawn_cod_facts.md §2.1). Call of Duty 1 / United
//! Offensive (`IBSP` 59, demo 58) and Call of Duty 2 (`IBSP` 4, `.d3dbsp`) keep a fixed
//! directory of `{length, offset}` entries; their tables are in [`lumps`], their records in
//! [`records12`], checks in [`check12`], info rows in [`stats12`].
//!
//! Lumps are looked up by id, not by directory position; the table below is indexed by id
//! (55 ids, §2.2). Record sizes are declared where `count × size = bytes` holds on all four
//! corpus maps against `cod4map -info`. [`stats`] reproduces the rows of `cod4map -info`.
//!
//! By concern: [`lumps`] (ids and descriptor), [`records`], [`stats`] (`cod4map -info` rows),
//! [`check`]. This module re-exports them for library users; code inside the crate names the
//! concern module it needs.

pub mod check;
pub mod check12;
pub mod family;
pub mod lighting;
pub mod lumps;
pub mod mesh;
pub mod records;
pub mod records12;
pub mod schema;
pub mod stats;
pub mod stats12;
pub mod texture;

pub use lumps::*;
pub use records::*;
pub use records12::*;
