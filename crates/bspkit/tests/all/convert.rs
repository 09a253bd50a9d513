//! `bspkit::convert`: Source console ↔ PC on the corpus (the Xbox 360 map against its PC
//! build's vbspinfo, round trips byte for byte, every PC map to the console form and back) and
//! on builder maps (no corpus needed).

use crate::common;

use bspkit::branches::source;
use bspkit::build::BspBuilder;
use bspkit::convert::{self, ConvertOptions, Lzma};
use bspkit::lumps::gamelump;
use bspkit::{Bsp, Endian, ErrorKind};

fn opts(bsp: &Bsp, endian: Endian, lzma: Lzma) -> ConvertOptions {
    ConvertOptions { to: bsp.branch(), endian: Some(endian), lzma, static_props: None }
}

/// Convert (checked: reopens as the branch, no new `check` problem) and return the bytes.
fn conv(data: &[u8], endian: Endian, lzma: Lzma) -> (Vec<u8>, convert::Report) {
    let bsp = Bsp::from_bytes(data).unwrap();
    let c = convert::prepare(&bsp, &opts(&bsp, endian, lzma), false).unwrap();
    (c.bytes, c.report)
}

/// Every lump's decompressed bytes, the game lump as its children's decompressed bytes.
fn contents(data: &[u8]) -> Vec<(usize, Option<u32>, Vec<Vec<u8>>)> {
    let bsp = Bsp::from_bytes(data).unwrap();
    bsp.lumps()
        .iter()
        .map(|e| {
            let parts = if e.index == gamelump::LUMP_GAME_LUMP && e.length > 0 {
                let raw = bsp.raw_lump(e.index).unwrap();
                let place = gamelump::LumpPlace { file_offset: e.offset, from_lmp: false };
                let dir = gamelump::parse_directory(raw, place, bsp.endian()).unwrap();
                dir.entries.iter().filter(|c| !c.is_dummy()).map(|c| gamelump::child_bytes(raw, c, 1 << 30).unwrap().into_owned()).collect()
            } else {
                vec![bsp.lump(e.index).unwrap().to_vec()]
            };
            (e.index, e.version, parts)
        })
        .collect()
}

/// Record counts of every record lump (the same map in either byte order has the same).
fn counts(data: &[u8]) -> Vec<(usize, Option<usize>)> {
    let bsp = Bsp::from_bytes(data).unwrap();
    bsp.lumps().iter().map(|e| (e.index, bsp.record_size(e.index).map(|s| bsp.record_count(e.index, s).unwrap()))).collect()
}

fn x360(corpus: &std::path::Path) -> std::path::PathBuf {
    let maps = common::maps_in(corpus, "source_x360");
    assert_eq!(maps.len(), 1, "the corpus has one console map");
    maps[0].path.clone()
}

/// Rows of a vbspinfo table: (name, objects or None for [variable], memory, maxmem).
fn vbspinfo_rows(text: &str) -> Vec<(String, Option<u64>, u64, u64)> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let Some(p) = line.find('(') else { continue };
        let toks: Vec<&str> = line[..p].split_whitespace().collect();
        if toks.len() < 3 || !toks[toks.len() - 1].contains('/') {
            continue;
        }
        let mem: Vec<&str> = toks[toks.len() - 1].split('/').collect();
        let (Ok(m), Ok(mm)) = (mem[0].parse::<u64>(), mem[1].parse::<u64>()) else { continue };
        let obj = toks[toks.len() - 2];
        let count = if obj == "[variable]" { None } else { obj.split('/').next().and_then(|c| c.parse().ok()) };
        rows.push((toks[..toks.len() - 2].join(" "), count, m, mm));
    }
    rows
}

/// Rows of lumps the console build left empty (LDR lighting, original faces, displacement
/// lightmap sample positions: open_questions.md A15) and the pakfile (the console build holds
/// `.360` files in its place): a conversion cannot bring them back, so they are compared with
/// the console map's own (empty) rows instead.
const CONSOLE_BUILD_ROWS: [&str; 8] =
    ["disp_lmsamples", "faces", "origfaces", "LDR worldlights", "LDR lightdata", "LDR ambient table", "LDR leaf ambient", "pakfile"];

#[test]
fn console_map_to_pc_matches_the_pc_builds_vbspinfo() {
    let Some(corpus) = common::corpus("console_map_to_pc_matches_the_pc_builds_vbspinfo") else { return };
    let path = x360(&corpus);
    let data = std::fs::read(&path).unwrap();
    let text = common::info_txt(&path).expect("the PC build's vbspinfo output beside the console map");
    let (pc, report) = conv(&data, Endian::Little, Lzma::Auto);
    assert_eq!(&pc[..4], b"VBSP");
    let out = Bsp::from_bytes(&pc).unwrap();
    assert_eq!((out.endian(), out.branch().id), (Endian::Little, "source"));
    assert!(out.lumps().iter().all(|e| !e.compressed), "the PC form is stored plain");
    // Only the pakfile's console content is reported: every lump (physics included) converts.
    assert_eq!(report.losses.len(), 1, "{:#?}", report.losses);
    assert_eq!(report.losses[0].lump.as_deref(), Some("PAKFILE"));
    let console_stats = bspkit::stats::stats(&Bsp::from_bytes(&data).unwrap());
    let stats = bspkit::stats::stats(&out);
    let rows = vbspinfo_rows(&text);
    assert!(rows.len() >= 40);
    let mut equal = 0;
    for (name, count, mem, maxmem) in &rows {
        let s = stats.iter().find(|s| &s.name == name).unwrap_or_else(|| panic!("row {name}"));
        if CONSOLE_BUILD_ROWS.contains(&name.as_str()) {
            let c = console_stats.iter().find(|s| &s.name == name).unwrap();
            assert_eq!((s.count, s.bytes), (c.count, c.bytes), "{name}: as in the console map");
            assert_ne!((s.count, s.bytes), (*count, *mem), "{name}: the console build changed this row");
            continue;
        }
        assert_eq!((s.count, s.bytes, s.max_bytes), (*count, *mem, Some(*maxmem)), "{name}");
        equal += 1;
    }
    // Every other row, physics (70919 bytes: the console's key-data padding removed) included.
    assert_eq!(equal, rows.len() - CONSOLE_BUILD_ROWS.len());
    assert!(stats.iter().any(|s| s.name == "physics" && s.bytes == 70919));
    let tri = |st: &[bspkit::stats::Stat]| st.iter().find(|s| s.name == "Total triangle count").and_then(|s| s.count);
    assert_eq!(tri(&stats), Some(2625));
}

#[test]
fn console_pc_console_round_trips() {
    let Some(corpus) = common::corpus("console_pc_console_round_trips") else { return };
    let data = std::fs::read(x360(&corpus)).unwrap();
    let (pc, _) = conv(&data, Endian::Little, Lzma::Auto);
    // Back to the console with its compression: every lump and game lump child decodes to the
    // original's bytes, with the same lump versions. (The LZMA streams themselves differ:
    // bspkit's encoder is liblzma, not Valve's; a lump liblzma does not make smaller, the
    // 48-byte model lump, stays plain.)
    let (back, report) = conv(&pc, Endian::Big, Lzma::On);
    assert!(report.lossless, "{:#?}", report.losses);
    assert_eq!(&back[..4], b"PSBV");
    assert_eq!(contents(&back), contents(&data));
    let compressed = |d: &[u8]| Bsp::from_bytes(d).unwrap().lumps().iter().map(|e| e.compressed).collect::<Vec<_>>();
    let (b, d) = (compressed(&back), compressed(&data));
    assert!(b.iter().zip(&d).all(|(b, d)| !b || *d), "a lump the console build stored plain was compressed");
    assert!(b.iter().filter(|&&c| c).count() + 1 >= d.iter().filter(|&&c| c).count());
    assert_eq!(back.len() % 2048, 0, "console files end on a 2048-byte boundary");
    // bspkit's console and PC forms are each other's inverse, byte for byte, in every LZMA mode.
    for lzma in [Lzma::Off, Lzma::Keep, Lzma::On] {
        let (c1, _) = conv(&pc, Endian::Big, lzma);
        let (p1, _) = conv(&c1, Endian::Little, Lzma::Auto);
        assert_eq!(p1, pc, "{lzma:?}: PC -> console -> PC");
        let (c2, _) = conv(&p1, Endian::Big, lzma);
        assert_eq!(c2, c1, "{lzma:?}: console -> PC -> console");
        assert_eq!(counts(&c1), counts(&pc));
    }
}

/// Where a little-endian Source map's last lump ends (source.md §3: 64 × `lump_t` after the
/// magic and version).
fn lumps_end(data: &[u8]) -> usize {
    (0..64)
        .map(|i| {
            let at = 8 + 16 * i;
            let word = |k: usize| u32::from_le_bytes(data[at + k..at + k + 4].try_into().unwrap()) as usize;
            word(0) + word(4)
        })
        .max()
        .unwrap_or(0)
        .max(8 + 64 * 16 + 4)
}

#[test]
fn pc_corpus_maps_convert_to_console_and_back() {
    let Some(corpus) = common::corpus("pc_corpus_maps_convert_to_console_and_back") else { return };
    let maps = common::maps_in(&corpus, "source");
    assert!(maps.len() >= 10);
    let (mut identical, mut lossy) = (0, 0);
    for m in &maps {
        let data = std::fs::read(&m.path).unwrap();
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        let (console, report) = conv(&data, Endian::Big, Lzma::Auto);
        assert_eq!(&console[..4], b"PSBV", "{name}");
        let (pc, back_report) = conv(&console, Endian::Little, Lzma::Auto);
        // Same record counts both ways, except in lumps reported as dropped.
        let dropped: Vec<usize> = report.losses.iter().filter(|l| l.kind == "dropped").filter_map(|l| l.index).collect();
        let keep = |c: Vec<(usize, Option<usize>)>| c.into_iter().filter(|(i, _)| !dropped.contains(i)).collect::<Vec<_>>();
        assert_eq!(keep(counts(&console)), keep(counts(&data)), "{name}");
        assert_eq!(counts(&pc), counts(&console), "{name}");
        assert!(back_report.losses.iter().all(|l| l.kind != "dropped"), "{name}: {:#?}", back_report.losses);
        if dropped.is_empty() {
            // Zero bytes after the last lump (dotatesting has 14) cannot come back: the console
            // form pads its file to its own alignment, so the PC form written from it ends at
            // its last lump. Everything up to there must be the original's, byte for byte.
            let end = if pc.len() == data.len() { data.len() } else { lumps_end(&data) };
            assert!(data[end..].iter().all(|&b| b == 0), "{name}: bytes after the last lump are not padding");
            assert_eq!(pc, data[..end], "{name}: PC -> console -> PC is byte-identical");
            identical += 1;
        } else {
            lossy += 1;
        }
    }
    eprintln!("{identical} PC maps byte-identical after the console form, {lossy} with dropped lumps");
    // Dropped (no known layout to swap): CS:GO's FACE_BRUSH_LIST, Strata's version 0x101
    // collision data. Dota 2's DISP_INFO and DISP_MULTIBLEND are swapped where the map proves
    // its dispinfo records (dotatesting does).
    assert!(identical >= 7, "{identical}");
}

#[test]
fn strict_refuses_a_lossy_conversion_and_writes_nothing() {
    let Some(corpus) = common::corpus("strict_refuses_a_lossy_conversion_and_writes_nothing") else { return };
    let path = x360(&corpus);
    let bsp = Bsp::open(&path).unwrap();
    let dir = common::scratch("convert");
    let target = dir.join("out.bsp");
    let err = convert::write(&bsp, &opts(&bsp, Endian::Little, Lzma::Auto), &target, true).unwrap_err();
    assert!(matches!(&err.kind, ErrorKind::Lossy(l) if l.len() == 1), "{err}");
    assert!(!target.exists());
    let report = convert::write(&bsp, &opts(&bsp, Endian::Little, Lzma::Auto), &target, false).unwrap();
    assert!(!report.lossless);
    assert!(Bsp::open(&target).is_ok());
}

/// A small big-endian map from the builder: planes, leaves (area:9/flags:7 bitfield),
/// visibility, an LZMA lump and a game lump with static props, converted both ways.
#[test]
fn builder_console_map_converts_both_ways() {
    let e = Endian::Big;
    let be32 = |v: &[u32]| v.iter().flat_map(|x| x.to_be_bytes()).collect::<Vec<u8>>();
    let planes: Vec<u8> = [1f32, 0., 0., 64.].iter().flat_map(|f| f.to_bits().to_be_bytes()).chain(0u32.to_be_bytes()).collect();
    // One leaf: contents 1, cluster 0, area 1 | flags 1 << 9.
    let mut leaf = Vec::new();
    leaf.extend(1i32.to_be_bytes());
    leaf.extend(0i16.to_be_bytes());
    leaf.extend((1u16 | 1 << 9).to_be_bytes());
    leaf.resize(32, 0);
    // Visibility: one cluster, offsets 12 and 13, one byte each.
    let mut vis = be32(&[1, 12, 13]);
    vis.extend([1, 1]);
    let brushes = be32(&[0, 0, 1]);
    let packed = bspkit::compression::compress_valve_lzma(&brushes, 6).unwrap();
    // Static props v6: no names, no leaves, no props.
    let sprp = be32(&[0, 0, 0]);
    let game = gamelump::build(&[(u32::from_be_bytes(*b"sprp"), 0, 6, sprp)], gamelump::OffsetBase::Relative, 0, e);
    let file = BspBuilder::new(&source::SOURCE)
        .endian(e)
        .lump(source::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(source::LUMP_PLANES, planes.clone())
        .lump(source::LUMP_VISIBILITY, vis)
        .lump_v(source::LUMP_LEAVES, leaf, 1)
        .lump(source::LUMP_BRUSHES, packed)
        .lump(35, game)
        .build();
    let (pc, report) = conv(&file, Endian::Little, Lzma::Auto);
    assert!(report.lossless, "{:#?}", report.losses);
    let bsp = Bsp::from_bytes(&pc).unwrap();
    assert_eq!(bsp.endian(), Endian::Little);
    let leaves: &[source::records::Leaf<zerocopy::LittleEndian>] = bsp.records(source::LUMP_LEAVES).unwrap();
    assert_eq!((leaves[0].area(), leaves[0].flags()), (1, 1));
    let planes_le: &[source::records::Plane<zerocopy::LittleEndian>] = bsp.records(source::LUMP_PLANES).unwrap();
    assert_eq!(planes_le[0].dist.get(), 64.0);
    assert_eq!(&bsp.lump(source::LUMP_VISIBILITY).unwrap()[..12], &[1, 0, 0, 0, 12, 0, 0, 0, 13, 0, 0, 0]);
    assert_eq!(bsp.lump(source::LUMP_BRUSHES).unwrap(), &[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    assert!(!bsp.entry(source::LUMP_BRUSHES).unwrap().compressed);
    // The PC game lump's offsets are absolute.
    let g = bsp.entry(35).unwrap();
    let dir = gamelump::parse_directory(
        bsp.raw_lump(35).unwrap(),
        gamelump::LumpPlace { file_offset: g.offset, from_lmp: false },
        Endian::Little,
    )
    .unwrap();
    assert_eq!(dir.base, gamelump::OffsetBase::Absolute);
    // And back: the same lumps, the brushes compressed again.
    let (console, _) = conv(&pc, Endian::Big, Lzma::Keep);
    assert_eq!(contents(&console)[..35], contents(&file)[..35]);
    let (pc2, _) = conv(&console, Endian::Little, Lzma::Auto);
    assert_eq!(pc2, pc);
}

#[test]
fn unsupported_pairs_are_refused() {
    let bytes = bspkit::build::sample_quake1();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let to = bspkit::branches::by_id("quake2").unwrap();
    let err = convert::convert(&bsp, &ConvertOptions { to, endian: None, lzma: Lzma::Auto, static_props: None }).unwrap_err();
    assert!(
        matches!(&err.kind, ErrorKind::Unsupported(m) if m.contains("quake1") && m.contains("quake2") && m.contains("different families")),
        "{err}"
    );
    // Within a family, the message names the covered set and what differs between the tables.
    let to = bspkit::branches::by_id("quake64").unwrap();
    let err = convert::convert(&bsp, &ConvertOptions { to, endian: None, lzma: Lzma::Auto, static_props: None }).unwrap_err();
    assert!(
        matches!(&err.kind, ErrorKind::Unsupported(m) if m.contains("among quake1, hexen2, bsp2, 2psb only") && m.contains("quake64")),
        "{err}"
    );
    let err = convert::convert(&bsp, &ConvertOptions { to: bsp.branch(), endian: Some(Endian::Big), lzma: Lzma::Auto, static_props: None })
        .unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Unsupported(_)), "{err}");
}

/// Every Quake 1 corpus map to each sibling container and back: byte-identical, the output
/// checks clean and has the same record counts as the source.
#[test]
fn quake1_containers_convert_among_themselves() {
    let Some(corpus) = common::corpus("quake1_containers_convert_among_themselves") else { return };
    let maps = common::maps_in(&corpus, "quake1");
    assert!(maps.len() >= 10);
    let mut pairs = 0;
    for m in &maps {
        let data = std::fs::read(&m.path).unwrap();
        let bsp = Bsp::from_bytes(&data).unwrap();
        let from = bsp.branch();
        for id in convert::quake1::BRANCHES {
            if id == from.id {
                continue;
            }
            let to = bspkit::branches::by_id(id).unwrap();
            let name = format!("{} {} -> {id}", m.path.file_name().unwrap().to_string_lossy(), from.id);
            let c = convert::prepare(&bsp, &ConvertOptions { to, endian: None, lzma: Lzma::Auto, static_props: None }, true)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(c.report.lossless, "{name}");
            let out = Bsp::from_bytes(&c.bytes).unwrap();
            assert_eq!(out.branch().id, id, "{name}");
            assert_eq!(counts(&c.bytes), counts(&data), "{name}");
            let back =
                convert::prepare(&out, &ConvertOptions { to: from, endian: None, lzma: Lzma::Auto, static_props: None }, true).unwrap();
            assert_eq!(back.bytes, data, "{name}: and back, byte-identical");
            pairs += 1;
        }
    }
    assert_eq!(pairs, 2 * maps.len());
}

/// BSP2 values that do not fit BSP29's 16-bit fields are refused before anything is written;
/// BSP2 float bounds that are not whole numbers are rounded outwards and reported.
#[test]
fn quake1_limits_are_checked_first() {
    use bspkit::branches::quake1;
    let bsp2 = bspkit::branches::by_id("bsp2").unwrap();
    let q1 = bspkit::branches::by_id("quake1").unwrap();
    // One BSP2 edge with vertex 70000: too big for BSP29's u16.
    let edges: Vec<u8> = [0u32, 70000].iter().flat_map(|v| v.to_le_bytes()).collect();
    let file = BspBuilder::new(bsp2)
        .lump(quake1::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(quake1::LUMP_EDGES, edges)
        .build();
    let bsp = Bsp::from_bytes(&file).unwrap();
    let err = convert::convert(&bsp, &ConvertOptions { to: q1, endian: None, lzma: Lzma::Auto, static_props: None }).unwrap_err();
    assert!(matches!(&err.kind, ErrorKind::Unsupported(m) if m.contains("EDGES[0].v[1] = 70000")), "{err}");
    // A BSP2 leaf with bounds -0.5 .. 10.25: BSP29 gets -1 .. 11 and a report entry.
    let mut leaf = Vec::new();
    leaf.extend((-1i32).to_le_bytes());
    leaf.extend((-1i32).to_le_bytes());
    for f in [-0.5f32, 0., 0., 10.25, 1., 1.] {
        leaf.extend(f.to_le_bytes());
    }
    leaf.extend([0u8; 12]);
    let file = BspBuilder::new(bsp2)
        .lump(quake1::LUMP_ENTITIES, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(quake1::LUMP_LEAVES, leaf)
        .build();
    let bsp = Bsp::from_bytes(&file).unwrap();
    let c = convert::convert(&bsp, &ConvertOptions { to: q1, endian: None, lzma: Lzma::Auto, static_props: None }).unwrap();
    assert_eq!(c.report.losses.len(), 1);
    assert_eq!(c.report.losses[0].kind, "truncated");
    let out = Bsp::from_bytes(&c.bytes).unwrap();
    let leaves = out.lump(quake1::LUMP_LEAVES).unwrap();
    let short = |i: usize| i16::from_le_bytes([leaves[8 + 2 * i], leaves[9 + 2 * i]]);
    assert_eq!((0..6).map(short).collect::<Vec<_>>(), vec![-1, 0, 0, 11, 1, 1]);
    assert!(convert::refuse_lossy(&c.report, true).is_err());
}

/// Portal 2 on Xbox 360 (`PSBV` 21) ↔ PC goes the Source route (console ↔ PC within one
/// branch). The corpus has no Portal 2 map, so the CS:GO map with its static props moved to
/// version 9 stands in (standard `lump_t` order, props v9, no `asw_*` classes: detected as
/// Portal 2). Its console form is detected as `portal2` big-endian from the bytes, checks with
/// no error, draws the same triangles, and comes back with every lump but the one the swap
/// reports dropped (CS:GO's `PROP_HULLS` slot, no known layout) decoding to the same bytes.
#[test]
fn portal2_console_and_pc() {
    let Some(corpus) = common::corpus("portal2_console_and_pc") else { return };
    let m = common::maps_in(&corpus, "source").into_iter().find(|m| m.path.to_string_lossy().contains("csgo")).expect("the CS:GO map");
    let csgo = Bsp::open(&m.path).unwrap();
    let to_v9 = ConvertOptions { to: csgo.branch(), endian: None, lzma: Lzma::Auto, static_props: Some(9) };
    let p2 = convert::prepare(&csgo, &to_v9, false).unwrap().bytes;
    let pc = Bsp::from_bytes(&p2).unwrap();
    assert_eq!((pc.branch().id, pc.endian()), ("portal2", Endian::Little));
    let (console, report) = conv(&p2, Endian::Big, Lzma::Auto);
    let x = Bsp::from_bytes(&console).unwrap();
    assert_eq!((&console[..4], x.branch().id, x.endian(), x.header().version), (&b"PSBV"[..], "portal2", Endian::Big, 21));
    let errors = |b: &Bsp| bspkit::check::check(b).iter().filter(|p| p.severity == bspkit::check::Severity::Error).count();
    assert_eq!((errors(&x), errors(&pc)), (0, 0));
    let tris = |b: &Bsp| bspkit::mesh::build(b, &Default::default()).unwrap().models.iter().map(|m| m.indices.len() / 3).sum::<usize>();
    assert!(tris(&x) > 0 && tris(&x) == tris(&pc), "{} / {}", tris(&x), tris(&pc));
    let dropped: Vec<usize> = report.losses.iter().filter(|l| l.kind == "dropped").filter_map(|l| l.index).collect();
    assert!(report.losses.iter().all(|l| l.kind != "dropped" || l.lump.as_deref() == Some("PROP_HULLS")), "{:#?}", report.losses);
    let (back, back_report) = conv(&console, Endian::Little, Lzma::Auto);
    assert!(back_report.losses.is_empty(), "{:#?}", back_report.losses);
    assert_eq!(Bsp::from_bytes(&back).unwrap().branch().id, "portal2");
    let keep = |c: Vec<(usize, Option<u32>, Vec<Vec<u8>>)>| c.into_iter().filter(|(i, ..)| !dropped.contains(i)).collect::<Vec<_>>();
    assert!(keep(contents(&back)) == keep(contents(&p2)), "a lump decodes differently after the console form");
    if dropped.is_empty() {
        assert_eq!(back, p2);
    }
    eprintln!("portal2 stand-in: {} triangles, dropped {dropped:?}, {} bytes as PSBV", tris(&x), console.len());
}
