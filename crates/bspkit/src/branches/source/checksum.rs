//! The map checksum the engine compares between client and server (source.md §25): CRC-32
//! over every lump's bytes in index order 0..63, skipping lump 0 (entities); the header is
//! not included.
//!
//! Compressed or decompressed? §25's reference feeds "`filelen` bytes from `fileofs`" for
//! each lump: the bytes as stored in the file. For an LZMA lump `filelen` is the compressed
//! length (§4.1, §6), so the checksum covers the compressed bytes. An external `.lmp` lump
//! replaces the stored bytes, as it does when the engine loads it.

use crate::bsp::Bsp;
use crate::error::Result;

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the CRC the engine's `CRC32_*` use;
/// computed by `crc32fast`. The state is the CRC of the bytes so far, so the value is `Copy`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Crc32(u32);

impl Crc32 {
    pub fn update(&mut self, data: &[u8]) {
        let mut h = crc32fast::Hasher::new_with_initial(self.0);
        h.update(data);
        self.0 = h.finalize();
    }
    pub fn finish(&self) -> u32 {
        self.0
    }
}

/// CRC-32 of one byte string.
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// The map checksum of a Source map (source.md §25), or `None` for other families.
pub fn map_checksum(bsp: &Bsp) -> Result<Option<u32>> {
    if bsp.family() != crate::branch::Family::Source {
        return Ok(None);
    }
    let mut c = Crc32::default();
    for index in 1..64 {
        c.update(bsp.raw_lump(index)?);
    }
    Ok(Some(c.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard CRC-32 check value.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn incremental_crc_equals_one_shot() {
        let mut c = Crc32::default();
        c.update(b"1234");
        c.update(b"");
        c.update(b"56789");
        assert_eq!(c.finish(), 0xCBF4_3926);
    }

    #[test]
    fn checksum_skips_entities_and_ignores_positions() {
        use crate::build::builder::BspBuilder;
        let b = |ents: &[u8]| {
            BspBuilder::new(&crate::branches::source::lumps::SOURCE)
                .lump(0, ents.to_vec())
                .lump(1, vec![7u8; 20])
                .lump(3, vec![1u8; 12])
                .build()
        };
        let a = b(b"{\n\"classname\" \"worldspawn\"\n}\n\0");
        let c = b(b"{\n\"classname\" \"worldspawn\"\n\"message\" \"longer entity text moves every lump\"\n}\n\0");
        let (a, c) = (Bsp::from_bytes(&a).unwrap(), Bsp::from_bytes(&c).unwrap());
        let sum = map_checksum(&a).unwrap().unwrap();
        assert_eq!(sum, map_checksum(&c).unwrap().unwrap());
        let mut expect = Crc32::default();
        expect.update(&[7u8; 20]);
        expect.update(&[1u8; 12]);
        assert_eq!(sum, expect.finish());
    }
}
