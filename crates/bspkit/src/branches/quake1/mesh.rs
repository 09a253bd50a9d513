//! Quake 1 (BSP29, BSP2, 2PSB, Hexen II) and GoldSrc (BSP30, Blue Shift) geometry for the
//! scene model ([`crate::mesh`]).
//!
//! * Faces: each face's corners come from its surfedges → edges → vertices
//!   (quake_family.md B.9, B.14, B.15), one vertex per corner. Faces are convex in theory, a fan
//!   would do; but compilers snap corners and split edges, leaving some faces slightly concave,
//!   so they are cut by ear clipping in the plane (a fan past 64 corners). Triangles of zero
//!   area (collinear corners) are left out, so the triangles cover exactly the polygon, wound
//!   counter-clockwise seen from the face's front whatever order the file stores.
//! * Normal: the face's plane normal, negated when the face's `side` is non-zero.
//! * UV0: `s = dot(pos, vecs[0].xyz) + vecs[0].w`, `t` likewise (quake_family.md B.8), divided
//!   by the miptex's width and height from its header in the texture lump — also for textures
//!   whose pixels live in a WAD (their header still has the size). A missing entry (offset −1)
//!   or a zero size uses [`FALLBACK_TEXTURE_SIZE`] and a warning names the texture.
//! * UV1 (with [`MeshOptions::lightmaps`]): [`crate::lightmap::Lightmaps::uv`] of each corner;
//!   faces without a lightmap get `(0, 0)` and page `u32::MAX`.
//! * Models: the world (model 0) and, with [`ModelSelect::All`], every brush model `*N`,
//!   named after and placed at the `origin` / `angles` of the first entity whose `model` key
//!   is `*N` (brush models no entity names are kept, unplaced).
//! * Broken faces (plane, texinfo, surfedge, edge or vertex index out of range; fewer than
//!   three corners; no area; non-finite numbers) are listed in [`Scene::skipped`] with the
//!   faces lump, the face index and the reason; they never stop the build.
//!
//! # Surface flags from texture names
//! Case-insensitive, as the engines and compilers read them:
//!
//! | name | flags |
//! |---|---|
//! | starts with `sky` | sky |
//! | starts with `*` (Quake liquids), or `!` (GoldSrc water) | water |
//! | `trigger`, `aaatrigger` (GoldSrc) | trigger |
//! | `clip`, or starts with `clip` (`clipmonster`, …) | clip |
//! | starts with `{` | alphatest |
//! | `skip`, `hint`, `hintskip`, `origin`, `bevel` | tool |
//! | `null`, `nodraw`, `black_hidden` | nodraw |

use super::lumps::with_record_set;
use super::records::{EdgeRecord, FaceRecord, Layout, ModelRecord, SurfEdge, Vertex};
use super::view::View;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::mesh::geom::newell;
use crate::mesh::scene::{
    brush_model_placements, Material, MaterialTable, MeshOptions, Model, ModelSelect, Scene, SceneBudget, Skipped, Surface, SurfaceFlags,
    SurfaceKind, FALLBACK_TEXTURE_SIZE,
};

/// The surface flags a Quake / GoldSrc texture name implies (module documentation).
pub fn flags_of(name: &str) -> SurfaceFlags {
    let n = name.to_ascii_lowercase();
    let mut f = SurfaceFlags::NONE;
    if n.starts_with("sky") {
        f |= SurfaceFlags::SKY;
    }
    if n.starts_with('*') || n.starts_with('!') {
        f |= SurfaceFlags::WATER;
    }
    if n == "trigger" || n == "aaatrigger" {
        f |= SurfaceFlags::TRIGGER;
    }
    if n.starts_with("clip") {
        f |= SurfaceFlags::CLIP;
    }
    if n.starts_with('{') {
        f |= SurfaceFlags::ALPHA_TEST;
    }
    if matches!(n.as_str(), "skip" | "hint" | "hintskip" | "origin" | "bevel") {
        f |= SurfaceFlags::TOOL;
    }
    if matches!(n.as_str(), "null" | "nodraw" | "black_hidden") {
        f |= SurfaceFlags::NODRAW;
    }
    f
}

/// The scene of a Quake 1 or GoldSrc map.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    with_record_set!(bsp.branch(), build_with(bsp, opts))
}

/// The lumps a face reads, borrowed from the map.
struct Tables<'a, L: Layout> {
    planes: &'a [super::records::Plane],
    texinfo: &'a [super::records::TexInfo],
    faces: &'a [L::Face],
    surfedges: &'a [SurfEdge],
    edges: &'a [L::Edge],
    vertices: &'a [Vertex],
}

/// Per miptex index: its material and size, made on first use.
struct Materials<'a> {
    lump: Option<crate::lumps::miptex::MipTexLump<'a>>,
    by_miptex: Vec<Option<(u32, [u32; 2])>>,
    table: MaterialTable,
}

impl Materials<'_> {
    fn get(&mut self, miptex: i64, scene: &mut Scene) -> (u32, [u32; 2]) {
        let slot = usize::try_from(miptex).ok().filter(|&i| i < self.by_miptex.len());
        if let Some(Some(m)) = slot.map(|i| self.by_miptex[i]) {
            return m;
        }
        let tex = slot.and_then(|i| self.lump.as_ref().map(|l| l.get(i)));
        // Quake 64 divides texture coordinates by 2 × shift when shift > 0 (quakespasm's
        // "Q64 RERELEASE texture shift"): the UVs' divisor grows by that factor.
        let mut uv_factor = 1u32;
        let (name, size) = match tex {
            Some(Ok(Some(t))) => {
                uv_factor = t.shift().filter(|&s| s > 0 && s <= 1 << 8).map_or(1, |s| 2 * s);
                (t.name().into_owned(), [t.width(), t.height()])
            }
            Some(Ok(None)) => (format!("(miptex {miptex})"), [0, 0]),
            Some(Err(e)) => {
                scene.warnings.push(format!("miptex {miptex}: {e}"));
                (format!("(miptex {miptex})"), [0, 0])
            }
            None => (format!("(miptex {miptex})"), [0, 0]),
        };
        let size = if size[0] == 0 || size[1] == 0 || size[0] > 1 << 16 || size[1] > 1 << 16 {
            scene.warnings.push(format!(
                "texture {name}: size unknown ({}x{}); UVs assume {}x{}",
                size[0], size[1], FALLBACK_TEXTURE_SIZE[0], FALLBACK_TEXTURE_SIZE[1]
            ));
            FALLBACK_TEXTURE_SIZE
        } else {
            size
        };
        let flags = flags_of(&name);
        let index = self.table.intern(&mut scene.materials, &name, || Material { name: name.clone(), flags, size: Some(size) });
        let divisor = [size[0].saturating_mul(uv_factor), size[1].saturating_mul(uv_factor)];
        if let Some(i) = slot {
            self.by_miptex[i] = Some((index, divisor));
        }
        (index, divisor)
    }
}

fn build_with<L: Layout>(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    let view = View::<L>::new(bsp);
    let t = Tables::<L> {
        planes: view.planes()?,
        texinfo: view.texinfo()?,
        faces: view.faces()?,
        surfedges: view.surfedges()?,
        edges: view.edges()?,
        vertices: view.vertices()?,
    };
    let models = view.models()?;
    let face_lump = view.slots().faces as u16;
    let mut scene = Scene::default();
    let lump = match view.textures() {
        Ok(l) => Some(l),
        Err(e) => {
            scene.warnings.push(format!("texture lump: {e}; texture sizes unknown"));
            None
        }
    };
    let mut mats = Materials { by_miptex: vec![None; lump.map_or(0, |l| l.len())], lump, table: MaterialTable::default() };
    let count = match opts.models {
        ModelSelect::World => models.len().min(1),
        ModelSelect::All => models.len(),
    };
    // Only brush models are placed: a map meshed without them never parses its entities.
    let placements = if count < 2 {
        Default::default()
    } else {
        match bsp.entities() {
            Ok(ents) => brush_model_placements(&ents),
            Err(e) => {
                scene.warnings.push(format!("entities: {e}; brush models are not placed"));
                Default::default()
            }
        }
    };
    let mut corners: Vec<[f32; 3]> = Vec::with_capacity(64);
    let mut scratch = Scratch::default();
    let mut budget = SceneBudget::new(opts);
    for (mi, m) in models.iter().enumerate().take(count) {
        let mut model = Model { index: mi as u32, name: if mi == 0 { "world".into() } else { format!("*{mi}") }, ..Default::default() };
        if mi > 0 {
            if let Some(p) = placements.get(&(mi as u32)) {
                model.name = p.name.clone();
                model.origin = p.origin;
                model.angles = p.angles;
                model.entity = Some(p.entity);
            }
        }
        let (first, num) = m.faces();
        let range = usize::try_from(first).ok().zip(usize::try_from(num).ok()).and_then(|(a, n)| Some(a..a.checked_add(n)?));
        let range = match range {
            Some(r) if r.end <= t.faces.len() => r,
            _ => {
                scene.warnings.push(format!("model {mi}: faces {first}+{num} are outside 0..{}; model left out", t.faces.len()));
                continue;
            }
        };
        // One batch per model, sized exactly so the buffers never double: the faces' corner
        // counts (capped by the surfedges, which real faces do not share) bound the vertices.
        // Faces sharing one run of surfedges could ask for far more: the scene budget caps it.
        let corners_total = t.faces[range.clone()]
            .iter()
            .map(|f| f.edges().1.max(0) as usize)
            .sum::<usize>()
            .min(t.surfedges.len())
            .min(budget.vertices_left());
        model.reserve_exact(corners_total, corners_total.saturating_sub(2 * range.len()), range.len(), opts.lightmaps.is_some(), false)?;
        for fi in range {
            if let Err(reason) = face(&t, fi, face_lump, opts, &mut mats, &mut scene, &mut model, &mut corners, &mut scratch, &mut budget) {
                scene.skipped.push(Skipped { lump: face_lump, index: fi as u32, reason });
                budget.stop()?;
            }
        }
        if mi == 0 || !model.surfaces.is_empty() {
            scene.models.push(model);
        }
    }
    Ok(scene)
}

/// Corners above which a polygon is cut as a plain fan (ear clipping is quadratic).
const MAX_EAR_CLIP: usize = 64;

/// Scratch buffers for [`triangulate`], kept across faces so a face allocates nothing.
#[derive(Default)]
struct Scratch {
    /// The corners still to cut, as corner numbers, counter-clockwise.
    ring: Vec<u32>,
    /// Each corner projected on the face's plane, by corner number.
    flat: Vec<[f64; 2]>,
}

/// Cut the polygon `corners` (on the plane with unit `normal`) into triangles, counter-clockwise
/// seen from the front, calling `emit` with corner numbers. Ear clipping in the plane's
/// projection: Quake faces are convex in theory, but compilers snap corners to the grid and
/// split edges with nearly collinear corners, so some are slightly concave, where a fan would
/// fold triangles over one another. Triangles without area are not emitted. Polygons over
/// [`MAX_EAR_CLIP`] corners are cut as a fan, as is a remnant without ears (self-touching).
///
/// Most faces are convex (within a tolerance, corners splitting their edges included): for
/// those the searches for repeated corners and for corners inside an ear cannot find anything
/// and are skipped, which gives the same triangles in linear time per clipped corner.
///
/// A triangle (a third of the faces) is decided from `newell` (the polygon's [`newell`] vector),
/// without projecting: its doubled area along the normal gives the winding, and it is kept
/// when that area is well above `cut`'s tolerance (which is at most 3·10⁻⁹ of the longest side
/// of the bounding box squared); slivers near the tolerance go through `cut`.
fn triangulate(corners: &[[f32; 3]], normal: [f64; 3], newell: [f64; 3], scratch: &mut Scratch, emit: &mut impl FnMut([u32; 3])) {
    if let [a, b, c] = corners {
        let along = dot(newell, normal);
        let side = (0..3).map(|k| a[k].max(b[k]).max(c[k]) as f64 - a[k].min(b[k]).min(c[k]) as f64).fold(0.0, f64::max);
        if along.abs() > 4e-9 * side * side {
            emit(if along > 0.0 { [0, 1, 2] } else { [2, 1, 0] });
            return;
        }
    }
    cut(corners, normal, scratch, emit, true);
}

/// [`triangulate`]; `shortcut: false` runs the general ear search on convex polygons too (for
/// the test that both give the same triangles). True when the convex shortcut was taken.
fn cut(corners: &[[f32; 3]], normal: [f64; 3], scratch: &mut Scratch, emit: &mut impl FnMut([u32; 3]), shortcut: bool) -> bool {
    // Project on the plane (a basis e1, e2 of the plane with e1 × e2 along the normal), so a 2D
    // cross product is the 3D triangle's area along the normal (scaled), and counter-clockwise
    // in 2D is counter-clockwise seen from the front. e1 = axis × normal for the axis least
    // along the normal, written out for the one-hot axis, and left unnormalised (no square root
    // and division per face): e1 and e2 have the same length, at least √(2/3), so the
    // projection is scaled uniformly, and `eps` below (from the projected extent) scales with
    // every area it meets.
    let [x, y, z] = normal.map(f64::abs);
    let e1 = if x <= y && x <= z {
        [0.0, -normal[2], normal[1]]
    } else if y <= z {
        [normal[2], 0.0, -normal[0]]
    } else {
        [-normal[1], normal[0], 0.0]
    };
    let e2 = cross(normal, e1);
    let Scratch { ring, flat } = scratch;
    flat.clear();
    flat.extend(corners.iter().map(|c| {
        let c = [c[0] as f64, c[1] as f64, c[2] as f64];
        [dot(c, e1), dot(c, e2)]
    }));
    let flat = &flat[..];
    let p = |i: u32| flat[i as usize];
    let cross2 = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    let n = corners.len();
    ring.clear();
    ring.extend(0..n as u32);
    let closing = match flat {
        [first, .., last] => cross2([0.0, 0.0], *last, *first),
        _ => 0.0,
    };
    let signed = flat.windows(2).fold(-0.0, |sum, w| sum + cross2([0.0, 0.0], w[0], w[1])) + closing;
    if signed < 0.0 {
        ring.reverse();
    }
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    for q in flat {
        lo = [lo[0].min(q[0]), lo[1].min(q[1])];
        hi = [hi[0].max(q[0]), hi[1].max(q[1])];
    }
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let eps = 1e-9 * extent * extent;
    // A fan from the ring's first corner, keeping the triangles that turn the right way: for
    // polygons too large to clip, and for a remnant without ears.
    let fan = |ring: &[u32], emit: &mut dyn FnMut([u32; 3])| {
        for i in 1..ring.len().saturating_sub(1) {
            if cross2(p(ring[0]), p(ring[i]), p(ring[i + 1])) > eps {
                emit([ring[0], ring[i], ring[i + 1]]);
            }
        }
    };
    if n > MAX_EAR_CLIP {
        fan(ring, emit);
        return false;
    }
    let near = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) <= eps;
    // Convex within `eps` (every corner on or left of every edge it is not on, so the polygon
    // winds once) with no two corners `near`: no corner can be dropped as a repeat or a spike
    // and none lies inside another corner's triangle, so the loop below skips both searches
    // (the quadratic part of ear clipping) and gives the same triangles in linear time per
    // clip. Most faces are convex; compilers split edges, so many carry corners that do not
    // turn, and those need the clipping, not a plain fan.
    let m = ring.len();
    // A triangle needs neither search (the loop below is not entered).
    let convex = shortcut
        && m > 3
        && (0..m).all(|i| {
            // The corners after the edge's end, in ring order (`% m` is a division; the wrap
            // is a subtraction).
            let wrap = |j: usize| if j >= m { j - m } else { j };
            let (a, b) = (p(ring[i]), p(ring[wrap(i + 1)]));
            (i + 2..i + m).all(|j| cross2(a, b, p(ring[wrap(j)])) >= -eps)
        })
        && (0..m).all(|i| (i + 1..m).all(|j| !near(flat[i], flat[j])));
    while ring.len() > 3 {
        let m = ring.len();
        let corner = |i: usize| (ring[if i == 0 { m - 1 } else { i - 1 }], ring[i], ring[if i + 1 == m { 0 } else { i + 1 }]);
        // A corner repeating the next one, or the tip of a spike (out and back along one
        // edge), encloses nothing: drop it first.
        if !convex {
            if let Some(i) = (0..m).find(|&i| {
                let (a, b, c) = corner(i);
                near(p(b), p(c)) || near(p(a), p(c))
            }) {
                ring.remove(i);
                continue;
            }
        }
        let ear = (0..m).find(|&i| {
            let (a, b, c) = corner(i);
            let (pa, pb, pc) = (p(a), p(b), p(c));
            cross2(pa, pb, pc) > eps
                && (convex
                    || !ring.iter().any(|&j| {
                        let q = p(j);
                        j != a
                            && j != b
                            && j != c
                            && q != pa
                            && q != pb
                            && q != pc
                            && cross2(pa, pb, q) > eps
                            && cross2(pb, pc, q) > eps
                            && cross2(pc, pa, q) > eps
                    }))
        });
        match ear {
            Some(i) => {
                let (a, b, c) = corner(i);
                emit([a, b, c]);
                ring.remove(i);
            }
            None => {
                // No ear: drop a corner without area (collinear), or give up on what is left
                // (a self-touching remnant; its triangles would fold).
                match (0..m).find(|&i| {
                    let (a, b, c) = corner(i);
                    cross2(p(a), p(b), p(c)).abs() <= eps
                }) {
                    Some(i) => {
                        ring.remove(i);
                    }
                    None => {
                        fan(ring, emit);
                        return convex;
                    }
                }
            }
        }
    }
    if ring.len() == 3 && cross2(p(ring[0]), p(ring[1]), p(ring[2])) > eps {
        emit([ring[0], ring[1], ring[2]]);
    }
    convex
}

/// A xorshift64 generator: the tests' reproducible noise.
#[cfg(test)]
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[cfg(test)]
fn sub(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
    [a[0] as f64 - b[0] as f64, a[1] as f64 - b[1] as f64, a[2] as f64 - b[2] as f64]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn len(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// A texture size to divide UVs by: by multiplying with its reciprocal where that is exact
/// (powers of two), else by dividing.
#[derive(Clone, Copy)]
enum Divisor {
    Reciprocal(f64),
    Exact(f64),
}

impl Divisor {
    fn apply(self, x: f64) -> f64 {
        match self {
            Divisor::Reciprocal(r) => x * r,
            Divisor::Exact(d) => x / d,
        }
    }
}

/// The corners of face `f` in stored order, into `out`.
fn corners_of<L: Layout>(t: &Tables<L>, f: &L::Face, out: &mut Vec<[f32; 3]>) -> std::result::Result<(), String> {
    out.clear();
    let (first, count) = f.edges();
    let list = usize::try_from(first)
        .ok()
        .zip(usize::try_from(count).ok())
        .and_then(|(a, n)| t.surfedges.get(a..a.checked_add(n)?))
        .ok_or_else(|| format!("surfedges {first}+{count} are outside 0..{}", t.surfedges.len()))?;
    // Per corner: written with `match` and the three coordinates spelled out (not `ok`,
    // `and_then`, `array::map`, `iter().all`), since each adaptor is a call per corner in the
    // unoptimised test builds; the same lookups and checks.
    for se in list {
        let se = se.get() as i64;
        let e = match usize::try_from(se.unsigned_abs()) {
            Ok(e) => t.edges.get(e),
            Err(_) => None,
        };
        let Some(e) = e else {
            return Err(format!("surfedge {se} names no edge (count {})", t.edges.len()));
        };
        let v = e.v(usize::from(se < 0));
        let p = match usize::try_from(v) {
            Ok(v) => t.vertices.get(v),
            Err(_) => None,
        };
        let Some(p) = p else {
            return Err(format!("edge {} names vertex {v}, outside 0..{}", se.unsigned_abs(), t.vertices.len()));
        };
        let [x, y, z] = &p.point;
        let p = [x.get(), y.get(), z.get()];
        if !(p[0].is_finite() && p[1].is_finite() && p[2].is_finite()) {
            return Err(format!("vertex {v} is not finite"));
        }
        out.push(p);
    }
    Ok(())
}

/// Mesh face `fi` into `model`; `Err(reason)` when it cannot be.
#[allow(clippy::too_many_arguments)]
fn face<L: Layout>(
    t: &Tables<L>,
    fi: usize,
    face_lump: u16,
    opts: &MeshOptions,
    mats: &mut Materials,
    scene: &mut Scene,
    model: &mut Model,
    corners: &mut Vec<[f32; 3]>,
    scratch: &mut Scratch,
    budget: &mut SceneBudget,
) -> std::result::Result<(), String> {
    let f = &t.faces[fi];
    let plane = usize::try_from(f.plane())
        .ok()
        .and_then(|p| t.planes.get(p))
        .ok_or_else(|| format!("plane {} is outside 0..{}", f.plane(), t.planes.len()))?;
    let ti = usize::try_from(f.texinfo())
        .ok()
        .and_then(|i| t.texinfo.get(i))
        .ok_or_else(|| format!("texinfo {} is outside 0..{}", f.texinfo(), t.texinfo.len()))?;
    corners_of(t, f, corners)?;
    if corners.len() < 3 {
        return Err(format!("{} corners (at least 3 needed)", corners.len()));
    }
    let newell = newell(corners.iter().map(|c| [c[0] as f64, c[1] as f64, c[2] as f64]));
    let mut normal = plane.normal.map(|c| c.get() as f64);
    if f.side() != 0 {
        normal = normal.map(|c| -c);
    }
    let nl = len(normal);
    if !(nl.is_finite() && nl > 1e-6) {
        return Err(format!("plane {} has no usable normal", f.plane()));
    }
    let normal = normal.map(|c| c / nl);
    let area = len(newell) / 2.0;
    if !(area.is_finite() && area > 1e-6) {
        return Err("the polygon has no area".into());
    }
    let vecs = ti.vecs.map(|r| r.map(|v| v.get() as f64));
    if !vecs.iter().flatten().all(|v| v.is_finite()) {
        return Err(format!("texinfo {} has non-finite texture vectors", f.texinfo()));
    }
    // At most a fan's triangles; taken before anything is pushed.
    budget.take(corners.len(), corners.len() - 2)?;
    let (material, size) = mats.get(ti.miptex.get() as i64, scene);
    let flags = scene.materials[material as usize].flags;
    let lm = opts.lightmaps.and_then(|lm| lm.face(face_lump, fi as u32).map(|e| (lm, e)));
    let base = model.vertices.positions.len() as u32;
    let n32 = normal.map(|c| c as f32);
    // Texture sizes are powers of two but for odd custom textures: multiplying by the exact
    // reciprocal gives the quotient bit for bit, without a division per coordinate.
    // (Decided once per face, not per coordinate.)
    let divisor = size.map(|n| if n.is_power_of_two() { Divisor::Reciprocal(1.0 / n as f64) } else { Divisor::Exact(n as f64) });
    let v = &mut model.vertices;
    // Per corner, no `array::map` (a call per coordinate unoptimised): the same arithmetic.
    let (vs, vt) = ([vecs[0][0], vecs[0][1], vecs[0][2]], [vecs[1][0], vecs[1][1], vecs[1][2]]);
    for p in corners.iter() {
        let pd = [p[0] as f64, p[1] as f64, p[2] as f64];
        let s = dot(pd, vs) + vecs[0][3];
        let tt = dot(pd, vt) + vecs[1][3];
        v.positions.push(*p);
        v.normals.push(n32);
        v.uv0.push([divisor[0].apply(s) as f32, divisor[1].apply(tt) as f32]);
        if opts.lightmaps.is_some() {
            let uv = lm.and_then(|(lm, e)| lm.uv(e, *p)).filter(|uv| uv.iter().all(|c| c.is_finite()));
            v.uv1.push(uv.unwrap_or([0.0, 0.0]));
        }
    }
    let first_index = model.indices.len() as u32;
    triangulate(corners, normal, newell, scratch, &mut |t| model.indices.extend_from_slice(&[base + t[0], base + t[1], base + t[2]]));
    if model.indices.len() as u32 == first_index {
        // Not reachable for a polygon with area, but keep the buffers consistent.
        let v = &mut model.vertices;
        v.positions.truncate(base as usize);
        v.normals.truncate(base as usize);
        v.uv0.truncate(base as usize);
        v.uv1.truncate(base as usize);
        return Err("every triangle of the polygon has no area".into());
    }
    if opts.lightmaps.is_some() {
        model.lightmap_pages.push(lm.map_or(u32::MAX, |(_, e)| e.page));
    }
    model.surfaces.push(Surface {
        lump: face_lump,
        index: fi as u32,
        material,
        flags,
        kind: SurfaceKind::Polygon,
        vertex_kind: None,
        vertices: base..model.vertices.positions.len() as u32,
        indices: first_index..model.indices.len() as u32,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::quake1::lumps::{BSP2, BSP2PSB, HEXEN2, LUMP_FACES, QUAKE1};

    #[test]
    fn names_give_flags() {
        assert_eq!(flags_of("sky4"), SurfaceFlags::SKY);
        assert_eq!(flags_of("*water0"), SurfaceFlags::WATER);
        assert_eq!(flags_of("!toxic"), SurfaceFlags::WATER);
        assert_eq!(flags_of("AAATRIGGER"), SurfaceFlags::TRIGGER);
        assert_eq!(flags_of("clip"), SurfaceFlags::CLIP);
        assert_eq!(flags_of("{fence"), SurfaceFlags::ALPHA_TEST);
        assert_eq!(flags_of("hint"), SurfaceFlags::TOOL);
        assert_eq!(flags_of("null"), SurfaceFlags::NODRAW);
        assert_eq!(flags_of("city4_2"), SurfaceFlags::NONE);
    }

    /// The box room: six walls, two triangles each, facing into the room, UVs in texture widths.
    #[test]
    fn room_meshes_with_every_record_set() {
        for branch in [&QUAKE1, &HEXEN2, &BSP2, &BSP2PSB, &crate::branches::goldsrc::lumps::GOLDSRC] {
            let bytes = crate::branches::quake1::room::box_room(branch);
            let bsp = Bsp::from_bytes(&bytes).unwrap();
            let lm = crate::lightmap::build(&bsp, &Default::default()).unwrap();
            let scene = build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
            assert!(scene.skipped.is_empty(), "{:?}", scene.skipped);
            let w = &scene.models[0];
            assert_eq!(w.surfaces.len(), 6, "{}", branch.id);
            assert_eq!(w.indices.len(), 36);
            assert_eq!(w.vertices.uv1.len(), w.vertices.len());
            assert!(w.lightmap_pages.iter().all(|&p| p == 0));
            for s in &w.surfaces {
                let tri: [u32; 3] = w.indices[s.indices.start as usize..s.indices.start as usize + 3].try_into().unwrap();
                let p = tri.map(|i| w.vertices.positions[i as usize]);
                let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
                let nn = w.vertices.normals[tri[0] as usize].map(|c| c as f64);
                assert!(dot(n, nn) > 0.0, "counter-clockwise from the front");
                // Facing into the room: the normal points from the wall towards the centre.
                assert!(dot(nn, p[0].map(|c| -c as f64)) > 0.0);
            }
        }
    }

    /// The convex shortcut gives ear clipping's triangles: convex polygons of 3–12 corners on
    /// tilted planes, some with corners splitting their edges (as compilers leave them), some
    /// snapped to a coarse grid (slightly concave), either winding.
    #[test]
    fn convex_shortcut_matches_ear_clipping() {
        let mut bits = xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = move || (bits() >> 11) as f64 / (1u64 << 53) as f64;
        let (mut shortcut_taken, mut polygons, mut scratch) = (0, 0, Scratch::default());
        for case in 0..3000 {
            let n = 3 + (next() * 10.0) as usize;
            // Sorted angles around an ellipse: a convex polygon.
            let mut angles: Vec<f64> = (0..n).map(|_| next() * std::f64::consts::TAU).collect();
            angles.sort_by(f64::total_cmp);
            let (rx, ry) = (8.0 + next() * 500.0, 8.0 + next() * 500.0);
            let mut flat: Vec<[f64; 2]> = angles.iter().map(|a| [rx * a.cos(), ry * a.sin()]).collect();
            if case % 3 == 0 {
                // Split some edges with a corner at their middle.
                flat = flat
                    .iter()
                    .enumerate()
                    .flat_map(|(i, &a)| {
                        let b = flat[(i + 1) % n];
                        let split = next() < 0.5;
                        std::iter::once(a).chain(split.then_some([(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0]))
                    })
                    .collect();
            }
            if case % 5 == 0 {
                flat.iter_mut().for_each(|q| *q = q.map(|c| (c / 16.0).round() * 16.0));
            }
            if case % 2 == 0 {
                flat.reverse();
            }
            // On a tilted plane through an offset.
            let normal = {
                let v = [next() - 0.5, next() - 0.5, next() + 0.2];
                let l = len(v);
                v.map(|c| c / l)
            };
            let e1 = {
                let c = cross([1.0, 0.0, 0.0], normal);
                let l = len(c);
                c.map(|x| x / l)
            };
            let e2 = cross(normal, e1);
            let corners: Vec<[f32; 3]> =
                flat.iter().map(|q| std::array::from_fn(|k| (100.0 + q[0] * e1[k] + q[1] * e2[k]) as f32)).collect();
            let run = |shortcut: bool, scratch: &mut Scratch| {
                let mut out = Vec::new();
                let took = cut(&corners, normal, scratch, &mut |t| out.push(t), shortcut);
                (out, took)
            };
            let (general, _) = run(false, &mut scratch);
            let (fast, took) = run(true, &mut scratch);
            assert_eq!(fast, general, "case {case}: {corners:?}");
            let mut front = Vec::new();
            triangulate(&corners, normal, newell(corners.iter().map(|c| c.map(f64::from))), &mut scratch, &mut |t| front.push(t));
            assert_eq!(front, general, "case {case}: {corners:?}");
            // Triangles need neither search, so only larger polygons take the shortcut.
            if corners.len() > 3 {
                polygons += 1;
                shortcut_taken += usize::from(took);
            }
        }
        assert!(shortcut_taken * 3 > polygons * 2, "the shortcut served {shortcut_taken} of {polygons} polygons");
        // Triangles from wide to slivers around `cut`'s tolerance, both windings: `triangulate`
        // decides them without `cut` and must agree with it.
        let (mut slivers, mut wide) = (0, 0);
        for case in 0..3000 {
            // Two corners on an axis, the third off it by a spread of powers of ten (exact in
            // f32 next to zero, so slivers below the tolerance occur), axes permuted.
            let axis = case % 3;
            let put = |p: [f64; 3]| -> [f32; 3] { std::array::from_fn(|k| p[(k + axis) % 3] as f32) };
            let a = put([-1.0 - next() * 500.0, 0.0, 0.0]);
            let b = put([1.0 + next() * 500.0, 0.0, 0.0]);
            let off = 10f64.powf(-9.0 + next() * 10.0) * if next() < 0.5 { -1.0 } else { 1.0 };
            let c = put([next() * 400.0 - 200.0, off, off * (next() - 0.5)]);
            let corners = if case % 2 == 0 { vec![a, b, c] } else { vec![c, b, a] };
            let n = newell(corners.iter().map(|c| c.map(f64::from)));
            if len(n) <= 0.0 {
                continue;
            }
            // The plane's normal either way (a face's `side`).
            let normal = n.map(|x| x / len(n) * if case % 4 < 2 { 1.0 } else { -1.0 });
            let mut general = Vec::new();
            cut(&corners, normal, &mut scratch, &mut |t| general.push(t), false);
            let mut front = Vec::new();
            triangulate(&corners, normal, n, &mut scratch, &mut |t| front.push(t));
            assert_eq!(front, general, "triangle {case}: {corners:?}");
            if general.is_empty() {
                slivers += 1;
            } else {
                wide += 1;
            }
        }
        assert!(slivers > 100 && wide > 1000, "{slivers} slivers, {wide} kept");
    }

    #[test]
    fn broken_faces_are_skipped_not_fatal() {
        let mut bytes = crate::branches::quake1::room::box_room(&QUAKE1);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let e = bsp.entry(LUMP_FACES).unwrap().clone();
        drop(bsp);
        // Face 2's first edge far outside the surfedges.
        let at = e.offset as usize + 2 * 20 + 4;
        bytes[at..at + 4].copy_from_slice(&1_000_000i32.to_le_bytes());
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let scene = build(&bsp, &MeshOptions::default()).unwrap();
        assert_eq!(scene.skipped.len(), 1);
        assert_eq!((scene.skipped[0].lump, scene.skipped[0].index), (LUMP_FACES as u16, 2));
        assert_eq!(scene.models[0].surfaces.len(), 5);
    }
}

/// Garbled rooms of every record set: the build returns a scene or an error, never panics, and
/// every index it writes is in range.
#[cfg(test)]
mod garble_tests {
    use super::*;
    use crate::branches::quake1::lumps::{BSP2, BSP2PSB, HEXEN2, QUAKE1};

    #[test]
    fn garbled_maps_never_panic() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for branch in [&QUAKE1, &HEXEN2, &BSP2, &BSP2PSB, &crate::branches::goldsrc::lumps::GOLDSRC] {
            let clean = crate::branches::quake1::room::box_room(branch);
            for _ in 0..300 {
                let mut bytes = clean.clone();
                for _ in 0..1 + next() % 8 {
                    let at = (next() % bytes.len() as u64) as usize;
                    bytes[at] = next() as u8;
                }
                let Ok(bsp) = Bsp::from_bytes(&bytes) else { continue };
                let lm = crate::lightmap::build(&bsp, &Default::default()).ok();
                if let Ok(scene) = build(&bsp, &MeshOptions { lightmaps: lm.as_ref(), ..Default::default() }) {
                    for m in &scene.models {
                        assert!(m.indices.iter().all(|&i| (i as usize) < m.vertices.len()));
                        assert!(m.vertices.uv0.iter().flatten().all(|c| c.is_finite()) || m.vertices.uv0.is_empty());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod placement_tests {
    use crate::lumps::entities;
    use crate::mesh::scene::{brush_model_placements, parse_vec3};

    #[test]
    fn entities_place_brush_models() {
        let text = br#"{ "classname" "worldspawn" }
{ "classname" "func_door" "targetname" "d1" "model" "*2" "origin" "1 2 3" "angles" "0 90 0" "angle" "-1" }
{ "classname" "func_wall" "model" "*2" "origin" "9 9 9" }
{ "classname" "func_plat" "model" "*5" "origin" "bogus" }
{ "classname" "misc_model" "model" "progs/x.mdl" }"#;
        let ents = entities::parse(text).unwrap();
        let p = brush_model_placements(&ents);
        // The world (model 0, the first worldspawn) and the two brush models.
        assert_eq!(p.len(), 3);
        assert_eq!((p[&0].entity, p[&0].name.as_str()), (0, "world"));
        let d = &p[&2];
        assert_eq!((d.entity, d.name.as_str(), d.origin, d.angles), (1, "*2 func_door d1", [1.0, 2.0, 3.0], [0.0, 90.0, 0.0]));
        assert_eq!((p[&5].origin, p[&5].name.as_str()), ([0.0; 3], "*5 func_plat"));
        assert_eq!(parse_vec3("1 2"), None);
        assert_eq!(parse_vec3("1 2 nan"), None);
    }
}
