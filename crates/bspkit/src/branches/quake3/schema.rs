//! Which record struct each lump of a Quake 3-family branch holds (field schemas for bindings,
//! [`crate::schema`]).

use crate::branch::Branch;
use crate::branches::quake3::lumps::{record_set, RecordSet};
use crate::branches::quake3::records::*;
use crate::schema::types::{of, FieldType, Record, RecordSchema, Value};

/// The schema of lump `lump` of a Quake 3-family branch.
pub fn lump_schema(branch: &Branch, lump: &str) -> Option<&'static RecordSchema> {
    match lump {
        "ADVERTISEMENTS" => return of::<Advertisement>(),
        "LIGHT_ARRAY" => return of::<Value<LightArrayIndex>>(),
        "SIDE_EQUATIONS" => return of::<SideEquation>(),
        "LIGHT_DEFS" => return of::<LightDef>(),
        "ENTITY_LIGHTS" | "SPHERE_LIGHTS" => return of::<SphereLight>(),
        "TERRAIN" => return of::<TerrainPatch>(),
        "STATIC_MODEL_DEFS" => return of::<StaticModel>(),
        "TERRAIN_INDEXES" | "STATIC_MODEL_INDEXES" | "LIGHT_GRID_OFFSETS" => return of::<Value<RitualIndex>>(),
        "STATIC_MODEL_DATA" => return of::<Value<StaticModelColour>>(),
        _ => {}
    }
    // Ritual: shaders, leaves, surfaces and brush sides of their own; the rest as Quake 3's.
    match (record_set(branch), lump) {
        (RecordSet::Fakk, "SHADERS") => return of::<ShaderFakk>(),
        (RecordSet::MohaaOld | RecordSet::Mohaa, "SHADERS") => return of::<ShaderMohaa>(),
        (RecordSet::MohaaOld, "LEAVES") => return of::<LeafMohaaOld>(),
        (RecordSet::Mohaa, "LEAVES") => return of::<LeafMohaa>(),
        (RecordSet::MohaaOld | RecordSet::Mohaa, "BRUSH_SIDES") => return of::<BrushSideMohaa>(),
        (RecordSet::Fakk | RecordSet::MohaaOld | RecordSet::Mohaa, "FACES") => return of::<SurfaceRitual>(),
        (RecordSet::Ef2, "SHADERS") => return of::<ShaderFakk>(),
        (RecordSet::Ef2, "FACES") => return of::<SurfaceEf2>(),
        (RecordSet::Ef2, "LEAVES") => return of::<LeafEf2>(),
        (RecordSet::Ef2, "BRUSHES") => return of::<BrushEf2>(),
        (RecordSet::Ef2, "BRUSH_SIDES") => return of::<BrushSideEf2>(),
        (RecordSet::Ef2, "DRAW_VERTICES") => return of::<DrawVertEf2>(),
        (RecordSet::Fakk | RecordSet::Ef2 | RecordSet::MohaaOld | RecordSet::Mohaa, _) => return of_layout::<Ibsp>(lump),
        _ => {}
    }
    if Rbsp::BRANCH_IDS.contains(&branch.id) {
        of_layout::<Rbsp>(lump)
    } else if Fbsp::BRANCH_IDS.contains(&branch.id) {
        of_layout::<Fbsp>(lump)
    } else {
        of_layout::<Ibsp>(lump)
    }
}

fn of_layout<L: Layout>(lump: &str) -> Option<&'static RecordSchema>
where
    L::BrushSide: Record,
    L::DrawVert: Record,
    L::Surface: Record,
    L::Lightmap: FieldType,
    L::LightGrid: Record,
{
    match lump {
        "SHADERS" => of::<Shader>(),
        "PLANES" => of::<Plane>(),
        "NODES" => of::<Node>(),
        "LEAVES" => of::<Leaf>(),
        "LEAF_FACES" | "LEAF_BRUSHES" => of::<Value<LeafIndex>>(),
        "MODELS" => of::<Model>(),
        "BRUSHES" => of::<Brush>(),
        "BRUSH_SIDES" => of::<L::BrushSide>(),
        "DRAW_VERTICES" => of::<L::DrawVert>(),
        "DRAW_INDICES" => of::<Value<DrawIndex>>(),
        "FOGS" => of::<Fog>(),
        "FACES" => of::<L::Surface>(),
        "LIGHTMAPS" => of::<Value<L::Lightmap>>(),
        "LIGHT_GRID" => of::<L::LightGrid>(),
        _ => None,
    }
}
