//! Shared helpers for tests that read the real-map corpus named by `BSPKIT_CORPUS`, and small
//! builder-made fixtures ([`fixtures`]).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod mesh;

/// A fresh, empty temporary directory named after the test (`bspkit-NAME-PID`), removed when the
/// returned guard goes out of scope (the test's end, an early return) unless the test is failing:
/// a passing run leaves nothing in the temp dir, a failing one keeps its files to look at.
pub fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("bspkit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// A test's scratch folder (see [`scratch`]); derefs to its path.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The corpus directory, or `None` (with a note on stderr) when `BSPKIT_CORPUS` is unset or
/// names no directory: a fresh clone passes its tests without the corpus, saying what it skipped.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("BSPKIT_CORPUS") else {
        eprintln!("note: {test} skipped: set BSPKIT_CORPUS to the real-map corpus to run it");
        return None;
    };
    let found = corpus_dir(Path::new(&dir));
    if found.is_none() {
        eprintln!(
            "note: {test} skipped: BSPKIT_CORPUS={} is not a directory (relative paths are taken from the \
             current directory or the workspace root)",
            Path::new(&dir).display()
        );
    }
    found
}

/// Where `BSPKIT_CORPUS`'s value `dir` points: itself, or a relative path taken from the
/// workspace root (where `.ci/run` and users run cargo; cargo runs tests in the crate's folder).
pub fn corpus_dir(dir: &Path) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if dir.is_dir() {
        Some(dir.to_path_buf())
    } else if dir.is_relative() && root.join(dir).is_dir() {
        Some(root.join(dir))
    } else {
        None
    }
}

/// One corpus map with its manifest entry.
#[derive(Debug, Clone)]
pub struct CorpusMap {
    pub path: PathBuf,
    /// The manifest's family folder (`quake1`, `goldsrc`, `source_x360`, …).
    pub folder: String,
    pub magic: String,
}

/// Every map listed in `manifest.jsonl` (the file names are matched below the corpus).
pub fn maps(corpus: &Path) -> Vec<CorpusMap> {
    let text = std::fs::read_to_string(corpus.join("manifest.jsonl")).expect("manifest.jsonl");
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("manifest line is JSON");
        let folder = v["family"].as_str().unwrap().to_string();
        let file = v["file"].as_str().unwrap();
        let path = corpus.join(&folder).join(file);
        let path = if path.exists() {
            path
        } else {
            find(&corpus.join(&folder), Path::new(file).file_name().unwrap().to_str().unwrap()).unwrap_or(path)
        };
        out.push(CorpusMap { path, folder, magic: v["magic"].as_str().unwrap_or("").to_string() });
    }
    out
}

fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = find(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

/// Maps of one manifest folder.
pub fn maps_in(corpus: &Path, folder: &str) -> Vec<CorpusMap> {
    maps(corpus).into_iter().filter(|m| m.folder == folder).collect()
}

/// The ground-truth `<map>.info.txt` beside a map, if any.
/// `n` damaged copies of `data`, deterministic: every fourth cut short (to `(k + 1) / (n + 2)` of
/// its length), the others with `3k` bytes flipped by a linear congruential sequence seeded with
/// the length (one sequence over all copies).
pub fn garbled(data: &[u8], n: usize) -> Vec<Vec<u8>> {
    let mut seed = data.len() as u64;
    (0..n)
        .map(|k| {
            let mut d = data.to_vec();
            if k % 4 == 0 {
                d.truncate(d.len() * (k + 1) / (n + 2));
            } else {
                for _ in 0..(k * 3) {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let at = (seed >> 33) as usize % d.len();
                    d[at] ^= (seed >> 13) as u8 | 1;
                }
            }
            d
        })
        .collect()
}

pub fn info_txt(map: &Path) -> Option<String> {
    let mut p = map.as_os_str().to_owned();
    p.push(".info.txt");
    std::fs::read_to_string(PathBuf::from(p)).ok()
}

/// Pieces of maps for the checker's cases, written with the library's builder.
pub mod fixtures {
    use bspkit::branches::quake3;
    use bspkit::build::BspBuilder;

    /// An entity lump holding only worldspawn.
    pub const WORLD: &[u8] = b"{\n\"classname\" \"worldspawn\"\n}\n\0";

    pub fn i32s(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A Quake 3 shader record (name, surface flags, content flags).
    pub fn shader() -> Vec<u8> {
        let mut s = b"textures/x".to_vec();
        s.resize(64, 0);
        s.extend(i32s(&[0, 1]));
        s
    }

    /// A Quake 3 fog record.
    pub fn fog(brush: i32, side: i32) -> Vec<u8> {
        let mut f = b"textures/fog".to_vec();
        f.resize(64, 0);
        f.extend(i32s(&[brush, side]));
        f
    }

    /// A `dsurface_t` of `kind` (1 planar, 4 flare, …) with no vertices and no lightmap, using `fog`.
    pub fn surface(kind: i32, fog: i32) -> Vec<u8> {
        let mut s = i32s(&[0, fog, kind, 0, 0, 0, 0, -1, 0, 0, 0, 0]);
        s.resize(104, 0);
        s
    }

    /// A builder-made Dota 2 map of `version` (22 or 23): its one drawn face is a 128 × 128 quad on plane 0 (z = 0)
    /// built from displacement 0, and no brush has a side on it (vbsp leaves displacement brushes
    /// out of the brush lump and the tree, as on `dotatesting`). The dispinfo record is Dota 2's
    /// 184-byte v23 form, or for 22 the 180-byte v22 form (no int after `contents`); `start` is its
    /// start position, `map_face` its `MapFace`.
    pub fn dota_ground(start: [f32; 3], map_face: u16, version: u32) -> Vec<u8> {
        dota_ground_blended(start, map_face, version, &[])
    }

    /// [`dota_ground`] with `blend` as its lump 63 (Dota 2's per-vertex blend records, 80 bytes
    /// for each of the 25 displacement vertices; empty: no lump).
    pub fn dota_ground_blended(start: [f32; 3], map_face: u16, version: u32, blend: &[u8]) -> Vec<u8> {
        let f32s = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let i32s = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let u16s = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let mut planes = f32s(&[0.0, 0.0, 1.0, 0.0]);
        planes.extend(i32s(&[2]));
        // Clockwise seen from +z (the face's front).
        let verts = f32s(&[0.0, 0.0, 0.0, 0.0, 128.0, 0.0, 128.0, 128.0, 0.0, 128.0, 0.0, 0.0]);
        let edges = u16s(&[0, 1, 1, 2, 2, 3, 3, 0]);
        let surfedges = i32s(&[0, 1, 2, 3]);
        let mut texinfo = f32s(&[0.25, 0.0, 0.0, 0.0, 0.0, -0.25, 0.0, 0.0, 0.0625, 0.0, 0.0, 0.0, 0.0, -0.0625, 0.0, 0.0]);
        texinfo.extend(i32s(&[0, 0]));
        let mut texdata = f32s(&[0.5, 0.5, 0.5]);
        texdata.extend(i32s(&[0, 512, 512, 512, 512]));
        // dface_t (56 bytes): plane 0, first edge 0, 4 edges, texinfo 0, dispinfo 0.
        let mut face = u16s(&[0]);
        face.extend([0u8, 0]);
        face.extend(i32s(&[0]));
        face.extend(u16s(&[4, 0, 0, u16::MAX]));
        face.extend([255u8; 4]);
        face.extend(i32s(&[-1]));
        face.extend(f32s(&[128.0 * 128.0]));
        face.extend(i32s(&[0, 0, 0, 0, 0]));
        face.extend(u16s(&[0, 0]));
        face.extend(i32s(&[0]));
        assert_eq!(face.len(), 56);
        let mut model = f32s(&[0.0, 0.0, 0.0, 128.0, 128.0, 0.0, 0.0, 0.0, 0.0]);
        model.extend(i32s(&[0, 0, 1]));
        // Power 2: 25 vertices, 32 triangles.
        let mut disp = f32s(&start);
        disp.extend(i32s(&[0, 0, 2, 0, 0, 1, 0]));
        disp.extend(u16s(&[map_face, 0]));
        disp.extend(i32s(&[-1, 0, 0]));
        disp.extend([0xffu8, 0xff, 0, 0, 0, 0].repeat(8));
        disp.extend([0u8; 40]);
        disp.extend([0xffu8; 40]);
        assert_eq!(disp.len(), 184);
        if version == 22 {
            disp.drain(36..40);
        }
        let mut dverts = Vec::new();
        for k in 0..25 {
            dverts.extend(f32s(&[0.0, 0.0, 1.0, k as f32, (k * 10) as f32]));
        }
        let dtris = u16s(&[6; 32]);
        bspkit::build::BspBuilder::new(&bspkit::branches::source::DOTA2)
            .version(version)
            .lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
            .lump(1, planes)
            .lump(2, texdata)
            .lump(3, verts)
            .lump(6, texinfo)
            .lump_v(7, face, 1)
            .lump(12, edges)
            .lump(13, surfedges)
            .lump(14, model)
            .lump(26, disp)
            .lump(33, dverts)
            .lump(43, b"BLENDS/TEST\0".to_vec())
            .lump(44, i32s(&[0]))
            .lump(48, dtris)
            .lump(63, blend.to_vec())
            .build()
    }

    /// A Quake 3 map: worldspawn, one shader, these fogs and surfaces.
    pub fn q3(fogs: &[Vec<u8>], surfaces: &[Vec<u8>]) -> Vec<u8> {
        BspBuilder::new(&quake3::QUAKE3)
            .lump(quake3::LUMP_ENTITIES, WORLD)
            .lump(quake3::LUMP_SHADERS, shader())
            .lump(quake3::LUMP_FOGS, fogs.concat())
            .lump(quake3::LUMP_SURFACES, surfaces.concat())
            .build()
    }
}

/// Every `.rs` file of the crate's `tests/all/` is a module of its one test binary, and no test
/// file sits directly in `tests/` (cargo would build it as a binary of its own, linking
/// everything again).
pub fn every_test_file_is_a_module(manifest_dir: &str) {
    let tests = Path::new(manifest_dir).join("tests");
    let main = std::fs::read_to_string(tests.join("all/main.rs")).unwrap();
    let declared: Vec<&str> = main.lines().filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';')).collect();
    for entry in std::fs::read_dir(tests.join("all")).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && stem != "main" {
            assert!(declared.contains(&stem), "tests/all/{stem}.rs is not declared as `mod {stem};` in the crate's tests/all/main.rs");
        }
    }
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            !(path.is_file() && path.extension().is_some_and(|e| e == "rs")),
            "{}: move it into tests/all/ as a module (see main.rs)",
            path.display()
        );
    }
}

/// A Debian game server (`openarena-server`, `darkplaces-server`) on `PATH`, or in
/// `/usr/games`, where Debian installs it and which is not on every `PATH`.
#[allow(dead_code)]
pub fn game_server(name: &str) -> Option<PathBuf> {
    let on_path =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).map(|d| d.join(name)).find(|p| p.is_file())).unwrap_or_default();
    on_path.or_else(|| Some(Path::new("/usr/games").join(name)).filter(|p| p.is_file()))
}

/// The log (stdout then stderr) of a server started to load one map and quit: a server that
/// has not quit after 120 s is a failure of map `name`, not a stuck test.
#[allow(dead_code)]
pub fn log_within(mut child: std::process::Child, name: &str) -> String {
    use std::time::{Duration, Instant};
    let start = Instant::now();
    let out = loop {
        if child.try_wait().unwrap().is_some() {
            break child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(120) {
            child.kill().ok();
            let out = child.wait_with_output().unwrap();
            panic!("{name}: the server did not quit in 120 s:\n{}", String::from_utf8_lossy(&out.stdout));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The exit status and log (stdout then stderr, both read while it runs, so a chatty program
/// cannot fill a pipe) of a compiler `child` started with both piped; one that has not ended
/// after `secs` seconds is killed and is an error naming `what`, not a stuck test.
#[allow(dead_code)]
pub fn output_within(mut child: std::process::Child, secs: u64, what: &str) -> Result<(std::process::ExitStatus, String), String> {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            if let Some(mut r) = r {
                r.read_to_end(&mut s).ok();
            }
            s
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let start = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().ok();
            child.wait().ok();
            return Err(format!("{what} did not end in {secs} s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let text = |t: std::thread::JoinHandle<Vec<u8>>| String::from_utf8_lossy(&t.join().unwrap_or_default()).into_owned();
    Ok((status, text(out) + &text(err)))
}

/// A folder removed when the test ends (passed or not), unless `keep` (a folder the user asked
/// to keep the outputs in).
#[allow(dead_code)]
pub struct TempDir {
    pub path: PathBuf,
    pub keep: bool,
}
impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.keep {
            std::fs::remove_dir_all(&self.path).ok();
        }
    }
}

/// A default render of a corpus map, or its error.
pub type RenderResult = Result<bspkit::render::Rendered, String>;

/// Every corpus map that opens, rendered as `bsp render` does by default (iso view, 512 px), in
/// manifest order: `(file name, render or its error)`. Computed once per test process and shared
/// (the budget test reads the render work, the coverage test the pixels of the same pictures;
/// each used to render the whole corpus itself).
#[allow(dead_code)]
pub fn default_renders(corpus: &Path) -> &'static [(String, RenderResult)] {
    static RENDERS: std::sync::OnceLock<Vec<(String, RenderResult)>> = std::sync::OnceLock::new();
    RENDERS.get_or_init(|| {
        maps(corpus)
            .iter()
            .filter_map(|m| {
                let bsp = bspkit::Bsp::open(&m.path).ok()?;
                let name = m.path.file_name().unwrap().to_string_lossy().into_owned();
                Some((name, bspkit::render::render_map(&bsp, &Default::default()).map_err(|e| e.to_string())))
            })
            .collect()
    })
}

/// `f` over `items` on every core (results in `items`' order). For corpus tests whose maps are
/// independent cases: the longest tests no longer run alone on one core at the end of the test
/// binary's run. A panic in `f` fails the test, as in a plain loop.
#[allow(dead_code)]
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let mut out: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break mine };
                        mine.push((i, f(item)));
                    }
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// Run `cmd` (its standard streams as the caller set them) and return how it exited and its
/// peak resident memory in bytes: VmHWM of `/proc/PID/status`, polled every 2 ms until it exits
/// (the high-water mark only grows, so the last reading is the peak up to then; 0 without
/// `/proc`). Kills the child and panics once it has run for `limit`.
pub fn peak_rss_of(cmd: &mut std::process::Command, limit: std::time::Duration) -> (std::process::ExitStatus, u64) {
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let status = format!("/proc/{}/status", child.id());
    let mut high = 0u64;
    let start = std::time::Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            if let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
            {
                high = high.max(kib * 1024);
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            return (st, high);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} ran past {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// A builder-made Titanfall 2 set `<dir>/<name>.bsp` whose entity lump lives in
/// `<name>.bsp.0000.bsp_lump` (`external`; the `.bsp`'s own copy is `inside`), with an `env`
/// entity partition `<name>_env.ent` holding `env`. The set tests of both crates start from it.
pub fn respawn_external_set(dir: &Path, name: &str, inside: &[u8], external: &[u8], env: &[u8]) -> PathBuf {
    use bspkit::branches::respawn::{self, LUMP_ENTITIES, LUMP_ENTITY_PARTITIONS};
    std::fs::create_dir_all(dir).unwrap();
    let bytes = bspkit::build::BspBuilder::new(&respawn::TITANFALL2)
        .version(37)
        .lump(LUMP_ENTITIES, inside.to_vec())
        .lump(LUMP_ENTITY_PARTITIONS, b"01* env\0".to_vec())
        .build();
    let map = dir.join(format!("{name}.bsp"));
    std::fs::write(&map, bytes).unwrap();
    std::fs::write(dir.join(format!("{name}.bsp.0000.bsp_lump")), external).unwrap();
    std::fs::write(dir.join(format!("{name}_env.ent")), env).unwrap();
    map
}
