//! [`Detection`]: which branch a file is, and why.

use crate::branch::Branch;
use crate::bytes::Endian;

/// The outcome of detection.
#[derive(Debug, Clone)]
pub struct Detection {
    pub branch: &'static Branch,
    pub version: u32,
    pub endian: Endian,
    /// Evidence for the choice, in the order it was weighed.
    pub why: Vec<String>,
    /// Other branches the bytes would also fit, with the reason they lost.
    pub runners_up: Vec<(&'static str, String)>,
}

impl Detection {
    pub(crate) fn new(branch: &'static Branch, version: u32, endian: Endian, why: String) -> Self {
        Detection { branch, version, endian, why: vec![why], runners_up: Vec::new() }
    }
}
