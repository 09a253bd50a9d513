//! `bsp view MAP...`: a local web viewer. A small HTTP/1.1 server on 127.0.0.1 serves a page
//! (HTML, CSS and a three.js bundle, all embedded in the binary; built from `viewer/` in the
//! repository) and, per map, the documents [`bspkit::view::map_view`] builds in memory: the GLB
//! and JSON for the summary, entities, `bsp info`'s data and `bsp check`'s problems.
//!
//! The server is written on `std::net` with a thread per connection rather than taken from a
//! crate: it answers a dozen fixed `GET` routes on loopback for one user, so what an HTTP crate
//! adds (keep-alive, chunking, TLS, routing) is unused here, and these ~200 lines are simpler
//! to audit for what matters: no path the client names is ever read from disk (the routes are
//! a fixed table; map documents are addressed by their number on the command line), there is no
//! directory listing, every route sits under a random token (128 bits from the OS), and a
//! request without it gets 404. A connection's errors are logged to stderr and end only that
//! connection; Ctrl-C ends the process.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bspkit::view::{export_options, failed_view, map_view, MapView};
use clap::Args;

use crate::cmd_textures::TextureSearchArgs;
use crate::{Fatal, OpenArgs};

#[derive(Args)]
#[command(after_help = "Examples:
  bsp view e1m1.bsp                       prints http://127.0.0.1:PORT/TOKEN/ ; Ctrl-C stops
  bsp view a.bsp b.bsp --open             several maps (a list in the page), opens the browser
  bsp view c1a0.bsp --wad ~/hl/valve/ --port 8080

The server listens on 127.0.0.1 only; every page and document is under the random token in
the printed URL. It serves the page and the maps given, nothing else.")]
pub struct ViewArgs {
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Port to listen on (default: a free one)
    #[arg(long, value_name = "N")]
    port: Option<u16>,
    /// Open the page in the default browser (xdg-open / open / start)
    #[arg(long)]
    open: bool,
    #[command(flatten)]
    search: TextureSearchArgs,
    /// Most vertices a map's geometry may have, all models together
    #[arg(long, value_name = "N", default_value_t = bspkit::mesh::DEFAULT_MAX_SCENE_VERTICES)]
    max_scene_vertices: u64,
    /// Most triangles a map's geometry may have, all models together
    #[arg(long, value_name = "N", default_value_t = bspkit::mesh::DEFAULT_MAX_SCENE_TRIANGLES)]
    max_scene_triangles: u64,
    /// Most lightmap atlas pixels of a map, every page, style and layer together
    #[arg(long, value_name = "N", default_value_t = bspkit::lumps::lighting::DEFAULT_MAX_ATLAS_PIXELS)]
    max_atlas_pixels: u64,
    #[command(flatten)]
    open_args: OpenArgs,
}

// The page, built by `viewer/` (`npm run build`), committed so that `cargo build` needs no node.
const INDEX_HTML: &[u8] = include_bytes!("../viewer/index.html");
const VIEWER_CSS: &[u8] = include_bytes!("../viewer/viewer.css");
const VIEWER_JS: &[u8] = include_bytes!("../viewer/viewer.js");
const THREE_LICENSE: &[u8] = include_bytes!("../viewer/three-LICENSE.txt");

/// Most connections served at once; more get 503 (a browser opens about six).
const MAX_CONNECTIONS: usize = 64;
/// Longest request head read (request line and headers).
const MAX_HEAD: usize = 16 << 10;

struct Map {
    path: PathBuf,
    view: OnceLock<Arc<MapView>>,
}

struct State {
    token: String,
    /// `127.0.0.1:PORT` and `localhost:PORT`: the only Host headers answered (a page of
    /// another site that rebinds its name to 127.0.0.1 sends its own name).
    hosts: [String; 2],
    maps: Vec<Map>,
    args: ViewArgs,
    active: AtomicUsize,
}

impl State {
    /// The map's documents, built on first use (a second request waits for the first).
    fn view(&self, i: usize) -> Option<Arc<MapView>> {
        let m = self.maps.get(i)?;
        Some(
            m.view
                .get_or_init(|| {
                    let name = m.path.display().to_string();
                    let started = std::time::Instant::now();
                    let v = match crate::open(&m.path, &self.args.open_args) {
                        Ok(bsp) => {
                            let mut opts = export_options(Some(self.args.search.options()));
                            let a = &self.args;
                            opts.limits =
                                bspkit::mesh::SceneLimits { max_vertices: a.max_scene_vertices, max_triangles: a.max_scene_triangles };
                            opts.max_atlas_pixels = a.max_atlas_pixels;
                            map_view(&bsp, &name, &opts)
                        }
                        Err(Fatal(e)) => failed_view(&name, &e),
                    };
                    match &v.glb {
                        Ok(g) => eprintln!("bsp: view: {name}: GLB of {} bytes in {:.2} s", g.len(), started.elapsed().as_secs_f64()),
                        Err(e) => eprintln!("bsp: view: {name}: {e}"),
                    }
                    Arc::new(v)
                })
                .clone(),
        )
    }
}

/// A random token: 16 bytes from the operating system, as hex.
fn token() -> Result<String, Fatal> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| Fatal(format!("view: no random numbers from the system: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

pub fn run(args: ViewArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    for f in &args.files {
        // Fail early on a name that is not there; a map that does not read still gets its page.
        if !f.exists() && bspkit::scan::split_entry_path(f).is_none() {
            return Err(Fatal(format!("{}: no such file", f.display())));
        }
    }
    let listener = TcpListener::bind(("127.0.0.1", args.port.unwrap_or(0)))
        .map_err(|e| Fatal(format!("view: cannot listen on 127.0.0.1:{}: {e}", args.port.unwrap_or(0))))?;
    let port = listener.local_addr()?.port();
    let token = token()?;
    let url = format!("http://127.0.0.1:{port}/{token}/");
    writeln!(out, "{url}")?;
    out.flush()?;
    eprintln!("bsp: view: serving {} map(s) on {url} (Ctrl-C stops)", args.files.len());
    if args.open {
        open_browser(&url);
    }
    let maps = args.files.iter().map(|p| Map { path: p.clone(), view: OnceLock::new() }).collect();
    let hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    let state = Arc::new(State { token, hosts, maps, args, active: AtomicUsize::new(0) });
    // Every map's documents are built now, in order, while the browser starts: the page's
    // first request then finds them ready (or waits for the build under way, not a second one).
    let prefetch = Arc::clone(&state);
    let spawned = std::thread::Builder::new().name("bsp-view-prefetch".into()).spawn(move || {
        for i in 0..prefetch.maps.len() {
            prefetch.view(i);
        }
    });
    if let Err(e) = spawned {
        eprintln!("bsp: view: maps are built on first request (no thread to build them ahead: {e})");
    }
    for conn in listener.incoming() {
        let stream = match conn {
            Ok(s) => s,
            Err(e) => {
                eprintln!("bsp: view: accept: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let state = Arc::clone(&state);
        if state.active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            state.active.fetch_sub(1, Ordering::SeqCst);
            let mut s = stream;
            let _ = respond(&mut s, 503, "text/plain", b"busy\n", false);
            continue;
        }
        let spawned = std::thread::Builder::new().name("bsp-view".into()).spawn({
            let state = Arc::clone(&state);
            move || {
                let peer = stream.peer_addr().map(|a| a.to_string()).unwrap_or_else(|_| "?".into());
                if let Err(e) = serve(&state, stream) {
                    eprintln!("bsp: view: {peer}: {e}");
                }
                state.active.fetch_sub(1, Ordering::SeqCst);
            }
        });
        if let Err(e) = spawned {
            state.active.fetch_sub(1, Ordering::SeqCst);
            eprintln!("bsp: view: no thread for a connection: {e}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn open_browser(url: &str) {
    let cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open").arg(url).spawn()
    } else if cfg!(windows) {
        std::process::Command::new("cmd").args(["/C", "start", "", url]).spawn()
    } else {
        std::process::Command::new("xdg-open").arg(url).spawn()
    };
    if let Err(e) = cmd {
        eprintln!("bsp: warning: view: could not open a browser ({e}); open the URL above yourself");
    }
}

/// What a request asks for, after the token.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    Index,
    Css,
    Js,
    License,
    Maps,
    Glb(usize),
    Doc(usize, Doc),
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Doc {
    Summary,
    Entities,
    Info,
    Check,
    Vis,
}

/// The route of a request path (query string removed), or `None` (404). Only exact names of
/// the fixed table match; a map is named by its number.
fn route(path: &str, token: &str) -> Option<Route> {
    let rest = path.strip_prefix('/')?.strip_prefix(token)?.strip_prefix('/')?;
    Some(match rest {
        "" | "index.html" => Route::Index,
        "viewer.css" => Route::Css,
        "viewer.js" => Route::Js,
        "three-LICENSE.txt" => Route::License,
        "api/maps.json" => Route::Maps,
        _ => {
            let (n, doc) = rest.strip_prefix("api/map/")?.split_once('/')?;
            // Digits only (no sign, no spaces), at most 6 of them.
            if n.is_empty() || n.len() > 6 || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let i: usize = n.parse().ok()?;
            match doc {
                "map.glb" => Route::Glb(i),
                "summary.json" => Route::Doc(i, Doc::Summary),
                "entities.json" => Route::Doc(i, Doc::Entities),
                "info.json" => Route::Doc(i, Doc::Info),
                "check.json" => Route::Doc(i, Doc::Check),
                "vis.json" => Route::Doc(i, Doc::Vis),
                _ => return None,
            }
        }
    })
}

/// Constant-time comparison: how much of the token matched is not told by the answer's timing.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serve one connection: one request, then close.
fn serve(state: &State, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    stream.set_write_timeout(Some(Duration::from_secs(60)))?;
    let mut reader = BufReader::new(stream.try_clone()?).take(MAX_HEAD as u64);
    let mut stream = stream;
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(()); // closed without a request
    }
    let mut host = None;
    loop {
        let mut h = String::new();
        let n = reader.read_line(&mut h)?;
        if n == 0 || !h.ends_with('\n') {
            return respond(&mut stream, 400, "text/plain", b"bad request\n", false)
                .and(Err(std::io::Error::other("truncated request head")));
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.trim().eq_ignore_ascii_case("host") {
                host = Some(v.trim().to_string());
            }
        }
    }
    let mut parts = line.trim_end().split(' ');
    let (method, target, version) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if !version.starts_with("HTTP/1.") || parts.next().is_some() {
        respond(&mut stream, 400, "text/plain", b"bad request\n", false)?;
        return Err(std::io::Error::other("not an HTTP/1.x request line"));
    }
    let head = method == "HEAD";
    if method != "GET" && !head {
        return respond(&mut stream, 405, "text/plain", b"only GET\n", false);
    }
    if !host.as_deref().is_some_and(|h| state.hosts.iter().any(|ok| ok.eq_ignore_ascii_case(h))) {
        return respond(&mut stream, 403, "text/plain", b"wrong Host\n", head);
    }
    let path = target.split(['?', '#']).next().unwrap_or("");
    // The token is compared in constant time before the rest of the path is looked at.
    let tok = path.get(1..1 + state.token.len()).unwrap_or("");
    if !same(tok.as_bytes(), state.token.as_bytes()) {
        return respond(&mut stream, 404, "text/plain", b"not found\n", head);
    }
    let Some(r) = route(path, &state.token) else {
        return respond(&mut stream, 404, "text/plain", b"not found\n", head);
    };
    match r {
        Route::Index => respond(&mut stream, 200, "text/html; charset=utf-8", INDEX_HTML, head),
        Route::Css => respond(&mut stream, 200, "text/css; charset=utf-8", VIEWER_CSS, head),
        Route::Js => respond(&mut stream, 200, "text/javascript; charset=utf-8", VIEWER_JS, head),
        Route::License => respond(&mut stream, 200, "text/plain; charset=utf-8", THREE_LICENSE, head),
        Route::Maps => {
            let list: Vec<_> =
                state.maps.iter().enumerate().map(|(i, m)| serde_json::json!({"index": i, "name": m.path.display().to_string()})).collect();
            let body = serde_json::to_vec(&list).map_err(std::io::Error::other)?;
            respond(&mut stream, 200, "application/json", &body, head)
        }
        Route::Glb(i) => match state.view(i) {
            None => respond(&mut stream, 404, "text/plain", b"not found\n", head),
            Some(v) => match &v.glb {
                Ok(glb) => respond(&mut stream, 200, "model/gltf-binary", glb, head),
                Err(e) => respond(&mut stream, 422, "text/plain; charset=utf-8", format!("{e}\n").as_bytes(), head),
            },
        },
        Route::Doc(i, d) => match state.view(i) {
            None => respond(&mut stream, 404, "text/plain", b"not found\n", head),
            Some(v) => {
                let body = match d {
                    Doc::Summary => &v.summary,
                    Doc::Entities => &v.entities,
                    Doc::Info => &v.info,
                    Doc::Check => &v.check,
                    Doc::Vis => &v.vis,
                };
                respond(&mut stream, 200, "application/json", body, head)
            }
        },
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        422 => "Unprocessable Content",
        503 => "Service Unavailable",
        _ => "",
    }
}

fn respond(stream: &mut TcpStream, status: u16, kind: &str, body: &[u8], head_only: bool) -> std::io::Result<()> {
    // The page loads only from this server; blob: is how three.js hands embedded images over.
    let headers = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n\
         Content-Security-Policy: default-src 'self'; img-src 'self' blob: data:; connect-src 'self' blob: data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'\r\n\r\n",
        reason(status),
        body.len()
    );
    stream.write_all(headers.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
    }
    stream.flush()?;
    // Let the client read the answer before the socket closes (a close with unread request
    // bytes would reset the connection).
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_fixed_routes_match() {
        let t = "abc";
        assert_eq!(route("/abc/", t), Some(Route::Index));
        assert_eq!(route("/abc/viewer.js", t), Some(Route::Js));
        assert_eq!(route("/abc/api/maps.json", t), Some(Route::Maps));
        assert_eq!(route("/abc/api/map/0/map.glb", t), Some(Route::Glb(0)));
        assert_eq!(route("/abc/api/map/12/check.json", t), Some(Route::Doc(12, Doc::Check)));
        for p in [
            "/",
            "/abc",
            "/abd/",
            "/abc/../abc/",
            "/abc/api/map/-1/map.glb",
            "/abc/api/map/+1/map.glb",
            "/abc/api/map/1/../../../etc/passwd",
            "/abc/api/map/99999999999999999999/map.glb",
            "/abc/api/map//map.glb",
            "/abc/viewer.js/",
            "/abc//viewer.js",
            "/abc/%2e%2e/",
            "/abc/Cargo.toml",
        ] {
            assert_eq!(route(p, t), None, "{p}");
        }
    }

    #[test]
    fn tokens_are_long_and_differ() {
        let (a, b) = (token().ok().unwrap(), token().ok().unwrap());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(same(a.as_bytes(), a.as_bytes()) && !same(a.as_bytes(), b.as_bytes()) && !same(b"ab", b"abc"));
    }
}
