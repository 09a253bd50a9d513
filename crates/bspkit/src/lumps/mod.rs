//! Lump kinds shared by several engine branches.

pub mod bspx;
pub mod entities;
pub mod miptex;
pub mod visibility;
