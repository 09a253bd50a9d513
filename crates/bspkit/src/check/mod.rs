//! Structural and cross-reference checks (`bsp check`). Generic checks run for every branch;
//! each family adds its own, through its [`FamilyOps`] value
//! ([`crate::branches::any::of`]).

pub mod problem;

pub use problem::{group, Checker, Code, Counts, Group, Problem, Severity};

use crate::branch::LumpKind;
use crate::branches::any;
use crate::branches::ops::FamilyOps;
use crate::bsp::Bsp;

/// Options of [`check_with`]; [`check`] uses the defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Decompress every compressed lump and report one whose stream does not decode
    /// ([`Code::LUMP_UNREADABLE`]), as `bsp check --verify-lzma` does. Off by default: a
    /// compressed lump whose content no check reads (Source's lightmap samples and leaf ambient
    /// lighting, which the checks only measure against the offsets and counts that point into
    /// them) is then validated from its LZMA header alone
    /// ([`crate::compression::check_header`]: magic, sizes, properties), not decoded. Lumps a
    /// check reads are always decoded, and reported when they do not decode.
    pub verify_lzma: bool,
}

/// Run every check on a map, with the default [`CheckOptions`].
pub fn check(bsp: &Bsp) -> Vec<Problem> {
    check_with(bsp, &CheckOptions::default())
}

/// Run every check on a map.
pub fn check_with(bsp: &Bsp, opts: &CheckOptions) -> Vec<Problem> {
    check_inner(bsp, opts, None)
}

/// [`check_with`] given the map's entity lump as [`Bsp::entities`] parsed it, for a caller that
/// reads the entities too (`bsp scan --out` writes every entity as a row): the lump is parsed
/// once. The same problems as [`check_with`].
pub fn check_parsed(bsp: &Bsp, opts: &CheckOptions, ents: &crate::error::Result<crate::lumps::entities::Entities<'_>>) -> Vec<Problem> {
    check_inner(bsp, opts, Some(ents))
}

fn check_inner(bsp: &Bsp, opts: &CheckOptions, ents: Option<&crate::error::Result<crate::lumps::entities::Entities<'_>>>) -> Vec<Problem> {
    let family = any::of(bsp.family());
    let reads = family.check_reads(bsp.branch());
    let entity_lump = bsp.entities_index();
    let decode = |index: usize| opts.verify_lzma || Some(index) == entity_lump || reads.map_or(true, |r| r.contains(&index));
    // The lumps read below are decoded first, in parallel (largest first).
    bsp.decompress_lumps(decode);
    let mut problems = Vec::new();
    for e in bsp.lumps() {
        let lump = format!("{} ({})", e.index, e.name);
        // A lump no check reads is only measured: for an LZMA one, its header's output size.
        let len = if decode(e.index) { bsp.lump(e.index).map(|b| b.len() as u64) } else { bsp.lump_len(e.index) };
        let len = match len {
            Ok(n) => n,
            Err(err) => {
                problems.push(Problem::error(Code::LUMP_UNREADABLE, lump, None, err.kind.to_string()));
                continue;
            }
        };
        if let Some(size) = bsp.record_size(e.index) {
            if len % size as u64 != 0 {
                problems.push(Problem::error(
                    Code::BAD_LUMP_LENGTH,
                    lump,
                    None,
                    format!("length {len} is not a multiple of the record size {size}"),
                ));
            }
        } else if let Some(def) = bsp.branch().lumps.get(e.index) {
            if let (LumpKind::Records { .. }, Some(v)) = (def.kind, e.version) {
                if len > 0 {
                    problems.push(Problem::note(
                        Code::UNKNOWN_LUMP_VERSION,
                        lump,
                        None,
                        format!("lump version {v} has no known layout; kept raw"),
                    ));
                }
            }
        }
    }
    match ents {
        Some(ents) => entities(bsp, ents, family, &mut problems),
        None => entities(bsp, &bsp.entities(), family, &mut problems),
    }
    family.check(bsp, &mut problems);
    orphan_temps(bsp, &mut problems);
    interrupted_set(bsp, &mut problems);
    problems
}

/// Files left beside the map by a set write cut off by a crash (crate::mapset): listed in the
/// set's journal as no part of the set on disk, still present. bspkit leaves them out when it
/// opens the map, but the game reads every `.bsp_lump` beside the map: an error.
fn interrupted_set(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Some(path) = bsp.path() else { return };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let Some(journal) = crate::fsio::SetJournal::find(dir, path) else { return };
    let journal_name = journal.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for name in journal.not_in_set().iter().filter(|n| std::fs::symlink_metadata(dir.join(n)).is_ok_and(|m| m.is_file())) {
        let what = if journal.switched { "a file of the set before the write" } else { "a file the write created before its switch" };
        problems.push(Problem::error(
            Code::INTERRUPTED_SET,
            "(file)",
            None,
            format!(
                "{name}: {what}, left by a set write cut off by a crash (journal {journal_name}); the game would still read it, bspkit does not; the next write of the map removes it (`bsp rewrite MAP --in-place`)"
            ),
        ));
    }
    for name in journal.replaced_before_switch(dir) {
        problems.push(Problem::error(
            Code::INTERRUPTED_SET,
            "(file)",
            None,
            format!(
                "{name}: replaced by a set write cut off by a crash before the .bsp was (journal {journal_name}): the set mixes the new file with the old .bsp; the next write of the map makes it whole (`bsp rewrite MAP --in-place`)"
            ),
        ));
    }
}

/// Temporaries beside the map file left by a write killed before its rename (`kill -9`, a
/// crash): for the map itself and for the files of its set (`NAME.bsp.0000.bsp_lump`).
fn orphan_temps(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Some(path) = bsp.path() else { return };
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().map(|n| n.to_string_lossy().into_owned())) else { return };
    let dir = if dir.as_os_str().is_empty() { std::path::Path::new(".") } else { dir };
    let set = format!("{name}.");
    for t in crate::fsio::orphan_temps(dir, |t| t == name || t.starts_with(&set)) {
        let file = t.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        problems.push(Problem::warning(
            Code::ORPHAN_TEMP,
            "(file)",
            None,
            format!(
                "{file}: a temporary file of a write of {} by process {} (no longer running), killed before its rename; {} is as before that write; the next write of it removes the temporary (or delete it)",
                t.target, t.pid, t.target
            ),
        ));
    }
}

/// The entity lump parses, holds at least one entity, and the first is `worldspawn` (every
/// family's server spawns the world from the first entity). Genesis3D's first entity is the
/// world too, but GBSPLib writes it without a classname (its keys are the world's: `TextureLib`,
/// `Sky*`), so there only its presence is checked ([`FamilyOps::world_needs_classname`]).
fn entities(
    bsp: &Bsp,
    ents: &crate::error::Result<crate::lumps::entities::Entities<'_>>,
    family: &dyn FamilyOps,
    problems: &mut Vec<Problem>,
) {
    let Some(index) = bsp.entities_index() else { return };
    let lump = bsp.entry(index).map(|e| format!("{} ({})", e.index, e.name)).unwrap_or_else(|| "entities".into());
    match ents {
        Err(err) => problems.push(Problem::error(Code::ENTITIES_UNREADABLE, err.lump.clone().unwrap_or(lump), None, err.kind.to_string())),
        Ok(ents) => match ents.list.first() {
            None => problems.push(Problem::error(Code::NO_ENTITIES, lump, None, "the entity lump holds no entity (not even worldspawn)")),
            Some(first) => {
                let class = first.classname();
                let world_needs_class = family.world_needs_classname();
                if world_needs_class && !class.as_deref().is_some_and(|c| c.eq_ignore_ascii_case("worldspawn")) {
                    let seen = class.map(|c| format!("{c:?}")).unwrap_or_else(|| "no classname".into());
                    problems.push(Problem::error(
                        Code::NO_WORLDSPAWN,
                        lump,
                        Some(0),
                        format!("the first entity is {seen}, not worldspawn"),
                    ));
                }
            }
        },
    }
}
