//! The one file that names every engine family's [`FamilyOps`] value (as the `object` crate's
//! `read/any.rs` names its formats). Every cross-family layer — checks, stats, schemas, scenes,
//! lightmaps, texture names — asks [`of`] for the map's family and calls through the trait.
//!
//! # Adding a family
//! 1. A variant of [`Family`] (`branch.rs`: the name reported as `format.family`).
//! 2. A folder `branches/<family>/` with its `lumps` (branch descriptors, data) and its
//!    concerns, and a `family.rs` implementing [`FamilyOps`] as one value `FAMILY` (the
//!    required methods: checks, stats rows, scene, texture names and where they are stored;
//!    defaults for the rest: record schemas, lighting, the lumps the checks read, world
//!    bounds, texture lookup, node tree, viewer and decode visibility, library-table rows,
//!    a binary entity lump).
//! 3. One line in [`of`] below, and its branches in [`super::registry`] (detection and
//!    `--branch` sit below `Bsp`, so they list the descriptors, not this trait).
//!
//! The test `tests::a_new_family_needs_only_the_required_methods` implements the trait with the
//! required methods alone, so the list above is checked to be complete.

use super::ops::FamilyOps;
use crate::branch::Family;

/// The value of `family`: the one place that maps a family to its behaviour.
pub fn of(family: Family) -> &'static dyn FamilyOps {
    match family {
        Family::Quake => &super::quake1::family::FAMILY,
        Family::GoldSrc => &super::goldsrc::family::FAMILY,
        Family::Quake2 => &super::quake2::family::FAMILY,
        Family::Quake3 => &super::quake3::family::FAMILY,
        Family::Source => &super::source::family::FAMILY,
        Family::Respawn => &super::respawn::family::FAMILY,
        Family::Cod => &super::cod::family::FAMILY,
        Family::Genesis3D => &super::genesis3d::family::FAMILY,
        Family::Nightfire => &super::nightfire::family::FAMILY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::Missing;
    use crate::branches::ops::TextureNameStore;
    use crate::bsp::Bsp;
    use crate::bytes::Endian;
    use crate::check::problem::Problem;
    use crate::error::Result;
    use crate::mesh::scene::{MeshOptions, Scene};
    use crate::stats::stat::Stat;

    #[test]
    fn every_branch_reaches_the_value_of_its_family() {
        for b in crate::branches::all() {
            assert_eq!(of(b.family).family(), b.family, "{}", b.id);
        }
    }

    /// What a new family has to write: the required methods and nothing else. Every other
    /// concern has a default (no lump list for the checks, worldspawn by classname, no record
    /// schemas, lightmaps "not decoded").
    struct NewFamily;

    impl FamilyOps for NewFamily {
        fn family(&self) -> Family {
            Family::Quake
        }
        fn check(&self, _bsp: &Bsp, _problems: &mut Vec<Problem>) {}
        fn stats(&self, _bsp: &Bsp) -> Vec<Stat> {
            Vec::new()
        }
        fn scene(&self, _bsp: &Bsp, _opts: &MeshOptions) -> Result<Scene> {
            Ok(Scene::default())
        }
        fn texture_names(&self, _bsp: &Bsp) -> std::result::Result<Vec<String>, Missing> {
            Ok(Vec::new())
        }
        fn texture_name_store(&self) -> TextureNameStore {
            TextureNameStore::Fixed(&[])
        }
    }

    #[test]
    fn a_new_family_needs_only_the_required_methods() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let f = NewFamily;
        assert_eq!(f.check_reads(bsp.branch()), None);
        assert!(f.world_needs_classname());
        assert!(f.lump_schema(bsp.branch(), "PLANES", 20, Endian::Little).is_none());
        let set = f.lighting(&bsp, &Default::default()).unwrap();
        assert!(set.faces.is_empty());
        assert_eq!(set.warnings, ["quake lightmaps are not decoded (their layout is not understood yet)"]);
        // The other defaults: the fallbacks the cross-family layers had before they asked the
        // family (no tree, no visibility form or viewer rows, texture rows from the names,
        // no props, the entity lump is text, names only for textures, generic name flags).
        assert!(f.node_tree(&bsp).is_err());
        assert_eq!(f.vis_form(), None);
        assert!(f.leaf_visibility().is_none());
        assert!(f.decode_thorough(&bsp).is_ok());
        assert!(f.texture_table(&bsp).unwrap().is_empty());
        assert!(f.static_props(&bsp).unwrap().is_empty());
        assert!(f.entity_codec().is_none());
        assert!(!f.scene_lightmap_uvs());
        assert_eq!(f.name_flags("tools/toolsclip"), crate::mesh::scene::SurfaceFlags::TOOL);
        assert_eq!(f.name_flags("wall"), crate::mesh::scene::SurfaceFlags::NONE);
        let looked_up = f.textures(&bsp, &crate::assets::Assets::open(&Default::default()), &Default::default(), &mut Vec::new());
        assert_eq!(
            looked_up.resolve("wall", &crate::assets::Assets::open(&Default::default())).unwrap_err().kind,
            crate::assets::MissingKind::Unsupported
        );
        // The real Quake value answers every concern for the same map.
        let q = of(Family::Quake);
        assert!(q.lump_schema(bsp.branch(), "PLANES", 20, Endian::Little).is_some());
        assert!(!q.lighting(&bsp, &Default::default()).unwrap().faces.is_empty());
        assert!(!q.stats(&bsp).is_empty());
        assert!(!q.texture_names(&bsp).unwrap().is_empty());
        assert!(q.node_tree(&bsp).is_ok());
        assert!(q.leaf_visibility().is_some());
        assert!(!q.texture_table(&bsp).unwrap().is_empty());
    }
}
