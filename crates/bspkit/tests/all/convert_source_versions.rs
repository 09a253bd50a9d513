//! `bspkit::convert` between Source versions (v19 `source2004`, v20 `source2006` / `source`,
//! v21 `l4d2` / `csgo`) and static prop versions, on the corpus PC Source maps of those
//! branches: every output reopens with the same record counts and checks clean; lossless moves
//! come back byte-identical; losses are the ones the module documents.

use crate::common;

use bspkit::bsp::OpenOptions;
use bspkit::convert::{self, source_version, ConvertOptions, Lzma};
use bspkit::lumps::gamelump::GameLumps;
use bspkit::Bsp;

fn to(id: &str, props: Option<u16>) -> ConvertOptions {
    ConvertOptions { to: bspkit::branches::by_id(id).unwrap(), endian: None, lzma: Lzma::Auto, static_props: props }
}

/// Record counts of the lumps every target keeps (geometry, tree, textures, displacements).
const KEPT: &[&str] = &[
    "PLANES",
    "TEXDATA",
    "VERTICES",
    "NODES",
    "TEXINFO",
    "FACES",
    "LEAVES",
    "EDGES",
    "SURFEDGES",
    "MODELS",
    "LEAF_FACES",
    "LEAF_BRUSHES",
    "BRUSHES",
    "BRUSH_SIDES",
    "AREAS",
    "AREA_PORTALS",
    "DISP_INFO",
    "DISP_VERTS",
    "ORIGINAL_FACES",
    "TEXDATA_STRING_TABLE",
    "LIGHTING",
];

fn counts(bsp: &Bsp) -> Vec<(&'static str, usize)> {
    let mut v: Vec<_> = bsp
        .lumps()
        .iter()
        .filter(|e| KEPT.contains(&e.name))
        .filter_map(|e| bsp.record_size(e.index).map(|s| (e.name, bsp.record_count(e.index, s).unwrap())))
        .collect();
    v.sort();
    v
}

/// `bsp info`'s rows: name, objects, bytes.
fn rows(bsp: &Bsp) -> Vec<(String, Option<u64>, u64)> {
    bspkit::stats::stats(bsp).into_iter().map(|s| (s.name, s.count, s.bytes)).collect()
}

/// `(version, props)` of the static prop lump.
fn props(bsp: &Bsp) -> (u16, Vec<bspkit::lumps::staticprops::StaticProp>) {
    let g = GameLumps::of(bsp).unwrap();
    let v = g.find(b"sprp").unwrap().version;
    (v, g.static_props().unwrap().unwrap().props().unwrap())
}

fn entity_count(bsp: &Bsp) -> usize {
    bspkit::lumps::entities::parse(bsp.lump(0).unwrap()).map(|e| e.len()).unwrap_or(0)
}

/// The corpus maps a version move reads (PC, of the branches it writes).
fn maps(test: &str) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let Some(corpus) = common::corpus(test) else { return Vec::new() };
    let mut out = Vec::new();
    for m in common::maps_in(&corpus, "source") {
        let data = std::fs::read(&m.path).unwrap();
        let id = Bsp::from_bytes(&data).unwrap().branch().id;
        if source_version::BRANCHES.contains(&id) {
            out.push((m.path, data));
        }
    }
    out
}

/// Every map to every other branch and back (asking for its own static prop version): the
/// output reopens (auto-detected) with the same counts, entities and props and checks clean;
/// lossless both ways means byte-identical back. Between v20 `source` and the v21 branches
/// every corpus map comes back byte-identical.
#[test]
fn version_moves_keep_counts_and_lossless_ones_come_back_identical() {
    let maps = maps("version_moves_keep_counts_and_lossless_ones_come_back_identical");
    if maps.is_empty() {
        return;
    }
    assert!(maps.len() >= 7, "{} maps", maps.len());
    let (mut identical, mut lossy, mut moves, mut with_info) = (0, 0, 0, 0);
    for (path, data) in &maps {
        let bsp = Bsp::from_bytes(data).unwrap();
        let from = bsp.branch().id;
        let (prop_version, src_props) = props(&bsp);
        for &target in source_version::BRANCHES.iter().filter(|&&t| t != from) {
            let c = convert::prepare(&bsp, &to(target, None), false).unwrap_or_else(|e| panic!("{} -> {target}: {e}", path.display()));
            assert_eq!(c.report.to.version, source_version::version_for(bspkit::branches::by_id(target).unwrap(), 20));
            let out = Bsp::from_bytes(&c.bytes).unwrap();
            assert_eq!(out.header().version, c.report.to.version);
            assert_eq!(counts(&out), counts(&bsp), "{} -> {target}", path.display());
            assert_eq!(entity_count(&out), entity_count(&bsp));
            let (_, out_props) = props(&out);
            assert_eq!(out_props.len(), src_props.len());
            for (a, b) in out_props.iter().zip(&src_props) {
                assert_eq!(
                    (a.origin, a.angles, a.model, a.skin, a.solid, a.first_leaf, a.leaf_count),
                    (b.origin, b.angles, b.model, b.skin, b.solid, b.first_leaf, b.leaf_count)
                );
            }
            // Checked as the target branch by `prepare`; and as detected, errors only where the source had them.
            let errs = |b: &Bsp| bspkit::check::check(b).iter().filter(|p| p.severity == bspkit::check::Severity::Error).count();
            assert_eq!(errs(&out), errs(&bsp), "{} -> {target}", path.display());
            let back = convert::prepare(&out, &to(from, Some(prop_version)), false)
                .unwrap_or_else(|e| panic!("{} -> {target} -> {from}: {e}", path.display()));
            let again = Bsp::from_bytes(&back.bytes).unwrap();
            assert_eq!(counts(&again), counts(&bsp));
            // Maps with vbspinfo ground truth (whose rows `bsp info` equals: source_core.rs) keep
            // every `bsp info` row through v21 and back.
            if common::info_txt(path).is_some() && matches!(target, "l4d2" | "csgo") {
                assert_eq!(rows(&again), rows(&bsp), "{} -> {target} -> {from}: bsp info rows", path.display());
                with_info += 1;
            }
            moves += 1;
            if c.report.lossless && back.report.lossless {
                assert!(back.bytes == *data, "{} -> {target} -> {from}: lossless both ways yet not byte-identical", path.display());
                identical += 1;
            } else {
                lossy += 1;
            }
            let v2021 = ["source", "l4d2", "csgo"];
            if v2021.contains(&from) && v2021.contains(&target) && from != "csgo" {
                // Only the uninitialised v7* padding byte (tf2_test2) or nothing is lost.
                for l in c.report.losses.iter().chain(&back.report.losses) {
                    assert!(l.message.contains("padding byte"), "{} -> {target}: {l}", path.display());
                }
                if c.report.lossless {
                    assert!(back.bytes == *data);
                }
            }
        }
    }
    eprintln!("{moves} moves: {identical} lossless and byte-identical back, {lossy} lossy; {with_info} round trips with equal info rows");
    // The four TF2 maps with a vbspinfo .info.txt, each through l4d2 and csgo.
    assert_eq!(with_info, 8);
    // 8 TF2/Garry's Mod moves into l4d2/csgo, Garry's Mod into source2006, L4D2 into three.
    assert!(identical >= 12, "{identical}");
}

/// Every corpus PC map moved to each other version branch is detected as that branch when
/// read back without `--branch`: L4D2 by its version-first `lump_t` order, CS:GO by static
/// props version 11 (which the move writes, as CS:GO's vbsp does) — also for the TF2 maps,
/// whose TF2 entity classes would otherwise say Source Filmmaker, and the L4D2 map, whose
/// version 9 props would otherwise say Portal 2; Source 2006 by its one cube per leaf, which
/// an unlit map gets as all-zero cubes (before, such a map read back as `source`).
#[test]
fn moved_maps_are_detected_as_their_target_branch() {
    let maps = maps("moved_maps_are_detected_as_their_target_branch");
    if maps.is_empty() {
        return;
    }
    assert_eq!(maps.len(), 7);
    let (mut n, mut unlit) = (0, 0);
    for (path, data) in &maps {
        let bsp = Bsp::from_bytes(data).unwrap();
        let from = bsp.branch().id;
        let no_ambient = [51, 52, 55, 56].iter().all(|&i| bsp.entry(i).map_or(0, |e| e.length) == 0);
        for &target in source_version::BRANCHES.iter().filter(|&&t| t != from) {
            let c = convert::prepare(&bsp, &to(target, None), false).unwrap_or_else(|e| panic!("{} -> {target}: {e}", path.display()));
            let out = Bsp::from_bytes(&c.bytes).unwrap();
            let detected = out.branch().id;
            assert_eq!(detected, target, "{} -> {target}: detected as {detected} ({:?})", path.display(), out.detection().why);
            if target == "csgo" {
                assert_eq!(props(&out).0, 11);
            }
            if target == "source2006" && no_ambient {
                // The marker: one all-zero LDR cube per leaf, listed as added, no loss for it.
                let leaves = out.entry(10).unwrap().length as usize / 32;
                let cubes = out.lump(56).unwrap();
                assert!(cubes.len() == 24 * leaves && cubes.iter().all(|&b| b == 0), "{}", path.display());
                assert!(c.report.lumps.iter().any(|l| l.index == 56 && l.action == "added"), "{}", path.display());
                // And back to the source's branch: no ambient lumps again.
                let back = convert::prepare(&out, &to(from, None), false).unwrap();
                let again = Bsp::from_bytes(&back.bytes).unwrap();
                assert!([51, 52, 55, 56].iter().all(|&i| again.entry(i).map_or(0, |e| e.length) == 0), "{}", path.display());
                unlit += 1;
            }
            n += 1;
        }
    }
    eprintln!("{n} moves detected as their target; {unlit} of them unlit maps moved to source2006");
    // Every move into l4d2 and csgo (6 + 6) among them.
    assert_eq!(n, 28);
    assert!(unlit >= 1, "{unlit}");
}

/// tf2_test2 (17 v7* props, version 10) to every static prop version each target reads and
/// back to version 10: props keep every field; what the lower versions lack held the engine
/// default, so the only loss is the v7* padding byte, and the bytes come back but for those.
#[test]
fn static_prop_versions_up_and_down() {
    let Some(corpus) = common::corpus("static_prop_versions_up_and_down") else { return };
    let path = corpus.join("source/bsp_tool__tf2_test2.bsp");
    let data = std::fs::read(&path).unwrap();
    let bsp = Bsp::from_bytes(&data).unwrap();
    let (v0, orig) = props(&bsp);
    assert_eq!((v0, orig.len()), (10, 17));
    let mut done = 0;
    for (target, versions) in [
        ("csgo", &[4u16, 5, 6, 7, 8, 9, 10, 11][..]),
        ("l4d2", &[4, 5, 6, 7, 8, 9][..]),
        ("source", &[4, 5, 6, 7, 10][..]),
        ("source2004", &[4, 5][..]),
    ] {
        for &v in versions {
            let c = convert::prepare(&bsp, &to(target, Some(v)), false).unwrap_or_else(|e| panic!("{target} v{v}: {e}"));
            let out = Bsp::from_bytes_with(&c.bytes, &OpenOptions { branch: Some(target.into()), ..Default::default() }).unwrap();
            let (got_v, got) = props(&out);
            assert_eq!((got_v, got.len()), (v, 17), "{target} v{v}");
            for (p, o) in got.iter().zip(&orig) {
                assert_eq!(
                    (p.origin, p.angles, p.lighting_origin, p.fade_min, p.fade_max, p.model_name.as_deref()),
                    (o.origin, o.angles, o.lighting_origin, o.fade_min, o.fade_max, o.model_name.as_deref())
                );
                // Engine defaults for what v7* lacks.
                if v >= 5 {
                    assert_eq!(p.forced_fade_scale, Some(1.0));
                }
                if v >= 8 && !(target == "source" && v == 10) {
                    assert_eq!((p.cpu_gpu_levels, p.diffuse_modulation), (Some([0; 4]), Some([255; 4])));
                }
                if target == "csgo" && v == 11 {
                    assert_eq!((p.uniform_scale, p.flags_ex), (Some(1.0), Some(0)));
                }
            }
            let sprp: Vec<_> = c.report.losses.iter().filter(|l| l.lump.as_deref() == Some("GAME_LUMP/sprp")).collect();
            if target == "source" && matches!(v, 7 | 10) {
                // v7* either way: the bytes are kept, only the number changes.
                assert!(sprp.is_empty(), "{sprp:?}");
            } else {
                assert_eq!(sprp.len(), 1, "{target} v{v}: {sprp:?}");
                assert!(sprp[0].message.contains("padding byte") && sprp[0].message.contains("10 prop(s)"));
            }
            // Back to v10 in the original branch.
            let back = convert::prepare(&out, &to("source", Some(10)), false).unwrap();
            let back_bsp = Bsp::from_bytes(&back.bytes).unwrap();
            assert_eq!(props(&back_bsp), (v0, orig.clone()), "{target} v{v} -> source v10: every decoded field back");
            if target != "source2004" {
                assert!(back.report.lossless, "{:?}", back.report.losses);
                let diff: Vec<usize> = back.bytes.iter().zip(&data).enumerate().filter(|(_, (a, b))| a != b).map(|(i, _)| i).collect();
                assert_eq!(back.bytes.len(), data.len());
                assert!(diff.len() <= 10, "{target} v{v}: {} bytes differ", diff.len());
            }
            done += 1;
        }
    }
    assert_eq!(done, 21);
}

/// A field a lower version lacks that holds something other than the default is reported, and
/// `--strict` then writes nothing; a version the target does not read is refused.
#[test]
fn dropped_prop_fields_are_reported_and_strict_refuses() {
    let Some(corpus) = common::corpus("dropped_prop_fields_are_reported_and_strict_refuses") else { return };
    let data = std::fs::read(corpus.join("source/bsp_tool__tf2_test2.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&data).unwrap();
    // Into CS:GO v11, then give the first prop a uniform scale of 2 and a red tint.
    let c = convert::prepare(&bsp, &to("csgo", Some(11)), false).unwrap();
    let mut bytes = c.bytes.clone();
    let out = Bsp::from_bytes_with(&c.bytes, &OpenOptions { branch: Some("csgo".into()), ..Default::default() }).unwrap();
    let g = GameLumps::of(&out).unwrap();
    let e = g.find(b"sprp").unwrap().clone();
    let sp = g.static_props().unwrap().unwrap();
    let lump_at = out.lumps()[35].offset as usize;
    let first = lump_at + e.start + sp.props_start();
    bytes[first + 64..first + 68].copy_from_slice(&[255, 0, 0, 255]);
    bytes[first + 72..first + 76].copy_from_slice(&2.0f32.to_le_bytes());
    drop(out);
    let edited = Bsp::from_bytes_with(&bytes, &OpenOptions { branch: Some("csgo".into()), ..Default::default() }).unwrap();
    let down = convert::convert(&edited, &to("source", None)).unwrap();
    let msgs: Vec<String> = down.report.losses.iter().map(|l| l.to_string()).collect();
    assert!(msgs.iter().any(|m| m.contains("UniformScale (not 1) of 1 prop(s)")), "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("DiffuseModulation (not 255 255 255 255) of 1 prop(s)")), "{msgs:?}");
    let dir = common::scratch("srcver");
    let target = dir.join("strict.bsp");
    let err = convert::write(&edited, &to("source", None), &target, true).unwrap_err();
    assert!(matches!(err.kind, bspkit::ErrorKind::Lossy(_)), "{err}");
    assert!(!target.exists());
    let err = convert::convert(&bsp, &to("source", Some(8))).unwrap_err();
    assert!(matches!(err.kind, bspkit::ErrorKind::Unsupported(_)), "{err}");
    let err = convert::convert(&bsp, &to("source2004", Some(6))).unwrap_err();
    assert!(matches!(err.kind, bspkit::ErrorKind::Unsupported(_)), "{err}");
}

/// Into v19: 56-byte leaves (lump version 0) holding the LDR cube nearest each leaf's centre,
/// world lights version 0, no HDR lumps; each reported. Back to v20, the cubes become one
/// centred sample per lit leaf and the map checks clean.
#[test]
fn v19_leaves_hold_the_ambient_cube() {
    let Some(corpus) = common::corpus("v19_leaves_hold_the_ambient_cube") else { return };
    let data = std::fs::read(corpus.join("source/bsp_tool__tf2_mp_lobby.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&data).unwrap();
    let c = convert::prepare(&bsp, &to("source2004", None), false).unwrap();
    let out = Bsp::from_bytes(&c.bytes).unwrap();
    assert_eq!((out.branch().id, out.header().version), ("source2004", 19));
    let leaves = out.lumps()[10].clone();
    assert_eq!((leaves.version, leaves.length as usize), (Some(0), 29 * 56));
    for i in [51, 52, 53, 54, 55, 56, 58, 59] {
        assert_eq!(out.lumps()[i].length, 0, "lump {i}");
    }
    let lost: Vec<&str> = c.report.losses.iter().filter_map(|l| l.lump.as_deref()).collect();
    for l in ["LEAVES", "LEAF_AMBIENT_LIGHTING_HDR", "LIGHTING_HDR", "WORLD_LIGHTS_HDR", "FACES_HDR", "MAP_FLAGS"] {
        assert!(lost.contains(&l), "{l} not reported: {lost:?}");
    }
    // Each leaf's cube is its LDR sample nearest the centre (128, 128, 128); none: zeros.
    let raw = out.lump(10).unwrap();
    let idx = bsp.lump(52).unwrap();
    let samples = bsp.lump(56).unwrap();
    let mut compared = 0;
    for (i, leaf) in raw.chunks_exact(56).enumerate() {
        let (n, first) =
            (u16::from_le_bytes([idx[4 * i], idx[4 * i + 1]]) as usize, u16::from_le_bytes([idx[4 * i + 2], idx[4 * i + 3]]) as usize);
        let near = (first..first + n).min_by_key(|&k| (24..27).map(|j| (samples[k * 28 + j] as i32 - 128).pow(2)).sum::<i32>());
        match near {
            Some(k) => {
                assert_eq!(&leaf[30..54], &samples[k * 28..k * 28 + 24], "leaf {i}");
                compared += 1;
            }
            None => assert!(leaf[30..54].iter().all(|&b| b == 0)),
        }
    }
    // mp_lobby: 4 of its 29 leaves have LDR samples (11, 15, 15 and 10 of them).
    assert_eq!(compared, 4);
    let back = convert::prepare(&out, &to("source", None), false).unwrap();
    let again = Bsp::from_bytes(&back.bytes).unwrap();
    assert_eq!((again.header().version, again.lumps()[10].version, again.lumps()[10].length), (20, Some(1), 29 * 32));
    assert_eq!(again.lumps()[52].length, 29 * 4);
    assert!(back.report.lossless, "{:?}", back.report.losses);
}

/// Damaged copies of a v20 map moved to each version: a typed error or a checked result,
/// never a panic.
#[test]
fn garbled_maps_move_or_fail_cleanly() {
    let Some(corpus) = common::corpus("garbled_maps_move_or_fail_cleanly") else { return };
    let data = std::fs::read(corpus.join("source/bsp_tool__tf2_test2.bsp")).unwrap();
    let (mut ok, mut failed) = (0, 0);
    for g in common::garbled(&data, 24) {
        let Ok(bsp) = Bsp::from_bytes(&g) else { continue };
        for target in ["source2004", "csgo"] {
            match convert::prepare(&bsp, &to(target, None), false) {
                Ok(c) => {
                    Bsp::from_bytes_with(&c.bytes, &OpenOptions { branch: Some(target.into()), ..Default::default() }).unwrap();
                    ok += 1
                }
                Err(_) => failed += 1,
            }
        }
    }
    eprintln!("{ok} converted, {failed} refused");
    assert!(ok + failed >= 20);
}

/// The Xbox 360 corpus map (PSBV v20) moved to the v20/v21 version branches in one step
/// (`--to BRANCH --endian little`): the same bytes as converting it to PC first and moving
/// that, detected as the target, the same counts as its PC form; without `--endian little`
/// the move is refused (it writes the PC form only); garbled copies fail cleanly.
#[test]
fn console_map_moves_version_in_one_step() {
    let Some(corpus) = common::corpus("console_map_moves_version_in_one_step") else { return };
    let data = std::fs::read(corpus.join("source_x360/bsp_tool__shack.360.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&data).unwrap();
    assert_eq!((bsp.branch().id, bsp.endian()), ("source", bspkit::Endian::Big));
    let little = |id: &str| ConvertOptions { endian: Some(bspkit::Endian::Little), ..to(id, None) };
    let pc = convert::convert(&bsp, &little("source")).unwrap();
    let pc_bsp = Bsp::from_bytes(&pc.bytes).unwrap();
    // Its faces are in FACES_HDR alone (the console build left FACES empty): into v19, which
    // has no HDR lumps, the HDR faces and their lightmaps become FACES and LIGHTING (the same
    // records, so every `lightofs` still holds), reported; one step equals two.
    let (faces, lighting, faces_hdr, lighting_hdr) = (7, 8, 58, 53);
    assert!(pc_bsp.lump(faces).unwrap().is_empty() && !pc_bsp.lump(faces_hdr).unwrap().is_empty());
    let one = convert::prepare(&bsp, &little("source2004"), false).unwrap();
    let two = convert::prepare(&pc_bsp, &to("source2004", None), false).unwrap();
    assert!(one.bytes == two.bytes, "source2004: one step differs from two");
    let v19 = Bsp::from_bytes(&one.bytes).unwrap();
    assert_eq!(v19.branch().id, "source2004");
    assert_eq!(v19.lump(faces).unwrap(), pc_bsp.lump(faces_hdr).unwrap());
    assert_eq!(v19.lump(lighting).unwrap(), pc_bsp.lump(lighting_hdr).unwrap());
    for lump in ["FACES", "LIGHTING"] {
        assert!(
            two.report.losses.iter().any(|l| l.kind == "kept_unconverted" && l.lump.as_deref() == Some(lump)),
            "{lump}: {:?}",
            two.report.losses
        );
    }
    assert_eq!(entity_count(&v19), entity_count(&pc_bsp));
    // The moved faces draw: as many triangles as the PC form draws from its HDR faces.
    let drawn = |b: &Bsp| bspkit::mesh::build(b, &Default::default()).map(|s| s.triangle_count()).unwrap_or(0);
    assert!(drawn(&v19) > 0 && drawn(&v19) == drawn(&pc_bsp), "{} vs {}", drawn(&v19), drawn(&pc_bsp));
    for target in ["source2006", "l4d2", "csgo"] {
        let one = convert::prepare(&bsp, &little(target), false).unwrap_or_else(|e| panic!("-> {target}: {e}"));
        let two = convert::prepare(&pc_bsp, &to(target, None), false).unwrap();
        assert!(one.bytes == two.bytes, "{target}: one step differs from two");
        assert_eq!((one.report.from.endian, one.report.to.endian), ("big", "little"));
        // The losses of both steps are listed.
        let want: Vec<_> = pc.report.losses.iter().chain(&two.report.losses).collect();
        assert_eq!(one.report.losses.iter().collect::<Vec<_>>(), want, "{target}");
        let out = Bsp::from_bytes(&one.bytes).unwrap();
        assert_eq!(out.branch().id, target);
        assert_eq!(counts(&out), counts(&pc_bsp), "{target}");
        assert_eq!(entity_count(&out), entity_count(&pc_bsp));
        assert!(convert::prepare(&bsp, &to(target, None), false).is_err(), "{target}: a big-endian version move");
    }
    // Garbled and truncated copies: a typed error or a checked result, never a panic.
    let mut cases = 0;
    for d in common::garbled(&data, 48) {
        let Ok(g) = Bsp::from_bytes(&d) else { continue };
        if g.endian() == bspkit::Endian::Big {
            let _ = convert::prepare(&g, &little("l4d2"), false);
            cases += 1;
        }
    }
    assert!(cases > 12, "{cases}");
}
