//! Micro-benchmarks of the hot paths: directory parse, typed lump view, entity parse, PVS row
//! decode, LZMA decode. Run with `cargo bench -p bspkit` (not in CI). Builder-made inputs
//! always run; corpus maps are added when `BSPKIT_CORPUS` names the corpus directory.

use std::hint::black_box;

use bspkit::branches::quake1::{LUMP_PLANES, LUMP_VISIBILITY};
use bspkit::lumps::visibility::{decompress_row, ClusterVis, VisKind};
use bspkit::{Bsp, Endian};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use zerocopy::byteorder::{F32, I32, LE};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// A Quake plane (quake_family.md B.3: `float normal[3]; float dist; int type`, 20 bytes),
/// declared here so the typed view is measured without depending on a branch module.
#[derive(FromBytes, Immutable, KnownLayout, Unaligned, Clone, Copy)]
#[repr(C)]
struct Plane {
    normal: [F32<LE>; 3],
    dist: F32<LE>,
    kind: I32<LE>,
}

mod common;
use common::{corpus_maps, largest};

/// A builder-made Quake map whose planes lump holds `n` planes.
fn built_quake1(n: usize) -> Vec<u8> {
    let branch = bspkit::branches::by_id("quake1").expect("quake1 branch");
    let mut planes = Vec::with_capacity(n * 20);
    for i in 0..n {
        for v in [0.0f32, 0.0, 1.0, i as f32] {
            planes.extend_from_slice(&v.to_le_bytes());
        }
        planes.extend_from_slice(&2i32.to_le_bytes());
    }
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    bspkit::build::BspBuilder::new(branch).lump(0, ents).lump(LUMP_PLANES, planes).build()
}

fn directory(c: &mut Criterion) {
    let mut g = c.benchmark_group("directory_parse");
    let mut inputs = vec![("builder-quake1".to_string(), bspkit::build::sample_quake1())];
    for f in ["quake1", "quake2", "quake3", "source", "respawn", "cod"] {
        inputs.extend(largest(f));
    }
    for (name, bytes) in &inputs {
        g.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter(|| Bsp::from_bytes(black_box(bytes)).map(|m| m.lumps().len()).unwrap_or(0))
        });
    }
    g.finish();
}

fn typed_view(c: &mut Criterion) {
    let mut g = c.benchmark_group("typed_lump_view");
    let bytes = built_quake1(100_000);
    let bsp = Bsp::from_bytes(&bytes).expect("built map opens");
    g.throughput(Throughput::Bytes(bsp.lump(LUMP_PLANES).map(|l| l.len() as u64).unwrap_or(0)));
    g.bench_function("quake1-planes-100k", |b| {
        b.iter(|| {
            let planes = bsp.records::<Plane>(black_box(LUMP_PLANES)).expect("planes view");
            planes.iter().map(|p| p.dist.get()).sum::<f32>()
        })
    });
    g.finish();
}

fn entities(c: &mut Criterion) {
    let mut g = c.benchmark_group("entity_parse");
    let mut text = String::new();
    for i in 0..5_000 {
        text.push_str(&format!("{{\n\"classname\" \"light\"\n\"origin\" \"{i} 0 64\"\n\"light\" \"300\"\n}}\n"));
    }
    let mut inputs = vec![("synthetic-5000".to_string(), text.into_bytes())];
    for f in ["quake1", "source", "respawn"] {
        if let Some((name, bytes)) = largest(f) {
            if let Ok(bsp) = Bsp::from_bytes(&bytes) {
                if let Ok(t) = bsp.entities_text() {
                    inputs.push((name, t.to_vec()));
                }
            }
        }
    }
    for (name, t) in &inputs {
        g.throughput(Throughput::Bytes(t.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), t, |b, t| {
            b.iter(|| bspkit::lumps::entities::parse(black_box(t)).map(|e| e.len()).unwrap_or(0))
        });
    }
    g.finish();
}

fn pvs(c: &mut Criterion) {
    let mut g = c.benchmark_group("pvs_row_decode");
    // A 4096-cluster row: runs of zeros between literal bytes, the common shape.
    let row_bytes = 512;
    let mut row = Vec::new();
    while row.len() < 400 {
        row.extend_from_slice(&[0xff, 0x81, 0, 3]);
    }
    let mut out = Vec::new();
    g.throughput(Throughput::Bytes(row_bytes as u64));
    g.bench_function("synthetic-4096-clusters", |b| {
        b.iter(|| {
            decompress_row(black_box(&row), 0, row_bytes, &mut out).ok();
            out.len()
        })
    });
    // Every PVS row of the largest Quake 2 corpus map.
    if let Some((name, bytes)) = largest("quake2") {
        if let Ok(bsp) = Bsp::from_bytes(&bytes) {
            if let Some(vis) =
                bsp.lump_index("VISIBILITY").and_then(|i| bsp.lump(i).ok()).and_then(|l| ClusterVis::parse(l, Endian::Little).ok())
            {
                g.throughput(Throughput::Bytes((vis.num_clusters * vis.row_bytes()) as u64));
                g.bench_function(format!("{name}-all-rows"), |b| {
                    b.iter(|| {
                        let mut bits = 0u32;
                        for cl in 0..vis.num_clusters {
                            if vis.row(cl, VisKind::Pvs, &mut out).is_ok() {
                                bits += out.iter().map(|x| x.count_ones()).sum::<u32>();
                            }
                        }
                        bits
                    })
                });
            }
        }
    }
    // Quake 1's visibility lump: decode as one long row (the leaf table gives real offsets).
    if let Some((name, bytes)) = largest("quake1") {
        if let Ok(bsp) = Bsp::from_bytes(&bytes) {
            if let Ok(vis) = bsp.lump(LUMP_VISIBILITY) {
                let n = vis.len();
                g.throughput(Throughput::Bytes(n as u64));
                g.bench_function(format!("{name}-first-row-of-lump"), |b| {
                    b.iter(|| decompress_row(black_box(vis), 0, 128, &mut out).map(|_| out.len()).unwrap_or(0))
                });
            }
        }
    }
    g.finish();
}

fn lzma(c: &mut Criterion) {
    let mut g = c.benchmark_group("lzma_decode");
    // 1 MiB of plane-like records, compressed the way Valve stores lumps.
    let plain = built_quake1(52_428);
    let packed = bspkit::compression::compress_valve_lzma(&plain, 6).expect("compress");
    g.throughput(Throughput::Bytes(plain.len() as u64));
    g.bench_function("synthetic-1MiB", |b| {
        b.iter(|| bspkit::compression::decompress_valve_lzma(black_box(&packed), Endian::Little, u64::MAX).map(|v| v.len()).unwrap_or(0))
    });
    // Every compressed lump of the Xbox 360 corpus map.
    for p in corpus_maps("source_x360") {
        let Ok(bytes) = std::fs::read(&p) else { continue };
        let Ok(bsp) = Bsp::from_bytes(&bytes) else { continue };
        let raws: Vec<&[u8]> = bsp.lumps().iter().filter(|e| e.compressed).filter_map(|e| bsp.raw_lump(e.index).ok()).collect();
        let total: u64 = bsp.lumps().iter().filter(|e| e.compressed).filter_map(|e| bsp.lump(e.index).ok()).map(|l| l.len() as u64).sum();
        g.throughput(Throughput::Bytes(total));
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        g.bench_function(format!("{name}-all-lumps"), |b| {
            b.iter(|| {
                raws.iter()
                    .filter_map(|r| bspkit::compression::decompress_valve_lzma(r, bsp.endian(), u64::MAX).ok())
                    .map(|v| v.len())
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

/// `bsp check`'s work on the Xbox 360 corpus map: open from memory (nothing decoded yet) and
/// run every check (`check/…`: the default, which decodes the LZMA lumps the checks read and
/// measures the others from their headers; `check_verify_lzma/…`: `--verify-lzma`, every
/// LZMA lump decoded, as every check did before).
fn check_x360(c: &mut Criterion) {
    use bspkit::check::{check_with, CheckOptions};
    for (group, verify_lzma) in [("check", false), ("check_verify_lzma", true)] {
        let mut g = c.benchmark_group(group);
        for p in corpus_maps("source_x360") {
            let Ok(bytes) = std::fs::read(&p) else { continue };
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let opts = CheckOptions { verify_lzma };
            g.throughput(Throughput::Bytes(bytes.len() as u64));
            g.bench_function(name, |b| b.iter(|| Bsp::from_bytes(black_box(&bytes)).map(|bsp| check_with(&bsp, &opts).len()).unwrap_or(0)));
        }
        g.finish();
    }
}

criterion_group!(benches, directory, typed_view, entities, pvs, lzma, check_x360);
criterion_main!(benches);
