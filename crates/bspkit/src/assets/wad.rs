//! WAD2 (Quake) and WAD3 (GoldSrc) texture archives.
//!
//! ```text
//! char magic[4]          "WAD2" | "WAD3"
//! i32  count             directory entries
//! i32  dir_offset        from the file start
//! entry[count], 32 bytes each:
//!   i32 offset; i32 disk_size; i32 size; u8 type; u8 compression; u16 pad; char name[16]
//! ```
//!
//! Type `0x44` (`'D'`) is a Quake miptex, `0x43` (`'C'`) a GoldSrc miptex (the BSP texture
//! layout, quake_family.md B.4, with its own palette after the mips); `0x42` is a status-bar
//! picture and `0x40` a palette. Compression is always 0 in practice (`1` was reserved for LZSS
//! and never used); compressed entries are refused.
//!
//! Written here rather than taken from a crate: the WAD crates on crates.io are small,
//! unmaintained and read the whole directory without bounds checks. Every count and offset is
//! checked against the file before use, so a hostile directory cannot make this allocate more
//! than the file holds.

use crate::bytes::{c_str, i32_at, Endian};
use crate::error::{Error, Result};
use crate::lumps::miptex::MipTex;

pub const TYPE_PALETTE: u8 = 0x40;
pub const TYPE_QPIC: u8 = 0x42;
/// GoldSrc miptex with palette (WAD3).
pub const TYPE_MIPTEX_WAD3: u8 = 0x43;
/// Quake miptex (WAD2).
pub const TYPE_MIPTEX_WAD2: u8 = 0x44;

const ENTRY_LEN: usize = 32;

/// Which WAD format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WadVersion {
    /// Quake: miptex use the game palette.
    Wad2,
    /// GoldSrc: miptex carry their own palette.
    Wad3,
}

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WadEntry {
    pub name: String,
    pub offset: u32,
    pub disk_size: u32,
    pub size: u32,
    pub kind: u8,
    pub compression: u8,
    /// Position of the directory entry in the file (for error messages).
    pub entry_offset: u64,
}

/// A parsed WAD borrowing its bytes.
#[derive(Debug, Clone)]
pub struct Wad<'a> {
    data: &'a [u8],
    pub version: WadVersion,
    pub entries: Vec<WadEntry>,
}

impl<'a> Wad<'a> {
    /// Parse the header and directory. Entries whose data lies outside the file are kept (their
    /// read fails with an error naming them), so one bad entry does not hide the others.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let version = match data.get(..4) {
            Some(b"WAD2") => WadVersion::Wad2,
            Some(b"WAD3") => WadVersion::Wad3,
            _ => return Err(Error::malformed(format!("not a WAD2/WAD3 file (starts {})", crate::bytes::describe_head(data))).at(0)),
        };
        let count = i32_at(data, 4, Endian::Little).ok_or_else(|| Error::truncated(12, data.len() as u64).at(4))?;
        let dir = i32_at(data, 8, Endian::Little).ok_or_else(|| Error::truncated(12, data.len() as u64).at(8))?;
        let (Ok(count), Ok(dir)) = (u64::try_from(count), u64::try_from(dir)) else {
            return Err(Error::malformed(format!("negative WAD entry count {count} or directory offset {dir}")).at(4));
        };
        let end = count.checked_mul(ENTRY_LEN as u64).and_then(|n| n.checked_add(dir));
        if end.map_or(true, |e| e > data.len() as u64) {
            return Err(Error::malformed(format!("WAD directory of {count} entries at {dir} runs past the {}-byte file", data.len())).at(8));
        }
        let mut entries = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            let at = dir as usize + i * ENTRY_LEN;
            let e = &data[at..at + ENTRY_LEN];
            let le = |o: usize| u32::from_le_bytes([e[o], e[o + 1], e[o + 2], e[o + 3]]);
            entries.push(WadEntry {
                name: c_str(&e[16..32]).into_owned(),
                offset: le(0),
                disk_size: le(4),
                size: le(8),
                kind: e[12],
                compression: e[13],
                entry_offset: at as u64,
            });
        }
        Ok(Wad { data, version, entries })
    }

    /// The entry with this name, ignoring ASCII case (the engines compare names that way).
    /// The last of several entries with the same name wins, as in the engines' lookups.
    pub fn find(&self, name: &str) -> Option<&WadEntry> {
        self.entries.iter().rev().find(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// The stored bytes of an entry.
    pub fn data(&self, entry: &WadEntry) -> Result<&'a [u8]> {
        entry.data_in(self.data)
    }

    /// An entry read as a miptex (types `0x43` / `0x44`); WAD3 miptex carry their palette.
    pub fn miptex(&self, entry: &WadEntry) -> Result<MipTex<'a>> {
        entry.miptex_in(self.data)
    }
}

impl WadEntry {
    /// The stored bytes of this entry in the WAD file `file`.
    pub fn data_in<'d>(&self, file: &'d [u8]) -> Result<&'d [u8]> {
        let entry = self;
        if entry.compression != 0 {
            return Err(Error::malformed(format!("WAD entry {}: compression {} is not supported", entry.name, entry.compression))
                .at(entry.entry_offset));
        }
        crate::bytes::slice(file, entry.offset as u64, entry.disk_size as u64)
            .map_err(|e| Error { offset: Some(entry.entry_offset), ..e }.in_lump(format!("WAD entry {}", entry.name)))
    }

    /// This entry of the WAD file `file` read as a miptex (see [`Wad::miptex`]).
    pub fn miptex_in<'d>(&self, file: &'d [u8]) -> Result<MipTex<'d>> {
        let entry = self;
        if entry.kind != TYPE_MIPTEX_WAD2 && entry.kind != TYPE_MIPTEX_WAD3 {
            return Err(
                Error::malformed(format!("WAD entry {} has type {:#04x}, not a miptex", entry.name, entry.kind)).at(entry.entry_offset)
            );
        }
        let bytes = entry.data_in(file)?;
        MipTex::parse_at(bytes, 0, 0, entry.kind == TYPE_MIPTEX_WAD3).map_err(|e| {
            Error { offset: Some(entry.offset as u64 + e.offset.unwrap_or(0)), ..e }.in_lump(format!("WAD entry {}", entry.name))
        })
    }
}

/// Bytes of a WAD file: entries `(name, type, data)` in order, then the directory.
pub fn build(version: WadVersion, entries: &[(&str, u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(if version == WadVersion::Wad2 { b"WAD2" } else { b"WAD3" });
    out.extend_from_slice(&(entries.len() as i32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut dir = Vec::with_capacity(entries.len() * ENTRY_LEN);
    for (name, kind, data) in entries {
        let offset = out.len() as u32;
        out.extend_from_slice(data);
        dir.extend_from_slice(&offset.to_le_bytes());
        dir.extend_from_slice(&(data.len() as u32).to_le_bytes());
        dir.extend_from_slice(&(data.len() as u32).to_le_bytes());
        dir.extend_from_slice(&[*kind, 0, 0, 0]);
        let mut n = [0u8; 16];
        for (d, s) in n.iter_mut().take(15).zip(name.bytes()) {
            *d = s;
        }
        dir.extend_from_slice(&n);
    }
    let dir_ofs = out.len() as i32;
    out[8..12].copy_from_slice(&dir_ofs.to_le_bytes());
    out.extend_from_slice(&dir);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lumps::miptex::encode;

    #[test]
    fn round_trip_and_lookup() {
        let px: Vec<u8> = (0..64).collect();
        let pal = vec![[9u8, 8, 7]; 256];
        let wad = build(
            WadVersion::Wad3,
            &[("Brick", TYPE_MIPTEX_WAD3, encode("Brick", 8, 8, &px, Some(&pal))), ("pal", TYPE_PALETTE, vec![1, 2, 3])],
        );
        let w = Wad::parse(&wad).unwrap();
        assert_eq!(w.version, WadVersion::Wad3);
        let e = w.find("BRICK").unwrap();
        let t = w.miptex(e).unwrap();
        assert_eq!((t.width(), t.height()), (8, 8));
        assert_eq!(t.mip(0).unwrap(), &px[..]);
        assert_eq!(t.palette.unwrap().len(), 768);
        assert!(w.miptex(w.find("pal").unwrap()).is_err());
        assert!(w.find("nope").is_none());
    }

    #[test]
    fn hostile_directories() {
        assert!(Wad::parse(b"WAD2").is_err());
        assert!(Wad::parse(b"PACK\0\0\0\0\0\0\0\0").is_err());
        let mut wad = build(WadVersion::Wad2, &[("a", TYPE_MIPTEX_WAD2, encode("a", 8, 8, &[0; 64], None))]);
        // A huge count, a negative offset.
        let mut big = wad.clone();
        big[4..8].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(Wad::parse(&big).is_err());
        let mut neg = wad.clone();
        neg[8..12].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(Wad::parse(&neg).is_err());
        // An entry pointing past the end is an error on read, naming the entry.
        let dir = i32::from_le_bytes(wad[8..12].try_into().unwrap()) as usize;
        wad[dir..dir + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let w = Wad::parse(&wad).unwrap();
        let err = w.miptex(&w.entries[0]).unwrap_err();
        assert_eq!(err.offset, Some(dir as u64));
        assert!(err.to_string().contains("WAD entry a"), "{err}");
    }
}
