//! Source geometry for the scene model ([`crate::mesh`]): every branch (VBSP 17–25, VTMB,
//! Strata) in either byte order (`VBSP` little-endian, X360/PS3 `PSBV` big-endian), through the
//! typed views of [`super::view`].
//!
//! Rules, with the spec sections they rest on (source.md):
//!
//! * **Faces lump.** The faces the engine draws: lump 7, or the HDR faces (lump 58) when lump 7
//!   is empty ([`View::faces`], open_questions.md A15). Surfaces name that lump and the record
//!   index.
//! * **Polygons** (§7.5): the vertex loop is `numedges` surfedges from `firstedge` (a negative
//!   surfedge walks its edge backwards, §7.4). Stored loops are clockwise seen from the front, so
//!   the fan `(0, i + 1, i)` is counter-clockwise. The normal is the stored plane's, never
//!   negated: vbsp stores the plane that faces the face's front and `side` is only that plane's
//!   parity (`side == planenum & 1` and every loop is clockwise about the stored plane in every
//!   corpus map, both sides alike).
//! * **Primitives** (§24): a face with `numPrims > 0` is drawn by the engine from its primitives
//!   instead of a fan (`BuildMSurfacePrimIndices`): a triangle list (`kind` 0) or strip
//!   (`kind` 1) whose PrimIndices index the face's own vertex loop when the primitive has no
//!   PrimVerts (`vertCount == 0`, what vbsp writes to fix T-junctions), or the primitive's own
//!   PrimVerts otherwise. Each stored triangle is reversed like the fan (clockwise stored);
//!   degenerate strip triangles are dropped. These surfaces are [`SurfaceKind::TriangleSoup`].
//! * **UV0** (§10.1): `textureVecs · (pos, 1)` divided by the texdata's width and height, as
//!   stored (V grows downwards, the D3D/glTF image convention). A texdata without a positive
//!   size uses [`FALLBACK_TEXTURE_SIZE`] with a warning. Faces with texinfo −1 (§10.2) get an
//!   empty material name, the `tool` flag and zero UVs.
//! * **Flags** from texinfo flags (§10.1): `SURF_SKY`/`SURF_SKY2D` → sky, `SURF_NODRAW` →
//!   nodraw, `SURF_TRANS` → translucent, `SURF_WARP` → water, `SURF_HINT`/`SURF_SKIP` → tool,
//!   `SURF_TRIGGER` (0x40, set by vbsp on trigger faces) → trigger. Material names add
//!   (case-insensitively, the material system's rule): `tools/toolstrigger` → trigger;
//!   `tools/tools*clip*` (clip, playerclip, npcclip, grenadeclip, …) → clip; `tools/toolsnodraw`
//!   → nodraw; `tools/toolsskybox*` → sky; hint, skip, areaportal, occluder, origin, invisible,
//!   invisibleladder, blocklight, block_los, blockbullets, fog and skyfog tool textures → tool.
//!   Water is not guessed from names: water materials are compiled with `SURF_WARP`.
//! * **Displacements** (§15): a face with a dispinfo is built as its displacement grid, never as
//!   its base polygon. Power 2–4 (other values are skipped), `(2^p + 1)²` vertices from
//!   `DispVertStart`: the base quad is rotated so that the corner nearest `startPosition` comes
//!   first (`c0..c3`), row `i` / column `j` lie at `lerp(lerp(c0, c1, i/(n−1)), lerp(c3, c2,
//!   i/(n−1)), j/(n−1))` plus `vec · dist`. Each cell gets two triangles whose shared diagonal
//!   alternates in a checkerboard: cells whose first vertex index `i·n + j` is even split along
//!   `(i, j)–(i+1, j+1)`, odd ones along `(i+1, j)–(i, j+1)` (vbsp's `CCoreDispInfo` order),
//!   wound counter-clockwise about the base face's normal. UV0 comes from the undisplaced
//!   position (the engine interpolates the base corners' texture coordinates, which is the same
//!   affine map); normals are the area-weighted average of the grid triangles' normals; the
//!   per-vertex alpha (0–255) goes to the alpha of `colours` (RGB 255); the lightmap UV is the
//!   grid point `[j/(n−1), i/(n−1)]` of the base face's luxel rectangle
//!   ([`Lightmaps::uv_grid`]). Dota 2's records are used as the others where the map proves them
//!   ([`View::disp_infos_dota`]); where it does not ([`DispInfos::Unproven`]) its displacement
//!   faces are skipped with the reason.
//! * **Models** (§11, §13): model 0 is the world (placed at zero, entity `worldspawn`); model
//!   `N` is placed by the first entity whose `model` is `*N` (its `origin`, its `angles` or
//!   else its `angle` as yaw). Its name is `*N` followed by the entity's classname and
//!   targetname when there is one.
//! * **Static props** (§14.3): every `sprp` version the library reads
//!   ([`crate::lumps::staticprops`]); scale is 1 unless the layout has a uniform scale (v11+),
//!   and for v13's per-axis scale the largest axis (with a warning when they differ).
//!
//! Broken references (planes, surfedges, edges, vertices, texinfo, texdata, dispinfo, disp
//! verts, primitives) give a [`Skipped`] entry naming the face and the broken link; faces with
//! fewer than three edges are skipped with that reason. Buffers grow per surface; the only
//! scratch buffer (a face's corner loop) is reused across faces.

use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

use super::records::{v3, DispVert, Plane, Surfedge, TexInfo, Vertex};
use super::view::{DispInfos, Edges, FaceInfo, Faces, Indices, Primitives, View};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::error::Result;
use crate::lightmap::maps::{FaceEntry, Lightmaps};
use crate::lumps::gamelump::GameLumps;
use crate::mesh::place::{placements, read_entities, star_model, PlaceKeys};
use crate::mesh::scene::{
    Material, MaterialTable, MeshOptions, Model, ModelSelect, Prop, Scene, SceneBudget, Skipped, Surface, SurfaceFlags, SurfaceKind,
    FALLBACK_TEXTURE_SIZE,
};
use crate::vec3::{cross, dot, sub};

/// Texinfo surface flags (source.md §10.1).
pub const SURF_SKY2D: i32 = 0x2;
pub const SURF_SKY: i32 = 0x4;
pub const SURF_WARP: i32 = 0x8;
pub const SURF_TRANS: i32 = 0x10;
pub const SURF_TRIGGER: i32 = 0x40;
pub const SURF_NODRAW: i32 = 0x80;
pub const SURF_HINT: i32 = 0x100;
pub const SURF_SKIP: i32 = 0x200;

/// Primitive kinds (`PRIM_TRILIST`, `PRIM_TRISTRIP`, source.md §24).
const PRIM_TRILIST: u8 = 0;
const PRIM_TRISTRIP: u8 = 1;

/// The scene of a Source map.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    match bsp.endian() {
        Endian::Little => build_with::<LittleEndian>(bsp, opts),
        Endian::Big => build_with::<BigEndian>(bsp, opts),
    }
}

/// The scene flags a texinfo's flags give (module documentation).
pub fn texinfo_flags(flags: i32) -> SurfaceFlags {
    let mut out = SurfaceFlags::NONE;
    let pairs = [
        (SURF_SKY | SURF_SKY2D, SurfaceFlags::SKY),
        (SURF_NODRAW, SurfaceFlags::NODRAW),
        (SURF_TRANS, SurfaceFlags::TRANSLUCENT),
        (SURF_WARP, SurfaceFlags::WATER),
        (SURF_HINT | SURF_SKIP, SurfaceFlags::TOOL),
        (SURF_TRIGGER, SurfaceFlags::TRIGGER),
    ];
    for (bits, f) in pairs {
        if flags & bits != 0 {
            out |= f;
        }
    }
    out
}

/// The scene flags a material name gives (module documentation).
pub fn material_flags(name: &str) -> SurfaceFlags {
    let lower = name.to_ascii_lowercase().replace('\\', "/");
    let Some(tool) = lower.strip_prefix("tools/tools") else { return SurfaceFlags::NONE };
    const TOOLS: [&str; 12] = [
        "hint",
        "skip",
        "areaportal",
        "occluder",
        "origin",
        "invisible",
        "invisibleladder",
        "blocklight",
        "block_los",
        "blockbullets",
        "fog",
        "skyfog",
    ];
    if tool == "trigger" {
        SurfaceFlags::TRIGGER
    } else if tool.contains("clip") {
        SurfaceFlags::CLIP
    } else if tool == "nodraw" {
        SurfaceFlags::NODRAW
    } else if tool.starts_with("skybox") {
        SurfaceFlags::SKY
    } else if TOOLS.contains(&tool) {
        SurfaceFlags::TOOL
    } else {
        SurfaceFlags::NONE
    }
}

/// A texinfo resolved once: its material, flags and texture projection.
#[derive(Clone, Copy)]
struct Tex {
    material: u32,
    flags: SurfaceFlags,
    /// `textureVecs` already divided by the texture size.
    vecs: [[f32; 4]; 2],
}

impl Tex {
    fn uv(&self, p: [f32; 3]) -> [f32; 2] {
        let d = |r: &[f32; 4]| r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + r[3];
        [d(&self.vecs[0]), d(&self.vecs[1])]
    }
}

/// Primitives, prim indices and prim verts (lumps 37, 39, 38).
type PrimLumps<'a, O> = (Primitives<'a, O>, Indices<'a, O>, &'a [Vertex<O>]);

struct Ctx<'a, O: ByteOrder> {
    view: View<'a, O>,
    faces_lump: usize,
    faces: Faces<'a, O>,
    planes: &'a [Plane<O>],
    vertices: &'a [Vertex<O>],
    edges: Edges<'a, O>,
    surfedges: &'a [Surfedge<O>],
    texinfo: std::borrow::Cow<'a, [TexInfo<O>]>,
    /// `Err` holds why displacements cannot be read.
    disp_infos: std::result::Result<DispInfos<'a, O>, String>,
    disp_verts: std::result::Result<&'a [DispVert<O>], String>,
    prims: std::result::Result<PrimLumps<'a, O>, String>,
    lightmaps: Option<&'a Lightmaps>,
    /// Per texinfo: resolved once (`None` until first use).
    tex: Vec<Option<std::result::Result<Tex, String>>>,
    no_texinfo: Option<Tex>,
    table: MaterialTable,
    /// The face's corner loop, reused across faces.
    corners: Vec<[f32; 3]>,
    /// Faces already claimed by a model (a face in two models' ranges is skipped the second time).
    seen: Vec<bool>,
}

fn build_with<O: ByteOrder>(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    let view = View::<O>::new(bsp)?;
    // Source's vertex colours are only the displacements' blend alpha (RGB white).
    let mut scene = Scene { colours_alpha_only: true, ..Scene::default() };
    let faces = view.faces()?;
    let seen = vec![false; faces.len()];
    let why = |what: &str, e: crate::error::Error| format!("{what} unreadable: {e}");
    let mut ctx = Ctx {
        view: view.clone(),
        faces_lump: view.faces_lump(),
        faces,
        planes: view.planes()?,
        vertices: view.vertices()?,
        edges: view.edges()?,
        surfedges: view.surfedges()?,
        texinfo: view.texinfo()?,
        disp_infos: view.disp_infos().map_err(|e| why("dispinfo lump 26", e)),
        disp_verts: view.disp_verts().map_err(|e| why("disp verts lump 33", e)),
        prims: (|| Ok::<_, crate::error::Error>((view.primitives()?, view.prim_indices()?, view.prim_verts()?)))()
            .map_err(|e| why("primitive lumps 37–39", e)),
        lightmaps: opts.lightmaps,
        tex: Vec::new(),
        no_texinfo: None,
        table: MaterialTable::default(),
        corners: Vec::new(),
        seen,
    };
    // Output vertices and triangles still allowed, taken before each part of a face is pushed.
    let mut budget = SceneBudget::new(opts);
    ctx.tex = vec![None; ctx.texinfo.len()];

    let places = read_entities(bsp, &mut scene.warnings)
        .map(|e| placements(&e.list, PlaceKeys::OriginAnglesOrYaw, &mut scene.warnings, star_model))
        .unwrap_or_default();
    let models = view.models()?;
    for (mi, m) in models.iter().enumerate() {
        if opts.models == ModelSelect::World && mi > 0 {
            break;
        }
        let mut model = Model::placed(mi as u32, &places);
        let (first, count) = (m.firstface.get() as i64, m.numfaces.get() as i64);
        let total = ctx.faces.len() as i64;
        if first < 0 || count < 0 || first.saturating_add(count) > total {
            scene.warnings.push(format!("model {mi}: faces {first}..+{count} outside the {total} faces; the range is clipped"));
        }
        let (lo, hi) = (first.clamp(0, total), first.saturating_add(count.max(0)).clamp(0, total));
        ctx.reserve(&mut model, lo as usize..hi as usize, &budget)?;
        for fi in lo as usize..hi as usize {
            if let Err(reason) = ctx.face(&mut model, &mut scene, fi, &mut budget) {
                scene.skipped.push(Skipped { lump: ctx.faces_lump as u16, index: fi as u32, reason });
                budget.stop()?;
            }
        }
        if !model.vertices.colours.is_empty() {
            model.vertices.colours.resize(model.vertices.positions.len(), [255; 4]);
        }
        scene.models.push(model);
    }
    if !opts.no_props {
        props(bsp, &mut scene);
    }
    Ok(scene)
}

fn lerp(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

impl<'a, O: ByteOrder> Ctx<'a, O> {
    /// The material, flags and projection of texinfo `t` (−1: none).
    fn tex(&mut self, scene: &mut Scene, t: i64) -> std::result::Result<Tex, String> {
        if t == -1 {
            if let Some(x) = self.no_texinfo {
                return Ok(x);
            }
            let flags = SurfaceFlags::TOOL;
            let material = self.table.intern(&mut scene.materials, "", || Material { name: String::new(), flags, size: None });
            let x = Tex { material, flags, vecs: [[0.0; 4]; 2] };
            self.no_texinfo = Some(x);
            return Ok(x);
        }
        let Some(ti) = usize::try_from(t).ok().filter(|&i| i < self.texinfo.len()) else {
            return Err(format!("texinfo {t} is out of range ({} texinfos, lump 6)", self.texinfo.len()));
        };
        if let Some(r) = &self.tex[ti] {
            return r.clone();
        }
        let r = self.resolve(scene, ti);
        self.tex[ti] = Some(r.clone());
        r
    }

    fn resolve(&mut self, scene: &mut Scene, ti: usize) -> std::result::Result<Tex, String> {
        let info = &self.texinfo[ti];
        let td = info.texdata.get();
        let texdata =
            self.texdata(td).ok_or_else(|| format!("texinfo {ti}: texdata {td} is out of range or has no name (lumps 2, 43, 44)"))?;
        let (name, w, h) = texdata;
        let known = w > 0 && h > 0;
        let size = if known { [w as u32, h as u32] } else { FALLBACK_TEXTURE_SIZE };
        if !known {
            scene
                .warnings
                .push(format!("texdata {td} ({name}) has size {w}×{h}; UVs use {}×{}", FALLBACK_TEXTURE_SIZE[0], FALLBACK_TEXTURE_SIZE[1]));
        }
        let mflags = material_flags(&name);
        let material =
            self.table.intern(&mut scene.materials, &name, || Material { name: name.clone(), flags: mflags, size: known.then_some(size) });
        let tv = info.texture_vecs.map(|r| r.map(|c| c.get()));
        let (sw, sh) = (size[0] as f32, size[1] as f32);
        let vecs = [tv[0].map(|c| c / sw), tv[1].map(|c| c / sh)];
        Ok(Tex { material, flags: mflags | texinfo_flags(info.flags.get()), vecs })
    }

    /// `(name, width, height)` of texdata `td`.
    fn texdata(&self, td: i32) -> Option<(String, i32, i32)> {
        let i = usize::try_from(td).ok()?;
        let rec = self.view.texdata().ok()?.get(i)?;
        let name = self.view.texdata_name(i).ok()??;
        Some((name.to_string(), rec.width.get(), rec.height.get()))
    }

    /// Collect face `f`'s corner loop into `self.corners`.
    fn corners(&mut self, f: &FaceInfo) -> std::result::Result<(), String> {
        self.corners.clear();
        let (first, n) = (f.firstedge, f.numedges);
        let len = self.surfedges.len() as i64;
        if first < 0 || n < 0 || first.saturating_add(n) > len {
            return Err(format!("surfedges {first}..+{n} are outside the surfedge lump 13 ({len} surfedges)"));
        }
        for si in first as usize..(first + n) as usize {
            let se = self.surfedges[si].edge.get() as i64;
            let ei = se.unsigned_abs() as usize;
            let Some(e) = self.edges.get(ei) else {
                return Err(format!("surfedge {si} names edge {se}, outside the edge lump 12 ({} edges)", self.edges.len()));
            };
            let vi = if se < 0 { e[1] } else { e[0] } as usize;
            let Some(v) = self.vertices.get(vi) else {
                return Err(format!("edge {ei} names vertex {vi}, outside the vertex lump 3 ({} vertices)", self.vertices.len()));
            };
            self.corners.push(v3(&v.pos));
        }
        Ok(())
    }

    fn normal(&self, f: &FaceInfo) -> std::result::Result<[f32; 3], String> {
        let p = usize::try_from(f.planenum)
            .ok()
            .and_then(|p| self.planes.get(p))
            .ok_or_else(|| format!("plane {} is out of range (lump 1, {} planes)", f.planenum, self.planes.len()))?;
        Ok(v3(&p.normal))
    }

    /// Reserve `m`'s buffers once for the faces `range`, so they are not grown by doubling
    /// (up to twice the memory): a polygon's corners, a displacement's `(2^p + 1)²` vertices
    /// and `2·4^p` triangles. Bounded by the lumps the vertices come from (SURFEDGES, DISP_VERTS),
    /// which sound faces do not share, so a hostile face count reserves no more than the map holds,
    /// and by the scene budget.
    fn reserve(&self, m: &mut Model, range: std::ops::Range<usize>, budget: &SceneBudget) -> Result<()> {
        let (mut corners, mut polygons, mut disp_verts, mut disp_tris, mut faces) = (0usize, 0usize, 0usize, 0usize, 0usize);
        for f in range.filter_map(|fi| self.faces.get(fi)) {
            faces += 1;
            let power = match (&self.disp_infos, usize::try_from(f.dispinfo)) {
                (Ok(infos), Ok(d)) => infos.get(d).map(|r| r.power),
                _ => None,
            };
            match power.filter(|p| (2..=4).contains(p)) {
                Some(p) => {
                    disp_verts += ((1usize << p) + 1).pow(2);
                    disp_tris += 2 << (2 * p);
                }
                None => {
                    corners += usize::try_from(f.numedges).unwrap_or(0);
                    polygons += 1;
                }
            }
        }
        let corners = corners.min(self.surfedges.len());
        let disp_verts = disp_verts.min(self.disp_verts.as_ref().map_or(0, |v| v.len()));
        let disp_tris = disp_tris.min(2 * disp_verts);
        let triangles = corners.saturating_sub(2 * polygons) + disp_tris;
        let left = budget.vertices_left();
        m.reserve_exact((corners + disp_verts).min(left), triangles.min(left), faces, self.lightmaps.is_some(), disp_verts > 0)
    }

    fn face(&mut self, m: &mut Model, scene: &mut Scene, fi: usize, budget: &mut SceneBudget) -> std::result::Result<(), String> {
        let f = self.faces.get(fi).ok_or("face out of range")?;
        if std::mem::replace(&mut self.seen[fi], true) {
            return Err("face already claimed by an earlier model's face range (lump 14)".into());
        }
        if f.numedges < 3 && f.dispinfo == -1 {
            return Err(format!("face has {} edges (fewer than 3): nothing to draw", f.numedges));
        }
        let tex = self.tex(scene, f.texinfo)?;
        let normal = self.normal(&f)?;
        let (v0, i0) = (m.vertices.positions.len(), m.indices.len());
        let r = if f.dispinfo != -1 { self.displacement(m, &f, normal, tex, budget) } else { self.polygon(m, &f, normal, tex, budget) };
        let kind = match r {
            Ok(k) => k,
            Err(e) => {
                rollback(m, v0, i0);
                return Err(e);
            }
        };
        if u32::try_from(m.vertices.positions.len()).is_err() {
            rollback(m, v0, i0);
            return Err("the model has more than 2³² vertices".into());
        }
        let (v1, i1) = (m.vertices.positions.len(), m.indices.len());
        // Lightmap UVs: one per vertex of every surface once asked for.
        if let Some(lm) = self.lightmaps {
            let entry = lm.face(self.faces_lump as u16, fi as u32);
            m.lightmap_pages.push(entry.map_or(u32::MAX, |e| e.page));
            fill_uv1(m, lm, entry, kind, v0, v1);
        }
        if kind != SurfaceKind::Displacement && !m.vertices.colours.is_empty() {
            m.vertices.colours.resize(v1, [255; 4]);
        }
        m.surfaces.push(Surface {
            lump: self.faces_lump as u16,
            index: fi as u32,
            material: tex.material,
            flags: tex.flags,
            kind,
            vertex_kind: None,
            vertices: v0 as u32..v1 as u32,
            indices: i0 as u32..i1 as u32,
        });
        Ok(())
    }

    fn push(&self, m: &mut Model, p: [f32; 3], n: [f32; 3], tex: &Tex) {
        m.vertices.positions.push(p);
        m.vertices.normals.push(n);
        m.vertices.uv0.push(tex.uv(p));
    }

    fn polygon(
        &mut self,
        m: &mut Model,
        f: &FaceInfo,
        normal: [f32; 3],
        tex: Tex,
        budget: &mut SceneBudget,
    ) -> std::result::Result<SurfaceKind, String> {
        self.corners(f)?;
        let base = m.vertices.positions.len() as u32;
        let n = self.corners.len() as u32;
        // A fan's triangles, or none here when primitives give them (taken per primitive).
        let fan = if f.num_prims > 0 { 0 } else { self.corners.len().saturating_sub(2) };
        budget.take(self.corners.len(), fan)?;
        m.vertices.positions.reserve(self.corners.len());
        for i in 0..self.corners.len() {
            self.push(m, self.corners[i], normal, &tex);
        }
        if f.num_prims > 0 {
            self.primitives(m, f, base, n, normal, &tex, budget)?;
            return Ok(SurfaceKind::TriangleSoup);
        }
        m.indices.reserve(3 * (n as usize - 2));
        for i in 1..n - 1 {
            m.indices.extend_from_slice(&[base, base + i + 1, base + i]);
        }
        Ok(SurfaceKind::Polygon)
    }

    #[allow(clippy::too_many_arguments)]
    fn primitives(
        &self,
        m: &mut Model,
        f: &FaceInfo,
        base: u32,
        n: u32,
        normal: [f32; 3],
        tex: &Tex,
        budget: &mut SceneBudget,
    ) -> std::result::Result<(), String> {
        let (prims, indices, verts) = self.prims.as_ref().map_err(|e| e.clone())?;
        for pi in f.first_prim..f.first_prim.saturating_add(f.num_prims) {
            let (kind, [first, count, first_vert, vert_count]) = match prims {
                Primitives::Standard(p) => p.get(pi as usize).map(|r| r.kind),
                Primitives::Strata(p) => p.get(pi as usize).map(|r| r.kind),
            }
            .zip(prims.get(pi as usize))
            .ok_or_else(|| format!("primitive {pi} is out of range (lump 37, {} primitives)", prims.len()))?;
            // Primitives of a face may share index runs: each is taken from the budget first.
            budget.take(vert_count as usize, usize::try_from(count).unwrap_or(0))?;
            // Which vertices the indices name: the face loop, or the primitive's own PrimVerts.
            let (vbase, vn) = if vert_count > 0 {
                let own = usize::try_from(first_vert)
                    .ok()
                    .and_then(|s| verts.get(s..s.checked_add(vert_count as usize)?))
                    .ok_or_else(|| format!("primitive {pi}: prim verts {first_vert}..+{vert_count} outside lump 38 ({})", verts.len()))?;
                let vb = m.vertices.positions.len() as u32;
                for v in own {
                    self.push(m, v3(&v.pos), normal, tex);
                }
                (vb, vert_count as u32)
            } else {
                (base, n)
            };
            let end = first.saturating_add(count);
            if first < 0 || end > indices.len() as i64 {
                return Err(format!("primitive {pi}: prim indices {first}..+{count} outside lump 39 ({})", indices.len()));
            }
            let at = |k: i64| -> std::result::Result<u32, String> {
                let i = indices.get(k as usize).unwrap_or(u32::MAX);
                if i >= vn {
                    return Err(format!("primitive {pi}: prim index {k} names vertex {i} of {vn}"));
                }
                Ok(vbase + i)
            };
            match kind {
                PRIM_TRILIST => {
                    if count % 3 != 0 {
                        return Err(format!("primitive {pi}: triangle list of {count} indices"));
                    }
                    for t in (first..end).step_by(3) {
                        let (a, b, c) = (at(t)?, at(t + 1)?, at(t + 2)?);
                        m.indices.extend_from_slice(&[a, c, b]);
                    }
                }
                PRIM_TRISTRIP => {
                    for (k, t) in (first..end.saturating_sub(2)).enumerate() {
                        let (a, b, c) = (at(t)?, at(t + 1)?, at(t + 2)?);
                        if a == b || b == c || a == c {
                            continue;
                        }
                        // Odd strip triangles are stored the other way round.
                        m.indices.extend_from_slice(&if k % 2 == 0 { [a, c, b] } else { [a, b, c] });
                    }
                }
                k => return Err(format!("primitive {pi} has unknown kind {k}")),
            }
        }
        Ok(())
    }

    fn displacement(
        &mut self,
        m: &mut Model,
        f: &FaceInfo,
        normal: [f32; 3],
        tex: Tex,
        budget: &mut SceneBudget,
    ) -> std::result::Result<SurfaceKind, String> {
        let di = f.dispinfo;
        let infos = self.disp_infos.as_ref().map_err(|e| e.clone())?;
        let rec = usize::try_from(di).ok().and_then(|d| infos.get(d)).map(|r| (r.start_position, r.disp_vert_start, r.power));
        let (start, vstart, power) = match (rec, infos) {
            (Some(r), _) => r,
            (None, DispInfos::Unknown) => return Err(format!("dispinfo {di}: this branch's dispinfo layout is not known")),
            (None, DispInfos::Unproven(why)) => return Err(format!("dispinfo {di}: Dota 2 dispinfo not proven by the map ({why})")),
            (None, _) => return Err(format!("dispinfo {di} is out of range (lump 26, {} dispinfos)", infos.len())),
        };
        if !(2..=4).contains(&power) {
            return Err(format!("dispinfo {di} has power {power}, not 2–4"));
        }
        self.corners(f)?;
        if self.corners.len() != 4 {
            return Err(format!("dispinfo {di}: base face has {} corners, not 4", self.corners.len()));
        }
        let dverts = self.disp_verts.as_ref().map_err(|e| e.clone())?;
        let n = (1usize << power) + 1;
        let dv = usize::try_from(vstart)
            .ok()
            .and_then(|s| dverts.get(s..s.checked_add(n * n)?))
            .ok_or_else(|| format!("dispinfo {di}: disp verts {vstart}..+{} outside lump 33 ({})", n * n, dverts.len()))?;
        // The corner nearest startPosition comes first.
        let d2 = |p: [f32; 3]| {
            let d = sub(p, start);
            dot(d, d)
        };
        let first = (0..4).min_by(|&a, &b| d2(self.corners[a]).total_cmp(&d2(self.corners[b]))).unwrap_or(0);
        let c: [[f32; 3]; 4] = std::array::from_fn(|k| self.corners[(first + k) % 4]);
        budget.take(n * n, 2 * (n - 1) * (n - 1))?;
        let base = m.vertices.positions.len();
        m.vertices.colours.resize(base, [255; 4]);
        let span = (n - 1) as f32;
        for i in 0..n {
            let (a, b) = (lerp(c[0], c[1], i as f32 / span), lerp(c[3], c[2], i as f32 / span));
            for j in 0..n {
                let flat = lerp(a, b, j as f32 / span);
                let v = &dv[i * n + j];
                let (dir, dist) = (v3(&v.vec), v.dist.get());
                let p = [flat[0] + dir[0] * dist, flat[1] + dir[1] * dist, flat[2] + dir[2] * dist];
                m.vertices.positions.push(p);
                m.vertices.normals.push([0.0; 3]);
                m.vertices.uv0.push(tex.uv(flat));
                let alpha = v.alpha.get();
                let alpha = if alpha.is_finite() { alpha.clamp(0.0, 255.0).round() as u8 } else { 0 };
                m.vertices.colours.push([255, 255, 255, alpha]);
            }
        }
        // Winding: (i, j) → (i+1, j) → (i, j+1) turns about (c1 − c0) × (c3 − c0).
        let flip = dot(cross(sub(c[1], c[0]), sub(c[3], c[0])), normal) < 0.0;
        let b = base as u32;
        let w = n as u32;
        m.indices.reserve(6 * (n - 1) * (n - 1));
        for i in 0..w - 1 {
            for j in 0..w - 1 {
                let k = i * w + j;
                let tris = if k % 2 == 1 {
                    [[k, k + w, k + 1], [k + 1, k + w, k + w + 1]]
                } else {
                    [[k, k + w, k + w + 1], [k, k + w + 1, k + 1]]
                };
                for [x, y, z] in tris {
                    let t = if flip { [x, z, y] } else { [x, y, z] };
                    m.indices.extend_from_slice(&t.map(|v| v + b));
                }
            }
        }
        // Normals: area-weighted sum of the grid triangles' normals, normalised.
        let i0 = m.indices.len() - 6 * (n - 1) * (n - 1);
        for t in i0 / 3..m.indices.len() / 3 {
            let [x, y, z] = [m.indices[3 * t], m.indices[3 * t + 1], m.indices[3 * t + 2]].map(|v| v as usize);
            let p = &m.vertices.positions;
            let fnorm = cross(sub(p[y], p[x]), sub(p[z], p[x]));
            for v in [x, y, z] {
                let acc = &mut m.vertices.normals[v];
                for k in 0..3 {
                    acc[k] += fnorm[k];
                }
            }
        }
        for nv in &mut m.vertices.normals[base..] {
            let len = dot(*nv, *nv).sqrt();
            *nv = if len > 1e-12 && len.is_finite() { nv.map(|c| c / len) } else { normal };
        }
        Ok(SurfaceKind::Displacement)
    }
}

/// Undo a half-built surface.
fn rollback(m: &mut Model, v: usize, i: usize) {
    let vs = &mut m.vertices;
    vs.positions.truncate(v);
    vs.normals.truncate(v);
    vs.uv0.truncate(v);
    vs.colours.truncate(v.min(vs.colours.len()));
    m.indices.truncate(i);
}

/// Lightmap UVs of the surface's vertices `v0..v1` (zero without a lightmap).
fn fill_uv1(m: &mut Model, lm: &Lightmaps, entry: Option<&FaceEntry>, kind: SurfaceKind, v0: usize, v1: usize) {
    m.vertices.uv1.resize(v0, [0.0; 2]);
    match (entry, kind) {
        (Some(e), SurfaceKind::Displacement) => {
            let n = ((v1 - v0) as f64).sqrt().round() as usize;
            let span = (n.max(2) - 1) as f32;
            for k in 0..v1 - v0 {
                let (i, j) = (k / n, k % n);
                m.vertices.uv1.push(lm.uv_grid(e, [j as f32 / span, i as f32 / span]));
            }
        }
        (Some(e), _) => {
            for k in v0..v1 {
                let p = m.vertices.positions[k];
                m.vertices.uv1.push(lm.uv(e, p).unwrap_or([0.0; 2]));
            }
        }
        (None, _) => m.vertices.uv1.resize(v1, [0.0; 2]),
    }
}

/// Static props of the `sprp` game lump (module documentation).
fn props(bsp: &Bsp, scene: &mut Scene) {
    let sp = match GameLumps::of(bsp).and_then(|g| g.static_props()) {
        Ok(Some(sp)) => sp,
        Ok(None) => return,
        Err(e) => {
            scene.warnings.push(format!("static props unreadable (lump 35): {e}"));
            return;
        }
    };
    let list = match sp.props() {
        Ok(l) => l,
        Err(e) => {
            scene.warnings.push(format!("static props left out (sprp v{}): {e}", sp.version));
            return;
        }
    };
    scene.props.reserve(list.len());
    let mut uneven = 0usize;
    for p in list {
        let scale = match (p.uniform_scale, p.scale) {
            (_, Some(s)) => {
                if s[0] != s[1] || s[1] != s[2] {
                    uneven += 1;
                }
                s.into_iter().fold(f32::MIN, f32::max)
            }
            (Some(s), None) => s,
            (None, None) => 1.0,
        };
        scene.props.push(Prop {
            model: p.model_name.clone().unwrap_or_default(),
            origin: p.origin,
            angles: p.angles,
            scale,
            skin: p.skin,
            solid: p.solid as i32,
            fade: Some([p.fade_min, p.fade_max]),
            lighting_origin: Some(p.lighting_origin),
        });
    }
    if uneven > 0 {
        scene.warnings.push(format!("{uneven} static props have a per-axis scale; their largest axis is used"));
    }
}
