//! Byte order of the physics lumps: lump 29 (`PHYSCOLLIDE`, source.md §22) and lump 28
//! (`PHYSDISP`).
//!
//! Each collision section of lump 29 is a `compactsurfaceheader_t` (28 bytes: `VPHY`, version,
//! model type, surface size, drag axis areas, axis map size) and an IVP compact surface (the
//! `.phy` format's layout, facts from the Source SDK's public IVP headers): the surface (48
//! bytes), its ledge tree nodes (28 bytes: right-child offset, ledge offset, centre, radius,
//! 4 bytes), compact ledges (16 bytes, then 16-byte triangles) and their points (4 floats).
//! Four of these words are C bitfields, which the console compiler allocates from the top bit
//! and the PC one from the bottom bit (observed in `shack.360`: the surface word `0xeb011404`
//! holds byte size 0x11404 = the header's surface size in its low 24 bits, a PC map's
//! `0x011404eb`-shaped words in their high 24); so those words are repacked field by field, and
//! every other field is swapped as the scalar it is.
//!
//! The key-data text after each model's sections ends in one NUL on PC maps (every corpus map)
//! and is padded with NULs to 4 bytes on the console (`shack.360`: 196 bytes where the PC
//! build's vbspinfo counts 195): the padding follows the target.
//!
//! Lump 28 is a `u16` count and `u16` sizes, then byte-oriented data the same on both (observed:
//! the PC and console sections both start `01 00 00 00`), so only the sizes are swapped.

use std::collections::BTreeSet;

use crate::bytes::{i16_at, i32_at, u32_at, Endian};
use crate::error::{Error, ErrorKind, Result};

/// Field widths of the four IVP bitfield words, in declaration order.
const SURFACE_BITS: &[u32] = &[8, 24]; // max_factor_surface_deviation, byte_size
const LEDGE_BITS: &[u32] = &[2, 2, 4, 24]; // has_children, is_compact, dummy, size_div_16
const TRIANGLE_BITS: &[u32] = &[12, 12, 7, 1]; // tri_index, pierce_index, material_index, is_virtual
const EDGE_BITS: &[u32] = &[16, 15, 1]; // start_point_index, opposite_index, is_virtual

/// Move bitfields from one allocation to the other: little-endian compilers put the first
/// field in the low bits, the console's big-endian one in the high bits.
fn repack(v: u32, widths: &[u32], from_top: bool) -> u32 {
    let mut out = 0u32;
    let mut low = 0u32;
    for &w in widths {
        let mask = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
        let (src, dst) = if from_top { (32 - low - w, low) } else { (low, 32 - low - w) };
        out |= ((v >> src) & mask) << dst;
        low += w;
    }
    out
}

struct Swapper<'a> {
    src: &'a [u8],
    dst: &'a mut [u8],
    from: Endian,
    to: Endian,
    /// Bytes some structure reached.
    covered: Vec<bool>,
}

impl Swapper<'_> {
    fn need(&self, at: usize, len: usize) -> Result<()> {
        if at.checked_add(len).map_or(true, |e| e > self.src.len()) {
            return Err(Error::truncated((at + len) as u64, self.src.len() as u64).at(at as u64));
        }
        Ok(())
    }
    fn word(&mut self, at: usize) -> Result<()> {
        self.need(at, 4)?;
        let v = u32_at(self.src, at, self.from).unwrap_or(0);
        self.dst[at..at + 4].copy_from_slice(&self.to.u32_bytes(v));
        self.cover(at, 4);
        Ok(())
    }
    fn cover(&mut self, at: usize, len: usize) {
        self.covered[at..at + len].iter_mut().for_each(|c| *c = true);
    }
    fn words(&mut self, at: usize, n: usize) -> Result<()> {
        (0..n).try_for_each(|i| self.word(at + 4 * i))
    }
    fn short(&mut self, at: usize) -> Result<()> {
        self.need(at, 2)?;
        self.dst[at] = self.src[at + 1];
        self.dst[at + 1] = self.src[at];
        self.cover(at, 2);
        Ok(())
    }
    fn bits(&mut self, at: usize, widths: &[u32]) -> Result<()> {
        self.need(at, 4)?;
        let v = u32_at(self.src, at, self.from).unwrap_or(0);
        let v = if self.from == self.to { v } else { repack(v, widths, self.from == Endian::Big) };
        self.dst[at..at + 4].copy_from_slice(&self.to.u32_bytes(v));
        self.cover(at, 4);
        Ok(())
    }
    fn i32(&self, at: usize) -> Result<i32> {
        self.need(at, 4)?;
        Ok(i32_at(self.src, at, self.from).unwrap_or(0))
    }
    fn offset(&self, base: usize, rel: i32) -> Result<usize> {
        let p = base as i64 + rel as i64;
        if p < 0 || p as u64 >= self.src.len() as u64 {
            return Err(
                Error::malformed(format!("IVP offset {rel} from {base} leaves the data ({} bytes)", self.src.len())).at(base as u64)
            );
        }
        Ok(p as usize)
    }

    /// One compact surface starting at `s` (its 48-byte header, ledge tree, ledges, points).
    fn surface(&mut self, s: usize) -> Result<()> {
        self.words(s, 7)?;
        self.bits(s + 28, SURFACE_BITS)?;
        self.words(s + 32, 4)?;
        let root = self.offset(s, self.i32(s + 32)?)?;
        let limit = self.src.len() / 16 + 1;
        let mut nodes = vec![root];
        let mut seen_nodes = BTreeSet::new();
        let mut ledges = BTreeSet::new();
        while let Some(n) = nodes.pop() {
            if !seen_nodes.insert(n) {
                continue;
            }
            if seen_nodes.len() > limit {
                return Err(Error::malformed("IVP ledge tree has more nodes than its data can hold").at(n as u64));
            }
            let right = self.i32(n)?;
            let ledge = self.i32(n + 4)?;
            self.words(n, 6)?;
            self.need(n, 28)?;
            // Box sizes and a free byte: bytes.
            self.cover(n + 24, 4);
            if ledge != 0 {
                ledges.insert(self.offset(n, ledge)?);
            }
            if right != 0 {
                nodes.push(n + 28);
                nodes.push(self.offset(n, right)?);
            }
        }
        let mut points = BTreeSet::new();
        for &l in &ledges {
            let point_base = self.offset(l, self.i32(l)?)?;
            self.need(l, 16)?;
            let n_tri = i16_at(self.src, l + 12, self.from).unwrap_or(0);
            if n_tri < 0 {
                return Err(Error::malformed(format!("IVP ledge with {n_tri} triangles")).at(l as u64));
            }
            self.words(l, 2)?;
            self.bits(l + 8, LEDGE_BITS)?;
            self.short(l + 12)?;
            self.short(l + 14)?;
            for t in 0..n_tri as usize {
                let at = l + 16 + 16 * t;
                self.bits(at, TRIANGLE_BITS)?;
                for e in 0..3 {
                    let edge = at + 4 + 4 * e;
                    self.bits(edge, EDGE_BITS)?;
                    let v = u32_at(self.src, edge, self.from).unwrap_or(0);
                    let start = if self.from == Endian::Big { v >> 16 } else { v & 0xffff };
                    points.insert(point_base + 16 * start as usize);
                }
            }
        }
        for p in points {
            self.words(p, 4)?;
        }
        Ok(())
    }
}

/// Convert one collision section (after its 4-byte size) from `src` into `dst` (a copy of it).
/// Returns the number of bytes no structure reached (left as they were).
fn section(src: &[u8], dst: &mut [u8], from: Endian, to: Endian) -> Result<usize> {
    let mut sw = Swapper { src, dst, from, to, covered: vec![false; src.len()] };
    let surface_at = if src.get(0..4).map(|b| u32_at(b, 0, from)) == Some(Some(u32::from_be_bytes(*b"YHPV"))) {
        // compactsurfaceheader_t: 'VPHY', version, model type, surface size, drag axis areas,
        // axis map size.
        let version = i16_at(src, 4, from).unwrap_or(-1);
        let model_type = i16_at(src, 6, from).unwrap_or(-1);
        if version != 0x100 || model_type != 0 {
            // Only version 0x100 with convex ledges is known (Strata's 0x101 differs).
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "collision section version {version:#x}, model type {model_type} (known: 0x100, type 0)"
            ))));
        }
        sw.word(0)?;
        sw.short(4)?;
        sw.short(6)?;
        sw.words(8, 5)?;
        28
    } else {
        // The older form without the header: the surface alone.
        0
    };
    sw.surface(surface_at)?;
    Ok(sw.covered.iter().filter(|&&c| !c).count())
}

/// Lump 29 in the other byte order. Returns the new lump; `unreached` counts the bytes of
/// collision sections no structure reached (left as they were).
pub fn phys_collide(src: &[u8], from: Endian, to: Endian, unreached: &mut usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(src.len() + 16);
    let mut p = 0usize;
    let rd =
        |at: usize| -> Result<i32> { i32_at(src, at, from).ok_or_else(|| Error::truncated(at as u64 + 4, src.len() as u64).at(at as u64)) };
    let put = |out: &mut Vec<u8>, v: i32| out.extend_from_slice(&to.u32_bytes(v as u32));
    loop {
        let (model, data_size, key_size, solids) = (rd(p)?, rd(p + 4)?, rd(p + 8)?, rd(p + 12)?);
        let key_at = out.len() + 8;
        put(&mut out, model);
        put(&mut out, data_size);
        put(&mut out, key_size);
        put(&mut out, solids);
        p += 16;
        if model == -1 {
            break;
        }
        if solids < 0 || key_size < 0 {
            return Err(
                Error::malformed(format!("physics model {model}: {solids} sections, {key_size} bytes of key data")).at(p as u64 - 16)
            );
        }
        for _ in 0..solids {
            let size = rd(p)?;
            let end = usize::try_from(size).ok().and_then(|s| (p + 4).checked_add(s)).filter(|&e| e <= src.len());
            let Some(end) = end else {
                return Err(Error::malformed(format!("collision section of {size} bytes leaves the lump")).at(p as u64));
            };
            put(&mut out, size);
            let s = &src[p + 4..end];
            let mut d = s.to_vec();
            *unreached += section(s, &mut d, from, to).map_err(|e| e.at(p as u64 + 4))?;
            out.extend_from_slice(&d);
            p = end;
        }
        let key_end = p
            .checked_add(key_size as usize)
            .filter(|&e| e <= src.len())
            .ok_or_else(|| Error::truncated((p + key_size as usize) as u64, src.len() as u64).at(p as u64))?;
        let key = &src[p..key_end];
        // The text and its first NUL; then the target's padding.
        let text_len = key.iter().position(|&b| b == 0).map_or(key.len(), |n| n + 1);
        let padding_only = key[text_len..].iter().all(|&b| b == 0);
        let mut text = if padding_only { key[..text_len].to_vec() } else { key.to_vec() };
        if to == Endian::Big && padding_only {
            text.resize(text.len().next_multiple_of(4), 0);
        }
        let n = text.len() as i32;
        out[key_at..key_at + 4].copy_from_slice(&to.u32_bytes(n as u32));
        out.extend_from_slice(&text);
        p = key_end;
    }
    // Anything after the terminator is kept.
    out.extend_from_slice(&src[p.min(src.len())..]);
    Ok(out)
}

/// Lump 28 in the other byte order: the count and sizes (`u16`); the sections are bytes.
pub fn phys_disp(src: &[u8], from: Endian, to: Endian) -> Result<Vec<u8>> {
    let n = crate::bytes::u16_at(src, 0, from).ok_or_else(|| Error::truncated(2, src.len() as u64))? as usize;
    let head = 2 + 2 * n;
    if head > src.len() {
        return Err(Error::truncated(head as u64, src.len() as u64));
    }
    let mut out = src.to_vec();
    if from != to {
        out[..head].chunks_exact_mut(2).for_each(|c| c.swap(0, 1));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repack_moves_fields_between_ends() {
        // shack.360's first surface word: max_factor 0xeb (top), byte_size 0x11404.
        assert_eq!(repack(0xeb01_1404, SURFACE_BITS, true), 0x0114_04eb);
        assert_eq!(repack(0x0114_04eb, SURFACE_BITS, false), 0xeb01_1404);
        for v in [0u32, 1, 0x1000_0015, 0x0010_0a04, 0xdead_beef, u32::MAX] {
            for w in [SURFACE_BITS, LEDGE_BITS, TRIANGLE_BITS, EDGE_BITS] {
                assert_eq!(repack(repack(v, w, true), w, false), v);
            }
        }
        // An edge: start point 2, opposite 6, not virtual.
        assert_eq!(repack(0x0002_000c, EDGE_BITS, true), 2 | (6 << 16));
    }
}
