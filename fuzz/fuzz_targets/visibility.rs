//! Visibility: run-length rows, Quake 2 / Source cluster tables, Quake 3 rows.
#![no_main]

use bspkit::lumps::visibility::{decompress_row, ClusterVis, Q3Vis, VisKind};
use bspkit::Endian;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let mut row = Vec::new();
    match sel % 3 {
        0 => {
            // Row length from the next two bytes, so hostile lengths are covered too.
            let Some((len, body)) = rest.split_first_chunk::<2>() else { return };
            let _ = decompress_row(body, 0, u16::from_le_bytes(*len) as usize, &mut row);
        }
        1 => {
            let endian = if sel & 0x80 != 0 { Endian::Big } else { Endian::Little };
            if let Ok(vis) = ClusterVis::parse(rest, endian) {
                for c in 0..vis.num_clusters.min(64) {
                    for kind in [VisKind::Pvs, VisKind::Pas] {
                        if vis.row(c, kind, &mut row).is_ok() {
                            assert_eq!(row.len(), vis.row_bytes());
                        }
                    }
                    let _ = vis.can_see(c, c, VisKind::Pvs);
                }
            }
        }
        _ => {
            if let Ok(vis) = Q3Vis::parse(rest) {
                let n = vis.n_vecs.min(64);
                for x in 0..=n {
                    for y in 0..=n {
                        std::hint::black_box(vis.visible(x, y));
                    }
                }
            }
        }
    }
});
