//! Arrow record batches of bspkit's library scan tables ([`bspkit::catalog`]), and with the
//! `parquet` feature the Parquet, CSV and JSON-lines files `bsp scan --out` writes.
//!
//! The columns are documented in README.md ("Library tables"). Points and angles are three
//! columns each (`origin_x`, …) so every table is flat apart from two map columns
//! (`maps.counts`, `entities.keyvalues`); every engine reads them without a struct type.

use std::sync::Arc;

use arrow_array::builder::{MapBuilder, MapFieldNames, StringBuilder, UInt64Builder};
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
    UInt8Array,
};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use bspkit::catalog::{EntityRow, LumpRow, MapRow, ProblemRow, PropRow, Tables, TextureRow, SCHEMA_VERSION};

#[cfg(feature = "parquet")]
pub mod write;

/// Key of the schema version in each table's schema metadata (and Parquet key-value metadata).
pub const SCHEMA_VERSION_KEY: &str = "bspkit.schema_version";

fn schema(fields: Vec<Field>, table: &str) -> Arc<Schema> {
    let meta = [(SCHEMA_VERSION_KEY.to_string(), SCHEMA_VERSION.to_string()), ("bspkit.table".to_string(), table.to_string())];
    Arc::new(Schema::new(fields).with_metadata(meta.into_iter().collect::<std::collections::HashMap<String, String>>()))
}

fn f(name: &str, t: DataType, nullable: bool) -> Field {
    Field::new(name, t, nullable)
}

fn map_type(value: DataType) -> DataType {
    let entries = Field::new(
        "entries",
        DataType::Struct(vec![Field::new("keys", DataType::Utf8, false), Field::new("values", value, true)].into()),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

fn map_names() -> MapFieldNames {
    MapFieldNames { entry: "entries".into(), key: "keys".into(), value: "values".into() }
}

fn strs<'a>(it: impl Iterator<Item = &'a str>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(it))
}
fn opt_strs<'a>(it: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    Arc::new(it.collect::<StringArray>())
}

/// One axis of the world bounds' `mins` or `maxs`.
fn bound(rows: &[MapRow], side: fn(&MapRow) -> Option<[f32; 3]>, axis: usize) -> ArrayRef {
    Arc::new(rows.iter().map(|r| side(r).map(|v| v[axis])).collect::<Float32Array>())
}

/// The `maps` table.
pub fn maps(rows: &[MapRow]) -> Result<RecordBatch, ArrowError> {
    let fields = vec![
        f("path", DataType::Utf8, false),
        f("entry", DataType::Utf8, true),
        f("size", DataType::UInt64, false),
        f("mtime_ns", DataType::Int64, false),
        f("sha256", DataType::Utf8, true),
        f("family", DataType::Utf8, true),
        f("branch", DataType::Utf8, true),
        f("version", DataType::UInt32, true),
        f("magic", DataType::Utf8, true),
        f("evidence", DataType::Utf8, true),
        f("lumps", DataType::UInt32, true),
        f("entities", DataType::UInt32, true),
        f("textures", DataType::UInt32, true),
        f("props", DataType::UInt32, true),
        f("min_x", DataType::Float32, true),
        f("min_y", DataType::Float32, true),
        f("min_z", DataType::Float32, true),
        f("max_x", DataType::Float32, true),
        f("max_y", DataType::Float32, true),
        f("max_z", DataType::Float32, true),
        f("counts", map_type(DataType::UInt64), false),
        f("errors", DataType::UInt32, false),
        f("warnings", DataType::UInt32, false),
        f("notes", DataType::UInt32, false),
        f("error", DataType::Utf8, true),
        f("scan_micros", DataType::UInt64, false),
    ];
    let mut counts = MapBuilder::new(Some(map_names()), StringBuilder::new(), UInt64Builder::new());
    for r in rows {
        for (k, v) in &r.counts {
            counts.keys().append_value(k);
            counts.values().append_value(*v);
        }
        counts.append(true)?;
    }
    let cols: Vec<ArrayRef> = vec![
        strs(rows.iter().map(|r| r.path.as_str())),
        opt_strs(rows.iter().map(|r| r.entry.as_deref())),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.size))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.mtime_ns))),
        opt_strs(rows.iter().map(|r| r.sha256.as_deref())),
        opt_strs(rows.iter().map(|r| r.family.as_deref())),
        opt_strs(rows.iter().map(|r| r.branch.as_deref())),
        Arc::new(rows.iter().map(|r| r.version).collect::<UInt32Array>()),
        opt_strs(rows.iter().map(|r| r.magic.as_deref())),
        opt_strs(rows.iter().map(|r| r.evidence.as_deref())),
        Arc::new(rows.iter().map(|r| r.lumps).collect::<UInt32Array>()),
        Arc::new(rows.iter().map(|r| r.entities).collect::<UInt32Array>()),
        Arc::new(rows.iter().map(|r| r.textures).collect::<UInt32Array>()),
        Arc::new(rows.iter().map(|r| r.props).collect::<UInt32Array>()),
        bound(rows, |r| r.mins, 0),
        bound(rows, |r| r.mins, 1),
        bound(rows, |r| r.mins, 2),
        bound(rows, |r| r.maxs, 0),
        bound(rows, |r| r.maxs, 1),
        bound(rows, |r| r.maxs, 2),
        Arc::new(counts.finish()),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.errors))),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.warnings))),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.notes))),
        opt_strs(rows.iter().map(|r| r.error.as_deref())),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.scan_micros))),
    ];
    RecordBatch::try_new(schema(fields, "maps"), cols)
}

/// The `entities` table.
pub fn entities(rows: &[EntityRow]) -> Result<RecordBatch, ArrowError> {
    let fields = vec![
        f("map_sha256", DataType::Utf8, false),
        f("index", DataType::UInt32, false),
        f("classname", DataType::Utf8, true),
        f("targetname", DataType::Utf8, true),
        f("origin_x", DataType::Float64, true),
        f("origin_y", DataType::Float64, true),
        f("origin_z", DataType::Float64, true),
        f("keyvalues", map_type(DataType::Utf8), false),
    ];
    let mut kv = MapBuilder::new(Some(map_names()), StringBuilder::new(), StringBuilder::new());
    for r in rows {
        for (k, v) in &r.keyvalues {
            kv.keys().append_value(k);
            kv.values().append_value(v);
        }
        kv.append(true)?;
    }
    let axis = |i: usize| -> ArrayRef { Arc::new(rows.iter().map(|r| r.origin.map(|o| o[i])).collect::<Float64Array>()) };
    let cols: Vec<ArrayRef> = vec![
        strs(rows.iter().map(|r| r.map_sha256.as_str())),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.index))),
        opt_strs(rows.iter().map(|r| r.classname.as_deref())),
        opt_strs(rows.iter().map(|r| r.targetname.as_deref())),
        axis(0),
        axis(1),
        axis(2),
        Arc::new(kv.finish()),
    ];
    RecordBatch::try_new(schema(fields, "entities"), cols)
}

/// The `textures` table.
pub fn textures(rows: &[TextureRow]) -> Result<RecordBatch, ArrowError> {
    let fields = vec![
        f("map_sha256", DataType::Utf8, false),
        f("index", DataType::UInt32, false),
        f("name", DataType::Utf8, false),
        f("width", DataType::UInt32, true),
        f("height", DataType::UInt32, true),
        f("embedded", DataType::Boolean, false),
        f("found", DataType::Utf8, false),
    ];
    let cols: Vec<ArrayRef> = vec![
        strs(rows.iter().map(|r| r.map_sha256.as_str())),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.index))),
        strs(rows.iter().map(|r| r.name.as_str())),
        Arc::new(rows.iter().map(|r| r.width).collect::<UInt32Array>()),
        Arc::new(rows.iter().map(|r| r.height).collect::<UInt32Array>()),
        Arc::new(rows.iter().map(|r| Some(r.embedded)).collect::<BooleanArray>()),
        strs(rows.iter().map(|r| r.found.as_str())),
    ];
    RecordBatch::try_new(schema(fields, "textures"), cols)
}

/// The `props` table.
pub fn props(rows: &[PropRow]) -> Result<RecordBatch, ArrowError> {
    let fields = vec![
        f("map_sha256", DataType::Utf8, false),
        f("index", DataType::UInt32, false),
        f("model", DataType::Utf8, true),
        f("origin_x", DataType::Float32, false),
        f("origin_y", DataType::Float32, false),
        f("origin_z", DataType::Float32, false),
        f("pitch", DataType::Float32, false),
        f("yaw", DataType::Float32, false),
        f("roll", DataType::Float32, false),
        f("skin", DataType::Int32, false),
        f("solid", DataType::UInt8, false),
        f("flags", DataType::UInt32, false),
        f("scale", DataType::Float32, false),
    ];
    let f32s = |g: &dyn Fn(&PropRow) -> f32| -> ArrayRef { Arc::new(Float32Array::from_iter_values(rows.iter().map(g))) };
    let cols: Vec<ArrayRef> = vec![
        strs(rows.iter().map(|r| r.map_sha256.as_str())),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.index))),
        opt_strs(rows.iter().map(|r| r.model.as_deref())),
        f32s(&|r| r.origin[0]),
        f32s(&|r| r.origin[1]),
        f32s(&|r| r.origin[2]),
        f32s(&|r| r.angles[0]),
        f32s(&|r| r.angles[1]),
        f32s(&|r| r.angles[2]),
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.skin))),
        Arc::new(UInt8Array::from_iter_values(rows.iter().map(|r| r.solid))),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.flags))),
        f32s(&|r| r.scale),
    ];
    RecordBatch::try_new(schema(fields, "props"), cols)
}

/// The `lumps` table.
pub fn lumps(rows: &[LumpRow]) -> Result<RecordBatch, ArrowError> {
    let fields = vec![
        f("map_sha256", DataType::Utf8, false),
        f("index", DataType::UInt32, false),
        f("name", DataType::Utf8, false),
        f("offset", DataType::UInt64, false),
        f("length", DataType::UInt64, false),
        f("compressed_size", DataType::UInt64, true),
        f("record_size", DataType::UInt32, true),
        f("record_count", DataType::UInt64, true),
    ];
    let cols: Vec<ArrayRef> = vec![
        strs(rows.iter().map(|r| r.map_sha256.as_str())),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.index))),
        strs(rows.iter().map(|r| r.name.as_str())),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.offset))),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.length))),
        Arc::new(rows.iter().map(|r| r.compressed_size).collect::<UInt64Array>()),
        Arc::new(rows.iter().map(|r| r.record_size).collect::<UInt32Array>()),
        Arc::new(rows.iter().map(|r| r.record_count).collect::<UInt64Array>()),
    ];
    RecordBatch::try_new(schema(fields, "lumps"), cols)
}

/// The `problems` table.
pub fn problems(rows: &[ProblemRow]) -> Result<RecordBatch, ArrowError> {
    let fields = vec![
        f("map_sha256", DataType::Utf8, true),
        f("path", DataType::Utf8, true),
        f("entry", DataType::Utf8, true),
        f("code", DataType::Utf8, false),
        f("severity", DataType::Utf8, false),
        f("lump", DataType::Utf8, true),
        f("index", DataType::UInt64, true),
        f("message", DataType::Utf8, false),
    ];
    let cols: Vec<ArrayRef> = vec![
        opt_strs(rows.iter().map(|r| r.map_sha256.as_deref())),
        opt_strs(rows.iter().map(|r| r.path.as_deref())),
        opt_strs(rows.iter().map(|r| r.entry.as_deref())),
        strs(rows.iter().map(|r| r.code.as_str())),
        strs(rows.iter().map(|r| r.severity.as_str())),
        opt_strs(rows.iter().map(|r| r.lump.as_deref())),
        Arc::new(rows.iter().map(|r| r.index).collect::<UInt64Array>()),
        strs(rows.iter().map(|r| r.message.as_str())),
    ];
    RecordBatch::try_new(schema(fields, "problems"), cols)
}

/// All six tables as record batches, in [`bspkit::catalog::TABLES`] order.
pub fn batches(t: &Tables) -> Result<Vec<(&'static str, RecordBatch)>, ArrowError> {
    Ok(vec![
        ("maps", maps(&t.maps)?),
        ("entities", entities(&t.entities)?),
        ("textures", textures(&t.textures)?),
        ("props", props(&t.props)?),
        ("lumps", lumps(&t.lumps)?),
        ("problems", problems(&t.problems)?),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use bspkit::catalog::{map_rows, Content, FileRows, Stamp};

    #[test]
    fn batches_have_one_row_per_record() {
        let bytes = bspkit::build::sample_quake1();
        let bsp = bspkit::Bsp::from_bytes(&bytes).unwrap();
        let (m, c): (MapRow, Content) = map_rows(&bsp, &Default::default());
        let rows = FileRows { path: "a".into(), stamp: Stamp::sized(1, 1), maps: vec![m], contents: vec![c.clone()], problems: vec![] };
        let t = Tables::of(&[rows]);
        let b = batches(&t).unwrap();
        let n: Vec<usize> = b.iter().map(|(_, b)| b.num_rows()).collect();
        assert_eq!(n, vec![1, c.entities.len(), c.textures.len(), c.props.len(), c.lumps.len(), c.problems.len()]);
        assert_eq!(b[0].1.schema().metadata()[SCHEMA_VERSION_KEY], SCHEMA_VERSION.to_string());
    }
}
