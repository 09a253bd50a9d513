//! Cross-reference checks of Quake 1 and GoldSrc maps.

use super::lumps::with_record_set;
use super::records::*;
use super::view::View;
use crate::branch::Family;
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::{Checker, Code, Problem};
use crate::error::{ErrorKind, Result};

/// Records of a lump, or one problem saying why they can't be read (then the checks that need
/// them are skipped).
fn get<'a, T>(problems: &mut Vec<Problem>, name: &str, r: Result<&'a [T]>) -> Option<&'a [T]> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            // The generic pass already reports bad lump lengths; keep other errors.
            if !matches!(e.kind, ErrorKind::BadLumpLength { .. }) {
                problems.push(Problem::error(Code::LUMP_UNREADABLE, name, None, e.kind.to_string()));
            }
            None
        }
    }
}

/// Check every cross-reference of a Quake 1 / GoldSrc map, with the branch's record set.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    with_record_set!(bsp.branch(), check_records(bsp, problems))
}

/// Check every cross-reference of a Quake-family map read with record set `L`.
///
/// Rules refined against real maps (each documented where it applies):
/// * edge 0 is a placeholder and only checked when a surfedge uses it;
/// * with an empty visibility lump a leaf's `visofs` may be 0 as well as −1;
/// * an empty lighting lump means the map was not lit: face light offsets are then ignored
///   (GoldSrc maps compiled without RAD store offset 0 with styles 0);
/// * a hull root 1..n may be a contents value (an empty hull: ZHLT writes −1), and when the
///   clipnode lump is empty (compiled without clip hulls) roots of 0 are accepted.
pub fn check_records<L: Layout>(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let v = View::<L>::new(bsp);
    let (Some(planes), Some(vertices), Some(nodes), Some(texinfo), Some(faces), Some(clipnodes), Some(leaves), Some(marks), Some(edges)) = (
        get(problems, "PLANES", v.planes()),
        get(problems, "VERTICES", v.vertices()),
        get(problems, "NODES", v.nodes()),
        get(problems, "TEXINFO", v.texinfo()),
        get(problems, "FACES", v.faces()),
        get(problems, "CLIPNODES", v.clipnodes()),
        get(problems, "LEAVES", v.leaves()),
        get(problems, "MARKSURFACES", v.marksurfaces()),
        get(problems, "EDGES", v.edges()),
    ) else {
        return;
    };
    let (Some(surfedges), Some(models)) = (get(problems, "SURFEDGES", v.surfedges()), get(problems, "MODELS", v.models())) else {
        return;
    };
    let lighting = v.lighting().unwrap_or(&[]);
    let vis = v.visibility().unwrap_or(&[]);

    // Textures: every present entry and its mips lie inside the lump.
    let mut num_textures = 0;
    match v.textures() {
        Ok(t) => {
            num_textures = t.len();
            for (i, r) in t.iter().enumerate() {
                if let Err(e) = r {
                    problems.push(Problem::error(Code::LUMP_UNREADABLE, "TEXTURES", Some(i), e.kind.to_string()));
                }
            }
        }
        Err(e) => problems.push(Problem::error(Code::LUMP_UNREADABLE, "TEXTURES", None, e.kind.to_string())),
    }

    let mut c = Checker::new(problems, "FACES");
    for (i, f) in faces.iter().enumerate() {
        c.index(i, "plane", f.plane(), planes.len(), "PLANES");
        c.index(i, "texinfo", f.texinfo(), texinfo.len(), "TEXINFO");
        c.range(i, "surfedge", f.edges(), surfedges.len(), "SURFEDGES");
        let ofs = f.light_ofs();
        if ofs != -1 && !lighting.is_empty() {
            c.index(i, "light offset", ofs, lighting.len(), "LIGHTING bytes");
        }
    }
    let mut c = Checker::new(problems, "SURFEDGES");
    for (i, s) in surfedges.iter().enumerate() {
        c.index(i, "edge", (s.get() as i64).abs(), edges.len(), "EDGES");
    }
    let mut c = Checker::new(problems, "EDGES");
    // Edge 0 is the reserved placeholder (a surfedge −0 can't say "reversed"); some tiny maps
    // have no vertices at all, so it is only checked if a surfedge uses it.
    let edge0_used = surfedges.iter().any(|s| s.get() == 0);
    for (i, e) in edges.iter().enumerate().skip(usize::from(!edge0_used)) {
        c.index(i, "vertex 0", e.v(0), vertices.len(), "VERTICES");
        c.index(i, "vertex 1", e.v(1), vertices.len(), "VERTICES");
    }
    let mut c = Checker::new(problems, "NODES");
    for (i, n) in nodes.iter().enumerate() {
        c.index(i, "plane", n.plane(), planes.len(), "PLANES");
        c.range(i, "face", n.faces(), faces.len(), "FACES");
        for side in 0..2 {
            match n.child(side, nodes.len()) {
                Child::Node(k) => c.index(i, ["child 0 node", "child 1 node"][side], k, nodes.len(), "NODES"),
                Child::Leaf(k) => c.index(i, ["child 0 leaf", "child 1 leaf"][side], k, leaves.len(), "LEAVES"),
            }
        }
    }
    let mut c = Checker::new(problems, "CLIPNODES");
    for (i, n) in clipnodes.iter().enumerate() {
        c.index(i, "plane", n.plane(), planes.len(), "PLANES");
        for side in 0..2 {
            match n.child(side) {
                ClipChild::Node(k) => c.index(i, ["child 0", "child 1"][side], k, clipnodes.len(), "CLIPNODES"),
                ClipChild::Contents(k) if k < CONTENTS_MIN => {
                    c.error(Code::BAD_VALUE, Some(i), format!("child {side} contents {k} is below {CONTENTS_MIN}"))
                }
                ClipChild::Contents(_) => {}
            }
        }
    }
    let mut c = Checker::new(problems, "LEAVES");
    for (i, l) in leaves.iter().enumerate() {
        c.range(i, "marksurface", l.marks(), marks.len(), "MARKSURFACES");
        let ofs = l.vis_ofs();
        // Without visibility data, offset 0 is what unvised compiles store (ericw-tools): the
        // engines add it to a null vis pointer and treat the null row as "all visible".
        if ofs != -1 && !(vis.is_empty() && ofs == 0) {
            c.index(i, "visofs", ofs, vis.len(), "VISIBILITY bytes");
        }
    }
    let mut c = Checker::new(problems, "MARKSURFACES");
    for (i, m) in marks.iter().enumerate() {
        c.index(i, "face", m.face(), faces.len(), "FACES");
    }
    let mut c = Checker::new(problems, "TEXINFO");
    for (i, t) in texinfo.iter().enumerate() {
        c.index(i, "miptex", t.miptex.get() as i64, num_textures, "TEXTURES");
    }
    let mut c = Checker::new(problems, "MODELS");
    for (i, m) in models.iter().enumerate() {
        c.range(i, "face", m.faces(), faces.len(), "FACES");
        for (hull, h) in m.head_nodes().iter().enumerate() {
            let h = h.get() as i64;
            if hull == 0 {
                c.index(i, "hull 0 root", h, nodes.len(), "NODES");
            } else if h < 0 {
                if h < CONTENTS_MIN as i64 {
                    c.error(Code::BAD_VALUE, Some(i), format!("hull {hull} root {h} is neither a clipnode nor contents"));
                }
            } else if !(clipnodes.is_empty() && h == 0) {
                c.index(i, &format!("hull {hull} root"), h, clipnodes.len(), "CLIPNODES");
            }
        }
    }
    if let Some(world) = models.first() {
        c.index(0, "visleafs", world.vis_leafs(), leaves.len(), "LEAVES (solid leaf 0 excluded)");
    }

    check_bspx(bsp, faces.len(), lighting.len(), problems);
    // Node tree cycles and shared nodes (children in range are checked above).
    crate::tree::node_tree::check_parts(bsp, super::tree::parts(bsp), problems);

    // Every PVS row decodes within the lump.
    let mut row = Vec::new();
    for i in 0..leaves.len() {
        if let Err(e) = v.leaf_pvs(i, &mut row) {
            problems.push(Problem::error(
                Code::BAD_VISIBILITY,
                "VISIBILITY",
                Some(i),
                format!("leaf {i}'s PVS row does not decode: {}", e.kind),
            ));
        }
    }
}

/// BSPX lumps that refer to the standard lumps (quake_facts.md §2): the directory fits the
/// file; `DECOUPLED_LM` has one 40-byte record per face whose light offset (`i32` at +4, in
/// luxels of the plain lighting, −1 = none) lies in the lighting; `RGBLIGHTING` holds 3 bytes
/// for each byte of a non-empty plain lighting lump.
fn check_bspx(bsp: &Bsp, num_faces: usize, lighting_len: usize, problems: &mut Vec<Problem>) {
    let x = match crate::lumps::bspx::of(bsp) {
        Ok(Some(x)) => x,
        Ok(None) => return,
        Err(e) => {
            problems.push(Problem::error(Code::LUMP_UNREADABLE, "BSPX", None, e.kind.to_string()));
            return;
        }
    };
    let data = bsp.data();
    let rgb = x.lump(data, "RGBLIGHTING");
    if let (Some(rgb), false, Family::Quake) = (rgb, lighting_len == 0, bsp.family()) {
        if rgb.len() != 3 * lighting_len {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                "BSPX RGBLIGHTING",
                None,
                format!("{} bytes for {lighting_len} luxels", rgb.len()),
            ));
        }
    }
    // Luxels the offsets may address: the plain lighting, or the coloured copy when only it exists.
    let luxels = if lighting_len > 0 { lighting_len } else { rgb.map(|r| r.len() / 3).unwrap_or(0) };
    if let Some(lm) = x.lump(data, "DECOUPLED_LM") {
        if lm.len() != 40 * num_faces {
            problems.push(Problem::error(
                Code::COUNT_MISMATCH,
                "BSPX DECOUPLED_LM",
                None,
                format!("{} bytes for {num_faces} faces of 40 bytes", lm.len()),
            ));
            return;
        }
        let mut c = Checker::new(problems, "BSPX DECOUPLED_LM");
        for (i, rec) in lm.chunks_exact(40).enumerate() {
            let ofs = crate::bytes::i32_at(rec, 4, Endian::Little).unwrap_or(-1) as i64;
            if ofs >= 0 && luxels > 0 {
                c.index(i, "light offset", ofs, luxels, "lighting luxels");
            }
        }
    }
}
