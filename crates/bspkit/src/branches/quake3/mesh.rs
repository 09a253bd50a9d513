//! Quake 3-family geometry for the scene model ([`crate::mesh`]): IBSP 46 / 47, Quake Live,
//! Raven RBSP and qfusion FBSP (quake_family.md A.4 "face"; quake_facts.md §5.2).
//!
//! Every surface of a model (its run of the FACES lump) becomes one [`Surface`]:
//! * **planar (1) and triangle soups (3)**: the draw vertices `first_vert .. + num_verts` and the
//!   draw indices `first_index .. + num_indexes`, which count from the surface's first vertex.
//!   A planar surface without indices (very old compilers) is drawn as a fan of its vertices.
//! * **Bézier patches (2)**: the `patch_width × patch_height` control points (both odd, ≥ 3) form
//!   `(w − 1)/2 × (h − 1)/2` biquadratic sub-patches sharing their border rows; each is cut into
//!   `level × level` cells ([`MeshOptions::patch_level`], default [`DEFAULT_PATCH_LEVEL`],
//!   clamped to 1..=[`MAX_PATCH_LEVEL`]), two triangles a cell. The patch is one grid of
//!   `(w − 1)/2 · level + 1` by `(h − 1)/2 · level + 1` vertices, so neighbouring sub-patches share
//!   their edge vertices. A point on a sub-patch edge depends only on the three control points
//!   of that edge, through weights computed from the integer step, and sums the two end terms
//!   before the middle one: the same edge of two patches (in either direction) gives
//!   bit-identical points, so patches that share control points never crack.
//! * **flares (4)** have no geometry: they are counted in one warning.
//!
//! Winding: Quake 3 stores triangles clockwise seen from the front; the scene wants them
//! counter-clockwise, so each triangle's last two corners are swapped (the corpus test checks
//! planar surfaces against their plane). Patch grids are wound counter-clockwise around
//! `u × v`, u running along a stored row of control points and v across the rows: the side the
//! patches' vertex normals face on the corpus maps.
//!
//! Attributes: normals from the draw vertices, normalised (patches: interpolated like the
//! positions, then normalised); a zero or non-finite normal falls back to the surface's own
//! normal (`lightmap_vecs[2]`), then to +Z. `uv0` is the vertex `st` (already in texture
//! widths). `colours` are the vertex colours (RBSP / FBSP: light style 0's). `uv1`, when
//! [`MeshOptions::lightmaps`] is given, maps the vertex lightmap coordinate (style 0's) through
//! [`crate::lightmap::Lightmaps::uv_native`]; surfaces without a lightmap get `[0, 0]` and page
//! `u32::MAX`.
//!
//! Materials are shader names. Flags ([`shader_flags`]) come from the shader record's surface
//! and content flags (IBSP 46 / 47, Quake Live and FBSP use Quake 3's bits: `SURF_SKY` 0x4,
//! `SURF_NODRAW` 0x80, `SURF_HINT` 0x100 / `SURF_SKIP` 0x200 → tool, `CONTENTS_LAVA` 0x8 /
//! `SLIME` 0x10 / `WATER` 0x20 → water, `CONTENTS_PLAYERCLIP` 0x10000 / `MONSTERCLIP` 0x20000 →
//! clip, `CONTENTS_TRANSLUCENT` 0x20000000 → translucent, `CONTENTS_TRIGGER` 0x40000000 →
//! trigger; RBSP's Raven bit assignment differs and is not read) and from the name
//! ([`name_flags`]) for every branch.
//!
//! Models: model 0 is the world; model `N > 0` is named `*N` and placed by the first entity
//! whose `model` key is `*N` (its `origin`, and `angles` or the yaw `angle`). Vertices stay as
//! stored (model space); placing them is the consumer's job.
//!
//! Broken references (vertex or index ranges outside their lumps, indices past the surface's
//! vertices, bad patch sizes, a shader index out of range) make the surface a [`Skipped`] with
//! the reason; a model whose surface run leaves the FACES lump keeps the part inside it, and
//! (when every model is built) a surface no model's run includes is skipped as such.
//!
//! Output is bounded: a patch's control points must all be present in the draw-vertex lump and
//! the level is clamped; since surfaces may share (or overlap) vertex and index runs, a whole
//! scene holds at most [`crate::mesh::SceneLimits::max_vertices`] vertices and
//! [`crate::mesh::SceneLimits::max_triangles`]
//! triangles (a [`crate::mesh::SceneBudget`] taken before each surface allocates); past either
//! the build stops with a `limit_exceeded` error naming the budget.

use std::ops::Range;

use super::lumps::{record_set, with_record_set, RecordSet};
use super::records::{
    DrawVert, DrawVertEf2, DrawVertRbsp, Layout, ShaderRecord, Surface as IbspSurface, SurfaceEf2, SurfaceRbsp, SurfaceRecord,
    SurfaceRitual,
};
use super::view::View;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lightmap::maps::Lightmaps;
use crate::mesh::geom::unit;
use crate::mesh::place::{placements, read_entities, star_model, PlaceKeys};
use crate::mesh::scene::{
    try_reserve, Material, MaterialTable, MeshOptions, Model, ModelSelect, Scene, SceneBudget, Skipped, Surface, SurfaceFlags, SurfaceKind,
    DEFAULT_PATCH_LEVEL,
};

/// Largest patch level used: finer requests are clamped to it.
pub const MAX_PATCH_LEVEL: u32 = 64;
const SURFACE_PLANAR: i64 = 1;
const SURFACE_PATCH: i64 = 2;
const SURFACE_TRIANGLES: i64 = 3;
const SURFACE_FLARE: i64 = 4;

/// The scene of a Quake 3-family map.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    with_record_set!(bsp.branch(), build_with(bsp, opts))
}

/// The draw-vertex fields the mesh reads (style 0's lightmap coordinate and colour for RBSP).
trait MeshVertex {
    fn xyz(&self) -> [f32; 3];
    fn st(&self) -> [f32; 2];
    fn lightmap_st(&self) -> [f32; 2];
    fn normal(&self) -> [f32; 3];
    fn colour(&self) -> [u8; 4];
}

/// Vertices with one lightmap coordinate and one colour under the Quake 3 names.
macro_rules! single_lightmap_vertex {
    ($($t:ty),*) => {$(
        impl MeshVertex for $t {
            fn xyz(&self) -> [f32; 3] {
                self.xyz.map(|c| c.get())
            }
            fn st(&self) -> [f32; 2] {
                self.st.map(|c| c.get())
            }
            fn lightmap_st(&self) -> [f32; 2] {
                self.lightmap.map(|c| c.get())
            }
            fn normal(&self) -> [f32; 3] {
                self.normal.map(|c| c.get())
            }
            fn colour(&self) -> [u8; 4] {
                self.color
            }
        }
    )*};
}
single_lightmap_vertex!(DrawVert, DrawVertEf2);

impl MeshVertex for DrawVertRbsp {
    fn xyz(&self) -> [f32; 3] {
        self.xyz.map(|c| c.get())
    }
    fn st(&self) -> [f32; 2] {
        self.st.map(|c| c.get())
    }
    fn lightmap_st(&self) -> [f32; 2] {
        self.lightmap[0].map(|c| c.get())
    }
    fn normal(&self) -> [f32; 3] {
        self.normal.map(|c| c.get())
    }
    fn colour(&self) -> [u8; 4] {
        self.color[0]
    }
}

/// The surface's own normal (`lightmap_vecs[2]`; planar surfaces: the plane's).
trait SurfaceNormal {
    fn surface_normal(&self) -> [f32; 3];
}

/// Surfaces that store their normal as `lightmap_vecs[2]`.
macro_rules! normal_in_lightmap_vecs {
    ($($t:ty),*) => {$(
        impl SurfaceNormal for $t {
            fn surface_normal(&self) -> [f32; 3] {
                self.lightmap_vecs[2].map(|c| c.get())
            }
        }
    )*};
}
normal_in_lightmap_vecs!(IbspSurface, SurfaceEf2, SurfaceRitual, SurfaceRbsp);

/// Flag bits of Quake 3's `surfaceflags.h` (facts only).
mod q3 {
    pub const SURF_SKY: i32 = 0x4;
    pub const SURF_NODRAW: i32 = 0x80;
    pub const SURF_HINT: i32 = 0x100;
    pub const SURF_SKIP: i32 = 0x200;
    pub const CONTENTS_LAVA: i32 = 0x8;
    pub const CONTENTS_SLIME: i32 = 0x10;
    pub const CONTENTS_WATER: i32 = 0x20;
    pub const CONTENTS_PLAYERCLIP: i32 = 0x10000;
    pub const CONTENTS_MONSTERCLIP: i32 = 0x20000;
    pub const CONTENTS_TRANSLUCENT: i32 = 0x2000_0000;
    pub const CONTENTS_TRIGGER: i32 = 0x4000_0000;
}

/// Scene flags of a shader's Quake 3 surface and content flags.
pub fn shader_flags(surface_flags: i32, content_flags: i32) -> SurfaceFlags {
    let mut f = SurfaceFlags::NONE;
    let s = |bit: i32| surface_flags & bit != 0;
    let c = |bit: i32| content_flags & bit != 0;
    if s(q3::SURF_SKY) {
        f |= SurfaceFlags::SKY;
    }
    if s(q3::SURF_NODRAW) {
        f |= SurfaceFlags::NODRAW;
    }
    if s(q3::SURF_HINT) || s(q3::SURF_SKIP) {
        f |= SurfaceFlags::TOOL;
    }
    if c(q3::CONTENTS_LAVA) || c(q3::CONTENTS_SLIME) || c(q3::CONTENTS_WATER) {
        f |= SurfaceFlags::WATER;
    }
    if c(q3::CONTENTS_PLAYERCLIP) || c(q3::CONTENTS_MONSTERCLIP) {
        f |= SurfaceFlags::CLIP;
    }
    if c(q3::CONTENTS_TRANSLUCENT) {
        f |= SurfaceFlags::TRANSLUCENT;
    }
    if c(q3::CONTENTS_TRIGGER) {
        f |= SurfaceFlags::TRIGGER;
    }
    f
}

/// Scene flags from a shader name (case-insensitive), for every branch:
/// * `textures/common/caulk*`, `…/nodraw*` → nodraw;
/// * `textures/common/*clip*` (clip, playerclip, monsterclip, botclip, weapclip, …) → clip;
/// * `textures/common/trigger*` → trigger;
/// * `textures/common/` hint, skip, origin, areaportal, clusterportal, donotenter, lightgrid,
///   antiportal → tool;
/// * `textures/skies/…` and names ending `/sky` → sky;
/// * `textures/liquids/…` → water.
pub fn name_flags(name: &str) -> SurfaceFlags {
    let n = name.to_ascii_lowercase().replace('\\', "/");
    let mut f = SurfaceFlags::NONE;
    if let Some(common) = n.strip_prefix("textures/common/") {
        const TOOLS: [&str; 8] = ["hint", "skip", "origin", "areaportal", "clusterportal", "donotenter", "lightgrid", "antiportal"];
        if common.starts_with("caulk") || common.starts_with("nodraw") {
            f |= SurfaceFlags::NODRAW;
        }
        if common.contains("clip") {
            f |= SurfaceFlags::CLIP;
        }
        if common.starts_with("trigger") {
            f |= SurfaceFlags::TRIGGER;
        }
        if TOOLS.iter().any(|t| common.starts_with(t)) {
            f |= SurfaceFlags::TOOL;
        }
    }
    if n.starts_with("textures/skies/") || n.ends_with("/sky") {
        f |= SurfaceFlags::SKY;
    }
    if n.starts_with("textures/liquids/") {
        f |= SurfaceFlags::WATER;
    }
    f
}

/// Builds one model's buffers.
struct Builder<'o> {
    model: Model,
    lightmaps: Option<&'o Lightmaps>,
    /// The FACES lump's slot (lightmap entries are keyed by it).
    surfaces_lump: u16,
}

fn build_with<L: Layout>(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene>
where
    L::DrawVert: MeshVertex,
    L::Surface: SurfaceNormal,
{
    let view = View::<L>::new(bsp)?;
    let shaders = view.shaders()?;
    let surfaces = view.surfaces()?;
    let verts = view.draw_vertices()?;
    let indices = view.draw_indices()?;
    let models = view.models()?;
    let surfaces_lump = view.slots().surfaces as u16;
    // Raven's and Ritual's shader flag bits are not Quake 3's: names decide their flags.
    let q3_bits =
        !matches!(record_set(bsp.branch()), RecordSet::Rbsp | RecordSet::Fakk | RecordSet::Ef2 | RecordSet::MohaaOld | RecordSet::Mohaa);
    let level = opts.patch_level.unwrap_or(DEFAULT_PATCH_LEVEL).clamp(1, MAX_PATCH_LEVEL);

    let mut scene = Scene::default();
    let mut table = MaterialTable::default();
    if opts.patch_level.is_some_and(|l| l != level) {
        scene.warnings.push(format!("patch level {} clamped to {level}", opts.patch_level.unwrap_or(0)));
    }
    let places = read_entities(bsp, &mut scene.warnings)
        .map(|e| placements(&e.list, PlaceKeys::OriginAnglesOrYaw, &mut scene.warnings, star_model))
        .unwrap_or_default();
    let mut flares = 0usize;
    let mut budget = SceneBudget::new(opts);
    let count = match opts.models {
        ModelSelect::World => models.len().min(1),
        ModelSelect::All => models.len(),
    };
    let skip = |scene: &mut Scene, index: usize, reason: String| {
        scene.skipped.push(Skipped { lump: surfaces_lump, index: index as u32, reason });
    };
    // Surfaces some model's run names; with every model built, the others are reported.
    let mut covered = vec![false; surfaces.len()];
    for (mi, m) in models.iter().enumerate().take(count) {
        let (first, n) = (m.first_surface.get() as i64, m.num_surfaces.get() as i64);
        let range = surface_run(first, n, surfaces.len());
        if range.end as i64 - range.start as i64 != n.max(0) {
            scene.warnings.push(format!(
                "model {mi}: surfaces {first}+{n} leave the FACES lump (count {}); only {}..{} are read",
                surfaces.len(),
                range.start,
                range.end
            ));
        }
        let mut b = Builder { model: Model::placed(mi as u32, &places), lightmaps: opts.lightmaps, surfaces_lump };
        for si in range {
            covered[si] = true;
            let s = &surfaces[si];
            let kind = s.surface_type();
            if kind == SURFACE_FLARE {
                flares += 1;
                continue;
            }
            let shader = match usize::try_from(s.shader()).ok().and_then(|i| shaders.get(i)).map(ShaderRecord::q3) {
                Some(sh) => sh,
                None => {
                    skip(&mut scene, si, format!("shader {} is outside the SHADERS lump (count {})", s.shader(), shaders.len()));
                    continue;
                }
            };
            let name = shader.name();
            let mut flags = name_flags(&name);
            if q3_bits {
                flags |= shader_flags(shader.surface_flags.get(), shader.content_flags.get());
            }
            let surf_verts = match super::view::sub(verts, s.vert_range()) {
                Some(v) => v,
                None => {
                    let (f, n) = s.vert_range();
                    skip(&mut scene, si, format!("vertex range {f}+{n} is outside the DRAW_VERTICES lump (count {})", verts.len()));
                    continue;
                }
            };
            let normal = s.surface_normal();
            let result = match kind {
                SURFACE_PLANAR | SURFACE_TRIANGLES => match super::view::sub(indices, s.index_range()) {
                    Some(idx) => b.soup(si, surf_verts, idx, normal, kind == SURFACE_PLANAR, &mut budget),
                    None => {
                        let (f, n) = s.index_range();
                        Err(format!("index range {f}+{n} is outside the DRAW_INDICES lump (count {})", indices.len()))
                    }
                },
                SURFACE_PATCH => b.patch(si, surf_verts, s.patch_size(), level, normal, &mut budget),
                other => Err(format!("surface type {other} is not one of 1 (planar), 2 (patch), 3 (triangle soup), 4 (flare)")),
            };
            match result {
                Ok((vertices, tris)) => {
                    let material = table.intern(&mut scene.materials, &name, || Material { name: name.to_string(), flags, size: None });
                    let kind = match kind {
                        SURFACE_PLANAR => SurfaceKind::Polygon,
                        SURFACE_PATCH => SurfaceKind::Patch,
                        _ => SurfaceKind::TriangleSoup,
                    };
                    b.model.surfaces.push(Surface {
                        lump: surfaces_lump,
                        index: si as u32,
                        material,
                        flags,
                        kind,
                        vertex_kind: None,
                        vertices,
                        indices: tris,
                    });
                }
                Err(reason) => skip(&mut scene, si, reason),
            }
            budget.stop()?;
        }
        scene.models.push(b.model);
    }
    if opts.models == ModelSelect::All {
        for (si, s) in surfaces.iter().enumerate() {
            if !covered[si] && s.surface_type() != SURFACE_FLARE {
                skip(&mut scene, si, "no model's surface run includes it".into());
            }
        }
    }
    if flares > 0 {
        scene.warnings.push(format!("{flares} flare surface(s) have no geometry and are left out"));
    }
    Ok(scene)
}

/// `first .. first + n` clamped to `0..len`.
fn surface_run(first: i64, n: i64, len: usize) -> Range<usize> {
    let start = first.clamp(0, len as i64);
    let end = first.saturating_add(n.max(0)).clamp(start, len as i64);
    start as usize..end as usize
}

/// The normal to store: `n` normalised, else the surface normal, else +Z.
fn pick_normal(n: [f64; 3], surface: [f32; 3]) -> [f32; 3] {
    unit(n).or_else(|| unit(surface.map(|c| c as f64))).unwrap_or([0.0, 0.0, 1.0])
}

impl Builder<'_> {
    /// Starts a surface: reserves `verts` vertices and `tris` indices (fallibly: a refusal is
    /// the budget's error), returns the first vertex.
    fn reserve(&mut self, verts: usize, idx: usize, budget: &mut SceneBudget) -> std::result::Result<u32, String> {
        let lit = self.lightmaps.is_some();
        let m = &mut self.model;
        let v = &mut m.vertices;
        let r = (|| {
            try_reserve(&mut v.positions, verts)?;
            try_reserve(&mut v.normals, verts)?;
            try_reserve(&mut v.uv0, verts)?;
            try_reserve(&mut v.colours, verts)?;
            if lit {
                try_reserve(&mut v.uv1, verts)?;
            }
            try_reserve(&mut m.indices, idx)
        })();
        r.map_err(|e| budget.fail(e))?;
        Ok(m.vertices.positions.len() as u32)
    }

    /// Appends one vertex; `lm` is its page-relative lightmap coordinate.
    fn push(
        &mut self,
        face: Option<&crate::lightmap::maps::FaceEntry>,
        pos: [f32; 3],
        normal: [f32; 3],
        st: [f32; 2],
        lm: [f32; 2],
        c: [u8; 4],
    ) {
        let v = &mut self.model.vertices;
        v.positions.push(pos);
        v.normals.push(normal);
        v.uv0.push(st);
        v.colours.push(c);
        if let Some(lms) = self.lightmaps {
            v.uv1.push(face.and_then(|f| lms.uv_native(f, lm)).unwrap_or([0.0, 0.0]));
        }
    }

    /// The surface's lightmap entry, and its page recorded for the surface.
    fn lightmap_face(&mut self, si: usize) -> Option<&'_ crate::lightmap::maps::FaceEntry> {
        let lms = self.lightmaps?;
        let face = lms.face(self.surfaces_lump, si as u32);
        self.model.lightmap_pages.push(face.map_or(u32::MAX, |f| f.page));
        face
    }

    /// A planar surface or triangle soup: its vertices as stored, its indices checked and wound
    /// counter-clockwise. Planar surfaces without indices are fans.
    fn soup<V: MeshVertex>(
        &mut self,
        si: usize,
        verts: &[V],
        idx: &[super::records::DrawIndex],
        surface_normal: [f32; 3],
        planar: bool,
        budget: &mut SceneBudget,
    ) -> std::result::Result<(Range<u32>, Range<u32>), String> {
        let n = verts.len();
        let fan = planar && idx.is_empty() && n >= 3;
        if !fan {
            if idx.len() % 3 != 0 {
                return Err(format!("{} indices are not whole triangles", idx.len()));
            }
            if let Some((k, bad)) = idx.iter().enumerate().find(|(_, i)| !(0..n as i64).contains(&(i.get() as i64))) {
                return Err(format!("index {k} is {} but the surface has {n} vertices", bad.get()));
            }
        }
        let tris = if fan { (n - 2) * 3 } else { idx.len() };
        budget.take(n, tris / 3)?;
        let base = self.reserve(n, tris, budget)?;
        let face = self.lightmap_face(si).copied();
        for v in verts {
            let nrm = pick_normal(v.normal().map(|c| c as f64), surface_normal);
            self.push(face.as_ref(), v.xyz(), nrm, v.st(), v.lightmap_st(), v.colour());
        }
        let first_index = self.model.indices.len() as u32;
        let out = &mut self.model.indices;
        if fan {
            for k in 1..n as u32 - 1 {
                // Clockwise fan 0, k, k+1 stored counter-clockwise.
                out.extend_from_slice(&[base, base + k + 1, base + k]);
            }
        } else {
            for t in idx.chunks_exact(3) {
                let [a, b, c] = [t[0].get(), t[1].get(), t[2].get()].map(|i| base + i as u32);
                out.extend_from_slice(&[a, c, b]);
            }
        }
        Ok((base..base + n as u32, first_index..self.model.indices.len() as u32))
    }

    /// A Bézier patch tessellated at `level` segments per sub-patch edge (module documentation).
    fn patch<V: MeshVertex>(
        &mut self,
        si: usize,
        verts: &[V],
        (w, h): (i64, i64),
        level: u32,
        surface_normal: [f32; 3],
        budget: &mut SceneBudget,
    ) -> std::result::Result<(Range<u32>, Range<u32>), String> {
        let ok = |d: i64| d >= 3 && d % 2 == 1;
        if !ok(w) || !ok(h) {
            return Err(format!("patch size {w}×{h} is not odd and at least 3 in both directions"));
        }
        // Both are ≥ 3 and their product must equal the vertices present, so it is bounded.
        if w.checked_mul(h) != Some(verts.len() as i64) {
            return Err(format!("patch size {w}×{h} does not match its {} vertices", verts.len()));
        }
        let (w, h, l) = (w as usize, h as usize, level as usize);
        let (nu, nv) = ((w - 1) / 2, (h - 1) / 2);
        let (cols, rows) = (nu * l + 1, nv * l + 1);
        // Both are bounded by the vertices present times the clamped level squared.
        let total = cols * rows;
        budget
            .take(total, (cols - 1) * (rows - 1) * 2)
            .map_err(|e| format!("tessellating {w}×{h} control points at level {level}: {e}"))?;
        let base = self.reserve(total, (cols - 1) * (rows - 1) * 6, budget)?;
        let face = self.lightmap_face(si).copied();
        // Quadratic Bernstein weights of step k of l, from integers so that every patch uses
        // bit-identical weights; reversed steps give the same weights in reverse.
        let weights = |k: usize| -> [f64; 3] {
            let a = (l - k) as f64 / l as f64;
            let b = k as f64 / l as f64;
            [a * a, 2.0 * a * b, b * b]
        };
        // (end terms) + middle term: symmetric in the direction of the edge.
        fn mix<const N: usize>(wt: [f64; 3], p: [[f64; N]; 3]) -> [f64; N] {
            std::array::from_fn(|c| (wt[0] * p[0][c] + wt[2] * p[2][c]) + wt[1] * p[1][c])
        }
        // Per vertex, all attributes in one f64 array: xyz, normal, st, lightmap st, rgba.
        let attrs = |v: &V| -> [f64; 14] {
            let (p, n, st, lm, c) = (v.xyz(), v.normal(), v.st(), v.lightmap_st(), v.colour());
            [
                p[0] as f64,
                p[1] as f64,
                p[2] as f64,
                n[0] as f64,
                n[1] as f64,
                n[2] as f64,
                st[0] as f64,
                st[1] as f64,
                lm[0] as f64,
                lm[1] as f64,
                c[0] as f64,
                c[1] as f64,
                c[2] as f64,
                c[3] as f64,
            ]
        };
        // One allocation per patch: the control points' attributes, read once.
        let control: Vec<[f64; 14]> = verts.iter().map(attrs).collect();
        for row in 0..rows {
            // Sub-patch row and step within it; the last grid row belongs to the last sub-patch.
            let (pv, kv) = if row == rows - 1 { (nv - 1, l) } else { (row / l, row % l) };
            let wv = weights(kv);
            for col in 0..cols {
                let (pu, ku) = if col == cols - 1 { (nu - 1, l) } else { (col / l, col % l) };
                let wu = weights(ku);
                let cp = |i: usize, j: usize| control[(2 * pv + j) * w + 2 * pu + i];
                // Along v first (three columns), then along u: on an edge of the sub-patch one
                // of the two steps has weights (1, 0, 0) or (0, 0, 1) and returns its control
                // points exactly.
                let q: [[f64; 14]; 3] = std::array::from_fn(|i| mix(wv, [cp(i, 0), cp(i, 1), cp(i, 2)]));
                let a = mix(wu, q);
                let pos = [a[0] as f32, a[1] as f32, a[2] as f32];
                let nrm = pick_normal([a[3], a[4], a[5]], surface_normal);
                let byte = |x: f64| x.round().clamp(0.0, 255.0) as u8;
                self.push(
                    face.as_ref(),
                    pos,
                    nrm,
                    [a[6] as f32, a[7] as f32],
                    [a[8] as f32, a[9] as f32],
                    [byte(a[10]), byte(a[11]), byte(a[12]), byte(a[13])],
                );
            }
        }
        let first_index = self.model.indices.len() as u32;
        let at = |r: usize, c: usize| base + (r * cols + c) as u32;
        for r in 0..rows - 1 {
            for c in 0..cols - 1 {
                let (p00, p01, p10, p11) = (at(r, c), at(r, c + 1), at(r + 1, c), at(r + 1, c + 1));
                // Counter-clockwise around u × v (u along a stored row, v across rows): the
                // side q3map2's patch vertex normals face (checked on the corpus).
                self.model.indices.extend_from_slice(&[p00, p01, p11, p00, p11, p10]);
            }
        }
        Ok((base..base + total as u32, first_index..self.model.indices.len() as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_bits_give_flags() {
        assert_eq!(name_flags("textures/common/caulk"), SurfaceFlags::NODRAW);
        assert_eq!(name_flags("TEXTURES/COMMON/PLAYERCLIP"), SurfaceFlags::CLIP);
        assert_eq!(name_flags("textures/common/trigger"), SurfaceFlags::TRIGGER);
        assert_eq!(name_flags("textures/common/hint"), SurfaceFlags::TOOL);
        assert_eq!(name_flags("textures/skies/hellsky"), SurfaceFlags::SKY);
        assert_eq!(name_flags("textures/base_wall/concrete"), SurfaceFlags::NONE);
        assert_eq!(shader_flags(0x4 | 0x80, 0), SurfaceFlags::SKY | SurfaceFlags::NODRAW);
        assert_eq!(shader_flags(0x200, 0x20 | 0x10000), SurfaceFlags::TOOL | SurfaceFlags::WATER | SurfaceFlags::CLIP);
        assert_eq!(shader_flags(0, 0x6000_0000u32 as i32), SurfaceFlags::TRANSLUCENT | SurfaceFlags::TRIGGER);
        assert_eq!(shader_flags(0x1 | 0x2, 0x1), SurfaceFlags::NONE);
    }
}
