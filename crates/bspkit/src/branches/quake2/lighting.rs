//! Quake 2 (IBSP 38, Qbism) lightmaps: RGB, three bytes a luxel, `lightofs` in bytes; sizes as
//! Quake 1 ([`luxel_extents`](crate::lumps::lighting::luxel_extents), 16 units a luxel or `1 << LMSHIFT[face]`), BSPX `DECOUPLED_LM`
//! per face where present (quake_facts.md §4, §2).

use std::borrow::Cow;

use super::lumps::{LUMP_FACES, LUMP_LIGHTING};
use super::records::{Daikatana, FaceRecord, Ibsp, Layout, Qbism, Sin, Sof, TexInfoRecord};
use super::view::View;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::bspx;
use crate::lumps::lighting::{overbright, LightOptions, LightSet, QuakeFace, QuakeFaceTables, SampleFormat};

/// The lit faces of a Quake 2-family map (Quake 2, Qbism, SiN, Soldier of Fortune, Daikatana:
/// RGB lighting addressed by each face's light offset and styles).
pub fn collect<'a>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    match bsp.branch().id {
        id if id == Qbism::BRANCH_ID => collect_with::<Qbism>(bsp, opts),
        id if id == Sin::BRANCH_ID => collect_with::<Sin>(bsp, opts),
        id if id == Sof::BRANCH_ID => collect_with::<Sof>(bsp, opts),
        id if id == Daikatana::BRANCH_ID => collect_with::<Daikatana>(bsp, opts),
        _ => collect_with::<Ibsp>(bsp, opts),
    }
}

fn collect_with<'a, L: Layout>(bsp: &'a Bsp<'a>, opts: &LightOptions) -> Result<LightSet<'a>> {
    let view = View::<L>::new(bsp)?;
    let (faces, texinfo) = (view.faces()?, view.texinfo()?);
    let mut set = LightSet {
        data: Cow::Borrowed(view.lighting()?),
        format: Some(SampleFormat::Rgb8),
        source: "LIGHTING".into(),
        source_lump: Some(LUMP_LIGHTING),
        overbright: overbright(bsp.family()),
        ..Default::default()
    };
    let bspx = bspx::of(bsp).unwrap_or(None);
    let tables = QuakeFaceTables::new(|name| bspx.as_ref().and_then(|b| b.lump(bsp.data(), name)), faces.len(), opts);
    let mut corners = Vec::with_capacity(64);
    // One allocation, not a doubling vector (the face table is the export's peak memory).
    set.faces.reserve_exact(faces.len());
    let corner_tables = view.corner_tables();
    for (i, f) in faces.iter().enumerate() {
        let vecs = usize::try_from(f.texinfo()).ok().and_then(|t| texinfo.get(t)).map(|t| t.vecs());
        let face = QuakeFace { lump: LUMP_FACES, index: i, styles: f.styles(), light_ofs: f.light_offset(), vecs };
        set.push_quake_face(face, &tables, 1, &mut corners, |out| {
            corner_tables.as_ref().map_err(|e| e.to_string())?.face_points(f, out).map_err(|e| e.to_string())
        });
    }
    Ok(set)
}
