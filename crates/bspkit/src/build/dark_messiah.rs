//! Builder maps of Dark Messiah of Might and Magic (`darkmessiah`; VDC "BSP (Source)/
//! Game-Specific"): the split version word `20 | 4 << 16`, 96-byte texinfo, 52-byte models, a
//! game lump whose header and entries carry one more int each, and 136-byte version-6 static
//! props. [`dark_messiah_map`] writes a small map with those lumps (garble test, fuzz seeds);
//! [`dark_messiah_from_valve`] re-lays a real Valve v20 map in Dark Messiah's forms, so that
//! faces, texinfo and models of real geometry are read through the fork's records.

use zerocopy::{FromZeros, IntoBytes, LittleEndian};

use super::builder::BspBuilder;
use super::source_forks::sprp_bytes;
use crate::branches::source::lumps as source;
use crate::bytes::{u16_at, u32_at, Endian};
use crate::error::{Error, Result};
use crate::lumps::gamelump::{DirForm, ID_STATIC_PROPS};
use crate::lumps::staticprops::{StaticPropV6, StaticPropV6Dm};

type L = LittleEndian;

/// The `sprp` child (version 6, two 136-byte props on leaf 0) of a Dark Messiah map.
pub fn dark_messiah_sprp() -> Vec<u8> {
    let prop = |x: f32, model: u16| {
        let mut p = StaticPropV6Dm::<L>::new_zeroed();
        let mut v6 = StaticPropV6::<L>::new_zeroed();
        v6.v5.v4.origin[0].set(x);
        v6.v5.v4.model.set(model);
        v6.v5.v4.leaf_count.set(1);
        v6.v5.v4.solid = 6;
        v6.v5.v4.fade_max.set(1000.0);
        v6.v5.forced_fade_scale.set(1.0);
        p.v6 = v6;
        // The 72 trailing bytes have no documented meaning: a recognisable pattern, kept as is.
        p.unknown = std::array::from_fn(|i| i as u8);
        p
    };
    let (a, b) = (prop(32.0, 0), prop(96.0, 1));
    sprp_bytes(&["models/props/crate.mdl", "models/props/barrel.mdl"], None, &[0], &[a.as_bytes(), b.as_bytes()])
}

/// A Dark Messiah game lump: `{count, unknown}` then 20-byte entries `{id, flags, version,
/// fileofs, filelen, unknown}`, children after the directory, offsets measured from `shift`
/// (the lump's file offset for absolute offsets, 0 for lump-relative ones).
pub fn dark_messiah_game_lump(children: &[(u32, u16, u16, Vec<u8>)], shift: u64) -> Vec<u8> {
    let form = DirForm::DarkMessiah;
    let mut out = Vec::new();
    out.extend_from_slice(&(children.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    let mut pos = form.dir_len(children.len()) as u64;
    for (id, flags, version, data) in children {
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&((shift + pos) as u32).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        pos += data.len() as u64;
    }
    children.iter().for_each(|c| out.extend_from_slice(&c.3));
    out
}

/// One 96-byte texinfo: identity texture axes, lightmap axes at 1/16, the unknown bytes
/// filled with a pattern, flags 0, texdata 0.
fn texinfo_dm() -> Vec<u8> {
    let mut t = crate::branches::source::records::TexInfoDm::new_zeroed();
    t.texture_vecs[0][0].set(1.0);
    t.texture_vecs[1][1].set(1.0);
    t.lightmap_vecs[0][0].set(1.0 / 16.0);
    t.lightmap_vecs[1][1].set(1.0 / 16.0);
    t.unknown = [0xd4; 24];
    t.as_bytes().to_vec()
}

/// One 52-byte model: bounds of a 64-unit box, headnode 0, no faces.
fn model_dm() -> Vec<u8> {
    let mut m = crate::branches::source::records::ModelDm::new_zeroed();
    for a in 0..3 {
        m.mins[a].set(-64.0);
        m.maxs[a].set(64.0);
    }
    m.as_bytes().to_vec()
}

/// A small Dark Messiah map: worldspawn, one texdata / texinfo / model and the game lump with
/// two static props, its offsets absolute (as PC maps store them).
pub fn dark_messiah_map() -> Vec<u8> {
    let ents = b"{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"1\"\n}\n\0".to_vec();
    let mut texdata = vec![0u8; 32];
    texdata[20..24].copy_from_slice(&16i32.to_le_bytes());
    texdata[24..28].copy_from_slice(&16i32.to_le_bytes());
    let build = |gl: Vec<u8>| {
        BspBuilder::new(&source::DARK_MESSIAH)
            .lump(0, ents.clone())
            .lump(source::LUMP_TEXDATA, texdata.clone())
            .lump(source::LUMP_TEXINFO, texinfo_dm())
            .lump(source::LUMP_MODELS, model_dm())
            .lump(source::LUMP_GAME_LUMP, gl)
            .lump(source::LUMP_TEXDATA_STRING_TABLE, 0i32.to_le_bytes().to_vec())
            .lump(source::LUMP_TEXDATA_STRING_DATA, b"DEV/DEV_MEASUREGENERIC01\0".to_vec())
            .build()
    };
    let children = [(ID_STATIC_PROPS, 0u16, 6u16, dark_messiah_sprp())];
    with_absolute_game_lump(|shift| build(dark_messiah_game_lump(&children, shift)))
}

/// Build twice: first to learn where the game lump lands, then with its offsets absolute (the
/// lump's size does not depend on the offsets, so it lands in the same place).
fn with_absolute_game_lump(build: impl Fn(u64) -> Vec<u8>) -> Vec<u8> {
    let first = build(0);
    let at = u32_at(&first, 8 + 16 * source::LUMP_GAME_LUMP, Endian::Little).unwrap_or(0) as u64;
    build(at)
}

/// `(offset, length, version)` of directory entry `i` of a Valve v20 header.
fn entry(data: &[u8], i: usize) -> Option<(usize, usize, u32)> {
    let b = 8 + 16 * i;
    Some((u32_at(data, b, Endian::Little)? as usize, u32_at(data, b + 4, Endian::Little)? as usize, u32_at(data, b + 8, Endian::Little)?))
}

/// Re-lay a little-endian Valve v20 map (`VBSP` 20, no LZMA lumps) in Dark Messiah's forms:
/// the split version word, each texinfo widened by 24 zero bytes before `flags`, each model by
/// a zero int before `headnode`, and the game lump in Dark Messiah's directory with its `sprp`
/// child replaced by [`dark_messiah_sprp`] (other children kept). Every other lump is copied.
pub fn dark_messiah_from_valve(data: &[u8]) -> Result<Vec<u8>> {
    if data.get(..4) != Some(b"VBSP") || u32_at(data, 4, Endian::Little) != Some(20) {
        return Err(Error::malformed("not a little-endian VBSP version 20 map"));
    }
    let mut lumps: Vec<(Vec<u8>, u32)> = Vec::with_capacity(64);
    for i in 0..64 {
        let (ofs, len, version) = entry(data, i).ok_or_else(|| Error::truncated(1036, data.len() as u64).in_lump("header"))?;
        let bytes = data.get(ofs..ofs.saturating_add(len)).ok_or_else(|| Error::truncated((ofs + len) as u64, data.len() as u64))?;
        if bytes.starts_with(b"LZMA") {
            return Err(Error::malformed(format!("lump {i} is LZMA-compressed")));
        }
        lumps.push((bytes.to_vec(), version));
    }
    let widen = |bytes: &[u8], size: usize, at: usize, extra: usize| -> Result<Vec<u8>> {
        if bytes.len() % size != 0 {
            return Err(Error::malformed(format!("{} bytes are not whole {size}-byte records", bytes.len())));
        }
        Ok(bytes.chunks_exact(size).flat_map(|r| [&r[..at], &vec![0u8; extra][..], &r[at..]].concat()).collect())
    };
    lumps[source::LUMP_TEXINFO].0 = widen(&lumps[source::LUMP_TEXINFO].0, 72, 64, 24)?;
    lumps[source::LUMP_MODELS].0 = widen(&lumps[source::LUMP_MODELS].0, 48, 36, 4)?;
    // The Valve game lump's children, stored absolute or relative: read each child's bytes.
    let (gofs, _, _) = entry(data, source::LUMP_GAME_LUMP).unwrap_or((0, 0, 0));
    let gl = &lumps[source::LUMP_GAME_LUMP].0;
    let count = u32_at(gl, 0, Endian::Little).unwrap_or(0) as usize;
    let mut children = Vec::new();
    for k in 0..count.min(gl.len() / 16) {
        let b = 4 + 16 * k;
        let field = |o: usize| u32_at(gl, b + o, Endian::Little).unwrap_or(0);
        let (id, flags, version) =
            (field(0), u16_at(gl, b + 4, Endian::Little).unwrap_or(0), u16_at(gl, b + 6, Endian::Little).unwrap_or(0));
        let (ofs, len) = (field(8) as usize, field(12) as usize);
        if id == ID_STATIC_PROPS || len == 0 || flags != 0 {
            continue;
        }
        let rel = if ofs >= gofs && ofs - gofs + len <= gl.len() { ofs - gofs } else { ofs };
        let child = gl.get(rel..rel + len).ok_or_else(|| Error::malformed(format!("game lump child {k} outside the lump")))?;
        children.push((id, flags, version, child.to_vec()));
    }
    children.insert(0, (ID_STATIC_PROPS, 0, 6, dark_messiah_sprp()));
    let revision = u32_at(data, 8 + 16 * 64, Endian::Little).unwrap_or(0);
    let build = |shift: u64| {
        let mut b = BspBuilder::new(&source::DARK_MESSIAH);
        b.revision = revision;
        for (i, (bytes, version)) in lumps.iter().enumerate() {
            let bytes = if i == source::LUMP_GAME_LUMP { dark_messiah_game_lump(&children, shift) } else { bytes.clone() };
            if !bytes.is_empty() {
                b = b.lump_v(i, bytes, *version);
            }
        }
        b.build()
    };
    Ok(with_absolute_game_lump(build))
}
