//! VTF decoding checked against an independent decoder: the VTF reader of srctools (MIT,
//! from PyPI), run in the Python named by `BSPKIT_PYTHON` (`scripts/test.sh` makes a venv and
//! sets it). Without it the test is skipped with a note, unless `BSPKIT_REQUIRE_ORACLES=1`,
//! which makes a missing oracle a failure.
//!
//! Compared: every frame, face and mip of synthetic VTFs of every format srctools decodes
//! (written by bspkit's own `VtfBuilder`, random pixels), and of every VTF in the pakfiles of
//! the corpus maps (`BSPKIT_CORPUS`). Known differences of the oracle, left out of the pixel
//! comparison and counted: DXT mips smaller than 4×4 (srctools writes black), HDR formats
//! (srctools reads only their header: sizes, frames, faces and mip count are still compared),
//! and Xbox 360 `VTFX` files (srctools does not read them).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use bspkit::assets::vtf::{Format, Vtf, VtfBuilder, FLAG_ENVMAP};

const DUMP: &str = r#"
import json, sys
from srctools.vtf import VTF, VTFFlags, CubeSide, ImageFormats
out = open(sys.argv[1], 'wb')
for path in sys.argv[2:]:
    with open(path, 'rb') as f:
        vtf = VTF.read(f)
        faces = 1
        if VTFFlags.ENVMAP in vtf.flags:
            faces = 6 if vtf.version[1] >= 5 else 7
        meta = {"path": path, "width": vtf.width, "height": vtf.height, "frames": vtf.frame_count,
                "faces": faces, "mips": vtf.mipmap_count, "format": vtf.format.name, "images": []}
        hdr = vtf.format in (ImageFormats.RGBA16161616F, ImageFormats.RGBA16161616)
        if not hdr:
            for frame in range(vtf.frame_count):
                for face in range(faces):
                    for mip in range(vtf.mipmap_count):
                        side = list(CubeSide)[face] if faces > 1 else None
                        fr = vtf.get(frame=frame, side=side, mipmap=mip)
                        fr.load()
                        data = bytes(fr._data)
                        meta["images"].append({"frame": frame, "face": face, "mip": mip,
                                               "w": fr.width, "h": fr.height, "offset": out.tell(), "len": len(data)})
                        out.write(data)
    print(json.dumps(meta), flush=True)
"#;

fn python() -> Option<String> {
    let require = std::env::var("BSPKIT_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
    match std::env::var("BSPKIT_PYTHON") {
        Ok(p) if !p.is_empty() => {
            let ok = Command::new(&p).args(["-c", "import srctools.vtf"]).status().is_ok_and(|s| s.success());
            assert!(ok || !require, "BSPKIT_PYTHON={p} cannot import srctools (scripts/test.sh installs it)");
            ok.then_some(p)
        }
        _ => {
            assert!(!require, "BSPKIT_REQUIRE_ORACLES=1 but BSPKIT_PYTHON is not set");
            eprintln!("note: texture oracle test skipped: set BSPKIT_PYTHON to a Python with srctools (scripts/test.sh does)");
            None
        }
    }
}

/// Deterministic pseudo-random bytes.
fn noise(n: u64, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

struct Counts {
    files: usize,
    images: usize,
    skipped_small_dxt: usize,
    hdr_files: usize,
}

/// Run the oracle on `files` and compare every image it decodes with ours.
fn compare(py: &str, files: &[PathBuf], counts: &mut Counts) {
    let dir = common::scratch("oracle");
    let script = dir.join("dump.py");
    std::fs::write(&script, DUMP).unwrap();
    let raw = dir.join("pixels.bin");
    let out = Command::new(py).arg(&script).arg(&raw).args(files).output().expect("run python");
    assert!(out.status.success(), "srctools failed: {}", String::from_utf8_lossy(&out.stderr));
    let pixels = std::fs::read(&raw).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let metas: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(metas.len(), files.len());
    for (meta, path) in metas.iter().zip(files) {
        let bytes = std::fs::read(path).unwrap();
        let vtf = Vtf::parse(&bytes, 1 << 30).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let h = &vtf.header;
        let what = format!("{} ({})", path.display(), h.format.name());
        assert_eq!(meta["width"].as_u64(), Some(h.width as u64), "{what}");
        assert_eq!(meta["height"].as_u64(), Some(h.height as u64), "{what}");
        assert_eq!(meta["frames"].as_u64(), Some(h.frames as u64), "{what}");
        assert_eq!(meta["faces"].as_u64(), Some(vtf.faces() as u64), "{what}");
        assert_eq!(meta["mips"].as_u64(), Some(h.mip_count as u64), "{what}");
        assert_eq!(meta["format"].as_str(), Some(h.format.name()), "{what}");
        counts.files += 1;
        if h.format.is_hdr() {
            counts.hdr_files += 1;
            // Ours must still decode every image.
            for f in 0..h.frames as u32 {
                for face in 0..vtf.faces() {
                    for mip in 0..h.mip_count as u32 {
                        vtf.decode(f, face, 0, mip).unwrap_or_else(|e| panic!("{what}: {e}"));
                    }
                }
            }
            continue;
        }
        let dxt = matches!(h.format, Format::DXT1 | Format::DXT3 | Format::DXT5 | Format::DXT1_ONEBITALPHA);
        for img in meta["images"].as_array().unwrap() {
            let g = |k: &str| img[k].as_u64().unwrap() as u32;
            let (w, hh) = (g("w"), g("h"));
            if dxt && (w < 4 || hh < 4) {
                counts.skipped_small_dxt += 1;
                continue;
            }
            let theirs = &pixels[img["offset"].as_u64().unwrap() as usize..][..img["len"].as_u64().unwrap() as usize];
            let (ours, _) = vtf.decode(g("frame"), g("face"), 0, g("mip")).unwrap();
            assert_eq!((ours.width, ours.height), (w, hh), "{what}");
            if ours.pixels != theirs {
                let i = ours.pixels.iter().zip(theirs).position(|(a, b)| a != b).unwrap() / 4;
                panic!(
                    "{what} frame {} face {} mip {}: pixel {i} ours {:?} srctools {:?}",
                    g("frame"),
                    g("face"),
                    g("mip"),
                    &ours.pixels[i * 4..i * 4 + 4],
                    &theirs[i * 4..i * 4 + 4]
                );
            }
            counts.images += 1;
        }
    }
}

/// Synthetic VTFs of every format srctools decodes, several versions and layouts.
fn synthetic(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let formats: Vec<Format> = Format::DECODABLE.iter().copied().filter(|f| f.0 <= 26).collect();
    for (k, &f) in formats.iter().enumerate() {
        for (j, (minor, flags, frames)) in [(2u32, 0u32, 2u16), (4, FLAG_ENVMAP, 1), (5, FLAG_ENVMAP, 2), (5, 0, 1)].into_iter().enumerate()
        {
            let mut b = VtfBuilder::new(f, 16, 8);
            b.version_minor = minor;
            b.flags = flags;
            b.frames = frames;
            b.mips = 4;
            let data = noise(b.image_size(), (k * 10 + j) as u64 + 1);
            let p = dir.join(format!("{}_{minor}_{j}.vtf", f.name()));
            std::fs::write(&p, b.build(&data)).unwrap();
            files.push(p);
        }
    }
    // HDR: header comparison only.
    for f in [Format::RGBA16161616F, Format::RGBA16161616] {
        let b = VtfBuilder::new(f, 8, 8);
        let p = dir.join(format!("{}.vtf", f.name()));
        std::fs::write(&p, b.build(&noise(b.image_size(), 7))).unwrap();
        files.push(p);
    }
    files
}

#[test]
fn vtf_pixels_match_srctools() {
    let Some(py) = python() else { return };
    let dir = common::scratch("oracle-in");
    let mut counts = Counts { files: 0, images: 0, skipped_small_dxt: 0, hdr_files: 0 };
    let files = synthetic(&dir);
    compare(&py, &files, &mut counts);
    eprintln!(
        "synthetic: {} VTFs, {} images identical to srctools, {} DXT mips under 4x4 and {} HDR files not pixel-compared",
        counts.files, counts.images, counts.skipped_small_dxt, counts.hdr_files
    );

    if let Some(corpus) = common::corpus("vtf_pixels_match_srctools (corpus part)") {
        let mut corpus_files = Vec::new();
        let (mut vtfx, mut relabelled) = (0, 0);
        for m in common::maps(&corpus) {
            let Ok(bsp) = bspkit::Bsp::open(&m.path) else { continue };
            if bsp.family() != bspkit::Family::Source {
                continue;
            }
            let Ok(data) = bsp.lump(bspkit::lumps::pakfile::LUMP_PAKFILE) else { continue };
            let pak = bspkit::lumps::pakfile::Pakfile::parse(data).unwrap();
            for e in pak.entries.iter().filter(|e| e.name.to_ascii_lowercase().ends_with(".vtf")) {
                let bytes = pak.read(e, 1 << 30).unwrap();
                if bytes.starts_with(b"VTFX") {
                    vtfx += 1;
                    continue;
                }
                let mut bytes = bytes;
                // srctools reads 7.0-7.5; a 7.6 file (Strata Source) without a compression
                // resource has the 7.5 layout, so the oracle gets a copy labelled 7.5 (ours
                // reads the same copy; the original's 7.6 reading is checked in texture_corpus).
                if bytes[8] == 6 {
                    bytes[8] = 5;
                    relabelled += 1;
                }
                let p = dir.join(format!("corpus_{}_{}", corpus_files.len(), e.name.replace('/', "_")));
                std::fs::write(&p, bytes).unwrap();
                corpus_files.push(p);
            }
        }
        let mut c = Counts { files: 0, images: 0, skipped_small_dxt: 0, hdr_files: 0 };
        compare(&py, &corpus_files, &mut c);
        eprintln!(
            "corpus: {} pakfile VTFs compared ({} images identical, {} DXT mips under 4x4 skipped, {} HDR header-only; {} 7.6 files given as 7.5), {} VTFX not readable by srctools",
            c.files, c.images, c.skipped_small_dxt, c.hdr_files, relabelled, vtfx
        );
        assert!(c.files > 0, "no pakfile VTFs found in the corpus");
    }
}
