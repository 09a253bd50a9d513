//! Source as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family layer calls
//! (listed once for all families in [`crate::branches::any`]).

use super::check;
use crate::branch::Family;
use crate::branches::ops::FamilyOps;
use crate::bsp::Bsp;
use crate::check::problem::Problem;

/// The Source family.
pub struct SourceFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: SourceFamily = SourceFamily;

impl FamilyOps for SourceFamily {
    fn family(&self) -> Family {
        Family::Source
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }

    fn check_reads(&self) -> Option<&'static [usize]> {
        Some(check::READS)
    }
}
