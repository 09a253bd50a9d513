//! Quake 2 IBSP 38 and Qbism QBSP 38 (quake_family.md C.3; quake_facts.md §4, §4.1, §6.2).
//!
//! Both share one 19-lump table; Qbism widens the index fields of nodes, faces, leaves,
//! leaf faces / brushes, edges and brush sides to 32 bits (and node / leaf bounds to floats).
//! [`View`] is generic over a [`Layout`] marker ([`Ibsp`] or [`Qbism`]) so one set of
//! accessors and one set of checks serves both.
//!
//! By concern: [`lumps`] (slots and descriptors), [`records`], [`view`], [`stats`] (`4bsp`
//! rows), [`check`]. This module re-exports them for library users; code inside the crate names
//! the concern module it needs (the lump tables stay below `Bsp`).

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
pub use view::{CornerTables, View};
