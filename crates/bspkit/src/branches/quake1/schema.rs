//! Which record struct each Quake 1 / GoldSrc lump holds, per record set (field schemas for
//! bindings, [`crate::schema`]).

use crate::branch::Branch;
use crate::branches::quake1::lumps::with_record_set;
use crate::branches::quake1::records::{Layout, Plane, SurfEdge, TexInfo, Vertex};
use crate::schema::types::{of, FieldType, Record, RecordSchema, Value};

/// The schema of lump `lump` of a Quake 1 / GoldSrc branch.
pub fn lump_schema(branch: &Branch, lump: &str) -> Option<&'static RecordSchema> {
    with_record_set!(branch, of_set(lump))
}

fn of_set<L: Layout>(lump: &str) -> Option<&'static RecordSchema>
where
    L::Node: Record,
    L::Face: Record,
    L::ClipNode: Record,
    L::Leaf: Record,
    L::Mark: FieldType,
    L::Edge: Record,
    L::Model: Record,
{
    match lump {
        "PLANES" => of::<Plane>(),
        "VERTICES" => of::<Vertex>(),
        "NODES" => of::<L::Node>(),
        "TEXINFO" => of::<TexInfo>(),
        "FACES" => of::<L::Face>(),
        "CLIPNODES" => of::<L::ClipNode>(),
        "LEAVES" => of::<L::Leaf>(),
        "MARKSURFACES" => of::<Value<L::Mark>>(),
        "EDGES" => of::<L::Edge>(),
        "SURFEDGES" => of::<Value<SurfEdge>>(),
        "MODELS" => of::<L::Model>(),
        _ => None,
    }
}
