//! Conversions between platforms and sibling branches (`bsp convert`, `Bsp.convert`).
//!
//! A conversion reads an opened [`Bsp`] and builds the target's bytes, with a [`Report`] that
//! lists every loss (a lump the target cannot hold or that bspkit cannot carry over, records
//! that do not fit, fields dropped or defaulted). [`write()`] refuses a lossy conversion under
//! `strict` (nothing is written: [`ErrorKind::Lossy`]) and otherwise writes through
//! [`crate::write::atomic`] after the result has been reopened and checked.
//!
//! Covered so far: Source console ↔ PC (`PSBV` big-endian ↔ `VBSP` little-endian) within one
//! branch ([`source`]); Source version moves among v19, v20 and v21 branches (from a console map
//! too, through its PC form, in one step) and static prop versions up and down
//! ([`source_version`]); the Quake 1 containers BSP29, `BSP2` and `2PSB` among themselves
//! ([`quake1`]), and Hexen II's model layout with each of them; Titanfall ↔ Titanfall 2
//! ([`respawn`]) and Titanfall PC ↔ Xbox 360 (`rBSP` ↔ `PSBr`, [`respawn_x360`]); the Quake 3 family's IBSP 46, IBSP 47, Quake Live, RBSP and FBSP among
//! themselves ([`quake3`]); Quake 2 IBSP 38 ↔ Qbism and GoldSrc ↔ Blue Shift
//! ([`quake1`]). Every other pair is refused with [`ErrorKind::Unsupported`], whose message
//! says why ([`refusal`]: the pairs covered and what differs between the two lump tables).

pub mod ivp;
pub mod quake1;
pub mod quake3;
pub mod refusal;
pub mod report;
pub mod respawn;
pub mod respawn_x360;
pub mod source;
pub mod source_version;

pub use report::{ConvertOptions, Converted, Loss, LumpAction, Lzma, Report, Side, REPORT_SCHEMA};

use std::path::Path;

use crate::branch::Family;
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};

fn endian_name(e: Endian) -> &'static str {
    match e {
        Endian::Little => "little",
        Endian::Big => "big",
    }
}

/// Convert `bsp` as `opts` says. The result is not checked here ([`write()`] does that).
pub fn convert(bsp: &Bsp, opts: &ConvertOptions) -> Result<Converted> {
    let from = bsp.branch();
    let target_endian = opts.endian.unwrap_or(bsp.endian());
    let from_side = Side { branch: from.id, version: bsp.header().version, endian: endian_name(bsp.endian()) };
    let to_side = Side { branch: opts.to.id, version: bsp.header().version, endian: endian_name(target_endian) };
    let mut report = Report::new(from_side, to_side);
    // The licensee game lump directories (Dark Messiah's, Vindictus's) would be rebuilt in
    // Valve's form by the Source conversions: refused rather than written wrong.
    if from.family == Family::Source && crate::lumps::gamelump::DirForm::of_branch(from.id) != crate::lumps::gamelump::DirForm::Valve {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "{} maps keep their game lump in their own directory form, which the Source conversions do not write",
            from.id
        )))
        .in_file_opt(bsp.path()));
    }
    let bytes = match (from.family, opts.to.family) {
        (Family::Source, Family::Source) if from.id == opts.to.id && opts.static_props.is_none() => {
            source::convert_endian(bsp, target_endian, opts.lzma, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        (Family::Source, Family::Source) => {
            if !source_version::FROM_BRANCHES.contains(&from.id) || !source_version::BRANCHES.contains(&opts.to.id) {
                return Err(Error::new(ErrorKind::Unsupported(refusal::refusal(from, opts.to))).in_file_opt(bsp.path()));
            }
            if target_endian != Endian::Little {
                let how = if opts.endian.is_none() {
                    "add --endian little (a console map goes to its PC form in the same step), then convert the output with --endian big if you want the console form"
                } else {
                    "convert its output with --endian big afterwards"
                };
                return Err(
                    Error::new(ErrorKind::Unsupported(format!("a Source version move writes the PC form; {how}"))).in_file_opt(bsp.path())
                );
            }
            if matches!(opts.lzma, Lzma::On | Lzma::Keep) {
                return Err(Error::new(ErrorKind::Unsupported(
                    "a Source version move writes every lump plain; compress its output with `--to <same branch> --lzma on` afterwards"
                        .into(),
                ))
                .in_file_opt(bsp.path()));
            }
            if bsp.endian() == Endian::Big {
                // A console map: its PC form first (same branch, every lump plain), then the move.
                let pc = pc_form(bsp, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?;
                source_version::convert_version(&pc, opts.to, opts.static_props, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
            } else {
                source_version::convert_version(bsp, opts.to, opts.static_props, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
            }
        }
        (Family::Quake, Family::Quake)
            if from.id != opts.to.id
                && quake1::BRANCHES_ALL.contains(&from.id)
                && quake1::BRANCHES_ALL.contains(&opts.to.id)
                && target_endian == Endian::Little =>
        {
            // BSP29 and Hexen II store the version 29; BSP2 and 2PSB a magic instead.
            report.to.version = if matches!(opts.to.id, "quake1" | "hexen2") { 29 } else { 0 };
            quake1::convert_container(bsp, opts.to, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        (Family::GoldSrc, Family::GoldSrc) if from.id != opts.to.id && target_endian == Endian::Little => {
            quake1::swap_first_entries(bsp, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        (Family::Quake2, Family::Quake2)
            if from.id != opts.to.id
                && quake1::BRANCHES_QUAKE2.contains(&from.id)
                && quake1::BRANCHES_QUAKE2.contains(&opts.to.id)
                && target_endian == Endian::Little =>
        {
            quake1::convert_container(bsp, opts.to, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        (Family::Quake3, Family::Quake3)
            if from.id != opts.to.id
                && quake3::BRANCHES.contains(&from.id)
                && quake3::BRANCHES.contains(&opts.to.id)
                && target_endian == Endian::Little =>
        {
            report.to.version = quake3::version(opts.to.id);
            quake3::convert_family(bsp, opts.to, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        (Family::Respawn, Family::Respawn)
            if respawn_x360::is_pair(from.id, opts.to.id)
                && (opts.endian.is_none() || opts.endian == Some(respawn_x360::endian_of(opts.to.id))) =>
        {
            // The console form is its own branch: `--to` says the byte order (`--endian` may agree).
            report.to.endian = endian_name(respawn_x360::endian_of(opts.to.id));
            respawn_x360::convert_platform(bsp, opts.to, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        (Family::Respawn, Family::Respawn) if from.id == "titanfall_x360" || opts.to.id == "titanfall_x360" => {
            let how = match (from.id, opts.to.id) {
                ("titanfall_x360", "titanfall_x360") => "is not done: the map is already the console form".to_string(),
                ("titanfall_x360", "titanfall") => {
                    "is not done with --endian big: titanfall is little-endian (leave out --endian)".to_string()
                }
                ("titanfall", "titanfall_x360") => {
                    "is not done with --endian little: titanfall_x360 is big-endian (leave out --endian)".to_string()
                }
                ("titanfall_x360", to) => format!("is not done in one step: convert to titanfall (its PC form) first, then that to {to}"),
                (from, _) => format!("is not done in one step: convert {from} to titanfall first, then that to titanfall_x360"),
            };
            return Err(Error::new(ErrorKind::Unsupported(format!("{} → {} {how}", from.id, opts.to.id))).in_file_opt(bsp.path()));
        }
        (Family::Respawn, Family::Respawn) if from.id == "titanfall" && opts.to.id == "titanfall" && target_endian == Endian::Big => {
            return Err(Error::new(ErrorKind::Unsupported(
                "titanfall's console form is its own branch: convert with --to titanfall_x360".into(),
            ))
            .in_file_opt(bsp.path()))
        }
        (Family::Respawn, Family::Respawn) if from.id == "titanfall" && opts.to.id == "titanfall2" && target_endian == Endian::Little => {
            report.to.version = 37;
            respawn::titanfall_to_titanfall2(bsp, opts.to, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        (Family::Respawn, Family::Respawn) if from.id == "titanfall2" && opts.to.id == "titanfall" && target_endian == Endian::Little => {
            report.to.version = 29;
            respawn::titanfall2_to_titanfall(bsp, opts.to, &mut report).map_err(|e| e.in_file_opt(bsp.path()))?
        }
        _ if opts.endian.is_some_and(|e| e != Endian::Little) && opts.to.family != Family::Source => {
            return Err(Error::new(ErrorKind::Unsupported(format!("{} has no big-endian form", opts.to.id))))
        }
        _ => return Err(Error::new(ErrorKind::Unsupported(refusal::refusal(from, opts.to))).in_file_opt(bsp.path())),
    };
    report.size = bytes.len() as u64;
    Ok(Converted { bytes, report })
}

/// A big-endian Source map as its PC form (`--endian little`, LZMA `auto`: every lump plain), opened as the same branch: the first half of a
/// console map's version move. Its losses go into `report` (the lump actions are the move's).
fn pc_form(bsp: &Bsp, report: &mut Report) -> Result<Bsp<'static>> {
    let mut first = report.clone();
    let pc = source::convert_endian(bsp, Endian::Little, Lzma::Auto, &mut first)?;
    report.lossless &= first.lossless;
    report.losses.extend(first.losses);
    let opts = crate::bsp::OpenOptions { branch: Some(bsp.branch().id.to_string()), ..bsp.options().clone() };
    Bsp::from_vec_with(pc, &opts).map_err(|e| Error::malformed(format!("the PC form of the console map does not read back: {e}")))
}

/// Convert and check, ready to write: with `strict`, a lossy conversion is refused
/// ([`ErrorKind::Lossy`]); the result must reopen as the target branch with every lump
/// readable, and `check` must find no warning or error the source lacks
/// ([`ErrorKind::NewProblems`]). A new note is a loss of kind `target_note`, not a refusal:
/// notes say how engines differ on a valid map (a Jedi Academy global fog, which Raven's
/// renderer draws, taken to Quake 3, whose stock engine refuses it), which is what the target
/// engine will do with the converted bytes, not a fault in them.
pub fn prepare(bsp: &Bsp, opts: &ConvertOptions, strict: bool) -> Result<Converted> {
    let mut c = convert(bsp, opts)?;
    let before: Vec<String> = crate::check::check(bsp).iter().map(|p| p.to_string()).collect();
    let new = crate::write::new_problem_list_in(&c.bytes, opts.to.id, &before)
        .map_err(|e| Error::malformed(format!("the converted map does not read back: {e}")))?;
    let (notes, faults): (Vec<_>, Vec<_>) = new.into_iter().partition(|p| p.severity == crate::check::Severity::Note);
    if !faults.is_empty() {
        return Err(Error::new(ErrorKind::NewProblems(faults.iter().map(|p| p.to_string()).collect())));
    }
    for p in &notes {
        c.report.loss(
            p.index,
            Some(p.lump.clone()),
            "target_note",
            format!("the converted map has a note the source lacks: {}", p.message),
        );
    }
    refuse_lossy(&c.report, strict)?;
    Ok(c)
}

/// [`prepare`], then [`write_prepared`] (nothing is written on any error).
pub fn write(bsp: &Bsp, opts: &ConvertOptions, path: &Path, strict: bool) -> Result<Report> {
    let c = prepare(bsp, opts, strict).map_err(|e| e.in_file_opt(bsp.path()))?;
    write_prepared(bsp, &c, opts.to.id, path)?;
    Ok(c.report)
}

/// Write a conversion of `bsp` to `path` through [`crate::write::atomic`]; a Respawn map read
/// from a file with `.ent` partitions beside it gets them copied beside `path` under its name
/// ([`crate::mapset::write_converted`]), since the converted map names them.
pub fn write_prepared(bsp: &Bsp, c: &Converted, to: &str, path: &Path) -> Result<()> {
    let respawn_set = bsp.family() == Family::Respawn
        && bsp.path().is_some()
        && !crate::write::atomic::is_stdout(path)
        && !crate::mapset::MapSet::of(bsp)?.partitions.is_empty();
    if respawn_set {
        crate::mapset::write_converted(bsp, &c.bytes, to, path)?;
    } else {
        crate::write::write_file(path, &c.bytes, &crate::write::atomic::WriteOptions::default())?;
    }
    Ok(())
}

/// [`ErrorKind::Lossy`] when `strict` and the report lists losses.
pub fn refuse_lossy(report: &Report, strict: bool) -> Result<()> {
    if strict && !report.lossless {
        return Err(Error::new(ErrorKind::Lossy(report.losses.iter().map(|l| l.to_string()).collect())));
    }
    Ok(())
}
