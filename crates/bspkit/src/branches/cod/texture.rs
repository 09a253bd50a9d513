//! Call of Duty 4 materials: only their names are read, from the materials lump (72-byte
//! records: a 64-byte name, then flags). The images live in the game's fast files and IWDs,
//! which bspkit does not read, so every one is reported missing as unsupported.

use crate::assets::Missing;
use crate::branches::cod::lumps::LUMP_MATERIALS;
use crate::bsp::Bsp;

/// Material names, once each, in lump order.
pub fn names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    let data = bsp.lump(LUMP_MATERIALS).map_err(|e| Missing::from_error("(materials)", &e))?;
    let mut out: Vec<String> = Vec::new();
    for rec in data.chunks_exact(72) {
        let s = crate::bytes::c_str(&rec[..64]).into_owned();
        if !s.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            out.push(s);
        }
    }
    Ok(out)
}
