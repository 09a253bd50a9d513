//! Call of Duty 1 / United Offensive (and its demo) and Call of Duty 2 lightmaps on the builder's
//! lit room (`bspkit::build::cod12_room_lit`): every page decoded into the atlases with texels
//! equal to the lump's own bytes (read here at the offsets the layouts give: CoD1 512² RGB
//! pages, CoD2 0x400000-byte lightmaps of three 512² B G R A images), `uv1` landing on the
//! texels the room's walls were given, lit renders, and warnings (never panics) for a truncated
//! lump, a soup naming a lightmap past the pages and every truncation of the file. The committed
//! MIT United Offensive map has no lightmap: it says so.

use bspkit::build::{cod12_room_lit, cod12_texel};
use bspkit::edit::Editor;
use bspkit::lightmap::{self, LightOptions};
use bspkit::mesh::{self, MeshOptions};
use bspkit::render::{render_map, RenderOptions};
use bspkit::Bsp;

const IDS: [&str; 3] = ["cod1_demo", "cod1", "cod2"];

fn lit_room(id: &str, pages: usize) -> Vec<u8> {
    cod12_room_lit(bspkit::branches::by_id(id).unwrap(), pages).unwrap()
}

/// The stored R G B of texel (`x`, `y`) of image `layer` of lightmap `page`, from the lump.
fn stored(cod2: bool, lump: &[u8], page: usize, layer: u8, x: u32, y: u32) -> [u8; 3] {
    let texel = (y * 512 + x) as usize;
    if cod2 {
        let k = page * 0x40_0000 + layer as usize * 0x10_0000 + texel * 4;
        [lump[k + 2], lump[k + 1], lump[k]]
    } else {
        let k = page * 786_432 + texel * 3;
        [lump[k], lump[k + 1], lump[k + 2]]
    }
}

#[test]
fn cod1_and_cod2_pages_decode_into_the_atlases() {
    for id in IDS {
        let cod2 = id == "cod2";
        let bytes = lit_room(id, 2);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert!(bspkit::check::check(&bsp).is_empty(), "{id}: {:?}", bspkit::check::check(&bsp));
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        assert!(lm.warnings.is_empty(), "{id}: {:?}", lm.warnings);
        assert_eq!(lm.faces.len(), 2, "{id}: one lit entry per page");
        assert_eq!(lm.overbright, Some(if cod2 { 1.0 } else { 2.0 }), "{id}");
        let lump = bsp.lump(1).unwrap();
        let layers = if cod2 { 3 } else { 1 };
        for page in 0..2 {
            let f = lm.face(1, page as u32).unwrap();
            assert_eq!((f.width, f.height, f.layers), (512, 512, layers), "{id}: page {page}");
            for layer in 0..layers {
                let a = lm.atlas(f.page, 0, layer).unwrap_or_else(|| panic!("{id}: page {page} layer {layer}"));
                for y in 0..512 {
                    for x in 0..512 {
                        let want = stored(cod2, lump, page, layer, x, y);
                        assert_eq!(a.texel(f.x + x, f.y + y), want, "{id}: page {page} layer {layer} texel ({x}, {y})");
                        assert_eq!(want, cod12_texel(page, layer, x, y), "{id}: the builder's texel");
                    }
                }
            }
        }
    }
}

#[test]
fn lit_room_walls_sample_their_cells() {
    for id in IDS {
        let bytes = lit_room(id, 1);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        assert!(scene.warnings.is_empty(), "{id}: {:?}", scene.warnings);
        let world = &scene.models[0];
        assert_eq!(world.vertices.uv1.len(), world.vertices.positions.len(), "{id}: uv1 per vertex");
        let f = lm.face(1, 0).unwrap();
        assert_eq!(world.lightmap_pages, [f.page], "{id}");
        let [pw, ph] = lm.pages[f.page as usize];
        let atlas = lm.atlas(f.page, 0, 0).unwrap();
        // Wall k's four corners are vertices 4k..4k+4; their mean is the centre of cell
        // (k mod 3, k div 3) of the page, whose texel the builder knows.
        for k in 0..6u32 {
            let corners = &world.vertices.uv1[4 * k as usize..4 * k as usize + 4];
            let mean = |c: usize| corners.iter().map(|uv| uv[c]).sum::<f32>() / 4.0;
            let (ax, ay) = ((mean(0) * pw as f32) as u32, (mean(1) * ph as f32) as u32);
            let (cx, cy) = ((k % 3) * 512 / 3 + 512 / 6, (k / 3) * 256 + 128);
            assert!(ax.abs_diff(f.x + cx) <= 1 && ay.abs_diff(f.y + cy) <= 1, "{id}: wall {k} at ({ax}, {ay})");
            let want = cod12_texel(0, 0, ax - f.x, ay - f.y);
            assert_eq!(atlas.texel(ax, ay), want, "{id}: wall {k}");
            // Every corner lies inside the page's rectangle of the atlas.
            for uv in corners {
                let (x, y) = (uv[0] * pw as f32, uv[1] * ph as f32);
                assert!(x >= f.x as f32 && x <= (f.x + 512) as f32 && y >= f.y as f32 && y <= (f.y + 512) as f32, "{id}: {uv:?}");
            }
        }
        let r = render_map(&bsp, &RenderOptions { size: 64, ..Default::default() }).unwrap();
        assert!(r.lit_faces > 0, "{id}: {:?}", r.warnings);
    }
}

/// `bytes` with lump 1 changed by `f`.
fn with_lightmaps(bytes: &[u8], f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    let mut lump = bsp.lump(1).unwrap().to_vec();
    f(&mut lump);
    ed.set_lump(1, lump).unwrap();
    ed.to_bytes().unwrap()
}

/// The room with its soup naming lightmap `n`.
fn soup_on(bytes: &[u8], id: &str, n: u16) -> Vec<u8> {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    let i = bsp.branch().lump_index(if id == "cod2" { "TRIANGLES" } else { "TRIANGLESOUPS" }).unwrap();
    let mut lump = bsp.lump(i).unwrap().to_vec();
    lump[2..4].copy_from_slice(&n.to_le_bytes());
    let mut ed = Editor::new(&bsp).unwrap();
    ed.set_lump(i, lump).unwrap();
    ed.to_bytes().unwrap()
}

#[test]
fn bad_lightmap_lumps_and_indices_give_warnings() {
    for id in IDS {
        let room = lit_room(id, 2);
        // A lump cut short: the whole first page is read, the rest is named.
        let cut = with_lightmaps(&room, |l| l.truncate(l.len() - 1000));
        let bsp = Bsp::from_bytes(&cut).unwrap();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        assert_eq!(lm.faces.len(), 1, "{id}");
        assert!(
            lm.warnings.iter().any(|w| w.contains("not a whole number") && w.contains("bytes are not read")),
            "{id}: {:?}",
            lm.warnings
        );
        let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        assert_eq!(scene.models[0].lightmap_pages, [lm.face(1, 0).unwrap().page], "{id}");

        // A soup naming lightmap 7 of 2: one warning naming it; the soup is drawn unlit.
        let past = soup_on(&room, id, 7);
        let bsp = Bsp::from_bytes(&past).unwrap();
        let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
        assert!(lm.warnings.iter().any(|w| w.contains("past the 2 lightmap(s)") && w.contains("7 (1 soups)")), "{id}: {:?}", lm.warnings);
        let scene = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() }).unwrap();
        assert!(scene.models[0].vertices.uv1.is_empty() && scene.models[0].lightmap_pages.is_empty(), "{id}");
        // The branch's "none" (CoD1 0xFFFF, CoD2 31): no warning.
        let none = soup_on(&room, id, if id == "cod2" { 31 } else { 0xFFFF });
        let lm = lightmap::build(&Bsp::from_bytes(&none).unwrap(), &LightOptions::default()).unwrap();
        assert!(lm.warnings.is_empty(), "{id}: {:?}", lm.warnings);

        // Every cut of the file (one in 97 bytes) either fails to open or decodes without a panic.
        let small = lit_room(id, 1);
        for k in (0..small.len()).step_by(small.len() / 97) {
            if let Ok(bsp) = Bsp::from_bytes(&small[..k]) {
                if let Ok(lm) = lightmap::build(&bsp, &LightOptions::default()) {
                    let _ = mesh::build(&bsp, &MeshOptions { lightmaps: Some(&lm), ..Default::default() });
                }
            }
        }
    }
}

#[test]
fn the_mit_united_offensive_map_has_no_lightmap() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cod1_uo_empty.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert!(bsp.lump(1).unwrap().is_empty());
    let lm = lightmap::build(&bsp, &LightOptions::default()).unwrap();
    assert!(lm.faces.is_empty());
    assert!(lm.warnings.iter().any(|w| w.contains("LIGHTMAPS is empty")), "{:?}", lm.warnings);
}
