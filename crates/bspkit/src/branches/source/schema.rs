//! Which record struct each Source lump holds (field schemas for bindings, [`crate::schema`]).
//! Layouts differ between branches and lump versions only where the record size differs
//! (VTMB faces, Strata's widened records, version-1 world lights), so the declared record size
//! picks the struct.

use zerocopy::byteorder::{BigEndian, ByteOrder, LittleEndian};

use crate::branch::Branch;
use crate::branches::source::lumps::STRATA;
use crate::branches::source::records::*;
use crate::bytes::Endian;
use crate::schema::types::{of, RecordSchema, Value};

/// The schema of lump `lump` of a Source branch whose records are `size` bytes, in a file of
/// byte order `endian`.
pub fn lump_schema(branch: &Branch, lump: &str, size: usize, endian: Endian) -> Option<&'static RecordSchema> {
    // Strata's 56-byte leaves are not the v19 56-byte leaves.
    let strata = branch.id == STRATA.id;
    // Vindictus's 48-byte nodes, 56-byte leaves, 16-byte brush sides, 232-byte dispinfo and
    // 356-byte overlays have Strata's sizes but their own fields.
    let vin = super::lumps::layout(branch) == super::lumps::Layout::Vindictus;
    match endian {
        Endian::Little => of_order::<LittleEndian>(lump, size, strata, vin),
        Endian::Big => of_order::<BigEndian>(lump, size, strata, vin),
    }
}

fn of_order<O: ByteOrder>(lump: &str, size: usize, strata: bool, vin: bool) -> Option<&'static RecordSchema> {
    let s = match (lump, size) {
        ("NODES", 48) if vin => of::<NodeVin<O>>(),
        ("LEAVES", 56) if vin => of::<LeafVin<O>>(),
        ("BRUSH_SIDES", 16) if vin => of::<BrushSideVin<O>>(),
        ("DISP_INFO", 232) if vin => of::<DispInfoVin<O>>(),
        ("OVERLAYS", 356) if vin => of::<OverlayVin<O>>(),
        // CSO2 2018: sizes only (records.rs), opaque records.
        ("DISP_INFO", 242) => of::<DispInfoCso2>(),
        ("CUBEMAPS", 164) => of::<CubemapCso2>(),
        ("FACES" | "ORIGINAL_FACES" | "FACES_HDR", 76) => of::<FaceVinV2<O>>(),
        ("PLANES", _) => of::<Plane<O>>(),
        ("TEXDATA", _) => of::<TexData<O>>(),
        ("VERTICES" | "VERT_NORMALS" | "PRIM_VERTS" | "CLIP_PORTAL_VERTS", _) => of::<Vertex<O>>(),
        ("NODES", 48) => of::<NodeStrata<O>>(),
        ("NODES", _) => of::<Node<O>>(),
        // Dark Messiah (PC only, little-endian records).
        ("TEXINFO", 96) => of::<TexInfoDm>(),
        ("TEXINFO", _) => of::<TexInfo<O>>(),
        ("FACES" | "ORIGINAL_FACES" | "FACES_HDR", 104) => of::<FaceVtmb<O>>(),
        ("FACES" | "ORIGINAL_FACES" | "FACES_HDR", 72) => of::<FaceStrata<O>>(),
        ("FACES" | "ORIGINAL_FACES" | "FACES_HDR", _) => of::<Face<O>>(),
        ("LIGHTING" | "LIGHTING_HDR", _) => of::<ColorRGBExp32>(),
        ("LIGHTMAP_PAGE_INFOS", _) => of::<LightmapPageInfo>(),
        ("LEAVES", 56) if strata => of::<LeafStrata<O>>(),
        ("LEAVES", 32) => of::<Leaf<O>>(),
        ("LEAVES", _) => of::<LeafV0<O>>(),
        ("FACE_IDS", 4) => of::<Index32<O>>(),
        ("FACE_IDS", _) => of::<FaceId<O>>(),
        ("EDGES", 8) => of::<Edge32<O>>(),
        ("EDGES", _) => of::<Edge<O>>(),
        ("SURFEDGES", _) => of::<Surfedge<O>>(),
        ("MODELS", 52) => of::<ModelDm>(),
        ("MODELS", _) => of::<Model<O>>(),
        ("WORLD_LIGHTS" | "WORLD_LIGHTS_HDR", 100) => of::<WorldLightV1<O>>(),
        ("WORLD_LIGHTS" | "WORLD_LIGHTS_HDR", _) => of::<WorldLight<O>>(),
        ("LEAF_FACES", 4) | ("LEAF_BRUSHES", 4) | ("VERT_NORMAL_INDICES", 4) | ("PRIM_INDICES", 4) => of::<Index32<O>>(),
        ("LEAF_FACES", _) => of::<LeafFace<O>>(),
        ("LEAF_BRUSHES", _) => of::<LeafBrush<O>>(),
        ("VERT_NORMAL_INDICES" | "PRIM_INDICES", _) => of::<Index16<O>>(),
        ("BRUSHES", _) => of::<Brush<O>>(),
        ("BRUSH_SIDES", 16) => of::<BrushSideStrata<O>>(),
        ("BRUSH_SIDES", _) => of::<BrushSide<O>>(),
        ("AREAS", _) => of::<Area<O>>(),
        ("AREA_PORTALS", 20) => of::<AreaPortal32<O>>(),
        ("AREA_PORTALS", _) => of::<AreaPortal<O>>(),
        ("FACE_BRUSH_LIST", _) => of::<FaceBrushList<O>>(),
        ("DISP_INFO", 232) => of::<DispInfoStrata<O>>(),
        ("DISP_INFO", _) => of::<DispInfo<O>>(),
        ("DISP_VERTS", _) => of::<DispVert<O>>(),
        ("DISP_LIGHTMAP_SAMPLE_POSITIONS", _) => of::<Value<u8>>(),
        ("LEAF_WATER_DATA", _) => of::<LeafWaterData<O>>(),
        ("PRIMITIVES", 20) => of::<PrimitiveStrata<O>>(),
        ("PRIMITIVES", _) => of::<Primitive<O>>(),
        ("CUBEMAPS", _) => of::<Cubemap<O>>(),
        ("TEXDATA_STRING_TABLE", _) => of::<StringTableEntry<O>>(),
        ("OVERLAYS", 356) => of::<OverlayStrata<O>>(),
        ("OVERLAYS", _) => of::<Overlay<O>>(),
        ("LEAF_MIN_DIST_TO_WATER", _) => of::<LeafMinDistToWater<O>>(),
        ("FACE_MACRO_TEXTURE_INFO", _) => of::<Index16<O>>(),
        ("DISP_TRIS", _) => of::<DispTri<O>>(),
        ("LEAF_AMBIENT_INDEX" | "LEAF_AMBIENT_INDEX_HDR", 8) => of::<LeafAmbientIndex32<O>>(),
        ("LEAF_AMBIENT_INDEX" | "LEAF_AMBIENT_INDEX_HDR", _) => of::<LeafAmbientIndex<O>>(),
        ("LEAF_AMBIENT_LIGHTING" | "LEAF_AMBIENT_LIGHTING_HDR", 24) => of::<CompressedLightCube>(),
        ("LEAF_AMBIENT_LIGHTING" | "LEAF_AMBIENT_LIGHTING_HDR", _) => of::<LeafAmbientLighting>(),
        ("MAP_FLAGS", _) => of::<MapFlags<O>>(),
        ("OVERLAY_FADES", _) => of::<OverlayFade<O>>(),
        _ => None,
    };
    s.filter(|s| s.size == size)
}
