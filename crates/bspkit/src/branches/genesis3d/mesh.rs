//! Genesis3D geometry for the scene model ([`crate::mesh`]), read through the view's
//! [`Geometry`] (`World/GBSPFILE.H`, `World/Surface.cpp`).
//!
//! * **Axes.** Genesis3D is Y-up and right-handed (`Xform3d.cpp`: a frame faces −Z, up is +Y).
//!   The scene is Z-up and right-handed, so positions and normals are turned a quarter about X:
//!   `(x, y, z)` → `(x, −z, y)`. Distances, areas and handedness are unchanged; texture
//!   coordinates are computed from the stored positions first.
//! * **Polygons.** Each face is a convex polygon of VERT_INDEX corners, fanned from its first
//!   corner and wound counter-clockwise about its normal (the plane's, reversed when
//!   `plane_side` is 1). Broken faces (plane, texinfo or corner out of range, fewer than three
//!   corners, non-finite positions) and faces no model holds get a [`Skipped`] entry; a face
//!   two models hold is built once, in the first, with a warning.
//! * **UVs.** The corner's texel coordinates ([`TexInfo::texel`](super::records::TexInfo::texel):
//!   axes, draw scale, shift) divided by the texture's width and height, which the level
//!   stores. A face whose texinfo names no texture gets the material `(no texture)` and
//!   [`FALLBACK_TEXTURE_SIZE`] (one warning counts them).
//! * **Colours.** As the engine's `GetRGBVerts`: on faces flagged `TEXINFO_GOURAUD` or
//!   `TEXINFO_FLAT` (lit per vertex instead of by a lightmap), RGB_VERTS gives each corner its
//!   colour (0–255 floats, clamped into RGBA8); other faces are white (their light is the
//!   lightmap). Alpha is the texinfo's alpha (0–255) on faces flagged `TEXINFO_TRANS`, else 255. A
//!   level without RGB_VERTS has no `colours`.
//! * **Flags** from the texinfo flags (`WBitmap.h`): `TEXINFO_SKY` → sky, `TEXINFO_TRANS` →
//!   translucent (the compiler sets it on mirror faces too).
//! * **Models.** Model 0 is the world. The compiler leaves every model's faces where they were
//!   built (the engine starts each model with an identity transform and rotates it about its
//!   `origin`, the pivot), so models are placed at the origin: [`Model::origin`](crate::mesh::scene::Model::origin) stays zero and
//!   the pivot is the `%Model%` entity's `origin`. A brush model is named `*N` and the name of
//!   the `%Model%` entity whose `Model` key is N; [`Model::entity`](crate::mesh::scene::Model::entity) is that entity.
//! * **Lightmaps.** With [`MeshOptions::lightmaps`], `uv1` is each corner's place in the atlas
//!   ([`Lightmaps::uv`](crate::lightmap::Lightmaps::uv) of its Z-up position; the grid is in
//!   [`super::lighting`]) and the surface's page its face's; unlit faces get page `u32::MAX`.

use super::lumps::CHUNK_FACES;
use super::view::{Corner, Geometry, View};
use crate::branches::quake2::mesh::{
    check_corners, face_range, finish_material_flags, push_polygon, reserve, shared_warning, Budget, PolyIn, MIN_CORNER_BUDGET,
};
use crate::bsp::Bsp;
use crate::error::Result;
use crate::mesh::geom::unit_f32;
use crate::mesh::place::{placements, read_entities, PlaceKeys};
use crate::mesh::scene::{
    try_reserve, Material, MaterialTable, MeshOptions, Model, ModelSelect, Scene, SceneBudget, Skipped, SurfaceFlags, FALLBACK_TEXTURE_SIZE,
};

/// `TEXINFO_SKY`, `TEXINFO_TRANS`, `TEXINFO_GOURAUD`, `TEXINFO_FLAT` (`World/WBitmap.h`).
const TEXINFO_SKY: i32 = 1 << 2;
const TEXINFO_TRANS: i32 = 1 << 4;
const TEXINFO_GOURAUD: i32 = 1 << 5;
const TEXINFO_FLAT: i32 = 1 << 6;

/// The scene flags of a texinfo's flags.
pub fn surface_flags(flags: i32) -> SurfaceFlags {
    let mut out = SurfaceFlags::NONE;
    if flags & TEXINFO_SKY != 0 {
        out |= SurfaceFlags::SKY;
    }
    if flags & TEXINFO_TRANS != 0 {
        out |= SurfaceFlags::TRANSLUCENT;
    }
    out
}

pub use super::view::to_z_up;

/// The scene of a Genesis3D level.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    let view = View::new(bsp)?;
    let g = view.geometry()?;
    let mut scene = Scene::default();

    // Materials: one per texture, plus one for faces without a texture.
    let mut table = MaterialTable::default();
    let mut no_texture = 0usize;
    let mut material_of = |scene: &mut Scene, g: &Geometry, face: usize| -> Result<(u32, [f32; 2])> {
        let (name, size) = match g.texture(face)? {
            Some(t) => (t.name().into_owned(), [t.width.get(), t.height.get()]),
            None => ("(no texture)".to_owned(), [0, 0]),
        };
        let size = (size[0] > 0 && size[1] > 0).then(|| size.map(|s| s as u32));
        let before = scene.materials.len();
        let m = table.intern(&mut scene.materials, &name, || Material { name: name.clone(), flags: SurfaceFlags::NONE, size });
        if scene.materials.len() > before && size.is_none() {
            no_texture += 1;
        }
        let size = scene.materials[m as usize].size.unwrap_or(FALLBACK_TEXTURE_SIZE);
        Ok((m, size.map(|s| s as f32)))
    };

    // The `%Model%` entity whose `Model` is N names model N; its origin is the pivot, not a
    // placement (module documentation).
    let places = read_entities(bsp, &mut scene.warnings)
        .map(|e| {
            placements(&e.list, PlaceKeys::None, &mut scene.warnings, |e| {
                if e.classname()?.as_ref() != "%Model%" {
                    return None;
                }
                Some((e.get("Model")?.trim().parse().ok()?, e.get("%name%").unwrap_or_default().into_owned()))
            })
        })
        .unwrap_or_default();

    let faces = g.faces.len();
    // Faces an earlier model already holds (a face is built once, in its first model).
    let mut shared = Vec::new();
    let mut owner = vec![u32::MAX; faces];
    let mut budget = Budget { left: g.vert_index.len().max(MIN_CORNER_BUDGET), refused: 0 };
    // What the scene may emit (the command's budget, beside the map's own corner budget).
    let mut output = SceneBudget::new(opts);
    let wanted = match (opts.models, g.models.len()) {
        (_, 0) => 1,
        (ModelSelect::World, _) => 1,
        (ModelSelect::All, n) => n,
    };
    if g.models.is_empty() {
        scene.warnings.push("the level has no models: every face is taken as the world's".into());
    }
    let colours = !g.rgb_verts.is_empty();
    let mut corners: Vec<Corner> = Vec::with_capacity(64);
    for m in 0..wanted {
        let range = match g.models.get(m) {
            Some(rec) => face_range(rec.first_face.get() as i64, rec.num_faces.get() as i64, faces, m, &mut scene.warnings),
            None => 0..faces,
        };
        let mut model = Model::placed(m as u32, &places);
        let estimate: usize = g.faces[range.clone()].iter().map(|f| usize::try_from(f.num_verts.get()).unwrap_or(0)).sum();
        let estimate = estimate.min(budget.left).min(output.vertices_left());
        reserve(&mut model, estimate, range.len(), opts.lightmaps.is_some())?;
        if colours {
            try_reserve(&mut model.vertices.colours, estimate)?;
        }
        for i in range {
            if owner[i] != u32::MAX {
                shared.push(i);
                continue;
            }
            owner[i] = m as u32;
            let face = (|| -> Result<Look> {
                let normal = g.normal(i)?;
                let tex = g.texinfo(i)?;
                let (material, size) = material_of(&mut scene, &g, i)?;
                corners.clear();
                for c in g.corners(i)? {
                    corners.push(c?);
                }
                let flags = tex.flags.get();
                let alpha = if flags & TEXINFO_TRANS != 0 { tex.alpha.get().clamp(0.0, 255.0) as u8 } else { 255 };
                let vertex_lit = flags & (TEXINFO_GOURAUD | TEXINFO_FLAT) != 0;
                Ok(Look { material, size, normal, flags: surface_flags(flags), alpha, vertex_lit })
            })();
            let Look { material, size, normal, flags, alpha, vertex_lit } = match face {
                Ok(f) => f,
                Err(e) => {
                    scene.skipped.push(skip(i, e.kind.to_string()));
                    continue;
                }
            };
            let Some(normal) = unit_f32(to_z_up(normal)) else {
                scene.skipped.push(skip(i, "its plane has no direction".into()));
                continue;
            };
            let check = check_corners(corners.len(), corners.iter().map(|c| c.position)).and_then(|()| {
                let finite = corners.iter().all(|c| c.texel.iter().all(|t| t.is_finite()));
                finite.then_some(()).ok_or_else(|| "a texture coordinate is not finite".to_string())
            });
            if let Err(reason) = check {
                scene.skipped.push(skip(i, reason));
                continue;
            }
            if !budget.take(corners.len()) {
                scene.skipped.push(skip(i, "over the corner budget (faces share corner lists)".into()));
                continue;
            }
            if let Err(reason) = output.take(corners.len(), corners.len() - 2) {
                scene.skipped.push(skip(i, reason));
                output.stop()?;
                continue;
            }
            let colour = |c: &Corner| {
                colours.then(|| {
                    let rgb = if vertex_lit { c.color.unwrap_or([255.0; 3]) } else { [255.0; 3] };
                    let [r, g, b] = rgb.map(|x| if x.is_finite() { x.clamp(0.0, 255.0).round() as u8 } else { 255 });
                    [r, g, b, alpha]
                })
            };
            push_polygon(
                &mut model,
                PolyIn { lump: CHUNK_FACES as u16, index: i as u32, material, flags, normal },
                corners.iter().map(|c| (to_z_up(c.position), [c.texel[0] / size[0], c.texel[1] / size[1]], colour(c))),
                opts.lightmaps,
            );
        }
        scene.models.push(model);
        shared_warning(m, &shared, &owner, &mut scene.warnings);
        shared.clear();
    }
    if opts.models == ModelSelect::All || g.models.is_empty() {
        for (i, o) in owner.iter().enumerate() {
            if *o == u32::MAX {
                scene.skipped.push(skip(i, format!("face {i} is in no model's face range")));
            }
        }
    }
    if no_texture > 0 {
        scene.warnings.push(format!(
            "{no_texture} materials have no texture or no size: their UVs assume {}×{} texels",
            FALLBACK_TEXTURE_SIZE[0], FALLBACK_TEXTURE_SIZE[1]
        ));
    }
    budget.warn(&mut scene.warnings);
    finish_material_flags(&mut scene);
    scene.skipped.sort_by_key(|s| (s.lump, s.index));
    Ok(scene)
}

/// What a face's records give it besides its corners.
struct Look {
    material: u32,
    /// The texture size UVs are divided by.
    size: [f32; 2],
    /// As stored (Y-up).
    normal: [f32; 3],
    flags: SurfaceFlags,
    /// Alpha of the corner colours.
    alpha: u8,
    /// Gouraud- or flat-shaded: the corner colours are its light.
    vertex_lit: bool,
}

fn skip(index: usize, reason: String) -> Skipped {
    Skipped { lump: CHUNK_FACES as u16, index: index as u32, reason }
}
