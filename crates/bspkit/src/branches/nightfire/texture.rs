//! Nightfire texture names: read from TEXTURES (64-byte names). The images are the game's own
//! files, which bspkit does not read, so every texture is reported missing as unsupported.

use super::lumps::TEXTURES;
use super::records::Name64;
use crate::assets::Missing;
use crate::bsp::Bsp;

/// Texture names, once each, in lump order.
pub fn names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    let list = bsp.records::<Name64>(TEXTURES).map_err(|e| Missing::from_error("(textures)", &e))?;
    let mut out: Vec<String> = Vec::new();
    for t in list {
        let s = t.name().into_owned();
        if !s.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            out.push(s);
        }
    }
    Ok(out)
}
