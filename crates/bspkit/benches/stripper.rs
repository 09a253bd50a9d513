//! Stripper:Source configs at scale (issue 11, item 13): `Config::apply` of 400 `modify` blocks
//! over 10,000 entities, and `stripper::diff` of two 8,000-entity lumps (every tenth entity
//! changed, a few removed and added). Both must grow near-linearly. Run with
//! `cargo bench -p bspkit --bench stripper`.

use std::hint::black_box;

use bspkit::lumps::entities::EntityDoc;
use bspkit::stripper::{self, Config};
use criterion::{criterion_group, criterion_main, Criterion};

/// `n` entities: a worldspawn, then lights with a hammerid, a targetname and an origin.
fn entities(n: usize, changed_every: usize) -> Vec<u8> {
    let mut t = String::from("{\n\"classname\" \"worldspawn\"\n}\n");
    for i in 1..n {
        let light = if changed_every > 0 && i % changed_every == 0 { 999 } else { 200 + i % 50 };
        t += &format!(
            "{{\n\"classname\" \"light\"\n\"hammerid\" \"{i}\"\n\"targetname\" \"l{i}\"\n\"origin\" \"{i} 0 0\"\n\"light\" \"{light}\"\n}}\n"
        );
    }
    t.push('\0');
    t.into_bytes()
}

/// 400 `modify` blocks, each matching one entity by targetname.
fn modify_config(blocks: usize, step: usize) -> String {
    let mut c = String::new();
    for b in 0..blocks {
        let i = 1 + b * step;
        c += &format!("modify:\n{{\n\tmatch:\n\t{{\n\t\"targetname\" \"l{i}\"\n\t}}\n\treplace:\n\t{{\n\t\"light\" \"50\"\n\t}}\n\tinsert:\n\t{{\n\t\"_color\" \"255 0 0\"\n\t}}\n}}\n");
    }
    c
}

fn bench(c: &mut Criterion) {
    let lump = entities(10_000, 0);
    let doc = EntityDoc::parse(&lump).unwrap();
    let cfg = Config::parse(&modify_config(400, 24)).unwrap();
    c.bench_function("stripper_apply_400_modify_10000_entities", |b| {
        b.iter(|| {
            let mut d = doc.clone();
            black_box(cfg.apply(&mut d).unwrap())
        })
    });
    let a = EntityDoc::parse(&entities(8_000, 0)).unwrap();
    let mut b2 = EntityDoc::parse(&entities(8_000, 10)).unwrap();
    b2.entities.truncate(7_950);
    let c2 = EntityDoc::parse(&entities(8_050, 0)).unwrap();
    b2.entities.extend(c2.entities[7_950..].iter().cloned());
    let mut g = c.benchmark_group("stripper_diff");
    g.sample_size(10);
    g.bench_function("diff_8000_entities", |bch| bch.iter(|| black_box(stripper::diff(&a, &b2).unwrap().len())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
