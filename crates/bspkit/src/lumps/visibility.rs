//! Visibility shared by the id-derived families.
//!
//! * Quake 1 / GoldSrc: one run-length compressed row per leaf at `leaf.visofs`
//!   (quake_family.md B.6); bit `j` of a row is leaf `j + 1`.
//! * Quake 2 / Source: `i32 numclusters; i32 bitofs[numclusters][2]` (PVS, PAS/PHS), then
//!   compressed rows per cluster (source.md §12, quake_family.md C.3).
//! * Quake 3: `i32 n_vecs; i32 sz_vecs;` then uncompressed rows (quake_family.md A.8).
//!
//! Run-length scheme: a zero byte is followed by a count of zero bytes; other bytes are
//! literal. Bits are LSB-first (open_questions.md A17).

use crate::bytes::{i32_at, Endian};
use crate::error::{Error, Result};

/// The longest run of zero bytes one run-length pair stands for.
const ZERO_RUN: [u8; 255] = [0; 255];

/// Decompress one row of `row_bytes` bytes starting at `offset` of `data` into `out`
/// (cleared first). Stops at the row length, so hostile counts cannot grow the output.
pub fn decompress_row(data: &[u8], offset: usize, row_bytes: usize, out: &mut Vec<u8>) -> Result<()> {
    out.clear();
    out.reserve(row_bytes);
    let mut i = offset;
    while out.len() < row_bytes {
        // The literal (non-zero) bytes up to the next zero or the row's end, copied at once: an
        // unoptimised (test) build made a `get` and a `push` call per byte.
        let literal_end = data.len().min(i.saturating_add(row_bytes - out.len()));
        let start = i;
        while i < literal_end && data[i] != 0 {
            i += 1;
        }
        out.extend_from_slice(data.get(start..i).unwrap_or(&[]));
        if out.len() == row_bytes {
            break;
        }
        if i >= data.len() {
            return Err(Error::malformed(format!(
                "visibility row runs past the end of the lump ({} of {row_bytes} bytes decoded)",
                out.len()
            ))
            .at(offset as u64));
        }
        // `data[i]` is a zero: a run of zero bytes, its length next.
        i += 1;
        let Some(&run) = data.get(i) else {
            return Err(Error::malformed("visibility run length missing at the end of the lump").at(i as u64));
        };
        i += 1;
        let run = (run as usize).min(row_bytes - out.len());
        // A copy from a block of zeros (one `memcpy`) rather than `resize`, which an
        // unoptimised (test) build runs as a loop of calls per byte.
        out.extend_from_slice(&ZERO_RUN[..run]);
    }
    Ok(())
}

/// Test bit `j` of a decompressed row.
pub fn bit(row: &[u8], j: usize) -> bool {
    row.get(j >> 3).is_some_and(|b| b & (1 << (j & 7)) != 0)
}

/// Quake 2 / Source cluster visibility (`dvis_t`).
#[derive(Debug, Clone, Copy)]
pub struct ClusterVis<'a> {
    pub data: &'a [u8],
    pub endian: Endian,
    pub num_clusters: usize,
}

/// Which table of a [`ClusterVis`] to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisKind {
    /// Potentially visible set.
    Pvs = 0,
    /// Potentially audible set (Quake 2's PHS).
    Pas = 1,
}

impl<'a> ClusterVis<'a> {
    /// Parse the header. An empty lump has no clusters.
    pub fn parse(data: &'a [u8], endian: Endian) -> Result<Self> {
        if data.is_empty() {
            return Ok(ClusterVis { data, endian, num_clusters: 0 });
        }
        let n = i32_at(data, 0, endian).ok_or_else(|| Error::truncated(4, data.len() as u64))?;
        // Each cluster needs 8 bytes of offsets: a count the lump cannot hold is malformed.
        if n < 0 || (n as u64) * 8 + 4 > data.len() as u64 {
            return Err(Error::malformed(format!("{n} clusters do not fit a {}-byte visibility lump", data.len())).at(0));
        }
        Ok(ClusterVis { data, endian, num_clusters: n as usize })
    }

    /// Bytes in one decompressed row.
    pub fn row_bytes(&self) -> usize {
        self.num_clusters.div_ceil(8)
    }

    /// Offset of a cluster's compressed row.
    pub fn offset(&self, cluster: usize, kind: VisKind) -> Option<usize> {
        if cluster >= self.num_clusters {
            return None;
        }
        i32_at(self.data, 4 + cluster * 8 + kind as usize * 4, self.endian).map(|v| v as usize)
    }

    /// Decompress one cluster's row into `out`.
    pub fn row(&self, cluster: usize, kind: VisKind, out: &mut Vec<u8>) -> Result<()> {
        let ofs = self
            .offset(cluster, kind)
            .ok_or_else(|| Error::malformed(format!("cluster {cluster} out of range 0..{}", self.num_clusters)))?;
        decompress_row(self.data, ofs, self.row_bytes(), out)
    }

    /// Is cluster `to` in the set of cluster `from`?
    pub fn can_see(&self, from: usize, to: usize, kind: VisKind) -> Result<bool> {
        let mut row = Vec::new();
        self.row(from, kind, &mut row)?;
        Ok(bit(&row, to))
    }
}

/// Quake 3 visibility: uncompressed rows of `sz_vecs` bytes.
#[derive(Debug, Clone, Copy)]
pub struct Q3Vis<'a> {
    pub n_vecs: usize,
    pub sz_vecs: usize,
    pub vecs: &'a [u8],
}

impl<'a> Q3Vis<'a> {
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        if data.is_empty() {
            return Ok(Q3Vis { n_vecs: 0, sz_vecs: 0, vecs: data });
        }
        let n = i32_at(data, 0, Endian::Little).ok_or_else(|| Error::truncated(8, data.len() as u64))?;
        let sz = i32_at(data, 4, Endian::Little).ok_or_else(|| Error::truncated(8, data.len() as u64))?;
        let need = (n.max(0) as u64).saturating_mul(sz.max(0) as u64);
        if n < 0 || sz < 0 || need > (data.len() - 8) as u64 {
            return Err(Error::malformed(format!("{n} rows of {sz} bytes do not fit a {}-byte visdata lump", data.len())).at(0));
        }
        Ok(Q3Vis { n_vecs: n as usize, sz_vecs: sz as usize, vecs: &data[8..8 + need as usize] })
    }
    /// Is cluster `y` visible from cluster `x` (row `x`, bit `y`; quake_family.md A.8)?
    pub fn visible(&self, x: usize, y: usize) -> bool {
        if x >= self.n_vecs || y >= self.n_vecs {
            return false;
        }
        bit(&self.vecs[x * self.sz_vecs..(x + 1) * self.sz_vecs], y)
    }
}

/// A family's leaves and visibility rows as the viewer's PVS culling reads them, from
/// [`FamilyOps::leaf_visibility`](crate::branches::ops::FamilyOps::leaf_visibility); the
/// viewer's [`crate::view::Visibility`] is this plus the node tree, and serialises it as the
/// page reads it (`data` in hex).
///
/// Rows stay as stored: run-length zeros (a zero byte then a count of zero bytes) when
/// `compressed`, else plain (Quake 3). `offsets[c]` is the start of cluster `c`'s row in `data`
/// (−1: none, everything visible), `row_bytes` its decompressed length; bit `j` is cluster `j`.
/// Faces no leaf lists (Source's displacements, linked to leaves by the engine at load) are
/// always drawn.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LeafVisibility<'a> {
    /// The faces lump the leaves' face numbers (and the GLB's `extras.faces`) index.
    pub face_lump: u16,
    /// Cluster of each leaf (−1: none, such as Quake 1's leaf 0 and solid leaves).
    pub leaf_cluster: Vec<i64>,
    /// Leaf `l`'s faces are `leaf_faces[leaf_first[l]..leaf_first[l + 1]]`.
    pub leaf_first: Vec<u32>,
    pub leaf_faces: Vec<u32>,
    pub clusters: usize,
    pub row_bytes: usize,
    pub offsets: Vec<i64>,
    /// Rows are run-length compressed (all but Quake 3).
    pub compressed: bool,
    /// The rows as stored (Quake 3: after the lump's two counts); serialised as lower-case hex.
    #[serde(serialize_with = "hex")]
    pub data: &'a [u8],
}

impl<'a> LeafVisibility<'a> {
    /// Run-length compressed rows, one per cluster, at `offsets` (one per cluster) in `data`:
    /// Quake 1 (a cluster per leaf after leaf 0). `leaves` gives each leaf's cluster and its
    /// range of `list`, the face-number list (see [`leaf_lists`]).
    pub fn compressed(
        face_lump: u16,
        leaves: impl Iterator<Item = (i64, (i64, i64))>,
        list: impl Fn(usize) -> Option<i64>,
        row_bytes: usize,
        offsets: Vec<i64>,
        data: &'a [u8],
    ) -> Self {
        Self::with_rows(face_lump, leaves, list, (row_bytes, offsets, data), true)
    }

    /// The PVS rows of a `dvis_t` lump (Quake 2, Source; run-length compressed).
    pub fn of_clusters(
        face_lump: u16,
        leaves: impl Iterator<Item = (i64, (i64, i64))>,
        list: impl Fn(usize) -> Option<i64>,
        vis: &ClusterVis<'a>,
    ) -> Self {
        let offsets = (0..vis.num_clusters).map(|c| vis.offset(c, VisKind::Pvs).map_or(-1, |o| o as i64)).collect();
        Self::compressed(face_lump, leaves, list, vis.row_bytes(), offsets, vis.data)
    }

    /// Quake 3's plain rows, one after another, `sz_vecs` bytes each.
    pub fn of_plain_rows(
        face_lump: u16,
        leaves: impl Iterator<Item = (i64, (i64, i64))>,
        list: impl Fn(usize) -> Option<i64>,
        vis: &Q3Vis<'a>,
    ) -> Self {
        let offsets = (0..vis.n_vecs).map(|c| (c * vis.sz_vecs) as i64).collect();
        Self::with_rows(face_lump, leaves, list, (vis.sz_vecs, offsets, vis.vecs), false)
    }

    /// `rows`: `(row_bytes, offsets, data)`; one offset per cluster.
    fn with_rows(
        face_lump: u16,
        leaves: impl Iterator<Item = (i64, (i64, i64))>,
        list: impl Fn(usize) -> Option<i64>,
        (row_bytes, offsets, data): (usize, Vec<i64>, &'a [u8]),
        compressed: bool,
    ) -> Self {
        let clusters = offsets.len();
        let (leaf_cluster, leaf_first, leaf_faces) = leaf_lists(leaves, clusters, list);
        LeafVisibility { face_lump, leaf_cluster, leaf_first, leaf_faces, clusters, row_bytes, offsets, compressed, data }
    }
}

fn hex<S: serde::Serializer>(data: &&[u8], s: S) -> std::result::Result<S::Ok, S::Error> {
    use std::fmt::Write;
    let mut out = String::with_capacity(data.len() * 2);
    for b in data.iter() {
        let _ = write!(out, "{b:02x}");
    }
    s.serialize_str(&out)
}

/// Per leaf, its cluster (−1 unless in `0..clusters`) and its faces, from an index range into
/// a face-number list (out-of-range entries dropped): `(leaf_cluster, leaf_first, leaf_faces)`.
pub fn leaf_lists(
    leaves: impl Iterator<Item = (i64, (i64, i64))>,
    clusters: usize,
    list: impl Fn(usize) -> Option<i64>,
) -> (Vec<i64>, Vec<u32>, Vec<u32>) {
    let mut leaf_cluster = Vec::with_capacity(leaves.size_hint().0);
    let (mut first, mut faces) = (vec![0u32], Vec::new());
    for (c, (start, n)) in leaves {
        leaf_cluster.push(if c >= 0 && (c as usize) < clusters { c } else { -1 });
        for k in 0..n.clamp(0, 1 << 16) {
            if let Some(f) = usize::try_from(start + k).ok().and_then(&list).and_then(|f| u32::try_from(f).ok()) {
                faces.push(f);
            }
        }
        first.push(faces.len() as u32);
    }
    (leaf_cluster, first, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rle_decodes_and_caps() {
        let mut out = Vec::new();
        decompress_row(&[0xff, 0, 3, 0x01], 0, 5, &mut out).unwrap();
        assert_eq!(out, [0xff, 0, 0, 0, 0x01]);
        // A run longer than the row is clipped to the row.
        decompress_row(&[0, 255], 0, 4, &mut out).unwrap();
        assert_eq!(out, [0; 4]);
        assert!(decompress_row(&[0xff], 0, 4, &mut out).is_err());
        assert!(decompress_row(&[0], 0, 4, &mut out).is_err());
        assert!(bit(&[0b10], 1) && !bit(&[0b10], 0) && !bit(&[0b10], 99));
    }

    /// The zero runs copied from a block give the rows `resize` gave (the form before), and the
    /// same errors, on random run-length streams with every run length up to 255.
    #[test]
    fn zero_runs_are_the_resized_rows() {
        fn resized(data: &[u8], offset: usize, row_bytes: usize, out: &mut Vec<u8>) -> std::result::Result<(), u64> {
            out.clear();
            let mut i = offset;
            while out.len() < row_bytes {
                let &b = data.get(i).ok_or(offset as u64)?;
                i += 1;
                if b != 0 {
                    out.push(b);
                    continue;
                }
                let &run = data.get(i).ok_or(i as u64)?;
                i += 1;
                let run = (run as usize).min(row_bytes - out.len());
                out.resize(out.len() + run, 0);
            }
            Ok(())
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for case in 0..2000 {
            let data: Vec<u8> = (0..1 + case % 300)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Zeros often, so that runs of every length come up.
                    if x % 3 == 0 {
                        0
                    } else {
                        (x >> 24) as u8
                    }
                })
                .collect();
            for row_bytes in [0, 1, 7, 64, 300, 1000] {
                let got = decompress_row(&data, 0, row_bytes, &mut a).map_err(|e| e.offset.unwrap_or(u64::MAX));
                let want = resized(&data, 0, row_bytes, &mut b);
                assert_eq!(got, want, "case {case}, row of {row_bytes}");
                if got.is_ok() {
                    assert_eq!(a, b, "case {case}, row of {row_bytes}");
                }
            }
        }
    }

    /// The literal bytes copied a stretch at a time give the rows and errors (message and
    /// offset) of the byte-by-byte form before, from any start, the lump's end and beyond it.
    #[test]
    fn literal_stretches_are_the_pushed_bytes() {
        fn pushed(data: &[u8], offset: usize, row_bytes: usize, out: &mut Vec<u8>) -> Result<()> {
            out.clear();
            let mut i = offset;
            while out.len() < row_bytes {
                let Some(&b) = data.get(i) else {
                    return Err(Error::malformed(format!(
                        "visibility row runs past the end of the lump ({} of {row_bytes} bytes decoded)",
                        out.len()
                    ))
                    .at(offset as u64));
                };
                i += 1;
                if b != 0 {
                    out.push(b);
                    continue;
                }
                let Some(&run) = data.get(i) else {
                    return Err(Error::malformed("visibility run length missing at the end of the lump").at(i as u64));
                };
                i += 1;
                let run = (run as usize).min(row_bytes - out.len());
                out.extend_from_slice(&ZERO_RUN[..run]);
            }
            Ok(())
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for case in 0..1500 {
            // Long literal stretches as well as short ones: zeros one byte in 2 to 40.
            let zero_every = 2 + case % 39;
            let data: Vec<u8> = (0..1 + case % 400)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x % zero_every as u64 == 0 {
                        0
                    } else {
                        (x >> 24) as u8 | 1
                    }
                })
                .collect();
            for offset in [0, 1, 3, data.len() / 2, data.len().saturating_sub(1), data.len(), data.len() + 5] {
                for row_bytes in [0, 1, 2, 7, 64, 300, 1000] {
                    let got = decompress_row(&data, offset, row_bytes, &mut a).map_err(|e| e.to_string());
                    let want = pushed(&data, offset, row_bytes, &mut b).map_err(|e| e.to_string());
                    assert_eq!(got, want, "case {case}, offset {offset}, row of {row_bytes}");
                    if got.is_ok() {
                        assert_eq!(a, b, "case {case}, offset {offset}, row of {row_bytes}");
                    }
                }
            }
        }
    }

    #[test]
    fn cluster_header_is_bounded() {
        let mut lump = Vec::new();
        lump.extend_from_slice(&1i32.to_le_bytes());
        lump.extend_from_slice(&12i32.to_le_bytes());
        lump.extend_from_slice(&12i32.to_le_bytes());
        lump.push(0x01);
        let v = ClusterVis::parse(&lump, Endian::Little).unwrap();
        assert!(v.can_see(0, 0, VisKind::Pvs).unwrap());
        assert!(v.row(1, VisKind::Pvs, &mut Vec::new()).is_err());
        let hostile = [0xff, 0xff, 0xff, 0x7f];
        assert!(ClusterVis::parse(&hostile, Endian::Little).is_err());
    }
}
