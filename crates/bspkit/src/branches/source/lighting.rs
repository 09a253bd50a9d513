//! Source lightmaps (source.md §7.5, §10.1, §19; open_questions.md A15, A16): `ColorRGBExp32`
//! samples, four bytes a luxel, at the byte offset `lightofs` of the lighting lump.
//!
//! * Size: the face's stored `LightmapTextureSizeInLuxels + 1` each way; mapping: the texinfo's
//!   lightmap vectors minus the face's `LightmapTextureMinsInLuxels` (luxel centres at integer
//!   coordinates, as the engine's `+ 0.5` before dividing by the page size says).
//! * Styles (up to 4, VTMB 8; unused = 255) follow one another. A bump-mapped face (texinfo
//!   flag `SURF_BUMPLIGHT` 0x800) has four sample sets per style: the flat lightmap, then one for
//!   each of the three bump basis directions (the engine's `AccumulateBumpedLightstyles` reads
//!   them in that order); they become layers 0–3.
//! * Strata Source (v25) follows each style's sample sets with one set of four-byte lightmap
//!   alpha values ("sun amount"), skipped here (observed: every face of the corpus's v25 map has
//!   exactly that much more data).
//! * LDR: faces lump 7 with lighting lump 8; HDR: faces lump 58 (or 7 when 58 is empty) with
//!   lighting lump 53. A map with only one of them uses that one, whichever was asked for.
//! * Displacements use their base face's lightmap; the engine spreads it evenly over the
//!   displacement grid (`CCoreDispInfo::CalcDispSurfCoords` from corner luxel coordinates
//!   (0, 0), (0, h), (w, h), (w, 0) of the rotated base quad), which
//!   [`Lightmaps::uv_grid`](crate::lightmap::Lightmaps::uv_grid) reproduces.

use std::borrow::Cow;

use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

use super::lumps::{Layout, LUMP_FACES, LUMP_FACES_HDR, LUMP_LIGHTING, LUMP_LIGHTING_HDR};
use super::view::{Faces, View};
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::error::Result;
use crate::lumps::lighting::{LightOptions, LightSet, Mapping, SampleFormat};

/// Texinfo flag: the face has bump-mapped lightmaps (source.md §10.1).
pub const SURF_BUMPLIGHT: i32 = 0x800;

/// The lit faces of a Source map.
pub fn collect<'a>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    match bsp.endian() {
        Endian::Little => collect_with::<LittleEndian>(bsp, opts),
        Endian::Big => collect_with::<BigEndian>(bsp, opts),
    }
}

/// The faces and lighting lumps to read: `(faces, lighting)`.
fn lumps(bsp: &Bsp, hdr: bool) -> (usize, usize) {
    let has = |i: usize| bsp.entry(i).is_some_and(|e| e.length > 0);
    let hdr_pair = (if has(LUMP_FACES_HDR) { LUMP_FACES_HDR } else { LUMP_FACES }, LUMP_LIGHTING_HDR);
    let ldr_pair = (if has(LUMP_FACES) { LUMP_FACES } else { LUMP_FACES_HDR }, LUMP_LIGHTING);
    match (has(LUMP_LIGHTING), has(LUMP_LIGHTING_HDR)) {
        (_, true) if hdr => hdr_pair,
        (false, true) => hdr_pair,
        _ => ldr_pair,
    }
}

fn collect_with<'a, O: ByteOrder>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    let view = View::<O>::new(bsp)?;
    let (face_lump, light_lump) = lumps(bsp, opts.hdr);
    let faces = if face_lump == LUMP_FACES_HDR { view.faces_hdr()? } else { view.faces_ldr()? };
    let texinfo = view.texinfo()?;
    let mut set = LightSet {
        data: Cow::Borrowed(bsp.lump(light_lump)?),
        format: Some(SampleFormat::RgbExp32),
        source: bsp.branch().lumps.get(light_lump).map_or("LIGHTING", |l| l.name).to_string(),
        source_lump: Some(light_lump),
        overbright: None,
        ..Default::default()
    };
    if opts.hdr && light_lump != LUMP_LIGHTING_HDR {
        set.warnings.push("the map has no HDR lighting (lump 53); its LDR lighting is used".into());
    }
    // Strata Source writes, after each style's samples, four bytes a luxel of lightmap alpha
    // ("sun amount", read by its engine after the flat or the four bump sample sets); they are
    // not light and are skipped.
    let extra = u8::from(view.layout() == Layout::Strata);
    set.faces.reserve_exact(faces.len());
    // The three face layouts share these field names.
    macro_rules! each {
        ($list:expr) => {
            for (i, f) in $list.iter().enumerate() {
                let ofs = f.lightofs.get() as i64;
                let n = f.styles.iter().take_while(|&&s| s != 255).count();
                if ofs < 0 || n == 0 {
                    continue;
                }
                let warn = |set: &mut LightSet, what: String| set.warnings.push(format!("face {i} (lump {face_lump} record {i}): {what}"));
                let Some(ti) = usize::try_from(f.texinfo.get() as i64).ok().and_then(|t| texinfo.get(t)) else {
                    warn(&mut set, format!("texinfo {} is out of range", f.texinfo.get()));
                    continue;
                };
                let mins = f.lightmap_mins.map(|m| m.get() as f64);
                let row = |j: usize| {
                    let v = ti.lightmap_vecs[j].map(|c| c.get() as f64);
                    [v[0], v[1], v[2], v[3] - mins[j]]
                };
                let size = f.lightmap_size.map(|s| s.get() as i64 + 1);
                let layers = if ti.flags.get() & SURF_BUMPLIGHT != 0 { 4 } else { 1 };
                let mapping = Mapping::Planar { s: row(0), t: row(1) };
                if let Err(e) = set.push_consecutive(face_lump, i, &f.styles[..n], ofs as u64, size, (layers, extra), mapping, ofs) {
                    warn(&mut set, format!("lightofs {ofs}: {e}"));
                }
            }
        };
    }
    match faces {
        Faces::Standard(list) => each!(list),
        Faces::Vtmb(list) => each!(list),
        Faces::Strata(list) => each!(list),
        Faces::VindictusV2(list) => each!(list),
    }
    Ok(set)
}
