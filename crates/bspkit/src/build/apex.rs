//! Apex Legends (`apex`, rBSP 51) maps with lightmap pages, for tests and fuzz seeds: a lit
//! floor whose vertices' lightmap UVs span page 0, and LIGHTMAP_HEADERS / LIGHTMAP_DATA_SKY as
//! the caller gives them (the layout `branches::respawn::lighting` reads: a header's first byte
//! is the page's texel type; a type-1 page is two RGBA8 planes of `width × height`, one after
//! the other).

use crate::branches::respawn::lumps::*;
use crate::branches::respawn::records::{MaterialSortR5, MeshR5, ModelR5, TextureDataR5, VertexLitBumpR5};
use crate::build::builder::BspBuilder;
use zerocopy::{FromZeros, IntoBytes};

/// One LIGHTMAP_HEADERS record: texel type (first byte), the second byte (8 in season 13's
/// `mp_lobby`, its meaning not known), width and height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApexPage {
    /// Texel type (1: two RGBA8 planes).
    pub kind: u8,
    /// The header's second byte.
    pub second: u8,
    /// Width in texels.
    pub width: u16,
    /// Height in texels.
    pub height: u16,
}

impl ApexPage {
    /// A type-1 page of `width × height` with the second byte `mp_lobby` has.
    pub fn rgba(width: u16, height: u16) -> Self {
        ApexPage { kind: 1, second: 8, width, height }
    }
    /// The record's 8 bytes.
    pub fn bytes(&self) -> [u8; 8] {
        let [w0, w1] = self.width.to_le_bytes();
        let [h0, h1] = self.height.to_le_bytes();
        [self.kind, self.second, 0, 0, w0, w1, h0, h1]
    }
}

/// Texels for `pages` (type 1): both planes of each page in turn, every byte a function of
/// page, plane, texel and channel, so a reader that swaps planes, pages or channels differs.
pub fn apex_sky_pattern(pages: &[ApexPage]) -> Vec<u8> {
    let mut out = Vec::new();
    for (p, page) in pages.iter().enumerate() {
        let texels = page.width as usize * page.height as usize;
        for plane in 0..2usize {
            for t in 0..texels {
                for c in 0..4usize {
                    out.push((p * 97 + plane * 61 + t * 13 + c * 41 + (t * t) % 7) as u8);
                }
            }
        }
    }
    out
}

/// A small Apex map (`rBSP` 51): a worldspawn, one 64 × 64 floor of two triangles over four
/// lit-bump vertices (material `world/dev/grid`, material sort → lightmap page 0) whose
/// lightmap UVs are the page's corners, `pages` as LIGHTMAP_HEADERS and `sky` as
/// LIGHTMAP_DATA_SKY (left out when empty).
pub fn apex_room(pages: &[ApexPage], sky: Vec<u8>) -> Vec<u8> {
    apex_room_with(pages, sky, Vec::new())
}

/// [`apex_room`] with more lumps `(index, bytes)` (LIGHTMAP_DATA_REAL_TIME_LIGHTS, say).
pub fn apex_room_with(pages: &[ApexPage], sky: Vec<u8>, extra: Vec<(usize, Vec<u8>)>) -> Vec<u8> {
    let floats = |v: &[[f32; 3]]| -> Vec<u8> { v.iter().flatten().flat_map(|c| c.to_le_bytes()).collect() };
    let mut world = <ModelR5>::new_zeroed();
    world.maxs = [64.0.into(), 64.0.into(), 0.0.into()];
    world.num_meshes.set(1);
    let mut mesh = <MeshR5>::new_zeroed();
    mesh.num_triangles.set(2);
    mesh.flags.set(0x200); // lit bump
    let sort = <MaterialSortR5>::new_zeroed(); // texture data 0, lightmap page 0
    let mut td = <TextureDataR5>::new_zeroed();
    td.size = [64.into(), 64.into()];
    let mut verts = [<VertexLitBumpR5>::new_zeroed(); 4];
    for (i, v) in verts.iter_mut().enumerate() {
        let (u, w) = ((i & 1) as f32, (i >> 1) as f32);
        v.position_index.set(i as u32);
        v.albedo_uv = [u.into(), w.into()];
        v.negative_one.set(-1);
        v.lightmap_uv = [u.into(), w.into()];
        v.colour = [255; 4];
    }
    let headers: Vec<u8> = pages.iter().flat_map(ApexPage::bytes).collect();
    let mut b = BspBuilder::new(&APEX)
        .version(51)
        .lump(LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(LUMP_VERTICES, floats(&[[0., 0., 0.], [64., 0., 0.], [0., 64., 0.], [64., 64., 0.]]))
        .lump(LUMP_VERTEX_NORMALS, floats(&[[0., 0., 1.]]))
        .lump(LUMP_MODELS, world.as_bytes().to_vec())
        .lump(LUMP_MESHES, mesh.as_bytes().to_vec())
        .lump(LUMP_MESH_INDICES, [0u16, 1, 2, 1, 3, 2].iter().flat_map(|i| i.to_le_bytes()).collect::<Vec<u8>>())
        .lump(LUMP_MATERIAL_SORTS, sort.as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA, td.as_bytes().to_vec())
        .lump(LUMP_SURFACE_NAMES, b"world/dev/grid\0".to_vec())
        .lump(LUMP_VERTEX_LIT_BUMP, verts.as_bytes().to_vec());
    if !headers.is_empty() {
        b = b.lump(LUMP_LIGHTMAP_HEADERS, headers);
    }
    if !sky.is_empty() {
        b = b.lump(LUMP_LIGHTMAP_DATA_SKY, sky);
    }
    for (index, bytes) in extra {
        b = b.lump(index, bytes);
    }
    b.build()
}

/// [`apex_room`] with one 4 × 2 type-1 page of [`apex_sky_pattern`] texels.
pub fn apex_lit_room() -> Vec<u8> {
    let pages = [ApexPage::rgba(4, 2)];
    apex_room(&pages, apex_sky_pattern(&pages))
}
