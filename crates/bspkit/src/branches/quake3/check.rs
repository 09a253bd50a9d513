//! Cross-reference checks of Quake 3-family maps (quake_family.md A.4).

use super::lumps::*;
use super::records::*;
use super::view::{grid_dimensions, View};
use crate::branches::quake2::check::{child, index, range};
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem};
use crate::error::Result;

/// Check every cross-reference of a Quake 3-family map, with the branch's record set.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    with_record_set!(bsp.branch(), check_records(bsp, problems));
    match record_set(bsp.branch()) {
        RecordSet::Fakk => check_ritual_lights(bsp, problems, "ENTITY_LIGHTS"),
        RecordSet::MohaaOld => check_mohaa::<LeafMohaaOld>(bsp, problems),
        RecordSet::Mohaa => check_mohaa::<LeafMohaa>(bsp, problems),
        _ => {}
    }
}

/// The records of the lump named `name`, with its slot; `None` where the branch lacks it or
/// the lump does not read (the generic lump checks report that).
fn named<'a, T: zerocopy::FromBytes + zerocopy::Immutable + zerocopy::KnownLayout>(bsp: &'a Bsp, name: &str) -> Option<(usize, &'a [T])> {
    let i = bsp.branch().lump_index(name)?;
    bsp.records(i).ok().map(|r| (i, r))
}

/// Ritual's entity / sphere lights each sit in a leaf (FAKK2 SDK `mapspherel_t.leaf`).
fn check_ritual_lights(bsp: &Bsp, problems: &mut Vec<Problem>, lump: &str) {
    let leaves = bsp.branch().lump_index("LEAVES").and_then(|i| Some(bsp.lump(i).ok()?.len() / bsp.record_size(i)?));
    if let Some((i, lights)) = named::<SphereLight>(bsp, lump) {
        let l = label(bsp, i);
        let mut c = Checker::new(problems, &l);
        for (k, light) in lights.iter().enumerate() {
            index(&mut c, k, "leaf", light.leaf.get() as i64, leaves, "leaves");
        }
    }
}

/// A Medal of Honor leaf's terrain and static-model runs (OpenMoHAA `dleaf_t`).
trait MohaaLeaf: LeafRecord + zerocopy::FromBytes + zerocopy::Immutable + zerocopy::KnownLayout {
    fn terrain(&self) -> (i64, i64);
    fn static_models(&self) -> Option<(i64, i64)>;
}
impl MohaaLeaf for LeafMohaa {
    fn terrain(&self) -> (i64, i64) {
        (self.first_terrain_patch.get() as i64, self.num_terrain_patches.get() as i64)
    }
    fn static_models(&self) -> Option<(i64, i64)> {
        Some((self.first_static_model.get() as i64, self.num_static_models.get() as i64))
    }
}
impl MohaaLeaf for LeafMohaaOld {
    fn terrain(&self) -> (i64, i64) {
        (self.first_terrain_patch.get() as i64, self.num_terrain_patches.get() as i64)
    }
    fn static_models(&self) -> Option<(i64, i64)> {
        None
    }
}

/// Medal of Honor's own references (OpenMoHAA `qfiles.h`, `cm_load.c`, `tr_bsp.c`): brush sides
/// name a side equation; leaves name runs of TERRAIN_INDEXES and STATIC_MODEL_INDEXES, whose
/// entries name terrain patches and static models; a static model's colours (3 bytes a vertex,
/// `firstVertexData` a byte offset) lie in STATIC_MODEL_DATA; terrain patches name a shader;
/// sphere lights a leaf.
fn check_mohaa<Lf: MohaaLeaf>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let count = |name: &str| bsp.branch().lump_index(name).and_then(|i| Some(bsp.lump(i).ok()?.len() / bsp.record_size(i)?));
    let (equations, shaders) = (count("SIDE_EQUATIONS"), count("SHADERS"));
    let (terrain, terrain_idx) = (count("TERRAIN"), count("TERRAIN_INDEXES"));
    let (statics, static_idx) = (count("STATIC_MODEL_DEFS"), count("STATIC_MODEL_INDEXES"));
    if let Some((i, sides)) = named::<BrushSideMohaa>(bsp, "BRUSH_SIDES") {
        let l = label(bsp, i);
        let mut c = Checker::new(problems, &l);
        for (k, s) in sides.iter().enumerate() {
            // 0: no side equation. OpenMoHAA's CMod_LoadBrushSides takes `equationNum` only when
            // it is not 0, and the retail compiler writes 0 on every side without one, with an
            // empty SIDE_EQUATIONS lump when no side has one (real maps: docs/real-maps.md).
            if s.equation.get() != 0 {
                index(&mut c, k, "equation", s.equation.get() as i64, equations, "side equations");
            }
        }
    }
    if let Some((i, leaves)) = named::<Lf>(bsp, "LEAVES") {
        let l = label(bsp, i);
        let mut c = Checker::new(problems, &l);
        for (k, leaf) in leaves.iter().enumerate() {
            range(&mut c, k, "terrain patches", leaf.terrain(), terrain_idx, "terrain indexes");
            if let Some(r) = leaf.static_models() {
                range(&mut c, k, "static models", r, static_idx, "static model indexes");
            }
        }
    }
    for (lump, target, n) in [("TERRAIN_INDEXES", "terrain patches", terrain), ("STATIC_MODEL_INDEXES", "static models", statics)] {
        if let Some((i, list)) = named::<RitualIndex>(bsp, lump) {
            let l = label(bsp, i);
            let mut c = Checker::new(problems, &l);
            if let Some((k, x)) = list.iter().enumerate().find(|(_, x)| n.is_some_and(|n| x.get() < 0 || x.get() as usize >= n)) {
                index(&mut c, k, "index", x.get() as i64, n, target);
            }
        }
    }
    if let Some((i, patches)) = named::<TerrainPatch>(bsp, "TERRAIN") {
        let l = label(bsp, i);
        let mut c = Checker::new(problems, &l);
        for (k, p) in patches.iter().enumerate() {
            index(&mut c, k, "shader", p.shader.get() as i64, shaders, "shaders");
        }
    }
    if let Some((i, models)) = named::<StaticModel>(bsp, "STATIC_MODEL_DEFS") {
        let colours = count("STATIC_MODEL_DATA");
        let l = label(bsp, i);
        let mut c = Checker::new(problems, &l);
        for (k, m) in models.iter().enumerate() {
            let (first, n) = (m.first_vertex_data.get() as i64, m.num_vertex_data.get() as i64);
            // firstVertexData counts bytes of 3-byte colours (tr_bsp.c R_CopyStaticModel).
            if n > 0 {
                if first % 3 != 0 {
                    c.error(Code::BAD_VALUE, Some(k), format!("firstVertexData {first} is not a multiple of 3 (bytes of RGB colours)"));
                } else {
                    range(&mut c, k, "vertex colours", (first / 3, n), colours, "static model colours");
                }
            }
        }
    }
    check_ritual_lights(bsp, problems, "SPHERE_LIGHTS");
}

fn label(bsp: &Bsp, index: usize) -> String {
    format!("{index} ({})", bsp.branch().lumps.get(index).map(|l| l.name).unwrap_or("?"))
}

fn len<T>(r: &Result<&[T]>) -> Option<usize> {
    r.as_ref().ok().map(|s| s.len())
}

/// Surface types q3map2 writes: 0 bad, 1 planar, 2 patch, 3 triangle soup, 4 flare, 5 foliage.
const MAX_SURFACE_TYPE: i64 = 5;
const SURFACE_PATCH: i64 = 2;
const SURFACE_FLARE: i64 = 4;

/// Every cross-reference of a Quake 3-family map in range (quake_family.md A.4).
pub fn check_records<L: Layout>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<L>::new(bsp) else { return };
    let slot = *v.slots();
    // Node tree cycles and shared nodes; the NODES checks below cover children out of range.
    crate::tree::node_tree::check_parts(bsp, super::tree::parts(bsp), problems);
    let (shaders, planes, nodes, leaves) = (v.shaders(), v.planes(), v.nodes(), v.leaves());
    let (leaf_surfaces, leaf_brushes, models, brushes) = (v.leaf_surfaces(), v.leaf_brushes(), v.models(), v.brushes());
    let (sides, verts, indices, fogs, surfaces) = (v.brush_sides(), v.draw_vertices(), v.draw_indices(), v.fogs(), v.surfaces());
    let (lightmaps, grid, array) = (v.lightmaps(), v.light_grid(), v.light_array());
    let vis = match v.visibility() {
        Ok(vis) => Some(vis),
        Err(e) => {
            problems.push(Problem::error(Code::BAD_VISIBILITY, label(bsp, slot.visibility), None, e.kind.to_string()));
            None
        }
    };

    let l = label(bsp, slot.nodes);
    let mut c = Checker::new(problems, &l);
    for (i, n) in nodes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", n.plane.get() as i64, len(&planes), "planes");
        for ch in n.children {
            child(&mut c, i, ch.get() as i64, len(&nodes).unwrap_or(0), len(&leaves));
        }
    }

    let l = label(bsp, slot.leaves);
    let mut c = Checker::new(problems, &l);
    let clusters = vis.filter(|v| v.n_vecs > 0).map(|v| v.n_vecs);
    for (i, leaf) in leaves.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "leafsurfaces", leaf.leaf_surfaces(), len(&leaf_surfaces), "leafsurfaces");
        range(&mut c, i, "leafbrushes", leaf.leaf_brushes(), len(&leaf_brushes), "leafbrushes");
        // A negative cluster marks a leaf outside the map.
        if leaf.cluster() >= 0 {
            index(&mut c, i, "cluster", leaf.cluster(), clusters, "visibility clusters");
        }
    }

    let l = label(bsp, slot.leaf_surfaces);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_surfaces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "surface", x.get() as i64, len(&surfaces), "surfaces");
    }
    let l = label(bsp, slot.leaf_brushes);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "brush", x.get() as i64, len(&brushes), "brushes");
    }

    let l = label(bsp, slot.models);
    let mut c = Checker::new(problems, &l);
    for (i, m) in models.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "surfaces", (m.first_surface.get() as i64, m.num_surfaces.get() as i64), len(&surfaces), "surfaces");
        range(&mut c, i, "brushes", (m.first_brush.get() as i64, m.num_brushes.get() as i64), len(&brushes), "brushes");
    }

    let l = label(bsp, slot.brushes);
    let mut c = Checker::new(problems, &l);
    for (i, b) in brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "sides", (b.first_side(), b.num_sides()), len(&sides), "brushsides");
        index(&mut c, i, "shader", BrushRecord::shader(b), len(&shaders), "shaders");
    }
    let l = label(bsp, slot.brush_sides);
    let mut c = Checker::new(problems, &l);
    // FBSP: q3map2 grows its brush-side array by reallocation (1024 sides, then doubling) without
    // clearing the new memory and sets a side's surface only when a surface is made from it, so
    // the field holds whatever the heap held (18 of 28 Warfork maps, from side 0, 1024 or 2048
    // on). The qfusion engines (Warsow, Warfork) never read it: their collision loader takes the
    // plane and shader of a side, the renderer no brush side at all. One note for all of them.
    // RBSP: the same garbage is in real Jedi Academy maps (cmp_ctf_kothis, from side 0 or 1024
    // on), and Raven's engines never read the field either: OpenJK's collision loader
    // (`CMod_LoadBrushSides`, cm_load.cpp) takes a side's plane and shader, its renderer only the
    // planes of a fog brush's sides (`R_LoadFogs`).
    let unread_by = match bsp.branch().id {
        "fbsp" => Some("the qfusion engines (Warsow, Warfork) never read it"),
        "rbsp" => Some("Raven's engines (Jedi Outcast, Jedi Academy, SoF2: OpenJK's CMod_LoadBrushSides) never read it"),
        _ => None,
    };
    let unread_surface = unread_by.is_some();
    let (mut stale, mut first_stale) = (0usize, None);
    for (i, s) in sides.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", s.plane(), len(&planes), "planes");
        index(&mut c, i, "shader", s.shader(), len(&shaders), "shaders");
        if let Some(surf) = s.surface().filter(|&x| x != -1) {
            let out = len(&surfaces).is_some_and(|n| surf < 0 || surf as u64 >= n as u64);
            if unread_surface && out {
                stale += 1;
                first_stale.get_or_insert((i, surf));
            } else {
                index(&mut c, i, "surface", surf, len(&surfaces), "surfaces");
            }
        }
    }
    if let Some((i, surf)) = first_stale {
        let n = len(&surfaces).unwrap_or(0);
        c.note(
            Code::UNREAD_SIDE_SURFACE,
            Some(i),
            format!(
                "{stale} brush side(s) have a surface outside surfaces (count {n}), e.g. this one's {surf}: q3map2 leaves the field \
                 uninitialised past a growth of its side array, and {}",
                unread_by.unwrap_or_default()
            ),
        );
    }

    let l = label(bsp, slot.fogs.unwrap_or(LUMP_FOGS));
    let mut c = Checker::new(problems, &l);
    let brush_list = brushes.as_deref().unwrap_or(&[]);
    // Raven's renderer (JK2, JA, SoF2: R_LoadFogs in OpenJK's tr_bsp.cpp) reads brushNum −1 as
    // the map's global fog over the whole world, so for RBSP it is the format, not a problem.
    let raven_global_fog = bsp.branch().id == "rbsp";
    for (i, f) in fogs.as_deref().unwrap_or(&[]).iter().enumerate() {
        let b = f.brush.get() as i64;
        let side = f.visible_side.get() as i64;
        // brushNum −1 with visibleSide −1 is q3map2's global fog (EmitFogs, from worldspawn
        // `_fog` / `fog`): DarkPlaces and ET:Legacy draw it, stock ioquake3's R_LoadFogs
        // refuses a brush out of range. A note about that engine; any other brush must exist.
        if b == -1 && side == -1 {
            if !raven_global_fog {
                c.note(
                    Code::GLOBAL_FOG,
                    Some(i),
                    "global fog (brush -1, visibleSide -1): stock ioquake3 refuses it, DarkPlaces and ET:Legacy draw it",
                );
            }
            continue;
        }
        index(&mut c, i, "brush", b, len(&brushes), "brushes");
        // visibleSide is a side of that brush, or −1 when the fog has no visible side.
        if side != -1 {
            if let Some(brush) = usize::try_from(b).ok().and_then(|b| brush_list.get(b)) {
                c.index(i, "visibleSide", side, brush.num_sides().max(0) as usize, "the brush's sides");
            }
        }
    }

    let l = label(bsp, slot.surfaces);
    let mut c = Checker::new(problems, &l);
    let index_list = indices.as_deref().unwrap_or(&[]);
    // With external lightmaps (an empty lump) the page numbers refer to image files
    // (Turtle Arena's sp1boss / test_smash use page 0 with an empty lump), so no bound then.
    let pages = len(&lightmaps).filter(|&n| n > 0);
    // Flares whose fog is out of range: one warning for all of them (below).
    let (mut flare_fogs, mut first_flare) = (0usize, None);
    // Patches whose draw indexes are out of range: one note for all of them (below).
    let (mut patch_indexes, mut first_patch) = (0usize, None);
    for (i, s) in surfaces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "shader", s.shader(), len(&shaders), "shaders");
        let t = s.surface_type();
        if s.fog() != -1 {
            // Renderers range-check a flare's fog (OpenArena's aggressor has 74 such flares);
            // any other surface's fog must exist.
            let out = len(&fogs).is_some_and(|n| s.fog() < 0 || s.fog() as u64 >= n as u64);
            if t == SURFACE_FLARE && out {
                flare_fogs += 1;
                first_flare.get_or_insert((i, s.fog()));
            } else {
                index(&mut c, i, "fog", s.fog(), len(&fogs), "fogs");
            }
        }
        if !(0..=MAX_SURFACE_TYPE).contains(&t) {
            c.error(Code::BAD_VALUE, Some(i), format!("surface type {t} is unknown (the known types are 0 to {MAX_SURFACE_TYPE})"));
        }
        let (first_vert, num_verts) = s.vert_range();
        range(&mut c, i, "vertices", (first_vert, num_verts), len(&verts), "drawverts");
        let (first, count) = s.index_range();
        range(&mut c, i, "indexes", (first, count), len(&indices), "drawindexes");
        // Indexes are triangle lists.
        if count % 3 != 0 {
            c.error(Code::BAD_GEOMETRY, Some(i), format!("{count} indexes do not make whole triangles"));
        }
        // Each index is relative to the surface's first vertex.
        if first >= 0 && count >= 0 {
            let within = index_list.get(first as usize..).map(|x| &x[..x.len().min(count as usize)]).unwrap_or(&[]);
            let bad = within.iter().enumerate().find(|(_, x)| !(0..num_verts).contains(&(x.get() as i64)));
            if let Some((k, bad)) = bad.filter(|_| t == SURFACE_PATCH) {
                patch_indexes += 1;
                first_patch.get_or_insert((i, first as usize + k, bad.get()));
            } else if let Some((k, bad)) = bad {
                c.error(
                    Code::INDEX_OUT_OF_RANGE,
                    Some(i),
                    format!("drawindex {} = {} is outside the surface's {num_verts} vertices", first as usize + k, bad.get()),
                );
            }
        }
        if t == SURFACE_PATCH {
            let (w, h) = s.patch_size();
            if w.saturating_mul(h) != num_verts {
                c.error(Code::BAD_GEOMETRY, Some(i), format!("patch {w}×{h} does not match its {num_verts} vertices"));
            }
        }
        for lm in s.lightmap_nums() {
            let lm = lm.get() as i64;
            if lm >= 0 {
                index(&mut c, i, "lightmap", lm, pages, "lightmaps");
            }
        }
    }
    if let Some((i, k, value)) = first_patch {
        // A patch is drawn and collided from its control grid (patchWidth × patchHeight vertices
        // from firstVert): ioquake3's ParseMesh and its collision loader never read firstIndex /
        // numIndexes of a patch, so whatever a compiler left there is harmless (a real Quake 3
        // map, mvctf01, has 42 patches indexing 1098907648, the bits of the float 16.0).
        c.note(
            Code::UNREAD_PATCH_INDEXES,
            Some(i),
            format!(
                "{patch_indexes} patch surface(s) have draw indexes outside their vertices, e.g. drawindex {k} = {value}: \
                 the engines build a patch from its control grid and never read its indexes"
            ),
        );
    }
    if let Some((i, fog)) = first_flare {
        let n = len(&fogs).unwrap_or(0);
        c.warning(
            Code::FLARE_FOG,
            Some(i),
            format!(
                "{flare_fogs} flare surface(s) name a fog that FOGS does not have (FOGS {}; this one names fog {fog}); \
                 renderers check a flare's fog number before using it, so the map loads",
                crate::check::problem::entries(n)
            ),
        );
    }

    // RBSP / FBSP: every light-array cell names a grid point.
    if L::LIGHT_ARRAY {
        let l = label(bsp, slot.light_array.unwrap_or(LUMP_LIGHT_ARRAY));
        let mut c = Checker::new(problems, &l);
        if let Some(n) = len(&grid) {
            if let Some((i, x)) = array.as_deref().unwrap_or(&[]).iter().enumerate().find(|(_, x)| x.get() as usize >= n) {
                c.index(i, "grid point", x.get() as i64, n, "lightgrid");
            }
        }
    }

    // The grid must have one cell per point of model 0's grid (ioquake3 warns "light grid
    // mismatch" otherwise): IBSP stores a point per cell, RBSP / FBSP an array entry per cell.
    // Ritual's grids are kept as bytes (no grid slot): nothing to count.
    let cells = if L::LIGHT_ARRAY {
        len(&array)
    } else if L::LIGHT_GRID {
        len(&grid)
    } else {
        None
    };
    if let (Some(cells), Some(dims)) = (cells.filter(|&n| n > 0), grid_dimensions(bsp)) {
        let expected = dims.iter().fold(1u64, |a, &d| a.saturating_mul(d));
        if expected != cells as u64 {
            let lump = if L::LIGHT_ARRAY { slot.light_array } else { slot.light_grid }.unwrap_or(LUMP_LIGHT_GRID);
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, lump),
                None,
                format!("{cells} grid cells, but model 0's bounds give {}×{}×{} = {expected}", dims[0], dims[1], dims[2]),
            ));
        }
    }

    if let Some(vis) = vis.filter(|v| v.n_vecs > 0) {
        // A row must hold a bit per cluster.
        if vis.sz_vecs.saturating_mul(8) < vis.n_vecs {
            let l = label(bsp, slot.visibility);
            problems.push(Problem::error(
                Code::BAD_VISIBILITY,
                &l,
                None,
                format!("rows of {} bytes cannot hold {} clusters", vis.sz_vecs, vis.n_vecs),
            ));
        }
    }
}
