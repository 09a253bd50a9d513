//! # bspkit
//!
//! Read, write, edit and analyse `.bsp` map files of every engine family that uses them:
//! Quake 1 (BSP29, BSP2, 2PSB, Hexen II), GoldSrc, Quake 2 (IBSP 38, Qbism), Quake 3 and its
//! descendants (IBSP 46/47, RBSP, FBSP), Source (VBSP/PSBV), Respawn (rBSP) and Call of Duty
//! (`.d3dbsp`).
//!
//! Open a map with [`Bsp::open`] (memory-mapped) or [`Bsp::from_bytes`]; the format is detected
//! from the bytes ([`detect`]). Lumps are borrowed slices of the file; record lumps are viewed as
//! slices of `#[repr(C)]` structs with [`Bsp::records`], with no copy and no allocation per record.

pub mod branch;
pub mod branches;
pub mod bsp;
pub mod build;
pub mod bytes;
pub mod check;
pub mod compression;
pub mod decode;
pub mod detect;
pub mod directory;
pub mod edit;
pub mod error;
mod external;
pub mod info;
pub mod lmp;
pub mod lumps;
pub mod scan;
pub mod stats;
pub mod stripper;
pub mod write;

pub use branch::{Branch, Family};
pub use bsp::{Bsp, OpenOptions};
pub use bytes::Endian;
pub use decode::{decode_all, decode_with, DecodeOptions, DecodeReport};
pub use detect::{detect, Detection};
pub use directory::{Header, LumpEntry};
pub use error::{Error, ErrorKind, Result};
