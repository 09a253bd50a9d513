//! The `bsp` crate 0.1.2 (Quake 3 IBSP 46): `Bsp::read`, then every entity property.
fn decode(bytes: &[u8]) -> Result<u64, String> {
    let b = bsp::Bsp::read(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let mut n = 0u64;
    for e in b.entities.iter() {
        n += e.properties().count() as u64;
    }
    n += (b.textures.len() + b.planes.len() + b.nodes.len() + b.leafs.len() + b.leaf_faces.len()) as u64;
    n += (b.leaf_brushes.len() + b.models.len() + b.brushes.len() + b.brush_sides.len()) as u64;
    n += (b.vertexes.len() + b.mesh_verts.len() + b.effects.len() + b.faces.len()) as u64;
    n += (b.lightmaps.len() + b.lightvols.len() + b.vis_data.vecs.len() as usize) as u64;
    Ok(n)
}
fn main() {
    bspkit_bench::main_with("q3bsp", decode);
}
