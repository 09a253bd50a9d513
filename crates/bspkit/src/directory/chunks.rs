//! The chunk chain of a Genesis3D `GBSP` file ([`HeaderKind::Chunks`](crate::branch::HeaderKind)):
//! no directory, but a 12-byte header `{i32 type, i32 size, i32 elements}` before each chunk's
//! `size × elements` bytes, until a chunk of type `0xffff` (engine `Gbspfile.cpp`, GBSPLib
//! `GBSPFILE.CPP`). The writer ([`crate::write`]) and the checks read the chain here.

use crate::bytes::{i32_at, Endian};
use crate::error::{Error, ErrorKind, Result};

/// The type of the chunk that ends the chain.
pub const END: u32 = 0xffff;
/// Bytes of a chunk header.
pub const HEADER_LEN: usize = 12;
/// Most chunks accepted (a level has 25; each lookup scans the list).
pub const MAX_CHUNKS: usize = 1024;

/// One chunk as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk type (the lump index).
    pub kind: u32,
    /// Bytes per element, as stored.
    pub size: u32,
    pub elements: u32,
    /// Offset of the chunk header; the data follows it.
    pub at: usize,
    /// `size × elements`.
    pub len: u64,
}

impl Chunk {
    pub fn data_at(&self) -> usize {
        self.at + HEADER_LEN
    }
}

/// The chain of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// Every chunk before the END chunk, in file order.
    pub chunks: Vec<Chunk>,
    /// Offset of the END chunk header, if the chain has one (the loader needs it).
    pub end_at: Option<usize>,
}

impl Chain {
    /// Where the chunks before END stop: at the END chunk header, or after the last chunk.
    /// The writer copies the file from here on (END chunk and trailing bytes) unchanged.
    pub fn rest_at(&self) -> usize {
        match self.end_at {
            Some(e) => e,
            None => self.chunks.last().map(|c| c.data_at().saturating_add(c.len as usize)).unwrap_or(0),
        }
    }
}

/// Walk the chain. A chunk whose data runs past the end of the file is returned (the caller
/// reports it with its lump name) and ends the walk; so does the end of the file at a chunk
/// boundary (a chain without an END chunk, which `check` reports).
pub fn walk(data: &[u8]) -> Result<Chain> {
    let mut chunks = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        let field = |k: usize| i32_at(data, at + 4 * k, Endian::Little);
        let (Some(kind), Some(size), Some(elements)) = (field(0), field(1), field(2)) else {
            return Err(Error::truncated((at + HEADER_LEN) as u64, data.len() as u64).in_lump("chunk header").at(at as u64));
        };
        if kind as u32 == END {
            return Ok(Chain { chunks, end_at: Some(at) });
        }
        if size < 0 || elements < 0 {
            return Err(Error::malformed(format!("chunk type {kind}: negative size {size} or element count {elements}"))
                .in_lump("chunk header")
                .at(at as u64));
        }
        if chunks.len() == MAX_CHUNKS {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "Genesis3D chunk count",
                requested: MAX_CHUNKS as u64 + 1,
                limit: MAX_CHUNKS as u64,
            })
            .in_lump("chunk header")
            .at(at as u64));
        }
        let len = size as u64 * elements as u64;
        chunks.push(Chunk { kind: kind as u32, size: size as u32, elements: elements as u32, at, len });
        let next = (at + HEADER_LEN) as u64 + len;
        if next > data.len() as u64 {
            break;
        }
        at = next as usize;
    }
    Ok(Chain { chunks, end_at: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(kind: i32, size: i32, data: &[u8]) -> Vec<u8> {
        let n = if size == 0 { 0 } else { data.len() as i32 / size };
        let mut v = [kind, size, n].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn walks_to_the_end_chunk_and_keeps_the_tail() {
        let mut f = chunk(0, 4, b"GBSP");
        f.extend(chunk(19, 1, b"abc"));
        f.extend(chunk(END as i32, 0, b""));
        f.extend_from_slice(b"tail");
        let c = walk(&f).unwrap();
        assert_eq!(c.chunks.len(), 2);
        assert_eq!(c.chunks[1], Chunk { kind: 19, size: 1, elements: 3, at: 16, len: 3 });
        assert_eq!(c.end_at, Some(31));
        assert_eq!(c.rest_at(), 31);
        // Without an END chunk the chain stops at the end of the file.
        let c = walk(&f[..31]).unwrap();
        assert_eq!((c.chunks.len(), c.end_at, c.rest_at()), (2, None, 31));
        // A header cut short, or negative fields, are errors at the chunk.
        assert_eq!(walk(&f[..20]).unwrap_err().offset, Some(16));
        let mut bad = f.clone();
        bad[20..24].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(walk(&bad).unwrap_err().offset, Some(16));
        // Data past the end: the chunk is returned and the walk stops.
        let c = walk(&f[..18]).unwrap_err();
        assert_eq!(c.offset, Some(16));
        let c = walk(&f[..29]).unwrap();
        assert_eq!(c.chunks.len(), 2);
    }
}
