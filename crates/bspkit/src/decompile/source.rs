//! Source family (every branch, console maps included): a `.vmf` from the brush lumps.
//!
//! - **Brushes** (source.md §8): each brush's sides are planes; a side's polygon is its plane
//!   clipped by the others, and sides clipped away are the compiler's bevels. Which entity a
//!   brush belongs to comes from the model trees (model head node → leaves → leaf brushes,
//!   §9); brushes no tree reaches (occluders, brushes inside others) go with the brush before,
//!   except occluder brushes (`source_facts.md` §3), which go to their `func_occluder`.
//! - **Materials** from texinfo → texdata → string table (§10); `uaxis`/`vaxis` are the texinfo
//!   `textureVecs` rows as `[axis offset] scale` with `scale = 1/|row|` (so the rows come back
//!   exactly), `lightmapscale` is `1/|lightmapVecs row|`. Sides without texinfo (§10.2) get the
//!   tool material their brush's contents imply.
//! - **Entities the compiler folded into the world come back**: `func_detail` (brushes with
//!   `CONTENTS_DETAIL`), `func_ladder` (`CONTENTS_LADDER`), area portal brushes into the
//!   `func_areaportal` whose `portalnumber` is the portal key of the area portal lying on them,
//!   occluder brushes into the `func_occluder` whose occluder polygons lie on them; static props
//!   (`sprp`, §14.3) as `prop_static` with every field of the lump's version, cubemaps (§17) as
//!   `env_cubemap`, overlays (§18) as `info_overlay` on the brush sides that made their faces,
//!   water overlays (lump 50, `source_facts.md` §1) as `info_overlay_transition` entities each
//!   holding one `overlaydata` block (what vbsp reads them from).
//! - **Displacements** (§15): a `dispinfo` block on the brush side whose face the displacement
//!   was built on, with power, start position, normals, distances, alphas, triangle tags and
//!   allowed vertices as stored (triangle tags in Hammer's bits, [`vmf_tag`]).
//!   Dota 2's records (no layout in §15) come from the branch layer only where the map proves
//!   them ([`View::disp_infos_dota`]).
//! - **Entity pairs** stay in order; outputs (`target,input,parameter,delay,times`, comma or
//!   ESC separated) go to a `connections` block in place, one block per run of outputs.
//!
//! The quality is measured on the written text read back ([`vmf::read`]), like the other
//! families; the extra Source checks (props, cubemaps, displacements, overlays) compare each
//! read-back field with the lump it came from.

use std::collections::HashMap;

use serde::Serialize;
use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

use super::geom::{self, Plane};
use super::mapfile::{MapEntity, MapPrimitive, MapSide, TexProjection};
use super::original::{BrushFrom, Budget, OrigBrush, OrigFace, OrigSide, Original, TexTruth};
use super::quake::{entity_models, model_offset, valve_from_vecs};
use super::recover;
use super::vmf::{self, num, vec3, Block, Item};
use crate::branches::source::records::v3;
use crate::branches::source::view::{AreaPortals, BrushSideInfo, DispInfos, Overlays, View};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::error::{Error, Result};

/// Brush contents (source.md §8.1).
const CONTENTS_PLAYERCLIP: i64 = 0x10000;
const CONTENTS_MONSTERCLIP: i64 = 0x20000;
const CONTENTS_AREAPORTAL: i64 = 0x8000;
const CONTENTS_DETAIL: i64 = 0x800_0000;
const CONTENTS_LADDER: i64 = 0x2000_0000;
const CONTENTS_SOLID: i64 = 0x1;
const CONTENTS_WINDOW: i64 = 0x2;
const CONTENTS_GRATE: i64 = 0x8;
const CONTENTS_WATER: i64 = 0x20;
const CONTENTS_SLIME: i64 = 0x10;

/// Below this area (square units) a side polygon is a bevel.
const BEVEL_AREA: f64 = 0.01;

/// Static prop flags Hammer keys set (`bspfile.h` STATIC_PROP_*): ignore normals, no shadow,
/// screen-space fade, no per-vertex lighting, no self-shadowing, no per-texel lighting. The
/// others (fades, lighting origin used, no draw) vbsp computes from other keys.
const PROP_KEY_FLAGS: [(u32, &str); 6] = [
    (0x8, "ignorenormals"),
    (0x10, "disableshadows"),
    (0x20, "screenspacefade"),
    (0x40, "disablevertexlighting"),
    (0x80, "disableselfshadowing"),
    // 0x100 (no per-texel lighting): the key name is not confirmed against a game's FGD.
    (0x100, "disablepertexellighting"),
];
const PROP_USE_LIGHTING_ORIGIN: u32 = 0x2;

/// What the Source checks read back.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SourceQuality {
    /// Static props in the `sprp` lump, and those whose every field came back equal.
    pub props: usize,
    pub props_same: usize,
    pub cubemaps: usize,
    pub cubemaps_same: usize,
    /// Displacements in the map, written on a brush side, and read back with every stored field equal.
    pub displacements: usize,
    pub displacements_written: usize,
    pub displacements_same: usize,
    pub overlays: usize,
    /// Overlay faces whose brush side was found (the overlay's `sides` key), of all overlay faces.
    pub overlay_faces: usize,
    pub overlay_faces_on_sides: usize,
    /// Overlays read back with their material, U/V range, basis and points equal.
    pub overlays_same: usize,
    /// Water overlays (lump 50), written as `info_overlay_transition` entities each holding one
    /// `overlaydata` block; their faces, those whose brush side was found, and those read back
    /// with every key but `sides` equal (material, U/V range, basis, points).
    pub water_overlays: usize,
    pub water_overlay_faces: usize,
    pub water_overlay_faces_on_sides: usize,
    pub water_overlays_same: usize,
    /// Brushes written into the entities the compiler folded into the world.
    pub func_detail: usize,
    pub func_ladder: usize,
    pub areaportal_brushes_tied: usize,
    pub occluder_brushes_tied: usize,
    /// Brushes whose sides do not close them (written as stored; Hammer cannot edit them).
    pub open_brushes: usize,
    /// Displacements whose brush is not in the brush lump (vbsp leaves displacement brushes
    /// out): a brush is rebuilt from the face, 16 units deep, nodraw except the displacement side.
    pub displacement_brushes_rebuilt: usize,
    /// Sides with no texinfo (§10.2), written with the tool material their contents imply.
    pub sides_without_texinfo: usize,
    /// Sides the brush-side lump names plane 0 for in a brush that does not close (Dota 2),
    /// whose planes were recovered from the brush's leaves in the tree (proven: the leaves fill
    /// the closed brush exactly). Brush fidelity compares against the recovered planes.
    pub recovered_sides: usize,
    /// Of those, sides whose texinfo went by record order (no drawn face on the plane shows it).
    pub recovered_sides_texinfo_by_order: usize,
    /// Sides of tool brushes whose stored tool material contradicts the brush's contents,
    /// written with the tool material the contents imply (see `restored_tool`).
    pub tool_sides_restored: usize,
}

/// A brush side as decompiled, with what the extra checks need.
struct SideOut {
    id: usize,
    /// The side plane and polygon (world space), for matching faces to sides.
    plane: Plane,
    polygon: Vec<[f64; 3]>,
    block: Block,
}

struct Disp {
    start: [f64; 3],
    power: i32,
    vert_start: i64,
    tri_start: i64,
    allowed: [u32; 10],
}

/// Is `(k, v)` an entity output (`target,input,parameter,delay,times`)?
fn is_output(k: &str, v: &str) -> bool {
    if ["classname", "targetname", "origin", "angles", "model", "parentname", "target"].iter().any(|x| k.eq_ignore_ascii_case(x)) {
        return false;
    }
    let sep = if v.contains('\x1b') { '\x1b' } else { ',' };
    // Five parts or none: counted before they are collected (most values are not outputs).
    if v.matches(sep).count() != 4 {
        return false;
    }
    let parts: Vec<&str> = v.split(sep).collect();
    // An input is a name: a numeric list such as "0,1,2,3,4" is a value, not an output.
    parts.len() == 5
        && !parts[0].trim().is_empty()
        && parts[1].trim().parse::<f64>().is_err()
        && !parts[1].trim().is_empty()
        && parts[3].trim().parse::<f64>().is_ok()
        && parts[4].trim().parse::<i64>().is_ok()
}

/// An entity's pairs as block items: outputs go to a `connections` block, one per run.
fn pair_items(pairs: &[(String, String)]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut conn: Option<Block> = None;
    for (k, v) in pairs {
        if is_output(k, v) {
            conn.get_or_insert_with(|| Block::new("connections")).pair(k, v.clone());
        } else {
            if let Some(c) = conn.take() {
                items.push(Item::Block(c));
            }
            items.push(Item::Pair(k.clone(), v.clone()));
        }
    }
    if let Some(c) = conn {
        items.push(Item::Block(c));
    }
    items
}

fn editor(color: &str) -> Block {
    let mut e = Block::new("editor");
    e.pair("color", color).pair("visgroupshown", "1").pair("visgroupautoshown", "1");
    e
}

/// The tool material a side without texinfo had, from its brush's contents.
fn tool_material(contents: i64) -> &'static str {
    let clip = contents & (CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP);
    if clip == CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP {
        "TOOLS/TOOLSCLIP"
    } else if clip == CONTENTS_PLAYERCLIP {
        "TOOLS/TOOLSPLAYERCLIP"
    } else if clip == CONTENTS_MONSTERCLIP {
        "TOOLS/TOOLSNPCCLIP"
    } else if contents & CONTENTS_AREAPORTAL != 0 {
        "TOOLS/TOOLSAREAPORTAL"
    } else if contents & (CONTENTS_SOLID | CONTENTS_WINDOW | CONTENTS_GRATE | CONTENTS_WATER | CONTENTS_SLIME) == 0 {
        "TOOLS/TOOLSSKIP"
    } else {
        "TOOLS/TOOLSNODRAW"
    }
}

/// `SURF_NODRAW` (source.md §10.2).
const SURF_NODRAW: i32 = 0x80;

/// Tool materials and the brush contents each gives (source.md §8.1; the tool materials'
/// `%compile*` keys), compared under [`tool_contents_mask`]. The `toolsclip_*` surface
/// variants give what `toolsclip` gives.
const TOOL_CONTENTS: [(&str, i64); 9] = [
    ("tools/toolsclip", CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP),
    ("tools/toolsplayerclip", CONTENTS_PLAYERCLIP),
    ("tools/toolsnpcclip", CONTENTS_MONSTERCLIP),
    ("tools/toolsblock_los", 0x40),
    ("tools/toolsblocklight", 0x80),
    ("tools/toolsinvisible", CONTENTS_GRATE),
    ("tools/toolsblockbullets", CONTENTS_WINDOW),
    ("tools/toolsinvisibleladder", CONTENTS_LADDER | CONTENTS_GRATE),
    ("tools/toolsnodraw", CONTENTS_SOLID),
];
/// CS:GO's grenade and drone clips (contents 0x80000 and 0x100000 there).
const TOOL_CONTENTS_CSGO: [(&str, i64); 2] = [("tools/toolsgrenadeclip", 0x8_0000), ("tools/toolsdroneclip", 0x10_0000)];
/// Left 4 Dead 2's infected ladder (`tools/climb`: a ladder with contents bit 0x1000).
const TOOL_CONTENTS_L4D2: [(&str, i64); 1] = [("tools/climb", CONTENTS_LADDER | CONTENTS_GRATE | 0x1000)];

/// The contents bits that tell the tool materials of `branch` apart.
fn tool_contents_mask(branch: &str) -> i64 {
    let mut mask =
        CONTENTS_SOLID | CONTENTS_WINDOW | CONTENTS_GRATE | 0x40 | 0x80 | CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP | CONTENTS_LADDER;
    match branch {
        "csgo" => mask |= 0x18_0000,
        "l4d2" => mask |= 0x1000,
        _ => {}
    }
    mask
}

/// The tool materials of `branch` and the contents each gives: the common ones, then the
/// branch's own.
fn tool_table(branch: &str) -> impl Iterator<Item = &'static (&'static str, i64)> {
    let extra: &'static [(&'static str, i64)] = match branch {
        "csgo" => &TOOL_CONTENTS_CSGO,
        "l4d2" => &TOOL_CONTENTS_L4D2,
        _ => &[],
    };
    TOOL_CONTENTS.iter().chain(extra)
}

/// The contents a tool material gives in `branch`, if it is one of the tools above.
fn tool_contents(branch: &str, material: &str) -> Option<i64> {
    let m = material.to_ascii_lowercase();
    let m = if m.starts_with("tools/toolsclip_") { "tools/toolsclip" } else { m.as_str() };
    tool_table(branch).find(|(name, _)| *name == m).map(|(_, c)| *c)
}

/// The tool material to write on a brush whose every side draws nothing (`SURF_NODRAW`) and
/// names one of the tools above, where the stored name contradicts the brush's contents.
/// vbsp gives such sides a texinfo another nodraw tool brush of the same flags and axes
/// already has (BSPSource's tool-texture test maps: `toolsplayerclip` brushes stored as
/// `toolsinvisibleladder` or `toolsclip`, `toolsnpcclip` as `toolsclip`), while the contents
/// are the brush's own. `None`: keep the stored names.
fn restored_tool(branch: &str, contents: i64, stored: &[Option<(String, i32)>]) -> Option<&'static str> {
    let mask = tool_contents_mask(branch);
    let mut contradicts = false;
    for side in stored {
        let (name, flags) = side.as_ref()?;
        let given = tool_contents(branch, name)?;
        if flags & SURF_NODRAW == 0 {
            return None;
        }
        contradicts |= given & mask != contents & mask;
    }
    if !contradicts {
        return None;
    }
    tool_table(branch).find(|(_, c)| c & mask == contents & mask).map(|(name, _)| *name)
}

/// An `f32` field as text: the shortest form that reads back to the same `f32`.
fn numf(v: f32) -> String {
    let mut s = String::new();
    push_numf(&mut s, v);
    s
}

/// [`numf`] appended to `out` (negative zero written as 0).
fn push_numf(out: &mut String, v: f32) {
    super::mapfile::push_float(out, if v == 0.0 { 0.0 } else { v });
}

fn vec3f(v: [f32; 3]) -> String {
    super::mapfile::joined(&v, push_numf)
}

/// A displacement triangle's tags as Hammer writes them: the BSP's walkable (0x2) and buildable
/// (0x4) bits (`DISPTRI_TAG_*`) become the editor's walkable (1) and buildable (8) bits; the
/// others (surface, surface-prop flags) vbsp computes, and a `.vmf` has no place for them.
fn vmf_tag(bsp_tags: u16) -> u16 {
    u16::from(bsp_tags & 0x2 != 0) | if bsp_tags & 0x4 != 0 { 8 } else { 0 }
}

/// A `side` block: three points of `poly` for plane `p`, material, axes, lightmap scale.
fn side_block(sid: usize, p: &Plane, poly: &[[f64; 3]], name: &str, projection: &TexProjection, lmscale: f64) -> Block {
    let pts = geom::three_points(p, poly);
    let mut side = Block::new("side");
    side.pair("id", sid.to_string()).pair("plane", pts.iter().map(|q| format!("({})", vec3(*q))).collect::<Vec<_>>().join(" "));
    side.pair("material", name);
    if let TexProjection::Valve { u, v, scale, .. } = projection {
        side.pair("uaxis", format!("[{} {} {} {}] {}", num(u[0]), num(u[1]), num(u[2]), num(u[3]), num(scale[0])));
        side.pair("vaxis", format!("[{} {} {} {}] {}", num(v[0]), num(v[1]), num(v[2]), num(v[3]), num(scale[1])));
    }
    side.pair("rotation", "0").pair("lightmapscale", num(lmscale)).pair("smoothing_groups", "0");
    side
}

/// `p` inside the convex brush `planes` within `eps`.
fn in_brush(planes: &[Plane], p: [f64; 3], eps: f64) -> bool {
    planes.iter().all(|pl| pl.distance(p) <= eps)
}

fn centroid(poly: &[[f64; 3]]) -> [f64; 3] {
    let n = poly.len().max(1) as f64;
    geom::scale(poly.iter().fold([0.0; 3], |a, p| geom::add(a, *p)), 1.0 / n)
}

fn plane_key(p: &Plane) -> ([i64; 3], i64) {
    (p.normal.map(|c| (c * 1000.0).round() as i64), (p.dist * 2.0).round() as i64)
}

/// Decompile a Source map to `.vmf` text and what to measure it against.
pub(super) fn extract(bsp: &Bsp, budget: &mut Budget) -> Result<SourceOut> {
    match bsp.endian() {
        Endian::Little => with::<LittleEndian>(bsp, budget),
        Endian::Big => with::<BigEndian>(bsp, budget),
    }
}

fn with<O: ByteOrder>(bsp: &Bsp, budget: &mut Budget) -> Result<SourceOut> {
    use crate::branches::source::lumps::*;
    let v = View::<O>::new(bsp)?;
    let planes = v.planes()?;
    let brushes = v.brushes()?;
    let brush_sides = v.brush_sides()?;
    let sides: Vec<_> = brush_sides.iter().collect();
    let (nodes, leaves, leaf_brushes, models) = (v.nodes()?, v.leaves()?, v.leaf_brushes()?, v.models()?);
    let nodes: Vec<_> = nodes.iter().collect();
    let leaves: Vec<_> = leaves.iter().collect();
    let texinfo = v.texinfo()?;
    let faces = v.faces()?;
    let (entities, ent_models) = entity_models(bsp)?;
    let n_map_entities = entities.len();
    let mut notes = Vec::new();

    let plane_of = |i: i64, lump: usize| -> Result<Plane> {
        let p = usize::try_from(i)
            .ok()
            .and_then(|i| planes.get(i))
            .ok_or_else(|| bsp.lump_error(lump, Error::malformed(format!("plane {i} is out of range"))))?;
        let pl = Plane { normal: v3(&p.normal).map(|c| c as f64), dist: p.dist.get() as f64 };
        let ok = pl.normal.iter().all(|c| c.is_finite()) && (geom::length(pl.normal) - 1.0).abs() < 1e-3 && pl.dist.abs() < 1e6;
        ok.then_some(pl)
            .ok_or_else(|| bsp.lump_error(LUMP_PLANES, Error::malformed(format!("plane {i} is not a finite unit-length plane"))))
    };
    let material = |ti: usize| -> Option<String> {
        let t = texinfo.get(ti)?;
        let td = usize::try_from(t.texdata.get()).ok()?;
        v.texdata_name(td).ok().flatten().map(str::to_string)
    };

    // Material, Valve axes, lightmap scale and texinfo rows of texinfo `t` (in range).
    let tex_side = |t: usize, normal: [f64; 3]| -> (String, TexProjection, f64, [[f64; 4]; 2]) {
        let rec = &texinfo[t];
        let rows = rec.texture_vecs.map(|r| r.map(|c| c.get() as f64));
        let name = material(t).unwrap_or_else(|| "TOOLS/TOOLSNODRAW".to_string());
        let lm = rec.lightmap_vecs[0].map(|c| c.get() as f64);
        let l = geom::length([lm[0], lm[1], lm[2]]);
        let lms = if l > 1e-9 && l.is_finite() { geom::snap(1.0 / l, 1e-3) } else { 16.0 };
        (name, valve_from_vecs(rows, normal), lms, rows)
    };

    let (brush_model, unreached) = super::original::brush_models(
        brushes.len(),
        models.iter().map(|m| m.headnode.get() as i64),
        nodes.len(),
        |n| nodes[n].children,
        |l| leaves.get(l).map(|leaf| (leaf.firstleafbrush, leaf.numleafbrushes)),
        |i| leaf_brushes.get(i).map(i64::from),
        budget,
    )?;
    let model_entities = super::original::ModelEntities::new(&ent_models);
    let entity_of_model = |m: usize| model_entities.get(m);

    // Area portals: (portal key, polygon) — the func_areaportal with that portalnumber owns
    // the area portal brush the polygon lies on.
    let mut portal_polys: Vec<(i64, Vec<[f64; 3]>)> = Vec::new();
    if let (Ok(aps), Ok(cpv)) = (v.area_portals(), v.clip_portal_verts()) {
        let n = aps.len();
        for i in 0..n {
            budget.spend(1)?;
            let (key, first, count) = match &aps {
                AreaPortals::Standard(p) => {
                    let p = &p[i];
                    (p.portal_key.get() as i64, p.first_clip_portal_vert.get() as usize, p.num_clip_portal_verts.get() as usize)
                }
                AreaPortals::Wide(p) => {
                    let p = &p[i];
                    (p.portal_key.get() as i64, p.first_clip_portal_vert.get() as usize, p.num_clip_portal_verts.get() as usize)
                }
            };
            // Record 0 is vbsp's empty placeholder ("leave 0 as an error", portals.cpp
            // `EmitAreaPortals`): a polygon of no points would lie on every brush.
            if let Some(vs) = first.checked_add(count).and_then(|e| cpv.get(first..e)).filter(|vs| vs.len() >= 3) {
                portal_polys.push((key, vs.iter().map(|p| v3(&p.pos).map(|c| c as f64)).collect()));
            }
        }
    }
    // Occluders: (occluder index, polygons).
    let mut occluder_polys: Vec<(usize, Vec<[f64; 3]>)> = Vec::new();
    if let (Ok(occ), Ok(verts)) = (v.occlusion(), v.vertices()) {
        for i in 0..occ.occluder_count() {
            let Some((fp, pc)) = occ.occluder_polys(i) else { continue };
            for pi in fp.max(0)..fp.max(0).saturating_add(pc.max(0)) {
                budget.spend(1)?;
                let Some(poly) = usize::try_from(pi).ok().and_then(|p| occ.polys.get(p)) else { break };
                let (f, n) = (poly.firstvertexindex.get() as i64, poly.vertexcount.get() as i64);
                let pts: Option<Vec<[f64; 3]>> = (f.max(0)..f.max(0).saturating_add(n.max(0)).min(f.max(0) + 1024))
                    .map(|k| {
                        let vi = occ.vertex_indices.get(k as usize)?.edge.get();
                        verts.get(usize::try_from(vi).ok()?).map(|p| v3(&p.pos).map(|c| c as f64))
                    })
                    .collect();
                if let Some(pts) = pts.filter(|p| p.len() >= 3) {
                    occluder_polys.push((i, pts));
                }
            }
        }
    }
    let find_entity = |key: &str, value: i64| {
        entities
            .iter()
            .position(|e| e.pairs.iter().any(|(k, v)| k.eq_ignore_ascii_case(key) && v.trim().parse::<i64>().ok() == Some(value)))
    };

    // A drawn face's polygon (model space), front plane, texinfo and dispinfo.
    let (vertices, edges, surfedges) = (v.vertices()?, v.edges()?, v.surfedges()?);
    let face_polygon = |fi: usize| -> Option<(Plane, Vec<[f64; 3]>, i64, i64)> {
        let f = faces.get(fi)?;
        let n = usize::try_from(f.numedges).ok()?;
        let first = usize::try_from(f.firstedge).ok()?;
        let mut pts = Vec::with_capacity(n.min(256));
        for si in first..first.checked_add(n)? {
            let se = surfedges.get(si)?.edge.get() as i64;
            let e = edges.get(se.unsigned_abs() as usize)?;
            let vi = if se < 0 { e[1] } else { e[0] } as usize;
            pts.push(v3(&vertices.get(vi)?.pos).map(|c| c as f64));
        }
        let p = planes.get(usize::try_from(f.planenum).ok()?)?;
        let mut plane = Plane { normal: v3(&p.normal).map(|c| c as f64), dist: p.dist.get() as f64 };
        // Loops are clockwise seen from the front (§7.5): the front is against their winding.
        // (The `side` byte does not say it: on the corpus maps it disagrees with the winding
        // on half the faces, and the winding is what the brush sides cover.)
        let mut acc = [0.0; 3];
        for i in 1..pts.len().saturating_sub(1) {
            acc = geom::add(acc, geom::cross(geom::sub(pts[i], pts[0]), geom::sub(pts[i + 1], pts[0])));
        }
        if geom::dot(acc, plane.normal) > 0.0 {
            plane = plane.flipped();
        }
        Some((plane, pts, f.texinfo, f.dispinfo))
    };
    // Sides the lump does not hold: Dota 2's brush sides name plane 0 with only a texinfo for
    // some sides (every brush lacks its +x and -z sides), so those brushes do not close. Such a
    // brush's missing planes are recovered from its leaves in the tree (see `recover`), and
    // each plane-0 record's texinfo goes to the recovered plane whose drawn faces carry it.
    let raw_planes = |range: &[BrushSideInfo], skip_zero: bool| -> Result<Vec<Plane>> {
        range.iter().filter(|s| !(skip_zero && s.planenum == 0)).map(|s| plane_of(s.planenum, LUMP_BRUSH_SIDES)).collect()
    };
    let mut wanted = vec![false; brushes.len()];
    for (bi, brush) in brushes.iter().enumerate() {
        let Ok(range) = super::original::side_range(&sides, bi, brush.firstside.get() as i64, brush.numsides.get() as i64) else {
            continue;
        };
        if range.iter().any(|s| s.planenum == 0) {
            let all = raw_planes(range, false)?;
            budget.spend((all.len() * all.len()) as u64)?;
            wanted[bi] = !recover::closes(&all);
        }
    }
    // Per brush: (position in its side range, recovered plane, texinfo shown by a drawn face).
    let mut recovered: HashMap<usize, Vec<(usize, Plane, bool)>> = HashMap::new();
    if wanted.iter().any(|w| *w) {
        let heads: Vec<_> =
            models.iter().map(|m| (m.headnode.get() as i64, v3(&m.mins).map(|c| c as f64), v3(&m.maxs).map(|c| c as f64))).collect();
        let node = |n: usize| {
            let nd = nodes.get(n)?;
            let p = planes.get(usize::try_from(nd.planenum).ok()?)?;
            Some((Plane { normal: v3(&p.normal).map(|c| c as f64), dist: p.dist.get() as f64 }, nd.children))
        };
        let limit = 200 * (nodes.len() as u64 + 64);
        let regions = recover::brush_regions(
            &heads,
            node,
            |l| leaves.get(l).map(|leaf| (leaf.firstleafbrush, leaf.numleafbrushes)),
            |i| leaf_brushes.get(i).map(i64::from),
            &wanted,
            limit,
        );
        budget.spend(limit / 16)?;
        // Drawn faces (model space): front plane, centroid, texinfo.
        let drawn: Vec<(Plane, [f64; 3], i64)> =
            (0..faces.len()).filter_map(&face_polygon).map(|(p, pts, t, _)| (p, centroid(&pts), t)).collect();
        for (bi, brush) in brushes.iter().enumerate().filter(|(bi, _)| wanted[*bi]) {
            let range = super::original::side_range(&sides, bi, brush.firstside.get() as i64, brush.numsides.get() as i64)
                .map_err(|e| bsp.lump_error(LUMP_BRUSHES, e))?;
            let known = raw_planes(range, true)?;
            let records: Vec<usize> = (0..range.len()).filter(|&i| range[i].planenum == 0).collect();
            let Some(found) = recover::missing_planes(&known, &regions[bi]) else {
                notes.push(format!("brush {bi}: sides naming plane 0 not recovered (its leaves do not prove them)"));
                continue;
            };
            if found.len() != records.len() {
                notes.push(format!(
                    "brush {bi}: {} planes recovered from its leaves for {} sides naming plane 0; kept as stored",
                    found.len(),
                    records.len()
                ));
                continue;
            }
            budget.spend((drawn.len() * found.len()) as u64)?;
            let all: Vec<Plane> = known.iter().chain(&found).copied().collect();
            let mut free = records.clone();
            let mut out = Vec::new();
            let mut left = Vec::new();
            for p in &found {
                let shown = drawn
                    .iter()
                    .filter(|(fp, c, _)| fp.same_as(p, 1e-3, 0.1) && in_brush(&all, *c, 0.5))
                    .find_map(|(_, _, t)| free.iter().position(|&r| range[r].texinfo == *t));
                match shown {
                    Some(k) => out.push((free.remove(k), *p, true)),
                    None => left.push(*p),
                }
            }
            // Planes no drawn face names (nodraw sides): the remaining records in order.
            for (r, p) in free.into_iter().zip(left) {
                out.push((r, p, false));
            }
            for (r, p, shown) in &out {
                let evidence = if *shown { "its drawn faces carry the record's texinfo" } else { "no drawn face; texinfo by record order" };
                notes.push(format!(
                    "brush {bi}: side {r} (plane 0 in the lump) recovered from the tree as ({:.4} {:.4} {:.4}) {:.3}; {evidence}",
                    p.normal[0], p.normal[1], p.normal[2], p.dist
                ));
            }
            recovered.insert(bi, out);
        }
    }

    // Brushes.
    let mut sq = SourceQuality::default();
    let mut orig = Original::default();
    let mut next_id = 2usize;
    let mut id = || {
        next_id += 1;
        next_id - 1
    };
    // Per output entity: its solids (blocks) and the sides written, for face matching.
    let mut solids: Vec<Vec<Block>> = vec![Vec::new(); entities.len()];
    let mut added: Vec<(Vec<(String, String)>, usize)> = Vec::new(); // (pairs, group)
                                                                     // Side records for face → side lookups, by (entity group, plane key).
    let mut side_index: SideIndex = HashMap::new();
    let mut side_out: Vec<SideOut> = Vec::new();
    // Per written side: (solid owner index into `solids` or added, solid index, side position).
    let mut side_place: Vec<(usize, usize, usize)> = Vec::new();
    let mut disp_sides: Vec<(usize, usize)> = Vec::new(); // (side_out index, dispinfo)
    let mut disp_blocks: HashMap<usize, Block> = HashMap::new(); // side_out index → dispinfo block
    let mut scratch = Vec::new();
    for (bi, brush) in brushes.iter().enumerate() {
        let m = brush_model[bi];
        let contents = brush.contents.get() as i64;
        let Some(mut ei) = entity_of_model(m) else {
            notes.push(format!("brush {bi}: model {m} has no entity; left out"));
            continue;
        };
        let (first, count) = (brush.firstside.get() as i64, brush.numsides.get() as i64);
        let range = super::original::side_range(&sides, bi, first, count).map_err(|e| bsp.lump_error(LUMP_BRUSHES, e))?;
        let mut raw = raw_planes(range, false)?;
        // vbsp keeps a func_occluder's brushes in the brush lump, in world space, but builds no
        // model for them (vbsp.cpp `EmitOccluderBrushes`; source.md §21): no tree reaches them,
        // and the brush before may be any entity's. Its occluder polygons lie on it.
        let mut occluder_tied = false;
        if unreached[bi] && !occluder_polys.is_empty() {
            let on_brush = |pts: &[[f64; 3]]| pts.iter().all(|p| in_brush(&raw, *p, 0.5));
            if let Some(e) = occluder_polys.iter().filter(|(_, p)| on_brush(p)).find_map(|(k, _)| find_entity("occludernumber", *k as i64))
            {
                ei = e;
                occluder_tied = true;
                sq.occluder_brushes_tied += 1;
            }
        }
        let off = if occluder_tied { [0.0; 3] } else { model_offset(&entities[ei], m) };
        for (r, p, shown) in recovered.get(&bi).into_iter().flatten() {
            raw[*r] = *p;
            sq.recovered_sides += 1;
            sq.recovered_sides_texinfo_by_order += usize::from(!shown);
        }
        let bplanes: Vec<Plane> = raw.iter().map(|p| Plane { normal: p.normal, dist: p.dist + geom::dot(p.normal, off) }).collect();
        budget.spend((bplanes.len() * bplanes.len()) as u64)?;
        let polys: Vec<Vec<[f64; 3]>> = (0..bplanes.len())
            .map(|i| {
                let mut steps = u64::MAX;
                let w = geom::side_polygon(&bplanes, i, &mut scratch, &mut steps);
                if geom::area(&w) < BEVEL_AREA {
                    Vec::new()
                } else {
                    w
                }
            })
            .collect();
        let kept = polys.iter().filter(|p| !p.is_empty()).count();
        // Sides reaching the clipping square's edge: the brush is not closed.
        if polys.iter().flatten().flatten().any(|c| c.abs() > 200_000.0) {
            sq.open_brushes += 1;
            notes.push(format!("brush {bi}: its sides do not close it (open towards the map's edge)"));
        }
        orig.bevels += range.len() - kept;
        if kept < 4 {
            notes.push(format!("brush {bi}: only {kept} sides bound a volume; left out"));
            orig.skipped_brushes += 1;
            continue;
        }

        // Where the brush goes: an entity the compiler folded into the world, or its model's.
        let mut new_entity: Option<&str> = None;
        if m == 0 && !occluder_tied {
            let inside = |pts: &[[f64; 3]]| pts.iter().all(|p| in_brush(&bplanes, *p, 0.5));
            if contents & CONTENTS_AREAPORTAL != 0 {
                match portal_polys.iter().filter(|(_, p)| inside(p)).find_map(|(k, _)| find_entity("portalnumber", *k)) {
                    Some(e) => {
                        ei = e;
                        sq.areaportal_brushes_tied += 1;
                    }
                    None => notes.push(format!("brush {bi}: area portal brush with no func_areaportal found; kept in the world")),
                }
            }
            // A ladder material gives its brush CONTENTS_LADDER itself; other ladder brushes were
            // a func_ladder (Counter-Strike), which vbsp folds into the world.
            let ladder_material = range
                .iter()
                .any(|s| usize::try_from(s.texinfo).ok().and_then(material).is_some_and(|m| m.to_ascii_lowercase().contains("ladder")));
            if ei == 0 {
                if contents & CONTENTS_LADDER != 0 && !ladder_material {
                    new_entity = Some("func_ladder");
                    sq.func_ladder += 1;
                } else if contents & CONTENTS_DETAIL != 0 {
                    new_entity = Some("func_detail");
                    sq.func_detail += 1;
                }
            }
        }
        let owner = match new_entity {
            Some(class) => {
                added.push((vec![("classname".to_string(), class.to_string())], 0));
                solids.push(Vec::new());
                entities.len() + added.len() - 1
            }
            None => ei,
        };
        let group = if new_entity.is_some() { 0 } else { ei };

        // A tool brush whose stored tool material its contents contradict (`restored_tool`).
        // Only a brush whose every kept side draws nothing can be one: the names are looked up
        // (and copied) for those alone.
        let kept_texinfo = || {
            range
                .iter()
                .zip(&polys)
                .filter(|(_, poly)| !poly.is_empty())
                .map(|(s, _)| usize::try_from(s.texinfo).ok().filter(|&t| t < texinfo.len()))
        };
        let all_nodraw = kept_texinfo().all(|t| t.is_some_and(|t| texinfo[t].flags.get() & SURF_NODRAW != 0));
        let stored: Vec<Option<(String, i32)>> = if all_nodraw {
            kept_texinfo().map(|t| t.and_then(|t| Some((material(t)?, texinfo[t].flags.get())))).collect()
        } else {
            Vec::new()
        };
        let restored = if all_nodraw { restored_tool(bsp.branch().id, contents, &stored) } else { None };
        if let Some(tool) = restored {
            let names: std::collections::BTreeSet<&str> = stored.iter().flatten().map(|(n, _)| n.as_str()).collect();
            let names: Vec<&str> = names.into_iter().collect();
            notes.push(format!(
                "brush {bi}: nodraw sides stored as {} written as {tool}, the tool its contents {contents:#x} give",
                names.join(", ")
            ));
        }

        let mut solid = Block::new("solid");
        solid.pair("id", id().to_string());
        let mut orig_sides = Vec::new();
        for ((s, p), poly) in range.iter().zip(&bplanes).zip(&polys) {
            if poly.is_empty() {
                continue;
            }
            let ti = usize::try_from(s.texinfo).ok().filter(|&t| t < texinfo.len());
            let (name, projection, lmscale, truth) = match ti {
                Some(t) => {
                    let (mut name, projection, lms, rows) = tex_side(t, p.normal);
                    if let Some(tool) = restored {
                        name = tool.to_string();
                        sq.tool_sides_restored += 1;
                    }
                    (name.clone(), projection, lms, TexTruth::Axes { name, rows })
                }
                None => {
                    sq.sides_without_texinfo += 1;
                    let name = tool_material(contents).to_string();
                    (name.clone(), valve_from_vecs([[0.0; 4]; 2], p.normal), 16.0, TexTruth::Name(name))
                }
            };
            let sid = id();
            let side = side_block(sid, p, poly, &name, &projection, lmscale);
            let k = plane_key(p);
            side_index.entry((group, k.0, k.1)).or_default().push(side_out.len());
            side_place.push((owner, solids[owner].len(), orig_sides.len()));
            side_out.push(SideOut { id: sid, plane: *p, polygon: poly.clone(), block: side });
            orig_sides.push(OrigSide { plane: *p, truth });
        }
        let (owner_index, index) = (owner, solids[owner].len());
        solids[owner].push(solid);
        orig.brushes.push(OrigBrush {
            source: bi,
            from: BrushFrom::Lump,
            bevels: range.len() - kept,
            entity: owner_index,
            index,
            sides: orig_sides,
            contents: Some(contents & CONTENTS_DETAIL),
        });
    }

    // Drawn faces, for coverage and for finding the sides displacements and overlays are on.
    let mut face_group: HashMap<usize, usize> = HashMap::new();
    for (m, model) in models.iter().enumerate() {
        let Some(ei) = entity_of_model(m) else { continue };
        let off = model_offset(&entities[ei], m);
        let (first, count) = (model.firstface.get() as i64, model.numfaces.get() as i64);
        for fi in first.max(0)..first.max(0).saturating_add(count.max(0)) {
            budget.spend(1)?;
            let Some((plane, pts, ti, _)) = usize::try_from(fi).ok().and_then(&face_polygon) else { continue };
            face_group.entry(fi as usize).or_insert(ei);
            let polygon: Vec<[f64; 3]> = pts.iter().map(|p| geom::add(*p, off)).collect();
            if polygon.len() < 3 || !polygon.iter().flatten().all(|c| c.abs() < 1e6) {
                continue;
            }
            let texture = usize::try_from(ti).ok().and_then(material).unwrap_or_default();
            let plane = Plane { normal: plane.normal, dist: plane.dist + geom::dot(plane.normal, off) };
            orig.faces.push(OrigFace { entity: ei, texture, plane, polygons: vec![polygon] });
        }
    }

    // Displacements: on the side whose polygon holds their face.
    let disp_infos = v.disp_infos();
    // Dota 2's records come from the branch layer only when the map proves each one.
    match &disp_infos {
        Ok(d @ (DispInfos::DotaV22(_) | DispInfos::DotaV23(_))) if !d.is_empty() => {
            notes.push(format!("displacements: {} Dota 2 dispinfo records read, each proven by its face (MapFace names a face whose dispinfo names it back, the start position is a corner of that face, the vertex and triangle counts fit its power)", d.len()));
        }
        Ok(DispInfos::Unproven(e)) => notes.push(format!("displacements: Dota 2 dispinfo not proven by the map ({e}); left out")),
        _ => {}
    }
    let disps: Vec<Disp> = match disp_infos {
        Ok(DispInfos::Unproven(_)) => Vec::new(),
        Ok(DispInfos::Unknown) => {
            if bsp.entry(LUMP_DISP_INFO).is_some_and(|e| e.length > 0) {
                notes.push("displacements: this branch's dispinfo layout is unknown; left out".into());
            }
            Vec::new()
        }
        Ok(d) => d
            .iter()
            .map(|d| Disp {
                start: d.start_position.map(|c| c as f64),
                power: d.power,
                vert_start: d.disp_vert_start,
                tri_start: d.disp_tri_start,
                allowed: d.allowed_verts,
            })
            .collect(),
        Err(e) => {
            notes.push(format!("displacements unreadable: {e}"));
            Vec::new()
        }
    };
    sq.displacements = disps.len();
    let (dverts, dtris) = (v.disp_verts().unwrap_or(&[]), v.disp_tris().unwrap_or(&[]));
    // Dota 2's blend weights, one record per displacement vertex (lump 63).
    let multiblend = v.disp_multiblend().ok().flatten();
    // The face a displacement was built on is in the faces lump as a displacement face; its
    // base quad is the brush side's polygon (or a part of it).
    let mut face_of_disp: HashMap<i64, usize> = HashMap::new();
    for (fi, f) in faces.iter().enumerate() {
        if f.dispinfo >= 0 {
            face_of_disp.entry(f.dispinfo).or_insert(fi);
        }
    }
    for (di, d) in disps.iter().enumerate() {
        budget.spend(64)?;
        let face = face_of_disp.get(&(di as i64)).and_then(|&fi| face_polygon(fi));
        let Some((plane, pts, fti, _)) = face.filter(|f| f.1.len() == 4) else {
            notes.push(format!("displacement {di}: no four-sided face is built from it; left out"));
            continue;
        };
        let (Some(nv), Some(nt)) =
            (crate::branches::source::records::disp_vert_count(d.power), crate::branches::source::records::disp_tri_count(d.power))
        else {
            notes.push(format!("displacement {di}: power {} out of range; left out", d.power));
            continue;
        };
        let verts = usize::try_from(d.vert_start).ok().and_then(|s| dverts.get(s..s.checked_add(nv)?));
        let tris = usize::try_from(d.tri_start).ok().and_then(|s| dtris.get(s..s.checked_add(nt)?));
        let (Some(verts), Some(tris)) = (verts, tris) else {
            notes.push(format!("displacement {di}: vertices or triangles out of range; left out"));
            continue;
        };
        // vbsp leaves displacement brushes out of the brush lump: the brush is rebuilt from the
        // face (its base quad), 16 units deep, the other sides nodraw.
        let c = centroid(&pts);
        let mut bplanes = vec![plane, Plane { normal: geom::scale(plane.normal, -1.0), dist: -(plane.dist - 16.0) }];
        for k in 0..pts.len() {
            let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
            let Some(mut en) = geom::normalize(geom::cross(geom::sub(b, a), plane.normal)) else { continue };
            if geom::dot(en, geom::sub(c, a)) > 0.0 {
                en = geom::scale(en, -1.0);
            }
            bplanes.push(Plane { normal: en, dist: geom::dot(en, a) });
        }
        let mut solid = Block::new("solid");
        solid.pair("id", id().to_string());
        let solid_index = solids[0].len();
        let (sides_before, places_before) = (side_out.len(), side_place.len());
        let mut si = None;
        for (k, p) in bplanes.iter().enumerate() {
            let mut steps = u64::MAX;
            let poly = geom::side_polygon(&bplanes, k, &mut scratch, &mut steps);
            if geom::area(&poly) < BEVEL_AREA {
                continue;
            }
            let (name, projection, lms) = match usize::try_from(fti).ok().filter(|&t| k == 0 && t < texinfo.len()) {
                Some(t) => {
                    let (n, pr, l, _) = tex_side(t, p.normal);
                    (n, pr, l)
                }
                None => ("TOOLS/TOOLSNODRAW".to_string(), valve_from_vecs([[0.0; 4]; 2], p.normal), 16.0),
            };
            let sid = id();
            let block = side_block(sid, p, &poly, &name, &projection, lms);
            if k == 0 {
                si = Some(side_out.len());
                let key = plane_key(p);
                side_index.entry((0, key.0, key.1)).or_default().push(side_out.len());
            }
            side_place.push((0, solid_index, k));
            side_out.push(SideOut { id: sid, plane: *p, polygon: poly, block });
        }
        let Some(si) = si else {
            side_out.truncate(sides_before);
            side_place.truncate(places_before);
            notes.push(format!("displacement {di}: its face has no area; left out"));
            continue;
        };
        solids[0].push(solid);
        orig.rebuilt_brushes.push((0, solid_index, di));
        sq.displacement_brushes_rebuilt += 1;
        let side_normal = plane.normal;
        let n = (1usize << d.power) + 1;
        let rows = |f: &dyn Fn(usize) -> String, per_row: usize, nrows: usize| {
            let mut b = Block::new("");
            for r in 0..nrows {
                b.pair(&format!("row{r}"), (0..per_row).map(|c| f(r * per_row + c)).collect::<Vec<_>>().join(" "));
            }
            b
        };
        let named = |mut b: Block, name: &str| {
            b.name = name.to_string();
            b
        };
        let mut block = Block::new("dispinfo");
        block
            .pair("power", d.power.to_string())
            .pair("startposition", format!("[{}]", vec3f(d.start.map(|c| c as f32))))
            .pair("flags", "0")
            .pair("elevation", "0")
            .pair("subdiv", "0");
        block.block(named(rows(&|i| vec3f(v3(&verts[i].vec)), n, n), "normals"));
        block.block(named(rows(&|i| numf(verts[i].dist.get()), n, n), "distances"));
        block.block(named(rows(&|_| "0 0 0".to_string(), n, n), "offsets"));
        block.block(named(rows(&|_| vec3(side_normal), n, n), "offset_normals"));
        block.block(named(rows(&|i| numf(verts[i].alpha.get()), n, n), "alphas"));
        block.block(named(rows(&|i| vmf_tag(tris[i].tags.get()).to_string(), 2 * (n - 1), n - 1), "triangle_tags"));
        let mut allowed = Block::new("allowed_verts");
        allowed.pair("10", d.allowed.iter().map(|a| (*a as i32).to_string()).collect::<Vec<_>>().join(" "));
        block.block(allowed);
        // Hammer's blocks for Dota 2's blend weights, in the order its `.vmf` has them.
        if let Some(mb) = multiblend.and_then(|m| usize::try_from(d.vert_start).ok().and_then(|s| m.get(s..s.checked_add(n * n)?))) {
            let four = |f: &[zerocopy::byteorder::F32<O>; 4]| super::mapfile::joined(&f.map(|x| x.get()), push_numf);
            block.block(named(rows(&|i| four(&mb[i].multiblend), n, n), "multiblend"));
            block.block(named(rows(&|i| four(&mb[i].alpha_blend), n, n), "alphablend"));
            for c in 0..4 {
                block.block(named(rows(&|i| vec3f(v3(&mb[i].colors[c])), n, n), &format!("multiblend_color_{c}")));
            }
        }
        disp_blocks.insert(si, block);
        disp_sides.push((si, di));
    }
    sq.displacements_written = disp_sides.len();

    // Static props.
    let props = match crate::lumps::gamelump::GameLumps::of(bsp).and_then(|g| g.static_props()) {
        Ok(Some(sp)) => match sp.props() {
            Ok(p) => p,
            Err(e) => {
                notes.push(format!("static props left out (sprp v{}): {e}", sp.version));
                Vec::new()
            }
        },
        Ok(None) => Vec::new(),
        Err(e) => {
            notes.push(format!("static props unreadable: {e}"));
            Vec::new()
        }
    };
    sq.props = props.len();
    for (i, p) in props.iter().enumerate() {
        budget.spend(1)?;
        let f = numf;
        let v3s = vec3f;
        let mut pairs: Vec<(String, String)> = vec![
            ("classname".into(), "prop_static".into()),
            ("origin".into(), v3s(p.origin)),
            ("angles".into(), v3s(p.angles)),
            ("model".into(), p.model_name.clone().unwrap_or_default()),
            ("skin".into(), p.skin.to_string()),
            ("solid".into(), p.solid.to_string()),
            ("fademindist".into(), f(p.fade_min)),
            ("fademaxdist".into(), f(p.fade_max)),
        ];
        for (bit, key) in PROP_KEY_FLAGS {
            pairs.push((key.into(), u8::from(p.flags & bit != 0).to_string()));
        }
        if let Some(s) = p.forced_fade_scale {
            pairs.push(("fadescale".into(), f(s)));
        }
        if let Some([a, b]) = p.dx_level {
            pairs.push(("mindxlevel".into(), a.to_string()));
            pairs.push(("maxdxlevel".into(), b.to_string()));
        }
        if let Some(l) = p.cpu_gpu_levels {
            for (k, v) in ["mincpulevel", "maxcpulevel", "mingpulevel", "maxgpulevel"].iter().zip(l) {
                pairs.push((k.to_string(), v.to_string()));
            }
        }
        if let Some(c) = p.diffuse_modulation {
            pairs.push(("rendercolor".into(), format!("{} {} {}", c[0], c[1], c[2])));
            pairs.push(("renderamt".into(), c[3].to_string()));
        }
        if let Some([x, y]) = p.lightmap_res {
            pairs.push(("lightmapresolutionx".into(), x.to_string()));
            pairs.push(("lightmapresolutiony".into(), y.to_string()));
        }
        if let Some(x) = p.disable_x360 {
            pairs.push(("disableX360".into(), x.to_string()));
        }
        if let Some(x) = p.flags_ex {
            // Its bits' Hammer keys differ between games: kept as the number.
            pairs.push(("flagsex".into(), x.to_string()));
        }
        if let Some(s) = p.uniform_scale {
            pairs.push(("uniformscale".into(), f(s)));
        }
        if let Some(s) = p.scale {
            pairs.push(("modelscale".into(), v3s(s)));
        }
        if p.flags & PROP_USE_LIGHTING_ORIGIN != 0 {
            let name = format!("bspkit_lighting_{i}");
            pairs.push(("lightingorigin".into(), name.clone()));
            added.push((pairs, usize::MAX));
            added.push((
                vec![("classname".into(), "info_lighting".into()), ("targetname".into(), name), ("origin".into(), v3s(p.lighting_origin))],
                usize::MAX,
            ));
        } else {
            added.push((pairs, usize::MAX));
        }
    }

    // Cubemaps.
    let cubemaps = v.cubemaps().unwrap_or(&[]);
    sq.cubemaps = cubemaps.len();
    for c in cubemaps {
        added.push((
            vec![
                ("classname".into(), "env_cubemap".into()),
                ("origin".into(), c.origin.iter().map(|x| x.get().to_string()).collect::<Vec<_>>().join(" ")),
                ("cubemapsize".into(), c.size.get().to_string()),
            ],
            usize::MAX,
        ));
    }

    // Overlays. The faces an overlay lies on go back to the ids of the written sides that made
    // them (`sides`): (faces named, faces whose side was found, the side ids).
    let overlay_sides = |face_ids: &mut dyn Iterator<Item = i64>| -> (usize, usize, String) {
        let (mut seen, mut on_sides, mut side_ids) = (0, 0, Vec::new());
        for fi in face_ids {
            seen += 1;
            let Some((plane, pts, _, _)) = usize::try_from(fi).ok().and_then(&face_polygon) else { continue };
            let g = usize::try_from(fi).ok().and_then(|f| face_group.get(&f).copied()).unwrap_or(0);
            if let Some(si) = find_side(&side_index, &side_out, g, &plane, &pts) {
                on_sides += 1;
                if !side_ids.contains(&side_out[si].id) {
                    side_ids.push(side_out[si].id);
                }
            }
        }
        (seen, on_sides, side_ids.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" "))
    };
    let fades = v.overlay_fades().unwrap_or(&[]);
    let overlays = v.overlays();
    let mut overlay_truth: Vec<Vec<(String, String)>> = Vec::new();
    if let Ok(ov) = &overlays {
        if matches!(ov, Overlays::Unknown) && bsp.entry(LUMP_OVERLAYS).is_some_and(|e| e.length > 0) {
            notes.push("overlays: this branch's overlay layout is unknown; left out".into());
        }
        for i in 0..ov.len() {
            budget.spend(64)?;
            let Some((ti, mut face_ids)) = ov.get(i) else { continue };
            let (u, vv, uvp, origin, normal, order) = match ov {
                Overlays::Standard(o) => {
                    let o = &o[i];
                    (
                        o.u.map(|x| x.get()),
                        o.v.map(|x| x.get()),
                        o.uv_points.map(|p| v3(&p)),
                        v3(&o.origin),
                        v3(&o.basis_normal),
                        o.render_order(),
                    )
                }
                Overlays::Strata(o) => {
                    let o = &o[i];
                    let order = o.face_count_and_render_order.get() >> 14;
                    (o.u.map(|x| x.get()), o.v.map(|x| x.get()), o.uv_points.map(|p| v3(&p)), v3(&o.origin), v3(&o.basis_normal), order)
                }
                Overlays::Vindictus(o) => {
                    let o = &o[i];
                    // The render order in the top 2 bits of its 32-bit count (bsp_tool vindictus69.py).
                    let order = (o.face_count_and_render_order.get() >> 30) as u16;
                    (o.u.map(|x| x.get()), o.v.map(|x| x.get()), o.uv_points.map(|p| v3(&p)), v3(&o.origin), v3(&o.basis_normal), order)
                }
                Overlays::Unknown => continue,
            };
            let (faces_seen, on_sides, side_ids) = overlay_sides(&mut face_ids);
            sq.overlay_faces += faces_seen;
            sq.overlay_faces_on_sides += on_sides;
            let mut pairs: Vec<(String, String)> = vec![
                ("classname".into(), "info_overlay".into()),
                ("origin".into(), vec3f(origin)),
                ("material".into(), usize::try_from(ti).ok().and_then(material).unwrap_or_default()),
                ("sides".into(), side_ids),
                ("RenderOrder".into(), order.to_string()),
            ];
            pairs.extend(overlay_shape_keys(u, vv, uvp, origin, normal));
            if let Some(f) = fades.get(i) {
                pairs.push(("fademindist".into(), num(f.min_dist.get() as f64)));
                pairs.push(("fademaxdist".into(), num(f.max_dist.get() as f64)));
            }
            overlay_truth.push(pairs.iter().filter(|(k, _)| k != "sides").cloned().collect());
            added.push((pairs, usize::MAX));
        }
    }
    sq.overlays = overlay_truth.len();

    // Water overlays (lump 50, source_facts.md §1): vbsp reads them from `overlaydata` blocks
    // in an entity's `overlaytransition` block (Hammer saves them in `info_overlay_transition`,
    // whose own keys vbsp drops), with the info_overlay keys but no render order or fades.
    // Each comes back as one such entity with one `overlaydata` block.
    let mut water_truth: Vec<Vec<(String, String)>> = Vec::new();
    let mut added_blocks: HashMap<usize, Block> = HashMap::new(); // index into `added` → block
    match v.water_overlays() {
        Ok(Some(wo)) => {
            for o in wo {
                budget.spend(256)?;
                let n = o.face_count().min(o.faces.len());
                let (faces_seen, on_sides, side_ids) = overlay_sides(&mut o.faces[..n].iter().map(|f| f.get() as i64));
                sq.water_overlay_faces += faces_seen;
                sq.water_overlay_faces_on_sides += on_sides;
                let origin = v3(&o.origin);
                let mut keys: Vec<(String, String)> = vec![
                    ("material".into(), usize::try_from(o.texinfo.get()).ok().and_then(material).unwrap_or_default()),
                    ("sides".into(), side_ids),
                ];
                let uvp = o.uv_points.map(|p| v3(&p));
                keys.extend(overlay_shape_keys(o.u.map(|x| x.get()), o.v.map(|x| x.get()), uvp, origin, v3(&o.basis_normal)));
                let mut data = Block::new("overlaydata");
                for (k, val) in &keys {
                    data.pair(k, val.clone());
                }
                let mut transition = Block::new("overlaytransition");
                transition.block(data);
                water_truth.push(keys.into_iter().filter(|(k, _)| k != "sides").collect());
                added_blocks.insert(added.len(), transition);
                added.push((vec![("classname".into(), "info_overlay_transition".into()), ("origin".into(), vec3f(origin))], usize::MAX));
            }
        }
        Ok(None) => {
            if let Some(w) = v.water_overlays_raw().ok().filter(|w| !w.is_empty()) {
                notes.push(format!("water overlays (lump 50, {} bytes): this branch's layout is unknown; left out", w.len()));
            }
        }
        Err(e) => notes.push(format!("water overlays (lump 50) not read: {e}; left out")),
    }
    sq.water_overlays = water_truth.len();

    // Put the sides into their solids.
    for (si, (owner, solid, _)) in side_place.iter().enumerate() {
        let mut b = std::mem::take(&mut side_out[si].block);
        if let Some(d) = disp_blocks.remove(&si) {
            b.block(d);
        }
        solids[*owner][*solid].items.push(Item::Block(b));
    }
    for list in solids.iter_mut() {
        for s in list.iter_mut() {
            s.block(editor("0 180 220"));
        }
    }

    // The document.
    let world_pairs = entities.first().map(|e| e.pairs.clone()).unwrap_or_default();
    let mapversion = world_pairs.iter().find(|(k, _)| k == "mapversion").map(|(_, v)| v.clone()).unwrap_or_else(|| "1".into());
    let mut blocks = Vec::new();
    let mut vi = Block::new("versioninfo");
    vi.pair("editorversion", "400")
        .pair("editorbuild", "8000")
        .pair("mapversion", mapversion)
        .pair("formatversion", "100")
        .pair("prefab", "0");
    blocks.push(vi);
    blocks.push(Block::new("visgroups"));
    let mut vs = Block::new("viewsettings");
    vs.pair("bSnapToGrid", "1").pair("bShowGrid", "1").pair("bShowLogicalGrid", "0").pair("nGridSpacing", "64").pair("bShow3DGrid", "0");
    blocks.push(vs);
    let ent_id = 1_000_000usize;
    let total = entities.len() + added.len();
    for i in 0..total {
        let (pairs, is_world) = if i < entities.len() { (&entities[i].pairs, i == 0) } else { (&added[i - entities.len()].0, false) };
        let mut b = Block::new(if is_world { "world" } else { "entity" });
        b.pair("id", if is_world { "1".to_string() } else { (ent_id + i).to_string() });
        b.items.extend(pair_items(pairs));
        if let Some(list) = solids.get_mut(i) {
            for s in std::mem::take(list) {
                b.block(s);
            }
        }
        if let Some(extra) = i.checked_sub(entities.len()).and_then(|a| added_blocks.remove(&a)) {
            b.block(extra);
        }
        if !is_world {
            b.block(editor("220 30 220"));
        }
        blocks.push(b);
    }
    let mut cams = Block::new("cameras");
    cams.pair("activecamera", "-1");
    blocks.push(cams);
    let mut cordon = Block::new("cordon");
    cordon.pair("mins", "(-1024 -1024 -1024)").pair("maxs", "(1024 1024 1024)").pair("active", "0");
    blocks.push(cordon);
    let header = vec![
        format!("Decompiled by bspkit {} from a {} map", env!("CARGO_PKG_VERSION"), bsp.branch().id),
        "Format: Valve Map Format (Hammer 4.x)".to_string(),
    ];
    let text = vmf::write(&blocks, &header);

    orig.added_entities = added.len();
    // func_detail / func_ladder brushes are measured with the world, the rest on their own.
    orig.entity_group = (0..n_map_entities)
        .chain(added.iter().enumerate().map(|(i, (_, g))| if *g == usize::MAX { n_map_entities + i } else { *g }))
        .collect();
    notes.push(format!(
        "written: {} func_detail, {} func_ladder, {} prop_static, {} env_cubemap, {} info_overlay, {}/{} displacements",
        sq.func_detail, sq.func_ladder, sq.props, sq.cubemaps, sq.overlays, sq.displacements_written, sq.displacements
    ));
    orig.notes = notes;
    orig.entities = entities;
    // What the read-back checks compare with, owned (the lumps' views end here).
    let disp_truth = disp_sides
        .iter()
        .map(|&(si, di)| {
            let d = &disps[di];
            let n = (1usize << d.power) + 1;
            let vs = usize::try_from(d.vert_start).ok().and_then(|s| dverts.get(s..s + n * n)).unwrap_or(&[]);
            let ts = usize::try_from(d.tri_start).ok().and_then(|s| dtris.get(s..s + 2 * (n - 1) * (n - 1))).unwrap_or(&[]);
            DispTruth {
                side_id: side_out[si].id,
                power: d.power,
                start: d.start.to_vec(),
                normals: vs.iter().flat_map(|v| v3(&v.vec).map(|c| c as f64)).collect(),
                dists: vs.iter().map(|v| v.dist.get() as f64).collect(),
                alphas: vs.iter().map(|v| v.alpha.get() as f64).collect(),
                tags: ts.iter().map(|t| vmf_tag(t.tags.get()) as f64).collect(),
                allowed: d.allowed.iter().map(|a| *a as i32 as f64).collect(),
            }
        })
        .collect();
    let truth = Truth {
        props,
        cubemaps: cubemaps.iter().map(|c| (c.origin.iter().map(|x| x.get() as f64).collect(), c.size.get() as i64)).collect(),
        overlays: overlay_truth,
        water_overlays: water_truth,
        disps: disp_truth,
    };
    Ok(SourceOut { text, orig, counts: sq, truth })
}

/// A Source map decompiled: the `.vmf` text, what to measure it against and the counts written.
pub(super) struct SourceOut {
    pub text: String,
    pub orig: Original,
    counts: SourceQuality,
    truth: Truth,
}

struct DispTruth {
    side_id: usize,
    power: i32,
    start: Vec<f64>,
    normals: Vec<f64>,
    dists: Vec<f64>,
    alphas: Vec<f64>,
    tags: Vec<f64>,
    allowed: Vec<f64>,
}

struct Truth {
    props: Vec<crate::lumps::staticprops::StaticProp>,
    cubemaps: Vec<(Vec<f64>, i64)>,
    overlays: Vec<Vec<(String, String)>>,
    water_overlays: Vec<Vec<(String, String)>>,
    disps: Vec<DispTruth>,
}

impl SourceOut {
    /// The Source checks on the document read back from [`SourceOut::text`].
    pub(super) fn check(&self, read: &[Block]) -> SourceQuality {
        let mut sq = self.counts.clone();
        check_extras(read, &mut sq, &self.truth);
        sq
    }
}

type SideIndex = HashMap<(usize, [i64; 3], i64), Vec<usize>>;

/// The keys vbsp reads for an overlay's shape (`StartU` … `uv3`), from the record: U/V range,
/// basis origin, basis, and the four UV points. The U basis is stored in the z of the first
/// three UV points (§18); V = normal × U (what the engine rebuilds).
fn overlay_shape_keys(u: [f32; 2], v: [f32; 2], uvp: [[f32; 3]; 4], origin: [f32; 3], normal: [f32; 3]) -> Vec<(String, String)> {
    let bu = [uvp[0][2], uvp[1][2], uvp[2][2]].map(|c| c as f64);
    let bv = geom::cross(normal.map(|c| c as f64), bu);
    let mut pairs: Vec<(String, String)> = vec![
        ("StartU".into(), num(u[0] as f64)),
        ("EndU".into(), num(u[1] as f64)),
        ("StartV".into(), num(v[0] as f64)),
        ("EndV".into(), num(v[1] as f64)),
        ("BasisOrigin".into(), vec3f(origin)),
        ("BasisU".into(), vec3f(bu.map(|c| c as f32))),
        ("BasisV".into(), vec3f(bv.map(|c| c as f32))),
        ("BasisNormal".into(), vec3f(normal)),
    ];
    for (k, p) in uvp.iter().enumerate() {
        pairs.push((format!("uv{k}"), vec3([p[0] as f64, p[1] as f64, 0.0])));
    }
    pairs
}

/// The written side of entity group `group` on `plane` whose polygon holds `poly`'s centroid.
fn find_side(index: &SideIndex, sides: &[SideOut], group: usize, plane: &Plane, poly: &[[f64; 3]]) -> Option<usize> {
    let (n, d) = plane_key(plane);
    let c = centroid(poly);
    [d, d - 1, d + 1].iter().find_map(|dd| {
        index.get(&(group, n, *dd))?.iter().copied().find(|&si| {
            let s = &sides[si];
            s.plane.same_as(plane, 1e-4, 0.1) && super::quake::inside(&s.polygon, s.plane.normal, c, 0.1)
        })
    })
}

/// The world and entities of a `.vmf` as the shared measure reads them: pairs in order with
/// `connections` blocks expanded in place (the `id` dropped), solids as Valve 220 sides whose
/// first flag is the contents the document implies (`CONTENTS_DETAIL` in a `func_detail`).
pub fn to_map_entities(blocks: &[Block]) -> Vec<MapEntity> {
    into_map_entities(blocks.to_vec())
}

/// [`to_map_entities`] taking the blocks: their pairs are moved, not copied (the measure of a
/// map with thousands of entities copied every pair).
pub(crate) fn into_map_entities(blocks: Vec<Block>) -> Vec<MapEntity> {
    let mut out = Vec::new();
    for b in blocks.into_iter().filter(|b| b.name == "world" || b.name == "entity") {
        let mut e = MapEntity::default();
        let mut first = true;
        let mut solids = Vec::new();
        for it in b.items {
            match it {
                Item::Pair(k, v) => {
                    if !(first && k == "id") {
                        e.pairs.push((k, v));
                    }
                    first = false;
                }
                Item::Block(c) if c.name == "connections" => {
                    for ci in c.items {
                        if let Item::Pair(k, v) = ci {
                            e.pairs.push((k, v));
                        }
                    }
                }
                Item::Block(c) if c.name.eq_ignore_ascii_case("solid") => solids.push(c),
                _ => {}
            }
        }
        let detail = e.pairs.iter().any(|(k, v)| k == "classname" && v == "func_detail");
        for s in &solids {
            let mut sides = Vec::new();
            for side in s.blocks("side") {
                let p = vmf::numbers(side.get("plane").unwrap_or(""));
                let ua = vmf::numbers(side.get("uaxis").unwrap_or(""));
                let va = vmf::numbers(side.get("vaxis").unwrap_or(""));
                if p.len() != 9 || ua.len() != 5 || va.len() != 5 {
                    continue;
                }
                sides.push(MapSide {
                    points: [[p[0], p[1], p[2]], [p[3], p[4], p[5]], [p[6], p[7], p[8]]],
                    texture: side.get("material").unwrap_or("").to_string(),
                    projection: TexProjection::Valve {
                        u: [ua[0], ua[1], ua[2], ua[3]],
                        v: [va[0], va[1], va[2], va[3]],
                        rotation: side.get("rotation").and_then(|r| r.parse().ok()).unwrap_or(0.0),
                        scale: [ua[4], va[4]],
                    },
                    flags: Some([if detail { CONTENTS_DETAIL } else { 0 }, 0, 0]),
                });
            }
            e.primitives.push(MapPrimitive::Brush(sides));
        }
        out.push(e);
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * b.abs().max(1.0)
}

/// The extra Source checks on the read-back document.
fn check_extras(read: &[Block], sq: &mut SourceQuality, truth: &Truth) {
    let (props, overlays) = (&truth.props, &truth.overlays);
    let ents: Vec<&Block> = read.iter().filter(|b| b.name == "entity").collect();
    let of_class = |c: &'static str| ents.iter().copied().filter(move |e| e.get("classname") == Some(c));
    let nums = |b: &Block, k: &str| vmf::numbers(b.get(k).unwrap_or(""));
    let int = |b: &Block, k: &str| b.get(k).and_then(|v| v.trim().parse::<i64>().ok());
    let lights: HashMap<&str, Vec<f64>> =
        of_class("info_lighting").filter_map(|e| Some((e.get("targetname")?, nums(e, "origin")))).collect();

    // Static props, in lump order.
    for (p, e) in props.iter().zip(of_class("prop_static")) {
        let eq3 = |k: &str, v: [f32; 3]| {
            let n = nums(e, k);
            n.len() == 3 && n.iter().zip(v).all(|(a, b)| close(*a, b as f64))
        };
        let eq = |k: &str, v: f64| nums(e, k).first().is_some_and(|a| close(*a, v));
        let mut ok = eq3("origin", p.origin)
            && eq3("angles", p.angles)
            && e.get("model") == Some(p.model_name.as_deref().unwrap_or(""))
            && int(e, "skin") == Some(p.skin as i64)
            && int(e, "solid") == Some(p.solid as i64)
            && eq("fademindist", p.fade_min as f64)
            && eq("fademaxdist", p.fade_max as f64);
        let mut flags = 0u32;
        for (bit, key) in PROP_KEY_FLAGS {
            if int(e, key) == Some(1) {
                flags |= bit;
            }
        }
        let light = e.get("lightingorigin").and_then(|n| lights.get(n));
        if light.is_some() {
            flags |= PROP_USE_LIGHTING_ORIGIN;
            ok &= light.is_some_and(|l| l.len() == 3 && l.iter().zip(p.lighting_origin).all(|(a, b)| close(*a, b as f64)));
        }
        let mask = PROP_KEY_FLAGS.iter().fold(PROP_USE_LIGHTING_ORIGIN, |m, (b, _)| m | b);
        ok &= flags == p.flags & mask;
        if let Some(s) = p.forced_fade_scale {
            ok &= eq("fadescale", s as f64);
        }
        if let Some([a, b]) = p.dx_level {
            ok &= int(e, "mindxlevel") == Some(a as i64) && int(e, "maxdxlevel") == Some(b as i64);
        }
        if let Some(l) = p.cpu_gpu_levels {
            ok &= ["mincpulevel", "maxcpulevel", "mingpulevel", "maxgpulevel"].iter().zip(l).all(|(k, v)| int(e, k) == Some(v as i64));
        }
        if let Some(c) = p.diffuse_modulation {
            ok &= nums(e, "rendercolor") == vec![c[0] as f64, c[1] as f64, c[2] as f64] && int(e, "renderamt") == Some(c[3] as i64);
        }
        if let Some([x, y]) = p.lightmap_res {
            ok &= int(e, "lightmapresolutionx") == Some(x as i64) && int(e, "lightmapresolutiony") == Some(y as i64);
        }
        if let Some(x) = p.disable_x360 {
            ok &= int(e, "disableX360") == Some(x as i64);
        }
        if let Some(x) = p.flags_ex {
            ok &= int(e, "flagsex") == Some(x as i64);
        }
        if let Some(s) = p.uniform_scale {
            ok &= eq("uniformscale", s as f64);
        }
        if let Some(s) = p.scale {
            ok &= eq3("modelscale", s);
        }
        sq.props_same += usize::from(ok);
    }

    for ((o, size), e) in truth.cubemaps.iter().zip(of_class("env_cubemap")) {
        sq.cubemaps_same += usize::from(&nums(e, "origin") == o && int(e, "cubemapsize") == Some(*size));
    }

    // Each key as written: names equal, numbers close.
    let keys_same = |truth: &[(String, String)], e: &Block| {
        truth.iter().all(|(k, v)| {
            let (a, b) = (vmf::numbers(v), nums(e, k));
            if k == "material" || k == "classname" {
                e.get(k) == Some(v.as_str())
            } else {
                a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| close(*y, *x))
            }
        })
    };
    for (truth, e) in overlays.iter().zip(of_class("info_overlay")) {
        sq.overlays_same += usize::from(keys_same(truth, e));
    }
    // Water overlays: the `overlaydata` block of each `info_overlay_transition`, in order.
    let water = of_class("info_overlay_transition").filter_map(|e| e.blocks("overlaytransition").next()?.blocks("overlaydata").next());
    for (truth, data) in truth.water_overlays.iter().zip(water) {
        sq.water_overlays_same += usize::from(keys_same(truth, data));
    }

    // Displacements: find the side by id in the read-back document.
    let mut by_id: HashMap<String, &Block> = HashMap::new();
    for b in read {
        for s in b.blocks("solid") {
            for side in s.blocks("side") {
                if let Some(id) = side.get("id") {
                    by_id.insert(id.to_string(), side);
                }
            }
        }
    }
    for d in &truth.disps {
        let Some(block) = by_id.get(&d.side_id.to_string()).and_then(|s| s.blocks("dispinfo").next()) else { continue };
        let n = (1usize << d.power) + 1;
        let rows = |name: &str| -> Vec<f64> {
            block
                .blocks(name)
                .next()
                .map(|b| (0..n).flat_map(|r| vmf::numbers(b.get(&format!("row{r}")).unwrap_or(""))).collect())
                .unwrap_or_default()
        };
        let same = |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y));
        let ok = int(block, "power") == Some(d.power as i64)
            && same(&nums(block, "startposition"), &d.start)
            && same(&rows("normals"), &d.normals)
            && same(&rows("distances"), &d.dists)
            && same(&rows("alphas"), &d.alphas)
            && same(&rows("triangle_tags"), &d.tags)
            && block.blocks("allowed_verts").next().is_some_and(|b| vmf::numbers(b.get("10").unwrap_or("")) == d.allowed);
        sq.displacements_same += usize::from(ok);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_brushes_take_the_material_their_contents_give() {
        let nodraw = |n: &str| Some((n.to_string(), 0x480));
        // Player clip stored as another brush's ladder texinfo; NPC clip stored as clip.
        assert_eq!(restored_tool("tf2", 0x801_0000, &vec![nodraw("tools/toolsinvisibleladder"); 6]), Some("tools/toolsplayerclip"));
        assert_eq!(restored_tool("l4d2", 0x802_0000, &vec![nodraw("TOOLS/TOOLSCLIP"); 6]), Some("tools/toolsnpcclip"));
        assert_eq!(restored_tool("csgo", 0x808_0000, &vec![nodraw("tools/toolsclip"); 6]), Some("tools/toolsgrenadeclip"));
        // Stored names the contents agree with stay (a clip surface variant, plain nodraw).
        assert_eq!(restored_tool("tf2", 0x803_0000, &vec![nodraw("tools/toolsclip_wood"); 6]), None);
        assert_eq!(restored_tool("tf2", 0x800_0001, &vec![nodraw("TOOLS/TOOLSNODRAW"); 6]), None);
        // A brush with a drawn side, a side that is not one of the tools, or contents no tool
        // gives: nothing is changed.
        let mut glass = vec![nodraw("TOOLS/TOOLSNODRAW"); 5];
        glass.push(Some(("GLASS/WINDOW001".to_string(), 0)));
        assert_eq!(restored_tool("tf2", CONTENTS_WINDOW, &glass), None);
        let mut drawn = vec![nodraw("TOOLS/TOOLSNODRAW"); 5];
        drawn.push(Some(("tools/toolsinvisible".to_string(), 0)));
        assert_eq!(restored_tool("tf2", CONTENTS_GRATE, &drawn), None);
        assert_eq!(restored_tool("tf2", CONTENTS_WATER, &vec![nodraw("TOOLS/TOOLSNODRAW"); 6]), None);
        assert_eq!(restored_tool("tf2", 0x801_0000, &[nodraw("tools/toolsinvisibleladder"), None]), None);
    }

    #[test]
    fn outputs_go_to_connections_in_place_and_come_back_in_order() {
        let pairs: Vec<(String, String)> = [
            ("classname", "logic_relay"),
            ("OnTrigger", "door,Open,,0,-1"),
            ("OnTrigger", "lamp\x1bTurnOn\x1b\x1b0.5\x1b1"),
            ("targetname", "relay"),
            ("OnSpawn", "relay,Trigger,,1,-1"),
            ("spawnflags", "0,1,2,3,4"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut e = Block::new("entity");
        e.pair("id", "7");
        e.items.extend(pair_items(&pairs));
        // Two runs of outputs, each its own block in place; the numeric list stays a pair.
        assert_eq!(e.blocks("connections").count(), 2, "{e:?}");
        assert!(e.items.iter().any(|i| matches!(i, Item::Pair(k, _) if k == "spawnflags")));
        let text = vmf::write(&[e], &[]);
        let back = to_map_entities(&vmf::read(text.as_bytes()).unwrap());
        assert_eq!(back[0].pairs, pairs);
    }

    #[test]
    fn tags_and_tool_materials() {
        assert_eq!(vmf_tag(0x1 | 0x2 | 0x4), 9);
        assert_eq!(vmf_tag(0x2), 1);
        assert_eq!(vmf_tag(0x1 | 0x8), 0);
        assert_eq!(tool_material(CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP), "TOOLS/TOOLSCLIP");
        assert_eq!(tool_material(CONTENTS_PLAYERCLIP), "TOOLS/TOOLSPLAYERCLIP");
        assert_eq!(tool_material(CONTENTS_MONSTERCLIP), "TOOLS/TOOLSNPCCLIP");
        assert_eq!(tool_material(CONTENTS_AREAPORTAL), "TOOLS/TOOLSAREAPORTAL");
        assert_eq!(tool_material(0), "TOOLS/TOOLSSKIP");
        assert_eq!(tool_material(CONTENTS_SOLID), "TOOLS/TOOLSNODRAW");
    }
}
