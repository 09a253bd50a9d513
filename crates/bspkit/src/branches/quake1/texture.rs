//! Quake 1 and GoldSrc textures: miptex embedded in the map's texture lump, and WAD2 / WAD3
//! entries for the textures the map names without carrying (quake_family.md B.4).
//!
//! Quake miptex index the game palette (`gfx/palette.lmp`); GoldSrc miptex (in the map and in
//! WAD3 files) carry their own. Textures whose name starts with `{` are alpha-tested: palette
//! index 255 is transparent.

use crate::assets::{AlphaMode, AssetOptions, Assets, Missing, MissingKind, Palette, Texture, WadFile};
use crate::branch::Family;
use crate::branches::ops::{Carried, MapTextures, TextureJob};
use crate::bsp::Bsp;
use crate::lumps::miptex::{self, MipTex};

/// Alpha mode of a miptex by its name: `{` textures are masked.
pub fn alpha_of(name: &str) -> AlphaMode {
    if name.starts_with('{') {
        AlphaMode::Mask { cutoff: 0.5 }
    } else {
        AlphaMode::Opaque
    }
}

/// Decode mip 0 of a miptex with its own palette (GoldSrc, WAD3) or `palette` (Quake, WAD2).
pub fn decode(tex: &MipTex, palette: Option<&Palette>, source: String) -> Result<Texture, Missing> {
    let name = tex.name().into_owned();
    let own = tex.palette.map(Palette::from_rgb);
    let pal = own.as_ref().or(palette).ok_or_else(|| {
        Missing::new(
            &name,
            MissingKind::NoPalette,
            "Quake textures need the game palette: pass --palette FILE or a --game-dir holding gfx/palette.lmp",
        )
    })?;
    let px = tex.mip(0).ok_or_else(|| Missing::new(&name, MissingKind::Undecodable, "texture has no pixels"))?;
    let alpha = alpha_of(&name);
    let img = pal.expand(tex.width(), tex.height(), px, alpha != AlphaMode::Opaque).map_err(|e| Missing::from_error(&name, &e))?;
    Ok(Texture::new(name, source, alpha, img, None))
}

/// The WAD file names the worldspawn `wad` key lists (`;`-separated, Windows paths), each once
/// (ignoring case), at most `max` of them; the second value counts the names left out.
pub fn wad_names(bsp: &Bsp, max: u64) -> (Vec<String>, u64) {
    let Ok(ents) = bsp.entities() else { return (Vec::new(), 0) };
    let Some(world) = ents.iter().find(|e| e.classname().as_deref() == Some("worldspawn")) else { return (Vec::new(), 0) };
    let Some(list) = world.get("wad") else { return (Vec::new(), 0) };
    let mut seen = std::collections::HashSet::new();
    let (mut names, mut left) = (Vec::new(), 0u64);
    for s in list.split(';').map(|s| s.trim().replace('\\', "/")).filter(|s| !s.is_empty()) {
        // The search uses the file name only, so two paths to one name are one look-up.
        if !seen.insert(s.rsplit('/').next().unwrap_or(&s).to_ascii_lowercase()) {
            continue;
        }
        if (names.len() as u64) < max {
            names.push(s);
        } else {
            left += 1;
        }
    }
    (names, left)
}

/// The names of every entry of the texture lump, in lump order (missing entries skipped).
pub fn names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    let lump = miptex::of(bsp).map_err(|e| Missing::from_error("(texture lump)", &e))?;
    let Some(lump) = lump else { return Ok(Vec::new()) };
    Ok(lump.iter().filter_map(|t| t.ok().flatten()).map(|t| t.name().into_owned()).collect())
}

/// One entry of the texture lump, as [`entries`] lists them.
#[derive(Debug, Clone)]
pub enum Entry {
    /// Pixels in the map: decode with [`decode_entry`].
    Embedded(usize),
    /// Only the name: the pixels come from a WAD.
    Named(String),
    /// The entry cannot be read.
    Broken(Missing),
}

/// Every entry of the texture lump in order (negative offsets left out).
pub fn entries(bsp: &Bsp) -> Vec<Entry> {
    let lump = match miptex::of(bsp) {
        Ok(Some(l)) => l,
        Ok(None) => return Vec::new(),
        Err(e) => return vec![Entry::Broken(Missing::from_error("(texture lump)", &e))],
    };
    let index = bsp.lump_index("TEXTURES").unwrap_or(miptex_lump_fallback());
    (0..lump.len())
        .filter_map(|i| match lump.get(i) {
            Ok(Some(t)) if t.embedded() => Some(Entry::Embedded(i)),
            Ok(Some(t)) => Some(Entry::Named(t.name().into_owned())),
            Ok(None) => None,
            Err(e) => Some(Entry::Broken(Missing::from_error(format!("(miptex {i})"), &bsp.lump_error(index, e)))),
        })
        .collect()
}

/// Decode embedded entry `i` of the texture lump; failures carry the map file, the lump and
/// the offset.
pub fn decode_entry(bsp: &Bsp, i: usize, palette: Option<&Palette>) -> Result<Texture, Missing> {
    let index = bsp.lump_index("TEXTURES").unwrap_or(miptex_lump_fallback());
    let lump = miptex::of(bsp).map_err(|e| Missing::from_error("(texture lump)", &e))?;
    let lump = lump.ok_or_else(|| Missing::new("(texture lump)", MissingKind::Unsupported, "this map has no miptex lump"))?;
    let t = lump.get(i).map_err(|e| Missing::from_error(format!("(miptex {i})"), &bsp.lump_error(index, e)))?;
    let t = t.ok_or_else(|| Missing::new(format!("(miptex {i})"), MissingKind::NotFound, "entry is marked missing (offset -1)"))?;
    let source = format!("embedded miptex {i} at lump offset {}", t.offset);
    decode(&t, palette, source).map_err(|m| locate(bsp, index, t.offset as u64, m))
}

/// The name and mip-0 texels embedded entry `i` claims, from its header alone: what a texel
/// budget is checked against before the entry is decoded.
pub fn entry_texels(bsp: &Bsp, i: usize) -> Option<(String, u64)> {
    let t = miptex::of(bsp).ok()??.get(i).ok()??;
    t.embedded().then(|| (t.name().into_owned(), t.width() as u64 * t.height() as u64))
}

fn miptex_lump_fallback() -> usize {
    crate::branches::quake1::lumps::LUMP_TEXTURES
}

/// Name the map file, lump and offset in a failure to decode an embedded texture (Genesis3D's
/// embedded textures too).
pub(crate) fn locate(bsp: &Bsp, index: usize, offset: u64, m: Missing) -> Missing {
    let mut m = m;
    if m.entry.is_none() {
        m.entry = bsp.entry(index).map(|e| format!("{} ({})", e.index, e.name));
        m.offset = bsp.entry(index).map(|e| e.offset + offset);
    }
    match bsp.path() {
        Some(p) => m.in_file(p.display().to_string()),
        None => m,
    }
}

/// The embedded texture called `name`, if the map carries its pixels.
pub fn find_embedded(bsp: &Bsp, name: &str, palette: Option<&Palette>) -> Option<Result<Texture, Missing>> {
    let lump = miptex::of(bsp).ok()??;
    let index = bsp.lump_index("TEXTURES").unwrap_or(miptex_lump_fallback());
    let t = lump.iter().filter_map(|t| t.ok().flatten()).find(|t| t.embedded() && t.name().eq_ignore_ascii_case(name))?;
    let source = format!("embedded miptex {} at lump offset {}", t.index, t.offset);
    Some(decode(&t, palette, source).map_err(|m| locate(bsp, index, t.offset as u64, m)))
}

/// The texture `name` from the first WAD holding it.
pub fn from_wads(name: &str, wads: &[WadFile], palette: Option<&Palette>) -> Option<Result<Texture, Missing>> {
    wads.iter().find_map(|w| {
        let e = w.find(name)?;
        let at_file = |m: Missing| m.in_file(w.path.display().to_string());
        let r = match e.miptex_in(w.bytes()) {
            Ok(t) => decode(&t, palette, format!("{}:{}", w.path.display(), e.name)).map_err(at_file),
            Err(err) => Err(Missing::from_error(name, &err.in_file(&w.path))),
        };
        Some(r.map(|mut t| {
            t.name = name.to_string();
            t
        }))
    })
}

/// The Quake 1 / GoldSrc texture lookup ([`crate::branches::ops::FamilyOps::textures`]): the
/// palette (GoldSrc textures carry their own; Quake's and WAD2 entries use this one) and the
/// WADs the worldspawn `wad` key names.
pub struct MiptexLookup<'a> {
    bsp: &'a Bsp<'a>,
    palette: Result<Palette, Missing>,
    wads: Vec<WadFile>,
}

impl<'a> MiptexLookup<'a> {
    pub fn new(bsp: &'a Bsp<'a>, assets: &Assets, options: &AssetOptions, warnings: &mut Vec<Missing>) -> Self {
        let palette = match assets.palette(&["gfx/palette.lmp"]) {
            // No palette given or found: Quake 1 maps use the one that ships with
            // bspkit; Hexen II's palette differs, so its maps still need the game's.
            Err(m) if m.kind == MissingKind::NoPalette && bsp.family() == Family::Quake => {
                if bsp.branch().id == "hexen2" {
                    warnings.push(Missing::new(
                        "(palette)",
                        MissingKind::NoPalette,
                        "Hexen II textures need Hexen II's palette (bspkit ships only Quake's): pass --palette FILE or a --game-dir holding gfx/palette.lmp",
                    ));
                    Err(m)
                } else {
                    Ok(Palette::quake_default())
                }
            }
            other => other,
        };
        let mut wads = Vec::new();
        let map_dir = bsp.path().and_then(|p| p.parent());
        let (names, left) = wad_names(bsp, options.budget.max_lookups);
        if left > 0 {
            let limit = options.budget.max_lookups;
            let e = crate::error::Error::new(crate::error::ErrorKind::LimitExceeded {
                what: crate::assets::BUDGET_LOOKUPS,
                requested: limit + left,
                limit,
            });
            warnings.push(Missing::from_error(format!("(wad key: {left} more names)"), &e));
        }
        let finder = if names.is_empty() { Default::default() } else { assets.wad_finder(map_dir) };
        for name in names {
            match finder.find(&name) {
                Some(p) => match WadFile::open(&p, &assets.fs) {
                    Ok(w) => wads.push(w),
                    Err(e) => warnings.push(Missing::from_error(format!("(wad {name})"), &e)),
                },
                None if !options.wads.is_empty() || !options.game_dirs.is_empty() => warnings.push(Missing::new(
                    format!("(wad {name})"),
                    MissingKind::NotFound,
                    "the worldspawn wad key names it; not found in the --wad or --game-dir directories nor beside the map",
                )),
                None => {}
            }
        }
        MiptexLookup { bsp, palette, wads }
    }

    fn wad_hint(&self, assets: &Assets) -> String {
        let n = self.wads.len() + assets.wads.len();
        if n == 0 {
            "not embedded in the map and no WAD given (--wad FILE|DIR, or --game-dir holding the WADs the worldspawn names)".into()
        } else {
            format!("not embedded in the map nor in any of the {n} WAD(s) searched")
        }
    }
}

impl MapTextures for MiptexLookup<'_> {
    fn resolve(&self, name: &str, assets: &Assets) -> Result<Texture, Missing> {
        let pal = self.palette.as_ref().ok();
        if let Some(t) = find_embedded(self.bsp, name, pal) {
            return t;
        }
        let found = from_wads(name, &self.wads, pal).or_else(|| from_wads(name, &assets.wads, pal));
        found.unwrap_or_else(|| Err(Missing::new(name, MissingKind::NotFound, self.wad_hint(assets))))
    }

    /// Every entry of the texture lump; embedded names are decoded from the map, and a name
    /// repeated is done once.
    fn carried(&self) -> Carried {
        let mut jobs: Vec<TextureJob> = entries(self.bsp)
            .into_iter()
            .map(|e| match e {
                Entry::Embedded(i) => TextureJob::Carried(i),
                Entry::Named(n) => TextureJob::Name(n),
                Entry::Broken(m) => TextureJob::Failed(m),
            })
            .collect();
        let mut seen: Vec<String> = Vec::new();
        jobs.retain(|j| match j {
            TextureJob::Name(n) if seen.iter().any(|s| s.eq_ignore_ascii_case(n)) => false,
            TextureJob::Name(n) => {
                seen.push(n.clone());
                true
            }
            _ => true,
        });
        Carried { jobs, carried_names: Vec::new(), then_names: false }
    }

    fn carried_texels(&self, i: usize) -> Option<(String, u64)> {
        entry_texels(self.bsp, i)
    }

    fn decode_carried(&self, i: usize, _assets: &Assets) -> Result<Texture, Missing> {
        decode_entry(self.bsp, i, self.palette.as_ref().ok())
    }
}
