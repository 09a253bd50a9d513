//! Source console ↔ PC: `PSBV` (big-endian, X360/PS3) ↔ `VBSP` (little-endian), within one
//! branch (source.md §1).
//!
//! Every record lump is swapped field by field from its schema ([`crate::schema::lump_schema`]),
//! so a bitfield container (`dleaf_t`'s `area:9 flags:7`, A18) is swapped as the whole integer
//! it is stored in: the console map keeps the PC bit positions inside its big-endian `u16`
//! (observed: every `shack.360` leaf reads area 0 or 1 of its 2 areas this way, and area 4 with
//! the bits taken from the top). Lumps without records are walked by their layout: visibility
//! (a count and offset pairs, §12), occlusion (32-bit fields only, §16), the game lump
//! (directory, static props §14.3, detail props §14.4, detail lighting) with the console's
//! relative child offsets (open_questions.md A12) and per-child LZMA (A13). Text and byte lumps
//! are copied. The pakfile is a Zip archive (little-endian on every platform) and is copied;
//! console-only content in it (`.360.` files, the XZip preload section) is reported.
//!
//! The physics lumps are walked structure by structure ([`super::ivp`]): their IVP bitfields
//! are allocated from the other end of each word on consoles. Lumps bspkit cannot carry over
//! (no known layout: any other non-empty lump, a game lump child other than `sprp`, `dprp`,
//! `dplt`, `dplh`) are dropped and reported.
//!
//! The layout keeps the source's lump order and gap bytes; a lump that keeps its size keeps its
//! offset, so a map whose lumps are all stored plain converts in place (the two conversions are
//! each other's inverse byte for byte).

use std::borrow::Cow;

use crate::branch::HeaderKind;
use crate::bsp::Bsp;
use crate::bytes::{i32_at, u32_at, Endian};
use crate::compression;
use crate::convert::report::{LumpAction, Lzma, Report};
use crate::directory::{self, LumpEntry};
use crate::edit::{Editor, NEVER_COMPRESSED};
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump::{self, OffsetBase, FLAG_COMPRESSED};
use crate::lumps::staticprops::{PropLayout, StaticProps, MODEL_NAME_LEN};
use crate::schema::{Kind, RecordSchema};

/// Header size: magic, version, 64 × `lump_t`, map revision (source.md §3).
const HEADER_LEN: usize = 8 + 64 * 16 + 4;
const GAME_LUMP: usize = 35;

/// Reverse every multi-byte scalar of `records` (a whole number of `schema` records).
pub fn swap_records(records: &mut [u8], schema: &RecordSchema) {
    for rec in records.chunks_exact_mut(schema.size) {
        swap_fields(rec, schema);
    }
}

fn swap_fields(rec: &mut [u8], schema: &RecordSchema) {
    for f in schema.fields {
        let field = &mut rec[f.offset..f.offset + f.ty.size()];
        match f.ty.kind {
            Kind::Scalar { scalar, .. } => {
                let w = scalar.size();
                if w > 1 {
                    field.chunks_exact_mut(w).for_each(|c| c.reverse());
                }
            }
            Kind::Record(inner) => field.chunks_exact_mut(inner.size).for_each(|c| swap_fields(c, inner)),
        }
    }
}

/// Reverse the bytes of consecutive fields of the given widths, repeated over `data`.
fn swap_widths(data: &mut [u8], widths: &[usize]) {
    let size: usize = widths.iter().sum();
    for rec in data.chunks_exact_mut(size) {
        let mut at = 0;
        for &w in widths {
            rec[at..at + w].reverse();
            at += w;
        }
    }
}

fn swap_words(data: &mut [u8]) {
    data.chunks_exact_mut(4).for_each(|c| c.reverse());
}

/// Field widths of a static prop layout (source.md §14.3; the structs of
/// [`crate::lumps::staticprops`]).
fn prop_widths(layout: PropLayout) -> Option<Vec<usize>> {
    let v4 = [4, 4, 4, 4, 4, 4, 2, 2, 2, 1, 1, 4, 4, 4, 4, 4, 4];
    let mut w: Vec<usize> = v4.to_vec();
    let v5 = |w: &mut Vec<usize>| w.push(4);
    let v8 = |w: &mut Vec<usize>| {
        w.push(4);
        w.extend([1; 8]);
    };
    match layout {
        PropLayout::V4 => {}
        PropLayout::V5 => v5(&mut w),
        PropLayout::V6 => w.extend([4, 2, 2]),
        PropLayout::V7 => w.extend([4, 2, 2, 1, 1, 1, 1]),
        PropLayout::V7Star => w.extend([4, 2, 2, 4, 2, 2]),
        PropLayout::V8 => v8(&mut w),
        PropLayout::V9 => {
            v8(&mut w);
            w.push(4)
        }
        PropLayout::V10 => {
            v8(&mut w);
            w.extend([4, 4])
        }
        PropLayout::V11 => {
            v8(&mut w);
            w.extend([4, 4])
        }
        PropLayout::V11Ext => {
            v8(&mut w);
            w.extend([4, 4, 4])
        }
        PropLayout::V13 => {
            v8(&mut w);
            w.extend([4, 4, 4, 4, 4])
        }
        PropLayout::V5Ship => {
            v5(&mut w);
            w.extend([1; MODEL_NAME_LEN])
        }
        PropLayout::V6Bgt => w.extend([4, 2, 2].into_iter().chain([1; MODEL_NAME_LEN])),
        PropLayout::V6Dm => w.extend([4, 2, 2].into_iter().chain([1; 72])),
        PropLayout::V7Ftb => {
            v8(&mut w);
            w.extend([4, 4])
        }
        PropLayout::V11Bm => w.extend([4, 2, 2, 4, 2, 2, 1, 1, 1, 1]),
        PropLayout::V11BmEx => w.extend([4, 2, 2, 4, 2, 2, 1, 1, 1, 1, 4]),
        PropLayout::Unknown => return None,
    }
    debug_assert_eq!(Some(w.iter().sum::<usize>()), layout.size());
    Some(w)
}

fn count_at(data: &[u8], pos: usize, e: Endian, what: &str) -> Result<usize> {
    let n = i32_at(data, pos, e).ok_or_else(|| Error::truncated(pos as u64 + 4, data.len() as u64).at(pos as u64))?;
    usize::try_from(n).map_err(|_| Error::malformed(format!("{what} count {n} is negative")).at(pos as u64))
}

fn end_of(data: &[u8], pos: usize, n: usize, size: usize) -> Result<usize> {
    let end = (n as u64).checked_mul(size as u64).and_then(|b| b.checked_add(pos as u64)).unwrap_or(u64::MAX);
    if end > data.len() as u64 {
        return Err(Error::truncated(end, data.len() as u64).at(pos as u64));
    }
    Ok(end as usize)
}

/// `sprp`: dictionary, leaves, props (source.md §14.3).
fn swap_static_props(data: &mut [u8], version: u16, from: Endian) -> Result<std::result::Result<(), String>> {
    let parsed = StaticProps::parse(Cow::Borrowed(&*data), version, from)?;
    let (layout, leaf_width, count) = (parsed.layout, parsed.leaf_width, parsed.count);
    let props_len = parsed.prop_bytes().len();
    let widths = match prop_widths(layout) {
        Some(w) => w,
        None if count == 0 => Vec::new(),
        None => return Ok(Err(format!("static props version {version}: no known layout for {} bytes per prop", props_len / count))),
    };
    let dict = count_at(data, 0, from, "model name")?;
    let leaves_at = end_of(data, 4, dict, MODEL_NAME_LEN)?;
    let leaves = count_at(data, leaves_at, from, "leaf")?;
    let props_at = end_of(data, leaves_at + 4, leaves, leaf_width)?;
    swap_words(&mut data[0..4]);
    swap_words(&mut data[leaves_at..leaves_at + 4]);
    swap_widths(&mut data[leaves_at + 4..props_at], &[leaf_width]);
    swap_words(&mut data[props_at..props_at + 4]);
    let props = &mut data[props_at + 4..];
    if !widths.is_empty() {
        swap_widths(props, &widths);
    }
    Ok(Ok(()))
}

/// Widths of a detail prop (`DetailObject`, 52 bytes) and sprite (32 bytes): source.md §14.4.
const DETAIL_OBJECT: [usize; 22] = [4, 4, 4, 4, 4, 4, 2, 2, 1, 1, 1, 1, 4, 1, 1, 1, 1, 1, 3, 1, 3, 4];
const DETAIL_SPRITE_LEN: usize = 32;

/// `dprp`: model names, sprites, props.
fn swap_detail_props(data: &mut [u8], from: Endian) -> Result<std::result::Result<(), String>> {
    let names = count_at(data, 0, from, "detail model name")?;
    let sprites_at = end_of(data, 4, names, crate::lumps::detailprops::DETAIL_NAME_LEN)?;
    let sprites = count_at(data, sprites_at, from, "detail sprite")?;
    let props_at = end_of(data, sprites_at + 4, sprites, DETAIL_SPRITE_LEN)?;
    let props = count_at(data, props_at, from, "detail prop")?;
    let object_len: usize = DETAIL_OBJECT.iter().sum();
    let end = end_of(data, props_at + 4, props, object_len)?;
    if end != data.len() {
        return Ok(Err(format!("detail props: {} bytes after {props} props of {object_len} bytes", data.len() - end)));
    }
    // The 3-byte paddings are bytes: reverse them as 1-byte fields.
    let widths: Vec<usize> = DETAIL_OBJECT.iter().flat_map(|&w| if w == 3 { vec![1, 1, 1] } else { vec![w] }).collect();
    swap_words(&mut data[0..4]);
    swap_words(&mut data[sprites_at..sprites_at + 4]);
    swap_words(&mut data[sprites_at + 4..props_at]);
    swap_words(&mut data[props_at..props_at + 4]);
    swap_widths(&mut data[props_at + 4..end], &widths);
    Ok(Ok(()))
}

/// `dplt` / `dplh`: a count, then 5-byte records of bytes.
fn swap_detail_lighting(data: &mut [u8], from: Endian) -> Result<std::result::Result<(), String>> {
    let n = count_at(data, 0, from, "detail lighting")?;
    let end = end_of(data, 4, n, 5)?;
    if end != data.len() {
        return Ok(Err(format!("detail lighting: {} bytes after {n} records", data.len() - end)));
    }
    swap_words(&mut data[0..4]);
    Ok(Ok(()))
}

/// Dota 2's dispinfo (lump 26) and per-vertex blend records (lump 63) have no size in the
/// branch's lump table: the dispinfo layout is only trusted where the map proves it
/// ([`View::disp_infos_dota`]). Where it does, both lumps are swapped by their records;
/// otherwise `None`, and the lump is dropped and reported as any lump without a layout.
fn dota_schema(bsp: &Bsp, name: &str, from: Endian) -> Result<Option<&'static RecordSchema>> {
    use crate::branches::source::records::{DispInfoDotaV22, DispInfoDotaV23, DispMultiBlend};
    use crate::branches::source::view::{DispInfos, View};
    use crate::schema::types::of;
    use zerocopy::byteorder::{BigEndian, LittleEndian};
    if bsp.branch().id != "dota2" || !matches!(name, "DISP_INFO" | "DISP_MULTIBLEND") {
        return Ok(None);
    }
    fn pick<O: zerocopy::byteorder::ByteOrder>(bsp: &Bsp, name: &str) -> Result<Option<&'static RecordSchema>> {
        let v = View::<O>::new(bsp)?;
        // The blend records are floats only: their count ties them to lump 33, not the proof.
        if name == "DISP_MULTIBLEND" {
            return Ok(v.disp_multiblend()?.and_then(|_| of::<DispMultiBlend<O>>()));
        }
        Ok(match v.disp_infos()? {
            DispInfos::DotaV22(_) => of::<DispInfoDotaV22<O>>(),
            DispInfos::DotaV23(_) => of::<DispInfoDotaV23<O>>(),
            _ => None,
        })
    }
    match from {
        Endian::Little => pick::<LittleEndian>(bsp, name),
        Endian::Big => pick::<BigEndian>(bsp, name),
    }
}

/// The target form of one lump's data: `Ok(Some((bytes, action)))`, or `Ok(None)` with a loss
/// recorded when the lump cannot be carried over.
fn convert_lump(bsp: &Bsp, entry: &LumpEntry, data: &[u8], to: Endian, report: &mut Report) -> Result<Option<(Vec<u8>, &'static str)>> {
    let from = bsp.endian();
    let name = entry.name;
    let mut out = data.to_vec();
    if from == to {
        return Ok(Some((out, "copied")));
    }
    let version = entry.version.unwrap_or(0);
    if let Some(schema) = crate::schema::lump_schema(bsp.branch(), name, version, from) {
        if out.len() % schema.size != 0 {
            return Err(Error::new(ErrorKind::BadLumpLength { length: out.len() as u64, record_size: schema.size }));
        }
        let any_wide = schema_has_wide(schema);
        swap_records(&mut out, schema);
        return Ok(Some((out, if any_wide { "swapped" } else { "copied" })));
    }
    if let Some(schema) = dota_schema(bsp, name, from)? {
        swap_records(&mut out, schema);
        return Ok(Some((out, "swapped")));
    }
    match name {
        "ENTITIES" | "TEXDATA_STRING_DATA" | "DISP_LIGHTMAP_ALPHAS" | "DISP_LIGHTMAP_SAMPLE_POSITIONS" => Ok(Some((out, "copied"))),
        "VISIBILITY" => {
            // §12: i32 numclusters, then numclusters × {i32 pvs, i32 pas}, then bit rows.
            let n = count_at(&out, 0, from, "visibility cluster")?;
            let end = end_of(&out, 4, n, 8)?;
            swap_words(&mut out[..end]);
            Ok(Some((out, "swapped")))
        }
        "OCCLUSION" => {
            // §16: occluder count and records, polygon count and records, vertex index count and
            // indices; every field is 32 bits.
            if out.len() % 4 != 0 {
                return Err(Error::malformed(format!("occlusion lump of {} bytes is not whole 32-bit fields", out.len())));
            }
            swap_words(&mut out);
            Ok(Some((out, "swapped")))
        }
        "PAKFILE" | "XZIP_PAKFILE" => {
            pak_losses(entry, &out, to, report);
            Ok(Some((out, "copied")))
        }
        "PHYS_COLLIDE" => {
            let mut unreached = 0;
            let out = match super::ivp::phys_collide(&out, from, to, &mut unreached) {
                Ok(o) => o,
                Err(e) if matches!(e.kind, ErrorKind::Unsupported(_)) => {
                    report.loss(Some(entry.index), Some(name.to_string()), "dropped", e.to_string());
                    return Ok(None);
                }
                Err(e) => return Err(e),
            };
            if unreached > 0 {
                report.loss(
                    Some(entry.index),
                    Some(name.to_string()),
                    "kept_unconverted",
                    format!("{unreached} byte(s) of collision data no IVP structure reaches were copied as they were"),
                );
            }
            Ok(Some((out, "swapped")))
        }
        "PHYS_DISP" => Ok(Some((super::ivp::phys_disp(&out, from, to)?, "swapped"))),
        _ => {
            report.loss(
                Some(entry.index),
                Some(name.to_string()),
                "dropped",
                format!("no known layout for lump version {version}; byte order cannot be changed"),
            );
            Ok(None)
        }
    }
}

fn schema_has_wide(s: &RecordSchema) -> bool {
    s.fields.iter().any(|f| match f.ty.kind {
        Kind::Scalar { scalar, .. } => scalar.size() > 1,
        Kind::Record(inner) => schema_has_wide(inner),
    })
}

/// Console-only or PC-only content of a pakfile, which the copy carries over unchanged.
fn pak_losses(entry: &LumpEntry, lump: &[u8], to: Endian, report: &mut Report) {
    let Ok(pak) = crate::lumps::pakfile::Pakfile::parse(lump) else {
        report.loss(
            Some(entry.index),
            Some(entry.name.into()),
            "kept_unconverted",
            "the pakfile does not read as a Zip archive; copied as it was",
        );
        return;
    };
    let names: Vec<&str> = pak.entries.iter().map(|e| e.name.as_str()).collect();
    let console = names.iter().filter(|n| n.to_ascii_lowercase().contains(".360.")).count();
    let preload = names.iter().any(|n| n.eq_ignore_ascii_case("__preload_section.pre"));
    let pc_textures = names.iter().filter(|n| {
        let l = n.to_ascii_lowercase();
        l.ends_with(".vtf") && !l.contains(".360.")
    });
    match to {
        Endian::Little if console > 0 || preload => report.loss(
            Some(entry.index),
            Some(entry.name.into()),
            "kept_unconverted",
            format!(
                "{console} console-format file(s) (.360.) and {} XZip preload section kept as they were; a PC engine does not read them",
                if preload { "the" } else { "no" }
            ),
        ),
        Endian::Big => {
            let n = pc_textures.count();
            if n > 0 {
                report.loss(
                    Some(entry.index),
                    Some(entry.name.into()),
                    "kept_unconverted",
                    format!("{n} PC-format texture(s) (.vtf) kept as they were; a console engine reads .360.vtf"),
                );
            }
        }
        _ => {}
    }
}

/// One game lump child, converted: `(id, flags, version, stored bytes, filelen)`.
type Child = (u32, u16, u16, Vec<u8>, u32);

/// The game lump's children in the target byte order (and compression), losses reported.
fn convert_game_lump(bsp: &Bsp, entry: &LumpEntry, raw: &[u8], to: Endian, lzma: Lzma, report: &mut Report) -> Result<Vec<Child>> {
    let from = bsp.endian();
    let place = gamelump::LumpPlace { file_offset: entry.offset, from_lmp: false };
    let dir = gamelump::parse_directory(raw, place, from)?;
    let max = bsp.options().max_decompressed;
    let mut out = Vec::new();
    for e in &dir.entries {
        if e.is_dummy() {
            continue;
        }
        let label = format!("GAME_LUMP/{}", e.fourcc());
        let stored = gamelump::child_bytes(raw, e, max)?;
        bsp.charge_decompressed(if e.compressed { stored.len() as u64 } else { 0 })?;
        let mut data = stored.into_owned();
        let swapped = if from == to {
            Ok(())
        } else {
            match &e.id.to_be_bytes() {
                b"sprp" => swap_static_props(&mut data, e.version, from).map_err(|err| err.in_lump(label.clone()))?,
                b"dprp" => swap_detail_props(&mut data, from).map_err(|err| err.in_lump(label.clone()))?,
                b"dplt" | b"dplh" => swap_detail_lighting(&mut data, from).map_err(|err| err.in_lump(label.clone()))?,
                _ => Err(format!("game lump child {} version {} has no known layout", e.fourcc(), e.version)),
            }
        };
        if let Err(why) = swapped {
            report.loss(Some(GAME_LUMP), Some(label), "dropped", why);
            continue;
        }
        let compress = match lzma {
            Lzma::Auto => to == Endian::Big && e.compressed,
            Lzma::Keep => e.compressed,
            Lzma::On => !data.is_empty(),
            Lzma::Off => false,
        };
        let len = data.len() as u32;
        let (bytes, flags) = if compress && !data.is_empty() {
            let packed = compression::compress_valve_lzma(&data, 6)?;
            if packed.len() < data.len() || e.compressed {
                (packed, e.flags | FLAG_COMPRESSED)
            } else {
                (data, e.flags & !FLAG_COMPRESSED)
            }
        } else {
            (data, e.flags & !FLAG_COMPRESSED)
        };
        out.push((e.id, flags, e.version, bytes, len));
    }
    Ok(out)
}

/// What the output lump will be.
struct Planned {
    entry: LumpEntry,
    /// Stored bytes (compressed if `lzma`); the game lump is built when placed.
    bytes: Vec<u8>,
    fourcc: u32,
}

/// Convert a Source map's byte order (the branch stays).
pub fn convert_endian(bsp: &Bsp, to: Endian, lzma: Lzma, report: &mut Report) -> Result<Vec<u8>> {
    let branch = bsp.branch();
    let HeaderKind::Valve { version_first } = branch.header else {
        return Err(Error::new(ErrorKind::Unsupported(format!("{} is not a Source branch", branch.id))));
    };
    let from = bsp.endian();
    let data = bsp.data();
    let (header, entries) = directory::parse(data, branch, from)?;
    if header.len != HEADER_LEN {
        return Err(Error::malformed(format!("Source header of {} bytes", header.len)));
    }
    let ed = Editor::new(bsp)?;
    let mut planned: Vec<Planned> = Vec::with_capacity(entries.len());
    let mut game: Option<(Vec<Child>, OffsetBase)> = None;
    for e in &entries {
        let empty = |e: &LumpEntry| Planned { entry: e.clone(), bytes: Vec::new(), fourcc: e.fourcc.unwrap_or(0) };
        if e.length == 0 {
            planned.push(empty(e));
            continue;
        }
        let raw = crate::bytes::slice(data, e.offset, e.length).map_err(|err| bsp.lump_error(e.index, err))?;
        let mut action = LumpAction {
            index: e.index,
            name: e.name,
            action: "copied",
            source_bytes: 0,
            target_bytes: 0,
            source_lzma: e.compressed,
            target_lzma: false,
        };
        if e.index == GAME_LUMP {
            let kids = convert_game_lump(bsp, e, raw, to, lzma, report).map_err(|err| bsp.lump_error(e.index, err))?;
            let src_base = crate::write::game_lump_convention(raw, from, e.offset).unwrap_or(OffsetBase::Absolute);
            // Consoles store the children's offsets from the lump's start (A12); PC maps from the file's.
            let base = match (from == to, to) {
                (true, _) => src_base,
                (false, Endian::Big) => OffsetBase::Relative,
                (false, Endian::Little) => OffsetBase::Absolute,
            };
            action.action = "rebuilt";
            action.source_bytes = raw.len() as u64;
            action.target_lzma = kids.iter().any(|k| k.1 & FLAG_COMPRESSED != 0);
            report.lumps.push(action);
            game = Some((kids, base));
            planned.push(Planned { entry: e.clone(), bytes: Vec::new(), fourcc: e.fourcc.unwrap_or(0) });
            continue;
        }
        let lump = ed.lump(e.index)?;
        action.source_bytes = lump.len() as u64;
        let Some((conv, what)) = convert_lump(bsp, e, &lump, to, report).map_err(|err| bsp.lump_error(e.index, err))? else {
            action.action = "dropped";
            report.lumps.push(action);
            let mut p = empty(e);
            p.entry.offset = 0;
            p.fourcc = 0;
            planned.push(p);
            continue;
        };
        action.action = what;
        action.target_bytes = conv.len() as u64;
        let compress = !conv.is_empty()
            && match lzma {
                Lzma::Auto => to == Endian::Big && e.compressed,
                Lzma::Keep => e.compressed,
                Lzma::On => !NEVER_COMPRESSED.contains(&e.index),
                Lzma::Off => false,
            };
        let (bytes, fourcc) = if compress {
            let stored = if e.compressed && conv.as_slice() == &*lump { raw.to_vec() } else { compression::compress_valve_lzma(&conv, 6)? };
            if stored.len() < conv.len() || e.compressed {
                action.target_lzma = true;
                (stored, conv.len() as u32)
            } else {
                (conv, 0)
            }
        } else if e.compressed {
            (conv, 0)
        } else {
            (conv, e.fourcc.unwrap_or(0))
        };
        report.lumps.push(action);
        planned.push(Planned { entry: e.clone(), bytes, fourcc });
    }
    report.lumps.sort_by_key(|a| a.index);

    // Layout: the source's file order. Gaps of zeros are padding and are redone: 4 bytes (1 in
    // a file whose lumps are not all aligned, as the writer does); on the console form the
    // pakfile and the file's end on 2048 bytes, as in `shack.360` (pakfile at 96 × 2048, file
    // 105 × 2048). Gaps with other bytes are data and are kept.
    let mut order: Vec<usize> = (0..planned.len()).filter(|&p| entries[p].length > 0).collect();
    order.sort_by_key(|&p| (entries[p].offset, p));
    let align = if order.iter().all(|&p| entries[p].offset % 4 == 0) { 4 } else { 1 };
    let console = to == Endian::Big && from != to;
    let mut out = vec![0u8; HEADER_LEN];
    let mut cursor_old = HEADER_LEN as u64;
    let mut placed: Vec<(u64, u64)> = planned.iter().map(|p| (p.entry.offset, 0)).collect();
    for &p in &order {
        let e = &entries[p];
        if e.offset < cursor_old {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "lump {} shares bytes with another lump or the header; such a file cannot be converted",
                e.name
            )))
            .in_lump(e.name));
        }
        let gap = &data[cursor_old as usize..e.offset as usize];
        if gap.len() >= 4 && gap.iter().any(|&b| b != 0) {
            out.extend_from_slice(gap);
        }
        cursor_old = e.offset + e.length;
        if p == GAME_LUMP {
            if let Some((kids, base)) = &game {
                let at = out.len().next_multiple_of(align) as u64;
                let shift = if *base == OffsetBase::Absolute { at } else { 0 };
                let kids: Vec<(u32, u16, u16, &[u8], u32)> = kids.iter().map(|k| (k.0, k.1, k.2, k.3.as_slice(), k.4)).collect();
                let built = gamelump::assemble(&kids, shift, to, true)?;
                if let Some(a) = report.lumps.iter_mut().find(|a| a.index == GAME_LUMP) {
                    a.target_bytes = built.len() as u64;
                }
                planned[p].bytes = built;
            }
        }
        if planned[p].bytes.is_empty() {
            placed[p] = (0, 0);
            continue;
        }
        let lump_align = if console && p == crate::lumps::pakfile::LUMP_PAKFILE { 2048 } else { align };
        out.resize(out.len().next_multiple_of(lump_align), 0);
        let at = out.len() as u64;
        out.extend_from_slice(&planned[p].bytes);
        placed[p] = (at, planned[p].bytes.len() as u64);
    }
    // Bytes after the last lump: zeros are padding, anything else is kept.
    let tail = &data[(cursor_old as usize).min(data.len())..];
    if tail.len() >= 4 && tail.iter().any(|&b| b != 0) {
        out.extend_from_slice(tail);
    }
    out.resize(out.len().next_multiple_of(if console { 2048 } else { align }), 0);

    // Empty lumps keep the offset they had (A4) where it still lies inside the file.
    for (p, pl) in planned.iter().enumerate() {
        if pl.bytes.is_empty() && placed[p].1 == 0 && placed[p].0 > out.len() as u64 {
            placed[p].0 = 0;
        }
    }
    // Header in the target byte order (the branch's lump_t field order kept).
    out[0..4].copy_from_slice(match to {
        Endian::Little => b"VBSP",
        Endian::Big => b"PSBV",
    });
    out[4..8].copy_from_slice(&to.u32_bytes(header.version));
    for (p, pl) in planned.iter().enumerate() {
        let (ofs, len) = placed[p];
        let b = 8 + 16 * pl.entry.index;
        let version = pl.entry.version.unwrap_or(0);
        let (f0, f1, f2) = if version_first { (version, ofs as u32, len as u32) } else { (ofs as u32, len as u32, version) };
        if ofs > i32::MAX as u64 || len > i32::MAX as u64 {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "lump offset", requested: ofs.max(len), limit: i32::MAX as u64 }));
        }
        out[b..b + 4].copy_from_slice(&to.u32_bytes(f0));
        out[b + 4..b + 8].copy_from_slice(&to.u32_bytes(f1));
        out[b + 8..b + 12].copy_from_slice(&to.u32_bytes(f2));
        out[b + 12..b + 16].copy_from_slice(&to.u32_bytes(pl.fourcc));
    }
    let rev = u32_at(data, 8 + 64 * 16, from).unwrap_or(0);
    out[8 + 64 * 16..HEADER_LEN].copy_from_slice(&to.u32_bytes(rev));
    Ok(out)
}
