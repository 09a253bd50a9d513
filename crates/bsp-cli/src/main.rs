//! `bsp`: the bspkit command-line tool. A thin layer over the library: each subcommand opens
//! maps through `bspkit::Bsp` and prints what the library reports. Data goes to stdout,
//! messages to stderr. Exit codes: 0 success, 1 problems found (`check`), 2 error.
// Linux with glibc: the C `main` below starts the program (see there).
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use bspkit::{Bsp, OpenOptions};
use clap::{Args, Parser, Subcommand};

mod cmd_convert;
mod cmd_decompile;
mod cmd_edit;
mod cmd_export;
mod cmd_lightmaps;
mod cmd_lmp;
mod cmd_lump;
mod cmd_pak;
mod cmd_partitions;
mod cmd_props;
mod cmd_quake;
mod cmd_read;
mod cmd_render;
mod cmd_scan;
mod cmd_textures;
mod cmd_view;
mod render;

#[derive(Parser)]
#[command(name = "bsp", version, about = "Read, check and edit .bsp map files of every engine family", after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

const EXAMPLES: &str = "Examples:
  bsp info maps/e1m1.bsp              format and the native info tool's table
  bsp info --json maps/*.bsp          one JSON object per map (an array for several)
  bsp lumps maps/e1m1.bsp             the raw lump directory
  bsp ents maps/e1m1.bsp              the entity lump as text
  bsp ents set m.bsp --classname light --key light --value 300 -o out.bsp
  bsp rewrite maps/e1m1.bsp -o copy.bsp   byte-identical copy through the writer
  bsp check maps/*.bsp                cross-reference checks; exit 1 on errors
  bsp formats                         every supported branch
  bsp pak list maps/cp_x.bsp          Source pakfile entries
  bsp props maps/cp_x.bsp             Source static props
  bsp export maps/e1m1.bsp -o e1m1.glb   geometry, textures and lightmaps as glTF
  bsp view maps/e1m1.bsp              look at it in the browser (a server on 127.0.0.1)";

#[derive(Args, Clone, Debug, Default)]
pub(crate) struct OpenArgs {
    /// Use this branch instead of detecting one (see `bsp formats`)
    #[arg(long, global = true)]
    branch: Option<String>,
    /// Ignore external lump files (.lmp / .bsp_lump) beside the map
    #[arg(long, global = true)]
    no_external: bool,
    /// Most decompressed bytes of one map, all lumps together [default: 1073741824]
    #[arg(long, global = true, value_name = "N")]
    max_decompressed: Option<u64>,
}

/// Per-command budgets of what a command may build from one map (README, "Safe writes,
/// special files and budgets"); each overrun is a `limit_exceeded` error naming its flag.
#[derive(Args, Clone, Debug)]
pub(crate) struct BudgetArgs {
    /// Most vertices the geometry may have, all models together
    #[arg(long, value_name = "N", default_value_t = bspkit::mesh::DEFAULT_MAX_SCENE_VERTICES)]
    max_scene_vertices: u64,
    /// Most triangles the geometry may have, all models together
    #[arg(long, value_name = "N", default_value_t = bspkit::mesh::DEFAULT_MAX_SCENE_TRIANGLES)]
    max_scene_triangles: u64,
    /// Most lightmap atlas pixels, every page, style and layer together
    #[arg(long, value_name = "N", default_value_t = bspkit::lumps::lighting::DEFAULT_MAX_ATLAS_PIXELS)]
    pub(crate) max_atlas_pixels: u64,
    /// Most pixels `render` may test (each drawn triangle's on-screen bounding box, summed)
    #[arg(long, value_name = "N", default_value_t = bspkit::render::DEFAULT_MAX_RENDER_WORK)]
    pub(crate) max_render_work: u64,
}

impl BudgetArgs {
    pub(crate) fn scene(&self) -> bspkit::mesh::SceneLimits {
        bspkit::mesh::SceneLimits { max_vertices: self.max_scene_vertices, max_triangles: self.max_scene_triangles }
    }
}

impl OpenArgs {
    pub(crate) fn no_external(&self) -> bool {
        self.no_external
    }
    pub(crate) fn options(&self) -> OpenOptions {
        let mut o = OpenOptions { branch: self.branch.clone(), external_lumps: !self.no_external, ..OpenOptions::default() };
        if let Some(total) = self.max_decompressed {
            o.max_decompressed_total = total;
        }
        o
    }
}

#[derive(Subcommand)]
enum Command {
    /// Format, detection evidence and the family's native info table
    #[command(
        after_help = "Examples:\n  bsp info map.bsp\n  bsp info --json a.bsp b.bsp > info.json\n  bsp info 'pak0.pk3!maps/q3dm1.bsp'   a map inside an archive\n\nA file that cannot be read is reported (exit 2) and the others go on."
    )]
    Info(cmd_read::InfoArgs),
    /// The raw lump directory
    #[command(after_help = "Examples:\n  bsp lumps map.bsp\n  bsp lumps --json map.bsp\n  bsp lumps a.bsp b.bsp")]
    Lumps(cmd_read::LumpsArgs),
    /// The entity lump: text, JSON, or an editing subcommand (get/set/unset/add/remove/export/import/patch/diff)
    Ents(cmd_edit::EntsCmd),
    /// Read a map and write it back unchanged through the writer (byte-identical)
    #[command(after_help = "Examples:\n  bsp rewrite map.bsp -o copy.bsp\n  cmp map.bsp copy.bsp")]
    Rewrite(cmd_edit::RewriteArgs),
    /// LZMA-compress every Source lump but the game lump and the pakfile
    #[command(after_help = "Examples:\n  bsp compress map.bsp -o map_lzma.bsp")]
    Compress(cmd_edit::CompressArgs),
    /// Store every LZMA-compressed Source lump uncompressed
    #[command(after_help = "Examples:\n  bsp decompress map.360.bsp -o plain.bsp")]
    Decompress(cmd_edit::CompressArgs),
    /// Convert between platforms (Source console <-> PC) and sibling branches; every loss reported
    #[command(
        after_help = "Examples:\n  bsp convert shack.360.bsp --to source --endian little -o shack.bsp\n  bsp convert shack.bsp --to source --endian big --lzma on -o shack.360.bsp\n  bsp convert map.bsp --to source --endian big -o out.bsp --report report.json --strict\n\nExit status: 0 written (losses, if any, listed on stderr and in the report), 1 --strict\nrefused a lossy conversion (nothing written), 2 error (nothing written)."
    )]
    Convert(cmd_convert::ConvertArgs),
    /// Extract, replace or apply single lumps
    #[command(
        subcommand,
        after_help = "Examples:\n  bsp lump extract map.bsp ENTITIES -o ents.bin\n  bsp lump replace map.bsp LIGHTING light.bin -o out.bsp\n  bsp lump apply map.bsp map_l_0.lmp -o out.bsp"
    )]
    Lump(cmd_lump::LumpCmd),
    /// Valve external .lmp lump files: list those beside a map, or write a patch set
    Lmp(cmd_lump::LmpTop),
    /// Check every cross-reference; exit 1 on errors (--strict: on warnings too)
    #[command(
        after_help = "Examples:\n  bsp check map.bsp\n  bsp check --strict maps/*.bsp\n  bsp check --json maps/*.bsp\n  bsp check --verify-lzma map.360.bsp\n  bsp check 'pak0.pk3!maps/q3dm1.bsp'\n\nEach problem has a severity (error, warning, note) and a code (listed in README.md).\nExit status: 0 no errors, 1 errors (--strict: or warnings), 2 a file could not be read;\nthe other files are still checked."
    )]
    Check(cmd_read::CheckArgs),
    /// Quake 1 / GoldSrc texture lump: names, sizes, embedded or from a WAD
    Miptex(cmd_quake::MiptexArgs),
    /// BSPX extension lumps after the standard lumps (Quake 1 / GoldSrc / Quake 2)
    Bspx(cmd_quake::BspxArgs),
    /// Every texture the map carries or names, decoded to PNG; missing ones listed as warnings
    Textures(cmd_textures::TexturesArgs),
    /// Geometry as glTF 2.0 (.glb / .gltf) or OBJ, with textures and lightmaps
    Export(cmd_export::ExportArgs),
    /// A map back to its editor source (.map), with face coverage and brush, texture and entity fidelity measured
    Decompile(cmd_decompile::DecompileArgs),
    /// Source pakfile (lump 40): list, extract, cat, add, remove, addlist, repack
    Pak(cmd_pak::PakArgs),
    /// Static props of a Source or Respawn map (game lump `sprp`)
    Props(cmd_props::PropsArgs),
    /// Baked lightmaps as atlas PNGs (per page, light style and bump layer) and a JSON manifest
    Lightmaps(cmd_lightmaps::LightmapsArgs),
    /// A preview picture (PNG) of the map, textured and lit, drawn on the CPU
    Render(cmd_render::RenderArgs),
    /// Game lump directory of a Source or Respawn map (lump 35)
    Gamelumps(cmd_props::GameLumpsArgs),
    /// A local web viewer: serves the maps (three.js page, GLB, entities, lumps, check) on 127.0.0.1
    View(cmd_view::ViewArgs),
    /// Scan directories (and .pk3/.zip archives) for maps: summary per file, then a table
    #[command(after_help = cmd_scan::AFTER_HELP)]
    Scan {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// One JSON object per map and line (the summary goes to stderr)
        #[arg(long)]
        json: bool,
        /// Worker threads (default: one per core)
        #[arg(long)]
        jobs: Option<usize>,
        /// Count maps with warnings as problems for the exit status
        #[arg(long)]
        strict: bool,
        /// Also write a preview picture of every map read into this directory (`bsp render`'s iso view)
        #[arg(long, value_name = "DIR", conflicts_with = "out")]
        thumbnails: Option<PathBuf>,
        /// Most bytes --thumbnails may write, every picture together (default 4 GiB)
        #[arg(long, value_name = "N", default_value_t = bspkit::write::set::DEFAULT_MAX_WRITTEN_BYTES)]
        max_output_bytes: u64,
        /// Keep only maps with an entity of this class (repeatable: any of them)
        #[arg(long, value_name = "NAME", conflicts_with = "out")]
        classname: Vec<String>,
        /// Keep only maps with an entity that has this key (repeatable: any of them)
        #[arg(long, value_name = "KEY", conflicts_with = "out")]
        key: Vec<String>,
        /// Keep only maps with a texture / material whose name contains TEXT, ignoring case
        /// (repeatable: any of them)
        #[arg(long, value_name = "TEXT", conflicts_with = "out")]
        texture: Vec<String>,
        /// Write the library tables (maps, entities, textures, props, lumps, problems) into this
        /// directory, with the index that makes the next run read only changed files
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Format of the tables written with --out
        #[arg(long, value_enum, default_value = "parquet", requires = "out")]
        format: cmd_scan::TableFormat,
        /// With --out: hash every file the index would reuse again and read it when its bytes
        /// differ (a rewrite that kept size, times and inode)
        #[arg(long, requires = "out")]
        verify: bool,
        #[command(flatten)]
        open: OpenArgs,
    },
    /// List every supported branch
    #[command(after_help = "Examples:\n  bsp formats\n  bsp formats --json | jq '.[].branch'")]
    Formats {
        #[arg(long)]
        json: bool,
    },
}

/// An error that ends the command with exit code 2; already includes file/lump/offset.
pub(crate) struct Fatal(pub(crate) String);

impl From<bspkit::Error> for Fatal {
    fn from(e: bspkit::Error) -> Self {
        Fatal(e.to_string())
    }
}
/// The reader of stdout went away (`bsp … | head`): stop quietly, as other Unix tools do.
const BROKEN_PIPE: &str = "\0broken pipe";

impl From<std::io::Error> for Fatal {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Fatal(BROKEN_PIPE.into());
        }
        Fatal(e.to_string())
    }
}
impl From<serde_json::Error> for Fatal {
    fn from(e: serde_json::Error) -> Self {
        if e.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe) {
            return Fatal(BROKEN_PIPE.into());
        }
        Fatal(e.to_string())
    }
}

/// Write a whole output file through the library's one write primitive
/// (`bspkit::write::atomic`): `-` is standard output; links followed, FIFOs and devices
/// written through, mode kept, no temporary file left behind.
pub(crate) fn write_output(path: &std::path::Path, bytes: &[u8]) -> Result<(), Fatal> {
    if bspkit::write::atomic::is_stdout(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        return Ok(());
    }
    let w = bspkit::write::write_file(path, bytes, &Default::default())?;
    warn_written(path, &w);
    Ok(())
}

/// Say what a write did that the user may not expect (hard links left with the old contents).
pub(crate) fn warn_written(path: &std::path::Path, w: &bspkit::write::Written) {
    if w.other_links > 0 {
        eprintln!(
            "warning: {}: had {} other hard link(s); they keep the old contents (the new file replaced this name only)",
            path.display(),
            w.other_links
        );
    }
}

/// Largest input file read whole by a command (1 GiB): lump data, entity text, configs.
pub(crate) const MAX_INPUT: u64 = 1 << 30;

/// Read an input file given on the command line: regular files only (a FIFO or device is
/// refused, never read forever), at most `max` bytes.
pub(crate) fn read_input(path: &std::path::Path, max: u64) -> Result<Vec<u8>, Fatal> {
    Ok(bspkit::fsio::read_regular(path, max, "input file size")?)
}

/// Open a map (or `archive.pk3!entry`) for reading.
pub(crate) fn open(path: &std::path::Path, args: &OpenArgs) -> Result<Bsp<'static>, Fatal> {
    Ok(cmd_read::open_map(path, args)?)
}

fn run(cli: Cli) -> Result<ExitCode, Fatal> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Info(a) => return cmd_read::info(a, &mut out),
        Command::Lumps(a) => return cmd_read::lumps(a, &mut out),
        Command::Ents(cmd) => return cmd_edit::ents(cmd, &mut out),
        Command::Rewrite(a) => return cmd_edit::rewrite(a),
        Command::Compress(a) => return cmd_edit::compress(a, true),
        Command::Decompress(a) => return cmd_edit::compress(a, false),
        Command::Convert(a) => return cmd_convert::run(a, &mut out),
        Command::Lump(c) => return cmd_lump::lump(c),
        Command::Lmp(c) => return cmd_lump::lmp(c),
        Command::Check(a) => return cmd_read::check(a, &mut out),
        Command::Miptex(args) => return cmd_quake::miptex(args, &mut out),
        Command::Bspx(args) => return cmd_quake::bspx(args, &mut out),
        Command::Textures(args) => return cmd_textures::textures(args, &mut out),
        Command::Export(args) => return cmd_export::run(args, &mut out),
        Command::Decompile(args) => return cmd_decompile::run(args, &mut out),
        Command::Pak(args) => return cmd_pak::run(args, &mut out),
        Command::Props(args) => cmd_props::props(args, &mut out)?,
        Command::Lightmaps(args) => cmd_lightmaps::run(args, &mut out)?,
        Command::Render(args) => cmd_render::run(args, &mut out)?,
        Command::View(args) => return cmd_view::run(args, &mut out),
        Command::Gamelumps(args) => cmd_props::gamelumps(args, &mut out)?,
        Command::Scan {
            dirs,
            json,
            jobs,
            strict,
            thumbnails,
            max_output_bytes,
            classname,
            key,
            texture,
            out: tables,
            format,
            verify,
            open: o,
        } => {
            let filter = bspkit::scan::MapFilter { classnames: classname, keys: key, textures: texture };
            let tables = tables.map(|dir| (dir, format, verify));
            let args = cmd_scan::ScanArgs {
                roots: dirs,
                json,
                jobs,
                strict,
                options: o.options(),
                thumbnails,
                max_output_bytes,
                filter,
                tables,
                open: o,
            };
            return cmd_scan::run(args, &mut out);
        }
        Command::Formats { json } => {
            let all = bspkit::branches::all();
            if json {
                let list: Vec<_> = all
                    .iter()
                    .map(|b| serde_json::json!({"branch": b.id, "family": b.family.as_str(), "title": b.title, "games": b.games}))
                    .collect();
                serde_json::to_writer_pretty(&mut out, &list)?;
                writeln!(out)?;
            } else {
                for b in all {
                    writeln!(out, "{:<12} {:<9} {}  ({})", b.id, b.family.as_str(), b.title, b.games)?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Parse the command line. Building clap's whole command tree (every subcommand's arguments
/// and help texts: about 440 KB of heap, more than a small map's export) is only needed for
/// help and error messages, so a command line naming one of the map-reading subcommands is
/// first parsed against that subcommand alone, built from the same argument definitions. Help,
/// `--version`, any error and every other subcommand go through the whole tree, so what the
/// user sees never differs.
fn parse_cli(args: Vec<std::ffi::OsString>) -> Cli {
    fast_parse(&args).unwrap_or_else(|| Cli::parse_from(args))
}

/// The subcommands with a fast parse (those run on many maps in scripts), each with the
/// function that adds its arguments, as the full tree defines them (its `about` and examples
/// left out: they are only printed by help, which goes through the full tree).
type AddArgs = fn(clap::Command) -> clap::Command;
const FAST_SUBCOMMANDS: [(&str, AddArgs); 6] = [
    ("info", <cmd_read::InfoArgs as Args>::augment_args),
    ("lumps", <cmd_read::LumpsArgs as Args>::augment_args),
    ("check", <cmd_read::CheckArgs as Args>::augment_args),
    ("export", <cmd_export::ExportArgs as Args>::augment_args),
    ("render", <cmd_render::RenderArgs as Args>::augment_args),
    ("props", <cmd_props::PropsArgs as Args>::augment_args),
];

fn fast_parse(args: &[std::ffi::OsString]) -> Option<Cli> {
    use clap::FromArgMatches;
    let first = args.get(1)?.to_str()?;
    let (name, add_args) = FAST_SUBCOMMANDS.into_iter().find(|(n, _)| *n == first)?;
    // After `--` everything is a value, so a file named `--help` stays a file.
    let asks_help = args[2..].iter().take_while(|a| *a != "--").any(|a| a == "-h" || a == "--help" || a == "-V" || a == "--version");
    if asks_help {
        return None;
    }
    let cmd = clap::Command::new("bsp").subcommand(add_args(clap::Command::new(name)));
    let mut matches = cmd.try_get_matches_from(args).ok()?;
    Cli::from_arg_matches_mut(&mut matches).ok()
}

/// `bsp --version` / `bsp -V` alone: the line clap prints (`bsp 0.1.0`), without building
/// clap's command tree or installing the signal handlers — start-up is all that command costs
/// (docs/setup-test-time.md, "Start-up"). Any other argument goes through clap as before.
fn version_only(args: &[std::ffi::OsString]) -> Option<String> {
    match args {
        [_, a] if a == "--version" || a == "-V" => Some(format!("bsp {}\n", env!("CARGO_PKG_VERSION"))),
        _ => None,
    }
}

/// The program once the process is set up: the version line, or parse and run a command.
fn bsp_main(args: Vec<std::ffi::OsString>) -> ExitCode {
    if let Some(line) = version_only(&args) {
        // A closed stdout is not an error worth reporting for a version line.
        let _ = std::io::stdout().write_all(line.as_bytes());
        return ExitCode::SUCCESS;
    }
    // Temporary files are removed on SIGINT/SIGTERM/SIGHUP; SIGXFSZ becomes an error.
    bspkit::write::atomic::install_signal_cleanup();
    let cli = parse_cli(args);
    match run(cli) {
        Ok(code) => code,
        Err(Fatal(msg)) if msg == BROKEN_PIPE => ExitCode::SUCCESS,
        Err(Fatal(msg)) => {
            eprintln!("bsp: error: {msg}");
            ExitCode::from(2)
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> ExitCode {
    bsp_main(std::env::args_os().collect())
}

/// Linux with glibc: `bsp` starts from C's `main` (`#![no_main]` above) instead of std's
/// runtime start, which before a Rust `fn main` also installs the stack-overflow handler — on
/// glibc that reads and parses `/proc/self/maps` to find the main thread's stack, and maps an
/// alternate signal stack: about 0.3 ms of CPU time per process here, more than `bsp
/// --version` itself (docs/setup-test-time.md, "Start-up"). What else std's start does is
/// done here the same way: standard descriptors that are closed are reopened on `/dev/null`
/// (so no file the program opens becomes its stdout), SIGPIPE is ignored (a closed pipe is a
/// write error, reported as `BROKEN_PIPE`), a panic exits with 101, and `process::exit` flushes
/// stdout. The arguments still come from std (glibc hands them to it before `main`). Given up:
/// a stack overflow is a plain SIGSEGV without std's "has overflowed its stack" line, and a
/// panic message names the main thread `<unnamed>` instead of `main`.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[no_mangle]
extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    reopen_closed_standard_descriptors();
    // SAFETY: setting a signal's disposition to "ignore" has no preconditions.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let code = std::panic::catch_unwind(|| bsp_main(std::env::args_os().collect())).unwrap_or(ExitCode::from(101));
    // `ExitCode` has no stable conversion to a number; every code `bsp` returns is made from a u8.
    let status = (0..=u8::MAX).find(|&c| ExitCode::from(c) == code).unwrap_or(1);
    // `exit`, not a return: it flushes stdout as std's start does after `fn main`.
    std::process::exit(i32::from(status))
}

/// Standard descriptors 0–2 that are not open are opened on `/dev/null`, as std's start does.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn reopen_closed_standard_descriptors() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
    // SAFETY: `fds` is a valid array of three pollfd; a zero timeout does not block.
    if unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } == -1 {
        return;
    }
    for fd in fds.iter().filter(|p| p.revents & libc::POLLNVAL != 0) {
        // SAFETY: a NUL-terminated path; open returns the lowest free descriptor, which is
        // this one as the lower ones are open (or were reopened just before).
        let opened = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
        if opened != fd.fd {
            std::process::abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn args(line: &str) -> Vec<std::ffi::OsString> {
        line.split_whitespace().map(Into::into).collect()
    }

    /// The fast parse sees exactly the arguments the full tree gives each of its subcommands.
    #[test]
    fn fast_subcommands_have_the_full_trees_arguments() {
        let full = Cli::command();
        for (name, add_args) in FAST_SUBCOMMANDS {
            let want: Vec<String> = full.find_subcommand(name).unwrap().get_arguments().map(|a| format!("{a:?}")).collect();
            let fast = add_args(clap::Command::new(name));
            let got: Vec<String> = fast.get_arguments().map(|a| format!("{a:?}")).collect();
            assert!(!want.is_empty(), "{name}");
            assert_eq!(got, want, "{name}");
        }
    }

    /// build.rs links the unwinder statically (`libgcc_eh`, not `libgcc_s.so`): a panic still
    /// unwinds — destructors run and `catch_unwind` (rayon's workers, the test harness) gets it.
    #[test]
    fn panics_unwind_with_the_static_unwinder() {
        struct Guard<'a>(&'a std::cell::Cell<u32>);
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        #[inline(never)]
        fn nested(depth: u32, dropped: &std::cell::Cell<u32>) -> u32 {
            let _guard = Guard(dropped);
            if depth == 0 {
                panic!("unwind test");
            }
            nested(std::hint::black_box(depth - 1), dropped) + 1
        }
        let dropped = std::cell::Cell::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| nested(3, &dropped)));
        assert!(caught.is_err());
        assert_eq!(dropped.get(), 4, "every frame's destructor ran");
        let thread = std::thread::spawn(|| -> u32 { std::panic::panic_any(7u8) });
        assert_eq!(thread.join().unwrap_err().downcast_ref::<u8>(), Some(&7));
    }

    /// The short cut prints what clap prints for `--version` and `-V`, and nothing else takes it.
    #[test]
    fn version_only_is_claps_version_line() {
        let clap_line = Cli::command().render_version();
        for line in ["bsp --version", "bsp -V"] {
            assert_eq!(version_only(&args(line)).as_deref(), Some(clap_line.as_str()), "{line}");
        }
        for line in ["bsp", "bsp --version x", "bsp info --version", "bsp -V -V", "bsp --versio"] {
            assert_eq!(version_only(&args(line)), None, "{line}");
        }
    }

    #[test]
    fn fast_parse_takes_plain_lines_and_leaves_the_rest_to_clap() {
        for line in [
            "bsp export m.bsp -o m.glb --no-textures --skip none",
            "bsp info --json a.bsp b.bsp",
            "bsp check --strict m.bsp",
            "bsp lumps m.bsp --branch quake1",
            "bsp render m.bsp -o m.png",
            "bsp export -o x.glb -- --help",
        ] {
            assert!(fast_parse(&args(line)).is_some(), "{line}");
        }
        for line in [
            "bsp export --help",
            "bsp check -h m.bsp",
            "bsp info --version",
            "bsp export m.bsp",
            "bsp export m.bsp -o x.glb --bogus",
            "bsp ents m.bsp",
            "bsp",
            "bsp exp m.bsp",
        ] {
            assert!(fast_parse(&args(line)).is_none(), "{line}");
        }
    }
}
