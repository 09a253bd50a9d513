//! `bspkit::convert` in the Quake 3 family: IBSP 46 ↔ 47 ↔ Quake Live ↔ RBSP ↔ FBSP on every
//! Quake 3 corpus map (each sibling and back, byte for byte), the added fields as q3map2 fills
//! them, the losses reported going back, and garbled input.

use crate::common;

use bspkit::branches::quake3::lumps as l;
use bspkit::branches::quake3::records::{DrawVert, DrawVertRbsp, LightGrid, LightGridRbsp, Surface, SurfaceRbsp};
use bspkit::bsp::OpenOptions;
use bspkit::check::Severity;
use bspkit::convert::{self, ConvertOptions, Lzma};
use bspkit::{Bsp, ErrorKind};
use zerocopy::FromBytes;

fn open_as<'a>(data: &'a [u8], id: &str) -> Bsp<'a> {
    Bsp::from_bytes_with(data, &OpenOptions { branch: Some(id.to_string()), ..Default::default() }).unwrap()
}

fn to(id: &str) -> ConvertOptions {
    ConvertOptions { to: bspkit::branches::by_id(id).unwrap(), endian: None, lzma: Lzma::Auto, static_props: None }
}

/// Record counts per lump name (LIGHT_GRID and LIGHT_ARRAY left out: Raven stores unique points).
fn counts(bsp: &Bsp) -> Vec<(&'static str, usize)> {
    bsp.lumps()
        .iter()
        .filter(|e| e.index < 17 && e.index != l::LUMP_LIGHT_GRID)
        .filter_map(|e| bsp.record_size(e.index).map(|s| (e.name, bsp.record_count(e.index, s).unwrap())))
        .collect()
}

fn errors(bsp: &Bsp) -> Vec<String> {
    bspkit::check::check(bsp).iter().filter(|p| p.severity == Severity::Error).map(|p| p.to_string()).collect()
}

/// Grid cells of a map: one IBSP point per cell, or Raven's points through LIGHT_ARRAY.
fn grid_cells(bsp: &Bsp) -> Vec<([u8; 3], [u8; 3], [u8; 2])> {
    let grid = bsp.lump(l::LUMP_LIGHT_GRID).unwrap();
    if matches!(bsp.branch().id, "rbsp" | "fbsp") {
        let points = <[LightGridRbsp]>::ref_from_bytes(grid).unwrap();
        let array = bsp.lump(l::LUMP_LIGHT_ARRAY).unwrap();
        array
            .chunks_exact(2)
            .map(|c| {
                let p = &points[u16::from_le_bytes([c[0], c[1]]) as usize];
                assert_eq!(p.styles, [0, 255, 255, 255]);
                (p.ambient[0], p.directed[0], p.lat_long)
            })
            .collect()
    } else {
        <[LightGrid]>::ref_from_bytes(grid).unwrap().iter().map(|p| (p.ambient, p.directed, p.lat_long)).collect()
    }
}

/// Every Quake 3 corpus map to each sibling branch and back: lossless, byte-identical back,
/// `check` finds no error in any output, the record counts and grid cells are the source's.
#[test]
fn quake3_family_converts_among_itself() {
    let Some(corpus) = common::corpus("quake3_family_converts_among_itself") else { return };
    let maps = common::maps_in(&corpus, "quake3");
    assert_eq!(maps.len(), 6);
    let mut pairs = 0;
    for m in &maps {
        let data = std::fs::read(&m.path).unwrap();
        let bsp = Bsp::from_bytes(&data).unwrap();
        let from = bsp.branch().id;
        assert!(errors(&bsp).is_empty());
        for id in convert::quake3::BRANCHES {
            if id == from {
                continue;
            }
            let name = format!("{} {from} -> {id}", m.path.file_name().unwrap().to_string_lossy());
            let c = convert::prepare(&bsp, &to(id), true).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(c.report.lossless, "{name}: {:?}", c.report.losses);
            assert_eq!(c.report.to.version, convert::quake3::version(id));
            let out = open_as(&c.bytes, id);
            assert!(errors(&out).is_empty(), "{name}: {:?}", errors(&out));
            // The sibling detected by itself (Quake Live with no advertisements reads as IBSP 47).
            let detected = Bsp::from_bytes(&c.bytes).unwrap().branch().id;
            assert_eq!(detected, if id == "quakelive" { "ibsp47" } else { id }, "{name}");
            assert_eq!(counts(&out), counts(&bsp), "{name}");
            assert_eq!(grid_cells(&out), grid_cells(&bsp), "{name}");
            let back = convert::prepare(&out, &to(from), true).unwrap_or_else(|e| panic!("{name} and back: {e}"));
            assert!(back.report.lossless, "{name} and back");
            assert!(back.bytes == data, "{name}: and back, byte-identical");
            pairs += 1;
        }
    }
    assert_eq!(pairs, 4 * maps.len());
}

/// The fields RBSP and FBSP add get q3map2's values; FBSP's pages hold the 128 × 128 pages in
/// their top-left corner and the vertex lightmap coordinates are a quarter of the source's.
#[test]
fn quake3_raven_fields_are_filled_as_q3map2_does() {
    let Some(corpus) = common::corpus("quake3_raven_fields_are_filled_as_q3map2_does") else { return };
    let data = std::fs::read(corpus.join("quake3/bsp_tool__q3_mp_lobby.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&data).unwrap();
    let src_verts = <[DrawVert]>::ref_from_bytes(bsp.raw_lump(l::LUMP_DRAW_VERTICES).unwrap()).unwrap().to_vec();
    let src_faces = <[Surface]>::ref_from_bytes(bsp.raw_lump(l::LUMP_SURFACES).unwrap()).unwrap().to_vec();
    let src_lm = bsp.raw_lump(l::LUMP_LIGHTMAPS).unwrap().to_vec();
    assert!(src_lm.len() >= 128 * 128 * 3 && src_faces.iter().any(|f| f.lightmap_num.get() >= 0));
    for id in ["rbsp", "fbsp"] {
        let c = convert::prepare(&bsp, &to(id), true).unwrap();
        let out = open_as(&c.bytes, id);
        let verts = <[DrawVertRbsp]>::ref_from_bytes(out.raw_lump(l::LUMP_DRAW_VERTICES).unwrap()).unwrap();
        let faces = <[SurfaceRbsp]>::ref_from_bytes(out.raw_lump(l::LUMP_SURFACES).unwrap()).unwrap();
        let scale = if id == "fbsp" { 0.25 } else { 1.0 };
        for (f, s) in faces.iter().zip(&src_faces) {
            assert_eq!((f.lightmap_styles, f.vertex_styles), ([0, 255, 255, 255], [0, 255, 255, 255]));
            assert_eq!(f.lightmap_num.map(|n| n.get()), [s.lightmap_num.get(), -3, -3, -3]);
            assert_eq!((f.lightmap_x[0].get(), f.lightmap_y[0].get()), (s.lightmap_x.get(), s.lightmap_y.get()));
            for v in f.first_vert.get()..f.first_vert.get() + f.num_verts.get() {
                let (w, n) = (&verts[v as usize], &src_verts[v as usize]);
                let k = if s.lightmap_num.get() >= 0 { scale } else { 1.0 };
                assert_eq!(w.lightmap[0].map(|c| c.get()), n.lightmap.map(|c| c.get() * k));
                assert_eq!((w.color[0], w.color[1], w.lightmap[1].map(|c| c.get())), (n.color, [0; 4], [0.0; 2]));
            }
        }
        let sides = out.raw_lump(l::LUMP_BRUSH_SIDES).unwrap();
        assert!(sides.chunks_exact(12).all(|s| s[8..12] == (-1i32).to_le_bytes()));
        let lm = out.raw_lump(l::LUMP_LIGHTMAPS).unwrap();
        if id == "fbsp" {
            assert_eq!(lm.len(), src_lm.len() * 16);
            let page = 512 * 512 * 3;
            for (p, small) in src_lm.chunks_exact(128 * 128 * 3).enumerate() {
                for y in 0..512 {
                    let row = &lm[p * page + y * 512 * 3..][..512 * 3];
                    if y < 128 {
                        assert_eq!(&row[..384], &small[y * 384..][..384]);
                        assert!(row[384..].iter().all(|&b| b == 0));
                    } else {
                        assert!(row.iter().all(|&b| b == 0));
                    }
                }
            }
        } else {
            assert_eq!(lm, &src_lm[..]);
        }
        // The grid: unique points, one array index per cell.
        let array = out.raw_lump(l::LUMP_LIGHT_ARRAY).unwrap();
        assert_eq!(array.len() / 2, bsp.raw_lump(l::LUMP_LIGHT_GRID).unwrap().len() / 8);
        assert!(out.raw_lump(l::LUMP_LIGHT_GRID).unwrap().len() / 30 <= array.len() / 2);
    }
}

/// RBSP → IBSP reports what IBSP cannot hold (light styles 1-3, a switched style 0, brush-side
/// surface numbers); `strict` refuses it; Quake Live's advertisements are reported going back.
#[test]
fn quake3_losses_are_reported_going_back() {
    let Some(corpus) = common::corpus("quake3_losses_are_reported_going_back") else { return };
    let data = std::fs::read(corpus.join("quake3/bspconvert__test-push-horizontal.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&data).unwrap();
    let mut rbsp = convert::prepare(&bsp, &to("rbsp"), true).unwrap().bytes;
    let (faces_at, sides_at) = {
        let out = open_as(&rbsp, "rbsp");
        (out.lumps()[l::LUMP_SURFACES].offset as usize, out.lumps()[l::LUMP_BRUSH_SIDES].offset as usize)
    };
    rbsp[faces_at + 28 + 1] = 1; // surface 0: lightmap style 1 in use
    rbsp[faces_at + 148 + 32] = 2; // surface 1: vertex style 0 switched
    rbsp[sides_at + 8..sides_at + 12].copy_from_slice(&0i32.to_le_bytes()); // side 0 names surface 0
    let styled = open_as(&rbsp, "rbsp");
    let c = convert::convert(&styled, &to("quake3")).unwrap();
    assert!(!c.report.lossless);
    let kinds: Vec<(&str, &str)> = c.report.losses.iter().map(|l| (l.lump.as_deref().unwrap(), l.kind)).collect();
    assert_eq!(kinds, [("BRUSH_SIDES", "dropped"), ("FACES", "dropped"), ("FACES", "defaulted")], "{:?}", c.report.losses);
    assert!(c.report.losses[1].message.starts_with("1 surface(s)"));
    let err = convert::prepare(&styled, &to("quake3"), true).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Lossy(ref l) if l.len() == 3), "{err}");

    // Quake Live with one advertisement: dropped and reported going to any other branch.
    let ql = convert::prepare(&bsp, &to("quakelive"), true).unwrap().bytes;
    let mut with_ad = ql.clone();
    let end = with_ad.len() as i32;
    with_ad.extend_from_slice(&[0u8; 128]);
    with_ad[8 + 8 * 17..][..8].copy_from_slice(&[end.to_le_bytes(), 128i32.to_le_bytes()].concat());
    let qlb = Bsp::from_bytes(&with_ad).unwrap();
    assert_eq!(qlb.branch().id, "quakelive");
    for id in ["quake3", "ibsp47", "rbsp", "fbsp"] {
        let c = convert::convert(&qlb, &to(id)).unwrap();
        assert_eq!(c.report.losses.len(), 1, "{id}");
        assert_eq!(c.report.losses[0].lump.as_deref(), Some("ADVERTISEMENTS"));
    }
    // Its bytes are not kept as a gap: back in IBSP 46 it is the original file again.
    assert_eq!(convert::prepare(&qlb, &to("quake3"), false).unwrap().bytes, data);
}

/// A 512 × 512 page whose surfaces lie in different 128 × 128 quarters splits into those
/// pages, with the surfaces' places and the vertices' coordinates moved; a rectangle across a
/// cut is refused (repacking is not supported).
#[test]
fn quake3_fbsp_pages_split_into_quake3_pages() {
    let Some(corpus) = common::corpus("quake3_fbsp_pages_split_into_quake3_pages") else { return };
    let data = std::fs::read(corpus.join("quake3/bsp_tool__q3_mp_lobby.bsp")).unwrap();
    let bsp = Bsp::from_bytes(&data).unwrap();
    let mut fbsp = convert::prepare(&bsp, &to("fbsp"), true).unwrap().bytes;
    let out = open_as(&fbsp, "fbsp");
    let faces_at = out.lumps()[l::LUMP_SURFACES].offset as usize;
    let faces = <[SurfaceRbsp]>::ref_from_bytes(out.raw_lump(l::LUMP_SURFACES).unwrap()).unwrap().to_vec();
    drop(out);
    // Move the first lit surface to the quarter (1, 2) of its page (only its place: the texels
    // there are zeros, which is what this test needs).
    let (i, f) = faces.iter().enumerate().find(|(_, f)| f.lightmap_num[0].get() >= 0).unwrap();
    let at = faces_at + 148 * i;
    fbsp[at + 52..at + 56].copy_from_slice(&(f.lightmap_x[0].get() + 128).to_le_bytes());
    fbsp[at + 68..at + 72].copy_from_slice(&(f.lightmap_y[0].get() + 256).to_le_bytes());
    let moved = open_as(&fbsp, "fbsp");
    let c = convert::convert(&moved, &to("quake3")).unwrap();
    let q3 = open_as(&c.bytes, "quake3");
    let pages = bsp.raw_lump(l::LUMP_LIGHTMAPS).unwrap().len() / 49152;
    assert_eq!(q3.raw_lump(l::LUMP_LIGHTMAPS).unwrap().len() / 49152, pages + 1, "one more page: the quarter in use");
    let qf = <[Surface]>::ref_from_bytes(q3.raw_lump(l::LUMP_SURFACES).unwrap()).unwrap();
    assert_eq!((qf[i].lightmap_x.get(), qf[i].lightmap_y.get()), (f.lightmap_x[0].get(), f.lightmap_y[0].get()));
    let page = f.lightmap_num[0].get() as usize;
    assert_eq!(qf[i].lightmap_num.get() as usize, page + 1 + page, "pages before it keep one quarter each");
    // A rectangle across a cut.
    fbsp[at + 52..at + 56].copy_from_slice(&120i32.to_le_bytes());
    fbsp[at + 84..at + 88].copy_from_slice(&20i32.to_le_bytes());
    let across = open_as(&fbsp, "fbsp");
    let err = convert::convert(&across, &to("quake3")).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Unsupported(_)), "{err}");
}

/// Truncated and garbled Quake 3 maps converted to each sibling: a typed error or a checked
/// result, never a panic.
#[test]
fn quake3_garbled_maps_convert_or_fail_cleanly() {
    let Some(corpus) = common::corpus("quake3_garbled_maps_convert_or_fail_cleanly") else { return };
    let mut cases = 0;
    for m in common::maps_in(&corpus, "quake3") {
        let data = std::fs::read(&m.path).unwrap();
        for d in common::garbled(&data, 24) {
            let Ok(bsp) = Bsp::from_bytes(&d) else { continue };
            if !convert::quake3::BRANCHES.contains(&bsp.branch().id) {
                continue;
            }
            for id in convert::quake3::BRANCHES {
                if id != bsp.branch().id {
                    let _ = convert::prepare(&bsp, &to(id), false);
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 100, "{cases}");
}
