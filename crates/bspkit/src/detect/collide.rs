//! Branches that share a magic and version, told apart by the directory itself: SiN's
//! `RBSP` 1 (20 lumps) and Raven's Quake 3 `RBSP` 1 (18), Soldier of Fortune's `IBSP` 46 (22)
//! and Quake 3's (17), Daikatana's `IBSP` 41 (21) and SiN's early `IBSP` 41 (20).
//!
//! Each candidate's `{offset, length}` table is read with its own lump count and scored:
//!
//! 1. **fits** — every non-empty entry lies inside the file and after the candidate's header
//!    (a table read with too many entries takes the first lump's bytes as entries, which point
//!    nowhere; a table read with too few leaves entries unread, which is the next test);
//! 2. **whole records** — how many non-empty record lumps are a whole number of the
//!    candidate's records (a shorter or longer table shifts every lump onto a slot of another
//!    record size);
//! 3. **gap** — bytes between the header and the first lump (compilers write the first lump
//!    right after the header; q3map2 adds one 8-byte empty entry, quake_facts.md §5.0);
//! 4. **entities** — lump 0 holds entity text.
//!
//! The best score wins; on a tie the first candidate (the more common game) does. The
//! evidence and the loser's reasons are reported ([`Detection::why`], `runners_up`).

use crate::branch::{Branch, LumpKind};
use crate::bytes::Endian;
use crate::detect::detection::Detection;
use crate::detect::dir::{looks_like_entities, lump_range};

/// How one candidate's table reads the file.
struct Fit {
    branch: &'static Branch,
    header_len: usize,
    /// The first entry that is not inside the file after the header, if any.
    misfit: Option<String>,
    records: usize,
    whole: usize,
    /// Record lumps that are not whole, as `NAME n bytes / size`.
    broken: Vec<String>,
    gap: Option<usize>,
    entities: bool,
}

impl Fit {
    fn of(data: &[u8], branch: &'static Branch) -> Fit {
        let n = branch.lumps.len();
        let base = branch.header.dir_base().unwrap_or(8);
        let header_len = base + 8 * n;
        let mut fit = Fit { branch, header_len, misfit: None, records: 0, whole: 0, broken: Vec::new(), gap: None, entities: false };
        if data.len() < header_len {
            fit.misfit = Some(format!("the file is shorter than its {header_len}-byte header"));
            return fit;
        }
        let mut first: Option<usize> = None;
        for (i, def) in branch.lumps.iter().enumerate() {
            let Some((ofs, len)) = lump_range(data, base, i) else {
                fit.misfit.get_or_insert_with(|| format!("entry {i} ({}) is negative", def.name));
                continue;
            };
            if len == 0 {
                continue;
            }
            if ofs < header_len || ofs.saturating_add(len) > data.len() {
                fit.misfit.get_or_insert_with(|| format!("entry {i} ({}) {ofs}+{len} is not inside the file after the header", def.name));
                continue;
            }
            first = Some(first.map_or(ofs, |f| f.min(ofs)));
            if let Some(size) = def.record_size(0) {
                fit.records += 1;
                if len % size == 0 {
                    fit.whole += 1;
                } else if fit.broken.len() < 3 {
                    fit.broken.push(format!("{} {len} bytes / {size}", def.name));
                }
            }
            if def.kind == LumpKind::Entities && i == 0 {
                fit.entities = looks_like_entities(data, Some((ofs, len)));
            }
        }
        fit.gap = first.map(|f| f - header_len);
        fit
    }

    /// Higher is better: fits, then whole-record share, then a small gap, then entities.
    fn score(&self) -> (bool, u64, std::cmp::Reverse<usize>, bool) {
        let share = (1000 * self.whole).checked_div(self.records).map_or(1000, |s| s as u64);
        (self.misfit.is_none(), share, std::cmp::Reverse(self.gap.unwrap_or(0)), self.entities)
    }

    fn describe(&self) -> String {
        let n = self.branch.lumps.len();
        if let Some(m) = &self.misfit {
            return format!("read as {n} entries, {m}");
        }
        let mut s = format!("read as {n} entries, every lump lies after the {}-byte header", self.header_len);
        if let Some(g) = self.gap.filter(|&g| g > 0) {
            s += &format!(" ({g}-byte gap before the first lump)");
        }
        s += &format!("; {} of {} record lumps are whole records", self.whole, self.records);
        if !self.broken.is_empty() {
            s += &format!(" (not: {})", self.broken.join(", "));
        }
        s
    }
}

/// Choose among `candidates` (same magic and version) by the directory they read.
pub(crate) fn choose(data: &[u8], magic: &str, version: u32, candidates: &[&'static Branch]) -> Detection {
    let fits: Vec<Fit> = candidates.iter().map(|b| Fit::of(data, b)).collect();
    // `max_by_key` keeps the last of equal keys: walk in reverse so the first candidate wins ties.
    let best = fits.iter().enumerate().rev().max_by_key(|(_, f)| f.score()).map(|(i, _)| i).unwrap_or(0);
    let chosen = &fits[best];
    let mut d =
        Detection::new(chosen.branch, version, Endian::Little, format!("magic {magic:?}, version {version}, used by several games"));
    d.why.push(format!("{}: {}", chosen.branch.id, chosen.describe()));
    for (_, f) in fits.iter().enumerate().filter(|(i, _)| *i != best) {
        let tie = f.score() == chosen.score();
        let why = if tie { format!("{} (as good a reading; {} is preferred)", f.describe(), chosen.branch.id) } else { f.describe() };
        d.runners_up.push((f.branch.id, why));
    }
    d
}
