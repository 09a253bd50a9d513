//! One module per engine family, each a folder split by concern: `lumps` (directory slots and
//! branch descriptors, data only), `records` (`#[repr(C)]` record types), `view` (typed lump
//! access), `stats` (the native info tool's rows), `check` (cross-reference checks), and more
//! where the family has them, and `family` (the family as one [`ops::FamilyOps`] value).
//! [`registry`] lists every descriptor; [`any`] is the one file naming every family's value.
//!
//! Each family module re-exports its concerns for library users (`branches::quake1::Plane`,
//! `branches::quake1::View`); code inside the crate names the concern module it needs, so the
//! descriptors stay below `Bsp` and the layers have no import cycle.

pub mod any;
pub mod cod;
pub mod genesis3d;
pub mod goldsrc;
pub mod nightfire;
pub mod ops;
pub mod quake1;
pub mod quake2;
pub mod quake3;
pub mod registry;
pub mod respawn;
pub mod source;

pub use registry::{all, by_id};
