//! `bsp scan`: every map below some directories (and inside .pk3/.zip archives), in parallel,
//! with a summary table. The work is `bspkit::scan`; this file is output only.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use bspkit::scan::{self, ScanOptions, ScanRecord};

pub const AFTER_HELP: &str = "Examples:
  bsp scan ~/games/quake/id1            every .bsp/.pk3 below, then a summary table
  bsp scan --json maps/ > scan.jsonl    one JSON object per map (schema in README.md)
  bsp scan --jobs 1 maps/ a.pk3         one thread; files and dirs may be mixed

Symbolic links are followed (each directory is walked once). A map inside an archive is printed
as ARCHIVE!ENTRY; `bsp info`, `check`, `ents` take that name too.

Exit status: 0 every map read without errors, 1 maps with errors (--strict: or warnings) or
maps that failed to read, 2 usage error (e.g. a path that does not exist).";

pub struct ScanArgs {
    pub roots: Vec<PathBuf>,
    pub json: bool,
    pub jobs: Option<usize>,
    pub strict: bool,
    pub options: bspkit::OpenOptions,
}

pub fn run(args: ScanArgs, out: &mut dyn Write) -> Result<ExitCode, crate::Fatal> {
    // A path that does not exist is a usage error, not a map that failed.
    for r in &args.roots {
        if let Err(e) = std::fs::metadata(r) {
            return Err(crate::Fatal(format!("{}: {e}", r.display())));
        }
    }
    let (files, mut failed) = scan::collect_files(&args.roots);
    let options = ScanOptions { open: args.options, ..ScanOptions::default() };
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
    let mut records = match builder.build() {
        Ok(pool) => pool.install(scan_all),
        // Could not start threads: scan on this one.
        Err(_) => scan_all(),
    };
    bar.finish_and_clear();
    let elapsed = start.elapsed();
    records.append(&mut failed);

    if args.json {
        for r in &records {
            serde_json::to_writer(&mut *out, r)?;
            writeln!(out)?;
        }
    } else {
        for r in &records {
            print_record(out, r)?;
        }
    }
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
    let bad = s.with_errors + s.failed + if args.strict { s.with_warnings } else { 0 };
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
            crate::render::problems_text(out, "     ", &r.problems, false)?;
        }
        (None, None) => writeln!(out, "?    {}", r.display())?,
    }
    Ok(())
}
