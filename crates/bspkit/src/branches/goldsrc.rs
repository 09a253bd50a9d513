//! GoldSrc BSP30 and the Blue Shift variant (quake_family.md Part B).
//!
//! GoldSrc keeps Quake's BSP29 record layouts (quake_family.md C.2), so the records, the typed
//! view, the `bspinfo` rows and the checks are those of [`crate::branches::quake1`] with the
//! [`Bsp29`] record set. The differences are in the data: lighting is RGB (3 bytes per luxel)
//! and embedded textures carry a palette, which [`View::textures`](crate::branches::quake1::View::textures)
//! reads for this family. Blue Shift swaps directory entries 0 and 1; the view finds lumps by
//! name, so it reads both orders.

use crate::branch::{Branch, CheckFn, Family, HeaderKind, LumpDef, StatsFn};
use crate::branches::quake1::{check, quake_lumps, stats, Bsp29};

/// Typed access to a GoldSrc or Blue Shift map.
pub type View<'a> = crate::branches::quake1::View<'a, Bsp29>;

pub static GOLDSRC: Branch = Branch {
    id: "goldsrc",
    family: Family::GoldSrc,
    title: "GoldSrc (BSP30)",
    games: "Half-Life, Counter-Strike 1.x, Team Fortress Classic and other GoldSrc games",
    header: HeaderKind::Quake { magic: None },
    lumps: quake_lumps!(node: 24, face: 20, clipnode: 8, leaf: 28, mark: 2, edge: 4, model: 64),
    stats: Some(stats::<Bsp29> as StatsFn),
    check: Some(check::<Bsp29> as CheckFn),
};

/// Blue Shift stores the planes entry first and the entities entry second.
pub static BLUESHIFT: Branch = Branch {
    id: "blueshift",
    family: Family::GoldSrc,
    title: "GoldSrc Blue Shift (BSP30, entries 0 and 1 swapped)",
    games: "Half-Life: Blue Shift",
    header: HeaderKind::Quake { magic: None },
    lumps: &[
        LumpDef::records("PLANES", 20),
        LumpDef::entities("ENTITIES"),
        LumpDef::special("TEXTURES"),
        LumpDef::records("VERTICES", 12),
        LumpDef::special("VISIBILITY"),
        LumpDef::records("NODES", 24),
        LumpDef::records("TEXINFO", 40),
        LumpDef::records("FACES", 20),
        LumpDef::raw("LIGHTING"),
        LumpDef::records("CLIPNODES", 8),
        LumpDef::records("LEAVES", 28),
        LumpDef::records("MARKSURFACES", 2),
        LumpDef::records("EDGES", 4),
        LumpDef::records("SURFEDGES", 4),
        LumpDef::records("MODELS", 64),
    ],
    stats: Some(stats::<Bsp29> as StatsFn),
    check: Some(check::<Bsp29> as CheckFn),
};
