//! `bspkit.scan`: the library tables of `bsp scan --out` ([`bspkit::catalog`]) handed to
//! Python as Arrow record batches through the Arrow C data interface (PyCapsule protocol:
//! `__arrow_c_schema__`, `__arrow_c_array__`). pyarrow, polars or DuckDB take the buffers
//! without a copy; nothing here needs pyarrow.

use std::ffi::CString;
use std::path::PathBuf;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// One table of a scan: a record batch exported through the Arrow PyCapsule interface.
#[pyclass(module = "bspkit._bspkit", name = "ArrowTable", frozen)]
pub struct ArrowTable {
    name: &'static str,
    batch: RecordBatch,
}

fn arrow_err(e: arrow_schema::ArrowError) -> PyErr {
    PyValueError::new_err(format!("arrow: {e}"))
}

fn capsule_name(name: &str) -> Option<CString> {
    CString::new(name).ok()
}

#[pymethods]
impl ArrowTable {
    /// The table's name (`maps`, `entities`, …).
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
    fn __repr__(&self) -> String {
        format!("<bspkit.ArrowTable {} ({} rows)>", self.name, self.batch.num_rows())
    }
    /// The schema (a struct of the columns, with the schema version in its metadata).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.batch.schema().as_ref()).map_err(arrow_err)?;
        PyCapsule::new(py, schema, capsule_name("arrow_schema"))
    }
    /// The rows as one struct array; the buffers are shared, not copied. A requested schema
    /// other than the table's own is not supported (the consumer casts).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let schema = FFI_ArrowSchema::try_from(self.batch.schema().as_ref()).map_err(arrow_err)?;
        let array = StructArray::from(self.batch.clone());
        let array = FFI_ArrowArray::new(&array.to_data());
        Ok((PyCapsule::new(py, schema, capsule_name("arrow_schema"))?, PyCapsule::new(py, array, capsule_name("arrow_array"))?))
    }
}

/// Scan files and directories (maps, `.pk3`/`.zip` archives) into the six tables, in
/// parallel, without the GIL. No index: every file is read.
#[pyfunction]
#[pyo3(signature = (paths, check=true))]
pub fn _scan_tables(py: Python<'_>, paths: Vec<PathBuf>, check: bool) -> PyResult<Vec<ArrowTable>> {
    let options = bspkit::scan::ScanOptions { check, ..Default::default() };
    let batches = py.detach(|| {
        let files = bspkit::catalog::scan(&paths, &options);
        bspkit_arrow::batches(&bspkit::catalog::Tables::from_files(files))
    });
    Ok(batches.map_err(arrow_err)?.into_iter().map(|(name, batch)| ArrowTable { name, batch }).collect())
}

/// One object fetched by the Python side (from an object store through fsspec): its name (the
/// URL), bytes, size and modification time (ns) as the store reported them.
type Object = (String, Vec<u8>, u64, i64);

/// [`_scan_tables`] over local `paths` and, after them, `objects` given as bytes
/// ([`bspkit::catalog::scan_bytes_rows`], in the order given), `failed` (name, message)
/// pairs for objects that could not be listed or fetched (`io` rows) and `changed` pairs for
/// objects that changed while they were read ([`bspkit::catalog::FILE_CHANGED`] rows): one
/// scan, one deduplication.
#[pyfunction]
#[pyo3(signature = (paths, objects, failed, check=true, changed=Vec::new()))]
pub fn _scan_tables_mixed(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    objects: Vec<Object>,
    failed: Vec<(String, String)>,
    check: bool,
    changed: Vec<(String, String)>,
) -> PyResult<Vec<ArrowTable>> {
    use rayon::prelude::*;
    let options = bspkit::scan::ScanOptions { check, ..Default::default() };
    let batches = py.detach(|| {
        let mut files = if paths.is_empty() { Vec::new() } else { bspkit::catalog::scan(&paths, &options) };
        let stamp = |size, mtime_ns| bspkit::catalog::Stamp::sized(size, mtime_ns);
        files.par_extend(
            objects
                .par_iter()
                .map(|(name, bytes, size, mtime)| bspkit::catalog::scan_bytes_rows(name, bytes, stamp(*size, *mtime), &options)),
        );
        files.extend(failed.iter().map(|(name, message)| bspkit::catalog::unreadable_rows(name, "io", message)));
        files.extend(changed.iter().map(|(name, message)| bspkit::catalog::unreadable_rows(name, bspkit::catalog::FILE_CHANGED, message)));
        bspkit_arrow::batches(&bspkit::catalog::Tables::from_files(files))
    });
    Ok(batches.map_err(arrow_err)?.into_iter().map(|(name, batch)| ArrowTable { name, batch }).collect())
}

/// Whether `bsp scan` reads a file of this name (a map or a `.pk3`/`.zip` archive), for names
/// listed in an object store.
#[pyfunction]
pub fn _is_scanned_name(name: &str) -> bool {
    let p = std::path::Path::new(name);
    bspkit::scan::is_map_file(p) || bspkit::scan::is_archive(p)
}

/// Every map file and archive below `paths`, sorted, as `bsp scan` lists them (what cannot be
/// listed is left out here; `_scan_tables` reports it).
#[pyfunction]
pub fn _list_map_files(py: Python<'_>, paths: Vec<PathBuf>) -> Vec<String> {
    py.detach(|| bspkit::catalog::list(&paths).0.into_iter().map(|(p, _)| p.to_string_lossy().into_owned()).collect())
}
