//! [`Stat`], one row of a native info tool's table, and its constructors.

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
    /// The same row with the engine's limit in bytes (the native tool's Limit% / Fullness
    /// column divides `bytes` by it).
    pub fn with_max_bytes(self, max_bytes: u64) -> Self {
        Stat { max_bytes: Some(max_bytes), ..self }
    }
    /// A row for variable-size data (no count).
    pub fn bytes_only(name: &str, bsp: &Bsp, index: usize) -> Self {
        let bytes = bsp.lump(index).map(|l| l.len() as u64).unwrap_or(0);
        Stat::new(name, None, bytes)
    }
}
