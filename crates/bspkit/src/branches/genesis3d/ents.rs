//! The Genesis3D entity chunk (ENTDATA), a binary list rather than text. Layout from the
//! compiler's `SaveEntityData` / `LoadEntityData` (`Tools/GBSPLib/MAP.CPP`; facts only):
//!
//! ```text
//! i32 entity count
//! per entity:  i32 pair count
//!   per pair:  i32 key size, key bytes (NUL-terminated, size = strlen + 1)
//!              i32 value size, value bytes (likewise)
//! ```
//!
//! bspkit shows the chunk as ordinary `{ "key" "value" }` entity text ([`to_text`]), so
//! `bsp ents`, `get`, `diff` and the editing commands work as for every other family;
//! [`from_text`] writes edited text back in the binary form (every pair with its NUL, sizes
//! `strlen + 1`, as the compiler writes them).

use crate::error::{Error, Result};

/// One entity: its key/value pairs (bytes up to each string's NUL) and the byte range of the
/// entity in the chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryEntity<'a> {
    pub span: std::ops::Range<usize>,
    pub pairs: Vec<(&'a [u8], &'a [u8])>,
}

/// The decoded chunk: its entities and where the last one ends (bytes after it are unused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryEntities<'a> {
    pub list: Vec<BinaryEntity<'a>>,
    pub end: usize,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn i32(&mut self, what: &str) -> Result<i32> {
        let v = crate::bytes::i32_at(self.data, self.pos, crate::bytes::Endian::Little)
            .ok_or_else(|| Error::malformed(format!("entity data ends inside the {what} (needs 4 bytes)")).at(self.pos as u64))?;
        self.pos += 4;
        Ok(v)
    }
    /// A count of items that take at least `min_bytes` each: never more than the rest holds.
    fn count(&mut self, what: &str, min_bytes: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.i32(what)?;
        let rest = self.data.len() - self.pos;
        if n < 0 || (n as usize).saturating_mul(min_bytes) > rest {
            return Err(Error::malformed(format!("{what} {n} does not fit the {rest} bytes that follow")).at(at as u64));
        }
        Ok(n as usize)
    }
    /// A sized string; its text runs to the first NUL inside it.
    fn string(&mut self, what: &str) -> Result<&'a [u8]> {
        let at = self.pos;
        let n = self.i32(what)?;
        let rest = self.data.len() - self.pos;
        if n < 0 || n as usize > rest {
            return Err(Error::malformed(format!("{what} size {n} does not fit the {rest} bytes that follow")).at(at as u64));
        }
        let raw = &self.data[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(&raw[..memchr::memchr(0, raw).unwrap_or(raw.len())])
    }
}

/// Decode the chunk. An empty chunk has no entities. Errors carry the offset in the chunk.
pub fn parse(data: &[u8]) -> Result<BinaryEntities<'_>> {
    if data.is_empty() {
        return Ok(BinaryEntities { list: Vec::new(), end: 0 });
    }
    let mut r = Reader { data, pos: 0 };
    // Each entity takes at least its pair count (4 bytes); each pair two sizes (8 bytes).
    let n = r.count("entity count", 4)?;
    let mut list = Vec::with_capacity(n);
    for _ in 0..n {
        let start = r.pos;
        let pairs_n = r.count("pair count", 8)?;
        let mut pairs = Vec::with_capacity(pairs_n);
        for _ in 0..pairs_n {
            let k = r.string("key")?;
            let v = r.string("value")?;
            pairs.push((k, v));
        }
        list.push(BinaryEntity { span: start..r.pos, pairs });
    }
    Ok(BinaryEntities { list, end: r.pos })
}

/// The chunk as entity text, one `{ "key" "value" }` block per entity in the usual compiler
/// style. A key or value holding `"` cannot be written as text and is an error.
pub fn to_text(data: &[u8]) -> Result<Vec<u8>> {
    let parsed = parse(data)?;
    let mut out = Vec::with_capacity(data.len() + 8 * parsed.list.len());
    for (i, e) in parsed.list.iter().enumerate() {
        out.extend_from_slice(b"{\n");
        for (k, v) in &e.pairs {
            for (what, s) in [("key", k), ("value", v)] {
                if let Some(q) = memchr::memchr(b'"', s) {
                    return Err(Error::malformed(format!("entity {i}: {what} holds '\"', which entity text cannot show"))
                        .at((e.span.start + q) as u64));
                }
            }
            out.push(b'"');
            out.extend_from_slice(k);
            out.extend_from_slice(b"\" \"");
            out.extend_from_slice(v);
            out.extend_from_slice(b"\"\n");
        }
        out.extend_from_slice(b"}\n");
    }
    Ok(out)
}

/// Entity text in the binary chunk form.
pub fn from_text(text: &[u8]) -> Result<Vec<u8>> {
    let ents = crate::lumps::entities::parse(text)?;
    let mut out = Vec::with_capacity(text.len() + 4);
    let put = |out: &mut Vec<u8>, n: usize| -> Result<()> {
        let n = i32::try_from(n).map_err(|_| Error::malformed("entity data too large for a 32-bit size"))?;
        out.extend_from_slice(&n.to_le_bytes());
        Ok(())
    };
    put(&mut out, ents.list.len())?;
    for e in &ents.list {
        put(&mut out, e.pairs.len())?;
        for s in e.pairs.iter().flat_map(|(k, v)| [k, v]) {
            put(&mut out, s.len() + 1)?;
            out.extend_from_slice(s);
            out.push(0);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(ents: &[&[(&str, &str)]]) -> Vec<u8> {
        let mut out = (ents.len() as i32).to_le_bytes().to_vec();
        for e in ents {
            out.extend_from_slice(&(e.len() as i32).to_le_bytes());
            for (k, v) in e.iter() {
                for s in [k, v] {
                    out.extend_from_slice(&(s.len() as i32 + 1).to_le_bytes());
                    out.extend_from_slice(s.as_bytes());
                    out.push(0);
                }
            }
        }
        out
    }

    #[test]
    fn text_round_trip_gives_the_same_chunk() {
        let c = chunk(&[&[("classname", "worldspawn"), ("TextureLib", ".\\gedit.txl")], &[("classname", "light"), ("light", "150")]]);
        let text = to_text(&c).unwrap();
        assert_eq!(
            String::from_utf8(text.clone()).unwrap(),
            "{\n\"classname\" \"worldspawn\"\n\"TextureLib\" \".\\gedit.txl\"\n}\n{\n\"classname\" \"light\"\n\"light\" \"150\"\n}\n"
        );
        assert_eq!(from_text(&text).unwrap(), c);
        let p = parse(&c).unwrap();
        assert_eq!(p.list.len(), 2);
        assert_eq!(p.end, c.len());
        assert_eq!(p.list[1].pairs[1], (&b"light"[..], &b"150"[..]));
    }

    #[test]
    fn damaged_chunks_are_errors_with_offsets() {
        let c = chunk(&[&[("classname", "worldspawn")]]);
        for cut in 1..c.len() {
            assert!(parse(&c[..cut]).is_err(), "cut at {cut}");
        }
        // A huge count is refused before anything is allocated.
        let mut big = c.clone();
        big[..4].copy_from_slice(&i32::MAX.to_le_bytes());
        assert_eq!(parse(&big).unwrap_err().offset, Some(0));
        let mut neg = c.clone();
        neg[8..12].copy_from_slice(&(-5i32).to_le_bytes());
        assert_eq!(parse(&neg).unwrap_err().offset, Some(8));
        // Quotes cannot be shown as text.
        assert!(to_text(&chunk(&[&[("message", "say \"hi\"")]])).is_err());
        assert!(parse(&[]).unwrap().list.is_empty());
    }
}
