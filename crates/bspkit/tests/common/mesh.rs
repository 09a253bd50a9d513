//! Helpers of the scene-model tests (`tests/mesh_*.rs`): small vector maths in f64 for checking
//! areas and normals against the raw records, and the damaged-copies loop.

use bspkit::mesh::{self, MeshOptions};
use bspkit::Bsp;

pub type V3 = [f64; 3];

pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn len(a: V3) -> f64 {
    dot(a, a).sqrt()
}
/// A stored f32 point in f64.
pub fn f64s(v: [f32; 3]) -> V3 {
    v.map(|c| c as f64)
}

/// A polygon's (vector) area from its corners: half the length of Newell's normal.
pub fn polygon_area(corners: &[V3]) -> f64 {
    let mut n = [0.0; 3];
    for (k, a) in corners.iter().enumerate() {
        n = add(n, cross(*a, corners[(k + 1) % corners.len()]));
    }
    len(n) / 2.0
}

/// Whether a polygon turns the same way at every corner (up to rounding) about `normal`,
/// whichever way it is wound.
pub fn is_convex(corners: &[V3], normal: V3) -> bool {
    let n = corners.len();
    let turns: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let (a, b, c) = (corners[k], corners[(k + 1) % n], corners[(k + 2) % n]);
            let (e, f) = (sub(b, a), sub(c, b));
            (dot(cross(e, f), normal), len(e) * len(f))
        })
        .collect();
    [1.0, -1.0].iter().any(|s| turns.iter().all(|(t, scale)| s * t >= -1e-3 * scale))
}

/// Copies of a corpus map with words of `lumps` overwritten by hostile values (deterministic),
/// built into scenes (default patch level and level 3): each gives a scene or a typed error,
/// never a panic. Returns how many scenes were built.
pub fn damaged_copies_build(bytes: &[u8], lumps: &[usize], copies: usize, seed: u64) -> usize {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    let ranges: Vec<std::ops::Range<usize>> = lumps
        .iter()
        .filter_map(|&l| bsp.raw_lump(l).ok())
        .filter(|s| s.len() >= 4)
        .map(|s| {
            let at = s.as_ptr() as usize - bytes.as_ptr() as usize;
            at..at + s.len()
        })
        .collect();
    assert!(!ranges.is_empty());
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let values = [-1i32, 0, 1, 2, 3, 5, 0xffff, 0x7fff_ffff, i32::MIN, 0x1_0000];
    let mut built = 0;
    for _ in 0..copies {
        let mut copy = bytes.to_vec();
        for _ in 0..1 + next() % 4 {
            let r = &ranges[(next() % ranges.len() as u64) as usize];
            let word = r.start + (next() as usize % (r.len() / 4)) * 4;
            let v = if next() % 4 == 0 { next() as i32 } else { values[(next() % values.len() as u64) as usize] };
            let width = if next() % 2 == 0 { 4 } else { 2 };
            copy[word..word + width].copy_from_slice(&v.to_le_bytes()[..width]);
        }
        let Ok(bsp) = Bsp::from_bytes(&copy) else { continue };
        for level in [None, Some(3)] {
            if mesh::build(&bsp, &MeshOptions { patch_level: level, ..Default::default() }).is_ok() {
                built += 1;
            }
        }
    }
    built
}

/// [`damaged_copies_build`] over every corpus map of `folder` (150 copies each, damaging
/// `lumps`), printing how many scenes each gave.
pub fn damaged_corpus_maps_build(test: &str, folder: &str, lumps: &[usize]) {
    let Some(corpus) = super::corpus(test) else { return };
    for (k, map) in super::maps_in(&corpus, folder).into_iter().enumerate() {
        let bytes = std::fs::read(&map.path).unwrap();
        let built = damaged_copies_build(&bytes, lumps, 150, 0x9e37_79b9_7f4a_7c15 ^ k as u64);
        eprintln!("{}: {built} damaged scenes built", map.path.display());
    }
}
