//! `bsp decompile`: a compiled map back to the editor source of its family, with the result's
//! fidelity measured against the map it came from.
//!
//! | family | source | from |
//! |---|---|---|
//! | Quake 2 (IBSP 38, Qbism, SiN, SoF, Daikatana) | `.map`, Valve 220 faces with `contents flags value` | brushes + brush sides, texinfo |
//! | Quake 3 (IBSP 46/47, Quake Live, RBSP, FBSP) | `.map`, `brushDef` + `patchDef2` | brushes + brush sides, shaders, patches; texture matrices fitted to the drawn surfaces |
//! | Source (every branch, console maps included) | `.vmf` | brushes + brush sides, texinfo → texdata → material, displacements, static props, overlays, cubemaps (module `source`) |
//! | Call of Duty 1 / 2 / 4 | `.map`, Call of Duty Radiant (`iwmap 4`) | brushes + brush sides (six box coordinates, then planes), materials (module `cod`); texture alignment not recovered |
//! | Titanfall, Titanfall 2 (rBSP 29–37) | `.map`, Valve 220 with `contents flags value` (MRVN-Radiant) | CM_BRUSHES boxes + plane offsets, side properties and texture vectors, contents from CM_PRIMITIVES (module `respawn`) |
//! | Quake 1, Hexen II, BSP2, 2PSB, GoldSrc | `.map`, Valve 220 (or the standard form for Quake) | brushes rebuilt from the hull-0 tree (`decompile/tree.rs`, [`quake1`]) or read from BSPX `BRUSHLIST`; textures from the drawn faces; clip brushes from clip hull 1 (module `clip`) |
//! | Genesis3D (`GBSP` 15) | `.map`, Valve 220 with `contents flags value`, Z-up | brushes rebuilt from each model's tree as for Quake 1 (module `genesis3d`, fed to the rebuild through `treewalk::TreeSource`); textures from the drawn faces |
//!
//! Quality is measured on the written text read back ([`mapfile::read_map`]), not on the data
//! it was made from:
//! - **face coverage**: the area of the original drawn faces (Quake 2 faces, Quake 3 planar
//!   surfaces' triangles) covered by the decompiled brushes' side polygons on the same plane and
//!   facing, per face the sum of its overlaps with those polygons, capped at its area (Quake 3
//!   also within q3map2's vertex snap, module `snapcover`);
//! - **brush fidelity**: brushes whose sides (bevels left out) come back as the same planes with
//!   the same contents (Quake 2) or shaders (Quake 3, where contents come from shaders);
//! - **texture fidelity**: sides whose texture name, and where the map records them, axes come
//!   back equal (Quake 2: the texinfo rows within 1e-4; Quake 3: the drawn vertices' texture
//!   coordinates within 1e-3 of a texture, modulo whole textures);
//! - **entities**: every entity and pair back, in order;
//! - for tree-rebuilt families ([`quake1::TreeQuality`]): the brushes' volume against the
//!   non-empty leaves', the region count before and after merging, and per drawn face whether
//!   the side covering it has its texture name and axes.

mod clip;
mod cod;
mod genesis3d;
pub mod geom;
pub mod mapfile;
mod original;
mod quake;
pub mod quake1;
mod recover;
mod respawn;
pub mod scene;
mod snapcover;
mod source;
mod tree;
mod treewalk;
mod trigrid;
pub mod vmf;

pub use self::source::{to_map_entities, SourceQuality};

use std::path::Path;

use serde::Serialize;

use self::geom::Plane;
use self::mapfile::{Dialect, MapPrimitive, TexProjection};
use self::original::{BrushFrom, Budget, Original, TexTruth};
use self::snapcover::{bounds, Bounds};
use crate::branch::Family;
use crate::bsp::Bsp;
use crate::error::{Error, ErrorKind, Result};

/// Work allowed per map, in plane clips and record visits: a brush with `n` sides costs `n²`.
/// Ample for any real map (the largest corpus maps use under a million), and bounded on a
/// hostile one (a few seconds at most).
pub const DEFAULT_BUDGET: u64 = 200_000_000;

/// Options of [`decompile`].
#[derive(Debug, Clone)]
pub struct DecompileOptions {
    /// Work budget, see [`DEFAULT_BUDGET`].
    pub budget: u64,
    /// Measure the quality (reads the output back; about as long as the decompile itself).
    pub measure: bool,
    /// Quake 1 family: Valve 220 axes (default) or the standard form (GoldSrc is always 220).
    pub quake_format: quake1::QuakeFormat,
    /// Quake 1 family: read brushes from the BSPX `BRUSHLIST` lump where the map has one.
    pub use_brushlist: bool,
    /// Quake 1 family: recover clip brushes from clip hull 1 (and measure hull 1).
    pub clip_brushes: bool,
    /// Most rows in each of the report's [`Report::brush_list`] and [`Report::entity_list`]
    /// (the totals are counted past it); 0 leaves both lists empty. See [`DEFAULT_LIST_LIMIT`].
    pub list_limit: usize,
}

/// Rows per list in a report by default: every brush and entity of any corpus map and of a
/// 50,000-brush map, whose brush list is then about 10 MB (`bsp decompile` writes a row as one
/// line of about 200 bytes; lq_e0m2's 2,911 brush rows are 0.64 MB); a map past it keeps its
/// first rows in output order.
pub const DEFAULT_LIST_LIMIT: usize = 100_000;

impl Default for DecompileOptions {
    fn default() -> Self {
        DecompileOptions {
            budget: DEFAULT_BUDGET,
            measure: true,
            quake_format: Default::default(),
            use_brushlist: true,
            clip_brushes: true,
            list_limit: DEFAULT_LIST_LIMIT,
        }
    }
}

/// The measured fidelity of a decompile (JSON schema in README.md, `bsp decompile --report`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Quality {
    /// Area of the original drawn faces, square units.
    pub face_area: f64,
    /// The part of it the decompiled brushes cover.
    pub covered_area: f64,
    /// `covered_area / face_area` in percent (`null` without faces).
    pub face_coverage: Option<f64>,
    pub brushes: usize,
    pub brushes_same: usize,
    /// Percent of brushes with the same planes and contents.
    pub brush_fidelity: Option<f64>,
    /// Sides compared for texture.
    pub sides: usize,
    pub sides_same_texture: usize,
    /// Percent of sides with the same texture name (and axes where recorded).
    pub texture_fidelity: Option<f64>,
    /// Sides whose axes the map records (Quake 2 texinfo; Quake 3 sides drawn surfaces show).
    pub sides_with_axes: usize,
    pub entities: usize,
    pub entities_same: usize,
    /// Every entity back with the same pairs in the same order.
    pub entities_in_order: bool,
    /// Source maps: props, overlays, cubemaps and displacements read back (`null` elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceQuality>,
    /// The textures with the most uncovered face area (at most ten, largest first): where
    /// the compiler made faces no brush side has (back-side shaders, models turned to faces).
    pub uncovered_by_texture: Vec<(String, f64)>,
    /// Families rebuilt from the BSP tree: volume, merge and per-face texture figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<quake1::TreeQuality>,
}

/// A brush or entity that did not come back as it was.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Mismatch {
    /// `brush`, `side` or `entity`.
    pub what: &'static str,
    /// Index in the map's lump (brush) or entity lump (entity).
    pub index: usize,
    pub entity: usize,
    pub reason: String,
}

/// One brush of the output and what came back of it (`brush_list`), from the comparison the
/// quality figures count: over a full list, the `measured` rows' `same` add up to
/// [`Quality::brushes_same`], their `sides` to [`Quality::sides`], `sides_same_texture` and
/// `sides_with_axes` to the quality's.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BrushRow {
    /// The output entity it is in (index in the written file).
    pub entity: usize,
    /// That entity's `classname` as written.
    pub classname: String,
    /// Its place among the entity's brushes and patches (`// brush N` of a `.map`; the N-th
    /// `solid` of a `.vmf` entity).
    pub primitive: usize,
    /// Where it came from: `brush_lump` (Quake 2, Quake 3, Source, Call of Duty, Respawn),
    /// `displacement` (Source: rebuilt under a displacement, which has no brush in the lump),
    /// `tree` (hull-0 regions merged), `brushlist` (BSPX), `clip_hull` or `origin_brush`
    /// (Quake 1 family, GoldSrc).
    pub from: &'static str,
    /// `brush_lump`: its index in the map's brush lump; `displacement`: the dispinfo index.
    pub lump_index: Option<usize>,
    /// `clip_hull`: the hull it was recovered from.
    pub hull: Option<usize>,
    /// Its contents word (Quake 1 family: the leaf contents, -1 … -15; Source: only the
    /// detail bit, which the `.vmf` keeps as `func_detail`; `null` where contents come from
    /// the shaders or materials).
    pub contents: Option<i64>,
    /// Sides written and compared with the original's (bevels left out); sides written where
    /// not `measured`.
    pub sides: usize,
    /// Of those, the sides whose texture name (and axes where recorded) came back the same.
    pub sides_same_texture: usize,
    /// Of those, the sides whose texture axes the map records.
    pub sides_with_axes: usize,
    /// The same planes and contents came back (tree-rebuilt families: the rebuilt brush, as
    /// written, read back the same).
    pub same: bool,
    /// Compared with an original brush (false: `displacement`, which has none; not in the
    /// quality's counts).
    pub measured: bool,
    /// Its sides left out as the compiler's bevels.
    pub bevels_dropped: usize,
    /// The report's notes about this brush (brush-lump families: those naming its lump
    /// index, e.g. a tool texture restored, a side's plane recovered from the tree), and
    /// what did not come back.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One entity of the output and what came back of it (`entity_list`); over a full list the
/// rows' `same` add up to [`Quality::entities_same`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EntityRow {
    /// Index in the written file (the map's entities first, in their order).
    pub index: usize,
    pub classname: String,
    /// Key/value pairs written.
    pub keys: usize,
    /// Pairs the map's entity has (`null` for an entity the decompiler added: Source's
    /// `func_detail`, `func_ladder`, `prop_static`, `info_overlay`, `env_cubemap`, each
    /// standing for the detail brushes, static prop, overlay or cubemap of its classname).
    pub keys_original: Option<usize>,
    /// Every pair came back, the same and in order.
    pub same: bool,
    /// Brushes and patches written in it.
    pub brushes: usize,
    pub patches: usize,
}

/// The report of one decompile (`--report FILE.json`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub branch: &'static str,
    pub family: &'static str,
    /// `map` or `vmf`.
    pub format: &'static str,
    /// `quake2-valve220` or `quake3-brushdef`.
    pub dialect: &'static str,
    pub entities: usize,
    pub brushes: usize,
    pub patches: usize,
    /// Brush sides left out because the other sides clip them away (the compiler's bevels).
    pub bevels_dropped: usize,
    pub brushes_skipped: usize,
    pub quality: Option<Quality>,
    /// Per brush / entity, what did not come back (at most [`MAX_MISMATCHES`]).
    pub mismatches: Vec<Mismatch>,
    pub mismatches_total: usize,
    pub notes: Vec<String>,
    /// Every brush measured, in output order (at most [`DecompileOptions::list_limit`];
    /// empty without the measure).
    pub brush_list: Vec<BrushRow>,
    pub brush_list_total: usize,
    /// Every entity of the output and any of the map's missing from it, in order (at most
    /// [`DecompileOptions::list_limit`]; empty without the measure).
    pub entity_list: Vec<EntityRow>,
    pub entity_list_total: usize,
}

/// Most mismatches listed in a report (the total is counted).
pub const MAX_MISMATCHES: usize = 1000;

/// A decompiled map: its source text and the report.
#[derive(Debug, Clone)]
pub struct Decompiled {
    pub text: String,
    /// File extension of the source (`map`, `vmf`).
    pub extension: &'static str,
    pub report: Report,
}

/// Decompile `bsp` to its family's editor source.
///
/// ```no_run
/// # fn main() -> bspkit::Result<()> {
/// let bsp = bspkit::Bsp::open("q2dm1.bsp")?;
/// let d = bspkit::decompile::decompile(&bsp, &Default::default())?;
/// std::fs::write("q2dm1.map", &d.text).ok();
/// let q = d.report.quality.unwrap();
/// println!("{:?}% of the faces covered, {:?}% of the brushes the same", q.face_coverage, q.brush_fidelity);
/// # Ok(()) }
/// ```
pub fn decompile(bsp: &Bsp, opts: &DecompileOptions) -> Result<Decompiled> {
    let mut budget = Budget::new(opts.budget);
    if bsp.family() == Family::Source {
        let s = source::extract(bsp, &mut budget)?;
        let mut report = Report {
            branch: bsp.branch().id,
            family: bsp.family().as_str(),
            format: "vmf",
            dialect: "source-vmf",
            entities: s.orig.entities.len(),
            brushes: s.orig.brushes.len(),
            patches: 0,
            bevels_dropped: s.orig.bevels,
            brushes_skipped: s.orig.skipped_brushes,
            quality: None,
            mismatches: Vec::new(),
            mismatches_total: 0,
            notes: s.orig.notes.clone(),
            brush_list: Vec::new(),
            brush_list_total: 0,
            entity_list: Vec::new(),
            entity_list_total: 0,
        };
        if opts.measure {
            let read = vmf::read(s.text.as_bytes())?;
            // The Source checks first: the measure then takes the blocks' pairs.
            let checked = s.check(&read);
            let parsed = source::into_map_entities(read);
            let m = measure_listed(&parsed, &s.orig, Dialect::Quake2Valve, &mut budget, opts.list_limit)?;
            let mut q = m.fill(&mut report);
            q.source = Some(checked);
            report.quality = Some(q);
        }
        return Ok(Decompiled { text: s.text, extension: "vmf", report });
    }
    if matches!(bsp.family(), Family::Quake | Family::GoldSrc) {
        return decompile_tree(bsp, opts, &mut budget);
    }
    let (orig, dialect) = match bsp.family() {
        Family::Quake2 => (quake::quake2(bsp, &mut budget)?, Dialect::Quake2Valve),
        Family::Quake3 => (quake::quake3(bsp, &mut budget)?, Dialect::Quake3BrushDef),
        Family::Cod => (cod::extract(bsp, &mut budget)?, Dialect::CodRadiant),
        Family::Respawn => (respawn::extract(bsp, &mut budget)?, Dialect::Quake2Valve),
        Family::Genesis3D => {
            let x = genesis3d::extract(bsp, &mut budget, opts.budget)?;
            return write_tree(bsp, x, opts, &mut budget);
        }
        f => {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "decompiling {} maps (the Quake 1, GoldSrc, Genesis3D, Quake 2, Quake 3, Source, Call of Duty and Respawn families \
                 decompile)",
                f.as_str()
            ))))
        }
    };
    let header = vec![
        format!("Decompiled by bspkit {} from a {} map", env!("CARGO_PKG_VERSION"), bsp.branch().id),
        match (dialect, bsp.family()) {
            (Dialect::Quake2Valve, Family::Respawn) => "Format: MRVN-Radiant, Valve 220 texture axes with contents flags value".to_string(),
            (Dialect::Quake2Valve, _) => "Format: Quake 2, Valve 220 texture axes".to_string(),
            (Dialect::Quake3BrushDef, _) => "Format: Quake 3, brush primitives".to_string(),
            (Dialect::CodRadiant, _) => "Format: Call of Duty Radiant; texture alignment not recovered (editor defaults)".to_string(),
        },
    ];
    let text = mapfile::write_map(&orig.entities, dialect, &header);
    let brushes = orig.entities.iter().map(|e| e.brushes().count()).sum();
    // The brushes and patches are in the text now, which the measure reads back; only the
    // entities' pairs are compared. Freed before the read-back, their memory holds its brushes
    // instead of new pages (each first touch of a page is a fault: a third of a 10 MB Quake 3
    // decompile's CPU time was in the kernel).
    let mut orig = orig;
    for e in &mut orig.entities {
        e.primitives = Vec::new();
    }
    let mut report = Report {
        branch: bsp.branch().id,
        family: bsp.family().as_str(),
        format: "map",
        dialect: match (dialect, bsp.family()) {
            (Dialect::Quake2Valve, Family::Respawn) => "respawn-valve220",
            (Dialect::Quake2Valve, _) => "quake2-valve220",
            (Dialect::Quake3BrushDef, _) => "quake3-brushdef",
            (Dialect::CodRadiant, _) => "cod-iwmap4",
        },
        entities: orig.entities.len(),
        brushes,
        patches: orig.patches,
        bevels_dropped: orig.bevels,
        brushes_skipped: orig.skipped_brushes,
        quality: None,
        mismatches: Vec::new(),
        mismatches_total: 0,
        notes: orig.notes.clone(),
        brush_list: Vec::new(),
        brush_list_total: 0,
        entity_list: Vec::new(),
        entity_list_total: 0,
    };
    if opts.measure {
        let parsed = mapfile::read_map_str(&text)?;
        let m = measure_listed(&parsed, &orig, dialect, &mut budget, opts.list_limit)?;
        report.quality = Some(m.fill(&mut report));
    }
    Ok(Decompiled { text, extension: "map", report })
}

/// Quake 1 family and GoldSrc: brushes rebuilt from the tree ([`quake1`]).
fn decompile_tree(bsp: &Bsp, opts: &DecompileOptions, budget: &mut Budget) -> Result<Decompiled> {
    let x = quake1::extract(
        bsp,
        budget,
        quake1::TreeOptions {
            format: opts.quake_format,
            use_brushlist: opts.use_brushlist,
            clip_brushes: opts.clip_brushes,
            budget: opts.budget,
        },
    )?;
    write_tree(bsp, x, opts, budget)
}

/// Write and measure what a tree family's extractor gave ([`quake1`], [`genesis3d`]).
fn write_tree(bsp: &Bsp, x: quake1::Extracted, opts: &DecompileOptions, budget: &mut Budget) -> Result<Decompiled> {
    let standard = x.format == quake1::QuakeFormat::Standard;
    let genesis = bsp.family() == Family::Genesis3D;
    let header = vec![
        format!("Decompiled by bspkit {} from a {} map", env!("CARGO_PKG_VERSION"), bsp.branch().id),
        if genesis {
            "Format: Valve 220 texture axes with contents flags value (Genesis3D contents and texinfo flags), Z-up (Genesis3D's \
             (x, y, z) written as (x, -z, y)), brushes rebuilt from the BSP tree"
                .to_string()
        } else {
            format!(
                "Format: {}, brushes {}",
                if standard { "Quake, standard texture axes" } else { "Valve 220 texture axes" },
                if x.tree.source == "tree" { "rebuilt from the BSP tree" } else { "from the BSPX BRUSHLIST lump" }
            )
        },
    ];
    // Without brushDef the writer's Quake 2 dialect is plain Valve 220 / standard lines; the
    // sides carry no flags, so none are written.
    let text = mapfile::write_map(&x.orig.entities, Dialect::Quake2Valve, &header);
    let mut report = Report {
        branch: bsp.branch().id,
        family: bsp.family().as_str(),
        format: "map",
        dialect: match (bsp.family(), standard) {
            (Family::GoldSrc, _) => "goldsrc-valve220",
            (Family::Genesis3D, _) => "genesis3d-valve220",
            (_, true) => "quake-standard",
            (_, false) => "quake-valve220",
        },
        entities: x.orig.entities.len(),
        brushes: x.orig.entities.iter().map(|e| e.brushes().count()).sum(),
        patches: 0,
        bevels_dropped: 0,
        brushes_skipped: 0,
        quality: None,
        mismatches: Vec::new(),
        mismatches_total: 0,
        notes: x.orig.notes.clone(),
        brush_list: Vec::new(),
        brush_list_total: 0,
        entity_list: Vec::new(),
        entity_list_total: 0,
    };
    if opts.measure {
        // Read back once: both measures work on the same entities and side polygons.
        let parsed = mapfile::read_map(text.as_bytes())?;
        let mut m = measure_listed(&parsed, &x.orig, Dialect::Quake2Valve, budget, opts.list_limit)?;
        let tree = quake1::measure_tree(&parsed, &std::mem::take(&mut m.polygons), &x, budget)?;
        let mut q = m.fill(&mut report);
        q.tree = Some(tree);
        report.quality = Some(q);
    }
    Ok(Decompiled { text, extension: "map", report })
}

/// Decompile and write the source to `out` through [`crate::write::atomic`].
pub fn decompile_to(bsp: &Bsp, out: &Path, opts: &DecompileOptions) -> Result<Decompiled> {
    refuse_input(bsp, out)?;
    let d = decompile(bsp, opts)?;
    crate::write::atomic::write_file(out, d.text.as_bytes(), &Default::default())?;
    Ok(d)
}

/// Writing a source over the map it comes from would destroy the map (the project's write
/// rule: an input is never overwritten without `--in-place`, which a decompile has not): refused
/// when `out` is the file `bsp` was opened from (the same path once links are resolved).
pub fn refuse_input(bsp: &Bsp, out: &Path) -> Result<()> {
    let Some(input) = bsp.path() else { return Ok(()) };
    match (std::fs::canonicalize(input), std::fs::canonicalize(out)) {
        (Ok(a), Ok(b)) if a == b => {
            Err(Error::new(ErrorKind::Io(format!("{} is the map being decompiled; give another output path", out.display()))))
        }
        _ => Ok(()),
    }
}

/// Bounds that meet, with a margin for points on the boundary.
fn overlaps(a: &Bounds, b: &Bounds) -> bool {
    (0..3).all(|k| a.0[k] <= b.1[k] + 0.1 && b.0[k] <= a.1[k] + 0.1)
}

fn pct(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| 100.0 * a / b)
}

/// What [`measure_listed`] gives: the quality, what did not come back, the side polygons it
/// clipped and the report's per-brush and per-entity rows.
struct Measured {
    quality: Quality,
    mismatches: Vec<Mismatch>,
    mismatches_total: usize,
    polygons: SidePolygons,
    brush_list: Vec<BrushRow>,
    brush_list_total: usize,
    entity_list: Vec<EntityRow>,
    entity_list_total: usize,
}

impl Measured {
    /// Move the mismatches and rows into `report`; the quality is returned for the family's
    /// own figures to be added.
    fn fill(self, report: &mut Report) -> Quality {
        report.mismatches = self.mismatches;
        report.mismatches_total = self.mismatches_total;
        report.brush_list = self.brush_list;
        report.brush_list_total = self.brush_list_total;
        report.entity_list = self.entity_list;
        report.entity_list_total = self.entity_list_total;
        self.quality
    }
}

/// [`measure_listed`] without the rows (the snap-coverage tests' entry).
#[cfg(test)]
fn measure_parsed(
    parsed: &[mapfile::MapEntity],
    orig: &Original,
    dialect: Dialect,
    budget: &mut Budget,
) -> Result<(Quality, Vec<Mismatch>, usize, SidePolygons)> {
    let m = measure_listed(parsed, orig, dialect, budget, 0)?;
    Ok((m.quality, m.mismatches, m.mismatches_total, m.polygons))
}

/// A written entity's `classname` (empty without one).
fn classname(e: Option<&mapfile::MapEntity>) -> String {
    e.and_then(|e| e.pairs.iter().find(|(k, _)| k == "classname")).map(|(_, v)| v.clone()).unwrap_or_default()
}

/// The notes naming a brush-lump index (`brush N: …`, as the extractors write them), by index.
fn notes_by_brush(notes: &[String]) -> std::collections::HashMap<usize, Vec<&str>> {
    let mut by: std::collections::HashMap<usize, Vec<&str>> = std::collections::HashMap::new();
    for n in notes {
        let Some((num, _)) = n.strip_prefix("brush ").and_then(|r| r.split_once(": ")) else { continue };
        if let Ok(b) = num.parse() {
            by.entry(b).or_default().push(n.as_str());
        }
    }
    by
}

/// The per-entity rows: every written entity, then any of the map's the output lacks.
fn entity_rows(parsed: &[mapfile::MapEntity], orig: &Original, same: &[bool], limit: usize) -> (Vec<EntityRow>, usize) {
    let total = parsed.len().max(orig.entities.len());
    let rows = (0..total.min(limit))
        .map(|i| {
            let p = parsed.get(i);
            let count =
                |patch: bool| p.map_or(0, |p| p.primitives.iter().filter(|x| matches!(x, MapPrimitive::Patch(..)) == patch).count());
            EntityRow {
                index: i,
                classname: classname(p.or(orig.entities.get(i))),
                keys: p.map_or(0, |p| p.pairs.len()),
                keys_original: orig.entities.get(i).map(|e| e.pairs.len()),
                same: same.get(i).copied().unwrap_or(false),
                brushes: count(false),
                patches: count(true),
            }
        })
        .collect();
    (rows, total)
}

/// The planes and side polygons ([`geom::side_polygon`]) of each parsed brush, by entity and
/// primitive index; `None` for a patch or a brush with a side whose points give no plane.
/// Worked out once by [`measure_parsed`] and used again by [`quake1::measure_tree`], which
/// parsed the text and clipped every side a second time (4 % of LibreQuake e0m2's decompile in
/// perf).
pub(crate) type SidePolygons = Vec<Vec<Option<(Vec<Plane>, Vec<Vec<[f64; 3]>>)>>>;

/// Every side polygon of `polygons` as [`snapcover`] takes them, each with its entity after
/// grouping (built only for a map where a face needs the snap pairing).
fn snap_sides<'a>(polygons: &'a SidePolygons, entity_group: &[usize]) -> Vec<snapcover::SidePoly<'a>> {
    let mut out = Vec::new();
    for (pi, of_entity) in polygons.iter().enumerate() {
        let entity = entity_group.get(pi).copied().unwrap_or(pi);
        for (planes, polys) in of_entity.iter().flatten() {
            for (plane, poly) in planes.iter().zip(polys).filter(|(_, poly)| poly.len() >= 3) {
                out.push(snapcover::SidePoly { entity, plane: *plane, bounds: bounds(poly), poly });
            }
        }
    }
    out
}

/// Compare the entities read back from the output with `orig`; with `list_limit` > 0, also
/// list each brush and entity compared (at most that many rows of each).
fn measure_listed(
    parsed: &[mapfile::MapEntity],
    orig: &Original,
    dialect: Dialect,
    budget: &mut Budget,
    list_limit: usize,
) -> Result<Measured> {
    let mut q = Quality { entities: orig.entities.len(), ..Default::default() };
    let mut mism = Vec::new();
    let mut total = 0usize;
    let listing = list_limit > 0;
    // The brush being compared's mismatch reasons, for its row.
    let mut row_notes: Vec<String> = Vec::new();
    let mut note = |m: Mismatch, row_notes: &mut Vec<String>| {
        total += 1;
        if listing && m.what != "entity" {
            row_notes.push(m.reason.clone());
        }
        if mism.len() < MAX_MISMATCHES {
            mism.push(m);
        }
    };

    // Entities, in order.
    let mut entity_same = Vec::with_capacity(if listing { orig.entities.len() } else { 0 });
    for (i, e) in orig.entities.iter().enumerate() {
        let same = parsed.get(i).is_some_and(|p| p.pairs == e.pairs);
        if same {
            q.entities_same += 1;
        } else {
            note(Mismatch { what: "entity", index: i, entity: i, reason: "pairs differ".into() }, &mut row_notes);
        }
        if listing {
            entity_same.push(same);
        }
    }
    // Entities the decompiler adds (Source: func_detail, prop_static, …) follow the map's own.
    q.entities_in_order = q.entities_same == orig.entities.len() && parsed.len() == orig.entities.len() + orig.added_entities;

    // Brushes and textures.
    q.brushes = orig.brushes.len();
    let brush_notes = if listing { notes_by_brush(&orig.notes) } else { Default::default() };
    let mut brush_list: Vec<BrushRow> = Vec::with_capacity(if listing { orig.brushes.len() } else { 0 });
    for b in &orig.brushes {
        // The quality's counts before this brush: the row takes what it adds.
        let before = (q.sides, q.sides_same_texture, q.sides_with_axes, q.brushes_same);
        let mut row = |q: &Quality, row_notes: &mut Vec<String>| {
            if !listing {
                return;
            }
            let mut notes: Vec<String> = match b.from {
                BrushFrom::Lump => brush_notes.get(&b.source).into_iter().flatten().map(|n| n.to_string()).collect(),
                _ => Vec::new(),
            };
            notes.append(row_notes);
            let (from, lump_index, hull) = match b.from {
                BrushFrom::Lump => ("brush_lump", Some(b.source), None),
                BrushFrom::Tree => ("tree", None, None),
                BrushFrom::BrushList => ("brushlist", None, None),
                BrushFrom::ClipHull(h) => ("clip_hull", None, Some(h)),
                BrushFrom::OriginBrush => ("origin_brush", None, None),
            };
            brush_list.push(BrushRow {
                entity: b.entity,
                classname: classname(parsed.get(b.entity)),
                primitive: b.index,
                from,
                lump_index,
                hull,
                contents: b.contents,
                sides: q.sides - before.0,
                sides_same_texture: q.sides_same_texture - before.1,
                sides_with_axes: q.sides_with_axes - before.2,
                same: q.brushes_same > before.3,
                measured: true,
                bevels_dropped: b.bevels,
                notes,
            });
        };
        let Some(MapPrimitive::Brush(sides)) = parsed.get(b.entity).and_then(|e| e.primitives.get(b.index)) else {
            note(Mismatch { what: "brush", index: b.source, entity: b.entity, reason: "missing from the output".into() }, &mut row_notes);
            row(&q, &mut row_notes);
            continue;
        };
        let mut same = sides.len() == b.sides.len();
        for (k, (os, ps)) in b.sides.iter().zip(sides).enumerate() {
            let plane = ps.plane();
            // f32 planes: normals within 1e-6, distances within 1e-3 units.
            if !plane.is_some_and(|p| p.same_as(&os.plane, 1e-6, 1e-3)) {
                same = false;
                note(
                    Mismatch { what: "side", index: b.source, entity: b.entity, reason: format!("side {k}: plane differs") },
                    &mut row_notes,
                );
            }
            if let (Some(c), Some(f)) = (b.contents, ps.flags) {
                if c != f[0] {
                    same = false;
                }
            }
            q.sides += 1;
            let tex_ok = match (&os.truth, dialect) {
                (TexTruth::None, _) => ps.texture == "NULL",
                (TexTruth::Name(n), _) => ps.texture == quake::map_shader_str(n),
                (TexTruth::Axes { name, rows }, _) => {
                    q.sides_with_axes += 1;
                    let axes_ok = quake::vecs_from_valve(&ps.projection).is_some_and(|r| {
                        r.iter().flatten().zip(rows.iter().flatten()).all(|(a, b)| (a - b).abs() <= 1e-4 * b.abs().max(1.0))
                    });
                    &ps.texture == name && axes_ok
                }
                (TexTruth::Rows { name, rows, flags }, _) => {
                    q.sides_with_axes += 1;
                    let axes_ok = quake::vecs_from_valve(&ps.projection).is_some_and(|r| {
                        r.iter().flatten().zip(rows.iter().flatten()).all(|(a, b)| (a - b).abs() <= 1e-4 * b.abs().max(1.0))
                    });
                    let flags_ok = ps.flags.is_some_and(|f| f[1] == flags[0] && f[2] == flags[1]);
                    &ps.texture == name && axes_ok && flags_ok
                }
                (TexTruth::Samples { name, samples }, _) => {
                    q.sides_with_axes += 1;
                    budget.spend(samples.len() as u64)?;
                    let axes_ok = match (&ps.projection, plane) {
                        (TexProjection::BrushPrimitive { m }, Some(pl)) => {
                            // The plane's axes once per side, not per sample (same values).
                            let axes = mapfile::base_axes(pl.normal);
                            samples.iter().all(|(p, st)| {
                                let e = quake::eval_on_axes(m, axes, *p);
                                (0..2).all(|k| {
                                    let d = e[k] - st[k];
                                    (d - geom::round_nearest(d)).abs() < 1e-3
                                })
                            })
                        }
                        _ => false,
                    };
                    ps.texture == quake::map_shader_str(name) && axes_ok
                }
            };
            if tex_ok {
                q.sides_same_texture += 1;
            } else {
                note(
                    Mismatch { what: "side", index: b.source, entity: b.entity, reason: format!("side {k}: texture differs") },
                    &mut row_notes,
                );
            }
        }
        if same {
            q.brushes_same += 1;
        } else {
            note(Mismatch { what: "brush", index: b.source, entity: b.entity, reason: "planes or contents differ".into() }, &mut row_notes);
        }
        row(&q, &mut row_notes);
    }
    // Brushes with no original (Source displacements'): listed, not compared.
    for &(entity, index, di) in orig.rebuilt_brushes.iter().filter(|_| listing) {
        let written = match parsed.get(entity).and_then(|e| e.primitives.get(index)) {
            Some(MapPrimitive::Brush(sides)) => sides.len(),
            _ => 0,
        };
        brush_list.push(BrushRow {
            entity,
            classname: classname(parsed.get(entity)),
            primitive: index,
            from: "displacement",
            lump_index: Some(di),
            hull: None,
            contents: None,
            sides: written,
            sides_same_texture: 0,
            sides_with_axes: 0,
            same: false,
            measured: false,
            bevels_dropped: 0,
            notes: vec![format!("rebuilt under displacement {di} (vbsp keeps no brush for it); not compared")],
        });
    }
    // Output order (Source's brushes go to entities out of lump order).
    brush_list.sort_by_key(|r| (r.entity, r.primitive));
    let brush_list_total = brush_list.len();
    brush_list.truncate(list_limit);
    let (entity_list, entity_list_total) = if listing { entity_rows(parsed, orig, &entity_same, list_limit) } else { (Vec::new(), 0) };

    // Face coverage: side polygons of the parsed brushes, by entity and plane.
    // (entity, quantised normal, quantised distance) -> side polygons.
    type PlaneKey = (usize, [i64; 3], i64);
    // A side polygon: its bounds, where it is in `polygons` (entity, primitive, side) and its
    // first corner (for the on-plane test below without reaching into `polygons`: that chase
    // per candidate was most of this function's own time in perf, a 10 MB Quake 3 decompile).
    type Polygons = Vec<(Bounds, [usize; 3], [f64; 3])>;
    // Hashed as grid cells are (`cellhash`: the keys come from the map's own planes; SipHash
    // was 2 % of a 10 MB Quake 3 decompile); only looked up, never iterated.
    let mut by_plane: crate::cellhash::CellMap<PlaneKey, Polygons> = Default::default();
    // `round_nearest` is `round` here (a zero's sign does not reach the integer).
    let key = |p: &Plane| (p.normal.map(|c| geom::round_nearest(c * 1000.0) as i64), geom::round_nearest(p.dist * 2.0) as i64);
    let mut scratch = Vec::new();
    let mut polygons: SidePolygons = Vec::with_capacity(parsed.len());
    for (pi, e) in parsed.iter().enumerate() {
        // Brushes the compiler merged into another entity's model are measured with it.
        let ei = orig.entity_group.get(pi).copied().unwrap_or(pi);
        let mut of_entity = Vec::with_capacity(e.primitives.len());
        for prim in &e.primitives {
            let MapPrimitive::Brush(sides) = prim else {
                of_entity.push(None);
                continue;
            };
            let planes: Vec<Plane> = sides.iter().filter_map(|s| s.plane()).collect();
            if planes.len() != sides.len() {
                of_entity.push(None);
                continue;
            }
            budget.spend((planes.len() * planes.len()) as u64)?;
            // The extraction's polygons where it clipped exactly these planes (a box brush on
            // whole units, mostly): the same function of the same numbers, not clipped twice.
            let reused = orig.clipped.borrow_mut().remove(&(pi, of_entity.len())).filter(|(p, _)| original::same_planes(p, &planes));
            let polys = match reused {
                Some((_, polys)) => polys,
                None => (0..planes.len())
                    .map(|i| {
                        let mut steps = u64::MAX;
                        geom::side_polygon(&planes, i, &mut scratch, &mut steps)
                    })
                    .collect(),
            };
            for (i, w) in polys.iter().enumerate() {
                if w.len() >= 3 {
                    let (n, d) = key(&planes[i]);
                    by_plane.entry((ei, n, d)).or_default().push((bounds(w), [pi, of_entity.len(), i], w[0]));
                }
            }
            of_entity.push(Some((planes, polys)));
        }
        polygons.push(of_entity);
    }
    // Families whose compiler rounds drawn vertices to a grid (Quake 3: q3map2's 1/8 unit)
    // also pair a face the same-plane test leaves partly uncovered with the sides its vertices
    // lie within the snap of (module `snapcover`); the face counts the larger of the two
    // covered areas. The same-plane pass goes first and lists those faces, so that the snap
    // index is built only where they look (`SideGrid::near`); the sums then run in face order.
    let mut uncovered: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    // Every face polygon with its entity, texture and plane: the faces', then the triangles'.
    let face_polygons =
        orig.faces.iter().flat_map(|f| f.polygons.iter().map(move |p| (f.entity, f.texture.as_str(), f.plane, p.as_slice())));
    let triangles =
        orig.triangles.iter().map(|t| (t.entity, orig.triangle_textures.get(t.texture).map_or("", String::as_str), t.plane, &t.pts[..]));
    // Per face: its entity, texture, plane, polygon, area and the same-plane cover.
    let mut faces = Vec::with_capacity(orig.faces.len() + orig.triangles.len());
    // The faces left short, for the snap pairing: index into `faces`, and bounds.
    let mut short: Vec<(usize, Bounds)> = Vec::new();
    // The intersection and its clipping buffer, reused (two allocations a pair before).
    let mut cut = Vec::new();
    for (entity, texture, plane, poly) in face_polygons.chain(triangles) {
        let (n, d) = key(&plane);
        let a = geom::area(poly);
        let fb = bounds(poly);
        let mut covered = 0.0;
        for dd in [d, d.saturating_sub(1), d.saturating_add(1)] {
            let Some(cands) = by_plane.get(&(entity, n, dd)) else { continue };
            budget.spend(cands.len() as u64)?;
            for (cb, [pe, pb, ps], c0) in cands {
                // Most polygons on a shared plane (a floor) are far from this face.
                if !overlaps(&fb, cb) {
                    continue;
                }
                if geom::dot(plane.normal, geom::sub(*c0, geom::scale(plane.normal, plane.dist))).abs() > 0.1 {
                    continue;
                }
                let Some((_, polys)) = &polygons[*pe][*pb] else { continue };
                let c = &polys[*ps];
                geom::intersect_into(poly, c, plane.normal, &mut cut, &mut scratch);
                covered += geom::area(&cut);
            }
        }
        if orig.vertex_snap > 0.0 && covered < a * (1.0 - 1e-9) {
            short.push((faces.len(), fb));
        }
        faces.push((entity, texture, plane, poly, a, covered));
    }
    if !short.is_empty() {
        let sides = snap_sides(&polygons, &orig.entity_group);
        let queries: Vec<(usize, Bounds)> = short.iter().map(|&(f, b)| (faces[f].0, b)).collect();
        let mut grid = snapcover::SideGrid::near(&sides, orig.vertex_snap, budget, &queries)?;
        for &(f, _) in &short {
            let (entity, _, plane, poly, _, covered) = &mut faces[f];
            *covered = covered.max(grid.covered(&sides, *entity, poly, plane.normal, budget)?);
        }
    }
    for &(_, texture, _, _, a, covered) in &faces {
        q.face_area += a;
        q.covered_area += covered.min(a);
        if covered < a * (1.0 - 1e-9) {
            *uncovered.entry(texture).or_default() += a - covered;
        }
    }
    let mut uncovered: Vec<(String, f64)> = uncovered.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    uncovered.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    uncovered.truncate(10);
    q.uncovered_by_texture = uncovered;
    q.face_coverage = pct(q.covered_area, q.face_area);
    q.brush_fidelity = pct(q.brushes_same as f64, q.brushes as f64);
    q.texture_fidelity = pct(q.sides_same_texture as f64, q.sides as f64);
    Ok(Measured {
        quality: q,
        mismatches: mism,
        mismatches_total: total,
        polygons,
        brush_list,
        brush_list_total,
        entity_list,
        entity_list_total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::quake2::lumps::*;
    use crate::build::BspBuilder;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
    fn i32s(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A Quake 2 map from the builder: one 128-unit cube brush with six sides and an edge
    /// bevel, in a one-node tree, and a worldspawn with two pairs.
    fn cube_map() -> Vec<u8> {
        let mut planes = Vec::new();
        for axis in 0..3 {
            for s in [1.0f32, -1.0] {
                let mut n = [0.0f32; 3];
                n[axis] = s;
                planes.extend(f32s(&[n[0], n[1], n[2], 64.0]));
                planes.extend(i32s(&[axis as i32]));
            }
        }
        let r = std::f32::consts::FRAC_1_SQRT_2;
        planes.extend(f32s(&[r, r, 0.0, 64.0 * std::f32::consts::SQRT_2]));
        planes.extend(i32s(&[3]));
        let mut texinfo = f32s(&[1.0, 0.0, 0.0, 8.0, 0.0, -0.5, 0.0, 0.0]);
        texinfo.extend(i32s(&[0x4, 7]));
        let mut name = b"e1u1/floor1_3".to_vec();
        name.resize(32, 0);
        texinfo.extend(name);
        texinfo.extend(i32s(&[-1]));
        let sides: Vec<u8> = (0..7u16).flat_map(|p| [p.to_le_bytes(), 0i16.to_le_bytes()].concat()).collect();
        let mut node = i32s(&[0, -1, -2]);
        node.extend([0u8; 16]);
        let mut leaves = Vec::new();
        for (contents, brushes) in [(1i32, 1u16), (0, 0)] {
            leaves.extend(i32s(&[contents]));
            leaves.extend([0u8; 16]);
            leaves.extend(0u16.to_le_bytes());
            leaves.extend(0u16.to_le_bytes());
            leaves.extend(0u16.to_le_bytes());
            leaves.extend(brushes.to_le_bytes());
        }
        let mut model = f32s(&[-64.0, -64.0, -64.0, 64.0, 64.0, 64.0, 0.0, 0.0, 0.0]);
        model.extend(i32s(&[0, 0, 0]));
        BspBuilder::new(&crate::branches::quake2::lumps::QUAKE2)
            .lump(LUMP_ENTITIES, &b"{\n\"message\" \"a box\"\n\"classname\" \"worldspawn\"\n}\n\0"[..])
            .lump(LUMP_PLANES, planes)
            .lump(LUMP_TEXINFO, texinfo)
            .lump(LUMP_NODES, node)
            .lump(LUMP_LEAVES, leaves)
            .lump(LUMP_LEAF_BRUSHES, 0u16.to_le_bytes().to_vec())
            .lump(LUMP_MODELS, model)
            .lump(LUMP_BRUSHES, i32s(&[0, 7, 1]))
            .lump(LUMP_BRUSH_SIDES, sides)
            .build()
    }

    #[test]
    fn quake2_cube_comes_back() {
        let bytes = cube_map();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
        let r = &d.report;
        assert_eq!((r.entities, r.brushes, r.bevels_dropped), (1, 1, 1), "{}", d.text);
        let q = r.quality.as_ref().unwrap();
        assert_eq!((q.brushes, q.brushes_same, q.sides, q.sides_same_texture, q.sides_with_axes), (1, 1, 6, 6, 6), "{:?}", r.mismatches);
        assert!(q.entities_in_order);
        assert_eq!(q.face_coverage, None);
        // Valve 220 axes: the s row (1, 0, 0) scale 1 offset 8; the t row (0, −0.5, 0) is the
        // axis (0, −1, 0) at scale 2; flags and value after the contents.
        assert!(d.text.contains("e1u1/floor1_3 [ 1 0 0 8 ] [ 0 -1 0 0 ] 0 1 2 1 4 7"), "{}", d.text);
        let back = mapfile::read_map(d.text.as_bytes()).unwrap();
        assert_eq!(back[0].pairs[0], ("message".to_string(), "a box".to_string()));
    }

    /// The report lists the cube brush and the worldspawn, from the comparison the totals count;
    /// a side whose texture differs in what is read back shows in its brush's row.
    #[test]
    fn quake2_cube_rows() {
        let bytes = cube_map();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
        let r = &d.report;
        assert_eq!((r.brush_list_total, r.entity_list_total), (1, 1));
        let row = &r.brush_list[0];
        assert_eq!(
            (row.entity, row.classname.as_str(), row.primitive, row.from, row.lump_index, row.hull),
            (0, "worldspawn", 0, "brush_lump", Some(0), None)
        );
        assert_eq!((row.contents, row.sides, row.sides_same_texture, row.sides_with_axes, row.same), (Some(1), 6, 6, 6, true));
        assert_eq!((row.bevels_dropped, row.notes.len()), (1, 0), "{row:?}");
        let e = &r.entity_list[0];
        assert_eq!(
            (e.index, e.classname.as_str(), e.keys, e.keys_original, e.same, e.brushes, e.patches),
            (0, "worldspawn", 2, Some(2), true, 1, 0)
        );
        // No rows with a zero limit; the same figures.
        let none = decompile(&bsp, &DecompileOptions { list_limit: 0, ..Default::default() }).unwrap();
        assert!(none.report.brush_list.is_empty() && none.report.entity_list.is_empty());
        assert_eq!((none.report.brush_list_total, none.report.quality.as_ref()), (0, r.quality.as_ref()));

        // The output with side 2's texture changed and the entity's pairs too.
        let mut parsed = mapfile::read_map(d.text.as_bytes()).unwrap();
        let MapPrimitive::Brush(sides) = &mut parsed[0].primitives[0] else { panic!() };
        sides[2].texture = "e1u1/other".into();
        parsed[0].pairs.pop();
        let orig = quake::quake2(&bsp, &mut Budget::new(DEFAULT_BUDGET)).unwrap();
        let m = measure_listed(&parsed, &orig, Dialect::Quake2Valve, &mut Budget::new(DEFAULT_BUDGET), 10).unwrap();
        assert_eq!(m.mismatches_total, 2);
        let row = &m.brush_list[0];
        assert_eq!((row.sides, row.sides_same_texture, row.same), (6, 5, true));
        assert_eq!(row.notes, ["side 2: texture differs"]);
        assert_eq!(m.quality.sides_same_texture, 5);
        let e = &m.entity_list[0];
        assert_eq!((e.keys, e.keys_original, e.same), (1, Some(2), false));
    }

    /// The read-back takes the extraction's side polygons only where the planes it reads are
    /// the ones they were clipped from; otherwise it clips what it read. Where it takes them
    /// they equal its own clip of what it read.
    #[test]
    fn read_back_reuses_polygons_of_identical_planes_only() {
        let planes: Vec<Plane> = (0..6)
            .map(|k| {
                let mut normal = [0.0; 3];
                normal[k / 2] = if k % 2 == 0 { 1.0 } else { -1.0 };
                Plane { normal, dist: 32.0 }
            })
            .collect();
        let clipped: Vec<Vec<[f64; 3]>> = (0..6)
            .map(|i| {
                let mut steps = u64::MAX;
                geom::side_polygon(&planes, i, &mut Vec::new(), &mut steps)
            })
            .collect();
        let sides: Vec<mapfile::MapSide> = planes
            .iter()
            .zip(&clipped)
            .map(|(p, w)| mapfile::MapSide {
                points: geom::three_points(p, w),
                texture: "t".into(),
                projection: TexProjection::BrushPrimitive { m: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] },
                flags: None,
            })
            .collect();
        let e = mapfile::MapEntity { pairs: vec![], primitives: vec![MapPrimitive::Brush(sides.clone())] };
        let orig = Original { entities: vec![e.clone()], ..Default::default() };
        let measure = |orig: &Original| {
            let (.., polygons) =
                measure_parsed(std::slice::from_ref(&e), orig, Dialect::Quake3BrushDef, &mut Budget::new(1_000_000)).unwrap();
            polygons[0][0].clone().unwrap().1
        };
        // Marker polygons, to tell taken from clipped.
        let marker = vec![vec![[1.0, 2.0, 3.0]; 3]; 6];
        orig.keep_clipped(0, 0, &sides, planes.clone(), marker.clone());
        assert_eq!(orig.clipped.borrow().len(), 1, "a box on whole units reads back as its planes");
        assert_eq!(measure(&orig), marker);
        assert!(orig.clipped.borrow().is_empty());
        // What it takes is what it would clip (`==`: a zero's sign may differ).
        assert_eq!(measure(&orig), clipped);
        // One plane a unit in the last place away: not kept, and not taken if it were.
        let mut off = planes.clone();
        off[2].dist = f64::from_bits(off[2].dist.to_bits() + 1);
        orig.keep_clipped(0, 0, &sides, off.clone(), marker.clone());
        assert!(orig.clipped.borrow().is_empty());
        orig.clipped.borrow_mut().insert((0, 0), (off, marker));
        assert_eq!(measure(&orig), clipped);
    }

    #[test]
    fn budget_holds() {
        let bytes = cube_map();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let e = decompile(&bsp, &DecompileOptions { budget: 3, ..Default::default() }).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::LimitExceeded { .. }));
    }
}
