//! Cross-reference checks for Source maps (the `Branch::check` hook): every index a record
//! holds must land inside the lump it points into (source.md §7–§24).

use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

use super::lumps::*;
use super::records::{disp_tri_count, disp_vert_count};
use super::view::{Faces, View};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::{Checker, Code, Problem};

/// `SURF_BUMPLIGHT`: three extra lightmaps per style (§10.1, §19).
const SURF_BUMPLIGHT: i32 = 0x800;

/// The lumps whose content these checks (with the node-tree walk and the generic entity check)
/// read; `check` decodes these compressed lumps first, in parallel. Every other lump is only
/// measured — vertices, lightmap samples, leaf ambient lighting, displacement vertices and
/// triangles, … whose lengths bound the indices and offsets pointing into them — so an LZMA one
/// is not decoded, its header states its length (`CheckOptions::verify_lzma` decodes them
/// all). A lump read but missing here is still decoded when read, only not in parallel; a test
/// compares this list with the lumps `check` decodes.
pub const READS: &[usize] = &[
    LUMP_ENTITIES,
    LUMP_PLANES,
    LUMP_TEXDATA,
    LUMP_VISIBILITY,
    LUMP_NODES,
    LUMP_TEXINFO,
    LUMP_FACES,
    LUMP_OCCLUSION,
    LUMP_LEAVES,
    LUMP_EDGES,
    LUMP_SURFEDGES,
    LUMP_MODELS,
    LUMP_LEAF_FACES,
    LUMP_LEAF_BRUSHES,
    LUMP_BRUSHES,
    LUMP_BRUSH_SIDES,
    LUMP_AREAS,
    LUMP_AREA_PORTALS,
    LUMP_DISP_INFO,
    LUMP_ORIGINAL_FACES,
    LUMP_PHYS_COLLIDE,
    LUMP_VERT_NORMAL_INDICES,
    LUMP_GAME_LUMP,
    LUMP_PRIMITIVES,
    LUMP_PAKFILE,
    LUMP_TEXDATA_STRING_TABLE,
    LUMP_OVERLAYS,
    LUMP_LEAF_AMBIENT_INDEX_HDR,
    LUMP_LEAF_AMBIENT_INDEX,
    LUMP_FACES_HDR,
];

/// [`READS`] and the vertices: Dota 2's dispinfo records are read only where the map proves
/// them, and the proof takes each displacement face's corners ([`super::view::View::disp_infos_dota`]).
pub const READS_DOTA2: &[usize] = &with_vertices();

const fn with_vertices() -> [usize; READS.len() + 1] {
    let mut out = [LUMP_VERTICES; READS.len() + 1];
    let mut i = 0;
    while i < READS.len() {
        out[i] = READS[i];
        i += 1;
    }
    out
}

/// The lumps `check` reads on a map of `branch` ([`READS`], [`READS_DOTA2`]).
pub fn reads(branch: &crate::branch::Branch) -> &'static [usize] {
    if branch.id == "dota2" {
        READS_DOTA2
    } else {
        READS
    }
}

pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let r = match bsp.endian() {
        Endian::Little => check_as::<LittleEndian>(bsp, problems),
        Endian::Big => check_as::<BigEndian>(bsp, problems),
    };
    if let Err(e) = r {
        problems.push(Problem::error(Code::LUMP_UNREADABLE, e.lump.clone().unwrap_or_else(|| "source".into()), None, e.kind.to_string()));
    }
    // Node-tree cycles and nodes with two parents, walked without recursion.
    crate::tree::node_tree::check_parts(bsp, super::tree::parts(bsp), problems);
    check_containers(bsp, problems);
    check_xbox_pages(bsp, problems);
}

/// Original Xbox (`source_xbox`): LIGHTMAP_PAGES is whole pages and every page info names one
/// of them (Valve's `bspfile.h`: `dlightmappage_t`, `dlightmappageinfo_t`). Which face uses
/// which info is not stated there, so faces are not checked against the infos.
fn check_xbox_pages(bsp: &Bsp, problems: &mut Vec<Problem>) {
    if bsp.branch().id != SOURCE_XBOX.id {
        return;
    }
    let Ok(pages) = bsp.lump(LUMP_XBOX_LIGHTMAP_PAGES) else { return };
    let label = |i: usize| format!("{i} ({})", bsp.entry(i).map_or("?", |e| e.name));
    if pages.len() % XBOX_LIGHTMAP_PAGE_BYTES != 0 {
        problems.push(Problem::error(
            Code::BAD_VALUE,
            label(LUMP_XBOX_LIGHTMAP_PAGES),
            None,
            format!("{} bytes are not whole {XBOX_LIGHTMAP_PAGE_BYTES}-byte lightmap pages", pages.len()),
        ));
    }
    let n = pages.len() / XBOX_LIGHTMAP_PAGE_BYTES;
    if let Ok(infos) = bsp.records::<super::records::LightmapPageInfo>(LUMP_XBOX_LIGHTMAP_PAGE_INFOS) {
        let l = label(LUMP_XBOX_LIGHTMAP_PAGE_INFOS);
        let mut c = Checker::new(problems, &l);
        for (i, info) in infos.iter().enumerate() {
            c.index(i, "page", info.page as i64, n, "LIGHTMAP_PAGES");
        }
    }
}

/// The game lump directory (§14: a count that is not negative, children inside the lump) and
/// the pakfile (§15: a Zip archive whose entries' data lie inside the lump) — what the engine
/// walks when it loads the map.
fn check_containers(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let label = |i: usize| format!("{i} ({})", bsp.entry(i).map_or("?", |e| e.name));
    // A lump that cannot be read at all is already reported by the generic pass.
    if bsp.lump(LUMP_GAME_LUMP).is_ok() {
        if let Err(e) = crate::lumps::gamelump::GameLumps::of(bsp) {
            problems.push(Problem::error(Code::BAD_GAME_LUMP_DIRECTORY, label(LUMP_GAME_LUMP), None, e.kind.to_string()));
        }
    }
    if let Ok(bytes) = bsp.lump(LUMP_PAKFILE) {
        match crate::lumps::pakfile::Pakfile::parse(bytes) {
            Err(e) => problems.push(Problem::error(Code::BAD_PAKFILE, label(LUMP_PAKFILE), None, at(&e))),
            Ok(pak) => {
                for (i, entry) in pak.entries.iter().enumerate() {
                    if let Err(e) = pak.raw_data(entry) {
                        problems.push(Problem::error(Code::BAD_PAKFILE, label(LUMP_PAKFILE), Some(i), at(&e)));
                    }
                }
            }
        }
    }
}

/// An error's message with its offset inside the lump, when it has one.
fn at(e: &crate::error::Error) -> String {
    match e.offset {
        Some(o) => format!("offset {o}: {}", e.kind),
        None => e.kind.to_string(),
    }
}

/// A lump that doesn't decode is reported once and its checks skipped.
fn ok<T>(problems: &mut Vec<Problem>, r: crate::error::Result<T>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            let p = Problem::error(Code::LUMP_UNREADABLE, e.lump.clone().unwrap_or_else(|| "source".into()), None, e.kind.to_string());
            if !problems.contains(&p) {
                problems.push(p);
            }
            None
        }
    }
}

fn opt(v: i64) -> bool {
    v == -1
}

fn check_faces<O: ByteOrder>(v: &View<O>, p: &mut Vec<Problem>, name: &str, faces: &Faces<O>, light: usize) -> crate::error::Result<()> {
    let planes = v.planes()?.len();
    let surfedges = v.surfedges()?.len();
    let texinfo = v.texinfo()?;
    let (dispinfos, disp_unknown) = v.disp_info_count()?.map_or((0, true), |n| (n, false));
    // Only the samples' extent is checked: the lighting lump is measured, not decoded.
    let light_len = i64::try_from(v.bsp.lump_len(light)?).unwrap_or(i64::MAX);
    let prims = v.primitives()?.len();
    let mut c = Checker::new(p, name);
    for (i, f) in faces.iter().enumerate() {
        c.index(i, "planenum", f.planenum, planes, "PLANES");
        c.range(i, "surfedges", (f.firstedge, f.numedges), surfedges, "SURFEDGES");
        if !opt(f.texinfo) {
            c.index(i, "texinfo", f.texinfo, texinfo.len(), "TEXINFO");
        }
        if !opt(f.dispinfo) && !disp_unknown {
            c.index(i, "dispinfo", f.dispinfo, dispinfos, "DISP_INFO");
        }
        if f.num_prims > 0 {
            c.range(i, "primitives", (f.first_prim, f.num_prims), prims, "PRIMITIVES");
        }
        // An unlit map (no VRAD run) leaves lightofs 0 and an empty lighting lump.
        if !opt(f.lightofs) && f.num_styles > 0 && light_len > 0 {
            // §19 / A16: samples = styles × luxels (× 4 when bump-mapped), after the averages.
            let bump = usize::try_from(f.texinfo).ok().and_then(|t| texinfo.get(t)).is_some_and(|t| t.flags.get() & SURF_BUMPLIGHT != 0);
            let n = (f.num_styles as i64).saturating_mul(f.luxels).saturating_mul(if bump { 4 } else { 1 });
            let bytes = n.saturating_mul(4);
            // The per-style average samples sit just before `lightofs` (A16), except in VTMB,
            // whose faces hold them in the record (so its first lit face starts at 0).
            let averages = if faces.averages_before_samples() { 4 * f.num_styles as i64 } else { 0 };
            if f.lightofs < averages || f.lightofs.saturating_add(bytes) > light_len {
                c.error(
                    Code::RANGE_OUT_OF_RANGE,
                    Some(i),
                    format!("lightofs {} + {bytes} bytes of samples is outside the lighting lump ({light_len} bytes)", f.lightofs),
                );
            }
        }
    }
    Ok(())
}

fn check_as<O: ByteOrder>(bsp: &Bsp, p: &mut Vec<Problem>) -> crate::error::Result<()> {
    let v = View::<O>::new(bsp)?;
    let planes = ok(p, v.planes()).map_or(0, |x| x.len());
    let vertices = ok(p, v.vertices_len()).unwrap_or(0);
    let texinfo_len = ok(p, v.texinfo()).map_or(0, |x| x.len());
    let faces_len = ok(p, v.faces()).map_or(0, |f| f.len());

    // Faces (LDR and HDR), original faces.
    for (lump, light) in [(LUMP_FACES, LUMP_LIGHTING), (LUMP_FACES_HDR, LUMP_LIGHTING_HDR)] {
        let faces = if lump == LUMP_FACES { v.faces_ldr() } else { v.faces_hdr() };
        if let Some(faces) = ok(p, faces) {
            let name = if lump == LUMP_FACES { "FACES" } else { "FACES_HDR" };
            if let Err(e) = check_faces(&v, p, name, &faces, light) {
                ok::<()>(p, Err(e));
            }
        }
    }
    if let Some(faces) = ok(p, v.original_faces()) {
        let surfedges = ok(p, v.surfedges()).map_or(0, |s| s.len());
        let mut c = Checker::new(p, "ORIGINAL_FACES");
        for (i, f) in faces.iter().enumerate() {
            c.index(i, "planenum", f.planenum, planes, "PLANES");
            c.range(i, "surfedges", (f.firstedge, f.numedges), surfedges, "SURFEDGES");
            // Not texinfo: original faces keep the index from before vbsp compacts the texinfo
            // table ("Reduced 20 texinfos to 6"), so it may point past the final table.
        }
    }
    // Surfedges → edges → vertices.
    if let (Some(surfedges), Some(edges)) = (ok(p, v.surfedges()), ok(p, v.edges())) {
        let mut c = Checker::new(p, "SURFEDGES");
        for (i, s) in surfedges.iter().enumerate() {
            c.index(i, "edge", (s.edge.get() as i64).abs(), edges.len(), "EDGES");
        }
        let mut c = Checker::new(p, "EDGES");
        for i in 0..edges.len() {
            if let Some([a, b]) = edges.get(i) {
                c.index(i, "v[0]", a as i64, vertices, "VERTICES");
                c.index(i, "v[1]", b as i64, vertices, "VERTICES");
            }
        }
    }
    // Tree.
    let leaves = ok(p, v.leaves());
    let leaves_len = leaves.as_ref().map_or(0, |l| l.len());
    if let Some(nodes) = ok(p, v.nodes()) {
        let n = nodes.len();
        let mut c = Checker::new(p, "NODES");
        for (i, node) in nodes.iter().enumerate() {
            c.index(i, "planenum", node.planenum, planes, "PLANES");
            for (k, &child) in node.children.iter().enumerate() {
                if child >= 0 {
                    c.index(i, if k == 0 { "children[0]" } else { "children[1]" }, child, n, "NODES");
                } else {
                    c.index(i, if k == 0 { "children[0] leaf" } else { "children[1] leaf" }, -1 - child, leaves_len, "LEAVES");
                }
            }
            c.range(i, "faces", (node.firstface, node.numfaces), faces_len, "FACES");
        }
    }
    if let Some(leaves) = &leaves {
        let leaffaces = ok(p, v.leaf_faces()).map_or(0, |x| x.len());
        let leafbrushes = ok(p, v.leaf_brushes()).map_or(0, |x| x.len());
        let areas = ok(p, v.areas()).map_or(0, |x| x.len());
        let water = ok(p, v.leaf_water_data_len()).unwrap_or(0);
        let clusters = ok(p, v.visibility()).map_or(0, |x| x.num_clusters);
        let mut c = Checker::new(p, "LEAVES");
        for (i, l) in leaves.iter().enumerate() {
            c.range(i, "leaffaces", (l.firstleafface, l.numleaffaces), leaffaces, "LEAF_FACES");
            c.range(i, "leafbrushes", (l.firstleafbrush, l.numleafbrushes), leafbrushes, "LEAF_BRUSHES");
            if areas > 0 {
                c.index(i, "area", l.area, areas, "AREAS");
            }
            if !opt(l.leaf_water_data_id) {
                c.index(i, "leafWaterDataID", l.leaf_water_data_id, water, "LEAF_WATER_DATA");
            }
            if !opt(l.cluster) && clusters > 0 {
                c.index(i, "cluster", l.cluster, clusters, "VISIBILITY clusters");
            }
        }
    }
    if let Some(lf) = ok(p, v.leaf_faces()) {
        let mut c = Checker::new(p, "LEAF_FACES");
        for (i, f) in lf.iter().enumerate() {
            c.index(i, "face", f as i64, faces_len, "FACES");
        }
    }
    let brushes = ok(p, v.brushes());
    if let Some(lb) = ok(p, v.leaf_brushes()) {
        let n = brushes.map_or(0, |b| b.len());
        let mut c = Checker::new(p, "LEAF_BRUSHES");
        for (i, b) in lb.iter().enumerate() {
            c.index(i, "brush", b as i64, n, "BRUSHES");
        }
    }
    // Brushes and sides.
    let sides = ok(p, v.brush_sides());
    if let Some(brushes) = brushes {
        let n = sides.as_ref().map_or(0, |s| s.len());
        let mut c = Checker::new(p, "BRUSHES");
        for (i, b) in brushes.iter().enumerate() {
            c.range(i, "sides", (b.firstside.get() as i64, b.numsides.get() as i64), n, "BRUSH_SIDES");
        }
    }
    let dispinfos = ok(p, v.disp_infos());
    let disp_count = ok(p, v.disp_info_count());
    let disp_len = disp_count.flatten().unwrap_or(0);
    let disp_unknown = matches!(disp_count, Some(None));
    if let Some(sides) = sides {
        let mut c = Checker::new(p, "BRUSH_SIDES");
        for (i, s) in sides.iter().enumerate() {
            c.index(i, "planenum", s.planenum, planes, "PLANES");
            if !opt(s.texinfo) {
                c.index(i, "texinfo", s.texinfo, texinfo_len, "TEXINFO");
            }
            // Sides of ordinary brushes hold 0 here, not −1 (every corpus map).
            if s.dispinfo > 0 && !disp_unknown {
                c.index(i, "dispinfo", s.dispinfo, disp_len, "DISP_INFO");
            }
        }
    }
    // Textures.
    let texdata = ok(p, v.texdata());
    if let Some(ti) = ok(p, v.texinfo()) {
        let n = texdata.map_or(0, |t| t.len());
        let mut c = Checker::new(p, "TEXINFO");
        // texdata -1: the engine's texinfo loader gives such a texinfo its empty material (a
        // developer message, "Mod_LoadTexinfo: texdata < 0"); real VTMB maps end their texinfo
        // lump with one or two of them that no face or brush side uses. One note for all.
        let (mut empty, mut first_empty) = (0usize, None);
        for (i, t) in ti.iter().enumerate() {
            if t.texdata.get() == -1 {
                empty += 1;
                first_empty.get_or_insert(i);
            } else {
                c.index(i, "texdata", t.texdata.get() as i64, n, "TEXDATA");
            }
        }
        if let Some(i) = first_empty {
            c.note(Code::NO_TEXDATA, Some(i), format!("{empty} texinfo(s) have texdata -1: the engine draws them with its empty material"));
        }
    }
    let table = ok(p, v.string_table());
    if let Some(td) = texdata {
        let n = table.map_or(0, |t| t.len());
        let mut c = Checker::new(p, "TEXDATA");
        for (i, t) in td.iter().enumerate() {
            c.index(i, "nameStringTableID", t.name_string_table_id.get() as i64, n, "TEXDATA_STRING_TABLE");
        }
    }
    if let (Some(table), Some(data)) = (table, ok(p, v.string_data_len())) {
        let mut c = Checker::new(p, "TEXDATA_STRING_TABLE");
        for (i, e) in table.iter().enumerate() {
            c.index(i, "offset", e.offset.get() as i64, data, "TEXDATA_STRING_DATA");
        }
    }
    // Models.
    if let (Some(models), Some(nodes)) = (ok(p, v.models()), ok(p, v.nodes())) {
        let mut c = Checker::new(p, "MODELS");
        for (i, m) in models.iter().enumerate() {
            c.index(i, "headnode", m.headnode.get() as i64, nodes.len().max(1), "NODES");
            c.range(i, "faces", (m.firstface.get() as i64, m.numfaces.get() as i64), faces_len, "FACES");
        }
    }
    // Displacements.
    if let Some(d) = &dispinfos {
        let verts = ok(p, v.disp_verts_len()).unwrap_or(0);
        let tris = ok(p, v.disp_tris_len()).unwrap_or(0);
        let drawn = ok(p, v.faces());
        let mut c = Checker::new(p, "DISP_INFO");
        for (i, di) in d.iter().enumerate() {
            match (disp_vert_count(di.power), disp_tri_count(di.power)) {
                (Some(nv), Some(nt)) if (2..=4).contains(&di.power) => {
                    c.range(i, "disp verts", (di.disp_vert_start, nv as i64), verts, "DISP_VERTS");
                    c.range(i, "disp tris", (di.disp_tri_start, nt as i64), tris, "DISP_TRIS");
                }
                _ => c.error(Code::BAD_VALUE, Some(i), format!("power {} is not 2, 3 or 4", di.power)),
            }
            c.index(i, "MapFace", di.map_face, faces_len, "FACES");
            // The face must point back at this displacement.
            if let Some(f) = drawn.as_ref().and_then(|f| usize::try_from(di.map_face).ok().and_then(|m| f.get(m))) {
                if f.dispinfo != i as i64 {
                    c.error(Code::DISP_BACKLINK, Some(i), format!("MapFace {} has dispinfo {}, not {i}", di.map_face, f.dispinfo));
                }
            }
        }
    }
    // Ambient lighting: one index entry per leaf, each range inside the samples (§20).
    for hdr in [false, true] {
        let (Some(index), Some(samples)) = (ok(p, v.leaf_ambient_index(hdr)), ok(p, v.leaf_ambient_lighting_len(hdr))) else { continue };
        if index.is_empty() {
            continue;
        }
        let name = if hdr { "LEAF_AMBIENT_INDEX_HDR" } else { "LEAF_AMBIENT_INDEX" };
        if index.len() != leaves_len {
            p.push(Problem::error(Code::COUNT_MISMATCH, name, None, format!("{} entries for {leaves_len} leaves", index.len())));
        }
        let target = if hdr { "LEAF_AMBIENT_LIGHTING_HDR" } else { "LEAF_AMBIENT_LIGHTING" };
        let mut c = Checker::new(p, name);
        for i in 0..index.len() {
            // A leaf with no samples may carry any `first` (seen in TF2 maps).
            if let Some((count, first)) = index.get(i).filter(|x| x.0 > 0) {
                c.range(i, "samples", (first, count), samples, target);
            }
        }
    }
    // Overlays.
    if let Some(ov) = ok(p, v.overlays()) {
        let mut c = Checker::new(p, "OVERLAYS");
        for i in 0..ov.len() {
            if let Some((t, faces)) = ov.get(i) {
                c.index(i, "texinfo", t, texinfo_len, "TEXINFO");
                for f in faces {
                    c.index(i, "face", f, faces_len, "FACES");
                }
            }
        }
    }
    // Primitives (§24).
    if let Some(prims) = ok(p, v.primitives()) {
        let idx = ok(p, v.prim_indices_len()).unwrap_or(0);
        let pv = ok(p, v.prim_verts_len()).unwrap_or(0);
        let mut c = Checker::new(p, "PRIMITIVES");
        for i in 0..prims.len() {
            if let Some([fi, ni, fv, nv]) = prims.get(i) {
                c.range(i, "indices", (fi, ni), idx, "PRIM_INDICES");
                c.range(i, "verts", (fv, nv), pv, "PRIM_VERTS");
            }
        }
    }
    // Occlusion (§21).
    if let Some(o) = ok(p, v.occlusion()) {
        let mut c = Checker::new(p, "OCCLUSION");
        for i in 0..o.occluder_count() {
            if let Some(r) = o.occluder_polys(i) {
                c.range(i, "polys", r, o.polys.len(), "occluder polygons");
            }
        }
        for (i, poly) in o.polys.iter().enumerate() {
            c.range(
                i,
                "vertex indices",
                (poly.firstvertexindex.get() as i64, poly.vertexcount.get() as i64),
                o.vertex_indices.len(),
                "occluder vertex indices",
            );
            c.index(i, "planenum", poly.planenum.get() as i64, planes, "PLANES");
        }
        for (i, vi) in o.vertex_indices.iter().enumerate() {
            c.index(i, "vertex index", vi.edge.get() as i64, vertices, "VERTICES");
        }
    }
    // Areas and area portals.
    if let (Some(areas), Some(portals)) = (ok(p, v.areas()), ok(p, v.area_portals())) {
        let clip = ok(p, v.clip_portal_verts_len()).unwrap_or(0);
        let mut c = Checker::new(p, "AREAS");
        for (i, a) in areas.iter().enumerate() {
            c.range(i, "area portals", (a.first_area_portal.get() as i64, a.num_area_portals.get() as i64), portals.len(), "AREA_PORTALS");
        }
        let mut c = Checker::new(p, "AREA_PORTALS");
        for i in 0..portals.len() {
            if let Some([other, first, n, _plane]) = portals.get(i) {
                c.index(i, "otherarea", other, areas.len(), "AREAS");
                c.range(i, "clip portal verts", (first, n), clip, "CLIP_PORTAL_VERTS");
            }
        }
    }
    // Vertex normals.
    if let (Some(idx), Some(normals)) = (ok(p, v.vert_normal_indices()), ok(p, v.vert_normals_len())) {
        let mut c = Checker::new(p, "VERT_NORMAL_INDICES");
        for (i, n) in idx.iter().enumerate() {
            c.index(i, "normal", n as i64, normals, "VERT_NORMALS");
        }
    }
    // Physics collision (§22): the block walk must end inside the lump.
    ok(p, v.each_phys_model(|_| ()));
    Ok(())
}
