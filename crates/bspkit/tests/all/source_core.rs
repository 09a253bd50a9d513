//! Source core: every corpus Source map opens, gets the right branch, decodes every typed
//! lump and checks clean; vbspinfo parity against the `.info.txt` ground truth (parsed here);
//! a builder-made big-endian map with an LZMA lump round-trips.

use crate::common;

use bspkit::branches::source::{self, View};
use bspkit::build::BspBuilder;
use bspkit::{Bsp, Endian, Family};
use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

fn source_maps() -> Option<Vec<common::CorpusMap>> {
    let corpus = common::corpus("source_core")?;
    let mut maps = common::maps_in(&corpus, "source");
    maps.extend(common::maps_in(&corpus, "source_x360"));
    assert!(maps.len() >= 11, "expected the Source corpus, found {}", maps.len());
    Some(maps)
}

/// Decode every typed lump through the view; returns how many records were seen.
fn decode_all<O: ByteOrder>(bsp: &Bsp) -> usize {
    let v = View::<O>::new(bsp).unwrap();
    let mut n = v.planes().unwrap().len() + v.vertices().unwrap().len() + v.edges().unwrap().len();
    n += v.surfedges().unwrap().len() + v.faces().unwrap().len() + v.faces_hdr().unwrap().len();
    n += v.original_faces().unwrap().len() + v.brushes().unwrap().len() + v.brush_sides().unwrap().len();
    n += v.nodes().unwrap().len() + v.leaves().unwrap().len() + v.leaf_faces().unwrap().len();
    n += v.leaf_brushes().unwrap().len() + v.texinfo().unwrap().len() + v.texdata().unwrap().len();
    n += v.string_table().unwrap().len() + v.models().unwrap().len() + v.disp_infos().unwrap().len();
    n += v.disp_verts().unwrap().len() + v.disp_tris().unwrap().len() + v.cubemaps().unwrap().len();
    n += v.overlays().unwrap().len() + v.overlay_fades().unwrap().len();
    for hdr in [false, true] {
        n += v.world_lights(hdr).unwrap().len() + v.leaf_ambient_index(hdr).unwrap().len();
        n += v.leaf_ambient_lighting(hdr).unwrap().len() + v.lighting(hdr).unwrap().len();
    }
    let occ = v.occlusion().unwrap();
    n += occ.occluder_count() + occ.polys.len() + occ.vertex_indices.len();
    let phys = v.phys_models().unwrap();
    for m in &phys {
        assert!(
            m.keydata.windows(5).any(|w| w == b"solid") || m.keydata.is_empty(),
            "{:?}",
            String::from_utf8_lossy(&m.keydata[..m.keydata.len().min(20)])
        );
    }
    n += phys.len() + v.face_ids().unwrap().len() + v.primitives().unwrap().len();
    n += v.prim_verts().unwrap().len() + v.prim_indices().unwrap().len() + v.leaf_water_data().unwrap().len();
    n += v.leaf_min_dist_to_water().unwrap().len() + v.area_portals().unwrap().len() + v.areas().unwrap().len();
    n += v.clip_portal_verts().unwrap().len() + v.vert_normals().unwrap().len() + v.vert_normal_indices().unwrap().len();
    v.map_flags().unwrap();
    // Visibility: every cluster's PVS and PAS row decodes; a cluster sees itself (A17).
    let vis = v.visibility().unwrap();
    let mut row = Vec::new();
    for c in 0..vis.num_clusters {
        let mut pas = Vec::new();
        vis.row(c, bspkit::lumps::visibility::VisKind::Pas, &mut pas).unwrap();
        vis.row(c, bspkit::lumps::visibility::VisKind::Pvs, &mut row).unwrap();
        assert!(bspkit::lumps::visibility::bit(&row, c), "cluster {c} does not see itself");
        // PAS ⊇ PVS (A17).
        assert!(row.iter().zip(&pas).all(|(v, a)| v & !a == 0), "cluster {c}: PVS not inside PAS");
    }
    // Lit maps: every face with a lightmap has its samples and averages in the lump.
    for hdr in [false, true] {
        if v.lighting(hdr).unwrap().is_empty() {
            continue;
        }
        let faces = v.lit_faces(hdr).unwrap();
        for i in 0..faces.len() {
            let f = faces.get(i).unwrap();
            if f.lightofs >= 0 && f.num_styles > 0 {
                let s = v.face_lightmap(i, hdr).unwrap().unwrap_or_else(|| panic!("face {i} lightmap (hdr {hdr})"));
                n += s.len();
                assert!(s.len() as i64 >= f.luxels * f.num_styles as i64);
                assert_eq!(v.face_average_colors(i, hdr).unwrap().map(|a| a.len()), Some(f.num_styles));
            }
        }
    }
    // Every drawn face with a texinfo names a material.
    let faces = v.faces().unwrap();
    for i in 0..faces.len() {
        if faces.get(i).unwrap().texinfo >= 0 {
            assert!(v.face_material(i).unwrap().is_some_and(|m| !m.is_empty()), "face {i} has no material");
        }
    }
    n
}

#[test]
fn corpus_maps_detect_decode_and_check_clean() {
    let Some(maps) = source_maps() else { return };
    for m in &maps {
        let bsp = Bsp::open(&m.path).unwrap();
        assert_eq!(bsp.family(), Family::Source);
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        let expected = match name.as_str() {
            n if n.contains("csgo") => Some("csgo"),
            n if n.contains("l4d2") => Some("l4d2"),
            n if n.contains("momentum") => Some("strata"),
            n if n.contains("dotatesting") => Some("dota2"),
            n if n.contains("rot_main") => Some("desolation"),
            n if n.contains("tf2") || n.contains("gmod") || n.contains("shack") => Some("source"),
            _ => None,
        };
        assert_eq!(Some(bsp.branch().id), expected, "{name}");
        let n = match bsp.endian() {
            Endian::Little => decode_all::<LittleEndian>(&bsp),
            Endian::Big => decode_all::<BigEndian>(&bsp),
        };
        assert!(n > 100, "{name}: only {n} records decoded");
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{name}: {problems:?}");
        assert!(source::map_checksum(&bsp).unwrap().is_some());
    }
}

/// One parsed row of vbspinfo's table: name, Objects (None = `[variable]`), Memory, Maxmem.
type Row = (String, Option<u64>, u64, u64);

/// vbspinfo's rows, its "Level flags" and its "Total triangle count".
fn parse_info(text: &str) -> (Vec<Row>, Option<u32>, Option<u64>) {
    let mut rows = Vec::new();
    let (mut flags, mut tris) = (None, None);
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("Level flags = ") {
            flags = u32::from_str_radix(v.trim(), 16).ok();
            continue;
        }
        if let Some(v) = line.strip_prefix("Total triangle count: ") {
            tris = v.trim().trim_end_matches('-').parse().ok();
            continue;
        }
        // "name   objects/max   memory/maxmem  ( x.x%)"; names may contain spaces.
        let Some(paren) = line.find("( ").or_else(|| line.find('(')) else { continue };
        let head = &line[..paren];
        let toks: Vec<&str> = head.split_whitespace().collect();
        if toks.len() < 3 || !toks[toks.len() - 1].contains('/') {
            continue;
        }
        let mem: Vec<&str> = toks[toks.len() - 1].split('/').collect();
        let obj = toks[toks.len() - 2];
        let name = toks[..toks.len() - 2].join(" ");
        let (Ok(m), Ok(mm)) = (mem[0].parse::<u64>(), mem[1].parse::<u64>()) else { continue };
        let count = if obj == "[variable]" { None } else { obj.split('/').next().and_then(|c| c.parse().ok()) };
        rows.push((name, count, m, mm));
    }
    (rows, flags, tris)
}

#[test]
fn vbspinfo_rows_match_ground_truth() {
    let Some(maps) = source_maps() else { return };
    let mut checked = 0;
    for m in &maps {
        let Some(text) = common::info_txt(&m.path) else { continue };
        let bsp = Bsp::open(&m.path).unwrap();
        let stats = bspkit::stats::stats(&bsp);
        let (rows, flags, tris) = parse_info(&text);
        assert!(rows.len() >= 40, "{}: parsed {} rows", m.path.display(), rows.len());
        // The X360 map's .info.txt was made from the PC build of the same map (its header
        // reads a 1122360-byte file): the X360 conversion drops the LDR lumps and repacks
        // some others, so only rows whose lump the X360 file keeps are compared, by count.
        let x360 = m.folder == "source_x360";
        let names: Vec<&str> = stats.iter().map(|s| s.name.as_str()).collect();
        let truth: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names[..names.len() - 2], truth[..], "{}: row names/order", m.path.display());
        for (name, count, mem, maxmem) in &rows {
            let s = stats.iter().find(|s| &s.name == name).unwrap();
            if x360 {
                if let (Some(c), Some(sc)) = (count, s.count) {
                    if sc > 0 {
                        assert_eq!(sc, *c, "{}: {name} objects", m.path.display());
                    }
                }
                continue;
            }
            assert_eq!(s.count, *count, "{}: {name} objects", m.path.display());
            assert_eq!(s.bytes, *mem, "{}: {name} memory", m.path.display());
            assert_eq!(s.max_bytes, Some(*maxmem), "{}: {name} maxmem", m.path.display());
            checked += 1;
        }
        let flag_row = stats.iter().find(|s| s.name == "Level flags").and_then(|s| s.count);
        assert_eq!(flag_row.map(|f| f as u32), flags, "{}: level flags", m.path.display());
        assert_eq!(source::level_flags(&bsp).unwrap(), flags);
        let tri_row = stats.iter().find(|s| s.name == "Total triangle count").and_then(|s| s.count);
        assert_eq!(tri_row, tris, "{}: triangle count", m.path.display());
        assert_eq!(source::triangle_count(&bsp).unwrap(), tris.unwrap());
    }
    assert!(checked >= 5 * 40, "only {checked} rows compared");
}

#[test]
fn big_endian_map_with_lzma_lump_round_trips() {
    use zerocopy::IntoBytes;
    let e = Endian::Big;
    // Two planes and three brushes, big-endian; the brushes LZMA-compressed.
    let mut planes = Vec::new();
    for (n, d) in [([1f32, 0., 0.], 64f32), ([0., 0., 1.], -8.)] {
        for x in n {
            planes.extend_from_slice(&x.to_bits().to_be_bytes());
        }
        planes.extend_from_slice(&d.to_bits().to_be_bytes());
        planes.extend_from_slice(&0i32.to_be_bytes());
    }
    let brushes: Vec<u8> = (0..3i32).flat_map(|i| [i * 6, 6, 1]).flat_map(|v| v.to_be_bytes()).collect();
    let packed = bspkit::compression::compress_valve_lzma(&brushes, 6).unwrap();
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let file = BspBuilder::new(&source::SOURCE)
        .endian(e)
        .lump(source::LUMP_ENTITIES, ents)
        .lump(source::LUMP_PLANES, planes)
        .lump(source::LUMP_BRUSHES, packed)
        .build();
    assert_eq!(&file[..4], b"PSBV");
    let bsp = Bsp::from_bytes(&file).unwrap();
    assert_eq!((bsp.endian(), bsp.branch().id), (Endian::Big, "source"));
    assert!(bsp.entry(source::LUMP_BRUSHES).unwrap().compressed);
    let v = View::<BigEndian>::new(&bsp).unwrap();
    assert!(View::<LittleEndian>::new(&bsp).is_err());
    let p = v.planes().unwrap();
    assert_eq!((p.len(), p[0].dist.get(), p[1].normal[2].get()), (2, 64.0, 1.0));
    let b = v.brushes().unwrap();
    assert_eq!(b.len(), 3);
    assert_eq!((b[2].firstside.get(), b[2].numsides.get(), b[2].contents.get()), (12, 6, 1));
    assert_eq!(b.as_bytes(), &brushes[..]);
    // The checksum covers the bytes as stored (compressed), not the decoded ones.
    let stored = bsp.raw_lump(source::LUMP_BRUSHES).unwrap();
    let mut c = source::checksum::Crc32::default();
    c.update(bsp.raw_lump(source::LUMP_PLANES).unwrap());
    c.update(stored);
    assert_eq!(source::map_checksum(&bsp).unwrap(), Some(c.finish()));
    let stats = bspkit::stats::stats(&bsp);
    let brush_row = stats.iter().find(|s| s.name == "brushes").unwrap();
    assert_eq!((brush_row.count, brush_row.bytes), (Some(3), 36));
}

#[test]
fn version_rules_pick_branches() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let make = |branch: &'static bspkit::Branch, version: u32| {
        BspBuilder::new(branch).version(version).lump(0, ents.clone()).lump(1, vec![0u8; 20]).build()
    };
    for (version, id) in [
        (17, "vtmb"),
        (19, "source2004"),
        (20, "source"),
        (23, "dota2"),
        (25, "strata"),
        (27, "contagion"),
        (42, "desolation"),
        (100, "cso2"),
    ] {
        let f = make(&source::SOURCE, version);
        assert_eq!(Bsp::from_bytes(&f).unwrap().branch().id, id, "version {version}");
    }
    // v21: the version-first lump_t only fits as L4D2; the standard order without props is
    // the Alien Swarm branch.
    let f = make(&source::L4D2, 21);
    assert_eq!(Bsp::from_bytes(&f).unwrap().branch().id, "l4d2");
    let f = make(&source::SOURCE, 21);
    assert_eq!(Bsp::from_bytes(&f).unwrap().branch().id, "alienswarm");
    // v22 with entity text in lump 24 is Tactical Intervention.
    let f = BspBuilder::new(&source::SOURCE).version(22).lump(0, ents.clone()).lump(24, ents.clone()).build();
    assert_eq!(Bsp::from_bytes(&f).unwrap().branch().id, "tacint");
    assert!(Bsp::from_bytes(&make(&source::SOURCE, 26)).is_err());
}

/// A game lump directory with one `sprp` entry of this version (source.md §14.1).
fn game_lump_with_sprp(version: u16) -> Vec<u8> {
    let mut g = Vec::new();
    g.extend_from_slice(&1i32.to_le_bytes());
    g.extend_from_slice(&u32::from_be_bytes(*b"sprp").to_le_bytes());
    g.extend_from_slice(&0u16.to_le_bytes());
    g.extend_from_slice(&version.to_le_bytes());
    g.extend_from_slice(&0i32.to_le_bytes());
    g.extend_from_slice(&0i32.to_le_bytes());
    g
}

#[test]
fn static_prop_version_and_ambient_layout_pick_branches() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let with_props = |version: u32, sprp: u16| {
        let f = BspBuilder::new(&source::SOURCE)
            .version(version)
            .lump(0, ents.clone())
            .lump(source::LUMP_GAME_LUMP, game_lump_with_sprp(sprp))
            .build();
        Bsp::from_bytes(&f).unwrap().branch().id
    };
    assert_eq!(with_props(20, 8), "l4d");
    assert_eq!(with_props(20, 10), "source");
    assert_eq!(with_props(21, 11), "csgo");
    assert_eq!(with_props(21, 10), "csgo");
    assert_eq!(with_props(21, 9), "portal2");
    // Source 2006: no ambient index lumps, one 24-byte cube per 32-byte leaf (A28).
    let f = BspBuilder::new(&source::SOURCE)
        .lump(0, ents.clone())
        .lump_v(source::LUMP_LEAVES, vec![0u8; 64], 1)
        .lump(source::LUMP_LEAF_AMBIENT_LIGHTING, vec![0u8; 48])
        .build();
    let bsp = Bsp::from_bytes(&f).unwrap();
    assert_eq!(bsp.branch().id, "source2006");
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    assert!(matches!(v.leaf_ambient_lighting(false).unwrap(), source::view::AmbientLighting::Cubes(c) if c.len() == 2));
    // The same lumps with an index lump are Source 2007.
    let f = BspBuilder::new(&source::SOURCE)
        .lump(0, ents.clone())
        .lump_v(source::LUMP_LEAVES, vec![0u8; 64], 1)
        .lump(source::LUMP_LEAF_AMBIENT_INDEX, vec![0u8; 8])
        .lump_v(source::LUMP_LEAF_AMBIENT_LIGHTING, vec![0u8; 56], 1)
        .build();
    let bsp = Bsp::from_bytes(&f).unwrap();
    assert_eq!(bsp.branch().id, "source");
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    assert!(matches!(v.leaf_ambient_lighting(false).unwrap(), source::view::AmbientLighting::Samples(s) if s.len() == 2));
}

#[test]
fn hostile_lumps_give_problems_not_panics() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let huge = |v: i32| v.to_le_bytes().to_vec();
    let mut occlusion = huge(i32::MAX);
    occlusion.extend(huge(3));
    let mut phys = huge(0);
    phys.extend(huge(100));
    phys.extend(huge(0));
    phys.extend(huge(i32::MAX));
    phys.extend(huge(-5));
    let mut face = vec![0u8; 56];
    face[4..8].copy_from_slice(&i32::MAX.to_le_bytes());
    face[8..10].copy_from_slice(&i16::MAX.to_le_bytes());
    face[10..12].copy_from_slice(&500i16.to_le_bytes());
    let mut node = vec![0u8; 32];
    node[4..8].copy_from_slice(&i32::MIN.to_le_bytes());
    let mut leaf = vec![0u8; 32];
    leaf[4..6].copy_from_slice(&i16::MAX.to_le_bytes());
    leaf[20..22].copy_from_slice(&u16::MAX.to_le_bytes());
    let f = BspBuilder::new(&source::SOURCE)
        .lump(0, ents)
        .lump(source::LUMP_OCCLUSION, occlusion)
        .lump(source::LUMP_PHYS_COLLIDE, phys)
        .lump(source::LUMP_FACES, face)
        .lump(source::LUMP_NODES, node)
        .lump_v(source::LUMP_LEAVES, leaf, 1)
        .lump(source::LUMP_VISIBILITY, huge(i32::MAX))
        .lump(source::LUMP_DISP_INFO, vec![0xffu8; 176])
        .lump(source::LUMP_MODELS, vec![0x7fu8; 48])
        .lump(source::LUMP_GAME_LUMP, huge(i32::MAX))
        .build();
    let bsp = Bsp::from_bytes(&f).unwrap();
    let problems = bspkit::check::check(&bsp);
    let text = format!("{problems:?}");
    for needle in ["OCCLUSION", "PHYS_COLLIDE", "FACES", "NODES", "VISIBILITY", "DISP_INFO", "MODELS"] {
        assert!(text.contains(needle), "no {needle} problem in {text}");
    }
    let stats = bspkit::stats::stats(&bsp);
    assert!(stats.iter().any(|s| s.name == "faces" && s.count == Some(1)));
    assert_eq!(source::triangle_count(&bsp).unwrap(), i16::MAX as u64 - 2);
    // Wrong lump lengths are typed errors from the view, not panics.
    let f = BspBuilder::new(&source::SOURCE).lump(source::LUMP_PLANES, vec![0u8; 21]).build();
    let bsp = Bsp::from_bytes(&f).unwrap();
    assert!(View::<LittleEndian>::new(&bsp).unwrap().planes().is_err());
    assert!(!bspkit::check::check(&bsp).is_empty());
}

#[test]
fn corrupted_corpus_references_are_found() {
    let Some(maps) = source_maps() else { return };
    let m = maps.iter().find(|m| m.path.to_string_lossy().contains("tf2_test2")).expect("tf2_test2 in corpus");
    let mut bytes = std::fs::read(&m.path).unwrap();
    let (faces, surfedges, texinfo) = {
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let e = |i| bsp.entry(i).unwrap().offset as usize;
        (e(source::LUMP_FACES), e(source::LUMP_SURFEDGES), e(source::LUMP_TEXINFO))
    };
    // Face 0's plane, surfedge 0's edge and texinfo 0's texdata, each pointed out of range.
    bytes[faces..faces + 2].copy_from_slice(&u16::MAX.to_le_bytes());
    bytes[surfedges..surfedges + 4].copy_from_slice(&(-1_000_000i32).to_le_bytes());
    bytes[texinfo + 68..texinfo + 72].copy_from_slice(&5000i32.to_le_bytes());
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let text: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect();
    for needle in ["FACES[0]: planenum", "SURFEDGES[0]: edge", "TEXINFO[0]: texdata"] {
        assert!(text.iter().any(|t| t.starts_with(needle)), "{needle} not reported: {text:?}");
    }
}

#[test]
fn old_leaf_and_vtmb_face_forms_decode() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    // v19: leaf lump version 0, 56 bytes with a light cube at offset 30 (§9.2).
    let mut leaf = vec![0u8; 56];
    leaf[4..6].copy_from_slice(&3i16.to_le_bytes());
    leaf[30..34].copy_from_slice(&[10, 20, 30, 2]);
    let f = BspBuilder::new(&source::SOURCE).version(19).lump(0, ents.clone()).lump_v(source::LUMP_LEAVES, leaf, 0).build();
    let bsp = Bsp::from_bytes(&f).unwrap();
    assert_eq!(bsp.branch().id, "source2004");
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    match v.leaves().unwrap() {
        source::view::Leaves::V0(l) => {
            assert_eq!(l[0].cluster.get(), 3);
            assert_eq!(l[0].ambient_lighting.color[0].linear(), [40.0, 80.0, 120.0]);
        }
        _ => panic!("expected 56-byte leaves"),
    }
    let leaves_row = bspkit::stats::stats(&bsp).into_iter().find(|s| s.name == "leaves").unwrap();
    assert_eq!((leaves_row.count, leaves_row.bytes), (Some(1), 32));
    // v17: 104-byte faces with 8 styles (§7.5).
    let mut face = vec![0u8; 104];
    face[40..42].copy_from_slice(&5i16.to_le_bytes()); // numedges
    face[48..56].copy_from_slice(&[0, 1, 255, 255, 255, 255, 255, 255]);
    let f = BspBuilder::new(&source::SOURCE).version(17).lump(0, ents).lump(source::LUMP_FACES, face).build();
    let bsp = Bsp::from_bytes(&f).unwrap();
    assert_eq!(bsp.branch().id, "vtmb");
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    let faces = v.faces().unwrap();
    assert!(matches!(faces, source::view::Faces::Vtmb(_)));
    let info = faces.get(0).unwrap();
    assert_eq!((info.numedges, info.num_styles), (5, 2));
    assert_eq!(source::triangle_count(&bsp).unwrap(), 3);
}

/// Issue 22: VTMB's compiler packs each face's samples back to back from offset 0 of the
/// lighting lump, with the per-style averages in the 104-byte face record (8 of the game's maps,
/// docs/real-maps.md). `check` reported the first lit face of every one of them, because it
/// expected the averages before `lightofs` as later Source versions store them.
#[test]
fn vtmb_lightmaps_start_at_offset_0_with_averages_in_the_face() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    // One VTMB face: average colours, texinfo and dispinfo -1, styles, lightofs, size (§7.5).
    let face = |avg: [u8; 4], styles: [u8; 8], lightofs: i32, size: [i32; 2]| {
        let mut f = vec![0u8; 104];
        f[0..4].copy_from_slice(&avg);
        f[42..44].copy_from_slice(&(-1i16).to_le_bytes());
        f[44..46].copy_from_slice(&(-1i16).to_le_bytes());
        f[48..56].copy_from_slice(&styles);
        f[72..76].copy_from_slice(&lightofs.to_le_bytes());
        f[88..92].copy_from_slice(&size[0].to_le_bytes());
        f[92..96].copy_from_slice(&size[1].to_le_bytes());
        f
    };
    let one = [0, 255, 255, 255, 255, 255, 255, 255];
    let two = [0, 1, 255, 255, 255, 255, 255, 255];
    let build = |second_ofs: i32| {
        // Face 0: 2 × 2 luxels, one style = 16 bytes at 0; face 1: 1 luxel, two styles = 8 bytes.
        let mut faces = face([9, 8, 7, 0], one, 0, [1, 1]);
        faces.extend(face([1, 2, 3, 0], two, second_ofs, [0, 0]));
        let light: Vec<u8> = (0..24u8).collect();
        BspBuilder::new(&source::SOURCE)
            .version(17)
            .lump(0, ents.clone())
            .lump(source::LUMP_FACES, faces)
            .lump(source::LUMP_LIGHTING, light)
            .build()
    };
    let lighting_problems = |bsp: &Bsp| -> Vec<String> {
        bspkit::check::check(bsp).iter().map(|p| p.to_string()).filter(|t| t.contains("lighting lump")).collect()
    };
    let f = build(16);
    let bsp = Bsp::from_bytes(&f).unwrap();
    assert_eq!(bsp.branch().id, "vtmb");
    assert_eq!(lighting_problems(&bsp), Vec::<String>::new());
    let v = View::<LittleEndian>::new(&bsp).unwrap();
    let samples = v.face_lightmap(0, false).unwrap().unwrap();
    assert_eq!((samples.len(), samples[0].r), (4, 0));
    assert_eq!(v.face_lightmap(1, false).unwrap().unwrap()[0].r, 16);
    // The averages are the record's, in style order, one per style used.
    let avg = v.face_average_colors(0, false).unwrap().unwrap();
    assert_eq!((avg.len(), avg[0].r, avg[0].g, avg[0].b), (1, 9, 8, 7));
    assert_eq!(v.face_average_colors(1, false).unwrap().unwrap().len(), 2);
    // Samples running past the lump are still reported.
    let f = build(20);
    let text = lighting_problems(&Bsp::from_bytes(&f).unwrap());
    assert_eq!(text.len(), 1, "{text:?}");
    assert!(text[0].contains("FACES[1]: lightofs 20 + 8 bytes"), "{text:?}");
}

/// Two real VTMB maps (ch_fulab_1, sp_giovanni_1; docs/real-maps.md) end their texinfo lump with
/// unused texinfos whose texdata is -1, which the engine's loader gives its empty material: one
/// note for all of them. Any other texdata outside TEXDATA stays an error.
#[test]
fn texinfo_with_texdata_minus_1_is_one_note() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let texinfo = |texdata: i32| {
        let mut t = vec![0u8; 72];
        t[68..72].copy_from_slice(&texdata.to_le_bytes());
        t
    };
    let lump: Vec<u8> = [0, -1, -1, -5].into_iter().flat_map(texinfo).collect();
    let f = BspBuilder::new(&source::SOURCE)
        .version(20)
        .lump(0, ents)
        .lump(source::LUMP_TEXDATA, vec![0u8; 32])
        .lump(source::LUMP_TEXINFO, lump)
        .build();
    let bsp = Bsp::from_bytes(&f).unwrap();
    let problems: Vec<_> = bspkit::check::check(&bsp).into_iter().filter(|p| p.lump == "TEXINFO").collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    let note = problems.iter().find(|p| p.code.as_str() == "no_texdata").expect("a no_texdata note");
    assert_eq!((note.severity, note.index), (bspkit::check::Severity::Note, Some(1)));
    assert!(note.message.starts_with("2 texinfo(s) have texdata -1"), "{}", note.message);
    let error = problems.iter().find(|p| p.code.as_str() == "index_out_of_range").expect("texdata -5 reported");
    assert_eq!((error.severity, error.index), (bspkit::check::Severity::Error, Some(3)));
}

/// Issue 22: real Alien Swarm maps store static props version 9, as Portal 2's do; their
/// `asw_*` entity classes tell them apart, and the evidence is printed.
#[test]
fn alien_swarm_is_told_from_portal_2_by_its_entity_classes() {
    let asw = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"asw_gamerules\"\n}\n{\n\"classname\"  \"asw_spawner\"\n}\n\
{\n\"classname\" \"asw_spawner\"\n}\n{\n\"classname\" \"asw_door\"\n}\n{\n\"classname\" \"asw_marker\"\n}\n\0"
        .to_vec();
    let portal = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"prop_portal\"\n\"message\" \"asw_spawner\"\n}\n\0".to_vec();
    let make = |ents: &[u8], sprp: Option<u16>| {
        let mut b = BspBuilder::new(&source::SOURCE).version(21).lump(0, ents.to_vec());
        if let Some(v) = sprp {
            b = b.lump(source::LUMP_GAME_LUMP, game_lump_with_sprp(v));
        }
        b.build()
    };
    for sprp in [Some(9), None] {
        let f = make(&asw, sprp);
        let bsp = Bsp::from_bytes(&f).unwrap();
        assert_eq!(bsp.branch().id, "alienswarm", "{sprp:?}");
        let why = bsp.detection().why.join("; ");
        assert!(why.contains("4 asw_* entity class(es) (asw_gamerules, asw_spawner, asw_door and 1 more)"), "{why}");
    }
    // Portal 2: version 9 without asw_* classes (a value naming one is not a class).
    let f = make(&portal, Some(9));
    let bsp = Bsp::from_bytes(&f).unwrap();
    assert_eq!(bsp.branch().id, "portal2");
    assert!(bsp.detection().runners_up.iter().any(|(b, w)| *b == "alienswarm" && w.contains("asw_")));
    // CS:GO's static props version wins whatever the entities say.
    assert_eq!(Bsp::from_bytes(&make(&asw, Some(10))).unwrap().branch().id, "csgo");
    // A compressed entity lump is read too.
    let plain = make(&asw, Some(9));
    let bsp = Bsp::from_bytes(&plain).unwrap();
    let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
    assert!(ed.compress_lump(0).unwrap());
    let packed = ed.to_bytes().unwrap();
    let bsp = Bsp::from_bytes(&packed).unwrap();
    assert!(bsp.entry(0).unwrap().compressed);
    assert_eq!(bsp.branch().id, "alienswarm");
}
