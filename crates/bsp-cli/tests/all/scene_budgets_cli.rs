//! Issue 23, "Scene building has no budget" for Source and Respawn (the Quake 1 case is
//! `bspkit`'s `budgets::quake1_shared_surfedges_hit_the_scene_budget`). Two hostile maps built
//! here with the library's builder, each a few hundred KB:
//!
//! - **Source**: the one-face square of [`bspkit::build::vindictus::valve_square`] with 5,000
//!   more faces of `numedges` 32,767, every one over the same run of 32,767 surfedges (round
//!   the square again and again). Before: 458 KB of such faces aborted `bsp export` (SIGABRT,
//!   a failed allocation).
//! - **Titanfall 2**: 2,000 meshes sharing one index run of 65,145 triangles. Before: a
//!   1.75 MB file aborted the process.
//!
//! `bsp export` and `bsp render` on each must stop with the typed `limit_exceeded` error naming
//! the scene budget's flag (exit 2), at a peak memory far below what the file asks for (VmHWM
//! of the child, read from /proc while it runs), and a lower budget must lower the peak.

use std::path::Path;
use std::process::{Command, Stdio};

use bspkit::build::BspBuilder;
use bspkit::Bsp;

use crate::cli::{s, scratch, BSP};
use crate::common;

const MIB: u64 = 1 << 20;

/// Run `bsp ARGS`: exit code, standard error and peak resident memory
/// ([`common::peak_rss_of`]); panics after 5 minutes.
fn peak(dir: &Path, args: &[&str]) -> (Option<i32>, String, u64) {
    let err_path = dir.join("stderr.txt");
    let mut cmd = Command::new(BSP);
    cmd.args(args).stdout(Stdio::null()).stderr(std::fs::File::create(&err_path).unwrap());
    let (status, high) = common::peak_rss_of(&mut cmd, std::time::Duration::from_secs(300));
    (status.code(), std::fs::read_to_string(&err_path).unwrap(), high)
}

/// The Source square with `extra` faces of 32,767 edges each over one shared surfedge run.
/// dface_t (56 bytes, source.md §7.6): firstedge i32 at 4, numedges i16 at 8; dmodel_t (48
/// bytes): firstface, numfaces i32 at 40 and 44.
fn source_shared_surfedges(extra: usize) -> Vec<u8> {
    use bspkit::branches::source::{LUMP_FACES, LUMP_GAME_LUMP, LUMP_MODELS, LUMP_SURFEDGES, SOURCE};
    let square = bspkit::build::vindictus::valve_square();
    let bsp = Bsp::from_bytes(&square).unwrap();
    let lump = |i: usize| bsp.lump(i).unwrap().to_vec();
    let mut faces = lump(LUMP_FACES);
    let mut surfedges = lump(LUMP_SURFEDGES);
    let mut models = lump(LUMP_MODELS);
    assert_eq!((faces.len(), surfedges.len()), (56, 16), "the square: one face of four edges");
    // 32,767 surfedges naming edges 1..4 round the square in turn.
    let start = surfedges.len() / 4;
    for k in 0..32_767i32 {
        surfedges.extend_from_slice(&(1 + k % 4).to_le_bytes());
    }
    let mut f = faces[..56].to_vec();
    f[4..8].copy_from_slice(&(start as i32).to_le_bytes());
    f[8..10].copy_from_slice(&32_767i16.to_le_bytes());
    for _ in 0..extra {
        faces.extend_from_slice(&f);
    }
    models[44..48].copy_from_slice(&(1 + extra as i32).to_le_bytes());
    // Every lump of the square with its version, but the game lump (its static prop offsets
    // are absolute and would move): props play no part here.
    let mut b = BspBuilder::new(&SOURCE);
    for i in (0..SOURCE.lumps.len()).filter(|&i| i != LUMP_GAME_LUMP) {
        if let Ok(bytes) = bsp.lump(i) {
            if !bytes.is_empty() {
                b = b.lump_v(i, bytes.to_vec(), bsp.entry(i).and_then(|e| e.version).unwrap_or(0));
            }
        }
    }
    b.lump_v(LUMP_FACES, faces, 1).lump(LUMP_SURFEDGES, surfedges).lump(LUMP_MODELS, models).build()
}

/// A Titanfall 2 (v37) map whose world model has `meshes` meshes, every one naming the same
/// run of 65,145 triangles (indices 0 1 2 over and over) of lit-flat vertices.
fn respawn_shared_index_run(meshes: usize) -> Vec<u8> {
    use bspkit::branches::respawn::*;
    // Records written field by field (respawn records.rs): ModelR1 (32 bytes) first_mesh and
    // num_meshes u32 at 24 and 28; MeshR2 (28 bytes) num_triangles u16 at 4, flags 0 (lit
    // flat); VertexLitFlatR1 (36 bytes) position_index u32 at 0, normal 0; one zeroed
    // MaterialSortR1 (12) and TextureDataR1 (36).
    let mut world = vec![0u8; 32];
    world[28..32].copy_from_slice(&(meshes as u32).to_le_bytes());
    let mut mesh = [0u8; 28];
    mesh[4..6].copy_from_slice(&65_145u16.to_le_bytes());
    let all = mesh.repeat(meshes);
    let indices: Vec<u8> = (0..65_145 * 3).flat_map(|i: u32| ((i % 3) as u16).to_le_bytes()).collect();
    let verts: Vec<u8> = (0..3u32)
        .flat_map(|i| {
            let mut v = vec![0u8; 36];
            v[..4].copy_from_slice(&i.to_le_bytes());
            v
        })
        .collect();
    let vec3s = |v: &[[f32; 3]]| -> Vec<u8> { v.iter().flat_map(|p| p.iter().flat_map(|c| c.to_le_bytes())).collect() };
    BspBuilder::new(&TITANFALL2)
        .version(37)
        .lump(LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(LUMP_VERTICES, vec3s(&[[0., 0., 0.], [0., 64., 0.], [64., 0., 0.]]))
        .lump(LUMP_VERTEX_NORMALS, vec3s(&[[0., 0., 1.]]))
        .lump(LUMP_MODELS, world)
        .lump(LUMP_MESHES, all)
        .lump(LUMP_MESH_INDICES, indices)
        .lump(LUMP_MATERIAL_SORTS, vec![0u8; 12])
        .lump(LUMP_TEXTURE_DATA, vec![0u8; 36])
        .lump(LUMP_TEXTURE_DATA_STRING_TABLE, 0u32.to_le_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA_STRING_DATA, b"dev/grid1\0".to_vec())
        .lump(LUMP_VERTEX_LIT_FLAT, verts)
        .build()
}

/// `export` and `render` of `map` stop with the budget named by `flag`, exit 2, under
/// `bound` bytes of peak memory; with the budget at a tenth of its default the peak is lower
/// again. Returns the peaks (default, low) of `export`.
fn refused_within(dir: &Path, map: &Path, flag: &str, default: u64, bound: u64) -> (u64, u64) {
    let mut peaks = Vec::new();
    for (cmd, out) in [("export", "e.glb"), ("render", "r.png")] {
        let o = dir.join(out);
        for budget in [default, default / 10] {
            let b = budget.to_string();
            let (code, stderr, high) = peak(dir, &[cmd, s(map), "-o", s(&o), flag, &b]);
            eprintln!("bsp {cmd} {} {flag} {b}: exit {code:?}, peak {} MiB", map.display(), high / MIB);
            assert_eq!(code, Some(2), "bsp {cmd} {flag} {b}: {stderr}");
            assert!(stderr.contains("exceeds the limit of"), "a limit_exceeded error: {stderr}");
            assert!(stderr.contains(flag), "the error names the budget's flag: {stderr}");
            assert!(!o.exists(), "{cmd} wrote {out} past the budget");
            assert!(high < bound, "bsp {cmd} {flag} {b}: peak {} MiB over {} MiB", high / MIB, bound / MIB);
            peaks.push(high);
        }
    }
    // A budget of a tenth allocates less before it stops (export: default vs low).
    assert!(peaks[1] < peaks[0], "the lower budget did not lower the peak: {peaks:?}");
    (peaks[0], peaks[1])
}

/// Source faces of 32,767 edges sharing one surfedge run: 5,000 of them ask for 163.8 M
/// vertices (about 7 GB of vertex data); the vertex budget (8 Mi by default) stops the build.
#[test]
fn source_shared_surfedges_hit_the_scene_budget() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("note: no /proc: peak memory not measured");
        return;
    }
    let d = scratch("scene-budget-source");
    let map = source_shared_surfedges(5_000);
    assert!(map.len() < 460_000, "{} bytes", map.len());
    let path = d.join("numedges.bsp");
    std::fs::write(&path, &map).unwrap();
    // The healthy square exports under the same default budgets.
    let square = d.join("square.bsp");
    std::fs::write(&square, bspkit::build::vindictus::valve_square()).unwrap();
    let o = crate::cli::run(&["export", s(&square), "-o", s(&d.join("ok.glb"))]);
    assert!(o.status.success(), "{}", crate::cli::err(&o));
    let asked = 5_000u64 * 32_767;
    let (high, low) = refused_within(&d, &path, "--max-scene-vertices", bspkit::mesh::DEFAULT_MAX_SCENE_VERTICES, 1_200 * MIB);
    eprintln!(
        "source: {} bytes asking {asked} vertices; export refused at peak {} MiB (default budget), {} MiB (a tenth)",
        map.len(),
        high / MIB,
        low / MIB
    );
}

/// Titanfall 2 meshes sharing one run of 65,145 triangles: 2,000 of them ask for 130.3 M
/// triangles (1.56 GB of u32 indices); the triangle budget (8 Mi by default) stops the build.
#[test]
fn respawn_shared_index_run_hits_the_scene_budget() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("note: no /proc: peak memory not measured");
        return;
    }
    let d = scratch("scene-budget-respawn");
    let map = respawn_shared_index_run(2_000);
    assert!(map.len() < 500_000, "{} bytes", map.len());
    let path = d.join("meshes.bsp");
    std::fs::write(&path, &map).unwrap();
    // One such mesh is a healthy map: it exports.
    let one = d.join("one.bsp");
    std::fs::write(&one, respawn_shared_index_run(1)).unwrap();
    let o = crate::cli::run(&["export", s(&one), "-o", s(&d.join("ok.glb"))]);
    assert!(o.status.success(), "{}", crate::cli::err(&o));
    let asked = 2_000u64 * 65_145;
    let (high, low) = refused_within(&d, &path, "--max-scene-triangles", bspkit::mesh::DEFAULT_MAX_SCENE_TRIANGLES, 600 * MIB);
    eprintln!(
        "titanfall 2: {} bytes asking {asked} triangles; export refused at peak {} MiB (default budget), {} MiB (a tenth)",
        map.len(),
        high / MIB,
        low / MIB
    );
}
