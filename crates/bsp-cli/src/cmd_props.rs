//! `bsp props` (static props of a Source or Respawn map) and `bsp gamelumps` (the game lump
//! directory).

use std::io::Write;
use std::path::PathBuf;

use bspkit::lumps::gamelump::GameLumps;
use clap::Args;

use crate::{open, Fatal, OpenArgs};

#[derive(Args)]
#[command(
    after_help = "Examples:\n  bsp props map.bsp\n  bsp props mp_rr_box.bsp                     # Respawn sprp v12/v13/47-52\n  bsp props --json map.bsp | jq '.props[].model_name'"
)]
pub struct PropsArgs {
    file: PathBuf,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    open: OpenArgs,
}

#[derive(Args)]
#[command(after_help = "Examples:\n  bsp gamelumps map.bsp\n  bsp gamelumps --json map.bsp")]
pub struct GameLumpsArgs {
    file: PathBuf,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    open: OpenArgs,
}

pub fn props(args: PropsArgs, out: &mut impl Write) -> Result<(), Fatal> {
    let bsp = open(&args.file, &args.open)?;
    if bsp.family() == bspkit::Family::Respawn {
        return respawn_props(&bsp, &args, out);
    }
    let gl = GameLumps::of(&bsp).map_err(|e| e.in_file(&args.file))?;
    let Some(sp) = gl.static_props().map_err(|e| bsp.lump_error(35, e))? else {
        if args.json {
            writeln!(out, "null")?;
        }
        eprintln!("{}: no static prop game lump", args.file.display());
        return Ok(());
    };
    let detail = gl.detail_props().map_err(|e| bsp.lump_error(35, e))?;
    let detail_json = detail.as_ref().map(|d| {
        serde_json::json!({"version": d.version, "model_names": d.model_names, "sprites": d.sprite_count(), "props": d.prop_count(),
            "lighting_ldr": gl.detail_lighting_count(false).ok().flatten(), "lighting_hdr": gl.detail_lighting_count(true).ok().flatten()})
    });
    if args.json {
        // Streamed: the props are decoded and written in batches, so a game lump declaring
        // millions of props takes memory for one batch, not for all of them.
        let first = sp.props_range(0, PROP_BATCH);
        let head = serde_json::json!({
            "count": sp.count, "detail": detail_json, "element_size": sp.element_size, "layout": sp.layout,
            "leaves": sp.leaves.len(), "model_names": sp.model_names,
            "note": first.as_ref().err().map(|e| e.to_string()),
        });
        let head = serde_json::to_string(&head)?;
        // `head` is an object; the props and the version go before its closing brace.
        write!(out, "{},\"props\":", &head[..head.len() - 1])?;
        match first {
            Err(_) => write!(out, "null")?,
            Ok(batch) => {
                write!(out, "[")?;
                write_batch(out, &batch, true)?;
                let mut start = batch.len();
                while start < sp.count && !batch.is_empty() {
                    let next = sp.props_range(start, PROP_BATCH).map_err(|e| bsp.lump_error(35, e))?;
                    if next.is_empty() {
                        break;
                    }
                    write_batch(out, &next, false)?;
                    start += next.len();
                }
                write!(out, "]")?;
            }
        }
        writeln!(out, ",\"version\":{}}}", sp.version)?;
        return Ok(());
    }
    let props = sp.props();
    eprintln!(
        "{}: sprp version {} ({:?}, {}), {} props, {} models, {} leaves",
        args.file.display(),
        sp.version,
        sp.layout,
        // Without props there is no record to measure.
        sp.element_size.map(|s| format!("{s} bytes per prop")).unwrap_or_else(|| "prop size unknown".into()),
        sp.count,
        sp.model_names.len(),
        sp.leaves.len()
    );
    let props = props.map_err(|e| bsp.lump_error(35, e))?;
    let rows = props.iter().enumerate().map(|(i, p)| {
        let mut row = vec![i.to_string(), p.model_name.as_deref().unwrap_or("?").to_string()];
        row.extend(p.origin.iter().chain(&p.angles).map(f32::to_string));
        row.extend([p.skin.to_string(), p.solid.to_string(), format!("{:#x}", p.flags), format!("{}..{}", p.fade_min, p.fade_max)]);
        row
    });
    table(out, &["#", "model", "x", "y", "z", "pitch", "yaw", "roll", "skin", "solid", "flags", "fade"], rows)
}

/// A text table: every column as wide as its widest cell, the model names (column 1) left-aligned
/// and every other column right-aligned, so numbers line up whatever their digits. Values are
/// printed exactly (`--json` for the rest).
fn table(out: &mut impl Write, header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> Result<(), Fatal> {
    let rows: Vec<Vec<String>> = rows.collect();
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let mut s = String::new();
        for (k, (c, w)) in cells.zip(&width).enumerate() {
            if k > 0 {
                s.push(' ');
            }
            let pad = " ".repeat(w - c.chars().count());
            if k == 1 {
                s.push_str(c);
                s.push_str(&pad);
            } else {
                s.push_str(&pad);
                s.push_str(c);
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut text = line(&mut header.iter().copied());
    for r in &rows {
        text.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// Props decoded and written per batch by `props --json`.
const PROP_BATCH: usize = 4096;

fn write_batch(out: &mut impl Write, batch: &[bspkit::lumps::staticprops::StaticProp], first: bool) -> Result<(), Fatal> {
    for (i, p) in batch.iter().enumerate() {
        if i > 0 || !first {
            write!(out, ",")?;
        }
        serde_json::to_writer(&mut *out, p)?;
    }
    Ok(())
}

/// Respawn static props (sprp v12 Titanfall, v13 Titanfall 2, 47–52 Apex).
fn respawn_props(bsp: &bspkit::Bsp, args: &PropsArgs, out: &mut impl Write) -> Result<(), Fatal> {
    let sp = bspkit::with_respawn_view!(bsp, |v| v.static_props())??;
    let Some(sp) = sp else {
        if args.json {
            writeln!(out, "null")?;
        }
        eprintln!("{}: no static prop game lump", args.file.display());
        return Ok(());
    };
    if sp.count as u64 > bspkit::lumps::staticprops::MAX_STATIC_PROPS {
        return Err(Fatal(format!(
            "{}: static props: {} exceeds the limit of {}",
            args.file.display(),
            sp.count,
            bspkit::lumps::staticprops::MAX_STATIC_PROPS
        )));
    }
    let props = sp.props();
    if args.json {
        let v = serde_json::json!({
            "version": sp.version, "layout": sp.layout, "element_size": sp.layout.size(), "count": sp.count,
            "model_names": sp.model_names, "leaves": sp.leaves.len(), "extras": sp.extra_count, "props": props,
        });
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(());
    }
    eprintln!(
        "{}: sprp version {} ({:?}, {} bytes per prop), {} props, {} models, {} extra records",
        args.file.display(),
        sp.version,
        sp.layout,
        sp.layout.size(),
        sp.count,
        sp.model_names.len(),
        sp.extra_count
    );
    let rows = props.iter().enumerate().map(|(i, p)| {
        let mut row = vec![i.to_string(), p.model_name.as_deref().unwrap_or("?").to_string()];
        row.extend(p.origin.iter().chain(&p.angles).map(f32::to_string));
        row.extend([p.scale.to_string(), p.skin.to_string(), p.solid.to_string(), format!("{:#x}", p.flags)]);
        row
    });
    table(out, &["#", "model", "x", "y", "z", "pitch", "yaw", "roll", "scale", "skin", "solid", "flags"], rows)
}

pub fn gamelumps(args: GameLumpsArgs, out: &mut impl Write) -> Result<(), Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let gl = GameLumps::of(&bsp).map_err(|e| e.in_file(&args.file))?;
    if args.json {
        let list: Vec<_> = gl
            .entries()
            .iter()
            .map(|e| {
                serde_json::json!({"id": e.fourcc(), "flags": e.flags, "version": e.version, "offset": e.offset,
                    "length": e.length, "compressed": e.compressed, "stored_length": e.stored_len, "dummy": e.is_dummy()})
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &serde_json::json!({"offsets": gl.dir.base, "children": list}))?;
        writeln!(out)?;
        return Ok(());
    }
    eprintln!("{}: {} game lump entries, {:?} offsets", args.file.display(), gl.entries().len(), gl.dir.base);
    writeln!(out, "{:<10} {:>5} {:>7} {:>10} {:>10} {:>10}  compressed", "id", "flags", "version", "offset", "length", "stored")?;
    for e in gl.entries() {
        writeln!(
            out,
            "{:<10} {:>5} {:>7} {:>10} {:>10} {:>10}  {}",
            e.fourcc(),
            e.flags,
            e.version,
            e.offset,
            e.length,
            e.stored_len,
            if e.compressed { "lzma" } else { "-" }
        )?;
    }
    Ok(())
}
