//! bspkit geometry export, in process. For each map three JSON lines (same fields as the other
//! programs), each timed from the byte buffer (`Bsp::from_bytes`, so LZMA lumps are decompressed
//! in every run):
//! - `bspkit_mesh`: `mesh::build` (every model, default options; no textures, no lightmaps);
//!   work = triangles;
//! - `bspkit_export`: `export::export` as GLB with no textures and no lightmaps (geometry only);
//! - `bspkit_export_full`: `export::export` as GLB with textures (embedded/pakfile ones, as
//!   `bsp export` finds them without `--game-dir`) and lightmaps (atlas + TEXCOORD_1).
//!
//! - `bspkit_export_all`: as `bspkit_export` with `--skip none` (every surface, hidden ones
//!   too), the like-for-like run against bsp-to-glb, which keeps hidden surfaces;
//! - `bspkit_export_all_lm`: as `bspkit_export_all` with lightmaps (atlas, PNG and
//!   TEXCOORD_1); bsp-to-glb's default computes TEXCOORD_1 but embeds no atlas.
//!
//! The GLB goes to the null device: the writer runs in full (JSON, binary chunk, PNG encoding)
//! but no disk is involved. work = triangles written. The GLB's size comes from the `bsp export`
//! runs of `export.sh`.
use bspkit::export::{export, ExportOptions, Format};
use bspkit::mesh::{self, MeshOptions, SurfaceFlags};
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
    let mut opts = ExportOptions { format: Some(Format::Glb), ..Default::default() };
    if !full {
        opts.textures = None;
        opts.lightmaps = false;
    }
    run_with(bytes, &opts)
}

fn run_with(bytes: &[u8], opts: &ExportOptions) -> Result<u64, String> {
    let bsp = Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
    let summary = export(&bsp, NULL.as_ref(), opts).map_err(|e| e.to_string())?;
    Ok(summary.triangles as u64)
}

fn geometry(bytes: &[u8]) -> Result<u64, String> {
    run(bytes, false)
}

fn full(bytes: &[u8]) -> Result<u64, String> {
    run(bytes, true)
}

fn every_surface(bytes: &[u8], lightmaps: bool) -> Result<u64, String> {
    let opts = ExportOptions { format: Some(Format::Glb), textures: None, lightmaps, skip: SurfaceFlags::NONE, ..Default::default() };
    run_with(bytes, &opts)
}

fn main() {
    bspkit_bench::main_with("bspkit_mesh", mesh_only);
    bspkit_bench::main_with("bspkit_export", geometry);
    bspkit_bench::main_with("bspkit_export_full", full);
    bspkit_bench::main_with("bspkit_export_all", |b| every_surface(b, false));
    bspkit_bench::main_with("bspkit_export_all_lm", |b| every_surface(b, true));
}
