//! Quake / Quake 2 `.pak` archives (`id1/pak0.pak`, `baseq2/pak0.pak`), where the games keep
//! `gfx/palette.lmp`, `pics/colormap.pcx` and Quake 2's `.wal` textures.
//!
//! ```text
//! char magic[4] "PACK"; i32 dir_offset; i32 dir_length
//! entry[dir_length / 64]: char name[56]; i32 offset; i32 length
//! ```
//!
//! A format this small has no maintained crate; this reader checks the directory against the
//! file before it allocates anything.

use crate::bytes::{c_str, i32_at, Endian};
use crate::error::{Error, Result};

const ENTRY_LEN: usize = 64;

/// One file in the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackEntry {
    pub name: String,
    pub offset: u32,
    pub length: u32,
}

/// The directory of a `.pak` file.
pub fn parse(data: &[u8]) -> Result<Vec<PackEntry>> {
    if data.get(..4) != Some(b"PACK") {
        return Err(Error::malformed(format!("not a PACK file (starts {})", crate::bytes::describe_head(data))).at(0));
    }
    let ofs = i32_at(data, 4, Endian::Little).ok_or_else(|| Error::truncated(12, data.len() as u64).at(4))?;
    let len = i32_at(data, 8, Endian::Little).ok_or_else(|| Error::truncated(12, data.len() as u64).at(8))?;
    let (Ok(ofs), Ok(len)) = (u64::try_from(ofs), u64::try_from(len)) else {
        return Err(Error::malformed(format!("negative PACK directory {ofs}+{len}")).at(4));
    };
    if ofs.checked_add(len).map_or(true, |e| e > data.len() as u64) || len % ENTRY_LEN as u64 != 0 {
        return Err(
            Error::malformed(format!("PACK directory {ofs}+{len} does not fit the {}-byte file in 64-byte entries", data.len())).at(4)
        );
    }
    let dir = &data[ofs as usize..(ofs + len) as usize];
    Ok(dir
        .chunks_exact(ENTRY_LEN)
        .map(|e| PackEntry {
            name: c_str(&e[..56]).into_owned(),
            offset: u32::from_le_bytes([e[56], e[57], e[58], e[59]]),
            length: u32::from_le_bytes([e[60], e[61], e[62], e[63]]),
        })
        .collect())
}

/// Bytes of a `.pak` holding `files` (name, data) in order.
pub fn build(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = b"PACK\0\0\0\0\0\0\0\0".to_vec();
    let mut dir = Vec::new();
    for (name, data) in files {
        let at = out.len() as u32;
        out.extend_from_slice(data);
        let mut n = [0u8; 56];
        for (d, s) in n.iter_mut().take(55).zip(name.bytes()) {
            *d = s;
        }
        dir.extend_from_slice(&n);
        dir.extend_from_slice(&at.to_le_bytes());
        dir.extend_from_slice(&(data.len() as u32).to_le_bytes());
    }
    let ofs = out.len() as u32;
    out[4..8].copy_from_slice(&ofs.to_le_bytes());
    out[8..12].copy_from_slice(&(dir.len() as u32).to_le_bytes());
    out.extend_from_slice(&dir);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bounds() {
        let pak = build(&[("gfx/palette.lmp", &[1, 2, 3]), ("maps/e1m1.bsp", b"x")]);
        let e = parse(&pak).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "gfx/palette.lmp");
        assert_eq!(&pak[e[0].offset as usize..][..3], &[1, 2, 3]);
        let mut bad = pak.clone();
        bad[8..12].copy_from_slice(&(i32::MAX).to_le_bytes());
        assert!(parse(&bad).is_err());
        assert!(parse(b"PACK").is_err());
    }
}
