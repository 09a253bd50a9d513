//! A small but complete Quake-family map built in code: one closed box room with a worldspawn
//! and a player start. Every lump is filled and consistent — planes, vertices, edges,
//! surfedges, six inward faces with texinfo and a lightmap each, one embedded texture, a node
//! tree ending in one empty leaf (the rest is the shared solid leaf 0), clip hulls 1 and 2,
//! a PVS row and the world model — so it checks clean and loads in the engines.
//!
//! The same room is written with each record set, for the sample map and for tests of the
//! branches that have no real map in the corpus (2PSB, Hexen II, Blue Shift).

use zerocopy::byteorder::{F32, I32};
use zerocopy::IntoBytes;

use super::lumps::*;
use super::records::*;
use crate::branch::{Branch, Family};
use crate::build::builder::BspBuilder;
use crate::lumps::miptex;

/// Interior of the room (x, y, z).
const MINS: [f32; 3] = [-128.0, -128.0, -64.0];
const MAXS: [f32; 3] = [128.0, 128.0, 64.0];
/// Clip hull sizes 1 and 2 (player, large monster) as each game's compiler grows brushes by
/// them: Quake's qbsp, Hexen II (ericw-tools' Hexen II game definition), GoldSrc (standing
/// player, large).
fn hulls(branch: &Branch) -> [([f32; 3], [f32; 3]); 2] {
    match (branch.family, branch.id) {
        (Family::GoldSrc, _) => [([-16.0, -16.0, -36.0], [16.0, 16.0, 36.0]), ([-32.0, -32.0, -32.0], [32.0, 32.0, 32.0])],
        (_, "hexen2") => [([-16.0, -16.0, -32.0], [16.0, 16.0, 24.0]), ([-24.0, -24.0, -20.0], [24.0, 24.0, 20.0])],
        _ => [([-16.0, -16.0, -24.0], [16.0, 16.0, 32.0]), ([-32.0, -32.0, -24.0], [32.0, 32.0, 64.0])],
    }
}
const TEXTURE: &str = "bspkit_grey";

/// The clip brush of [`box_room_with_clip`]: a box 64 wide and 32 high standing on the floor
/// (low enough that every game's player fits above it, so hull 1 tells its top).
pub const CLIP_BOX: ([f32; 3], [f32; 3]) = ([-32.0, -32.0, -64.0], [32.0, 32.0, -32.0]);

/// The box room written for `branch` (any Quake 1 or GoldSrc branch).
pub fn box_room(branch: &'static Branch) -> Vec<u8> {
    with_record_set!(branch, build(branch, false))
}

/// The box room with one clip brush, [`CLIP_BOX`]: in clip hulls 1 and 2 only (grown by each
/// hull as the compilers grow brushes), not in hull 0, so nothing draws it.
pub fn box_room_with_clip(branch: &'static Branch) -> Vec<u8> {
    with_record_set!(branch, build(branch, true))
}

fn plane(axis: usize, dist: f32) -> Plane {
    let mut normal = [F32::new(0.0); 3];
    normal[axis] = F32::new(1.0);
    Plane { normal, dist: F32::new(dist), kind: I32::new(axis as i32) }
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn build<L: Layout>(branch: &'static Branch, clip: bool) -> Vec<u8> {
    let goldsrc = branch.family == Family::GoldSrc;
    // Walls in the order x-min, x-max, y-min, y-max, z-min, z-max: wall k lies on axis k / 2,
    // at the minimum (k even, facing +axis into the room) or the maximum (k odd, facing −axis).
    let wall = |k: usize| (k / 2, k % 2 == 1);

    // Planes 0..6 hold the walls, 6..18 the walls of the two clip hulls (moved in by the hull size).
    let mut planes: Vec<Plane> = (0..6).map(|k| plane(wall(k).0, if wall(k).1 { MAXS[k / 2] } else { MINS[k / 2] })).collect();
    for (hmins, hmaxs) in hulls(branch) {
        for k in 0..6 {
            let (a, max) = wall(k);
            planes.push(plane(a, if max { MAXS[a] - hmaxs[a] } else { MINS[a] - hmins[a] }));
        }
    }
    // Planes 18..30: the clip box grown by each hull (a point is solid when the player box
    // there meets the brush: the brush grown by the mirrored player box).
    if clip {
        for (hmins, hmaxs) in hulls(branch) {
            for k in 0..6 {
                let (a, max) = wall(k);
                planes.push(plane(a, if max { CLIP_BOX.1[a] - hmins[a] } else { CLIP_BOX.0[a] - hmaxs[a] }));
            }
        }
    }

    // Corner c has bit a set when it lies at the maximum of axis a.
    let corner = |c: usize| -> [f32; 3] { std::array::from_fn(|a| if c >> a & 1 == 1 { MAXS[a] } else { MINS[a] }) };
    let vertices: Vec<Vertex> = (0..8).map(|c| Vertex { point: f3(corner(c)) }).collect();

    // Texture axes per wall axis: s runs along the wall, t downwards (or along −y on floors).
    let tex_axes = |a: usize| -> ([f32; 3], [f32; 3]) {
        match a {
            0 => ([0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
            1 => ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
            _ => ([1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        }
    };
    let texinfo: Vec<TexInfo> = (0..3)
        .map(|a| {
            let (s, t) = tex_axes(a);
            let v4 = |v: [f32; 3]| [F32::new(v[0]), F32::new(v[1]), F32::new(v[2]), F32::new(0.0)];
            TexInfo { vecs: [v4(s), v4(t)], miptex: I32::new(0), flags: I32::new(0) }
        })
        .collect();

    // Faces: the wall's four corners wound clockwise seen from inside the room (Quake's order:
    // (p1 − p0) × (p2 − p0) points against the face normal). Edge 0 is the unused edge.
    let mut edges: Vec<(u32, u32)> = vec![(0, 0)];
    let mut surfedges: Vec<i32> = Vec::new();
    let mut faces = Vec::new();
    let mut lighting = Vec::new();
    for k in 0..6 {
        let (a, max) = wall(k);
        let (u, w) = ((a + 1) % 3, (a + 2) % 3);
        let bit = |ub: usize, wb: usize| (usize::from(max) << a) | (ub << u) | (wb << w);
        let mut ring = [bit(0, 0), bit(1, 0), bit(1, 1), bit(0, 1)];
        let mut inward = [0.0f32; 3];
        inward[a] = if max { -1.0 } else { 1.0 };
        let p: Vec<[f32; 3]> = ring.iter().map(|&c| corner(c)).collect();
        let (e1, e2) = (std::array::from_fn::<f32, 3, _>(|i| p[1][i] - p[0][i]), std::array::from_fn::<f32, 3, _>(|i| p[2][i] - p[0][i]));
        let cross = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
        if dot(cross, inward) > 0.0 {
            ring.reverse();
        }
        let first_edge = surfedges.len() as i32;
        for i in 0..4 {
            let (va, vb) = (ring[i] as u32, ring[(i + 1) % 4] as u32);
            let se = match edges.iter().position(|&e| e == (vb, va)) {
                Some(e) => -(e as i32),
                None => match edges.iter().position(|&e| e == (va, vb)) {
                    Some(e) => e as i32,
                    None => {
                        edges.push((va, vb));
                        (edges.len() - 1) as i32
                    }
                },
            };
            surfedges.push(se);
        }
        // Lightmap: one luxel per 16 texels over the face's texture extents (Quake's rule).
        let (s, t) = tex_axes(a);
        let span = |v: [f32; 3]| {
            let vals: Vec<f32> = ring.iter().map(|&c| dot(corner(c), v)).collect();
            let lo = vals.iter().cloned().fold(f32::MAX, f32::min);
            let hi = vals.iter().cloned().fold(f32::MIN, f32::max);
            ((hi / 16.0).ceil() - (lo / 16.0).floor()) as usize + 1
        };
        let luxels = span(s) * span(t);
        let light_ofs = lighting.len() as i32;
        // Brighter towards the ceiling, so the lightmaps differ per wall.
        let level = 96 + 24 * k as u8;
        lighting.resize(lighting.len() + luxels * if goldsrc { 3 } else { 1 }, level);
        faces.push(L::Face::make(k as u32, u32::from(max), first_edge, 4, a as u32, [0, 255, 255, 255], light_ofs));
    }

    // Node k splits on wall k: the room side leads on, the other side is the solid leaf 0; the
    // last node's room side is leaf 1, the only empty leaf. Node k holds face k.
    let next = |k: usize| if k < 5 { Child::Node(k as i64 + 1) } else { Child::Leaf(1) };
    let nodes: Vec<L::Node> = (0..6)
        .map(|k| {
            let children = if wall(k).1 { [Child::Leaf(0), next(k)] } else { [next(k), Child::Leaf(0)] };
            L::Node::make(k as i32, children, MINS, MAXS, k as u32, 1)
        })
        .collect();
    // Clip hulls 1 and 2: the same chain on the moved planes, ending in empty contents.
    // With the clip box, the room's last node leads to a chain on the grown box's planes
    // (clipnodes 12..18 for hull 1, 18..24 for hull 2) ending in solid; outside it is empty.
    let mut clipnodes: Vec<L::ClipNode> = Vec::new();
    for h in 0..2 {
        let room_end = if clip { ClipChild::Node((12 + 6 * h) as i64) } else { ClipChild::Contents(-1) };
        for k in 0..6 {
            let on = if k < 5 { ClipChild::Node((6 * h + k + 1) as i64) } else { room_end };
            let solid = ClipChild::Contents(-2);
            let children = if wall(k).1 { [solid, on] } else { [on, solid] };
            clipnodes.push(L::ClipNode::make((6 + 6 * h + k) as i32, children));
        }
    }
    if clip {
        for h in 0..2 {
            for k in 0..6 {
                let on = if k < 5 { ClipChild::Node((12 + 6 * h + k + 1) as i64) } else { ClipChild::Contents(-2) };
                let empty = ClipChild::Contents(-1);
                let children = if wall(k).1 { [empty, on] } else { [on, empty] };
                clipnodes.push(L::ClipNode::make((18 + 6 * h + k) as i32, children));
            }
        }
    }
    let leaves: Vec<L::Leaf> = vec![L::Leaf::make(-2, -1, [0.0; 3], [0.0; 3], 0, 0), L::Leaf::make(-1, 0, MINS, MAXS, 0, 6)];
    let marks: Vec<L::Mark> = (0..6).map(L::Mark::make).collect();
    let edge_records: Vec<L::Edge> = edges.iter().map(|&(a, b)| L::Edge::make(a, b)).collect();
    let surfedge_records: Vec<SurfEdge> = surfedges.iter().map(|&s| I32::new(s)).collect();
    // Hull roots: 0 → node 0; 1 → clipnode 0; 2 → clipnode 6; the others are unused (0).
    let models = [L::Model::make(MINS, MAXS, &[0, 0, 6, 0], 1, 0, 6)];
    // One PVS row for leaf 1: it sees itself (bit 0 = leaf 1).
    let visibility = vec![0x01u8];

    // A 16×16 two-tone checker in the palette's grey ramp; GoldSrc carries a grey palette.
    let pixels: Vec<u8> = (0..256).map(|i| if ((i % 16) / 4 + (i / 64)) % 2 == 0 { 8 } else { 12 }).collect();
    let palette: Vec<[u8; 3]> = (0..=255u8).map(|i| [i, i, i]).collect();
    let texture = miptex::encode(TEXTURE, 16, 16, &pixels, goldsrc.then_some(&palette[..]));
    let textures = miptex::encode_lump(&[Some(texture)]);

    let entities = b"{\n\"classname\" \"worldspawn\"\n\"message\" \"bspkit sample room\"\n}\n\
{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 -40\"\n\"angle\" \"90\"\n}\n\0";

    let slot = |name: &str| branch.lump_index(name).unwrap_or(0);
    BspBuilder::new(branch)
        .lump(slot("ENTITIES"), entities.to_vec())
        .lump(slot("PLANES"), planes.as_bytes())
        .lump(slot("TEXTURES"), textures)
        .lump(slot("VERTICES"), vertices.as_bytes())
        .lump(slot("VISIBILITY"), visibility)
        .lump(slot("NODES"), nodes.as_bytes())
        .lump(slot("TEXINFO"), texinfo.as_bytes())
        .lump(slot("FACES"), faces.as_bytes())
        .lump(slot("LIGHTING"), lighting)
        .lump(slot("CLIPNODES"), clipnodes.as_bytes())
        .lump(slot("LEAVES"), leaves.as_bytes())
        .lump(slot("MARKSURFACES"), marks.as_bytes())
        .lump(slot("EDGES"), edge_records.as_bytes())
        .lump(slot("SURFEDGES"), surfedge_records.as_bytes())
        .lump(slot("MODELS"), models.as_bytes())
        .build()
}
