"""The library scan as a Dask distributed job: the files are listed once, split into
contiguous chunks, each chunk is scanned by a worker (``bspkit.scan`` on that worker, reading
the files from a path every worker sees: a shared file system), and the chunk tables are
merged in order with the same deduplication as the single-process scan, so the result is
the same tables. URLs (``s3://bucket/maps/``, any fsspec file system) are listed once by the
client and each worker fetches its chunk's objects itself (bytes in, the same rows as
``bspkit.scan`` of those URLs); ``storage_options`` (credentials, ``endpoint_url``) travel with
the tasks. Written as Parquet with pyarrow, one file per table, like
``bsp scan --out DIR``.

>>> from dask.distributed import Client
>>> client = Client("scheduler:8786")        # or Client(LocalCluster(n_workers=4))
>>> tables = bspkit.distributed.scan(["/shared/maps"], client, out="/shared/lib")

Needs ``dask[distributed]`` and ``pyarrow`` (and bspkit) on the client and every worker.
"""

import os

from . import _tables
from ._bspkit import _list_map_files


def _scan_chunk(files, check):
    # Runs on a worker: pyarrow tables travel back pickled (Arrow IPC buffers).
    import bspkit

    return bspkit.scan(files, check=check)


def _scan_object_chunk(objects, check, storage_options):
    # Runs on a worker: fetch this chunk's objects from the store, scan their bytes.
    import pyarrow as pa

    from bspkit import _tables as t

    raw = t._scan_objects([], objects, [], check, storage_options)
    return {x.name: pa.Table.from_batches([pa.record_batch(x)]) for x in raw}


def list_files(paths):
    """Every map and archive below ``paths``, sorted (what ``bsp scan`` would read)."""
    return _list_map_files(_tables._paths(paths))


def merge(chunks):
    """Merge the tables of chunks scanned in file order: ``maps`` rows all kept; the content
    tables keep a map's rows from the first chunk that holds it; ``problems`` keeps every file
    problem (no ``map_sha256``) and content problems once."""
    import pyarrow as pa
    import pyarrow.compute as pc

    seen = pa.array([], pa.string())
    out = {name: [] for name in _tables.TABLES}
    for tables in chunks:
        out["maps"].append(tables["maps"])
        for name in _tables.TABLES[1:]:
            t = tables[name]
            new = pc.invert(pc.is_in(t["map_sha256"], value_set=seen))
            if name == "problems":
                new = pc.or_(pc.is_null(t["map_sha256"]), new)
            out[name].append(t.filter(pc.fill_null(new, True)))
        shas = pc.drop_null(tables["maps"]["sha256"])
        seen = pa.concat_arrays([seen, shas.combine_chunks() if hasattr(shas, "combine_chunks") else shas])
    return {name: pa.concat_tables(ts) for name, ts in out.items()}


def _split(items, chunks):
    size = max(1, -(-len(items) // chunks))
    return [items[i : i + size] for i in range(0, len(items), size)]


def scan(paths, client, *, out=None, chunks=None, check=True, storage_options=None):
    """Scan ``paths`` (directories, maps, archives on a path every worker can read, or URLs of
    an object store every worker can reach) on the Dask cluster of ``client``; return the
    merged pyarrow tables and, with ``out``, write them there as ``NAME.parquet``. ``chunks``:
    how many tasks (default: 4 per worker)."""
    import pyarrow as pa

    all_paths = _tables._paths(paths)
    urls = [p for p in all_paths if _tables.is_url(p)]
    local = [p for p in all_paths if not _tables.is_url(p)]
    files = list_files(local) if local else []
    # Paths that are not listed (missing roots, unreadable directories) are scanned by the
    # client after the chunks so their problems rows appear as in the single-process scan.
    listed = set(files)
    rest = [p for p in local if p not in listed and not os.path.isdir(p)]
    objects, unlisted = _tables.list_objects(urls, storage_options) if urls else ([], [])
    if chunks is None:
        chunks = max(1, 4 * len(client.scheduler_info().get("workers", {}) or [1]))
    futures = client.map(_scan_chunk, _split(files, chunks), check=check, pure=False) if files else []
    if rest:
        futures.append(client.submit(_tables.scan, rest, check=check, pure=False))
    if objects:
        object_parts = _split(objects, chunks)
        futures += client.map(_scan_object_chunk, object_parts, check=check, storage_options=storage_options, pure=False)
    parts = client.gather(futures)
    if unlisted:
        raw = _tables._scan_tables_mixed([], [], unlisted, check)
        parts.append({x.name: pa.Table.from_batches([pa.record_batch(x)]) for x in raw})
    if not parts:
        parts = [_tables.scan([], check=check)]
    tables = merge(parts)
    if out is not None:
        write(tables, out)
    return tables


def write(tables, out):
    """Write the tables as ``OUT/NAME.parquet`` (Snappy, like ``bsp scan --out``)."""
    import pyarrow.parquet as pq

    os.makedirs(out, exist_ok=True)
    for name, t in tables.items():
        pq.write_table(t, os.path.join(out, f"{name}.parquet"), compression="snappy")
