//! qbsp 0.17 (Quake 1 BSP29/BSP2, GoldSrc, Quake 2): `BspData::parse` (every lump it models,
//! visibility kept RLE-encoded, textures and BSPX parsed).
fn decode(bytes: &[u8]) -> Result<u64, String> {
    let input = qbsp::BspParseInput { bsp: bytes, lit: None, settings: Default::default() };
    let d = qbsp::BspData::parse(input).map_err(|e| e.to_string())?;
    let n = d.entities.len()
        + d.planes.len()
        + d.textures.len()
        + d.vertices.len()
        + d.nodes.len()
        + d.tex_info.len()
        + d.faces.len()
        + d.clip_nodes.len()
        + d.leaves.len()
        + d.leaf_brushes.len()
        + d.mark_surfaces.len()
        + d.edges.len()
        + d.surface_edges.len()
        + d.models.len()
        + d.brushes.len()
        + d.brush_sides.len();
    Ok(n as u64)
}
fn main() {
    bspkit_bench::main_with("qbsp", decode);
}
