//! Respawn (Titanfall, Titanfall 2, Apex Legends) as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family layer calls
//! (listed once for all families in [`crate::branches::any`]).

use super::check;
use crate::branch::Family;
use crate::branches::ops::FamilyOps;
use crate::bsp::Bsp;
use crate::check::problem::Problem;

/// The Respawn (Titanfall, Titanfall 2, Apex Legends) family.
pub struct RespawnFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: RespawnFamily = RespawnFamily;

impl FamilyOps for RespawnFamily {
    fn family(&self) -> Family {
        Family::Respawn
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }
}
