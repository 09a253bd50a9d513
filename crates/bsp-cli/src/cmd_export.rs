//! `bsp export`: a map's geometry as glTF 2.0 (GLB or .gltf + .bin) or OBJ + MTL, with its
//! textures and lightmaps; a thin layer over `bspkit::export`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use bspkit::export::{export, ExportOptions, LightmapMode, DEFAULT_SCALE, DEFAULT_SKIP};
use bspkit::mesh::{ModelSelect, SurfaceFlags};
use clap::{Args, ValueEnum};

use crate::cmd_textures::TextureSearchArgs;
use crate::{open, BudgetArgs, Fatal, OpenArgs};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Models {
    /// The world model only
    World,
    /// The world and every brush model, placed by its entity
    All,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum LightmapModeArg {
    /// The lightmap page as the occlusion texture on TEXCOORD_1 (full resolution; Blender does not show it)
    Occlusion,
    /// Baked into COLOR_0 at each vertex, unlit materials (shown by Blender's and three.js's default import)
    Vertex,
}

#[derive(Args)]
#[command(after_help = "Examples:
  bsp export e1m1.bsp -o e1m1.glb --palette id1/gfx/palette.lmp   textures + lightmaps in one file
  bsp export c1a0.bsp -o c1a0.gltf --wad ~/hl/valve/               .gltf + .bin + PNGs beside it
  bsp export q2dm1.bsp -o q2dm1.obj --game-dir ~/q2/baseq2         OBJ + MTL (no lightmaps)
  bsp export map.bsp -o map.glb --skip none                        every surface, sky and clips too
  bsp export map.bsp -o map.glb --skip sky,trigger --scale 1       game units, keep clips/tools
  bsp export map.bsp -o map.glb --models world --no-textures --no-lightmaps
  bsp export map.bsp -o map.glb --json --strict                    summary on stdout; exit 1 on warnings
  bsp export map.bsp -o map.glb --lightmap-mode vertex             lighting in COLOR_0, unlit: visible in Blender
  bsp export map.bsp -o map.glb --hdr                              + map_lightmap_p*_s*_l*.pfm/.png, map_lightmaps.json
  bsp export map.bsp -o map.glb --light-styles --bump-layers       + switchable styles' and bump layers' images in the GLB

Skip flags: sky, nodraw, trigger, water, translucent, clip, tool, alphatest (default: sky,nodraw,trigger,clip,tool).
Exit status: 0 written; 1 written, but --strict and faces were skipped or warnings given; 2 error.")]
pub struct ExportArgs {
    file: PathBuf,
    /// Output file: .glb, .gltf (+ .bin) or .obj (+ .mtl); images are written beside it
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Which models to export
    #[arg(long, value_enum, default_value = "all")]
    models: Models,
    /// Game units to output units (default 0.0254: inches to metres; 1 keeps game units)
    #[arg(long)]
    scale: Option<f32>,
    /// Surface kinds to leave out, comma-separated, or `none`
    #[arg(long, value_name = "LIST")]
    skip: Option<String>,
    /// Quake 3 patch tessellation: segments per patch edge (default 8)
    #[arg(long, value_name = "N")]
    patch_level: Option<u32>,
    /// Plain materials, no texture images
    #[arg(long)]
    no_textures: bool,
    /// No lightmaps (no TEXCOORD_1, no occlusion texture)
    #[arg(long)]
    no_lightmaps: bool,
    /// Where the baked lighting goes in a glTF (README: which viewers show which)
    #[arg(long, value_enum, value_name = "MODE", default_value = "occlusion")]
    lightmap_mode: LightmapModeArg,
    /// Also write every lightmap image (each page, light style and bump layer) beside the output,
    /// losslessly as .pfm and as 8-bit .png, from the map's HDR lighting where it has some, with
    /// a JSON manifest of each face's rectangle, styles and source offsets (OUT_lightmaps.json)
    #[arg(long)]
    hdr: bool,
    /// Also embed each lightmap page's other light styles in the glTF, named by the material's
    /// extras.lightmap (docs/gltf-light-styles.md); the materials stay as without it
    #[arg(long)]
    light_styles: bool,
    /// Also embed Source's bump-direction lightmap layers (of the styles embedded), as --light-styles
    #[arg(long)]
    bump_layers: bool,
    /// Exit 1 when faces were skipped as broken or warnings were given
    #[arg(long)]
    strict: bool,
    /// Print the summary as JSON on stdout (schema in README.md)
    #[arg(long)]
    json: bool,
    /// Most bytes the export may write, every file together (default 4 GiB)
    #[arg(long, value_name = "N", default_value_t = bspkit::write::set::DEFAULT_MAX_WRITTEN_BYTES)]
    max_output_bytes: u64,
    #[command(flatten)]
    search: TextureSearchArgs,
    #[command(flatten)]
    budgets: BudgetArgs,
    #[command(flatten)]
    open: OpenArgs,
}

/// The skip set of `--skip` (`none`, or names of [`SurfaceFlags::NAMES`]).
fn parse_skip(text: &str) -> Result<SurfaceFlags, Fatal> {
    let mut f = SurfaceFlags::NONE;
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if name.eq_ignore_ascii_case("none") {
            continue;
        }
        f |= SurfaceFlags::from_name(&name.to_ascii_lowercase()).ok_or_else(|| {
            let all: Vec<&str> = SurfaceFlags::NAMES.iter().map(|(n, _)| *n).collect();
            Fatal(format!("--skip: unknown kind {name:?} (one of none, {})", all.join(", ")))
        })?;
    }
    Ok(f)
}

pub fn run(args: ExportArgs, out: &mut impl Write) -> Result<ExitCode, Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let opts = ExportOptions {
        format: None,
        models: match args.models {
            Models::World => ModelSelect::World,
            Models::All => ModelSelect::All,
        },
        scale: args.scale.unwrap_or(DEFAULT_SCALE),
        skip: match &args.skip {
            Some(s) => parse_skip(s)?,
            None => DEFAULT_SKIP,
        },
        patch_level: args.patch_level,
        textures: (!args.no_textures).then(|| args.search.options()),
        lightmaps: !args.no_lightmaps,
        lightmap_mode: match args.lightmap_mode {
            LightmapModeArg::Occlusion => LightmapMode::Occlusion,
            LightmapModeArg::Vertex => LightmapMode::Vertex,
        },
        hdr: args.hdr,
        light_styles: args.light_styles,
        bump_layers: args.bump_layers,
        face_ranges: false,
        limits: args.budgets.scene(),
        max_atlas_pixels: args.budgets.max_atlas_pixels,
        max_written_bytes: args.max_output_bytes,
    };
    let summary = export(&bsp, &args.output, &opts)?;
    // One write for all the messages: stderr is unbuffered, and a line per warning written in
    // pieces costs more than a small export.
    let mut msg = String::new();
    use std::fmt::Write as _;
    for s in &summary.skipped {
        let _ = writeln!(msg, "bsp: warning: {}: lump {} face {} skipped: {}", args.file.display(), s.lump, s.index, s.reason);
    }
    for w in &summary.warnings {
        let _ = writeln!(msg, "bsp: warning: {w}");
    }
    let _ = writeln!(
        msg,
        "{}: {} surfaces, {} triangles, {} materials ({} textures, {} placeholders, {} lightmap pages), {} skipped by kind, {} broken faces -> {}",
        args.file.display(),
        summary.surfaces,
        summary.triangles,
        summary.materials,
        summary.textures,
        summary.placeholder_textures,
        summary.lightmap_pages,
        summary.skipped_surfaces,
        summary.skipped.len(),
        args.output.display()
    );
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)?;
    }
    let _ = std::io::stderr().write_all(msg.as_bytes());
    if args.strict && (!summary.skipped.is_empty() || !summary.warnings.is_empty()) {
        eprintln!("bsp: --strict: {} skipped faces, {} warnings", summary.skipped.len(), summary.warnings.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_lists_parse() {
        assert_eq!(parse_skip("none").ok(), Some(SurfaceFlags::NONE));
        assert_eq!(parse_skip("sky,clip").ok(), Some(SurfaceFlags::SKY | SurfaceFlags::CLIP));
        assert!(parse_skip("sky,bogus").is_err());
    }
}
