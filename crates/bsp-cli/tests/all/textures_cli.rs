//! `bsp textures`: PNG files with the decoded pixels, the `--json` fields exactly as README.md
//! documents them, missing textures as warnings with exit code 0; on synthetic maps written
//! by bspkit's builders (and, with `BSPKIT_CORPUS`, on every corpus map).

use std::path::Path;
use std::process::Command;

use bspkit::assets::vtf::{Format, VtfBuilder, FLAG_ENVMAP};
use bspkit::build::BspBuilder;
use bspkit::lumps::miptex::{encode, encode_lump};
use bspkit::lumps::pakfile::{PakBuilder, PakCompression};
use bspkit::texture::ImageRgba;
use serde_json::Value;

use crate::common;

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

fn tmp(name: &str) -> crate::cli::Scratch {
    crate::cli::scratch(&format!("texcli-{name}"))
}

fn schema() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let start = readme.find("`bsp textures --json` prints one object").expect("README documents bsp textures --json");
    let body = &readme[start..];
    let open = body.find("```").unwrap() + 3;
    let close = body[open..].find("```").unwrap() + open;
    body[open..close].to_string()
}

fn keys(what: &str, v: &Value, want: &[&str], doc: &str) {
    let map = v.as_object().unwrap_or_else(|| panic!("{what}: {v}"));
    let mut got: Vec<&str> = map.keys().map(String::as_str).collect();
    got.sort();
    let mut w = want.to_vec();
    w.sort();
    assert_eq!(got, w, "{what}");
    for k in want {
        assert!(doc.contains(&format!("\"{k}\"")), "{what}: {k} not in README schema");
    }
}

fn check_json(v: &Value, doc: &str) {
    keys("top", v, &["path", "out", "textures", "missing", "warnings", "budget"], doc);
    for t in v["textures"].as_array().unwrap() {
        keys("texture", t, &["name", "source", "width", "height", "alpha", "alpha_cutoff", "hdr", "layers", "files"], doc);
        assert!(["opaque", "mask", "blend"].contains(&t["alpha"].as_str().unwrap()));
    }
    for m in v["missing"].as_array().unwrap().iter().chain(v["warnings"].as_array().unwrap()) {
        keys("missing", m, &["name", "kind", "reason", "file", "entry", "offset"], doc);
        assert!(["not_found", "undecodable", "no_palette", "budget", "unsupported"].contains(&m["kind"].as_str().unwrap()), "{m}");
    }
    keys("budget", &v["budget"], &["bytes_read", "entries", "pixels"], doc);
}

fn run(args: &[&str]) -> (Value, String) {
    let out = Command::new(BSP).arg("textures").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    (serde_json::from_slice(&out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn writes_pngs_and_lists_missing() {
    let dir = tmp("gs");
    let pal: Vec<[u8; 3]> = (0..256).map(|i| [i as u8, 1, 2]).collect();
    let px: Vec<u8> = (0..64).collect();
    let lump = encode_lump(&[
        Some(encode("*lava", 8, 8, &px, Some(&pal))),
        Some(encode("{grate", 8, 8, &[255; 64], Some(&pal))),
        Some(encode("inwad", 8, 8, &px, None)[..40].to_vec()),
    ]);
    let mut lump = lump;
    let third = i32::from_le_bytes(lump[12..16].try_into().unwrap()) as usize;
    lump[third + 24..third + 40].fill(0);
    let map = BspBuilder::new(&bspkit::branches::goldsrc::GOLDSRC).lump(bspkit::branches::quake1::LUMP_TEXTURES, lump).build();
    let path = dir.join("m.bsp");
    std::fs::write(&path, map).unwrap();
    let out = dir.join("tex");
    let (v, stderr) = run(&[path.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    check_json(&v, &schema());
    let t = v["textures"].as_array().unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t[0]["files"][0], "_lava.png");
    assert_eq!(t[1]["alpha"], "mask");
    let png = ImageRgba::decode_png(&std::fs::read(out.join("_lava.png")).unwrap(), 1 << 20).unwrap();
    assert_eq!(png.pixel(3, 0), Some([3, 1, 2, 255]));
    let grate = ImageRgba::decode_png(&std::fs::read(out.join("{grate.png")).unwrap(), 1 << 20).unwrap();
    assert!(grate.pixels.chunks(4).all(|p| p[3] == 0));
    let m = &v["missing"][0];
    assert_eq!((m["name"].as_str(), m["kind"].as_str()), (Some("inwad"), Some("not_found")));
    assert!(stderr.contains("warning: inwad"), "{stderr}");
}

#[test]
fn cube_maps_write_one_png_per_face_and_bad_game_dirs_are_warnings() {
    use bspkit::branches::source::*;
    let dir = tmp("src");
    let mut c = VtfBuilder::new(Format::RGBA16161616F, 1, 1);
    c.flags = FLAG_ENVMAP;
    // Six faces of one half-float pixel each: 1.0 in red for face k = 0, 0.5 otherwise.
    let data: Vec<u8> =
        (0..6).flat_map(|k: u16| [if k == 0 { 0x3C00u16 } else { 0x3800 }, 0, 0, 0x3C00].into_iter().flat_map(u16::to_le_bytes)).collect();
    let mut pak = PakBuilder::new();
    pak.insert("materials/maps/m/c0_0_0.hdr.vtf", c.build(&data)).unwrap();
    let map = BspBuilder::new(&SOURCE).lump(LUMP_PAKFILE, pak.build(PakCompression::Stored).unwrap()).build();
    let path = dir.join("m.bsp");
    std::fs::write(&path, map).unwrap();
    let game = dir.join("game");
    std::fs::create_dir_all(&game).unwrap();
    std::fs::write(game.join("pak01_dir.vpk"), b"not a vpk").unwrap();
    let out = dir.join("tex");
    let (v, stderr) = run(&[path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--game-dir", game.to_str().unwrap()]);
    check_json(&v, &schema());
    let t = &v["textures"][0];
    assert_eq!(t["hdr"], true);
    assert_eq!(t["layers"].as_array().unwrap().len(), 6);
    let rt = ImageRgba::decode_png(&std::fs::read(out.join("materials/maps/m/c0_0_0.hdr.rt.png")).unwrap(), 1 << 20).unwrap();
    let lf = ImageRgba::decode_png(&std::fs::read(out.join("materials/maps/m/c0_0_0.hdr.lf.png")).unwrap(), 1 << 20).unwrap();
    assert_eq!((rt.pixels, lf.pixels), (vec![255, 0, 0, 255], vec![128, 0, 0, 255]));
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1);
    assert!(stderr.contains("pak01_dir.vpk"), "{stderr}");
}

#[test]
fn every_corpus_map() {
    let Some(corpus) = common::corpus("bsp textures on every corpus map") else { return };
    let doc = schema();
    let mut n = 0;
    for m in common::maps(&corpus) {
        if bspkit::Bsp::open(&m.path).is_err() {
            continue;
        }
        let (v, _) = run(&[m.path.to_str().unwrap()]);
        check_json(&v, &doc);
        n += 1;
    }
    assert!(n > 40, "{n}");
}
