//! The one write primitive of the library and the `bsp` tool: every file bspkit writes goes
//! through [`write_file`] (bytes in memory) or [`write_streaming`] (a closure writing into the
//! file). What it promises, whatever the target is:
//!
//! - **Regular file (or none yet):** the data goes to a temporary file beside the target
//!   (`.NAME.bspkit-tmp-PID-N`, created 0600), is synced, then renamed over the target and the
//!   directory synced: readers see the old file or the new one, never a mix. (With
//!   [`WriteOptions::no_sync`], used for derived outputs such as exports, the two syncs are
//!   skipped: the rename is still atomic for readers, but after a power loss the new file may be
//!   empty, as with a compiler's output.) The new file keeps
//!   the old one's permission bits (and owner and group when the process may set them, i.e. as
//!   root); a new file gets `0666` less the umask, as `cp` would.
//! - **Symbolic link:** followed (up to 40 links); the file the link names is written and the
//!   link stays a link, like `cp` and `sed -i --follow-symlinks`. A dangling link creates the
//!   file it names.
//! - **FIFO or character device** (`/dev/null`, `/dev/stdout`, a terminal): written through in
//!   place, never replaced by a rename. No temporary file, so no atomicity. A FIFO that no
//!   process reads is refused at once (an `io` error), not waited on.
//! - **Directory, socket, block device:** refused ([`ErrorKind::NotRegularFile`]).
//! - **Permissions:** the target is opened for writing first (no truncation), so a file the
//!   user could not open for writing is refused as `cp` refuses it, instead of being replaced
//!   by the rename (the directory's permission would otherwise be all that counts). As root
//!   every regular file is writable, as for `cp`.
//! - **Hard links:** the rename gives the path a new inode; the other names keep the old
//!   contents. [`Written::other_links`] says how many names were left behind, so a caller can
//!   warn.
//! - **Concurrent writers:** an exclusive `flock` on the target is held from the check to the
//!   rename, and [`WriteOptions::expect`] (the [`Fingerprint`] of the file when it was read)
//!   is compared under that lock: a target changed since it was read is refused with
//!   [`ErrorKind::Changed`] instead of one edit silently overwriting the other.
//! - **Errors** name the target path the caller gave, never the temporary file. The temporary
//!   file is removed on every error, on SIGINT/SIGTERM/SIGHUP once [`install_signal_cleanup`]
//!   ran (the `bsp` tool calls it), and on a file-size limit (SIGXFSZ is ignored by that call,
//!   so the write fails with EFBIG and is cleaned up). A temporary file left by a process that
//!   no longer exists (`kill -9`, power loss) is removed by the next write to the same target.
//!
//! Written with `libc` directly for `flock`, `kill(pid, 0)` and the signal handler: the handler
//! must be async-signal-safe (only `unlink`, `signal` and `raise`), which excludes the usual
//! channel-based crates.

use std::ffi::CString;
use std::fs::{File, Metadata, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{kind_name, TEMP_MARK};

/// Environment variable used only by tests: when set, the write stops the process right after
/// the temporary file is written and synced, before the rename, as a crash would.
pub const ABORT_HOOK_ENV: &str = "BSPKIT_TEST_ABORT_BEFORE_RENAME";
/// Environment variable used only by tests: when set to a path, the write creates that file
/// once the temporary file is written, then waits up to 60 s before the rename (so a test can
/// signal the process at a known point).
pub const PAUSE_HOOK_ENV: &str = "BSPKIT_TEST_PAUSE_BEFORE_RENAME";

/// What identifies the contents of a file without reading it: device, inode, size and
/// modification time (nanoseconds). Taken when a map is read and compared before the rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
}

impl Fingerprint {
    pub fn of_metadata(m: &Metadata) -> Self {
        Fingerprint { dev: m.dev(), ino: m.ino(), size: m.size(), mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128 }
    }
    /// The fingerprint of the file at `path` (symbolic links followed); `None` if there is none.
    pub fn of_path(path: &Path) -> Option<Self> {
        std::fs::metadata(path).ok().map(|m| Self::of_metadata(&m))
    }
}

/// Options of a write.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The target as it was when its contents were read (for an in-place edit): the write is
    /// refused with [`ErrorKind::Changed`] if the file at the target is no longer that one.
    pub expect: Option<Fingerprint>,
    /// Skip the `fsync` of the file and of its directory. For outputs that can be made again
    /// from their input (glTF/OBJ exports, PNG pictures): readers still see the old file or
    /// the new one, but the new contents are not forced to disk before the call returns, which
    /// on small outputs costs more than the whole export. Maps written by edits keep the syncs.
    pub no_sync: bool,
}

impl WriteOptions {
    /// The options of an output made from a map (an export, a picture): no fingerprint to
    /// compare, not synced ([`WriteOptions::no_sync`]).
    pub const OUTPUT: WriteOptions = WriteOptions { expect: None, no_sync: true };
}

/// What a successful write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file actually written (the target with symbolic links resolved).
    pub path: PathBuf,
    /// Written through in place (FIFO, character device) rather than replaced by a rename.
    pub in_place: bool,
    /// Other hard links of the replaced file, which keep the old contents (0 for none).
    pub other_links: u64,
}

pub(super) fn io_err(target: &Path, what: &str, e: std::io::Error) -> Error {
    let msg = if what.is_empty() { e.to_string() } else { format!("{what}: {e}") };
    Error::new(ErrorKind::Io(msg)).in_file(target)
}

fn not_regular(target: &Path, what: &str) -> Error {
    Error::new(ErrorKind::NotRegularFile(what.to_string())).in_file(target)
}

/// Follow symbolic links from `target` (at most 40) to the path of the file they name.
pub fn resolve_links(target: &Path) -> Result<PathBuf> {
    let mut p = target.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p).map_err(|e| io_err(target, "cannot read the symbolic link", e))?;
                p = if link.is_absolute() { link } else { p.parent().map(|d| d.join(&link)).unwrap_or(link) };
            }
            _ => return Ok(p),
        }
    }
    Err(Error::new(ErrorKind::Io("too many levels of symbolic links".into())).in_file(target))
}

/// Write `bytes` to `target` as the module documentation says.
pub fn write_file(target: &Path, bytes: &[u8], opts: &WriteOptions) -> Result<Written> {
    write_streaming(target, opts, |w| w.write_all(bytes), |_| Ok(()))
}

/// Write to `target` what `produce` writes into the file, as the module documentation says.
/// `verify` is called with the temporary file's path once it is written and synced, before
/// the rename (an error there leaves the target alone); it is not called for FIFOs and
/// devices, which are written through.
pub fn write_streaming(
    target: &Path,
    opts: &WriteOptions,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    verify: impl FnOnce(&Path) -> Result<()>,
) -> Result<Written> {
    let real = resolve_links(target)?;
    let existing = match std::fs::metadata(&real) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err(target, "", e)),
    };
    if let Some(m) = &existing {
        let t = m.file_type();
        if t.is_fifo() || t.is_char_device() {
            return write_through(target, &real, produce);
        }
        if !t.is_file() {
            return Err(not_regular(target, kind_name(m)));
        }
    }
    let dir = target_dir(&real, target)?;
    let lock = match &existing {
        Some(_) => Some(lock_existing(&real, target)?),
        None => None,
    };
    if let Some(want) = opts.expect {
        let now = Fingerprint::of_path(&real);
        if now != Some(want) {
            return Err(Error::new(ErrorKind::Changed).in_file(target));
        }
    }
    remove_stale_temps(&dir, &real);
    let tmp = temp_path(&dir, &real);
    let guard = TempGuard::new(&tmp);
    let mode = existing.as_ref().map(|m| m.permissions().mode() & 0o7777);
    let result = (|| -> Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| io_err(target, &format!("cannot create a file in {}", dir.display()), e))?;
        produce(&mut f).map_err(|e| io_err(target, "cannot write", e))?;
        if !opts.no_sync {
            f.sync_all().map_err(|e| io_err(target, "cannot write", e))?;
        }
        set_mode(&f, existing.as_ref().zip(mode)).map_err(|e| io_err(target, "cannot set the mode", e))?;
        drop(f);
        if std::env::var_os(ABORT_HOOK_ENV).is_some() {
            std::process::abort();
        }
        if let Some(flag) = std::env::var_os(PAUSE_HOOK_ENV) {
            let _ = std::fs::write(&flag, b"");
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
        verify(&tmp)
            .map_err(|e| if e.path.as_deref() == Some(tmp.as_path()) { Error { path: Some(target.to_path_buf()), ..e } } else { e })?;
        // Checked again under the lock right before the rename: nothing can slip in between
        // (other bspkit writers wait for the lock).
        if let Some(want) = opts.expect {
            if Fingerprint::of_path(&real) != Some(want) {
                return Err(Error::new(ErrorKind::Changed).in_file(target));
            }
        }
        std::fs::rename(&tmp, &real).map_err(|e| io_err(target, "cannot replace", e))?;
        Ok(())
    })();
    if let Err(e) = result {
        drop(guard);
        return Err(e);
    }
    guard.disarm();
    if !opts.no_sync {
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
    }
    drop(lock);
    let other_links = existing.as_ref().map(|m| m.nlink().saturating_sub(1)).unwrap_or(0);
    Ok(Written { path: real, in_place: false, other_links })
}

/// Give a temporary file the replaced file's owner, group and mode (`old`: its metadata and
/// permission bits), or `0666` less the umask for a new file.
/// The folder `real` (a target with its links resolved) is written into: its parent, which must
/// be a directory; errors name `target`, the path the user gave.
pub(super) fn target_dir(real: &Path, target: &Path) -> Result<PathBuf> {
    let dir = match real.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(dir),
        Ok(_) => Err(Error::new(ErrorKind::Io(format!("{} is not a directory", dir.display()))).in_file(target)),
        Err(e) => Err(io_err(target, &format!("cannot write into {}", dir.display()), e)),
    }
}

/// The existing file `real` opened for writing (never truncating: the permission check `cp`
/// makes) and locked, so other bspkit writers wait until this one has finished.
pub(super) fn lock_existing(real: &Path, target: &Path) -> Result<File> {
    let f = OpenOptions::new().write(true).open(real).map_err(|e| io_err(target, "cannot open for writing", e))?;
    // SAFETY: flock on a descriptor we own; blocks until other bspkit writers finish.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io_err(target, "cannot lock", std::io::Error::last_os_error()));
    }
    Ok(f)
}

pub(super) fn set_mode(f: &File, old: Option<(&Metadata, u32)>) -> std::io::Result<()> {
    match old {
        Some((m, mode)) => {
            // Owner first: chown clears set-id bits, which the mode then restores.
            if m.uid() != current_uid() || m.gid() != current_gid() {
                let _ = std::os::unix::fs::fchown(f, Some(m.uid()), Some(m.gid()));
            }
            f.set_permissions(std::fs::Permissions::from_mode(mode))
        }
        None => f.set_permissions(std::fs::Permissions::from_mode(0o666 & !umask())),
    }
}

fn write_through(target: &Path, real: &Path, produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<Written> {
    // No O_CREAT, no O_TRUNC: the node stays what it is. O_NONBLOCK so that a FIFO without a
    // reader is refused at once (ENXIO) instead of blocking the open forever; the writes then
    // block as usual (the flag is cleared).
    let mut f = OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(real).map_err(|e| {
        if e.raw_os_error() == Some(libc::ENXIO) {
            Error::new(ErrorKind::Io("a FIFO with no reader: nothing was written (start the reader first)".into())).in_file(target)
        } else {
            io_err(target, "cannot open for writing", e)
        }
    })?;
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
        if flags == -1 || libc::fcntl(f.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK) == -1 {
            return Err(io_err(target, "cannot open for writing", std::io::Error::last_os_error()));
        }
    }
    produce(&mut f).map_err(|e| io_err(target, "cannot write", e))?;
    f.flush().map_err(|e| io_err(target, "cannot write", e))?;
    Ok(Written { path: real.to_path_buf(), in_place: true, other_links: 0 })
}

fn current_uid() -> u32 {
    // SAFETY: getuid/getgid cannot fail.
    unsafe { libc::getuid() }
}
fn current_gid() -> u32 {
    unsafe { libc::getgid() }
}
fn umask() -> u32 {
    // SAFETY: umask is read by setting it and setting it back (no other thread sets it here).
    unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m as u32
    }
}

pub(super) fn temp_path(dir: &Path, real: &Path) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = real.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    dir.join(format!(".{name}{TEMP_MARK}{}-{n}", std::process::id()))
}

/// Remove `.NAME.bspkit-tmp-PID-N` files of this target whose process is gone.
pub(super) fn remove_stale_temps(dir: &Path, real: &Path) {
    let Some(name) = real.file_name().map(|n| n.to_string_lossy().into_owned()) else { return };
    remove_orphans(dir, |t| t == name);
}

/// Remove the orphaned temporary files in `dir` whose target name satisfies `wanted`
/// ([`crate::fsio::orphan_temps`]).
pub(super) fn remove_orphans(dir: &Path, wanted: impl Fn(&str) -> bool) {
    for t in crate::fsio::orphan_temps(dir, wanted) {
        let _ = std::fs::remove_file(&t.path);
    }
}

/// Temporary files being written, for the signal handler: C strings it can `unlink` without
/// allocating or locking.
const SLOTS: usize = 64;
static PENDING: [AtomicPtr<libc::c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// Removes the temporary file when dropped, unless disarmed; registered with the handler.
pub(super) struct TempGuard {
    path: PathBuf,
    slot: Option<usize>,
}

impl TempGuard {
    pub(super) fn new(path: &Path) -> Self {
        let mut slot = None;
        if let Ok(c) = CString::new(path.as_os_str().as_bytes()) {
            let raw = c.into_raw();
            for (i, s) in PENDING.iter().enumerate() {
                if s.compare_exchange(std::ptr::null_mut(), raw, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                    slot = Some(i);
                    break;
                }
            }
            if slot.is_none() {
                // SAFETY: `raw` came from `into_raw` above and was not stored.
                drop(unsafe { CString::from_raw(raw) });
            }
        }
        TempGuard { path: path.to_path_buf(), slot }
    }
    fn release(&mut self) {
        if let Some(i) = self.slot.take() {
            let raw = PENDING[i].swap(std::ptr::null_mut(), Ordering::SeqCst);
            if !raw.is_null() {
                // SAFETY: the pointer was made by `into_raw` in `new` and is no longer shared.
                drop(unsafe { CString::from_raw(raw) });
            }
        }
    }
    pub(super) fn disarm(mut self) {
        self.release();
        self.path = PathBuf::new();
    }
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        self.release();
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    for s in PENDING.iter() {
        let p = s.load(Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: unlink is async-signal-safe; `p` is a live NUL-terminated string.
            unsafe { libc::unlink(p) };
        }
    }
    // SAFETY: back to the default action and re-raised, so the process ends as the signal says.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// For programs (the `bsp` tool calls it first): remove temporary files being written when
/// SIGINT, SIGTERM or SIGHUP arrives (then die of that signal as before), and ignore SIGXFSZ so
/// that a file-size limit makes the write fail with an error (and clean up) instead of killing
/// the process. A library user that handles these signals itself should not call it.
pub fn install_signal_cleanup() {
    // SAFETY: installing plain handlers; `on_signal` only calls async-signal-safe functions.
    unsafe {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::signal(sig, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        }
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// A user path: `-` stands for standard output in the `bsp` tool.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bspkit-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn failures_leave_the_target_and_no_temp() {
        let d = dir("fail");
        let t = d.join("t.bsp");
        std::fs::write(&t, b"old").unwrap();
        let err = write_streaming(&t, &WriteOptions::default(), |w| w.write_all(b"new"), |_| Err(Error::malformed("no"))).unwrap_err();
        assert!(err.to_string().contains("no"));
        assert_eq!(std::fs::read(&t).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        write_file(&t, b"new", &WriteOptions::default()).unwrap();
        assert_eq!(std::fs::read(&t).unwrap(), b"new");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn changed_target_is_refused() {
        let d = dir("changed");
        let t = d.join("t.bsp");
        std::fs::write(&t, b"one").unwrap();
        let fp = Fingerprint::of_path(&t).unwrap();
        std::fs::write(&t, b"other!").unwrap();
        let err = write_file(&t, b"two", &WriteOptions { expect: Some(fp), ..Default::default() }).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Changed);
        assert_eq!(std::fs::read(&t).unwrap(), b"other!");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn stale_temps_of_dead_processes_are_removed() {
        let d = dir("stale");
        let t = d.join("t.bsp");
        // A pid far above pid_max's default cannot be alive.
        let stale = d.join(format!(".t.bsp{TEMP_MARK}2147483000-0"));
        std::fs::write(&stale, b"x").unwrap();
        let other = d.join(format!(".u.bsp{TEMP_MARK}2147483000-0"));
        std::fs::write(&other, b"x").unwrap();
        write_file(&t, b"new", &WriteOptions::default()).unwrap();
        assert!(!stale.exists());
        assert!(other.exists(), "another target's temporary file is not touched");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
