//! Is this a Genesis3D level? The file has no magic at offset 0: it starts with the header
//! chunk `{type 0, size 28, elements 1}`, whose data is the tag `"GBSP\0"` and the version
//! (engine `Gbspfile.cpp`: the loader checks the tag and `GBSP_VERSION` 15).

use super::lumps::{GBSP_VERSION, GENESIS3D, VERSION_OFFSET};
use crate::bytes::{u32_at, Endian};
use crate::detect::detection::Detection;
use crate::error::{Error, ErrorKind, Result};

/// Does the file start with a `GBSP` header chunk?
pub fn matches(data: &[u8]) -> bool {
    data.get(0..4) == Some(&[0, 0, 0, 0]) && data.get(12..16) == Some(b"GBSP")
}

/// Detection for a file [`matches()`] accepts: version 15, the one the engine loads.
pub fn select(data: &[u8]) -> Result<Detection> {
    let version = u32_at(data, VERSION_OFFSET, Endian::Little).unwrap_or(0);
    let size = u32_at(data, 4, Endian::Little).unwrap_or(0);
    if version != GBSP_VERSION {
        return Err(Error::new(ErrorKind::UnsupportedVersion { magic: "GBSP".into(), version: version as i64 })
            .in_lump("header")
            .at(VERSION_OFFSET as u64));
    }
    Ok(Detection::new(
        &GENESIS3D,
        version,
        Endian::Little,
        format!("chunk 0 (header, {size} bytes) holds tag \"GBSP\", version {version}: Genesis3D chunk file"),
    ))
}
