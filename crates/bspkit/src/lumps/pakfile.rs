//! The Source pakfile (lump 40): an embedded Zip archive (source.md §16). Entries are stored
//! (method 0) as the engine expects; some branches also accept LZMA entries (method 14, A14).
//! Zip offsets are relative to the start of the lump.
//!
//! The reader is our own rather than a general Zip library because Valve's Xbox 360 pakfiles
//! (`XZP2` comment, e.g. `shack.360.bsp`) declare an extra field in each central-directory
//! record that is only present in the local header: the next record starts right after the
//! name. A strict reader stops after the first entry; this one accepts the record where it
//! actually is. Every size and count is checked against the lump before it is used.
//!
//! Editing functions ([`PakBuilder`]) return new pakfile bytes; the caller writes the map.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::bytes::array;
use crate::error::{Error, ErrorKind, Result};

/// Index of the pakfile in every Source lump table (source.md §5).
pub const LUMP_PAKFILE: usize = 40;

pub const METHOD_STORED: u16 = 0;
pub const METHOD_DEFLATE: u16 = 8;
pub const METHOD_LZMA: u16 = 14;

const SIG_LOCAL: [u8; 4] = *b"PK\x03\x04";
const SIG_CENTRAL: [u8; 4] = *b"PK\x01\x02";
const SIG_EOCD: [u8; 4] = *b"PK\x05\x06";
const EOCD_LEN: usize = 22;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;

/// Default cap on one entry read into memory (256 MiB). The same cap holds for every pakfile
/// command: an entry `pak add` accepts, `pak cat/extract/remove/repack` can read.
pub const DEFAULT_MAX_ENTRY: u64 = 256 << 20;

/// Default cap on the total uncompressed bytes one command reads from or adds to a pakfile
/// (1 GiB): `pak extract` of every entry, the entries `pak add/remove/repack` rebuild.
pub const DEFAULT_MAX_TOTAL: u64 = 1 << 30;

/// A method number as a name.
pub fn method_name(method: u16) -> &'static str {
    match method {
        METHOD_STORED => "stored",
        METHOD_DEFLATE => "deflate",
        METHOD_LZMA => "lzma",
        _ => "other",
    }
}

/// One central-directory entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PakEntry {
    pub name: String,
    /// Uncompressed size.
    pub size: u64,
    pub compressed_size: u64,
    /// Zip compression method (0 stored, 8 deflate, 14 LZMA).
    pub method: u16,
    pub crc32: u32,
    pub flags: u16,
    /// Offset of the local header inside the lump.
    pub local_offset: u64,
}

impl PakEntry {
    pub fn is_dir(&self) -> bool {
        self.name.ends_with('/')
    }

    /// The stored (possibly compressed) bytes of an entry.
    /// (The archive bytes `data` are the lump, or a whole `.zip`/`.pk3` file.)
    pub fn raw_in<'d>(&self, data: &'d [u8]) -> Result<&'d [u8]> {
        let entry = self;
        let lo = entry.local_offset as usize;
        if data.get(lo..lo + 4) != Some(&SIG_LOCAL[..]) {
            return Err(Error::malformed(format!("{}: no local header at {lo}", entry.name)).at(lo as u64));
        }
        let nlen = le16(data, lo + 26).unwrap_or(0) as u64;
        let xlen = le16(data, lo + 28).unwrap_or(0) as u64;
        let start = lo as u64 + LOCAL_LEN as u64 + nlen + xlen;
        crate::bytes::slice(data, start, entry.compressed_size).map_err(|e| e.in_lump(format!("40 (PAKFILE) entry {}", entry.name)))
    }

    /// An entry's contents, decompressed and CRC-checked, refusing more than `max` bytes.
    pub fn read_in(&self, data: &[u8], max: u64) -> Result<Vec<u8>> {
        let entry = self;
        let ctx = |e: Error| e.in_lump(format!("40 (PAKFILE) entry {}", entry.name));
        if entry.size > max {
            return Err(ctx(Error::new(ErrorKind::LimitExceeded { what: "pakfile entry size", requested: entry.size, limit: max })));
        }
        let raw = entry.raw_in(data)?;
        let data = match entry.method {
            METHOD_STORED => {
                if entry.size != entry.compressed_size {
                    return Err(ctx(Error::malformed("stored entry whose sizes differ")));
                }
                raw.to_vec()
            }
            METHOD_DEFLATE => {
                let mut out = Vec::new();
                flate2::read::DeflateDecoder::new(raw)
                    .take(entry.size + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| ctx(Error::new(ErrorKind::Decompress(e.to_string()))))?;
                out
            }
            METHOD_LZMA => {
                // APPNOTE 5.8.8: u8 major, u8 minor, u16 properties size, properties, raw stream.
                let psize = le16(raw, 2).ok_or_else(|| ctx(Error::malformed("LZMA entry header truncated")))? as usize;
                let props: [u8; 5] =
                    array(raw, 4).filter(|_| psize == 5).ok_or_else(|| ctx(Error::malformed("LZMA entry properties malformed")))?;
                crate::compression::decode_lzma_alone(&props, entry.size as usize, &raw[4 + psize..]).map_err(ctx)?
            }
            m => return Err(ctx(Error::new(ErrorKind::Decompress(format!("Zip method {m} is not supported"))))),
        };
        if data.len() as u64 != entry.size {
            return Err(ctx(Error::new(ErrorKind::Decompress(format!("expected {} bytes, got {}", entry.size, data.len())))));
        }
        let crc = crc32fast::hash(&data);
        if crc != entry.crc32 {
            return Err(ctx(Error::malformed(format!("CRC32 {crc:08x} does not match the stored {:08x}", entry.crc32))));
        }
        Ok(data)
    }
}

/// A parsed pakfile borrowing the lump bytes.
#[derive(Debug, Clone)]
pub struct Pakfile<'a> {
    data: &'a [u8],
    pub entries: Vec<PakEntry>,
    /// The end-of-central-directory comment (Valve writes `XZP1 0` / `XZP2 <n>`).
    pub comment: Vec<u8>,
}

fn le16(d: &[u8], o: usize) -> Option<u16> {
    array::<2>(d, o).map(u16::from_le_bytes)
}
fn le32(d: &[u8], o: usize) -> Option<u32> {
    array::<4>(d, o).map(u32::from_le_bytes)
}

/// Find the end-of-central-directory record: the last signature whose comment length reaches
/// exactly to the end, else the last signature at all.
fn find_eocd(data: &[u8]) -> Option<usize> {
    if data.len() < EOCD_LEN {
        return None;
    }
    let lowest = data.len().saturating_sub(EOCD_LEN + 0xFFFF);
    let mut loose = None;
    for pos in (lowest..=data.len() - EOCD_LEN).rev() {
        if data[pos..pos + 4] == SIG_EOCD {
            let clen = le16(data, pos + 20)? as usize;
            if pos + EOCD_LEN + clen == data.len() {
                return Some(pos);
            }
            loose.get_or_insert(pos);
        }
    }
    loose
}

/// Central records must each have their own local entry: records sharing (or overlapping) one
/// local entry would let a small archive stand for any number of large entries (a Zip bomb).
fn refuse_shared_entries(entries: &[PakEntry]) -> Result<()> {
    let mut spans: Vec<(u64, u64, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.local_offset, e.local_offset.saturating_add(LOCAL_LEN as u64).saturating_add(e.compressed_size), i))
        .collect();
    spans.sort_unstable();
    for w in spans.windows(2) {
        let ((a, a_end, i), (b, _, j)) = (w[0], w[1]);
        if b < a_end {
            let how = if a == b { "share the local entry" } else { "overlap at the local entry" };
            return Err(Error::malformed(format!(
                "central directory records {i} ({:?}) and {j} ({:?}) {how} at {b}; refusing an archive whose entries overlap",
                entries[i].name, entries[j].name
            ))
            .at(b));
        }
    }
    Ok(())
}

impl<'a> Pakfile<'a> {
    /// Parse a pakfile lump. An empty lump is an empty archive.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        if data.is_empty() {
            return Ok(Pakfile { data, entries: Vec::new(), comment: Vec::new() });
        }
        let eocd = find_eocd(data).ok_or_else(|| Error::malformed("pakfile has no Zip end-of-central-directory record"))?;
        let total = le16(data, eocd + 10).unwrap_or(0) as usize;
        let cd_size = le32(data, eocd + 12).unwrap_or(0) as u64;
        let cd_ofs = le32(data, eocd + 16).unwrap_or(0) as u64;
        let clen = le16(data, eocd + 20).unwrap_or(0) as usize;
        let comment = data.get(eocd + EOCD_LEN..eocd + EOCD_LEN + clen).unwrap_or(&data[eocd + EOCD_LEN..]).to_vec();
        if total == 0xFFFF || cd_ofs == 0xFFFF_FFFF {
            return Err(Error::malformed("Zip64 pakfiles are not supported").at(eocd as u64));
        }
        let cd_end = cd_ofs.checked_add(cd_size).filter(|&e| e <= eocd as u64).ok_or_else(|| {
            Error::malformed(format!("central directory {cd_ofs}+{cd_size} runs past the end record at {eocd}")).at(eocd as u64)
        })? as usize;
        // Each record is at least 46 bytes, so `total` is bounded by the directory size.
        if total.saturating_mul(CENTRAL_LEN) as u64 > cd_size {
            return Err(Error::malformed(format!("{total} entries cannot fit a {cd_size}-byte central directory")).at(eocd as u64));
        }
        let mut entries = Vec::with_capacity(total);
        let mut pos = cd_ofs as usize;
        for i in 0..total {
            if data.get(pos..pos + 4) != Some(&SIG_CENTRAL[..]) || pos + CENTRAL_LEN > cd_end {
                return Err(Error::malformed(format!("central directory record {i} missing")).at(pos as u64));
            }
            let f16 = |o: usize| le16(data, pos + o).unwrap_or(0);
            let f32_ = |o: usize| le32(data, pos + o).unwrap_or(0);
            let (nlen, xlen, clen) = (f16(28) as usize, f16(30) as usize, f16(32) as usize);
            let name_end = pos + CENTRAL_LEN + nlen;
            let name = data
                .get(pos + CENTRAL_LEN..name_end)
                .filter(|_| name_end <= cd_end)
                .ok_or_else(|| Error::malformed(format!("central directory record {i} name runs past the directory")).at(pos as u64))?;
            let declared = name_end + xlen + clen;
            let is_next = |p: usize| p == cd_end || data.get(p..p + 4) == Some(&SIG_CENTRAL[..]);
            let next = if declared <= cd_end && (i + 1 == total || is_next(declared)) {
                declared
            } else if name_end + clen <= cd_end && (i + 1 == total || is_next(name_end + clen)) {
                // Valve X360 quirk (module notes): the extra field is absent here.
                name_end + clen
            } else {
                return Err(Error::malformed(format!("central directory record {i} overruns the directory")).at(pos as u64));
            };
            entries.push(PakEntry {
                name: String::from_utf8_lossy(name).into_owned(),
                size: f32_(24) as u64,
                compressed_size: f32_(20) as u64,
                method: f16(10),
                crc32: f32_(16),
                flags: f16(8),
                local_offset: f32_(42) as u64,
            });
            pos = next;
        }
        refuse_shared_entries(&entries)?;
        Ok(Pakfile { data, entries, comment })
    }

    /// Sum of the entries' uncompressed sizes.
    pub fn total_size(&self) -> u64 {
        self.entries.iter().fold(0u64, |t, e| t.saturating_add(e.size))
    }

    /// The entry with this name: exact match first, then ignoring case and slash direction
    /// (the engine's file system is case-insensitive).
    pub fn find(&self, name: &str) -> Option<&PakEntry> {
        let norm = normalize(name);
        self.entries
            .iter()
            .find(|e| e.name == name)
            .or_else(|| self.entries.iter().find(|e| normalize(&e.name).eq_ignore_ascii_case(&norm)))
    }

    /// The stored (possibly compressed) bytes of an entry.
    pub fn raw_data(&self, entry: &PakEntry) -> Result<&'a [u8]> {
        entry.raw_in(self.data)
    }

    /// An entry's contents, decompressed and CRC-checked, refusing more than `max` bytes.
    pub fn read(&self, entry: &PakEntry, max: u64) -> Result<Vec<u8>> {
        entry.read_in(self.data, max)
    }

    /// Extract entries (all, or those named) below `dir`. A name that would leave `dir`
    /// ([`ErrorKind::UnsafePath`]) is skipped, never written, and reported in
    /// [`Extracted::skipped`]; so is an entry whose path inside `dir` meets a symbolic link or
    /// a file that is not a regular file (nothing is written through a link). A named entry
    /// that does not exist is an error before anything is written. At most
    /// [`DEFAULT_MAX_TOTAL`] bytes in all ([`Pakfile::extract_limited`]).
    pub fn extract(&self, dir: &Path, names: &[String], max: u64) -> Result<Extracted> {
        self.extract_limited(dir, names, max, DEFAULT_MAX_TOTAL)
    }

    /// [`Pakfile::extract`] with a cap on the total bytes of the selected entries (refused
    /// before anything is written).
    pub fn extract_limited(&self, dir: &Path, names: &[String], max: u64, max_total: u64) -> Result<Extracted> {
        let mut selected = Vec::new();
        if names.is_empty() {
            selected.extend(self.entries.iter());
        } else {
            for n in names {
                selected.push(self.find(n).ok_or_else(|| Error::new(ErrorKind::NoSuchLump(format!("pakfile entry {n}"))))?);
            }
        }
        let total = selected.iter().fold(0u64, |t, e| t.saturating_add(e.size));
        if total > max_total {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "pakfile bytes to extract", requested: total, limit: max_total }));
        }
        let mut plan = Vec::with_capacity(selected.len());
        let mut skipped = Vec::new();
        for e in selected {
            match safe_relative_path(&e.name) {
                Ok(rel) => plan.push((e, rel)),
                Err(err) => skipped.push((e.name.clone(), err)),
            }
        }
        let mut written = Vec::new();
        for (e, rel) in plan {
            let target = dir.join(&rel);
            if let Err(err) = crate::write::folder::check_below(dir, &rel, e.is_dir()) {
                skipped.push((e.name.clone(), err));
                continue;
            }
            if e.is_dir() {
                std::fs::create_dir_all(&target).map_err(|err| Error::from(err).in_file(&target))?;
                continue;
            }
            let data = self.read(e, max)?;
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|err| Error::from(err).in_file(parent))?;
            }
            // Checked again now that the directories exist (a link made meanwhile is refused).
            if let Err(err) = crate::write::folder::check_below(dir, &rel, false) {
                skipped.push((e.name.clone(), err));
                continue;
            }
            crate::write::atomic::write_file(&target, &data, &Default::default())?;
            written.push(target);
        }
        Ok(Extracted { written, skipped })
    }
}

/// What [`Pakfile::extract`] did.
#[derive(Debug, Default)]
pub struct Extracted {
    /// Files written.
    pub written: Vec<PathBuf>,
    /// Entries not extracted because their names would leave the target directory.
    pub skipped: Vec<(String, Error)>,
}

/// Backslashes to slashes (Source paths use either).
fn normalize(name: &str) -> String {
    name.replace('\\', "/")
}

/// The relative path an entry name stands for, or [`ErrorKind::UnsafePath`] when it is
/// absolute, has a drive or stream prefix (`:`), a `..` component, or a NUL.
pub fn safe_relative_path(name: &str) -> Result<PathBuf> {
    let unsafe_path = || Error::new(ErrorKind::UnsafePath(name.to_string()));
    let n = normalize(name);
    if n.is_empty() || n.starts_with('/') || n.contains(':') || n.contains('\0') {
        return Err(unsafe_path());
    }
    let mut out = PathBuf::new();
    for part in n.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(unsafe_path()),
            p => out.push(p),
        }
    }
    // Belt and braces: the platform's own parse must agree that this is a plain relative path.
    if out.as_os_str().is_empty() || !out.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(unsafe_path());
    }
    Ok(out)
}

/// How [`PakBuilder::build`] stores entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PakCompression {
    /// Method 0, as the engine expects (source.md §16).
    #[default]
    Stored,
    /// Method 14, for branches that accept it (A14); entries that do not shrink stay stored.
    Lzma,
}

/// A pakfile being edited: entry names and contents in order.
#[derive(Debug, Clone, Default)]
pub struct PakBuilder {
    pub entries: Vec<(String, Vec<u8>)>,
    /// End-of-central-directory comment to write.
    pub comment: Vec<u8>,
}

/// Largest local file added (the one pakfile entry cap, [`DEFAULT_MAX_ENTRY`]).
const MAX_ADD_FILE: u64 = DEFAULT_MAX_ENTRY;

impl PakBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every entry of an existing pakfile, read (each capped at `max`), with its comment.
    pub fn from_pakfile(pak: &Pakfile, max: u64) -> Result<Self> {
        let total = pak.total_size();
        if total > DEFAULT_MAX_TOTAL {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "pakfile total bytes", requested: total, limit: DEFAULT_MAX_TOTAL }));
        }
        let mut entries = Vec::with_capacity(pak.entries.len());
        for e in &pak.entries {
            entries.push((e.name.clone(), if e.is_dir() { Vec::new() } else { pak.read(e, max)? }));
        }
        Ok(PakBuilder { entries, comment: pak.comment.clone() })
    }

    /// Parse pakfile bytes into a builder.
    pub fn from_bytes(lump: &[u8], max: u64) -> Result<Self> {
        Self::from_pakfile(&Pakfile::parse(lump)?, max)
    }

    fn position(&self, name: &str) -> Option<usize> {
        let n = normalize(name);
        self.entries.iter().position(|(e, _)| normalize(e).eq_ignore_ascii_case(&n))
    }

    /// The name of the entry [`PakBuilder::insert`] would replace (case and slash direction
    /// ignored, as the engine's file system does), if any.
    pub fn existing(&self, name: &str) -> Option<&str> {
        self.position(name).map(|i| self.entries[i].0.as_str())
    }

    /// Add an entry, replacing one of the same name (case-insensitive). Names are stored with
    /// forward slashes and must be safe relative paths.
    pub fn insert(&mut self, name: &str, data: Vec<u8>) -> Result<()> {
        safe_relative_path(name)?;
        if data.len() as u64 > DEFAULT_MAX_ENTRY {
            let requested = data.len() as u64;
            return Err(Error::new(ErrorKind::LimitExceeded { what: "pakfile entry size", requested, limit: DEFAULT_MAX_ENTRY })
                .in_lump(name.to_string()));
        }
        let n = normalize(name);
        match self.position(&n) {
            Some(i) => self.entries[i] = (n, data),
            None => self.entries.push((n, data)),
        }
        Ok(())
    }

    /// Remove an entry; returns whether it existed.
    pub fn remove(&mut self, name: &str) -> bool {
        match self.position(name) {
            Some(i) => {
                self.entries.remove(i);
                true
            }
            None => false,
        }
    }

    /// Add the files of a bspzip-style addlist: pairs of lines, internal path then local file.
    /// Relative local paths are taken from `base`. Returns the number of files added.
    pub fn add_addlist(&mut self, text: &str, base: &Path) -> Result<usize> {
        let pairs = parse_addlist(text)?;
        for (internal, local) in &pairs {
            let path = base.join(local);
            let data = crate::fsio::read_regular(&path, MAX_ADD_FILE, "pakfile entry size")?;
            self.insert(internal, data)?;
        }
        Ok(pairs.len())
    }

    /// The Zip bytes: local headers and data in entry order, then the central directory and
    /// the end record. Times are zero, so the output depends only on the entries.
    pub fn build(&self, compression: PakCompression) -> Result<Vec<u8>> {
        let total = self.entries.iter().fold(0u64, |t, (_, d)| t.saturating_add(d.len() as u64));
        if total > DEFAULT_MAX_TOTAL {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "pakfile total bytes", requested: total, limit: DEFAULT_MAX_TOTAL }));
        }
        let too_big = |what: &'static str, n: u64| Error::new(ErrorKind::LimitExceeded { what, requested: n, limit: u32::MAX as u64 });
        if self.entries.len() >= 0xFFFF {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "pakfile entries",
                requested: self.entries.len() as u64,
                limit: 0xFFFE,
            }));
        }
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data) in &self.entries {
            let crc = crc32fast::hash(data);
            let mut method = METHOD_STORED;
            let mut body = std::borrow::Cow::Borrowed(data.as_slice());
            if compression == PakCompression::Lzma && !data.is_empty() {
                let lump = crate::compression::compress_valve_lzma(data, 6)?;
                // Valve header (17 bytes) → Zip LZMA header: version 9.20, props size 5, props.
                let mut z = vec![9, 20, 5, 0];
                z.extend_from_slice(&lump[12..17]);
                z.extend_from_slice(&lump[17..]);
                if z.len() < data.len() {
                    method = METHOD_LZMA;
                    body = std::borrow::Cow::Owned(z);
                }
            }
            let (needed, flags): (u16, u16) = if method == METHOD_LZMA { (63, 2) } else { (10, 0) };
            let offset = out.len() as u64;
            if offset > u32::MAX as u64 || data.len() as u64 > u32::MAX as u64 {
                return Err(too_big("pakfile size", offset.max(data.len() as u64)));
            }
            let name_b = name.as_bytes();
            let common = |v: &mut Vec<u8>| {
                v.extend_from_slice(&needed.to_le_bytes());
                v.extend_from_slice(&flags.to_le_bytes());
                v.extend_from_slice(&method.to_le_bytes());
                v.extend_from_slice(&[0, 0, 0, 0]); // DOS time and date
                v.extend_from_slice(&crc.to_le_bytes());
                v.extend_from_slice(&(body.len() as u32).to_le_bytes());
                v.extend_from_slice(&(data.len() as u32).to_le_bytes());
                v.extend_from_slice(&(name_b.len() as u16).to_le_bytes());
                v.extend_from_slice(&0u16.to_le_bytes()); // extra length
            };
            out.extend_from_slice(&SIG_LOCAL);
            common(&mut out);
            out.extend_from_slice(name_b);
            out.extend_from_slice(&body);
            central.extend_from_slice(&SIG_CENTRAL);
            central.extend_from_slice(&20u16.to_le_bytes()); // made by: version 2.0
            common(&mut central);
            central.extend_from_slice(&[0; 10]); // comment length, disk, internal (2) and external (4) attributes
            central.extend_from_slice(&(offset as u32).to_le_bytes());
            central.extend_from_slice(name_b);
        }
        let cd_ofs = out.len() as u64;
        if cd_ofs + central.len() as u64 > u32::MAX as u64 {
            return Err(too_big("pakfile size", cd_ofs + central.len() as u64));
        }
        out.extend_from_slice(&central);
        out.extend_from_slice(&SIG_EOCD);
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(self.entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(self.entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&(cd_ofs as u32).to_le_bytes());
        let comment = &self.comment[..self.comment.len().min(0xFFFF)];
        out.extend_from_slice(&(comment.len() as u16).to_le_bytes());
        out.extend_from_slice(comment);
        Ok(out)
    }
}

/// Pairs of non-empty lines: internal path, local file (bspzip `-addlist`).
pub fn parse_addlist(text: &str) -> Result<Vec<(String, PathBuf)>> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.len() % 2 != 0 {
        return Err(Error::malformed(format!("addlist has {} lines; it needs pairs of internal path and local file", lines.len())));
    }
    Ok(lines.chunks_exact(2).map(|p| (normalize(p[0]), PathBuf::from(p[1]))).collect())
}

/// New pakfile bytes with `name` added or replaced.
pub fn add_entry(lump: &[u8], name: &str, data: Vec<u8>, compression: PakCompression, max: u64) -> Result<Vec<u8>> {
    let mut b = PakBuilder::from_bytes(lump, max)?;
    b.insert(name, data)?;
    b.build(compression)
}

/// New pakfile bytes without `name` ([`ErrorKind::NoSuchLump`] if it is absent).
pub fn remove_entry(lump: &[u8], name: &str, compression: PakCompression, max: u64) -> Result<Vec<u8>> {
    let mut b = PakBuilder::from_bytes(lump, max)?;
    if !b.remove(name) {
        return Err(Error::new(ErrorKind::NoSuchLump(format!("pakfile entry {name}"))));
    }
    b.build(compression)
}

/// New pakfile bytes with every entry re-stored.
pub fn repack(lump: &[u8], compression: PakCompression, max: u64) -> Result<Vec<u8>> {
    PakBuilder::from_bytes(lump, max)?.build(compression)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PakBuilder {
        let mut b = PakBuilder::new();
        b.insert("materials/a.vmt", b"\"LightmappedGeneric\" {}".to_vec()).unwrap();
        b.insert("maps\\x.txt", (0..5000u32).flat_map(|i| (i % 13).to_le_bytes()).collect()).unwrap();
        b
    }

    #[test]
    fn stored_and_lzma_round_trip() {
        for c in [PakCompression::Stored, PakCompression::Lzma] {
            let bytes = sample().build(c).unwrap();
            let pak = Pakfile::parse(&bytes).unwrap();
            assert_eq!(pak.entries.len(), 2);
            let e = pak.find("MAPS/X.TXT").unwrap();
            assert_eq!(e.method, if c == PakCompression::Lzma { METHOD_LZMA } else { METHOD_STORED });
            assert_eq!(pak.read(e, DEFAULT_MAX_ENTRY).unwrap(), sample().entries[1].1);
        }
    }

    /// A missing entry reads as one (it read "no lump pakfile entry X in this branch").
    #[test]
    fn a_missing_entry_is_named_as_an_entry() {
        let bytes = sample().build(PakCompression::Stored).unwrap();
        let e = remove_entry(&bytes, "maps/none.txt", PakCompression::Stored, DEFAULT_MAX_ENTRY).unwrap_err();
        assert_eq!(e.kind.to_string(), "no pakfile entry maps/none.txt");
        let e = Error::new(ErrorKind::NoSuchLump("PLANEZ".into()));
        assert_eq!(e.kind.to_string(), "no lump PLANEZ in this branch");
    }

    #[test]
    fn edits() {
        let bytes = sample().build(PakCompression::Stored).unwrap();
        let bytes = add_entry(&bytes, "materials/A.vmt", b"new".to_vec(), PakCompression::Stored, DEFAULT_MAX_ENTRY).unwrap();
        let pak = Pakfile::parse(&bytes).unwrap();
        assert_eq!(pak.entries.len(), 2);
        assert_eq!(pak.read(pak.find("materials/a.vmt").unwrap(), 100).unwrap(), b"new");
        let bytes = remove_entry(&bytes, "maps/x.txt", PakCompression::Stored, DEFAULT_MAX_ENTRY).unwrap();
        assert_eq!(Pakfile::parse(&bytes).unwrap().entries.len(), 1);
        assert!(remove_entry(&bytes, "nope", PakCompression::Stored, DEFAULT_MAX_ENTRY).is_err());
    }

    #[test]
    fn unsafe_names() {
        for n in ["../x", "/abs", "C:\\x", "a/../../b", "c:x", "\\\\server\\share\\x", ""] {
            assert!(matches!(safe_relative_path(n).unwrap_err().kind, ErrorKind::UnsafePath(_)), "{n}");
        }
        assert_eq!(safe_relative_path("materials\\./a.vmt").unwrap(), PathBuf::from("materials").join("a.vmt"));
    }

    #[test]
    fn hostile_archives() {
        let mut bytes = sample().build(PakCompression::Stored).unwrap();
        let n = bytes.len();
        // Entry count beyond what the directory can hold.
        bytes[n - 12..n - 10].copy_from_slice(&0xFFF0u16.to_le_bytes());
        assert!(Pakfile::parse(&bytes).is_err());
        // Sizes past the cap are refused before reading.
        let bytes = sample().build(PakCompression::Stored).unwrap();
        let pak = Pakfile::parse(&bytes).unwrap();
        assert!(matches!(pak.read(&pak.entries[1], 10).unwrap_err().kind, ErrorKind::LimitExceeded { .. }));
        // A corrupted byte fails the CRC check.
        let mut bad = bytes.clone();
        let start = 30 + "materials/a.vmt".len();
        bad[start] ^= 0xFF;
        let pak = Pakfile::parse(&bad).unwrap();
        assert!(pak.read(&pak.entries[0], 1000).is_err());
        assert!(Pakfile::parse(b"PK\x05\x06").is_err());
        assert!(parse_addlist("a\nb\nc\n").is_err());
    }
}
