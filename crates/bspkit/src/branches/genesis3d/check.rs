//! Checks of Genesis3D levels: the chunk chain as the engine's loader reads it
//! (`World/Gbspfile.cpp`: known types only, each with its record size, the header and sky
//! chunks read into one struct, an END chunk), then every cross-reference, each as the
//! engine follows it (`Plane.cpp`, `Trace.cpp`, `Vis.cpp`, `Surface.cpp`, `Light.cpp`,
//! `WBitmap.cpp`).

use super::lumps::*;
use super::view::View;
use crate::bsp::Bsp;
use crate::check::problem::{Checker, Code, Problem};
use crate::directory::chunks;

fn label(index: usize) -> String {
    format!("{index} ({})", GENESIS3D.lumps.get(index).map(|l| l.name).unwrap_or("?"))
}

/// Every check of a Genesis3D level.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    chain(bsp, problems);
    let Ok(v) = View::new(bsp) else { return };
    references(&v, problems);
    // Node tree cycles and nodes with two parents (out-of-range children are reported above).
    crate::tree::node_tree::check_parts(bsp, super::tree::parts(bsp), problems);
}

/// The chunk chain as the loader reads it.
fn chain(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Ok(chain) = chunks::walk(bsp.data()) else { return };
    let mut seen: Vec<u32> = Vec::new();
    for (i, c) in chain.chunks.iter().enumerate() {
        let index = c.kind as usize;
        let l = label(index);
        match GENESIS3D.lumps.get(index) {
            None => problems.push(Problem::error(
                Code::BAD_VALUE,
                &l,
                None,
                format!("chunk type {} is unknown: the engine stops loading at it", c.kind),
            )),
            Some(_) => {
                if c.size as usize != element_size(index) && !(c.size == 0 && c.elements == 0) {
                    problems.push(Problem::error(
                        Code::BAD_LUMP_LENGTH,
                        &l,
                        None,
                        format!("element size {} is not {}: the engine refuses the chunk", c.size, element_size(index)),
                    ));
                }
            }
        }
        if seen.contains(&c.kind) {
            problems.push(Problem::warning(
                Code::BAD_VALUE,
                &l,
                None,
                "chunk type appears twice: the engine keeps the later one, bspkit reads the first",
            ));
        }
        seen.push(c.kind);
        if i == 0 && index != CHUNK_HEADER {
            problems.push(Problem::error(Code::BAD_VALUE, &l, None, "the first chunk is not the GBSP header"));
        }
        if matches!(index, CHUNK_HEADER | CHUNK_SKYDATA) && c.elements > 1 {
            problems.push(Problem::error(
                Code::BAD_VALUE,
                &l,
                None,
                format!("{} elements: the engine reads this chunk into one struct", c.elements),
            ));
        }
    }
    if chain.end_at.is_none() {
        problems.push(Problem::error(
            Code::LUMP_UNREADABLE,
            "chunks",
            None,
            "no END chunk (type 0xffff): the engine fails reading past the last chunk",
        ));
    }
}

/// `[first, first + count)` inside a table; an empty range is never checked (the compiler
/// writes −1 as the start of empty portal lists).
fn range(c: &mut Checker, rec: usize, field: &str, first: i32, count: i32, len: usize, target: &str) {
    if count != 0 {
        c.range(rec, field, (first as i64, count as i64), len, target);
    }
}

/// A node child: a node (≥ 0) or leaf `-(child + 1)`.
fn child(c: &mut Checker, rec: usize, field: &str, value: i32, nodes: usize, leafs: usize) {
    if value >= 0 {
        c.index(rec, field, value as i64, nodes, "nodes");
    } else {
        c.index(rec, field, -(value as i64 + 1), leafs, "leafs");
    }
}

/// Length of a table that decoded (0 when it did not: the generic checks report that).
fn n<T>(r: &crate::error::Result<&[T]>) -> usize {
    r.as_ref().map(|s| s.len()).unwrap_or(0)
}

fn references(v: &View, problems: &mut Vec<Problem>) {
    let (models, nodes, bnodes, leafs) = (v.models(), v.nodes(), v.bnodes(), v.leafs());
    let (clusters, areas, area_portals, leaf_sides) = (v.clusters(), v.areas(), v.area_portals(), v.leaf_sides());
    let (portals, planes, faces, leaf_faces) = (v.portals(), v.planes(), v.faces(), v.leaf_faces());
    let (vert_index, verts, rgb_verts, texinfo, textures) = (v.vert_index(), v.verts(), v.rgb_verts(), v.texinfo(), v.textures());
    let n_nodes = n(&nodes);
    let (n_models, n_bnodes, n_leafs, n_clusters) = (n(&models), n(&bnodes), n(&leafs), n(&clusters));
    let (n_areas, n_area_portals, n_leaf_sides, n_portals) = (n(&areas), n(&area_portals), n(&leaf_sides), n(&portals));
    let (n_planes, n_faces, n_leaf_faces, n_vert_index) = (n(&planes), n(&faces), n(&leaf_faces), n(&vert_index));
    let (n_verts, n_texinfo, n_textures) = (n(&verts), n(&texinfo), n(&textures));
    let light = v.light_data().map(|d| d.len()).unwrap_or(0);
    let vis = v.vis_data().map(|d| d.len()).unwrap_or(0);
    let tex_data = v.tex_data().map(|d| d.len()).unwrap_or(0);
    let n_palettes = v.palettes().map(|p| p.len()).unwrap_or(0);

    if let Ok(Some(h)) = v.header() {
        let l = label(CHUNK_HEADER);
        if h.tag != *b"GBSP\0" {
            problems.push(Problem::error(Code::BAD_VALUE, &l, Some(0), format!("tag {:?} is not \"GBSP\"", h.tag())));
        }
        if h.version.get() as u32 != GBSP_VERSION {
            problems.push(Problem::error(
                Code::BAD_VALUE,
                &l,
                Some(0),
                format!("version {} is not {GBSP_VERSION}, the one the engine loads", h.version.get()),
            ));
        }
    }

    let l = label(CHUNK_MODELS);
    let mut c = Checker::new(problems, &l);
    for (i, m) in models.as_deref().unwrap_or(&[]).iter().enumerate() {
        if n_nodes > 0 || n_leafs > 0 {
            child(&mut c, i, "root node", m.root_node[0].get(), n_nodes, n_leafs);
        }
        // The bevel tree is optional (the corpus level has none and roots every model at 0).
        let b = m.root_node[1].get();
        if n_bnodes > 0 && b >= 0 {
            c.index(i, "bevel root", b as i64, n_bnodes, "bnodes");
        }
        range(&mut c, i, "faces", m.first_face.get(), m.num_faces.get(), n_faces, "faces");
        range(&mut c, i, "leafs", m.first_leaf.get(), m.num_leafs.get(), n_leafs, "leafs");
        range(&mut c, i, "clusters", m.first_cluster.get(), m.num_clusters.get(), n_clusters, "clusters");
        if n_areas > 0 {
            for a in m.areas {
                c.index(i, "area", a.get() as i64, n_areas, "areas");
            }
        }
    }

    let l = label(CHUNK_NODES);
    let mut c = Checker::new(problems, &l);
    for (i, nd) in nodes.as_deref().unwrap_or(&[]).iter().enumerate() {
        for ch in nd.children {
            child(&mut c, i, "child", ch.get(), n_nodes, n_leafs);
        }
        range(&mut c, i, "faces", nd.first_face.get(), nd.num_faces.get(), n_faces, "faces");
        c.index(i, "plane", nd.plane.get() as i64, n_planes, "planes");
    }

    let l = label(CHUNK_BNODES);
    let mut c = Checker::new(problems, &l);
    for (i, b) in bnodes.as_deref().unwrap_or(&[]).iter().enumerate() {
        for ch in b.children {
            // Negative children are contents values, not references.
            if ch.get() >= 0 {
                c.index(i, "child", ch.get() as i64, n_bnodes, "bnodes");
            }
        }
        c.index(i, "plane", b.plane.get() as i64, n_planes, "planes");
    }

    let l = label(CHUNK_LEAFS);
    let mut c = Checker::new(problems, &l);
    for (i, lf) in leafs.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "leaf faces", lf.first_face.get(), lf.num_faces.get(), n_leaf_faces, "leaf faces");
        range(&mut c, i, "portals", lf.first_portal.get(), lf.num_portals.get(), n_portals, "portals");
        range(&mut c, i, "sides", lf.first_side.get(), lf.num_sides.get(), n_leaf_sides, "leaf sides");
        if lf.cluster.get() != -1 {
            c.index(i, "cluster", lf.cluster.get() as i64, n_clusters, "clusters");
        }
        if n_areas > 0 {
            c.index(i, "area", lf.area.get() as i64, n_areas, "areas");
        }
    }

    // A cluster's PVS row holds one bit per cluster of the world model.
    let world_clusters = models.as_deref().ok().and_then(|m| m.first()).map(|m| m.num_clusters.get().max(0) as usize).unwrap_or(n_clusters);
    let row = vis_row_bytes(world_clusters);
    let l = label(CHUNK_CLUSTERS);
    for (i, cl) in clusters.as_deref().unwrap_or(&[]).iter().enumerate() {
        let ofs = cl.vis_offset.get();
        if ofs != -1 && (ofs < 0 || ofs as u64 + row as u64 > vis as u64) {
            problems.push(Problem::error(
                Code::RANGE_OUT_OF_RANGE,
                &l,
                Some(i),
                format!("PVS row {ofs}+{row} is outside VISDATA ({vis} bytes)"),
            ));
        }
    }

    let l = label(CHUNK_AREAS);
    let mut c = Checker::new(problems, &l);
    for (i, a) in areas.as_deref().unwrap_or(&[]).iter().enumerate() {
        range(&mut c, i, "area portals", a.first_area_portal.get(), a.num_area_portals.get(), n_area_portals, "area portals");
    }
    let l = label(CHUNK_AREA_PORTALS);
    let mut c = Checker::new(problems, &l);
    for (i, p) in area_portals.as_deref().unwrap_or(&[]).iter().enumerate() {
        c.index(i, "model", p.model.get() as i64, n_models, "models");
        c.index(i, "area", p.area.get() as i64, n_areas, "areas");
    }

    let l = label(CHUNK_LEAF_SIDES);
    let mut c = Checker::new(problems, &l);
    for (i, s) in leaf_sides.as_deref().unwrap_or(&[]).iter().enumerate() {
        c.index(i, "plane", s.plane.get() as i64, n_planes, "planes");
        if !(0..=1).contains(&s.side.get()) {
            c.problems.push(Problem::error(
                Code::BAD_VALUE,
                c.lump,
                Some(i),
                format!("side {} is neither 0 (front) nor 1 (back)", s.side.get()),
            ));
        }
    }

    let l = label(CHUNK_PORTALS);
    let mut c = Checker::new(problems, &l);
    for (i, p) in portals.as_deref().unwrap_or(&[]).iter().enumerate() {
        c.index(i, "leaf", p.leaf_to.get() as i64, n_leafs, "leafs");
    }

    let l = label(CHUNK_LEAF_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, f) in leaf_faces.as_deref().unwrap_or(&[]).iter().enumerate() {
        c.index(i, "face", f.get() as i64, n_faces, "faces");
    }

    let l = label(CHUNK_FACES);
    let mut c = Checker::new(problems, &l);
    for (i, f) in faces.as_deref().unwrap_or(&[]).iter().enumerate() {
        c.range(i, "corners", (f.first_vert.get() as i64, f.num_verts.get() as i64), n_vert_index, "vert index");
        if f.num_verts.get() < 3 {
            c.problems.push(Problem::error(
                Code::BAD_GEOMETRY,
                c.lump,
                Some(i),
                format!("{} corners cannot make a polygon", f.num_verts.get()),
            ));
        }
        c.index(i, "plane", f.plane.get() as i64, n_planes, "planes");
        if !(0..=1).contains(&f.plane_side.get()) {
            c.problems.push(Problem::error(
                Code::BAD_VALUE,
                c.lump,
                Some(i),
                format!("plane side {} is neither 0 nor 1", f.plane_side.get()),
            ));
        }
        c.index(i, "texinfo", f.texinfo.get() as i64, n_texinfo, "texinfo");
        let ofs = f.light_offset.get();
        if ofs != -1 && (ofs < 0 || ofs as u64 + f.light_bytes() > light as u64) {
            c.problems.push(Problem::error(
                Code::RANGE_OUT_OF_RANGE,
                c.lump,
                Some(i),
                format!("lightmap {ofs}+{} is outside LIGHTDATA ({light} bytes)", f.light_bytes()),
            ));
        }
    }

    let l = label(CHUNK_VERT_INDEX);
    let mut c = Checker::new(problems, &l);
    for (i, x) in vert_index.as_deref().unwrap_or(&[]).iter().enumerate() {
        c.index(i, "vertex", x.get() as i64, n_verts, "verts");
    }
    if let Ok(rgb) = &rgb_verts {
        if !rgb.is_empty() && rgb.len() != n_vert_index {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                label(CHUNK_RGB_VERTS),
                None,
                format!("{} colours for {n_vert_index} face corners (one per VERT_INDEX entry)", rgb.len()),
            ));
        }
    }

    let l = label(CHUNK_TEXINFO);
    let mut c = Checker::new(problems, &l);
    for (i, t) in texinfo.as_deref().unwrap_or(&[]).iter().enumerate() {
        c.index(i, "texture", t.texture.get() as i64, n_textures, "textures");
    }

    // Texels are only in the level when it carries TEXDATA ("not all worlds have tex data").
    let l = label(CHUNK_TEXTURES);
    let mut c = Checker::new(problems, &l);
    for (i, t) in textures.as_deref().unwrap_or(&[]).iter().enumerate() {
        let (w, h, ofs) = (t.width.get(), t.height.get(), t.offset.get());
        if w <= 0 || h <= 0 {
            c.problems.push(Problem::error(Code::BAD_VALUE, c.lump, Some(i), format!("size {w}×{h} is not positive")));
        } else if tex_data > 0 && (ofs < 0 || ofs as u64 + w as u64 * h as u64 > tex_data as u64) {
            c.problems.push(Problem::error(
                Code::RANGE_OUT_OF_RANGE,
                c.lump,
                Some(i),
                format!("texels {ofs}+{}×{} are outside TEXDATA ({tex_data} bytes)", w, h),
            ));
        }
        if tex_data > 0 {
            c.index(i, "palette", t.palette.get() as i64, n_palettes, "palettes");
        }
    }

    if let Ok(Some(sky)) = v.sky() {
        let l = label(CHUNK_SKYDATA);
        let mut c = Checker::new(problems, &l);
        for t in sky.textures {
            if t.get() != -1 {
                c.index(0, "side texture", t.get() as i64, n_textures, "textures");
            }
        }
    }

    if let Ok(m) = v.motions() {
        if !m.is_empty() && !m.starts_with(b"Genesis_Motion_File") {
            problems.push(Problem::error(Code::LUMP_UNREADABLE, label(CHUNK_MOTIONS), None, "does not start with \"Genesis_Motion_File\""));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::BspBuilder;

    #[test]
    fn chain_problems_are_reported() {
        // A node whose plane and child point nowhere, a models chunk of the wrong element size.
        let mut node = vec![0u8; 44];
        node[..4].copy_from_slice(&5i32.to_le_bytes());
        node[16..20].copy_from_slice(&9i32.to_le_bytes());
        let bytes = BspBuilder::new(&GENESIS3D).lump(CHUNK_NODES, node).lump(CHUNK_MODELS, vec![0u8; 81]).build();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let p: Vec<String> = crate::check::check(&bsp).iter().map(|p| p.to_string()).collect();
        assert!(p.iter().any(|p| p.contains("1 (MODELS): element size 1 is not 80")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("2 (NODES)[0]: plane 9 is outside planes")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("2 (NODES)[0]: child 5 is outside nodes")), "{p:?}");
        // Without its END chunk.
        let cut = &bytes[..bytes.len() - 12];
        let p: Vec<String> = crate::check::check(&Bsp::from_bytes(cut).unwrap()).iter().map(|p| p.to_string()).collect();
        assert!(p.iter().any(|p| p.contains("no END chunk")), "{p:?}");
    }
}
