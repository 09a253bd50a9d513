//! Which record struct each Call of Duty lump holds (field schemas for bindings,
//! [`crate::schema`]): Call of Duty 4's, then Call of Duty 1 / 2's.

use zerocopy::little_endian::{I32, U16};

use crate::branch::Branch;
use crate::branches::cod::lumps::{is_cod12, COD1_LIGHTMAP_SIZE, LIGHTMAP_SIZE};
use crate::branches::cod::records::*;
use crate::branches::cod::records12::*;
use crate::schema::types::{of, RecordSchema, Value};

/// The schema of lump `lump` of a Call of Duty branch.
pub fn lump_schema(branch: &Branch, lump: &str) -> Option<&'static RecordSchema> {
    if is_cod12(branch) {
        return cod12_schema(branch.id == "cod2", lump);
    }
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

/// The schema of a Call of Duty 1 / United Offensive (`cod2` false) or Call of Duty 2 lump.
fn cod12_schema(cod2: bool, lump: &str) -> Option<&'static RecordSchema> {
    match lump {
        "MATERIALS" => of::<Material>(),
        "PLANES" => of::<Plane>(),
        "BRUSHSIDES" => of::<BrushSide>(),
        "BRUSHES" => of::<Brush>(),
        "TRIANGLESOUPS" | "TRIANGLES" => of::<TriSoup12>(),
        "DRAWVERTS" if cod2 => of::<DrawVert>(),
        "DRAWVERTS" => of::<DrawVert1>(),
        "DRAWINDICES" | "OCCLUDERINDICES" | "LIGHTINDICES" | "COLLISIONINDICES" | "SHADOWINDICES" => of::<Value<U16>>(),
        "CULLGROUPS" => of::<CullGroup>(),
        "CULLGROUPINDICES" | "LEAFBRUSHES" | "LEAFSURFACES" | "OCCLUDERPLANES" => of::<Value<I32>>(),
        "PORTALVERTS" | "SHADOWVERTS" => of::<Vec3>(),
        "COLLISIONVERTS" if cod2 => of::<CollisionVert2>(),
        "COLLISIONVERTS" => of::<Vec3>(),
        "OCCLUDERS" => of::<Occluder12>(),
        "OCCLUDEREDGES" => of::<OccluderEdge12>(),
        "AABBTREES" => of::<AabbTree>(),
        "CELLS" => of::<Cell12>(),
        "PORTALS" => of::<Portal>(),
        "NODES" => of::<Node>(),
        "LEAFS" => of::<Leaf12>(),
        "COLLISIONSURFACES" => of::<CollisionSurface1>(),
        "MODELS" => of::<Model12>(),
        "LIGHTS" => of::<Light1>(),
        "LIGHTMAPS" => of::<Value<[u8; COD1_LIGHTMAP_SIZE]>>(),
        "LIGHTGRIDENTRIES" => of::<LightGridEntry2>(),
        "SHADOWCLUSTERS" | "SHADOWSOURCES" => of::<ShadowRun2>(),
        "SHADOWAABBTREES" => of::<ShadowAabb2>(),
        "COLLISIONEDGES" => of::<CollisionEdge2>(),
        "COLLISIONTRIS" => of::<CollisionTri2>(),
        "COLLISIONBORDERS" => of::<CollisionBorder>(),
        "COLLISIONPARTITIONS" => of::<CollisionPartition>(),
        "COLLISIONAABBS" => of::<CollisionAabb2>(),
        _ => None,
    }
}
