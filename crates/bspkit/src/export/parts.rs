//! The pieces both writers share: the summary, the grouping of a scene into primitives, the
//! frame conversion, the texture cache and file helpers (kept apart from the module's driver so
//! the writers depend on them without depending on the driver).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::assets::{AlphaMode, ImageRgba};
use crate::error::Result;
use crate::lightmap::Lightmaps;
use crate::mesh::{Model, Scene, SurfaceFlags};
use crate::texture::TextureCache;
use crate::write::set::ByteBudget;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Binary glTF: one file, images inside.
    Glb,
    /// glTF JSON with a `.bin` buffer and PNG images beside it.
    Gltf,
    /// Wavefront OBJ + MTL with PNG images beside it (no lightmaps, no props).
    Obj,
}

impl Format {
    /// The format a file name asks for by its extension.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "glb" => Some(Format::Glb),
            "gltf" => Some(Format::Gltf),
            "obj" => Some(Format::Obj),
            _ => None,
        }
    }
}

/// A face left out, as the summary lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SkippedFace {
    pub lump: u16,
    pub index: u32,
    pub reason: String,
}

/// A file written.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OutputFile {
    pub path: String,
    pub bytes: u64,
}

/// What an export wrote (the `--json` output of `bsp export`; schema in README.md).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    pub format: Option<Format>,
    /// Models (nodes with geometry or without) written.
    pub models: usize,
    /// Surfaces written (after skipping).
    pub surfaces: usize,
    pub triangles: usize,
    pub vertices: usize,
    /// Materials written (glTF: per material × lightmap page).
    pub materials: usize,
    /// Textures found and embedded / written.
    pub textures: usize,
    /// Textures replaced by the checker placeholder.
    pub placeholder_textures: usize,
    pub lightmap_pages: usize,
    /// The map's lightmaps are black placeholders ([`Lightmaps::is_placeholder`]): the pages
    /// are written as stored, each lit material says `extras.lightmap_placeholder: true`, and
    /// a viewer should shade the map from its normals rather than multiply by them.
    pub lightmap_placeholder: bool,
    /// Images of other light styles and bump layers embedded ([`LIGHTMAP_EXTRAS`]).
    pub lightmap_style_images: usize,
    pub props: usize,
    /// Faces the scene could not mesh (broken references), with lump, index and reason.
    pub skipped: Vec<SkippedFace>,
    /// Surfaces left out by the skip set, per flag name (a surface with two flags counts twice).
    pub skipped_by_flag: BTreeMap<String, usize>,
    /// Surfaces left out by the skip set.
    pub skipped_surfaces: usize,
    pub warnings: Vec<String>,
    pub files: Vec<OutputFile>,
}

/// One material of the output: a scene material on one lightmap page.
#[derive(Debug, Clone)]
pub(crate) struct OutMaterial {
    pub material: u32,
    /// Lightmap page, `u32::MAX` for none.
    pub page: u32,
    /// The surface kinds of its surfaces (surface and material flags; the glTF writer puts
    /// their names in the material's `extras.surface_flags`, so a viewer can hide sky or clips).
    pub flags: SurfaceFlags,
}

/// One primitive: a model's surfaces of one output material. Its vertices are numbered in
/// order of first use by its kept triangles.
#[derive(Debug, Clone)]
pub(crate) struct Prim {
    pub material: usize,
    /// Output vertices and triangle indices.
    pub vertex_count: usize,
    pub index_count: usize,
    layout: PrimLayout,
}

/// How a primitive's vertex numbers and indices are had.
#[derive(Debug, Clone)]
enum PrimLayout {
    /// Worked out again by each writer's pass from the surfaces (numbers into the model's
    /// surfaces, in output order, each with its [`FirstUse`] in the top two bits): the model's
    /// surfaces index only their own vertices, so a vertex's output number follows from its
    /// surface alone. Copies of a large map's indices and vertex numbers are megabytes at the
    /// export's peak; this keeps 4 bytes per surface.
    Surfaces(Vec<u32>),
    /// Copied: for a model whose surfaces share vertices. `order` holds model vertex numbers in
    /// output order, `indices` the triangles' indices into `order`.
    Copied { order: Vec<u32>, indices: Vec<u32> },
}

/// What [`Prim::walk`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    /// Model vertex numbers in output order.
    Vertices,
    /// Triangle indices into the output vertices (a batch holds whole triangles).
    Indices,
}

/// The order in which a surface's kept triangles first use its vertices, when it is one the
/// builders make (every vertex used): kept in the top two bits of the surface's entry in
/// [`PrimLayout::Surfaces`], so the walk numbers its vertices by formula instead of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FirstUse {
    /// Any other order: renumbered by a scan of the triangles.
    Scanned = 0,
    /// 0, 1, 2, …: a fan from the first corner wound as stored (Quake 2), a grid row by row.
    InOrder = 1,
    /// 0, 2, 1, 3, …: a fan from the first corner wound the other way (Source faces).
    SecondAndThirdSwapped = 2,
    /// m−1, 0, 1, …: ear clipping of a convex face (Quake 1), a fan from the last corner.
    LastFirst = 3,
}

const FIRST_USE_SHIFT: u32 = 30;
const SURFACE_BITS: u32 = (1 << FIRST_USE_SHIFT) - 1;

impl FirstUse {
    const ALL: [FirstUse; 3] = [FirstUse::InOrder, FirstUse::SecondAndThirdSwapped, FirstUse::LastFirst];

    fn of(entry: u32) -> FirstUse {
        match entry >> FIRST_USE_SHIFT {
            1 => FirstUse::InOrder,
            2 => FirstUse::SecondAndThirdSwapped,
            3 => FirstUse::LastFirst,
            _ => FirstUse::Scanned,
        }
    }
    /// The offset in the surface of the `k`-th vertex first used, of `m`.
    fn offset(self, k: u32, m: u32) -> u32 {
        match self {
            FirstUse::Scanned | FirstUse::InOrder => k,
            FirstUse::SecondAndThirdSwapped => match k {
                1 => 2,
                2 => 1,
                _ => k,
            },
            FirstUse::LastFirst => {
                if k == 0 {
                    m - 1
                } else {
                    k - 1
                }
            }
        }
    }
    /// The output number (from the surface's first) of the vertex at `offset`, of `m`: the
    /// inverse of [`Self::offset`].
    fn number(self, offset: u32, m: u32) -> u32 {
        match self {
            FirstUse::LastFirst => {
                if offset == m - 1 {
                    0
                } else {
                    offset + 1
                }
            }
            // The others are their own inverses.
            _ => self.offset(offset, m),
        }
    }
}

/// Items per batch handed to a [`Prim::walk`] callback (a multiple of 3: whole triangles).
const WALK_BATCH: usize = 3 * 5461;

/// Hand `batch` to `f` and empty it when another triangle might not fit in it.
fn flush_full(batch: &mut Vec<u32>, f: &mut dyn FnMut(&[u32]) -> std::io::Result<()>) -> std::io::Result<()> {
    if batch.len() + 3 > WALK_BATCH {
        f(batch)?;
        batch.clear();
    }
    Ok(())
}

/// A triangle the writers keep: indices inside the model's `n` vertices, three different ones.
fn kept(t: &[u32], n: usize) -> bool {
    t.iter().all(|&i| (i as usize) < n) && t[0] != t[1] && t[1] != t[2] && t[0] != t[2]
}

impl Prim {
    /// Call `f` with the primitive's vertex numbers or indices (`what`), in output order, in
    /// batches (no copy of a whole primitive is made). The writers' callbacks write, hence the
    /// I/O error.
    /// [`Self::walk`], one vertex number or index at a time (`f` is generic, so the per-item
    /// call is inlined into the batch loop rather than made through a pointer).
    pub(crate) fn each(&self, m: &Model, what: Walk, mut f: impl FnMut(u32) -> std::io::Result<()>) -> std::io::Result<()> {
        self.walk(m, what, &mut |batch| batch.iter().try_for_each(|&i| f(i)))
    }

    pub(crate) fn walk(&self, m: &Model, what: Walk, f: &mut dyn FnMut(&[u32]) -> std::io::Result<()>) -> std::io::Result<()> {
        let surfaces = match &self.layout {
            PrimLayout::Copied { order, indices } => return f(if what == Walk::Vertices { order } else { indices }),
            PrimLayout::Surfaces(s) => s,
        };
        let n = m.vertices.len();
        let mut batch = Vec::with_capacity(WALK_BATCH.min(if what == Walk::Vertices { self.vertex_count } else { self.index_count }));
        // Output number of each vertex of the current surface (u32::MAX: not used yet).
        let mut local: Vec<u32> = Vec::new();
        let mut next = 0u32;
        for &entry in surfaces {
            let s = &m.surfaces[(entry & SURFACE_BITS) as usize];
            let idx = &m.indices[s.indices.start as usize..s.indices.end as usize];
            let order = FirstUse::of(entry);
            if order != FirstUse::Scanned {
                // Every vertex of the surface is used, in a known order: numbers by formula.
                let (start, len) = (s.vertices.start, s.vertices.len() as u32);
                match what {
                    Walk::Vertices => {
                        for k in 0..len {
                            batch.push(start + order.offset(k, len));
                            flush_full(&mut batch, f)?;
                        }
                    }
                    Walk::Indices => {
                        for t in idx.chunks_exact(3).filter(|t| kept(t, n)) {
                            batch.extend(t.iter().map(|&i| next + order.number(i - start, len)));
                            flush_full(&mut batch, f)?;
                        }
                    }
                }
                next += len;
                continue;
            }
            local.clear();
            local.resize(s.vertices.len(), u32::MAX);
            for t in idx.chunks_exact(3).filter(|t| kept(t, n)) {
                for &i in t {
                    let slot = &mut local[(i - s.vertices.start) as usize];
                    if *slot == u32::MAX {
                        *slot = next;
                        next += 1;
                        if what == Walk::Vertices {
                            batch.push(i);
                        }
                    }
                    if what == Walk::Indices {
                        batch.push(*slot);
                    }
                }
                flush_full(&mut batch, f)?;
            }
        }
        if !batch.is_empty() {
            f(&batch)?;
        }
        Ok(())
    }
}

impl Prim {
    /// The faces of the primitive's index buffer, in order: `(lump, [face, index count, face,
    /// index count, …])` (the counts add up to [`Prim::index_count`]), so a viewer can draw a
    /// subset of faces (PVS culling); `None` when the primitive's triangles are not kept per
    /// surface (shared vertices) or its surfaces come from more than one lump.
    pub(crate) fn face_ranges(&self, m: &Model) -> Option<(u16, Vec<u32>)> {
        let PrimLayout::Surfaces(surfaces) = &self.layout else { return None };
        let n = m.vertices.len();
        let lump = m.surfaces.get((*surfaces.first()? & SURFACE_BITS) as usize)?.lump;
        let mut out = Vec::with_capacity(surfaces.len() * 2);
        for &entry in surfaces {
            let s = m.surfaces.get((entry & SURFACE_BITS) as usize)?;
            if s.lump != lump {
                return None;
            }
            let idx = m.indices.get(s.indices.start as usize..s.indices.end as usize)?;
            out.extend([s.index, idx.chunks_exact(3).filter(|t| kept(t, n)).count() as u32 * 3]);
        }
        Some((lump, out))
    }
}

/// A scene grouped for writing.
pub(crate) struct Prepared<'s> {
    pub scene: &'s Scene,
    /// Per model: its primitives.
    pub prims: Vec<Vec<Prim>>,
    pub materials: Vec<OutMaterial>,
    pub uv1: bool,
    pub colours: bool,
}

/// Group each model's surfaces by output material, leave out the skipped ones, and number the
/// vertices each primitive uses.
pub(crate) fn prepare<'s>(scene: &'s Scene, skip: SurfaceFlags, lightmaps: bool, summary: &mut Summary) -> Prepared<'s> {
    let mut materials: Vec<OutMaterial> = Vec::new();
    // Surfaces of one material with different flags (a Quake 2 texinfo's, a Source face's) go
    // to different output materials, so each output material has one set of kinds.
    let mut by_key: HashMap<(u32, u32, u32), usize> = HashMap::new();
    let mut prims = Vec::with_capacity(scene.models.len());
    let uv1 = lightmaps && scene.models.iter().any(|m| !m.vertices.uv1.is_empty());
    let colours = scene.models.iter().any(|m| !m.vertices.colours.is_empty());
    let mut dropped = 0usize;
    for m in &scene.models {
        let n = m.vertices.len();
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (si, s) in m.surfaces.iter().enumerate() {
            let mat_flags = scene.material(s.material).map_or(SurfaceFlags::NONE, |x| x.flags);
            let flags = s.flags | mat_flags;
            if flags.intersects(skip) {
                summary.skipped_surfaces += 1;
                for name in SurfaceFlags(flags.0 & skip.0).names() {
                    *summary.skipped_by_flag.entry(name.to_string()).or_default() += 1;
                }
                continue;
            }
            let page = if uv1 { m.lightmap_pages.get(si).copied().unwrap_or(u32::MAX) } else { u32::MAX };
            let key = (s.material, page, flags.0);
            let out = *by_key.entry(key).or_insert_with(|| {
                materials.push(OutMaterial { material: s.material, page, flags });
                materials.len() - 1
            });
            groups.entry(out).or_default().push(si);
        }
        // Do the model's surfaces own disjoint runs of vertices, in order, and index only their
        // own (every family's builder makes them so)? Then primitives keep surface numbers, not
        // copies (`PrimLayout`), and number the vertices as the copies would.
        let local = m.surfaces.len() <= SURFACE_BITS as usize
            && m.surfaces.windows(2).all(|w| w[0].vertices.end <= w[1].vertices.start)
            && m.surfaces.iter().all(|s| {
                let (v, range) = (&s.vertices, s.indices.start as usize..s.indices.end as usize);
                v.end as usize <= n
                    && m.indices.get(range).is_some_and(|idx| idx.chunks_exact(3).filter(|t| kept(t, n)).flatten().all(|i| v.contains(i)))
            });
        let mut remap = if local { Vec::new() } else { vec![u32::MAX; n] };
        let mut seen: Vec<bool> = Vec::new();
        let mut list = Vec::new();
        for (material, surfaces) in groups {
            // Counted for the surfaces layout; the copies' lengths otherwise.
            let (mut vertex_count, mut index_count) = (0usize, 0usize);
            let (mut order, mut indices, mut kept_surfaces) = (Vec::new(), Vec::new(), Vec::new());
            if !local {
                // Sized from the surfaces' ranges (an upper bound: broken triangles are left
                // out), so the copies never grow by doubling.
                let (corners, total) = surfaces.iter().fold((0usize, 0usize), |(v, i), &si| {
                    let s = &m.surfaces[si];
                    (v + s.vertices.len(), i + s.indices.len())
                });
                order.reserve_exact(corners.min(n));
                indices.reserve_exact(total.min(m.indices.len()));
            }
            let mut any = false;
            for &si in &surfaces {
                let s = &m.surfaces[si];
                let Some(idx) = m.indices.get(s.indices.start as usize..s.indices.end as usize) else {
                    dropped += 1;
                    continue;
                };
                if local {
                    // Count what `Prim::walk` will give: each kept triangle's indices, and the
                    // surface's vertices they use.
                    seen.clear();
                    seen.resize(s.vertices.len(), false);
                    // Which known first-use orders the surface still follows.
                    let mut follows = FirstUse::ALL.map(|_| true);
                    let (mut k, len) = (0u32, s.vertices.len() as u32);
                    for t in idx.chunks_exact(3) {
                        if !kept(t, n) {
                            dropped += 1;
                            continue;
                        }
                        index_count += 3;
                        for &i in t {
                            let offset = i - s.vertices.start;
                            if !seen[offset as usize] {
                                seen[offset as usize] = true;
                                vertex_count += 1;
                                for (f, order) in follows.iter_mut().zip(FirstUse::ALL) {
                                    *f &= offset == order.offset(k, len);
                                }
                                k += 1;
                            }
                        }
                    }
                    let order = match FirstUse::ALL.iter().zip(follows).find(|(_, f)| *f) {
                        Some((&order, _)) if k == len && len >= 3 => order,
                        _ => FirstUse::Scanned,
                    };
                    kept_surfaces.push(si as u32 | (order as u32) << FIRST_USE_SHIFT);
                } else {
                    for t in idx.chunks_exact(3) {
                        if !kept(t, n) {
                            dropped += 1;
                            continue;
                        }
                        for &i in t {
                            if remap[i as usize] == u32::MAX {
                                remap[i as usize] = order.len() as u32;
                                order.push(i);
                            }
                            indices.push(remap[i as usize]);
                        }
                    }
                }
                any = true;
                summary.surfaces += 1;
            }
            let layout = if local {
                PrimLayout::Surfaces(kept_surfaces)
            } else {
                for &i in &order {
                    remap[i as usize] = u32::MAX;
                }
                (vertex_count, index_count) = (order.len(), indices.len());
                PrimLayout::Copied { order, indices }
            };
            let p = Prim { material, vertex_count, index_count, layout };
            if any && p.index_count > 0 {
                summary.triangles += p.index_count / 3;
                summary.vertices += p.vertex_count;
                list.push(p);
            }
        }
        prims.push(list);
    }
    if dropped > 0 {
        summary.warnings.push(format!("{dropped} triangles with repeated or out-of-range indices left out"));
    }
    // Materials no primitive kept (a material whose only surfaces had no triangles) stay in
    // the table unused; the writers write only the used ones.
    Prepared { scene, prims, materials, uv1, colours }
}

/// Game frame (Z up) to output frame (Y up), scaled.
/// Names made unique case-insensitively (files on case-insensitive file systems): a repeat
/// gets `~2`, `~3`, … before its extension (`m_ab_c~2.png`, so OBJ's `map_Kd` and viewers still
/// see a `.png`), skipping any candidate already taken by another name.
#[derive(Debug, Default)]
pub(crate) struct UniqueNames {
    taken: std::collections::HashSet<String>,
}

impl UniqueNames {
    pub(crate) fn get(&mut self, name: String) -> String {
        if self.taken.insert(name.to_ascii_lowercase()) {
            return name;
        }
        let (stem, ext) = match name.rfind('.') {
            Some(i) if i > 0 => name.split_at(i),
            _ => (name.as_str(), ""),
        };
        (2..).map(|n| format!("{stem}~{n}{ext}")).find(|c| self.taken.insert(c.to_ascii_lowercase())).expect("an unused number exists")
    }
}

pub(crate) fn to_y_up(p: [f32; 3], scale: f32) -> [f32; 3] {
    [p[0] * scale, p[2] * scale, -p[1] * scale]
}

/// A unit normal in the output frame; `None` when it has no direction.
pub(crate) fn normal_y_up(n: [f32; 3]) -> Option<[f32; 3]> {
    let v = [n[0] as f64, n[2] as f64, -(n[1] as f64)];
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if !(l.is_finite() && l > 1e-6) {
        return None;
    }
    Some(v.map(|c| (c / l) as f32))
}

/// The rotation of (pitch, yaw, roll) degrees as a unit quaternion `[x, y, z, w]` in the output
/// frame.
pub(crate) fn rotation_y_up(angles: [f32; 3]) -> [f32; 4] {
    let half = |deg: f32| (deg as f64).to_radians() / 2.0;
    // Game frame: q = qz(yaw) · qy(pitch) · qx(roll).
    let q = |axis: usize, a: f64| {
        let mut v = [0.0, 0.0, 0.0, a.cos()];
        v[axis] = a.sin();
        v
    };
    let mul = |a: [f64; 4], b: [f64; 4]| {
        [
            a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
            a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
            a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
        ]
    };
    let g = mul(mul(q(2, half(angles[1])), q(1, half(angles[0]))), q(0, half(angles[2])));
    // The frame change (x, y, z) → (x, z, −y) is a proper rotation, so the quaternion's vector
    // part maps like a vector.
    let o = [g[0], g[2], -g[1], g[3]];
    let l = o.iter().map(|c| c * c).sum::<f64>().sqrt();
    if !(l.is_finite() && l > 0.0) {
        return [0.0, 0.0, 0.0, 1.0];
    }
    o.map(|c| (c / l) as f32)
}

/// The image of one output material's texture, and what to tell about it.
pub(crate) struct MaterialImage {
    pub png: Vec<u8>,
    pub alpha: AlphaMode,
    pub placeholder: bool,
}

/// A texture as the export keeps it: its PNG, not its pixels (the cache keeps its size).
struct Encoded {
    png: Vec<u8>,
    alpha: AlphaMode,
}

/// The export's textures: each is resolved once, encoded to PNG at once and its decoded pixels
/// let go ([`TextureCache::take`]), so the decoded images of a whole map, several times the size
/// of their PNGs, are never held together. The mesh asks for sizes first (its UVs), the writer
/// for each used material's PNG after.
pub(crate) struct TexturePngs<'a> {
    cache: TextureCache<'a>,
    /// Per name: the PNG, or the warning that goes with the placeholder.
    done: std::cell::RefCell<HashMap<String, std::result::Result<Encoded, String>>>,
}

impl<'a> TexturePngs<'a> {
    pub fn new(cache: TextureCache<'a>) -> Self {
        TexturePngs { cache, done: Default::default() }
    }
    pub fn source(&self) -> &crate::texture::TextureSource<'a> {
        &self.cache.source
    }
    fn encode(&self, name: &str) {
        if self.done.borrow().contains_key(name) {
            return;
        }
        let r = match self.cache.take(name) {
            Ok(t) => match t.image().encode_png() {
                Ok(png) => Ok(Encoded { png, alpha: t.alpha }),
                // A decoded image PNG cannot hold (a zero side): still never an error.
                Err(e) => Err(format!("{name} ({}): {e}; a checker placeholder is used", t.source)),
            },
            Err(m) => Err(format!("{m}; a checker placeholder is used")),
        };
        self.done.borrow_mut().insert(name.to_owned(), r);
    }
    /// The size of texture `name`, when it is found and encodes.
    pub fn size(&self, name: &str) -> Option<[u32; 2]> {
        self.encode(name);
        let encoded = self.done.borrow().get(name).is_some_and(|r| r.is_ok());
        encoded.then(|| self.cache.size(name)).flatten()
    }
    /// The PNG of texture `name`, or the checker placeholder (with a warning). Each material's
    /// image is asked for once: the PNG is handed over.
    pub fn material_image(&self, name: &str, warnings: &mut Vec<String>) -> Result<MaterialImage> {
        self.encode(name);
        let r = self.done.borrow_mut().get_mut(name).map(|r| match r {
            Ok(e) => Ok((std::mem::take(&mut e.png), e.alpha)),
            Err(w) => Err(w.clone()),
        });
        match r {
            Some(Ok((png, alpha))) if !png.is_empty() => Ok(MaterialImage { png, alpha, placeholder: false }),
            Some(Err(w)) => {
                warnings.push(w);
                Ok(MaterialImage { png: ImageRgba::checker_png()?, alpha: AlphaMode::Opaque, placeholder: true })
            }
            // Asked for twice: encoded again (the first PNG went to the writer).
            _ => {
                self.done.borrow_mut().remove(name);
                self.material_image(name, warnings)
            }
        }
    }
}

/// The image of lightmap page `page` the glTF shows (style 0 when it has one, layer 0).
pub(crate) fn lightmap_atlas(lm: &Lightmaps, page: u32) -> Option<&crate::lightmap::Atlas> {
    lm.atlas(page, 0, 0).or_else(|| lm.atlases.iter().find(|a| a.page == page && a.layer == 0))
}

/// The schema of a material's `extras.lightmap`, written when `ExportOptions::light_styles`
/// or `ExportOptions::bump_layers` embeds more than the page's base image (docs/gltf-light-styles.md):
///
/// ```json
/// "extras": {"lightmap": {"page": 0, "style": 0, "images": [{"style": 32, "layer": 0, "texture": 7}]}}
/// ```
///
/// `page` is the lightmap page the material's `TEXCOORD_1` points into; `style` the light style
/// of its `occlusionTexture` (layer 0: style 0, or the page's lowest style when it has no
/// style 0); each `images` entry a glTF texture index of the same page for another `(style,
/// layer)`, same size and same UVs. Texels of faces without that style are black, so a viewer
/// draws the light of styles `s` with gains `g(s)` as `Σ g(s) × image(s)` (8-bit images, read
/// as stored, as engines add styles before their overbright scale). Layer 1–3: Source's bump
/// directions, in the order of the game's bump basis.
pub const LIGHTMAP_EXTRAS: &str = "lightmap";

/// A lightmap page's images besides its base one ([`lightmap_atlas`]), for
/// [`LIGHTMAP_EXTRAS`].
#[derive(Debug, Clone, Default)]
pub(crate) struct PageExtras {
    /// The light style of the base image.
    pub base_style: u8,
    /// `(style, layer, PNG)`, sorted by style then layer.
    pub images: Vec<(u8, u8, Vec<u8>)>,
}

/// The other images of `page`: styles other than the base's (`styles`) and, of the styles kept,
/// bump layers 1–3 (`layers`); `None` when there are none.
pub(crate) fn page_extras(lm: &Lightmaps, page: u32, styles: bool, layers: bool) -> Result<Option<PageExtras>> {
    let Some(base) = lightmap_atlas(lm, page) else { return Ok(None) };
    let mut keep: Vec<&crate::lightmap::Atlas> = lm
        .atlases
        .iter()
        .filter(|a| a.page == page && !(a.style == base.style && a.layer == 0))
        .filter(|a| (styles || a.style == base.style) && (layers || a.layer == 0))
        .collect();
    if keep.is_empty() {
        return Ok(None);
    }
    keep.sort_by_key(|a| (a.style, a.layer));
    let images = keep.into_iter().map(|a| Ok((a.style, a.layer, lm.atlas_png(a)?))).collect::<Result<_>>()?;
    Ok(Some(PageExtras { base_style: base.style, images }))
}

/// The PNG of lightmap page `page` ([`lightmap_atlas`]).
pub(crate) fn lightmap_png(lm: &Lightmaps, page: u32) -> Result<Option<Vec<u8>>> {
    let Some(a) = lightmap_atlas(lm, page) else {
        return Ok(None);
    };
    lm.atlas_png(a).map(Some)
}

/// sRGB-encoded `v` (0..1) to linear light (IEC 61966-2-1).
fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// [`crate::export::LightmapMode::Vertex`]'s `COLOR_0`, per model and vertex: on a surface on
/// a lightmap page, the page sampled at the vertex's `uv1` times `overbright` (the gamma-space
/// multiplier of byte 255), clamped to 1 and made linear — engines multiply texture and light
/// in gamma space, a glTF viewer multiplies linear values, and for a power-law gamma
/// lin(t × l) = lin(t) × lin(l) — times the vertex's own colour where the map has one. Other
/// vertices keep their own colour, or white.
pub(crate) fn vertex_light(scene: &Scene, pages: &HashMap<u32, crate::lightmap::LightPage<'_>>, overbright: f32) -> Vec<Vec<[u8; 4]>> {
    let byte = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    scene
        .models
        .iter()
        .map(|m| {
            let v = &m.vertices;
            let mut out: Vec<[u8; 4]> = (0..v.positions.len()).map(|i| v.colours.get(i).copied().unwrap_or([255; 4])).collect();
            if v.uv1.len() != v.positions.len() {
                return out;
            }
            for (si, s) in m.surfaces.iter().enumerate() {
                let Some(page) = m.lightmap_pages.get(si).and_then(|p| pages.get(p)) else { continue };
                let end = (s.vertices.end as usize).min(out.len());
                let start = (s.vertices.start as usize).min(end);
                for (own, &[u, w]) in out[start..end].iter_mut().zip(&v.uv1[start..end]) {
                    let l = page.sample(u, w).map(|c| srgb_to_linear((c / 255.0 * overbright).min(1.0)));
                    *own = [
                        byte(l[0] * own[0] as f32 / 255.0),
                        byte(l[1] * own[1] as f32 / 255.0),
                        byte(l[2] * own[2] as f32 / 255.0),
                        own[3],
                    ];
                }
            }
            out
        })
        .collect()
}

/// A name usable in a file name: letters, digits, `-`, `_`, `.`; the rest as `_`.
pub(crate) fn file_safe(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    let s = s.trim_matches('.').to_string();
    if s.is_empty() {
        "_".into()
    } else {
        s
    }
}

/// What the writers need besides the scene.
pub(crate) struct WriteContext<'c, 'a> {
    pub textures: Option<&'c TexturePngs<'a>>,
    /// PNG of each lightmap page (lightmaps on, occlusion mode).
    pub lightmaps: Option<&'c HashMap<u32, Vec<u8>>>,
    /// Per lightmap page, its other light styles' and bump layers' PNGs
    /// (`ExportOptions::light_styles`); empty when not asked for.
    pub lightmap_extras: &'c HashMap<u32, PageExtras>,
    /// The lightmaps are placeholders ([`Summary::lightmap_placeholder`]): lit materials say so.
    pub lightmap_placeholder: bool,
    /// (scene material, page) pairs whose faces are all bump-mapped ([`bump_materials`]): their
    /// materials say `extras.bump_layers: true` (bump layers asked for only).
    pub bumped: &'c std::collections::HashSet<(u32, u32)>,
    /// Write each primitive's faces ([`Prim::face_ranges`]) into its `extras.faces`.
    pub face_ranges: bool,
    /// `COLOR_0` per model and vertex with the lighting baked in (vertex mode, [`vertex_light`]).
    pub vertex_light: Option<&'c [Vec<[u8; 4]>]>,
    pub scale: f32,
    /// What the command may write, every file together.
    pub budget: &'c ByteBudget,
}

/// The (scene material, lightmap page) pairs every surface of which is a bump-mapped face (four
/// lightmap layers: Source faces of a bump-lit texinfo): only there do the page's bump-layer
/// images hold the surfaces' light (other faces' texels are zero in them).
pub(crate) fn bump_materials(scene: &Scene, lm: &Lightmaps) -> std::collections::HashSet<(u32, u32)> {
    let mut all: HashMap<(u32, u32), bool> = HashMap::new();
    for m in &scene.models {
        for (si, s) in m.surfaces.iter().enumerate() {
            let Some(&page) = m.lightmap_pages.get(si).filter(|&&p| p != u32::MAX) else { continue };
            let bump = lm.face(s.lump, s.index).is_some_and(|f| f.layers == 4);
            *all.entry((s.material, page)).or_insert(true) &= bump;
        }
    }
    all.into_iter().filter(|&(_, b)| b).map(|(k, _)| k).collect()
}

/// Write `path` through the library's one write primitive ([`crate::write::atomic`]: a
/// temporary file renamed over the target, links followed, FIFOs and devices written through,
/// the mode kept, nothing half-written left on an error; not synced, as an output made from the
/// map: [`crate::write::atomic::WriteOptions::OUTPUT`]), buffered, counted against `budget`;
/// `produce` writes the contents. For a single-file output (GLB);
/// a `.gltf` or `.obj` with its sidecars is written as a set ([`crate::write::set`]).
pub(crate) fn write_out(
    path: &Path,
    budget: &ByteBudget,
    produce: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    crate::write::atomic::write_streaming(
        path,
        &crate::write::atomic::WriteOptions::OUTPUT,
        |w| {
            let mut counted = budget.counted(w);
            let mut b = std::io::BufWriter::with_capacity(1 << 16, &mut counted);
            produce(&mut b)?;
            std::io::Write::flush(&mut b)
        },
        |_| Ok(()),
    )
    .map_err(|e| budget.explain(e))?;
    Ok(())
}

/// Record a written file.
pub(crate) fn written(summary: &mut Summary, path: &Path) {
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    summary.files.push(OutputFile { path: path.display().to_string(), bytes });
}

/// `dir/stem_suffix` beside `path`.
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "export".into());
    path.with_file_name(format!("{stem}{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An RBSP surface with light styles 0 and 32: the page's extra image is style 32's atlas,
    /// the base style 0 (Quake 3's styles reach the glTF as the other families' do).
    #[test]
    fn rbsp_style_32_is_a_page_extra() {
        use crate::branches::quake3::{SurfaceRbsp, LUMP_LIGHTMAPS, LUMP_SURFACES, RBSP};
        use zerocopy::{FromZeros, IntoBytes};
        let mut s = SurfaceRbsp::new_zeroed();
        s.surface_type.set(1);
        s.lightmap_styles = [0, 32, 255, 255];
        s.vertex_styles = [0, 255, 255, 255];
        for (k, page) in [0, 1, -1, -1].into_iter().enumerate() {
            s.lightmap_num[k].set(page);
        }
        s.lightmap_width.set(3);
        s.lightmap_height.set(2);
        let pages: Vec<u8> = (0..2 * 128 * 128 * 3).map(|i| (i / (128 * 128 * 3)) as u8 * 100 + 7).collect();
        let bytes = crate::build::BspBuilder::new(&RBSP).lump(LUMP_SURFACES, s.as_bytes()).lump(LUMP_LIGHTMAPS, pages).build();
        let bsp = crate::Bsp::from_bytes(&bytes).unwrap();
        let lm = crate::lightmap::build(&bsp, &Default::default()).unwrap();
        let e = page_extras(&lm, 0, true, true).unwrap().expect("style 32 is an extra image");
        assert_eq!(e.base_style, 0);
        assert_eq!(e.images.iter().map(|i| (i.0, i.1)).collect::<Vec<_>>(), [(32, 0)]);
        assert_eq!(e.images[0].2, lm.atlas_png(lm.atlas(0, 32, 0).unwrap()).unwrap());
        // Styles not asked for: nothing besides the base.
        assert!(page_extras(&lm, 0, false, true).unwrap().is_none());
    }
    use crate::mesh::{Material, Surface, SurfaceKind};

    /// A model whose surfaces use `vertices` and `indices` (one per surface), materials by
    /// surface index modulo `materials`.
    fn model(surfaces: &[(std::ops::Range<u32>, &[u32])], materials: u32) -> Scene {
        let mut m = Model::default();
        let n = surfaces.iter().map(|(v, _)| v.end).max().unwrap_or(0) as usize;
        m.vertices.positions = (0..n).map(|i| [i as f32, 0.0, 0.0]).collect();
        m.vertices.normals = vec![[0.0, 0.0, 1.0]; n];
        m.vertices.uv0 = vec![[0.0; 2]; n];
        for (k, (v, idx)) in surfaces.iter().enumerate() {
            let start = m.indices.len() as u32;
            m.indices.extend_from_slice(idx);
            m.surfaces.push(Surface {
                lump: 0,
                index: k as u32,
                material: k as u32 % materials,
                flags: SurfaceFlags::NONE,
                kind: SurfaceKind::Polygon,
                vertex_kind: None,
                vertices: v.clone(),
                indices: start..m.indices.len() as u32,
            });
        }
        let materials = (0..materials).map(|i| Material { name: format!("m{i}"), flags: SurfaceFlags::NONE, size: None }).collect();
        Scene { models: vec![m], materials, ..Default::default() }
    }

    /// Vertex numbers and indices the way the copies make them: first use over the kept
    /// triangles of the primitive's surfaces, one numbering for the whole primitive.
    fn reference(m: &Model, surfaces: &[usize]) -> (Vec<u32>, Vec<u32>) {
        let (mut order, mut indices, mut remap) = (Vec::new(), Vec::new(), vec![u32::MAX; m.vertices.len()]);
        for &si in surfaces {
            let s = &m.surfaces[si];
            for t in m.indices[s.indices.start as usize..s.indices.end as usize].chunks_exact(3).filter(|t| kept(t, m.vertices.len())) {
                for &i in t {
                    if remap[i as usize] == u32::MAX {
                        remap[i as usize] = order.len() as u32;
                        order.push(i);
                    }
                    indices.push(remap[i as usize]);
                }
            }
        }
        (order, indices)
    }

    fn walked(prim: &Prim, m: &Model) -> (Vec<u32>, Vec<u32>) {
        let mut out = (Vec::new(), Vec::new());
        prim.walk(m, Walk::Vertices, &mut |b| {
            out.0.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        prim.walk(m, Walk::Indices, &mut |b| {
            out.1.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn primitives_walk_surfaces_or_copies_alike() {
        // Surfaces owning their vertices (a degenerate triangle in the second is left out):
        // kept as surface numbers, numbered as the copies would be.
        let local = model(&[(0..4, &[0, 1, 2, 0, 2, 3]), (4..7, &[6, 4, 5, 4, 4, 5])], 1);
        let mut summary = Summary::default();
        let p = prepare(&local, SurfaceFlags::NONE, false, &mut summary);
        let prim = &p.prims[0][0];
        assert!(matches!(prim.layout, PrimLayout::Surfaces(_)));
        assert_eq!(walked(prim, &local.models[0]), (vec![0, 1, 2, 3, 6, 4, 5], vec![0, 1, 2, 0, 2, 3, 4, 5, 6]));
        assert_eq!((prim.vertex_count, prim.index_count, summary.triangles), (7, 9, 3));
        assert_eq!(summary.warnings.len(), 1, "{:?}", summary.warnings);
        // The second surface uses a vertex of the first: copies, one numbering.
        let shared = model(&[(0..4, &[0, 1, 2, 0, 2, 3]), (4..7, &[6, 0, 5])], 1);
        let p = prepare(&shared, SurfaceFlags::NONE, false, &mut Summary::default());
        let prim = &p.prims[0][0];
        assert!(matches!(prim.layout, PrimLayout::Copied { .. }));
        assert_eq!(walked(prim, &shared.models[0]), (vec![0, 1, 2, 3, 6, 5], vec![0, 1, 2, 0, 2, 3, 4, 0, 5]));
        assert_eq!((prim.vertex_count, prim.index_count), (6, 9));
    }

    #[test]
    fn walked_primitives_match_the_copies_on_generated_models() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n.max(1))) as u32
        };
        let mut kinds = [0usize; 4];
        for case in 0..200 {
            // Fans, with a repeated corner now and then, over 1-4 materials,
            // enough surfaces for batches of many triangles to be flushed more than once.
            let count = 1 + next(if case % 10 == 0 { 6000 } else { 40 }) as usize;
            let mut built: Vec<(std::ops::Range<u32>, Vec<u32>)> = Vec::new();
            let mut base = 0;
            for _ in 0..count {
                let corners = 3 + next(6);
                // Fans from the first corner wound either way, and around the last corner as
                // ear clipping cuts a convex face.
                let kind = next(3);
                let mut idx = Vec::new();
                for k in 1..corners - 1 {
                    let mut t = match kind {
                        0 => [base, base + k, base + k + 1],
                        1 => [base, base + k + 1, base + k],
                        _ => [base + corners - 1, base + k - 1, base + k],
                    };
                    if next(20) == 0 {
                        t[next(3) as usize] = t[next(3) as usize];
                    }
                    idx.extend_from_slice(&t);
                }
                built.push((base..base + corners, idx));
                base += corners;
            }
            let surfaces: Vec<(std::ops::Range<u32>, &[u32])> = built.iter().map(|(v, i)| (v.clone(), &i[..])).collect();
            let scene = model(&surfaces, 1 + next(4));
            let p = prepare(&scene, SurfaceFlags::NONE, false, &mut Summary::default());
            let m = &scene.models[0];
            for prim in &p.prims[0] {
                if let PrimLayout::Surfaces(list) = &prim.layout {
                    for &e in list {
                        kinds[FirstUse::of(e) as usize] += 1;
                    }
                }
                let of_material: Vec<usize> =
                    (0..m.surfaces.len()).filter(|&si| p.materials[prim.material].material == m.surfaces[si].material).collect();
                let want = reference(m, &of_material);
                assert_eq!(walked(prim, m), want, "case {case}");
                assert_eq!((prim.vertex_count, prim.index_count), (want.0.len(), want.1.len()));
            }
        }
        // Every kind of surface was walked: fans from the first corner both ways, fans around
        // the last corner, and fans a dropped triangle leaves with an unused corner (scanned).
        assert!(kinds.iter().all(|&k| k > 100), "surfaces by first-use order {kinds:?}");
    }

    #[test]
    fn frames_and_rotations() {
        assert_eq!(to_y_up([1.0, 2.0, 3.0], 1.0), [1.0, 3.0, -2.0]);
        assert_eq!(normal_y_up([0.0, 0.0, 2.0]), Some([0.0, 1.0, 0.0]));
        assert_eq!(normal_y_up([0.0, 0.0, 0.0]), None);
        // Yaw 90° turns game +x into game +y, which is output −z.
        let q = rotation_y_up([0.0, 90.0, 0.0]);
        let rot = |q: [f32; 4], v: [f32; 3]| {
            let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
            let u = [x, y, z];
            let cross = |a: [f32; 3], b: [f32; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
            let t = cross(u, v).map(|c| 2.0 * c);
            let c2 = cross(u, t);
            [v[0] + w * t[0] + c2[0], v[1] + w * t[1] + c2[1], v[2] + w * t[2] + c2[2]]
        };
        let r = rot(q, [1.0, 0.0, 0.0]);
        assert!((r[0]).abs() < 1e-6 && (r[2] + 1.0).abs() < 1e-6, "{r:?}");
        // Pitch 90° turns game +x down (−z), output −y.
        let r = rot(rotation_y_up([90.0, 0.0, 0.0]), [1.0, 0.0, 0.0]);
        assert!((r[1] + 1.0).abs() < 1e-6, "{r:?}");
    }
}

#[cfg(test)]
mod unique_tests {
    use super::UniqueNames;

    /// Issue 23: a repeated file name keeps its extension (`m_ab_c~2.png`, not `m_ab_c.png~2`),
    /// case-insensitively, and never takes a name another material already has.
    #[test]
    fn repeats_keep_the_extension() {
        let mut u = UniqueNames::default();
        assert_eq!(u.get("m_ab_c.png".into()), "m_ab_c.png");
        assert_eq!(u.get("m_AB_c.png".into()), "m_AB_c~2.png");
        assert_eq!(u.get("m_ab_c~3.png".into()), "m_ab_c~3.png");
        assert_eq!(u.get("m_ab_c.png".into()), "m_ab_c~4.png");
        assert_eq!(u.get("plain".into()), "plain");
        assert_eq!(u.get("plain".into()), "plain~2");
        assert_eq!(u.get(".hidden".into()), ".hidden");
        assert_eq!(u.get(".hidden".into()), ".hidden~2");
    }
}
