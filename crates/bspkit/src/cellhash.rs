//! One hash for integer grid cells, shared by the grids that bin a map's geometry
//! (`render::focus`, `decompile::clip`, the Quake 3 decompile's triangle and side grids), and by
//! the decompile's lookups keyed by a map's own numbers (shaders, quantised planes).
//!
//! The std map's default, SipHash, is keyed against chosen-key floods. Cell coordinates come
//! from a map's own geometry and the grids bound how many there are, so that protection buys
//! nothing here, and SipHash was a measurable share of both steps (perf: a third of the focus
//! step, 2–3 % of a LibreQuake e0m2 decompile). No user's result depends on the hash order
//! (results are sorted, reduced to minima and maxima, or only looked up), so the hash never
//! changes an output.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply–rotate over the key's 64-bit words, with a final xor-shift to spread the high
/// bits into the low ones the table indexes by.
#[derive(Default, Clone, Copy)]
pub(crate) struct CellHasher(u64);

impl Hasher for CellHasher {
    fn write(&mut self, bytes: &[u8]) {
        // An integer array such as `[i64; 3]` hashes as one byte string: take it 8 bytes at a
        // time rather than byte by byte.
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.write_u64(u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
        }
        for &b in words.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// A hash map keyed by grid cells, hashed with [`CellHasher`].
pub(crate) type CellMap<K, V> = HashMap<K, V, BuildHasherDefault<CellHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_cells_land_in_different_buckets() {
        // The low bits index the table: a 16 × 16 × 16 block of cells must not collapse onto
        // a few of 4,096 buckets.
        let mut buckets = std::collections::HashSet::new();
        for x in 0..16i64 {
            for y in 0..16i64 {
                for z in 0..16i64 {
                    let mut h = CellHasher::default();
                    std::hash::Hash::hash(&[x, y, z], &mut h);
                    buckets.insert(h.finish() & 4095);
                }
            }
        }
        assert!(buckets.len() > 2_000, "{} of 4096 buckets used", buckets.len());
    }
}
