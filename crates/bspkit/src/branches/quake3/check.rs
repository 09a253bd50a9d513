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
    with_record_set!(bsp.branch(), check_records(bsp, problems))
}

fn label(bsp: &Bsp, index: usize) -> String {
    format!("{index} ({})", bsp.branch().lumps.get(index).map(|l| l.name).unwrap_or("?"))
}

fn len<T>(r: &Result<&[T]>) -> Option<usize> {
    r.as_ref().ok().map(|s| s.len())
}

/// Surface types q3map2 writes: 0 bad, 1 planar, 2 patch, 3 triangle soup, 4 flare, 5 foliage.
const MAX_SURFACE_TYPE: i64 = 5;
const SURFACE_FLARE: i64 = 4;

/// Every cross-reference of a Quake 3-family map in range (quake_family.md A.4).
pub fn check_records<L: Layout>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<L>::new(bsp) else { return };
    // Node tree cycles and shared nodes; the NODES checks below cover children out of range.
    crate::tree::check(bsp, problems);
    let (shaders, planes, nodes, leaves) = (v.shaders(), v.planes(), v.nodes(), v.leaves());
    let (leaf_surfaces, leaf_brushes, models, brushes) = (v.leaf_surfaces(), v.leaf_brushes(), v.models(), v.brushes());
    let (sides, verts, indices, fogs, surfaces) = (v.brush_sides(), v.draw_vertices(), v.draw_indices(), v.fogs(), v.surfaces());
    let (lightmaps, grid, array) = (v.lightmaps(), v.light_grid(), v.light_array());
    let vis = match v.visibility() {
        Ok(vis) => Some(vis),
        Err(e) => {
            problems.push(Problem::error(Code::BAD_VISIBILITY, label(bsp, LUMP_VISIBILITY), None, e.kind.to_string()));
            None
        }
    };

    let l = label(bsp, LUMP_NODES);
    let mut c = Checker::new(problems, &l);
    for (i, n) in nodes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", n.plane.get() as i64, len(&planes), "planes");
        for ch in n.children {
            child(&mut c, i, ch.get() as i64, len(&nodes).unwrap_or(0), len(&leaves));
        }
    }

    let l = label(bsp, LUMP_LEAVES);
    let mut c = Checker::new(problems, &l);
    let clusters = vis.filter(|v| v.n_vecs > 0).map(|v| v.n_vecs);
    for (i, leaf) in leaves.as_deref().unwrap_or(&[]).iter().enumerate() {
        let r = (leaf.first_leaf_surface.get() as i64, leaf.num_leaf_surfaces.get() as i64);
        range(&mut c, i, "leafsurfaces", r, len(&leaf_surfaces), "leafsurfaces");
        let r = (leaf.first_leaf_brush.get() as i64, leaf.num_leaf_brushes.get() as i64);
        range(&mut c, i, "leafbrushes", r, len(&leaf_brushes), "leafbrushes");
        // A negative cluster marks a leaf outside the map.
        if leaf.cluster.get() >= 0 {
            index(&mut c, i, "cluster", leaf.cluster.get() as i64, clusters, "visibility clusters");
        }
    }

    let l = label(bsp, LUMP_LEAF_SURFACES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_surfaces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "surface", x.get() as i64, len(&surfaces), "surfaces");
    }
    let l = label(bsp, LUMP_LEAF_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "brush", x.get() as i64, len(&brushes), "brushes");
    }

    let l = label(bsp, LUMP_MODELS);
    let mut c = Checker::new(problems, &l);
    for (i, m) in models.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "surfaces", (m.first_surface.get() as i64, m.num_surfaces.get() as i64), len(&surfaces), "surfaces");
        range(&mut c, i, "brushes", (m.first_brush.get() as i64, m.num_brushes.get() as i64), len(&brushes), "brushes");
    }

    let l = label(bsp, LUMP_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, b) in brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "sides", (b.first_side.get() as i64, b.num_sides.get() as i64), len(&sides), "brushsides");
        index(&mut c, i, "shader", b.shader.get() as i64, len(&shaders), "shaders");
    }
    let l = label(bsp, LUMP_BRUSH_SIDES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in sides.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", s.plane(), len(&planes), "planes");
        index(&mut c, i, "shader", s.shader(), len(&shaders), "shaders");
        if let Some(surf) = s.surface().filter(|&x| x != -1) {
            index(&mut c, i, "surface", surf, len(&surfaces), "surfaces");
        }
    }

    let l = label(bsp, LUMP_FOGS);
    let mut c = Checker::new(problems, &l);
    let brush_list = brushes.as_deref().unwrap_or(&[]);
    for (i, f) in fogs.as_deref().unwrap_or(&[]).iter().enumerate() {
        let b = f.brush.get() as i64;
        let side = f.visible_side.get() as i64;
        // brushNum −1 with visibleSide −1 is q3map2's global fog (EmitFogs, from worldspawn
        // `_fog` / `fog`): DarkPlaces and ET:Legacy draw it, stock ioquake3's R_LoadFogs
        // refuses a brush out of range. A note about that engine; any other brush must exist.
        if b == -1 && side == -1 {
            c.note(
                Code::GLOBAL_FOG,
                Some(i),
                "global fog (brush -1, visibleSide -1): stock ioquake3 refuses it, DarkPlaces and ET:Legacy draw it",
            );
            continue;
        }
        index(&mut c, i, "brush", b, len(&brushes), "brushes");
        // visibleSide is a side of that brush, or −1 when the fog has no visible side.
        if side != -1 {
            if let Some(brush) = usize::try_from(b).ok().and_then(|b| brush_list.get(b)) {
                c.index(i, "visibleSide", side, brush.num_sides.get().max(0) as usize, "the brush's sides");
            }
        }
    }

    let l = label(bsp, LUMP_SURFACES);
    let mut c = Checker::new(problems, &l);
    let index_list = indices.as_deref().unwrap_or(&[]);
    // With external lightmaps (an empty lump) the page numbers refer to image files
    // (Turtle Arena's sp1boss / test_smash use page 0 with an empty lump), so no bound then.
    let pages = len(&lightmaps).filter(|&n| n > 0);
    // Flares whose fog is out of range: one warning for all of them (below).
    let (mut flare_fogs, mut first_flare) = (0usize, None);
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
            c.error(Code::BAD_VALUE, Some(i), format!("surface type {t} is unknown (0..={MAX_SURFACE_TYPE})"));
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
            if let Some((k, bad)) = within.iter().enumerate().find(|(_, x)| !(0..num_verts).contains(&(x.get() as i64))) {
                c.error(
                    Code::INDEX_OUT_OF_RANGE,
                    Some(i),
                    format!("drawindex {} = {} is outside the surface's {num_verts} vertices", first as usize + k, bad.get()),
                );
            }
        }
        if t == 2 {
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
        let l = label(bsp, LUMP_LIGHT_ARRAY);
        let mut c = Checker::new(problems, &l);
        if let Some(n) = len(&grid) {
            if let Some((i, x)) = array.as_deref().unwrap_or(&[]).iter().enumerate().find(|(_, x)| x.get() as usize >= n) {
                c.index(i, "grid point", x.get() as i64, n, "lightgrid");
            }
        }
    }

    // The grid must have one cell per point of model 0's grid (ioquake3 warns "light grid
    // mismatch" otherwise): IBSP stores a point per cell, RBSP / FBSP an array entry per cell.
    let cells = if L::LIGHT_ARRAY { len(&array) } else { len(&grid) };
    if let (Some(cells), Some(dims)) = (cells.filter(|&n| n > 0), grid_dimensions(bsp)) {
        let expected = dims.iter().fold(1u64, |a, &d| a.saturating_mul(d));
        if expected != cells as u64 {
            let lump = if L::LIGHT_ARRAY { LUMP_LIGHT_ARRAY } else { LUMP_LIGHT_GRID };
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
            let l = label(bsp, LUMP_VISIBILITY);
            problems.push(Problem::error(
                Code::BAD_VISIBILITY,
                &l,
                None,
                format!("rows of {} bytes cannot hold {} clusters", vis.sz_vecs, vis.n_vecs),
            ));
        }
    }
}
