//! Titanfall 2 and Call of Duty 4 lightmaps on the corpus maps: every page decoded into the
//! atlases with texels equal to the lump's own RGB (read here straight from the lump bytes at
//! the offsets the layouts give), lit surfaces whose `uv1` lies inside their page's rectangle,
//! the atlas budget applied, and `render_map` lit where the lightmaps carry light (and shaded
//! from the normals, with a warning, where every texel is a zero placeholder).

use crate::common;
use bspkit::branches::{cod, respawn};
use bspkit::lightmap::{self, LightOptions};
use bspkit::mesh::{self, MeshOptions};
use bspkit::render::{render_map, RenderOptions};
use bspkit::{Bsp, Family};

/// The corpus maps of the two families (CoD4 only: the corpus holds no Call of Duty 1 / 2 map;
/// those are tested on builder maps in `lightmaps_cod12`).
fn maps() -> Vec<(String, std::path::PathBuf)> {
    let Some(corpus) = common::corpus("lightmaps_respawn_cod") else { return Vec::new() };
    let mut out = Vec::new();
    for folder in ["respawn", "cod"] {
        for m in common::maps_in(&corpus, folder) {
            out.push((m.path.file_name().unwrap().to_string_lossy().into_owned(), m.path));
        }
    }
    out
}

/// One page: (index, width, height, byte offset of image 0, bytes to image 1).
type Page = (u32, u32, u32, usize, usize);

/// `(lump, pages)` as the layouts say: Respawn pages follow each other in LIGHTMAP_DATA_SKY, two
/// RGBA images each; CoD4 lightmaps are 0x300000 bytes, two 512² RGBA images first.
fn layout(bsp: &Bsp) -> (u16, Vec<Page>) {
    if bsp.family() == Family::Respawn {
        let headers: &[respawn::records::LightmapHeader] = bsp.records(respawn::LUMP_LIGHTMAP_HEADERS).unwrap();
        let mut at = 0;
        let pages = headers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let (w, hh) = (h.width.get() as u32, h.height.get() as u32);
                let one = (w * hh * 4) as usize;
                at += 2 * one;
                (i as u32, w, hh, at - 2 * one, one)
            })
            .collect();
        (respawn::LUMP_LIGHTMAP_HEADERS as u16, pages)
    } else {
        let n = bsp.lump(cod::LUMP_LIGHTBYTES).unwrap().len() / 0x30_0000;
        (cod::LUMP_LIGHTBYTES as u16, (0..n).map(|i| (i as u32, 512, 512, i * 0x30_0000, 0x10_0000)).collect())
    }
}

#[test]
fn respawn_and_cod4_pages_decode_into_the_atlases() {
    let maps = maps();
    if maps.is_empty() {
        return;
    }
    let (mut checked, mut varied, mut lit_vertices) = (0usize, 0usize, 0usize);
    for (name, path) in &maps {
        let bsp = Bsp::open(path).unwrap();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        let (lump, pages) = layout(&bsp);
        let src = bsp.lump(lm.source_lump.expect("a lump")).unwrap();
        assert!(!pages.is_empty(), "{name}: the corpus maps have lightmap pages");
        assert_eq!(lm.faces.len(), pages.len(), "{name}: one lit entry per page: {:?}", lm.warnings);
        let mut distinct = std::collections::HashSet::new();
        for &(i, w, h, at, step) in &pages {
            let f = lm.face(lump, i).unwrap_or_else(|| panic!("{name}: page {i}"));
            assert_eq!((f.width, f.height, f.layers), (w, h, 2), "{name}: page {i}");
            for layer in 0..2u8 {
                let a = lm.atlas(f.page, 0, layer).unwrap_or_else(|| panic!("{name}: page {i} layer {layer}"));
                for y in 0..h {
                    for x in 0..w {
                        let k = at + layer as usize * step + ((y * w + x) * 4) as usize;
                        let want = &src[k..k + 3];
                        let got = a.texel(f.x + x, f.y + y);
                        assert_eq!(got, want, "{name}: page {i} layer {layer} texel ({x}, {y})");
                        distinct.insert([got[0], got[1], got[2]]);
                        checked += 1;
                    }
                }
            }
        }
        varied += usize::from(distinct.len() > 1);

        // Lit surfaces: uv1 inside their page's rectangle of the atlas.
        let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        let mut lit_surfaces = 0;
        for m in &scene.models {
            if m.lightmap_pages.is_empty() {
                continue;
            }
            assert_eq!(m.vertices.uv1.len(), m.vertices.positions.len(), "{name}: uv1 per vertex");
            assert_eq!(m.lightmap_pages.len(), m.surfaces.len(), "{name}: a page per surface");
            for (s, &page) in m.surfaces.iter().zip(&m.lightmap_pages) {
                if page == u32::MAX {
                    continue;
                }
                lit_surfaces += 1;
                let [pw, ph] = lm.pages[page as usize];
                let f = lm
                    .faces
                    .iter()
                    .filter(|g| g.page == page)
                    .find(|g| {
                        m.vertices.uv1[s.vertices.start as usize..s.vertices.end as usize].iter().all(|uv| {
                            let (x, y) = (uv[0] * pw as f32, uv[1] * ph as f32);
                            x >= g.x as f32 - 1e-2
                                && x <= (g.x + g.width) as f32 + 1e-2
                                && y >= g.y as f32 - 1e-2
                                && y <= (g.y + g.height) as f32 + 1e-2
                        })
                    })
                    .unwrap_or_else(|| panic!("{name}: surface {} has UVs outside every rectangle of page {page}", s.index));
                assert_eq!(f.lump, lump);
                lit_vertices += s.vertices.len();
            }
        }
        assert!(lit_surfaces > 0, "{name}: lit surfaces");
        eprintln!("{name}: {} page(s), {lit_surfaces} lit surfaces, {} distinct atlas colours", pages.len(), distinct.len());
    }
    eprintln!("{checked} texels compared, {lit_vertices} lit vertices inside their rectangle, {varied} maps with more than one colour");
    // Three CoD4 maps were lit by the compiler, and mp_looby's sky B has a few lit texels; the
    // two other Titanfall 2 maps and mp_lobby carry all-zero placeholders.
    assert!(varied >= 4, "{varied} maps with varied atlases");
}

#[test]
fn the_atlas_budget_applies_to_respawn_and_cod4() {
    for (name, path) in maps() {
        let bsp = Bsp::open(&path).unwrap();
        let opts = LightOptions { max_atlas_pixels: 1000, ..Default::default() };
        let e = lightmap::build(&bsp, &opts).unwrap_err();
        assert!(e.to_string().contains("max-atlas-pixels"), "{name}: {e}");
    }
}

#[test]
fn renders_are_lit_where_the_lightmaps_carry_light() {
    for (name, path) in maps() {
        let bsp = Bsp::open(&path).unwrap();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        let zero = lm.atlases.iter().filter(|a| a.layer == 0).all(|a| a.texels.iter().all(|&b| b == 0));
        let r = render_map(&bsp, &RenderOptions { size: 128, ..Default::default() }).unwrap();
        let placeholder = r.warnings.iter().any(|w| w.contains("placeholders or no lights compiled"));
        assert_eq!(placeholder, zero, "{name}: {:?}", r.warnings);
        assert_eq!(r.lit_faces == 0, zero, "{name}: {} lit faces", r.lit_faces);
        // The one predicate `render`, the export (so `bsp view`) and the add-on read.
        assert_eq!(lm.is_placeholder(), zero, "{name}: max byte {}", lm.max_byte(None));
        placeholder_carried(&bsp, zero, &name);
    }
}

/// The export says what [`lightmap::Lightmaps::is_placeholder`] says: in its summary and on every
/// lit material of the GLB (`extras.lightmap_placeholder`), the pages still written.
fn placeholder_carried(bsp: &Bsp, placeholder: bool, name: &str) {
    let opts = bspkit::export::ExportOptions { textures: None, ..Default::default() };
    let (glb, summary) = bspkit::export::export_glb(bsp, &opts).unwrap();
    assert_eq!(summary.lightmap_placeholder, placeholder, "{name}");
    assert!(summary.lightmap_pages > 0, "{name}: pages written");
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    let lit: Vec<&serde_json::Value> =
        doc["materials"].as_array().unwrap().iter().filter(|m| m.get("occlusionTexture").is_some()).collect();
    assert!(!lit.is_empty(), "{name}");
    for m in lit {
        assert_eq!(m["extras"]["lightmap_placeholder"].as_bool().unwrap_or(false), placeholder, "{name}: {m}");
    }
}

/// The Source corpus maps whose VRAD log says "0 direct lights" (all-zero or uniform 204·2⁻¹¹
/// luxels: black in the engine too) render shaded from their normals with the warning; the
/// other logged maps render lit.
#[test]
fn source_maps_compiled_without_lights_render_unlit() {
    let Some(corpus) = common::corpus("source_maps_compiled_without_lights_render_unlit") else { return };
    let mut unlit = 0;
    for m in common::maps_in(&corpus, "source") {
        let log = m.path.with_extension("compile.log");
        let Ok(text) = std::fs::read_to_string(&log) else { continue };
        let no_lights = text.lines().any(|l| l.trim() == "0 direct lights");
        let bsp = Bsp::open(&m.path).unwrap();
        let r = render_map(&bsp, &RenderOptions { size: 96, ..Default::default() }).unwrap();
        let black = r.warnings.iter().any(|w| w.contains("placeholders or no lights compiled"));
        assert_eq!(black, no_lights, "{}: {:?}", m.path.display(), r.warnings);
        assert_eq!(r.lit_faces == 0, no_lights, "{}", m.path.display());
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        assert_eq!(lm.is_placeholder(), no_lights, "{}", m.path.display());
        placeholder_carried(&bsp, no_lights, &m.path.display().to_string());
        unlit += usize::from(no_lights);
    }
    assert_eq!(unlit, 2, "the physcollide and displacement test maps were compiled without lights");
}
