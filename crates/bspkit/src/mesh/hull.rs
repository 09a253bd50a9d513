//! A map sealed in one box: which triangles are the box's walls ([`Hull`]).
//!
//! `bsp render` leaves them out of its picture and frame ([`crate::render`]); `bsp view` and
//! `bsp export --skip hull` get them as surfaces of their own kind, [`SurfaceFlags::HULL`]
//! ([`mark`]), so the page hides them by default and a toggle shows them. One decision serves
//! both: [`Hull::of`] finds the box and [`Hull::cuts`] says whether a triangle is its wall.

use crate::mesh::{Model, Scene, Surface, SurfaceFlags};
use crate::vec3::{basis, cross, dot, sub};

/// Least share of each of the six faces of a scene's box that outward-facing triangles lying on
/// it must cover for the scene to count as sealed in one box ([`Hull`]).
pub const HULL_COVER: f64 = 0.9;
/// Depth of a sealing box's walls, game units or this share of the box's longest side, the
/// larger: axis-aligned triangles this near a face of the box are its wall ([`HULL_COVER`]).
pub const HULL_WALL: f32 = 0.005;
/// Least depth of a sealing box's walls, game units ([`HULL_WALL`]).
pub const HULL_WALL_UNITS: f32 = 64.0;

/// A model's placement: rotation (columns: where local X, Y, Z go) and translation, from its
/// `origin` and `angles` (Quake's `AngleVectors`, [`basis`]). The renderer places its triangles
/// with it too, so the box is found on the points it draws.
#[derive(Clone, Copy)]
pub(crate) struct Place {
    rot: [[f32; 3]; 3],
    origin: [f32; 3],
    identity: bool,
}

impl Place {
    pub(crate) fn of(m: &Model) -> Place {
        let finite = |v: [f32; 3]| v.map(|c| if c.is_finite() { c } else { 0.0 });
        let (origin, angles) = (finite(m.origin), finite(m.angles));
        let (f, r, u) = basis(angles);
        let identity = origin == [0.0; 3] && angles == [0.0; 3];
        Place { rot: [f, r.map(|c| -c), u], origin, identity }
    }
    pub(crate) fn point(&self, p: [f32; 3]) -> [f32; 3] {
        if self.identity {
            return p;
        }
        let r = &self.rot;
        std::array::from_fn(|k| self.origin[k] + r[0][k] * p[0] + r[1][k] * p[1] + r[2][k] * p[2])
    }
    pub(crate) fn vector(&self, v: [f32; 3]) -> [f32; 3] {
        if self.identity {
            return v;
        }
        let r = &self.rot;
        std::array::from_fn(|k| r[0][k] * v[0] + r[1][k] * v[1] + r[2][k] * v[2])
    }
}

/// Whether a surface with `flags` of `material` is drawn when surfaces meeting `skip` are not.
fn drawn(scene: &Scene, skip: SurfaceFlags, s: &Surface) -> bool {
    let all = s.flags | scene.material(s.material).map_or(SurfaceFlags::NONE, |m| m.flags);
    !all.intersects(skip)
}

/// The outside of a box that seals the whole map: triangles lying on a face of the scene's
/// box (every surface, drawn or not, of every placed model) and facing out of it. No point
/// inside the map sees them. Compilers remove such faces (Quake's outside filling); a map
/// compiled without it keeps them, and seen from outside (the `iso` and `top` views) they hide
/// the whole level: Titanfall 2 `mp_hippodrome` (MRVN-Radiant) is sealed in a 16-unit-thick
/// box of `dev_orange_512` whose outer faces were the only thing in its picture. A scene counts
/// as sealed when the outward triangles on each of the six faces cover [`HULL_COVER`] of it and
/// some drawn triangle is not on them (a lone brush in the void keeps its faces). Then the
/// box's walls are cut away: their inner sides and brush ends too (axis-aligned triangles
/// within [`HULL_WALL`] of a face of the box), which would else stand behind the level, larger than it, and
/// join what is inside into one island for the render's frame. But the floor stays where the
/// level stands on it: the upward inner faces of the bottom wall are kept when a drawn triangle
/// that is not part of the walls has a corner at their height (CoD4 `mp_test` decompiled into
/// brushes: its walls and floor are the box, and its floor is where the player stands).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hull {
    min: [f32; 3],
    max: [f32; 3],
    /// How far from a box face a corner may lie and still be on it.
    eps: f32,
    /// How far from a box face a corner may lie and be on the inner side of its wall.
    wall: f32,
    /// The level stands on the bottom wall's inner side: its upward faces are not cut.
    keep_floor: bool,
}

/// The placed triangles of every surface of `scene`, with whether each is drawn (`skip`).
fn triangles(scene: &Scene, skip: SurfaceFlags) -> impl Iterator<Item = ([[f32; 3]; 3], bool)> + '_ {
    scene.models.iter().flat_map(move |m| {
        let place = Place::of(m);
        let n = m.vertices.positions.len();
        m.surfaces.iter().flat_map(move |s| {
            let is_drawn = drawn(scene, skip, s);
            let idx = m.indices.get(s.indices.start as usize..s.indices.end as usize).unwrap_or(&[]);
            idx.chunks_exact(3)
                .filter(move |t| t.iter().all(|&i| (i as usize) < n))
                .map(move |t| ([0, 1, 2].map(|k| place.point(m.vertices.positions[t[k] as usize])), is_drawn))
                .filter(|(p, _)| p.iter().flatten().all(|c| c.is_finite()))
        })
    })
}

impl Hull {
    /// The sealing box of `scene`, if it has one; surfaces meeting `skip` count as not drawn
    /// (the renderer's [`crate::render::SKIP`]). Two walks over the triangles: the scene's box,
    /// then, against it, the cover of each face, whether anything drawn is left inside, the
    /// bottom wall's upward faces and the low corners of what is left (whether the level stands
    /// on that floor).
    pub fn of(scene: &Scene, skip: SurfaceFlags) -> Option<Hull> {
        let (mut min, mut max) = ([f32::MAX; 3], [f32::MIN; 3]);
        for (p, _) in triangles(scene, skip) {
            for c in p {
                for k in 0..3 {
                    (min[k], max[k]) = (min[k].min(c[k]), max[k].max(c[k]));
                }
            }
        }
        if (0..3).any(|k| min[k] >= max[k]) {
            return None;
        }
        let size = [0, 1, 2].map(|k| max[k] - min[k]);
        let longest = size.iter().copied().fold(0.0f32, f32::max);
        let eps = (longest * 1e-4).max(1.0);
        let mut hull = Hull { min, max, eps, wall: (longest * HULL_WALL).max(HULL_WALL_UNITS).max(eps), keep_floor: false };
        // Area of each box face (axis, side) covered by outward triangles on it.
        let mut cover = [[0.0f64; 2]; 3];
        let mut inner_drawn = false;
        // Heights of the bottom wall's upward inner faces, and the heights of the corners, low
        // enough to stand on one of them, of drawn triangles that are not part of the walls.
        let (mut floors, mut low) = (Vec::new(), Vec::new());
        // A corner within `eps` of a floor (at most `wall` above the bottom) is at most this high.
        let reach = min[2] + hull.wall + 2.0 * eps;
        for (p, is_drawn) in triangles(scene, skip) {
            if hull.floor_face(&p) {
                floors.push(p[0][2]);
            }
            match hull.face_of(&p, false) {
                Some((k, side)) => {
                    let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
                    cover[k][side] += 0.5 * (dot(n, n) as f64).sqrt();
                }
                // Something drawn must be left once the walls are cut away (a box room kept
                // with both sides of its walls is all wall).
                None if is_drawn && hull.face_of(&p, true).is_none() => {
                    inner_drawn = true;
                    low.extend(p.iter().map(|c| c[2]).filter(|&z| z <= reach));
                }
                None => {}
            }
        }
        let sealed = (0..3).all(|k| {
            let face = (size[(k + 1) % 3] as f64) * (size[(k + 2) % 3] as f64);
            cover[k].iter().all(|&c| c >= face * HULL_COVER)
        });
        if !(sealed && inner_drawn) {
            return None;
        }
        floors.sort_by(f32::total_cmp);
        floors.dedup_by(|a, b| (*a - *b).abs() <= hull.eps);
        hull.keep_floor = low.iter().any(|&c| floors.iter().any(|&z| (c - z).abs() <= hull.eps));
        Some(hull)
    }

    /// The box face (axis, 0 for min / 1 for max) triangle `p` lies on and faces out of; with
    /// `wall`, also the face whose wall's inner side it is (parallel, facing in, near it).
    fn face_of(&self, p: &[[f32; 3]; 3], wall: bool) -> Option<(usize, usize)> {
        let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
        let len = dot(n, n).sqrt();
        if len.is_nan() || len <= 0.0 {
            return None;
        }
        let near =
            |k: usize, side: usize, d: f32| p.iter().all(|c| if side == 1 { c[k] >= self.max[k] - d } else { c[k] <= self.min[k] + d });
        (0..3)
            .find_map(|k| {
                let along = n[k] / len;
                if along.abs() < 0.99 {
                    return None;
                }
                // Facing out of the box through side `out`.
                let out = usize::from(along > 0.0);
                near(k, out, self.eps).then_some((k, out))
            })
            .or_else(|| {
                // Within a wall's depth of any face of the box: the wall's inner side, or the ends
                // of its brushes.
                let aligned = (0..3).any(|k| (n[k] / len).abs() >= 0.99);
                let mut faces = (0..3).flat_map(|k| [(k, 0), (k, 1)]);
                if wall && aligned {
                    faces.find(|&(k, side)| near(k, side, self.wall))
                } else {
                    None
                }
            })
    }

    /// Whether `p` faces up from the inner side of the bottom wall (within its depth, flat).
    fn floor_face(&self, p: &[[f32; 3]; 3]) -> bool {
        let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
        let len = dot(n, n).sqrt();
        len > 0.0 && n[2] / len >= 0.99 && p.iter().all(|c| c[2] <= self.min[2] + self.wall && c[2] > self.min[2] + self.eps)
    }

    /// The scene's box (every placed triangle's corners): its least corner.
    pub fn min(&self) -> [f32; 3] {
        self.min
    }
    /// The scene's box: its greatest corner.
    pub fn max(&self) -> [f32; 3] {
        self.max
    }
    /// Whether the level stands on the bottom wall's inner side, which then is not cut.
    pub fn keeps_floor(&self) -> bool {
        self.keep_floor
    }

    /// Whether the placed triangle `p` is part of the box's walls: what the render cuts away.
    pub fn cuts(&self, p: &[[f32; 3]; 3]) -> bool {
        !(self.keep_floor && self.floor_face(p)) && self.face_of(p, true).is_some()
    }
}

/// Flag the wall triangles ([`Hull::cuts`]) of `scene`'s drawn surfaces (not meeting `skip`)
/// [`SurfaceFlags::HULL`]: a surface all wall gets the flag; a surface partly wall is split, its
/// wall triangles moved to a new surface (same lump, record, material and lightmap page,
/// flagged, appended to the model) over copies of the vertices they use, so every surface still
/// owns its own run of vertices and the rest keeps its order. The triangles' corners and
/// attributes are unchanged. Returns how many triangles were flagged.
pub fn mark(scene: &mut Scene, hull: &Hull, skip: SurfaceFlags) -> usize {
    let mut marked = 0;
    let is_drawn: Vec<Vec<bool>> = scene.models.iter().map(|m| m.surfaces.iter().map(|s| drawn(scene, skip, s)).collect()).collect();
    for (m, is_drawn) in scene.models.iter_mut().zip(is_drawn) {
        let place = Place::of(m);
        for (si, _) in is_drawn.iter().enumerate().filter(|(_, d)| **d) {
            let s = m.surfaces[si].clone();
            let n = m.vertices.positions.len();
            let range = s.indices.start as usize..s.indices.end as usize;
            let Some(idx) = m.indices.get(range.clone()) else { continue };
            let cut = |t: &[u32]| {
                t.iter().all(|&i| (i as usize) < n) && hull.cuts(&[0, 1, 2].map(|k| place.point(m.vertices.positions[t[k] as usize])))
            };
            let (walls, rest): (Vec<&[u32]>, Vec<&[u32]>) = idx.chunks_exact(3).partition(|t| cut(t));
            if walls.is_empty() {
                continue;
            }
            marked += walls.len();
            if rest.is_empty() && idx.len() % 3 == 0 {
                m.surfaces[si].flags |= SurfaceFlags::HULL;
                continue;
            }
            // The walls' corners, copied to the end of the buffers, numbered in first use.
            let mut copy: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
            let mut order = Vec::new();
            let walls: Vec<u32> = walls
                .iter()
                .flat_map(|t| t.iter())
                .map(|&i| {
                    *copy.entry(i).or_insert_with(|| {
                        order.push(i);
                        (n + order.len() - 1) as u32
                    })
                })
                .collect();
            let rest: Vec<u32> = rest.into_iter().flatten().copied().chain(idx.chunks_exact(3).remainder().iter().copied()).collect();
            // The surface keeps the front of its index range; its wall triangles take the rest.
            let split = range.start + rest.len();
            m.indices[range.start..split].copy_from_slice(&rest);
            m.indices[split..range.end].copy_from_slice(&walls);
            let v = &mut m.vertices;
            fn extend<T: Copy>(buf: &mut Vec<T>, n: usize, order: &[u32]) {
                if buf.len() == n {
                    let copies: Vec<T> = order.iter().map(|&i| buf[i as usize]).collect();
                    buf.extend(copies);
                }
            }
            extend(&mut v.positions, n, &order);
            extend(&mut v.normals, n, &order);
            extend(&mut v.uv0, n, &order);
            extend(&mut v.uv1, n, &order);
            extend(&mut v.colours, n, &order);
            m.surfaces[si].indices.end = split as u32;
            // Lit models carry a page per surface: the new one draws on its surface's.
            if m.lightmap_pages.len() == m.surfaces.len() {
                let page = m.lightmap_pages[si];
                m.lightmap_pages.push(page);
            }
            m.surfaces.push(Surface {
                flags: s.flags | SurfaceFlags::HULL,
                vertices: n as u32..(n + order.len()) as u32,
                indices: split as u32..s.indices.end,
                ..s
            });
        }
    }
    marked
}
