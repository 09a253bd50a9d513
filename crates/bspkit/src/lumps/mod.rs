//! Lump kinds shared by several engine branches.

pub mod entities;
pub mod visibility;
