//! One module per engine branch. Each declares its lump table (names, indices, record sizes
//! per version), its record types and its info/check hooks.

pub mod cod;
pub mod goldsrc;
pub mod quake1;
pub mod quake2;
pub mod quake3;
pub mod respawn;
pub mod source;

use crate::branch::Branch;

/// Every branch this library knows, for `--branch` and `bsp formats`.
pub fn all() -> Vec<&'static Branch> {
    let mut v: Vec<&'static Branch> = vec![
        &quake1::QUAKE1,
        &quake1::BSP2,
        &quake1::BSP2PSB,
        &quake1::HEXEN2,
        &goldsrc::GOLDSRC,
        &goldsrc::BLUESHIFT,
        &quake2::QUAKE2,
        &quake2::QBISM,
        &quake3::QUAKE3,
        &quake3::IBSP47,
        &quake3::QUAKELIVE,
        &quake3::RBSP,
        &quake3::FBSP,
    ];
    v.extend(source::BRANCHES.iter().copied());
    v.extend(respawn::BRANCHES.iter().copied());
    v.push(&cod::COD4);
    v
}

/// Look a branch up by its id.
pub fn by_id(id: &str) -> Option<&'static Branch> {
    all().into_iter().find(|b| b.id.eq_ignore_ascii_case(id))
}
