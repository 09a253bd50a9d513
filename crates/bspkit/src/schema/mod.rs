//! Field schemas of record lumps: which record struct a branch's lump holds, with each field's
//! name, offset and type ([`types::RecordSchema`]), for bindings that name fields (the Python
//! package's record objects and NumPy dtypes). Each family lists its lumps' records in its own
//! `schema` module; [`lump_schema`] asks the family's [`crate::branches::ops::FamilyOps`] value.

pub mod types;

use crate::branch::Branch;
use crate::branches::any;
use crate::bytes::Endian;
pub use types::{Field, Kind, RecordSchema, Scalar, Type};

/// The record schema of lump `lump` (by name) of `branch` at lump `version`, for a file of
/// byte order `endian`; `None` for a lump that is not a record array, a lump version without
/// a known record size, or a lump without a schema. The schema's size is always the lump's
/// declared record size.
pub fn lump_schema(branch: &Branch, lump: &str, version: u32, endian: Endian) -> Option<&'static RecordSchema> {
    let size = branch.lumps.iter().find(|d| d.name == lump)?.record_size(version)?;
    let schema = any::of(branch.family).lump_schema(branch, lump, size, endian);
    schema.filter(|s| s.size == size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branch::LumpKind;
    use crate::branches::{quake1, source};

    /// Every field lies inside its record, fields follow each other without gap or overlap,
    /// and together they cover the record exactly.
    fn assert_tiles(s: &RecordSchema) {
        let mut at = 0;
        for f in s.fields {
            assert_eq!(f.offset, at, "{}.{}: gap or overlap before it", s.name, f.name);
            if let Kind::Record(inner) = f.ty.kind {
                assert_tiles(inner);
            }
            at += f.ty.size();
        }
        assert_eq!(at, s.size, "{}: fields cover {at} of {} bytes", s.name, s.size);
    }

    #[test]
    fn schemas_tile_their_records_and_match_declared_sizes() {
        let mut missing = Vec::new();
        let mut found = 0;
        for b in crate::branches::all() {
            for d in b.lumps {
                let LumpKind::Records { sizes } = d.kind else { continue };
                for &(version, size) in sizes {
                    for endian in [Endian::Little, Endian::Big] {
                        match lump_schema(b, d.name, version, endian) {
                            Some(s) => {
                                assert_eq!(s.size, size, "{} {} v{version}", b.id, d.name);
                                assert_tiles(s);
                                found += 1;
                            }
                            None => missing.push(format!("{} {} v{version} ({size} bytes)", b.id, d.name)),
                        }
                    }
                }
            }
        }
        missing.dedup();
        // Every record lump of every family has a schema.
        assert!(missing.is_empty(), "record lumps without a schema: {missing:#?}");
        assert!(found > 100);
    }

    #[test]
    fn field_types_follow_the_declaration() {
        let s = lump_schema(&quake1::QUAKE1, "TEXINFO", 0, Endian::Little).unwrap();
        let vecs = s.field("vecs").unwrap();
        assert_eq!(vecs.ty.shape(), &[2, 4]);
        assert!(matches!(vecs.ty.kind, Kind::Scalar { scalar: Scalar::F32, big_endian: false }));
        let s = lump_schema(&source::SOURCE, "PLANES", 0, Endian::Big).unwrap();
        assert!(matches!(s.fields[0].ty.kind, Kind::Scalar { scalar: Scalar::F32, big_endian: true }));
        let s = lump_schema(&quake1::QUAKE1, "SURFEDGES", 0, Endian::Little).unwrap();
        assert!(s.plain);
    }
}
