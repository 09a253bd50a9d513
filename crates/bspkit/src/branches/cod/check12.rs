//! Cross-reference checks of Call of Duty 1 / United Offensive and Call of Duty 2 maps: every
//! index a record holds is checked against the lump it names, every run against the lump it
//! lies in, as the engines' loaders read them (opencod1 `CMod_Load*` / `R_Load*` for CoD1, the
//! cod2map reconstruction's disk structs for CoD2; sources in [`super::records12`]).
//!
//! Not checked: triangle soups' lightmap numbers (maps compiled without light name page 0 of an
//! empty lump, on both games' real maps; `bsp lightmaps` names soups past the pages other than
//! the games' "none", [`super::lighting`]), and, for lack of evidence, the AABB trees' child
//! links, the light grid and the shadow lumps.

use super::lumps::{cod1_ids as c1, cod2_ids as c2};
use super::records::{AabbTree, Brush, BrushSide, CullGroup, Node, Portal};
use super::records12::*;
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem};
use zerocopy::little_endian::{I32, U16};

/// The lump ids the checks read, per game.
struct Ids {
    materials: usize,
    planes: usize,
    brushsides: usize,
    brushes: usize,
    soups: usize,
    verts: usize,
    indices: usize,
    cull_groups: usize,
    cull_group_indices: usize,
    portal_verts: usize,
    occluders: usize,
    occluder_planes: usize,
    occluder_edges: usize,
    occluder_indices: usize,
    aabb_trees: usize,
    cells: usize,
    portals: usize,
    nodes: usize,
    leafs: usize,
    leaf_brushes: usize,
    /// What a leaf's and a model's collision run indexes (CoD1: LEAFSURFACES; CoD2:
    /// COLLISIONAABBS).
    collision: usize,
    /// What a cell's cull-group and occluder runs index (CoD1: the index lumps, as opencod1's
    /// `R_LoadCells` reads them; CoD2: the record lumps, as the reconstruction names them).
    cell_cull_groups: usize,
    cell_occluders: usize,
    models: usize,
    /// Call of Duty 1 only: LEAFSURFACES indexes COLLISIONSURFACES.
    leaf_surfaces: Option<(usize, usize)>,
}

const COD1: Ids = Ids {
    materials: c1::MATERIALS,
    planes: c1::PLANES,
    brushsides: c1::BRUSHSIDES,
    brushes: c1::BRUSHES,
    soups: c1::TRIANGLESOUPS,
    verts: c1::DRAWVERTS,
    indices: c1::DRAWINDICES,
    cull_groups: c1::CULLGROUPS,
    cull_group_indices: c1::CULLGROUPINDICES,
    portal_verts: c1::PORTALVERTS,
    occluders: c1::OCCLUDERS,
    occluder_planes: c1::OCCLUDERPLANES,
    occluder_edges: c1::OCCLUDEREDGES,
    occluder_indices: c1::OCCLUDERINDICES,
    aabb_trees: c1::AABBTREES,
    cells: c1::CELLS,
    portals: c1::PORTALS,
    nodes: c1::NODES,
    leafs: c1::LEAFS,
    leaf_brushes: c1::LEAFBRUSHES,
    collision: c1::LEAFSURFACES,
    cell_cull_groups: c1::CULLGROUPINDICES,
    cell_occluders: c1::OCCLUDERINDICES,
    models: c1::MODELS,
    leaf_surfaces: Some((c1::LEAFSURFACES, c1::COLLISIONSURFACES)),
};

const COD2: Ids = Ids {
    materials: c2::MATERIALS,
    planes: c2::PLANES,
    brushsides: c2::BRUSHSIDES,
    brushes: c2::BRUSHES,
    soups: c2::TRIANGLES,
    verts: c2::DRAWVERTS,
    indices: c2::DRAWINDICES,
    cull_groups: c2::CULLGROUPS,
    cull_group_indices: c2::CULLGROUPINDICES,
    portal_verts: c2::PORTALVERTS,
    occluders: c2::OCCLUDERS,
    occluder_planes: c2::OCCLUDERPLANES,
    occluder_edges: c2::OCCLUDEREDGES,
    occluder_indices: c2::OCCLUDERINDICES,
    aabb_trees: c2::AABBTREES,
    cells: c2::CELLS,
    portals: c2::PORTALS,
    nodes: c2::NODES,
    leafs: c2::LEAFS,
    leaf_brushes: c2::LEAFBRUSHES,
    collision: c2::COLLISIONAABBS,
    cell_cull_groups: c2::CULLGROUPS,
    cell_occluders: c2::OCCLUDERS,
    models: c2::MODELS,
    leaf_surfaces: None,
};

fn label(bsp: &Bsp, id: usize) -> String {
    format!("{id} ({})", bsp.branch().lumps.get(id).map(|l| l.name).unwrap_or("?"))
}

/// Every check of a Call of Duty 1 or 2 map.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let ids = if bsp.branch().id == "cod2" { &COD2 } else { &COD1 };
    let count = |id: usize| bsp.record_size(id).and_then(|s| bsp.lump(id).ok().map(|l| l.len() / s)).unwrap_or(0);
    let name = |id: usize| label(bsp, id);
    brushes(bsp, ids, problems, &count);
    soups(bsp, ids, problems, &count);

    // The tree: nodes, leafs, leaf brushes and surfaces.
    let (nodes, leafs) = (count(ids.nodes), count(ids.leafs));
    if let Ok(list) = bsp.records::<Node>(ids.nodes) {
        let (l, planes) = (name(ids.nodes), count(ids.planes));
        let mut c = Checker::new(problems, &l);
        for (i, n) in list.iter().enumerate() {
            c.index(i, "plane", n.plane.get() as i64, planes, "PLANES");
            for ch in n.children.map(|x| x.get() as i64) {
                if ch >= 0 {
                    c.index(i, "child node", ch, nodes, "NODES");
                } else {
                    c.index(i, "child leaf", -(ch + 1), leafs, "LEAFS");
                }
            }
        }
    }
    let collision_name = bsp.branch().lumps[ids.collision].name;
    if let Ok(list) = bsp.records::<Leaf12>(ids.leafs) {
        let (l, lb, coll, cells) = (name(ids.leafs), count(ids.leaf_brushes), count(ids.collision), count(ids.cells));
        let mut c = Checker::new(problems, &l);
        for (i, f) in list.iter().enumerate() {
            c.range(i, "leaf brushes", (f.first_leaf_brush.get() as i64, f.leaf_brush_count.get() as i64), lb, "LEAFBRUSHES");
            c.range(i, "collision", (f.first_collision.get() as i64, f.collision_count.get() as i64), coll, collision_name);
            if f.cell.get() != -1 {
                c.index(i, "cell", f.cell.get() as i64, cells, "CELLS");
            }
        }
    }
    indexes(bsp, problems, ids.leaf_brushes, count(ids.brushes), "BRUSHES");
    if let Some((surfaces, target)) = ids.leaf_surfaces {
        indexes(bsp, problems, surfaces, count(target), "COLLISIONSURFACES");
        if let Ok(list) = bsp.records::<CollisionSurface1>(target) {
            let (l, materials) = (name(target), count(ids.materials));
            let mut c = Checker::new(problems, &l);
            for (i, s) in list.iter().enumerate() {
                c.index(i, "material", s.material.get() as i64, materials, "MATERIALS");
            }
        }
    }
    if let Ok(list) = bsp.records::<Model12>(ids.models) {
        let (l, soups, brushes, coll) = (name(ids.models), count(ids.soups), count(ids.brushes), count(ids.collision));
        let soup_name = bsp.branch().lumps[ids.soups].name;
        let mut c = Checker::new(problems, &l);
        for (i, m) in list.iter().enumerate() {
            c.range(i, "tri soups", (m.first_tri_soup.get() as i64, m.tri_soup_count.get() as i64), soups, soup_name);
            c.range(i, "brushes", (m.first_brush.get() as i64, m.brush_count.get() as i64), brushes, "BRUSHES");
            c.range(i, "collision", (m.first_collision.get() as i64, m.collision_count.get() as i64), coll, collision_name);
        }
    }
    visibility(bsp, ids, problems, &count);
}

/// Every entry of a `u32` index lump `id` must be below `len`.
fn indexes(bsp: &Bsp, problems: &mut Vec<Problem>, id: usize, len: usize, target: &str) {
    if let Ok(list) = bsp.records::<I32>(id) {
        let l = label(bsp, id);
        let mut c = Checker::new(problems, &l);
        for (i, v) in list.iter().enumerate() {
            c.index(i, "index", v.get() as i64, len, target);
        }
    }
}

/// Brushes and their sides: the side counts add up to BRUSHSIDES, a brush has its six axial
/// sides (opencod1 `CMod_LoadBrushes` refuses fewer), non-axial sides name planes.
fn brushes(bsp: &Bsp, ids: &Ids, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let (materials, planes, nsides) = (count(ids.materials), count(ids.planes), count(ids.brushsides));
    let (Ok(brushes), Ok(sides)) = (bsp.records::<Brush>(ids.brushes), bsp.records::<BrushSide>(ids.brushsides)) else { return };
    let (l, sl) = (label(bsp, ids.brushes), label(bsp, ids.brushsides));
    let mut first = 0usize;
    for (i, b) in brushes.iter().enumerate() {
        let n = b.num_sides.get() as usize;
        let mut c = Checker::new(problems, &l);
        c.index(i, "material", b.material.get() as i64, materials, "MATERIALS");
        if n < 6 {
            c.error(Code::BAD_VALUE, Some(i), format!("{n} sides: a brush has at least its 6 axial sides"));
        }
        c.range(i, "sides", (first as i64, n as i64), nsides, "BRUSHSIDES");
        if let Some(run) = sides.get(first..first.saturating_add(n)) {
            let mut c = Checker::new(problems, &sl);
            for (j, s) in run.iter().enumerate() {
                c.index(first + j, "material", s.material.get() as i64, materials, "MATERIALS");
                // The first six sides hold a float distance in place of the plane.
                if j >= 6 {
                    c.index(first + j, "plane", s.plane_or_dist.get() as i64, planes, "PLANES");
                }
            }
        }
        first = first.saturating_add(n);
    }
    if first != nsides {
        problems.push(Problem::error(Code::COUNT_MISMATCH, l, None, format!("brushes use {first} sides, BRUSHSIDES holds {nsides}")));
    }
}

/// Triangle soups and what names them: cull groups and AABB trees.
fn soups(bsp: &Bsp, ids: &Ids, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let (materials, nv, ni, nsoups) = (count(ids.materials), count(ids.verts), count(ids.indices), count(ids.soups));
    let (sl, vl, il) = (label(bsp, ids.soups), label(bsp, ids.verts), label(bsp, ids.indices));
    let indices = bsp.records::<U16>(ids.indices).unwrap_or(&[]);
    if let Ok(list) = bsp.records::<TriSoup12>(ids.soups) {
        let mut c = Checker::new(problems, &sl);
        for (i, t) in list.iter().enumerate() {
            c.index(i, "material", t.material.get() as i64, materials, "MATERIALS");
            let (fv, vc) = (t.first_vertex.get() as i64, t.vertex_count.get() as i64);
            let (fi, ic) = (t.first_index.get() as i64, t.index_count.get() as i64);
            c.range(i, "vertices", (fv, vc), nv, &vl);
            c.range(i, "indices", (fi, ic), ni, &il);
            if ic % 3 != 0 {
                c.error(Code::BAD_VALUE, Some(i), format!("{ic} indices are not whole triangles"));
            }
            // Indices count from the soup's first vertex (opencod1 subtracts it when loading).
            let run = indices.get(fi as usize..(fi + ic) as usize).unwrap_or(&[]);
            if let Some(bad) = run.iter().map(|x| x.get() as i64).find(|&x| x >= vc) {
                c.index(i, "index", bad, vc as usize, "the soup's vertices");
            }
        }
    }
    for (id, name) in [(ids.cull_groups, "cull group"), (ids.aabb_trees, "aabb tree")] {
        let runs: Vec<(i64, i64)> = if id == ids.cull_groups {
            bsp.records::<CullGroup>(id)
                .unwrap_or(&[])
                .iter()
                .map(|g| (g.first_surface.get() as i64, g.surface_count.get() as i64))
                .collect()
        } else {
            bsp.records::<AabbTree>(id)
                .unwrap_or(&[])
                .iter()
                .map(|t| (t.first_surface.get() as i64, t.surface_count.get() as i64))
                .collect()
        };
        let l = label(bsp, id);
        let mut c = Checker::new(problems, &l);
        for (i, run) in runs.into_iter().enumerate() {
            c.range(i, &format!("{name} soups"), run, nsoups, &sl);
        }
    }
    indexes(bsp, problems, ids.cull_group_indices, count(ids.cull_groups), "CULLGROUPS");
}

/// Cells, portals and occluders.
fn visibility(bsp: &Bsp, ids: &Ids, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let (planes, cells, verts) = (count(ids.planes), count(ids.cells), count(ids.portal_verts));
    let lump_name = |id: usize| bsp.branch().lumps[id].name;
    if let Ok(list) = bsp.records::<Cell12>(ids.cells) {
        let l = label(bsp, ids.cells);
        let (trees, portals, groups, occluders) =
            (count(ids.aabb_trees), count(ids.portals), count(ids.cell_cull_groups), count(ids.cell_occluders));
        let mut c = Checker::new(problems, &l);
        for (i, cell) in list.iter().enumerate() {
            c.index(i, "aabb tree", cell.aabb_tree.get() as i64, trees, "AABBTREES");
            c.range(i, "portals", (cell.first_portal.get() as i64, cell.portal_count.get() as i64), portals, "PORTALS");
            let groups_run = (cell.first_cull_group.get() as i64, cell.cull_group_count.get() as i64);
            c.range(i, "cull groups", groups_run, groups, lump_name(ids.cell_cull_groups));
            let occ_run = (cell.first_occluder.get() as i64, cell.occluder_count.get() as i64);
            c.range(i, "occluders", occ_run, occluders, lump_name(ids.cell_occluders));
        }
    }
    if let Ok(list) = bsp.records::<Portal>(ids.portals) {
        let l = label(bsp, ids.portals);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            c.index(i, "plane", p.plane.get() as i64, planes, "PLANES");
            c.index(i, "cell", p.cell.get() as i64, cells, "CELLS");
            c.range(i, "portal vertices", (p.first_portal_vert.get() as i64, p.portal_vert_count.get() as i64), verts, "PORTALVERTS");
        }
    }
    if let Ok(list) = bsp.records::<Occluder12>(ids.occluders) {
        let l = label(bsp, ids.occluders);
        let (oplanes, edges) = (count(ids.occluder_planes), count(ids.occluder_edges));
        let mut c = Checker::new(problems, &l);
        for (i, o) in list.iter().enumerate() {
            c.range(i, "planes", (o.first_plane.get() as i64, o.plane_count.get() as i64), oplanes, "OCCLUDERPLANES");
            c.range(i, "edges", (o.first_edge.get() as i64, o.edge_count.get() as i64), edges, "OCCLUDEREDGES");
            c.range(i, "vertices", (o.first_vertex.get() as i64, o.vertex_count.get() as i64), verts, "PORTALVERTS");
        }
    }
    indexes(bsp, problems, ids.occluder_planes, planes, "PLANES");
    if let Ok(list) = bsp.records::<U16>(ids.occluder_indices) {
        let (l, n) = (label(bsp, ids.occluder_indices), count(ids.occluders));
        let mut c = Checker::new(problems, &l);
        for (i, v) in list.iter().enumerate() {
            c.index(i, "occluder", v.get() as i64, n, "OCCLUDERS");
        }
    }
}
