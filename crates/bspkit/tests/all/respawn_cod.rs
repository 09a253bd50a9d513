//! Respawn rBSP and Call of Duty 4 `.d3dbsp`: corpus maps open with the right branch and named
//! lumps, `.bsp_lump` siblings agree with the in-file lumps, entity partitions parse, and the
//! CoD4 rows equal `cod4map -info` (parsed from the `.info.txt` files).

use crate::common;

use std::path::{Path, PathBuf};

use bspkit::branches::{cod, respawn};
use bspkit::build::BspBuilder;
use bspkit::directory::LumpOrigin;
use bspkit::{Bsp, ErrorKind, OpenOptions};

fn no_external() -> OpenOptions {
    OpenOptions { external_lumps: false, ..OpenOptions::default() }
}

/// Every non-empty lump has a name from the branch table (no `UNKNOWN_<n>`), and every lump with
/// a declared record size divides by it.
fn assert_named_and_sized(bsp: &Bsp, path: &Path) {
    for e in bsp.lumps() {
        if e.length > 0 {
            assert!(!e.name.starts_with("UNKNOWN"), "{}: lump {} is unnamed", path.display(), e.index);
            assert!(bsp.branch().lumps.get(e.index).is_some(), "{}: lump {} outside the table", path.display(), e.index);
        }
        if let Some(size) = bsp.record_size(e.index) {
            let len = bsp.lump(e.index).unwrap().len();
            assert_eq!(len % size, 0, "{}: lump {} ({}) {len} bytes, record size {size}", path.display(), e.index, e.name);
        }
    }
}

#[test]
fn respawn_corpus_maps_open_named() {
    let Some(corpus) = common::corpus("respawn_corpus_maps_open_named") else { return };
    let maps = common::maps_in(&corpus, "respawn");
    assert!(maps.len() >= 3, "{} respawn maps", maps.len());
    for m in &maps {
        for opts in [OpenOptions::default(), no_external()] {
            let bsp = Bsp::open_with(&m.path, &opts).unwrap_or_else(|e| panic!("{e}"));
            let version = bsp.header().version;
            let want = match version {
                29 => "titanfall",
                36 | 37 => "titanfall2",
                _ => "apex",
            };
            assert_eq!(bsp.branch().id, want, "{}", m.path.display());
            assert_eq!(bsp.lumps().len(), 128);
            assert_eq!(bsp.header().extra, Some(127), "{}: last lump index", m.path.display());
            assert_named_and_sized(&bsp, &m.path);
            let ents = bsp.entities().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ents.list[0].classname().as_deref(), Some("worldspawn"), "{}", m.path.display());
        }
    }
}

/// open_questions.md B5: each `.bsp_lump` equals the lump it replaces, except Titanfall 2's
/// real-time-light lightmaps (mp_looby 0x69): the in-file lump holds 9 bytes per texel, the
/// `.bsp_lump` the first 8 (a prefix). That is the format, not damage: `check` stays clean.
#[test]
fn bsp_lump_siblings_match_in_file_lumps() {
    let Some(corpus) = common::corpus("bsp_lump_siblings_match_in_file_lumps") else { return };
    let mut externals = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let inner = Bsp::open_with(&m.path, &no_external()).unwrap();
        let outer = Bsp::open(&m.path).unwrap();
        let mut mismatched = Vec::new();
        for e in outer.lumps() {
            let LumpOrigin::BspLump(p) = &e.origin else {
                // Only lumps without a sibling stay in the file.
                assert_eq!(e.origin, LumpOrigin::File);
                continue;
            };
            externals += 1;
            assert!(p.file_name().unwrap().to_string_lossy().ends_with(&format!(".{:04x}.bsp_lump", e.index)));
            let ext = outer.lump(e.index).unwrap();
            let own = inner.lump(e.index).unwrap();
            assert_eq!(respawn::directory_length(&outer, e.index), Some(own.len() as u64));
            if ext != own {
                assert!(
                    own.starts_with(ext) && ext.len() < own.len(),
                    "{}: lump {:#x} differs and is not a prefix",
                    m.path.display(),
                    e.index
                );
                mismatched.push(format!("{} ({})", e.index, e.name));
            }
        }
        // Every non-empty lump of a map with siblings has one.
        if outer.lumps().iter().any(|e| matches!(e.origin, LumpOrigin::BspLump(_))) {
            for e in inner.lumps().iter().filter(|e| e.length > 0) {
                assert!(matches!(outer.entry(e.index).unwrap().origin, LumpOrigin::BspLump(_)), "lump {:#x} has no sibling", e.index);
            }
        }
        // The only difference is the real-time-light lump, 8 of the in-file 9 bytes per texel.
        for lump in &mismatched {
            assert_eq!(lump, "105 (LIGHTMAP_DATA_REAL_TIME_LIGHTS)", "{}", m.path.display());
            let headers: &[respawn::LightmapHeader] = inner.records(respawn::LUMP_LIGHTMAP_HEADERS).unwrap();
            let texels: u64 = headers.iter().map(|h| h.texels()).sum();
            assert_eq!(inner.lump(0x69).unwrap().len() as u64, 9 * texels);
            assert_eq!(outer.lump(0x69).unwrap().len() as u64, 8 * texels);
        }
        let problems = bspkit::check::check(&outer);
        assert!(problems.is_empty(), "{}: {problems:?}", m.path.display());
        assert!(bspkit::check::check(&inner).is_empty(), "{}", m.path.display());
    }
    assert!(externals > 0, "no .bsp_lump in the corpus");
}

/// Any other size difference between a `.bsp_lump` and its lump is reported, naming the file.
#[test]
fn mismatched_bsp_lump_is_reported() {
    let mut b = BspBuilder::new(&respawn::TITANFALL2).version(37);
    b = b.lump(respawn::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec()).lump(respawn::LUMP_VERTICES, vec![0u8; 24]);
    let dir = common::scratch("bsplump");
    let map = dir.join("mp_sized.bsp");
    std::fs::write(&map, b.build()).unwrap();
    std::fs::write(dir.join("mp_sized.bsp.0003.bsp_lump"), vec![0u8; 36]).unwrap();
    let bsp = Bsp::open(&map).unwrap();
    let problems: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect();
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("3 (VERTICES)") && p.contains("mp_sized.bsp.0003.bsp_lump holds 36 bytes") && p.contains("says 24")),
        "{problems:?}"
    );
    drop(bsp);
}

#[test]
fn entity_partitions_are_listed_and_parse() {
    let Some(corpus) = common::corpus("entity_partitions_are_listed_and_parse") else { return };
    let mut files = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let bsp = Bsp::open(&m.path).unwrap();
        let kinds = respawn::partition_kinds(&bsp).unwrap();
        let parts = respawn::entity_partitions(&bsp).unwrap();
        let found: Vec<&str> = parts.iter().map(|p| p.kind.as_str()).collect();
        assert_eq!(found, kinds, "{}: ENTITY_PARTITIONS vs .ent files", m.path.display());
        for p in &parts {
            files += 1;
            let header = p.header().unwrap();
            assert!(header.starts_with(b"ENTITIES0"), "{}", p.path.display());
            let ents = p.entities().unwrap_or_else(|e| panic!("{e}"));
            // The text runs to the end of the file or to a NUL (mp_looby's files end with one,
            // crossfire's do not): nothing but whitespace follows the last entity.
            if let Some(last) = ents.list.last() {
                assert!(ents.text[last.span.end..].iter().all(u8::is_ascii_whitespace), "{}", p.path.display());
            }
            if matches!(p.kind.as_str(), "spawn" | "env" | "script") {
                assert!(!ents.is_empty(), "{}", p.path.display());
                assert!(ents.iter().all(|e| e.classname().is_some()));
            }
        }
    }
    assert!(files >= 4, "{files} .ent files");
}

/// An Apex map whose lumps all live in `.bsp_lump` files: the `.bsp` is the header alone and
/// its directory points past the end (facts §1.1, "streaming" maps).
#[test]
fn header_only_apex_map_opens_from_bsp_lumps() {
    let lumps: Vec<(usize, Vec<u8>)> =
        vec![(respawn::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec()), (0x01, vec![7u8; 32]), (0x03, vec![9u8; 24])];
    let mut b = BspBuilder::new(&respawn::APEX).version(49 | 1 << 16);
    for (i, bytes) in &lumps {
        b = b.lump(*i, bytes.clone());
    }
    let full = b.build();
    let dir = common::scratch("apex");
    let map: PathBuf = dir.join("mp_header_only.bsp");
    std::fs::write(&map, &full[..2064]).unwrap();
    for (i, bytes) in &lumps {
        std::fs::write(dir.join(format!("mp_header_only.bsp.{i:04x}.bsp_lump")), bytes).unwrap();
    }
    let bsp = Bsp::open(&map).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bsp.branch().id, "apex");
    assert_eq!(bsp.detection().version, 49);
    for (i, bytes) in &lumps {
        assert_eq!(bsp.lump(*i).unwrap(), &bytes[..]);
    }
    assert_eq!(bsp.entities().unwrap().len(), 1);
    drop(bsp);
    // In memory there are no siblings: the directory is out of bounds.
    let err = Bsp::from_bytes(&full[..2064]).err().unwrap();
    assert!(matches!(err.kind, ErrorKind::LumpOutOfBounds { .. }), "{err}");
    // Without one sibling, opening fails with the lump named.
    std::fs::remove_file(dir.join("mp_header_only.bsp.0003.bsp_lump")).unwrap();
    let err = Bsp::open(&map).err().unwrap();
    assert!(matches!(err.kind, ErrorKind::LumpOutOfBounds { .. }), "{err}");
    assert_eq!(err.lump.as_deref(), Some("3 (VERTICES)"));
}

#[test]
fn cod_corpus_maps_open_named_and_check_clean() {
    let Some(corpus) = common::corpus("cod_corpus_maps_open_named_and_check_clean") else { return };
    let maps = common::maps_in(&corpus, "cod");
    assert!(maps.len() >= 4);
    for m in &maps {
        let bsp = Bsp::open(&m.path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bsp.branch().id, "cod4");
        assert_named_and_sized(&bsp, &m.path);
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{}: {problems:?}", m.path.display());
    }
}

/// One `cod4map -info` row: (Limit%, count, name, bytes). Rows look like
/// `  0.02%      1 models                   48 B      0 KB   0.0%`; visibility has no count.
fn parse_info_rows(text: &str) -> Vec<(String, Option<u64>, String, u64)> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let Some((limit, rest)) = t.split_once("% ") else { continue };
        let Some(b) = rest.find(" B ").or_else(|| rest.strip_suffix(" B").map(|r| r.len())) else { continue };
        let head = rest[..b].trim();
        let (head, bytes) = head.rsplit_once(' ').unwrap();
        let bytes: u64 = bytes.parse().unwrap();
        let head = head.trim();
        let (count, name) = match head.split_once(' ') {
            Some((c, n)) if c.chars().all(|ch| ch.is_ascii_digit()) => (Some(c.parse().unwrap()), n.trim()),
            _ => (None, head),
        };
        rows.push((limit.trim_start_matches("^1").to_string(), count, name.to_string(), bytes));
    }
    rows
}

#[test]
fn cod_stats_equal_cod4map_info() {
    let Some(corpus) = common::corpus("cod_stats_equal_cod4map_info") else { return };
    let mut compared = 0;
    for m in common::maps_in(&corpus, "cod") {
        let Some(text) = common::info_txt(&m.path) else { continue };
        let want = parse_info_rows(&text);
        assert!(want.len() >= 40, "{}: parsed {} rows", m.path.display(), want.len());
        // The file size line: `<path>: <bytes>`.
        let size: u64 = text.lines().find_map(|l| l.rsplit_once(": ").and_then(|(_, n)| n.trim().parse().ok())).unwrap();
        let bsp = Bsp::open(&m.path).unwrap();
        assert_eq!(bsp.data().len() as u64, size);
        // Limit% as cod4map prints it: bytes over the compiler's limit, `%.2f`.
        let got: Vec<(String, Option<u64>, String, u64)> = bspkit::stats::stats(&bsp)
            .into_iter()
            .map(|s| (format!("{:.2}", cod::stats::limit_percent(s.bytes, s.max_bytes)), s.count, s.name, s.bytes))
            .collect();
        assert_eq!(got, want, "{}", m.path.display());
        // Rows with a non-zero Limit% pin a limit down; each map has some.
        assert!(want.iter().any(|r| r.0 != "0.00"), "{}", m.path.display());
        compared += 1;
    }
    assert!(compared >= 4, "{compared} .info.txt files compared");
}

#[test]
fn info_row_parser_reads_both_row_forms() {
    let rows = parse_info_rows(
        "  0.02%      1 models                   48 B      0 KB   0.0%\n  0.00%        visibility                0 B      0 KB   0.0%\n  3.23%      1 lightmaps           3145728 B   3072 KB  99.8%\n---------------------total 1956\n",
    );
    assert_eq!(
        rows,
        vec![
            ("0.02".into(), Some(1), "models".into(), 48),
            ("0.00".into(), None, "visibility".into(), 0),
            ("3.23".into(), Some(1), "lightmaps".into(), 3145728)
        ]
    );
}

/// The checks find broken references (synthetic maps from the builder).
#[test]
fn cod_check_finds_bad_references() {
    let brush = |sides: u16, material: u16| [sides.to_le_bytes(), material.to_le_bytes()].concat();
    let side = |plane: u32, material: u32| [plane.to_le_bytes(), material.to_le_bytes()].concat();
    let mut sides = Vec::new();
    for _ in 0..6 {
        sides.extend(side(0x4200_0000, 0)); // axial: a float distance, not a plane index
    }
    sides.extend(side(5, 0)); // plane 5 of 1: out of range
    let good = BspBuilder::new(&cod::COD4)
        .lump(cod::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(cod::LUMP_MATERIALS, vec![0u8; 72])
        .lump(cod::LUMP_PLANES, vec![0u8; 16])
        .lump(cod::LUMP_BRUSHSIDES, sides.clone())
        .lump(cod::LUMP_BRUSHSIDEEDGECOUNTS, vec![1u8; 7])
        .lump(cod::LUMP_BRUSHEDGES, vec![0u8; 7])
        .lump(cod::LUMP_BRUSHES, brush(7, 0))
        .lump(cod::LUMP_LEAFBRUSHES, 0u32.to_le_bytes().to_vec());
    let bytes = good.clone().build();
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!((problems[0].lump.as_str(), problems[0].index), ("5 (BRUSHSIDES)", Some(6)));

    let bytes = good.lump(cod::LUMP_BRUSHES, brush(9, 3)).lump(cod::LUMP_LEAFBRUSHES, 4u32.to_le_bytes().to_vec()).build();
    let problems = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap());
    let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert!(text.iter().any(|p| p.contains("material 3 is outside MATERIALS")), "{text:?}");
    assert!(text.iter().any(|p| p.contains("sides range 0+9")), "{text:?}");
    assert!(text.iter().any(|p| p.contains("brushes use 9 sides")), "{text:?}");
    assert!(text.iter().any(|p| p.starts_with("29 (LEAFBRUSHES)[0]")), "{text:?}");
}

/// The Respawn checks find broken references in maps of each game's layout (synthetic maps
/// from the builder; the corpus maps are clean).
#[test]
fn respawn_checks_find_bad_references() {
    use respawn::*;
    use zerocopy::{FromZeros, IntoBytes};
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let texts = |bsp: &Bsp| -> Vec<String> { bspkit::check::check(bsp).iter().map(|p| p.to_string()).collect() };
    let has = |t: &[String], prefix: &str, text: &str| {
        assert!(t.iter().any(|p| p.starts_with(prefix) && p.contains(text)), "{prefix} {text}: {t:?}")
    };

    // Titanfall 2: a mesh naming a missing material sort, a model past the meshes, a texture
    // name past the string table, a vertex past VERTICES, an index past the lit-bump vertices,
    // a brush with a wrong index, a portal to a missing cell.
    let mut mesh = <MeshR2>::new_zeroed();
    mesh.num_triangles.set(1);
    mesh.flags.set(0x200); // lit bump
    let mut model = <ModelR1>::new_zeroed();
    model.num_meshes.set(2);
    let mut sort = <MaterialSortR1>::new_zeroed();
    sort.vertex_offset.set(1);
    sort.lightmap_header.set(-1);
    let mut cell = <Cell>::new_zeroed();
    cell.leaf_water_data.set(-1);
    let mut td = <TextureDataR1>::new_zeroed();
    td.name_index.set(9);
    let mut vert = <VertexLitBumpR1>::new_zeroed();
    vert.flat.position_index.set(100);
    let mut brush = <CmBrush>::new_zeroed();
    brush.index.set(3);
    let mut portal = <Portal>::new_zeroed();
    portal.cell.set(5);
    let indices: Vec<u8> = [0u16, 0, 0].iter().flat_map(|i| i.to_le_bytes()).collect();
    let build = |mesh: &MeshR2| {
        BspBuilder::new(&TITANFALL2)
            .version(37)
            .lump(LUMP_ENTITIES, ents.clone())
            .lump(LUMP_PLANES, vec![0u8; 16])
            .lump(LUMP_VERTICES, vec![0u8; 12])
            .lump(LUMP_VERTEX_NORMALS, vec![0u8; 12])
            .lump(LUMP_MODELS, model.as_bytes().to_vec())
            .lump(LUMP_MESHES, mesh.as_bytes().to_vec())
            .lump(LUMP_MESH_BOUNDS, vec![0u8; 32])
            .lump(LUMP_MESH_INDICES, indices.clone())
            .lump(LUMP_MATERIAL_SORTS, sort.as_bytes().to_vec())
            .lump(LUMP_TEXTURE_DATA, td.as_bytes().to_vec())
            .lump(LUMP_TEXTURE_DATA_STRING_TABLE, vec![0u8; 4])
            .lump(LUMP_TEXTURE_DATA_STRING_DATA, b"tools/toolsnodraw\0".to_vec())
            .lump(LUMP_VERTEX_LIT_BUMP, vert.as_bytes().to_vec())
            .lump(LUMP_CM_BRUSHES, brush.as_bytes().to_vec())
            .lump(LUMP_CM_BRUSH_SIDE_PROPERTIES, vec![0u8; 12])
            .lump(LUMP_CELLS, cell.as_bytes().to_vec())
            .lump(LUMP_PORTALS, portal.as_bytes().to_vec())
            .build()
    };
    let bytes = build(&mesh);
    let t = texts(&Bsp::from_bytes(&bytes).unwrap());
    has(&t, "14 (MODELS)[0]", "meshes range 0+2 is outside MESHES (count 1)");
    has(&t, "80 (MESHES)[0]", "lit bump vertex (index + sort offset 1) 1 is outside 73 (VERTEX_LIT_BUMP) (count 1)");
    has(&t, "2 (TEXTURE_DATA)[0]", "name 9 is outside 44 (TEXTURE_DATA_STRING_TABLE) (count 1)");
    has(&t, "73 (VERTEX_LIT_BUMP)[0]", "position 100 is outside VERTICES (count 1)");
    has(&t, "92 (CM_BRUSHES)[0]", "index field is 3");
    // Its sides are found through the index: 6 × 3 onwards.
    has(&t, "92 (CM_BRUSHES)[0]", "side properties range 18+6 is outside CM_BRUSH_SIDE_PROPERTIES (count 6)");
    has(&t, "108 (PORTALS)[0]", "cell 5 is outside CELLS (count 1)");
    assert_eq!(t.len(), 7, "{t:?}");
    // The same map with a good mesh but its material sort out of range.
    let mut bad_sort = mesh;
    bad_sort.material_sort.set(4);
    let t = texts(&Bsp::from_bytes(&build(&bad_sort)).unwrap());
    has(&t, "80 (MESHES)[0]", "material sort 4 is outside MATERIAL_SORTS (count 1)");

    // Titanfall: 16-byte light probe references (the 20-byte form came with Titanfall 2).
    let mut r = <LightProbeRef>::new_zeroed();
    r.lightprobe.set(2);
    let bytes = BspBuilder::new(&TITANFALL)
        .version(29)
        .lump(LUMP_ENTITIES, ents.clone())
        .lump(LUMP_LIGHTPROBES, vec![0u8; 48])
        .lump(LUMP_LIGHTPROBE_REFERENCES, [r.as_bytes(), r.as_bytes()].concat())
        .build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.record_size(LUMP_LIGHTPROBE_REFERENCES), Some(16));
    let t = texts(&bsp);
    has(&t, "104 (LIGHTPROBE_REFERENCES)[1]", "light probe 2 is outside LIGHTPROBES (count 1)");

    // Apex: texture names are SURFACE_NAMES byte offsets; object references are u32.
    let mut td = <TextureDataR5>::new_zeroed();
    td.name_index.set(40);
    let bytes = BspBuilder::new(&APEX)
        .version(49)
        .lump(LUMP_ENTITIES, ents)
        .lump(LUMP_TEXTURE_DATA, td.as_bytes().to_vec())
        .lump(LUMP_SURFACE_NAMES, b"world/dev/grid\0\0".to_vec())
        .lump(LUMP_OBJ_REFERENCES, 7u32.to_le_bytes().to_vec())
        .build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let t = texts(&bsp);
    has(&t, "2 (TEXTURE_DATA)[0]", "name 40 is outside 15 (SURFACE_NAMES) (count 16)");
    has(&t, "121 (OBJ_REFERENCE_BOUNDS)", "0 records, but 120 (OBJ_REFERENCES) has 1");
    let view = View::<Apex>::new(&bsp).unwrap();
    assert_eq!(view.texture_data().unwrap()[0].name_index.get(), 40);
    assert_eq!(view.obj_references().unwrap()[0].get(), 7);
}

/// The new CoD4 checks: tri soup indices past their vertices, collision triangles, leafs,
/// light grid entries and the edge-walk size.
#[test]
fn cod_check_finds_bad_surface_and_collision_references() {
    use cod::*;
    use zerocopy::{FromZeros, IntoBytes};
    let mut soup = TriangleSoup::new_zeroed();
    soup.vertex_count.set(3);
    soup.index_count.set(3);
    soup.lightmap = 31; // none
    let indices: Vec<u8> = [0u16, 1, 5].iter().flat_map(|i| i.to_le_bytes()).collect();
    let mut tri = CollisionTri::new_zeroed();
    tri.verts[2].set(9);
    let mut leaf = Leaf::new_zeroed();
    leaf.cell.set(4);
    leaf.leaf_brush_count.set(1);
    let mut entry = LightGridEntry::new_zeroed();
    entry.colors.set(2);
    entry.primary_light = 255; // none
                               // A worldspawn, so the only problems are the broken references below.
    let bytes = BspBuilder::new(&COD4)
        .lump(LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(LUMP_MATERIALS, vec![0u8; 72])
        .lump(LUMP_TRIANGLES, soup.as_bytes().to_vec())
        .lump(LUMP_DRAWVERTS, vec![0u8; 3 * 68])
        .lump(LUMP_DRAWINDICES, indices)
        .lump(LUMP_COLLISIONVERTS, vec![0u8; 12])
        .lump(LUMP_COLLISIONTRIS, tri.as_bytes().to_vec())
        .lump(LUMP_COLLISIONEDGEWALKABLE, vec![0u8; 8])
        .lump(LUMP_LEAFS, leaf.as_bytes().to_vec())
        .lump(LUMP_LIGHTGRIDENTRIES, entry.as_bytes().to_vec())
        .lump(LUMP_LIGHTGRIDCOLORS, vec![0u8; 168])
        .build();
    let problems: Vec<String> = bspkit::check::check(&Bsp::from_bytes(&bytes).unwrap()).iter().map(|p| p.to_string()).collect();
    let has = |prefix: &str, text: &str| {
        assert!(problems.iter().any(|p| p.starts_with(prefix) && p.contains(text)), "{prefix} {text}: {problems:?}")
    };
    has("9 (TRIANGLES)[0]", "index 5 is outside the soup's vertices (count 3)");
    has("32 (COLLISIONTRIS)[0]", "vertex 9 is outside COLLISIONVERTS (count 1)");
    has("33 (COLLISIONEDGEWALKABLE)", "8 bytes, 1 collision triangles need 4");
    has("28 (LEAFS)[0]", "cell 4 is outside CELLS (count 0)");
    has("28 (LEAFS)[0]", "leaf brushes range 0+1 is outside LEAFBRUSHES (count 0)");
    has("2 (LIGHTGRIDENTRIES)[0]", "colors 2 is outside LIGHTGRIDCOLORS (count 1)");
    assert_eq!(problems.len(), 6, "{problems:?}");
}

/// The typed views an exporter uses: every mesh of the corpus maps resolves to a material name
/// and to corners inside its vertex lump, each vertex to a position and a normal; the contents
/// table counts what the views hold.
#[test]
fn respawn_views_resolve_meshes_and_the_contents_table_counts_them() {
    use respawn::{MeshRecord, Titanfall2, View};
    let Some(corpus) = common::corpus("respawn_views_resolve_meshes_and_the_contents_table_counts_them") else { return };
    let mut meshes_seen = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let bsp = Bsp::open(&m.path).unwrap();
        let v = View::<Titanfall2>::new(&bsp).unwrap();
        let meshes = v.meshes().unwrap();
        let positions = v.vertices().unwrap().len();
        let normals = v.vertex_normals().unwrap().len();
        let mut corners = 0;
        for (i, mesh) in meshes.iter().enumerate() {
            let name = v.mesh_material(i).unwrap_or_else(|| panic!("{}: mesh {i} has no material", m.path.display()));
            assert!(!name.is_empty() && name.is_ascii(), "{name:?}");
            let verts = v.vertices_of(mesh.vertex_kind()).unwrap();
            for c in v.mesh_corners(i).unwrap() {
                let vert = verts.get(c as usize).unwrap_or_else(|| panic!("{}: mesh {i} corner {c}", m.path.display()));
                assert!((vert.position as usize) < positions && (vert.normal as usize) < normals);
                corners += 1;
            }
            assert_eq!(corners % 3, 0);
            meshes_seen += 1;
        }
        let rows = bspkit::stats::stats(&bsp);
        let row = |name: &str| rows.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no row {name}")).count;
        assert_eq!(row("meshes"), Some(meshes.len() as u64));
        assert_eq!(row("vertex positions"), Some(positions as u64));
        assert_eq!(row("models"), Some(v.models().unwrap().len() as u64));
        assert_eq!(row("material sorts"), Some(v.material_sorts().unwrap().len() as u64));
        assert_eq!(row("mesh indices"), Some(v.mesh_indices().unwrap().len() as u64));
        assert_eq!(row("entities"), Some(bsp.entities().unwrap().len() as u64));
        for p in respawn::entity_partitions(&bsp).unwrap() {
            assert_eq!(row(&format!("entities {}.ent", p.kind)), Some(p.entities().unwrap().len() as u64));
        }
        let kinds: u64 =
            ["vertices lit flat", "vertices lit bump", "vertices unlit", "vertices unlit TS"].iter().filter_map(|k| row(k)).sum();
        assert!(kinds > 0, "{}", m.path.display());
    }
    assert!(meshes_seen >= 180, "{meshes_seen} meshes");
}

/// Titanfall (sprp v12) and Apex (sprp = map version) static props read through the view, the
/// level info's prop count is checked against them, and the contents table lists each game's
/// own lumps.
#[test]
fn respawn_static_props_and_contents_per_game() {
    use bspkit::lumps::gamelump::{self, OffsetBase};
    use respawn::sprp::build as sprp;
    use respawn::*;
    use zerocopy::{FromZeros, IntoBytes};
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let prop = <StaticPropR1>::new_zeroed();
    let child = sprp(RespawnPropLayout::R1, &["models/a.mdl"], &[0], &[prop.as_bytes().to_vec(), prop.as_bytes().to_vec()], None);
    let game_lump = gamelump::build(&[(gamelump::ID_STATIC_PROPS, 0, 12, child)], OffsetBase::Relative, 0, bspkit::Endian::Little);
    let mut info = <LevelInfoR1>::new_zeroed();
    info.num_static_props.set(3);
    let bytes = BspBuilder::new(&TITANFALL)
        .version(29)
        .lump(LUMP_ENTITIES, ents.clone())
        .lump(LUMP_GAME_LUMP, game_lump)
        .lump(LUMP_LEVEL_INFO, info.as_bytes().to_vec())
        .build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let sp = View::<Titanfall>::new(&bsp).unwrap().static_props().unwrap().unwrap();
    assert_eq!((sp.version, sp.layout, sp.count, sp.leaves.len()), (12, RespawnPropLayout::R1, 2, 1));
    assert_eq!(sp.props()[1].model_name.as_deref(), Some("models/a.mdl"));
    let problems: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems, vec!["123 (LEVEL_INFO): 3 static props, the sprp game lump holds 2".to_string()]);
    let rows = bspkit::stats::stats(&bsp);
    let row = |name: &str| rows.iter().find(|s| s.name == name).map(|s| s.count);
    assert_eq!(row("static props"), Some(Some(2)));
    assert!(row("brushes").is_some() && row("bvh nodes").is_none());

    let prop = <StaticPropR2>::new_zeroed();
    let child = sprp(RespawnPropLayout::R2, &[], &[], &[prop.as_bytes().to_vec()], Some(&[]));
    let game_lump = gamelump::build(&[(gamelump::ID_STATIC_PROPS, 0, 50, child)], OffsetBase::Relative, 0, bspkit::Endian::Little);
    let bytes = BspBuilder::new(&APEX).version(50).lump(LUMP_ENTITIES, ents).lump(LUMP_GAME_LUMP, game_lump).build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let sp = View::<Apex>::new(&bsp).unwrap().static_props().unwrap().unwrap();
    assert_eq!((sp.layout, sp.count), (RespawnPropLayout::R2, 1));
    // The prop's model 0 is not in the empty dictionary.
    let problems: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems, vec!["35 (GAME_LUMP)[0]: sprp model 0 is outside sprp model names (count 0)".to_string()]);
    let rows = bspkit::stats::stats(&bsp);
    assert!(rows.iter().any(|s| s.name == "bvh nodes") && !rows.iter().any(|s| s.name == "brushes"));
    assert!(rows.iter().any(|s| s.name == "surface names"));
}
