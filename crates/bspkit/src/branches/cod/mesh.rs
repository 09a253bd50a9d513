//! Call of Duty geometry for the scene model ([`crate::mesh`]) (respawn_cod_facts.md §2.2,
//! §2.3, §2.5 for CoD4; Call of Duty 1 / 2 layouts in [`super::records12`]: the same soups with
//! one set of lumps and smaller records, read by the same builder).
//!
//! CoD4 draws its world as triangle soups: each soup names a material, a run of draw vertices
//! and a run of `u16` draw indices counted from the run's first vertex. The map stores two
//! copies, layered (TRIANGLES 9, DRAWVERTS 10, DRAWINDICES 11) and simple (UNLAYERED_* 47, 48,
//! 49); the layered set is read, or the simple one when the layered soups lump is empty. Each
//! model (MODELS 37) names its run of each set: model 0 is the world, model `N` is `*N`, placed
//! by the entity whose `model` key names it.
//!
//! Each soup becomes one [`Surface`] (its lump and record index as identity) with positions,
//! normals (normalised; zero ones become +Z), `uv0` (the vertex texture coordinate) and colours
//! as stored. Triangles are wound as stored after swapping their last two corners, so that they
//! run counter-clockwise around the stored vertex normals (checked on the corpus by the test).
//! Lightmaps ([`super::lighting`], every branch): with `opts.lightmaps` given, every vertex
//! gets `uv1` from its stored lightmap coordinate (CoD1's 44-byte vertex at +20, the 68-byte
//! one at +36) through [`crate::lightmap::Lightmaps::uv_native`] of its soup's lightmap
//! (`[0, 0]` for soups without one, or naming one past the pages) and each surface its atlas
//! page in `lightmap_pages`.
//!
//! Material flags come from the name only ([`name_flags`]): the compiler's surface and content
//! bits are not documented in the format notes.
//!
//! A soup whose material, vertex run or index run is outside its lump, or with an index past
//! its vertex count or an index count that is not whole triangles, is [`Skipped`] with the
//! reason, and so (when every model is built) is a soup no model's run includes. Soups may
//! share vertex runs, so a scene is bounded by the command's scene budget
//! ([`crate::mesh::SceneLimits`]): past it the build stops with a `limit_exceeded` error.

use super::lumps::*;
use super::records::{DrawVert, Material as CodMaterial, Model as CodModel, TriangleSoup};
use super::records12::{DrawVert1, Model12, TriSoup12};
use crate::bsp::Bsp;
use crate::error::Result;
use crate::mesh::geom::unit_f32;
use crate::mesh::place::{placements, read_entities, star_model, PlaceKeys};
use crate::mesh::scene::{
    try_reserve, Material, MaterialTable, MeshOptions, Model, ModelSelect, Scene, SceneBudget, Skipped, Surface, SurfaceFlags, SurfaceKind,
};
use zerocopy::little_endian::U16;

/// Scene flags from a CoD4 material name (case-insensitive): `caulk*` → nodraw, `clip*` →
/// clip, `trigger*` → trigger, `hint*` / `skip*` / `portal*` / `origin*` → tool, `sky*` (or
/// containing `/sky`) → sky, `water*` → water.
pub fn name_flags(name: &str) -> SurfaceFlags {
    let n = name.to_ascii_lowercase();
    let mut f = SurfaceFlags::NONE;
    let tools = ["hint", "skip", "portal", "origin"];
    if n.starts_with("caulk") {
        f |= SurfaceFlags::NODRAW;
    }
    if n.starts_with("clip") {
        f |= SurfaceFlags::CLIP;
    }
    if n.starts_with("trigger") {
        f |= SurfaceFlags::TRIGGER;
    }
    if tools.iter().any(|t| n.starts_with(t)) {
        f |= SurfaceFlags::TOOL;
    }
    if n.starts_with("sky") || n.contains("/sky") {
        f |= SurfaceFlags::SKY;
    }
    if n.starts_with("water") {
        f |= SurfaceFlags::WATER;
    }
    f
}

/// Room for a soup of `nv` vertices and `ni` indices, fallibly.
fn reserve(model: &mut Model, nv: usize, ni: usize) -> Result<()> {
    let v = &mut model.vertices;
    try_reserve(&mut v.positions, nv)?;
    try_reserve(&mut v.normals, nv)?;
    try_reserve(&mut v.uv0, nv)?;
    try_reserve(&mut v.colours, nv)?;
    try_reserve(&mut model.indices, ni)
}

/// The vertices of a run of `nv` that `indices` use, ascending, when that is not all of them.
fn used_vertices(indices: &[U16], nv: usize) -> Option<Vec<u16>> {
    let mut u: Vec<u16> = indices.iter().map(|i| i.get()).collect();
    u.sort_unstable();
    u.dedup();
    (u.len() < nv).then_some(u)
}

/// A triangle soup as the scene reads it: CoD4's 24-byte soup and Call of Duty 1 / 2's 16-byte
/// one name the same five fields.
trait Soup {
    fn material(&self) -> usize;
    /// The soup's lightmap number.
    fn lightmap(&self) -> usize;
    /// (first vertex, vertex count, first index, index count).
    fn runs(&self) -> (usize, usize, usize, usize);
}

/// A draw vertex as the scene reads it (CoD4 / CoD2 68 bytes, CoD1 44 bytes).
trait Vertex {
    fn xyz(&self) -> [f32; 3];
    fn normal(&self) -> [f32; 3];
    fn uv(&self) -> [f32; 2];
    fn colour(&self) -> [u8; 4];
    fn lightmap_coord(&self) -> [f32; 2];
}

macro_rules! soup_and_vertex {
    ($soup:ty, $vert:ty) => {
        impl Soup for $soup {
            fn material(&self) -> usize {
                self.material.get() as usize
            }
            fn lightmap(&self) -> usize {
                self.lightmap.into()
            }
            fn runs(&self) -> (usize, usize, usize, usize) {
                (
                    self.first_vertex.get() as usize,
                    self.vertex_count.get() as usize,
                    self.first_index.get() as usize,
                    self.index_count.get() as usize,
                )
            }
        }
        impl Vertex for $vert {
            fn xyz(&self) -> [f32; 3] {
                self.xyz.map(|c| c.get())
            }
            fn normal(&self) -> [f32; 3] {
                self.normal.map(|c| c.get())
            }
            fn uv(&self) -> [f32; 2] {
                self.tex_coord.map(|c| c.get())
            }
            fn colour(&self) -> [u8; 4] {
                self.colour
            }
            fn lightmap_coord(&self) -> [f32; 2] {
                self.lightmap_coord.map(|c| c.get())
            }
        }
    };
}
soup_and_vertex!(TriangleSoup, DrawVert);
soup_and_vertex!(TriSoup12, DrawVert1);

/// Where a scene's soups, vertices and indices live, and each model's soup run.
struct SoupSet<'a, S, V> {
    soup_lump: usize,
    vert_lump: usize,
    index_lump: usize,
    soups: &'a [S],
    verts: &'a [V],
    indices: &'a [U16],
    materials: &'a [CodMaterial],
    /// (first soup, soup count) of every model; empty for a map without models.
    model_runs: Vec<(i64, i64)>,
    /// Copy only the vertices a soup's indices use (Call of Duty 1 / 2).
    compact: bool,
}

/// The scene of a CoD4 map.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    if is_cod12(bsp.branch()) {
        return build_cod12(bsp, opts);
    }
    let layered: &[TriangleSoup] = bsp.records(LUMP_TRIANGLES)?;
    let (soup_lump, vert_lump, index_lump, set) = if layered.is_empty() {
        (LUMP_UNLAYERED_TRIANGLES, LUMP_UNLAYERED_DRAWVERTS, LUMP_UNLAYERED_DRAWINDICES, 1)
    } else {
        (LUMP_TRIANGLES, LUMP_DRAWVERTS, LUMP_DRAWINDICES, 0)
    };
    let models: &[CodModel] = bsp.records(LUMP_MODELS)?;
    let set = SoupSet {
        soup_lump,
        vert_lump,
        index_lump,
        soups: bsp.records::<TriangleSoup>(soup_lump)?,
        verts: bsp.records::<DrawVert>(vert_lump)?,
        indices: bsp.records(index_lump)?,
        materials: bsp.records(LUMP_MATERIALS)?,
        model_runs: models.iter().map(|m| (m.first_tri_soup[set].get() as i64, m.tri_soup_count[set].get() as i64)).collect(),
        compact: false,
    };
    build_soups(bsp, opts, &set)
}

/// The scene of a Call of Duty 1 / United Offensive or Call of Duty 2 map: one set of soups
/// (CoD1 TRIANGLESOUPS 6, DRAWVERTS 7 of 44 bytes, DRAWINDICES 8; CoD2 TRIANGLES 7, DRAWVERTS 8
/// of 68 bytes, DRAWINDICES 9), each model naming its run.
fn build_cod12(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    use super::lumps::{cod1_ids as c1, cod2_ids as c2};
    let cod2 = bsp.branch().id == "cod2";
    let (soup_lump, vert_lump, index_lump, models_lump) = if cod2 {
        (c2::TRIANGLES, c2::DRAWVERTS, c2::DRAWINDICES, c2::MODELS)
    } else {
        (c1::TRIANGLESOUPS, c1::DRAWVERTS, c1::DRAWINDICES, c1::MODELS)
    };
    let models: &[Model12] = bsp.records(models_lump)?;
    let model_runs = models.iter().map(|m| (m.first_tri_soup.get() as i64, m.tri_soup_count.get() as i64)).collect();
    let soups: &[TriSoup12] = bsp.records(soup_lump)?;
    let (indices, materials) = (bsp.records(index_lump)?, bsp.records(c1::MATERIALS)?);
    if cod2 {
        let verts: &[DrawVert] = bsp.records(vert_lump)?;
        build_soups(bsp, opts, &SoupSet { soup_lump, vert_lump, index_lump, soups, verts, indices, materials, model_runs, compact: true })
    } else {
        let verts: &[DrawVert1] = bsp.records(vert_lump)?;
        build_soups(bsp, opts, &SoupSet { soup_lump, vert_lump, index_lump, soups, verts, indices, materials, model_runs, compact: true })
    }
}

/// The scene of one set of soups.
fn build_soups<S: Soup, V: Vertex>(bsp: &Bsp, opts: &MeshOptions, set: &SoupSet<'_, S, V>) -> Result<Scene> {
    let SoupSet { soup_lump, vert_lump, index_lump, soups, verts, indices, materials, .. } = *set;
    let mut scene = Scene::default();
    let mut table = MaterialTable::default();
    let mut places = read_entities(bsp, &mut scene.warnings)
        .map(|e| placements(&e.list, PlaceKeys::OriginAnglesOrYaw, &mut scene.warnings, star_model))
        .unwrap_or_default();
    // The world model names no entity here (its entry is worldspawn's).
    places.remove(&0);
    let mut budget = SceneBudget::new(opts);
    let lightmaps = opts.lightmaps;
    // Soups some model's run names; with every model built, the others are reported.
    let mut covered = vec![false; soups.len()];
    let skip = |scene: &mut Scene, index: usize, reason: String| {
        scene.skipped.push(Skipped { lump: soup_lump as u16, index: index as u32, reason });
    };
    // A map without a models lump still has its world: every soup.
    let runs: Vec<(usize, i64, i64)> = if set.model_runs.is_empty() {
        vec![(0, 0, soups.len() as i64)]
    } else {
        let count = if opts.models == ModelSelect::World { 1 } else { set.model_runs.len() };
        set.model_runs.iter().take(count).enumerate().map(|(i, &(first, n))| (i, first, n)).collect()
    };
    for (mi, first, n) in runs {
        let start = first.clamp(0, soups.len() as i64) as usize;
        let end = (first + n).clamp(start as i64, soups.len() as i64) as usize;
        if (end - start) as i64 != n {
            scene.warnings.push(format!(
                "model {mi}: soups {first}+{n} leave the {} lump (count {}); only {start}..{end} are read",
                bsp.branch().lumps[soup_lump].name,
                soups.len()
            ));
        }
        let mut model = Model::placed(mi as u32, &places);
        for (si, s) in soups.iter().enumerate().take(end).skip(start) {
            covered[si] = true;
            let Some(mat) = materials.get(s.material()) else {
                skip(&mut scene, si, format!("material {} is outside the MATERIALS lump (count {})", s.material(), materials.len()));
                continue;
            };
            let (fv, nv, fi, ni) = s.runs();
            let Some(sv) = verts.get(fv..fv.saturating_add(nv)) else {
                skip(
                    &mut scene,
                    si,
                    format!("vertex range {fv}+{nv} is outside the {} lump (count {})", bsp.branch().lumps[vert_lump].name, verts.len()),
                );
                continue;
            };
            let Some(si_idx) = indices.get(fi..fi.saturating_add(ni)) else {
                skip(
                    &mut scene,
                    si,
                    format!("index range {fi}+{ni} is outside the {} lump (count {})", bsp.branch().lumps[index_lump].name, indices.len()),
                );
                continue;
            };
            if ni % 3 != 0 {
                skip(&mut scene, si, format!("{ni} indices are not whole triangles"));
                continue;
            }
            if let Some((k, bad)) = si_idx.iter().enumerate().find(|(_, i)| i.get() as usize >= nv) {
                skip(&mut scene, si, format!("index {k} is {} but the soup has {nv} vertices", bad.get()));
                continue;
            }
            // Call of Duty 2's compiler lets soups name a long shared vertex run of which they
            // use a few (surf_concept, docs/real-maps.md: 3,498 soups name 34.5 M vertices of the
            // lump's 52,255), so for CoD1 / CoD2 only the vertices a soup's indices use are
            // copied, in run order. CoD4 keeps whole runs (its corpus soups leave a few unused;
            // its scenes stay as they were).
            let used = if set.compact { used_vertices(si_idx, nv) } else { None };
            let kept: Vec<&V> = match &used {
                Some(u) => u.iter().map(|&j| &sv[j as usize]).collect(),
                None => sv.iter().collect(),
            };
            let nk = kept.len();
            if let Err(e) = budget.take(nk, ni / 3).and_then(|()| reserve(&mut model, nk, ni).map_err(|e| budget.fail(e))) {
                skip(&mut scene, si, e);
                budget.stop()?;
                continue;
            }
            let name = mat.name();
            let flags = name_flags(&name);
            let material = table.intern(&mut scene.materials, &name, || Material { name: name.to_string(), flags, size: None });
            let base = model.vertices.positions.len() as u32;
            let v = &mut model.vertices;
            v.positions.extend(kept.iter().map(|d| d.xyz()));
            v.normals.extend(kept.iter().map(|d| unit_f32(d.normal()).unwrap_or([0.0, 0.0, 1.0])));
            v.uv0.extend(kept.iter().map(|d| d.uv()));
            v.colours.extend(kept.iter().map(|d| d.colour()));
            if let Some(lms) = lightmaps {
                let face = lms.face(LUMP_LIGHTBYTES as u16, s.lightmap() as u32);
                let uv1 = &mut model.vertices.uv1;
                // Vertices before the first lit soup of the model get [0, 0] too.
                uv1.resize(base as usize, [0.0; 2]);
                try_reserve(uv1, nk)?;
                uv1.extend(kept.iter().map(|d| face.and_then(|f| lms.uv_native(f, d.lightmap_coord())).unwrap_or([0.0; 2])));
                model.lightmap_pages.resize(model.surfaces.len(), u32::MAX);
                model.lightmap_pages.push(face.map_or(u32::MAX, |f| f.page));
            }
            // A run index to its place among the kept vertices (every index is kept).
            let local = |i: &U16| match &used {
                Some(u) => base + u.binary_search(&i.get()).unwrap_or_default() as u32,
                None => base + i.get() as u32,
            };
            let first_index = model.indices.len() as u32;
            for t in si_idx.chunks_exact(3) {
                model.indices.extend_from_slice(&[local(&t[0]), local(&t[2]), local(&t[1])]);
            }
            model.surfaces.push(Surface {
                lump: soup_lump as u16,
                index: si as u32,
                material,
                flags,
                kind: SurfaceKind::TriangleSoup,
                vertex_kind: None,
                vertices: base..base + nk as u32,
                indices: first_index..model.indices.len() as u32,
            });
        }
        if lightmaps.is_some() {
            if model.lightmap_pages.iter().any(|&p| p != u32::MAX) {
                model.vertices.uv1.resize(model.vertices.positions.len(), [0.0; 2]);
                model.lightmap_pages.resize(model.surfaces.len(), u32::MAX);
            } else {
                model.vertices.uv1 = Vec::new();
                model.lightmap_pages = Vec::new();
            }
        }
        scene.models.push(model);
    }
    if opts.models == ModelSelect::All {
        for si in (0..soups.len()).filter(|&i| !covered[i]) {
            skip(&mut scene, si, "no model's soup run includes it".into());
        }
    }
    Ok(scene)
}
