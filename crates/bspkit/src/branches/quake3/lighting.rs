//! Quake 3-family lightmaps: RGB pages of 128 × 128 texels (FBSP 512 × 512) in lump 14; each
//! surface names its page and the corner and size of its rectangle in it (quake_family.md A.4,
//! A.6; quake_facts.md §5.2, §5.3). RBSP and FBSP surfaces have four light styles, each with its
//! own page and corner and one shared size. Pages of deluxe maps (q3map2 `-deluxe`) sit between
//! the light pages and are never named by a surface's rectangle, so they are left out. Surfaces
//! with a negative page (vertex-lit, or white) and flares have no lightmap.
//!
//! Vertices carry their own page-relative lightmap coordinates, so the mapping for the atlas is
//! [`Mapping::Page`]: the rectangle's corner on its page (style 0's for RBSP / FBSP).

use std::borrow::Cow;

use super::lumps::with_record_set;
use super::records::{DrawVert, DrawVertEf2, DrawVertRbsp, Layout, Surface, SurfaceEf2, SurfaceRbsp, SurfaceRitual};
use super::view::View;
use crate::bsp::Bsp;
use crate::error::Result;
use crate::lumps::lighting::{overbright, FaceLight, LightSet, Mapping, SampleFormat, StyleSlot};

/// A surface's lightmap fields: `(style, page, x, y)` per style in use, and the shared size.
trait LightmapFields {
    fn styles(&self) -> impl Iterator<Item = (u8, i64, i64, i64)>;
    fn surface_type(&self) -> i32;
    fn size(&self) -> (i64, i64);
}

/// Surfaces whose one lightmap carries the Quake 3 field names, whatever the record's order.
macro_rules! single_lightmap {
    ($($t:ty),*) => {$(
        impl LightmapFields for $t {
            fn styles(&self) -> impl Iterator<Item = (u8, i64, i64, i64)> {
                std::iter::once((0, self.lightmap_num.get() as i64, self.lightmap_x.get() as i64, self.lightmap_y.get() as i64))
            }
            fn surface_type(&self) -> i32 {
                self.surface_type.get()
            }
            fn size(&self) -> (i64, i64) {
                (self.lightmap_width.get() as i64, self.lightmap_height.get() as i64)
            }
        }
    )*};
}
single_lightmap!(Surface, SurfaceRitual, SurfaceEf2);

impl LightmapCoord for DrawVertEf2 {
    fn lightmap(&self, _: usize) -> [f32; 2] {
        self.lightmap.map(|c| c.get())
    }
}

impl LightmapFields for SurfaceRbsp {
    fn styles(&self) -> impl Iterator<Item = (u8, i64, i64, i64)> {
        (0..4).filter(move |&k| self.lightmap_styles[k] != 255).map(move |k| {
            (self.lightmap_styles[k], self.lightmap_num[k].get() as i64, self.lightmap_x[k].get() as i64, self.lightmap_y[k].get() as i64)
        })
    }
    fn surface_type(&self) -> i32 {
        self.surface_type.get()
    }
    fn size(&self) -> (i64, i64) {
        (self.lightmap_width.get() as i64, self.lightmap_height.get() as i64)
    }
}

/// A draw vertex's lightmap coordinate for style slot `k` (IBSP has one).
trait LightmapCoord {
    fn lightmap(&self, k: usize) -> [f32; 2];
}

impl LightmapCoord for DrawVert {
    fn lightmap(&self, _: usize) -> [f32; 2] {
        self.lightmap.map(|c| c.get())
    }
}

impl LightmapCoord for DrawVertRbsp {
    fn lightmap(&self, k: usize) -> [f32; 2] {
        self.lightmap[k.min(3)].map(|c| c.get())
    }
}

/// The rectangle the vertices' lightmap coordinates `k` cover on a `ps` page, for surfaces whose
/// stored rectangle is empty (some tools other than q3map2 leave it zero; the engine reads only
/// the vertex coordinates): from the luxel under the smallest coordinate to the one under the
/// largest.
fn vertex_rect<V: LightmapCoord>(verts: &[V], k: usize, ps: usize) -> Option<([i64; 2], [i64; 2])> {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for v in verts {
        let c = v.lightmap(k);
        for j in 0..2 {
            lo[j] = lo[j].min(c[j]);
            hi[j] = hi[j].max(c[j]);
        }
    }
    if !(lo.iter().chain(&hi).all(|v| v.is_finite())) {
        return None;
    }
    let a = lo.map(|v| ((v as f64 * ps as f64).floor() as i64).clamp(0, ps as i64 - 1));
    let b = hi.map(|v| ((v as f64 * ps as f64).ceil() as i64 - 1).clamp(0, ps as i64 - 1));
    Some((a, [(b[0] - a[0] + 1).max(1), (b[1] - a[1] + 1).max(1)]))
}

/// The lit surfaces of a Quake 3-family map.
pub fn collect<'a>(bsp: &'a Bsp<'a>) -> Result<LightSet<'a>> {
    with_record_set!(bsp.branch(), collect_with(bsp))
}

fn collect_with<'a, L: Layout>(bsp: &'a Bsp<'a>) -> Result<LightSet<'a>>
where
    L::Surface: LightmapFields,
    L::DrawVert: LightmapCoord,
{
    let view = View::<L>::new(bsp)?;
    let (lightmaps_lump, surfaces_lump) = (view.slots().lightmaps, view.slots().surfaces);
    let surfaces = view.surfaces()?;
    let ps = L::LIGHTMAP_SIZE;
    let page_bytes = ps * ps * 3;
    let mut set = LightSet {
        data: Cow::Borrowed(bsp.lump(lightmaps_lump)?),
        format: Some(SampleFormat::Rgb8),
        source: "LIGHTMAPS".into(),
        source_lump: Some(lightmaps_lump),
        overbright: overbright(bsp.family()),
        ..Default::default()
    };
    let pages = set.data.len() / page_bytes;
    set.faces.reserve_exact(surfaces.len());
    for (i, s) in surfaces.iter().enumerate() {
        // Type 4 = flare: no geometry to light.
        if s.surface_type() == 4 {
            continue;
        }
        let styles: Vec<(u8, i64, i64, i64)> = s.styles().filter(|&(_, page, _, _)| page >= 0).collect();
        let Some(&(_, page0, _, _)) = styles.first() else { continue };
        let warn = |set: &mut LightSet, what: String| set.warnings.push(format!("surface {i} (FACES record {i}): {what}"));
        if pages == 0 {
            warn(&mut set, format!("lightmap page {page0}: the LIGHTMAPS lump is empty (external lightmaps are not read)"));
            continue;
        }
        let (mut w, mut h) = s.size();
        let mut rects: Vec<(u8, i64, i64, i64)> = styles.clone();
        if w <= 0 || h <= 0 {
            // No stored rectangle: take the one the vertices' coordinates cover, per style.
            let verts = match view.surface_vertices(s) {
                Ok(v) => v,
                Err(e) => {
                    warn(&mut set, e.to_string());
                    continue;
                }
            };
            let mut size = [0i64; 2];
            for (k, r) in rects.iter_mut().enumerate() {
                let Some((at, sz)) = vertex_rect(verts, k, ps) else { continue };
                (r.2, r.3) = (at[0], at[1]);
                size = [size[0].max(sz[0]), size[1].max(sz[1])];
            }
            (w, h) = (size[0].min(ps as i64), size[1].min(ps as i64));
            for r in rects.iter_mut() {
                (r.2, r.3) = (r.2.min(ps as i64 - w), r.3.min(ps as i64 - h));
            }
        }
        let (x0, y0) = (rects[0].2, rects[0].3);
        let fits = |page: i64, x: i64, y: i64| {
            page < pages as i64 && x >= 0 && y >= 0 && w >= 1 && h >= 1 && x + w <= ps as i64 && y + h <= ps as i64
        };
        let first = set.slots.len();
        let mut bad = None;
        for (style, page, x, y) in rects {
            if !fits(page, x, y) {
                bad = Some(format!(
                    "style {style}: rectangle {w}×{h} at ({x}, {y}) of page {page} is outside the {pages} page(s) of {ps}×{ps}"
                ));
                break;
            }
            let offset = page as usize * page_bytes + (y as usize * ps + x as usize) * 3;
            set.slots.push(StyleSlot { style, offset });
        }
        if let Some(e) = bad {
            set.slots.truncate(first);
            warn(&mut set, e);
            continue;
        }
        let face = FaceLight {
            lump: surfaces_lump as u16,
            index: i as u32,
            width: w as u32,
            height: h as u32,
            stride: ps * 3,
            layers: 1,
            layer_step: 0,
            slots: (first as u32, (set.slots.len() - first) as u8),
            mapping: Mapping::Page { origin: [x0 as u32, y0 as u32], page_size: [ps as u32; 2] },
            source_offset: page0,
        };
        match set.check(&face) {
            Ok(()) => set.faces.push(face),
            Err(e) => {
                set.slots.truncate(first);
                warn(&mut set, e);
            }
        }
    }
    Ok(set)
}
