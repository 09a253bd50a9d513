//! Format detection from the bytes alone (never the file name). Detection explains itself:
//! the chosen branch, the evidence, and the runner-up branches where the bytes are ambiguous.

mod collide;
pub mod detection;
mod dir;

pub use detection::Detection;

use crate::branch::HeaderKind;
use crate::branches::registry;
use crate::branches::{
    cod::lumps as cod, goldsrc::lumps as goldsrc, nightfire::lumps as nightfire, quake1::lumps as quake1, quake2::lumps as quake2,
};
use crate::branches::{genesis3d::detect as genesis3d, quake3::lumps as quake3, respawn::lumps as respawn, source::detect as source};
use crate::bytes::{describe_head, i32_at, u32_at, Endian};
use crate::error::{Error, ErrorKind, Result};
use dir::{looks_like_entities, lump_range};

/// Detect the format of `data`.
pub fn detect(data: &[u8]) -> Result<Detection> {
    let head: [u8; 4] = crate::bytes::array(data, 0).ok_or_else(|| Error::truncated(8, data.len() as u64).in_lump("header"))?;
    let le_version = u32_at(data, 4, Endian::Little).unwrap_or(0);
    let unsupported =
        |magic: &str, version: i64| Err(Error::new(ErrorKind::UnsupportedVersion { magic: magic.into(), version }).in_lump("header").at(4));
    let magic_why = |m: &str, v: u32| format!("magic {m:?}, version {v}");
    match &head {
        b"VBSP" | b"PSBV" => {
            let endian = if &head == b"VBSP" { Endian::Little } else { Endian::Big };
            let version = u32_at(data, 4, endian).unwrap_or(0);
            source::select(data, endian, version)
        }
        b"rBSP" => match respawn::split_version(le_version) {
            (29 | 36 | 37 | 47..=52, 0) => {
                Ok(Detection::new(respawn::select(le_version), le_version, Endian::Little, magic_why("rBSP", le_version)))
            }
            // Apex season 11+: `major | minor << 16` (respawn_cod_facts.md §1.1).
            (major @ 47..=52, minor) => Ok(Detection::new(
                respawn::select(le_version),
                major,
                Endian::Little,
                format!(
                    "magic \"rBSP\", version word {le_version:#010x} = version {major}, minor {minor} (Apex, lumps in .bsp_lump files)"
                ),
            )),
            _ => unsupported("rBSP", le_version as i64),
        },
        // Titanfall on Xbox 360: big-endian header, version 29 only (bsp_tool's
        // `titanfall_x360.BSP_VERSION`); the third word is 127 as on PC.
        b"PSBr" => match u32_at(data, 4, Endian::Big).unwrap_or(0) {
            29 => {
                let last = u32_at(data, 12, Endian::Big).unwrap_or(0);
                Ok(Detection::new(
                    &respawn::TITANFALL_X360,
                    29,
                    Endian::Big,
                    format!("magic \"PSBr\", big-endian version 29, last lump index {last} (Titanfall, Xbox 360)"),
                ))
            }
            v => unsupported("PSBr", v as i64),
        },
        b"IBSP" => match le_version {
            38 => Ok(Detection::new(&quake2::QUAKE2, 38, Endian::Little, magic_why("IBSP", 38))),
            // Quake 3 or Soldier of Fortune (a Quake 2 table of 22 lumps).
            46 => Ok(collide::choose(data, "IBSP", 46, &[&quake3::QUAKE3, &quake2::SOF])),
            47 => Ok(detect_ibsp47(data)),
            // Daikatana (21 lumps) or SiN's early maps (20).
            41 => Ok(collide::choose(data, "IBSP", 41, &[&quake2::DAIKATANA, &quake2::SIN])),
            22 => Ok(Detection::new(&cod::COD4, 22, Endian::Little, magic_why("IBSP", 22) + " (Call of Duty 4 lump list)")),
            // Call of Duty 1 / UO and 2: fixed directories of `{length, offset}` entries.
            58 => Ok(Detection::new(
                &cod::COD1_DEMO,
                58,
                Endian::Little,
                magic_why("IBSP", 58) + " (Call of Duty 1 demo: 33 {length, offset} entries)",
            )),
            59 => Ok(Detection::new(
                &cod::COD1,
                59,
                Endian::Little,
                magic_why("IBSP", 59) + " (Call of Duty 1 / United Offensive: 33 {length, offset} entries)",
            )),
            4 => Ok(Detection::new(&cod::COD2, 4, Endian::Little, magic_why("IBSP", 4) + " (Call of Duty 2: 39 {length, offset} entries)")),
            v => unsupported("IBSP", v as i64),
        },
        b"QBSP" if le_version == 38 => Ok(Detection::new(&quake2::QBISM, 38, Endian::Little, magic_why("QBSP", 38))),
        // Raven's Quake 3 RBSP (18 lumps) or SiN (a Quake 2 table of 20).
        b"RBSP" if le_version == 1 => Ok(collide::choose(data, "RBSP", 1, &[&quake3::RBSP, &quake2::SIN])),
        b"FBSP" if le_version == 1 => Ok(Detection::new(&quake3::FBSP, 1, Endian::Little, magic_why("FBSP", 1))),
        // Ritual's Quake 3 descendants: the version picks the table, as the engines do
        // (FAKK2 SDK `BSP_VERSION` 12; OpenMoHAA's CM_LoadMap accepts 17..=21 whatever the
        // ident and switches leaf size and lump order at 18 / 19).
        b"FAKK" => match le_version {
            12 => Ok(Detection::new(&quake3::FAKK2, 12, Endian::Little, magic_why("FAKK", 12) + " (Heavy Metal: F.A.K.K.2)")),
            42 => Ok(Detection::new(&quake3::ALICE, 42, Endian::Little, magic_why("FAKK", 42) + " (American McGee's Alice)")),
            v => unsupported("FAKK", v as i64),
        },
        // Elite Force II retail; its demo (`FAKK` 19) has no known layout and stays unsupported.
        b"EF2!" if le_version == 20 => {
            Ok(Detection::new(&quake3::EF2, 20, Endian::Little, magic_why("EF2!", 20) + " (Star Trek: Elite Force II)"))
        }
        b"EF2!" => unsupported("EF2!", le_version as i64),
        b"2015" | b"EALA" => {
            let m = if &head == b"2015" { "2015" } else { "EALA" };
            match le_version {
                17 | 18 => Ok(Detection::new(
                    &quake3::MOHAA_DEMO,
                    le_version,
                    Endian::Little,
                    magic_why(m, le_version) + " (Medal of Honor before 19: 56-byte leaves, FOGS at lump 13)",
                )),
                19..=21 if m == "EALA" => Ok(Detection::new(
                    &quake3::MOHAA_BT,
                    le_version,
                    Endian::Little,
                    magic_why(m, le_version) + " (Medal of Honor: Breakthrough's ident)",
                )),
                19..=21 => Ok(Detection::new(&quake3::MOHAA, le_version, Endian::Little, magic_why(m, le_version) + " (Medal of Honor)")),
                v => unsupported(m, v as i64),
            }
        }
        b"QBSP" | b"RBSP" | b"FBSP" => unsupported(std::str::from_utf8(&head).unwrap_or("?"), le_version as i64),
        b"BSP2" => Ok(Detection::new(&quake1::BSP2, 0, Endian::Little, "magic \"BSP2\" (32-bit Quake 1 extension)".into())),
        b"2PSB" => Ok(Detection::new(&quake1::BSP2PSB, 0, Endian::Little, "magic \"2PSB\" (RMQ 32-bit extension)".into())),
        // quakespasm's BSPVERSION_QUAKE64, 'Q' << 24 | '6' << 16 | '4' << 8 | ' ', little-endian.
        b" 46Q" => Ok(Detection::new(
            &quake1::QUAKE64,
            0,
            Endian::Little,
            "magic \" 46Q\" (Quake 64: version word 'Q'<<24 | '6'<<16 | '4'<<8 | ' ', BSP29 records)".into(),
        )),
        // Genesis3D: no magic at 0, the GBSP tag is the header chunk's data.
        _ if genesis3d::matches(data) => genesis3d::select(data),
        _ => match u32::from_le_bytes(head) {
            29 => Ok(detect_bsp29(data)),
            30 => Ok(detect_bsp30(data)),
            42 => Ok(detect_nightfire(data)),
            _ => Err(Error::new(ErrorKind::UnknownFormat { seen: describe_head(data) }).in_lump("header").at(0)),
        },
    }
}

/// IBSP 47 is RTCW / ET (17 lumps) or Quake Live (an 18th lump, advertisements, 128-byte
/// records; quake_facts.md §5.1). q3map2 writes an 18th entry of length 0 into every IBSP
/// header (§5.0), so only a non-empty one, inside the file and after the 152-byte directory that
/// the other lumps also respect, makes the map Quake Live.
fn detect_ibsp47(data: &[u8]) -> Detection {
    use quake3::{IBSP47, LUMP_ADVERTISEMENTS, QUAKELIVE};
    let header_end = 8 + 8 * (LUMP_ADVERTISEMENTS + 1);
    let others_after_header =
        (0..LUMP_ADVERTISEMENTS).all(|i| lump_range(data, 8, i).map_or(true, |(ofs, len)| len == 0 || ofs >= header_end));
    let ads = lump_range(data, 8, LUMP_ADVERTISEMENTS).filter(|&(ofs, len)| {
        others_after_header && len > 0 && len % 128 == 0 && ofs >= header_end && ofs.saturating_add(len) <= data.len()
    });
    let why = "magic \"IBSP\", version 47".to_string();
    match ads {
        Some((_, len)) => {
            let mut d = Detection::new(
                &QUAKELIVE,
                47,
                Endian::Little,
                format!("{why}; directory entry 17 holds {} 128-byte advertisements", len / 128),
            );
            d.runners_up.push(("ibsp47", "RTCW / ET maps have 17 lumps".into()));
            d
        }
        None => {
            let mut d = Detection::new(&IBSP47, 47, Endian::Little, why);
            d.runners_up.push(("quakelive", "no non-empty 18th directory entry (advertisements)".into()));
            d
        }
    }
}

/// BSP29 is Quake or Hexen II: Hexen II models are 80 bytes (8 hull roots) instead of 64.
fn detect_bsp29(data: &[u8]) -> Detection {
    use quake1::{HEXEN2, QUAKE1};
    let models = lump_range(data, 4, quake1::LUMP_MODELS).map(|r| r.1).unwrap_or(0);
    let (q, h) = (models % 64 == 0, models % 80 == 0);
    let mut d;
    if q && !h {
        d = Detection::new(&QUAKE1, 29, Endian::Little, format!("version 29; models lump {models} bytes divides by 64, not by 80"));
    } else if h && !q {
        d = Detection::new(
            &HEXEN2,
            29,
            Endian::Little,
            format!("version 29; models lump {models} bytes divides by 80 (Hexen II), not by 64"),
        );
    } else {
        // Both sizes divide (a multiple of 320 bytes, or empty): read the models both ways and
        // keep the reading whose every field is in range (ericw-tools' test, quake_facts.md 1.4).
        let (qf, hf) = (models_fit(data, 64, 4), models_fit(data, 80, 8));
        if hf && !qf {
            d = Detection::new(
                &HEXEN2,
                29,
                Endian::Little,
                format!("version 29; models lump {models} bytes divides by 64 and 80; only 80-byte models have every index in range"),
            );
            d.runners_up.push(("quake1", "64-byte models have indices out of range".into()));
        } else {
            d = Detection::new(
                &QUAKE1,
                29,
                Endian::Little,
                format!("version 29; models lump {models} bytes divides by 64 and 80; 64-byte models have every index in range"),
            );
            let why =
                if hf { "80-byte models would also fit; Quake is far more common" } else { "80-byte models have indices out of range" };
            d.runners_up.push(("hexen2", why.into()));
        }
    }
    d
}

/// Do the BSP29 models read as `size`-byte records with `hulls` roots hold in-range values?
/// Hull 0 roots a node, the other roots a clipnode or a contents value (−15..−1; 0 where the map
/// has no clipnodes); visleafs fits the leaves; the face range fits the faces. Float bounds read
/// in the wrong place almost never pass all of these.
fn models_fit(data: &[u8], size: usize, hulls: usize) -> bool {
    use quake1::{LUMP_CLIPNODES, LUMP_FACES, LUMP_LEAVES, LUMP_MODELS, LUMP_NODES};
    let count = |lump: usize, rec: usize| lump_range(data, 4, lump).map(|r| (r.1 / rec) as i64).unwrap_or(0);
    let (faces, nodes, clipnodes, leaves) =
        (count(LUMP_FACES, 20), count(LUMP_NODES, 24), count(LUMP_CLIPNODES, 8), count(LUMP_LEAVES, 28));
    let Some((at, len)) = lump_range(data, 4, LUMP_MODELS) else { return false };
    let int = |o: usize| i32_at(data, o, Endian::Little).map(i64::from);
    // A few models decide; the cap keeps hostile directories cheap.
    (0..(len / size).min(64)).all(|k| {
        let m = at + k * size;
        let heads_ok = (0..hulls).all(|h| match int(m + 36 + 4 * h) {
            Some(v) if h == 0 => (0..nodes.max(1)).contains(&v),
            Some(v) => (-15..clipnodes).contains(&v) || (v == 0 && clipnodes == 0),
            None => false,
        });
        let tail = m + 36 + 4 * hulls;
        let (vis, first, n) = (int(tail), int(tail + 4), int(tail + 8));
        heads_ok
            && matches!(vis, Some(v) if (0..=leaves).contains(&v))
            && matches!((first, n), (Some(f), Some(n)) if f >= 0 && n >= 0 && f + n <= faces)
    })
}

/// BSP30 is GoldSrc, or Blue Shift with the first two directory entries swapped.
fn detect_bsp30(data: &[u8]) -> Detection {
    use goldsrc::{BLUESHIFT, GOLDSRC};
    let e0 = lump_range(data, 4, 0);
    let e1 = lump_range(data, 4, 1);
    let planes_at = |r: Option<(usize, usize)>| r.is_some_and(|(_, l)| l % 20 == 0);
    let normal = looks_like_entities(data, e0) && planes_at(e1);
    let swapped = looks_like_entities(data, e1) && planes_at(e0);
    if swapped && !normal {
        let mut d = Detection::new(
            &BLUESHIFT,
            30,
            Endian::Little,
            "version 30; directory entry 1 holds entity text and entry 0 plane records: Blue Shift order".into(),
        );
        d.runners_up.push(("goldsrc", "entry 0 is not entity text".into()));
        d
    } else {
        let mut d = Detection::new(&GOLDSRC, 30, Endian::Little, "version 30; directory entry 0 holds entity text".into());
        if swapped {
            d.runners_up.push(("blueshift", "both orders are plausible; standard order preferred".into()));
        }
        d
    }
}

/// Version 42 is James Bond 007: Nightfire (GoldSrc's header with 18 entries). The version
/// decides, as for BSP29 / BSP30 (no other branch stores 42 as its first word, and a damaged
/// directory should get errors naming its lumps, not "unknown format"); the evidence printed is
/// the directory's shape: whether entry 0 holds entity text and PLANES and FACES hold whole
/// 20- and 48-byte records.
fn detect_nightfire(data: &[u8]) -> Detection {
    let dir = 4;
    let whole = |i: usize, size: usize| lump_range(data, dir, i).is_some_and(|(o, l)| l % size == 0 && o.saturating_add(l) <= data.len());
    let facts = [
        (looks_like_entities(data, lump_range(data, dir, nightfire::ENTITIES)), "entry 0 entity text"),
        (whole(nightfire::PLANES, 20), "PLANES whole 20-byte records"),
        (whole(nightfire::FACES, 48), "FACES whole 48-byte records"),
    ];
    let held: Vec<&str> = facts.iter().filter(|f| f.0).map(|f| f.1).collect();
    let missed: Vec<&str> = facts.iter().filter(|f| !f.0).map(|f| f.1).collect();
    let mut why = format!(
        "version 42 (James Bond 007: Nightfire, 18 directory entries); holds: {}",
        if held.is_empty() { "none".to_string() } else { held.join(", ") }
    );
    if !missed.is_empty() {
        why += &format!("; not: {}", missed.join(", "));
    }
    Detection::new(&nightfire::NIGHTFIRE, 42, Endian::Little, why)
}

/// Use the named branch, overriding detection (`--branch`).
pub fn detect_as(data: &[u8], branch_id: &str) -> Result<Detection> {
    let branch = registry::by_id(branch_id).ok_or_else(|| Error::new(ErrorKind::UnknownBranch(branch_id.into())))?;
    let endian = if matches!(data.get(0..4), Some(b"PSBV" | b"PSBr")) { Endian::Big } else { Endian::Little };
    let version = match branch.header {
        HeaderKind::Quake { .. } => u32_at(data, 0, endian),
        HeaderKind::Chunks => u32_at(data, crate::branches::genesis3d::lumps::VERSION_OFFSET, endian),
        _ => u32_at(data, 4, endian),
    }
    .unwrap_or(0);
    let mut d = Detection::new(branch, version, endian, format!("branch {branch_id} chosen by the caller"));
    if let Ok(auto) = detect(data) {
        if auto.branch.id != branch.id {
            d.runners_up.push((auto.branch.id, format!("detected from the bytes: {}", auto.why.join("; "))));
        }
    }
    Ok(d)
}
