//! Map libraries as tables (`bsp scan --out`, Python `bspkit.scan`): every map found by
//! [`crate::scan`] becomes rows of six related tables — `maps` (one row per place a map was
//! found), and, once per distinct content (SHA-256), `entities`, `textures`, `props`, `lumps`
//! and `problems`. The columns are documented in README.md ("Library tables"); a change to
//! them raises [`SCHEMA_VERSION`].
//!
//! This module builds plain rows (serde types, also the index's journal); `bspkit-arrow`
//! turns them into Arrow record batches and Parquet files.
//!
//! A second run over the same library reads only files whose size or modification time
//! changed: [`Index`] keeps every file's rows in a journal beside the output, appended as each
//! file finishes, so an interrupted run also resumes where it stopped.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bsp::{Bsp, OpenOptions};
use crate::check::problem::{Counts, Severity};
use crate::error::Error;
use crate::scan::{is_archive, is_map_file, ScanOptions};

/// Version of the table layout (columns, their types and meaning). Written into every table
/// (Parquet key-value metadata `bspkit.schema_version`, the `schema.json` beside CSV / JSON
/// lines) and into the index; an index of another version is not reused.
pub const SCHEMA_VERSION: u32 = 2;

/// The six tables, in the order they are written.
pub const TABLES: [&str; 6] = ["maps", "entities", "textures", "props", "lumps", "problems"];

/// What is known of a file when it was listed: what decides whether a file must be read
/// again, and whether it changed while it was read. Size and modification time alone miss a
/// rewrite that keeps both (`cp -p`, `rsync -t`, `touch -r`, a tool that restores the mtime):
/// the status-change time (`ctime`, which no user call can set back) and the inode (a file
/// replaced by a rename) catch it, as git's index and rsync do. Still missed: a rewrite in the
/// same clock tick as the file's previous change, after it was listed (the timestamps are
/// coarse, a few ms); `bsp scan --out --verify` re-hashes every file the index would reuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    /// Nanoseconds since the Unix epoch (negative before it); 0 where the system has none.
    pub mtime_ns: i64,
    /// Status-change time, ns since the Unix epoch; 0 where the system has none (and for an
    /// object in a store). Absent from an index written before it was kept: such an entry does
    /// not match, so the file is read again once.
    #[serde(default)]
    pub ctime_ns: i64,
    /// Inode number (Unix; 0 elsewhere and for an object in a store).
    #[serde(default)]
    pub inode: u64,
}

impl Stamp {
    /// A stamp of size and modification time only (an object in a store, which has neither
    /// status-change time nor inode).
    pub fn sized(size: u64, mtime_ns: i64) -> Stamp {
        Stamp { size, mtime_ns, ctime_ns: 0, inode: 0 }
    }

    pub fn of(path: &Path) -> std::io::Result<Stamp> {
        let m = std::fs::metadata(path)?;
        let mtime_ns = m
            .modified()
            .ok()
            .map(|t| match t.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => d.as_nanos() as i64,
                Err(e) => -(e.duration().as_nanos() as i64),
            })
            .unwrap_or(0);
        #[cfg(unix)]
        let (ctime_ns, inode) = {
            use std::os::unix::fs::MetadataExt;
            (m.ctime().saturating_mul(1_000_000_000).saturating_add(m.ctime_nsec()), m.ino())
        };
        #[cfg(not(unix))]
        let (ctime_ns, inode) = (0, 0);
        Ok(Stamp { size: m.len(), mtime_ns, ctime_ns, inode })
    }
}

/// One place a map was found (or a file that could not be read as one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapRow {
    /// The file on disk (the archive, for a map inside one).
    pub path: String,
    /// The entry inside the archive.
    pub entry: Option<String>,
    /// Size of the map in bytes (of the file, when it could not be read).
    pub size: u64,
    /// The file's modification time (the archive's for an entry), ns since the Unix epoch.
    pub mtime_ns: i64,
    /// SHA-256 of the map's bytes, lower-case hex (`sha256sum`); null when unreadable.
    pub sha256: Option<String>,
    pub family: Option<String>,
    pub branch: Option<String>,
    pub version: Option<u32>,
    pub magic: Option<String>,
    /// Why detection chose the branch (`bsp info`'s `format.why`), joined by `; `.
    pub evidence: Option<String>,
    /// Lump directory entries.
    pub lumps: Option<u32>,
    pub entities: Option<u32>,
    pub textures: Option<u32>,
    pub props: Option<u32>,
    /// The world's bounds as stored (model 0's `mins`, `maxs` in the family's model lump,
    /// [`crate::branches::ops::FamilyOps::world_bounds`]); null when the family or the map has
    /// no model, or its model lump cannot be read (a `problems` row then says why).
    pub mins: Option<[f32; 3]>,
    pub maxs: Option<[f32; 3]>,
    /// The main records by the family's native info tool's row name (`bsp info`'s stats):
    /// `planes`, `faces`, `leafs`, …
    pub counts: Vec<(String, u64)>,
    pub errors: u32,
    pub warnings: u32,
    pub notes: u32,
    /// The error kind when the map could not be read (`truncated`, `file_changed`, …).
    pub error: Option<String>,
    /// Wall time spent on this map, microseconds.
    pub scan_micros: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityRow {
    pub map_sha256: String,
    /// Position in the entity lump.
    pub index: u32,
    pub classname: Option<String>,
    pub targetname: Option<String>,
    /// The `origin` key as three numbers, when it holds three.
    pub origin: Option<[f64; 3]>,
    /// Every key/value pair in lump order (keys may repeat).
    pub keyvalues: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextureRow {
    pub map_sha256: String,
    /// Position in the map's texture list.
    pub index: u32,
    pub name: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// The pixels are in the map (embedded miptex, a pakfile VTF).
    pub embedded: bool,
    /// `miptex` (the texture lump), `pakfile` (a VTF in a Source map's pakfile) or `external`
    /// (only named: WADs, game directories).
    pub found: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PropRow {
    pub map_sha256: String,
    /// Position in the static prop lump.
    pub index: u32,
    /// Model path as stored; null when the prop's model index is past the dictionary.
    pub model: Option<String>,
    pub origin: [f32; 3],
    /// Pitch, yaw, roll in degrees.
    pub angles: [f32; 3],
    pub skin: i32,
    pub solid: u8,
    pub flags: u32,
    pub scale: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LumpRow {
    pub map_sha256: String,
    pub index: u32,
    pub name: String,
    /// Offset of the lump in the file.
    pub offset: u64,
    /// Length of the lump's data (after decompression).
    pub length: u64,
    /// Bytes stored in the file, when the lump is compressed.
    pub compressed_size: Option<u64>,
    pub record_size: Option<u32>,
    pub record_count: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProblemRow {
    /// The map the problem is about: set for `bsp check`'s problems (once per content), null for
    /// a file that could not be read.
    pub map_sha256: Option<String>,
    /// The file, for problems of reading it (null for `check`'s, which belong to the content).
    pub path: Option<String>,
    pub entry: Option<String>,
    /// `bsp check`'s code, or the error kind of a file that could not be read.
    pub code: String,
    pub severity: String,
    pub lump: Option<String>,
    pub index: Option<u64>,
    pub message: String,
}

/// The content rows of one distinct map.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Content {
    pub sha256: String,
    pub entities: Vec<EntityRow>,
    pub textures: Vec<TextureRow>,
    pub props: Vec<PropRow>,
    pub lumps: Vec<LumpRow>,
    pub problems: Vec<ProblemRow>,
}

/// Everything one file gave: its `maps` rows (an archive has one per map entry), the content
/// of each map and the problems of reading it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRows {
    pub path: String,
    pub stamp: Stamp,
    pub maps: Vec<MapRow>,
    pub contents: Vec<Content>,
    pub problems: Vec<ProblemRow>,
}

impl FileRows {
    /// The file changed (or vanished) while it was read: nothing read from it is kept.
    pub fn changed(&self) -> bool {
        self.maps.iter().any(|m| m.error.as_deref() == Some(FILE_CHANGED))
    }
}

/// Error kind (problem code) of a file whose size or modification time changed between
/// listing and the end of reading it.
pub const FILE_CHANGED: &str = "file_changed";

/// The six tables.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tables {
    pub maps: Vec<MapRow>,
    pub entities: Vec<EntityRow>,
    pub textures: Vec<TextureRow>,
    pub props: Vec<PropRow>,
    pub lumps: Vec<LumpRow>,
    pub problems: Vec<ProblemRow>,
}

impl Tables {
    /// Add one file's rows; content already added (the same SHA-256) is not added again.
    pub fn add(&mut self, rows: &FileRows, seen: &mut HashSet<String>) {
        self.maps.extend(rows.maps.iter().cloned());
        self.problems.extend(rows.problems.iter().cloned());
        for c in &rows.contents {
            if !seen.insert(c.sha256.clone()) {
                continue;
            }
            self.entities.extend(c.entities.iter().cloned());
            self.textures.extend(c.textures.iter().cloned());
            self.props.extend(c.props.iter().cloned());
            self.lumps.extend(c.lumps.iter().cloned());
            self.problems.extend(c.problems.iter().cloned());
        }
    }
    /// The tables of files scanned in order, taking their rows (no copy of a string).
    pub fn from_files(files: Vec<FileRows>) -> Tables {
        let mut t = Tables::default();
        let mut seen = HashSet::new();
        for f in files {
            t.maps.extend(f.maps);
            t.problems.extend(f.problems);
            for c in f.contents {
                if !seen.insert(c.sha256) {
                    continue;
                }
                t.entities.extend(c.entities);
                t.textures.extend(c.textures);
                t.props.extend(c.props);
                t.lumps.extend(c.lumps);
                t.problems.extend(c.problems);
            }
        }
        t
    }
    /// The tables of files scanned in order.
    pub fn of(files: &[FileRows]) -> Tables {
        let mut t = Tables::default();
        let mut seen = HashSet::new();
        for f in files {
            t.add(f, &mut seen);
        }
        t
    }
    /// Rows per table, in [`TABLES`] order.
    pub fn row_counts(&self) -> [(&'static str, usize); 6] {
        [
            ("maps", self.maps.len()),
            ("entities", self.entities.len()),
            ("textures", self.textures.len()),
            ("props", self.props.len()),
            ("lumps", self.lumps.len()),
            ("problems", self.problems.len()),
        ]
    }
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(digest.len() * 2);
    for b in digest {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

fn problem_of_error(path: &str, entry: Option<&str>, e: &Error) -> ProblemRow {
    ProblemRow {
        map_sha256: None,
        path: Some(path.to_string()),
        entry: entry.map(str::to_string),
        code: e.kind.name().to_string(),
        severity: Severity::Error.as_str().to_string(),
        lump: e.lump.as_ref().map(|l| l.to_string()),
        index: None,
        message: e.to_string(),
    }
}

fn failed_row(path: &str, entry: Option<&str>, size: u64, mtime_ns: i64, kind: &str) -> MapRow {
    MapRow {
        path: path.to_string(),
        entry: entry.map(str::to_string),
        size,
        mtime_ns,
        sha256: None,
        family: None,
        branch: None,
        version: None,
        magic: None,
        evidence: None,
        lumps: None,
        entities: None,
        textures: None,
        props: None,
        mins: None,
        maxs: None,
        counts: Vec::new(),
        errors: 1,
        warnings: 0,
        notes: 0,
        error: Some(kind.to_string()),
        scan_micros: 0,
    }
}

/// The rows of one opened map: its `maps` row (path and time filled in by the caller) and
/// its content.
pub fn map_rows(bsp: &Bsp, options: &ScanOptions) -> (MapRow, Content) {
    let sha = sha256_hex(bsp.data());
    let mut content = Content { sha256: sha.clone(), ..Default::default() };
    // The entity lump is parsed once, for `check` and for the rows.
    let parsed = bsp.entities();
    let mut problems =
        if options.check { crate::check::check_parsed(bsp, &crate::check::CheckOptions::default(), &parsed) } else { Vec::new() };
    let mut extra = Vec::new();

    // No rows for an unreadable entity lump: `check` reports it (`entities_unreadable`).
    if let Ok(ents) = &parsed {
        content.entities.reserve(ents.len());
        for (i, e) in ents.iter().enumerate() {
            let origin = e.get("origin").and_then(|o| {
                let v: Vec<f64> = o.split_ascii_whitespace().filter_map(|x| x.parse().ok()).collect();
                <[f64; 3]>::try_from(v).ok()
            });
            content.entities.push(EntityRow {
                map_sha256: sha.clone(),
                index: i as u32,
                classname: e.classname().map(|c| c.into_owned()),
                targetname: e.get("targetname").map(|c| c.into_owned()),
                origin,
                keyvalues: e.pairs.iter().map(|(k, v)| (text(k), text(v))).collect(),
            });
        }
    }
    drop(parsed);
    let bounds = match crate::branches::any::of(bsp.family()).world_bounds(bsp) {
        Ok(b) => b,
        Err(e) => {
            extra.push(e);
            None
        }
    };
    textures(bsp, &sha, &mut content.textures, &mut extra);
    props(bsp, &sha, &mut content.props, &mut extra);
    for l in crate::info::lump_infos(bsp) {
        let data_len = if l.compressed { bsp.lump_len(l.index).unwrap_or(l.length) } else { l.length };
        content.lumps.push(LumpRow {
            map_sha256: sha.clone(),
            index: l.index as u32,
            name: l.name.to_string(),
            offset: l.offset,
            length: data_len,
            compressed_size: l.compressed.then_some(l.length),
            record_size: l.record_size.map(|s| s as u32),
            record_count: l.count,
        });
    }
    if let Some(e) = bsp.budget_error() {
        extra.push(e);
    }
    // Tables the scan could not read are problems of the map (errors of `check` already are).
    for e in extra {
        problems.push(crate::check::problem::Problem::with(
            Severity::Warning,
            crate::check::problem::Code::LUMP_UNREADABLE,
            e.lump.as_ref().map(|l| l.to_string()).unwrap_or_default(),
            None,
            e.to_string(),
        ));
    }
    let counts = Counts::of(&problems);
    content.problems = problems
        .iter()
        .map(|p| ProblemRow {
            map_sha256: Some(sha.clone()),
            path: None,
            entry: None,
            code: p.code.as_str().to_string(),
            severity: p.severity.as_str().to_string(),
            lump: (!p.lump.is_empty()).then(|| p.lump.clone()),
            index: p.index.map(|i| i as u64),
            message: p.message.clone(),
        })
        .collect();
    let d = bsp.detection();
    let row = MapRow {
        path: String::new(),
        entry: None,
        size: bsp.data().len() as u64,
        mtime_ns: 0,
        sha256: Some(sha),
        family: Some(bsp.family().as_str().to_string()),
        branch: Some(bsp.branch().id.to_string()),
        version: Some(d.version),
        magic: crate::info::magic(bsp),
        evidence: Some(d.why.join("; ")),
        lumps: Some(bsp.lumps().len() as u32),
        entities: Some(content.entities.len() as u32),
        textures: Some(content.textures.len() as u32),
        props: Some(content.props.len() as u32),
        mins: bounds.map(|b| b.mins),
        maxs: bounds.map(|b| b.maxs),
        counts: crate::stats::stats(bsp).into_iter().filter_map(|s| s.count.map(|c| (s.name, c))).collect(),
        errors: counts.errors as u32,
        warnings: counts.warnings as u32,
        notes: counts.notes as u32,
        error: None,
        scan_micros: 0,
    };
    (row, content)
}

/// Bytes of the entity lump as an owned string, invalid UTF-8 replaced (as
/// [`String::from_utf8_lossy`]); valid text, nearly all of it, takes the standard library's
/// faster validation and one copy.
fn text(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    }
}

fn textures(bsp: &Bsp, sha: &str, out: &mut Vec<TextureRow>, extra: &mut Vec<Error>) {
    let base = out.len();
    match crate::branches::any::of(bsp.family()).texture_table(bsp) {
        Ok(list) => out.extend(list.into_iter().enumerate().map(|(i, t)| TextureRow {
            map_sha256: sha.to_string(),
            index: (base + i) as u32,
            name: t.name,
            width: t.size.map(|s| s[0]),
            height: t.size.map(|s| s[1]),
            embedded: t.found != "external",
            found: t.found.to_string(),
        })),
        Err(e) => extra.push(e),
    }
}

fn props(bsp: &Bsp, sha: &str, out: &mut Vec<PropRow>, extra: &mut Vec<Error>) {
    match crate::branches::any::of(bsp.family()).static_props(bsp) {
        Ok(list) => out.extend(list.into_iter().enumerate().map(|(i, p)| PropRow {
            map_sha256: sha.to_string(),
            index: i as u32,
            model: p.model,
            origin: p.origin,
            angles: p.angles,
            skin: p.skin,
            solid: p.solid,
            flags: p.flags,
            scale: p.scale,
        })),
        Err(e) => extra.push(e),
    }
}

thread_local! {
    /// Each scanning thread's read buffer, kept from one map to the next ([`Bsp::open_in`]).
    static READ_BUF: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A read buffer up to this size (64 MiB) is kept for the thread's next map; a larger one is
/// freed, so a library with one huge map does not hold its size per thread for good.
const KEEP_READ_BUF: usize = 64 << 20;

/// Read one file listed with `stamp`: a map gives one `maps` row, an archive one per map
/// entry. Never fails: what cannot be read becomes a row with `error` and a `problems` row. A
/// file whose size or modification time is no longer `stamp` after reading is reported
/// ([`FILE_CHANGED`]) and nothing read from it is kept.
pub fn scan_file_rows(path: &Path, stamp: Stamp, options: &ScanOptions) -> FileRows {
    let p = path.to_string_lossy().into_owned();
    let mut rows = FileRows { path: p.clone(), stamp, maps: Vec::new(), contents: Vec::new(), problems: Vec::new() };
    let mut add = |rows: &mut FileRows, entry: Option<String>, got: Result<(MapRow, Content), (u64, Error)>, micros: u64| {
        add_rows(rows, &p, entry, got, micros)
    };
    if is_archive(path) {
        scan_archive_rows(path, options, &mut rows, &mut add);
    } else {
        let start = Instant::now();
        // This thread's buffer (taken, not borrowed: while `check` waits on its own parallel
        // work, rayon may run another file's scan on this thread, which then reads into a new one).
        let mut buf = READ_BUF.with(std::cell::Cell::take);
        let got = match Bsp::open_in(path, &options.open, &mut buf) {
            Ok(bsp) => Ok(map_rows(&bsp, options)),
            Err(e) => Err((stamp.size, e)),
        };
        if buf.capacity() <= KEEP_READ_BUF {
            READ_BUF.with(|b| b.set(buf));
        }
        add(&mut rows, None, got, start.elapsed().as_micros() as u64);
    }
    // Changed while read: report it, keep nothing (the next run reads the file again).
    let now = Stamp::of(path).ok();
    if now != Some(stamp) {
        let message = match now {
            Some(n) => format!(
                "{p}: the file changed while it was read (size {} -> {}, mtime {} -> {} ns, ctime {} -> {} ns, inode {} -> {}); its rows are left out",
                stamp.size, n.size, stamp.mtime_ns, n.mtime_ns, stamp.ctime_ns, n.ctime_ns, stamp.inode, n.inode
            ),
            None => format!("{p}: the file disappeared while it was read; its rows are left out"),
        };
        let entries: Vec<Option<String>> = rows.maps.iter().map(|m| m.entry.clone()).collect();
        rows.maps.clear();
        rows.contents.clear();
        rows.problems.clear();
        for entry in if entries.is_empty() { vec![None] } else { entries } {
            rows.maps.push(failed_row(&p, entry.as_deref(), stamp.size, stamp.mtime_ns, FILE_CHANGED));
            rows.problems.push(ProblemRow {
                map_sha256: None,
                path: Some(p.clone()),
                entry,
                code: FILE_CHANGED.to_string(),
                severity: Severity::Error.as_str().to_string(),
                lump: None,
                index: None,
                message: message.clone(),
            });
        }
    }
    rows
}

type AddFn<'a> = dyn FnMut(&mut FileRows, Option<String>, Result<(MapRow, Content), (u64, Error)>, u64) + 'a;

fn scan_archive_rows(path: &Path, options: &ScanOptions, rows: &mut FileRows, add: &mut AddFn<'_>) {
    match crate::fsio::open_regular(path) {
        Ok((f, _)) => archive_rows(path, std::io::BufReader::new(f), options, rows, add),
        Err(e) => add(rows, None, Err((rows.stamp.size, e)), 0),
    }
}

/// The map entries of a `.pk3`/`.zip` archive read from `reader` (`path` names it in errors).
fn archive_rows<R: std::io::Read + std::io::Seek>(path: &Path, reader: R, options: &ScanOptions, rows: &mut FileRows, add: &mut AddFn<'_>) {
    let size = rows.stamp.size;
    let zip_err = |e: zip::result::ZipError| Error::malformed(format!("zip archive: {e}")).in_file(path);
    let mut archive = match zip::ZipArchive::new(reader) {
        Ok(a) => a,
        Err(e) => return add(rows, None, Err((size, zip_err(e))), 0),
    };
    for i in 0..archive.len() {
        let start = Instant::now();
        let mut entry = match archive.by_index(i) {
            Ok(e) => e,
            Err(e) => {
                add(rows, Some(format!("#{i}")), Err((0, zip_err(e))), 0);
                continue;
            }
        };
        let name = entry.name().to_string();
        if entry.is_dir() || !is_map_file(Path::new(&name)) {
            continue;
        }
        let declared = entry.size();
        // The same per-entry budget as `bsp scan`.
        let got = match crate::scan::read_entry(&mut entry, options.max_archive_entry) {
            Err(e) => Err((declared, e.in_file(path))),
            Ok(bytes) => {
                let open = OpenOptions { external_lumps: false, ..options.open.clone() };
                match Bsp::from_bytes_with(&bytes, &open) {
                    Ok(bsp) => Ok(map_rows(&bsp, options)),
                    Err(e) => Err((bytes.len() as u64, e.in_file(path))),
                }
            }
        };
        add(rows, Some(name), got, start.elapsed().as_micros() as u64);
    }
}

/// The rows of one file given as bytes rather than read from disk — a map or a `.pk3`/`.zip`
/// archive (by `name`'s extension, as [`scan_file_rows`] decides) fetched from an object store
/// or over the network. `name` is the `path` of its rows (a URL, say) and `stamp` what the
/// store reported (its size and modification time). The same rows as [`scan_file_rows`] would
/// give for a file with these bytes, except that nothing outside the bytes is read (no
/// external lump files) and there is no "changed while read" check: the caller holds the bytes.
pub fn scan_bytes_rows(name: &str, bytes: &[u8], stamp: Stamp, options: &ScanOptions) -> FileRows {
    let mut rows = FileRows { path: name.to_string(), stamp, maps: Vec::new(), contents: Vec::new(), problems: Vec::new() };
    let mut add = |rows: &mut FileRows, entry: Option<String>, got: Result<(MapRow, Content), (u64, Error)>, micros: u64| {
        add_rows(rows, name, entry, got, micros)
    };
    let path = Path::new(name);
    if is_archive(path) {
        archive_rows(path, std::io::Cursor::new(bytes), options, &mut rows, &mut add);
    } else {
        let start = Instant::now();
        let open = OpenOptions { external_lumps: false, ..options.open.clone() };
        let got = match Bsp::from_bytes_with(bytes, &open) {
            Ok(bsp) => Ok(map_rows(&bsp, options)),
            Err(e) => Err((bytes.len() as u64, e.in_file(path))),
        };
        add(&mut rows, None, got, start.elapsed().as_micros() as u64);
    }
    rows
}

/// The rows of a file that could not be fetched or listed at all (`kind`: the error kind, as
/// [`crate::error::ErrorKind::name`] gives it; `io` for a store's error).
pub fn unreadable_rows(name: &str, kind: &str, message: &str) -> FileRows {
    FileRows {
        path: name.to_string(),
        stamp: Stamp::sized(0, 0),
        maps: vec![failed_row(name, None, 0, 0, kind)],
        contents: Vec::new(),
        problems: vec![ProblemRow {
            map_sha256: None,
            path: Some(name.to_string()),
            entry: None,
            code: kind.to_string(),
            severity: Severity::Error.as_str().to_string(),
            lump: None,
            index: None,
            message: message.to_string(),
        }],
    }
}

/// Add one map's rows (or the row and problem of a map that could not be read) to `rows`.
fn add_rows(rows: &mut FileRows, p: &str, entry: Option<String>, got: Result<(MapRow, Content), (u64, Error)>, micros: u64) {
    let stamp = rows.stamp;
    match got {
        Ok((mut m, c)) => {
            m.path = p.to_string();
            m.entry = entry;
            m.mtime_ns = stamp.mtime_ns;
            m.scan_micros = micros;
            rows.maps.push(m);
            if !rows.contents.iter().any(|x| x.sha256 == c.sha256) {
                rows.contents.push(c);
            }
        }
        Err((size, e)) => {
            let mut m = failed_row(p, entry.as_deref(), size, stamp.mtime_ns, e.kind.name());
            m.scan_micros = micros;
            rows.maps.push(m);
            rows.problems.push(problem_of_error(p, entry.as_deref(), &e));
        }
    }
}

/// Scan `roots` without an index: every file is read. Files in sorted order (so the tables do
/// not depend on the thread count); directories that cannot be listed become `maps` rows
/// with an error.
pub fn scan(roots: &[PathBuf], options: &ScanOptions) -> Vec<FileRows> {
    let (files, failed) = list(roots);
    let mut out: Vec<FileRows> = files.par_iter().map(|(p, s)| scan_file_rows(p, *s, options)).collect();
    out.extend(failed);
    out
}

/// Every map file and archive below `roots` with its [`Stamp`]; what cannot be listed or
/// stat'ed as rows with an error.
pub fn list(roots: &[PathBuf]) -> (Vec<(PathBuf, Stamp)>, Vec<FileRows>) {
    let (files, failed) = crate::scan::collect_files(roots);
    let mut bad: Vec<FileRows> = failed
        .into_iter()
        .map(|r| {
            let kind = r.error.as_ref().map(|e| e.kind).unwrap_or("io");
            let message = r.error.as_ref().map(|e| e.message.clone()).unwrap_or_default();
            FileRows {
                path: r.path.clone(),
                stamp: Stamp::sized(0, 0),
                maps: vec![failed_row(&r.path, None, 0, 0, kind)],
                contents: Vec::new(),
                problems: vec![ProblemRow {
                    map_sha256: None,
                    path: Some(r.path.clone()),
                    entry: None,
                    code: kind.to_string(),
                    severity: "error".into(),
                    lump: None,
                    index: None,
                    message,
                }],
            }
        })
        .collect();
    let mut ok = Vec::with_capacity(files.len());
    for f in files {
        match Stamp::of(&f) {
            Ok(s) => ok.push((f, s)),
            Err(e) => {
                let e = Error::from(e).in_file(&f);
                let p = f.to_string_lossy().into_owned();
                bad.push(FileRows {
                    path: p.clone(),
                    stamp: Stamp::sized(0, 0),
                    maps: vec![failed_row(&p, None, 0, 0, e.kind.name())],
                    contents: Vec::new(),
                    problems: vec![problem_of_error(&p, None, &e)],
                })
            }
        }
    }
    (ok, bad)
}

/// The journal of file results kept beside the output (`scan-index.jsonl`): a header line
/// with the schema version, then one [`FileRows`] per line, appended as each file is read.
/// The last line for a path wins; a torn last line (an interrupted run) is ignored.
pub struct Index {
    path: PathBuf,
    by_path: HashMap<String, FileRows>,
}

/// What [`scan_indexed`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    /// Files listed (maps and archives).
    pub files: usize,
    /// Files read in this run (new, or their size or mtime changed).
    pub files_read: usize,
    /// Files whose rows came from the index, unread.
    pub files_unchanged: usize,
    /// Files that changed while they were read (reported, not kept in the index).
    pub files_changed_while_read: usize,
    /// With `verify`: files the index would reuse whose bytes were hashed again and found
    /// equal to the index's SHA-256 (counted in `files_unchanged`; their rows reused).
    pub files_verified: usize,
    /// Bytes of the files read.
    pub bytes_read: u64,
}

/// The journal's name in the output directory.
pub const INDEX_FILE: &str = "scan-index.jsonl";

#[derive(Serialize, Deserialize)]
struct IndexHeader {
    bspkit_scan_index: u32,
}

impl Index {
    /// Open the journal in `dir` (created if missing). A journal of another schema version is
    /// started again.
    pub fn open(dir: &Path) -> crate::error::Result<Index> {
        let path = dir.join(INDEX_FILE);
        let mut by_path = HashMap::new();
        if let Ok(f) = std::fs::File::open(&path) {
            let mut lines = std::io::BufReader::new(f).lines();
            let header_ok = matches!(lines.next(), Some(Ok(l)) if serde_json::from_str::<IndexHeader>(&l).is_ok_and(|h| h.bspkit_scan_index == SCHEMA_VERSION));
            if header_ok {
                for line in lines.map_while(|l| l.ok()) {
                    if let Ok(r) = serde_json::from_str::<FileRows>(&line) {
                        by_path.insert(r.path.clone(), r);
                    }
                }
            }
        }
        Ok(Index { path, by_path })
    }
    /// The rows of `path` when it was read with this stamp.
    pub fn get(&self, path: &str, stamp: Stamp) -> Option<&FileRows> {
        self.by_path.get(path).filter(|r| r.stamp == stamp)
    }
    /// Rewrite the journal with exactly these files (dropping files gone from the library).
    pub fn compact(&mut self, files: &[FileRows]) -> crate::error::Result<()> {
        let mut text = serde_json::to_string(&IndexHeader { bspkit_scan_index: SCHEMA_VERSION }).map_err(json_err)?;
        text.push('\n');
        self.by_path.clear();
        for f in files.iter().filter(|f| !f.changed() && f.stamp.mtime_ns != 0) {
            text.push_str(&serde_json::to_string(f).map_err(json_err)?);
            text.push('\n');
            self.by_path.insert(f.path.clone(), f.clone());
        }
        crate::write::atomic::write_file(&self.path, text.as_bytes(), &crate::write::atomic::WriteOptions::default())?;
        Ok(())
    }
}

fn json_err(e: serde_json::Error) -> Error {
    Error::malformed(format!("scan index: {e}"))
}

/// Scan `roots` with the index in `dir`: unchanged files come from the index, the others are
/// read (in parallel on the current rayon pool) and appended to the journal as each finishes,
/// then the journal is compacted. `progress` is called once per file read.
pub fn scan_indexed<F>(
    roots: &[PathBuf],
    dir: &Path,
    options: &ScanOptions,
    progress: F,
) -> crate::error::Result<(Vec<FileRows>, IndexStats)>
where
    F: Fn(&Path) + Sync,
{
    scan_indexed_with(roots, dir, options, false, progress)
}

/// Whether the index's rows of an unchanged-looking file still hold (`--verify`): a single
/// map file is hashed again and compared with the index's SHA-256; an archive or a file that
/// could not be read has no hash of its own in the index, so it is read again.
fn still_valid(path: &Path, rows: &FileRows) -> bool {
    match rows.maps.as_slice() {
        [m] if m.entry.is_none() && m.error.is_none() && !is_archive(path) => {
            let Some(sha) = m.sha256.as_deref() else { return false };
            crate::fsio::open_regular(path)
                .ok()
                .and_then(|(mut f, _)| {
                    use std::io::Read;
                    let mut h = Sha256::new();
                    let mut buf = vec![0u8; 1 << 20];
                    loop {
                        match f.read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => h.update(&buf[..n]),
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(_) => return None,
                        }
                    }
                    Some(hex(&h.finalize()) == sha)
                })
                .unwrap_or(false)
        }
        _ => false,
    }
}

/// [`scan_indexed`], and with `verify` every file the index would reuse is checked first
/// (`still_valid`): a rewrite that kept size, times and inode is found by its bytes.
pub fn scan_indexed_with<F>(
    roots: &[PathBuf],
    dir: &Path,
    options: &ScanOptions,
    verify: bool,
    progress: F,
) -> crate::error::Result<(Vec<FileRows>, IndexStats)>
where
    F: Fn(&Path) + Sync,
{
    std::fs::create_dir_all(dir).map_err(|e| Error::from(e).in_file(dir))?;
    let mut index = Index::open(dir)?;
    let (files, failed) = list(roots);
    let mut stats = IndexStats { files: files.len(), ..Default::default() };
    // Start a fresh journal when the old one is unusable; otherwise append.
    let started_empty = index.by_path.is_empty();
    if started_empty {
        index.compact(&[])?;
    }
    let journal = std::fs::OpenOptions::new().append(true).open(&index.path).map_err(|e| Error::from(e).in_file(&index.path))?;
    let journal = std::sync::Mutex::new(std::io::BufWriter::new(journal));
    // (index of the file, whether the index holds rows for its stamp)
    let hits: Vec<(usize, bool)> = (0..files.len())
        .into_par_iter()
        .map(|i| {
            let (p, s) = &files[i];
            let hit = match index.get(&p.to_string_lossy(), *s) {
                Some(r) if verify => still_valid(p, r),
                Some(_) => true,
                None => false,
            };
            (i, hit)
        })
        .collect();
    let todo: Vec<usize> = hits.iter().filter(|(_, hit)| !hit).map(|(i, _)| *i).collect();
    let reused: HashSet<usize> = hits.iter().filter(|(_, hit)| *hit).map(|(i, _)| *i).collect();
    if verify {
        stats.files_verified = reused.len();
    }
    stats.files_read = todo.len();
    stats.files_unchanged = files.len() - todo.len();
    stats.bytes_read = todo.iter().map(|&i| files[i].1.size).sum();
    let read: Vec<(usize, FileRows)> = todo
        .par_iter()
        .map(|&i| {
            let (p, s) = &files[i];
            let rows = scan_file_rows(p, *s, options);
            if !rows.changed() {
                // One line per file, flushed: an interrupted run keeps every finished file.
                if let (Ok(line), Ok(mut j)) = (serde_json::to_string(&rows), journal.lock()) {
                    let _ = writeln!(j, "{line}").and_then(|_| j.flush());
                }
            }
            progress(p);
            (i, rows)
        })
        .collect();
    let mut fresh: BTreeMap<usize, FileRows> = read.into_iter().collect();
    let mut out = Vec::with_capacity(files.len() + failed.len());
    for (i, (p, s)) in files.iter().enumerate() {
        match fresh.remove(&i) {
            Some(r) => out.push(r),
            None => match index.get(&p.to_string_lossy(), *s).filter(|_| reused.contains(&i)) {
                Some(r) => out.push(r.clone()),
                None => out.push(scan_file_rows(p, *s, options)),
            },
        }
    }
    stats.files_changed_while_read = out.iter().filter(|f| f.changed()).count();
    out.extend(failed);
    drop(journal);
    // The journal already holds exactly these files when the run started from an empty one
    // or read nothing, no listed file was dropped, and nothing changed while read or lacks a
    // modification time (those are left out of the index): then it is not rewritten.
    let listed: HashSet<String> = files.iter().map(|(p, _)| p.to_string_lossy().into_owned()).collect();
    let exact = (started_empty || todo.is_empty())
        && index.by_path.keys().all(|p| listed.contains(p))
        && out.iter().all(|f| !f.changed() && (f.stamp.mtime_ns != 0 || !listed.contains(&f.path)));
    if !exact {
        index.compact(&out)?;
    }
    Ok((out, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_input() {
        // FIPS 180-2 appendix B.1.
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn rows_of_a_built_map() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let (m, c) = map_rows(&bsp, &ScanOptions::default());
        assert_eq!(m.sha256.as_deref(), Some(sha256_hex(&bytes).as_str()));
        assert_eq!(c.entities.len(), bsp.entities().unwrap().len());
        assert_eq!(c.lumps.len(), bsp.lumps().len());
        assert_eq!(m.entities, Some(c.entities.len() as u32));
        assert!(c.entities.iter().any(|e| e.classname.as_deref() == Some("worldspawn")));
    }

    #[test]
    fn bytes_give_the_rows_of_the_file() {
        let dir = std::env::temp_dir().join(format!("bspkit-catalog-bytes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.bsp");
        let bytes = crate::build::sample_quake1();
        std::fs::write(&path, &bytes).unwrap();
        let stamp = Stamp::of(&path).unwrap();
        let mut from_file = scan_file_rows(&path, stamp, &ScanOptions::default());
        let name = "s3://bucket/maps/m.bsp";
        let mut from_bytes = scan_bytes_rows(name, &bytes, stamp, &ScanOptions::default());
        for m in from_file.maps.iter_mut().chain(from_bytes.maps.iter_mut()) {
            m.scan_micros = 0;
        }
        assert_eq!(from_bytes.maps[0].path, name);
        from_bytes.path = from_file.path.clone();
        from_bytes.maps[0].path = from_file.maps[0].path.clone();
        assert_eq!(from_bytes, from_file);
        // Hostile bytes: a row with the error and a problem naming the URL, no panic.
        let bad = scan_bytes_rows(name, &bytes[..bytes.len() / 3], stamp, &ScanOptions::default());
        assert!(bad.maps[0].error.is_some() && bad.contents.is_empty());
        assert_eq!(bad.problems[0].path.as_deref(), Some(name));
        let zip = scan_bytes_rows("s3://bucket/pak0.pk3", b"PK\x03\x04 not really", stamp, &ScanOptions::default());
        assert!(zip.maps[0].error.is_some(), "{zip:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn world_bounds_of_a_built_map() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let (m, _) = map_rows(&bsp, &ScanOptions::default());
        // Model 0's first six floats, read here from the lump's bytes (quake_family.md B.16).
        let models = bsp.lump(14).unwrap();
        let f = |i: usize| f32::from_le_bytes(models[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(m.mins, Some([f(0), f(1), f(2)]));
        assert_eq!(m.maxs, Some([f(3), f(4), f(5)]));
        assert!(m.mins.unwrap().iter().zip(m.maxs.unwrap()).all(|(a, b)| *a < b));
    }

    #[test]
    fn tables_dedup_content() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let (m, c) = map_rows(&bsp, &ScanOptions::default());
        let f = |p: &str| FileRows {
            path: p.into(),
            stamp: Stamp::sized(1, 1),
            maps: vec![MapRow { path: p.into(), ..m.clone() }],
            contents: vec![c.clone()],
            problems: vec![],
        };
        let t = Tables::of(&[f("a.bsp"), f("b.bsp")]);
        assert_eq!(t.maps.len(), 2);
        assert_eq!(t.entities.len(), c.entities.len());
        assert_eq!(t.lumps.len(), c.lumps.len());
    }

    #[test]
    fn a_file_changed_since_listing_is_reported_not_kept() {
        let dir = std::env::temp_dir().join(format!("bspkit-catalog-changed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.bsp");
        let bytes = crate::build::sample_quake1();
        std::fs::write(&path, &bytes).unwrap();
        let listed = Stamp::of(&path).unwrap();
        let rows = scan_file_rows(&path, listed, &ScanOptions::default());
        assert!(!rows.changed() && rows.contents.len() == 1);
        // Written again (another size) after it was listed: what was read is not kept.
        std::fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
        let rows = scan_file_rows(&path, listed, &ScanOptions::default());
        assert!(rows.changed());
        assert!(rows.contents.is_empty());
        assert_eq!(rows.maps.len(), 1);
        assert_eq!(rows.maps[0].sha256, None);
        assert_eq!(rows.problems[0].code, FILE_CHANGED);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
