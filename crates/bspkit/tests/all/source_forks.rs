//! Issue 22, Source forks whose difference is their static props (source.md §3, §14.3): The
//! Ship / Bloody Good Time (`outerlight`), Zeno Clash (`zenoclash`), Fairy Tale Busters (`ftb`),
//! Black Mesa (`blackmesa`), and Source Filmmaker (`sfm`, by its TF2 entity classes). Builder
//! maps: detection with its evidence, `--branch` forcing, typed props; a corpus TF2 map with
//! each fork's `sprp` grafted in: check clean, byte-identical rewrite, export with the props.

use crate::common;

use bspkit::branches::source;
use bspkit::build::BspBuilder;
use bspkit::lumps::gamelump::{self, GameLumps, OffsetBase, ID_STATIC_PROPS};
use bspkit::lumps::staticprops::*;
use bspkit::{Bsp, Endian, OpenOptions};
use zerocopy::{FromZeros, IntoBytes, LittleEndian};

type L = LittleEndian;

fn name128(s: &str) -> [u8; 128] {
    let mut b = [0u8; 128];
    b[..s.len()].copy_from_slice(s.as_bytes());
    b
}

/// A `sprp` child: dictionary, (Zeno Clash's second list), leaves, props (the library's builder).
fn sprp(names: &[&str], extra: Option<&[&str]>, leaves: &[u16], props: &[Vec<u8>]) -> Vec<u8> {
    let props: Vec<&[u8]> = props.iter().map(|p| p.as_slice()).collect();
    bspkit::build::source_forks::sprp_bytes(names, extra, leaves, &props)
}

fn v4(origin: f32, model: u16) -> StaticPropV4<L> {
    let mut p = StaticPropV4::<L>::new_zeroed();
    p.origin[0].set(origin);
    p.model.set(model);
    p.leaf_count.set(1);
    p.solid = 6;
    p.fade_max.set(1000.0);
    p
}

fn v5(origin: f32, model: u16) -> StaticPropV5<L> {
    let mut p = StaticPropV5::<L>::new_zeroed();
    p.v4 = v4(origin, model);
    p.forced_fade_scale.set(1.0);
    p
}

fn v6(origin: f32, model: u16) -> StaticPropV6<L> {
    let mut p = StaticPropV6::<L>::new_zeroed();
    p.v5 = v5(origin, model);
    p
}

/// Each fork's `sprp` version and bytes (two props on leaf 0), the branch it must be detected
/// as, and a phrase of the evidence.
fn forks() -> Vec<(&'static str, u16, Vec<u8>, &'static str)> {
    let names = ["models/a.mdl", "models/b.mdl"];
    let mut ship = StaticPropV5Ship::<L>::new_zeroed();
    ship.v5 = v5(16.0, 1);
    ship.targetname = name128("crate_1");
    let mut bgt = StaticPropV6Bgt::<L>::new_zeroed();
    bgt.v6 = v6(32.0, 0);
    bgt.targetname = name128("bgt_prop");
    let mut zc = StaticPropV7::<L>::new_zeroed();
    zc.v6 = v6(48.0, 1);
    let mut ftb = StaticPropV11::<L>::new_zeroed();
    ftb.v8.v5 = v5(64.0, 1);
    ftb.v8.diffuse_modulation = [255; 4];
    ftb.uniform_scale.set(2.0);
    let mut bm = StaticPropV11BmEx::<L>::new_zeroed();
    bm.bm.v7s.v6 = v6(80.0, 1);
    bm.bm.v7s.flags.set(0x40);
    bm.bm.diffuse_modulation = [255; 4];
    bm.flags_ex.set(3);
    let two = |b: &[u8]| vec![b.to_vec(), b.to_vec()];
    vec![
        ("outerlight", 5, sprp(&names, None, &[0], &two(ship.as_bytes())), "version 5 of 188 bytes: The Ship"),
        ("outerlight", 6, sprp(&names, None, &[0], &two(bgt.as_bytes())), "version 6 of 192 bytes: Bloody Good Time"),
        ("zenoclash", 7, sprp(&names, Some(&["models/zeno/x.mdl"]), &[0], &two(zc.as_bytes())), "second name list"),
        ("ftb", 7, sprp(&names, None, &[0], &two(ftb.as_bytes())), "version 7 of 76 bytes"),
        ("blackmesa", 11, sprp(&names, None, &[0], &two(bm.as_bytes())), "version 11 of 80 bytes"),
    ]
}

fn game_lump(version: u16, child: Vec<u8>) -> Vec<u8> {
    gamelump::build(&[(ID_STATIC_PROPS, 0, version, child)], OffsetBase::Relative, 0, Endian::Little)
}

const ENTS: &[u8] = b"{\n\"classname\" \"worldspawn\"\n}\n\0";

#[test]
fn forks_are_detected_by_their_static_props_with_evidence() {
    for (id, version, child, phrase) in forks() {
        let map = BspBuilder::new(&source::SOURCE).version(20).lump(0, ENTS.to_vec()).lump(35, game_lump(version, child.clone())).build();
        let bsp = Bsp::from_bytes(&map).unwrap();
        let why = bsp.detection().why.join("; ");
        assert_eq!(bsp.branch().id, id, "{why}");
        assert!(why.contains(phrase), "{id}: {why}");
        let sp = GameLumps::of(&bsp).unwrap().static_props().unwrap().unwrap();
        let props = sp.props().unwrap();
        assert_eq!(props.len(), 2, "{id}");
        assert_eq!(props[1].leaf_count, 1);
        assert_ne!(sp.layout, PropLayout::Unknown);
        match (id, version) {
            ("outerlight", 5) => {
                assert_eq!(sp.layout, PropLayout::V5Ship);
                assert_eq!((props[0].targetname.as_deref(), props[0].model_name.as_deref()), (Some("crate_1"), Some("models/b.mdl")));
                assert_eq!(props[0].forced_fade_scale, Some(1.0));
            }
            ("outerlight", _) => assert_eq!(props[0].targetname.as_deref(), Some("bgt_prop")),
            ("zenoclash", _) => {
                assert_eq!(sp.extra_names, vec!["models/zeno/x.mdl".to_string()]);
                assert_eq!((sp.layout, sp.leaves.clone(), props[0].origin[0]), (PropLayout::V7, vec![0], 48.0));
            }
            ("ftb", _) => assert_eq!((sp.layout, props[0].uniform_scale, props[0].origin[0]), (PropLayout::V7Ftb, Some(2.0), 64.0)),
            _ => assert_eq!(
                (sp.layout, props[0].flags, props[0].flags_ex, props[0].diffuse_modulation),
                (PropLayout::V11BmEx, 0x40, Some(3), Some([255; 4]))
            ),
        }
        // Valve's branch reads the same bytes without the fork's form: `--branch source` forces
        // it (the props then do not decode), `--branch <fork>` on a plain map is honoured.
        let forced = Bsp::from_bytes_with(&map, &OpenOptions { branch: Some("source".into()), ..Default::default() }).unwrap();
        assert_eq!(forced.branch().id, "source");
        let plain = GameLumps::of(&forced).unwrap().static_props();
        assert!(plain.is_err() || plain.unwrap().unwrap().props().map(|p| p.len() != 2 || p[0].targetname.is_none()).unwrap_or(true));
        let plain_map = BspBuilder::new(&source::SOURCE).version(20).lump(0, ENTS.to_vec()).build();
        let forced = Bsp::from_bytes_with(&plain_map, &OpenOptions { branch: Some(id.into()), ..Default::default() }).unwrap();
        assert_eq!(forced.branch().id, id);
    }
}

#[test]
fn forks_without_props_are_told_by_entity_classes_and_collisions_stay_valve() {
    let ents = |classes: &[&str]| {
        let mut t = ENTS[..ENTS.len() - 1].to_vec();
        for c in classes {
            t.extend_from_slice(format!("{{\n\"classname\" \"{c}\"\n}}\n").as_bytes());
        }
        t.push(0);
        t
    };
    let open = |version: u32, e: Vec<u8>, gl: Option<Vec<u8>>| {
        let mut b = BspBuilder::new(&source::SOURCE).version(version).lump(0, e);
        if let Some(gl) = gl {
            b = b.lump(35, gl);
        }
        let map = b.build();
        let bsp = Bsp::from_bytes(&map).unwrap();
        (bsp.branch().id, bsp.detection().why.join("; "))
    };
    assert_eq!(open(20, ents(&["ship_trap", "ship_lift"]), None).0, "outerlight");
    assert_eq!(open(20, ents(&["npc_zeno_punk", "weapon_zeno_hammer"]), None).0, "zenoclash");
    let (id, why) = open(20, ents(&["npc_human_grunt", "item_weapon_gluon"]), None);
    assert_eq!(id, "blackmesa");
    assert!(why.contains("npc_human_grunt, item_weapon_gluon"), "{why}");
    // One class is not enough; a value naming a class is not a class.
    assert_eq!(open(20, ents(&["ship_trap"]), None).0, "source");
    assert_eq!(open(20, b"{\n\"classname\" \"worldspawn\"\n\"message\" \"ship_trap ship_lift\"\n}\n\0".to_vec(), None).0, "source");
    // Source Filmmaker: TF2's classes in a v21 map; TF2's own v20 maps stay `source`.
    let tf = ents(&["tf_gamerules", "info_player_teamspawn", "team_control_point"]);
    let (id, why) = open(21, tf.clone(), None);
    assert_eq!(id, "sfm");
    assert!(why.contains("Team Fortress 2 entity class(es)"), "{why}");
    // ... but with static props version 11 (CS:GO's alone) it is CS:GO: a TF2 map moved there.
    let (id, why) = open(21, tf.clone(), Some(game_lump(11, Vec::new())));
    assert_eq!(id, "csgo", "{why}");
    assert_eq!(open(21, tf.clone(), Some(game_lump(10, Vec::new()))).0, "sfm");
    assert_eq!(open(20, tf, None).0, "source");
    // Valve's own forms at the forks' versions stay Valve's branches.
    let valve_v5 = sprp(&["m.mdl"], None, &[0], &[v5(1.0, 0).as_bytes().to_vec()]);
    assert_eq!(open(20, ENTS.to_vec(), Some(game_lump(5, valve_v5))).0, "source");
    let mut l4d = StaticPropV7::<L>::new_zeroed();
    l4d.v6 = v6(1.0, 0);
    let valve_v7 = sprp(&["m.mdl"], None, &[0], &[l4d.as_bytes().to_vec()]);
    assert_eq!(open(20, ENTS.to_vec(), Some(game_lump(7, valve_v7))).0, "source");
    // CS:GO's version 11 in a v21 map stays CS:GO.
    assert_eq!(open(21, ENTS.to_vec(), Some(game_lump(11, Vec::new()))).0, "csgo");
}

/// Truncated and lying `sprp` children of every fork give typed errors, never a panic.
#[test]
fn damaged_fork_props_fail_cleanly() {
    for (id, version, child, _) in forks() {
        let game = PropGame::of_branch(id);
        for cut in 0..child.len() {
            let _ = StaticProps::parse_in(std::borrow::Cow::Borrowed(&child[..cut]), version, Endian::Little, game).map(|p| p.props());
        }
        for at in (0..child.len().saturating_sub(3).min(600)).step_by(4) {
            let mut bad = child.clone();
            bad[at..at + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
            let _ = StaticProps::parse_in(std::borrow::Cow::Borrowed(&bad), version, Endian::Little, game).map(|p| p.props());
            let map = BspBuilder::new(&source::SOURCE).version(20).lump(0, ENTS.to_vec()).lump(35, game_lump(version, bad)).build();
            if let Ok(bsp) = Bsp::from_bytes(&map) {
                let _ = bspkit::check::check(&bsp);
            }
        }
    }
}

/// A real TF2 map (corpus) with each fork's props grafted into its game lump: detected as the
/// fork, checks clean, rewrites byte for byte, and exports its faces with the two props.
#[test]
fn corpus_map_with_fork_props_checks_rewrites_and_exports() {
    let Some(dir) = common::corpus("corpus_map_with_fork_props_checks_rewrites_and_exports") else { return };
    let path = dir.join("source/bsp_tool__tf2_mp_lobby.bsp");
    let base = std::fs::read(&path).unwrap();
    let out = common::scratch("forks");
    for (id, version, child, _) in forks() {
        let bsp = Bsp::from_bytes(&base).unwrap();
        let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
        ed.set_lump(35, game_lump(version, child)).unwrap();
        let grafted = ed.to_bytes().unwrap();
        let bsp = Bsp::from_bytes(&grafted).unwrap();
        assert_eq!(bsp.branch().id, id);
        let problems = bspkit::check::check(&bsp);
        assert!(problems.is_empty(), "{id}: {problems:?}");
        assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), grafted, "{id}: rewrite");
        let glb = out.join(format!("{id}{version}.glb"));
        let opts = bspkit::export::ExportOptions { format: Some(bspkit::export::Format::Glb), ..Default::default() };
        let summary = bspkit::export::export(&bsp, &glb, &opts).unwrap();
        assert!(summary.triangles > 0, "{id}");
        let scene = bspkit::mesh::build(&bsp, &Default::default()).unwrap();
        assert_eq!(scene.props.len(), 2, "{id}: {:?}", scene.warnings);
    }
}

/// Portal 2 on Xbox 360 is `PSBV` 21 (source.md §1: console maps are big-endian): a big-endian
/// v21 map with a version 9 `sprp` (props and game lump in big-endian) is `portal2`, its props
/// decode, and it rewrites byte for byte.
#[test]
fn portal2_x360_big_endian_v21_reads() {
    use zerocopy::BigEndian;
    let mut p = StaticPropV9::<BigEndian>::new_zeroed();
    p.v8.v5.v4.origin[2].set(-64.0);
    p.v8.v5.v4.model.set(0);
    p.disable_x360.set(1);
    let mut child = 1i32.to_be_bytes().to_vec();
    child.extend_from_slice(&name128("models/props/radio_reference.mdl"));
    child.extend_from_slice(&0i32.to_be_bytes());
    child.extend_from_slice(&1i32.to_be_bytes());
    child.extend_from_slice(p.as_bytes());
    let gl = gamelump::build(&[(ID_STATIC_PROPS, 0, 9, child)], OffsetBase::Relative, 0, Endian::Big);
    let map = BspBuilder::new(&source::SOURCE).version(21).endian(Endian::Big).lump(0, ENTS.to_vec()).lump(35, gl).build();
    assert_eq!(&map[..4], b"PSBV");
    let bsp = Bsp::from_bytes(&map).unwrap();
    assert_eq!((bsp.branch().id, bsp.endian()), ("portal2", Endian::Big));
    let props = GameLumps::of(&bsp).unwrap().static_props().unwrap().unwrap().props().unwrap();
    assert_eq!(
        (props[0].origin[2], props[0].disable_x360, props[0].model_name.as_deref()),
        (-64.0, Some(1), Some("models/props/radio_reference.mdl"))
    );
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), map);
}
