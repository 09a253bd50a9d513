//! Structural and cross-reference checks (`bsp check`). Generic checks run for every branch;
//! each family adds its own, dispatched in one place
//! (`family_checks`).

pub mod problem;

pub use problem::{Checker, Problem};

use crate::branch::{Family, LumpKind};
use crate::branches::{cod, genesis3d, quake1, quake2, quake3, respawn, source};
use crate::bsp::Bsp;

/// Run every check on a map.
pub fn check(bsp: &Bsp) -> Vec<Problem> {
    let mut problems = Vec::new();
    for e in bsp.lumps() {
        let lump = format!("{} ({})", e.index, e.name);
        let bytes = match bsp.lump(e.index) {
            Ok(b) => b,
            Err(err) => {
                problems.push(Problem::new(lump, None, err.kind.to_string()));
                continue;
            }
        };
        if let Some(size) = bsp.record_size(e.index) {
            if bytes.len() % size != 0 {
                problems.push(Problem::new(lump, None, format!("length {} is not a multiple of the record size {size}", bytes.len())));
            }
        } else if let Some(def) = bsp.branch().lumps.get(e.index) {
            if let (LumpKind::Records { .. }, Some(v)) = (def.kind, e.version) {
                if !bytes.is_empty() {
                    problems.push(Problem::new(lump, None, format!("lump version {v} has no known layout; kept raw")));
                }
            }
        }
    }
    if let Err(err) = bsp.entities() {
        problems.push(Problem::new(err.lump.clone().unwrap_or_else(|| "entities".into()), None, err.kind.to_string()));
    }
    family_checks(bsp, &mut problems);
    problems
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
