//! Nightfire geometry for the scene model ([`crate::mesh`]). Layouts in [`super::records`].
//!
//! Each face is drawn as stored: a run of VERTEXES (and the same run of NORMALS) and a run of
//! INDICES counted from the face's first vertex, a triangle list. Each model (MODELS) names its
//! run of faces: model 0 is the world, model `N` is `*N`, placed by the entity whose `model` key
//! names it.
//!
//! * **Winding.** The compiler writes a fan over the face's winding (see [`super`]) and gives
//!   every vertex the plane's normal; which way the winding runs is not stated, so each
//!   triangle is wound to run counter-clockwise around its vertices' stored normals (the
//!   scene's convention): a triangle whose geometric normal points against the sum of its
//!   three normals has its last two corners swapped. On maps compiled by the reconstruction
//!   every stored triangle runs clockwise (Quake's order) and is swapped (docs/real-maps.md).
//! * **UVs.** `dot(position, s.xyz) + s.w` and the same for `t` from the face's texture
//!   projection (TEXMATRIX), in texels, divided by the texture's size from
//!   [`MeshOptions::texture_size`]; the images are the game's files, not the map's, so without
//!   a size [`FALLBACK_TEXTURE_SIZE`] is assumed (one warning counts such materials).
//! * **Flags** from the face's surface flags (the compiler's `SURF_SKY` = 4 → sky,
//!   `CONTENTS_NODRAW` = 32 → nodraw) and from the tool texture names under `special/`
//!   (`special/sky` → sky, `special/nodraw` → nodraw, `special/clip` → clip, any other → tool).
//! * Lightmaps are not decoded ([`super::family`]): no `uv1`.
//!
//! A face whose texture, projection, vertex run or index run is outside its lump, with an index
//! past its vertex count or an index count that is not whole triangles, is [`Skipped`] with the
//! reason, and so (when every model is built) is a face no model's run includes. The scene is
//! bounded by the command's scene budget ([`crate::mesh::SceneLimits`]).

use super::lumps::*;
use super::records::{Face, Model as NfModel, Name64, TexMatrix, Vec3};
use crate::bsp::Bsp;
use crate::error::Result;
use crate::mesh::geom::unit_f32;
use crate::mesh::place::{placements, read_entities, star_model, PlaceKeys};
use crate::mesh::scene::{
    try_reserve, Material, MaterialTable, MeshOptions, Model, ModelSelect, Scene, SceneBudget, Skipped, Surface, SurfaceFlags, SurfaceKind,
    FALLBACK_TEXTURE_SIZE,
};
use crate::vec3::{cross, dot, sub};
use zerocopy::little_endian::U32;

/// Face surface flag: sky (the compiler's `SURF_SKY`).
pub const SURF_SKY: u32 = 1 << 2;
/// Face surface flag: not drawn (the compiler's `CONTENTS_NODRAW`).
pub const SURF_NODRAW: u32 = 1 << 5;

/// Scene flags from a texture name (case-insensitive): the `special/` tool textures.
pub fn name_flags(name: &str) -> SurfaceFlags {
    let n = name.to_ascii_lowercase();
    match n.strip_prefix("special/") {
        Some("sky") => SurfaceFlags::SKY,
        Some("nodraw") => SurfaceFlags::NODRAW,
        Some("clip") => SurfaceFlags::CLIP,
        Some(_) => SurfaceFlags::TOOL,
        None => SurfaceFlags::NONE,
    }
}

/// Scene flags of a face: its surface flags and its texture's name.
fn face_flags(face: &Face, name: &str) -> SurfaceFlags {
    let mut f = name_flags(name);
    let bits = face.flags.get();
    if bits & SURF_SKY != 0 {
        f |= SurfaceFlags::SKY;
    }
    if bits & SURF_NODRAW != 0 {
        f |= SurfaceFlags::NODRAW;
    }
    f
}

/// The scene of a Nightfire map.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    let faces: &[Face] = bsp.records(FACES)?;
    let verts: &[Vec3] = bsp.records(VERTEXES)?;
    let normals: &[Vec3] = bsp.records(NORMALS)?;
    let indices: &[U32] = bsp.records(INDICES)?;
    let textures: &[Name64] = bsp.records(TEXTURES)?;
    let matrices: &[TexMatrix] = bsp.records(TEXMATRIX)?;
    let models: &[NfModel] = bsp.records(MODELS)?;

    let mut scene = Scene::default();
    let mut table = MaterialTable::default();
    let mut places = read_entities(bsp, &mut scene.warnings)
        .map(|e| placements(&e.list, PlaceKeys::OriginAnglesOrYaw, &mut scene.warnings, star_model))
        .unwrap_or_default();
    places.remove(&0);
    let mut budget = SceneBudget::new(opts);
    let mut covered = vec![false; faces.len()];
    let mut no_size = 0usize;
    let skip = |scene: &mut Scene, index: usize, reason: String| {
        scene.skipped.push(Skipped { lump: FACES as u16, index: index as u32, reason });
    };
    let runs: Vec<(usize, i64, i64)> = if models.is_empty() {
        vec![(0, 0, faces.len() as i64)]
    } else {
        let count = if opts.models == ModelSelect::World { 1 } else { models.len() };
        models.iter().take(count).enumerate().map(|(i, m)| (i, m.first_face.get() as i64, m.face_count.get() as i64)).collect()
    };
    for (mi, first, n) in runs {
        let start = first.clamp(0, faces.len() as i64) as usize;
        let end = (first + n).clamp(start as i64, faces.len() as i64) as usize;
        if (end - start) as i64 != n {
            scene
                .warnings
                .push(format!("model {mi}: faces {first}+{n} leave the FACES lump (0..{}); only {start}..{end} are read", faces.len()));
        }
        let mut model = Model::placed(mi as u32, &places);
        for (fi, f) in faces.iter().enumerate().take(end).skip(start) {
            covered[fi] = true;
            let Some(tex) = textures.get(f.texture.get() as usize) else {
                skip(&mut scene, fi, format!("texture {} is outside the TEXTURES lump (0..{})", f.texture.get(), textures.len()));
                continue;
            };
            let Some(m) = matrices.get(f.texture_matrix.get() as usize) else {
                skip(
                    &mut scene,
                    fi,
                    format!("texture matrix {} is outside the TEXMATRIX lump (0..{})", f.texture_matrix.get(), matrices.len()),
                );
                continue;
            };
            let (fv, nv) = (f.first_vertex.get() as usize, f.vertex_count.get() as usize);
            let (fx, ni) = (f.first_index.get() as usize, f.index_count.get() as usize);
            let (Some(fp), Some(fnorm)) = (verts.get(fv..fv.saturating_add(nv)), normals.get(fv..fv.saturating_add(nv))) else {
                skip(
                    &mut scene,
                    fi,
                    format!("vertex range {fv}+{nv} is outside VERTEXES (0..{}) or NORMALS (0..{})", verts.len(), normals.len()),
                );
                continue;
            };
            let Some(run) = indices.get(fx..fx.saturating_add(ni)) else {
                skip(&mut scene, fi, format!("index range {fx}+{ni} is outside the INDICES lump (0..{})", indices.len()));
                continue;
            };
            if ni % 3 != 0 {
                skip(&mut scene, fi, format!("{ni} indices are not whole triangles"));
                continue;
            }
            if let Some((k, bad)) = run.iter().enumerate().find(|(_, i)| i.get() as usize >= nv) {
                skip(&mut scene, fi, format!("index {k} is {} but the face has {nv} vertices", bad.get()));
                continue;
            }
            let reserved = budget.take(nv, ni / 3).and_then(|()| {
                let v = &mut model.vertices;
                try_reserve(&mut v.positions, nv)
                    .and_then(|()| try_reserve(&mut v.normals, nv))
                    .and_then(|()| try_reserve(&mut v.uv0, nv))
                    .and_then(|()| try_reserve(&mut model.indices, ni))
                    .map_err(|e| budget.fail(e))
            });
            if let Err(e) = reserved {
                skip(&mut scene, fi, e);
                budget.stop()?;
                continue;
            }
            let name = tex.name();
            let size = opts.texture_size.and_then(|ts| ts(&name));
            let flags = face_flags(f, &name);
            let material = table.intern(&mut scene.materials, &name, || {
                if size.is_none() {
                    no_size += 1;
                }
                Material { name: name.to_string(), flags: name_flags(&name), size }
            });
            let [w, h] = scene.materials[material as usize].size.unwrap_or(FALLBACK_TEXTURE_SIZE).map(|x| x.max(1) as f32);
            let (s, t) = (m.s.map(|x| x.get()), m.t.map(|x| x.get()));
            let base = model.vertices.positions.len() as u32;
            let v = &mut model.vertices;
            let pos: Vec<[f32; 3]> = fp.iter().map(|p| p.xyz.map(|x| x.get())).collect();
            let nrm: Vec<[f32; 3]> = fnorm.iter().map(|n| unit_f32(n.xyz.map(|x| x.get())).unwrap_or([0.0, 0.0, 1.0])).collect();
            v.uv0.extend(pos.iter().map(|p| [(dot(*p, [s[0], s[1], s[2]]) + s[3]) / w, (dot(*p, [t[0], t[1], t[2]]) + t[3]) / h]));
            let first_index = model.indices.len() as u32;
            for tri in run.chunks_exact(3) {
                let [a, b, c] = [tri[0].get() as usize, tri[1].get() as usize, tri[2].get() as usize];
                let geo = cross(sub(pos[b], pos[a]), sub(pos[c], pos[a]));
                let stored = [0, 1, 2].map(|k| nrm[a][k] + nrm[b][k] + nrm[c][k]);
                let (b, c) = if dot(geo, stored) < 0.0 { (c, b) } else { (b, c) };
                model.indices.extend_from_slice(&[base + a as u32, base + b as u32, base + c as u32]);
            }
            v.positions.extend(pos);
            v.normals.extend(nrm);
            model.surfaces.push(Surface {
                lump: FACES as u16,
                index: fi as u32,
                material,
                flags,
                kind: SurfaceKind::TriangleSoup,
                vertex_kind: None,
                vertices: base..base + nv as u32,
                indices: first_index..model.indices.len() as u32,
            });
        }
        scene.models.push(model);
    }
    if opts.models == ModelSelect::All {
        for fi in (0..faces.len()).filter(|&i| !covered[i]) {
            skip(&mut scene, fi, "no model's face run includes it".into());
        }
    }
    if no_size > 0 {
        scene.warnings.push(format!(
            "{no_size} textures have no known size (Nightfire keeps them outside the map): their UVs assume {}×{} texels",
            FALLBACK_TEXTURE_SIZE[0], FALLBACK_TEXTURE_SIZE[1]
        ));
    }
    if opts.lightmaps.is_some() {
        scene.warnings.push("nightfire lightmaps are not decoded: no lightmap UVs".into());
    }
    Ok(scene)
}
