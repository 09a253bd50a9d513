//! A problem found by a check: its [`Severity`], a stable [`Code`] naming its kind, the lump,
//! the record index where there is one, and a message; and [`Checker`], the helper the family
//! checks share.
//!
//! Adding a problem is one line, e.g. `problems.push(Problem::error(Code::INDEX_OUT_OF_RANGE,
//! "FACES", Some(i), msg))`, or `c.error(Code::…, Some(i), msg)` on a [`Checker`]. A new kind of
//! problem adds one line to the `codes!` list below (and the README's code table, which a test
//! compares with [`Code::ALL`]).

use serde::Serialize;

/// How bad a problem is. `bsp check` exits 1 on errors (with `--strict`, on warnings too);
/// notes never change the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing, not wrong: e.g. a construct some engines refuse and others accept.
    Note,
    /// Probably harmless in the engines that load the map, but not what a compiler writes.
    Warning,
    /// The map breaks a rule its engine relies on (a reference outside its table, …).
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stable name for a kind of problem (`snake_case`, like the error kinds). Only the constants
/// below exist; they are never renamed or removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Code(&'static str);

impl Code {
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

macro_rules! codes {
    ($($(#[doc = $doc:literal])+ $name:ident = $text:literal;)+) => {
        impl Code {
            $($(#[doc = $doc])+ pub const $name: Code = Code($text);)+
            /// Every code with its one-line description (README.md lists the same).
            pub const ALL: &'static [(Code, &'static str)] = &[$((Code($text), concat!($($doc),+))),+];
        }
    };
}

codes! {
    /// A lump cannot be read or decompressed, or a structure in it does not decode.
    LUMP_UNREADABLE = "lump_unreadable";
    /// A fixed-record lump's length is not a multiple of its record size.
    BAD_LUMP_LENGTH = "bad_lump_length";
    /// A lump version with no known record layout; its bytes are kept raw, not checked.
    UNKNOWN_LUMP_VERSION = "unknown_lump_version";
    /// The entity lump does not parse.
    ENTITIES_UNREADABLE = "entities_unreadable";
    /// The entity lump holds no entity.
    NO_ENTITIES = "no_entities";
    /// The first entity is not `worldspawn`.
    NO_WORLDSPAWN = "no_worldspawn";
    /// A record's index points outside the table it refers to.
    INDEX_OUT_OF_RANGE = "index_out_of_range";
    /// A record's first + count range runs outside the table it refers to.
    RANGE_OUT_OF_RANGE = "range_out_of_range";
    /// Two tables that must agree in size (one entry per record of the other, a sum of counts) do not.
    COUNT_MISMATCH = "count_mismatch";
    /// A node-tree child is one of its own ancestors.
    TREE_CYCLE = "tree_cycle";
    /// A node-tree node is the child of two parents.
    TREE_SHARED_NODE = "tree_shared_node";
    /// A visibility row does not decode inside the lump, or rows are too short for the clusters.
    BAD_VISIBILITY = "bad_visibility";
    /// A field holds a value outside its enumeration (face side, surface type, displacement power, contents).
    BAD_VALUE = "bad_value";
    /// A polygon or triangle list with too few or a partial set of vertices, or a patch whose size does not match its vertices.
    BAD_GEOMETRY = "bad_geometry";
    /// A displacement's face does not point back at it.
    DISP_BACKLINK = "disp_backlink";
    /// Quake 3: a global fog (brush −1, visibleSide −1; q3map2 `_fog`): DarkPlaces and ET:Legacy draw it, stock ioquake3 refuses the map.
    GLOBAL_FOG = "global_fog";
    /// Quake 3: flare surfaces with a fog index outside FOGS (renderers range-check flare fogs).
    FLARE_FOG = "flare_fog";
    /// FBSP: brush sides whose surface is out of range, one note for all (q3map2 leaves the field uninitialised; Warsow and Warfork never read it).
    UNREAD_SIDE_SURFACE = "unread_side_surface";
    /// Quake 3 family: patch surfaces whose draw indexes are outside their vertices, one note for all (engines build patches from the control grid and never read a patch's indexes).
    UNREAD_PATCH_INDEXES = "unread_patch_indexes";
    /// Source: texinfos whose texdata is -1, one note for all (the engine gives them its empty material).
    NO_TEXDATA = "no_texdata";
    /// Source: the pakfile lump is not a readable Zip archive.
    BAD_PAKFILE = "bad_pakfile";
    /// Source: the game lump directory has a negative count or children outside the lump.
    BAD_GAME_LUMP_DIRECTORY = "bad_game_lump_directory";
    /// Respawn: an external `.bsp_lump` differs in size from the directory entry (the external data is used).
    EXTERNAL_SIZE = "external_size";
    /// Respawn: an entity partition the map names has no `.ent` file beside it.
    MISSING_PARTITION = "missing_partition";
    /// A temporary file of a bspkit write of this map (or of its set's files) lies beside it, left by a process killed before its rename: the map is the one before that write; the next write of the map removes it.
    ORPHAN_TEMP = "orphan_temp";
    /// A set write of this map (a Respawn `.bsp` with its `.bsp_lump` files) was cut off by a crash: files beside it that are no part of the set (listed in its journal `.NAME.bspkit-stale`) would override its lumps in the game; bspkit does not read them, and the next write of the map removes them.
    INTERRUPTED_SET = "interrupted_set";
}

/// One problem: severity, code, the lump, the record index where there is one, and what is wrong.
///
/// JSON (`bsp check --json`, `bsp info --json`, `bsp scan --json`): `{"lump", "index",
/// "message", "severity", "code"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub lump: String,
    pub index: Option<usize>,
    pub message: String,
    pub severity: Severity,
    pub code: Code,
}

impl Problem {
    pub fn with(severity: Severity, code: Code, lump: impl Into<String>, index: Option<usize>, message: impl Into<String>) -> Self {
        Problem { lump: lump.into(), index, message: message.into(), severity, code }
    }
    pub fn error(code: Code, lump: impl Into<String>, index: Option<usize>, message: impl Into<String>) -> Self {
        Self::with(Severity::Error, code, lump, index, message)
    }
    pub fn warning(code: Code, lump: impl Into<String>, index: Option<usize>, message: impl Into<String>) -> Self {
        Self::with(Severity::Warning, code, lump, index, message)
    }
    pub fn note(code: Code, lump: impl Into<String>, index: Option<usize>, message: impl Into<String>) -> Self {
        Self::with(Severity::Note, code, lump, index, message)
    }
    /// An error with code `lump_unreadable`.
    #[deprecated(note = "give the problem a code: Problem::error(Code::…, lump, index, message)")]
    pub fn new(lump: impl Into<String>, index: Option<usize>, message: impl Into<String>) -> Self {
        Self::error(Code::LUMP_UNREADABLE, lump, index, message)
    }
    /// `lump[index]` or `lump`.
    pub fn location(&self) -> String {
        match self.index {
            Some(i) => format!("{}[{i}]", self.lump),
            None => self.lump.clone(),
        }
    }
}

/// `LUMP[INDEX]: message` — the location and message, without severity or code (the `bsp check`
/// text output adds those: `error[code] LUMP[INDEX]: message`).
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}[{}]: {}", self.lump, i, self.message),
            None => write!(f, "{}: {}", self.lump, self.message),
        }
    }
}

/// How many problems of each severity a list holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl Counts {
    pub fn of(problems: &[Problem]) -> Self {
        let mut c = Counts::default();
        for p in problems {
            match p.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Note => c.notes += 1,
            }
        }
        c
    }
    /// The worst severity present, if any.
    pub fn worst(&self) -> Option<Severity> {
        if self.errors > 0 {
            Some(Severity::Error)
        } else if self.warnings > 0 {
            Some(Severity::Warning)
        } else if self.notes > 0 {
            Some(Severity::Note)
        } else {
            None
        }
    }
}

/// Problems of one kind (severity, code, lump) in first-seen order: what `bsp check` prints as
/// one line when there are many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<'p> {
    pub severity: Severity,
    pub code: Code,
    pub lump: &'p str,
    pub problems: Vec<&'p Problem>,
}

/// Group problems by (severity, code, lump), keeping the order of each group's first problem.
pub fn group(problems: &[Problem]) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut at: std::collections::HashMap<(Severity, Code, &str), usize> = std::collections::HashMap::new();
    for p in problems {
        let key = (p.severity, p.code, p.lump.as_str());
        match at.get(&key) {
            Some(&g) => groups[g].problems.push(p),
            None => {
                at.insert(key, groups.len());
                groups.push(Group { severity: p.severity, code: p.code, lump: &p.lump, problems: vec![p] });
            }
        }
    }
    groups
}

/// Pushes problems about one lump; shared by the branch checks. Its helpers push errors.
pub struct Checker<'p> {
    pub problems: &'p mut Vec<Problem>,
    /// The lump being checked, as printed (e.g. "FACES").
    pub lump: &'p str,
}

impl<'p> Checker<'p> {
    pub fn new(problems: &'p mut Vec<Problem>, lump: &'p str) -> Self {
        Checker { problems, lump }
    }
    /// Push an error about this lump.
    pub fn error(&mut self, code: Code, record: Option<usize>, message: impl Into<String>) {
        self.problems.push(Problem::error(code, self.lump, record, message));
    }
    /// Push a warning about this lump.
    pub fn warning(&mut self, code: Code, record: Option<usize>, message: impl Into<String>) {
        self.problems.push(Problem::warning(code, self.lump, record, message));
    }
    /// Push a note about this lump.
    pub fn note(&mut self, code: Code, record: Option<usize>, message: impl Into<String>) {
        self.problems.push(Problem::note(code, self.lump, record, message));
    }
    /// Record `record`'s `field` must index a table of `len` entries named `target`.
    // Called once per index of every record of a map (the largest item of `check` in a
    // profile of `bsp scan --out`): the comparison is inlined into the record loops, the
    // message is built out of line, only when the index is bad. Always inlined: unoptimised
    // (test) builds honour only `always`, and a call per index was a visible share of the
    // garble test's checks.
    #[inline(always)]
    pub fn index(&mut self, record: usize, field: &str, value: i64, len: usize, target: &str) {
        if value < 0 || value as u64 >= len as u64 {
            self.index_error(record, field, value, len, target);
        }
    }
    #[cold]
    #[inline(never)]
    fn index_error(&mut self, record: usize, field: &str, value: i64, len: usize, target: &str) {
        self.error(Code::INDEX_OUT_OF_RANGE, Some(record), format!("{field} {value} is outside {target} ({})", entries(len)));
    }
    /// `[first, first + count)` must lie within a table of `len` entries named `target`.
    #[inline(always)]
    pub fn range(&mut self, record: usize, field: &str, (first, count): (i64, i64), len: usize, target: &str) {
        if first < 0 || count < 0 || (first as u64).saturating_add(count as u64) > len as u64 {
            self.range_error(record, field, (first, count), len, target);
        }
    }
    #[cold]
    #[inline(never)]
    fn range_error(&mut self, record: usize, field: &str, (first, count): (i64, i64), len: usize, target: &str) {
        self.error(Code::RANGE_OUT_OF_RANGE, Some(record), format!("{field} range {first}+{count} is outside {target} ({})", entries(len)));
    }
}

/// How many entries a table holds, as messages say it: `count 300`, `count 0` (a `0..300` range
/// read as inclusive, or `0..0`, confused readers). The wording does not change with the number,
/// so [`crate::write::problem_shape`] still matches a problem whose table grew or shrank.
pub fn entries(len: usize) -> String {
    format!("count {len}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for (c, doc) in Code::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert!(c.as_str().bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{c}");
            assert!(!doc.trim().is_empty());
        }
    }

    #[test]
    fn groups_keep_first_seen_order() {
        let p = |code, lump: &str, i| Problem::error(code, lump, Some(i), "m");
        let list = vec![
            p(Code::INDEX_OUT_OF_RANGE, "A", 0),
            p(Code::RANGE_OUT_OF_RANGE, "A", 1),
            p(Code::INDEX_OUT_OF_RANGE, "A", 2),
            p(Code::INDEX_OUT_OF_RANGE, "B", 3),
        ];
        let g = group(&list);
        assert_eq!(g.len(), 3);
        assert_eq!(g[0].problems.len(), 2);
        assert_eq!((g[1].code, g[2].lump), (Code::RANGE_OUT_OF_RANGE, "B"));
        let c = Counts::of(&[Problem::note(Code::GLOBAL_FOG, "FOGS", None, "x"), list[0].clone()]);
        assert_eq!((c.errors, c.warnings, c.notes, c.worst()), (1, 0, 1, Some(Severity::Error)));
    }
}
