//! `bsp scan`: every map below some directories (and inside .pk3/.zip archives), in parallel,
//! with a summary table. The work is `bspkit::scan`; this file is output only.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bspkit::render::{RenderOptions, View};
use bspkit::scan::{self, ScanOptions, ScanRecord};
use rayon::prelude::*;

pub const AFTER_HELP: &str = "Examples:
  bsp scan ~/games/quake/id1            every .bsp/.pk3 below, then a summary table
  bsp scan --json maps/ > scan.jsonl    one JSON object per map (schema in README.md)
  bsp scan --jobs 1 maps/ a.pk3         one thread; files and dirs may be mixed
  bsp scan maps/ --thumbnails thumbs/   also a preview PNG of every map (bsp render's iso view)
  bsp scan maps/ --classname item_quad  only maps with an item_quad (--key, --texture too)
  bsp scan maps/ --out lib/             tables lib/maps.parquet, entities, textures, props, lumps,
                                        problems (schema in README.md); again: only changed files
  bsp scan maps/ --out lib/ --format csv --json   CSV tables, run statistics as JSON on stdout

--classname, --key and --texture keep the maps that have an entity of one of the classes given,
an entity with one of the keys, a texture whose name contains one of the texts (ignoring case);
each kind given must be found. Each kept map's line (and JSON object, as \"matched\") says what
was found; maps that failed to read are still listed.

Symbolic links are followed (each directory is walked once). A map inside an archive is printed
as ARCHIVE!ENTRY; `bsp info`, `check`, `ents` take that name too.

With --thumbnails DIR, every map read gets DIR/NAME.png (NAME from the map's file name, and the
archive's for a map inside one; `~2`, `~3` … when two maps would share a name); a map that cannot
be drawn is reported and the scan goes on.

With --out DIR, the tables are written instead of the per-map lines (--format parquet, csv or
jsonl; DIR/schema.json holds the schema version and columns). Maps are deduplicated by SHA-256:
one `maps` row per place a map was found, its content rows once. DIR/scan-index.jsonl remembers
every file's rows: the next run reads only files whose size, modification time, status-change
time or inode changed (--verify: also those whose bytes no longer hash to the index's SHA-256), and
an interrupted run resumes. --json then prints the run's statistics (files_read, files_unchanged …).

Exit status: 0 every map read without errors, 1 maps with errors (--strict: or warnings), maps
that failed to read or to draw, 2 usage error (e.g. a path that does not exist).";

pub struct ScanArgs {
    pub roots: Vec<PathBuf>,
    pub json: bool,
    pub jobs: Option<usize>,
    pub strict: bool,
    pub options: bspkit::OpenOptions,
    /// Write a preview picture of every map read into this directory.
    pub thumbnails: Option<PathBuf>,
    /// Most bytes the thumbnails may take, every file together.
    pub max_output_bytes: u64,
    /// Keep only maps that have this (empty: every map).
    pub filter: bspkit::scan::MapFilter,
    /// The reading flags, for opening each map again to draw it.
    pub open: crate::OpenArgs,
    /// `--out DIR --format F [--verify]`: write the library tables.
    pub tables: Option<(PathBuf, TableFormat, bool)>,
}

/// `--format` of `bsp scan --out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    Parquet,
    Csv,
    Jsonl,
}

impl From<TableFormat> for bspkit_arrow::write::Format {
    fn from(f: TableFormat) -> Self {
        match f {
            TableFormat::Parquet => Self::Parquet,
            TableFormat::Csv => Self::Csv,
            TableFormat::Jsonl => Self::Jsonl,
        }
    }
}

/// `bsp scan --out DIR`: the tables, through the index in DIR.
fn run_tables(args: &ScanArgs, dir: &Path, format: TableFormat, verify: bool, out: &mut dyn Write) -> Result<ExitCode, crate::Fatal> {
    use bspkit::catalog;
    let options = ScanOptions { open: args.options.clone(), ..ScanOptions::default() };
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.jobs {
        builder = builder.num_threads(n.max(1));
    }
    let start = std::time::Instant::now();
    let show_bar = !args.json && std::io::stderr().is_terminal();
    let bar = if show_bar { indicatif::ProgressBar::new_spinner() } else { indicatif::ProgressBar::hidden() };
    let run = || catalog::scan_indexed_with(&args.roots, dir, &options, verify, |_| bar.inc(1));
    let (files, stats) = match builder.build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    }?;
    bar.finish_and_clear();
    let tables = catalog::Tables::from_files(files);
    let batches = bspkit_arrow::batches(&tables).map_err(|e| crate::Fatal(format!("{}: arrow: {e}", dir.display())))?;
    let written = bspkit_arrow::write::write_tables(dir, &batches, format.into())?;
    let secs = start.elapsed().as_secs_f64();
    let unique = tables.maps.iter().filter_map(|m| m.sha256.as_deref()).collect::<HashSet<_>>().len();
    let failed = tables.maps.iter().filter(|m| m.error.is_some()).count();
    let with_errors = tables.maps.iter().filter(|m| m.error.is_none() && m.errors > 0).count();
    let with_warnings = tables.maps.iter().filter(|m| m.error.is_none() && m.errors == 0 && m.warnings > 0).count();
    let rows: serde_json::Map<String, serde_json::Value> = tables.row_counts().iter().map(|(k, n)| (k.to_string(), (*n).into())).collect();
    if args.json {
        let v = serde_json::json!({
            "schema_version": catalog::SCHEMA_VERSION,
            "out": dir.to_string_lossy(),
            "format": bspkit_arrow::write::Format::from(format).ext(),
            "files": stats.files,
            "files_read": stats.files_read,
            "files_unchanged": stats.files_unchanged,
            "files_changed_while_read": stats.files_changed_while_read,
            "files_verified": stats.files_verified,
            "bytes_read": stats.bytes_read,
            "maps": tables.maps.len(),
            "unique_maps": unique,
            "failed": failed,
            "with_errors": with_errors,
            "with_warnings": with_warnings,
            "rows": rows,
            "seconds": secs,
        });
        serde_json::to_writer(&mut *out, &v)?;
        writeln!(out)?;
    } else {
        for p in &written {
            writeln!(out, "{}", p.display())?;
        }
        let counts: Vec<String> = tables.row_counts().iter().map(|(k, n)| format!("{n} {k}")).collect();
        writeln!(out, "{}", counts.join(", "))?;
        writeln!(
            out,
            "{} files: {} read ({:.1} MB), {} unchanged, {} changed while read; {} maps ({unique} distinct), {failed} failed; {secs:.3} s",
            stats.files,
            stats.files_read,
            stats.bytes_read as f64 / 1e6,
            stats.files_unchanged,
            stats.files_changed_while_read,
            tables.maps.len()
        )?;
    }
    let bad = with_errors + failed + if args.strict { with_warnings } else { 0 };
    Ok(if bad > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A thumbnail's file name: the map's file stem (prefixed by the archive's for a map inside
/// one), with every character but ASCII letters, digits, `-` and `_` replaced by `_`, and
/// `~N` added when the name (ignoring case) is taken.
pub fn thumbnail_name(r: &ScanRecord, taken: &mut HashSet<String>) -> String {
    let stem = |s: &str| {
        let p = Path::new(s.rsplit(['/', '\\']).next().unwrap_or(s));
        p.file_stem().map(|x| x.to_string_lossy().into_owned()).unwrap_or_default()
    };
    let raw = match &r.entry {
        Some(e) => format!("{}_{}", stem(&r.path), stem(e)),
        None => stem(&r.path),
    };
    let mut base: String = raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if base.is_empty() {
        base.push('_');
    }
    let mut name = base.clone();
    let mut n = 1;
    while !taken.insert(name.to_ascii_lowercase()) {
        n += 1;
        name = format!("{base}~{n}");
    }
    format!("{name}.png")
}

/// What happened to one map's thumbnail.
enum Thumb {
    None,
    Written(PathBuf),
    Failed(String),
}

fn thumbnails(
    dir: &Path,
    records: &[ScanRecord],
    open: &crate::OpenArgs,
    pool: Option<&rayon::ThreadPool>,
    budget: &bspkit::write::set::ByteBudget,
) -> Vec<Thumb> {
    let mut taken = HashSet::new();
    let names: Vec<Option<String>> =
        records.iter().map(|r| if r.error.is_none() { Some(thumbnail_name(r, &mut taken)) } else { None }).collect();
    let opts = RenderOptions { view: View::Iso, ..Default::default() };
    let one = |(r, name): (&ScanRecord, &Option<String>)| -> Thumb {
        let Some(name) = name else { return Thumb::None };
        // The folder rule and the written-bytes budget (every thumbnail together); a picture is
        // made from the map: atomic for readers, not synced.
        let done = bspkit::write::folder::check_below(dir, Path::new(name), false)
            .and_then(|_| crate::cmd_read::open_map(Path::new(&r.display()), open))
            .and_then(|bsp| crate::cmd_render::render_png(&bsp, &opts))
            .and_then(|(_, png)| {
                bspkit::write::folder::write_below_counted(dir, Path::new(name), &png, &bspkit::write::atomic::WriteOptions::OUTPUT, budget)
            });
        match done {
            Ok(target) => Thumb::Written(target),
            Err(e) => Thumb::Failed(e.to_string()),
        }
    };
    let all = || records.par_iter().zip(&names).map(one).collect();
    match pool {
        Some(p) => p.install(all),
        None => records.iter().zip(&names).map(one).collect(),
    }
}

pub fn run(args: ScanArgs, out: &mut dyn Write) -> Result<ExitCode, crate::Fatal> {
    // A path that does not exist is a usage error, not a map that failed.
    for r in &args.roots {
        if let Err(e) = std::fs::metadata(r) {
            return Err(crate::Fatal(format!("{}: {e}", r.display())));
        }
    }
    if let Some((dir, format, verify)) = &args.tables {
        return run_tables(&args, dir, *format, *verify, out);
    }
    let (files, mut failed) = scan::collect_files(&args.roots);
    let options = ScanOptions { open: args.options, filter: args.filter.clone(), ..ScanOptions::default() };
    let show_bar = !args.json && std::io::stderr().is_terminal() && std::io::stdout().is_terminal();
    let bar = if show_bar {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {wide_msg}") {
            b.set_style(style);
        }
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.jobs {
        builder = builder.num_threads(n.max(1));
    }
    let start = std::time::Instant::now();
    let scan_all = || {
        scan::scan_files(&files, &options, |p, _| {
            bar.set_message(p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
            bar.inc(1);
        })
    };
    let pool = builder.build().ok();
    let mut records = match &pool {
        Some(pool) => pool.install(scan_all),
        // Could not start threads: scan on this one.
        None => scan_all(),
    };
    bar.finish_and_clear();
    let elapsed = start.elapsed();
    let scanned = records.iter().filter(|r| r.error.is_none()).count();
    // Filtered out: read, and without what the filter asks for (maps that failed stay listed).
    records.retain(|r| r.error.is_some() || r.kept(&args.filter));
    records.append(&mut failed);

    let thumbs = match &args.thumbnails {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| crate::Fatal(format!("{}: {e}", dir.display())))?;
            let budget = bspkit::write::set::ByteBudget::new(args.max_output_bytes);
            thumbnails(dir, &records, &args.open, pool.as_ref(), &budget)
        }
        None => Vec::new(),
    };
    let thumb = |i: usize| thumbs.get(i).unwrap_or(&Thumb::None);
    if args.json {
        for (i, r) in records.iter().enumerate() {
            if args.thumbnails.is_some() {
                let mut v = serde_json::to_value(r)?;
                if let Some(o) = v.as_object_mut() {
                    let (file, err) = match thumb(i) {
                        Thumb::Written(p) => (Some(p.to_string_lossy().into_owned()), None),
                        Thumb::Failed(e) => (None, Some(e.clone())),
                        Thumb::None => (None, None),
                    };
                    o.insert("thumbnail".into(), file.into());
                    o.insert("thumbnail_error".into(), err.into());
                }
                serde_json::to_writer(&mut *out, &v)?;
            } else {
                serde_json::to_writer(&mut *out, r)?;
            }
            writeln!(out)?;
        }
    } else {
        for (i, r) in records.iter().enumerate() {
            print_record(out, r)?;
            match thumb(i) {
                Thumb::Written(p) => writeln!(out, "     thumbnail {}", p.display())?,
                Thumb::Failed(e) => writeln!(out, "     thumbnail failed: {e}")?,
                Thumb::None => {}
            }
        }
    }
    let thumbs_failed: Vec<(String, &String)> = records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match thumb(i) {
            Thumb::Failed(e) => Some((r.display(), e)),
            _ => None,
        })
        .collect();
    let s = scan::summarize(&records);
    // The summary is a message about the run: stderr under --json so stdout stays JSON lines.
    let mut err = std::io::stderr().lock();
    let dest: &mut dyn Write = if args.json { &mut err } else { out };
    writeln!(dest)?;
    writeln!(dest, "{:<10} {:<12} {:>8} {:>6} {:>7} {:>9}", "family", "branch", "version", "maps", "errors", "warnings")?;
    for r in &s.per_format {
        let version = bspkit::info::version_label(r.version, r.magic.as_deref());
        writeln!(dest, "{:<10} {:<12} {version:>8} {:>6} {:>7} {:>9}", r.family, r.branch, r.maps, r.with_errors, r.with_warnings)?;
    }
    for (k, n) in &s.per_error {
        writeln!(dest, "{:<10} {k:<21} {n:>6}", "failed")?;
    }
    if !s.problem_maps.is_empty() {
        writeln!(dest)?;
        for (name, counts) in &s.problem_maps {
            writeln!(dest, "problems  {name}: {}", crate::cmd_read::summary(counts))?;
        }
    }
    for r in records.iter().filter(|r| r.error.is_some()) {
        writeln!(dest, "failed    {}: {}", r.display(), r.error.as_ref().map(|e| e.kind).unwrap_or("?"))?;
    }
    let secs = elapsed.as_secs_f64().max(1e-9);
    writeln!(
        dest,
        "{} maps: {} ok, {} with errors, {} with warnings, {} failed; {:.1} MB in {:.3} s ({:.1} MB/s, {} files)",
        s.maps,
        s.ok,
        s.with_errors,
        s.with_warnings,
        s.failed,
        s.bytes as f64 / 1e6,
        secs,
        s.bytes as f64 / 1e6 / secs,
        files.len()
    )?;
    if !args.filter.is_empty() {
        let kept = records.iter().filter(|r| r.matched.is_some()).count();
        writeln!(dest, "{kept} of {scanned} maps read have what --classname/--key/--texture ask for")?;
    }
    if let Some(dir) = &args.thumbnails {
        let written = thumbs.iter().filter(|t| matches!(t, Thumb::Written(_))).count();
        for (name, e) in &thumbs_failed {
            writeln!(dest, "no thumbnail {name}: {e}")?;
        }
        writeln!(dest, "{written} thumbnails in {}, {} could not be drawn", dir.display(), thumbs_failed.len())?;
    }
    let bad = s.with_errors + s.failed + thumbs_failed.len() + if args.strict { s.with_warnings } else { 0 };
    Ok(if bad > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn print_record(out: &mut dyn Write, r: &ScanRecord) -> std::io::Result<()> {
    match (&r.error, &r.lumps) {
        (Some(e), _) => writeln!(out, "FAIL {}: {} ({})", r.display(), e.message, e.kind)?,
        (None, Some(l)) => {
            let counts = bspkit::check::Counts::of(&r.problems);
            let status = match counts.worst() {
                Some(bspkit::check::Severity::Error) => "PROB",
                Some(bspkit::check::Severity::Warning) => "WARN",
                _ => "ok  ",
            };
            writeln!(
                out,
                "{status} {} {} {} lumps {}/{} non-empty, {} compressed, {}",
                r.display(),
                r.branch.unwrap_or("?"),
                match r.version {
                    Some(0) | None => bspkit::info::version_label(0, r.magic.as_deref()),
                    Some(v) => format!("v{v}"),
                },
                l.non_empty,
                l.count,
                l.compressed,
                crate::cmd_read::summary(&counts)
            )?;
            if let Some(m) = &r.matched {
                writeln!(out, "     has {}", m.join(", "))?;
            }
            crate::render::problems_text(out, "     ", &r.problems, false)?;
        }
        (None, None) => writeln!(out, "?    {}", r.display())?,
    }
    Ok(())
}
