//! `check` severities and codes on maps written by the library's builder: Quake 3 global fog
//! (a note), flare fogs out of range (one warning), other fogs out of range (errors), an empty
//! entity lump, a first entity that is not worldspawn, a broken pakfile and a bad game lump
//! directory (errors).

use bspkit::branches::{quake1, quake3, source};
use bspkit::build::BspBuilder;
use bspkit::check::{check, Code, Counts, Problem, Severity};
use bspkit::Bsp;

use crate::common;
use common::fixtures::{fog, i32s, q3, shader, surface, WORLD};

fn problems(bytes: &[u8]) -> Vec<Problem> {
    check(&Bsp::from_bytes(bytes).unwrap())
}

fn with_code(p: &[Problem], code: Code) -> Vec<&Problem> {
    p.iter().filter(|x| x.code == code).collect()
}

#[test]
fn a_plain_built_map_has_no_problem() {
    // The control for the cases below: the builder's maps check clean.
    assert_eq!(problems(&q3(&[], &[surface(1, -1)])), vec![]);
    assert_eq!(problems(&bspkit::build::sample_quake1()), vec![]);
}

#[test]
fn q3_global_fog_is_a_note() {
    let p = problems(&q3(&[fog(-1, -1)], &[surface(1, 0)]));
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].severity, p[0].code, p[0].index), (Severity::Note, Code::GLOBAL_FOG, Some(0)));
    assert!(p[0].lump.contains("FOGS"), "{p:?}");
    assert_eq!(Counts::of(&p).errors, 0);
}

/// Raven's renderer reads brush −1 as the global fog (OpenJK `R_LoadFogs`), so an RBSP map's
/// global fog is no problem at all (found on the JKA map duel_rift, which had the Quake 3 note).
#[test]
fn rbsp_global_fog_is_no_problem() {
    let q3_map = q3(&[fog(-1, -1)], &[surface(1, 0)]);
    let opts = bspkit::convert::ConvertOptions {
        to: bspkit::branches::by_id("rbsp").unwrap(),
        endian: None,
        lzma: bspkit::convert::Lzma::Auto,
        static_props: None,
    };
    let rbsp = bspkit::convert::convert(&Bsp::from_bytes(&q3_map).unwrap(), &opts).unwrap().bytes;
    let bsp = Bsp::from_bytes(&rbsp).unwrap();
    assert_eq!(bsp.branch().id, "rbsp");
    assert_eq!(bsp.raw_lump(quake3::lumps::LUMP_FOGS).unwrap().len(), 72, "the fog is carried over");
    let p = check(&bsp);
    assert_eq!(p, vec![], "{p:?}");
    // A brush −1 with a visible side stays an error there too.
    let q3_side = q3(&[fog(-1, 0)], &[]);
    let rbsp = bspkit::convert::convert(&Bsp::from_bytes(&q3_side).unwrap(), &opts).unwrap().bytes;
    let p = check(&Bsp::from_bytes(&rbsp).unwrap());
    assert_eq!(with_code(&p, Code::INDEX_OUT_OF_RANGE).len(), 1, "{p:?}");
}

/// Taken back to Quake 3, the global fog Raven's renderer draws gets Quake 3's note again:
/// `convert::prepare` reports it as a `target_note` loss instead of refusing, and `--strict`
/// (lossless only) refuses it as lossy.
#[test]
fn a_note_only_the_target_has_is_a_target_note_loss() {
    let q3_map = q3(&[fog(-1, -1)], &[surface(1, 0)]);
    let to = |id: &str| bspkit::convert::ConvertOptions {
        to: bspkit::branches::by_id(id).unwrap(),
        endian: None,
        lzma: bspkit::convert::Lzma::Auto,
        static_props: None,
    };
    let rbsp = bspkit::convert::convert(&Bsp::from_bytes(&q3_map).unwrap(), &to("rbsp")).unwrap().bytes;
    let rbsp = Bsp::from_bytes(&rbsp).unwrap();
    let back = bspkit::convert::prepare(&rbsp, &to("quake3"), false).expect("a new note does not refuse the conversion");
    let notes: Vec<_> = back.report.losses.iter().filter(|l| l.kind == "target_note").collect();
    assert_eq!(notes.len(), 1, "{:?}", back.report.losses);
    assert!(notes[0].lump.as_deref().unwrap_or("").contains("FOGS") && !back.report.lossless, "{:?}", back.report);
    let p = check(&Bsp::from_bytes(&back.bytes).unwrap());
    assert_eq!(with_code(&p, Code::GLOBAL_FOG).len(), 1, "{p:?}");
    let strict = bspkit::convert::prepare(&rbsp, &to("quake3"), true).unwrap_err();
    assert!(matches!(strict.kind, bspkit::ErrorKind::Lossy(_)), "{strict}");
    assert!(check(&rbsp).is_empty(), "the source has no problem, so the note is new");
}

#[test]
fn q3_fog_brush_out_of_range_is_an_error() {
    // Brush 5 of none, and brush −1 with a visible side (not the global-fog pair).
    for f in [fog(5, -1), fog(-1, 0), fog(-2, -1)] {
        let p = problems(&q3(&[f], &[]));
        let bad = with_code(&p, Code::INDEX_OUT_OF_RANGE);
        assert_eq!(bad.len(), 1, "{p:?}");
        assert_eq!(bad[0].severity, Severity::Error);
        assert!(bad[0].lump.contains("FOGS") && bad[0].message.contains("brush"), "{p:?}");
        assert!(with_code(&p, Code::GLOBAL_FOG).is_empty());
    }
}

#[test]
fn q3_flare_fogs_out_of_range_are_one_warning() {
    let flares: Vec<Vec<u8>> = (0..74).map(|_| surface(4, 3)).collect();
    let p = problems(&q3(&[fog(-1, -1)], &flares));
    let w = with_code(&p, Code::FLARE_FOG);
    assert_eq!(w.len(), 1, "{p:?}");
    assert_eq!((w[0].severity, w[0].index), (Severity::Warning, Some(0)));
    // Says how many fogs there are and which one the first flare names, in words (not `0..1`).
    assert_eq!(
        w[0].message,
        "74 flare surface(s) name a fog that FOGS does not have (FOGS count 1; this one names fog 3); \
         renderers check a flare's fog number before using it, so the map loads"
    );
    assert_eq!(Counts::of(&p).errors, 0, "{p:?}");
    // A flare whose fog exists, or has none, is fine.
    let p = problems(&q3(&[fog(-1, -1)], &[surface(4, 0), surface(4, -1)]));
    assert!(with_code(&p, Code::FLARE_FOG).is_empty(), "{p:?}");
}

#[test]
fn q3_other_surfaces_with_fog_out_of_range_are_errors() {
    let p = problems(&q3(&[fog(-1, -1)], &[surface(1, 3), surface(3, 1), surface(4, 9)]));
    let bad = with_code(&p, Code::INDEX_OUT_OF_RANGE);
    assert_eq!(bad.iter().map(|x| x.index).collect::<Vec<_>>(), vec![Some(0), Some(1)], "{p:?}");
    assert!(bad.iter().all(|x| x.severity == Severity::Error && x.message.starts_with("fog ")));
    assert_eq!(with_code(&p, Code::FLARE_FOG).len(), 1);
}

/// The sample Quake map with its entity lump replaced.
fn quake1_with_entities(text: &[u8]) -> Vec<u8> {
    let bytes = bspkit::build::sample_quake1();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let mut ed = bspkit::edit::Editor::new(&bsp).unwrap();
    ed.set_lump(quake1::LUMP_ENTITIES, text.to_vec()).unwrap();
    ed.to_bytes().unwrap()
}

#[test]
fn empty_entity_lump_is_an_error() {
    for text in [&b""[..], b"\0", b"  \n\0"] {
        let p = problems(&quake1_with_entities(text));
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!((p[0].severity, p[0].code), (Severity::Error, Code::NO_ENTITIES));
        assert!(p[0].lump.contains("ENTITIES"), "{p:?}");
    }
    // Other families too: a Quake 3 map without entities.
    let bytes = BspBuilder::new(&quake3::QUAKE3).lump(quake3::LUMP_SHADERS, shader()).build();
    assert_eq!(with_code(&problems(&bytes), Code::NO_ENTITIES).len(), 1);
}

#[test]
fn first_entity_not_worldspawn_is_an_error() {
    for text in [&b"{\n\"classname\" \"light\"\n}\n{\n\"classname\" \"worldspawn\"\n}\n\0"[..], b"{\n\"wad\" \"x.wad\"\n}\n\0"] {
        let p = problems(&quake1_with_entities(text));
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!((p[0].severity, p[0].code, p[0].index), (Severity::Error, Code::NO_WORLDSPAWN, Some(0)));
    }
    assert_eq!(problems(&quake1_with_entities(b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n}\n\0")), vec![]);
}

fn source_map(game_lump: Option<Vec<u8>>, pakfile: Option<Vec<u8>>) -> Vec<u8> {
    let mut b = BspBuilder::new(&source::SOURCE).lump(source::LUMP_ENTITIES, WORLD);
    if let Some(g) = game_lump {
        b = b.lump(source::LUMP_GAME_LUMP, g);
    }
    if let Some(p) = pakfile {
        b = b.lump(source::LUMP_PAKFILE, p);
    }
    b.build()
}

fn pak(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut p = bspkit::lumps::pakfile::PakBuilder::new();
    for (name, data) in entries {
        p.insert(name, data.to_vec()).unwrap();
    }
    p.build(bspkit::lumps::pakfile::PakCompression::Stored).unwrap()
}

#[test]
fn broken_pakfile_is_an_error() {
    let good = pak(&[("materials/a.vmt", b"LightmappedGeneric {}"), ("maps/x.txt", b"hello")]);
    assert_eq!(problems(&source_map(None, Some(good.clone()))), vec![]);
    // Not a Zip at all; a Zip whose end record points past itself; an entry whose data was cut off.
    let mut cut = good.clone();
    cut.drain(30..40);
    let mut past = good.clone();
    let n = past.len();
    past[n - 6..n - 2].copy_from_slice(&0x00ff_ffffu32.to_le_bytes());
    for (what, bytes) in [("junk", b"this is not a zip archive at all".to_vec()), ("past", past), ("cut", cut)] {
        let p = problems(&source_map(None, Some(bytes)));
        let bad = with_code(&p, Code::BAD_PAKFILE);
        assert!(!bad.is_empty(), "{what}: {p:?}");
        assert!(bad.iter().all(|x| x.severity == Severity::Error && x.lump.contains("PAKFILE")), "{what}: {p:?}");
    }
}

#[test]
fn bad_game_lump_directory_is_an_error() {
    // count, then (id, flags, version, fileofs, filelen) per child; offsets here are absolute, and
    // the builder puts lump 35 after the 1036-byte header, the entities and their padding.
    let ok = problems(&source_map(Some(i32s(&[0])), None));
    assert_eq!(ok, vec![]);
    let negative = i32s(&[-1]);
    let outside = {
        let mut g = i32s(&[1]);
        g.extend_from_slice(b"prps");
        g.extend(i32s(&[0, 1_000_000, 64]));
        g
    };
    let too_short = i32s(&[3, 0, 0]);
    for (what, g) in [("negative count", negative), ("child outside", outside), ("directory past the lump", too_short)] {
        let p = problems(&source_map(Some(g), None));
        let bad = with_code(&p, Code::BAD_GAME_LUMP_DIRECTORY);
        assert_eq!(bad.len(), 1, "{what}: {p:?}");
        assert_eq!(bad[0].severity, Severity::Error, "{what}");
        assert!(bad[0].lump.contains("GAME_LUMP"), "{what}: {p:?}");
    }
}

#[test]
fn every_code_has_a_description_and_problems_serialise_with_it() {
    let p = Problem::warning(Code::FLARE_FOG, "13 (SURFACES)", Some(4), "m");
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v, serde_json::json!({"lump": "13 (SURFACES)", "index": 4, "message": "m", "severity": "warning", "code": "flare_fog"}));
    assert!(Code::ALL.iter().any(|(c, _)| *c == Code::FLARE_FOG));
}

/// Messages a user reads say what did not decode and give ranges in words (session 39 audit):
/// not `Pvs row: …`, `leaf 1: …` or `(0..=4)`.
#[test]
fn decode_and_value_messages_read_as_sentences() {
    let p = problems(&q3(&[], &[surface(9, -1)]));
    let bad = with_code(&p, Code::BAD_VALUE);
    assert_eq!(bad.len(), 1, "{p:?}");
    assert_eq!(bad[0].message, "surface type 9 is unknown (the known types are 0 to 5)");

    // Quake 1: leaf 1's PVS row starts with a zero run whose count byte is past the lump's end.
    let mut map = bspkit::build::sample_quake1();
    let entry = |lump: usize| {
        let at = 4 + 8 * lump;
        let word = |k: usize| u32::from_le_bytes(map[at + k..at + k + 4].try_into().unwrap()) as usize;
        (word(0), word(4))
    };
    let (vis_ofs, vis_len) = entry(quake1::lumps::LUMP_VISIBILITY);
    let (leaves_ofs, _) = entry(quake1::lumps::LUMP_LEAVES);
    assert_eq!(vis_len, 1, "the sample's one-byte visibility lump");
    map[vis_ofs] = 0;
    map[leaves_ofs + 28 + 4..leaves_ofs + 28 + 8].copy_from_slice(&0i32.to_le_bytes());
    let p = problems(&map);
    let vis = with_code(&p, Code::BAD_VISIBILITY);
    assert_eq!(vis.len(), 1, "{p:?}");
    assert!(vis[0].message.starts_with("leaf 1's PVS row does not decode: "), "{p:?}");
}
