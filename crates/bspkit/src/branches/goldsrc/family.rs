//! GoldSrc and Blue Shift as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family layer
//! calls (listed once for all families in [`crate::branches::any`]). The concerns are Quake 1's,
//! read with BSP29 records.

use crate::assets::Missing;
use crate::branch::{Branch, Family};
use crate::branches::ops::{FamilyOps, TextureNameStore};
use crate::branches::quake1::{check, lighting, mesh, schema, stats, texture};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;

/// The GoldSrc family (GoldSrc BSP30 and Blue Shift).
pub struct GoldSrcFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: GoldSrcFamily = GoldSrcFamily;

impl FamilyOps for GoldSrcFamily {
    fn family(&self) -> Family {
        Family::GoldSrc
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
}
