//! Quake 1, BSP2, 2PSB and Hexen II as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
//! layer calls (listed once for all families in [`crate::branches::any`]). GoldSrc's value is
//! the same type.

use super::lumps::with_record_set;
use super::records::{Layout, ModelRecord};
use super::view::View;
use super::{check, lighting, mesh, schema, stats, texture, tree};
use crate::assets::{AssetOptions, Assets, Missing};
use crate::branch::{Branch, Family};
use crate::branches::ops::{Bounds, FamilyOps, LeafVisReader, MapTextures, TextureEntry, TextureNameStore};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene, SurfaceFlags};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;
use crate::tree::node_tree::TreeParts;

/// The Quake 1 family (BSP29, BSP2, 2PSB, Hexen II), and GoldSrc's, whose concerns are the
/// same code read with BSP29 records ([`crate::branches::goldsrc::family`]): the field is
/// the family the value stands for.
pub struct Quake1Family(pub(crate) Family);

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: Quake1Family = Quake1Family(Family::Quake);

impl FamilyOps for Quake1Family {
    fn family(&self) -> Family {
        self.0
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }

    fn stats(&self, bsp: &Bsp) -> Vec<Stat> {
        stats::bspinfo(bsp)
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
        texture::names(bsp)
    }

    fn texture_name_store(&self) -> TextureNameStore {
        TextureNameStore::Miptex
    }

    fn name_flags(&self, name: &str) -> SurfaceFlags {
        mesh::flags_of(name)
    }

    fn node_tree(&self, bsp: &Bsp) -> Result<TreeParts> {
        tree::parts(bsp)
    }

    fn leaf_visibility(&self) -> Option<LeafVisReader> {
        Some(tree::leaf_visibility)
    }

    /// Every entry of the texture lump with its size: `miptex` when its pixels are in the map.
    fn texture_table(&self, bsp: &Bsp) -> Result<Vec<TextureEntry>> {
        let Some(lump) = crate::lumps::miptex::of(bsp)? else { return Ok(Vec::new()) };
        Ok(lump
            .iter()
            .filter_map(|t| t.ok().flatten())
            .map(|t| {
                let h = t.header;
                let found = if t.embedded() { "miptex" } else { "external" };
                TextureEntry { name: t.name().into_owned(), size: Some([h.width.get(), h.height.get()]), found }
            })
            .collect())
    }

    fn textures<'a>(
        &self,
        bsp: &'a Bsp<'a>,
        assets: &Assets,
        options: &AssetOptions,
        warnings: &mut Vec<Missing>,
    ) -> Box<dyn MapTextures + 'a> {
        Box::new(texture::MiptexLookup::new(bsp, assets, options, warnings))
    }

    fn world_bounds(&self, bsp: &Bsp) -> Result<Option<Bounds>> {
        with_record_set!(bsp.branch(), world_bounds(bsp))
    }
}

/// Model 0's `mins`/`maxs` (quake_family.md B.16) in the map's record set.
fn world_bounds<L: Layout>(bsp: &Bsp) -> Result<Option<Bounds>> {
    Ok(View::<L>::new(bsp).models()?.first().map(|m| Bounds::of(m.bounds())))
}
