//! `bsp textures`: every texture a map carries or names, decoded and written as PNG, with the
//! ones that could not be found or decoded listed as warnings.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bspkit::texture::{Budget, Missing, Texture, TextureOptions, TextureSource};
use bspkit::write::set::ByteBudget;
use clap::Args;

use crate::{open, Fatal, OpenArgs};

#[derive(Args)]
#[command(after_help = "Examples:
  bsp textures e1m1.bsp --out tex/                               Quake 1: the built-in palette (LibreQuake's)
  bsp textures e1m1.bsp --out tex/ --palette id1/gfx/palette.lmp
  bsp textures e1m1.bsp --out tex/ --game-dir ~/quake/id1        palette and WADs from the game
  bsp textures crossfire.bsp --out tex/ --wad ~/hl/valve/        GoldSrc WADs (a file or a directory)
  bsp textures cp_x.bsp --out tex/ --game-dir ~/tf2/tf --game-dir ~/tf2/hl2   VMT/VTF, VPKs included
  bsp textures q3dm1.bsp --out tex/ --game-dir ~/q3/baseq3        shader images from .pk3 files
  bsp textures map.bsp --json                                     list only (schema in README.md)")]
pub struct TexturesArgs {
    file: PathBuf,
    /// Write PNG files here (created); without it nothing is written, only listed
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    search: TextureSearchArgs,
    /// Machine-readable output (schema in README.md)
    #[arg(long)]
    json: bool,
    /// Most bytes `--out` may write, every file together (default 4 GiB)
    #[arg(long, value_name = "N", default_value_t = bspkit::write::set::DEFAULT_MAX_WRITTEN_BYTES)]
    max_output_bytes: u64,
    #[command(flatten)]
    open: OpenArgs,
}

/// Where textures are looked for: shared by `bsp textures` and `bsp export`.
#[derive(Args, Clone, Debug)]
pub(crate) struct TextureSearchArgs {
    /// Game directory to search (loose files, .pak, .pk3, *_dir.vpk); repeat in search order
    #[arg(long = "game-dir", value_name = "DIR")]
    pub(crate) game_dirs: Vec<PathBuf>,
    /// A WAD file, or a directory whose .wad files are searched (and where WADs the map names are found)
    #[arg(long = "wad", value_name = "FILE|DIR")]
    pub(crate) wads: Vec<PathBuf>,
    /// Palette for Quake / Hexen II / Quake 2 textures (.lmp, or the palette of a .pcx); Quake 1 maps default to LibreQuake's, built in
    #[arg(long, value_name = "FILE")]
    pub(crate) palette: Option<PathBuf>,
    /// Stop reading game files after this many MiB (default 8192)
    #[arg(long, value_name = "MIB")]
    pub(crate) max_read: Option<u64>,
    /// Most texels decoded, every texture and layer together
    #[arg(long, value_name = "N", default_value_t = bspkit::assets::DEFAULT_MAX_TEXTURE_PIXELS)]
    pub(crate) max_texture_pixels: u64,
}

impl TextureSearchArgs {
    /// The library's texture search options.
    pub(crate) fn options(&self) -> TextureOptions {
        let mut budget = Budget::default();
        if let Some(mb) = self.max_read {
            budget.max_bytes = mb.saturating_mul(1 << 20);
        }
        budget.max_pixels = self.max_texture_pixels;
        TextureOptions { game_dirs: self.game_dirs.clone(), wads: self.wads.clone(), palette: self.palette.clone(), budget }
    }
}

/// A file name for a texture name: path separators kept, characters that file systems refuse
/// replaced, and a `~N` suffix when two names would collide (compared ignoring case).
fn file_stem(name: &str, taken: &mut HashSet<String>) -> String {
    let mut parts = Vec::new();
    for p in name.replace('\\', "/").split('/') {
        let p: String =
            p.chars().map(|c| if matches!(c, '*' | '?' | ':' | '"' | '<' | '>' | '|') || c.is_control() { '_' } else { c }).collect();
        match p.as_str() {
            "" | "." | ".." => {}
            _ => parts.push(p),
        }
    }
    if parts.is_empty() {
        parts.push("_".into());
    }
    let mut base = parts.join("/");
    // Pakfile VTFs are named by their entry path: `x.vtf` → `x.png`, `x.rt.png`, ….
    if base.to_ascii_lowercase().ends_with(".vtf") {
        base.truncate(base.len() - 4);
    }
    let mut stem = base.clone();
    let mut n = 1;
    while !taken.insert(stem.to_ascii_lowercase()) {
        n += 1;
        stem = format!("{base}~{n}");
    }
    stem
}

/// `out/rel`, written under the folder rule (no links or special files below `out`) and counted
/// against the command's written-bytes budget.
fn write_png(out: &Path, rel: &str, img: &bspkit::texture::ImageRgba, budget: &ByteBudget) -> Result<(), Fatal> {
    let bytes = img.encode_png()?;
    bspkit::write::folder::write_below_counted(out, Path::new(rel), &bytes, &Default::default(), budget)?;
    Ok(())
}

/// The PNG files of one texture below `out`, written.
fn write_texture(out: &Path, t: &Texture, taken: &mut HashSet<String>, budget: &ByteBudget) -> Result<Vec<String>, Fatal> {
    let stem = file_stem(&t.name, taken);
    let mut files = Vec::new();
    for layer in t.layers() {
        let rel =
            if layer.label.is_empty() || t.layers().len() == 1 { format!("{stem}.png") } else { format!("{stem}.{}.png", layer.label) };
        write_png(out, &rel, &layer.rgba, budget)?;
        files.push(rel);
    }
    Ok(files)
}

pub fn textures(args: TexturesArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let options = args.search.options();
    let src = TextureSource::new(&bsp, &options);
    // Names come from the map: control characters are shown escaped (issue 23), here too.
    let warn = |m: &Missing| eprintln!("bsp: warning: {}", printable(&m.to_string()));
    for w in src.warnings() {
        warn(w);
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| Fatal(format!("{}: {e}", dir.display())))?;
    }
    let budget = ByteBudget::new(args.max_output_bytes);
    let mut taken = HashSet::new();
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for r in src.textures() {
        match r {
            Ok(t) => {
                let files = match &args.out {
                    Some(dir) => write_texture(dir, &t, &mut taken, &budget)?,
                    None => Vec::new(),
                };
                if !args.json {
                    let layers = if t.layers().len() > 1 { format!(" ({} images)", t.layers().len()) } else { String::new() };
                    writeln!(
                        out,
                        "{:<40} {:>9}  {:<6} {}{layers}",
                        printable(&t.name),
                        format!("{}x{}", t.width(), t.height()),
                        t.alpha.as_str(),
                        printable(&t.source)
                    )?;
                }
                found.push(serde_json::json!({
                    "name": t.name,
                    "source": t.source,
                    "width": t.width(),
                    "height": t.height(),
                    "alpha": t.alpha.as_str(),
                    "alpha_cutoff": match t.alpha { bspkit::texture::AlphaMode::Mask { cutoff } => Some(cutoff), _ => None },
                    "hdr": t.hdr().is_some(),
                    "layers": t.layers().iter().map(|l| l.label.clone()).collect::<Vec<_>>(),
                    "files": files,
                }));
            }
            Err(m) => {
                warn(&m);
                missing.push(m);
            }
        }
    }
    let used = src.used();
    if args.json {
        let v = serde_json::json!({
            "path": args.file.display().to_string(),
            "out": args.out.as_ref().map(|p| p.display().to_string()),
            "textures": found,
            "missing": missing,
            "warnings": src.warnings(),
            "budget": used,
        });
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
    }
    eprintln!(
        "{}: {} texture(s) decoded{}, {} missing; {} bytes read from game files",
        args.file.display(),
        found.len(),
        args.out.as_ref().map(|d| format!(" to {}", d.display())).unwrap_or_default(),
        missing.len(),
        used.bytes_read
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_are_safe_and_unique() {
        let mut t = HashSet::new();
        assert_eq!(file_stem("*water0", &mut t), "_water0");
        assert_eq!(file_stem("_WATER0", &mut t), "_WATER0~2");
        assert_eq!(file_stem("../../etc/passwd", &mut t), "etc/passwd");
        assert_eq!(file_stem("maps\\x/C:1", &mut t), "maps/x/C_1");
        assert_eq!(file_stem("", &mut t), "_");
        assert_eq!(file_stem("{fence", &mut t), "{fence");
        assert_eq!(file_stem("materials/maps/x/c0.hdr.vtf", &mut t), "materials/maps/x/c0.hdr");
    }
}

/// `text` for a terminal: control characters (ESC, CR, …, from names stored in a map) shown
/// as `\u{1b}` escapes instead of acting on the terminal. `--json` keeps the text as stored.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars().map(|c| if c.is_control() { c.escape_unicode().to_string() } else { c.to_string() }).collect::<String>().into()
}

#[cfg(test)]
mod printable_tests {
    /// Issue 23: the plain listing printed raw ESC bytes from map names.
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(super::printable("wall\u{1b}[2Jx"), "wall\\u{1b}[2Jx");
        assert_eq!(super::printable("plain/name"), "plain/name");
    }
}
