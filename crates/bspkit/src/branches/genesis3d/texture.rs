//! Genesis3D textures: carried in the level itself. TEXTURES (`GFX_Texture`, 52 bytes) names
//! each texture with its size, the offset of its 8-bit texels in TEXDATA and the index of its
//! own 256-colour palette in PALETTES (768 bytes each). TEXDATA holds four mip levels per
//! texture (w·h, then each quarter); only level 0 is decoded. Texture flags are not read (their
//! meaning is not documented in the level format; every texture is opaque here).

use crate::assets::{AlphaMode, Assets, Missing, MissingKind, Palette, Texture};
use crate::branches::ops::{Carried, MapTextures, TextureJob};
use crate::branches::quake1::texture::locate;
use crate::bsp::Bsp;

use super::lumps::{CHUNK_TEXDATA, CHUNK_TEXTURES};
use super::view::View;

fn view<'a>(bsp: &'a Bsp<'a>) -> Result<View<'a>, Missing> {
    View::new(bsp).map_err(|e| Missing::from_error("(textures)", &e))
}

/// The names in TEXTURES, in chunk order.
pub fn names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    let v = view(bsp)?;
    let textures = v.textures().map_err(|e| Missing::from_error("(textures)", &e))?;
    Ok(textures.iter().map(|t| t.name().into_owned()).collect())
}

/// The texture called `name` (first match, case-insensitive as the engine's lookups are).
pub fn find(bsp: &Bsp, name: &str) -> Option<Result<Texture, Missing>> {
    Some(decode(bsp, index_of(bsp, name)?))
}

/// Texture `i`'s name and level-0 texel count as its TEXTURES entry claims them (before any
/// texel is read): what the texel budget is asked for before [`decode`] allocates. `None` when
/// the entry is missing or its size is not positive (then [`decode`] gives the error).
pub fn entry_texels(bsp: &Bsp, i: usize) -> Option<(String, u64)> {
    let v = View::new(bsp).ok()?;
    let textures = v.textures().ok()?;
    let t = textures.get(i)?;
    let (w, h) = (u64::try_from(t.width.get()).ok()?, u64::try_from(t.height.get()).ok()?);
    Some((t.name().into_owned(), w * h))
}

/// The index in TEXTURES of the texture called `name` (first match, case-insensitive).
pub fn index_of(bsp: &Bsp, name: &str) -> Option<usize> {
    let v = View::new(bsp).ok()?;
    let textures = v.textures().ok()?;
    textures.iter().position(|t| t.name().eq_ignore_ascii_case(name))
}

/// Texture `i` of TEXTURES, level 0, through its palette.
pub fn decode(bsp: &Bsp, i: usize) -> Result<Texture, Missing> {
    let v = view(bsp)?;
    let textures = v.textures().map_err(|e| Missing::from_error(format!("(texture {i})"), &e))?;
    let t = textures.get(i).ok_or_else(|| Missing::new(format!("(texture {i})"), MissingKind::NotFound, "no such entry"))?;
    let name = t.name().into_owned();
    let at = |m: Missing, chunk: usize, offset: u64| locate(bsp, chunk, offset, m);
    let record_offset = (i * std::mem::size_of::<super::records::Texture>()) as u64;
    let (w, h, ofs) = (t.width.get(), t.height.get(), t.offset.get());
    let (Ok(w @ 1..), Ok(h @ 1..), Ok(ofs)) = (u32::try_from(w), u32::try_from(h), u64::try_from(ofs)) else {
        let m = Missing::new(&name, MissingKind::Undecodable, format!("size {w}×{h} is not positive or texel offset {ofs} is negative"));
        return Err(at(m, CHUNK_TEXTURES, record_offset));
    };
    let data = v.tex_data().map_err(|e| Missing::from_error(&name, &e))?;
    if data.is_empty() {
        // "Not all worlds have tex data" (GBSPLib): the level names textures it does not carry.
        return Err(Missing::new(&name, MissingKind::NotFound, "the level has no TEXDATA chunk"));
    }
    let texels = usize::try_from(ofs).ok().and_then(|o| data.get(o..));
    let Some(texels) = texels else {
        let m = Missing::new(&name, MissingKind::Undecodable, format!("texel offset {ofs} is past TEXDATA ({} bytes)", data.len()));
        return Err(at(m, CHUNK_TEXTURES, record_offset));
    };
    let palettes = v.palettes().map_err(|e| Missing::from_error(&name, &e))?;
    let p = t.palette.get();
    let Some(pal) = usize::try_from(p).ok().and_then(|p| palettes.get(p)) else {
        let m = Missing::new(&name, MissingKind::Undecodable, format!("palette {p} is outside PALETTES (count {})", palettes.len()));
        return Err(at(m, CHUNK_TEXTURES, record_offset));
    };
    let pal = Palette::from_rgb(pal.colors.as_flattened());
    let img = pal.expand(w, h, texels, false).map_err(|e| at(Missing::from_error(&name, &e), CHUNK_TEXDATA, ofs))?;
    let source = format!("embedded texture {i} (TEXDATA offset {ofs}, palette {p})");
    Ok(Texture::new(name, source, AlphaMode::Opaque, img, None))
}

/// The Genesis3D texture lookup ([`crate::branches::ops::FamilyOps::textures`]): every
/// texture is carried, one per TEXTURES entry; no name is looked up elsewhere.
pub struct ChunkLookup<'a>(pub &'a Bsp<'a>);

impl MapTextures for ChunkLookup<'_> {
    fn resolve(&self, name: &str, assets: &Assets) -> Result<Texture, Missing> {
        match index_of(self.0, name) {
            Some(i) => {
                // Asked of the texel budget from its TEXTURES entry before its texels are
                // expanded (as embedded miptex are): a refused texture costs no decode work.
                if let Some((name, texels)) = entry_texels(self.0, i) {
                    assets.fs.check_pixels(texels, texels).map_err(|e| Missing::from_error(&name, &e))?;
                }
                decode(self.0, i)
            }
            None => Err(Missing::new(name, MissingKind::NotFound, "not in the level's TEXTURES chunk")),
        }
    }

    fn carried(&self) -> Carried {
        let jobs = match names(self.0) {
            Ok(names) => (0..names.len()).map(TextureJob::Carried).collect(),
            Err(m) => vec![TextureJob::Failed(m)],
        };
        Carried { jobs, carried_names: Vec::new(), then_names: false }
    }

    fn carried_texels(&self, i: usize) -> Option<(String, u64)> {
        entry_texels(self.0, i)
    }

    fn decode_carried(&self, i: usize, _assets: &Assets) -> Result<Texture, Missing> {
        decode(self.0, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_texture_decodes_through_its_palette() {
        let bytes = crate::branches::genesis3d::room::small_level();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        assert_eq!(names(&bsp).unwrap(), ["stone"]);
        // The texture walk carries each TEXTURES entry once.
        let walk = crate::texture::TextureSource::new(&bsp, &Default::default());
        assert_eq!(walk.textures().map(|t| t.unwrap().name).collect::<Vec<_>>(), ["stone"]);
        let t = decode(&bsp, 0).unwrap();
        assert_eq!((t.width(), t.height(), t.alpha), (8, 8, AlphaMode::Opaque));
        // Texel 7 through the room's all-black palette.
        assert!(t.image().pixels.chunks(4).all(|p| p == [0, 0, 0, 255]));
        assert!(find(&bsp, "STONE").unwrap().is_ok());
        assert!(find(&bsp, "marble").is_none());
        let err = decode(&bsp, 1).unwrap_err();
        assert_eq!(err.kind, MissingKind::NotFound);
    }
}
