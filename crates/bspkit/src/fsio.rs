//! Opening input files safely: only regular files are read (a FIFO would block forever, a link
//! to `/dev/zero` would never end), the type is checked on the opened descriptor (`fstat`, so
//! the file cannot be swapped between the check and the read), and a read never goes past the
//! size seen at open time or a caller's limit.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};

/// Marker in the names of the write primitive's temporary files: `.NAME.bspkit-tmp-PID-N`
/// beside the target `NAME` ([`crate::write::atomic`]).
pub const TEMP_MARK: &str = ".bspkit-tmp-";

/// A temporary file of a bspkit write whose process is gone: left by a `kill -9`, a crash or a
/// power cut between its creation and its rename (a write stopped by SIGINT/SIGTERM/SIGHUP or an
/// error removes its own). The target it was for is as it was before that write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrphanTemp {
    pub path: PathBuf,
    /// The file name it would have replaced.
    pub target: String,
    /// The process that wrote it (no longer running).
    pub pid: i32,
}

/// The orphaned temporary files in `dir` whose target name satisfies `wanted`. A file whose
/// process still runs is not listed (it may be being written); neither is anything but a
/// regular file.
pub fn orphan_temps(dir: &Path, wanted: impl Fn(&str) -> bool) -> Vec<OrphanTemp> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found = Vec::new();
    for e in rd.flatten() {
        let fname = e.file_name().to_string_lossy().into_owned();
        let Some(inner) = fname.strip_prefix('.') else { continue };
        let Some(at) = inner.rfind(TEMP_MARK) else { continue };
        let (target, rest) = (&inner[..at], &inner[at + TEMP_MARK.len()..]);
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i32>().ok()) else { continue };
        if pid <= 0 || pid as u32 == std::process::id() || target.is_empty() || !wanted(target) {
            continue;
        }
        // SAFETY: signal 0 only checks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && e.file_type().map(|t| t.is_file()).unwrap_or(false) {
            found.push(OrphanTemp { path: e.path(), target: target.to_string(), pid });
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// Suffix of a set write's journal: `.MAIN.bspkit-stale` beside the set's main file `MAIN`
/// (a `.gltf`, a Respawn `.bsp`), written before the write's switch and removed when it is done
/// ([`crate::write::set`], [`crate::mapset`]).
pub const STALE_MARK: &str = ".bspkit-stale";

/// A set write's journal left beside `main` by a write that stopped on its way (a crash, `kill
/// -9`). Its first line is the inode and device of the main file that write put in place, then
/// one line per file: `old\tNAME` (a file of the set before the write, removed after the switch),
/// `new\tNAME` (a file the write created, linked in before the switch) or `replaced\tNAME` (a
/// file of the set the write replaces under its own name before the switch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetJournal {
    pub path: PathBuf,
    /// The main file on disk is the one the write put in place: the switch happened.
    pub switched: bool,
    pub old: Vec<String>,
    pub new: Vec<String>,
    pub replaced: Vec<String>,
}

/// A plain file name in the same directory (a set's sidecars, the names its journal lists): no
/// separator, not `.`/`..`, no URI scheme or escape.
pub fn plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', ':', '%', '\0'])
}

impl SetJournal {
    /// Where the journal of the set whose main file is `main` lives: `.MAIN.bspkit-stale` in `dir`.
    pub fn path_for(dir: &Path, main: &Path) -> PathBuf {
        let name = main.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        dir.join(format!(".{name}{STALE_MARK}"))
    }

    /// The journal beside `main` in `dir`, if there is one (a regular file).
    pub fn find(dir: &Path, main: &Path) -> Option<SetJournal> {
        use std::os::unix::fs::MetadataExt;
        let name = main.file_name()?.to_string_lossy().into_owned();
        let path = Self::path_for(dir, main);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return None;
        }
        // A journal is a few names; a larger one was not written by a set write.
        let text = read_regular(&path, 1 << 20, "set journal").ok()?;
        let text = String::from_utf8_lossy(&text);
        let mut lines = text.lines();
        let id = lines.next().unwrap_or("");
        let switched = std::fs::metadata(main).is_ok_and(|m| id == format!("{} {}", m.ino(), m.dev()));
        let plain = |n: &str| plain_name(n) && n != name;
        let (mut old, mut new, mut replaced) = (Vec::new(), Vec::new(), Vec::new());
        for (kind, n) in lines.filter_map(|l| l.split_once('\t')).filter(|(_, n)| plain(n)) {
            match kind {
                "old" => old.push(n.to_string()),
                "new" => new.push(n.to_string()),
                "replaced" => replaced.push(n.to_string()),
                _ => {}
            }
        }
        Some(SetJournal { path, switched, old, new, replaced })
    }

    /// Before the switch, the files it lists as replaced under their own name that already
    /// are the write's (modified after the journal was written, which precedes every one of
    /// the write's temporaries): the set on disk mixes them with the old main file. Their old
    /// bytes are gone, so no reader can leave them out; `check` reports them and the next
    /// write of the set makes it whole again. Empty once the switch happened.
    pub fn replaced_before_switch(&self, dir: &Path) -> Vec<String> {
        let time = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let Some(written) = time(&self.path) else { return Vec::new() };
        if self.switched {
            return Vec::new();
        }
        self.replaced.iter().filter(|n| time(&dir.join(n)).is_some_and(|t| t >= written)).cloned().collect()
    }

    /// The files it lists that are no part of the set on disk: the old set's files once the
    /// switch happened, else the files the stopped write created (the old set names none of
    /// them). A reader leaves them out; the next write of the set removes them.
    pub fn not_in_set(&self) -> &[String] {
        if self.switched {
            &self.old
        } else {
            &self.new
        }
    }
}

/// What kind of non-regular file `m` describes, for messages.
pub fn kind_name(m: &Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

/// Open `path` for reading if it is a regular file (symbolic links followed). Opened with
/// `O_NONBLOCK` so that a FIFO does not block the open; the type is then checked on the
/// descriptor and anything but a regular file is [`ErrorKind::NotRegularFile`].
pub fn open_regular(path: &Path) -> Result<(File, Metadata)> {
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(|e| Error::from(e).in_file(path))?;
    let m = f.metadata().map_err(|e| Error::from(e).in_file(path))?;
    if !m.is_file() {
        return Err(Error::new(ErrorKind::NotRegularFile(kind_name(&m).into())).in_file(path));
    }
    Ok((f, m))
}

/// Read a regular file whole, refusing one larger than `max` bytes
/// ([`ErrorKind::LimitExceeded`] naming `what`). Reads at most the size seen at open (a file
/// growing meanwhile is cut there).
pub fn read_regular(path: &Path, max: u64, what: &'static str) -> Result<Vec<u8>> {
    let (f, m) = open_regular(path)?;
    let len = m.len();
    if len > max {
        return Err(Error::new(ErrorKind::LimitExceeded { what, requested: len, limit: max }).in_file(path));
    }
    read_opened(f, len, path)
}

/// Read at most `len` bytes of an opened file (the size it had at open).
pub fn read_opened(f: File, len: u64, path: &Path) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    read_opened_into(f, len, path, &mut out)?;
    Ok(out)
}

/// [`read_opened`], appending to `out`.
pub fn read_opened_into(f: File, len: u64, path: &Path, out: &mut Vec<u8>) -> Result<()> {
    out.reserve(len as usize);
    f.take(len).read_to_end(out).map_err(|e| Error::from(e).in_file(path))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_and_limits_are_refused() {
        let d = std::env::temp_dir().join(format!("bspkit-fsio-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        assert_eq!(read_regular(&d, 10, "x").unwrap_err().kind.name(), "not_regular_file");
        let f = d.join("f");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_regular(&f, 10, "x").unwrap(), b"12345");
        assert_eq!(read_regular(&f, 4, "x").unwrap_err().kind.name(), "limit_exceeded");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
