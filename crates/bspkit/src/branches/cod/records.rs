//! Call of Duty 4 record types (respawn_cod_facts.md §2.2).

use zerocopy::little_endian::{F32, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// A brush (4 bytes, §2.2): its side count (sides follow each other in BRUSHSIDES, brush by
/// brush) and material. Observed: the counts add up to the brushside count on every corpus map.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Brush {
    pub num_sides: U16,
    pub material: U16,
}

/// A brush side (8 bytes, §2.2). The first six sides of a brush are axial and store a float
/// distance in place of the plane index, so only sides 6.. reference PLANES.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct BrushSide {
    /// Plane index (sides 6..) or the distance of an axial plane (sides 0..6), as raw bits.
    pub plane_or_dist: U32,
    pub material: U32,
}

impl BrushSide {
    pub fn distance(&self) -> f32 {
        f32::from_bits(self.plane_or_dist.get())
    }
}

/// A BSP node (36 bytes): plane, two children (negative = leaf `-(c + 1)`), integer bounds.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Node {
    pub plane: I32,
    pub children: [I32; 2],
    pub mins: [I32; 3],
    pub maxs: [I32; 3],
}

/// A triangle soup (24 bytes; layered lump 9 and simple lump 47 share it): a run of vertices
/// and indices drawn with one material.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct TriangleSoup {
    pub material: U16,
    pub lightmap: u8,
    pub reflection_probe: u8,
    pub primary_light: u8,
    pub flags: u8,
    pub unused: [u8; 2],
    pub vertex_layer_data: U32,
    pub first_vertex: U32,
    pub vertex_count: U16,
    pub index_count: U16,
    pub first_index: U32,
}

/// A model (48 bytes): bounds, then surface and brush ranges. Only the brush range (the last
/// two u32) is interpreted here; it was checked against BRUSHES on the corpus.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct Model {
    pub mins: [F32; 3],
    pub maxs: [F32; 3],
    pub surfaces: [U32; 4],
    pub first_brush: U32,
    pub brush_count: U32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::cod::lumps::*;

    #[test]
    fn record_sizes_match_the_table() {
        // respawn_cod_facts.md §2.2: count × size = bytes on all four corpus maps.
        assert_eq!(std::mem::size_of::<Brush>(), 4);
        assert_eq!(std::mem::size_of::<BrushSide>(), 8);
        assert_eq!(std::mem::size_of::<Node>(), 36);
        assert_eq!(std::mem::size_of::<TriangleSoup>(), 24);
        assert_eq!(std::mem::size_of::<Model>(), 48);
        for (id, size) in [(LUMP_BRUSHES, 4), (LUMP_BRUSHSIDES, 8), (LUMP_NODES, 36), (LUMP_TRIANGLES, 24), (LUMP_MODELS, 48)] {
            assert_eq!(COD4.lumps[id].record_size(0), Some(size));
        }
        assert_eq!(COD4.lumps.len(), 55);
        assert_eq!(COD4.lump_index("ENTITIES"), Some(LUMP_ENTITIES));
    }
}
