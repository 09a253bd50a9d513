//! [`FamilyOps`]: everything a cross-family layer asks of an engine family, as one trait. Each
//! family folder implements it once (`branches::<family>::family::FAMILY`), and
//! [`super::any`] is the only file that names every family: the checks, stats, schemas, scenes,
//! lightmaps, texture names and texture renames of a map all go through [`super::any::of`].
//!
//! # Why the trait lives here, and what it may name
//! The layers run bytes → directory → [`Bsp`] → family modules → cross-family layers. The trait's
//! methods return the cross-family layers' types ([`Problem`], [`Stat`], [`Scene`],
//! [`LightSet`], [`RecordSchema`], [`Missing`], [`TreeParts`]), so this module names them — but
//! only their type modules (`check::problem`, `stats::stat`, `mesh::scene`, `lumps::lighting`,
//! `schema::types`, `assets`, `tree::node_tree`), never the dispatching modules (`check`,
//! `stats`, `mesh`, `lightmap`, `schema`, `texture`, `rename`, `tree`), which call through
//! [`super::any`]. The type modules
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
//!
//! # Matches on a family left outside the family folders, and why
//! Every concern of one family goes through this trait (checks, stats, schemas, scenes,
//! lighting, texture names and lookup, node tree, viewer visibility, decode's visibility form,
//! library-table texture and prop rows, binary entity lumps, scene lightmap UVs). What still
//! names a family elsewhere is one of these:
//! - **Below [`Bsp`]**, where this trait cannot be reached (it sits above `Bsp`):
//!   `bsp.rs` (a Genesis3D entity chunk's text form, cached in the map), `external.rs` (Respawn
//!   `.bsp_lump` and Source `.lmp` files read at open), `lumps/miptex.rs` and
//!   `lumps/gamelump_map.rs` (which families have a miptex lump / game lumps), and the type
//!   modules this trait names: `lumps/lighting.rs` (each family's overbright constant) and
//!   `lightmap/maps.rs` (Source's face lumps 7/58). Moving them means data on
//!   [`crate::branch::Branch`] descriptors, not this trait.
//! - **Between two named families**: `convert` (each supported pair of source and target
//!   family is its own converter, e.g. Titanfall ↔ Titanfall 2, Quake 1 ↔ BSP2) — a pair is
//!   not one family's concern.
//! - **One family's own feature**: `mapset.rs` writes Respawn `.bsp_lump` sets and refuses other
//!   families; `convert/mod.rs`'s Respawn `.ent` partitions beside an output.
//! - **Not moved yet**: `decompile` (each family's brush extraction and `.map` dialect) — it
//!   would be a `FamilyOps::decompile` method; left while that module is being changed by
//!   other work (its surface flags by texture name did move: [`FamilyOps::name_flags`]).

use crate::assets::{AssetOptions, Assets, Missing, MissingKind, Texture};
use crate::branch::{Branch, Family};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::lumps::visibility::LeafVisibility;
use crate::mesh::scene::{MeshOptions, Scene, SurfaceFlags};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;
use crate::tree::node_tree::TreeParts;

/// One engine family's behaviour: see the module documentation.
pub trait FamilyOps: Sync {
    /// The family this value carries ([`Bsp::family`] of its maps).
    fn family(&self) -> Family;

    /// The family's own cross-reference checks (`bsp check`), after the generic ones.
    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>);

    /// The lump indices [`FamilyOps::check`] reads beyond their length (`None`: any of them).
    /// Only a family with compressed lumps needs a list: the others' lumps cost nothing to read.
    fn check_reads(&self, _branch: &Branch) -> Option<&'static [usize]> {
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

    /// The surface flags (sky, clip, trigger, tool) a texture name stands for, as the family's
    /// drawing code flags it, for faces known by name alone (a decompile's brush sides,
    /// [`crate::decompile`]). By default: `tools/…` and names with `skybox` are tools.
    fn name_flags(&self, name: &str) -> SurfaceFlags {
        let n = name.to_ascii_lowercase();
        if n.starts_with("tools/") || n.contains("skybox") {
            SurfaceFlags::TOOL
        } else {
            SurfaceFlags::NONE
        }
    }

    /// Whether the family's scenes carry lightmap UVs of their own even where no face is lit
    /// here (Respawn: its meshes' UVs point into pages not decoded), so an export writes them
    /// without an image ([`crate::export`]). By default they come from the lit faces only.
    fn scene_lightmap_uvs(&self) -> bool {
        false
    }

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

    /// The form of the map's VISIBILITY lump where it decodes without the family's other lumps
    /// ([`crate::decode`] counts its rows); `None` (the default) when it needs them (Quake 1's
    /// leaf table) or the family has none.
    fn vis_form(&self) -> Option<VisForm> {
        None
    }

    /// The family's own structures that a thorough decode reads beyond the lumps and entities
    /// ([`crate::decode`] with `thorough`): by default none.
    fn decode_thorough(&self, _bsp: &Bsp) -> Result<()> {
        Ok(())
    }

    /// The map's textures as the library tables list them ([`crate::catalog`]): each name
    /// once, its size where the map records it, and where it is found. By default the family's
    /// [`FamilyOps::texture_names`], each `external` (an unreadable list is the error).
    fn texture_table(&self, bsp: &Bsp) -> Result<Vec<TextureEntry>> {
        let names = self.texture_names(bsp).map_err(|m| Error::malformed(m.to_string()))?;
        Ok(names.into_iter().map(|name| TextureEntry { name, size: None, found: "external" }).collect())
    }

    /// The map's static props as the library tables list them ([`crate::catalog`]); by
    /// default none (a family without a static prop game lump).
    fn static_props(&self, _bsp: &Bsp) -> Result<Vec<PropEntry>> {
        Ok(Vec::new())
    }

    /// How the family stores its entity lump when it is not the text itself ([`crate::edit`]
    /// edits the text form and writes it back in this form); `None` (the default): the lump
    /// is the text.
    fn entity_codec(&self) -> Option<EntityCodec> {
        None
    }

    /// The map's node tree as its nodes, planes, leaf count and model roots ([`crate::tree`]).
    /// By default [`ErrorKind::NoSuchLump`]: the family has no node tree bspkit reads.
    fn node_tree(&self, bsp: &Bsp) -> Result<TreeParts> {
        Err(Error::new(ErrorKind::NoSuchLump(format!("node tree support for the {} family", bsp.family().as_str()))))
    }

    /// The reader of the map's leaves and visibility rows for the viewer's PVS culling
    /// ([`crate::view::visibility`], run after the node tree is read); `None` (the default):
    /// the family has none the viewer uses.
    fn leaf_visibility(&self) -> Option<LeafVisReader> {
        None
    }

    /// The map's texture lookup, set up once per map for [`crate::texture::TextureSource`]
    /// from the search path `assets` and the command's `options`; problems met while setting
    /// up (a WAD the map names but not found, no palette) go to `warnings`. By default the
    /// family's textures are names only: each is reported as unsupported.
    fn textures<'a>(
        &self,
        bsp: &'a Bsp<'a>,
        _assets: &Assets,
        _options: &AssetOptions,
        _warnings: &mut Vec<Missing>,
    ) -> Box<dyn MapTextures + 'a> {
        Box::new(NamesOnly(bsp))
    }
}

/// One map's texture lookup ([`FamilyOps::textures`]): what a family needs besides the search
/// path (palette, WADs, shader index, pakfile), and how it finds and decodes a texture.
/// [`crate::texture::TextureSource`] charges the texel budget around these calls.
pub trait MapTextures {
    /// The names, when the lookup read them while it was set up; `None` (the default): the
    /// family's [`FamilyOps::texture_names`].
    fn names(&self) -> Option<Vec<String>> {
        None
    }

    /// The texture the map calls `name`, from the map or the search path `assets`.
    fn resolve(&self, name: &str, assets: &Assets) -> std::result::Result<Texture, Missing>;

    /// The textures the map carries, in the order [`crate::texture::TextureSource::textures`]
    /// walks them. By default none, and every name is looked up.
    fn carried(&self) -> Carried {
        Carried { jobs: Vec::new(), carried_names: Vec::new(), then_names: true }
    }

    /// Carried texture `i`'s name and texel count as the map declares them, asked of the
    /// texel budget before [`MapTextures::decode_carried`] allocates; `None` when not known.
    fn carried_texels(&self, _i: usize) -> Option<(String, u64)> {
        None
    }

    /// Carried texture `i` ([`TextureJob::Carried`]) decoded.
    fn decode_carried(&self, i: usize, _assets: &Assets) -> std::result::Result<Texture, Missing> {
        Err(Missing::new(format!("(carried texture {i})"), MissingKind::NotFound, "the map carries no textures"))
    }
}

/// What a map carries ([`MapTextures::carried`]).
pub struct Carried {
    /// One step per texture, in walking order.
    pub jobs: Vec<TextureJob>,
    /// Names of carried textures, skipped when the names are looked up after them.
    pub carried_names: Vec<String>,
    /// Whether every name the map uses (less `carried_names`) is looked up after the jobs.
    pub then_names: bool,
}

/// One step of walking a map's textures ([`Carried::jobs`]).
pub enum TextureJob {
    /// Carried texture `i`: [`MapTextures::decode_carried`].
    Carried(usize),
    /// A name to look up: [`MapTextures::resolve`].
    Name(String),
    /// A texture that cannot be produced.
    Failed(Missing),
}

/// The default lookup: the family's textures are kept in the game's own archives.
struct NamesOnly<'a>(&'a Bsp<'a>);

impl MapTextures for NamesOnly<'_> {
    fn resolve(&self, name: &str, _assets: &Assets) -> std::result::Result<Texture, Missing> {
        Err(Missing::new(
            name,
            MissingKind::Unsupported,
            format!("{} textures are kept in the game's own archives, which bspkit does not read", self.0.branch().title),
        ))
    }
}

/// A family's reader of [`LeafVisibility`] ([`FamilyOps::leaf_visibility`]).
pub type LeafVisReader = for<'a> fn(&'a Bsp<'a>) -> Result<LeafVisibility<'a>>;

/// One texture of [`FamilyOps::texture_table`].
#[derive(Debug, Clone, PartialEq)]
pub struct TextureEntry {
    pub name: String,
    /// Width and height in texels, where the map records them.
    pub size: Option<[u32; 2]>,
    /// `miptex` (the texture lump), `pakfile` (a VTF in a Source map's pakfile) or `external`
    /// (only named: WADs, game directories).
    pub found: &'static str,
}

/// One static prop of [`FamilyOps::static_props`].
#[derive(Debug, Clone, PartialEq)]
pub struct PropEntry {
    /// Model path as stored; `None` when the prop's model index is past the dictionary.
    pub model: Option<String>,
    pub origin: [f32; 3],
    /// Pitch, yaw, roll in degrees.
    pub angles: [f32; 3],
    pub skin: i32,
    pub solid: u8,
    pub flags: u32,
    /// The largest scale factor (1 when the prop is not scaled).
    pub scale: f32,
}

/// A binary entity lump's text form and back ([`FamilyOps::entity_codec`]); errors carry
/// offsets within the lump.
#[derive(Debug, Clone, Copy)]
pub struct EntityCodec {
    pub to_text: fn(&[u8]) -> Result<Vec<u8>>,
    pub from_text: fn(&[u8]) -> Result<Vec<u8>>,
}

/// How a family's VISIBILITY lump is laid out ([`FamilyOps::vis_form`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisForm {
    /// Cluster PVS and PAS rows behind a table of offsets ([`crate::lumps::visibility::ClusterVis`]).
    Clusters,
    /// Quake 3's bit rows of one size ([`crate::lumps::visibility::Q3Vis`]).
    Quake3,
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
