//! Call of Duty 1 / United Offensive (`IBSP` 59, demo 58) and Call of Duty 2 (`IBSP` 4) record
//! types, declared once each with `declare_record!`. Records whose layout and meaning equal
//! Call of Duty 4's are that family's types ([`super::records`]): materials, planes, brushes,
//! brush sides, points, nodes, portals, cull groups, AABB tree entries, collision borders and
//! partitions, and Call of Duty 2's 68-byte draw vertex.
//!
//! Sources (facts only): opencod1 (PrawyCoD1/opencod1 at 8e6f658), a reconstruction of the
//! Call of Duty 1.1 binaries: `qcommon/cm_local.h` and `cm_load.c` (`CMod_Load*`) for the
//! collision records, `renderer/tr_bsp.c` (`R_Load*`, `LittleVertices_T2T2C4V3`) for the
//! renderer's; the cod2map.exe reconstruction (riicchhaarrd/cod2map at 21297c4,
//! `cod2src/cod2map.h`) for Call of Duty 2. Sizes are checked as `count × size = bytes` on the
//! real maps of docs/real-maps.md.

use zerocopy::little_endian::{F32, I16, I32, U16, U32};

crate::schema::types::declare_record! {
    /// A triangle soup (CoD1 TRIANGLESOUPS 6, CoD2 TRIANGLES 7; 16 bytes): a material, a
    /// lightmap page, a run of draw vertices and a run of `u16` indices counted from the run's
    /// first vertex (cod2map `BspTriSoup_t`; opencod1's lightmap merge reads the lightmap at +2
    /// and the vertex count at +8 of the same 16-byte record).
    pub struct TriSoup12 {
        pub material: U16,
        pub lightmap: U16,
        pub first_vertex: U32,
        pub vertex_count: U16,
        pub index_count: U16,
        pub first_index: U32
    }
    /// A Call of Duty 1 draw vertex (DRAWVERTS 7, 44 bytes): position, texture and lightmap
    /// coordinates, normal, colour (opencod1 `LittleVertices_T2T2C4V3` reads them at 0, 12,
    /// 20, 28 and 40 with a 44-byte stride).
    pub struct DrawVert1 {
        pub xyz: [F32; 3],
        pub tex_coord: [F32; 2],
        pub lightmap_coord: [F32; 2],
        pub normal: [F32; 3],
        pub colour: [u8; 4]
    }
    /// A leaf (CoD1 LEAFS 21, CoD2 LEAFS 26; 36 bytes). The collision run is of LEAFSURFACES
    /// in Call of Duty 1 (opencod1 `CMod_LoadLeafs` reads ints 2 and 3 as its leaf surfaces)
    /// and of COLLISIONAABBS in Call of Duty 2 (cod2map `BspLeaf_disk_t`); the cell is −1
    /// outside the world; the last two ints are read by neither.
    pub struct Leaf12 {
        pub cluster: I32,
        pub area: I32,
        pub first_collision: I32,
        pub collision_count: I32,
        pub first_leaf_brush: I32,
        pub leaf_brush_count: I32,
        pub cell: I32,
        pub unused: [I32; 2]
    }
    /// A model (MODELS, 48 bytes): bounds, a run of triangle soups, a collision run (CoD1:
    /// collision surfaces through LEAFSURFACES, opencod1 `CMod_LoadSubmodels` ints 8, 9; CoD2:
    /// collision AABBs) and a run of brushes (ints 10, 11).
    pub struct Model12 {
        pub mins: [F32; 3],
        pub maxs: [F32; 3],
        pub first_tri_soup: I32,
        pub tri_soup_count: I32,
        pub first_collision: I32,
        pub collision_count: I32,
        pub first_brush: I32,
        pub brush_count: I32
    }
    /// A cell (CELLS, 52 bytes): bounds, its AABB tree, runs of portals, cull groups and
    /// occluders (opencod1 `R_LoadCells`: the cull-group and occluder runs index
    /// CULLGROUPINDICES and OCCLUDERINDICES there).
    pub struct Cell12 {
        pub mins: [F32; 3],
        pub maxs: [F32; 3],
        pub aabb_tree: I32,
        pub first_portal: I32,
        pub portal_count: I32,
        pub first_cull_group: I32,
        pub cull_group_count: I32,
        pub first_occluder: I32,
        pub occluder_count: I32
    }
    /// An occluder (OCCLUDERS, 20 bytes): runs of OCCLUDERPLANES, OCCLUDEREDGES and
    /// PORTALVERTS (opencod1 `R_LoadOccluders`, cod2map `BspOccluder_t`).
    pub struct Occluder12 {
        pub first_plane: I32,
        pub plane_count: U16,
        pub edge_count: U16,
        pub first_edge: I32,
        pub first_vertex: I32,
        pub vertex_count: U16,
        pub pad: U16
    }
    /// An occluder edge (OCCLUDEREDGES, 4 bytes): two planes and two vertices, each counted
    /// from its occluder's first.
    pub struct OccluderEdge12 { pub planes: [u8; 2], pub vertices: [u8; 2] }
    /// A Call of Duty 1 collision surface (COLLISIONSURFACES 24, 16 bytes; opencod1
    /// `dcollisionsurface_t`): a curved patch (`a` × `b` control points from COLLISIONVERTS
    /// `second_index`) or terrain (`a` vertices from `first_index`, `b` indices from
    /// COLLISIONINDICES `second_index`).
    pub struct CollisionSurface1 {
        pub material: I16,
        pub is_terrain: u8,
        pub pad: u8,
        pub a: I16,
        pub b: I16,
        pub first_index: I32,
        pub second_index: I32
    }
    /// A Call of Duty 1 light (LIGHTS 30, 72 bytes) as the renderer reads it (opencod1
    /// `R_LoadLights`): a kind, colour, origin, direction, then per-kind parameters.
    pub struct Light1 { pub kind: I32, pub colour: [F32; 3], pub origin: [F32; 3], pub dir: [F32; 3], pub params: [F32; 8] }
    /// A Call of Duty 2 light grid entry (LIGHTGRIDENTRIES 2, 8 bytes; cod2map
    /// `BspLightGridEntry_t`).
    pub struct LightGridEntry2 { pub colour_data: U32, pub unused: [u8; 2], pub dir_index: U16 }
    /// A Call of Duty 2 shadow cluster or source (SHADOWCLUSTERS 14, SHADOWSOURCES 16; 8
    /// bytes): a run.
    pub struct ShadowRun2 { pub first: I32, pub count: I32 }
    /// A Call of Duty 2 shadow AABB tree node (SHADOWAABBTREES 15, 40 bytes; cod2map
    /// `DiskShadowAabb_t`).
    pub struct ShadowAabb2 {
        pub first_child: I32,
        pub child_count: U16,
        pub is_leaf: u8,
        pub material_partition: u8,
        pub tri_soup: I32,
        pub index_count: I32,
        pub mins: [F32; 3],
        pub maxs: [F32; 3]
    }
    /// A Call of Duty 2 collision vertex (COLLISIONVERTS 29, 16 bytes).
    pub struct CollisionVert2 { pub unused: I32, pub xyz: [F32; 3] }
    /// A Call of Duty 2 collision edge (COLLISIONEDGES 30, 56 bytes).
    pub struct CollisionEdge2 { pub unused: I32, pub origin: [F32; 3], pub axis: [[F32; 3]; 3], pub length: F32 }
    /// A Call of Duty 2 collision triangle (COLLISIONTRIS 31, 72 bytes): its plane, two
    /// barycentric vectors, three COLLISIONVERTS and three COLLISIONEDGES.
    pub struct CollisionTri2 {
        pub plane: [F32; 4],
        pub svec: [F32; 4],
        pub tvec: [F32; 4],
        pub vertices: [I32; 3],
        pub edges: [I32; 3]
    }
    /// A Call of Duty 2 collision AABB (COLLISIONAABBS 34, 32 bytes): bounds, a child run or
    /// (no children) a partition.
    pub struct CollisionAabb2 {
        pub mins: [F32; 3],
        pub maxs: [F32; 3],
        pub first_child: U16,
        pub child_count: U16,
        pub first_partition: I32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::cod::lumps::{cod1_ids as c1, cod2_ids as c2, COD1, COD2};
    use std::mem::size_of;

    #[test]
    fn record_sizes_match_the_tables() {
        for (id, size) in [
            (c1::TRIANGLESOUPS, size_of::<TriSoup12>()),
            (c1::DRAWVERTS, size_of::<DrawVert1>()),
            (c1::LEAFS, size_of::<Leaf12>()),
            (c1::MODELS, size_of::<Model12>()),
            (c1::CELLS, size_of::<Cell12>()),
            (c1::OCCLUDERS, size_of::<Occluder12>()),
            (c1::OCCLUDEREDGES, size_of::<OccluderEdge12>()),
            (c1::COLLISIONSURFACES, size_of::<CollisionSurface1>()),
            (c1::LIGHTS, size_of::<Light1>()),
        ] {
            assert_eq!(COD1.lumps[id].record_size(0), Some(size), "cod1 lump {id}");
        }
        for (id, size) in [
            (c2::TRIANGLES, size_of::<TriSoup12>()),
            (c2::DRAWVERTS, size_of::<crate::branches::cod::records::DrawVert>()),
            (c2::LEAFS, size_of::<Leaf12>()),
            (c2::MODELS, size_of::<Model12>()),
            (c2::CELLS, size_of::<Cell12>()),
            (c2::OCCLUDERS, size_of::<Occluder12>()),
            (c2::LIGHTGRIDENTRIES, size_of::<LightGridEntry2>()),
            (c2::SHADOWCLUSTERS, size_of::<ShadowRun2>()),
            (c2::SHADOWAABBTREES, size_of::<ShadowAabb2>()),
            (c2::COLLISIONVERTS, size_of::<CollisionVert2>()),
            (c2::COLLISIONEDGES, size_of::<CollisionEdge2>()),
            (c2::COLLISIONTRIS, size_of::<CollisionTri2>()),
            (c2::COLLISIONAABBS, size_of::<CollisionAabb2>()),
        ] {
            assert_eq!(COD2.lumps[id].record_size(0), Some(size), "cod2 lump {id}");
        }
        assert_eq!(COD1.lump_index("ENTITIES"), Some(c1::ENTITIES));
        assert_eq!(COD2.lump_index("ENTITIES"), Some(c2::ENTITIES));
    }
}
