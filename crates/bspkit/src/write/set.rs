//! Outputs made of several files (a `.gltf` with its `.bin` and PNG images, an `.obj` with its
//! `.mtl` and images), written as one set, and the written-bytes budget every export counts
//! against ([`ByteBudget`]).
//!
//! The main file names its sidecars (the glTF's `buffers[].uri` and `images[].uri`, the OBJ's
//! `mtllib` and the MTL's `map_Kd`), so a set is only whole when the main file and the files it
//! names agree. [`SetWriter`] keeps every state a reader (or a crash) can see either the old set
//! or the new one:
//!
//! 1. **Resolve once.** The main path's symbolic links are followed once ([`resolve_links`]) and
//!    every sidecar is named from the resolved path, so `-o LINK.gltf` puts the `.bin` and the
//!    images beside the file the link names, where the written glTF looks for them. A main path
//!    that is a FIFO, a device, a directory or a socket is refused before anything is written
//!    (a set cannot be written through a stream).
//! 2. **New names.** A sidecar keeps its plain name (`e.bin`) when no file has it; otherwise
//!    (a previous export's set is there) it gets the first free `~N` before its extension
//!    (`e~2.bin`, the rule export names already use), so the old set's files are never touched
//!    while the new one is written. A re-export over a set therefore alternates between the two
//!    names; the main file always names the ones it goes with.
//! 3. **Temporaries first.** Every part, the main file included, goes to a temporary file in the
//!    target's directory (`atomic`'s `.NAME.bspkit-tmp-PID-N`, removed on every error and on
//!    SIGINT/SIGTERM/SIGHUP; after a `kill -9`, by the next write of a part of the same name).
//!    A failure here — a full disk, a file-size limit, the [`ByteBudget`] — leaves the old set
//!    as it was and no file behind.
//! 4. **Sidecars in, main last.** Each sidecar is hard-linked to its new (free) name, which
//!    never replaces a file (a name taken meanwhile is an error, not an overwrite), and its
//!    temporary name removed; the old main file still names the old sidecars, which are all
//!    still there. Then the main file's temporary is renamed over the main file: that one
//!    atomic rename switches from the old set to the new one.
//! 5. **Old sidecars out.** The files the old main named — plain names in the same directory
//!    that start with the main file's stem, regular files, none of the new set — are removed.
//!    A crash before this step leaves them as unreferenced files, never a mixed set; so, before
//!    the switch, their names and the new sidecars' go to a journal (`.MAIN.bspkit-stale`, with
//!    the new main file's inode and device), removed once the write is done. The next write of
//!    the set reads a journal left by a crash: when the main file is the one it names (the
//!    switch happened) the old sidecars it lists go; otherwise the new ones linked in before
//!    the crash go (the old set, still in place, names none of them).
//!
//! Written with `std` and `libc` (through [`super::atomic`]'s temporary-file guard): no crate
//! offers a multi-file rename ordered like this one, and the guard must be async-signal-safe.

use std::collections::HashSet;
use std::fs::{File, Metadata, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::atomic::{io_err, lock_existing, remove_orphans, remove_stale_temps, resolve_links, set_mode, target_dir, temp_path, TempGuard};
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::kind_name;

/// Environment variable used only by tests: when set to `K`, a set write ([`SetWriter::commit`],
/// [`crate::mapset::write_set`]) stops the process (`abort`, as a crash or `kill -9` would)
/// right after its `K`-th step (each link, rename and removal is one step; 0 stops before the
/// first).
pub const SET_ABORT_HOOK_ENV: &str = "BSPKIT_TEST_SET_ABORT_AFTER_STEP";

/// Steps of set writes taken by this process ([`SET_ABORT_HOOK_ENV`]).
static STEPS: AtomicU64 = AtomicU64::new(0);

/// One step of a set write done: the test hook of [`SET_ABORT_HOOK_ENV`].
pub(crate) fn step_done() {
    let k = STEPS.fetch_add(1, Ordering::SeqCst);
    if std::env::var(SET_ABORT_HOOK_ENV).ok().and_then(|v| v.parse::<u64>().ok()) == Some(k) {
        std::process::abort();
    }
}

/// `what` of the [`ErrorKind::LimitExceeded`] error of the written-bytes budget.
pub const BUDGET_WRITTEN: &str = "written bytes budget (--max-output-bytes)";

/// Default of the written-bytes budget: 4 GiB, what a GLB can hold at most. The largest
/// export of the corpus is far below (README, "Budgets").
pub const DEFAULT_MAX_WRITTEN_BYTES: u64 = 4 << 30;

/// Bytes one command may write, every file together. Shared by the writers of a command;
/// a write that would pass it fails (its file is not made, the old one stays) with
/// [`ErrorKind::LimitExceeded`] naming [`BUDGET_WRITTEN`].
#[derive(Debug)]
pub struct ByteBudget {
    limit: u64,
    used: AtomicU64,
    /// Bytes asked for by the write that did not fit (0 while within the budget).
    wanted: AtomicU64,
}

impl ByteBudget {
    pub fn new(limit: u64) -> Self {
        ByteBudget { limit, used: AtomicU64::new(0), wanted: AtomicU64::new(0) }
    }
    /// Bytes written so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::SeqCst)
    }
    pub fn limit(&self) -> u64 {
        self.limit
    }
    /// Count `n` bytes about to be written; `false` (and nothing counted) when they do not fit.
    pub fn take(&self, n: u64) -> bool {
        let used = self.used.load(Ordering::SeqCst);
        match used.checked_add(n) {
            Some(t) if t <= self.limit => {
                self.used.fetch_add(n, Ordering::SeqCst);
                true
            }
            t => {
                self.wanted.store(t.unwrap_or(u64::MAX), Ordering::SeqCst);
                false
            }
        }
    }
    /// Has a write been refused?
    pub fn exceeded(&self) -> bool {
        self.wanted.load(Ordering::SeqCst) > 0
    }
    /// The budget's error.
    pub fn error(&self) -> Error {
        Error::new(ErrorKind::LimitExceeded { what: BUDGET_WRITTEN, requested: self.wanted.load(Ordering::SeqCst), limit: self.limit })
    }
    /// `e`, or the budget's error when the budget is what stopped the write.
    pub fn explain(&self, e: Error) -> Error {
        if self.exceeded() {
            self.error()
        } else {
            e
        }
    }
    /// A writer counting into this budget.
    pub fn counted<'a>(&'a self, inner: &'a mut dyn Write) -> Counted<'a> {
        Counted { inner, budget: self }
    }
}

impl Default for ByteBudget {
    fn default() -> Self {
        ByteBudget::new(DEFAULT_MAX_WRITTEN_BYTES)
    }
}

/// A writer that stops with an error when its [`ByteBudget`] runs out.
pub struct Counted<'a> {
    inner: &'a mut dyn Write,
    budget: &'a ByteBudget,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.budget.take(buf.len() as u64) {
            return Err(std::io::Error::other(BUDGET_WRITTEN));
        }
        let n = self.inner.write(buf)?;
        // Only what was written counts.
        self.budget.used.fetch_sub((buf.len() - n) as u64, Ordering::SeqCst);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

struct Staged {
    /// The name it gets in the directory.
    name: String,
    tmp: PathBuf,
    guard: TempGuard,
}

/// A set being written: see the module documentation.
pub struct SetWriter<'b> {
    given: PathBuf,
    main: PathBuf,
    dir: PathBuf,
    existing: Option<Metadata>,
    /// The old main file, locked from the start to the switch (other bspkit writers wait).
    _lock: Option<File>,
    reserved: HashSet<String>,
    sidecars: Vec<Staged>,
    main_tmp: Option<Staged>,
    budget: &'b ByteBudget,
    /// Old sidecars removed after the switch must start with this (default: the main file's
    /// stem; [`SetWriter::owning`]).
    owned: Option<String>,
}

use crate::fsio::plain_name;

/// Suffix of a set's journal of old sidecars ([`SetWriter::commit`]).
pub use crate::fsio::STALE_MARK;

/// A journal left by a write of the set at `main` that stopped on its way (a crash or `kill
/// -9`): when `main` is the file the journal names (same inode and device), the switch
/// happened and the old sidecars it lists go; otherwise the new ones it lists, linked in before
/// the switch, go (the set on disk is the old one, which names none of them: their names were
/// free when they were chosen). Only plain names of regular files, never `main` itself; the
/// journal goes either way ([`crate::fsio::SetJournal`]). Returns the names removed.
pub(crate) fn recover_stale(dir: &Path, main: &Path) -> Vec<String> {
    let Some(journal) = crate::fsio::SetJournal::find(dir, main) else { return Vec::new() };
    let mut removed = Vec::new();
    for name in journal.not_in_set() {
        let p = dir.join(name);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) && std::fs::remove_file(&p).is_ok() {
            removed.push(name.to_string());
        }
    }
    let _ = std::fs::remove_file(&journal.path);
    removed
}

/// Write the journal of a set write (see [`crate::fsio::SetJournal`]) before its switch: `tmp`
/// is the main file's temporary (renamed, it keeps its inode), `old` the files removed after the
/// switch, `new` the files created before it, `replaced` the files replaced under their own name
/// before it. Returns whether it was written (nothing to list: no journal).
pub(crate) fn write_journal(journal: &Path, tmp: &Path, old: &[String], new: &[String], replaced: &[String]) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    if old.is_empty() && new.is_empty() && replaced.is_empty() {
        return Ok(false);
    }
    let m = std::fs::metadata(tmp)?;
    let mut text = format!("{} {}\n", m.ino(), m.dev());
    old.iter().for_each(|n| text.push_str(&format!("old\t{n}\n")));
    new.iter().for_each(|n| text.push_str(&format!("new\t{n}\n")));
    replaced.iter().for_each(|n| text.push_str(&format!("replaced\t{n}\n")));
    // Synced: the renames that follow must not reach the disk before it.
    let mut f = File::create(journal)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    Ok(true)
}

impl<'b> SetWriter<'b> {
    /// Start a set whose main file is `main` (links followed once; see the module doc).
    pub fn begin(main: &Path, budget: &'b ByteBudget) -> Result<Self> {
        let real = resolve_links(main)?;
        let existing = match std::fs::metadata(&real) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_err(main, "", e)),
        };
        if let Some(m) = &existing {
            if !m.is_file() {
                return Err(Error::new(ErrorKind::NotRegularFile(format!(
                    "{} (an output of several files is written as files beside a regular file; nothing was written)",
                    kind_name(m)
                )))
                .in_file(main));
            }
        }
        let dir = target_dir(&real, main)?;
        let lock = match &existing {
            Some(_) => Some(lock_existing(&real, main)?),
            None => None,
        };
        // Temporaries of an earlier write of a set of this name killed mid-way (`kill -9`): its
        // sidecars may have had other (`~N`) names than this write picks, so every orphan whose
        // target starts with the main file's stem goes, not only those of the names reused.
        let stem = real.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        remove_orphans(&dir, |t| !stem.is_empty() && t.starts_with(&stem));
        remove_stale_temps(&dir, &real);
        recover_stale(&dir, &real);
        let mut reserved = HashSet::new();
        if let Some(n) = real.file_name() {
            reserved.insert(n.to_string_lossy().into_owned());
        }
        Ok(SetWriter {
            given: main.to_path_buf(),
            main: real,
            dir,
            existing,
            _lock: lock,
            reserved,
            sidecars: Vec::new(),
            main_tmp: None,
            budget,
            owned: None,
        })
    }

    /// Old files named by the old main file are removed after the switch only when their name
    /// starts with `prefix` (default: the main file's stem). For a set whose sidecars are not
    /// named after its main file: `lightmaps.json` naming `lightmap_p0_s0_l0.png`.
    pub fn owning(mut self, prefix: &str) -> Self {
        remove_orphans(&self.dir, |t| !prefix.is_empty() && t.starts_with(prefix));
        self.owned = Some(prefix.to_string());
        self
    }

    /// The directory the set is written in (links of the main path resolved).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The main file's path, links resolved: name the sidecars from this one.
    pub fn path(&self) -> &Path {
        &self.main
    }

    /// The main file's stem (resolved path).
    fn stem(&self) -> String {
        self.main.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// Reserve a sidecar name: `wanted` when no file has it, else the first free `STEM~N.EXT`.
    pub fn name(&mut self, wanted: &str) -> String {
        let (stem, ext) = match wanted.rfind('.') {
            Some(i) if i > 0 => wanted.split_at(i),
            _ => (wanted, ""),
        };
        let free = |c: &str, reserved: &HashSet<String>| {
            !reserved.contains(c)
                && matches!(std::fs::symlink_metadata(self.dir.join(c)), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
        };
        let name = std::iter::once(wanted.to_string())
            .chain((2u64..).map(|n| format!("{stem}~{n}{ext}")))
            .find(|c| free(c, &self.reserved))
            .expect("an unused number exists");
        remove_stale_temps(&self.dir, &self.dir.join(&name));
        self.reserved.insert(name.clone());
        name
    }

    fn stage(
        &self,
        name: &str,
        old: Option<(&Metadata, u32)>,
        produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<Staged> {
        let target = self.dir.join(name);
        let tmp = temp_path(&self.dir, &target);
        let guard = TempGuard::new(&tmp);
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| io_err(&target, &format!("cannot create a file in {}", self.dir.display()), e))?;
        let written = (|| {
            let mut counted = self.budget.counted(&mut f);
            let mut b = std::io::BufWriter::with_capacity(1 << 16, &mut counted);
            produce(&mut b)?;
            b.flush()
        })();
        written.map_err(|e| self.budget.explain(io_err(&target, "cannot write", e)))?;
        set_mode(&f, old).map_err(|e| io_err(&target, "cannot set the mode", e))?;
        Ok(Staged { name: name.to_string(), tmp, guard })
    }

    /// Write a sidecar (its name reserved by [`SetWriter::name`]) to its temporary file.
    pub fn sidecar(&mut self, name: &str, produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<PathBuf> {
        debug_assert!(self.reserved.contains(name));
        let s = self.stage(name, None, produce)?;
        self.sidecars.push(s);
        Ok(self.dir.join(name))
    }

    /// Write the main file to its temporary file (the old one's mode and owner kept).
    pub fn main(&mut self, produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
        let name = self.main.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let old = self.existing.as_ref().map(|m| (m, m.permissions().mode() & 0o7777));
        let s =
            self.stage(&name, old, produce)
                .map_err(|e| if e.path.is_some() { Error { path: Some(self.given.clone()), ..e } } else { e })?;
        self.main_tmp = Some(s);
        Ok(())
    }

    /// Put the set in place (steps 4 and 5 of the module doc). `old_refs` reads the old main
    /// file (called only when there is one) and returns the file names it refers to. Returns
    /// the files of the new set, the main file first.
    pub fn commit(self, old_refs: impl FnOnce(&Path) -> Vec<String>) -> Result<Vec<PathBuf>> {
        let stem = self.owned.clone().unwrap_or_else(|| self.stem());
        let main_tmp = self.main_tmp.ok_or_else(|| Error::malformed("a set without its main file"))?;
        let old = if self.existing.is_some() { old_refs(&self.main) } else { Vec::new() };
        // The old sidecars this write removes after the switch (step 5), journalled first.
        let new: HashSet<&str> = self.reserved.iter().map(String::as_str).collect();
        let mut stale: Vec<String> = Vec::new();
        for name in old {
            if plain_name(&name) && name.starts_with(&stem) && !new.contains(name.as_str()) && !stale.contains(&name) {
                stale.push(name);
            }
        }
        // The journal also names the new sidecars: linked in before a crash that came before
        // the switch, they belong to no set, and the next write removes them.
        let journal = crate::fsio::SetJournal::path_for(&self.dir, &self.main);
        let new_names: Vec<String> = self.sidecars.iter().map(|s| s.name.clone()).collect();
        let journalled = write_journal(&journal, &main_tmp.tmp, &stale, &new_names, &[]).unwrap_or(false);
        let unjournal = || {
            if journalled {
                let _ = std::fs::remove_file(&journal);
            }
        };
        step_done();
        let mut linked: Vec<PathBuf> = Vec::new();
        for s in self.sidecars {
            let dest = self.dir.join(&s.name);
            // A hard link never replaces a file: a name taken since it was chosen is an error.
            let r = std::fs::hard_link(&s.tmp, &dest).or_else(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => Err(e),
                // A file system without hard links: rename, the name was free a moment ago.
                _ if std::fs::symlink_metadata(&dest).is_err() => std::fs::rename(&s.tmp, &dest),
                _ => Err(e),
            });
            if let Err(e) = r {
                for p in &linked {
                    let _ = std::fs::remove_file(p);
                }
                unjournal();
                return Err(io_err(&dest, "cannot put the file in place", e));
            }
            drop(s.guard);
            linked.push(dest);
            step_done();
        }
        std::fs::rename(&main_tmp.tmp, &self.main).map_err(|e| {
            for p in &linked {
                let _ = std::fs::remove_file(p);
            }
            unjournal();
            io_err(&self.given, "cannot replace", e)
        })?;
        main_tmp.guard.disarm();
        step_done();
        for name in &stale {
            let p = self.dir.join(name);
            if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
                let _ = std::fs::remove_file(&p);
                step_done();
            }
        }
        unjournal();
        let mut files = vec![self.main.clone()];
        files.extend(linked);
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bspkit-set-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    /// One set after another: the second takes `~2` names, the first set's sidecar goes once
    /// the main file names the new ones; a failed third leaves the second whole.
    #[test]
    fn sets_replace_sets_and_failures_leave_the_old_one() {
        let d = dir("replace");
        let main = d.join("e.txt");
        let budget = ByteBudget::default();
        let write = |body: &str| -> Result<()> {
            let mut s = SetWriter::begin(&main, &budget)?;
            let n = s.name("e.bin");
            s.sidecar(&n, |w| w.write_all(body.as_bytes()))?;
            s.main(|w| w.write_all(n.as_bytes()))?;
            s.commit(|p| vec![std::fs::read_to_string(p).unwrap()])?;
            Ok(())
        };
        write("one").unwrap();
        assert_eq!(names(&d), ["e.bin", "e.txt"]);
        write("two").unwrap();
        assert_eq!(names(&d), ["e.txt", "e~2.bin"]);
        assert_eq!(std::fs::read_to_string(d.join("e~2.bin")).unwrap(), "two");
        write("three").unwrap();
        assert_eq!(names(&d), ["e.bin", "e.txt"]);
        // Over budget while staging: the old set stays, no temporary left.
        let small = ByteBudget::new(4);
        let mut s = SetWriter::begin(&main, &small).unwrap();
        let n = s.name("e.bin");
        let err = s.sidecar(&n, |w| w.write_all(b"too long")).err().unwrap();
        assert!(matches!(err.kind, ErrorKind::LimitExceeded { what: BUDGET_WRITTEN, .. }), "{err}");
        drop(s);
        assert_eq!(names(&d), ["e.bin", "e.txt"]);
        assert_eq!(std::fs::read_to_string(d.join("e.bin")).unwrap(), "three");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Through a link the set goes beside the link's target; a FIFO main is refused before
    /// anything is written.
    #[test]
    fn links_are_resolved_once_and_fifos_refused() {
        let d = dir("links");
        std::fs::create_dir_all(d.join("real")).unwrap();
        std::fs::write(d.join("real/t.txt"), b"old").unwrap();
        std::os::unix::fs::symlink("real/t.txt", d.join("link.txt")).unwrap();
        let budget = ByteBudget::default();
        let mut s = SetWriter::begin(&d.join("link.txt"), &budget).unwrap();
        assert_eq!(s.path(), d.join("real/t.txt"));
        let n = s.name("t.bin");
        s.sidecar(&n, |w| w.write_all(b"x")).unwrap();
        s.main(|w| w.write_all(b"new")).unwrap();
        s.commit(|_| Vec::new()).unwrap();
        assert_eq!(names(&d.join("real")), ["t.bin", "t.txt"]);
        assert!(std::fs::symlink_metadata(d.join("link.txt")).unwrap().file_type().is_symlink());
        let fifo = d.join("f.txt");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = SetWriter::begin(&fifo, &budget).err().unwrap();
        assert_eq!(err.kind.name(), "not_regular_file");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
