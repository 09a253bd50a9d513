//! A problem found by a check, and [`Checker`], the helper the family checks share.

/// One problem: the lump, the record index where there is one, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub lump: String,
    pub index: Option<usize>,
    pub message: String,
}

impl Problem {
    pub fn new(lump: impl Into<String>, index: Option<usize>, message: impl Into<String>) -> Self {
        Problem { lump: lump.into(), index, message: message.into() }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}[{}]: {}", self.lump, i, self.message),
            None => write!(f, "{}: {}", self.lump, self.message),
        }
    }
}

/// Pushes problems for references out of range in one lump; shared by the branch checks.
pub struct Checker<'p> {
    pub problems: &'p mut Vec<Problem>,
    /// The lump being checked, as printed (e.g. "FACES").
    pub lump: &'p str,
}

impl<'p> Checker<'p> {
    pub fn new(problems: &'p mut Vec<Problem>, lump: &'p str) -> Self {
        Checker { problems, lump }
    }
    /// Record `record`'s `field` must index a table of `len` entries named `target`.
    pub fn index(&mut self, record: usize, field: &str, value: i64, len: usize, target: &str) {
        if value < 0 || value as u64 >= len as u64 {
            self.problems.push(Problem::new(self.lump, Some(record), format!("{field} {value} is outside {target} (0..{len})")));
        }
    }
    /// `[first, first + count)` must lie within a table of `len` entries named `target`.
    pub fn range(&mut self, record: usize, field: &str, (first, count): (i64, i64), len: usize, target: &str) {
        if first < 0 || count < 0 || (first as u64).saturating_add(count as u64) > len as u64 {
            self.problems.push(Problem::new(
                self.lump,
                Some(record),
                format!("{field} range {first}+{count} is outside {target} (0..{len})"),
            ));
        }
    }
}
