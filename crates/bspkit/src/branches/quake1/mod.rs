//! Quake 1: BSP29, BSP2, 2PSB and Hexen II (quake_family.md C.2; lump order as GoldSrc B.1;
//! widened layouts from quake_facts.md 1.2–1.4). GoldSrc (`goldsrc.rs`) reuses the BSP29
//! records, the typed [`View`], the `bspinfo` rows and the checks defined here.
//!
//! The four record sets differ only in a few lumps, so the code that reads them is written once,
//! generic over a [`Layout`] (which record type each lump uses); the records expose their
//! fields through small traits ([`NodeRecord`], [`FaceRecord`], …) that widen every index to
//! `i64`, so checks never overflow.
//!
//! Layout by concern: [`lumps`] (directory slots and branch descriptors), [`records`] (record
//! types), [`view`] (typed lump access), [`stats`] (`bspinfo` rows), [`check`] (cross-reference
//! checks), [`room`] (a complete map built in code).
//!
//! This module only re-exports for users of the library; code inside the crate names the
//! concern module it needs, so the lump tables stay below `Bsp` (no import cycle).

pub mod check;
pub mod family;
pub mod lighting;
pub mod lumps;
pub mod mesh;
pub mod records;
pub mod room;
pub mod schema;
pub mod stats;
pub mod texture;
pub mod tree;
pub mod view;

pub use lumps::*;
pub use records::*;
pub use stats::bspinfo;
pub use view::View;
