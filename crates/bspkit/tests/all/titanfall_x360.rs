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
