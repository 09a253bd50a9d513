//! Titanfall (`rBSP` 29) → Titanfall 2 (`rBSP` 37): what maps to what, by bspkit's two lump
//! tables ([`crate::branches::respawn`], respawn_cod_facts.md §1.5–1.8).
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
//! The header keeps its third word (the map revision) and 127; lumps are laid out in the
//! source's file order, 4-byte aligned. `.bsp_lump` files the map was opened with are read as
//! the game reads them and folded into the one `.bsp` written.

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
/// The most bytes a game lump child may claim.
const MAX_CHILD: u64 = 1 << 30;

/// Titanfall → Titanfall 2.
pub fn titanfall_to_titanfall2(bsp: &Bsp, to: &'static Branch, report: &mut Report) -> Result<Vec<u8>> {
    let from = bsp.branch();
    let data = bsp.data();
    if data.len() < 16 + 16 * 128 || &data[0..4] != b"rBSP" {
        return Err(Error::malformed("rBSP header"));
    }
    let mut lumps: Vec<(Vec<u8>, u32)> = Vec::with_capacity(128);
    let mut order: Vec<(u64, usize)> = Vec::new();
    let mut game: Option<(Vec<Child>, bool)> = None;
    for i in 0..128 {
        let (sname, tname) = (from.lumps[i].name, to.lumps[i].name);
        let entry = bsp.entry(i);
        let version = entry.and_then(|e| e.version).unwrap_or(0);
        let raw: &[u8] = match entry {
            Some(e) if e.length > 0 => bsp.raw_lump(i).map_err(|err| bsp.lump_error(i, err))?,
            _ => &[],
        };
        order.push((entry.map_or(u64::MAX, |e| e.offset), i));
        let (bytes, version, action): (Vec<u8>, u32, &'static str) = if i == WORLD_LIGHTS {
            if raw.len() % 100 != 0 {
                return Err(bsp.lump_error(i, Error::new(ErrorKind::BadLumpLength { length: raw.len() as u64, record_size: 100 })));
            }
            (raw.to_vec(), if raw.is_empty() { version } else { 1 }, "converted")
        } else if i == LIGHTPROBE_REFERENCES {
            if raw.len() % 16 != 0 {
                return Err(bsp.lump_error(i, Error::new(ErrorKind::BadLumpLength { length: raw.len() as u64, record_size: 16 })));
            }
            let n = raw.len() / 16;
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
        } else if i == GAME_LUMP {
            let offset = bsp.entry(i).map_or(0, |e| e.offset);
            let (kids, absolute) = game_lump(raw, offset, report).map_err(|e| bsp.lump_error(i, e))?;
            // Built at 0 for its length; built again for its place below.
            let bytes = if raw.is_empty() { Vec::new() } else { crate::write::build_game_lump(&kids, Endian::Little, 0)? };
            game = Some((kids, absolute));
            (bytes, version, "converted")
        } else if sname != tname {
            if !raw.is_empty() && !sname.starts_with("UNUSED") {
                report.loss(Some(i), Some(sname.into()), "dropped", format!("{} bytes: Titanfall 2 has no {sname} lump", raw.len()));
            } else if !raw.is_empty() {
                report.loss(Some(i), Some(sname.into()), "dropped", format!("{} bytes in a slot Titanfall leaves unused", raw.len()));
            }
            if !tname.starts_with("UNUSED") {
                report.loss(Some(i), Some(tname.into()), "defaulted", format!("empty: Titanfall has no {tname} lump"));
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
    out.extend_from_slice(&37u32.to_le_bytes());
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

/// The game lump's children with `sprp` made version 13, and whether its child offsets are
/// absolute (from the file start) in the source.
fn game_lump(raw: &[u8], offset: u64, report: &mut Report) -> Result<(Vec<Child>, bool)> {
    if raw.is_empty() {
        return Ok((Vec::new(), false));
    }
    let dir = gamelump::parse_directory(raw, place(offset), Endian::Little)?;
    let mut children = Vec::with_capacity(dir.entries.len());
    for e in dir.entries.iter().filter(|e| !e.is_dummy()) {
        if e.id == ID_STATIC_PROPS && e.version == 12 && !e.compressed {
            let sprp = sprp_12_to_13(&gamelump::child_bytes(raw, e, MAX_CHILD)?, report)?;
            let len = sprp.len() as u32;
            children.push((e.id, e.flags, 13u16, sprp, len));
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
    Ok((children, dir.base == OffsetBase::Absolute && offset > 0))
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
        let p = StaticPropR1::read_from_bytes(&data[at..at + 84]).map_err(|_| Error::malformed("sprp record").in_lump("GAME_LUMP/sprp"))?;
        let mut q = StaticPropR2::new_zeroed();
        q.origin = p.origin;
        q.angles = p.angles;
        q.scale = p.scale;
        q.model = p.model;
        q.solid = p.solid;
        q.flags = p.flags;
        // The same 16 bits (−1, no cubemap, stays 0xFFFF).
        q.skin.set(p.skin.get() as u16);
        q.cubemap.set(p.cubemap.get() as u16);
        q.forced_fade_scale = p.forced_fade_scale;
        q.lighting_origin = p.lighting_origin;
        q.cpu_level = p.cpu_level;
        q.gpu_level = p.gpu_level;
        q.diffuse_modulation = p.diffuse_modulation;
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
