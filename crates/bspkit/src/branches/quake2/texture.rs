//! Quake 2 textures: the texinfo names (`e1u1/floor1_1`) looked up as `textures/<name>.wal`
//! under the game directories (loose or in `pak*.pak`), decoded with the Quake 2 palette
//! (`pics/colormap.pcx`, or `--palette`). Replacement images (`.png`, `.tga`, `.jpg`) of the
//! same name are used when there is no `.wal`, as source ports do.
//!
//! Translucency comes from the texinfo flags: `SURF_TRANS33` / `SURF_TRANS66` → blend, and
//! the re-release's `SURF_ALPHATEST` (`0x02000000`) → mask.

use crate::assets::image_file::decode_image_file;
use crate::assets::{wal, AlphaMode, Assets, Missing, MissingKind, Palette, Texture};
use crate::branches::ops::MapTextures;
use crate::branches::quake2::lumps::LUMP_TEXINFO;
use crate::branches::quake2::records::TexInfo;
use crate::bsp::Bsp;

pub const SURF_TRANS33: i32 = 0x10;
pub const SURF_TRANS66: i32 = 0x20;
pub const SURF_ALPHATEST: i32 = 0x0200_0000;

/// Every texture name the texinfo lump uses, once (first use order), with the alpha mode its
/// flags ask for.
pub fn names(bsp: &Bsp) -> Result<Vec<(String, AlphaMode)>, Missing> {
    let infos: &[TexInfo] = bsp.records(LUMP_TEXINFO).map_err(|e| Missing::from_error("(texinfo)", &e))?;
    let mut out: Vec<(String, AlphaMode)> = Vec::new();
    for t in infos {
        let name = t.name().into_owned();
        let flags = t.flags.get();
        let alpha = if flags & (SURF_TRANS33 | SURF_TRANS66) != 0 {
            AlphaMode::Blend
        } else if flags & SURF_ALPHATEST != 0 {
            AlphaMode::Mask { cutoff: 0.5 }
        } else {
            AlphaMode::Opaque
        };
        match out.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(&name)) {
            // Blend wins over mask wins over opaque when texinfos disagree.
            Some((_, a)) => {
                if *a == AlphaMode::Opaque || alpha == AlphaMode::Blend {
                    *a = alpha;
                }
            }
            None => out.push((name, alpha)),
        }
    }
    Ok(out)
}

/// Load `textures/<name>.wal` (or a replacement image) from the search path.
pub fn load(name: &str, alpha: AlphaMode, assets: &Assets, palette: &Result<Palette, Missing>) -> Result<Texture, Missing> {
    let base = format!("textures/{}", name.trim_start_matches('/'));
    let max = assets.fs.budget().max_file.saturating_mul(8);
    for ext in ["wal", "png", "tga", "jpg"] {
        let path = format!("{base}.{ext}");
        let asset = match assets.fs.read(&path) {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(e) => return Err(Missing::from_error(name, &e)),
        };
        let img = if ext == "wal" {
            let pal = palette.as_ref().map_err(|m| Missing { name: name.to_string(), ..m.clone() })?;
            wal::decode(&asset.data, pal)
        } else {
            assets.fs.decode_within(max, |m| decode_image_file(&asset.data, m))
        };
        return img
            .map(|img| Texture::new(name, asset.origin(), alpha, img, None))
            .map_err(|e| Missing::from_error(name, &e.in_file(&asset.file)));
    }
    Err(Missing::new(name, MissingKind::NotFound, format!("no {base}.wal (nor .png/.tga/.jpg) under the game directories")))
}

/// The Quake 2 texture lookup ([`crate::branches::ops::FamilyOps::textures`]): the texinfo
/// names with their alpha, read once, and the palette.
pub struct WalLookup {
    palette: Result<Palette, Missing>,
    names: Vec<(String, AlphaMode)>,
}

impl WalLookup {
    pub fn new(bsp: &Bsp, assets: &Assets, warnings: &mut Vec<Missing>) -> Self {
        let names = names(bsp).unwrap_or_else(|m| {
            warnings.push(m);
            Vec::new()
        });
        let palette = assets.palette(&["pics/colormap.pcx"]);
        if let Err(m) = &palette {
            if m.kind == MissingKind::NoPalette && !names.is_empty() {
                warnings.push(Missing::new(
                    "(palette)",
                    MissingKind::NoPalette,
                    "Quake 2 .wal textures need Quake 2's palette (bspkit ships only Quake's): pass --palette FILE or a --game-dir holding pics/colormap.pcx",
                ));
            }
        }
        WalLookup { palette, names }
    }
}

impl MapTextures for WalLookup {
    /// Read (with their alpha) when the lookup was set up.
    fn names(&self) -> Option<Vec<String>> {
        Some(self.names.iter().map(|(n, _)| n.clone()).collect())
    }

    fn resolve(&self, name: &str, assets: &Assets) -> Result<Texture, Missing> {
        let alpha = self.names.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map_or(AlphaMode::Opaque, |(_, a)| *a);
        load(name, alpha, assets, &self.palette)
    }
}
