//! Cross-reference checks of Call of Duty 4 maps.

use super::lumps::*;
use super::records::*;
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem};
use zerocopy::little_endian::U32;

/// Cross-references that hold on every corpus map (§2.2, checked with the corpus test).
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let count = |id: usize| bsp.record_size(id).and_then(|s| bsp.lump(id).ok().map(|l| l.len() / s)).unwrap_or(0);
    let materials = count(LUMP_MATERIALS);
    let planes = count(LUMP_PLANES);
    let brushside_count = count(LUMP_BRUSHSIDES);
    let (nodes, leafs) = (count(LUMP_NODES), count(LUMP_LEAFS));
    let (Ok(brushes), Ok(sides)) = (bsp.records::<Brush>(LUMP_BRUSHES), bsp.records::<BrushSide>(LUMP_BRUSHSIDES)) else { return };

    let mut c = Checker::new(problems, "8 (BRUSHES)");
    let mut first = 0usize;
    for (i, b) in brushes.iter().enumerate() {
        let n = b.num_sides.get() as usize;
        c.index(i, "material", b.material.get() as i64, materials, "MATERIALS");
        c.range(i, "sides", (first as i64, n as i64), brushside_count, "BRUSHSIDES");
        if let Some(bs) = sides.get(first..first.saturating_add(n)) {
            for (j, s) in bs.iter().enumerate().skip(6) {
                c.problems.extend(plane_problem(first + j, s, planes));
            }
        }
        first = first.saturating_add(n);
    }
    if first != brushside_count {
        c.error(Code::COUNT_MISMATCH, None, format!("brushes use {first} sides, BRUSHSIDES holds {brushside_count}"));
    }
    let mut c = Checker::new(problems, "5 (BRUSHSIDES)");
    for (i, s) in sides.iter().enumerate() {
        c.index(i, "material", s.material.get() as i64, materials, "MATERIALS");
    }
    // One edge count per brush side; the counts add up to the BRUSHEDGES length (§2.2).
    if let (Ok(counts), Ok(edges)) = (bsp.lump(LUMP_BRUSHSIDEEDGECOUNTS), bsp.lump(LUMP_BRUSHEDGES)) {
        if counts.len() != brushside_count {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                "6 (BRUSHSIDEEDGECOUNTS)",
                None,
                format!("{} entries for {brushside_count} brush sides", counts.len()),
            ));
        }
        let sum: usize = counts.iter().map(|&b| b as usize).sum();
        if sum != edges.len() {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                "7 (BRUSHEDGES)",
                None,
                format!("{} bytes, the edge counts add up to {sum}", edges.len()),
            ));
        }
    }
    if let Ok(lb) = bsp.records::<U32>(LUMP_LEAFBRUSHES) {
        let mut c = Checker::new(problems, "29 (LEAFBRUSHES)");
        for (i, b) in lb.iter().enumerate() {
            c.index(i, "brush", b.get() as i64, brushes.len(), "BRUSHES");
        }
    }
    if let Ok(list) = bsp.records::<Node>(LUMP_NODES) {
        let mut c = Checker::new(problems, "27 (NODES)");
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
    if let Ok(list) = bsp.records::<Model>(LUMP_MODELS) {
        let mut c = Checker::new(problems, "37 (MODELS)");
        for (i, m) in list.iter().enumerate() {
            c.range(i, "brushes", (m.first_brush.get() as i64, m.brush_count.get() as i64), brushes.len(), "BRUSHES");
        }
    }
    for (soup_id, soup_name, verts, indices) in [
        (LUMP_TRIANGLES, "9 (TRIANGLES)", LUMP_DRAWVERTS, LUMP_DRAWINDICES),
        (LUMP_UNLAYERED_TRIANGLES, "47 (UNLAYERED_TRIANGLES)", LUMP_UNLAYERED_DRAWVERTS, LUMP_UNLAYERED_DRAWINDICES),
    ] {
        let (nv, ni) = (count(verts), count(indices));
        if let Ok(list) = bsp.records::<TriangleSoup>(soup_id) {
            let mut c = Checker::new(problems, soup_name);
            for (i, t) in list.iter().enumerate() {
                c.index(i, "material", t.material.get() as i64, materials, "MATERIALS");
                c.range(i, "vertices", (t.first_vertex.get() as i64, t.vertex_count.get() as i64), nv, "vertices");
                c.range(i, "indices", (t.first_index.get() as i64, t.index_count.get() as i64), ni, "indices");
            }
        }
    }
}

fn plane_problem(index: usize, side: &BrushSide, planes: usize) -> Option<Problem> {
    let p = side.plane_or_dist.get() as u64;
    (p >= planes as u64).then(|| {
        Problem::error(Code::INDEX_OUT_OF_RANGE, "5 (BRUSHSIDES)", Some(index), format!("plane {p} is outside PLANES (0..{planes})"))
    })
}
