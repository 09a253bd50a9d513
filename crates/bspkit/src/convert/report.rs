//! The types of a conversion: its options and its report (JSON schema in README "bsp convert").

use serde::Serialize;

use crate::branch::Branch;
use crate::bytes::Endian;

/// Version of the report's JSON schema (README "bsp convert").
pub const REPORT_SCHEMA: u32 = 1;

/// LZMA for the target's lumps (Source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lzma {
    /// Little-endian (PC) targets: every lump stored plain; big-endian (console) targets: each
    /// lump (and game lump child) compressed where the source had it compressed.
    #[default]
    Auto,
    /// Each lump compressed where the source had it compressed.
    Keep,
    /// Every lump but the game lump and the pakfile compressed (game lump children one by one).
    On,
    /// Every lump and game lump child stored plain.
    Off,
}

/// What to convert to.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// The target branch (an id of `bsp formats`).
    pub to: &'static Branch,
    /// The target byte order; `None` keeps the source's.
    pub endian: Option<Endian>,
    pub lzma: Lzma,
    /// Source: the static prop (`sprp`) game lump version to write; `None` keeps the source's
    /// where the target reads it (into CS:GO: always 11), else the target's newest
    /// ([`super::source_version`]).
    pub static_props: Option<u16>,
}

/// One side of a conversion.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Side {
    pub branch: &'static str,
    pub version: u32,
    pub endian: &'static str,
}

/// What was lost, and where.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Loss {
    /// The lump's index, where the loss is a lump's.
    pub index: Option<usize>,
    /// The lump's name (game lump children: `GAME_LUMP/sprp`; pakfile entries: `PAKFILE/NAME`).
    pub lump: Option<String>,
    /// `dropped` (not in the output), `kept_unconverted` (copied as it was: the target reads it
    /// as the source's form), `defaulted` (a field given the target's default), `truncated`
    /// (records or values that do not fit), `target_note` (a `check` note of the output that the
    /// source's check lacks: how the target's engines treat it).
    pub kind: &'static str,
    pub message: String,
}

impl std::fmt::Display for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.lump {
            Some(l) => write!(f, "{l}: {} ({})", self.message, self.kind),
            None => write!(f, "{} ({})", self.message, self.kind),
        }
    }
}

/// What happened to one lump.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct LumpAction {
    pub index: usize,
    pub name: &'static str,
    /// `swapped` (byte order changed field by field), `copied` (no multi-byte fields),
    /// `converted` (records rewritten in the target's layout), `rebuilt` (game lump), `dropped`.
    pub action: &'static str,
    /// Bytes of the lump's data (decompressed) in the source and in the output.
    pub source_bytes: u64,
    pub target_bytes: u64,
    /// Stored LZMA-compressed in the source / in the output.
    pub source_lzma: bool,
    pub target_lzma: bool,
}

/// The report of one conversion (JSON schema in README "bsp convert").
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Report {
    pub schema: u32,
    pub from: Side,
    pub to: Side,
    pub lossless: bool,
    pub losses: Vec<Loss>,
    pub lumps: Vec<LumpAction>,
    /// Bytes of the output.
    pub size: u64,
}

impl Report {
    pub(crate) fn new(from: Side, to: Side) -> Self {
        Report { schema: REPORT_SCHEMA, from, to, lossless: true, losses: Vec::new(), lumps: Vec::new(), size: 0 }
    }
    pub(crate) fn loss(&mut self, index: Option<usize>, lump: Option<String>, kind: &'static str, message: impl Into<String>) {
        self.lossless = false;
        self.losses.push(Loss { index, lump, kind, message: message.into() });
    }
}

/// A converted map: its bytes and the report.
#[derive(Debug, Clone)]
pub struct Converted {
    pub bytes: Vec<u8>,
    pub report: Report,
}
