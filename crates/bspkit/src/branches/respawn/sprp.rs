//! Respawn static props: the `sprp` child of the game lump (respawn_cod_facts.md §1.4, §1.8).
//! Works on the child's bytes (the game lump directory is shared with Source, see
//! [`crate::lumps::gamelump`]).
//!
//! ```text
//! v12 (Titanfall):  u32 names; char name[names][128]; u32 leaves; u16 leaf[leaves];
//!                   u32 props; u32 unknown[2]; StaticPropR1 prop[props]        (84 bytes each)
//! v13 (Titanfall 2), 47–52 (Apex, the sprp version follows the map version):
//!                   u32 names; char name[names][128];
//!                   u32 props; u32 unknown[2]; StaticPropR2 prop[props]        (64 bytes each)
//!                   [u32 extras; StaticPropExtra extra[extras]]                (64 bytes each)
//! ```
//!
//! The trailing extra list is left out by some compilers when everything is empty (crossfire:
//! 16 bytes; mp_looby: 20 bytes, the extra count 0). Bytes left after the last list are an
//! error, as is any count that runs past the child.

use std::borrow::Cow;

use zerocopy::FromBytes;

use super::records::{StaticPropExtra, StaticPropR1, StaticPropR2};
use crate::bytes::{c_str, u16_at, u32_at, Endian};
use crate::error::{Error, Result};
use crate::lumps::staticprops::MODEL_NAME_LEN;

/// Which prop record a `sprp` child holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum RespawnPropLayout {
    /// 84 bytes, version 12 (Titanfall).
    R1,
    /// 64 bytes, version 13 (Titanfall 2) and 47–52 (Apex).
    R2,
}

impl RespawnPropLayout {
    pub fn size(self) -> usize {
        match self {
            RespawnPropLayout::R1 => std::mem::size_of::<StaticPropR1>(),
            RespawnPropLayout::R2 => std::mem::size_of::<StaticPropR2>(),
        }
    }
    /// The layout of a `sprp` version; an unknown version falls back to the branch's own.
    pub fn of(version: u16, branch_id: &str) -> Self {
        match version {
            12 => RespawnPropLayout::R1,
            13 | 47..=52 => RespawnPropLayout::R2,
            _ if matches!(branch_id, "titanfall" | "titanfall_x360") => RespawnPropLayout::R1,
            _ => RespawnPropLayout::R2,
        }
    }
}

/// One static prop in host values, whatever its layout.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RespawnProp {
    pub origin: [f32; 3],
    /// Pitch, yaw, roll.
    pub angles: [f32; 3],
    pub scale: f32,
    pub model: u16,
    /// The dictionary name, when `model` is in range.
    pub model_name: Option<String>,
    pub solid: u8,
    pub flags: u8,
    pub skin: i32,
    pub cubemap: i32,
    pub forced_fade_scale: f32,
    pub lighting_origin: [f32; 3],
    pub cpu_level: [i8; 2],
    pub gpu_level: [i8; 2],
    pub diffuse_modulation: [u8; 4],
    pub collision_flags: [u32; 2],
    /// Fade distances (v12 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fade: Option<[f32; 2]>,
    /// First leaf and leaf count (v12 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaves: Option<[u16; 2]>,
}

fn v3<O: zerocopy::ByteOrder>(v: &[zerocopy::byteorder::F32<O>; 3]) -> [f32; 3] {
    [v[0].get(), v[1].get(), v[2].get()]
}

/// A parsed Respawn `sprp` child.
#[derive(Debug, Clone)]
pub struct RespawnStaticProps<'a> {
    data: Cow<'a, [u8]>,
    /// Big for the Xbox 360 branch (every word and prop field byte-swapped), little otherwise.
    pub endian: Endian,
    pub version: u16,
    pub layout: RespawnPropLayout,
    pub model_names: Vec<String>,
    /// The leaf list (v12 only).
    pub leaves: Vec<u16>,
    /// The two words between the prop count and the props (not interpreted).
    pub unknown: [u32; 2],
    pub count: usize,
    props_start: usize,
    /// Number of 64-byte records after the props (v13+).
    pub extra_count: usize,
    extra_start: usize,
}

impl<'a> RespawnStaticProps<'a> {
    /// Parse a `sprp` child of game lump version `version` from a map of branch `branch_id`.
    pub fn parse(data: Cow<'a, [u8]>, version: u16, branch_id: &str) -> Result<Self> {
        let layout = RespawnPropLayout::of(version, branch_id);
        let endian = if branch_id == "titanfall_x360" { Endian::Big } else { Endian::Little };
        let d: &[u8] = &data;
        let word = |pos: usize, what: &str| -> Result<usize> {
            let n = u32_at(d, pos, endian).ok_or_else(|| Error::truncated(pos as u64 + 4, d.len() as u64).at(pos as u64))?;
            usize::try_from(n).map_err(|_| Error::malformed(format!("static prop {what} {n} does not fit")).at(pos as u64))
        };
        let span = |pos: usize, n: usize, size: usize, what: &str| -> Result<usize> {
            let end = (n as u64).checked_mul(size as u64).and_then(|b| b.checked_add(pos as u64)).unwrap_or(u64::MAX);
            if end > d.len() as u64 {
                return Err(Error::malformed(format!("{n} static prop {what} run past the {}-byte sprp lump", d.len())).at(pos as u64));
            }
            Ok(end as usize)
        };
        let names = word(0, "model name count")?;
        let names_end = span(4, names, MODEL_NAME_LEN, "model names")?;
        let model_names = d[4..names_end].chunks_exact(MODEL_NAME_LEN).map(|n| c_str(n).into_owned()).collect();
        let (leaves, mut pos) = if layout == RespawnPropLayout::R1 {
            let n = word(names_end, "leaf count")?;
            let end = span(names_end + 4, n, 2, "leaves")?;
            let leaves = (0..n).filter_map(|i| u16_at(d, names_end + 4 + 2 * i, endian)).collect();
            (leaves, end)
        } else {
            (Vec::new(), names_end)
        };
        let count = word(pos, "prop count")?;
        let unknown = [word(pos + 4, "word")? as u32, word(pos + 8, "word")? as u32];
        pos += 12;
        let props_start = pos;
        pos = span(pos, count, layout.size(), "props")?;
        let (extra_count, extra_start) = if layout == RespawnPropLayout::R2 && pos < d.len() {
            let n = word(pos, "extra record count")?;
            let end = span(pos + 4, n, std::mem::size_of::<StaticPropExtra>(), "extra records")?;
            let start = pos + 4;
            pos = end;
            (n, start)
        } else {
            (0, pos)
        };
        if pos != d.len() {
            return Err(Error::malformed(format!(
                "sprp version {version}: {} bytes follow the last {} (layout {layout:?})",
                d.len() - pos,
                if layout == RespawnPropLayout::R2 { "extra record" } else { "prop" }
            ))
            .at(pos as u64));
        }
        Ok(RespawnStaticProps { data, endian, version, layout, model_names, leaves, unknown, count, props_start, extra_count, extra_start })
    }

    /// The props as zero-copy records (v12, little-endian; empty for a big-endian child).
    pub fn props_r1(&self) -> &[StaticPropR1] {
        match (self.layout, self.endian) {
            (RespawnPropLayout::R1, Endian::Little) => self.slice(self.props_start, self.count),
            _ => &[],
        }
    }
    /// The props as zero-copy big-endian records (v12 of the Xbox 360 branch; empty otherwise).
    pub fn props_r1_big(&self) -> &[StaticPropR1<zerocopy::BigEndian>] {
        match (self.layout, self.endian) {
            (RespawnPropLayout::R1, Endian::Big) => self.slice(self.props_start, self.count),
            _ => &[],
        }
    }
    /// The props as zero-copy records (v13+).
    pub fn props_r2(&self) -> &[StaticPropR2] {
        match self.layout {
            RespawnPropLayout::R2 => self.slice(self.props_start, self.count),
            RespawnPropLayout::R1 => &[],
        }
    }
    /// The records after the props (v13+).
    pub fn extras(&self) -> &[StaticPropExtra] {
        self.slice(self.extra_start, self.extra_count)
    }
    fn slice<T: FromBytes + zerocopy::Immutable + zerocopy::KnownLayout>(&self, start: usize, n: usize) -> &[T] {
        // `parse` checked that every run lies inside the data.
        let bytes = self.data.get(start..start + n * std::mem::size_of::<T>()).unwrap_or(&[]);
        <[T]>::ref_from_bytes(bytes).unwrap_or(&[])
    }

    /// Every prop in host values, with its model name.
    pub fn props(&self) -> Vec<RespawnProp> {
        // The fields both layouts share, by name.
        macro_rules! common {
            ($p:expr, collision: $c:expr, fade: $fade:expr, leaves: $leaves:expr) => {{
                let p = $p;
                RespawnProp {
                    origin: v3(&p.origin),
                    angles: v3(&p.angles),
                    scale: p.scale.get(),
                    model: p.model.get(),
                    model_name: self.model_names.get(p.model.get() as usize).cloned(),
                    solid: p.solid,
                    flags: p.flags,
                    skin: p.skin.get() as i32,
                    cubemap: p.cubemap.get() as i32,
                    forced_fade_scale: p.forced_fade_scale.get(),
                    lighting_origin: v3(&p.lighting_origin),
                    cpu_level: p.cpu_level,
                    gpu_level: p.gpu_level,
                    diffuse_modulation: p.diffuse_modulation,
                    collision_flags: $c,
                    fade: $fade,
                    leaves: $leaves,
                }
            }};
        }
        let mut out = Vec::with_capacity(self.count);
        out.extend(self.props_r1().iter().map(|p| {
            common!(p, collision: [p.collision_flags[0].get(), p.collision_flags[1].get()],
                fade: Some([p.fade_min.get(), p.fade_max.get()]), leaves: Some([p.first_leaf.get(), p.num_leaves.get()]))
        }));
        out.extend(self.props_r1_big().iter().map(|p| {
            common!(p, collision: [p.collision_flags[0].get(), p.collision_flags[1].get()],
                fade: Some([p.fade_min.get(), p.fade_max.get()]), leaves: Some([p.first_leaf.get(), p.num_leaves.get()]))
        }));
        out.extend(self.props_r2().iter().map(
            |p| common!(p, collision: [p.collision_flags[0].get() as u32, p.collision_flags[1].get() as u32], fade: None, leaves: None),
        ));
        out
    }
}

/// Lay out a `sprp` child (for tests and the builder): names, leaves (v12 only), props given
/// as raw records of the layout's size, extras (v13+ only, written when `extras` is `Some`).
pub fn build(layout: RespawnPropLayout, names: &[&str], leaves: &[u16], props: &[Vec<u8>], extras: Option<&[Vec<u8>]>) -> Vec<u8> {
    let mut out = (names.len() as u32).to_le_bytes().to_vec();
    for n in names {
        let mut b = [0u8; MODEL_NAME_LEN];
        let len = n.len().min(MODEL_NAME_LEN - 1);
        b[..len].copy_from_slice(&n.as_bytes()[..len]);
        out.extend_from_slice(&b);
    }
    if layout == RespawnPropLayout::R1 {
        out.extend_from_slice(&(leaves.len() as u32).to_le_bytes());
        for l in leaves {
            out.extend_from_slice(&l.to_le_bytes());
        }
    }
    out.extend_from_slice(&(props.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0u8; 8]);
    for p in props {
        out.extend_from_slice(p);
    }
    if let (RespawnPropLayout::R2, Some(extras)) = (layout, extras) {
        out.extend_from_slice(&(extras.len() as u32).to_le_bytes());
        for e in extras {
            out.extend_from_slice(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::{FromZeros, IntoBytes};

    #[test]
    fn both_layouts_parse_and_tails_are_refused() {
        let mut p = <StaticPropR2>::new_zeroed();
        p.origin[2].set(64.0);
        p.model.set(1);
        p.scale.set(1.5);
        let data = build(RespawnPropLayout::R2, &["a.rmdl", "b.rmdl"], &[], &[p.as_bytes().to_vec()], Some(&[vec![0u8; 64]]));
        let sp = RespawnStaticProps::parse(Cow::Owned(data.clone()), 13, "titanfall2").unwrap();
        assert_eq!((sp.count, sp.extra_count, sp.model_names.len()), (1, 1, 2));
        let props = sp.props();
        assert_eq!((props[0].origin[2], props[0].scale, props[0].model_name.as_deref()), (64.0, 1.5, Some("b.rmdl")));
        // Apex tags sprp with the map version.
        assert_eq!(RespawnStaticProps::parse(Cow::Owned(data.clone()), 49, "apex").unwrap().count, 1);
        // Empty lumps with and without the extra count (crossfire 16 bytes, mp_looby 20).
        assert_eq!(RespawnStaticProps::parse(Cow::Owned(vec![0u8; 16]), 13, "titanfall2").unwrap().count, 0);
        assert_eq!(RespawnStaticProps::parse(Cow::Owned(vec![0u8; 20]), 13, "titanfall2").unwrap().extra_count, 0);
        let mut tail = data.clone();
        tail.push(0);
        assert!(RespawnStaticProps::parse(Cow::Owned(tail), 13, "titanfall2").is_err());
        let mut big = data;
        big[4 + 256..4 + 256 + 4].copy_from_slice(&1000u32.to_le_bytes());
        assert!(RespawnStaticProps::parse(Cow::Owned(big), 13, "titanfall2").is_err());

        let mut p = <StaticPropR1>::new_zeroed();
        p.fade_max.set(900.0);
        let data = build(RespawnPropLayout::R1, &["m.mdl"], &[3, 4], &[p.as_bytes().to_vec(), p.as_bytes().to_vec()], None);
        let sp = RespawnStaticProps::parse(Cow::Owned(data), 12, "titanfall").unwrap();
        assert_eq!((sp.count, sp.leaves.clone(), sp.layout), (2, vec![3, 4], RespawnPropLayout::R1));
        assert_eq!(sp.props()[1].fade, Some([0.0, 900.0]));
        assert!(RespawnStaticProps::parse(Cow::Owned(vec![0u8; 3]), 12, "titanfall").is_err());
    }
}
