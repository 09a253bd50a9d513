//! Titanfall on Xbox 360 (`titanfall_x360`, `PSBr` 29) from a Titanfall (`rBSP` 29) map, for
//! tests and fuzz seeds. No console map was found to test on, so this builder is where such
//! maps come from: the facts known about the console form (bsp_tool 0.7.0
//! `respawn/titanfall_x360.py`: the PC lump table and record formats read big-endian, the
//! header's words too) applied to a PC map — every header word, every record field wider than
//! a byte and the `sprp` game lump byte-swapped in place, at the same offsets.
//!
//! Lumps with no record layout here (entity text, texture names, the pakfile, physics, lightmap
//! texels) are copied as they are: what the console does to them is not known.

use crate::branches::respawn::lumps::{LUMP_GAME_LUMP, TITANFALL, X360_MAGIC};
use crate::branches::respawn::sprp::{RespawnPropLayout, RespawnStaticProps};
use crate::bsp::Bsp;
use crate::bytes::{u32_at, Endian};
use crate::error::{Error, Result};
use crate::lumps::gamelump::GameLumps;
use crate::lumps::staticprops::MODEL_NAME_LEN;
use crate::schema::{Kind, RecordSchema};

/// Header length: magic, version, revision, 127, 128 × `lump_t` (16 bytes each).
const HEADER_LEN: usize = 16 + 128 * 16;

/// The Xbox 360 form of `bsp`, a Titanfall map whose lumps all lie inside its file.
pub fn titanfall_x360_from(bsp: &Bsp) -> Result<Vec<u8>> {
    if bsp.branch().id != TITANFALL.id {
        return Err(Error::malformed(format!("a titanfall_x360 map is built from a titanfall map, not {}", bsp.branch().id)));
    }
    let mut out = bsp.data().to_vec();
    if out.len() < HEADER_LEN {
        return Err(Error::truncated(HEADER_LEN as u64, out.len() as u64).in_lump("header"));
    }
    out[..4].copy_from_slice(X360_MAGIC);
    out[4..HEADER_LEN].chunks_exact_mut(4).for_each(|w| w.reverse());
    for e in bsp.lumps() {
        if e.length == 0 {
            continue;
        }
        if e.origin != crate::directory::LumpOrigin::File || e.compressed {
            return Err(Error::malformed("lumps must lie uncompressed inside the file (fold .bsp_lump files in first)").in_lump(e.name));
        }
        let (start, end) = (e.offset as usize, (e.offset + e.length) as usize);
        let lump = out.get_mut(start..end).ok_or_else(|| Error::truncated(end as u64, bsp.data().len() as u64).in_lump(e.name))?;
        if e.index == LUMP_GAME_LUMP {
            swap_game_lump(bsp, lump)?;
            continue;
        }
        let Some(schema) = crate::schema::lump_schema(bsp.branch(), e.name, e.version.unwrap_or(0), Endian::Little) else { continue };
        if lump.len() % schema.size != 0 {
            return Err(Error::malformed(format!("{} bytes are not whole {}-byte records", lump.len(), schema.size)).in_lump(e.name));
        }
        swap_records(lump, schema);
    }
    Ok(out)
}

/// Reverse every multi-byte scalar of `records` (whole `schema` records).
fn swap_records(records: &mut [u8], schema: &RecordSchema) {
    for rec in records.chunks_exact_mut(schema.size) {
        for f in schema.fields {
            let field = &mut rec[f.offset..f.offset + f.ty.size()];
            match f.ty.kind {
                Kind::Scalar { scalar, .. } if scalar.size() > 1 => field.chunks_exact_mut(scalar.size()).for_each(|c| c.reverse()),
                Kind::Scalar { .. } => {}
                Kind::Record(inner) => swap_records(field, inner),
            }
        }
    }
}

/// The game lump: its Valve directory (`i32 count; {u32 id; u16 flags, version; u32 offset,
/// length}[count]`) and the `sprp` child (version 12: counts, leaves and props).
fn swap_game_lump(bsp: &Bsp, lump: &mut [u8]) -> Result<()> {
    let gl = GameLumps::of(bsp)?;
    let entries = gl.dir.entries.clone();
    let count = entries.len();
    let dir_end = 4 + 16 * count;
    let dir = lump.get_mut(..dir_end).ok_or_else(|| Error::truncated(dir_end as u64, 0).in_lump("GAME_LUMP"))?;
    dir[..4].reverse();
    for e in dir[4..].chunks_exact_mut(16) {
        for w in [0..4, 4..6, 6..8, 8..12, 12..16] {
            e[w].reverse();
        }
    }
    let sprp = gl.find(b"sprp").map(|e| e.position);
    for e in entries.iter().filter(|e| Some(e.position) == sprp && !e.compressed) {
        let child = lump.get_mut(e.start..e.start + e.stored_len).ok_or_else(|| Error::malformed("sprp child").in_lump("GAME_LUMP"))?;
        // Parse first (little-endian) for the counts, then swap in place.
        let sp = RespawnStaticProps::parse(std::borrow::Cow::Owned(child.to_vec()), e.version, TITANFALL.id)?;
        if sp.layout != RespawnPropLayout::R1 {
            return Err(Error::malformed(format!("sprp version {} is not Titanfall's 12", e.version)).in_lump("GAME_LUMP"));
        }
        let names = u32_at(child, 0, Endian::Little).unwrap_or(0) as usize;
        let mut at = 0;
        child[at..at + 4].reverse();
        at += 4 + names * MODEL_NAME_LEN;
        let leaves = u32_at(child, at, Endian::Little).unwrap_or(0) as usize;
        child[at..at + 4].reverse();
        at += 4;
        child[at..at + 2 * leaves].chunks_exact_mut(2).for_each(|c| c.reverse());
        at += 2 * leaves;
        // Prop count and the two unknown words.
        child[at..at + 12].chunks_exact_mut(4).for_each(|c| c.reverse());
        at += 12;
        let schema = <crate::branches::respawn::records::StaticPropR1 as crate::schema::types::Record>::schema();
        swap_records(&mut child[at..at + sp.count * schema.size], schema);
    }
    Ok(())
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
