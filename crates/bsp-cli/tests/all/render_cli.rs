//! `bsp render` and `bsp scan --thumbnails`: the PNG written (size, not blank, the same bytes
//! twice), flag checks, and thumbnails of a directory holding a good map, a map inside a Zip
//! archive and a broken file (reported, the scan goes on, exit 1).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli;
use cli::{png_rgb, scratch, BSP};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_quake1.bsp")
}

/// Share of pixels that differ from the background colour.
fn drawn_share(rgb: &[u8]) -> f64 {
    let bg = bspkit::render::BACKGROUND;
    let n = rgb.len() / 3;
    rgb.chunks_exact(3).filter(|p| *p != bg).count() as f64 / n as f64
}

#[test]
fn render_writes_the_same_png_twice() {
    let dir = scratch("render-twice");
    for (view, size, want) in [("iso", "200", (200, 150)), ("top", "128", (0, 0)), ("spawn", "64", (64, 48))] {
        let mut bytes = Vec::new();
        for k in 0..2 {
            let png = dir.join(format!("{view}{k}.png"));
            let out = Command::new(BSP)
                .arg("render")
                .arg(sample())
                .args(["-o", png.to_str().unwrap(), "--view", view, "--size", size])
                .output()
                .unwrap();
            assert!(out.status.success(), "{view}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(String::from_utf8_lossy(&out.stdout).contains("covered"));
            let (w, h, rgb) = png_rgb(&png);
            if want != (0, 0) {
                assert_eq!((w, h), want, "{view}");
            }
            assert_eq!(w.max(h).to_string(), size);
            assert!(drawn_share(&rgb) > 0.05, "{view}: blank picture");
            bytes.push(std::fs::read(&png).unwrap());
        }
        assert_eq!(bytes[0], bytes[1], "{view}: two runs differ");
    }
    // `-o -`: the same PNG on standard output, the summary on stderr.
    let out = Command::new(BSP).arg("render").arg(sample()).args(["-o", "-", "--size", "200"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, std::fs::read(dir.join("iso0.png")).unwrap());
    assert!(String::from_utf8_lossy(&out.stderr).contains("covered"));
    // No temporary files left beside the output.
    let names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| n.ends_with(".png") && !n.starts_with('.')), "{names:?}");
}

#[test]
fn render_refuses_bad_flags() {
    let dir = scratch("render-flags");
    let png = dir.join("x.png");
    for args in [vec!["--size", "0"], vec!["--size", "8193"], vec!["--view", "side"]] {
        let out = Command::new(BSP).arg("render").arg(sample()).args(["-o", png.to_str().unwrap()]).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!png.exists());
    }
    // A file that is not a map: exit 2, nothing written.
    let bad = dir.join("bad.bsp");
    std::fs::write(&bad, b"not a map at all").unwrap();
    let out = Command::new(BSP).arg("render").arg(&bad).args(["-o", png.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!png.exists());
}

#[test]
fn scan_thumbnails_every_map_and_reports_failures() {
    let dir = scratch("render-thumbs");
    let maps = dir.join("maps");
    std::fs::create_dir_all(&maps).unwrap();
    std::fs::copy(sample(), maps.join("e1m1.bsp")).unwrap();
    // The same name again inside an archive, and a truncated map.
    let mut pak = bspkit::lumps::pakfile::PakBuilder::new();
    pak.insert("maps/e1m1.bsp", std::fs::read(sample()).unwrap()).unwrap();
    std::fs::write(maps.join("pak0.pk3"), pak.build(bspkit::lumps::pakfile::PakCompression::Stored).unwrap()).unwrap();
    let bytes = std::fs::read(sample()).unwrap();
    std::fs::write(maps.join("broken.bsp"), &bytes[..bytes.len() / 3]).unwrap();
    let thumbs = dir.join("thumbs");
    let out = Command::new(BSP).args(["scan", "--json", "--thumbnails"]).arg(&thumbs).arg(&maps).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let mut written = Vec::new();
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let entry = v["entry"].as_str().map(str::to_string);
        match v["thumbnail"].as_str() {
            Some(t) => {
                assert!(v["error"].is_null());
                let (w, h, rgb) = png_rgb(Path::new(t));
                assert_eq!((w, h), (512, 384));
                assert!(drawn_share(&rgb) > 0.05);
                written.push((Path::new(t).file_name().unwrap().to_string_lossy().into_owned(), entry));
            }
            None => assert!(!v["error"].is_null() || !v["thumbnail_error"].is_null(), "{line}"),
        }
    }
    written.sort();
    assert_eq!(written, vec![("e1m1.png".to_string(), None), ("pak0_e1m1.png".to_string(), Some("maps/e1m1.bsp".to_string()))], "{stdout}");
    assert!(stderr.contains("2 thumbnails in"), "{stderr}");
}
