//! Quake 2 `.wal` textures (`textures/<name>.wal` in `baseq2/pak0.pak`).
//!
//! ```text
//! char name[32]; u32 width, height; u32 offsets[4]; char next_frame[32];
//! u32 flags; u32 contents; u32 value        (100 bytes), then four mips of palette indices
//! ```
//!
//! The pixels index the Quake 2 palette, which the game keeps in `pics/colormap.pcx`.

use crate::assets::image::ImageRgba;
use crate::assets::palette::Palette;
use crate::bytes::c_str;
use crate::error::{Error, Result};

pub const HEADER_LEN: usize = 100;

/// The header of a `.wal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalHeader {
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub offsets: [u32; 4],
    pub next_frame: String,
    pub flags: u32,
    pub contents: u32,
    pub value: u32,
}

/// Parse the header and return it with mip 0's palette indices.
pub fn parse(data: &[u8]) -> Result<(WalHeader, &[u8])> {
    let h = data.get(..HEADER_LEN).ok_or_else(|| Error::truncated(HEADER_LEN as u64, data.len() as u64).at(0))?;
    let u = |o: usize| u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
    let hdr = WalHeader {
        name: c_str(&h[..32]).into_owned(),
        width: u(32),
        height: u(36),
        offsets: [u(40), u(44), u(48), u(52)],
        next_frame: c_str(&h[56..88]).into_owned(),
        flags: u(88),
        contents: u(92),
        value: u(96),
    };
    let n = hdr.width as u64 * hdr.height as u64;
    let px = crate::bytes::slice(data, hdr.offsets[0] as u64, n).map_err(|e| {
        Error::malformed(format!(
            ".wal {}x{} mip 0 at {} runs past the {}-byte file ({e})",
            hdr.width,
            hdr.height,
            hdr.offsets[0],
            data.len()
        ))
        .at(40)
    })?;
    Ok((hdr, px))
}

/// Decode mip 0 with the Quake 2 palette.
pub fn decode(data: &[u8], palette: &Palette) -> Result<ImageRgba> {
    let (h, px) = parse(data)?;
    palette.expand(h.width, h.height, px, false)
}

/// Bytes of a `.wal` (mip 0 given, smaller mips point-sampled) for fixtures.
pub fn build(name: &str, width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; HEADER_LEN];
    for (d, s) in out[..31].iter_mut().zip(name.bytes()) {
        *d = s;
    }
    out[32..36].copy_from_slice(&width.to_le_bytes());
    out[36..40].copy_from_slice(&height.to_le_bytes());
    for k in 0..4u32 {
        let at = out.len() as u32;
        out[40 + 4 * k as usize..44 + 4 * k as usize].copy_from_slice(&at.to_le_bytes());
        for y in 0..(height >> k) {
            for x in 0..(width >> k) {
                out.push(pixels.get(((y << k) * width + (x << k)) as usize).copied().unwrap_or(0));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bounds() {
        let px: Vec<u8> = (0..64).collect();
        let wal = build("e1u1/floor1_1", 8, 8, &px);
        let (h, p) = parse(&wal).unwrap();
        assert_eq!((h.name.as_str(), h.width, h.height), ("e1u1/floor1_1", 8, 8));
        assert_eq!(p, &px[..]);
        let pal = Palette::from_rgb(&(0..768).map(|i| i as u8).collect::<Vec<_>>());
        assert_eq!(decode(&wal, &pal).unwrap().pixel(1, 0), Some([3, 4, 5, 255]));
        let mut bad = wal.clone();
        bad[32..36].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&bad).is_err());
        assert!(parse(&wal[..99]).is_err());
    }
}
