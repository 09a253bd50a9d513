//! Structural and cross-reference checks (`bsp check`). Generic checks run for every branch;
//! each family adds its own, dispatched in one place
//! (`family_checks`).

pub mod problem;

pub use problem::{group, Checker, Code, Counts, Group, Problem, Severity};

use crate::branch::{Family, LumpKind};
use crate::branches::{cod, genesis3d, quake1, quake2, quake3, respawn, source};
use crate::bsp::Bsp;

/// Run every check on a map.
pub fn check(bsp: &Bsp) -> Vec<Problem> {
    // Every lump is read below: decode the compressed ones in parallel first.
    bsp.decompress_all();
    let mut problems = Vec::new();
    for e in bsp.lumps() {
        let lump = format!("{} ({})", e.index, e.name);
        let bytes = match bsp.lump(e.index) {
            Ok(b) => b,
            Err(err) => {
                problems.push(Problem::error(Code::LUMP_UNREADABLE, lump, None, err.kind.to_string()));
                continue;
            }
        };
        if let Some(size) = bsp.record_size(e.index) {
            if bytes.len() % size != 0 {
                problems.push(Problem::error(
                    Code::BAD_LUMP_LENGTH,
                    lump,
                    None,
                    format!("length {} is not a multiple of the record size {size}", bytes.len()),
                ));
            }
        } else if let Some(def) = bsp.branch().lumps.get(e.index) {
            if let (LumpKind::Records { .. }, Some(v)) = (def.kind, e.version) {
                if !bytes.is_empty() {
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
    entities(bsp, &mut problems);
    family_checks(bsp, &mut problems);
    problems
}

/// The entity lump parses, holds at least one entity, and the first is `worldspawn` (every
/// family's server spawns the world from the first entity). Genesis3D's first entity is the
/// world too, but GBSPLib writes it without a classname (its keys are the world's: `TextureLib`,
/// `Sky*`), so there only its presence is checked.
fn entities(bsp: &Bsp, problems: &mut Vec<Problem>) {
    let Some(index) = bsp.entities_index() else { return };
    let lump = bsp.entry(index).map(|e| format!("{} ({})", e.index, e.name)).unwrap_or_else(|| "entities".into());
    match bsp.entities() {
        Err(err) => problems.push(Problem::error(Code::ENTITIES_UNREADABLE, err.lump.clone().unwrap_or(lump), None, err.kind.to_string())),
        Ok(ents) => match ents.list.first() {
            None => problems.push(Problem::error(Code::NO_ENTITIES, lump, None, "the entity lump holds no entity (not even worldspawn)")),
            Some(first) => {
                let class = first.classname();
                let world_needs_class = bsp.family() != Family::Genesis3D;
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

/// The family's own cross-reference checks: the one place that maps a family to its checks.
fn family_checks(bsp: &Bsp, problems: &mut Vec<Problem>) {
    match bsp.family() {
        Family::Quake | Family::GoldSrc => quake1::check::check(bsp, problems),
        Family::Quake2 => quake2::check::check(bsp, problems),
        Family::Quake3 => quake3::check::check(bsp, problems),
        Family::Source => source::check::check(bsp, problems),
        Family::Respawn => respawn::check::check(bsp, problems),
        Family::Cod => cod::check::check(bsp, problems),
        Family::Genesis3D => genesis3d::check::check(bsp, problems),
    }
}
