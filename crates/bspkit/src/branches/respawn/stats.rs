//! The `bsp info` table of a Respawn map. No native info tool exists for rBSP, so the rows are
//! the map's contents under the names Respawn mappers use (MRVN-Radiant, bsp_tool,
//! Legion): meshes, vertices by kind, materials and textures, models, static props, entities
//! per `.ent` partition, lightmap pages, lights, probes, collision, visibility. Each row is a
//! count (records, or what the row says) and the bytes it takes; rows are listed for every
//! lump the map's game has, empty or not.

use super::ent::entity_partitions;
use super::lumps::*;
use super::view::{Apex, Game, Titanfall, Titanfall2, TitanfallX360, View};
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

/// The contents table of a Respawn map.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    let rows = match bsp.branch().id {
        "titanfall" => View::<Titanfall>::new(bsp).map(|v| rows(&v)),
        "titanfall_x360" => View::<TitanfallX360>::new(bsp).map(|v| rows(&v)),
        "titanfall2" => View::<Titanfall2>::new(bsp).map(|v| rows(&v)),
        _ => View::<Apex>::new(bsp).map(|v| rows(&v)),
    };
    rows.unwrap_or_default()
}

fn rows<G: Game>(v: &View<G>) -> Vec<Stat> {
    let bsp = v.bsp();
    let bytes = |index: usize| bsp.lump(index).map(|l| l.len() as u64).unwrap_or(0);
    let rec = |name: &str, index: usize, size: usize| Stat::records(name, bsp, index, bsp.record_size(index).unwrap_or(size));
    let mut out = vec![
        rec("models", LUMP_MODELS, std::mem::size_of::<G::Model>()),
        rec("meshes", LUMP_MESHES, 28),
        rec("mesh indices", LUMP_MESH_INDICES, 2),
        rec("material sorts", LUMP_MATERIAL_SORTS, 12),
        rec("textures", LUMP_TEXTURE_DATA, std::mem::size_of::<G::TextureData>()),
    ];
    if v.is_apex() {
        let names = bsp.lump(LUMP_SURFACE_NAMES).unwrap_or(&[]);
        out.push(Stat::new("surface names", Some(strings(names)), names.len() as u64));
    } else {
        let data = bsp.lump(LUMP_TEXTURE_DATA_STRING_DATA).unwrap_or(&[]);
        out.push(Stat::new("texture names", Some(strings(data)), data.len() as u64 + bytes(LUMP_TEXTURE_DATA_STRING_TABLE)));
    }
    out.extend([
        rec("vertex positions", LUMP_VERTICES, 12),
        rec("vertex normals", LUMP_VERTEX_NORMALS, 12),
        rec("vertices lit flat", LUMP_VERTEX_LIT_FLAT, std::mem::size_of::<G::VertexLitFlat>()),
        rec("vertices lit bump", LUMP_VERTEX_LIT_BUMP, std::mem::size_of::<G::VertexLitBump>()),
        rec("vertices unlit", LUMP_VERTEX_UNLIT, std::mem::size_of::<G::VertexUnlit>()),
        rec("vertices unlit TS", LUMP_VERTEX_UNLIT_TS, std::mem::size_of::<G::VertexUnlitTs>()),
        rec("vertices blinn-phong", LUMP_VERTEX_BLINN_PHONG, std::mem::size_of::<G::VertexBlinnPhong>()),
    ]);
    // Static props and their model dictionary (game lump `sprp`).
    let gl = crate::lumps::gamelump::GameLumps::of(bsp).ok();
    let sprp_bytes = gl.as_ref().and_then(|g| g.find(b"sprp").map(|e| e.stored_len as u64)).unwrap_or(0);
    let props = v.static_props().ok().flatten();
    out.push(Stat::new("static props", props.as_ref().map(|p| p.count as u64), sprp_bytes));
    out.push(Stat::new(
        "prop models",
        props.as_ref().map(|p| p.model_names.len() as u64),
        props.as_ref().map_or(0, |p| 128 * p.model_names.len() as u64),
    ));
    // Entities: the `.bsp`'s own lump, then each `.ent` partition beside the map.
    out.push(Stat::new("entities", bsp.entities().ok().map(|e| e.len() as u64), bytes(LUMP_ENTITIES)));
    for p in entity_partitions(bsp).unwrap_or_default() {
        out.push(Stat::new(format!("entities {}.ent", p.kind), p.entities().ok().map(|e| e.len() as u64), p.data.len() as u64));
    }
    // Lighting.
    out.extend([
        rec("lightmap pages", LUMP_LIGHTMAP_HEADERS, 8),
        Stat::bytes_only("lightmap sky", bsp, LUMP_LIGHTMAP_DATA_SKY),
        Stat::bytes_only("lightmap real-time lights", bsp, LUMP_LIGHTMAP_DATA_REAL_TIME_LIGHTS),
        Stat::new("world lights", v.world_lights().ok().map(|l| l.len() as u64), bytes(LUMP_WORLD_LIGHTS)),
        rec("cubemaps", LUMP_CUBEMAPS, 16),
        Stat::new("light probes", v.light_probes().ok().map(|l| l.len() as u64), bytes(LUMP_LIGHTPROBES)),
        Stat::new("light probe refs", v.lightprobe_references().ok().map(|l| l.len() as u64), bytes(LUMP_LIGHTPROBE_REFERENCES)),
        rec("light probe tree", LUMP_LIGHTPROBE_TREE, 8),
    ]);
    if !v.is_apex() {
        // Titanfall / Titanfall 2 collision: brushes and triangle meshes in a grid.
        out.extend([
            rec("brushes", LUMP_CM_BRUSHES, 32),
            rec("brush sides", LUMP_CM_BRUSH_SIDE_PROPERTIES, 2),
            rec("brush side planes", LUMP_CM_BRUSH_SIDE_PLANE_OFFSETS, 2),
            rec("tricoll meshes", LUMP_TRICOLL_HEADERS, 44),
            rec("tricoll triangles", LUMP_TRICOLL_TRIANGLES, 4),
            rec("collision grid cells", LUMP_CM_GRID_CELLS, 4),
            rec("geo sets", LUMP_CM_GEO_SETS, 8),
            rec("primitives", LUMP_CM_PRIMITIVES, 4),
            rec("planes", LUMP_PLANES, 16),
        ]);
    } else {
        // Apex collision: BVH trees over packed vertices.
        out.extend([
            rec("bvh nodes", LUMP_BVH_NODES, 64),
            rec("bvh leaf data", LUMP_BVH_LEAF_DATA, 4),
            rec("packed vertices", LUMP_PACKED_VERTICES, 6),
            rec("surface properties", LUMP_SURFACE_PROPERTIES, 8),
            rec("contents masks", LUMP_CONTENTS_MASKS, 4),
            rec("water bodies", LUMP_WATER_BODIES, 80),
            rec("planes", LUMP_PLANES, 16),
        ]);
    }
    // Visibility and shadows.
    out.extend([
        rec("cells", LUMP_CELLS, 8),
        rec("portals", LUMP_PORTALS, 12),
        rec("cell aabb nodes", LUMP_CELL_AABB_NODES, 32),
        rec("object references", LUMP_OBJ_REFERENCES, std::mem::size_of::<G::ObjRef>()),
        rec("occlusion mesh vertices", LUMP_OCCLUSION_MESH_VERTICES, 12),
        rec("shadow meshes", LUMP_SHADOW_MESHES, 12),
    ]);
    let pak = bsp.lump(LUMP_PAKFILE).unwrap_or(&[]);
    let entries = crate::lumps::pakfile::Pakfile::parse(pak).ok().map(|p| p.entries.iter().filter(|e| !e.is_dir()).count() as u64);
    out.push(Stat::new("pakfile files", entries, pak.len() as u64));
    out
}

/// Number of NUL-terminated strings in a string block.
fn strings(data: &[u8]) -> u64 {
    data.split(|&b| b == 0).filter(|s| !s.is_empty()).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_blocks_count_names() {
        assert_eq!(strings(b"a\0bc\0\0d\0"), 3);
        assert_eq!(strings(b""), 0);
    }
}
