//! `bspkit` for Python: a thin pyo3 layer over the `bspkit` library. Every reading, checking,
//! editing and writing step is the library's; this crate only converts between Rust and Python
//! values. The pure-Python package (`python/bspkit/__init__.py`) re-exports these classes.
//!
//! Memory: a [`PyBsp`] owns its map (memory-mapped from a path, or a private copy of the bytes
//! given), so nothing it hands out can alias memory Python may free or mutate. Record objects,
//! lump sequences and NumPy arrays keep a reference to their `Bsp`; arrays are read-only views
//! over the map's bytes (NumPy's `__array_interface__`, with the `Bsp` as the array's base).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use bspkit::branch::LumpKind;
use bspkit::branches::respawn::EntPartition;
use bspkit::edit::{resolve_lump, Editor};
use bspkit::lumps::entities::{EditEntity, EntityDoc};
use bspkit::lumps::gamelump::GameLumps;
use bspkit::lumps::pakfile::{self, PakCompression, Pakfile, DEFAULT_MAX_ENTRY};
use bspkit::schema::{Field, Kind, RecordSchema, Scalar, Type};
use bspkit::{Bsp, Endian, ErrorKind, OpenOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyAttributeError, PyException, PyIndexError, PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PySlice, PyString, PyTuple};

create_exception!(
    bspkit,
    BspError,
    PyException,
    "Any error reading or writing a map; `.kind`, `.file`, `.lump`, `.offset` say what and where."
);
create_exception!(bspkit, IoError, BspError, "The file could not be read or written.");
create_exception!(bspkit, TruncatedError, BspError, "The data ends before a structure that must be there.");
create_exception!(bspkit, UnknownFormatError, BspError, "The first bytes match no known format.");
create_exception!(bspkit, UnsupportedVersionError, BspError, "The magic is known but the version is not.");
create_exception!(bspkit, UnknownBranchError, BspError, "A branch name that is not in the registry.");
create_exception!(bspkit, LumpOutOfBoundsError, BspError, "A lump's directory entry points outside the file.");
create_exception!(bspkit, BadLumpLengthError, BspError, "A record lump whose length is not a multiple of its record size.");
create_exception!(bspkit, NoSuchLumpError, BspError, "There is no lump (or entry) of this name or index.");
create_exception!(bspkit, DecompressError, BspError, "A compressed lump could not be decompressed.");
create_exception!(bspkit, MalformedError, BspError, "A structure inside a lump is malformed.");
create_exception!(bspkit, LimitExceededError, BspError, "A size limit that protects against hostile input was exceeded.");
create_exception!(bspkit, UnsafePathError, BspError, "An archive entry name that would write outside the target directory.");

/// A library error as the Python exception of its kind, with `kind`, `file`, `lump`, `offset`.
fn err(e: bspkit::Error) -> PyErr {
    let msg = e.to_string();
    let pe = match &e.kind {
        ErrorKind::Io(_) => IoError::new_err(msg),
        ErrorKind::Truncated { .. } => TruncatedError::new_err(msg),
        ErrorKind::UnknownFormat { .. } => UnknownFormatError::new_err(msg),
        ErrorKind::UnsupportedVersion { .. } => UnsupportedVersionError::new_err(msg),
        ErrorKind::UnknownBranch(_) => UnknownBranchError::new_err(msg),
        ErrorKind::LumpOutOfBounds { .. } => LumpOutOfBoundsError::new_err(msg),
        ErrorKind::BadLumpLength { .. } => BadLumpLengthError::new_err(msg),
        ErrorKind::NoSuchLump(_) => NoSuchLumpError::new_err(msg),
        ErrorKind::Decompress(_) => DecompressError::new_err(msg),
        ErrorKind::Malformed(_) => MalformedError::new_err(msg),
        // A refused allocation is a resource limit too (its `kind` says `out_of_memory`).
        ErrorKind::LimitExceeded { .. } | ErrorKind::OutOfMemory { .. } => LimitExceededError::new_err(msg),
        ErrorKind::UnsafePath(_) => UnsafePathError::new_err(msg),
        _ => BspError::new_err(msg),
    };
    Python::attach(|py| {
        let v = pe.value(py);
        let _ = v.setattr("kind", e.kind.name());
        let _ = v.setattr("file", e.path.as_ref().map(|p| p.to_string_lossy().into_owned()));
        let _ = v.setattr("lump", e.lump.clone());
        let _ = v.setattr("offset", e.offset);
    });
    pe
}

trait OrPy<T> {
    fn py(self) -> PyResult<T>;
}
impl<T> OrPy<T> for bspkit::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(err)
    }
}

/// A serde value (the CLI's `--json` documents) as plain Python objects.
fn to_py<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let v = serde_json::to_value(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_to_py(py, &v)
}

fn json_to_py(py: Python<'_>, v: &serde_json::Value) -> PyResult<Py<PyAny>> {
    use serde_json::Value as V;
    Ok(match v {
        V::Null => py.None(),
        V::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        V::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any().unbind()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any().unbind()
            }
        }
        V::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        V::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(json_to_py(py, x)?)?;
            }
            l.into_any().unbind()
        }
        V::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// A Python namespace (`types.SimpleNamespace`) from a serde value's fields.
fn namespace<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let d = to_py(py, v)?;
    let ns = py.import("types")?.getattr("SimpleNamespace")?;
    Ok(ns.call((), Some(d.bind(py).cast::<PyDict>()?))?.unbind())
}

/// A `bspkit.EntityList` (a `list` that tells the search index about changes) of new
/// [`Entity`] objects, one per entity given.
fn entity_list(py: Python<'_>, entities: impl IntoIterator<Item = EditEntity>) -> PyResult<Py<PyList>> {
    let items = PyList::empty(py);
    for e in entities {
        items.append(Py::new(py, Entity { inner: e })?)?;
    }
    let cls = py.import("bspkit._entities")?.getattr("EntityList")?;
    Ok(cls.call1((items,))?.cast_into::<PyList>()?.unbind())
}

/// The entities of a list handed to Python; TypeError for an item that is not an [`Entity`].
fn entities_of(list: &Bound<'_, PyList>, what: &str) -> PyResult<Vec<EditEntity>> {
    list.iter()
        .map(|o| {
            let e = o.cast::<Entity>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what} holds a {}, not an Entity",
                    o.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                ))
            })?;
            // An entity being changed right now (its `set` runs a value's `__str__`): an error, not a panic.
            let e = e.try_borrow().map_err(|_| PyRuntimeError::new_err(format!("an entity of {what} is being changed")))?;
            Ok(e.inner.clone())
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Opening

/// An opened map. Lumps are attributes and items by name (`bsp.PLANES`, `bsp["PLANES"]`).
#[pyclass(module = "bspkit", name = "Bsp", frozen)]
pub struct PyBsp {
    inner: Bsp<'static>,
    /// Lumps edited through the bindings (`set_lump`, record assignments, writable arrays,
    /// pakfile edits), by lump index: each a copy of the lump made on its first edit, which
    /// every later read and write of the lump goes through.
    changes: Mutex<BTreeMap<usize, Arc<LumpBuf>>>,
    /// Whether `changes` holds anything: reads of a map never edited skip its lock.
    edited: AtomicBool,
    /// The entity list handed to Python (edited in place) and the document it came from.
    entities: OnceLock<(Py<PyList>, EntityDoc)>,
    /// The `(key, value)` index `search_all_entities` answers from, built on the first search
    /// after any entity edit.
    search: Mutex<Option<SearchIndex>>,
    /// Respawn `.ent` partitions beside the map, as lists handed to Python (read on first use).
    partitions: OnceLock<Vec<Partition>>,
}

/// A lump's bytes as edited through the bindings: one heap buffer that record objects read
/// and write, and that NumPy arrays (`numpy()`, `numpy(writable=True)`) view, so a write
/// through any of them is what every other read sees. Arrays hold it by `Arc`: a buffer a lump
/// no longer uses stays valid while an array over it lives.
///
/// NumPy writes into the buffer through raw pointers, so Rust never holds a `&mut` to it and
/// reads or writes it only with the GIL held, copying out what it keeps (as NumPy itself does
/// with memory shared between arrays).
struct LumpBuf {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the buffer is plain bytes owned by this value; access is serialised by the GIL
// (see above).
unsafe impl Send for LumpBuf {}
unsafe impl Sync for LumpBuf {}

impl LumpBuf {
    fn new(bytes: Vec<u8>) -> Arc<Self> {
        let b = Box::into_raw(bytes.into_boxed_slice());
        Arc::new(LumpBuf { ptr: b as *mut u8, len: b.len() })
    }
    /// # Safety
    /// With the GIL held, and the slice dropped before Python code runs again.
    unsafe fn bytes(&self) -> &[u8] {
        std::slice::from_raw_parts(self.ptr, self.len)
    }
    /// # Safety
    /// With the GIL held; `at + data.len()` within the buffer.
    unsafe fn write(&self, at: usize, data: &[u8]) {
        debug_assert!(at + data.len() <= self.len);
        std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(at), data.len());
    }
}

impl Drop for LumpBuf {
    fn drop(&mut self) {
        // SAFETY: made by `Box::into_raw` of a boxed slice of `len` bytes in `new`.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) });
    }
}

/// The map as edited so far ([`PyBsp::current`]).
enum Current<'a> {
    Map(&'a Bsp<'static>),
    Edited(Box<Bsp<'static>>),
}

impl std::ops::Deref for Current<'_> {
    type Target = Bsp<'static>;
    fn deref(&self) -> &Bsp<'static> {
        match self {
            Current::Map(b) => b,
            Current::Edited(b) => b,
        }
    }
}

/// One Respawn `<map>_<kind>.ent` partition: the file, its entities as read, and the list of
/// [`Entity`] objects handed to Python (`bsp.ENTITIES_<kind>`).
struct Partition {
    part: EntPartition,
    doc: EntityDoc,
    list: Py<PyList>,
}

/// Bumped after every change made through the bindings to an [`Entity`] or to an entity list
/// (`EntityList`'s methods call `_entities_edited`): a [`SearchIndex`] built under an older
/// value is stale. One counter for the process: an edit anywhere makes every index rebuild on
/// its next search, which is correct and costs one rebuild.
static ENTITY_EDITS: AtomicU64 = AtomicU64::new(0);

fn entities_edited() {
    ENTITY_EDITS.fetch_add(1, Ordering::AcqRel);
}

/// Called by `bspkit._entities.EntityList` after each change to the list.
#[pyfunction]
fn _entities_edited() {
    entities_edited();
}

/// The entity list's `(key, value)` index, filled one key at a time: the first search naming a
/// key scans the entities for that key's pairs (so a rebuild after an edit costs one pass over
/// the list per key searched, not an index of every pair). The keys and values are Python `str`
/// objects made once from the entities' bytes, held in dicts: a search then looks its keyword
/// strings up by their cached hashes, with no UTF-8 conversion of the query (the abi3 API
/// before 3.10 has no borrowed UTF-8 view of a `str`, so a Rust-keyed map would copy every
/// query string). Each hit set is a tuple of the entities, in list order (copied into the
/// result list in one call).
struct SearchIndex {
    /// [`ENTITY_EDITS`] when it was built, and the list's length then.
    edits: u64,
    len: usize,
    /// The list's [`Entity`] objects in order (other items are skipped).
    ents: Vec<Py<Entity>>,
    /// `{key: {value: (entity, …)}}` for the keys searched so far.
    by_key: Py<PyDict>,
}

impl SearchIndex {
    fn new(py: Python<'_>, list: &Bound<'_, PyList>, edits: u64) -> Self {
        let ents = list.iter().filter_map(|o| o.cast::<Entity>().ok().map(|e| e.clone().unbind())).collect();
        SearchIndex { edits, len: list.len(), ents, by_key: PyDict::new(py).unbind() }
    }

    /// `{value: (entity, …)}` for `key` (a `str`), made on the first search that names it.
    fn values_of<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let by_key = self.by_key.bind(py);
        if let Some(d) = by_key.get_item(key)? {
            return Ok(d.cast_into::<PyDict>()?);
        }
        let name: String = key.extract()?;
        // An entity being changed right now (its `set` runs a value's `__str__`, which could
        // search) cannot be read: an error, not a panic.
        let borrowed: Vec<PyRef<'_, Entity>> = self
            .ents
            .iter()
            .map(|e| e.bind(py).try_borrow().map_err(|_| PyRuntimeError::new_err("an entity is being changed while searched")))
            .collect::<PyResult<_>>()?;
        let mut groups: HashMap<&[u8], Vec<u32>> = HashMap::new();
        for (i, e) in borrowed.iter().enumerate() {
            for (k, v) in e.inner.raw_pairs() {
                // Values that are not UTF-8 are left out: a Python `str` query is UTF-8, so it
                // can never equal them (the library's `EntityFilter` compares bytes too).
                if k != name.as_bytes() || std::str::from_utf8(v).is_err() {
                    continue;
                }
                let at = groups.entry(v).or_default();
                if at.last() != Some(&(i as u32)) {
                    at.push(i as u32);
                }
            }
        }
        let d = PyDict::new(py);
        for (v, positions) in groups {
            let tuple = PyTuple::new(py, positions.iter().map(|&i| self.ents[i as usize].bind(py)))?;
            let value = PyString::new(py, std::str::from_utf8(v).unwrap_or_default());
            d.set_item(value, tuple)?;
        }
        drop(borrowed);
        by_key.set_item(key, &d)?;
        Ok(d)
    }
}

fn open_options(branch: Option<String>, external: bool, mmap: bool) -> OpenOptions {
    let read_limit = if mmap { 0 } else { bspkit::MAP_READ_LIMIT };
    OpenOptions { branch, external_lumps: external, read_limit, ..OpenOptions::default() }
}

/// Open a map: `source` is a path (`str` or `os.PathLike`: read into memory up to 256 MiB,
/// memory-mapped above), `bytes`-like data (copied), or a binary file object (read, then
/// copied). `branch` forces a branch id instead of detection; `external=False` ignores `.lmp` /
/// `.bsp_lump` files beside the map; `mmap=True` memory-maps a path whatever its size (no copy,
/// only the pages used are read; a file truncated by another process meanwhile can then end
/// the interpreter with SIGBUS).
#[pyfunction]
#[pyo3(signature = (source, branch=None, external=true, mmap=false))]
fn load(py: Python<'_>, source: &Bound<'_, PyAny>, branch: Option<String>, external: bool, mmap: bool) -> PyResult<PyBsp> {
    let opts = open_options(branch, external, mmap);
    let os = py.import("os")?;
    let inner = if source.is_instance_of::<PyString>() || source.is_instance(&os.getattr("PathLike")?)? {
        let path: std::path::PathBuf = source.extract()?;
        // `archive.pk3!maps/x.bsp`, as `bsp scan` names a map inside an archive (and every
        // command opens it): the entry read into memory, without external lump files.
        match bspkit::scan::split_entry_path(&path) {
            Some((archive, entry)) => {
                let opts = bspkit::OpenOptions { external_lumps: false, ..opts };
                let name = path.to_string_lossy().into_owned();
                py.detach(|| {
                    let bytes = bspkit::scan::read_archive_entry(&archive, &entry, bspkit::scan::DEFAULT_MAX_ARCHIVE_ENTRY)?;
                    Bsp::from_vec_with(bytes, &opts).map(|b| b.with_name(name.clone())).map_err(|e| e.in_file(std::path::Path::new(&name)))
                })
                .py()?
            }
            None => py.detach(|| Bsp::open_with(&path, &opts)).py()?,
        }
    } else {
        let data: Vec<u8> = if let Ok(b) = source.cast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else if source.hasattr("read")? {
            let got = source.call_method0("read")?;
            let b = got
                .cast::<PyBytes>()
                .map_err(|_| PyTypeError::new_err("the file object's read() must return bytes (open the file in binary mode)"))?;
            b.as_bytes().to_vec()
        } else if let Ok(v) = buffer_bytes(source) {
            // bytearray, memoryview, array.array, NumPy arrays: copied, so later changes to
            // the buffer cannot reach the map.
            v
        } else {
            return Err(PyTypeError::new_err(format!(
                "load() takes a path, bytes-like data or a binary file object, not {}",
                source.get_type().name()?
            )));
        };
        py.detach(|| Bsp::from_vec_with(data, &opts)).py()?
    };
    Ok(PyBsp {
        inner,
        changes: Mutex::new(BTreeMap::new()),
        edited: AtomicBool::new(false),
        entities: OnceLock::new(),
        search: Mutex::new(None),
        partitions: OnceLock::new(),
    })
}

/// A copy of the bytes of any object with the buffer protocol (`bytes`, `bytearray`,
/// `memoryview`, `array.array`, NumPy arrays); TypeError for anything else.
fn buffer_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let view = obj.py().import("builtins")?.getattr("memoryview")?.call1((obj,))?;
    Ok(view.call_method0("tobytes")?.cast::<PyBytes>()?.as_bytes().to_vec())
}

fn endian_name(e: Endian) -> &'static str {
    match e {
        Endian::Little => "little",
        Endian::Big => "big",
    }
}

impl PyBsp {
    fn lump_index(&self, name: &str) -> PyResult<usize> {
        resolve_lump(&self.inner, name).map_err(err)
    }

    /// The lump's bytes as they are now: edited, or the map's (decompressed).
    fn with_lump<R>(&self, index: usize, f: impl FnOnce(&[u8]) -> PyResult<R>) -> PyResult<R> {
        match self.edit_buf(index) {
            // SAFETY: read with the GIL held (see `LumpBuf`).
            Some(b) => f(unsafe { b.bytes() }),
            None => f(self.inner.lump(index).py()?),
        }
    }

    /// The lump's edit buffer, if it was edited.
    fn edit_buf(&self, index: usize) -> Option<Arc<LumpBuf>> {
        if !self.edited.load(Ordering::Acquire) {
            return None;
        }
        self.changes.lock().unwrap().get(&index).cloned()
    }

    /// The lump's edit buffer, made on first use from a copy of the lump (copy-on-write: a
    /// map is copied one lump at a time, only the lumps edited).
    fn writable(&self, index: usize) -> PyResult<Arc<LumpBuf>> {
        if let Some(b) = self.edit_buf(index) {
            return Ok(b);
        }
        if self.inner.entities_index() == Some(index) && self.entities.get().is_some() {
            return Err(PyValueError::new_err("the entities were taken as bsp.ENTITIES: edit that list instead"));
        }
        let copy = self.inner.lump(index).py()?.to_vec();
        let b = self.changes.lock().unwrap().entry(index).or_insert_with(|| LumpBuf::new(copy)).clone();
        self.edited.store(true, Ordering::Release);
        Ok(b)
    }

    /// Replace a lump's bytes. A lump edited before keeps its buffer when the length is the
    /// same (arrays over it see the new bytes); otherwise it gets a new one (arrays taken
    /// before keep the old bytes, which are no longer the map's).
    fn replace_lump(&self, index: usize, bytes: Vec<u8>) {
        let mut changes = self.changes.lock().unwrap();
        match changes.get(&index) {
            // SAFETY: written with the GIL held (see `LumpBuf`); same length.
            Some(b) if b.len == bytes.len() => unsafe { b.write(0, &bytes) },
            _ => {
                changes.insert(index, LumpBuf::new(bytes));
            }
        }
        self.edited.store(true, Ordering::Release);
    }

    /// Whether anything was edited through the bindings (lumps, or the entity list).
    fn is_edited(&self, py: Python<'_>) -> PyResult<bool> {
        if self.edited.load(Ordering::Acquire) {
            return Ok(true);
        }
        match self.entities.get() {
            Some((list, doc)) => Ok(entities_of(list.bind(py), "bsp.ENTITIES")? != doc.entities),
            None => Ok(false),
        }
    }

    /// The map as it is now: the map itself when nothing was edited, else the edited map put
    /// together and read again (so `info`, `check`, geometry, lightmaps, textures and exports
    /// see every edit, as `save_as` would write it).
    fn current(&self, py: Python<'_>) -> PyResult<Current<'_>> {
        if !self.is_edited(py)? {
            return Ok(Current::Map(&self.inner));
        }
        let bytes = self.editor(py)?.to_bytes().py()?;
        let mut opts = self.inner.options().clone();
        // The lumps of external files are in `bytes` already.
        opts.external_lumps = false;
        opts.read_limit = 0;
        let name = format!("{} (edited)", self.inner.display_name());
        let mut bsp = Bsp::from_vec_with(bytes, &opts).py()?;
        if bsp.branch().id != self.inner.branch().id {
            // Detected otherwise after the edit: read as the map's own branch.
            opts.branch = Some(self.inner.branch().id.to_string());
            bsp = Bsp::from_vec_with(bsp.data().to_vec(), &opts).py()?;
        }
        Ok(Current::Edited(Box::new(bsp.with_name(name))))
    }

    fn entity_state(&self, py: Python<'_>) -> PyResult<&(Py<PyList>, EntityDoc)> {
        if let Some(s) = self.entities.get() {
            return Ok(s);
        }
        // Read through an editor holding the raw lump edits, so a `set_lump` of the entity lump
        // made before is what the list shows.
        let mut ed = Editor::new(&self.inner).py()?;
        for (i, b) in self.changes.lock().unwrap().iter() {
            // SAFETY: read with the GIL held (see `LumpBuf`).
            ed.set_lump(*i, unsafe { b.bytes() }.to_vec()).py()?;
        }
        // The list's objects get a copy of the entities: the document keeps the text, its layout
        // and the entities as read, which `is_edited` compares the list with (`editor` puts the
        // list's entities back into a copy of it to write).
        let doc = ed.entities().py()?;
        let list = entity_list(py, doc.entities.clone())?;
        let _ = self.entities.set((list, doc));
        Ok(self.entities.get().expect("set above"))
    }

    /// The Respawn `.ent` partitions beside the map (none for other families or maps read
    /// from memory), read on first use.
    fn partition_state(&self, py: Python<'_>) -> PyResult<&Vec<Partition>> {
        if let Some(s) = self.partitions.get() {
            return Ok(s);
        }
        let mut out = Vec::new();
        if self.inner.family() == bspkit::Family::Respawn {
            for (kind, path) in bspkit::branches::respawn::entity_partition_paths(&self.inner).py()? {
                let part = EntPartition::read(kind, path).py()?;
                let doc = part.doc().py()?;
                // Cloned: `edited_partitions` compares the list with what was read.
                let list = entity_list(py, doc.entities.iter().cloned())?;
                out.push(Partition { part, doc, list });
            }
        }
        let _ = self.partitions.set(out);
        Ok(self.partitions.get().expect("set above"))
    }

    /// New bytes of each partition whose entity list was edited, by kind.
    fn edited_partitions(&self, py: Python<'_>) -> PyResult<BTreeMap<String, Vec<u8>>> {
        let mut out = BTreeMap::new();
        for p in self.partitions.get().map(Vec::as_slice).unwrap_or_default() {
            let what = format!("bsp.ENTITIES_{}", p.part.kind);
            let entities = entities_of(p.list.bind(py), &what)?;
            if entities != p.doc.entities {
                let mut doc = p.doc.clone();
                doc.entities = entities;
                out.insert(p.part.kind.clone(), p.part.with_doc(&doc));
            }
        }
        Ok(out)
    }

    /// An editor with every change made through the bindings.
    fn editor(&self, py: Python<'_>) -> PyResult<Editor<'_, 'static>> {
        let mut ed = Editor::new(&self.inner).py()?;
        for (i, b) in self.changes.lock().unwrap().iter() {
            // SAFETY: read with the GIL held (see `LumpBuf`).
            ed.set_lump(*i, unsafe { b.bytes() }.to_vec()).py()?;
        }
        if let Some((list, doc)) = self.entities.get() {
            let mut doc = doc.clone();
            doc.entities = entities_of(list.bind(py), "bsp.ENTITIES")?;
            ed.set_entities(&doc).py()?;
        }
        Ok(ed)
    }

    fn lump_object(slf: &Bound<'_, Self>, index: usize) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let me = slf.get();
        let Some(entry) = me.inner.entry(index) else {
            // A list-directory branch (CoD, Genesis3D) without this lump.
            return Err(err(bspkit::Error::new(ErrorKind::NoSuchLump(index.to_string()))));
        };
        let def = me.inner.branch().lumps.iter().find(|d| d.name == entry.name);
        if me.inner.entities_index() == Some(index) {
            return Ok(me.entity_state(py)?.0.clone_ref(py).into_any());
        }
        if entry.name == "PAKFILE" && me.inner.family() == bspkit::Family::Source {
            return Ok(Py::new(py, PakFile { bsp: slf.clone().unbind(), index })?.into_any());
        }
        if entry.name == "GAME_LUMP" {
            return Ok(Py::new(py, GameLump { bsp: slf.clone().unbind() })?.into_any());
        }
        if let Some(LumpKind::Records { .. }) = def.map(|d| d.kind) {
            return Ok(Py::new(py, RecordLump::new(slf, index)?)?.into_any());
        }
        me.with_lump(index, |b| Ok(PyBytes::new(py, b).into_any().unbind()))
    }
}

#[pymethods]
impl PyBsp {
    /// The branch id (`quake1`, `source`, `titanfall2`, …; `bspkit.formats()` lists them).
    #[getter]
    fn branch(&self) -> &'static str {
        self.inner.branch().id
    }
    /// The engine family (`quake`, `goldsrc`, `quake2`, `quake3`, `source`, `respawn`, `cod`, `genesis3d`, `nightfire`).
    #[getter]
    fn family(&self) -> &'static str {
        self.inner.family().as_str()
    }
    /// The format version from the header.
    #[getter]
    fn version(&self) -> u32 {
        self.inner.detection().version
    }
    /// `"little"` or `"big"`.
    #[getter]
    fn endianness(&self) -> &'static str {
        endian_name(self.inner.endian())
    }
    /// The map revision (Source, Respawn), else None.
    #[getter]
    fn revision(&self) -> Option<u32> {
        self.inner.header().revision
    }
    /// The file path, when opened from one.
    #[getter]
    fn path(&self) -> Option<String> {
        self.inner.path().map(|p| p.to_string_lossy().into_owned())
    }
    /// Why this branch was chosen: `{"branch", "why": [...], "runners_up": [(branch, why)]}`.
    #[getter]
    fn detection(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = self.inner.detection();
        let v = serde_json::json!({
            "branch": d.branch.id, "version": d.version, "endianness": endian_name(d.endian),
            "why": d.why, "runners_up": d.runners_up,
        });
        json_to_py(py, &v)
    }
    /// The lump directory: one namespace per lump (`index`, `name`, `offset`, `length`,
    /// `version`, `compressed`, `record_size`, `count`, `source`), as `bsp info --json` lists them.
    #[getter]
    fn headers(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        bspkit::info::lump_infos(&self.inner).iter().map(|l| namespace(py, l)).collect()
    }
    /// Lump names in directory order.
    fn lump_names(&self) -> Vec<&'static str> {
        self.inner.lumps().iter().map(|l| l.name).collect()
    }
    /// Lumps that cannot be read as their branch says: `{name: message}` (empty for a sound map).
    #[getter]
    fn loading_errors(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        for e in self.inner.lumps() {
            let problem = match self.inner.lump(e.index) {
                Err(x) => Some(x.to_string()),
                Ok(b) => match self.inner.record_size(e.index) {
                    Some(size) if size > 0 && b.len() % size != 0 => Some(
                        self.inner
                            .lump_error(e.index, bspkit::Error::new(ErrorKind::BadLumpLength { length: b.len() as u64, record_size: size }))
                            .to_string(),
                    ),
                    _ => None,
                },
            };
            if let Some(p) = problem {
                d.set_item(e.name, p)?;
            }
        }
        Ok(d.unbind())
    }

    fn __getattr__(slf: &Bound<'_, Self>, name: &str) -> PyResult<Py<PyAny>> {
        // `ENTITIES_spawn`: a Respawn `.ent` partition, named as bsp_tool names them.
        if let Some(kind) = name.strip_prefix("ENTITIES_") {
            let me = slf.get();
            if let Some(p) = me.partition_state(slf.py())?.iter().find(|p| p.part.kind == kind) {
                return Ok(p.list.clone_ref(slf.py()).into_any());
            }
            if me.lump_by_name(name).is_none() {
                return Err(PyAttributeError::new_err(format!("{} has no entity partition {kind:?}", me.inner.display_name())));
            }
        }
        // Lump names are upper case; anything else is a missing attribute, not a lump lookup.
        if name.starts_with('_') || name.chars().any(|c| c.is_ascii_lowercase()) {
            return Err(PyAttributeError::new_err(format!("'Bsp' object has no attribute '{name}'")));
        }
        match slf.get().lump_by_name(name) {
            Some(i) => Self::lump_object(slf, i),
            None => Err(PyAttributeError::new_err(format!("{} maps have no lump {name}", slf.get().inner.branch().id))),
        }
    }

    /// `bsp["PLANES"]` or `bsp[1]`: a lump by name or index.
    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        // A name first: trying `int` on a `str` would build and drop a TypeError every time.
        let index = if key.is_instance_of::<PyString>() {
            let name: String = key.extract()?;
            slf.get().lump_by_name(&name).ok_or_else(|| PyKeyError::new_err(name))?
        } else if let Ok(i) = key.extract::<usize>() {
            if !slf.get().inner.branch().header.is_list() && i >= slf.get().inner.lumps().len() {
                return Err(PyIndexError::new_err(format!("lump index {i} out of range")));
            }
            i
        } else {
            return Err(PyTypeError::new_err("lumps are indexed by name or number"));
        };
        Self::lump_object(slf, index)
    }

    fn __contains__(&self, name: &str) -> bool {
        self.lump_by_name(name).is_some()
    }

    fn __dir__(&self, py: Python<'_>) -> Vec<String> {
        let mut v: Vec<String> = self.inner.lumps().iter().map(|l| l.name.to_string()).collect();
        if let Ok(parts) = self.partition_state(py) {
            v.extend(parts.iter().map(|p| format!("ENTITIES_{}", p.part.kind)));
        }
        v.extend(
            [
                "branch",
                "family",
                "version",
                "endianness",
                "revision",
                "path",
                "detection",
                "headers",
                "loading_errors",
                "lump_names",
                "raw_lump",
                "decompress_all",
                "set_lump",
                "rename_texture",
                "search_all_entities",
                "ent_partitions",
                "lightmap_atlases",
                "texture_arrays",
                "export_gltf",
                "save_as",
                "to_bytes",
                "check",
                "info",
                "model",
                "models",
                "scene",
                "lightmaps",
                "textures",
                "miptex",
                "bspx",
            ]
            .map(String::from),
        );
        v
    }

    fn __repr__(&self) -> String {
        format!(
            "<bspkit.Bsp {} {} v{} ({} lumps)>",
            self.inner.display_name(),
            self.inner.branch().id,
            self.version(),
            self.inner.lumps().len()
        )
    }

    /// A lump's bytes: decompressed (default), or as stored in the file (`stored=True`).
    #[pyo3(signature = (lump, stored=false))]
    fn raw_lump<'py>(&self, py: Python<'py>, lump: &Bound<'_, PyAny>, stored: bool) -> PyResult<Bound<'py, PyBytes>> {
        let index = self.index_of(lump)?;
        if stored {
            return Ok(PyBytes::new(py, self.inner.raw_lump(index).py()?));
        }
        self.with_lump(index, |b| Ok(PyBytes::new(py, b)))
    }

    /// Decompress every compressed lump now, spread over the machine's cores (largest first),
    /// rather than each on its first use; returns the decompressed bytes the map holds. For a
    /// script that reads every lump of a compressed map (Xbox 360 / PS3 Source): LZMA lumps
    /// decode independently, so this takes about the time of the largest instead of the sum.
    /// A lump that fails to decompress raises its error when it is read, as before. Nothing
    /// to do for a map without compressed lumps.
    fn decompress_all(&self, py: Python<'_>) -> u64 {
        py.detach(|| self.inner.decompress_all());
        self.inner.decompressed_bytes()
    }

    /// Replace a lump's (decompressed) bytes: `bytes`-like data, or for a record lump a NumPy
    /// array of its record layout (`bsp.PLANES.dtype`: a copy of `bsp.PLANES.numpy()` has it;
    /// another dtype is a ValueError, a length that is not whole records a BadLumpLengthError).
    /// Every read from now on sees the new lump (records, arrays, `raw_lump`, and whole-map
    /// reads such as `info()` or `scene()`); `save_as` / `to_bytes` write it. Arrays taken over
    /// the lump before keep the old bytes, unless the lump was edited already and keeps its
    /// length (then they show the new bytes).
    fn set_lump(&self, py: Python<'_>, lump: &Bound<'_, PyAny>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let index = self.index_of(lump)?;
        if self.inner.entities_index() == Some(index) && self.entities.get().is_some() {
            return Err(PyValueError::new_err("the entities were taken as bsp.ENTITIES: edit that list instead"));
        }
        let layout = self.record_layout(index);
        if let Some((schema, size)) = layout {
            if data.hasattr("__array_interface__")? && data.hasattr("dtype")? {
                check_layout(py, data, schema, size, self.inner.entry(index).map(|e| e.name).unwrap_or("?"))?;
            }
        }
        let bytes = buffer_bytes(data)?;
        if let Some((_, size)) = layout {
            if size == 0 || bytes.len() % size != 0 {
                return Err(err(self
                    .inner
                    .lump_error(index, bspkit::Error::new(ErrorKind::BadLumpLength { length: bytes.len() as u64, record_size: size }))));
            }
        }
        self.replace_lump(index, bytes);
        Ok(())
    }

    /// Rename texture `old` to `new` wherever the map names it (`bspkit::rename`: Quake miptex
    /// names, Quake 2 texinfos, Quake 3 shaders and fogs, Source / Respawn texture strings, CoD
    /// materials, Genesis3D textures; names compared ignoring ASCII case). Returns how many
    /// names changed (0: no texture of that name). Reads see the new names at once; `save_as`
    /// writes them. ValueError for a name too long for its field.
    fn rename_texture(&self, py: Python<'_>, old: &str, new: &str) -> PyResult<usize> {
        let mut ed = self.editor(py)?;
        let r = bspkit::rename::rename_texture(&mut ed, old, new).map_err(|e| match e.kind {
            ErrorKind::Malformed(_) => PyValueError::new_err(e.to_string()),
            _ => err(e),
        })?;
        let lumps: Vec<(usize, Vec<u8>)> = r.lumps.iter().map(|&i| Ok((i, ed.lump(i).py()?.into_owned()))).collect::<PyResult<_>>()?;
        drop(ed);
        for (i, bytes) in lumps {
            self.replace_lump(i, bytes);
        }
        Ok(r.count)
    }

    /// The map with every edit, as bytes (the original bytes when nothing changed).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let ed = self.editor(py)?;
        Ok(PyBytes::new(py, &ed.to_bytes().py()?))
    }

    /// Write the map with every edit to `path` (atomically; the result is reopened and checked
    /// first, as `bsp edit` does). Byte-identical to the source when nothing changed. A Respawn
    /// map opened with its `.bsp_lump` files is written as a set (`bspkit::mapset`);
    /// `fold_external=True` is `bsp rewrite --fold-external`: the external lumps go into the
    /// one `.bsp` written.
    #[pyo3(signature = (path, *, fold_external=false))]
    fn save_as(&self, py: Python<'_>, path: std::path::PathBuf, fold_external: bool) -> PyResult<()> {
        let mut ed = self.editor(py)?;
        let partitions = self.edited_partitions(py)?;
        // A Respawn map opened with its `.bsp_lump` files is written as a set: the `.bsp`, its
        // external lumps and `.ent` partitions (with the edits made to `bsp.ENTITIES_<kind>`)
        // beside `path`.
        if self.inner.family() == bspkit::Family::Respawn && self.inner.path().is_some() && self.inner.options().external_lumps {
            let opts = bspkit::mapset::SetOptions { partitions, fold_external, ..Default::default() };
            bspkit::mapset::write_set(&mut ed, &path, &opts).map_err(|e| err(e.in_file(&path)))?;
            return Ok(());
        }
        if fold_external {
            return Err(PyValueError::new_err(
                "fold_external applies to a Respawn map opened with its .bsp_lump files (bspkit.load(path, external=True))",
            ));
        }
        if let Some(kind) = partitions.keys().next() {
            return Err(PyValueError::new_err(format!(
                "bsp.ENTITIES_{kind} was edited, but a map opened with external=False is written as the .bsp alone: \
                 open it with its external files to write its .ent partitions"
            )));
        }
        ed.write(&path).map_err(|e| err(e.in_file(&path)))?;
        Ok(())
    }

    /// The lumps this Respawn map reads from `.bsp_lump` files, as `split_external` takes them:
    /// `[(index, length or None)]`, the length where the file holds only the start of the
    /// in-file copy (`bspkit::mapset::split_plan`). Folding the set (`save_as(...,
    /// fold_external=True)`) and splitting the folded `.bsp` with this plan gives the set back.
    fn split_plan(&self, py: Python<'_>) -> PyResult<Vec<(usize, Option<u64>)>> {
        py.detach(|| bspkit::mapset::split_plan(&self.inner)).map_err(err)
    }

    /// `bsp rewrite --split-external`: write this Respawn `.bsp` (loaded from a file, without
    /// edits) to `path` unchanged, with a `<path>.<xxxx>.bsp_lump` beside it holding each listed
    /// lump's in-file bytes (or their first `length` bytes); `.ent` partitions are copied under
    /// the new name (`bspkit::mapset::split_external`: written as a set, reopened and checked).
    /// `lumps` is a list of lump indices or `(index, length)` pairs. Returns the paths written,
    /// the `.bsp` last.
    fn split_external(&self, py: Python<'_>, path: std::path::PathBuf, lumps: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<std::path::PathBuf>> {
        if self.is_edited(py)? {
            return Err(PyValueError::new_err(
                "split_external writes the map as loaded: save_as the edits first, load that, then split it",
            ));
        }
        let plan: Vec<bspkit::mapset::SplitLump> = lumps
            .iter()
            .map(|l| match l.extract::<usize>() {
                Ok(i) => Ok((i, None)),
                Err(_) => l
                    .extract::<(usize, Option<u64>)>()
                    .map_err(|_| PyValueError::new_err(format!("split_external: {l} is not a lump index or an (index, length) pair"))),
            })
            .collect::<PyResult<_>>()?;
        let report = py.detach(|| bspkit::mapset::split_external(&self.inner, &path, &plan)).map_err(|e| err(e.in_file(&path)))?;
        Ok(report.written)
    }

    /// `bsp convert`: convert the map as loaded (edits made through the bindings are not
    /// included: `save_as` them first) to branch `to` (an id of `bsp formats`), byte order
    /// `endian` (`"big"`: the console form, `"little"`: the PC form; default the map's own) and
    /// LZMA mode `lzma` (`"auto"`, `"keep"`, `"on"`, `"off"`), and write it atomically to
    /// `path` after reopening and checking it. Returns the report (README "bsp convert").
    /// `prop_version` (Source) is `--prop-version`: the static prop game lump version to write.
    /// `strict=True` raises `BspError` with `kind == "lossy"` (nothing written) when anything
    /// would be lost; pairs not covered raise with `kind == "unsupported"`.
    #[pyo3(signature = (to, path, *, endian=None, lzma="auto", strict=false, prop_version=None))]
    #[allow(clippy::too_many_arguments)]
    fn convert(
        &self,
        py: Python<'_>,
        to: &str,
        path: std::path::PathBuf,
        endian: Option<&str>,
        lzma: &str,
        strict: bool,
        prop_version: Option<u16>,
    ) -> PyResult<Py<PyAny>> {
        let to = bspkit::branches::by_id(to).ok_or_else(|| err(bspkit::Error::new(ErrorKind::UnknownBranch(to.to_string()))))?;
        let endian = match endian {
            None => None,
            Some("big") => Some(Endian::Big),
            Some("little") => Some(Endian::Little),
            Some(o) => return Err(PyValueError::new_err(format!("endian must be \"big\" or \"little\", not {o:?}"))),
        };
        let lzma = match lzma {
            "auto" => bspkit::convert::Lzma::Auto,
            "keep" => bspkit::convert::Lzma::Keep,
            "on" => bspkit::convert::Lzma::On,
            "off" => bspkit::convert::Lzma::Off,
            o => return Err(PyValueError::new_err(format!("lzma must be auto, keep, on or off, not {o:?}"))),
        };
        let opts = bspkit::convert::ConvertOptions { to, endian, lzma, static_props: prop_version };
        let report = py.detach(|| bspkit::convert::write(&self.inner, &opts, &path, strict)).map_err(|e| err(e.in_file(&path)))?;
        to_py(py, &report)
    }

    /// `bsp check --json`'s object for this map: `{"path", "problems", "counts"}`;
    /// `verify_lzma=True` is `bsp check --verify-lzma` (every LZMA lump decoded).
    #[pyo3(signature = (verify_lzma=false))]
    fn check(&self, py: Python<'_>, verify_lzma: bool) -> PyResult<Py<PyAny>> {
        let opts = bspkit::check::CheckOptions { verify_lzma };
        let bsp = self.current(py)?;
        let problems = py.detach(|| bspkit::check::check_with(&bsp, &opts));
        let counts = bspkit::check::problem::Counts::of(&problems);
        let v = serde_json::json!({"path": self.inner.display_name(), "problems": problems, "counts": counts});
        json_to_py(py, &v)
    }

    /// `bsp info --json`'s object for this map.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let bsp = self.current(py)?;
        let info = py.detach(|| bspkit::info::info(&bsp));
        to_py(py, &info)
    }

    /// Quake / GoldSrc embedded textures: `[{"index", "name", "width", "height", "embedded", "pixels": bytes | None}]`
    /// (`pixels`: mip level 0, palette indices).
    fn miptex(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let out = PyList::empty(py);
        let bsp = self.current(py)?;
        let Some(lump) = bspkit::lumps::miptex::of(&bsp).py()? else { return Ok(out.unbind()) };
        for (i, t) in lump.iter().enumerate() {
            let Some(t) = t.py()? else { continue };
            let d = PyDict::new(py);
            d.set_item("index", i)?;
            d.set_item("name", t.name().as_ref())?;
            d.set_item("width", t.width())?;
            d.set_item("height", t.height())?;
            d.set_item("embedded", t.embedded())?;
            d.set_item("pixels", t.mip(0).map(|p| PyBytes::new(py, p)))?;
            out.append(d)?;
        }
        Ok(out.unbind())
    }

    /// Respawn entity partitions beside the map (`<map>_<kind>.ent`): `{kind: EntityList}`, the
    /// same lists as `bsp.ENTITIES_<kind>`. Edits to them are written by `save_as` (a map opened
    /// with its external files). Empty for other families and maps read from memory.
    fn ent_partitions(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        for p in self.partition_state(py)? {
            d.set_item(&p.part.kind, p.list.clone_ref(py))?;
        }
        Ok(d.unbind())
    }

    /// Quake BSPX lumps after the map: `{name: bytes}` (empty when there are none).
    fn bspx(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        let bsp = self.current(py)?;
        if let Some(x) = bspkit::lumps::bspx::of(&bsp).py()? {
            for e in &x.entries {
                if let Some(b) = x.lump(bsp.data(), &e.name()) {
                    d.set_item(e.name().as_ref(), PyBytes::new(py, b))?;
                }
            }
        }
        Ok(d.unbind())
    }

    /// The map's geometry (`bspkit::mesh::build`): every model.
    fn scene(slf: &Bound<'_, Self>) -> PyResult<Py<Scene>> {
        let py = slf.py();
        let me = slf.get();
        let bsp = me.current(py)?;
        // The scene `export_gltf` writes (lightmaps on): `uv1` is its TEXCOORD_1.
        let scene = py.detach(|| bspkit::export::lit_scene(&bsp, bspkit::mesh::ModelSelect::All, None)).py()?;
        Py::new(py, Scene { scene: std::sync::Arc::new(scene) })
    }

    /// Model `i`'s geometry (0 is the world).
    fn model(slf: &Bound<'_, Self>, i: usize) -> PyResult<Model> {
        let py = slf.py();
        let scene = Self::scene(slf)?;
        let s = scene.borrow(py);
        let pos =
            s.scene.models.iter().position(|m| m.index as usize == i).ok_or_else(|| PyIndexError::new_err(format!("no model {i}")))?;
        Ok(Model { scene: s.scene.clone(), index: pos })
    }

    /// Lightmap atlases (`bspkit::lightmap::build`): `[{"page", "placeholder", "style", "layer",
    /// "width", "height", "shape": (height, width, 3), "rgb": bytes (8-bit RGB, display-ready)}]`
    /// ("placeholder": the map's lightmaps are black placeholders, `Lightmaps::is_placeholder`,
    /// the same on every entry: show the map unlit); with
    /// `png=True` each also has "png". `lightmap_atlases()` gives the same pixels as NumPy arrays.
    #[pyo3(signature = (png=false, hdr=false))]
    fn lightmaps(&self, py: Python<'_>, png: bool, hdr: bool) -> PyResult<Py<PyList>> {
        let opts = bspkit::lumps::lighting::LightOptions { hdr, ..Default::default() };
        let bsp = self.current(py)?;
        let lm = py.detach(|| bspkit::lightmap::build(&bsp, &opts)).py()?;
        let out = PyList::empty(py);
        let placeholder = lm.is_placeholder();
        for a in &lm.atlases {
            let d = PyDict::new(py);
            d.set_item("page", a.page)?;
            d.set_item("placeholder", placeholder)?;
            d.set_item("style", a.style)?;
            d.set_item("layer", a.layer)?;
            d.set_item("width", a.width)?;
            d.set_item("height", a.height)?;
            let rgb = a.rgb8();
            d.set_item("shape", (a.height, a.width, 3))?;
            d.set_item("rgb", PyBytes::new(py, &rgb))?;
            if png {
                d.set_item("png", PyBytes::new(py, &bspkit::lightmap::encode_png(a.width, a.height, &rgb).py()?))?;
            }
            out.append(d)?;
        }
        Ok(out.unbind())
    }

    /// Textures the map carries or names, decoded (`bspkit::texture`): `[{"name", "width",
    /// "height", "shape": (height, width, 4), "rgba": bytes, "alpha": "opaque" | "mask" | "blend"
    /// (with "alpha_cutoff" for mask)}]` (with `png=True` also "png"; as
    /// NumPy arrays: `texture_arrays()`); textures that cannot be found
    /// are in `[{"name", "missing": reason}]` entries. `game_dirs` / `wads` / `palette` as the CLI's options.
    #[pyo3(signature = (png=false, game_dirs=Vec::new(), wads=Vec::new(), palette=None))]
    fn textures(
        &self,
        py: Python<'_>,
        png: bool,
        game_dirs: Vec<std::path::PathBuf>,
        wads: Vec<std::path::PathBuf>,
        palette: Option<std::path::PathBuf>,
    ) -> PyResult<Py<PyList>> {
        self.each_texture(py, game_dirs, wads, palette, |d, t| {
            let img = t.image();
            d.set_item("width", img.width)?;
            d.set_item("height", img.height)?;
            d.set_item("shape", (img.height, img.width, 4))?;
            d.set_item("rgba", PyBytes::new(py, &img.pixels))?;
            if png {
                d.set_item("png", PyBytes::new(py, &img.encode_png().py()?))?;
            }
            Ok(())
        })
    }

    /// Lightmap atlases as NumPy arrays (needs NumPy): `[{"page", "placeholder", "style", "layer",
    /// "width", "height", "format", "overbright", "rgb"}]` ("placeholder" as for `lightmaps()`), "rgb" a read-only `(height, width, 3)` uint8 array of the
    /// same pixels `lightmaps()` gives as bytes (handed over from Rust without a copy). With
    /// `stored=True` each also has "stored": a `(height, width, 3)` float32 array of the values
    /// as stored (8-bit samples as `byte / 255`, HDR samples decoded exactly; what
    /// `bsp lightmaps --hdr` writes as PFM). `format` is the samples' form (`rgb8`, `rgbexp32`,
    /// `e5bgr9`); `hdr` as for `lightmaps()`.
    #[pyo3(signature = (hdr=false, stored=false))]
    fn lightmap_atlases(&self, py: Python<'_>, hdr: bool, stored: bool) -> PyResult<Py<PyList>> {
        let np = py.import("numpy")?;
        let opts = bspkit::lumps::lighting::LightOptions { hdr, ..Default::default() };
        let bsp = self.current(py)?;
        let lm = py.detach(|| bspkit::lightmap::build(&bsp, &opts)).py()?;
        let out = PyList::empty(py);
        let overbright = lm.png_overbright();
        let placeholder = lm.is_placeholder();
        for a in lm.atlases {
            let (w, h) = (a.width as usize, a.height as usize);
            let d = PyDict::new(py);
            d.set_item("page", a.page)?;
            // The map's lightmaps are black placeholders (`Lightmaps::is_placeholder`, the same
            // on every entry): show the map unlit.
            d.set_item("placeholder", placeholder)?;
            // What byte 255 of `rgb` means, in gamma space (`Lightmaps::png_overbright`).
            d.set_item("overbright", overbright)?;
            d.set_item("style", a.style)?;
            d.set_item("layer", a.layer)?;
            d.set_item("width", a.width)?;
            d.set_item("height", a.height)?;
            d.set_item("format", a.format.name())?;
            if stored {
                let mut values = Vec::with_capacity(w * h * 3);
                for y in 0..a.height {
                    for x in 0..a.width {
                        values.extend_from_slice(&a.stored(x, y));
                    }
                }
                d.set_item("stored", owned_array(py, &np, OwnedData::F32(values), &[h, w, 3])?)?;
            }
            // 8-bit samples are the pixels already: the atlas's buffer is handed over.
            let rgb = match a.format {
                bspkit::lumps::lighting::SampleFormat::Rgb8 => a.texels,
                _ => a.rgb8().into_owned(),
            };
            d.set_item("rgb", owned_array(py, &np, OwnedData::U8(rgb), &[h, w, 3])?)?;
            out.append(d)?;
        }
        Ok(out.unbind())
    }

    /// Textures as NumPy arrays (needs NumPy): `[{"name", "source", "alpha", "width", "height", "rgba",
    /// "hdr"}]`, "rgba" a read-only `(height, width, 4)` uint8 array of the pixels `textures()`
    /// gives as bytes (the decoder's buffer, handed over without a copy), "hdr" a
    /// `(height, width, 4)` float32 array of linear values for HDR sources, else None. Textures
    /// that cannot be found are `{"name", "missing": reason}`. Options as for `textures()`.
    #[pyo3(signature = (game_dirs=Vec::new(), wads=Vec::new(), palette=None))]
    fn texture_arrays(
        &self,
        py: Python<'_>,
        game_dirs: Vec<std::path::PathBuf>,
        wads: Vec<std::path::PathBuf>,
        palette: Option<std::path::PathBuf>,
    ) -> PyResult<Py<PyList>> {
        let np = py.import("numpy")?;
        self.each_texture(py, game_dirs, wads, palette, |d, t| {
            d.set_item("source", &t.source)?;
            let layer = t.into_layers().swap_remove(0);
            let img = layer.rgba;
            let (w, h) = (img.width as usize, img.height as usize);
            d.set_item("width", img.width)?;
            d.set_item("height", img.height)?;
            d.set_item("rgba", owned_array(py, &np, OwnedData::U8(img.pixels), &[h, w, 4])?)?;
            let hdr = match layer.hdr {
                Some(f) if f.pixels.len() == w * h * 4 => Some(owned_array(py, &np, OwnedData::F32(f.pixels), &[h, w, 4])?),
                _ => None,
            };
            d.set_item("hdr", hdr)
        })
    }

    /// Decompile the map to its family's editor source, as `bsp decompile` does
    /// (`bspkit::decompile`): Quake 2 family to a Valve 220 `.map`, Quake 3 family to a
    /// `brushDef` / `patchDef2` `.map`, Source to a `.vmf`, Quake 1 / Hexen II / BSP2 / GoldSrc to a Valve 220 `.map`
    /// with brushes rebuilt from the BSP tree (`standard=True`: Quake's standard texture form;
    /// `brushlist=False`: ignore a BSPX `BRUSHLIST`; `clip_brushes=False`: no clip brushes from
    /// clip hull 1, as `--no-clip-brushes`). With `path`, the source is written there
    /// (atomically); `measure` reads it back and measures face coverage, brush, texture and
    /// entity fidelity (and `quality["tree"]` for tree-rebuilt maps), and lists every brush and
    /// entity (`report["brush_list"]`, `report["entity_list"]`, at most `list_limit` rows each,
    /// as `--list-limit`). Returns `{"text": str, "extension": str, "report": dict}` (the report
    /// as `bsp decompile --report` writes it).
    #[pyo3(signature = (path=None, *, measure=true, standard=false, brushlist=true, clip_brushes=true,
        list_limit=bspkit::decompile::DEFAULT_LIST_LIMIT))]
    #[allow(clippy::too_many_arguments)]
    fn decompile(
        &self,
        py: Python<'_>,
        path: Option<std::path::PathBuf>,
        measure: bool,
        standard: bool,
        brushlist: bool,
        clip_brushes: bool,
        list_limit: usize,
    ) -> PyResult<Py<PyAny>> {
        use bspkit::decompile::quake1::QuakeFormat;
        let quake_format = if standard { QuakeFormat::Standard } else { QuakeFormat::Valve220 };
        let opts = bspkit::decompile::DecompileOptions {
            measure,
            quake_format,
            use_brushlist: brushlist,
            clip_brushes,
            list_limit,
            ..Default::default()
        };
        let d = py
            .detach(|| match &path {
                Some(p) => bspkit::decompile::decompile_to(&self.inner, p, &opts).map_err(|e| e.in_file(p)),
                None => bspkit::decompile::decompile(&self.inner, &opts),
            })
            .map_err(err)?;
        let v = serde_json::json!({"text": d.text, "extension": d.extension, "report": d.report});
        json_to_py(py, &v)
    }

    /// Export the map's geometry as `bsp export` does (`bspkit::export`): glTF binary (`.glb`),
    /// `.gltf` + `.bin`, or OBJ + MTL, chosen by `path`'s extension. `scale` converts game units
    /// (default: metres); `models` is `"all"` or `"world"`; `skip` names the surface kinds left
    /// out (`None`: sky, nodraw, trigger, clip, tool; `[]`: none); `textures` / `lightmaps` embed
    /// them; `hdr` also writes every lightmap page × style × layer beside the output (`.pfm` +
    /// `.png`, and a manifest), as `bsp export --hdr`; `lightmap_mode` is `"occlusion"` (the
    /// atlas as `occlusionTexture`) or `"vertex"` (the light in `COLOR_0`, unlit materials: what
    /// Blender's and three.js's default import show), as `--lightmap-mode`; `game_dirs` / `wads`
    /// / `palette` as the CLI's options. Returns `bsp export --json`'s summary as a dict.
    #[pyo3(signature = (path, *, scale=bspkit::export::DEFAULT_SCALE, models="all", skip=None, patch_level=None,
        textures=true, lightmaps=true, hdr=false, game_dirs=Vec::new(), wads=Vec::new(), palette=None,
        lightmap_mode="occlusion"))]
    #[allow(clippy::too_many_arguments)]
    fn export_gltf(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        scale: f32,
        models: &str,
        skip: Option<Vec<String>>,
        patch_level: Option<u32>,
        textures: bool,
        lightmaps: bool,
        hdr: bool,
        game_dirs: Vec<std::path::PathBuf>,
        wads: Vec<std::path::PathBuf>,
        palette: Option<std::path::PathBuf>,
        lightmap_mode: &str,
    ) -> PyResult<Py<PyAny>> {
        use bspkit::mesh::{ModelSelect, SurfaceFlags};
        let lightmap_mode = match lightmap_mode {
            "occlusion" => bspkit::export::LightmapMode::Occlusion,
            "vertex" => bspkit::export::LightmapMode::Vertex,
            other => return Err(PyValueError::new_err(format!("lightmap_mode must be \"occlusion\" or \"vertex\", not {other:?}"))),
        };
        let models = match models {
            "all" => ModelSelect::All,
            "world" => ModelSelect::World,
            other => return Err(PyValueError::new_err(format!("models must be \"all\" or \"world\", not {other:?}"))),
        };
        let skip = match skip {
            None => bspkit::export::DEFAULT_SKIP,
            Some(names) => {
                let mut flags = SurfaceFlags::NONE;
                for n in &names {
                    flags |= SurfaceFlags::from_name(n).ok_or_else(|| {
                        let known: Vec<&str> = SurfaceFlags::NAMES.iter().map(|(n, _)| *n).collect();
                        PyValueError::new_err(format!("unknown surface kind {n:?} (one of {})", known.join(", ")))
                    })?;
                }
                flags
            }
        };
        if !(scale.is_finite() && scale > 0.0) {
            return Err(PyValueError::new_err(format!("scale must be a positive number, not {scale}")));
        }
        let opts = bspkit::export::ExportOptions {
            format: None,
            models,
            scale,
            skip,
            patch_level,
            textures: textures.then(|| bspkit::texture::TextureOptions { game_dirs, wads, palette, ..Default::default() }),
            lightmaps,
            hdr,
            lightmap_mode,
            ..Default::default()
        };
        let bsp = self.current(py)?;
        let summary = py.detach(|| bspkit::export::export(&bsp, &path, &opts)).map_err(|e| err(e.in_file(&path)))?;
        to_py(py, &summary)
    }
}

impl PyBsp {
    /// A lump by its branch name; `ENTITIES` also names the entity lump of branches that call
    /// it otherwise (Genesis3D `ENTDATA`), as bsp_tool users expect.
    fn lump_by_name(&self, name: &str) -> Option<usize> {
        self.inner.lump_index(name).or_else(|| if name == "ENTITIES" { self.inner.entities_index() } else { None })
    }

    fn index_of(&self, lump: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Ok(i) = lump.extract::<usize>() {
            return self.lump_index(&i.to_string());
        }
        let name: String = lump.extract().map_err(|_| PyTypeError::new_err("a lump is named by its name or index"))?;
        match self.lump_by_name(&name) {
            Some(i) => Ok(i),
            None => self.lump_index(&name),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Records

/// One number of a field, read in the file's byte order.
fn scalar(py: Python<'_>, s: Scalar, big: bool, b: &[u8]) -> PyResult<Py<PyAny>> {
    macro_rules! num {
        ($t:ty) => {{
            let a: [u8; std::mem::size_of::<$t>()] = b.try_into().map_err(|_| PyValueError::new_err("short field"))?;
            (if big { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }).into_pyobject(py)?.into_any().unbind()
        }};
    }
    Ok(match s {
        Scalar::U8 => num!(u8),
        Scalar::I8 => num!(i8),
        Scalar::U16 => num!(u16),
        Scalar::I16 => num!(i16),
        Scalar::U32 => num!(u32),
        Scalar::I32 => num!(i32),
        Scalar::U64 => num!(u64),
        Scalar::I64 => num!(i64),
        Scalar::F32 => (num!(f32)).into_any(),
        Scalar::F64 => num!(f64),
    })
}

/// Field names as Python gives them: snake_case, every word apart (`num_edges`, `first_face`,
/// `plane_num`). A few of the library's records keep the run-together names of the engines' C
/// structs (Source's `dface_t`: `firstedge`, `numedges`), which bsp_tool users also know:
/// those are renamed here, and the old name stays an alias (record attributes and items,
/// NumPy dtype titles). `(old, new)`.
const RENAMED: &[(&str, &str)] = &[
    ("firstedge", "first_edge"),
    ("firstface", "first_face"),
    ("firstleafbrush", "first_leaf_brush"),
    ("firstleafface", "first_leaf_face"),
    ("firstpoly", "first_poly"),
    ("firstside", "first_side"),
    ("firstvertexindex", "first_vertex_index"),
    ("headnode", "head_node"),
    ("lightofs", "light_ofs"),
    ("numedges", "num_edges"),
    ("numfaces", "num_faces"),
    ("numleafbrushes", "num_leaf_brushes"),
    ("numleaffaces", "num_leaf_faces"),
    ("numsides", "num_sides"),
    ("planenum", "plane_num"),
    ("polycount", "poly_count"),
    ("stopdot", "stop_dot"),
    ("stopdot2", "stop_dot2"),
    ("vertexcount", "vertex_count"),
    ("viscluster", "vis_cluster"),
];

/// A field's name in Python.
fn py_name(f: &Field) -> &'static str {
    RENAMED.iter().find(|(old, _)| *old == f.name).map(|(_, new)| *new).unwrap_or(f.name)
}

/// The field `name` names: its Python name or the library's (the old alias).
fn field_named(schema: &'static RecordSchema, name: &str) -> Option<&'static Field> {
    // Most fields have one name: one scan of the fields; a renamed one maps back first.
    schema.field(name).or_else(|| {
        let (old, _) = RENAMED.iter().find(|(_, new)| *new == name)?;
        schema.field(old)
    })
}

/// Whether a field is a fixed-size name (C `char[N]`): a byte array named as one (`name`,
/// `texture`, `shader`, `model`, `material`, `…_name`). Python reads it as text up to the
/// first NUL (what follows is junk the compilers left); its bytes as stored are `_raw(field)`
/// or the `<field>_bytes` attribute.
fn is_text(f: &Field) -> bool {
    f.ty.ndim == 1
        && matches!(f.ty.kind, Kind::Scalar { scalar: Scalar::U8, .. })
        && (matches!(f.name, "name" | "texture" | "shader" | "model" | "material") || f.name.ends_with("_name"))
}

/// A name's bytes as text, up to the first NUL: UTF-8, with bytes that are not UTF-8 kept as
/// lone surrogates (Python's `surrogateescape`), so assigning the text back writes the same bytes.
fn text_value(py: Python<'_>, b: &[u8]) -> PyResult<Py<PyAny>> {
    let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
    match std::str::from_utf8(b) {
        Ok(s) => Ok(PyString::new(py, s).into_any().unbind()),
        Err(_) => Ok(PyBytes::new(py, b).call_method1("decode", ("utf-8", "surrogateescape"))?.unbind()),
    }
}

/// A field's value: a number, `bytes` for a 1-D byte array (styles, colours), nested lists for
/// other arrays, a [`Record`] for a nested struct. `b` holds the record (checked by the caller).
fn field_value(py: Python<'_>, bsp: &Py<PyBsp>, lump: usize, ty: &Type, dims: &[usize], at: usize, b: &[u8]) -> PyResult<Py<PyAny>> {
    if let Some((&n, rest)) = dims.split_first() {
        if let (Kind::Scalar { scalar: Scalar::U8, .. }, true) = (ty.kind, rest.is_empty()) {
            return Ok(PyBytes::new(py, &b[at..at + n]).into_any().unbind());
        }
        let step = rest.iter().product::<usize>() * ty.element_size();
        let l = PyList::empty(py);
        for i in 0..n {
            l.append(field_value(py, bsp, lump, ty, rest, at + i * step, b)?)?;
        }
        return Ok(l.into_any().unbind());
    }
    match ty.kind {
        Kind::Scalar { scalar: s, big_endian } => scalar(py, s, big_endian, &b[at..at + s.size()]),
        Kind::Record(schema) => Ok(Py::new(py, Record { bsp: bsp.clone_ref(py), lump, offset: at, schema })?.into_any()),
    }
}

/// A field type in words, with its range, for the error of a value that does not fit it.
fn scalar_words(rust: &str) -> String {
    let range = |lo: i128, hi: i128| format!("an integer from {lo} to {hi} ({rust})");
    match rust {
        "u8" => range(0, u8::MAX.into()),
        "i8" => range(i8::MIN.into(), i8::MAX.into()),
        "u16" => range(0, u16::MAX.into()),
        "i16" => range(i16::MIN.into(), i16::MAX.into()),
        "u32" => range(0, u32::MAX.into()),
        "i32" => range(i32::MIN.into(), i32::MAX.into()),
        "u64" => range(0, u64::MAX.into()),
        "i64" => range(i64::MIN.into(), i64::MAX.into()),
        _ => format!("a number ({rust})"),
    }
}

/// One number as stored: `value` in the file's byte order, appended to `out`; an error naming
/// `what` for a value that is not a number of the field's type or does not fit it.
fn encode_scalar(value: &Bound<'_, PyAny>, s: Scalar, big: bool, what: &str, out: &mut Vec<u8>) -> PyResult<()> {
    macro_rules! put {
        ($t:ty) => {{
            let x: $t = value.extract().map_err(|e| {
                // The range in words: "is not a i32" sent users to the Rust docs.
                PyValueError::new_err(format!(
                    "{what}: {} is not {} ({e})",
                    value.repr().map(|r| r.to_string()).unwrap_or_default(),
                    scalar_words(stringify!($t))
                ))
            })?;
            out.extend_from_slice(&if big { x.to_be_bytes() } else { x.to_le_bytes() });
        }};
    }
    match s {
        Scalar::U8 => put!(u8),
        Scalar::I8 => put!(i8),
        Scalar::U16 => put!(u16),
        Scalar::I16 => put!(i16),
        Scalar::U32 => put!(u32),
        Scalar::I32 => put!(i32),
        Scalar::U64 => put!(u64),
        Scalar::I64 => put!(i64),
        Scalar::F32 => {
            // Through f64: a Python float narrowed, as NumPy's assignment does.
            let x: f64 = value.extract().map_err(|e| PyValueError::new_err(format!("{what}: not a number ({e})")))?;
            out.extend_from_slice(&if big { (x as f32).to_be_bytes() } else { (x as f32).to_le_bytes() });
        }
        Scalar::F64 => put!(f64),
    }
    Ok(())
}

/// `value` as the bytes of a field of type `ty` with dimensions `dims` (what [`field_value`]
/// reads back), appended to `out`. A name (`text`) takes `str` (UTF-8, `surrogateescape`) that
/// leaves room for its NUL, or `bytes` up to the field's size; either is padded with NULs. Other
/// byte arrays take `bytes` or a sequence of ints of the field's length; arrays a sequence of
/// their length; a nested record a [`Record`] of its type, a dict of every field, a sequence
/// in field order or its bytes.
fn encode(py: Python<'_>, value: &Bound<'_, PyAny>, ty: &Type, dims: &[usize], text: bool, what: &str, out: &mut Vec<u8>) -> PyResult<()> {
    if let Some((&n, rest)) = dims.split_first() {
        if let (Kind::Scalar { scalar: Scalar::U8, .. }, true) = (ty.kind, rest.is_empty()) {
            let start = out.len();
            if let Ok(s) = value.cast::<PyString>() {
                let b = s.call_method1("encode", ("utf-8", "surrogateescape"))?;
                let b = b.cast::<PyBytes>()?.as_bytes();
                if !text {
                    return Err(PyTypeError::new_err(format!("{what} is {n} bytes, not text: give bytes or a sequence of ints")));
                }
                if b.len() >= n || b.contains(&0) {
                    return Err(PyValueError::new_err(format!(
                        "{what}: {:?} is {} bytes; the field holds {} and a NUL",
                        s.to_string(),
                        b.len(),
                        n - 1
                    )));
                }
                out.extend_from_slice(b);
            } else if value.is_instance_of::<PyBytes>() || value.is_instance_of::<pyo3::types::PyByteArray>() {
                let b = buffer_bytes(value)?;
                if b.len() > n || (!text && b.len() != n) {
                    return Err(PyValueError::new_err(format!("{what}: {} bytes for a field of {n}", b.len())));
                }
                out.extend_from_slice(&b);
            } else {
                // Not "'int' object is not iterable": say what the field takes.
                let takes = if text {
                    format!("str or bytes (at most {} bytes and a NUL)", n - 1)
                } else {
                    format!("bytes or a sequence of {n} ints")
                };
                let not = value.get_type().name().map(|t| t.to_string()).unwrap_or_default();
                let items: Vec<Bound<'_, PyAny>> = value
                    .try_iter()
                    .map_err(|_| PyTypeError::new_err(format!("{what} takes {takes}, not {not}")))?
                    .collect::<PyResult<_>>()?;
                if items.len() != n {
                    return Err(PyValueError::new_err(format!("{what}: {} values for a field of {n}", items.len())));
                }
                for x in &items {
                    encode_scalar(x, Scalar::U8, false, what, out)?;
                }
            }
            out.resize(start + n, 0);
            return Ok(());
        }
        if value.is_instance_of::<PyString>() || value.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err(format!("{what} takes a sequence of {n} values")));
        }
        let items: Vec<Bound<'_, PyAny>> = value
            .try_iter()
            .map_err(|_| PyTypeError::new_err(format!("{what} takes a sequence of {n} values")))?
            .collect::<PyResult<_>>()?;
        if items.len() != n {
            return Err(PyValueError::new_err(format!("{what}: {} values for a field of {n}", items.len())));
        }
        for x in &items {
            encode(py, x, ty, rest, false, what, out)?;
        }
        return Ok(());
    }
    match ty.kind {
        Kind::Scalar { scalar, big_endian } => encode_scalar(value, scalar, big_endian, what, out),
        Kind::Record(schema) => encode_record(py, value, schema, what, out),
    }
}

/// A whole record of `schema` from a [`Record`] of that type, a dict naming every field, a
/// sequence of the field values in order, or the record's bytes.
fn encode_record(py: Python<'_>, value: &Bound<'_, PyAny>, schema: &'static RecordSchema, what: &str, out: &mut Vec<u8>) -> PyResult<()> {
    let start = out.len();
    if let Ok(r) = value.cast::<Record>() {
        let r = r.get();
        if !std::ptr::eq(r.schema, schema) && (r.schema.name != schema.name || r.schema.size != schema.size) {
            return Err(PyTypeError::new_err(format!("{what} is a {}, not a {}", schema.name, r.schema.name)));
        }
        out.extend_from_slice(&r.bytes(py)?);
    } else if value.is_instance_of::<PyBytes>() || value.is_instance_of::<pyo3::types::PyByteArray>() {
        let b = buffer_bytes(value)?;
        if b.len() != schema.size {
            return Err(PyValueError::new_err(format!("{what}: {} bytes for a {}-byte {}", b.len(), schema.size, schema.name)));
        }
        out.extend_from_slice(&b);
    } else if let Ok(d) = value.cast::<PyDict>() {
        for f in schema.fields {
            let v = match d.get_item(py_name(f))? {
                Some(v) => v,
                None => d.get_item(f.name)?.ok_or_else(|| PyKeyError::new_err(format!("{what}: no value for field {:?}", py_name(f))))?,
            };
            encode(py, &v, &f.ty, f.ty.shape(), is_text(f), &format!("{what}.{}", py_name(f)), out)?;
        }
        if d.len() != schema.fields.len() {
            return Err(PyValueError::new_err(format!(
                "{what}: {} keys for the {} fields of {}",
                d.len(),
                schema.fields.len(),
                schema.name
            )));
        }
    } else {
        let items: Vec<Bound<'_, PyAny>> = value
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err(format!("{what} takes a {}, a dict of its fields, a sequence of them or its bytes", schema.name))
            })?
            .collect::<PyResult<_>>()?;
        if items.len() != schema.fields.len() {
            return Err(PyValueError::new_err(format!(
                "{what}: {} values for the {} fields of {}",
                items.len(),
                schema.fields.len(),
                schema.name
            )));
        }
        for (f, v) in schema.fields.iter().zip(&items) {
            encode(py, v, &f.ty, f.ty.shape(), is_text(f), &format!("{what}.{}", py_name(f)), out)?;
        }
    }
    debug_assert_eq!(out.len() - start, schema.size);
    Ok(())
}

/// A lump of records: a sequence of [`Record`] objects (plain values for index lumps), and
/// `.numpy()` for a zero-copy structured array. Items can be assigned (`lump[i] = …`), written
/// into the map's copy of the lump.
#[pyclass(module = "bspkit", frozen, sequence)]
pub struct RecordLump {
    bsp: Py<PyBsp>,
    index: usize,
    name: &'static str,
    /// `None`: a record lump without a field schema (Respawn), whose records are `bytes`.
    schema: Option<&'static RecordSchema>,
    /// Items are plain values (a lump of values, or records of one number).
    plain: bool,
    size: usize,
}

impl PyBsp {
    /// `(schema, record size)` of a record lump whose record size is known, else `None`.
    fn record_layout(&self, index: usize) -> Option<(Option<&'static RecordSchema>, usize)> {
        let entry = self.inner.entry(index)?;
        let def = self.inner.branch().lumps.iter().find(|d| d.name == entry.name)?;
        if !matches!(def.kind, LumpKind::Records { .. }) {
            return None;
        }
        let size = self.inner.record_size(index)?;
        let schema = bspkit::schema::lump_schema(self.inner.branch(), entry.name, entry.version.unwrap_or(0), self.inner.endian());
        Some((schema, size))
    }

    /// Write `data` at `at` in the lump's edit buffer (made on first use).
    fn write_at(&self, index: usize, at: usize, data: &[u8]) -> PyResult<()> {
        let buf = self.writable(index)?;
        if at + data.len() > buf.len {
            return Err(PyIndexError::new_err(format!(
                "bytes {at}..{} are past the end of the lump ({} bytes): it was replaced by a shorter one",
                at + data.len(),
                buf.len
            )));
        }
        // SAFETY: in bounds (checked above), with the GIL held.
        unsafe { buf.write(at, data) };
        Ok(())
    }
}

impl RecordLump {
    fn new(bsp: &Bound<'_, PyBsp>, index: usize) -> PyResult<Self> {
        let me = bsp.get();
        let entry = me.inner.entry(index).ok_or_else(|| PyKeyError::new_err(index))?;
        let Some((schema, size)) = me.record_layout(index) else {
            return Err(err(me
                .inner
                .lump_error(index, bspkit::Error::malformed(format!("no record size known for lump version {:?}", entry.version)))));
        };
        let len = me.with_lump(index, |b| Ok(b.len()))?;
        if size == 0 || len % size != 0 {
            return Err(err(me
                .inner
                .lump_error(index, bspkit::Error::new(ErrorKind::BadLumpLength { length: len as u64, record_size: size }))));
        }
        let plain = schema.is_some_and(items_are_plain);
        Ok(RecordLump { bsp: bsp.clone().unbind(), index, name: entry.name, schema, plain, size })
    }

    /// Records in the lump now (`set_lump` may have changed its length).
    fn count(&self) -> PyResult<usize> {
        self.bsp.get().with_lump(self.index, |b| Ok(b.len() / self.size))
    }

    fn item(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        let offset = i * self.size;
        match self.schema {
            Some(s) if self.plain => {
                let f = &s.fields[0];
                self.bsp.get().with_lump(self.index, |b| field_value(py, &self.bsp, self.index, &f.ty, f.ty.shape(), offset, b))
            }
            Some(schema) => Ok(Py::new(py, Record { bsp: self.bsp.clone_ref(py), lump: self.index, offset, schema })?.into_any()),
            None => self.bsp.get().with_lump(self.index, |b| Ok(PyBytes::new(py, &b[offset..offset + self.size]).into_any().unbind())),
        }
    }

    /// Position `key` (an int, negative from the end) as an index, or IndexError.
    fn position(&self, key: &Bound<'_, PyAny>) -> PyResult<usize> {
        let count = self.count()?;
        let i: isize = key.extract().map_err(|_| PyTypeError::new_err("records are indexed by int or slice"))?;
        let j = if i < 0 { i + count as isize } else { i };
        if j < 0 || j as usize >= count {
            return Err(PyIndexError::new_err(format!("{} index {i} out of range ({count} records)", self.name)));
        }
        Ok(j as usize)
    }

    /// `value` as one record's bytes.
    fn encode_item(&self, py: Python<'_>, value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
        let mut out = Vec::with_capacity(self.size);
        match self.schema {
            Some(s) if self.plain => {
                let f = &s.fields[0];
                encode(py, value, &f.ty, f.ty.shape(), false, what, &mut out)?;
            }
            Some(s) => encode_record(py, value, s, what, &mut out)?,
            None => {
                out = buffer_bytes(value)?;
                if out.len() != self.size {
                    return Err(PyValueError::new_err(format!("{what}: {} bytes for a {}-byte record", out.len(), self.size)));
                }
            }
        }
        Ok(out)
    }
}

#[pymethods]
impl RecordLump {
    fn __len__(&self) -> PyResult<usize> {
        self.count()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(slice) = key.cast::<PySlice>() {
            let ind = slice.indices(self.count()? as isize)?;
            let l = PyList::empty(py);
            let mut i = ind.start;
            for _ in 0..ind.slicelength {
                l.append(self.item(py, i as usize)?)?;
                i += ind.step;
            }
            return Ok(l.into_any().unbind());
        }
        self.item(py, self.position(key)?)
    }

    /// `lump[i] = value`: a [`Record`] of the lump's type, a dict of every field, a sequence of
    /// the field values in order, or the record's bytes (a plain value for a lump of values).
    /// Written into the map's copy of the lump (made on the first edit).
    fn __setitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if key.cast::<PySlice>().is_ok() {
            return Err(PyTypeError::new_err(format!(
                "assign records one at a time, or a whole lump with bsp.set_lump({:?}, array)",
                self.name
            )));
        }
        let i = self.position(key)?;
        let bytes = self.encode_item(py, value, &format!("{}[{i}]", self.name))?;
        self.bsp.get().write_at(self.index, i * self.size, &bytes)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let items: Vec<Py<PyAny>> = (0..slf.count()?).map(|i| slf.item(py, i)).collect::<PyResult<_>>()?;
        Ok(PyList::new(py, items)?.into_any().try_iter()?.into_any().unbind())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<bspkit.RecordLump {} ({} × {})>", self.name, self.count()?, self.schema.map(|s| s.name).unwrap_or("bytes")))
    }

    /// The lump's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }
    /// Bytes per record.
    #[getter]
    fn record_size(&self) -> usize {
        self.size
    }
    /// True when items are plain numbers (or bytes), not records: a lump of values, or
    /// records of a single number (Source surfedges, leaf faces).
    #[getter]
    fn plain(&self) -> bool {
        self.plain
    }
    /// Field names of the records, snake_case (`("value",)` for a lump of plain values; empty
    /// without a schema).
    #[getter]
    fn fields(&self) -> Vec<&'static str> {
        self.schema.map(|s| s.fields.iter().map(py_name).collect()).unwrap_or_default()
    }
    /// `{old_name: name}` for the fields whose earlier (run-together) names still work as aliases.
    #[getter]
    fn aliases(&self) -> BTreeMap<&'static str, &'static str> {
        self.schema.map(|s| s.fields.iter().filter(|f| py_name(f) != f.name).map(|f| (f.name, py_name(f))).collect()).unwrap_or_default()
    }
    /// The record type's name in the Rust library (`Plane`, `Face29`, …).
    #[getter]
    fn record_type(&self) -> Option<&'static str> {
        self.schema.map(|s| s.name)
    }
    /// The NumPy dtype of `numpy()` (needs NumPy): the record layout `set_lump` checks arrays against.
    #[getter]
    fn dtype(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        array_dtypes(py)?.of(py, self.schema, self.size)
    }

    /// A NumPy array of the lump with no copy: a structured array (one named field per record
    /// field; the old names are titles) or a plain array for a lump of values. Read-only by
    /// default, over the map's bytes (a lump edited already: over its copy, so it shows later
    /// edits). `writable=True` gives a writable array over the map's copy of the lump (made on
    /// the first edit): what is written into it is the map's lump, seen by every read and
    /// written by `save_as`. The array keeps the map alive. Raises ImportError without NumPy.
    #[pyo3(signature = (writable=false))]
    fn numpy(slf: &Bound<'_, Self>, writable: bool) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let me = slf.get();
        let dtype = array_dtypes(py)?.of(py, me.schema, me.size)?;
        let bsp = me.bsp.get();
        let buf = if writable { Some(bsp.writable(me.index)?) } else { bsp.edit_buf(me.index) };
        let (ptr, len, owner) = match buf {
            Some(b) => (b.ptr as *const u8, b.len, Owner::Edit(b)),
            None => {
                let bytes = bsp.inner.lump(me.index).py()?;
                (bytes.as_ptr(), bytes.len(), Owner::Map(slf.clone().into_any().unbind()))
            }
        };
        let mut shape = vec![len / me.size];
        if let Some(s) = me.schema.filter(|_| me.plain) {
            shape.extend_from_slice(s.fields[0].ty.shape());
        }
        let holder = Bound::new(py, ArrayHolder { owner })?;
        // SAFETY: the bytes belong to the map (its data or a decoded lump, never freed or
        // changed while the map lives, which the holder keeps alive as the array's base) or to
        // an edit buffer the holder keeps alive.
        unsafe { array_over(py, &dtype, &shape, ptr, holder, writable) }
    }
}

/// The dtypes NumPy reads lumps as, one per record schema (structured, with a field per record
/// field), per plain value type, or `V<size>` for records without a schema; made once per
/// process. Building a structured dtype costs NumPy more than the view itself: a `numpy()` call
/// took 2.5–8.8 µs with the dtype described anew each time through `__array_interface__`.
struct ArrayDtypes {
    /// By schema (its address: schemas are statics, so this stays small; whether its items are
    /// plain follows from the schema), or by record size for records without one.
    by_schema: Mutex<HashMap<DtypeKey, Py<PyAny>>>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum DtypeKey {
    Schema(usize),
    Bytes(usize),
}

static ARRAY_DTYPES: PyOnceLock<ArrayDtypes> = PyOnceLock::new();

/// The dtype cache, once NumPy imports (ImportError without it, before NumPy's C API is used).
fn array_dtypes(py: Python<'_>) -> PyResult<&'static ArrayDtypes> {
    ARRAY_DTYPES.get_or_try_init(py, || {
        py.import("numpy")?;
        Ok(ArrayDtypes { by_schema: Mutex::new(HashMap::new()) })
    })
}

/// Whether a lump of this schema gives plain values rather than records: a lump of plain values,
/// or a record of one number (Source surfedges, leaf faces, …), which reads as that number.
fn items_are_plain(s: &RecordSchema) -> bool {
    s.plain || (s.fields.len() == 1 && s.fields[0].ty.ndim == 0 && matches!(s.fields[0].ty.kind, Kind::Scalar { .. }))
}

impl ArrayDtypes {
    /// The dtype for records of `schema`, or of `size` bytes without one.
    fn of(&self, py: Python<'_>, schema: Option<&'static RecordSchema>, size: usize) -> PyResult<Py<PyAny>> {
        let key = match schema {
            Some(s) => DtypeKey::Schema(s as *const RecordSchema as usize),
            None => DtypeKey::Bytes(size),
        };
        if let Some(d) = self.by_schema.lock().unwrap().get(&key) {
            return Ok(d.clone_ref(py));
        }
        // Made outside the lock: NumPy runs Python code, which may let another thread in.
        let np_dtype = py.import("numpy")?.getattr("dtype")?;
        let dtype = match schema {
            Some(s) if items_are_plain(s) => np_dtype.call1((typestr(&s.fields[0].ty)?,))?,
            Some(s) => np_dtype.call1((descr(py, s)?,))?,
            None => np_dtype.call1((format!("|V{size}"),))?,
        };
        Ok(self.by_schema.lock().unwrap().entry(key).or_insert_with(|| dtype.unbind()).clone_ref(py))
    }
}

/// A read-only NumPy array of `dtype` and `shape` over the memory at `data`, with `holder` as
/// its base, made with NumPy's C API (the `numpy` crate finds it at run time). Through
/// `__array_interface__`, NumPy parses a dict and checks the dtype against itself on every
/// call; this takes a fraction of that.
///
/// # Safety
/// `data` must point to `shape`'s product times the dtype's size of bytes that stay valid and
/// unchanged while `holder` lives. NumPy must have been imported ([`array_dtypes`] does it).
unsafe fn array_over(
    py: Python<'_>,
    dtype: &Py<PyAny>,
    shape: &[usize],
    data: *const u8,
    holder: Bound<'_, ArrayHolder>,
    writable: bool,
) -> PyResult<Py<PyAny>> {
    use numpy::npyffi::{npy_intp, NpyTypes, PyArrayObject, PyArray_Descr, PY_ARRAY_API};
    let mut dims: Vec<npy_intp> = shape.iter().map(|&n| n as npy_intp).collect();
    let subtype = PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type);
    // NewFromDescr takes over a reference to the dtype; flags 0: not writeable, or
    // NPY_ARRAY_WRITEABLE (NumPy works out contiguity and alignment itself), and no strides: C order.
    const NPY_ARRAY_WRITEABLE: std::os::raw::c_int = 0x0400;
    let descr = dtype.clone_ref(py).into_ptr() as *mut PyArray_Descr;
    let arr = PY_ARRAY_API.PyArray_NewFromDescr(
        py,
        subtype,
        descr,
        dims.len() as std::os::raw::c_int,
        dims.as_mut_ptr(),
        std::ptr::null_mut(),
        data as *mut std::os::raw::c_void,
        if writable { NPY_ARRAY_WRITEABLE } else { 0 },
        std::ptr::null_mut(),
    );
    if arr.is_null() {
        return Err(PyErr::fetch(py));
    }
    let arr = Bound::from_owned_ptr(py, arr);
    // SetBaseObject takes over the holder's reference, also when it fails.
    if PY_ARRAY_API.PyArray_SetBaseObject(py, arr.as_ptr() as *mut PyArrayObject, holder.into_ptr()) < 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(arr.unbind())
}

fn typestr(ty: &Type) -> PyResult<String> {
    match ty.kind {
        Kind::Scalar { scalar, big_endian } => {
            let order = if scalar.size() == 1 {
                '|'
            } else if big_endian {
                '>'
            } else {
                '<'
            };
            Ok(format!("{order}{}", scalar.code()))
        }
        Kind::Record(s) => Ok(format!("|V{}", s.size)),
    }
}

/// A NumPy array given for a record lump must have its record layout: the dtype of `numpy()`
/// (titles aside), and for a lump of array values their shape. Its bytes are then records.
fn check_layout(py: Python<'_>, data: &Bound<'_, PyAny>, schema: Option<&'static RecordSchema>, size: usize, lump: &str) -> PyResult<()> {
    let want = array_dtypes(py)?.of(py, schema, size)?;
    let want = want.bind(py);
    let got = data.getattr("dtype")?;
    let plain = schema.is_some_and(items_are_plain);
    let same = got.eq(want)? || {
        // A structured dtype made without the titles (`np.dtype(list_of_fields)`): the same
        // names, formats and offsets.
        let strip = |d: &Bound<'_, PyAny>| -> PyResult<Py<PyAny>> {
            let np = py.import("numpy")?;
            match d.getattr("names")?.is_none() {
                true => Ok(d.clone().unbind()),
                false => {
                    let names = d.getattr("names")?;
                    let fields = d.getattr("fields")?;
                    let formats = PyList::empty(py);
                    let offsets = PyList::empty(py);
                    for n in names.try_iter()? {
                        let f = fields.get_item(n?)?;
                        formats.append(f.get_item(0)?)?;
                        offsets.append(f.get_item(1)?)?;
                    }
                    let spec = PyDict::new(py);
                    spec.set_item("names", names)?;
                    spec.set_item("formats", formats)?;
                    spec.set_item("offsets", offsets)?;
                    spec.set_item("itemsize", d.getattr("itemsize")?)?;
                    Ok(np.getattr("dtype")?.call1((spec,))?.unbind())
                }
            }
        };
        !plain && strip(&got)?.bind(py).eq(strip(want)?)?
    };
    let shape_ok = if plain {
        let want_shape: Vec<usize> = schema.map(|s| s.fields[0].ty.shape().to_vec()).unwrap_or_default();
        let shape: Vec<usize> = data.getattr("shape")?.extract()?;
        shape.len() == want_shape.len() + 1 && shape[1..] == want_shape[..]
    } else {
        data.getattr("ndim")?.extract::<usize>()? == 1
    };
    if !same || !shape_ok {
        return Err(PyValueError::new_err(format!(
            "{lump}: an array of dtype {} and shape {} is not the lump's record layout: dtype {}{} (bsp.{lump}.dtype)",
            got.repr()?,
            data.getattr("shape")?.repr()?,
            want.repr()?,
            if plain { ", one row per value" } else { ", one dimension" },
        )));
    }
    Ok(())
}

/// NumPy's `descr` for a record: `[(name, format[, shape])]`, nested lists for nested records.
fn descr<'py>(py: Python<'py>, s: &RecordSchema) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for f in s.fields {
        let fmt: Py<PyAny> = match f.ty.kind {
            Kind::Record(inner) => descr(py, inner)?.into_any().unbind(),
            _ => typestr(&f.ty)?.into_pyobject(py)?.into_any().unbind(),
        };
        // A renamed field keeps its old name as the title: `arr["numedges"]` still works.
        let name: Py<PyAny> = if py_name(f) == f.name {
            f.name.into_pyobject(py)?.into_any().unbind()
        } else {
            (f.name, py_name(f)).into_pyobject(py)?.into_any().unbind()
        };
        if f.ty.ndim == 0 {
            l.append((name, fmt))?;
        } else {
            l.append((name, fmt, PyTuple::new(py, f.ty.shape())?))?;
        }
    }
    Ok(l)
}

impl PyBsp {
    /// `search_all_entities`' work (the method itself is [`search_method`]): `key_values` are
    /// the keyword arguments, as (name, value) pairs.
    fn search<'py>(
        &self,
        py: Python<'py>,
        key_values: impl Iterator<Item = (Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    ) -> PyResult<Bound<'py, PyList>> {
        // Conditions as Python strings first: `str()` of a value may run Python code. The
        // first is kept apart so the usual one-condition search allocates nothing in Rust.
        type Cond<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);
        let (mut first, mut more): (Option<Cond<'py>>, Vec<Cond<'py>>) = (None, Vec::new());
        for (k, v) in key_values {
            let v = if v.is_exact_instance_of::<PyString>() { v } else { v.str()?.into_any() };
            match first {
                None => first = Some((k, v)),
                Some(_) => more.push((k, v)),
            }
        }
        let list = self.entity_state(py)?.0.bind(py);
        // Held while Python objects are made, which can run a finalizer that searches again (or
        // let another thread in): then the lock is busy and a throw-away index answers, rather
        // than a deadlock.
        let mut guard = match self.search.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        let mut local = None;
        let slot: &mut Option<SearchIndex> = match guard.as_deref_mut() {
            Some(s) => s,
            None => &mut local,
        };
        let edits = ENTITY_EDITS.load(Ordering::Acquire);
        if !matches!(slot.as_ref(), Some(ix) if ix.edits == edits && ix.len == list.len()) {
            *slot = Some(SearchIndex::new(py, list, edits));
        }
        let ix = slot.as_ref().expect("built above");
        let hits = |(k, v): &Cond<'py>| -> PyResult<Option<Bound<'py, PyTuple>>> {
            ix.values_of(py, k)?.get_item(v)?.map(|h| h.cast_into::<PyTuple>().map_err(Into::into)).transpose()
        };
        let Some(first_cond) = first else {
            return PyList::new(py, ix.ents.iter().map(|e| e.bind(py)));
        };
        let Some(first) = hits(&first_cond)? else {
            return Ok(PyList::empty(py));
        };
        if more.is_empty() {
            return first.to_list().cast_into::<PyList>().map_err(Into::into);
        }
        // Several conditions: the smallest hit set, keeping the entities that meet the other
        // conditions too, checked on each entity (so an entity object listed twice counts
        // twice, as in a walk over the list).
        let mut sets = vec![first];
        for c in &more {
            match hits(c)? {
                Some(h) => sets.push(h),
                None => return Ok(PyList::empty(py)),
            }
        }
        let walk = (0..sets.len()).min_by_key(|&i| sets[i].len()).expect("two or more conditions");
        let others: Vec<(String, String)> = std::iter::once(&first_cond)
            .chain(&more)
            .enumerate()
            .filter(|&(i, _)| i != walk)
            .map(|(_, (k, v))| Ok((k.extract()?, v.extract()?)))
            .collect::<PyResult<_>>()?;
        let mut keep = Vec::new();
        for e in sets[walk].iter() {
            let ent = e.cast::<Entity>()?.try_borrow().map_err(|_| PyRuntimeError::new_err("an entity is being changed while searched"))?;
            let meets = others.iter().all(|(k, v)| ent.inner.raw_pairs().any(|(pk, pv)| pk == k.as_bytes() && pv == v.as_bytes()));
            drop(ent);
            if meets {
                keep.push(e);
            }
        }
        PyList::new(py, keep)
    }

    /// Every texture the map carries or names (`TextureSource::textures`), one dict each: its
    /// `name` and what `fill` adds for a found texture, or `{"name", "missing": reason}`.
    fn each_texture(
        &self,
        py: Python<'_>,
        game_dirs: Vec<std::path::PathBuf>,
        wads: Vec<std::path::PathBuf>,
        palette: Option<std::path::PathBuf>,
        mut fill: impl FnMut(&Bound<'_, PyDict>, bspkit::texture::Texture) -> PyResult<()>,
    ) -> PyResult<Py<PyList>> {
        let opts = bspkit::texture::TextureOptions { game_dirs, wads, palette, ..Default::default() };
        let bsp = self.current(py)?;
        let src = bspkit::texture::TextureSource::new(&bsp, &opts);
        let out = PyList::empty(py);
        for t in src.textures() {
            let d = PyDict::new(py);
            match t {
                Ok(t) => {
                    d.set_item("name", &t.name)?;
                    // How the alpha channel is used, as the glTF export's `alphaMode`.
                    d.set_item("alpha", t.alpha.as_str())?;
                    if let bspkit::assets::AlphaMode::Mask { cutoff } = t.alpha {
                        d.set_item("alpha_cutoff", cutoff)?;
                    }
                    fill(&d, t)?;
                }
                Err(m) => {
                    d.set_item("name", &m.name)?;
                    d.set_item("missing", m.to_string())?;
                }
            }
            out.append(d)?;
        }
        Ok(out.unbind())
    }
}

/// What keeps a NumPy array's memory alive: the lump object (and so the map) for record
/// views, or a buffer made in Rust (lightmap atlases, decoded textures) moved in here.
enum Owner {
    Map(#[allow(dead_code)] Py<PyAny>),
    /// A lump edited through the bindings: the map's copy of it.
    Edit(#[allow(dead_code)] Arc<LumpBuf>),
    Data(OwnedData),
}

/// Pixels the Rust side made and owns.
enum OwnedData {
    U8(Vec<u8>),
    F32(Vec<f32>),
}

/// The base of the NumPy arrays bspkit makes. For a record view it holds the lump (and so the
/// map) alive; for an image it owns the buffer Rust made, with no copy. Nothing changes it
/// after, so the memory stays valid while the array lives.
#[pyclass(module = "bspkit", frozen)]
pub struct ArrayHolder {
    owner: Owner,
}

#[pymethods]
impl ArrayHolder {
    /// Bytes of a buffer owned here (0 for a view over a map).
    fn __len__(&self) -> usize {
        match &self.owner {
            Owner::Map(_) | Owner::Edit(_) => 0,
            Owner::Data(OwnedData::U8(v)) => v.len(),
            Owner::Data(OwnedData::F32(v)) => v.len() * 4,
        }
    }
    /// Whether the array's memory is a buffer made in Rust and owned here (images), rather than
    /// a view over the map's lump (record lumps, as loaded or edited).
    #[getter]
    fn owns_buffer(&self) -> bool {
        matches!(self.owner, Owner::Data(_))
    }
}

/// A read-only NumPy array of `shape` over `data`, which the array's base then owns.
fn owned_array(py: Python<'_>, np: &Bound<'_, PyModule>, data: OwnedData, shape: &[usize]) -> PyResult<Py<PyAny>> {
    let (ptr, typestr, len) = match &data {
        OwnedData::U8(v) => (v.as_ptr(), "|u1", v.len()),
        OwnedData::F32(v) => (v.as_ptr() as *const u8, if cfg!(target_endian = "little") { "<f4" } else { ">f4" }, v.len()),
    };
    if shape.iter().product::<usize>() != len {
        return Err(PyValueError::new_err(format!("{len} values do not fill an array of shape {shape:?}")));
    }
    let dtype = np.getattr("dtype")?.call1((typestr,))?.unbind();
    // The Vec's buffer does not move when the Vec moves into the holder.
    let holder = Bound::new(py, ArrayHolder { owner: Owner::Data(data) })?;
    // SAFETY: `ptr` is the holder's own buffer of `len` values, never changed after; `np` is
    // NumPy, imported.
    unsafe { array_over(py, &dtype, shape, ptr, holder, false) }
}

/// One record of a lump: fields as attributes and items (`plane.normal`, `plane["dist"]`),
/// read from the lump as it is now and assignable (`plane.dist = 64.0`, `shader.name =
/// "textures/x"`): an assignment writes the map's copy of the lump (made on its first edit).
#[pyclass(module = "bspkit", frozen)]
pub struct Record {
    bsp: Py<PyBsp>,
    lump: usize,
    offset: usize,
    schema: &'static RecordSchema,
}

impl Record {
    /// Run `f` over the lump's bytes, which hold this record (IndexError when a shorter
    /// `set_lump` left it behind).
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> PyResult<R>) -> PyResult<R> {
        self.bsp.get().with_lump(self.lump, |b| {
            if self.offset + self.schema.size > b.len() {
                return Err(PyIndexError::new_err(format!(
                    "this {} (byte {}) is past the end of the lump ({} bytes): it was replaced by a shorter one",
                    self.schema.name,
                    self.offset,
                    b.len()
                )));
            }
            f(b)
        })
    }

    fn value(&self, py: Python<'_>, f: &Field) -> PyResult<Py<PyAny>> {
        self.with_bytes(|b| {
            let at = self.offset + f.offset;
            if is_text(f) {
                return text_value(py, &b[at..at + f.ty.size()]);
            }
            field_value(py, &self.bsp, self.lump, &f.ty, f.ty.shape(), at, b)
        })
    }

    fn get(&self, py: Python<'_>, name: &str) -> PyResult<Option<Py<PyAny>>> {
        if let Some(f) = field_named(self.schema, name) {
            return self.value(py, f).map(Some);
        }
        // `name_bytes`: a name's bytes as stored.
        if let Some(f) = name.strip_suffix("_bytes").and_then(|n| field_named(self.schema, n)).filter(|f| is_text(f)) {
            return self.raw(py, f).map(|b| Some(b.into_any().unbind()));
        }
        Ok(None)
    }

    fn raw<'py>(&self, py: Python<'py>, f: &Field) -> PyResult<Bound<'py, PyBytes>> {
        self.with_bytes(|b| Ok(PyBytes::new(py, &b[self.offset + f.offset..self.offset + f.offset + f.ty.size()])))
    }

    /// The record's bytes as they are now.
    fn bytes(&self, _py: Python<'_>) -> PyResult<Vec<u8>> {
        self.with_bytes(|b| Ok(b[self.offset..self.offset + self.schema.size].to_vec()))
    }

    fn no_field(&self, name: &str) -> PyErr {
        let names: Vec<&str> = self.schema.fields.iter().map(py_name).collect();
        PyAttributeError::new_err(format!("{} has no field '{name}' (fields: {})", self.schema.name, names.join(", ")))
    }

    fn set(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let (f, text) = match field_named(self.schema, name) {
            Some(f) => (f, is_text(f)),
            // `name_bytes = b"..."`: the bytes as stored (padded with NULs).
            None => match name.strip_suffix("_bytes").and_then(|n| field_named(self.schema, n)).filter(|f| is_text(f)) {
                Some(f) if !value.is_instance_of::<PyString>() => (f, true),
                Some(_) => return Err(PyTypeError::new_err(format!("{name} takes bytes"))),
                None => return Err(self.no_field(name)),
            },
        };
        let mut out = Vec::with_capacity(f.ty.size());
        encode(py, value, &f.ty, f.ty.shape(), text, &format!("{}.{}", self.schema.name, py_name(f)), &mut out)?;
        // The record must still be in the lump (the check reads the lump as it is now).
        self.with_bytes(|_| Ok(()))?;
        self.bsp.get().write_at(self.lump, self.offset + f.offset, &out)
    }
}

/// A value with nested records turned into dicts (for `_asdict`, `==`).
fn plain(py: Python<'_>, v: Py<PyAny>) -> PyResult<Py<PyAny>> {
    let b = v.bind(py);
    if let Ok(r) = b.cast::<Record>() {
        return Ok(r.get()._asdict(py)?.into_any());
    }
    if let Ok(l) = b.cast::<PyList>() {
        let out = PyList::empty(py);
        for x in l.iter() {
            out.append(plain(py, x.unbind())?)?;
        }
        return Ok(out.into_any().unbind());
    }
    Ok(v)
}

#[pymethods]
impl Record {
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        self.get(py, name)?.ok_or_else(|| self.no_field(name))
    }
    /// `record.field = value`: see [`encode`] for what each field type takes. Attributes that
    /// are not fields cannot be set (AttributeError naming the fields).
    fn __setattr__(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(py, name, value)
    }
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(i) = key.extract::<usize>() {
            let f = self.schema.fields.get(i).ok_or_else(|| PyIndexError::new_err(i))?;
            return self.value(py, f);
        }
        let name: String = key.extract()?;
        self.get(py, &name)?.ok_or_else(|| PyKeyError::new_err(name))
    }
    fn __setitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(i) = key.extract::<usize>() {
            let f = self.schema.fields.get(i).ok_or_else(|| PyIndexError::new_err(i))?;
            return self.set(py, py_name(f), value);
        }
        let name: String = key.extract()?;
        if field_named(self.schema, &name).is_none() && !name.ends_with("_bytes") {
            return Err(PyKeyError::new_err(name));
        }
        self.set(py, &name, value)
    }
    fn __len__(&self) -> usize {
        self.schema.fields.len()
    }
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let vals: Vec<Py<PyAny>> = self.schema.fields.iter().map(|f| self.value(py, f)).collect::<PyResult<_>>()?;
        Ok(PyList::new(py, vals)?.into_any().try_iter()?.into_any().unbind())
    }
    fn __dir__(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self.schema.fields.iter().map(py_name).collect();
        v.extend(["_fields", "_type", "_asdict", "_bytes", "_raw"]);
        v
    }
    /// Field names (snake_case), in order.
    #[getter]
    fn _fields(&self) -> Vec<&'static str> {
        self.schema.fields.iter().map(py_name).collect()
    }
    /// The record type's name in the Rust library.
    #[getter]
    fn _type(&self) -> &'static str {
        self.schema.name
    }
    /// The fields as a dict (nested records as dicts).
    fn _asdict(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        for f in self.schema.fields {
            d.set_item(py_name(f), plain(py, self.value(py, f)?)?)?;
        }
        Ok(d.unbind())
    }
    /// The record's bytes as they are now.
    fn _bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.bytes(py)?))
    }
    /// A field's bytes as stored (a name with what follows its NUL).
    fn _raw<'py>(&self, py: Python<'py>, field: &str) -> PyResult<Bound<'py, PyBytes>> {
        let f = field_named(self.schema, field).ok_or_else(|| self.no_field(field))?;
        self.raw(py, f)
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Record>() else { return Ok(false) };
        self._asdict(py)?.bind(py).eq(o.get()._asdict(py)?)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::new();
        for f in self.schema.fields {
            parts.push(format!("{}={}", py_name(f), self.value(py, f)?.bind(py).repr()?));
        }
        Ok(format!("{}({})", self.schema.name, parts.join(", ")))
    }
}

// ---------------------------------------------------------------------------------------------
// Entities

/// One entity: ordered key/value pairs, duplicate keys kept (outputs). `ent["key"]` is the first
/// value; `get_all` every value; `set` replaces the first (or adds); `add` appends.
#[pyclass(module = "bspkit")]
pub struct Entity {
    inner: EditEntity,
}

#[pymethods]
impl Entity {
    /// `Entity({"classname": "light"})`, `Entity([("k", "v"), ...])` or `Entity(classname="light")`.
    #[new]
    #[pyo3(signature = (pairs=None, **kwargs))]
    fn new(pairs: Option<&Bound<'_, PyAny>>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut list: Vec<(String, String)> = Vec::new();
        if let Some(p) = pairs {
            if let Ok(d) = p.cast::<PyDict>() {
                for (k, v) in d.iter() {
                    list.push((k.extract()?, v.str()?.to_string()));
                }
            } else {
                for item in p.try_iter()? {
                    let (k, v): (String, Bound<'_, PyAny>) = item?.extract()?;
                    list.push((k, v.str()?.to_string()));
                }
            }
        }
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                list.push((k.extract()?, v.str()?.to_string()));
            }
        }
        Ok(Entity { inner: EditEntity::new(list).py()? })
    }
    fn __getitem__(&self, key: &str) -> PyResult<String> {
        self.inner.get(key).map(|v| v.into_owned()).ok_or_else(|| PyKeyError::new_err(key.to_string()))
    }
    fn __setitem__(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(key, value)
    }
    /// Remove every pair with this key.
    fn __delitem__(&mut self, key: &str) -> PyResult<()> {
        let removed = self.inner.remove_key(key);
        entities_edited();
        if removed == 0 {
            return Err(PyKeyError::new_err(key.to_string()));
        }
        Ok(())
    }
    fn __contains__(&self, key: &str) -> bool {
        self.inner.count(key) > 0
    }
    fn __len__(&self) -> usize {
        self.inner.pair_count()
    }
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(PyList::new(py, self.keys())?.into_any().try_iter()?.into_any().unbind())
    }
    /// The first value of `key`, or `default`.
    #[pyo3(signature = (key, default=None))]
    fn get(&self, py: Python<'_>, key: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        match self.inner.get(key) {
            Some(v) => Ok(v.into_pyobject(py)?.into_any().unbind()),
            None => Ok(default.unwrap_or_else(|| py.None())),
        }
    }
    /// Every value of `key`, in order.
    fn get_all(&self, key: &str) -> Vec<String> {
        self.inner.get_all(key).map(|v| v.into_owned()).collect()
    }
    /// Set the first pair with `key` (appending one when there is none).
    fn set(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let r = self.inner.set(key, &value.str()?.to_string()).py();
        entities_edited();
        r
    }
    /// Append a pair (keys may repeat).
    fn add(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let r = self.inner.insert(key, &value.str()?.to_string()).py();
        entities_edited();
        r
    }
    /// Keys in order (repeated keys once per pair).
    fn keys(&self) -> Vec<String> {
        self.inner.pairs().map(|(k, _)| k.into_owned()).collect()
    }
    /// `(key, value)` pairs in order, duplicates kept.
    fn items(&self) -> Vec<(String, String)> {
        self.inner.pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
    }
    /// The pairs as `[[key, value], ...]`, the shape `bsp ents --json` prints.
    fn pairs(&self) -> Vec<[String; 2]> {
        self.inner.pairs().map(|(k, v)| [k.into_owned(), v.into_owned()]).collect()
    }
    #[getter]
    fn classname(&self) -> Option<String> {
        self.inner.classname().map(|c| c.into_owned())
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Entity>().map(|o| o.borrow().inner.raw_pairs().eq(self.inner.raw_pairs())).unwrap_or(false)
    }
    fn __repr__(&self) -> String {
        let shown: Vec<String> = self.inner.pairs().take(4).map(|(k, v)| format!("{k:?}: {v:?}")).collect();
        let more = if self.inner.pair_count() > 4 { ", …" } else { "" };
        format!("Entity({{{}{more}}})", shown.join(", "))
    }
}

// ---------------------------------------------------------------------------------------------
// Source extras

/// The Source pakfile lump as a `zipfile`-like object. `add` / `remove` edit the map (written
/// by `save_as`).
#[pyclass(module = "bspkit", frozen)]
pub struct PakFile {
    bsp: Py<PyBsp>,
    index: usize,
}

#[pymethods]
impl PakFile {
    /// Entry names in the archive's order.
    fn namelist(&self) -> PyResult<Vec<String>> {
        self.bsp.get().with_lump(self.index, |b| Ok(Pakfile::parse(b).py()?.entries.iter().map(|e| e.name.clone()).collect()))
    }
    /// Entries as dicts (`name`, `size`, `compressed_size`, `method`, `crc32`, ...).
    fn infolist(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.bsp.get().with_lump(self.index, |b| to_py(py, &Pakfile::parse(b).py()?.entries))
    }
    /// An entry's contents (decompressed, CRC-checked).
    fn read<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        self.bsp.get().with_lump(self.index, |b| {
            let pak = Pakfile::parse(b).py()?;
            let e = pak.find(name).ok_or_else(|| PyKeyError::new_err(format!("no entry {name} in the pakfile")))?;
            Ok(PyBytes::new(py, &pak.read(e, DEFAULT_MAX_ENTRY).py()?))
        })
    }
    /// Add (or replace) an entry, stored uncompressed.
    fn add(&self, name: &str, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = buffer_bytes(data)?;
        let me = self.bsp.get();
        let new = me.with_lump(self.index, |b| pakfile::add_entry(b, name, data, PakCompression::Stored, DEFAULT_MAX_ENTRY).py())?;
        me.replace_lump(self.index, new);
        Ok(())
    }
    /// Remove an entry (`NoSuchLumpError` when absent).
    fn remove(&self, name: &str) -> PyResult<()> {
        let me = self.bsp.get();
        let new = me.with_lump(self.index, |b| pakfile::remove_entry(b, name, PakCompression::Stored, DEFAULT_MAX_ENTRY).py())?;
        me.replace_lump(self.index, new);
        Ok(())
    }
    fn __contains__(&self, name: &str) -> PyResult<bool> {
        Ok(self.namelist()?.iter().any(|n| n == name))
    }
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.namelist()?.len())
    }
}

/// The Source game lump: `.sprp` (static props), `.lumps` (the child directory).
#[pyclass(module = "bspkit", frozen)]
pub struct GameLump {
    bsp: Py<PyBsp>,
}

#[pymethods]
impl GameLump {
    /// Child lumps: `[{"id", "version", "flags", "length", ...}]`.
    #[getter]
    fn lumps(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let me = self.bsp.get().current(py)?;
        let gl = GameLumps::of(&me).py()?;
        let rows: Vec<serde_json::Value> = gl
            .entries()
            .iter()
            .map(|e| serde_json::json!({"id": e.fourcc(), "version": e.version, "flags": e.flags, "offset": e.offset, "length": e.length}))
            .collect();
        json_to_py(py, &serde_json::Value::Array(rows))
    }
    /// Static props (`sprp`): a namespace with `version`, `model_names`, `leaves` and `props`
    /// (namespaces with `origin`, `angles`, `model_name`, `skin`, …); None without the lump.
    #[getter]
    fn sprp(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let me = self.bsp.get().current(py)?;
        let ns = py.import("types")?.getattr("SimpleNamespace")?;
        if me.family() == bspkit::Family::Respawn {
            let sp = bspkit::with_respawn_view!(&me, |v| v.static_props()).py()?.py()?;
            let Some(sp) = sp else { return Ok(py.None()) };
            let list = PyList::empty(py);
            for p in &sp.props() {
                list.append(namespace(py, p)?)?;
            }
            let d = PyDict::new(py);
            d.set_item("version", sp.version)?;
            d.set_item("model_names", sp.model_names.clone())?;
            d.set_item("leaves", sp.leaves.clone())?;
            d.set_item("props", list)?;
            return Ok(ns.call((), Some(&d))?.unbind());
        }
        let gl = GameLumps::of(&me).py()?;
        let Some(sp) = gl.static_props().map_err(|e| err(me.lump_error(35, e)))? else { return Ok(py.None()) };
        let props = sp.props().map_err(|e| err(me.lump_error(35, e)))?;
        let list = PyList::empty(py);
        for p in &props {
            list.append(namespace(py, p)?)?;
        }
        let d = PyDict::new(py);
        d.set_item("version", sp.version)?;
        d.set_item("model_names", sp.model_names.clone())?;
        d.set_item("leaves", sp.leaves.clone())?;
        d.set_item("props", list)?;
        Ok(ns.call((), Some(&d))?.unbind())
    }
}

// ---------------------------------------------------------------------------------------------
// Geometry

/// A map's geometry (`bspkit::mesh::Scene`).
#[pyclass(module = "bspkit", frozen)]
pub struct Scene {
    scene: std::sync::Arc<bspkit::mesh::Scene>,
}

#[pymethods]
impl Scene {
    #[getter]
    fn models(&self) -> Vec<Model> {
        (0..self.scene.models.len()).map(|index| Model { scene: self.scene.clone(), index }).collect()
    }
    /// Material names, indexed by `Mesh.material_index`.
    #[getter]
    fn materials(&self) -> Vec<String> {
        self.scene.materials.iter().map(|m| m.name.clone()).collect()
    }
    /// Faces left out and why: `[(lump, index, reason)]`.
    #[getter]
    fn skipped(&self) -> Vec<(u16, u32, String)> {
        self.scene.skipped.iter().map(|s| (s.lump, s.index, s.reason.clone())).collect()
    }
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.scene.warnings.clone()
    }
    /// Static props (Source `sprp`, Respawn): `[{"model", "origin", "angles", "scale", "skin",
    /// "solid", "fade", "lighting_origin"}]`, game units, angles as pitch, yaw, roll degrees.
    #[getter]
    fn props(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let out = PyList::empty(py);
        for p in &self.scene.props {
            let d = PyDict::new(py);
            d.set_item("model", &p.model)?;
            d.set_item("origin", p.origin)?;
            d.set_item("angles", p.angles)?;
            d.set_item("scale", p.scale)?;
            d.set_item("skin", p.skin)?;
            d.set_item("solid", p.solid)?;
            d.set_item("fade", p.fade)?;
            d.set_item("lighting_origin", p.lighting_origin)?;
            out.append(d)?;
        }
        Ok(out.unbind())
    }
    /// Each material's surface flags (names, as `SURFACE_FLAGS`), indexed like `materials`.
    #[getter]
    fn material_flags(&self) -> Vec<Vec<&'static str>> {
        self.scene.materials.iter().map(|m| m.flags.names().collect()).collect()
    }
}

/// One model: `meshes` (one per surface) and whole vertex / index buffers.
#[pyclass(module = "bspkit", frozen)]
pub struct Model {
    scene: std::sync::Arc<bspkit::mesh::Scene>,
    index: usize,
}

impl Model {
    fn m(&self) -> &bspkit::mesh::Model {
        &self.scene.models[self.index]
    }
}

/// One NumPy array (a copy, one allocation per buffer) of `rows` × `N` little-endian values.
fn array<const N: usize, T: Copy>(
    py: Python<'_>,
    np: &Bound<'_, PyModule>,
    rows: &[[T; N]],
    dtype: &str,
    to_le: impl Fn(T) -> Vec<u8>,
) -> PyResult<Py<PyAny>> {
    let mut bytes = Vec::with_capacity(rows.len() * N * std::mem::size_of::<T>());
    for r in rows {
        for &x in r {
            bytes.extend_from_slice(&to_le(x));
        }
    }
    let a = np.call_method1("frombuffer", (PyBytes::new(py, &bytes), dtype))?;
    Ok(a.call_method1("reshape", (-1, N))?.call_method0("copy")?.unbind())
}

#[pymethods]
impl Model {
    /// The model's index in the map's models lump.
    #[getter]
    fn index(&self) -> u32 {
        self.m().index
    }
    #[getter]
    fn name(&self) -> String {
        self.m().name.clone()
    }
    #[getter]
    fn origin(&self) -> [f32; 3] {
        self.m().origin
    }
    #[getter]
    fn angles(&self) -> [f32; 3] {
        self.m().angles
    }
    /// Index of the entity that places this model (in `bsp.ENTITIES` order), if one does.
    #[getter]
    fn entity(&self) -> Option<usize> {
        self.m().entity
    }
    /// One mesh per surface, with `polygons[].vertices[]` and `material`.
    #[getter]
    fn meshes(&self) -> Vec<Mesh> {
        (0..self.m().surfaces.len()).map(|s| Mesh { scene: self.scene.clone(), model: self.index, surface: s }).collect()
    }
    /// The whole vertex buffers as NumPy arrays: `{"position": (n,3) f4, "normal", "uv0", "uv1", "colour": (n,4) u1}`
    /// (absent attributes are empty arrays) and `"indices"`: (t,3) u4 triangles.
    fn numpy(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let np = py.import("numpy")?;
        let v = &self.m().vertices;
        let d = PyDict::new(py);
        let f = |x: f32| x.to_le_bytes().to_vec();
        d.set_item("position", array(py, &np, &v.positions, "<f4", f)?)?;
        d.set_item("normal", array(py, &np, &v.normals, "<f4", f)?)?;
        d.set_item("uv0", array(py, &np, &v.uv0, "<f4", f)?)?;
        d.set_item("uv1", array(py, &np, &v.uv1, "<f4", f)?)?;
        d.set_item("colour", array(py, &np, &v.colours, "u1", |x: u8| vec![x])?)?;
        let tris: Vec<[u32; 3]> = self.m().indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
        let u4 = |x: u32| x.to_le_bytes().to_vec();
        d.set_item("indices", array(py, &np, &tris, "<u4", u4)?)?;
        // Per triangle, from its surface: what an importer needs to assign materials, lightmap
        // pages and skip sky / tool faces with array operations instead of a loop per surface.
        let m = self.m();
        let (mut material, mut page, mut flags) = (vec![[0u32]; tris.len()], vec![[-1i32]; tris.len()], vec![[0u32]; tris.len()]);
        for (k, s) in m.surfaces.iter().enumerate() {
            let p = m.lightmap_pages.get(k).and_then(|&p| i32::try_from(p).ok()).unwrap_or(-1);
            let range = (s.indices.start / 3) as usize..(s.indices.end / 3) as usize;
            for t in range.filter(|&t| t < tris.len()) {
                material[t] = [s.material];
                page[t] = [p];
                flags[t] = [s.flags.0];
            }
        }
        let flat = |a: Py<PyAny>| -> PyResult<Py<PyAny>> { Ok(a.bind(py).call_method1("reshape", (-1,))?.unbind()) };
        d.set_item("material", flat(array(py, &np, &material, "<u4", u4)?)?)?;
        d.set_item("lightmap_page", flat(array(py, &np, &page, "<i4", |x: i32| x.to_le_bytes().to_vec())?)?)?;
        d.set_item("flags", flat(array(py, &np, &flags, "<u4", u4)?)?)?;
        Ok(d.unbind())
    }
}

/// One surface of a model.
#[pyclass(module = "bspkit", frozen)]
pub struct Mesh {
    scene: std::sync::Arc<bspkit::mesh::Scene>,
    model: usize,
    surface: usize,
}

impl Mesh {
    fn s(&self) -> &bspkit::mesh::Surface {
        &self.scene.models[self.model].surfaces[self.surface]
    }
}

#[pymethods]
impl Mesh {
    /// The material (texture / shader) name.
    #[getter]
    fn material(&self) -> Option<String> {
        self.scene.material(self.s().material).map(|m| m.name.clone())
    }
    #[getter]
    fn material_index(&self) -> u32 {
        self.s().material
    }
    /// `(lump, index)` of the face / surface it came from.
    #[getter]
    fn source(&self) -> (u16, u32) {
        (self.s().lump, self.s().index)
    }
    #[getter]
    fn kind(&self) -> &'static str {
        self.s().kind.as_str()
    }
    #[getter]
    fn flags(&self) -> Vec<&'static str> {
        self.s().flags.names().collect()
    }
    /// Triangles, each a `Polygon` of three vertices.
    #[getter]
    fn polygons(&self) -> Vec<Polygon> {
        let s = self.s();
        let n = (s.indices.end - s.indices.start) / 3;
        (0..n).map(|t| Polygon { scene: self.scene.clone(), model: self.model, first: s.indices.start + 3 * t }).collect()
    }
}

/// A triangle: `vertices` of a mesh.
#[pyclass(module = "bspkit", frozen)]
pub struct Polygon {
    scene: std::sync::Arc<bspkit::mesh::Scene>,
    model: usize,
    first: u32,
}

#[pymethods]
impl Polygon {
    #[getter]
    fn vertices(&self) -> Vec<Vertex> {
        let m = &self.scene.models[self.model];
        (0..3)
            .filter_map(|k| m.indices.get((self.first + k) as usize))
            .map(|&i| Vertex { scene: self.scene.clone(), model: self.model, index: i as usize })
            .collect()
    }
}

/// A vertex: `position`, `normal`, `uv0` (texture), `uv1` (lightmap), `colour` (RGBA8); an
/// attribute the map lacks is None.
#[pyclass(module = "bspkit", frozen)]
pub struct Vertex {
    scene: std::sync::Arc<bspkit::mesh::Scene>,
    model: usize,
    index: usize,
}

impl Vertex {
    fn v(&self) -> &bspkit::mesh::Vertices {
        &self.scene.models[self.model].vertices
    }
}

#[pymethods]
impl Vertex {
    #[getter]
    fn position(&self) -> Option<[f32; 3]> {
        self.v().positions.get(self.index).copied()
    }
    #[getter]
    fn normal(&self) -> Option<[f32; 3]> {
        self.v().normals.get(self.index).copied()
    }
    #[getter]
    fn uv0(&self) -> Option<[f32; 2]> {
        self.v().uv0.get(self.index).copied()
    }
    #[getter]
    fn uv1(&self) -> Option<[f32; 2]> {
        self.v().uv1.get(self.index).copied()
    }
    #[getter]
    fn colour(&self) -> Option<(u8, u8, u8, u8)> {
        self.v().colours.get(self.index).map(|c| (c[0], c[1], c[2], c[3]))
    }
    #[getter]
    fn index(&self) -> usize {
        self.index
    }
}

// ---------------------------------------------------------------------------------------------
// Module

/// The maps inside a `.pk3` / `.zip` archive (`bspkit::scan::archive_map_entries`), sorted:
/// `load(f"{archive}!{name}")` opens one.
#[pyfunction]
fn archive_maps(py: Python<'_>, archive: std::path::PathBuf) -> PyResult<Vec<String>> {
    py.detach(|| bspkit::scan::archive_map_entries(&archive)).py()
}

/// Every branch bspkit reads: `[{"branch", "family", "title", "games"}]` (`bsp formats --json`).
#[pyfunction]
fn formats(py: Python<'_>) -> PyResult<Py<PyAny>> {
    let list: Vec<serde_json::Value> = bspkit::branches::all()
        .iter()
        .map(|b| serde_json::json!({"branch": b.id, "family": b.family.as_str(), "title": b.title, "games": b.games}))
        .collect();
    json_to_py(py, &serde_json::Value::Array(list))
}

/// A Valve `.lmp` file (external lump): `{"lump", "version", "revision", "offset", "length", "data": bytes}`.
#[pyfunction]
fn read_lmp(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyDict>> {
    let bytes: Vec<u8> = if data.is_instance_of::<PyString>() || data.hasattr("__fspath__")? {
        let p: std::path::PathBuf = data.extract()?;
        std::fs::read(&p).map_err(|e| err(bspkit::Error::from(e).in_file(&p)))?
    } else {
        buffer_bytes(data)?
    };
    let lmp = bspkit::lmp::LmpFile::parse(&bytes).py()?;
    let d = PyDict::new(py);
    d.set_item("offset", lmp.header.offset)?;
    d.set_item("lump", lmp.header.lump_index)?;
    d.set_item("version", lmp.header.version)?;
    d.set_item("length", lmp.header.length)?;
    d.set_item("revision", lmp.header.revision)?;
    d.set_item("data", PyBytes::new(py, lmp.data))?;
    Ok(d.unbind())
}

/// `Bsp.search_all_entities(**key_values)`, defined by this module as a plain CPython method
/// rather than through `#[pymethods]`.
///
/// Why: a search answers from an index in about 60 ns, but a pyo3 method taking `**kwargs`
/// costs about 200 ns per call before that (CPython builds a keyword dict, pyo3 copies it into
/// another), which made a single search 3–4× dearer than its work. This method reads CPython's
/// own arguments: on CPython 3.10 and newer with the vectorcall convention (`METH_FASTCALL |
/// METH_KEYWORDS`, in the stable ABI from 3.10: the names in a tuple, the values in an array,
/// no dict at all); on 3.9 with `METH_VARARGS | METH_KEYWORDS` (the keyword dict CPython made,
/// not copied). Both go through pyo3's own trampoline, which keeps its bookkeeping of the
/// attached thread and turns a panic into an exception.
mod search_method {
    use super::*;
    use pyo3::ffi;

    const DOC: &std::ffi::CStr = c"search_all_entities($self, /, **key_values)
--

Entities whose keys have these values: `bsp.search_all_entities(classname=\"light\")`
(every condition must hold; a key given several times in an entity matches on any of its
values). Answered from an index of `(key, value)` pairs, filled for each key on the first
search naming it and dropped after any edit of an entity or of the list. Returns the
`bsp.ENTITIES` objects themselves, in list order.";

    /// The map `slf` points to, or TypeError (the descriptor checks the type, but an unbound
    /// call through the class could pass anything).
    unsafe fn bsp<'py>(py: Python<'py>, slf: *mut ffi::PyObject) -> PyResult<Bound<'py, PyBsp>> {
        Ok(Bound::from_borrowed_ptr(py, slf).cast_into::<PyBsp>()?)
    }

    fn positional_error() -> PyErr {
        PyTypeError::new_err("search_all_entities() takes keyword arguments only (key=value)")
    }

    unsafe fn varargs_body(
        py: Python<'_>,
        slf: *mut ffi::PyObject,
        args: *mut ffi::PyObject,
        kwargs: *mut ffi::PyObject,
    ) -> PyResult<*mut ffi::PyObject> {
        let bsp = bsp(py, slf)?;
        if !args.is_null() && ffi::PyTuple_Size(args) != 0 {
            return Err(positional_error());
        }
        let kwargs = if kwargs.is_null() { None } else { Some(Bound::from_borrowed_ptr(py, kwargs).cast_into::<PyDict>()?) };
        Ok(bsp.get().search(py, kwargs.iter().flat_map(|d| d.iter()))?.into_ptr())
    }

    unsafe fn fastcall_body(
        py: Python<'_>,
        slf: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> PyResult<*mut ffi::PyObject> {
        let bsp = bsp(py, slf)?;
        // A METH_FASTCALL method gets the plain count (CPython strips vectorcall's flag bit).
        if nargs != 0 {
            return Err(positional_error());
        }
        let names = if kwnames.is_null() { None } else { Some(Bound::from_borrowed_ptr(py, kwnames).cast_into::<PyTuple>()?) };
        let pairs = names.iter().flat_map(|n| n.iter()).enumerate().map(|(i, name)| {
            // SAFETY: CPython passes one value per keyword name, after the (zero) positional
            // arguments; each is a borrowed reference valid for the call.
            (name, unsafe { Bound::from_borrowed_ptr(py, *args.add(i)) })
        });
        Ok(bsp.get().search(py, pairs)?.into_ptr())
    }

    unsafe extern "C" fn varargs(slf: *mut ffi::PyObject, args: *mut ffi::PyObject, kwargs: *mut ffi::PyObject) -> *mut ffi::PyObject {
        pyo3::impl_::trampoline::cfunction_with_keywords(slf, args, kwargs, varargs_body)
    }

    unsafe extern "C" fn fastcall(
        slf: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject {
        pyo3::impl_::trampoline::fastcall_with_keywords(slf, args, nargs, kwnames, fastcall_body)
    }

    /// `METH_FASTCALL` (CPython's value since 3.7; pyo3's limited-API bindings for 3.9 leave it out).
    const METH_FASTCALL: std::os::raw::c_int = 0x0080;

    /// Put the method on the `Bsp` type.
    pub(super) fn install(py: Python<'_>) -> PyResult<()> {
        let ty = py.get_type::<PyBsp>();
        let fast = py.version_info() >= (3, 10);
        let meth = if fast {
            // SAFETY: with METH_FASTCALL | METH_KEYWORDS CPython calls the pointer with this
            // signature; the union field only stores it.
            ffi::PyMethodDefPointer {
                PyCFunctionWithKeywords: unsafe {
                    std::mem::transmute::<
                        unsafe extern "C" fn(
                            *mut ffi::PyObject,
                            *const *mut ffi::PyObject,
                            ffi::Py_ssize_t,
                            *mut ffi::PyObject,
                        ) -> *mut ffi::PyObject,
                        ffi::PyCFunctionWithKeywords,
                    >(fastcall)
                },
            }
        } else {
            ffi::PyMethodDefPointer { PyCFunctionWithKeywords: varargs }
        };
        let flags = if fast { METH_FASTCALL | ffi::METH_KEYWORDS } else { ffi::METH_VARARGS | ffi::METH_KEYWORDS };
        // The definition must live as long as the type: made once per module initialisation.
        let def = Box::leak(Box::new(ffi::PyMethodDef {
            ml_name: c"search_all_entities".as_ptr(),
            ml_meth: meth,
            ml_flags: flags,
            ml_doc: DOC.as_ptr(),
        }));
        // SAFETY: `ty` is a type object and `def` lives for ever.
        let descr = unsafe { ffi::PyDescr_NewMethod(ty.as_type_ptr(), def) };
        if descr.is_null() {
            return Err(PyErr::fetch(py));
        }
        // SAFETY: a new reference, checked above.
        let descr = unsafe { Bound::from_owned_ptr(py, descr) };
        ty.setattr("search_all_entities", descr)
    }
}

mod tables;

#[pymodule]
fn _bspkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(archive_maps, m)?)?;
    m.add_function(wrap_pyfunction!(read_lmp, m)?)?;
    m.add_function(wrap_pyfunction!(_entities_edited, m)?)?;
    m.add_class::<PyBsp>()?;
    search_method::install(py)?;
    m.add_class::<RecordLump>()?;
    m.add_class::<Record>()?;
    m.add_class::<Entity>()?;
    m.add_class::<PakFile>()?;
    m.add_class::<GameLump>()?;
    m.add_class::<Scene>()?;
    m.add_class::<Model>()?;
    m.add_class::<Mesh>()?;
    m.add_class::<Polygon>()?;
    m.add_class::<Vertex>()?;
    m.add_class::<ArrayHolder>()?;
    m.add_class::<tables::ArrowTable>()?;
    m.add_function(wrap_pyfunction!(tables::_scan_tables, m)?)?;
    m.add_function(wrap_pyfunction!(tables::_scan_tables_mixed, m)?)?;
    m.add_function(wrap_pyfunction!(tables::_is_scanned_name, m)?)?;
    m.add_function(wrap_pyfunction!(tables::_list_map_files, m)?)?;
    // Bit values of `Model.numpy()["flags"]`, by the names `Mesh.flags` uses.
    let flags = PyDict::new(py);
    for (name, f) in bspkit::mesh::SurfaceFlags::NAMES {
        flags.set_item(name, f.0)?;
    }
    m.add("SURFACE_FLAGS", flags)?;
    m.add("BspError", py.get_type::<BspError>())?;
    m.add("IoError", py.get_type::<IoError>())?;
    m.add("TruncatedError", py.get_type::<TruncatedError>())?;
    m.add("UnknownFormatError", py.get_type::<UnknownFormatError>())?;
    m.add("UnsupportedVersionError", py.get_type::<UnsupportedVersionError>())?;
    m.add("UnknownBranchError", py.get_type::<UnknownBranchError>())?;
    m.add("LumpOutOfBoundsError", py.get_type::<LumpOutOfBoundsError>())?;
    m.add("BadLumpLengthError", py.get_type::<BadLumpLengthError>())?;
    m.add("NoSuchLumpError", py.get_type::<NoSuchLumpError>())?;
    m.add("DecompressError", py.get_type::<DecompressError>())?;
    m.add("MalformedError", py.get_type::<MalformedError>())?;
    m.add("LimitExceededError", py.get_type::<LimitExceededError>())?;
    m.add("UnsafePathError", py.get_type::<UnsafePathError>())?;
    Ok(())
}
