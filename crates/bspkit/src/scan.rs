//! Scanning whole game libraries (`bsp scan`): find every map under some directories (also
//! inside `.pk3` / `.zip` archives), open each one, summarise its lumps, run the checks and
//! report per file — in parallel. Also [`decode_all`], which touches every byte a reader can
//! decode generically, used by the benchmarks.
//!
//! A file is never fatal to the scan: an unreadable or malformed file becomes a
//! [`ScanRecord`] with `error` set.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::bsp::{Bsp, OpenOptions};
use crate::check::problem::{Counts, Problem, Severity};
use crate::decode::{DecodeOptions, DecodeReport};
use crate::error::{Error, ErrorKind};
use crate::lumps::visibility::decompress_row;

/// Default cap on a map read out of an archive into memory (bytes).
pub const DEFAULT_MAX_ARCHIVE_ENTRY: u64 = 512 << 20;

/// How to scan.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    pub open: OpenOptions,
    /// Largest `.bsp` entry of an archive read into memory; larger ones are reported as errors.
    pub max_archive_entry: u64,
    /// Run [`crate::check::check`] on each map.
    pub check: bool,
    /// Keep only maps that have what this asks for ([`ScanRecord::matched`]); empty: every map.
    pub filter: MapFilter,
}

/// Which maps a scan keeps (`bsp scan --classname / --key / --texture`): a map is kept when, for
/// every kind given, one of its values is found — an entity of one of the `classnames` (exact),
/// an entity with one of the `keys` (exact), a texture or material whose name contains one of
/// the `textures` (ignoring ASCII case). Empty lists ask for nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapFilter {
    pub classnames: Vec<String>,
    pub keys: Vec<String>,
    pub textures: Vec<String>,
}

impl MapFilter {
    /// Asks for nothing: every map is kept.
    pub fn is_empty(&self) -> bool {
        self.classnames.is_empty() && self.keys.is_empty() && self.textures.is_empty()
    }

    /// What `bsp` has of what the filter asks for (`classname item_quad`, `key _light`,
    /// `texture sky1`: each value found once), or `None` when a kind asked for is not found.
    /// An entity lump or texture list that cannot be read holds nothing (the map's checks
    /// report why).
    pub fn matches(&self, bsp: &Bsp) -> Option<Vec<String>> {
        let mut found = Vec::new();
        if !self.classnames.is_empty() || !self.keys.is_empty() {
            let ents = bsp.entities().ok();
            let list = ents.as_ref().map(|e| e.list.as_slice()).unwrap_or(&[]);
            let before = found.len();
            for c in &self.classnames {
                if list.iter().any(|e| e.classname().as_deref() == Some(c.as_str())) {
                    found.push(format!("classname {c}"));
                }
            }
            if !self.classnames.is_empty() && found.len() == before {
                return None;
            }
            let before = found.len();
            for k in &self.keys {
                if list.iter().any(|e| e.pairs.iter().any(|(key, _)| *key == k.as_bytes())) {
                    found.push(format!("key {k}"));
                }
            }
            if !self.keys.is_empty() && found.len() == before {
                return None;
            }
        }
        if !self.textures.is_empty() {
            let names = crate::texture::map_texture_names(bsp).unwrap_or_default();
            let before = found.len();
            for t in &self.textures {
                let want = t.to_ascii_lowercase();
                if let Some(n) = names.iter().find(|n| n.to_ascii_lowercase().contains(&want)) {
                    found.push(format!("texture {n}"));
                }
            }
            if found.len() == before {
                return None;
            }
        }
        Some(found)
    }
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            open: OpenOptions::default(),
            max_archive_entry: DEFAULT_MAX_ARCHIVE_ENTRY,
            check: true,
            filter: MapFilter::default(),
        }
    }
}

/// Lump directory summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LumpSummary {
    /// Directory entries.
    pub count: usize,
    /// Entries with a non-zero length.
    pub non_empty: usize,
    /// Entries stored compressed (Valve LZMA).
    pub compressed: usize,
}

/// An error as reported by a scan: a stable kind name and the full message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanError {
    pub kind: &'static str,
    pub message: String,
}

impl From<&Error> for ScanError {
    fn from(e: &Error) -> Self {
        ScanError { kind: e.kind.name(), message: e.to_string() }
    }
}

/// The result of scanning one map (or one file that could not be read as a map).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScanRecord {
    /// The file on disk (the archive, for a map inside one).
    pub path: String,
    /// The entry name inside the archive, for a map read from a `.pk3` / `.zip`.
    pub entry: Option<String>,
    /// Size in bytes of the map (or of the file, when it could not be opened).
    pub size: u64,
    pub family: Option<&'static str>,
    pub branch: Option<&'static str>,
    pub version: Option<u32>,
    /// The file's magic (`IBSP`, `BSP2`, …), null for formats that start with a number.
    pub magic: Option<String>,
    pub lumps: Option<LumpSummary>,
    pub problems: Vec<Problem>,
    pub error: Option<ScanError>,
    /// Wall time spent on this map, in microseconds.
    pub micros: u64,
    /// With a [`ScanOptions::filter`]: what the map has of it ([`MapFilter::matches`]), `None`
    /// when it does not match (or could not be read). Not serialized without a filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<Vec<String>>,
}

impl ScanRecord {
    fn failed(path: &Path, entry: Option<String>, size: u64, err: &Error) -> Self {
        ScanRecord {
            path: path.to_string_lossy().into_owned(),
            entry,
            size,
            family: None,
            branch: None,
            version: None,
            magic: None,
            lumps: None,
            problems: Vec::new(),
            error: Some(err.into()),
            micros: 0,
            matched: None,
        }
    }
    /// Opened, and no problem of severity warning or error.
    pub fn ok(&self) -> bool {
        self.error.is_none() && !matches!(self.worst(), Some(Severity::Warning | Severity::Error))
    }
    /// The worst severity among the problems.
    pub fn worst(&self) -> Option<Severity> {
        Counts::of(&self.problems).worst()
    }
    /// Kept by the scan's filter: always without one, else when [`ScanRecord::matched`] is set.
    pub fn kept(&self, filter: &MapFilter) -> bool {
        filter.is_empty() || self.matched.is_some()
    }
    /// `path` or `path!entry`.
    pub fn display(&self) -> String {
        match &self.entry {
            Some(e) => format!("{}!{e}", self.path),
            None => self.path.clone(),
        }
    }
}

fn has_ext(path: &Path, exts: &[&str]) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Map files: `.bsp` and Call of Duty `.d3dbsp`.
pub fn is_map_file(path: &Path) -> bool {
    has_ext(path, &["bsp", "d3dbsp"])
}

/// Archives whose `.bsp` entries are scanned: `.pk3`, `.zip`.
pub fn is_archive(path: &Path) -> bool {
    has_ext(path, &["pk3", "zip"])
}

/// Every map or archive below `roots` (a root that is a file is taken as is), sorted.
/// External lump files (`.bsp_lump`, `.lmp`) are not listed: [`Bsp::open`] loads them.
/// Directories that cannot be read (and roots that do not exist) are returned as failed
/// records. Symbolic links are followed; a directory reached twice (a link loop, or two links
/// to one place) is walked once.
pub fn collect_files(roots: &[PathBuf]) -> (Vec<PathBuf>, Vec<ScanRecord>) {
    let mut files = Vec::new();
    let mut failed = Vec::new();
    let mut stack: Vec<PathBuf> = Vec::new();
    for r in roots {
        match std::fs::metadata(r) {
            Ok(m) if m.is_dir() => stack.push(r.clone()),
            Ok(_) => files.push(r.clone()),
            Err(e) => failed.push(ScanRecord::failed(r, None, 0, &Error::from(e).in_file(r))),
        }
    }
    let mut seen = std::collections::HashSet::new();
    while let Some(dir) = stack.pop() {
        // The real path decides whether a directory was walked already.
        if !seen.insert(std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone())) {
            continue;
        }
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) => {
                failed.push(ScanRecord::failed(&dir, None, 0, &Error::from(e).in_file(&dir)));
                continue;
            }
        };
        for ent in rd.flatten() {
            let p = ent.path();
            let is_dir = match ent.file_type() {
                Ok(t) if t.is_symlink() => std::fs::metadata(&p).is_ok_and(|m| m.is_dir()),
                Ok(t) => t.is_dir(),
                Err(_) => false,
            };
            if is_dir {
                stack.push(p);
            } else if is_map_file(&p) || is_archive(&p) {
                files.push(p);
            }
        }
    }
    files.sort();
    files.dedup();
    (files, failed)
}

/// `archive.pk3!maps/x.bsp` (as `bsp scan` prints a map inside an archive): the archive and
/// the entry name, when `path` itself does not exist and the part before a `!` is a `.pk3` /
/// `.zip` file.
pub fn split_entry_path(path: &Path) -> Option<(PathBuf, String)> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    // The first `!` after which the archive exists (archive names may hold `!` themselves).
    text.match_indices('!').map(|(i, _)| i).find_map(|i| {
        let (archive, entry) = (Path::new(&text[..i]), &text[i + 1..]);
        (is_archive(archive) && archive.is_file() && !entry.is_empty()).then(|| (archive.to_path_buf(), entry.to_string()))
    })
}

/// The map entries (`.bsp` / `.d3dbsp`) of a `.pk3` / `.zip` archive, sorted: the
/// names `ARCHIVE!ENTRY` paths take ([`split_entry_path`]).
pub fn archive_map_entries(archive: &Path) -> crate::error::Result<Vec<String>> {
    let zip_err = |e: zip::result::ZipError| Error::malformed(format!("zip archive: {e}")).in_file(archive);
    let (file, _) = crate::fsio::open_regular(archive)?;
    let zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_err)?;
    let mut names: Vec<String> = zip.file_names().filter(|n| !n.ends_with('/') && is_map_file(Path::new(n))).map(str::to_string).collect();
    names.sort();
    Ok(names)
}

/// Read one entry of a `.pk3` / `.zip` archive into memory, refusing more than `max` bytes
/// (the declared size is not trusted). Errors name the archive and the entry.
pub fn read_archive_entry(archive: &Path, name: &str, max: u64) -> crate::error::Result<Vec<u8>> {
    let zip_err = |e: zip::result::ZipError| Error::malformed(format!("zip archive: {e}")).in_file(archive);
    // Regular files only: a FIFO named `x.pk3` must not hang.
    let (file, _) = crate::fsio::open_regular(archive)?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_err)?;
    let mut entry = match zip.by_name(name) {
        Ok(e) => e,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(Error::new(ErrorKind::Io(format!("no entry {name:?} in the archive (`bsp scan` lists its maps)"))).in_file(archive))
        }
        Err(e) => return Err(zip_err(e)),
    };
    read_entry(&mut entry, max).map_err(|e| e.in_file(archive))
}

/// An archive entry's bytes, at most `max` (reading one byte more to see a lying header).
pub(crate) fn read_entry(entry: &mut zip::read::ZipFile<'_, impl Read>, max: u64) -> crate::error::Result<Vec<u8>> {
    let limit = |requested| Error::new(ErrorKind::LimitExceeded { what: "archive entry size", requested, limit: max });
    let declared = entry.size();
    if declared > max {
        return Err(limit(declared));
    }
    let mut bytes = Vec::with_capacity(declared.min(max) as usize);
    entry.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(limit(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Summarise one opened map.
pub fn scan_bsp(bsp: &Bsp, options: &ScanOptions) -> ScanRecord {
    let mut lumps = LumpSummary::default();
    for e in bsp.lumps() {
        lumps.count += 1;
        lumps.non_empty += usize::from(e.length > 0);
        lumps.compressed += usize::from(e.compressed);
    }
    ScanRecord {
        path: bsp.display_name().into_owned(),
        entry: None,
        size: bsp.data().len() as u64,
        family: Some(bsp.family().as_str()),
        branch: Some(bsp.branch().id),
        version: Some(bsp.detection().version),
        magic: crate::info::magic(bsp),
        lumps: Some(lumps),
        problems: if options.check { crate::check::check(bsp) } else { Vec::new() },
        // A map over its decompression budget is an error of that map; the scan goes on.
        error: bsp.budget_error().map(|e| ScanError::from(&e)),
        micros: 0,
        matched: if options.filter.is_empty() { None } else { options.filter.matches(bsp) },
    }
}

/// Scan one file: a map gives one record, an archive one per `.bsp` entry (or one failed
/// record if the archive itself cannot be read).
pub fn scan_file(path: &Path, options: &ScanOptions) -> Vec<ScanRecord> {
    let start = Instant::now();
    let mut out = if is_archive(path) { scan_archive(path, options) } else { vec![scan_map(path, options)] };
    let micros = start.elapsed().as_micros() as u64;
    if out.len() == 1 {
        out[0].micros = micros;
    }
    out
}

fn scan_map(path: &Path, options: &ScanOptions) -> ScanRecord {
    let start = Instant::now();
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut rec = match Bsp::open_with(path, &options.open) {
        Ok(bsp) => scan_bsp(&bsp, options),
        Err(e) => ScanRecord::failed(path, None, size, &e),
    };
    rec.path = path.to_string_lossy().into_owned();
    rec.micros = start.elapsed().as_micros() as u64;
    rec
}

fn scan_archive(path: &Path, options: &ScanOptions) -> Vec<ScanRecord> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let zip_err = |e: zip::result::ZipError| Error::malformed(format!("zip archive: {e}")).in_file(path);
    let file = match crate::fsio::open_regular(path) {
        Ok((f, _)) => f,
        Err(e) => return vec![ScanRecord::failed(path, None, size, &e)],
    };
    let mut archive = match zip::ZipArchive::new(std::io::BufReader::new(file)) {
        Ok(a) => a,
        Err(e) => return vec![ScanRecord::failed(path, None, size, &zip_err(e))],
    };
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let start = Instant::now();
        let mut entry = match archive.by_index(i) {
            Ok(e) => e,
            Err(e) => {
                out.push(ScanRecord::failed(path, Some(format!("#{i}")), 0, &zip_err(e)));
                continue;
            }
        };
        let name = entry.name().to_string();
        if entry.is_dir() || !is_map_file(Path::new(&name)) {
            continue;
        }
        let declared = entry.size();
        let rec = match read_entry(&mut entry, options.max_archive_entry) {
            Err(e) => ScanRecord::failed(path, Some(name.clone()), declared, &e.in_file(path)),
            Ok(bytes) => {
                // External lumps do not exist inside an archive.
                let open = OpenOptions { external_lumps: false, ..options.open.clone() };
                match Bsp::from_bytes_with(&bytes, &open) {
                    Ok(bsp) => scan_bsp(&bsp, options),
                    Err(e) => ScanRecord::failed(path, None, bytes.len() as u64, &e.in_file(path)),
                }
            }
        };
        out.push(ScanRecord {
            path: path.to_string_lossy().into_owned(),
            entry: Some(name),
            micros: start.elapsed().as_micros() as u64,
            ..rec
        });
    }
    out
}

/// Scan files in parallel on the current rayon pool, calling `progress` once per file as it
/// finishes (from worker threads). Records come back in the order of `files`.
pub fn scan_files<F>(files: &[PathBuf], options: &ScanOptions, progress: F) -> Vec<ScanRecord>
where
    F: Fn(&Path, &[ScanRecord]) + Sync,
{
    let per_file: Vec<Vec<ScanRecord>> = files
        .par_iter()
        .map(|p| {
            let recs = scan_file(p, options);
            progress(p, &recs);
            recs
        })
        .collect();
    per_file.into_iter().flatten().collect()
}

/// Maps of one format in a scan: how many, and how many have problems.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FormatCount {
    pub family: String,
    pub branch: String,
    pub version: u32,
    pub magic: Option<String>,
    pub maps: usize,
    /// Maps with at least one error.
    pub with_errors: usize,
    /// Maps with warnings but no error.
    pub with_warnings: usize,
}

/// Totals over a scan, for the summary table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScanSummary {
    pub maps: usize,
    /// Opened, no error or warning (notes allowed).
    pub ok: usize,
    /// Opened, with at least one error.
    pub with_errors: usize,
    /// Opened, with warnings but no error.
    pub with_warnings: usize,
    pub failed: usize,
    pub bytes: u64,
    /// Per format, sorted by (family, branch, version).
    pub per_format: Vec<FormatCount>,
    /// Failures by error kind, sorted.
    pub per_error: Vec<(String, usize)>,
    /// The maps with errors or warnings (`path` or `path!entry`), with their counts, in scan order.
    pub problem_maps: Vec<(String, Counts)>,
}

pub fn summarize(records: &[ScanRecord]) -> ScanSummary {
    use std::collections::BTreeMap;
    let mut fmt: BTreeMap<(String, String, u32), FormatCount> = BTreeMap::new();
    let mut errs: BTreeMap<String, usize> = BTreeMap::new();
    let mut s = ScanSummary { maps: records.len(), ..Default::default() };
    for r in records {
        s.bytes += r.size;
        if let Some(e) = &r.error {
            s.failed += 1;
            *errs.entry(e.kind.to_string()).or_default() += 1;
            continue;
        }
        let (family, branch, version) = (r.family.unwrap_or("?").to_string(), r.branch.unwrap_or("?").to_string(), r.version.unwrap_or(0));
        let magic = r.magic.clone();
        let row = fmt.entry((family.clone(), branch.clone(), version)).or_insert_with(|| FormatCount {
            family,
            branch,
            version,
            magic,
            ..Default::default()
        });
        row.maps += 1;
        let counts = Counts::of(&r.problems);
        match counts.worst() {
            Some(Severity::Error) => {
                s.with_errors += 1;
                row.with_errors += 1;
            }
            Some(Severity::Warning) => {
                s.with_warnings += 1;
                row.with_warnings += 1;
            }
            _ => s.ok += 1,
        }
        if counts.errors + counts.warnings > 0 {
            s.problem_maps.push((r.display(), counts));
        }
    }
    s.per_format = fmt.into_values().collect();
    s.per_error = errs.into_iter().collect();
    s
}

/// What [`decode_all`] touched. The sums depend on every decoded byte, so the work cannot
/// be optimised away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DecodeCounts {
    pub lumps: usize,
    /// Bytes of every lump after decompression.
    pub lump_bytes: u64,
    /// Lumps viewed as records / records in them.
    pub record_lumps: usize,
    pub records: u64,
    pub entities: usize,
    pub entity_pairs: usize,
    /// Visibility rows decoded (PVS and PAS count separately) and set bits in them.
    pub vis_rows: usize,
    pub vis_bits: u64,
    /// Lumps or structures that failed to decode.
    pub errors: usize,
    /// A checksum over the bytes and records seen.
    pub checksum: u64,
}

impl From<&DecodeReport> for DecodeCounts {
    fn from(r: &DecodeReport) -> Self {
        DecodeCounts {
            lumps: r.lumps,
            lump_bytes: r.bytes,
            record_lumps: r.record_lumps,
            records: r.records,
            entities: r.entities,
            entity_pairs: r.entity_pairs,
            vis_rows: r.vis_rows,
            vis_bits: r.vis_bits,
            errors: r.errors.len(),
            checksum: r.checksum,
        }
    }
}

/// Decode everything this library can decode generically ([`crate::decode::decode_with`] with
/// [`DecodeOptions::WALK`]): every lump (decompressing compressed ones), every record lump as
/// records of its declared size, the entity lump, and every visibility row where the format is
/// generic. Errors are counted, not returned.
pub fn decode_all(bsp: &Bsp) -> DecodeCounts {
    DecodeCounts::from(&crate::decode::decode_with(bsp, DecodeOptions::WALK))
}

/// Decode one run-length row from the start of `data` — the PVS primitive the benchmarks time.
pub fn decode_rle_row(data: &[u8], row_bytes: usize, out: &mut Vec<u8>) -> crate::error::Result<()> {
    decompress_row(data, 0, row_bytes, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_all_counts_a_built_map() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let c = decode_all(&bsp);
        assert_eq!(c.lumps, bsp.lumps().len());
        assert_eq!(c.lump_bytes, bsp.lumps().iter().map(|e| e.length).sum::<u64>());
        assert_eq!(c.entities, bsp.entities().unwrap().len());
        assert!(c.entities > 0);
        let expected_records: u64 = bsp.lumps().iter().filter_map(|e| bsp.record_size(e.index).map(|s| e.length / s as u64)).sum();
        assert_eq!(c.records, expected_records);
    }

    #[test]
    fn q2_cluster_vis_rows_are_decoded() {
        // Two clusters; both PVS rows point to one literal byte 0b11, both PAS rows to 0b01.
        let mut vis = Vec::new();
        for v in [2i32, 20, 21, 20, 21] {
            vis.extend_from_slice(&v.to_le_bytes());
        }
        vis.extend_from_slice(&[0b11, 0b01]);
        let branch = crate::branches::by_id("quake2").unwrap();
        let idx = branch.lump_index("VISIBILITY").unwrap();
        let bytes = crate::build::BspBuilder::new(branch).lump(idx, vis).build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let c = decode_all(&bsp);
        assert_eq!(c.vis_rows, 4);
        assert_eq!(c.vis_bits, 2 + 1 + 2 + 1);
    }

    #[test]
    fn map_filter_needs_every_kind_asked_for() {
        // The sample: worldspawn and info_player_start (keys classname, message, origin, angle),
        // one texture `bspkit_grey`.
        let data = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&data).unwrap();
        let f = |c: &[&str], k: &[&str], t: &[&str]| {
            let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
            MapFilter { classnames: v(c), keys: v(k), textures: v(t) }.matches(&bsp)
        };
        assert_eq!(f(&[], &[], &[]), Some(vec![]));
        assert_eq!(f(&["info_player_start", "item_quad"], &[], &[]), Some(vec!["classname info_player_start".to_string()]));
        assert_eq!(f(&["item_quad"], &[], &[]), None);
        assert_eq!(f(&["worldspawn"], &["angle"], &["GREY"]).unwrap().len(), 3);
        assert_eq!(f(&["worldspawn"], &["no_such_key"], &[]), None);
        assert_eq!(f(&[], &[], &["sky"]), None);
        // Exact classnames and keys: a part of one is not enough.
        assert_eq!(f(&["info_player"], &[], &[]), None);
        assert_eq!(f(&[], &["ang"], &[]), None);
    }

    #[test]
    fn scan_summary_counts_failures() {
        let good = ScanRecord {
            path: "a".into(),
            entry: None,
            size: 10,
            family: Some("quake"),
            branch: Some("quake1"),
            version: Some(29),
            magic: None,
            lumps: Some(LumpSummary::default()),
            problems: vec![],
            error: None,
            micros: 0,
            matched: None,
        };
        let bad = ScanRecord::failed(Path::new("b"), None, 3, &Error::truncated(4, 3));
        let mut warned = good.clone();
        warned.path = "w".into();
        warned.problems.push(Problem::warning(crate::check::problem::Code::FLARE_FOG, "FOGS", None, "x"));
        let mut noted = good.clone();
        noted.problems.push(Problem::note(crate::check::problem::Code::GLOBAL_FOG, "FOGS", None, "x"));
        let s = summarize(&[good.clone(), bad, good, warned, noted]);
        assert_eq!((s.maps, s.ok, s.with_warnings, s.with_errors, s.failed, s.bytes), (5, 3, 1, 0, 1, 43));
        let row = FormatCount {
            family: "quake".into(),
            branch: "quake1".into(),
            version: 29,
            magic: None,
            maps: 4,
            with_errors: 0,
            with_warnings: 1,
        };
        assert_eq!(s.per_format, vec![row]);
        assert_eq!(s.per_error, vec![("truncated".into(), 1)]);
        assert_eq!(s.problem_maps.len(), 1);
        assert_eq!(s.problem_maps[0].0, "w");
    }
}
