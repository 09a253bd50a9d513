//! Quake 2-family geometry for the scene model ([`crate::mesh`]): Quake 2 (IBSP 38), Qbism,
//! SiN, Soldier of Fortune and Daikatana, each read through its own record layout
//! ([`Layout`]), as the lighting module does.
//!
//! * **Polygons.** A face's corners come from its surfedges → edges → vertices
//!   ([`View::face_points`], through [`CornerTables`](super::view::CornerTables)); the polygon
//!   is convex and is fanned from its first corner. Quake compilers store corners clockwise
//!   seen from the front; the fan is wound so that each triangle is counter-clockwise about the
//!   face's normal (checked per face against the polygon's Newell normal, so a compiler that
//!   winds the other way still comes out right).
//!   Corners are kept as stored (T-junction corners on edges included, so neighbours meet
//!   without cracks); compilers' rounding leaves some slightly off the plane (one corpus face a
//!   corner 2.2 units off) and the triangles follow them.
//! * **Normals.** The face's plane normal, reversed when `side` is 1.
//! * **Broken faces** (plane, texinfo, surfedge, edge or vertex out of range, fewer than three
//!   corners, non-finite positions) are left out with a [`Skipped`] entry naming the faces lump,
//!   the face and the reason. So is a face that no model's face range holds (with every model
//!   built). A face two models' ranges hold is built once, in the first, with a warning.
//!   Nothing here panics or fails on such a face.
//! * **UVs.** `uv0 = (dot(p, s.xyz) + s.w, dot(p, t.xyz) + t.w) / texture size`. Quake 2 maps do
//!   not store texture sizes (they live in the `.wal` files): [`MeshOptions::texture_size`] is
//!   asked once per texture name; textures it does not know are taken as
//!   [`FALLBACK_TEXTURE_SIZE`], their material has `size: None`, and one warning says how many
//!   fell back. `uv1` (when [`MeshOptions::lightmaps`] is given) is the atlas position of the
//!   face's luxels ([`Lightmaps::uv`]); [`Model::lightmap_pages`] is `u32::MAX` for unlit faces.
//! * **Flags** from each branch's texinfo surface flags ([`surface_flags`]: Quake 2's
//!   `q_shared.h`, SiN's `sinfiles.h`, SoF's `q_shared.h`, Daikatana's `dk_shared.h`) and, for
//!   trigger and clip brushes, the texture name ([`name_flags`]). Bits without a scene flag
//!   (SiN mirrors, Daikatana `SURF_MIDTEXTURE`, whose drawing is not documented) are left out.
//! * **Models.** Model 0 is the world; brush model N is named `*N` with the classname (and
//!   targetname) of the entity whose `model` is `*N`, placed at that entity's `origin` and
//!   `angles`. The single `angle` key is not a placement: Quake 2's game code turns it into the
//!   move direction of doors, buttons and platforms (`G_SetMovedir`).
//! * **Budget.** Compilers give every face its own surfedges, so the corners of all faces
//!   together number the surfedges. A hostile file can make many faces share one long surfedge
//!   run; corners past `max(surfedges, 65536)` are refused (the face is skipped, and a warning
//!   says so), which bounds memory by the file's size.
//!
//! Buffers are allocated per model (reserved once from the model's face records), never per
//! vertex.

use std::collections::HashMap;

use super::lumps::LUMP_FACES;
use super::records::{Daikatana, FaceRecord, Ibsp, Layout, Qbism, Sin, Sof, TexInfo, TexInfoRecord, TexInfoSin};
use super::view::View;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lightmap::maps::Lightmaps;
use crate::mesh::geom::unit_f32;
use crate::mesh::place::{placements, read_entities, star_model, PlaceKeys};
use crate::mesh::scene::{
    Material, MaterialTable, MeshOptions, Model, ModelSelect, Scene, SceneBudget, Skipped, Surface, SurfaceFlags, SurfaceKind,
    FALLBACK_TEXTURE_SIZE,
};

/// The scene of a Quake 2-family map.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    match bsp.branch().id {
        id if id == Qbism::BRANCH_ID => build_with::<Qbism>(bsp, opts),
        id if id == Sin::BRANCH_ID => build_with::<Sin>(bsp, opts),
        id if id == Sof::BRANCH_ID => build_with::<Sof>(bsp, opts),
        id if id == Daikatana::BRANCH_ID => build_with::<Daikatana>(bsp, opts),
        _ => build_with::<Ibsp>(bsp, opts),
    }
}

// Quake 2 `q_shared.h` surface flags (the compiler's `qfiles.h` adds hint and skip).
const SURF_SKY: i64 = 0x4;
const SURF_WARP: i64 = 0x8;
const SURF_TRANS33: i64 = 0x10;
const SURF_TRANS66: i64 = 0x20;
const SURF_NODRAW: i64 = 0x80;
const SURF_HINT: i64 = 0x100;
const SURF_SKIP: i64 = 0x200;
/// The Quake 2 re-release's alpha-tested surfaces.
const SURF_ALPHATEST: i64 = 0x0200_0000;
/// SiN `SURF_MASKED` (masked texture), `SURF_ADD` (drawn additively).
const SIN_SURF_MASKED: i64 = 0x2;
const SIN_SURF_ADD: i64 = 0x10_0000;
/// Soldier of Fortune `SURF_ALPHA_TEXTURE` (the texture's alpha shows through). SoF marks its
/// 0x10 / 0x20 bits `_DEPREC`, "not used in game".
const SOF_SURF_ALPHA_TEXTURE: i64 = 0x800;
/// Daikatana `SURF_ALPHACHAN` (32-bit alpha channel, drawn in the blended chain with
/// `SURF_TRANS33/66`).
const DK_SURF_ALPHACHAN: i64 = 0x4_0000;

/// The scene flags of a texinfo's surface `flags` in branch `branch` (a branch id).
/// `translucence` is SiN's per-texinfo translucence (0 elsewhere).
pub fn surface_flags(branch: &str, flags: i64, translucence: f32) -> SurfaceFlags {
    let mut out = SurfaceFlags::NONE;
    let has = |bits: i64| flags & bits != 0;
    // Bits every branch keeps at Quake 2's values.
    if has(SURF_SKY) {
        out |= SurfaceFlags::SKY;
    }
    if has(SURF_WARP) {
        out |= SurfaceFlags::WATER;
    }
    if has(SURF_NODRAW) {
        out |= SurfaceFlags::NODRAW;
    }
    if has(SURF_HINT | SURF_SKIP) {
        out |= SurfaceFlags::TOOL;
    }
    match branch {
        "sin" => {
            if has(SIN_SURF_MASKED) {
                out |= SurfaceFlags::ALPHA_TEST;
            }
            if has(SIN_SURF_ADD) || translucence > 0.0 {
                out |= SurfaceFlags::TRANSLUCENT;
            }
        }
        "sof" => {
            if has(SOF_SURF_ALPHA_TEXTURE) {
                out |= SurfaceFlags::ALPHA_TEST;
            }
        }
        "daikatana" => {
            if has(SURF_TRANS33 | SURF_TRANS66 | DK_SURF_ALPHACHAN) {
                out |= SurfaceFlags::TRANSLUCENT;
            }
        }
        _ => {
            if has(SURF_TRANS33 | SURF_TRANS66) {
                out |= SurfaceFlags::TRANSLUCENT;
            }
            if has(SURF_ALPHATEST) {
                out |= SurfaceFlags::ALPHA_TEST;
            }
        }
    }
    out
}

/// Flags a texture name implies: the last path element `trigger` marks a trigger brush,
/// `clip…` a clip brush, `hint` / `skip` compiler tools (Quake 2 `textures/e1u1/trigger.wal`,
/// `…/clip.wal`).
pub fn name_flags(name: &str) -> SurfaceFlags {
    // Compared case-insensitively in place (called once per texinfo: no lower-case copy).
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let is = |word: &str| base.eq_ignore_ascii_case(word);
    if is("trigger") {
        SurfaceFlags::TRIGGER
    } else if is("hint") || is("skip") {
        SurfaceFlags::TOOL
    } else if base.get(..4).is_some_and(|b| b.eq_ignore_ascii_case("clip")) {
        SurfaceFlags::CLIP
    } else {
        SurfaceFlags::NONE
    }
}

/// Texinfo fields beyond [`TexInfoRecord`] that decide flags.
trait MeshTexInfo: TexInfoRecord {
    fn translucence(&self) -> f32 {
        0.0
    }
}
impl MeshTexInfo for TexInfo {}
impl MeshTexInfo for TexInfoSin {
    fn translucence(&self) -> f32 {
        self.translucence.get()
    }
}

/// What each texinfo gives its faces.
struct TexSlot {
    material: u32,
    flags: SurfaceFlags,
    vecs: [[f32; 4]; 2],
    size: [f32; 2],
}

fn build_with<L: Layout>(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene>
where
    L::TexInfo: MeshTexInfo,
{
    let view = View::<L>::new(bsp)?;
    let (faces, planes, texinfo, models) = (view.faces()?, view.planes()?, view.texinfo()?, view.models()?);
    let budget = view.surfedges()?.len().max(MIN_CORNER_BUDGET);
    let mut scene = Scene::default();

    // Materials: one per texture name, its size asked once.
    let mut table = MaterialTable::default();
    let mut sizes: Vec<[f32; 2]> = Vec::new();
    let mut fallback = 0usize;
    let mut slots = Vec::with_capacity(texinfo.len());
    // Texinfos far outnumber texture names (5,314 texinfos on a large map): a name's material
    // and flags are worked out once, keyed by its stored bytes, and neighbours often repeat it.
    let mut by_name: HashMap<&[u8], (u32, SurfaceFlags)> = HashMap::new();
    let mut last: Option<(&[u8], (u32, SurfaceFlags))> = None;
    for t in texinfo {
        let bytes = t.texture_bytes();
        let known = match last {
            Some((b, m)) if b == bytes => Some(m),
            _ => by_name.get(bytes).copied(),
        };
        let (material, from_name) = match known {
            Some(m) => m,
            None => {
                let name = t.texture_name();
                let before = scene.materials.len();
                let material = table.intern(&mut scene.materials, &name, || {
                    let size = opts.texture_size.and_then(|f| f(&name)).filter(|s| s[0] > 0 && s[1] > 0);
                    Material { name: name.to_string(), flags: SurfaceFlags::NONE, size }
                });
                if scene.materials.len() > before {
                    let size = scene.materials[material as usize].size.unwrap_or_else(|| {
                        fallback += 1;
                        FALLBACK_TEXTURE_SIZE
                    });
                    sizes.push(size.map(|s| s as f32));
                }
                let m = (material, name_flags(&name));
                by_name.insert(bytes, m);
                m
            }
        };
        last = Some((bytes, (material, from_name)));
        let flags = surface_flags(bsp.branch().id, t.flags(), t.translucence()) | from_name;
        slots.push(TexSlot { material, flags, vecs: t.vecs(), size: sizes[material as usize] });
    }
    if fallback > 0 {
        scene.warnings.push(format!(
            "{fallback} of {} textures have no known size (Quake 2 keeps sizes in the .wal files): their UVs assume {}×{} texels",
            scene.materials.len(),
            FALLBACK_TEXTURE_SIZE[0],
            FALLBACK_TEXTURE_SIZE[1]
        ));
    }

    let wanted = match (opts.models, models.len()) {
        (_, 0) => 0,
        (ModelSelect::World, _) => 1,
        (ModelSelect::All, n) => n,
    };
    // `model` "*N"; the label is the classname and targetname (the world's entry names the
    // worldspawn entity, so entities are read for the world alone too).
    let places = read_entities(bsp, &mut scene.warnings)
        .map(|e| placements(&e.list, PlaceKeys::OriginAngles, &mut scene.warnings, star_model))
        .unwrap_or_default();

    // Which model holds each face (u32::MAX: none yet).
    // Faces an earlier model already holds (a face is built once, in its first model).
    let mut shared = Vec::new();
    let mut owner = vec![u32::MAX; faces.len()];
    let mut budget = Budget { left: budget, refused: 0 };
    // What the scene may emit (the command's budget, beside the map's own corner budget).
    let mut output = SceneBudget::new(opts);
    let mut corners = Vec::with_capacity(64);
    // Looked up once; a broken lump skips each face with its reason, as before.
    let corner_tables = view.corner_tables();
    if models.is_empty() {
        scene.warnings.push("the map has no models: every face is taken as the world's".into());
    }
    for m in 0..wanted.max(usize::from(models.is_empty())) {
        let range = match models.get(m) {
            Some(rec) => face_range(rec.first_face.get() as i64, rec.num_faces.get() as i64, faces.len(), m, &mut scene.warnings),
            None => 0..faces.len(),
        };
        let mut model = Model::placed(m as u32, &places);
        // One reservation per model from the face records (bounded by the budget).
        let estimate: usize = faces[range.clone()].iter().map(|f| usize::try_from(f.edge_range().1).unwrap_or(0)).sum();
        let estimate = estimate.min(budget.left).min(output.vertices_left());
        reserve(&mut model, estimate, range.len(), opts.lightmaps.is_some())?;
        for i in range {
            if owner[i] != u32::MAX {
                shared.push(i);
                continue;
            }
            owner[i] = m as u32;
            let f = &faces[i];
            let poly = (|| -> std::result::Result<([f32; 3], &TexSlot), String> {
                let plane = usize::try_from(f.plane()).ok().and_then(|p| planes.get(p));
                let normal = face_normal(plane, f)
                    .ok_or_else(|| format!("plane {} is outside PLANES (count {}) or has no direction", f.plane(), planes.len()))?;
                let slot = usize::try_from(f.texinfo())
                    .ok()
                    .and_then(|t| slots.get(t))
                    .ok_or_else(|| format!("texinfo {} is outside TEXINFO (count {})", f.texinfo(), slots.len()))?;
                let tables = corner_tables.as_ref().map_err(|e| e.kind.to_string())?;
                tables.face_points(f, &mut corners).map_err(|e| e.kind.to_string())?;
                Ok((normal, slot))
            })();
            let (normal, slot) = match poly.and_then(|p| check_corners(corners.len(), corners.iter().copied()).map(|()| p)) {
                Ok(p) => p,
                Err(reason) => {
                    scene.skipped.push(skip(i, reason));
                    continue;
                }
            };
            if !budget.take(corners.len()) {
                scene.skipped.push(skip(i, "over the corner budget (faces share surfedges)".into()));
                continue;
            }
            if let Err(reason) = output.take(corners.len(), corners.len() - 2) {
                scene.skipped.push(skip(i, reason));
                output.stop()?;
                continue;
            }
            let uv = |p: [f32; 3]| {
                let dot = |r: &[f32; 4]| p[0] * r[0] + p[1] * r[1] + p[2] * r[2] + r[3];
                [dot(&slot.vecs[0]) / slot.size[0], dot(&slot.vecs[1]) / slot.size[1]]
            };
            push_polygon(
                &mut model,
                PolyIn { lump: LUMP_FACES as u16, index: i as u32, material: slot.material, flags: slot.flags, normal },
                corners.iter().map(|&p| (p, uv(p), None)),
                opts.lightmaps,
            );
        }
        scene.models.push(model);
        shared_warning(m, &shared, &owner, &mut scene.warnings);
        shared.clear();
    }
    if opts.models == ModelSelect::All || models.is_empty() {
        for (i, o) in owner.iter().enumerate() {
            if *o == u32::MAX {
                scene.skipped.push(skip(i, format!("face {i} is in no model's face range")));
            }
        }
    }
    budget.warn(&mut scene.warnings);
    finish_material_flags(&mut scene);
    scene.skipped.sort_by_key(|s| (s.lump, s.index));
    Ok(scene)
}

fn skip(index: usize, reason: String) -> Skipped {
    Skipped { lump: LUMP_FACES as u16, index: index as u32, reason }
}

fn face_normal<F: FaceRecord>(plane: Option<&super::records::Plane>, f: &F) -> Option<[f32; 3]> {
    let n = plane?.normal.map(|c| c.get());
    let n = if f.side() != 0 { n.map(|c| -c) } else { n };
    unit_f32(n)
}

/// One warning for the faces of model `m` that an earlier model already holds.
pub(crate) fn shared_warning(m: usize, shared: &[usize], owner: &[u32], warnings: &mut Vec<String>) {
    if let Some(&first) = shared.first() {
        warnings.push(format!(
            "model {m}: {} of its faces are already in an earlier model (face {first} in model {}); they stay there",
            shared.len(),
            owner[first]
        ));
    }
}

/// Corners smaller than this never count against the budget.
pub(crate) const MIN_CORNER_BUDGET: usize = 1 << 16;

/// How many polygon corners the scene may still take.
pub(crate) struct Budget {
    pub(crate) left: usize,
    pub(crate) refused: usize,
}

impl Budget {
    pub(crate) fn take(&mut self, n: usize) -> bool {
        if n > self.left {
            self.refused += 1;
            return false;
        }
        self.left -= n;
        true
    }
    pub(crate) fn warn(&self, warnings: &mut Vec<String>) {
        if self.refused > 0 {
            warnings.push(format!(
                "{} faces were left out: their corners exceed what the map's corner lists can hold (faces share corner lists)",
                self.refused
            ));
        }
    }
}

/// A polygon's corners must be three or more finite points.
pub(crate) fn check_corners(n: usize, mut corners: impl Iterator<Item = [f32; 3]>) -> std::result::Result<(), String> {
    if n < 3 {
        return Err(format!("{n} corners (a polygon needs 3)"));
    }
    if corners.any(|c| c.iter().any(|x| !x.is_finite())) {
        return Err("a corner is not a finite point".into());
    }
    Ok(())
}

/// The model's range of faces, clipped to the faces lump (with a warning when it had to be).
pub(crate) fn face_range(first: i64, count: i64, faces: usize, model: usize, warnings: &mut Vec<String>) -> std::ops::Range<usize> {
    let start = first.clamp(0, faces as i64) as usize;
    let end = first.saturating_add(count.max(0)).clamp(start as i64, faces as i64) as usize;
    if first < 0 || count < 0 || first.saturating_add(count) > faces as i64 {
        warnings.push(format!("model {model}: faces {first}+{count} reach outside the faces (count {faces}); kept {start}..{end}"));
    }
    start..end
}

/// Reserve a model's buffers once for about `corners` vertices over `faces` polygons.
pub(crate) fn reserve(model: &mut Model, corners: usize, faces: usize, lit: bool) -> crate::error::Result<()> {
    model.reserve_exact(corners, corners.saturating_sub(2 * faces), faces, lit, false)
}

/// One polygon's identity and look.
pub(crate) struct PolyIn {
    pub(crate) lump: u16,
    pub(crate) index: u32,
    pub(crate) material: u32,
    pub(crate) flags: SurfaceFlags,
    /// Unit normal of the front side.
    pub(crate) normal: [f32; 3],
}

/// Append a convex polygon (at least three finite corners, each `(position, uv0, colour)`) to
/// `model` as a triangle fan wound counter-clockwise about `p.normal`, with `uv1` and its
/// lightmap page when `lightmaps` is given. Colours are pushed when given: a caller gives them
/// for every corner of a model or for none, so `colours` stays empty or one per vertex.
pub(crate) fn push_polygon(
    model: &mut Model,
    p: PolyIn,
    corners: impl ExactSizeIterator<Item = ([f32; 3], [f32; 2], Option<[u8; 4]>)> + Clone,
    lightmaps: Option<&Lightmaps>,
) {
    let n = corners.len();
    let first = model.vertices.positions.len() as u32;
    let index_start = model.indices.len() as u32;
    // Newell's normal gives the polygon's winding; flip the fan when it opposes the plane.
    let newell = crate::mesh::geom::newell(corners.clone().map(|c| c.0.map(f64::from)));
    let ccw = newell[0] * p.normal[0] as f64 + newell[1] * p.normal[1] as f64 + newell[2] * p.normal[2] as f64 >= 0.0;
    let lm = lightmaps.map(|lm| (lm, lm.face(p.lump, p.index)));
    let v = &mut model.vertices;
    for (pos, uv, colour) in corners {
        v.positions.push(pos);
        v.normals.push(p.normal);
        v.uv0.push(uv);
        if let Some((lm, entry)) = lm {
            v.uv1.push(entry.and_then(|e| lm.uv(e, pos)).unwrap_or([0.0; 2]));
        }
        if let Some(c) = colour {
            v.colours.push(c);
        }
    }
    for k in 1..n as u32 - 1 {
        let (b, c) = if ccw { (k, k + 1) } else { (k + 1, k) };
        model.indices.extend_from_slice(&[first, first + b, first + c]);
    }
    if let Some((_, entry)) = lm {
        model.lightmap_pages.push(entry.map_or(u32::MAX, |e| e.page));
    }
    model.surfaces.push(Surface {
        lump: p.lump,
        index: p.index,
        material: p.material,
        flags: p.flags,
        kind: SurfaceKind::Polygon,
        vertex_kind: None,
        vertices: first..first + n as u32,
        indices: index_start..model.indices.len() as u32,
    });
}

/// Give each material the flags all its surfaces share (a material no surface uses keeps
/// none).
pub(crate) fn finish_material_flags(scene: &mut Scene) {
    let mut common: Vec<Option<SurfaceFlags>> = vec![None; scene.materials.len()];
    for s in scene.models.iter().flat_map(|m| &m.surfaces) {
        if let Some(c) = common.get_mut(s.material as usize) {
            *c = Some(c.map_or(s.flags, |f| SurfaceFlags(f.0 & s.flags.0)));
        }
    }
    for (m, c) in scene.materials.iter_mut().zip(common) {
        m.flags = c.unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_per_branch() {
        assert_eq!(surface_flags("quake2", 0x4 | 0x8, 0.0), SurfaceFlags::SKY | SurfaceFlags::WATER);
        assert_eq!(surface_flags("quake2", 0x10, 0.0), SurfaceFlags::TRANSLUCENT);
        assert_eq!(surface_flags("quake2", 0x0200_0000, 0.0), SurfaceFlags::ALPHA_TEST);
        assert_eq!(surface_flags("quake2", 0x100, 0.0), SurfaceFlags::TOOL);
        // SiN: 0x10 is SURF_NONLIT, 0x2 masked; translucence comes from the texinfo.
        assert_eq!(surface_flags("sin", 0x10, 0.0), SurfaceFlags::NONE);
        assert_eq!(surface_flags("sin", 0x2, 0.5), SurfaceFlags::ALPHA_TEST | SurfaceFlags::TRANSLUCENT);
        // SoF: the TRANS bits are deprecated, 0x800 is the alpha texture.
        assert_eq!(surface_flags("sof", 0x30 | 0x800, 0.0), SurfaceFlags::ALPHA_TEST);
        assert_eq!(surface_flags("daikatana", 0x4_0000 | 0x80, 0.0), SurfaceFlags::TRANSLUCENT | SurfaceFlags::NODRAW);
        assert_eq!(surface_flags("daikatana", 0x0200_0000, 0.0), SurfaceFlags::NONE);
    }

    #[test]
    fn names() {
        assert_eq!(name_flags("e1u1/trigger"), SurfaceFlags::TRIGGER);
        assert_eq!(name_flags("e1u1/CLIP"), SurfaceFlags::CLIP);
        assert_eq!(name_flags("e1u1/clipper_wall"), SurfaceFlags::CLIP);
        assert_eq!(name_flags("e1u1/floor1_1"), SurfaceFlags::NONE);
        assert_eq!(name_flags("e1u1\\Trigger"), SurfaceFlags::TRIGGER);
        assert_eq!(name_flags("HINT"), SurfaceFlags::TOOL);
        assert_eq!(name_flags("tools/skip"), SurfaceFlags::TOOL);
        assert_eq!(name_flags("e1u1/cli"), SurfaceFlags::NONE);
        assert_eq!(name_flags("e1u1/clé"), SurfaceFlags::NONE);
        assert_eq!(name_flags("e1u1/skipper"), SurfaceFlags::NONE);
    }

    #[test]
    fn ranges_clip() {
        let mut w = Vec::new();
        assert_eq!(face_range(2, 3, 10, 1, &mut w), 2..5);
        assert!(w.is_empty());
        assert_eq!(face_range(8, 5, 10, 1, &mut w), 8..10);
        assert_eq!(face_range(-1, 5, 10, 1, &mut w), 0..4);
        assert_eq!(face_range(3, -5, 10, 1, &mut w), 3..3);
        assert_eq!(face_range(i64::MAX, i64::MAX, 10, 1, &mut w), 10..10);
        assert_eq!(w.len(), 4);
    }
}
