//! Valve external lump files, `<map>_l_<n>.lmp` (bsp_tool_notes.md §4.1): a 20-byte header
//! `{ i32 offset (=20), i32 lumpIndex, i32 version, i32 length, i32 mapRevision }` then the data.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LmpHeader {
    pub offset: u32,
    pub lump_index: u32,
    pub version: u32,
    pub length: u32,
    pub revision: u32,
}

pub const LMP_HEADER_LEN: usize = 20;

impl LmpHeader {
    pub fn to_bytes(&self) -> [u8; 20] {
        let mut b = [0u8; 20];
        for (i, v) in [self.offset, self.lump_index, self.version, self.length, self.revision].into_iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        b
    }
}

/// A parsed `.lmp` file borrowing its bytes.
#[derive(Debug, Clone)]
pub struct LmpFile<'a> {
    pub header: LmpHeader,
    pub data: &'a [u8],
}

impl<'a> LmpFile<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        if bytes.len() < LMP_HEADER_LEN {
            return Err(Error::truncated(LMP_HEADER_LEN as u64, bytes.len() as u64).in_lump("lmp header"));
        }
        let rd = |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        let header = LmpHeader { offset: rd(0), lump_index: rd(4), version: rd(8), length: rd(12), revision: rd(16) };
        if header.lump_index >= 64 {
            return Err(Error::malformed(format!("lump index {} is out of range 0..64", header.lump_index)).in_lump("lmp header").at(4));
        }
        // Offsets and lengths are read as unsigned: a negative i32 becomes a huge value and fails the range check below.
        let start = header.offset as u64;
        let end = start + header.length as u64;
        if start < LMP_HEADER_LEN as u64 || end > bytes.len() as u64 {
            return Err(Error::malformed(format!("data range {start}+{} lies outside the {}-byte file", header.length, bytes.len()))
                .in_lump("lmp header")
                .at(0));
        }
        Ok(LmpFile { header, data: &bytes[start as usize..end as usize] })
    }
}

/// The bytes of a `.lmp` file holding `data` as lump `lump_index` (header + data; §4.1).
/// `version` should be the lump's `lump_t.version` and `revision` the map's `mapRevision`.
pub fn write_lmp(lump_index: u32, version: u32, revision: u32, data: &[u8]) -> Result<Vec<u8>> {
    if lump_index >= 64 {
        return Err(Error::malformed(format!("lump index {lump_index} is out of range 0..64")));
    }
    let length = u32::try_from(data.len()).map_err(|_| {
        Error::new(crate::error::ErrorKind::LimitExceeded { what: "lmp data size", requested: data.len() as u64, limit: u32::MAX as u64 })
    })?;
    let header = LmpHeader { offset: LMP_HEADER_LEN as u32, lump_index, version, length, revision };
    let mut out = Vec::with_capacity(LMP_HEADER_LEN + data.len());
    out.extend_from_slice(&header.to_bytes());
    out.extend_from_slice(data);
    Ok(out)
}

/// The conventional file name of lump `index`'s `.lmp` beside the map `map_path`.
pub fn lmp_path(map_path: &Path, index: u32) -> PathBuf {
    let stem = map_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    map_path.with_file_name(format!("{stem}_l_{index}.lmp"))
}

/// A `.lmp` sibling of a map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LmpSibling {
    pub path: PathBuf,
    /// `l`, `h` or `s` (the L4D game-mode variants).
    pub kind: char,
    /// The number in the file name.
    pub number: u32,
}

/// Find `<stem>_l_<n>.lmp` (and `_h_`, `_s_`) beside `map`, `_l_` files ordered by number.
/// Only `_l_` files are applied when opening; the others are listed.
pub fn find_siblings(map: &Path) -> Result<Vec<LmpSibling>> {
    let all = list_siblings(map)?;
    Ok(all.into_iter().filter(|s| s.kind == 'l').collect())
}

/// Every `.lmp` sibling of `map`, of all three kinds.
pub fn list_siblings(map: &Path) -> Result<Vec<LmpSibling>> {
    let Some(stem) = map.file_stem().map(|s| s.to_string_lossy().into_owned()) else { return Ok(Vec::new()) };
    let dir = match map.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(rd) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&stem) else { continue };
        let Some(rest) = rest.strip_suffix(".lmp") else { continue };
        let mut chars = rest.chars();
        if chars.next() != Some('_') {
            continue;
        }
        let Some(kind) = chars.next().filter(|c| matches!(c, 'l' | 'h' | 's')) else { continue };
        if chars.next() != Some('_') {
            continue;
        }
        if let Ok(number) = chars.as_str().parse::<u32>() {
            out.push(LmpSibling { path: entry.path(), kind, number });
        }
    }
    out.sort_by_key(|s| (s.kind, s.number));
    Ok(out)
}
