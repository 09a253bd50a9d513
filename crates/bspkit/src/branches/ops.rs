//! [`FamilyOps`]: everything a cross-family layer asks of an engine family, as one trait. Each
//! family folder implements it once (`branches::<family>::family::FAMILY`), and
//! [`super::any`] is the only file that names every family: the checks, stats, schemas, scenes,
//! lightmaps, texture names and texture renames of a map all go through [`super::any::of`].
//!
//! # Why the trait lives here, and what it may name
//! The layers run bytes → directory → [`Bsp`] → family modules → cross-family layers. The trait's
//! methods return the cross-family layers' types ([`Problem`], [`Stat`], [`Scene`],
//! [`LightSet`], [`RecordSchema`], [`Missing`]), so this module names them — but only their
//! type modules (`check::problem`, `stats::stat`, `mesh::scene`, `lumps::lighting`,
//! `schema::types`, `assets`), never the dispatching modules (`check`, `stats`, `mesh`,
//! `lightmap`, `schema`, `texture`, `rename`), which call through [`super::any`]. The type modules
//! reach none of the dispatching modules (the scene builders take `lightmap::maps::Lightmaps`,
//! not `lightmap`), so one trait serves every layer without an import cycle
//! (`scripts/layers.py`). One trait rather than one per layer: a family is then one value, and a
//! new family is one `impl` in its folder plus one line in [`super::any`].
//!
//! Branch descriptors ([`crate::branch::Branch`]) stay data below `Bsp`, listed by
//! [`super::registry`] for detection; they cannot name this trait (it sits above `Bsp`).
//!
//! Default methods cover concerns a family may lack; the required ones are those every family
//! has. The `quake1` and `goldsrc` values share the Quake 1 code (GoldSrc keeps BSP29's records).

use crate::assets::Missing;
use crate::branch::{Branch, Family};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;

/// One engine family's behaviour: see the module documentation.
pub trait FamilyOps: Sync {
    /// The family this value carries ([`Bsp::family`] of its maps).
    fn family(&self) -> Family;

    /// The family's own cross-reference checks (`bsp check`), after the generic ones.
    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>);

    /// The lump indices [`FamilyOps::check`] reads beyond their length (`None`: any of them).
    /// Only a family with compressed lumps needs a list: the others' lumps cost nothing to read.
    fn check_reads(&self) -> Option<&'static [usize]> {
        None
    }

    /// Whether the first entity must be `worldspawn` by classname (the generic entity check).
    fn world_needs_classname(&self) -> bool {
        true
    }

    /// The rows of the family's native info tool (`bsp info`, [`crate::stats::stats`]).
    fn stats(&self, bsp: &Bsp) -> Vec<Stat>;

    /// The record schema of lump `lump` of `branch`, whose declared record size is `size`, in a
    /// file of byte order `endian` ([`crate::schema::lump_schema`]); `None` (the default) when
    /// the family has none for it.
    fn lump_schema(&self, _branch: &Branch, _lump: &str, _size: usize, _endian: Endian) -> Option<&'static RecordSchema> {
        None
    }

    /// The map's geometry as a scene ([`crate::mesh::build`]).
    fn scene(&self, bsp: &Bsp, opts: &MeshOptions) -> Result<Scene>;

    /// The lit faces and their samples ([`crate::lightmap::collect`]). By default none, with one
    /// warning that the family's lightmaps are not decoded.
    fn lighting<'a>(&self, bsp: &'a Bsp<'a>, _opts: &LightOptions) -> Result<LightSet<'a>> {
        Ok(LightSet {
            warnings: vec![format!("{} lightmaps are not decoded (their layout is not understood yet)", bsp.family().as_str())],
            ..Default::default()
        })
    }

    /// The texture / material names the map uses, once each, in the map's order, read from the
    /// map alone ([`crate::texture::map_texture_names`]).
    fn texture_names(&self, bsp: &Bsp) -> std::result::Result<Vec<String>, Missing>;

    /// Where the map stores texture names, for `bsp rename-texture` ([`crate::rename`]).
    fn texture_name_store(&self) -> TextureNameStore;

    /// The world's bounds as the map stores them: `mins`/`maxs` of model 0 of the family's
    /// model lump (the library tables' `maps` bounds, [`crate::catalog`]). `Ok(None)` when the
    /// map has no model, and by default (a family without a model lump).
    fn world_bounds(&self, _bsp: &Bsp) -> Result<Option<Bounds>> {
        Ok(None)
    }
}

/// An axis-aligned box as a map stores it ([`FamilyOps::world_bounds`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
}

impl Bounds {
    /// From a record's `(mins, maxs)`.
    pub fn of((mins, maxs): ([f32; 3], [f32; 3])) -> Bounds {
        Bounds { mins, maxs }
    }
}

/// Where a family's maps store texture names ([`FamilyOps::texture_name_store`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureNameStore {
    /// The miptex lump's entries (Quake 1, GoldSrc).
    Miptex,
    /// Fixed-size NUL-padded fields: `(lump, field)` pairs by name.
    Fixed(&'static [(&'static str, &'static str)]),
    /// A string data lump and its table of offsets into it. `max_len`: the longest name the
    /// engine reads with its NUL, and the game named in the error for a longer one.
    StringTable { data: &'static str, table: &'static str, max_len: Option<(usize, &'static str)> },
}
