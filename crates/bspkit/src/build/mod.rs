//! Builders that write `.bsp` files from lumps, for every header form. Tests use them to make
//! synthetic maps of branches that have no real file in the corpus; `bsp` uses them for the
//! committed sample map.

pub mod apex;
pub mod builder;
pub mod cod12;
pub mod cso2;
pub mod dark_messiah;
pub mod nightfire;
pub mod quake64;
pub mod ritual;
pub mod source_forks;
pub mod source_xbox;
pub mod titanfall_x360;
pub mod vindictus;

pub use apex::{apex_lit_room, apex_room, apex_room_with, apex_sky_pattern, ApexPage};
pub use builder::{default_version, BspBuilder};
pub use cod12::{cod12_room, cod12_room_lit, cod12_texel};
pub use cso2::{cso2_from_valve, cso2_map, Cso2Form};
pub use dark_messiah::{dark_messiah_from_valve, dark_messiah_map};
pub use nightfire::nightfire_room;
pub use quake64::{quake64_from_bsp29, quake64_room};
pub use ritual::ritual_room;
pub use source_forks::source_fork_map;
pub use source_xbox::source_xbox_map;
pub use titanfall_x360::{titanfall_room, titanfall_x360_from, titanfall_x360_map};
pub use vindictus::{vindictus_from_valve, vindictus_map, VindictusForm};

/// A small, valid Quake 1 (BSP29) map: a closed box room with a player start
/// (see [`crate::branches::quake1::room`]).
pub fn sample_quake1() -> Vec<u8> {
    crate::branches::quake1::room::box_room(&crate::branches::quake1::lumps::QUAKE1)
}

/// The sample maps committed under `samples/`, by file name.
pub fn samples() -> Vec<(&'static str, Vec<u8>)> {
    vec![("sample_quake1.bsp", sample_quake1())]
}
