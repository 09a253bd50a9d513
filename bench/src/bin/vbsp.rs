//! vbsp 0.9.1 (Source): `Bsp::read`, then every entity property and every cluster's PVS row.
fn decode(bytes: &[u8]) -> Result<u64, String> {
    let bsp = vbsp::Bsp::read(bytes).map_err(|e| e.to_string())?;
    let mut n = 0u64;
    for e in bsp.entities.iter() {
        n += e.properties().count() as u64;
    }
    n += (bsp.textures_data.len() + bsp.textures_info.len() + bsp.planes.len() + bsp.nodes.len()) as u64;
    n += (bsp.leaves.iter().count() + bsp.leaf_faces.len() + bsp.leaf_brushes.len() + bsp.models.len()) as u64;
    n += (bsp.brushes.len() + bsp.brush_sides.len() + bsp.vertices.len() + bsp.edges.len()) as u64;
    n += (bsp.surface_edges.len() + bsp.faces.len() + bsp.original_faces.len()) as u64;
    n += (bsp.displacements.len() + bsp.displacement_vertices.len() + bsp.displacement_triangles.len()) as u64;
    n += bsp.texture_string_data.len() as u64;
    for c in 0..bsp.vis_data.cluster_count.min(i16::MAX as u32) {
        let row = bsp.vis_data.visible_clusters(c as i16);
        n += (0..row.len()).filter(|&i| row.get(i)).count() as u64;
    }
    Ok(n)
}
fn main() {
    bspkit_bench::main_with("vbsp", decode);
}
