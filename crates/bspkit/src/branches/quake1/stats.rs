//! `bspinfo`'s rows for Quake 1 and GoldSrc maps (quake_facts.md 6.1: ericw-tools v0.18.1,
//! same names and order).

use super::lumps::with_record_set;
use super::records::Layout;
use super::view::Slots;
use crate::bsp::Bsp;
use crate::bytes::Endian;
use crate::stats::stat::Stat;

pub fn stats<L: Layout>(bsp: &Bsp) -> Vec<Stat> {
    let s = Slots::of(bsp.branch());
    let size = |i: usize| bsp.record_size(i).unwrap_or(1);
    let tex_count = bsp.lump(s.textures).ok().and_then(|t| crate::bytes::i32_at(t, 0, Endian::Little)).unwrap_or(0);
    let tex_bytes = bsp.lump(s.textures).map(|t| t.len() as u64).unwrap_or(0);
    vec![
        // bspinfo prints only the count for models; the bytes column carries the lump length.
        Stat::records("models", bsp, s.models, size(s.models)),
        Stat::records("planes", bsp, s.planes, size(s.planes)),
        Stat::records("vertexes", bsp, s.vertices, size(s.vertices)),
        Stat::records("nodes", bsp, s.nodes, size(s.nodes)),
        Stat::records("texinfos", bsp, s.texinfo, size(s.texinfo)),
        Stat::records("faces", bsp, s.faces, size(s.faces)),
        Stat::records("clipnodes", bsp, s.clipnodes, size(s.clipnodes)),
        Stat::records("leafs", bsp, s.leaves, size(s.leaves)),
        Stat::records("marksurfaces", bsp, s.marksurfaces, size(s.marksurfaces)),
        Stat::records("edges", bsp, s.edges, size(s.edges)),
        Stat::records("surfedges", bsp, s.surfedges, size(s.surfedges)),
        // The count is the texture lump's own count field, the bytes its whole length.
        Stat::new("textures", Some(tex_count.max(0) as u64), tex_bytes),
        Stat::bytes_only("lightdata", bsp, s.lighting),
        Stat::bytes_only("visdata", bsp, s.visibility),
        // The entity lump's length, trailing NUL included.
        Stat::bytes_only("entdata", bsp, s.entities),
    ]
}

/// The bspinfo rows of any Quake 1 / GoldSrc map, with the branch's record set.
pub fn bspinfo(bsp: &Bsp) -> Vec<Stat> {
    with_record_set!(bsp.branch(), stats(bsp))
}
