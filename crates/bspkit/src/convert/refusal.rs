//! Why a pair of branches is refused: the message of [`ErrorKind::Unsupported`] names the
//! pairs bspkit converts in the source's family and what differs between the two branches'
//! lump tables (read from the branch descriptors, so it stays true as tables change).
//!
//! [`ErrorKind::Unsupported`]: crate::error::ErrorKind::Unsupported

use crate::branch::{Branch, Family, LumpKind};
use crate::convert::{quake1, quake3, source_version};

/// The branches a family's conversions read and write, as `(from, to)`; empty where bspkit
/// converts nothing (besides Source's console ↔ PC within one branch, which is not listed).
pub fn covered(family: Family) -> (&'static [&'static str], &'static [&'static str]) {
    match family {
        Family::Source => (source_version::FROM_BRANCHES, source_version::BRANCHES),
        Family::Quake => (&quake1::BRANCHES_ALL, &quake1::BRANCHES_ALL),
        Family::GoldSrc => (&["goldsrc", "blueshift"], &["goldsrc", "blueshift"]),
        Family::Quake2 => (&quake1::BRANCHES_QUAKE2, &quake1::BRANCHES_QUAKE2),
        Family::Quake3 => (&quake3::BRANCHES, &quake3::BRANCHES),
        Family::Respawn => (&["titanfall", "titanfall2"], &["titanfall", "titanfall2"]),
        _ => (&[], &[]),
    }
}

/// What this conversion would have to do that bspkit does not, for `from` → `to` (a pair
/// [`crate::convert::convert`] refuses).
pub fn refusal(from: &Branch, to: &Branch) -> String {
    if from.family != to.family {
        return format!(
            "conversion from {} ({}) to {} ({}): they are different families ({:?} and {:?}), with different records and trees; bspkit converts within a family only",
            from.id, from.title, to.id, to.title, from.family, to.family
        );
    }
    let (reads, writes) = covered(from.family);
    if from.id == to.id {
        return if from.family == Family::Source {
            format!(
                "{} maps change platform (--endian) but not static prop version: that is done within {} only",
                from.id,
                writes.join(", ")
            )
        } else {
            format!("the map is already {} ({}): nothing to convert", from.id, from.title)
        };
    }
    let set = if reads.is_empty() {
        format!("bspkit converts no {:?}-family branch to another", from.family)
    } else if reads == writes {
        format!("bspkit converts {:?}-family maps among {} only", from.family, writes.join(", "))
    } else {
        format!("bspkit's {:?}-family conversions read {} and write {} only", from.family, reads.join(", "), writes.join(", "))
    };
    let outside: Vec<String> = [(from, reads), (to, writes)]
        .iter()
        .filter(|(b, list)| !list.contains(&b.id))
        .map(|(b, _)| format!("{} ({})", b.id, b.title))
        .collect();
    let differs = table_differences(from, to);
    let what = if differs.is_empty() {
        String::new()
    } else {
        format!("; the two lump tables differ in {}, which would have to be mapped field by field", differs)
    };
    let header = if std::mem::discriminant(&from.header) != std::mem::discriminant(&to.header) {
        "; their headers are of different forms"
    } else {
        ""
    };
    format!(
        "conversion from {} to {} is not done: {}, and {} {} outside that{}{}",
        from.id,
        to.id,
        set,
        outside.join(" and "),
        if outside.len() == 1 { "is" } else { "are" },
        what,
        header
    )
}

/// The record lumps whose sizes differ (by slot, both named the same) and the slots named
/// differently, e.g. `FACES (72 vs 56 bytes), 3 slots named differently`.
fn table_differences(a: &Branch, b: &Branch) -> String {
    let sizes = |k: LumpKind| match k {
        LumpKind::Records { sizes } => {
            let mut s: Vec<usize> = sizes.iter().map(|&(_, n)| n).collect();
            s.sort_unstable();
            s.dedup();
            Some(s)
        }
        _ => None,
    };
    let show = |s: &[usize]| s.iter().map(|n| n.to_string()).collect::<Vec<_>>().join("/");
    let (mut layouts, mut renamed) = (Vec::new(), 0usize);
    for (x, y) in a.lumps.iter().zip(b.lumps) {
        if !x.name.eq_ignore_ascii_case(y.name) {
            renamed += 1;
            continue;
        }
        if let (Some(p), Some(q)) = (sizes(x.kind), sizes(y.kind)) {
            if p != q {
                layouts.push(format!("{} ({} vs {} bytes)", x.name, show(&p), show(&q)));
            }
        }
    }
    renamed += a.lumps.len().abs_diff(b.lumps.len());
    let mut parts = Vec::new();
    if !layouts.is_empty() {
        let n = layouts.len();
        let mut l = layouts.into_iter().take(4).collect::<Vec<_>>().join(", ");
        if n > 4 {
            l.push_str(&format!(" and {} more record layout(s)", n - 4));
        }
        parts.push(l);
    }
    if renamed > 0 {
        parts.push(format!("{renamed} slot(s) that hold different lumps"));
    }
    parts.join(", ")
}
