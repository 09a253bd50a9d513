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
//! Per-family lookups live in `branches::<family>::texture`, set up through the family's
//! [`FamilyOps::textures`](crate::branches::ops::FamilyOps::textures); this module charges
//! the budget around them and names no family.
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

use crate::assets::Assets;
use crate::branches::any;
use crate::branches::ops::{MapTextures, TextureJob};
use crate::bsp::Bsp;

/// Resolves a map's textures; see the module documentation.
pub struct TextureSource<'a> {
    bsp: &'a Bsp<'a>,
    assets: Assets,
    /// The family's part ([`crate::branches::ops::FamilyOps::textures`]).
    state: Box<dyn MapTextures + 'a>,
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
        let state = any::of(bsp.family()).textures(bsp, &assets, options, &mut warnings);
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
        match self.state.names() {
            // Read (Quake 2: with their alpha) when the source was set up.
            Some(names) => Ok(names),
            None => any::of(self.bsp.family()).texture_names(self.bsp),
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

    fn resolve_uncharged(&self, name: &str) -> Result<Texture, Missing> {
        self.state.resolve(name, &self.assets)
    }

    /// Every texture the map carries (embedded miptex, every VTF in a Source pakfile, cube
    /// maps included), then every texture it names that it does not carry, resolved; each
    /// once. Work happens as the iterator is advanced, within the budget.
    pub fn textures(&self) -> impl Iterator<Item = Result<Texture, Missing>> + '_ {
        let carried = self.state.carried();
        let mut jobs = carried.jobs;
        if carried.then_names {
            match self.names() {
                Ok(names) => jobs.extend(
                    names.into_iter().filter(|n| !carried.carried_names.iter().any(|c| c.eq_ignore_ascii_case(n))).map(TextureJob::Name),
                ),
                Err(m) => jobs.push(TextureJob::Failed(m)),
            }
        }
        jobs.into_iter().map(move |j| match j {
            TextureJob::Carried(i) => {
                // Checked against what is left of the texel budget before decoding, from the
                // entry's header: a refused texture costs no decode work.
                if let Some((name, texels)) = self.state.carried_texels(i) {
                    self.assets.fs.check_pixels(texels, texels).map_err(|e| Missing::from_error(&name, &e))?;
                }
                self.charged(self.state.decode_carried(i, &self.assets))
            }
            TextureJob::Name(n) => self.resolve(&n),
            TextureJob::Failed(m) => Err(m),
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
