//! BSPX: the extension lump directory some compilers (ericw-tools and others) append after the
//! last standard lump of Quake 1 / BSP2 / GoldSrc / Quake 2 maps (quake_facts.md §2).
//!
//! ```text
//! at align4(end of the last standard lump):
//! char magic[4] = "BSPX"; u32 count;
//! { char name[24]; u32 offset; u32 length; }[count]   // offsets from the start of the file
//! ```
//!
//! Engines that do not know BSPX ignore the trailing bytes, so its absence is not an error.

use std::borrow::Cow;

use crate::bsp::Bsp;
use crate::bytes::{c_str, u32_at, Endian};
use crate::directory::LumpEntry;
use crate::error::{Error, Result};

/// One BSPX lump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BspxEntry {
    /// The 24-byte name field as stored (NUL-padded).
    pub name: [u8; 24],
    /// Byte offset from the start of the file.
    pub offset: u64,
    pub length: u64,
}

impl BspxEntry {
    pub fn name(&self) -> Cow<'_, str> {
        c_str(&self.name)
    }
}

/// The BSPX directory of a map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bspx {
    /// Offset of the `"BSPX"` magic in the file.
    pub offset: u64,
    pub entries: Vec<BspxEntry>,
}

impl Bspx {
    /// The entry with this name (exact, case-sensitive as the engines compare).
    pub fn get(&self, name: &str) -> Option<&BspxEntry> {
        self.entries.iter().find(|e| e.name() == name)
    }
    /// The bytes of the named lump within `data` (the whole file).
    pub fn lump<'d>(&self, data: &'d [u8], name: &str) -> Option<&'d [u8]> {
        let e = self.get(name)?;
        crate::bytes::slice(data, e.offset, e.length).ok()
    }
}

/// Where a BSPX block would start: after the header and every non-empty lump, rounded up to 4.
/// Empty lumps are left out: compilers may leave stale offsets in them.
pub fn start(header_len: usize, lumps: &[LumpEntry]) -> u64 {
    let end = lumps.iter().filter(|e| e.length > 0).map(|e| e.offset.saturating_add(e.length)).fold(header_len as u64, u64::max);
    end.saturating_add(3) & !3
}

/// Read the BSPX directory from a whole file, given the standard directory. `Ok(None)` when
/// the file has no BSPX block; an error when the block is there but does not fit the file.
pub fn parse(data: &[u8], header_len: usize, lumps: &[LumpEntry]) -> Result<Option<Bspx>> {
    let at = start(header_len, lumps);
    let Ok(at_usize) = usize::try_from(at) else { return Ok(None) };
    if data.get(at_usize..at_usize.saturating_add(4)) != Some(b"BSPX") {
        return Ok(None);
    }
    let le = Endian::Little;
    let count = u32_at(data, at_usize + 4, le).ok_or_else(|| Error::truncated(at + 8, data.len() as u64).at(at))? as u64;
    let dir_end = at + 8 + count * 32;
    if dir_end > data.len() as u64 {
        return Err(Error::malformed(format!("BSPX directory of {count} entries runs past the end of the file")).in_lump("BSPX").at(at));
    }
    let mut entries = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let e = at_usize + 8 + 32 * i;
        let name: [u8; 24] = crate::bytes::array(data, e).unwrap_or([0; 24]);
        let offset = u32_at(data, e + 24, le).unwrap_or(0) as u64;
        let length = u32_at(data, e + 28, le).unwrap_or(0) as u64;
        if offset + length > data.len() as u64 {
            return Err(Error::malformed(format!(
                "BSPX lump {} ({offset}+{length}) lies outside the file ({} bytes)",
                c_str(&name),
                data.len()
            ))
            .in_lump("BSPX")
            .at(e as u64));
        }
        entries.push(BspxEntry { name, offset, length });
    }
    Ok(Some(Bspx { offset: at, entries }))
}

/// The BSPX directory of an opened map (errors located in the map's file).
pub fn of(bsp: &Bsp) -> Result<Option<Bspx>> {
    parse(bsp.data(), bsp.header().len, bsp.lumps()).map_err(|e| match bsp.path() {
        Some(p) => e.in_file(p),
        None => e,
    })
}

/// Bytes of a BSPX block placed at `at` (which must be 4-aligned) holding `lumps` in order,
/// each padded to 4 bytes, as ericw-tools lays them out.
pub fn encode(at: u64, lumps: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = b"BSPX".to_vec();
    out.extend_from_slice(&(lumps.len() as u32).to_le_bytes());
    let mut pos = at + 8 + 32 * lumps.len() as u64;
    for (name, bytes) in lumps {
        let mut field = [0u8; 24];
        for (d, s) in field.iter_mut().take(23).zip(name.bytes()) {
            *d = s;
        }
        out.extend_from_slice(&field);
        out.extend_from_slice(&(pos as u32).to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        pos += (bytes.len() as u64 + 3) & !3;
    }
    for (_, bytes) in lumps {
        out.extend_from_slice(bytes);
        out.resize((out.len() + 3) & !3, 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::directory::LumpOrigin;

    fn entry(offset: u64, length: u64) -> LumpEntry {
        LumpEntry { index: 0, name: "X", offset, length, version: None, fourcc: None, compressed: false, origin: LumpOrigin::File }
    }

    #[test]
    fn finds_and_bounds_the_directory() {
        // Header 8 bytes, one lump of 5 bytes at 8: the block starts at align4(13) = 16.
        let mut file = vec![0u8; 16];
        file.extend(encode(16, &[("RGBLIGHTING", &[1, 2, 3]), ("BRUSHLIST", &[9; 8])]));
        let lumps = [entry(8, 5)];
        let x = parse(&file, 8, &lumps).unwrap().unwrap();
        assert_eq!(x.offset, 16);
        assert_eq!(x.entries.len(), 2);
        assert_eq!(x.lump(&file, "RGBLIGHTING"), Some(&[1u8, 2, 3][..]));
        assert_eq!(x.lump(&file, "BRUSHLIST"), Some(&[9u8; 8][..]));
        assert!(x.get("LMSHIFT").is_none());
        // No magic: no BSPX.
        assert_eq!(parse(&file[..16], 8, &lumps).unwrap(), None);
        // A count the file cannot hold, and an entry past the end, are errors.
        let mut bad = file.clone();
        bad[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&bad, 8, &lumps).is_err());
        let mut bad = file.clone();
        bad[24 + 28..24 + 32].copy_from_slice(&1000u32.to_le_bytes());
        assert!(parse(&bad, 8, &lumps).is_err());
    }
}
