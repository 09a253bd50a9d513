//! Original-Xbox Half-Life 2 (`source_xbox`, VBSP 19 with lightmap pages in lumps 51 / 52) on
//! the builder's minimal map (`bspkit::build::source_xbox_map`) and on a corpus TF2 map taken to
//! Source 2004 and given the Xbox lumps: detection with its evidence, the page-info checks,
//! byte-identical rewrite, the schema, and the same checks and scene as the PC v19 map.

use crate::common;

use bspkit::branches::source;
use bspkit::branches::source::records::LightmapPageInfo;
use bspkit::build::source_xbox::{source_xbox_map, xbox_lightmap_pages, xbox_page_infos};
use bspkit::convert::{self, ConvertOptions, Lzma};
use bspkit::edit::Editor;
use bspkit::mesh::{self, MeshOptions};
use bspkit::{Bsp, OpenOptions};

fn with_lump(bytes: &[u8], index: usize, lump: Vec<u8>) -> Vec<u8> {
    let bsp = Bsp::from_bytes(bytes).unwrap();
    let mut ed = Editor::new(&bsp).unwrap();
    ed.set_lump(index, lump).unwrap();
    ed.to_bytes().unwrap()
}

#[test]
fn builder_map_detects_checks_its_pages_and_rewrites() {
    let bytes = source_xbox_map();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!((bsp.branch().id, bsp.detection().version), ("source_xbox", 19));
    let why = bsp.detection().why.join("; ");
    assert!(why.contains("2 whole 33792-byte lightmap pages") && why.contains("3 8-byte page infos"), "{why}");
    assert!(bsp.detection().runners_up.iter().any(|(b, _)| *b == "source2004"));
    let infos: &[LightmapPageInfo] = bsp.records(source::LUMP_XBOX_LIGHTMAP_PAGE_INFOS).unwrap();
    assert_eq!(infos.iter().map(|i| i.page).collect::<Vec<_>>(), [0, 1, 1]);
    let s = bspkit::schema::lump_schema(bsp.branch(), "LIGHTMAP_PAGE_INFOS", 0, bspkit::bytes::Endian::Little).unwrap();
    assert_eq!(s.size, 8);
    let page_problems = |b: &Bsp| -> Vec<String> {
        bspkit::check::check(b)
            .into_iter()
            .filter(|p| p.lump.starts_with("51 ") || p.lump.starts_with("52 "))
            .map(|p| p.to_string())
            .collect()
    };
    assert!(page_problems(&bsp).is_empty(), "{:?}", page_problems(&bsp));
    assert_eq!(bspkit::write::rewrite(&bsp).unwrap(), bytes);

    // An info naming page 5 of 2.
    let bad = with_lump(&bytes, source::LUMP_XBOX_LIGHTMAP_PAGE_INFOS, xbox_page_infos(&[0, 5]));
    let b = Bsp::from_bytes(&bad).unwrap();
    assert_eq!(b.branch().id, "source_xbox");
    let p = page_problems(&b);
    assert!(p.len() == 1 && p[0].contains("page") && p[0].contains('5'), "{p:?}");
    // Pages that are not whole: detection falls back to the PC table; forced, check says why.
    let mut pages = xbox_lightmap_pages(1);
    pages.push(0);
    let torn = with_lump(&bytes, source::LUMP_XBOX_LIGHTMAP_PAGES, pages);
    assert_eq!(Bsp::from_bytes(&torn).unwrap().branch().id, "source2004");
    let forced = Bsp::from_bytes_with(&torn, &OpenOptions { branch: Some("source_xbox".into()), ..Default::default() }).unwrap();
    let p = page_problems(&forced);
    assert!(p.iter().any(|m| m.contains("not whole 33792-byte lightmap pages")), "{p:?}");
    // Truncated copies give typed errors, never a panic.
    for k in (0..bytes.len()).step_by(997) {
        if let Ok(b) = Bsp::from_bytes(&bytes[..k]) {
            std::hint::black_box(bspkit::decode_all(&b));
        }
    }
}

/// A corpus TF2 map taken to Source 2004 (`bspkit::convert`), then given two Xbox lightmap
/// pages and their infos: read as `source_xbox` with the same checks and the same scene as the
/// PC v19 map, and rewritten byte for byte.
#[test]
fn corpus_map_relaid_for_the_xbox_reads_like_its_pc_form() {
    let Some(corpus) = common::corpus("corpus_map_relaid_for_the_xbox_reads_like_its_pc_form") else { return };
    let path = corpus.join("source/bsp_tool__tf2_test2.bsp");
    let orig = std::fs::read(&path).unwrap();
    let bsp = Bsp::from_bytes(&orig).unwrap();
    let opts = ConvertOptions { to: bspkit::branches::by_id("source2004").unwrap(), endian: None, lzma: Lzma::Auto, static_props: None };
    let pc = convert::convert(&bsp, &opts).unwrap().bytes;
    let pc_bsp = Bsp::from_bytes(&pc).unwrap();
    assert_eq!(pc_bsp.branch().id, "source2004");
    let xbox = with_lump(&pc, source::LUMP_XBOX_LIGHTMAP_PAGES, xbox_lightmap_pages(2));
    let xbox = with_lump(&xbox, source::LUMP_XBOX_LIGHTMAP_PAGE_INFOS, xbox_page_infos(&[0, 1, 0, 1]));
    let x = Bsp::from_bytes(&xbox).unwrap();
    assert_eq!(x.branch().id, "source_xbox");
    let codes = |b: &Bsp| {
        let mut v: Vec<String> = bspkit::check::check(b).into_iter().map(|p| format!("{} {}", p.code.as_str(), p.lump)).collect();
        v.sort();
        v
    };
    assert_eq!(codes(&x), codes(&pc_bsp));
    assert_eq!(bspkit::write::rewrite(&x).unwrap(), xbox);
    let tris = |b: &Bsp| mesh::build(b, &MeshOptions::default()).unwrap().models.iter().map(|m| m.indices.len() / 3).sum::<usize>();
    assert!(tris(&x) > 0);
    assert_eq!(tris(&x), tris(&pc_bsp));
}
