//! One hash for integer grid cells, shared by the grids that bin a map's geometry
//! (`render::focus`, `decompile::clip`, the Quake 3 decompile's triangle and side grids), and by
//! the decompile's lookups keyed by a map's own numbers (shaders, quantised planes).
//!
//! The std map's default, SipHash, was a measurable share of both steps (perf: a third of the
//! focus step, 2–3 % of a LibreQuake e0m2 decompile). The keys come from the map, which may be
//! hostile: an unkeyed multiply–rotate would let a crafted map choose coordinates or planes that
//! all land in one bucket and make every lookup linear. So each process draws one random seed
//! (from std's `RandomState`) that starts every hash: collisions worked out for one process do
//! not hold in another. No user's result depends on the hash order (results are sorted, reduced
//! to minima and maxima, or only looked up), so the seed never changes an output.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

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

/// Builds [`CellHasher`]s that start from this process's seed.
#[derive(Clone, Copy)]
pub(crate) struct CellBuild(u64);

impl Default for CellBuild {
    fn default() -> Self {
        static SEED: OnceLock<u64> = OnceLock::new();
        CellBuild(*SEED.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64)))
    }
}

impl BuildHasher for CellBuild {
    type Hasher = CellHasher;
    fn build_hasher(&self) -> CellHasher {
        CellHasher(self.0)
    }
}

/// A hash map keyed by grid cells, hashed with [`CellHasher`] from the process's seed.
pub(crate) type CellMap<K, V> = HashMap<K, V, CellBuild>;

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
                    buckets.insert(CellBuild::default().hash_one([x, y, z]) & 4095);
                }
            }
        }
        assert!(buckets.len() > 2_000, "{} of 4096 buckets used", buckets.len());
    }
}
