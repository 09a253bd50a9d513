//! A preview picture of a map: a deterministic CPU rasterizer drawing the scene model
//! ([`crate::mesh`]) textured ([`crate::texture`]) and lit ([`crate::lightmap`]). No GPU, no
//! window, no threads: the same map and options give the same pixels, byte for byte.
//!
//! This layer names no family: everything it knows comes from the [`Scene`], the
//! [`Lightmaps`] and the [`TextureSource`], which dispatch on the family themselves.
//!
//! ```
//! # fn main() -> bspkit::Result<()> {
//! use bspkit::render::{render_scene, Look, Starts, View};
//! # use bspkit::mesh::*;
//! # let mut m = Model { name: "world".into(), ..Default::default() };
//! # m.vertices.positions = vec![[0.0, 0.0, 0.0], [64.0, 0.0, 0.0], [64.0, 64.0, 0.0]];
//! # m.vertices.normals = vec![[0.0, 0.0, 1.0]; 3];
//! # m.indices = vec![0, 1, 2];
//! # m.surfaces.push(Surface { lump: 0, index: 0, material: 0, flags: SurfaceFlags::NONE, kind: SurfaceKind::Polygon,
//! #     vertex_kind: None, vertices: 0..3, indices: 0..3 });
//! # let scene = Scene { models: vec![m], materials: vec![Material { name: "floor".into(), flags: SurfaceFlags::NONE, size: None }], ..Default::default() };
//! // A scene built by hand (or by `bspkit::mesh::build`), drawn from above without textures or light.
//! let looks: Vec<Look> = scene.materials.iter().map(|m| Look::untextured(&m.name)).collect();
//! let (camera, size) = bspkit::render::frame(View::Top, &scene, &Starts::default(), 256).0;
//! let frame = render_scene(&scene, &looks, None, &camera, size);
//! assert!(frame.coverage() > 0.1);
//! let _png: Vec<u8> = frame.to_png()?;
//! # Ok(()) }
//! ```
//!
//! # What is drawn, and how
//! * Every model (the world and brush entities, placed by their `origin` and `angles`);
//!   surfaces flagged sky, nodraw, trigger, clip or tool are left out ([`SKIP`]), as the
//!   exporter does by default. Static props (external models) are not drawn.
//! * **Back faces are culled**, always: BSP faces are one-sided and face into the playable
//!   space, so from outside the map (the `top` and `iso` views) the near walls and the ceilings
//!   show their backs and vanish, leaving a cut-away view into the rooms; from inside (`spawn`)
//!   culling removes nothing visible. Front is counter-clockwise in the scene's frame.
//! * Colour = texture × light. Textures are sampled nearest from a box-filtered mip chain (one
//!   level per triangle, from its texel-to-pixel ratio), wrapping; alpha-tested textures drop
//!   texels below their cutoff; a missing texture is a flat tint from the material name
//!   ([`shade::tint`]). Light is the lightmap (bilinear from the atlas, every light style of the
//!   face added, scaled by [`Lightmaps::png_overbright`], in gamma space as the engines do), else
//!   the vertex colours (unless black on every vertex of the surface, or only a blend alpha:
//!   [`Scene::colours_alpha_only`]), else (unlit maps, unlit faces) [`shade::directional`] shading from the
//!   normal; water without a lightmap is fullbright. A map whose lightmap texels are all black
//!   ([`BLACK_LIGHTMAP`]: placeholders, or a compile without lights) is drawn as if it had
//!   none, with a warning. A face of a lit map whose own luxels are all that black is shaded
//!   from its normal at [`DARK_FACE_SHADE`] (dark, yet its shape shows).
//! * A map sealed in one box (faces pointing out of the scene's box cover each of its six
//!   sides, [`HULL_COVER`]: a compile that kept the outside) has the box's walls left out of the
//!   picture and the frame: their outer faces, and axis-aligned faces within [`HULL_WALL`] of a
//!   side. Seen from outside they hid the whole level. The box ([`Hull`], decided in
//!   [`crate::mesh::hull`], which `bsp view` uses too) is found once per picture and serves the
//!   frame and the drawing.
//! * Water and translucent surfaces (flags, or a texture whose alpha mode is blend) are drawn
//!   after everything else, depth-tested, blended ([`WATER_ALPHA`] or the texture's alpha), in
//!   scene order.

pub mod camera;
pub mod focus;
pub mod raster;
pub mod shade;

use crate::assets::{AlphaMode, AssetOptions, Texture};
use crate::bsp::Bsp;
use crate::error::{Error, ErrorKind, Result};
use crate::lightmap::{self, Lightmaps};
use crate::lumps::entities::Entities;
use crate::mesh::hull::Place as Placement;
pub use crate::mesh::hull::{Hull, HULL_COVER, HULL_WALL, HULL_WALL_UNITS};
use crate::mesh::{self, MeshOptions, Model, Scene, SurfaceFlags};
use crate::texture::{TextureCache, TextureSource};

use camera::{cross, dot, normalize, sub};
pub use camera::{Bounds, Camera, Projection};
use raster::{Mode, ScreenVertex, Target, ViewVertex, ATTRS};
use shade::{LightPage, Mips};

/// Largest image side.
pub const MAX_SIZE: u32 = 8192;
/// Longest image side when none is asked for.
pub const DEFAULT_SIZE: u32 = 512;
/// Colour of pixels nothing covers (also where sky is).
pub const BACKGROUND: [u8; 3] = [28, 31, 38];
/// Surfaces with any of these flags are not drawn: the exporter's default skip set (sky,
/// nodraw, trigger, clip, tool).
pub const SKIP: SurfaceFlags = crate::export::DEFAULT_SKIP;
/// Opacity of water and translucent surfaces whose texture has no alpha of its own.
pub const WATER_ALPHA: f32 = 0.6;

/// Where the picture is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Orthographic from straight above, framing the map.
    Top,
    /// Perspective from above a corner, framing the map.
    #[default]
    Iso,
    /// Perspective from a player start's eye, looking along its angles (falls back to `Iso`).
    Spawn,
}

impl View {
    pub const ALL: [View; 3] = [View::Top, View::Iso, View::Spawn];
    pub fn as_str(self) -> &'static str {
        match self {
            View::Top => "top",
            View::Iso => "iso",
            View::Spawn => "spawn",
        }
    }
    pub fn from_name(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.as_str() == name)
    }
}

/// Entity classes whose origin and angles the `spawn` view uses, in order of preference.
/// Respawn maps keep theirs (`info_spawnpoint_human…`) in the `_spawn.ent` partition
/// ([`Starts::of_map`]).
pub const SPAWN_CLASSES: [&str; 16] = [
    "info_player_start",
    "info_player_deathmatch",
    "info_player_coop",
    "info_player_terrorist",
    "info_player_counterterrorist",
    "info_player_teamspawn",
    "info_player_combine",
    "info_player_rebel",
    "info_player_axis",
    "info_player_allies",
    "info_player_start_mp",
    "team_ctf_redplayer",
    "team_ctf_blueplayer",
    "mp_dm_spawn",
    "info_spawnpoint_human_start",
    "info_spawnpoint_human",
];

/// The rendered image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    /// 8-bit RGB, row-major, top row first.
    pub rgb: Vec<u8>,
    /// Pixels something was drawn on.
    pub covered: u64,
    /// Pixels tested: the sum of the drawn triangles' on-screen bounding boxes
    /// ([`RenderOptions::max_work`]).
    pub work: u64,
}

impl Frame {
    /// Share of pixels something was drawn on (0..1).
    pub fn coverage(&self) -> f64 {
        self.covered as f64 / (self.width as f64 * self.height as f64).max(1.0)
    }
    /// Standard deviation of the pixels' channel values (0..255; the root of the mean of the
    /// red, green and blue variances): near 0 for a flat picture.
    pub fn deviation(&self) -> f64 {
        let n = (self.rgb.len() / 3).max(1) as f64;
        let rgb = &self.rgb;
        let mut var = 0.0;
        // Index loops over one channel's bytes, summed in the same order from −0.0 as `Sum`
        // does (the iterator adaptors were calls per byte in unoptimised builds).
        for c in 0..3 {
            let mut sum = -0.0f64;
            let mut i = c;
            while i < rgb.len() {
                sum += rgb[i] as f64;
                i += 3;
            }
            let mean = sum / n;
            let mut squares = -0.0f64;
            let mut i = c;
            while i < rgb.len() {
                squares += (rgb[i] as f64 - mean).powi(2);
                i += 3;
            }
            var += squares / n;
        }
        (var / 3.0).sqrt()
    }
    /// The image as PNG bytes (the same bytes for the same pixels).
    pub fn to_png(&self) -> Result<Vec<u8>> {
        lightmap::encode_png(self.width, self.height, &self.rgb)
    }
}

/// How one material looks: its texture's mip chain, or a flat tint; its alpha mode.
pub struct Look {
    mips: Option<Mips>,
    tint: [u8; 3],
    alpha: AlphaMode,
}

impl Look {
    /// A material drawn with `texture` (its first image).
    pub fn textured(name: &str, texture: &Texture) -> Look {
        Look { mips: Mips::new(texture.image()), tint: shade::tint(name), alpha: texture.alpha }
    }
    /// A material with no texture: a flat tint from its name.
    pub fn untextured(name: &str) -> Look {
        Look { mips: None, tint: shade::tint(name), alpha: AlphaMode::Opaque }
    }
    pub fn has_texture(&self) -> bool {
        self.mips.is_some()
    }
}

fn drawn(scene: &Scene, flags: SurfaceFlags, material: u32) -> bool {
    let all = flags | scene.material(material).map_or(SurfaceFlags::NONE, |m| m.flags);
    !all.intersects(SKIP)
}

/// The positions of every vertex of every drawn surface, placed.
#[cfg(test)]
fn drawn_points(scene: &Scene) -> impl Iterator<Item = [f32; 3]> + '_ {
    scene.models.iter().flat_map(move |m| {
        let place = Placement::of(m);
        m.surfaces
            .iter()
            .filter(move |s| drawn(scene, s.flags, s.material))
            .flat_map(move |s| m.vertices.positions.get(s.vertices.start as usize..s.vertices.end as usize).unwrap_or(&[]))
            .map(move |&p| place.point(p))
    })
}

/// Every drawn triangle of the scene, placed ([`focus::Tri`]), but the outside of a box that
/// seals the map (the walls `bsp render` cuts away).
pub fn drawn_triangles(scene: &Scene) -> Vec<focus::Tri> {
    drawn_triangles_with_hull(scene, Hull::of(scene, SKIP).as_ref())
}

/// [`drawn_triangles`] with the scene's sealing box already found (`Hull::of(scene, SKIP)`).
pub fn drawn_triangles_with_hull(scene: &Scene, hull: Option<&Hull>) -> Vec<focus::Tri> {
    let mut out = Vec::new();
    for m in &scene.models {
        let place = Placement::of(m);
        let n = m.vertices.positions.len();
        for s in m.surfaces.iter().filter(|s| drawn(scene, s.flags, s.material)) {
            let Some(idx) = m.indices.get(s.indices.start as usize..s.indices.end as usize) else { continue };
            for t in idx.chunks_exact(3) {
                if t.iter().all(|&i| (i as usize) < n) {
                    let p = [0, 1, 2].map(|k| place.point(m.vertices.positions[t[k] as usize]));
                    if !hull.is_some_and(|h| h.cuts(&p)) {
                        out.extend(focus::Tri::new(p));
                    }
                }
            }
        }
    }
    out
}

/// The player starts a picture is framed on: every start's origin (kept in the `top` and `iso`
/// frames) and the first start's eye ([`spawn_point`], the `spawn` view).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Starts {
    pub origins: Vec<[f32; 3]>,
    /// Origin and (pitch, yaw, roll) of the start the `spawn` view looks from.
    pub first: Option<([f32; 3], [f32; 3])>,
}

impl Starts {
    /// The player starts of `entities`.
    pub fn of(entities: &Entities) -> Starts {
        Starts { origins: spawn_origins(entities), first: spawn_point(entities) }
    }

    /// The player starts of `bsp`: its entity lump's; for a Respawn map, when the lump has no
    /// start, the first start of the `<map>_<kind>.ent` partitions beside it (Respawn keeps
    /// spawn points in `_spawn.ent`, not in the `.bsp`), read by
    /// [`crate::branches::respawn::entity_partitions`] with its size bound, is the `spawn`
    /// view's eye. The partitions' origins are not added to the frame: Titanfall 2
    /// `mp_hippodrome` starts on a platform 20,000 units above its rooms, and a frame holding
    /// both covered 3 % of the picture. A partition that cannot be read or parsed adds a
    /// warning and no start.
    pub fn of_map(bsp: &Bsp, warnings: &mut Vec<String>) -> Starts {
        let mut starts = bsp.entities().map(|e| Starts::of(&e)).unwrap_or_default();
        if bsp.family() != crate::Family::Respawn {
            return starts;
        }
        match crate::branches::respawn::entity_partitions(bsp) {
            Ok(parts) => {
                for part in &parts {
                    match part.entities() {
                        Ok(ents) => starts.first = starts.first.or_else(|| spawn_point(&ents)),
                        Err(e) => warnings.push(format!("player starts: {e}")),
                    }
                }
            }
            Err(e) => warnings.push(format!("player starts: entity partitions: {e}")),
        }
        starts
    }
}

/// The origins of every player start ([`SPAWN_CLASSES`]) of `entities`.
pub fn spawn_origins(entities: &Entities) -> Vec<[f32; 3]> {
    entities
        .iter()
        .filter(|e| e.classname().is_some_and(|c| SPAWN_CLASSES.iter().any(|s| c.eq_ignore_ascii_case(s))))
        .filter_map(|e| e.get("origin").and_then(|o| parse3(&o)))
        .collect()
}

fn parse3(s: &str) -> Option<[f32; 3]> {
    let v: Vec<f32> = s.split_whitespace().map(|t| t.parse::<f32>().ok().filter(|x| x.is_finite())).collect::<Option<_>>()?;
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

/// The first player start of `entities` ([`SPAWN_CLASSES`] in order): origin and (pitch, yaw,
/// roll) from its `angles`, or its `angle` (yaw; −1 up, −2 down).
pub fn spawn_point(entities: &Entities) -> Option<([f32; 3], [f32; 3])> {
    for class in SPAWN_CLASSES {
        for e in entities.iter() {
            if !e.classname().is_some_and(|c| c.eq_ignore_ascii_case(class)) {
                continue;
            }
            let Some(origin) = e.get("origin").and_then(|o| parse3(&o)) else { continue };
            let angles = match (e.get("angles").and_then(|a| parse3(&a)), e.get("angle").and_then(|a| a.trim().parse::<f32>().ok())) {
                (Some(a), _) => a,
                (None, Some(-1.0)) => [-90.0, 0.0, 0.0],
                (None, Some(-2.0)) => [90.0, 0.0, 0.0],
                (None, Some(a)) if a.is_finite() => [0.0, a, 0.0],
                _ => [0.0; 3],
            };
            return Some((origin, angles));
        }
    }
    None
}

/// Where a ray from `o` along `d` meets triangle `t` (its distance along `d`), both sides.
fn ray_hit(o: [f32; 3], d: [f32; 3], t: &focus::Tri) -> Option<f32> {
    let (e1, e2) = (sub(t.p[1], t.p[0]), sub(t.p[2], t.p[0]));
    let h = cross(d, e2);
    let a = dot(e1, h);
    if a.abs() < 1e-9 {
        return None;
    }
    let s = sub(o, t.p[0]);
    let u = dot(s, h) / a;
    let q = cross(s, e1);
    let v = dot(d, q) / a;
    if !(0.0..=1.0).contains(&u) || v < 0.0 || u + v > 1.0 {
        return None;
    }
    Some(dot(e2, q) / a).filter(|t| *t > 1e-3)
}

/// Candidate eye positions per axis of the playable area tried by [`inside`].
const INSIDE_GRID: usize = 7;
/// Most triangles [`inside`] casts rays against (a larger scene is sampled evenly).
const INSIDE_TRIANGLES: usize = 200_000;
/// Horizontal rays per candidate view, spread over the spawn view's field of view.
const INSIDE_RAYS: usize = 9;

/// A camera inside the map, for comparing what a player sees rather than the outside: a player
/// start's eye ([`spawn_point`]) where the map has one; else, over a grid of points across the
/// playable area ([`focus::focus`]), the lowest drawn floor with room to stand above it (two
/// eye heights), looking either way along the area's longer horizontal axis. The view whose
/// rays (level, across the field of view) meet the most drawn surface within the area's length
/// wins, each ray counting its distance over that length: a view of the level from within it,
/// neither a wall at arm's length nor open void. `None` when nothing is drawn or no point has
/// a floor. Seen from outside, a decompile's sealing brushes (which the compiler removed from
/// the original) hide the map; from inside both show the same rooms.
pub fn inside(scene: &Scene, starts: &Starts, size: u32) -> Option<(Camera, [u32; 2])> {
    if let Some((origin, angles)) = starts.first {
        return Some(camera::eye(origin, angles, size));
    }
    let all = drawn_triangles(scene);
    let f = focus::focus(&all, &[], None)?;
    let step = all.len().div_ceil(INSIDE_TRIANGLES).max(1);
    let tris: Vec<&focus::Tri> = all.iter().step_by(step).collect();
    let floors: Vec<&focus::Tri> = tris
        .iter()
        .copied()
        .filter(|t| {
            let n = cross(sub(t.p[1], t.p[0]), sub(t.p[2], t.p[0]));
            n[2].abs() > 0.7 * dot(n, n).sqrt()
        })
        .collect();
    let (b, sz) = (f.bounds, f.bounds.size());
    let long = if sz[0] >= sz[1] { 0 } else { 1 };
    let reach = sz[long].max(1.0);
    let top = b.max[2] + 1.0;
    let half_fov = (camera::SPAWN_FOV_X * 0.5).to_radians();
    let mut best: Option<(f32, [f32; 3], f32)> = None;
    for i in 0..INSIDE_GRID {
        for j in 0..INSIDE_GRID {
            let at = |k: usize, n: usize| b.min[k] + sz[k] * (n as f32 + 0.5) / INSIDE_GRID as f32;
            let (x, y) = (at(0, i), at(1, j));
            // Floors under (x, y): a ray down from the top of the area.
            let mut hits: Vec<f32> = floors
                .iter()
                .filter_map(|t| ray_hit([x, y, top], [0.0, 0.0, -1.0], t))
                .map(|d| top - d)
                .filter(|z| *z >= b.min[2] - 1.0)
                .collect();
            hits.sort_by(f32::total_cmp);
            let Some(floor) =
                (0..hits.len()).find(|&k| hits.get(k + 1).map_or(true, |up| *up > hits[k] + 2.0 * camera::EYE_HEIGHT)).map(|k| hits[k])
            else {
                continue;
            };
            let eye = [x, y, floor + camera::EYE_HEIGHT];
            // Only triangles spanning the eye's height can meet a level ray.
            let level: Vec<&focus::Tri> =
                tris.iter().copied().filter(|t| t.p.iter().any(|p| p[2] <= eye[2]) && t.p.iter().any(|p| p[2] >= eye[2])).collect();
            for yaw in if long == 0 { [0.0f32, 180.0] } else { [90.0, 270.0] } {
                let mut score = 0.0;
                for r in 0..INSIDE_RAYS {
                    let a = yaw.to_radians() + half_fov * (2.0 * r as f32 / (INSIDE_RAYS - 1) as f32 - 1.0);
                    let d = [a.cos(), a.sin(), 0.0];
                    let near = level.iter().filter_map(|t| ray_hit(eye, d, t)).fold(f32::INFINITY, f32::min);
                    if near <= reach {
                        score += near / reach;
                    }
                }
                if best.map_or(true, |(s, _, _)| score > s) {
                    best = Some((score, [x, y, floor], yaw));
                }
            }
        }
    }
    best.map(|(_, origin, yaw)| camera::eye(origin, [0.0, yaw, 0.0], size))
}

/// The camera and image size for `view` of `scene` (`starts`: the spawn view's eye, and the
/// player starts the `top` and `iso` views keep in the frame; [`Starts::of_map`]), and a warning when the view
/// asked for could not be used (then the view used is `Iso`). `top` and `iso` frame the
/// playable area ([`focus`]), not the whole map.
pub fn frame(view: View, scene: &Scene, starts: &Starts, size: u32) -> ((Camera, [u32; 2]), View, Option<String>) {
    frame_with_hull(view, scene, Hull::of(scene, SKIP).as_ref(), starts, size)
}

/// [`frame`] with the scene's sealing box already found (`Hull::of(scene, SKIP)`), as
/// [`render_map`] finds it once for the frame and the picture.
pub fn frame_with_hull(
    view: View,
    scene: &Scene,
    hull: Option<&Hull>,
    starts: &Starts,
    size: u32,
) -> ((Camera, [u32; 2]), View, Option<String>) {
    // `top` keeps every triangle (its box is the whole playable area); `iso` (and `spawn`,
    // which falls back to it) frames what faces its camera.
    let toward = (view != View::Top).then(camera::iso_forward);
    // The `spawn` view from a player start is the start's eye: it needs neither the triangles
    // nor their focus (`framed` reads neither then), the largest part of a render's framing.
    if view == View::Spawn && starts.first.is_some() {
        return framed(view, &[], None, starts, size).0;
    }
    let tris = drawn_triangles_with_hull(scene, hull);
    let f = focus::focus(&tris, &starts.origins, toward);
    framed(view, &tris, f.as_ref(), starts, size).0
}

/// The camera of `view` (see [`frame`]) and the points the `iso` camera was fitted to.
#[allow(clippy::type_complexity)]
fn framed(
    view: View,
    tris: &[focus::Tri],
    f: Option<&focus::Focus>,
    starts: &Starts,
    size: u32,
) -> (((Camera, [u32; 2]), View, Option<String>), Vec<[f32; 3]>) {
    let b = f.map_or(Bounds { min: [-64.0; 3], max: [64.0; 3] }, |f| f.bounds);
    let iso = || {
        let points = f.map_or(Vec::new(), |f| f.points.clone());
        let first = camera::iso_fit(&b, &points, size);
        match f.and_then(|f| seen_points(tris, f, &first.0)) {
            Some(seen) => (camera::iso_fit(&b, &seen, size), seen),
            None => (first, points),
        }
    };
    match view {
        View::Top => ((camera::top(&b, size), View::Top, None), Vec::new()),
        View::Iso => {
            let (cam, points) = iso();
            ((cam, View::Iso, None), points)
        }
        View::Spawn => match starts.first {
            Some((origin, angles)) => ((camera::eye(origin, angles, size), View::Spawn, None), Vec::new()),
            None => {
                let why = format!("no player start entity ({} …) with an origin: drawing the iso view", SPAWN_CLASSES[..3].join(", "));
                let (cam, points) = iso();
                ((cam, View::Iso, Some(why)), points)
            }
        },
    }
}

/// Width of the depth picture [`seen_points`] tests against.
const SEEN_PROBE: u32 = 160;
/// How far (share of its depth) a point may lie behind the nearest surface drawn around its
/// pixel and still count as seen: a surface at a grazing angle changes depth across a pixel.
const SEEN_SLACK: f32 = 0.01;

/// `f`'s fit points cut to what `cam` shows: the corners (clamped into the focus box) of the
/// fitted triangles whose centroid is not behind every surface drawn at its pixel and the 8
/// around it (a small depth picture of every drawn triangle, back faces culled as the picture
/// culls them), and the player starts. A level's buried parts are in no picture (Titanfall 2
/// `mp_crossfire` keeps boxes under its ground slab, in front of the level): fitted to, they
/// framed a stretch of bare ground with the level in the upper-left third. `None` when no
/// fitted triangle would be left, or the camera is not a perspective one.
fn seen_points(tris: &[focus::Tri], f: &focus::Focus, cam: &Camera) -> Option<Vec<[f32; 3]>> {
    let Projection::Perspective { tan_x, tan_y } = cam.projection else { return None };
    let (w, h) = (SEEN_PROBE, ((SEEN_PROBE as f32 * tan_y / tan_x).round() as u32).max(1));
    let mut target = Target::new(w, h, BACKGROUND);
    let mut clipped = [ViewVertex { v: [0.0; 3], a: [0.0; ATTRS] }; 4];
    for t in tris {
        let normal = cross(sub(t.p[1], t.p[0]), sub(t.p[2], t.p[0]));
        if dot(normal, sub(t.p[0], cam.eye)).is_nan() || dot(normal, sub(t.p[0], cam.eye)) >= 0.0 {
            continue;
        }
        let verts = t.p.map(|p| ViewVertex { v: cam.view(p), a: [0.0; ATTRS] });
        let n = raster::clip_near(&verts, cam.near, &mut clipped);
        let screen: Vec<ScreenVertex> = clipped[..n].iter().map(|v| raster::project(cam, w, h, v)).collect();
        for k in 1..n.saturating_sub(1) {
            raster::triangle(&mut target, &[screen[0], screen[k], screen[k + 1]], Mode::Opaque, |_| Some(([0.0; 3], 1.0)));
        }
    }
    let seen = |c: [f32; 3]| {
        let v = cam.view(c);
        if v[2] <= cam.near {
            return false;
        }
        let s = raster::project(cam, w, h, &ViewVertex { v, a: [0.0; ATTRS] });
        let (x, y) = (s.x.floor() as i64, s.y.floor() as i64);
        // The farthest surface drawn around the pixel (nothing drawn: seen).
        let mut farthest = f32::INFINITY;
        for py in y - 1..=y + 1 {
            for px in x - 1..=x + 1 {
                if px >= 0 && py >= 0 && (px as u32) < w && (py as u32) < h {
                    farthest = farthest.min(target.depth[py as usize * w as usize + px as usize]);
                }
            }
        }
        // Depth keys are 1 / depth: larger is nearer.
        farthest <= s.z * (1.0 + SEEN_SLACK)
    };
    let clamp = |p: [f32; 3]| [0, 1, 2].map(|k| p[k].clamp(f.bounds.min[k], f.bounds.max[k]));
    let centroid = |t: &focus::Tri| [0, 1, 2].map(|k| (t.p[0][k] + t.p[1][k] + t.p[2][k]) / 3.0);
    let points: Vec<[f32; 3]> =
        f.fitted.iter().filter_map(|&i| tris.get(i)).filter(|t| seen(centroid(t))).flat_map(|t| t.p).map(clamp).collect();
    if points.is_empty() {
        return None;
    }
    // A few stray corners do not set the frame: the [`camera::TRIM`] share of the points at
    // each end of each axis of the picture is left out (crossfire: one strip of its ground
    // slab's side, clamped into the box, reached down to the box's near face).
    let screen: Vec<[f32; 2]> = points
        .iter()
        .map(|&p| {
            let v = cam.view(p);
            [v[0] / v[2].max(cam.near), v[1] / v[2].max(cam.near)]
        })
        .collect();
    let cut = (points.len() as f64 * camera::TRIM) as usize;
    let mut range = [[0.0f32; 2]; 2];
    for (k, r) in range.iter_mut().enumerate() {
        let mut v: Vec<f32> = screen.iter().map(|s| s[k]).collect();
        r[0] = *v.select_nth_unstable_by(cut, f32::total_cmp).1;
        r[1] = *v.select_nth_unstable_by(points.len() - 1 - cut, f32::total_cmp).1;
    }
    let within = |s: &[f32; 2]| (0..2).all(|k| s[k] >= range[k][0] && s[k] <= range[k][1]);
    let mut points: Vec<[f32; 3]> = points.iter().zip(&screen).filter(|(_, s)| within(s)).map(|(p, _)| *p).collect();
    points.extend(f.starts.iter().copied());
    Some(points)
}

/// The `iso` picture's camera as a viewer takes it over (`bsp view`'s initial camera): where
/// [`frame`] puts the eye for [`View::Iso`] at [`DEFAULT_SIZE`], in game units (Z up), with
/// what a viewer of another aspect ratio needs to keep the framed points in its picture.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ViewFrame {
    pub eye: [f32; 3],
    /// The point looked at: on the view axis, at the depth of the focus box's centre.
    pub target: [f32; 3],
    pub up: [f32; 3],
    /// Vertical field of view, degrees ([`camera::ISO_FOV_Y`]).
    pub fov_y: f32,
    /// Width over height of the picture the eye was fitted to (4:3).
    pub aspect: f32,
    /// Depth (along the view axis) of the nearest and the farthest framed point: a viewer whose
    /// picture is narrower than `aspect` by a factor k moves the eye back by (k − 1) × `far`.
    pub near: f32,
    pub far: f32,
    /// The playable area's box ([`focus::focus`]).
    pub focus_min: [f32; 3],
    pub focus_max: [f32; 3],
}

/// [`frame`]'s `iso` camera of `scene` as a [`ViewFrame`]; `None` when nothing is drawn (no
/// triangle outside sky, nodraw, trigger, clip and tool surfaces).
pub fn view_frame(scene: &Scene, starts: &Starts) -> Option<ViewFrame> {
    view_frame_with_hull(scene, Hull::of(scene, SKIP).as_ref(), starts)
}

/// [`view_frame`] with the scene's sealing box already found (`Hull::of(scene, SKIP)`).
pub fn view_frame_with_hull(scene: &Scene, hull: Option<&Hull>, starts: &Starts) -> Option<ViewFrame> {
    let tris = drawn_triangles_with_hull(scene, hull);
    let f = focus::focus(&tris, &starts.origins, Some(camera::iso_forward()))?;
    let (((cam, [w, h]), _, _), points) = framed(View::Iso, &tris, Some(&f), starts, DEFAULT_SIZE);
    let Projection::Perspective { tan_y, .. } = cam.projection else { return None };
    let depth = |p: [f32; 3]| dot(sub(p, cam.eye), cam.forward);
    let (near, far) = points.iter().fold((f32::MAX, 0.0f32), |(a, b), &p| (a.min(depth(p)), b.max(depth(p))));
    let d = depth(f.bounds.centre()).max(cam.near);
    Some(ViewFrame {
        eye: cam.eye,
        target: [0, 1, 2].map(|k| cam.eye[k] + cam.forward[k] * d),
        up: cam.up,
        fov_y: 2.0 * tan_y.atan().to_degrees(),
        aspect: w as f32 / h as f32,
        near: near.max(cam.near),
        far: far.max(d),
        focus_min: f.bounds.min,
        focus_max: f.bounds.max,
    })
}

/// Draw `scene` with `looks` (one per material; a missing one is drawn untextured) and the
/// map's `lightmaps` (the atlases whose UVs the scene's `uv1` holds) from `camera` on a
/// `size[0] × size[1]` image.
pub fn render_scene(scene: &Scene, looks: &[Look], lightmaps: Option<&Lightmaps>, camera: &Camera, size: [u32; 2]) -> Frame {
    render_scene_within(scene, looks, lightmaps, camera, size, u64::MAX)
}

/// [`render_scene`] that stops drawing once `max_work` pixels were tested; the frame's `work`
/// is then above `max_work` (and the picture incomplete).
pub fn render_scene_within(
    scene: &Scene,
    looks: &[Look],
    lightmaps: Option<&Lightmaps>,
    camera: &Camera,
    size: [u32; 2],
    max_work: u64,
) -> Frame {
    render_scene_with_hull(scene, Hull::of(scene, SKIP).as_ref(), looks, lightmaps, camera, size, max_work)
}

/// [`render_scene_within`] with the scene's sealing box already found (`Hull::of(scene, SKIP)`),
/// as [`render_map`] finds it once for the frame and the picture.
pub fn render_scene_with_hull(
    scene: &Scene,
    hull: Option<&Hull>,
    looks: &[Look],
    lightmaps: Option<&Lightmaps>,
    camera: &Camera,
    size: [u32; 2],
    max_work: u64,
) -> Frame {
    let [w, h] = size.map(|s| s.clamp(1, MAX_SIZE));
    let mut target = Target::new(w, h, BACKGROUND);
    target.max_work = max_work;
    let pages: Vec<Option<LightPage>> = match lightmaps {
        Some(lm) => lm.atlases.iter().map(|a| (a.layer == 0).then(|| LightPage { w: a.width, h: a.height, rgb: a.rgb8() })).collect(),
        None => Vec::new(),
    };
    let fallback: Vec<Look> = scene.materials.iter().skip(looks.len()).map(|m| Look::untextured(&m.name)).collect();
    let missing = Look::untextured("");
    let look_of = |material: u32| -> &Look {
        let i = material as usize;
        looks.get(i).or_else(|| fallback.get(i - looks.len().min(i))).unwrap_or(&missing)
    };
    let mut ctx = Ctx { scene, lightmaps, pages: &pages, camera, target: &mut target, hull };
    let mut deferred = Vec::new();
    for (mi, m) in scene.models.iter().enumerate() {
        let place = Placement::of(m);
        for (si, s) in m.surfaces.iter().enumerate() {
            if !drawn(scene, s.flags, s.material) {
                continue;
            }
            let look = look_of(s.material);
            let all = s.flags | scene.material(s.material).map_or(SurfaceFlags::NONE, |x| x.flags);
            if all.intersects(SurfaceFlags::WATER | SurfaceFlags::TRANSLUCENT) || look.alpha == AlphaMode::Blend {
                deferred.push((mi, si));
                continue;
            }
            ctx.surface(m, &place, si, look, Mode::Opaque);
        }
    }
    for (mi, si) in deferred {
        let m = &scene.models[mi];
        let look = look_of(m.surfaces[si].material);
        ctx.surface(m, &Placement::of(m), si, look, Mode::Blend);
    }
    let covered = target.covered.iter().map(|&c| c as u64).sum();
    Frame { width: w, height: h, rgb: target.rgb, covered, work: target.work }
}

struct Ctx<'a, 't> {
    scene: &'a Scene,
    lightmaps: Option<&'a Lightmaps>,
    pages: &'a [Option<LightPage<'a>>],
    camera: &'a Camera,
    target: &'t mut Target,
    /// The outside of a sealing box, not drawn ([`Hull`]).
    hull: Option<&'a Hull>,
}

/// Share of the light of a face without a lightmap that a face whose lightmap is black
/// everywhere (every luxel of every style at most [`BLACK_LIGHTMAP`]) is drawn with.
pub const DARK_FACE_SHADE: f32 = 0.45;

/// Whether every luxel of face `f` is black ([`BLACK_LIGHTMAP`] or less) on each of `pages`
/// (its light styles).
fn dark_face(f: &lightmap::FaceEntry, pages: &[&LightPage]) -> bool {
    !pages.is_empty()
        && pages.iter().all(|p| {
            (f.y as usize..f.y as usize + f.height as usize).all(|y| {
                let row = y * p.w as usize;
                (f.x as usize..f.x as usize + f.width as usize)
                    .all(|x| p.rgb.get((row + x) * 3..(row + x) * 3 + 3).map_or(true, |t| t.iter().all(|&b| b <= BLACK_LIGHTMAP)))
            })
        })
}

/// The lightmap pages (one per light style, at most 4) of surface `si` of `m`.
fn light_pages<'a>(lightmaps: Option<&'a Lightmaps>, pages: &'a [Option<LightPage<'a>>], m: &Model, si: usize) -> Vec<&'a LightPage<'a>> {
    let (Some(lm), s) = (lightmaps, &m.surfaces[si]) else { return Vec::new() };
    if m.vertices.uv1.len() != m.vertices.positions.len() {
        return Vec::new();
    }
    let page = match m.lightmap_pages.get(si) {
        Some(&p) if p != u32::MAX => p,
        _ => return Vec::new(),
    };
    let styles: Vec<u8> = match lm.face(s.lump, s.index) {
        Some(f) => f.styles().iter().copied().filter(|&st| st != 255).take(4).collect(),
        None => vec![0],
    };
    styles
        .into_iter()
        .filter_map(|st| lm.atlases.iter().position(|a| a.page == page && a.style == st && a.layer == 0))
        .filter_map(|i| pages.get(i).and_then(|p| p.as_ref()))
        .collect()
}

impl Ctx<'_, '_> {
    fn surface(&mut self, m: &Model, place: &Placement, si: usize, look: &Look, mode: Mode) {
        let s = &m.surfaces[si];
        let vx = &m.vertices;
        let n = vx.positions.len();
        let mut lights = light_pages(self.lightmaps, self.pages, m, si);
        // A face whose every luxel is black is shaded from its normal, as a face without a
        // lightmap but dimmed ([`DARK_FACE_SHADE`]): dark, yet its shape shows. LibreQuake
        // e0m2's start cave, lit by no light the compile knew, has no lightmap in the Quake build
        // and a black one in the Quake 2 build, which drew it as a large black mass in front of
        // the level.
        let mut dim = 1.0;
        if self.lightmaps.and_then(|lm| lm.face(s.lump, s.index)).is_some_and(|f| dark_face(f, &lights)) {
            lights.clear();
            dim = DARK_FACE_SHADE;
        }
        let scale = self.lightmaps.map_or(1.0, |lm| lm.png_overbright()) / 255.0;
        let flags = s.flags | self.scene.material(s.material).map_or(SurfaceFlags::NONE, |x| x.flags);
        let fullbright = flags.contains(SurfaceFlags::WATER) && lights.is_empty();
        let cam = *self.camera;
        let ortho = matches!(cam.projection, Projection::Orthographic { .. });
        let cutoff = match look.alpha {
            AlphaMode::Mask { cutoff } => Some((cutoff.clamp(0.0, 1.0) * 255.0).round() as u8),
            _ => None,
        };
        let own_alpha = look.alpha == AlphaMode::Blend;
        // Vertex colours that are black on every vertex of the surface carry no light (Respawn
        // lit vertices store zeros there), nor do a scene's whose colours are only a blend
        // alpha (Source displacements: white, which drew every face of such a map fullbright
        // and flat): shade such a surface as if it had none.
        let colours = vx
            .colours
            .get(s.vertices.start as usize..s.vertices.end as usize)
            .filter(|c| !self.scene.colours_alpha_only && c.len() == s.vertices.len() && c.iter().any(|c| c[..3] != [0, 0, 0]))
            .map(|_| &vx.colours[..]);
        let Some(idx) = m.indices.get(s.indices.start as usize..s.indices.end as usize) else { return };
        for tri in idx.chunks_exact(3) {
            let ix = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
            if ix.iter().any(|&i| i >= n) {
                continue;
            }
            let p = ix.map(|i| place.point(vx.positions[i]));
            if self.hull.is_some_and(|h| h.cuts(&p)) {
                continue;
            }
            let normal = cross(sub(p[1], p[0]), sub(p[2], p[0]));
            let facing = if ortho { dot(normal, cam.forward) } else { dot(normal, sub(p[0], cam.eye)) };
            if facing.is_nan() || facing >= 0.0 {
                continue; // back-facing, degenerate or not finite
            }
            let geometric = normalize(normal);
            let mut verts = [ViewVertex { v: [0.0; 3], a: [0.0; ATTRS] }; 3];
            for (k, &i) in ix.iter().enumerate() {
                let uv = vx.uv0.get(i).copied().unwrap_or([0.0; 2]);
                let lm = if lights.is_empty() { [0.0; 2] } else { vx.uv1[i] };
                let light = if !lights.is_empty() || fullbright {
                    [dim; 3]
                } else if let Some(c) = colours.and_then(|c| c.get(i)) {
                    [c[0], c[1], c[2]].map(|x| x as f32 / 255.0 * dim)
                } else {
                    let nrm = vx.normals.get(i).map_or(geometric, |&nv| normalize(place.vector(nv)));
                    [shade::directional(nrm) * dim; 3]
                };
                verts[k] = ViewVertex { v: cam.view(p[k]), a: [uv[0], uv[1], lm[0], lm[1], light[0], light[1], light[2]] };
            }
            let mut clipped = [verts[0]; 4];
            let count = raster::clip_near(&verts, cam.near, &mut clipped);
            let (w, h) = (self.target.width, self.target.height);
            let screen: Vec<ScreenVertex> = clipped[..count].iter().map(|v| raster::project(&cam, w, h, v)).collect();
            for k in 1..count.saturating_sub(1) {
                let t = [screen[0], screen[k], screen[k + 1]];
                let level = look.mips.as_ref().map_or(0, |mips| {
                    let (a, b, c) = (&clipped[0].a, &clipped[k].a, &clipped[k + 1].a);
                    let uv_area = ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])).abs() * 0.5;
                    let texels = uv_area * mips.width() as f32 * mips.height() as f32;
                    let pixels = raster::area(&t).abs() as f32;
                    mips.level_for((texels / pixels.max(1e-6)).sqrt())
                });
                raster::triangle(self.target, &t, mode, |a| {
                    let texel = match &look.mips {
                        Some(mips) => mips.sample(level, a[0], a[1]),
                        None => [look.tint[0], look.tint[1], look.tint[2], 255],
                    };
                    if cutoff.is_some_and(|c| texel[3] < c) {
                        return None;
                    }
                    // Index loops and channels written out (no `map`, no iterator): this runs per
                    // pixel, and the adaptors are calls in unoptimised (test) builds. The same
                    // arithmetic in the same order.
                    let light = if lights.is_empty() {
                        [a[4], a[5], a[6]]
                    } else {
                        let mut sum = [0.0f32; 3];
                        let mut i = 0;
                        while i < lights.len() {
                            let s = lights[i].sample(a[2], a[3]);
                            sum[0] += s[0];
                            sum[1] += s[1];
                            sum[2] += s[2];
                            i += 1;
                        }
                        [sum[0] * scale, sum[1] * scale, sum[2] * scale]
                    };
                    let rgb = [texel[0] as f32 * light[0], texel[1] as f32 * light[1], texel[2] as f32 * light[2]];
                    let alpha = if own_alpha { texel[3] as f32 / 255.0 } else { WATER_ALPHA };
                    Some((rgb, alpha))
                });
            }
        }
    }
}

/// What [`render_map`] draws.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub view: View,
    /// Longest image side in pixels (1..=[`MAX_SIZE`]; 0 means [`DEFAULT_SIZE`]).
    pub size: u32,
    /// Where textures are searched (`--game-dir`, `--wad`, `--palette`, the read budget).
    pub textures: AssetOptions,
    /// The scene's output budget ([`crate::mesh::SceneLimits`]).
    pub limits: crate::mesh::SceneLimits,
    /// Most pixels the rasterizer may test, summed over the drawn triangles' on-screen bounding
    /// boxes (triangles × the pixels each covers; [`DEFAULT_MAX_RENDER_WORK`]); past it the
    /// render is a `limit_exceeded` error.
    pub max_work: u64,
}

/// Largest atlas byte ([`crate::lightmap::Atlas::rgb8`]) of a map whose lightmaps `render_map`
/// treats as black everywhere: [`crate::lightmap::PLACEHOLDER_MAX`] (the rule is
/// [`Lightmaps::is_placeholder`]).
pub const BLACK_LIGHTMAP: u8 = crate::lightmap::PLACEHOLDER_MAX;

/// Default of [`RenderOptions::max_work`]: 2³⁰ pixels tested (a few seconds of drawing), 4,096
/// full 512 × 512 frames. The largest corpus map needs a small fraction of it (README, "Safe
/// writes, special files and budgets").
pub const DEFAULT_MAX_RENDER_WORK: u64 = 1 << 30;

/// What [`RenderOptions::max_work`] is called in its error: the option and the flag.
pub const RENDER_WORK: &str = "render work, pixels tested (RenderOptions::max_work, --max-render-work)";

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            view: View::default(),
            size: 0,
            textures: AssetOptions::default(),
            limits: crate::mesh::SceneLimits::default(),
            max_work: DEFAULT_MAX_RENDER_WORK,
        }
    }
}

/// A rendered map.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub frame: Frame,
    /// The view drawn (`Iso` when `Spawn` found no player start).
    pub view: View,
    pub camera: Camera,
    /// Materials drawn with their texture, and drawn as flat tints.
    pub textured: usize,
    pub untextured: usize,
    /// Lit faces in the lightmap atlases (0: the picture is shaded from the normals).
    pub lit_faces: usize,
    /// Triangles in the scene, and those of surfaces that are drawn (not sky, nodraw, trigger,
    /// clip or tool). A map with no drawn triangle gives an empty picture.
    pub triangles: usize,
    pub drawn_triangles: usize,
    /// Problems that did not stop the picture (no lightmaps, missing textures, no spawn point).
    pub warnings: Vec<String>,
}

/// Build `bsp`'s scene with lightmaps, resolve its textures and draw it as `opts` says.
/// Lighting or textures that cannot be had are warnings; only a scene that cannot be built
/// (or a size out of range) is an error.
pub fn render_map(bsp: &Bsp, opts: &RenderOptions) -> Result<Rendered> {
    let size = if opts.size == 0 { DEFAULT_SIZE } else { opts.size };
    if size > MAX_SIZE {
        return Err(Error::new(ErrorKind::LimitExceeded { what: "picture size", requested: size as u64, limit: MAX_SIZE as u64 }));
    }
    let mut warnings = Vec::new();
    let lm = match lightmap::build(bsp, &Default::default()) {
        Ok(lm) => Some(lm),
        Err(e) => {
            warnings.push(format!("lightmaps: {e}"));
            None
        }
    };
    // Placeholder lightmaps ([`Lightmaps::is_placeholder`]): drawn with them, every lit face
    // would be black, so the map is drawn as if unlit.
    let lm = lm.and_then(|l| {
        let black = l.is_placeholder();
        if black {
            let max = l.max_byte(None);
            warnings.push(format!(
                "lightmaps: every texel of the {} lit faces is black (at most {max} of 255: placeholders or no lights compiled), shaded from the surface normals instead",
                l.faces.len()
            ));
        }
        (!black).then_some(l)
    });
    let textures = TextureCache::new(TextureSource::new(bsp, &opts.textures));
    let resolve = |name: &str| textures.get(name).ok();
    let texture_size = |name: &str| textures.size(name);
    let scene = mesh::build(
        bsp,
        &MeshOptions { lightmaps: lm.as_ref(), texture_size: Some(&texture_size), limits: opts.limits, ..Default::default() },
    )?;
    let mut used = vec![false; scene.materials.len()];
    let mut drawn_triangles = 0;
    for s in scene.models.iter().flat_map(|m| &m.surfaces) {
        if drawn(&scene, s.flags, s.material) {
            drawn_triangles += s.indices.len() / 3;
            if let Some(u) = used.get_mut(s.material as usize) {
                *u = true;
            }
        }
    }
    let looks: Vec<Look> = scene
        .materials
        .iter()
        .zip(&used)
        .map(|(m, &u)| match u.then(|| resolve(&m.name)).flatten() {
            Some(t) => Look::textured(&m.name, &t),
            None => Look::untextured(&m.name),
        })
        .collect();
    let textured = looks.iter().zip(&used).filter(|(l, &u)| u && l.has_texture()).count();
    let untextured = used.iter().filter(|&&u| u).count() - textured;
    // What the search path could not use (a FIFO or device as `--palette`/`--wad`, a game
    // folder that is not there), as `textures` and `export` report it.
    warnings.extend(textures.source.warnings().iter().map(|w| w.to_string()));
    let missing: Vec<String> = textures.misses().iter().map(|m| m.to_string()).collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "{} texture(s) not found or not decodable, drawn as flat tints (e.g. {})",
            missing.len(),
            missing.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
        ));
    }
    let lit_faces = lm.as_ref().map_or(0, |l| l.faces.len());
    if lit_faces == 0 {
        warnings.push("no baked lighting: shaded from the surface normals".into());
    }
    let starts = Starts::of_map(bsp, &mut warnings);
    // The sealing box, found once for the frame and the picture.
    let hull = Hull::of(&scene, SKIP);
    let ((camera, dims), view, why) = frame_with_hull(opts.view, &scene, hull.as_ref(), &starts, size);
    warnings.extend(why);
    let frame = render_scene_with_hull(&scene, hull.as_ref(), &looks, lm.as_ref(), &camera, dims, opts.max_work);
    if frame.work > opts.max_work {
        return Err(Error::new(ErrorKind::LimitExceeded { what: RENDER_WORK, requested: frame.work, limit: opts.max_work }));
    }
    if drawn_triangles == 0 {
        warnings.push("nothing to draw: every surface is sky, nodraw, trigger, clip or tool".into());
    }
    Ok(Rendered { frame, view, camera, textured, untextured, lit_faces, triangles: scene.triangle_count(), drawn_triangles, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Material, Surface, SurfaceKind};

    /// Up-facing quads (two triangles each, counter-clockwise seen from above) of `n × n` cells
    /// over `x0..x1` × `y0..y1` at height `z`.
    fn slab(x: [f32; 2], y: [f32; 2], z: f32, n: usize) -> Vec<focus::Tri> {
        let (sx, sy) = ((x[1] - x[0]) / n as f32, (y[1] - y[0]) / n as f32);
        let mut v = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (x[0] + i as f32 * sx, y[0] + j as f32 * sy);
                let q = [[a, b, z], [a + sx, b, z], [a + sx, b + sy, z], [a, b + sy, z]];
                v.extend(focus::Tri::new([q[0], q[1], q[2]]));
                v.extend(focus::Tri::new([q[0], q[2], q[3]]));
            }
        }
        v
    }

    /// Titanfall 2 `mp_crossfire`'s case: a level on a ground slab, with boxes buried under the
    /// slab in front of the level (toward the iso camera). The focus box takes them in; the
    /// picture cannot show them, so the camera is fitted to the level alone and centred on it.
    #[test]
    fn buried_parts_do_not_move_the_iso_frame() {
        // The level: two floors of fine detail, 0..1024 on x and y.
        let mut tris = slab([0.0, 1024.0], [0.0, 1024.0], 0.0, 16);
        tris.extend(slab([0.0, 1024.0], [0.0, 1024.0], 128.0, 16));
        let level = tris.len();
        // Buried, 96 units under a slab top at z = 0 reaching 1,024 units toward −Y: a floor
        // of a tenth of the level's area, in pieces as fine as the level's.
        tris.extend(slab([0.0, 1024.0], [-900.0, -700.0], -96.0, 16));
        // The slab in front, in large pieces (capped).
        tris.extend(slab([-512.0, 1536.0], [-1024.0, 0.0], 0.0, 1));
        let f = focus::focus(&tris, &[], Some(camera::iso_forward())).unwrap();
        assert!(f.bounds.min[1] < -800.0, "the focus box takes the buried boxes in: {:?}", f.bounds);
        let (((cam, _), view, _), points) = framed(View::Iso, &tris, Some(&f), &Starts::default(), 512);
        assert_eq!(view, View::Iso);
        assert!(points.iter().all(|p| p[2] > -90.0), "a buried point was fitted to");
        // The level's corners are centred in the picture and reach its margin.
        let extent = |cam: &Camera| {
            let Projection::Perspective { tan_x, tan_y } = cam.projection else { panic!() };
            let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
            for p in tris[..level].iter().flat_map(|t| t.p) {
                let v = cam.view(p);
                let (x, y) = (v[0] / v[2] / tan_x, v[1] / v[2] / tan_y);
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
            (x0, x1, y0, y1)
        };
        // Roughly centred (the 0.5 % of corners trimmed at each end leave the level's extreme
        // corners a little outside), filling the picture on one axis.
        let (x0, x1, y0, y1) = extent(&cam);
        let off = (x0 + x1).abs() + (y0 + y1).abs();
        assert!(off < 0.35, "not centred: {x0} {x1} {y0} {y1}");
        assert!(x1 - x0 > 1.6 || y1 - y0 > 1.6, "not fitted: {x0} {x1} {y0} {y1}");
        // Fitted to every point of the focus (the frame before), the level is further off centre
        // and smaller.
        let (a0, a1, b0, b1) = extent(&camera::iso_fit(&f.bounds, &f.points, 512).0);
        eprintln!("before: {a0} {a1} {b0} {b1}; now: {x0} {x1} {y0} {y1}");
        assert!((a0 + a1).abs() + (b0 + b1).abs() > off && b1 - b0 < y1 - y0, "{a0} {a1} {b0} {b1}");
    }

    /// A closed box room (faces pointing inwards) with a floor texture and a lightmap-less
    /// wall material, plus a sky ceiling.
    fn room() -> Scene {
        let mut m = Model { name: "world".into(), ..Default::default() };
        let (a, b) = ([0.0f32, 0.0, 0.0], [256.0f32, 192.0, 128.0]);
        // Each face: 4 corners, counter-clockwise seen from inside.
        type Face = ([[f32; 3]; 4], [f32; 3], u32, SurfaceFlags);
        let faces: [Face; 6] = [
            ([[a[0], a[1], a[2]], [b[0], a[1], a[2]], [b[0], b[1], a[2]], [a[0], b[1], a[2]]], [0.0, 0.0, 1.0], 0, SurfaceFlags::NONE),
            ([[a[0], a[1], b[2]], [a[0], b[1], b[2]], [b[0], b[1], b[2]], [b[0], a[1], b[2]]], [0.0, 0.0, -1.0], 2, SurfaceFlags::SKY),
            ([[a[0], a[1], a[2]], [a[0], a[1], b[2]], [b[0], a[1], b[2]], [b[0], a[1], a[2]]], [0.0, 1.0, 0.0], 1, SurfaceFlags::NONE),
            ([[a[0], b[1], a[2]], [b[0], b[1], a[2]], [b[0], b[1], b[2]], [a[0], b[1], b[2]]], [0.0, -1.0, 0.0], 1, SurfaceFlags::NONE),
            ([[a[0], a[1], a[2]], [a[0], b[1], a[2]], [a[0], b[1], b[2]], [a[0], a[1], b[2]]], [1.0, 0.0, 0.0], 1, SurfaceFlags::NONE),
            ([[b[0], a[1], a[2]], [b[0], a[1], b[2]], [b[0], b[1], b[2]], [b[0], b[1], a[2]]], [-1.0, 0.0, 0.0], 1, SurfaceFlags::NONE),
        ];
        for (i, (corners, normal, material, flags)) in faces.into_iter().enumerate() {
            let v0 = m.vertices.positions.len() as u32;
            let i0 = m.indices.len() as u32;
            for c in corners {
                m.vertices.positions.push(c);
                m.vertices.normals.push(normal);
                m.vertices.uv0.push([(c[0] + c[1]) / 64.0, c[2] / 64.0 + c[1] / 64.0]);
            }
            m.indices.extend([v0, v0 + 1, v0 + 2, v0, v0 + 2, v0 + 3]);
            m.surfaces.push(Surface {
                lump: 7,
                index: i as u32,
                material,
                flags,
                kind: SurfaceKind::Polygon,
                vertex_kind: None,
                vertices: v0..v0 + 4,
                indices: i0..i0 + 6,
            });
        }
        let mat = |name: &str, flags| Material { name: name.into(), flags, size: Some([64, 64]) };
        Scene {
            models: vec![m],
            materials: vec![mat("floor", SurfaceFlags::NONE), mat("wall", SurfaceFlags::NONE), mat("sky", SurfaceFlags::SKY)],
            ..Default::default()
        }
    }

    /// The deviation as written before (iterator adaptors and `Sum`): the same bits, on random
    /// pictures (lengths not a multiple of 3 among them), flat ones and an empty one.
    #[test]
    fn deviation_is_the_iterator_deviation() {
        fn old(f: &Frame) -> f64 {
            let n = (f.rgb.len() / 3).max(1) as f64;
            let mut var = 0.0;
            for c in 0..3 {
                let mean = f.rgb.iter().skip(c).step_by(3).map(|&v| v as f64).sum::<f64>() / n;
                var += f.rgb.iter().skip(c).step_by(3).map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
            }
            (var / 3.0).sqrt()
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut frames: Vec<Vec<u8>> = vec![Vec::new(), vec![7], vec![0; 300], vec![255; 30_000]];
        for len in [1, 2, 3, 4, 5, 299, 3 * 160 * 90, 3 * 512 * 512 + 2] {
            frames.push(
                (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect(),
            );
        }
        for rgb in frames {
            let f = Frame { width: 1, height: 1, rgb, covered: 0, work: 0 };
            assert_eq!(f.deviation().to_bits(), old(&f).to_bits(), "{} bytes", f.rgb.len());
        }
    }

    /// The `spawn` view from a player start no longer gathers the triangles nor finds their
    /// focus: the same camera, view and warning as when both were handed to `framed`.
    #[test]
    fn spawn_frames_need_no_focus() {
        let scene = room();
        let starts = Starts { origins: vec![[100.0, 90.0, 24.0]], first: Some(([100.0, 90.0, 24.0], [10.0, 45.0, 0.0])) };
        let tris = drawn_triangles(&scene);
        let f = focus::focus(&tris, &starts.origins, Some(camera::iso_forward()));
        assert!(f.is_some());
        for size in [64, 160, 512] {
            let before = framed(View::Spawn, &tris, f.as_ref(), &starts, size).0;
            assert_eq!(frame(View::Spawn, &scene, &starts, size), before);
            assert_eq!(before.1, View::Spawn);
        }
        // Without a start the view is still framed on the focus (the iso fallback).
        let none = Starts { origins: Vec::new(), first: None };
        let f = focus::focus(&tris, &[], Some(camera::iso_forward()));
        assert_eq!(frame(View::Spawn, &scene, &none, 160), framed(View::Spawn, &tris, f.as_ref(), &none, 160).0);
    }

    /// Without a player start the inside camera stands on the room's floor, an eye height up,
    /// inside the room, looking along its longer axis (x) and level.
    #[test]
    fn inside_camera_stands_on_the_floor() {
        let (cam, _) = inside(&room(), &Starts::default(), 64).unwrap();
        assert!((cam.eye[2] - camera::EYE_HEIGHT).abs() < 1e-3, "{cam:?}");
        assert!(cam.eye[0] > 0.0 && cam.eye[0] < 256.0 && cam.eye[1] > 0.0 && cam.eye[1] < 192.0, "{cam:?}");
        assert!(cam.forward[0].abs() > 0.999 && cam.forward[2].abs() < 1e-6, "{cam:?}");
        assert!(inside(&Scene::default(), &Starts::default(), 64).is_none());
    }

    fn checker() -> Texture {
        Texture::new("floor", "test", AlphaMode::Opaque, crate::assets::ImageRgba::checker(16, 16), None)
    }

    fn looks(scene: &Scene) -> Vec<Look> {
        let tex = checker();
        scene.materials.iter().map(|m| if m.name == "floor" { Look::textured(&m.name, &tex) } else { Look::untextured(&m.name) }).collect()
    }

    #[test]
    fn every_view_draws_the_room_and_is_repeatable() {
        let scene = room();
        let looks = looks(&scene);
        for view in View::ALL {
            let ((cam, size), used, _) = frame(view, &scene, &Starts::default(), 200);
            assert_eq!(used, if view == View::Top { View::Top } else { View::Iso });
            let a = render_scene(&scene, &looks, None, &cam, size);
            let b = render_scene(&scene, &looks, None, &cam, size);
            assert_eq!(a, b);
            assert_eq!(a.to_png().unwrap(), b.to_png().unwrap());
            assert!(a.coverage() > 0.3, "{view:?}: coverage {}", a.coverage());
            assert!(a.deviation() > 5.0, "{view:?}: flat picture");
        }
    }

    #[test]
    fn from_above_the_floor_shows_through_the_sky_ceiling() {
        let scene = room();
        let ((cam, size), _, _) = frame(View::Top, &scene, &Starts::default(), 128);
        let f = render_scene(&scene, &looks(&scene), None, &cam, size);
        // The centre pixel is the floor's checker (white or black texels, lit from straight
        // above: ambient + Lambert), not the background.
        let c = ((size[1] / 2 * size[0] + size[0] / 2) * 3) as usize;
        let px = &f.rgb[c..c + 3];
        assert_ne!(px, BACKGROUND);
        assert!(px[0] == px[1] && px[1] == px[2], "checker texels are grey: {px:?}");
    }

    #[test]
    fn culling_hides_a_face_seen_from_behind() {
        let mut scene = room();
        // Only the floor, seen from below: nothing.
        scene.models[0].surfaces.truncate(1);
        let cam = Camera {
            eye: [128.0, 96.0, -500.0],
            right: [1.0, 0.0, 0.0],
            up: [0.0, -1.0, 0.0],
            forward: [0.0, 0.0, 1.0],
            projection: Projection::Perspective { tan_x: 1.0, tan_y: 1.0 },
            near: 1.0,
        };
        let f = render_scene(&scene, &looks(&scene), None, &cam, [64, 64]);
        assert_eq!(f.covered, 0);
        // From above: drawn.
        let cam = Camera { eye: [128.0, 96.0, 500.0], up: [0.0, 1.0, 0.0], forward: [0.0, 0.0, -1.0], ..cam };
        assert!(render_scene(&scene, &looks(&scene), None, &cam, [64, 64]).covered > 100);
    }

    #[test]
    fn placed_models_move() {
        let mut scene = room();
        scene.models[0].origin = [10_000.0, 0.0, 0.0];
        let pts: Vec<[f32; 3]> = drawn_points(&scene).collect();
        assert!(pts.iter().all(|p| p[0] >= 10_000.0));
        scene.models[0].angles = [0.0, 90.0, 0.0];
        let p = Placement::of(&scene.models[0]).point([1.0, 0.0, 0.0]);
        assert!((p[0] - 10_000.0).abs() < 1e-3 && (p[1] - 1.0).abs() < 1e-3);
    }

    #[test]
    fn spawn_points_from_entities() {
        let text = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"info_player_deathmatch\"\n\"origin\" \"1 2 3\"\n\"angle\" \"90\"\n}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"10 20 30\"\n\"angles\" \"5 180 0\"\n}\n";
        let ents = crate::lumps::entities::parse(text).unwrap();
        assert_eq!(spawn_point(&ents), Some(([10.0, 20.0, 30.0], [5.0, 180.0, 0.0])));
        let ents =
            crate::lumps::entities::parse(b"{\n\"classname\" \"info_player_deathmatch\"\n\"origin\" \"1 2 3\"\n\"angle\" \"-1\"\n}\n")
                .unwrap();
        assert_eq!(spawn_point(&ents), Some(([1.0, 2.0, 3.0], [-90.0, 0.0, 0.0])));
        assert_eq!(spawn_point(&crate::lumps::entities::parse(b"{\n\"classname\" \"worldspawn\"\n}\n").unwrap()), None);
    }

    /// Adds to `m` a box from `a` to `b` of `material` (surface lump 99), its faces pointing out
    /// (`out`) or in.
    fn add_box(m: &mut Model, a: [f32; 3], b: [f32; 3], material: u32, out: bool) {
        for k in 0..3 {
            for side in [a[k], b[k]] {
                let (u, w) = ((k + 1) % 3, (k + 2) % 3);
                let corner = |cu: f32, cw: f32| {
                    let mut p = [0.0; 3];
                    (p[k], p[u], p[w]) = (side, cu, cw);
                    p
                };
                let mut q = [corner(a[u], a[w]), corner(b[u], a[w]), corner(b[u], b[w]), corner(a[u], b[w])];
                // (u, w) counter-clockwise has its normal along +k: flip for the side and way.
                let mut normal = [0.0; 3];
                normal[k] = if (side == b[k]) == out { 1.0 } else { -1.0 };
                if normal[k] < 0.0 {
                    q.reverse();
                }
                let (v0, i0) = (m.vertices.positions.len() as u32, m.indices.len() as u32);
                m.vertices.positions.extend(q);
                m.vertices.normals.extend([normal; 4]);
                m.vertices.uv0.extend(q.map(|c| [(c[u] + c[w]) / 64.0, c[k] / 64.0]));
                m.indices.extend([v0, v0 + 1, v0 + 2, v0, v0 + 2, v0 + 3]);
                m.surfaces.push(Surface {
                    lump: 99,
                    index: m.surfaces.len() as u32,
                    material,
                    flags: SurfaceFlags::NONE,
                    kind: SurfaceKind::Polygon,
                    vertex_kind: None,
                    vertices: v0..v0 + 4,
                    indices: i0..i0 + 6,
                });
            }
        }
    }

    /// Looks for [`sealed`]: the level's materials a grey checker, the hull's pure red.
    fn sealed_looks(scene: &Scene) -> Vec<Look> {
        let grey = checker();
        let red = Texture::new("hull", "test", AlphaMode::Opaque, crate::assets::ImageRgba::new(1, 1, vec![255, 0, 0, 255]).unwrap(), None);
        scene
            .materials
            .iter()
            .map(|m| if m.name == "hull" { Look::textured(&m.name, &red) } else { Look::textured(&m.name, &grey) })
            .collect()
    }

    /// Shares of the picture showing the level (grey) and the hull (red).
    fn level_and_hull(f: &Frame) -> (f64, f64) {
        let n = (f.width * f.height) as f64;
        let px = || f.rgb.chunks_exact(3).filter(|p| *p != BACKGROUND);
        let red = px().filter(|p| p[0] > 0 && p[1] == 0 && p[2] == 0).count() as f64;
        let level = px().filter(|p| !(p[0] > 0 && p[1] == 0 && p[2] == 0)).count() as f64;
        (level / n, red / n)
    }

    /// The [`room`] (the level) inside a box far larger than it whose 16-unit walls have both
    /// sides drawn (Titanfall 2 `mp_hippodrome`, compiled by MRVN-Radiant).
    fn sealed() -> Scene {
        let mut scene = room();
        scene.materials.push(Material { name: "hull".into(), flags: SurfaceFlags::NONE, size: Some([64, 64]) });
        let hull = scene.materials.len() as u32 - 1;
        let m = &mut scene.models[0];
        let (lo, hi) = ([-2000.0, -2000.0, -600.0], [2256.0, 2192.0, 3000.0]);
        add_box(m, lo, hi, hull, true);
        add_box(m, lo.map(|c| c + 16.0), hi.map(|c| c - 16.0), hull, false);
        scene
    }

    /// The box's floor stays where the level stands on it (a map decompiled into brushes, CoD4
    /// `mp_test`: its walls and floor are the box): the room's walls reach down to the inner
    /// side of the bottom wall, so that side is kept in the picture; the other walls are cut.
    /// A level floating above the floor (the [`sealed`] scene) has its floor cut as before.
    #[test]
    fn the_floor_a_level_stands_on_is_kept() {
        let mut scene = sealed();
        let hull = scene.materials.len() as u32 - 1;
        let m = &mut scene.models[0];
        // Replace the box by one whose bottom wall's inner side is the room's floor height.
        let keep = m.surfaces.iter().filter(|s| s.material != hull).count();
        m.surfaces.truncate(keep);
        let (lo, hi) = ([-2000.0, -2000.0, -16.0], [2256.0, 2192.0, 3000.0]);
        add_box(m, lo, hi, hull, true);
        add_box(m, lo.map(|c| c + 16.0), hi.map(|c| c - 16.0), hull, false);
        let h = Hull::of(&scene, SKIP).expect("sealed");
        assert!(h.keeps_floor());
        let floor = [[-1984.0, -1984.0, 0.0], [2240.0, -1984.0, 0.0], [2240.0, 2176.0, 0.0]];
        let wall = [[-1984.0, -1984.0, 0.0], [-1984.0, 2176.0, 0.0], [-1984.0, 2176.0, 100.0]];
        assert!(!h.cuts(&floor), "the floor is cut");
        assert!(h.cuts(&wall), "a wall's inner side is kept");
        let floating = Hull::of(&sealed(), SKIP).expect("sealed");
        assert!(!floating.keeps_floor());
        let low = [[-1984.0, -1984.0, -584.0], [2240.0, -1984.0, -584.0], [2240.0, 2176.0, -584.0]];
        assert!(floating.cuts(&low), "a floor nothing stands on is kept");
    }

    /// A level sealed in one box: the iso and top pictures show the level, not the box's
    /// outside (which was all the picture showed), and cut the box's walls away.
    #[test]
    fn a_level_sealed_in_a_box_is_seen() {
        let scene = sealed();
        let looks = sealed_looks(&scene);
        let hull = Hull::of(&scene, SKIP).expect("sealed");
        assert_eq!((hull.min(), hull.max()), ([-2000.0, -2000.0, -600.0], [2256.0, 2192.0, 3000.0]));
        for view in [View::Iso, View::Top] {
            let ((cam, size), _, _) = frame(view, &scene, &Starts::default(), 200);
            let f = render_scene(&scene, &looks, None, &cam, size);
            let (level, red) = level_and_hull(&f);
            assert!(level > 0.3, "{view:?}: the level covers {:.1} % of the picture", level * 100.0);
            assert_eq!(red, 0.0, "{view:?}: the hull is drawn");
            // The same picture as the room alone: the frame is the level's.
            let alone = room();
            let ((cam2, size2), _, _) = frame(view, &alone, &Starts::default(), 200);
            assert_eq!((cam, size), (cam2, size2), "{view:?}");
        }
        // From a camera framing the whole box (as the frame did), the box drawn whole hides the
        // level behind its outside; cut away, the level shows.
        let (cam, size) = camera::iso(&Bounds { min: hull.min(), max: hull.max() }, 200);
        let draw = |hull: Option<&Hull>| {
            let mut t = Target::new(size[0], size[1], BACKGROUND);
            let mut ctx = Ctx { scene: &scene, lightmaps: None, pages: &[], camera: &cam, target: &mut t, hull };
            let m = &scene.models[0];
            for (si, s) in m.surfaces.iter().enumerate().filter(|(_, s)| drawn(&scene, s.flags, s.material)) {
                ctx.surface(m, &Placement::of(m), si, &looks[s.material as usize], Mode::Opaque);
            }
            level_and_hull(&Frame { width: size[0], height: size[1], rgb: t.rgb, covered: 0, work: 0 })
        };
        let (level, red) = draw(None);
        assert!(level == 0.0 && red > 0.3, "drawn whole: level {level}, hull {red}");
        let (level, red) = draw(Some(&hull));
        assert!(level > 0.0 && red == 0.0, "cut away: level {level}, hull {red}");
    }

    /// `mesh::hull::mark` (what `bsp view` shows as the `hull` kind) flags exactly the triangles
    /// the picture cuts: a surface all wall gets the flag, a surface part wall and part level is
    /// split (the level's part keeps its place, the wall's goes to a new surface over copies of
    /// its vertices), and the scene's placed triangles are the same before and after.
    #[test]
    fn marking_flags_what_the_render_cuts() {
        let mut scene = sealed();
        // One surface holding a room wall (drawn, not cut) and the box's first outer face.
        let m = &mut scene.models[0];
        let first_box = m.surfaces.iter().position(|s| s.lump == 99).unwrap();
        let joined = Surface {
            vertices: m.surfaces[first_box - 1].vertices.start..m.surfaces[first_box].vertices.end,
            indices: m.surfaces[first_box - 1].indices.start..m.surfaces[first_box].indices.end,
            ..m.surfaces[first_box - 1].clone()
        };
        m.surfaces.splice(first_box - 1..=first_box, [joined]);
        let hull = Hull::of(&scene, SKIP).expect("sealed");
        let placed = |scene: &Scene| {
            let mut v: Vec<([[u32; 3]; 3], bool, bool)> = Vec::new();
            for m in &scene.models {
                let place = Placement::of(m);
                for s in &m.surfaces {
                    for t in m.indices[s.indices.start as usize..s.indices.end as usize].chunks_exact(3) {
                        assert!(t.iter().all(|i| s.vertices.contains(i)), "a surface indexes another's vertices");
                        let p = [0, 1, 2].map(|k| place.point(m.vertices.positions[t[k] as usize]));
                        let cut = drawn(scene, s.flags, s.material) && hull.cuts(&p);
                        v.push((p.map(|c| c.map(f32::to_bits)), cut, s.flags.contains(SurfaceFlags::HULL)));
                    }
                }
            }
            v.sort();
            v
        };
        let before = placed(&scene);
        let cut = before.iter().filter(|t| t.1).count();
        let surfaces = scene.models[0].surfaces.len();
        let mut marked = scene.clone();
        assert_eq!(crate::mesh::hull::mark(&mut marked, &hull, SKIP), cut);
        let after = placed(&marked);
        // The same triangles; flagged exactly where cut.
        assert_eq!(before.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>(), after.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>());
        assert!(cut > 0 && after.iter().all(|t| t.1 == t.2), "{cut} cut");
        // One surface was split: the room wall keeps its place, the box face is the new one.
        let m = &marked.models[0];
        assert_eq!(m.surfaces.len(), surfaces + 1);
        assert!(!m.surfaces[first_box - 1].flags.contains(SurfaceFlags::HULL));
        assert!(m.surfaces.last().unwrap().flags.contains(SurfaceFlags::HULL));
        assert!(m.surfaces.windows(2).all(|w| w[0].vertices.end <= w[1].vertices.start), "vertex runs overlap");
        // Finding the box again on the marked scene gives the same (`bsp view --skip hull`
        // frames on it without marking again).
        assert_eq!(Hull::of(&marked, SKIP), Some(hull));
        assert_eq!((m.vertices.normals.len(), m.vertices.uv0.len()), (m.vertices.positions.len(), m.vertices.positions.len()));
        // Drawn without the flagged surfaces, the picture is the one the render makes.
        let looks = sealed_looks(&scene);
        let ((cam, size), _, _) = frame(View::Iso, &scene, &Starts::default(), 160);
        let mut unflagged = marked.clone();
        for m in &mut unflagged.models {
            m.surfaces.retain(|s| !s.flags.contains(SurfaceFlags::HULL));
        }
        let a = render_scene(&scene, &looks, None, &cam, size);
        let b = render_scene_with_hull(&unflagged, None, &looks, None, &cam, size, u64::MAX);
        assert_eq!(a.rgb, b.rgb);
    }

    /// A box in the void (its faces pointing out, the map leaked) is not a sealing hull: it is
    /// all there is, and it stays in the picture. Nor is a box whose top is open.
    #[test]
    fn a_lone_box_is_not_a_hull() {
        let mut scene = room();
        scene.models[0] = Model { name: "world".into(), ..Default::default() };
        add_box(&mut scene.models[0], [0.0; 3], [256.0, 192.0, 128.0], 1, true);
        assert!(Hull::of(&scene, SKIP).is_none());
        let ((cam, size), _, _) = frame(View::Iso, &scene, &Starts::default(), 100);
        assert!(render_scene(&scene, &looks(&scene), None, &cam, size).coverage() > 0.3);
        // A box whose walls are kept on both sides, with nothing else: all wall, drawn.
        let mut shell = room();
        shell.models[0] = Model { name: "world".into(), ..Default::default() };
        add_box(&mut shell.models[0], [0.0; 3], [256.0, 192.0, 128.0], 1, true);
        add_box(&mut shell.models[0], [16.0; 3], [240.0, 176.0, 112.0], 1, false);
        assert!(Hull::of(&shell, SKIP).is_none());
        let mut open = sealed();
        // Without the outer top face (the last but one outward face: +z), the box does not seal.
        let top = open.models[0].surfaces.iter().position(|s| s.lump == 99).unwrap() + 5;
        open.models[0].surfaces.remove(top);
        assert!(Hull::of(&open, SKIP).is_none());
    }

    /// A lit map where every face but one is lit black (LibreQuake e0m2's start cave in its
    /// Quake 2 build): those faces are shaded from their normals, as the faces the Quake build
    /// stores without a lightmap, not drawn as a black mass. The builder's box room (six faces,
    /// each lit 96 + 24 × k).
    #[test]
    fn faces_lit_black_are_shaded_as_unlit() {
        let mut bytes = crate::build::sample_quake1();
        let lit = |bytes: &[u8]| {
            let bsp = Bsp::from_bytes(bytes).unwrap();
            let r = render_map(&bsp, &RenderOptions { size: 160, ..Default::default() }).unwrap();
            let px: Vec<&[u8]> = r.frame.rgb.chunks_exact(3).filter(|p| *p != BACKGROUND).collect();
            let dark = px.iter().filter(|p| p.iter().all(|&c| c <= 8)).count() as f64 / px.len().max(1) as f64;
            (r, dark)
        };
        let (plain, dark) = lit(&bytes);
        assert!(plain.lit_faces == 6 && dark < 0.05, "{} lit faces, {:.1} % black", plain.lit_faces, dark * 100.0);
        let (start, faces) = {
            let bsp = Bsp::from_bytes(&bytes).unwrap();
            let li = bsp.lump_index("LIGHTING").unwrap();
            let faces: Vec<(u64, usize)> = lightmap::build(&bsp, &Default::default())
                .unwrap()
                .faces
                .iter()
                .map(|f| (f.sample_offsets()[0], (f.width * f.height) as usize))
                .collect();
            (bsp.entry(li).unwrap().offset as usize, faces)
        };
        for &(off, n) in &faces[..5] {
            bytes[start + off as usize..start + off as usize + n].fill(0);
        }
        let (black, dark) = lit(&bytes);
        // Still a lit map (one face is), every face drawn, none black.
        assert!(black.warnings.iter().all(|w| !w.contains("every texel")), "{:?}", black.warnings);
        assert_eq!(black.frame.covered, plain.frame.covered);
        assert!(dark < 0.05, "{:.1} % of the drawn pixels are black", dark * 100.0);
        assert_ne!(black.frame.rgb, plain.frame.rgb);
    }

    #[test]
    fn dark_face_reads_only_its_luxels() {
        let rgb: Vec<u8> = [[0u8, 0, 0], [0, 0, 0], [200, 0, 0], [0, 0, 0]].concat();
        let page = LightPage { w: 2, h: 2, rgb: rgb.into() };
        let bsp_bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bsp_bytes).unwrap();
        let mut f = lightmap::build(&bsp, &Default::default()).unwrap().faces[0];
        (f.x, f.y, f.width, f.height) = (0, 0, 2, 1);
        assert!(dark_face(&f, &[&page]));
        f.height = 2;
        assert!(!dark_face(&f, &[&page]));
        assert!(!dark_face(&f, &[]));
        // Luxels outside the page count as black, not as a panic.
        (f.x, f.y) = (5, 5);
        assert!(dark_face(&f, &[&page]));
    }

    #[test]
    fn hostile_scenes_do_not_panic() {
        let mut scene = room();
        scene.models[0].indices.push(9999);
        scene.models[0].surfaces[0].indices.end += 1;
        scene.models[0].surfaces[2].indices = 5..100_000;
        scene.models[0].vertices.positions[0] = [f32::NAN, f32::INFINITY, 1e38];
        scene.models[0].surfaces[3].material = 77;
        scene.models[0].lightmap_pages = vec![0; 6];
        let ((cam, size), _, _) = frame(View::Iso, &scene, &Starts::default(), 64);
        let _ = render_scene(&scene, &[], None, &cam, size);
        let _ = render_scene(&Scene::default(), &[], None, &cam, [0, 0]);
    }
}
