//! # bspkit
//!
//! Read, write, edit and analyse `.bsp` map files of every engine family that uses them:
//! Quake 1 (BSP29, BSP2, 2PSB, Hexen II), GoldSrc, Quake 2 and its descendants (IBSP 38, Qbism,
//! SiN, Soldier of Fortune, Daikatana), Quake 3 and its descendants (IBSP 46/47, RBSP, FBSP),
//! Source (VBSP/PSBV), Respawn (rBSP), Call of Duty (`.d3dbsp`) and Genesis3D (`GBSP` chunks).
//!
//! Open a map with [`Bsp::open`] (memory-mapped) or [`Bsp::from_bytes`]; the format is detected
//! from the bytes ([`detect()`]). Lumps are borrowed slices of the file; record lumps are viewed as
//! slices of `#[repr(C)]` structs with [`Bsp::records`], with no copy and no allocation per record.
//! Edits go through [`edit::Editor`], which writes back every untouched byte unchanged.
//!
//! ```
//! use bspkit::branches::quake1::{Plane, LUMP_PLANES};
//! use bspkit::{edit::Editor, lumps::entities::EditEntity, Bsp};
//!
//! # fn main() -> bspkit::Result<()> {
//! // A small Quake map written by bspkit's own builder (any `.bsp` works with `Bsp::open`).
//! let bytes = bspkit::build::sample_quake1();
//! let bsp = Bsp::from_bytes(&bytes)?;
//! assert_eq!(bsp.branch().id, "quake1");
//! for lump in bsp.lumps() {
//!     println!("{:2} {:<12} {:>6} bytes", lump.index, lump.name, lump.length);
//! }
//! // Typed, zero-copy records.
//! let planes: &[Plane] = bsp.records(LUMP_PLANES)?;
//! assert!(!planes.is_empty());
//!
//! // Unchanged, the writer gives back the same bytes.
//! assert_eq!(Editor::new(&bsp)?.to_bytes()?, bytes);
//!
//! // Add an entity and write the map again.
//! let mut ed = Editor::new(&bsp)?;
//! let mut doc = ed.entities()?;
//! let before = doc.len();
//! doc.push(EditEntity::new([("classname", "info_null"), ("targetname", "spot")])?);
//! ed.set_entities(&doc)?;
//! let edited = ed.to_bytes()?;
//! assert_eq!(Bsp::from_bytes(&edited)?.entities()?.iter().count(), before + 1);
//! # Ok(())
//! # }
//! ```

pub mod assets;
pub mod branch;
pub mod branches;
pub mod bsp;
pub mod build;
pub mod bytes;
pub mod catalog;
mod cellhash;
pub mod check;
pub mod compression;
pub mod convert;
pub mod decode;
pub mod decompile;
pub mod detect;
pub mod directory;
pub mod edit;
pub mod error;
pub mod export;
mod external;
pub mod fsio;
pub mod info;
pub mod lightmap;
pub mod lmp;
pub mod lumps;
pub mod mapset;
pub mod mesh;
pub mod rename;
pub mod render;
pub mod scan;
pub mod schema;
pub mod stats;
pub mod stripper;
pub mod texture;
pub mod tree;
mod vec3;
pub mod view;
pub mod write;

pub use branch::{Branch, Family};
pub use bsp::{Bsp, OpenOptions, MAP_READ_LIMIT};
pub use bytes::Endian;
pub use decode::{decode_all, decode_with, DecodeOptions, DecodeReport};
pub use detect::{detect, Detection};
pub use directory::{Header, LumpEntry};
pub use error::{Error, ErrorKind, Result};
