//! Respawn Entertainment rBSP (Titanfall, Titanfall 2, Apex Legends).
//!
//! Header: `"rBSP"`, version, map revision, 127 (the last lump index), then 128 Valve-style
//! `lump_t {offset, length, version, fourCC}` entries (open_questions.md B6;
//! notes/respawn_cod_facts.md §1.1). Lump names follow bsp_tool's `LUMP` enums per game
//! (facts §1.5). Record sizes are declared only where the Titanfall 2 corpus maps confirm them
//! (every non-empty lump length is a multiple, facts §1.7); Titanfall and Apex reuse a size
//! only where their struct is the same as Titanfall 2's (facts §1.6). Everything else is Raw.
//!
//! Beside a map: `<map>.bsp.<xxxx>.bsp_lump` files replace lumps (loaded by `external.rs`), and
//! `<map>_<kind>.ent` entity partitions hold more entities ([`entity_partitions`]).

use std::path::{Path, PathBuf};

use crate::branch::{Branch, Family, HeaderKind, LumpDef};
use crate::bsp::Bsp;
use crate::check::Problem;
use crate::directory::LumpOrigin;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::entities::{self, Entities};

pub mod texture;

pub const LUMP_ENTITIES: usize = 0x00;
pub const LUMP_ENTITY_PARTITIONS: usize = 0x18;
pub const LUMP_TEXTURE_DATA_STRING_DATA: usize = 0x2B;
pub const LUMP_TEXTURE_DATA_STRING_TABLE: usize = 0x2C;
pub const LUMP_MESHES: usize = 0x50;
pub const LUMP_MESH_BOUNDS: usize = 0x51;
pub const LUMP_OBJ_REFERENCES: usize = 0x78;
pub const LUMP_OBJ_REFERENCE_BOUNDS: usize = 0x79;

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
    /* 0x24 */ LumpDef::raw("LEAF_WATER_DATA"),
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
    /* 0x36 */ LumpDef::raw("WORLD_LIGHTS"),
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
    /* 0x4A */ LumpDef::raw("VERTEX_UNLIT_TS"),
    /* 0x4B */ LumpDef::raw("VERTEX_BLINN_PHONG"),
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
    /* 0x61 */ LumpDef::raw("TRICOLL_BEVEL_INDICES"),
    /* 0x62 */ LumpDef::raw("LIGHTMAP_DATA_SKY"),
    /* 0x63 */ LumpDef::versioned("CSM_AABB_NODES", &[(0, 32)]),
    /* 0x64 */ LumpDef::raw("CSM_OBJ_REFERENCES"),
    /* 0x65 */ LumpDef::versioned("LIGHTPROBES", &[(0, 48)]),
    /* 0x66 */ LumpDef::raw("STATIC_PROP_LIGHTPROBE_INDICES"),
    /* 0x67 */ LumpDef::versioned("LIGHTPROBE_TREE", &[(0, 8)]),
    /* 0x68 */ LumpDef::raw("LIGHTPROBE_REFERENCES"),
    /* 0x69 */ LumpDef::raw("LIGHTMAP_DATA_REAL_TIME_LIGHTS"),
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
    /* 0x75 */ LumpDef::raw("OCCLUSION_MESH_VERTICES"),
    /* 0x76 */ LumpDef::raw("OCCLUSION_MESH_INDICES"),
    /* 0x77 */ LumpDef::versioned("CELL_AABB_NODES", &[(0, 32)]),
    /* 0x78 */ LumpDef::versioned("OBJ_REFERENCES", &[(0, 2)]),
    /* 0x79 */ LumpDef::versioned("OBJ_REFERENCE_BOUNDS", &[(0, 32)]),
    /* 0x7A */ LumpDef::raw("UNUSED_122"),
    /* 0x7B */ LumpDef::versioned("LEVEL_INFO", &[(0, 28)]),
    /* 0x7C */ LumpDef::versioned("SHADOW_MESH_OPAQUE_VERTICES", &[(0, 12)]),
    /* 0x7D */ LumpDef::raw("SHADOW_MESH_ALPHA_VERTICES"),
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
    /* 0x24 */ LumpDef::raw("LEAF_WATER_DATA"),
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
    /* 0x37 */ LumpDef::raw("WORLD_LIGHT_PARENT_INFOS"),
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
    /* 0x4A */ LumpDef::raw("VERTEX_UNLIT_TS"),
    /* 0x4B */ LumpDef::raw("VERTEX_BLINN_PHONG"),
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
    /* 0x61 */ LumpDef::raw("TRICOLL_BEVEL_INDICES"),
    /* 0x62 */ LumpDef::raw("LIGHTMAP_DATA_SKY"),
    /* 0x63 */ LumpDef::versioned("CSM_AABB_NODES", &[(0, 32)]),
    /* 0x64 */ LumpDef::raw("CSM_OBJ_REFERENCES"),
    /* 0x65 */ LumpDef::versioned("LIGHTPROBES", &[(0, 48)]),
    /* 0x66 */ LumpDef::raw("STATIC_PROP_LIGHTPROBE_INDICES"),
    /* 0x67 */ LumpDef::versioned("LIGHTPROBE_TREE", &[(0, 8)]),
    /* 0x68 */ LumpDef::versioned("LIGHTPROBE_REFERENCES", &[(0, 20)]),
    /* 0x69 */ LumpDef::raw("LIGHTMAP_DATA_REAL_TIME_LIGHTS"),
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
    /* 0x75 */ LumpDef::raw("OCCLUSION_MESH_VERTICES"),
    /* 0x76 */ LumpDef::raw("OCCLUSION_MESH_INDICES"),
    /* 0x77 */ LumpDef::versioned("CELL_AABB_NODES", &[(0, 32)]),
    /* 0x78 */ LumpDef::versioned("OBJ_REFERENCES", &[(0, 2)]),
    /* 0x79 */ LumpDef::versioned("OBJ_REFERENCE_BOUNDS", &[(0, 32)]),
    /* 0x7A */ LumpDef::versioned("LIGHTMAP_DATA_RTL_PAGES", &[(0, 126)]),
    /* 0x7B */ LumpDef::versioned("LEVEL_INFO", &[(0, 28)]),
    /* 0x7C */ LumpDef::versioned("SHADOW_MESH_OPAQUE_VERTICES", &[(0, 12)]),
    /* 0x7D */ LumpDef::raw("SHADOW_MESH_ALPHA_VERTICES"),
    /* 0x7E */ LumpDef::versioned("SHADOW_MESH_INDICES", &[(0, 2)]),
    /* 0x7F */ LumpDef::versioned("SHADOW_MESHES", &[(0, 12)]),
];

/// Apex Legends (v47-v52) lump table. v52 names slot 0x39 `UNKNOWN_57` (facts §1.5); the
/// slot is unused by every earlier version, so one table serves all.
static APEX_LUMPS: [LumpDef; 128] = [
    /* 0x00 */ LumpDef::entities("ENTITIES"),
    /* 0x01 */ LumpDef::versioned("PLANES", &[(0, 16)]),
    /* 0x02 */ LumpDef::raw("TEXTURE_DATA"),
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
    /* 0x0E */ LumpDef::raw("MODELS"),
    /* 0x0F */ LumpDef::special("SURFACE_NAMES"),
    /* 0x10 */ LumpDef::raw("CONTENTS_MASKS"),
    /* 0x11 */ LumpDef::raw("SURFACE_PROPERTIES"),
    /* 0x12 */ LumpDef::raw("BVH_NODES"),
    /* 0x13 */ LumpDef::raw("BVH_LEAF_DATA"),
    /* 0x14 */ LumpDef::raw("PACKED_VERTICES"),
    /* 0x15 */ LumpDef::raw("HEIGHTFIELDS"),
    /* 0x16 */ LumpDef::raw("HEIGHTFIELD_SAMPLES"),
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
    /* 0x26 */ LumpDef::raw("UNKNOWN_38"),
    /* 0x27 */ LumpDef::raw("UNKNOWN_39"),
    /* 0x28 */ LumpDef::special("PAKFILE"),
    /* 0x29 */ LumpDef::raw("UNUSED_41"),
    /* 0x2A */ LumpDef::versioned("CUBEMAPS", &[(0, 16)]),
    /* 0x2B */ LumpDef::raw("CUBEMAPS_AMBIENT_RCP"),
    /* 0x2C */ LumpDef::raw("WATER_BODIES"),
    /* 0x2D */ LumpDef::raw("WATER_BODY_CENTERS"),
    /* 0x2E */ LumpDef::raw("WATER_BODY_VERTICES"),
    /* 0x2F */ LumpDef::raw("WATER_BODY_INDICES"),
    /* 0x30 */ LumpDef::raw("WAVE_DATA"),
    /* 0x31 */ LumpDef::raw("UNUSED_49"),
    /* 0x32 */ LumpDef::raw("UNUSED_50"),
    /* 0x33 */ LumpDef::raw("UNUSED_51"),
    /* 0x34 */ LumpDef::raw("UNUSED_52"),
    /* 0x35 */ LumpDef::raw("UNUSED_53"),
    /* 0x36 */ LumpDef::raw("WORLD_LIGHTS"),
    /* 0x37 */ LumpDef::raw("WORLD_LIGHT_PARENT_INFOS"),
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
    /* 0x48 */ LumpDef::raw("VERTEX_LIT_FLAT"),
    /* 0x49 */ LumpDef::raw("VERTEX_LIT_BUMP"),
    /* 0x4A */ LumpDef::raw("VERTEX_UNLIT_TS"),
    /* 0x4B */ LumpDef::raw("VERTEX_BLINN_PHONG"),
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
    /* 0x62 */ LumpDef::raw("LIGHTMAP_DATA_SKY"),
    /* 0x63 */ LumpDef::versioned("CSM_AABB_NODES", &[(0, 32)]),
    /* 0x64 */ LumpDef::raw("CSM_OBJ_REFERENCES"),
    /* 0x65 */ LumpDef::raw("LIGHTPROBES"),
    /* 0x66 */ LumpDef::raw("STATIC_PROP_LIGHTPROBE_INDICES"),
    /* 0x67 */ LumpDef::versioned("LIGHTPROBE_TREE", &[(0, 8)]),
    /* 0x68 */ LumpDef::versioned("LIGHTPROBE_REFERENCES", &[(0, 20)]),
    /* 0x69 */ LumpDef::raw("LIGHTMAP_DATA_REAL_TIME_LIGHTS"),
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
    /* 0x75 */ LumpDef::raw("OCCLUSION_MESH_VERTICES"),
    /* 0x76 */ LumpDef::raw("OCCLUSION_MESH_INDICES"),
    /* 0x77 */ LumpDef::versioned("CELL_AABB_NODES", &[(0, 32)]),
    /* 0x78 */ LumpDef::raw("OBJ_REFERENCES"),
    /* 0x79 */ LumpDef::versioned("OBJ_REFERENCE_BOUNDS", &[(0, 32)]),
    /* 0x7A */ LumpDef::raw("LIGHTMAP_DATA_RTL_PAGES"),
    /* 0x7B */ LumpDef::raw("LEVEL_INFO"),
    /* 0x7C */ LumpDef::versioned("SHADOW_MESH_OPAQUE_VERTICES", &[(0, 12)]),
    /* 0x7D */ LumpDef::raw("SHADOW_MESH_ALPHA_VERTICES"),
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
    stats: None,
    check: Some(check),
};

pub static TITANFALL2: Branch = Branch {
    id: "titanfall2",
    family: Family::Respawn,
    title: "Respawn rBSP 36/37 (Titanfall 2)",
    games: "Titanfall 2, Titanfall 2 tech test",
    header: HeaderKind::Respawn,
    lumps: &TITANFALL2_LUMPS,
    stats: None,
    check: Some(check),
};

pub static APEX: Branch = Branch {
    id: "apex",
    family: Family::Respawn,
    title: "Respawn rBSP 47-52 (Apex Legends)",
    games: "Apex Legends",
    header: HeaderKind::Respawn,
    lumps: &APEX_LUMPS,
    stats: None,
    check: Some(check),
};

pub static BRANCHES: &[&Branch] = &[&TITANFALL, &TITANFALL2, &APEX];

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

/// Cross-reference checks (facts §1.7): parallel arrays have equal counts, texture-name
/// offsets fall inside the string data, external lumps agree with the directory, and the
/// entity partitions the map names are present beside it.
pub fn check(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let count = |index: usize| -> Option<usize> {
        let size = bsp.record_size(index)?;
        let len = bsp.lump(index).ok()?.len();
        (len % size == 0).then_some(len / size)
    };
    let names = |index: usize| bsp.entry(index).map(|e| e.name).unwrap_or("?");
    for (a, b) in [(LUMP_MESHES, LUMP_MESH_BOUNDS), (LUMP_OBJ_REFERENCES, LUMP_OBJ_REFERENCE_BOUNDS)] {
        if let (Some(na), Some(nb)) = (count(a), count(b)) {
            if na != nb {
                problems.push(Problem::new(names(b), None, format!("{nb} records, but {} has {na}", names(a))));
            }
        }
    }
    // Titanfall / Titanfall 2: the string table holds u32 offsets into the string data.
    if bsp.branch().id != APEX.id {
        if let (Ok(table), Ok(data)) =
            (bsp.records::<zerocopy::little_endian::U32>(LUMP_TEXTURE_DATA_STRING_TABLE), bsp.lump(LUMP_TEXTURE_DATA_STRING_DATA))
        {
            let mut c = crate::check::Checker::new(problems, names(LUMP_TEXTURE_DATA_STRING_TABLE));
            for (i, off) in table.iter().enumerate() {
                c.index(i, "string offset", off.get() as i64, data.len(), "TEXTURE_DATA_STRING_DATA bytes");
            }
        }
    }
    // open_questions.md B5: a `.bsp_lump` may differ in size from the lump it replaces (seen:
    // LIGHTMAP_DATA_REAL_TIME_LIGHTS in mp_looby). The external data is used; say so.
    for e in bsp.lumps() {
        if let LumpOrigin::BspLump(p) = &e.origin {
            if let Some(stored) = directory_length(bsp, e.index) {
                if stored != e.length {
                    let file = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    problems.push(Problem::new(
                        format!("{} ({})", e.index, e.name),
                        None,
                        format!("external {file} holds {} bytes, the .bsp directory says {stored}; the external data is used", e.length),
                    ));
                }
            }
        }
    }
    if bsp.path().is_some() {
        if let Ok(kinds) = partition_kinds(bsp) {
            let found = entity_partition_paths(bsp).unwrap_or_default();
            for k in kinds {
                if !found.iter().any(|(kind, _)| *kind == k) {
                    problems.push(Problem::new(
                        names(LUMP_ENTITY_PARTITIONS),
                        None,
                        format!("partition {k:?} is listed but no {}_{k}.ent lies beside the map", map_stem(bsp).unwrap_or_default()),
                    ));
                }
            }
        }
    }
}

/// The length the `.bsp` directory itself gives for a lump (before any external replacement).
pub fn directory_length(bsp: &Bsp, index: usize) -> Option<u64> {
    if index >= 128 {
        return None;
    }
    let v = crate::bytes::i32_at(bsp.data(), 16 + 16 * index + 4, crate::bytes::Endian::Little)?;
    u64::try_from(v).ok()
}

/// The partition kinds listed in ENTITY_PARTITIONS (facts §1.4): space-separated tokens after
/// the first (`01*`, the entity lump in the `.bsp` itself), e.g. `["env", "spawn"]`.
pub fn partition_kinds(bsp: &Bsp) -> Result<Vec<String>> {
    let raw = bsp.lump(LUMP_ENTITY_PARTITIONS)?;
    let text = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
    Ok(text
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty() && !t.contains(&b'*'))
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .collect())
}

/// The map's file name without `.bsp`, the prefix of its `.ent` files.
fn map_stem(bsp: &Bsp) -> Option<String> {
    let name = bsp.path()?.file_name()?.to_string_lossy().into_owned();
    Some(match name.len().checked_sub(4) {
        Some(n) if name.is_char_boundary(n) && name[n..].eq_ignore_ascii_case(".bsp") => name[..n].to_string(),
        _ => name,
    })
}

/// `(kind, path)` of every `.ent` partition beside the map: those ENTITY_PARTITIONS names, or,
/// when that lump is empty, every `<map>_<kind>.ent` in the map's folder. Empty for maps read
/// from memory.
pub fn entity_partition_paths(bsp: &Bsp) -> Result<Vec<(String, PathBuf)>> {
    let (Some(path), Some(stem)) = (bsp.path(), map_stem(bsp)) else { return Ok(Vec::new()) };
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let kinds = partition_kinds(bsp).unwrap_or_default();
    let mut out = Vec::new();
    if !kinds.is_empty() {
        for k in kinds {
            let p = dir.join(format!("{stem}_{k}.ent"));
            if p.is_file() {
                out.push((k, p));
            }
        }
        return Ok(out);
    }
    let prefix = format!("{stem}_");
    let entries = std::fs::read_dir(dir).map_err(|e| Error::from(e).in_file(dir))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(kind) = name.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".ent")) {
            if !kind.is_empty() && e.path().is_file() {
                out.push((kind.to_string(), e.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Largest `.ent` file read into memory.
const MAX_ENT_FILE: u64 = 256 << 20;

/// One `<map>_<kind>.ent` entity partition file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntPartition {
    /// `env`, `fx`, `script`, `snd`, `spawn`, …
    pub kind: String,
    pub path: PathBuf,
    /// The whole file.
    pub data: Vec<u8>,
}

impl EntPartition {
    /// Read a partition file.
    pub fn read(kind: impl Into<String>, path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        let len = std::fs::metadata(&path).map_err(|e| Error::from(e).in_file(&path))?.len();
        if len > MAX_ENT_FILE {
            return Err(Error::new(ErrorKind::LimitExceeded { what: ".ent file size", requested: len, limit: MAX_ENT_FILE }).in_file(&path));
        }
        let data = std::fs::read(&path).map_err(|e| Error::from(e).in_file(&path))?;
        Ok(EntPartition { kind: kind.into(), path, data })
    }
    /// The header line, e.g. `ENTITIES01` or `ENTITIES02 model_count=3` (facts §1.3).
    pub fn header(&self) -> Result<&[u8]> {
        split_ent_file(&self.data).map(|(h, _)| h).map_err(|e| e.in_file(&self.path))
    }
    /// The entity text after the header line (up to the first NUL).
    pub fn text(&self) -> Result<&[u8]> {
        split_ent_file(&self.data).map(|(_, t)| t).map_err(|e| e.in_file(&self.path))
    }
    /// The parsed entities; error offsets are from the start of the file.
    pub fn entities(&self) -> Result<Entities<'_>> {
        parse_ent_file(&self.data).map_err(|e| e.in_file(&self.path))
    }
}

/// Split a `.ent` file into its header line (without the line end) and its entity text (up to
/// the first NUL). The header must start with `ENTITIES`.
pub fn split_ent_file(data: &[u8]) -> Result<(&[u8], &[u8])> {
    let line_end = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let header = &data[..line_end];
    let header = header.strip_suffix(b"\r").unwrap_or(header);
    if !header.starts_with(b"ENTITIES") {
        let shown: String = header.iter().take(16).map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
        return Err(Error::malformed(format!(".ent file does not start with an ENTITIESnn header line (starts {shown:?})")).at(0));
    }
    let body = data.get(line_end + 1..).unwrap_or(&[]);
    let body = &body[..body.iter().position(|&b| b == 0).unwrap_or(body.len())];
    Ok((header, body))
}

/// Parse a `.ent` file's entities (error offsets from the start of the file).
pub fn parse_ent_file(data: &[u8]) -> Result<Entities<'_>> {
    let (_, body) = split_ent_file(data)?;
    // `body` starts right after the header line.
    let start = data.iter().position(|&b| b == b'\n').map_or(data.len() as u64, |n| n as u64 + 1);
    entities::parse(body).map_err(|e| match e.offset {
        Some(o) => Error { offset: Some(start + o), ..e },
        None => e,
    })
}

/// Every `.ent` partition beside the map, read into memory.
pub fn entity_partitions(bsp: &Bsp) -> Result<Vec<EntPartition>> {
    entity_partition_paths(bsp)?.into_iter().map(|(k, p)| EntPartition::read(k, p)).collect()
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

    #[test]
    fn ent_file_header_and_body() {
        let file = b"ENTITIES01\n{\n\"classname\" \"info_target\"\n}\n\0";
        let (h, body) = split_ent_file(file).unwrap();
        assert_eq!(h, b"ENTITIES01");
        assert!(body.ends_with(b"}\n"));
        let ents = parse_ent_file(file).unwrap();
        assert_eq!(ents.len(), 1);
        assert_eq!(ents.list[0].classname().as_deref(), Some("info_target"));
        // Header only, as fx/snd partitions can be.
        assert!(parse_ent_file(b"ENTITIES02 model_count=0\n\0").unwrap().is_empty());
        assert!(parse_ent_file(b"{\n}\n").is_err());
        assert!(parse_ent_file(b"").is_err());
        // An error inside the text is located from the start of the file.
        let err = parse_ent_file(b"ENTITIES01\n{ \"a").unwrap_err();
        assert_eq!(err.offset, Some(13));
    }
}
