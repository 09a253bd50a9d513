"""``bspkit.scan``: a map library as Arrow tables (the tables of ``bsp scan --out``).

>>> tables = bspkit.scan(["maps/", "pak0.pk3"])          # {"maps": pyarrow.Table, ...}
>>> tables["entities"].filter(pc.field("classname") == "item_quad")

The rows are built in Rust and handed over through the Arrow C data interface without a copy.
pyarrow is optional: without it (or with ``pyarrow=False``) the values are ``ArrowTable``
objects implementing the Arrow PyCapsule interface, which polars, DuckDB and others read
directly. The columns are documented in README.md ("Library tables").

Paths may also be URLs of an object store or any other fsspec file system
(``s3://bucket/maps/``, ``gs://…``, ``https://…/e1m1.bsp``): the objects are listed and fetched
with fsspec (their bytes handed to the same Rust scan), and their ``maps`` rows carry the URL as
``path`` and the store's size and modification time. fsspec and the store's package (``s3fs``
for ``s3://``) are needed only then; ``storage_options`` are passed to fsspec.
"""

import os

from ._bspkit import _is_scanned_name, _scan_tables, _scan_tables_mixed

#: The tables, in the order ``bsp scan --out`` writes them.
TABLES = ("maps", "entities", "textures", "props", "lumps", "problems")


def _paths(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    return [os.fsdecode(p) for p in paths]


def is_url(path):
    """Whether ``path`` names an fsspec file system other than the local one (``s3://…``)."""
    return isinstance(path, str) and "://" in path and not path.startswith("file://")


def _mtime_ns(info):
    # Stores report the time under different keys: local/HTTP ``mtime`` (seconds), S3
    # ``LastModified`` (a datetime), GCS ``updated`` (a string).
    for key in ("mtime", "LastModified", "last_modified", "updated", "modified"):
        v = info.get(key)
        if v is None:
            continue
        if hasattr(v, "timestamp"):
            return int(v.timestamp() * 1e9)
        if isinstance(v, (int, float)):
            return int(v * 1e9)
        try:
            from datetime import datetime

            return int(datetime.fromisoformat(str(v).replace("Z", "+00:00")).timestamp() * 1e9)
        except ValueError:
            continue
    return 0


def _tag(info):
    # What names one version of an object's bytes, when the store gives it: S3's ``ETag`` (and
    # ``VersionId`` in a versioned bucket), GCS's ``generation`` / ``md5Hash``, Azure's
    # ``etag``. Compared before and after a read, it finds a rewrite that kept the size and
    # the (whole-second) modification time.
    parts = [str(info[k]) for k in ("ETag", "etag", "VersionId", "version_id", "generation", "md5Hash") if info.get(k)]
    return "/".join(parts) or None


def list_objects(urls, storage_options=None):
    """The maps and archives at or below ``urls`` (fsspec URLs), sorted by URL:
    ``([(url, size, mtime_ns, tag)], [(url, message)])`` — ``tag`` names the listed version of
    the object's bytes (ETag, version, generation; ``None`` when the store gives none); the
    second list names what could not be listed."""
    import fsspec

    found, failed = {}, []
    for url in urls:
        try:
            fs, root = fsspec.core.url_to_fs(url, **(storage_options or {}))
            if fs.isdir(root):
                listing = fs.find(root, detail=True)
            else:
                listing = {root: fs.info(root)}
        except Exception as e:  # the store's own errors: reported as a row, never raised
            failed.append((url, f"{url}: cannot list: {type(e).__name__}: {e}"))
            continue
        for path, info in listing.items():
            if info.get("type", "file") != "file" or not _is_scanned_name(path):
                continue
            name = fs.unstrip_protocol(path)
            found[name] = (name, int(info.get("size") or 0), _mtime_ns(info), _tag(info))
    return [found[k] for k in sorted(found)], failed


def _changed(url, fs, path, data, size, mtime, tag):
    """Why the object is no longer the one listed after its bytes were read (``None`` when it
    is): the bytes' length, then the store's size, tag (ETag / version) and modification time
    asked for again."""
    if len(data) != size:
        return f"{url}: the object changed while it was read ({size} bytes listed, {len(data)} read); its rows are left out"
    try:
        fs.invalidate_cache(path)
        now = fs.info(path)
    except Exception as e:
        return f"{url}: the object disappeared while it was read ({type(e).__name__}: {e}); its rows are left out"
    was = (size, mtime, tag)
    got = (int(now.get("size") or 0), _mtime_ns(now), _tag(now))
    if got[0] != was[0] or (tag is not None and got[2] != tag) or (mtime and got[1] != mtime):
        return f"{url}: the object changed while it was read (size, mtime, tag {was} -> {got}); its rows are left out"
    return None


def _fetch(objects, storage_options=None):
    """The bytes of listed objects: ``([(url, bytes, size, mtime_ns)], [(url, message)],
    [(url, message)])`` — the last list names the objects that changed while they were read
    (:func:`_changed`), whose bytes are not kept."""
    import fsspec

    got, failed, changed = [], [], []
    for obj in objects:
        url, size, mtime = obj[:3]
        tag = obj[3] if len(obj) > 3 else None
        try:
            fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
            with fsspec.open(url, "rb", **(storage_options or {})) as f:
                data = f.read()
        except Exception as e:
            failed.append((url, f"{url}: cannot read: {type(e).__name__}: {e}"))
            continue
        why = _changed(url, fs, path, data, size, mtime, tag)
        if why is not None:
            changed.append((url, why))
            continue
        got.append((url, data, size, mtime))
    return got, failed, changed


def _scan_objects(local, objects, failed, check, storage_options):
    fetched, unread, changed = _fetch(objects, storage_options)
    return _scan_tables_mixed(local, fetched, failed + unread, check, changed)


def scan(paths, *, check=True, pyarrow=True, storage_options=None):
    """Scan map files, archives and directories into the six library tables.

    Returns a dict ``{name: table}`` in :data:`TABLES` order: ``pyarrow.Table`` objects when
    pyarrow is installed (and ``pyarrow`` is true), otherwise ``ArrowTable`` objects with
    ``__arrow_c_schema__`` / ``__arrow_c_array__``. Unreadable or hostile files become rows
    of ``problems`` (and ``maps`` rows with ``error`` set); the scan itself does not fail.
    ``check=False`` skips ``bsp check``'s problems (faster). URLs (``s3://bucket/maps/``)
    are listed and fetched with fsspec (``storage_options`` passed to it); their rows follow
    the local files'.
    """
    paths = _paths(paths)
    urls = [p for p in paths if is_url(p)]
    if urls:
        local = [p for p in paths if not is_url(p)]
        objects, failed = list_objects(urls, storage_options)
        raw = _scan_objects(local, objects, failed, check, storage_options)
    else:
        raw = _scan_tables(paths, check)
    if pyarrow:
        try:
            import pyarrow as pa
        except ImportError:
            pa = None
        if pa is not None:
            return {t.name: pa.Table.from_batches([pa.record_batch(t)]) for t in raw}
    return {t.name: t for t in raw}
