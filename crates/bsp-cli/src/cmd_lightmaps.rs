//! `bsp lightmaps`: a map's baked lighting as atlas PNGs (one per page, light style and bump
//! layer), optional HDR side files, and a JSON manifest of every face's rectangle.

use std::io::Write;
use std::path::PathBuf;

use bspkit::export::{stage_lightmap_files, LightmapFileOptions};
use bspkit::lightmap::{self, LightOptions};
use clap::Args;

use crate::{open, Fatal, OpenArgs};

#[derive(Args)]
#[command(
    after_help = "Examples:\n  bsp lightmaps e1m1.bsp --out e1m1_lm/\n  bsp lightmaps map.bsp --out lm/ --hdr --json | jq '.faces | length'\n\n\
Writes lightmap_p<page>_s<style>_l<layer>.png (and .pfm with --hdr) and lightmaps.json into --out."
)]
pub struct LightmapsArgs {
    file: PathBuf,
    /// Directory for the images and lightmaps.json (created if missing)
    #[arg(long)]
    out: PathBuf,
    /// Use the map's HDR lighting where it has some, and write each atlas's exact sample values
    /// as a float image (.pfm) beside its PNG
    #[arg(long)]
    hdr: bool,
    /// Print the manifest on stdout
    #[arg(long)]
    json: bool,
    /// Most lightmap atlas pixels, every page, style and layer together
    #[arg(long, value_name = "N", default_value_t = bspkit::lumps::lighting::DEFAULT_MAX_ATLAS_PIXELS)]
    max_atlas_pixels: u64,
    /// Most bytes the command may write, every file together (default 4 GiB)
    #[arg(long, value_name = "N", default_value_t = bspkit::write::set::DEFAULT_MAX_WRITTEN_BYTES)]
    max_output_bytes: u64,
    #[command(flatten)]
    open: OpenArgs,
}

pub fn run(args: LightmapsArgs, out: &mut impl Write) -> Result<(), Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let lm = lightmap::build(&bsp, &LightOptions { hdr: args.hdr, max_atlas_pixels: args.max_atlas_pixels, ..Default::default() })?;
    let fail = |what: &str, p: &std::path::Path, e: std::io::Error| Fatal(format!("{}: {what}: {e}", p.display()));
    std::fs::create_dir_all(&args.out).map_err(|e| fail("cannot create the directory", &args.out, e))?;
    // The images and the manifest naming them are one set (the manifest put in place last), under
    // the folder rule and the written-bytes budget.
    let budget = bspkit::write::set::ByteBudget::new(args.max_output_bytes);
    let o = LightmapFileOptions { prefix: "", pfm: args.hdr, folder: Some(&args.out) };
    let staged = stage_lightmap_files(
        &lm,
        &args.out.join("lightmaps.json"),
        &o,
        &budget,
        |a| lightmap::encode_png(a.width, a.height, &a.rgb8()),
        |m| {
            m["path"] = args.file.to_string_lossy().into();
            m["branch"] = bsp.branch().id.into();
        },
    )?;
    let (m, files) = (staged.manifest.clone(), staged.files.clone());
    let written = staged.commit()?;
    let path = written.first().cloned().unwrap_or_else(|| args.out.join("lightmaps.json"));
    for w in &lm.warnings {
        eprintln!("{}: warning: {w}", args.file.display());
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &m)?;
        writeln!(out)?;
    } else {
        for ((png, hdr), a) in files.iter().zip(&lm.atlases) {
            let png = png.as_deref().unwrap_or_default();
            let hdr = hdr.as_ref().map(|h| format!(" + {h}")).unwrap_or_default();
            writeln!(
                out,
                "{}  {}×{}  page {} style {} layer {}{hdr}",
                args.out.join(png).display(),
                a.width,
                a.height,
                a.page,
                a.style,
                a.layer
            )?;
        }
    }
    eprintln!(
        "{}: {} lit faces from {} in {} page(s), {} image(s), manifest {}",
        args.file.display(),
        lm.faces.len(),
        if lm.source.is_empty() { "nothing" } else { &lm.source },
        lm.pages.len(),
        lm.atlases.len(),
        path.display()
    );
    Ok(())
}
