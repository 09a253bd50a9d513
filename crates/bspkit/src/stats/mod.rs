//! The rows of a family's native info tool (`bspinfo`, `4bsp`, `q3map2 -info`, `vbspinfo`,
//! `cod4map -info`, GBSPLib's save table), computed from the map. [`stats`] asks the family's
//! [`crate::branches::ops::FamilyOps`] value for its rows; Respawn maps, which have no native tool, get a contents table;
//! [`generic`] gives a row per non-empty lump.

pub mod stat;

pub use stat::Stat;

use crate::branches::any;
use crate::bsp::Bsp;

/// The native tool's rows for this map.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    any::of(bsp.family()).stats(bsp)
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
