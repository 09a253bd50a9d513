//! The lump directory: parsing each header form into one list of [`LumpEntry`].

pub mod chunks;

use crate::branch::{Branch, HeaderKind};
use crate::bytes::{i32_at, u32_at, Endian};
use crate::error::{Error, ErrorKind, Result};

/// The fixed fields of a file header, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The 4-byte magic, where the format has one.
    pub magic: Option<[u8; 4]>,
    /// The version number (for Quake 1 / GoldSrc, the leading integer).
    pub version: u32,
    /// Source `mapRevision` / Respawn map revision.
    pub revision: Option<u32>,
    /// Respawn's third header field (127 in every known map).
    pub extra: Option<u32>,
    /// Byte length of the header including the lump directory.
    pub len: usize,
}

/// Where a lump's bytes came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LumpOrigin {
    /// Inside the `.bsp` at `offset`.
    File,
    /// A Valve `.lmp` beside the map (its 20-byte header stripped).
    Lmp(std::path::PathBuf),
    /// A Respawn `.bsp_lump` beside the map.
    BspLump(std::path::PathBuf),
}

/// One lump directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LumpEntry {
    /// Slot in the directory (Quake/Source/Respawn), or the lump id (Call of Duty).
    pub index: usize,
    /// The branch's name for the slot (`UNKNOWN_<n>` when the branch names none).
    pub name: &'static str,
    /// Byte offset from the start of the file.
    pub offset: u64,
    /// Byte length as stored in the directory (compressed length for LZMA lumps).
    pub length: u64,
    /// Lump format version (Source, Respawn).
    pub version: Option<u32>,
    /// Source `fourCC` (the uncompressed length for LZMA lumps) / Respawn's fourth field.
    pub fourcc: Option<u32>,
    /// The stored bytes begin with Valve's LZMA header.
    pub compressed: bool,
    pub origin: LumpOrigin,
}

fn name_of(branch: &Branch, index: usize) -> &'static str {
    match branch.lumps.get(index) {
        Some(def) => def.name,
        None => unknown_name(index),
    }
}

/// `UNKNOWN_<n>` names for slots that a branch leaves unnamed (interned for the 'static lifetime).
pub fn unknown_name(index: usize) -> &'static str {
    const N: usize = 128;
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| (0..N).map(|i| format!("UNKNOWN_{i}")).collect());
    names.get(index).map(String::as_str).unwrap_or("UNKNOWN")
}

/// Most `{id, length}` entries accepted in a Call of Duty lump list.
pub const MAX_COD_CHUNKS: u64 = 1024;

fn need(data: &[u8], len: usize) -> Result<()> {
    if data.len() < len {
        Err(Error::truncated(len as u64, data.len() as u64).in_lump("header"))
    } else {
        Ok(())
    }
}

/// Parse the header and directory of `data` as `branch` in byte order `endian`.
/// Entries are returned in directory order and are bounds-checked against the file
/// (empty lumps are exempt: many compilers leave stale offsets in them).
pub fn parse(data: &[u8], branch: &'static Branch, endian: Endian) -> Result<(Header, Vec<LumpEntry>)> {
    parse_with(data, branch, endian, false)
}

/// [`parse`], optionally keeping entries that point past the end of the file (`beyond_eof`):
/// Apex maps may hold only the header, every lump living in a `.bsp_lump` (respawn_cod_facts.md
/// §1.1). The caller must then check with [`out_of_bounds`] once external lumps are loaded.
pub fn parse_with(data: &[u8], branch: &'static Branch, endian: Endian, beyond_eof: bool) -> Result<(Header, Vec<LumpEntry>)> {
    let rd = |off: usize| u32_at(data, off, endian).unwrap_or(0);
    let (header, entries) = match branch.header {
        HeaderKind::Quake { .. } | HeaderKind::IdMagic { .. } | HeaderKind::Ritual { .. } | HeaderKind::IdLengthFirst { .. } => {
            // `{offset, length}` pairs after the version (Quake), the magic and version (id), or
            // the magic, version and checksum (Ritual); `{length, offset}` in Call of Duty 1 / 2.
            let (magic, version, base) = match branch.header {
                HeaderKind::IdMagic { magic } | HeaderKind::IdLengthFirst { magic } => (Some(magic), rd(4), 8),
                HeaderKind::Ritual { magic } => (Some(magic), rd(4), 12),
                HeaderKind::Quake { magic } => (magic, rd(0), 4),
                _ => (None, 0, 4),
            };
            let n = branch.lumps.len();
            let len = base + 8 * n;
            need(data, len)?;
            let entries = (0..n)
                .map(|i| {
                    let b = base + 8 * i;
                    let (o, l) = if matches!(branch.header, HeaderKind::IdLengthFirst { .. }) { (b + 4, b) } else { (b, b + 4) };
                    (i, i32_at(data, o, endian).unwrap_or(0) as i64, i32_at(data, l, endian).unwrap_or(0) as i64, None, None)
                })
                .collect();
            (Header { magic, version, revision: None, extra: None, len }, entries)
        }
        HeaderKind::Valve { version_first } => {
            // source.md §3: 4 + 4 + 64 × 16 + 4 = 1036 bytes.
            let len = 8 + 64 * 16 + 4;
            need(data, len)?;
            let entries = (0..64)
                .map(|i| {
                    let b = 8 + 16 * i;
                    let (ofs, flen, ver) = if version_first { (rd(b + 4), rd(b + 8), rd(b)) } else { (rd(b), rd(b + 4), rd(b + 8)) };
                    (i, ofs as i32 as i64, flen as i32 as i64, Some(ver), Some(rd(b + 12)))
                })
                .collect();
            let magic = crate::bytes::array::<4>(data, 0);
            (Header { magic, version: rd(4), revision: Some(rd(8 + 64 * 16)), extra: None, len }, entries)
        }
        HeaderKind::Respawn => {
            // open_questions.md B6: magic, version, revision, 127, then 128 × lump_t.
            let len = 16 + 128 * 16;
            need(data, len)?;
            let entries = (0..128)
                .map(|i| {
                    let b = 16 + 16 * i;
                    (i, rd(b) as i32 as i64, rd(b + 4) as i32 as i64, Some(rd(b + 8)), Some(rd(b + 12)))
                })
                .collect();
            let magic = crate::bytes::array::<4>(data, 0);
            (Header { magic, version: rd(4), revision: Some(rd(8)), extra: Some(rd(12)), len }, entries)
        }
        HeaderKind::CodLumpList => {
            need(data, 12)?;
            let count = rd(8) as u64;
            // Each entry is 8 bytes; a count the file can't hold is malformed, not an allocation.
            let dir_len = 12u64.saturating_add(count.saturating_mul(8));
            if dir_len > data.len() as u64 {
                return Err(Error::truncated(dir_len, data.len() as u64).in_lump("header").at(8));
            }
            // Lumps are looked up by id with a scan of the list, so a huge list (the count is
            // only bounded by the file size) would make every lookup slow. Real maps list 24-34
            // chunks and the engine has room for 100 (respawn_cod_facts.md §2.1).
            if count > MAX_COD_CHUNKS {
                return Err(Error::new(ErrorKind::LimitExceeded { what: "d3dbsp chunk count", requested: count, limit: MAX_COD_CHUNKS })
                    .in_lump("header")
                    .at(8));
            }
            let mut offset = dir_len as i64;
            let mut entries = Vec::with_capacity(count as usize);
            for i in 0..count as usize {
                let id = rd(12 + 8 * i) as usize;
                let length = rd(16 + 8 * i) as i64;
                entries.push((id, offset, length, None, None));
                // Lumps follow the directory in its order, each padded to 4 bytes.
                offset = offset.saturating_add((length + 3) & !3);
            }
            let magic = crate::bytes::array::<4>(data, 0);
            (Header { magic, version: rd(4), revision: None, extra: None, len: dir_len as usize }, entries)
        }
        HeaderKind::Chunks => {
            // Genesis3D: the chain of chunk headers is the directory; a lump is a chunk's data,
            // its index the chunk type. The header is the first chunk header (the GBSP tag and
            // version are the data of chunk 0, lump HEADER).
            need(data, chunks::HEADER_LEN)?;
            let chain = chunks::walk(data)?;
            let entries = chain
                .chunks
                .iter()
                .map(|c| (c.kind as usize, c.data_at() as i64, i64::try_from(c.len).unwrap_or(i64::MAX), None, None))
                .collect();
            let magic = crate::bytes::array::<4>(data, 12);
            (Header { magic, version: rd(20), revision: None, extra: None, len: chunks::HEADER_LEN }, entries)
        }
    };
    let file_size = data.len() as u64;
    let mut out = Vec::with_capacity(entries.len());
    for (index, offset, length, version, fourcc) in entries {
        let name = name_of(branch, index);
        let past_end = length > 0 && (offset as u64).saturating_add(length as u64) > file_size;
        if offset < 0 || length < 0 || (past_end && !beyond_eof) {
            return Err(out_of_bounds_error(index, name, offset, length, file_size));
        }
        let (offset, length) = (offset as u64, length as u64);
        let compressed = matches!(branch.header, HeaderKind::Valve { .. })
            && length >= 17
            && data.get(offset as usize..offset as usize + 4) == Some(b"LZMA");
        out.push(LumpEntry { index, name, offset, length, version, fourcc, compressed, origin: LumpOrigin::File });
    }
    Ok((header, out))
}

fn out_of_bounds_error(index: usize, name: &str, offset: i64, length: i64, file_size: u64) -> Error {
    Error::new(ErrorKind::LumpOutOfBounds { offset, length, file_size }).in_lump(format!("{index} ({name})")).at(offset.max(0) as u64)
}

/// The first in-file entry that lies outside a file of `file_size` bytes, as an error.
pub fn out_of_bounds(entries: &[LumpEntry], file_size: u64) -> Option<Error> {
    entries.iter().find(|e| e.origin == LumpOrigin::File && e.length > 0 && e.offset.saturating_add(e.length) > file_size).map(|e| {
        out_of_bounds_error(
            e.index,
            e.name,
            i64::try_from(e.offset).unwrap_or(i64::MAX),
            i64::try_from(e.length).unwrap_or(i64::MAX),
            file_size,
        )
    })
}
