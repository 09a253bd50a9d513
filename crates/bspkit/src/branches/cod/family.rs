//! Call of Duty (CoD 1, 2 and 4) as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
//! layer calls (listed once for all families in [`crate::branches::any`]).

use super::{check, lighting, mesh, schema, stats, texture};
use crate::assets::Missing;
use crate::branch::{Branch, Family};
use crate::branches::ops::{Bounds, FamilyOps, TextureNameStore};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene, SurfaceFlags};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;

/// The Call of Duty family (CoD 1, 2 and 4).
pub struct CodFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: CodFamily = CodFamily;

impl FamilyOps for CodFamily {
    fn family(&self) -> Family {
        Family::Cod
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

    fn lighting<'a>(&self, bsp: &'a Bsp<'a>, _opts: &LightOptions) -> Result<LightSet<'a>> {
        lighting::collect(bsp)
    }

    fn texture_names(&self, bsp: &Bsp) -> std::result::Result<Vec<String>, Missing> {
        texture::names(bsp)
    }

    fn texture_name_store(&self) -> TextureNameStore {
        TextureNameStore::Fixed(&[("MATERIALS", "name")])
    }

    fn name_flags(&self, name: &str) -> SurfaceFlags {
        mesh::name_flags(name)
    }

    fn world_bounds(&self, bsp: &Bsp) -> Result<Option<Bounds>> {
        use super::lumps::{cod1_ids, cod2_ids, is_cod12, LUMP_MODELS};
        // CoD4's `Model` and CoD1/2's `Model12` both start with `mins`, `maxs`.
        if !is_cod12(bsp.branch()) {
            let models: &[super::records::Model] = bsp.records(LUMP_MODELS)?;
            return Ok(models.first().map(|m| Bounds { mins: m.mins.map(|v| v.get()), maxs: m.maxs.map(|v| v.get()) }));
        }
        let lump = if bsp.branch().id == "cod2" { cod2_ids::MODELS } else { cod1_ids::MODELS };
        let models: &[super::records12::Model12] = bsp.records(lump)?;
        Ok(models.first().map(|m| Bounds { mins: m.mins.map(|v| v.get()), maxs: m.maxs.map(|v| v.get()) }))
    }
}
