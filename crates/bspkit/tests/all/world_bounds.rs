//! The library tables' world bounds (`maps.min_*`/`max_*`, `FamilyOps::world_bounds`) on every
//! corpus map: equal to model 0's first six floats read here straight from the model lump's
//! bytes (each family's model record starts with `mins`, `maxs` — Genesis3D's after its two
//! root-node ints), in the map's byte order; and the world model's drawn vertices lie inside
//! them (compilers store the world's box from its geometry, Quake's padded by a unit).

use crate::common;

use bspkit::catalog::map_rows;
use bspkit::scan::ScanOptions;
use bspkit::Bsp;

/// Model 0's `(mins, maxs)` from the lump's bytes, or `None` when the lump has no model.
fn model_zero(bsp: &Bsp) -> Option<([f32; 3], [f32; 3])> {
    let info = bspkit::info::lump_infos(bsp).into_iter().find(|l| l.name.eq_ignore_ascii_case("models"))?;
    let bytes = bsp.lump(info.index).unwrap();
    let skip = if bsp.family() == bspkit::branch::Family::Genesis3D { 8 } else { 0 };
    let big = bsp.endian() == bspkit::bytes::Endian::Big;
    let f = |i: usize| -> Option<f32> {
        let b: [u8; 4] = bytes.get(skip + i * 4..skip + i * 4 + 4)?.try_into().ok()?;
        Some(if big { f32::from_be_bytes(b) } else { f32::from_le_bytes(b) })
    };
    Some(([f(0)?, f(1)?, f(2)?], [f(3)?, f(4)?, f(5)?]))
}

#[test]
fn world_bounds_equal_model_zero_on_the_corpus() {
    let Some(corpus) = common::corpus("world_bounds::world_bounds_equal_model_zero_on_the_corpus") else { return };
    let (mut compared, mut inside, mut families) = (0, 0, std::collections::BTreeSet::new());
    for m in common::maps(&corpus) {
        let bsp = Bsp::open(&m.path).unwrap();
        let (row, _) = map_rows(&bsp, &ScanOptions { check: false, ..Default::default() });
        let name = m.path.display();
        let Some((mins, maxs)) = model_zero(&bsp) else {
            assert_eq!((row.mins, row.maxs), (None, None), "{name}: no model lump, no bounds");
            continue;
        };
        assert_eq!(row.mins, Some(mins), "{name} mins");
        assert_eq!(row.maxs, Some(maxs), "{name} maxs");
        compared += 1;
        families.insert(bsp.family().as_str());
        // The drawn world inside its box (1 unit of slack: Quake's compilers pad it).
        let Ok(scene) = bspkit::mesh::build(&bsp, &Default::default()) else { continue };
        let Some(world) = scene.models.iter().find(|w| w.index == 0 && !w.vertices.positions.is_empty()) else { continue };
        let out: Vec<_> =
            world.vertices.positions.iter().filter(|p| (0..3).any(|a| p[a] < mins[a] - 1.0 || p[a] > maxs[a] + 1.0)).collect();
        eprintln!(
            "{name}: {} family, bounds {mins:?} {maxs:?}, {} of {} world vertices outside",
            bsp.family().as_str(),
            out.len(),
            world.vertices.positions.len()
        );
        if out.is_empty() {
            inside += 1;
        }
    }
    eprintln!("{compared} maps compared ({families:?}), {inside} with every world vertex inside");
    assert!(compared >= 50, "{compared}");
    assert_eq!(families.len(), 8, "every family with maps in the corpus: {families:?}");
}
