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

use std::collections::HashMap;

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

/// `"key" "value"` with both parts non-empty and free of quotes; `Err` (the text) when the
/// pair is followed by anything but spaces (`"k" "v"x"` must not lose its tail silently).
fn pair_line(line: &str) -> std::result::Result<Option<(&str, &str)>, &str> {
    let parse = || -> Option<(&str, &str, &str)> {
        let rest = line.strip_prefix('"')?;
        let (key, rest) = rest.split_once('"')?;
        let rest = rest.trim_start();
        if rest.len() == line.len() {
            return None;
        }
        let rest = rest.strip_prefix('"')?;
        let (value, tail) = rest.split_once('"')?;
        (!key.is_empty() && !value.is_empty()).then_some((key, value, tail))
    };
    match parse() {
        Some((_, _, tail)) if !tail.trim().is_empty() => Err(tail.trim()),
        Some((k, v, _)) => Ok(Some((k, v))),
        None => Ok(None),
    }
}

/// A config line split into statements: `filter:{}` is `filter:`, `{`, `}`; `{ }` is `{`, `}`.
/// A pair (starting with `"`) takes the rest of the line.
fn statements(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        if rest.starts_with('{') || rest.starts_with('}') {
            out.push(&rest[..1]);
            rest = rest[1..].trim_start();
        } else if rest.starts_with('"') {
            out.push(rest);
            break;
        } else if let Some(i) = rest.find(':').filter(|&i| !rest[..i].contains(['{', '}', '"'])) {
            out.push(&rest[..=i]);
            rest = rest[i + 1..].trim_start();
        } else {
            out.push(rest);
            break;
        }
    }
    out
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
        let mut block_line = 0;
        for (n, raw) in text.lines().enumerate() {
            let line_no = n + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with("//") || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            for line in statements(line) {
                if line.starts_with('{') {
                    if depth == 0 {
                        block_line = line_no;
                    }
                    depth += 1;
                    continue;
                }
                if line.starts_with('}') {
                    if depth == 0 {
                        return Err(Error::malformed(format!("line {line_no}: '}}' without a block")));
                    }
                    depth -= 1;
                    if depth == 0 {
                        // A block without conditions would match every entity (worldspawn too).
                        let empty = match mode {
                            Mode::Filter => generic.is_empty(),
                            Mode::Add => generic_exact.is_empty(),
                            Mode::Modify => m.is_empty(),
                        };
                        if empty {
                            let what = match mode {
                                Mode::Filter => "filter block without a pair would remove every entity",
                                Mode::Add => "add block without a pair would add an empty entity",
                                Mode::Modify => "modify block without match pairs would change every entity",
                            };
                            return Err(Error::malformed(format!("line {block_line}: {what}; refused")));
                        }
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
                let pair =
                    pair_line(line).map_err(|tail| Error::malformed(format!("line {line_no}: text {tail:?} after the key/value pair")))?;
                if let Some((k, v)) = pair {
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
        }
        if depth != 0 {
            return Err(Error::malformed("config ends inside a block"));
        }
        Ok(Config { blocks })
    }

    /// Apply every block in order. Returns the number of entities removed, added and modified.
    ///
    /// Entities are indexed by exact pair, so a block with an exact condition looks only at the
    /// entities having its rarest pair; removals are marked and compacted once at the end. The
    /// time grows with the entities and the blocks, not with their product (a block with only
    /// regular expressions still scans every entity).
    pub fn apply(&self, doc: &mut EntityDoc) -> Result<(usize, usize, usize)> {
        let (mut removed, mut added, mut modified) = (0, 0, 0);
        let mut index = PairIndex::default();
        for (i, e) in doc.entities.iter().enumerate() {
            index.add(i, e);
        }
        let mut alive = vec![true; doc.entities.len()];
        for b in &self.blocks {
            match b {
                Block::Filter(conds) => {
                    for i in index.candidates(conds, &alive) {
                        if has_all(&doc.entities[i], conds) {
                            alive[i] = false;
                            removed += 1;
                        }
                    }
                }
                Block::Add(pairs) => {
                    let e = EditEntity::new(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
                    index.add(doc.entities.len(), &e);
                    doc.push(e);
                    alive.push(true);
                    added += 1;
                }
                Block::Modify { matches, replace, delete, insert } => {
                    let hits: Vec<usize> =
                        index.candidates(matches, &alive).into_iter().filter(|&i| has_all(&doc.entities[i], matches)).collect();
                    for i in hits {
                        if modify_entity(&mut doc.entities[i], replace, delete, insert)? {
                            modified += 1;
                            index.add(i, &doc.entities[i]);
                        }
                    }
                }
            }
        }
        if removed > 0 {
            let mut keep = alive.into_iter();
            doc.entities.retain(|_| keep.next().unwrap_or(true));
        }
        Ok((removed, added, modified))
    }
}

/// Entity positions by exact `(key, value)` pair. Lists may hold positions whose entity no
/// longer has the pair (after a modify): candidates are always checked against the entity.
#[derive(Default)]
struct PairIndex {
    post: HashMap<(Vec<u8>, Vec<u8>), Vec<usize>>,
}

impl PairIndex {
    fn add(&mut self, i: usize, e: &EditEntity) {
        for p in e.raw_pairs() {
            let list = self.post.entry((p.0.to_vec(), p.1.to_vec())).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    /// Live positions that may satisfy `conds`, in order: the list of the rarest exact
    /// condition, or every live position when all conditions are regular expressions.
    fn candidates(&self, conds: &[(String, Pattern)], alive: &[bool]) -> Vec<usize> {
        let mut best: Option<&[usize]> = None;
        for (k, p) in conds {
            if let Pattern::Exact(v) = p {
                let list = self.post.get(&(k.as_bytes().to_vec(), v.as_bytes().to_vec())).map(|l| l.as_slice()).unwrap_or(&[]);
                if !matches!(best, Some(b) if b.len() <= list.len()) {
                    best = Some(list);
                }
            }
        }
        let mut out: Vec<usize> = match best {
            Some(list) => list.iter().copied().filter(|&i| alive[i]).collect(),
            None => (0..alive.len()).filter(|&i| alive[i]).collect(),
        };
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A `modify` block's changes to one matching entity: `replace` sets keys the entity has (the
/// first pair keeps its place, later duplicates go), `delete` removes matching pairs, `insert`
/// appends. Returns whether the entity changed.
fn modify_entity(
    e: &mut EditEntity,
    replace: &[(String, String)],
    delete: &[(String, Pattern)],
    insert: &[(String, String)],
) -> Result<bool> {
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
    Ok(*e != before)
}

fn has_all(e: &EditEntity, conds: &[(String, Pattern)]) -> bool {
    conds.iter().all(|(k, p)| e.raw_pairs().any(|(pk, pv)| pk == k.as_bytes() && p.matches(pv)))
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

type Pair = (Vec<u8>, Vec<u8>);

/// The entities a config has produced so far, indexed by pair, so that "the entities having
/// all these pairs" costs the rarest pair's list instead of a pass over every entity (what keeps
/// [`diff`] near-linear), and by shape (sorted pairs) for the counts the filters need.
struct Sim {
    ents: Vec<Option<EditEntity>>,
    pairs: PairIndex,
    shapes: HashMap<Pairs, usize>,
}

impl Sim {
    fn new(doc: &EntityDoc) -> Self {
        let mut sim = Sim { ents: Vec::with_capacity(doc.len()), pairs: PairIndex::default(), shapes: HashMap::new() };
        for e in &doc.entities {
            sim.push(e.clone());
        }
        sim
    }
    fn index(&mut self, i: usize, e: &EditEntity) {
        self.pairs.add(i, e);
        *self.shapes.entry(sorted(&e.owned_pairs())).or_default() += 1;
    }
    fn unshape(&mut self, e: &EditEntity) {
        if let Some(c) = self.shapes.get_mut(&sorted(&e.owned_pairs())) {
            *c = c.saturating_sub(1);
        }
    }
    fn push(&mut self, e: EditEntity) {
        let i = self.ents.len();
        self.index(i, &e);
        self.ents.push(Some(e));
    }
    /// Live entities having every pair of `conds` (non-empty), in order.
    fn matching(&self, conds: &[Pair]) -> Vec<usize> {
        let mut best: Option<&Vec<usize>> = None;
        for c in conds {
            match self.pairs.post.get(c) {
                None => return Vec::new(),
                Some(l) => {
                    if !matches!(best, Some(b) if b.len() <= l.len()) {
                        best = Some(l);
                    }
                }
            }
        }
        let Some(list) = best else { return Vec::new() };
        let mut out: Vec<usize> = list
            .iter()
            .copied()
            .filter(|&i| matches!(&self.ents[i], Some(e) if conds.iter().all(|c| e.raw_pairs().any(|(k, v)| k == c.0 && v == c.1))))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
    fn modify(&mut self, i: usize, f: impl FnOnce(&mut EditEntity) -> Result<bool>) -> Result<()> {
        let Some(mut e) = self.ents[i].take() else { return Ok(()) };
        self.unshape(&e);
        let r = f(&mut e);
        self.index(i, &e);
        self.ents[i] = Some(e);
        r.map(drop)
    }
    fn remove(&mut self, i: usize) -> Option<EditEntity> {
        let e = self.ents[i].take()?;
        self.unshape(&e);
        Some(e)
    }
    fn count_shape(&self, shape: &Pairs) -> usize {
        self.shapes.get(shape).copied().unwrap_or(0)
    }
}

fn entity_of(p: &Pairs) -> Result<EditEntity> {
    EditEntity::new(p.iter().map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned())))
}

/// Write a config that turns the entities of `a` into those of `b` (as collections of entities,
/// each a collection of pairs; the order of entities and of pairs is not kept). Entities that
/// differ and share a unique `hammerid` (or classname + targetname + origin) become `modify`
/// blocks; others are removed with `filter` and written with `add`. Entities are indexed by
/// shape, key and pair, so the time grows near-linearly with the number of entities.
pub fn diff(a: &EntityDoc, b: &EntityDoc) -> Result<String> {
    let pa: Vec<Pairs> = a.entities.iter().map(|e| e.owned_pairs()).collect();
    let pb: Vec<Pairs> = b.entities.iter().map(|e| e.owned_pairs()).collect();
    let sa: Vec<Pairs> = pa.iter().map(sorted).collect();
    let sb: Vec<Pairs> = pb.iter().map(sorted).collect();
    for (doc, p) in [("first", &pa), ("second", &pb)] {
        if let Some(i) = p.iter().position(|e| e.is_empty()) {
            return Err(Error::malformed(format!("entity {i} of the {doc} map has no pairs; a Stripper config cannot select or add it")));
        }
    }
    // Pair identical entities first (each with the first unused identical one of B).
    let mut by_shape: HashMap<&Pairs, std::collections::VecDeque<usize>> = HashMap::new();
    for (j, x) in sb.iter().enumerate() {
        by_shape.entry(x).or_default().push_back(j);
    }
    let mut used_b = vec![false; pb.len()];
    let mut left_a = Vec::new();
    for (i, x) in sa.iter().enumerate() {
        match by_shape.get_mut(x).and_then(|q| q.pop_front()) {
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
    let ka: HashMap<usize, Vec<u8>> = left_a.iter().filter_map(|&i| Some((i, key(&pa[i])?))).collect();
    let mut count_a: HashMap<&[u8], usize> = HashMap::new();
    for k in ka.values() {
        *count_a.entry(k).or_default() += 1;
    }
    let kb: Vec<(usize, Vec<u8>)> = left_b.iter().filter_map(|&j| Some((j, key(&pb[j])?))).collect();
    let mut in_b: HashMap<&[u8], (usize, usize)> = HashMap::new();
    for (j, k) in &kb {
        let slot = in_b.entry(k).or_insert((0, *j));
        slot.0 += 1;
    }
    let mut out = String::from("// Written by bspkit (`bsp ents diff --stripper`).\n");
    let mut sim = Sim::new(a);
    let mut modified_a = vec![false; pa.len()];
    let mut modified_b = vec![false; pb.len()];
    for &i in &left_a {
        let Some(k) = ka.get(&i) else { continue };
        let (Some(1), Some(&(1, j))) = (count_a.get(k.as_slice()).copied(), in_b.get(k.as_slice())) else { continue };
        // The match must select this entity alone.
        if sim.matching(&pa[i]) != [i] {
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
        // The block selects entity i alone (checked above): apply it there only.
        let cfg = Config::parse(&block)?;
        if let Some(Block::Modify { replace, delete, insert, .. }) = cfg.blocks.first() {
            sim.modify(i, |e| modify_entity(e, replace, delete, insert))?;
        }
        out += &block;
        modified_a[i] = true;
        modified_b[j] = true;
    }
    // Remove what is left of A; re-add anything a filter removed that must stay.
    let mut want: HashMap<&Pairs, usize> = HashMap::new();
    for x in &sb {
        *want.entry(x).or_default() += 1;
    }
    let mut pending: HashMap<&Pairs, usize> = HashMap::new();
    for &j in left_b.iter().filter(|&&j| !modified_b[j]) {
        *pending.entry(&sb[j]).or_default() += 1;
    }
    for &i in left_a.iter().filter(|&&i| !modified_a[i]) {
        if sim.count_shape(&sa[i]) == 0 {
            continue; // already removed by an earlier filter
        }
        let mut block = String::from("filter:\n{\n");
        for (k, v) in &pa[i] {
            block += &format!("\t\"{}\" \"{}\"\n", String::from_utf8_lossy(k), match_value(v));
        }
        block += "}\n";
        Config::parse(&block)?;
        let removed: Vec<Pairs> = sim.matching(&pa[i]).into_iter().filter_map(|id| sim.remove(id)).map(|e| e.owned_pairs()).collect();
        out += &block;
        // Entities the filter took that the target still has (identical or not yet re-added) come back.
        for r in removed {
            let sr = sorted(&r);
            let need = want.get(&sr).copied().unwrap_or(0);
            let have = sim.count_shape(&sr);
            let pend = pending.get(&sr).copied().unwrap_or(0);
            if have + pend < need {
                out += &add_block(&r)?;
                sim.push(entity_of(&r)?);
            }
        }
    }
    for &j in left_b.iter().filter(|&&j| !modified_b[j]) {
        out += &add_block(&pb[j])?;
        sim.push(entity_of(&pb[j])?);
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
    let mut v: Vec<Pairs> = doc.entities.iter().map(|e| sorted(&e.owned_pairs())).collect();
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
    fn later_blocks_see_earlier_changes() {
        // The pair index follows modifies and adds: a block matches what earlier blocks made.
        let cfg = Config::parse(
            "modify:\n{\nmatch:\n{\n\"targetname\" \"l1\"\n}\nreplace:\n{\n\"targetname\" \"renamed\"\n}\n}\n\
             modify:\n{\nmatch:\n{\n\"targetname\" \"renamed\"\n}\ninsert:\n{\n\"seen\" \"1\"\n}\n}\n\
             filter:\n{\n\"targetname\" \"l1\"\n}\n\
             add:\n{\n\"classname\" \"info_null\"\n\"targetname\" \"t\"\n}\n\
             filter:\n{\n\"targetname\" \"t\"\n}\n",
        )
        .unwrap();
        let mut doc = EntityDoc::parse(ENTS).unwrap();
        let (r, a, m) = cfg.apply(&mut doc).unwrap();
        assert_eq!((r, a, m), (1, 1, 2));
        let text = String::from_utf8(doc.to_bytes()).unwrap();
        assert!(text.contains("\"targetname\" \"renamed\"\n\"light\" \"200\"\n\"seen\" \"1\""), "{text}");
        assert!(!text.contains("info_null"), "{text}");
        assert_eq!(doc.len(), 4);
    }

    #[test]
    fn refuses_empty_blocks_and_trailing_text() {
        for cfg in [
            "filter:\n{\n}\n",
            "{ }\n",
            "filter:{}\n",
            "remove:\n{}\n",
            "modify:\n{\nreplace:\n{\n\"a\" \"b\"\n}\n}\n",
            "modify:\n{\nmatch:\n{\n}\ninsert:\n{\n\"a\" \"b\"\n}\n}\n",
            "add:\n{\n}\n",
        ] {
            let err = Config::parse(cfg).unwrap_err();
            assert!(err.to_string().contains("refused"), "{cfg:?}: {err}");
        }
        let err = Config::parse("filter:\n{\n\"k\" \"v\"x\"\n}\n").unwrap_err();
        assert!(err.to_string().contains("after the key/value pair"), "{err}");
        // One-line forms of non-empty blocks still read.
        let cfg = Config::parse("filter:{\n\"classname\" \"light\"\n}\n").unwrap();
        assert_eq!(cfg.blocks.len(), 1);
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
