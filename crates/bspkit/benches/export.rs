//! Export speed (issues 8 and 13): on the largest corpus map of each family, reported as MB/s of
//! map file (`Throughput::Bytes`), each iteration from the byte buffer (`Bsp::from_bytes`, so
//! LZMA lumps are decompressed every time):
//! - `export_mesh`: `mesh::build` (every model; no textures, no lightmaps);
//! - `export_glb`: geometry-only GLB export (`textures: None`, `lightmaps: false`);
//! - `export_glb_full`: GLB export with textures and lightmaps (the default options).
//!
//! The GLB goes to the null device (the writer runs in full, no disk is involved). Run with
//! `BSPKIT_CORPUS=/path/to/maps cargo bench -p bspkit --bench export`; without the corpus only
//! the builder-made sample runs. The comparison with other exporters is `bench/export.sh`.

use std::hint::black_box;

use bspkit::export::{export, ExportOptions, Format};
use bspkit::mesh::{self, MeshOptions};
use bspkit::Bsp;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

mod common;

#[cfg(unix)]
const NULL: &str = "/dev/null";
#[cfg(not(unix))]
const NULL: &str = "NUL";

fn opts(full: bool) -> ExportOptions {
    let mut o = ExportOptions { format: Some(Format::Glb), ..Default::default() };
    if !full {
        o.textures = None;
        o.lightmaps = false;
    }
    o
}

fn run_export(bytes: &[u8], full: bool) -> bspkit::Result<usize> {
    let bsp = Bsp::from_bytes(bytes)?;
    Ok(export(&bsp, NULL.as_ref(), &opts(full))?.triangles)
}

fn run_mesh(bytes: &[u8]) -> bspkit::Result<usize> {
    let bsp = Bsp::from_bytes(bytes)?;
    Ok(mesh::build(&bsp, &MeshOptions::default())?.triangle_count())
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut v = vec![("builder-quake1".to_string(), bspkit::build::sample_quake1())];
    for folder in ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360", "respawn", "cod", "genesis3d"] {
        v.extend(common::largest(folder).map(|(name, bytes)| (format!("{folder}/{name}"), bytes)));
    }
    if std::env::var_os("BSPKIT_CORPUS").is_none() {
        eprintln!("export bench: BSPKIT_CORPUS not set, only the builder-made sample runs");
    }
    v
}

fn bench_export(c: &mut Criterion) {
    let inputs = inputs();
    // A map the exporter refuses is reported once and left out (a bench measures, it does not test).
    let usable = |what: &str, r: bspkit::Result<usize>, name: &str| match r {
        Ok(_) => true,
        Err(e) => {
            eprintln!("export bench: {what} skips {name}: {e}");
            false
        }
    };

    let mut g = c.benchmark_group("export_mesh");
    for (name, bytes) in &inputs {
        if !usable("export_mesh", run_mesh(bytes), name) {
            continue;
        }
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| b.iter(|| run_mesh(black_box(bytes)).unwrap()));
    }
    g.finish();

    for (group, full) in [("export_glb", false), ("export_glb_full", true)] {
        let mut g = c.benchmark_group(group);
        for (name, bytes) in &inputs {
            if !usable(group, run_export(bytes, full), name) {
                continue;
            }
            g.throughput(Throughput::Bytes(bytes.len() as u64));
            g.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| b.iter(|| run_export(black_box(bytes), full).unwrap()));
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench_export
}
criterion_main!(benches);
