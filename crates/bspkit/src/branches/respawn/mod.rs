//! Respawn Entertainment rBSP (Titanfall, Titanfall 2, Apex Legends).
//!
//! Header: `"rBSP"`, version, map revision, 127 (the last lump index), then 128 Valve-style
//! `lump_t {offset, length, version, fourCC}` entries (open_questions.md B6;
//! notes/respawn_cod_facts.md §1.1). Lump names follow bsp_tool's `LUMP` enums per game
//! (facts §1.5). Record sizes are declared only where the Titanfall 2 corpus maps confirm them
//! (every non-empty lump length is a multiple, facts §1.7); Titanfall and Apex reuse a size
//! only where their struct is the same as Titanfall 2's (facts §1.6). Everything else is Raw.
//!
//! Beside a map: `<map>.bsp.<xxxx>.bsp_lump` files replace lumps (loaded by `external.rs`), and
//! `<map>_<kind>.ent` entity partitions hold more entities ([`entity_partitions`]).
//!
//! By concern: [`lumps`] (slots, descriptors, version selection), [`ent`] (entity partitions),
//! [`check`]. This module re-exports them for library users; code inside the crate names the
//! concern module it needs.

pub mod check;
pub mod ent;
pub mod lumps;
pub mod texture;

pub use ent::*;
pub use lumps::*;
