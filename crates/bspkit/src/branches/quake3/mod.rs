//! Quake 3 IBSP 46 and descendants: IBSP 47 (RTCW / ET / Quake Live), Raven RBSP 1,
//! qfusion FBSP 1 (quake_family.md Part A; quake_facts.md §5, §6.3).
//!
//! IBSP 46 and 47 share every record. RBSP and FBSP widen brush sides (12), draw vertices
//! (80), surfaces (148) and light-grid points (30, with four light styles) and add lump 17,
//! the light array (one `u16` grid-point index per cell). FBSP's lightmap pages are
//! 512 × 512 instead of 128 × 128. [`View`] is generic over a [`Layout`] marker.
//!
//! By concern: [`lumps`] (slots and descriptors), [`records`], [`view`], [`stats`] (q3map2
//! `-info` rows), [`check`]. This module re-exports them for library users; code inside the
//! crate names the concern module it needs (the lump tables stay below `Bsp`).

pub mod check;
pub mod family;
pub mod lighting;
pub mod lumps;
pub mod mesh;
pub mod records;
pub mod schema;
pub mod stats;
pub mod texture;
pub mod tree;
pub mod view;

pub use lumps::*;
pub use records::*;
pub use view::{grid_dimensions, grid_size, View};
