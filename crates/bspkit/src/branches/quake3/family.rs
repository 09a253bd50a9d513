//! Quake 3 and its branches as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
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

/// The Quake 3 family (IBSP 46/47 and its branches).
pub struct Quake3Family;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: Quake3Family = Quake3Family;

impl FamilyOps for Quake3Family {
    fn family(&self) -> Family {
        Family::Quake3
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }

    fn stats(&self, bsp: &Bsp) -> Vec<Stat> {
        stats::q3map2_info(bsp)
    }

    fn lump_schema(&self, branch: &Branch, lump: &str, _size: usize, _endian: Endian) -> Option<&'static RecordSchema> {
        schema::lump_schema(branch, lump)
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
        TextureNameStore::Fixed(&[("SHADERS", "name"), ("FOGS", "shader")])
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
        Some(VisForm::Quake3)
    }

    fn textures<'a>(
        &self,
        _bsp: &'a Bsp<'a>,
        assets: &Assets,
        _options: &AssetOptions,
        warnings: &mut Vec<Missing>,
    ) -> Box<dyn MapTextures + 'a> {
        Box::new(texture::ShaderLookup::new(assets, warnings))
    }

    fn world_bounds(&self, bsp: &Bsp) -> Result<Option<Bounds>> {
        super::lumps::with_record_set!(bsp.branch(), world_bounds(bsp))
    }
}

/// Model 0's `mins`/`maxs` (`dmodel_t`; the model lump's slot depends on the record set).
fn world_bounds<L: super::records::Layout>(bsp: &Bsp) -> Result<Option<Bounds>> {
    let models = super::view::View::<L>::new(bsp)?.models()?;
    Ok(models.first().map(|m| Bounds { mins: m.mins.map(|v| v.get()), maxs: m.maxs.map(|v| v.get()) }))
}
