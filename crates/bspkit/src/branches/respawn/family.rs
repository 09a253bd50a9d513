//! Respawn (Titanfall, Titanfall 2, Apex Legends) as one [`FamilyOps`] value, [`FAMILY`]: what
//! each cross-family layer calls (listed once for all families in [`crate::branches::any`]).

use super::{check, lighting, mesh, schema, stats, texture};
use crate::assets::Missing;
use crate::branch::{Branch, Family};
use crate::branches::ops::{Bounds, FamilyOps, PropEntry, TextureNameStore};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::Result;
use crate::lumps::gamelump::{GameLumps, LUMP_GAME_LUMP};
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene, SurfaceFlags};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;

/// The Respawn family (Titanfall, Titanfall 2, Apex Legends).
pub struct RespawnFamily;

/// The one value of this family, for [`crate::branches::any`].
pub static FAMILY: RespawnFamily = RespawnFamily;

impl FamilyOps for RespawnFamily {
    fn family(&self) -> Family {
        Family::Respawn
    }

    fn check(&self, bsp: &Bsp, problems: &mut Vec<Problem>) {
        check::check(bsp, problems)
    }

    fn stats(&self, bsp: &Bsp) -> Vec<Stat> {
        // No native info tool exists for Respawn maps: a contents table instead.
        stats::stats(bsp)
    }

    fn lump_schema(&self, branch: &Branch, lump: &str, size: usize, _endian: Endian) -> Option<&'static RecordSchema> {
        schema::lump_schema(branch, lump, size)
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
        TextureNameStore::StringTable { data: "TEXTURE_DATA_STRING_DATA", table: "TEXTURE_DATA_STRING_TABLE", max_len: None }
    }

    fn name_flags(&self, name: &str) -> SurfaceFlags {
        mesh::name_flags(name)
    }

    /// The `.ent` partition kinds the map's entity lumps declare.
    /// Its meshes carry their own lightmap UVs (on pages not decoded).
    fn scene_lightmap_uvs(&self) -> bool {
        true
    }

    fn decode_thorough(&self, bsp: &Bsp) -> Result<()> {
        super::ent::partition_kinds(bsp).map(|_| ())
    }

    /// The `sprp` game lump's props in the branch's layout.
    fn static_props(&self, bsp: &Bsp) -> Result<Vec<PropEntry>> {
        let gl = GameLumps::of(bsp)?;
        let Some(e) = gl.find(b"sprp") else { return Ok(Vec::new()) };
        let data = gl.bytes_of(e).map_err(|err| bsp.lump_error(LUMP_GAME_LUMP, err))?;
        let sp =
            super::sprp::RespawnStaticProps::parse(data, e.version, bsp.branch().id).map_err(|err| bsp.lump_error(LUMP_GAME_LUMP, err))?;
        Ok(sp
            .props()
            .into_iter()
            .map(|p| PropEntry {
                model: p.model_name,
                origin: p.origin,
                angles: p.angles,
                skin: p.skin,
                solid: p.solid,
                flags: u32::from(p.flags),
                scale: p.scale,
            })
            .collect())
    }

    fn world_bounds(&self, bsp: &Bsp) -> Result<Option<Bounds>> {
        use super::view::{Apex, Titanfall, Titanfall2, TitanfallX360};
        match bsp.branch().id {
            "titanfall" => world_bounds::<Titanfall>(bsp),
            "titanfall_x360" => world_bounds::<TitanfallX360>(bsp),
            "titanfall2" => world_bounds::<Titanfall2>(bsp),
            _ => world_bounds::<Apex>(bsp),
        }
    }
}

/// Model 0's `mins`/`maxs` in the game's model record.
fn world_bounds<G: super::view::Game>(bsp: &Bsp) -> Result<Option<Bounds>> {
    use super::records::ModelRecord;
    Ok(super::view::View::<G>::new(bsp)?.models()?.first().map(|m| Bounds::of(m.bounds())))
}
