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

/// Truncated and garbled Quake 2, GoldSrc and Quake maps converted to their siblings: a typed
/// error or a checked result, never a panic.
#[test]
fn sibling_conversions_of_garbled_maps_fail_cleanly() {
    let Some(corpus) = common::corpus("sibling_conversions_of_garbled_maps_fail_cleanly") else { return };
    let pairs = [("quake2", "qbism"), ("qbism", "quake2"), ("goldsrc", "blueshift"), ("quake1", "hexen2"), ("quake1", "bsp2")];
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
