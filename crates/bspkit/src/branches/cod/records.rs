//! Call of Duty 4 record types, one per lump (respawn_cod_facts.md §2.2, §2.3).
//!
//! Sources (facts only): the `cod4map.exe` reconstruction in Rex109/x64-cod4map
//! (`common/bspfile.h` at b9a3febb: the `Bsp*_t` disk structs the compiler writes), the IW3
//! engine's asset headers for the light grid entry and the primary light as the game reads
//! them, and bsp_tool 0.7.0's `infinity_ward/modern_warfare.py`. Every size is checked as
//! `count × size = bytes` against `cod4map -info` on the four corpus maps (§2.2).
//! Lightmaps (3 MiB pages), visibility, path data, vertex layer data and light grid rows are
//! byte blobs; the light grid header is a fixed part followed by one u16 per row.

use zerocopy::little_endian::{F32, I32, U16, U32};

use crate::branches::quake2::records::record;

record! {
    /// MATERIALS (0), 72 bytes: name and the compiler's surface / content flags.
    pub struct Material { pub name: [u8; 64], pub surface_flags: U32, pub content_flags: U32, }
}
impl Material {
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.name)
    }
}
record! {
    /// A point: COLLISIONVERTS (31), PORTALVERTS (19). 12 bytes.
    pub struct Vec3 { pub xyz: [F32; 3], }
}
impl Vec3 {
    pub fn get(&self) -> [f32; 3] {
        [self.xyz[0].get(), self.xyz[1].get(), self.xyz[2].get()]
    }
}
record! {
    /// PLANES (4), 16 bytes.
    pub struct Plane { pub normal: [F32; 3], pub dist: F32, }
}
record! {
    /// A brush (8 BRUSHES, 4 bytes): its side count (sides follow each other in BRUSHSIDES,
    /// brush by brush) and material. Observed: the counts add up to the brushside count on
    /// every corpus map.
    pub struct Brush { pub num_sides: U16, pub material: U16, }
}
record! {
    /// A brush side (5 BRUSHSIDES, 8 bytes). The first six sides of a brush are axial and
    /// store a float distance in place of the plane index, so only sides 6.. reference PLANES.
    pub struct BrushSide {
        /// Plane index (sides 6..) or the distance of an axial plane (sides 0..6), as raw bits.
        pub plane_or_dist: U32,
        pub material: U32,
    }
}
impl BrushSide {
    pub fn distance(&self) -> f32 {
        f32::from_bits(self.plane_or_dist.get())
    }
}
record! {
    /// A triangle soup (9 TRIANGLES layered, 47 UNLAYERED_TRIANGLES simple; 24 bytes): a run of
    /// vertices and of indices (relative to the run's first vertex) drawn with one material,
    /// lightmap, reflection probe and primary light.
    pub struct TriangleSoup {
        pub material: U16,
        pub lightmap: u8,
        pub reflection_probe: u8,
        pub primary_light: u8,
        /// The vertex layer type (`vertexLayerType` in the reconstruction).
        pub flags: u8,
        pub unused: [u8; 2],
        /// Byte offset into VERTEX_LAYER_DATA.
        pub vertex_layer_data: U32,
        pub first_vertex: U32,
        pub vertex_count: U16,
        pub index_count: U16,
        pub first_index: U32,
    }
}
record! {
    /// A draw vertex (10 DRAWVERTS, 48 UNLAYERED_DRAWVERTS; 68 bytes).
    pub struct DrawVert {
        pub xyz: [F32; 3],
        pub normal: [F32; 3],
        pub colour: [u8; 4],
        pub tex_coord: [F32; 2],
        pub lightmap_coord: [F32; 2],
        pub tangent: [F32; 3],
        pub binormal: [F32; 3],
    }
}
record! {
    /// A cull group (12 CULLGROUPS, 50 UNLAYERED_CULLGROUPS; 32 bytes): bounds and a run of
    /// triangle soups.
    pub struct CullGroup { pub mins: [F32; 3], pub maxs: [F32; 3], pub first_surface: I32, pub surface_count: I32, }
}
record! {
    /// An AABB tree node (24 AABBTREES, 51 UNLAYERED_AABBTREES; 12 bytes): a run of triangle
    /// soups and a child count.
    pub struct AabbTree { pub first_surface: I32, pub surface_count: I32, pub child_count: I32, }
}
/// Reflection probes one cell may list.
pub const MAX_CELL_REFLECTION_PROBES: usize = 64;
record! {
    /// A cell (25 CELLS, 112 bytes): bounds, the root layered / simple AABB trees, runs of
    /// PORTALS and CULLGROUPS, and up to 64 reflection probes (numbered from 1, see the check).
    pub struct Cell {
        pub mins: [F32; 3],
        pub maxs: [F32; 3],
        pub aabb_tree: [U16; 2],
        pub first_portal: I32,
        pub portal_count: I32,
        pub first_cull_group: I32,
        pub cull_group_count: I32,
        pub reflection_probe_count: u8,
        pub reflection_probes: [u8; MAX_CELL_REFLECTION_PROBES],
        pub pad: [u8; 3],
    }
}
record! {
    /// A portal (26 PORTALS, 16 bytes): plane, the cell it leads to, a run of PORTALVERTS.
    pub struct Portal { pub plane: I32, pub cell: I32, pub first_portal_vert: I32, pub portal_vert_count: I32, }
}
record! {
    /// A BSP node (27 NODES, 36 bytes): plane, two children (negative = leaf `-(c + 1)`),
    /// integer bounds.
    pub struct Node { pub plane: I32, pub children: [I32; 2], pub mins: [I32; 3], pub maxs: [I32; 3], }
}
record! {
    /// A leaf (28 LEAFS, 24 bytes): cluster, runs of COLLISIONAABBS and LEAFBRUSHES, its cell
    /// (−1 = outside).
    pub struct Leaf {
        pub cluster: I32,
        pub first_coll_aabb: I32,
        pub coll_aabb_count: I32,
        pub first_leaf_brush: I32,
        pub leaf_brush_count: I32,
        pub cell: I32,
    }
}
record! {
    /// A collision triangle (32 COLLISIONTRIS, 6 bytes): three COLLISIONVERTS.
    pub struct CollisionTri { pub verts: [U16; 3], }
}
record! {
    /// A collision border (34 COLLISIONBORDERS, 28 bytes): an edge's plane equation, z base
    /// and slope, start and length.
    pub struct CollisionBorder { pub dist_eq: [F32; 3], pub z_base: F32, pub z_slope: F32, pub start: F32, pub length: F32, }
}
record! {
    /// A collision partition (35 COLLISIONPARTITIONS, 12 bytes): runs of COLLISIONTRIS and
    /// COLLISIONBORDERS.
    pub struct CollisionPartition { pub check_stamp: U16, pub tri_count: u8, pub border_count: u8, pub first_tri: I32, pub first_border: I32, }
}
record! {
    /// A collision AABB (36 COLLISIONAABBS, 32 bytes): centre, half size, material, and either
    /// `child_count` children from AABB `u` or (no children) partition `u`.
    pub struct CollisionAabb { pub mid_point: [F32; 3], pub half_size: [F32; 3], pub material: U16, pub child_count: U16, pub u: I32, }
}
record! {
    /// A model (37 MODELS, 48 bytes): bounds, runs of layered / simple triangle soups, a
    /// surface run (zero on every corpus map) and a run of BRUSHES.
    pub struct Model {
        pub mins: [F32; 3],
        pub maxs: [F32; 3],
        pub first_tri_soup: [U16; 2],
        pub tri_soup_count: [U16; 2],
        pub first_surface: U32,
        pub surface_count: U32,
        pub first_brush: U32,
        pub brush_count: U32,
    }
}
/// Bytes of a reflection probe's cube map.
pub const REFLECTION_PROBE_PIXELS: usize = 0x1FFF8;
record! {
    /// A reflection probe (41 REFLECTION_PROBES, 131140 bytes): origin, name, cube map.
    pub struct ReflectionProbe { pub origin: [F32; 3], pub name: [u8; 64], pub pixels: [u8; REFLECTION_PROBE_PIXELS], }
}
record! {
    /// A primary light (43 PRIMARY_LIGHTS, 128 bytes) as the game reads it (IW3
    /// `DiskPrimaryLight`). The compiler reconstruction names bytes 2 and 0x34 differently
    /// (exponent byte / expanded cone); the size and the other fields agree.
    pub struct PrimaryLight {
        pub kind: u8,
        pub can_use_shadow_map: u8,
        pub unused: [u8; 2],
        pub colour: [F32; 3],
        pub dir: [F32; 3],
        pub origin: [F32; 3],
        pub radius: F32,
        pub cos_half_fov_outer: F32,
        pub cos_half_fov_inner: F32,
        pub exponent: I32,
        pub rotation_limit: F32,
        pub translation_limit: F32,
        pub def_name: [u8; 64],
    }
}
record! {
    /// A light grid point (2 LIGHTGRIDENTRIES, 4 bytes; IW3 `GfxLightGridEntry`): its
    /// LIGHTGRIDCOLORS entry and primary light.
    pub struct LightGridEntry { pub colors: U16, pub primary_light: u8, pub needs_trace: u8, }
}
record! {
    /// Light grid colours (3 LIGHTGRIDCOLORS, 168 bytes): 56 RGB samples.
    pub struct LightGridColors { pub rgb: [[u8; 3]; 56], }
}
record! {
    /// The fixed part of the light grid header (44 LIGHTGRIDHEADER, 20 bytes); one u16 row
    /// start follows per row, `maxs[row_axis] + 1 − mins[row_axis]` rows.
    pub struct LightGridHeader { pub mins: [U16; 3], pub maxs: [U16; 3], pub row_axis: I32, pub col_axis: I32, }
}
impl LightGridHeader {
    /// Rows of the grid (the compiler's `GetLightGridRowCount`); `None` for a bad row axis.
    pub fn rows(&self) -> Option<i64> {
        let a = usize::try_from(self.row_axis.get()).ok().filter(|&a| a < 3)?;
        Some(self.maxs[a].get() as i64 + 1 - self.mins[a].get() as i64)
    }
}
record! {
    /// A light region hull (53 LIGHTREGION_HULLS, 76 bytes): a k-DOP and its axis count.
    pub struct LightRegionHull { pub kdop_mid_point: [F32; 9], pub kdop_half_size: [F32; 9], pub axis_count: U32, }
}
record! {
    /// A light region axis (54 LIGHTREGION_AXES, 20 bytes).
    pub struct LightRegionAxis { pub dir: [F32; 3], pub mid_point: F32, pub half_size: F32, }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::cod::lumps::*;
    use std::mem::size_of;

    #[test]
    fn record_sizes_match_the_table() {
        // respawn_cod_facts.md §2.2: count × size = bytes on all four corpus maps; §2.3 for
        // the lumps that are empty there.
        let table: &[(usize, usize)] = &[
            (LUMP_MATERIALS, size_of::<Material>()),
            (LUMP_LIGHTGRIDENTRIES, size_of::<LightGridEntry>()),
            (LUMP_LIGHTGRIDCOLORS, size_of::<LightGridColors>()),
            (LUMP_PLANES, size_of::<Plane>()),
            (LUMP_BRUSHSIDES, size_of::<BrushSide>()),
            (LUMP_BRUSHES, size_of::<Brush>()),
            (LUMP_TRIANGLES, size_of::<TriangleSoup>()),
            (LUMP_DRAWVERTS, size_of::<DrawVert>()),
            (LUMP_CULLGROUPS, size_of::<CullGroup>()),
            (LUMP_PORTALVERTS, size_of::<Vec3>()),
            (LUMP_AABBTREES, size_of::<AabbTree>()),
            (LUMP_CELLS, size_of::<Cell>()),
            (LUMP_PORTALS, size_of::<Portal>()),
            (LUMP_NODES, size_of::<Node>()),
            (LUMP_LEAFS, size_of::<Leaf>()),
            (LUMP_COLLISIONVERTS, size_of::<Vec3>()),
            (LUMP_COLLISIONTRIS, size_of::<CollisionTri>()),
            (LUMP_COLLISIONBORDERS, size_of::<CollisionBorder>()),
            (LUMP_COLLISIONPARTITIONS, size_of::<CollisionPartition>()),
            (LUMP_COLLISIONAABBS, size_of::<CollisionAabb>()),
            (LUMP_MODELS, size_of::<Model>()),
            (LUMP_REFLECTION_PROBES, size_of::<ReflectionProbe>()),
            (LUMP_PRIMARY_LIGHTS, size_of::<PrimaryLight>()),
            (LUMP_UNLAYERED_TRIANGLES, size_of::<TriangleSoup>()),
            (LUMP_UNLAYERED_DRAWVERTS, size_of::<DrawVert>()),
            (LUMP_UNLAYERED_CULLGROUPS, size_of::<CullGroup>()),
            (LUMP_UNLAYERED_AABBTREES, size_of::<AabbTree>()),
            (LUMP_LIGHTREGION_HULLS, size_of::<LightRegionHull>()),
            (LUMP_LIGHTREGION_AXES, size_of::<LightRegionAxis>()),
        ];
        for &(id, size) in table {
            assert_eq!(COD4.lumps[id].record_size(0), Some(size), "lump {id} ({})", COD4.lumps[id].name);
        }
        let sizes = [
            (size_of::<Material>(), 72),
            (size_of::<DrawVert>(), 68),
            (size_of::<Cell>(), 112),
            (size_of::<Model>(), 48),
            (size_of::<ReflectionProbe>(), REFLECTION_PROBE_SIZE),
            (size_of::<PrimaryLight>(), 128),
            (size_of::<LightGridColors>(), 168),
            (size_of::<LightGridHeader>(), 20),
            (size_of::<LightRegionHull>(), 76),
            (size_of::<LightRegionAxis>(), 20),
            (size_of::<CollisionPartition>(), 12),
            (size_of::<CollisionAabb>(), 32),
            (size_of::<TriangleSoup>(), 24),
            (size_of::<Node>(), 36),
            (size_of::<Brush>(), 4),
            (size_of::<BrushSide>(), 8),
        ];
        for (i, (got, want)) in sizes.into_iter().enumerate() {
            assert_eq!(got, want, "entry {i}");
        }
        assert_eq!(COD4.lumps.len(), 55);
        assert_eq!(COD4.lump_index("ENTITIES"), Some(LUMP_ENTITIES));
    }

    #[test]
    fn light_grid_rows_follow_the_row_axis() {
        let h = LightGridHeader {
            mins: [U16::new(4071), U16::new(4071), U16::new(2048)],
            maxs: [U16::new(4121), U16::new(4121), U16::new(2051)],
            row_axis: I32::new(0),
            col_axis: I32::new(1),
        };
        // mp_test: 51 rows, a 122-byte header.
        assert_eq!(h.rows(), Some(51));
        let bad = LightGridHeader { row_axis: I32::new(7), ..h };
        assert_eq!(bad.rows(), None);
    }
}
