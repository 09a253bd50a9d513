//! Respawn lump tables: the 128 slots of Titanfall, Titanfall 2 and Apex Legends, and branch
//! selection from the version word (respawn_cod_facts.md §1.1, §1.5–1.7). Data only.
//! Lightmap texel lumps (LIGHTMAP_DATA_SKY, _REAL_TIME_LIGHTS) are whole-lump structures sized
//! by LIGHTMAP_HEADERS (§1.8), so they are `special`, not raw bytes.

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

// Slot indices (facts §1.5). Most slots mean the same in every version; where Apex reused a
// slot both names are given, with the Apex one marked.
pub const LUMP_ENTITIES: usize = 0x00;
pub const LUMP_PLANES: usize = 0x01;
pub const LUMP_TEXTURE_DATA: usize = 0x02;
pub const LUMP_VERTICES: usize = 0x03;
pub const LUMP_LIGHTPROBE_PARENT_INFOS: usize = 0x04;
pub const LUMP_SHADOW_ENVIRONMENTS: usize = 0x05;
pub const LUMP_LIGHTPROBE_BSP_NODES: usize = 0x06;
pub const LUMP_LIGHTPROBE_BSP_REF_IDS: usize = 0x07;
pub const LUMP_MODELS: usize = 0x0E;
/// Apex Legends (v47+) only.
pub const LUMP_SURFACE_NAMES: usize = 0x0F;
/// Apex Legends (v47+) only.
pub const LUMP_CONTENTS_MASKS: usize = 0x10;
/// Apex Legends (v47+) only.
pub const LUMP_SURFACE_PROPERTIES: usize = 0x11;
/// Apex Legends (v47+) only.
pub const LUMP_BVH_NODES: usize = 0x12;
/// Apex Legends (v47+) only.
pub const LUMP_BVH_LEAF_DATA: usize = 0x13;
/// Apex Legends (v47+) only.
pub const LUMP_PACKED_VERTICES: usize = 0x14;
/// Apex Legends (v47+) only.
pub const LUMP_HEIGHTFIELDS: usize = 0x15;
/// Apex Legends (v47+) only.
pub const LUMP_HEIGHTFIELD_SAMPLES: usize = 0x16;
pub const LUMP_ENTITY_PARTITIONS: usize = 0x18;
pub const LUMP_PHYSICS_COLLIDE: usize = 0x1D;
pub const LUMP_VERTEX_NORMALS: usize = 0x1E;
pub const LUMP_GAME_LUMP: usize = 0x23;
pub const LUMP_LEAF_WATER_DATA: usize = 0x24;
pub const LUMP_PAKFILE: usize = 0x28;
pub const LUMP_CUBEMAPS: usize = 0x2A;
pub const LUMP_TEXTURE_DATA_STRING_DATA: usize = 0x2B;
pub const LUMP_TEXTURE_DATA_STRING_TABLE: usize = 0x2C;
/// Apex Legends (v47+) only.
pub const LUMP_CUBEMAPS_AMBIENT_RCP: usize = 0x2B;
/// Apex Legends (v47+) only.
pub const LUMP_WATER_BODIES: usize = 0x2C;
/// Apex Legends (v47+) only.
pub const LUMP_WATER_BODY_CENTERS: usize = 0x2D;
/// Apex Legends (v47+) only.
pub const LUMP_WATER_BODY_VERTICES: usize = 0x2E;
/// Apex Legends (v47+) only.
pub const LUMP_WATER_BODY_INDICES: usize = 0x2F;
/// Apex Legends (v47+) only.
pub const LUMP_WAVE_DATA: usize = 0x30;
pub const LUMP_WORLD_LIGHTS: usize = 0x36;
pub const LUMP_WORLD_LIGHT_PARENT_INFOS: usize = 0x37;
pub const LUMP_PHYSICS_LEVEL: usize = 0x3E;
pub const LUMP_TRICOLL_TRIANGLES: usize = 0x42;
pub const LUMP_TRICOLL_NODES: usize = 0x44;
pub const LUMP_TRICOLL_HEADERS: usize = 0x45;
pub const LUMP_PHYSICS_TRIANGLES: usize = 0x46;
pub const LUMP_VERTEX_UNLIT: usize = 0x47;
pub const LUMP_VERTEX_LIT_FLAT: usize = 0x48;
pub const LUMP_VERTEX_LIT_BUMP: usize = 0x49;
pub const LUMP_VERTEX_UNLIT_TS: usize = 0x4A;
pub const LUMP_VERTEX_BLINN_PHONG: usize = 0x4B;
pub const LUMP_MESH_INDICES: usize = 0x4F;
pub const LUMP_MESHES: usize = 0x50;
pub const LUMP_MESH_BOUNDS: usize = 0x51;
pub const LUMP_MATERIAL_SORTS: usize = 0x52;
pub const LUMP_LIGHTMAP_HEADERS: usize = 0x53;
pub const LUMP_CM_GRID: usize = 0x55;
/// Apex Legends (v47+) only.
pub const LUMP_TWEAK_LIGHTS: usize = 0x55;
pub const LUMP_CM_GRID_CELLS: usize = 0x56;
pub const LUMP_CM_GEO_SETS: usize = 0x57;
pub const LUMP_CM_GEO_SET_BOUNDS: usize = 0x58;
pub const LUMP_CM_PRIMITIVES: usize = 0x59;
pub const LUMP_CM_PRIMITIVE_BOUNDS: usize = 0x5A;
pub const LUMP_CM_UNIQUE_CONTENTS: usize = 0x5B;
pub const LUMP_CM_BRUSHES: usize = 0x5C;
pub const LUMP_CM_BRUSH_SIDE_PLANE_OFFSETS: usize = 0x5D;
pub const LUMP_CM_BRUSH_SIDE_PROPERTIES: usize = 0x5E;
pub const LUMP_CM_BRUSH_SIDE_TEXTURE_VECTORS: usize = 0x5F;
pub const LUMP_TRICOLL_BEVEL_STARTS: usize = 0x60;
pub const LUMP_TRICOLL_BEVEL_INDICES: usize = 0x61;
/// Apex Legends (v47+) only.
pub const LUMP_LIGHTMAP_DATA_UNKNOWN: usize = 0x61;
pub const LUMP_LIGHTMAP_DATA_SKY: usize = 0x62;
pub const LUMP_CSM_AABB_NODES: usize = 0x63;
pub const LUMP_CSM_OBJ_REFERENCES: usize = 0x64;
pub const LUMP_LIGHTPROBES: usize = 0x65;
pub const LUMP_STATIC_PROP_LIGHTPROBE_INDICES: usize = 0x66;
pub const LUMP_LIGHTPROBE_TREE: usize = 0x67;
pub const LUMP_LIGHTPROBE_REFERENCES: usize = 0x68;
pub const LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS: usize = 0x69;
pub const LUMP_CELL_BSP_NODES: usize = 0x6A;
pub const LUMP_CELLS: usize = 0x6B;
pub const LUMP_PORTALS: usize = 0x6C;
pub const LUMP_PORTAL_VERTICES: usize = 0x6D;
pub const LUMP_PORTAL_EDGES: usize = 0x6E;
pub const LUMP_PORTAL_VERTEX_EDGES: usize = 0x6F;
pub const LUMP_PORTAL_VERTEX_REFERENCES: usize = 0x70;
pub const LUMP_PORTAL_EDGE_REFERENCES: usize = 0x71;
pub const LUMP_PORTAL_EDGE_INTERSECT_EDGE: usize = 0x72;
pub const LUMP_PORTAL_EDGE_INTERSECT_VERTEX: usize = 0x73;
pub const LUMP_PORTAL_EDGE_INTERSECT_HEADER: usize = 0x74;
pub const LUMP_OCCLUSION_MESH_VERTICES: usize = 0x75;
pub const LUMP_OCCLUSION_MESH_INDICES: usize = 0x76;
pub const LUMP_CELL_AABB_NODES: usize = 0x77;
pub const LUMP_OBJ_REFERENCES: usize = 0x78;
pub const LUMP_OBJ_REFERENCE_BOUNDS: usize = 0x79;
pub const LUMP_LIGHTMAP_DATA_RTL_PAGES: usize = 0x7A;
pub const LUMP_LEVEL_INFO: usize = 0x7B;
pub const LUMP_SHADOW_MESH_OPAQUE_VERTICES: usize = 0x7C;
pub const LUMP_SHADOW_MESH_ALPHA_VERTICES: usize = 0x7D;
pub const LUMP_SHADOW_MESH_INDICES: usize = 0x7E;
pub const LUMP_SHADOW_MESHES: usize = 0x7F;

/// Titanfall (v29) lump table, facts §1.5 / §1.6.
static TITANFALL_LUMPS: [LumpDef; 128] = [
    /* 0x00 */ LumpDef::entities("ENTITIES"),
    /* 0x01 */ LumpDef::versioned("PLANES", &[(0, 16)]),
    /* 0x02 */ LumpDef::versioned("TEXTURE_DATA", &[(0, 36)]),
    /* 0x03 */ LumpDef::versioned("VERTICES", &[(0, 12)]),
    /* 0x04 */ LumpDef::raw("UNUSED_4"),
    /* 0x05 */ LumpDef::raw("UNUSED_5"),
    /* 0x06 */ LumpDef::raw("UNUSED_6"),
    /* 0x07 */ LumpDef::raw("UNUSED_7"),
    /* 0x08 */ LumpDef::raw("UNUSED_8"),
    /* 0x09 */ LumpDef::raw("UNUSED_9"),
    /* 0x0A */ LumpDef::raw("UNUSED_10"),
    /* 0x0B */ LumpDef::raw("UNUSED_11"),
    /* 0x0C */ LumpDef::raw("UNUSED_12"),
    /* 0x0D */ LumpDef::raw("UNUSED_13"),
    /* 0x0E */ LumpDef::versioned("MODELS", &[(0, 32)]),
    /* 0x0F */ LumpDef::raw("UNUSED_15"),
    /* 0x10 */ LumpDef::raw("UNUSED_16"),
    /* 0x11 */ LumpDef::raw("UNUSED_17"),
    /* 0x12 */ LumpDef::raw("UNUSED_18"),
    /* 0x13 */ LumpDef::raw("UNUSED_19"),
    /* 0x14 */ LumpDef::raw("UNUSED_20"),
    /* 0x15 */ LumpDef::raw("UNUSED_21"),
    /* 0x16 */ LumpDef::raw("UNUSED_22"),
    /* 0x17 */ LumpDef::raw("UNUSED_23"),
    /* 0x18 */ LumpDef::special("ENTITY_PARTITIONS"),
    /* 0x19 */ LumpDef::raw("UNUSED_25"),
    /* 0x1A */ LumpDef::raw("UNUSED_26"),
    /* 0x1B */ LumpDef::raw("UNUSED_27"),
    /* 0x1C */ LumpDef::raw("UNUSED_28"),
    /* 0x1D */ LumpDef::raw("PHYSICS_COLLIDE"),
    /* 0x1E */ LumpDef::versioned("VERTEX_NORMALS", &[(0, 12)]),
    /* 0x1F */ LumpDef::raw("UNUSED_31"),
    /* 0x20 */ LumpDef::raw("UNUSED_32"),
    /* 0x21 */ LumpDef::raw("UNUSED_33"),
    /* 0x22 */ LumpDef::raw("UNUSED_34"),
    /* 0x23 */ LumpDef::special("GAME_LUMP"),
    /* 0x24 */ LumpDef::versioned("LEAF_WATER_DATA", &[(0, 12)]),
    /* 0x25 */ LumpDef::raw("UNUSED_37"),
    /* 0x26 */ LumpDef::raw("UNUSED_38"),
    /* 0x27 */ LumpDef::raw("UNUSED_39"),
    /* 0x28 */ LumpDef::special("PAKFILE"),
    /* 0x29 */ LumpDef::raw("UNUSED_41"),
    /* 0x2A */ LumpDef::versioned("CUBEMAPS", &[(0, 16)]),
    /* 0x2B */ LumpDef::special("TEXTURE_DATA_STRING_DATA"),
    /* 0x2C */ LumpDef::versioned("TEXTURE_DATA_STRING_TABLE", &[(0, 4)]),
    /* 0x2D */ LumpDef::raw("UNUSED_45"),
    /* 0x2E */ LumpDef::raw("UNUSED_46"),
    /* 0x2F */ LumpDef::raw("UNUSED_47"),
    /* 0x30 */ LumpDef::raw("UNUSED_48"),
    /* 0x31 */ LumpDef::raw("UNUSED_49"),
    /* 0x32 */ LumpDef::raw("UNUSED_50"),
    /* 0x33 */ LumpDef::raw("UNUSED_51"),
    /* 0x34 */ LumpDef::raw("UNUSED_52"),
    /* 0x35 */ LumpDef::raw("UNUSED_53"),
    /* 0x36 */ LumpDef::versioned("WORLD_LIGHTS", &[(0, 100)]),
    /* 0x37 */ LumpDef::raw("UNUSED_55"),
    /* 0x38 */ LumpDef::raw("UNUSED_56"),
    /* 0x39 */ LumpDef::raw("UNUSED_57"),
    /* 0x3A */ LumpDef::raw("UNUSED_58"),
    /* 0x3B */ LumpDef::raw("UNUSED_59"),
    /* 0x3C */ LumpDef::raw("UNUSED_60"),
    /* 0x3D */ LumpDef::raw("UNUSED_61"),
    /* 0x3E */ LumpDef::raw("PHYSICS_LEVEL"),
    /* 0x3F */ LumpDef::raw("UNUSED_63"),
    /* 0x40 */ LumpDef::raw("UNUSED_64"),
    /* 0x41 */ LumpDef::raw("UNUSED_65"),
    /* 0x42 */ LumpDef::versioned("TRICOLL_TRIANGLES", &[(0, 4)]),
    /* 0x43 */ LumpDef::raw("UNUSED_67"),
    /* 0x44 */ LumpDef::versioned("TRICOLL_NODES", &[(0, 16)]),
    /* 0x45 */ LumpDef::versioned("TRICOLL_HEADERS", &[(0, 44)]),
    /* 0x46 */ LumpDef::raw("PHYSICS_TRIANGLES"),
    /* 0x47 */ LumpDef::versioned("VERTEX_UNLIT", &[(0, 20)]),
    /* 0x48 */ LumpDef::versioned("VERTEX_LIT_FLAT", &[(0, 36)]),
    /* 0x49 */ LumpDef::versioned("VERTEX_LIT_BUMP", &[(0, 44)]),
    /* 0x4A */ LumpDef::versioned("VERTEX_UNLIT_TS", &[(0, 28)]),
    /* 0x4B */ LumpDef::versioned("VERTEX_BLINN_PHONG", &[(0, 92)]),
    /* 0x4C */ LumpDef::raw("VERTEX_RESERVED_5"),
    /* 0x4D */ LumpDef::raw("VERTEX_RESERVED_6"),
    /* 0x4E */ LumpDef::raw("VERTEX_RESERVED_7"),
    /* 0x4F */ LumpDef::versioned("MESH_INDICES", &[(0, 2)]),
    /* 0x50 */ LumpDef::versioned("MESHES", &[(0, 28)]),
    /* 0x51 */ LumpDef::versioned("MESH_BOUNDS", &[(0, 32)]),
    /* 0x52 */ LumpDef::versioned("MATERIAL_SORTS", &[(0, 12)]),
    /* 0x53 */ LumpDef::versioned("LIGHTMAP_HEADERS", &[(0, 8)]),
    /* 0x54 */ LumpDef::raw("UNUSED_84"),
    /* 0x55 */ LumpDef::versioned("CM_GRID", &[(0, 28)]),
    /* 0x56 */ LumpDef::versioned("CM_GRID_CELLS", &[(0, 4)]),
    /* 0x57 */ LumpDef::versioned("CM_GEO_SETS", &[(0, 8)]),
    /* 0x58 */ LumpDef::versioned("CM_GEO_SET_BOUNDS", &[(0, 16)]),
    /* 0x59 */ LumpDef::versioned("CM_PRIMITIVES", &[(0, 4)]),
    /* 0x5A */ LumpDef::versioned("CM_PRIMITIVE_BOUNDS", &[(0, 16)]),
    /* 0x5B */ LumpDef::versioned("CM_UNIQUE_CONTENTS", &[(0, 4)]),
    /* 0x5C */ LumpDef::versioned("CM_BRUSHES", &[(0, 32)]),
    /* 0x5D */ LumpDef::versioned("CM_BRUSH_SIDE_PLANE_OFFSETS", &[(0, 2)]),
    /* 0x5E */ LumpDef::versioned("CM_BRUSH_SIDE_PROPERTIES", &[(0, 2)]),
    /* 0x5F */ LumpDef::versioned("CM_BRUSH_SIDE_TEXTURE_VECTORS", &[(0, 32)]),
    /* 0x60 */ LumpDef::versioned("TRICOLL_BEVEL_STARTS", &[(0, 2)]),
    /* 0x61 */ LumpDef::versioned("TRICOLL_BEVEL_INDICES", &[(0, 4)]),
    /* 0x62 */ LumpDef::special("LIGHTMAP_DATA_SKY"),
    /* 0x63 */ LumpDef::versioned("CSM_AABB_NODES", &[(0, 32)]),
    /* 0x64 */ LumpDef::versioned("CSM_OBJ_REFERENCES", &[(0, 2)]),
    /* 0x65 */ LumpDef::versioned("LIGHTPROBES", &[(0, 48)]),
    /* 0x66 */ LumpDef::versioned("STATIC_PROP_LIGHTPROBE_INDICES", &[(0, 4)]),
    /* 0x67 */ LumpDef::versioned("LIGHTPROBE_TREE", &[(0, 8)]),
    /* 0x68 */ LumpDef::versioned("LIGHTPROBE_REFERENCES", &[(0, 16)]),
    /* 0x69 */ LumpDef::special("LIGHTMAP_DATA_REAL_TIME_LIGHTS"),
    /* 0x6A */ LumpDef::versioned("CELL_BSP_NODES", &[(0, 8)]),
    /* 0x6B */ LumpDef::versioned("CELLS", &[(0, 8)]),
    /* 0x6C */ LumpDef::versioned("PORTALS", &[(0, 12)]),
    /* 0x6D */ LumpDef::versioned("PORTAL_VERTICES", &[(0, 12)]),
    /* 0x6E */ LumpDef::versioned("PORTAL_EDGES", &[(0, 2)]),
    /* 0x6F */ LumpDef::versioned("PORTAL_VERTEX_EDGES", &[(0, 16)]),
    /* 0x70 */ LumpDef::versioned("PORTAL_VERTEX_REFERENCES", &[(0, 2)]),
    /* 0x71 */ LumpDef::versioned("PORTAL_EDGE_REFERENCES", &[(0, 2)]),
    /* 0x72 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_EDGE", &[(0, 16)]),
    /* 0x73 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_VERTEX", &[(0, 16)]),
    /* 0x74 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_HEADER", &[(0, 8)]),
    /* 0x75 */ LumpDef::versioned("OCCLUSION_MESH_VERTICES", &[(0, 12)]),
    /* 0x76 */ LumpDef::versioned("OCCLUSION_MESH_INDICES", &[(0, 2)]),
    /* 0x77 */ LumpDef::versioned("CELL_AABB_NODES", &[(0, 32)]),
    /* 0x78 */ LumpDef::versioned("OBJ_REFERENCES", &[(0, 2)]),
    /* 0x79 */ LumpDef::versioned("OBJ_REFERENCE_BOUNDS", &[(0, 32)]),
    /* 0x7A */ LumpDef::raw("UNUSED_122"),
    /* 0x7B */ LumpDef::versioned("LEVEL_INFO", &[(0, 28)]),
    /* 0x7C */ LumpDef::versioned("SHADOW_MESH_OPAQUE_VERTICES", &[(0, 12)]),
    /* 0x7D */ LumpDef::versioned("SHADOW_MESH_ALPHA_VERTICES", &[(0, 20)]),
    /* 0x7E */ LumpDef::versioned("SHADOW_MESH_INDICES", &[(0, 2)]),
    /* 0x7F */ LumpDef::versioned("SHADOW_MESHES", &[(0, 12)]),
];

/// Titanfall 2 (v36, v37) lump table. Sizes checked on the three v37 corpus maps.
/// WORLD_LIGHTS grows with its lump version (100/108/112 bytes, facts §1.6; v3 seen locally).
static TITANFALL2_LUMPS: [LumpDef; 128] = [
    /* 0x00 */ LumpDef::entities("ENTITIES"),
    /* 0x01 */ LumpDef::versioned("PLANES", &[(0, 16)]),
    /* 0x02 */ LumpDef::versioned("TEXTURE_DATA", &[(0, 36)]),
    /* 0x03 */ LumpDef::versioned("VERTICES", &[(0, 12)]),
    /* 0x04 */ LumpDef::versioned("LIGHTPROBE_PARENT_INFOS", &[(0, 28)]),
    /* 0x05 */ LumpDef::versioned("SHADOW_ENVIRONMENTS", &[(0, 36)]),
    /* 0x06 */ LumpDef::versioned("LIGHTPROBE_BSP_NODES", &[(0, 24)]),
    /* 0x07 */ LumpDef::raw("LIGHTPROBE_BSP_REF_IDS"),
    /* 0x08 */ LumpDef::raw("UNUSED_8"),
    /* 0x09 */ LumpDef::raw("UNUSED_9"),
    /* 0x0A */ LumpDef::raw("UNUSED_10"),
    /* 0x0B */ LumpDef::raw("UNUSED_11"),
    /* 0x0C */ LumpDef::raw("UNUSED_12"),
    /* 0x0D */ LumpDef::raw("UNUSED_13"),
    /* 0x0E */ LumpDef::versioned("MODELS", &[(0, 32)]),
    /* 0x0F */ LumpDef::raw("UNUSED_15"),
    /* 0x10 */ LumpDef::raw("UNUSED_16"),
    /* 0x11 */ LumpDef::raw("UNUSED_17"),
    /* 0x12 */ LumpDef::raw("UNUSED_18"),
    /* 0x13 */ LumpDef::raw("UNUSED_19"),
    /* 0x14 */ LumpDef::raw("UNUSED_20"),
    /* 0x15 */ LumpDef::raw("UNUSED_21"),
    /* 0x16 */ LumpDef::raw("UNUSED_22"),
    /* 0x17 */ LumpDef::raw("UNUSED_23"),
    /* 0x18 */ LumpDef::special("ENTITY_PARTITIONS"),
    /* 0x19 */ LumpDef::raw("UNUSED_25"),
    /* 0x1A */ LumpDef::raw("UNUSED_26"),
    /* 0x1B */ LumpDef::raw("UNUSED_27"),
    /* 0x1C */ LumpDef::raw("UNUSED_28"),
    /* 0x1D */ LumpDef::raw("PHYSICS_COLLIDE"),
    /* 0x1E */ LumpDef::versioned("VERTEX_NORMALS", &[(0, 12)]),
    /* 0x1F */ LumpDef::raw("UNUSED_31"),
    /* 0x20 */ LumpDef::raw("UNUSED_32"),
    /* 0x21 */ LumpDef::raw("UNUSED_33"),
    /* 0x22 */ LumpDef::raw("UNUSED_34"),
    /* 0x23 */ LumpDef::special("GAME_LUMP"),
    /* 0x24 */ LumpDef::versioned("LEAF_WATER_DATA", &[(0, 12)]),
    /* 0x25 */ LumpDef::raw("UNUSED_37"),
    /* 0x26 */ LumpDef::raw("UNUSED_38"),
    /* 0x27 */ LumpDef::raw("UNUSED_39"),
    /* 0x28 */ LumpDef::special("PAKFILE"),
    /* 0x29 */ LumpDef::raw("UNUSED_41"),
    /* 0x2A */ LumpDef::versioned("CUBEMAPS", &[(0, 16)]),
    /* 0x2B */ LumpDef::special("TEXTURE_DATA_STRING_DATA"),
    /* 0x2C */ LumpDef::versioned("TEXTURE_DATA_STRING_TABLE", &[(0, 4)]),
    /* 0x2D */ LumpDef::raw("UNUSED_45"),
    /* 0x2E */ LumpDef::raw("UNUSED_46"),
    /* 0x2F */ LumpDef::raw("UNUSED_47"),
    /* 0x30 */ LumpDef::raw("UNUSED_48"),
    /* 0x31 */ LumpDef::raw("UNUSED_49"),
    /* 0x32 */ LumpDef::raw("UNUSED_50"),
    /* 0x33 */ LumpDef::raw("UNUSED_51"),
    /* 0x34 */ LumpDef::raw("UNUSED_52"),
    /* 0x35 */ LumpDef::raw("UNUSED_53"),
    /* 0x36 */ LumpDef::versioned("WORLD_LIGHTS", &[(1, 100), (2, 108), (3, 112)]),
    /* 0x37 */ LumpDef::versioned("WORLD_LIGHT_PARENT_INFOS", &[(0, 76)]),
    /* 0x38 */ LumpDef::raw("UNUSED_56"),
    /* 0x39 */ LumpDef::raw("UNUSED_57"),
    /* 0x3A */ LumpDef::raw("UNUSED_58"),
    /* 0x3B */ LumpDef::raw("UNUSED_59"),
    /* 0x3C */ LumpDef::raw("UNUSED_60"),
    /* 0x3D */ LumpDef::raw("UNUSED_61"),
    /* 0x3E */ LumpDef::raw("UNUSED_62"),
    /* 0x3F */ LumpDef::raw("UNUSED_63"),
    /* 0x40 */ LumpDef::raw("UNUSED_64"),
    /* 0x41 */ LumpDef::raw("UNUSED_65"),
    /* 0x42 */ LumpDef::versioned("TRICOLL_TRIANGLES", &[(0, 4)]),
    /* 0x43 */ LumpDef::raw("UNUSED_67"),
    /* 0x44 */ LumpDef::versioned("TRICOLL_NODES", &[(0, 16)]),
    /* 0x45 */ LumpDef::versioned("TRICOLL_HEADERS", &[(0, 44)]),
    /* 0x46 */ LumpDef::raw("UNUSED_70"),
    /* 0x47 */ LumpDef::versioned("VERTEX_UNLIT", &[(0, 20)]),
    /* 0x48 */ LumpDef::versioned("VERTEX_LIT_FLAT", &[(0, 36)]),
    /* 0x49 */ LumpDef::versioned("VERTEX_LIT_BUMP", &[(0, 44)]),
    /* 0x4A */ LumpDef::versioned("VERTEX_UNLIT_TS", &[(0, 28)]),
    /* 0x4B */ LumpDef::versioned("VERTEX_BLINN_PHONG", &[(0, 92)]),
    /* 0x4C */ LumpDef::raw("VERTEX_RESERVED_5"),
    /* 0x4D */ LumpDef::raw("VERTEX_RESERVED_6"),
    /* 0x4E */ LumpDef::raw("VERTEX_RESERVED_7"),
    /* 0x4F */ LumpDef::versioned("MESH_INDICES", &[(0, 2)]),
    /* 0x50 */ LumpDef::versioned("MESHES", &[(0, 28)]),
    /* 0x51 */ LumpDef::versioned("MESH_BOUNDS", &[(0, 32)]),
    /* 0x52 */ LumpDef::versioned("MATERIAL_SORTS", &[(0, 12)]),
    /* 0x53 */ LumpDef::versioned("LIGHTMAP_HEADERS", &[(0, 8)]),
    /* 0x54 */ LumpDef::raw("UNUSED_84"),
    /* 0x55 */ LumpDef::versioned("CM_GRID", &[(0, 28)]),
    /* 0x56 */ LumpDef::versioned("CM_GRID_CELLS", &[(0, 4)]),
    /* 0x57 */ LumpDef::versioned("CM_GEO_SETS", &[(0, 8)]),
    /* 0x58 */ LumpDef::versioned("CM_GEO_SET_BOUNDS", &[(0, 16)]),
    /* 0x59 */ LumpDef::versioned("CM_PRIMITIVES", &[(0, 4)]),
    /* 0x5A */ LumpDef::versioned("CM_PRIMITIVE_BOUNDS", &[(0, 16)]),
    /* 0x5B */ LumpDef::versioned("CM_UNIQUE_CONTENTS", &[(0, 4)]),
    /* 0x5C */ LumpDef::versioned("CM_BRUSHES", &[(0, 32)]),
    /* 0x5D */ LumpDef::versioned("CM_BRUSH_SIDE_PLANE_OFFSETS", &[(0, 2)]),
    /* 0x5E */ LumpDef::versioned("CM_BRUSH_SIDE_PROPERTIES", &[(0, 2)]),
    /* 0x5F */ LumpDef::versioned("CM_BRUSH_SIDE_TEXTURE_VECTORS", &[(0, 32)]),
    /* 0x60 */ LumpDef::versioned("TRICOLL_BEVEL_STARTS", &[(0, 2)]),
    /* 0x61 */ LumpDef::versioned("TRICOLL_BEVEL_INDICES", &[(0, 4)]),
    /* 0x62 */ LumpDef::special("LIGHTMAP_DATA_SKY"),
    /* 0x63 */ LumpDef::versioned("CSM_AABB_NODES", &[(0, 32)]),
    /* 0x64 */ LumpDef::versioned("CSM_OBJ_REFERENCES", &[(0, 2)]),
    /* 0x65 */ LumpDef::versioned("LIGHTPROBES", &[(0, 48)]),
    /* 0x66 */ LumpDef::versioned("STATIC_PROP_LIGHTPROBE_INDICES", &[(0, 4)]),
    /* 0x67 */ LumpDef::versioned("LIGHTPROBE_TREE", &[(0, 8)]),
    /* 0x68 */ LumpDef::versioned("LIGHTPROBE_REFERENCES", &[(0, 20)]),
    /* 0x69 */ LumpDef::special("LIGHTMAP_DATA_REAL_TIME_LIGHTS"),
    /* 0x6A */ LumpDef::versioned("CELL_BSP_NODES", &[(0, 8)]),
    /* 0x6B */ LumpDef::versioned("CELLS", &[(0, 8)]),
    /* 0x6C */ LumpDef::versioned("PORTALS", &[(0, 12)]),
    /* 0x6D */ LumpDef::versioned("PORTAL_VERTICES", &[(0, 12)]),
    /* 0x6E */ LumpDef::versioned("PORTAL_EDGES", &[(0, 2)]),
    /* 0x6F */ LumpDef::versioned("PORTAL_VERTEX_EDGES", &[(0, 16)]),
    /* 0x70 */ LumpDef::versioned("PORTAL_VERTEX_REFERENCES", &[(0, 2)]),
    /* 0x71 */ LumpDef::versioned("PORTAL_EDGE_REFERENCES", &[(0, 2)]),
    /* 0x72 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_EDGE", &[(0, 16)]),
    /* 0x73 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_VERTEX", &[(0, 16)]),
    /* 0x74 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_HEADER", &[(0, 8)]),
    /* 0x75 */ LumpDef::versioned("OCCLUSION_MESH_VERTICES", &[(0, 12)]),
    /* 0x76 */ LumpDef::versioned("OCCLUSION_MESH_INDICES", &[(0, 2)]),
    /* 0x77 */ LumpDef::versioned("CELL_AABB_NODES", &[(0, 32)]),
    /* 0x78 */ LumpDef::versioned("OBJ_REFERENCES", &[(0, 2)]),
    /* 0x79 */ LumpDef::versioned("OBJ_REFERENCE_BOUNDS", &[(0, 32)]),
    /* 0x7A */ LumpDef::versioned("LIGHTMAP_DATA_RTL_PAGES", &[(0, 126)]),
    /* 0x7B */ LumpDef::versioned("LEVEL_INFO", &[(0, 28)]),
    /* 0x7C */ LumpDef::versioned("SHADOW_MESH_OPAQUE_VERTICES", &[(0, 12)]),
    /* 0x7D */ LumpDef::versioned("SHADOW_MESH_ALPHA_VERTICES", &[(0, 20)]),
    /* 0x7E */ LumpDef::versioned("SHADOW_MESH_INDICES", &[(0, 2)]),
    /* 0x7F */ LumpDef::versioned("SHADOW_MESHES", &[(0, 12)]),
];

/// Apex Legends (v47-v52) lump table. v52 names slot 0x39 `UNKNOWN_57` (facts §1.5); the
/// slot is unused by every earlier version, so one table serves all.
static APEX_LUMPS: [LumpDef; 128] = [
    /* 0x00 */ LumpDef::entities("ENTITIES"),
    /* 0x01 */ LumpDef::versioned("PLANES", &[(0, 16)]),
    /* 0x02 */ LumpDef::versioned("TEXTURE_DATA", &[(0, 16)]),
    /* 0x03 */ LumpDef::versioned("VERTICES", &[(0, 12)]),
    /* 0x04 */ LumpDef::versioned("LIGHTPROBE_PARENT_INFOS", &[(0, 28)]),
    /* 0x05 */ LumpDef::versioned("SHADOW_ENVIRONMENTS", &[(0, 36)]),
    /* 0x06 */ LumpDef::raw("UNUSED_6"),
    /* 0x07 */ LumpDef::raw("UNUSED_7"),
    /* 0x08 */ LumpDef::raw("UNUSED_8"),
    /* 0x09 */ LumpDef::raw("UNUSED_9"),
    /* 0x0A */ LumpDef::raw("UNUSED_10"),
    /* 0x0B */ LumpDef::raw("UNUSED_11"),
    /* 0x0C */ LumpDef::raw("UNUSED_12"),
    /* 0x0D */ LumpDef::raw("UNUSED_13"),
    /* 0x0E */ LumpDef::versioned("MODELS", &[(0, 64)]),
    /* 0x0F */ LumpDef::special("SURFACE_NAMES"),
    /* 0x10 */ LumpDef::versioned("CONTENTS_MASKS", &[(0, 4)]),
    /* 0x11 */ LumpDef::versioned("SURFACE_PROPERTIES", &[(0, 8)]),
    /* 0x12 */ LumpDef::versioned("BVH_NODES", &[(0, 64)]),
    /* 0x13 */ LumpDef::versioned("BVH_LEAF_DATA", &[(0, 4)]),
    /* 0x14 */ LumpDef::versioned("PACKED_VERTICES", &[(0, 6)]),
    /* 0x15 */ LumpDef::versioned("HEIGHTFIELDS", &[(0, 40)]),
    /* 0x16 */ LumpDef::versioned("HEIGHTFIELD_SAMPLES", &[(0, 2)]),
    /* 0x17 */ LumpDef::raw("UNUSED_23"),
    /* 0x18 */ LumpDef::special("ENTITY_PARTITIONS"),
    /* 0x19 */ LumpDef::raw("UNUSED_25"),
    /* 0x1A */ LumpDef::raw("UNUSED_26"),
    /* 0x1B */ LumpDef::raw("UNUSED_27"),
    /* 0x1C */ LumpDef::raw("UNUSED_28"),
    /* 0x1D */ LumpDef::raw("UNUSED_29"),
    /* 0x1E */ LumpDef::versioned("VERTEX_NORMALS", &[(0, 12)]),
    /* 0x1F */ LumpDef::raw("UNUSED_31"),
    /* 0x20 */ LumpDef::raw("UNUSED_32"),
    /* 0x21 */ LumpDef::raw("UNUSED_33"),
    /* 0x22 */ LumpDef::raw("UNUSED_34"),
    /* 0x23 */ LumpDef::special("GAME_LUMP"),
    /* 0x24 */ LumpDef::raw("UNUSED_36"),
    /* 0x25 */ LumpDef::raw("UNKNOWN_37"),
    /* 0x26 */ LumpDef::versioned("UNKNOWN_38", &[(0, 4)]),
    /* 0x27 */ LumpDef::versioned("UNKNOWN_39", &[(0, 2)]),
    /* 0x28 */ LumpDef::special("PAKFILE"),
    /* 0x29 */ LumpDef::raw("UNUSED_41"),
    /* 0x2A */ LumpDef::versioned("CUBEMAPS", &[(0, 16)]),
    /* 0x2B */ LumpDef::versioned("CUBEMAPS_AMBIENT_RCP", &[(0, 4)]),
    /* 0x2C */ LumpDef::versioned("WATER_BODIES", &[(0, 80)]),
    /* 0x2D */ LumpDef::versioned("WATER_BODY_CENTERS", &[(0, 24)]),
    /* 0x2E */ LumpDef::versioned("WATER_BODY_VERTICES", &[(0, 24)]),
    /* 0x2F */ LumpDef::versioned("WATER_BODY_INDICES", &[(0, 2)]),
    /* 0x30 */ LumpDef::raw("WAVE_DATA"),
    /* 0x31 */ LumpDef::raw("UNUSED_49"),
    /* 0x32 */ LumpDef::raw("UNUSED_50"),
    /* 0x33 */ LumpDef::raw("UNUSED_51"),
    /* 0x34 */ LumpDef::raw("UNUSED_52"),
    /* 0x35 */ LumpDef::raw("UNUSED_53"),
    /* 0x36 */ LumpDef::versioned("WORLD_LIGHTS", &[(0, 112)]),
    /* 0x37 */ LumpDef::versioned("WORLD_LIGHT_PARENT_INFOS", &[(0, 76)]),
    /* 0x38 */ LumpDef::raw("UNUSED_56"),
    /* 0x39 */ LumpDef::raw("UNUSED_57"),
    /* 0x3A */ LumpDef::raw("UNUSED_58"),
    /* 0x3B */ LumpDef::raw("UNUSED_59"),
    /* 0x3C */ LumpDef::raw("UNUSED_60"),
    /* 0x3D */ LumpDef::raw("UNUSED_61"),
    /* 0x3E */ LumpDef::raw("UNUSED_62"),
    /* 0x3F */ LumpDef::raw("UNUSED_63"),
    /* 0x40 */ LumpDef::raw("UNUSED_64"),
    /* 0x41 */ LumpDef::raw("UNUSED_65"),
    /* 0x42 */ LumpDef::raw("UNUSED_66"),
    /* 0x43 */ LumpDef::raw("UNUSED_67"),
    /* 0x44 */ LumpDef::raw("UNUSED_68"),
    /* 0x45 */ LumpDef::raw("UNUSED_69"),
    /* 0x46 */ LumpDef::raw("UNUSED_70"),
    /* 0x47 */ LumpDef::versioned("VERTEX_UNLIT", &[(0, 20)]),
    /* 0x48 */ LumpDef::versioned("VERTEX_LIT_FLAT", &[(0, 20)]),
    /* 0x49 */ LumpDef::versioned("VERTEX_LIT_BUMP", &[(0, 32)]),
    /* 0x4A */ LumpDef::versioned("VERTEX_UNLIT_TS", &[(0, 24)]),
    /* 0x4B */ LumpDef::versioned("VERTEX_BLINN_PHONG", &[(0, 24)]),
    /* 0x4C */ LumpDef::raw("VERTEX_RESERVED_5"),
    /* 0x4D */ LumpDef::raw("VERTEX_RESERVED_6"),
    /* 0x4E */ LumpDef::raw("VERTEX_RESERVED_7"),
    /* 0x4F */ LumpDef::versioned("MESH_INDICES", &[(0, 2)]),
    /* 0x50 */ LumpDef::versioned("MESHES", &[(0, 28)]),
    /* 0x51 */ LumpDef::versioned("MESH_BOUNDS", &[(0, 32)]),
    /* 0x52 */ LumpDef::versioned("MATERIAL_SORTS", &[(0, 12)]),
    /* 0x53 */ LumpDef::versioned("LIGHTMAP_HEADERS", &[(0, 8)]),
    /* 0x54 */ LumpDef::raw("UNUSED_84"),
    /* 0x55 */ LumpDef::raw("TWEAK_LIGHTS"),
    /* 0x56 */ LumpDef::raw("UNUSED_86"),
    /* 0x57 */ LumpDef::raw("UNUSED_87"),
    /* 0x58 */ LumpDef::raw("UNUSED_88"),
    /* 0x59 */ LumpDef::raw("UNUSED_89"),
    /* 0x5A */ LumpDef::raw("UNUSED_90"),
    /* 0x5B */ LumpDef::raw("UNUSED_91"),
    /* 0x5C */ LumpDef::raw("UNUSED_92"),
    /* 0x5D */ LumpDef::raw("UNUSED_93"),
    /* 0x5E */ LumpDef::raw("UNUSED_94"),
    /* 0x5F */ LumpDef::raw("UNUSED_95"),
    /* 0x60 */ LumpDef::raw("UNUSED_96"),
    /* 0x61 */ LumpDef::raw("LIGHTMAP_DATA_UNKNOWN"),
    /* 0x62 */ LumpDef::special("LIGHTMAP_DATA_SKY"),
    /* 0x63 */ LumpDef::versioned("CSM_AABB_NODES", &[(0, 32)]),
    /* 0x64 */ LumpDef::versioned("CSM_OBJ_REFERENCES", &[(0, 4)]),
    /* 0x65 */ LumpDef::raw("LIGHTPROBES"),
    /* 0x66 */ LumpDef::versioned("STATIC_PROP_LIGHTPROBE_INDICES", &[(0, 4)]),
    /* 0x67 */ LumpDef::versioned("LIGHTPROBE_TREE", &[(0, 8)]),
    /* 0x68 */ LumpDef::versioned("LIGHTPROBE_REFERENCES", &[(0, 20)]),
    /* 0x69 */ LumpDef::special("LIGHTMAP_DATA_REAL_TIME_LIGHTS"),
    /* 0x6A */ LumpDef::versioned("CELL_BSP_NODES", &[(0, 8)]),
    /* 0x6B */ LumpDef::versioned("CELLS", &[(0, 8)]),
    /* 0x6C */ LumpDef::versioned("PORTALS", &[(0, 12)]),
    /* 0x6D */ LumpDef::versioned("PORTAL_VERTICES", &[(0, 12)]),
    /* 0x6E */ LumpDef::versioned("PORTAL_EDGES", &[(0, 2)]),
    /* 0x6F */ LumpDef::versioned("PORTAL_VERTEX_EDGES", &[(0, 16)]),
    /* 0x70 */ LumpDef::versioned("PORTAL_VERTEX_REFERENCES", &[(0, 2)]),
    /* 0x71 */ LumpDef::versioned("PORTAL_EDGE_REFERENCES", &[(0, 2)]),
    /* 0x72 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_EDGE", &[(0, 16)]),
    /* 0x73 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_VERTEX", &[(0, 16)]),
    /* 0x74 */ LumpDef::versioned("PORTAL_EDGE_INTERSECT_HEADER", &[(0, 8)]),
    /* 0x75 */ LumpDef::versioned("OCCLUSION_MESH_VERTICES", &[(0, 12)]),
    /* 0x76 */ LumpDef::versioned("OCCLUSION_MESH_INDICES", &[(0, 2)]),
    /* 0x77 */ LumpDef::versioned("CELL_AABB_NODES", &[(0, 32)]),
    /* 0x78 */ LumpDef::versioned("OBJ_REFERENCES", &[(0, 4)]),
    /* 0x79 */ LumpDef::versioned("OBJ_REFERENCE_BOUNDS", &[(0, 32)]),
    /* 0x7A */ LumpDef::raw("LIGHTMAP_DATA_RTL_PAGES"),
    /* 0x7B */ LumpDef::versioned("LEVEL_INFO", &[(0, 36)]),
    /* 0x7C */ LumpDef::versioned("SHADOW_MESH_OPAQUE_VERTICES", &[(0, 12)]),
    /* 0x7D */ LumpDef::versioned("SHADOW_MESH_ALPHA_VERTICES", &[(0, 20)]),
    /* 0x7E */ LumpDef::versioned("SHADOW_MESH_INDICES", &[(0, 2)]),
    /* 0x7F */ LumpDef::versioned("SHADOW_MESHES", &[(0, 12)]),
];

pub static TITANFALL: Branch = Branch {
    id: "titanfall",
    family: Family::Respawn,
    title: "Respawn rBSP 29 (Titanfall)",
    games: "Titanfall",
    header: HeaderKind::Respawn,
    lumps: &TITANFALL_LUMPS,
};

/// Titanfall on Xbox 360: magic `PSBr` (the PC magic's bytes reversed, as `PSBV` is `VBSP`'s),
/// version 29, every header word and record big-endian; Titanfall's lump table and record
/// layouts byte-swapped (bsp_tool 0.7.0 `respawn/titanfall_x360.py`: `LUMP = titanfall.LUMP`,
/// the lump header of `orange_box_x360`, its grid, level info and `sprp` v12 formats Titanfall's
/// with `>`; facts only).
pub static TITANFALL_X360: Branch = Branch {
    id: "titanfall_x360",
    family: Family::Respawn,
    title: "Respawn PSBr 29 (Titanfall, Xbox 360)",
    games: "Titanfall (Xbox 360)",
    header: HeaderKind::Respawn,
    lumps: &TITANFALL_LUMPS,
};

pub static TITANFALL2: Branch = Branch {
    id: "titanfall2",
    family: Family::Respawn,
    title: "Respawn rBSP 36/37 (Titanfall 2)",
    games: "Titanfall 2, Titanfall 2 tech test",
    header: HeaderKind::Respawn,
    lumps: &TITANFALL2_LUMPS,
};

pub static APEX: Branch = Branch {
    id: "apex",
    family: Family::Respawn,
    title: "Respawn rBSP 47-52 (Apex Legends)",
    games: "Apex Legends",
    header: HeaderKind::Respawn,
    lumps: &APEX_LUMPS,
};

pub static BRANCHES: &[&Branch] = &[&TITANFALL, &TITANFALL_X360, &TITANFALL2, &APEX];

/// The Xbox 360 magic (big-endian `rBSP`).
pub const X360_MAGIC: &[u8; 4] = b"PSBr";

/// The branch for a version word. Later Apex maps store `major | minor << 16` (facts §1.1), so
/// only the low 16 bits choose the table.
pub fn select(version: u32) -> &'static Branch {
    match version & 0xFFFF {
        29 => &TITANFALL,
        36 | 37 => &TITANFALL2,
        _ => &APEX,
    }
}

/// The version word split into (major, minor); minor is non-zero for Apex season 11+ maps whose
/// lumps all live in `.bsp_lump` files (facts §1.1).
pub fn split_version(word: u32) -> (u32, u32) {
    (word & 0xFFFF, word >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_128_named_slots() {
        for b in BRANCHES {
            assert_eq!(b.lumps.len(), 128, "{}", b.id);
            assert!(b.lumps.iter().all(|l| !l.name.is_empty()));
            assert_eq!(b.lump_index("ENTITY_PARTITIONS"), Some(LUMP_ENTITY_PARTITIONS));
            assert_eq!(b.lump_index("MESHES"), Some(LUMP_MESHES));
            assert_eq!(b.lump_index("OBJ_REFERENCE_BOUNDS"), Some(LUMP_OBJ_REFERENCE_BOUNDS));
        }
        assert_eq!(TITANFALL.lumps[0x1D].name, "PHYSICS_COLLIDE");
        assert_eq!(APEX.lumps[0x1D].name, "UNUSED_29");
        assert_eq!(TITANFALL2.lumps[0x7A].name, "LIGHTMAP_DATA_RTL_PAGES");
        assert_eq!(TITANFALL2.lumps[0x36].record_size(3), Some(112));
        assert_eq!(TITANFALL2.lumps[0x36].record_size(9), None);
    }

    #[test]
    fn apex_version_word_selects_by_low_half() {
        assert_eq!(select(0x0001_0031).id, "apex");
        assert_eq!(split_version(0x0001_0031), (49, 1));
        assert_eq!(select(37).id, "titanfall2");
    }
}
