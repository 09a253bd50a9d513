//! Source as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
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
use crate::mesh::scene::{MeshOptions, Scene};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;

/// The Source family.
pub struct SourceFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: SourceFamily = SourceFamily;

impl FamilyOps for SourceFamily {
    fn family(&self) -> Family {
        Family::Source
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }

    fn check_reads(&self) -> Option<&'static [usize]> {
        Some(check::READS)
    }

    fn stats(&self, bsp: &Bsp) -> Vec<Stat> {
        stats::stats(bsp)
    }

    fn lump_schema(&self, branch: &Branch, lump: &str, size: usize, endian: Endian) -> Option<&'static RecordSchema> {
        schema::lump_schema(branch, lump, size, endian)
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
        TextureNameStore::StringTable { data: "TEXDATA_STRING_DATA", table: "TEXDATA_STRING_TABLE", max_len: Some((128, "Source")) }
    }

    fn world_bounds(&self, bsp: &Bsp) -> Result<Option<Bounds>> {
        match bsp.endian() {
            Endian::Little => world_bounds::<zerocopy::LittleEndian>(bsp),
            Endian::Big => world_bounds::<zerocopy::BigEndian>(bsp),
        }
    }
}

/// Model 0's `mins`/`maxs` (`dmodel_t`; Dark Messiah's records read in Valve's form).
fn world_bounds<O: zerocopy::ByteOrder>(bsp: &Bsp) -> Result<Option<Bounds>> {
    use super::records::v3;
    let models = super::view::View::<O>::new(bsp)?.models()?;
    Ok(models.first().map(|m| Bounds { mins: v3(&m.mins), maxs: v3(&m.maxs) }))
}
