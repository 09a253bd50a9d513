//! James Bond 007: Nightfire as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
//! layer calls (listed once for all families in [`crate::branches::any`]). Lightmaps keep the
//! trait's default ("not decoded"): the sources give a face's luxel extent from its lightmap
//! projection ([`super::lightmap`]), but not how many bytes a luxel takes nor whether a row holds
//! `extent` or `extent + 1` luxels, so the samples cannot be placed.

use super::{check, mesh, schema, stats, texture};
use crate::assets::Missing;
use crate::branch::{Branch, Family};
use crate::branches::ops::{FamilyOps, TextureNameStore};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::mesh::scene::{MeshOptions, Scene};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;

/// The Nightfire family.
pub struct NightfireFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: NightfireFamily = NightfireFamily;

impl FamilyOps for NightfireFamily {
    fn family(&self) -> Family {
        Family::Nightfire
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
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

    fn texture_names(&self, bsp: &Bsp) -> std::result::Result<Vec<String>, Missing> {
        texture::names(bsp)
    }

    fn texture_name_store(&self) -> TextureNameStore {
        TextureNameStore::Fixed(&[("TEXTURES", "name")])
    }
}
