//! A larger Source map made from a corpus one, for `bench/tiled.sh`: the world's faces are
//! copied `N − 1` times, so both exporters meet a map of real size (the corpus's Source maps are
//! small enough that process start dominates a whole `bsp export`). The copies lie on the
//! original: moved, a face's luxels would no longer match its stored lightmap extents, which
//! bsp-to-glb checks, and each copy is then the same work as its original, lighting included.
//! Written to the bench's output folder, never committed.
//!
//!     tile_source MAP COPIES OUT      # COPIES = 0: as many as 16-bit edge indices allow
//!
//! Per copy (source.md §7): VERTICES repeated; EDGES with `k · vertices` added (u16,
//! so the vertex total caps the copies); SURFEDGES with `k · edges` added away from zero (the
//! sign is the edge's direction); the world model's FACES (and FACES_HDR when present) with
//! `k · surfedges` added to `firstedge`, without displacement or primitives (those name
//! records that were not copied). The copies follow the world's faces, MODELS' face ranges
//! follow them; VERT_NORMAL_INDICES, read one run per face in face order, gets the world
//! faces' runs again for each copy; planes, texture info and lighting are shared. Prints the copies made and the
//! size written.
use bspkit::edit::Editor;
use bspkit::Bsp;

const VERTICES: usize = 3;
const FACES: usize = 7;
const EDGES: usize = 12;
const SURFEDGES: usize = 13;
const MODELS: usize = 14;
const FACES_HDR: usize = 58;
const VERT_NORMAL_INDICES: usize = 31;
const FACE_SIZE: usize = 56;
const MODEL_SIZE: usize = 48;

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: tile_source MAP COPIES OUT");
        std::process::exit(2);
    }
    if let Err(e) = run(&args[1], args[2].parse().expect("COPIES is a number"), &args[3]) {
        eprintln!("tile_source: {}: {e}", args[1]);
        std::process::exit(1);
    }
}

fn run(map: &str, copies: usize, out: &str) -> Result<(), String> {
    let bsp = Bsp::open(map).map_err(|e| e.to_string())?;
    if bsp.family() != bspkit::Family::Source || bsp.endian() != bspkit::Endian::Little || bsp.record_size(EDGES) != Some(4) {
        return Err("a little-endian Source map with 16-bit edges is needed".into());
    }
    let lump = |i: usize| bsp.lump(i).map(|b| b.to_vec()).map_err(|e| e.to_string());
    let (verts, edges, surfedges, models, faces) = (lump(VERTICES)?, lump(EDGES)?, lump(SURFEDGES)?, lump(MODELS)?, lump(FACES)?);
    let (nv, ne, ns) = (verts.len() / 12, edges.len() / 4, surfedges.len() / 4);
    let copies = if copies == 0 { 65_536 / nv.max(1) } else { copies };
    if nv * copies > 65_536 {
        return Err(format!("{copies} copies of {nv} vertices exceed 16-bit edge indices"));
    }
    let (first, count) = (i32_at(&models, 40) as usize, i32_at(&models, 44) as usize);

    let mut new_verts = Vec::with_capacity(verts.len() * copies);
    let mut new_edges = Vec::with_capacity(edges.len() * copies);
    let mut new_surfedges = Vec::with_capacity(surfedges.len() * copies);
    for k in 0..copies {
        new_verts.extend_from_slice(&verts);
        for e in edges.chunks_exact(2) {
            let v = u16::from_le_bytes([e[0], e[1]]) as usize + k * nv;
            new_edges.extend_from_slice(&(v.min(65_535) as u16).to_le_bytes());
        }
        for s in surfedges.chunks_exact(4) {
            let s = i32::from_le_bytes(s.try_into().unwrap()) as i64;
            let moved = if s < 0 { s - (k * ne) as i64 } else { s + (k * ne) as i64 };
            new_surfedges.extend_from_slice(&(moved as i32).to_le_bytes());
        }
    }
    let tile_faces = |faces: &[u8]| -> Result<Vec<u8>, String> {
        let world = faces.get(first * FACE_SIZE..(first + count) * FACE_SIZE).ok_or("the world's faces are outside FACES")?;
        let mut out = Vec::with_capacity(faces.len() + world.len() * (copies - 1));
        out.extend_from_slice(&faces[..(first + count) * FACE_SIZE]);
        for k in 1..copies {
            for f in world.chunks_exact(FACE_SIZE) {
                let mut f = f.to_vec();
                let firstedge = i32_at(&f, 4) + (k * ns) as i32;
                f[4..8].copy_from_slice(&firstedge.to_le_bytes());
                f[12..14].copy_from_slice(&(-1i16).to_le_bytes()); // no displacement
                f[48..52].fill(0); // no primitives
                out.extend_from_slice(&f);
            }
        }
        out.extend_from_slice(&faces[(first + count) * FACE_SIZE..]);
        Ok(out)
    };
    let added = count * (copies - 1);
    let mut new_models = models.clone();
    for (i, m) in new_models.chunks_exact_mut(MODEL_SIZE).enumerate() {
        let (f, n) = (i32_at(m, 40), i32_at(m, 44));
        if i == 0 {
            m[44..48].copy_from_slice(&(n + added as i32).to_le_bytes());
        } else if f as usize >= first + count {
            m[40..44].copy_from_slice(&(f + added as i32).to_le_bytes());
        }
    }
    let mut ed = Editor::new(&bsp).map_err(|e| e.to_string())?;
    let set = |ed: &mut Editor, i: usize, b: Vec<u8>| ed.set_lump(i, b).map_err(|e| e.to_string());
    set(&mut ed, VERTICES, new_verts)?;
    set(&mut ed, EDGES, new_edges)?;
    set(&mut ed, SURFEDGES, new_surfedges)?;
    set(&mut ed, FACES, tile_faces(&faces)?)?;
    let hdr = lump(FACES_HDR)?;
    if !hdr.is_empty() {
        set(&mut ed, FACES_HDR, tile_faces(&hdr)?)?;
    }
    set(&mut ed, MODELS, new_models)?;
    // One u16 normal index per corner, faces in lump order: the world's run again per copy.
    let corners = |r: std::ops::Range<usize>| -> usize {
        faces[r.start * FACE_SIZE..r.end * FACE_SIZE]
            .chunks_exact(FACE_SIZE)
            .map(|f| i16::from_le_bytes([f[8], f[9]]).max(0) as usize)
            .sum()
    };
    let (a, w) = (corners(0..first), corners(0..first + count));
    let vni = lump(VERT_NORMAL_INDICES)?;
    if vni.len() >= 2 * w {
        let mut out = Vec::with_capacity(vni.len() + 2 * (w - a) * (copies - 1));
        out.extend_from_slice(&vni[..2 * w]);
        for _ in 1..copies {
            out.extend_from_slice(&vni[2 * a..2 * w]);
        }
        out.extend_from_slice(&vni[2 * w..]);
        set(&mut ed, VERT_NORMAL_INDICES, out)?;
    }
    let bytes = ed.to_bytes().map_err(|e| e.to_string())?;
    std::fs::write(out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    println!("{copies} copies, {} faces, {} bytes", faces.len() / FACE_SIZE + added, bytes.len());
    Ok(())
}
