//! Quake 1 / GoldSrc subcommands: `bsp miptex` (the texture lump) and `bsp bspx` (the BSPX
//! extension lump directory).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::{open, Fatal, OpenArgs};

#[derive(Args)]
#[command(after_help = "Examples:
  bsp miptex e1m1.bsp                 index, name, size, embedded or from a WAD
  bsp miptex --json crossfire.bsp     the same as JSON (GoldSrc rows add the palette size)")]
pub struct MiptexArgs {
    file: PathBuf,
    /// Machine-readable output: an array of {index, offset, name, width, height, embedded, palette, error}
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    open: OpenArgs,
}

#[derive(Args)]
#[command(after_help = "Examples:
  bsp bspx e1m1.bsp                   name, offset and length of each BSPX lump
  bsp bspx --json e1m1.bsp")]
pub struct BspxArgs {
    file: PathBuf,
    /// Machine-readable output: {offset, lumps: [{name, offset, length}]} or null
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    open: OpenArgs,
}

/// `bsp miptex`: the texture lump of a Quake 1 / GoldSrc map.
pub fn miptex(args: MiptexArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let Some(lump) = bspkit::lumps::miptex::of(&bsp)? else {
        return Err(Fatal(format!("{}: {} maps have no miptex lump", args.file.display(), bsp.branch().title)));
    };
    let rows = lump.rows();
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &rows)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for r in &rows {
        match (&r.name, &r.error) {
            (_, Some(e)) => writeln!(out, "{:>4}  error: {e}", r.index)?,
            (None, None) => writeln!(out, "{:>4}  (missing)", r.index)?,
            (Some(name), None) => {
                let size = format!("{}x{}", r.width.unwrap_or(0), r.height.unwrap_or(0));
                let source = if r.embedded { "embedded" } else { "wad" };
                let pal = r.palette.map(|n| format!(" palette {n}")).unwrap_or_default();
                writeln!(out, "{:>4}  {name:<16} {size:>9}  {source}{pal}", r.index)?;
            }
        }
    }
    eprintln!("{}: {} texture(s)", args.file.display(), rows.len());
    Ok(ExitCode::SUCCESS)
}

/// `bsp bspx`: the BSPX directory after the standard lumps, if the map has one.
pub fn bspx(args: BspxArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let x = bspkit::lumps::bspx::of(&bsp)?;
    if args.json {
        let v = x.map(|x| {
            let lumps: Vec<_> =
                x.entries.iter().map(|e| serde_json::json!({"name": e.name(), "offset": e.offset, "length": e.length})).collect();
            serde_json::json!({"offset": x.offset, "lumps": lumps})
        });
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    match x {
        Some(x) => {
            for e in &x.entries {
                writeln!(out, "{:<24} {:>10} {:>10}", e.name(), e.offset, e.length)?;
            }
            eprintln!("{}: BSPX at {} with {} lump(s)", args.file.display(), x.offset, x.entries.len());
        }
        None => eprintln!("{}: no BSPX lumps", args.file.display()),
    }
    Ok(ExitCode::SUCCESS)
}
