//! Cameras for the preview picture: where the eye is, which way it looks, and the image size
//! that goes with each view.
//!
//! Coordinates are the scene's (game units, Z up, right-handed). A camera is an orthonormal
//! basis (`right`, `up`, `forward`) at `eye`; a point's view coordinates are its offsets along
//! those axes, depth along `forward`.

/// How view coordinates map to the image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// Parallel projection: the image spans `±half_width` × `±half_height` game units.
    Orthographic { half_width: f32, half_height: f32 },
    /// Pinhole projection: the image spans `±tan_x` × `±tan_y` at depth 1.
    Perspective { tan_x: f32, tan_y: f32 },
}

/// A camera; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub eye: [f32; 3],
    pub right: [f32; 3],
    pub up: [f32; 3],
    pub forward: [f32; 3],
    pub projection: Projection,
    /// Points nearer than this depth are clipped away.
    pub near: f32,
}

impl Camera {
    /// `p` in view coordinates: (along `right`, along `up`, depth along `forward`).
    pub fn view(&self, p: [f32; 3]) -> [f32; 3] {
        let d = sub(p, self.eye);
        [dot(d, self.right), dot(d, self.up), dot(d, self.forward)]
    }
}

/// An axis-aligned box in game units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Bounds {
    pub fn centre(&self) -> [f32; 3] {
        [0, 1, 2].map(|k| (self.min[k] + self.max[k]) * 0.5)
    }
    pub fn size(&self) -> [f32; 3] {
        [0, 1, 2].map(|k| (self.max[k] - self.min[k]).max(0.0))
    }
    fn corners(&self) -> [[f32; 3]; 8] {
        let (a, b) = (self.min, self.max);
        std::array::from_fn(|i| {
            [if i & 1 == 0 { a[0] } else { b[0] }, if i & 2 == 0 { a[1] } else { b[1] }, if i & 4 == 0 { a[2] } else { b[2] }]
        })
    }
}

/// Share of points left out at each end of each axis when framing, so that a few far-away
/// vertices (a Source 3D skybox, a stray brush) do not shrink the map to a dot.
pub const TRIM: f64 = 0.005;

/// The box holding the points with the [`TRIM`] share cut from both ends of each axis (the
/// whole box for small sets). `None` when there is no finite point.
pub fn bounds(points: impl Iterator<Item = [f32; 3]>) -> Option<Bounds> {
    let mut axes: [Vec<f32>; 3] = Default::default();
    for p in points.filter(|p| p.iter().all(|c| c.is_finite())) {
        for k in 0..3 {
            axes[k].push(p[k]);
        }
    }
    let n = axes[0].len();
    if n == 0 {
        return None;
    }
    let cut = (n as f64 * TRIM) as usize;
    let (lo, hi) = (cut, n - 1 - cut);
    let mut b = Bounds { min: [0.0; 3], max: [0.0; 3] };
    for (k, v) in axes.iter_mut().enumerate() {
        // The k-th smallest value is one value whatever the selection algorithm does.
        b.min[k] = *v.select_nth_unstable_by(lo, f32::total_cmp).1;
        b.max[k] = *v.select_nth_unstable_by(hi, f32::total_cmp).1;
    }
    Some(b)
}

/// Image width and height for `size` (the longest side) and an aspect ratio (width / height).
pub fn image_size(size: u32, aspect: f32) -> [u32; 2] {
    let size = size.max(1);
    let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
    if aspect >= 1.0 {
        [size, ((size as f32 / aspect).round() as u32).max(1)]
    } else {
        [((size as f32 * aspect).round() as u32).max(1), size]
    }
}

/// Margin around the framed box, as a share of the image.
const MARGIN: f32 = 0.04;

/// Orthographic, looking straight down, X to the right and Y up in the image, framing `b`.
/// The image's aspect follows the box (between 1:2 and 2:1).
pub fn top(b: &Bounds, size: u32) -> (Camera, [u32; 2]) {
    let [dx, dy, dz] = b.size().map(|s| s.max(1.0));
    let aspect = (dx / dy).clamp(0.5, 2.0);
    let [w, h] = image_size(size, aspect);
    let aspect = w as f32 / h as f32;
    let half_width = (dx * 0.5).max(dy * 0.5 * aspect) * (1.0 + MARGIN);
    let c = b.centre();
    let cam = Camera {
        eye: [c[0], c[1], b.max[2] + dz + 16.0],
        right: [1.0, 0.0, 0.0],
        up: [0.0, 1.0, 0.0],
        forward: [0.0, 0.0, -1.0],
        projection: Projection::Orthographic { half_width, half_height: half_width / aspect },
        near: 1.0,
    };
    (cam, [w, h])
}

/// Vertical field of view of the `iso` view, degrees.
pub const ISO_FOV_Y: f32 = 50.0;
/// Horizontal field of view of the `spawn` view, degrees.
pub const SPAWN_FOV_X: f32 = 90.0;
/// Eye height above an entity's origin for the `spawn` view, game units. Engines differ
/// (Quake's origin is mid-body, Source's at the feet); this is between the two.
pub const EYE_HEIGHT: f32 = 40.0;

/// The direction the `iso` view looks along: from −X −Y, 35° down.
pub fn iso_forward() -> [f32; 3] {
    let (azimuth, elevation) = (225f32.to_radians(), 35f32.to_radians());
    [-elevation.cos() * azimuth.cos(), -elevation.cos() * azimuth.sin(), -elevation.sin()]
}

/// Perspective from above a corner of `b` (from −X −Y, 35° down), 4:3, at the distance where
/// every corner of the box is in the picture.
pub fn iso(b: &Bounds, size: u32) -> (Camera, [u32; 2]) {
    let [w, h] = image_size(size, 4.0 / 3.0);
    let tan_y = (ISO_FOV_Y.to_radians() * 0.5).tan();
    let tan_x = tan_y * w as f32 / h as f32;
    let forward = iso_forward();
    let to_eye = forward.map(|c| -c);
    let right = normalize(cross(forward, [0.0, 0.0, 1.0]));
    let up = cross(right, forward);
    let c = b.centre();
    // A corner at offset p from the centre projects inside when |p·right| ≤ tan_x × depth
    // (same for up), depth = distance + p·forward: the least such distance.
    let (fx, fy) = (tan_x * (1.0 - MARGIN), tan_y * (1.0 - MARGIN));
    let mut dist = 1.0f32;
    for k in b.corners() {
        let p = sub(k, c);
        let need = (dot(p, right).abs() / fx).max(dot(p, up).abs() / fy) - dot(p, forward);
        dist = dist.max(need);
    }
    let eye = [0, 1, 2].map(|k| c[k] + to_eye[k] * dist);
    let near = (dist * 1e-3).max(1.0);
    (Camera { eye, right, up, forward, projection: Projection::Perspective { tan_x, tan_y }, near }, [w, h])
}

/// The `iso` view's direction fitted to `points` rather than to a box's corners: the camera
/// looks (from −X −Y, 35° down) at the middle of the points' picture, from the least distance
/// at which every point is inside it. A box's far corners are often empty space (an L-shaped
/// level, a cut-away room whose near walls are culled), so this fills the frame better.
/// `b` is used when there is no finite point.
pub fn iso_fit(b: &Bounds, points: &[[f32; 3]], size: u32) -> (Camera, [u32; 2]) {
    let points: Vec<[f32; 3]> = points.iter().copied().filter(|p| p.iter().all(|c| c.is_finite())).collect();
    if points.is_empty() {
        return iso(b, size);
    }
    let (cam, [w, h]) = iso(b, size);
    let Projection::Perspective { tan_x, tan_y } = cam.projection else { return (cam, [w, h]) };
    let (right, up, forward) = (cam.right, cam.up, cam.forward);
    let to_eye = forward.map(|c| -c);
    let (fx, fy) = (tan_x * (1.0 - MARGIN), tan_y * (1.0 - MARGIN));
    // The least distance from `c` along `to_eye` at which every point projects inside.
    let distance = |c: [f32; 3]| {
        points.iter().fold(1.0f32, |d, &q| {
            let p = sub(q, c);
            d.max((dot(p, right).abs() / fx).max(dot(p, up).abs() / fy) - dot(p, forward))
        })
    };
    let mut c = b.centre();
    // Centre the points' picture: move the aim sideways by the middle of their projected
    // extents (a few rounds, as perspective shifts the middle as the aim moves).
    for _ in 0..4 {
        let dist = distance(c);
        let eye = [0, 1, 2].map(|k| c[k] + to_eye[k] * dist);
        let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for &q in &points {
            let p = sub(q, eye);
            let depth = dot(p, forward).max(1e-3);
            let (x, y) = (dot(p, right) / depth, dot(p, up) / depth);
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        let (mx, my) = ((x0 + x1) * 0.5 * dist, (y0 + y1) * 0.5 * dist);
        c = [0, 1, 2].map(|k| c[k] + right[k] * mx + up[k] * my);
    }
    let dist = distance(c);
    let eye = [0, 1, 2].map(|k| c[k] + to_eye[k] * dist);
    let near = (dist * 1e-3).max(1.0);
    (Camera { eye, near, ..cam }, [w, h])
}

/// Perspective from `origin` raised by [`EYE_HEIGHT`], looking along `angles` (pitch, yaw,
/// roll in degrees, Quake's convention: positive pitch looks down), 4:3, [`SPAWN_FOV_X`].
pub fn eye(origin: [f32; 3], angles: [f32; 3], size: u32) -> (Camera, [u32; 2]) {
    let [w, h] = image_size(size, 4.0 / 3.0);
    let tan_x = (SPAWN_FOV_X.to_radians() * 0.5).tan();
    let tan_y = tan_x * h as f32 / w as f32;
    let (forward, right, up) = basis(angles);
    let eye = [origin[0], origin[1], origin[2] + EYE_HEIGHT];
    (Camera { eye, right, up, forward, projection: Projection::Perspective { tan_x, tan_y }, near: 2.0 }, [w, h])
}

pub use crate::vec3::basis;
pub(crate) use crate::vec3::{cross, dot, sub};

pub(crate) fn normalize(a: [f32; 3]) -> [f32; 3] {
    let l = dot(a, a).sqrt();
    if l > 0.0 && l.is_finite() {
        a.map(|c| c / l)
    } else {
        [0.0, 0.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimmed_bounds_drop_far_outliers() {
        let mut pts: Vec<[f32; 3]> = (0..1000).map(|i| [(i % 10) as f32, (i / 10 % 10) as f32, (i / 100) as f32]).collect();
        pts.push([1e6, -1e6, 1e6]);
        pts.push([f32::NAN, 0.0, 0.0]);
        let b = bounds(pts.into_iter()).unwrap();
        assert_eq!(b.min, [0.0; 3]);
        assert_eq!(b.max, [9.0; 3]);
        assert!(bounds(std::iter::empty()).is_none());
    }

    #[test]
    fn iso_sees_every_corner() {
        let b = Bounds { min: [-100.0, -300.0, 0.0], max: [500.0, 200.0, 80.0] };
        let (cam, [w, h]) = iso(&b, 400);
        assert_eq!([w, h], [400, 300]);
        let Projection::Perspective { tan_x, tan_y } = cam.projection else { panic!() };
        for k in b.corners() {
            let v = cam.view(k);
            assert!(v[2] > cam.near);
            assert!((v[0] / v[2]).abs() <= tan_x && (v[1] / v[2]).abs() <= tan_y, "{k:?} outside");
        }
    }

    #[test]
    fn iso_fit_sees_every_point_and_fills_more() {
        // An L-shaped set of points: its box's far corner is empty.
        let mut pts = Vec::new();
        for i in 0..=20 {
            pts.push([i as f32 * 100.0, 0.0, 0.0]);
            pts.push([0.0, i as f32 * 100.0, 0.0]);
            pts.push([i as f32 * 100.0, 0.0, 64.0]);
        }
        let b = bounds(pts.iter().copied()).unwrap();
        let (cam, _) = iso_fit(&b, &pts, 400);
        let Projection::Perspective { tan_x, tan_y } = cam.projection else { panic!() };
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for &p in &pts {
            let v = cam.view(p);
            assert!(v[2] > cam.near);
            assert!((v[0] / v[2]).abs() <= tan_x * 1.001 && (v[1] / v[2]).abs() <= tan_y * 1.001, "{p:?} outside");
            xs.push(v[0] / v[2] / tan_x);
            ys.push(v[1] / v[2] / tan_y);
        }
        // Centred, and touching the margin on at least one axis.
        let span = |v: &[f32]| (v.iter().copied().fold(f32::MAX, f32::min), v.iter().copied().fold(f32::MIN, f32::max));
        let ((x0, x1), (y0, y1)) = (span(&xs), span(&ys));
        assert!((x0 + x1).abs() < 0.05 && (y0 + y1).abs() < 0.05, "{x0} {x1} {y0} {y1}");
        assert!(x1 > 0.9 || y1 > 0.9, "{x1} {y1}");
        // Nearer than the box-corner camera.
        let (box_cam, _) = iso(&b, 400);
        assert!(dot(sub(box_cam.eye, b.centre()), sub(box_cam.eye, b.centre())) > dot(sub(cam.eye, b.centre()), sub(cam.eye, b.centre())));
    }

    #[test]
    fn top_frames_the_box_with_its_aspect() {
        let b = Bounds { min: [0.0, 0.0, 0.0], max: [1000.0, 500.0, 100.0] };
        let (cam, size) = top(&b, 512);
        assert_eq!(size, [512, 256]);
        let Projection::Orthographic { half_width, half_height } = cam.projection else { panic!() };
        assert!(half_width >= 500.0 && half_height >= 250.0);
        assert!(cam.view([500.0, 250.0, 100.0])[2] > cam.near);
    }

    #[test]
    fn angle_vectors_follow_quake() {
        let (f, r, u) = basis([0.0, 90.0, 0.0]);
        let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(f, [0.0, 1.0, 0.0]) && close(r, [1.0, 0.0, 0.0]) && close(u, [0.0, 0.0, 1.0]));
        // Positive pitch looks down.
        assert!(basis([30.0, 0.0, 0.0]).0[2] < 0.0);
    }
}
