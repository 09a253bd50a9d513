//! Lump kinds shared by several engine branches.

pub mod bspx;
pub mod detailprops;
pub mod entities;
pub mod gamelump;
pub mod gamelump_map;
pub mod lighting;
pub mod miptex;
pub mod pakfile;
pub mod staticprops;
pub mod visibility;
