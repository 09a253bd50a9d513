//! The scene model's types: models → surfaces → vertices, shared by every family.
//!
//! This file names no family and no higher layer, so each family's `mesh` module
//! (`branches/<family>/mesh.rs`) can build a [`Scene`] without importing the dispatch in
//! [`crate::mesh`] (which imports the families): the layers stay acyclic.
//!
//! Coordinates are the game's: units as stored, Z up, right-handed. Converting to metres and
//! Y-up is the exporter's job. Buffers are per model, struct-of-arrays: one allocation per
//! attribute per model (grown per surface batch), never per vertex.

use std::ops::Range;

use crate::branches::respawn::VertexKind;
use crate::error::{Error, ErrorKind, Result};
use crate::lightmap::maps::Lightmaps;
// Brush-model placement lives in `place`; these names stay reachable here.
pub use crate::mesh::place::{brush_model_placements, parse_vec3, Placement};

/// Surface tags that decide whether a surface is drawn, from each family's flags
/// (Quake texture names, Quake 2/3 surface flags, Source texinfo flags, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SurfaceFlags(pub u32);

impl SurfaceFlags {
    pub const NONE: SurfaceFlags = SurfaceFlags(0);
    /// Sky: drawn as the sky box, not as the surface's texture.
    pub const SKY: SurfaceFlags = SurfaceFlags(1 << 0);
    /// Never drawn (`nodraw`, `SURF_NODRAW`, Source `SURF_NODRAW`).
    pub const NODRAW: SurfaceFlags = SurfaceFlags(1 << 1);
    /// A trigger volume's face.
    pub const TRIGGER: SurfaceFlags = SurfaceFlags(1 << 2);
    /// Water, slime, lava (`*` textures, `CONTENTS_WATER`, warp surfaces).
    pub const WATER: SurfaceFlags = SurfaceFlags(1 << 3);
    /// Drawn blended (`SURF_TRANS33/66`, Source `SURF_TRANS`).
    pub const TRANSLUCENT: SurfaceFlags = SurfaceFlags(1 << 4);
    /// A clip brush's face (player/monster clip).
    pub const CLIP: SurfaceFlags = SurfaceFlags(1 << 5);
    /// Compiler-only faces (hint, skip, origin, areaportal): never drawn.
    pub const TOOL: SurfaceFlags = SurfaceFlags(1 << 6);
    /// Alpha-tested (Quake `{` textures, `SURF_ALPHATEST`, `$alphatest`).
    pub const ALPHA_TEST: SurfaceFlags = SurfaceFlags(1 << 7);
    /// A wall of the box a map is sealed in ([`crate::mesh::hull`]): set only by
    /// [`crate::mesh::hull::mark`] (`bsp view`, `bsp export --skip hull`), never by a family.
    pub const HULL: SurfaceFlags = SurfaceFlags(1 << 8);

    /// Names for `--skip` and the JSON summary, in bit order.
    pub const NAMES: [(&'static str, SurfaceFlags); 9] = [
        ("sky", Self::SKY),
        ("nodraw", Self::NODRAW),
        ("trigger", Self::TRIGGER),
        ("water", Self::WATER),
        ("translucent", Self::TRANSLUCENT),
        ("clip", Self::CLIP),
        ("tool", Self::TOOL),
        ("alphatest", Self::ALPHA_TEST),
        ("hull", Self::HULL),
    ];

    pub fn contains(self, other: SurfaceFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn intersects(self, other: SurfaceFlags) -> bool {
        self.0 & other.0 != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The names of the set flags.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES.into_iter().filter(move |(_, f)| self.intersects(*f)).map(|(n, _)| n)
    }
    /// The flag named `name` (one of [`SurfaceFlags::NAMES`]).
    pub fn from_name(name: &str) -> Option<SurfaceFlags> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }
}

impl std::ops::BitOr for SurfaceFlags {
    type Output = SurfaceFlags;
    fn bitor(self, rhs: SurfaceFlags) -> SurfaceFlags {
        SurfaceFlags(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for SurfaceFlags {
    fn bitor_assign(&mut self, rhs: SurfaceFlags) {
        self.0 |= rhs.0;
    }
}

/// How a surface's triangles came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SurfaceKind {
    /// A planar polygon triangulated as a fan (Quake families, Source faces, Quake 3 planar).
    Polygon,
    /// A Quake 3 Bézier patch, tessellated.
    Patch,
    /// Triangles stored as such (Quake 3 triangle soups, CoD4 soups, Source primitives).
    TriangleSoup,
    /// A Source displacement grid.
    Displacement,
    /// A Respawn mesh; `vertex_kind` on the surface says which vertex lump it used.
    Mesh,
}

impl SurfaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SurfaceKind::Polygon => "polygon",
            SurfaceKind::Patch => "patch",
            SurfaceKind::TriangleSoup => "triangle_soup",
            SurfaceKind::Displacement => "displacement",
            SurfaceKind::Mesh => "mesh",
        }
    }
}

/// A material: the name the map uses for a surface's look.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// The texture / shader / material name as stored in the map.
    pub name: String,
    /// Flags every surface of this material carries (a surface may add its own).
    pub flags: SurfaceFlags,
    /// Texture size in texels that `uv0` was divided by, when known.
    pub size: Option<[u32; 2]>,
}

/// One face / surface / mesh of the map: a run of its model's vertices and triangle indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// The lump and record index it came from (its identity, also the key of
    /// [`crate::lightmap::Lightmaps::face`]). Quake 3: the surfaces lump; Respawn: the meshes lump.
    pub lump: u16,
    pub index: u32,
    /// Index into [`Scene::materials`].
    pub material: u32,
    pub flags: SurfaceFlags,
    pub kind: SurfaceKind,
    /// Respawn: the vertex lump's kind ([`VertexKind::key`]: `lit_flat`, `lit_bump`, `unlit`,
    /// `unlit_ts`). One byte, not a `&str`: a map holds one surface per face.
    pub vertex_kind: Option<VertexKind>,
    /// Its vertices in the model's buffers.
    pub vertices: Range<u32>,
    /// Its triangle indices in [`Model::indices`] (three per triangle, counter-clockwise seen
    /// from the front in a right-handed Z-up frame; values index the model's buffers).
    pub indices: Range<u32>,
}

/// A model's vertex buffers, one entry per vertex in each attribute that is present.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vertices {
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
    /// Texture UVs (TEXCOORD_0), in texture widths (0..1 across the texture once), V down.
    pub uv0: Vec<[f32; 2]>,
    /// Lightmap UVs (TEXCOORD_1): empty, or one per vertex (0..1 over the atlas page).
    pub uv1: Vec<[f32; 2]>,
    /// Vertex colours, RGBA8 (Quake 3 vertex colours, Source displacement alpha in A:
    /// [`Scene::colours_alpha_only`]): empty, or one per vertex.
    pub colours: Vec<[u8; 4]>,
}

impl Model {
    /// An empty model `index`, named and placed from `places` (`world` / `*N` when no entity
    /// places it).
    pub fn placed(index: u32, places: &std::collections::HashMap<u32, Placement>) -> Model {
        let p = places.get(&index);
        Model {
            index,
            name: p.map(|p| p.name.clone()).unwrap_or_else(|| if index == 0 { "world".into() } else { format!("*{index}") }),
            origin: p.map(|p| p.origin).unwrap_or_default(),
            angles: p.map(|p| p.angles).unwrap_or_default(),
            entity: p.map(|p| p.entity),
            ..Default::default()
        }
    }

    /// Reserve the buffers once, exactly, for `vertices` more vertices, `triangles` more
    /// triangles and `surfaces` more surfaces (with a `uv1` per vertex and a lightmap page per
    /// surface when `lit`, a colour per vertex when `colours`), so a family's build never grows
    /// them by doubling. The callers bound the counts by the lumps the data comes from and by
    /// the [`SceneBudget`]; the allocation is fallible: a refusal is an error, not an abort.
    pub(crate) fn reserve_exact(&mut self, vertices: usize, triangles: usize, surfaces: usize, lit: bool, colours: bool) -> Result<()> {
        let v = &mut self.vertices;
        try_reserve(&mut v.positions, vertices)?;
        try_reserve(&mut v.normals, vertices)?;
        try_reserve(&mut v.uv0, vertices)?;
        if lit {
            try_reserve(&mut v.uv1, vertices)?;
            try_reserve(&mut self.lightmap_pages, surfaces)?;
        }
        if colours {
            try_reserve(&mut v.colours, vertices)?;
        }
        try_reserve(&mut self.indices, triangles.saturating_mul(3))?;
        try_reserve(&mut self.surfaces, surfaces)
    }
}

/// `v.try_reserve(n)` (exact on an empty buffer, amortized on a growing one), a refusal as
/// [`ErrorKind::OutOfMemory`] naming the scene.
pub(crate) fn try_reserve<T>(v: &mut Vec<T>, n: usize) -> Result<()> {
    v.try_reserve(n).map_err(|_| {
        Error::new(ErrorKind::OutOfMemory {
            what: "the scene's buffers",
            bytes: (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        })
    })
}

/// Default of [`SceneLimits::max_vertices`]: 8 Mi output vertices per command (about 350 MB of
/// attributes). The largest corpus map makes 0.4 % of it (37,108 vertices; README, "Budgets").
pub const DEFAULT_MAX_SCENE_VERTICES: u64 = 8 << 20;
/// Default of [`SceneLimits::max_triangles`]: 8 Mi output triangles per command (96 MB of
/// indices).
pub const DEFAULT_MAX_SCENE_TRIANGLES: u64 = 8 << 20;

/// What a scene build may still emit: [`SceneLimits::max_vertices`] and
/// [`SceneLimits::max_triangles`] over every model of one build. A family takes each surface's
/// counts before it allocates for it; a refusal skips that surface with the reason, and
/// [`SceneBudget::stop`] (called after each surface) turns it into the build's
/// [`ErrorKind::LimitExceeded`] error, so nothing past the budget is ever allocated.
#[derive(Debug)]
pub struct SceneBudget {
    vertices: u64,
    triangles: u64,
    max_vertices: u64,
    max_triangles: u64,
    exceeded: Option<Error>,
}

impl SceneBudget {
    pub fn new(opts: &MeshOptions) -> Self {
        let l = opts.limits;
        SceneBudget { vertices: 0, triangles: 0, max_vertices: l.max_vertices, max_triangles: l.max_triangles, exceeded: None }
    }

    /// Vertices (and triangles) still allowed.
    pub fn vertices_left(&self) -> usize {
        usize::try_from(self.max_vertices.saturating_sub(self.vertices)).unwrap_or(usize::MAX)
    }

    /// Take `vertices` and `triangles` more, or say which budget they would pass (the build
    /// then stops at the next [`SceneBudget::stop`]).
    pub fn take(&mut self, vertices: usize, triangles: usize) -> std::result::Result<(), String> {
        if let Some(e) = &self.exceeded {
            return Err(e.kind.to_string());
        }
        let v = self.vertices.saturating_add(vertices as u64);
        let t = self.triangles.saturating_add(triangles as u64);
        let refused = if v > self.max_vertices {
            Some((SCENE_VERTICES, v, self.max_vertices))
        } else if t > self.max_triangles {
            Some((SCENE_TRIANGLES, t, self.max_triangles))
        } else {
            None
        };
        if let Some((what, requested, limit)) = refused {
            let e = Error::new(ErrorKind::LimitExceeded { what, requested, limit });
            let msg = e.kind.to_string();
            self.exceeded = Some(e);
            return Err(msg);
        }
        self.vertices = v;
        self.triangles = t;
        Ok(())
    }

    /// Record `e` (a refused allocation) as the build's error; its message for the skip.
    pub(crate) fn fail(&mut self, e: Error) -> String {
        let msg = e.kind.to_string();
        self.exceeded.get_or_insert(e);
        msg
    }

    /// The budget's error once a [`SceneBudget::take`] was refused.
    pub fn stop(&self) -> Result<()> {
        match &self.exceeded {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

/// The budgets' names in their errors: the library option and the CLI flag that raise them.
const SCENE_VERTICES: &str = "scene vertices (SceneLimits::max_vertices, --max-scene-vertices)";
const SCENE_TRIANGLES: &str = "scene triangles (SceneLimits::max_triangles, --max-scene-triangles)";

impl Vertices {
    pub fn len(&self) -> usize {
        self.positions.len()
    }
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// A model: the world (model 0) or a brush model placed by its entity.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Model {
    /// The model's index in the map's models lump.
    pub index: u32,
    /// `"world"`, or `"*N"` with the entity's classname / targetname when one uses it.
    pub name: String,
    /// The entity's `origin` (game units) that places this model; zero for the world.
    pub origin: [f32; 3],
    /// The entity's `angles` (pitch, yaw, roll in degrees); zero when it has none.
    pub angles: [f32; 3],
    /// Index of the entity that uses this model, in entity-lump order.
    pub entity: Option<usize>,
    pub vertices: Vertices,
    pub indices: Vec<u32>,
    pub surfaces: Vec<Surface>,
    /// Which page of the lightmap atlas each surface's `uv1` points into, per surface (empty
    /// when `uv1` is empty; `u32::MAX` for surfaces without a lightmap).
    pub lightmap_pages: Vec<u32>,
}

/// A static prop (Source `sprp`, Respawn): a reference to an external model, placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Prop {
    /// Model path as stored (`models/props/crate.mdl`).
    pub model: String,
    pub origin: [f32; 3],
    /// Pitch, yaw, roll in degrees.
    pub angles: [f32; 3],
    pub scale: f32,
    pub skin: i32,
    pub solid: i32,
    /// Fade start and end distances, when the layout has them.
    pub fade: Option<[f32; 2]>,
    pub lighting_origin: Option<[f32; 3]>,
}

/// A face / surface that was not exported, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub lump: u16,
    pub index: u32,
    pub reason: String,
}

/// A whole map's geometry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    pub models: Vec<Model>,
    pub materials: Vec<Material>,
    pub props: Vec<Prop>,
    /// Faces whose references are broken (or otherwise not meshable), with the reason.
    pub skipped: Vec<Skipped>,
    pub warnings: Vec<String>,
    /// The vertex colours carry no light, only a blend alpha (Source: displacement alpha in A,
    /// RGB white, and white on the model's other vertices): a renderer shades surfaces without
    /// a lightmap from their normals rather than taking these colours as their light.
    pub colours_alpha_only: bool,
}

impl Scene {
    /// Material `index`, if it exists.
    pub fn material(&self, index: u32) -> Option<&Material> {
        self.materials.get(index as usize)
    }
    /// Triangles over every model.
    pub fn triangle_count(&self) -> usize {
        self.models.iter().map(|m| m.indices.len() / 3).sum()
    }
    pub fn surface_count(&self) -> usize {
        self.models.iter().map(|m| m.surfaces.len()).sum()
    }
}

/// Interns material names while a family builds its scene.
#[derive(Debug, Default)]
pub struct MaterialTable {
    by_name: std::collections::HashMap<String, u32>,
}

impl MaterialTable {
    /// The index of `name` in `materials`, adding a [`Material`] made by `make` when new.
    pub fn intern(&mut self, materials: &mut Vec<Material>, name: &str, make: impl FnOnce() -> Material) -> u32 {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let i = materials.len() as u32;
        materials.push(make());
        self.by_name.insert(name.to_owned(), i);
        i
    }
}

/// Which models to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelSelect {
    /// Model 0 only.
    World,
    /// Every model (brush entities placed by their entity's origin and angles).
    #[default]
    All,
}

/// What [`crate::mesh::build`] makes.
#[derive(Clone, Default)]
pub struct MeshOptions<'a> {
    pub models: ModelSelect,
    /// Quake 3 Bézier patch tessellation: segments per 3×3 sub-patch edge (`None`: the
    /// family's default, [`DEFAULT_PATCH_LEVEL`]).
    pub patch_level: Option<u32>,
    /// Fill `uv1` (lightmap UVs) from these atlases (built from the same map).
    pub lightmaps: Option<&'a Lightmaps>,
    /// Texture size in texels for a texture name, for families whose maps do not store it
    /// (Quake 2 `.wal` files). Without it (or when it answers `None`) such textures are taken
    /// as [`FALLBACK_TEXTURE_SIZE`] and a warning says so.
    #[allow(clippy::type_complexity)]
    pub texture_size: Option<&'a dyn Fn(&str) -> Option<[u32; 2]>>,
    /// Leave out static props.
    pub no_props: bool,
    /// The scene's output budget.
    pub limits: SceneLimits,
}

/// The output budget of one scene build (per command: a scene is built once per command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SceneLimits {
    /// Most vertices the scene may hold over all models ([`DEFAULT_MAX_SCENE_VERTICES`]); a map
    /// that would make more is a [`ErrorKind::LimitExceeded`] error, never a huge allocation.
    pub max_vertices: u64,
    /// Most triangles the scene may hold over all models ([`DEFAULT_MAX_SCENE_TRIANGLES`]).
    pub max_triangles: u64,
}

impl Default for SceneLimits {
    fn default() -> Self {
        SceneLimits { max_vertices: DEFAULT_MAX_SCENE_VERTICES, max_triangles: DEFAULT_MAX_SCENE_TRIANGLES }
    }
}

impl std::fmt::Debug for MeshOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeshOptions")
            .field("models", &self.models)
            .field("patch_level", &self.patch_level)
            .field("lightmaps", &self.lightmaps.is_some())
            .field("texture_size", &self.texture_size.is_some())
            .field("no_props", &self.no_props)
            .field("limits", &self.limits)
            .finish()
    }
}

/// Quake 3 patch segments per sub-patch edge when none is asked for.
pub const DEFAULT_PATCH_LEVEL: u32 = 8;
/// Texture size assumed when a family's map does not store it and none was found.
pub const FALLBACK_TEXTURE_SIZE: [u32; 2] = [64, 64];

#[cfg(test)]
mod tests {
    use super::*;

    /// A map holds one surface per face (55,000 on a large Source map): the record stays at
    /// 32 bytes (the vertex kind is a one-byte enum, not a string reference).
    #[test]
    fn budget_refuses_what_passes_either_limit() {
        let opts = MeshOptions { limits: SceneLimits { max_vertices: 100, max_triangles: 50 }, ..Default::default() };
        let mut b = SceneBudget::new(&opts);
        assert!(b.take(90, 6).is_ok());
        assert!(b.stop().is_ok());
        let e = b.take(11, 0).unwrap_err();
        assert!(e.contains("scene vertices") && e.contains("--max-scene-vertices") && e.contains("101"), "{e}");
        // Sticky: once refused, everything is refused and the build stops.
        assert!(b.take(0, 0).is_err());
        let stop = b.stop().unwrap_err();
        assert_eq!(stop.kind, ErrorKind::LimitExceeded { what: SCENE_VERTICES, requested: 101, limit: 100 });
        let mut b = SceneBudget::new(&opts);
        assert!(b.take(10, 50).is_ok());
        assert!(b.take(0, 1).unwrap_err().contains("scene triangles"));
        assert_eq!(b.stop().unwrap_err().kind.name(), "limit_exceeded");
    }

    #[test]
    fn refused_reservation_is_an_error_not_an_abort() {
        let mut v: Vec<[f32; 3]> = Vec::new();
        let e = try_reserve(&mut v, usize::MAX / 4).unwrap_err();
        assert_eq!(e.kind.name(), "out_of_memory");
    }

    #[test]
    fn surface_is_compact() {
        assert_eq!(std::mem::size_of::<Surface>(), 32);
    }
}
