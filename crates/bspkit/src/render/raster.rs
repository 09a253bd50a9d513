//! The triangle rasterizer: near-plane clipping in view space, projection, edge functions with
//! a tie rule (a pixel centre on an edge two triangles share belongs to exactly one of them),
//! a depth buffer and perspective-correct attributes.
//!
//! Written here rather than taken from a crate: the CPU rasterizer crates either draw through
//! a GPU-style pipeline with threads (output order not fixed) or lack perspective-correct
//! attributes; this one is ~150 lines, single-threaded, and gives the same bytes every run.
//!
//! Edge functions are evaluated in `f64`: a triangle clipped just past the near plane can
//! project millions of pixels wide, where `f32` would open cracks along shared edges.

use super::camera::{Camera, Projection};

/// Attributes carried per vertex: texture UV (2), lightmap UV (2), light RGB (3).
pub const ATTRS: usize = 7;

/// A vertex in view space (see [`Camera::view`]) with its attributes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewVertex {
    pub v: [f32; 3],
    pub a: [f32; ATTRS],
}

/// The colour and depth buffers.
pub struct Target {
    pub width: u32,
    pub height: u32,
    /// RGB, row-major, top row first.
    pub rgb: Vec<u8>,
    /// Depth key per pixel: larger is nearer (`1 / depth` for perspective, `−depth` for
    /// orthographic, both linear across a projected triangle).
    pub depth: Vec<f32>,
    /// 1 where anything was drawn.
    pub covered: Vec<u8>,
    /// Pixels tested so far: each triangle's on-screen bounding box (the render work budget).
    pub work: u64,
    /// Past this much work no more triangles are drawn (`u64::MAX`: no limit).
    pub max_work: u64,
}

impl Target {
    pub fn new(width: u32, height: u32, background: [u8; 3]) -> Self {
        let n = width as usize * height as usize;
        // `repeat` copies doubling blocks (a call per pixel before, in unoptimised builds).
        let rgb = background.repeat(n);
        Target { width, height, rgb, depth: vec![f32::NEG_INFINITY; n], covered: vec![0; n], work: 0, max_work: u64::MAX }
    }
}

/// How a fragment is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Depth-tested, depth-written, colour replaced.
    Opaque,
    /// Depth-tested, not depth-written, colour blended by the fragment's alpha.
    Blend,
}

/// Clip a triangle to `depth ≥ near` (Sutherland–Hodgman against one plane): 0, 3 or 4
/// vertices in `out`, returning how many.
pub fn clip_near(tri: &[ViewVertex; 3], near: f32, out: &mut [ViewVertex; 4]) -> usize {
    let mut n = 0;
    for i in 0..3 {
        let (a, b) = (&tri[i], &tri[(i + 1) % 3]);
        let (da, db) = (a.v[2] - near, b.v[2] - near);
        if da >= 0.0 {
            out[n] = *a;
            n += 1;
        }
        if (da >= 0.0) != (db >= 0.0) {
            let t = da / (da - db);
            let lerp = |x: f32, y: f32| x + (y - x) * t;
            let mut v = ViewVertex { v: [0.0; 3], a: [0.0; ATTRS] };
            for k in 0..3 {
                v.v[k] = lerp(a.v[k], b.v[k]);
            }
            v.v[2] = near;
            for k in 0..ATTRS {
                v.a[k] = lerp(a.a[k], b.a[k]);
            }
            out[n] = v;
            n += 1;
        }
    }
    n
}

/// A projected vertex: screen position (pixels, y down), `q` (1/depth or 1), depth key,
/// attributes multiplied by `q`.
#[derive(Debug, Clone, Copy)]
pub struct ScreenVertex {
    pub x: f64,
    pub y: f64,
    pub q: f32,
    pub z: f32,
    pub aq: [f32; ATTRS],
}

/// Project a clipped view-space vertex to the screen of `cam` on a `w × h` image.
pub fn project(cam: &Camera, w: u32, h: u32, v: &ViewVertex) -> ScreenVertex {
    let (nx, ny, q, z) = match cam.projection {
        Projection::Perspective { tan_x, tan_y } => {
            let q = 1.0 / v.v[2];
            (v.v[0] * q / tan_x, v.v[1] * q / tan_y, q, q)
        }
        Projection::Orthographic { half_width, half_height } => (v.v[0] / half_width, v.v[1] / half_height, 1.0, -v.v[2]),
    };
    ScreenVertex { x: (nx as f64 * 0.5 + 0.5) * w as f64, y: (0.5 - ny as f64 * 0.5) * h as f64, q, z, aq: v.a.map(|a| a * q) }
}

/// Screen-space area of a projected triangle (pixels², either sign).
pub fn area(t: &[ScreenVertex; 3]) -> f64 {
    ((t[1].x - t[0].x) * (t[2].y - t[0].y) - (t[1].y - t[0].y) * (t[2].x - t[0].x)) * 0.5
}

/// Draw one projected triangle: `shade` gets the interpolated attributes and returns the
/// colour (0..255 floats) and alpha, or `None` to discard the fragment.
pub fn triangle(target: &mut Target, tri: &[ScreenVertex; 3], mode: Mode, mut shade: impl FnMut(&[f32; ATTRS]) -> Option<([f32; 3], f32)>) {
    let mut t = *tri;
    let a2 = area(&t) * 2.0;
    if !a2.is_finite() || a2.abs() < 1e-12 {
        return;
    }
    if a2 < 0.0 {
        t.swap(1, 2);
    }
    let a2 = a2.abs();
    let (w, h) = (target.width as f64, target.height as f64);
    let min_x = t.iter().map(|v| v.x).fold(f64::INFINITY, f64::min).floor().max(0.0);
    let max_x = t.iter().map(|v| v.x).fold(f64::NEG_INFINITY, f64::max).ceil().min(w);
    let min_y = t.iter().map(|v| v.y).fold(f64::INFINITY, f64::min).floor().max(0.0);
    let max_y = t.iter().map(|v| v.y).fold(f64::NEG_INFINITY, f64::max).ceil().min(h);
    if !(min_x < max_x && min_y < max_y) {
        return;
    }
    // Counted before the pixels are visited: past the budget nothing more is drawn and the
    // caller reports the overrun (overlapping full-screen faces cost a frame each).
    target.work = target.work.saturating_add(((max_x - min_x) * (max_y - min_y)) as u64);
    if target.work > target.max_work {
        return;
    }
    // Edge k runs from vertex k+1 to k+2; its function is positive on vertex k's side.
    struct Edge {
        a: f64,
        b: f64,
        c: f64,
        inclusive: bool,
    }
    let edge = |p: &ScreenVertex, q: &ScreenVertex| {
        let (dx, dy) = (q.x - p.x, q.y - p.y);
        // E(x, y) = dx (y − p.y) − dy (x − p.x). A centre exactly on the edge belongs to the
        // triangle for which the edge runs "down" (or left when flat): of two triangles
        // sharing it (traversing it in opposite directions), exactly one.
        Edge { a: -dy, b: dx, c: dy * p.x - dx * p.y, inclusive: dy > 0.0 || (dy == 0.0 && dx < 0.0) }
    };
    let edges = [edge(&t[1], &t[2]), edge(&t[2], &t[0]), edge(&t[0], &t[1])];
    // Orientation check: with positive area in this convention E is positive inside; if the
    // swap above chose the other sense, flip all edges.
    let sign = if edges[0].a * t[0].x + edges[0].b * t[0].y + edges[0].c >= 0.0 { 1.0 } else { -1.0 };
    let inv = 1.0 / a2;
    let width = target.width as usize;
    for py in min_y as u32..max_y as u32 {
        let cy = py as f64 + 0.5;
        for px in min_x as u32..max_x as u32 {
            let cx = px as f64 + 0.5;
            // The three edges written out, and the attributes by an index loop (not an
            // iterator, `map` or `from_fn`): this runs per pixel, and those adaptors are most of
            // it in unoptimised (test) builds. The same arithmetic in the same order.
            let (e0, e1, e2) = (&edges[0], &edges[1], &edges[2]);
            let v0 = sign * (e0.a * cx + e0.b * cy + e0.c);
            if v0 < 0.0 || (v0 == 0.0 && !e0.inclusive) {
                continue;
            }
            let v1 = sign * (e1.a * cx + e1.b * cy + e1.c);
            if v1 < 0.0 || (v1 == 0.0 && !e1.inclusive) {
                continue;
            }
            let v2 = sign * (e2.a * cx + e2.b * cy + e2.c);
            if v2 < 0.0 || (v2 == 0.0 && !e2.inclusive) {
                continue;
            }
            let l = [(v0 * inv) as f32, (v1 * inv) as f32, (v2 * inv) as f32];
            let z = l[0] * t[0].z + l[1] * t[1].z + l[2] * t[2].z;
            let i = py as usize * width + px as usize;
            if z.is_nan() || z <= target.depth[i] {
                continue;
            }
            let q = l[0] * t[0].q + l[1] * t[1].q + l[2] * t[2].q;
            if q.is_nan() || q == 0.0 {
                continue;
            }
            let mut attrs = [0f32; ATTRS];
            let mut k = 0;
            while k < ATTRS {
                attrs[k] = (l[0] * t[0].aq[k] + l[1] * t[1].aq[k] + l[2] * t[2].aq[k]) / q;
                k += 1;
            }
            let Some((rgb, alpha)) = shade(&attrs) else { continue };
            let px_rgb = &mut target.rgb[i * 3..i * 3 + 3];
            match mode {
                Mode::Opaque => {
                    target.depth[i] = z;
                    for k in 0..3 {
                        px_rgb[k] = to_byte(rgb[k]);
                    }
                }
                Mode::Blend => {
                    let a = alpha.clamp(0.0, 1.0);
                    for k in 0..3 {
                        px_rgb[k] = to_byte(px_rgb[k] as f32 * (1.0 - a) + rgb[k] * a);
                    }
                }
            }
            target.covered[i] = 1;
        }
    }
}

fn to_byte(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        v.round().clamp(0.0, 255.0) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sv(x: f64, y: f64) -> ScreenVertex {
        ScreenVertex { x, y, q: 1.0, z: 0.0, aq: [0.0; ATTRS] }
    }

    #[test]
    fn shared_edges_are_drawn_once() {
        // A square split along its diagonal, both windings: every pixel exactly once.
        for flip in [false, true] {
            let mut tgt = Target::new(16, 16, [0; 3]);
            let (a, b, c, d) = (sv(1.3, 2.0), sv(14.0, 1.7), sv(13.5, 14.2), sv(2.0, 13.0));
            let tris = if flip { [[a, c, b], [a, d, c]] } else { [[a, b, c], [a, c, d]] };
            let mut count = vec![0u8; 256];
            for tri in &tris {
                let mut hit = Vec::new();
                let mut tgt2 = Target::new(16, 16, [0; 3]);
                triangle(&mut tgt2, tri, Mode::Blend, |_| Some(([255.0; 3], 1.0)));
                for (i, &c) in tgt2.covered.iter().enumerate() {
                    if c == 1 {
                        hit.push(i);
                    }
                }
                for i in hit {
                    count[i] += 1;
                }
                triangle(&mut tgt, tri, Mode::Opaque, |_| Some(([255.0; 3], 1.0)));
            }
            assert!(count.iter().all(|&c| c <= 1), "a pixel drawn twice");
            assert!(count.iter().filter(|&&c| c == 1).count() > 100);
        }
    }

    /// The background written by `repeat` is the background pushed pixel by pixel.
    #[test]
    fn targets_start_as_the_background() {
        for (w, h) in [(0, 0), (1, 1), (3, 7), (160, 90)] {
            let t = Target::new(w, h, [28, 31, 38]);
            let mut want = Vec::new();
            for _ in 0..w * h {
                want.extend_from_slice(&[28u8, 31, 38]);
            }
            assert_eq!(t.rgb, want);
        }
    }

    #[test]
    fn near_clipping_keeps_the_front_part() {
        let v = |z: f32| ViewVertex { v: [0.0, 0.0, z], a: [z; ATTRS] };
        let mut out = [v(0.0); 4];
        assert_eq!(clip_near(&[v(5.0), v(5.0), v(5.0)], 1.0, &mut out), 3);
        assert_eq!(clip_near(&[v(-5.0), v(-5.0), v(-5.0)], 1.0, &mut out), 0);
        let n = clip_near(&[v(5.0), v(-3.0), v(5.0)], 1.0, &mut out);
        assert_eq!(n, 4);
        assert!(out[..n].iter().all(|p| p.v[2] >= 1.0));
        assert!(out[..n].iter().any(|p| p.a[0] == 1.0), "attributes are interpolated to the plane");
    }
}
