//! The texture (miptex) lump of Quake 1 and GoldSrc (quake_family.md B.4, open_questions.md D5,
//! quake_facts.md 1.1).
//!
//! ```text
//! i32 count
//! i32 offsets[count]        // from the start of the lump; -1 = missing texture
//! miptex at each offset:    char name[16]; u32 width, height; u32 mip_offsets[4]
//! ```
//!
//! `mip_offsets` are relative to the miptex itself. `mip_offsets[0] == 0` means the pixels are
//! not in the map (they come from a WAD). Level `k` holds `(width >> k) × (height >> k)` palette
//! indices. GoldSrc stores a palette after level 3 (`u16 n; u8 rgb[n][3]`); Quake 1 does not.
//! Every read is bounds-checked against the lump; nothing is allocated by a stored length.

use std::borrow::Cow;

use zerocopy::byteorder::{LittleEndian as LE, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::bytes::{c_str, i32_at, u16_at, Endian};
use crate::error::{Error, Result};

/// The 40-byte header of one texture (quake_family.md B.4).
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned)]
#[repr(C)]
pub struct MipTexHeader {
    pub name: [u8; 16],
    pub width: U32<LE>,
    pub height: U32<LE>,
    pub offsets: [U32<LE>; 4],
}

crate::schema::types::declare_record! {
    /// Quake 64's 44-byte texture header (quakespasm `bspfile.h` `miptex64_t`): Quake's with a
    /// `shift` after the size. The engine reads mip 0 right after this header (not at
    /// `offsets[0]`) and divides the texture coordinates by `2 × shift` when `shift` > 0.
    pub struct MipTex64Header {
        pub name: [u8; 16],
        pub width: U32<LE>,
        pub height: U32<LE>,
        pub shift: U32<LE>,
        pub offsets: [U32<LE>; 4],
    }
}

/// The texture form of a lump: Quake's / GoldSrc's 40-byte header, or Quake 64's 44-byte one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MipForm {
    #[default]
    Quake,
    Quake64,
}

/// Largest palette a GoldSrc texture may carry (quake_family.md B.4).
pub const MAX_PALETTE: usize = 256;

/// The texture lump, parsed lazily: only the count and offset table are validated up front.
#[derive(Debug, Clone, Copy)]
pub struct MipTexLump<'a> {
    data: &'a [u8],
    count: usize,
    /// GoldSrc: each embedded texture is followed by its palette.
    palette: bool,
    /// Quake 64's 44-byte headers.
    form: MipForm,
}

/// One texture of the lump.
#[derive(Debug, Clone, Copy)]
pub struct MipTex<'a> {
    /// Position in the lump's offset table.
    pub index: usize,
    /// Byte offset of the texture from the start of the lump.
    pub offset: usize,
    pub header: &'a MipTexHeader,
    /// The lump from the texture's start on (mip offsets are relative to it).
    data: &'a [u8],
    /// GoldSrc palette, RGB triples (`n × 3` bytes), for embedded textures.
    pub palette: Option<&'a [u8]>,
    /// Quake 64's whole header (its `name`, `width` and `height` are also `header`'s; `header`'s
    /// `offsets` are not meaningful then).
    pub q64: Option<&'a MipTex64Header>,
}

impl<'a> MipTexLump<'a> {
    /// Parse the count and offset table. An empty lump has no textures.
    pub fn parse(data: &'a [u8], palette: bool) -> Result<Self> {
        if data.is_empty() {
            return Ok(MipTexLump { data, count: 0, palette, form: MipForm::Quake });
        }
        let n = i32_at(data, 0, Endian::Little).ok_or_else(|| Error::truncated(4, data.len() as u64).at(0))?;
        // The offset table must fit the lump: a hostile count is an error, not an allocation.
        if n < 0 || 4 + 4 * n as u64 > data.len() as u64 {
            return Err(Error::malformed(format!("texture count {n} does not fit a {}-byte texture lump", data.len())).at(0));
        }
        Ok(MipTexLump { data, count: n as usize, palette, form: MipForm::Quake })
    }

    /// [`MipTexLump::parse`] for textures of form `form` (Quake 64's have no palette).
    pub fn parse_form(data: &'a [u8], palette: bool, form: MipForm) -> Result<Self> {
        Ok(MipTexLump { form, ..Self::parse(data, palette)? })
    }

    /// Number of entries in the offset table (`textures` in bspinfo).
    pub fn len(&self) -> usize {
        self.count
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The lump's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    /// The stored offset of entry `i` (−1 = missing).
    pub fn offset(&self, i: usize) -> Option<i32> {
        if i >= self.count {
            return None;
        }
        i32_at(self.data, 4 + 4 * i, Endian::Little)
    }

    /// Entry `i`: `Ok(None)` for a missing texture (negative offset), an error when the entry
    /// or its pixels lie outside the lump. Errors carry the offset within the lump.
    pub fn get(&self, i: usize) -> Result<Option<MipTex<'a>>> {
        let ofs = self.offset(i).ok_or_else(|| Error::malformed(format!("texture {i} out of range 0..{}", self.count)))?;
        if ofs < 0 {
            return Ok(None);
        }
        match self.form {
            MipForm::Quake => MipTex::parse_at(self.data, i, ofs as usize, self.palette).map(Some),
            MipForm::Quake64 => MipTex::parse_q64_at(self.data, i, ofs as usize).map(Some),
        }
    }

    /// Every entry in order (see [`MipTexLump::get`]).
    pub fn iter(&self) -> impl Iterator<Item = Result<Option<MipTex<'a>>>> + '_ {
        (0..self.count).map(|i| self.get(i))
    }
}

impl<'a> MipTex<'a> {
    /// The texture at byte `ofs` of `lump` (entry `i` of a texture lump, or a WAD entry's bytes
    /// at offset 0). With `palette`, the GoldSrc / WAD3 palette after the mips is read too.
    /// Errors carry the offset within `lump`.
    pub fn parse_at(lump: &'a [u8], i: usize, ofs: usize, palette: bool) -> Result<MipTex<'a>> {
        let data = lump.get(ofs..).unwrap_or(&[]);
        let (header, _) = MipTexHeader::ref_from_prefix(data).map_err(|_| {
            Error::malformed(format!("texture {i} at {ofs}: 40-byte header runs past the {}-byte lump", lump.len())).at(ofs as u64)
        })?;
        let tex = MipTex { index: i, offset: ofs, header, data, palette: None, q64: None };
        if !tex.embedded() {
            return Ok(tex);
        }
        for level in 0..4 {
            let (start, len) = tex.mip_range(level);
            if start.saturating_add(len) > data.len() as u64 {
                return Err(Error::malformed(format!(
                    "texture {i} ({}) mip {level} ({len} bytes at +{start}) runs past the lump",
                    tex.name()
                ))
                .at(ofs as u64));
            }
        }
        if !palette {
            return Ok(tex);
        }
        // GoldSrc: `u16 n` right after the last mip level, then n RGB triples.
        let (start, len) = tex.mip_range(3);
        let at = (start + len) as usize;
        let n = u16_at(data, at, Endian::Little).ok_or_else(|| {
            Error::malformed(format!("texture {i} ({}): palette size missing after the mips", tex.name())).at((ofs + at) as u64)
        })? as usize;
        if n > MAX_PALETTE {
            return Err(
                Error::malformed(format!("texture {i} ({}): palette of {n} colours (at most 256)", tex.name())).at((ofs + at) as u64)
            );
        }
        let pal = data.get(at + 2..at + 2 + 3 * n).ok_or_else(|| {
            Error::malformed(format!("texture {i} ({}): {n}-colour palette runs past the lump", tex.name())).at((ofs + at) as u64)
        })?;
        Ok(MipTex { palette: Some(pal), ..tex })
    }
}

impl<'a> MipTex<'a> {
    /// A Quake 64 texture at byte `ofs` of `lump`: the 44-byte header and mip 0 right after it
    /// (quakespasm reads only that level); errors carry the offset within `lump`.
    pub fn parse_q64_at(lump: &'a [u8], i: usize, ofs: usize) -> Result<MipTex<'a>> {
        let data = lump.get(ofs..).unwrap_or(&[]);
        let short =
            || Error::malformed(format!("texture {i} at {ofs}: 44-byte header runs past the {}-byte lump", lump.len())).at(ofs as u64);
        let (q64, _) = MipTex64Header::ref_from_prefix(data).map_err(|_| short())?;
        let (header, _) = MipTexHeader::ref_from_prefix(data).map_err(|_| short())?;
        let tex = MipTex { index: i, offset: ofs, header, data, palette: None, q64: Some(q64) };
        let (start, len) = tex.mip_range(0);
        if start.saturating_add(len) > data.len() as u64 {
            return Err(
                Error::malformed(format!("texture {i} ({}) mip 0 ({len} bytes at +{start}) runs past the lump", tex.name())).at(ofs as u64)
            );
        }
        Ok(tex)
    }

    /// Quake 64's texture-coordinate shift (`None` for other forms).
    pub fn shift(&self) -> Option<u32> {
        self.q64.map(|h| h.shift.get())
    }

    /// The texture name (up to the first NUL).
    pub fn name(&self) -> Cow<'a, str> {
        c_str(&self.header.name)
    }
    pub fn width(&self) -> u32 {
        self.header.width.get()
    }
    pub fn height(&self) -> u32 {
        self.header.height.get()
    }
    /// Are the pixels stored in the map (rather than in a WAD)?
    pub fn embedded(&self) -> bool {
        self.q64.is_some() || self.header.offsets[0].get() != 0
    }
    /// (start relative to the texture, length) of a mip level, in u64 so nothing overflows.
    fn mip_range(&self, level: usize) -> (u64, u64) {
        let k = level.min(3) as u32;
        let (w, h) = (self.width() as u64 >> k, self.height() as u64 >> k);
        match self.q64 {
            Some(_) => (std::mem::size_of::<MipTex64Header>() as u64, w * h),
            None => (self.header.offsets[level.min(3)].get() as u64, w * h),
        }
    }
    /// The palette indices of mip level 0..=3, for embedded textures (Quake 64: level 0 only).
    pub fn mip(&self, level: usize) -> Option<&'a [u8]> {
        if level > 3 || !self.embedded() || (self.q64.is_some() && level > 0) {
            return None;
        }
        let (start, len) = self.mip_range(level);
        let end = start.checked_add(len)?;
        self.data.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }
}

/// The texture lump of a Quake 1 / GoldSrc map (GoldSrc textures with palettes); `Ok(None)`
/// for other families, whose textures are not miptex.
pub fn of<'a>(bsp: &'a crate::bsp::Bsp) -> Result<Option<MipTexLump<'a>>> {
    use crate::branch::Family;
    let family = bsp.family();
    if !matches!(family, Family::Quake | Family::GoldSrc) {
        return Ok(None);
    }
    let Some(index) = bsp.branch().lump_index("TEXTURES") else { return Ok(None) };
    let data = bsp.lump(index)?;
    MipTexLump::parse_form(data, family == Family::GoldSrc, form_of(bsp.branch().id)).map(Some).map_err(|e| bsp.lump_error(index, e))
}

/// The texture form of a branch (by its id).
pub fn form_of(branch_id: &str) -> MipForm {
    if branch_id == "quake64" {
        MipForm::Quake64
    } else {
        MipForm::Quake
    }
}

/// One row of a texture listing (`bsp miptex`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TextureRow {
    pub index: usize,
    /// Offset from the lump start as stored (−1 = missing).
    pub offset: i64,
    pub name: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Pixels stored in the map (else taken from a WAD).
    pub embedded: bool,
    /// GoldSrc palette size in colours.
    pub palette: Option<usize>,
    /// Why the entry could not be read, if it could not.
    pub error: Option<String>,
}

impl MipTexLump<'_> {
    /// Every entry as a listing row; unreadable entries carry their error instead of failing.
    pub fn rows(&self) -> Vec<TextureRow> {
        (0..self.count)
            .map(|i| {
                let offset = self.offset(i).unwrap_or(-1) as i64;
                let mut row =
                    TextureRow { index: i, offset, name: None, width: None, height: None, embedded: false, palette: None, error: None };
                match self.get(i) {
                    Ok(Some(t)) => {
                        row.name = Some(t.name().into_owned());
                        row.width = Some(t.width());
                        row.height = Some(t.height());
                        row.embedded = t.embedded();
                        row.palette = t.palette.map(|p| p.len() / 3);
                    }
                    Ok(None) => {}
                    Err(e) => row.error = Some(e.to_string()),
                }
                row
            })
            .collect()
    }
}

/// Bytes of one embedded texture: header, four mips and (GoldSrc) the palette with its count
/// and two bytes of padding, as compilers write them (open_questions.md D5).
pub fn encode(name: &str, width: u32, height: u32, pixels: &[u8], palette: Option<&[[u8; 3]]>) -> Vec<u8> {
    let mut name16 = [0u8; 16];
    for (d, s) in name16.iter_mut().take(15).zip(name.bytes()) {
        *d = s;
    }
    let mut offsets = [0u32; 4];
    let mut mips = Vec::new();
    for (k, slot) in offsets.iter_mut().enumerate() {
        *slot = 40 + mips.len() as u32;
        let (w, h) = (width >> k, height >> k);
        // Point-sample the level from level 0 (no filtering needed for a builder).
        for y in 0..h {
            for x in 0..w {
                let src = ((y << k) * width + (x << k)) as usize;
                mips.push(pixels.get(src).copied().unwrap_or(0));
            }
        }
    }
    let header = MipTexHeader {
        name: name16,
        width: U32::new(width),
        height: U32::new(height),
        offsets: [U32::new(offsets[0]), U32::new(offsets[1]), U32::new(offsets[2]), U32::new(offsets[3])],
    };
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(&mips);
    if let Some(pal) = palette {
        out.extend_from_slice(&(pal.len() as u16).to_le_bytes());
        for c in pal {
            out.extend_from_slice(c);
        }
        out.extend_from_slice(&[0, 0]);
    }
    out
}

/// A whole texture lump from encoded textures (`None` = missing entry, offset −1).
pub fn encode_lump(textures: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(textures.len() as i32).to_le_bytes());
    let mut pos = 4 + 4 * textures.len();
    for t in textures {
        let ofs = match t {
            Some(b) => {
                let o = pos as i32;
                pos += b.len();
                o
            }
            None => -1,
        };
        out.extend_from_slice(&ofs.to_le_bytes());
    }
    for b in textures.iter().flatten() {
        out.extend_from_slice(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_40_bytes() {
        // quake_family.md B.4: name 16 + width 4 + height 4 + offsets 16.
        assert_eq!(std::mem::size_of::<MipTexHeader>(), 40);
    }

    #[test]
    fn round_trips_and_bounds() {
        let px: Vec<u8> = (0..16 * 16).map(|i| i as u8).collect();
        let pal = vec![[1u8, 2, 3]; 256];
        let lump = encode_lump(&[Some(encode("wall", 16, 16, &px, None)), None]);
        let l = MipTexLump::parse(&lump, false).unwrap();
        assert_eq!(l.len(), 2);
        let t = l.get(0).unwrap().unwrap();
        assert_eq!((t.name().as_ref(), t.width(), t.height(), t.embedded()), ("wall", 16, 16, true));
        assert_eq!(t.mip(0).unwrap(), &px[..]);
        assert_eq!(t.mip(3).unwrap().len(), 4);
        assert!(l.get(1).unwrap().is_none());
        assert!(l.get(2).is_err());

        let lump = encode_lump(&[Some(encode("wall", 16, 16, &px, Some(&pal)))]);
        let t = MipTexLump::parse(&lump, true).unwrap().get(0).unwrap().unwrap();
        assert_eq!(t.palette.unwrap().len(), 768);
        // Without the palette bytes the GoldSrc reading fails, the Quake reading does not.
        let cut = &lump[..lump.len() - 770];
        assert!(MipTexLump::parse(cut, true).unwrap().get(0).is_err());
        assert!(MipTexLump::parse(cut, false).unwrap().get(0).unwrap().is_some());
    }

    #[test]
    fn hostile_values_are_errors() {
        assert!(MipTexLump::parse(&[0xff, 0xff, 0xff, 0x7f], false).is_err());
        assert!(MipTexLump::parse(&[0xff, 0xff, 0xff, 0xff], false).is_err());
        assert!(MipTexLump::parse(&[1, 0], false).is_err());
        // An offset past the lump, and a huge texture whose mips cannot fit.
        let mut lump = vec![1, 0, 0, 0, 100, 0, 0, 0];
        assert!(MipTexLump::parse(&lump, false).unwrap().get(0).is_err());
        lump = encode_lump(&[Some(encode("big", 8, 8, &[0; 64], None))]);
        lump[8 + 16..8 + 20].copy_from_slice(&u32::MAX.to_le_bytes());
        lump[8 + 20..8 + 24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(MipTexLump::parse(&lump, false).unwrap().get(0).is_err());
    }
}
