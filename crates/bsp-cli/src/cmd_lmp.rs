//! `bsp lmp`: the Valve external lump files (`<map>_l_<n>.lmp`, and the `_h_`/`_s_` variants)
//! found beside a map, with their headers. Only `_l_` files replace lumps when a map is opened.

use std::io::Write;
use std::path::PathBuf;

use bspkit::lmp::{list_siblings, LmpFile};
use bspkit::OpenOptions;
use clap::Args;

use crate::{Fatal, OpenArgs};

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  bsp lmp list maps/mymap.bsp\n  bsp lmp list --json maps/mymap.bsp")]
pub struct LmpArgs {
    pub file: PathBuf,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

pub fn run(args: LmpArgs, out: &mut impl Write) -> Result<(), Fatal> {
    // The map must exist (its siblings are found by its name); it need not open as a map.
    match std::fs::metadata(&args.file) {
        Err(e) => return Err(Fatal(format!("{}: {e}", args.file.display()))),
        Ok(m) if m.is_dir() => return Err(Fatal(format!("{}: is a directory, not a map file", args.file.display()))),
        Ok(_) => {}
    }
    // The map itself, without its siblings, to compare versions and revisions.
    let opts = OpenOptions { external_lumps: false, ..args.open.options() };
    let map = bspkit::Bsp::open_with(&args.file, &opts).ok();
    let mut rows = Vec::new();
    for s in list_siblings(&args.file)? {
        let row = match crate::read_input(&s.path, crate::MAX_INPUT)
            .map_err(|e| e.0)
            .and_then(|b| LmpFile::parse(&b).map(|l| l.header).map_err(|e| e.to_string()))
        {
            Ok(h) => {
                let entry = map.as_ref().and_then(|m| m.entry(h.lump_index as usize));
                serde_json::json!({
                    "path": s.path.to_string_lossy(), "kind": s.kind.to_string(), "number": s.number,
                    "applied": s.kind == 'l', "offset": h.offset, "lump_index": h.lump_index, "version": h.version,
                    "length": h.length, "revision": h.revision,
                    "lump_name": entry.map(|e| e.name),
                    "map_version": entry.and_then(|e| e.version),
                    "map_revision": map.as_ref().and_then(|m| m.header().revision),
                })
            }
            Err(e) => serde_json::json!({"path": s.path.to_string_lossy(), "kind": s.kind.to_string(), "number": s.number,
                "applied": s.kind == 'l', "error": e.to_string()}),
        };
        rows.push(row);
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &rows)?;
        writeln!(out)?;
        return Ok(());
    }
    for r in &rows {
        match r.get("error") {
            Some(e) => writeln!(out, "{}  error: {}", r["path"].as_str().unwrap_or(""), e.as_str().unwrap_or(""))?,
            None => writeln!(
                out,
                "{}  lump {} ({}) version {} length {} revision {} (map revision {}){}",
                r["path"].as_str().unwrap_or(""),
                r["lump_index"],
                r["lump_name"].as_str().unwrap_or("?"),
                r["version"],
                r["length"],
                r["revision"],
                r["map_revision"],
                if r["applied"] == true { "" } else { "  [not applied: game-mode variant]" }
            )?,
        }
    }
    eprintln!("{}: {} external lump files", args.file.display(), rows.len());
    Ok(())
}
