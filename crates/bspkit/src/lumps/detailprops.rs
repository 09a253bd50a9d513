//! Detail props (game lump `dprp`) and their per-style lighting (`dplt` LDR, `dplh` HDR).
//!
//! The seeds give no structures for these (source.md §14.4). The layouts below are those of
//! `public/gamebspfile.h` as published in public Source SDK copies, and vrad's
//! `UnserializeDetailPropLighting` (found with the code search; not in the seeds):
//!
//! ```text
//! dprp: i32 models;  char name[models][128];
//!       i32 sprites; DetailSpriteDictLump_t sprite[sprites];   // 32 bytes: UL, LR, TexUL, TexLR (Vector2D each)
//!       i32 props;   DetailObjectLump_t prop[props];           // 52 bytes
//! dplt/dplh: i32 count; DetailPropLightstylesLump_t[count];    // 5 bytes: ColorRGBExp32 + u8 style
//! ```
//!
//! An empty `dprp` is 12 bytes (three zero counts), which is what every corpus map has and
//! what vbspinfo's "detail props" row reports.

use std::borrow::Cow;

use zerocopy::byteorder::{ByteOrder, F32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::bytes::{c_str, u32_at, Endian};
use crate::error::{Error, Result};

/// `DETAIL_NAME_LENGTH`.
pub const DETAIL_NAME_LEN: usize = 128;

/// A detail sprite's rectangle and texture coordinates (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct DetailSprite<O: ByteOrder> {
    pub upper_left: [F32<O>; 2],
    pub lower_right: [F32<O>; 2],
    pub tex_upper_left: [F32<O>; 2],
    pub tex_lower_right: [F32<O>; 2],
}

/// One detail prop (52 bytes). Older headers name bytes 41–43 padding; newer ones use them
/// for sway amount and shape angle/size.
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
pub struct DetailObject<O: ByteOrder> {
    pub origin: [F32<O>; 3],
    pub angles: [F32<O>; 3],
    /// Index into the model dictionary or the sprite dictionary, by `kind`.
    pub detail_model: U16<O>,
    pub leaf: U16<O>,
    /// `ColorRGBExp32`: r, g, b, signed exponent.
    pub lighting: [u8; 4],
    /// First record in `dplt`/`dplh`.
    pub light_styles: U32<O>,
    pub light_style_count: u8,
    pub sway_amount: u8,
    pub shape_angle: u8,
    pub shape_size: u8,
    pub orientation: u8,
    pub padding2: [u8; 3],
    /// 0 model, 1 sprite (newer headers add shape types).
    pub kind: u8,
    pub padding3: [u8; 3],
    /// Sprite scale.
    pub scale: F32<O>,
}

/// One detail lighting record (5 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned, PartialEq, Eq)]
pub struct DetailLightStyle {
    /// `ColorRGBExp32`.
    pub lighting: [u8; 4],
    pub style: u8,
}

fn count_at(data: &[u8], pos: usize, endian: Endian, what: &str) -> Result<usize> {
    let n = u32_at(data, pos, endian).ok_or_else(|| Error::truncated(pos as u64 + 4, data.len() as u64).at(pos as u64))? as i32;
    if n < 0 {
        return Err(Error::malformed(format!("detail {what} count {n} is negative")).at(pos as u64));
    }
    Ok(n as usize)
}

fn span(data: &[u8], pos: usize, n: usize, size: usize) -> Result<usize> {
    let end = (n as u64).checked_mul(size as u64).and_then(|b| b.checked_add(pos as u64)).unwrap_or(u64::MAX);
    if end > data.len() as u64 {
        return Err(Error::truncated(end, data.len() as u64).at(pos as u64));
    }
    Ok(end as usize)
}

/// A parsed `dprp` game lump.
#[derive(Debug, Clone)]
pub struct DetailProps<'a> {
    data: Cow<'a, [u8]>,
    pub version: u16,
    pub endian: Endian,
    pub model_names: Vec<String>,
    /// Bytes after the props (none in compiler output; kept, not an error).
    pub trailing: usize,
    sprites: (usize, usize),
    props: (usize, usize),
}

impl<'a> DetailProps<'a> {
    pub fn parse(data: Cow<'a, [u8]>, version: u16, endian: Endian) -> Result<Self> {
        let models = count_at(&data, 0, endian, "model")?;
        let models_end = span(&data, 4, models, DETAIL_NAME_LEN)?;
        let model_names = data[4..models_end].chunks_exact(DETAIL_NAME_LEN).map(|n| c_str(n).into_owned()).collect();
        let sprites = count_at(&data, models_end, endian, "sprite")?;
        let sprites_end = span(&data, models_end + 4, sprites, 32)?;
        let props = count_at(&data, sprites_end, endian, "prop")?;
        let props_end = span(&data, sprites_end + 4, props, 52)?;
        Ok(DetailProps {
            trailing: data.len() - props_end,
            version,
            endian,
            model_names,
            sprites: (models_end + 4, sprites_end),
            props: (sprites_end + 4, props_end),
            data,
        })
    }

    /// The sprite dictionary, zero-copy (`O` must be the file's byte order).
    pub fn sprites<O: ByteOrder>(&self) -> &[DetailSprite<O>] {
        <[DetailSprite<O>]>::ref_from_bytes(&self.data[self.sprites.0..self.sprites.1]).unwrap_or(&[])
    }

    /// The props, zero-copy (`O` must be the file's byte order).
    pub fn props<O: ByteOrder>(&self) -> &[DetailObject<O>] {
        <[DetailObject<O>]>::ref_from_bytes(&self.data[self.props.0..self.props.1]).unwrap_or(&[])
    }

    pub fn sprite_count(&self) -> usize {
        (self.sprites.1 - self.sprites.0) / 32
    }
    pub fn prop_count(&self) -> usize {
        (self.props.1 - self.props.0) / 52
    }
}

/// Parse a `dplt` / `dplh` lump into its records (an empty lump has none).
pub fn parse_lighting(data: &[u8], endian: Endian) -> Result<&[DetailLightStyle]> {
    if data.is_empty() {
        return Ok(&[]);
    }
    let n = count_at(data, 0, endian, "lighting")?;
    let end = span(data, 4, n, 5)?;
    Ok(<[DetailLightStyle]>::ref_from_bytes(&data[4..end]).unwrap_or(&[]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::byteorder::{BigEndian, LittleEndian};
    use zerocopy::FromZeros;

    #[test]
    fn record_sizes() {
        // gamebspfile.h layouts (module notes).
        assert_eq!(std::mem::size_of::<DetailSprite<LittleEndian>>(), 32);
        assert_eq!(std::mem::size_of::<DetailObject<LittleEndian>>(), 52);
        assert_eq!(std::mem::size_of::<DetailLightStyle>(), 5);
    }

    #[test]
    fn parse_round_trip_and_hostile_counts() {
        let e = Endian::Big;
        let mut d = e.u32_bytes(1).to_vec();
        let mut name = [0u8; 128];
        name[..8].copy_from_slice(b"grass.md");
        d.extend_from_slice(&name);
        d.extend_from_slice(&e.u32_bytes(0));
        d.extend_from_slice(&e.u32_bytes(2));
        let mut p = DetailObject::<BigEndian>::new_zeroed();
        p.leaf.set(9);
        p.scale.set(2.0);
        d.extend_from_slice(p.as_bytes());
        d.extend_from_slice(p.as_bytes());
        let dp = DetailProps::parse(Cow::Borrowed(&d), 4, e).unwrap();
        assert_eq!((dp.model_names[0].as_str(), dp.sprite_count(), dp.prop_count()), ("grass.md", 0, 2));
        assert_eq!(dp.props::<BigEndian>()[1].leaf.get(), 9);
        let mut bad = d.clone();
        bad[132..136].copy_from_slice(&e.u32_bytes(0x7fff_ffff));
        assert!(DetailProps::parse(Cow::Borrowed(&bad), 4, e).is_err());
        assert!(DetailProps::parse(Cow::Borrowed(&d[..d.len() - 1]), 4, e).is_err());
        d.push(0);
        assert_eq!(DetailProps::parse(Cow::Borrowed(&d), 4, e).unwrap().trailing, 1);
        let mut l = Endian::Little.u32_bytes(2).to_vec();
        l.extend_from_slice(&[1, 2, 3, 4, 0, 5, 6, 7, 8, 1]);
        let recs = parse_lighting(&l, Endian::Little).unwrap();
        assert_eq!(recs[1], DetailLightStyle { lighting: [5, 6, 7, 8], style: 1 });
        assert!(parse_lighting(&l[..8], Endian::Little).is_err());
    }
}
