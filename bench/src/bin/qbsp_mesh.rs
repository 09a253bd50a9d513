//! qbsp 0.17's meshing (Quake 1 BSP29/BSP2, GoldSrc, Quake 2): `BspData::parse`, then
//! `mesh_model` for every model (one mesh per texture; positions, normals, texture UVs,
//! triangle indices). Two JSON lines per map:
//! - `qbsp_mesh`: geometry only (`mesh_model(i, None)`); work = triangles;
//! - `qbsp_mesh_lm`: `compute_lightmap_atlas` (per-style packer, default settings) first, then
//!   `mesh_model(i, Some(&uvs))` (lightmap UVs too); a map without lighting is an error there.
//!
//! qbsp writes no file format (no glTF): its output is in-memory meshes, so this is compared
//! with bspkit's `mesh::build` and, for the export targets, with `export` as the nearest work.
use qbsp::mesh::lightmap::{ComputeLightmapSettings, PerStyleLightmapPacker};

fn parse(bytes: &[u8]) -> Result<qbsp::BspData, String> {
    let input = qbsp::BspParseInput { bsp: bytes, lit: None, settings: Default::default() };
    qbsp::BspData::parse(input).map_err(|e| e.to_string())
}

fn geometry(bytes: &[u8]) -> Result<u64, String> {
    let d = parse(bytes)?;
    let mut tris = 0;
    for i in 0..d.models.len() {
        tris += d.mesh_model(i, None).meshes.iter().map(|m| m.indices.len()).sum::<usize>();
    }
    Ok(tris as u64)
}

fn with_lightmaps(bytes: &[u8]) -> Result<u64, String> {
    let d = parse(bytes)?;
    let atlas = d.compute_lightmap_atlas(PerStyleLightmapPacker::new(ComputeLightmapSettings::default())).map_err(|e| e.to_string())?;
    let mut tris = 0;
    for i in 0..d.models.len() {
        tris += d.mesh_model(i, Some(&atlas.uvs)).meshes.iter().map(|m| m.indices.len()).sum::<usize>();
    }
    std::hint::black_box(&atlas.data);
    Ok(tris as u64)
}

fn main() {
    bspkit_bench::main_with("qbsp_mesh", geometry);
    bspkit_bench::main_with("qbsp_mesh_lm", with_lightmaps);
}
