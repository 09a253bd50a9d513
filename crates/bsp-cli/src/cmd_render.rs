//! `bsp render`: a preview picture of a map (PNG), drawn by `bspkit::render` on the CPU.

use std::io::Write;
use std::path::PathBuf;

use bspkit::render::{self, RenderOptions, Rendered, View};
use clap::Args;

use crate::cmd_textures::TextureSearchArgs;
use crate::{open, Fatal, OpenArgs};

#[derive(Args)]
#[command(after_help = "Examples:
  bsp render e1m1.bsp -o e1m1.png                          perspective from a corner (iso), 512 px
  bsp render e1m1.bsp -o top.png --view top --size 1024    orthographic from above
  bsp render dm6.bsp -o dm6.png --view spawn               from the first player start's eye
  bsp render e1m1.bsp -o e1m1.png --game-dir ~/quake/id1   with the game's textures (palette, WADs)
  bsp render cp_x.bsp -o cp_x.png --game-dir ~/tf2/tf --game-dir ~/tf2/hl2
  bsp render map.bsp -o - > map.png                         PNG on standard output

The same map and flags give the same PNG bytes. Missing textures are drawn as flat colours
from the material name; maps without baked lighting are shaded from the surface normals.")]
pub struct RenderArgs {
    file: PathBuf,
    /// The PNG file to write (written to a temporary file, then renamed); `-` for standard output
    #[arg(short = 'o', long = "output", value_name = "PNG")]
    output: PathBuf,
    /// Where the picture is taken from: top (orthographic from above), iso (perspective from a
    /// corner), spawn (a player start's eye; iso when there is none)
    #[arg(long, default_value = "iso", value_parser = ["top", "iso", "spawn"])]
    view: String,
    /// Longest side of the picture in pixels (1 to 8192)
    #[arg(long, default_value_t = render::DEFAULT_SIZE, value_parser = clap::value_parser!(u32).range(1..=render::MAX_SIZE as i64))]
    size: u32,
    #[command(flatten)]
    search: TextureSearchArgs,
    #[command(flatten)]
    budgets: crate::BudgetArgs,
    #[command(flatten)]
    open: OpenArgs,
}

/// Render one map: the result and its PNG bytes.
pub fn render_png(bsp: &bspkit::Bsp, opts: &RenderOptions) -> Result<(Rendered, Vec<u8>), bspkit::Error> {
    let r = render::render_map(bsp, opts)?;
    let png = r.frame.to_png()?;
    Ok((r, png))
}

pub fn run(args: RenderArgs, out: &mut impl Write) -> Result<(), Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let view = View::from_name(&args.view).unwrap_or_default();
    let opts = RenderOptions {
        view,
        size: args.size,
        textures: args.search.options(),
        limits: args.budgets.scene(),
        max_work: args.budgets.max_render_work,
    };
    let start = std::time::Instant::now();
    let (r, png) = render_png(&bsp, &opts)?;
    crate::write_output(&args.output, &png)?;
    for w in &r.warnings {
        eprintln!("{}: warning: {w}", args.file.display());
    }
    // With `-o -` the PNG is stdout: the summary goes to stderr.
    let mut err = std::io::stderr().lock();
    let dest: &mut dyn Write = if bspkit::write::atomic::is_stdout(&args.output) { &mut err } else { out };
    writeln!(
        dest,
        "{}  {}×{}  view {}, {} triangles, {} textured / {} untextured materials, {} lit faces, {:.0}% covered",
        args.output.display(),
        r.frame.width,
        r.frame.height,
        r.view.as_str(),
        r.triangles,
        r.textured,
        r.untextured,
        r.lit_faces,
        r.frame.coverage() * 100.0
    )?;
    eprintln!("{}: rendered in {:.3} s", args.file.display(), start.elapsed().as_secs_f64());
    Ok(())
}
