//! Game files outside the map: the search path over game directories and their archives, a
//! budget for what one command may read, and the readers of the texture-related file formats
//! (VTF, VMT, VPK, WAD2/WAD3, Quake `.pak`, `.wal`, TGA, palettes).
//!
//! This layer knows nothing of maps: the family texture loaders
//! (`branches::<family>::texture`) use it, and [`crate::texture`] ties them together.
//!
//! Search order ([`AssetFs`]): game directories in the order given; inside each, loose files
//! first, then its archives (`*.pak`, `*.pk3`, `*_dir.vpk`) with the name that sorts last
//! first (so `pak1.pak` overrides `pak0.pak` and `zzz.pk3` overrides `pak0.pk3`, as in the
//! engines). Names are compared ignoring case and slash direction.

pub mod image;
pub mod image_file;
pub mod pak;
pub mod palette;
pub mod tga;
pub mod vmt;
pub mod vpk;
pub mod vtf;
pub mod wad;
pub mod wal;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use image::{AlphaMode, ImageF32, ImageRgba, Layer, Texture};
pub use palette::Palette;

use crate::error::{Error, ErrorKind, Result};
use crate::lumps::pakfile::PakEntry;

/// Limits on what one command (one [`AssetFs`]) may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Total bytes read from files and archive entries.
    pub max_bytes: u64,
    /// Total archive directory entries indexed (every `.pak`, `.pk3`, `.vpk` under the game
    /// directories).
    pub max_entries: u64,
    /// Largest single file or entry read.
    pub max_file: u64,
    /// Total texels decoded, every layer of every texture together (a claimed size is checked
    /// before its pixels are allocated where the format states it first).
    pub max_pixels: u64,
    /// Most texels of one decoded image (one layer): the memory one decode may take at once.
    pub max_image_pixels: u64,
    /// Most names looked up on the search path for one command (the WADs a worldspawn `wad`
    /// key lists, each once); the rest are reported, not searched.
    pub max_lookups: u64,
}

/// Default of [`Budget::max_pixels`]: 1 Gi texels (4 GiB as RGBA), far above any real map's
/// textures (README, "Budgets").
pub const DEFAULT_MAX_TEXTURE_PIXELS: u64 = 1 << 30;
/// Default of [`Budget::max_image_pixels`]: 64 Mi texels (8192 × 8192, 256 MiB as RGBA), four
/// times the 4096 × 4096 the engines' own texture loaders stop at.
pub const DEFAULT_MAX_IMAGE_PIXELS: u64 = 1 << 26;
/// Default of [`Budget::max_lookups`]: 4,096 names (GoldSrc maps list a handful of WADs).
pub const DEFAULT_MAX_LOOKUPS: u64 = 4096;
pub const BUDGET_LOOKUPS: &str = "name look-up budget (Budget::max_lookups)";

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_bytes: 8 << 30,
            max_entries: 4_000_000,
            max_file: 512 << 20,
            max_pixels: DEFAULT_MAX_TEXTURE_PIXELS,
            max_image_pixels: DEFAULT_MAX_IMAGE_PIXELS,
            max_lookups: DEFAULT_MAX_LOOKUPS,
        }
    }
}

/// What a command has used of its [`Budget`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct BudgetUse {
    pub bytes_read: u64,
    pub entries: u64,
    /// Texels decoded.
    pub pixels: u64,
}

/// `what` of the [`ErrorKind::LimitExceeded`] errors that mean the budget ran out.
pub const BUDGET_BYTES: &str = "texture read budget (bytes)";
pub const BUDGET_ENTRIES: &str = "archive entry budget";
pub const BUDGET_PIXELS: &str = "decoded texture budget (pixels, --max-texture-pixels)";
pub const BUDGET_IMAGE_PIXELS: &str = "texels of one decoded image (Budget::max_image_pixels)";

/// Why a texture could not be produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MissingKind {
    /// No file or entry with the name was found anywhere searched.
    NotFound,
    /// Found, but it could not be read or decoded.
    Undecodable,
    /// Palette-indexed pixels, but no palette (`--palette` or `--game-dir`).
    NoPalette,
    /// The command's read budget ran out.
    Budget,
    /// The family's textures are not read (Respawn, Call of Duty), or the material has no
    /// colour texture (e.g. Source `Water` without `$basetexture`).
    Unsupported,
}

/// A texture that could not be produced: the name, why, and where the failure is (file or
/// archive, entry or lump, byte offset) when known.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Missing {
    pub name: String,
    pub kind: MissingKind,
    pub reason: String,
    pub file: Option<String>,
    pub entry: Option<String>,
    pub offset: Option<u64>,
}

impl Missing {
    pub fn new(name: impl Into<String>, kind: MissingKind, reason: impl Into<String>) -> Self {
        Missing { name: name.into(), kind, reason: reason.into(), file: None, entry: None, offset: None }
    }

    /// From a read or decode error: its file, lump/entry and offset are kept.
    pub fn from_error(name: impl Into<String>, err: &Error) -> Self {
        let kind = match &err.kind {
            ErrorKind::LimitExceeded { what, .. }
                if [BUDGET_BYTES, BUDGET_ENTRIES, BUDGET_PIXELS, BUDGET_IMAGE_PIXELS, BUDGET_LOOKUPS].contains(what) =>
            {
                MissingKind::Budget
            }
            _ => MissingKind::Undecodable,
        };
        Missing {
            name: name.into(),
            kind,
            reason: err.kind.to_string(),
            file: err.path.as_ref().map(|p| p.display().to_string()),
            entry: err.lump.clone(),
            offset: err.offset,
        }
    }

    /// Set the file if none is set.
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: ", self.name)?;
        if let Some(p) = &self.file {
            write!(f, "{p}: ")?;
        }
        if let Some(e) = &self.entry {
            write!(f, "{e}: ")?;
        }
        if let Some(o) = self.offset {
            write!(f, "offset {o}: ")?;
        }
        write!(f, "{}", self.reason)
    }
}

/// A file found on the search path.
#[derive(Debug, Clone)]
pub struct Asset {
    pub data: Vec<u8>,
    /// The file, or the archive holding the entry.
    pub file: PathBuf,
    /// The entry inside the archive, if any.
    pub entry: Option<String>,
}

impl Asset {
    /// `file` or `file:entry`, for messages and `Texture::source`.
    pub fn origin(&self) -> String {
        match &self.entry {
            Some(e) => format!("{}:{e}", self.file.display()),
            None => self.file.display().to_string(),
        }
    }
}

/// Lower case, forward slashes, no leading `./` or `/`.
pub fn normalize(name: &str) -> String {
    let n = name.replace('\\', "/").to_ascii_lowercase();
    let mut s = n.as_str();
    loop {
        if let Some(r) = s.strip_prefix("./") {
            s = r;
        } else if let Some(r) = s.strip_prefix('/') {
            s = r;
        } else {
            break;
        }
    }
    s.to_string()
}

/// A memory-mapped archive file and a name index over its entries.
struct Indexed<E> {
    path: PathBuf,
    map: memmap2::Mmap,
    entries: Vec<E>,
    index: HashMap<String, usize>,
}

enum Root {
    Dir(PathBuf),
    Zip(Indexed<PakEntry>),
    Pack(Indexed<pak::PackEntry>),
    Vpk(Indexed<vpk::VpkEntry>, vpk::VpkDir),
}

/// Largest number of directory entries looked at when matching a name's case.
const MAX_DIR_SCAN: usize = 200_000;

fn map_file(path: &Path) -> Result<memmap2::Mmap> {
    // Only regular files, as for maps: a FIFO named as a WAD or archive must not block.
    let (f, _) = crate::fsio::open_regular(path)?;
    // SAFETY: read-only map; a file truncated by another process while mapped could fault,
    // the documented risk of every mmap-based reader (as for maps in `Bsp::open`).
    unsafe { memmap2::Mmap::map(&f) }.map_err(|e| Error::from(e).in_file(path))
}

/// The case-insensitive path of `rel` below `dir`, if it exists.
fn find_ci(dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut cur = dir.to_path_buf();
    for part in rel.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            return None;
        }
        let exact = cur.join(part);
        if exact.exists() {
            cur = exact;
            continue;
        }
        let found = std::fs::read_dir(&cur)
            .ok()?
            .take(MAX_DIR_SCAN)
            .flatten()
            .find(|e| e.file_name().to_str().is_some_and(|n| n.eq_ignore_ascii_case(part)))?;
        cur = found.path();
    }
    cur.is_file().then_some(cur)
}

/// Add `n` to a budget counter; an error naming `what` when that passes `limit`.
/// Takes `n` from `counter` unless that would pass `limit`; a refusal takes nothing, so what
/// was refused does not count against what is still allowed.
fn take(counter: &AtomicU64, n: u64, limit: u64, what: &'static str) -> Result<()> {
    let mut used = counter.load(Ordering::Relaxed);
    loop {
        let now = used.saturating_add(n);
        if now > limit {
            return Err(Error::new(ErrorKind::LimitExceeded { what, requested: now, limit }));
        }
        match counter.compare_exchange_weak(used, now, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Ok(()),
            Err(current) => used = current,
        }
    }
}

/// The search path: game directories and archives, with a read budget.
pub struct AssetFs {
    roots: Vec<Root>,
    budget: Budget,
    bytes: AtomicU64,
    entries: AtomicU64,
    pixels: AtomicU64,
}

impl std::fmt::Debug for AssetFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AssetFs({} roots, {:?})", self.roots.len(), self.used())
    }
}

impl AssetFs {
    pub fn new(budget: Budget) -> Self {
        AssetFs { roots: Vec::new(), budget, bytes: AtomicU64::new(0), entries: AtomicU64::new(0), pixels: AtomicU64::new(0) }
    }

    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// What has been read so far.
    pub fn used(&self) -> BudgetUse {
        BudgetUse {
            bytes_read: self.bytes.load(Ordering::Relaxed),
            entries: self.entries.load(Ordering::Relaxed),
            pixels: self.pixels.load(Ordering::Relaxed),
        }
    }

    /// Take `n` decoded texels from the budget, or fail naming it.
    pub fn charge_pixels(&self, n: u64) -> Result<()> {
        take(&self.pixels, n, self.budget.max_pixels, BUDGET_PIXELS)
    }

    /// Fails, naming the budget, when an image set of `total` texels whose largest image has
    /// `largest` would not fit (nothing is taken: the texels are charged once decoded). Used
    /// before a decoder allocates a size a header claims.
    pub fn check_pixels(&self, total: u64, largest: u64) -> Result<()> {
        if largest > self.budget.max_image_pixels {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: BUDGET_IMAGE_PIXELS,
                requested: largest,
                limit: self.budget.max_image_pixels,
            }));
        }
        let now = self.pixels.load(Ordering::Relaxed).saturating_add(total);
        if now > self.budget.max_pixels {
            return Err(Error::new(ErrorKind::LimitExceeded { what: BUDGET_PIXELS, requested: now, limit: self.budget.max_pixels }));
        }
        Ok(())
    }

    /// Runs `decode` with an output limit of what is left of the texel budget as RGBA8 bytes (at
    /// most `cap`); a decoder refusing an image because of that limit is reported as the budget
    /// running out, not as a bad image.
    pub fn decode_within<T>(&self, cap: u64, decode: impl FnOnce(u64) -> Result<T>) -> Result<T> {
        let allowance = self.decode_allowance(cap);
        match decode(allowance) {
            Err(e) if allowance < cap && matches!(e.kind, ErrorKind::LimitExceeded { .. }) => {
                let requested = match e.kind {
                    ErrorKind::LimitExceeded { requested, .. } => requested / 4,
                    _ => 0,
                };
                // The image alone is over the per-image cap, or it does not fit what is left.
                Err(self.check_pixels(requested, requested).err().unwrap_or(e))
            }
            r => r,
        }
    }

    /// Output bytes an RGBA8 decoder may produce for one image: what is left of the texel
    /// budget, at most `cap`.
    pub fn decode_allowance(&self, cap: u64) -> u64 {
        let left = self.budget.max_pixels.saturating_sub(self.pixels.load(Ordering::Relaxed)).min(self.budget.max_image_pixels);
        left.saturating_mul(4).min(cap)
    }

    /// Take `n` bytes from the budget, or fail naming what ran out.
    pub fn charge(&self, n: u64) -> Result<()> {
        take(&self.bytes, n, self.budget.max_bytes, BUDGET_BYTES)
    }

    pub(crate) fn charge_entries(&self, n: u64) -> Result<()> {
        take(&self.entries, n, self.budget.max_entries, BUDGET_ENTRIES)
    }

    /// Add a game directory: its loose files, then its archives (see the module notes).
    /// Archives that cannot be read are skipped and returned as errors (warnings for callers).
    pub fn add_game_dir(&mut self, dir: &Path) -> Vec<Error> {
        let mut warnings = Vec::new();
        if !dir.is_dir() {
            warnings.push(Error::new(ErrorKind::Io("not a directory".into())).in_file(dir));
            return warnings;
        }
        self.roots.push(Root::Dir(dir.to_path_buf()));
        let mut archives: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .take(MAX_DIR_SCAN)
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
                    p.is_file() && (n.ends_with(".pak") || n.ends_with(".pk3") || n.ends_with("_dir.vpk"))
                })
                .collect(),
            Err(e) => {
                warnings.push(Error::from(e).in_file(dir));
                Vec::new()
            }
        };
        archives.sort();
        for a in archives.iter().rev() {
            if let Err(e) = self.add_archive(a) {
                warnings.push(e);
            }
        }
        warnings
    }

    /// Add one archive (`.pak`, `.pk3`/`.zip`, `_dir.vpk`), searched after what is there.
    pub fn add_archive(&mut self, path: &Path) -> Result<()> {
        let map = map_file(path)?;
        let lower = path.to_string_lossy().to_ascii_lowercase();
        let root = if map.get(..4) == Some(b"PACK") {
            let entries = pak::parse(&map).map_err(|e| e.in_file(path))?;
            self.charge_entries(entries.len() as u64).map_err(|e| e.in_file(path))?;
            let index = entries.iter().enumerate().map(|(i, e)| (normalize(&e.name), i)).collect();
            Root::Pack(Indexed { path: path.to_path_buf(), map, entries, index })
        } else if lower.ends_with(".vpk") {
            let left = self.budget.max_entries.saturating_sub(self.entries.load(Ordering::Relaxed));
            let mut dir = vpk::parse(&map, left).map_err(|e| e.in_file(path))?;
            self.charge_entries(dir.entries.len() as u64).map_err(|e| e.in_file(path))?;
            let entries = std::mem::take(&mut dir.entries);
            let index = entries.iter().enumerate().map(|(i, e)| (normalize(&e.path), i)).collect();
            Root::Vpk(Indexed { path: path.to_path_buf(), map, entries, index }, dir)
        } else {
            let pak = crate::lumps::pakfile::Pakfile::parse(&map).map_err(|e| e.in_file(path))?;
            self.charge_entries(pak.entries.len() as u64).map_err(|e| e.in_file(path))?;
            let entries = pak.entries;
            let index = entries.iter().enumerate().filter(|(_, e)| !e.is_dir()).map(|(i, e)| (normalize(&e.name), i)).collect();
            Root::Zip(Indexed { path: path.to_path_buf(), map, entries, index })
        };
        self.roots.push(root);
        Ok(())
    }

    /// Read the first file named `name` on the search path. `Ok(None)` when there is none;
    /// an error when one is found but cannot be read, or the budget runs out.
    pub fn read(&self, name: &str) -> Result<Option<Asset>> {
        let key = normalize(name);
        let max = self.budget.max_file;
        for root in &self.roots {
            match root {
                Root::Dir(dir) => {
                    let Some(path) = find_ci(dir, &key) else { continue };
                    let (f, m) = crate::fsio::open_regular(&path)?;
                    let len = m.len();
                    if len > max {
                        return Err(Error::new(ErrorKind::LimitExceeded { what: "file size", requested: len, limit: max }).in_file(&path));
                    }
                    self.charge(len).map_err(|e| e.in_file(&path))?;
                    let data = crate::fsio::read_opened(f, len, &path)?;
                    return Ok(Some(Asset { data, file: path, entry: None }));
                }
                Root::Zip(ix) => {
                    let Some(&i) = ix.index.get(&key) else { continue };
                    let e = &ix.entries[i];
                    let fail = |err: Error| Error { lump: Some(format!("entry {}", e.name)), ..err }.in_file(&ix.path);
                    self.charge(e.size).map_err(fail)?;
                    let data = e.read_in(&ix.map, max).map_err(fail)?;
                    return Ok(Some(Asset { data, file: ix.path.clone(), entry: Some(e.name.clone()) }));
                }
                Root::Pack(ix) => {
                    let Some(&i) = ix.index.get(&key) else { continue };
                    let e = &ix.entries[i];
                    let fail = |err: Error| err.in_lump(format!("entry {}", e.name)).in_file(&ix.path);
                    if e.length as u64 > max {
                        return Err(fail(Error::new(ErrorKind::LimitExceeded {
                            what: "file size",
                            requested: e.length as u64,
                            limit: max,
                        })));
                    }
                    self.charge(e.length as u64).map_err(fail)?;
                    let data = crate::bytes::slice(&ix.map, e.offset as u64, e.length as u64).map_err(fail)?.to_vec();
                    return Ok(Some(Asset { data, file: ix.path.clone(), entry: Some(e.name.clone()) }));
                }
                Root::Vpk(ix, dir) => {
                    let Some(&i) = ix.index.get(&key) else { continue };
                    let e = &ix.entries[i];
                    self.charge(e.size()).map_err(|err| err.in_lump(format!("VPK entry {}", e.path)).in_file(&ix.path))?;
                    let data = vpk::read(dir, e, &ix.map, Some(&ix.path), max).map_err(|err| err.in_file(&ix.path))?;
                    return Ok(Some(Asset { data, file: ix.path.clone(), entry: Some(e.path.clone()) }));
                }
            }
        }
        Ok(None)
    }

    /// The names (normalized) of the files directly in folder `dir` ending in `ext`, over
    /// every root, each once, in search order.
    pub fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        let dir = normalize(dir);
        let dir = dir.trim_end_matches('/');
        let ext = ext.to_ascii_lowercase();
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let mut push = |n: String| {
            if seen.insert(n.clone()) {
                out.push(n);
            }
        };
        let direct = |k: &str| k.strip_prefix(dir).and_then(|r| r.strip_prefix('/')).is_some_and(|r| !r.contains('/')) && k.ends_with(&ext);
        for root in &self.roots {
            let mut keys: Vec<&String> = match root {
                Root::Dir(d) => {
                    let Some(folder) = find_ci_dir(d, dir) else { continue };
                    let Ok(rd) = std::fs::read_dir(&folder) else { continue };
                    for e in rd.take(MAX_DIR_SCAN).flatten() {
                        if let Some(n) = e.file_name().to_str() {
                            let k = format!("{dir}/{}", n.to_ascii_lowercase());
                            if direct(&k) {
                                push(k);
                            }
                        }
                    }
                    continue;
                }
                Root::Zip(ix) => ix.index.keys().collect(),
                Root::Pack(ix) => ix.index.keys().collect(),
                Root::Vpk(ix, _) => ix.index.keys().collect(),
            };
            keys.sort();
            for k in keys {
                if direct(k) {
                    push(k.clone());
                }
            }
        }
        out
    }
}

/// The case-insensitive path of directory `rel` below `dir`.
fn find_ci_dir(dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut cur = dir.to_path_buf();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        let exact = cur.join(part);
        if exact.is_dir() {
            cur = exact;
            continue;
        }
        cur = std::fs::read_dir(&cur)
            .ok()?
            .take(MAX_DIR_SCAN)
            .flatten()
            .find(|e| e.file_name().to_str().is_some_and(|n| n.eq_ignore_ascii_case(part)))?
            .path();
    }
    cur.is_dir().then_some(cur)
}

/// A WAD file on disk, memory-mapped, with its directory.
pub struct WadFile {
    pub path: PathBuf,
    map: memmap2::Mmap,
    pub version: wad::WadVersion,
    pub entries: Vec<wad::WadEntry>,
}

impl std::fmt::Debug for WadFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WadFile({}, {} entries)", self.path.display(), self.entries.len())
    }
}

impl WadFile {
    /// Open and index a WAD; its entries count against the budget of `fs`.
    pub fn open(path: &Path, fs: &AssetFs) -> Result<Self> {
        let map = map_file(path)?;
        let w = wad::Wad::parse(&map).map_err(|e| e.in_file(path))?;
        fs.charge_entries(w.entries.len() as u64).map_err(|e| e.in_file(path))?;
        let (version, entries) = (w.version, w.entries);
        Ok(WadFile { path: path.to_path_buf(), map, version, entries })
    }

    /// The entry named `name` (ignoring case; the last of duplicates).
    pub fn find(&self, name: &str) -> Option<&wad::WadEntry> {
        self.entries.iter().rev().find(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}

/// Where to look for textures outside the map (the `--game-dir`, `--wad`, `--palette` options).
#[derive(Debug, Clone, Default)]
pub struct AssetOptions {
    /// Game directories (`id1`, `valve`, `baseq2`, `baseq3`, `hl2`, …) in search order.
    pub game_dirs: Vec<PathBuf>,
    /// WAD files, or directories whose `*.wad` files are all used (GoldSrc, Quake).
    pub wads: Vec<PathBuf>,
    /// A palette file (`.lmp` or `.pcx`) for palette-indexed textures, overriding the game's.
    pub palette: Option<PathBuf>,
    pub budget: Budget,
}

/// The configured search: the file system, the WADs and the palette override, with the
/// warnings found while setting them up.
#[derive(Debug)]
pub struct Assets {
    pub fs: AssetFs,
    /// WADs from `--wad` (files, then `*.wad` of directories), in order.
    pub wads: Vec<WadFile>,
    /// Directories searched for WADs named by a map (`--wad` directories, game directories).
    pub wad_dirs: Vec<PathBuf>,
    /// The `--palette` file, loaded.
    pub palette: Option<std::result::Result<Palette, Missing>>,
    /// Problems met while setting up (unreadable archives, WADs or palette file).
    pub warnings: Vec<Missing>,
}

impl Assets {
    /// Set up the search. Nothing fails here: unreadable inputs become [`Assets::warnings`].
    pub fn open(opts: &AssetOptions) -> Self {
        let mut fs = AssetFs::new(opts.budget);
        let mut warnings = Vec::new();
        let warn = |e: &Error| Missing::from_error("(setup)", e);
        for d in &opts.game_dirs {
            warnings.extend(fs.add_game_dir(d).iter().map(warn));
        }
        let mut wads = Vec::new();
        let mut wad_dirs = Vec::new();
        for w in &opts.wads {
            if w.is_dir() {
                wad_dirs.push(w.clone());
                let mut files: Vec<PathBuf> = std::fs::read_dir(w)
                    .map(|rd| {
                        rd.take(MAX_DIR_SCAN)
                            .flatten()
                            .map(|e| e.path())
                            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("wad")))
                            .collect()
                    })
                    .unwrap_or_default();
                files.sort();
                for f in files {
                    match WadFile::open(&f, &fs) {
                        Ok(x) => wads.push(x),
                        Err(e) => warnings.push(warn(&e)),
                    }
                }
            } else {
                match WadFile::open(w, &fs) {
                    Ok(x) => wads.push(x),
                    Err(e) => warnings.push(warn(&e)),
                }
            }
        }
        wad_dirs.extend(opts.game_dirs.iter().cloned());
        let palette = opts.palette.as_ref().map(|p| {
            let read = || -> Result<Palette> {
                // Only a regular file (a FIFO or device is refused, never read without end),
                // read no further than its size at open.
                let (f, m) = crate::fsio::open_regular(p)?;
                let len = m.len();
                if len > 1 << 24 {
                    return Err(Error::new(ErrorKind::LimitExceeded { what: "palette file size", requested: len, limit: 1 << 24 }));
                }
                fs.charge(len)?;
                Palette::from_file_bytes(&crate::fsio::read_opened(f, len, p)?)
            };
            read().map_err(|e| Missing::from_error("(palette)", &e.in_file(p)))
        });
        if let Some(Err(m)) = &palette {
            warnings.push(m.clone());
        }
        Assets { fs, wads, wad_dirs, palette, warnings }
    }

    /// The palette for palette-indexed textures: `--palette` if given, else the first of
    /// `paths` found on the search path (`gfx/palette.lmp`, `pics/colormap.pcx`).
    pub fn palette(&self, paths: &[&str]) -> std::result::Result<Palette, Missing> {
        if let Some(p) = &self.palette {
            return p.clone();
        }
        for path in paths {
            match self.fs.read(path) {
                Ok(Some(a)) => return Palette::from_file_bytes(&a.data).map_err(|e| Missing::from_error("(palette)", &e.in_file(&a.file))),
                Ok(None) => {}
                Err(e) => return Err(Missing::from_error("(palette)", &e)),
            }
        }
        Err(Missing::new(
            "(palette)",
            MissingKind::NoPalette,
            format!("no palette: pass --palette FILE or a --game-dir holding {}", paths.join(" or ")),
        ))
    }

    /// Find a WAD named by a map (only its file name is used) in the WAD and game directories
    /// and in `also` (the map's own directory), ignoring case. For many names, [`WadFinder`]
    /// lists each directory once instead of once per name.
    pub fn find_wad(&self, file_name: &str, also: Option<&Path>) -> Option<PathBuf> {
        let base = wad_base_name(file_name)?;
        self.wad_dirs.iter().map(PathBuf::as_path).chain(also).find_map(|d| find_ci(d, &base))
    }

    /// A [`WadFinder`] over the WAD and game directories and `also`: each directory is listed
    /// once (at most `MAX_DIR_SCAN` entries, charged to the entry budget).
    pub fn wad_finder(&self, also: Option<&Path>) -> WadFinder {
        let mut dirs = Vec::new();
        for d in self.wad_dirs.iter().map(PathBuf::as_path).chain(also) {
            let mut exact = HashMap::new();
            let mut folded = HashMap::new();
            if let Ok(rd) = std::fs::read_dir(d) {
                for e in rd.take(MAX_DIR_SCAN).flatten() {
                    if self.fs.charge_entries(1).is_err() {
                        break;
                    }
                    let Some(name) = e.file_name().to_str().map(str::to_owned) else { continue };
                    folded.entry(name.to_ascii_lowercase()).or_insert_with(|| e.path());
                    exact.insert(name, e.path());
                }
            }
            dirs.push((exact, folded));
        }
        WadFinder { dirs }
    }
}

/// The file name a worldspawn `wad` entry stands for: its last path component.
fn wad_base_name(file_name: &str) -> Option<String> {
    let base = file_name.replace('\\', "/");
    let base = base.rsplit('/').next().unwrap_or(&base);
    (!base.is_empty() && base != "." && base != "..").then(|| base.to_string())
}

/// WAD look-ups by file name over directories listed once ([`Assets::wad_finder`]): a map
/// whose `wad` key names thousands of WADs costs one hash look-up per name and directory, not
/// a directory listing per name.
#[derive(Debug, Default)]
pub struct WadFinder {
    /// Per directory, in search order: exact names, then names folded to lower case.
    dirs: Vec<(HashMap<String, PathBuf>, HashMap<String, PathBuf>)>,
}

impl WadFinder {
    /// The first directory's file of that name (exact case first, then ignoring case).
    pub fn find(&self, file_name: &str) -> Option<PathBuf> {
        let base = wad_base_name(file_name)?;
        let folded = base.to_ascii_lowercase();
        self.dirs.iter().find_map(|(exact, fold)| exact.get(&base).or_else(|| fold.get(&folded)).filter(|p| p.is_file()).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bspkit_assets_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn search_order_case_and_budget() {
        let d = tmp("order");
        std::fs::create_dir_all(d.join("Gfx")).unwrap();
        std::fs::write(d.join("Gfx/Palette.LMP"), [1u8; 768]).unwrap();
        std::fs::write(d.join("pak0.pak"), pak::build(&[("gfx/palette.lmp", &[2u8; 768]), ("textures/a.wal", b"zero")])).unwrap();
        std::fs::write(d.join("pak1.pak"), pak::build(&[("textures/a.wal", b"one")])).unwrap();
        let mut fs = AssetFs::new(Budget::default());
        assert!(fs.add_game_dir(&d).is_empty());
        // Loose first, case-insensitively.
        assert_eq!(fs.read("gfx/palette.lmp").unwrap().unwrap().data, vec![1u8; 768]);
        // pak1 overrides pak0.
        let a = fs.read("TEXTURES\\A.WAL").unwrap().unwrap();
        assert_eq!(a.data, b"one");
        assert!(a.origin().ends_with("pak1.pak:textures/a.wal"), "{}", a.origin());
        assert!(fs.read("nope").unwrap().is_none());
        assert_eq!(fs.list("textures", ".wal"), vec!["textures/a.wal".to_string()]);
        assert_eq!(fs.used().entries, 3);

        let mut small = AssetFs::new(Budget { max_bytes: 100, ..Budget::default() });
        small.add_game_dir(&d);
        let err = small.read("gfx/palette.lmp").unwrap_err();
        assert_eq!(Missing::from_error("x", &err).kind, MissingKind::Budget);
        let mut few = AssetFs::new(Budget { max_entries: 1, ..Budget::default() });
        assert_eq!(few.add_game_dir(&d).len(), 1);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn zip_and_vpk_roots_and_palettes() {
        let d = tmp("zip");
        let mut b = crate::lumps::pakfile::PakBuilder::new();
        b.insert("textures/base/wall.tga", vec![5; 10]).unwrap();
        b.insert("scripts/base.shader", b"textures/base/wall { }".to_vec()).unwrap();
        std::fs::write(d.join("pak0.pk3"), b.build(crate::lumps::pakfile::PakCompression::Stored).unwrap()).unwrap();
        let (dir, arch) = vpk::build(2, &[("materials/x.vmt", b"LightmappedGeneric {}")], 2, true);
        std::fs::write(d.join("pak01_dir.vpk"), dir).unwrap();
        std::fs::write(d.join("pak01_000.vpk"), arch).unwrap();
        let mut pcx = vec![0x0A];
        pcx.resize(128, 0);
        pcx.push(0x0C);
        pcx.extend((0..768).map(|i| i as u8));
        std::fs::create_dir_all(d.join("pics")).unwrap();
        std::fs::write(d.join("pics/colormap.pcx"), &pcx).unwrap();
        let a = Assets::open(&AssetOptions { game_dirs: vec![d.clone()], ..AssetOptions::default() });
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        assert_eq!(a.fs.read("textures/base/wall.tga").unwrap().unwrap().data, vec![5; 10]);
        assert_eq!(a.fs.read("materials/X.vmt").unwrap().unwrap().data, b"LightmappedGeneric {}");
        assert_eq!(a.fs.list("scripts", ".shader"), vec!["scripts/base.shader".to_string()]);
        assert_eq!(a.palette(&["gfx/palette.lmp", "pics/colormap.pcx"]).unwrap().0[1], [3, 4, 5]);
        assert_eq!(a.palette(&["gfx/palette.lmp"]).unwrap_err().kind, MissingKind::NoPalette);
        // A broken archive is a warning, not a failure.
        std::fs::write(d.join("zzz.pk3"), b"PK\x05\x06 broken").unwrap();
        let a = Assets::open(&AssetOptions { game_dirs: vec![d.clone()], palette: Some(d.join("none.lmp")), ..AssetOptions::default() });
        assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
        assert!(a.warnings.iter().any(|w| w.file.as_deref().is_some_and(|f| f.ends_with("zzz.pk3"))));
        std::fs::remove_dir_all(&d).ok();
    }
}
