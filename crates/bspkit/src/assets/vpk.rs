//! Valve VPK archives, versions 1 and 2 (`pak01_dir.vpk` + `pak01_000.vpk` …), where Source
//! games since the SteamPipe update keep their materials.
//!
//! ```text
//! u32 signature 0x55AA1234; u32 version (1 | 2); u32 tree_size
//! v2 only: u32 file_data_size, archive_md5_size, other_md5_size, signature_size
//! tree: { extension\0 { path\0 { name\0 entry } "" } "" } ""
//! entry: u32 crc; u16 preload_bytes; u16 archive_index; u32 offset; u32 length;
//!        u16 terminator (0xFFFF); preload_bytes bytes
//! ```
//!
//! A path or extension of one space stands for none. Archive index `0x7FFF` means the data
//! follows the tree in the `_dir.vpk` itself (at `header + tree_size + offset`); otherwise it is
//! in `<name>_NNN.vpk`. A file's contents are its preload bytes followed by `length` archive
//! bytes. Respawn's VPK variant (version `0x00030002`) is not read.
//!
//! Written here: the VPK crates on crates.io read whole archives into memory or do not bound
//! the tree walk. This reader checks every string and entry against the tree, and stops at a
//! caller-given entry count.

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};

pub const SIGNATURE: u32 = 0x55AA_1234;
/// Archive index meaning "in the directory file".
pub const IN_DIRECTORY: u16 = 0x7FFF;
const ENTRY_LEN: usize = 18;

/// One file in the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VpkEntry {
    /// Full path with forward slashes, as stored (`materials/brick/wall01.vtf`).
    pub path: String,
    pub crc: u32,
    /// Offset and length of the preload bytes inside the directory file.
    pub preload_offset: u64,
    pub preload_len: u16,
    pub archive: u16,
    pub offset: u32,
    pub length: u32,
}

impl VpkEntry {
    /// Total size of the file's contents.
    pub fn size(&self) -> u64 {
        self.preload_len as u64 + self.length as u64
    }
}

/// A parsed `_dir.vpk`.
#[derive(Debug, Clone)]
pub struct VpkDir {
    pub version: u32,
    pub entries: Vec<VpkEntry>,
    /// Where data of `IN_DIRECTORY` entries starts in the directory file.
    pub data_start: u64,
}

fn cstr<'a>(tree: &'a [u8], pos: &mut usize, base: usize) -> Result<&'a str> {
    let rest = tree.get(*pos..).unwrap_or(&[]);
    let end = memchr::memchr(0, rest).ok_or_else(|| Error::malformed("VPK tree string runs past the tree").at((base + *pos) as u64))?;
    let s = std::str::from_utf8(&rest[..end]).map_err(|_| Error::malformed("VPK tree string is not UTF-8").at((base + *pos) as u64))?;
    *pos += end + 1;
    Ok(s)
}

/// Parse a directory file, refusing more than `max_entries` entries.
pub fn parse(data: &[u8], max_entries: u64) -> Result<VpkDir> {
    let le = |o: usize| crate::bytes::u32_at(data, o, crate::bytes::Endian::Little);
    if le(0) != Some(SIGNATURE) {
        return Err(Error::malformed(format!("not a VPK directory (starts {})", crate::bytes::describe_head(data))).at(0));
    }
    let version = le(4).ok_or_else(|| Error::truncated(12, data.len() as u64))?;
    let header: usize = match version {
        1 => 12,
        2 => 28,
        v => return Err(Error::new(ErrorKind::UnsupportedVersion { magic: "VPK".into(), version: v as i64 }).at(4)),
    };
    let tree_size = le(8).ok_or_else(|| Error::truncated(12, data.len() as u64))? as usize;
    let tree = data
        .get(header..header.saturating_add(tree_size))
        .ok_or_else(|| Error::malformed(format!("VPK tree of {tree_size} bytes runs past the {}-byte file", data.len())).at(8))?;
    let mut entries = Vec::new();
    let mut pos = 0usize;
    loop {
        let ext = cstr(tree, &mut pos, header)?;
        if ext.is_empty() {
            break;
        }
        loop {
            let dir = cstr(tree, &mut pos, header)?;
            if dir.is_empty() {
                break;
            }
            loop {
                let name = cstr(tree, &mut pos, header)?;
                if name.is_empty() {
                    break;
                }
                let at = header + pos;
                let e = tree.get(pos..pos + ENTRY_LEN).ok_or_else(|| Error::truncated(ENTRY_LEN as u64, 0).at(at as u64))?;
                let u16_ = |o: usize| u16::from_le_bytes([e[o], e[o + 1]]);
                let u32_ = |o: usize| u32::from_le_bytes([e[o], e[o + 1], e[o + 2], e[o + 3]]);
                if u16_(16) != 0xFFFF {
                    return Err(
                        Error::malformed(format!("VPK entry {dir}/{name}.{ext}: terminator {:#06x}, not 0xffff", u16_(16))).at(at as u64)
                    );
                }
                let preload_len = u16_(4);
                pos += ENTRY_LEN;
                let preload_offset = (header + pos) as u64;
                if pos + preload_len as usize > tree.len() {
                    return Err(Error::malformed(format!("VPK entry {dir}/{name}.{ext}: {preload_len} preload bytes run past the tree"))
                        .at(at as u64));
                }
                pos += preload_len as usize;
                if entries.len() as u64 >= max_entries {
                    return Err(Error::new(ErrorKind::LimitExceeded {
                        what: "VPK entries",
                        requested: entries.len() as u64 + 1,
                        limit: max_entries,
                    }));
                }
                let mut path = String::with_capacity(dir.len() + name.len() + ext.len() + 2);
                if dir != " " {
                    path.push_str(dir.trim_matches('/'));
                    path.push('/');
                }
                path.push_str(name);
                if ext != " " {
                    path.push('.');
                    path.push_str(ext);
                }
                entries.push(VpkEntry {
                    path,
                    crc: u32_(0),
                    preload_offset,
                    preload_len,
                    archive: u16_(6),
                    offset: u32_(8),
                    length: u32_(12),
                });
            }
        }
    }
    Ok(VpkDir { version, entries, data_start: (header + tree_size) as u64 })
}

/// The archive file `index` of a directory file: `pak01_dir.vpk` → `pak01_003.vpk`.
pub fn archive_path(dir_file: &Path, index: u16) -> Option<PathBuf> {
    let name = dir_file.file_name()?.to_str()?;
    let stem = name.strip_suffix("_dir.vpk").or_else(|| name.strip_suffix("_DIR.VPK"))?;
    Some(dir_file.with_file_name(format!("{stem}_{index:03}.vpk")))
}

/// Read an entry: preload bytes from `dir_data`, the rest from the directory file or from the
/// archive file (opened and read at the entry's range only). `max` caps the size.
pub fn read(dir: &VpkDir, entry: &VpkEntry, dir_data: &[u8], dir_file: Option<&Path>, max: u64) -> Result<Vec<u8>> {
    let ctx = |e: Error| e.in_lump(format!("VPK entry {}", entry.path));
    if entry.size() > max {
        return Err(ctx(Error::new(ErrorKind::LimitExceeded { what: "VPK entry size", requested: entry.size(), limit: max })));
    }
    let preload = crate::bytes::slice(dir_data, entry.preload_offset, entry.preload_len as u64).map_err(ctx)?;
    if entry.length == 0 {
        return Ok(preload.to_vec());
    }
    if entry.archive == IN_DIRECTORY {
        let start = dir.data_start + entry.offset as u64;
        let rest = crate::bytes::slice(dir_data, start, entry.length as u64).map_err(ctx)?;
        return Ok([preload, rest].concat());
    }
    let path = dir_file
        .and_then(|d| archive_path(d, entry.archive))
        .ok_or_else(|| ctx(Error::malformed(format!("archive {} of an unnamed VPK directory", entry.archive))))?;
    use std::io::{Read, Seek, SeekFrom};
    let (mut f, m) = crate::fsio::open_regular(&path).map_err(ctx)?;
    let len = m.len();
    if entry.offset as u64 + entry.length as u64 > len {
        return Err(ctx(Error::truncated(entry.offset as u64 + entry.length as u64, len).at(entry.offset as u64)).in_file(&path));
    }
    // The range was checked against the file's length: allocating it is bounded by the file.
    let mut out = Vec::with_capacity(entry.size() as usize);
    out.extend_from_slice(preload);
    f.seek(SeekFrom::Start(entry.offset as u64)).map_err(|e| ctx(Error::from(e)).in_file(&path))?;
    f.take(entry.length as u64).read_to_end(&mut out).map_err(|e| ctx(Error::from(e)).in_file(&path))?;
    if out.len() as u64 != entry.size() {
        return Err(ctx(Error::truncated(entry.size(), out.len() as u64)).in_file(&path));
    }
    Ok(out)
}

/// Bytes of a VPK directory holding `files` (path, data), with the first `preload` bytes of each
/// file in the tree. With `external`, the rest goes to archive 000 (returned second); else it
/// follows the tree in the directory file.
pub fn build(version: u32, files: &[(&str, &[u8])], preload: usize, external: bool) -> (Vec<u8>, Vec<u8>) {
    use std::collections::BTreeMap;
    // extension → directory → [(name, data)]
    type Names<'a> = Vec<(String, &'a [u8])>;
    let mut tree: BTreeMap<String, BTreeMap<String, Names>> = BTreeMap::new();
    for (path, data) in files {
        let (dir, file) = path.rsplit_once('/').unwrap_or((" ", path));
        let (name, ext) = file.rsplit_once('.').unwrap_or((file, " "));
        tree.entry(ext.to_string()).or_default().entry(dir.to_string()).or_default().push((name.to_string(), data));
    }
    let mut t = Vec::new();
    let mut blob = Vec::new();
    for (ext, dirs) in &tree {
        t.extend_from_slice(ext.as_bytes());
        t.push(0);
        for (dir, names) in dirs {
            t.extend_from_slice(dir.as_bytes());
            t.push(0);
            for (name, data) in names {
                t.extend_from_slice(name.as_bytes());
                t.push(0);
                let pre = preload.min(data.len());
                let rest = &data[pre..];
                t.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
                t.extend_from_slice(&(pre as u16).to_le_bytes());
                t.extend_from_slice(&(if external { 0 } else { IN_DIRECTORY }).to_le_bytes());
                t.extend_from_slice(&(blob.len() as u32).to_le_bytes());
                t.extend_from_slice(&(rest.len() as u32).to_le_bytes());
                t.extend_from_slice(&0xFFFFu16.to_le_bytes());
                t.extend_from_slice(&data[..pre]);
                blob.extend_from_slice(rest);
            }
            t.push(0);
        }
        t.push(0);
    }
    t.push(0);
    let mut out = Vec::new();
    out.extend_from_slice(&SIGNATURE.to_le_bytes());
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(t.len() as u32).to_le_bytes());
    if version == 2 {
        let data_size = if external { 0 } else { blob.len() as u32 };
        for v in [data_size, 0, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&t);
    if external {
        (out, blob)
    } else {
        out.extend_from_slice(&blob);
        (out, Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_both_versions_and_layouts() {
        let files: &[(&str, &[u8])] =
            &[("materials/a/b.vmt", b"LightmappedGeneric {}"), ("c.txt", b"hello"), ("materials/a/t.vtf", &[7; 300])];
        for version in [1, 2] {
            for external in [false, true] {
                let (dir, archive) = build(version, files, 4, external);
                let d = parse(&dir, 100).unwrap();
                assert_eq!(d.entries.len(), 3);
                let tmp = std::env::temp_dir().join(format!("bspkit_vpk_test_{}_{version}_{external}", std::process::id()));
                std::fs::create_dir_all(&tmp).unwrap();
                let dir_path = tmp.join("pak01_dir.vpk");
                std::fs::write(tmp.join("pak01_000.vpk"), &archive).unwrap();
                for (path, data) in files {
                    let e = d.entries.iter().find(|e| e.path == *path).unwrap_or_else(|| panic!("{path}"));
                    assert_eq!(read(&d, e, &dir, Some(&dir_path), 1 << 20).unwrap(), *data);
                    assert_eq!(e.crc, crc32fast::hash(data));
                }
                assert!(parse(&dir, 2).is_err());
                std::fs::remove_dir_all(&tmp).ok();
            }
        }
        assert_eq!(archive_path(Path::new("x/pak01_dir.vpk"), 7).unwrap(), Path::new("x/pak01_007.vpk"));
    }

    #[test]
    fn hostile_trees() {
        let (dir, _) = build(2, &[("a/b.vtf", &[1; 10])], 0, false);
        for cut in 0..dir.len() {
            let _ = parse(&dir[..cut], 100);
        }
        let mut big = dir.clone();
        big[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&big, 100).is_err());
        let mut bad = dir.clone();
        bad[4] = 9;
        assert!(matches!(parse(&bad, 100).unwrap_err().kind, ErrorKind::UnsupportedVersion { .. }));
        let d = parse(&dir, 100).unwrap();
        let mut e = d.entries[0].clone();
        e.length = u32::MAX;
        assert!(read(&d, &e, &dir, None, u64::MAX).is_err());
        assert!(read(&d, &d.entries[0], &dir, None, 5).is_err());
    }
}
