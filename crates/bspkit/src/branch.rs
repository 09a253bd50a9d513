//! Branch descriptors: the static, declarative description of one engine branch's file
//! layout — its header form and lump table (names, indices, record sizes per lump version).
//! Descriptors are data only: they name no behaviour. What a family does with a map (its info
//! rows, checks, views) lives in the family's modules above [`crate::bsp::Bsp`], as one
//! [`crate::branches::ops::FamilyOps`] value per family; the cross-family layers
//! ([`crate::check`], [`crate::stats`], …) reach it through [`crate::branches::any::of`].
//!
//! One `Branch` value exists per branch, in the `lumps` module of its engine family under
//! `crate::branches`; [`crate::branches::all`] lists them all.

/// Engine family, as reported in `bsp info --json` (`format.family`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Quake,
    GoldSrc,
    Quake2,
    Quake3,
    Source,
    Respawn,
    Cod,
    /// Genesis3D (`GBSP` chunk files, `branches::genesis3d`).
    Genesis3D,
    /// James Bond 007: Nightfire (version 42, `branches::nightfire`).
    Nightfire,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Quake => "quake",
            Family::GoldSrc => "goldsrc",
            Family::Quake2 => "quake2",
            Family::Quake3 => "quake3",
            Family::Source => "source",
            Family::Respawn => "respawn",
            Family::Cod => "cod",
            Family::Genesis3D => "genesis3d",
            Family::Nightfire => "nightfire",
        }
    }
}

/// How the file header and lump directory are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderKind {
    /// `i32 version; {i32 offset, i32 length}[lumps]` — Quake 1, GoldSrc (quake_family.md B.1, C.2).
    /// `magic` is `Some` for BSP2 / 2PSB, whose 4-byte magic stands where the version would.
    Quake { magic: Option<[u8; 4]> },
    /// `char magic[4]; i32 version; {i32 offset, i32 length}[lumps]` — Quake 2, Quake 3 and descendants.
    IdMagic { magic: [u8; 4] },
    /// `char magic[4]; i32 version; i32 checksum; {i32 offset, i32 length}[lumps]` — Ritual's
    /// Quake 3 descendants (F.A.K.K.2, Alice, Medal of Honor; FAKK2 SDK and OpenMoHAA `qfiles.h`
    /// `dheader_t`): the id header with a map checksum before the directory.
    Ritual { magic: [u8; 4] },
    /// `char magic[4]; i32 version; {i32 length, i32 offset}[lumps]` — Call of Duty 1, United
    /// Offensive and 2: the id header with each directory entry's fields reversed (opencod1
    /// `qcommon/cm_local.h` `dheader_t`, the cod2map reconstruction's `BspLumpEntry_t`).
    IdLengthFirst { magic: [u8; 4] },
    /// `char magic[4]; i32 version; lump_t[64]; i32 mapRevision` — Source (source.md §3, §4).
    /// `version_first` is the L4D2-branch `lump_t` order `{version, offset, length, fourCC}`.
    Valve { version_first: bool },
    /// `"rBSP"; i32 version; i32 mapRevision; i32 127; lump_t[128]` — Respawn (open_questions.md B6).
    Respawn,
    /// `"IBSP"; i32 version; u32 count; {u32 id, u32 length}[count]`, data packed in directory
    /// order, each lump padded to 4 bytes — Call of Duty 4 `.d3dbsp`.
    CodLumpList,
    /// No directory: a chain of chunks, each `{i32 type, i32 size, i32 elements}` followed by
    /// `size × elements` bytes, ending with a chunk of type `0xffff`; the first chunk is the
    /// `GBSP` header — Genesis3D (engine `GBSPFILE.H`, see `branches::genesis3d`). A lump's index
    /// is its chunk type.
    Chunks,
}

impl HeaderKind {
    /// Where the `{offset, length}` directory of a Quake-style header starts: after the
    /// version (Quake), the magic and version (id), or the magic, version and checksum (Ritual).
    pub fn dir_base(self) -> Option<usize> {
        match self {
            HeaderKind::Quake { .. } => Some(4),
            HeaderKind::IdMagic { .. } | HeaderKind::IdLengthFirst { .. } => Some(8),
            HeaderKind::Ritual { .. } => Some(12),
            _ => None,
        }
    }
    /// Lumps are a list of ids in file order (Call of Duty, Genesis3D chunks), not fixed slots:
    /// an edit may add a lump the file does not have.
    pub fn is_list(self) -> bool {
        matches!(self, HeaderKind::CodLumpList | HeaderKind::Chunks)
    }
}

/// How a lump's bytes are organised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LumpKind {
    /// Unknown or opaque: kept as bytes.
    Raw,
    /// Entity text (`{ "key" "value" }` blocks).
    Entities,
    /// An array of fixed-size records; `sizes` lists `(lump version, record size)` — for
    /// branches without lump versions the version is 0.
    Records { sizes: &'static [(u32, usize)] },
    /// A whole-lump structure (visibility, miptex, game lump, pakfile, …).
    Special,
}

/// One slot of a branch's lump directory.
#[derive(Debug, Clone, Copy)]
pub struct LumpDef {
    pub name: &'static str,
    pub kind: LumpKind,
}

impl LumpDef {
    pub const fn raw(name: &'static str) -> Self {
        LumpDef { name, kind: LumpKind::Raw }
    }
    pub const fn special(name: &'static str) -> Self {
        LumpDef { name, kind: LumpKind::Special }
    }
    pub const fn entities(name: &'static str) -> Self {
        LumpDef { name, kind: LumpKind::Entities }
    }
    /// Records of one size whatever the lump version.
    pub const fn records(name: &'static str, size: usize) -> Self {
        // A `&'static [(u32, usize)]` can't be built from a parameter in a const fn, so
        // the single-size case uses a table of common sizes.
        LumpDef { name, kind: LumpKind::Records { sizes: single_size(size) } }
    }
    pub const fn versioned(name: &'static str, sizes: &'static [(u32, usize)]) -> Self {
        LumpDef { name, kind: LumpKind::Records { sizes } }
    }

    /// The record size for a lump version, if this lump is a record array and the version is known.
    /// A table with one entry applies to every version.
    pub fn record_size(&self, version: u32) -> Option<usize> {
        match self.kind {
            LumpKind::Records { sizes: &[(_, s)] } => Some(s),
            LumpKind::Records { sizes } => sizes.iter().find(|(v, _)| *v == version).map(|(_, s)| *s),
            _ => None,
        }
    }
}

macro_rules! size_table {
    ($($n:literal)*) => {
        const fn single_size(size: usize) -> &'static [(u32, usize)] {
            match size {
                $($n => &[(0, $n)],)*
                _ => panic!("add this record size to size_table! in branch.rs"),
            }
        }
    };
}
size_table!(1 2 3 4 6 8 10 12 14 16 18 20 24 26 28 30 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112 120 128 132 136 140 148 164 176 180 240 242 256 388 768 49152);

/// The static description of one engine branch.
pub struct Branch {
    /// Short stable identifier, used by `--branch` and in JSON (`format.branch`).
    pub id: &'static str,
    pub family: Family,
    /// Human title, e.g. "Quake (BSP29)".
    pub title: &'static str,
    /// Games known to use it.
    pub games: &'static str,
    pub header: HeaderKind,
    /// The lump table, in directory order.
    pub lumps: &'static [LumpDef],
}

impl Branch {
    pub fn lump_index(&self, name: &str) -> Option<usize> {
        self.lumps.iter().position(|l| l.name.eq_ignore_ascii_case(name))
    }
}

impl std::fmt::Debug for Branch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Branch").field("id", &self.id).field("family", &self.family).finish()
    }
}

impl PartialEq for Branch {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
