//! Builder maps of the Source forks that differ from Valve's branches in their static props
//! (`outerlight`, `zenoclash`, `ftb`, `blackmesa`; source.md §3, §14.3): a v20 map with an
//! entity lump and a `sprp` game lump holding two props of the fork's form, for the garble test
//! and the fuzz seeds. The forms are [`crate::lumps::staticprops`]' records.

use zerocopy::{FromZeros, IntoBytes, LittleEndian};

use super::builder::BspBuilder;
use crate::branch::Branch;
use crate::branches::source::lumps as source;
use crate::bytes::Endian;
use crate::lumps::gamelump::{self, OffsetBase, ID_STATIC_PROPS};
use crate::lumps::staticprops::*;

type L = LittleEndian;

fn name128(s: &str) -> [u8; MODEL_NAME_LEN] {
    let mut b = [0u8; MODEL_NAME_LEN];
    b[..s.len()].copy_from_slice(s.as_bytes());
    b
}

/// A `sprp` child: dictionary, (Zeno Clash's second list), leaves, props.
pub fn sprp_bytes(names: &[&str], extra: Option<&[&str]>, leaves: &[u16], props: &[&[u8]]) -> Vec<u8> {
    let mut out = (names.len() as i32).to_le_bytes().to_vec();
    names.iter().for_each(|n| out.extend_from_slice(&name128(n)));
    if let Some(extra) = extra {
        out.extend_from_slice(&(extra.len() as i32).to_le_bytes());
        extra.iter().for_each(|n| out.extend_from_slice(&name128(n)));
    }
    out.extend_from_slice(&(leaves.len() as i32).to_le_bytes());
    leaves.iter().for_each(|l| out.extend_from_slice(&l.to_le_bytes()));
    out.extend_from_slice(&(props.len() as i32).to_le_bytes());
    props.iter().for_each(|p| out.extend_from_slice(p));
    out
}

fn v6(origin: f32, model: u16) -> StaticPropV6<L> {
    let mut p = StaticPropV6::<L>::new_zeroed();
    p.v5.v4.origin[0].set(origin);
    p.v5.v4.model.set(model);
    p.v5.v4.leaf_count.set(1);
    p.v5.v4.solid = 6;
    p.v5.v4.fade_max.set(1000.0);
    p.v5.forced_fade_scale.set(1.0);
    p
}

/// The `sprp` version and bytes (two props on leaf 0) of a fork's form; `None` for branches
/// without their own form.
pub fn fork_sprp(branch: &Branch) -> Option<(u16, Vec<u8>)> {
    let names = ["models/a.mdl", "models/b.mdl"];
    let one = |v: u16, extra: Option<&[&str]>, p: &[u8]| (v, sprp_bytes(&names, extra, &[0], &[p, p]));
    Some(match branch.id {
        "outerlight" => {
            let mut p = StaticPropV5Ship::<L>::new_zeroed();
            p.v5 = v6(16.0, 1).v5;
            p.targetname = name128("crate_1");
            one(5, None, p.as_bytes())
        }
        "zenoclash" => {
            let mut p = StaticPropV7::<L>::new_zeroed();
            p.v6 = v6(48.0, 1);
            one(7, Some(&["models/zeno/x.mdl"]), p.as_bytes())
        }
        "ftb" => {
            let mut p = StaticPropV11::<L>::new_zeroed();
            p.v8.v5 = v6(64.0, 1).v5;
            p.v8.diffuse_modulation = [255; 4];
            p.uniform_scale.set(2.0);
            one(7, None, p.as_bytes())
        }
        "blackmesa" => {
            let mut p = StaticPropV11BmEx::<L>::new_zeroed();
            p.bm.v7s.v6 = v6(80.0, 1);
            p.bm.v7s.flags.set(0x40);
            p.bm.diffuse_modulation = [255; 4];
            p.flags_ex.set(3);
            one(11, None, p.as_bytes())
        }
        _ => return None,
    })
}

/// A v20 map of a fork: a worldspawn and the fork's `sprp` (see [`fork_sprp`]); `None` for
/// branches without their own prop form.
pub fn source_fork_map(branch: &'static Branch) -> Option<Vec<u8>> {
    let (version, child) = fork_sprp(branch)?;
    let gl = gamelump::build(&[(ID_STATIC_PROPS, 0, version, child)], OffsetBase::Relative, 0, Endian::Little);
    Some(
        BspBuilder::new(&source::SOURCE)
            .version(20)
            .lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
            .lump(source::LUMP_GAME_LUMP, gl)
            .build(),
    )
}

/// The fork branches [`source_fork_map`] builds.
pub static FORKS: [&Branch; 4] = [&source::OUTERLIGHT, &source::ZENO_CLASH, &source::FTB, &source::BLACK_MESA];
