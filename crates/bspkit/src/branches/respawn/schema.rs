//! Which record struct each Respawn lump holds (field schemas for bindings, [`crate::schema`]).
//! Titanfall and Titanfall 2 share most layouts (`R1`, with Titanfall 2's `R2` changes); Apex
//! has its own (`R5`). Where several structs fit a lump, the record size picks one, as in
//! `records`' per-version notes.

use zerocopy::byteorder::{BigEndian, ByteOrder, LittleEndian, I32, U16, U32};

use crate::branch::Branch;
use crate::branches::respawn::records::*;
use crate::schema::types::{of, RecordSchema, Value};

/// The schema of lump `lump` of a Respawn branch whose records are `size` bytes (big-endian
/// fields for the Xbox 360 branch).
pub fn lump_schema(branch: &Branch, lump: &str, size: usize) -> Option<&'static RecordSchema> {
    if branch.id == "titanfall_x360" {
        of_order::<BigEndian>(branch, lump, size)
    } else {
        of_order::<LittleEndian>(branch, lump, size)
    }
}

fn of_order<O: ByteOrder>(branch: &Branch, lump: &str, size: usize) -> Option<&'static RecordSchema> {
    let apex = !matches!(branch.id, "titanfall" | "titanfall_x360" | "titanfall2");
    let tf2 = branch.id == "titanfall2";
    match (lump, size) {
        ("VERTICES" | "VERTEX_NORMALS" | "PORTAL_VERTICES" | "OCCLUSION_MESH_VERTICES" | "SHADOW_MESH_OPAQUE_VERTICES", 12) => {
            of::<Vec3<O>>()
        }
        ("PLANES", _) => of::<Plane<O>>(),
        ("CUBEMAPS", _) => of::<Cubemap<O>>(),
        ("MESH_BOUNDS", _) => of::<MeshBounds<O>>(),
        ("LIGHTMAP_HEADERS", _) => of::<LightmapHeader<O>>(),
        ("OBJ_REFERENCE_BOUNDS", _) => of::<ObjRefBounds<O>>(),
        ("PORTAL_VERTEX_EDGES" | "PORTAL_EDGE_INTERSECT_EDGE" | "PORTAL_EDGE_INTERSECT_VERTEX", _) => of::<IndexSet<O>>(),
        ("PORTAL_EDGE_INTERSECT_HEADER", _) => of::<PortalEdgeIntersectHeader<O>>(),
        ("CELL_BSP_NODES", _) => of::<CellBspNode<O>>(),
        ("CELLS", _) => of::<Cell<O>>(),
        ("PORTALS", _) => of::<Portal<O>>(),
        ("SHADOW_MESH_ALPHA_VERTICES", _) => of::<ShadowMeshAlphaVertex<O>>(),
        ("SHADOW_MESHES", _) => of::<ShadowMesh<O>>(),
        ("LIGHTPROBE_TREE", _) => of::<LightProbeTree<O>>(),
        ("LIGHTPROBES", 44) => of::<LightProbeR5v51<O>>(),
        ("LIGHTPROBES", _) => of::<LightProbe<O>>(),
        ("WORLD_LIGHTS", 100) => of::<WorldLight<O>>(),
        ("WORLD_LIGHTS", 108) => of::<WorldLightV2<O>>(),
        ("WORLD_LIGHTS", 112) => of::<WorldLightV3<O>>(),
        ("WORLD_LIGHT_PARENT_INFOS", _) => of::<WorldLightParentInfo<O>>(),
        ("SHADOW_ENVIRONMENTS", _) => of::<ShadowEnvironment<O>>(),
        ("LIGHTPROBE_PARENT_INFOS", _) => of::<LightProbeParentInfo<O>>(),
        ("LIGHTPROBE_BSP_NODES", _) => of::<LightProbeBspNode<O>>(),
        ("LIGHTPROBE_REFERENCES", 16) => of::<LightProbeRef<O>>(),
        ("LIGHTPROBE_REFERENCES", _) => of::<LightProbeRefR2<O>>(),
        ("LIGHTMAP_DATA_RTL_PAGES", _) => of::<LightmapPage<O>>(),
        ("TEXTURE_DATA", 16) => of::<TextureDataR5<O>>(),
        ("TEXTURE_DATA", _) => of::<TextureDataR1<O>>(),
        ("MODELS", 64) => of::<ModelR5<O>>(),
        ("MODELS", _) => of::<ModelR1<O>>(),
        ("MESHES", _) if apex => of::<MeshR5<O>>(),
        ("MESHES", _) if tf2 => of::<MeshR2<O>>(),
        ("MESHES", _) => of::<MeshR1<O>>(),
        ("MATERIAL_SORTS", _) if apex => of::<MaterialSortR5<O>>(),
        ("MATERIAL_SORTS", _) => of::<MaterialSortR1<O>>(),
        ("VERTEX_UNLIT", _) if apex => of::<VertexUnlitR5<O>>(),
        ("VERTEX_UNLIT", _) => of::<VertexUnlitR1<O>>(),
        ("VERTEX_LIT_FLAT", 20) => of::<VertexLitFlatR5<O>>(),
        ("VERTEX_LIT_FLAT", _) => of::<VertexLitFlatR1<O>>(),
        ("VERTEX_LIT_BUMP", 32) => of::<VertexLitBumpR5<O>>(),
        ("VERTEX_LIT_BUMP", _) => of::<VertexLitBumpR1<O>>(),
        ("VERTEX_UNLIT_TS", 24) => of::<VertexUnlitTsR5<O>>(),
        ("VERTEX_UNLIT_TS", _) => of::<VertexUnlitTsR1<O>>(),
        ("VERTEX_BLINN_PHONG", 24) => of::<VertexBlinnPhongR5<O>>(),
        ("VERTEX_BLINN_PHONG", _) => of::<VertexBlinnPhongR1<O>>(),
        ("CSM_AABB_NODES" | "CELL_AABB_NODES", _) if apex => of::<AabbNodeR5<O>>(),
        ("CSM_AABB_NODES" | "CELL_AABB_NODES", _) => of::<AabbNodeR1<O>>(),
        ("LEVEL_INFO", 36) => of::<LevelInfoR5<O>>(),
        ("LEVEL_INFO", _) => of::<LevelInfoR1<O>>(),
        ("LEAF_WATER_DATA", _) => of::<LeafWaterData<O>>(),
        ("CM_GRID", _) => of::<CmGrid<O>>(),
        ("CM_GRID_CELLS", _) => of::<CmGridCell<O>>(),
        ("CM_PRIMITIVES", _) => of::<CmPrimitive<O>>(),
        ("CM_GEO_SETS", _) => of::<CmGeoSet<O>>(),
        ("CM_GEO_SET_BOUNDS" | "CM_PRIMITIVE_BOUNDS" | "TRICOLL_NODES", _) => of::<CmBounds<O>>(),
        ("CM_BRUSHES", _) => of::<CmBrush<O>>(),
        ("CM_BRUSH_SIDE_PROPERTIES", _) => of::<CmBrushSideProperty<O>>(),
        ("CM_BRUSH_SIDE_TEXTURE_VECTORS", _) => of::<CmBrushSideTextureVector<O>>(),
        ("TRICOLL_TRIANGLES", _) => of::<TricollTriangle<O>>(),
        ("TRICOLL_HEADERS", _) => of::<TricollHeader<O>>(),
        ("SURFACE_PROPERTIES", _) => of::<SurfaceProperty<O>>(),
        ("BVH_NODES", _) => of::<BvhNode<O>>(),
        ("PACKED_VERTICES", _) => of::<PackedVertex<O>>(),
        ("HEIGHTFIELDS", _) => of::<HeightField<O>>(),
        ("WATER_BODIES", _) => of::<WaterBody<O>>(),
        ("WATER_BODY_CENTERS" | "WATER_BODY_VERTICES", _) => of::<WaterBodyVertex<O>>(),
        // Lumps of plain indices and words.
        (
            "MESH_INDICES"
            | "OCCLUSION_MESH_INDICES"
            | "SHADOW_MESH_INDICES"
            | "WATER_BODY_INDICES"
            | "PORTAL_EDGES"
            | "PORTAL_EDGE_REFERENCES"
            | "PORTAL_VERTEX_REFERENCES"
            | "TRICOLL_BEVEL_STARTS"
            | "CSM_OBJ_REFERENCES"
            | "OBJ_REFERENCES"
            | "HEIGHTFIELD_SAMPLES"
            | "CM_BRUSH_SIDE_PLANE_OFFSETS"
            | "UNKNOWN_39",
            2,
        ) => of::<Value<U16<O>>>(),
        ("CSM_OBJ_REFERENCES" | "OBJ_REFERENCES", 4) => of::<Value<U32<O>>>(),
        (
            "TEXTURE_DATA_STRING_TABLE"
            | "CONTENTS_MASKS"
            | "CM_UNIQUE_CONTENTS"
            | "TRICOLL_BEVEL_INDICES"
            | "BVH_LEAF_DATA"
            | "UNKNOWN_38",
            4,
        ) => of::<Value<I32<O>>>(),
        ("STATIC_PROP_LIGHTPROBE_INDICES" | "CUBEMAPS_AMBIENT_RCP", 4) => of::<Value<U32<O>>>(),
        _ => None,
    }
}
