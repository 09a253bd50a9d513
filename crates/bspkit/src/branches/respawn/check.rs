//! Cross-reference checks of Respawn maps (respawn_cod_facts.md §1.7, §1.9): every index a
//! record holds into another lump is in range, parallel lumps have equal counts, runs lie
//! inside the lump they name, external lumps agree with the directory, and the entity
//! partitions the map names are present beside it. Each reference checked here holds on the
//! three v37 corpus maps; Titanfall and Apex maps get the same checks through their own
//! layouts ([`super::view::Game`]).

use super::ent::{directory_length, entity_partition_paths, map_stem, partition_kinds};
use super::lumps::*;
use super::records::*;
use super::view::{Apex, Game, IndexRecord, Titanfall, Titanfall2, TitanfallX360, View};
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem, Severity};
use crate::directory::LumpOrigin;

/// Every check of a Respawn map.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    files(bsp, problems);
    let _ = match bsp.branch().id {
        "titanfall" => View::<Titanfall>::new(bsp).map(|v| references(&v, problems)),
        "titanfall_x360" => View::<TitanfallX360>::new(bsp).map(|v| references(&v, problems)),
        "titanfall2" => View::<Titanfall2>::new(bsp).map(|v| references(&v, problems)),
        _ => View::<Apex>::new(bsp).map(|v| references(&v, problems)),
    };
}

/// `"<index> (<NAME>)"`, the label problems carry.
fn label(bsp: &Bsp, index: usize) -> String {
    format!("{index} ({})", bsp.entry(index).map(|e| e.name).unwrap_or("?"))
}

/// External files: `.bsp_lump` sizes against the directory, `.ent` partitions present.
fn files(bsp: &Bsp, problems: &mut Vec<Problem>) {
    // open_questions.md B5: a `.bsp_lump` may differ in size from the lump it replaces. The one
    // known case is LIGHTMAP_DATA_REAL_TIME_LIGHTS in Titanfall 2: inside the `.bsp` it holds 9
    // bytes per lightmap texel, the `.bsp_lump` only the first 8 (bsp_tool's lightmap reader
    // reads a third, quarter-size page only from the in-file copy; mp_looby: 589824 vs 524288
    // bytes for one 512×128 page, the file a prefix of the lump). That layout is not a problem;
    // any other difference is reported.
    for e in bsp.lumps() {
        let LumpOrigin::BspLump(p) = &e.origin else { continue };
        let Some(stored) = directory_length(bsp, e.index) else { continue };
        if stored == e.length || rtl_without_third_page(bsp, e.index, stored) || apex_rtl_without_tail(bsp, e.index, stored, e.length) {
            continue;
        }
        let file = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // bspkit writes a set's `.bsp` last, with a time no older than its `.bsp_lump` files
        // (crate::mapset): a `.bsp_lump` newer than the `.bsp` that disagrees with it is a set
        // write cut off between its renames — the lumps new, the `.bsp` old.
        let time = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let newer = matches!((time(p), bsp.path().and_then(time)), (Some(l), Some(b)) if l > b);
        if newer {
            problems.push(Problem::error(
                Code::EXTERNAL_SIZE,
                label(bsp, e.index),
                None,
                format!(
                    "external {file} holds {} bytes, the .bsp directory says {stored}, and it is newer than the .bsp: an incomplete set (a write cut off after the .bsp_lump files were replaced and before the .bsp was); write the set again",
                    e.length
                ),
            ));
            continue;
        }
        problems.push(Problem::note(
            Code::EXTERNAL_SIZE,
            label(bsp, e.index),
            None,
            format!("external {file} holds {} bytes, the .bsp directory says {stored}; the external data is used", e.length),
        ));
    }
    if bsp.path().is_some() {
        if let Ok(kinds) = partition_kinds(bsp) {
            let found = entity_partition_paths(bsp).unwrap_or_default();
            for k in kinds {
                if !super::ent::is_safe_kind(&k) {
                    problems.push(Problem::warning(
                        Code::MISSING_PARTITION,
                        label(bsp, LUMP_ENTITY_PARTITIONS),
                        None,
                        format!("partition name {k:?} is not a plain file name part (separators or `..`); no file is read for it"),
                    ));
                    continue;
                }
                if !found.iter().any(|(kind, _)| *kind == k) {
                    problems.push(Problem::warning(
                        Code::MISSING_PARTITION,
                        label(bsp, LUMP_ENTITY_PARTITIONS),
                        None,
                        format!("partition {k:?} is listed but no {}_{k}.ent lies beside the map", map_stem(bsp).unwrap_or_default()),
                    ));
                }
            }
        }
    }
}

/// Titanfall 2's real-time-light lightmaps: the in-file lump holds 9 bytes per texel of every
/// LIGHTMAP_HEADERS page, its `.bsp_lump` 8, and the file is a prefix of the lump.
fn rtl_without_third_page(bsp: &Bsp, index: usize, stored: u64) -> bool {
    if index != LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS || bsp.branch().id != TITANFALL2.id {
        return false;
    }
    let Ok(headers) = bsp.records::<LightmapHeader>(LUMP_LIGHTMAP_HEADERS) else { return false };
    let texels = texels(headers);
    let (Ok(external), Some(e)) = (bsp.lump(index), bsp.entry(index)) else { return false };
    let inside = crate::bytes::slice(bsp.data(), e.offset, stored).unwrap_or(&[]);
    Some(stored) == texels.checked_mul(9) && Some(external.len() as u64) == texels.checked_mul(8) && inside.starts_with(external)
}

/// Apex real-time-light bytes of one page `(in the .bsp, in a .bsp_lump)`: `2 × (a + 2 × t)` in
/// a `.bsp_lump` and `a / 2` more in the `.bsp`, for `t` texels and `a` texels of the page with
/// both sides rounded up to a multiple of 4 (MRVN-Radiant's notes on the engine's loader;
/// season 13's `mp_lobby`, one 384 × 304 page, holds exactly 758,784 / 700,416 bytes).
pub fn apex_rtl_bytes<O: zerocopy::ByteOrder>(h: &LightmapHeader<O>) -> (u64, u64) {
    let (w, hh) = (h.width.get() as u64, h.height.get() as u64);
    let aligned = w.div_ceil(4) * 4 * (hh.div_ceil(4) * 4);
    let external = 2 * (aligned + 2 * w * hh);
    (external + aligned / 2, external)
}

/// Apex's real-time-light lightmaps: a `.bsp_lump` without the `a / 2` tail the `.bsp`
/// directory counts ([`apex_rtl_bytes`], summed over LIGHTMAP_HEADERS).
fn apex_rtl_without_tail(bsp: &Bsp, index: usize, stored: u64, external: u64) -> bool {
    if index != LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS || bsp.branch().id != APEX.id {
        return false;
    }
    let Ok(headers) = bsp.records::<LightmapHeader>(LUMP_LIGHTMAP_HEADERS) else { return false };
    let (inside, outside) =
        headers.iter().map(apex_rtl_bytes).fold((0u64, 0u64), |(a, b), (x, y)| (a.saturating_add(x), b.saturating_add(y)));
    stored == inside && external == outside
}

/// Texels of all lightmap pages (saturating: a hostile header list cannot overflow).
fn texels<O: zerocopy::ByteOrder>(headers: &[LightmapHeader<O>]) -> u64 {
    headers.iter().fold(0u64, |sum, h| sum.saturating_add(h.texels()))
}

/// Number of records in a lump (its declared record size, else `size`); 0 when absent.
fn n(bsp: &Bsp, index: usize, size: usize) -> usize {
    let size = bsp.record_size(index).unwrap_or(size).max(1);
    bsp.lump(index).map(|l| l.len() / size).unwrap_or(0)
}

/// `a` and `b` must hold as many records (when `b` is not empty).
fn parallel(bsp: &Bsp, problems: &mut Vec<Problem>, a: (usize, usize), b: (usize, usize)) {
    if b.1 != 0 {
        same_count(bsp, problems, a, b);
    }
}

/// `a` and `b` must hold as many records.
fn same_count(bsp: &Bsp, problems: &mut Vec<Problem>, (a, na): (usize, usize), (b, nb): (usize, usize)) {
    if na != nb {
        problems.push(Problem::error(Code::COUNT_MISMATCH, label(bsp, b), None, format!("{nb} records, but {} has {na}", label(bsp, a))));
    }
}

fn references<G: Game>(v: &View<G>, problems: &mut Vec<Problem>) {
    let bsp = v.bsp();
    let count = |index: usize, size: usize| n(bsp, index, size);
    let planes = count(LUMP_PLANES, 16);
    let texture_data = count(LUMP_TEXTURE_DATA, std::mem::size_of::<G::TextureData>());
    let meshes = count(LUMP_MESHES, 28);
    let sorts = count(LUMP_MATERIAL_SORTS, 12);
    let props = v.static_props();
    let num_props = props.as_ref().ok().map(|p| p.as_ref().map_or(0, |p| p.count));
    if let Err(e) = &props {
        problems.push(Problem::error(
            Code::LUMP_UNREADABLE,
            label(bsp, LUMP_GAME_LUMP),
            None,
            format!("the static prop game lump (sprp) does not decode: {}", e.kind),
        ));
    }

    same_count(bsp, problems, (LUMP_MESHES, meshes), (LUMP_MESH_BOUNDS, count(LUMP_MESH_BOUNDS, 32)));
    let obj_refs = count(LUMP_OBJ_REFERENCES, std::mem::size_of::<G::ObjRef>());
    same_count(bsp, problems, (LUMP_OBJ_REFERENCES, obj_refs), (LUMP_OBJ_REFERENCE_BOUNDS, count(LUMP_OBJ_REFERENCE_BOUNDS, 32)));

    // Models → meshes.
    let world_meshes = if let Ok(models) = v.models() {
        let l = label(bsp, LUMP_MODELS);
        let mut c = Checker::new(problems, &l);
        for (i, m) in models.iter().enumerate() {
            c.range(i, "meshes", (m.first_mesh() as i64, m.num_meshes() as i64), meshes, "MESHES");
        }
        models.first().map(|m| m.num_meshes() as usize)
    } else {
        None
    };

    meshes_and_materials(v, problems, texture_data, sorts);
    vertices(v, problems);

    // Object references: the world model's meshes, then the static props (bsp_tool notes).
    if let (Ok(refs), Some(world), Some(props)) = (v.obj_references(), world_meshes, num_props) {
        let l = label(bsp, LUMP_OBJ_REFERENCES);
        let mut c = Checker::new(problems, &l);
        for (i, r) in refs.iter().enumerate() {
            c.index(i, "object", r.value() as i64, world + props, "world meshes + static props");
        }
    }
    aabb_trees(v, problems, obj_refs);
    cells_and_portals(v, problems, planes);
    if !v.is_apex() {
        collision(v, problems, planes, texture_data, num_props);
    }
    lighting(v, problems, texture_data, sorts, num_props);
    if let (Ok(Some(info)), Some(props)) = (v.level_info(), num_props) {
        if info.num_static_props() as usize != props {
            let l = label(bsp, LUMP_LEVEL_INFO);
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                l,
                None,
                format!("{} static props, the sprp game lump holds {props}", info.num_static_props()),
            ));
        }
    }
    if let (Ok(Some(super::view::LevelInfo::R1(info))), Some(world)) = (v.level_info(), world_meshes) {
        let firsts = [info.first_decal_mesh.get(), info.first_transparent_mesh.get(), info.first_sky_mesh.get()];
        if !(firsts[0] <= firsts[1] && firsts[1] <= firsts[2] && firsts[2] as usize <= world) {
            problems.push(Problem::error(
                Code::BAD_VALUE,
                label(bsp, LUMP_LEVEL_INFO),
                None,
                format!("first decal / transparent / sky meshes {firsts:?} are not in order within the world's {world} meshes"),
            ));
        }
    }
    if let Ok(Some(sp)) = &props {
        let l = label(bsp, LUMP_GAME_LUMP);
        let mut c = Checker::new(problems, &l);
        for (i, p) in sp.props().iter().enumerate() {
            c.index(i, "sprp model", p.model as i64, sp.model_names.len(), "sprp model names");
        }
    }
    if v.is_apex() {
        apex(v, problems);
    }
}

fn meshes_and_materials<G: Game>(v: &View<G>, problems: &mut Vec<Problem>, texture_data: usize, sorts: usize) {
    use super::records::{MaterialSortRecord, MeshRecord, TextureDataRecord};
    let bsp = v.bsp();
    let indices = n(bsp, LUMP_MESH_INDICES, 2);
    if let (Ok(meshes), Ok(sort_list), Ok(index_list)) = (v.meshes(), v.material_sorts(), v.mesh_indices()) {
        let l = label(bsp, LUMP_MESHES);
        let mut c = Checker::new(problems, &l);
        for (i, m) in meshes.iter().enumerate() {
            let first = m.first_mesh_index() as i64;
            let len = 3 * m.num_triangles() as i64;
            c.range(i, "indices", (first, len), indices, "MESH_INDICES");
            c.index(i, "material sort", m.material_sort() as i64, sorts, "MATERIAL_SORTS");
            let (Some(sort), Some(run)) =
                (sort_list.get(m.material_sort() as usize), index_list.get(first as usize..(first + len) as usize))
            else {
                continue;
            };
            let kind = m.vertex_kind();
            let verts = n(bsp, kind.lump(), 1);
            let offset = sort.vertex_offset();
            if let Some(bad) = run.iter().map(|x| x.get() as i64 + offset).find(|&x| x < 0 || x as u64 >= verts as u64) {
                c.index(i, &format!("{} vertex (index + sort offset {offset})", kind.name()), bad, verts, &label(bsp, kind.lump()));
            }
        }
    }
    // A cubemap index 0 with an empty CUBEMAPS lump is the compilers' "none" (crossfire,
    // hippodrome: every sort and mesh says 0, the map has no cubemap).
    let cubemaps = n(bsp, LUMP_CUBEMAPS, 16);
    let cubemap_ok = |c: i64| c == -1 || (c == 0 && cubemaps == 0) || (0..cubemaps as i64).contains(&c);
    if let Ok(list) = v.material_sorts() {
        let lightmaps = n(bsp, LUMP_LIGHTMAP_HEADERS, 8);
        let l = label(bsp, LUMP_MATERIAL_SORTS);
        let mut c = Checker::new(problems, &l);
        for (i, s) in list.iter().enumerate() {
            c.index(i, "texture data", s.texture_data(), texture_data, "TEXTURE_DATA");
            if s.lightmap_header() != -1 {
                c.index(i, "lightmap header", s.lightmap_header(), lightmaps, "LIGHTMAP_HEADERS");
            }
            if let Some(cm) = s.cubemap().filter(|&cm| !cubemap_ok(cm)) {
                c.index(i, "cubemap", cm, cubemaps, "CUBEMAPS");
            }
        }
    }
    if let Ok(list) = v.lump::<MeshR2>(LUMP_MESHES).map(|l| if bsp.branch().id == TITANFALL2.id { l } else { &[] }) {
        let l = label(bsp, LUMP_MESHES);
        let mut c = Checker::new(problems, &l);
        for (i, m) in list.iter().enumerate().filter(|(_, m)| !cubemap_ok(m.cubemap as i64)) {
            c.index(i, "cubemap", m.cubemap as i64, cubemaps, "CUBEMAPS");
        }
    }
    // Texture names: a string table entry (v29–v37) or a SURFACE_NAMES byte offset (Apex).
    if let Ok(list) = v.texture_data() {
        let (target, len) = if v.is_apex() {
            (LUMP_SURFACE_NAMES, bsp.lump(LUMP_SURFACE_NAMES).map(|d| d.len()).unwrap_or(0))
        } else {
            (LUMP_TEXTURE_DATA_STRING_TABLE, n(bsp, LUMP_TEXTURE_DATA_STRING_TABLE, 4))
        };
        let l = label(bsp, LUMP_TEXTURE_DATA);
        let t = label(bsp, target);
        let mut c = Checker::new(problems, &l);
        for (i, td) in list.iter().enumerate() {
            c.index(i, "name", td.name_index(), len, &t);
        }
    }
    if let Ok(table) = v.texture_data_string_table() {
        let data = bsp.lump(LUMP_TEXTURE_DATA_STRING_DATA).map(|d| d.len()).unwrap_or(0);
        let l = label(bsp, LUMP_TEXTURE_DATA_STRING_TABLE);
        let mut c = Checker::new(problems, &l);
        for (i, off) in table.iter().enumerate() {
            c.index(i, "string offset", off.get() as i64, data, "TEXTURE_DATA_STRING_DATA bytes");
        }
    }
}

/// Every vertex of every kind names a position and a normal.
fn vertices<G: Game>(v: &View<G>, problems: &mut Vec<Problem>) {
    let bsp = v.bsp();
    let positions = n(bsp, LUMP_VERTICES, 12);
    let normals = n(bsp, LUMP_VERTEX_NORMALS, 12);
    for kind in [VertexKind::Unlit, VertexKind::LitFlat, VertexKind::LitBump, VertexKind::UnlitTs] {
        let Ok(list) = v.vertices_of(kind) else { continue };
        let l = label(bsp, kind.lump());
        let mut c = Checker::new(problems, &l);
        for i in 0..list.len() {
            let Some(x) = list.get(i) else { continue };
            c.index(i, "position", x.position as i64, positions, "VERTICES");
            c.index(i, "normal", x.normal as i64, normals, "VERTEX_NORMALS");
        }
    }
    if let Ok(list) = v.vertex_blinn_phong() {
        let l = label(bsp, LUMP_VERTEX_BLINN_PHONG);
        let mut c = Checker::new(problems, &l);
        for (i, x) in list.iter().map(VertexRecord::info).enumerate() {
            c.index(i, "position", x.position as i64, positions, "VERTICES");
            c.index(i, "normal", x.normal as i64, normals, "VERTEX_NORMALS");
        }
    }
}

/// CELL_AABB_NODES and CSM_AABB_NODES: child runs and object-reference runs.
fn aabb_trees<G: Game>(v: &View<G>, problems: &mut Vec<Problem>, obj_refs: usize) {
    let bsp = v.bsp();
    let csm_refs = n(bsp, LUMP_CSM_OBJ_REFERENCES, std::mem::size_of::<G::ObjRef>());
    let version = v.version();
    for (lump, refs, refs_name) in
        [(LUMP_CELL_AABB_NODES, obj_refs, "OBJ_REFERENCES"), (LUMP_CSM_AABB_NODES, csm_refs, "CSM_OBJ_REFERENCES")]
    {
        let runs: Vec<AabbRuns> = if v.is_apex() {
            let Ok(list) = v.lump::<AabbNodeR5<G::O>>(lump) else { continue };
            list.iter().map(|a| if lump == LUMP_CELL_AABB_NODES { a.cell_runs() } else { a.csm_runs(version) }).collect()
        } else {
            let Ok(list) = v.lump::<AabbNodeR1<G::O>>(lump) else { continue };
            list.iter().map(AabbNodeR1::runs).collect()
        };
        let l = label(bsp, lump);
        let mut c = Checker::new(problems, &l);
        for (i, r) in runs.iter().enumerate() {
            c.range(i, "children", (r.first_child as i64, r.num_children as i64), runs.len(), &l);
            if let Some((first, num)) = r.obj_refs {
                c.range(i, "object references", (first as i64, num as i64), refs, refs_name);
            }
        }
    }
}

fn cells_and_portals<G: Game>(v: &View<G>, problems: &mut Vec<Problem>, planes: usize) {
    let bsp = v.bsp();
    let cells = n(bsp, LUMP_CELLS, 8);
    let portals = n(bsp, LUMP_PORTALS, 12);
    let pverts = n(bsp, LUMP_PORTAL_VERTICES, 12);
    let pedges = n(bsp, LUMP_PORTAL_EDGES, 2);
    let edge_pairs = pedges / 2;
    if let Ok(list) = v.cell_bsp_nodes() {
        let l = label(bsp, LUMP_CELL_BSP_NODES);
        let mut c = Checker::new(problems, &l);
        for (i, node) in list.iter().enumerate() {
            let (plane, child) = (node.plane.get() as i64, node.child.get() as i64);
            if plane == -1 {
                c.index(i, "cell", child, cells, "CELLS");
            } else {
                c.index(i, "plane", plane, planes, "PLANES");
                c.index(i, "child node", child, list.len(), "CELL_BSP_NODES");
            }
        }
    }
    let water = if v.is_apex() { 0 } else { n(bsp, LUMP_LEAF_WATER_DATA, 12) };
    if let Ok(list) = v.cells() {
        let l = label(bsp, LUMP_CELLS);
        let mut c = Checker::new(problems, &l);
        for (i, cell) in list.iter().enumerate() {
            c.range(i, "portals", (cell.first_portal.get() as i64, cell.num_portals.get() as i64), portals, "PORTALS");
            if cell.leaf_water_data.get() != -1 {
                c.index(i, "leaf water data", cell.leaf_water_data.get() as i64, water, "LEAF_WATER_DATA");
            }
        }
    }
    let vrefs = n(bsp, LUMP_PORTAL_VERTEX_REFERENCES, 2);
    let erefs = n(bsp, LUMP_PORTAL_EDGE_REFERENCES, 2);
    if let Ok(list) = v.portals() {
        let l = label(bsp, LUMP_PORTALS);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            let run = (p.first_ref.get() as i64, p.num_refs as i64);
            c.range(i, "vertex references", run, vrefs, "PORTAL_VERTEX_REFERENCES");
            c.range(i, "edge references", run, erefs, "PORTAL_EDGE_REFERENCES");
            c.index(i, "plane", p.plane.get() as i64, planes, "PLANES");
            // A sky portal names the cell after the last on purpose (bsp_tool notes).
            if p.kind != PORTAL_SKYBOX {
                c.index(i, "cell", p.cell.get() as i64, cells, "CELLS");
            }
        }
    }
    let u16_refs = |problems: &mut Vec<Problem>, lump: usize, len: usize, target: &str| {
        if let Ok(list) = v.lump::<zerocopy::byteorder::U16<G::O>>(lump) {
            let l = label(bsp, lump);
            let mut c = Checker::new(problems, &l);
            for (i, x) in list.iter().enumerate() {
                c.index(i, "entry", x.get() as i64, len, target);
            }
        }
    };
    u16_refs(problems, LUMP_PORTAL_EDGES, pverts, "PORTAL_VERTICES");
    u16_refs(problems, LUMP_PORTAL_VERTEX_REFERENCES, pverts, "PORTAL_VERTICES");
    u16_refs(problems, LUMP_PORTAL_EDGE_REFERENCES, pedges, "PORTAL_EDGES");
    let sets = |problems: &mut Vec<Problem>, lump: usize, len: usize, target: &str| -> usize {
        let Ok(list) = v.lump::<IndexSet<G::O>>(lump) else { return 0 };
        let l = label(bsp, lump);
        let mut c = Checker::new(problems, &l);
        for (i, s) in list.iter().enumerate() {
            for x in s.used() {
                c.index(i, "entry", x, len, target);
            }
        }
        list.len()
    };
    let vertex_edges = sets(problems, LUMP_PORTAL_VERTEX_EDGES, edge_pairs, "PORTAL_EDGES pairs");
    parallel(bsp, problems, (LUMP_PORTAL_VERTICES, pverts), (LUMP_PORTAL_VERTEX_EDGES, vertex_edges));
    let ie = sets(problems, LUMP_PORTAL_EDGE_INTERSECT_EDGE, edge_pairs, "PORTAL_EDGES pairs");
    let iv = sets(problems, LUMP_PORTAL_EDGE_INTERSECT_VERTEX, pverts, "PORTAL_VERTICES");
    if let Ok(list) = v.portal_edge_intersect_headers() {
        if !list.is_empty() && list.len() != edge_pairs {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_PORTAL_EDGE_INTERSECT_HEADER),
                None,
                format!("{} records, but PORTAL_EDGES holds {edge_pairs} edges", list.len()),
            ));
        }
        let l = label(bsp, LUMP_PORTAL_EDGE_INTERSECT_HEADER);
        let mut c = Checker::new(problems, &l);
        for (i, h) in list.iter().enumerate() {
            let run = (h.first_set.get() as i64, h.num_sets.get() as i64);
            c.range(i, "intersect edges", run, ie, "PORTAL_EDGE_INTERSECT_EDGE");
            c.range(i, "intersect vertices", run, iv, "PORTAL_EDGE_INTERSECT_VERTEX");
        }
    }
}

/// The Titanfall / Titanfall 2 collision lumps: CM_* and TRICOLL_*.
fn collision<G: Game>(v: &View<G>, problems: &mut Vec<Problem>, planes: usize, texture_data: usize, num_props: Option<usize>) {
    let bsp = v.bsp();
    let geo_sets = n(bsp, LUMP_CM_GEO_SETS, 8);
    let prims = n(bsp, LUMP_CM_PRIMITIVES, 4);
    let brushes = n(bsp, LUMP_CM_BRUSHES, 32);
    let tricolls = n(bsp, LUMP_TRICOLL_HEADERS, 44);
    let contents = n(bsp, LUMP_CM_UNIQUE_CONTENTS, 4);
    let models = n(bsp, LUMP_MODELS, 32);
    let grid = v.cm_grid().ok().flatten();
    if let (Some(g), Ok(cells)) = (grid, v.cm_grid_cells()) {
        let want = (g.count[0].get() as i64).saturating_mul(g.count[1].get() as i64).saturating_add(models as i64);
        if !cells.is_empty() && cells.len() as i64 != want {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_CM_GRID_CELLS),
                None,
                format!("{} cells, CM_GRID's {} × {} plus {models} models make {want}", cells.len(), g.count[0].get(), g.count[1].get()),
            ));
        }
        let l = label(bsp, LUMP_CM_GRID_CELLS);
        let mut c = Checker::new(problems, &l);
        for (i, cell) in cells.iter().enumerate() {
            c.range(i, "geo sets", (cell.first_geo_set.get() as i64, cell.num_geo_sets.get() as i64), geo_sets, "CM_GEO_SETS");
        }
    }
    parallel(bsp, problems, (LUMP_CM_GEO_SETS, geo_sets), (LUMP_CM_GEO_SET_BOUNDS, n(bsp, LUMP_CM_GEO_SET_BOUNDS, 16)));
    parallel(bsp, problems, (LUMP_CM_PRIMITIVES, prims), (LUMP_CM_PRIMITIVE_BOUNDS, n(bsp, LUMP_CM_PRIMITIVE_BOUNDS, 16)));
    let primitive = |c: &mut Checker, i: usize, p: &CmPrimitive<G::O>| {
        c.index(i, "unique contents", p.unique_contents() as i64, contents, "CM_UNIQUE_CONTENTS");
        match (p.kind(), num_props) {
            (PRIMITIVE_BRUSH, _) => c.index(i, "brush", p.index() as i64, brushes, "CM_BRUSHES"),
            (PRIMITIVE_TRICOLL, _) => c.index(i, "tricoll", p.index() as i64, tricolls, "TRICOLL_HEADERS"),
            (PRIMITIVE_PROP, Some(props)) => c.index(i, "prop", p.index() as i64, props, "sprp props"),
            (PRIMITIVE_PROP, None) => {}
            (kind, _) => c.problems.push(Problem::error(Code::BAD_VALUE, c.lump, Some(i), format!("primitive type {kind} is unknown"))),
        }
    };
    if let Ok(list) = v.cm_geo_sets() {
        let l = label(bsp, LUMP_CM_GEO_SETS);
        let mut c = Checker::new(problems, &l);
        for (i, g) in list.iter().enumerate() {
            if g.num_primitives.get() == 1 {
                primitive(&mut c, i, &g.primitive);
            } else {
                c.range(i, "primitives", (g.primitive.index() as i64, g.num_primitives.get() as i64), prims, "CM_PRIMITIVES");
                c.index(i, "unique contents", g.primitive.unique_contents() as i64, contents, "CM_UNIQUE_CONTENTS");
            }
        }
    }
    if let Ok(list) = v.cm_primitives() {
        let l = label(bsp, LUMP_CM_PRIMITIVES);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            primitive(&mut c, i, p);
        }
    }
    // Brushes: six axial sides plus one per plane offset; their sides' properties and texture
    // vectors start at 6 × index + brush_side_offset.
    let offsets = v.cm_brush_side_plane_offsets().unwrap_or(&[]);
    let properties = n(bsp, LUMP_CM_BRUSH_SIDE_PROPERTIES, 2);
    if let Ok(list) = v.cm_brushes() {
        let first_plane = grid.map_or(0, |g| g.first_brush_plane.get() as i64);
        let l = label(bsp, LUMP_CM_BRUSHES);
        let mut c = Checker::new(problems, &l);
        for (i, b) in list.iter().enumerate() {
            let (index, offset, extra) = (b.index.get() as i64, b.brush_side_offset.get() as i64, b.num_plane_offsets as i64);
            if index != i as i64 {
                c.problems.push(Problem::error(Code::BAD_VALUE, c.lump, Some(i), format!("index field is {index}")));
            }
            c.range(i, "plane offsets", (offset, extra), offsets.len(), "CM_BRUSH_SIDE_PLANE_OFFSETS");
            c.range(i, "side properties", (6 * index + offset, 6 + extra), properties, "CM_BRUSH_SIDE_PROPERTIES");
            for k in offset..offset + extra {
                if let Some(o) = usize::try_from(k).ok().and_then(|k| offsets.get(k)) {
                    c.index(i, "side plane", first_plane + k - o.get() as i64, planes, "PLANES");
                }
            }
        }
        let want = 6 * list.len() + offsets.len();
        if properties != 0 && properties != want {
            c.problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_CM_BRUSH_SIDE_PROPERTIES),
                None,
                format!("{properties} sides, 6 per brush plus the plane offsets make {want}"),
            ));
        }
    }
    parallel(
        bsp,
        problems,
        (LUMP_CM_BRUSH_SIDE_PROPERTIES, properties),
        (LUMP_CM_BRUSH_SIDE_TEXTURE_VECTORS, n(bsp, LUMP_CM_BRUSH_SIDE_TEXTURE_VECTORS, 32)),
    );
    if let Ok(list) = v.cm_brush_side_properties() {
        let l = label(bsp, LUMP_CM_BRUSH_SIDE_PROPERTIES);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            c.index(i, "texture data", p.texture_data() as i64, texture_data, "TEXTURE_DATA");
        }
    }
    // Triangle collision.
    let triangles = v.tricoll_triangles().unwrap_or(&[]);
    let verts = n(bsp, LUMP_VERTICES, 12);
    let nodes = n(bsp, LUMP_TRICOLL_NODES, 16);
    let bevels = n(bsp, LUMP_TRICOLL_BEVEL_INDICES, 4);
    if let Ok(list) = v.tricoll_headers() {
        let l = label(bsp, LUMP_TRICOLL_HEADERS);
        let mut c = Checker::new(problems, &l);
        for (i, h) in list.iter().enumerate() {
            let nv = h.num_vertices.get() as i64;
            c.index(i, "texture data", h.texture_data.get() as i64, texture_data, "TEXTURE_DATA");
            c.range(i, "vertices", (h.first_vertex.get() as i64, nv), verts, "VERTICES");
            let tris = (h.first_triangle.get() as i64, h.num_triangles.get() as i64);
            c.range(i, "triangles", tris, triangles.len(), "TRICOLL_TRIANGLES");
            c.range(i, "nodes", (h.first_node.get() as i64, h.num_nodes()), nodes, "TRICOLL_NODES");
            c.range(
                i,
                "bevel indices",
                (h.first_bevel_index.get() as i64, h.num_bevel_indices.get() as i64),
                bevels,
                "TRICOLL_BEVEL_INDICES",
            );
            let run = usize::try_from(tris.0).ok().zip(usize::try_from(tris.1).ok()).and_then(|(f, k)| triangles.get(f..f.checked_add(k)?));
            for (j, t) in run.unwrap_or(&[]).iter().enumerate() {
                let far = (t.a() + t.b().max(t.c())) as i64;
                if far >= nv {
                    c.problems.push(Problem::error(
                        Code::INDEX_OUT_OF_RANGE,
                        label(bsp, LUMP_TRICOLL_TRIANGLES),
                        Some(tris.0 as usize + j),
                        format!("corner {far} is outside the {nv} vertices of TRICOLL_HEADERS[{i}]"),
                    ));
                }
            }
        }
    }
    parallel(bsp, problems, (LUMP_TRICOLL_TRIANGLES, triangles.len()), (LUMP_TRICOLL_BEVEL_STARTS, n(bsp, LUMP_TRICOLL_BEVEL_STARTS, 2)));
    if let Ok(list) = v.leaf_water_data() {
        let l = label(bsp, LUMP_LEAF_WATER_DATA);
        let mut c = Checker::new(problems, &l);
        for (i, w) in list.iter().enumerate() {
            c.index(i, "texture data", w.texture_data.get() as i64, texture_data, "TEXTURE_DATA");
        }
    }
}

fn lighting<G: Game>(v: &View<G>, problems: &mut Vec<Problem>, texture_data: usize, sorts: usize, num_props: Option<usize>) {
    let bsp = v.bsp();
    let probes = v.light_probes().map(|p| p.len()).unwrap_or(0);
    let refs = v.lightprobe_references();
    if let Ok(r) = &refs {
        let l = label(bsp, LUMP_LIGHTPROBE_REFERENCES);
        let mut c = Checker::new(problems, &l);
        for i in 0..r.len() {
            c.index(i, "light probe", r.lightprobe(i).unwrap_or(0) as i64, probes, "LIGHTPROBES");
        }
    }
    let num_refs = refs.map(|r| r.len()).unwrap_or(0);
    let trees = n(bsp, LUMP_LIGHTPROBE_TREE, 8);
    if let Ok(list) = v.lightprobe_parent_infos() {
        let l = label(bsp, LUMP_LIGHTPROBE_PARENT_INFOS);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            c.range(i, "probes", (p.first_probe.get() as i64, p.num_probes.get() as i64), probes, "LIGHTPROBES");
            c.range(i, "references", (p.first_reference.get() as i64, p.num_references.get() as i64), num_refs, "LIGHTPROBE_REFERENCES");
            c.range(i, "tree entries", (p.first_tree.get() as i64, p.num_trees.get() as i64), trees, "LIGHTPROBE_TREE");
        }
    }
    if let Ok(list) = v.static_prop_lightprobe_indices() {
        if let Some(props) = num_props.filter(|&p| !list.is_empty() && p != list.len()) {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_STATIC_PROP_LIGHTPROBE_INDICES),
                None,
                format!("{} entries for {props} static props", list.len()),
            ));
        }
        let l = label(bsp, LUMP_STATIC_PROP_LIGHTPROBE_INDICES);
        let mut c = Checker::new(problems, &l);
        for (i, x) in list.iter().enumerate() {
            c.index(i, "light probe", x.get() as i64, probes, "LIGHTPROBES");
        }
    }
    // Shadow meshes: indices follow each other; each mesh's corners index its vertex lump
    // from `vertex_offset`.
    if let (Ok(list), Ok(indices)) = (v.shadow_meshes(), v.shadow_mesh_indices()) {
        let opaque = n(bsp, LUMP_SHADOW_MESH_OPAQUE_VERTICES, 12);
        let alpha = n(bsp, LUMP_SHADOW_MESH_ALPHA_VERTICES, 20);
        let l = label(bsp, LUMP_SHADOW_MESHES);
        let mut c = Checker::new(problems, &l);
        let mut first = 0usize;
        for (i, m) in list.iter().enumerate() {
            if m.material_sort.get() != -1 {
                c.index(i, "material sort", m.material_sort.get() as i64, sorts, "MATERIAL_SORTS");
            }
            let len = (m.num_triangles.get() as usize).saturating_mul(3);
            let (verts, target) =
                if m.is_opaque.get() != 0 { (opaque, "SHADOW_MESH_OPAQUE_VERTICES") } else { (alpha, "SHADOW_MESH_ALPHA_VERTICES") };
            let off = m.vertex_offset.get() as i64;
            if let Some(bad) = indices
                .get(first..first.saturating_add(len))
                .unwrap_or(&[])
                .iter()
                .map(|x| x.get() as i64 + off)
                .find(|&x| x >= verts as i64)
            {
                c.index(i, "vertex", bad, verts, target);
            }
            first = first.saturating_add(len);
        }
        if first != indices.len() && !list.is_empty() {
            c.problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_SHADOW_MESH_INDICES),
                None,
                format!("{} indices, the shadow meshes' triangles use {first}", indices.len()),
            ));
        }
    }
    if let Ok(list) = v.shadow_environments() {
        let targets = [
            (n(bsp, LUMP_CSM_AABB_NODES, 32), "CSM_AABB_NODES"),
            (n(bsp, LUMP_CSM_OBJ_REFERENCES, std::mem::size_of::<G::ObjRef>()), "CSM_OBJ_REFERENCES"),
            (n(bsp, LUMP_SHADOW_MESHES, 12), "SHADOW_MESHES"),
        ];
        let l = label(bsp, LUMP_SHADOW_ENVIRONMENTS);
        let mut c = Checker::new(problems, &l);
        for (i, e) in list.iter().enumerate() {
            let firsts = [e.first_csm_aabb_node.get(), e.first_csm_obj_reference.get(), e.first_shadow_mesh.get()];
            let lasts = [e.last_csm_aabb_node.get(), e.last_csm_obj_reference.get(), e.last_shadow_mesh.get()];
            for ((first, last), (len, name)) in firsts.into_iter().zip(lasts).zip(targets) {
                c.range(i, &format!("{name} run [first, last)"), (first as i64, last as i64 - first as i64), len, name);
            }
        }
    }
    let lights = v.world_lights();
    let num_lights = lights.as_ref().map(|l| l.len()).unwrap_or(0);
    if let Ok(list) = &lights {
        let l = label(bsp, LUMP_WORLD_LIGHTS);
        let mut c = Checker::new(problems, &l);
        for i in 0..list.len() {
            let Some(w) = list.get(i) else { continue };
            if w.texture_data.get() != -1 && texture_data > 0 {
                c.index(i, "texture data", w.texture_data.get() as i64, texture_data, "TEXTURE_DATA");
            }
        }
    }
    if let Ok(list) = v.world_light_parent_infos() {
        let l = label(bsp, LUMP_WORLD_LIGHT_PARENT_INFOS);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            c.index(i, "world light", p.world_light.get() as i64, num_lights, "WORLD_LIGHTS");
        }
    }
    if let Ok(list) = v.lightmap_pages() {
        let l = label(bsp, LUMP_LIGHTMAP_DATA_RTL_PAGES);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            if let Some(bad) = p.indices.iter().map(|x| x.get() as i64).find(|&x| x != -1 && (x < 0 || x as usize >= num_lights)) {
                c.index(i, "world light", bad, num_lights, "WORLD_LIGHTS");
            }
        }
    }
    // Apex: pages of texel type 1 hold 8 bytes per texel in LIGHTMAP_DATA_SKY (two RGBA8
    // planes, `super::lighting`): another size is an error. Real-time lights follow
    // `apex_rtl_bytes`, a rule from third-party notes checked on one real map: another size is
    // a warning. Other texel types' sizes are not known, so a map with one is not counted.
    if bsp.branch().id == APEX.id {
        if let Ok(headers) = v.lightmap_headers() {
            if headers.iter().all(|h| super::lighting::apex_type(h) == super::lighting::APEX_TYPE_RGBA_PLANES) {
                let texels = texels(headers);
                let external = matches!(bsp.entry(LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS).map(|e| &e.origin), Some(LumpOrigin::BspLump(_)));
                let rtl = headers
                    .iter()
                    .map(apex_rtl_bytes)
                    .fold(0u64, |sum, (inside, outside)| sum.saturating_add(if external { outside } else { inside }));
                for (lump, want, how, severity) in [
                    (LUMP_LIGHTMAP_DATA_SKY, texels.saturating_mul(8), format!("{texels} texels at 8 bytes"), Severity::Error),
                    (
                        LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS,
                        rtl,
                        format!("{} page(s) of real-time-light masks", headers.len()),
                        Severity::Warning,
                    ),
                ] {
                    let len = bsp.lump(lump).map(|l| l.len() as u64).unwrap_or(0);
                    if len != 0 && len != want {
                        problems.push(Problem::with(
                            severity,
                            Code::COUNT_MISMATCH,
                            label(bsp, lump),
                            None,
                            format!("{len} bytes, LIGHTMAP_HEADERS' {how} make {want}"),
                        ));
                    }
                }
            }
        }
    }
    // Titanfall 2 lightmap texels: sky 8 bytes per texel (two RGBA pages), real-time lights 9
    // in the `.bsp` (8 in a `.bsp_lump`, see `files`), summed over LIGHTMAP_HEADERS. Checked
    // on the three corpus maps; Titanfall's and the console's byte counts are not known.
    if bsp.branch().id == TITANFALL2.id {
        if let Ok(headers) = v.lightmap_headers() {
            let texels = texels(headers);
            let external = matches!(bsp.entry(LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS).map(|e| &e.origin), Some(LumpOrigin::BspLump(_)));
            for (lump, per_texel) in [(LUMP_LIGHTMAP_DATA_SKY, 8), (LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS, if external { 8 } else { 9 })] {
                let len = bsp.lump(lump).map(|l| l.len() as u64).unwrap_or(0);
                let want = texels.saturating_mul(per_texel);
                if len != 0 && len != want {
                    problems.push(Problem::error(
                        Code::COUNT_MISMATCH,
                        label(bsp, lump),
                        None,
                        format!("{len} bytes, LIGHTMAP_HEADERS' {texels} texels at {per_texel} bytes make {want}"),
                    ));
                }
            }
        }
    }
}

/// Apex-only lumps: surface properties, water bodies.
fn apex<G: Game>(v: &View<G>, problems: &mut Vec<Problem>) {
    let bsp = v.bsp();
    let names = bsp.lump(LUMP_SURFACE_NAMES).map(|d| d.len()).unwrap_or(0);
    let masks = n(bsp, LUMP_CONTENTS_MASKS, 4);
    if let Ok(list) = v.surface_properties() {
        let l = label(bsp, LUMP_SURFACE_PROPERTIES);
        let mut c = Checker::new(problems, &l);
        for (i, s) in list.iter().enumerate() {
            c.index(i, "contents mask", s.contents_mask as i64, masks, "CONTENTS_MASKS");
            c.index(i, "surface name", s.surface_name.get() as i64, names, "SURFACE_NAMES bytes");
        }
    }
    let centers = n(bsp, LUMP_WATER_BODY_CENTERS, 24);
    let verts = n(bsp, LUMP_WATER_BODY_VERTICES, 24);
    let indices = n(bsp, LUMP_WATER_BODY_INDICES, 2);
    if let Ok(list) = v.water_bodies() {
        let l = label(bsp, LUMP_WATER_BODIES);
        let mut c = Checker::new(problems, &l);
        for (i, w) in list.iter().enumerate() {
            c.range(i, "centers", (w.first_center.get() as i64, w.num_centers.get() as i64), centers, "WATER_BODY_CENTERS");
            c.range(i, "vertices", (w.first_vertex.get() as i64, w.num_vertices.get() as i64), verts, "WATER_BODY_VERTICES");
            c.range(i, "indices", (w.first_index.get() as i64, w.num_indices.get() as i64), indices, "WATER_BODY_INDICES");
        }
    }
}
