//! Truevision TGA images (Quake 3 family textures): colour-mapped, true-colour and grey images,
//! raw or run-length encoded (types 1, 2, 3, 9, 10, 11), 8/15/16/24/32 bits per pixel, either
//! origin.
//!
//! Written here because the crates that read TGA are the `image` crate, whose current releases
//! need Rust 1.88 (this workspace's MSRV is 1.80), and `tinytga`, which is built around the
//! embedded-graphics pixel types. The format is small; every read is bounds-checked and the
//! output is limited by the caller before anything is allocated.

use crate::assets::image::{image_bytes, ImageRgba};
use crate::error::{Error, ErrorKind, Result};

const HEADER: usize = 18;

/// Colour of one stored pixel or map entry of `bits` bits, as RGBA.
fn colour(p: &[u8], bits: u8) -> [u8; 4] {
    match bits {
        8 => [p[0], p[0], p[0], 255],
        15 | 16 => {
            let v = u16::from_le_bytes([p[0], p[1]]);
            let x = |s: u16| {
                let c = ((v >> s) & 31) as u8;
                (c << 3) | (c >> 2)
            };
            // 16-bit TGA: A1R5G5B5; the attribute bit is not reliably alpha, so it is ignored.
            [x(10), x(5), x(0), 255]
        }
        24 => [p[2], p[1], p[0], 255],
        _ => [p[2], p[1], p[0], p[3]],
    }
}

/// Decode a TGA to RGBA, refusing images whose RGBA output exceeds `max_bytes`.
pub fn decode(data: &[u8], max_bytes: u64) -> Result<ImageRgba> {
    let h = data.get(..HEADER).ok_or_else(|| Error::truncated(HEADER as u64, data.len() as u64))?;
    let u16_ = |o: usize| u16::from_le_bytes([h[o], h[o + 1]]);
    let (id_len, cmap_type, kind) = (h[0] as usize, h[1], h[2]);
    let (cmap_first, cmap_len, cmap_bits) = (u16_(3) as usize, u16_(5) as usize, h[7]);
    let (w, ht, bits, desc) = (u16_(12) as u32, u16_(14) as u32, h[16], h[17]);
    let rle = kind & 8 != 0;
    let base = kind & !8;
    if !matches!(base, 1..=3) || (base == 1 && cmap_type != 1) {
        return Err(Error::malformed(format!("TGA image type {kind} is not supported")).at(2));
    }
    let bpp_ok = match base {
        1 => bits == 8 && matches!(cmap_bits, 15 | 16 | 24 | 32),
        2 => matches!(bits, 15 | 16 | 24 | 32),
        _ => bits == 8,
    };
    if !bpp_ok {
        return Err(Error::malformed(format!("TGA type {kind} with {bits}-bit pixels (map {cmap_bits}-bit) is not supported")).at(16));
    }
    let out_len = image_bytes(w, ht, 4)?;
    if out_len as u64 > max_bytes {
        return Err(Error::new(ErrorKind::LimitExceeded { what: "decoded TGA size", requested: out_len as u64, limit: max_bytes }));
    }
    let mut pos = HEADER + id_len;
    let map_entry = (cmap_bits as usize).div_ceil(8);
    let map = if cmap_type == 1 {
        let len = cmap_len * map_entry;
        let m = data.get(pos..pos + len).ok_or_else(|| Error::malformed("TGA colour map runs past the file").at(pos as u64))?;
        pos += len;
        Some(m)
    } else {
        None
    };
    let px = (bits as usize).div_ceil(8);
    let n = w as usize * ht as usize;
    // Without RLE the pixel data must all be present: this bounds the output by the input.
    if !rle && data.len().saturating_sub(pos) < n * px {
        return Err(Error::truncated((pos + n * px) as u64, data.len() as u64).at(pos as u64));
    }
    let resolve = |p: &[u8]| -> Result<[u8; 4]> {
        match (base, map) {
            (1, Some(m)) => {
                let i = (p[0] as usize)
                    .checked_sub(cmap_first)
                    .filter(|&i| i < cmap_len)
                    .ok_or_else(|| Error::malformed(format!("TGA colour index {} is outside the map {cmap_first}+{cmap_len}", p[0])))?;
                Ok(colour(&m[i * map_entry..], cmap_bits))
            }
            _ => Ok(colour(p, bits)),
        }
    };
    let mut pixels = Vec::with_capacity(out_len);
    while pixels.len() < out_len {
        if rle {
            let head = *data.get(pos).ok_or_else(|| Error::truncated(pos as u64 + 1, data.len() as u64).at(pos as u64))?;
            pos += 1;
            let count = (head & 0x7F) as usize + 1;
            let remaining = (out_len - pixels.len()) / 4;
            if head & 0x80 != 0 {
                let p = data.get(pos..pos + px).ok_or_else(|| Error::truncated((pos + px) as u64, data.len() as u64).at(pos as u64))?;
                pos += px;
                let c = resolve(p).map_err(|e| e.at(pos as u64))?;
                for _ in 0..count.min(remaining) {
                    pixels.extend_from_slice(&c);
                }
            } else {
                for _ in 0..count.min(remaining) {
                    let p = data.get(pos..pos + px).ok_or_else(|| Error::truncated((pos + px) as u64, data.len() as u64).at(pos as u64))?;
                    pixels.extend_from_slice(&resolve(p).map_err(|e| e.at(pos as u64))?);
                    pos += px;
                }
            }
        } else {
            let c = resolve(&data[pos..pos + px]).map_err(|e| e.at(pos as u64))?;
            pixels.extend_from_slice(&c);
            pos += px;
        }
    }
    let row = w as usize * 4;
    // Descriptor bit 5: rows stored top first; else bottom first. Bit 4: right to left.
    if desc & 0x20 == 0 && row > 0 {
        let rows: Vec<&[u8]> = pixels.chunks_exact(row).rev().collect();
        pixels = rows.concat();
    }
    if desc & 0x10 != 0 && row > 0 {
        for r in pixels.chunks_exact_mut(row) {
            let mut px: Vec<[u8; 4]> = r.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
            px.reverse();
            r.copy_from_slice(&px.concat());
        }
    }
    ImageRgba::new(w, ht, pixels)
}

/// A 32-bit true-colour TGA, top row first, run-length encoded or not (fixtures and tests).
pub fn encode(img: &ImageRgba, rle: bool) -> Vec<u8> {
    let mut out = vec![0u8; HEADER];
    out[2] = if rle { 10 } else { 2 };
    out[12..14].copy_from_slice(&(img.width as u16).to_le_bytes());
    out[14..16].copy_from_slice(&(img.height as u16).to_le_bytes());
    out[16] = 32;
    out[17] = 0x20 | 8;
    let bgra = |p: &[u8]| [p[2], p[1], p[0], p[3]];
    let px: Vec<&[u8]> = img.pixels.chunks_exact(4).collect();
    if !rle {
        for p in px {
            out.extend_from_slice(&bgra(p));
        }
        return out;
    }
    // Runs of equal pixels become repeat packets, everything else single raw packets.
    let mut i = 0;
    while i < px.len() {
        let mut run = 1;
        while i + run < px.len() && run < 128 && px[i + run] == px[i] {
            run += 1;
        }
        if run > 1 {
            out.push(0x80 | (run - 1) as u8);
            out.extend_from_slice(&bgra(px[i]));
        } else {
            out.push(0);
            out.extend_from_slice(&bgra(px[i]));
        }
        i += run;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ImageRgba {
        let mut p = Vec::new();
        for i in 0..12u8 {
            p.extend_from_slice(&[i, i / 2, 200, if i < 6 { 255 } else { 10 }]);
        }
        ImageRgba::new(4, 3, p).unwrap()
    }

    #[test]
    fn round_trips_raw_and_rle() {
        let img = sample();
        for rle in [false, true] {
            assert_eq!(decode(&encode(&img, rle), 1 << 20).unwrap(), img);
        }
        // Bottom-up storage is flipped.
        let mut t = encode(&img, false);
        t[17] = 8;
        let flipped = decode(&t, 1 << 20).unwrap();
        assert_eq!(flipped.pixel(0, 0), img.pixel(0, 2));
    }

    #[test]
    fn grey_mapped_and_24_bit() {
        // 2x1 grey.
        let mut t = vec![0u8; 18];
        t[2] = 3;
        t[12] = 2;
        t[14] = 1;
        t[16] = 8;
        t[17] = 0x20;
        t.extend_from_slice(&[10, 20]);
        assert_eq!(decode(&t, 100).unwrap().pixels, vec![10, 10, 10, 255, 20, 20, 20, 255]);
        // 1x1 colour-mapped with a 24-bit map of 2 entries.
        let mut m = vec![0u8; 18];
        m[1] = 1;
        m[2] = 1;
        m[5] = 2;
        m[7] = 24;
        m[12] = 1;
        m[14] = 1;
        m[16] = 8;
        m[17] = 0x20;
        m.extend_from_slice(&[1, 2, 3, 4, 5, 6, 1]);
        assert_eq!(decode(&m, 100).unwrap().pixels, vec![6, 5, 4, 255]);
        m[18 + 6] = 9;
        assert!(decode(&m, 100).is_err());
    }

    #[test]
    fn hostile() {
        let t = encode(&sample(), true);
        for cut in 0..t.len() {
            assert!(decode(&t[..cut], 1 << 20).is_err());
        }
        let mut huge = t.clone();
        huge[12..16].copy_from_slice(&[0xff; 4]);
        assert!(matches!(decode(&huge, 1 << 20).unwrap_err().kind, ErrorKind::LimitExceeded { .. }));
        let mut bad = t.clone();
        bad[2] = 4;
        assert!(decode(&bad, 1 << 20).is_err());
    }
}
