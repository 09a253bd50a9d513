//! [`Bsp`]: an opened map — its bytes (memory-mapped, borrowed or owned), detected format,
//! header and lump directory, with zero-copy access to every lump.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use zerocopy::{FromBytes, Immutable, KnownLayout};

use crate::branch::{Branch, Family, LumpKind};
use crate::bytes::Endian;
use crate::detect::{detect, detect_as, Detection};
use crate::directory::{self, Header, LumpEntry, LumpOrigin};
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::entities::{self, Entities};

/// Options for opening a map.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Use this branch instead of detecting one (`--branch`).
    pub branch: Option<String>,
    /// Load external lumps (Valve `.lmp`, Respawn `.bsp_lump`) found beside the map, in place
    /// of the lumps inside it. On by default.
    pub external_lumps: bool,
    /// Largest decompressed lump accepted, against decompression bombs.
    pub max_decompressed: u64,
    /// Largest total of external lump files (`.lmp`, `.bsp_lump`) read for one map.
    pub max_external: u64,
    /// Largest total of decompressed bytes for one map, all lumps together (directory entries
    /// sharing one compressed stream decode once and count once).
    pub max_decompressed_total: u64,
    /// Maps up to this many bytes are read into memory by [`Bsp::open_with`]; larger ones are
    /// memory-mapped (default [`MAP_READ_LIMIT`]). `0` maps every map: opening costs no copy
    /// and only the pages read are loaded, but another process truncating the file while it is
    /// read can then end this one with SIGBUS (README: "Truncation while reading").
    pub read_limit: u64,
}

/// Default budget of decompressed bytes per map, all lumps together (1 GiB).
pub const DEFAULT_MAX_DECOMPRESSED_TOTAL: u64 = 1 << 30;

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            branch: None,
            external_lumps: true,
            max_decompressed: crate::compression::DEFAULT_MAX_DECOMPRESSED,
            max_external: crate::external::DEFAULT_MAX_EXTERNAL,
            max_decompressed_total: DEFAULT_MAX_DECOMPRESSED_TOTAL,
            read_limit: MAP_READ_LIMIT,
        }
    }
}

enum Data<'d> {
    Borrowed(&'d [u8]),
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Data<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Data::Borrowed(b) => b,
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        }
    }
}

/// An opened `.bsp` file.
///
/// ```
/// # fn main() -> Result<(), bspkit::Error> {
/// // A tiny Quake map made by the library's own builder.
/// let bytes = bspkit::build::sample_quake1();
/// let bsp = bspkit::Bsp::from_bytes(&bytes)?;
/// assert_eq!(bsp.branch().id, "quake1");
/// for lump in bsp.lumps() {
///     println!("{:>2} {:<14} {:>8} bytes", lump.index, lump.name, lump.length);
/// }
/// let ents = bsp.entities()?;
/// assert_eq!(ents.list[0].get("classname").as_deref(), Some("worldspawn"));
/// # Ok(()) }
/// ```
pub struct Bsp<'d> {
    path: Option<PathBuf>,
    data: Data<'d>,
    detection: Detection,
    header: Header,
    lumps: Vec<LumpEntry>,
    /// External lump bytes, per directory position.
    external: Vec<Option<Vec<u8>>>,
    /// Decompressed lump bytes, per directory position, filled on first access.
    decoded: Vec<OnceLock<Result<Vec<u8>>>>,
    /// Per directory position, the first position with the same compressed bytes (offset and
    /// length): entries sharing one stream share its decoded cell, so it decodes once.
    canonical: Vec<usize>,
    /// Decompressed bytes charged against `options.max_decompressed_total`.
    decoded_total: std::sync::atomic::AtomicU64,
    /// The first time the budget was exceeded (for `scan`, which reports it as the map's error).
    budget_error: OnceLock<Error>,
    /// Entity text made from a binary entity lump (Genesis3D), on first access.
    entity_text: OnceLock<Result<Vec<u8>>>,
    /// Where the entity text ends (its first NUL), on first access.
    entity_text_end: OnceLock<usize>,
    /// Where the entities and their pairs are in the entity text, lexed on first access:
    /// the checks, info rows and statistics each ask for the entities.
    entity_outline: OnceLock<Result<entities::Outline>>,
    options: OpenOptions,
    /// What [`Bsp::display_name`] says for a map without a path (e.g. `pak.pk3!maps/x.bsp`).
    name: Option<String>,
    /// The file as it was when opened, for an in-place write to refuse a changed file.
    fingerprint: Option<crate::write::atomic::Fingerprint>,
}

/// For each directory position, the first position whose entry has the same offset and length
/// (compressed entries only; others map to themselves). Sorting keeps it O(n log n).
fn canonical_positions(lumps: &[LumpEntry]) -> Vec<usize> {
    let mut out: Vec<usize> = (0..lumps.len()).collect();
    let mut keyed: Vec<(u64, u64, usize)> =
        lumps.iter().enumerate().filter(|(_, e)| e.compressed && e.length > 0).map(|(p, e)| (e.offset, e.length, p)).collect();
    keyed.sort_unstable();
    for w in 1..keyed.len() {
        let (o, l, p) = keyed[w];
        let (po, pl, _) = keyed[w - 1];
        if (o, l) == (po, pl) {
            out[p] = out[keyed[w - 1].2];
        }
    }
    out
}

/// Maps up to this size (256 MiB) are read into memory by [`Bsp::open`]; larger ones are
/// memory-mapped ([`OpenOptions::read_limit`]).
pub const MAP_READ_LIMIT: u64 = 256 << 20;

impl Bsp<'static> {
    /// Open and memory-map a file, detecting its format.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, &OpenOptions::default())
    }

    pub fn open_with(path: impl AsRef<Path>, options: &OpenOptions) -> Result<Self> {
        Bsp::open_read(path.as_ref(), options, None)
    }

    /// Take ownership of bytes already in memory.
    pub fn from_vec(data: Vec<u8>) -> Result<Self> {
        Self::from_vec_with(data, &OpenOptions::default())
    }

    /// [`Bsp::from_vec`] with options (external lumps are never loaded: there is no path).
    pub fn from_vec_with(data: Vec<u8>, options: &OpenOptions) -> Result<Self> {
        Self::build(Data::Owned(data), None, options)
    }
}

impl<'d> Bsp<'d> {
    /// [`Bsp::open_with`], reading the file into `buf` (whatever it held is replaced) instead
    /// of a new buffer, for a caller that opens many maps one after another (`bsp scan --out`):
    /// a buffer kept across maps is not allocated, page-faulted and zeroed by the kernel again
    /// for each file, which a profile of the scan showed as its largest cost after hashing.
    /// A map above [`OpenOptions::read_limit`] is mapped as by [`Bsp::open_with`].
    pub fn open_in(path: impl AsRef<Path>, options: &OpenOptions, buf: &'d mut Vec<u8>) -> Result<Self> {
        Self::open_read(path.as_ref(), options, Some(buf))
    }

    fn open_read(path: &Path, options: &OpenOptions, buf: Option<&'d mut Vec<u8>>) -> Result<Self> {
        // Only regular files: a FIFO named `x.bsp` would block, a device never end.
        let (file, meta) = crate::fsio::open_regular(path)?;
        let len = meta.len();
        let fingerprint = Some(crate::write::atomic::Fingerprint::of_metadata(&meta));
        // Maps up to `read_limit` (MAP_READ_LIMIT by default) are read into memory: another
        // process truncating the file while it is read then gives a short read (a `truncated`
        // error), never SIGBUS. Larger maps are mapped (see README: "Truncation while
        // reading"). An empty file is read: there is nothing to map.
        let data = if len <= options.read_limit || len == 0 {
            match buf {
                None => Data::Owned(crate::fsio::read_opened(file, len, path)?),
                Some(buf) => {
                    buf.clear();
                    crate::fsio::read_opened_into(file, len, path, buf)?;
                    let buf: &'d Vec<u8> = buf;
                    Data::Borrowed(buf)
                }
            }
        } else {
            // SAFETY: the map is read-only. Another process truncating a mapped file while it
            // is read can fault (SIGBUS); documented for maps above `read_limit`.
            Data::Mapped(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::from(e).in_file(path))?)
        };
        let mut bsp = Self::build(data, Some(path.to_path_buf()), options).map_err(|e| e.in_file(path))?;
        bsp.fingerprint = fingerprint;
        if options.external_lumps {
            let indices: Vec<usize> = bsp.lumps.iter().map(|e| e.index).collect();
            for (index, bytes, origin) in
                crate::external::load_siblings(path, bsp.branch(), &indices, options.max_external).map_err(|e| e.in_file(path))?
            {
                bsp.set_external(index, bytes, origin);
            }
            // Directory entries past the end were kept for Respawn (see `build`); any that no
            // `.bsp_lump` replaced are an error now.
            if let Some(err) = directory::out_of_bounds(&bsp.lumps, bsp.data().len() as u64) {
                return Err(err.in_file(path));
            }
        }
        Ok(bsp)
    }

    /// Read a map from a byte slice without copying it.
    pub fn from_bytes(data: &'d [u8]) -> Result<Self> {
        Self::from_bytes_with(data, &OpenOptions::default())
    }

    pub fn from_bytes_with(data: &'d [u8], options: &OpenOptions) -> Result<Self> {
        Self::build(Data::Borrowed(data), None, options)
    }

    fn build(data: Data<'d>, path: Option<PathBuf>, options: &OpenOptions) -> Result<Self> {
        let bytes = data.bytes();
        let detection = match &options.branch {
            Some(id) => detect_as(bytes, id)?,
            None => detect(bytes)?,
        };
        // Respawn lumps may all live in `.bsp_lump` files, with directory offsets past the end
        // of a header-only `.bsp`: checked in `open_with` after those files are loaded.
        let beyond_eof = path.is_some() && options.external_lumps && detection.branch.header == crate::branch::HeaderKind::Respawn;
        let (header, lumps) = directory::parse_with(bytes, detection.branch, detection.endian, beyond_eof)?;
        let n = lumps.len();
        let canonical = canonical_positions(&lumps);
        Ok(Bsp {
            path,
            data,
            detection,
            header,
            lumps,
            external: vec![None; n],
            decoded: (0..n).map(|_| OnceLock::new()).collect(),
            canonical,
            entity_text: OnceLock::new(),
            entity_text_end: OnceLock::new(),
            entity_outline: OnceLock::new(),
            options: options.clone(),
            name: None,
            fingerprint: None,
            decoded_total: std::sync::atomic::AtomicU64::new(0),
            budget_error: OnceLock::new(),
        })
    }

    /// The file path, when opened from a file.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
    /// The file's identity (device, inode, size, modification time) when it was opened; an
    /// in-place write compares it before replacing the file ([`crate::ErrorKind::Changed`]).
    pub fn fingerprint(&self) -> Option<crate::write::atomic::Fingerprint> {
        self.fingerprint
    }
    /// The whole file's bytes.
    pub fn data(&self) -> &[u8] {
        self.data.bytes()
    }
    pub fn detection(&self) -> &Detection {
        &self.detection
    }
    pub fn branch(&self) -> &'static Branch {
        self.detection.branch
    }
    pub fn family(&self) -> Family {
        self.detection.branch.family
    }
    pub fn endian(&self) -> Endian {
        self.detection.endian
    }
    pub fn header(&self) -> &Header {
        &self.header
    }
    pub fn options(&self) -> &OpenOptions {
        &self.options
    }

    /// The lump directory, in directory order.
    pub fn lumps(&self) -> &[LumpEntry] {
        &self.lumps
    }

    /// Position in [`Bsp::lumps`] of the lump with this index (id for Call of Duty).
    fn position(&self, index: usize) -> Option<usize> {
        match self.lumps.get(index) {
            Some(e) if e.index == index => Some(index),
            _ => self.lumps.iter().position(|e| e.index == index),
        }
    }

    /// The directory entry for a lump index.
    pub fn entry(&self, index: usize) -> Option<&LumpEntry> {
        self.position(index).map(|p| &self.lumps[p])
    }

    /// A lump's index by its branch name (case-insensitive).
    pub fn lump_index(&self, name: &str) -> Option<usize> {
        self.branch().lump_index(name).or_else(|| self.lumps.iter().find(|e| e.name.eq_ignore_ascii_case(name)).map(|e| e.index))
    }

    /// The bytes of a lump as stored (compressed if the lump is compressed). A lump the
    /// directory does not list is empty.
    pub fn raw_lump(&self, index: usize) -> Result<&[u8]> {
        let Some(pos) = self.position(index) else { return Ok(&[]) };
        if let Some(ext) = &self.external[pos] {
            return Ok(ext);
        }
        let e = &self.lumps[pos];
        // An empty lump is empty wherever its offset points: Apex streaming `.bsp` files give
        // empty lumps the running offset of a layout whose lumps live in `.bsp_lump` files,
        // past the end of the header-only `.bsp` (respawn_cod_facts.md §1.1).
        if e.length == 0 {
            return Ok(&[]);
        }
        crate::bytes::slice(self.data(), e.offset, e.length).map_err(|err| self.locate(err, pos))
    }

    /// The bytes of a lump, decompressed if needed. Zero-copy for uncompressed lumps.
    pub fn lump(&self, index: usize) -> Result<&[u8]> {
        let Some(pos) = self.position(index) else { return Ok(&[]) };
        let raw = self.raw_lump(index)?;
        if !self.lumps[pos].compressed || self.external[pos].is_some() {
            return Ok(raw);
        }
        let cell = self.decoded[self.canonical[pos]].get_or_init(|| {
            // The same header checks as `lump_len`, so that a lump only measured and one
            // decoded are refused alike.
            let size = crate::compression::check_header(raw, self.options.max_decompressed)?.actual_size as u64;
            self.charge_decompressed(size)?;
            crate::compression::decompress_valve_lzma(raw, self.endian(), self.options.max_decompressed)
        });
        match cell {
            Ok(v) => Ok(v),
            Err(e) => Err(self.locate(e.clone(), pos)),
        }
    }

    /// The length of [`Bsp::lump`]'s bytes, without decompressing: for an LZMA lump not yet
    /// decoded, the output size its header states, once the header passes
    /// [`crate::compression::check_header`] (so a lump that is only measured — `check` reads
    /// no more of Source's lighting — is refused for the same header faults as a decoded one;
    /// a damaged stream behind a sound header only shows when decoded). Nothing is charged
    /// against the map's decompression budget.
    pub fn lump_len(&self, index: usize) -> Result<u64> {
        let Some(pos) = self.position(index) else { return Ok(0) };
        let raw = self.raw_lump(index)?;
        if !self.lumps[pos].compressed || self.external[pos].is_some() {
            return Ok(raw.len() as u64);
        }
        match self.decoded[self.canonical[pos]].get() {
            Some(Ok(v)) => Ok(v.len() as u64),
            Some(Err(e)) => Err(self.locate(e.clone(), pos)),
            None => crate::compression::check_header(raw, self.options.max_decompressed)
                .map(|h| h.actual_size as u64)
                .map_err(|e| self.locate(e, pos)),
        }
    }

    /// How many records of `record_size` bytes the lump holds, from [`Bsp::lump_len`] (no
    /// decompression); the same [`ErrorKind::BadLumpLength`] as [`Bsp::records`] when the
    /// length is not a whole number of records.
    pub fn record_count(&self, index: usize, record_size: usize) -> Result<usize> {
        let len = self.lump_len(index)?;
        if record_size == 0 || len % record_size as u64 != 0 {
            let pos = self.position(index).unwrap_or(usize::MAX);
            return Err(self.locate(Error::new(ErrorKind::BadLumpLength { length: len, record_size }), pos));
        }
        Ok(usize::try_from(len / record_size as u64).unwrap_or(usize::MAX))
    }

    /// Whether this compressed lump has been decompressed (or its decompression tried and
    /// failed) by this `Bsp` so far; `false` for a lump stored uncompressed. Lets a caller (and
    /// the tests) see which lumps a pass such as `check` decoded.
    pub fn was_decompressed(&self, index: usize) -> bool {
        self.position(index).is_some_and(|pos| {
            self.lumps[pos].compressed && self.external[pos].is_none() && self.decoded[self.canonical[pos]].get().is_some()
        })
    }

    /// Count `bytes` more decompressed bytes against the map's budget
    /// ([`OpenOptions::max_decompressed_total`]); [`ErrorKind::LimitExceeded`] (and nothing
    /// counted) when they do not fit. Every decompression of this map's data calls it first.
    pub fn charge_decompressed(&self, bytes: u64) -> Result<()> {
        use std::sync::atomic::Ordering;
        let limit = self.options.max_decompressed_total;
        let before = self.decoded_total.fetch_add(bytes, Ordering::SeqCst);
        let after = before.saturating_add(bytes);
        if after > limit {
            self.decoded_total.fetch_sub(bytes, Ordering::SeqCst);
            let err = Error::new(ErrorKind::LimitExceeded { what: "decompressed bytes of the map (all lumps)", requested: after, limit });
            let _ = self.budget_error.set(err.clone());
            return Err(err);
        }
        Ok(())
    }

    /// The error of the first decompression refused by the map's budget, if any (a whole-map
    /// pass such as `check` reports lumps it could not read as problems; `scan` reports this as
    /// the map's error).
    pub fn budget_error(&self) -> Option<Error> {
        self.budget_error.get().map(|e| e.clone().in_file_opt(self.path.as_deref()))
    }

    /// Decompressed bytes counted so far against the map's budget.
    pub fn decompressed_bytes(&self) -> u64 {
        self.decoded_total.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Decompress every compressed lump now, on the rayon pool, largest first, so that later
    /// [`Bsp::lump`] calls find them decoded. A whole-map pass (`check`, `decode_with`) calls
    /// this first: LZMA lumps decode independently, so their decoding spreads over the cores.
    /// Errors are kept and returned by [`Bsp::lump`] as usual.
    pub fn decompress_all(&self) {
        self.decompress_lumps(|_| true);
    }

    /// [`Bsp::decompress_all`] for the lumps whose index `wanted` accepts (`check` decodes
    /// only the lumps its checks read, see [`crate::check::CheckOptions`]).
    pub fn decompress_lumps(&self, wanted: impl Fn(usize) -> bool) {
        use rayon::prelude::*;
        let mut todo: Vec<(u64, usize)> = (0..self.lumps.len())
            .filter(|&p| {
                self.lumps[p].compressed
                    && self.external[p].is_none()
                    && self.canonical[p] == p
                    && self.decoded[p].get().is_none()
                    && wanted(self.lumps[p].index)
            })
            .map(|p| (self.lumps[p].length, self.lumps[p].index))
            .collect();
        if todo.len() < 2 {
            return;
        }
        todo.sort_unstable_by(|a, b| b.cmp(a));
        // Decoding in parallel holds every decoder's dictionary at once besides the outputs.
        // When the outputs and dictionaries together would pass what is left of the map's
        // budget, decode one at a time (largest first), so the peak stays near the budget
        // (issue 23: two lumps claiming 511 MiB each).
        let claim = |index: usize| -> u64 {
            let raw = self.raw_lump(index).unwrap_or(&[]);
            match crate::compression::parse_header(raw) {
                Ok(h) => h.actual_size as u64 + crate::compression::dictionary_for(&h.properties, h.actual_size as usize) as u64,
                Err(_) => 0,
            }
        };
        let need: u64 = todo.iter().map(|&(_, index)| claim(index)).fold(0u64, u64::saturating_add);
        let left = self.options.max_decompressed_total.saturating_sub(self.decompressed_bytes());
        if need > left {
            for &(_, index) in &todo {
                let _ = self.lump(index);
            }
            return;
        }
        todo.par_iter().with_max_len(1).for_each(|&(_, index)| {
            let _ = self.lump(index);
        });
    }

    /// A lump's bytes as a slice of fixed-size records, without copying.
    pub fn records<T: FromBytes + Immutable + KnownLayout>(&self, index: usize) -> Result<&[T]> {
        let bytes = self.lump(index)?;
        let size = std::mem::size_of::<T>();
        <[T]>::ref_from_bytes(bytes).map_err(|_| {
            let pos = self.position(index).unwrap_or(0);
            self.locate(Error::new(ErrorKind::BadLumpLength { length: bytes.len() as u64, record_size: size }), pos)
        })
    }

    /// The record size this branch declares for a lump (taking its version into account).
    pub fn record_size(&self, index: usize) -> Option<usize> {
        let e = self.entry(index)?;
        self.branch().lumps.get(index)?.record_size(e.version.unwrap_or(0))
    }

    /// Index of the branch's entity lump.
    pub fn entities_index(&self) -> Option<usize> {
        self.branch().lumps.iter().position(|l| l.kind == LumpKind::Entities)
    }

    /// The entity lump's text (up to and excluding the first NUL). A Genesis3D entity chunk is
    /// binary: its text form is made once ([`crate::branches::genesis3d::ents::to_text`]).
    pub fn entities_text(&self) -> Result<&[u8]> {
        match self.entities_index() {
            Some(i) if self.family() == Family::Genesis3D => {
                let raw = self.lump(i)?;
                let cell = self.entity_text.get_or_init(|| crate::branches::genesis3d::ents::to_text(raw));
                cell.as_deref().map_err(|e| {
                    // Offsets of the binary decoder are within the chunk.
                    let base = self.entry(i).map(|x| x.offset).unwrap_or(0);
                    let e = Error { offset: Some(base + e.offset.unwrap_or(0)), ..e.clone() };
                    self.locate(e, self.position(i).unwrap_or(usize::MAX))
                })
            }
            Some(i) => {
                let raw = self.lump(i)?;
                let end = *self.entity_text_end.get_or_init(|| memchr::memchr(0, raw).unwrap_or(raw.len()));
                Ok(&raw[..end])
            }
            None => Ok(&[]),
        }
    }

    /// The parsed entity lump.
    pub fn entities(&self) -> Result<Entities<'_>> {
        let text = self.entities_text()?;
        // Lexed once per map; what `entities::parse(text)` gives (the same text every time: the
        // lump's bytes are decoded once and kept).
        match self.entity_outline.get_or_init(|| entities::Outline::of(text)) {
            Ok(outline) => Ok(outline.entities(text)),
            Err(e) => Err(self.entity_error(e.clone())),
        }
    }

    /// Locate an error from parsing the entity text, whose offset is within the text: the file,
    /// the entity lump, and the offset in the file (in the decompressed lump for an LZMA one,
    /// which the lump name then says), as every command reports it.
    pub fn entity_error(&self, e: Error) -> Error {
        let i = self.entities_index().unwrap_or(0);
        let Some(pos) = self.position(i) else { return e };
        let entry = &self.lumps[pos];
        let e = if entry.compressed || self.external[pos].is_some() {
            let what = if entry.compressed { "decompressed" } else { "external file" };
            e.in_lump(format!("{} ({}, {what})", entry.index, entry.name))
        } else {
            match e.offset {
                Some(o) => Error { offset: Some(entry.offset + o), ..e },
                None => e,
            }
        };
        self.locate(e, pos)
    }

    /// Attach this file's path and the lump's name/offset to an error.
    pub fn locate(&self, err: Error, pos: usize) -> Error {
        let mut err = err;
        if let Some(e) = self.lumps.get(pos) {
            err = err.in_lump(format!("{} ({})", e.index, e.name)).at(e.offset);
        }
        match &self.path {
            Some(p) => err.in_file(p),
            None => err,
        }
    }

    /// Attach an error to a lump by its index.
    pub fn lump_error(&self, index: usize, err: Error) -> Error {
        self.locate(err, self.position(index).unwrap_or(usize::MAX))
    }

    /// Replace a lump's stored bytes with external data (used by the `.lmp` / `.bsp_lump` loader).
    pub(crate) fn set_external(&mut self, index: usize, bytes: Vec<u8>, origin: LumpOrigin) {
        if let Some(pos) = self.position(index) {
            self.lumps[pos].length = bytes.len() as u64;
            self.lumps[pos].compressed = bytes.len() >= 17 && bytes.starts_with(b"LZMA");
            self.lumps[pos].origin = origin;
            self.external[pos] = Some(bytes);
            self.decoded[pos] = OnceLock::new();
            self.entity_text_end = OnceLock::new();
            self.entity_outline = OnceLock::new();
        }
    }

    /// The map's path, the name given by [`Bsp::with_name`], or `"<memory>"`.
    pub fn display_name(&self) -> Cow<'_, str> {
        match (&self.path, &self.name) {
            (Some(p), _) => p.to_string_lossy(),
            (None, Some(n)) => Cow::Borrowed(n),
            (None, None) => Cow::Borrowed("<memory>"),
        }
    }

    /// Name a map read from memory (e.g. an archive entry, `pak.pk3!maps/x.bsp`) for
    /// [`Bsp::display_name`]; the name is not a path, so no sibling files are looked for.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}
