//! Text rendering of library reports.

use std::io::{self, Write};

use bspkit::info::{Info, LumpInfo};
use bspkit::Bsp;

pub fn info_text(out: &mut impl Write, bsp: &Bsp, info: &Info) -> io::Result<()> {
    let f = &info.format;
    writeln!(out, "{} ({} bytes)", info.path, info.size)?;
    let version = bspkit::info::version_label(f.version, f.magic.as_deref());
    writeln!(out, "format: {} [{}], family {}, version {version}, {:?} endian", f.title, f.branch, f.family, f.endianness)?;
    for w in &f.why {
        writeln!(out, "  because: {w}")?;
    }
    for r in &f.runners_up {
        writeln!(out, "  runner-up: {} ({})", r.branch, r.why)?;
    }
    writeln!(out)?;
    if bspkit::branches::quake3::RITUAL.contains(&bsp.branch()) {
        ritual_table(out, &info.stats)?;
    } else {
        native_table(out, bsp.family(), &info.stats, info.size)?;
    }
    entities_line(out, bsp, info.entities)?;
    if let Some(c) = info.checksum {
        writeln!(out, "map checksum (CRC32, entities excluded): {c:08x}")?;
    }
    Ok(())
}

/// The entity count under the stats table, its number ending where the table's counts end (the
/// native tools print no such line; a count one column off the rest reads as a misprint).
fn entities_line(out: &mut impl Write, bsp: &Bsp, entities: usize) -> io::Result<()> {
    use bspkit::Family;
    if bspkit::branches::quake3::RITUAL.contains(&bsp.branch()) {
        return writeln!(out, "{entities:>6}   entities");
    }
    match bsp.family() {
        Family::Quake | Family::GoldSrc => writeln!(out, "{entities:>7} entities"),
        Family::Quake2 => writeln!(out, "{:<12}{entities:>8}", "entities:"),
        Family::Quake3 => writeln!(out, "{entities:>9} entities"),
        _ => writeln!(out, "{entities:>8} entities"),
    }
}

/// Problems of one kind (severity, code, lump) seen more often than this print as one line.
pub const GROUP_LIMIT: usize = 3;

/// Problems as text, one line each, `PREFIX severity[code] LUMP[INDEX]: message`, a kind seen
/// more than [`GROUP_LIMIT`] times in one lump as one line with the count and examples
/// (unless `all`).
pub fn problems_text(out: &mut (impl Write + ?Sized), prefix: &str, problems: &[bspkit::check::Problem], all: bool) -> io::Result<()> {
    for line in crate::cmd_read::grouped_lines(problems, all) {
        writeln!(out, "{prefix}{line}")?;
    }
    Ok(())
}

/// The lump table: every column as wide as its widest cell (a 3 MB Call of Duty record or a long
/// Respawn lump name would otherwise push the later columns out of line), names left-aligned,
/// numbers right-aligned, no trailing spaces; `flags` last (`lzma`, `external:FILE`).
pub fn lumps_text(out: &mut impl Write, lumps: &[LumpInfo]) -> io::Result<()> {
    let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_else(|| "-".into());
    let header = ["index", "name", "offset", "length", "version", "rsize", "count", "flags"];
    let mut rows: Vec<[String; 8]> = Vec::with_capacity(lumps.len());
    for l in lumps {
        let mut flags = Vec::new();
        if l.compressed {
            flags.push("lzma".to_string());
        }
        if l.source != "file" {
            flags.push(format!("external:{}", l.source));
        }
        rows.push([
            l.index.to_string(),
            l.name.to_string(),
            l.offset.to_string(),
            l.length.to_string(),
            opt(l.version.map(u64::from)),
            opt(l.record_size.map(|x| x as u64)),
            opt(l.count),
            flags.join(","),
        ]);
    }
    let mut width = header.map(str::len);
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |out: &mut dyn Write, cells: [&str; 8]| -> io::Result<()> {
        let mut s = String::new();
        for (k, (c, &w)) in cells.iter().zip(&width).enumerate() {
            // Two spaces after the index and before the flags, one between the others.
            s.push_str(match k {
                0 => "",
                1 | 7 => "  ",
                _ => " ",
            });
            let pad = " ".repeat(w - c.chars().count());
            if k == 1 || k == 7 {
                s.push_str(c);
                s.push_str(&pad);
            } else {
                s.push_str(&pad);
                s.push_str(c);
            }
        }
        writeln!(out, "{}", s.trim_end())
    };
    line(out, header)?;
    for r in &rows {
        line(out, r.each_ref().map(String::as_str))?;
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

/// Ritual's maps (F.A.K.K.2, Alice, Medal of Honor): a row per lump in directory order, in the
/// `count   name   bytes` columns of the Medal of Honor engine's own size listing (OpenMoHAA
/// `CM_PrintBSPFileSizes`: `%6i   %-22s%7i`); byte lumps leave the count empty.
fn ritual_table(out: &mut impl Write, stats: &[bspkit::stats::Stat]) -> io::Result<()> {
    for s in stats {
        let count = s.count.map(|c| c.to_string()).unwrap_or_default();
        writeln!(out, "{count:>6}   {:<22}{:>7}", s.name, s.bytes)?;
    }
    Ok(())
}

/// The stats table in the layout of the family's own info tool, so the two can be compared line
/// by line: ericw-tools `bspinfo` (Quake, GoldSrc), q2tools `4bsp` FILE STATS (Quake 2),
/// `q3map2 -info` (Quake 3 family), `vbspinfo` (Source), `cod4map -info` (Call of Duty 4, with
/// its Limit% column), `cod2map -info` (Call of Duty 1 / 2), GBSPLib's save table (Genesis3D), the Nightfire compiler's size chart. Respawn maps, which have no native tool,
/// get a contents table.
fn native_table(out: &mut impl Write, family: bspkit::Family, stats: &[bspkit::stats::Stat], file_size: u64) -> io::Result<()> {
    use bspkit::Family;
    let count = |c: Option<u64>| c.map(|c| c.to_string()).unwrap_or_default();
    match family {
        Family::Quake | Family::GoldSrc => {
            for s in stats {
                if s.name == "models" {
                    // bspinfo prints the model count alone.
                    writeln!(out, "{:>7} {:<12}", count(s.count), s.name)?;
                } else {
                    writeln!(out, "{:>7} {:<12} {:>10}", count(s.count), s.name, s.bytes)?;
                }
            }
        }
        Family::Quake2 => {
            for s in stats {
                match s.count {
                    Some(c) => writeln!(out, "{:<12}{c:>8}        size: {:>7}", format!("{}:", s.name), s.bytes)?,
                    None => writeln!(out, "{:>27} size: {:>7}", s.name, s.bytes)?,
                }
            }
        }
        Family::Quake3 => {
            // q3map2 groups its rows with blank lines and marks with `*` the rows it sizes by
            // its internal (RBSP) structs.
            for s in stats {
                if matches!(s.name.as_str(), "nodes" | "drawsurfaces" | "lightmaps" | "total") {
                    writeln!(out)?;
                }
                let star = if matches!(s.name.as_str(), "brushsides" | "drawsurfaces" | "drawverts" | "lightgrid") { " *" } else { "" };
                writeln!(out, "{:>9} {:<12} {:>10}{star}", count(s.count), s.name, s.bytes)?;
                if s.name == "total" {
                    writeln!(out, "{:>33} KB", s.bytes / 1024)?;
                    writeln!(out, "{:>33} MB", s.bytes / (1024 * 1024))?;
                }
            }
        }
        Family::Source => {
            // vbspinfo's own layout: name, objects/max, memory/max, fullness = memory / max.
            writeln!(out, "Object names       Objects/Maxobjs  Memory / Maxmem  Fullness")?;
            writeln!(out, "------------       ---------------  ---------------  --------")?;
            // vbspinfo prints these two under the table (bspkit::branches::source::stats).
            let footer = |s: &&bspkit::stats::Stat| s.name == "Level flags" || s.name == "Total triangle count";
            for s in stats.iter().filter(|s| !footer(s)) {
                let objects = match s.count {
                    Some(c) => format!("{c:>8}/{:<8}", s.max_count.unwrap_or(0)),
                    None => format!("{:>14}   ", "[variable]"),
                };
                let max_bytes = s.max_bytes.unwrap_or(0);
                let fullness = if max_bytes > 0 { 100.0 * s.bytes as f64 / max_bytes as f64 } else { 0.0 };
                writeln!(out, "{:<17.17} {objects} {:>8}/{:<8} ({fullness:>4.1}%)", s.name, s.bytes, max_bytes)?;
            }
            for s in stats.iter().filter(footer) {
                match s.name.as_str() {
                    "Level flags" => writeln!(out, "\nLevel flags = {:x}", s.count.unwrap_or(0))?,
                    _ => writeln!(out, "\nTotal triangle count: {}", s.count.unwrap_or(0))?,
                }
            }
        }
        // Call of Duty 1 / 2 rows carry no limits: `cod2map -info`'s own layout (count, name,
        // bytes, kilobytes, share; bspkit::branches::cod::stats12), with no Limit% column.
        Family::Cod if stats.iter().all(|s| s.max_bytes.is_none()) => {
            for s in stats {
                if s.name == "paths" {
                    writeln!(out)?;
                }
                let share = if file_size > 0 { 100.0 * s.bytes as f64 / file_size as f64 } else { 0.0 };
                let kilobytes = s.bytes as f64 / 1024.0;
                writeln!(out, "{:>6} {:<17} {:>8} B {kilobytes:>6.0} KB {share:>5.1}%", count(s.count), s.name, s.bytes)?;
                if s.name == "entdata" {
                    writeln!(out)?;
                }
            }
        }
        Family::Cod => {
            writeln!(out, " Limit%  Count Lump                    Bytes Kilobytes   BSP%")?;
            writeln!(out, "{}", "-".repeat(60))?;
            for s in stats {
                if matches!(s.name.as_str(), "nodes" | "paths") {
                    writeln!(out)?;
                }
                // Limit%: bytes over the compiler's limit (bspkit::branches::cod::lumps::limits);
                // cod4map marks rows past 75% with the colour code `^1`.
                let limit = bspkit::branches::cod::stats::limit_percent(s.bytes, s.max_bytes);
                let mark = if limit > 75.0 { "^1" } else { "" };
                let kilobytes = (s.bytes + 512) / 1024;
                let share = if file_size > 0 { 100.0 * s.bytes as f64 / file_size as f64 } else { 0.0 };
                writeln!(out, "{mark}{limit:6.2}% {:>6} {:<18} {:>8} B {kilobytes:>6} KB {share:>5.1}%", count(s.count), s.name, s.bytes)?;
            }
        }
        Family::Genesis3D => {
            // GBSPLib's " --- Save GBSP File --- " table: `Num X : count, bytes`, or
            // `X Size : bytes` for byte data (bspkit::branches::genesis3d::stats).
            writeln!(out, " --- Save GBSP File --- ")?;
            for s in stats {
                match s.count {
                    Some(c) => writeln!(out, "{:<21}: {c:>5}, {:>6}", s.name, s.bytes)?,
                    None => writeln!(out, "{:<21}:        {:>6}", s.name, s.bytes)?,
                }
            }
        }
        Family::Nightfire => {
            // The Nightfire compiler's size chart (its `PrintBSPFileSizes`, reconstructed;
            // bspkit::branches::nightfire::stats): objects / limit, bytes / limit, fullness;
            // variable-size data without a limit, then the total.
            writeln!(out, "Object names  Objects/Maxobjs  Memory / Maxmem  Fullness")?;
            writeln!(out, "------------  ---------------  ---------------  --------")?;
            for s in stats {
                match (s.count, s.max_count, s.max_bytes) {
                    (Some(c), Some(mc), Some(mb)) => {
                        let full = if mc > 0 { 100.0 * c as f64 / mc as f64 } else { 0.0 };
                        writeln!(out, "{:<12}  {c:>7}/{mc:<7}  {:>7}/{mb:<7}  ({full:>4.1}%)", s.name, s.bytes)?;
                    }
                    _ => writeln!(out, "{:<12}    [variable]     {:>7}", s.name, s.bytes)?,
                }
            }
            let total: u64 = stats.iter().map(|s| s.bytes).sum();
            writeln!(out, "=== Total BSP file data space used: {total} bytes ===")?;
        }
        Family::Respawn => {
            // No native tool: bspkit's own contents table (bspkit::branches::respawn::stats).
            writeln!(out, "{:>8}  {:<28} {:>10}", "Count", "Contents", "Bytes")?;
            writeln!(out, "{}", "-".repeat(48))?;
            for s in stats {
                writeln!(out, "{:>8}  {:<28} {:>10}", count(s.count), s.name, s.bytes)?;
            }
        }
    }
    Ok(())
}
