//! Which record struct each Respawn lump holds (field schemas for bindings, [`crate::schema`]).
//! Titanfall and Titanfall 2 share most layouts (`R1`, with Titanfall 2's `R2` changes); Apex
//! has its own (`R5`). Where several structs fit a lump, the record size picks one, as in
//! `records`' per-version notes.

use zerocopy::byteorder::{I32, U16, U32};
use zerocopy::LittleEndian as LE;

use crate::branch::Branch;
use crate::branches::respawn::records::*;
use crate::schema::types::{of, RecordSchema, Value};

/// The schema of lump `lump` of a Respawn branch whose records are `size` bytes.
pub fn lump_schema(branch: &Branch, lump: &str, size: usize) -> Option<&'static RecordSchema> {
    let apex = !matches!(branch.id, "titanfall" | "titanfall2");
    let tf2 = branch.id == "titanfall2";
    match (lump, size) {
        ("VERTICES" | "VERTEX_NORMALS" | "PORTAL_VERTICES" | "OCCLUSION_MESH_VERTICES" | "SHADOW_MESH_OPAQUE_VERTICES", 12) => of::<Vec3>(),
        ("PLANES", _) => of::<Plane>(),
        ("CUBEMAPS", _) => of::<Cubemap>(),
        ("MESH_BOUNDS", _) => of::<MeshBounds>(),
        ("LIGHTMAP_HEADERS", _) => of::<LightmapHeader>(),
        ("OBJ_REFERENCE_BOUNDS", _) => of::<ObjRefBounds>(),
        ("PORTAL_VERTEX_EDGES" | "PORTAL_EDGE_INTERSECT_EDGE" | "PORTAL_EDGE_INTERSECT_VERTEX", _) => of::<IndexSet>(),
        ("PORTAL_EDGE_INTERSECT_HEADER", _) => of::<PortalEdgeIntersectHeader>(),
        ("CELL_BSP_NODES", _) => of::<CellBspNode>(),
        ("CELLS", _) => of::<Cell>(),
        ("PORTALS", _) => of::<Portal>(),
        ("SHADOW_MESH_ALPHA_VERTICES", _) => of::<ShadowMeshAlphaVertex>(),
        ("SHADOW_MESHES", _) => of::<ShadowMesh>(),
        ("LIGHTPROBE_TREE", _) => of::<LightProbeTree>(),
        ("LIGHTPROBES", 44) => of::<LightProbeR5v51>(),
        ("LIGHTPROBES", _) => of::<LightProbe>(),
        ("WORLD_LIGHTS", 100) => of::<WorldLight>(),
        ("WORLD_LIGHTS", 108) => of::<WorldLightV2>(),
        ("WORLD_LIGHTS", 112) => of::<WorldLightV3>(),
        ("WORLD_LIGHT_PARENT_INFOS", _) => of::<WorldLightParentInfo>(),
        ("SHADOW_ENVIRONMENTS", _) => of::<ShadowEnvironment>(),
        ("LIGHTPROBE_PARENT_INFOS", _) => of::<LightProbeParentInfo>(),
        ("LIGHTPROBE_BSP_NODES", _) => of::<LightProbeBspNode>(),
        ("LIGHTPROBE_REFERENCES", 16) => of::<LightProbeRef>(),
        ("LIGHTPROBE_REFERENCES", _) => of::<LightProbeRefR2>(),
        ("LIGHTMAP_DATA_RTL_PAGES", _) => of::<LightmapPage>(),
        ("TEXTURE_DATA", 16) => of::<TextureDataR5>(),
        ("TEXTURE_DATA", _) => of::<TextureDataR1>(),
        ("MODELS", 64) => of::<ModelR5>(),
        ("MODELS", _) => of::<ModelR1>(),
        ("MESHES", _) if apex => of::<MeshR5>(),
        ("MESHES", _) if tf2 => of::<MeshR2>(),
        ("MESHES", _) => of::<MeshR1>(),
        ("MATERIAL_SORTS", _) if apex => of::<MaterialSortR5>(),
        ("MATERIAL_SORTS", _) => of::<MaterialSortR1>(),
        ("VERTEX_UNLIT", _) if apex => of::<VertexUnlitR5>(),
        ("VERTEX_UNLIT", _) => of::<VertexUnlitR1>(),
        ("VERTEX_LIT_FLAT", 20) => of::<VertexLitFlatR5>(),
        ("VERTEX_LIT_FLAT", _) => of::<VertexLitFlatR1>(),
        ("VERTEX_LIT_BUMP", 32) => of::<VertexLitBumpR5>(),
        ("VERTEX_LIT_BUMP", _) => of::<VertexLitBumpR1>(),
        ("VERTEX_UNLIT_TS", 24) => of::<VertexUnlitTsR5>(),
        ("VERTEX_UNLIT_TS", _) => of::<VertexUnlitTsR1>(),
        ("VERTEX_BLINN_PHONG", 24) => of::<VertexBlinnPhongR5>(),
        ("VERTEX_BLINN_PHONG", _) => of::<VertexBlinnPhongR1>(),
        ("CSM_AABB_NODES" | "CELL_AABB_NODES", _) if apex => of::<AabbNodeR5>(),
        ("CSM_AABB_NODES" | "CELL_AABB_NODES", _) => of::<AabbNodeR1>(),
        ("LEVEL_INFO", 36) => of::<LevelInfoR5>(),
        ("LEVEL_INFO", _) => of::<LevelInfoR1>(),
        ("LEAF_WATER_DATA", _) => of::<LeafWaterData>(),
        ("CM_GRID", _) => of::<CmGrid>(),
        ("CM_GRID_CELLS", _) => of::<CmGridCell>(),
        ("CM_PRIMITIVES", _) => of::<CmPrimitive>(),
        ("CM_GEO_SETS", _) => of::<CmGeoSet>(),
        ("CM_GEO_SET_BOUNDS" | "CM_PRIMITIVE_BOUNDS" | "TRICOLL_NODES", _) => of::<CmBounds>(),
        ("CM_BRUSHES", _) => of::<CmBrush>(),
        ("CM_BRUSH_SIDE_PROPERTIES", _) => of::<CmBrushSideProperty>(),
        ("CM_BRUSH_SIDE_TEXTURE_VECTORS", _) => of::<CmBrushSideTextureVector>(),
        ("TRICOLL_TRIANGLES", _) => of::<TricollTriangle>(),
        ("TRICOLL_HEADERS", _) => of::<TricollHeader>(),
        ("SURFACE_PROPERTIES", _) => of::<SurfaceProperty>(),
        ("BVH_NODES", _) => of::<BvhNode>(),
        ("PACKED_VERTICES", _) => of::<PackedVertex>(),
        ("HEIGHTFIELDS", _) => of::<HeightField>(),
        ("WATER_BODIES", _) => of::<WaterBody>(),
        ("WATER_BODY_CENTERS" | "WATER_BODY_VERTICES", _) => of::<WaterBodyVertex>(),
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
        ) => of::<Value<U16<LE>>>(),
        ("CSM_OBJ_REFERENCES" | "OBJ_REFERENCES", 4) => of::<Value<U32<LE>>>(),
        (
            "TEXTURE_DATA_STRING_TABLE"
            | "CONTENTS_MASKS"
            | "CM_UNIQUE_CONTENTS"
            | "TRICOLL_BEVEL_INDICES"
            | "BVH_LEAF_DATA"
            | "UNKNOWN_38",
            4,
        ) => of::<Value<I32<LE>>>(),
        ("STATIC_PROP_LIGHTPROBE_INDICES" | "CUBEMAPS_AMBIENT_RCP", 4) => of::<Value<U32<LE>>>(),
        _ => None,
    }
}
