//! External lumps beside a map: Valve `<map>_l_<n>.lmp` (20-byte header, bsp_tool_notes.md §4.1)
//! and Respawn `<map>.bsp.<xxxx>.bsp_lump` (no header, §4.2).

use std::path::Path;

use crate::branch::{Branch, Family, HeaderKind};
use crate::directory::LumpOrigin;
use crate::error::{Error, Result};

/// Default budget for the external lumps of one map, all files together (1 GiB): a larger total
/// is an error, not an allocation ([`crate::OpenOptions::max_external`]).
pub const DEFAULT_MAX_EXTERNAL: u64 = 1 << 30;

/// Read one sibling: a regular file only (a FIFO or a link to a device is refused, never read),
/// within what is left of the map's budget.
fn read_capped(path: &std::path::Path, left: &mut u64) -> Result<Vec<u8>> {
    let bytes = crate::fsio::read_regular(path, *left, "external lump files of the map (total bytes)")?;
    *left -= bytes.len() as u64;
    Ok(bytes)
}

/// One lump read from a file beside the map: its directory index, bytes and origin.
pub(crate) type Sibling = (usize, Vec<u8>, LumpOrigin);

/// Read the sibling files of the map at `path` (of `branch`, whose directory has the lump
/// indices `indices`). `Bsp::open` puts them in place of the lumps inside the map.
pub(crate) fn load_siblings(path: &Path, branch: &Branch, indices: &[usize], budget: u64) -> Result<Vec<Sibling>> {
    let mut out = Vec::new();
    let mut left = budget;
    match (branch.family, branch.header) {
        (Family::Respawn, HeaderKind::Respawn) => {
            let indices = indices.iter().copied();
            let base = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
            for index in indices {
                // Apex also names some `….bsp_lump.client` (respawn_cod_facts.md §1.3).
                let names = [
                    format!("{base}.{index:04x}.bsp_lump"),
                    format!("{base}.{index:04X}.bsp_lump"),
                    format!("{base}.{index:04x}.bsp_lump.client"),
                    format!("{base}.{index:04X}.bsp_lump.client"),
                ];
                for name in names {
                    let p = dir.join(&name);
                    // Anything there is read as a regular file or refused with a message
                    // (`read_regular`): a FIFO or device sibling must not hang or be ignored.
                    if std::fs::metadata(&p).is_ok() {
                        let bytes = read_capped(&p, &mut left)?;
                        out.push((index, bytes, LumpOrigin::BspLump(p)));
                        break;
                    }
                }
            }
        }
        (Family::Source, _) => {
            for lmp in crate::lmp::find_siblings(path)? {
                let bytes = read_capped(&lmp.path, &mut left)?;
                let parsed = crate::lmp::LmpFile::parse(&bytes).map_err(|e| e.in_file(&lmp.path))?;
                let index = parsed.header.lump_index as usize;
                // The name and the header must agree on the lump: a patch applied to the wrong
                // lump would silently corrupt the map (which one wins is not specified, B3).
                if index as u32 != lmp.number {
                    return Err(Error::malformed(format!("header names lump {index} but the file name names lump {}", lmp.number))
                        .in_lump("lmp header")
                        .at(4)
                        .in_file(&lmp.path));
                }
                let data = parsed.data.to_vec();
                out.push((index, data, LumpOrigin::Lmp(lmp.path.clone())));
            }
        }
        _ => {}
    }
    Ok(out)
}
