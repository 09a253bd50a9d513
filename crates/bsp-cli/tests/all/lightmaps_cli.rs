//! `bsp lightmaps`: the files it writes, the manifest's fields against README.md's schema, and
//! the PNG pixels of 8-bit sources against the map's own lighting bytes (read through the
//! manifest's offsets), on the sample map and on one corpus map of each family with lightmaps.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common;

use crate::cli;
use cli::{png_rgb, BSP};

fn readme_schema() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let start = readme.find("`lightmaps.json`").expect("README documents lightmaps.json");
    let body = &readme[start..];
    let open = body.find("```").unwrap() + 3;
    let close = body[open..].find("```").unwrap() + open;
    body[open..close].to_string()
}

fn keys(what: &str, v: &Value, want: &[&str], doc: &str) {
    let map = v.as_object().unwrap_or_else(|| panic!("{what}: not an object"));
    let mut got: Vec<&str> = map.keys().map(String::as_str).collect();
    got.sort_unstable();
    let mut w = want.to_vec();
    w.sort_unstable();
    assert_eq!(got, w, "{what}: fields");
    for k in want {
        assert!(doc.contains(&format!("\"{k}\"")), "{what}: {k:?} is not in README's schema");
    }
}

/// Run `bsp lightmaps` on `map` into a fresh directory; check the manifest and, for 8-bit
/// sources read from a lump, every luxel of every PNG. Returns the number of faces.
fn run(map: &Path, tmp: &Path) -> usize {
    let out = tmp.join(map.file_stem().unwrap());
    let _ = std::fs::remove_dir_all(&out);
    let o = Command::new(BSP).arg("lightmaps").arg(map).arg("--out").arg(&out).arg("--json").arg("--hdr").output().unwrap();
    assert!(o.status.success(), "{}: {}", map.display(), String::from_utf8_lossy(&o.stderr));
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    let on_disk: Value = serde_json::from_slice(&std::fs::read(out.join("lightmaps.json")).unwrap()).unwrap();
    assert_eq!(m, on_disk);
    let doc = readme_schema();
    let top =
        ["path", "family", "branch", "source", "overbright", "png_overbright", "gamma", "padding", "pages", "atlases", "faces", "warnings"];
    keys("manifest", &m, &top, &doc);
    keys("source", &m["source"], &["name", "lump", "format"], &doc);
    for p in m["pages"].as_array().unwrap() {
        keys("page", p, &["page", "width", "height"], &doc);
    }
    let bsp = bspkit::Bsp::open(map).unwrap();
    let format = m["source"]["format"].as_str();
    let lump = m["source"]["lump"].as_u64().map(|l| bsp.lump(l as usize).unwrap());
    let mut images = std::collections::HashMap::new();
    for a in m["atlases"].as_array().unwrap() {
        keys("atlas", a, &["page", "style", "layer", "png", "hdr"], &doc);
        let png = out.join(a["png"].as_str().unwrap());
        let hdr = out.join(a["hdr"].as_str().unwrap());
        let (w, h, rgb) = png_rgb(&png);
        let page = &m["pages"][a["page"].as_u64().unwrap() as usize];
        assert_eq!((w as u64, h as u64), (page["width"].as_u64().unwrap(), page["height"].as_u64().unwrap()));
        let pfm = std::fs::read(&hdr).unwrap();
        assert_eq!(pfm.len() - format!("PF\n{w} {h}\n-1.0\n").len(), (w * h * 12) as usize);
        images.insert((a["page"].as_u64().unwrap(), a["style"].as_u64().unwrap(), a["layer"].as_u64().unwrap()), (w, rgb));
    }
    let faces = m["faces"].as_array().unwrap();
    for f in faces {
        keys("face", f, &["lump", "index", "page", "x", "y", "width", "height", "layers", "styles", "offsets", "source_offset"], &doc);
        let (Some(data), Some(fmt)) = (lump, format) else { continue };
        let bpp = match fmt {
            "grey8" => 1,
            "rgb8" if bsp.family() != bspkit::Family::Quake3 => 3,
            _ => continue,
        };
        let g = |k: &str| f[k].as_u64().unwrap();
        let (x, y, fw, fh) = (g("x"), g("y"), g("width"), g("height"));
        for (style, ofs) in f["styles"].as_array().unwrap().iter().zip(f["offsets"].as_array().unwrap()) {
            let (pw, rgb) = &images[&(g("page"), style.as_u64().unwrap(), 0)];
            for j in 0..fh {
                for i in 0..fw {
                    let s = ofs.as_u64().unwrap() as usize + ((j * fw + i) as usize) * bpp;
                    let want: Vec<u8> = if bpp == 1 { vec![data[s]; 3] } else { data[s..s + 3].to_vec() };
                    let p = (((y + j) * *pw as u64 + x + i) * 3) as usize;
                    assert_eq!(&rgb[p..p + 3], &want[..], "{}: face {} luxel {i},{j}", map.display(), g("index"));
                }
            }
        }
    }
    faces.len()
}

/// A scratch folder of the test `name`'s own: the two tests run at once, and one removing a
/// shared folder at its end took the other's files away (or left it behind).
fn tmp(name: &str) -> cli::Scratch {
    cli::scratch(&format!("lightmaps-{name}"))
}

#[test]
fn sample_map_lightmaps_are_written_and_described() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_quake1.bsp");
    let dir = tmp("sample");
    assert_eq!(run(&sample, &dir), 6);
}

#[test]
fn corpus_lightmap_pngs_hold_the_lighting_bytes() {
    let Some(corpus) = common::corpus("corpus_lightmap_pngs_hold_the_lighting_bytes") else { return };
    let dir = tmp("corpus");
    let mut seen = std::collections::BTreeSet::new();
    for m in common::maps(&corpus) {
        // One map per folder keeps the test fast; the library test covers every map.
        // Maps of families this build does not open are another test's concern.
        if seen.contains(&m.folder) || bspkit::Bsp::open(&m.path).is_err() {
            continue;
        }
        if run(&m.path, &dir) > 0 {
            seen.insert(m.folder.clone());
        }
    }
    for f in ["quake1", "goldsrc", "quake2", "quake3", "source"] {
        assert!(seen.contains(f), "no {f} map with lightmaps was checked");
    }
}
