//! Titanfall (`rBSP` 29) ↔ Titanfall 2 (`rBSP` 37): what maps to what, by bspkit's two lump
//! tables ([`crate::branches::respawn`], respawn_cod_facts.md §1.5–1.8).
//!
//! **Up (29 → 37):**
//!
//! - Every slot whose name and record size the two tables share is copied with its lump
//!   version (planes, vertices, meshes, materials, the collision grid, portals, lightmaps …).
//! - `WORLD_LIGHTS` (0x36): the 100-byte record is the one Titanfall 2 reads as lump version 1;
//!   the records are copied and the version set to 1.
//! - `LIGHTPROBE_REFERENCES` (0x68): Titanfall 2's record adds a word after Titanfall's 16
//!   bytes, whose meaning is not known: written 0 (`defaulted`).
//! - The game lump's `sprp` child, version 12 → 13: each prop's fields by name (origin, angles,
//!   scale, model, solid, flags, skin, cubemap, forced fade scale, lighting origin, CPU/GPU
//!   levels, diffuse modulation, collision flags); the leaf list and each prop's leaf range,
//!   fade distances and `disable_x360` have no place in version 13 (`dropped`); an empty extra
//!   list is written. Other children are copied. Child offsets keep the source's convention.
//! - `PHYSICS_LEVEL` (0x3E) and `PHYSICS_TRIANGLES` (0x46), which Titanfall 2 lacks: `dropped`.
//! - The slots Titanfall 2 adds (light probe parent infos, shadow environments, light probe BSP
//!   nodes and references, world light parent infos, real-time-light pages): left empty, each
//!   listed (`defaulted`); how the game treats them empty is not tested here (no game runs).
//!
//!
//! **Down (37 → 29)**, the same table read the other way:
//!
//! - `WORLD_LIGHTS`: lump version 1 (100 bytes) copied; versions 2 and 3 (108, 112 bytes) cut
//!   to their first 100 bytes (the added floats' meaning is unknown: `dropped` where not 0);
//!   written as lump version 0, the version bspkit's Titanfall table reads.
//! - `LIGHTPROBE_REFERENCES`: the last of Titanfall 2's five words dropped (reported where not 0).
//! - `MESHES`: Titanfall 2's per-mesh CUBEMAPS byte is the high byte of Titanfall's 16-bit
//!   vertex type; written 0 (reported where it was not 0).
//! - `CM_PRIMITIVES` of type 96 (a static prop, added in v36): kept, reported `kept_unconverted`.
//! - `sprp` 13 → 12: each prop's fields by name; an empty leaf list, no leaf range and fade
//!   distances 0 for every prop (`defaulted`); the extra records after the props `dropped`.
//! - The slots Titanfall 2 adds: `dropped` when not empty; `PHYSICS_LEVEL` and
//!   `PHYSICS_TRIANGLES`: left empty (`defaulted`); whether Titanfall loads a map without them
//!   is not tested here (no game runs). `LIGHTMAP_DATA_REAL_TIME_LIGHTS` is copied as it is.
//!
//! A Titanfall map with no leaf list, no fade distances, no physics lumps and zero words where
//! Titanfall 2 adds them goes up and back down byte for byte.
//!
//! The header keeps its third word (the map revision) and 127; lumps are laid out in the
//! source's file order, 4-byte aligned. `.bsp_lump` files the map was opened with are read as
//! the game reads them and folded into the one `.bsp` written (a file that holds only the start
//! of the `.bsp`'s own copy gives way to that copy, as folding a set does).

use std::borrow::Cow;

use zerocopy::{FromBytes, FromZeros, IntoBytes};

use crate::branch::Branch;
use crate::branches::respawn::records::{StaticPropR1, StaticPropR2};
use crate::branches::respawn::sprp::RespawnStaticProps;
use crate::bsp::Bsp;
use crate::bytes::{u32_at, Endian};
use crate::convert::report::{LumpAction, Report};
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump::{self, LumpPlace, OffsetBase, ID_STATIC_PROPS};

const WORLD_LIGHTS: usize = 0x36;
const LIGHTPROBE_REFERENCES: usize = 0x68;
const GAME_LUMP: usize = 0x23;
const MESHES: usize = 0x50;
const CM_PRIMITIVES: usize = 0x59;
/// CM_PRIMITIVES type (the top 8 bits) Titanfall 2 added: a static prop (facts §1.8).
const PRIMITIVE_STATIC_PROP: u32 = 96;
/// The most bytes a game lump child may claim.
const MAX_CHILD: u64 = 1 << 30;

/// Which way a move goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    /// Titanfall → Titanfall 2.
    Up,
    /// Titanfall 2 → Titanfall.
    Down,
}

/// Titanfall → Titanfall 2.
pub fn titanfall_to_titanfall2(bsp: &Bsp, to: &'static Branch, report: &mut Report) -> Result<Vec<u8>> {
    move_map(bsp, to, Dir::Up, report)
}

/// Titanfall 2 → Titanfall (the module notes list what each lump becomes).
pub fn titanfall2_to_titanfall(bsp: &Bsp, to: &'static Branch, report: &mut Report) -> Result<Vec<u8>> {
    move_map(bsp, to, Dir::Down, report)
}

/// A lump read from a `.bsp_lump` file whose bytes are the start of the `.bsp`'s own copy
/// (Titanfall 2's real-time-light lightmaps: the `.bsp` holds 9 bytes a texel, the file 8) is
/// taken from the `.bsp`, as folding a set keeps it ([`crate::mapset`]): nothing is lost.
pub(crate) fn in_file_if_longer<'a>(bsp: &'a Bsp, i: usize, external: &'a [u8]) -> &'a [u8] {
    if !matches!(bsp.entry(i).map(|e| &e.origin), Some(crate::directory::LumpOrigin::BspLump(_))) {
        return external;
    }
    let data = bsp.data();
    let (Some(ofs), Some(len)) = (u32_at(data, 16 + 16 * i, bsp.endian()), u32_at(data, 16 + 16 * i + 4, bsp.endian())) else {
        return external;
    };
    match data.get(ofs as usize..(ofs as usize).saturating_add(len as usize)) {
        Some(inside) if inside.len() > external.len() && inside.starts_with(external) => inside,
        _ => external,
    }
}

/// The record count of a lump whose length must be a whole number of `size`-byte records.
fn records(bsp: &Bsp, i: usize, raw: &[u8], size: usize) -> Result<usize> {
    if raw.len() % size != 0 {
        return Err(bsp.lump_error(i, Error::new(ErrorKind::BadLumpLength { length: raw.len() as u64, record_size: size })));
    }
    Ok(raw.len() / size)
}

fn move_map(bsp: &Bsp, to: &'static Branch, dir: Dir, report: &mut Report) -> Result<Vec<u8>> {
    let from = bsp.branch();
    let data = bsp.data();
    if data.len() < 16 + 16 * 128 || &data[0..4] != b"rBSP" {
        return Err(Error::malformed("rBSP header"));
    }
    let (from_game, to_game) = match dir {
        Dir::Up => ("Titanfall", "Titanfall 2"),
        Dir::Down => ("Titanfall 2", "Titanfall"),
    };
    let mut lumps: Vec<(Vec<u8>, u32)> = Vec::with_capacity(128);
    let mut order: Vec<(u64, usize)> = Vec::new();
    let mut game: Option<(Vec<Child>, bool)> = None;
    for i in 0..128 {
        let (sname, tname) = (from.lumps[i].name, to.lumps[i].name);
        let entry = bsp.entry(i);
        let version = entry.and_then(|e| e.version).unwrap_or(0);
        let raw: &[u8] = match entry {
            Some(e) if e.length > 0 => in_file_if_longer(bsp, i, bsp.raw_lump(i).map_err(|err| bsp.lump_error(i, err))?),
            _ => &[],
        };
        order.push((entry.map_or(u64::MAX, |e| e.offset), i));
        let (bytes, version, action): (Vec<u8>, u32, &'static str) = if i == WORLD_LIGHTS && dir == Dir::Up {
            records(bsp, i, raw, 100)?;
            (raw.to_vec(), if raw.is_empty() { version } else { 1 }, "converted")
        } else if i == WORLD_LIGHTS {
            world_lights_down(bsp, raw, version, report)?
        } else if i == LIGHTPROBE_REFERENCES && dir == Dir::Up {
            let n = records(bsp, i, raw, 16)?;
            let mut out = Vec::with_capacity(n * 20);
            for r in raw.chunks_exact(16) {
                out.extend_from_slice(r);
                out.extend_from_slice(&0i32.to_le_bytes());
            }
            if n > 0 {
                report.loss(
                    Some(i),
                    Some(tname.into()),
                    "defaulted",
                    format!("{n} record(s): Titanfall 2's added word (meaning unknown) set to 0"),
                );
            }
            (out, version, "converted")
        } else if i == LIGHTPROBE_REFERENCES {
            records(bsp, i, raw, 20)?;
            let mut out = Vec::with_capacity(raw.len() / 20 * 16);
            let mut set = 0usize;
            for r in raw.chunks_exact(20) {
                out.extend_from_slice(&r[..16]);
                set += usize::from(r[16..20] != [0; 4]);
            }
            if set > 0 {
                report.loss(
                    Some(i),
                    Some(tname.into()),
                    "dropped",
                    format!("{set} record(s): Titanfall 2's last word (meaning unknown), not 0, has no place in Titanfall's 16 bytes"),
                );
            }
            (out, version, "converted")
        } else if i == MESHES && dir == Dir::Down {
            let n = records(bsp, i, raw, 28)?;
            let mut out = raw.to_vec();
            let mut cubemaps = 0usize;
            for k in 0..n {
                // MeshR2's cubemap byte is the high byte of MeshR1's 16-bit vertex type.
                let at = 28 * k + 11;
                cubemaps += usize::from(out[at] != 0);
                out[at] = 0;
            }
            if cubemaps > 0 {
                report.loss(Some(i), Some(tname.into()), "dropped", format!("{cubemaps} mesh(es): the CUBEMAPS index Titanfall 2 keeps per mesh (Titanfall's meshes have none; their material sorts name a cubemap)"));
            }
            (out, version, "converted")
        } else if i == CM_PRIMITIVES && dir == Dir::Down {
            let n = records(bsp, i, raw, 4)?;
            let props = raw.chunks_exact(4).filter(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) >> 24 == PRIMITIVE_STATIC_PROP).count();
            if props > 0 {
                report.loss(
                    Some(i),
                    Some(tname.into()),
                    "kept_unconverted",
                    format!("{props} of {n} collision primitive(s) of type 96 (a static prop), a type Titanfall 2 added: kept as they are"),
                );
            }
            (raw.to_vec(), version, "copied")
        } else if i == GAME_LUMP {
            let offset = bsp.entry(i).map_or(0, |e| e.offset);
            let (kids, absolute) = game_lump(raw, offset, dir, report).map_err(|e| bsp.lump_error(i, e))?;
            // Built at 0 for its length; built again for its place below.
            let bytes = if raw.is_empty() { Vec::new() } else { crate::write::build_game_lump(&kids, Endian::Little, 0)? };
            game = Some((kids, absolute));
            (bytes, version, "converted")
        } else if sname != tname {
            if !raw.is_empty() && !sname.starts_with("UNUSED") {
                report.loss(Some(i), Some(sname.into()), "dropped", format!("{} bytes: {to_game} has no {sname} lump", raw.len()));
            } else if !raw.is_empty() {
                report.loss(Some(i), Some(sname.into()), "dropped", format!("{} bytes in a slot {from_game} leaves unused", raw.len()));
            }
            if !tname.starts_with("UNUSED") {
                report.loss(Some(i), Some(tname.into()), "defaulted", format!("empty: {from_game} has no {tname} lump"));
            }
            (Vec::new(), 0, "dropped")
        } else {
            (raw.to_vec(), version, "copied")
        };
        if !(raw.is_empty() && bytes.is_empty()) {
            report.lumps.push(LumpAction {
                index: i,
                name: tname,
                action,
                source_bytes: raw.len() as u64,
                target_bytes: bytes.len() as u64,
                source_lzma: false,
                target_lzma: false,
            });
        }
        lumps.push((bytes, version));
    }

    // Layout: the source's file order, 4-byte aligned.
    order.sort();
    let mut placed = vec![0u64; 128];
    let mut pos = 16 + 16 * 128u64;
    for &(_, i) in &order {
        if lumps[i].0.is_empty() {
            continue;
        }
        pos = pos.next_multiple_of(4);
        placed[i] = pos;
        pos += lumps[i].0.len() as u64;
    }
    // The game lump's absolute child offsets are for its new place.
    if let Some((kids, true)) = &game {
        if !lumps[GAME_LUMP].0.is_empty() {
            lumps[GAME_LUMP].0 = crate::write::build_game_lump(kids, Endian::Little, placed[GAME_LUMP])?;
        }
    }
    let mut out = Vec::with_capacity(pos as usize);
    out.extend_from_slice(b"rBSP");
    out.extend_from_slice(&(if dir == Dir::Up { 37u32 } else { 29 }).to_le_bytes());
    out.extend_from_slice(&u32_at(data, 8, Endian::Little).unwrap_or(0).to_le_bytes());
    out.extend_from_slice(&127u32.to_le_bytes());
    for (i, (bytes, version)) in lumps.iter().enumerate() {
        let ofs = u32::try_from(placed[i])
            .map_err(|_| Error::new(ErrorKind::LimitExceeded { what: "lump offset", requested: placed[i], limit: u32::MAX as u64 }))?;
        for f in [ofs, bytes.len() as u32, *version, 0] {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    for &(_, i) in &order {
        if lumps[i].0.is_empty() {
            continue;
        }
        out.resize(placed[i] as usize, 0);
        out.extend_from_slice(&lumps[i].0);
    }
    out.resize(out.len().next_multiple_of(4), 0);
    Ok(out)
}

fn place(file_offset: u64) -> LumpPlace {
    LumpPlace { file_offset, from_lmp: false }
}

/// A game lump child: id, flags, version, stored bytes, `filelen`.
type Child = (u32, u16, u16, Vec<u8>, u32);

/// The game lump's children with `sprp` made the target's version (13 up, 12 down), and
/// whether its child offsets are absolute (from the file start) in the source.
fn game_lump(raw: &[u8], offset: u64, dir: Dir, report: &mut Report) -> Result<(Vec<Child>, bool)> {
    if raw.is_empty() {
        return Ok((Vec::new(), false));
    }
    let (from_v, to_v) = if dir == Dir::Up { (12u16, 13u16) } else { (13, 12) };
    let dir_ = gamelump::parse_directory(raw, place(offset), Endian::Little)?;
    let mut children = Vec::with_capacity(dir_.entries.len());
    for e in dir_.entries.iter().filter(|e| !e.is_dummy()) {
        if e.id == ID_STATIC_PROPS && e.version == from_v && !e.compressed {
            let child = gamelump::child_bytes(raw, e, MAX_CHILD)?;
            let sprp = if dir == Dir::Up { sprp_12_to_13(&child, report)? } else { sprp_13_to_12(&child, report)? };
            let len = sprp.len() as u32;
            children.push((e.id, e.flags, to_v, sprp, len));
        } else {
            if e.id == ID_STATIC_PROPS {
                report.loss(None, Some("GAME_LUMP/sprp".into()), "kept_unconverted", format!("sprp version {} copied as it is", e.version));
            }
            // As stored (an LZMA child stays compressed, its `filelen` the uncompressed size).
            let stored = raw
                .get(e.start..e.start + e.stored_len)
                .ok_or_else(|| Error::truncated((e.start + e.stored_len) as u64, raw.len() as u64))?;
            children.push((e.id, e.flags, e.version, stored.to_vec(), e.length));
        }
    }
    Ok((children, dir_.base == OffsetBase::Absolute && offset > 0))
}

/// WORLD_LIGHTS of Titanfall 2 (lump version 1, 2 or 3: 100, 108 or 112 bytes) as Titanfall's
/// 100-byte records, lump version 0 (the version bspkit's Titanfall table reads).
fn world_lights_down(bsp: &Bsp, raw: &[u8], version: u32, report: &mut Report) -> Result<(Vec<u8>, u32, &'static str)> {
    if raw.is_empty() {
        return Ok((Vec::new(), 0, "copied"));
    }
    let size = match version {
        1 => 100,
        2 => 108,
        3 => 112,
        v => return Err(bsp.lump_error(WORLD_LIGHTS, Error::new(ErrorKind::Unsupported(format!("WORLD_LIGHTS lump version {v}"))))),
    };
    let n = records(bsp, WORLD_LIGHTS, raw, size)?;
    let mut out = Vec::with_capacity(n * 100);
    let mut extra = 0usize;
    for r in raw.chunks_exact(size) {
        out.extend_from_slice(&r[..100]);
        extra += usize::from(r[100..].iter().any(|&b| b != 0));
    }
    if extra > 0 {
        report.loss(
            Some(WORLD_LIGHTS),
            Some("WORLD_LIGHTS".into()),
            "dropped",
            format!("{extra} of {n} light(s): the {} float(s) lump version {version} adds (meaning unknown), not 0", (size - 100) / 4),
        );
    }
    Ok((out, 0, "converted"))
}

/// The `sprp` fields Titanfall (v12) and Titanfall 2 (v13) store with the same type, copied
/// as they are in both directions; skin, cubemap and collision flags differ in type and are
/// converted by each direction itself.
macro_rules! copy_same_fields {
    ($from:ident => $to:ident) => {
        $to.origin = $from.origin;
        $to.angles = $from.angles;
        $to.scale = $from.scale;
        $to.model = $from.model;
        $to.solid = $from.solid;
        $to.flags = $from.flags;
        $to.forced_fade_scale = $from.forced_fade_scale;
        $to.lighting_origin = $from.lighting_origin;
        $to.cpu_level = $from.cpu_level;
        $to.gpu_level = $from.gpu_level;
        $to.diffuse_modulation = $from.diffuse_modulation;
    };
}

/// A `sprp` child of version 12 (Titanfall) as version 13 (Titanfall 2).
fn sprp_12_to_13(data: &[u8], report: &mut Report) -> Result<Vec<u8>> {
    let sp = RespawnStaticProps::parse(Cow::Borrowed(data), 12, "titanfall").map_err(|e| e.in_lump("GAME_LUMP/sprp"))?;
    let names_len = 4 + 128 * sp.model_names.len();
    let props_start = names_len + 4 + 2 * sp.leaves.len() + 12;
    let mut out = data[..names_len].to_vec();
    out.extend_from_slice(&(sp.count as u32).to_le_bytes());
    for w in sp.unknown {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let (mut fades, mut x360, mut ranges, mut collision) = (0usize, 0usize, 0usize, Vec::new());
    for k in 0..sp.count {
        let at = props_start + 84 * k;
        let p =
            <StaticPropR1>::read_from_bytes(&data[at..at + 84]).map_err(|_| Error::malformed("sprp record").in_lump("GAME_LUMP/sprp"))?;
        let mut q = <StaticPropR2>::new_zeroed();
        copy_same_fields!(p => q);
        // The same 16 bits (−1, no cubemap, stays 0xFFFF).
        q.skin.set(p.skin.get() as u16);
        q.cubemap.set(p.cubemap.get() as u16);
        for (j, c) in p.collision_flags.iter().enumerate() {
            match u16::try_from(c.get()) {
                Ok(v) => q.collision_flags[j].set(v),
                Err(_) => collision.push(format!("prop {k} collision_flags[{j}] = {:#x}", c.get())),
            }
        }
        fades += usize::from(p.fade_min.get() != 0.0 || p.fade_max.get() != 0.0);
        x360 += usize::from(p.disable_x360.get() != 0);
        ranges += usize::from(p.num_leaves.get() != 0);
        out.extend_from_slice(q.as_bytes());
    }
    if !collision.is_empty() {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "{} collision flag word(s) do not fit Titanfall 2's 16 bits (first: {})",
            collision.len(),
            collision[0]
        ))));
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    let lump = Some("GAME_LUMP/sprp".to_string());
    if !sp.leaves.is_empty() || ranges > 0 {
        report.loss(
            None,
            lump.clone(),
            "dropped",
            format!("the leaf list ({} entries) and {ranges} prop leaf range(s): version 13 has none", sp.leaves.len()),
        );
    }
    if fades > 0 {
        report.loss(None, lump.clone(), "dropped", format!("{fades} prop(s) with fade distances: version 13 has none"));
    }
    if x360 > 0 {
        report.loss(None, lump, "dropped", format!("{x360} prop(s) with disable_x360 set: version 13 has no such field"));
    }
    Ok(out)
}

/// A `sprp` child of version 13 (Titanfall 2) as version 12 (Titanfall).
fn sprp_13_to_12(data: &[u8], report: &mut Report) -> Result<Vec<u8>> {
    let sp = RespawnStaticProps::parse(Cow::Borrowed(data), 13, "titanfall2").map_err(|e| e.in_lump("GAME_LUMP/sprp"))?;
    let names_len = 4 + 128 * sp.model_names.len();
    let mut out = data[..names_len].to_vec();
    // No leaf list: version 13 has none to give.
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(sp.count as u32).to_le_bytes());
    for w in sp.unknown {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for q in sp.props_r2() {
        let mut p = <StaticPropR1>::new_zeroed();
        copy_same_fields!(q => p);
        p.skin.set(q.skin.get() as i16);
        p.cubemap.set(q.cubemap.get() as i16);
        for (j, c) in q.collision_flags.iter().enumerate() {
            p.collision_flags[j].set(c.get() as u32);
        }
        out.extend_from_slice(p.as_bytes());
    }
    let lump = Some("GAME_LUMP/sprp".to_string());
    if sp.count > 0 {
        report.loss(
            None,
            lump.clone(),
            "defaulted",
            format!(
                "{} prop(s): no leaf range (Titanfall's leaf list is empty; version 13 stores none) and fade distances 0, 0 (version 13 has none); whether Titanfall draws a prop with no leaves is not tested here",
                sp.count
            ),
        );
    }
    if sp.extra_count > 0 {
        report.loss(None, lump, "dropped", format!("{} extra record(s) after the props: version 12 has no such list", sp.extra_count));
    }
    Ok(out)
}
