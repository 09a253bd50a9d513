//! Lump commands: `bsp lump extract|replace|apply` and `bsp lmp diff`.

use std::path::PathBuf;
use std::process::ExitCode;

use bspkit::edit::{resolve_lump, Editor};
use bspkit::lmp::{LmpFile, LmpHeader, LMP_HEADER_LEN};
use bspkit::{Bsp, Family};
use clap::{Args, Subcommand};

use crate::cmd_edit::{finish, open_for_edit, OutArgs};
use crate::{Fatal, OpenArgs};

#[derive(Subcommand, Debug)]
pub enum LumpCmd {
    /// Write one lump's bytes to a file (decompressed unless --stored), or as a Valve .lmp
    #[command(
        after_help = "Examples:\n  bsp lump extract map.bsp ENTITIES -o ents.bin\n  bsp lump extract map.bsp 0 --lmp -o map_l_0.lmp\n  bsp lump extract map.bsp 40 -o pak.zip"
    )]
    Extract {
        file: PathBuf,
        /// Lump index or name
        lump: String,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Write a Valve .lmp (20-byte header: offset, index, version, length, map revision)
        #[arg(long)]
        lmp: bool,
        /// The bytes as stored (still LZMA-compressed if the lump is)
        #[arg(long)]
        stored: bool,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Replace one lump with a file's bytes (compressed again if the lump was compressed, unless --stored)
    #[command(
        after_help = "Examples:\n  bsp lump replace map.bsp LIGHTING light.bin -o out.bsp\n  bsp lump replace map.bsp 40 pak.zip --in-place"
    )]
    Replace {
        file: PathBuf,
        lump: String,
        data: PathBuf,
        /// Store the bytes exactly as given
        #[arg(long)]
        stored: bool,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Bake a Valve .lmp file (its header names the lump) into the map
    #[command(after_help = "Examples:\n  bsp lump apply map.bsp map_l_0.lmp -o out.bsp")]
    Apply {
        file: PathBuf,
        lmp: PathBuf,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
}

/// `bsp lmp FILE` lists the `.lmp` files beside a map; `bsp lmp diff` writes a patch set.
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  bsp lmp maps/mymap.bsp               the .lmp files beside the map, with their headers\n  bsp lmp --json maps/mymap.bsp\n  bsp lmp diff old.bsp new.bsp -o patch/"
)]
pub struct LmpTop {
    #[command(subcommand)]
    pub sub: Option<LmpCmd>,
    /// The map whose `.lmp` siblings to list (when no subcommand is given)
    pub file: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

#[derive(Subcommand, Debug)]
pub enum LmpCmd {
    /// The `.lmp` files beside a map, with their headers (only `_l_` files are applied on open)
    List(crate::cmd_lmp::LmpArgs),
    /// Write the .lmp files that patch map A into map B (one per differing lump)
    #[command(after_help = "Examples:\n  bsp lmp diff old.bsp new.bsp -o patch/\n  ls patch/   # old_l_0.lmp …")]
    Diff {
        a: PathBuf,
        b: PathBuf,
        #[arg(short = 'o', long = "output", value_name = "DIR")]
        output: PathBuf,
        #[command(flatten)]
        open: OpenArgs,
    },
}

/// The refusal of a `.lmp` operation on a map of another family, naming the file.
fn not_source(path: &std::path::Path, bsp: &Bsp) -> Fatal {
    Fatal(format!("{}: .lmp files are a Source feature ({} map)", path.display(), bsp.family().as_str()))
}

fn read_input(p: &std::path::Path) -> Result<Vec<u8>, Fatal> {
    crate::read_input(p, crate::MAX_INPUT)
}

fn write_file(p: &std::path::Path, bytes: &[u8]) -> Result<(), Fatal> {
    crate::write_output(p, bytes)
}

fn lmp_bytes(index: usize, version: u32, revision: u32, data: &[u8]) -> Vec<u8> {
    let h = LmpHeader { offset: LMP_HEADER_LEN as u32, lump_index: index as u32, version, length: data.len() as u32, revision };
    let mut v = h.to_bytes().to_vec();
    v.extend_from_slice(data);
    v
}

pub fn lump(cmd: LumpCmd) -> Result<ExitCode, Fatal> {
    match cmd {
        LumpCmd::Extract { file, lump, output, lmp, stored, open } => {
            let bsp = open_for_edit(&file, &open)?;
            let index = resolve_lump(&bsp, &lump)?;
            let ed = Editor::new(&bsp)?;
            let data = if stored { ed.raw_lump(index)?.into_owned() } else { ed.lump(index)?.into_owned() };
            let bytes = if lmp {
                if bsp.family() != Family::Source {
                    return Err(not_source(&file, &bsp));
                }
                let version = bsp.entry(index).and_then(|e| e.version).unwrap_or(0);
                lmp_bytes(index, version, bsp.header().revision.unwrap_or(0), &data)
            } else {
                data
            };
            write_file(&output, &bytes)?;
            eprintln!("lump {index}: {} bytes to {}", bytes.len(), output.display());
            Ok(ExitCode::SUCCESS)
        }
        LumpCmd::Replace { file, lump, data, stored, out, open } => {
            let bytes = read_input(&data)?;
            let bsp = open_for_edit(&file, &open)?;
            let index = resolve_lump(&bsp, &lump)?;
            let mut ed = Editor::new(&bsp)?;
            if stored {
                ed.set_raw_lump(index, bytes, None, None)?;
            } else {
                ed.set_lump(index, bytes)?;
            }
            finish(&mut ed, &out, &file)?;
            Ok(ExitCode::SUCCESS)
        }
        LumpCmd::Apply { file, lmp, out, open } => {
            let raw = read_input(&lmp)?;
            let parsed = LmpFile::parse(&raw).map_err(|e| e.in_file(&lmp))?;
            let bsp = open_for_edit(&file, &open)?;
            if bsp.family() != Family::Source {
                return Err(not_source(&file, &bsp));
            }
            let rev = bsp.header().revision.unwrap_or(0);
            if parsed.header.revision != rev {
                eprintln!("note: {} has map revision {}, the map has {rev}", lmp.display(), parsed.header.revision);
            }
            let index = parsed.header.lump_index as usize;
            let data = parsed.data.to_vec();
            // LZMA data keeps its fourCC rule (source.md §6: the uncompressed size).
            let fourcc = if data.starts_with(b"LZMA") && data.len() >= 17 {
                bspkit::compression::parse_header(&data).map(|h| h.actual_size).ok()
            } else {
                Some(0)
            };
            let mut ed = Editor::new(&bsp)?;
            ed.set_raw_lump(index, data, Some(parsed.header.version), fourcc)?;
            finish(&mut ed, &out, &file)?;
            eprintln!("applied lump {index} from {}", lmp.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub fn lmp(top: LmpTop) -> Result<ExitCode, Fatal> {
    let cmd = match top.sub {
        Some(cmd) => cmd,
        None => {
            let file = top.file.ok_or_else(|| Fatal("give a map file or a subcommand (see `bsp lmp --help`)".into()))?;
            LmpCmd::List(crate::cmd_lmp::LmpArgs { file, json: top.json, open: top.open })
        }
    };
    match cmd {
        LmpCmd::List(args) => {
            crate::cmd_lmp::run(args, &mut std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        LmpCmd::Diff { a, b, output, open } => {
            let ba: Bsp = open_for_edit(&a, &open)?;
            let bb: Bsp = open_for_edit(&b, &open)?;
            for (path, map) in [(&a, &ba), (&b, &bb)] {
                if map.family() != Family::Source {
                    return Err(not_source(path, map));
                }
            }
            let (ea, eb) = (Editor::new(&ba)?, Editor::new(&bb)?);
            std::fs::create_dir_all(&output).map_err(|e| Fatal(format!("{}: {e}", output.display())))?;
            let stem = a.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "map".into());
            let rev = ba.header().revision.unwrap_or(0);
            let mut n = 0;
            for e in bb.lumps() {
                let i = e.index;
                let va = ba.entry(i).and_then(|x| x.version);
                let (da, db) = (ea.lump(i)?, eb.lump(i)?);
                if da == db && va == e.version {
                    continue;
                }
                // Named by lump index (bsp_tool_notes.md §4.1); the header also carries it.
                let path = output.join(format!("{stem}_l_{i}.lmp"));
                write_file(&path, &lmp_bytes(i, e.version.unwrap_or(0), rev, &db))?;
                println!("{}", path.display());
                n += 1;
            }
            eprintln!("{n} lump(s) differ");
            Ok(ExitCode::SUCCESS)
        }
    }
}
