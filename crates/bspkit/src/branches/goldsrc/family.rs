//! GoldSrc and Blue Shift as one [`FamilyOps`](crate::branches::ops::FamilyOps) value,
//! [`FAMILY`]: Quake 1's concerns, read with BSP29 records, under the GoldSrc family.

use crate::branch::Family;
use crate::branches::quake1::family::Quake1Family;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: Quake1Family = Quake1Family(Family::GoldSrc);
