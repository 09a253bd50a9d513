//! What a family's extractor gives the decompiler: the entities to write, the original brushes
//! and faces to measure them against, and the work budget.

use super::geom::Plane;
use super::mapfile::MapEntity;
use crate::error::{Error, ErrorKind, Result};

/// A spendable count of work units.
pub(crate) struct Budget {
    left: u64,
    limit: u64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Self {
        Budget { left: limit, limit }
    }
    pub(crate) fn spend(&mut self, n: u64) -> Result<()> {
        if n > self.left {
            self.left = 0;
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "decompile work (plane clips and record visits)",
                requested: self.limit + 1,
                limit: self.limit,
            }));
        }
        self.left -= n;
        Ok(())
    }
}

/// What one original side is checked against.
#[derive(Debug, Clone)]
pub(crate) enum TexTruth {
    /// No texture (a Quake 2 side without texinfo).
    None,
    /// A name only (Quake 3 sides no drawn surface shows).
    Name(String),
    /// Quake 2 texinfo: name, `s` and `t` rows, flags and value.
    Rows { name: String, rows: [[f64; 4]; 2], flags: [i64; 2] },
    /// Source: material name and texinfo `textureVecs` rows (flags come from the material).
    Axes { name: String, rows: [[f64; 4]; 2] },
    /// Quake 3: name and drawn vertices with their texture coordinates.
    Samples { name: String, samples: Vec<([f64; 3], [f64; 2])> },
}

#[derive(Debug, Clone)]
pub(crate) struct OrigSide {
    pub plane: Plane,
    pub truth: TexTruth,
}

/// An original brush, where its decompiled copy was put.
#[derive(Debug, Clone)]
pub(crate) struct OrigBrush {
    /// Index in the BRUSHES lump.
    pub source: usize,
    pub entity: usize,
    /// Index among the entity's primitives.
    pub index: usize,
    /// The sides that bound it (bevels left out).
    pub sides: Vec<OrigSide>,
    pub contents: Option<i64>,
}

/// An original drawn face: convex polygons on one plane (facing along the normal).
#[derive(Debug, Clone)]
pub(crate) struct OrigFace {
    pub entity: usize,
    /// Its texture or shader name.
    pub texture: String,
    pub plane: Plane,
    pub polygons: Vec<Vec<[f64; 3]>>,
}

/// What a family's extractor gives: the entities to write and what to measure them against.
#[derive(Debug, Default)]
pub(crate) struct Original {
    pub entities: Vec<MapEntity>,
    pub brushes: Vec<OrigBrush>,
    pub faces: Vec<OrigFace>,
    pub bevels: usize,
    pub patches: usize,
    pub skipped_brushes: usize,
    pub notes: Vec<String>,
    /// Entities the output has after the map's own (Source: func_detail, prop_static, …).
    pub added_entities: usize,
    /// Per output entity, the entity whose model its brushes were compiled into, where that is
    /// another one (Source: a func_detail's brushes are in the world model); others are their own.
    pub entity_group: Vec<usize>,
}

/// Brush `brush`'s sides `first..first + count` of `sides`, or a malformed-data error naming the
/// brush and the range (the caller adds the lump).
pub(crate) fn side_range<T>(sides: &[T], brush: impl std::fmt::Display, first: i64, count: i64) -> crate::error::Result<&[T]> {
    usize::try_from(first)
        .ok()
        .zip(usize::try_from(count).ok())
        .and_then(|(f, n)| sides.get(f..f.checked_add(n)?))
        .ok_or_else(|| crate::error::Error::malformed(format!("brush {brush}: sides {first}+{count} out of range")))
}
