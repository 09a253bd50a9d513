//! Quake 1 family and GoldSrc: typed lumps, visibility, checks and bspinfo rows on every corpus
//! map, and builder-made maps of the branches the corpus lacks (2PSB, Hexen II, Blue Shift).

use crate::common;

use bspkit::branches::quake1::{self, Bsp2, Bsp29, Hexen2, Layout, LeafRecord, Rmq, View};
use bspkit::lumps::bspx;
use bspkit::Bsp;

/// Decode every typed lump, every texture and every leaf's PVS row; returns the number of
/// leaves with a row.
fn decode_all<L: Layout>(bsp: &Bsp) -> usize {
    let v = View::<L>::new(bsp);
    let name = bsp.display_name().into_owned();
    v.planes().unwrap();
    v.vertices().unwrap();
    v.nodes().unwrap();
    v.texinfo().unwrap();
    v.faces().unwrap();
    v.clipnodes().unwrap();
    v.marksurfaces().unwrap();
    v.edges().unwrap();
    v.surfedges().unwrap();
    assert!(!v.models().unwrap().is_empty(), "{name}: no world model");
    let textures = v.textures().unwrap();
    for t in textures.iter() {
        if let Some(t) = t.unwrap_or_else(|e| panic!("{name}: {e}")) {
            if t.embedded() {
                assert_eq!(t.mip(0).unwrap().len() as u64, t.width() as u64 * t.height() as u64, "{name}: {}", t.name());
                assert_eq!(t.palette.is_some(), bsp.family() == bspkit::Family::GoldSrc, "{name}: {}", t.name());
            }
        }
    }
    let row_bytes = v.vis_row_bytes().unwrap();
    let mut row = Vec::new();
    let mut rows = 0;
    for (i, leaf) in v.leaves().unwrap().iter().enumerate() {
        if v.leaf_pvs(i, &mut row).unwrap_or_else(|e| panic!("{name}: leaf {i}: {e}")) {
            assert_eq!(row.len(), row_bytes);
            rows += 1;
        } else {
            assert!(leaf.vis_ofs() < 0 || v.visibility().unwrap().is_empty());
        }
    }
    rows
}

fn decode(bsp: &Bsp) -> usize {
    match bsp.branch().id {
        "hexen2" => decode_all::<Hexen2>(bsp),
        "bsp2" => decode_all::<Bsp2>(bsp),
        "2psb" => decode_all::<Rmq>(bsp),
        _ => decode_all::<Bsp29>(bsp),
    }
}

fn quake_maps() -> Option<Vec<common::CorpusMap>> {
    let corpus = common::corpus("quake1_goldsrc")?;
    let mut maps = common::maps_in(&corpus, "quake1");
    maps.extend(common::maps_in(&corpus, "goldsrc"));
    assert!(maps.len() >= 19, "expected the quake1 and goldsrc corpus maps, found {}", maps.len());
    Some(maps)
}

#[test]
fn corpus_maps_decode_and_check_clean() {
    let Some(maps) = quake_maps() else { return };
    let mut with_vis = 0;
    for m in &maps {
        let bsp = Bsp::open(&m.path).unwrap_or_else(|e| panic!("{e}"));
        // No Hexen II or Blue Shift map is in the corpus: detection must not claim one.
        let expected = match (m.folder.as_str(), m.magic.as_str()) {
            ("goldsrc", _) => "goldsrc",
            (_, "BSP2") => "bsp2",
            _ => "quake1",
        };
        assert_eq!(bsp.branch().id, expected, "{}: {:?}", m.path.display(), bsp.detection().why);
        let rows = decode(&bsp);
        if rows > 0 {
            with_vis += 1;
        }
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{}: {:?}", m.path.display(), &problems[..problems.len().min(10)]);
    }
    // The corpus has vis-compiled maps: the PVS decoding was exercised.
    assert!(with_vis >= 5, "only {with_vis} maps had PVS rows");
}

/// Rows of an ericw-tools `bspinfo` listing: (name, count, bytes), either number may be blank.
fn parse_bspinfo(text: &str) -> Vec<(String, Option<u64>, Option<u64>)> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        let num = |s: &str| s.parse::<u64>().ok();
        let is_name = |s: &str| s.chars().all(|c| c.is_ascii_lowercase());
        let row = match t.as_slice() {
            [c, n, b] if num(c).is_some() && is_name(n) && num(b).is_some() => (n.to_string(), num(c), num(b)),
            [c, n] if num(c).is_some() && is_name(n) => (n.to_string(), num(c), None),
            [n, b] if is_name(n) && num(b).is_some() => (n.to_string(), None, num(b)),
            _ => continue,
        };
        rows.push(row);
    }
    rows
}

#[test]
fn stats_equal_bspinfo_ground_truth() {
    let Some(maps) = quake_maps() else { return };
    let mut compared = 0;
    for m in &maps {
        let Some(text) = common::info_txt(&m.path) else { continue };
        let truth = parse_bspinfo(&text);
        assert!(truth.len() >= 15, "{}: only {} rows parsed", m.path.display(), truth.len());
        let bsp = Bsp::open(&m.path).unwrap();
        let stats = bspkit::stats::stats(&bsp);
        // Same rows in the same order.
        let names: Vec<&str> = stats.iter().map(|s| s.name.as_str()).collect();
        let truth_names: Vec<&str> = truth.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, truth_names, "{}", m.path.display());
        for (name, count, bytes) in &truth {
            let s = stats.iter().find(|s| &s.name == name).unwrap();
            if count.is_some() {
                assert_eq!(s.count, *count, "{}: {name} count", m.path.display());
            } else {
                assert_eq!(s.count, None, "{}: {name} has no count in bspinfo", m.path.display());
            }
            if let Some(b) = bytes {
                assert_eq!(s.bytes, *b, "{}: {name} bytes", m.path.display());
            }
        }
        compared += 1;
    }
    assert!(compared >= 2, "expected the bspinfo ground truth files, compared {compared}");
}

#[test]
fn bspx_directory_is_found() {
    let Some(maps) = quake_maps() else { return };
    let mut found = 0;
    for m in &maps {
        let bsp = Bsp::open(&m.path).unwrap();
        let x = bspx::of(&bsp).unwrap_or_else(|e| panic!("{e}"));
        let name = m.path.file_name().unwrap().to_string_lossy();
        if name == "qbsp__example-bsp2.bsp" {
            let x = x.as_ref().expect("example-bsp2 has BSPX");
            // ericw-tools' per-face lightmap info is 40 bytes per face (quake_facts.md §2).
            let faces = View::<Bsp2>::new(&bsp).faces().unwrap().len() as u64;
            assert_eq!(x.get("DECOUPLED_LM").unwrap().length, faces * 40);
            assert!(x.lump(bsp.data(), "RGBLIGHTING").is_some());
        }
        if let Some(x) = x {
            found += 1;
            assert!(!x.entries.is_empty());
            assert_eq!(x.offset % 4, 0);
            for e in &x.entries {
                assert!(e.offset + e.length <= bsp.data().len() as u64);
            }
        }
    }
    assert!(found >= 3, "BSPX found in {found} maps");
}

/// Builder-made maps of every branch open as that branch, decode and check clean.
#[test]
fn builder_rooms_detect_and_check_clean() {
    use bspkit::branches::{goldsrc, quake1 as q};
    for branch in [&q::QUAKE1, &q::BSP2, &q::BSP2PSB, &q::HEXEN2, &goldsrc::GOLDSRC, &goldsrc::BLUESHIFT] {
        let bytes = q::room::box_room(branch);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(bsp.branch().id, branch.id, "detected {} ({:?})", bsp.branch().id, bsp.detection().why);
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{}: {problems:?}", branch.id);
        assert_eq!(decode(&bsp), 1, "{}: leaf 1 has the only PVS row", branch.id);
        let ents = bsp.entities().unwrap();
        assert_eq!(ents.list[0].classname().as_deref(), Some("worldspawn"));
        assert_eq!(ents.list[1].classname().as_deref(), Some("info_player_start"));
        let stats = bspkit::stats::stats(&bsp);
        let row = |n: &str| stats.iter().find(|s| s.name == n).unwrap().clone();
        assert_eq!((row("faces").count, row("leafs").count, row("textures").count), (Some(6), Some(2), Some(1)), "{}", branch.id);
    }
}

#[test]
fn blueshift_swap_is_what_tells_it_apart() {
    use bspkit::branches::goldsrc;
    let normal = quake1::room::box_room(&goldsrc::GOLDSRC);
    let blue = quake1::room::box_room(&goldsrc::BLUESHIFT);
    // The same lumps; directory entries 0 and 1 trade places.
    let (n, b) = (Bsp::from_bytes(&normal).unwrap(), Bsp::from_bytes(&blue).unwrap());
    assert_eq!(n.lump(0).unwrap(), b.lump(1).unwrap());
    assert_eq!(n.lump(1).unwrap(), b.lump(0).unwrap());
    for i in 2..15 {
        assert_eq!(n.lump(i).unwrap(), b.lump(i).unwrap());
    }
    let v = goldsrc::View::new(&b);
    assert_eq!(v.planes().unwrap().len(), 18);
    assert!(b.entities_text().unwrap().starts_with(b"{"));
    // Read as plain GoldSrc, the entity lump holds plane floats and fails to parse or checks dirty.
    let forced = Bsp::from_bytes_with(&blue, &bspkit::OpenOptions { branch: Some("goldsrc".into()), ..Default::default() }).unwrap();
    assert!(!bspkit::check::check(&forced).is_empty());
}

#[test]
fn check_reports_broken_references() {
    let mut bytes = bspkit::build::sample_quake1();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let faces = bsp.entry(quake1::LUMP_FACES).unwrap().offset as usize;
    let marks = bsp.entry(quake1::LUMP_MARKSURFACES).unwrap().offset as usize;
    let surf = bsp.entry(quake1::LUMP_SURFEDGES).unwrap().offset as usize;
    drop(bsp);
    // Face 0's plane → 999, marksurface 0 → face 77, surfedge 0 → edge −500.
    bytes[faces..faces + 2].copy_from_slice(&999u16.to_le_bytes());
    bytes[marks..marks + 2].copy_from_slice(&77u16.to_le_bytes());
    bytes[surf..surf + 4].copy_from_slice(&(-500i32).to_le_bytes());
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let problems: Vec<String> = bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect();
    assert!(problems.iter().any(|p| p.starts_with("FACES[0]: plane 999")), "{problems:?}");
    assert!(problems.iter().any(|p| p.starts_with("MARKSURFACES[0]: face 77")), "{problems:?}");
    assert!(problems.iter().any(|p| p.starts_with("SURFEDGES[0]: edge 500")), "{problems:?}");
}

#[test]
fn truncated_and_garbled_rooms_never_panic() {
    use bspkit::branches::{goldsrc, quake1 as q};
    for branch in [&q::QUAKE1, &q::BSP2, &q::BSP2PSB, &q::HEXEN2, &goldsrc::GOLDSRC] {
        let good = q::room::box_room(branch);
        for cut in (0..good.len()).step_by(37) {
            if let Ok(bsp) = Bsp::from_bytes(&good[..cut]) {
                let _ = bspkit::check::check(&bsp);
                let _ = bspkit::stats::stats(&bsp);
            }
        }
        // Overwrite every 4-byte word after the header in turn with a hostile value.
        for at in (124..good.len().saturating_sub(4)).step_by(4) {
            for v in [u32::MAX, 0x8000_0000, 0x7fff_ffff] {
                let mut bad = good.clone();
                bad[at..at + 4].copy_from_slice(&v.to_le_bytes());
                if let Ok(bsp) = Bsp::from_bytes(&bad) {
                    let _ = bspkit::check::check(&bsp);
                    let _ = bspkit::stats::stats(&bsp);
                    let _ = bspx::of(&bsp);
                }
            }
        }
    }
}

/// The room with its models lump replaced by `n` copies of the world model.
fn with_models(branch: &'static bspkit::Branch, n: usize) -> Vec<u8> {
    let room = quake1::room::box_room(branch);
    let bsp = Bsp::from_bytes(&room).unwrap();
    let mut b = bspkit::build::BspBuilder::new(branch);
    for e in bsp.lumps() {
        let bytes = bsp.lump(e.index).unwrap();
        b = b.lump(e.index, if e.index == quake1::LUMP_MODELS { bytes.repeat(n) } else { bytes.to_vec() });
    }
    b.build()
}

#[test]
fn hexen2_and_quake_models_of_320_bytes_are_told_apart() {
    use bspkit::branches::quake1 as q;
    // 4 × 80 = 5 × 64 = 320 bytes: the record size alone cannot decide.
    let h2 = with_models(&q::HEXEN2, 4);
    let bsp = Bsp::from_bytes(&h2).unwrap();
    assert_eq!(bsp.branch().id, "hexen2", "{:?}", bsp.detection().why);
    assert_eq!(bsp.detection().runners_up[0].0, "quake1");
    assert!(bspkit::check::check(&bsp).is_empty());
    let q1 = with_models(&q::QUAKE1, 5);
    let bsp = Bsp::from_bytes(&q1).unwrap();
    assert_eq!(bsp.branch().id, "quake1", "{:?}", bsp.detection().why);
    assert_eq!(bsp.detection().runners_up[0].0, "hexen2");
    assert!(bspkit::check::check(&bsp).is_empty());
    // Read the wrong way, the models do not check clean.
    let forced = Bsp::from_bytes_with(&q1, &bspkit::OpenOptions { branch: Some("hexen2".into()), ..Default::default() }).unwrap();
    assert!(!bspkit::check::check(&forced).is_empty());
}

/// The builder's room is a real map, not just consistent indices: its faces lie on their
/// planes, wind clockwise seen from the front (Quake's order), close up into a watertight box
/// (every edge used once each way), have lightmaps the size of their texture extents, and the
/// node and clip trees put the player start in empty space and points past the walls in solid.
fn room_is_sound<L: Layout>(bsp: &Bsp) {
    use quake1::{Child, ClipChild, ClipNodeRecord, EdgeRecord, FaceRecord, ModelRecord, NodeRecord};
    let v = View::<L>::new(bsp);
    let id = bsp.branch().id;
    let (planes, verts, edges, surfedges) = (v.planes().unwrap(), v.vertices().unwrap(), v.edges().unwrap(), v.surfedges().unwrap());
    let p3 = |x: &[zerocopy::byteorder::F32<zerocopy::LittleEndian>; 3]| x.map(|c| c.get());
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut uses = vec![[0u32; 2]; edges.len()];
    let mut light_bytes = 0;
    let per_luxel = if bsp.family() == bspkit::Family::GoldSrc { 3 } else { 1 };
    for (i, f) in v.faces().unwrap().iter().enumerate() {
        let pl = &planes[f.plane() as usize];
        let sign = if f.side() != 0 { -1.0 } else { 1.0 };
        let normal = p3(&pl.normal).map(|c| c * sign);
        let (first, n) = f.edges();
        let pts: Vec<[f32; 3]> = (first..first + n)
            .map(|k| {
                let se = surfedges[k as usize].get();
                uses[se.unsigned_abs() as usize][usize::from(se < 0)] += 1;
                let e = &edges[se.unsigned_abs() as usize];
                p3(&verts[if se >= 0 { e.v(0) } else { e.v(1) } as usize].point)
            })
            .collect();
        for p in &pts {
            assert!((dot(p3(&pl.normal), *p) - pl.dist.get()).abs() < 0.01, "{id}: face {i} vertex off its plane");
        }
        let d1: [f32; 3] = std::array::from_fn(|k| pts[1][k] - pts[0][k]);
        let d2: [f32; 3] = std::array::from_fn(|k| pts[2][k] - pts[0][k]);
        let cross = [d1[1] * d2[2] - d1[2] * d2[1], d1[2] * d2[0] - d1[0] * d2[2], d1[0] * d2[1] - d1[1] * d2[0]];
        assert!(dot(cross, normal) < 0.0, "{id}: face {i} winds the wrong way");
        // Lightmap size from the texture extents, 16 texels per luxel, at most 256 texels wide.
        let ti = &v.texinfo().unwrap()[f.texinfo() as usize];
        let mut luxels = 1;
        for axis in &ti.vecs {
            let a = [axis[0].get(), axis[1].get(), axis[2].get()];
            let vals: Vec<f32> = pts.iter().map(|p| dot(*p, a) + axis[3].get()).collect();
            let lo = (vals.iter().cloned().fold(f32::MAX, f32::min) / 16.0).floor();
            let hi = (vals.iter().cloned().fold(f32::MIN, f32::max) / 16.0).ceil();
            assert!((hi - lo) * 16.0 <= 256.0, "{id}: face {i} extents too large for the engine");
            luxels *= (hi - lo) as usize + 1;
        }
        assert_eq!(f.light_ofs() as usize, light_bytes, "{id}: face {i} lightmap offset");
        light_bytes += luxels * per_luxel;
    }
    assert_eq!(light_bytes, v.lighting().unwrap().len(), "{id}: lighting covers every face exactly");
    assert!(uses[1..].iter().all(|u| *u == [1, 1]), "{id}: not watertight: {uses:?}");

    let world = &v.models().unwrap()[0];
    let heads: Vec<i64> = world.head_nodes().iter().map(|h| h.get() as i64).collect();
    let nodes = v.nodes().unwrap();
    let leaf_of = |p: [f32; 3]| {
        let mut node = heads[0] as usize;
        for _ in 0..nodes.len() {
            let n = &nodes[node];
            let pl = &planes[n.plane() as usize];
            let side = usize::from(dot(p3(&pl.normal), p) - pl.dist.get() < 0.0);
            match n.child(side, nodes.len()) {
                Child::Node(k) => node = k as usize,
                Child::Leaf(l) => return l as usize,
            }
        }
        panic!("{id}: node tree has a cycle")
    };
    let clips = v.clipnodes().unwrap();
    let hull_contents = |hull: usize, p: [f32; 3]| {
        let mut node = heads[hull] as usize;
        for _ in 0..clips.len() {
            let n = &clips[node];
            let pl = &planes[n.plane() as usize];
            let side = usize::from(dot(p3(&pl.normal), p) - pl.dist.get() < 0.0);
            match n.child(side) {
                ClipChild::Node(k) => node = k as usize,
                ClipChild::Contents(c) => return c,
            }
        }
        panic!("{id}: clip tree has a cycle")
    };
    let leaves = v.leaves().unwrap();
    let start = [0.0, 0.0, -40.0];
    assert_eq!(leaves[leaf_of(start)].contents(), -1, "{id}: player start is not in empty space");
    assert_eq!(leaves[leaf_of([0.0, 0.0, -70.0])].contents(), -2, "{id}: below the floor is not solid");
    assert_eq!(leaves[leaf_of([120.0, 0.0, 0.0])].contents(), -1);
    assert_eq!(leaves[leaf_of([0.0, 130.0, 0.0])].contents(), -2);
    // Each game's compiler grows brushes by its own hull boxes (mins z, maxs x of hulls 1 and
    // 2): Quake's player and large monster, Hexen II's player and scorpion, GoldSrc's standing
    // player and large hull. The room's floor is at z = -64 and its +x wall at x = 128, so an
    // origin stands on the floor at z = -64 - mins z and meets the wall at x = 128 - maxs x.
    let sizes: [(f32, f32); 2] = match bsp.family() {
        bspkit::Family::GoldSrc => [(-36.0, 16.0), (-32.0, 32.0)],
        _ if id == "hexen2" => [(-32.0, 16.0), (-20.0, 24.0)],
        _ => [(-24.0, 16.0), (-24.0, 32.0)],
    };
    for (hull, (mins_z, maxs_x)) in (1..=2).zip(sizes) {
        let (floor, wall) = (-64.0 - mins_z, 128.0 - maxs_x);
        assert_eq!(hull_contents(hull, [0.0, 0.0, floor]), -1, "{id}: hull {hull} standing on the floor");
        assert_eq!(hull_contents(hull, [0.0, 0.0, floor - 1.0]), -2, "{id}: hull {hull} lets the origin into the floor");
        assert_eq!(hull_contents(hull, [wall - 1.0, 0.0, floor + 1.0]), -1, "{id}: hull {hull} short of the wall");
        assert_eq!(hull_contents(hull, [wall + 1.0, 0.0, floor + 1.0]), -2, "{id}: hull {hull} into the wall");
    }
    // The only empty leaf sees itself.
    let mut row = Vec::new();
    assert!(v.leaf_pvs(1, &mut row).unwrap());
    assert_eq!(row, [1]);
}

#[test]
fn builder_room_is_a_sound_map() {
    use bspkit::branches::{goldsrc, quake1 as q};
    for branch in [&q::QUAKE1, &q::BSP2, &q::BSP2PSB, &q::HEXEN2, &goldsrc::GOLDSRC, &goldsrc::BLUESHIFT] {
        let bytes = q::room::box_room(branch);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        match branch.id {
            "hexen2" => room_is_sound::<Hexen2>(&bsp),
            "bsp2" => room_is_sound::<Bsp2>(&bsp),
            "2psb" => room_is_sound::<Rmq>(&bsp),
            _ => room_is_sound::<Bsp29>(&bsp),
        }
    }
}

#[test]
fn bspx_lumps_are_checked_against_the_map() {
    let room = bspkit::build::sample_quake1();
    let with_bspx = |lumps: &[(&str, &[u8])]| {
        let mut bytes = room.clone();
        bytes.resize((bytes.len() + 3) & !3, 0);
        let at = bytes.len() as u64;
        bytes.extend(bspx::encode(at, lumps));
        bytes
    };
    let problems = |bytes: &[u8]| -> Vec<String> {
        let bsp = Bsp::from_bytes(bytes).unwrap();
        bspkit::check::check(&bsp).iter().map(|p| p.to_string()).collect()
    };
    // One 40-byte record per face (6), light offset at +4 within the 1190 luxels of lighting.
    let mut good = Vec::new();
    for i in 0..6i32 {
        let mut rec = [0u8; 40];
        rec[0..4].copy_from_slice(&[16, 0, 16, 0]);
        rec[4..8].copy_from_slice(&(i * 100).to_le_bytes());
        good.extend_from_slice(&rec);
    }
    assert_eq!(good.len(), 240);
    let bytes = with_bspx(&[("DECOUPLED_LM", &good)]);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bspx::of(&bsp).unwrap().unwrap().entries.len(), 1);
    assert!(problems(&bytes).is_empty(), "{:?}", problems(&bytes));
    // Too few records, an offset past the lighting, a wrong-sized RGBLIGHTING.
    assert!(problems(&with_bspx(&[("DECOUPLED_LM", &good[..200])]))[0].contains("for 6 faces"));
    let mut far = good.clone();
    far[4..8].copy_from_slice(&5000i32.to_le_bytes());
    assert!(problems(&with_bspx(&[("DECOUPLED_LM", &far)]))[0].starts_with("BSPX DECOUPLED_LM[0]: light offset 5000"));
    assert!(problems(&with_bspx(&[("RGBLIGHTING", &[0; 30])]))[0].contains("30 bytes for 1190 luxels"));
    assert!(problems(&with_bspx(&[("RGBLIGHTING", &vec![0; 3 * 1190])])).is_empty());
}
