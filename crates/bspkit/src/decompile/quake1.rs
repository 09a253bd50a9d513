//! Quake 1, Hexen II, BSP2 / 2PSB and GoldSrc: maps without a brush lump. Brushes are rebuilt
//! from each model's hull-0 tree (`decompile/tree.rs`): every leaf that is not empty (solid, sky,
//! liquids) is a convex region bounded by the node planes on its path and the model's bounds,
//! regions are merged while their union stays convex, and each side takes the texture of the
//! drawn face on its plane that it overlaps most (texinfo axes written as Valve 220 axes, or in
//! the standard form for Quake on request). Where ericw-tools wrote the BSPX `BRUSHLIST` lump
//! (`-wrbrushes`), a model's brushes are read from it instead: the compiler's own brushes,
//! before CSG, with their contents.
//!
//! Sides no drawn face lies on (inside solid, or at the model's bounds) get the families' tool
//! texture that removes a face (`skip` for ericw-tools, `NULL` for the GoldSrc compilers). A
//! brush entity with an `origin` key gets its origin brush back (`origin` / `ORIGIN`).

use std::collections::HashMap;

use serde::Serialize;

use super::clip::{self, HullBox};
use super::geom::{self, Plane};
use super::mapfile::{MapEntity, MapPrimitive, MapSide, TexProjection};
use super::original::{BrushFrom, Budget, OrigBrush, OrigFace, OrigSide, Original, TexTruth};
use super::quake;
use super::tree::{self, Face, Origin, Region};
use super::treewalk::{self, TreeSource, MAX_DEPTH};
use crate::branch::Family;
use crate::branches::quake1::records::{
    Child, ClipChild, ClipNodeRecord as _, EdgeRecord as _, FaceRecord as _, Layout, LeafRecord as _, ModelRecord as _, NodeRecord as _,
    CONTENTS_MIN,
};
use crate::branches::quake1::view::View;
use crate::bsp::Bsp;
use crate::error::{Error, Result};

/// Leaf contents (quake_family.md B.12).
const CONTENTS_EMPTY: i32 = -1;
const CONTENTS_SOLID: i32 = -2;
const CONTENTS_WATER: i32 = -3;
const CONTENTS_SLIME: i32 = -4;
const CONTENTS_LAVA: i32 = -5;
const CONTENTS_SKY: i32 = -6;
/// ericw-tools' BRUSHLIST contents for a clip brush (its `CONTENTS_CLIP`, not a leaf value).
const BRUSHLIST_CLIP: i32 = -8;

/// The region starts as the model's bounds grown by this much, so a node plane on the bounds
/// still cuts a closed region (id's qbsp stores brush models' bounds shrunk by one unit).
const BOUNDS_MARGIN: f64 = 8.0;
/// Merge work allowed per region (face pairs compared, planes clipped), beyond a fixed floor.
const MERGE_WORK_PER_REGION: u64 = 20_000;
/// Clip-brush work allowed per hull-1 region (planes clipped while carving), beyond a floor.
const CLIP_WORK_PER_REGION: u64 = 200_000;

/// The box clip hull `hull` grows brushes by: the hull's player box mirrored (a point `x` of the
/// hull is solid when the player box at `x` meets a brush, so hull = brushes ⊕ −box). Player
/// boxes: Quake's qbsp and ericw-tools hull 1 (−16 −16 −24, 16 16 32) and hull 2 (−32 −32 −24,
/// 32 32 64; ericw-tools grows by (−32 −32 −64, 32 32 24)); Hexen II hull 1 (−16 −16 −32, 16 16
/// 24, ericw-tools' Hexen II game definition; its hulls 2–5 are not read); GoldSrc's standing
/// (−16 −16 −36, 16 16 36), large (−32 −32 −32, 32 32 32) and crouching (−16 −16 −18, 16 16 18)
/// player. `None` where the hull is not read (Quake's hull 3 is unused).
fn hull_box(bsp: &Bsp, hull: usize) -> Option<HullBox> {
    let (mins, maxs) = match (bsp.family(), bsp.branch().id, hull) {
        (Family::GoldSrc, _, 1) => ([-16.0, -16.0, -36.0], [16.0, 16.0, 36.0]),
        (Family::GoldSrc, _, 2) => ([-32.0, -32.0, -32.0], [32.0, 32.0, 32.0]),
        (Family::GoldSrc, _, 3) => ([-16.0, -16.0, -18.0], [16.0, 16.0, 18.0]),
        (_, "hexen2", 1) => ([-16.0, -16.0, -32.0], [16.0, 16.0, 24.0]),
        (_, "hexen2", _) => return None,
        (_, _, 1) => ([-16.0, -16.0, -24.0], [16.0, 16.0, 32.0]),
        (_, _, 2) => ([-32.0, -32.0, -24.0], [32.0, 32.0, 64.0]),
        _ => return None,
    };
    Some(HullBox { mins, maxs }.reflected())
}

/// Clip hulls read at most (GoldSrc's 1–3).
const MAX_HULLS: usize = 3;

/// One clip hull's measured coverage (`quality.tree.hulls`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct HullCoverage {
    pub hull: usize,
    /// The hull's solid volume (cubic units, inside the models' bounds grown by its box).
    pub volume: f64,
    /// Percent of it the decompiled hull-0 brushes and the clip brushes of the lower hulls,
    /// grown by the hull's box, cover; and with this hull's own clip brushes too.
    pub covered_before: f64,
    pub covered: f64,
    /// Clip brushes this hull added.
    pub clip_brushes: usize,
}

/// What the tree rebuild measured and did (`quality.tree` in the report).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TreeQuality {
    /// `tree` (rebuilt from hull 0) or `brushlist` (every model from the BSPX lump), or `mixed`.
    pub source: &'static str,
    /// Convex regions (non-empty leaves, slivers left out) before merging.
    pub regions: usize,
    /// Cuts made where a region's side spans drawn faces of different textures.
    pub texture_cuts: usize,
    /// Brushes after merging (brush-list brushes and origin brushes not included).
    pub merged_brushes: usize,
    pub merge_tries: u64,
    /// The merge work allowance ran out (the rest stayed unmerged).
    pub merge_stopped: bool,
    /// Regions under the sliver volume, left out (their volume is in `leaf_volume`).
    pub slivers_dropped: usize,
    /// Volume of the non-empty leaves, clipped to the models' bounds (cubic units).
    pub leaf_volume: f64,
    /// Volume of the decompiled tree brushes, read back from the written text.
    pub volume: f64,
    /// `|volume − leaf_volume| / leaf_volume` in percent (`null` for brush lists, whose brushes
    /// overlap before CSG).
    pub volume_error: Option<f64>,
    /// Drawn faces compared for texture: the side covering each most has its name and axes.
    pub faces: usize,
    pub faces_same_texture: usize,
    /// Percent of drawn faces whose covering side has the same texture name and axes.
    pub face_texture_fidelity: Option<f64>,
    /// Sides written with the tool texture (no drawn face on them).
    pub tool_sides: usize,
    /// Clip brushes recovered from clip hull 1 (solid there, not in hull 0); Genesis3D: the
    /// brushes of leaves with the clip contents bit.
    pub clip_brushes: usize,
    /// Hull 1's solid volume (cubic units, inside the models' bounds grown by the hull), and the
    /// percent of it the decompiled hull-0 brushes grown by the hull cover, without and with the
    /// clip brushes (`null` without a hull 1 or for brush lists).
    pub hull1_volume: f64,
    pub hull1_covered_without_clip: Option<f64>,
    pub hull1_covered: Option<f64>,
    /// The clip work allowance ran out for a model (its clip brushes are left out).
    pub clip_stopped: bool,
    /// Every clip hull read (hull 1, then 2 and GoldSrc's 3): volume and coverage before and
    /// after its clip brushes.
    pub hulls: Vec<HullCoverage>,
    /// Texture names given a prefix so the compiler gives a liquid or sky region its contents
    /// back: the compilers take a brush's contents from its texture names, and a map stored
    /// without names (`miptexN`) or with a name that does not say it (a sky drawn with `black`)
    /// would come back solid.
    pub contents_names: Vec<ContentsName>,
    /// Drawn faces counted in `faces_same_texture` whose covering side has such a name: the
    /// original name after the added prefix (and the same axes).
    pub faces_renamed_for_contents: usize,
}

/// One texture name changed for its region's contents (`quality.tree.contents_names`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ContentsName {
    /// The name the map gives (or `miptexN` without names) and the name written.
    pub original: String,
    pub written: String,
    /// `water`, `slime`, `lava` or `sky`: the contents of the leaves the sides bound.
    pub contents: &'static str,
    /// Brush sides written with it (before merging).
    pub sides: usize,
}

/// The contents a compiler gives a brush textured `name` (`-2` solid): Quake's qbsp and
/// ericw-tools `*` liquids (`*lava…`, `*slime…`, else water) and `sky…`; the GoldSrc compilers
/// `!` (or `*`) liquids the same way, and `sky…`.
fn contents_of_name(name: &str, goldsrc: bool) -> i32 {
    let l = name.to_ascii_lowercase();
    if l.starts_with("sky") {
        return CONTENTS_SKY;
    }
    let Some(rest) = l.strip_prefix('*').or_else(|| l.strip_prefix('!').filter(|_| goldsrc)) else { return CONTENTS_SOLID };
    if rest.starts_with("lava") {
        CONTENTS_LAVA
    } else if rest.starts_with("slime") {
        CONTENTS_SLIME
    } else {
        CONTENTS_WATER
    }
}

/// `name` with the shortest prefix that makes it imply contents `c` (water, slime, lava or
/// sky), or `None` when it already does or `c` is none of those.
fn name_for_contents(name: &str, c: i32, goldsrc: bool) -> Option<String> {
    if contents_of_name(name, goldsrc) == c {
        return None;
    }
    let liquid = if goldsrc { '!' } else { '*' };
    let prefixes: Vec<String> = match c {
        CONTENTS_WATER => vec![liquid.to_string(), format!("{liquid}water_")],
        CONTENTS_SLIME => vec![format!("{liquid}slime_")],
        CONTENTS_LAVA => vec![format!("{liquid}lava_")],
        CONTENTS_SKY => vec!["sky_".to_string()],
        _ => return None,
    };
    prefixes.iter().map(|p| format!("{p}{name}")).find(|n| contents_of_name(n, goldsrc) == c)
}

fn contents_word(c: i32) -> &'static str {
    match c {
        CONTENTS_WATER => "water",
        CONTENTS_SLIME => "slime",
        CONTENTS_LAVA => "lava",
        CONTENTS_SKY => "sky",
        _ => "other",
    }
}

/// Texture projection of the written Quake 1 sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuakeFormat {
    /// Valve 220 axes (`[ ux uy uz off ] [ vx vy vz off ] rot sx sy`): any texinfo exactly.
    #[default]
    Valve220,
    /// The standard id form (`xoff yoff rot sx sy` on the plane's nearest axis): texinfo that
    /// is not an axis projection comes back approximated (counted in the quality).
    Standard,
}

/// One drawn face of a model, in model space.
pub(super) struct DrawFace {
    /// Facing out of the region it belongs to.
    pub plane: Plane,
    pub polygon: Vec<[f64; 3]>,
    pub bounds: ([f64; 3], [f64; 3]),
    pub tex: u32,
}

impl DrawFace {
    /// The face on `plane` (its stored side) through `pts`, turned to face out of the region it
    /// bounds: a face seen from inside a see-through region (a liquid's surface, drawn from both
    /// sides; a window) bounds that region on its other side, so where the point just behind its
    /// centre is empty and the point just in front is not, it is flipped. `empty_at` answers
    /// "is this point in empty space" (`None`: outside the tree), counting its steps.
    pub(super) fn facing_out(
        mut plane: Plane,
        pts: &[[f64; 3]],
        tex: u32,
        mut empty_at: impl FnMut([f64; 3], &mut u64) -> Option<bool>,
        budget: &mut Budget,
    ) -> Result<DrawFace> {
        let n = pts.len() as f64;
        let c = pts.iter().fold([0.0; 3], |a, p| geom::add(a, *p)).map(|x| x / n);
        let mut steps = 0;
        let behind = empty_at(geom::sub(c, geom::scale(plane.normal, 0.1)), &mut steps);
        let front = empty_at(geom::add(c, geom::scale(plane.normal, 0.1)), &mut steps);
        budget.spend(steps)?;
        if behind == Some(true) && front == Some(false) {
            plane = plane.flipped();
        }
        let polygon = pts.to_vec();
        let bounds = tree::point_bounds(polygon.iter());
        Ok(DrawFace { plane, polygon, bounds, tex })
    }

    /// The faces' indices by quantised plane, for the side-to-face lookups.
    pub(super) fn by_plane(draw: &[DrawFace]) -> HashMap<tree::PlaneKey, Vec<usize>> {
        let mut by_plane: HashMap<tree::PlaneKey, Vec<usize>> = HashMap::new();
        for (i, d) in draw.iter().enumerate() {
            by_plane.entry(tree::key(&d.plane)).or_default().push(i);
        }
        by_plane
    }
}

/// The texture table: texinfo entries first, then names without texinfo (tool and fallback).
struct Textures {
    names: Vec<String>,
    rows: Vec<Option<[[f64; 4]; 2]>>,
    /// Entries below this are texinfo.
    texinfo: usize,
}

impl Textures {
    fn named(&mut self, name: &str) -> u32 {
        if let Some(i) = self.names[self.texinfo..].iter().position(|n| n == name) {
            return (self.texinfo + i) as u32;
        }
        self.names.push(name.to_string());
        self.rows.push(None);
        (self.names.len() - 1) as u32
    }

    /// Entry `t` under another name, with its axes.
    fn renamed(&mut self, t: u32, name: String) -> u32 {
        self.rows.push(self.rows[t as usize]);
        self.names.push(name);
        (self.names.len() - 1) as u32
    }
}

/// What the extractor gives besides [`Original`].
pub(super) struct Extracted {
    pub orig: Original,
    pub tree: TreeQuality,
    /// Per model: its entity, and the output brushes (entity primitive indices) rebuilt from
    /// the tree, whose volume is compared with `leaf_volume` per model.
    pub tree_brushes: Vec<(usize, usize)>,
    pub model_volumes: Vec<(usize, f64)>,
    /// Per face in `orig.faces`: the texinfo rows it was drawn with.
    pub face_rows: Vec<Option<[[f64; 4]; 2]>>,
    pub format: QuakeFormat,
    /// Names written for a region's contents → the map's name they were made from.
    pub renamed: HashMap<String, String>,
}

/// The plane if it is one: finite, of unit normal and within the map's range (`None`: a garbled
/// record).
pub(super) fn finite(p: Plane) -> Option<Plane> {
    let ok = p.normal.iter().all(|c| c.is_finite()) && (geom::length(p.normal) - 1.0).abs() < 1e-3 && p.dist.abs() < 1e6;
    ok.then_some(p)
}

fn shifted(p: Plane, off: [f64; 3]) -> Plane {
    Plane { normal: p.normal, dist: p.dist + geom::dot(p.normal, off) }
}

/// Quake's texture base axes for a plane (qbsp's axis table: floor, ceiling, and the four
/// walls; the first axis with the largest dot product wins).
fn base_axes(normal: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    const TABLE: [([f64; 3], [f64; 3], [f64; 3]); 6] = [
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        ([0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
        ([-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
    ];
    let mut best = 0;
    let mut best_dot = f64::NEG_INFINITY;
    for (i, t) in TABLE.iter().enumerate() {
        let d = geom::dot(normal, t.0);
        if d > best_dot {
            best_dot = d;
            best = i;
        }
    }
    (TABLE[best].1, TABLE[best].2)
}

fn nonzero_axis(v: [f64; 3]) -> usize {
    (0..3).find(|&k| v[k] != 0.0).unwrap_or(0)
}

/// Sine and cosine of `deg` degrees, exact at the right angles (as qbsp computes them).
fn sin_cos(deg: f64) -> (f64, f64) {
    [(0.0, (0.0, 1.0)), (90.0, (1.0, 0.0)), (180.0, (0.0, -1.0)), (270.0, (-1.0, 0.0))]
        .iter()
        .find(|(d, _)| *d == deg)
        .map_or_else(|| deg.to_radians().sin_cos(), |(_, sc)| *sc)
}

/// Texinfo rows of a standard-form side on a plane with `normal`.
pub(super) fn vecs_from_standard(p: &TexProjection, normal: [f64; 3]) -> Option<[[f64; 4]; 2]> {
    let TexProjection::Standard { offset, rotation, scale } = p else { return None };
    let (xv, yv) = base_axes(normal);
    let (sv, tv) = (nonzero_axis(xv), nonzero_axis(yv));
    let (sin, cos) = sin_cos(*rotation);
    let mut vecs = [xv, yv];
    for v in vecs.iter_mut() {
        let (ns, nt) = (cos * v[sv] - sin * v[tv], sin * v[sv] + cos * v[tv]);
        v[sv] = ns;
        v[tv] = nt;
    }
    let sc = scale.map(|s| if s == 0.0 { 1.0 } else { s });
    Some([
        [vecs[0][0] / sc[0], vecs[0][1] / sc[0], vecs[0][2] / sc[0], offset[0]],
        [vecs[1][0] / sc[1], vecs[1][1] / sc[1], vecs[1][2] / sc[1], offset[1]],
    ])
}

fn rows_close(a: &[[f64; 4]; 2], b: &[[f64; 4]; 2]) -> bool {
    a.iter().flatten().zip(b.iter().flatten()).all(|(x, y)| (x - y).abs() <= 1e-4 * y.abs().max(1.0))
}

/// The standard form closest to texinfo `rows` on a plane with `normal`, and whether it gives
/// the rows back (it cannot when the axes are sheared or leave the base axes' plane).
pub(super) fn standard_from_vecs(rows: [[f64; 4]; 2], normal: [f64; 3]) -> (TexProjection, bool) {
    let (xv, yv) = base_axes(normal);
    let (sv, tv) = (nonzero_axis(xv), nonzero_axis(yv));
    let (c0, s0) = (rows[0][sv] / xv[sv], rows[0][tv] / xv[sv]);
    let (c1, s1) = (rows[1][tv] / yv[tv], -rows[1][sv] / yv[tv]);
    let (l0, l1) = (c0.hypot(s0), c1.hypot(s1));
    if !(l0 > 1e-9 && l1 > 1e-9 && l0.is_finite() && l1.is_finite()) {
        let p = TexProjection::Standard { offset: [rows[0][3], rows[1][3]], rotation: 0.0, scale: [1.0, 1.0] };
        return (p, false);
    }
    let a0 = s0.atan2(c0);
    let a1 = s1.atan2(c1);
    // The t axis may point the other way: a negative t scale.
    let turn = (a1 - a0).rem_euclid(std::f64::consts::TAU);
    let flip = (turn - std::f64::consts::PI).abs() < 1e-3;
    let mut deg = geom::snap(a0.to_degrees().rem_euclid(360.0), 1e-6);
    if deg >= 360.0 {
        deg -= 360.0;
    }
    let scale = [geom::snap(1.0 / l0, 1e-7), geom::snap(if flip { -1.0 / l1 } else { 1.0 / l1 }, 1e-7)];
    let p = TexProjection::Standard { offset: [rows[0][3], rows[1][3]], rotation: deg, scale };
    let exact = vecs_from_standard(&p, normal).is_some_and(|r| rows_close(&r, &rows));
    (p, exact)
}

/// The projection written for texinfo `rows` (or the plane's default axes without them).
fn projection(rows: Option<[[f64; 4]; 2]>, normal: [f64; 3], format: QuakeFormat) -> TexProjection {
    match (rows, format) {
        (Some(r), QuakeFormat::Valve220) => quake::valve_from_vecs(r, normal),
        (Some(r), QuakeFormat::Standard) => standard_from_vecs(r, normal).0,
        (None, QuakeFormat::Valve220) => {
            let (u, v) = base_axes(normal);
            TexProjection::Valve { u: [u[0], u[1], u[2], 0.0], v: [v[0], v[1], v[2], 0.0], rotation: 0.0, scale: [1.0, 1.0] }
        }
        (None, QuakeFormat::Standard) => TexProjection::Standard { offset: [0.0, 0.0], rotation: 0.0, scale: [1.0, 1.0] },
    }
}

/// Texinfo rows back from a written side (either form).
fn written_rows(p: &TexProjection, normal: [f64; 3]) -> Option<[[f64; 4]; 2]> {
    quake::vecs_from_valve(p).or_else(|| vecs_from_standard(p, normal))
}

/// The texture of the drawn face on `f`'s plane that overlaps `f` most, and that area, where
/// it is more than 10⁻³ square units (a side matched to its original face, §"Tree rebuild").
pub(super) fn best_drawn_texture(
    f: &Face,
    draw: &[DrawFace],
    by_plane: &HashMap<tree::PlaneKey, Vec<usize>>,
    budget: &mut Budget,
) -> Result<Option<(u32, f64)>> {
    let Some(cands) = by_plane.get(&tree::key(&f.plane)) else { return Ok(None) };
    budget.spend(cands.len() as u64)?;
    let fb = tree::bounds(std::slice::from_ref(f));
    let mut best = (0.0, None);
    for &c in cands {
        let d = &draw[c];
        if !overlaps(&fb, &d.bounds) {
            continue;
        }
        budget.spend((d.polygon.len() * f.winding.len()) as u64)?;
        let a = geom::intersect_area(&d.polygon, &f.winding, f.plane.normal);
        if a > best.0 {
            best = (a, Some(d.tex));
        }
    }
    Ok(best.1.filter(|_| best.0 > 1e-3).map(|t| (t, best.0)))
}

pub(super) fn overlaps(a: &([f64; 3], [f64; 3]), b: &([f64; 3], [f64; 3])) -> bool {
    (0..3).all(|k| a.0[k] <= b.1[k] + 0.1 && b.0[k] <= a.1[k] + 0.1)
}

/// One brush of the BSPX `BRUSHLIST` lump (ericw-tools `bspxbrushes`): bounds, contents and
/// the non-axial planes (the axial ones are the bounds).
struct ListBrush {
    mins: [f64; 3],
    maxs: [f64; 3],
    contents: i32,
    planes: Vec<Plane>,
}

/// Parse `BRUSHLIST`: per model `i32 ver (1), i32 model, i32 brushes, i32 faces`, per brush
/// `f32 mins[3], maxs[3], i16 contents, u16 faces`, per face `f32 normal[3], dist`.
fn parse_brushlist(data: &[u8]) -> std::result::Result<HashMap<usize, Vec<ListBrush>>, String> {
    let mut at = 0usize;
    let i32_at = |at: usize| data.get(at..at + 4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let f32_at = |at: usize| data.get(at..at + 4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64);
    let mut out: HashMap<usize, Vec<ListBrush>> = HashMap::new();
    while at + 16 <= data.len() {
        let (ver, model, count) = (i32_at(at).unwrap_or(0), i32_at(at + 4).unwrap_or(-1), i32_at(at + 8).unwrap_or(-1));
        if ver != 1 {
            return Err(format!("offset {at}: version {ver}, only 1 is known"));
        }
        let model = usize::try_from(model).map_err(|_| format!("offset {at}: model {model}"))?;
        let count = usize::try_from(count).map_err(|_| format!("offset {at}: {count} brushes"))?;
        at += 16;
        let list = out.entry(model).or_default();
        for b in 0..count {
            let head = data.get(at..at + 28).ok_or_else(|| format!("model {model} brush {b}: past the end of the lump"))?;
            let f = |k: usize| f32::from_le_bytes([head[4 * k], head[4 * k + 1], head[4 * k + 2], head[4 * k + 3]]) as f64;
            let mins = [f(0), f(1), f(2)];
            let maxs = [f(3), f(4), f(5)];
            let contents = i16::from_le_bytes([head[24], head[25]]) as i32;
            let faces = u16::from_le_bytes([head[26], head[27]]) as usize;
            at += 28;
            let mut planes = Vec::with_capacity(faces);
            for _ in 0..faces {
                let v: Option<Vec<f64>> = (0..4).map(|k| f32_at(at + 4 * k)).collect();
                let v = v.ok_or_else(|| format!("model {model} brush {b}: faces past the end of the lump"))?;
                at += 16;
                if let Some(p) = finite(Plane { normal: [v[0], v[1], v[2]], dist: v[3] }) {
                    planes.push(p);
                }
            }
            list.push(ListBrush { mins, maxs, contents, planes });
        }
    }
    Ok(out)
}

/// Most texture cuts made in one leaf's region (each halves a part of it).
const MAX_CUTS: usize = 64;

/// A plane that cuts region `r` between drawn faces of different textures on one of its faces:
/// perpendicular to that face through an edge of one of the drawn faces, crossing none of the
/// drawn faces' parts on the region's face, with different textures on its two sides. A leaf's
/// side often spans faces of several brushes (a floor of two brushes under one room); the
/// compiler's cut between them is such an edge.
fn find_cut(r: &Region, draw: &[DrawFace], by_plane: &HashMap<tree::PlaneKey, Vec<usize>>, budget: &mut Budget) -> Result<Option<Plane>> {
    for f in r.faces.iter().filter(|f| f.origin == Origin::Plane) {
        let Some(cands) = by_plane.get(&tree::key(&f.plane)) else { continue };
        let fb = tree::bounds(std::slice::from_ref(f));
        let mut over: Vec<(f64, usize, Vec<[f64; 3]>)> = Vec::new();
        for &c in cands {
            let d = &draw[c];
            if !overlaps(&fb, &d.bounds) {
                continue;
            }
            budget.spend((d.polygon.len() * f.winding.len()) as u64)?;
            let part = geom::intersect(&d.polygon, &f.winding, f.plane.normal);
            let a = geom::area(&part);
            if a > 1e-3 {
                over.push((a, c, part));
            }
        }
        if over.iter().all(|o| draw[o.1].tex == draw[over[0].1].tex) {
            continue;
        }
        over.sort_by(|a, b| b.0.total_cmp(&a.0));
        for &(_, c, _) in &over {
            let d = &draw[c];
            for i in 0..d.polygon.len() {
                let (a, b) = (d.polygon[i], d.polygon[(i + 1) % d.polygon.len()]);
                let Some(n) = geom::normalize(geom::cross(geom::sub(b, a), f.plane.normal)) else { continue };
                let cut = Plane { normal: n, dist: geom::dot(n, a) };
                budget.spend((over.len() * 8 + r.faces.len() * 8) as u64)?;
                let (mut lo0, mut hi0) = (f64::INFINITY, f64::NEG_INFINITY);
                for p in r.faces.iter().flat_map(|f| f.winding.iter()) {
                    let d = cut.distance(*p);
                    lo0 = lo0.min(d);
                    hi0 = hi0.max(d);
                }
                if lo0 > -0.1 || hi0 < 0.1 {
                    continue;
                }
                let mut texs: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
                let mut clean = true;
                for (_, o, part) in &over {
                    let (lo, hi) = part.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| {
                        let d = cut.distance(*p);
                        (l.min(d), h.max(d))
                    });
                    if lo < -0.01 && hi > 0.01 {
                        clean = false;
                        break;
                    }
                    let side = usize::from(hi > 0.01);
                    if !texs[side].contains(&draw[*o].tex) {
                        texs[side].push(draw[*o].tex);
                    }
                }
                texs[0].sort_unstable();
                texs[1].sort_unstable();
                if clean && !texs[0].is_empty() && !texs[1].is_empty() && texs[0] != texs[1] {
                    return Ok(Some(cut));
                }
            }
        }
    }
    Ok(None)
}

/// Cut regions whose faces span drawn faces of several textures ([`find_cut`]), so each side
/// can carry one; returns the pieces and the number of cuts.
pub(super) fn cut_by_texture(
    regions: Vec<Region>,
    draw: &[DrawFace],
    by_plane: &HashMap<tree::PlaneKey, Vec<usize>>,
    budget: &mut Budget,
) -> Result<(Vec<Region>, usize)> {
    let mut out = Vec::with_capacity(regions.len());
    let mut cuts = 0;
    for r in regions {
        let mut stack = vec![r];
        let mut made = 0;
        while let Some(r) = stack.pop() {
            if made < MAX_CUTS {
                if let Some(cut) = find_cut(&r, draw, by_plane, budget)? {
                    let mut work = 0;
                    let (back, front) = tree::split(r.faces.clone(), &cut, &mut work);
                    budget.spend(work)?;
                    if let (Some(b), Some(f)) = (back, front) {
                        made += 1;
                        stack.push(Region { faces: b, contents: r.contents });
                        stack.push(Region { faces: f, contents: r.contents });
                        continue;
                    }
                }
            }
            out.push(r);
        }
        cuts += made;
    }
    Ok((out, cuts))
}

/// Plane `pi` of the map, if it is one ([`finite`]).
fn plane_at(planes: &[crate::branches::quake1::records::Plane], pi: i64) -> Option<Plane> {
    usize::try_from(pi)
        .ok()
        .and_then(|i| planes.get(i))
        .map(|p| Plane { normal: p.normal.map(|c| c.get() as f64), dist: p.dist.get() as f64 })
        .and_then(finite)
}

/// A record index as the walk's `usize` (the layouts' children are never negative; one that
/// were would be out of range).
fn index(i: i64) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

/// A model's hull-0 tree as [`TreeSource`]; errors name the model and the nodes lump.
struct Hull0<'a, L: Layout> {
    bsp: &'a Bsp<'a>,
    nodes: &'a [L::Node],
    leaves: &'a [L::Leaf],
    planes: &'a [crate::branches::quake1::records::Plane],
    lump: usize,
    model: usize,
}

impl<L: Layout> Hull0<'_, L> {
    fn head(head: i64) -> treewalk::Child {
        if head >= 0 {
            treewalk::Child::Node(index(head))
        } else {
            treewalk::Child::Leaf(index(-(head + 1)))
        }
    }
}

impl<L: Layout> TreeSource for Hull0<'_, L> {
    fn node(&self, n: usize) -> Result<(Plane, [treewalk::Child; 2])> {
        let (m, len) = (self.model, self.nodes.len());
        let node = self
            .nodes
            .get(n)
            .ok_or_else(|| self.bsp.lump_error(self.lump, Error::malformed(format!("model {m}: node {n} is out of range 0..{len}"))))?;
        let pi = node.plane();
        let plane = plane_at(self.planes, pi).ok_or_else(|| {
            self.bsp.lump_error(self.lump, Error::malformed(format!("node {n}: plane {pi} is out of range or not a unit plane")))
        })?;
        let child = |side| match node.child(side, len) {
            Child::Node(n) => treewalk::Child::Node(index(n)),
            Child::Leaf(l) => treewalk::Child::Leaf(index(l)),
        };
        Ok((plane, [child(0), child(1)]))
    }
    fn leaf_contents(&self, l: usize) -> Result<i32> {
        let (m, len) = (self.model, self.leaves.len());
        let leaf = self
            .leaves
            .get(l)
            .ok_or_else(|| self.bsp.lump_error(self.lump, Error::malformed(format!("model {m}: leaf {l} is out of range 0..{len}"))))?;
        Ok(leaf.contents())
    }
    fn too_deep(&self, _: usize) -> Error {
        let m = self.model;
        self.bsp.lump_error(self.lump, Error::malformed(format!("model {m}: the tree is deeper than {MAX_DEPTH} nodes (a cycle?)")))
    }
}

/// A model's clip hull (clipnodes, whose leaves are contents values) as [`TreeSource`]; errors
/// name the model, the hull and the clipnodes lump.
struct ClipHull<'a, L: Layout> {
    bsp: &'a Bsp<'a>,
    clipnodes: &'a [L::ClipNode],
    planes: &'a [crate::branches::quake1::records::Plane],
    lump: usize,
    model: usize,
    hull: usize,
}

fn clip_child(c: ClipChild) -> treewalk::Child {
    match c {
        ClipChild::Node(n) => treewalk::Child::Node(index(n)),
        ClipChild::Contents(c) => treewalk::Child::Contents(c),
    }
}

impl<L: Layout> TreeSource for ClipHull<'_, L> {
    fn node(&self, n: usize) -> Result<(Plane, [treewalk::Child; 2])> {
        let (m, hull, len) = (self.model, self.hull, self.clipnodes.len());
        let node = self.clipnodes.get(n).ok_or_else(|| {
            self.bsp.lump_error(self.lump, Error::malformed(format!("model {m}: hull {hull} clipnode {n} is out of range 0..{len}")))
        })?;
        let pi = node.plane();
        let plane = plane_at(self.planes, pi).ok_or_else(|| {
            self.bsp.lump_error(self.lump, Error::malformed(format!("clipnode {n}: plane {pi} is out of range or not a unit plane")))
        })?;
        Ok((plane, [clip_child(node.child(0)), clip_child(node.child(1))]))
    }
    fn leaf_contents(&self, l: usize) -> Result<i32> {
        // Clipnode children are contents values (`Child::Contents`), never leaf records.
        Err(self.bsp.lump_error(self.lump, Error::malformed(format!("hull {}: leaf {l} asked of a clipnode tree", self.hull))))
    }
    fn too_deep(&self, _: usize) -> Error {
        let (m, hull) = (self.model, self.hull);
        self.bsp.lump_error(self.lump, Error::malformed(format!("model {m}: hull {hull} is deeper than {MAX_DEPTH} clipnodes (a cycle?)")))
    }
}

/// Leaf contents the compilers keep solid in the clip hulls (liquids are not; sky is).
fn hull1_solid(c: i32) -> bool {
    c == CONTENTS_SOLID || c == CONTENTS_SKY
}

/// Extract the entities, rebuilt brushes and drawn faces.
/// What [`extract`] is asked for (from `DecompileOptions`).
#[derive(Debug, Clone, Copy)]
pub(super) struct TreeOptions {
    pub format: QuakeFormat,
    pub use_brushlist: bool,
    /// Recover clip brushes from clip hull 1.
    pub clip_brushes: bool,
    /// The whole decompile's work budget (the merge may spend a quarter of it).
    pub budget: u64,
}

pub(super) fn extract(bsp: &Bsp, budget: &mut Budget, opts: TreeOptions) -> Result<Extracted> {
    crate::branches::quake1::lumps::with_record_set!(bsp.branch(), extract_with(bsp, budget, opts))
}

fn extract_with<L: Layout>(bsp: &Bsp, budget: &mut Budget, opts: TreeOptions) -> Result<Extracted> {
    let goldsrc = bsp.family() == Family::GoldSrc;
    let format = if goldsrc { QuakeFormat::Valve220 } else { opts.format };
    let v = View::<L>::new(bsp);
    let (planes, faces, texinfo, models) = (v.planes()?, v.faces()?, v.texinfo()?, v.models()?);
    let (surfedges, edges, vertices) = (v.surfedges()?, v.edges()?, v.vertices()?);
    let (mut entities, ent_models) = quake::entity_models(bsp)?;
    let mut orig = Original::default();
    let mut tq = TreeQuality::default();

    // Texture names by texinfo.
    let lump = match v.textures() {
        Ok(l) => Some(l),
        Err(e) => {
            orig.notes.push(format!("texture lump: {e}; names made from the miptex index"));
            None
        }
    };
    let mut tex = Textures { names: Vec::with_capacity(texinfo.len()), rows: Vec::with_capacity(texinfo.len()), texinfo: 0 };
    let mut by_miptex: HashMap<i64, String> = HashMap::new();
    for t in texinfo {
        budget.spend(1)?;
        let mt = t.miptex.get() as i64;
        let name = by_miptex
            .entry(mt)
            .or_insert_with(|| match lump.as_ref().and_then(|l| usize::try_from(mt).ok().map(|i| l.get(i))) {
                Some(Ok(Some(m))) => m.name().into_owned(),
                _ => format!("miptex{mt}"),
            })
            .clone();
        tex.names.push(name);
        tex.rows.push(Some(t.vecs.map(|r| r.map(|c| c.get() as f64))));
    }
    tex.texinfo = tex.names.len();
    let tool = tex.named(if goldsrc { "NULL" } else { "skip" });
    let fallback = |tex: &mut Textures, c: i32| -> u32 {
        let name = match (c, goldsrc) {
            (CONTENTS_WATER, false) => "*water0",
            (CONTENTS_SLIME, false) => "*slime0",
            (CONTENTS_LAVA, false) => "*lava1",
            (CONTENTS_SKY, false) => "sky1",
            (CONTENTS_SKY, true) => "sky",
            (CONTENTS_WATER | CONTENTS_SLIME | CONTENTS_LAVA, true) => "!water",
            (BRUSHLIST_CLIP, true) => "CLIP",
            (BRUSHLIST_CLIP, false) => "clip",
            (c, true) if c <= -9 => "!water",
            _ => return tool,
        };
        tex.named(name)
    };

    let brushlist = if opts.use_brushlist {
        match crate::lumps::bspx::of(bsp) {
            Ok(Some(x)) => match x.lump(bsp.data(), "BRUSHLIST").map(parse_brushlist) {
                Some(Ok(l)) => Some(l),
                Some(Err(e)) => {
                    orig.notes.push(format!("BSPX BRUSHLIST: {e}; brushes rebuilt from the tree"));
                    None
                }
                None => None,
            },
            Ok(None) => None,
            Err(e) => {
                orig.notes.push(format!("BSPX: {e}; brushes rebuilt from the tree"));
                None
            }
        }
    } else {
        None
    };

    let entity_of_model = |m: usize| ent_models.iter().position(|x| *x == Some(m));
    let mut tree_brushes = Vec::new();
    let mut model_volumes = Vec::new();
    let mut face_rows = Vec::new();
    let (mut used_tree, mut used_list) = (false, false);
    // Per clip hull: solid volume, covered without and with its clip brushes, brushes found.
    let mut hull_sums = [(0.0f64, 0.0f64, 0.0f64, 0usize); MAX_HULLS];
    let mut pts = Vec::new();
    // (texture, contents) → the entry renamed for the contents (`None`: the name implies them).
    let mut for_contents: HashMap<(u32, i32), Option<u32>> = HashMap::new();
    let mut renamed: HashMap<String, String> = HashMap::new();
    for (m, model) in models.iter().enumerate() {
        let Some(ei) = entity_of_model(m) else {
            if m > 0 {
                orig.notes.push(format!("model {m}: no entity names it; left out"));
            }
            continue;
        };
        let off = quake::model_offset(&entities[ei], m);
        let (mins, maxs) = model.bounds();
        let (mins, maxs) = (mins.map(f64::from), maxs.map(f64::from));
        if !(0..3).all(|k| mins[k].is_finite() && maxs[k].is_finite() && mins[k] <= maxs[k] && mins[k].abs() < 1e6 && maxs[k].abs() < 1e6) {
            orig.notes.push(format!("model {m}: bounds {mins:?}..{maxs:?} are not a box; left out"));
            continue;
        }
        let head = Hull0::<L>::head(model.head_nodes().first().map_or(0, |h| h.get() as i64));
        // A lump that cannot be read fails the walk below; the drawn faces' point lookups
        // before it just find no leaf.
        let hull0 =
            Hull0::<L> { bsp, nodes: v.nodes().unwrap_or(&[]), leaves: v.leaves().unwrap_or(&[]), planes, lump: v.slots().nodes, model: m };

        // Drawn faces, facing out of the region they bound.
        let (first, count) = model.faces();
        let mut draw: Vec<DrawFace> = Vec::new();
        for fi in first.max(0)..first.max(0).saturating_add(count.max(0)) {
            budget.spend(1)?;
            let Some(face) = usize::try_from(fi).ok().and_then(|f| faces.get(f)) else { break };
            pts.clear();
            let (fe, ne) = face.edges();
            let Some(list) = usize::try_from(fe).ok().zip(usize::try_from(ne).ok()).and_then(|(a, n)| surfedges.get(a..a.checked_add(n)?))
            else {
                continue;
            };
            budget.spend(list.len() as u64)?;
            for se in list {
                let se = se.get() as i64;
                let Some(p) = usize::try_from(se.unsigned_abs())
                    .ok()
                    .and_then(|e| edges.get(e))
                    .and_then(|e| usize::try_from(e.v(usize::from(se < 0))).ok())
                    .and_then(|vi| vertices.get(vi))
                else {
                    pts.clear();
                    break;
                };
                pts.push(p.point.map(|c| c.get() as f64));
            }
            if pts.len() < 3 || !pts.iter().flatten().all(|c| c.is_finite() && c.abs() < 1e6) {
                continue;
            }
            let Some(mut plane) = usize::try_from(face.plane())
                .ok()
                .and_then(|i| planes.get(i))
                .map(|p| Plane { normal: p.normal.map(|c| c.get() as f64), dist: p.dist.get() as f64 })
                .and_then(finite)
            else {
                continue;
            };
            if face.side() != 0 {
                plane = plane.flipped();
            }
            let Some(ti) = u32::try_from(face.texinfo()).ok().filter(|&t| (t as usize) < texinfo.len()) else { continue };
            // A liquid's surface is drawn from both sides (empty behind, liquid in front).
            let empty_at = |p, steps: &mut u64| treewalk::contents_at(&hull0, head, p, steps).map(|c| c == CONTENTS_EMPTY);
            draw.push(DrawFace::facing_out(plane, &pts, ti, empty_at, budget)?);
        }
        let by_plane = DrawFace::by_plane(&draw);

        // Regions: the tree's leaves (their volume is the reference either way).
        let start = tree::box_faces(mins.map(|c| c - BOUNDS_MARGIN), maxs.map(|c| c + BOUNDS_MARGIN), Origin::Bound);
        v.nodes()?;
        v.leaves()?;
        let mut bad_contents = 0usize;
        let keep = |c: i32| match c {
            CONTENTS_EMPTY => false,
            CONTENTS_MIN..=CONTENTS_SOLID => true,
            _ => {
                bad_contents += 1;
                false
            }
        };
        let walked = treewalk::walk(&hull0, head, start, keep, budget)?;
        if bad_contents > 0 {
            orig.notes.push(format!("model {m}: {bad_contents} leaves with contents outside -15..-1 left out"));
        }
        let (mut regions, leaf_volume, slivers) = (walked.regions, walked.volume, walked.slivers);
        tq.leaf_volume += leaf_volume;
        tq.slivers_dropped += slivers;
        let listed = brushlist.as_ref().and_then(|l| l.get(&m));
        if let Some(list) = listed {
            used_list = true;
            regions = list
                .iter()
                .filter_map(|b| {
                    let mut ps: Vec<(Plane, Origin, Option<u32>)> =
                        tree::box_faces(b.mins, b.maxs, Origin::Plane).iter().map(|f| (f.plane, f.origin, None)).collect();
                    ps.extend(b.planes.iter().map(|p| (*p, Origin::Plane, None)));
                    let faces = tree::from_planes(&ps);
                    (faces.len() >= 4).then_some(Region { faces, contents: b.contents })
                })
                .collect();
            budget.spend(regions.iter().map(|r| (r.faces.len() * r.faces.len()) as u64).sum())?;
        } else {
            used_tree = true;
            tq.regions += regions.len();
            let (cut, cuts) = cut_by_texture(regions, &draw, &by_plane, budget)?;
            tq.texture_cuts += cuts;
            regions = cut;
        }

        // Textures: the drawn face on each side's plane that the side overlaps most.
        for r in regions.iter_mut() {
            let mut area_by_tex: HashMap<u32, f64> = HashMap::new();
            for f in r.faces.iter_mut().filter(|f| f.origin == Origin::Plane) {
                if let Some((t, area)) = best_drawn_texture(f, &draw, &by_plane, budget)? {
                    f.tex = Some(t);
                    *area_by_tex.entry(t).or_default() += area;
                }
            }
            // Liquids, sky and clip keep their contents through their texture: every side.
            if r.contents != CONTENTS_SOLID {
                let main = area_by_tex.iter().max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0))).map(|(t, _)| *t);
                let t = main.unwrap_or_else(|| fallback(&mut tex, r.contents));
                for f in r.faces.iter_mut().filter(|f| f.tex.is_none()) {
                    f.tex = Some(t);
                }
                // A side whose name would not give the region its contents back gets the
                // name with the family's prefix (same axes).
                for f in r.faces.iter_mut() {
                    let Some(t) = f.tex else { continue };
                    let key = (t, r.contents);
                    let nt = match for_contents.get(&key) {
                        Some(&nt) => nt,
                        None => {
                            let nt = match name_for_contents(&tex.names[t as usize], r.contents, goldsrc) {
                                Some(name) => {
                                    let original = tex.names[t as usize].clone();
                                    // Texinfo entries of one miptex share its name (and so the
                                    // name written): one row per name, its sides counted below.
                                    if !tq.contents_names.iter().any(|c| c.written == name) {
                                        tq.contents_names.push(ContentsName {
                                            original: original.clone(),
                                            written: name.clone(),
                                            contents: contents_word(r.contents),
                                            sides: 0,
                                        });
                                    }
                                    renamed.insert(name.clone(), original);
                                    Some(tex.renamed(t, name))
                                }
                                None => None,
                            };
                            for_contents.insert(key, nt);
                            nt
                        }
                    };
                    if let Some(nt) = nt {
                        f.tex = Some(nt);
                        if let Some(c) = tq.contents_names.iter_mut().find(|c| c.written == tex.names[nt as usize]) {
                            c.sides += 1;
                        }
                    }
                }
            }
        }
        if listed.is_none() {
            let limit = (regions.len() as u64).saturating_mul(MERGE_WORK_PER_REGION).saturating_add(1_000_000).min(opts.budget / 4);
            let (merged, stats) = tree::merge(regions, limit);
            budget.spend(stats.work)?;
            tq.merge_tries += stats.tries;
            tq.merge_stopped |= stats.stopped;
            tq.merged_brushes += merged.len();
            regions = merged;
        }

        // Clip brushes: solid in hull 1, not in hull 0 ([`clip`]). Brush lists carry their
        // own. Then each larger hull whose box is known is measured, the clip brushes counted
        // as solid. Recovering brushes from those hulls too (`recover`'s `lower`: pieces kept
        // inside hull 1's erosion, as a clip brush is in every clip hull) added none on any
        // corpus map (README), so it is not run: `find` is for hull 1 only.
        let mut clips: Vec<Region> = Vec::new();
        // The hull each clip brush came from (the report's `brush_list`).
        let mut clip_hulls: Vec<usize> = Vec::new();
        if let (None, Ok(false), true) = (listed, v.clipnodes().map(|c| c.is_empty()), opts.clip_brushes) {
            let start0 = tree::box_faces(mins.map(|c| c - BOUNDS_MARGIN), maxs.map(|c| c + BOUNDS_MARGIN), Origin::Bound);
            let clip_tex = fallback(&mut tex, BRUSHLIST_CLIP);
            // `solid0` below is the same hull-0 regions and then the clip brushes found so far,
            // in the same order for every hull: their growths are found once and kept.
            let mut growths = clip::GrowthCache::default();
            // The regions already solid in each hull: hull 0's, then each lower hull's clip
            // brushes as they are found (copied once, not once per hull).
            let mut solid0: Vec<Region> = regions.iter().filter(|r| hull1_solid(r.contents)).cloned().collect();
            for hull in 1..model.head_nodes().len() {
                let Some(hb) = hull_box(bsp, hull) else { break };
                let head = match model.head_nodes()[hull].get() as i64 {
                    n if n >= 0 => treewalk::Child::Node(index(n)),
                    c => treewalk::Child::Contents(c as i32),
                };
                let clip_tree = ClipHull::<L> { bsp, clipnodes: v.clipnodes()?, planes, lump: v.slots().clipnodes, model: m, hull };
                let lo: [f64; 3] = std::array::from_fn(|k| mins[k] - BOUNDS_MARGIN + hb.mins[k]);
                let hi: [f64; 3] = std::array::from_fn(|k| maxs[k] + BOUNDS_MARGIN + hb.maxs[k]);
                let (solid_h, empty_h) =
                    treewalk::walk_hull(&clip_tree, head, tree::box_faces(lo, hi, Origin::Bound), |c| c == CONTENTS_SOLID, budget)?;
                let limit = ((solid_h.len() + empty_h.len()) as u64)
                    .saturating_mul(CLIP_WORK_PER_REGION)
                    .saturating_add(10_000_000)
                    .min(opts.budget / 4);
                growths.cover(solid0.len());
                let got = clip::recover(&solid_h, &empty_h, &solid0, &growths, &start0, &hb, &[], BRUSHLIST_CLIP, limit, hull == 1);
                budget.spend(got.work)?;
                tq.clip_stopped |= got.stopped;
                let sums = &mut hull_sums[hull.min(MAX_HULLS) - 1];
                sums.0 += got.hull_volume;
                sums.1 += got.covered_without;
                sums.2 += got.covered_with;
                sums.3 += got.brushes.len();
                for mut c in got.brushes {
                    for f in c.faces.iter_mut() {
                        f.tex = Some(clip_tex);
                    }
                    solid0.push(c.clone());
                    clips.push(c);
                    clip_hulls.push(hull);
                }
            }
            tq.clip_brushes += clips.len();
        }

        // Output brushes, in world space.
        let tree_count = regions.len();
        regions.extend(clips);
        for (ri, r) in regions.iter().enumerate() {
            let mut sides = Vec::with_capacity(r.faces.len());
            let mut osides = Vec::with_capacity(r.faces.len());
            for f in &r.faces {
                let plane = shifted(f.plane, off);
                let w: Vec<[f64; 3]> = f.winding.iter().map(|p| geom::add(*p, off)).collect();
                let t = f.tex.unwrap_or(tool);
                if t == tool {
                    tq.tool_sides += 1;
                }
                let name = tex.names[t as usize].clone();
                let rows = tex.rows[t as usize];
                sides.push(MapSide {
                    points: geom::three_points(&plane, &w),
                    texture: name.clone(),
                    projection: projection(rows, plane.normal, format),
                    flags: None,
                });
                osides.push(OrigSide { plane, truth: TexTruth::Name(name) });
            }
            let index = entities[ei].primitives.len();
            entities[ei].primitives.push(MapPrimitive::Brush(sides));
            if listed.is_none() && ri < tree_count {
                tree_brushes.push((ei, index));
            }
            let from = match clip_hulls.get(ri.wrapping_sub(tree_count)) {
                Some(&hull) if ri >= tree_count => BrushFrom::ClipHull(hull),
                _ if listed.is_some() => BrushFrom::BrushList,
                _ => BrushFrom::Tree,
            };
            // Contents are compared only against written flags, which these sides have none of.
            let contents = Some(r.contents as i64);
            orig.brushes.push(OrigBrush { source: orig.brushes.len(), from, bevels: 0, entity: ei, index, sides: osides, contents });
        }
        if listed.is_none() {
            model_volumes.push((ei, leaf_volume));
        }

        // The origin brush of a brush entity placed by `origin`.
        if m > 0 && entities[ei].pairs.iter().any(|(k, _)| k == "origin") {
            let t = tex.named(if goldsrc { "ORIGIN" } else { "origin" });
            let faces = tree::box_faces(geom::sub(off, [8.0; 3]), geom::add(off, [8.0; 3]), Origin::Plane);
            let mut sides = Vec::new();
            let mut osides = Vec::new();
            for f in &faces {
                sides.push(MapSide {
                    points: geom::three_points(&f.plane, &f.winding),
                    texture: tex.names[t as usize].clone(),
                    projection: projection(None, f.plane.normal, format),
                    flags: None,
                });
                osides.push(OrigSide { plane: f.plane, truth: TexTruth::Name(tex.names[t as usize].clone()) });
            }
            let index = entities[ei].primitives.len();
            entities[ei].primitives.push(MapPrimitive::Brush(sides));
            orig.brushes.push(OrigBrush {
                source: orig.brushes.len(),
                from: BrushFrom::OriginBrush,
                bevels: 0,
                entity: ei,
                index,
                sides: osides,
                contents: None,
            });
        }

        for d in draw {
            let plane = shifted(d.plane, off);
            let polygon = d.polygon.iter().map(|p| geom::add(*p, off)).collect();
            face_rows.push(tex.rows[d.tex as usize]);
            orig.faces.push(OrigFace { entity: ei, texture: tex.names[d.tex as usize].clone(), plane, polygons: vec![polygon] });
        }
    }
    tq.source = match (used_tree, used_list) {
        (_, false) => "tree",
        (false, true) => "brushlist",
        (true, true) => "mixed",
    };
    if used_list {
        orig.notes.push("brushes read from the BSPX BRUSHLIST lump (the compiler's brushes before CSG)".into());
    }
    for (i, h) in hull_sums.iter().enumerate().filter(|(_, h)| h.0 > 0.0) {
        tq.hulls.push(HullCoverage {
            hull: i + 1,
            volume: h.0,
            covered_before: 100.0 * h.1 / h.0,
            covered: 100.0 * h.2 / h.0,
            clip_brushes: h.3,
        });
    }
    if let Some(h) = tq.hulls.first().filter(|h| h.hull == 1) {
        tq.hull1_volume = h.volume;
        tq.hull1_covered_without_clip = Some(h.covered_before);
        tq.hull1_covered = Some(h.covered);
    }
    if tq.clip_stopped {
        orig.notes.push("clip work allowance spent: the clip brushes of some models are left out".into());
    }
    if tq.merge_stopped {
        orig.notes.push("merge work allowance spent: some regions stayed unmerged".into());
    }
    if format == QuakeFormat::Standard && entities.first().is_some_and(|e| e.pairs.iter().any(|(k, v)| k == "mapversion" && v == "220")) {
        orig.notes.push("worldspawn says mapversion 220 but the sides are written in the standard form".into());
    }
    orig.entities = entities;
    if !tq.contents_names.is_empty() {
        let n: usize = tq.contents_names.iter().map(|c| c.sides).sum();
        orig.notes.push(format!(
            "{} texture names given a liquid or sky prefix on {n} sides, so the compiler gives those regions their contents \
             back (quality.tree.contents_names)",
            tq.contents_names.len()
        ));
    }
    Ok(Extracted { orig, tree: tq, tree_brushes, model_volumes, face_rows, format, renamed })
}

/// Read the written text back: the tree brushes' volume per entity and, per drawn face, whether
/// the side covering it most has its texture name and axes.
pub(super) fn measure_tree(
    parsed: &[MapEntity],
    polygons: &super::SidePolygons,
    x: &Extracted,
    budget: &mut Budget,
) -> Result<TreeQuality> {
    let mut q = x.tree.clone();
    // Side polygons of every parsed brush, by entity and plane.
    type Key = (usize, [i64; 3], i64);
    let qkey = |p: &Plane| (p.normal.map(|c| (c * 1000.0).round() as i64), (p.dist * 2.0).round() as i64);
    struct Side<'a> {
        plane: Plane,
        poly: &'a [[f64; 3]],
        bounds: ([f64; 3], [f64; 3]),
        side: &'a MapSide,
    }
    let mut by_plane: HashMap<Key, Vec<Side>> = HashMap::new();
    // Ordered, so the sum below is the same float in every run (a HashMap's order is not).
    let mut volume_by_entity: std::collections::BTreeMap<usize, f64> = Default::default();
    let tree_set: std::collections::HashSet<(usize, usize)> = x.tree_brushes.iter().copied().collect();
    for (ei, e) in parsed.iter().enumerate() {
        for (bi, prim) in e.primitives.iter().enumerate() {
            let MapPrimitive::Brush(sides) = prim else { continue };
            // The polygons `measure_parsed` clipped: the faces `tree::from_planes` would give
            // (the same planes clipped in the same order), slivers left out as it does.
            let Some(Some((planes, polys))) = polygons.get(ei).and_then(|p| p.get(bi)) else { continue };
            budget.spend((planes.len() * planes.len()) as u64)?;
            let faces: Vec<(usize, &Plane, &[[f64; 3]])> = planes
                .iter()
                .zip(polys)
                .enumerate()
                .filter(|(_, (_, w))| geom::area(w) >= tree::MIN_FACE_AREA)
                .map(|(k, (p, w))| (k, p, w.as_slice()))
                .collect();
            if tree_set.contains(&(ei, bi)) {
                *volume_by_entity.entry(ei).or_default() += tree::volume_of(faces.iter().map(|f| (f.1, f.2)));
            }
            for (k, plane, poly) in faces {
                let (n, d) = qkey(plane);
                let bounds = tree::point_bounds(poly.iter());
                by_plane.entry((ei, n, d)).or_default().push(Side { plane: *plane, poly, bounds, side: &sides[k] });
            }
        }
    }
    q.volume = volume_by_entity.values().sum();
    let tree_leaf_volume: f64 = x.model_volumes.iter().map(|m| m.1).sum();
    q.volume_error =
        (tree_leaf_volume > 0.0 && !x.tree_brushes.is_empty()).then(|| 100.0 * (q.volume - tree_leaf_volume).abs() / tree_leaf_volume);
    for (f, rows) in x.orig.faces.iter().zip(&x.face_rows) {
        let (n, d) = qkey(&f.plane);
        let Some(poly) = f.polygons.first() else { continue };
        q.faces += 1;
        let fb = tree::point_bounds(poly.iter());
        let mut best: (f64, Option<&Side>) = (0.0, None);
        for dd in [d, d.saturating_sub(1), d.saturating_add(1)] {
            let Some(cands) = by_plane.get(&(f.entity, n, dd)) else { continue };
            budget.spend(cands.len() as u64)?;
            for s in cands {
                if !overlaps(&fb, &s.bounds) || !s.plane.same_as(&f.plane, 1e-4, 0.05) {
                    continue;
                }
                let a = geom::intersect_area(poly, s.poly, f.plane.normal);
                if a > best.0 {
                    best = (a, Some(s));
                }
            }
        }
        let Some(s) = best.1 else { continue };
        let renamed = s.side.texture != f.texture && x.renamed.get(&s.side.texture) == Some(&f.texture);
        let name_ok = s.side.texture == f.texture || renamed;
        let axes_ok = match rows {
            Some(r) => written_rows(&s.side.projection, s.plane.normal).is_some_and(|w| rows_close(&w, r)),
            None => true,
        };
        q.faces_same_texture += usize::from(name_ok && axes_ok);
        q.faces_renamed_for_contents += usize::from(renamed && axes_ok);
    }
    q.face_texture_fidelity = (q.faces > 0).then(|| 100.0 * q.faces_same_texture as f64 / q.faces as f64);
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::super::mapfile;
    use super::*;

    #[test]
    fn standard_form_round_trips_axis_projections() {
        for normal in [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.6, 0.0, 0.8]] {
            for (rot, sc, off) in [(0.0, [1.0, 1.0], [0.0, 0.0]), (90.0, [0.5, 2.0], [16.0, -8.0]), (33.0, [1.0, -1.0], [3.0, 5.0])] {
                let p = TexProjection::Standard { offset: off, rotation: rot, scale: sc };
                let rows = vecs_from_standard(&p, normal).unwrap();
                let (back, exact) = standard_from_vecs(rows, normal);
                assert!(exact, "{normal:?} {rot} {sc:?}: {back:?}");
                assert!(rows_close(&vecs_from_standard(&back, normal).unwrap(), &rows));
            }
        }
        // A sheared projection cannot be written exactly.
        let (_, exact) = standard_from_vecs([[1.0, 0.0, 0.0, 0.0], [0.5, -1.0, 0.0, 0.0]], [0.0, 0.0, 1.0]);
        assert!(!exact);
    }

    /// The builder's box room (six faces, a six-node chain to one empty leaf) with every record
    /// set: six walls around the room (its model bounds are the room), which cannot
    /// merge (their union is not convex); every face covered, with its texture and axes.
    #[test]
    fn box_room_with_every_record_set() {
        use crate::branches::goldsrc::{BLUESHIFT, GOLDSRC};
        use crate::branches::quake1::lumps::{BSP2, BSP2PSB, HEXEN2, QUAKE1};
        for branch in [&QUAKE1, &HEXEN2, &BSP2, &BSP2PSB, &GOLDSRC, &BLUESHIFT] {
            for quake_format in [QuakeFormat::Valve220, QuakeFormat::Standard] {
                let bytes = crate::branches::quake1::room::box_room(branch);
                let bsp = Bsp::from_bytes(&bytes).unwrap();
                let opts = super::super::DecompileOptions { quake_format, ..Default::default() };
                let d = super::super::decompile(&bsp, &opts).unwrap();
                let q = d.report.quality.as_ref().unwrap();
                let t = q.tree.as_ref().unwrap();
                assert_eq!((t.regions, t.merged_brushes, d.report.brushes), (6, 6, 6), "{}: {}", branch.id, d.text);
                assert_eq!(q.face_coverage, Some(100.0), "{}", branch.id);
                assert_eq!((t.faces, t.faces_same_texture), (6, 6), "{}: {}", branch.id, d.text);
                assert!(t.volume_error.unwrap() < 1e-9, "{t:?}");
                // The walls: the room grown by the margin, less the room.
                let outer = 272.0 * 272.0 * 144.0 - 256.0 * 256.0 * 128.0;
                assert!((t.leaf_volume - outer).abs() < 1e-6, "{t:?}");
                assert!(q.entities_in_order && q.brushes_same == q.brushes);
                let goldsrc = branch.family == Family::GoldSrc;
                assert_eq!(d.text.contains("bspkit_grey [ "), goldsrc || quake_format == QuakeFormat::Valve220, "{}", d.text);
                assert!(d.text.contains(if goldsrc { " NULL " } else { " skip " }));
            }
        }
    }

    /// The builder's room with one clip brush in its clip hulls (none in hull 0): it comes back
    /// as one `clip` brush with the builder's planes, and hull 1 is reproduced; without the clip
    /// brush (or with `clip_brushes` off) none is made.
    #[test]
    fn the_builders_clip_brush_comes_back() {
        use crate::branches::goldsrc::GOLDSRC;
        use crate::branches::quake1::lumps::{BSP2, HEXEN2, QUAKE1};
        use crate::branches::quake1::room::{box_room, box_room_with_clip, CLIP_BOX};
        // The builder grows by each game's hulls, as the decompile assumes.
        for branch in [&QUAKE1, &BSP2, &HEXEN2, &GOLDSRC] {
            let bytes = box_room_with_clip(branch);
            let bsp = Bsp::from_bytes(&bytes).unwrap();
            let d = super::super::decompile(&bsp, &Default::default()).unwrap();
            let q = d.report.quality.as_ref().unwrap();
            let t = q.tree.as_ref().unwrap();
            assert_eq!(t.clip_brushes, 1, "{}: {}", branch.id, d.text);
            assert_eq!(d.report.brushes, 7);
            assert!(t.hull1_covered_without_clip.unwrap() < 99.9, "{t:?}");
            assert!((t.hull1_covered.unwrap() - 100.0).abs() < 1e-6, "{t:?}");
            // Hull 2 holds the same clip brush: hull 1's, grown by hull 2's box, covers it.
            let h2 = t.hulls.iter().find(|h| h.hull == 2);
            if branch.id == "hexen2" {
                assert!(h2.is_none(), "{t:?}");
            } else {
                let h2 = h2.unwrap();
                assert_eq!(h2.clip_brushes, 0, "{t:?}");
                assert!((h2.covered_before - 100.0).abs() < 1e-6, "{t:?}");
            }
            assert!(q.brushes_same == q.brushes && q.entities_in_order);
            // The clip brush: six `clip` sides on the box's planes.
            let parsed = mapfile::read_map(d.text.as_bytes()).unwrap();
            let clips: Vec<&Vec<MapSide>> = parsed[0]
                .primitives
                .iter()
                .filter_map(|p| match p {
                    MapPrimitive::Brush(s) if s.iter().all(|s| s.texture.eq_ignore_ascii_case("clip")) => Some(s),
                    _ => None,
                })
                .collect();
            assert_eq!(clips.len(), 1, "{}", d.text);
            let planes: Vec<(Plane, Origin, Option<u32>)> = clips[0].iter().map(|s| (s.plane().unwrap(), Origin::Plane, None)).collect();
            let (lo, hi) = tree::bounds(&tree::from_planes(&planes));
            assert_eq!(clips[0].len(), 6);
            for k in 0..3 {
                assert!((lo[k] - CLIP_BOX.0[k] as f64).abs() < 1e-6 && (hi[k] - CLIP_BOX.1[k] as f64).abs() < 1e-6, "{lo:?} {hi:?}");
            }
            let off = super::super::DecompileOptions { clip_brushes: false, ..Default::default() };
            let d = super::super::decompile(&bsp, &off).unwrap();
            let t = d.report.quality.as_ref().unwrap().tree.clone().unwrap();
            assert_eq!((t.clip_brushes, t.hull1_covered, d.report.brushes), (0, None, 6));
        }
        for branch in [&QUAKE1, &HEXEN2, &GOLDSRC] {
            let bytes = box_room(branch);
            let bsp = Bsp::from_bytes(&bytes).unwrap();
            let d = super::super::decompile(&bsp, &Default::default()).unwrap();
            let t = d.report.quality.as_ref().unwrap().tree.clone().unwrap();
            assert_eq!(t.clip_brushes, 0, "{}", branch.id);
            assert!((t.hull1_covered.unwrap() - 100.0).abs() < 1e-6, "{t:?}");
        }
    }

    /// The builder's room with a pool and a sky, stored without texture names (`miptexN`): the
    /// water and sky brushes get names that imply their contents (`*miptex1`, `sky_miptex2`),
    /// every side of them, counted in the report; the texture figure counts them as the same
    /// name modulo the prefix. With names that already imply the contents nothing is renamed.
    #[test]
    fn nameless_water_and_sky_get_names_implying_them() {
        use crate::branches::quake1::lumps::{BSP2, HEXEN2, QUAKE1};
        use crate::branches::quake1::room::box_room_with_water_and_sky;
        for branch in [&QUAKE1, &BSP2, &HEXEN2] {
            let bytes = box_room_with_water_and_sky(branch, false);
            let bsp = Bsp::from_bytes(&bytes).unwrap();
            let d = super::super::decompile(&bsp, &Default::default()).unwrap();
            let q = d.report.quality.as_ref().unwrap();
            let t = q.tree.as_ref().unwrap();
            let parsed = mapfile::read_map(d.text.as_bytes()).unwrap();
            let names = |b: &MapPrimitive| match b {
                MapPrimitive::Brush(s) => s.iter().map(|s| s.texture.clone()).collect::<Vec<_>>(),
                _ => Vec::new(),
            };
            let brushes: Vec<Vec<String>> = parsed[0].primitives.iter().map(names).collect();
            // One water brush and one sky brush, every side named for its contents.
            let water: Vec<&Vec<String>> = brushes.iter().filter(|b| b.iter().any(|n| n.starts_with('*'))).collect();
            let sky: Vec<&Vec<String>> = brushes.iter().filter(|b| b.iter().any(|n| n.starts_with("sky"))).collect();
            assert_eq!((water.len(), sky.len()), (1, 1), "{}: {}", branch.id, d.text);
            assert!(water[0].iter().all(|n| n == "*miptex1"), "{water:?}");
            assert!(sky[0].iter().all(|n| n == "sky_miptex2"), "{sky:?}");
            let mut got: Vec<(String, String, &str)> =
                t.contents_names.iter().map(|c| (c.original.clone(), c.written.clone(), c.contents)).collect();
            got.sort();
            let want = [("miptex1".to_string(), "*miptex1".to_string(), "water"), ("miptex2".into(), "sky_miptex2".into(), "sky")];
            assert_eq!(got, want, "{}", branch.id);
            assert_eq!(t.contents_names.iter().map(|c| c.sides).sum::<usize>(), 12, "{t:?}");
            // 9 drawn faces, all with their name (modulo the prefix) and axes; 3 through it.
            assert_eq!((t.faces, t.faces_same_texture, t.faces_renamed_for_contents), (9, 9, 3), "{t:?}");
            assert_eq!(q.face_coverage, Some(100.0));
            assert!(t.volume_error.unwrap() < 1e-9, "{t:?}");
            assert!(
                d.report.notes.iter().any(|n| n.contains("2 texture names given a liquid or sky prefix on 12 sides")),
                "{:?}",
                d.report.notes
            );

            let named_bytes = box_room_with_water_and_sky(branch, true);
            let named = Bsp::from_bytes(&named_bytes).unwrap();
            let d = super::super::decompile(&named, &Default::default()).unwrap();
            let t = d.report.quality.as_ref().unwrap().tree.clone().unwrap();
            assert!(t.contents_names.is_empty(), "{t:?}");
            assert_eq!((t.faces, t.faces_same_texture, t.faces_renamed_for_contents), (9, 9, 0), "{t:?}");
            assert!(d.text.contains("*bspkit_water") && d.text.contains("sky_bspkit"), "{}", d.text);
        }
        // GoldSrc names liquids with `!`.
        assert_eq!(name_for_contents("miptex1", CONTENTS_WATER, true).as_deref(), Some("!miptex1"));
        assert_eq!(name_for_contents("lavaflow", CONTENTS_WATER, false).as_deref(), Some("*water_lavaflow"));
        assert_eq!(name_for_contents("miptex3", CONTENTS_LAVA, false).as_deref(), Some("*lava_miptex3"));
        assert_eq!(name_for_contents("miptex3", CONTENTS_SLIME, false).as_deref(), Some("*slime_miptex3"));
        assert_eq!(name_for_contents("*slime0", CONTENTS_SLIME, false), None);
        assert_eq!(name_for_contents("SKY4", CONTENTS_SKY, false), None);
    }

    #[test]
    fn brushlist_parses_and_refuses_garbage() {
        let mut d = Vec::new();
        for v in [1i32, 0, 1, 1] {
            d.extend(v.to_le_bytes());
        }
        for f in [0.0f32, 0.0, 0.0, 64.0, 64.0, 64.0] {
            d.extend(f.to_le_bytes());
        }
        d.extend((-2i16).to_le_bytes());
        d.extend(1u16.to_le_bytes());
        let r = std::f32::consts::FRAC_1_SQRT_2;
        for f in [r, r, 0.0, 64.0] {
            d.extend(f.to_le_bytes());
        }
        let l = parse_brushlist(&d).unwrap();
        assert_eq!(l[&0].len(), 1);
        assert_eq!((l[&0][0].contents, l[&0][0].planes.len()), (-2, 1));
        assert!(parse_brushlist(&d[..d.len() - 4]).is_err());
        let mut bad = d.clone();
        bad[0] = 2;
        assert!(parse_brushlist(&bad).is_err());
    }
}
