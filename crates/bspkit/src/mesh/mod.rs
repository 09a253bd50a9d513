//! The scene model: any map's geometry as models → surfaces → vertices, one layer for every
//! family, for exporters (`bsp export`), the renderer and the Python bindings.
//!
//! [`build`] calls the map's family's [`crate::branches::ops::FamilyOps`] value; each family's
//! part lives beside its lump table in `branches/<family>/mesh.rs` and fills the types of [`scene`]. The layers below
//! (directory, records, [`crate::Bsp`], views) never import this module.
//!
//! ```
//! # fn main() -> bspkit::Result<()> {
//! let bytes = bspkit::build::sample_quake1();
//! let bsp = bspkit::Bsp::from_bytes(&bytes)?;
//! let scene = bspkit::mesh::build(&bsp, &Default::default())?;
//! let world = &scene.models[0];
//! for s in &world.surfaces {
//!     let _material = &scene.materials[s.material as usize].name;
//!     let _triangles = &world.indices[s.indices.start as usize..s.indices.end as usize];
//! }
//! # Ok(()) }
//! ```

pub mod geom;
pub mod hull;
pub mod place;
pub mod scene;

pub use scene::{
    Material, MaterialTable, MeshOptions, Model, ModelSelect, Prop, Scene, SceneBudget, SceneLimits, Skipped, Surface, SurfaceFlags,
    SurfaceKind, Vertices, DEFAULT_MAX_SCENE_TRIANGLES, DEFAULT_MAX_SCENE_VERTICES, DEFAULT_PATCH_LEVEL, FALLBACK_TEXTURE_SIZE,
};

use crate::branches::any;
use crate::bsp::Bsp;
use crate::error::Result;

/// Build the scene of `bsp`.
pub fn build(bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
    any::of(bsp.family()).scene(bsp, opts)
}
