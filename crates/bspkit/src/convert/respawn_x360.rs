//! Titanfall PC (`rBSP` 29, little-endian) ↔ Titanfall on Xbox 360 (`PSBr` 29, big-endian):
//! one lump table, one set of record layouts, two byte orders
//! ([`crate::branches::respawn::lumps::TITANFALL_X360`]; bsp_tool 0.7.0
//! `respawn/titanfall_x360.py`, facts only). The two conversions are each other's inverse byte
//! for byte.
//!
//! - The header: the magic's bytes reversed (`rBSP` ↔ `PSBr`), every later word (version,
//!   revision, 127, each lump's offset, length, version and fourth word) swapped.
//! - Every lump with a record layout ([`crate::schema::lump_schema`]): each field wider than a
//!   byte swapped as the whole integer or float it is stored in (`swapped`). A bitfield inside a
//!   word (`CM_PRIMITIVES`' type in the top 8 bits) stays where the word's value puts it.
//! - The game lump: its directory (count; id, flags, version, offset, length) and the `sprp`
//!   child of version 12 (model name count, leaf count and leaves, prop count and its two
//!   words, each prop's fields) swapped; the child offsets keep their values (the lump keeps
//!   its place). Another child, or `sprp` of another version or LZMA-compressed, has no layout
//!   here: copied as it is and reported `kept_unconverted`.
//! - Text and archives are copied: entity text, `ENTITY_PARTITIONS`, texture names, and the
//!   pakfile (a Zip archive, little-endian on every platform).
//! - Lightmap texels (`LIGHTMAP_DATA_SKY`: RGBA8 pages, bytes with nothing to swap;
//!   `LIGHTMAP_DATA_REAL_TIME_LIGHTS`: per-light masks no bspkit code reads): the console's texel
//!   format (tiling, compression) is not known. They are kept as bytes and reported `kept_unconverted`, not dropped: dropping them
//!   would unlight the map for every reader and break the round trip, and a reader of the
//!   console form gets exactly the PC texels.
//! - The physics lumps (`PHYSICS_COLLIDE`, `PHYSICS_LEVEL`, `PHYSICS_TRIANGLES`) and any non-empty
//!   unused or reserved slot: no layout known here; kept as bytes and reported
//!   `kept_unconverted` for the same reasons.
//!
//! Layout: a map whose lumps all lie in its file is swapped in place (same offsets, same gap
//! bytes). A map opened with `.bsp_lump` files is folded first, as the Titanfall ↔ Titanfall 2
//! moves fold it ([`super::respawn`]): each lump as the game reads it, laid out in the `.bsp`'s
//! lump order, 4-byte aligned, game lump child offsets moved with their lump. `.ent` partitions
//! beside the map are text and are copied beside the output by [`super::write_prepared`].

use crate::branch::Branch;
use crate::branches::respawn::lumps::{TITANFALL, TITANFALL_X360, X360_MAGIC};
use crate::branches::respawn::records::StaticPropR1;
use crate::branches::respawn::sprp::{RespawnPropLayout, RespawnStaticProps};
use crate::bsp::Bsp;
use crate::bytes::{u32_at, Endian};
use crate::convert::report::{LumpAction, Report};
use crate::convert::source::swap_records;
use crate::directory::LumpOrigin;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump::{self, LumpPlace, OffsetBase, ID_STATIC_PROPS};
use crate::lumps::staticprops::MODEL_NAME_LEN;
use crate::schema::types::Record;

/// Header length: magic, version, revision, 127, 128 × `lump_t` (16 bytes each).
const HEADER_LEN: usize = 16 + 128 * 16;
const GAME_LUMP: usize = 0x23;
/// Lumps of text or of a format with its own byte order: copied, nothing lost.
const COPIED: &[&str] = &["ENTITIES", "ENTITY_PARTITIONS", "TEXTURE_DATA_STRING_DATA", "PAKFILE"];
/// Lightmap texels: bytes on PC, an unknown texel format on the console.
const TEXELS: &[&str] = &["LIGHTMAP_DATA_SKY", "LIGHTMAP_DATA_REAL_TIME_LIGHTS"];

/// `from` → `to` is a Titanfall platform change.
pub fn is_pair(from: &str, to: &str) -> bool {
    matches!((from, to), ("titanfall", "titanfall_x360") | ("titanfall_x360", "titanfall"))
}

/// The byte order of a Titanfall branch's maps.
pub fn endian_of(branch: &str) -> Endian {
    if branch == TITANFALL_X360.id {
        Endian::Big
    } else {
        Endian::Little
    }
}

/// Titanfall ↔ Titanfall on Xbox 360 (the module notes list what each lump becomes).
pub fn convert_platform(bsp: &Bsp, to: &'static Branch, report: &mut Report) -> Result<Vec<u8>> {
    let from = bsp.branch();
    if !is_pair(from.id, to.id) {
        return Err(Error::new(ErrorKind::Unsupported(format!("{} → {} is not a Titanfall platform change", from.id, to.id))));
    }
    let src = endian_of(from.id);
    let folded = bsp.lumps().iter().any(|e| e.length > 0 && (e.origin != LumpOrigin::File || e.compressed));
    let (mut out, places) = if folded { fold(bsp, src)? } else { in_file(bsp)? };
    swap_header(&mut out, to);
    for (i, &(ofs, len)) in places.iter().enumerate() {
        if len == 0 {
            continue;
        }
        let name = from.lumps[i].name;
        let version = bsp.entry(i).and_then(|e| e.version).unwrap_or(0);
        let lump = &mut out[ofs..ofs + len];
        let action = swap_lump(bsp, (i, ofs as u64), name, version, lump, src, report)?;
        report.lumps.push(LumpAction {
            index: i,
            name,
            action,
            source_bytes: len as u64,
            target_bytes: len as u64,
            source_lzma: false,
            target_lzma: false,
        });
    }
    Ok(out)
}

/// The map's bytes (still in the source's byte order) and each lump's `(offset, length)` in them.
type Laid = (Vec<u8>, Vec<(usize, usize)>);

/// Each lump's `(offset, length)` in the source file, whose bytes are copied as they are.
fn in_file(bsp: &Bsp) -> Result<Laid> {
    let data = bsp.data();
    if data.len() < HEADER_LEN {
        return Err(Error::truncated(HEADER_LEN as u64, data.len() as u64).in_lump("header"));
    }
    let mut places = vec![(0usize, 0usize); 128];
    for e in bsp.lumps().iter().filter(|e| e.length > 0 && e.index < 128) {
        let end = e.offset.checked_add(e.length).filter(|&end| end <= data.len() as u64);
        if end.is_none() || e.offset < HEADER_LEN as u64 {
            return Err(bsp.lump_error(e.index, Error::truncated(e.offset.saturating_add(e.length), data.len() as u64)));
        }
        places[e.index] = (e.offset as usize, e.length as usize);
    }
    // Swapped in place, bytes two lumps share would be swapped twice: refused.
    let mut spans: Vec<(usize, usize, usize)> =
        places.iter().enumerate().filter(|(_, p)| p.1 > 0).map(|(i, p)| (p.0, p.0 + p.1, i)).collect();
    spans.sort();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        let name = |i: usize| bsp.entry(i).map_or("?", |e| e.name);
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "lumps {} and {} share bytes; such a file cannot be swapped in place",
            name(w[0].2),
            name(w[1].2)
        )))
        .in_lump(name(w[1].2)));
    }
    Ok((data.to_vec(), places))
}

/// The map folded into one file, still in its own byte order: each lump as the game reads it
/// (a `.bsp_lump` file's bytes, [`super::respawn::in_file_if_longer`]), in the `.bsp`'s lump
/// order, 4-byte aligned; the header's other words kept.
fn fold(bsp: &Bsp, src: Endian) -> Result<Laid> {
    let data = bsp.data();
    if data.len() < 16 {
        return Err(Error::truncated(16, data.len() as u64).in_lump("header"));
    }
    let mut lumps: Vec<Vec<u8>> = Vec::with_capacity(128);
    let mut order: Vec<(u64, usize)> = Vec::new();
    for i in 0..128 {
        let raw: Vec<u8> = match bsp.entry(i) {
            Some(e) if e.length > 0 => {
                if e.compressed {
                    return Err(bsp.lump_error(i, Error::new(ErrorKind::Unsupported("an LZMA-compressed Titanfall lump".into()))));
                }
                super::respawn::in_file_if_longer(bsp, i, bsp.raw_lump(i).map_err(|err| bsp.lump_error(i, err))?).to_vec()
            }
            _ => Vec::new(),
        };
        order.push((bsp.entry(i).map_or(u64::MAX, |e| e.offset), i));
        lumps.push(raw);
    }
    order.sort();
    let mut places = vec![(0usize, 0usize); 128];
    let mut pos = HEADER_LEN;
    for &(_, i) in &order {
        if lumps[i].is_empty() {
            continue;
        }
        pos = pos.next_multiple_of(4);
        places[i] = (pos, lumps[i].len());
        pos += lumps[i].len();
    }
    let word = |at: usize| u32_at(data, at, src).unwrap_or(0);
    let put = |v: u32| match src {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    };
    let mut out = Vec::with_capacity(pos.next_multiple_of(4));
    out.extend_from_slice(&data[..4]);
    for at in [4, 8, 12] {
        out.extend_from_slice(&put(word(at)));
    }
    for (i, &(ofs, len)) in places.iter().enumerate() {
        let e = 16 + 16 * i;
        let ofs = u32::try_from(ofs)
            .map_err(|_| Error::new(ErrorKind::LimitExceeded { what: "lump offset", requested: ofs as u64, limit: u32::MAX as u64 }))?;
        let version = bsp.entry(i).and_then(|e| e.version).unwrap_or(0);
        for f in [ofs, len as u32, version, word(e + 12)] {
            out.extend_from_slice(&put(f));
        }
    }
    for &(_, i) in &order {
        if lumps[i].is_empty() {
            continue;
        }
        out.resize(places[i].0, 0);
        if i == GAME_LUMP {
            // Children at offsets from the file's start move with the lump.
            let old = bsp.entry(i).map_or(0, |e| e.offset);
            shift_game_lump(&mut lumps[i], old, places[i].0 as u64, src).map_err(|err| bsp.lump_error(i, err))?;
        }
        out.extend_from_slice(&lumps[i]);
    }
    out.resize(out.len().next_multiple_of(4), 0);
    Ok((out, places))
}

/// Move a game lump's child offsets from `old` to `new` when they count from the file's start.
fn shift_game_lump(lump: &mut [u8], old: u64, new: u64, e: Endian) -> Result<()> {
    let dir = gamelump::parse_directory(lump, LumpPlace { file_offset: old, from_lmp: false }, e)?;
    if dir.base != OffsetBase::Absolute || old == new {
        return Ok(());
    }
    for k in 0..dir.entries.len() {
        let at = 4 + 16 * k + 8;
        let ofs = u32_at(lump, at, e).unwrap_or(0);
        if ofs == 0 {
            continue;
        }
        let moved = (ofs as u64 + new)
            .checked_sub(old)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| Error::malformed("game lump child offset").at(at as u64))?;
        let bytes = match e {
            Endian::Little => moved.to_le_bytes(),
            Endian::Big => moved.to_be_bytes(),
        };
        lump[at..at + 4].copy_from_slice(&bytes);
    }
    Ok(())
}

/// The target's magic, and every later header word swapped.
fn swap_header(out: &mut [u8], to: &Branch) {
    out[..4].copy_from_slice(if to.id == TITANFALL_X360.id { X360_MAGIC } else { b"rBSP" });
    out[4..HEADER_LEN].chunks_exact_mut(4).for_each(|w| w.reverse());
}

/// Swap one lump in place; its action, with what is kept reported.
fn swap_lump(
    bsp: &Bsp,
    (i, at): (usize, u64),
    name: &'static str,
    version: u32,
    lump: &mut [u8],
    src: Endian,
    report: &mut Report,
) -> Result<&'static str> {
    if i == GAME_LUMP {
        swap_game_lump(lump, at, src, report).map_err(|err| bsp.lump_error(i, err))?;
        return Ok("swapped");
    }
    // One layout for both byte orders: looked up on the PC branch.
    if let Some(schema) = crate::schema::lump_schema(&TITANFALL, name, version, Endian::Little) {
        if lump.len() % schema.size != 0 {
            return Err(bsp.lump_error(i, Error::new(ErrorKind::BadLumpLength { length: lump.len() as u64, record_size: schema.size })));
        }
        swap_records(lump, schema);
        return Ok("swapped");
    }
    if COPIED.contains(&name) {
        return Ok("copied");
    }
    let why = if name == TEXELS[0] {
        "lightmap pages of RGBA8 texels on PC (bytes: nothing to swap); the console's texel format (tiling, compression) is not known, so they are copied as they are rather than dropped"
    } else if name == TEXELS[1] {
        "real-time-light mask texels (8 or 9 bytes each, read by no bspkit code); the console's texel format is not known, so they are copied as they are rather than dropped"
    } else {
        "no known record layout; copied as it is (its multi-byte fields, if any, keep the source's byte order)"
    };
    report.loss(Some(i), Some(name.into()), "kept_unconverted", format!("{} bytes: {why}", lump.len()));
    Ok("copied")
}

/// The game lump's directory (`i32 count; {u32 id; u16 flags, version; u32 offset, length}`)
/// and its `sprp` child of version 12, read in `src` order and swapped in place; `at` is the
/// lump's offset in the output (its children's offsets are counted from it or from the file).
fn swap_game_lump(lump: &mut [u8], at: u64, src: Endian, report: &mut Report) -> Result<()> {
    let dir = gamelump::parse_directory(lump, LumpPlace { file_offset: at, from_lmp: false }, src)?;
    let count = u32_at(lump, 0, src).unwrap_or(0) as usize;
    let dir_end = count
        .checked_mul(16)
        .and_then(|n| n.checked_add(4))
        .filter(|&n| n <= lump.len())
        .ok_or_else(|| Error::truncated(4 + 16 * count as u64, lump.len() as u64))?;
    lump[..4].reverse();
    for e in lump[4..dir_end].chunks_exact_mut(16) {
        for w in [0..4, 4..6, 6..8, 8..12, 12..16] {
            e[w].reverse();
        }
    }
    for e in dir.entries.iter().filter(|e| !e.is_dummy() && e.stored_len > 0) {
        let label = format!("GAME_LUMP/{}", e.fourcc());
        if e.id != ID_STATIC_PROPS || e.version != 12 || e.compressed {
            report.loss(
                Some(GAME_LUMP),
                Some(label),
                "kept_unconverted",
                format!(
                    "{} bytes (version {}{}): no known layout here; copied as it is",
                    e.stored_len,
                    e.version,
                    if e.compressed { ", LZMA" } else { "" }
                ),
            );
            continue;
        }
        let child = lump
            .get_mut(e.start..e.start + e.stored_len)
            .ok_or_else(|| Error::truncated((e.start + e.stored_len) as u64, 0).in_lump(label.clone()))?;
        swap_sprp(child, src).map_err(|err| err.in_lump(label))?;
    }
    Ok(())
}

/// A version 12 `sprp` child: names count, leaf count and leaves, prop count and its two words,
/// then each 84-byte prop by its layout.
fn swap_sprp(child: &mut [u8], src: Endian) -> Result<()> {
    let branch = if src == Endian::Big { TITANFALL_X360.id } else { TITANFALL.id };
    let sp = RespawnStaticProps::parse(std::borrow::Cow::Owned(child.to_vec()), 12, branch)?;
    if sp.layout != RespawnPropLayout::R1 {
        return Err(Error::malformed("sprp version 12 is not Titanfall's layout"));
    }
    let mut at = 0;
    child[at..at + 4].reverse();
    at += 4 + sp.model_names.len() * MODEL_NAME_LEN;
    child[at..at + 4].reverse();
    at += 4;
    child[at..at + 2 * sp.leaves.len()].chunks_exact_mut(2).for_each(|c| c.reverse());
    at += 2 * sp.leaves.len();
    child[at..at + 12].chunks_exact_mut(4).for_each(|c| c.reverse());
    at += 12;
    let schema = <StaticPropR1 as Record>::schema();
    swap_records(&mut child[at..at + sp.count * schema.size], schema);
    Ok(())
}
