//! Genesis3D as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
//! layer calls (listed once for all families in [`crate::branches::any`]).

use super::{check, lighting, mesh, schema, stats, texture, tree};
use crate::assets::{AssetOptions, Assets, Missing};
use crate::branch::{Branch, Family};
use crate::branches::ops::{Bounds, EntityCodec, FamilyOps, MapTextures, TextureNameStore};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;
use crate::tree::node_tree::TreeParts;

/// The Genesis3D family.
pub struct Genesis3DFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: Genesis3DFamily = Genesis3DFamily;

impl FamilyOps for Genesis3DFamily {
    fn family(&self) -> Family {
        Family::Genesis3D
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }

    /// GBSPLib writes the world entity without a classname (its keys are the world's:
    /// `TextureLib`, `Sky*`), so only its presence is checked.
    fn world_needs_classname(&self) -> bool {
        false
    }

    fn stats(&self, bsp: &Bsp) -> Vec<Stat> {
        stats::stats(bsp)
    }

    fn lump_schema(&self, _branch: &Branch, lump: &str, _size: usize, _endian: Endian) -> Option<&'static RecordSchema> {
        schema::lump_schema(lump)
    }

    fn scene(&self, bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
        mesh::build(bsp, opts)
    }

    fn lighting<'a>(&self, bsp: &'a Bsp<'a>, _opts: &LightOptions) -> Result<LightSet<'a>> {
        lighting::collect(bsp)
    }

    fn texture_names(&self, bsp: &Bsp) -> std::result::Result<Vec<String>, Missing> {
        texture::names(bsp)
    }

    fn texture_name_store(&self) -> TextureNameStore {
        TextureNameStore::Fixed(&[("TEXTURES", "name")])
    }

    fn node_tree(&self, bsp: &Bsp) -> Result<TreeParts> {
        tree::parts(bsp)
    }

    /// The entity chunk is binary: edited as its text form (GBSPLib's pairs re-encoded).
    fn entity_codec(&self) -> Option<EntityCodec> {
        Some(EntityCodec { to_text: super::ents::to_text, from_text: super::ents::from_text })
    }

    fn textures<'a>(
        &self,
        bsp: &'a Bsp<'a>,
        _assets: &Assets,
        _options: &AssetOptions,
        _warnings: &mut Vec<Missing>,
    ) -> Box<dyn MapTextures + 'a> {
        Box::new(texture::ChunkLookup(bsp))
    }

    fn world_bounds(&self, bsp: &Bsp) -> Result<Option<Bounds>> {
        let models = super::view::View::new(bsp)?.models()?;
        Ok(models.first().map(|m| Bounds { mins: m.mins.map(|v| v.get()), maxs: m.maxs.map(|v| v.get()) }))
    }
}
