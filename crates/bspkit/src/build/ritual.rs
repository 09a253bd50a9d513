//! A small, complete map of each of Ritual's Quake 3 descendants (F.A.K.K.2, Alice, Elite
//! Force II, Medal of Honor demo / retail / Breakthrough), built in code: a closed box room of six inward planar
//! surfaces and a 3 × 3 Bézier patch on the floor, one solid floor brush, a node splitting the
//! room's leaf from the solid leaf, a lightmap page, a one-cluster PVS, a worldspawn and a player
//! start, and each branch's own lumps filled and consistent (FAKK2: a fog, an entity light and
//! a light definition; Medal of Honor: side equations, a terrain patch, a static model with its
//! vertex colours, a sphere light and, in the demo, a fog). Every lump the branch declares as
//! records is a whole number of records, so the map checks clean, rewrites byte for byte and
//! exports. Layouts: `branches::quake3::records` (FAKK2 SDK / OpenMoHAA `qfiles.h`).

use zerocopy::byteorder::{F32, I16, I32, U16};
use zerocopy::{FromZeros, IntoBytes};

use crate::branch::Branch;
use crate::branches::quake3::lumps::{record_set, RecordSet};
use crate::branches::quake3::records::*;
use crate::build::builder::BspBuilder;

/// Interior of the room (x, y, z).
const MINS: [f32; 3] = [-128.0, -128.0, 0.0];
const MAXS: [f32; 3] = [128.0, 128.0, 128.0];
/// Thickness of the floor brush below the room.
const FLOOR: f32 = 16.0;
const SHADER: &str = "textures/bspkit/grey";

fn f3(v: [f32; 3]) -> [F32<zerocopy::LittleEndian>; 3] {
    v.map(F32::new)
}
fn i3(v: [f32; 3]) -> [I32<zerocopy::LittleEndian>; 3] {
    v.map(|c| I32::new(c as i32))
}
fn cat<T: IntoBytes + zerocopy::Immutable>(items: &[T]) -> Vec<u8> {
    items.as_bytes().to_vec()
}
fn name64(s: &str) -> [u8; 64] {
    let mut n = [0u8; 64];
    n[..s.len()].copy_from_slice(s.as_bytes());
    n
}

/// The room written for `branch`, one of `quake3::lumps::RITUAL`; `None` for another branch.
pub fn ritual_room(branch: &'static Branch) -> Option<Vec<u8>> {
    let set = record_set(branch);
    if !matches!(set, RecordSet::Fakk | RecordSet::Ef2 | RecordSet::MohaaOld | RecordSet::Mohaa) {
        return None;
    }
    // Lumps by name; a name the branch's table lacks (FOGS in Medal of Honor 19) is left out.
    let mut lumps: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut put = |name: &str, bytes: Vec<u8>| {
        if let Some(i) = branch.lump_index(name) {
            lumps.push((i, bytes));
        }
    };

    put(
        "ENTITIES",
        b"{\n\"classname\" \"worldspawn\"\n\"message\" \"bspkit ritual room\"\n}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 24\"\n}\n\0"
            .to_vec(),
    );

    // Shader 0, solid (CONTENTS_SOLID 1 in every Quake 3 descendant).
    let q3 = Shader { name: name64(SHADER), surface_flags: I32::new(0), content_flags: I32::new(1) };
    put(
        "SHADERS",
        match set {
            RecordSet::Fakk | RecordSet::Ef2 => cat(&[ShaderFakk { q3, subdivisions: I32::new(4) }]),
            _ => cat(&[ShaderMohaa { q3, subdivisions: I32::new(4), fence_mask_image: [0; 64] }]),
        },
    );

    // Planes in opposite pairs (2k, 2k + 1): the floor brush's six outward planes.
    let bmins = [MINS[0], MINS[1], MINS[2] - FLOOR];
    let bmaxs = [MAXS[0], MAXS[1], MINS[2]];
    let mut planes = Vec::new();
    for axis in 0..3 {
        for max in [false, true] {
            let mut n = [0.0f32; 3];
            n[axis] = if max { 1.0 } else { -1.0 };
            let d = if max { bmaxs[axis] } else { -bmins[axis] };
            planes.push(Plane { normal: f3(n), dist: F32::new(d) });
            planes.push(Plane { normal: f3(n.map(|c| -c)), dist: F32::new(-d) });
        }
    }
    put("PLANES", cat(&planes));
    // Plane 10 is the floor brush's top (+z at the room's floor): the node splits on it.
    let node = Node { plane: I32::new(10), children: [I32::new(-2), I32::new(-1)], mins: i3(bmins), maxs: i3(MAXS) };
    put("NODES", cat(&[node]));

    // Six inward walls (k: axis k / 2, at the maximum when k is odd), then the floor patch.
    let mut verts = Vec::new();
    let mut indices: Vec<I32<zerocopy::LittleEndian>> = Vec::new();
    let mut surfaces = Vec::new();
    let corner = |c: usize| -> [f32; 3] { std::array::from_fn(|a| if c >> a & 1 == 1 { MAXS[a] } else { MINS[a] }) };
    for k in 0..6 {
        let (axis, max) = (k / 2, k % 2 == 1);
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let mut normal = [0.0f32; 3];
        normal[axis] = if max { -1.0 } else { 1.0 };
        // The wall's corners counter-clockwise around +axis, as u/v bits.
        let quad = [(0, 0), (1, 0), (1, 1), (0, 1)].map(|(a, b)| corner((max as usize) << axis | a << u | b << v));
        let first = verts.len();
        for (j, p) in quad.iter().enumerate() {
            let (s, t) = ([0.0, 1.0, 1.0, 0.0][j], [0.0, 0.0, 1.0, 1.0][j]);
            verts.push(DrawVert {
                xyz: f3(*p),
                st: [F32::new(s), F32::new(t)],
                lightmap: [F32::new((8.0 * k as f32 + 1.0 + 6.0 * s) / 128.0), F32::new((1.0 + 6.0 * t) / 128.0)],
                normal: f3(normal),
                color: [255; 4],
            });
        }
        // Quake 3 triangles are clockwise seen from the front. The corners run counter-clockwise
        // around +axis: a min wall faces +axis, so its triangles take them in reverse; a max wall
        // faces −axis, where that order is already clockwise.
        let tris: [i32; 6] = if max { [0, 1, 2, 0, 2, 3] } else { [0, 2, 1, 0, 3, 2] };
        let first_index = indices.len();
        indices.extend(tris.map(I32::new));
        surfaces.push(surface(1, first, 4, first_index, 6, 0, [8 * k as i32, 0], normal, (0, 0)));
    }
    // A flat 3 × 3 patch 8 units above the floor.
    let first = verts.len();
    for row in 0..3 {
        for col in 0..3 {
            let p = [-64.0 + 64.0 * col as f32, -64.0 + 64.0 * row as f32, MINS[2] + 8.0];
            verts.push(DrawVert {
                xyz: f3(p),
                st: [F32::new(col as f32 / 2.0), F32::new(row as f32 / 2.0)],
                lightmap: [F32::new(0.0); 2],
                normal: f3([0.0, 0.0, 1.0]),
                color: [255; 4],
            });
        }
    }
    surfaces.push(surface(2, first, 9, 0, 0, -1, [0, 0], [0.0, 0.0, 1.0], (3, 3)));
    let nsurf = surfaces.len() as i32;
    if set == RecordSet::Ef2 {
        // Elite Force II's own vertex and surface layouts, with the same values.
        let ef2_verts: Vec<DrawVertEf2> = verts
            .iter()
            .map(|v| DrawVertEf2 { xyz: v.xyz, st: v.st, normal: v.normal, color: v.color, lod_extra: F32::new(0.0), lightmap: v.lightmap })
            .collect();
        put("DRAW_VERTICES", cat(&ef2_verts));
        let ef2_surfaces: Vec<SurfaceEf2> = surfaces
            .iter()
            .map(|s| SurfaceEf2 {
                shader: s.shader,
                fog: s.fog,
                surface_type: s.surface_type,
                first_vert: s.first_vert,
                num_verts: s.num_verts,
                first_index: s.first_index,
                num_indexes: s.num_indexes,
                lightmap_num: s.lightmap_num,
                lightmap_x: s.lightmap_x,
                lightmap_y: s.lightmap_y,
                lightmap_width: s.lightmap_width,
                lightmap_height: s.lightmap_height,
                lightmap_origin: s.lightmap_origin,
                lightmap_vecs: s.lightmap_vecs,
                patch_width: s.patch_width,
                patch_height: s.patch_height,
                subdivisions: s.subdivisions,
                base_lighting_surface: I32::new(-1),
                inverted: I32::new(0),
                face_flags: [I32::new(0); 4],
            })
            .collect();
        put("FACES", cat(&ef2_surfaces));
    } else {
        put("DRAW_VERTICES", cat(&verts));
        put("FACES", cat(&surfaces));
    }
    put("DRAW_INDICES", cat(&indices));
    // One page, grey.
    put("LIGHTMAPS", vec![128u8; 128 * 128 * 3]);

    let leaf0 = Leaf {
        cluster: I32::new(-1),
        area: I32::new(-1),
        mins: i3([0.0; 3]),
        maxs: i3([0.0; 3]),
        first_leaf_surface: I32::new(0),
        num_leaf_surfaces: I32::new(0),
        first_leaf_brush: I32::new(0),
        num_leaf_brushes: I32::new(1),
    };
    let leaf1 = Leaf {
        cluster: I32::new(0),
        area: I32::new(0),
        mins: i3(MINS),
        maxs: i3(MAXS),
        first_leaf_surface: I32::new(0),
        num_leaf_surfaces: I32::new(nsurf),
        first_leaf_brush: I32::new(0),
        num_leaf_brushes: I32::new(0),
    };
    put(
        "LEAVES",
        match set {
            RecordSet::Fakk => cat(&[leaf0, leaf1]),
            RecordSet::Ef2 => cat(&[leaf0, leaf1].map(|l| LeafEf2 {
                cluster: l.cluster,
                area: l.area,
                mins: l.mins,
                maxs: l.maxs,
                num_leaf_surfaces: l.num_leaf_surfaces,
                first_leaf_surface: l.first_leaf_surface,
                first_leaf_brush: l.first_leaf_brush,
                num_leaf_brushes: l.num_leaf_brushes,
            })),
            RecordSet::MohaaOld => cat(&[
                LeafMohaaOld { q3: leaf0, first_terrain_patch: I32::new(0), num_terrain_patches: I32::new(0) },
                LeafMohaaOld { q3: leaf1, first_terrain_patch: I32::new(0), num_terrain_patches: I32::new(1) },
            ]),
            _ => cat(&[
                LeafMohaa {
                    q3: leaf0,
                    first_terrain_patch: I32::new(0),
                    num_terrain_patches: I32::new(0),
                    first_static_model: I32::new(0),
                    num_static_models: I32::new(0),
                },
                LeafMohaa {
                    q3: leaf1,
                    first_terrain_patch: I32::new(0),
                    num_terrain_patches: I32::new(1),
                    first_static_model: I32::new(0),
                    num_static_models: I32::new(1),
                },
            ]),
        },
    );
    put("LEAF_FACES", cat(&(0..nsurf).map(I32::<zerocopy::LittleEndian>::new).collect::<Vec<_>>()));
    put("LEAF_BRUSHES", cat(&[I32::<zerocopy::LittleEndian>::new(0)]));
    put(
        "MODELS",
        cat(&[Model {
            mins: f3(bmins),
            maxs: f3(MAXS),
            first_surface: I32::new(0),
            num_surfaces: I32::new(nsurf),
            first_brush: I32::new(0),
            num_brushes: I32::new(1),
        }]),
    );
    put(
        "BRUSHES",
        match set {
            RecordSet::Ef2 => cat(&[BrushEf2 { num_sides: I32::new(6), first_side: I32::new(0), shader: I32::new(0) }]),
            _ => cat(&[Brush { first_side: I32::new(0), num_sides: I32::new(6), shader: I32::new(0) }]),
        },
    );
    put(
        "BRUSH_SIDES",
        match set {
            RecordSet::Fakk => cat(&(0..6).map(|k| BrushSide { plane: I32::new(2 * k), shader: I32::new(0) }).collect::<Vec<_>>()),
            RecordSet::Ef2 => cat(&(0..6).map(|k| BrushSideEf2 { shader: I32::new(0), plane: I32::new(2 * k) }).collect::<Vec<_>>()),
            // The top side carries side equation 1; the others none (0: the engine reads 0 as
            // no equation, and the retail compiler writes 0 there, never −1).
            _ => cat(&(0..6)
                .map(|k| BrushSideMohaa { plane: I32::new(2 * k), shader: I32::new(0), equation: I32::new(if k == 5 { 1 } else { 0 }) })
                .collect::<Vec<_>>()),
        },
    );
    // A fog volume (the floor brush; no visible side) where the branch has fogs.
    put("FOGS", cat(&[Fog { shader: name64("textures/bspkit/fog"), brush: I32::new(0), visible_side: I32::new(-1) }]));
    // One cluster that sees itself: numClusters 1, clusterBytes 1, row 0b1.
    put("VISIBILITY", [1i32.to_le_bytes(), 1i32.to_le_bytes()].concat().into_iter().chain([1u8]).collect());

    let light = SphereLight {
        origin: f3([0.0, 0.0, 96.0]),
        color: f3([1.0, 1.0, 1.0]),
        intensity: F32::new(300.0),
        leaf: I32::new(1),
        needs_trace: I32::new(0),
        spot_light: I32::new(0),
        spot_dir: f3([0.0, 0.0, -1.0]),
        spot_radius_by_distance: F32::new(0.0),
    };
    let def = LightDef {
        light_intensity: I32::new(300),
        light_angle: I32::new(0),
        lightmap_resolution: I32::new(16),
        two_sided: I32::new(0),
        light_linear: I32::new(0),
        light_color: f3([1.0, 1.0, 1.0]),
        light_falloff: F32::new(0.0),
        backsplash_fraction: F32::new(0.05),
        backsplash_distance: F32::new(23.0),
        light_subdivide: F32::new(120.0),
        autosprite: I32::new(0),
    };
    // Elite Force II keeps these lumps as bytes (no loader reads their layout): left empty.
    if set != RecordSet::Ef2 {
        put("LIGHT_DEFS", cat(&[def]));
        put("ENTITY_LIGHTS", cat(&[light]));
        put("ENTITY_LIGHTS_VIS", vec![1, 0, 0, 0]);
    }
    put("LIGHT_GRID", vec![0u8; 8]);
    put("SPHERE_LIGHTS", cat(&[light]));
    put("SPHERE_LIGHT_VIS", vec![1, 0, 0, 0]);
    put("LIGHT_GRID_PALETTE", vec![64u8; 768]);
    put("LIGHT_GRID_OFFSETS", cat(&[I16::<zerocopy::LittleEndian>::new(0)]));
    put("LIGHT_GRID_DATA", vec![0u8; 4]);
    // Equation 0 is never read (a side's 0 means none), so the compiler writes it as zeros.
    let unused = SideEquation { s: [0.0; 4].map(F32::new), t: [0.0; 4].map(F32::new) };
    put("SIDE_EQUATIONS", cat(&[unused, SideEquation { s: [1.0, 0.0, 0.0, 0.0].map(F32::new), t: [0.0, 1.0, 0.0, 0.0].map(F32::new) }]));
    let mut patch = TerrainPatch::new_zeroed();
    patch.shader = U16::new(0);
    patch.lightmap = I16::new(-1);
    patch.x = -1;
    patch.y = -1;
    put("TERRAIN", cat(&[patch]));
    put("TERRAIN_INDEXES", cat(&[I16::<zerocopy::LittleEndian>::new(0)]));
    let mut model = StaticModel::new_zeroed();
    model.model[..15].copy_from_slice(b"static/box.tik\0");
    model.origin = f3([64.0, 64.0, 0.0]);
    model.scale = F32::new(1.0);
    model.first_vertex_data = I32::new(0);
    model.num_vertex_data = I16::new(4);
    put("STATIC_MODEL_DEFS", cat(&[model]));
    put("STATIC_MODEL_DATA", vec![200u8; 4 * 3]);
    put("STATIC_MODEL_INDEXES", cat(&[I16::<zerocopy::LittleEndian>::new(0)]));
    Some(lumps.into_iter().fold(BspBuilder::new(branch), |b, (i, bytes)| b.lump(i, bytes)).build())
}

/// A Ritual surface (planar 1 or patch 2) with its lightmap rectangle (8 × 8 at `lm`, page `page`).
#[allow(clippy::too_many_arguments)]
fn surface(
    kind: i32,
    first_vert: usize,
    num_verts: i32,
    first_index: usize,
    num_indexes: i32,
    page: i32,
    lm: [i32; 2],
    normal: [f32; 3],
    patch: (i32, i32),
) -> SurfaceRitual {
    let lit = page >= 0;
    SurfaceRitual {
        shader: I32::new(0),
        fog: I32::new(-1),
        surface_type: I32::new(kind),
        first_vert: I32::new(first_vert as i32),
        num_verts: I32::new(num_verts),
        first_index: I32::new(first_index as i32),
        num_indexes: I32::new(num_indexes),
        lightmap_num: I32::new(page),
        lightmap_x: I32::new(lm[0]),
        lightmap_y: I32::new(lm[1]),
        lightmap_width: I32::new(if lit { 8 } else { 0 }),
        lightmap_height: I32::new(if lit { 8 } else { 0 }),
        lightmap_origin: f3([0.0; 3]),
        lightmap_vecs: [f3([0.0; 3]), f3([0.0; 3]), f3(normal)],
        patch_width: I32::new(patch.0),
        patch_height: I32::new(patch.1),
        subdivisions: F32::new(if kind == 2 { 16.0 } else { 0.0 }),
    }
}
