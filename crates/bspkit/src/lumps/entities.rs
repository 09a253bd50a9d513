//! The entity lump: `{ "key" "value" … }` blocks of text, shared by every family.
//!
//! Parsing is lossless: every entity keeps its pairs in file order (duplicate keys included)
//! and its byte span, so unchanged entities can be written back exactly as they were.

use std::borrow::Cow;
use std::ops::Range;

use crate::error::{Error, Result};

/// One entity: its key/value pairs in file order, borrowed from the lump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity<'a> {
    /// Byte range of the entity (from `{` to `}` inclusive) in the entity text.
    pub span: Range<usize>,
    pub pairs: Vec<(&'a [u8], &'a [u8])>,
}

impl<'a> Entity<'a> {
    /// The first value of `key` (keys compare exactly, as the engines do).
    pub fn get(&self, key: &str) -> Option<Cow<'a, str>> {
        self.pairs.iter().find(|(k, _)| *k == key.as_bytes()).map(|(_, v)| String::from_utf8_lossy(v))
    }
    /// Every value of `key`, in order.
    pub fn get_all<'s>(&'s self, key: &'s str) -> impl Iterator<Item = Cow<'a, str>> + 's {
        self.pairs.iter().filter(move |(k, _)| *k == key.as_bytes()).map(|(_, v)| String::from_utf8_lossy(v))
    }
    pub fn classname(&self) -> Option<Cow<'a, str>> {
        self.get("classname")
    }
    /// Pairs as text (invalid UTF-8 replaced).
    pub fn iter(&self) -> impl Iterator<Item = (Cow<'a, str>, Cow<'a, str>)> + '_ {
        self.pairs.iter().map(|(k, v)| (String::from_utf8_lossy(k), String::from_utf8_lossy(v)))
    }
}

/// All entities of a lump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entities<'a> {
    /// The text parsed (up to the first NUL).
    pub text: &'a [u8],
    pub list: Vec<Entity<'a>>,
}

impl<'a> Entities<'a> {
    pub fn len(&self) -> usize {
        self.list.len()
    }
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Entity<'a>> {
        self.list.iter()
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    Open(usize),
    Close(usize),
    Str(&'a [u8]),
}

struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn next(&mut self) -> Result<Option<Token<'a>>> {
        let t = self.text;
        loop {
            while self.pos < t.len() && (t[self.pos].is_ascii_whitespace() || t[self.pos] == 0) {
                self.pos += 1;
            }
            // `//` comments run to the end of the line (accepted by Quake 3 / Source parsers).
            if t[self.pos..].starts_with(b"//") {
                while self.pos < t.len() && t[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
        let Some(&c) = t.get(self.pos) else { return Ok(None) };
        let start = self.pos;
        match c {
            b'{' => {
                self.pos += 1;
                Ok(Some(Token::Open(start)))
            }
            b'}' => {
                self.pos += 1;
                Ok(Some(Token::Close(start)))
            }
            b'"' => {
                // No escapes: the engines read up to the next quote, newlines included.
                let body = start + 1;
                match find_quote(&t[body..]) {
                    Some(n) => {
                        self.pos = body + n + 1;
                        Ok(Some(Token::Str(&t[body..body + n])))
                    }
                    None => Err(Error::malformed("unterminated quoted string in entity text").at(start as u64)),
                }
            }
            _ => {
                // A bare word, as Quake's COM_Parse accepts.
                while self.pos < t.len() && !t[self.pos].is_ascii_whitespace() && !matches!(t[self.pos], b'{' | b'}' | b'"') {
                    self.pos += 1;
                }
                Ok(Some(Token::Str(&t[start..self.pos])))
            }
        }
    }
}

/// The position of the first `"` in `s`. Keys and values are mostly short, so their first 32
/// bytes are tested eight at a time in a plain integer (no vector search set up for a quote a
/// few bytes on); longer ones go to `memchr`.
fn find_quote(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut i = 0;
    while i < 32 {
        let Some(chunk) = s.get(i..i + 8) else { break };
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ (ONES * b'"' as u64);
        // The lowest zero byte of `x` (a quote) sets the top bit of its byte here; bits above
        // it may be set by the borrow, so only the lowest one is taken.
        let zero = x.wrapping_sub(ONES) & !x & (ONES << 7);
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr(b'"', &s[i..]).map(|n| n + i)
}

/// Parse entity text. Errors carry the byte offset within `text`.
pub fn parse(text: &[u8]) -> Result<Entities<'_>> {
    let text = up_to_nul(text);
    let mut list = Vec::new();
    parse_each(text, |span, pairs| list.push(Entity { span, pairs: pairs.to_vec() }))?;
    Ok(Entities { text, list })
}

/// Where [`parse`] finds the entities of a text: each entity's span and its pairs as byte
/// ranges of the text. A map keeps it ([`crate::Bsp::entities`]) so that the checks, the info
/// rows and the statistics, which each ask for the entities, lex the text once;
/// [`Outline::entities`] hands out what [`parse`] would give for the same text.
#[derive(Debug, Clone)]
pub(crate) struct Outline {
    /// Length of the text parsed (up to the first NUL).
    len: usize,
    /// Per entity: its span, and the range of its pairs in `pairs`.
    entities: Vec<(Range<usize>, Range<usize>)>,
    /// Key start, key end, value start, value end: offsets in the text.
    pairs: Vec<[usize; 4]>,
}

impl Outline {
    /// Lex `text` as [`parse`] does; the same error where it fails.
    pub(crate) fn of(text: &[u8]) -> Result<Outline> {
        let text = up_to_nul(text);
        let base = text.as_ptr() as usize;
        // The lexer's keys and values are subslices of `text`: their offsets are the distance
        // of their addresses from its start.
        let at = |s: &[u8]| s.as_ptr() as usize - base;
        let mut entities = Vec::new();
        let mut pairs = Vec::new();
        parse_each(text, |span, found| {
            let first = pairs.len();
            let mut i = 0;
            while i < found.len() {
                let (k, v) = found[i];
                pairs.push([at(k), at(k) + k.len(), at(v), at(v) + v.len()]);
                i += 1;
            }
            entities.push((span, first..pairs.len()));
        })?;
        Ok(Outline { len: text.len(), entities, pairs })
    }

    /// The entities of `text`, which must be the text this outline was made from.
    pub(crate) fn entities<'a>(&self, text: &'a [u8]) -> Entities<'a> {
        let text = &text[..self.len];
        let mut list = Vec::with_capacity(self.entities.len());
        let mut e = 0;
        while e < self.entities.len() {
            let (span, range) = &self.entities[e];
            let mut pairs = Vec::with_capacity(range.len());
            let mut p = range.start;
            while p < range.end {
                let [ks, ke, vs, ve] = self.pairs[p];
                pairs.push((&text[ks..ke], &text[vs..ve]));
                p += 1;
            }
            list.push(Entity { span: span.clone(), pairs });
            e += 1;
        }
        Entities { text, list }
    }
}

/// The entity text of a lump: up to its first NUL.
fn up_to_nul(lump: &[u8]) -> &[u8] {
    &lump[..memchr::memchr(0, lump).unwrap_or(lump.len())]
}

/// Parse entity text (already cut at its NUL), handing each entity's span and pairs to `each`
/// as it is read (the pairs in a buffer reused from one entity to the next).
fn parse_each<'a>(text: &'a [u8], mut each: impl FnMut(Range<usize>, &[(&'a [u8], &'a [u8])])) -> Result<()> {
    let mut lx = Lexer { text, pos: 0 };
    let mut pairs = Vec::new();
    while let Some(tok) = lx.next()? {
        let open = match tok {
            Token::Open(p) => p,
            Token::Close(p) => return Err(Error::malformed("'}' without an open entity").at(p as u64)),
            Token::Str(_) => return Err(Error::malformed("text outside an entity block").at(lx.pos as u64)),
        };
        pairs.clear();
        loop {
            match lx.next()? {
                Some(Token::Close(p)) => {
                    each(open..p + 1, &pairs);
                    break;
                }
                Some(Token::Str(k)) => match lx.next()? {
                    Some(Token::Str(v)) => pairs.push((k, v)),
                    _ => return Err(Error::malformed("entity key without a value").at(lx.pos as u64)),
                },
                Some(Token::Open(p)) => return Err(Error::malformed("'{' inside an entity").at(p as u64)),
                None => return Err(Error::malformed("entity block not closed before the end of the lump").at(open as u64)),
            }
        }
    }
    Ok(())
}

/// Write entities as text in the engines' usual style: `{\n"key" "value"\n}\n` per entity.
pub fn to_text<'a, I, P>(entities: I) -> String
where
    I: IntoIterator<Item = P>,
    P: IntoIterator<Item = (Cow<'a, str>, Cow<'a, str>)>,
{
    let mut s = String::new();
    for e in entities {
        s.push_str("{\n");
        for (k, v) in e {
            s.push('"');
            s.push_str(&k);
            s.push_str("\" \"");
            s.push_str(&v);
            s.push_str("\"\n");
        }
        s.push_str("}\n");
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Editing. An [`EntityDoc`] owns a copy of the lump and keeps, for every entity read from it,
// its original bytes and the bytes that followed it; only entities that were changed or added
// are serialised again, in the style detected from the lump (source.md §13; the engines read a
// quoted key, white space and a quoted value, with no escapes).

/// How entity text is laid out in one lump, detected from its first entity with pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityStyle {
    /// White space after `{` (e.g. `"\n"`).
    pub open: Vec<u8>,
    /// Between a key's closing quote and the value's opening quote (e.g. `" "`).
    pub sep: Vec<u8>,
    /// Between one pair and the next (e.g. `"\n"`).
    pub line: Vec<u8>,
    /// Between the last pair and `}`.
    pub close: Vec<u8>,
    /// After `}`, before the next entity.
    pub after: Vec<u8>,
}

impl EntityStyle {
    /// The usual compiler output with the given newline.
    pub fn plain(newline: &[u8]) -> Self {
        EntityStyle { open: newline.to_vec(), sep: b" ".to_vec(), line: newline.to_vec(), close: newline.to_vec(), after: newline.to_vec() }
    }

    /// The style of one entity, when every key and value of it is quoted (and it has pairs):
    /// the lump's style is that of its first such entity.
    fn of_entity(text: &[u8], newline: &[u8], span: &Range<usize>, pairs: &[(&[u8], &[u8])]) -> Option<Self> {
        let base = text.as_ptr() as usize;
        let at = |s: &[u8]| s.as_ptr() as usize - base;
        let ws = |r: &[u8]| r.iter().all(|b| b.is_ascii_whitespace());
        let quoted = |s: &[u8]| {
            let o = at(s);
            o > 0 && text.get(o - 1) == Some(&b'"') && text.get(o + s.len()) == Some(&b'"')
        };
        if pairs.is_empty() || !pairs.iter().all(|(k, v)| quoted(k) && quoted(v)) {
            return None;
        }
        let mut style = EntityStyle::plain(newline);
        let (k0, v0) = pairs[0];
        let open = &text[span.start + 1..at(k0) - 1];
        let sep = &text[at(k0) + k0.len() + 1..at(v0) - 1];
        let (_, vl) = pairs[pairs.len() - 1];
        let close = &text[at(vl) + vl.len() + 1..span.end - 1];
        if ws(open) && ws(close) && !sep.is_empty() && ws(sep) {
            style.open = open.to_vec();
            style.sep = sep.to_vec();
            style.close = close.to_vec();
        }
        if let Some(&(k1, _)) = pairs.get(1) {
            let line = &text[at(v0) + v0.len() + 1..at(k1) - 1];
            if !line.is_empty() && ws(line) {
                style.line = line.to_vec();
            }
        }
        Some(style)
    }
}

/// One entity being edited: its pairs (bytes, in order, duplicates kept) and where it came from.
///
/// The pairs live in one buffer per entity, with their positions beside it, rather than as a
/// `Vec` per key and value: a map of 3,000 entities and 34,000 pairs is then read with two
/// allocations per entity instead of two per pair, which made most of the time of reading it
/// (malloc and free, profiled). A read entity's buffer is its own text, `{` to `}`, as the lump
/// holds it; an edit appends the new bytes and points the pair at them.
#[derive(Clone)]
pub struct EditEntity {
    /// The bytes the pairs point into (and, after edits, some that no pair uses any more).
    text: Vec<u8>,
    /// Each pair's key and value, as `[key start, key end, value start, value end]` in `text`.
    pairs: Vec<[u32; 4]>,
    /// The original bytes of the entity (`{` … `}`), while it is unchanged.
    original: Option<Range<usize>>,
    /// The bytes that followed it in the lump (separator), if it was read from the lump.
    tail: Option<Range<usize>>,
}

impl PartialEq for EditEntity {
    fn eq(&self, other: &Self) -> bool {
        self.original == other.original && self.tail == other.tail && self.raw_pairs().eq(other.raw_pairs())
    }
}

impl Eq for EditEntity {}

impl std::fmt::Debug for EditEntity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditEntity")
            .field("pairs", &self.pairs().collect::<Vec<_>>())
            .field("original", &self.original)
            .field("tail", &self.tail)
            .finish()
    }
}

/// The pairs of an [`EditEntity`] as bytes, in order ([`EditEntity::raw_pairs`]).
#[derive(Clone)]
pub struct RawPairs<'e> {
    text: &'e [u8],
    pairs: std::slice::Iter<'e, [u32; 4]>,
}

impl<'e> RawPairs<'e> {
    fn pair(text: &'e [u8], p: &[u32; 4]) -> (&'e [u8], &'e [u8]) {
        (&text[p[0] as usize..p[1] as usize], &text[p[2] as usize..p[3] as usize])
    }
}

impl<'e> Iterator for RawPairs<'e> {
    type Item = (&'e [u8], &'e [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        self.pairs.next().map(|p| Self::pair(self.text, p))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.pairs.size_hint()
    }
}

impl DoubleEndedIterator for RawPairs<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.pairs.next_back().map(|p| Self::pair(self.text, p))
    }
}

impl ExactSizeIterator for RawPairs<'_> {}

fn check_text(what: &str, s: &str) -> Result<()> {
    if s.contains('"') {
        return Err(Error::malformed(format!("entity {what} {s:?} contains '\"', which entity text cannot hold")));
    }
    if s.contains('\0') {
        return Err(Error::malformed(format!("entity {what} {s:?} contains a NUL byte")));
    }
    Ok(())
}

impl EditEntity {
    /// A new entity with these pairs.
    pub fn new<K: AsRef<str>, V: AsRef<str>>(pairs: impl IntoIterator<Item = (K, V)>) -> Result<Self> {
        let mut e = EditEntity { text: Vec::new(), pairs: Vec::new(), original: None, tail: None };
        for (k, v) in pairs {
            e.insert(k.as_ref(), v.as_ref())?;
        }
        Ok(e)
    }
    /// A read entity: its text (`{` to `}`) copied once, the pairs pointing into it.
    fn read(text: &[u8], span: Range<usize>, pairs: &[(&[u8], &[u8])]) -> Self {
        let own = &text[span.clone()];
        let base = own.as_ptr() as usize;
        // Offsets fit in u32: an entity lies inside a lump, whose length every format stores
        // in 32 bits.
        let at = |s: &[u8]| (s.as_ptr() as usize - base) as u32;
        let pairs = pairs.iter().map(|(k, v)| [at(k), at(k) + k.len() as u32, at(v), at(v) + v.len() as u32]).collect();
        // The tail is set when the next entity (or the end of the text) is reached.
        EditEntity { text: own.to_vec(), pairs, tail: Some(span.end..span.end), original: Some(span) }
    }
    /// Has it changed since it was read (or is it new)?
    pub fn is_changed(&self) -> bool {
        self.original.is_none()
    }
    /// Pairs as text (invalid UTF-8 replaced).
    pub fn pairs(&self) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> + '_ {
        self.raw_pairs().map(|(k, v)| (String::from_utf8_lossy(k), String::from_utf8_lossy(v)))
    }
    /// Pairs as bytes, in order.
    pub fn raw_pairs(&self) -> RawPairs<'_> {
        RawPairs { text: &self.text, pairs: self.pairs.iter() }
    }
    /// The pairs as owned bytes.
    pub fn owned_pairs(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.raw_pairs().map(|(k, v)| (k.to_vec(), v.to_vec())).collect()
    }
    /// How many pairs it has.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<Cow<'_, str>> {
        self.raw_pairs().find(|(k, _)| *k == key.as_bytes()).map(|(_, v)| String::from_utf8_lossy(v))
    }
    /// Every value of `key`.
    pub fn get_all<'s>(&'s self, key: &'s str) -> impl Iterator<Item = Cow<'s, str>> + 's {
        self.raw_pairs().filter(move |(k, _)| *k == key.as_bytes()).map(|(_, v)| String::from_utf8_lossy(v))
    }
    pub fn classname(&self) -> Option<Cow<'_, str>> {
        self.get("classname")
    }
    /// How many pairs have this key.
    pub fn count(&self, key: &str) -> usize {
        self.raw_pairs().filter(|(k, _)| *k == key.as_bytes()).count()
    }
    /// Positions (in `pairs`) of the pairs with this key.
    fn with_key<'s>(&'s self, key: &'s str) -> impl Iterator<Item = usize> + 's {
        self.raw_pairs().enumerate().filter(move |(_, (k, _))| *k == key.as_bytes()).map(|(i, _)| i)
    }
    /// Append a key's and a value's bytes to the buffer, returning where each starts and where
    /// the value ends. The buffer is compacted first when most of it is bytes no pair uses
    /// (repeated sets of one key must not grow it forever).
    fn append(&mut self, key: &[u8], value: &[u8]) -> Result<[u32; 3]> {
        let live: usize = self.pairs.iter().map(|p| (p[1] - p[0] + p[3] - p[2]) as usize).sum();
        if self.text.len() > 2 * live + 256 {
            let mut text = Vec::with_capacity(live + key.len() + value.len());
            for p in &mut self.pairs {
                let (key, value) = RawPairs::pair(&self.text, p);
                let k = text.len() as u32;
                text.extend_from_slice(key);
                let v = text.len() as u32;
                text.extend_from_slice(value);
                *p = [k, v, v, text.len() as u32];
            }
            self.text = text;
        }
        let start = self.text.len();
        let end = u32::try_from(start + key.len() + value.len()).map_err(|_| Error::malformed("entity text over 4 GiB"))?;
        self.text.extend_from_slice(key);
        self.text.extend_from_slice(value);
        Ok([start as u32, (start + key.len()) as u32, end])
    }
    /// Point pair `i`'s value at new bytes.
    fn replace_value(&mut self, i: usize, value: &str) -> Result<()> {
        let [s, _, e] = self.append(&[], value.as_bytes())?;
        self.pairs[i][2] = s;
        self.pairs[i][3] = e;
        self.original = None;
        Ok(())
    }
    fn value_at(&self, i: usize) -> &[u8] {
        RawPairs::pair(&self.text, &self.pairs[i]).1
    }
    /// Set the `n`th pair (0-based) with this key; false (and nothing changed) when there are
    /// fewer. Setting the value it already has changes nothing.
    pub fn set_nth(&mut self, key: &str, n: usize, value: &str) -> Result<bool> {
        check_text("value", value)?;
        let Some(i) = self.with_key(key).nth(n) else { return Ok(false) };
        if self.value_at(i) != value.as_bytes() {
            self.replace_value(i, value)?;
        }
        Ok(true)
    }
    /// Set every pair with this key (appending one when there is none); returns how many pairs
    /// hold the value afterwards.
    pub fn set_all(&mut self, key: &str, value: &str) -> Result<usize> {
        let n = self.count(key);
        if n == 0 {
            self.insert(key, value)?;
            return Ok(1);
        }
        for i in 0..n {
            self.set_nth(key, i, value)?;
        }
        Ok(n)
    }
    /// Remove the `n`th pair (0-based) with this key; false when there are fewer.
    pub fn remove_nth(&mut self, key: &str, n: usize) -> bool {
        let Some(pos) = self.with_key(key).nth(n) else { return false };
        self.pairs.remove(pos);
        self.original = None;
        true
    }
    /// Set `key`: the first pair with that key gets the value; without one, a pair is appended.
    /// Setting the value it already has changes nothing.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        check_text("key", key)?;
        check_text("value", value)?;
        let first = self.with_key(key).next();
        match first {
            Some(i) if self.value_at(i) == value.as_bytes() => {}
            Some(i) => self.replace_value(i, value)?,
            None => self.insert(key, value)?,
        }
        Ok(())
    }
    /// Append a pair (keys may repeat, e.g. outputs).
    pub fn insert(&mut self, key: &str, value: &str) -> Result<()> {
        check_text("key", key)?;
        check_text("value", value)?;
        let [k, v, end] = self.append(key.as_bytes(), value.as_bytes())?;
        self.pairs.push([k, v, v, end]);
        self.original = None;
        Ok(())
    }
    /// Remove every pair with this key; returns how many were removed.
    pub fn remove_key(&mut self, key: &str) -> usize {
        self.remove_where(|k, _| k == key.as_bytes())
    }
    /// Remove the pairs for which `f(key, value)` holds; returns how many were removed.
    pub fn remove_where(&mut self, mut f: impl FnMut(&[u8], &[u8]) -> bool) -> usize {
        let before = self.pairs.len();
        let text = &self.text;
        self.pairs.retain(|p| {
            let (k, v) = RawPairs::pair(text, p);
            !f(k, v)
        });
        let n = before - self.pairs.len();
        if n > 0 {
            self.original = None;
        }
        n
    }

    fn write(&self, style: &EntityStyle, out: &mut Vec<u8>) {
        out.push(b'{');
        out.extend_from_slice(&style.open);
        for (i, (k, v)) in self.raw_pairs().enumerate() {
            if i > 0 {
                out.extend_from_slice(&style.line);
            }
            out.push(b'"');
            out.extend_from_slice(k);
            out.push(b'"');
            out.extend_from_slice(&style.sep);
            out.push(b'"');
            out.extend_from_slice(v);
            out.push(b'"');
        }
        if !self.pairs.is_empty() {
            out.extend_from_slice(&style.close);
        }
        out.push(b'}');
    }
}

/// An entity lump being edited. Unchanged entities are written back byte for byte, with the
/// text between them, the bytes before the first and after the last (including the NUL and
/// anything after it) as they were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityDoc {
    original: Vec<u8>,
    /// Start of the first entity (the bytes before it are kept).
    prefix_end: usize,
    /// End of the text (first NUL, or the lump's end).
    text_end: usize,
    pub entities: Vec<EditEntity>,
    pub style: EntityStyle,
}

impl EntityDoc {
    /// Read a whole entity lump (decompressed).
    pub fn parse(lump: &[u8]) -> Result<Self> {
        let text = up_to_nul(lump);
        let newline: &[u8] = if memchr::memmem::find(text, b"\r\n").is_some() { b"\r\n" } else { b"\n" };
        let mut style = None;
        let mut entities: Vec<EditEntity> = Vec::new();
        parse_each(text, |span, pairs| {
            if style.is_none() {
                style = EntityStyle::of_entity(text, newline, &span, pairs);
            }
            // The previous entity's tail runs up to this one.
            if let Some(tail) = entities.last_mut().and_then(|e| e.tail.as_mut()) {
                tail.end = span.start;
            }
            entities.push(EditEntity::read(text, span, pairs));
        })?;
        let text_end = text.len();
        if let Some(tail) = entities.last_mut().and_then(|e| e.tail.as_mut()) {
            tail.end = text_end;
        }
        let prefix_end = entities.first().and_then(|e| e.original.as_ref()).map_or(text_end, |r| r.start);
        let style = style.unwrap_or_else(|| EntityStyle::plain(newline));
        Ok(EntityDoc { original: lump.to_vec(), prefix_end, text_end, entities, style })
    }

    pub fn len(&self) -> usize {
        self.entities.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
    /// Append an entity.
    pub fn push(&mut self, e: EditEntity) {
        self.entities.push(e);
    }
    /// Remove the entities for which `f` holds; returns how many were removed.
    pub fn remove_where(&mut self, mut f: impl FnMut(&EditEntity) -> bool) -> usize {
        let before = self.entities.len();
        self.entities.retain(|e| !f(e));
        before - self.entities.len()
    }
    /// Has anything changed?
    pub fn is_changed(&self) -> bool {
        self.to_bytes() != self.original
    }

    /// The lump's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.original.len() + 64);
        out.extend_from_slice(&self.original[..self.prefix_end]);
        for e in &self.entities {
            match &e.original {
                Some(r) => out.extend_from_slice(&self.original[r.clone()]),
                None => {
                    // An entity after one that had no separator gets one.
                    if out.last() == Some(&b'}') {
                        out.extend_from_slice(&self.style.after);
                    }
                    e.write(&self.style, &mut out)
                }
            }
            match &e.tail {
                Some(t) if !t.is_empty() || e.original.is_some() => out.extend_from_slice(&self.original[t.clone()]),
                _ => out.extend_from_slice(&self.style.after),
            }
        }
        if self.original.is_empty() {
            // A new lump: NUL-terminated, as every family's compiler writes it.
            out.push(0);
        } else {
            out.extend_from_slice(&self.original[self.text_end..]);
        }
        out
    }

    /// The entities as plain text (no NUL), for `.ent` export.
    pub fn to_text(&self) -> Vec<u8> {
        let mut b = self.to_bytes();
        if let Some(n) = b.iter().position(|&c| c == 0) {
            b.truncate(n);
        }
        b
    }
}

/// Compile a regular expression; a bad one is a one-line [`Error`] naming `what` (the
/// `regex` crate's own message spans several lines, with a caret under the fault).
pub fn compile_regex(pattern: &str, what: &str) -> Result<regex::Regex> {
    regex::Regex::new(pattern).map_err(|e| {
        let text = e.to_string();
        // The last line holds the reason ("error: unclosed group"); the others repeat the pattern.
        let reason = text.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("invalid").trim_start_matches("error: ");
        Error::malformed(format!("{what}: bad regular expression {pattern:?}: {reason}"))
    })
}

/// One condition of an [`EntityFilter`].
#[derive(Debug, Clone)]
pub enum Condition {
    /// `key=value`: some pair with that key has exactly that value.
    Equals(String, String),
    /// `key~regex`: some pair with that key has a value the expression matches (anywhere).
    Matches(String, regex::Regex),
    /// `--has key`: the entity has a pair with that key.
    Has(String),
}

impl Condition {
    /// The key the condition is about.
    pub fn key(&self) -> &str {
        match self {
            Condition::Equals(k, _) | Condition::Matches(k, _) | Condition::Has(k) => k,
        }
    }
    fn holds(&self, e: &EditEntity) -> bool {
        let key = self.key().as_bytes();
        let mut values = e.raw_pairs().filter(|(k, _)| *k == key).map(|(_, v)| v);
        match self {
            Condition::Equals(_, want) => values.any(|v| v == want.as_bytes()),
            Condition::Matches(_, re) => values.any(|v| re.is_match(&String::from_utf8_lossy(v))),
            Condition::Has(_) => values.next().is_some(),
        }
    }
}

/// Selects entities: every condition must hold.
#[derive(Debug, Clone, Default)]
pub struct EntityFilter {
    pub conditions: Vec<Condition>,
}

impl EntityFilter {
    /// Parse `key=value` (exact) and `key~regex` (regular expression) conditions; the first `=`
    /// or `~` separates the key.
    pub fn parse<S: AsRef<str>>(conds: impl IntoIterator<Item = S>) -> Result<Self> {
        let mut conditions = Vec::new();
        for c in conds {
            let c = c.as_ref();
            let at = c
                .find(['=', '~'])
                .filter(|&i| i > 0)
                .ok_or_else(|| Error::malformed(format!("filter {c:?} is not key=value or key~regex")))?;
            let (k, v) = (&c[..at], &c[at + 1..]);
            conditions.push(if c.as_bytes()[at] == b'=' {
                Condition::Equals(k.to_string(), v.to_string())
            } else {
                Condition::Matches(k.to_string(), compile_regex(v, &format!("filter {c:?}"))?)
            });
        }
        Ok(EntityFilter { conditions })
    }
    /// Also require `key=value`.
    pub fn with(mut self, key: &str, value: &str) -> Self {
        self.conditions.push(Condition::Equals(key.into(), value.into()));
        self
    }
    /// Also require a pair with `key`.
    pub fn has(mut self, key: &str) -> Self {
        self.conditions.push(Condition::Has(key.into()));
        self
    }
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }
    pub fn matches(&self, e: &EditEntity) -> bool {
        self.conditions.iter().all(|c| c.holds(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_duplicates_and_order() {
        let e = parse(b"{\n\"classname\" \"worldspawn\"\n\"wad\" \"a.wad\"\n\"classname\" \"worldspawn\"\n}\n{\"a\" \"1\"}\0junk").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e.list[0].pairs.len(), 3);
        assert_eq!(e.list[0].get_all("classname").count(), 2);
        assert_eq!(e.list[1].get("a").as_deref(), Some("1"));
        assert_eq!(&e.text[e.list[1].span.clone()], b"{\"a\" \"1\"}");
    }

    /// The outline a map keeps hands out what `parse` gives, entity for entity and pair for pair
    /// (the same subslices of the same text), and fails where `parse` fails, with its error.
    #[test]
    fn outline_gives_what_parse_gives() {
        let texts: [&[u8]; 10] = [
            b"{\n\"classname\" \"worldspawn\"\n\"wad\" \"a.wad\"\n\"classname\" \"worldspawn\"\n}\n{\"a\" \"1\"}\0junk",
            b"",
            b"\0{\"a\" \"b\"}",
            b"{}{ }\n// comment\n{ bare word \"q\" \"\" }",
            b"{ \"a\" \"b\" ",
            b"{ \"a }",
            b"}",
            b"{ \"k\" }",
            b"{ \"a\" \"b\" } junk",
            b"{ \"long key past thirty-two bytes of text\" \"a value\nover lines\" }\r\n",
        ];
        for text in texts {
            let outline = Outline::of(text);
            match (parse(text), &outline) {
                (Ok(want), Ok(o)) => {
                    let got = o.entities(text);
                    assert_eq!(got, want, "{:?}", String::from_utf8_lossy(text));
                    assert_eq!(got.text.as_ptr(), want.text.as_ptr());
                    for (g, w) in got.list.iter().zip(&want.list) {
                        for (gp, wp) in g.pairs.iter().zip(&w.pairs) {
                            assert_eq!((gp.0.as_ptr(), gp.1.as_ptr()), (wp.0.as_ptr(), wp.1.as_ptr()));
                        }
                    }
                }
                (Err(want), Err(got)) => {
                    assert_eq!((got.kind.clone(), got.offset, got.to_string()), (want.kind.clone(), want.offset, want.to_string()))
                }
                (want, got) => panic!("{:?}: parse {want:?}, outline {got:?}", String::from_utf8_lossy(text)),
            }
        }
    }

    #[test]
    fn errors_have_offsets() {
        let err = parse(b"{ \"a\" \"b\" ").unwrap_err();
        assert_eq!(err.offset, Some(0));
        let err = parse(b"{ \"a }").unwrap_err();
        assert_eq!(err.offset, Some(2));
        assert!(parse(b"}").is_err());
        assert!(parse(b"{ \"k\" }").is_err());
    }

    #[test]
    fn round_trips_through_text() {
        let src = parse(b"{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n}\n").unwrap();
        let out = to_text(src.list.iter().map(|e| e.iter().collect::<Vec<_>>()));
        assert_eq!(out.as_bytes(), src.text);
    }

    #[test]
    fn doc_round_trips_and_edits_only_what_changed() {
        let lump = b"{\r\n\"classname\" \"worldspawn\"\r\n\"wad\" \"a.wad\"\r\n}\r\n{\r\n\"classname\" \"light\"\r\n\"light\" \"300\"\r\n}\r\n{\"classname\"  \"info_null\"}\r\n\0pad";
        let doc = EntityDoc::parse(lump).unwrap();
        assert_eq!(doc.to_bytes(), lump);
        assert_eq!(doc.style.line, b"\r\n");
        let mut d = doc.clone();
        d.entities[1].set("light", "500").unwrap();
        let out = d.to_bytes();
        assert_eq!(
            out,
            b"{\r\n\"classname\" \"worldspawn\"\r\n\"wad\" \"a.wad\"\r\n}\r\n{\r\n\"classname\" \"light\"\r\n\"light\" \"500\"\r\n}\r\n{\"classname\"  \"info_null\"}\r\n\0pad"
        );
        let mut d = doc.clone();
        d.push(EditEntity::new([("classname", "info_target")]).unwrap());
        assert!(d.to_bytes().ends_with(b"{\"classname\"  \"info_null\"}\r\n{\r\n\"classname\" \"info_target\"\r\n}\r\n\0pad"));
        let mut d = doc;
        assert_eq!(d.remove_where(|e| e.classname().as_deref() == Some("light")), 1);
        assert_eq!(d.to_bytes(), b"{\r\n\"classname\" \"worldspawn\"\r\n\"wad\" \"a.wad\"\r\n}\r\n{\"classname\"  \"info_null\"}\r\n\0pad");
        assert!(d.entities[0].set("k", "has \"quote\"").is_err());
    }

    #[test]
    fn filters_match_every_condition() {
        let doc = EntityDoc::parse(b"{\"classname\" \"light\" \"targetname\" \"a\"}{\"classname\" \"light\"}").unwrap();
        let f = EntityFilter::parse(["classname=light", "targetname=a"]).unwrap();
        assert_eq!(doc.entities.iter().filter(|e| f.matches(e)).count(), 1);
        assert!(EntityFilter::parse(["nokey"]).is_err());
        assert!(EntityFilter::parse(["=x"]).is_err());
        let f = EntityFilter::parse(["classname~^li", "targetname~a|b"]).unwrap();
        assert_eq!(doc.entities.iter().filter(|e| f.matches(e)).count(), 1);
        let f = EntityFilter::default().has("targetname");
        assert_eq!(doc.entities.iter().filter(|e| f.matches(e)).count(), 1);
        let f = EntityFilter::parse(["classname~light"]).unwrap().has("classname");
        assert_eq!(doc.entities.iter().filter(|e| f.matches(e)).count(), 2);
        // A value holding `~` after the `=` is compared exactly.
        assert!(matches!(&EntityFilter::parse(["k=a~b"]).unwrap().conditions[0], Condition::Equals(k, v) if k == "k" && v == "a~b"));
        let err = EntityFilter::parse(["k~(unclosed"]).unwrap_err().to_string();
        assert!(!err.contains('\n') && err.contains("unclosed"), "{err}");
    }

    #[test]
    fn duplicate_keys_can_each_be_reached() {
        let mut doc = EntityDoc::parse(b"{\"classname\" \"logic_relay\" \"OnTrigger\" \"a,Kill\" \"OnTrigger\" \"b,Kill\"}").unwrap();
        let e = &mut doc.entities[0];
        assert_eq!(e.count("OnTrigger"), 2);
        assert!(e.set_nth("OnTrigger", 1, "c,Kill").unwrap());
        assert!(!e.set_nth("OnTrigger", 2, "x").unwrap());
        assert_eq!(e.get_all("OnTrigger").collect::<Vec<_>>(), ["a,Kill", "c,Kill"]);
        assert_eq!(e.set_all("OnTrigger", "d").unwrap(), 2);
        assert_eq!(e.get_all("OnTrigger").collect::<Vec<_>>(), ["d", "d"]);
        assert!(e.remove_nth("OnTrigger", 0));
        assert!(!e.remove_nth("OnTrigger", 1));
        assert_eq!(e.count("OnTrigger"), 1);
        assert_eq!(e.set_all("new", "1").unwrap(), 1);
        assert_eq!(e.get("new").as_deref(), Some("1"));
    }

    /// The word-at-a-time quote search agrees with `memchr` for a quote at every position of the
    /// word-tested part and past it, for none, and with bytes that differ from `"` by one bit.
    #[test]
    fn quote_search_agrees_with_memchr() {
        for len in 0..48 {
            for filler in [b'a', b'#', b'\xa2', b'!', b'\0', 0x23, 0xff, 0xa3] {
                let mut s = vec![filler; len];
                assert_eq!(find_quote(&s), memchr::memchr(b'"', &s), "len {len} none");
                for at in 0..len {
                    s[at] = b'"';
                    assert_eq!(find_quote(&s), Some(at), "len {len} at {at}");
                    if at + 3 < len {
                        s[at + 3] = b'"';
                        assert_eq!(find_quote(&s), Some(at), "len {len} at {at}, second");
                        s[at + 3] = filler;
                    }
                    s[at] = filler;
                }
            }
        }
    }

    /// Edits on the one-buffer storage give what the same edits on a plain list of pairs give,
    /// and the buffer stays bounded however often a value is replaced.
    #[test]
    fn edits_match_a_list_of_pairs_and_the_buffer_stays_bounded() {
        let doc = EntityDoc::parse(b"{ \"classname\" \"light\" \"k\" \"1\" \"k\" \"2\" \"origin\" \"0 0 0\" }").unwrap();
        let mut e = doc.entities[0].clone();
        let mut model: Vec<(String, String)> = e.pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        let keys = ["classname", "k", "origin", "new", "x"];
        let mut seed = 0x9e37_79b9_u32;
        let mut most_live = 0;
        for step in 0..20_000u32 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let key = keys[(seed % 5) as usize];
            // Values of varied length, so replaced bytes pile up between compactions.
            let value = format!("{step}{}", "v".repeat((seed >> 8) as usize % 40));
            match (seed >> 4) % 6 {
                0 => {
                    e.set(key, &value).unwrap();
                    match model.iter_mut().find(|(k, _)| k == key) {
                        Some((_, v)) => *v = value,
                        None => model.push((key.into(), value)),
                    }
                }
                1 => {
                    let n = (seed >> 12) as usize % 3;
                    let hit = e.set_nth(key, n, &value).unwrap();
                    let m = model.iter_mut().filter(|(k, _)| k == key).nth(n);
                    assert_eq!(hit, m.is_some());
                    if let Some((_, v)) = m {
                        *v = value;
                    }
                }
                2 if model.len() < 12 => {
                    e.insert(key, &value).unwrap();
                    model.push((key.into(), value));
                }
                3 => {
                    let n = (seed >> 12) as usize % 3;
                    let pos = model.iter().enumerate().filter(|(_, (k, _))| k == key).map(|(i, _)| i).nth(n);
                    assert_eq!(e.remove_nth(key, n), pos.is_some());
                    if let Some(i) = pos {
                        model.remove(i);
                    }
                }
                4 => {
                    let before = model.len();
                    model.retain(|(k, _)| k != key);
                    assert_eq!(e.remove_key(key), before - model.len());
                }
                _ => {
                    let n = e.set_all(key, &value).unwrap();
                    if model.iter().any(|(k, _)| k == key) {
                        model.iter_mut().filter(|(k, _)| k == key).for_each(|(_, v)| *v = value.clone());
                    } else {
                        model.push((key.into(), value.clone()));
                    }
                    assert_eq!(n, model.iter().filter(|(k, _)| k == key).count());
                }
            }
            let now: Vec<(String, String)> = e.pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
            assert_eq!(now, model, "step {step}");
            assert_eq!(e.pair_count(), model.len());
            // Removals leave their bytes until the next append compacts: bounded by the most
            // the pairs ever held, not by the number of edits.
            let live: usize = model.iter().map(|(k, v)| k.len() + v.len()).sum();
            most_live = most_live.max(live);
            assert!(e.text.len() <= 2 * most_live + 256 + 2 * 60, "step {step}: {} bytes held for {live}", e.text.len());
        }
        // Equality is by pairs and origin, not by what else the buffer holds.
        let mut a = EditEntity::new([("a", "1")]).unwrap();
        let b = EditEntity::new([("a", "1")]).unwrap();
        a.set("a", "2").unwrap();
        a.set("a", "1").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, EditEntity::new([("a", "1"), ("b", "")]).unwrap());
    }
}
