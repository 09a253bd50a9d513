//! `bsp decompile`: a map back to its family's editor source, with the result's fidelity
//! measured; a thin layer over `bspkit::decompile`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use bspkit::decompile::quake1::QuakeFormat;
use bspkit::decompile::{decompile_to, DecompileOptions, Report};
use clap::Args;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::{open, Fatal, OpenArgs};

#[derive(Args)]
#[command(after_help = "Examples:
  bsp decompile q2dm1.bsp -o q2dm1.map                    Quake 2: Valve 220 faces, contents/flags/value
  bsp decompile q3dm17.bsp -o q3dm17.map --report r.json  Quake 3: brushDef + patchDef2, report per brush/entity
  bsp decompile ctf_2fort.bsp -o ctf_2fort.vmf            Source: .vmf with brushes, displacements, props, overlays
  bsp decompile map.bsp -o map.map --json                 the report on stdout
  bsp decompile map.bsp -o map.map --no-measure           skip reading the output back
  bsp decompile e1m1.bsp -o e1m1.map --standard           Quake 1: standard texture axes, not Valve 220

Families: Quake 2 (IBSP 38, Qbism, SiN, SoF, Daikatana), Quake 3 (IBSP 46/47, Quake Live, RBSP, FBSP),
Source (every branch, console maps included; .vmf),
Quake 1 / Hexen II / BSP2 / 2PSB / GoldSrc (brushes rebuilt from the BSP tree, or read from BSPX BRUSHLIST),
Call of Duty 1 / UO / 2 / 4 (Radiant `iwmap 4`), Titanfall / Titanfall 2 (MRVN-Radiant Valve 220),
Genesis3D (brushes rebuilt from the BSP tree; Valve 220 with contents flags value, turned Z-up).
Each run prints the measured quality: face coverage, brush, texture and entity fidelity; for
tree-rebuilt maps also the volume against the leaves', brushes before/after merging, textures per face.
Exit status: 0 written; 1 written, but --strict and something did not come back the same; 2 error.")]
pub struct DecompileArgs {
    file: PathBuf,
    /// Output source file (`.map`, `.vmf` for Source); written atomically
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Also write the report (JSON, schema in README.md) to this file
    #[arg(long, value_name = "FILE.json")]
    report: Option<PathBuf>,
    /// Do not read the output back to measure its quality
    #[arg(long)]
    no_measure: bool,
    /// Exit 1 when a brush, side or entity did not come back the same
    #[arg(long)]
    strict: bool,
    /// Print the report as JSON on stdout
    #[arg(long)]
    json: bool,
    /// Quake 1 family: write the standard (id) texture form instead of Valve 220
    #[arg(long)]
    standard: bool,
    /// Quake 1 family: rebuild brushes from the tree even where a BSPX BRUSHLIST lump has them
    #[arg(long)]
    no_brushlist: bool,
    /// Quake 1 family: no clip brushes from clip hull 1 (faster; hull 1 not measured)
    #[arg(long)]
    no_clip_brushes: bool,
    /// Most rows in the report's brush_list and entity_list (every brush and entity measured;
    /// the totals are counted past it); 0 for none
    #[arg(long, value_name = "N", default_value_t = bspkit::decompile::DEFAULT_LIST_LIMIT)]
    list_limit: usize,
    #[command(flatten)]
    open: OpenArgs,
}

/// Heap set aside at the start of a decompile on transparent huge pages (virtual: a page is
/// only backed once touched).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_PAGE_HEAP: usize = 64 << 20;

/// Linux with glibc: the decompile's heap on transparent huge pages. A decompile builds tens of
/// MB of records (a 10.6 MB Quake 3 map: about 36 MB), and with 4 KiB pages every first touch
/// is a page fault: 12,000 a run, a third of its CPU time spent in the kernel on this machine.
/// The heap is grown once by [`HUGE_PAGE_HEAP`] (malloc's top pad), that range up to the
/// program break is advised as huge pages (`madvise(MADV_HUGEPAGE)`, which kernels in
/// `madvise` mode wait for), and malloc keeps it (trim threshold) and carves the following
/// allocations from it, large buffers too (mmap threshold at glibc's 32 MiB maximum): what
/// glibc's own `glibc.malloc.hugetlb=1` tunable does, which a program cannot set for itself.
/// Only the page size changes; where the kernel declines, or the heap is not at the break,
/// pages stay small.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn heap_on_huge_pages() {
    const HUGE: usize = 2 << 20;
    // SAFETY: mallopt only sets allocator parameters; the advised range lies between a block
    // malloc handed out and the program break (the heap's own pages), rounded inwards to whole
    // huge pages; the block is freed once.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_TOP_PAD, HUGE_PAGE_HEAP as i32);
        // More than the heap's top has free at start-up, so that malloc grows it (by the pad).
        let block = libc::malloc(HUGE);
        if block.is_null() {
            return;
        }
        let brk = libc::sbrk(0) as usize;
        let start = (block as usize).next_multiple_of(HUGE);
        let end = brk / HUGE * HUGE;
        // A heap at the break, grown by the pad just now (else glibc mapped it elsewhere).
        if brk > block as usize && brk - (block as usize) <= 2 * HUGE_PAGE_HEAP && end > start {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
        libc::free(block);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap_on_huge_pages() {}

/// The one-line summary printed on stderr.
pub(crate) fn summary(file: &std::path::Path, r: &Report, out: &std::path::Path) -> String {
    let mut s = format!(
        "{}: {} entities, {} brushes, {} patches ({} bevel sides dropped, {} brushes skipped) -> {}",
        file.display(),
        r.entities,
        r.brushes,
        r.patches,
        r.bevels_dropped,
        r.brushes_skipped,
        out.display()
    );
    if let Some(q) = &r.quality {
        let p = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}%"));
        s.push_str(&format!(
            "\n  face coverage {} ({:.1} of {:.1} units²); brushes {}/{} same ({}); textures {}/{} same ({}, {} with axes); entities {}/{} same{}",
            p(q.face_coverage),
            q.covered_area,
            q.face_area,
            q.brushes_same,
            q.brushes,
            p(q.brush_fidelity),
            q.sides_same_texture,
            q.sides,
            p(q.texture_fidelity),
            q.sides_with_axes,
            q.entities_same,
            q.entities,
            if q.entities_in_order { ", in order" } else { "" }
        ));
        if let Some(x) = &q.source {
            s.push_str(&format!(
                "\n  props {}/{} same; cubemaps {}/{}; displacements {}/{} written, {} same; overlays {}/{} same ({}/{} faces on a side); func_detail {}, func_ladder {}",
                x.props_same,
                x.props,
                x.cubemaps_same,
                x.cubemaps,
                x.displacements_written,
                x.displacements,
                x.displacements_same,
                x.overlays_same,
                x.overlays,
                x.overlay_faces_on_sides,
                x.overlay_faces,
                x.func_detail,
                x.func_ladder
            ));
        }
        if let Some(t) = &q.tree {
            s.push_str(&format!(
                "\n  {}: {} regions, {} texture cuts -> {} brushes ({} merge tries{}); volume {:.1} of the leaves' {:.1} units³ ({}); textures per face {}/{} ({}); {} tool sides",
                t.source,
                t.regions,
                t.texture_cuts,
                t.merged_brushes,
                t.merge_tries,
                if t.merge_stopped { ", allowance spent" } else { "" },
                t.volume,
                t.leaf_volume,
                t.volume_error.map_or("overlapping brush list".to_string(), |e| format!("{e:.4}% off")),
                t.faces_same_texture,
                t.faces,
                p(t.face_texture_fidelity),
                t.tool_sides
            ));
            if !t.contents_names.is_empty() {
                let names: Vec<String> = t
                    .contents_names
                    .iter()
                    .map(|c| format!("{} -> {} ({}, {} sides)", c.original, c.written, c.contents, c.sides))
                    .collect();
                s.push_str(&format!(
                    "\n  names given their contents' prefix: {} ({} faces counted the same through it)",
                    names.join(", "),
                    t.faces_renamed_for_contents
                ));
            }
        }
    }
    s
}

/// The report as indented JSON, each element of a list nested in it (a brush or entity row, a
/// mismatch) on one line: a 50,000-brush map's list stays a line a brush.
fn report_json(r: &Report) -> Result<Vec<u8>, serde_json::Error> {
    let mut text = Vec::new();
    r.serialize(&mut serde_json::Serializer::with_formatter(&mut text, RowsFormatter::default()))?;
    text.push(b'\n');
    Ok(text)
}

/// serde_json's pretty layout, except that a container inside a list below the top level is
/// written compact, on one line.
#[derive(Default)]
struct RowsFormatter {
    pretty: PrettyFormatter<'static>,
    /// Per open container: whether it is a list.
    open: Vec<bool>,
    /// The depth at which the one-line container began.
    flat_at: Option<usize>,
}

impl RowsFormatter {
    /// Open a container; whether it is written on one line.
    fn enter(&mut self, list: bool) -> bool {
        if self.flat_at.is_none() && self.open.len() >= 2 && self.open.last() == Some(&true) {
            self.flat_at = Some(self.open.len());
        }
        self.open.push(list);
        self.flat_at.is_some()
    }
    /// Close a container; whether it was on one line.
    fn leave(&mut self) -> bool {
        let flat = self.flat_at.is_some();
        self.open.pop();
        if self.flat_at == Some(self.open.len()) {
            self.flat_at = None;
        }
        flat
    }
    fn flat(&self) -> bool {
        self.flat_at.is_some()
    }
}

impl Formatter for RowsFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.enter(true) {
            w.write_all(b"[")
        } else {
            self.pretty.begin_array(w)
        }
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.leave() {
            w.write_all(b"]")
        } else {
            self.pretty.end_array(w)
        }
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        match (self.flat(), first) {
            (true, true) => Ok(()),
            (true, false) => w.write_all(b","),
            (false, _) => self.pretty.begin_array_value(w, first),
        }
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.flat() {
            Ok(())
        } else {
            self.pretty.end_array_value(w)
        }
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.enter(false) {
            w.write_all(b"{")
        } else {
            self.pretty.begin_object(w)
        }
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.leave() {
            w.write_all(b"}")
        } else {
            self.pretty.end_object(w)
        }
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        match (self.flat(), first) {
            (true, true) => Ok(()),
            (true, false) => w.write_all(b","),
            (false, _) => self.pretty.begin_object_key(w, first),
        }
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.flat() {
            w.write_all(b":")
        } else {
            self.pretty.begin_object_value(w)
        }
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.flat() {
            Ok(())
        } else {
            self.pretty.end_object_value(w)
        }
    }
}

pub fn run(args: DecompileArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    heap_on_huge_pages();
    let bsp = open(&args.file, &args.open)?;
    let opts = DecompileOptions {
        measure: !args.no_measure,
        quake_format: if args.standard { QuakeFormat::Standard } else { QuakeFormat::Valve220 },
        use_brushlist: !args.no_brushlist,
        clip_brushes: !args.no_clip_brushes,
        // The rows go only into a report someone reads.
        list_limit: if args.report.is_some() || args.json { args.list_limit } else { 0 },
        ..Default::default()
    };
    if let Some(path) = &args.report {
        bspkit::decompile::refuse_input(&bsp, path).map_err(|e| e.in_file(&args.file))?;
    }
    let d = decompile_to(&bsp, &args.output, &opts).map_err(|e| e.in_file(&args.file))?;
    if let Some(path) = &args.report {
        let text = report_json(&d.report)?;
        bspkit::write::atomic::write_file(path, &text, &Default::default())?;
    }
    if args.json {
        out.write_all(&report_json(&d.report)?)?;
    }
    let mut msg = String::new();
    for n in d.report.notes.iter().take(20) {
        msg.push_str(&format!("bsp: note: {}: {n}\n", args.file.display()));
    }
    msg.push_str(&summary(&args.file, &d.report, &args.output));
    msg.push('\n');
    let _ = std::io::stderr().write_all(msg.as_bytes());
    if args.strict && d.report.mismatches_total > 0 {
        eprintln!("bsp: --strict: {} brushes, sides or entities did not come back the same", d.report.mismatches_total);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
