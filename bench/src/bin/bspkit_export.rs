//! bspkit geometry export, in process. For each map three JSON lines (same fields as the other
//! programs), each timed from the byte buffer (`Bsp::from_bytes`, so LZMA lumps are decompressed
//! in every run):
//! - `bspkit_mesh`: `mesh::build` (every model, default options; no textures, no lightmaps);
//!   work = triangles;
//! - `bspkit_export`: `export::export` as GLB with no textures and no lightmaps (geometry only);
//! - `bspkit_export_full`: `export::export` as GLB with textures (embedded/pakfile ones, as
//!   `bsp export` finds them without `--game-dir`) and lightmaps (atlas + TEXCOORD_1).
//!
//! The GLB goes to the null device: the writer runs in full (JSON, binary chunk, PNG encoding)
//! but no disk is involved. work = triangles written. The GLB's size comes from the `bsp export`
//! runs of `export.sh`.
use bspkit::export::{export, ExportOptions, Format};
use bspkit::mesh::{self, MeshOptions};
use bspkit::Bsp;

#[cfg(unix)]
const NULL: &str = "/dev/null";
#[cfg(not(unix))]
const NULL: &str = "NUL";

fn mesh_only(bytes: &[u8]) -> Result<u64, String> {
    let bsp = Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
    let scene = mesh::build(&bsp, &MeshOptions::default()).map_err(|e| e.to_string())?;
    Ok(scene.triangle_count() as u64)
}

fn run(bytes: &[u8], full: bool) -> Result<u64, String> {
    let bsp = Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
    let mut opts = ExportOptions { format: Some(Format::Glb), ..Default::default() };
    if !full {
        opts.textures = None;
        opts.lightmaps = false;
    }
    let summary = export(&bsp, NULL.as_ref(), &opts).map_err(|e| e.to_string())?;
    Ok(summary.triangles as u64)
}

fn geometry(bytes: &[u8]) -> Result<u64, String> {
    run(bytes, false)
}

fn full(bytes: &[u8]) -> Result<u64, String> {
    run(bytes, true)
}

fn main() {
    bspkit_bench::main_with("bspkit_mesh", mesh_only);
    bspkit_bench::main_with("bspkit_export", geometry);
    bspkit_bench::main_with("bspkit_export_full", full);
}
