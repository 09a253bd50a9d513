//! Dota 2's displacement records (v22/v23), read for the decompile where the map proves them.
//!
//! source.md §15 gives no layout for Dota 2's `ddispinfo_t` (the branch layer reads it as
//! unknown), yet a Dota 2 map's ground is usually a displacement: vbsp leaves displacement
//! brushes out of the brush lump and out of the tree, so without its record the ground face
//! comes back with no brush under it. BSPSource's v22/v23 readers give the field order: Valve's
//! record (§15.1) with one 32-bit field more after `contents` (v23 only) and one more after
//! `LightmapSamplePositionStart`, so 180 bytes (v22) or 184 (v23):
//!
//! | offset (v23) | field |
//! |---|---|
//! | 0 | start position (3 × f32) |
//! | 12, 16, 20 | `DispVertStart`, `DispTriStart`, `power` (i32) |
//! | 24, 28, 32 | `minTess` (i32), `smoothingAngle` (f32), `contents` (i32) |
//! | 36 | unknown (i32; v23 only) |
//! | 40 | `MapFace` (u16, 2 bytes of padding) |
//! | 44, 48 | `LightmapAlphaStart`, `LightmapSamplePositionStart` (i32) |
//! | 52 | unknown (i32) |
//! | 56 | edge and corner neighbours (88 bytes, as Valve's) |
//! | 144 | `AllowedVerts` (10 × u32) |
//!
//! A layout taken from another tool is not trusted on its own: a record is used only when the
//! map proves it (see [`read`]), and one record that fails leaves the whole lump out (a wrong
//! layout would fail everywhere, so a partial read would only hide it).
//! The `dota2` branch also opens INFRA (v22), whose records may be Valve's 176-byte form: read
//! as 180 bytes they fail the proof (a torn lump or a face that does not name them back).

use zerocopy::byteorder::{ByteOrder, F32, I32, U16, U32};

/// One Dota 2 displacement record: the fields the decompile writes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DotaDisp {
    pub start: [f32; 3],
    pub power: i32,
    pub vert_start: i64,
    pub tri_start: i64,
    pub map_face: usize,
    pub allowed: [u32; 10],
}

/// Record size of a Dota 2 map version, `None` for another version.
pub(crate) fn record_size(version: u32) -> Option<usize> {
    match version {
        22 => Some(180),
        23 => Some(184),
        _ => None,
    }
}

/// How far (units) the start position may lie from the face's corner: both are the same
/// stored floats, so this only absorbs the f32 → f64 widening.
const CORNER_EPS: f64 = 0.01;

/// The records of `raw` (the dispinfo lump of a Dota 2 map of `version`), each proven by the
/// map: its `MapFace` names a four-sided face whose dispinfo field names the record back, its
/// start position is a corner of that face, its power is 2 to 4 (what Hammer makes), and its
/// vertex and triangle ranges lie in the lumps (`n_verts`, `n_tris` records) with the counts its
/// power implies. `face(i)`: face `i`'s dispinfo field and polygon. Any record that fails is an
/// error naming it and why, and nothing is read.
pub(crate) fn read<O: ByteOrder>(
    raw: &[u8],
    version: u32,
    n_verts: usize,
    n_tris: usize,
    face: impl Fn(usize) -> Option<(i64, Vec<[f64; 3]>)>,
) -> Result<Vec<DotaDisp>, String> {
    let size = record_size(version).ok_or_else(|| format!("no Dota 2 dispinfo layout for version {version}"))?;
    if raw.len() % size != 0 {
        return Err(format!("{} bytes is not a whole number of {size}-byte records", raw.len()));
    }
    // The v23 record has its extra field before `MapFace`: the fields after it sit 4 bytes on.
    let shift = size - 180;
    let mut out = Vec::with_capacity(raw.len() / size);
    for (i, r) in raw.chunks_exact(size).enumerate() {
        // Every offset read lies inside the record (the table above; `size` ≥ 180).
        let b4 = |o: usize| -> [u8; 4] { std::array::from_fn(|k| r[o + k]) };
        let f = |o: usize| F32::<O>::from_bytes(b4(o)).get();
        let n = |o: usize| I32::<O>::from_bytes(b4(o)).get();
        let d = DotaDisp {
            start: [f(0), f(4), f(8)],
            vert_start: i64::from(n(12)),
            tri_start: i64::from(n(16)),
            power: n(20),
            map_face: usize::from(U16::<O>::from_bytes([r[36 + shift], r[37 + shift]]).get()),
            allowed: std::array::from_fn(|k| U32::<O>::from_bytes(b4(140 + shift + 4 * k)).get()),
        };
        let why = |s: String| format!("dispinfo {i}: {s}");
        if !(2..=4).contains(&d.power) {
            return Err(why(format!("power {} (Hammer makes 2 to 4)", d.power)));
        }
        let nv = ((1usize << d.power) + 1).pow(2);
        let nt = 2 * (1usize << d.power).pow(2);
        let fits =
            |start: i64, count: usize, len: usize| usize::try_from(start).ok().and_then(|s| s.checked_add(count)).is_some_and(|e| e <= len);
        if !fits(d.vert_start, nv, n_verts) || !fits(d.tri_start, nt, n_tris) {
            return Err(why(format!(
                "vertices {}+{nv} or triangles {}+{nt} outside the lumps ({n_verts}, {n_tris})",
                d.vert_start, d.tri_start
            )));
        }
        let Some((back, poly)) = face(d.map_face) else {
            return Err(why(format!("MapFace {} names no face", d.map_face)));
        };
        if back != i as i64 {
            return Err(why(format!("MapFace {} names a face whose dispinfo is {back}", d.map_face)));
        }
        let s = d.start.map(f64::from);
        if poly.len() != 4 || !poly.iter().any(|c| (0..3).all(|k| (c[k] - s[k]).abs() <= CORNER_EPS)) {
            return Err(why(format!("start position {:?} is not a corner of face {} ({} corners)", d.start, d.map_face, poly.len())));
        }
        out.push(d);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::LittleEndian;

    /// One v23 record as the layout table gives it.
    fn record(start: [f32; 3], power: i32, map_face: u16) -> Vec<u8> {
        let mut r = Vec::new();
        for c in start {
            r.extend(c.to_le_bytes());
        }
        for v in [0i32, 0, power, 0, 0, 1, 0] {
            r.extend(v.to_le_bytes());
        }
        r.extend(map_face.to_le_bytes());
        r.extend([0u8; 2]);
        for v in [-1i32, 0, 0] {
            r.extend(v.to_le_bytes());
        }
        r.extend([0xffu8, 0xff, 0, 0, 0, 0].repeat(8));
        r.extend([0u8; 40]);
        r.extend([0xffu8; 40]);
        assert_eq!(r.len(), 184);
        r
    }

    fn quad() -> Vec<[f64; 3]> {
        vec![[0.0, 0.0, 0.0], [0.0, 64.0, 0.0], [64.0, 64.0, 0.0], [64.0, 0.0, 0.0]]
    }

    #[test]
    fn a_record_the_map_proves_is_read() {
        let raw = record([0.0, 0.0, 0.0], 3, 5);
        let face = |i: usize| (i == 5).then(|| (0i64, quad()));
        let d = read::<LittleEndian>(&raw, 23, 81, 128, face).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].power, d[0].map_face, d[0].vert_start, d[0].tri_start), (3, 5, 0, 0));
        assert_eq!(d[0].allowed, [u32::MAX; 10]);
    }

    #[test]
    fn records_the_map_does_not_prove_are_refused() {
        let face = |i: usize| (i == 5).then(|| (0i64, quad()));
        // The start is not a corner of the face.
        assert!(read::<LittleEndian>(&record([8.0, 0.0, 0.0], 3, 5), 23, 81, 128, face).unwrap_err().contains("corner"));
        // MapFace names a face that is not this displacement's.
        let other = |i: usize| (i == 5).then(|| (1i64, quad()));
        assert!(read::<LittleEndian>(&record([0.0; 3], 3, 5), 23, 81, 128, other).unwrap_err().contains("dispinfo is 1"));
        // Too few vertices for power 3; a power Hammer does not make; a torn lump; another version.
        assert!(read::<LittleEndian>(&record([0.0; 3], 3, 5), 23, 80, 128, face).is_err());
        assert!(read::<LittleEndian>(&record([0.0; 3], 9, 5), 23, 1 << 20, 1 << 20, face).is_err());
        assert!(read::<LittleEndian>(&record([0.0; 3], 3, 5)[..180], 23, 81, 128, face).is_err());
        assert!(read::<LittleEndian>(&record([0.0; 3], 3, 5), 20, 81, 128, face).is_err());
    }
}
