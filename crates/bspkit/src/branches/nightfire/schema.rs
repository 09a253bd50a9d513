//! Which record struct each Nightfire lump holds (field schemas for bindings, [`crate::schema`]).

use super::records::*;
use crate::schema::types::{of, RecordSchema, Value};
use zerocopy::little_endian::U32;

/// The schema of Nightfire lump `lump`.
pub fn lump_schema(lump: &str) -> Option<&'static RecordSchema> {
    match lump {
        "PLANES" => of::<Plane>(),
        "TEXTURES" | "MATERIALS" => of::<Name64>(),
        "VERTEXES" | "NORMALS" => of::<Vec3>(),
        "INDICES" | "MARKSURFACES" | "MARKBRUSHES" => of::<Value<U32>>(),
        "NODES" => of::<Node>(),
        "FACES" => of::<Face>(),
        "LEAFS" => of::<Leaf>(),
        "MODELS" => of::<Model>(),
        "BRUSHES" => of::<Brush>(),
        "BRUSHSIDES" => of::<BrushSide>(),
        "TEXMATRIX" => of::<TexMatrix>(),
        _ => None,
    }
}
