//! The rows of a family's native info tool (`bspinfo`, `4bsp`, `q3map2 -info`, `vbspinfo`,
//! `cod4map -info`), computed from the map. Each branch supplies its rows through
//! [`crate::branch::Branch::stats`]; branches without one get a row per non-empty lump.

use crate::bsp::Bsp;

/// One row: the native tool's row name, its object count (`None` for variable-size data)
/// and its size in bytes. `max_*` are the engine limits where the native tool prints them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stat {
    pub name: String,
    pub count: Option<u64>,
    pub bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

impl Stat {
    pub fn new(name: impl Into<String>, count: Option<u64>, bytes: u64) -> Self {
        Stat { name: name.into(), count, bytes, max_count: None, max_bytes: None }
    }
    /// A row for a record lump: count = length / record size.
    pub fn records(name: &str, bsp: &Bsp, index: usize, record_size: usize) -> Self {
        let bytes = bsp.lump(index).map(|l| l.len() as u64).unwrap_or(0);
        Stat::new(name, Some(bytes / record_size.max(1) as u64), bytes)
    }
    /// A row for variable-size data (no count).
    pub fn bytes_only(name: &str, bsp: &Bsp, index: usize) -> Self {
        let bytes = bsp.lump(index).map(|l| l.len() as u64).unwrap_or(0);
        Stat::new(name, None, bytes)
    }
}

/// The native tool's rows for this map.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    match bsp.branch().stats {
        Some(f) => f(bsp),
        None => generic(bsp),
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
