//! Quake 2 and its branches as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
//! layer calls (listed once for all families in [`crate::branches::any`]).

use super::{check, lighting, mesh, schema, stats, texture, tree};
use crate::assets::{AssetOptions, Assets, Missing};
use crate::branch::{Branch, Family};
use crate::branches::ops::{Bounds, FamilyOps, LeafVisReader, MapTextures, TextureNameStore, VisForm};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene, SurfaceFlags};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;
use crate::tree::node_tree::TreeParts;

/// The Quake 2 family (IBSP 38 and its branches).
pub struct Quake2Family;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: Quake2Family = Quake2Family;

impl FamilyOps for Quake2Family {
    fn family(&self) -> Family {
        Family::Quake2
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }

    fn stats(&self, bsp: &Bsp) -> Vec<Stat> {
        stats::stats(bsp)
    }

    fn lump_schema(&self, branch: &Branch, lump: &str, _size: usize, _endian: Endian) -> Option<&'static RecordSchema> {
        schema::lump_schema(branch, lump)
    }

    fn scene(&self, bsp: &Bsp, opts: &MeshOptions) -> Result<Scene> {
        mesh::build(bsp, opts)
    }

    fn lighting<'a>(&self, bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
        lighting::collect(bsp, opts)
    }

    fn texture_names(&self, bsp: &Bsp) -> std::result::Result<Vec<String>, Missing> {
        Ok(texture::names(bsp)?.into_iter().map(|(n, _)| n).collect())
    }

    fn texture_name_store(&self) -> TextureNameStore {
        TextureNameStore::Fixed(&[("TEXINFO", "texture")])
    }

    fn name_flags(&self, name: &str) -> SurfaceFlags {
        mesh::name_flags(name)
    }

    fn node_tree(&self, bsp: &Bsp) -> Result<TreeParts> {
        tree::parts(bsp)
    }

    fn leaf_visibility(&self) -> Option<LeafVisReader> {
        Some(tree::leaf_visibility)
    }

    fn vis_form(&self) -> Option<VisForm> {
        Some(VisForm::Clusters)
    }

    fn textures<'a>(
        &self,
        bsp: &'a Bsp<'a>,
        assets: &Assets,
        _options: &AssetOptions,
        warnings: &mut Vec<Missing>,
    ) -> Box<dyn MapTextures + 'a> {
        Box::new(texture::WalLookup::new(bsp, assets, warnings))
    }

    fn world_bounds(&self, bsp: &Bsp) -> Result<Option<Bounds>> {
        use super::records::{Daikatana, Ibsp, Layout, Qbism, Sin, Sof};
        use super::view::View;
        // Every Quake 2 record set shares `dmodel_t`; the view checks the branch.
        let models = match bsp.branch().id {
            id if id == Qbism::BRANCH_ID => View::<Qbism>::new(bsp)?.models()?,
            id if id == Sin::BRANCH_ID => View::<Sin>::new(bsp)?.models()?,
            id if id == Sof::BRANCH_ID => View::<Sof>::new(bsp)?.models()?,
            id if id == Daikatana::BRANCH_ID => View::<Daikatana>::new(bsp)?.models()?,
            _ => View::<Ibsp>::new(bsp)?.models()?,
        };
        Ok(models.first().map(|m| Bounds { mins: m.mins.map(|v| v.get()), maxs: m.maxs.map(|v| v.get()) }))
    }
}
