//! Titanfall on Xbox 360 (`titanfall_x360`, `PSBr` 29) from a Titanfall (`rBSP` 29) map, for
//! tests and fuzz seeds. No console map was found to test on, so this builder is where such
//! maps come from: the facts known about the console form (bsp_tool 0.7.0
//! `respawn/titanfall_x360.py`: the PC lump table and record formats read big-endian, the
//! header's words too) applied to a PC map by `bsp convert`'s platform change
//! ([`crate::convert::respawn_x360`]: every header word, every record field wider than a byte
//! and the `sprp` game lump byte-swapped in place, at the same offsets; lumps with no record
//! layout copied as they are).

use crate::branches::respawn::lumps::{TITANFALL, TITANFALL_X360};
use crate::branches::respawn::sprp::RespawnPropLayout;
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::error::{Error, Result};

/// The Xbox 360 form of `bsp`, a Titanfall map: what `bsp convert --to titanfall_x360` writes
/// ([`crate::convert::respawn_x360`]; its report is not kept here).
pub fn titanfall_x360_from(bsp: &Bsp) -> Result<Vec<u8>> {
    if bsp.branch().id != TITANFALL.id {
        return Err(Error::malformed(format!("a titanfall_x360 map is built from a titanfall map, not {}", bsp.branch().id)));
    }
    let to = crate::convert::ConvertOptions { to: &TITANFALL_X360, endian: None, lzma: crate::convert::Lzma::Auto, static_props: None };
    Ok(crate::convert::convert(bsp, &to)?.bytes)
}

/// A small Titanfall (`rBSP` 29) map: a worldspawn, one 64 × 64 floor mesh of two triangles
/// over four lit-flat vertices, its material (`dev/grid1`), one 1 × 1 lightmap page and one
/// static prop in a version-12 `sprp` (the layout of `branches::respawn::records`).
pub fn titanfall_room() -> Vec<u8> {
    use crate::branches::respawn::lumps::*;
    use crate::branches::respawn::records::{MaterialSortR1, MeshR1, ModelR1, StaticPropR1, TextureDataR1, VertexLitFlatR1};
    use crate::lumps::gamelump::{self, OffsetBase};
    use zerocopy::{FromZeros, IntoBytes};

    let floats = |v: &[[f32; 3]]| -> Vec<u8> { v.iter().flatten().flat_map(|c| c.to_le_bytes()).collect() };
    let mut world = <ModelR1>::new_zeroed();
    world.maxs = [64.0.into(), 64.0.into(), 0.0.into()];
    world.num_meshes.set(1);
    let mut mesh = <MeshR1>::new_zeroed();
    mesh.num_triangles.set(2);
    mesh.num_vertices.set(4);
    let sort = <MaterialSortR1>::new_zeroed();
    let mut td = <TextureDataR1>::new_zeroed();
    td.size = [64.into(), 64.into()];
    let mut verts = [<VertexLitFlatR1>::new_zeroed(); 4];
    for (i, v) in verts.iter_mut().enumerate() {
        v.position_index.set(i as u32);
        v.albedo_uv = [((i & 1) as f32).into(), ((i >> 1) as f32).into()];
        v.colour = [255; 4];
    }
    let mut prop = <StaticPropR1>::new_zeroed();
    prop.origin = [32.0.into(), 32.0.into(), 0.0.into()];
    prop.model.set(0);
    prop.solid = 6;
    prop.cubemap.set(-1);
    prop.lighting_origin = prop.origin;
    prop.diffuse_modulation = [255; 4];
    let sprp = crate::branches::respawn::sprp::build(RespawnPropLayout::R1, &["models/crate.mdl"], &[], &[prop.as_bytes().to_vec()], None);
    crate::build::builder::BspBuilder::new(&TITANFALL)
        .lump(LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(LUMP_VERTICES, floats(&[[0., 0., 0.], [64., 0., 0.], [0., 64., 0.], [64., 64., 0.]]))
        .lump(LUMP_VERTEX_NORMALS, floats(&[[0., 0., 1.]]))
        .lump(LUMP_MODELS, world.as_bytes().to_vec())
        .lump(LUMP_MESHES, mesh.as_bytes().to_vec())
        .lump(LUMP_MESH_INDICES, [0u16, 1, 2, 1, 3, 2].iter().flat_map(|i| i.to_le_bytes()).collect::<Vec<u8>>())
        .lump(LUMP_MESH_BOUNDS, vec![0u8; 32])
        .lump(LUMP_MATERIAL_SORTS, sort.as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA, td.as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA_STRING_TABLE, 0u32.to_le_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA_STRING_DATA, b"dev/grid1\0".to_vec())
        .lump(LUMP_VERTEX_LIT_FLAT, verts.as_bytes().to_vec())
        .lump(LUMP_LIGHTMAP_HEADERS, [1u32.to_le_bytes(), [1, 0, 1, 0]].concat())
        .lump(LUMP_LIGHTMAP_DATA_SKY, vec![128u8; 8])
        .lump(LUMP_GAME_LUMP, gamelump::build(&[(gamelump::ID_STATIC_PROPS, 0, 12, sprp)], OffsetBase::Relative, 0, Endian::Little))
        .build()
}

/// [`titanfall_room`] in its Xbox 360 form ([`titanfall_x360_from`]).
pub fn titanfall_x360_map() -> Vec<u8> {
    let pc = titanfall_room();
    // The builder's own map always opens and swaps (tested in `titanfall_x360.rs`).
    Bsp::from_bytes(&pc).and_then(|bsp| titanfall_x360_from(&bsp)).unwrap_or_default()
}
