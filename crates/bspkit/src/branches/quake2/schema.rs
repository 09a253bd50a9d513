//! Which record struct each lump of a Quake 2-family branch holds (field schemas for bindings,
//! [`crate::schema`]).

use crate::branch::Branch;
use crate::branches::quake2::records::*;
use crate::schema::types::{of, FieldType, Record, RecordSchema, Value};

/// The schema of lump `lump` of a Quake 2-family branch.
pub fn lump_schema(branch: &Branch, lump: &str) -> Option<&'static RecordSchema> {
    match branch.id {
        "qbism" => of_layout::<Qbism>(lump),
        "sin" => match lump {
            "LIGHT_INFO" => of::<LightValueSin>(),
            _ => of_layout::<Sin>(lump),
        },
        "sof" => match lump {
            "REGION_FACES" => of::<RegionFaceSof>(),
            "LIGHTS" => of::<LightSof>(),
            "REGIONS" => of::<RegionSof>(),
            _ => of_layout::<Sof>(lump),
        },
        "daikatana" => match lump {
            "EXT_SURF_INFO" => of::<ExtSurfInfoDk>(),
            "PLANE_POLYS" => of::<Value<PlanePoly>>(),
            _ => of_layout::<Daikatana>(lump),
        },
        _ => of_layout::<Ibsp>(lump),
    }
}

fn of_layout<L: Layout>(lump: &str) -> Option<&'static RecordSchema>
where
    L::Node: Record,
    L::Face: Record,
    L::Leaf: Record,
    L::LeafIndex: FieldType,
    L::Edge: Record,
    L::BrushSide: Record,
    L::TexInfo: Record,
{
    match lump {
        "PLANES" => of::<Plane>(),
        "VERTICES" => of::<Vertex>(),
        "NODES" => of::<L::Node>(),
        "TEXINFO" => of::<L::TexInfo>(),
        "FACES" => of::<L::Face>(),
        "LEAVES" => of::<L::Leaf>(),
        "LEAF_FACES" | "LEAF_BRUSHES" => of::<Value<L::LeafIndex>>(),
        "EDGES" => of::<L::Edge>(),
        "SURFEDGES" => of::<Value<SurfEdge>>(),
        "MODELS" => of::<Model>(),
        "BRUSHES" => of::<Brush>(),
        "BRUSH_SIDES" => of::<L::BrushSide>(),
        "AREAS" => of::<Area>(),
        "AREA_PORTALS" => of::<AreaPortal>(),
        _ => None,
    }
}
