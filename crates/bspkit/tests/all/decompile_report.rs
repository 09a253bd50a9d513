//! The report's per-brush and per-entity rows (`brush_list`, `entity_list`, issue 26's
//! `--report` "per brush and per entity"): on every corpus map the family tests decompile
//! ([`check_rows`] is called from their corpus loops, so no map is decompiled twice), the rows
//! add up to the quality's totals, name their entity and where each brush came from.

use std::collections::HashMap;

use bspkit::decompile::Decompiled;

/// The rows of `d`'s report against its totals; the number of rows whose notes name their
/// lump brush (`brush N: …` notes found in brush N's row).
pub fn check_rows(name: &str, d: &Decompiled) -> usize {
    let r = &d.report;
    let q = r.quality.as_ref().unwrap_or_else(|| panic!("{name}: measured"));
    let all = &r.brush_list;
    // Every corpus map is under the default limit: the lists are whole.
    assert_eq!(all.len(), r.brush_list_total, "{name}");
    let rows: Vec<_> = all.iter().filter(|b| b.measured).collect();
    assert_eq!(rows.len(), q.brushes, "{name}: a row per brush measured");
    let rebuilt = q.source.as_ref().map_or(0, |s| s.displacement_brushes_rebuilt);
    assert_eq!(all.iter().filter(|b| !b.measured && b.from == "displacement").count(), all.len() - rows.len(), "{name}");
    assert_eq!(all.len() - rows.len(), rebuilt, "{name}: a row per displacement brush");
    assert_eq!(rows.iter().filter(|b| b.same).count(), q.brushes_same, "{name}: same");
    assert_eq!(rows.iter().map(|b| b.sides).sum::<usize>(), q.sides, "{name}: sides");
    assert_eq!(rows.iter().map(|b| b.sides_same_texture).sum::<usize>(), q.sides_same_texture, "{name}: textures");
    assert_eq!(rows.iter().map(|b| b.sides_with_axes).sum::<usize>(), q.sides_with_axes, "{name}: axes");
    let bevels: usize = rows.iter().map(|b| b.bevels_dropped).sum();
    if r.brushes_skipped == 0 {
        assert_eq!(bevels, r.bevels_dropped, "{name}: bevels");
    } else {
        assert!(bevels <= r.bevels_dropped, "{name}: bevels");
    }
    // Output order, each place once.
    assert!(all.windows(2).all(|w| (w[0].entity, w[0].primitive) < (w[1].entity, w[1].primitive)), "{name}: order");

    let ents = &r.entity_list;
    assert_eq!(ents.len(), r.entity_list_total, "{name}");
    assert!(ents.len() >= q.entities, "{name}: every entity listed");
    assert!(ents.iter().enumerate().all(|(i, e)| e.index == i), "{name}");
    assert_eq!(ents.iter().filter(|e| e.same).count(), q.entities_same, "{name}: entities same");
    assert_eq!(ents.iter().filter(|e| e.keys_original.is_none()).count(), ents.len() - q.entities, "{name}: added entities");
    assert_eq!(ents.iter().map(|e| e.patches).sum::<usize>(), r.patches, "{name}: patches");
    // Every brush written is a measured one, in its entity's row.
    assert_eq!(ents.iter().map(|e| e.brushes).sum::<usize>(), all.len(), "{name}: brushes written");
    let mut per_entity: HashMap<usize, usize> = HashMap::new();
    for b in all {
        assert_eq!(b.classname, ents[b.entity].classname, "{name}: brush {b:?}");
        *per_entity.entry(b.entity).or_default() += 1;
    }
    for e in ents {
        assert_eq!(per_entity.get(&e.index).copied().unwrap_or(0), e.brushes, "{name}: entity {}", e.index);
    }

    // Where the brushes came from, by family.
    let tree_family = matches!(r.family, "quake" | "goldsrc" | "genesis3d");
    let mut lump_rows: HashMap<usize, &bspkit::decompile::BrushRow> = HashMap::new();
    for b in rows.iter().copied() {
        if tree_family {
            assert!(matches!(b.from, "tree" | "brushlist" | "clip_hull" | "origin_brush"), "{name}: {b:?}");
            assert_eq!(b.lump_index, None, "{name}");
            assert_eq!(b.hull.is_some(), b.from == "clip_hull", "{name}: {b:?}");
        } else {
            assert_eq!(b.from, "brush_lump", "{name}: {b:?}");
            let i = b.lump_index.unwrap_or_else(|| panic!("{name}: {b:?}"));
            assert!(lump_rows.insert(i, b).is_none(), "{name}: lump brush {i} twice");
        }
    }
    if let Some(t) = &q.tree {
        assert_eq!(rows.iter().filter(|b| b.from == "clip_hull").count(), t.clip_brushes, "{name}: clip brushes");
        if t.source == "tree" {
            let origin = rows.iter().filter(|b| b.from == "origin_brush").count();
            assert_eq!(rows.iter().filter(|b| b.from == "tree").count() + t.clip_brushes + origin, rows.len(), "{name}");
        }
    }
    // Each note naming a lump brush that was written is in that brush's row.
    let mut named = 0;
    for n in &r.notes {
        let Some(i) = n.strip_prefix("brush ").and_then(|s| s.split_once(": ")).and_then(|(i, _)| i.parse::<usize>().ok()) else {
            continue;
        };
        if let Some(b) = lump_rows.get(&i) {
            assert!(b.notes.contains(n), "{name}: {n:?} not in {b:?}");
            named += 1;
        }
    }
    named
}
