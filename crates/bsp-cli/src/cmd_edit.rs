//! Writing commands: `bsp rewrite`, `bsp ents …` (get/set/add/remove/export/import/patch/diff),
//! `bsp compress`, `bsp decompress`. Every command that writes goes through
//! `bspkit::edit::Editor::write` (temporary file, reopen and check, rename).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bspkit::edit::Editor;
use bspkit::lumps::entities::{EditEntity, EntityDoc, EntityFilter};
use bspkit::{Bsp, OpenOptions};
use clap::{Args, Subcommand};

use crate::{Fatal, OpenArgs};

/// Where a writing command puts its result.
#[derive(Args, Clone, Debug)]
pub struct OutArgs {
    /// Write the result here (never the input, unless --in-place; `-`: standard output)
    #[arg(short = 'o', long = "output", value_name = "OUT", required_unless_present = "in_place")]
    pub output: Option<PathBuf>,
    /// Replace the input file itself (atomically)
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// Source: let later lumps shift even for an entity-only edit (the map checksum then changes)
    #[arg(long)]
    pub no_keep_checksum: bool,
    /// Write even if `bsp check` finds problems the input did not have (they are listed as
    /// warnings); the result must still open and every lump read
    #[arg(long)]
    pub allow_problems: bool,
    /// Respawn: fold the map's `.bsp_lump` files into the `.bsp` (no `.bsp_lump` is written;
    /// in place, the old ones are removed)
    #[arg(long)]
    pub fold_external: bool,
    /// Respawn: write these lumps of an unedited `.bsp` also to `.bsp_lump` files beside OUT
    /// (comma-separated hex indices, each optionally `:LENGTH` to write only its first bytes),
    /// the reverse of --fold-external
    #[arg(long, value_name = "LUMPS", conflicts_with = "fold_external")]
    pub split_external: Option<String>,
    /// Print what the write did as JSON on stdout: the path, and every new problem (a refused
    /// write's message shows only the first 10)
    #[arg(long)]
    pub json: bool,
}

impl OutArgs {
    /// The target path; refuses to overwrite the input without --in-place.
    pub fn target(&self, input: &Path) -> Result<PathBuf, Fatal> {
        if self.in_place {
            return Ok(input.to_path_buf());
        }
        let out = self.output.clone().ok_or_else(|| Fatal("give -o OUT or --in-place".into()))?;
        let same = match (std::fs::canonicalize(input), std::fs::canonicalize(&out)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same {
            return Err(Fatal(format!("{} is the input file; use --in-place to replace it", out.display())));
        }
        Ok(out)
    }
}

/// Open a map for writing: the file's own lumps (external `.lmp` files are not merged in). A
/// Respawn map is opened with its `.bsp_lump` files (unless `--no-external`): it is written back
/// as a set ([`bspkit::mapset`]), and edits start from the bytes the game reads.
pub fn open_for_edit(path: &Path, o: &OpenArgs) -> Result<Bsp<'static>, Fatal> {
    if bspkit::scan::split_entry_path(path).is_some() {
        return Err(Fatal(format!(
            "{}: a map inside an archive cannot be edited; extract it first (e.g. `unzip ARCHIVE ENTRY`)",
            path.display()
        )));
    }
    let opts = OpenOptions { external_lumps: false, ..o.options() };
    let bsp = match Bsp::open_with(path, &opts) {
        Ok(bsp) => bsp,
        // An Apex streaming `.bsp` is the header alone: its lumps only read with their
        // `.bsp_lump` files, so the file alone does not open.
        Err(e) if !o.no_external() => match Bsp::open_with(path, &OpenOptions { external_lumps: true, ..opts.clone() }) {
            Ok(bsp) if bsp.family() == bspkit::Family::Respawn => return Ok(bsp),
            _ => return Err(e.into()),
        },
        Err(e) => return Err(e.into()),
    };
    if bsp.family() == bspkit::Family::Respawn && !o.no_external() {
        drop(bsp);
        return Ok(Bsp::open_with(path, &OpenOptions { external_lumps: true, ..opts })?);
    }
    Ok(bsp)
}

/// Is this editor's map written as a Respawn set (opened from a file with its `.bsp_lump` files)?
fn is_respawn_set(ed: &Editor) -> bool {
    let bsp = ed.bsp();
    bsp.family() == bspkit::Family::Respawn && bsp.path().is_some() && bsp.options().external_lumps
}

/// Write the editor's result, or say that nothing changed (and still write, so OUT exists).
pub fn finish(ed: &mut Editor, out: &OutArgs, input: &Path) -> Result<(), Fatal> {
    ed.options.keep_checksum = !out.no_keep_checksum;
    ed.options.allow_new_problems = out.allow_problems;
    let target = out.target(input)?;
    if let Some(list) = &out.split_external {
        if ed.bsp().family() != bspkit::Family::Respawn || ed.changed().next().is_some() {
            return Err(Fatal("--split-external applies to an unedited Respawn map".into()));
        }
        let report = bspkit::mapset::split_external(ed.bsp(), &target, &parse_split(list)?)?;
        eprintln!("wrote {} ({} file(s) of the set)", target.display(), report.written.len());
        if out.json {
            let v = serde_json::json!({"path": target.to_string_lossy(), "written": target.to_string_lossy(),
                "new_problems": report.new_problems, "error": null});
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        return Ok(());
    }
    if is_respawn_set(ed) {
        let opts =
            bspkit::mapset::SetOptions { fold_external: out.fold_external, allow_new_problems: out.allow_problems, ..Default::default() };
        let report = bspkit::mapset::write_set(ed, &target, &opts)?;
        let n = report.written.len();
        eprintln!("wrote {} ({} file(s) of the set)", target.display(), n);
        for p in &report.removed {
            eprintln!("removed {} (folded into the .bsp)", p.display());
        }
        for p in &report.new_problems {
            eprintln!("warning: new problem: {p}");
        }
        if out.json {
            let v = serde_json::json!({"path": target.to_string_lossy(), "written": target.to_string_lossy(),
                "new_problems": report.new_problems, "error": null});
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        return Ok(());
    }
    if out.fold_external {
        return Err(Fatal("--fold-external applies to Respawn maps (their .bsp_lump files)".into()));
    }
    warn_external(ed, input);
    let new = write_editor(ed, &target, out.json)?;
    for p in &new {
        eprintln!("warning: new problem: {p}");
    }
    warn_siblings_left_behind(input, &target);
    Ok(())
}

/// `--split-external`'s list: `0000,0069:524288` (hex lump indices, optional decimal length).
fn parse_split(list: &str) -> Result<Vec<bspkit::mapset::SplitLump>, Fatal> {
    list.split(',')
        .map(|item| {
            let (index, length) = match item.trim().split_once(':') {
                Some((i, l)) => (i, Some(l)),
                None => (item.trim(), None),
            };
            let bad = || Fatal(format!("--split-external: {item:?} is not HEX or HEX:LENGTH"));
            let index = usize::from_str_radix(index.trim_start_matches("0x"), 16).map_err(|_| bad())?;
            let length = length.map(|l| l.parse::<u64>().map_err(|_| bad())).transpose()?;
            Ok((index, length))
        })
        .collect()
}

/// Write an editor's result to `target` (`-`: standard output) and say where it went; the
/// new problems allowed by --allow-problems are returned. With `json` (and a file target) one
/// object goes to stdout: `{"path", "written", "new_problems", "error"}`.
pub fn write_editor(ed: &Editor, target: &Path, json: bool) -> Result<Vec<String>, Fatal> {
    let prepared = ed.prepare()?;
    if bspkit::write::atomic::is_stdout(target) {
        let new = prepared.write_to(&mut std::io::stdout().lock())?;
        eprintln!("wrote the map to standard output");
        return Ok(new);
    }
    let report = match prepared.write_report(target) {
        Ok(r) => r,
        Err(e) => {
            if json {
                let problems = match &e.kind {
                    bspkit::ErrorKind::NewProblems(list) => list.clone(),
                    _ => Vec::new(),
                };
                let v = serde_json::json!({"path": target.to_string_lossy(), "written": null, "new_problems": problems,
                    "error": {"kind": e.kind.name(), "message": e.to_string()}});
                println!("{}", serde_json::to_string_pretty(&v)?);
            }
            return Err(e.into());
        }
    };
    if let Some(w) = &report.written {
        crate::warn_written(target, w);
        if w.path != target {
            eprintln!("wrote {} (through the link {})", w.path.display(), target.display());
        } else {
            eprintln!("wrote {}", target.display());
        }
        if json {
            let v = serde_json::json!({"path": target.to_string_lossy(), "written": w.path.to_string_lossy(),
                "new_problems": report.new_problems, "error": null});
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
    }
    Ok(report.new_problems)
}

/// A Respawn map written under another name leaves its `.ent` partitions and `.bsp_lump`
/// files behind (they are found by the map's name, and only the `.bsp` is written): say so,
/// rather than let `bsp check NEW.bsp` report the partitions as missing.
fn warn_siblings_left_behind(input: &Path, target: &Path) {
    if input.file_name() == target.file_name() && input.parent() == target.parent() {
        return;
    }
    let Ok(full) = Bsp::open(input) else { return };
    if full.family() != bspkit::Family::Respawn {
        return;
    }
    let mut left: Vec<String> = bspkit::branches::respawn::entity_partition_paths(&full)
        .unwrap_or_default()
        .into_iter()
        .map(|(_, p)| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    let lumps = full.lumps().iter().filter(|e| matches!(e.origin, bspkit::directory::LumpOrigin::BspLump(_))).count();
    if left.is_empty() && lumps == 0 {
        return;
    }
    if lumps > 0 {
        left.push(format!("{lumps} .bsp_lump file(s)"));
    }
    eprintln!(
        "warning: only the .bsp was written: {} beside {} {} not copied or renamed for {}; the game looks for them by the map's name",
        left.join(", "),
        input.display(),
        if left.len() == 1 && lumps == 0 { "is" } else { "are" },
        target.display()
    );
}

/// External lump files override the `.bsp`'s own lumps when the game loads the map: say so when
/// an edited lump has one (the edit is written into the `.bsp` only). A Respawn lump that comes
/// from a `.bsp_lump` file is refused: the edit would change nothing the game reads.
fn warn_external(ed: &Editor, input: &Path) {
    let Ok(full) = Bsp::open(input) else { return };
    for i in ed.changed() {
        if let Some(e) = full.entry(i) {
            if let bspkit::directory::LumpOrigin::Lmp(p) | bspkit::directory::LumpOrigin::BspLump(p) = &e.origin {
                eprintln!("warning: lump {i} is overridden by {}; the edit goes into the .bsp only", p.display());
            }
        }
    }
    if ed.changed().next().is_some()
        && ed.bsp().family() == bspkit::Family::Respawn
        && full.lumps().iter().any(|e| e.index == 35 && e.origin != bspkit::directory::LumpOrigin::File)
    {
        eprintln!("warning: the external game lump holds absolute offsets into this .bsp; they are not updated");
    }
}

#[derive(Args, Debug)]
pub struct RewriteArgs {
    pub file: PathBuf,
    #[command(flatten)]
    pub out: OutArgs,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// `bsp rewrite`: read and write back unchanged, through the writer.
pub fn rewrite(a: RewriteArgs) -> Result<ExitCode, Fatal> {
    let bsp = open_for_edit(&a.file, &a.open)?;
    let mut ed = Editor::new(&bsp)?;
    finish(&mut ed, &a.out, &a.file)?;
    Ok(ExitCode::SUCCESS)
}

/// Entity selection shared by the `ents` subcommands.
#[derive(Args, Debug, Clone, Default)]
pub struct Select {
    /// Keep entities with KEY=VALUE (exact) or KEY~REGEX (a regular expression found in the
    /// value); repeatable, all must hold
    #[arg(long = "where", value_name = "KEY=VALUE|KEY~REGEX")]
    pub conds: Vec<String>,
    /// Keep entities that have this key (repeatable)
    #[arg(long, value_name = "KEY")]
    pub has: Vec<String>,
    /// Shorthand for --where classname=NAME
    #[arg(long)]
    pub classname: Option<String>,
    /// Shorthand for --where targetname=NAME
    #[arg(long)]
    pub targetname: Option<String>,
}

impl Select {
    fn filter(&self) -> Result<EntityFilter, Fatal> {
        let mut f = EntityFilter::parse(&self.conds)?;
        if let Some(c) = &self.classname {
            f = f.with("classname", c);
        }
        if let Some(t) = &self.targetname {
            f = f.with("targetname", t);
        }
        for k in &self.has {
            f = f.has(k);
        }
        Ok(f)
    }
}

const ENTS_HELP: &str = "Examples:
  bsp ents map.bsp > map.ent                      the entity lump as text
  bsp ents --json map.bsp                         entities as arrays of [key, value] pairs
  bsp ents get map.bsp --classname light --key light
  bsp ents set map.bsp --classname light --key light --value 300 -o out.bsp
  bsp ents set map.bsp --classname logic_relay --key OnTrigger --value \"door,Open,,0,-1\" --append -o out.bsp
  bsp ents unset map.bsp --where targetname~^lamp --key _light -o out.bsp
  bsp ents add map.bsp classname=info_target targetname=spot -o out.bsp
  bsp ents remove map.bsp --where targetname=door1 -o out.bsp
  bsp ents export map.bsp > map.ent
  bsp ents import map.bsp map.ent -o out.bsp
  bsp ents patch map.bsp stripper.cfg -o out.bsp
  bsp ents diff a.bsp b.bsp --stripper > a_to_b.cfg
  bsp ents --partition list mp_rr_box.bsp         Respawn .ent partitions beside the map
  bsp ents --partition spawn mp_rr_box.bsp        entities of mp_rr_box_spawn.ent";

/// `bsp ents`: print the entities, or one of the editing subcommands.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, after_help = ENTS_HELP)]
pub struct EntsCmd {
    #[command(subcommand)]
    pub sub: Option<EntsSub>,
    /// The map (when no subcommand is given)
    pub file: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// Respawn: show the `<map>_<KIND>.ent` partition instead (`list` names them)
    #[arg(long, value_name = "KIND")]
    pub partition: Option<String>,
    #[command(flatten)]
    pub open: OpenArgs,
}

#[derive(Subcommand, Debug)]
pub enum EntsSub {
    /// Print the entities that match (all of them without a filter), each with its number
    #[command(
        after_help = "Examples:\n  bsp ents get map.bsp --classname light\n  bsp ents get map.bsp --where targetname=door1 --key origin\n  bsp ents get map.bsp --where classname~^func_ --has spawnflags\n  bsp ents get --json map.bsp --classname info_player_start\n\nEach line starts with #N, the entity's position in the lump (0 = worldspawn); with --key,\n`#N CLASSNAME<TAB>VALUE`, one line per value. --json: [{\"entity\", \"pairs\"}] or, with --key,\n[{\"entity\", \"key\", \"value\"}]. Exit status 1 when no entity matches.\n\nSeveral maps, a directory or an archive (bsp ents get maps/ a.pk3 --classname item_quad): every\nmap in them, sorted, each line starting with the map's path and a TAB (ARCHIVE!ENTRY for a map\nin an archive); --json objects gain \"path\". A map that cannot be read is reported on stderr\nand the search goes on (exit status 2 at the end)."
    )]
    Get {
        /// Maps, directories (every map below, as `bsp scan` finds them) and .pk3/.zip archives
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        select: Select,
        /// Print only this key's values, one per line
        #[arg(long)]
        key: Option<String>,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Set a key on every matching entity
    #[command(
        after_help = "Examples:\n  bsp ents set map.bsp --classname light --key _light --value \"255 255 255 300\" -o out.bsp\n  bsp ents set map.bsp --where targetname=door1 --key speed --value 200 --in-place\n  bsp ents set map.bsp --targetname relay --key OnTrigger --value \"x,Kill,,0,-1\" --nth 2 -o out.bsp\n  bsp ents set map.bsp --targetname relay --key OnTrigger --value \"x,Kill,,0,-1\" --append -o out.bsp\n\nAn entity without the key gets it. A key that appears more than once in a matching entity\n(outputs, for instance) is refused unless --all, --nth N or --append says which.\nExit status 1 when no entity matches (nothing is written)."
    )]
    Set {
        file: PathBuf,
        #[command(flatten)]
        select: Select,
        #[arg(long)]
        key: String,
        #[arg(long)]
        value: String,
        /// Set every pair with the key
        #[arg(long, conflicts_with_all = ["nth", "append"])]
        all: bool,
        /// Set only the Nth pair with the key (1 = the first)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "append")]
        nth: Option<u32>,
        /// Add another pair with the key (e.g. one more output), keeping the others
        #[arg(long)]
        append: bool,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Remove a key from every matching entity
    #[command(
        after_help = "Examples:\n  bsp ents unset map.bsp --classname light --key _color -o out.bsp\n  bsp ents unset map.bsp --targetname relay --key OnTrigger --nth 2 -o out.bsp\n\nEvery pair with the key goes, or only the Nth with --nth. Exit status 1 when no matching\nentity has the key (nothing is written)."
    )]
    Unset {
        file: PathBuf,
        #[command(flatten)]
        select: Select,
        #[arg(long)]
        key: String,
        /// Remove only the Nth pair with the key (1 = the first)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        nth: Option<u32>,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Append an entity made of KEY=VALUE pairs
    #[command(after_help = "Examples:\n  bsp ents add map.bsp classname=info_target targetname=spot origin=\"0 0 64\" -o out.bsp")]
    Add {
        file: PathBuf,
        #[arg(required = true, value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Remove every matching entity (a filter is required)
    #[command(
        after_help = "Examples:\n  bsp ents remove map.bsp --classname info_null -o out.bsp\n\nExit status 1 when no entity matches (nothing is written)."
    )]
    Remove {
        file: PathBuf,
        #[command(flatten)]
        select: Select,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// The entity text, exactly as stored (without the trailing NUL)
    #[command(after_help = "Examples:\n  bsp ents export map.bsp > map.ent")]
    Export {
        file: PathBuf,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Replace the entity lump with the text of a .ent file
    #[command(after_help = "Examples:\n  bsp ents import map.bsp map.ent -o out.bsp")]
    Import {
        file: PathBuf,
        ent: PathBuf,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Apply a Stripper:Source config (filter/add/modify blocks)
    #[command(
        after_help = "Examples:\n  bsp ents patch map.bsp stripper/maps/map.cfg -o out.bsp\n\nExit status 1 when the config changes nothing (nothing is written)."
    )]
    Patch {
        file: PathBuf,
        config: PathBuf,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// Compare two maps' entities; --stripper prints a config turning A's into B's
    #[command(
        after_help = "Examples:\n  bsp ents diff old.bsp new.bsp\n  bsp ents diff old.bsp new.bsp --stripper > old.cfg\n\nExit status 1 when the entities differ (without --stripper)."
    )]
    Diff {
        a: PathBuf,
        b: PathBuf,
        #[arg(long)]
        stripper: bool,
        #[command(flatten)]
        open: OpenArgs,
    },
}

fn entity_line(e: &EditEntity) -> String {
    let mut s = String::from("{");
    for (k, v) in e.pairs() {
        s += &format!(" \"{k}\" \"{v}\"");
    }
    s + " }"
}

/// The entity lump of a map being read, its errors located like `bsp ents` locates them.
fn entity_doc(bsp: &Bsp) -> Result<EntityDoc, Fatal> {
    let text = bsp.entities_text()?;
    Ok(EntityDoc::parse(text).map_err(|e| bsp.entity_error(e))?)
}

/// Text lines, JSON objects and the number of matching entities of one map ([`get_hits`]).
type Hits = (Vec<String>, Vec<serde_json::Value>, usize);

/// `ents get` on one map's entities: the text lines (each ending in a newline, prefixed by
/// `path` and a TAB when given), the JSON objects (with `"path"` when given) and the number of
/// matching entities.
fn get_hits(doc: &EntityDoc, f: &EntityFilter, key: Option<&str>, path: Option<&str>) -> Hits {
    let prefix = path.map(|p| format!("{p}\t")).unwrap_or_default();
    let (mut lines, mut list, mut hits) = (Vec::new(), Vec::new(), 0);
    // The position in the lump says where each value came from.
    for (n, e) in doc.entities.iter().enumerate().filter(|(_, e)| f.matches(e)) {
        hits += 1;
        match key {
            Some(k) => {
                for v in e.get_all(k) {
                    lines.push(format!("{prefix}{}\t{v}\n", entity_tag(n, e)));
                    list.push(serde_json::json!({"entity": n, "key": k, "value": v}));
                }
            }
            None => {
                lines.push(format!("{prefix}#{n} {}\n", entity_line(e)));
                let pairs: Vec<[String; 2]> = e.pairs().map(|(k, v)| [k.into_owned(), v.into_owned()]).collect();
                list.push(serde_json::json!({"entity": n, "pairs": pairs}));
            }
        }
    }
    if let Some(p) = path {
        for v in &mut list {
            if let Some(o) = v.as_object_mut() {
                o.insert("path".into(), p.into());
            }
        }
    }
    (lines, list, hits)
}

/// `ents get` across a library: every map of `roots` (directories walked and archives opened as
/// `bsp scan` does), in parallel, printed in path order.
fn get_in_library(
    roots: &[PathBuf],
    f: &EntityFilter,
    key: Option<&str>,
    json: bool,
    open: &OpenArgs,
    out: &mut impl Write,
) -> Result<ExitCode, Fatal> {
    use rayon::prelude::*;
    for r in roots {
        std::fs::metadata(r).map_err(|e| Fatal(format!("{}: {e}", r.display())))?;
    }
    let (files, failed) = bspkit::scan::collect_files(roots);
    let mut errors: Vec<String> = failed.iter().map(|r| r.error.as_ref().map(|e| e.message.clone()).unwrap_or_default()).collect();
    // Maps: files as they are, and `ARCHIVE!ENTRY` for each map inside an archive.
    let mut maps: Vec<String> = Vec::new();
    for p in &files {
        if bspkit::scan::is_archive(p) {
            match bspkit::scan::archive_map_entries(p) {
                Ok(names) => maps.extend(names.into_iter().map(|n| format!("{}!{n}", p.display()))),
                Err(e) => errors.push(e.to_string()),
            }
        } else {
            maps.push(p.display().to_string());
        }
    }
    let results: Vec<Result<Hits, String>> = maps
        .par_iter()
        .map(|m| {
            let bsp = crate::open(Path::new(m), open).map_err(|e| e.0)?;
            let doc = entity_doc(&bsp).map_err(|e| e.0)?;
            Ok(get_hits(&doc, f, key, Some(m)))
        })
        .collect();
    let (mut hits, mut with_hits, mut list) = (0, 0, Vec::new());
    for r in results {
        match r {
            Ok((lines, l, n)) => {
                hits += n;
                with_hits += usize::from(n > 0);
                if json {
                    list.extend(l);
                } else {
                    out.write_all(lines.concat().as_bytes())?;
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if json {
        serde_json::to_writer_pretty(&mut *out, &list)?;
        writeln!(out)?;
    }
    out.flush()?;
    for e in &errors {
        eprintln!("bsp: {e}");
    }
    eprintln!(
        "{hits} matching entit{} in {with_hits} of {} maps{}",
        if hits == 1 { "y" } else { "ies" },
        maps.len(),
        if errors.is_empty() { String::new() } else { format!("; {} could not be read", errors.len()) }
    );
    Ok(if !errors.is_empty() {
        ExitCode::from(2)
    } else if hits == 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `#N CLASSNAME`: which entity a line of `ents get` comes from.
fn entity_tag(n: usize, e: &EditEntity) -> String {
    format!("#{n} {}", e.classname().as_deref().unwrap_or("-"))
}

pub fn ents(cmd: EntsCmd, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let Some(sub) = cmd.sub else {
        let file = cmd.file.ok_or_else(|| Fatal("give a map file or a subcommand (see `bsp ents --help`)".into()))?;
        let bsp = crate::open(&file, &cmd.open)?;
        if let Some(kind) = &cmd.partition {
            crate::cmd_partitions::run(out, &bsp, kind, cmd.json)?;
            return Ok(ExitCode::SUCCESS);
        }
        crate::cmd_partitions::note(&bsp);
        crate::render::entities(out, &bsp.entities()?, cmd.json)?;
        return Ok(ExitCode::SUCCESS);
    };
    match sub {
        EntsSub::Get { files, select, key, json, open } => {
            let f = select.filter()?;
            // One map file: its hits as they always were. Several files, directories or archives:
            // every map in them, each hit with the map's path.
            if let [file] = files.as_slice() {
                if !file.is_dir() && !bspkit::scan::is_archive(file) {
                    let bsp = crate::open(file, &open)?;
                    let (lines, list, hits) = get_hits(&entity_doc(&bsp)?, &f, key.as_deref(), None);
                    if json {
                        serde_json::to_writer_pretty(&mut *out, &list)?;
                        writeln!(out)?;
                    } else {
                        out.write_all(lines.concat().as_bytes())?;
                    }
                    eprintln!("{hits} matching entit{}", if hits == 1 { "y" } else { "ies" });
                    return Ok(if hits == 0 { ExitCode::from(1) } else { ExitCode::SUCCESS });
                }
            }
            get_in_library(&files, &f, key.as_deref(), json, &open, out)
        }
        EntsSub::Set { file, select, key, value, all, nth, append, out: o, open } => {
            let f = select.filter()?;
            let bsp = open_for_edit(&file, &open)?;
            let mut ed = Editor::new(&bsp)?;
            let mut doc = ed.entities()?;
            let (mut n, mut pairs) = (0, 0);
            for (pos, e) in doc.entities.iter_mut().enumerate().filter(|(_, e)| f.matches(e)) {
                let have = e.count(&key);
                if append {
                    e.insert(&key, &value)?;
                    pairs += 1;
                } else if all {
                    pairs += e.set_all(&key, &value)?;
                } else if let Some(nth) = nth {
                    // An entity without the key gets it; one with too few such pairs is an error.
                    if have == 0 {
                        e.insert(&key, &value)?;
                    } else if !e.set_nth(&key, nth as usize - 1, &value)? {
                        return Err(Fatal(format!(
                            "{}: entity #{pos} has {key:?} {have} time(s), no #{nth}; nothing written",
                            file.display()
                        )));
                    }
                    pairs += 1;
                } else if have > 1 {
                    return Err(Fatal(format!(
                        "{}: entity #{pos} has {key:?} {have} times; say which with --all, --nth N or --append (nothing written)",
                        file.display()
                    )));
                } else {
                    e.set(&key, &value)?;
                    pairs += 1;
                }
                n += 1;
            }
            if n == 0 {
                eprintln!("no entity matches; nothing written");
                return Ok(ExitCode::from(1));
            }
            ed.set_entities(&doc)?;
            finish(&mut ed, &o, &file)?;
            eprintln!("set {key} on {n} entit{} ({pairs} pair(s))", if n == 1 { "y" } else { "ies" });
            Ok(ExitCode::SUCCESS)
        }
        EntsSub::Unset { file, select, key, nth, out: o, open } => {
            let f = select.filter()?;
            let bsp = open_for_edit(&file, &open)?;
            let mut ed = Editor::new(&bsp)?;
            let mut doc = ed.entities()?;
            let (mut n, mut pairs) = (0, 0);
            for e in doc.entities.iter_mut().filter(|e| f.matches(e)) {
                let removed = match nth {
                    Some(k) => usize::from(e.remove_nth(&key, k as usize - 1)),
                    None => e.remove_key(&key),
                };
                n += usize::from(removed > 0);
                pairs += removed;
            }
            if n == 0 {
                eprintln!("no matching entity has {key:?}; nothing written");
                return Ok(ExitCode::from(1));
            }
            ed.set_entities(&doc)?;
            finish(&mut ed, &o, &file)?;
            eprintln!("removed {pairs} {key:?} pair(s) from {n} entit{}", if n == 1 { "y" } else { "ies" });
            Ok(ExitCode::SUCCESS)
        }
        EntsSub::Add { file, pairs, out: o, open } => {
            let bsp = open_for_edit(&file, &open)?;
            let mut ed = Editor::new(&bsp)?;
            let mut doc = ed.entities()?;
            let mut kv = Vec::new();
            for p in &pairs {
                let (k, v) = p.split_once('=').ok_or_else(|| Fatal(format!("{p:?} is not KEY=VALUE")))?;
                kv.push((k.to_string(), v.to_string()));
            }
            doc.push(EditEntity::new(kv)?);
            ed.set_entities(&doc)?;
            finish(&mut ed, &o, &file)?;
            Ok(ExitCode::SUCCESS)
        }
        EntsSub::Remove { file, select, out: o, open } => {
            let f = select.filter()?;
            if f.is_empty() {
                return Err(Fatal("remove needs a filter (--where, --has, --classname or --targetname)".into()));
            }
            let bsp = open_for_edit(&file, &open)?;
            let mut ed = Editor::new(&bsp)?;
            let mut doc = ed.entities()?;
            let n = doc.remove_where(|e| f.matches(e));
            if n == 0 {
                eprintln!("no entity matches; nothing written");
                return Ok(ExitCode::from(1));
            }
            ed.set_entities(&doc)?;
            finish(&mut ed, &o, &file)?;
            eprintln!("removed {n} entit{}", if n == 1 { "y" } else { "ies" });
            Ok(ExitCode::SUCCESS)
        }
        EntsSub::Export { file, open } => {
            let bsp = crate::open(&file, &open)?;
            out.write_all(bsp.entities_text()?)?;
            Ok(ExitCode::SUCCESS)
        }
        EntsSub::Import { file, ent, out: o, open } => {
            let text = crate::read_input(&ent, crate::MAX_INPUT)?;
            // Refuse text the engines could not read.
            bspkit::lumps::entities::parse(&text).map_err(|e| Fatal(format!("{}: {e}", ent.display())))?;
            let bsp = open_for_edit(&file, &open)?;
            let mut ed = Editor::new(&bsp)?;
            if bsp.family() == bspkit::Family::Genesis3D {
                // A binary entity chunk: the text goes through the editor's encoder.
                ed.set_entities(&EntityDoc::parse(&text)?)?;
                finish(&mut ed, &o, &file)?;
                return Ok(ExitCode::SUCCESS);
            }
            let index = bsp.entities_index().ok_or_else(|| Fatal("this branch has no entity lump".into()))?;
            let old = ed.lump(index)?.into_owned();
            let mut lump = text;
            // Keep the lump's terminator: the NUL (and anything after it) the original had.
            if let Some(n) = old.iter().position(|&b| b == 0) {
                if let Some(m) = lump.iter().position(|&b| b == 0) {
                    lump.truncate(m);
                }
                lump.extend_from_slice(&old[n..]);
            }
            if lump != old {
                ed.set_lump(index, lump)?;
            }
            finish(&mut ed, &o, &file)?;
            Ok(ExitCode::SUCCESS)
        }
        EntsSub::Patch { file, config, out: o, open } => {
            let text = String::from_utf8(crate::read_input(&config, crate::MAX_INPUT)?)
                .map_err(|_| Fatal(format!("{}: the config is not UTF-8 text", config.display())))?;
            let cfg = bspkit::stripper::Config::parse(&text).map_err(|e| Fatal(format!("{}: {e}", config.display())))?;
            let bsp = open_for_edit(&file, &open)?;
            let mut ed = Editor::new(&bsp)?;
            let mut doc = ed.entities()?;
            let (r, a, m) = cfg.apply(&mut doc)?;
            if r + a + m == 0 {
                eprintln!("the config matches nothing; nothing written");
                return Ok(ExitCode::from(1));
            }
            ed.set_entities(&doc)?;
            finish(&mut ed, &o, &file)?;
            eprintln!("{r} removed, {a} added, {m} modified");
            Ok(ExitCode::SUCCESS)
        }
        EntsSub::Diff { a, b, stripper, open } => {
            let ba = crate::open(&a, &open)?;
            let bb = crate::open(&b, &open)?;
            let (da, db) = (entity_doc(&ba)?, entity_doc(&bb)?);
            if stripper {
                out.write_all(bspkit::stripper::diff(&da, &db)?.as_bytes())?;
                return Ok(ExitCode::SUCCESS);
            }
            let (ca, cb) = (bspkit::stripper::canonical(&da), bspkit::stripper::canonical(&db));
            let mut rest_b = cb.clone();
            let mut only_a = Vec::new();
            for e in &ca {
                match rest_b.iter().position(|x| x == e) {
                    Some(i) => {
                        rest_b.remove(i);
                    }
                    None => only_a.push(e),
                }
            }
            let line = |p: &Vec<(Vec<u8>, Vec<u8>)>| {
                let e = EditEntity::new(
                    p.iter().map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned())),
                );
                e.map(|e| entity_line(&e)).unwrap_or_default()
            };
            for e in &only_a {
                writeln!(out, "- {}", line(e))?;
            }
            for e in &rest_b {
                writeln!(out, "+ {}", line(e))?;
            }
            Ok(if only_a.is_empty() && rest_b.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
    }
}

#[derive(Args, Debug)]
pub struct CompressArgs {
    pub file: PathBuf,
    #[command(flatten)]
    pub out: OutArgs,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// `bsp compress` / `bsp decompress`: LZMA for every Source lump but the pakfile; the game lump
/// child by child (source.md §6). A lump whose compressed form is not smaller stays uncompressed.
pub fn compress(a: CompressArgs, compress: bool) -> Result<ExitCode, Fatal> {
    let bsp = open_for_edit(&a.file, &a.open)?;
    if bsp.family() != bspkit::Family::Source {
        return Err(Fatal(format!("{}: only Source maps have LZMA lumps ({} map)", a.file.display(), bsp.family().as_str())));
    }
    let mut ed = Editor::new(&bsp)?;
    let indices: Vec<usize> = bsp.lumps().iter().filter(|e| e.length > 0).map(|e| e.index).collect();
    let mut n = 0;
    for i in indices {
        if compress {
            if bspkit::edit::NEVER_COMPRESSED.contains(&i) {
                continue;
            }
            let before = ed.raw_lump(i)?.len();
            if ed.compress_lump(i)? {
                if ed.raw_lump(i)?.len() >= before {
                    ed.decompress_lump(i)?; // not worth it: back to the stored bytes
                    let original = bsp.raw_lump(i)?.to_vec();
                    ed.set_raw_lump(i, original, None, bsp.entry(i).and_then(|e| e.fourcc))?;
                } else {
                    n += 1;
                }
            }
        } else if ed.decompress_lump(i)? {
            n += 1;
        }
    }
    // The game lump is compressed child by child, never as a whole (source.md §6).
    let children = if bsp.entry(35).is_some_and(|e| e.length > 0) { ed.compress_game_lump_children(compress)? } else { 0 };
    ed.options.keep_checksum = false;
    let target = a.out.target(&a.file)?;
    write_editor(&ed, &target, a.out.json)?;
    eprintln!(
        "{} {n} lump(s) and {children} game lump child(ren); wrote {}{}",
        if compress { "compressed" } else { "decompressed" },
        target.display(),
        if compress { " (the pakfile is never compressed as a lump)" } else { "" }
    );
    Ok(ExitCode::SUCCESS)
}
