//! Issue 11, items 7, 8 and 10: budgets per map and per command, not per item. The hostile
//! files are built here with the library's builder (directory entries sharing one LZMA stream,
//! Zip central records sharing one local entry, external lumps beside a map), and opened with
//! budgets set low through the API so that a run that ignored them would show at once.

use bspkit::branches::source::SOURCE;
use bspkit::build::BspBuilder;
use bspkit::compression::compress_valve_lzma;
use bspkit::lumps::pakfile::{PakBuilder, PakCompression, Pakfile};
use bspkit::{Bsp, ErrorKind, OpenOptions};

const MIB: u64 = 1 << 20;

fn temp_dir(name: &str) -> common::Scratch {
    common::scratch(&format!("budgets-{name}"))
}

/// Source directory entry `index`: `{fileofs, filelen, version, fourCC}` at 8 + 16 × index
/// (source.md §5).
fn set_entry(map: &mut [u8], index: usize, offset: u32, length: u32, fourcc: u32) {
    let at = 8 + 16 * index;
    map[at..at + 4].copy_from_slice(&offset.to_le_bytes());
    map[at + 4..at + 8].copy_from_slice(&length.to_le_bytes());
    map[at + 12..at + 16].copy_from_slice(&fourcc.to_le_bytes());
}

fn entry(map: &[u8], index: usize) -> (u32, u32) {
    let at = 8 + 16 * index;
    (u32::from_le_bytes(map[at..at + 4].try_into().unwrap()), u32::from_le_bytes(map[at + 4..at + 8].try_into().unwrap()))
}

/// A Source map whose lump 8 is `size` zero bytes LZMA-compressed, and whose lumps listed in
/// `sharing` point at the very same compressed bytes.
fn shared_stream_map(size: usize, sharing: &[usize]) -> Vec<u8> {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let lz = compress_valve_lzma(&vec![0u8; size], 6).unwrap();
    let mut map = BspBuilder::new(&SOURCE).lump(0, ents).lump(8, lz).build();
    let (o, l) = entry(&map, 8);
    for &i in sharing {
        set_entry(&mut map, i, o, l, size as u32);
    }
    map
}

fn opts(total: u64) -> OpenOptions {
    OpenOptions { max_decompressed_total: total, external_lumps: false, ..Default::default() }
}

/// Item 7: entries sharing one stream decode once and count once.
#[test]
fn shared_lzma_stream_decodes_once() {
    let sharing = [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13];
    let map = shared_stream_map(2 << 20, &sharing);
    // 13 entries × 2 MiB would be 26 MiB; the budget allows one decode and a half.
    let bsp = Bsp::from_bytes_with(&map, &opts(3 * MIB)).unwrap();
    let first = bsp.lump(8).unwrap().as_ptr();
    for &i in &sharing {
        let l = bsp.lump(i).unwrap();
        assert_eq!(l.len(), 2 << 20);
        assert_eq!(l.as_ptr(), first, "lump {i} decoded again instead of sharing");
    }
    assert_eq!(bsp.decompressed_bytes(), 2 * MIB);
    // A whole-map pass (check decodes the lumps it reads, in parallel) stays within the budget.
    let _ = bspkit::check::check(&bsp);
    assert!(bsp.budget_error().is_none());
}

/// Item 7: distinct compressed lumps count against one budget per map; the overrun is a
/// `limit_exceeded` error of that map, and `scan` reports it and goes on with the next map.
#[test]
fn decompression_budget_is_per_map() {
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let mut b = BspBuilder::new(&SOURCE).lump(0, ents.clone());
    for (n, i) in [1usize, 8, 9, 10].into_iter().enumerate() {
        // Different contents, so no two entries share bytes.
        b = b.lump(i, compress_valve_lzma(&vec![n as u8; 1 << 20], 6).unwrap());
    }
    let map = b.build();
    let bsp = Bsp::from_bytes_with(&map, &opts(5 * MIB / 2)).unwrap();
    let mut ok = 0;
    let mut refused = 0;
    for i in [1, 8, 9, 10] {
        match bsp.lump(i) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert_eq!(e.kind.name(), "limit_exceeded", "{e}");
                assert!(e.to_string().contains("all lumps"), "{e}");
                refused += 1;
            }
        }
    }
    assert_eq!((ok, refused), (2, 2), "1 MiB each under a 2.5 MiB budget");
    assert!(bsp.decompressed_bytes() <= 5 * MIB / 2);

    // `scan`: the hostile map is an error of its own, the healthy one is fine.
    let d = temp_dir("scan");
    std::fs::write(d.join("hostile.bsp"), &map).unwrap();
    std::fs::write(d.join("healthy.bsp"), BspBuilder::new(&SOURCE).lump(0, ents).build()).unwrap();
    let options = bspkit::scan::ScanOptions { open: opts(5 * MIB / 2), ..Default::default() };
    let (files, _) = bspkit::scan::collect_files(&[d.to_path_buf()]);
    assert_eq!(files.len(), 2);
    for f in &files {
        let rec = &bspkit::scan::scan_file(f, &options)[0];
        if f.ends_with("hostile.bsp") {
            assert_eq!(rec.error.as_ref().map(|e| e.kind), Some("limit_exceeded"), "{}", rec.display());
        } else {
            assert!(rec.error.is_none(), "{}", rec.display());
        }
    }
}

/// Item 8: Zip central records sharing one local entry are refused; the total per command is
/// budgeted.
#[test]
fn pakfile_shared_local_entries_refused() {
    let mut b = PakBuilder::new();
    b.insert("a.txt", vec![b'a'; 1000]).unwrap();
    b.insert("b.txt", vec![b'b'; 1000]).unwrap();
    let mut zip = b.build(PakCompression::Stored).unwrap();
    assert_eq!(Pakfile::parse(&zip).unwrap().entries.len(), 2);
    // Point the second central record's local offset (field at +42) at the first entry.
    let cd = zip.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let second = cd + 1 + zip[cd + 1..].windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    zip[second + 42..second + 46].copy_from_slice(&0u32.to_le_bytes());
    let err = Pakfile::parse(&zip).unwrap_err();
    assert!(err.to_string().contains("share the local entry"), "{err}");

    // Total budget of one extract: two entries of 1000 bytes against 1500.
    let zip = b.build(PakCompression::Stored).unwrap();
    let pak = Pakfile::parse(&zip).unwrap();
    assert_eq!(pak.total_size(), 2000);
    let d = temp_dir("pak");
    let err = pak.extract_limited(&d, &[], 1 << 20, 1500).unwrap_err();
    assert_eq!(err.kind.name(), "limit_exceeded");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written before the refusal");
    let x = pak.extract_limited(&d, &[], 1 << 20, 2000).unwrap();
    assert_eq!(x.written.len(), 2);
    // One entry cap for every command: insert refuses what read would refuse.
    let mut big = PakBuilder::new();
    let err = big.insert("big.bin", vec![0u8; (bspkit::lumps::pakfile::DEFAULT_MAX_ENTRY + 1) as usize]).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::LimitExceeded { .. }));
}

/// Item 10: external lumps are budgeted per map (all files together), and special files
/// beside a map are refused rather than read.
#[test]
fn external_lumps_budgeted_and_special_files_refused() {
    let d = temp_dir("ext");
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    let map = BspBuilder::new(&SOURCE).lump(0, ents).lump(8, vec![0u8; 16]).build();
    let path = d.join("m.bsp");
    std::fs::write(&path, &map).unwrap();
    for i in [1u32, 8] {
        std::fs::write(bspkit::lmp::lmp_path(&path, i), bspkit::lmp::write_lmp(i, 0, 0, &[7u8; 4000]).unwrap()).unwrap();
    }
    let small = OpenOptions { max_external: 6000, ..Default::default() };
    let err = Bsp::open_with(&path, &small).err().expect("two 4 KB .lmp files under a 6 KB budget");
    assert_eq!(err.kind.name(), "limit_exceeded", "{err}");
    assert!(Bsp::open_with(&path, &OpenOptions { max_external: 9000, ..Default::default() }).is_ok());

    // A `.lmp` that is a link to /dev/zero is refused with a message, never read forever.
    std::fs::remove_file(bspkit::lmp::lmp_path(&path, 1)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", bspkit::lmp::lmp_path(&path, 1)).unwrap();
    let err = Bsp::open(&path).err().expect("a device sibling is refused");
    assert_eq!(err.kind.name(), "not_regular_file", "{err}");
    assert!(err.to_string().contains("character device"), "{err}");
    // Without external lumps the map itself opens.
    assert!(Bsp::open_with(&path, &OpenOptions { external_lumps: false, ..Default::default() }).is_ok());
}

/// Item 10: Respawn partition names from the map are never joined into paths unchecked.
#[test]
fn respawn_partition_names_are_checked() {
    use bspkit::branches::respawn::is_safe_kind;
    for bad in ["/../../secret", "..", "a/b", "a\\b", "x..y", ""] {
        assert!(!is_safe_kind(bad), "{bad:?}");
    }
    for good in ["env", "fx", "script", "snd", "spawn", "a-b_c.d"] {
        assert!(is_safe_kind(good), "{good:?}");
    }
}

/// Item 11: a map truncated by another process while it is read gives no SIGBUS: maps up to
/// `MAP_READ_LIMIT` are read into memory, so the opened map keeps its bytes.
#[test]
fn truncation_while_reading_is_harmless() {
    let d = temp_dir("trunc");
    let path = d.join("m.bsp");
    let bytes = bspkit::build::sample_quake1();
    std::fs::write(&path, &bytes).unwrap();
    let bsp = Bsp::open(&path).unwrap();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(0).unwrap();
    for e in bsp.lumps() {
        bsp.lump(e.index).unwrap();
    }
    assert_eq!(bsp.data(), &bytes[..]);
}

// ---- Issue 23: per-command budgets of what a command builds from one map. ----

use bspkit::branches::quake1::lumps::{LUMP_FACES, LUMP_MODELS, LUMP_SURFEDGES, QUAKE1};
use bspkit::mesh::{self, MeshOptions, SceneLimits};

use crate::common;

/// The largest figure of `what` over the corpus must stay a quarter of its default or less, so
/// that no real map comes near a budget.
fn far_below(what: &str, largest: (u64, String), default: u64) {
    eprintln!(
        "{what}: largest real map {} ({}), default {default} ({:.1} %)",
        largest.0,
        largest.1,
        100.0 * largest.0 as f64 / default as f64
    );
    assert!(largest.0.saturating_mul(4) <= default, "{what}: {} ({}) is within 4x of the default {default}", largest.0, largest.1);
}

/// Issue 23: the scene budgets' defaults are far above what every real map of the corpus makes
/// (all models, the default patch level, as `bsp export` builds them).
#[test]
fn corpus_maps_are_far_below_the_budgets() {
    let Some(corpus) = common::corpus("budgets corpus scenes") else { return };
    let (mut verts, mut tris) = ((0u64, String::new()), (0u64, String::new()));
    let mut built = 0;
    let (mut atlas, mut work) = ((0u64, String::new()), (0u64, String::new()));
    let (mut texels, mut image) = ((0u64, String::new()), (0u64, String::new()));
    let mut grid = (0u64, String::new());
    for m in common::maps(&corpus) {
        let Ok(bsp) = Bsp::open(&m.path) else { continue };
        built += 1;
        let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
        let scene = mesh::build(&bsp, &MeshOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let v = scene.models.iter().map(|m| m.vertices.len() as u64).sum::<u64>();
        let t = scene.triangle_count() as u64;
        if v > verts.0 {
            verts = (v, name.clone());
        }
        if t > tris.0 {
            tris = (t, name.clone());
        }
        // The points the render's framing puts on its grid (all models: at least what a render
        // frames), which thins them past its limit.
        let tri = bspkit::render::drawn_triangles(&scene);
        let g = bspkit::render::focus::focus(&tri, &[], None).map_or(0, |f| f.grid_points);
        if g > grid.0 {
            grid = (g, name.clone());
        }
        if let Ok(lm) = bspkit::lightmap::build(&bsp, &bspkit::lightmap::LightOptions { hdr: true, ..Default::default() }) {
            let p = lm.atlases.iter().map(|a| a.width as u64 * a.height as u64).sum::<u64>();
            if p > atlas.0 {
                atlas = (p, name.clone());
            }
        }
        let src = bspkit::texture::TextureSource::new(&bsp, &Default::default());
        let mut one = 0u64;
        for t in src.textures().flatten() {
            one = one.max(t.layers().iter().map(|l| l.rgba.width as u64 * l.rgba.height as u64).max().unwrap_or(0));
        }
        if src.used().pixels > texels.0 {
            texels = (src.used().pixels, name.clone());
        }
        if one > image.0 {
            image = (one, name.clone());
        }
    }
    // The default renders (iso, 512 px) are shared with the render coverage test.
    for (name, r) in common::default_renders(&corpus) {
        let r = r.as_ref().unwrap_or_else(|e| panic!("{name}: render: {e}"));
        if r.frame.work > work.0 {
            work = (r.frame.work, name.clone());
        }
    }
    eprintln!("{built} corpus maps built");
    far_below("lightmap atlas pixels (--hdr, every style and layer)", atlas, bspkit::lumps::lighting::DEFAULT_MAX_ATLAS_PIXELS);
    far_below("render work (iso, 512 px)", work, bspkit::render::DEFAULT_MAX_RENDER_WORK);
    far_below("render framing grid points", grid, bspkit::render::focus::MAX_GRID_POINTS);
    far_below("scene vertices", verts, mesh::DEFAULT_MAX_SCENE_VERTICES);
    far_below("scene triangles", tris, mesh::DEFAULT_MAX_SCENE_TRIANGLES);
    far_below("decoded texture texels (every texture the map carries)", texels, bspkit::assets::DEFAULT_MAX_TEXTURE_PIXELS);
    far_below("texels of one decoded image", image, bspkit::assets::DEFAULT_MAX_IMAGE_PIXELS);
}

/// A Quake 1 box room whose model 0 gets `extra` more faces, every one naming the same run of
/// 65,532 surfedges (the room's first face's four edges over and over): each face is valid on
/// its own, together they ask for `extra` × 65,532 vertices from a file of a few hundred KB.
fn quake1_shared_surfedges(extra: usize) -> Vec<u8> {
    quake1_copies(extra, 65_532)
}

/// The box room with `extra` faces appended to model 0, copies of its first face over one run of
/// about `corners` surfedges (the face's edges repeated) when `corners` is large, else copies of
/// each of its faces in turn over their own edges: faces drawn over one another.
fn quake1_copies(extra: usize, corners: usize) -> Vec<u8> {
    let room = bspkit::build::sample_quake1();
    let bsp = Bsp::from_bytes(&room).unwrap();
    let lump = |i: usize| bsp.lump(i).unwrap().to_vec();
    let mut faces = lump(LUMP_FACES);
    let mut surfedges = lump(LUMP_SURFEDGES);
    let mut models = lump(LUMP_MODELS);
    // Face29 (20 bytes): plane u16, side u16, first_edge i32, num_edges u16, texinfo u16,
    // styles [u8; 4], light_ofs i32 (quake_facts.md 1.2).
    let face_count = faces.len() / 20;
    // Long runs are made for the first face only (the file stays small), short ones for each.
    let copied = if corners > 64 { 1 } else { face_count };
    // Per copied face: its edges repeated to about `corners`, appended once.
    let mut runs = Vec::new();
    for k in 0..copied {
        let f = &faces[20 * k..20 * k + 20];
        let first = i32::from_le_bytes(f[4..8].try_into().unwrap()) as usize;
        let n = u16::from_le_bytes(f[8..10].try_into().unwrap()) as usize;
        let run: Vec<u8> = surfedges[4 * first..4 * (first + n)].to_vec();
        let start = surfedges.len() / 4;
        let count = corners.max(n) / n * n;
        for _ in 0..count / n {
            surfedges.extend_from_slice(&run);
        }
        runs.push((start, count));
    }
    // `extra` faces, copies of the room's faces in turn (so some face the camera).
    for i in 0..extra {
        let k = i % copied;
        let mut f = faces[20 * k..20 * k + 20].to_vec();
        f[4..8].copy_from_slice(&(runs[k].0 as i32).to_le_bytes());
        f[8..10].copy_from_slice(&(runs[k].1 as u16).to_le_bytes());
        f[16..20].copy_from_slice(&(-1i32).to_le_bytes());
        faces.extend_from_slice(&f);
    }
    // Model 0 (64 bytes; first_face at 56, num_faces at 60) takes every face.
    models[56..60].copy_from_slice(&0i32.to_le_bytes());
    models[60..64].copy_from_slice(&((face_count + extra) as i32).to_le_bytes());
    let mut b = BspBuilder::new(&QUAKE1);
    for i in 0..QUAKE1.lumps.len() {
        b = b.lump(i, lump(i));
    }
    b.lump(LUMP_FACES, faces).lump(LUMP_SURFEDGES, surfedges).lump(LUMP_MODELS, models).build()
}

fn assert_scene_limit(e: &bspkit::Error, flag: &str) {
    assert_eq!(e.kind.name(), "limit_exceeded", "{e}");
    assert!(e.to_string().contains(flag), "{e}");
}

/// Issue 23: Quake 1 faces sharing one run of surfedges. Before: 1,000 faces in 294 KB took
/// 2.25 GB and 22 s (5,000 faces aborted the process). Now the scene budget stops the build
/// before it allocates past it: a `limit_exceeded` error naming `--max-scene-vertices`.
#[test]
fn quake1_shared_surfedges_hit_the_scene_budget() {
    let map = quake1_shared_surfedges(1000);
    assert!(map.len() < 400_000, "{}", map.len());
    let bsp = Bsp::from_bytes(&map).unwrap();
    let e = mesh::build(&bsp, &MeshOptions::default()).unwrap_err();
    assert_scene_limit(&e, "--max-scene-vertices");
    // A budget set low refuses the healthy room too, and a raised one lets the file through.
    let room_bytes = bspkit::build::sample_quake1();
    let room = Bsp::from_bytes(&room_bytes).unwrap();
    let low = MeshOptions { limits: SceneLimits { max_vertices: 10, ..Default::default() }, ..Default::default() };
    assert_scene_limit(&mesh::build(&room, &low).unwrap_err(), "--max-scene-vertices");
    let low = MeshOptions { limits: SceneLimits { max_triangles: 3, ..Default::default() }, ..Default::default() };
    assert_scene_limit(&mesh::build(&room, &low).unwrap_err(), "--max-scene-triangles");
    assert!(mesh::build(&room, &MeshOptions::default()).is_ok());
    let small = quake1_shared_surfedges(20);
    let raised = MeshOptions { limits: SceneLimits { max_vertices: 2 << 20, max_triangles: 2 << 20 }, ..Default::default() };
    let scene = mesh::build(&Bsp::from_bytes(&small).unwrap(), &raised).unwrap();
    assert!(scene.models[0].vertices.len() >= 20 * 65_532);
    // The exporter and the renderer stop with the same error and write nothing (a budget of
    // 1 Mi vertices keeps the test quick: eight faces fit).
    let limits = SceneLimits { max_vertices: 1 << 20, ..Default::default() };
    let d = temp_dir("scene");
    let out = d.join("e.glb");
    let opts = bspkit::export::ExportOptions { textures: None, lightmaps: false, limits, ..Default::default() };
    let e = bspkit::export::export(&bsp, &out, &opts).unwrap_err();
    assert_scene_limit(&e, "--max-scene-vertices");
    assert!(!out.exists());
    let e = bspkit::render::render_map(&bsp, &bspkit::render::RenderOptions { limits, ..Default::default() }).unwrap_err();
    assert_scene_limit(&e, "--max-scene-vertices");
}

/// Issue 23: the lightmap atlas budget. Before, a 123 KB Source map (3 faces of 2046² luxels ×
/// 4 styles × 4 bump layers) made `lightmaps --hdr` write 3.1 GB. The atlas pixels are counted
/// before any atlas is allocated; past the budget, `lightmap::build`, `export` (which no longer
/// goes on without lightmaps) and Python's `lightmap_atlases` stop with an error naming it.
#[test]
fn atlas_budget_is_checked_before_allocating() {
    use bspkit::lightmap::{self, LightOptions};
    let room_bytes = bspkit::build::sample_quake1();
    let room = Bsp::from_bytes(&room_bytes).unwrap();
    let lm = lightmap::build(&room, &LightOptions::default()).unwrap();
    let pixels: u64 = lm.atlases.iter().map(|a| a.width as u64 * a.height as u64).sum();
    assert!(pixels > 0, "the sample room is lit");
    let exact = LightOptions { max_atlas_pixels: pixels, ..Default::default() };
    assert!(lightmap::build(&room, &exact).is_ok());
    let low = LightOptions { max_atlas_pixels: pixels - 1, ..Default::default() };
    let e = lightmap::build(&room, &low).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded { what: lightmap::ATLAS_PIXELS, requested: pixels, limit: pixels - 1 });
    assert!(e.to_string().contains("--max-atlas-pixels"), "{e}");
    let d = temp_dir("atlas");
    let out = d.join("e.glb");
    let opts = bspkit::export::ExportOptions { textures: None, max_atlas_pixels: pixels - 1, ..Default::default() };
    let e = bspkit::export::export(&room, &out, &opts).unwrap_err();
    assert!(e.to_string().contains("--max-atlas-pixels"), "{e}");
    assert!(!out.exists());
}

/// Issue 23: the render work budget. Before, 50,000 overlapping faces (1 MB) took 64.7 s at the
/// default 512 px. Each drawn triangle's on-screen bounding box is counted before its pixels are
/// visited; past the budget nothing more is drawn and the render is an error naming it.
#[test]
fn render_work_budget_stops_overlapping_faces() {
    use bspkit::render::{render_map, RenderOptions};
    let map = quake1_copies(50_000, 4);
    assert!(map.len() < 1_200_000, "{}", map.len());
    let bsp = Bsp::from_bytes(&map).unwrap();
    // The healthy room's work at 128 px, then the overlapping copies under ten times that.
    let room_bytes = bspkit::build::sample_quake1();
    let room = Bsp::from_bytes(&room_bytes).unwrap();
    let small = |max_work| RenderOptions { size: 128, max_work, ..Default::default() };
    let work = render_map(&room, &small(u64::MAX)).unwrap().frame.work;
    assert!(work > 0);
    assert!(render_map(&room, &small(work)).is_ok());
    let e = render_map(&room, &small(work - 1)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded { what: bspkit::render::RENDER_WORK, requested: work, limit: work - 1 });
    let start = std::time::Instant::now();
    let e = render_map(&bsp, &small(10 * work)).unwrap_err();
    assert!(e.to_string().contains("--max-render-work"), "{e}");
    eprintln!("50,000 overlapping faces refused after {:?}", start.elapsed());
}

/// Issue 23: special files named as options. Before, `--palette FIFO`, `--wad FIFO` and a
/// folder holding a FIFO `*.wad` hung `textures`/`export`/`render` (and Python's
/// `textures(palette=…)`), and `--palette /dev/zero` read 6.7 GB in 10 s. Every such path is now
/// opened as maps are (regular files only, no further than the size at open): each is a
/// `not_regular_file` warning and the command goes on at once.
#[test]
fn special_files_given_as_options_are_refused() {
    let d = temp_dir("special");
    let fifo = |p: &std::path::Path| {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    fifo(&d.join("palette.lmp"));
    fifo(&d.join("named.wad"));
    std::fs::create_dir(d.join("wads")).unwrap();
    fifo(&d.join("wads").join("inside.wad"));
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.lmp")).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let dir = d.to_path_buf();
    std::thread::spawn(move || {
        let mut warnings = Vec::new();
        for palette in ["palette.lmp", "zero.lmp"] {
            let opts = bspkit::assets::AssetOptions {
                wads: vec![dir.join("named.wad"), dir.join("wads")],
                palette: Some(dir.join(palette)),
                ..Default::default()
            };
            let a = bspkit::assets::Assets::open(&opts);
            warnings.extend(a.warnings.iter().map(|w| w.to_string()));
            warnings.extend(a.palette.and_then(|p| p.err()).map(|m| m.to_string()));
        }
        tx.send(warnings).unwrap();
    });
    let warnings = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("a special file blocked the setup");
    for (name, kind) in [("named.wad", "a FIFO"), ("inside.wad", "a FIFO"), ("palette.lmp", "a FIFO"), ("zero.lmp", "a character device")] {
        assert!(warnings.iter().any(|w| w.contains(name) && w.contains(kind)), "{name}: {warnings:#?}");
    }
}

/// Issue 23: `-o FIFO` with no reader blocked forever. Now it is an error at once; with a
/// reader the bytes go through as before.
#[test]
fn output_fifo_without_reader_is_refused() {
    use bspkit::write::atomic::{write_file, WriteOptions};
    let d = temp_dir("outfifo");
    let p = d.join("out.glb");
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (tx, rx) = std::sync::mpsc::channel();
    let target = p.clone();
    std::thread::spawn(move || tx.send(write_file(&target, b"abc", &WriteOptions::OUTPUT)).unwrap());
    let e = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the write blocked").unwrap_err();
    assert!(e.to_string().contains("no reader"), "{e}");
    // With a reader.
    let target = p.clone();
    let reader = std::thread::spawn(move || std::fs::read(&target).unwrap());
    let mut written = None;
    for _ in 0..200 {
        match write_file(&p, b"abc", &WriteOptions::OUTPUT) {
            Ok(w) => {
                written = Some(w);
                break;
            }
            // The reader may not have opened its end yet.
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    }
    assert!(written.is_some_and(|w| w.in_place));
    assert_eq!(reader.join().unwrap(), b"abc");
}

// ---- Issue 23: decoded texture texels, per command (total) and per image. ----

/// A Source map whose pakfile carries `n` DXT1 VTFs of `size` × `size` texels.
fn source_map_with_vtfs(n: usize, size: u16) -> Vec<u8> {
    use bspkit::assets::vtf::{Format, VtfBuilder};
    let vtf = VtfBuilder::new(Format::DXT1, size, size);
    let data = vec![0u8; vtf.image_size() as usize];
    let mut pak = PakBuilder::new();
    for i in 0..n {
        pak.insert(&format!("materials/maps/m/t{i}.vtf"), vtf.build(&data)).unwrap();
    }
    BspBuilder::new(&SOURCE).lump(bspkit::branches::source::LUMP_PAKFILE, pak.build(PakCompression::Stored).unwrap()).build()
}

fn texture_results(map: &[u8], budget: bspkit::assets::Budget) -> Vec<Result<bspkit::texture::Texture, bspkit::texture::Missing>> {
    let bsp = Bsp::from_bytes(map).unwrap();
    let src = bspkit::texture::TextureSource::new(&bsp, &bspkit::texture::TextureOptions { budget, ..Default::default() });
    src.textures().collect()
}

/// The texel budget is for the whole command: three 64 × 64 textures fit 10,000 texels two at
/// a time, and the third is a `budget` miss naming the budget, not a decode failure.
#[test]
fn decoded_texels_are_a_per_command_budget() {
    use bspkit::assets::{Budget, MissingKind, BUDGET_PIXELS};
    let map = source_map_with_vtfs(3, 64);
    let all = texture_results(&map, Budget::default());
    assert!(all.iter().all(|r| r.is_ok()), "{all:?}");
    let low = texture_results(&map, Budget { max_pixels: 10_000, ..Budget::default() });
    assert!(low[0].is_ok() && low[1].is_ok(), "{low:?}");
    let m = low[2].as_ref().unwrap_err();
    assert_eq!(m.kind, MissingKind::Budget, "{m}");
    assert!(m.reason.contains(BUDGET_PIXELS.split(' ').next().unwrap()), "{m}");
}

/// One image whose header claims more texels than the per-image cap is refused from its header,
/// before a pixel is decoded; the per-command total is untouched by it.
#[test]
fn one_image_over_the_image_cap_is_refused_from_its_header() {
    use bspkit::assets::{Budget, MissingKind};
    let map = source_map_with_vtfs(1, 512);
    let r = texture_results(&map, Budget { max_image_pixels: 1 << 16, ..Budget::default() });
    let m = r[0].as_ref().unwrap_err();
    assert_eq!(m.kind, MissingKind::Budget, "{m}");
    assert!(m.reason.contains("262144"), "the claimed texels are named: {m}");
}

/// Quake 3 images (PNG/JPEG/TGA) are decoded with what is left of the budget as the decoder's
/// own output limit, so an oversized PNG stops inside the decoder and is reported as the budget.
#[test]
fn quake3_png_over_the_budget_is_a_budget_miss() {
    use bspkit::assets::{Budget, ImageRgba, MissingKind};
    let d = temp_dir("q3png");
    let game = d.join("baseq3");
    std::fs::create_dir_all(game.join("textures/x")).unwrap();
    std::fs::write(game.join("textures/x/big.png"), ImageRgba::checker(256, 256).encode_png().unwrap()).unwrap();
    let bytes = BspBuilder::new(&bspkit::branches::quake3::QUAKE3).build();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let opts = |budget| bspkit::texture::TextureOptions { game_dirs: vec![game.clone()], budget, ..Default::default() };
    let src = bspkit::texture::TextureSource::new(&bsp, &opts(Budget::default()));
    assert_eq!(src.resolve("textures/x/big").unwrap().width(), 256);
    let src = bspkit::texture::TextureSource::new(&bsp, &opts(Budget { max_pixels: 1000, ..Budget::default() }));
    let m = src.resolve("textures/x/big").unwrap_err();
    assert_eq!(m.kind, MissingKind::Budget, "{m}");
}

/// Issue 23: Genesis3D textures are asked of the texel budget from their TEXTURES entry before
/// their texels are expanded (as embedded miptex are), not charged after decoding. The
/// builder's level with its texture claiming 4096 × 4096 over 85 bytes of TEXDATA: the decoder
/// alone (what the source called first before) reads the entry and fails on the short texels;
/// through the source under a 1,000-texel budget it is a budget miss naming the claimed
/// 16,777,216 texels, and nothing is charged. The real 8 × 8 texture over a 10-texel budget is
/// a budget miss too, by name and in the walk, with the counter at 0.
#[test]
fn genesis3d_textures_are_charged_before_decoding() {
    use bspkit::assets::{Budget, MissingKind};
    use bspkit::branches::genesis3d;
    let level = genesis3d::room::small_level();
    let bsp = Bsp::from_bytes(&level).unwrap();
    let at = bsp.entry(genesis3d::lumps::CHUNK_TEXTURES).unwrap().offset as usize;
    let mut claimed = level.clone();
    // GFX_Texture: name[32], flags, width (offset 36), height (40).
    claimed[at + 36..at + 40].copy_from_slice(&4096i32.to_le_bytes());
    claimed[at + 40..at + 44].copy_from_slice(&4096i32.to_le_bytes());
    let big = Bsp::from_bytes(&claimed).unwrap();
    let before = genesis3d::texture::decode(&big, 0).unwrap_err();
    assert_eq!(before.kind, MissingKind::Undecodable, "{before}");
    let opts = |max_pixels| bspkit::texture::TextureOptions { budget: Budget { max_pixels, ..Budget::default() }, ..Default::default() };
    let src = bspkit::texture::TextureSource::new(&big, &opts(1000));
    let after = src.resolve("stone").unwrap_err();
    assert_eq!(after.kind, MissingKind::Budget, "{after}");
    assert!(after.reason.contains("16777216"), "the claimed texels are named: {after}");
    let walked: Vec<_> = src.textures().collect();
    assert!(matches!(&walked[..], [Err(m)] if m.kind == MissingKind::Budget), "{walked:?}");
    assert_eq!(src.used().pixels, 0);
    eprintln!(
        "4096×4096 claim: decoder alone {:?} ({}); through the budget {:?} ({})",
        before.kind, before.reason, after.kind, after.reason
    );
    // The genuine 8 × 8 texture: 64 texels fit the default budget, not 10.
    let src = bspkit::texture::TextureSource::new(&bsp, &opts(10));
    assert_eq!(src.resolve("stone").unwrap_err().kind, MissingKind::Budget);
    assert_eq!(src.used().pixels, 0);
    let src = bspkit::texture::TextureSource::new(&bsp, &opts(64));
    assert_eq!(src.resolve("stone").unwrap().width(), 8);
    assert_eq!(src.used().pixels, 64);
}
