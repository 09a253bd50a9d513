//! Lightmap atlas build speed: `lightmap::build` (read the faces, compute extents, pack, copy
//! every luxel with its padding) on the largest corpus map of each family with lightmaps,
//! reported as MB/s of map file. Run with `BSPKIT_CORPUS=../shared/maps cargo bench -p bspkit
//! --bench lightmap`; without the corpus only the builder-made sample runs.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use bspkit::lightmap::{self, LightOptions};
use bspkit::Bsp;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// The largest map file under `BSPKIT_CORPUS/<folder>`.
fn largest(folder: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("BSPKIT_CORPUS")?;
    let mut stack = vec![Path::new(&dir).join(folder)];
    let mut best: Option<(u64, PathBuf)> = None;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if bspkit::scan::is_map_file(&p) {
                let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                if best.as_ref().map_or(true, |b| len > b.0) {
                    best = Some((len, p));
                }
            }
        }
    }
    best.map(|b| b.1)
}

fn atlas_build(c: &mut Criterion) {
    let mut g = c.benchmark_group("lightmap_build");
    let mut inputs = vec![("builder-quake1".to_string(), bspkit::build::sample_quake1())];
    for folder in ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360"] {
        if let Some(p) = largest(folder) {
            inputs.push((p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()));
        }
    }
    for (name, bytes) in &inputs {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter(|| {
                let bsp = Bsp::from_bytes(black_box(bytes)).unwrap();
                lightmap::build(&bsp, &LightOptions::default()).map(|l| l.faces.len()).unwrap_or(0)
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = atlas_build
}
criterion_main!(benches);
