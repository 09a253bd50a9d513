//! Reading `{offset, length}` directory entries without trusting them, for detection.

use crate::bytes::{i32_at, Endian};

/// `(offset, length)` of entry `i` of a directory at `dir`, if both are non-negative.
pub(super) fn lump_range(data: &[u8], dir: usize, i: usize) -> Option<(usize, usize)> {
    let ofs = i32_at(data, dir + 8 * i, Endian::Little)?;
    let len = i32_at(data, dir + 8 * i + 4, Endian::Little)?;
    (ofs >= 0 && len >= 0).then_some((ofs as usize, len as usize))
}

/// Does the lump at this directory slot look like entity text (or is it empty)?
pub(super) fn looks_like_entities(data: &[u8], range: Option<(usize, usize)>) -> bool {
    let Some((ofs, len)) = range else { return false };
    if len == 0 {
        return true;
    }
    match data.get(ofs..ofs.saturating_add(len).min(data.len())) {
        Some(bytes) => bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'),
        None => false,
    }
}
