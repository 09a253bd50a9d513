//! Respawn Entertainment rBSP (Titanfall, Titanfall 2, Apex Legends).
//!
//! Header: `"rBSP"`, version, map revision, 127 (the last lump index), then 128 Valve-style
//! `lump_t {offset, length, version, fourCC}` entries (open_questions.md B6;
//! notes/respawn_cod_facts.md §1.1). Lump names follow bsp_tool's `LUMP` enums per game
//! (facts §1.5). Every lump whose layout is known for a version has a record type
//! ([`records`], facts §1.8) and a declared size; the rest (lightmap texels, physics, the
//! pakfile) stay raw.
//!
//! Beside a map: `<map>.bsp.<xxxx>.bsp_lump` files replace lumps (loaded by `external.rs`), and
//! `<map>_<kind>.ent` entity partitions hold more entities ([`entity_partitions`]).
//!
//! By concern: [`lumps`] (slots, descriptors, version selection), [`records`] (record types),
//! [`sprp`] (static props), [`ent`] (entity partitions), [`view`] (typed access, generic over
//! the game), [`stats`] (the `bsp info` contents table), [`check`]. This module re-exports them
//! for library users; code inside the crate names the concern module it needs.

pub mod check;
pub mod ent;
pub mod family;
pub mod lighting;
pub mod lumps;
pub mod mesh;
pub mod records;
pub mod schema;
pub mod sprp;
pub mod stats;
pub mod texture;
pub mod view;

pub use ent::*;
pub use lumps::*;
pub use records::*;
pub use sprp::{RespawnProp, RespawnPropLayout, RespawnStaticProps};
pub use view::{
    Apex, Game, IndexRecord, LevelInfo, LightProbeRefs, LightProbes, Titanfall, Titanfall2, TitanfallX360, Vertices, View, WorldLights,
};
