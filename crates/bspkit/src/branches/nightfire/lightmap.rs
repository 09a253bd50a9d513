//! What the sources establish about Nightfire's lightmaps, and only that (the samples are not
//! decoded: see below).
//!
//! Established, from the compiler reconstruction (`bspfile.cpp`'s `LoadBSPImage`, its
//! `WriteFace` and `GetLightmapProjections`, `bsp_structs.h`'s `dface_t`), with
//! wfowler1/LibBSP's `Face` agreeing on the fields:
//! * LIGHTING (lump 10) is a byte blob (copied with an element size of 1); a face names four
//!   light styles (byte 40) and a byte offset into it (`lightmap_offset`, byte 44).
//! * A face's lightmap projection (`lightmap_matrix`, a TEXMATRIX record) is made per face from
//!   its plane: two unit axes in the plane (from the base axis table, turned by the brush side's
//!   lightmap rotation), each divided by the face's luxel size, with offsets 0. So `dot(p, s)` is
//!   already in luxels and a luxel is `1 / |s|` units. The luxel size starts at the larger of the
//!   side's lightmap scale and the `-blscale` base and grows until the face's extent — `floor` of
//!   the least and `ceil` of the greatest projected corner, per axis — is under 128 luxels.
//!
//! Not established by any source found (so nothing here guesses it): how many bytes a luxel
//! takes (RGB or otherwise), whether the rectangle holds `extent` or `extent + 1` luxels a row,
//! and how the light tool orders the styles' blocks. Without those the samples cannot be placed
//! in an atlas; [`luxel_extent`] gives what is certain, and `check` uses it.

use super::records::TexMatrix;

/// The compiler's bound: every face's extent is under this many luxels on each axis.
pub const MAX_EXTENT: i64 = 128;

/// A face's lightmap extent in luxels, computed as the compiler computes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LuxelExtent {
    /// `floor` of the least projected corner, per axis (s, t).
    pub mins: [i64; 2],
    /// `ceil` of the greatest projected corner, per axis.
    pub maxs: [i64; 2],
    /// World units per luxel along each axis (`1 / |axis|`).
    pub units_per_luxel: [f64; 2],
}

impl LuxelExtent {
    /// `maxs - mins` per axis (saturating: a garbled projection can reach the `i64` range).
    pub fn size(&self) -> [i64; 2] {
        [0, 1].map(|a| self.maxs[a].saturating_sub(self.mins[a]))
    }
}

/// The extent of `points` under the projection `m` (offsets included, though the compiler
/// writes them 0). `None` for no points, an axis of zero or non-finite length, or a
/// non-finite projected corner. Computed in `f64`, so no finite input overflows; the casts to
/// `i64` saturate.
pub fn luxel_extent(points: &[[f32; 3]], m: &TexMatrix) -> Option<LuxelExtent> {
    let axes = [m.s.map(|x| f64::from(x.get())), m.t.map(|x| f64::from(x.get()))];
    let mut units_per_luxel = [0.0; 2];
    for (a, v) in axes.iter().enumerate() {
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if !(len.is_finite() && len > 0.0 && v[3].is_finite()) {
            return None;
        }
        units_per_luxel[a] = 1.0 / len;
    }
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in points {
        for (a, v) in axes.iter().enumerate() {
            let d = f64::from(p[0]) * v[0] + f64::from(p[1]) * v[1] + f64::from(p[2]) * v[2] + v[3];
            if !d.is_finite() {
                return None;
            }
            lo[a] = lo[a].min(d);
            hi[a] = hi[a].max(d);
        }
    }
    if points.is_empty() {
        return None;
    }
    Some(LuxelExtent { mins: lo.map(|x| x.floor() as i64), maxs: hi.map(|x| x.ceil() as i64), units_per_luxel })
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::little_endian::F32;

    fn matrix(s: [f32; 4], t: [f32; 4]) -> TexMatrix {
        TexMatrix { s: s.map(F32::new), t: t.map(F32::new) }
    }

    #[test]
    fn extent_is_floor_and_ceil_of_the_projected_corners() {
        // 16 units a luxel on a 100 × 40 quad from (-10, 3): s spans -0.625..5.625, t 0.1875..2.6875.
        let m = matrix([1.0 / 16.0, 0.0, 0.0, 0.0], [0.0, 1.0 / 16.0, 0.0, 0.0]);
        let quad = [[-10.0, 3.0, 0.0], [90.0, 3.0, 0.0], [90.0, 43.0, 0.0], [-10.0, 43.0, 0.0]];
        let e = luxel_extent(&quad, &m).unwrap();
        assert_eq!((e.mins, e.maxs, e.size()), ([-1, 0], [6, 3], [7, 3]));
        assert_eq!(e.units_per_luxel, [16.0, 16.0]);
    }

    #[test]
    fn degenerate_and_huge_projections_do_not_panic() {
        let quad = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]];
        assert_eq!(luxel_extent(&quad, &matrix([0.0; 4], [0.0, 1.0, 0.0, 0.0])), None);
        assert_eq!(luxel_extent(&quad, &matrix([f32::NAN, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0])), None);
        assert_eq!(luxel_extent(&[], &matrix([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0])), None);
        let huge = [[f32::MAX, -f32::MAX, 0.0], [-f32::MAX, f32::MAX, 0.0]];
        let e = luxel_extent(&huge, &matrix([f32::MAX, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0])).unwrap();
        assert_eq!(e.size()[0], i64::MAX);
    }
}
