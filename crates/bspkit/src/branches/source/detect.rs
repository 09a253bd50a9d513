//! Which Source branch a VBSP / PSBV file is, from its bytes alone (source.md §3, §4.2, §27).

use super::lumps::*;
use crate::branch::Branch;
use crate::bytes::{u32_at, Endian};
use crate::detect::detection::Detection;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump;
use crate::lumps::staticprops::{PropGame, PropLayout, StaticProps};

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

/// The distinct entity classes of the entity lump (lump 0) that `wanted` accepts, in order of
/// first use. Only `"classname"` keys count (a value naming a class is not a class).
fn entity_classes(data: &[u8], endian: Endian, wanted: impl Fn(&[u8]) -> bool) -> Vec<String> {
    entity_scan_text(data, endian).map(|text| classes_in(&text, wanted)).unwrap_or_default()
}

/// The entity lump's bytes that [`classes_in`] scans: its first [`ENTITY_SCAN_LIMIT`] bytes,
/// decoded first when LZMA-compressed; `None` when the entry or the decoding fails. Taken once
/// where several games' classes are looked up (a compressed lump is decoded once).
fn entity_scan_text(data: &[u8], endian: Endian) -> Option<std::borrow::Cow<'_, [u8]>> {
    let (ofs, len) = entry(data, endian, false, LUMP_ENTITIES)?;
    let raw = data.get(ofs as usize..(ofs as usize).saturating_add(len as usize).min(data.len()))?;
    if raw.starts_with(b"LZMA") {
        crate::compression::decompress_valve_lzma(raw, endian, ENTITY_SCAN_LIMIT).ok().map(std::borrow::Cow::Owned)
    } else {
        Some(std::borrow::Cow::Borrowed(&raw[..raw.len().min(ENTITY_SCAN_LIMIT as usize)]))
    }
}

/// [`entity_classes`] over `text`. The key and the value's end are found with `memchr`'s
/// searches (the first match, as a window-by-window scan finds it): every garbled Source map
/// without static props is scanned here three times when it opens, and a window iterator with
/// a closure and a comparison call per byte was most of the time an unoptimised (test) build
/// spent opening one.
fn classes_in(text: &[u8], wanted: impl Fn(&[u8]) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let key = b"\"classname\"";
    let finder = memchr::memmem::Finder::new(key);
    let mut at = 0;
    while let Some(k) = finder.find(&text[at..]) {
        let mut i = at + k + key.len();
        while text.get(i).is_some_and(|c| *c == b' ' || *c == b'\t') {
            i += 1;
        }
        at = i;
        if text.get(i) != Some(&b'"') {
            continue;
        }
        let value = &text[i + 1..];
        let end = memchr::memchr2(b'"', b'\n', value).unwrap_or(value.len());
        let class = &value[..end];
        if wanted(class) {
            let class = String::from_utf8_lossy(class).into_owned();
            if !out.contains(&class) {
                out.push(class);
            }
        }
        at = i + 1 + end;
    }
    out
}

fn has_prefix(class: &[u8], prefix: &[u8]) -> bool {
    class.len() > prefix.len() && class[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Alien Swarm (and Reactive Drop) name their game entities `asw_*` (`asw_gamerules`,
/// `asw_spawner`, `asw_door`, ...): no other v21 game does, which tells its maps from Portal 2's
/// (both store static props version 9).
fn asw_entity_classes(data: &[u8], endian: Endian) -> Vec<String> {
    entity_classes(data, endian, |c| has_prefix(c, b"asw_"))
}

/// Game entity classes of the v20 licensees, as evidence beside the static props (the games'
/// own class names: The Ship's `ship_*`, Bloody Good Time's `pm_*`, Zeno Clash's `*_zeno_*`,
/// Black Mesa's HL1 weapons and monsters as `item_weapon_*` / `npc_human_grunt` ...), and Team
/// Fortress 2's classes in a v21 map (Source Filmmaker ships TF2's maps recompiled).
fn game_classes(data: &[u8], endian: Endian, game: &str) -> Vec<String> {
    entity_scan_text(data, endian).map(|text| game_classes_in(&text, game)).unwrap_or_default()
}

/// [`game_classes`] over the entity text [`entity_scan_text`] gives.
fn game_classes_in(text: &[u8], game: &str) -> Vec<String> {
    match game {
        "outerlight" => classes_in(text, |c| has_prefix(c, b"ship_") || has_prefix(c, b"pm_")),
        "zenoclash" => classes_in(text, |c| has_prefix(c, b"npc_zeno_") || has_prefix(c, b"weapon_zeno_") || has_prefix(c, b"item_zeno_")),
        "blackmesa" => classes_in(text, |c| {
            has_prefix(c, b"item_weapon_")
                || [
                    &b"npc_human_grunt"[..],
                    b"npc_human_scientist",
                    b"npc_alien_slave",
                    b"npc_houndeye",
                    b"npc_bullsquid",
                    b"env_xen_portal",
                ]
                .iter()
                .any(|n| c.eq_ignore_ascii_case(n))
        }),
        "sfm" => classes_in(text, |c| {
            has_prefix(c, b"tf_")
                || [
                    &b"info_player_teamspawn"[..],
                    b"team_control_point",
                    b"team_control_point_master",
                    b"item_teamflag",
                    b"func_respawnroom",
                ]
                .iter()
                .any(|n| c.eq_ignore_ascii_case(n))
        }),
        _ => Vec::new(),
    }
}

/// The `sprp` child's version and, when stored uncompressed, its bytes (the licensee games
/// that change the prop forms predate game-lump compression).
fn sprp_child(data: &[u8], endian: Endian) -> Option<(u16, Option<&[u8]>)> {
    let (ofs, len) = entry(data, endian, false, LUMP_GAME_LUMP)?;
    let lump = data.get(ofs as usize..(ofs as usize).checked_add(len as usize)?)?;
    let version = sprp_version(data, endian, false)?;
    let place = gamelump::LumpPlace { file_offset: ofs as u64, from_lmp: false };
    let dir = gamelump::parse_directory(lump, place, endian).ok();
    let e = dir.as_ref().and_then(|d| d.entries.iter().find(|e| e.id == gamelump::ID_STATIC_PROPS));
    let bytes = e.filter(|e| !e.compressed).and_then(|e| lump.get(e.start..e.start.checked_add(e.stored_len)?));
    Some((version, bytes))
}

/// The prop layout `game`'s forms find in the `sprp` bytes, when there are props of a known form.
fn props_in(bytes: Option<&[u8]>, version: u16, endian: Endian, game: PropGame) -> Option<(PropLayout, usize)> {
    let p = StaticProps::parse_in(std::borrow::Cow::Borrowed(bytes?), version, endian, game).ok()?;
    (p.count > 0 && p.layout != PropLayout::Unknown).then_some((p.layout, p.element_size.unwrap_or(0)))
}

/// The runner-up note when a fork's prop form decided.
const BY_PROPS: &str = "the same version in Valve's static prop form, which does not read these props";

/// The v20 licensee forks told by their static props (source.md §3, §14.3), else by their
/// entity classes: `(branch, why, the runner-up note for Valve's branch)`.
fn v20_fork(data: &[u8], endian: Endian) -> Option<(&'static Branch, String, &'static str)> {
    let sprp = sprp_child(data, endian);
    let classes = |game: &str| {
        let c = game_classes(data, endian, game);
        if c.is_empty() {
            String::new()
        } else {
            format!("; {} of its entity class(es) ({})", c.len(), class_list(&c))
        }
    };
    if let Some((v, bytes)) = sprp {
        let valve = props_in(bytes, v, endian, PropGame::Valve);
        match v {
            5 | 6 => {
                if let Some((l @ (PropLayout::V5Ship | PropLayout::V6Bgt), size)) = props_in(bytes, v, endian, PropGame::Outerlight) {
                    let game = if l == PropLayout::V5Ship { "The Ship" } else { "Bloody Good Time" };
                    let why = format!(
                        "static props version {v} of {size} bytes: {game}'s form with a 128-byte target name{}",
                        classes("outerlight")
                    );
                    return Some((&OUTERLIGHT, why, BY_PROPS));
                }
            }
            7 => {
                if valve.is_none() {
                    if let Some((_, size)) = props_in(bytes, v, endian, PropGame::ZenoClash) {
                        let why = format!(
                            "static props version {v}: a second name list before the leaves and {size}-byte props fit only Zeno Clash's form{}",
                            classes("zenoclash")
                        );
                        return Some((&ZENO_CLASH, why, BY_PROPS));
                    }
                }
                if let Some((PropLayout::V7Ftb, size)) = props_in(bytes, v, endian, PropGame::FairyTaleBusters) {
                    let why = format!("static props version {v} of {size} bytes (Fairy Tale Busters' v10-like order)");
                    return Some((&FTB, why, BY_PROPS));
                }
            }
            11 => {
                let size = props_in(bytes, v, endian, PropGame::BlackMesa).map(|(_, s)| format!(" of {s} bytes")).unwrap_or_default();
                return Some((
                    &BLACK_MESA,
                    format!("static props version 11{size} in a v20 map (CS:GO's v11 maps are v21): Black Mesa{}", classes("blackmesa")),
                    "Valve's v20 branches write static props up to version 10",
                ));
            }
            _ => {}
        }
    }
    // No props to decide by: the games' own entity classes (the entity text taken once).
    let text = entity_scan_text(data, endian);
    for (id, branch) in [("outerlight", &OUTERLIGHT), ("zenoclash", &ZENO_CLASH), ("blackmesa", &BLACK_MESA)] {
        let c = text.as_deref().map(|t| game_classes_in(t, id)).unwrap_or_default();
        if c.len() >= 2 {
            return Some((
                branch,
                format!("{} {} entity classes ({}) and no static props that say otherwise", c.len(), branch.games, class_list(&c)),
                "the v20 table, read without the game's entity classes",
            ));
        }
    }
    None
}

/// Dark Messiah: the header's version word is two shorts, 20 and 4 (VDC `dheader_dm_t`); no
/// Valve branch writes a nonzero upper half. The texinfo, model and game-lump forms are
/// reported beside it as corroboration (a file whose lumps do not fit them still opens as
/// Dark Messiah, and `bsp check` then names the lump that does not fit).
fn dark_messiah(data: &[u8]) -> Detection {
    let endian = Endian::Little;
    let mut why = vec![format!(
        "magic \"VBSP\" (little endian), version word {DARK_MESSIAH_VERSION:#010x} = short 20, short 4 (Dark Messiah's split version)"
    )];
    let fits = |i: usize, size: u64, name: &str| {
        let n = data_len(data, endian, i);
        (n > 0 && n % size == 0).then(|| format!("{name} lump of {n} bytes = {} records of {size}", n / size))
    };
    let mut seen: Vec<String> = [fits(LUMP_TEXINFO, 96, "texinfo"), fits(LUMP_MODELS, 52, "models")].into_iter().flatten().collect();
    if let Some((ofs, len)) = entry(data, endian, false, LUMP_GAME_LUMP) {
        let lump = data.get(ofs as usize..(ofs as usize).saturating_add(len as usize)).unwrap_or(&[]);
        let place = gamelump::LumpPlace { file_offset: ofs as u64, from_lmp: false };
        if let Ok(dir) = gamelump::parse_directory_in(lump, place, endian, gamelump::DirForm::DarkMessiah) {
            if !dir.entries.is_empty() {
                seen.push(format!("game lump directory of {} 20-byte entries after an 8-byte header", dir.entries.len()));
            }
        }
    }
    if !seen.is_empty() {
        why.push(seen.join("; "));
    }
    let runners_up = vec![("source", "Valve's v20 header stores the version as the one int 20".to_string())];
    Detection { branch: &DARK_MESSIAH, version: 20, endian, why, runners_up }
}

/// A lump's stored bytes, when it lies in the file uncompressed.
fn plain_lump(data: &[u8], endian: Endian, i: usize) -> Option<&[u8]> {
    let (ofs, len) = entry(data, endian, false, i)?;
    let b = data.get(ofs as usize..(ofs as usize).checked_add(len as usize)?)?;
    (!b.starts_with(b"LZMA")).then_some(b)
}

/// The faces the models cover: the largest `firstface + numfaces` over the 48-byte models
/// (lump 14, the same form in Valve's maps and Vindictus's). A map's models cover its faces
/// exactly, so this says which face size the faces lump was written with.
fn model_face_end(data: &[u8], endian: Endian) -> Option<u64> {
    let models = plain_lump(data, endian, LUMP_MODELS)?;
    if models.is_empty() || models.len() % 48 != 0 {
        return None;
    }
    models
        .chunks_exact(48)
        .map(|m| {
            let first = u32_at(m, 40, endian).unwrap_or(0) as i32;
            let n = u32_at(m, 44, endian).unwrap_or(0) as i32;
            (first.max(0) as u64).saturating_add(n.max(0) as u64)
        })
        .max()
}

/// The Vindictus static-prop form in the `sprp` child: names, leaves, then (version ≥ 6) a
/// counted list of 16-byte scales, then the props. `(version, prop size)`; size 0 = no props.
fn vindictus_props(data: &[u8], endian: Endian) -> Option<(u16, usize)> {
    let lump = plain_lump(data, endian, LUMP_GAME_LUMP)?;
    let (ofs, _) = entry(data, endian, false, LUMP_GAME_LUMP)?;
    let place = gamelump::LumpPlace { file_offset: ofs as u64, from_lmp: false };
    let dir = gamelump::parse_directory_in(lump, place, endian, gamelump::DirForm::Vindictus).ok()?;
    let e = dir.entries.iter().find(|e| e.id == gamelump::ID_STATIC_PROPS && !e.compressed)?;
    let b = lump.get(e.start..e.start.checked_add(e.stored_len)?)?;
    let size = crate::lumps::staticprops::vindictus_prop_size(b, e.version, endian).unwrap_or(0);
    Some((e.version, size))
}

/// Vindictus (bsp_tool `nexon/vindictus69.py`): a little-endian v20 header like Valve's, told
/// apart by content. Its faces are 72 bytes (lump version 1) or 76 (version 2) where Valve's
/// are 56, and the models (the same form in both) cover exactly the faces the Vindictus size
/// counts. The version — 1.69 or later — is told by the static props: version 5, or 6 with
/// 60-byte props, is 1.69; 6 with 64-byte props, 7 and 8 are later builds.
fn vindictus(data: &[u8], endian: Endian) -> Option<Detection> {
    if endian != Endian::Little {
        return None;
    }
    let faces = lump_len(data, endian, LUMP_FACES) as u64;
    let face_version = entry(data, endian, false, LUMP_FACES).and_then(|_| u32_at(data, 8 + 16 * LUMP_FACES + 8, endian))?;
    let size: u64 = if face_version == 2 { 76 } else { 72 };
    let covered = model_face_end(data, endian)?;
    if faces == 0 || faces % size != 0 || covered != faces / size || (faces % 56 == 0 && covered == faces / 56) {
        return None;
    }
    let mut why = vec![
        "magic \"VBSP\" (little endian), version 20".to_string(),
        format!(
            "faces lump version {face_version}: {faces} bytes = {} Vindictus faces of {size} bytes, exactly the {covered} faces the models cover (Valve's 56-byte faces would be {:.1})",
            faces / size,
            faces as f64 / 56.0
        ),
    ];
    let fits = |i: usize, rec: u64, name: &str| {
        let n = lump_len(data, endian, i) as u64;
        (n > 0 && n % rec == 0).then(|| format!("{name} {n} bytes = {} × {rec}", n / rec))
    };
    let seen: Vec<String> = [
        fits(LUMP_NODES, 48, "nodes"),
        fits(LUMP_LEAVES, 56, "leaves"),
        fits(LUMP_EDGES, 8, "edges"),
        fits(LUMP_BRUSH_SIDES, 16, "brush sides"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !seen.is_empty() {
        why.push(format!("widened records fit: {}", seen.join(", ")));
    }
    let mut runners_up = vec![("source", "Valve's 56-byte faces do not match the models' face count".to_string())];
    let (branch, props) = match vindictus_props(data, endian) {
        Some((5, _)) => (&VINDICTUS69, "static props version 5 (Vindictus 1.69)".to_string()),
        Some((6, 60)) => (&VINDICTUS69, "static props version 6 with scales and 60-byte (v5-form) props (Vindictus 1.69)".to_string()),
        Some((6, 0)) => {
            runners_up.push(("vindictus69", "1.69 also stores static props version 6".into()));
            (&VINDICTUS, "static props version 6 without props to tell 1.69 from later builds: the later branch by default".to_string())
        }
        Some((v, size)) => {
            runners_up.push(("vindictus69", "1.69 stores static props version 5, or 6 with 60-byte props".into()));
            let size = if size > 0 { format!(" with {size}-byte props") } else { String::new() };
            (&VINDICTUS, format!("static props version {v}{size} (Vindictus after 1.69)"))
        }
        None => {
            runners_up.push(("vindictus69", "no static props to tell the two versions apart".into()));
            (&VINDICTUS, "no static props: the later Vindictus branch by default".to_string())
        }
    };
    why.push(props);
    Some(Detection { branch, version: 20, endian, why, runners_up })
}

/// How many dispinfo records the faces name: one more than the largest `dispinfo` of the
/// 56-byte faces (lump 7, field at byte 12; −1 = none), `None` when the faces are not plain.
fn faces_dispinfo_count(data: &[u8], endian: Endian) -> Option<u64> {
    let faces = plain_lump(data, endian, LUMP_FACES)?;
    if faces.len() % 56 != 0 {
        return None;
    }
    let top = faces.chunks_exact(56).filter_map(|f| crate::bytes::u16_at(f, 12, endian)).map(|d| d as i16 as i64).max()?;
    Some((top + 1).max(0) as u64)
}

/// Counter-Strike Online 2 (VBSP 100): which of its two layouts, by content. Both keep
/// Valve's 2007 table except, from 2018, 242-byte dispinfo (Valve's: 176) and 164-byte
/// cubemaps (16) — sizes from bsp_tool's `nexon/cso2.py` / `cso2_2018.py`, whose note says
/// the version numbers alone cannot tell them apart. The faces name their dispinfo records,
/// so the dispinfo lump's length over that count gives the record size; failing that, which
/// record size divides the dispinfo and cubemap lumps.
fn cso2_form(data: &[u8], endian: Endian) -> (&'static Branch, String, Vec<(&'static str, String)>) {
    let disp = data_len(data, endian, LUMP_DISP_INFO);
    let cube = data_len(data, endian, LUMP_CUBEMAPS);
    let mut runners_up = Vec::new();
    if let Some(n) = faces_dispinfo_count(data, endian).filter(|&n| n > 0) {
        if disp == n * 242 {
            runners_up.push(("cso2", format!("the 2013–2017 layout's 176-byte dispinfo would make {n} records {} bytes", n * 176)));
            let why = format!("version 100 (Counter-Strike Online 2); the faces name {n} dispinfo record(s) and lump 26 holds {disp} bytes = {n} × 242 (the 2018 layout; Valve's 176-byte form would be {:.2})", disp as f64 / 176.0);
            return (&CSO2_2018, why, runners_up);
        }
        if disp == n * 176 {
            runners_up.push(("cso2_2018", format!("the 2018 layout's 242-byte dispinfo would make {n} records {} bytes", n * 242)));
            let why = format!("version 100 (Counter-Strike Online 2); the faces name {n} dispinfo record(s) and lump 26 holds {disp} bytes = {n} × 176 (the 2013–2017 layout)");
            return (&CSO2, why, runners_up);
        }
    }
    let whole = |len: u64, size: u64| len > 0 && len % size == 0;
    let mut new = Vec::new();
    let mut old = Vec::new();
    if whole(disp, 242) && !whole(disp, 176) {
        new.push(format!("dispinfo {disp} bytes = {} × 242, not whole 176-byte records", disp / 242));
    }
    if whole(disp, 176) && !whole(disp, 242) {
        old.push(format!("dispinfo {disp} bytes = {} × 176, not whole 242-byte records", disp / 176));
    }
    if whole(cube, 164) && !whole(cube, 16) {
        new.push(format!("cubemaps {cube} bytes = {} × 164, not whole 16-byte records", cube / 164));
    }
    if whole(cube, 16) && !whole(cube, 164) {
        old.push(format!("cubemaps {cube} bytes = {} × 16, not whole 164-byte records", cube / 16));
    }
    match (new.is_empty(), old.is_empty()) {
        (false, true) => {
            runners_up.push(("cso2", "the 2013–2017 layout's 176-byte dispinfo and 16-byte cubemaps do not fit".into()));
            (&CSO2_2018, format!("version 100 (Counter-Strike Online 2), 2018 layout: {}", new.join("; ")), runners_up)
        }
        (true, false) => {
            runners_up.push(("cso2_2018", "the 2018 layout's 242-byte dispinfo and 164-byte cubemaps do not fit".into()));
            (&CSO2, format!("version 100 (Counter-Strike Online 2), 2013–2017 layout: {}", old.join("; ")), runners_up)
        }
        _ => {
            let held = [new, old].concat();
            let seen = if held.is_empty() {
                "no dispinfo or cubemap records".to_string()
            } else {
                format!("conflicting sizes ({})", held.join("; "))
            };
            runners_up.push(("cso2_2018", format!("{seen} to tell the 2018 layout from the 2013–2017 one")));
            (&CSO2, format!("version 100 (Counter-Strike Online 2): {seen}; the 2013–2017 layout by default"), runners_up)
        }
    }
}

/// `asw_a, asw_b, asw_c` and how many more.
fn class_list(classes: &[String]) -> String {
    let shown = classes.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match classes.len() {
        0..=3 => shown,
        n => format!("{shown} and {} more", n - 3),
    }
}

/// The original Xbox's lightmap lumps of a version-19 map: `(pages, page infos)` when lump 51
/// holds whole `dlightmappage_t` pages (at least one) and lump 52 whole 8-byte infos. PC v19
/// maps leave both empty (unused until v20 gave them the leaf ambient indices).
fn xbox_pages(data: &[u8], endian: Endian) -> Option<(usize, usize)> {
    let (pages, infos) = (lump_len(data, endian, 51) as usize, lump_len(data, endian, 52) as usize);
    (pages > 0 && pages % XBOX_LIGHTMAP_PAGE_BYTES == 0 && infos % 8 == 0).then_some((pages / XBOX_LIGHTMAP_PAGE_BYTES, infos / 8))
}

/// Choose the Source branch for a VBSP/PSBV file (source.md §3, §4.2, §27).
///
/// * 17 → VTMB; 18–19 → Source 2004; 25 → Strata; 27, 42, 100 → the licensee branches.
/// * 20 → L4D when the `sprp` game lump is version 8 (§14.3: v8 is "mostly Left 4 Dead");
///   Source 2006 when the ambient index lumps 51/52 are empty and lump 55 or 56 holds exactly
///   one 24-byte cube per leaf (open_questions.md A28); else Source 2007/2009.
/// * 21 → L4D2 when only the version-first `lump_t` order fits the file (§4.2, A1); else
///   CS:GO for `sprp` version 11; Source Filmmaker for two or more TF2 entity classes; CS:GO
///   for `sprp` version 10; Alien Swarm when the entity lump uses `asw_*` classes
///   (its maps store `sprp` version 9 as Portal 2's do); Portal 2 for 9; else the Alien Swarm
///   branch.
/// * 22 → Tactical Intervention when lump 24 holds entity text (§5), else Dota 2 / INFRA; 23 → Dota 2.
pub fn select(data: &[u8], endian: Endian, version: u32) -> Result<Detection> {
    let magic = if endian == Endian::Little { "VBSP" } else { "PSBV" };
    if endian == Endian::Little && version == DARK_MESSIAH_VERSION {
        return Ok(dark_messiah(data));
    }
    if !matches!(version, 17..=25 | 27 | 42 | 100) {
        return Err(Error::new(ErrorKind::UnsupportedVersion { magic: magic.into(), version: version as i64 }).in_lump("header").at(4));
    }
    let std = directory_fits(data, endian, false);
    let l4d2 = version == 21 && directory_fits(data, endian, true);
    let order = format!("magic {magic:?} ({} endian), version {version}", if endian == Endian::Little { "little" } else { "big" });
    let mut runners_up: Vec<(&'static str, String)> = Vec::new();
    if version == 20 {
        if let Some(d) = vindictus(data, endian) {
            return Ok(d);
        }
    }
    let fork = if version == 20 { v20_fork(data, endian) } else { None };
    let (branch, why): (&'static Branch, String) = match version {
        17 => (&VTMB, "version 17 is Vampire: The Masquerade – Bloodlines".into()),
        19 if xbox_pages(data, endian).is_some() => {
            let (pages, infos) = xbox_pages(data, endian).expect("checked");
            runners_up.push(("source2004", "lumps 51 and 52 are unused on the PC".into()));
            (
                &SOURCE_XBOX,
                format!("version 19 with {pages} whole {XBOX_LIGHTMAP_PAGE_BYTES}-byte lightmap pages in lump 51 and {infos} 8-byte page infos in lump 52 (original Xbox)"),
            )
        }
        18 | 19 => (&SOURCE2004, format!("version {version} is the Source 2004 table")),
        20 if fork.is_some() => {
            let (b, why, note) = fork.expect("checked");
            runners_up.push(("source", note.into()));
            (b, why)
        }
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
            let tf = game_classes(data, endian, "sfm");
            // Static props version 11 (uniform prop scale) is CS:GO's alone among the v21 games
            // (source.md §14.3); it outweighs TF2 classes, which a TF2 map moved to CS:GO keeps.
            if tf.len() >= 2 && sprp == Some(11) {
                runners_up.push((
                    "sfm",
                    format!("{} Team Fortress 2 entity class(es) ({}), but static props version 11 is CS:GO's", tf.len(), class_list(&tf)),
                ));
            } else if tf.len() >= 2 {
                runners_up.push(("alienswarm", "the other v21 games in the standard lump_t order".into()));
                let why = format!(
                    "lump_t entries fit in the standard order; {props}; {} Team Fortress 2 entity class(es) ({}) in a v21 map: Source Filmmaker",
                    tf.len(),
                    class_list(&tf)
                );
                return Ok(Detection { branch: &SFM, version, endian, why: vec![order, why], runners_up });
            }
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
        _ => {
            let (branch, why, others) = cso2_form(data, endian);
            runners_up.extend(others);
            (branch, why)
        }
    };
    Ok(Detection { branch, version, endian, why: vec![order, why], runners_up })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window-by-window scan `classes_in` replaced (before session 43).
    fn classes_by_windows(text: &[u8], wanted: impl Fn(&[u8]) -> bool) -> Vec<String> {
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
            if wanted(class) {
                let class = String::from_utf8_lossy(class).into_owned();
                if !out.contains(&class) {
                    out.push(class);
                }
            }
            at = i + 1 + end;
        }
        out
    }

    #[test]
    fn classes_in_is_the_window_scan() {
        // Pieces that make keys, values, cut-off keys, tabs, newlines, quotes and invalid UTF-8,
        // strung together at random.
        let pieces: [&[u8]; 14] = [
            b"\"classname\"",
            b"\"classname",
            b" ",
            b"\t",
            b"\"",
            b"\n",
            b"ship_a",
            b"npc_zeno_b",
            b"item_weapon_c",
            b"NPC_HOUNDEYE",
            b"{",
            b"}",
            b"\xff\xfe",
            b"\"classname\" \"pm_x\"\n",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut texts: Vec<Vec<u8>> = vec![Vec::new(), b"\"classname\"".to_vec(), b"\"classname\" \"".to_vec()];
        for _ in 0..3000 {
            let n = (next() % 40) as usize;
            texts.push((0..n).flat_map(|_| pieces[(next() % pieces.len() as u64) as usize].iter().copied()).collect());
        }
        let mut found = 0;
        for text in &texts {
            for game in ["outerlight", "zenoclash", "blackmesa", "sfm"] {
                let any = |c: &[u8]| !c.is_empty();
                assert_eq!(classes_in(text, any), classes_by_windows(text, any));
                let new = game_classes_in(text, game);
                let old = match game {
                    "outerlight" => classes_by_windows(text, |c| has_prefix(c, b"ship_") || has_prefix(c, b"pm_")),
                    "zenoclash" => classes_by_windows(text, |c| has_prefix(c, b"npc_zeno_")),
                    "blackmesa" => classes_by_windows(text, |c| has_prefix(c, b"item_weapon_") || c.eq_ignore_ascii_case(b"npc_houndeye")),
                    _ => classes_by_windows(text, |c| has_prefix(c, b"tf_")),
                };
                assert_eq!(new, old, "{game}: {:?}", String::from_utf8_lossy(text));
                found += new.len();
            }
        }
        assert!(found > 1000, "the texts name wanted classes ({found})");
    }
}
