//! Builder maps of Counter-Strike Online 2 (VBSP 100) in both of its layouts: `cso2`
//! (2013–2017, Valve's 2007 records) and `cso2_2018` (2018 onwards: 242-byte dispinfo and
//! 164-byte cubemaps, the sizes bsp_tool's `nexon/cso2_2018.py` gives from L-Leite's
//! cso2-bsp-converter; see `branches/source/lumps.rs`).
//!
//! [`cso2_from_valve`] re-lays a little-endian Valve map (v19/v20, or a CSO2 map in the other
//! layout's sizes) as either layout, so a real map's geometry is read through the CSO2
//! branches; [`cso2_map`] does so for a one-face map with one displacement and one cubemap
//! (tests, garble test, fuzz seeds). The 2018 records' fields are not known: the builder keeps
//! Valve's record in front and fills the rest with zeros. That is the builder's choice, not a
//! claim about the layout — bspkit never reads those records' fields.

use super::builder::BspBuilder;
use super::vindictus::valve_square;
use crate::branch::Branch;
use crate::branches::source::lumps as source;
use crate::bytes::{u32_at, Endian};
use crate::error::{Error, Result};

/// Which CSO2 layout a re-laid map takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cso2Form {
    /// 2013–2017 (`cso2`): Valve's 176-byte dispinfo and 16-byte cubemaps.
    Y2013,
    /// 2018 onwards (`cso2_2018`): 242-byte dispinfo, 164-byte cubemaps.
    Y2018,
}

impl Cso2Form {
    pub fn branch(self) -> &'static Branch {
        match self {
            Cso2Form::Y2013 => &source::CSO2,
            Cso2Form::Y2018 => &source::CSO2_2018,
        }
    }
    /// `(dispinfo, cubemap)` record sizes.
    fn sizes(self) -> (usize, usize) {
        match self {
            Cso2Form::Y2013 => (176, 16),
            Cso2Form::Y2018 => (242, 164),
        }
    }
}

/// Each `from`-byte record of `bytes` cut or zero-padded to `to` bytes (Valve's fields first).
fn resize(bytes: &[u8], from: usize, to: usize, what: &str) -> Result<Vec<u8>> {
    if bytes.len() % from != 0 {
        return Err(Error::malformed(format!("{what}: {} bytes are not whole {from}-byte records", bytes.len())));
    }
    let mut out = Vec::with_capacity(bytes.len() / from * to);
    for r in bytes.chunks_exact(from) {
        let keep = from.min(to);
        out.extend_from_slice(&r[..keep]);
        out.resize(out.len() + (to - keep), 0);
    }
    Ok(out)
}

/// The game lump with every child offset moved by `delta` (Valve's directory: `i32 count`,
/// then `{u32 id, u16 flags, u16 version, i32 fileofs, i32 filelen}`; offsets are from the
/// start of the file on the PC, source.md §14.1).
fn shift_game_lump(gl: &[u8], delta: i64) -> Vec<u8> {
    let mut out = gl.to_vec();
    let count = u32_at(gl, 0, Endian::Little).unwrap_or(0) as usize;
    for k in 0..count.min(gl.len().saturating_sub(4) / 16) {
        let at = 4 + 16 * k + 8;
        if let Some(ofs) = u32_at(gl, at, Endian::Little) {
            let moved = (ofs as i64 + delta).max(0) as u32;
            out[at..at + 4].copy_from_slice(&moved.to_le_bytes());
        }
    }
    out
}

/// Re-lay a little-endian Valve map (`VBSP` 19, 20 or 100, no LZMA lumps) as CSO2 of `form`:
/// version 100, dispinfo and cubemap records resized (see the module notes), every other lump
/// copied with its version, the game lump's child offsets moved with it.
pub fn cso2_from_valve(data: &[u8], form: Cso2Form) -> Result<Vec<u8>> {
    let version = u32_at(data, 4, Endian::Little);
    if data.get(..4) != Some(b"VBSP") || !matches!(version, Some(19 | 20 | 100)) {
        return Err(Error::malformed("not a little-endian VBSP version 19, 20 or 100 map"));
    }
    let mut lumps: Vec<(Vec<u8>, u32)> = Vec::with_capacity(64);
    for i in 0..64 {
        let b = 8 + 16 * i;
        let field =
            |o: usize| u32_at(data, b + o, Endian::Little).ok_or_else(|| Error::truncated(1036, data.len() as u64).in_lump("header"));
        let (ofs, len, v) = (field(0)? as usize, field(4)? as usize, field(8)?);
        let bytes = data.get(ofs..ofs.saturating_add(len)).ok_or_else(|| Error::truncated((ofs + len) as u64, data.len() as u64))?;
        if bytes.starts_with(b"LZMA") {
            return Err(Error::malformed(format!("lump {i} is LZMA-compressed")));
        }
        lumps.push((bytes.to_vec(), v));
    }
    // The input's own record sizes: Valve's, or the 2018 layout's when re-laying back.
    let (disp_from, cube_from) = match crate::detect::detect(data) {
        Ok(d) if d.branch.id == "cso2_2018" => Cso2Form::Y2018.sizes(),
        _ => Cso2Form::Y2013.sizes(),
    };
    let (disp_to, cube_to) = form.sizes();
    lumps[source::LUMP_DISP_INFO].0 = resize(&lumps[source::LUMP_DISP_INFO].0, disp_from, disp_to, "DISP_INFO")?;
    lumps[source::LUMP_CUBEMAPS].0 = resize(&lumps[source::LUMP_CUBEMAPS].0, cube_from, cube_to, "CUBEMAPS")?;
    let old_at = u32_at(data, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as i64;
    let revision = u32_at(data, 8 + 16 * 64, Endian::Little).unwrap_or(0);
    let build = |delta: i64| {
        let mut b = BspBuilder::new(form.branch());
        b.revision = revision;
        for (i, (bytes, v)) in lumps.iter().enumerate() {
            let bytes = if i == source::LUMP_GAME_LUMP { shift_game_lump(bytes, delta) } else { bytes.clone() };
            if !bytes.is_empty() {
                b = b.lump_v(i, bytes, *v);
            }
        }
        b.build()
    };
    let first = build(0);
    let new_at = u32_at(&first, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as i64;
    Ok(if new_at == old_at || lumps[source::LUMP_GAME_LUMP].0.is_empty() { first } else { build(new_at - old_at) })
}

/// [`valve_square`] with its face made a power-2 displacement (flat, 25 vertices, 32
/// triangles) and one cubemap: the input of [`cso2_map`].
pub fn valve_square_displaced() -> Vec<u8> {
    let base = valve_square();
    let mut lumps: Vec<(Vec<u8>, u32)> = (0..64)
        .map(|i| {
            let b = 8 + 16 * i;
            let f = |o: usize| u32_at(&base, b + o, Endian::Little).unwrap_or(0);
            let (ofs, len) = (f(0) as usize, f(4) as usize);
            (base[ofs..ofs + len].to_vec(), f(8))
        })
        .collect();
    // Face 0's dispinfo (byte 12, i16) names record 0.
    lumps[source::LUMP_FACES].0[12..14].copy_from_slice(&0i16.to_le_bytes());
    // ddispinfo_t (source.md §15.1): start (0,0,0), vert start 0, tri start 0, power 2,
    // minTess 0, smoothing 0, contents 1 (solid), map face 0, no neighbours, allowed verts 0.
    let mut disp = vec![0u8; 176];
    disp[20..24].copy_from_slice(&2i32.to_le_bytes());
    disp[32..36].copy_from_slice(&1i32.to_le_bytes());
    lumps[source::LUMP_DISP_INFO].0 = disp;
    // 25 CDispVerts: normal (0,0,1), distance 0, alpha 0.
    lumps[source::LUMP_DISP_VERTS].0 = (0..25).flat_map(|_| [0f32, 0.0, 1.0, 0.0, 0.0].into_iter().flat_map(f32::to_le_bytes)).collect();
    lumps[source::LUMP_DISP_TRIS].0 = vec![0u8; 2 * 32];
    // dcubemapsample_t: origin (32, 32, 16), size 0 (the default).
    lumps[source::LUMP_CUBEMAPS].0 = [32i32, 32, 16, 0].into_iter().flat_map(i32::to_le_bytes).collect();
    let old_at = u32_at(&base, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as i64;
    let build = |delta: i64| {
        let mut b = BspBuilder::new(&source::SOURCE);
        for (i, (bytes, v)) in lumps.iter().enumerate() {
            let bytes = if i == source::LUMP_GAME_LUMP { shift_game_lump(bytes, delta) } else { bytes.clone() };
            if !bytes.is_empty() {
                b = b.lump_v(i, bytes, *v);
            }
        }
        b.build()
    };
    let first = build(0);
    let new_at = u32_at(&first, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as i64;
    build(new_at - old_at)
}

/// A small CSO2 map of `form`: [`valve_square_displaced`] re-laid by [`cso2_from_valve`].
pub fn cso2_map(form: Cso2Form) -> Vec<u8> {
    cso2_from_valve(&valve_square_displaced(), form).expect("the square map re-lays")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bsp::Bsp;

    #[test]
    fn both_layouts_detect_and_re_lay_back() {
        let y13 = cso2_map(Cso2Form::Y2013);
        let y18 = cso2_map(Cso2Form::Y2018);
        assert_eq!(Bsp::from_bytes(&y13).unwrap().branch().id, "cso2");
        assert_eq!(Bsp::from_bytes(&y18).unwrap().branch().id, "cso2_2018");
        assert_eq!(Bsp::from_bytes(&y18).unwrap().lump(source::LUMP_DISP_INFO).unwrap().len(), 242);
        // 2018 → 2013 gives the 2013 map back byte for byte (the padding is zeros).
        assert_eq!(cso2_from_valve(&y18, Cso2Form::Y2013).unwrap(), y13);
    }
}
