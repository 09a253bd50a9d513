//! Issue 23, "Special files given as options" and "the plain `textures` listing prints raw
//! control characters", through the `bsp` binary (the library side is `bspkit`'s
//! `budgets::special_files_given_as_options_are_refused`, the escaping function's own test is
//! `cmd_textures::printable_tests`).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use bspkit::build::BspBuilder;
use bspkit::lumps::miptex::{encode, encode_lump};

use crate::cli::{s, scratch, BSP};

/// Run `bsp ARGS` and wait at most 60 s (a hang is what is tested for): its output, or a panic
/// naming the command after killing it.
fn within_a_minute(args: &[&str]) -> Output {
    let mut child = Command::new(BSP).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() > 60 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bsp {args:?} still ran after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

/// `--palette FIFO`, `--palette` a link to /dev/zero, `--wad FIFO` and `--wad` a folder holding
/// a FIFO `*.wad`, given to `textures`, `export` and `render`: before, the FIFOs hung each
/// command and /dev/zero was read without bound (6.7 GB in 10 s). Now each is a warning naming
/// the file and what it is, and the command finishes (well inside the minute allowed).
#[test]
fn special_files_named_by_options_never_hang() {
    let d = scratch("option-files");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_quake1.bsp");
    let (fifo_pal, zero, fifo_wad, wads) = (d.join("palette.lmp"), d.join("zero.lmp"), d.join("named.wad"), d.join("wads"));
    mkfifo(&fifo_pal);
    mkfifo(&fifo_wad);
    std::fs::create_dir_all(&wads).unwrap();
    mkfifo(&wads.join("inside.wad"));
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["--palette", s(&fifo_pal)], "a FIFO"),
        (&["--palette", s(&zero)], "a character device"),
        (&["--wad", s(&fifo_wad)], "a FIFO"),
        (&["--wad", s(&wads)], "a FIFO"),
    ];
    for cmd in ["textures", "export", "render"] {
        for (opts, kind) in cases {
            let mut args = vec![cmd, s(&sample)];
            let out = d.join(format!("out-{cmd}.{}", if cmd == "render" { "png" } else { "glb" }));
            if cmd != "textures" {
                args.extend(["-o", s(&out)]);
            }
            args.extend_from_slice(opts);
            let start = std::time::Instant::now();
            let o = within_a_minute(&args);
            let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
            assert!(text.contains(kind), "bsp {args:?}: {text}");
            assert!(o.status.code().is_some(), "bsp {args:?} was killed by a signal: {text}");
            eprintln!("bsp {cmd} {opts:?}: exit {:?} after {:?}", o.status.code(), start.elapsed());
        }
    }
}

/// A GoldSrc map whose texture names hold terminal escapes (ESC `[2J` clears the screen; an OSC
/// sequence ended by BEL sets the window title): the plain `bsp textures` listing and its
/// warnings show them as `\u{1b}` escapes, never the raw bytes; `--json` keeps the names as
/// stored (JSON escapes them itself).
#[test]
fn textures_listing_escapes_control_characters() {
    let d = scratch("textures-esc");
    let pal: Vec<[u8; 3]> = (0..256).map(|i| [i as u8, 1, 2]).collect();
    let px: Vec<u8> = (0..64).collect();
    // The second texture is a header only (its texels in a WAD that is not there): a warning.
    let lump = encode_lump(&[
        Some(encode("a\u{1b}[2Jb", 8, 8, &px, Some(&pal))),
        Some(encode("c\u{1b}]0;x\u{7}", 8, 8, &px, None)[..40].to_vec()),
    ]);
    let mut lump = lump;
    let second = i32::from_le_bytes(lump[8..12].try_into().unwrap()) as usize;
    lump[second + 24..second + 40].fill(0);
    let map = BspBuilder::new(&bspkit::branches::goldsrc::GOLDSRC).lump(bspkit::branches::quake1::LUMP_TEXTURES, lump).build();
    let path = d.join("esc.bsp");
    std::fs::write(&path, map).unwrap();
    let o = within_a_minute(&["textures", s(&path)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    for (what, text) in [("listing", &stdout), ("warnings", &stderr)] {
        let raw: Vec<char> = text.chars().filter(|c| c.is_control() && *c != '\n').collect();
        assert!(raw.is_empty(), "{what}: raw control characters {raw:?} in {text:?}");
    }
    assert!(stdout.contains("a\\u{1b}[2Jb"), "{stdout}");
    assert!(stderr.contains("c\\u{1b}]0;x\\u{7}"), "{stderr}");
    let o = within_a_minute(&["textures", s(&path), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["textures"][0]["name"], "a\u{1b}[2Jb");
}
