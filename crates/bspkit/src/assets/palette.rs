//! 256-colour palettes and palette-indexed images (Quake miptex, WAD2/WAD3 entries, Quake 2
//! `.wal`).
//!
//! A palette comes from a Quake `.lmp` (768 bytes: 256 RGB triples, `gfx/palette.lmp`), from
//! the 256-colour palette at the end of a PCX file (Quake 2's `pics/colormap.pcx`: a `0x0C`
//! byte then 768 bytes), or from the palette a GoldSrc texture carries.
//!
//! One palette ships with the library: [`LIBREQUAKE_LMP`], the Quake 1 palette of the
//! LibreQuake project (<https://github.com/lavenderdotpet/LibreQuake>, `lq1/gfx/palette.lmp` at
//! commit `a4175ee2b6f3cb97f38cfa5c43e4e3b4ba5d341f`), under its BSD 3-clause licence:
//!
//! > Copyright © 2019-2023 Contributors to the LibreQuake project. All rights reserved.
//! > Redistribution and use in source and binary forms, with or without modification, are
//! > permitted provided that the following conditions are met: Redistributions of source code
//! > must retain the above copyright notice, this list of conditions and the following
//! > disclaimer. Redistributions in binary form must reproduce the above copyright notice, this
//! > list of conditions and the following disclaimer in the documentation and/or other
//! > materials provided with the distribution. Neither the name of the LibreQuake project nor
//! > the names of its contributors may be used to endorse or promote products derived from this
//! > software without specific prior written permission.
//! >
//! > THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS “AS IS” AND ANY EXPRESS
//! > OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF
//! > MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE
//! > COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
//! > EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
//! > SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
//! > HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR
//! > TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
//! > SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
//!
//! The file, its licence (`COPYING`) and its origin (`README.md`) are in `src/assets/librequake/`.

use crate::assets::image::ImageRgba;
use crate::error::{Error, Result};

/// The Quake 1 palette shipped with bspkit: LibreQuake's `lq1/gfx/palette.lmp`, BSD 3-clause
/// (see the module documentation for its origin and licence).
pub const LIBREQUAKE_LMP: &[u8; 768] = include_bytes!("librequake/palette.lmp");

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

    /// The Quake 1 palette that ships with bspkit ([`LIBREQUAKE_LMP`]): the default for Quake 1
    /// maps (BSP29, BSP2, 2PSB) when no `--palette` or game directory gives one.
    pub fn quake_default() -> Self {
        Self::from_rgb(LIBREQUAKE_LMP)
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

    #[test]
    fn shipped_quake_palette() {
        // The file as committed: 768 bytes, and the colours the Quake palette is known for
        // (black first, white at 254, the fullbright range's last entry at 255).
        assert_eq!(LIBREQUAKE_LMP.len(), 768);
        let p = Palette::quake_default();
        assert_eq!(p.to_lmp(), LIBREQUAKE_LMP.to_vec());
        assert_eq!(p.0[0], [0, 0, 0]);
        assert_eq!(p.0[1], [15, 15, 15]);
        assert_eq!(p.0[16], [15, 11, 7]);
        assert_eq!(p.0[254], [255, 255, 255]);
        assert_eq!(p.0[255], [159, 91, 83]);
    }
}
