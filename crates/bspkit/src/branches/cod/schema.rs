//! Which record struct each Call of Duty 4 lump holds (field schemas for bindings,
//! [`crate::schema`]).

use zerocopy::little_endian::{I32, U16};

use crate::branches::cod::lumps::LIGHTMAP_SIZE;
use crate::branches::cod::records::*;
use crate::schema::types::{of, RecordSchema, Value};

/// The schema of Call of Duty 4 lump `lump`.
pub fn lump_schema(lump: &str) -> Option<&'static RecordSchema> {
    match lump {
        "MATERIALS" => of::<Material>(),
        "LIGHTGRIDENTRIES" => of::<LightGridEntry>(),
        "LIGHTGRIDCOLORS" => of::<LightGridColors>(),
        "PLANES" => of::<Plane>(),
        "BRUSHSIDES" => of::<BrushSide>(),
        "BRUSHSIDEEDGECOUNTS" | "BRUSHEDGES" | "COLLISIONEDGEWALKABLE" | "VERTEX_LAYER_DATA" | "LIGHTREGIONS" => of::<Value<u8>>(),
        "BRUSHES" => of::<Brush>(),
        "TRIANGLES" | "UNLAYERED_TRIANGLES" => of::<TriangleSoup>(),
        "DRAWVERTS" | "UNLAYERED_DRAWVERTS" => of::<DrawVert>(),
        "DRAWINDICES" | "UNLAYERED_DRAWINDICES" => of::<Value<U16>>(),
        "CULLGROUPS" | "UNLAYERED_CULLGROUPS" => of::<CullGroup>(),
        "CULLGROUPINDICES" | "LEAFBRUSHES" | "LEAFSURFACES" => of::<Value<I32>>(),
        "PORTALVERTS" | "COLLISIONVERTS" => of::<Vec3>(),
        "AABBTREES" | "UNLAYERED_AABBTREES" => of::<AabbTree>(),
        "CELLS" => of::<Cell>(),
        "PORTALS" => of::<Portal>(),
        "NODES" => of::<Node>(),
        "LEAFS" => of::<Leaf>(),
        "COLLISIONTRIS" => of::<CollisionTri>(),
        "COLLISIONBORDERS" => of::<CollisionBorder>(),
        "COLLISIONPARTITIONS" => of::<CollisionPartition>(),
        "COLLISIONAABBS" => of::<CollisionAabb>(),
        "MODELS" => of::<Model>(),
        "REFLECTION_PROBES" => of::<ReflectionProbe>(),
        "PRIMARY_LIGHTS" => of::<PrimaryLight>(),
        "LIGHTREGION_HULLS" => of::<LightRegionHull>(),
        "LIGHTREGION_AXES" => of::<LightRegionAxis>(),
        "LIGHTBYTES" => of::<Value<[u8; LIGHTMAP_SIZE]>>(),
        _ => None,
    }
}
