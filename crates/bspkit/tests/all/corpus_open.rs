//! Every corpus map opens and is detected as the family its manifest names.

use crate::common;

use bspkit::{Bsp, Family};

fn expected_family(folder: &str) -> Family {
    match folder {
        "quake1" => Family::Quake,
        "goldsrc" => Family::GoldSrc,
        "quake2" => Family::Quake2,
        "quake3" => Family::Quake3,
        "source" | "source_x360" => Family::Source,
        "respawn" => Family::Respawn,
        "cod" => Family::Cod,
        "genesis3d" => Family::Genesis3D,
        other => panic!("unknown corpus folder {other}"),
    }
}

#[test]
fn every_corpus_map_opens_with_its_family() {
    let Some(corpus) = common::corpus("every_corpus_map_opens_with_its_family") else { return };
    let maps = common::maps(&corpus);
    assert!(maps.len() >= 50, "manifest lists {} maps", maps.len());
    for m in &maps {
        let bsp = Bsp::open(&m.path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bsp.family(), expected_family(&m.folder), "{}", m.path.display());
        // Every directory entry lies inside the file, and every lump can be read.
        for e in bsp.lumps() {
            bsp.lump(e.index).unwrap_or_else(|err| panic!("{}: {err}", m.path.display()));
        }
    }
}

/// `read_limit: 0` memory-maps every map: the same lumps as reading it, byte for byte, and the
/// same bytes written back.
#[test]
fn mapped_maps_read_as_read_ones() {
    let Some(corpus) = common::corpus("mapped_maps_read_as_read_ones") else { return };
    let mapped_opts = bspkit::OpenOptions { read_limit: 0, ..Default::default() };
    for m in common::maps(&corpus) {
        let (read, mapped) = (Bsp::open(&m.path).unwrap(), Bsp::open_with(&m.path, &mapped_opts).unwrap());
        assert_eq!(mapped.data(), read.data(), "{}", m.path.display());
        for e in read.lumps() {
            assert_eq!(mapped.lump(e.index).unwrap(), read.lump(e.index).unwrap(), "{} lump {}", m.path.display(), e.index);
        }
        let ed = bspkit::edit::Editor::new(&mapped).unwrap();
        assert_eq!(ed.to_bytes().unwrap(), std::fs::read(&m.path).unwrap(), "{}", m.path.display());
    }
}

#[test]
fn detection_matches_manifest_magic() {
    let Some(corpus) = common::corpus("detection_matches_manifest_magic") else { return };
    for m in common::maps(&corpus) {
        let bsp = Bsp::open(&m.path).unwrap();
        let expected = match m.magic.as_str() {
            "int 29" => vec!["quake1", "hexen2"],
            "int 30" => vec!["goldsrc", "blueshift"],
            "BSP2" => vec!["bsp2"],
            "IBSP v38" => vec!["quake2"],
            "QBSP v38" => vec!["qbism"],
            "IBSP v46" => vec!["quake3"],
            "IBSP v47" => vec!["ibsp47"],
            "GBSP v15" => vec!["genesis3d"],
            "IBSP v22" => vec!["cod4"],
            "rBSP v37" => vec!["titanfall2"],
            s if s.starts_with("VBSP") || s.starts_with("PSBV") => {
                bspkit::branches::all().iter().filter(|b| b.family == Family::Source).map(|b| b.id).collect()
            }
            other => panic!("manifest magic {other} not covered by this test"),
        };
        assert!(expected.contains(&bsp.branch().id), "{}: detected {} for {}", m.path.display(), bsp.branch().id, m.magic);
    }
}
