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
const TEXTURE_WATER: &str = "bspkit_water";
const TEXTURE_SKY: &str = "bspkit";

/// The clip brush of [`box_room_with_clip`]: a box 64 wide and 32 high standing on the floor
/// (low enough that every game's player fits above it, so hull 1 tells its top).
pub const CLIP_BOX: ([f32; 3], [f32; 3]) = ([-32.0, -32.0, -64.0], [32.0, 32.0, -32.0]);

/// The box room written for `branch` (any Quake 1 or GoldSrc branch).
pub fn box_room(branch: &'static Branch) -> Vec<u8> {
    with_record_set!(branch, build(branch, false, None))
}

/// The box room with one clip brush, [`CLIP_BOX`]: in clip hulls 1 and 2 only (grown by each
/// hull as the compilers grow brushes), not in hull 0, so nothing draws it.
pub fn box_room_with_clip(branch: &'static Branch) -> Vec<u8> {
    with_record_set!(branch, build(branch, true, None))
}

/// Height of the pool's surface and of the sky's underside in [`box_room_with_water_and_sky`].
pub const WATER_Z: f32 = -16.0;
pub const SKY_Z: f32 = 40.0;

/// The box room with its lower part water (below [`WATER_Z`], a leaf of water contents whose
/// surface is drawn from both sides) and its upper part sky (above [`SKY_Z`], a sky leaf drawn
/// from below). `named`: the textures are `bspkit_grey`, `*bspkit_water` and `sky_bspkit`;
/// otherwise the texture lump has every miptex offset −1 (stripped, as some released maps
/// are), so the map holds no texture name. The clip hulls are the plain room's (liquids are
/// empty there; the sky is left out of them).
pub fn box_room_with_water_and_sky(branch: &'static Branch, named: bool) -> Vec<u8> {
    with_record_set!(branch, build(branch, false, Some(named)))
}

/// Add the surfedges of the polygon through `ring` (vertex indices), sharing edges.
fn ring_edges(edges: &mut Vec<(u32, u32)>, surfedges: &mut Vec<i32>, ring: &[usize]) {
    for i in 0..ring.len() {
        let (va, vb) = (ring[i] as u32, ring[(i + 1) % ring.len()] as u32);
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
}

fn plane(axis: usize, dist: f32) -> Plane {
    let mut normal = [F32::new(0.0); 3];
    normal[axis] = F32::new(1.0);
    Plane { normal, dist: F32::new(dist), kind: I32::new(axis as i32) }
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn build<L: Layout>(branch: &'static Branch, clip: bool, pools: Option<bool>) -> Vec<u8> {
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
    let mut vertices: Vec<Vertex> = (0..8).map(|c| Vertex { point: f3(corner(c)) }).collect();

    // Texture axes per wall axis: s runs along the wall, t downwards (or along −y on floors).
    let tex_axes = |a: usize| -> ([f32; 3], [f32; 3]) {
        match a {
            0 => ([0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
            1 => ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
            _ => ([1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        }
    };
    let v4 = |v: [f32; 3]| [F32::new(v[0]), F32::new(v[1]), F32::new(v[2]), F32::new(0.0)];
    let mut texinfo: Vec<TexInfo> = (0..3)
        .map(|a| {
            let (s, t) = tex_axes(a);
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
        ring_edges(&mut edges, &mut surfedges, &ring);
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

    // The pool and the sky: planes z = WATER_Z and z = SKY_Z, texinfo 3 (miptex 1) and 4
    // (miptex 2) flagged special (no lightmap, as the compilers write liquids and sky), faces 6
    // and 7 the water's surface facing up and down, face 8 the sky's underside facing down.
    if pools.is_some() {
        let (pw, ps) = (planes.len(), planes.len() + 1);
        planes.push(plane(2, WATER_Z));
        planes.push(plane(2, SKY_Z));
        for mt in [1, 2] {
            let (s, t) = tex_axes(2);
            texinfo.push(TexInfo { vecs: [v4(s), v4(t)], miptex: I32::new(mt), flags: I32::new(1) });
        }
        for (pi, z, facing, ti) in [(pw, WATER_Z, 1.0f32, 3u32), (pw, WATER_Z, -1.0, 3), (ps, SKY_Z, -1.0, 4)] {
            let base = vertices.len();
            let quad = [[MINS[0], MINS[1], z], [MAXS[0], MINS[1], z], [MAXS[0], MAXS[1], z], [MINS[0], MAXS[1], z]];
            vertices.extend(quad.iter().map(|p| Vertex { point: f3(*p) }));
            // Counter-clockwise seen from above: (p1 − p0) × (p2 − p0) is +z; Quake's order
            // points it against the facing normal.
            let mut ring: Vec<usize> = (base..base + 4).collect();
            if facing > 0.0 {
                ring.reverse();
            }
            let first_edge = surfedges.len() as i32;
            ring_edges(&mut edges, &mut surfedges, &ring);
            faces.push(L::Face::make(pi as u32, u32::from(facing < 0.0), first_edge, 4, ti, [255; 4], -1));
        }
    }

    // Node k splits on wall k: the room side leads on, the other side is the solid leaf 0; the
    // last node's room side is leaf 1, the only empty leaf. Node k holds face k. With the pool
    // and sky, node 6 splits the room at the water's surface (leaf 2, water, below; faces 6 and
    // 7) and node 7 at the sky's underside (leaf 3, sky, above; face 8).
    let room = if pools.is_some() { Child::Node(6) } else { Child::Leaf(1) };
    let next = |k: usize| if k < 5 { Child::Node(k as i64 + 1) } else { room };
    let mut nodes: Vec<L::Node> = (0..6)
        .map(|k| {
            let children = if wall(k).1 { [Child::Leaf(0), next(k)] } else { [next(k), Child::Leaf(0)] };
            L::Node::make(k as i32, children, MINS, MAXS, k as u32, 1)
        })
        .collect();
    if pools.is_some() {
        let (pw, ps) = (planes.len() as i32 - 2, planes.len() as i32 - 1);
        nodes.push(L::Node::make(pw, [Child::Node(7), Child::Leaf(2)], MINS, MAXS, 6, 2));
        nodes.push(L::Node::make(ps, [Child::Leaf(3), Child::Leaf(1)], [MINS[0], MINS[1], WATER_Z], MAXS, 8, 1));
    }
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
    let mut leaves: Vec<L::Leaf> = vec![L::Leaf::make(-2, -1, [0.0; 3], [0.0; 3], 0, 0), L::Leaf::make(-1, 0, MINS, MAXS, 0, 6)];
    let mut marks: Vec<L::Mark> = (0..6).map(L::Mark::make).collect();
    // With the pool and sky: leaf 1 the air between (walls, both water faces, the sky face),
    // leaf 2 water (walls, both water faces), leaf 3 sky (walls, the sky face); each sees all.
    if pools.is_some() {
        marks = (0..9).map(L::Mark::make).collect();
        leaves[1] = L::Leaf::make(-1, 0, [MINS[0], MINS[1], WATER_Z], [MAXS[0], MAXS[1], SKY_Z], 0, 9);
        leaves.push(L::Leaf::make(-3, 0, MINS, [MAXS[0], MAXS[1], WATER_Z], 0, 8));
        leaves.push(L::Leaf::make(-6, 0, [MINS[0], MINS[1], SKY_Z], MAXS, 0, 9));
    }
    let edge_records: Vec<L::Edge> = edges.iter().map(|&(a, b)| L::Edge::make(a, b)).collect();
    let surfedge_records: Vec<SurfEdge> = surfedges.iter().map(|&s| I32::new(s)).collect();
    // Hull roots: 0 → node 0; 1 → clipnode 0; 2 → clipnode 6; the others are unused (0).
    let leaf_count = leaves.len() as i32 - 1;
    let models = [L::Model::make(MINS, MAXS, &[0, 0, 6, 0], leaf_count, 0, faces.len() as i32)];
    // One PVS row shared by the non-solid leaves: each sees all (bit 0 = leaf 1).
    let visibility = vec![if pools.is_some() { 0x07u8 } else { 0x01 }];

    // A 16×16 two-tone checker in the palette's grey ramp; GoldSrc carries a grey palette.
    let pixels: Vec<u8> = (0..256).map(|i| if ((i % 16) / 4 + (i / 64)) % 2 == 0 { 8 } else { 12 }).collect();
    let palette: Vec<[u8; 3]> = (0..=255u8).map(|i| [i, i, i]).collect();
    let texture = miptex::encode(TEXTURE, 16, 16, &pixels, goldsrc.then_some(&palette[..]));
    let textures = match pools {
        None => miptex::encode_lump(&[Some(texture)]),
        Some(true) => {
            let water = miptex::encode(&format!("*{TEXTURE_WATER}"), 16, 16, &pixels, goldsrc.then_some(&palette[..]));
            let sky = miptex::encode(&format!("sky_{TEXTURE_SKY}"), 16, 16, &pixels, goldsrc.then_some(&palette[..]));
            miptex::encode_lump(&[Some(texture), Some(water), Some(sky)])
        }
        Some(false) => miptex::encode_lump(&[None, None, None]),
    };

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
