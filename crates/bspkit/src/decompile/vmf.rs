//! The `.vmf` text the Source decompiler writes, and a reader for it.
//!
//! A `.vmf` is Valve's KeyValues text: quoted `"key" "value"` pairs and named blocks in
//! braces (`versioninfo`, `world`, `solid`, `side`, `dispinfo`, `entity`, `connections`, …).
//! The layout of the blocks Hammer reads is the one of the corpus's own `.vmf` (srctools'
//! `rot_main.vmf`): a side's `plane` is three points `(x y z) (x y z) (x y z)` with normal
//! `(p0 − p1) × (p2 − p1)`, `uaxis`/`vaxis` are `[x y z offset] scale`.
//!
//! A small reader of our own rather than a crate: it keeps the order of pairs and blocks
//! interleaved (entity keys and `connections` blocks must come back in place), which the
//! KeyValues crates found on crates.io do not promise.

use std::fmt::Write as _;

use crate::error::{Error, Result};

/// One item of a block: a pair or a nested block, in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Pair(String, String),
    Block(Block),
}

/// A named block and its items.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block {
    pub name: String,
    pub items: Vec<Item>,
}

impl Block {
    pub fn new(name: &str) -> Self {
        Block { name: name.to_string(), items: Vec::new() }
    }
    pub fn pair(&mut self, k: &str, v: impl Into<String>) -> &mut Self {
        self.items.push(Item::Pair(k.to_string(), v.into()));
        self
    }
    pub fn block(&mut self, b: Block) -> &mut Self {
        self.items.push(Item::Block(b));
        self
    }
    /// The first value of key `k` (keys compare case-insensitively, as in Hammer).
    pub fn get(&self, k: &str) -> Option<&str> {
        self.items.iter().find_map(|i| match i {
            Item::Pair(a, v) if a.eq_ignore_ascii_case(k) => Some(v.as_str()),
            _ => None,
        })
    }
    pub fn blocks<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Block> + 'a {
        self.items.iter().filter_map(move |i| match i {
            Item::Block(b) if b.name.eq_ignore_ascii_case(name) => Some(b),
            _ => None,
        })
    }
}

fn write_block(out: &mut String, b: &Block, depth: usize) {
    let tabs = |out: &mut String, d: usize| out.extend(std::iter::repeat('\t').take(d));
    tabs(out, depth);
    out.push_str(&b.name);
    out.push('\n');
    tabs(out, depth);
    out.push_str("{\n");
    for i in &b.items {
        match i {
            Item::Pair(k, v) => {
                tabs(out, depth + 1);
                super::mapfile::quoted(out, k);
                out.push(' ');
                super::mapfile::quoted(out, v);
                out.push('\n');
            }
            Item::Block(c) => write_block(out, c, depth + 1),
        }
    }
    tabs(out, depth);
    out.push_str("}\n");
}

/// The bytes [`write_block`] writes for `b` at `depth` (quotes replaced one for one, so the
/// count is exact): the text is allocated once, not grown by doubling and copied.
fn block_len(b: &Block, depth: usize) -> usize {
    // Name line and both brace lines, each indented by `depth` tabs.
    let mut n = 3 * depth + b.name.len() + 1 + 2 + 2;
    for i in &b.items {
        n += match i {
            Item::Pair(k, v) => depth + 1 + k.len() + v.len() + 6,
            Item::Block(c) => block_len(c, depth + 1),
        };
    }
    n
}

/// Top-level blocks as `.vmf` text, after `//` comment lines.
pub fn write(blocks: &[Block], header: &[String]) -> String {
    let size = header.iter().map(|h| h.len() + 4).sum::<usize>() + blocks.iter().map(|b| block_len(b, 0)).sum::<usize>();
    let mut out = String::with_capacity(size);
    for h in header {
        let _ = writeln!(out, "// {h}");
    }
    for b in blocks {
        write_block(&mut out, b, 0);
    }
    debug_assert_eq!(out.len(), size, "block_len counts what write_block writes");
    out
}

/// A number as text: integers without a fraction, others in Rust's shortest exact form.
pub fn num(v: f64) -> String {
    let mut s = String::new();
    super::mapfile::num(&mut s, v);
    s
}

pub fn vec3(v: [f64; 3]) -> String {
    super::mapfile::joined(&v, super::mapfile::num)
}

/// Parse `.vmf` text into its top-level blocks. Pairs at the top level are an error; a
/// missing closing brace is an error naming the byte offset.
pub fn read(text: &[u8]) -> Result<Vec<Block>> {
    let mut toks = Tokens { s: text, at: 0 };
    let mut stack: Vec<Block> = Vec::new();
    let mut top = Vec::new();
    let mut pending: Option<String> = None;
    while let Some(t) = toks.next()? {
        match t {
            Tok::Open => {
                let name = pending.take().ok_or_else(|| Error::malformed("vmf: `{` without a block name").at(toks.at as u64))?;
                // Deep nesting is never legitimate in a .vmf; refuse it rather than recurse.
                if stack.len() > 64 {
                    return Err(Error::malformed("vmf: blocks nested deeper than 64").at(toks.at as u64));
                }
                stack.push(Block { name, items: Vec::new() });
            }
            Tok::Close => {
                if pending.is_some() {
                    return Err(Error::malformed("vmf: key without a value").at(toks.at as u64));
                }
                let b = stack.pop().ok_or_else(|| Error::malformed("vmf: unmatched `}`").at(toks.at as u64))?;
                match stack.last_mut() {
                    Some(p) => p.items.push(Item::Block(b)),
                    None => top.push(b),
                }
            }
            Tok::Str(s) => match pending.take() {
                None => pending = Some(s),
                Some(k) => {
                    let b = stack.last_mut().ok_or_else(|| Error::malformed("vmf: a pair outside any block").at(toks.at as u64))?;
                    b.items.push(Item::Pair(k, s));
                }
            },
        }
    }
    if !stack.is_empty() || pending.is_some() {
        return Err(Error::malformed("vmf: text ends inside a block").at(text.len() as u64));
    }
    Ok(top)
}

enum Tok {
    Open,
    Close,
    Str(String),
}

struct Tokens<'a> {
    s: &'a [u8],
    at: usize,
}

impl Tokens<'_> {
    fn next(&mut self) -> Result<Option<Tok>> {
        loop {
            while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            if self.s[self.at..].starts_with(b"//") {
                while self.at < self.s.len() && self.s[self.at] != b'\n' {
                    self.at += 1;
                }
                continue;
            }
            break;
        }
        let Some(&c) = self.s.get(self.at) else { return Ok(None) };
        self.at += 1;
        Ok(Some(match c {
            b'{' => Tok::Open,
            b'}' => Tok::Close,
            b'"' => {
                let start = self.at;
                let end = memchr::memchr(b'"', &self.s[start..])
                    .map(|p| start + p)
                    .ok_or_else(|| Error::malformed("vmf: unterminated string").at(start as u64))?;
                self.at = end + 1;
                Tok::Str(String::from_utf8_lossy(&self.s[start..end]).into_owned())
            }
            _ => {
                let start = self.at - 1;
                while self.at < self.s.len() && !self.s[self.at].is_ascii_whitespace() && !matches!(self.s[self.at], b'{' | b'}' | b'"') {
                    self.at += 1;
                }
                Tok::Str(String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
            }
        }))
    }
}

/// Numbers in a value, brackets and parentheses ignored (`"(1 2 3) (4 5 6)"`, `"[1 0 0 0] 0.25"`).
pub fn numbers(v: &str) -> Vec<f64> {
    v.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '{' | '}'))
        .filter(|t| !t.is_empty())
        .filter_map(super::mapfile::parse_f64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_order() {
        let mut e = Block::new("entity");
        e.pair("id", "2").pair("classname", "logic_relay");
        let mut c = Block::new("connections");
        c.pair("OnTrigger", "a,Kill,,0,-1");
        e.block(c).pair("targetname", "r");
        let text = write(&[e.clone()], &["hello".into()]);
        let back = read(text.as_bytes()).unwrap();
        assert_eq!(back, vec![e]);
        assert!(read(b"entity { \"a\" ").is_err());
        assert!(read(b"}").is_err());
        assert_eq!(numbers("(1 2.5 -3) [4 0 0 0] 0.25"), vec![1.0, 2.5, -3.0, 4.0, 0.0, 0.0, 0.0, 0.25]);
    }
}
