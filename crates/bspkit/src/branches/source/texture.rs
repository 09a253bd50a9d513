//! Source textures: material names from the texdata string table (source.md §10.3–§10.4),
//! resolved `materials/<name>.vmt` → `$basetexture` → `materials/<texture>.vtf`, each file
//! looked up in the map's pakfile first (source.md §16), then in the game directories and
//! their VPK archives. `patch` materials (which VBSP writes for cube-mapped surfaces) are
//! resolved through their `include`.
//!
//! A map also carries textures it does not name: every `.vtf` in the pakfile (cube maps, the
//! default cube map, HDR versions) is decoded by [`decode_pak_vtf`] (see [`vtf_entries`]).

use zerocopy::byteorder::ByteOrder;
use zerocopy::{BigEndian, LittleEndian};

use crate::assets::vmt::Vmt;
use crate::assets::vtf::Vtf;
use crate::assets::{Assets, Missing, MissingKind, Texture};
use crate::branches::ops::{Carried, MapTextures, TextureJob};
use crate::branches::source::view::View;
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::lumps::pakfile::{Pakfile, LUMP_PAKFILE};

/// How many `patch` includes are followed before giving up (cycles, hostile chains).
const MAX_INCLUDES: usize = 8;

fn names_as<O: ByteOrder>(bsp: &Bsp) -> crate::error::Result<Vec<String>> {
    let v = View::<O>::new(bsp)?;
    let n = v.texdata()?.len();
    let mut out: Vec<String> = Vec::new();
    for i in 0..n {
        if let Some(name) = v.texdata_name(i)? {
            if !out.iter().any(|o| o.eq_ignore_ascii_case(name)) {
                out.push(name.to_string());
            }
        }
    }
    Ok(out)
}

/// The material names of the texdata lump, once each, in texdata order.
pub fn names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    let r = match bsp.endian() {
        Endian::Little => names_as::<LittleEndian>(bsp),
        Endian::Big => names_as::<BigEndian>(bsp),
    };
    r.map_err(|e| Missing::from_error("(texdata)", &e))
}

/// The map's pakfile, parsed (`None` when the lump is empty).
pub fn pakfile<'a>(bsp: &'a Bsp) -> Result<Option<Pakfile<'a>>, Missing> {
    let data = bsp.lump(LUMP_PAKFILE).map_err(|e| Missing::from_error("(pakfile)", &e))?;
    if data.is_empty() {
        return Ok(None);
    }
    Pakfile::parse(data).map(Some).map_err(|e| Missing::from_error("(pakfile)", &bsp.lump_error(LUMP_PAKFILE, e)))
}

/// A file from the pakfile, else from the search path: (bytes, origin for messages).
fn read(path: &str, bsp: &Bsp, pak: Option<&Pakfile>, assets: &Assets, who: &str) -> Result<Option<(Vec<u8>, String)>, Missing> {
    if let Some(e) = pak.and_then(|p| p.find(path)) {
        let pak = pak.expect("entry came from the pakfile");
        assets.fs.charge(e.size).map_err(|err| Missing::from_error(who, &err))?;
        let data = pak.read(e, assets.fs.budget().max_file).map_err(|err| Missing::from_error(who, &bsp.lump_error(LUMP_PAKFILE, err)))?;
        return Ok(Some((data, format!("pakfile {}", e.name))));
    }
    match assets.fs.read(path) {
        Ok(Some(a)) => {
            let origin = a.origin();
            Ok(Some((a.data, origin)))
        }
        Ok(None) => Ok(None),
        Err(e) => Err(Missing::from_error(who, &e)),
    }
}

/// Decode every image of a VTF (mip 0 of each frame, face and slice); the texels it claims
/// are checked against the command's texel budget before any is decoded.
pub fn decode_vtf(
    name: &str,
    data: &[u8],
    origin: &str,
    alpha: crate::assets::AlphaMode,
    max: u64,
    fs: &crate::assets::AssetFs,
) -> Result<Texture, Missing> {
    let fail = |e: crate::error::Error| {
        let mut m = Missing::from_error(name, &e);
        m.file = Some(origin.to_string());
        m
    };
    let vtf = Vtf::parse(data, max).map_err(fail)?;
    let (total, one) = vtf.layer_pixels();
    fs.check_pixels(total, one).map_err(fail)?;
    let layers = vtf.layers().map_err(fail)?;
    Texture::with_layers(name, origin, alpha, layers)
        .ok_or_else(|| Missing::new(name, MissingKind::Undecodable, "VTF has no images").in_file(origin))
}

/// Indices (into `pak.entries`) of every `.vtf` in the pakfile: textures the map carries
/// without naming them (cube maps, the default cube map, their HDR versions).
pub fn vtf_entries(pak: &Pakfile) -> Vec<usize> {
    pak.entries.iter().enumerate().filter(|(_, e)| !e.is_dir() && e.name.to_ascii_lowercase().ends_with(".vtf")).map(|(i, _)| i).collect()
}

/// Decode pakfile entry `i` as a VTF, named by its entry path.
pub fn decode_pak_vtf(bsp: &Bsp, pak: &Pakfile, i: usize, assets: &Assets) -> Result<Texture, Missing> {
    let max = assets.fs.budget().max_file;
    let e =
        pak.entries.get(i).ok_or_else(|| Missing::new(format!("(pakfile entry {i})"), MissingKind::NotFound, "no such pakfile entry"))?;
    let data = assets
        .fs
        .charge(e.size)
        .and_then(|_| pak.read(e, max))
        .map_err(|err| Missing::from_error(&e.name, &bsp.lump_error(LUMP_PAKFILE, err)))?;
    let origin = format!("{}: pakfile {}", bsp.display_name(), e.name);
    decode_vtf(&e.name, &data, &origin, crate::assets::AlphaMode::Opaque, max.saturating_mul(8), &assets.fs)
}

/// Resolve material `name` (as the texdata names it) to its base texture.
pub fn load(name: &str, bsp: &Bsp, pak: Option<&Pakfile>, assets: &Assets) -> Result<Texture, Missing> {
    let norm = name.replace('\\', "/");
    let norm = norm.trim_start_matches('/');
    let norm = norm.strip_suffix(".vmt").unwrap_or(norm);
    let mut path = format!("materials/{norm}.vmt");
    let mut chain: Vec<Vmt> = Vec::new();
    let vmt = loop {
        let Some((data, origin)) = read(&path, bsp, pak, assets, name)? else {
            if chain.is_empty() {
                // No material: a texture of the same name is still worth showing.
                let vtf_path = format!("materials/{norm}.vtf");
                if let Some((data, origin)) = read(&vtf_path, bsp, pak, assets, name)? {
                    return decode_vtf(
                        name,
                        &data,
                        &origin,
                        crate::assets::AlphaMode::Opaque,
                        assets.fs.budget().max_file.saturating_mul(8),
                        &assets.fs,
                    );
                }
                return Err(Missing::new(name, MissingKind::NotFound, format!("no {path} in the pakfile or the game directories")));
            }
            return Err(Missing::new(name, MissingKind::NotFound, format!("patch material includes {path}, which was not found")));
        };
        let v = Vmt::parse(&data).map_err(|e| Missing::from_error(name, &e).in_file(origin))?;
        if !v.is_patch() {
            // Apply the patches read so far, innermost first.
            break chain.iter().rev().fold(v, |base, patch| patch.apply_patch(&base));
        }
        if chain.len() >= MAX_INCLUDES {
            return Err(Missing::new(name, MissingKind::Undecodable, format!("more than {MAX_INCLUDES} nested patch includes")));
        }
        let include = v
            .get("include")
            .map(str::to_string)
            .ok_or_else(|| Missing::new(name, MissingKind::Undecodable, "patch material without include"))?;
        chain.push(v);
        let inc = include.replace('\\', "/");
        path = if inc.to_ascii_lowercase().starts_with("materials/") { inc } else { format!("materials/{inc}") };
    };
    let Some(tex) = vmt.base_texture_path() else {
        return Err(Missing::new(name, MissingKind::Unsupported, format!("material (shader {}) has no $basetexture", vmt.shader)));
    };
    let Some((data, origin)) = read(&tex, bsp, pak, assets, name)? else {
        return Err(Missing::new(
            name,
            MissingKind::NotFound,
            format!("$basetexture {tex} not found in the pakfile or the game directories"),
        ));
    };
    decode_vtf(name, &data, &origin, vmt.alpha_mode(), assets.fs.budget().max_file.saturating_mul(8), &assets.fs)
}

/// The Source texture lookup ([`crate::branches::ops::FamilyOps::textures`]): the pakfile,
/// whose every `.vtf` the map carries, and the materials looked up in it first.
pub struct MaterialLookup<'a> {
    bsp: &'a Bsp<'a>,
    pak: Option<Pakfile<'a>>,
}

impl<'a> MaterialLookup<'a> {
    pub fn new(bsp: &'a Bsp<'a>, warnings: &mut Vec<Missing>) -> Self {
        let pak = pakfile(bsp).unwrap_or_else(|m| {
            warnings.push(m);
            None
        });
        MaterialLookup { bsp, pak }
    }
}

impl MapTextures for MaterialLookup<'_> {
    fn resolve(&self, name: &str, assets: &Assets) -> Result<Texture, Missing> {
        load(name, self.bsp, self.pak.as_ref(), assets)
    }

    /// Every `.vtf` in the pakfile (cube maps included), then the names it does not carry.
    fn carried(&self) -> Carried {
        let mut c = Carried { jobs: Vec::new(), carried_names: Vec::new(), then_names: true };
        if let Some(pak) = &self.pak {
            for i in vtf_entries(pak) {
                c.carried_names.push(pak.entries[i].name.clone());
                c.jobs.push(TextureJob::Carried(i));
            }
        }
        c
    }

    fn decode_carried(&self, i: usize, assets: &Assets) -> Result<Texture, Missing> {
        match &self.pak {
            Some(pak) => decode_pak_vtf(self.bsp, pak, i, assets),
            None => Err(Missing::new(format!("(pakfile entry {i})"), MissingKind::NotFound, "no pakfile")),
        }
    }
}
