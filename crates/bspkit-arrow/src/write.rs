//! The files `bsp scan --out DIR` writes: one file per table (`maps.parquet`, …) and
//! `schema.json` (the schema version and every table's columns). Parquet through the arrow-rs
//! `parquet` writer (Snappy); CSV and JSON lines from the same record batches, so the three
//! formats have the same columns. Every file is written atomically
//! ([`bspkit::write::atomic`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::SCHEMA_VERSION_KEY;
use bspkit::catalog::SCHEMA_VERSION;

/// Output format of `bsp scan --out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Parquet,
    Csv,
    Jsonl,
}

impl Format {
    pub fn ext(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }
}

fn err(path: &Path, what: impl std::fmt::Display) -> bspkit::Error {
    bspkit::Error::new(bspkit::ErrorKind::Io(what.to_string())).in_file(path)
}

/// One table's bytes in `format`.
pub fn encode(batch: &RecordBatch, format: Format) -> Result<Vec<u8>, String> {
    match format {
        Format::Parquet => {
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_key_value_metadata(Some(vec![KeyValue::new(SCHEMA_VERSION_KEY.to_string(), SCHEMA_VERSION.to_string())]))
                .build();
            let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).map_err(|e| e.to_string())?;
            w.write(batch).map_err(|e| e.to_string())?;
            w.into_inner().map_err(|e| e.to_string())
        }
        Format::Csv => Ok(csv(batch).into_bytes()),
        Format::Jsonl => Ok(jsonl(batch).into_bytes()),
    }
}

/// Write every table and `schema.json` into `dir`; the paths written.
pub fn write_tables(dir: &Path, batches: &[(&str, RecordBatch)], format: Format) -> bspkit::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| bspkit::Error::from(e).in_file(dir))?;
    let opts = bspkit::write::atomic::WriteOptions::default();
    let mut out = Vec::new();
    for (name, batch) in batches {
        let target = dir.join(format!("{name}.{}", format.ext()));
        let bytes = encode(batch, format).map_err(|e| err(&target, e))?;
        bspkit::write::atomic::write_file(&target, &bytes, &opts)?;
        out.push(target);
    }
    let target = dir.join("schema.json");
    bspkit::write::atomic::write_file(&target, schema_json(batches).as_bytes(), &opts)?;
    out.push(target);
    Ok(out)
}

/// `{"schema_version": N, "tables": {"maps": [{"name", "type", "nullable"}, …], …}}`.
pub fn schema_json(batches: &[(&str, RecordBatch)]) -> String {
    let mut s = format!("{{\"schema_version\": {SCHEMA_VERSION}, \"tables\": {{");
    for (i, (name, b)) in batches.iter().enumerate() {
        let _ = write!(s, "{}\n  {}: [", if i > 0 { "," } else { "" }, json_str(name));
        for (j, fld) in b.schema().fields().iter().enumerate() {
            let _ = write!(
                s,
                "{}{{\"name\": {}, \"type\": {}, \"nullable\": {}}}",
                if j > 0 { ", " } else { "" },
                json_str(fld.name()),
                json_str(&type_name(fld.data_type())),
                fld.is_nullable()
            );
        }
        s.push(']');
    }
    s.push_str("\n}}\n");
    s
}

fn type_name(t: &DataType) -> String {
    match t {
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(f) if f.len() == 2 => format!("map<{}, {}>", type_name(f[0].data_type()), type_name(f[1].data_type())),
            other => format!("map<{other}>"),
        },
        DataType::Utf8 => "string".into(),
        other => other.to_string().to_ascii_lowercase(),
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_f64(v: f64) -> String {
    // JSON has no NaN or infinity.
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".into()
    }
}

/// Cell `row` of `col` as JSON (null for a null). Maps are arrays of `[key, value]` pairs:
/// entity keys repeat (Source outputs), which a JSON object cannot hold.
fn json_value(col: &dyn Array, row: usize) -> String {
    if col.is_null(row) {
        return "null".into();
    }
    match col.data_type() {
        DataType::Utf8 => json_str(col.as_string::<i32>().value(row)),
        DataType::Boolean => col.as_boolean().value(row).to_string(),
        DataType::UInt8 => col.as_primitive::<UInt8Type>().value(row).to_string(),
        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(row).to_string(),
        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(row).to_string(),
        DataType::Int32 => col.as_primitive::<Int32Type>().value(row).to_string(),
        DataType::Int64 => col.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::Float32 => json_f64(f64::from(col.as_primitive::<Float32Type>().value(row))),
        DataType::Float64 => json_f64(col.as_primitive::<Float64Type>().value(row)),
        DataType::Map(_, _) => {
            let m = col.as_map();
            let entries = m.value(row);
            let (k, v) = (entries.column(0), entries.column(1));
            let pairs: Vec<String> = (0..entries.len()).map(|i| format!("[{}, {}]", json_value(k, i), json_value(v, i))).collect();
            format!("[{}]", pairs.join(", "))
        }
        other => json_str(&format!("<{other}>")),
    }
}

/// JSON lines: one object per row, columns in schema order.
pub fn jsonl(batch: &RecordBatch) -> String {
    let schema = batch.schema();
    let mut s = String::new();
    for row in 0..batch.num_rows() {
        s.push('{');
        for (i, (fld, col)) in schema.fields().iter().zip(batch.columns()).enumerate() {
            let _ = write!(s, "{}{}: {}", if i > 0 { ", " } else { "" }, json_str(fld.name()), json_value(col.as_ref(), row));
        }
        s.push_str("}\n");
    }
    s
}

fn csv_cell(col: &dyn Array, row: usize) -> String {
    if col.is_null(row) {
        return String::new();
    }
    let text = match col.data_type() {
        DataType::Utf8 => col.as_string::<i32>().value(row).to_string(),
        // Numbers as in JSON; map columns as their JSON text.
        _ => json_value(col, row),
    };
    // RFC 4180: quote fields holding a separator, quote or line break.
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// CSV (RFC 4180) with a header row; an empty field is null.
pub fn csv(batch: &RecordBatch) -> String {
    let schema = batch.schema();
    let mut s = schema.fields().iter().map(|f| f.name().as_str()).collect::<Vec<_>>().join(",");
    s.push_str("\r\n");
    for row in 0..batch.num_rows() {
        let cells: Vec<String> = batch.columns().iter().map(|c| csv_cell(c.as_ref(), row)).collect();
        s.push_str(&cells.join(","));
        s.push_str("\r\n");
    }
    s
}
