//! `bspkit::convert` between the other sibling branches: Quake 2 IBSP 38 ↔ Qbism, GoldSrc ↔
//! Blue Shift, Quake ↔ Hexen II, on every corpus map of those families (each way and back).

use crate::common;

use bspkit::bsp::OpenOptions;
use bspkit::check::Severity;
use bspkit::convert::{self, ConvertOptions, Lzma};
use bspkit::Bsp;

fn open_as<'a>(data: &'a [u8], id: &str) -> Bsp<'a> {
    Bsp::from_bytes_with(data, &OpenOptions { branch: Some(id.to_string()), ..Default::default() }).unwrap()
}

fn to(id: &str) -> ConvertOptions {
    ConvertOptions { to: bspkit::branches::by_id(id).unwrap(), endian: None, lzma: Lzma::Auto, static_props: None }
}

/// Record counts per lump name.
fn counts(bsp: &Bsp) -> Vec<(&'static str, usize)> {
    let mut v: Vec<_> =
        bsp.lumps().iter().filter_map(|e| bsp.record_size(e.index).map(|s| (e.name, bsp.record_count(e.index, s).unwrap()))).collect();
    v.sort();
    v
}

fn errors(bsp: &Bsp) -> Vec<String> {
    bspkit::check::check(bsp).iter().filter(|p| p.severity == Severity::Error).map(|p| p.to_string()).collect()
}

/// Convert every map of `folder` whose branch is `from` to `target` and back; returns the
/// number of maps, each lossless both ways and byte-identical back (`lossy_there`: the one loss
/// expected going there).
fn round_trips(folder: &str, from: &str, target: &str, lossy_there: Option<&str>) -> usize {
    let Some(corpus) = common::corpus(&format!("convert {from} -> {target}")) else { return 0 };
    let mut n = 0;
    for m in common::maps_in(&corpus, folder) {
        let data = std::fs::read(&m.path).unwrap();
        let bsp = Bsp::from_bytes(&data).unwrap();
        if bsp.branch().id != from {
            continue;
        }
        let name = format!("{} {from} -> {target}", m.path.file_name().unwrap().to_string_lossy());
        let c = convert::prepare(&bsp, &to(target), lossy_there.is_none()).unwrap_or_else(|e| panic!("{name}: {e}"));
        match lossy_there {
            None => assert!(c.report.lossless, "{name}: {:?}", c.report.losses),
            Some(kind) => {
                assert_eq!(c.report.losses.len(), 1, "{name}: {:?}", c.report.losses);
                assert_eq!(c.report.losses[0].kind, kind, "{name}");
            }
        }
        let out = open_as(&c.bytes, target);
        assert!(errors(&out).is_empty(), "{name}: {:?}", errors(&out));
        assert_eq!(counts(&out), counts(&bsp), "{name}");
        let back = convert::prepare(&out, &to(from), true).unwrap_or_else(|e| panic!("{name} and back: {e}"));
        assert!(back.bytes == data, "{name}: and back, byte-identical");
        n += 1;
    }
    n
}

#[test]
fn quake2_ibsp_and_qbism_convert_both_ways() {
    if common::corpus("quake2_ibsp_and_qbism_convert_both_ways").is_none() {
        return;
    }
    assert_eq!(round_trips("quake2", "quake2", "qbism", None), 6);
    // The corpus's Qbism map: every value fits Quake 2's 16-bit fields and its bounds are whole.
    assert_eq!(round_trips("quake2", "qbism", "quake2", None), 1);
}

#[test]
fn goldsrc_and_blue_shift_convert_both_ways() {
    if common::corpus("goldsrc_and_blue_shift_convert_both_ways").is_none() {
        return;
    }
    assert_eq!(round_trips("goldsrc", "goldsrc", "blueshift", None), 11);
}

/// Quake → Hexen II reports the four hull head nodes Hexen II adds (set to 0); back is exact.
#[test]
fn quake_and_hexen2_convert_both_ways() {
    if common::corpus("quake_and_hexen2_convert_both_ways").is_none() {
        return;
    }
    assert_eq!(round_trips("quake1", "quake1", "hexen2", Some("defaulted")), 9);
}

/// Hexen II's model layout with BSP2 and 2PSB: every corpus Quake 1 container map made a Hexen II
/// map (one `defaulted` loss: hulls 4-7), then taken to BSP2 and to 2PSB (lossless: those head
/// nodes are 0) and back, byte-identical to the Hexen II map; the BSP2 maps straight to Hexen II
/// and back are the BSP2 bytes. A Hexen II map with a hull 4-7 head node set loses it going to
/// BSP2 (`dropped`), which `strict` refuses.
#[test]
fn hexen2_and_bsp2_2psb_convert_both_ways() {
    let Some(corpus) = common::corpus("hexen2_and_bsp2_2psb_convert_both_ways") else { return };
    let (mut pairs, mut straight) = (0, 0);
    for m in common::maps_in(&corpus, "quake1") {
        let data = std::fs::read(&m.path).unwrap();
        let bsp = Bsp::from_bytes(&data).unwrap();
        let first = bsp.branch().id;
        let file = m.path.file_name().unwrap().to_string_lossy().to_string();
        let h2 = convert::prepare(&bsp, &to("hexen2"), false).unwrap_or_else(|e| panic!("{file} -> hexen2: {e}"));
        let kinds: Vec<&str> = h2.report.losses.iter().map(|l| l.kind).collect();
        assert_eq!(kinds, ["defaulted"], "{file} -> hexen2");
        let h2_bsp = open_as(&h2.bytes, "hexen2");
        assert!(errors(&h2_bsp).is_empty(), "{file}: {:?}", errors(&h2_bsp));
        assert_eq!(counts(&h2_bsp), counts(&bsp), "{file} -> hexen2");
        if first != "quake1" {
            // Straight back to the container it came from.
            let back = convert::prepare(&h2_bsp, &to(first), true).unwrap_or_else(|e| panic!("{file} hexen2 -> {first}: {e}"));
            assert!(back.bytes == data, "{file}: {first} -> hexen2 -> {first}, byte-identical");
            straight += 1;
        }
        for target in ["bsp2", "2psb"] {
            let name = format!("{file} hexen2 -> {target}");
            let c = convert::prepare(&h2_bsp, &to(target), true).unwrap_or_else(|e| panic!("{name}: {e}"));
            let out = open_as(&c.bytes, target);
            assert!(errors(&out).is_empty(), "{name}: {:?}", errors(&out));
            assert_eq!(counts(&out), counts(&h2_bsp), "{name}");
            let back = convert::prepare(&out, &to("hexen2"), false).unwrap_or_else(|e| panic!("{name} and back: {e}"));
            assert_eq!(back.report.losses.len(), 1, "{name} and back: {:?}", back.report.losses);
            assert!(back.bytes == h2.bytes, "{name} and back, byte-identical");
            pairs += 1;
        }
    }
    assert_eq!((pairs, straight), (22, 2));

    // Hull 5's head node set on the world model of a Hexen II map: BSP2 has no room for it.
    let data =
        std::fs::read(&common::maps_in(&corpus, "quake1").iter().find(|m| m.path.ends_with("ericw__q1_cube.bsp")).unwrap().path).unwrap();
    let h2 = convert::prepare(&Bsp::from_bytes(&data).unwrap(), &to("hexen2"), false).unwrap().bytes;
    let bsp = open_as(&h2, "hexen2");
    let models = bsp.lumps().iter().find(|e| e.name == "MODELS").unwrap().offset as usize;
    let mut edited = h2.clone();
    // dmodel_t (Hexen II): mins, maxs, origin (36 bytes), then eight i32 head nodes.
    edited[models + 36 + 5 * 4..models + 36 + 6 * 4].copy_from_slice(&1i32.to_le_bytes());
    let bsp = open_as(&edited, "hexen2");
    let lossy = convert::prepare(&bsp, &to("bsp2"), false).unwrap();
    assert_eq!(lossy.report.losses.iter().map(|l| l.kind).collect::<Vec<_>>(), ["dropped"]);
    assert!(matches!(convert::prepare(&bsp, &to("bsp2"), true), Err(e) if matches!(e.kind, bspkit::error::ErrorKind::Lossy(_))));
}

/// Truncated and garbled Quake 2, GoldSrc and Quake maps converted to their siblings: a typed
/// error or a checked result, never a panic.
#[test]
fn sibling_conversions_of_garbled_maps_fail_cleanly() {
    let Some(corpus) = common::corpus("sibling_conversions_of_garbled_maps_fail_cleanly") else { return };
    let pairs = [
        ("quake2", "qbism"),
        ("qbism", "quake2"),
        ("goldsrc", "blueshift"),
        ("quake1", "hexen2"),
        ("quake1", "bsp2"),
        ("bsp2", "hexen2"),
        ("quake1", "2psb"),
    ];
    let mut cases = 0;
    for folder in ["quake2", "goldsrc", "quake1"] {
        for m in common::maps_in(&corpus, folder) {
            let data = std::fs::read(&m.path).unwrap();
            for d in common::garbled(&data, 16) {
                let Ok(bsp) = Bsp::from_bytes(&d) else { continue };
                for (from, target) in pairs {
                    if bsp.branch().id == from {
                        let _ = convert::prepare(&bsp, &to(target), false);
                        cases += 1;
                    }
                }
            }
        }
    }
    assert!(cases > 200, "{cases}");
}
