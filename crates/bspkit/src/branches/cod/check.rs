//! Cross-reference checks of Call of Duty 4 maps (respawn_cod_facts.md §2.5): every index a
//! record holds is checked against the lump it names, every run against the lump it lies in.
//! Each holds on the four corpus maps. Leaf surfaces and cull group indices are only counted:
//! what they index is not known (both lumps are empty on every corpus map).

use super::lumps::limits::{MAX_MAP_LIGHTMAPS, MAX_MAP_PRIMARY_LIGHTS};
use super::lumps::*;
use super::records::*;
use super::stats::edge_walk_bytes;
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem};
use zerocopy::little_endian::{U16, U32};
use zerocopy::FromBytes;

fn label(bsp: &Bsp, id: usize) -> String {
    format!("{id} ({})", bsp.branch().lumps.get(id).map(|l| l.name).unwrap_or("?"))
}

/// Every check of a Call of Duty map (Call of Duty 1 / 2: [`super::check12`]).
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    if is_cod12(bsp.branch()) {
        return super::check12::check(bsp, problems);
    }
    let count = |id: usize| bsp.record_size(id).and_then(|s| bsp.lump(id).ok().map(|l| l.len() / s)).unwrap_or(0);
    brushes(bsp, problems, &count);
    tree(bsp, problems, &count);
    surfaces(bsp, problems, &count);
    collision(bsp, problems, &count);
    lighting(bsp, problems, &count);
}

fn brushes(bsp: &Bsp, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let materials = count(LUMP_MATERIALS);
    let planes = count(LUMP_PLANES);
    let brushside_count = count(LUMP_BRUSHSIDES);
    let (Ok(brushes), Ok(sides)) = (bsp.records::<Brush>(LUMP_BRUSHES), bsp.records::<BrushSide>(LUMP_BRUSHSIDES)) else { return };
    let l = label(bsp, LUMP_BRUSHES);
    let mut c = Checker::new(problems, &l);
    let mut first = 0usize;
    for (i, b) in brushes.iter().enumerate() {
        let n = b.num_sides.get() as usize;
        c.index(i, "material", b.material.get() as i64, materials, "MATERIALS");
        c.range(i, "sides", (first as i64, n as i64), brushside_count, "BRUSHSIDES");
        if let Some(bs) = sides.get(first..first.saturating_add(n)) {
            for (j, s) in bs.iter().enumerate().skip(6) {
                let p = s.plane_or_dist.get() as u64;
                if p >= planes as u64 {
                    c.problems.push(Problem::error(
                        Code::INDEX_OUT_OF_RANGE,
                        label(bsp, LUMP_BRUSHSIDES),
                        Some(first + j),
                        format!("plane {p} is outside PLANES (count {planes})"),
                    ));
                }
            }
        }
        first = first.saturating_add(n);
    }
    if first != brushside_count {
        c.problems.push(Problem::error(
            Code::COUNT_MISMATCH,
            l.clone(),
            None,
            format!("brushes use {first} sides, BRUSHSIDES holds {brushside_count}"),
        ));
    }
    let l = label(bsp, LUMP_BRUSHSIDES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in sides.iter().enumerate() {
        c.index(i, "material", s.material.get() as i64, materials, "MATERIALS");
    }
    // One edge count per brush side; the counts add up to the BRUSHEDGES length (§2.2).
    if let (Ok(counts), Ok(edges)) = (bsp.lump(LUMP_BRUSHSIDEEDGECOUNTS), bsp.lump(LUMP_BRUSHEDGES)) {
        if counts.len() != brushside_count {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_BRUSHSIDEEDGECOUNTS),
                None,
                format!("{} entries for {brushside_count} brush sides", counts.len()),
            ));
        }
        let sum: usize = counts.iter().map(|&b| b as usize).sum();
        if sum != edges.len() {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_BRUSHEDGES),
                None,
                format!("{} bytes, the edge counts add up to {sum}", edges.len()),
            ));
        }
    }
    if let Ok(lb) = bsp.records::<U32>(LUMP_LEAFBRUSHES) {
        let l = label(bsp, LUMP_LEAFBRUSHES);
        let mut c = Checker::new(problems, &l);
        for (i, b) in lb.iter().enumerate() {
            c.index(i, "brush", b.get() as i64, brushes.len(), "BRUSHES");
        }
    }
    if let Ok(list) = bsp.records::<Model>(LUMP_MODELS) {
        let (layered, simple) = (count(LUMP_TRIANGLES), count(LUMP_UNLAYERED_TRIANGLES));
        let l = label(bsp, LUMP_MODELS);
        let mut c = Checker::new(problems, &l);
        for (i, m) in list.iter().enumerate() {
            c.range(i, "brushes", (m.first_brush.get() as i64, m.brush_count.get() as i64), brushes.len(), "BRUSHES");
            c.range(i, "layered tri soups", (m.first_tri_soup[0].get() as i64, m.tri_soup_count[0].get() as i64), layered, "TRIANGLES");
            c.range(
                i,
                "simple tri soups",
                (m.first_tri_soup[1].get() as i64, m.tri_soup_count[1].get() as i64),
                simple,
                "UNLAYERED_TRIANGLES",
            );
        }
    }
}

/// Nodes, leafs, cells, portals.
fn tree(bsp: &Bsp, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let planes = count(LUMP_PLANES);
    let (nodes, leafs, cells) = (count(LUMP_NODES), count(LUMP_LEAFS), count(LUMP_CELLS));
    if let Ok(list) = bsp.records::<Node>(LUMP_NODES) {
        let l = label(bsp, LUMP_NODES);
        let mut c = Checker::new(problems, &l);
        for (i, n) in list.iter().enumerate() {
            c.index(i, "plane", n.plane.get() as i64, planes, "PLANES");
            for ch in n.children {
                let ch = ch.get() as i64;
                if ch >= 0 {
                    c.index(i, "child node", ch, nodes, "NODES");
                } else {
                    c.index(i, "child leaf", -(ch + 1), leafs, "LEAFS");
                }
            }
        }
    }
    if let Ok(list) = bsp.records::<Leaf>(LUMP_LEAFS) {
        let (aabbs, leafbrushes) = (count(LUMP_COLLISIONAABBS), count(LUMP_LEAFBRUSHES));
        let l = label(bsp, LUMP_LEAFS);
        let mut c = Checker::new(problems, &l);
        for (i, f) in list.iter().enumerate() {
            c.range(i, "collision aabbs", (f.first_coll_aabb.get() as i64, f.coll_aabb_count.get() as i64), aabbs, "COLLISIONAABBS");
            c.range(i, "leaf brushes", (f.first_leaf_brush.get() as i64, f.leaf_brush_count.get() as i64), leafbrushes, "LEAFBRUSHES");
            if f.cell.get() != -1 {
                c.index(i, "cell", f.cell.get() as i64, cells, "CELLS");
            }
        }
    }
    let probes = count(LUMP_REFLECTION_PROBES);
    if let Ok(list) = bsp.records::<Cell>(LUMP_CELLS) {
        let trees = [count(LUMP_AABBTREES), count(LUMP_UNLAYERED_AABBTREES)];
        let (portals, cull_groups) = (count(LUMP_PORTALS), count(LUMP_CULLGROUPS));
        let l = label(bsp, LUMP_CELLS);
        let mut c = Checker::new(problems, &l);
        for (i, cell) in list.iter().enumerate() {
            c.index(i, "layered aabb tree", cell.aabb_tree[0].get() as i64, trees[0], "AABBTREES");
            c.index(i, "simple aabb tree", cell.aabb_tree[1].get() as i64, trees[1], "UNLAYERED_AABBTREES");
            c.range(i, "portals", (cell.first_portal.get() as i64, cell.portal_count.get() as i64), portals, "PORTALS");
            c.range(i, "cull groups", (cell.first_cull_group.get() as i64, cell.cull_group_count.get() as i64), cull_groups, "CULLGROUPS");
            let n = cell.reflection_probe_count as usize;
            c.range(i, "reflection probe list", (0, n as i64), MAX_CELL_REFLECTION_PROBES, "the cell's 64 slots");
            for &p in cell.reflection_probes.iter().take(n) {
                probe(&mut c, i, p, probes);
            }
        }
    }
    if let Ok(list) = bsp.records::<Portal>(LUMP_PORTALS) {
        let verts = count(LUMP_PORTALVERTS);
        let l = label(bsp, LUMP_PORTALS);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            c.index(i, "plane", p.plane.get() as i64, planes, "PLANES");
            c.index(i, "cell", p.cell.get() as i64, cells, "CELLS");
            c.range(i, "portal vertices", (p.first_portal_vert.get() as i64, p.portal_vert_count.get() as i64), verts, "PORTALVERTS");
        }
    }
}

/// Reflection probes are numbered from 1 (0: none): the corpus cells list 1..=n for n probes
/// and triangle soups use 0..=n.
fn probe(c: &mut Checker, i: usize, p: u8, probes: usize) {
    if p as usize > probes {
        c.problems.push(Problem::error(
            Code::INDEX_OUT_OF_RANGE,
            c.lump,
            Some(i),
            format!("reflection probe {p} is outside REFLECTION_PROBES (count {probes}; probes are numbered from 1, 0 is none)"),
        ));
    }
}

/// Triangle soups, their vertices and indices, AABB trees and cull groups (layered and simple).
fn surfaces(bsp: &Bsp, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let materials = count(LUMP_MATERIALS);
    let lightmaps = count(LUMP_LIGHTBYTES);
    let probes = count(LUMP_REFLECTION_PROBES);
    let primary = count(LUMP_PRIMARY_LIGHTS);
    for (soups_id, verts_id, indices_id, trees_id, groups_id) in [
        (LUMP_TRIANGLES, LUMP_DRAWVERTS, LUMP_DRAWINDICES, LUMP_AABBTREES, LUMP_CULLGROUPS),
        (
            LUMP_UNLAYERED_TRIANGLES,
            LUMP_UNLAYERED_DRAWVERTS,
            LUMP_UNLAYERED_DRAWINDICES,
            LUMP_UNLAYERED_AABBTREES,
            LUMP_UNLAYERED_CULLGROUPS,
        ),
    ] {
        let (nv, ni, soups) = (count(verts_id), count(indices_id), count(soups_id));
        let indices = bsp.records::<U16>(indices_id).unwrap_or(&[]);
        if let Ok(list) = bsp.records::<TriangleSoup>(soups_id) {
            let l = label(bsp, soups_id);
            let mut c = Checker::new(problems, &l);
            for (i, t) in list.iter().enumerate() {
                c.index(i, "material", t.material.get() as i64, materials, "MATERIALS");
                // 31 (one past the 0..=30 the 31-page limit allows) is "no lightmap": a soup
                // of test.d3dbsp has it with one lightmap in the map.
                if t.lightmap as u64 != MAX_MAP_LIGHTMAPS {
                    c.index(i, "lightmap", t.lightmap as i64, lightmaps, "LIGHTBYTES pages");
                }
                probe(&mut c, i, t.reflection_probe, probes);
                if primary > 0 {
                    c.index(i, "primary light", t.primary_light as i64, primary, "PRIMARY_LIGHTS");
                }
                let (fv, vc) = (t.first_vertex.get() as i64, t.vertex_count.get() as i64);
                let (fi, ic) = (t.first_index.get() as i64, t.index_count.get() as i64);
                c.range(i, "vertices", (fv, vc), nv, &label(bsp, verts_id));
                c.range(i, "indices", (fi, ic), ni, &label(bsp, indices_id));
                // Indices count from the soup's first vertex (the compiler's ValidateTriSoups).
                let run = indices.get(fi as usize..(fi + ic) as usize).unwrap_or(&[]);
                if let Some(bad) = run.iter().map(|x| x.get() as i64).find(|&x| x >= vc) {
                    c.index(i, "index", bad, vc as usize, "the soup's vertices");
                }
            }
        }
        for (id, name) in [(trees_id, "aabb tree"), (groups_id, "cull group")] {
            let runs: Vec<(i64, i64)> = if id == trees_id {
                bsp.records::<AabbTree>(id)
                    .unwrap_or(&[])
                    .iter()
                    .map(|t| (t.first_surface.get() as i64, t.surface_count.get() as i64))
                    .collect()
            } else {
                bsp.records::<CullGroup>(id)
                    .unwrap_or(&[])
                    .iter()
                    .map(|g| (g.first_surface.get() as i64, g.surface_count.get() as i64))
                    .collect()
            };
            let l = label(bsp, id);
            let target = label(bsp, soups_id);
            let mut c = Checker::new(problems, &l);
            for (i, run) in runs.into_iter().enumerate() {
                c.range(i, &format!("{name} surfaces"), run, soups, &target);
            }
        }
    }
}

fn collision(bsp: &Bsp, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let verts = count(LUMP_COLLISIONVERTS);
    let tris = count(LUMP_COLLISIONTRIS);
    if let Ok(list) = bsp.records::<CollisionTri>(LUMP_COLLISIONTRIS) {
        let l = label(bsp, LUMP_COLLISIONTRIS);
        let mut c = Checker::new(problems, &l);
        for (i, t) in list.iter().enumerate() {
            for v in t.verts {
                c.index(i, "vertex", v.get() as i64, verts, "COLLISIONVERTS");
            }
        }
    }
    let walk = bsp.lump(LUMP_COLLISIONEDGEWALKABLE).map(|l| l.len() as u64).unwrap_or(0);
    if walk != edge_walk_bytes(tris as u64) {
        problems.push(Problem::error(
            Code::COUNT_MISMATCH,
            label(bsp, LUMP_COLLISIONEDGEWALKABLE),
            None,
            format!("{walk} bytes, {tris} collision triangles need {} (3 bits each, padded to 4 bytes)", edge_walk_bytes(tris as u64)),
        ));
    }
    let (borders, parts) = (count(LUMP_COLLISIONBORDERS), count(LUMP_COLLISIONPARTITIONS));
    if let Ok(list) = bsp.records::<CollisionPartition>(LUMP_COLLISIONPARTITIONS) {
        let l = label(bsp, LUMP_COLLISIONPARTITIONS);
        let mut c = Checker::new(problems, &l);
        for (i, p) in list.iter().enumerate() {
            c.range(i, "triangles", (p.first_tri.get() as i64, p.tri_count as i64), tris, "COLLISIONTRIS");
            c.range(i, "borders", (p.first_border.get() as i64, p.border_count as i64), borders, "COLLISIONBORDERS");
        }
    }
    if let Ok(list) = bsp.records::<CollisionAabb>(LUMP_COLLISIONAABBS) {
        let materials = count(LUMP_MATERIALS);
        let l = label(bsp, LUMP_COLLISIONAABBS);
        let mut c = Checker::new(problems, &l);
        for (i, a) in list.iter().enumerate() {
            c.index(i, "material", a.material.get() as i64, materials, "MATERIALS");
            let (children, u) = (a.child_count.get() as i64, a.u.get() as i64);
            if children > 0 {
                c.range(i, "children", (u, children), list.len(), "COLLISIONAABBS");
            } else {
                c.index(i, "partition", u, parts, "COLLISIONPARTITIONS");
            }
        }
    }
}

fn lighting(bsp: &Bsp, problems: &mut Vec<Problem>, count: &dyn Fn(usize) -> usize) {
    let primary = count(LUMP_PRIMARY_LIGHTS);
    if let Ok(list) = bsp.records::<LightGridEntry>(LUMP_LIGHTGRIDENTRIES) {
        let colors = count(LUMP_LIGHTGRIDCOLORS);
        let l = label(bsp, LUMP_LIGHTGRIDENTRIES);
        let mut c = Checker::new(problems, &l);
        for (i, e) in list.iter().enumerate() {
            c.index(i, "colors", e.colors.get() as i64, colors, "LIGHTGRIDCOLORS");
            // 255, one past the 0..=254 MAX_MAP_PRIMARY_LIGHTS allows, is "none" (most points
            // of mp_test and test have it).
            if e.primary_light as u64 != MAX_MAP_PRIMARY_LIGHTS {
                c.index(i, "primary light", e.primary_light as i64, primary, "PRIMARY_LIGHTS");
            }
        }
    }
    // The header is 20 bytes and one u16 per row (the compiler's GetLightGridHeaderSize).
    if let Ok(h) = bsp.lump(LUMP_LIGHTGRIDHEADER) {
        if let Some((fixed, _)) = (!h.is_empty()).then(|| LightGridHeader::read_from_prefix(h).ok()).flatten() {
            let want = fixed.rows().map(|r| 20 + 2 * r);
            if want != Some(h.len() as i64) {
                let why = match want {
                    Some(w) => format!("{} bytes, its {} rows need {w}", h.len(), w / 2 - 10),
                    None => format!("row axis {} is not 0, 1 or 2", fixed.row_axis.get()),
                };
                problems.push(Problem::error(Code::LUMP_UNREADABLE, label(bsp, LUMP_LIGHTGRIDHEADER), None, why));
            }
        } else if !h.is_empty() {
            problems.push(Problem::error(
                Code::LUMP_UNREADABLE,
                label(bsp, LUMP_LIGHTGRIDHEADER),
                None,
                format!("{} bytes, shorter than its 20-byte header", h.len()),
            ));
        }
    }
    // One light region (its hull count) per primary light; the hulls' axis counts add up to
    // the axes.
    let hulls = bsp.records::<LightRegionHull>(LUMP_LIGHTREGION_HULLS).unwrap_or(&[]);
    if let Ok(regions) = bsp.lump(LUMP_LIGHTREGIONS) {
        if !regions.is_empty() && regions.len() != primary {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_LIGHTREGIONS),
                None,
                format!("{} regions for {primary} primary lights", regions.len()),
            ));
        }
        let sum: usize = regions.iter().map(|&b| b as usize).sum();
        if sum != hulls.len() {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_LIGHTREGION_HULLS),
                None,
                format!("{} hulls, the light regions use {sum}", hulls.len()),
            ));
        }
    }
    let axes: u64 = hulls.iter().map(|h| h.axis_count.get() as u64).sum();
    let have = count(LUMP_LIGHTREGION_AXES) as u64;
    if axes != have {
        problems.push(Problem::error(
            Code::COUNT_MISMATCH,
            label(bsp, LUMP_LIGHTREGION_AXES),
            None,
            format!("{have} axes, the hulls use {axes}"),
        ));
    }
}
