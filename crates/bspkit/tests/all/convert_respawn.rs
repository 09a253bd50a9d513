//! `bspkit::convert` Titanfall (rBSP 29) ↔ Titanfall 2 (rBSP 37), on a builder-made Titanfall map
//! (the corpus has no Titanfall map) and the corpus Titanfall 2 maps: meshes, static props,
//! world lights and light probe references carry over; every loss is listed; a map with nothing
//! to lose goes up and back byte for byte; garbled maps fail cleanly.

use crate::common;

use bspkit::branches::respawn::{self, RespawnPropLayout, Titanfall, Titanfall2, View};
use bspkit::build::BspBuilder;
use bspkit::check::Severity;
use bspkit::convert::{self, ConvertOptions, Lzma};
use bspkit::lumps::gamelump::{self, OffsetBase};
use bspkit::mesh::{self, MeshOptions};
use bspkit::Bsp;
use zerocopy::{FromZeros, IntoBytes};

const ENTS: &[u8] = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"func_brush\"\n\"model\" \"*1\"\n}\n\0";

fn to(id: &str) -> ConvertOptions {
    ConvertOptions { to: bspkit::branches::by_id(id).unwrap(), endian: None, lzma: Lzma::Auto, static_props: None }
}

fn vec3s(v: &[[f32; 3]]) -> Vec<u8> {
    v.iter().flat_map(|p| p.iter().flat_map(|c| c.to_le_bytes())).collect()
}

/// A Titanfall map with two models of meshes, two static props (a leaf list, fade distances),
/// a world light, two light probe references and a PHYSICS_LEVEL lump.
fn titanfall_map(base: OffsetBase) -> Vec<u8> {
    titanfall_map_with(base, true)
}

/// [`titanfall_map`]; without `lossy`, nothing Titanfall 2 cannot hold: no leaf list, no fade
/// distances, no PHYSICS_LEVEL.
fn titanfall_map_with(base: OffsetBase, lossy: bool) -> Vec<u8> {
    use respawn::*;
    let mut world = <ModelR1>::new_zeroed();
    world.num_meshes.set(1);
    let mut brush = <ModelR1>::new_zeroed();
    brush.first_mesh.set(1);
    brush.num_meshes.set(1);
    let mesh = |first: u32| {
        let mut m = <MeshR1>::new_zeroed();
        m.first_mesh_index.set(first);
        m.num_triangles.set(1);
        m
    };
    let meshes = [mesh(0), mesh(3)];
    let sorts = [<MaterialSortR1>::new_zeroed()];
    let mut tds = [<TextureDataR1>::new_zeroed()];
    tds[0].size = [64.into(), 32.into()];
    let mut verts = [<VertexLitFlatR1>::new_zeroed(); 4];
    for (i, v) in verts.iter_mut().enumerate() {
        v.position_index.set(i as u32);
        v.albedo_uv = [(i as f32).into(), 0.5.into()];
    }
    let mut props = Vec::new();
    for k in 0..2 {
        let mut p = <StaticPropR1>::new_zeroed();
        p.origin = [(100.0 * k as f32).into(), 2.0.into(), 3.0.into()];
        p.angles = [0.0.into(), (90.0 * k as f32).into(), 0.0.into()];
        p.scale.set(1.5);
        p.model.set(k as u16);
        if lossy {
            p.first_leaf.set(k as u16);
            p.num_leaves.set(1);
            p.fade_min.set(500.0);
            p.fade_max.set(900.0);
        }
        p.solid = 6;
        p.skin.set(k as i16);
        p.cubemap.set(-1);
        p.lighting_origin = p.origin;
        p.diffuse_modulation = [255, 255, 255, 255];
        p.collision_flags[0].set(0x10);
        props.push(p.as_bytes().to_vec());
    }
    let leaves: &[u16] = if lossy { &[0, 1] } else { &[] };
    let child = respawn::sprp::build(RespawnPropLayout::R1, &["models/a.mdl", "models/b.mdl"], leaves, &props, None);
    let mut light = <WorldLight>::new_zeroed();
    light.origin = [1.0.into(), 2.0.into(), 3.0.into()];
    light.intensity = [10.0.into(), 10.0.into(), 10.0.into()];
    let refs: Vec<u8> = (0..2u32).flat_map(|k| [vec3s(&[[k as f32, 0.0, 64.0]]), k.to_le_bytes().to_vec()].concat()).collect();
    let mut b = BspBuilder::new(&TITANFALL)
        .version(29)
        .lump(LUMP_ENTITIES, ENTS.to_vec())
        .lump(LUMP_VERTICES, vec3s(&[[0., 0., 0.], [0., 64., 0.], [64., 0., 0.], [64., 64., 0.]]))
        .lump(LUMP_VERTEX_NORMALS, vec3s(&[[0., 0., 1.]]))
        .lump(LUMP_MODELS, [world.as_bytes(), brush.as_bytes()].concat())
        .lump(LUMP_MESHES, meshes.as_bytes().to_vec())
        .lump(LUMP_MESH_INDICES, [0u16, 1, 2, 1, 3, 2].as_bytes().to_vec())
        .lump(LUMP_MATERIAL_SORTS, sorts.as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA, tds.as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA_STRING_TABLE, [0u32].as_bytes().to_vec())
        .lump(LUMP_TEXTURE_DATA_STRING_DATA, b"dev/grid1\0".to_vec())
        .lump(LUMP_VERTEX_LIT_FLAT, verts.as_bytes().to_vec())
        .lump(LUMP_WORLD_LIGHTS, light.as_bytes().to_vec())
        .lump(LUMP_LIGHTPROBE_REFERENCES, refs)
        .lump(LUMP_MESH_BOUNDS, vec![0u8; 2 * 32])
        .lump(LUMP_LIGHTPROBES, vec![0u8; 2 * 48])
        // One 1 × 1 page of type 1 and its sky texels (8 bytes a texel, as the corpus maps).
        .lump(LUMP_LIGHTMAP_HEADERS, [1u32.to_le_bytes(), [1, 0, 1, 0]].concat())
        .lump(LUMP_LIGHTMAP_DATA_SKY, vec![0u8; 8]);
    if lossy {
        b = b.lump(LUMP_PHYSICS_LEVEL, vec![7u8; 24]);
    }
    // The game lump is the last lump before the ones above it in slot order; with absolute
    // offsets its place is found by building once.
    let game = |at: u64| gamelump::build(&[(gamelump::ID_STATIC_PROPS, 0, 12, child.clone())], base, at, bspkit::Endian::Little);
    let first = b.clone().lump(LUMP_GAME_LUMP, game(0)).build();
    let at = Bsp::from_bytes(&first).unwrap().entry(LUMP_GAME_LUMP).unwrap().offset;
    b = b.lump(LUMP_GAME_LUMP, game(at));
    b.build()
}

fn errors(bsp: &Bsp) -> Vec<String> {
    bspkit::check::check(bsp).iter().filter(|p| p.severity == Severity::Error).map(|p| p.to_string()).collect()
}

#[test]
fn titanfall_converts_to_titanfall2() {
    for base in [OffsetBase::Absolute, OffsetBase::Relative] {
        let data = titanfall_map(base);
        let bsp = Bsp::from_bytes(&data).unwrap();
        assert_eq!(bsp.branch().id, "titanfall");
        assert!(errors(&bsp).is_empty(), "{:?}", errors(&bsp));
        let c = convert::prepare(&bsp, &to("titanfall2"), false).unwrap();
        let out = Bsp::from_bytes(&c.bytes).unwrap();
        assert_eq!((out.branch().id, out.header().version), ("titanfall2", 37));
        assert!(errors(&out).is_empty(), "{:?}", errors(&out));

        // Meshes: the same triangles in each model.
        let (a, b) = (mesh::build(&bsp, &MeshOptions::default()).unwrap(), mesh::build(&out, &MeshOptions::default()).unwrap());
        assert_eq!(a.models.len(), 2);
        for (x, y) in a.models.iter().zip(&b.models) {
            assert_eq!((&x.indices, &x.vertices.positions), (&y.indices, &y.vertices.positions));
        }
        // Static props: version 13, the same places, angles, scales, models and skins.
        let sa = View::<Titanfall>::new(&bsp).unwrap().static_props().unwrap().unwrap();
        let sb = View::<Titanfall2>::new(&out).unwrap().static_props().unwrap().unwrap();
        assert_eq!((sb.version, sb.layout, sb.count, sb.extra_count), (13, RespawnPropLayout::R2, 2, 0));
        for (p, q) in sa.props().iter().zip(sb.props()) {
            assert_eq!((p.origin, p.angles, p.scale, &p.model_name), (q.origin, q.angles, q.scale, &q.model_name));
        }
        assert_eq!(sb.props()[1].model_name.as_deref(), Some("models/b.mdl"));
        // World lights: the same 100-byte record, lump version 1.
        let wl = out.entry(respawn::LUMP_WORLD_LIGHTS).unwrap();
        assert_eq!(wl.version, Some(1));
        assert_eq!(out.raw_lump(respawn::LUMP_WORLD_LIGHTS).unwrap(), bsp.raw_lump(respawn::LUMP_WORLD_LIGHTS).unwrap());
        // Light probe references: each 16 bytes then a zero word.
        let (ra, rb) =
            (bsp.raw_lump(respawn::LUMP_LIGHTPROBE_REFERENCES).unwrap(), out.raw_lump(respawn::LUMP_LIGHTPROBE_REFERENCES).unwrap());
        assert_eq!(rb.len(), 40);
        for k in 0..2 {
            assert_eq!(&rb[20 * k..20 * k + 16], &ra[16 * k..16 * k + 16]);
            assert_eq!(&rb[20 * k + 16..20 * k + 20], &[0u8; 4]);
        }
        assert_eq!(out.entry(respawn::LUMP_PHYSICS_LEVEL).map_or(0, |e| e.length), 0);
        // Every other lump copied byte for byte.
        for i in [respawn::LUMP_ENTITIES, respawn::LUMP_MESHES, respawn::LUMP_VERTEX_LIT_FLAT, respawn::LUMP_TEXTURE_DATA] {
            assert_eq!(out.raw_lump(i).unwrap(), bsp.raw_lump(i).unwrap(), "lump {i:#x}");
        }

        // The losses: each named.
        let losses: Vec<(String, &str)> = c.report.losses.iter().map(|l| (l.lump.clone().unwrap_or_default(), l.kind)).collect();
        for want in [
            ("LIGHTPROBE_REFERENCES", "defaulted"),
            ("PHYSICS_LEVEL", "dropped"),
            ("GAME_LUMP/sprp", "dropped"),
            ("WORLD_LIGHT_PARENT_INFOS", "defaulted"),
            ("LIGHTMAP_DATA_RTL_PAGES", "defaulted"),
            ("SHADOW_ENVIRONMENTS", "defaulted"),
        ] {
            assert!(losses.iter().any(|(l, k)| l == want.0 && *k == want.1), "{want:?} not in {losses:?}");
        }
        // sprp: the leaf list with the leaf ranges, and the fade distances.
        assert_eq!(losses.iter().filter(|l| l.0 == "GAME_LUMP/sprp").count(), 2, "{losses:?}");
        assert!(!c.report.lossless);
        let strict = convert::prepare(&bsp, &to("titanfall2"), true).unwrap_err();
        assert!(matches!(strict.kind, bspkit::error::ErrorKind::Lossy(_)), "{strict}");
        // And back down: checked clean, the same meshes and props; PHYSICS_LEVEL and the
        // props' leaves and fades were lost on the way up.
        let d = convert::prepare(&out, &to("titanfall"), false).unwrap();
        let back = Bsp::from_bytes(&d.bytes).unwrap();
        assert_eq!((back.branch().id, back.header().version), ("titanfall", 29));
        assert!(errors(&back).is_empty(), "{:?}", errors(&back));
        let m = mesh::build(&back, &MeshOptions::default()).unwrap();
        for (x, y) in a.models.iter().zip(&m.models) {
            assert_eq!((&x.indices, &x.vertices.positions), (&y.indices, &y.vertices.positions));
        }
        let sc = View::<Titanfall>::new(&back).unwrap().static_props().unwrap().unwrap();
        assert_eq!((sc.version, sc.count, sc.leaves.len()), (12, 2, 0));
        for (p, q) in sa.props().iter().zip(sc.props()) {
            assert_eq!(
                (p.origin, p.angles, p.scale, &p.model_name, p.skin, p.cubemap),
                (q.origin, q.angles, q.scale, &q.model_name, q.skin, q.cubemap)
            );
            assert_eq!((q.fade, q.leaves), (Some([0.0, 0.0]), Some([0, 0])));
        }
        assert_eq!(back.raw_lump(respawn::LUMP_LIGHTPROBE_REFERENCES).unwrap(), bsp.raw_lump(respawn::LUMP_LIGHTPROBE_REFERENCES).unwrap());
        assert_eq!(back.raw_lump(respawn::LUMP_WORLD_LIGHTS).unwrap(), bsp.raw_lump(respawn::LUMP_WORLD_LIGHTS).unwrap());
        let down: Vec<(String, &str)> = d.report.losses.iter().map(|l| (l.lump.clone().unwrap_or_default(), l.kind)).collect();
        assert!(down.contains(&("GAME_LUMP/sprp".into(), "defaulted")), "{down:?}");
        assert!(down.contains(&("PHYSICS_LEVEL".into(), "defaulted")), "{down:?}");
        assert!(convert::prepare(&out, &to("titanfall"), true).is_err());
    }
}

/// A Titanfall map with nothing Titanfall 2 cannot hold goes up and back down byte for byte
/// (both offset conventions of the game lump).
#[test]
fn titanfall_up_and_down_is_byte_identical() {
    for base in [OffsetBase::Absolute, OffsetBase::Relative] {
        let data = titanfall_map_with(base, false);
        let bsp = Bsp::from_bytes(&data).unwrap();
        let up = convert::prepare(&bsp, &to("titanfall2"), false).unwrap();
        // Up is still lossy by the report: the slots Titanfall 2 adds are named, left empty.
        assert!(up.report.losses.iter().all(|l| l.kind == "defaulted"), "{:?}", up.report.losses);
        let out = Bsp::from_bytes(&up.bytes).unwrap();
        let down = convert::prepare(&out, &to("titanfall"), false).unwrap();
        let first = down.bytes.iter().zip(&data).position(|(a, b)| a != b);
        assert!(down.bytes == data, "{base:?}: {} bytes back, {} before, first difference at {first:?}", down.bytes.len(), data.len());
        // Down names what Titanfall lacks: the physics slots and the props' leaves and fades.
        let kinds: Vec<_> = down.report.losses.iter().map(|l| (l.lump.clone().unwrap_or_default(), l.kind)).collect();
        assert_eq!(kinds.len(), 3, "{kinds:?}");
    }
}

/// The corpus Titanfall 2 maps (mp_looby read with its `.bsp_lump` files) down to Titanfall:
/// each checks with no new problem (`prepare`), re-reads as Titanfall with the same mesh
/// triangles and positions per model, the same static props (places, models, skins) and the
/// same entities; every lump Titanfall lacks is listed; `--strict` refuses; and taken up to
/// Titanfall 2 again it has those meshes, props and entities still.
#[test]
fn corpus_titanfall2_maps_convert_to_titanfall() {
    let Some(corpus) = common::corpus("corpus_titanfall2_maps_convert_to_titanfall") else { return };
    let mut n = 0;
    for m in common::maps_in(&corpus, "respawn") {
        let bsp = Bsp::open(&m.path).unwrap();
        if bsp.branch().id != "titanfall2" {
            continue;
        }
        let c = convert::prepare(&bsp, &to("titanfall"), false).unwrap_or_else(|e| panic!("{}: {e}", m.path.display()));
        let out = Bsp::from_bytes(&c.bytes).unwrap();
        assert_eq!((out.branch().id, out.header().version), ("titanfall", 29), "{}", m.path.display());
        let (a, b) = (mesh::build(&bsp, &MeshOptions::default()).unwrap(), mesh::build(&out, &MeshOptions::default()).unwrap());
        assert_eq!(a.models.len(), b.models.len());
        let mut tris = 0;
        for (x, y) in a.models.iter().zip(&b.models) {
            assert_eq!((&x.indices, &x.vertices.positions), (&y.indices, &y.vertices.positions), "{}", m.path.display());
            tris += x.indices.len() / 3;
        }
        let props = |b: &Bsp| -> Vec<_> {
            let p = if b.branch().id == "titanfall" {
                View::<Titanfall>::new(b).unwrap().static_props().unwrap()
            } else {
                View::<Titanfall2>::new(b).unwrap().static_props().unwrap()
            };
            p.map(|p| p.props().into_iter().map(|q| (q.origin, q.angles, q.scale, q.model_name, q.skin, q.solid)).collect())
                .unwrap_or_default()
        };
        assert_eq!(props(&out), props(&bsp), "{}", m.path.display());
        let ents = |b: &Bsp| bspkit::lumps::entities::parse(b.lump(0).unwrap()).map(|e| e.len()).unwrap();
        assert_eq!(ents(&out), ents(&bsp));
        for e in bsp.lumps() {
            let i = e.index;
            let tf1 = respawn::TITANFALL.lumps[i].name;
            if e.length > 0 && tf1 != e.name {
                assert!(
                    c.report.losses.iter().any(|l| l.index == Some(i) && l.kind == "dropped"),
                    "{}: {} not reported",
                    m.path.display(),
                    e.name
                );
            }
        }
        assert!(matches!(convert::prepare(&bsp, &to("titanfall"), true).unwrap_err().kind, bspkit::error::ErrorKind::Lossy(_)));
        // And up again: Titanfall 2 with the same meshes, props and entities (what went down
        // was lost: not byte-identical).
        let up = convert::prepare(&out, &to("titanfall2"), false).unwrap_or_else(|e| panic!("{} and up: {e}", m.path.display()));
        let again = Bsp::from_bytes(&up.bytes).unwrap();
        assert_eq!(again.branch().id, "titanfall2");
        let c2 = mesh::build(&again, &MeshOptions::default()).unwrap();
        for (x, y) in a.models.iter().zip(&c2.models) {
            assert_eq!((&x.indices, &x.vertices.positions), (&y.indices, &y.vertices.positions), "{} and up", m.path.display());
        }
        assert_eq!(props(&again), props(&bsp));
        assert_eq!(ents(&again), ents(&bsp));
        eprintln!(
            "{}: {} models, {tris} triangles, {} props, {} losses",
            m.path.display(),
            a.models.len(),
            props(&out).len(),
            c.report.losses.len()
        );
        // Written: the `.ent` partitions go beside the output, which then checks clean.
        let dir = common::scratch(&format!("convert-tf1-{n}"));
        let target = dir.join("tf1.bsp");
        convert::write(&bsp, &to("titanfall"), &target, false).unwrap();
        let written = Bsp::open(&target).unwrap();
        assert_eq!(written.data(), &c.bytes[..]);
        let parts = bspkit::mapset::MapSet::of(&bsp).unwrap().partitions.len();
        assert_eq!(bspkit::mapset::MapSet::of(&written).unwrap().partitions.len(), parts);
        let problems: Vec<String> = bspkit::check::check(&written).iter().map(|p| p.to_string()).collect();
        assert!(problems.is_empty(), "{}: {problems:?}", m.path.display());
        eprintln!("{}: {parts} .ent partitions written beside the output", m.path.display());
        n += 1;
    }
    assert_eq!(n, 3);
}

/// Truncated and garbled Titanfall maps: a typed error or a checked result, never a panic.
#[test]
fn titanfall_conversion_of_garbled_maps_fails_cleanly() {
    let data = titanfall_map(OffsetBase::Absolute);
    let mut cases = 0;
    // Whole-file damage, and one byte set to 0xFF at a time through the lump data (the header
    // kept, so the map still opens and the conversion reads the damage).
    let header = 16 + 16 * 128;
    let bytes: Vec<Vec<u8>> = (0..400)
        .map(|k| {
            let mut d = data.clone();
            d[header + (k * 37) % (data.len() - header)] = 0xFF;
            d
        })
        .collect();
    // The same for its Titanfall 2 form going down.
    let up = convert::prepare(&Bsp::from_bytes(&data).unwrap(), &to("titanfall2"), false).unwrap().bytes;
    let up_bytes: Vec<Vec<u8>> = (0..400)
        .map(|k| {
            let mut d = up.clone();
            d[header + (k * 37) % (up.len() - header)] = 0xFF;
            d
        })
        .collect();
    for d in common::garbled(&data, 64).into_iter().chain(bytes).chain(common::garbled(&up, 64)).chain(up_bytes) {
        let Ok(bsp) = Bsp::from_bytes(&d) else { continue };
        let target = match bsp.branch().id {
            "titanfall" => "titanfall2",
            "titanfall2" => "titanfall",
            _ => continue,
        };
        let _ = convert::prepare(&bsp, &to(target), false);
        cases += 1;
    }
    assert!(cases > 600, "{cases}");
}
