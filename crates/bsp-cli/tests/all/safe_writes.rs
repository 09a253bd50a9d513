//! Issue 11, items 1–6: how `bsp` writes meet the file system. Every writing command goes
//! through `bspkit::write::atomic`; these run the real binary against FIFOs, device nodes,
//! sockets, directories, symbolic links, modes, hard links, concurrent in-place edits, missing
//! directories and interrupted writes, each on its own temporary directory.

use crate::cli;

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use bspkit::build::BspBuilder;
use cli::{big_quake_map, err, run, s, scratch, BSP};

/// Hidden temporary files left in `dir`.
fn temps(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".bspkit-tmp-"))
        .collect()
}

fn worldspawn_value(path: &Path, key: &str) -> Option<String> {
    let bsp = bspkit::Bsp::open(path).unwrap();
    let ents = bsp.entities().unwrap();
    let v = ents.list[0].get(key).map(|v| v.into_owned());
    v
}

fn is_root() -> bool {
    let d = scratch("safe-uid");
    let f = d.join("f");
    std::fs::write(&f, b"").unwrap();
    let uid = std::fs::metadata(&f).unwrap().uid();
    uid == 0
}

fn mkfifo(p: &Path) {
    let o = Command::new("mkfifo").arg(p).output().unwrap();
    assert!(o.status.success(), "mkfifo: {}", err(&o));
}

/// Item 1: a FIFO target is written through (a reader gets the bytes) and stays a FIFO.
#[test]
fn fifo_target_is_written_through() {
    let d = scratch("safe-fifo");
    let input = d.join("in.bsp");
    let bytes = big_quake_map();
    std::fs::write(&input, &bytes).unwrap();
    let fifo = d.join("out.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    let o = run(&["rewrite", s(&input), "-o", s(&fifo)]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(reader.join().unwrap(), bytes);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
    // `lump extract` writes through the same primitive.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    let o = run(&["lump", "extract", s(&input), "LIGHTING", "-o", s(&fifo)]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(reader.join().unwrap().len(), 100_003);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(temps(&d).is_empty());
}

/// Item 1: a character device (a `/dev/null` made in the temporary directory, so the system's
/// own is never at risk) stays a device; `-o -` writes to standard output.
#[test]
fn device_target_stays_a_device_and_dash_is_stdout() {
    let d = scratch("safe-dev");
    let input = d.join("in.bsp");
    let bytes = big_quake_map();
    std::fs::write(&input, &bytes).unwrap();
    let o = run(&["rewrite", s(&input), "-o", "-"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(o.stdout, bytes, "-o - writes the map to standard output");
    let o = run(&["lump", "extract", s(&input), "ENTITIES", "-o", "-"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(o.stdout.starts_with(b"{\n\"classname\" \"worldspawn\""));
    let null = d.join("null");
    let made = is_root() && Command::new("mknod").args([s(&null), "c", "1", "3"]).output().map(|o| o.status.success()).unwrap_or(false);
    if !made {
        eprintln!("note: character device part skipped: cannot mknod here (needs root)");
    } else {
        let o = run(&["rewrite", s(&input), "-o", s(&null)]);
        assert!(o.status.success(), "{}", err(&o));
        let m = std::fs::symlink_metadata(&null).unwrap();
        assert!(m.file_type().is_char_device(), "the device node was replaced by a regular file");
        assert_eq!(m.rdev(), std::fs::metadata("/dev/null").unwrap().rdev());
    }
    assert!(temps(&d).is_empty());
}

/// Item 1: directories and sockets are refused, and stay what they are.
#[test]
fn directory_and_socket_targets_are_refused() {
    let d = scratch("safe-refuse");
    let input = d.join("in.bsp");
    std::fs::write(&input, big_quake_map()).unwrap();
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let o = run(&["rewrite", s(&input), "-o", s(&sub)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("is a directory, not a regular file"), "{}", err(&o));
    assert!(sub.is_dir());
    let sock = d.join("s.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let o = run(&["ents", "set", s(&input), "--classname", "light", "--key", "a", "--value", "1", "-o", s(&sock)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("is a socket, not a regular file"), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&sock).unwrap().file_type().is_socket());
    assert!(temps(&d).is_empty());
}

/// Item 2: `-o LINK` and `--in-place LINK` write the file the link names; the link stays.
#[test]
fn symlinks_are_followed() {
    let d = scratch("safe-link");
    let real = d.join("real.bsp");
    std::fs::write(&real, big_quake_map()).unwrap();
    let link = d.join("link.bsp");
    std::os::unix::fs::symlink("real.bsp", &link).unwrap();
    let o = run(&["ents", "set", s(&link), "--classname", "worldspawn", "--key", "message", "--value", "inplace", "--in-place"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_eq!(worldspawn_value(&real, "message").as_deref(), Some("inplace"));
    // `-o` onto a link to an existing file.
    let src = d.join("src.bsp");
    std::fs::write(&src, big_quake_map()).unwrap();
    let o = run(&["ents", "set", s(&src), "--classname", "worldspawn", "--key", "message", "--value", "out", "-o", s(&link)]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(worldspawn_value(&real, "message").as_deref(), Some("out"));
    // A dangling link creates the file it names.
    let dangling = d.join("dangling.bsp");
    std::os::unix::fs::symlink("made.bsp", &dangling).unwrap();
    let o = run(&["rewrite", s(&src), "-o", s(&dangling)]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read(d.join("made.bsp")).unwrap(), std::fs::read(&src).unwrap());
    assert!(temps(&d).is_empty());
}

/// Item 3: the mode of the replaced file is kept (0600 stays private); a file the user may not
/// open for writing is refused (only checkable as a non-root user: root may write any file,
/// as with `cp`, and then the 0444 mode is kept); hard links are reported.
#[test]
fn mode_is_kept_and_read_only_refused() {
    let d = scratch("safe-mode");
    let f = d.join("private.bsp");
    std::fs::write(&f, big_quake_map()).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = run(&["ents", "set", s(&f), "--classname", "worldspawn", "--key", "a", "--value", "1", "--in-place"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::metadata(&f).unwrap().mode() & 0o7777, 0o600);
    assert_eq!(worldspawn_value(&f, "a").as_deref(), Some("1"));
    // -o onto an existing 0640 file keeps 0640.
    let out = d.join("out.bsp");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    let o = run(&["rewrite", s(&f), "-o", s(&out)]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::metadata(&out).unwrap().mode() & 0o7777, 0o640);

    let ro = d.join("ro.bsp");
    std::fs::write(&ro, big_quake_map()).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&ro).unwrap();
    if is_root() {
        let o = run(&["ents", "set", s(&ro), "--classname", "worldspawn", "--key", "a", "--value", "2", "--in-place"]);
        assert!(o.status.success(), "{}", err(&o));
        assert_eq!(std::fs::metadata(&ro).unwrap().mode() & 0o7777, 0o444);
        // An unprivileged user (as `cp` would be) is refused, through setpriv when there.
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        let before = std::fs::read(&ro).unwrap();
        match Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", BSP, "ents", "set", s(&ro)])
            .args(["--classname", "worldspawn", "--key", "a", "--value", "3", "--in-place"])
            .output()
        {
            Ok(o) if !err(&o).contains("setpriv:") => {
                assert_eq!(o.status.code(), Some(2), "{}", err(&o));
                assert!(err(&o).contains("ermission denied"), "{}", err(&o));
                assert_eq!(std::fs::read(&ro).unwrap(), before);
            }
            _ => eprintln!("note: read-only refusal not checked: no setpriv"),
        }
    } else {
        let o = run(&["ents", "set", s(&ro), "--classname", "worldspawn", "--key", "a", "--value", "2", "--in-place"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(err(&o).contains("ermission denied"), "{}", err(&o));
        assert_eq!(std::fs::read(&ro).unwrap(), before);
    }

    // A hard link keeps the old contents, and the user is told.
    let a = d.join("a.bsp");
    std::fs::write(&a, big_quake_map()).unwrap();
    let b = d.join("b.bsp");
    std::fs::hard_link(&a, &b).unwrap();
    let o = run(&["ents", "set", s(&a), "--classname", "worldspawn", "--key", "k", "--value", "v", "--in-place"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("1 other hard link(s)"), "{}", err(&o));
    assert_eq!(worldspawn_value(&a, "k").as_deref(), Some("v"));
    assert_eq!(worldspawn_value(&b, "k"), None);
    assert!(temps(&d).is_empty());
}

/// Item 4: concurrent in-place edits of one file: each either lands or is refused as
/// `changed`; none is silently lost.
#[test]
fn concurrent_in_place_edits_lose_nothing() {
    let d = scratch("safe-race");
    let f = d.join("m.bsp");
    std::fs::write(&f, big_quake_map()).unwrap();
    let n = 6;
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(BSP)
                .args(["ents", "set", s(&f), "--classname", "worldspawn", "--key", &format!("k{i}"), "--value", "x", "--in-place"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut landed = Vec::new();
    for (i, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        if o.status.success() {
            landed.push(i);
        } else {
            assert!(err(&o).contains("changed since it was read"), "child {i}: {}", err(&o));
        }
    }
    assert!(!landed.is_empty());
    for i in &landed {
        assert_eq!(worldspawn_value(&f, &format!("k{i}")).as_deref(), Some("x"), "edit {i} reported success but was lost");
    }
    assert!(temps(&d).is_empty());
}

/// Item 5: errors name the user's path; no temporary file after an error, after SIGTERM
/// mid-write, and a stale one of a dead process is removed by the next write.
#[test]
fn errors_name_the_path_and_temps_are_cleaned() {
    let d = scratch("safe-clean");
    let input = d.join("in.bsp");
    std::fs::write(&input, big_quake_map()).unwrap();
    let target = d.join("nodir").join("out.bsp");
    let o = run(&["rewrite", s(&input), "-o", s(&target)]);
    assert_eq!(o.status.code(), Some(2));
    let e = err(&o);
    assert!(e.contains(s(&target)) && !e.contains("bspkit-tmp"), "{e}");
    assert!(e.contains("No such file or directory"), "{e}");

    // SIGTERM while the temporary file exists (the test hook pauses there).
    let out = d.join("out.bsp");
    std::fs::write(&out, b"precious").unwrap();
    let flag = d.join("paused");
    let mut child = Command::new(BSP)
        .args(["rewrite", s(&input), "-o", s(&out)])
        .env(bspkit::write::atomic::PAUSE_HOOK_ENV, &flag)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !flag.exists() {
        assert!(start.elapsed().as_secs() < 60, "the child never reached the rename");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(temps(&d).len(), 1, "the hook pauses with the temporary file written");
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(temps(&d), Vec::<String>::new(), "temporary file left after SIGTERM");
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");

    // A crash (abort) leaves one; the next write to that target removes it.
    let o = Command::new(BSP).args(["rewrite", s(&input), "-o", s(&out)]).env(bspkit::write::ABORT_HOOK_ENV, "1").output().unwrap();
    assert!(!o.status.success());
    assert_eq!(temps(&d).len(), 1);
    let o = run(&["rewrite", s(&input), "-o", s(&out)]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(temps(&d), Vec::<String>::new(), "stale temporary file of a dead process kept");
}

/// Item 6: a refused write shows the first 10 new problems and the count; `--json` lists all.
#[test]
fn refused_write_lists_first_ten_and_json_all() {
    let d = scratch("safe-problems");
    let input = d.join("in.bsp");
    std::fs::write(&input, bspkit::build::sample_quake1()).unwrap();
    let plane = d.join("plane.bin");
    std::fs::write(&plane, [0u8; 20]).unwrap();
    let out = d.join("out.bsp");
    let o = run(&["lump", "replace", s(&input), "PLANES", s(&plane), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    let e = err(&o);
    let o = run(&["lump", "replace", s(&input), "PLANES", s(&plane), "-o", s(&out), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let all = v["new_problems"].as_array().unwrap();
    assert!(all.len() > 10, "the fixture must make more than 10 problems: {}", all.len());
    assert_eq!(v["error"]["kind"], "new_problems");
    assert!(v["written"].is_null());
    assert!(e.contains(&format!("has new problems ({}), first 10: ", all.len())), "{e}");
    assert!(e.contains(&format!("… {} more", all.len() - 10)), "{e}");
    // Exactly the first ten are in the message.
    assert!(e.contains(all[9].as_str().unwrap()));
    let shown = e.split(" (… ").next().unwrap().matches("; ").count() + 1;
    assert_eq!(shown, 10, "{e}");
    assert!(!out.exists());
    // Success with --json says where the map went.
    let o = run(&["rewrite", s(&input), "-o", s(&out), "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["written"], s(&out));
    assert!(temps(&d).is_empty());
}

/// A Source map with a pakfile holding `entries`.
fn source_map_with_pak(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use bspkit::lumps::pakfile::{PakBuilder, PakCompression};
    let mut b = PakBuilder::new();
    for (n, d) in entries {
        b.insert(n, d.to_vec()).unwrap();
    }
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    BspBuilder::new(&bspkit::branches::source::SOURCE).lump(0, ents).lump(40, b.build(PakCompression::Stored).unwrap()).build()
}

/// Run `bsp` with a deadline: a command that hangs (reading a FIFO) fails the test instead.
fn run_deadline(args: &[&str]) -> Output {
    let mut child = Command::new(BSP).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed().as_secs() > 30 {
            let _ = child.kill();
            panic!("bsp {args:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Item 8: a pakfile whose central records share one local entry is refused by every pak
/// command, before anything is extracted.
#[test]
fn pak_with_shared_local_entries_is_refused() {
    let d = scratch("safe-pakbomb");
    let mut map = source_map_with_pak(&[("a.txt", b"aaaa"), ("b.txt", b"bbbb")]);
    let cd = map.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let second = cd + 1 + map[cd + 1..].windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    // Local offsets are relative to the lump; the first entry is at 0.
    map[second + 42..second + 46].copy_from_slice(&0u32.to_le_bytes());
    let input = d.join("m.bsp");
    std::fs::write(&input, &map).unwrap();
    let out = d.join("x");
    for args in [
        vec!["pak", "extract", s(&input), "--out", s(&out)],
        vec!["pak", "cat", s(&input), "a.txt"],
        vec!["pak", "repack", s(&input), "-o", "-"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(err(&o).contains("share the local entry"), "{}", err(&o));
    }
    assert!(!out.exists());
}

/// Item 10: FIFOs and devices as inputs (a FIFO named `x.bsp`, a FIFO `.lmp` beside a map, a
/// `.lmp` linked to /dev/zero) are refused with a message; nothing hangs; `scan` goes on.
#[test]
fn special_input_files_are_refused_without_hanging() {
    let d = scratch("safe-special");
    let fifo_map = d.join("x.bsp");
    mkfifo(&fifo_map);
    let o = run_deadline(&["info", s(&fifo_map)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("is a FIFO, not a regular file"), "{}", err(&o));
    let good = d.join("good.bsp");
    std::fs::write(&good, source_map_with_pak(&[])).unwrap();
    let o = run_deadline(&["scan", "--json", s(&d)]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{}", String::from_utf8_lossy(&o.stdout));
    let fifo = lines.iter().find(|v| v["path"].as_str().unwrap().ends_with("x.bsp")).unwrap();
    assert_eq!(fifo["error"]["kind"], "not_regular_file");
    let ok = lines.iter().find(|v| v["path"].as_str().unwrap().ends_with("good.bsp")).unwrap();
    assert!(ok["error"].is_null());
    std::fs::remove_file(&fifo_map).unwrap();

    // A FIFO `.lmp` and a `.lmp` linked to /dev/zero beside a map.
    let lmp = d.join("good_l_0.lmp");
    mkfifo(&lmp);
    let o = run_deadline(&["info", s(&good)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("good_l_0.lmp: is a FIFO, not a regular file"), "{}", err(&o));
    let o = run_deadline(&["lmp", s(&good)]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("is a FIFO"), "{}", String::from_utf8_lossy(&o.stdout));
    std::fs::remove_file(&lmp).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &lmp).unwrap();
    let o = run_deadline(&["info", s(&good)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("is a character device"), "{}", err(&o));
    assert!(run_deadline(&["info", "--no-external", s(&good)]).status.success());
    // Inputs given on the command line too.
    let o = run_deadline(&["lump", "replace", s(&good), "0", "/dev/zero", "-o", s(&d.join("o.bsp"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("is a character device"), "{}", err(&o));
}

/// Item 12: `pak extract --out DIR` never writes through a symbolic link inside DIR, nor over
/// a special file; such entries are skipped with a warning.
#[test]
fn pak_extract_never_writes_through_links() {
    let d = scratch("safe-extract");
    let input = d.join("m.bsp");
    std::fs::write(&input, source_map_with_pak(&[("link/pwn.txt", b"pwn"), ("f.txt", b"new"), ("ok/a.txt", b"fine")])).unwrap();
    let out = d.join("out");
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("link")).unwrap();
    std::fs::write(elsewhere.join("target.txt"), b"keep").unwrap();
    std::os::unix::fs::symlink(elsewhere.join("target.txt"), out.join("f.txt")).unwrap();
    let o = run(&["pak", "extract", s(&input), "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let e = err(&o);
    assert!(e.contains("skipped pakfile entry \"link/pwn.txt\""), "{e}");
    assert!(e.contains("skipped pakfile entry \"f.txt\""), "{e}");
    assert!(!elsewhere.join("pwn.txt").exists(), "written through the directory link");
    assert_eq!(std::fs::read(elsewhere.join("target.txt")).unwrap(), b"keep", "written through the file link");
    assert_eq!(std::fs::read(out.join("ok/a.txt")).unwrap(), b"fine");
}

/// Item 14: a Respawn map whose entity lump comes from a `.bsp_lump` file: an in-place entity
/// edit writes that file (the one the game reads) as part of the map's set, and leaves no
/// temporary file; with `--no-external` the `.bsp` alone is edited and a warning names the file
/// that overrides it.
#[test]
fn respawn_external_entity_lump_edit_writes_the_bsp_lump() {
    use bspkit::branches::respawn::{LUMP_ENTITIES, TITANFALL2};
    let d = scratch("safe-respawn");
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let map = BspBuilder::new(&TITANFALL2).version(37).lump(LUMP_ENTITIES, ents.clone()).build();
    let path = d.join("mp_x.bsp");
    let external = d.join(format!("mp_x.bsp.{LUMP_ENTITIES:04x}.bsp_lump"));
    std::fs::write(&path, &map).unwrap();
    std::fs::write(&external, &ents).unwrap();
    let o = run(&["ents", "set", s(&path), "--classname", "worldspawn", "--key", "k", "--value", "v", "--in-place"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let written = std::fs::read(&external).unwrap();
    assert!(written.windows(7).any(|w| w == b"\"k\" \"v\""), "{}", String::from_utf8_lossy(&written));
    let reopened = bspkit::Bsp::open(&path).unwrap();
    assert_eq!(reopened.entities().unwrap().list[0].get("k").as_deref(), Some("v"));
    assert!(temps(&d).is_empty());

    // --no-external: the .bsp alone, with a warning naming the file the game reads instead.
    let before = std::fs::read(&external).unwrap();
    let o = run(&["ents", "set", s(&path), "--classname", "worldspawn", "--key", "k", "--value", "w", "--in-place", "--no-external"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains(".bsp_lump") && err(&o).contains("overridden"), "{}", err(&o));
    assert_eq!(std::fs::read(&external).unwrap(), before);
    assert!(temps(&d).is_empty());
}

/// Item 13: `ents patch` refuses empty match blocks (they would delete every entity, worldspawn
/// too) and text after a pair; nothing is written.
#[test]
fn ents_patch_refuses_empty_blocks_and_trailing_text() {
    let d = scratch("safe-patch");
    let input = d.join("in.bsp");
    let bytes = big_quake_map();
    std::fs::write(&input, &bytes).unwrap();
    let cfg = d.join("p.cfg");
    for text in [
        "filter:\n{\n}\n",
        "{ }\n",
        "filter:{}\n",
        "modify:\n{\nmatch:\n{\n}\ninsert:\n{\n\"a\" \"b\"\n}\n}\n",
        "filter:\n{\n\"classname\" \"light\"x\"\n}\n",
    ] {
        std::fs::write(&cfg, text).unwrap();
        let o = run(&["ents", "patch", s(&input), s(&cfg), "--in-place"]);
        assert_eq!(o.status.code(), Some(2), "{text:?}: {}", err(&o));
        assert!(err(&o).contains("refused") || err(&o).contains("after the key/value pair"), "{text:?}: {}", err(&o));
        assert_eq!(std::fs::read(&input).unwrap(), bytes, "{text:?}");
    }
    // A real filter still works.
    std::fs::write(&cfg, "filter:\n{\n\"classname\" \"light\"\n}\n").unwrap();
    let o = run(&["ents", "patch", s(&input), s(&cfg), "--in-place"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(bspkit::Bsp::open(&input).unwrap().entities().unwrap().list.len(), 1);
}

/// Issue 23, "Output folders": `textures --out`, `lightmaps --out` and `scan --thumbnails` keep
/// `pak extract`'s rule — a link planted inside the output folder is refused, never written
/// through, and the file it points at keeps its contents.
#[test]
fn folder_outputs_never_write_through_links() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_quake1.bsp");
    let d = scratch("safe-folders");
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let victim = elsewhere.join("victim.png");
    std::fs::write(&victim, b"keep").unwrap();
    let plant = |dir: &Path, name: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
    };

    // The same commands write normally into a clean folder (so the refusals below are the rule,
    // not a failure of the command itself).
    let clean = d.join("clean");
    let o = run(&["textures", s(&sample), "--out", s(&clean.join("tx"))]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(clean.join("tx/bspkit_grey.png").is_file());
    let o = run(&["lightmaps", s(&sample), "--out", s(&clean.join("lm"))]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(clean.join("lm/lightmap_p0_s0_l0.png").is_file());

    let tx = d.join("tx");
    plant(&tx, "bspkit_grey.png");
    let o = run(&["textures", s(&sample), "--out", s(&tx)]);
    assert!(!o.status.success(), "textures wrote through a link");
    assert!(err(&o).contains("symbolic link in the way"), "{}", err(&o));

    let lm = d.join("lm");
    plant(&lm, "lightmap_p0_s0_l0.png");
    let o = run(&["lightmaps", s(&sample), "--out", s(&lm)]);
    assert!(!o.status.success(), "lightmaps wrote through a link");
    assert!(err(&o).contains("symbolic link in the way"), "{}", err(&o));

    // A directory link inside the folder: nothing lands in the directory it names.
    let maps = d.join("maps");
    std::fs::create_dir_all(&maps).unwrap();
    std::fs::copy(&sample, maps.join("sample_quake1.bsp")).unwrap();
    let thumbs = d.join("thumbs");
    plant(&thumbs, "sample_quake1.png");
    let o = run(&["scan", s(&maps), "--thumbnails", s(&thumbs)]);
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), err(&o));
    assert!(text.contains("symbolic link in the way"), "{text}");

    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 1);
}

/// Session 39 audit of issue 26: `decompile` never writes its source or its report over the map
/// it reads ("commands that write take `-o OUT` or `--in-place`; they never overwrite the input
/// otherwise"), also through a link to it; the same command writes normally elsewhere.
#[test]
fn decompile_never_overwrites_its_input() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_quake1.bsp");
    let d = scratch("safe-decompile-input");
    let map = d.join("in.bsp");
    std::fs::copy(&sample, &map).unwrap();
    let original = std::fs::read(&map).unwrap();
    let link = d.join("link.bsp");
    std::os::unix::fs::symlink(&map, &link).unwrap();
    for args in [
        vec!["decompile", s(&map), "-o", s(&map)],
        vec!["decompile", s(&map), "-o", s(&link)],
        vec!["decompile", s(&map), "-o", s(&d.join("ok.map")), "--report", s(&map)],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(err(&o).contains("is the map being decompiled"), "{}", err(&o));
        assert_eq!(std::fs::read(&map).unwrap(), original, "{args:?}");
        assert!(temps(&d).is_empty());
    }
    let o = run(&["decompile", s(&map), "-o", s(&d.join("ok.map")), "--report", s(&d.join("ok.json"))]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::read_to_string(d.join("ok.map")).unwrap().contains("worldspawn"));
}
