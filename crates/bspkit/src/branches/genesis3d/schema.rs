//! Which record struct each Genesis3D chunk holds (field schemas for bindings,
//! [`crate::schema`]).

use crate::branches::genesis3d::records::*;
use crate::schema::types::{of, RecordSchema, Value};

/// The schema of Genesis3D chunk `lump`.
pub fn lump_schema(lump: &str) -> Option<&'static RecordSchema> {
    match lump {
        "HEADER" => of::<Header>(),
        "MODELS" => of::<Model>(),
        "NODES" => of::<Node>(),
        "BNODES" => of::<BNode>(),
        "LEAFS" => of::<Leaf>(),
        "CLUSTERS" => of::<Cluster>(),
        "AREAS" => of::<Area>(),
        "AREA_PORTALS" => of::<AreaPortal>(),
        "LEAF_SIDES" => of::<LeafSide>(),
        "PORTALS" => of::<Portal>(),
        "PLANES" => of::<Plane>(),
        "FACES" => of::<Face>(),
        "LEAF_FACES" | "VERT_INDEX" => of::<Value<Index>>(),
        "VERTS" => of::<Vertex>(),
        "RGB_VERTS" => of::<RgbVertex>(),
        "TEXINFO" => of::<TexInfo>(),
        "TEXTURES" => of::<Texture>(),
        "SKYDATA" => of::<SkyData>(),
        "PALETTES" => of::<Palette>(),
        _ => None,
    }
}
