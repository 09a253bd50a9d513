//! James Bond 007: Nightfire (Gearbox, 2002; version 42): a GoldSrc-derived map format. The
//! header is GoldSrc's (`i32 version` then 18 `{offset, length}` entries, 148 bytes), the
//! lumps are Nightfire's own: no edges or surfedges and no clip nodes; faces are triangle lists
//! over their own runs of VERTEXES, NORMALS and `u32` INDICES; textures and materials are
//! 64-byte names; texture and lightmap projections are shared records (TEXMATRIX); brushes and
//! brush sides are kept, as in Quake 2.
//!
//! Sources (facts only, no code): a reconstruction of Gearbox's Nightfire map compiler
//! (`bsp_structs.h` and `bspfile.cpp`: the `LUMP_*` numbers, every `d*_t` record, the
//! `sizeof` of each in its `PrintBSPFileSizes` chart with the `MAX_MAP_*` limits, and the
//! writer's 4-byte lump padding; its `WriteFace`: a face's polygon is written as a fan
//! `(0, i - 1, i)` of INDICES counted from the face's first vertex, each vertex with the plane's
//! normal in NORMALS, and faces flagged nodraw, portal, sky or solid get no vertices at all);
//! wfowler1/bsp-decompiler's `v42*` readers (the same leaf
//! layout: mark surfaces before mark brushes); bsp_tool's `gearbox/nightfire.py` lump list
//! (GPL: read for facts). Where they disagree — bsp_tool puts a leaf's mark brushes before its
//! mark surfaces and a brush side's plane before its face — the two others are followed. No
//! shipped map was found to settle it (the open reimplementation nightfire-open keeps its maps
//! in Git LFS). Maps compiled by the reconstruction itself (docs/real-maps.md) read, check,
//! rewrite and export cleanly, which confirms the reading of what it writes; the builder's map
//! (`crate::build::nightfire_room`) carries the tests.
//!
//! By concern: [`lumps`] (slots and descriptor), [`records`], [`check`], [`stats`] (the
//! compiler's size chart), [`mesh`], [`schema`], [`texture`], [`family`], [`lightmap`] (what is
//! known of the lightmaps: the projection's extent; the samples are not decoded).

pub mod check;
pub mod family;
pub mod lightmap;
pub mod lumps;
pub mod mesh;
pub mod records;
pub mod schema;
pub mod stats;
pub mod texture;

pub use lumps::*;
pub use records::*;
