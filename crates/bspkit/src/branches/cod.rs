//! Call of Duty 4 `.d3dbsp` (IBSP 22): a list of `{id, length}` entries, data packed in
//! directory order with 4-byte padding. Lumps are kept raw in this module's first version.

use crate::branch::{Branch, Family, HeaderKind};

pub static COD4: Branch = Branch {
    id: "cod4",
    family: Family::Cod,
    title: "Call of Duty 4 (IBSP 22, .d3dbsp)",
    games: "Call of Duty 4: Modern Warfare",
    header: HeaderKind::CodLumpList,
    lumps: &[],
    stats: None,
    check: None,
};
