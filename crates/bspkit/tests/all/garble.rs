//! Robustness: every corpus map, truncated at many points and with bytes flipped, opens and
//! decodes (`bspkit::decode_all`: every lump, record view, entities, visibility, info rows and
//! checks) to `Ok` or a typed error. A panic fails the test; so would a hang (the whole test is
//! sized to run in well under a minute in debug builds). Garbled maps are also exported (scene,
//! lightmaps and the glTF writer).

use crate::common;

use bspkit::export::{export, ExportOptions, Format};
use bspkit::{decode_all, Bsp};

/// Deterministic xorshift64* generator, seeded per map, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn new(seed: &str) -> Self {
        // FNV-1a of the seed text; never zero.
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in seed.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        Rng(h | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Truncation points per map: evenly spaced, plus every boundary of the header and directory.
const CUTS: usize = 80;
/// Mutated copies per map.
const FLIPS: usize = 400;

fn run(data: &[u8]) {
    // Ok or Err are both fine; a panic is not.
    if let Ok(bsp) = Bsp::from_bytes(data) {
        std::hint::black_box(decode_all(&bsp));
        // Static props are read by the branch's form (the Source forks').
        if bsp.family() == bspkit::Family::Source {
            if let Ok(Some(sp)) = bspkit::lumps::gamelump::GameLumps::of(&bsp).and_then(|g| g.static_props()) {
                std::hint::black_box(sp.props().map(|p| p.len()).unwrap_or(0));
            }
        }
    }
}

/// Where a map's header and directory end (0 when it does not open).
fn header_len(data: &[u8]) -> usize {
    Bsp::from_bytes(data).map(|b| b.header().len).unwrap_or(0)
}

/// Call `each` on `count` mutated copies of `data` (each mutation undone after its case);
/// returns `count`.
fn garbled(rng: &mut Rng, data: &mut [u8], header: usize, count: usize, mut each: impl FnMut(&[u8])) -> usize {
    for _ in 0..count {
        let undo = mutate(rng, data, header);
        each(data);
        for (i, b) in undo.into_iter().rev() {
            data[i] = b;
        }
    }
    count
}

/// Apply one mutation to `data` in place, returning what to undo: (offset, old bytes).
fn mutate(rng: &mut Rng, data: &mut [u8], header: usize) -> Vec<(usize, u8)> {
    let len = data.len();
    let mut undo = Vec::new();
    // A third of the mutations hit the header and directory, the rest the whole file.
    let region = if rng.below(3) == 0 { header.clamp(8, len) } else { len };
    let at = rng.below(region);
    match rng.below(4) {
        // Flip one to four random bytes.
        0 | 1 => {
            for _ in 0..1 + rng.below(4) {
                let i = if rng.below(2) == 0 { at } else { rng.below(region) };
                undo.push((i, data[i]));
                data[i] ^= (rng.next() as u8) | 1;
            }
        }
        // A 32-bit field set to an interesting value (counts, offsets, lengths).
        _ => {
            let at = at & !3;
            let values = [0u32, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, len as u32, (len as u32).wrapping_add(4), 0xffff, 0x1_0000];
            let v = values[rng.below(values.len())].to_le_bytes();
            for (k, b) in v.iter().enumerate() {
                if let Some(slot) = data.get_mut(at + k) {
                    undo.push((at + k, *slot));
                    *slot = *b;
                }
            }
        }
    }
    undo
}

#[test]
fn truncated_and_garbled_maps_never_panic() {
    let Some(corpus) = common::corpus("truncated_and_garbled_maps_never_panic") else { return };
    let start = std::time::Instant::now();
    let maps = common::maps(&corpus);
    // The maps are independent cases (each with its own seed): on every core.
    let cases: usize = common::par_map(&maps, |m| {
        let mut cases = 0usize;
        let mut data = std::fs::read(&m.path).unwrap();
        let header = header_len(&data);
        let len = data.len();
        // Truncations (borrowed prefixes, no copies).
        let mut cuts: Vec<usize> = (0..CUTS).map(|k| k * len / CUTS).collect();
        cuts.extend([1, 4, 7, 8, 11, 12, 15, 16, 64, 140, 1036, 2064].iter().copied().filter(|&c| c < len));
        cuts.extend([header.saturating_sub(1), header, header + 1].iter().copied().filter(|&c| c < len));
        for c in cuts {
            run(&data[..c]);
            cases += 1;
        }
        let mut rng = Rng::new(&m.path.file_name().unwrap().to_string_lossy());
        cases + garbled(&mut rng, &mut data, header, FLIPS, run)
    })
    .into_iter()
    .sum();
    eprintln!("garble: {} maps, {cases} cases in {:.1?}", maps.len(), start.elapsed());
    assert!(cases > maps.len() * FLIPS);
}

/// Mutated copies per map for the export test (an export does more work per case).
const EXPORT_FLIPS: usize = 12;

/// Every corpus map, garbled, exported as GLB with lightmaps (no textures) to the null device:
/// the scene builders, the lightmap atlas and the writer (primitive grouping, vertex numbering,
/// accessors) give `Ok` or a typed error, never a panic.
#[cfg(unix)]
#[test]
fn garbled_maps_export_or_fail_cleanly() {
    let Some(corpus) = common::corpus("garbled_maps_export_or_fail_cleanly") else { return };
    let opts = ExportOptions { format: Some(Format::Glb), textures: None, lightmaps: true, ..Default::default() };
    let maps = common::maps(&corpus);
    // The maps are independent cases (each with its own seed): on every core.
    let (cases, exported) = common::par_map(&maps, |m| {
        let mut exported = 0usize;
        let mut data = std::fs::read(&m.path).unwrap();
        let header = header_len(&data);
        let mut rng = Rng::new(&format!("export {}", m.path.file_name().unwrap().to_string_lossy()));
        let cases = garbled(&mut rng, &mut data, header, EXPORT_FLIPS, |data| {
            if let Ok(bsp) = Bsp::from_bytes(data) {
                exported += usize::from(export(&bsp, "/dev/null".as_ref(), &opts).is_ok());
            }
        });
        (cases, exported)
    })
    .into_iter()
    .fold((0usize, 0usize), |(c, e), (c1, e1)| (c + c1, e + e1));
    eprintln!("garbled exports: {} maps, {cases} cases, {exported} exported", maps.len());
    // Most mutations leave a map that still exports (what is sound of it): the test exercises
    // the writer, not only the opening.
    assert!(exported * 2 > cases, "{exported} of {cases} garbled maps exported");
}

/// Mutated copies per Source map for the conversion test.
const CONVERT_FLIPS: usize = 24;

/// Source corpus maps (PC and console), truncated and garbled, converted to the other byte
/// order: `Ok` (then the result reopens and reads every lump, or `prepare` refuses it with a
/// typed error) or a typed error, never a panic. A refused conversion leaves no file.
#[test]
fn garbled_source_maps_convert_or_fail_cleanly() {
    use bspkit::convert::{self, ConvertOptions, Lzma};
    let Some(corpus) = common::corpus("garbled_source_maps_convert_or_fail_cleanly") else { return };
    let maps: Vec<_> = common::maps(&corpus).into_iter().filter(|m| m.folder.starts_with("source")).collect();
    let (mut cases, mut converted) = (0usize, 0usize);
    let mut each = |data: &[u8]| {
        let Ok(bsp) = Bsp::from_bytes(data) else { return };
        let endian = if bsp.endian() == bspkit::Endian::Big { bspkit::Endian::Little } else { bspkit::Endian::Big };
        let opts = ConvertOptions { to: bsp.branch(), endian: Some(endian), lzma: Lzma::Auto, static_props: None };
        if let Ok(c) = convert::prepare(&bsp, &opts, false) {
            converted += 1;
            let back = Bsp::from_bytes(&c.bytes).expect("a prepared conversion reopens");
            assert!(back.lumps().iter().all(|e| back.raw_lump(e.index).is_ok()));
        }
    };
    for m in &maps {
        let mut data = std::fs::read(&m.path).unwrap();
        let header = header_len(&data);
        let len = data.len();
        for k in 0..8 {
            each(&data[..k * len / 8]);
            cases += 1;
        }
        let mut rng = Rng::new(&format!("convert {}", m.path.file_name().unwrap().to_string_lossy()));
        cases += garbled(&mut rng, &mut data, header, CONVERT_FLIPS, &mut each);
    }
    eprintln!("garbled conversions: {} maps, {cases} cases, {converted} converted", maps.len());
    assert!(converted > 0 && cases > maps.len() * CONVERT_FLIPS);
}

/// Respawn `.ent` partition files, truncated and garbled, parse or fail with a typed error.
#[test]
fn garbled_ent_files_never_panic() {
    let Some(corpus) = common::corpus("garbled_ent_files_never_panic") else { return };
    let mut files = 0;
    let mut stack = vec![corpus.join("respawn")];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "ent") {
                continue;
            }
            files += 1;
            let mut data = std::fs::read(&p).unwrap();
            for k in 0..=32 {
                let _ = bspkit::branches::respawn::parse_ent_file(&data[..k * data.len() / 32]);
            }
            let mut rng = Rng::new(&p.to_string_lossy());
            for _ in 0..200 {
                let i = rng.below(data.len());
                let old = data[i];
                data[i] = [b'{', b'}', b'"', b'\n', 0, rng.next() as u8][rng.below(6)];
                let _ = bspkit::branches::respawn::parse_ent_file(&data);
                data[i] = old;
            }
        }
    }
    assert!(files > 0);
}

/// Random bytes behind every known magic: detection and directory parsing stay typed.
#[test]
fn random_bytes_behind_every_magic_never_panic() {
    let mut rng = Rng::new("magics");
    let heads: [&[u8]; 21] = [
        b"VBSP",
        b"PSBV",
        b"rBSP",
        b"IBSP",
        b"QBSP",
        b"RBSP",
        b"FBSP",
        b"BSP2",
        b"2PSB",
        &[29, 0, 0, 0],
        &[30, 0, 0, 0],
        b"IBSP\x16\0\0\0",
        b"IBSP\x26\0\0\0",
        b"IBSP\x2e\0\0\0",
        b"rBSP\x25\0\0\0",
        b"VBSP\x14\0\0\0",
        b"FAKK\x0c\0\0\0",
        b"FAKK\x2a\0\0\0",
        b"2015\x12\0\0\0",
        b"2015\x13\0\0\0",
        b"EALA\x15\0\0\0",
    ];
    for head in heads {
        for len in [0usize, 4, 8, 12, 40, 200, 1100, 2100, 5000] {
            for _ in 0..20 {
                let mut data: Vec<u8> = (0..len.max(head.len())).map(|_| rng.next() as u8).collect();
                data[..head.len()].copy_from_slice(head);
                run(&data);
                let _ = bspkit::lmp::LmpFile::parse(&data);
            }
        }
    }
}

/// Builder maps of the branches without a map in the corpus (Ritual's: F.A.K.K.2, Alice, Medal
/// of Honor demo / retail / Breakthrough; Call of Duty 1 demo / 1 / 2; the Source forks told by
/// their static props: The Ship, Zeno Clash, Fairy Tale Busters, Black Mesa; Dark Messiah; Quake 64; Nightfire; original-Xbox Half-Life 2; Titanfall on Xbox 360; Apex Legends with a lightmap page; Vindictus 1.69 and later; Counter-Strike Online 2 in both layouts), truncated at every 1/80 and garbled, open and decode
/// to `Ok` or a typed error; garbled copies also export.
#[cfg(unix)]
#[test]
fn builder_maps_of_new_branches_never_panic() {
    let opts = ExportOptions { format: Some(Format::Glb), textures: None, lightmaps: true, ..Default::default() };
    let (mut cases, mut exported) = (0usize, 0usize);
    let cod = [&bspkit::branches::cod::COD1_DEMO, &bspkit::branches::cod::COD1, &bspkit::branches::cod::COD2];
    let ritual = bspkit::branches::quake3::RITUAL.iter().map(|b| (*b, bspkit::build::ritual_room(b).unwrap()));
    let cod = cod.into_iter().map(|b| (b, bspkit::build::cod12_room(b).unwrap()));
    let forks = bspkit::build::source_forks::FORKS.iter().map(|b| (*b, bspkit::build::source_fork_map(b).unwrap()));
    let dark_messiah = std::iter::once((&bspkit::branches::source::DARK_MESSIAH, bspkit::build::dark_messiah_map()));
    let quake64 = std::iter::once((&bspkit::branches::quake1::lumps::QUAKE64, bspkit::build::quake64_room()));
    let nightfire = std::iter::once((&bspkit::branches::nightfire::NIGHTFIRE, bspkit::build::nightfire_room()));
    let xbox = std::iter::once((&bspkit::branches::source::SOURCE_XBOX, bspkit::build::source_xbox_map()))
        .chain(std::iter::once((&bspkit::branches::respawn::TITANFALL_X360, bspkit::build::titanfall_x360_map())))
        .chain(std::iter::once((&bspkit::branches::respawn::APEX, bspkit::build::apex_lit_room())));
    let vindictus = [(1, bspkit::build::VindictusForm::V69), (2, bspkit::build::VindictusForm::Later)]
        .into_iter()
        .map(|(fv, form)| (form.branch(), bspkit::build::vindictus_map(fv, form)));
    let cso2 = [bspkit::build::Cso2Form::Y2013, bspkit::build::Cso2Form::Y2018]
        .into_iter()
        .map(|form| (form.branch(), bspkit::build::cso2_map(form)));
    for (branch, mut data) in
        ritual.chain(cod).chain(forks).chain(dark_messiah).chain(quake64).chain(nightfire).chain(xbox).chain(vindictus).chain(cso2)
    {
        let header = header_len(&data);
        assert!(header > 0, "{}", branch.id);
        let len = data.len();
        for k in 0..CUTS {
            run(&data[..k * len / CUTS]);
            cases += 1;
        }
        for c in [header - 1, header, header + 1] {
            run(&data[..c]);
        }
        let mut rng = Rng::new(branch.id);
        cases += garbled(&mut rng, &mut data, header, FLIPS, run);
        let mut rng = Rng::new(&format!("export {}", branch.id));
        garbled(&mut rng, &mut data, header, 40, |data| {
            if let Ok(bsp) = Bsp::from_bytes(data) {
                exported += usize::from(export(&bsp, "/dev/null".as_ref(), &opts).is_ok());
            }
        });
    }
    assert!(cases > 5 * FLIPS);
    assert!(exported > 0);
}

/// Mutated copies per map for the decompile test.
const DECOMPILE_FLIPS: usize = 24;

/// Every Quake 2, Quake 3 and Source family corpus map under 500 KB, garbled, decompiled with the
/// quality measured: `Ok` or a typed error, never a panic, each case within the work budget;
/// and a budget too small for a map gives `LimitExceeded`, not a long run.
#[test]
fn garbled_maps_decompile_or_fail_cleanly() {
    use bspkit::decompile::{decompile, DecompileOptions};
    let Some(corpus) = common::corpus("garbled_maps_decompile_or_fail_cleanly") else { return };
    let opts = DecompileOptions { budget: 20_000_000, ..Default::default() };
    let maps: Vec<_> = ["quake2", "quake3", "source", "source_x360"]
        .iter()
        .flat_map(|f| common::maps_in(&corpus, f))
        .filter(|m| std::fs::metadata(&m.path).is_ok_and(|x| x.len() < 500_000))
        .collect();
    let (mut cases, mut decompiled) = (0usize, 0usize);
    for m in &maps {
        let mut data = std::fs::read(&m.path).unwrap();
        let header = header_len(&data);
        let mut rng = Rng::new(&format!("decompile {}", m.path.file_name().unwrap().to_string_lossy()));
        cases += garbled(&mut rng, &mut data, header, DECOMPILE_FLIPS, |data| {
            if let Ok(bsp) = Bsp::from_bytes(data) {
                decompiled += usize::from(decompile(&bsp, &opts).is_ok());
            }
        });
        let bsp = Bsp::from_bytes(&data).unwrap();
        let err = decompile(&bsp, &DecompileOptions { budget: 10, ..Default::default() }).unwrap_err();
        assert!(matches!(err.kind, bspkit::ErrorKind::LimitExceeded { .. }), "{}: {err}", m.path.display());
    }
    eprintln!("garbled decompiles: {} maps, {cases} cases, {decompiled} decompiled", maps.len());
    assert!(maps.len() >= 8);
    assert!(decompiled * 2 > cases, "{decompiled} of {cases} garbled maps decompiled");
}

/// Every Quake 1 and GoldSrc corpus map under 500 KB and the Genesis3D corpus level (3.3 MB;
/// fewer cases), garbled, decompiled with brushes rebuilt from the tree (and from BSPX brush
/// lists where present), the quality measured: `Ok` or a typed error, never a panic, within the
/// work budget; a budget too small gives `LimitExceeded`.
#[test]
fn garbled_tree_maps_decompile_or_fail_cleanly() {
    use bspkit::decompile::{decompile, DecompileOptions};
    let Some(corpus) = common::corpus("garbled_tree_maps_decompile_or_fail_cleanly") else { return };
    let opts = DecompileOptions { budget: 20_000_000, ..Default::default() };
    let maps: Vec<_> = ["quake1", "goldsrc", "genesis3d"]
        .iter()
        .flat_map(|f| common::maps_in(&corpus, f))
        .filter(|m| m.folder == "genesis3d" || std::fs::metadata(&m.path).is_ok_and(|x| x.len() < 500_000))
        .collect();
    let (mut cases, mut decompiled) = (0usize, 0usize);
    let mut slowest = std::time::Duration::ZERO;
    for m in &maps {
        let mut data = std::fs::read(&m.path).unwrap();
        let header = header_len(&data);
        let mut rng = Rng::new(&format!("decompile tree {}", m.path.file_name().unwrap().to_string_lossy()));
        // The Genesis3D level is seven times the size of the largest other one: a third of the cases.
        let flips = if m.folder == "genesis3d" { DECOMPILE_FLIPS / 3 } else { DECOMPILE_FLIPS };
        cases += garbled(&mut rng, &mut data, header, flips, |data| {
            if let Ok(bsp) = Bsp::from_bytes(data) {
                let t = std::time::Instant::now();
                decompiled += usize::from(decompile(&bsp, &opts).is_ok());
                slowest = slowest.max(t.elapsed());
            }
        });
        let bsp = Bsp::from_bytes(&data).unwrap();
        let err = decompile(&bsp, &DecompileOptions { budget: 10, ..Default::default() }).unwrap_err();
        assert!(matches!(err.kind, bspkit::ErrorKind::LimitExceeded { .. }), "{}: {err}", m.path.display());
    }
    eprintln!("garbled tree decompiles: {} maps, {cases} cases, {decompiled} decompiled, slowest {slowest:?}", maps.len());
    assert!(maps.len() >= 16);
    assert!(decompiled * 2 > cases, "{decompiled} of {cases} garbled maps decompiled");
}

/// Issue 23: every corpus map, garbled, through the scene, lightmap, render and texture layers
/// with the budgets set low: `Ok` or a typed error, never a panic; budget overruns are
/// `limit_exceeded` errors naming their flag, and the low budgets are really met.
#[test]
fn garbled_maps_under_low_budgets_fail_cleanly() {
    use bspkit::mesh::{MeshOptions, SceneLimits};
    let Some(corpus) = common::corpus("garbled_maps_under_low_budgets_fail_cleanly") else { return };
    let limits = SceneLimits { max_vertices: 20_000, max_triangles: 10_000 };
    let light = bspkit::lightmap::LightOptions { max_atlas_pixels: 200_000, ..Default::default() };
    let render = bspkit::render::RenderOptions { size: 64, limits, max_work: 40_000, ..Default::default() };
    let budget = bspkit::texture::Budget { max_pixels: 100_000, max_image_pixels: 65_536, ..Default::default() };
    let textures = bspkit::texture::TextureOptions { budget, ..Default::default() };
    let maps = common::maps(&corpus);
    // The maps are independent cases (each with its own seed): on every core.
    let each = common::par_map(&maps, |m| {
        let (mut refused, mut texture_budget) = (0usize, 0usize);
        let mut check = |r: Result<(), bspkit::Error>, flag: &str| {
            if let Err(e) = r {
                if e.kind.name() == "limit_exceeded" && e.to_string().contains(flag) {
                    refused += 1;
                }
            }
        };
        let mut data = std::fs::read(&m.path).unwrap();
        let header = header_len(&data);
        let mut rng = Rng::new(&format!("budgets {}", m.path.file_name().unwrap().to_string_lossy()));
        let cases = garbled(&mut rng, &mut data, header, 4, |data| {
            if let Ok(bsp) = Bsp::from_bytes(data) {
                check(bspkit::mesh::build(&bsp, &MeshOptions { limits, ..Default::default() }).map(|_| ()), "--max-scene-");
                check(bspkit::lightmap::build(&bsp, &light).map(|_| ()), "--max-atlas-pixels");
                check(bspkit::render::render_map(&bsp, &render).map(|_| ()), "--max-");
                // Textures (embedded miptex, pakfile entries) under a low texel budget: each one
                // decoded or a typed miss; the texels handed out, and the budget's own counter
                // (a refused texture takes nothing), never pass the budget.
                let src = bspkit::texture::TextureSource::new(&bsp, &textures);
                let mut held = 0u64;
                for t in src.textures() {
                    match t {
                        Ok(t) => held += t.layers().iter().map(|l| l.rgba.width as u64 * l.rgba.height as u64).sum::<u64>(),
                        Err(miss) if miss.kind == bspkit::texture::MissingKind::Budget => texture_budget += 1,
                        Err(_) => {}
                    }
                }
                assert!(held <= textures.budget.max_pixels, "{held} texels handed out");
                let counted = src.used().pixels;
                assert!(counted <= textures.budget.max_pixels, "{counted} texels counted");
            }
        });
        (cases, refused, texture_budget)
    });
    let (cases, refused, texture_budget) = each.into_iter().fold((0, 0, 0), |(c, r, t), (c1, r1, t1)| (c + c1, r + r1, t + t1));
    eprintln!("garbled maps under low budgets: {cases} cases, {refused} refusals by a budget, {texture_budget} textures refused by the texel budget");
    assert!(refused > 0, "the low budgets were never met");
}

/// The Source decompile paths no corpus map reaches (water overlays, area portals, occluders:
/// lumps 50, 21 + 41 and 9 are empty on every corpus map) on the builder map that has them
/// ([`crate::decompile_source::portal_occluder_water_map`]), its bytes garbled: within those
/// lumps and the records they point into (brushes, sides, planes, vertices, faces, texinfo)
/// and anywhere: `Ok` or a typed error, never a panic, within the budget.
#[test]
fn garbled_water_overlay_portal_occluder_maps_decompile_or_fail_cleanly() {
    use bspkit::decompile::{decompile, DecompileOptions};
    let opts = DecompileOptions { budget: 20_000_000, ..Default::default() };
    let mut data = crate::decompile_source::portal_occluder_water_map("func_areaportal");
    let bsp = Bsp::from_bytes(&data).unwrap();
    let x = decompile(&bsp, &opts).unwrap().report.quality.unwrap().source.unwrap();
    assert_eq!((x.water_overlays, x.areaportal_brushes_tied, x.occluder_brushes_tied), (1, 1, 1), "the paths are reached");
    let lumps: Vec<(usize, usize)> = [50usize, 21, 41, 9, 18, 19, 1, 3, 7, 6, 20]
        .iter()
        .filter_map(|&i| bsp.entry(i).map(|e| (e.offset as usize, e.length as usize)))
        .filter(|(_, len)| *len > 0)
        .collect();
    drop(bsp);
    let header = header_len(&data);
    let mut rng = Rng::new("decompile water overlays, area portals, occluders");
    let (mut cases, mut decompiled) = (0usize, 0usize);
    for round in 0..600 {
        // Two thirds of the cases hit one of the lumps, the rest the whole file.
        let undo = if round % 3 == 2 {
            mutate(&mut rng, &mut data, header)
        } else {
            let (offset, len) = lumps[rng.below(lumps.len())];
            let mut lump = data[offset..offset + len].to_vec();
            let undo: Vec<(usize, u8)> = mutate(&mut rng, &mut lump, 0).into_iter().map(|(i, b)| (offset + i, b)).collect();
            data[offset..offset + len].copy_from_slice(&lump);
            undo
        };
        if let Ok(bsp) = Bsp::from_bytes(&data) {
            decompiled += usize::from(decompile(&bsp, &opts).is_ok());
        }
        cases += 1;
        for (i, b) in undo.into_iter().rev() {
            data[i] = b;
        }
    }
    eprintln!("garbled water overlay / portal / occluder decompiles: {cases} cases, {decompiled} decompiled");
    assert!(decompiled * 2 > cases, "{decompiled} of {cases} garbled maps decompiled");
}
