//! Cross-reference checks of Nightfire maps: every index a record holds against the lump it
//! names, every run against the lump it lies in (layouts in [`super::records`]).
//!
//! A lit face's lightmap extent is checked against the compiler's bound (under 128 luxels an
//! axis, [`super::lightmap`]; one luxel of slack for the projection's rounding to `f32`): more,
//! or a projection with a zero or non-finite axis, is a warning.
//!
//! A map the compiler wrote before lighting and visibility (no LIGHTING, no VISIBILITY bytes)
//! stores lightmap offset 0 with styles 0 on every face and visibility offset 0 on leaf 0 (the
//! compiler reconstruction's `WriteFace` leaves both zero-filled, its `WriteDrawLeaf` sets -1
//! on the leaves it writes): those offsets point into nothing and are not errors, as on GoldSrc
//! maps compiled without RAD or VIS. Measured on maps compiled by that reconstruction
//! (docs/real-maps.md).
//!
//! Not checked, for lack of evidence: a brush side's `face` (its meaning is not confirmed), the
//! number of LIGHTING bytes a face's samples take (no source states a luxel's size or the
//! rectangle's), the visibility bytes themselves.

use super::lightmap::{luxel_extent, MAX_EXTENT};
use super::lumps::*;
use super::records::*;
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem};
use zerocopy::little_endian::U32;

fn label(bsp: &Bsp, id: usize) -> String {
    format!("{id} ({})", bsp.branch().lumps.get(id).map(|l| l.name).unwrap_or("?"))
}

/// Every check of a Nightfire map.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let count = |id: usize| bsp.record_size(id).and_then(|s| bsp.lump(id).ok().map(|l| l.len() / s)).unwrap_or(0);
    let bytes = |id: usize| bsp.lump(id).map(|l| l.len()).unwrap_or(0);
    let (planes, verts, normals, indices, faces, leafs, nodes) =
        (count(PLANES), count(VERTEXES), count(NORMALS), count(INDICES), count(FACES), count(LEAFS), count(NODES));
    let (brushes, sides, matrices, marks, markb) =
        (count(BRUSHES), count(BRUSHSIDES), count(TEXMATRIX), count(MARKSURFACES), count(MARKBRUSHES));

    // The compiler writes one normal per vertex (both lumps sized by its vertex count).
    if normals != verts {
        problems.push(Problem::error(
            Code::COUNT_MISMATCH,
            label(bsp, NORMALS),
            None,
            format!("{normals} normals for {verts} vertices: the compiler writes one per vertex"),
        ));
    }

    if let Ok(list) = bsp.records::<Face>(FACES) {
        let l = label(bsp, FACES);
        let all_indices = bsp.records::<U32>(INDICES).unwrap_or(&[]);
        let all_points = bsp.records::<Vec3>(VERTEXES).unwrap_or(&[]);
        let all_matrices = bsp.records::<TexMatrix>(TEXMATRIX).unwrap_or(&[]);
        let mut corners: Vec<[f32; 3]> = Vec::new();
        let (textures, materials, light) = (count(TEXTURES), count(MATERIALS), bytes(LIGHTING));
        let mut c = Checker::new(problems, &l);
        for (i, f) in list.iter().enumerate() {
            c.index(i, "plane", f.plane.get() as i64, planes, "PLANES");
            let (fv, nv) = (f.first_vertex.get() as i64, f.vertex_count.get() as i64);
            let (fi, ni) = (f.first_index.get() as i64, f.index_count.get() as i64);
            c.range(i, "vertices", (fv, nv), verts, "VERTEXES");
            c.range(i, "indices", (fi, ni), indices, "INDICES");
            if ni % 3 != 0 {
                c.error(Code::BAD_VALUE, Some(i), format!("{ni} indices are not whole triangles"));
            }
            // Indices count from the face's first vertex.
            let run = all_indices.get(fi as usize..(fi + ni) as usize).unwrap_or(&[]);
            if let Some(bad) = run.iter().map(|x| x.get() as i64).find(|&x| x >= nv) {
                c.index(i, "index", bad, nv as usize, "the face's vertices");
            }
            c.index(i, "texture", f.texture.get() as i64, textures, "TEXTURES");
            c.index(i, "material", f.material.get() as i64, materials, "MATERIALS");
            c.index(i, "texture matrix", f.texture_matrix.get() as i64, matrices, "TEXMATRIX");
            // An unlit face (first style 255) has no lightmap: its projection and offset are not read.
            if f.styles[0] != 255 {
                c.index(i, "lightmap matrix", f.lightmap_matrix.get() as i64, matrices, "TEXMATRIX");
                let ofs = f.lightmap_offset.get() as i64;
                // With no LIGHTING at all the map was not lit: the compiler writes offset 0
                // and styles 0 on every face until the light tool fills them.
                if ofs >= 0 && light > 0 {
                    c.index(i, "lightmap offset", ofs, light, "LIGHTING bytes");
                }
                let run = (fv as usize).checked_add(nv as usize).and_then(|end| all_points.get(fv as usize..end));
                if let (Some(m), Some(run)) = (all_matrices.get(f.lightmap_matrix.get() as usize), run) {
                    corners.clear();
                    corners.extend(run.iter().map(|p| p.xyz.map(|x| x.get())));
                    if corners.is_empty() {
                        // The compiler writes no vertices for nodraw, sky and portal faces.
                    } else if let Some(e) = luxel_extent(&corners, m) {
                        let [w, h] = e.size();
                        if w > MAX_EXTENT || h > MAX_EXTENT {
                            c.warning(
                                Code::BAD_VALUE,
                                Some(i),
                                format!("lightmap spans {w} × {h} luxels: the compiler keeps each axis under {MAX_EXTENT}"),
                            );
                        }
                    } else {
                        c.warning(
                            Code::BAD_VALUE,
                            Some(i),
                            "lightmap projection has an axis of zero or non-finite length, or projects a corner to infinity",
                        );
                    }
                }
            }
        }
    }

    if let Ok(list) = bsp.records::<Node>(NODES) {
        let l = label(bsp, NODES);
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

    if let Ok(list) = bsp.records::<Leaf>(LEAFS) {
        let l = label(bsp, LEAFS);
        let vis = bytes(VISIBILITY);
        let mut c = Checker::new(problems, &l);
        for (i, f) in list.iter().enumerate() {
            c.range(i, "mark surfaces", (f.first_mark_surface.get() as i64, f.mark_surface_count.get() as i64), marks, "MARKSURFACES");
            c.range(i, "mark brushes", (f.first_mark_brush.get() as i64, f.mark_brush_count.get() as i64), markb, "MARKBRUSHES");
            let v = f.vis_offset.get() as i64;
            // With no VISIBILITY the compiler's leaf 0 keeps offset 0 (its record is
            // zero-filled; the leaves it writes get -1).
            if v >= 0 && !(vis == 0 && v == 0) {
                c.index(i, "visibility offset", v, vis, "VISIBILITY bytes");
            }
        }
    }
    indexes(bsp, problems, MARKSURFACES, faces, "FACES");
    indexes(bsp, problems, MARKBRUSHES, brushes, "BRUSHES");

    if let Ok(list) = bsp.records::<Model>(MODELS) {
        let l = label(bsp, MODELS);
        let mut c = Checker::new(problems, &l);
        for (i, m) in list.iter().enumerate() {
            c.range(i, "faces", (m.first_face.get() as i64, m.face_count.get() as i64), faces, "FACES");
            c.range(i, "leaves", (m.first_leaf.get() as i64, m.leaf_count.get() as i64), leafs, "LEAFS");
            // Head node 0 is the drawing hull's; a model with no nodes points at a leaf.
            if nodes > 0 {
                c.index(i, "head node", m.head_nodes[0].get() as i64, nodes, "NODES");
            }
        }
    }

    if let Ok(list) = bsp.records::<Brush>(BRUSHES) {
        let l = label(bsp, BRUSHES);
        let mut c = Checker::new(problems, &l);
        for (i, b) in list.iter().enumerate() {
            c.range(i, "sides", (b.first_side.get() as i64, b.side_count.get() as i64), sides, "BRUSHSIDES");
        }
    }
    if let Ok(list) = bsp.records::<BrushSide>(BRUSHSIDES) {
        let l = label(bsp, BRUSHSIDES);
        let mut c = Checker::new(problems, &l);
        for (i, s) in list.iter().enumerate() {
            c.index(i, "plane", s.plane.get() as i64, planes, "PLANES");
        }
    }
}

/// Every entry of a `u32` index lump `id` must be below `len`.
fn indexes(bsp: &Bsp, problems: &mut Vec<Problem>, id: usize, len: usize, target: &str) {
    if let Ok(list) = bsp.records::<U32>(id) {
        let l = label(bsp, id);
        let mut c = Checker::new(problems, &l);
        for (i, v) in list.iter().enumerate() {
            c.index(i, "index", v.get() as i64, len, target);
        }
    }
}
