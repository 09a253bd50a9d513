//! Titanfall on Xbox 360 (`titanfall_x360`, `PSBr` 29, big-endian): no console map was found,
//! so its maps are the builder's — the builder's own Titanfall room and the corpus Titanfall 2
//! maps taken down to Titanfall, each with every header word and record byte-swapped
//! (`bspkit::build::titanfall_x360_from`). Each must be detected from its bytes, check as its
//! PC form does, rewrite byte for byte and draw the same triangles and props.

use crate::common;

use bspkit::branches::respawn::{self, Titanfall, TitanfallX360, View};
use bspkit::build::{titanfall_room, titanfall_x360_from, titanfall_x360_map};
use bspkit::bytes::Endian;
use bspkit::check::Severity;
use bspkit::convert::{self, ConvertOptions, Lzma};
use bspkit::mesh::{self, MeshOptions};
use bspkit::schema::{Kind, Scalar};
use bspkit::{Bsp, OpenOptions};

fn problems(bsp: &Bsp) -> Vec<String> {
    bspkit::check::check(bsp).iter().map(|p| format!("{:?} {p}", p.severity)).collect()
}

/// Each model's indices and vertex positions.
type Drawn = Vec<(Vec<u32>, Vec<[f32; 3]>)>;

/// Triangles of every model as positions (what an export draws), and the total.
fn triangles(bsp: &Bsp) -> (Drawn, usize) {
    let scene = mesh::build(bsp, &MeshOptions::default()).unwrap();
    let n = scene.models.iter().map(|m| m.indices.len() / 3).sum();
    (scene.models.into_iter().map(|m| (m.indices, m.vertices.positions)).collect(), n)
}

type PropKey = ([f32; 3], [f32; 3], f32, Option<String>, i32, u8, Option<[u16; 2]>);

fn props<G: respawn::Game>(bsp: &Bsp) -> Vec<PropKey> {
    View::<G>::new(bsp)
        .unwrap()
        .static_props()
        .unwrap()
        .map(|p| p.props().into_iter().map(|q| (q.origin, q.angles, q.scale, q.model_name, q.skin, q.solid, q.leaves)).collect())
        .unwrap_or_default()
}

/// The PC map and its console form agree on everything a reader sees.
fn same_as_pc(pc: &Bsp, x: &Bsp, what: &str) -> usize {
    assert_eq!((x.branch().id, x.endian(), x.header().version), ("titanfall_x360", Endian::Big, 29), "{what}");
    assert_eq!(problems(x), problems(pc), "{what}: check");
    assert!(!problems(x).iter().any(|p| p.starts_with("Error")), "{what}: {:?}", problems(x));
    let (a, n) = triangles(pc);
    let (b, m) = triangles(x);
    assert_eq!((a, n), (b, m), "{what}: scene");
    assert_eq!(props::<TitanfallX360>(x), props::<Titanfall>(pc), "{what}: props");
    // The contents table (`bsp info`) lists the same records.
    let rows = |b: &Bsp| bspkit::stats::stats(b).into_iter().map(|s| format!("{s:?}")).collect::<Vec<_>>();
    assert_eq!(rows(x), rows(pc), "{what}: info");
    assert_eq!(bspkit::write::rewrite(x).unwrap(), x.data(), "{what}: rewrite");
    n
}

#[test]
fn builder_room_detects_checks_rewrites_and_draws_as_its_pc_form() {
    let pc_bytes = titanfall_room();
    let x_bytes = titanfall_x360_map();
    assert_eq!(&x_bytes[..4], b"PSBr");
    assert_eq!(x_bytes.len(), pc_bytes.len());
    let pc = Bsp::from_bytes(&pc_bytes).unwrap();
    let x = Bsp::from_bytes(&x_bytes).unwrap();
    let why = x.detection().why.join("; ");
    assert!(why.contains("PSBr") && why.contains("big-endian version 29") && why.contains("127"), "{why}");
    let n = same_as_pc(&pc, &x, "room");
    assert_eq!(n, 2);
    assert_eq!(props::<TitanfallX360>(&x).len(), 1);
    // Typed records read big-endian values in place.
    let v = View::<TitanfallX360>::new(&x).unwrap();
    assert_eq!(v.vertices().unwrap()[3].get(), [64.0, 64.0, 0.0]);
    assert_eq!(v.texture_name(0).as_deref(), Some("dev/grid1"));
    // The record schemas say big-endian.
    let s = bspkit::schema::lump_schema(x.branch(), "MESHES", 0, Endian::Big).unwrap();
    assert!(matches!(s.fields[0].ty.kind, Kind::Scalar { scalar: Scalar::U32, big_endian: true }), "{:?}", s.fields[0]);
    let s = bspkit::schema::lump_schema(pc.branch(), "MESHES", 0, Endian::Little).unwrap();
    assert!(matches!(s.fields[0].ty.kind, Kind::Scalar { scalar: Scalar::U32, big_endian: false }));
    // A PC map read as the console one is not silently right: forced, it is the console
    // branch with the caller's reason and detection as the runner-up.
    let forced = Bsp::from_bytes_with(&x_bytes, &OpenOptions { branch: Some("titanfall_x360".into()), ..Default::default() }).unwrap();
    assert_eq!((forced.branch().id, forced.endian()), ("titanfall_x360", Endian::Big));
    let forced_pc = bspkit::detect::detect_as(&pc_bytes, "titanfall_x360").unwrap();
    assert!(forced_pc.runners_up.iter().any(|(b, _)| *b == "titanfall"), "{:?}", forced_pc.runners_up);
    // Other versions under the console magic are not guessed at.
    let mut v30 = x_bytes.clone();
    v30[4..8].copy_from_slice(&30u32.to_be_bytes());
    assert_eq!(Bsp::from_bytes(&v30).err().unwrap().kind.name(), "unsupported_version");
    // Truncated copies: typed errors, never a panic; the header's cut names the header.
    for k in (0..x_bytes.len()).step_by(61) {
        if let Ok(b) = Bsp::from_bytes(&x_bytes[..k]) {
            let _ = (bspkit::check::check(&b), mesh::build(&b, &MeshOptions::default()));
        }
    }
    assert!(Bsp::from_bytes(&x_bytes[..100]).err().unwrap().to_string().contains("header"));
    // A mesh that lies about its triangle count: a check error naming MESHES, no panic.
    let mut lie = x_bytes.clone();
    let at = x.entry(respawn::LUMP_MESHES).unwrap().offset as usize + 4;
    lie[at..at + 2].copy_from_slice(&9000u16.to_be_bytes());
    let b = Bsp::from_bytes(&lie).unwrap();
    let p = bspkit::check::check(&b);
    assert!(p.iter().any(|p| p.severity == Severity::Error && p.lump.contains("MESHES")), "{:?}", problems(&b));
    let _ = mesh::build(&b, &MeshOptions::default());
}

#[test]
fn corpus_titanfall2_maps_as_xbox360_maps() {
    let Some(corpus) = common::corpus("corpus_titanfall2_maps_as_xbox360_maps") else { return };
    let to = ConvertOptions { to: bspkit::branches::by_id("titanfall").unwrap(), endian: None, lzma: Lzma::Auto, static_props: None };
    let mut n = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let bsp = Bsp::open(&m.path).unwrap();
        if bsp.branch().id != "titanfall2" {
            continue;
        }
        // Down to Titanfall (what Titanfall 2 adds is dropped), then byte-swapped.
        let c = convert::prepare(&bsp, &to, false).unwrap_or_else(|e| panic!("{}: {e}", m.path.display()));
        let pc = Bsp::from_bytes(&c.bytes).unwrap();
        let x_bytes = titanfall_x360_from(&pc).unwrap();
        let x = Bsp::from_bytes(&x_bytes).unwrap();
        let tris = same_as_pc(&pc, &x, &m.path.display().to_string());
        eprintln!("{}: {tris} triangles, {} props, {} bytes", m.path.display(), props::<TitanfallX360>(&x).len(), x_bytes.len());
        n += 1;
    }
    assert!(n >= 3, "{n} Titanfall 2 maps");
}

fn opts(to: &str, endian: Option<Endian>) -> ConvertOptions {
    ConvertOptions { to: bspkit::branches::by_id(to).unwrap(), endian, lzma: Lzma::Auto, static_props: None }
}

/// `bsp convert --to titanfall_x360` and back on the builder's room: every record lump and the
/// `sprp` child swapped, text copied, the lightmap texels kept as bytes and reported; the way
/// back is the PC map byte for byte; pairs that need two steps are refused saying which.
#[test]
fn convert_room_to_xbox360_and_back_is_byte_identical() {
    let pc_bytes = titanfall_room();
    let pc = Bsp::from_bytes(&pc_bytes).unwrap();
    let c = convert::prepare(&pc, &opts("titanfall_x360", None), false).unwrap();
    let r = &c.report;
    assert_eq!(
        (r.from.branch, r.from.endian, r.to.branch, r.to.endian, r.to.version),
        ("titanfall", "little", "titanfall_x360", "big", 29)
    );
    let action = |name: &str| r.lumps.iter().find(|a| a.name == name).map(|a| a.action);
    assert_eq!(action("VERTICES"), Some("swapped"));
    assert_eq!(action("MESHES"), Some("swapped"));
    assert_eq!(action("GAME_LUMP"), Some("swapped"));
    assert_eq!(action("ENTITIES"), Some("copied"));
    assert_eq!(action("TEXTURE_DATA_STRING_DATA"), Some("copied"));
    assert_eq!(action("LIGHTMAP_DATA_SKY"), Some("copied"));
    let losses: Vec<(Option<&str>, &str)> = r.losses.iter().map(|l| (l.lump.as_deref(), l.kind)).collect();
    assert_eq!(losses, [(Some("LIGHTMAP_DATA_SKY"), "kept_unconverted")], "{:?}", r.losses);
    assert!(r.losses[0].message.contains("RGBA8") && r.losses[0].message.contains("is not known"), "{}", r.losses[0]);
    // Detected from its bytes as the console branch; it reads as its PC form does.
    let x = Bsp::from_bytes(&c.bytes).unwrap();
    assert_eq!(same_as_pc(&pc, &x, "converted room"), 2);
    assert_eq!(c.bytes, titanfall_x360_map());
    // Not a copy: the vertices' floats are stored big-endian.
    let at = x.entry(respawn::LUMP_VERTICES).unwrap().offset as usize + 12;
    assert_eq!(&c.bytes[at..at + 4], &64.0f32.to_be_bytes());
    // And back, with `--endian little` agreeing.
    let back = convert::prepare(&x, &opts("titanfall", Some(Endian::Little)), false).unwrap();
    assert_eq!((back.report.from.endian, back.report.to.endian), ("big", "little"));
    assert!(back.bytes == pc_bytes, "the way back differs from the PC map");
    assert_eq!(back.report.losses.len(), 1);
    // --strict refuses (the texels' console form is unknown).
    let e = convert::prepare(&pc, &opts("titanfall_x360", None), true).unwrap_err();
    assert_eq!(e.kind.name(), "lossy");
    // Refused, each naming what to do instead.
    for (map, to, endian, says) in [
        (&pc, "titanfall_x360", Some(Endian::Little), "big-endian"),
        (&x, "titanfall", Some(Endian::Big), "little-endian"),
        (&x, "titanfall2", None, "convert to titanfall (its PC form) first"),
        (&x, "titanfall_x360", None, "already the console form"),
        (&pc, "titanfall", Some(Endian::Big), "--to titanfall_x360"),
    ] {
        let e = convert::prepare(map, &opts(to, endian), false).unwrap_err();
        assert!(matches!(e.kind, bspkit::ErrorKind::Unsupported(_)) && e.to_string().contains(says), "{to}: {e}");
    }
    let tf2_bytes = convert::prepare(&pc, &opts("titanfall2", None), false).unwrap().bytes;
    let tf2 = Bsp::from_bytes(&tf2_bytes).unwrap();
    let e = convert::prepare(&tf2, &opts("titanfall_x360", None), false).unwrap_err();
    assert!(e.to_string().contains("titanfall2 → titanfall_x360 is not done in one step"), "{e}");
    // Two lumps over the same bytes would be swapped twice: refused, naming them.
    let mut shared = pc_bytes.clone();
    let (v, n) = (16 + 16 * respawn::LUMP_VERTICES, 16 + 16 * respawn::LUMP_VERTEX_NORMALS);
    let vertices_at = shared[v..v + 4].to_vec();
    shared[n..n + 4].copy_from_slice(&vertices_at);
    let b = Bsp::from_bytes(&shared).unwrap();
    let e = convert::convert(&b, &opts("titanfall_x360", None)).unwrap_err();
    assert!(e.to_string().contains("share bytes") && e.to_string().contains("VERTEX_NORMALS"), "{e}");
    // A record lump that is not whole records: a typed error naming it, no panic.
    let mut bad = c.bytes.clone();
    let mi = 16 + 16 * respawn::LUMP_MESH_INDICES + 4;
    bad[mi..mi + 4].copy_from_slice(&11u32.to_be_bytes());
    if let Ok(b) = Bsp::from_bytes(&bad) {
        let e = convert::convert(&b, &opts("titanfall", None)).unwrap_err();
        assert!(e.to_string().contains("MESH_INDICES"), "{e}");
    }
}

/// The 3 corpus Titanfall 2 maps taken to Titanfall (`bsp convert`, written with their `.ent`
/// partitions), then to the Xbox 360 form and back, through files: the console map detects as
/// `titanfall_x360`, checks as the PC form does, draws the same triangles, keeps its `.ent`
/// files, and comes back byte for byte. The PC map split into `.bsp_lump` files converts to the
/// same console bytes (the set is folded).
#[test]
fn corpus_titanfall_maps_convert_to_xbox360_and_back() {
    let Some(corpus) = common::corpus("corpus_titanfall_maps_convert_to_xbox360_and_back") else { return };
    let mut n = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let bsp = Bsp::open(&m.path).unwrap();
        if bsp.branch().id != "titanfall2" {
            continue;
        }
        let what = m.path.display().to_string();
        let dir = common::scratch(&format!("tf-x360-{n}"));
        let (a, b, c, d) = (dir.join("a/m.bsp"), dir.join("b/m.bsp"), dir.join("c/m.bsp"), dir.join("d/m.bsp"));
        for p in [&a, &b, &c, &d] {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        }
        convert::write(&bsp, &opts("titanfall", None), &a, false).unwrap_or_else(|e| panic!("{what}: {e}"));
        let pc = Bsp::open(&a).unwrap();
        let r = convert::write(&pc, &opts("titanfall_x360", None), &b, false).unwrap_or_else(|e| panic!("{what}: {e}"));
        // Only bytes whose console form is unknown are reported, each kept as it was.
        for l in &r.losses {
            assert_eq!(l.kind, "kept_unconverted", "{what}: {l}");
        }
        let swapped = r.lumps.iter().filter(|l| l.action == "swapped").count();
        let x = Bsp::open(&b).unwrap();
        let tris = same_as_pc(&pc, &x, &what);
        // The `.ent` partitions beside each form are the same text.
        let ents = |dir: &std::path::Path| {
            let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
                .unwrap()
                .map(|f| f.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "ent"))
                .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
                .collect();
            v.sort();
            v
        };
        let pc_ents = ents(a.parent().unwrap());
        assert!(!pc_ents.is_empty(), "{what}: no .ent partitions");
        assert_eq!(ents(b.parent().unwrap()), pc_ents, "{what}: .ent files beside the console map");
        let back = convert::write(&x, &opts("titanfall", None), &c, false).unwrap();
        assert!(std::fs::read(&c).unwrap() == std::fs::read(&a).unwrap(), "{what}: the way back differs");
        assert_eq!(ents(c.parent().unwrap()), pc_ents, "{what}");
        assert_eq!(back.losses.len(), r.losses.len(), "{what}");
        // As a set with `.bsp_lump` files: folded into the same console map.
        let pc_alone = Bsp::open_with(&a, &OpenOptions { external_lumps: false, ..Default::default() }).unwrap();
        let split: Vec<(usize, Option<u64>)> =
            [respawn::LUMP_ENTITIES, respawn::LUMP_VERTICES, respawn::LUMP_MESHES, respawn::LUMP_GAME_LUMP]
                .into_iter()
                .filter(|&i| pc_alone.entry(i).is_some_and(|e| e.length > 0))
                .map(|i| (i, None))
                .collect();
        bspkit::mapset::split_external(&pc_alone, &d, &split).unwrap_or_else(|e| panic!("{what}: split: {e}"));
        let set = Bsp::open(&d).unwrap();
        assert!(set.lumps().iter().any(|e| matches!(e.origin, bspkit::directory::LumpOrigin::BspLump(_))), "{what}: not read as a set");
        let folded = convert::prepare(&set, &opts("titanfall_x360", None), false).unwrap();
        assert!(folded.bytes == std::fs::read(&b).unwrap(), "{what}: the set's console form differs");
        eprintln!("{what}: {tris} triangles, {swapped} lumps swapped, {} kept as bytes, {} bytes", r.losses.len(), r.size);
        n += 1;
    }
    assert!(n >= 3, "{n} Titanfall 2 maps");
}

/// Garbled maps of both forms (the builder's room, and with the corpus each Titanfall 2 map
/// taken to Titanfall) convert to the other form or fail with a typed error: never a panic.
#[test]
fn garbled_maps_convert_or_fail_cleanly() {
    let mut sources = vec![titanfall_room()];
    if let Some(corpus) = common::corpus("garbled_maps_convert_or_fail_cleanly") {
        for m in common::maps_in(&corpus, "respawn") {
            let bsp = Bsp::open(&m.path).unwrap();
            if bsp.branch().id == "titanfall2" {
                sources.push(convert::prepare(&bsp, &opts("titanfall", None), false).unwrap().bytes);
            }
        }
    }
    let (mut cases, mut converted) = (0, 0);
    for pc in sources {
        let x = titanfall_x360_from(&Bsp::from_bytes(&pc).unwrap()).unwrap();
        for (data, to) in [(pc, "titanfall_x360"), (x, "titanfall")] {
            for d in common::garbled(&data, 24) {
                let Ok(bsp) = Bsp::from_bytes(&d) else { continue };
                cases += 1;
                converted += usize::from(convert::convert(&bsp, &opts(to, None)).is_ok());
            }
        }
    }
    eprintln!("{cases} garbled maps opened, {converted} converted");
    assert!(cases >= 40, "{cases}");
    // Counts that lie: the game lump's child count, the `sprp` prop count. Each conversion
    // fails with an error naming the game lump, in both directions.
    let pc = titanfall_room();
    let x = titanfall_x360_map();
    let mut lies = 0;
    for (data, to, e) in [(pc, "titanfall_x360", Endian::Little), (x, "titanfall", Endian::Big)] {
        let bsp = Bsp::from_bytes(&data).unwrap();
        let gl = bsp.entry(respawn::LUMP_GAME_LUMP).unwrap().offset as usize;
        let word = |v: u32| if e == Endian::Big { v.to_be_bytes() } else { v.to_le_bytes() };
        // The child count, then the prop count (after the names count, one 128-byte name and the leaf count).
        let sprp_start = gl + 4 + 16;
        for at in [gl, sprp_start + 4 + 128 + 4] {
            let mut lie = data.clone();
            lie[at..at + 4].copy_from_slice(&word(0x4000_0000));
            let Ok(b) = Bsp::from_bytes(&lie) else { continue };
            let err = convert::convert(&b, &opts(to, None)).unwrap_err();
            assert!(err.to_string().contains("GAME_LUMP"), "{to} at {at}: {err}");
            lies += 1;
        }
    }
    assert_eq!(lies, 4);
}
