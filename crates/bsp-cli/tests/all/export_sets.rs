//! Issue 23, "Multi-file outputs are one set": a `.gltf` (with its `.bin` and PNGs) or an `.obj`
//! (with its `.mtl` and PNGs) written by `bsp export` is one set (`bspkit::write::set`). Through
//! a symbolic link every part goes beside the link's target; a FIFO or device output is refused
//! before anything is written; a full disk (a file-size limit), the written-bytes budget, or a
//! crash at any step of the renames leaves a whole set — the old one or the new one — and
//! nothing half-made.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::cli::{err, run, run_crashing_after, s, scratch, BSP};

/// The sample room with its texture renamed to `texture` (same length or shorter).
fn room(dir: &Path, texture: &str) -> PathBuf {
    let mut bytes = bspkit::build::sample_quake1();
    let bsp = bspkit::Bsp::from_bytes(&bytes).unwrap();
    let at = bsp.entry(bsp.lump_index("TEXTURES").unwrap()).unwrap().offset as usize;
    drop(bsp);
    let first = i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
    let name = &mut bytes[at + first..at + first + 16];
    name.fill(0);
    name[..texture.len()].copy_from_slice(texture.as_bytes());
    let path = dir.join(format!("room_{texture}.bsp"));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// In a new folder `dir`: `old_map` exported to `e.EXT`, then `new_map` exported over it by a
/// `bsp` stopped after step `k` of the set's renames: the output path and how that run ended.
fn export_over_crashing_after(dir: &Path, ext: &str, k: usize, old_map: &Path, new_map: &Path) -> (PathBuf, Output) {
    std::fs::create_dir_all(dir).unwrap();
    let out = dir.join(format!("e.{ext}"));
    export_ok(old_map, &out, &["--scale", "1"]);
    let o = run_crashing_after(k, &["export", s(new_map), "-o", s(&out)]);
    (out, o)
}

/// Every file of `dir` (not `.bsp` inputs) with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".bsp") && e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn export(map: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    let mut a = vec!["export", s(map), "-o", s(out)];
    a.extend_from_slice(args);
    run(&a)
}

fn export_ok(map: &Path, out: &Path, args: &[&str]) {
    let o = export(map, out, args);
    assert!(o.status.success(), "bsp export -o {}: {}", out.display(), err(&o));
}

/// The file names a `.gltf` refers to.
fn gltf_refs(doc: &Value) -> Vec<String> {
    ["buffers", "images"]
        .iter()
        .flat_map(|k| doc[*k].as_array().cloned().unwrap_or_default())
        .filter_map(|e| e["uri"].as_str().map(str::to_string))
        .collect()
}

/// `-o LINK.gltf` / `LINK.obj`: every part beside the link's target, none beside the link; a
/// FIFO, a link to a device and a FIFO `.obj` are refused with nothing written.
#[test]
fn sets_go_beside_the_link_target_and_special_outputs_are_refused() {
    let d = scratch("sets-links");
    let map = room(&d, "bspkit_grey");
    let (out, real) = (d.join("out"), d.join("real"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&real).unwrap();
    for ext in ["gltf", "obj"] {
        // A dangling link: the file it names is created, with its parts beside it.
        std::os::unix::fs::symlink(format!("../real/target.{ext}"), out.join(format!("link.{ext}"))).unwrap();
        export_ok(&map, &out.join(format!("link.{ext}")), &[]);
    }
    let written: Vec<String> = files(&real).into_keys().collect();
    assert_eq!(
        written,
        // The OBJ's image does not overwrite the glTF's (another set may name it): a free name.
        [
            "target.bin",
            "target.gltf",
            "target.mtl",
            "target.obj",
            "target_bspkit_grey.png",
            "target_bspkit_grey~2.png",
            "target_lightmap0.png"
        ],
        "every part beside the target"
    );
    let beside_link: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(beside_link.len(), 2, "only the two links beside them: {beside_link:?}");
    let doc: Value = serde_json::from_slice(&std::fs::read(real.join("target.gltf")).unwrap()).unwrap();
    for r in gltf_refs(&doc) {
        assert!(real.join(&r).is_file(), "{r} is not beside the glTF");
    }

    // A FIFO (no reader) and a link to a character device: refused at once, nothing written.
    let fifo = d.join("pipe.gltf");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let null = d.join("null.obj");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let before = std::fs::read_dir(&d).unwrap().count();
    for target in [&fifo, &null] {
        let o = export(&map, target, &[]);
        assert_eq!(o.status.code(), Some(2), "{}", err(&o));
        let e = err(&o);
        assert!(e.contains("not a regular file") && e.contains("nothing was written"), "{e}");
    }
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), before, "a file was written beside a special output");
    assert!(!Path::new("/dev/null.mtl").exists() && !Path::new("/dev/null_bspkit_grey.png").exists());
    // GLB is one file: written through a FIFO as before (a reader gets it).
    let reader = {
        let fifo = d.join("pipe.glb");
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    export_ok(&map, &d.join("pipe.glb"), &[]);
    assert_eq!(&reader.join().unwrap()[..4], b"glTF");
}

/// Run `bsp export` with a file-size limit of `kib` KiB (bash's `ulimit -f`, 1024-byte blocks).
fn export_limited(kib: u64, map: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -f {kib} && exec \"$0\" \"$@\""))
        .arg(BSP)
        .args(["export", s(map), "-o", s(out)])
        .args(args)
        .output()
        .unwrap()
}

/// A re-export that fails — disk full (a 1 KiB file-size limit) or the written-bytes budget —
/// leaves the old `.gltf`/`.obj` set byte for byte, with no new or temporary file.
/// Before: `e.gltf` replaced while `e.bin` stayed old (issue 23, a 3 MiB tmpfs).
#[test]
fn failed_re_exports_leave_the_old_set() {
    let d = scratch("sets-full");
    let (old_map, new_map) = (room(&d, "bspkit_grey"), room(&d, "other_tex"));
    for ext in ["gltf", "obj"] {
        let out = d.join(format!("e.{ext}"));
        export_ok(&old_map, &out, &["--scale", "1"]);
        let old = files(&d);
        let o = export_limited(1, &new_map, &out, &[]);
        assert_eq!(o.status.code(), Some(2), "{ext}: {}", err(&o));
        assert!(err(&o).contains("File too large"), "{ext}: {}", err(&o));
        assert_eq!(files(&d), old, "{ext}: the old set changed after a full disk");
        let o = export(&new_map, &out, &["--max-output-bytes", "1000"]);
        assert_eq!(o.status.code(), Some(2), "{ext}: {}", err(&o));
        assert!(err(&o).contains("written bytes budget (--max-output-bytes)"), "{ext}: {}", err(&o));
        assert_eq!(files(&d), old, "{ext}: the old set changed after the budget stopped it");
        // And with room to write, the new set replaces the old one whole.
        export_ok(&new_map, &out, &[]);
        let new = files(&d);
        assert!(new.keys().all(|k| !k.contains("bspkit_grey")), "{ext}: an old image was left: {:?}", new.keys());
    }
    // GLB: the budget names itself, the old file stays.
    let glb = d.join("e.glb");
    export_ok(&old_map, &glb, &[]);
    let old = std::fs::read(&glb).unwrap();
    let o = export(&new_map, &glb, &["--max-output-bytes", "1000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("written bytes budget (--max-output-bytes)"), "{}", err(&o));
    assert_eq!(std::fs::read(&glb).unwrap(), old);
    assert!(files(&d).keys().all(|k| !k.contains("bspkit-tmp")));
}

/// Is the `.gltf` or `.obj` set at `main` whole? Returns which texture it shows. For a glTF,
/// whole means: every file it names is there, and its `.bin` is the bytes of the export it
/// goes with (`bins`: per texture name, the reference `.bin`). For an OBJ: its MTL is there
/// and names the same texture, and every image the MTL names is there.
fn whole(main: &Path, bins: &BTreeMap<&str, Vec<u8>>) -> Result<String, String> {
    let dir = main.parent().unwrap();
    if main.extension().unwrap() == "gltf" {
        let doc: Value = serde_json::from_slice(&std::fs::read(main).unwrap()).map_err(|e| e.to_string())?;
        let tex = doc["materials"][0]["name"].as_str().unwrap().to_string();
        for r in gltf_refs(&doc) {
            if !dir.join(&r).is_file() {
                return Err(format!("{r} missing"));
            }
        }
        let bin = std::fs::read(dir.join(doc["buffers"][0]["uri"].as_str().unwrap())).unwrap();
        if bin != bins[tex.as_str()] {
            return Err(format!("the .bin is not the one of the {tex} export"));
        }
        Ok(tex)
    } else {
        let obj = std::fs::read_to_string(main).unwrap();
        let mtl_name = obj.lines().find_map(|l| l.strip_prefix("mtllib ")).ok_or("no mtllib")?;
        let mtl = std::fs::read_to_string(dir.join(mtl_name)).map_err(|e| format!("{mtl_name}: {e}"))?;
        let tex = obj.lines().find_map(|l| l.strip_prefix("usemtl ")).ok_or("no usemtl")?.to_string();
        if !mtl.contains(&format!("newmtl {tex}")) {
            return Err(format!("{mtl_name} does not define {tex}"));
        }
        for img in mtl.lines().filter_map(|l| l.strip_prefix("map_Kd ")) {
            if !dir.join(img).is_file() {
                return Err(format!("{img} missing"));
            }
        }
        Ok(tex)
    }
}

/// A crash at every step of putting a new set in place (the test hook aborts the process
/// after step K: each sidecar linked in, the main file renamed, each old sidecar removed)
/// leaves a whole set: the old one up to the main file's rename, the new one from it on.
#[test]
fn a_crash_at_any_step_leaves_a_whole_set() {
    let d = scratch("sets-crash");
    let (old_map, new_map) = (room(&d, "bspkit_grey"), room(&d, "other_tex"));
    // Reference `.bin` files of the two exports, made in a directory of their own.
    let refs = d.join("refs");
    std::fs::create_dir_all(&refs).unwrap();
    export_ok(&old_map, &refs.join("a.gltf"), &["--scale", "1"]);
    export_ok(&new_map, &refs.join("b.gltf"), &[]);
    let bins = BTreeMap::from([
        ("bspkit_grey", std::fs::read(refs.join("a.bin")).unwrap()),
        ("other_tex", std::fs::read(refs.join("b.bin")).unwrap()),
    ]);
    for ext in ["gltf", "obj"] {
        let mut seen = Vec::new();
        for k in 0.. {
            let (out, o) = export_over_crashing_after(&d.join(format!("{ext}-{k}")), ext, k, &old_map, &new_map);
            let state = whole(&out, &bins).unwrap_or_else(|e| panic!("{ext}, crash after step {k}: not a whole set: {e}"));
            seen.push(state);
            if o.status.success() {
                break;
            }
            assert!(k < 20, "{ext}: the hook never let the export finish");
        }
        // Both sets were seen: the switch is one step, the main file's rename.
        assert_eq!(seen.first().map(String::as_str), Some("bspkit_grey"), "{ext}: {seen:?}");
        assert_eq!(seen.last().map(String::as_str), Some("other_tex"), "{ext}: {seen:?}");
        let switch = seen.iter().position(|t| t == "other_tex").unwrap();
        assert!(seen[switch..].iter().all(|t| t == "other_tex"), "{ext}: {seen:?}");
        eprintln!("{ext}: {} steps, old set after steps 0..{switch}, new set from step {switch}", seen.len());
    }
}

/// A Respawn set edited in place (`lump replace … --in-place`) and killed at each step of its
/// renames (the `.bsp_lump` first, the `.bsp` last). The `.bsp_lump` names are fixed by the
/// game, so the state between the two renames is a new `.bsp_lump` beside the old `.bsp`:
/// `check` reports it as an error (before: a note, exit 0), the whole sets before and after as
/// clean, and writing the set again repairs it.
#[test]
fn respawn_set_cut_between_renames_is_an_error_in_check() {
    use bspkit::branches::respawn::{LUMP_ENTITIES, TITANFALL2};
    use bspkit::build::BspBuilder;
    let d = scratch("sets-respawn");
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let map = BspBuilder::new(&TITANFALL2).version(37).lump(LUMP_ENTITIES, ents.clone()).build();
    let new_ents = d.join("ents.txt");
    std::fs::write(&new_ents, b"{\n\"classname\" \"worldspawn\"\n\"message\" \"a longer entity lump\"\n}\n\0").unwrap();
    let check = |path: &Path| {
        let o = run(&["check", s(path)]);
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let mut states = Vec::new();
    for k in 0.. {
        let dir = d.join(format!("k{k}"));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mp_x.bsp");
        std::fs::write(&path, &map).unwrap();
        std::fs::write(dir.join(format!("mp_x.bsp.{LUMP_ENTITIES:04x}.bsp_lump")), &ents).unwrap();
        // The old set is older than the edit, as any set on disk is.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let o = run_crashing_after(k, &["lump", "replace", s(&path), "ENTITIES", s(&new_ents), "--in-place"]);
        let (code, out) = check(&path);
        states.push(code);
        if o.status.success() {
            assert_eq!(code, Some(0), "the whole new set: {out}");
            break;
        }
        if code != Some(0) {
            assert!(out.contains("external_size") && out.contains("incomplete set"), "step {k}: {out}");
            // Writing the set again (any in-place edit: here the same one) repairs it.
            let o = run(&["lump", "replace", s(&path), "ENTITIES", s(&new_ents), "--in-place"]);
            assert!(o.status.success(), "{}", err(&o));
            assert_eq!(check(&path).0, Some(0), "repaired by writing the set again");
            // The same mixed files with the .bsp_lump not newer: what `check` said before (a note).
            let lump = dir.join(format!("mp_x.bsp.{LUMP_ENTITIES:04x}.bsp_lump"));
            std::fs::write(&path, &map).unwrap();
            let t = std::fs::metadata(&path).unwrap().modified().unwrap();
            std::fs::File::options().write(true).open(&lump).unwrap().set_modified(t).unwrap();
            let (code, out) = check(&path);
            assert_eq!(code, Some(0), "{out}");
            assert!(out.contains("external_size"), "{out}");
        }
        assert!(k < 10, "the hook never let the write finish");
    }
    // Step 0 (before any rename): the old set, clean; step 1 (the .bsp_lump renamed): an error;
    // step 2 (the .bsp renamed too): the new set, clean.
    assert_eq!(states, [Some(0), Some(1), Some(0), Some(0)], "check's exit code after a kill at each step");
}

/// Files of `dir` (not `.bsp` inputs, not dot-files) that the set at `main` does not name.
fn unreferenced(main: &Path) -> Vec<String> {
    let dir = main.parent().unwrap();
    let named: Vec<String> = if main.extension().unwrap() == "gltf" {
        let doc: Value = serde_json::from_slice(&std::fs::read(main).unwrap()).unwrap();
        gltf_refs(&doc)
    } else {
        let obj = std::fs::read_to_string(main).unwrap();
        let mtl = obj.lines().find_map(|l| l.strip_prefix("mtllib ")).unwrap().to_string();
        let text = std::fs::read_to_string(dir.join(&mtl)).unwrap();
        let mut n: Vec<String> = text.lines().filter_map(|l| l.strip_prefix("map_Kd ")).map(str::to_string).collect();
        n.push(mtl);
        n
    };
    let own = main.file_name().unwrap().to_string_lossy().into_owned();
    files(dir).into_keys().filter(|k| *k != own && !k.starts_with('.') && !named.contains(k)).collect()
}

/// A crash at any step of putting a set in place may leave files no set names: the new
/// sidecars linked in before the switch (the main file's rename), or the old ones after it,
/// before their removal. Before, nothing removed them later: each such crash left them for
/// good (the next export then took `~3` names around them). Now the write journals both lists
/// first (`.e.gltf.bspkit-stale`, with the new main file's inode), and the next write of the
/// set removes the old ones when the main file is the one the journal names, else the new
/// ones; a file the set on disk names is never removed.
#[test]
fn old_sidecars_left_by_a_crash_after_the_switch_go_with_the_next_write() {
    let d = scratch("sets-stale");
    let (old_map, new_map) = (room(&d, "bspkit_grey"), room(&d, "other_tex"));
    for ext in ["gltf", "obj"] {
        let mut left_after_crash = Vec::new();
        for k in 0.. {
            let dir = d.join(format!("{ext}-{k}"));
            let (out, o) = export_over_crashing_after(&dir, ext, k, &old_map, &new_map);
            if o.status.success() {
                assert!(unreferenced(&out).is_empty(), "{ext}: a whole write left {:?}", unreferenced(&out));
                break;
            }
            let stale = unreferenced(&out);
            left_after_crash.push(stale.len());
            // The next write of the set (the same export again) cleans up after the crash.
            export_ok(&new_map, &out, &[]);
            assert!(
                unreferenced(&out).is_empty(),
                "{ext}, crash after step {k}: left {:?} (after the crash: {stale:?})",
                unreferenced(&out)
            );
            let dots: Vec<String> = files(&dir).into_keys().filter(|k| k.starts_with('.')).collect();
            assert!(dots.is_empty(), "{ext}, crash after step {k}: {dots:?}");
            assert!(k < 20, "{ext}: the hook never let the export finish");
        }
        eprintln!("{ext}: unreferenced old files right after a crash at each step: {left_after_crash:?}; after the next write: none");
        assert!(left_after_crash.iter().any(|&n| n > 0), "{ext}: no crash fell between the switch and the removals");
    }
    // A crash before the switch: the old set is still the one on disk; the next write (here
    // one the budget stops before its own switch) removes none of its files.
    let dir = d.join("before-switch");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("e.gltf");
    export_ok(&old_map, &out, &["--scale", "1"]);
    let o = run_crashing_after(0, &["export", s(&new_map), "-o", s(&out)]);
    assert!(!o.status.success());
    assert!(dir.join(".e.gltf.bspkit-stale").is_file(), "{:?}", files(&dir).keys());
    let old = files(&dir).into_iter().filter(|(k, _)| !k.starts_with('.')).collect::<BTreeMap<_, _>>();
    // The next write (here one the written-bytes budget stops before its own switch) drops
    // the journal and removes none of the old set's files.
    let o = export(&new_map, &out, &["--max-output-bytes", "1000"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(files(&dir).into_iter().filter(|(k, _)| !k.starts_with('.')).collect::<BTreeMap<_, _>>(), old);
    assert!(unreferenced(&out).is_empty());
    assert!(!dir.join(".e.gltf.bspkit-stale").exists());
}
