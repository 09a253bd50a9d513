//! Lightmaps on every corpus map: each face's rectangle lies inside its page with its padding,
//! sampling the atlas at each luxel centre gives back the lighting data's own samples (exact
//! bytes for 8-bit sources, equal decoded values for float ones), the padded rectangles share no
//! texel, and the luxel extents agree with how the compilers laid the lighting lump out.

use crate::common;

use bspkit::lightmap::{self, AtlasOptions, LightOptions, Lightmaps, SampleFormat, PADDING};
use bspkit::lumps::lighting::{stored, LightSet};
use bspkit::{Bsp, Family};

/// Every face inside its page, every luxel equal to its source sample, no shared texel.
/// Returns the number of luxels compared.
fn check_atlases(name: &str, set: &LightSet, lm: &Lightmaps) -> usize {
    assert_eq!(set.faces.len(), lm.faces.len(), "{name}: faces");
    let format = set.format.unwrap();
    let b = format.bytes();
    let mut owner: Vec<Vec<i64>> = lm.pages.iter().map(|p| vec![-1; p[0] as usize * p[1] as usize]).collect();
    let mut compared = 0;
    for (k, f) in set.faces.iter().enumerate() {
        let e = lm.face(f.lump, f.index).unwrap_or_else(|| panic!("{name}: face {} has no entry", f.index));
        let [pw, ph] = lm.pages[e.page as usize];
        assert!(e.x >= PADDING && e.y >= PADDING, "{name}: face {} at ({}, {})", f.index, e.x, e.y);
        assert!(e.x + e.width + PADDING <= pw && e.y + e.height + PADDING <= ph, "{name}: face {} leaves its {pw}×{ph} page", f.index);
        // The UVs of the corner luxel centres lie inside the rectangle shrunk by half a texel.
        for g in [[0.0, 0.0], [1.0, 1.0]] {
            let uv = lm.uv_grid(e, g);
            let (tx, ty) = (uv[0] * pw as f32, uv[1] * ph as f32);
            assert!(tx >= e.x as f32 + 0.49 && tx <= (e.x + e.width) as f32 - 0.49, "{name}: face {} u {tx}", f.index);
            assert!(ty >= e.y as f32 + 0.49 && ty <= (e.y + e.height) as f32 - 0.49, "{name}: face {} v {ty}", f.index);
        }
        for y in e.y - PADDING..e.y + e.height + PADDING {
            for x in e.x - PADDING..e.x + e.width + PADDING {
                let o = &mut owner[e.page as usize][(y * pw + x) as usize];
                assert_eq!(*o, -1, "{name}: texel ({x}, {y}) of page {} belongs to two faces", e.page);
                *o = k as i64;
            }
        }
        for s in &set.slots[f.slot_range()] {
            for layer in 0..f.layers {
                let a = lm.atlas(e.page, s.style, layer).unwrap_or_else(|| panic!("{name}: no atlas for style {}", s.style));
                for j in 0..f.height as usize {
                    for i in 0..f.width as usize {
                        let at = s.offset + layer as usize * f.layer_step + j * f.stride + i * b;
                        let src = &set.data[at..at + b];
                        let texel = a.texel(e.x + i as u32, e.y + j as u32);
                        match format {
                            SampleFormat::Grey8 => assert_eq!(texel, [src[0]; 3], "{name}: face {} luxel {i},{j}", f.index),
                            SampleFormat::Rgb8 => assert_eq!(texel, src, "{name}: face {} luxel {i},{j}", f.index),
                            f2 => assert_eq!(a.stored(e.x + i as u32, e.y + j as u32), stored(f2, src), "{name}: face {}", f.index),
                        }
                        compared += 1;
                    }
                }
                // Padding repeats the edge: the texel left of luxel (0, 0) equals it.
                assert_eq!(a.texel(e.x - 1, e.y - 1), a.texel(e.x, e.y), "{name}: face {} padding", f.index);
            }
        }
    }
    compared
}

/// A face's block of samples in the lighting data: `(start, bytes, bytes the format puts
/// before the block)`.
type Block = (usize, usize, usize);

/// The blocks of `set`'s faces: Source puts one average sample per style before each face's
/// block, Genesis3D one flag byte; Strata (v25) adds one set of lightmap alpha per style.
fn blocks(set: &LightSet, family: Family, strata: bool) -> Vec<Block> {
    let b = set.format.unwrap().bytes();
    set.faces
        .iter()
        .filter(|f| f.slots.1 > 0)
        .map(|f| {
            let sets = f.layers as usize + usize::from(strata);
            let start = set.slots[f.slots.0 as usize].offset;
            let before = match family {
                Family::Source => 4 * f.slots.1 as usize,
                Family::Genesis3D => 1,
                _ => 0,
            };
            (start, f.slots.1 as usize * sets * f.width as usize * f.height as usize * b, before)
        })
        .collect()
}

/// In offset order, how many blocks end exactly where the next one (with what precedes it)
/// starts, and how many do not. Compilers may round a block up to a multiple of four samples
/// (ericw-tools), and the last block may be followed by anything.
fn layout_agreement(mut blocks: Vec<Block>, sample: usize) -> (usize, usize) {
    blocks.sort_unstable();
    blocks.dedup_by_key(|b| b.0);
    let (mut ok, mut bad) = (0, 0);
    for w in blocks.windows(2) {
        let ((start, len, _), (next, _, before)) = (w[0], w[1]);
        let end = start + len + before;
        let aligned = start + (len / sample).div_ceil(4) * 4 * sample + before;
        if end == next || aligned == next {
            ok += 1;
        } else {
            bad += 1;
            if bad < 4 {
                eprintln!("  block at {start} of {len} bytes ends at {end}, next at {next}");
            }
        }
    }
    (ok, bad)
}

#[test]
fn corpus_lightmaps_give_back_the_lighting_lump() {
    let Some(corpus) = common::corpus("corpus_lightmaps_give_back_the_lighting_lump") else { return };
    let mut families = std::collections::BTreeSet::new();
    for m in common::maps(&corpus) {
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        for hdr in [false, true] {
            let opts = LightOptions { hdr, ..Default::default() };
            let set = lightmap::collect(&bsp, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            let lm = lightmap::build(&bsp, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            if set.faces.is_empty() {
                eprintln!("{name}: no lit faces ({:?})", lm.warnings);
                continue;
            }
            let n = check_atlases(&name, &set, &lm);
            families.insert(bsp.family().as_str());
            let (ok, bad) = if bsp.family() == Family::Quake3 {
                (0, 0)
            } else {
                // Maps with BSPX DECOUPLED_LM also carry the texinfo-sized lightmaps: check both.
                let strata = bsp.branch().id == "strata";
                let mut all = blocks(&set, bsp.family(), strata);
                let plain = lightmap::collect(&bsp, &LightOptions { decoupled: false, ..opts }).unwrap();
                assert_eq!(plain.format, set.format);
                all.extend(blocks(&plain, bsp.family(), strata));
                layout_agreement(all, set.format.unwrap().bytes())
            };
            eprintln!(
                "{name} hdr={hdr}: {} faces, {n} luxels from {} ({:?}), pages {:?}, layout {ok} ok {bad} off, {} warnings",
                lm.faces.len(),
                lm.source,
                lm.format,
                lm.pages,
                lm.warnings.len()
            );
            assert_eq!(bad, 0, "{name}: {bad} faces' extents disagree with the lighting lump's layout");
        }
    }
    eprintln!("families with lightmaps: {families:?}");
}

/// `build_with(AtlasOptions::BASE)` (what `bsp export` uses): the same faces and pages as
/// `build`, one image a page (style 0 where the page has it, else its lowest style; layer 0),
/// grey samples one byte a texel, every texel equal to `build`'s image of that style.
#[test]
fn corpus_base_atlases_are_builds_style_zero_images() {
    let Some(corpus) = common::corpus("corpus_base_atlases_are_builds_style_zero_images") else { return };
    // The maps are independent cases: on every core (common::par_map).
    let maps = common::maps(&corpus);
    let each = common::par_map(&maps, |m| {
        let Ok(bsp) = Bsp::open(&m.path) else { return false };
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        let opts = LightOptions::default();
        let all = lightmap::build(&bsp, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let base = lightmap::build_with(&bsp, &opts, AtlasOptions::BASE).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(all.faces, base.faces, "{name}: faces");
        assert_eq!(all.pages, base.pages, "{name}: pages");
        if all.faces.is_empty() {
            return false;
        }
        assert_eq!(base.atlases.len(), base.pages.len(), "{name}: one image a page");
        for a in &base.atlases {
            let lowest = all.atlases.iter().filter(|b| b.page == a.page && b.layer == 0).map(|b| b.style).min();
            let want = if all.atlas(a.page, 0, 0).is_some() { Some(0) } else { lowest };
            assert_eq!((Some(a.style), a.layer), (want, 0), "{name}: page {} image", a.page);
            let full = all.atlas(a.page, a.style, 0).unwrap();
            if all.format == Some(SampleFormat::Grey8) {
                assert_eq!(a.format, SampleFormat::Grey8, "{name}");
                let widened: Vec<u8> = a.texels.iter().flat_map(|&v| [v; 3]).collect();
                assert!(widened == full.texels, "{name}: page {} differs from build's", a.page);
            } else {
                assert!(a.texels == full.texels && a.format == full.format, "{name}: page {} differs from build's", a.page);
            }
            // The PNG decodes to the image's 8-bit pixels.
            let png = base.atlas_png(a).unwrap();
            let img = bspkit::texture::ImageRgba::decode_png(&png, 1 << 30).unwrap();
            let rgb: Vec<u8> = img.pixels.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            assert!(rgb == *full.rgb8(), "{name}: page {} PNG", a.page);
        }
        true
    });
    let checked = each.into_iter().filter(|&c| c).count();
    eprintln!("{checked} maps with lightmaps checked");
}

/// GoldSrc regression (the texture-space-mins bug some viewers had): a face whose texture
/// coordinates run from s = 40 to 100 and t = 3 to 37 has its luxel grid anchored at
/// floor(40 / 16) = 2 and floor(3 / 16) = 0, so it is 6 × 4 luxels (not 5 × 3 from its own
/// extent), and the world point at s = 64, t = 16 is the centre of luxel (2, 1).
#[test]
fn goldsrc_extents_anchor_at_the_snapped_texture_space_mins() {
    use bspkit::branches::goldsrc::GOLDSRC;
    use bspkit::branches::quake1::*;
    use zerocopy::byteorder::{F32, I32, U16};
    use zerocopy::IntoBytes;

    let corners = [[40.0f32, 3.0, 0.0], [100.0, 3.0, 0.0], [100.0, 37.0, 0.0], [40.0, 37.0, 0.0]];
    let vertices: Vec<Vertex> = corners.iter().map(|p| Vertex { point: p.map(F32::new) }).collect();
    let edges: Vec<Edge29> = (0..4u16).map(|i| Edge29 { v: [U16::new(i), U16::new((i + 1) % 4)] }).collect();
    let surfedges: Vec<SurfEdge> = (0..4).map(I32::new).collect();
    let texinfo =
        TexInfo { vecs: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]].map(|r| r.map(F32::new)), miptex: I32::new(0), flags: I32::new(0) };
    let face = <Face29 as FaceRecord>::make(0, 0, 0, 4, 0, [0, 255, 255, 255], 0);
    // 6 × 4 RGB luxels, each holding (column, row, 7).
    let lighting: Vec<u8> = (0..4u8).flat_map(|j| (0..6u8).flat_map(move |i| [i, j, 7])).collect();
    let bytes = bspkit::build::BspBuilder::new(&GOLDSRC)
        .lump(LUMP_VERTICES, vertices.as_bytes())
        .lump(LUMP_EDGES, edges.as_bytes())
        .lump(LUMP_SURFEDGES, surfedges.as_bytes())
        .lump(LUMP_TEXINFO, texinfo.as_bytes())
        .lump(LUMP_FACES, face.as_bytes())
        .lump(LUMP_LIGHTING, lighting)
        .build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
    assert!(lm.warnings.is_empty(), "{:?}", lm.warnings);
    let f = lm.face(LUMP_FACES as u16, 0).expect("the face is lit");
    assert_eq!((f.width, f.height), (6, 4));
    let [pw, ph] = lm.pages[0];
    let texel = |uv: [f32; 2]| ((uv[0] * pw as f32).floor() as u32, (uv[1] * ph as f32).floor() as u32);
    let a = lm.atlas(f.page, 0, 0).unwrap();
    // The point at s = 64, t = 16 samples luxel (2, 1).
    let (x, y) = texel(lm.uv(f, [64.0, 16.0, 0.0]).unwrap());
    assert_eq!(a.texel(x, y), [2, 1, 7]);
    // The first corner (s = 40, t = 3) lies half a luxel right of luxel 0's centre, 0.1875 down.
    let uv = lm.uv(f, corners[0]).unwrap();
    assert!((uv[0] * pw as f32 - (f.x as f32 + 1.0)).abs() < 1e-4 && (uv[1] * ph as f32 - (f.y as f32 + 0.6875)).abs() < 1e-4);
    // Every corner samples the luxel under it: s / 16 − 2 and t / 16.
    for c in corners {
        let (x, y) = texel(lm.uv(f, c).unwrap());
        let want = [((c[0] / 16.0 - 2.0 + 0.5).floor() as u8).min(5), ((c[1] / 16.0 + 0.5).floor() as u8).min(3), 7];
        assert_eq!(a.texel(x, y), want, "corner {c:?}");
    }
}

/// A `.lit` file beside a Quake map gives the RGB samples (three bytes for each grey one); a
/// damaged or oversized one is ignored with a warning and the grey lump is used.
#[test]
fn quake_lit_file_beside_the_map_gives_rgb() {
    let dir = common::scratch("lit");
    let map = dir.join("room.bsp");
    std::fs::write(&map, bspkit::build::sample_quake1()).unwrap();
    let bsp = Bsp::open(&map).unwrap();
    let grey = bsp.lump(bspkit::branches::quake1::LUMP_LIGHTING).unwrap().to_vec();
    let mut lit = b"QLIT\x01\0\0\0".to_vec();
    lit.extend(grey.iter().flat_map(|&g| [g, 255 - g, 7]));
    std::fs::write(dir.join("room.lit"), &lit).unwrap();
    let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
    assert_eq!((lm.source.as_str(), lm.format), ("room.lit", Some(SampleFormat::Rgb8)));
    let plain = lightmap::build(&bsp, &LightOptions { external: false, ..Default::default() }).unwrap();
    assert_eq!(plain.format, Some(SampleFormat::Grey8));
    for (f, g) in lm.faces.iter().zip(&plain.faces) {
        let (a, b) = (lm.atlas(f.page, 0, 0).unwrap(), plain.atlas(g.page, 0, 0).unwrap());
        let v = b.texel(g.x, g.y)[0];
        assert_eq!(a.texel(f.x, f.y), [v, 255 - v, 7]);
    }
    // A wrong version and a file longer than the grey lump allows are both refused.
    for bad in [
        {
            let mut l = lit.clone();
            l[4] = 2;
            l
        },
        {
            let mut l = lit.clone();
            l.extend([0; 9]);
            l
        },
    ] {
        std::fs::write(dir.join("room.lit"), &bad).unwrap();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        assert_eq!(lm.format, Some(SampleFormat::Grey8));
        assert!(lm.warnings.iter().any(|w| w.contains("room.lit")), "{:?}", lm.warnings);
    }
}

/// A builder-made RBSP map: a surface with two light styles on two pages; each style's atlas
/// holds its own page's rectangle, and a draw vertex's page coordinate maps into the face.
#[test]
fn rbsp_styles_come_from_their_own_pages() {
    use bspkit::branches::quake3::{SurfaceRbsp, LUMP_LIGHTMAPS, LUMP_SURFACES, RBSP};
    use zerocopy::{FromZeros, IntoBytes};

    let mut s = SurfaceRbsp::new_zeroed();
    s.surface_type.set(1);
    s.lightmap_styles = [0, 32, 255, 255];
    s.vertex_styles = [0, 255, 255, 255];
    for (k, (page, x, y)) in [(0, 10, 20), (1, 30, 40), (-1, 0, 0), (-1, 0, 0)].into_iter().enumerate() {
        s.lightmap_num[k].set(page);
        s.lightmap_x[k].set(x);
        s.lightmap_y[k].set(y);
    }
    s.lightmap_width.set(3);
    s.lightmap_height.set(2);
    // Two 128² pages: page p, texel (x, y) = (p, x, y).
    let mut pages = vec![0u8; 2 * 128 * 128 * 3];
    for p in 0..2 {
        for y in 0..128 {
            for x in 0..128 {
                let at = ((p * 128 + y) * 128 + x) * 3;
                pages[at..at + 3].copy_from_slice(&[p as u8, x as u8, y as u8]);
            }
        }
    }
    let bytes = bspkit::build::BspBuilder::new(&RBSP).lump(LUMP_SURFACES, s.as_bytes()).lump(LUMP_LIGHTMAPS, pages).build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
    assert!(lm.warnings.is_empty(), "{:?}", lm.warnings);
    let f = lm.face(LUMP_SURFACES as u16, 0).unwrap();
    assert_eq!(f.styles(), [0, 32]);
    assert_eq!(lm.atlas(f.page, 0, 0).unwrap().texel(f.x + 2, f.y + 1), [0, 12, 21]);
    assert_eq!(lm.atlas(f.page, 32, 0).unwrap().texel(f.x + 2, f.y + 1), [1, 32, 41]);
    // The centre of page texel (11, 21) is luxel (1, 1) of the face.
    let uv = lm.uv_native(f, [11.5 / 128.0, 21.5 / 128.0]).unwrap();
    let [pw, ph] = lm.pages[0];
    assert_eq!([uv[0] * pw as f32, uv[1] * ph as f32], [f.x as f32 + 1.5, f.y as f32 + 1.5]);
}

/// BSPX lighting of a Quake map: `RGBLIGHTING` replaces the grey samples, and with HDR asked
/// for `LIGHTING_E5BGR9` is read (four bytes per grey byte), decoded exactly.
#[test]
fn quake_bspx_rgb_and_hdr_lighting() {
    let mut bytes = bspkit::build::sample_quake1();
    let grey = Bsp::from_bytes(&bytes).unwrap().lump(bspkit::branches::quake1::LUMP_LIGHTING).unwrap().to_vec();
    let rgb: Vec<u8> = grey.iter().flat_map(|&g| [g, g / 2, 3]).collect();
    // E5BGR9 with exponent 24 (scale 1): red = the grey value, green 1, blue 2.
    let hdr: Vec<u8> = grey.iter().flat_map(|&g| ((24u32 << 27) | (2 << 18) | (1 << 9) | g as u32).to_le_bytes()).collect();
    bytes.resize((bytes.len() + 3) & !3, 0);
    let at = bytes.len() as u64;
    bytes.extend(bspkit::lumps::bspx::encode(at, &[("RGBLIGHTING", &rgb), ("LIGHTING_E5BGR9", &hdr)]));
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let plain = lightmap::build(&Bsp::from_bytes(&bspkit::build::sample_quake1()).unwrap(), &LightOptions::default()).unwrap();
    let ldr = lightmap::build(&bsp, &LightOptions::default()).unwrap();
    let hi = lightmap::build(&bsp, &LightOptions { hdr: true, ..Default::default() }).unwrap();
    assert_eq!((ldr.source.as_str(), hi.source.as_str()), ("BSPX RGBLIGHTING", "BSPX LIGHTING_E5BGR9"));
    assert_eq!(hi.format, Some(SampleFormat::E5bgr9));
    for ((p, l), h) in plain.faces.iter().zip(&ldr.faces).zip(&hi.faces) {
        let g = plain.atlas(p.page, 0, 0).unwrap().texel(p.x + 1, p.y)[0];
        assert_eq!(ldr.atlas(l.page, 0, 0).unwrap().texel(l.x + 1, l.y), [g, g / 2, 3]);
        assert_eq!(hi.atlas(h.page, 0, 0).unwrap().stored(h.x + 1, h.y), [g as f32, 1.0, 2.0]);
    }
}

/// Every face's vertices map (through [`Lightmaps::uv`], or [`Lightmaps::uv_native`] for
/// Quake 3 draw vertices) inside the face's own atlas rectangle shrunk by half a texel, i.e.
/// between its corner luxel centres. Source displacement faces are left out (their vertices
/// are mapped over the grid, [`Lightmaps::uv_grid`]).
#[test]
fn corpus_face_uvs_stay_inside_their_rectangle() {
    use bspkit::branches::{genesis3d, quake1, quake2, quake3, source};
    use bspkit::lumps::lighting::Mapping;
    let Some(corpus) = common::corpus("corpus_face_uvs_stay_inside_their_rectangle") else { return };
    let inside = |name: &str, lm: &Lightmaps, f: &bspkit::lightmap::FaceEntry, uv: [f32; 2]| {
        let [pw, ph] = lm.pages[f.page as usize];
        let (x, y) = (uv[0] * pw as f32, uv[1] * ph as f32);
        let ok = |v: f32, lo: u32, n: u32| v >= lo as f32 + 0.5 - 2e-3 && v <= (lo + n) as f32 - 0.5 + 2e-3;
        assert!(
            ok(x, f.x, f.width) && ok(y, f.y, f.height),
            "{name}: face {}: ({x}, {y}) outside {}×{} at ({}, {})",
            f.index,
            f.width,
            f.height,
            f.x,
            f.y
        );
    };
    let mut vertices = 0usize;
    for m in common::maps(&corpus) {
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        let mut check = |index: usize, points: &mut dyn Iterator<Item = [f32; 3]>| {
            let Some(f) = lm.face(lm.faces.first().map_or(0, |f| f.lump), index as u32) else { return };
            for p in points {
                inside(&name, &lm, f, lm.uv(f, p).unwrap());
                vertices += 1;
            }
        };
        match bsp.family() {
            Family::Quake | Family::GoldSrc if bsp.branch().id == "quake1" || bsp.family() == Family::GoldSrc => {
                let v = quake1::View::<quake1::Bsp29>::new(&bsp);
                let (se, ed, vx) = (v.surfedges().unwrap(), v.edges().unwrap(), v.vertices().unwrap());
                for (i, f) in v.faces().unwrap().iter().enumerate() {
                    let (first, n) = (f.first_edge.get() as usize, f.num_edges.get() as usize);
                    check(
                        i,
                        &mut se[first..first + n].iter().map(|s| {
                            let s = s.get();
                            let e = ed[s.unsigned_abs() as usize];
                            vx[e.v[usize::from(s < 0)].get() as usize].point.map(|c| c.get())
                        }),
                    );
                }
            }
            Family::Quake2 if bsp.branch().id == "quake2" => {
                let v = quake2::View::<quake2::Ibsp>::new(&bsp).unwrap();
                let mut pts = Vec::new();
                for (i, f) in v.faces().unwrap().iter().enumerate() {
                    v.face_points(f, &mut pts).unwrap();
                    check(i, &mut pts.iter().copied());
                }
            }
            Family::Source if bsp.endian() == bspkit::Endian::Little => {
                let v = source::View::<zerocopy::LittleEndian>::new(&bsp).unwrap();
                let (se, ed, vx) = (v.surfedges().unwrap(), v.edges().unwrap(), v.vertices().unwrap());
                let faces = if lm.faces.first().is_some_and(|f| f.lump == 58) { v.faces_hdr() } else { v.faces_ldr() }.unwrap();
                for (i, f) in faces.iter().enumerate() {
                    if f.dispinfo >= 0 {
                        continue;
                    }
                    check(
                        i,
                        &mut (f.firstedge..f.firstedge + f.numedges).map(|k| {
                            let s = se[k as usize].edge.get();
                            let e = ed.get(s.unsigned_abs() as usize).unwrap();
                            source::records::v3(&vx[e[usize::from(s < 0)] as usize].pos)
                        }),
                    );
                }
            }
            Family::Genesis3D => {
                // Corners in the scene's Z-up frame, as the mesh gives them to `uv`.
                let g = genesis3d::View::new(&bsp).unwrap().geometry().unwrap();
                for i in 0..g.faces.len() {
                    let pts: Vec<[f32; 3]> = g.corners(i).unwrap().map(|c| genesis3d::mesh::to_z_up(c.unwrap().position)).collect();
                    check(i, &mut pts.into_iter());
                }
            }
            Family::Quake3 if bsp.branch().id == "quake3" => {
                let v = quake3::View::<quake3::Ibsp>::new(&bsp).unwrap();
                for (i, s) in v.surfaces().unwrap().iter().enumerate() {
                    let Some(f) = lm.face(quake3::LUMP_SURFACES as u16, i as u32) else { continue };
                    assert!(matches!(f.mapping, Mapping::Page { .. }));
                    for d in v.surface_vertices(s).unwrap() {
                        inside(&name, &lm, f, lm.uv_native(f, d.lightmap.map(|c| c.get())).unwrap());
                        vertices += 1;
                    }
                }
            }
            _ => {}
        }
    }
    eprintln!("{vertices} vertices checked");
    assert!(vertices > 10_000, "{vertices} vertices checked");
}

/// Genesis3D's luxel grid: computed from each lit face's corners the way the compiler does (in
/// `f32`, 16 texture units a luxel), the extents equal the sizes the level stores, on every lit
/// face of the corpus level; and the lighting starts one flag byte after each face's offset.
#[test]
fn genesis3d_extents_match_the_stored_sizes() {
    use bspkit::branches::genesis3d::{self, lighting::luxel_extents};
    let Some(corpus) = common::corpus("genesis3d_extents_match_the_stored_sizes") else { return };
    let mut lit = 0;
    for m in common::maps(&corpus) {
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        if bsp.family() != Family::Genesis3D {
            continue;
        }
        let g = genesis3d::View::new(&bsp).unwrap().geometry().unwrap();
        let set = lightmap::collect(&bsp, &LightOptions::default()).unwrap();
        assert!(set.warnings.is_empty(), "{:?}", set.warnings);
        for (i, f) in g.faces.iter().enumerate() {
            if f.light_offset.get() < 0 {
                continue;
            }
            lit += 1;
            let axes = g.texinfo(i).unwrap().vecs.map(|v| v.map(|c| c.get()));
            let pts: Vec<[f32; 3]> = g.corners(i).unwrap().map(|c| c.unwrap().position).collect();
            let (_, size) = luxel_extents(axes, pts.iter().copied()).unwrap();
            assert_eq!(size, [f.light_width.get() as i64, f.light_height.get() as i64], "face {i}");
            assert_eq!(g.light_data[f.light_offset.get() as usize], 1, "face {i}: flag byte");
            let entry = set.faces.iter().find(|e| e.index == i as u32).unwrap();
            assert_eq!(set.slots[entry.slots.0 as usize].offset, f.light_offset.get() as usize + 1);
        }
    }
    eprintln!("Genesis3D: {lit} lit faces, every computed extent equal to the stored size");
    assert!(lit > 0, "no lit Genesis3D face in the corpus");
}
