//! Respawn (Titanfall, Apex) materials: only their names are read, from the texture-data
//! string lump (NUL-separated). The textures themselves live in RPak archives, which bspkit
//! does not read, so every one is reported missing as unsupported.

use crate::assets::Missing;
use crate::branches::respawn::lumps::LUMP_TEXTURE_DATA_STRING_DATA;
use crate::bsp::Bsp;

/// Material names, once each, in lump order.
pub fn names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    let data = bsp.lump(LUMP_TEXTURE_DATA_STRING_DATA).map_err(|e| Missing::from_error("(texture data strings)", &e))?;
    let mut out: Vec<String> = Vec::new();
    for s in data.split(|&b| b == 0).filter(|s| !s.is_empty()) {
        let s = String::from_utf8_lossy(s).into_owned();
        if !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            out.push(s);
        }
    }
    Ok(out)
}
