//! GoldSrc BSP30 and the Blue Shift variant (quake_family.md Part B).
//!
//! GoldSrc keeps Quake's BSP29 record layouts (quake_family.md C.2), so the records, the typed
//! view, the `bspinfo` rows and the checks are those of [`crate::branches::quake1`] with the
//! [`Bsp29`] record set. The differences are in the data: lighting is RGB (3 bytes per luxel)
//! and embedded textures carry a palette, which [`View::textures`](crate::branches::quake1::View::textures)
//! reads for this family. Blue Shift swaps directory entries 0 and 1; the view finds lumps by
//! name, so it reads both orders.
//!
//! [`lumps`] holds the branch descriptors; everything else is shared with Quake 1.

pub mod family;
pub mod lumps;

pub use lumps::*;

use crate::branches::quake1::records::Bsp29;

/// Typed access to a GoldSrc or Blue Shift map.
pub type View<'a> = crate::branches::quake1::view::View<'a, Bsp29>;
