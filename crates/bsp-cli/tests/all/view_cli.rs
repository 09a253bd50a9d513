//! `bsp view`: the server answers its fixed routes with the library's documents, survives
//! garbage requests and path-traversal attempts without serving anything else, shows a map
//! that cannot be exported with its error; the committed bundle is what `viewer/`'s locked
//! build makes. The page in headless Chromium: `browser_view`, which uses this module's server.
//!
//! The bundle test needs node and `viewer/node_modules` (`scripts/test.sh` runs `npm ci`
//! there); without them it skips with a note.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

const BSP: &str = env!("CARGO_BIN_EXE_bsp");

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> crate::cli::Scratch {
    crate::cli::scratch(&format!("view-{name}"))
}

/// A running `bsp view`, stopped (by its own pid) when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) url: String,
    /// `127.0.0.1:PORT`.
    addr: String,
    token: String,
}

impl Server {
    pub(crate) fn start(maps: &[PathBuf]) -> Server {
        let mut child =
            Command::new(BSP).arg("view").args(maps).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("bsp view starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().to_string();
        let rest = url.strip_prefix("http://").unwrap_or_else(|| panic!("bsp view printed {url:?}"));
        let (addr, path) = rest.split_once('/').unwrap();
        assert!(addr.starts_with("127.0.0.1:"), "{url}");
        let (addr, token) = (addr.to_string(), path.trim_end_matches('/').to_string());
        assert_eq!(token.len(), 32, "{url}");
        Server { child, url, addr, token }
    }

    /// Send `raw` bytes as one request; the status code (0 when no status line came back) and
    /// the body.
    fn raw(&self, raw: &[u8]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).expect("server accepts");
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let _ = s.write_all(raw);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut resp = Vec::new();
        let _ = s.read_to_end(&mut resp);
        let head_end = resp.windows(4).position(|w| w == b"\r\n\r\n").map_or(resp.len(), |p| p + 4);
        let status = std::str::from_utf8(&resp[..head_end.min(resp.len())])
            .ok()
            .and_then(|h| h.split(' ').nth(1))
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        (status, resp[head_end..].to_vec())
    }

    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        self.raw(format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", self.addr).as_bytes())
    }

    /// GET a route under the token.
    fn route(&self, route: &str) -> (u16, Vec<u8>) {
        self.get(&format!("/{}/{route}", self.token))
    }

    fn json(&self, route: &str) -> Value {
        let (status, body) = self.route(route);
        assert_eq!(status, 200, "{route}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{route}: {e}"))
    }

    /// Stop the server as Ctrl-C does (SIGINT; elsewhere killed) and check that it ends; what
    /// it wrote on stderr.
    pub(crate) fn stop(mut self) -> String {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            let sent = Command::new("kill").arg("-INT").arg(self.child.id().to_string()).status();
            if sent.is_ok_and(|s| s.success()) {
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                let status = loop {
                    if let Some(s) = self.child.try_wait().unwrap() {
                        break Some(s);
                    }
                    if std::time::Instant::now() > deadline {
                        break None;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                };
                let status = status.expect("bsp view ends on SIGINT");
                assert_eq!(status.signal(), Some(2), "bsp view ends by SIGINT: {status:?}");
            }
        }
        let _ = self.child.kill();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        let _ = self.child.wait();
        err
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn entity_count(map: &Path) -> usize {
    let bsp = bspkit::Bsp::open(map).unwrap();
    bsp.entities().map(|e| e.len()).unwrap_or(0)
}

#[test]
fn view_serves_its_routes_survives_garbage_and_nothing_else() {
    let dir = tmp("routes");
    let sample = dir.join("sample.bsp");
    std::fs::write(&sample, bspkit::build::sample_quake1()).unwrap();
    // A map that cannot be read: its page still opens, with the error.
    let broken = dir.join("broken.bsp");
    std::fs::write(&broken, b"IBSP\x26\0\0\0 not a map at all").unwrap();
    // A file beside the maps that must never be served, whatever the path says.
    let marker = "bspkit-view-secret-7f3c9a";
    std::fs::write(dir.join("secret.txt"), marker).unwrap();
    let server = Server::start(&[sample.clone(), broken.clone()]);
    let never_served = |what: &str, body: &[u8]| {
        let text = String::from_utf8_lossy(body);
        assert!(!text.contains(marker) && !text.contains("root:x:0:0") && !text.contains("[workspace]"), "{what} served a file: {text}");
    };

    // The page and its assets, as embedded.
    let (status, page) = server.route("");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&page).contains("viewer.js"));
    let (status, js) = server.route("viewer.js");
    assert_eq!((status, js.len()), (200, include_bytes!("../../viewer/viewer.js").len()));
    assert_eq!(server.route("three-LICENSE.txt").0, 200);
    let maps = server.json("api/maps.json");
    assert_eq!(maps.as_array().unwrap().len(), 2);

    // Map 0: the library's documents.
    let (status, glb) = server.route("api/map/0/map.glb");
    assert_eq!(status, 200);
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
    let ents = server.json("api/map/0/entities.json");
    assert_eq!(ents["count"].as_u64().unwrap() as usize, entity_count(&sample));
    let info = server.json("api/map/0/info.json");
    assert_eq!(info["lumps"].as_array().unwrap().len(), bspkit::Bsp::open(&sample).unwrap().lumps().len());
    let check = server.json("api/map/0/check.json");
    assert!(check["problems"].is_array() && check["counts"]["errors"].is_u64());
    assert_eq!(server.json("api/map/0/summary.json")["family"], "quake");

    // Map 1 does not read: every document says why, the GLB route answers 422 with the error.
    let summary = server.json("api/map/1/summary.json");
    let err = summary["error"].as_str().expect("error in the summary");
    assert!(err.contains("broken.bsp"), "{err}");
    let (status, body) = server.route("api/map/1/map.glb");
    assert_eq!(status, 422);
    assert!(String::from_utf8_lossy(&body).contains("broken.bsp"));
    assert!(server.json("api/map/1/entities.json")["error"].is_string());

    // Paths outside the fixed routes: 404 (or 400), nothing served.
    let t = server.token.clone();
    for path in [
        "/".to_string(),
        "/index.html".into(),
        "/viewer.js".into(),
        format!("/{}/", &t[..31]),
        format!("/{t}x/"),
        format!("/{t}"),
        format!("/{t}/../secret.txt"),
        format!("/{t}/%2e%2e/secret.txt"),
        format!("/{t}/..%2fsecret.txt"),
        format!("/{t}/secret.txt"),
        format!("/{t}/sample.bsp"),
        format!("/{t}/api/map/2/map.glb"),
        format!("/{t}/api/map/-1/map.glb"),
        format!("/{t}/api/map/0/../../../../../../etc/passwd"),
        format!("/{t}/api/map/0/secret.txt"),
        format!("/{t}/api/map/99999999999999999999999/map.glb"),
        format!("/{t}/api/"),
        format!("/{t}/api/map/"),
        format!("/{t}/{}", dir.join("secret.txt").display()),
        format!("/{t}//etc/passwd"),
        format!("/{t}/viewer.js/../../Cargo.toml"),
        "/etc/passwd".into(),
        format!("http://{}/{t}/../secret.txt", server.addr),
        "*".into(),
    ] {
        let (status, body) = server.get(&path);
        assert!(status == 404 || status == 400, "{path}: {status}");
        never_served(&path, &body);
    }

    // Garbage: the connection gets an error or is closed; the server goes on.
    let long_header = format!("GET /{t}/ HTTP/1.1\r\nHost: {}\r\nX: {}\r\n\r\n", server.addr, "a".repeat(64 << 10));
    let garbage: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\r\n\r\n".to_vec(),
        b"GET\r\n\r\n".to_vec(),
        b"GET / HTTP/1.1".to_vec(),
        b"\x00\x01\x02\xff\xfe garbage \xc3\x28\r\n\r\n".to_vec(),
        (0..=255u8).cycle().take(100_000).collect(),
        format!("POST /{t}/ HTTP/1.1\r\nHost: {}\r\nContent-Length: 5\r\n\r\nhello", server.addr).into_bytes(),
        format!("GET /{t}/ HTTP/1.1\r\nHost: evil.example\r\n\r\n").into_bytes(),
        format!("GET /{t}/ HTTP/1.1\r\n\r\n").into_bytes(),
        format!("GET /{t}/ SPDY/3\r\nHost: {}\r\n\r\n", server.addr).into_bytes(),
        format!("GET /{t}/ HTTP/1.1 extra\r\nHost: {}\r\n\r\n", server.addr).into_bytes(),
        long_header.into_bytes(),
    ];
    // Idle connections that never send anything do not hold the others up.
    let idle: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(&server.addr).unwrap()).collect();
    for g in &garbage {
        let (status, body) = server.raw(g);
        assert_ne!(status, 200, "{:?} was answered 200", String::from_utf8_lossy(&g[..g.len().min(80)]));
        never_served("garbage", &body);
        assert_eq!(server.route("").0, 200, "the server stopped answering after {:?}", String::from_utf8_lossy(&g[..g.len().min(80)]));
    }
    drop(idle);
    // HEAD: the headers only.
    let (status, body) = server.raw(format!("HEAD /{t}/viewer.js HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes());
    assert_eq!((status, body.len()), (200, 0));
    assert_eq!(server.route("api/map/0/entities.json").0, 200);
    let stderr = server.stop();
    assert!(stderr.contains("bsp: view:"), "per-connection errors are logged: {stderr}");
}

/// A program on PATH (or at this path).
pub(crate) fn program(name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|f| f.is_file())
}

/// node and `viewer/node_modules`, or `None` with a note (a failure with BSPKIT_REQUIRE_ORACLES=1).
pub(crate) fn viewer_tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    let required = std::env::var("BSPKIT_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
    let viewer = root().join("viewer");
    let node = program("node");
    let why = match &node {
        None => "node is not on PATH",
        Some(_) if !viewer.join("node_modules/three").is_dir() => "viewer/node_modules is missing (run `npm ci` in viewer/)",
        Some(_) => "",
    };
    if !why.is_empty() {
        assert!(!required, "{test}: {why} (BSPKIT_REQUIRE_ORACLES=1)");
        eprintln!("note: {test} skipped: {why}");
        return None;
    }
    Some((node.unwrap(), viewer))
}

/// `node build.mjs OUT` makes the committed page byte for byte.
#[test]
fn viewer_bundle_is_reproducible() {
    let Some((node, viewer)) = viewer_tools("viewer_bundle_is_reproducible") else { return };
    let out = tmp("bundle");
    let o = Command::new(&node).arg("build.mjs").arg(&out).current_dir(&viewer).output().unwrap();
    assert!(o.status.success(), "build: {}", String::from_utf8_lossy(&o.stderr));
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer");
    for f in ["viewer.js", "index.html", "viewer.css", "three-LICENSE.txt"] {
        let (a, b) = (std::fs::read(out.join(f)).unwrap(), std::fs::read(committed.join(f)).unwrap());
        assert!(
            a == b,
            "{f}: the committed file differs from the build ({} vs {} bytes): run `npm run build` in viewer/",
            b.len(),
            a.len()
        );
    }
}
