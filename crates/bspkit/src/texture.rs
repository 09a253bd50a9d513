//! The textures of a map, for every family: the ones it carries (embedded miptex, every VTF
//! in a Source pakfile) and the ones it names, found in game directories, archives and WADs,
//! decoded to 8-bit RGBA (plus floats for HDR sources) with an alpha mode.
//!
//! [`TextureSource`] is configured once per map with [`TextureOptions`] (`--game-dir`,
//! `--wad`, `--palette`, a [`Budget`]); [`TextureSource::resolve`] finds one texture by the
//! name the map uses and [`TextureSource::textures`] walks every texture the map carries or
//! names. Nothing fails as a whole: a texture that is missing or cannot be decoded is a
//! [`Missing`] naming the file, entry/lump and offset, and the caller shows a placeholder
//! ([`ImageRgba::checker`]).
//!
//! | family | carried | named → looked up as | palette |
//! |---|---|---|---|
//! | Quake 1 | embedded miptex | WAD2 entries (`--wad`, worldspawn `wad`) | `--palette`, `gfx/palette.lmp`, else the shipped [`Palette::quake_default`] (not for Hexen II) |
//! | GoldSrc | embedded miptex (own palette) | WAD3 entries | in the texture |
//! | Quake 2 | — | `textures/<name>.wal` (or `.png`/`.tga`/`.jpg`) | `--palette` or `pics/colormap.pcx` |
//! | Quake 3 | — | shader script image, else `<name>.tga/.png/.jpg` | — |
//! | Source | every pakfile `.vtf` | `materials/<name>.vmt` → `$basetexture` → `.vtf` | — |
//! | Genesis3D | every TEXTURES entry (8-bit texels in TEXDATA) | — | its own, in PALETTES |
//! | Respawn, CoD4 | — | names only (reported unsupported) | — |
//!
//! Per-family lookups live in `branches::<family>::texture`; this module is the one place
//! that dispatches on the family.
//!
//! ```
//! use bspkit::texture::{TextureOptions, TextureSource};
//! # fn main() -> Result<(), bspkit::Error> {
//! let bytes = bspkit::build::sample_quake1();
//! let bsp = bspkit::Bsp::from_bytes(&bytes)?;
//! // With no palette given, Quake 1 maps use the palette that ships with bspkit
//! // (LibreQuake's); Hexen II and Quake 2 maps report one NoPalette warning.
//! let src = TextureSource::new(&bsp, &TextureOptions::default());
//! for t in src.textures() {
//!     match t {
//!         Ok(tex) => println!("{} {}x{} {:?}", tex.name, tex.width(), tex.height(), tex.alpha),
//!         Err(missing) => eprintln!("warning: {missing}"),
//!     }
//! }
//! # Ok(()) }
//! ```

pub use crate::assets::{
    AlphaMode, AssetOptions as TextureOptions, Budget, BudgetUse, ImageF32, ImageRgba, Layer, Missing, MissingKind, Palette, Texture,
};

use crate::assets::{Assets, WadFile};
use crate::branch::Family;
use crate::branches::{any, genesis3d, quake1, quake2, quake3, source};
use crate::bsp::Bsp;
use crate::lumps::pakfile::Pakfile;

/// What each family needs besides the search path, set up once per map.
enum State<'a> {
    Quake { palette: Result<Palette, Missing>, wads: Vec<WadFile> },
    Quake2 { palette: Result<Palette, Missing>, names: Vec<(String, AlphaMode)> },
    Quake3 { shaders: quake3::texture::ShaderIndex },
    Source { pak: Option<Pakfile<'a>> },
    Genesis3D,
    NamesOnly,
}

/// One step of [`TextureSource::textures`].
enum Job {
    Embedded(usize),
    PakVtf(usize),
    Genesis3D(usize),
    Name(String),
    Failed(Missing),
}

/// Resolves a map's textures; see the module documentation.
pub struct TextureSource<'a> {
    bsp: &'a Bsp<'a>,
    assets: Assets,
    state: State<'a>,
    warnings: Vec<Missing>,
}

impl<'a> TextureSource<'a> {
    /// Set up the search for `bsp`'s textures: game directories and their archives, WADs
    /// (`--wad` and, for Quake/GoldSrc, those the worldspawn `wad` key names), the palette,
    /// Quake 3 shader scripts, the Source pakfile. Never fails: problems become
    /// [`TextureSource::warnings`].
    pub fn new(bsp: &'a Bsp<'a>, options: &TextureOptions) -> Self {
        let assets = Assets::open(options);
        let mut warnings = assets.warnings.clone();
        let state = match bsp.family() {
            Family::Quake | Family::GoldSrc => {
                // GoldSrc textures carry their own palettes; Quake's (and WAD2 entries) use this.
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
                let (names, left) = quake1::texture::wad_names(bsp, options.budget.max_lookups);
                if left > 0 {
                    let limit = options.budget.max_lookups;
                    let e = crate::Error::new(crate::ErrorKind::LimitExceeded {
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
                State::Quake { palette, wads }
            }
            Family::Quake2 => {
                let names = quake2::texture::names(bsp).unwrap_or_else(|m| {
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
                State::Quake2 { palette, names }
            }
            Family::Quake3 => {
                let shaders = quake3::texture::shader_index(&assets);
                warnings.extend(shaders.warnings.iter().cloned());
                State::Quake3 { shaders }
            }
            Family::Source => State::Source {
                pak: source::texture::pakfile(bsp).unwrap_or_else(|m| {
                    warnings.push(m);
                    None
                }),
            },
            Family::Genesis3D => State::Genesis3D,
            Family::Respawn | Family::Cod | Family::Nightfire => State::NamesOnly,
        };
        TextureSource { bsp, assets, state, warnings }
    }

    /// Problems met while setting up (unreadable archives, WADs named by the map but not
    /// found, a bad palette file, unreadable shader scripts).
    pub fn warnings(&self) -> &[Missing] {
        &self.warnings
    }

    /// What has been read so far against the [`Budget`].
    pub fn used(&self) -> BudgetUse {
        self.assets.fs.used()
    }

    /// The texture / material names the map uses, once each, in the map's order.
    pub fn names(&self) -> Result<Vec<String>, Missing> {
        match &self.state {
            // Quake 2's names were read (with their alpha) when the source was set up.
            State::Quake2 { names, .. } => Ok(names.iter().map(|(n, _)| n.clone()).collect()),
            _ => any::of(self.bsp.family()).texture_names(self.bsp),
        }
    }

    /// The texture the map calls `name` (miptex name, Quake 2/3 texture or shader path,
    /// Source material name), from wherever it is found first.
    pub fn resolve(&self, name: &str) -> Result<Texture, Missing> {
        self.charged(self.resolve_uncharged(name))
    }

    /// A decoded texture's texels taken from the command's texel budget ([`Budget::max_pixels`]):
    /// past it the texture is a [`MissingKind::Budget`] miss, like the read budget.
    fn charged(&self, r: Result<Texture, Missing>) -> Result<Texture, Missing> {
        let t = r?;
        let texels: u64 = t.layers().iter().map(|l| l.rgba.width as u64 * l.rgba.height as u64).sum();
        self.assets.fs.charge_pixels(texels).map_err(|e| Missing::from_error(&t.name, &e))?;
        Ok(t)
    }

    /// Genesis3D texture `i`, asked of the texel budget from its TEXTURES entry before its
    /// texels are expanded (as embedded miptex are): a refused texture costs no decode work.
    fn genesis3d(&self, i: usize) -> Result<Texture, Missing> {
        if let Some((name, texels)) = genesis3d::texture::entry_texels(self.bsp, i) {
            self.assets.fs.check_pixels(texels, texels).map_err(|e| Missing::from_error(&name, &e))?;
        }
        genesis3d::texture::decode(self.bsp, i)
    }

    fn resolve_uncharged(&self, name: &str) -> Result<Texture, Missing> {
        let bsp = self.bsp;
        match &self.state {
            State::Quake { palette, wads } => {
                let pal = palette.as_ref().ok();
                if let Some(t) = quake1::texture::find_embedded(bsp, name, pal) {
                    return t;
                }
                let found =
                    quake1::texture::from_wads(name, wads, pal).or_else(|| quake1::texture::from_wads(name, &self.assets.wads, pal));
                found.unwrap_or_else(|| Err(Missing::new(name, MissingKind::NotFound, self.wad_hint(wads.len()))))
            }
            State::Quake2 { palette, names } => {
                let alpha = names.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map_or(AlphaMode::Opaque, |(_, a)| *a);
                quake2::texture::load(name, alpha, &self.assets, palette)
            }
            State::Quake3 { shaders } => quake3::texture::load(name, &self.assets, shaders),
            State::Source { pak } => source::texture::load(name, bsp, pak.as_ref(), &self.assets),
            State::Genesis3D => match genesis3d::texture::index_of(bsp, name) {
                Some(i) => self.genesis3d(i),
                None => Err(Missing::new(name, MissingKind::NotFound, "not in the level's TEXTURES chunk")),
            },
            State::NamesOnly => Err(Missing::new(
                name,
                MissingKind::Unsupported,
                format!("{} textures are kept in the game's own archives, which bspkit does not read", bsp.branch().title),
            )),
        }
    }

    fn wad_hint(&self, map_wads: usize) -> String {
        let n = map_wads + self.assets.wads.len();
        if n == 0 {
            "not embedded in the map and no WAD given (--wad FILE|DIR, or --game-dir holding the WADs the worldspawn names)".into()
        } else {
            format!("not embedded in the map nor in any of the {n} WAD(s) searched")
        }
    }

    /// Every texture the map carries (embedded miptex, every VTF in a Source pakfile, cube
    /// maps included), then every texture it names that it does not carry, resolved; each
    /// once. Work happens as the iterator is advanced, within the budget.
    pub fn textures(&self) -> impl Iterator<Item = Result<Texture, Missing>> + '_ {
        let mut jobs = Vec::new();
        let mut carried_names: Vec<String> = Vec::new();
        match &self.state {
            State::Quake { .. } => {
                for e in quake1::texture::entries(self.bsp) {
                    match e {
                        quake1::texture::Entry::Embedded(i) => jobs.push(Job::Embedded(i)),
                        quake1::texture::Entry::Named(n) => jobs.push(Job::Name(n)),
                        quake1::texture::Entry::Broken(m) => jobs.push(Job::Failed(m)),
                    }
                }
                // Embedded names are decoded from the map; a name repeated is done once.
                let mut seen: Vec<String> = Vec::new();
                jobs.retain(|j| match j {
                    Job::Name(n) if seen.iter().any(|s| s.eq_ignore_ascii_case(n)) => false,
                    Job::Name(n) => {
                        seen.push(n.clone());
                        true
                    }
                    _ => true,
                });
            }
            // Every texture is carried: one job per TEXTURES entry, no names looked up below.
            State::Genesis3D => match genesis3d::texture::names(self.bsp) {
                Ok(names) => jobs.extend((0..names.len()).map(Job::Genesis3D)),
                Err(m) => jobs.push(Job::Failed(m)),
            },
            State::Source { pak: Some(pak) } => {
                for i in source::texture::vtf_entries(pak) {
                    carried_names.push(pak.entries[i].name.clone());
                    jobs.push(Job::PakVtf(i));
                }
            }
            _ => {}
        }
        if !matches!(self.state, State::Quake { .. } | State::Genesis3D) {
            match self.names() {
                Ok(names) => {
                    jobs.extend(names.into_iter().filter(|n| !carried_names.iter().any(|c| c.eq_ignore_ascii_case(n))).map(Job::Name))
                }
                Err(m) => jobs.push(Job::Failed(m)),
            }
        }
        jobs.into_iter().map(move |j| match j {
            Job::Embedded(i) => {
                let pal = match &self.state {
                    State::Quake { palette, .. } => palette.as_ref().ok(),
                    _ => None,
                };
                // Checked against what is left of the texel budget before decoding, from the
                // entry's header: a refused texture costs no decode work.
                if let Some((name, texels)) = quake1::texture::entry_texels(self.bsp, i) {
                    self.assets.fs.check_pixels(texels, texels).map_err(|e| Missing::from_error(&name, &e))?;
                }
                self.charged(quake1::texture::decode_entry(self.bsp, i, pal))
            }
            Job::PakVtf(i) => match &self.state {
                State::Source { pak: Some(pak) } => self.charged(source::texture::decode_pak_vtf(self.bsp, pak, i, &self.assets)),
                _ => Err(Missing::new(format!("(pakfile entry {i})"), MissingKind::NotFound, "no pakfile")),
            },
            Job::Genesis3D(i) => self.charged(self.genesis3d(i)),
            Job::Name(n) => self.resolve(&n),
            Job::Failed(m) => Err(m),
        })
    }
}

/// A [`TextureSource`] that resolves each name once: the exporter and the renderer ask for one
/// texture several times (its size for the UVs, then its pixels), and a lookup may read and
/// decode files from archives.
pub struct TextureCache<'a> {
    /// The source the names are resolved from.
    pub source: TextureSource<'a>,
    found: std::cell::RefCell<std::collections::HashMap<String, Result<std::rc::Rc<Texture>, Missing>>>,
    /// The names that could not be produced, in the order they were first asked for.
    misses: std::cell::RefCell<Vec<Missing>>,
    /// Sizes of the textures handed over by [`TextureCache::take`].
    sizes: std::cell::RefCell<std::collections::HashMap<String, [u32; 2]>>,
}

impl<'a> TextureCache<'a> {
    pub fn new(source: TextureSource<'a>) -> Self {
        TextureCache { source, found: Default::default(), misses: Default::default(), sizes: Default::default() }
    }
    /// The texture `name` ([`TextureSource::resolve`] on the first call, remembered after).
    pub fn get(&self, name: &str) -> Result<std::rc::Rc<Texture>, Missing> {
        if let Some(r) = self.found.borrow().get(name) {
            return r.clone();
        }
        let r = self.source.resolve(name).map(std::rc::Rc::new);
        if let Err(m) = &r {
            self.misses.borrow_mut().push(m.clone());
        }
        self.found.borrow_mut().insert(name.to_owned(), r.clone());
        r
    }
    /// The size of texture `name` in texels, when it is found.
    pub fn size(&self, name: &str) -> Option<[u32; 2]> {
        if let Some(&s) = self.sizes.borrow().get(name) {
            return Some(s);
        }
        self.get(name).ok().map(|t| [t.width(), t.height()])
    }
    /// The texture `name` for its last use: like [`TextureCache::get`], but the cache lets go of
    /// the pixels (it keeps the size for [`TextureCache::size`]), so a caller that encodes each
    /// texture once holds one decoded image at a time. A later `get` resolves the name again.
    pub fn take(&self, name: &str) -> Result<std::rc::Rc<Texture>, Missing> {
        let r = self.get(name);
        if let Ok(t) = &r {
            self.sizes.borrow_mut().insert(name.to_owned(), [t.width(), t.height()]);
            self.found.borrow_mut().remove(name);
        }
        r
    }
    /// Every texture asked for that could not be produced, each once, in the order first asked.
    pub fn misses(&self) -> Vec<Missing> {
        self.misses.borrow().clone()
    }
}

/// The texture / material names `bsp` uses, once each in the map's order, read from the map
/// alone (no game files): what [`TextureSource::names`] gives, without setting up a source.
pub fn map_texture_names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    any::of(bsp.family()).texture_names(bsp)
}
