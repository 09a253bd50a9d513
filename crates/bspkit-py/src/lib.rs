//! `bspkit` for Python: a thin pyo3 layer over the `bspkit` library. Every reading, checking,
//! editing and writing step is the library's; this crate only converts between Rust and Python
//! values. The pure-Python package (`python/bspkit/__init__.py`) re-exports these classes.
//!
//! Memory: a [`PyBsp`] owns its map (memory-mapped from a path, or a private copy of the bytes
//! given), so nothing it hands out can alias memory Python may free or mutate. Record objects,
//! lump sequences and NumPy arrays keep a reference to their `Bsp`; arrays are read-only views
//! over the map's bytes (NumPy's `__array_interface__`, with the `Bsp` as the array's base).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use bspkit::branch::LumpKind;
use bspkit::branches::respawn::EntPartition;
use bspkit::edit::{resolve_lump, Editor};
use bspkit::lumps::entities::{EditEntity, EntityDoc};
use bspkit::lumps::gamelump::GameLumps;
use bspkit::lumps::pakfile::{self, PakCompression, Pakfile, DEFAULT_MAX_ENTRY};
use bspkit::schema::{Kind, RecordSchema, Scalar, Type};
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
        ErrorKind::LimitExceeded { .. } => LimitExceededError::new_err(msg),
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
    /// Lumps replaced through the bindings (raw lump edits, pakfile edits), by lump index.
    changes: Mutex<BTreeMap<usize, Vec<u8>>>,
    /// The entity list handed to Python (edited in place) and the document it came from.
    entities: OnceLock<(Py<PyList>, EntityDoc)>,
    /// The `(key, value)` index `search_all_entities` answers from, built on the first search
    /// after any entity edit.
    search: Mutex<Option<SearchIndex>>,
    /// Respawn `.ent` partitions beside the map, as lists handed to Python (read on first use).
    partitions: OnceLock<Vec<Partition>>,
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
        py.detach(|| Bsp::open_with(&path, &opts)).py()?
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
        let changes = self.changes.lock().unwrap();
        match changes.get(&index) {
            Some(b) => f(b),
            None => {
                drop(changes);
                f(self.inner.lump(index).py()?)
            }
        }
    }

    fn entity_state(&self, py: Python<'_>) -> PyResult<&(Py<PyList>, EntityDoc)> {
        if let Some(s) = self.entities.get() {
            return Ok(s);
        }
        // Read through an editor holding the raw lump edits, so a `set_lump` of the entity lump
        // made before is what the list shows.
        let mut ed = Editor::new(&self.inner).py()?;
        for (i, b) in self.changes.lock().unwrap().iter() {
            ed.set_lump(*i, b.clone()).py()?;
        }
        // The entities move into the list's objects: the document keeps the text and its layout
        // (`editor` puts the list's entities back into a copy of it to write).
        let mut doc = ed.entities().py()?;
        let list = entity_list(py, std::mem::take(&mut doc.entities))?;
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
            ed.set_lump(*i, b.clone()).py()?;
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
    /// The engine family (`quake`, `goldsrc`, `quake2`, `quake3`, `source`, `respawn`, `cod`, `genesis3d`).
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

    /// Replace a lump's (decompressed) bytes; written by `save_as` / `to_bytes`. Views already
    /// taken keep showing the map as loaded.
    fn set_lump(&self, lump: &Bound<'_, PyAny>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let index = self.index_of(lump)?;
        let bytes = buffer_bytes(data)?;
        if self.inner.entities_index() == Some(index) && self.entities.get().is_some() {
            return Err(PyValueError::new_err("the entities were taken as bsp.ENTITIES: edit that list instead"));
        }
        self.changes.lock().unwrap().insert(index, bytes);
        Ok(())
    }

    /// The map with every edit, as bytes (the original bytes when nothing changed).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let ed = self.editor(py)?;
        Ok(PyBytes::new(py, &ed.to_bytes().py()?))
    }

    /// Write the map with every edit to `path` (atomically; the result is reopened and checked
    /// first, as `bsp edit` does). Byte-identical to the source when nothing changed. A Respawn
    /// map opened with its `.bsp_lump` files is written as a set (`bspkit::mapset`).
    fn save_as(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let mut ed = self.editor(py)?;
        let partitions = self.edited_partitions(py)?;
        // A Respawn map opened with its `.bsp_lump` files is written as a set: the `.bsp`, its
        // external lumps and `.ent` partitions (with the edits made to `bsp.ENTITIES_<kind>`)
        // beside `path`.
        if self.inner.family() == bspkit::Family::Respawn && self.inner.path().is_some() && self.inner.options().external_lumps {
            let opts = bspkit::mapset::SetOptions { partitions, ..Default::default() };
            bspkit::mapset::write_set(&mut ed, &path, &opts).map_err(|e| err(e.in_file(&path)))?;
            return Ok(());
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

    /// `bsp check --json`'s object for this map: `{"path", "problems", "counts"}`;
    /// `verify_lzma=True` is `bsp check --verify-lzma` (every LZMA lump decoded).
    #[pyo3(signature = (verify_lzma=false))]
    fn check(&self, py: Python<'_>, verify_lzma: bool) -> PyResult<Py<PyAny>> {
        let opts = bspkit::check::CheckOptions { verify_lzma };
        let problems = py.detach(|| bspkit::check::check_with(&self.inner, &opts));
        let counts = bspkit::check::problem::Counts::of(&problems);
        let v = serde_json::json!({"path": self.inner.display_name(), "problems": problems, "counts": counts});
        json_to_py(py, &v)
    }

    /// `bsp info --json`'s object for this map.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let info = py.detach(|| bspkit::info::info(&self.inner));
        to_py(py, &info)
    }

    /// Quake / GoldSrc embedded textures: `[{"index", "name", "width", "height", "embedded", "pixels": bytes | None}]`
    /// (`pixels`: mip level 0, palette indices).
    fn miptex(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let out = PyList::empty(py);
        let Some(lump) = bspkit::lumps::miptex::of(&self.inner).py()? else { return Ok(out.unbind()) };
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
        if let Some(x) = bspkit::lumps::bspx::of(&self.inner).py()? {
            for e in &x.entries {
                if let Some(b) = x.lump(self.inner.data(), &e.name()) {
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
        let scene = py.detach(|| bspkit::mesh::build(&me.inner, &Default::default())).py()?;
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

    /// Lightmap atlases (`bspkit::lightmap::build`): `[{"page", "style", "layer", "width",
    /// "height", "shape": (height, width, 3), "rgb": bytes (8-bit RGB, display-ready)}]`; with
    /// `png=True` each also has "png". `lightmap_atlases()` gives the same pixels as NumPy arrays.
    #[pyo3(signature = (png=false, hdr=false))]
    fn lightmaps(&self, py: Python<'_>, png: bool, hdr: bool) -> PyResult<Py<PyList>> {
        let opts = bspkit::lumps::lighting::LightOptions { hdr, ..Default::default() };
        let lm = py.detach(|| bspkit::lightmap::build(&self.inner, &opts)).py()?;
        let out = PyList::empty(py);
        for a in &lm.atlases {
            let d = PyDict::new(py);
            d.set_item("page", a.page)?;
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
    /// "height", "shape": (height, width, 4), "rgba": bytes}]` (with `png=True` also "png"; as
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

    /// Lightmap atlases as NumPy arrays (needs NumPy): `[{"page", "style", "layer", "width",
    /// "height", "format", "rgb"}]`, "rgb" a read-only `(height, width, 3)` uint8 array of the
    /// same pixels `lightmaps()` gives as bytes (handed over from Rust without a copy). With
    /// `stored=True` each also has "stored": a `(height, width, 3)` float32 array of the values
    /// as stored (8-bit samples as `byte / 255`, HDR samples decoded exactly; what
    /// `bsp lightmaps --hdr` writes as PFM). `format` is the samples' form (`rgb8`, `rgbexp32`,
    /// `e5bgr9`); `hdr` as for `lightmaps()`.
    #[pyo3(signature = (hdr=false, stored=false))]
    fn lightmap_atlases(&self, py: Python<'_>, hdr: bool, stored: bool) -> PyResult<Py<PyList>> {
        let np = py.import("numpy")?;
        let opts = bspkit::lumps::lighting::LightOptions { hdr, ..Default::default() };
        let lm = py.detach(|| bspkit::lightmap::build(&self.inner, &opts)).py()?;
        let out = PyList::empty(py);
        for a in lm.atlases {
            let (w, h) = (a.width as usize, a.height as usize);
            let d = PyDict::new(py);
            d.set_item("page", a.page)?;
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

    /// Textures as NumPy arrays (needs NumPy): `[{"name", "source", "width", "height", "rgba",
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

    /// Export the map's geometry as `bsp export` does (`bspkit::export`): glTF binary (`.glb`),
    /// `.gltf` + `.bin`, or OBJ + MTL, chosen by `path`'s extension. `scale` converts game units
    /// (default: metres); `models` is `"all"` or `"world"`; `skip` names the surface kinds left
    /// out (`None`: sky, nodraw, trigger, clip, tool; `[]`: none); `textures` / `lightmaps` embed
    /// them; `hdr` also writes every lightmap page × style × layer beside the output (`.pfm` +
    /// `.png`, and a manifest), as `bsp export --hdr`; `game_dirs` / `wads` / `palette` as the
    /// CLI's options. Returns `bsp export --json`'s summary as a dict.
    #[pyo3(signature = (path, *, scale=bspkit::export::DEFAULT_SCALE, models="all", skip=None, patch_level=None,
        textures=true, lightmaps=true, hdr=false, game_dirs=Vec::new(), wads=Vec::new(), palette=None))]
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
    ) -> PyResult<Py<PyAny>> {
        use bspkit::mesh::{ModelSelect, SurfaceFlags};
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
        };
        let summary = py.detach(|| bspkit::export::export(&self.inner, &path, &opts)).map_err(|e| err(e.in_file(&path)))?;
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

/// A field's value: a number, `bytes` for a 1-D byte array (names, styles), nested lists for
/// other arrays, a [`Record`] for a nested struct.
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

/// A lump of records: a sequence of [`Record`] objects (plain values for index lumps), and
/// `.numpy()` for a zero-copy structured array.
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
    count: usize,
}

impl RecordLump {
    fn new(bsp: &Bound<'_, PyBsp>, index: usize) -> PyResult<Self> {
        let me = bsp.get();
        let entry = me.inner.entry(index).ok_or_else(|| PyKeyError::new_err(index))?;
        let size = me.inner.record_size(index).ok_or_else(|| {
            err(me.inner.lump_error(index, bspkit::Error::malformed(format!("no record size known for lump version {:?}", entry.version))))
        })?;
        let schema = bspkit::schema::lump_schema(me.inner.branch(), entry.name, entry.version.unwrap_or(0), me.inner.endian());
        let len = me.inner.lump(index).py()?.len();
        if size == 0 || len % size != 0 {
            return Err(err(me
                .inner
                .lump_error(index, bspkit::Error::new(ErrorKind::BadLumpLength { length: len as u64, record_size: size }))));
        }
        let plain = schema.is_some_and(items_are_plain);
        Ok(RecordLump { bsp: bsp.clone().unbind(), index, name: entry.name, schema, plain, size, count: len / size })
    }

    fn item(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        let offset = i * self.size;
        match self.schema {
            Some(s) if self.plain => {
                let b = self.bsp.get().inner.lump(self.index).py()?;
                let f = &s.fields[0];
                field_value(py, &self.bsp, self.index, &f.ty, f.ty.shape(), offset, b)
            }
            Some(schema) => Ok(Py::new(py, Record { bsp: self.bsp.clone_ref(py), lump: self.index, offset, schema })?.into_any()),
            None => {
                let b = self.bsp.get().inner.lump(self.index).py()?;
                Ok(PyBytes::new(py, &b[offset..offset + self.size]).into_any().unbind())
            }
        }
    }
}

#[pymethods]
impl RecordLump {
    fn __len__(&self) -> usize {
        self.count
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(slice) = key.cast::<PySlice>() {
            let ind = slice.indices(self.count as isize)?;
            let l = PyList::empty(py);
            let mut i = ind.start;
            for _ in 0..ind.slicelength {
                l.append(self.item(py, i as usize)?)?;
                i += ind.step;
            }
            return Ok(l.into_any().unbind());
        }
        let i: isize = key.extract().map_err(|_| PyTypeError::new_err("records are indexed by int or slice"))?;
        let j = if i < 0 { i + self.count as isize } else { i };
        if j < 0 || j as usize >= self.count {
            return Err(PyIndexError::new_err(format!("{} index {i} out of range ({} records)", self.name, self.count)));
        }
        self.item(py, j as usize)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let items: Vec<Py<PyAny>> = (0..slf.count).map(|i| slf.item(py, i)).collect::<PyResult<_>>()?;
        Ok(PyList::new(py, items)?.into_any().try_iter()?.into_any().unbind())
    }

    fn __repr__(&self) -> String {
        format!("<bspkit.RecordLump {} ({} × {})>", self.name, self.count, self.schema.map(|s| s.name).unwrap_or("bytes"))
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
    /// Field names of the records (`("value",)` for a lump of plain values; empty without a schema).
    #[getter]
    fn fields(&self) -> Vec<&'static str> {
        self.schema.map(|s| s.fields.iter().map(|f| f.name).collect()).unwrap_or_default()
    }
    /// The record type's name in the Rust library (`Plane`, `Face29`, …).
    #[getter]
    fn record_type(&self) -> Option<&'static str> {
        self.schema.map(|s| s.name)
    }

    /// A read-only NumPy array over the map's bytes, with no copy: a structured array (one
    /// named field per record field), or a plain array for a lump of values. The array keeps
    /// the map alive. Raises ImportError without NumPy.
    fn numpy(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let me = slf.get();
        let dtype = array_dtypes(py)?.of(py, me.schema, me.size)?;
        let bytes = me.bsp.get().inner.lump(me.index).py()?;
        let mut shape = vec![me.count];
        if let Some(s) = me.schema.filter(|_| me.plain) {
            shape.extend_from_slice(s.fields[0].ty.shape());
        }
        let holder = Bound::new(py, ArrayHolder { owner: Owner::Map(slf.clone().into_any().unbind()) })?;
        // SAFETY: the bytes belong to the map (its data or a decoded lump, never freed or
        // changed while the map lives), and the holder keeps the map alive as the array's base.
        unsafe { array_over(py, &dtype, &shape, bytes.as_ptr(), holder) }
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
) -> PyResult<Py<PyAny>> {
    use numpy::npyffi::{npy_intp, NpyTypes, PyArrayObject, PyArray_Descr, PY_ARRAY_API};
    let mut dims: Vec<npy_intp> = shape.iter().map(|&n| n as npy_intp).collect();
    let subtype = PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type);
    // NewFromDescr takes over a reference to the dtype; flags 0: not writeable (NumPy works out
    // contiguity and alignment itself), and no strides: C order.
    let descr = dtype.clone_ref(py).into_ptr() as *mut PyArray_Descr;
    let arr = PY_ARRAY_API.PyArray_NewFromDescr(
        py,
        subtype,
        descr,
        dims.len() as std::os::raw::c_int,
        dims.as_mut_ptr(),
        std::ptr::null_mut(),
        data as *mut std::os::raw::c_void,
        0,
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

/// NumPy's `descr` for a record: `[(name, format[, shape])]`, nested lists for nested records.
fn descr<'py>(py: Python<'py>, s: &RecordSchema) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for f in s.fields {
        let fmt: Py<PyAny> = match f.ty.kind {
            Kind::Record(inner) => descr(py, inner)?.into_any().unbind(),
            _ => typestr(&f.ty)?.into_pyobject(py)?.into_any().unbind(),
        };
        if f.ty.ndim == 0 {
            l.append((f.name, fmt))?;
        } else {
            l.append((f.name, fmt, PyTuple::new(py, f.ty.shape())?))?;
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
        let src = bspkit::texture::TextureSource::new(&self.inner, &opts);
        let out = PyList::empty(py);
        for t in src.textures() {
            let d = PyDict::new(py);
            match t {
                Ok(t) => {
                    d.set_item("name", &t.name)?;
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
            Owner::Map(_) => 0,
            Owner::Data(OwnedData::U8(v)) => v.len(),
            Owner::Data(OwnedData::F32(v)) => v.len() * 4,
        }
    }
    /// Whether the array's memory is a buffer made in Rust and owned here (images), rather than
    /// a view over the mapped file (record lumps).
    #[getter]
    fn owns_buffer(&self) -> bool {
        !matches!(self.owner, Owner::Map(_))
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
    unsafe { array_over(py, &dtype, shape, ptr, holder) }
}

/// One record of a lump: fields as attributes and items (`plane.normal`, `plane["dist"]`).
#[pyclass(module = "bspkit", frozen)]
pub struct Record {
    bsp: Py<PyBsp>,
    lump: usize,
    offset: usize,
    schema: &'static RecordSchema,
}

impl Record {
    fn get(&self, py: Python<'_>, name: &str) -> PyResult<Option<Py<PyAny>>> {
        let Some(f) = self.schema.field(name) else { return Ok(None) };
        let b = self.bsp.get().inner.lump(self.lump).py()?;
        field_value(py, &self.bsp, self.lump, &f.ty, f.ty.shape(), self.offset + f.offset, b).map(Some)
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
        self.get(py, name)?.ok_or_else(|| PyAttributeError::new_err(format!("{} has no field '{name}'", self.schema.name)))
    }
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(i) = key.extract::<usize>() {
            let f = self.schema.fields.get(i).ok_or_else(|| PyIndexError::new_err(i))?;
            return self.__getattr__(py, f.name);
        }
        let name: String = key.extract()?;
        self.get(py, &name)?.ok_or_else(|| PyKeyError::new_err(name))
    }
    fn __len__(&self) -> usize {
        self.schema.fields.len()
    }
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let vals: Vec<Py<PyAny>> = self.schema.fields.iter().map(|f| self.__getattr__(py, f.name)).collect::<PyResult<_>>()?;
        Ok(PyList::new(py, vals)?.into_any().try_iter()?.into_any().unbind())
    }
    /// Field names, in order.
    #[getter]
    fn _fields(&self) -> Vec<&'static str> {
        self.schema.fields.iter().map(|f| f.name).collect()
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
            d.set_item(f.name, plain(py, self.__getattr__(py, f.name)?)?)?;
        }
        Ok(d.unbind())
    }
    /// The record's bytes as stored.
    fn _bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = self.bsp.get().inner.lump(self.lump).py()?;
        Ok(PyBytes::new(py, &b[self.offset..self.offset + self.schema.size]))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Record>() else { return Ok(false) };
        self._asdict(py)?.bind(py).eq(o.get()._asdict(py)?)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::new();
        for f in self.schema.fields {
            parts.push(format!("{}={}", f.name, self.__getattr__(py, f.name)?.bind(py).repr()?));
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
        me.changes.lock().unwrap().insert(self.index, new);
        Ok(())
    }
    /// Remove an entry (`NoSuchLumpError` when absent).
    fn remove(&self, name: &str) -> PyResult<()> {
        let me = self.bsp.get();
        let new = me.with_lump(self.index, |b| pakfile::remove_entry(b, name, PakCompression::Stored, DEFAULT_MAX_ENTRY).py())?;
        me.changes.lock().unwrap().insert(self.index, new);
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
        let me = self.bsp.get();
        let gl = GameLumps::of(&me.inner).py()?;
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
        let me = self.bsp.get();
        let ns = py.import("types")?.getattr("SimpleNamespace")?;
        if me.inner.family() == bspkit::Family::Respawn {
            let sp = bspkit::with_respawn_view!(&me.inner, |v| v.static_props()).py()?.py()?;
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
        let gl = GameLumps::of(&me.inner).py()?;
        let Some(sp) = gl.static_props().map_err(|e| err(me.inner.lump_error(35, e)))? else { return Ok(py.None()) };
        let props = sp.props().map_err(|e| err(me.inner.lump_error(35, e)))?;
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
        d.set_item("indices", array(py, &np, &tris, "<u4", |x: u32| x.to_le_bytes().to_vec())?)?;
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
    m.add_function(wrap_pyfunction!(tables::_list_map_files, m)?)?;
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
