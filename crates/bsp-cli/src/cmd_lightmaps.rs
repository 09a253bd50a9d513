//! `bsp lightmaps`: a map's baked lighting as atlas PNGs (one per page, light style and bump
//! layer), optional HDR side files, and a JSON manifest of every face's rectangle.

use std::io::Write;
use std::path::{Path, PathBuf};

use bspkit::lightmap::{self, LightOptions, Lightmaps};
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
    #[command(flatten)]
    open: OpenArgs,
}

/// The manifest (README "bsp lightmaps" documents the schema): the library's, with the map's
/// path and branch.
fn manifest(args: &LightmapsArgs, bsp: &bspkit::Bsp, lm: &Lightmaps, files: &[(Option<String>, Option<String>)]) -> serde_json::Value {
    let mut m = lightmap::manifest(lm, files);
    m["path"] = args.file.to_string_lossy().into();
    m["branch"] = bsp.branch().id.into();
    m
}

pub fn run(args: LightmapsArgs, out: &mut impl Write) -> Result<(), Fatal> {
    let bsp = open(&args.file, &args.open)?;
    let lm = lightmap::build(&bsp, &LightOptions { hdr: args.hdr, max_atlas_pixels: args.max_atlas_pixels, ..Default::default() })?;
    let fail = |what: &str, p: &std::path::Path, e: std::io::Error| Fatal(format!("{}: {what}: {e}", p.display()));
    std::fs::create_dir_all(&args.out).map_err(|e| fail("cannot create the directory", &args.out, e))?;
    let mut files = Vec::with_capacity(lm.atlases.len());
    for a in &lm.atlases {
        let stem = a.file_stem();
        let png = format!("{stem}.png");
        let bytes = lightmap::encode_png(a.width, a.height, &a.rgb8())?;
        let path = bspkit::write::folder::prepare_below(&args.out, Path::new(&png))?;
        crate::write_output(&path, &bytes)?;
        let hdr = if args.hdr {
            let name = format!("{stem}.pfm");
            let path = bspkit::write::folder::prepare_below(&args.out, Path::new(&name))?;
            crate::write_output(&path, &lightmap::encode_pfm(a))?;
            Some(name)
        } else {
            None
        };
        files.push((Some(png), hdr));
    }
    let m = manifest(&args, &bsp, &lm, &files);
    let path = bspkit::write::folder::prepare_below(&args.out, Path::new("lightmaps.json"))?;
    crate::write_output(&path, &serde_json::to_vec_pretty(&m)?)?;
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
