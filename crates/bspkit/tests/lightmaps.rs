//! Lightmaps on every corpus map: each face's rectangle lies inside its page with its padding,
//! sampling the atlas at each luxel centre gives back the lighting data's own samples (exact
//! bytes for 8-bit sources, equal decoded values for float ones), the padded rectangles share no
//! texel, and the luxel extents agree with how the compilers laid the lighting lump out.

mod common;

use bspkit::lightmap::{self, LightOptions, Lightmaps, SampleFormat, PADDING};
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
/// block; Strata (v25) adds one set of lightmap alpha per style.
fn blocks(set: &LightSet, source: bool, strata: bool) -> Vec<Block> {
    let b = set.format.unwrap().bytes();
    set.faces
        .iter()
        .filter(|f| f.slots.1 > 0)
        .map(|f| {
            let sets = f.layers as usize + usize::from(strata);
            let start = set.slots[f.slots.0 as usize].offset;
            (start, f.slots.1 as usize * sets * f.width as usize * f.height as usize * b, if source { 4 * f.slots.1 as usize } else { 0 })
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
                let source = bsp.family() == Family::Source;
                let strata = bsp.branch().id == "strata";
                let mut all = blocks(&set, source, strata);
                let plain = lightmap::collect(&bsp, &LightOptions { decoupled: false, ..opts }).unwrap();
                assert_eq!(plain.format, set.format);
                all.extend(blocks(&plain, source, strata));
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
