//! Quake 1 containers: BSP29 (`quake1`) ↔ `BSP2` ↔ `2PSB` (quake_family.md B.1; the record
//! sets of [`crate::branches::quake1::records`]), and the same for Quake 2's IBSP 38 ↔ Qbism
//! ([`BRANCHES_QUAKE2`]; 19 lumps after an `IBSP`/`QBSP` magic and version 38).
//!
//! The three share the header size (a 4-byte version or magic, 15 `{offset, length}` pairs)
//! and every lump but the seven whose records widen: nodes, faces, clip nodes, leaves, mark
//! surfaces, edges (16-bit indices and counts become 32-bit), and BSP2's float node/leaf bounds
//! (16-bit integers in BSP29 and 2PSB). Records are converted field by field by name from the
//! two schemas. The target's limits are checked first: an index or count that does not fit a
//! 16-bit field is refused ([`ErrorKind::Unsupported`], listing the first few), as the result
//! would not load; float bounds that are not whole numbers are rounded outwards (mins down,
//! maxs up) and reported. A trailing BSPX block (quake_facts.md §2) moves with the lump data
//! and its absolute offsets are rebased.

use crate::branch::{Branch, HeaderKind};
use crate::bsp::Bsp;
use crate::bytes::{u32_at, Endian};
use crate::convert::report::{LumpAction, Report};
use crate::directory;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{Kind, RecordSchema, Scalar};

/// Branches this module converts between.
pub const BRANCHES: [&str; 3] = ["quake1", "bsp2", "2psb"];

/// Quake 2 containers converted the same way (quake_facts.md §4.1): IBSP 38 ↔ Qbism `QBSP` 38,
/// whose nodes, faces, leaves, leaf faces / brushes, edges and brush sides widen to 32 bits
/// (nodes and leaves with float bounds, like BSP2).
pub const BRANCHES_QUAKE2: [&str; 2] = ["quake2", "qbism"];

/// Quake ↔ Hexen II (quake_facts.md §1.4): only the model record differs (eight hull head
/// nodes instead of four).
pub const BRANCHES_HEXEN2: [&str; 2] = ["quake1", "hexen2"];

/// Every pair of these converts ([`convert_container`]): the three containers, and Hexen II's
/// model layout (BSP29 records) with each of them. Hexen II ↔ `BSP2` / `2PSB` is both moves at
/// once, field by field by name: the widened records, and four hull head nodes added (0,
/// `defaulted`) or hulls 4–7 dropped (`dropped` where not 0).
pub const BRANCHES_ALL: [&str; 4] = ["quake1", "hexen2", "bsp2", "2psb"];

/// GoldSrc ↔ Blue Shift (quake_facts.md §3): the same file with directory entries 0 and 1
/// (entities and planes) swapped; nothing else moves, so both ways are lossless and exact.
pub fn swap_first_entries(bsp: &Bsp, report: &mut Report) -> Result<Vec<u8>> {
    let data = bsp.data();
    let (_, entries) = directory::parse(data, bsp.branch(), Endian::Little)?;
    if entries.len() != 15 || data.len() < 4 + 15 * 8 {
        return Err(Error::malformed(format!("{} header", bsp.branch().id)));
    }
    let mut out = data.to_vec();
    out[4..12].copy_from_slice(&data[12..20]);
    out[12..20].copy_from_slice(&data[4..12]);
    for e in &entries {
        report.lumps.push(LumpAction {
            index: e.index,
            name: e.name,
            action: "copied",
            source_bytes: e.length,
            target_bytes: e.length,
            source_lzma: false,
            target_lzma: false,
        });
    }
    Ok(out)
}

fn read(b: &[u8], s: Scalar) -> f64 {
    let le2 = || [b[0], b[1]];
    let le4 = || [b[0], b[1], b[2], b[3]];
    match s {
        Scalar::U8 => b[0] as f64,
        Scalar::I8 => b[0] as i8 as f64,
        Scalar::U16 => u16::from_le_bytes(le2()) as f64,
        Scalar::I16 => i16::from_le_bytes(le2()) as f64,
        Scalar::U32 => u32::from_le_bytes(le4()) as f64,
        Scalar::I32 => i32::from_le_bytes(le4()) as f64,
        Scalar::F32 => f32::from_le_bytes(le4()) as f64,
        // Not used by these record sets.
        Scalar::U64 | Scalar::I64 | Scalar::F64 => f64::NAN,
    }
}

/// Write `v` as `s`; `Err(())` when it does not fit.
fn write(out: &mut [u8], s: Scalar, v: f64) -> std::result::Result<(), ()> {
    let int = |lo: f64, hi: f64| if v.fract() == 0.0 && v >= lo && v <= hi { Ok(v as i64) } else { Err(()) };
    match s {
        Scalar::U8 => out[0] = int(0.0, 255.0)? as u8,
        Scalar::I8 => out[0] = int(-128.0, 127.0)? as i8 as u8,
        Scalar::U16 => out[..2].copy_from_slice(&(int(0.0, 65535.0)? as u16).to_le_bytes()),
        Scalar::I16 => out[..2].copy_from_slice(&(int(-32768.0, 32767.0)? as i16).to_le_bytes()),
        Scalar::U32 => out[..4].copy_from_slice(&(int(0.0, u32::MAX as f64)? as u32).to_le_bytes()),
        Scalar::I32 => out[..4].copy_from_slice(&(int(i32::MIN as f64, i32::MAX as f64)? as i32).to_le_bytes()),
        Scalar::F32 => {
            let f = v as f32;
            if f as f64 != v {
                return Err(());
            }
            out[..4].copy_from_slice(&f.to_le_bytes())
        }
        Scalar::U64 | Scalar::I64 | Scalar::F64 => return Err(()),
    }
    Ok(())
}

/// BSP29 node and leaf child/index fields are signed where negative numbers mean leaves or
/// contents; an unsigned 16-bit index (`first_face`, `v`, mark surfaces) stays unsigned. The
/// schemas' scalar types say which, so values carry over exactly.
fn convert_records(
    src: &[u8],
    from: &RecordSchema,
    to: &RecordSchema,
    lump: &str,
    rounded: &mut usize,
    misfit: &mut Vec<String>,
    widths: &mut Widths,
) -> Result<Vec<u8>> {
    if src.len() % from.size != 0 {
        return Err(Error::new(ErrorKind::BadLumpLength { length: src.len() as u64, record_size: from.size }).in_lump(lump));
    }
    let n = src.len() / from.size;
    let mut out = vec![0u8; n * to.size];
    for (r, rec) in src.chunks_exact(from.size).enumerate() {
        let dst = &mut out[r * to.size..(r + 1) * to.size];
        for tf in to.fields {
            let sf = from
                .field(tf.name)
                .ok_or_else(|| Error::new(ErrorKind::Unsupported(format!("{lump}: field {} has no counterpart", tf.name))))?;
            let (Kind::Scalar { scalar: ss, .. }, Kind::Scalar { scalar: ts, .. }) = (sf.ty.kind, tf.ty.kind) else {
                return Err(Error::new(ErrorKind::Unsupported(format!("{lump}: nested field {}", tf.name))));
            };
            // An array of another length (Hexen II's eight hull head nodes, Quake's four):
            // values beyond the source's are zero, beyond the target's are counted if not zero.
            if sf.ty.count() > tf.ty.count() {
                let extra = (tf.ty.count()..sf.ty.count()).filter(|&i| read(&rec[sf.offset + i * ss.size()..], ss) != 0.0).count();
                widths.dropped += extra;
            } else if sf.ty.count() < tf.ty.count() {
                widths.defaulted += tf.ty.count() - sf.ty.count();
            }
            for i in 0..tf.ty.count() {
                if i >= sf.ty.count() {
                    continue;
                }
                let mut v = read(&rec[sf.offset + i * ss.size()..], ss);
                if ts != Scalar::F32 && v.fract() != 0.0 && v.is_finite() {
                    // Float bounds to integers: outwards, so the box still holds the geometry.
                    v = if tf.name == "mins" { v.floor() } else { v.ceil() };
                    *rounded += 1;
                }
                if write(&mut dst[tf.offset + i * ts.size()..], ts, v).is_err() && misfit.len() < 100 {
                    misfit.push(format!("{lump}[{r}].{}[{i}] = {v}", tf.name));
                }
            }
        }
    }
    Ok(out)
}

/// Values of array fields a conversion widens or narrows (Hexen II's model head nodes).
#[derive(Default)]
struct Widths {
    /// Target values with no source value (left zero).
    defaulted: usize,
    /// Non-zero source values the target has no room for.
    dropped: usize,
}

/// Convert between two of [`BRANCHES`], or two of [`BRANCHES_QUAKE2`] (the same header kind
/// and lump count on both sides).
pub fn convert_container(bsp: &Bsp, to: &'static Branch, report: &mut Report) -> Result<Vec<u8>> {
    let from = bsp.branch();
    let data = bsp.data();
    let (header, entries) = directory::parse(data, from, Endian::Little)?;
    let n = entries.len();
    let base = match from.header {
        HeaderKind::IdMagic { .. } => 8,
        _ => 4,
    };
    if header.len != base + 8 * n || to.lumps.len() != n {
        return Err(Error::malformed(format!("{} header of {} bytes", from.id, header.len)));
    }
    let header_len = header.len;
    let mut lumps: Vec<Vec<u8>> = Vec::with_capacity(n);
    let (mut rounded, mut misfit, mut widths) = (0usize, Vec::new(), Widths::default());
    for e in &entries {
        let raw = crate::bytes::slice(data, e.offset, e.length).map_err(|err| bsp.lump_error(e.index, err))?;
        let s_from = crate::schema::lump_schema(from, e.name, 0, Endian::Little);
        let s_to = crate::schema::lump_schema(to, e.name, 0, Endian::Little);
        let (bytes, action) = match (s_from, s_to) {
            (Some(a), Some(b)) if a.size != b.size || a.name != b.name => (
                convert_records(raw, a, b, e.name, &mut rounded, &mut misfit, &mut widths).map_err(|err| bsp.lump_error(e.index, err))?,
                "converted",
            ),
            _ => (raw.to_vec(), "copied"),
        };
        report.lumps.push(LumpAction {
            index: e.index,
            name: e.name,
            action,
            source_bytes: raw.len() as u64,
            target_bytes: bytes.len() as u64,
            source_lzma: false,
            target_lzma: false,
        });
        lumps.push(bytes);
    }
    if !misfit.is_empty() {
        let shown: Vec<&str> = misfit.iter().take(5).map(String::as_str).collect();
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "{} value(s) do not fit {}'s fields (first: {})",
            if misfit.len() >= 100 { "100 or more".to_string() } else { misfit.len().to_string() },
            to.id,
            shown.join(", ")
        ))));
    }
    if widths.dropped > 0 {
        report.loss(
            None,
            Some("MODELS".into()),
            "dropped",
            format!("{} head node(s) of hulls 4-7 that are not 0: {} models have four hulls", widths.dropped, to.id),
        );
    }
    if widths.defaulted > 0 {
        report.loss(
            None,
            Some("MODELS".into()),
            "defaulted",
            format!(
                "{} head node(s) of hulls 4-7 set to 0 (clip node 0): {} has no such hulls; Hexen II's collision for those sizes needs them compiled",
                widths.defaulted,
                bsp.branch().id
            ),
        );
    }
    if rounded > 0 {
        report.loss(None, Some("NODES/LEAVES".into()), "truncated", format!("{rounded} float bound(s) rounded outwards to whole numbers"));
    }

    // Layout: the source's file order, 4-byte aligned; gaps of zeros redone, others kept.
    let mut order: Vec<usize> = (0..n).filter(|&i| entries[i].length > 0).collect();
    order.sort_by_key(|&i| (entries[i].offset, i));
    let mut out = vec![0u8; header_len];
    let mut placed = vec![(0u64, 0u64); n];
    let mut cursor_old = header_len as u64;
    for &i in &order {
        let e = &entries[i];
        if e.offset < cursor_old {
            return Err(Error::new(ErrorKind::Unsupported(format!("lump {} shares bytes with another lump or the header", e.name))));
        }
        let gap = &data[cursor_old as usize..e.offset as usize];
        if gap.len() >= 4 && gap.iter().any(|&b| b != 0) {
            out.extend_from_slice(gap);
        }
        cursor_old = e.offset + e.length;
        out.resize(out.len().next_multiple_of(4), 0);
        placed[i] = (out.len() as u64, lumps[i].len() as u64);
        out.extend_from_slice(&lumps[i]);
    }
    // Empty lumps keep the place their offset names (compilers write the next lump's start):
    // the start or end of a lump that moved moves with it.
    for (i, e) in entries.iter().enumerate() {
        if e.length > 0 {
            continue;
        }
        let at_start = order.iter().find(|&&j| entries[j].offset == e.offset).map(|&j| placed[j].0);
        let at_end = order.iter().find(|&&j| entries[j].offset + entries[j].length == e.offset).map(|&j| placed[j].0 + placed[j].1);
        placed[i].0 = at_start.or(at_end).unwrap_or(if e.offset <= out.len() as u64 { e.offset } else { 0 });
    }
    // After the last lump: a BSPX block moves (its offsets rebased); zeros are padding; other
    // bytes are kept.
    let tail_at = (cursor_old as usize).min(data.len());
    let tail = &data[tail_at..];
    let bspx_old = tail_at.next_multiple_of(4);
    if data.get(bspx_old..bspx_old + 4) == Some(b"BSPX") {
        out.resize(out.len().next_multiple_of(4), 0);
        let new_at = out.len();
        out.extend_from_slice(&data[bspx_old..]);
        let delta = new_at as i64 - bspx_old as i64;
        let count = u32_at(data, bspx_old + 4, Endian::Little).unwrap_or(0) as usize;
        if count > (data.len() - bspx_old) / 32 {
            return Err(Error::malformed(format!("BSPX count {count} does not fit the file")).at(bspx_old as u64));
        }
        for k in 0..count {
            let f = new_at + 8 + 32 * k + 24;
            let old = u32_at(&out, f, Endian::Little).unwrap_or(0) as i64;
            let new = u32::try_from(old + delta).map_err(|_| Error::malformed("BSPX offset out of range").at(f as u64))?;
            out[f..f + 4].copy_from_slice(&new.to_le_bytes());
        }
    } else if tail.len() >= 4 && tail.iter().any(|&b| b != 0) {
        out.extend_from_slice(tail);
    }
    out.resize(out.len().next_multiple_of(4), 0);

    match (to.header, base) {
        (HeaderKind::Quake { magic: Some(m) }, 4) => out[0..4].copy_from_slice(&m),
        (HeaderKind::Quake { magic: None }, 4) => out[0..4].copy_from_slice(&29i32.to_le_bytes()),
        (HeaderKind::IdMagic { magic }, 8) => {
            out[0..4].copy_from_slice(&magic);
            out[4..8].copy_from_slice(&header.version.to_le_bytes());
        }
        _ => return Err(Error::new(ErrorKind::Unsupported(format!("{} is not a container of {}'s kind", to.id, from.id)))),
    }
    for (i, (ofs, len)) in placed.iter().enumerate() {
        let b = base + 8 * i;
        let (o, l) = (i32::try_from(*ofs), i32::try_from(*len));
        let (Ok(o), Ok(l)) = (o, l) else {
            return Err(Error::new(ErrorKind::LimitExceeded { what: "lump offset", requested: *ofs, limit: i32::MAX as u64 }));
        };
        out[b..b + 4].copy_from_slice(&o.to_le_bytes());
        out[b + 4..b + 8].copy_from_slice(&l.to_le_bytes());
    }
    Ok(out)
}
