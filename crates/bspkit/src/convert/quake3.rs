//! Quake 3 family: IBSP 46 (`quake3`) ↔ IBSP 47 (`ibsp47`) ↔ Quake Live ↔ Raven `RBSP` ↔
//! qfusion `FBSP` (quake_facts.md §5; the records of [`crate::branches::quake3::records`]).
//!
//! IBSP 46 and 47 share every record; Quake Live adds lump 17 (advertisements). RBSP and FBSP
//! widen three records to four light styles (brush sides gain the surface made from them,
//! draw vertices a lightmap coordinate and colour per style, surfaces a lightmap page and
//! place per style) and store the light grid as unique points (30 bytes, four styles) with a
//! `u16` index per grid cell in lump 17 (quake_facts.md §5.2). FBSP's lightmap pages are
//! 512 × 512 instead of 128 × 128 (§5.3).
//!
//! Going wide, the added fields get what q3map2's IBSP loader gives them (the values its RBSP
//! writer then stores, and what Jedi Academy / qfusion read as "no such style"): style 0 is
//! `LS_NORMAL` (0) and styles 1–3 `LS_NONE` (255), their lightmap page −3 (by vertex) at
//! (0, 0), their vertex lightmap coordinates and colours zero; grid points repeat their one
//! colour in every style with styles `[0, 255, 255, 255]`; a brush side's surface is −1. The
//! grid's unique points are found exactly (q3map2 merges near-equal points; bspkit does not,
//! so that the grid comes back byte for byte).
//!
//! Going narrow keeps style 0. What styles 1–3 held (surfaces and grid points that use them),
//! a style 0 that is not `LS_NORMAL`, brush-side surface numbers and Quake Live's
//! advertisements are reported as losses.
//!
//! Lightmap pages: 128 → 512 puts each page in the top-left corner of its own 512 page and
//! scales the vertex lightmap coordinates by ¼ (exact in binary floating point), so that the
//! way back is exact. 512 → 128 cuts each page in sixteen; a surface's rectangle must lie in
//! one of them (a rectangle across a cut would need repacking: refused), the first of the
//! sixteen is always kept and the others where a surface uses them or they hold any light.
//! A map without a LIGHTMAPS lump whose surfaces name pages (q3map2 `-external`: the pages are
//! images named by generated shaders, their coordinates relative to those) is left as it is.
//!
//! Layout: lumps keep the source's file order and the gaps that hold bytes (q3map2's
//! "I LOVE MY Q3MAP2" marker); LIGHT_ARRAY follows LIGHT_GRID as q3map2's RBSP writer puts it.
//! q3map2 writes 18 directory entries for every IBSP game, the 18th empty at the end of the
//! file (quake_facts.md §5.0); a 17-lump target keeps that entry when its source had one.

use zerocopy::byteorder::{F32, I32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::branch::{Branch, HeaderKind};
use crate::branches::quake3::lumps as l;
use crate::branches::quake3::records::{BrushSide, BrushSideRbsp, DrawVert, DrawVertRbsp, LightGrid, LightGridRbsp, Surface, SurfaceRbsp};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::convert::report::{LumpAction, Report};
use crate::directory;
use crate::error::{Error, ErrorKind, Result};

/// Branches this module converts between.
pub const BRANCHES: [&str; 5] = ["quake3", "ibsp47", "quakelive", "rbsp", "fbsp"];

/// `LS_NORMAL` and `LS_NONE` (q3map2.h).
const LS_NORMAL: u8 = 0;
const LS_NONE: u8 = 255;
/// `lightmapNum` of a style lit by vertex colours (q3map2's `LIGHTMAP_BY_VERTEX`).
const LIGHTMAP_BY_VERTEX: i32 = -3;
const PAGE_SMALL: usize = 128;
const PAGE_LARGE: usize = 512;

/// The header version a target writes.
pub fn version(id: &str) -> u32 {
    match id {
        "quake3" => 46,
        "ibsp47" | "quakelive" => 47,
        _ => 1,
    }
}

fn raven(id: &str) -> bool {
    matches!(id, "rbsp" | "fbsp")
}

fn page(id: &str) -> usize {
    if id == "fbsp" {
        PAGE_LARGE
    } else {
        PAGE_SMALL
    }
}

fn records<'a, T: FromBytes + Immutable + KnownLayout + Unaligned>(raw: &'a [u8], lump: &str) -> Result<&'a [T]> {
    <[T]>::ref_from_bytes(raw)
        .map_err(|_| Error::new(ErrorKind::BadLumpLength { length: raw.len() as u64, record_size: std::mem::size_of::<T>() }).in_lump(lump))
}

/// The wide (RBSP) form of the three per-style records and the grid, one point per cell.
struct Wide {
    sides: Vec<BrushSideRbsp>,
    verts: Vec<DrawVertRbsp>,
    surfaces: Vec<SurfaceRbsp>,
    /// One point per grid cell (expanded through LIGHT_ARRAY for Raven sources).
    grid: Vec<LightGridRbsp>,
}

fn widen(raw: &[&[u8]], raven_src: bool) -> Result<Wide> {
    if raven_src {
        let points: &[LightGridRbsp] = records(raw[l::LUMP_LIGHT_GRID], "LIGHT_GRID")?;
        let array: &[zerocopy::byteorder::U16<zerocopy::LittleEndian>] = records(raw[l::LUMP_LIGHT_ARRAY], "LIGHT_ARRAY")?;
        let mut grid = Vec::with_capacity(array.len());
        for (i, ix) in array.iter().enumerate() {
            let p = points.get(ix.get() as usize).ok_or_else(|| {
                Error::malformed(format!("cell {i} names grid point {} of {}", ix.get(), points.len()))
                    .in_lump("LIGHT_ARRAY")
                    .at(2 * i as u64)
            })?;
            grid.push(*p);
        }
        return Ok(Wide {
            sides: records::<BrushSideRbsp>(raw[l::LUMP_BRUSH_SIDES], "BRUSH_SIDES")?.to_vec(),
            verts: records::<DrawVertRbsp>(raw[l::LUMP_DRAW_VERTICES], "DRAW_VERTICES")?.to_vec(),
            surfaces: records::<SurfaceRbsp>(raw[l::LUMP_SURFACES], "FACES")?.to_vec(),
            grid,
        });
    }
    let z = F32::ZERO;
    let sides = records::<BrushSide>(raw[l::LUMP_BRUSH_SIDES], "BRUSH_SIDES")?
        .iter()
        .map(|s| BrushSideRbsp { plane: s.plane, shader: s.shader, surface: I32::new(-1) })
        .collect();
    let verts = records::<DrawVert>(raw[l::LUMP_DRAW_VERTICES], "DRAW_VERTICES")?
        .iter()
        .map(|v| DrawVertRbsp {
            xyz: v.xyz,
            st: v.st,
            lightmap: [v.lightmap, [z; 2], [z; 2], [z; 2]],
            normal: v.normal,
            color: [v.color, [0; 4], [0; 4], [0; 4]],
        })
        .collect();
    let rest = I32::new(LIGHTMAP_BY_VERTEX);
    let surfaces = records::<Surface>(raw[l::LUMP_SURFACES], "FACES")?
        .iter()
        .map(|s| SurfaceRbsp {
            shader: s.shader,
            fog: s.fog,
            surface_type: s.surface_type,
            first_vert: s.first_vert,
            num_verts: s.num_verts,
            first_index: s.first_index,
            num_indexes: s.num_indexes,
            lightmap_styles: [LS_NORMAL, LS_NONE, LS_NONE, LS_NONE],
            vertex_styles: [LS_NORMAL, LS_NONE, LS_NONE, LS_NONE],
            lightmap_num: [s.lightmap_num, rest, rest, rest],
            lightmap_x: [s.lightmap_x, I32::ZERO, I32::ZERO, I32::ZERO],
            lightmap_y: [s.lightmap_y, I32::ZERO, I32::ZERO, I32::ZERO],
            lightmap_width: s.lightmap_width,
            lightmap_height: s.lightmap_height,
            lightmap_origin: s.lightmap_origin,
            lightmap_vecs: s.lightmap_vecs,
            patch_width: s.patch_width,
            patch_height: s.patch_height,
        })
        .collect();
    let grid = records::<LightGrid>(raw[l::LUMP_LIGHT_GRID], "LIGHT_GRID")?
        .iter()
        .map(|p| LightGridRbsp {
            ambient: [p.ambient; 4],
            directed: [p.directed; 4],
            styles: [LS_NORMAL, LS_NONE, LS_NONE, LS_NONE],
            lat_long: p.lat_long,
        })
        .collect();
    Ok(Wide { sides, verts, surfaces, grid })
}

/// The narrow (IBSP) lumps: brush sides, draw vertices, surfaces, light grid; losses reported.
fn narrow(w: &Wide, report: &mut Report) -> [Vec<u8>; 4] {
    let sides: Vec<BrushSide> = w.sides.iter().map(|s| BrushSide { plane: s.plane, shader: s.shader }).collect();
    let numbered = w.sides.iter().filter(|s| s.surface.get() != -1).count();
    if numbered > 0 {
        report.loss(
            Some(l::LUMP_BRUSH_SIDES),
            Some("BRUSH_SIDES".into()),
            "dropped",
            format!("{numbered} brush side(s) name the surface made from them; IBSP sides have no such field"),
        );
    }
    let verts: Vec<DrawVert> =
        w.verts.iter().map(|v| DrawVert { xyz: v.xyz, st: v.st, lightmap: v.lightmap[0], normal: v.normal, color: v.color[0] }).collect();
    let extra_styles =
        w.surfaces.iter().filter(|s| s.lightmap_styles[1..].iter().chain(&s.vertex_styles[1..]).any(|&x| x != LS_NONE)).count();
    if extra_styles > 0 {
        report.loss(
            Some(l::LUMP_SURFACES),
            Some("FACES".into()),
            "dropped",
            format!("{extra_styles} surface(s) use light styles 1-3 (their lightmaps and vertex colours); IBSP keeps style 0"),
        );
    }
    let switched = w.surfaces.iter().filter(|s| s.lightmap_styles[0] != LS_NORMAL || s.vertex_styles[0] != LS_NORMAL).count();
    if switched > 0 {
        report.loss(
            Some(l::LUMP_SURFACES),
            Some("FACES".into()),
            "defaulted",
            format!("{switched} surface(s) have a first light style other than normal (0); IBSP lights them always"),
        );
    }
    let surfaces: Vec<Surface> = w
        .surfaces
        .iter()
        .map(|s| Surface {
            shader: s.shader,
            fog: s.fog,
            surface_type: s.surface_type,
            first_vert: s.first_vert,
            num_verts: s.num_verts,
            first_index: s.first_index,
            num_indexes: s.num_indexes,
            lightmap_num: s.lightmap_num[0],
            lightmap_x: s.lightmap_x[0],
            lightmap_y: s.lightmap_y[0],
            lightmap_width: s.lightmap_width,
            lightmap_height: s.lightmap_height,
            lightmap_origin: s.lightmap_origin,
            lightmap_vecs: s.lightmap_vecs,
            patch_width: s.patch_width,
            patch_height: s.patch_height,
        })
        .collect();
    let styled = w.grid.iter().filter(|p| p.styles != [LS_NORMAL, LS_NONE, LS_NONE, LS_NONE]).count();
    if styled > 0 {
        report.loss(
            Some(l::LUMP_LIGHT_GRID),
            Some("LIGHT_GRID".into()),
            "dropped",
            format!("{styled} grid cell(s) use light styles other than style 0 normal; IBSP keeps style 0's colours"),
        );
    }
    let grid: Vec<LightGrid> =
        w.grid.iter().map(|p| LightGrid { ambient: p.ambient[0], directed: p.directed[0], lat_long: p.lat_long }).collect();
    [sides.as_bytes().to_vec(), verts.as_bytes().to_vec(), surfaces.as_bytes().to_vec(), grid.as_bytes().to_vec()]
}

/// The wide lumps: brush sides, draw vertices, surfaces, unique grid points, light array.
fn wide_lumps(w: &Wide) -> Result<[Vec<u8>; 5]> {
    let mut points: Vec<LightGridRbsp> = Vec::new();
    let mut seen: std::collections::HashMap<[u8; 30], u16> = std::collections::HashMap::new();
    let mut array: Vec<u8> = Vec::with_capacity(w.grid.len() * 2);
    for p in &w.grid {
        let key: [u8; 30] = p.as_bytes().try_into().expect("30-byte grid point");
        let ix = match seen.get(&key) {
            Some(&ix) => ix,
            None => {
                let ix = u16::try_from(points.len()).map_err(|_| {
                    Error::new(ErrorKind::LimitExceeded {
                        what: "unique light-grid points (u16 light array)",
                        requested: points.len() as u64 + 1,
                        limit: 65536,
                    })
                    .in_lump("LIGHT_GRID")
                })?;
                seen.insert(key, ix);
                points.push(*p);
                ix
            }
        };
        array.extend_from_slice(&ix.to_le_bytes());
    }
    Ok([w.sides.as_bytes().to_vec(), w.verts.as_bytes().to_vec(), w.surfaces.as_bytes().to_vec(), points.as_bytes().to_vec(), array])
}

/// The vertex range of surface `i`, checked against the vertex count.
fn vert_range(s: &SurfaceRbsp, i: usize, nverts: usize) -> Result<std::ops::Range<usize>> {
    let (f, n) = (s.first_vert.get(), s.num_verts.get());
    if f < 0 || n < 0 || f as i64 + n as i64 > nverts as i64 {
        return Err(Error::malformed(format!("surface {i}: vertices {f}+{n} of {nverts}")).in_lump("FACES").at(148 * i as u64));
    }
    Ok(f as usize..(f + n) as usize)
}

/// Move lightmap pages between 128 and 512 texels, with the surfaces' pages and places and the
/// vertices' lightmap coordinates (module doc). Returns the new LIGHTMAPS lump.
fn repage(lm: &[u8], w: &mut Wide, from: usize, to: usize) -> Result<Vec<u8>> {
    let page_bytes = from * from * 3;
    if lm.len() % page_bytes != 0 {
        return Err(Error::new(ErrorKind::BadLumpLength { length: lm.len() as u64, record_size: page_bytes }).in_lump("LIGHTMAPS"));
    }
    let pages = lm.len() / page_bytes;
    let nverts = w.verts.len();
    // Each (vertex, style) is moved once, whichever surface names it first.
    let mut moved = vec![[false; 4]; nverts];
    if from == PAGE_SMALL && to == PAGE_LARGE {
        let mut out = vec![0u8; pages * PAGE_LARGE * PAGE_LARGE * 3];
        for p in 0..pages {
            for y in 0..PAGE_SMALL {
                let src = &lm[p * page_bytes + y * PAGE_SMALL * 3..][..PAGE_SMALL * 3];
                out[(p * PAGE_LARGE * PAGE_LARGE + y * PAGE_LARGE) * 3..][..PAGE_SMALL * 3].copy_from_slice(src);
            }
        }
        for (i, s) in w.surfaces.iter().enumerate() {
            let range = vert_range(s, i, nverts)?;
            for (st, num) in s.lightmap_num.iter().enumerate() {
                if num.get() < 0 {
                    continue;
                }
                for v in range.clone() {
                    if !std::mem::replace(&mut moved[v][st], true) {
                        for c in &mut w.verts[v].lightmap[st] {
                            *c = F32::new(c.get() * 0.25);
                        }
                    }
                }
            }
        }
        return Ok(out);
    }
    // 512 → 128: sixteen sub-pages per page, row by row.
    let cut = PAGE_LARGE / PAGE_SMALL;
    let sub_bytes = PAGE_SMALL * PAGE_SMALL * 3;
    let mut used = vec![false; pages * cut * cut];
    let mut place = Vec::with_capacity(w.surfaces.len());
    for (i, s) in w.surfaces.iter().enumerate() {
        let mut per_style = [None; 4];
        for (st, num) in s.lightmap_num.iter().enumerate() {
            let num = num.get();
            if num < 0 {
                continue;
            }
            let (x, y, wd, ht) = (s.lightmap_x[st].get(), s.lightmap_y[st].get(), s.lightmap_width.get(), s.lightmap_height.get());
            if num as usize >= pages {
                return Err(Error::malformed(format!("surface {i} names lightmap page {num} of {pages}")).in_lump("FACES"));
            }
            let ok = (0..PAGE_LARGE as i32).contains(&x)
                && (0..PAGE_LARGE as i32).contains(&y)
                && wd >= 0
                && ht >= 0
                && (x % PAGE_SMALL as i32) as i64 + wd as i64 <= PAGE_SMALL as i64
                && (y % PAGE_SMALL as i32) as i64 + ht as i64 <= PAGE_SMALL as i64;
            if !ok {
                return Err(Error::new(ErrorKind::Unsupported(format!(
                    "surface {i}: its {wd}x{ht} lightmap at ({x}, {y}) of a 512x512 page crosses a 128x128 page boundary (repacking lightmaps is not supported)"
                )))
                .in_lump("FACES"));
            }
            let (sx, sy) = (x as usize / PAGE_SMALL, y as usize / PAGE_SMALL);
            used[num as usize * cut * cut + sy * cut + sx] = true;
            per_style[st] = Some((num as usize, sx, sy));
        }
        place.push(per_style);
    }
    let sub = |p: usize, k: usize| -> Vec<u8> {
        let (sx, sy) = (k % cut, k / cut);
        let mut b = Vec::with_capacity(sub_bytes);
        for y in 0..PAGE_SMALL {
            b.extend_from_slice(&lm[p * page_bytes + ((sy * PAGE_SMALL + y) * PAGE_LARGE + sx * PAGE_SMALL) * 3..][..PAGE_SMALL * 3]);
        }
        b
    };
    let mut out = Vec::new();
    let mut new_index = vec![usize::MAX; pages * cut * cut];
    let mut next = 0usize;
    for p in 0..pages {
        for k in 0..cut * cut {
            let b = sub(p, k);
            if k == 0 || used[p * cut * cut + k] || b.iter().any(|&x| x != 0) {
                new_index[p * cut * cut + k] = next;
                next += 1;
                out.extend_from_slice(&b);
            }
        }
    }
    for (i, per_style) in place.into_iter().enumerate() {
        let range = vert_range(&w.surfaces[i], i, nverts)?;
        for (st, pl) in per_style.into_iter().enumerate() {
            let Some((p, sx, sy)) = pl else { continue };
            let s = &mut w.surfaces[i];
            s.lightmap_num[st] = I32::new(new_index[p * cut * cut + sy * cut + sx] as i32);
            s.lightmap_x[st] = I32::new(s.lightmap_x[st].get() % PAGE_SMALL as i32);
            s.lightmap_y[st] = I32::new(s.lightmap_y[st].get() % PAGE_SMALL as i32);
            for v in range.clone() {
                if !std::mem::replace(&mut moved[v][st], true) {
                    let c = &mut w.verts[v].lightmap[st];
                    c[0] = F32::new(c[0].get() * 4.0 - sx as f32);
                    c[1] = F32::new(c[1].get() * 4.0 - sy as f32);
                }
            }
        }
    }
    Ok(out)
}

/// Convert between two of [`BRANCHES`].
pub fn convert_family(bsp: &Bsp, to: &'static Branch, report: &mut Report) -> Result<Vec<u8>> {
    let from = bsp.branch();
    let data = bsp.data();
    let (header, entries) = directory::parse(data, from, Endian::Little)?;
    let HeaderKind::IdMagic { magic } = to.header else {
        return Err(Error::new(ErrorKind::Unsupported(format!("{} is not an id-style Quake 3 branch", to.id))));
    };
    let n_src = entries.len();
    let mut raw: Vec<&[u8]> = Vec::with_capacity(n_src);
    for e in &entries {
        if e.length == 0 {
            raw.push(&[]);
            continue;
        }
        raw.push(crate::bytes::slice(data, e.offset, e.length).map_err(|err| bsp.lump_error(e.index, err))?);
    }
    // Directory slots the source wrote: q3map2's 18th (empty) entry after a 17-lump table.
    let first_lump = entries.iter().filter(|e| e.length > 0).map(|e| e.offset).min().unwrap_or(data.len() as u64);
    let phantom_src =
        n_src == 17 && first_lump >= header.len as u64 + 8 && crate::bytes::i32_at(data, header.len + 4, Endian::Little) == Some(0);
    let src_slots = if phantom_src { 18 } else { n_src };
    let n_to = to.lumps.len();
    let to_slots = if n_to == 17 && src_slots == 18 { 18 } else { n_to };

    let (rs, rt) = (raven(from.id), raven(to.id));
    // Target lumps 0..n_to: None = the source's bytes as they are.
    let mut new: Vec<Option<Vec<u8>>> = vec![None; n_to];
    let mut action = vec!["copied"; n_to];
    if rs != rt || page(from.id) != page(to.id) {
        let mut w = widen(&raw, rs).map_err(|e| e.in_file_opt(bsp.path()))?;
        if page(from.id) != page(to.id) && !raw[l::LUMP_LIGHTMAPS].is_empty() {
            new[l::LUMP_LIGHTMAPS] = Some(repage(raw[l::LUMP_LIGHTMAPS], &mut w, page(from.id), page(to.id))?);
            action[l::LUMP_LIGHTMAPS] = "converted";
        }
        if rt {
            let [s, v, f, g, a] = wide_lumps(&w)?;
            let mut set = vec![(l::LUMP_BRUSH_SIDES, s), (l::LUMP_DRAW_VERTICES, v), (l::LUMP_SURFACES, f)];
            // RBSP ↔ FBSP: the grid and its array stay as they are.
            if !rs {
                set.extend([(l::LUMP_LIGHT_GRID, g), (l::LUMP_LIGHT_ARRAY, a)]);
            }
            for (i, b) in set {
                action[i] = if i == l::LUMP_LIGHT_ARRAY {
                    "added"
                } else if b == raw[i] {
                    "copied"
                } else {
                    "converted"
                };
                new[i] = Some(b);
            }
        } else {
            let [s, v, f, g] = narrow(&w, report);
            for (i, b) in [(l::LUMP_BRUSH_SIDES, s), (l::LUMP_DRAW_VERTICES, v), (l::LUMP_SURFACES, f), (l::LUMP_LIGHT_GRID, g)] {
                new[i] = Some(b);
                action[i] = "converted";
            }
        }
    }
    if to.id == "quakelive" && from.id != "quakelive" {
        new[l::LUMP_ADVERTISEMENTS] = Some(Vec::new());
        action[l::LUMP_ADVERTISEMENTS] = "added";
    }
    if from.id == "quakelive" && to.id != "quakelive" {
        let n = raw[l::LUMP_ADVERTISEMENTS].len() / 128;
        if !raw[l::LUMP_ADVERTISEMENTS].is_empty() {
            report.loss(
                Some(l::LUMP_ADVERTISEMENTS),
                Some("ADVERTISEMENTS".into()),
                "dropped",
                format!("{n} advertisement surface(s): only Quake Live has the lump"),
            );
        }
        report.lumps.push(LumpAction {
            index: l::LUMP_ADVERTISEMENTS,
            name: "ADVERTISEMENTS",
            action: "dropped",
            source_bytes: raw[l::LUMP_ADVERTISEMENTS].len() as u64,
            target_bytes: 0,
            source_lzma: false,
            target_lzma: false,
        });
    }
    if rs && !rt {
        report.lumps.push(LumpAction {
            index: l::LUMP_LIGHT_ARRAY,
            name: "LIGHT_ARRAY",
            action: "dropped",
            source_bytes: raw[l::LUMP_LIGHT_ARRAY].len() as u64,
            target_bytes: 0,
            source_lzma: false,
            target_lzma: false,
        });
    }
    let bytes_of = |i: usize| -> &[u8] { new[i].as_deref().unwrap_or(if i < n_src { raw[i] } else { &[] }) };

    // Lay out: source lumps that stay, in file order; LIGHT_ARRAY (new) after LIGHT_GRID.
    // Keys: (old offset, 0 = a source lump / 1 = a new lump, index).
    // Kinds: 0 a source lump carried over, 1 a new lump (sorted before a source lump at the
    // same place), 2 a source lump the target drops (its bytes are skipped, not kept as a gap).
    let mut order: Vec<(u64, u8, usize)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let carried = i < 17 || (i == 17 && i < n_to && (rs && rt || from.id == to.id));
        if e.length > 0 {
            order.push((e.offset, if carried { 0 } else { 2 }, i));
        }
    }
    if n_to == 18 && !(rs && rt) && !bytes_of(17).is_empty() {
        let g = &entries[l::LUMP_LIGHT_GRID];
        order.push((g.offset + g.length, 1, 17));
    }
    order.sort_by_key(|&(ofs, kind, i)| (ofs, [1u8, 0, 2][kind as usize], i));
    let mut out = vec![0u8; 8 + 8 * to_slots];
    let mut placed = vec![(0u64, 0u64); n_to];
    let mut cursor_old = (8 + 8 * src_slots) as u64;
    let mut done = vec![false; n_to];
    for &(_, kind, i) in &order {
        if kind != 1 {
            let e = &entries[i];
            if e.offset < cursor_old {
                return Err(Error::new(ErrorKind::Unsupported(format!("lump {} shares bytes with another lump or the header", e.name))));
            }
            let gap = &data[cursor_old as usize..e.offset as usize];
            // A gap that holds bytes is kept; so is padding (q3map2 leaves stale bytes in it)
            // where it still pads to the same boundary.
            if (gap.len() >= 4 && gap.iter().any(|&b| b != 0)) || (gap.len() < 4 && (out.len() + gap.len()) % 4 == 0) {
                out.extend_from_slice(gap);
            }
            cursor_old = e.offset + e.length;
            if kind == 2 {
                continue;
            }
        }
        out.resize(out.len().next_multiple_of(4), 0);
        placed[i] = (out.len() as u64, bytes_of(i).len() as u64);
        done[i] = true;
        out.extend_from_slice(bytes_of(i));
        // The source's padding after this lump (q3map2 leaves stale bytes in it) where it
        // still pads to the same boundary and no other lump starts in it.
        if kind == 0 {
            let end = cursor_old;
            let pad_end = end.next_multiple_of(4).min(data.len() as u64);
            let clear = !entries.iter().any(|o| o.length > 0 && o.offset > end && o.offset < pad_end);
            if pad_end > end && clear && out.len() as u64 % 4 == end % 4 {
                out.extend_from_slice(&data[end as usize..pad_end as usize]);
                cursor_old = pad_end;
            }
        }
    }
    // Empty lumps keep the place their offset names: the start or end of a lump that moved.
    for i in 0..n_to {
        if done[i] || !bytes_of(i).is_empty() {
            continue;
        }
        if i < n_src && (i < 17 || rs && rt || from.id == to.id) {
            let off = entries[i].offset;
            let at_start = order.iter().find(|o| o.1 == 0 && entries[o.2].offset == off).map(|o| placed[o.2].0);
            let at_end =
                order.iter().find(|o| o.1 == 0 && entries[o.2].offset + entries[o.2].length == off).map(|o| placed[o.2].0 + placed[o.2].1);
            placed[i].0 = at_start.or(at_end).unwrap_or(if off <= out.len() as u64 { off } else { 0 });
        } else {
            placed[i].0 = u64::MAX; // set to the end of the file below
        }
    }
    // After the last lump: bytes other than zeros are kept.
    let tail = &data[(cursor_old as usize).min(data.len())..];
    if (tail.len() >= 4 && tail.iter().any(|&b| b != 0)) || (tail.len() < 4 && (out.len() + tail.len()) % 4 == 0) {
        out.extend_from_slice(tail);
    }
    out.resize(out.len().next_multiple_of(4), 0);
    let end = out.len() as u64;

    out[0..4].copy_from_slice(&magic);
    out[4..8].copy_from_slice(&version(to.id).to_le_bytes());
    for i in 0..to_slots {
        let (ofs, len) = if i < n_to { placed[i] } else { (end, 0) };
        let ofs = if ofs == u64::MAX { end } else { ofs };
        let (Ok(o), Ok(n)) = (i32::try_from(ofs), i32::try_from(len)) else {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "lump offset", requested: ofs.max(len), limit: i32::MAX as u64 }));
        };
        out[8 + 8 * i..][..4].copy_from_slice(&o.to_le_bytes());
        out[12 + 8 * i..][..4].copy_from_slice(&n.to_le_bytes());
    }
    for i in 0..n_to {
        let src_len = if i < n_src && (i < 17 || rs && rt || from.id == to.id) { raw[i].len() as u64 } else { 0 };
        report.lumps.push(LumpAction {
            index: i,
            name: to.lumps[i].name,
            action: action[i],
            source_bytes: src_len,
            target_bytes: bytes_of(i).len() as u64,
            source_lzma: false,
            target_lzma: false,
        });
    }
    report.lumps.sort_by_key(|a| a.index);
    Ok(out)
}
