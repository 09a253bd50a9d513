//! The registry of every branch descriptor, for detection, `--branch` and `bsp formats`. It
//! names only the families' `lumps` modules (data), so detection sits below `Bsp`.

use super::cod::lumps as cod;
use super::genesis3d::lumps as genesis3d;
use super::goldsrc::lumps as goldsrc;
use super::nightfire::lumps as nightfire;
use super::quake1::lumps as quake1;
use super::quake2::lumps as quake2;
use super::quake3::lumps as quake3;
use super::respawn::lumps as respawn;
use super::source::lumps as source;
use crate::branch::Branch;

/// Every branch this library knows, for `--branch` and `bsp formats`.
pub fn all() -> Vec<&'static Branch> {
    let mut v: Vec<&'static Branch> = vec![
        &quake1::QUAKE1,
        &quake1::BSP2,
        &quake1::BSP2PSB,
        &quake1::QUAKE64,
        &quake1::HEXEN2,
        &goldsrc::GOLDSRC,
        &goldsrc::BLUESHIFT,
        &nightfire::NIGHTFIRE,
        &quake2::QUAKE2,
        &quake2::QBISM,
        &quake2::SIN,
        &quake2::SOF,
        &quake2::DAIKATANA,
        &quake3::QUAKE3,
        &quake3::IBSP47,
        &quake3::QUAKELIVE,
        &quake3::RBSP,
        &quake3::FBSP,
    ];
    v.extend(quake3::RITUAL.iter().copied());
    v.extend(source::BRANCHES.iter().copied());
    v.extend(respawn::BRANCHES.iter().copied());
    v.push(&cod::COD4);
    v.extend([&cod::COD1_DEMO, &cod::COD1, &cod::COD2]);
    v.push(&genesis3d::GENESIS3D);
    v
}

/// Look a branch up by its id.
pub fn by_id(id: &str) -> Option<&'static Branch> {
    all().into_iter().find(|b| b.id.eq_ignore_ascii_case(id))
}
