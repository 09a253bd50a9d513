//! Which record struct each lump of a Quake 3-family branch holds (field schemas for bindings,
//! [`crate::schema`]).

use crate::branch::Branch;
use crate::branches::quake3::records::*;
use crate::schema::types::{of, FieldType, Record, RecordSchema, Value};

/// The schema of lump `lump` of a Quake 3-family branch.
pub fn lump_schema(branch: &Branch, lump: &str) -> Option<&'static RecordSchema> {
    match lump {
        "ADVERTISEMENTS" => return of::<Advertisement>(),
        "LIGHT_ARRAY" => return of::<Value<LightArrayIndex>>(),
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
