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

/// Which model each of `brushes` brushes belongs to, as the brush lump has no per-model range
/// (quake_facts.md §4 lump 13; Source likewise): the brushes listed by the leaves of each
/// model's tree, from its root `heads[m]` (a child ≥ 0 is node `children(n)`'s index below
/// `nodes`, < 0 the leaf `-(child + 1)`; `leaf(l)` its `(first, count)` in the leaf-brush list,
/// whose entry `i` is `leaf_brush(i)`). A node is walked once, for the first model that reaches
/// it. A brush no leaf names (wholly inside another, say) goes with the brush before it: the
/// compiler writes each entity's brushes together. Also gives which brushes no leaf names.
pub(crate) fn brush_models(
    brushes: usize,
    heads: impl IntoIterator<Item = i64>,
    nodes: usize,
    children: impl Fn(usize) -> [i64; 2],
    leaf: impl Fn(usize) -> Option<(i64, i64)>,
    leaf_brush: impl Fn(usize) -> Option<i64>,
    budget: &mut Budget,
) -> Result<(Vec<usize>, Vec<bool>)> {
    let mut brush_model: Vec<Option<usize>> = vec![None; brushes];
    let mut seen = vec![false; nodes];
    for (m, head) in heads.into_iter().enumerate() {
        let mut stack = vec![head];
        while let Some(n) = stack.pop() {
            budget.spend(1)?;
            if n < 0 {
                let Some((first, count)) = usize::try_from(-(n + 1)).ok().and_then(&leaf) else { continue };
                for i in first.max(0)..first.max(0).saturating_add(count.max(0)) {
                    budget.spend(1)?;
                    let Some(b) = usize::try_from(i).ok().and_then(&leaf_brush) else { break };
                    if let Some(slot) = usize::try_from(b).ok().and_then(|b| brush_model.get_mut(b)) {
                        slot.get_or_insert(m);
                    }
                }
                continue;
            }
            let Some(node) = usize::try_from(n).ok().filter(|&n| n < nodes) else { continue };
            if std::mem::replace(&mut seen[node], true) {
                continue;
            }
            stack.extend(children(node));
        }
    }
    let unreached = brush_model.iter().map(Option::is_none).collect();
    let mut last = 0;
    let models = brush_model
        .into_iter()
        .map(|slot| {
            last = slot.unwrap_or(last);
            last
        })
        .collect();
    Ok((models, unreached))
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

/// Where a decompiled brush came from (the report's `brush_list[].from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BrushFrom {
    /// The map's brush lump; [`OrigBrush::source`] is its index there.
    Lump,
    /// Convex regions of the hull-0 tree, merged (Quake 1 family, GoldSrc).
    Tree,
    /// The BSPX `BRUSHLIST` lump.
    BrushList,
    /// Recovered from this clip hull.
    ClipHull(usize),
    /// The origin brush written for a brush entity placed by its `origin` key.
    OriginBrush,
}

/// An original brush, where its decompiled copy was put.
#[derive(Debug, Clone)]
pub(crate) struct OrigBrush {
    /// Index in the BRUSHES lump ([`BrushFrom::Lump`]); elsewhere its number among the brushes.
    pub source: usize,
    pub from: BrushFrom,
    /// Its sides left out as the compiler's bevels.
    pub bevels: usize,
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

/// An original drawn triangle (Quake 3 planar surfaces), a face of one polygon kept in place:
/// a map has hundreds of thousands, and a face with its own name and polygon vectors each was
/// three allocations apiece (perf: allocation and page faults were a fifth of a 10 MB map's
/// decompile).
#[derive(Debug, Clone)]
pub(crate) struct OrigTriangle {
    pub entity: usize,
    /// Index in [`Original::triangle_textures`].
    pub texture: usize,
    pub plane: Plane,
    pub pts: [[f64; 3]; 3],
}

/// What a family's extractor gives: the entities to write and what to measure them against.
#[derive(Debug, Default)]
pub(crate) struct Original {
    pub entities: Vec<MapEntity>,
    pub brushes: Vec<OrigBrush>,
    /// Brushes written with no original to compare (Source: a displacement's brush, which vbsp
    /// leaves out of the brush lump): entity, index among its primitives, dispinfo index.
    pub rebuilt_brushes: Vec<(usize, usize, usize)>,
    pub faces: Vec<OrigFace>,
    /// Drawn triangles, measured as faces after [`Original::faces`].
    pub triangles: Vec<OrigTriangle>,
    /// The triangles' texture names.
    pub triangle_textures: Vec<String>,
    pub bevels: usize,
    pub patches: usize,
    pub skipped_brushes: usize,
    pub notes: Vec<String>,
    /// Entities the output has after the map's own (Source: func_detail, prop_static, …).
    pub added_entities: usize,
    /// Per output entity, the entity whose model its brushes were compiled into, where that is
    /// another one (Source: a func_detail's brushes are in the world model); others are their own.
    pub entity_group: Vec<usize>,
    /// Brushes whose side polygons the extraction clipped from the very planes their written
    /// sides give back (the same numbers, no side dropped), by entity and primitive index: the planes
    /// and the polygons. The measure takes them instead of clipping those planes again when the
    /// planes it reads back are these (it checks); it still reads every side back. Only
    /// inserted into and taken from, never iterated: hashed as grid cells (`cellhash`).
    pub clipped: std::cell::RefCell<crate::cellhash::CellMap<(usize, usize), ClippedBrush>>,
    /// The grid the compiler rounded drawn vertices to (units; 0 where none is known): faces
    /// are also paired with sides within that snap (module `snapcover`).
    pub vertex_snap: f64,
}

/// A brush's planes and the polygon of each side ([`super::geom::side_polygon`] of those planes).
pub(crate) type ClippedBrush = (Vec<Plane>, Vec<Vec<[f64; 3]>>);

/// `a` and `b` are the same numbers (`==`: a normal read back from three points has −0 where
/// the map's has +0). Clipping such planes gives the same polygons, corner for corner, up to the
/// sign of a zero coordinate: a zero component enters the clip only through products added to
/// other terms (where it adds nothing) and through comparisons, and nothing the measure takes
/// from a polygon (bounds, areas, intersections) depends on the sign of a zero.
pub(crate) fn same_planes(a: &[Plane], b: &[Plane]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.dist == q.dist && p.normal == q.normal)
}

impl Original {
    /// Keep `polys`, clipped from `planes`, for the brush at `entity`'s primitive `index` when
    /// `sides` as written give back exactly `planes` (see [`Original::clipped`]).
    pub(crate) fn keep_clipped(
        &self,
        entity: usize,
        index: usize,
        sides: &[super::mapfile::MapSide],
        planes: Vec<Plane>,
        polys: Vec<Vec<[f64; 3]>>,
    ) {
        let written: Vec<Plane> = sides.iter().filter_map(|s| s.plane()).collect();
        if written.len() == sides.len() && polys.len() == planes.len() && same_planes(&written, &planes) {
            self.clipped.borrow_mut().insert((entity, index), (planes, polys));
        }
    }
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

/// The first entity naming each brush model, looked up in constant time: a scan of every
/// entity per brush was quadratic on maps with thousands of entities (srctools' `rot_main`:
/// 3,073 entities).
pub(crate) struct ModelEntities(std::collections::HashMap<usize, usize>);

impl ModelEntities {
    /// `ent_models[e]` is the model entity `e` names.
    pub(crate) fn new(ent_models: &[Option<usize>]) -> Self {
        let mut first = std::collections::HashMap::new();
        for (e, m) in ent_models.iter().enumerate() {
            if let Some(m) = m {
                first.entry(*m).or_insert(e);
            }
        }
        ModelEntities(first)
    }
    /// The first entity whose model is `m`.
    pub(crate) fn get(&self, m: usize) -> Option<usize> {
        self.0.get(&m).copied()
    }
}
