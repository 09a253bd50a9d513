"""``bspkit.scan``: a map library as Arrow tables (the tables of ``bsp scan --out``).

>>> tables = bspkit.scan(["maps/", "pak0.pk3"])          # {"maps": pyarrow.Table, ...}
>>> tables["entities"].filter(pc.field("classname") == "item_quad")

The rows are built in Rust and handed over through the Arrow C data interface without a copy.
pyarrow is optional: without it (or with ``pyarrow=False``) the values are ``ArrowTable``
objects implementing the Arrow PyCapsule interface, which polars, DuckDB and others read
directly. The columns are documented in README.md ("Library tables").
"""

import os

from ._bspkit import _scan_tables

#: The tables, in the order ``bsp scan --out`` writes them.
TABLES = ("maps", "entities", "textures", "props", "lumps", "problems")


def _paths(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    return [os.fsdecode(p) for p in paths]


def scan(paths, *, check=True, pyarrow=True):
    """Scan map files, archives and directories into the six library tables.

    Returns a dict ``{name: table}`` in :data:`TABLES` order: ``pyarrow.Table`` objects when
    pyarrow is installed (and ``pyarrow`` is true), otherwise ``ArrowTable`` objects with
    ``__arrow_c_schema__`` / ``__arrow_c_array__``. Unreadable or hostile files become rows
    of ``problems`` (and ``maps`` rows with ``error`` set); the scan itself does not fail.
    ``check=False`` skips ``bsp check``'s problems (faster).
    """
    raw = _scan_tables(_paths(paths), check)
    if pyarrow:
        try:
            import pyarrow as pa
        except ImportError:
            pa = None
        if pa is not None:
            return {t.name: pa.Table.from_batches([pa.record_batch(t)]) for t in raw}
    return {t.name: t for t in raw}
