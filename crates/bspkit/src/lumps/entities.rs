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
                match t[body..].iter().position(|&b| b == b'"') {
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

/// Parse entity text. Errors carry the byte offset within `text`.
pub fn parse(text: &[u8]) -> Result<Entities<'_>> {
    let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];
    let mut lx = Lexer { text, pos: 0 };
    let mut list = Vec::new();
    while let Some(tok) = lx.next()? {
        let open = match tok {
            Token::Open(p) => p,
            Token::Close(p) => return Err(Error::malformed("'}' without an open entity").at(p as u64)),
            Token::Str(_) => return Err(Error::malformed("text outside an entity block").at(lx.pos as u64)),
        };
        let mut pairs = Vec::new();
        loop {
            match lx.next()? {
                Some(Token::Close(p)) => {
                    list.push(Entity { span: open..p + 1, pairs });
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
    Ok(Entities { text, list })
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
}
