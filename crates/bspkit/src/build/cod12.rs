//! A small complete Call of Duty 1 / United Offensive / Call of Duty 2 map, written for tests
//! and fuzz seeds: a 256 × 256 × 128 box room drawn as one triangle soup of six inward walls
//! (24 vertices, 12 triangles), a floor brush with its six axial sides, a two-leaf tree split
//! on the floor plane, one cell with its AABB tree and cull group, one model and two entities.
//! Every cross-reference the family's checks read holds ([`crate::branches::cod::check12`]).

use crate::branch::Branch;
use crate::branches::cod::lumps::{cod1_ids as c1, cod2_ids as c2, is_cod12};
use crate::branches::cod::records::{AabbTree, Brush, BrushSide, CullGroup, DrawVert, Material, Node, Plane};
use crate::branches::cod::records12::{Cell12, DrawVert1, Leaf12, Model12, TriSoup12};
use crate::build::builder::BspBuilder;
use zerocopy::little_endian::{F32, I32, U16, U32};
use zerocopy::{Immutable, IntoBytes};

const MINS: [f32; 3] = [-128.0, -128.0, 0.0];
const MAXS: [f32; 3] = [128.0, 128.0, 128.0];

fn f3(v: [f32; 3]) -> [F32; 3] {
    v.map(F32::new)
}
fn cat<T: IntoBytes + Immutable>(items: &[T]) -> Vec<u8> {
    items.as_bytes().to_vec()
}

/// The room written for `branch` (`cod1_demo`, `cod1` or `cod2`); `None` for another branch.
/// Its soup names no lightmap and the lightmap lump is empty.
pub fn cod12_room(branch: &'static Branch) -> Option<Vec<u8>> {
    room(branch, 0)
}

/// The room with `pages` lightmap pages in lump 1 (each texel [`cod12_texel`]) and its soup on
/// page 0: wall `k` (the order of the walls: −X, +X, −Y, +Y, −Z, +Z) covers cell
/// `(k mod 3, k div 3)` of a 3 × 2 grid over the page, its corners' lightmap coordinates at the
/// cell's corners. Call of Duty 1 stores a page as 512 × 512 RGB; Call of Duty 2 as three
/// 512 × 512 images of B G R A texels (image `k` is layer `k`) and a 1024 × 1024 one-byte sun
/// image (written as zeros).
pub fn cod12_room_lit(branch: &'static Branch, pages: usize) -> Option<Vec<u8>> {
    room(branch, pages.max(1))
}

/// Lightmap texel (`x`, `y`) of `page`, image `layer`, as R G B (a gradient per image, with
/// every channel different, so swapped channels or rows show).
pub fn cod12_texel(page: usize, layer: u8, x: u32, y: u32) -> [u8; 3] {
    let (x, y) = (x as usize, y as usize);
    [(x / 2 + page * 16) as u8, (y / 2 + layer as usize * 40) as u8, ((x + y) / 4 + 3) as u8]
}

/// The lightmap lump of `pages` pages in `branch`'s layout.
fn lightmap_lump(cod2: bool, pages: usize) -> Vec<u8> {
    use crate::branches::cod::lighting::{COD1_LIGHTMAP_BYTES, COD2_IMAGES, COD2_LIGHTMAP_BYTES, PAGE};
    let side = PAGE as usize;
    let mut out = Vec::with_capacity(pages * if cod2 { COD2_LIGHTMAP_BYTES } else { COD1_LIGHTMAP_BYTES });
    for page in 0..pages {
        let start = out.len();
        for layer in 0..if cod2 { COD2_IMAGES } else { 1 } {
            for y in 0..side as u32 {
                for x in 0..side as u32 {
                    let [r, g, b] = cod12_texel(page, layer, x, y);
                    if cod2 {
                        out.extend_from_slice(&[b, g, r, 255]);
                    } else {
                        out.extend_from_slice(&[r, g, b]);
                    }
                }
            }
        }
        if cod2 {
            out.resize(start + COD2_LIGHTMAP_BYTES, 0);
        }
    }
    out
}

fn room(branch: &'static Branch, pages: usize) -> Option<Vec<u8>> {
    if !is_cod12(branch) {
        return None;
    }
    let cod2 = branch.id == "cod2";
    let id = |one: usize, two: usize| if cod2 { two } else { one };
    let mut b = BspBuilder::new(branch);

    let mut name = [0u8; 64];
    name[..11].copy_from_slice(b"bspkit/room");
    // Content flag 1: solid (the engines' CONTENTS_SOLID).
    b = b.lump(id(c1::MATERIALS, c2::MATERIALS), cat(&[Material { name, surface_flags: U32::new(0), content_flags: U32::new(1) }]));

    // Plane 0: the floor, facing up; the node splits on it.
    b = b.lump(id(c1::PLANES, c2::PLANES), cat(&[Plane { normal: f3([0.0, 0.0, 1.0]), dist: F32::new(0.0) }]));
    // The floor brush (16 units under the room): six axial sides, each storing its distance as a
    // float, minimum then maximum per axis (opencod1 `CMod_LoadBrushes`).
    let (bmins, bmaxs) = ([MINS[0], MINS[1], -16.0], [MAXS[0], MAXS[1], 0.0]);
    let sides: Vec<BrushSide> = (0..3)
        .flat_map(|axis| [bmins[axis], bmaxs[axis]])
        .map(|d| BrushSide { plane_or_dist: U32::new(d.to_bits()), material: U32::new(0) })
        .collect();
    b = b.lump(id(c1::BRUSHSIDES, c2::BRUSHSIDES), cat(&sides));
    b = b.lump(id(c1::BRUSHES, c2::BRUSHES), cat(&[Brush { num_sides: U16::new(6), material: U16::new(0) }]));

    // Six inward walls as one soup. Triangles are stored clockwise seen from the front, as the
    // engines' (and Quake 3's) are: the corners of a wall run counter-clockwise around +axis, so
    // a min wall (facing +axis) takes them reversed.
    let corner = |c: usize| -> [f32; 3] { std::array::from_fn(|a| if c >> a & 1 == 1 { MAXS[a] } else { MINS[a] }) };
    let (mut pos, mut normals, mut uvs, mut indices) = (Vec::new(), Vec::new(), Vec::new(), Vec::<U16>::new());
    let mut lm_uvs: Vec<[f32; 2]> = Vec::new();
    for k in 0..6 {
        let (axis, max) = (k / 2, k % 2 == 1);
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let mut n = [0.0f32; 3];
        n[axis] = if max { -1.0 } else { 1.0 };
        let first = pos.len() as u16;
        for (j, (a, c)) in [(0, 0), (1, 0), (1, 1), (0, 1)].into_iter().enumerate() {
            pos.push(corner((max as usize) << axis | a << u | c << v));
            normals.push(n);
            uvs.push([[0.0, 1.0, 1.0, 0.0][j], [0.0, 0.0, 1.0, 1.0][j]]);
            // Zeros without pages, as before lightmaps were written (the room's bytes unchanged).
            let cell = [(k % 3) as f32 / 3.0, (k / 3) as f32 / 2.0];
            let lm = [cell[0] + [0.0, 1.0, 1.0, 0.0][j] / 3.0, cell[1] + [0.0, 0.0, 1.0, 1.0][j] / 2.0];
            lm_uvs.push(if pages > 0 { lm } else { [0.0; 2] });
        }
        let tris: [u16; 6] = if max { [0, 1, 2, 0, 2, 3] } else { [0, 2, 1, 0, 3, 2] };
        indices.extend(tris.map(|t| U16::new(first + t)));
    }
    let verts = if cod2 {
        cat(&(0..pos.len())
            .map(|i| DrawVert {
                xyz: f3(pos[i]),
                normal: f3(normals[i]),
                colour: [255; 4],
                tex_coord: uvs[i].map(F32::new),
                lightmap_coord: lm_uvs[i].map(F32::new),
                tangent: f3([0.0; 3]),
                binormal: f3([0.0; 3]),
            })
            .collect::<Vec<_>>())
    } else {
        cat(&(0..pos.len())
            .map(|i| DrawVert1 {
                xyz: f3(pos[i]),
                tex_coord: uvs[i].map(F32::new),
                lightmap_coord: lm_uvs[i].map(F32::new),
                normal: f3(normals[i]),
                colour: [255; 4],
            })
            .collect::<Vec<_>>())
    };
    let soup = TriSoup12 {
        material: U16::new(0),
        // Page 0, or none (0xFFFF, as the real maps' unlit soups).
        lightmap: U16::new(if pages > 0 { 0 } else { 0xFFFF }),
        first_vertex: U32::new(0),
        vertex_count: U16::new(pos.len() as u16),
        index_count: U16::new(indices.len() as u16),
        first_index: U32::new(0),
    };
    b = b.lump(id(c1::TRIANGLESOUPS, c2::TRIANGLES), cat(&[soup]));
    if pages > 0 {
        b = b.lump(id(c1::LIGHTMAPS, c2::LIGHTBYTES), lightmap_lump(cod2, pages));
    }
    b = b.lump(id(c1::DRAWVERTS, c2::DRAWVERTS), verts);
    b = b.lump(id(c1::DRAWINDICES, c2::DRAWINDICES), cat(&indices));

    // Visibility: one cell with one AABB tree entry and one cull group holding the soup.
    b = b.lump(
        id(c1::AABBTREES, c2::AABBTREES),
        cat(&[AabbTree { first_surface: I32::new(0), surface_count: I32::new(1), child_count: I32::new(0) }]),
    );
    b = b.lump(
        id(c1::CULLGROUPS, c2::CULLGROUPS),
        cat(&[CullGroup { mins: f3(MINS), maxs: f3(MAXS), first_surface: I32::new(0), surface_count: I32::new(1) }]),
    );
    b = b.lump(id(c1::CULLGROUPINDICES, c2::CULLGROUPINDICES), cat(&[I32::new(0)]));
    let zero = I32::new(0);
    let cell = Cell12 {
        mins: f3(MINS),
        maxs: f3(MAXS),
        aabb_tree: zero,
        first_portal: zero,
        portal_count: zero,
        first_cull_group: zero,
        cull_group_count: I32::new(1),
        first_occluder: zero,
        occluder_count: zero,
    };
    b = b.lump(id(c1::CELLS, c2::CELLS), cat(&[cell]));

    // The tree: the floor plane splits the room (leaf 0, cell 0) from the solid below (leaf 1,
    // holding the floor brush, outside every cell).
    let node = Node {
        plane: zero,
        children: [I32::new(-1), I32::new(-2)],
        mins: [-128, -128, -16].map(I32::new),
        maxs: [128, 128, 128].map(I32::new),
    };
    b = b.lump(id(c1::NODES, c2::NODES), cat(&[node]));
    let leaf = |cluster: i32, brushes: i32, cell: i32| Leaf12 {
        cluster: I32::new(cluster),
        area: zero,
        first_collision: zero,
        collision_count: zero,
        first_leaf_brush: zero,
        leaf_brush_count: I32::new(brushes),
        cell: I32::new(cell),
        unused: [zero; 2],
    };
    b = b.lump(id(c1::LEAFS, c2::LEAFS), cat(&[leaf(0, 0, 0), leaf(-1, 1, -1)]));
    b = b.lump(id(c1::LEAFBRUSHES, c2::LEAFBRUSHES), cat(&[zero]));
    let model = Model12 {
        mins: f3(bmins),
        maxs: f3(MAXS),
        first_tri_soup: zero,
        tri_soup_count: I32::new(1),
        first_collision: zero,
        collision_count: zero,
        first_brush: zero,
        brush_count: I32::new(1),
    };
    b = b.lump(id(c1::MODELS, c2::MODELS), cat(&[model]));
    b = b.lump(
        id(c1::ENTITIES, c2::ENTITIES),
        b"{\n\"classname\" \"worldspawn\"\n\"message\" \"bspkit cod room\"\n}\n{\n\"classname\" \"mp_deathmatch_spawn\"\n\"origin\" \"0 0 24\"\n}\n\0"
            .to_vec(),
    );
    Some(b.build())
}
