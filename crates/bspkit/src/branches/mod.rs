//! One module per engine family, each a folder split by concern: `lumps` (directory slots and
//! branch descriptors, data only), `records` (`#[repr(C)]` record types), `view` (typed lump
//! access), `stats` (the native info tool's rows), `check` (cross-reference checks), and more
//! where the family has them. [`registry`] lists every descriptor.
//!
//! Each family module re-exports its concerns for library users (`branches::quake1::Plane`,
//! `branches::quake1::View`); code inside the crate names the concern module it needs, so the
//! descriptors stay below `Bsp` and the layers have no import cycle.

pub mod cod;
pub mod genesis3d;
pub mod goldsrc;
pub mod quake1;
pub mod quake2;
pub mod quake3;
pub mod registry;
pub mod respawn;
pub mod source;

pub use registry::{all, by_id};
