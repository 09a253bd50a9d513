//! `bsp info` rows of Nightfire maps: the rows of the compiler's own size chart (the
//! reconstruction's `PrintBSPFileSizes`), in its order and with its names and object limits
//! ([`super::lumps::LIMITS`]); `lightdata`, `visdata` and `entdata` are variable-size data.

use super::lumps::*;
use crate::bsp::Bsp;
use crate::stats::stat::Stat;

/// The rows for this map.
pub fn stats(bsp: &Bsp) -> Vec<Stat> {
    let rows: [(&str, usize); 15] = [
        ("models", MODELS),
        ("brushes", BRUSHES),
        ("brushsides", BRUSHSIDES),
        ("faces", FACES),
        ("planes", PLANES),
        ("verts", VERTEXES),
        ("normals", NORMALS),
        ("indices", INDICES),
        ("nodes", NODES),
        ("leaves", LEAFS),
        ("markbrushes", MARKBRUSHES),
        ("marksurfaces", MARKSURFACES),
        ("textures", TEXTURES),
        ("materials", MATERIALS),
        ("texmatrix", TEXMATRIX),
    ];
    let mut out: Vec<Stat> = rows
        .iter()
        .map(|&(name, id)| {
            let size = bsp.record_size(id).unwrap_or(1);
            let mut s = Stat::records(name, bsp, id, size);
            if let Some(&(_, max)) = LIMITS.iter().find(|(n, _)| *n == name) {
                s.max_count = Some(max);
                s.max_bytes = Some(max * size as u64);
            }
            s
        })
        .collect();
    out.push(Stat::bytes_only("lightdata", bsp, LIGHTING));
    out.push(Stat::bytes_only("visdata", bsp, VISIBILITY));
    out.push(Stat::bytes_only("entdata", bsp, ENTITIES));
    out
}
