//! Helpers shared by the CLI tests that run the `bsp` binary on files in temporary directories.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use bspkit::build::BspBuilder;

pub const BSP: &str = env!("CARGO_BIN_EXE_bsp");

pub use crate::common::{scratch, Scratch};

/// An 8-bit RGB PNG's width, height and pixels (the pictures and lightmap pages `bsp` writes).
pub fn png_rgb(path: &Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Run `bsp ARGS…` and wait for it.
pub fn run(args: &[&str]) -> Output {
    Command::new(BSP).args(args).output().unwrap()
}

/// Run `bsp ARGS…` with the output-set writer told to stop (as a crash would) after step `k`
/// of its renames ([`bspkit::write::set::SET_ABORT_HOOK_ENV`]), and wait for it.
pub fn run_crashing_after(k: usize, args: &[&str]) -> Output {
    Command::new(BSP).args(args).env(bspkit::write::set::SET_ABORT_HOOK_ENV, k.to_string()).output().unwrap()
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A finished command's standard error.
pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A Quake map of about 200 KB with two entities (worldspawn and a light): big lumps, so size
/// limits and interruptions bite mid-write.
pub fn big_quake_map() -> Vec<u8> {
    use bspkit::branches::quake1::*;
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"light\" \"200\"\n}\n\0".to_vec();
    BspBuilder::new(&QUAKE1)
        .lump(LUMP_ENTITIES, ents)
        .lump(LUMP_PLANES, vec![0u8; 20 * 5000])
        .lump(LUMP_LIGHTING, (0..100_003u32).map(|i| i as u8).collect::<Vec<u8>>())
        .lump(LUMP_MODELS, vec![0u8; 64])
        .build()
}
