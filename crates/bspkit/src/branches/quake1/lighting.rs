//! Quake 1 (BSP29, BSP2, 2PSB, Hexen II) and GoldSrc lightmaps: which samples each face has and
//! where (quake_family.md B.9, B.10; quake_facts.md §2 for BSPX).
//!
//! * Sizes: the texinfo-projected extents snapped to the luxel grid
//!   ([`luxel_extents`](crate::lumps::lighting::luxel_extents)), 16 units a luxel, or
//!   `1 << LMSHIFT[face]` with the BSPX `LMSHIFT` lump; BSPX `DECOUPLED_LM` replaces size,
//!   offset and mapping per face.
//! * Samples: Quake's `LIGHTING` is grey, one byte a luxel, and `lightofs` counts luxels; a
//!   `.lit` file beside the map (`QLIT`, version 1) or BSPX `RGBLIGHTING` hold RGB at three
//!   times that offset, BSPX `LIGHTING_E5BGR9` HDR at four times. GoldSrc's `LIGHTING` is RGB
//!   and `lightofs` counts bytes. Styles follow one another (`width × height` samples each) and
//!   end at the first 255.
//! * Choice of samples (as QuakeSpasm and FTE): `LIGHTING_E5BGR9` when HDR is asked for, then
//!   the `.lit` file, then `RGBLIGHTING`, then `LIGHTING`.

use std::borrow::Cow;
use std::io::Read;

use super::records::{EdgeRecord, FaceRecord, Layout, LE};
use super::view::View;
use crate::branch::Family;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::bspx::{self, Bspx};
use crate::lumps::lighting::{lit_limit, overbright, LightOptions, LightSet, QuakeFace, QuakeFaceTables, SampleFormat};

/// The lit faces of a Quake 1 or GoldSrc map.
pub fn collect<'a>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    super::lumps::with_record_set!(bsp.branch(), collect_with(bsp, opts))
}

/// The samples a Quake map's faces read, and the factor from `lightofs` to a byte offset.
fn samples<'a>(
    bsp: &'a Bsp<'a>,
    opts: &LightOptions,
    bspx: Option<&Bspx>,
    grey: &'a [u8],
    lighting_lump: usize,
    set: &mut LightSet<'a>,
) -> usize {
    let bx = |name: &str| bspx.and_then(|b| b.lump(bsp.data(), name));
    if bsp.family() == Family::GoldSrc {
        set.data = Cow::Borrowed(grey);
        set.format = Some(SampleFormat::Rgb8);
        set.source = "LIGHTING".into();
        set.source_lump = Some(lighting_lump);
        return 1;
    }
    if bsp.branch().id == "quake64" {
        // Quake 64: 16-bit luxels, bits RRRRRGGGGGBBBBBB over two bytes (quakespasm's
        // Mod_LoadLighting), each channel widened to 8 bits by its place (quakespasm shifts
        // green's two low bits by 5, not 3, which darkens green by up to 24/255; the layout it
        // states is followed here); `lightofs` counts bytes of the lump (halved per face in
        // `collect_with`).
        set.data = Cow::Owned(
            grey.chunks_exact(2).flat_map(|p| [p[0] & 0xf8, ((p[0] & 0x07) << 5) | ((p[1] & 0xc0) >> 3), (p[1] & 0x3f) << 2]).collect(),
        );
        set.format = Some(SampleFormat::Rgb8);
        set.source = "LIGHTING (Quake 64, 16-bit)".into();
        set.source_lump = Some(lighting_lump);
        return 3;
    }
    if opts.hdr {
        if let Some(d) = bx("LIGHTING_E5BGR9") {
            set.data = Cow::Borrowed(d);
            set.format = Some(SampleFormat::E5bgr9);
            set.source = "BSPX LIGHTING_E5BGR9".into();
            return 4;
        }
    }
    if opts.external && bsp.options().external_lumps {
        if let Some((name, data)) = read_lit(bsp, grey.len(), &mut set.warnings) {
            set.data = Cow::Owned(data);
            set.format = Some(SampleFormat::Rgb8);
            set.source = name;
            return 3;
        }
    }
    if let Some(d) = bx("RGBLIGHTING") {
        set.data = Cow::Borrowed(d);
        set.format = Some(SampleFormat::Rgb8);
        set.source = "BSPX RGBLIGHTING".into();
        return 3;
    }
    set.data = Cow::Borrowed(grey);
    set.format = Some(SampleFormat::Grey8);
    set.source = "LIGHTING".into();
    set.source_lump = Some(lighting_lump);
    1
}

/// The RGB data of the `.lit` file beside the map: a regular file, `QLIT` version 1, no longer
/// than its header and three bytes for each byte of the grey lump (read no further than that).
fn read_lit(bsp: &Bsp, grey_len: usize, warnings: &mut Vec<String>) -> Option<(String, Vec<u8>)> {
    let path = bsp.path()?.with_extension("lit");
    let meta = std::fs::metadata(&path).ok()?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if !meta.is_file() {
        warnings.push(format!("{}: not a regular file, not read", path.display()));
        return None;
    }
    let limit = lit_limit(grey_len);
    if meta.len() > limit {
        warnings.push(format!("{}: {} bytes, more than the {limit} its map's LIGHTING lump allows; not read", path.display(), meta.len()));
        return None;
    }
    let mut data = Vec::new();
    match std::fs::File::open(&path).and_then(|f| f.take(limit).read_to_end(&mut data)) {
        Ok(_) => {}
        Err(e) => {
            warnings.push(format!("{}: {e}", path.display()));
            return None;
        }
    }
    let version = data.get(4..8).map(|v| i32::from_le_bytes([v[0], v[1], v[2], v[3]]));
    if data.get(..4) != Some(b"QLIT") || version != Some(1) {
        warnings.push(format!("{}: not a QLIT version 1 file (offset 0); the map's own lighting is used", path.display()));
        return None;
    }
    data.drain(..8);
    Some((name, data))
}

fn collect_with<'a, L: Layout>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    let view = View::<L>::new(bsp);
    let (faces, texinfo, surfedges, edges, vertices) = (view.faces()?, view.texinfo()?, view.surfedges()?, view.edges()?, view.vertices()?);
    let (face_lump, lighting_lump) = (view.slots().faces, view.slots().lighting);
    let grey = view.lighting()?;
    let bspx = bspx::of(bsp).unwrap_or(None);
    let mut set = LightSet { overbright: overbright(bsp.family()), ..Default::default() };
    let scale = samples(bsp, opts, bspx.as_ref(), grey, lighting_lump, &mut set);
    let tables = QuakeFaceTables::new(|name| bspx.as_ref().and_then(|b| b.lump(bsp.data(), name)), faces.len(), opts);
    set.faces.reserve(faces.len());
    let mut corners = Vec::with_capacity(64);
    // Quake 64's offsets count bytes of 16-bit luxels (quakespasm: `lofs /= 2`).
    let q64 = bsp.branch().id == "quake64";
    for (i, f) in faces.iter().enumerate() {
        let vecs = usize::try_from(f.texinfo()).ok().and_then(|t| texinfo.get(t)).map(|t| t.vecs.map(|r| r.map(|v| v.get())));
        let light_ofs = if q64 && f.light_ofs() >= 0 { f.light_ofs() / 2 } else { f.light_ofs() };
        let face = QuakeFace { lump: face_lump, index: i, styles: f.styles(), light_ofs, vecs };
        set.push_quake_face(face, &tables, scale as u64, &mut corners, |out| face_points::<L>(f, surfedges, edges, vertices, out));
    }
    Ok(set)
}

/// A face's corners in winding order, into `out`.
fn face_points<L: Layout>(
    f: &L::Face,
    surfedges: &[zerocopy::byteorder::I32<LE>],
    edges: &[L::Edge],
    vertices: &[super::records::Vertex],
    out: &mut Vec<[f32; 3]>,
) -> std::result::Result<(), String> {
    out.clear();
    let (first, count) = f.edges();
    let list = usize::try_from(first)
        .ok()
        .zip(usize::try_from(count).ok())
        .and_then(|(a, n)| surfedges.get(a..a.checked_add(n)?))
        .ok_or_else(|| format!("surfedges {first}+{count} are outside 0..{}", surfedges.len()))?;
    for se in list {
        let se = se.get() as i64;
        let e = usize::try_from(se.unsigned_abs()).ok().and_then(|e| edges.get(e)).ok_or_else(|| format!("surfedge {se} names no edge"))?;
        let v = e.v(usize::from(se < 0));
        let p = usize::try_from(v).ok().and_then(|v| vertices.get(v)).ok_or_else(|| format!("edge vertex {v} is out of range"))?;
        out.push(p.point.map(|c| c.get()));
    }
    Ok(())
}
