//! Stripper:Source configs: read a config and apply it to an entity lump, or write the config
//! that turns one map's entities into another's.
//!
//! The syntax, as the Stripper:Source parser and its SourceMod ports read it:
//! * one statement per line, trimmed; empty lines and lines starting with `//`, `#` or `;` are comments;
//! * `filter:` (or `remove:`), `add:` and `modify:` select the mode of the blocks that follow
//!   (filter until the first mode line);
//! * a block is `{` … `}`; inside a `modify:` block, `match:`, `replace:`, `delete:` and
//!   `insert:` each open a nested `{` … `}` sub-block;
//! * a pair is a line `"key" "value"` (both non-empty, no quotes inside);
//! * in `filter`, `match` and `delete`, a value written `/…/` is a regular expression that
//!   matches anywhere in the entity's value; other values compare exactly, case-sensitively.
//!
//! Semantics: `filter` removes every entity that has all the block's pairs; `add` appends an
//! entity; `modify` takes every entity having all `match` pairs and, in order, for each
//! `replace` key the entity already has, sets its value (first pair keeps its place, later
//! duplicates go); removes the pairs matching a `delete` pair; appends the `insert` pairs.

use regex::Regex;

use crate::error::{Error, Result};
use crate::lumps::entities::{EditEntity, EntityDoc};

/// A value to compare: exact text or a regular expression.
#[derive(Debug, Clone)]
pub enum Pattern {
    Exact(String),
    Regex(Regex),
}

impl Pattern {
    fn parse(value: &str, allow_regex: bool, line: usize) -> Result<Self> {
        if allow_regex && value.len() >= 2 && value.starts_with('/') && value.ends_with('/') {
            let re = crate::lumps::entities::compile_regex(&value[1..value.len() - 1], &format!("line {line}"))?;
            Ok(Pattern::Regex(re))
        } else {
            Ok(Pattern::Exact(value.to_string()))
        }
    }
    pub fn matches(&self, value: &[u8]) -> bool {
        match self {
            Pattern::Exact(s) => s.as_bytes() == value,
            Pattern::Regex(r) => r.is_match(&String::from_utf8_lossy(value)),
        }
    }
}

/// One block of a config.
#[derive(Debug, Clone)]
pub enum Block {
    Filter(Vec<(String, Pattern)>),
    Add(Vec<(String, String)>),
    Modify {
        matches: Vec<(String, Pattern)>,
        replace: Vec<(String, String)>,
        delete: Vec<(String, Pattern)>,
        insert: Vec<(String, String)>,
    },
}

/// A parsed config: its blocks in file order.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub blocks: Vec<Block>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Filter,
    Add,
    Modify,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sub {
    None,
    Match,
    Replace,
    Delete,
    Insert,
}

/// `"key" "value"` with both parts non-empty and free of quotes.
fn pair_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('"')?;
    let (key, rest) = rest.split_once('"')?;
    let rest = rest.trim_start();
    if rest.len() == line.len() {
        return None;
    }
    let rest = rest.strip_prefix('"')?;
    let (value, _) = rest.split_once('"')?;
    (!key.is_empty() && !value.is_empty()).then_some((key, value))
}

impl Config {
    pub fn parse(text: &str) -> Result<Self> {
        let mut blocks = Vec::new();
        let mut mode = Mode::Filter;
        let mut sub = Sub::None;
        let mut depth = 0usize;
        let mut generic_exact: Vec<(String, String)> = Vec::new();
        let mut generic: Vec<(String, Pattern)> = Vec::new();
        let (mut m, mut r, mut d, mut ins) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (n, raw) in text.lines().enumerate() {
            let line_no = n + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with("//") || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if line.starts_with('{') {
                depth += 1;
                continue;
            }
            if line.starts_with('}') {
                if depth == 0 {
                    return Err(Error::malformed(format!("line {line_no}: '}}' without a block")));
                }
                depth -= 1;
                if depth == 0 {
                    blocks.push(match mode {
                        Mode::Filter => Block::Filter(std::mem::take(&mut generic)),
                        Mode::Add => Block::Add(std::mem::take(&mut generic_exact)),
                        Mode::Modify => Block::Modify {
                            matches: std::mem::take(&mut m),
                            replace: std::mem::take(&mut r),
                            delete: std::mem::take(&mut d),
                            insert: std::mem::take(&mut ins),
                        },
                    });
                    generic.clear();
                    generic_exact.clear();
                }
                sub = Sub::None;
                continue;
            }
            if let Some((k, v)) = pair_line(line) {
                if depth == 0 {
                    return Err(Error::malformed(format!("line {line_no}: key/value outside a block")));
                }
                let (k, s) = (k.to_string(), v);
                match (mode, sub) {
                    (Mode::Filter, _) => generic.push((k, Pattern::parse(s, true, line_no)?)),
                    (Mode::Add, _) => generic_exact.push((k, s.to_string())),
                    (Mode::Modify, Sub::Match) => m.push((k, Pattern::parse(s, true, line_no)?)),
                    (Mode::Modify, Sub::Replace) => r.push((k, s.to_string())),
                    (Mode::Modify, Sub::Delete) => d.push((k, Pattern::parse(s, true, line_no)?)),
                    (Mode::Modify, Sub::Insert) => ins.push((k, s.to_string())),
                    (Mode::Modify, Sub::None) => {
                        return Err(Error::malformed(format!(
                            "line {line_no}: key/value in a modify block outside match/replace/delete/insert"
                        )))
                    }
                }
                continue;
            }
            match line {
                "filter:" | "remove:" if depth == 0 => mode = Mode::Filter,
                "add:" if depth == 0 => mode = Mode::Add,
                "modify:" if depth == 0 => {
                    mode = Mode::Modify;
                    sub = Sub::None;
                }
                "match:" if mode == Mode::Modify => sub = Sub::Match,
                "replace:" if mode == Mode::Modify => sub = Sub::Replace,
                "delete:" if mode == Mode::Modify => sub = Sub::Delete,
                "insert:" if mode == Mode::Modify => sub = Sub::Insert,
                _ => return Err(Error::malformed(format!("line {line_no}: cannot read {line:?}"))),
            }
        }
        if depth != 0 {
            return Err(Error::malformed("config ends inside a block"));
        }
        Ok(Config { blocks })
    }

    /// Apply every block in order. Returns the number of entities removed, added and modified.
    pub fn apply(&self, doc: &mut EntityDoc) -> Result<(usize, usize, usize)> {
        let (mut removed, mut added, mut modified) = (0, 0, 0);
        for b in &self.blocks {
            match b {
                Block::Filter(conds) => removed += doc.remove_where(|e| has_all(e, conds)),
                Block::Add(pairs) => {
                    doc.push(EditEntity::new(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?);
                    added += 1;
                }
                Block::Modify { matches, replace, delete, insert } => {
                    for e in doc.entities.iter_mut().filter(|e| has_all(e, matches)) {
                        let before = e.clone();
                        for (k, v) in replace {
                            if e.get(k).is_some() {
                                e.set(k, v)?;
                                let mut seen = false;
                                e.remove_where(|pk, _| {
                                    if pk != k.as_bytes() {
                                        return false;
                                    }
                                    let dup = seen;
                                    seen = true;
                                    dup
                                });
                            }
                        }
                        for (k, p) in delete {
                            e.remove_where(|pk, pv| pk == k.as_bytes() && p.matches(pv));
                        }
                        for (k, v) in insert {
                            e.insert(k, v)?;
                        }
                        if *e != before {
                            modified += 1;
                        }
                    }
                }
            }
        }
        Ok((removed, added, modified))
    }
}

fn has_all(e: &EditEntity, conds: &[(String, Pattern)]) -> bool {
    conds.iter().all(|(k, p)| e.raw_pairs().iter().any(|(pk, pv)| pk == k.as_bytes() && p.matches(pv)))
}

/// A value as it must be written in a `filter`/`match`/`delete` line: literal unless it would
/// read as a regular expression or cannot be written (empty), then an anchored expression.
fn match_value(v: &[u8]) -> String {
    let s = String::from_utf8_lossy(v);
    if s.is_empty() || (s.len() >= 2 && s.starts_with('/') && s.ends_with('/')) {
        format!("/^{}$/", regex::escape(&s))
    } else {
        s.into_owned()
    }
}

fn literal_value(v: &[u8], what: &str) -> Result<String> {
    if v.is_empty() {
        return Err(Error::malformed(format!("a Stripper config cannot write an empty value ({what})")));
    }
    Ok(String::from_utf8_lossy(v).into_owned())
}

type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

fn sorted(p: &Pairs) -> Pairs {
    let mut s = p.clone();
    s.sort();
    s
}

/// Write a config that turns the entities of `a` into those of `b` (as collections of entities,
/// each a collection of pairs; the order of entities and of pairs is not kept). Entities that
/// differ and share a unique `hammerid` (or classname + targetname + origin) become `modify`
/// blocks; others are removed with `filter` and written with `add`.
pub fn diff(a: &EntityDoc, b: &EntityDoc) -> Result<String> {
    let pa: Vec<Pairs> = a.entities.iter().map(|e| e.raw_pairs().to_vec()).collect();
    let pb: Vec<Pairs> = b.entities.iter().map(|e| e.raw_pairs().to_vec()).collect();
    // Pair identical entities first.
    let mut used_b = vec![false; pb.len()];
    let mut left_a = Vec::new();
    for (i, x) in pa.iter().enumerate() {
        let sx = sorted(x);
        match (0..pb.len()).find(|&j| !used_b[j] && sorted(&pb[j]) == sx) {
            Some(j) => used_b[j] = true,
            None => left_a.push(i),
        }
    }
    let left_b: Vec<usize> = (0..pb.len()).filter(|&j| !used_b[j]).collect();
    let key = |p: &Pairs| -> Option<Vec<u8>> {
        let get = |k: &[u8]| p.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone());
        if let Some(h) = get(b"hammerid") {
            return Some([b"h:".to_vec(), h].concat());
        }
        let parts = [get(b"classname")?, get(b"targetname").unwrap_or_default(), get(b"origin").unwrap_or_default()];
        Some(parts.join(&b'\x01'))
    };
    let mut out = String::from("// Written by bspkit (`bsp ents diff --stripper`).\n");
    let mut sim = a.clone();
    let mut modified_a = vec![false; pa.len()];
    let mut modified_b = vec![false; pb.len()];
    for &i in &left_a {
        let Some(k) = key(&pa[i]) else { continue };
        let same_a: Vec<usize> = left_a.iter().copied().filter(|&x| key(&pa[x]).as_ref() == Some(&k)).collect();
        let same_b: Vec<usize> = left_b.iter().copied().filter(|&x| key(&pb[x]).as_ref() == Some(&k)).collect();
        if same_a.len() != 1 || same_b.len() != 1 {
            continue;
        }
        let j = same_b[0];
        // The match must select this entity alone.
        let conds: Vec<(String, Pattern)> = pa[i]
            .iter()
            .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), Pattern::Exact(String::from_utf8_lossy(v).into_owned())))
            .collect();
        if sim.entities.iter().filter(|e| has_all(e, &conds)).count() != 1 {
            continue;
        }
        let (dels, ins) = multiset_diff(&pa[i], &pb[j]);
        // `delete` removes every copy of a pair; when A has a pair more often than it is deleted, fall back.
        if dels.iter().any(|d| pa[i].iter().filter(|p| *p == d).count() != dels.iter().filter(|x| *x == d).count()) {
            continue;
        }
        let mut block = String::from("modify:\n{\n\tmatch:\n\t{\n");
        for (k, v) in &pa[i] {
            block += &format!("\t\t\"{}\" \"{}\"\n", String::from_utf8_lossy(k), match_value(v));
        }
        block += "\t}\n";
        // A key that A and B each have once, with different values, becomes a `replace`.
        let count = |p: &Pairs, k: &[u8]| p.iter().filter(|(pk, _)| pk == k).count();
        let replaced: Vec<(Vec<u8>, Vec<u8>)> = ins
            .iter()
            .filter(|(k, v)| !v.is_empty() && count(&pa[i], k) == 1 && count(&pb[j], k) == 1 && count(&dels, k) == 1 && count(&ins, k) == 1)
            .cloned()
            .collect();
        let is_replaced = |k: &[u8]| replaced.iter().any(|(rk, _)| rk == k);
        let dels: Pairs = dels.into_iter().filter(|(k, _)| !is_replaced(k)).collect();
        let ins: Pairs = ins.into_iter().filter(|(k, _)| !is_replaced(k)).collect();
        if !replaced.is_empty() {
            block += "\treplace:\n\t{\n";
            for (k, v) in &replaced {
                block += &format!("\t\t\"{}\" \"{}\"\n", String::from_utf8_lossy(k), literal_value(v, "replace")?);
            }
            block += "\t}\n";
        }
        let mut dedup = dels.clone();
        dedup.dedup();
        if !dedup.is_empty() {
            block += "\tdelete:\n\t{\n";
            for (k, v) in &dedup {
                block += &format!("\t\t\"{}\" \"{}\"\n", String::from_utf8_lossy(k), match_value(v));
            }
            block += "\t}\n";
        }
        if !ins.is_empty() {
            block += "\tinsert:\n\t{\n";
            for (k, v) in &ins {
                block += &format!("\t\t\"{}\" \"{}\"\n", String::from_utf8_lossy(k), literal_value(v, "insert")?);
            }
            block += "\t}\n";
        }
        block += "}\n";
        Config::parse(&block)?.apply(&mut sim)?;
        out += &block;
        modified_a[i] = true;
        modified_b[j] = true;
    }
    // Remove what is left of A; re-add anything a filter removed that must stay.
    let want: Vec<Pairs> = pb.iter().map(sorted).collect();
    for &i in left_a.iter().filter(|&&i| !modified_a[i]) {
        let conds: Vec<(String, Pattern)> = pa[i]
            .iter()
            .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), Pattern::parse(&match_value(v), true, 0)))
            .map(|(k, p)| p.map(|p| (k, p)))
            .collect::<Result<_>>()?;
        if !sim.entities.iter().any(|e| sorted(&e.raw_pairs().to_vec()) == sorted(&pa[i])) {
            continue; // already removed by an earlier filter
        }
        let mut block = String::from("filter:\n{\n");
        for (k, v) in &pa[i] {
            block += &format!("\t\"{}\" \"{}\"\n", String::from_utf8_lossy(k), match_value(v));
        }
        block += "}\n";
        let removed: Vec<Pairs> = sim.entities.iter().filter(|e| has_all(e, &conds)).map(|e| e.raw_pairs().to_vec()).collect();
        Config::parse(&block)?.apply(&mut sim)?;
        out += &block;
        // Entities the filter took that the target still has (identical or not yet re-added) come back.
        for r in removed {
            let sr = sorted(&r);
            let need = want.iter().filter(|w| **w == sr).count();
            let have = sim.entities.iter().filter(|e| sorted(&e.raw_pairs().to_vec()) == sr).count();
            let pending = left_b.iter().filter(|&&j| !modified_b[j] && want[j] == sr).count();
            if have + pending < need {
                out += &add_block(&r)?;
                sim.push(EditEntity::new(
                    r.iter().map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned())),
                )?);
            }
        }
    }
    for &j in left_b.iter().filter(|&&j| !modified_b[j]) {
        out += &add_block(&pb[j])?;
        sim.push(EditEntity::new(
            pb[j].iter().map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned())),
        )?);
    }
    Ok(out)
}

fn add_block(p: &Pairs) -> Result<String> {
    let mut block = String::from("add:\n{\n");
    for (k, v) in p {
        block += &format!("\t\"{}\" \"{}\"\n", String::from_utf8_lossy(k), literal_value(v, "add")?);
    }
    block += "}\n";
    Ok(block)
}

/// Pairs of `a` missing from `b`, and pairs of `b` missing from `a` (as multisets).
fn multiset_diff(a: &Pairs, b: &Pairs) -> (Pairs, Pairs) {
    let mut rest_b = b.clone();
    let mut dels = Vec::new();
    for p in a {
        match rest_b.iter().position(|q| q == p) {
            Some(i) => {
                rest_b.remove(i);
            }
            None => dels.push(p.clone()),
        }
    }
    dels.sort();
    (dels, rest_b)
}

/// Entities as comparable values: each a sorted list of pairs, the whole list sorted.
pub fn canonical(doc: &EntityDoc) -> Vec<Pairs> {
    let mut v: Vec<Pairs> = doc.entities.iter().map(|e| sorted(&e.raw_pairs().to_vec())).collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTS: &[u8] = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"targetname\" \"l1\"\n\"light\" \"200\"\n}\n{\n\"classname\" \"light\"\n\"light\" \"300\"\n}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 0\"\n}\n\0";

    #[test]
    fn applies_filter_add_and_modify() {
        let cfg = Config::parse(
            "; comment\n// another\nfilter:\n{\n\"classname\" \"/^info_player/\"\n}\nadd:\n{\n\"classname\" \"info_target\"\n\"targetname\" \"t\"\n}\n\
             modify:\n{\n\tmatch:\n\t{\n\t\"classname\" \"light\"\n\t\"light\" \"/^3/\"\n\t}\n\treplace:\n\t{\n\t\"light\" \"50\"\n\t}\n\tinsert:\n\t{\n\t\"_color\" \"255 0 0\"\n\t}\n}\n\
             modify:\n{\nmatch:\n{\n\"targetname\" \"l1\"\n}\ndelete:\n{\n\"light\" \"/./\"\n}\n}\n",
        )
        .unwrap();
        assert_eq!(cfg.blocks.len(), 4);
        let mut doc = EntityDoc::parse(ENTS).unwrap();
        let (r, a, m) = cfg.apply(&mut doc).unwrap();
        assert_eq!((r, a, m), (1, 1, 2));
        let text = String::from_utf8(doc.to_bytes()).unwrap();
        assert!(text.contains("{\n\"classname\" \"light\"\n\"light\" \"50\"\n\"_color\" \"255 0 0\"\n}"), "{text}");
        assert!(text.contains("{\n\"classname\" \"light\"\n\"targetname\" \"l1\"\n}"), "{text}");
        assert!(!text.contains("info_player_start"));
        assert!(text.ends_with("{\n\"classname\" \"info_target\"\n\"targetname\" \"t\"\n}\n\0"));
        // The untouched worldspawn keeps its bytes.
        assert!(text.starts_with("{\n\"classname\" \"worldspawn\"\n}\n{"));
    }

    #[test]
    fn rejects_broken_configs() {
        assert!(Config::parse("{\n\"a\" \"b\"\n").is_err());
        assert!(Config::parse("}\n").is_err());
        assert!(Config::parse("filter:\n{\n\"a\" \"/(/\"\n}\n").is_err());
        assert!(Config::parse("modify:\n{\n\"a\" \"b\"\n}\n").is_err());
        assert!(Config::parse("bogus\n").is_err());
    }

    #[test]
    fn diff_turns_a_into_b() {
        let a = EntityDoc::parse(ENTS).unwrap();
        let mut b = a.clone();
        b.entities[1].set("light", "250").unwrap();
        b.entities[2].insert("spawnflags", "1").unwrap();
        b.remove_where(|e| e.classname().as_deref() == Some("info_player_start"));
        b.push(EditEntity::new([("classname", "info_target"), ("targetname", "/slashy/")]).unwrap());
        // Two identical entities in A, one in B: the filter takes both, one comes back.
        let mut a2 = a.clone();
        a2.push(EditEntity::new([("classname", "info_null")]).unwrap());
        a2.push(EditEntity::new([("classname", "info_null")]).unwrap());
        b.push(EditEntity::new([("classname", "info_null")]).unwrap());
        let cfg = diff(&a2, &b).unwrap();
        let mut sim = a2.clone();
        Config::parse(&cfg).unwrap().apply(&mut sim).unwrap();
        assert_eq!(canonical(&sim), canonical(&b), "{cfg}");
        assert!(cfg.contains("modify:") && cfg.contains("replace:"), "{cfg}");
        assert_eq!(diff(&a, &a).unwrap().lines().count(), 1);
    }
}
