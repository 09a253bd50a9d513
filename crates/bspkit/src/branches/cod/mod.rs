//! Call of Duty 4 `.d3dbsp` (IBSP 22): a list of `{id, length}` entries, data packed in
//! directory order with 4-byte padding (respawn_cod_facts.md §2.1).
//!
//! Lumps are looked up by id, not by directory position; the table below is indexed by id
//! (55 ids, §2.2). Record sizes are declared where `count × size = bytes` holds on all four
//! corpus maps against `cod4map -info`. [`stats`] reproduces the rows of `cod4map -info`.
//!
//! By concern: [`lumps`] (ids and descriptor), [`records`], [`stats`] (`cod4map -info` rows),
//! [`check`]. This module re-exports them for library users; code inside the crate names the
//! concern module it needs.

pub mod check;
pub mod lumps;
pub mod mesh;
pub mod records;
pub mod schema;
pub mod stats;
pub mod texture;

pub use lumps::*;
pub use records::*;
