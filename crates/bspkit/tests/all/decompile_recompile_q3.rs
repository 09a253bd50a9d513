//! Decompiled Quake 3 family corpus maps compile again with q3map2: each IBSP 46 / 47 corpus map
//! is decompiled (`bspkit::decompile`, brush primitives and `patchDef2`), the `.map` is compiled
//! by q3map2 (`BSPKIT_Q3MAP2` names it; the test skips with a note when it is unset or not a
//! file — CI does not build it, README "Recompile test (q3map2)" says how) with the `common/`
//! shaders of OpenArena's game data (Debian's `openarena-data`, which `openarena-server` pulls
//! in; `BSPKIT_Q3MAP2_BASEPATH` names another folder holding `baseoa/`), and the compiled map is
//! compared with the original: models, shader names, brushes, brush sides and entities equal,
//! every model's bounds within 10⁻³, draw surfaces and triangles equal to the original's or to
//! the mapper's source (where it is beside the map) compiled by the same q3map2, and the
//! recompile decompiled again gives back every brush with the same plane set and side textures
//! (but the one [`brushes_changed`] names). The recompile is
//! decompiled and compiled a second time (the second generation must equal the first), the
//! first is also vis'd and lit (`-fast`), and all three are loaded in ioquake3's dedicated server
//! (`openarena-server`, helpers of `engine_quake3`) when it is installed. Every figure is
//! printed; README's tables are this output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::common;
use crate::engine_quake3;

use bspkit::branches::quake3::{self, SurfaceRecord as _};
use bspkit::decompile::geom::Plane;
use bspkit::decompile::{decompile, mapfile, DecompileOptions};
use bspkit::Bsp;

/// The q3map2 to run: `BSPKIT_Q3MAP2`, when it names a file.
fn q3map2() -> Option<PathBuf> {
    std::env::var_os("BSPKIT_Q3MAP2").map(PathBuf::from).filter(|p| p.is_file())
}

/// The folder holding `baseoa/` whose `scripts/common.shader` gives caulk, nodraw, clip and
/// the other tool shaders their flags (without it q3map2 draws caulk: see README).
fn base_path() -> Option<PathBuf> {
    let p = std::env::var_os("BSPKIT_Q3MAP2_BASEPATH").map(PathBuf::from).unwrap_or_else(|| "/usr/share/games/openarena".into());
    p.join("baseoa").is_dir().then_some(p)
}

/// What is compared between an original map and its recompile.
#[derive(Debug, Clone, PartialEq)]
struct Figures {
    /// `(mins, maxs)` of every model; the world's is the first.
    model_bounds: Vec<([f32; 3], [f32; 3])>,
    /// `(name, surface flags, content flags)` of every shader, sorted by name (q3map2 numbers
    /// shaders in the order its brushes and surfaces first use them, which the decompile's brush
    /// order changes).
    shaders: Vec<(String, i32, i32)>,
    brushes: usize,
    brush_sides: usize,
    /// Draw surfaces of type 1 (planar), 2 (patch), 3 (triangle soup), 4 (flare).
    surfaces: [usize; 4],
    /// Drawn triangles (indices / 3 of planar and soup surfaces).
    triangles: usize,
    /// Every entity's pairs in order, q3map2's own `_q3map2_*` keys left out.
    entities: Vec<Vec<(String, String)>>,
}

fn figures(bsp: &Bsp, name: &str) -> Figures {
    let v = quake3::View::<quake3::Ibsp>::new(bsp).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut surfaces = [0; 4];
    let mut triangles = 0;
    for s in v.surfaces().unwrap() {
        let t = s.surface_type();
        assert!((1..=4).contains(&t), "{name}: surface type {t}");
        surfaces[t as usize - 1] += 1;
        if t == 1 || t == 3 {
            triangles += v.surface_indices(s).unwrap().len() / 3;
        }
    }
    Figures {
        model_bounds: v.models().unwrap().iter().map(|m| (m.mins.map(|x| x.get()), m.maxs.map(|x| x.get()))).collect(),
        shaders: {
            let mut s: Vec<_> =
                v.shaders().unwrap().iter().map(|s| (s.name().into_owned(), s.surface_flags.get(), s.content_flags.get())).collect();
            s.sort();
            s
        },
        brushes: v.brushes().unwrap().len(),
        brush_sides: v.brush_sides().unwrap().len(),
        surfaces,
        triangles,
        entities: bsp
            .entities()
            .unwrap()
            .iter()
            .map(|e| e.iter().filter(|(k, _)| !k.starts_with("_q3map2_")).map(|(k, v)| (k.into_owned(), v.into_owned())).collect())
            .collect(),
    }
}

/// Run q3map2's BSP stage on `map` (writing the `.bsp` beside it); its log, or why it failed (a
/// compile that has not ended after 300 s is a failure, not a stuck test). `base`: the game
/// data folder, or none (no shader scripts).
fn compile(q3map2: &Path, base: Option<&Path>, map: &Path) -> Result<String, String> {
    stage(q3map2, base, &["-bsp", "-meta"], map)
}

/// Run one q3map2 stage (`-bsp …`, `-vis …`, `-light …`) on `file` (a `.map` for the BSP stage,
/// else the `.bsp`), as [`compile`].
fn stage(q3map2: &Path, base: Option<&Path>, args: &[&str], map: &Path) -> Result<String, String> {
    let dir = map.parent().unwrap();
    let mut cmd = Command::new(q3map2);
    // An empty home, so that no user's q3map2 settings or game folders are read.
    cmd.env("HOME", dir);
    match base {
        Some(b) => cmd.arg("-fs_basepath").arg(b).args(["-fs_game", "baseoa"]),
        None => cmd.arg("-fs_basepath").arg(dir.join("no-game-data")),
    };
    // One thread: the test shares the machine with others, and these maps compile in
    // milliseconds.
    cmd.args(["-game", "quake3", "-threads", "1"]).args(args).arg(map);
    let child = cmd
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("start {}: {e}", q3map2.display()))?;
    let (status, log) = common::output_within(child, 300, "q3map2")?;
    if !status.success() || !map.with_extension("bsp").is_file() || log.to_lowercase().contains("leaked") {
        return Err(format!("q3map2 exited with {status}:\n{log}"));
    }
    Ok(log)
}

/// Per entity, each brush's planes (bevels are not written by the decompile).
fn brush_planes(text: &str) -> Vec<Vec<Vec<(Plane, String)>>> {
    let ents = mapfile::read_map(text.as_bytes()).unwrap();
    ents.iter().map(|e| e.brushes().map(|b| b.iter().map(|s| (s.plane().unwrap(), s.texture.clone())).collect()).collect()).collect()
}

/// How many brushes of `a` come back in `b`, in the same entity, with the same plane set (any
/// order: q3map2 sorts brushes and sides), and how many of those have every side's texture.
fn same_brushes(a: &str, b: &str) -> (usize, usize, usize) {
    let (pa, pb) = (brush_planes(a), brush_planes(b));
    assert_eq!(pa.len(), pb.len());
    let (mut total, mut found, mut textured) = (0, 0, 0);
    for (ea, eb) in pa.iter().zip(&pb) {
        let mut used = vec![false; eb.len()];
        for ba in ea {
            total += 1;
            let same = |bb: &Vec<(Plane, String)>| {
                bb.len() == ba.len() && ba.iter().all(|(p, _)| bb.iter().any(|(q, _)| p.same_as(q, 1e-6, 1e-3)))
            };
            let Some(k) = (0..eb.len()).find(|&k| !used[k] && same(&eb[k])) else { continue };
            used[k] = true;
            found += 1;
            let tex = ba.iter().all(|(p, t)| eb[k].iter().any(|(q, u)| p.same_as(q, 1e-6, 1e-3) && t == u));
            textured += tex as usize;
        }
    }
    (total, found, textured)
}

/// Brushes that decompile again with a different plane set (README).
fn brushes_changed(file: &str) -> usize {
    match file {
        // The 32-sided rock: one bevel q3map2 2.5.17n adds trims the stored brush (its polygon
        // is a 77 unit² triangle), so the decompile keeps that plane as a 33rd side.
        "turtlearena__sp1boss.bsp" => 1,
        _ => 0,
    }
}

#[test]
fn decompiled_quake3_maps_recompile_with_q3map2() {
    let test = "decompile_recompile_q3::decompiled_quake3_maps_recompile_with_q3map2";
    let Some(corpus) = common::corpus(test) else { return };
    let Some(q3map2) = q3map2() else {
        eprintln!("note: {test} skipped: BSPKIT_Q3MAP2 does not name a q3map2 (README \"Recompile test (q3map2)\")");
        return;
    };
    let Some(base) = base_path() else {
        eprintln!(
            "note: {test} skipped: no OpenArena game data for the common shaders (Debian openarena-data, or \
             BSPKIT_Q3MAP2_BASEPATH = a folder holding baseoa/)"
        );
        return;
    };
    // `BSPKIT_RECOMPILE_KEEP=DIR` keeps the `.map`s, the recompiled `.bsp`s and q3map2's logs there.
    let keep = std::env::var_os("BSPKIT_RECOMPILE_KEEP").map(PathBuf::from);
    let dir = common::TempDir {
        path: keep.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("bspkit-recompile-q3-{}", std::process::id()))),
        keep: keep.is_some(),
    };
    std::fs::create_dir_all(&dir.path).unwrap();
    let server = engine_quake3::server();
    let home = engine_quake3::TempHome(std::env::temp_dir().join(format!("bspkit-recompile-q3-oa-{}", std::process::id())));
    std::fs::create_dir_all(home.path().join("baseoa/maps")).unwrap();
    let mut done = 0;
    let mut loaded = 0;
    for (n, m) in common::maps_in(&corpus, "quake3").iter().enumerate() {
        let file = m.path.file_name().unwrap().to_string_lossy().to_string();
        let stem = file.trim_end_matches(".bsp").to_string();
        let bsp = Bsp::open(&m.path).unwrap();
        assert!(["quake3", "ibsp47"].contains(&bsp.branch().id), "{file}: {}", bsp.branch().id);
        let d0 = decompile(&bsp, &DecompileOptions::default()).unwrap();
        // Two generations: the original decompiled and compiled, then that compiled map
        // decompiled and compiled again.
        let mut texts = vec![d0.text.clone()];
        let mut gens = Vec::new();
        for g in 1..=2 {
            let map = dir.path.join(format!("{stem}.g{g}.map"));
            std::fs::write(&map, texts.last().unwrap()).unwrap();
            let t = Instant::now();
            let log = compile(&q3map2, Some(&base), &map).unwrap_or_else(|e| panic!("{file} generation {g}: {e}"));
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if keep.is_some() {
                std::fs::write(map.with_extension("q3map2.txt"), &log).unwrap();
            }
            let mut warnings: BTreeMap<String, usize> = BTreeMap::new();
            for l in log.lines().filter(|l| l.contains("WARNING")) {
                // By kind: the words before the first name or number.
                let kind: String = l
                    .split_whitespace()
                    .take_while(|w| !w.contains('/') && !w.chars().any(|c| c.is_ascii_digit()))
                    .collect::<Vec<_>>()
                    .join(" ");
                *warnings.entry(kind).or_default() += 1;
            }
            let bytes = std::fs::read(map.with_extension("bsp")).unwrap();
            let re = Bsp::from_bytes(&bytes).unwrap_or_else(|e| panic!("{file} generation {g}: {e}"));
            assert_eq!(re.branch().id, "quake3", "{file}: q3map2 -game quake3 writes IBSP 46");
            let d = decompile(&re, &DecompileOptions::default()).unwrap();
            let q = d.report.quality.clone().unwrap();
            assert_eq!(q.brushes_same, q.brushes, "{file} generation {g}: the recompile decompiles faithfully");
            texts.push(d.text.clone());
            let f = figures(&re, &format!("{file} generation {g}"));
            drop(re);
            gens.push((bytes, f, ms, warnings));
        }
        // The first generation lit and vis'd too (`-vis -fast`, `-light -fast`): the light grid
        // has the original's cells where the original has one (they follow the world bounds),
        // and the map has clusters and lightmaps.
        let lit = dir.path.join(format!("{stem}.lit.bsp"));
        std::fs::write(&lit, &gens[0].0).unwrap();
        // The BSP stage's portal file (for vis), surface file and `.map` (light reads both) go
        // with it.
        for ext in ["prt", "srf", "map"] {
            std::fs::copy(dir.path.join(format!("{stem}.g1.{ext}")), lit.with_extension(ext)).unwrap();
        }
        for args in [&["-vis", "-fast"][..], &["-light", "-fast"][..]] {
            stage(&q3map2, Some(&base), args, &lit).unwrap_or_else(|e| panic!("{file} {args:?}: {e}"));
        }
        let lit_bytes = std::fs::read(&lit).unwrap();
        // (light grid cells, clusters, lightmap pages)
        let counts = |b: &Bsp| {
            let v = quake3::View::<quake3::Ibsp>::new(b).unwrap();
            (v.light_grid().unwrap().len(), v.visibility().unwrap().n_vecs, v.lightmaps().unwrap().len())
        };
        let (before, after) = (counts(&bsp), counts(&Bsp::from_bytes(&lit_bytes).unwrap()));
        eprintln!("    lit and vis'd: light grid cells, clusters, lightmap pages {before:?} -> {after:?}");
        if before.0 > 0 {
            assert_eq!(after.0, before.0, "{file}: light grid cells");
        }
        assert!(after.1 > 0 && after.2 > 0, "{file}: clusters and lightmaps {after:?}");
        if before.1 > 0 {
            // Clusters follow the BSP tree, which follows the order of the brushes (README).
            assert!(after.1.abs_diff(before.1) <= 1, "{file}: clusters {} -> {}", before.1, after.1);
        }

        let a = figures(&bsp, &file);
        let b = &gens[0].1;
        let (brushes, back, textured) = same_brushes(&texts[0], &texts[1]);
        let shader_flags_same = a.shaders.iter().filter(|x| b.shaders.contains(x)).count();
        let pairs = |f: &Figures| f.entities.iter().map(|e| e.len()).sum::<usize>();
        let pairs_same = a.entities.iter().zip(&b.entities).map(|(x, y)| x.iter().zip(y).filter(|(p, q)| p == q).count()).sum::<usize>();
        eprintln!(
            "{file}: models {} -> {}, shaders {} -> {} ({} with the same flags), brushes {} -> {}, brush sides {} -> {}, \
             surfaces (planar, patch, soup, flare) {:?} -> {:?}, triangles {} -> {}, entities {} -> {} (pairs {} -> {}, {} the same), \
             world bounds {:?} -> {:?}, models' bounds off by at most {:.6}; decompiled again: {back}/{brushes} brushes with the same \
             plane set, {textured} with every side's texture; q3map2 {:.0} ms, warnings {:?}; second generation the same: {}",
            a.model_bounds.len(),
            b.model_bounds.len(),
            a.shaders.len(),
            b.shaders.len(),
            shader_flags_same,
            a.brushes,
            b.brushes,
            a.brush_sides,
            b.brush_sides,
            a.surfaces,
            b.surfaces,
            a.triangles,
            b.triangles,
            a.entities.len(),
            b.entities.len(),
            pairs(&a),
            pairs(b),
            pairs_same,
            a.model_bounds[0],
            b.model_bounds[0],
            a.model_bounds
                .iter()
                .zip(&b.model_bounds)
                .flat_map(|(x, y)| (0..3).flat_map(move |k| [(x.0[k] - y.0[k]).abs(), (x.1[k] - y.1[k]).abs()]))
                .fold(0.0f32, f32::max),
            gens[0].2,
            gens[0].3,
            gens[1].1 == gens[0].1,
        );
        for x in a.shaders.iter().filter(|x| !b.shaders.contains(x)) {
            eprintln!("    shader {x:?} -> {:?}", b.shaders.iter().find(|y| y.0 == x.0));
        }
        assert_eq!(b.model_bounds.len(), a.model_bounds.len(), "{file}: models");
        // Within 10⁻³ unit: a rotated crate's corner (test_smash model 3) comes back 934.7472
        // for 934.74725, the same f32 rounded once more through the decompiled planes.
        let off = a
            .model_bounds
            .iter()
            .zip(&b.model_bounds)
            .flat_map(|(x, y)| (0..3).flat_map(move |k| [(x.0[k] - y.0[k]).abs(), (x.1[k] - y.1[k]).abs()]))
            .fold(0.0f32, f32::max);
        assert!(off <= 1e-3, "{file}: every model's bounds (off by {off})");
        assert_eq!(
            b.shaders.iter().map(|s| &s.0).collect::<Vec<_>>(),
            a.shaders.iter().map(|s| &s.0).collect::<Vec<_>>(),
            "{file}: shader names"
        );
        assert_eq!((b.brushes, b.brush_sides), (a.brushes, a.brush_sides), "{file}: brushes and brush sides");
        assert_eq!(b.entities, a.entities, "{file}: every entity and pair, in order");
        let (g2, g2_back, _) = same_brushes(&texts[1], &texts[2]);
        eprintln!("    second generation: {g2_back}/{g2} brushes with the same plane set; figures {:?}", gens[1].1 == gens[0].1);
        assert_eq!(
            (back, textured),
            (brushes - brushes_changed(&file), brushes - brushes_changed(&file)),
            "{file}: every brush decompiles again with its planes and textures"
        );
        // Draw surfaces and triangles: the same as the original's, or where the mapper's source
        // is beside the map, the same as that source compiled by this q3map2 (the originals'
        // compilers split a few surfaces differently: README).
        let source = m.path.with_extension("map");
        let (want, against) = if source.is_file() {
            let src = dir.path.join(format!("{stem}.source.map"));
            std::fs::copy(&source, &src).unwrap();
            compile(&q3map2, Some(&base), &src).unwrap_or_else(|e| panic!("{file}: the source: {e}"));
            let s = figures(&Bsp::open(src.with_extension("bsp")).unwrap(), &format!("{file} source"));
            eprintln!(
                "    the source compiled: surfaces {:?}, triangles {}, brushes {}, brush sides {}",
                s.surfaces, s.triangles, s.brushes, s.brush_sides
            );
            assert_eq!((s.brushes, s.brush_sides), (b.brushes, b.brush_sides), "{file}: the source's brushes");
            ((s.surfaces, s.triangles), "the source compiled")
        } else {
            ((a.surfaces, a.triangles), "the original")
        };
        assert_eq!((b.surfaces, b.triangles), want, "{file}: surfaces and triangles as {against}");
        if brushes_changed(&file) == 0 {
            assert_eq!(gens[1].1, gens[0].1, "{file}: the second generation compiles to the same figures");
        }
        if let Some(server) = &server {
            let maps = gens.iter().map(|g| &g.0).chain([&lit_bytes]);
            for (g, bytes) in maps.enumerate() {
                let name = if g < 2 { format!("bspkit_recompile{n}_g{}", g + 1) } else { format!("bspkit_recompile{n}_lit") };
                std::fs::write(home.path().join(format!("baseoa/maps/{name}.bsp")), bytes).unwrap();
                let log = engine_quake3::run(server, home.path(), &name);
                assert!(engine_quake3::loaded(&log, &name), "{file} {name}: not loaded:\n{log}");
                assert!(!log.contains("Couldn't load"), "{file}: {log}");
                loaded += 1;
            }
        }
        done += 1;
    }
    assert_eq!(done, 6, "the six IBSP 46 / 47 corpus maps");
    match server {
        Some(_) => eprintln!("{test}: {loaded} recompiled maps (two generations of {done}, and the first lit) loaded in openarena-server"),
        None => eprintln!("note: {test}: openarena-server is not installed; the recompiled maps were not loaded"),
    }
}

/// The control: compiled without the game's shader scripts, q3map2 draws caulk and other tool
/// shaders, so the same decompiled `.map` gives more draw surfaces than the original has. The
/// figures above are only equal because the shaders are read.
#[test]
fn without_the_common_shaders_q3map2_draws_caulk() {
    let test = "decompile_recompile_q3::without_the_common_shaders_q3map2_draws_caulk";
    let Some(corpus) = common::corpus(test) else { return };
    let Some(q3map2) = q3map2() else {
        eprintln!("note: {test} skipped: BSPKIT_Q3MAP2 does not name a q3map2");
        return;
    };
    let dir = common::TempDir { path: std::env::temp_dir().join(format!("bspkit-recompile-q3-bare-{}", std::process::id())), keep: false };
    std::fs::create_dir_all(&dir.path).unwrap();
    let path = corpus.join("quake3/bspconvert__test-push-horizontal.bsp");
    let bsp = Bsp::open(&path).unwrap();
    let map = dir.path.join("push.map");
    std::fs::write(&map, decompile(&bsp, &DecompileOptions { measure: false, ..Default::default() }).unwrap().text).unwrap();
    compile(&q3map2, None, &map).unwrap();
    let re = Bsp::open(map.with_extension("bsp")).unwrap();
    let (a, b) = (figures(&bsp, "original"), figures(&re, "recompiled without shaders"));
    eprintln!("{test}: surfaces {:?} -> {:?}, triangles {} -> {}", a.surfaces, b.surfaces, a.triangles, b.triangles);
    assert!(b.surfaces[0] > a.surfaces[0], "{:?} -> {:?}", a.surfaces, b.surfaces);
    // The brushes are the same either way.
    assert_eq!((b.brushes, b.brush_sides), (a.brushes, a.brush_sides));
}
