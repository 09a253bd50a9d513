//! Which Source branch a VBSP / PSBV file is, from its bytes alone (source.md §3, §4.2, §27).

use super::lumps::*;
use crate::branch::Branch;
use crate::bytes::{u32_at, Endian};
use crate::detect::detection::Detection;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump;

/// `(offset, length)` of a directory entry read in this order.
fn entry(data: &[u8], endian: Endian, version_first: bool, i: usize) -> Option<(u32, u32)> {
    let b = 8 + 16 * i;
    let (o, l) = if version_first { (4, 8) } else { (0, 4) };
    Some((u32_at(data, b + o, endian)?, u32_at(data, b + l, endian)?))
}

/// Does every non-empty directory entry lie inside the file, read in this order?
fn directory_fits(data: &[u8], endian: Endian, version_first: bool) -> bool {
    (0..64).all(|i| match entry(data, endian, version_first, i) {
        Some((ofs, len)) => len == 0 || (ofs as u64 + len as u64 <= data.len() as u64 && ofs >= 1036),
        None => false,
    })
}

/// The version of the static-prop game lump (`sprp`, source.md §14.1), read straight from
/// the bytes (the game lump is never compressed as a whole, §6).
fn sprp_version(data: &[u8], endian: Endian, version_first: bool) -> Option<u16> {
    let (ofs, len) = entry(data, endian, version_first, LUMP_GAME_LUMP)?;
    let lump = data.get(ofs as usize..(ofs as usize).checked_add(len as usize)?)?;
    let entries = gamelump::read_entries_lenient(lump, endian);
    entries.iter().take(1024).find(|e| e.id == gamelump::ID_STATIC_PROPS).map(|e| e.version)
}

fn lump_len(data: &[u8], endian: Endian, i: usize) -> u32 {
    entry(data, endian, false, i).map(|e| e.1).unwrap_or(0)
}

/// The uncompressed length of a lump (its `fourCC` when LZMA-compressed, §4.1).
fn data_len(data: &[u8], endian: Endian, i: usize) -> u64 {
    let Some((ofs, len)) = entry(data, endian, false, i) else { return 0 };
    let compressed = data.get(ofs as usize..(ofs as usize).saturating_add(4)) == Some(b"LZMA");
    if compressed {
        u32_at(data, 8 + 16 * i + 12, endian).unwrap_or(0) as u64
    } else {
        len as u64
    }
}

/// Looks like entity text: first non-blank byte is `{`.
fn entity_text_at(data: &[u8], endian: Endian, i: usize) -> bool {
    let Some((ofs, len)) = entry(data, endian, false, i) else { return false };
    len > 0
        && data
            .get(ofs as usize..(ofs as usize).saturating_add(len as usize).min(data.len()))
            .and_then(|b| b.iter().find(|c| !c.is_ascii_whitespace()))
            == Some(&b'{')
}

/// Most entity-lump bytes scanned for Alien Swarm classes (a compressed lump is decoded up to
/// this size): detection reads a bounded prefix, never the whole of a hostile lump.
const ENTITY_SCAN_LIMIT: u64 = 16 << 20;

/// The distinct `asw_*` entity classes of the entity lump (lump 0), in order of first use.
/// Alien Swarm (and Reactive Drop) name their game entities `asw_*` (`asw_gamerules`,
/// `asw_spawner`, `asw_door`, ...): no other v21 game does, which tells its maps from Portal 2's
/// (both store static props version 9).
fn asw_entity_classes(data: &[u8], endian: Endian) -> Vec<String> {
    let Some((ofs, len)) = entry(data, endian, false, LUMP_ENTITIES) else { return Vec::new() };
    let Some(raw) = data.get(ofs as usize..(ofs as usize).saturating_add(len as usize).min(data.len())) else { return Vec::new() };
    let decoded;
    let text: &[u8] = if raw.starts_with(b"LZMA") {
        match crate::compression::decompress_valve_lzma(raw, endian, ENTITY_SCAN_LIMIT) {
            Ok(v) => {
                decoded = v;
                &decoded
            }
            Err(_) => return Vec::new(),
        }
    } else {
        &raw[..raw.len().min(ENTITY_SCAN_LIMIT as usize)]
    };
    let mut out: Vec<String> = Vec::new();
    let key = b"\"classname\"";
    let mut at = 0;
    while let Some(k) = text[at..].windows(key.len()).position(|w| w == key) {
        let mut i = at + k + key.len();
        while text.get(i).is_some_and(|c| *c == b' ' || *c == b'\t') {
            i += 1;
        }
        at = i;
        if text.get(i) != Some(&b'"') {
            continue;
        }
        let value = &text[i + 1..];
        let end = value.iter().position(|&c| c == b'"' || c == b'\n').unwrap_or(value.len());
        let class = &value[..end];
        if class.len() > 4 && class[..4].eq_ignore_ascii_case(b"asw_") {
            let class = String::from_utf8_lossy(class).into_owned();
            if !out.contains(&class) {
                out.push(class);
            }
        }
        at = i + 1 + end;
    }
    out
}

/// `asw_a, asw_b, asw_c` and how many more.
fn class_list(classes: &[String]) -> String {
    let shown = classes.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match classes.len() {
        0..=3 => shown,
        n => format!("{shown} and {} more", n - 3),
    }
}

/// Choose the Source branch for a VBSP/PSBV file (source.md §3, §4.2, §27).
///
/// * 17 → VTMB; 18–19 → Source 2004; 25 → Strata; 27, 42, 100 → the licensee branches.
/// * 20 → L4D when the `sprp` game lump is version 8 (§14.3: v8 is "mostly Left 4 Dead");
///   Source 2006 when the ambient index lumps 51/52 are empty and lump 55 or 56 holds exactly
///   one 24-byte cube per leaf (open_questions.md A28); else Source 2007/2009.
/// * 21 → L4D2 when only the version-first `lump_t` order fits the file (§4.2, A1); else
///   CS:GO for `sprp` version ≥ 10; Alien Swarm when the entity lump uses `asw_*` classes
///   (its maps store `sprp` version 9 as Portal 2's do); Portal 2 for 9; else the Alien Swarm
///   branch.
/// * 22 → Tactical Intervention when lump 24 holds entity text (§5), else Dota 2 / INFRA; 23 → Dota 2.
pub fn select(data: &[u8], endian: Endian, version: u32) -> Result<Detection> {
    let magic = if endian == Endian::Little { "VBSP" } else { "PSBV" };
    if !matches!(version, 17..=25 | 27 | 42 | 100) {
        return Err(Error::new(ErrorKind::UnsupportedVersion { magic: magic.into(), version: version as i64 }).in_lump("header").at(4));
    }
    let std = directory_fits(data, endian, false);
    let l4d2 = version == 21 && directory_fits(data, endian, true);
    let order = format!("magic {magic:?} ({} endian), version {version}", if endian == Endian::Little { "little" } else { "big" });
    let mut runners_up: Vec<(&'static str, String)> = Vec::new();
    let (branch, why): (&'static Branch, String) = match version {
        17 => (&VTMB, "version 17 is Vampire: The Masquerade – Bloodlines".into()),
        18 | 19 => (&SOURCE2004, format!("version {version} is the Source 2004 table")),
        20 => {
            let sprp = sprp_version(data, endian, false);
            let leaves = data_len(data, endian, LUMP_LEAVES) / 32;
            let no_index = lump_len(data, endian, 51) == 0 && lump_len(data, endian, 52) == 0;
            let cubes = [55, 56].iter().any(|&i| leaves > 0 && data_len(data, endian, i) == 24 * leaves);
            if sprp == Some(8) {
                runners_up.push(("source", "static props version 8 is the Left 4 Dead form".into()));
                (&L4D, "version 20 with static props version 8 (Left 4 Dead)".into())
            } else if no_index && cubes {
                runners_up.push(("source", "no ambient index lumps".into()));
                (&SOURCE2006, "version 20 without ambient index lumps and one 24-byte light cube per leaf (Source 2006)".into())
            } else {
                (&SOURCE, "version 20, Source 2007/2009 ambient lighting layout".into())
            }
        }
        21 if l4d2 && !std => (&L4D2, "lump_t entries fit the file only in version-first order (L4D2 branch)".into()),
        21 => {
            if l4d2 {
                runners_up.push(("l4d2", "version-first order also fits".into()));
            }
            let sprp = sprp_version(data, endian, false);
            let props = sprp.map(|v| format!("static props version {v}")).unwrap_or_else(|| "no static props".into());
            match sprp {
                Some(v) if v >= 10 => (&CSGO, format!("lump_t entries fit in the standard order; static props version {v} (CS:GO)")),
                _ => {
                    let asw = asw_entity_classes(data, endian);
                    if !asw.is_empty() {
                        if sprp == Some(9) {
                            runners_up.push(("portal2", "static props version 9 is also Portal 2's".into()));
                        }
                        let why = format!(
                            "lump_t entries fit in the standard order; {props}; {} asw_* entity class(es) ({}): Alien Swarm",
                            asw.len(),
                            class_list(&asw)
                        );
                        (&ALIEN_SWARM, why)
                    } else if sprp == Some(9) {
                        runners_up.push(("alienswarm", "no asw_* entity classes (Alien Swarm's)".into()));
                        (
                            &PORTAL2,
                            "lump_t entries fit in the standard order; static props version 9 and no asw_* entity classes (Portal 2)"
                                .into(),
                        )
                    } else {
                        (&ALIEN_SWARM, format!("lump_t entries fit in the standard order; {props}"))
                    }
                }
            }
        }
        22 if entity_text_at(data, endian, 24) => (&TACINT, "version 22 with entity text in lump 24 (Tactical Intervention)".into()),
        22 | 23 => (&DOTA2, format!("version {version} (Dota 2 pre-Reborn branch)")),
        25 => (&STRATA, "version 25 is Strata Source".into()),
        27 => (&CONTAGION, "version 27 is Contagion".into()),
        42 => (&DESOLATION, "version 42 is the old Desolation format".into()),
        _ => (&CSO2, "version 100 is Counter-Strike Online 2".into()),
    };
    Ok(Detection { branch, version, endian, why: vec![order, why], runners_up })
}
