//! Quake 64 maps (`quake64`, `" 46Q"`) from Quake BSP29 maps: no Quake 64 map was found in
//! public repositories, so [`quake64_from_bsp29`] re-lays a BSP29 map in Quake 64's forms
//! (quakespasm `bspfile.h` / `gl_model.c`): the version word, each texture as a `miptex64_t`
//! (44-byte header with `shift`, mip 0 right after it, the other levels after that), the
//! lighting as 16-bit RGB luxels (`RRRRRGGGGGBBBBBB`) and each face's `lightofs` doubled (it
//! counts bytes of the 16-bit lump). Geometry, texture pixels and light levels stay the same
//! (light quantised to 5/5/6 bits), so a reader can be checked against the original map.

use zerocopy::{FromZeros, IntoBytes};

use super::builder::BspBuilder;
use crate::branches::quake1::lumps::{self as quake1, LUMP_FACES, LUMP_LIGHTING, LUMP_TEXTURES};
use crate::bytes::{i32_at, u32_at, Endian};
use crate::error::{Error, Result};
use crate::lumps::miptex::{MipTex64Header, MipTexLump};

/// One grey luxel as Quake 64's 16 bits: red 5, green 5, blue 6, red highest.
pub fn pack_luxel(g: u8) -> [u8; 2] {
    let (r5, g5, b6) = (g >> 3, g >> 3, g >> 2);
    [(r5 << 3) | (g5 >> 2), ((g5 & 3) << 6) | b6]
}

/// A BSP29 map's texture lump in Quake 64's form, every texture given `shift`.
fn textures_q64(lump: &[u8], shift: u32) -> Result<Vec<u8>> {
    let tex = MipTexLump::parse(lump, false)?;
    let n = tex.len();
    let mut body: Vec<u8> = Vec::new();
    let mut offsets = Vec::with_capacity(n);
    let head = 4 + 4 * n;
    for i in 0..n {
        let Some(t) = tex.get(i)? else {
            offsets.push(-1i32);
            continue;
        };
        offsets.push((head + body.len()) as i32);
        let mut h = MipTex64Header::new_zeroed();
        h.name = t.header.name;
        h.width = t.header.width;
        h.height = t.header.height;
        h.shift.set(shift);
        let mips: Vec<Vec<u8>> = (0..4)
            .map(|k| t.mip(k).map(<[u8]>::to_vec).unwrap_or_else(|| vec![0; ((t.width() >> k) * (t.height() >> k)) as usize]))
            .collect();
        let mut at = std::mem::size_of::<MipTex64Header>() as u32;
        for (k, m) in mips.iter().enumerate() {
            h.offsets[k].set(at);
            at += m.len() as u32;
        }
        body.extend_from_slice(h.as_bytes());
        mips.iter().for_each(|m| body.extend_from_slice(m));
    }
    let mut out = (n as i32).to_le_bytes().to_vec();
    offsets.iter().for_each(|o| out.extend_from_slice(&o.to_le_bytes()));
    out.extend_from_slice(&body);
    Ok(out)
}

/// Re-lay a Quake BSP29 map (version 29) as Quake 64 (see the module notes); `shift` is written
/// into every texture header.
pub fn quake64_from_bsp29(data: &[u8], shift: u32) -> Result<Vec<u8>> {
    if u32_at(data, 0, Endian::Little) != Some(29) {
        return Err(Error::malformed("not a BSP29 map"));
    }
    let mut b = BspBuilder::new(&quake1::QUAKE64);
    for i in 0..15 {
        let (ofs, len) = (u32_at(data, 4 + 8 * i, Endian::Little), u32_at(data, 8 + 8 * i, Endian::Little));
        let (Some(ofs), Some(len)) = (ofs, len) else { return Err(Error::truncated(124, data.len() as u64).in_lump("header")) };
        let bytes = data
            .get(ofs as usize..(ofs as usize).saturating_add(len as usize))
            .ok_or_else(|| Error::truncated(ofs as u64 + len as u64, data.len() as u64).in_lump(quake1::QUAKE64.lumps[i].name))?;
        let bytes = match i {
            LUMP_TEXTURES => textures_q64(bytes, shift)?,
            LUMP_LIGHTING => bytes.iter().flat_map(|&g| pack_luxel(g)).collect(),
            LUMP_FACES => {
                let mut f = bytes.to_vec();
                for rec in f.chunks_exact_mut(20) {
                    let ofs = i32_at(rec, 16, Endian::Little).unwrap_or(-1);
                    if ofs >= 0 {
                        rec[16..20].copy_from_slice(&(ofs * 2).to_le_bytes());
                    }
                }
                f
            }
            _ => bytes.to_vec(),
        };
        b = b.lump(i, bytes);
    }
    Ok(b.build())
}

/// A small Quake 64 map: the builder's BSP29 box room re-laid ([`quake64_from_bsp29`], shift 1).
pub fn quake64_room() -> Vec<u8> {
    let room = crate::branches::quake1::room::box_room(&quake1::QUAKE1);
    quake64_from_bsp29(&room, 1).expect("the builder's room is a BSP29 map")
}
