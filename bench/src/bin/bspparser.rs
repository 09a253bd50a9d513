//! bspparser 0.10 (Quake 1 BSP29/BSP2): `BspFile::parse` (entities to maps, faces, edges, …).
fn decode(bytes: &[u8]) -> Result<u64, String> {
    let b = bspparser::BspFile::parse(&mut std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let n = b.edge_list.len()
        + b.edges.len()
        + b.entities.iter().map(|e| e.len()).sum::<usize>()
        + b.faces.len()
        + b.lightmaps.len()
        + b.models.len()
        + b.planes.len()
        + b.texture_info.len()
        + b.textures.len()
        + b.vertices.len();
    Ok(n as u64)
}
fn main() {
    bspkit_bench::main_with("bspparser", decode);
}
