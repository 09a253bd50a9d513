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
            let base = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
            let listed = listed_lump_numbers(&dir);
            // A set write cut off by a crash leaves files that are no part of the set on disk
            // (the old `.bsp_lump` files after a fold's switch, new ones linked in before a
            // switch), listed in its journal: they are not read (`check` reports them; the
            // next write of the set removes them).
            let journal_dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir.as_path() };
            let not_in_set = crate::fsio::SetJournal::find(journal_dir, path).map(|j| j.not_in_set().to_vec()).unwrap_or_default();
            for &index in indices {
                if listed.as_ref().is_some_and(|l| !l.contains(&index)) {
                    continue;
                }
                // Apex also names some `….bsp_lump.client` (respawn_cod_facts.md §1.3).
                let names = [
                    format!("{base}.{index:04x}.bsp_lump"),
                    format!("{base}.{index:04X}.bsp_lump"),
                    format!("{base}.{index:04x}.bsp_lump.client"),
                    format!("{base}.{index:04X}.bsp_lump.client"),
                ];
                for name in names {
                    if not_in_set.contains(&name) {
                        continue;
                    }
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

/// Directories listed at most this far for `.bsp_lump` numbers; a larger one is probed lump by
/// lump instead.
const LISTING_LIMIT: usize = 4096;

/// The lump numbers that any `*.NNNN.bsp_lump[.client]` file in `dir` names (any map's, any
/// case), or `None` when the directory cannot be listed or holds more than [`LISTING_LIMIT`]
/// entries. A lump number not in the set has no file to probe for: a Respawn directory has
/// 128 lumps and four possible names each, and probing all 512 names cost more than the rest
/// of opening the map (about 0.5 ms of 0.6 ms, measured). Only numbers are taken from the
/// listing, not names: the probe that follows still looks the file up by its expected names,
/// so a file system that folds case or normalises Unicode finds what it found before.
fn listed_lump_numbers(dir: &Path) -> Option<std::collections::HashSet<usize>> {
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let mut numbers = std::collections::HashSet::new();
    for (n, entry) in std::fs::read_dir(dir).ok()?.enumerate() {
        if n >= LISTING_LIMIT {
            return None;
        }
        let name = entry.ok()?.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(number) = bsp_lump_number(name) {
            numbers.insert(number);
        }
    }
    Some(numbers)
}

/// The lump number of a file named `<anything>.<4 hex digits>.bsp_lump` or `….bsp_lump.client`
/// (ASCII case ignored).
fn bsp_lump_number(name: &str) -> Option<usize> {
    let lower = name.to_ascii_lowercase();
    let stem = lower.strip_suffix(".client").unwrap_or(&lower).strip_suffix(".bsp_lump")?;
    let (rest, hex) = stem.rsplit_once('.')?;
    if rest.is_empty() || hex.len() != 4 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    usize::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bsp_lump_numbers_come_from_names_of_any_case() {
        assert_eq!(bsp_lump_number("mp_box.bsp.000a.bsp_lump"), Some(10));
        assert_eq!(bsp_lump_number("MP_BOX.BSP.000A.BSP_LUMP"), Some(10));
        assert_eq!(bsp_lump_number("mp_box.bsp.007f.bsp_lump.client"), Some(127));
        for not in ["mp_box.bsp", ".000a.bsp_lump", "mp_box.bsp.00a.bsp_lump", "mp_box.bsp.00g0.bsp_lump", "mp_box.bsp.000a.bsp_lump.x"] {
            assert_eq!(bsp_lump_number(not), None, "{not}");
        }
    }

    #[test]
    fn a_directory_is_listed_for_lump_numbers() {
        let dir = std::env::temp_dir().join(format!("bspkit-listing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["a.bsp", "a.bsp.0003.bsp_lump", "b.bsp.0041.BSP_LUMP", "a.bsp.0010.bsp_lump.client", "notes.txt"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let got = listed_lump_numbers(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(got, Some([3, 0x41, 0x10].into_iter().collect()));
        assert_eq!(listed_lump_numbers(Path::new("/nonexistent/bspkit/dir")), None);
    }
}
