//! Writing Genesis3D chunk files ([`HeaderKind::Chunks`](crate::branch::HeaderKind)): the
//! chain is written again chunk by chunk. An unchanged chunk is copied with its header; a
//! changed one gets a header with the same type and element size and a new element count; a
//! chunk the file lacks is added before the END chunk with its type's record size. The END
//! chunk and any bytes after it are copied. Nothing in a chunk holds a file offset, so no
//! rebasing is needed.

use std::collections::BTreeMap;

use crate::branches::genesis3d::lumps::{element_size, GENESIS3D};
use crate::bsp::Bsp;
use crate::directory::chunks::{self, END, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};

fn header(out: &mut Vec<u8>, kind: u32, size: u32, bytes: &[u8]) -> Result<()> {
    let elements = if size == 0 {
        if !bytes.is_empty() {
            return Err(Error::malformed(format!("chunk type {kind} has element size 0 and cannot hold {} bytes", bytes.len())));
        }
        0
    } else {
        if bytes.len() % size as usize != 0 {
            return Err(Error::new(ErrorKind::BadLumpLength { length: bytes.len() as u64, record_size: size as usize }));
        }
        bytes.len() / size as usize
    };
    let elements = i32::try_from(elements).map_err(|_| {
        Error::new(ErrorKind::LimitExceeded { what: "chunk element count", requested: elements as u64, limit: i32::MAX as u64 })
    })?;
    for v in [kind, size, elements as u32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(bytes);
    Ok(())
}

/// Rebuild the chain with `changes`, new chunk bytes by chunk type (a type listed twice
/// changes its first chunk, the one [`Bsp::lump`] reads).
pub fn build(bsp: &Bsp, changes: &BTreeMap<usize, &[u8]>) -> Result<Vec<u8>> {
    let data = bsp.data();
    let chain = chunks::walk(data)?;
    let extra: usize = changes.values().map(|c| c.len() + HEADER_LEN).sum();
    let mut out = Vec::with_capacity(data.len() + extra);
    let mut done: Vec<usize> = Vec::new();
    for c in &chain.chunks {
        let end = c.data_at() as u64 + c.len;
        if end > data.len() as u64 {
            return Err(Error::new(ErrorKind::LumpOutOfBounds {
                offset: c.data_at() as i64,
                length: c.len as i64,
                file_size: data.len() as u64,
            })
            .in_lump(format!("chunk type {}", c.kind)));
        }
        let index = c.kind as usize;
        match changes.get(&index).filter(|_| !done.contains(&index)) {
            Some(ch) => {
                header(&mut out, c.kind, c.size, ch).map_err(|e| bsp.lump_error(index, e))?;
                done.push(index);
            }
            None => out.extend_from_slice(&data[c.at..end as usize]),
        }
    }
    // Chunks the file lacks go before the END chunk, in type order.
    for (&index, ch) in changes.iter().filter(|(i, _)| !chain.chunks.iter().any(|c| c.kind as usize == **i)) {
        let kind = u32::try_from(index).ok().filter(|&k| k != END).ok_or_else(|| Error::new(ErrorKind::NoSuchLump(index.to_string())))?;
        let name = crate::directory::unknown_name(index);
        let name = GENESIS3D.lumps.get(index).map(|d| d.name).unwrap_or(name);
        header(&mut out, kind, element_size(index) as u32, ch).map_err(|e| e.in_lump(format!("{index} ({name})")))?;
    }
    out.extend_from_slice(&data[chain.rest_at().min(data.len())..]);
    Ok(out)
}
