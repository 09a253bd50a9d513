//! Reading commands over several maps: `bsp info`, `bsp lumps`, `bsp check`. Every file gets
//! its result or its error (`--json`: an `{"path", "error": {"kind", "message"}}` object, as
//! `bsp scan` prints); a file that fails never stops the others, and the exit code is the worst
//! of all files (0 ok, 1 problems, 2 a file could not be read).
//!
//! Maps are opened by [`open_map`], which also takes `archive.pk3!maps/x.bsp` (a map inside an
//! archive, as `bsp scan` prints it) and explains what to do with a `.pk3` given as a map.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bspkit::check::{group, Counts, Problem, Severity};
use bspkit::scan::{self, ScanError};
use bspkit::{Bsp, Error, ErrorKind};
use clap::Args;

use crate::{Fatal, OpenArgs};

/// Open a map: a file, or an entry of a `.pk3` / `.zip` archive written `archive!entry`.
pub(crate) fn open_map(path: &Path, args: &OpenArgs) -> Result<Bsp<'static>, Error> {
    if let Some((archive, entry)) = scan::split_entry_path(path) {
        let opts = bspkit::OpenOptions { external_lumps: false, ..args.options() };
        let bytes = scan::read_archive_entry(&archive, &entry, scan::DEFAULT_MAX_ARCHIVE_ENTRY)?;
        let name = path.to_string_lossy().into_owned();
        return Bsp::from_vec_with(bytes, &opts).map(|b| b.with_name(name.clone())).map_err(|e| e.in_file(Path::new(&name)));
    }
    if scan::is_archive(path) && path.is_file() {
        let p = path.display();
        return Err(Error::new(ErrorKind::Io(format!(
            "is a .pk3/.zip archive, not a map: `bsp scan {p}` lists the maps inside, then give one as '{p}!maps/NAME.bsp'"
        )))
        .in_file(path));
    }
    Bsp::open_with(path, &args.options())
}

/// How a command ended for one file; the process exits with the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outcome {
    Ok = 0,
    Problems = 1,
    Failed = 2,
}

impl Outcome {
    pub(crate) fn exit(self) -> ExitCode {
        ExitCode::from(self as u8)
    }
}

/// A file that could not be opened: one line on stderr, and the JSON error object.
fn failed(path: &Path, e: &Error) -> serde_json::Value {
    eprintln!("bsp: error: {}", e.clone().in_file(path));
    serde_json::json!({"path": path.to_string_lossy(), "error": ScanError::from(&e.clone().in_file(path))})
}

/// Run `each` on every map of `files` in turn. A file that cannot be opened is reported (one
/// line on stderr; its error object in `items`) and the others go on. Returns the worst
/// outcome: `Failed` if a file could not be opened, else the worst `each` returned.
fn each_map(
    files: &[PathBuf],
    open: &OpenArgs,
    items: &mut Vec<serde_json::Value>,
    mut each: impl FnMut(&Path, Bsp<'static>, &mut Vec<serde_json::Value>) -> Result<Outcome, Fatal>,
) -> Result<Outcome, Fatal> {
    let mut worst = Outcome::Ok;
    for f in files {
        let outcome = match open_map(f, open) {
            Err(e) => {
                items.push(failed(f, &e));
                Outcome::Failed
            }
            Ok(bsp) => each(f, bsp, items)?,
        };
        worst = worst.max(outcome);
    }
    Ok(worst)
}

/// Print one JSON value: itself for one file, else the array.
fn print_json(out: &mut impl Write, mut items: Vec<serde_json::Value>, single: bool) -> Result<(), Fatal> {
    if single && items.len() == 1 {
        serde_json::to_writer_pretty(&mut *out, &items.remove(0))?;
    } else {
        serde_json::to_writer_pretty(&mut *out, &items)?;
    }
    writeln!(out)?;
    Ok(())
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Machine-readable output (schema in README.md); an array for several files
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// `bsp info`.
pub fn info(a: InfoArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let mut items = Vec::new();
    let worst = each_map(&a.files, &a.open, &mut items, |_, bsp, items| {
        let info = bspkit::info::info(&bsp);
        if a.json {
            items.push(serde_json::to_value(&info)?);
        } else {
            crate::render::info_text(out, &bsp, &info)?;
            crate::render::problems_text(out, "problem: ", &info.problems, false)?;
        }
        Ok(Outcome::Ok)
    })?;
    if a.json {
        print_json(out, items, a.files.len() == 1)?;
    }
    Ok(worst.exit())
}

#[derive(Args, Debug)]
pub struct LumpsArgs {
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The lump rows as JSON (an array; with several files, `[{"path", "lumps"}]`)
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// `bsp lumps`.
pub fn lumps(a: LumpsArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let several = a.files.len() > 1;
    let mut items = Vec::new();
    let worst = each_map(&a.files, &a.open, &mut items, |f, bsp, items| {
        let lumps = bspkit::info::lump_infos(&bsp);
        if a.json {
            // One file: the rows themselves (as before several files were taken).
            items.push(if several {
                serde_json::json!({"path": f.to_string_lossy(), "lumps": lumps})
            } else {
                serde_json::to_value(&lumps)?
            });
        } else {
            if several {
                writeln!(out, "{}:", f.display())?;
            }
            crate::render::lumps_text(out, &lumps)?;
        }
        Ok(Outcome::Ok)
    })?;
    if a.json {
        print_json(out, items, !several)?;
    }
    Ok(worst.exit())
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// JSON: `[{"path", "problems": [{"lump", "index", "message", "severity", "code"}], "counts"}]`, every instance
    #[arg(long)]
    pub json: bool,
    /// Exit 1 on warnings too (not only on errors)
    #[arg(long)]
    pub strict: bool,
    /// Print every problem on its own line (by default a kind seen more than 3 times in one lump is one line with examples)
    #[arg(long)]
    pub all: bool,
    /// Decode every LZMA-compressed lump and report one that does not decode (by default a lump no check reads, such as Source lightmap samples, is checked from its LZMA header only)
    #[arg(long)]
    pub verify_lzma: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// `bsp check`.
pub fn check(a: CheckArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let mut items = Vec::new();
    let worst = each_map(&a.files, &a.open, &mut items, |f, bsp, items| {
        let problems = bspkit::check::check_with(&bsp, &bspkit::check::CheckOptions { verify_lzma: a.verify_lzma });
        let counts = Counts::of(&problems);
        if a.json {
            items.push(serde_json::json!({"path": f.to_string_lossy(), "problems": problems, "counts": counts}));
        } else {
            crate::render::problems_text(out, &format!("{}: ", f.display()), &problems, a.all)?;
            eprintln!("{}: {}", f.display(), summary(&counts));
        }
        let fails = counts.errors > 0 || (a.strict && counts.warnings > 0);
        Ok(if fails { Outcome::Problems } else { Outcome::Ok })
    })?;
    if a.json {
        print_json(out, items, false)?;
    }
    Ok(worst.exit())
}

/// `2 errors, 1 warning, 0 notes`.
pub(crate) fn summary(c: &Counts) -> String {
    let n = |k: usize, one: &str| format!("{k} {one}{}", if k == 1 { "" } else { "s" });
    format!("{}, {}, {}", n(c.errors, "error"), n(c.warnings, "warning"), n(c.notes, "note"))
}

/// A problem's severity and code, as the text output prefixes them: `error[index_out_of_range]`.
pub(crate) fn tag(severity: Severity, code: bspkit::check::Code) -> String {
    format!("{severity}[{code}]")
}

/// Groups of problems as the text output prints them: each problem on its own line, except a
/// kind (severity, code, lump) seen more than [`crate::render::GROUP_LIMIT`] times, which is
/// one line with the count and the first examples.
pub(crate) fn grouped_lines(problems: &[Problem], all: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for g in group(problems) {
        if all || g.problems.len() <= crate::render::GROUP_LIMIT {
            lines.extend(g.problems.iter().map(|p| format!("{} {p}", tag(p.severity, p.code))));
            continue;
        }
        let examples: Vec<String> = g
            .problems
            .iter()
            .take(crate::render::GROUP_LIMIT)
            .map(|p| match p.index {
                Some(i) => format!("[{i}] {}", p.message),
                None => p.message.clone(),
            })
            .collect();
        lines.push(format!("{} {}: {} times, e.g. {}", tag(g.severity, g.code), g.lump, g.problems.len(), examples.join("; ")));
    }
    lines
}
