//! `bsp convert`: a thin layer over `bspkit::convert`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use bspkit::convert::{ConvertOptions, Lzma};
use bspkit::{Endian, ErrorKind};
use clap::{Args, ValueEnum};

use crate::{Fatal, OpenArgs};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EndianArg {
    /// The console form (Source `PSBV`: Xbox 360, PS3; Titanfall's is the branch `titanfall_x360`)
    Big,
    /// The PC form (Source `VBSP`, Titanfall `rBSP`)
    Little,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LzmaArg {
    /// PC targets: every lump plain; console targets: compressed where the source was
    Auto,
    /// Compressed where the source was
    Keep,
    /// Every lump but the game lump and pakfile compressed (game lump children one by one)
    On,
    /// Every lump plain
    Off,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    pub file: PathBuf,
    /// Target branch, an id of `bsp formats`
    #[arg(long, value_name = "BRANCH")]
    pub to: String,
    /// Target byte order: `big` is the console form, `little` the PC form (default: the source's)
    #[arg(long, value_enum)]
    pub endian: Option<EndianArg>,
    /// LZMA lump compression of the output (Source)
    #[arg(long, value_enum, default_value = "auto")]
    pub lzma: LzmaArg,
    /// Source: the static prop game lump version to write (4-11; default: kept where the target reads it, else the target's newest; CS:GO always 11)
    #[arg(long, value_name = "N")]
    pub prop_version: Option<u16>,
    /// Write the converted map here (`-`: standard output)
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Also write the conversion report (JSON) to this file
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// Refuse a conversion that loses anything (exit 1; nothing is written)
    #[arg(long)]
    pub strict: bool,
    /// Print the report as JSON on stdout
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

pub fn run(a: ConvertArgs, out: &mut dyn Write) -> Result<ExitCode, Fatal> {
    let to = bspkit::branches::by_id(&a.to).ok_or_else(|| Fatal(bspkit::Error::new(ErrorKind::UnknownBranch(a.to.clone())).to_string()))?;
    let bsp = crate::cmd_edit::open_for_edit(&a.file, &a.open)?;
    let opts = ConvertOptions {
        to,
        endian: a.endian.map(|e| match e {
            EndianArg::Big => Endian::Big,
            EndianArg::Little => Endian::Little,
        }),
        lzma: match a.lzma {
            LzmaArg::Auto => Lzma::Auto,
            LzmaArg::Keep => Lzma::Keep,
            LzmaArg::On => Lzma::On,
            LzmaArg::Off => Lzma::Off,
        },
        static_props: a.prop_version,
    };
    if a.output.as_os_str() != "-" && std::fs::canonicalize(&a.output).ok() == std::fs::canonicalize(&a.file).ok() && a.output.exists() {
        return Err(Fatal(format!("{} is the input file; convert to another name", a.output.display())));
    }
    let c = match bspkit::convert::prepare(&bsp, &opts, a.strict) {
        Ok(c) => c,
        Err(e) if matches!(e.kind, ErrorKind::Lossy(_)) => {
            if let ErrorKind::Lossy(list) = &e.kind {
                for l in list {
                    eprintln!("loss: {l}");
                }
            }
            eprintln!("{}: --strict: the conversion would lose data ({} item(s)); nothing written", a.file.display(), lossy_len(&e));
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(e.in_file(&a.file).into()),
    };
    if bsp.family() == bspkit::Family::Respawn && a.output.as_os_str() != "-" {
        // A Respawn map's `.ent` partitions go beside the output.
        bspkit::convert::write_prepared(&bsp, &c, opts.to.id, &a.output).map_err(|e| e.in_file(&a.output))?;
        drop(bsp);
    } else {
        drop(bsp);
        crate::write_output(&a.output, &c.bytes)?;
    }
    let json = serde_json::to_string_pretty(&c.report)? + "\n";
    if let Some(r) = &a.report {
        crate::write_output(r, json.as_bytes())?;
    }
    if a.json {
        out.write_all(json.as_bytes())?;
    }
    for l in &c.report.losses {
        eprintln!("loss: {l}");
    }
    let r = &c.report;
    eprintln!(
        "converted {} ({}, {}-endian) to {} ({}-endian): {} lump(s) converted, {} loss(es); wrote {}",
        a.file.display(),
        r.from.branch,
        r.from.endian,
        r.to.branch,
        r.to.endian,
        r.lumps.iter().filter(|l| matches!(l.action, "swapped" | "rebuilt" | "converted")).count(),
        r.losses.len(),
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn lossy_len(e: &bspkit::Error) -> usize {
    match &e.kind {
        ErrorKind::Lossy(l) => l.len(),
        _ => 0,
    }
}
