//! Cross-reference checks of Quake 2 maps (quake_facts.md §4).

use super::lumps::*;
use super::records::*;
use super::view::View;
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem};
use crate::error::Result;
use crate::lumps::visibility::VisKind;

/// Check every cross-reference of a Quake 2-family map (Quake 2, Qbism, SiN, Soldier of
/// Fortune, Daikatana): the shared tables, then each branch's own lumps.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    match bsp.branch().id {
        "qbism" => check_records::<Qbism>(bsp, problems),
        "sin" => {
            check_records::<Sin>(bsp, problems);
            check_sin(bsp, problems);
        }
        "sof" => {
            check_records::<Sof>(bsp, problems);
            check_sof(bsp, problems);
        }
        "daikatana" => {
            check_records::<Daikatana>(bsp, problems);
            check_daikatana(bsp, problems);
        }
        _ => check_records::<Ibsp>(bsp, problems),
    }
}

/// Lump label as the generic checks print it.
fn label(bsp: &Bsp, index: usize) -> String {
    format!("{index} ({})", bsp.branch().lumps.get(index).map(|l| l.name).unwrap_or("?"))
}

/// Length of a lump that decoded; `None` when it did not (the generic check already
/// reported it), so references into it are not checked.
fn len<T>(r: &Result<&[T]>) -> Option<usize> {
    r.as_ref().ok().map(|s| s.len())
}

/// Index check against a table whose length may be unknown.
#[inline(always)]
pub(crate) fn index(c: &mut Checker, rec: usize, field: &str, value: i64, len: Option<usize>, target: &str) {
    if let Some(n) = len {
        c.index(rec, field, value, n, target);
    }
}
#[inline(always)]
pub(crate) fn range(c: &mut Checker, rec: usize, field: &str, r: (i64, i64), len: Option<usize>, target: &str) {
    if let Some(n) = len {
        c.range(rec, field, r, n, target);
    }
}

/// Node child: ≥ 0 a node, < 0 leaf `-(child + 1)`.
#[inline(always)]
pub(crate) fn child(c: &mut Checker, rec: usize, value: i64, nodes: usize, leaves: Option<usize>) {
    if value >= 0 {
        c.index(rec, "child node", value, nodes, "nodes");
    } else {
        index(c, rec, "child leaf", -(value + 1), leaves, "leaves");
    }
}

/// Every cross-reference of a Quake 2 map in range (quake_facts.md §4).
pub fn check_records<L: Layout>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<L>::new(bsp) else { return };
    // Node tree cycles and shared nodes; the NODES checks below cover children out of range.
    crate::tree::node_tree::check_parts(bsp, super::tree::parts(bsp), problems);
    let (planes, vertices, nodes, texinfo, faces) = (v.planes(), v.vertices(), v.nodes(), v.texinfo(), v.faces());
    let (leaves, leaf_faces, leaf_brushes, edges, surfedges) = (v.leaves(), v.leaf_faces(), v.leaf_brushes(), v.edges(), v.surfedges());
    let (models, brushes, sides, areas, portals) = (v.models(), v.brushes(), v.brush_sides(), v.areas(), v.area_portals());
    let lighting = v.lighting().map(|l| l.len()).unwrap_or(0);
    let vis = v.visibility();
    if let Err(e) = &vis {
        problems.push(Problem::error(Code::BAD_VISIBILITY, label(bsp, LUMP_VISIBILITY), None, e.kind.to_string()));
    }
    let vis = vis.ok();

    let l = label(bsp, LUMP_NODES);
    let mut c = Checker::new(problems, &l);
    for (i, n) in nodes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", n.plane(), len(&planes), "planes");
        for ch in n.children() {
            child(&mut c, i, ch, len(&nodes).unwrap_or(0), len(&leaves));
        }
        range(&mut c, i, "faces", n.face_range(), len(&faces), "faces");
    }

    let l = label(bsp, LUMP_TEXINFO);
    let mut c = Checker::new(problems, &l);
    for (i, t) in texinfo.as_deref().unwrap_or(&[]).iter().enumerate() {
        let next = t.next_texinfo();
        if next != -1 {
            index(&mut c, i, "nexttexinfo", next, len(&texinfo), "texinfo");
        }
    }

    let l = label(bsp, LUMP_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, f) in faces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", f.plane(), len(&planes), "planes");
        index(&mut c, i, "texinfo", f.texinfo(), len(&texinfo), "texinfo");
        range(&mut c, i, "surfedges", f.edge_range(), len(&surfedges), "surfedges");
        if !(0..=1).contains(&f.side()) {
            c.error(Code::BAD_VALUE, Some(i), format!("side {} is neither 0 (front) nor 1 (back)", f.side()));
        }
        // A polygon needs three edges.
        if f.edge_range().1 < 3 {
            c.error(Code::BAD_GEOMETRY, Some(i), format!("{} edges cannot make a polygon", f.edge_range().1));
        }
        // A lit face's samples start inside the lighting lump (−1 = unlit).
        let ofs = f.light_offset();
        if ofs != -1 {
            c.index(i, "lightofs", ofs, lighting, "lighting bytes");
        }
    }

    let l = label(bsp, LUMP_LEAVES);
    let mut c = Checker::new(problems, &l);
    let clusters = vis.filter(|v| v.num_clusters > 0).map(|v| v.num_clusters);
    let num_areas = len(&areas).filter(|&n| n > 0);
    for (i, leaf) in leaves.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "leaffaces", leaf.leaf_face_range(), len(&leaf_faces), "leaffaces");
        range(&mut c, i, "leafbrushes", leaf.leaf_brush_range(), len(&leaf_brushes), "leafbrushes");
        // Cluster −1 marks a leaf outside every cluster; others index the vis table. A map
        // compiled without vis still numbers its clusters (ericw-tools' example-quake2 /
        // example-qbism: clusters up to 108, empty visibility lump), so there is no bound then.
        if leaf.cluster() != -1 {
            index(&mut c, i, "cluster", leaf.cluster(), clusters, "clusters");
        }
        index(&mut c, i, "area", leaf.area(), num_areas, "areas");
    }

    let l = label(bsp, LUMP_LEAF_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_faces.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "face", x.value(), len(&faces), "faces");
    }
    let l = label(bsp, LUMP_LEAF_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, x) in leaf_brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "brush", x.value(), len(&brushes), "brushes");
    }

    let l = label(bsp, LUMP_EDGES);
    let mut c = Checker::new(problems, &l);
    for (i, e) in edges.as_deref().unwrap_or(&[]).iter().enumerate() {
        for vtx in e.vertices() {
            index(&mut c, i, "vertex", vtx, len(&vertices), "vertices");
        }
    }
    let l = label(bsp, LUMP_SURFEDGES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in surfedges.as_deref().unwrap_or(&[]).iter().enumerate() {
        // The sign gives the direction; the magnitude is the edge.
        index(&mut c, i, "edge", (s.get() as i64).abs(), len(&edges), "edges");
    }

    let l = label(bsp, LUMP_MODELS);
    let mut c = Checker::new(problems, &l);
    for (i, m) in models.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "faces", (m.first_face.get() as i64, m.num_faces.get() as i64), len(&faces), "faces");
        // A model whose whole tree is one leaf names it as node children do, −(leaf + 1):
        // Quake 2's compiler emits a leaf head that way and the engine's hull trace reads a
        // negative head as that leaf (a shipped Soldier of Fortune map, irqctb2, has one).
        let head = m.head_node.get() as i64;
        if head >= 0 {
            index(&mut c, i, "headnode", head, len(&nodes), "nodes");
        } else {
            index(&mut c, i, "headnode leaf", -(head + 1), len(&leaves), "leaves");
        }
    }

    let l = label(bsp, LUMP_BRUSHES);
    let mut c = Checker::new(problems, &l);
    for (i, b) in brushes.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "sides", (b.first_side.get() as i64, b.num_sides.get() as i64), len(&sides), "brushsides");
    }
    let l = label(bsp, LUMP_BRUSH_SIDES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in sides.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "plane", s.plane(), len(&planes), "planes");
        // Bevel sides added for collision carry texinfo −1.
        if s.texinfo() != -1 {
            index(&mut c, i, "texinfo", s.texinfo(), len(&texinfo), "texinfo");
        }
    }

    let l = label(bsp, LUMP_AREAS);
    let mut c = Checker::new(problems, &l);
    for (i, a) in areas.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "areaportals", (a.first_area_portal.get() as i64, a.num_area_portals.get() as i64), len(&portals), "areaportals");
    }
    let l = label(bsp, LUMP_AREA_PORTALS);
    let mut c = Checker::new(problems, &l);
    for (i, p) in portals.as_deref().unwrap_or(&[]).iter().enumerate() {
        index(&mut c, i, "otherarea", p.other_area.get() as i64, len(&areas), "areas");
    }

    // Every cluster's PVS and PHS row decodes inside the lump.
    if let Some(vis) = vis {
        let l = label(bsp, LUMP_VISIBILITY);
        let mut row = Vec::new();
        for cl in 0..vis.num_clusters {
            for kind in [VisKind::Pvs, VisKind::Pas] {
                if let Err(e) = vis.row(cl, kind, &mut row) {
                    problems.push(Problem::error(
                        Code::BAD_VISIBILITY,
                        &l,
                        Some(cl),
                        format!(
                            "cluster {cl}'s {} row does not decode: {}",
                            match kind {
                                VisKind::Pvs => "PVS (visible set)",
                                VisKind::Pas => "PHS (audible set)",
                            },
                            e.kind
                        ),
                    ));
                }
            }
        }
    }
}

/// SiN: faces and brush sides name a LIGHTINFO entry (−1 = none).
fn check_sin(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<Sin>::new(bsp) else { return };
    let infos = len(&v.light_info());
    let l = label(bsp, LUMP_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, f) in v.faces().as_deref().unwrap_or(&[]).iter().enumerate() {
        if f.light_info.get() != -1 {
            index(&mut c, i, "lightinfo", f.light_info.get() as i64, infos, "lightinfo");
        }
    }
    let l = label(bsp, LUMP_BRUSH_SIDES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in v.brush_sides().as_deref().unwrap_or(&[]).iter().enumerate() {
        if s.light_info.get() != -1 {
            index(&mut c, i, "lightinfo", s.light_info.get() as i64, infos, "lightinfo");
        }
    }
}

/// Quake 2's solid contents bit (`CONTENTS_SOLID` in its `qfiles.h`).
const CONTENTS_SOLID: i32 = 1;

/// Soldier of Fortune: faces name a region (−1 = none) and a range of region faces, leaves a
/// region; region faces are edge ranges.
fn check_sof(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<Sof>::new(bsp) else { return };
    let (regions, region_faces, surfedges) = (len(&v.regions()), len(&v.region_faces()), len(&v.surfedges()));
    let l = label(bsp, LUMP_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, f) in v.faces().as_deref().unwrap_or(&[]).iter().enumerate() {
        if f.region.get() != -1 {
            index(&mut c, i, "region", f.region.get() as i64, regions, "regions");
        }
        if f.num_region_faces.get() != 0 {
            range(
                &mut c,
                i,
                "region faces",
                (f.first_region_face.get() as i64, f.num_region_faces.get() as i64),
                region_faces,
                "region faces",
            );
        }
    }
    let l = label(bsp, LUMP_LEAVES);
    let mut c = Checker::new(problems, &l);
    for (i, leaf) in v.leaves().as_deref().unwrap_or(&[]).iter().enumerate() {
        // Leaf 0 is the solid placeholder Quake 2's compiler reserves (no node child names it),
        // zero-filled but for its contents: Soldier of Fortune's compiler leaves its region 0
        // even where the map has no regions (every one of 41 shipped maps), so that 0 is fill,
        // not a reference, and nothing reads it.
        let placeholder = i == 0 && leaf.region.get() == 0 && leaf.contents.get() & CONTENTS_SOLID != 0;
        if leaf.region.get() != -1 && !placeholder {
            index(&mut c, i, "region", leaf.region.get() as i64, regions, "regions");
        }
    }
    let l = label(bsp, LUMP_SOF_REGION_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, r) in v.region_faces().as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "surfedges", (r.first_edge.get() as i64, r.num_edges.get() as i64), surfedges, "surfedges");
    }
}

/// Daikatana: EXTSURFINFO runs parallel to TEXINFO; PLANEPOLYS holds, per plane, a count and
/// that many face indices, and the counts walk the lump exactly.
fn check_daikatana(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(v) = View::<Daikatana>::new(bsp) else { return };
    let (texinfo, faces) = (len(&v.texinfo()), len(&v.faces()));
    if let (Ok(ext), Some(t)) = (v.ext_surf_info(), texinfo) {
        if !ext.is_empty() && ext.len() != t {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(bsp, LUMP_DK_EXT_SURF_INFO),
                None,
                format!("{} colours for {t} texinfo", ext.len()),
            ));
        }
    }
    let l = label(bsp, LUMP_DK_PLANE_POLYS);
    match v.plane_poly_lists() {
        Ok(Some(lists)) => {
            let mut c = Checker::new(problems, &l);
            for (plane, list) in lists {
                for f in list {
                    index(&mut c, plane, "face", f.get() as i64, faces, "faces");
                }
            }
        }
        Ok(None) => problems.push(Problem::error(Code::COUNT_MISMATCH, l, None, "the per-plane counts do not walk the lump exactly")),
        Err(_) => {}
    }
}
