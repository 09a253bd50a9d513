"""bspkit: read, write, edit and analyse ``.bsp`` maps of every engine family.

The Rust library ``bspkit`` does the work; this package is a thin binding over it.

>>> import bspkit
>>> bsp = bspkit.load("maps/e1m1.bsp")          # a path, bytes, or a binary file object
>>> bsp.branch, bsp.family, bsp.version
('quake1', 'quake', 29)
>>> bsp.PLANES[0].normal                          # records with named fields
[0.0, 0.0, 1.0]
>>> planes = bsp.PLANES.numpy()                   # zero-copy structured NumPy array
>>> [e["classname"] for e in bsp.search_all_entities(classname="light")][:1]
['light']
>>> bsp.ENTITIES[0].set("message", "hello")       # seen by the next search
>>> rgb = bsp.lightmap_atlases()[0]["rgb"]        # (height, width, 3) uint8 NumPy array
>>> bsp.save_as("out.bsp")                        # byte-identical when nothing changed

Errors are :class:`BspError` subclasses carrying ``kind``, ``file``, ``lump`` and ``offset``.
"""

from ._bspkit import (
    ArrayHolder,
    BadLumpLengthError,
    Bsp,
    BspError,
    DecompressError,
    Entity,
    GameLump,
    IoError,
    LimitExceededError,
    LumpOutOfBoundsError,
    MalformedError,
    Mesh,
    Model,
    NoSuchLumpError,
    PakFile,
    Polygon,
    Record,
    RecordLump,
    SURFACE_FLAGS,
    Scene,
    TruncatedError,
    UnknownBranchError,
    UnknownFormatError,
    UnsafePathError,
    UnsupportedVersionError,
    Vertex,
    archive_maps,
    formats,
    load,
    read_lmp,
)
from ._entities import EntityList
from ._tables import TABLES, scan

__version__ = "0.1.0"


def decompile(map_path, out=None, *, measure=True, standard=False, brushlist=True, clip_brushes=True,
              list_limit=100000):
    """Decompile the map at ``map_path`` to its editor source (``bsp decompile``); write it to
    ``out`` when given. ``standard`` / ``brushlist`` / ``clip_brushes``: Quake 1 family options
    (``--standard``, ``--no-brushlist``, ``--no-clip-brushes``); ``list_limit``: most rows in the
    report's ``brush_list`` / ``entity_list`` (``--list-limit``). Returns
    ``{"text", "extension", "report"}``."""
    return load(map_path).decompile(
        out, measure=measure, standard=standard, brushlist=brushlist, clip_brushes=clip_brushes,
        list_limit=list_limit,
    )

__all__ = [
    "TABLES",
    "archive_maps",
    "SURFACE_FLAGS",
    "scan",
    "BadLumpLengthError",
    "Bsp",
    "BspError",
    "DecompressError",
    "Entity",
    "EntityList",
    "GameLump",
    "IoError",
    "LimitExceededError",
    "LumpOutOfBoundsError",
    "MalformedError",
    "Mesh",
    "Model",
    "NoSuchLumpError",
    "PakFile",
    "Polygon",
    "Record",
    "RecordLump",
    "Scene",
    "TruncatedError",
    "UnknownBranchError",
    "UnknownFormatError",
    "UnsafePathError",
    "UnsupportedVersionError",
    "Vertex",
    "decompile",
    "formats",
    "load",
    "read_lmp",
]
