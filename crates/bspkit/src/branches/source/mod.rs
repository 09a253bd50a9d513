//! Source engine VBSP / PSBV (source.md). One `Branch` per lump-name table (source.md §5,
//! §27): Source 2004, 2006, 2007/2009, VTMB, L4D, L4D2, Alien Swarm, Portal 2, CS:GO,
//! Tactical Intervention, Dota 2, Strata v25 and the licensee outliers (27, 42, 100).
//! [`select`] picks one from the bytes alone; `--branch` overrides it.
//!
//! By concern: lump slots and branch descriptors in [`lumps`], branch selection in [`detect`],
//! record types in [`records`] (generic over byte order), typed lump views in [`view`],
//! vbspinfo's rows in [`stats`], cross-reference checks in [`check`] and the map CRC in
//! [`checksum`]. This module re-exports them for library users; code inside the crate names the
//! concern module it needs (the lump tables stay below `Bsp`).

pub mod check;
pub mod checksum;
pub mod detect;
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

pub use checksum::map_checksum;
pub use detect::select;
pub use lumps::*;
pub use stats::{level_flags, triangle_count};
pub use view::View;
