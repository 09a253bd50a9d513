//! Genesis3D chunk table: the chunk types of a `GBSP` version 15 file and the branch
//! descriptor. Data only.
//!
//! Facts from the Genesis3D 1.1 engine source (Genesis3D Public License; read, not copied):
//! `World/GBSPFILE.H` (chunk type numbers, record structs), `World/Gbspfile.cpp` (the loader:
//! every chunk is `{i32 Type, i32 Size, i32 Elements}` then `Size × Elements` bytes, until
//! type `0xffff`; each chunk's `Size` must equal the record size) and `Tools/GBSPLib/GBSPFILE.CPP`
//! (the writer, same chunk form, an END chunk of size and count 0).
//!
//! A lump's index is its chunk type, so `bsp lumps` lists chunks in file order with their
//! type numbers (the compiler does not write them in type order).

use crate::branch::{Branch, Family, HeaderKind, LumpDef};

pub const CHUNK_HEADER: usize = 0;
pub const CHUNK_MODELS: usize = 1;
pub const CHUNK_NODES: usize = 2;
pub const CHUNK_BNODES: usize = 3;
pub const CHUNK_LEAFS: usize = 4;
pub const CHUNK_CLUSTERS: usize = 5;
pub const CHUNK_AREAS: usize = 6;
pub const CHUNK_AREA_PORTALS: usize = 7;
pub const CHUNK_LEAF_SIDES: usize = 8;
pub const CHUNK_PORTALS: usize = 9;
pub const CHUNK_PLANES: usize = 10;
pub const CHUNK_FACES: usize = 11;
pub const CHUNK_LEAF_FACES: usize = 12;
pub const CHUNK_VERT_INDEX: usize = 13;
pub const CHUNK_VERTS: usize = 14;
pub const CHUNK_RGB_VERTS: usize = 15;
pub const CHUNK_ENTDATA: usize = 16;
pub const CHUNK_TEXINFO: usize = 17;
pub const CHUNK_TEXTURES: usize = 18;
pub const CHUNK_TEXDATA: usize = 19;
pub const CHUNK_LIGHTDATA: usize = 20;
pub const CHUNK_VISDATA: usize = 21;
pub const CHUNK_SKYDATA: usize = 22;
pub const CHUNK_PALETTES: usize = 23;
pub const CHUNK_MOTIONS: usize = 24;
/// The type of the chunk that ends the file (no data).
pub const CHUNK_END: u32 = 0xffff;

/// Bytes of a chunk header: `{i32 type, i32 size, i32 elements}`.
pub const CHUNK_HEADER_LEN: usize = 12;
/// `GBSP_Header`: `char TAG[5]` ("GBSP\0"), 3 bytes of padding, `i32 Version`, `SYSTEMTIME`.
pub const GBSP_HEADER_LEN: usize = 28;
/// The version the engine accepts (`GBSP_VERSION`).
pub const GBSP_VERSION: u32 = 15;
/// Where the version lies in the file: after the first chunk header and the 8-byte tag.
pub const VERSION_OFFSET: usize = CHUNK_HEADER_LEN + 8;

/// Entries of the uncompressed PVS row of a cluster are bits; a row is this many bytes per
/// eight clusters, as `Vis.cpp` reads it (`VisData[i >> 3] & (1 << (i & 7))`).
pub const fn vis_row_bytes(clusters: usize) -> usize {
    clusters.div_ceil(8)
}

pub static GENESIS3D: Branch = Branch {
    id: "genesis3d",
    family: Family::Genesis3D,
    title: "Genesis3D (GBSP 15 chunks)",
    games: "Genesis3D 1.x engine games and demos (Reality Factory, …)",
    header: HeaderKind::Chunks,
    lumps: &[
        LumpDef::records("HEADER", 28),
        LumpDef::records("MODELS", 80),
        LumpDef::records("NODES", 44),
        LumpDef::records("BNODES", 12),
        LumpDef::records("LEAFS", 60),
        LumpDef::records("CLUSTERS", 4),
        LumpDef::records("AREAS", 8),
        LumpDef::records("AREA_PORTALS", 8),
        LumpDef::records("LEAF_SIDES", 8),
        LumpDef::records("PORTALS", 16),
        LumpDef::records("PLANES", 20),
        LumpDef::records("FACES", 36),
        LumpDef::records("LEAF_FACES", 4),
        LumpDef::records("VERT_INDEX", 4),
        LumpDef::records("VERTS", 12),
        LumpDef::records("RGB_VERTS", 12),
        LumpDef::entities("ENTDATA"),
        LumpDef::records("TEXINFO", 64),
        LumpDef::records("TEXTURES", 52),
        LumpDef::raw("TEXDATA"),
        LumpDef::raw("LIGHTDATA"),
        LumpDef::raw("VISDATA"),
        LumpDef::records("SKYDATA", 44),
        LumpDef::records("PALETTES", 768),
        LumpDef::raw("MOTIONS"),
    ],
};

/// The element size a chunk of this type is written with: the record size, 1 for byte data.
pub fn element_size(chunk_type: usize) -> usize {
    GENESIS3D.lumps.get(chunk_type).and_then(|d| d.record_size(0)).unwrap_or(1)
}
