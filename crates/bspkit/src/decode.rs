//! Decode everything the library knows about a map, generically: every lump (decompressed),
//! every record view, the entities, visibility, the info rows and the checks. Used by the
//! robustness tests and fuzz targets, and as a "does this map read cleanly" probe.
//!
//! Never panics on any input; failures are collected as typed errors.

use crate::branch::Family;
use crate::bsp::Bsp;
use crate::error::Error;
use crate::lumps::visibility::{ClusterVis, Q3Vis, VisKind};

/// Most visibility bytes decompressed by [`decode_all`], so that a hostile cluster count
/// cannot make the walk quadratic in the lump size.
pub const MAX_VIS_BYTES: usize = 16 << 20;

/// What [`decode_all`] read.
#[derive(Debug, Default, Clone)]
pub struct DecodeReport {
    /// Lumps read (decompressed where needed).
    pub lumps: usize,
    /// Bytes in those lumps.
    pub bytes: u64,
    /// Records seen in lumps with a known record size.
    pub records: u64,
    pub entities: usize,
    /// Visibility rows decompressed.
    pub vis_rows: usize,
    /// Rows of the native info table.
    pub stats: usize,
    /// Problems found by the checks.
    pub problems: usize,
    /// Every error met on the way, in order.
    pub errors: Vec<Error>,
}

/// Decode every lump and view of `bsp`.
pub fn decode_all(bsp: &Bsp) -> DecodeReport {
    let mut r = DecodeReport::default();
    for e in bsp.lumps() {
        if let Err(err) = bsp.raw_lump(e.index) {
            r.errors.push(err);
        }
        match bsp.lump(e.index) {
            Ok(bytes) => {
                r.lumps += 1;
                r.bytes += bytes.len() as u64;
                if let Some(size) = bsp.record_size(e.index).filter(|&s| s > 0) {
                    if bytes.len() % size == 0 {
                        r.records += (bytes.len() / size) as u64;
                    } else {
                        let err = Error::new(crate::ErrorKind::BadLumpLength { length: bytes.len() as u64, record_size: size });
                        r.errors.push(bsp.lump_error(e.index, err));
                    }
                }
            }
            Err(err) => r.errors.push(err),
        }
    }
    match bsp.entities() {
        Ok(ents) => {
            r.entities = ents.len();
            // Touch every pair as text, as the CLI does.
            for ent in ents.iter() {
                for (k, v) in ent.iter() {
                    std::hint::black_box((k, v));
                }
            }
        }
        Err(err) => r.errors.push(err),
    }
    visibility(bsp, &mut r);
    if bsp.family() == Family::Respawn {
        if let Err(err) = crate::branches::respawn::partition_kinds(bsp) {
            r.errors.push(err);
        }
    }
    let info = crate::info::info(bsp);
    r.stats = info.stats.len();
    r.problems = info.problems.len();
    r
}

fn visibility(bsp: &Bsp, r: &mut DecodeReport) {
    let Some(index) = bsp.lump_index("VISIBILITY") else { return };
    let data = match bsp.lump(index) {
        Ok(d) => d,
        Err(err) => return r.errors.push(err),
    };
    match bsp.family() {
        Family::Quake2 | Family::Source => match ClusterVis::parse(data, bsp.endian()) {
            Ok(vis) => {
                let mut row = Vec::new();
                let mut budget = MAX_VIS_BYTES;
                'rows: for c in 0..vis.num_clusters {
                    for kind in [VisKind::Pvs, VisKind::Pas] {
                        if budget < vis.row_bytes() {
                            break 'rows;
                        }
                        budget -= vis.row_bytes();
                        match vis.row(c, kind, &mut row) {
                            Ok(()) => r.vis_rows += 1,
                            Err(err) => {
                                // One bad row says enough; the rest are likely as bad.
                                r.errors.push(bsp.lump_error(index, err));
                                break 'rows;
                            }
                        }
                    }
                }
            }
            Err(err) => r.errors.push(bsp.lump_error(index, err)),
        },
        Family::Quake3 => match Q3Vis::parse(data) {
            Ok(vis) => {
                let n = vis.n_vecs.min(256);
                for x in 0..n {
                    for y in 0..n {
                        std::hint::black_box(vis.visible(x, y));
                    }
                }
                r.vis_rows += n;
            }
            Err(err) => r.errors.push(bsp.lump_error(index, err)),
        },
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_sample_map_without_errors() {
        let bytes = crate::build::sample_quake1();
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let r = decode_all(&bsp);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(r.lumps, bsp.lumps().len());
        assert!(r.entities > 0 && r.stats > 0);
    }
}
