//! A decompiled map's brushes as a [`Scene`]: each side polygon (the side's plane clipped by the
//! brush's other planes), fanned into triangles, one material per texture name flagged as the
//! family's drawing code flags it (sky, clip, trigger, tool textures), so the renderer and the
//! exporter can draw a decompile beside the map it came from.

use super::geom::{self, Plane};
use super::mapfile::MapEntity;
use crate::branch::Family;
use crate::error::{Error, ErrorKind, Result};
use crate::mesh::{Material, Model, Scene, Surface, SurfaceFlags, SurfaceKind};

/// Most side polygons turned into triangles (a decompile of the largest corpus map has about
/// 60,000 sides).
pub const MAX_SCENE_SIDES: usize = 4_000_000;

/// `name`'s flags as the family's drawing code flags it
/// ([`crate::branches::ops::FamilyOps::name_flags`]).
fn flags_of(family: Family, name: &str) -> SurfaceFlags {
    crate::branches::any::of(family).name_flags(name)
}

/// The brushes of `entities` (as [`super::mapfile::read_map`] gives them back) as one world
/// model, materials flagged as `family` flags them. Brushes whose planes do not bound a volume
/// add nothing.
pub fn brush_scene(family: Family, entities: &[MapEntity]) -> Result<Scene> {
    let mut model = Model { name: "world".into(), ..Default::default() };
    let mut materials: Vec<Material> = Vec::new();
    let mut by_name: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut scratch = Vec::new();
    let mut sides = 0usize;
    for e in entities {
        for brush in e.brushes() {
            let Some(planes) = brush.iter().map(|s| s.plane()).collect::<Option<Vec<Plane>>>() else { continue };
            sides += planes.len();
            if sides > MAX_SCENE_SIDES {
                return Err(Error::new(ErrorKind::LimitExceeded {
                    what: "brush sides drawn",
                    requested: sides as u64,
                    limit: MAX_SCENE_SIDES as u64,
                }));
            }
            for (i, side) in brush.iter().enumerate() {
                let mut steps = u64::MAX;
                let w = geom::side_polygon(&planes, i, &mut scratch, &mut steps);
                if w.len() < 3 || geom::area(&w) < 1e-3 {
                    continue;
                }
                let material = *by_name.entry(side.texture.clone()).or_insert_with(|| {
                    materials.push(Material { name: side.texture.clone(), flags: flags_of(family, &side.texture), size: None });
                    materials.len() as u32 - 1
                });
                let n = planes[i].normal.map(|c| c as f32);
                let v0 = model.vertices.positions.len() as u32;
                let i0 = model.indices.len() as u32;
                // Counter-clockwise seen from the front (along the outward normal).
                let ccw = geom::dot(geom::cross(geom::sub(w[1], w[0]), geom::sub(w[2], w[0])), planes[i].normal) > 0.0;
                for p in &w {
                    model.vertices.positions.push(p.map(|c| c as f32));
                    model.vertices.normals.push(n);
                    model.vertices.uv0.push([0.0, 0.0]);
                }
                for k in 1..w.len() as u32 - 1 {
                    let (a, b) = if ccw { (k, k + 1) } else { (k + 1, k) };
                    model.indices.extend([v0, v0 + a, v0 + b]);
                }
                model.surfaces.push(Surface {
                    lump: 0,
                    index: model.surfaces.len() as u32,
                    material,
                    flags: SurfaceFlags::NONE,
                    kind: SurfaceKind::Polygon,
                    vertex_kind: None,
                    vertices: v0..model.vertices.positions.len() as u32,
                    indices: i0..model.indices.len() as u32,
                });
            }
        }
    }
    Ok(Scene { models: vec![model], materials, ..Default::default() })
}
