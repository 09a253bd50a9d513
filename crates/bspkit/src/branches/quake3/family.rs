//! Quake 3 and its branches as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family layer calls
//! (listed once for all families in [`crate::branches::any`]).

use super::check;
use crate::branch::Family;
use crate::branches::ops::FamilyOps;
use crate::bsp::Bsp;
use crate::check::problem::Problem;

/// The Quake 3 and its branches family.
pub struct Quake3Family;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: Quake3Family = Quake3Family;

impl FamilyOps for Quake3Family {
    fn family(&self) -> Family {
        Family::Quake3
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }
}
