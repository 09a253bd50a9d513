//! Typed errors. Every error raised while reading a map names the file, the lump and the
//! byte offset it concerns (where those are known), so that a user can find the damage.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, without the location.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read (the operating system's message).
    Io(String),
    /// The data ends before a structure that must be there.
    Truncated { needed: u64, available: u64 },
    /// The first bytes match no format this library knows.
    UnknownFormat { seen: String },
    /// The magic is known but this version is not.
    UnsupportedVersion { magic: String, version: i64 },
    /// A `--branch` name that is not in the registry.
    UnknownBranch(String),
    /// A lump's directory entry points outside the file.
    LumpOutOfBounds { offset: i64, length: i64, file_size: u64 },
    /// A fixed-record lump whose length is not a multiple of its record size.
    BadLumpLength { length: u64, record_size: usize },
    /// There is no lump with this index or name in the branch.
    NoSuchLump(String),
    /// A compressed lump could not be decompressed.
    Decompress(String),
    /// A structure inside a lump is malformed (the message says how).
    Malformed(String),
    /// A size limit that protects against hostile input was exceeded.
    LimitExceeded { what: &'static str, requested: u64, limit: u64 },
    /// The system refused an allocation of `bytes` for `what` (a fallible allocation: the
    /// command stops with this error instead of aborting).
    OutOfMemory { what: &'static str, bytes: u64 },
    /// An archive entry name that would write outside the target directory.
    UnsafePath(String),
    /// The file to write was changed by someone else since it was read (an in-place edit that
    /// would have lost the other change).
    Changed,
    /// A path names something that is not a regular file where one is needed (a directory,
    /// FIFO, socket or device); the text says what it is.
    NotRegularFile(String),
    /// A written map has `check` problems its source did not have (all of them; the message
    /// shows the first ten and the count).
    NewProblems(Vec<String>),
    /// A conversion this library cannot do (the text says which and why).
    Unsupported(String),
    /// A conversion refused under `strict` because it would lose data (every loss listed).
    Lossy(Vec<String>),
}

/// An error with its location: file, lump and byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub path: Option<PathBuf>,
    pub lump: Option<String>,
    pub offset: Option<u64>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind) -> Self {
        Error { kind, path: None, lump: None, offset: None }
    }
    pub fn malformed(msg: impl Into<String>) -> Self {
        Error::new(ErrorKind::Malformed(msg.into()))
    }
    pub fn truncated(needed: u64, available: u64) -> Self {
        Error::new(ErrorKind::Truncated { needed, available })
    }
    /// Attach a lump name (kept if one is already set: the innermost is the most precise).
    pub fn in_lump(mut self, lump: impl Into<String>) -> Self {
        if self.lump.is_none() {
            self.lump = Some(lump.into());
        }
        self
    }
    /// Attach a byte offset (kept if one is already set).
    pub fn at(mut self, offset: u64) -> Self {
        if self.offset.is_none() {
            self.offset = Some(offset);
        }
        self
    }
    /// Attach the file path if there is one (kept if one is already set).
    pub fn in_file_opt(self, path: Option<&Path>) -> Self {
        match path {
            Some(p) => self.in_file(p),
            None => self,
        }
    }
    /// Attach the file path (kept if one is already set).
    pub fn in_file(mut self, path: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }
}

impl ErrorKind {
    /// A stable name for the kind (`bsp scan --json`'s `error.kind`, listed in README.md).
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::Io(_) => "io",
            ErrorKind::Truncated { .. } => "truncated",
            ErrorKind::UnknownFormat { .. } => "unknown_format",
            ErrorKind::UnsupportedVersion { .. } => "unsupported_version",
            ErrorKind::UnknownBranch(_) => "unknown_branch",
            ErrorKind::LumpOutOfBounds { .. } => "lump_out_of_bounds",
            ErrorKind::BadLumpLength { .. } => "bad_lump_length",
            ErrorKind::NoSuchLump(_) => "no_such_lump",
            ErrorKind::Decompress(_) => "decompress",
            ErrorKind::Malformed(_) => "malformed",
            ErrorKind::LimitExceeded { .. } => "limit_exceeded",
            ErrorKind::OutOfMemory { .. } => "out_of_memory",
            ErrorKind::UnsafePath(_) => "unsafe_path",
            ErrorKind::Changed => "changed",
            ErrorKind::NotRegularFile(_) => "not_regular_file",
            ErrorKind::NewProblems(_) => "new_problems",
            ErrorKind::Unsupported(_) => "unsupported",
            ErrorKind::Lossy(_) => "lossy",
        }
    }
}

/// How many problems an [`ErrorKind::NewProblems`] message shows.
pub const SHOWN_PROBLEMS: usize = 10;

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(m) => write!(f, "{m}"),
            ErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} available")
            }
            ErrorKind::UnknownFormat { seen } => write!(
                f,
                "not a known BSP format (first bytes {seen}); supported: int 29/30/42, BSP2, 2PSB, \" 46Q\", IBSP 4/22/38/41/46/47/58/59, QBSP 38, RBSP 1, FBSP 1, FAKK 12/42, EF2! 20, 2015/EALA 17-21, VBSP/PSBV 17-25/27/42/100, rBSP, PSBr 29, GBSP"
            ),
            ErrorKind::UnsupportedVersion { magic, version } => {
                write!(f, "{magic} version {version} is not supported")
            }
            ErrorKind::UnknownBranch(b) => write!(f, "unknown branch '{b}' (see `bsp formats`)"),
            ErrorKind::LumpOutOfBounds { offset, length, file_size } => write!(
                f,
                "lump range {offset}+{length} lies outside the file ({file_size} bytes)"
            ),
            ErrorKind::BadLumpLength { length, record_size } => write!(
                f,
                "lump length {length} is not a multiple of the record size {record_size}"
            ),
            // A lump name is one word; a longer text names something else that is missing (a
            // pakfile entry, a model's node tree) and is printed as it is, not as
            // "no lump pakfile entry X in this branch".
            ErrorKind::NoSuchLump(l) if l.split_whitespace().nth(1).is_some() => write!(f, "no {l}"),
            ErrorKind::NoSuchLump(l) => write!(f, "no lump {l} in this branch"),
            ErrorKind::Decompress(m) => write!(f, "decompression failed: {m}"),
            ErrorKind::Malformed(m) => write!(f, "{m}"),
            ErrorKind::LimitExceeded { what, requested, limit } => {
                write!(f, "{what}: {requested} exceeds the limit of {limit}")
            }
            ErrorKind::OutOfMemory { what, bytes } => write!(f, "out of memory: {bytes} bytes for {what} could not be allocated"),
            ErrorKind::UnsafePath(p) => write!(f, "refusing entry path {p:?}: it leaves the target directory"),
            ErrorKind::Changed => {
                write!(f, "the file changed since it was read (another program wrote it); nothing was written, run the command again")
            }
            ErrorKind::NotRegularFile(what) => write!(f, "is {what}, not a regular file"),
            ErrorKind::NewProblems(list) => {
                let n = list.len();
                if n <= SHOWN_PROBLEMS {
                    write!(f, "the written map has new problems ({n}): {}", list.join("; "))
                } else {
                    write!(
                        f,
                        "the written map has new problems ({n}), first {SHOWN_PROBLEMS}: {} (… {} more; --json lists all)",
                        list[..SHOWN_PROBLEMS].join("; "),
                        n - SHOWN_PROBLEMS
                    )
                }
            }
            ErrorKind::Unsupported(m) => write!(f, "unsupported: {m}"),
            ErrorKind::Lossy(list) => {
                write!(f, "the conversion would lose data ({}): {}; nothing was written", list.len(), list.join("; "))
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{}: ", p.display())?;
        }
        if let Some(l) = &self.lump {
            write!(f, "lump {l}: ")?;
        }
        if let Some(o) = self.offset {
            write!(f, "offset {o}: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e.to_string()))
    }
}
