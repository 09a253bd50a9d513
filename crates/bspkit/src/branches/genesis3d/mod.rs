//! Genesis3D levels (`GBSP` version 15): a chain of typed chunks instead of a lump directory
//! (engine `World/GBSPFILE.H`, `World/Gbspfile.cpp`; compiler `Tools/GBSPLib`).
//!
//! By concern: [`lumps`] (chunk types and the descriptor), [`records`] (`GFX_*` record types),
//! [`ents`] (the binary entity chunk and its text form), [`detect`], [`view`] (typed access and
//! the [`Geometry`] an exporter reads), [`stats`] (GBSPLib's table), [`check`], [`texture`] (the textures the level carries), [`lighting`] (its lightmaps), [`room`] (a small level built in code). This module
//! re-exports them for library users; code inside the crate names the concern module.

pub mod check;
pub mod detect;
pub mod ents;
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
pub use view::{Corner, Geometry, View};
