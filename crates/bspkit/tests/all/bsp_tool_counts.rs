//! bspkit's record counts equal bsp_tool 0.7.0's for every lump bsp_tool reads into a countable
//! form, on the three Respawn and four Call of Duty 4 corpus maps. bsp_tool's counts were
//! recorded once in `fixtures/bsp_tool_counts.tsv` (its first line names the command, run in
//! the bench venv of bench/README.md); this test never runs bsp_tool.

use crate::common;

use bspkit::branches::respawn;
use bspkit::Bsp;

const FIXTURE: &str = include_str!("../fixtures/bsp_tool_counts.tsv");

/// bsp_tool's CoD4 lump names (`infinity_ward/modern_warfare.py`) → lump ids (the enum values).
const COD4_NAMES: &[(&str, usize)] = &[
    ("TEXTURES", 0),
    ("LIGHTMAPS", 1),
    ("LIGHT_GRID_POINTS", 2),
    ("LIGHT_GRID_COLOURS", 3),
    ("PLANES", 4),
    ("BRUSH_SIDES", 5),
    ("UNKNOWN_6", 6),
    ("UNKNOWN_7", 7),
    ("BRUSHES", 8),
    ("LAYERED_TRIANGLE_SOUPS", 9),
    ("LAYERED_VERTICES", 10),
    ("LAYERED_INDICES", 11),
    ("PORTAL_VERTICES", 19),
    ("LAYERED_AABB_TREE", 24),
    ("CELLS", 25),
    ("PORTALS", 26),
    ("NODES", 27),
    ("LEAVES", 28),
    ("LEAF_BRUSHES", 29),
    ("LEAF_FACES", 30),
    ("COLLISION_VERTICES", 31),
    ("COLLISION_TRIANGLES", 32),
    ("COLLISION_EDGE_WALK", 33),
    ("COLLISION_BORDERS", 34),
    ("COLLISION_PARTS", 35),
    ("COLLISION_AABBS", 36),
    ("MODELS", 37),
    ("ENTITIES", 39),
    ("PATHS", 40),
    ("REFLECTION_PROBES", 41),
    ("LAYERED_DATA", 42),
    ("PRIMARY_LIGHTS", 43),
    ("LIGHT_GRID_HEADER", 44),
    ("LIGHT_GRID_ROWS", 45),
    ("SIMPLE_TRIANGLE_SOUPS", 47),
    ("SIMPLE_VERTICES", 48),
    ("SIMPLE_INDICES", 49),
    ("SIMPLE_AABB_TREE", 51),
    ("LIGHT_REGIONS", 52),
    ("LIGHT_REGION_HULLS", 53),
    ("LIGHT_REGION_AXES", 54),
];

struct Row<'a> {
    map: &'a str,
    lump: &'a str,
    kind: &'a str,
    count: u64,
}

fn rows() -> Vec<Row<'static>> {
    let mut lines = FIXTURE.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("# bsp_tool 0.7.0; made by: "), "{header}");
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{l}");
            Row { map: f[0], lump: f[1], kind: f[2], count: f[3].parse().unwrap() }
        })
        .collect()
}

/// bspkit's count of what a fixture row counts.
fn ours(bsp: &Bsp, row: &Row) -> u64 {
    let index = if bsp.family() == bspkit::Family::Cod {
        COD4_NAMES.iter().find(|(n, _)| *n == row.lump).unwrap_or_else(|| panic!("{}: no id for {}", row.map, row.lump)).1
    } else {
        bsp.lump_index(row.lump).unwrap_or_else(|| panic!("{}: bspkit has no lump {}", row.map, row.lump))
    };
    match row.kind {
        "records" => {
            let bytes = bsp.lump(index).unwrap().len() as u64;
            if bsp.family() == bspkit::Family::Cod && index == bspkit::branches::cod::LUMP_LIGHTGRIDHEADER {
                // bsp_tool reads the light grid header as u16 words; bspkit as its 20-byte fixed
                // part (10 words) and one u16 per row.
                return 10 + bytes.saturating_sub(20) / 2;
            }
            let size = bsp.record_size(index).unwrap_or_else(|| panic!("{}: {} is not typed in bspkit", row.map, row.lump));
            assert_eq!(bytes % size as u64, 0, "{}: {}", row.map, row.lump);
            bytes / size as u64
        }
        "entities" => bsp.entities().unwrap().len() as u64,
        // The name count of bspkit's contents table (`bsp info`).
        "strings" => bspkit::stats::stats(bsp).iter().find(|s| s.name == "texture names").and_then(|s| s.count).unwrap(),
        // bsp_tool keeps the leading `01*` token (the `.bsp`'s own entity lump).
        "partitions" => respawn::partition_kinds(bsp).unwrap().len() as u64 + 1,
        "sprp_props" => bspkit::with_respawn_view!(bsp, |v| v.static_props()).unwrap().unwrap().map_or(0, |p| p.count as u64),
        other => panic!("unknown kind {other}"),
    }
}

#[test]
fn record_counts_equal_bsp_tools() {
    let Some(corpus) = common::corpus("record_counts_equal_bsp_tools") else { return };
    let rows = rows();
    let mut maps: Vec<&str> = rows.iter().map(|r| r.map).collect();
    maps.dedup();
    assert_eq!(maps.len(), 7, "the fixture covers the 3 Respawn and 4 CoD4 maps: {maps:?}");
    let mut compared = 0;
    for map in maps {
        let bsp = Bsp::open(corpus.join(map)).unwrap_or_else(|e| panic!("{e}"));
        for row in rows.iter().filter(|r| r.map == map) {
            assert_eq!(ours(&bsp, row), row.count, "{map}: {} ({})", row.lump, row.kind);
            compared += 1;
        }
    }
    eprintln!("{compared} lump counts equal bsp_tool's");
    assert!(compared >= 200, "{compared} counts compared");
}

/// The fixture parses and names only lumps bspkit knows (runs without the corpus too).
#[test]
fn fixture_rows_name_known_lumps() {
    let rows = rows();
    assert!(rows.len() >= 200);
    for r in &rows {
        if r.map.starts_with("cod/") {
            assert!(COD4_NAMES.iter().any(|(n, _)| *n == r.lump), "{}", r.lump);
        } else {
            assert!(respawn::TITANFALL2.lump_index(r.lump).is_some(), "{}", r.lump);
        }
    }
}
