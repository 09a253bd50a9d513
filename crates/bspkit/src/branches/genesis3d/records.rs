//! Genesis3D record types: the `GFX_*` structs of the engine's `World/GBSPFILE.H` as they are
//! stored in a `GBSP` 15 chunk (little-endian, 32-bit `int32`/`float`, no padding but the
//! header tag's). Sizes are tested against the `Size` fields of the corpus level's chunks.

use zerocopy::byteorder::{F32, I32, U16, U32};
use zerocopy::LittleEndian as LE;

use crate::branches::quake2::records::record;

record! {
    /// `GBSP_Header`, 28 bytes: the tag `"GBSP\0"`, 3 bytes of padding, the version (15) and
    /// the compile time as a Windows `SYSTEMTIME` (year, month, weekday, day, hour, minute,
    /// second, milliseconds).
    pub struct Header { pub tag: [u8; 5], pub pad: [u8; 3], pub version: I32<LE>, pub time: [U16<LE>; 8], }
}
record! {
    /// `GFX_Model`, 80 bytes. `root_node[0]` roots the model in the node tree (a negative
    /// value is leaf `-(n + 1)`), `root_node[1]` in the bevel-node (collision) tree. The last
    /// field is the engine's `geMotion *` slot: the compiler writes whatever the pointer held,
    /// the loader overwrites it (motions are in the MOTIONS chunk).
    pub struct Model {
        pub root_node: [I32<LE>; 2],
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub origin: [F32<LE>; 3],
        pub first_face: I32<LE>,
        pub num_faces: I32<LE>,
        pub first_leaf: I32<LE>,
        pub num_leafs: I32<LE>,
        pub first_cluster: I32<LE>,
        pub num_clusters: I32<LE>,
        pub areas: [I32<LE>; 2],
        pub motion: U32<LE>,
    }
}
record! {
    /// `GFX_Node`, 44 bytes. A negative child is leaf `-(child + 1)` (`Plane.cpp`, `Trace.cpp`).
    pub struct Node {
        pub children: [I32<LE>; 2],
        pub num_faces: I32<LE>,
        pub first_face: I32<LE>,
        pub plane: I32<LE>,
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
    }
}
record! {
    /// `GFX_BNode`, 12 bytes: a bevel (collision) node. A negative child is a contents value
    /// (`BSP_CONTENTS_SOLID` −1, `BSP_CONTENTS_EMPTY` −2).
    pub struct BNode { pub children: [I32<LE>; 2], pub plane: I32<LE>, }
}
record! {
    /// `GFX_Leaf`, 60 bytes. Cluster −1 = no cluster (solid); `first_face` indexes
    /// LEAF_FACES, `first_side` LEAF_SIDES (bevel sides for box collisions).
    pub struct Leaf {
        pub contents: I32<LE>,
        pub mins: [F32<LE>; 3],
        pub maxs: [F32<LE>; 3],
        pub first_face: I32<LE>,
        pub num_faces: I32<LE>,
        pub first_portal: I32<LE>,
        pub num_portals: I32<LE>,
        pub cluster: I32<LE>,
        pub area: I32<LE>,
        pub first_side: I32<LE>,
        pub num_sides: I32<LE>,
    }
}
record! {
    /// `GFX_Cluster`, 4 bytes: offset of the cluster's PVS row in VISDATA, −1 = none.
    pub struct Cluster { pub vis_offset: I32<LE>, }
}
record! {
    /// `GFX_Area`, 8 bytes: a range of AREA_PORTALS (area 0 is reserved).
    pub struct Area { pub num_area_portals: I32<LE>, pub first_area_portal: I32<LE>, }
}
record! {
    /// `GFX_AreaPortal`, 8 bytes: the model (door) that opens the portal and the area behind it.
    pub struct AreaPortal { pub model: I32<LE>, pub area: I32<LE>, }
}
record! {
    /// `GFX_LeafSide`, 8 bytes: a plane and the side (0 = front) facing out of the leaf.
    pub struct LeafSide { pub plane: I32<LE>, pub side: I32<LE>, }
}
record! {
    /// `GFX_Portal`, 16 bytes: the portal's centre and the leaf it looks into.
    pub struct Portal { pub origin: [F32<LE>; 3], pub leaf_to: I32<LE>, }
}
record! {
    /// `GFX_Plane`, 20 bytes; `kind` is `PLANE_X` … `PLANE_ANY` (0–6).
    pub struct Plane { pub normal: [F32<LE>; 3], pub dist: F32<LE>, pub kind: I32<LE>, }
}
record! {
    /// `GFX_Face`, 36 bytes. The polygon is VERT_INDEX[`first_vert` .. + `num_verts`], each an
    /// index into VERTS (RGB_VERTS runs parallel to VERT_INDEX: one colour per corner).
    /// `light_offset` −1 = no lightmap; otherwise a flag byte, then per light type (until 255)
    /// `light_width × light_height` RGB texels (`Light.cpp`).
    pub struct Face {
        pub first_vert: I32<LE>,
        pub num_verts: I32<LE>,
        pub plane: I32<LE>,
        pub plane_side: I32<LE>,
        pub texinfo: I32<LE>,
        pub light_offset: I32<LE>,
        pub light_width: I32<LE>,
        pub light_height: I32<LE>,
        pub light_types: [u8; 4],
    }
}
record! {
    /// A vertex position (`geVec3d`), 12 bytes.
    pub struct Vertex { pub point: [F32<LE>; 3], }
}
record! {
    /// A corner colour (RGB_VERTS, `geVec3d` of 0–255 floats), 12 bytes.
    pub struct RgbVertex { pub rgb: [F32<LE>; 3], }
}
record! {
    /// `GFX_TexInfo`, 64 bytes: texture axes (no offset term: the shift is separate), shift
    /// and draw scale per axis, flags, radiosity values and the TEXTURES index.
    pub struct TexInfo {
        pub vecs: [[F32<LE>; 3]; 2],
        pub shift: [F32<LE>; 2],
        pub draw_scale: [F32<LE>; 2],
        pub flags: I32<LE>,
        pub face_light: F32<LE>,
        pub reflective_scale: F32<LE>,
        pub alpha: F32<LE>,
        pub mip_map_bias: F32<LE>,
        pub texture: I32<LE>,
    }
}
record! {
    /// `GFX_Texture`, 52 bytes: name, flags, size, offset of its 8-bit texels in TEXDATA and
    /// its PALETTES index.
    pub struct Texture {
        pub name: [u8; 32],
        pub flags: U32<LE>,
        pub width: I32<LE>,
        pub height: I32<LE>,
        pub offset: I32<LE>,
        pub palette: I32<LE>,
    }
}
record! {
    /// `GFX_SkyData`, 44 bytes: rotation axis, degrees per minute, the six side TEXTURES
    /// (−1 = none) and the draw scale.
    pub struct SkyData { pub axis: [F32<LE>; 3], pub dpm: F32<LE>, pub textures: [I32<LE>; 6], pub draw_scale: F32<LE>, }
}
record! {
    /// `DRV_Palette`, 768 bytes: 256 RGB entries.
    pub struct Palette { pub colors: [[u8; 3]; 256], }
}

/// An index record (LEAF_FACES, VERT_INDEX).
pub type Index = I32<LE>;

impl Header {
    /// The tag up to its NUL (`"GBSP"`).
    pub fn tag(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.tag)
    }
}

impl Texture {
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        crate::bytes::c_str(&self.name)
    }
}

impl Face {
    /// Number of light types (lightmaps) stored for the face: entries before the first 255.
    pub fn light_type_count(&self) -> usize {
        self.light_types.iter().take_while(|&&t| t != 255).count()
    }
    /// Bytes of the face's lightmap data from `light_offset`: one flag byte, then
    /// `width × height` RGB texels per light type; 0 for an unlit face.
    pub fn light_bytes(&self) -> u64 {
        if self.light_offset.get() < 0 {
            return 0;
        }
        let texels = (self.light_width.get().max(0) as u64).saturating_mul(self.light_height.get().max(0) as u64);
        1 + texels.saturating_mul(3).saturating_mul(self.light_type_count() as u64)
    }
}

impl TexInfo {
    /// Texture coordinates of a point in texels, as the engine sets them up (`Surface.cpp`
    /// dots the point with each axis; the drivers divide by the draw scale and add the shift).
    /// Divide by the texture's width and height for normalised UVs.
    pub fn texel(&self, p: [f32; 3]) -> [f32; 2] {
        let axis = |k: usize| {
            let v = &self.vecs[k];
            let dot = p[0] * v[0].get() + p[1] * v[1].get() + p[2] * v[2].get();
            let scale = self.draw_scale[k].get();
            let scale = if scale == 0.0 { 1.0 } else { scale };
            dot / scale + self.shift[k].get()
        };
        [axis(0), axis(1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::genesis3d::lumps::*;
    use std::mem::size_of;

    /// Sizes of `GBSPFILE.H`'s structs as the corpus level's chunk headers give them.
    #[test]
    fn record_sizes() {
        assert_eq!(size_of::<Header>(), GBSP_HEADER_LEN);
        assert_eq!(size_of::<Model>(), 80);
        assert_eq!(size_of::<Node>(), 44);
        assert_eq!(size_of::<BNode>(), 12);
        assert_eq!(size_of::<Leaf>(), 60);
        assert_eq!(size_of::<Cluster>(), 4);
        assert_eq!(size_of::<Area>(), 8);
        assert_eq!(size_of::<AreaPortal>(), 8);
        assert_eq!(size_of::<LeafSide>(), 8);
        assert_eq!(size_of::<Portal>(), 16);
        assert_eq!(size_of::<Plane>(), 20);
        assert_eq!(size_of::<Face>(), 36);
        assert_eq!(size_of::<Index>(), 4);
        assert_eq!(size_of::<Vertex>(), 12);
        assert_eq!(size_of::<RgbVertex>(), 12);
        assert_eq!(size_of::<TexInfo>(), 64);
        assert_eq!(size_of::<Texture>(), 52);
        assert_eq!(size_of::<SkyData>(), 44);
        assert_eq!(size_of::<Palette>(), 768);
    }

    /// The chunk table declares the sizes of the record types the view reads.
    #[test]
    fn table_matches_types() {
        let s = |i: usize| GENESIS3D.lumps[i].record_size(0);
        assert_eq!(s(CHUNK_HEADER), Some(size_of::<Header>()));
        assert_eq!(s(CHUNK_MODELS), Some(size_of::<Model>()));
        assert_eq!(s(CHUNK_NODES), Some(size_of::<Node>()));
        assert_eq!(s(CHUNK_BNODES), Some(size_of::<BNode>()));
        assert_eq!(s(CHUNK_LEAFS), Some(size_of::<Leaf>()));
        assert_eq!(s(CHUNK_CLUSTERS), Some(size_of::<Cluster>()));
        assert_eq!(s(CHUNK_AREAS), Some(size_of::<Area>()));
        assert_eq!(s(CHUNK_AREA_PORTALS), Some(size_of::<AreaPortal>()));
        assert_eq!(s(CHUNK_LEAF_SIDES), Some(size_of::<LeafSide>()));
        assert_eq!(s(CHUNK_PORTALS), Some(size_of::<Portal>()));
        assert_eq!(s(CHUNK_PLANES), Some(size_of::<Plane>()));
        assert_eq!(s(CHUNK_FACES), Some(size_of::<Face>()));
        assert_eq!(s(CHUNK_LEAF_FACES), Some(size_of::<Index>()));
        assert_eq!(s(CHUNK_VERT_INDEX), Some(size_of::<Index>()));
        assert_eq!(s(CHUNK_VERTS), Some(size_of::<Vertex>()));
        assert_eq!(s(CHUNK_RGB_VERTS), Some(size_of::<RgbVertex>()));
        assert_eq!(s(CHUNK_TEXINFO), Some(size_of::<TexInfo>()));
        assert_eq!(s(CHUNK_TEXTURES), Some(size_of::<Texture>()));
        assert_eq!(s(CHUNK_SKYDATA), Some(size_of::<SkyData>()));
        assert_eq!(s(CHUNK_PALETTES), Some(size_of::<Palette>()));
        assert_eq!(GENESIS3D.lumps.len(), CHUNK_MOTIONS + 1);
    }
}
