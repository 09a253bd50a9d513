//! Text output a user reads: `bsp props` columns line up whatever the digits of each value.

use crate::cli::{err, run, s};
use crate::common;

/// Where each whitespace-separated field of `line` ends (byte offsets).
fn field_ends(line: &str) -> Vec<usize> {
    let b = line.as_bytes();
    (0..b.len()).filter(|&i| b[i] != b' ' && (i + 1 == b.len() || b[i + 1] == b' ')).map(|i| i + 1).collect()
}

/// Where each field starts.
fn field_starts(line: &str) -> Vec<usize> {
    let b = line.as_bytes();
    (0..b.len()).filter(|&i| b[i] != b' ' && (i == 0 || b[i - 1] == b' ')).collect()
}

#[test]
fn props_columns_are_aligned() {
    let Some(corpus) = common::corpus("props_columns_are_aligned") else { return };
    // Source sprp v10 (17 props with origins and angles of varying digits) and Respawn.
    let mut tables = 0;
    for m in common::maps(&corpus).iter().filter(|m| matches!(m.folder.as_str(), "source" | "respawn")) {
        let o = run(&["props", s(&m.path)]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", m.path.display(), err(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() < 3 {
            continue;
        }
        tables += 1;
        let (head_ends, head_starts) = (field_ends(lines[0]), field_starts(lines[0]));
        for l in &lines[1..] {
            let (ends, starts) = (field_ends(l), field_starts(l));
            assert_eq!(ends.len(), head_ends.len(), "{}: {l:?}", m.path.display());
            // Column 1 (the model name) is left-aligned, every other column right-aligned.
            assert_eq!(starts[1], head_starts[1], "{}: {l:?}", m.path.display());
            for k in (0..ends.len()).filter(|&k| k != 1) {
                assert_eq!(ends[k], head_ends[k], "{}: column {k} of {l:?}", m.path.display());
            }
        }
    }
    assert!(tables > 0, "no corpus map with static props");
}

/// `bsp lumps` of every corpus map: each number column ends where its header ends and the name
/// and flags columns start where theirs start, whatever the widths (Call of Duty 4's 3 MB
/// lightmap record pushed `count` one column right), and no line ends in blanks.
#[test]
fn lumps_columns_are_aligned() {
    let Some(corpus) = common::corpus("lumps_columns_are_aligned") else { return };
    let mut wide = 0;
    for m in common::maps(&corpus) {
        let o = run(&["lumps", s(&m.path)]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", m.path.display(), err(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let (head_ends, head_starts) = (field_ends(lines[0]), field_starts(lines[0]));
        assert_eq!(head_ends.len(), 8, "{}: {:?}", m.path.display(), lines[0]);
        for l in &lines {
            assert_eq!(l.trim_end(), *l, "{}: trailing blanks in {l:?}", m.path.display());
        }
        for l in &lines[1..] {
            let (ends, starts) = (field_ends(l), field_starts(l));
            // Lump names are one word; flags (the last column) may be absent.
            assert!(ends.len() == 7 || ends.len() == 8, "{}: {l:?}", m.path.display());
            assert_eq!(starts[1], head_starts[1], "{}: name column of {l:?}", m.path.display());
            for k in [0, 2, 3, 4, 5, 6] {
                assert_eq!(ends[k], head_ends[k], "{}: column {k} of {l:?}", m.path.display());
            }
            if ends.len() == 8 {
                assert_eq!(starts[7], head_starts[7], "{}: flags column of {l:?}", m.path.display());
            }
            wide += usize::from(l.split_whitespace().nth(5).is_some_and(|rsize| rsize.len() > "rsize".len()));
        }
    }
    assert!(wide > 0, "no corpus lump with a record size wider than its header");
}

/// `bsp info`'s entity count line ends where the stats table's counts end on the families whose
/// table is count-first (Quake, GoldSrc, Quake 2, the Quake 3 family): it was one column off.
#[test]
fn info_entity_count_lines_up_with_the_table() {
    let Some(corpus) = common::corpus("info_entity_count_lines_up_with_the_table") else { return };
    let mut checked = 0;
    for m in common::maps(&corpus) {
        if !["quake1", "goldsrc", "quake2", "quake3"].contains(&m.folder.as_str()) {
            continue;
        }
        let o = run(&["info", s(&m.path)]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", m.path.display(), err(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let table_start = lines.iter().position(|l| l.is_empty()).expect("blank line before the table");
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with("entities") || l.trim_end().ends_with(" entities"))
            .expect("entities line");
        // Where the first all-digit word of a line ends.
        let number_end = |l: &str| {
            let mut col = 0;
            for word in l.split(' ') {
                if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
                    return Some(col + word.len());
                }
                col += word.len() + 1;
            }
            None
        };
        let mut ends: std::collections::BTreeMap<usize, usize> = Default::default();
        for l in &lines[table_start..at] {
            if let Some(e) = number_end(l) {
                *ends.entry(e).or_default() += 1;
            }
        }
        let (&usual, _) = ends.iter().max_by_key(|(_, n)| **n).expect("a table with counts");
        assert_eq!(
            number_end(lines[at]),
            Some(usual),
            "{}: {:?} against the table's counts ending at column {usual}",
            m.path.display(),
            lines[at]
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} maps checked");
}
