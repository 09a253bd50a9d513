//! Respawn geometry for the scene model ([`crate::mesh`]): every mesh of every model, read
//! through the typed [`View`] so Titanfall (v29), Titanfall 2 (v36/37) and Apex (v47–52) share
//! one path (respawn_cod_facts.md §1.8).
//!
//! A mesh is a run of MESH_INDICES (`3 × num_triangles` from `first_mesh_index`), each index
//! plus its MATERIAL_SORT's `vertex_offset` naming a vertex of the lump `flags & 0x600` picks
//! (lit flat, lit bump, unlit, unlit TS). That vertex names a VERTICES position and a
//! VERTEX_NORMALS normal and carries the albedo UV (already in texture widths), a lightmap UV
//! (lit kinds) and a colour (kinds that have one). The material is material sort → TEXTURE_DATA
//! → its name (TEXTURE_DATA_STRING_TABLE / _DATA before Apex, SURFACE_NAMES in Apex).
//!
//! Lightmap UVs: with `opts.lightmaps` given, a lit surface's vertices get `uv1` from their
//! stored page coordinate through [`crate::lightmap::Lightmaps::uv_native`] of its material
//! sort's LIGHTMAP_HEADERS page (`super::lighting`), and its `lightmap_pages` entry is that
//! page's atlas page; unlit surfaces (or pages not decoded) get `[0, 0]` and no page.
//! VERTEX_BLINN_PHONG is typed but no mesh flag selects it in the layouts known here (the
//! `0x600` field has four values), so no surface has that kind.
//!
//! Triangles are stored clockwise seen from the front (Direct3D order, as Source); the scene
//! wants counter-clockwise, so each triangle's last two corners are swapped.
//!
//! Flags: material names (`tools/toolsskybox` sky, `tools/toolsnodraw`, `…trigger`, `…clip`,
//! other `tools/` names tool) and, before Apex, LEVEL_INFO's `first_transparent_mesh` /
//! `first_sky_mesh` split of the world model's meshes. Other mesh flag bits are not
//! interpreted.

use std::collections::HashMap;

use super::lumps::{LUMP_GAME_LUMP, LUMP_LIGHTMAP_HEADERS, LUMP_MESHES};
use super::records::{MaterialSortRecord, MeshRecord, ModelRecord, TextureDataRecord};
use super::view::{Apex, Game, LevelInfo, Titanfall, Titanfall2, TitanfallX360, View};
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::entities::Entity;
use crate::mesh::place::{placements, read_entities, star_model, PlaceKeys, Placement};
use crate::mesh::scene::{
    Material, MaterialTable, MeshOptions, Model, ModelSelect, Prop, Scene, SceneBudget, Skipped, Surface, SurfaceFlags, SurfaceKind,
};

/// The scene of a Respawn map.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    match bsp.branch().id {
        "titanfall" => build_game(View::<Titanfall>::new(bsp)?, opts),
        "titanfall_x360" => build_game(View::<TitanfallX360>::new(bsp)?, opts),
        "titanfall2" => build_game(View::<Titanfall2>::new(bsp)?, opts),
        _ => build_game(View::<Apex>::new(bsp)?, opts),
    }
}

/// Flags a material name implies (Respawn keeps Source's `tools/` names). MRVN-Radiant's maps
/// (Titanfall 2 `mp_hippodrome`) name Quake 3-style shaders: a material in a `skybox/` folder
/// is sky (`skybox\sky_lightblue`), and `common/caulk` and `common/nodraw` are not drawn, as in
/// Quake 3.
pub fn name_flags(name: &str) -> SurfaceFlags {
    let n = name.to_ascii_lowercase().replace('\\', "/");
    let base = n.rsplit('/').next().unwrap_or(&n);
    let mut f = SurfaceFlags::NONE;
    if base.contains("skybox") || base == "toolssky" || n.split('/').rev().skip(1).any(|dir| dir == "skybox") {
        f |= SurfaceFlags::SKY;
    }
    if base.contains("nodraw") || n.strip_prefix("common/").is_some_and(|c| c.starts_with("caulk")) {
        f |= SurfaceFlags::NODRAW;
    }
    if base.contains("trigger") {
        f |= SurfaceFlags::TRIGGER;
    }
    if base.contains("clip") {
        f |= SurfaceFlags::CLIP;
    }
    if n.starts_with("tools/") && !f.intersects(SurfaceFlags::SKY) {
        f |= SurfaceFlags::TOOL;
    }
    f
}

/// Where the world model's transparent and sky meshes start (LEVEL_INFO, v29–v37).
fn world_splits<G: Game>(view: &View<G>) -> (Option<u32>, Option<u32>) {
    match view.level_info() {
        Ok(Some(LevelInfo::R1(l))) => (Some(l.first_transparent_mesh.get()), Some(l.first_sky_mesh.get())),
        _ => (None, None),
    }
}

fn normalise(n: [f32; 3]) -> Option<[f32; 3]> {
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    (len.is_finite() && len > 1e-6).then(|| [n[0] / len, n[1] / len, n[2] / len])
}

/// The entity placing each brush model (`"model" "*N"`, N ≥ 1): lump 0's entities first (their
/// index is kept), then the `.ent` partitions' (placed, but with no entity-lump index). A model
/// is named by its entity's targetname, else its classname.
fn respawn_placements(bsp: &Bsp, warnings: &mut Vec<String>) -> HashMap<u32, (Option<usize>, Placement)> {
    let model_of = |e: &Entity| {
        let (n, _) = star_model(e)?;
        Some((n, e.get("targetname").or_else(|| e.classname()).map(|s| s.into_owned()).unwrap_or_default()))
    };
    let mut out: HashMap<u32, (Option<usize>, Placement)> = match read_entities(bsp, warnings) {
        Some(ents) => {
            placements(&ents.list, PlaceKeys::OriginAngles, warnings, model_of).into_iter().map(|(n, p)| (n, (Some(p.entity), p))).collect()
        }
        None => HashMap::new(),
    };
    if let Ok(parts) = super::ent::entity_partitions(bsp) {
        for part in &parts {
            match part.entities() {
                Ok(ents) => {
                    for (n, p) in placements(&ents.list, PlaceKeys::OriginAngles, warnings, model_of) {
                        out.entry(n).or_insert((None, p));
                    }
                }
                Err(e) => warnings.push(format!("{}: {e}", part.path.display())),
            }
        }
    }
    // The world is not placed by an entity here.
    out.remove(&0);
    out
}

fn build_game<G: Game>(view: View<'_, G>, opts: &MeshOptions) -> Result<Scene> {
    let bsp = view.bsp();
    let mut scene = Scene::default();
    let mut table = MaterialTable::default();
    let meshes = view.meshes()?;
    let models = view.models()?;
    let positions = view.vertices()?;
    let normals = view.vertex_normals()?;
    let (first_transparent, first_sky) = world_splits(&view);
    let placed =
        if models.len() > 1 && opts.models == ModelSelect::All { respawn_placements(bsp, &mut scene.warnings) } else { HashMap::new() };
    let mut bad_normals = 0usize;
    let mut budget = SceneBudget::new(opts);

    let model_count = if opts.models == ModelSelect::World { models.len().min(1) } else { models.len() };
    for (mi, m) in models.iter().enumerate().take(model_count) {
        let mut model = Model { index: mi as u32, name: if mi == 0 { "world".into() } else { format!("*{mi}") }, ..Default::default() };
        if let Some((entity, p)) = placed.get(&(mi as u32)) {
            model.entity = *entity;
            model.origin = p.origin;
            model.angles = p.angles;
            model.name = p.name.clone();
        }
        let mut colours: Vec<[u8; 4]> = Vec::new();
        let mut any_colour = false;
        let mut lightmap_uvs: Vec<[f32; 2]> = Vec::new();
        let mut pages: Vec<u32> = Vec::new();
        let mut any_lit = false;
        let first = m.first_mesh() as usize;
        let end = first.saturating_add(m.num_meshes() as usize);
        if end > meshes.len() {
            scene.warnings.push(format!("model {mi}: meshes {first}..{end} run past the {} meshes", meshes.len()));
        }
        for (i, mesh) in meshes.iter().enumerate().take(end).skip(first) {
            let skip = |reason: String| Skipped { lump: LUMP_MESHES as u16, index: i as u32, reason };
            let kind = mesh.vertex_kind();
            let corners: Vec<u64> = match view.mesh_corners(i) {
                Ok(c) => c.collect(),
                Err(e) => {
                    scene.skipped.push(skip(e.to_string()));
                    continue;
                }
            };
            let verts = match view.vertices_of(kind) {
                Ok(v) => v,
                Err(e) => {
                    scene.skipped.push(skip(e.to_string()));
                    continue;
                }
            };
            // The mesh's distinct vertices, in order: allocations per mesh bounded by its
            // corner count (or the 65,536 values its u16 indices span) whatever they say.
            let (used, ranks) = distinct_ranks(&corners);
            let mut infos = Vec::with_capacity(used.len());
            let mut broken = None;
            for &v in &used {
                match verts.get(v as usize) {
                    Some(info) if (info.position as usize) < positions.len() && (info.normal as usize) < normals.len() => infos.push(info),
                    Some(info) => {
                        broken = Some(format!(
                            "{} vertex {v} names position {} / normal {} (of {} / {})",
                            kind.name(),
                            info.position,
                            info.normal,
                            positions.len(),
                            normals.len()
                        ));
                        break;
                    }
                    None => {
                        broken = Some(format!("{} vertex {v} is past the {} in its lump", kind.name(), verts.len()));
                        break;
                    }
                }
            }
            // Meshes may share one index run: each is taken from the budget before it is pushed.
            if let Some(reason) = broken.map_or_else(|| budget.take(infos.len(), corners.len() / 3).err(), Some) {
                scene.skipped.push(skip(reason));
                budget.stop()?;
                continue;
            }

            let sort_record = view.material_sorts().ok().and_then(|s| s.get(mesh.material_sort() as usize));
            let sort = sort_record.map(|s| s.texture_data());
            let lightmap_header = sort_record.map(|s| s.lightmap_header()).filter(|&h| (0..u32::MAX as i64).contains(&h));
            let (name, size) = match (view.mesh_material(i), sort) {
                (Some(n), Some(td)) => {
                    let size = view.texture_data().ok().and_then(|t| t.get(td as usize)).map(|t| t.size());
                    (n.into_owned(), size.filter(|s| s[0] > 0 && s[1] > 0).map(|s| [s[0] as u32, s[1] as u32]))
                }
                _ => {
                    scene.warnings.push(format!("mesh {i}: material sort {} names no texture name", mesh.material_sort()));
                    (String::new(), None)
                }
            };
            let material = table.intern(&mut scene.materials, &name, || Material { name: name.clone(), flags: name_flags(&name), size });
            let mut flags = scene.materials[material as usize].flags;
            if mi == 0 {
                if first_sky.is_some_and(|s| i as u32 >= s) {
                    flags |= SurfaceFlags::SKY;
                } else if first_transparent.is_some_and(|t| i as u32 >= t) {
                    flags |= SurfaceFlags::TRANSLUCENT;
                }
            }

            let lit = infos.first().is_some_and(|v| v.lightmap_uv.is_some());
            let face = opts
                .lightmaps
                .zip(lightmap_header.filter(|_| lit))
                .and_then(|(lms, h)| lms.face(LUMP_LIGHTMAP_HEADERS as u16, h as u32).map(|f| (lms, f)));
            let base = model.vertices.positions.len() as u32;
            let vb = &mut model.vertices;
            for info in &infos {
                vb.positions.push(positions[info.position as usize].xyz.map(|c| c.get()));
                let n = normals[info.normal as usize].xyz.map(|c| c.get());
                vb.normals.push(normalise(n).unwrap_or_else(|| {
                    bad_normals += 1;
                    [0.0, 0.0, 1.0]
                }));
                vb.uv0.push(info.albedo_uv);
                colours.push(info.colour.unwrap_or([255; 4]));
                any_colour |= info.colour.is_some();
                let uv = face.zip(info.lightmap_uv).and_then(|((lms, f), st)| lms.uv_native(f, st));
                lightmap_uvs.push(uv.unwrap_or([0.0; 2]));
            }
            any_lit |= face.is_some();
            pages.push(face.map_or(u32::MAX, |(_, f)| f.page));
            let start = model.indices.len() as u32;
            for t in ranks.chunks_exact(3) {
                model.indices.extend_from_slice(&[base + t[0], base + t[2], base + t[1]]);
            }
            model.surfaces.push(Surface {
                lump: LUMP_MESHES as u16,
                index: i as u32,
                material,
                flags,
                kind: SurfaceKind::Mesh,
                vertex_kind: Some(kind),
                vertices: base..model.vertices.positions.len() as u32,
                indices: start..model.indices.len() as u32,
            });
        }
        if any_colour {
            model.vertices.colours = colours;
        }
        if opts.lightmaps.is_some() && any_lit {
            model.vertices.uv1 = lightmap_uvs;
            model.lightmap_pages = pages;
        }
        scene.models.push(model);
    }
    if bad_normals > 0 {
        scene.warnings.push(format!("{bad_normals} vertex normal(s) of zero length, taken as +Z"));
    }

    if !opts.no_props {
        match view.static_props() {
            Ok(Some(sp)) => {
                for (i, p) in sp.props().into_iter().enumerate() {
                    let Some(model) = p.model_name.clone() else {
                        scene.skipped.push(Skipped {
                            lump: LUMP_GAME_LUMP as u16,
                            index: i as u32,
                            reason: format!("static prop {i} names model {} past the dictionary", p.model),
                        });
                        continue;
                    };
                    scene.props.push(Prop {
                        model,
                        origin: p.origin,
                        angles: p.angles,
                        scale: p.scale,
                        skin: p.skin,
                        solid: p.solid as i32,
                        fade: p.fade,
                        lighting_origin: Some(p.lighting_origin),
                    });
                }
            }
            Ok(None) => {}
            Err(e) => scene.warnings.push(format!("static props not read: {e}")),
        }
    }
    Ok(scene)
}

/// The distinct values of `corners` in ascending order, and each corner's index in that list:
/// what sorting, deduplicating and binary-searching each corner give. A mesh's corners are
/// u16 indices plus one offset, so they span at most 65,536 values, and a table over the span
/// does it in linear time: unoptimised (the debug builds the tests run), the sort and the
/// searches were most of the CPU of building a scene with large meshes
/// (docs/setup-test-time.md, session 42). Wider spans are sorted.
fn distinct_ranks(corners: &[u64]) -> (Vec<u64>, Vec<u32>) {
    let (Some(&lo), Some(&hi)) = (corners.iter().min(), corners.iter().max()) else {
        return (Vec::new(), Vec::new());
    };
    let span = hi - lo;
    if span >= (corners.len() as u64).max(1 << 16) {
        let mut used = corners.to_vec();
        used.sort_unstable();
        used.dedup();
        let ranks = corners.iter().map(|c| used.binary_search(c).unwrap_or(0) as u32).collect();
        return (used, ranks);
    }
    const UNUSED: u32 = u32::MAX;
    let mut rank = vec![UNUSED; span as usize + 1];
    for &c in corners {
        rank[(c - lo) as usize] = 0;
    }
    let mut used = Vec::new();
    for (k, r) in rank.iter_mut().enumerate() {
        if *r != UNUSED {
            *r = used.len() as u32;
            used.push(lo + k as u64);
        }
    }
    let ranks = corners.iter().map(|&c| rank[(c - lo) as usize]).collect();
    (used, ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The old form: sort, dedup, and a binary search per corner.
    fn sorted_ranks(corners: &[u64]) -> (Vec<u64>, Vec<u32>) {
        let mut used = corners.to_vec();
        used.sort_unstable();
        used.dedup();
        let ranks = corners.iter().map(|c| used.binary_search(c).unwrap_or(0) as u32).collect();
        (used, ranks)
    }

    #[test]
    fn distinct_ranks_are_the_sorted_ranks() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        assert_eq!(distinct_ranks(&[]), (Vec::new(), Vec::new()));
        for case in 0..600 {
            let len = (next() % 400) as usize;
            // Offsets near 0 and near u64::MAX, spans inside and outside the table's reach.
            let base = [0, 7, 1 << 40, u64::MAX - (1 << 20)][case % 4];
            let spread = [1, 3, 200, 65_535, 65_536, 70_000, 1 << 30][case % 7];
            let corners: Vec<u64> = (0..len).map(|_| base.wrapping_add(next() % spread)).collect();
            assert_eq!(distinct_ranks(&corners), sorted_ranks(&corners), "case {case}");
        }
        let wide = [5, u64::MAX, 5, 0, 1 << 20];
        assert_eq!(distinct_ranks(&wide), sorted_ranks(&wide));
    }

    #[test]
    fn material_names_give_flags() {
        assert_eq!(name_flags("TOOLS\\TOOLSSKYBOX"), SurfaceFlags::SKY);
        assert_eq!(name_flags("tools/toolsnodraw"), SurfaceFlags::NODRAW | SurfaceFlags::TOOL);
        // MRVN-Radiant's names (Titanfall 2 mp_hippodrome).
        assert_eq!(name_flags("skybox\\sky_lightblue"), SurfaceFlags::SKY);
        assert_eq!(name_flags("common\\caulk"), SurfaceFlags::NODRAW);
        assert_eq!(name_flags("world\\dev\\dev_orange_512"), SurfaceFlags::NONE);
        // A `skybox` word elsewhere than a folder does not make sky.
        assert_eq!(name_flags("world/skyboxes_poster/wall"), SurfaceFlags::NONE);
        assert_eq!(name_flags("skybox"), SurfaceFlags::SKY);
    }
}
