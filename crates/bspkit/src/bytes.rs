//! Bounds-checked reads of little- and big-endian scalars. Every read returns `None` (or an
//! error) rather than panicking when the data is short.

use crate::error::{Error, Result};

/// Byte order of a file's multi-byte values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }
    pub fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }
}

/// `len` bytes at `offset`, or a typed truncation error.
pub fn slice(data: &[u8], offset: u64, len: u64) -> Result<&[u8]> {
    let end = offset.checked_add(len).ok_or_else(|| Error::truncated(u64::MAX, data.len() as u64))?;
    if end > data.len() as u64 {
        return Err(Error::truncated(end, data.len() as u64).at(offset));
    }
    Ok(&data[offset as usize..end as usize])
}

pub fn array<const N: usize>(data: &[u8], offset: usize) -> Option<[u8; N]> {
    data.get(offset..offset.checked_add(N)?)?.try_into().ok()
}

pub fn u32_at(data: &[u8], offset: usize, e: Endian) -> Option<u32> {
    array::<4>(data, offset).map(|b| e.u32(b))
}

pub fn i32_at(data: &[u8], offset: usize, e: Endian) -> Option<i32> {
    u32_at(data, offset, e).map(|v| v as i32)
}

pub fn u16_at(data: &[u8], offset: usize, e: Endian) -> Option<u16> {
    array::<2>(data, offset).map(|b| e.u16(b))
}

pub fn i16_at(data: &[u8], offset: usize, e: Endian) -> Option<i16> {
    u16_at(data, offset, e).map(|v| v as i16)
}

pub fn f32_at(data: &[u8], offset: usize, e: Endian) -> Option<f32> {
    u32_at(data, offset, e).map(f32::from_bits)
}

/// A fixed-size, NUL-padded name field as text (up to the first NUL; invalid UTF-8 replaced).
pub fn c_str(field: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(c_bytes(field))
}

/// A fixed-size C string field's bytes up to its first NUL (all of it when there is none).
pub fn c_bytes(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

/// Printable rendering of up to 8 leading bytes, for error messages about unknown magics.
pub fn describe_head(data: &[u8]) -> String {
    let head = &data[..data.len().min(8)];
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    let text: String = head.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
    format!("{} \"{}\"", hex.join(" "), text)
}
