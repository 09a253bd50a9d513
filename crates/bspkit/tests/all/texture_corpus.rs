//! Textures of the real corpus maps (`BSPKIT_CORPUS`; skipped without it):
//! - every miptex embedded in a Quake 1 / GoldSrc map decodes, and each pixel is the palette
//!   colour of its index (the map's own palette for GoldSrc, a test palette for Quake), with
//!   index 255 transparent exactly in `{` textures;
//! - with no palette given, `TextureSource` decodes every embedded miptex of every Quake 1 map
//!   (BSP29, BSP2, 2PSB) through the palette that ships with bspkit (LibreQuake's `.lmp`);
//! - every texture a Genesis3D level carries decodes, each pixel its own palette's colour;
//! - every VTF in a Source pakfile (cube maps, HDR, Xbox 360 `VTFX`, Strata 7.6) decodes;
//! - `TextureSource::textures` runs on every map of every family, and whatever is not found
//!   is reported with a reason, never a panic.

use crate::common;

use bspkit::branches::quake1::texture::{decode_entry, entries, Entry};
use bspkit::lumps::miptex;
use bspkit::texture::{Palette, TextureOptions, TextureSource};
use bspkit::{Bsp, Family};

#[test]
fn every_embedded_miptex_decodes_to_its_palette_colours() {
    let Some(corpus) = common::corpus("every_embedded_miptex_decodes_to_its_palette_colours") else { return };
    let test_palette = Palette::from_rgb(&(0..768).map(|i| (i * 7 % 256) as u8).collect::<Vec<_>>());
    let (mut embedded, mut decoded, mut maps) = (0, 0, 0);
    for m in common::maps(&corpus) {
        // Formats bspkit does not read (Genesis3D) are covered by the open tests.
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        if !matches!(bsp.family(), Family::Quake | Family::GoldSrc) {
            continue;
        }
        maps += 1;
        let lump = miptex::of(&bsp).unwrap().unwrap();
        for e in entries(&bsp) {
            let Entry::Embedded(i) = e else { continue };
            embedded += 1;
            let tex = lump.get(i).unwrap().unwrap();
            let t = decode_entry(&bsp, i, Some(&test_palette)).unwrap_or_else(|err| panic!("{} miptex {i}: {err}", m.path.display()));
            let own = tex.palette.map(Palette::from_rgb);
            let pal = own.as_ref().unwrap_or(&test_palette);
            let masked = tex.name().starts_with('{');
            assert_eq!((t.width(), t.height()), (tex.width(), tex.height()));
            for (p, &ix) in t.image().pixels.chunks_exact(4).zip(tex.mip(0).unwrap()) {
                let want = if masked && ix == 255 {
                    [0, 0, 0, 0]
                } else {
                    let [r, g, b] = pal.0[ix as usize];
                    [r, g, b, 255]
                };
                assert_eq!(p, want, "{} {}", m.path.display(), tex.name());
            }
            decoded += 1;
        }
    }
    eprintln!("embedded miptex: {decoded} of {embedded} decoded, in {maps} Quake 1 / GoldSrc maps");
    assert_eq!(decoded, embedded);
    assert!(embedded > 0);
}

#[test]
fn quake1_embedded_textures_decode_with_the_shipped_palette_by_default() {
    let Some(corpus) = common::corpus("quake1_embedded_textures_decode_with_the_shipped_palette_by_default") else { return };
    let lq = bspkit::assets::palette::LIBREQUAKE_LMP;
    let (mut embedded, mut decoded, mut maps) = (0, 0, 0);
    for m in common::maps(&corpus) {
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        if bsp.family() != Family::Quake || bsp.branch().id == "hexen2" {
            continue;
        }
        maps += 1;
        let src = TextureSource::new(&bsp, &TextureOptions::default());
        assert!(src.warnings().is_empty(), "{}: {:?}", m.path.display(), src.warnings());
        let lump = miptex::of(&bsp).unwrap().unwrap();
        let mut carried = Vec::new();
        for e in entries(&bsp) {
            if let Entry::Embedded(i) = e {
                let tex = lump.get(i).unwrap().unwrap();
                carried.push((tex.name().to_string(), tex.mip(0).unwrap().to_vec()));
            }
        }
        embedded += carried.len();
        // textures() yields the embedded ones first, in lump order.
        for (r, (name, mip)) in src.textures().zip(&carried) {
            let t = r.unwrap_or_else(|err| panic!("{} {name}: {err}", m.path.display()));
            assert_eq!(&t.name, name);
            let masked = name.starts_with('{');
            for (p, &ix) in t.image().pixels.chunks_exact(4).zip(mip) {
                let i = ix as usize * 3;
                let want = if masked && ix == 255 { [0, 0, 0, 0] } else { [lq[i], lq[i + 1], lq[i + 2], 255] };
                assert_eq!(p, want, "{} {name}", m.path.display());
            }
            decoded += 1;
        }
    }
    eprintln!("Quake 1 embedded miptex with the shipped palette: {decoded} of {embedded} decoded, in {maps} maps");
    assert_eq!(decoded, embedded);
    assert!(maps >= 5 && embedded > 0, "{maps} maps, {embedded} textures");
}

#[test]
fn every_genesis3d_texture_decodes_through_its_palette() {
    let Some(corpus) = common::corpus("every_genesis3d_texture_decodes_through_its_palette") else { return };
    let (mut listed, mut decoded) = (0, 0);
    for m in common::maps(&corpus) {
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        if bsp.family() != Family::Genesis3D {
            continue;
        }
        let v = bspkit::branches::genesis3d::View::new(&bsp).unwrap();
        let (records, data, palettes) = (v.textures().unwrap(), v.tex_data().unwrap(), v.palettes().unwrap());
        // Every texture comes out of the source's walk, under its own name.
        let walked: Vec<_> = TextureSource::new(&bsp, &TextureOptions::default()).textures().collect();
        assert_eq!(walked.len(), records.len(), "{}", m.path.display());
        for (i, (r, t)) in records.iter().zip(walked).enumerate() {
            listed += 1;
            let t = t.unwrap_or_else(|e| panic!("{} texture {i}: {e}", m.path.display()));
            assert_eq!(t.name, r.name());
            let (w, h, ofs) = (r.width.get() as usize, r.height.get() as usize, r.offset.get() as usize);
            assert_eq!((t.width() as usize, t.height() as usize), (w, h));
            let pal = &palettes[r.palette.get() as usize].colors;
            for (p, &ix) in t.image().pixels.chunks_exact(4).zip(&data[ofs..ofs + w * h]) {
                let [r, g, b] = pal[ix as usize];
                assert_eq!(p, [r, g, b, 255]);
            }
            decoded += 1;
        }
    }
    eprintln!("Genesis3D textures: {decoded} of {listed} decoded");
    assert_eq!(decoded, listed);
}

#[test]
fn every_pakfile_vtf_decodes_and_every_map_resolves() {
    let Some(corpus) = common::corpus("every_pakfile_vtf_decodes_and_every_map_resolves") else { return };
    let (mut vtfs, mut images, mut found, mut missing) = (0, 0, 0, 0);
    let mut kinds = std::collections::BTreeMap::new();
    for m in common::maps(&corpus) {
        // Formats bspkit does not read (Genesis3D) are covered by the open tests.
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        let src = TextureSource::new(&bsp, &TextureOptions::default());
        for r in src.textures() {
            match r {
                Ok(t) => {
                    found += 1;
                    if t.name.to_ascii_lowercase().ends_with(".vtf") {
                        vtfs += 1;
                        images += t.layers().len();
                        assert!(t.layers().iter().all(|l| l.rgba.pixels.len() == l.rgba.width as usize * l.rgba.height as usize * 4));
                    }
                }
                Err(miss) => {
                    // Without game directories nothing outside the map can be found; a texture the
                    // map carries must never fail.
                    assert!(!miss.name.to_ascii_lowercase().ends_with(".vtf"), "{}: {miss}", m.path.display());
                    assert!(!miss.reason.is_empty());
                    missing += 1;
                    *kinds.entry(format!("{:?}", miss.kind)).or_insert(0) += 1;
                }
            }
        }
    }
    eprintln!("corpus: {found} textures decoded ({vtfs} pakfile VTFs, {images} images), {missing} reported missing {kinds:?}");
    assert!(vtfs >= 12, "expected the corpus's 12 pakfile VTFs, found {vtfs}");
}
