//! The one file that names every engine family's [`FamilyOps`] value (as the `object` crate's
//! `read/any.rs` names its formats). Every cross-family layer — checks, stats, schemas, scenes,
//! lightmaps, texture names — asks [`of`] for the map's family and calls through the trait.
//!
//! # Adding a family
//! 1. A variant of [`Family`] (`branch.rs`: the name reported as `format.family`).
//! 2. A folder `branches/<family>/` with its `lumps` (branch descriptors, data) and its
//!    concerns, and a `family.rs` implementing [`FamilyOps`] as one value `FAMILY` (the
//!    required methods: checks, stats rows, schemas, scene, texture names; defaults for the
//!    rest, e.g. lighting).
//! 3. One line in [`of`] below, and its branches in [`super::registry`] (detection and
//!    `--branch` sit below `Bsp`, so they list the descriptors, not this trait).
//!
//! The test `tests::a_new_family_needs_only_the_required_methods` implements the trait with the
//! required methods alone, so the list above is checked to be complete.

use super::ops::FamilyOps;
use crate::branch::Family;

/// The value of `family`: the one place that maps a family to its behaviour.
pub fn of(family: Family) -> &'static dyn FamilyOps {
    match family {
        Family::Quake => &super::quake1::family::FAMILY,
        Family::GoldSrc => &super::goldsrc::family::FAMILY,
        Family::Quake2 => &super::quake2::family::FAMILY,
        Family::Quake3 => &super::quake3::family::FAMILY,
        Family::Source => &super::source::family::FAMILY,
        Family::Respawn => &super::respawn::family::FAMILY,
        Family::Cod => &super::cod::family::FAMILY,
        Family::Genesis3D => &super::genesis3d::family::FAMILY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_branch_reaches_the_value_of_its_family() {
        for b in crate::branches::all() {
            assert_eq!(of(b.family).family(), b.family, "{}", b.id);
        }
    }
}
