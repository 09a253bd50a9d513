//! `bspkit::decompile` on the corpus: every Quake 2 and Quake 3 family map decompiles, with
//! its measured quality above the family's threshold; the editors' own sources beside some maps
//! check the plane and texture conventions.

use crate::common;

use bspkit::decompile::{decompile, mapfile, DecompileOptions, Quality};
use bspkit::Bsp;

fn run(path: &std::path::Path) -> (bspkit::decompile::Decompiled, std::time::Duration) {
    let bsp = Bsp::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = std::time::Instant::now();
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (d, t.elapsed())
}

fn show(name: &str, q: &Quality, ms: f64) {
    eprintln!(
        "{name:<48} cov {:>8.4}% brush {:>4}/{:<4} tex {:>5}/{:<5} ({} with axes) ents {}/{} {ms:.1} ms",
        q.face_coverage.unwrap_or(f64::NAN),
        q.brushes_same,
        q.brushes,
        q.sides_same_texture,
        q.sides,
        q.sides_with_axes,
        q.entities_same,
        q.entities
    );
}

#[test]
fn corpus_quake2_quake3() {
    let Some(corpus) = common::corpus("decompile::corpus_quake2_quake3") else { return };
    let mut n = 0;
    for folder in ["quake2", "quake3"] {
        for m in common::maps_in(&corpus, folder) {
            let (d, took) = run(&m.path);
            let q = d.report.quality.clone().unwrap();
            show(m.path.file_name().unwrap().to_str().unwrap(), &q, took.as_secs_f64() * 1e3);
            // The decompile alone, for the README's timings (the measure reads the output back).
            let bsp = Bsp::open(&m.path).unwrap();
            let t = std::time::Instant::now();
            let plain = decompile(&bsp, &DecompileOptions { measure: false, ..Default::default() }).unwrap();
            eprintln!("    {} bytes, decompile alone {:.1} ms", std::fs::metadata(&m.path).unwrap().len(), t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(plain.text, d.text);
            for mm in d.report.mismatches.iter().take(5) {
                eprintln!("    {mm:?}");
            }
            let name = m.path.file_name().unwrap().to_string_lossy().to_string();
            // Every brush, side texture and entity comes back; the faces are covered (Quake 3:
            // triangles q3map2 snapped to its 1/8-unit grid pair with their side within the
            // snap, `decompile::snapcover`).
            let coverage_floor = 99.9;
            if q.face_coverage.unwrap() < 100.0 {
                eprintln!("    uncovered by texture: {:?}", q.uncovered_by_texture);
            }
            assert!(q.face_coverage.unwrap() >= coverage_floor, "{name}: coverage {:?}", q.face_coverage);
            assert_eq!(q.brushes_same, q.brushes, "{name}");
            assert!(q.brushes > 0, "{name}");
            assert_eq!(q.sides_same_texture, q.sides, "{name}");
            assert!(q.entities_in_order, "{name}");
            assert_eq!(d.report.mismatches_total, 0, "{name}");
            crate::decompile_report::check_rows(&name, &d);
            if folder == "quake2" {
                // Every Quake 2 side has texinfo axes to compare.
                assert_eq!(q.sides_with_axes, q.sides, "{name}");
            } else {
                assert!(q.sides_with_axes > 0, "{name}");
            }
            n += 1;
        }
    }
    assert!(n >= 10);
}

/// The Quake 3 editor sources beside the corpus maps: every brush of the source comes back with
/// the same planes, and where the side is drawn, the same texture matrix (the base-axes
/// convention and the point order agree with the editors').
#[test]
fn quake3_sources() {
    let Some(corpus) = common::corpus("decompile::quake3_sources") else { return };
    let mut drawn_total = 0;
    for name in ["bspconvert__test-push-horizontal", "turtlearena__test_smash", "turtlearena__sp1boss", "bspconvert__test-nonsolid-patch"] {
        let dir = corpus.join("quake3");
        let src = std::fs::read(dir.join(format!("{name}.map"))).unwrap();
        let src = mapfile::read_map(&src).unwrap();
        let (d, _) = run(&dir.join(format!("{name}.bsp")));
        let out = mapfile::read_map(d.text.as_bytes()).unwrap();
        let planes = |e: &[mapfile::MapEntity]| -> Vec<Vec<bspkit::decompile::geom::Plane>> {
            e.iter().flat_map(|e| e.brushes()).map(|b| b.iter().filter_map(|s| s.plane()).collect()).collect()
        };
        let (sp, op) = (planes(&src), planes(&out));
        let mut found = 0;
        let mut same_matrix = 0;
        let mut drawn = 0;
        for (sb, b) in src.iter().flat_map(|e| e.brushes()).zip(&sp) {
            // The compiler sorts the sides (axial planes first), so brushes match as plane sets.
            let same_set = |o: &Vec<bspkit::decompile::geom::Plane>| {
                o.len() == b.len() && b.iter().all(|y| o.iter().any(|x| x.same_as(y, 1e-6, 1e-3)))
            };
            let Some(k) = op.iter().position(same_set) else { continue };
            found += 1;
            let ob = out.iter().flat_map(|e| e.brushes()).nth(k).unwrap();
            for s in sb {
                let sp = s.plane().unwrap();
                let o = ob.iter().find(|o| o.plane().unwrap().same_as(&sp, 1e-6, 1e-3)).unwrap();
                assert_eq!(o.texture, s.texture, "{name}");
                if let (mapfile::TexProjection::BrushPrimitive { m: a }, mapfile::TexProjection::BrushPrimitive { m: b }) =
                    (&s.projection, &o.projection)
                {
                    if b != &[[1.0 / 128.0, 0.0, 0.0], [0.0, 1.0 / 128.0, 0.0]] {
                        drawn += 1;
                        let close = a.iter().flatten().zip(b.iter().flatten()).enumerate().all(|(i, (x, y))| {
                            let d = x - y;
                            // Offsets may differ by whole textures.
                            if i % 3 == 2 {
                                (d - d.round()).abs() < 1e-3
                            } else {
                                d.abs() < 1e-5
                            }
                        });
                        same_matrix += close as usize;
                        if !close {
                            eprintln!("  {name}: {} vs {:?} {:?}", s.texture, a, b);
                        }
                    }
                }
            }
        }
        eprintln!("{name}: {found}/{} source brushes back, {same_matrix}/{drawn} drawn sides with the source's matrix", sp.len());
        assert_eq!(found, sp.len(), "{name}");
        assert_eq!(same_matrix, drawn, "{name}");
        drawn_total += drawn;
        // Patches come back with the source's control points.
        let patches = |e: &[mapfile::MapEntity]| -> Vec<mapfile::MapPatch> {
            e.iter()
                .flat_map(|e| &e.primitives)
                .filter_map(|p| match p {
                    mapfile::MapPrimitive::Patch(p) => Some(p.clone()),
                    _ => None,
                })
                .collect()
        };
        let (spp, opp) = (patches(&src), patches(&out));
        assert_eq!(spp.len(), opp.len(), "{name}");
        for (a, b) in spp.iter().zip(&opp) {
            assert_eq!((a.width, a.height, &a.texture), (b.width, b.height, &b.texture), "{name}");
            for (x, y) in a.points.iter().zip(&b.points) {
                assert!((0..3).all(|k| (x[k] - y[k]).abs() < 1e-3), "{name}: {x:?} {y:?}");
            }
        }
    }
    assert!(drawn_total >= 20);
}
