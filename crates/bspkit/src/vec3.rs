//! Three-component `f32` vector helpers shared by the family meshes, the sealing-box test of
//! `mesh::hull` and the renderer, which each had their own copies. Plain arrays, as the mesh
//! model stores positions and normals.

pub(crate) fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Forward, right and up of Quake's `AngleVectors` for (pitch, yaw, roll) in degrees
/// (non-finite angles taken as 0).
pub fn basis(angles: [f32; 3]) -> ([f32; 3], [f32; 3], [f32; 3]) {
    let [p, y, r] = angles.map(|a| if a.is_finite() { a.to_radians() } else { 0.0 });
    let (sp, cp, sy, cy, sr, cr) = (p.sin(), p.cos(), y.sin(), y.cos(), r.sin(), r.cos());
    let forward = [cp * cy, cp * sy, -sp];
    let right = [-sr * sp * cy + cr * sy, -sr * sp * sy - cr * cy, -sr * cp];
    let up = [cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp];
    (forward, right, up)
}
