//! Respawn Entertainment rBSP (Titanfall, Titanfall 2, Apex Legends): header and 128-slot
//! lump directory (open_questions.md B6). Lumps are kept raw in this module's first version.

use crate::branch::{Branch, Family, HeaderKind};

pub static TITANFALL: Branch = Branch {
    id: "titanfall",
    family: Family::Respawn,
    title: "Respawn rBSP 29 (Titanfall)",
    games: "Titanfall",
    header: HeaderKind::Respawn,
    lumps: &[],
    stats: None,
    check: None,
};

pub static TITANFALL2: Branch = Branch {
    id: "titanfall2",
    family: Family::Respawn,
    title: "Respawn rBSP 36/37 (Titanfall 2)",
    games: "Titanfall 2, Titanfall 2 tech test",
    header: HeaderKind::Respawn,
    lumps: &[],
    stats: None,
    check: None,
};

pub static APEX: Branch = Branch {
    id: "apex",
    family: Family::Respawn,
    title: "Respawn rBSP 47-52 (Apex Legends)",
    games: "Apex Legends",
    header: HeaderKind::Respawn,
    lumps: &[],
    stats: None,
    check: None,
};

pub static BRANCHES: &[&Branch] = &[&TITANFALL, &TITANFALL2, &APEX];

pub fn select(version: u32) -> &'static Branch {
    match version {
        29 => &TITANFALL,
        36 | 37 => &TITANFALL2,
        _ => &APEX,
    }
}
