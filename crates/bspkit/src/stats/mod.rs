//! The rows of a family's native info tool (`bspinfo`, `4bsp`, `q3map2 -info`, `vbspinfo`,
//! `cod4map -info`, GBSPLib's save table), computed from the map. [`stats`] is the one place that
//! maps a family to its rows; Respawn maps, which have no native tool, get a contents table;
//! [`generic`] gives a row per non-empty lump.

pub mod stat;

pub use stat::Stat;

use crate::branch::Family;
use crate::branches::{cod, genesis3d, quake1, quake2, quake3, respawn, source};
use crate::bsp::Bsp;

/// The native tool's rows for this map.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    match bsp.family() {
        Family::Quake | Family::GoldSrc => quake1::stats::bspinfo(bsp),
        Family::Quake2 => quake2::stats::stats(bsp),
        Family::Quake3 => quake3::stats::q3map2_info(bsp),
        Family::Source => source::stats::stats(bsp),
        Family::Cod => cod::stats::stats(bsp),
        Family::Genesis3D => genesis3d::stats::stats(bsp),
        // No native info tool exists for Respawn maps: a contents table instead.
        Family::Respawn => respawn::stats::stats(bsp),
    }
}

/// One row per non-empty lump, named after the lump in lower case.
pub fn generic(bsp: &Bsp) -> Vec<Stat> {
    bsp.lumps()
        .iter()
        .filter(|e| e.length > 0)
        .map(|e| {
            let bytes = bsp.lump(e.index).map(|l| l.len() as u64).unwrap_or(e.length);
            let count = bsp.record_size(e.index).map(|s| bytes / s as u64);
            Stat::new(e.name.to_ascii_lowercase(), count, bytes)
        })
        .collect()
}
