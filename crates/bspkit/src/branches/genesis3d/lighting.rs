//! Genesis3D lightmaps (`World/Light.cpp`, `World/Surface.cpp`): a lit face's `light_offset`
//! points into LIGHTDATA at one flag byte (1: RGB, the only kind the engine still reads) followed
//! by `light_width × light_height` RGB8 texels (rows of `light_width`) per light type, in the
//! order of `light_types` up to the first 255 (type 0 plain, 11 "wavy" water, others animated
//! styles).
//!
//! **Luxel grid.** A face's texture-space coordinate of a point is `u = p · vecs[0]` (no shift,
//! no draw scale), one luxel every 16 of those units, the face's luxel 0 at
//! `16 · floor(min u / 16)` over its corners (the engine's `LInfo.MinU`). Luxel `k` is the sample
//! at `u = MinU + 16k` (the dynamic-light code steps across the face that way), so the mapping
//! is `s = u / 16 − floor(min u / 16)` with luxel centres at integers. The stored size is the
//! face's `light_width × light_height`; computed in `f32` as the compiler did, `ceil(max u / 16) −
//! floor(min u / 16) + 1` gives exactly that size on every lit face of the corpus level (a
//! test checks it), which is what pins the grid.
//!
//! **Axes.** The scene turns Genesis3D's Y-up positions to Z-up ([`to_z_up`], a
//! rotation), so the mapping's rows are the texture axes turned the same way: dot products are
//! unchanged.
//!
//! Samples are 8-bit RGB with 255 as full brightness (the engine clamps the sum of its light
//! types to 255 and modulates the texture by it).

use std::borrow::Cow;

use super::lumps::{CHUNK_FACES, CHUNK_LIGHTDATA};
use super::view::{to_z_up, View};
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::lighting::{LightSet, Mapping, SampleFormat};

/// Texture-space units per luxel.
pub const LUXEL: f32 = 16.0;

/// The luxel rectangle of a face: `floor(min u / 16)` and the computed size per axis, in `f32`
/// as the compiler computes them; `None` without corners or with a non-finite coordinate.
pub fn luxel_extents(axes: [[f32; 3]; 2], corners: impl Iterator<Item = [f32; 3]> + Clone) -> Option<([f32; 2], [i64; 2])> {
    let mut mins = [0f32; 2];
    let mut size = [0i64; 2];
    for (k, a) in axes.iter().enumerate() {
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for p in corners.clone() {
            // Left to right, no fused multiply-add: the compiler's rounding.
            let u = p[0] * a[0] + p[1] * a[1] + p[2] * a[2];
            lo = lo.min(u);
            hi = hi.max(u);
        }
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let (l, h) = ((lo / LUXEL).floor(), (hi / LUXEL).ceil());
        mins[k] = l;
        size[k] = (h - l) as i64 + 1;
    }
    Some((mins, size))
}

/// The lit faces of a Genesis3D level.
pub fn collect<'a>(bsp: &'a Bsp<'a>) -> Result<LightSet<'a>> {
    let view = View::new(bsp)?;
    let g = view.geometry()?;
    let mut set = LightSet {
        data: Cow::Borrowed(g.light_data),
        format: Some(SampleFormat::Rgb8),
        source: "LIGHTDATA".into(),
        source_lump: Some(CHUNK_LIGHTDATA),
        overbright: Some(1.0),
        ..Default::default()
    };
    let mut corners: Vec<[f32; 3]> = Vec::with_capacity(64);
    set.faces.reserve_exact(g.faces.len());
    for (i, f) in g.faces.iter().enumerate() {
        let ofs = f.light_offset.get();
        if ofs < 0 {
            continue;
        }
        let styles: Vec<u8> = f.light_types.iter().copied().take_while(|&t| t != 255).collect();
        if styles.is_empty() {
            continue;
        }
        let face = (|| -> std::result::Result<Mapping, String> {
            let tex = g.texinfo(i).map_err(|e| e.to_string())?;
            corners.clear();
            for c in g.corners(i).map_err(|e| e.to_string())? {
                corners.push(c.map_err(|e| e.to_string())?.position);
            }
            let axes = tex.vecs.map(|v| v.map(|c| c.get()));
            let (mins, _) = luxel_extents(axes, corners.iter().copied()).ok_or("a corner's texture coordinate is not finite")?;
            let row = |k: usize| {
                let a = to_z_up(axes[k]).map(|c| c as f64 / LUXEL as f64);
                [a[0], a[1], a[2], -(mins[k] as f64)]
            };
            Ok(Mapping::Planar { s: row(0), t: row(1) })
        })();
        let pushed = face.and_then(|mapping| {
            // One flag byte, then the light types' texels one after another.
            let base = ofs as u64 + 1;
            let size = [f.light_width.get() as i64, f.light_height.get() as i64];
            set.push_consecutive(CHUNK_FACES, i, &styles, base, size, (1, 0), mapping, ofs as i64)
        });
        if let Err(reason) = pushed {
            set.warnings.push(format!("face {i} (chunk {CHUNK_FACES} FACES, light offset {ofs}): {reason}; no lightmap"));
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_snap_to_the_luxel_grid() {
        let axes = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let square = [[0.0, 5.0, 0.0], [64.0, 5.0, 0.0], [64.0, 5.0, 64.0], [0.0, 5.0, 64.0]];
        assert_eq!(luxel_extents(axes, square.iter().copied()), Some(([0.0, 0.0], [5, 5])));
        let off = square.map(|p| [p[0] - 20.0, p[1], p[2] + 3.0]);
        // u from −20 to 44: floor(−1.25) = −2, ceil(2.75) = 3.
        assert_eq!(luxel_extents(axes, off.iter().copied()), Some(([-2.0, 0.0], [6, 6])));
        assert_eq!(luxel_extents(axes, [[f32::NAN, 0.0, 0.0]].into_iter()), None);
    }

    #[test]
    fn room_face_is_lit_from_after_the_flag_byte() {
        let bytes = crate::branches::genesis3d::room::small_level();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let set = collect(&bsp).unwrap();
        assert!(set.warnings.is_empty(), "{:?}", set.warnings);
        assert_eq!(set.faces.len(), 1);
        let f = &set.faces[0];
        assert_eq!((f.width, f.height), (2, 2));
        assert_eq!(set.slots[0].offset, 1);
    }
}
