//! Editing maps: an [`Editor`] collects lump changes against an opened [`Bsp`] and writes the
//! result through [`crate::write`] (same layout engine as an unchanged rewrite, atomic write,
//! reopen-and-check before the rename).
//!
//! ```
//! # fn main() -> Result<(), bspkit::Error> {
//! let bytes = bspkit::build::sample_quake1();
//! let bsp = bspkit::Bsp::from_bytes(&bytes)?;
//! let mut ed = bspkit::edit::Editor::new(&bsp)?;
//! let mut ents = ed.entities()?;
//! ents.entities[0].set("message", "edited")?;
//! ed.set_entities(&ents)?;
//! let out = ed.to_bytes()?;
//! let back = bspkit::Bsp::from_bytes(&out)?;
//! assert_eq!(back.entities()?.list[0].get("message").as_deref(), Some("edited"));
//! # Ok(()) }
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use crate::branch::HeaderKind;
use crate::branches::any;
use crate::bsp::{Bsp, OpenOptions};
use crate::directory::{self, LumpEntry};
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::entities::EntityDoc;
use crate::write::{self, LumpChange, WriteOptions};

/// Lumps Valve never compresses as a whole: the game lump (its children are compressed one by
/// one) and the pakfile (source.md §6).
pub const NEVER_COMPRESSED: [usize; 2] = [35, 40];

/// Changes to one map, written as a new file.
pub struct Editor<'b, 'd> {
    bsp: &'b Bsp<'d>,
    /// The directory of the file itself (external lumps are not part of it).
    entries: Vec<LumpEntry>,
    changes: BTreeMap<usize, LumpChange>,
    pub options: WriteOptions,
}

/// A lump named by its index (decimal) or its branch name (case-insensitive).
pub fn resolve_lump(bsp: &Bsp, lump: &str) -> Result<usize> {
    let index = match lump.parse::<usize>() {
        Ok(i) => Some(i),
        Err(_) => bsp.lump_index(lump),
    };
    match index {
        Some(i) if bsp.branch().header.is_list() || i < bsp.lumps().len() => Ok(i),
        _ => Err(Error::new(ErrorKind::NoSuchLump(lump.to_string()))),
    }
}

impl<'b, 'd> Editor<'b, 'd> {
    pub fn new(bsp: &'b Bsp<'d>) -> Result<Self> {
        let (_, entries) = if bsp.lumps().iter().any(|e| matches!(e.origin, crate::directory::LumpOrigin::BspLump(_))) {
            // A Respawn map opened with its `.bsp_lump` files: directory entries past the end of
            // the `.bsp` (an Apex streaming `.bsp` is the header alone) are allowed where a
            // `.bsp_lump` holds the lump, as when the map was opened.
            let (h, mut entries) = directory::parse_with(bsp.data(), bsp.branch(), bsp.endian(), true)?;
            for e in &mut entries {
                if let Some(loaded) = bsp.entry(e.index) {
                    e.origin = loaded.origin.clone();
                }
            }
            if let Some(err) = directory::out_of_bounds(&entries, bsp.data().len() as u64) {
                return Err(err);
            }
            (h, entries)
        } else {
            directory::parse(bsp.data(), bsp.branch(), bsp.endian())?
        };
        Ok(Editor { bsp, entries, changes: BTreeMap::new(), options: WriteOptions::default() })
    }

    pub fn bsp(&self) -> &Bsp<'d> {
        self.bsp
    }

    fn entry(&self, index: usize) -> Option<&LumpEntry> {
        self.entries.iter().find(|e| e.index == index)
    }

    fn check_index(&self, index: usize) -> Result<()> {
        if self.entry(index).is_some() || self.bsp.branch().header.is_list() {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::NoSuchLump(index.to_string())))
        }
    }

    /// A lump's bytes as they will be stored (compressed if stored compressed).
    pub fn raw_lump(&self, index: usize) -> Result<Cow<'_, [u8]>> {
        if let Some(c) = self.changes.get(&index) {
            return Ok(Cow::Borrowed(&c.bytes));
        }
        // A Respawn map opened with its `.bsp_lump` files: those bytes are the lump the game
        // reads, so edits start from them ([`crate::mapset`] writes them back to their file).
        if self.bsp.entry(index).is_some_and(|e| matches!(e.origin, crate::directory::LumpOrigin::BspLump(_))) {
            return self.bsp.raw_lump(index).map(Cow::Borrowed);
        }
        match self.entry(index) {
            // Empty wherever its offset points (as `Bsp::raw_lump`).
            Some(e) if e.length == 0 => Ok(Cow::Borrowed(&[])),
            Some(e) => {
                Ok(Cow::Borrowed(crate::bytes::slice(self.bsp.data(), e.offset, e.length).map_err(|err| self.bsp.lump_error(index, err))?))
            }
            None => Ok(Cow::Borrowed(&[])),
        }
    }

    fn is_lzma(&self, raw: &[u8]) -> bool {
        matches!(self.bsp.branch().header, HeaderKind::Valve { .. })
            && raw.len() >= crate::compression::LZMA_HEADER_LEN
            && raw.starts_with(b"LZMA")
    }

    /// Is the lump (as it will be written) LZMA-compressed?
    pub fn is_compressed(&self, index: usize) -> Result<bool> {
        Ok(self.is_lzma(&self.raw_lump(index)?))
    }

    /// A lump's bytes, decompressed.
    pub fn lump(&self, index: usize) -> Result<Cow<'_, [u8]>> {
        let raw = self.raw_lump(index)?;
        if self.is_lzma(&raw) {
            let max = self.bsp.options().max_decompressed;
            if !self.changes.contains_key(&index) {
                // The map's own data: decoded once by the map (counted in its budget).
                if self.bsp.entry(index).is_some_and(|e| e.compressed && e.origin == crate::directory::LumpOrigin::File) {
                    return self.bsp.lump(index).map(Cow::Borrowed);
                }
            }
            let size = crate::compression::parse_header(&raw).map_err(|e| self.bsp.lump_error(index, e))?.actual_size as u64;
            self.bsp.charge_decompressed(size.min(max)).map_err(|e| self.bsp.lump_error(index, e))?;
            let v = crate::compression::decompress_valve_lzma(&raw, self.bsp.endian(), max).map_err(|e| self.bsp.lump_error(index, e))?;
            Ok(Cow::Owned(v))
        } else {
            Ok(raw)
        }
    }

    /// Replace a lump's data (uncompressed bytes). A lump stored compressed is compressed again.
    pub fn set_lump(&mut self, index: usize, data: Vec<u8>) -> Result<()> {
        self.check_index(index)?;
        if self.is_compressed(index)? && !data.is_empty() {
            let stored = crate::compression::compress_valve_lzma(&data, 6)?;
            let fourcc = Some(data.len() as u32);
            self.changes.insert(index, LumpChange { bytes: stored, version: None, fourcc });
        } else {
            let fourcc =
                if matches!(self.bsp.branch().header, HeaderKind::Valve { .. }) && self.is_compressed(index)? { Some(0) } else { None };
            self.changes.insert(index, LumpChange { bytes: data, version: None, fourcc });
        }
        Ok(())
    }

    /// Replace a lump's stored bytes exactly as given, optionally with a new version / fourCC.
    pub fn set_raw_lump(&mut self, index: usize, stored: Vec<u8>, version: Option<u32>, fourcc: Option<u32>) -> Result<()> {
        self.check_index(index)?;
        self.changes.insert(index, LumpChange { bytes: stored, version, fourcc });
        Ok(())
    }

    /// Empty a lump.
    pub fn remove_lump(&mut self, index: usize) -> Result<()> {
        self.set_raw_lump(index, Vec::new(), None, Some(0).filter(|_| matches!(self.bsp.branch().header, HeaderKind::Valve { .. })))
    }

    /// LZMA-compress one Source lump (no-op if it is compressed or empty). Refuses the game lump
    /// and the pakfile (source.md §6). Returns whether the lump changed.
    pub fn compress_lump(&mut self, index: usize) -> Result<bool> {
        if !matches!(self.bsp.branch().header, HeaderKind::Valve { .. }) {
            return Err(Error::malformed(format!("{} maps have no lump compression", self.bsp.family().as_str())));
        }
        if NEVER_COMPRESSED.contains(&index) {
            return Err(Error::malformed(format!("lump {index} is never compressed as a whole (source.md §6)")));
        }
        if self.is_compressed(index)? {
            return Ok(false);
        }
        let data = self.lump(index)?.into_owned();
        if data.is_empty() {
            return Ok(false);
        }
        let stored = crate::compression::compress_valve_lzma(&data, 6)?;
        self.changes.insert(index, LumpChange { bytes: stored, version: None, fourcc: Some(data.len() as u32) });
        Ok(true)
    }

    /// Store one lump uncompressed. Returns whether the lump changed.
    pub fn decompress_lump(&mut self, index: usize) -> Result<bool> {
        if !self.is_compressed(index)? {
            return Ok(false);
        }
        let data = self.lump(index)?.into_owned();
        self.changes.insert(index, LumpChange { bytes: data, version: None, fourcc: Some(0) });
        Ok(true)
    }

    /// LZMA-compress (or decompress) each child of the game lump on its own, the way the game
    /// lump is compressed (source.md §6, §14.2; open_questions.md A13). The lump itself stays
    /// uncompressed. Children whose compressed form is not smaller stay as they are. Returns the
    /// number of children changed.
    pub fn compress_game_lump_children(&mut self, compress: bool) -> Result<usize> {
        use crate::write::{build_game_lump, game_lump_convention, game_lump_directory, GameLumpOffsets, GAME_LUMP};
        if !matches!(self.bsp.branch().header, HeaderKind::Valve { .. }) {
            return Err(Error::malformed(format!("{} maps have no lump compression", self.bsp.family().as_str())));
        }
        // Dark Messiah's directory form predates compressed children (and is rebuilt below in
        // Valve's form): refused rather than rewritten in the wrong form.
        if crate::lumps::gamelump::DirForm::of_branch(self.bsp.branch().id) != crate::lumps::gamelump::DirForm::Valve {
            return Err(Error::malformed(format!("{} game lumps have no compressed children", self.bsp.branch().id)));
        }
        let endian = self.bsp.endian();
        let raw = self.raw_lump(GAME_LUMP)?.into_owned();
        let Some(entry_offset) = self.entry(GAME_LUMP).map(|e| e.offset) else { return Ok(0) };
        let bad = |m: &str| self.bsp.lump_error(GAME_LUMP, Error::malformed(m.to_string()));
        let dir = game_lump_directory(&raw, endian).ok_or_else(|| bad("game lump directory does not fit the lump"))?;
        if dir.iter().all(|c| c.length == 0) {
            return Ok(0);
        }
        let base = match game_lump_convention(&raw, endian, entry_offset) {
            Some(GameLumpOffsets::Absolute) => entry_offset as i64,
            Some(GameLumpOffsets::Relative) => 0,
            Some(GameLumpOffsets::LmpFile) | None => {
                return Err(bad("game lump child offsets fit neither convention (open_questions.md A12)"))
            }
        };
        let any_compressed = dir.iter().any(|c| c.flags & 1 != 0);
        let max = self.bsp.options().max_decompressed;
        let mut children = Vec::new();
        let mut changed = 0;
        for (i, c) in dir.iter().enumerate() {
            // The trailing empty entry of a compressed game lump only carries the end offset.
            if any_compressed && i + 1 == dir.len() && c.id == 0 && c.length == 0 {
                continue;
            }
            let start = c.offset - base;
            let stored = usize::try_from(start)
                .ok()
                .zip(usize::try_from(c.stored).ok())
                .and_then(|(s, l)| raw.get(s..s.checked_add(l)?))
                .ok_or_else(|| bad("game lump child lies outside the lump"))?;
            let data = if c.flags & 1 != 0 {
                let size = crate::compression::parse_header(stored).map_err(|e| self.bsp.lump_error(GAME_LUMP, e))?.actual_size as u64;
                self.bsp.charge_decompressed(size.min(max)).map_err(|e| self.bsp.lump_error(GAME_LUMP, e))?;
                crate::compression::decompress_valve_lzma(stored, endian, max).map_err(|e| self.bsp.lump_error(GAME_LUMP, e))?
            } else {
                stored.to_vec()
            };
            let (bytes, flags) = if compress && !data.is_empty() {
                let packed = if c.flags & 1 != 0 { stored.to_vec() } else { crate::compression::compress_valve_lzma(&data, 6)? };
                if packed.len() < data.len() {
                    (packed, c.flags | 1)
                } else {
                    (data.clone(), c.flags & !1)
                }
            } else {
                (data.clone(), c.flags & !1)
            };
            if flags != c.flags {
                changed += 1;
            }
            children.push((c.id, flags, c.version, bytes, data.len() as u32));
        }
        if changed == 0 {
            return Ok(0);
        }
        let built = build_game_lump(&children, endian, base as u64)?;
        self.changes.insert(GAME_LUMP, LumpChange { bytes: built, version: None, fourcc: None });
        Ok(changed)
    }

    /// The entity lump for editing. A binary entity lump (Genesis3D's chunk) is edited as its
    /// text form ([`crate::branches::ops::FamilyOps::entity_codec`]).
    pub fn entities(&self) -> Result<EntityDoc> {
        let index = self.entities_index()?;
        let lump = self.entity_text(index)?;
        EntityDoc::parse(&lump).map_err(|e| self.bsp.entity_error(e))
    }

    /// The entity lump as text (the lump itself, or the text form of a binary one).
    fn entity_text(&self, index: usize) -> Result<Cow<'_, [u8]>> {
        let lump = self.lump(index)?;
        if let Some(codec) = any::of(self.bsp.family()).entity_codec() {
            return (codec.to_text)(&lump).map(Cow::Owned).map_err(|e| self.bsp.lump_error(index, e));
        }
        Ok(lump)
    }

    fn entities_index(&self) -> Result<usize> {
        self.bsp.entities_index().ok_or_else(|| Error::new(ErrorKind::NoSuchLump("entities".into())))
    }

    /// Store edited entities (unchanged entities keep their bytes). Nothing changes if the text is the same.
    /// A binary entity lump is written back in its form (Genesis3D: every pair re-encoded as
    /// the compiler writes it) when its text changed.
    pub fn set_entities(&mut self, doc: &EntityDoc) -> Result<()> {
        let index = self.entities_index()?;
        let bytes = doc.to_bytes();
        if bytes.as_slice() != &*self.entity_text(index)? {
            let bytes = match any::of(self.bsp.family()).entity_codec() {
                Some(codec) => (codec.from_text)(&bytes).map_err(|e| self.bsp.lump_error(index, e))?,
                None => bytes,
            };
            self.set_lump(index, bytes)?;
        }
        Ok(())
    }

    /// Lump indices changed so far.
    pub fn changed(&self) -> impl Iterator<Item = usize> + '_ {
        self.changes.keys().copied()
    }

    /// The new file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        write::build(self.bsp, &self.changes, &self.options)
    }

    /// Write the new file to `path` through [`crate::write::atomic`] (symbolic links
    /// followed, FIFOs and devices written through, mode kept). The result is reopened and
    /// checked first (it must open as the same branch, and `check` must find no problem the
    /// source lacks: [`ErrorKind::NewProblems`] lists them). With
    /// [`WriteOptions::allow_new_problems`] the check only requires that the file opens and
    /// every lump reads; the new problems are returned so the caller can report them. When
    /// `path` is the file the map was read from and it changed since, the write is refused
    /// ([`ErrorKind::Changed`]). An edit of a lump loaded from a Respawn `.bsp_lump` is
    /// refused: such a map is written as a set ([`crate::mapset::write_set`]).
    pub fn write(&self, path: &Path) -> Result<Vec<String>> {
        self.prepare()?.write(path)
    }

    /// The new file's bytes and what its check is compared with, detached from the source map
    /// (so the source can be closed before the result replaces it).
    pub fn prepare(&self) -> Result<PreparedWrite> {
        // An edit of a lump the game reads from a `.bsp_lump` would be lost in the `.bsp` alone:
        // such a map is written as a set (`bspkit::mapset::write_set`).
        for i in self.changed() {
            if let Some(crate::directory::LumpOrigin::BspLump(p)) = self.bsp.entry(i).map(|e| &e.origin) {
                return Err(Error::malformed(format!(
                    "lump {i} lives in {}; write the map with its files as a set (bspkit::mapset::write_set)",
                    p.display()
                )));
            }
        }
        Ok(PreparedWrite {
            bytes: self.to_bytes()?,
            before: crate::check::check(self.bsp).iter().map(|p| p.to_string()).collect(),
            branch: self.bsp.branch().id,
            allow_new_problems: self.options.allow_new_problems,
            source: self.bsp.path().and_then(|p| Some((p.to_path_buf(), self.bsp.fingerprint()?))),
        })
    }
}

/// A map ready to be written by [`PreparedWrite::write`] ([`Editor::prepare`]).
pub struct PreparedWrite {
    bytes: Vec<u8>,
    /// The source map's `check` problems.
    before: Vec<String>,
    branch: &'static str,
    allow_new_problems: bool,
    /// Where the map was read from and what the file was then.
    source: Option<(std::path::PathBuf, write::Fingerprint)>,
}

/// What [`PreparedWrite::write_report`] did.
#[derive(Debug, Clone)]
pub struct WriteReport {
    /// New `check` problems (only with [`WriteOptions::allow_new_problems`]).
    pub new_problems: Vec<String>,
    /// The file written; `None` when written to a stream.
    pub written: Option<write::Written>,
}

impl PreparedWrite {
    /// The new file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Check the bytes as [`Editor::write`] says: the new problems when they are allowed,
    /// else an error listing them.
    pub fn check(&self) -> Result<Vec<String>> {
        let new = write::new_problems_in(&self.bytes, self.branch, &self.before)?;
        if !new.is_empty() && !self.allow_new_problems {
            return Err(Error::new(ErrorKind::NewProblems(new)));
        }
        Ok(new)
    }

    /// Check, then write to `path` as [`Editor::write`] says.
    pub fn write(self, path: &Path) -> Result<Vec<String>> {
        self.write_report(path).map(|r| r.new_problems)
    }

    /// [`PreparedWrite::write`], also saying what the write did (the resolved path, hard links
    /// left with the old contents).
    pub fn write_report(self, path: &Path) -> Result<WriteReport> {
        let new_problems = self.check().map_err(|e| e.in_file(path))?;
        let mut opts = write::atomic::WriteOptions::default();
        if let Some((src, fp)) = &self.source {
            // The same file as the source (through any links): it must still be what was read.
            if same_path(src, path) {
                opts.expect = Some(*fp);
            }
        }
        let written = write::write_file(path, &self.bytes, &opts)?;
        Ok(WriteReport { new_problems, written: Some(written) })
    }

    /// Check, then write the bytes to a stream (standard output for `-o -`).
    pub fn write_to(self, out: &mut dyn std::io::Write) -> Result<Vec<String>> {
        let new = self.check()?;
        out.write_all(&self.bytes)?;
        out.flush()?;
        Ok(new)
    }
}

/// Whether two paths name the same file location (symbolic links resolved; the directory
/// canonicalised, so `./a.bsp` and `a.bsp` agree even when the file was replaced meanwhile).
fn same_path(a: &Path, b: &Path) -> bool {
    let norm = |p: &Path| -> Option<std::path::PathBuf> {
        let real = write::atomic::resolve_links(p).ok()?;
        let dir = match real.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        Some(std::fs::canonicalize(dir).ok()?.join(real.file_name()?))
    };
    match (norm(a), norm(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Open `input` (without external lumps), replace lump `index` with `stored` bytes (as stored:
/// no compression applied) and write the result atomically to `output` (which may be `input`).
pub fn replace_lump_in_file(input: &Path, index: usize, stored: Vec<u8>, output: &Path) -> Result<()> {
    let bsp = Bsp::open_with(input, &OpenOptions { external_lumps: false, ..Default::default() })?;
    let mut ed = Editor::new(&bsp)?;
    ed.set_raw_lump(index, stored, None, None)?;
    let prepared = ed.prepare()?;
    // The input is unmapped before the result may replace it.
    drop(ed);
    drop(bsp);
    prepared.write(output).map(drop)
}
