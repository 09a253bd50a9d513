//! Preview picture speed: `render::render_map` (scene build with lightmap UVs, lightmap atlases,
//! texture look-up, rasterizing at 512 px) plus PNG encoding, on the sample map and the largest
//! corpus map of each family folder, the map opened outside the timing. Run with
//! `BSPKIT_CORPUS=../shared/maps cargo bench -p bspkit --bench render`; without the corpus only
//! the builder-made sample runs.

use std::hint::black_box;

use bspkit::render::{render_map, RenderOptions, View};
use bspkit::Bsp;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

mod common;

fn render(c: &mut Criterion) {
    let sample = bspkit::build::sample_quake1();
    let mut maps: Vec<(String, Bsp<'static>)> = vec![("builder-quake1".into(), Bsp::from_vec(sample).unwrap())];
    for folder in ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360", "respawn", "cod", "genesis3d"] {
        let largest = common::corpus_maps(folder).into_iter().max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        if let Some(p) = largest {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            maps.push((name, Bsp::open(&p).unwrap()));
        }
    }
    let mut g = c.benchmark_group("render_512");
    for (name, bsp) in &maps {
        for view in [View::Iso, View::Top] {
            let opts = RenderOptions { view, size: 512, ..Default::default() };
            g.bench_with_input(BenchmarkId::new(view.as_str(), name), bsp, |b, bsp| {
                b.iter(|| render_map(black_box(bsp), &opts).and_then(|r| r.frame.to_png()).map(|p| p.len()).unwrap_or(0))
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(2));
    targets = render
}
criterion_main!(benches);
