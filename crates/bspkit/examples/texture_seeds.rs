//! Write seed files for the texture fuzz targets (`vtf`, `wad`, `vpk`, `tga`), made by
//! bspkit's own builders: `cargo run -p bspkit --example texture_seeds -- fuzz/corpus`.
//! `fuzz/seed.sh` runs it; the files are not committed.

use std::path::PathBuf;

use bspkit::assets::image::ImageRgba;
use bspkit::assets::vtf::{Format, VtfBuilder, FLAG_ENVMAP};
use bspkit::assets::{tga, vpk, wad};
use bspkit::lumps::miptex::encode;

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz/corpus".into()));
    for t in ["vtf", "wad", "vpk", "tga"] {
        std::fs::create_dir_all(root.join(t))?;
    }
    for &f in &Format::DECODABLE {
        for (minor, flags) in [(1, 0), (3, FLAG_ENVMAP), (5, 0)] {
            let mut b = VtfBuilder::new(f, 8, 8);
            b.version_minor = minor;
            b.flags = flags;
            b.mips = 2;
            let data: Vec<u8> = (0..b.image_size()).map(|i| (i * 31 % 256) as u8).collect();
            std::fs::write(root.join("vtf").join(format!("{}_{minor}.vtf", f.name())), b.build(&data))?;
        }
    }
    let px: Vec<u8> = (0..64).collect();
    let pal = vec![[1u8, 2, 3]; 256];
    std::fs::write(
        root.join("wad/q.wad"),
        wad::build(wad::WadVersion::Wad2, &[("a", wad::TYPE_MIPTEX_WAD2, encode("a", 8, 8, &px, None))]),
    )?;
    std::fs::write(
        root.join("wad/hl.wad"),
        wad::build(wad::WadVersion::Wad3, &[("{b", wad::TYPE_MIPTEX_WAD3, encode("{b", 8, 8, &px, Some(&pal)))]),
    )?;
    let files: &[(&str, &[u8])] =
        &[("materials/a/b.vmt", b"LightmappedGeneric { $basetexture a/b }"), ("readme", b"x"), ("c/d.vtf", &[1; 40])];
    for v in [1, 2] {
        std::fs::write(root.join("vpk").join(format!("v{v}_dir.vpk")), vpk::build(v, files, 8, false).0)?;
    }
    let img = ImageRgba::new(3, 2, (0..24).collect()).unwrap();
    std::fs::write(root.join("tga/raw.tga"), tga::encode(&img, false))?;
    std::fs::write(root.join("tga/rle.tga"), tga::encode(&ImageRgba::filled(9, 9, [1, 2, 3, 4]), true))?;
    std::fs::write(root.join("tga/shader.txt"), b"textures/a { qer_editorimage x.tga { map y.tga alphaFunc GE128 } }")?;
    Ok(())
}
