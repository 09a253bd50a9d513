//! 256-colour palettes and palette-indexed images (Quake miptex, WAD2/WAD3 entries, Quake 2
//! `.wal`).
//!
//! A palette comes from a Quake `.lmp` (768 bytes: 256 RGB triples, `gfx/palette.lmp`), from
//! the 256-colour palette at the end of a PCX file (Quake 2's `pics/colormap.pcx`: a `0x0C`
//! byte then 768 bytes), or from the palette a GoldSrc texture carries.

use crate::assets::image::ImageRgba;
use crate::error::{Error, Result};

/// 256 RGB colours.
#[derive(Clone, PartialEq, Eq)]
pub struct Palette(pub [[u8; 3]; 256]);

impl std::fmt::Debug for Palette {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Palette({:?}..)", &self.0[..2])
    }
}

impl Palette {
    /// RGB triples (up to 256; missing colours are black, as engines load short palettes).
    pub fn from_rgb(rgb: &[u8]) -> Self {
        let mut p = [[0u8; 3]; 256];
        for (c, t) in p.iter_mut().zip(rgb.chunks_exact(3)) {
            c.copy_from_slice(t);
        }
        Palette(p)
    }

    /// A Quake `.lmp` palette: at least 768 bytes (Quake 1 and Hexen II files are exactly 768).
    pub fn from_lmp(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < 768 {
            return Err(Error::malformed(format!("palette .lmp has {} bytes; 768 expected", bytes.len())));
        }
        Ok(Self::from_rgb(&bytes[..768]))
    }

    /// The 256-colour palette at the end of a PCX file (a `0x0C` marker, then 768 bytes).
    pub fn from_pcx(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < 128 + 769 || bytes[0] != 0x0A {
            return Err(Error::malformed("not a PCX file with a 256-colour palette"));
        }
        let at = bytes.len() - 769;
        if bytes[at] != 0x0C {
            return Err(Error::malformed("PCX file has no 256-colour palette (no 0x0C marker 769 bytes from the end)").at(at as u64));
        }
        Ok(Self::from_rgb(&bytes[at + 1..]))
    }

    /// A palette file by its content: PCX when it starts with the PCX magic and is long
    /// enough, else a `.lmp`.
    pub fn from_file_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.first() == Some(&0x0A) && bytes.len() > 768 + 128 && bytes.len() != 768 {
            return Self::from_pcx(bytes);
        }
        Self::from_lmp(bytes)
    }

    /// The 768 bytes of a `.lmp`.
    pub fn to_lmp(&self) -> Vec<u8> {
        self.0.iter().flatten().copied().collect()
    }

    /// Expand palette indices to RGBA. With `transparent_255`, index 255 becomes transparent
    /// black (Quake `{` textures, GoldSrc `{` textures).
    pub fn expand(&self, width: u32, height: u32, indices: &[u8], transparent_255: bool) -> Result<ImageRgba> {
        let n = crate::assets::image::image_bytes(width, height, 1)?;
        let src = indices.get(..n).ok_or_else(|| Error::truncated(n as u64, indices.len() as u64))?;
        let mut pixels = Vec::with_capacity(n * 4);
        for &i in src {
            if transparent_255 && i == 255 {
                pixels.extend_from_slice(&[0, 0, 0, 0]);
            } else {
                let [r, g, b] = self.0[i as usize];
                pixels.extend_from_slice(&[r, g, b, 255]);
            }
        }
        ImageRgba::new(width, height, pixels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lmp_pcx_and_expand() {
        let rgb: Vec<u8> = (0..768).map(|i| (i % 251) as u8).collect();
        let p = Palette::from_lmp(&rgb).unwrap();
        assert_eq!(p.to_lmp(), rgb);
        assert!(Palette::from_lmp(&rgb[..767]).is_err());
        let mut pcx = vec![0x0A];
        pcx.resize(200, 0);
        pcx.push(0x0C);
        pcx.extend_from_slice(&rgb);
        assert_eq!(Palette::from_file_bytes(&pcx).unwrap(), p);
        let n = pcx.len();
        pcx[n - 769] = 0;
        assert!(Palette::from_pcx(&pcx).is_err());
        assert_eq!(Palette::from_file_bytes(&rgb).unwrap(), p);

        let img = p.expand(2, 1, &[1, 255], true).unwrap();
        assert_eq!(img.pixels, vec![3, 4, 5, 255, 0, 0, 0, 0]);
        let img = p.expand(2, 1, &[1, 255], false).unwrap();
        assert_eq!(&img.pixels[4..], &[p.0[255][0], p.0[255][1], p.0[255][2], 255]);
        assert!(p.expand(2, 2, &[0; 3], false).is_err());
    }
}
