//! Source as one [`FamilyOps`] value, [`FAMILY`]: what each cross-family
//! layer calls (listed once for all families in [`crate::branches::any`]).

use super::{check, lighting, mesh, schema, stats, texture, tree};
use crate::assets::{AssetOptions, Assets, Missing};
use crate::branch::{Branch, Family};
use crate::branches::ops::{Bounds, FamilyOps, LeafVisReader, MapTextures, PropEntry, TextureEntry, TextureNameStore, VisForm};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::check::problem::Problem;
use crate::error::{Error, Result};
use crate::lumps::gamelump::GameLumps;
use crate::lumps::lighting::{LightOptions, LightSet};
use crate::mesh::scene::{MeshOptions, Scene};
use crate::schema::types::RecordSchema;
use crate::stats::stat::Stat;
use crate::tree::node_tree::TreeParts;
use std::collections::HashSet;

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

    fn check_reads(&self, branch: &Branch) -> Option<&'static [usize]> {
        Some(check::reads(branch))
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

    fn node_tree(&self, bsp: &Bsp) -> Result<TreeParts> {
        tree::parts(bsp)
    }

    fn leaf_visibility(&self) -> Option<LeafVisReader> {
        Some(tree::leaf_visibility)
    }

    /// The names; `pakfile` where the material is carried in the pakfile
    /// (`materials/NAME.vmt` or `.vtf`).
    fn texture_table(&self, bsp: &Bsp) -> Result<Vec<TextureEntry>> {
        let names = texture::names(bsp).map_err(|m| Error::malformed(m.to_string()))?;
        let pak: HashSet<String> = match texture::pakfile(bsp) {
            Ok(Some(p)) => p.entries.iter().map(|e| e.name.to_ascii_lowercase()).collect(),
            _ => HashSet::new(),
        };
        Ok(names
            .into_iter()
            .map(|name| {
                let key = format!("materials/{}", name.to_ascii_lowercase().replace('\\', "/"));
                let carried = pak.contains(&format!("{key}.vmt")) || pak.contains(&format!("{key}.vtf"));
                TextureEntry { name, size: None, found: if carried { "pakfile" } else { "external" } }
            })
            .collect())
    }

    /// The static prop game lump's props (`sprp`, any version bspkit reads).
    fn static_props(&self, bsp: &Bsp) -> Result<Vec<PropEntry>> {
        let list = GameLumps::of(bsp)?.static_props()?.map(|sp| sp.props()).transpose()?;
        Ok(list
            .unwrap_or_default()
            .into_iter()
            .map(|p| PropEntry {
                model: p.model_name,
                origin: p.origin,
                angles: p.angles,
                skin: p.skin,
                solid: p.solid,
                flags: p.flags,
                scale: match (p.uniform_scale, p.scale) {
                    (_, Some(s)) => s.into_iter().fold(f32::MIN, f32::max),
                    (Some(s), None) => s,
                    (None, None) => 1.0,
                },
            })
            .collect())
    }

    fn vis_form(&self) -> Option<VisForm> {
        Some(VisForm::Clusters)
    }

    fn textures<'a>(
        &self,
        bsp: &'a Bsp<'a>,
        _assets: &Assets,
        _options: &AssetOptions,
        warnings: &mut Vec<Missing>,
    ) -> Box<dyn MapTextures + 'a> {
        Box::new(texture::MaterialLookup::new(bsp, warnings))
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
