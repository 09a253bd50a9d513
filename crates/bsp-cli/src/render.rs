//! Text rendering of library reports.

use std::io::{self, Write};

use bspkit::info::{Info, LumpInfo};
use bspkit::Bsp;

pub fn info_text(out: &mut impl Write, bsp: &Bsp, info: &Info) -> io::Result<()> {
    let f = &info.format;
    writeln!(out, "{} ({} bytes)", info.path, info.size)?;
    writeln!(out, "format: {} [{}], family {}, version {}, {:?} endian", f.title, f.branch, f.family, f.version, f.endianness)?;
    for w in &f.why {
        writeln!(out, "  because: {w}")?;
    }
    for r in &f.runners_up {
        writeln!(out, "  runner-up: {} ({})", r.branch, r.why)?;
    }
    let _ = bsp;
    writeln!(out)?;
    let has_max = info.stats.iter().any(|s| s.max_count.is_some() || s.max_bytes.is_some());
    if has_max {
        writeln!(out, "{:<18} {:>16}  {:>17}", "Object names", "Objects/Maxobjs", "Memory / Maxmem")?;
        // vbspinfo prints these two under the table (bspkit::branches::source::stats).
        let footer = |s: &&bspkit::stats::Stat| s.name == "Level flags" || s.name == "Total triangle count";
        for s in info.stats.iter().filter(|s| !footer(s)) {
            let count = s.count.map(|c| format!("{c}/{}", s.max_count.unwrap_or(0))).unwrap_or_else(|| "[variable]".into());
            writeln!(out, "{:<18} {:>16}  {:>9}/{:<8}", s.name, count, s.bytes, s.max_bytes.unwrap_or(0))?;
        }
        for s in info.stats.iter().filter(footer) {
            match s.name.as_str() {
                "Level flags" => writeln!(out, "\nLevel flags = {:x}", s.count.unwrap_or(0))?,
                _ => writeln!(out, "\nTotal triangle count: {}", s.count.unwrap_or(0))?,
            }
        }
    } else {
        for s in &info.stats {
            let count = s.count.map(|c| c.to_string()).unwrap_or_default();
            writeln!(out, "{:>8} {:<18} {:>10}", count, s.name, s.bytes)?;
        }
    }
    writeln!(out, "{:>8} entities", info.entities)?;
    if let Some(c) = info.checksum {
        writeln!(out, "map checksum (CRC32, entities excluded): {c:08x}")?;
    }
    for p in &info.problems {
        writeln!(out, "problem: {p}")?;
    }
    Ok(())
}

pub fn lumps_text(out: &mut impl Write, lumps: &[LumpInfo]) -> io::Result<()> {
    writeln!(
        out,
        "{:>5}  {:<32} {:>10} {:>10} {:>7} {:>6} {:>8}  flags",
        "index", "name", "offset", "length", "version", "rsize", "count"
    )?;
    for l in lumps {
        let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_else(|| "-".into());
        let mut flags = Vec::new();
        if l.compressed {
            flags.push("lzma".to_string());
        }
        if l.source != "file" {
            flags.push(format!("external:{}", l.source));
        }
        writeln!(
            out,
            "{:>5}  {:<32} {:>10} {:>10} {:>7} {:>6} {:>8}  {}",
            l.index,
            l.name,
            l.offset,
            l.length,
            opt(l.version.map(u64::from)),
            opt(l.record_size.map(|x| x as u64)),
            opt(l.count),
            flags.join(",")
        )?;
    }
    Ok(())
}

/// An entity lump as its exact text, or (`json`) as arrays of [key, value] pairs in file order.
pub fn entities(out: &mut impl Write, ents: &bspkit::lumps::entities::Entities, json: bool) -> io::Result<()> {
    if json {
        let list: Vec<Vec<[String; 2]>> = ents.iter().map(|e| e.iter().map(|(k, v)| [k.into_owned(), v.into_owned()]).collect()).collect();
        serde_json::to_writer_pretty(&mut *out, &list)?;
        writeln!(out)
    } else {
        out.write_all(ents.text)?;
        if !ents.text.ends_with(b"\n") && !ents.text.is_empty() {
            writeln!(out)?;
        }
        Ok(())
    }
}
