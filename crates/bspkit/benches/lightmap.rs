//! Lightmap atlas build speed: `lightmap::build` (read the faces, compute extents, pack, copy
//! every luxel with its padding) on the largest corpus map of each family with lightmaps,
//! reported as MB/s of map file; `lightmap_build` includes opening the map (and decompressing
//! LZMA lumps), `lightmap_build_opened` does not. Run with `BSPKIT_CORPUS=../shared/maps cargo bench -p bspkit
//! --bench lightmap`; without the corpus only the builder-made sample runs.

use std::hint::black_box;

use bspkit::lightmap::{self, LightOptions};
use bspkit::Bsp;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

mod common;

fn atlas_build(c: &mut Criterion) {
    let mut g = c.benchmark_group("lightmap_build");
    let mut inputs = vec![("builder-quake1".to_string(), bspkit::build::sample_quake1())];
    for folder in ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360"] {
        inputs.extend(common::largest(folder));
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
    // The same with the map already open (LZMA lumps decompressed once, outside the timing).
    let mut g = c.benchmark_group("lightmap_build_opened");
    for (name, bytes) in &inputs {
        let bsp = Bsp::from_bytes(bytes).unwrap();
        let _ = lightmap::build(&bsp, &LightOptions::default());
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), &bsp, |b, bsp| {
            b.iter(|| lightmap::build(black_box(bsp), &LightOptions::default()).map(|l| l.faces.len()).unwrap_or(0))
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
