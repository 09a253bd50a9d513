//! `bsp view`'s page in headless Chromium (Debian's `chromium`, driven by the scripts in
//! `viewer/test/` through playwright-core) over a `view_cli` server: a non-blank first frame of
//! a corpus map of every family with its entity count, placeholder lightmaps and the PVS beyond
//! Quake, images that do not hold up the first frame, the sealing box's toggle.
//!
//! A module of its own, named to sort first: libtest starts tests in name order, and these are
//! among the binary's longest (the run over every family the longest of all); started last (as
//! `view_cli::…`), they ran on after the other tests had finished, one test thread idle
//! (docs/setup-test-time.md, session 43).
//!
//! They need node and `viewer/node_modules` (`scripts/test.sh` runs `npm ci` there) and
//! `/usr/bin/chromium` (or `BSPKIT_CHROMIUM`); without them they skip with a note.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;
use crate::view_cli::{entity_count, program, root, viewer_tools, Server};

/// The Chromium program (`BSPKIT_CHROMIUM`, default `/usr/bin/chromium`), or `None` with a note.
fn chromium(test: &str) -> Option<String> {
    let chromium = std::env::var("BSPKIT_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if program(&chromium).is_none() {
        assert!(std::env::var("BSPKIT_REQUIRE_CHROMIUM").is_err(), "{chromium} is missing");
        eprintln!("note: {test} skipped: {chromium} is missing (Debian package `chromium`)");
        return None;
    }
    Some(chromium)
}

/// `viewer/test/browser.mjs` over `server`'s maps, screenshots into `target/SHOTS/`: one JSON
/// object per map.
fn browse(node: &Path, viewer: &Path, chromium: &str, server: &Server, shots: &str) -> Vec<Value> {
    let o = Command::new(node)
        .arg("test/browser.mjs")
        .arg(&server.url)
        .arg(root().join("target").join(shots))
        .args(["--chromium", chromium])
        .current_dir(viewer)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "browser.mjs failed: {}\n{stdout}", String::from_utf8_lossy(&o.stderr));
    stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The page's initial camera is the server's frame of the playable area (`bsp render`'s iso
/// camera, `bspkit::render::view_frame`) and the map's surfaces cover at least 20 % of its
/// picture (markers and links hidden), as `bsp render`'s frames of the corpus maps do.
fn initial_frame_covers(r: &Value, name: &str) {
    assert_eq!(r["frame"]["fromServer"], true, "{name}: the page did not get the server's frame: {}", r["frame"]);
    let coverage = r["coverage"]["share"].as_f64().unwrap_or_else(|| panic!("{name}: no coverage measured: {r}"));
    eprintln!("{name}: initial frame covers {:.1} % of the canvas", coverage * 100.0);
    assert!(coverage >= 0.20, "{name}: the initial frame covers {:.1} % of the canvas (want ≥ 20 %)", coverage * 100.0);
}

/// The toolbar's controls are whole at every size `browser.mjs` measured (the test's size, and
/// for the first map 600 and 1280 px wide): each control's box inside the window and the toolbar,
/// the control itself showing at its corners and centre, the map list as wide as the shown map's
/// name needs. At 1280 px the toolbar is one line, as before the narrow layout (issue 24: at
/// 720 px the last button was cut, "Screensh…", under the side panel, and the list's name too).
fn toolbar_whole(r: &Value, name: &str) {
    let bars = r["toolbars"].as_array().unwrap_or_else(|| panic!("{name}: no toolbar measured: {r}"));
    for t in bars {
        let at = |v: &Value, k: usize| v[k].as_f64().unwrap();
        let (vw, vh) = (at(&t["viewport"], 0), at(&t["viewport"], 1));
        let header = &t["header"];
        let controls = t["controls"].as_array().unwrap();
        assert!(controls.len() >= 3, "{name}: {t}");
        for c in controls {
            let b = &c["box"];
            let (l, top, right, bottom) = (at(b, 0), at(b, 1), at(b, 2), at(b, 3));
            let inside = l >= 0.0 && top >= 0.0 && right <= vw && bottom <= vh;
            let in_bar = l >= at(header, 0) && right <= at(header, 2) && top >= at(header, 1) && bottom <= at(header, 3);
            assert!(inside && in_bar && c["onTop"] == true, "{name}: at {vw} × {vh} the toolbar's {} is cut or hidden: {t}", c["id"]);
        }
        if let Some(needs) = t["mapsNeeds"].as_f64() {
            let maps = controls.iter().find(|c| c["id"] == "maps").unwrap_or_else(|| panic!("{name}: {t}"));
            let width = at(&maps["box"], 2) - at(&maps["box"], 0);
            assert!(width + 0.5 >= needs, "{name}: at {vw} × {vh} the map list is {width} px wide, its map's name needs {needs}: {t}");
        }
        if vw >= 1280.0 {
            // One line: the toolbar no taller than its tallest control and its padding (4 + 4 px).
            let tallest = controls.iter().map(|c| at(&c["box"], 3) - at(&c["box"], 1)).fold(0.0, f64::max);
            assert!(at(header, 3) - at(header, 1) <= tallest + 8.5, "{name}: at {vw} px the toolbar is not one line: {t}");
        }
    }
}

/// Maps whose lightmaps are black placeholders (Titanfall 2 `mp_looby` and `mp_crossfire`:
/// [`bspkit::lightmap::Lightmaps::is_placeholder`]) are drawn shaded from their normals, not
/// black; the PVS culls Quake 3 (uncompressed rows) and Source (`dvis_t`) maps at a spawn point
/// with the same picture as without it; Source bump layers switch.
#[test]
fn view_placeholder_lightmaps_and_pvs_beyond_quake() {
    let Some(corpus) = common::corpus("view_placeholder_lightmaps_and_pvs_beyond_quake") else { return };
    let Some((node, viewer)) = viewer_tools("view_placeholder_lightmaps_and_pvs_beyond_quake") else { return };
    let Some(chromium) = chromium("view_placeholder_lightmaps_and_pvs_beyond_quake") else { return };
    let placeholder = ["respawn/catornot__mp_looby/mp_looby.bsp", "respawn/bsp_tool__tf2r_mp_crossfire.bsp"];
    let culled = ["quake3/turtlearena__sp1boss.bsp", "source/bsp_tool__tf2_test2.bsp"];
    let maps: Vec<PathBuf> = placeholder.iter().chain(&culled).map(|m| corpus.join(m)).collect();
    let server = Server::start(&maps);
    let lines = browse(&node, &viewer, &chromium, &server, "view-shots-pvs");
    assert_eq!(lines.len(), maps.len());
    for (r, map) in lines.iter().zip(&maps) {
        let name = map.display();
        assert_eq!(r["state"], "ready", "{name}: {r}");
        toolbar_whole(r, &name.to_string());
        let bsp = bspkit::Bsp::open(map).unwrap();
        let lm = bspkit::lightmap::build(&bsp, &Default::default()).unwrap();
        // The page's flag is the library's predicate, carried by the export.
        assert_eq!(r["lightmapPlaceholder"], lm.is_placeholder(), "{name}");
        initial_frame_covers(r, &name.to_string());
        let dark = r["pixels"]["dark"].as_f64().unwrap();
        eprintln!("{name}: placeholder {}, black pixels {:.1} %, PVS {}", lm.is_placeholder(), dark * 100.0, r["pvs"]);
        if map.ends_with(placeholder[1]) {
            // mp_crossfire stands on a ground plane about ten times as wide as the level: the
            // initial frame is the level's box, not the ground's (it opened on the ground with
            // the level small in the middle).
            let (f, b) = (&r["frame"], &r["coverage"]["bounds"]);
            let side = |lo: &Value, hi: &Value, k: usize| hi[k].as_f64().unwrap() - lo[k].as_f64().unwrap();
            let framed = side(&f["focusMin"], &f["focusMax"], 0) * side(&f["focusMin"], &f["focusMax"], 1);
            let whole = side(&b["min"], &b["max"], 0) * side(&b["min"], &b["max"], 1);
            eprintln!("{name}: the frame's box covers {:.1} % of the map's ground area", 100.0 * framed / whole);
            assert!(framed < 0.25 * whole, "{name}: the frame's box covers {:.1} % of the map's ground area", 100.0 * framed / whole);
        }
        if placeholder.iter().any(|m| map.ends_with(m)) {
            assert!(lm.is_placeholder(), "{name}: the corpus map's lightmaps are all black");
            // Drawn black, most of the frame was black (the map fills it); shaded, almost none.
            assert!(dark < 0.02, "{name}: {:.1} % of the first frame is black", dark * 100.0);
        } else {
            let pvs = &r["pvs"];
            assert_eq!(pvs["available"], true, "{name}: {pvs}");
            assert_eq!(pvs["culling"], true, "{name}: not culled at the spawn point: {pvs}");
            let (drawn, total) = (pvs["drawn"].as_f64().unwrap(), pvs["total"].as_f64().unwrap());
            // These maps are small: from their first spawn point every world face is in a
            // visible cluster's leaf (the library test `view_visibility` finds the clusters
            // that hide faces), so there culling must be on, draw no more and change no pixel.
            assert!(drawn <= total, "{name}: {pvs}");
            // Where the grid's probe stood, the PVS drew fewer triangles, the same picture.
            let probe = &pvs["probe"];
            assert!(probe["drawn"].as_f64().unwrap() < total, "{name}: {pvs}");
            assert!(probe["samePixels"].as_f64().unwrap() >= 0.999, "{name}: the culled picture differs: {pvs}");
            assert_eq!(pvs["wholeDrawn"].as_f64(), Some(total), "{name}: culling off draws everything: {pvs}");
            assert!(pvs["samePixels"].as_f64().unwrap() >= 0.999, "{name}: the culled picture differs: {pvs}");
        }
        // Source bump layers: tf2_test2 has a bump-lit texinfo (flag 0x800) whose faces show in
        // the first frame; bump 1 instead of flat changes them, flat again restores the picture.
        eprintln!("{name}: {} bump-layered materials, {} pixels change with bump 1", r["bumpMaterials"], r["bumpChangedPixels"]);
        if map.ends_with("source/bsp_tool__tf2_test2.bsp") {
            assert!(r["bumpMaterials"].as_u64().unwrap() > 0, "{name}: no bump layers in the page");
            assert!(r["bumpChangedPixels"].as_u64().unwrap() > 0, "{name}: bump 1 changed no pixel");
            assert_eq!(r["bumpRestored"], true, "{name}");
        }
    }
    server.stop();
}

/// The page in headless Chromium for the largest corpus map of every family folder: a first
/// frame that is not blank, the entity panel's count, a screenshot in `target/view-shots/`.
#[test]
fn view_in_headless_chromium() {
    let Some(corpus) = common::corpus("view_in_headless_chromium") else { return };
    let Some((node, viewer)) = viewer_tools("view_in_headless_chromium") else { return };
    let Some(chromium) = chromium("view_in_headless_chromium") else { return };
    let mut largest: std::collections::BTreeMap<String, (u64, PathBuf)> = Default::default();
    for m in common::maps(&corpus) {
        let size = std::fs::metadata(&m.path).map(|x| x.len()).unwrap_or(0);
        let e = largest.entry(m.folder.clone()).or_insert((0, m.path.clone()));
        if size > e.0 {
            *e = (size, m.path.clone());
        }
    }
    let maps: Vec<PathBuf> = largest.values().map(|(_, p)| p.clone()).collect();
    assert!(maps.len() >= 8, "one map per family folder: {maps:?}");
    let server = Server::start(&maps);
    let lines = browse(&node, &viewer, &chromium, &server, "view-shots");
    assert_eq!(lines.len(), maps.len());
    let (mut styled, mut culled) = (0, 0);
    for (r, map) in lines.iter().zip(&maps) {
        let name = map.display();
        assert_eq!(r["state"], "ready", "{name}: {r}");
        toolbar_whole(r, &name.to_string());
        let px = &r["pixels"];
        // A blank canvas is one colour: no variance. Every one of these maps has drawn faces, so
        // the background and at least two shades of them.
        assert!(px["variance"].as_f64().unwrap() > 5.0 && px["colours"].as_u64().unwrap() >= 3, "{name}: blank canvas {px}");
        assert!(r["triangles"].as_f64().unwrap() > 0.0, "{name}");
        let want = format!("{} entities", entity_count(map));
        assert!(r["entityText"].as_str().unwrap().starts_with(&want), "{name}: panel says {}, want {want}", r["entityText"]);
        assert!(Path::new(r["screenshot"].as_str().unwrap()).is_file());
        initial_frame_covers(r, &name.to_string());
        // The search by classname or targetname lists what the library's entities say.
        let bsp = bspkit::Bsp::open(map).unwrap();
        let ents = bsp.entities().unwrap();
        let matches = ents
            .iter()
            .filter(|e| ["classname", "targetname"].iter().any(|k| e.get(k).is_some_and(|v| v.to_lowercase().contains("info_player"))))
            .count();
        assert_eq!(r["searchText"], format!("{matches} match"), "{name}");
        if r["spawns"].as_u64().unwrap() > 0 {
            assert!(Path::new(r["spawnShot"].as_str().unwrap()).is_file(), "{name}");
        }
        let logs: Vec<&str> =
            r["logs"].as_array().unwrap().iter().filter_map(|l| l.as_str()).filter(|l| !l.contains("GL Driver Message")).collect();
        assert!(logs.is_empty(), "{name}: console: {logs:?}");
        // Light styles: switching the others off changes pixels, switching them on restores them.
        let styles = r["styles"].as_array().map_or(0, |s| s.len());
        if styles > 1 {
            styled += 1;
            assert!(r["styleChangedPixels"].as_u64().unwrap() > 0, "{name}: styles {} switched off, no pixel changed", r["styles"]);
            assert_eq!(r["styleRestored"], true, "{name}");
        }
        // PVS culling at the spawn point: no more world triangles (fewer on the Quake 1 and
        // Quake 2 maps; the Quake 3 lobby's 8 clusters see each other), the same picture.
        let pvs = &r["pvs"];
        if pvs["available"] == true {
            let (drawn, total) = (pvs["drawn"].as_f64().unwrap(), pvs["total"].as_f64().unwrap());
            if pvs["culling"] == true {
                assert!(drawn <= total, "{name}: {pvs}");
                culled += usize::from(drawn < total);
            }
            assert_eq!(pvs["wholeDrawn"].as_f64(), Some(total), "{name}: culling off draws everything: {pvs}");
            assert!(pvs["samePixels"].as_f64().unwrap() >= 0.999, "{name}: the culled picture differs: {pvs}");
        }
        eprintln!("{name}: PVS {pvs}");
        eprintln!(
            "{name}: {} bytes, {} triangles, first frame {:.0} ms after page start (load {:.0} ms, wall {} ms), luma variance {:.0}, \
             styles {} ({} pixels change with all but the first off), timings {}",
            std::fs::metadata(map).unwrap().len(),
            r["triangles"],
            r["firstFrameMs"].as_f64().unwrap(),
            r["loadMs"].as_f64().unwrap(),
            r["wallMs"],
            px["variance"].as_f64().unwrap(),
            r["styles"],
            r["styleChangedPixels"],
            r["timings"]
        );
    }
    // The Quake 1, Quake 2 and Genesis3D maps have switchable light styles (issue 25).
    assert!(styled >= 1, "no map showed a light style switch");
    // The Quake 1 and Quake 2 maps have visibility data and spawn points inside.
    assert!(culled >= 1, "no map was PVS-culled at its spawn point");
    let stderr = server.stop();
    eprintln!("{stderr}");
}

/// Images do not hold up the first frame (issue 25): with every image decode held back
/// (`viewer/test/deferred.mjs` wraps the page's `createImageBitmap`), the page still draws its
/// first frame, with all of the map's images pending; released, they come in, change the
/// picture, and the finished picture is the one of a load where nothing was held, both loads
/// having given every decoded image to WebGL. A page that decodes its images before drawing (as
/// before this change) never draws while they are held.
#[test]
fn view_first_frame_does_not_wait_for_images() {
    let test = "view_first_frame_does_not_wait_for_images";
    let Some(corpus) = common::corpus(test) else { return };
    let Some((node, viewer)) = viewer_tools(test) else { return };
    let Some(chromium) = chromium(test) else { return };
    // Genesis3D's textures and lightmaps, and a Quake 1 map's lightmap with three light styles.
    let maps: Vec<PathBuf> = ["genesis3d/genesis3d__genvs2.bsp", "quake1/qbsp__lq_e0m1.bsp"].iter().map(|m| corpus.join(m)).collect();
    let server = Server::start(&maps);
    let o = Command::new(&node)
        .arg("test/deferred.mjs")
        .arg(&server.url)
        .arg(root().join("target").join("view-shots-deferred"))
        .args(["--chromium", &chromium, "--hold-timeout", "120"])
        .current_dir(&viewer)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "deferred.mjs failed: {}\n{stdout}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), maps.len());
    for (r, map) in lines.iter().zip(&maps) {
        let name = map.display();
        eprintln!("{name}: {r}");
        assert_eq!(r["firstFrameWhileHeld"], true, "{name}: no first frame while the images were held back: {r}");
        assert_eq!(r["state"], "ready", "{name}: {r}");
        let at_first = &r["imagesAtFirstFrame"];
        let total = at_first["total"].as_u64().unwrap();
        // Decodes are asked for while the page builds its scene, some maybe only after the
        // first frame; every one of them waited for the release.
        assert!(total > 0 && r["heldInAll"].as_u64().unwrap() > 0, "{name}: the map has images, their decodes were held: {r}");
        assert_eq!(at_first["pendingAtFirstFrame"].as_u64(), Some(total), "{name}: every image was still held at the first frame: {r}");
        let after = &r["imagesAfter"];
        assert_eq!((after["pending"].as_u64(), after["failed"].as_u64()), (Some(0), Some(0)), "{name}: {r}");
        assert!(r["texturesReadyMs"].as_f64().unwrap() > r["firstFrameMs"].as_f64().unwrap(), "{name}: {r}");
        // The images are seen: a good part of the canvas changes when they come in …
        let changed = r["changedPixels"].as_f64().unwrap();
        assert!(changed > 0.02, "{name}: {:.2} % of the pixels changed when the images came in", changed * 100.0);
        // … and the finished picture is the one drawn without holding anything back.
        let same = r["sameAsUnheld"].as_f64().unwrap();
        assert!(same >= 0.999, "{name}: {:.2} % of the pixels match the unheld load", same * 100.0);
        // Both finished pages show every image they decoded: each decoded bitmap was given to
        // WebGL as a texture's pixels (recorded under the page). A page that drops its decoded
        // images draws the same picture held or not, so the two checks above cannot see it.
        for (load, key) in [("held", "uploads"), ("unheld", "unheldUploads")] {
            let (decoded, uploaded) = (r[key]["decoded"].as_u64(), r[key]["uploaded"].as_u64());
            assert_eq!(decoded, Some(total), "{name}: the {load} load decoded {decoded:?} of its {total} images: {r}");
            assert_eq!(uploaded, Some(total), "{name}: the {load} load drew {uploaded:?} of its {total} decoded images: {r}");
        }
    }
    server.stop();
}

/// The walls of a box sealing a map (issue 25) are a surface kind the page knows: hidden at
/// first, so the first view shows the level, and brought back by the `hull` toggle
/// (`viewer/test/hull.mjs`). Titanfall 2 `mp_hippodrome` (MRVN-Radiant) is sealed in a box of
/// `dev_orange_512` far larger than its rooms: drawn, its outside fills the picture. Decided by
/// the library (`mesh::hull`, as `bsp render` cuts the walls), never by the map's name: LibreQuake
/// e0m1, which no box seals, has no surface of that kind.
#[test]
fn view_hides_the_sealing_box_and_a_toggle_shows_it() {
    let test = "view_hides_the_sealing_box_and_a_toggle_shows_it";
    let Some(corpus) = common::corpus(test) else { return };
    let Some((node, viewer)) = viewer_tools(test) else { return };
    let Some(chromium) = chromium(test) else { return };
    let maps: Vec<PathBuf> = ["respawn/catornot__mp_hippodrome.bsp", "quake1/qbsp__lq_e0m1.bsp"].iter().map(|m| corpus.join(m)).collect();
    let server = Server::start(&maps);
    let o = Command::new(&node)
        .arg("test/hull.mjs")
        .arg(&server.url)
        .arg(root().join("target").join("view-shots-hull"))
        .args(["--chromium", &chromium])
        .current_dir(&viewer)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "hull.mjs failed: {}\n{stdout}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), maps.len());
    for r in &lines {
        eprintln!("{r}");
        assert_eq!(r["state"], "ready", "{r}");
    }
    let (hippo, e0m1) = (&lines[0], &lines[1]);
    let step = |r: &Value, k: usize| r["steps"][k].clone();
    let meshes = step(hippo, 0)["hull"]["meshes"].as_u64().unwrap();
    assert!(meshes > 0, "hippodrome: no mesh of kind hull: {hippo}");
    // First view: walls hidden, the level's faces cover the picture.
    let first = step(hippo, 0);
    assert_eq!((first["checked"].as_bool(), first["hull"]["shown"].as_u64()), (Some(false), Some(0)), "{hippo}");
    assert!(first["covered"].as_f64().unwrap() > 0.2, "hippodrome: the first view covers {}", first["covered"]);
    // The toggle brings every wall back, and the box's outside changes most of the picture …
    let shown = step(hippo, 1);
    assert_eq!((shown["checked"].as_bool(), shown["hull"]["shown"].as_u64()), (Some(true), Some(meshes)), "{hippo}");
    let changed = hippo["changedWhenShown"].as_f64().unwrap();
    assert!(changed > 0.3, "hippodrome: {:.1} % of the pixels changed when the walls came in", changed * 100.0);
    // … and off again, the first view is back.
    assert_eq!(step(hippo, 2)["hull"]["shown"].as_u64(), Some(0), "{hippo}");
    assert!(hippo["sameAsFirst"].as_f64().unwrap() >= 0.999, "{hippo}");
    // A map no box seals: no such kind, and the toggle changes nothing.
    assert_eq!(step(e0m1, 0)["hull"]["meshes"].as_u64(), Some(0), "{e0m1}");
    assert!(e0m1["changedWhenShown"].as_f64().unwrap() < 0.001, "{e0m1}");
    server.stop();
}
