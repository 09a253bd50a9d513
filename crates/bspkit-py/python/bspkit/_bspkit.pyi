"""Type stubs of the compiled module ``bspkit._bspkit`` (re-exported by ``bspkit``)."""

import os
from types import SimpleNamespace
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Sequence, Tuple, Union, overload

PathLike = Union[str, "os.PathLike[str]"]
Buffer = Union[bytes, bytearray, memoryview]

class BspError(Exception):
    """Any error reading or writing a map."""

    kind: str
    """A stable name: ``io``, ``truncated``, ``unknown_format``, ``unsupported_version``,
    ``unknown_branch``, ``lump_out_of_bounds``, ``bad_lump_length``, ``no_such_lump``,
    ``decompress``, ``malformed``, ``limit_exceeded``, ``unsafe_path``."""
    file: Optional[str]
    """The file concerned, when known."""
    lump: Optional[str]
    """The lump concerned (``"1 (PLANES)"``), when known."""
    offset: Optional[int]
    """Byte offset of the damage, when known."""

class IoError(BspError): ...
class TruncatedError(BspError): ...
class UnknownFormatError(BspError): ...
class UnsupportedVersionError(BspError): ...
class UnknownBranchError(BspError): ...
class LumpOutOfBoundsError(BspError): ...
class BadLumpLengthError(BspError): ...
class NoSuchLumpError(BspError): ...
class DecompressError(BspError): ...
class MalformedError(BspError): ...
class LimitExceededError(BspError): ...
class UnsafePathError(BspError): ...

def load(
    source: Union[PathLike, Buffer, BinaryIO], branch: Optional[str] = None, external: bool = True, mmap: bool = False
) -> Bsp:
    """Open a map: ``source`` is a path (read into memory up to 256 MiB, memory-mapped above; a
    map inside a ``.pk3`` / ``.zip`` is named ``"archive.pk3!maps/x.bsp"``, see :func:`archive_maps`),
    bytes-like data (copied), or a binary file object (read, then copied). ``branch`` forces a
    branch id instead of detection; ``external=False`` ignores ``.lmp`` / ``.bsp_lump`` files
    beside the map; ``mmap=True`` memory-maps a path whatever its size (no copy, only the pages
    used are read; a file truncated by another process meanwhile can then end the interpreter
    with SIGBUS)."""

SURFACE_FLAGS: Dict[str, int]
"""Bit values of ``Model.numpy()["flags"]`` by the names ``Mesh.flags`` uses (``sky``,
``nodraw``, ``trigger``, ``water``, ``translucent``, ``clip``, ``tool``, ``alphatest``, ``hull``:
the walls of a box sealing the map, set only where an export's skip set names ``hull``)."""

def archive_maps(archive: PathLike) -> List[str]:
    """The maps (``.bsp`` / ``.d3dbsp`` entries) inside a ``.pk3`` / ``.zip`` archive, sorted;
    ``load(f"{archive}!{name}")`` opens one, as ``bsp`` commands do."""

def formats() -> List[Dict[str, str]]:
    """Every branch bspkit reads: ``[{"branch", "family", "title", "games"}]``."""

def read_lmp(data: Union[PathLike, Buffer]) -> Dict[str, Any]:
    """A Valve ``.lmp`` file: ``{"lump", "version", "revision", "offset", "length", "data"}``."""

class Bsp:
    """An opened map. Lumps are attributes and items by name (``bsp.PLANES``, ``bsp["PLANES"]``,
    ``bsp[1]``): record lumps are :class:`RecordLump`, the entity lump a list of
    :class:`Entity`, the Source pakfile a :class:`PakFile`, the game lump a :class:`GameLump`,
    other lumps ``bytes``."""

    @property
    def branch(self) -> str:
        """The branch id (``quake1``, ``source``, ``titanfall2``, …)."""
    @property
    def family(self) -> str:
        """``quake``, ``goldsrc``, ``quake2``, ``quake3``, ``source``, ``respawn``, ``cod`` or ``genesis3d``."""
    @property
    def version(self) -> int:
        """The format version from the header."""
    @property
    def endianness(self) -> str:
        """``"little"`` or ``"big"``."""
    @property
    def revision(self) -> Optional[int]:
        """The map revision (Source, Respawn)."""
    @property
    def path(self) -> Optional[str]:
        """The file path, when opened from one."""
    @property
    def detection(self) -> Dict[str, Any]:
        """Why this branch was chosen: ``{"branch", "version", "endianness", "why", "runners_up"}``."""
    @property
    def headers(self) -> List[SimpleNamespace]:
        """The lump directory (``index``, ``name``, ``offset``, ``length``, ``version``,
        ``compressed``, ``record_size``, ``count``, ``source``)."""
    @property
    def loading_errors(self) -> Dict[str, str]:
        """Lumps that cannot be read as their branch says: ``{name: message}``."""
    @property
    def ENTITIES(self) -> EntityList:
        """The entities, in lump order; edit them (or the list) and ``save_as``. Respawn
        ``.ent`` partitions are ``bsp.ENTITIES_<kind>`` (``ENTITIES_spawn``, ``ENTITIES_env``…)."""
    def __getattr__(self, name: str) -> Any: ...
    def __getitem__(self, key: Union[str, int]) -> Any: ...
    def __contains__(self, name: str) -> bool: ...
    def lump_names(self) -> List[str]:
        """Lump names in directory order."""
    def raw_lump(self, lump: Union[str, int], stored: bool = False) -> bytes:
        """A lump's bytes: decompressed, or as stored (``stored=True``)."""
    def decompress_all(self) -> int:
        """Decompress every compressed lump now, over all cores (largest first), instead of each
        on first use; returns the map's decompressed bytes. For reading every lump of a
        compressed (Xbox 360 / PS3) map; a lump that fails raises when read, as before."""
    def set_lump(self, lump: Union[str, int], data: Any) -> None:
        """Replace a lump's (decompressed) bytes: bytes-like data, or for a record lump a NumPy
        array of its record layout (``bsp.PLANES.dtype``; ValueError for another dtype or
        shape, :class:`BadLumpLengthError` for a length that is not whole records). Every read
        from now on sees it (records, arrays, ``raw_lump``, ``info()``, ``scene()``…);
        ``save_as`` / ``to_bytes`` write it."""
    def rename_texture(self, old: str, new: str) -> int:
        """Rename texture ``old`` to ``new`` wherever the map names it, in every family (Quake
        miptex, Quake 2 texinfo, Quake 3 shaders and fogs, Source / Respawn texture strings,
        CoD materials, Genesis3D textures; ASCII case ignored). Returns the number of names
        changed (0: none of that name); ValueError for a name too long for its field."""
    def search_all_entities(self, **key_values: Any) -> List[Entity]:
        """Entities whose keys have these values: ``search_all_entities(classname="light")``.
        Every condition must hold (values compared as ``str``; a repeated key matches on any
        of its values). Answered from a ``(key, value)`` index built on the first search and
        rebuilt after any edit of an entity or of ``bsp.ENTITIES``; returns the
        ``bsp.ENTITIES`` objects themselves, in list order, in a new list."""
    def to_bytes(self) -> bytes:
        """The map with every edit (the original bytes when nothing changed)."""
    def save_as(self, path: PathLike, *, fold_external: bool = False) -> None:
        """Write the map with every edit (atomically, reopened and checked first). A Respawn map
        opened with its external files is written as a set: ``.bsp``, ``.bsp_lump`` files and
        ``.ent`` partitions, with the edits made to ``bsp.ENTITIES_<kind>``;
        ``fold_external=True`` (``bsp rewrite --fold-external``) puts the external lumps into the
        one ``.bsp`` written."""
    def split_plan(self) -> List[Tuple[int, Optional[int]]]:
        """The lumps this Respawn map reads from ``.bsp_lump`` files: ``[(index, length or
        None)]``, as ``split_external`` takes them (folding then splitting gives the set back)."""
    def split_external(self, path: PathLike, lumps: Sequence[Union[int, Tuple[int, Optional[int]]]]) -> List[str]:
        """``bsp rewrite --split-external``: this Respawn ``.bsp`` (loaded from a file, unedited)
        written to ``path`` unchanged with a ``<path>.<xxxx>.bsp_lump`` for each listed lump (its
        in-file bytes, or their first ``length``); ``.ent`` partitions copied under the new name.
        Written as a set, reopened and checked. Returns the paths written, the ``.bsp`` last."""
    def convert(
        self,
        to: str,
        path: PathLike,
        *,
        endian: Optional[str] = None,
        lzma: str = "auto",
        strict: bool = False,
        prop_version: Optional[int] = None,
    ) -> Dict[str, Any]:
        """``bsp convert``: the map as loaded (edits not included) converted to branch ``to``,
        byte order ``endian`` ("big" console, "little" PC) and LZMA mode ``lzma`` ("auto", "keep",
        "on", "off"), written atomically to ``path`` after a check. Returns the report; with
        ``strict=True`` a lossy conversion raises (``kind == "lossy"``) and writes nothing;
        ``prop_version`` (Source) is the static prop game lump version to write."""
    def check(self, verify_lzma: bool = False) -> Dict[str, Any]:
        """``bsp check --json``'s object: ``{"path", "problems", "counts"}``; ``verify_lzma=True``
        decodes every LZMA lump (``bsp check --verify-lzma``)."""
    def info(self) -> Dict[str, Any]:
        """``bsp info --json``'s object."""
    def miptex(self) -> List[Dict[str, Any]]:
        """Quake / GoldSrc embedded textures (``index``, ``name``, ``width``, ``height``,
        ``embedded``, ``pixels``: mip 0 palette indices)."""
    def bspx(self) -> Dict[str, bytes]:
        """Quake BSPX lumps: ``{name: bytes}``."""
    def ent_partitions(self) -> Dict[str, EntityList]:
        """Respawn ``.ent`` partitions beside the map: ``{kind: EntityList}``, the same lists as
        ``bsp.ENTITIES_<kind>``; edits are written by ``save_as``."""
    def scene(self) -> Scene:
        """The map's geometry (every model), as ``export_gltf`` builds it: ``uv1`` is the
        exported ``TEXCOORD_1`` (lightmap UVs; empty for a map without baked lightmaps)."""
    def model(self, i: int) -> Model:
        """Model ``i``'s geometry (0 is the world)."""
    def lightmaps(self, png: bool = False, hdr: bool = False) -> List[Dict[str, Any]]:
        """Lightmap atlases: ``page``, ``placeholder`` (the map's lightmaps are black
        placeholders, ``Lightmaps::is_placeholder``, the same on every entry: show the map
        unlit), ``style``, ``layer``, ``width``, ``height``, ``shape``
        (``(height, width, 3)``), ``rgb`` (8-bit RGB bytes), and ``png`` with ``png=True``."""
    def lightmap_atlases(self, hdr: bool = False, stored: bool = False) -> List[Dict[str, Any]]:
        """Lightmap atlases as NumPy arrays (needs NumPy): ``page``, ``placeholder`` (as for
        ``lightmaps()``), ``style``, ``layer``,
        ``width``, ``height``, ``format``, ``overbright`` (the gamma-space brightness byte 255
        of ``rgb`` stands for: 255/128 for Quake-like sources, as ``bsp render`` multiplies the
        texture by it) and ``rgb``, a read-only ``(height, width, 3)`` uint8
        array (the bytes ``lightmaps()`` gives, handed over from Rust without a copy); with
        ``stored=True`` also ``stored``, a ``(height, width, 3)`` float32 array of the stored
        values (8-bit as ``byte / 255``, HDR samples exactly)."""
    def textures(
        self,
        png: bool = False,
        game_dirs: Sequence[PathLike] = ...,
        wads: Sequence[PathLike] = ...,
        palette: Optional[PathLike] = None,
    ) -> List[Dict[str, Any]]:
        """Textures the map carries or names, decoded to RGBA (``name``, ``width``, ``height``,
        ``shape`` (``(height, width, 4)``), ``rgba``, ``png``, ``alpha``: ``"opaque"``, ``"mask"``
        (with ``alpha_cutoff``) or ``"blend"``, as the glTF export's ``alphaMode``), or
        ``{"name", "missing"}``."""
    def texture_arrays(
        self,
        game_dirs: Sequence[PathLike] = ...,
        wads: Sequence[PathLike] = ...,
        palette: Optional[PathLike] = None,
    ) -> List[Dict[str, Any]]:
        """Textures as NumPy arrays (needs NumPy): ``name``, ``source``, ``width``, ``height``,
        ``rgba`` (read-only ``(height, width, 4)`` uint8, no copy) and ``hdr`` (``(height,
        width, 4)`` float32 for HDR sources, else None), ``alpha`` / ``alpha_cutoff`` as
        ``textures()``; or ``{"name", "missing"}``."""
    def decompile(self, path: Optional[PathLike] = None, *, measure: bool = True, standard: bool = False, brushlist: bool = True, clip_brushes: bool = True, list_limit: int = 100000) -> Dict[str, Any]:
        """Decompile as ``bsp decompile`` does; returns ``{"text", "extension", "report"}``, the
        report with ``brush_list`` / ``entity_list`` (every brush and entity measured, at most
        ``list_limit`` rows each, as ``--list-limit``)."""
    def export_gltf(
        self,
        path: PathLike,
        *,
        scale: float = 0.0254,
        models: str = "all",
        skip: Optional[Sequence[str]] = None,
        patch_level: Optional[int] = None,
        textures: bool = True,
        lightmaps: bool = True,
        hdr: bool = False,
        game_dirs: Sequence[PathLike] = ...,
        wads: Sequence[PathLike] = ...,
        palette: Optional[PathLike] = None,
        lightmap_mode: str = "occlusion",
    ) -> Dict[str, Any]:
        """Export the geometry as ``bsp export`` does: ``.glb``, ``.gltf`` (+ ``.bin``) or ``.obj``
        by ``path``'s extension; ``models`` is ``"all"`` or ``"world"``; ``skip`` names surface kinds
        to leave out (``None``: sky, nodraw, trigger, clip, tool; ``[]``: none); ``hdr`` also writes
        every lightmap page, style and layer beside the output (``.pfm`` + ``.png`` and a
        ``<name>_lightmaps.json`` manifest), as ``bsp export --hdr``; ``lightmap_mode`` is
        ``"occlusion"`` or ``"vertex"`` (the light in ``COLOR_0`` with unlit materials, visible in
        Blender's and three.js's default import), as ``--lightmap-mode``. Returns ``bsp export
        --json``'s summary (``files`` lists what was written)."""

class RecordLump(Sequence[Any]):
    """A lump of fixed-size records: :class:`Record` objects (plain ints/floats/bytes for
    lumps of values), and ``numpy()`` for a zero-copy structured array. Items are assignable
    (``lump[i] = record | dict | sequence | bytes``): the first edit copies the lump, and every
    read after sees the edits."""

    @property
    def name(self) -> str: ...
    @property
    def record_size(self) -> int: ...
    @property
    def plain(self) -> bool:
        """Items are plain numbers (or bytes): a lump of values, or records of one number."""
    @property
    def fields(self) -> List[str]:
        """Field names, snake_case (``num_edges``; ``["value"]`` for a lump of plain values)."""
    @property
    def aliases(self) -> Dict[str, str]:
        """``{old_name: name}``: earlier names that still work (``numedges`` → ``num_edges``),
        in records and as the NumPy dtype's field titles."""
    @property
    def dtype(self) -> Any:
        """The NumPy dtype of ``numpy()``: the layout ``set_lump`` checks arrays against."""
    @property
    def record_type(self) -> Optional[str]:
        """The Rust record struct's name (``Plane``, ``Face29``); None without a schema."""
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> List[Any]: ...
    def __setitem__(self, i: int, value: Any) -> None: ...
    def __iter__(self) -> Iterator[Any]: ...
    def numpy(self, writable: bool = False) -> Any:
        """A NumPy array of the lump, no copy; it keeps the map alive. Read-only over the map's
        bytes by default; ``writable=True``: a writable array over the map's copy of the lump
        (made on the first edit), whose writes are the map's lump (reads and ``save_as`` see them)."""

class Record:
    """One record: fields as attributes and items (``plane.normal``, ``plane["dist"]``), read
    from the lump as it is now, and assignable (``plane.dist = 64.0``, ``shader.name =
    "textures/x"``). Field names are snake_case; old names (``numedges``) are aliases.
    Fixed-size names (``char[N]``) read as ``str`` up to the NUL; ``<field>_bytes`` and
    ``_raw(field)`` give the bytes as stored."""

    @property
    def _fields(self) -> List[str]: ...
    @property
    def _type(self) -> str: ...
    def _asdict(self) -> Dict[str, Any]: ...
    def _bytes(self) -> bytes:
        """The record's bytes as they are now."""
    def _raw(self, field: str) -> bytes:
        """A field's bytes as stored (a name with what follows its NUL)."""
    def __getattr__(self, name: str) -> Any: ...
    def __setattr__(self, name: str, value: Any) -> None: ...
    def __getitem__(self, key: Union[str, int]) -> Any: ...
    def __setitem__(self, key: Union[str, int], value: Any) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...

class EntityList(List[Entity]):
    """``bsp.ENTITIES`` (and ``bsp.ENTITIES_<kind>``): a ``list`` of :class:`Entity` whose
    changing methods also tell the search index to rebuild."""

class Entity:
    """Ordered key/value pairs, duplicate keys kept (outputs)."""

    def __init__(self, pairs: Union[Dict[str, Any], Sequence[Tuple[str, Any]], None] = None, **kwargs: Any) -> None: ...
    def __getitem__(self, key: str) -> str:
        """The first value of ``key`` (KeyError when absent)."""
    def __setitem__(self, key: str, value: Any) -> None: ...
    def __delitem__(self, key: str) -> None:
        """Remove every pair with this key."""
    def __contains__(self, key: str) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def get_all(self, key: str) -> List[str]:
        """Every value of ``key``, in order."""
    def set(self, key: str, value: Any) -> None:
        """Set the first pair with ``key`` (appending one when there is none)."""
    def add(self, key: str, value: Any) -> None:
        """Append a pair (keys may repeat)."""
    def keys(self) -> List[str]: ...
    def items(self) -> List[Tuple[str, str]]: ...
    def pairs(self) -> List[List[str]]:
        """``[[key, value], ...]``, the shape ``bsp ents --json`` prints."""
    @property
    def classname(self) -> Optional[str]: ...

class PakFile:
    """The Source pakfile as a zipfile-like object; ``add`` / ``remove`` edit the map."""

    def namelist(self) -> List[str]: ...
    def infolist(self) -> List[Dict[str, Any]]: ...
    def read(self, name: str) -> bytes: ...
    def add(self, name: str, data: Buffer) -> None: ...
    def remove(self, name: str) -> None: ...
    def __contains__(self, name: str) -> bool: ...
    def __len__(self) -> int: ...

class GameLump:
    """The Source / Respawn game lump."""

    @property
    def lumps(self) -> List[Dict[str, Any]]:
        """Child lumps: ``id``, ``version``, ``flags``, ``offset``, ``length``."""
    @property
    def sprp(self) -> Optional[SimpleNamespace]:
        """Static props: ``version``, ``model_names``, ``leaves``, ``props`` (namespaces with
        ``origin``, ``angles``, ``model_name``, ``skin``, …)."""

class Scene:
    @property
    def models(self) -> List[Model]: ...
    @property
    def materials(self) -> List[str]: ...
    @property
    def skipped(self) -> List[Tuple[int, int, str]]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def props(self) -> List[Dict[str, Any]]:
        """Static props (Source ``sprp``, Respawn): ``model``, ``origin``, ``angles`` (pitch, yaw,
        roll degrees), ``scale``, ``skin``, ``solid``, ``fade``, ``lighting_origin`` (game units)."""
    @property
    def material_flags(self) -> List[List[str]]:
        """Each material's surface flags (names as ``SURFACE_FLAGS``), indexed like ``materials``."""

class Model:
    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def origin(self) -> List[float]: ...
    @property
    def angles(self) -> List[float]: ...
    @property
    def entity(self) -> Optional[int]:
        """Index in ``bsp.ENTITIES`` of the entity that places this model, if one does."""
    @property
    def meshes(self) -> List[Mesh]: ...
    def numpy(self) -> Dict[str, Any]:
        """Whole buffers: ``position``, ``normal``, ``uv0``, ``uv1`` (lightmap UVs: the
        exported ``TEXCOORD_1``), ``colour``, ``indices`` ((t, 3) uint32); and per triangle,
        from its surface: ``material`` (index into ``Scene.materials``), ``lightmap_page``
        (int32 page of ``lightmap_atlases()`` that ``uv1`` points into, -1 for none) and
        ``flags`` (uint32 bits of ``SURFACE_FLAGS``)."""

class Mesh:
    @property
    def material(self) -> Optional[str]: ...
    @property
    def material_index(self) -> int: ...
    @property
    def source(self) -> Tuple[int, int]: ...
    @property
    def kind(self) -> str: ...
    @property
    def flags(self) -> List[str]: ...
    @property
    def polygons(self) -> List[Polygon]: ...

class Polygon:
    @property
    def vertices(self) -> List[Vertex]: ...

class Vertex:
    @property
    def position(self) -> Optional[List[float]]: ...
    @property
    def normal(self) -> Optional[List[float]]: ...
    @property
    def uv0(self) -> Optional[List[float]]: ...
    @property
    def uv1(self) -> Optional[List[float]]: ...
    @property
    def colour(self) -> Optional[List[int]]: ...
    @property
    def index(self) -> int: ...

class ArrayHolder:
    """The base of the NumPy arrays bspkit returns: for ``RecordLump.numpy()`` it keeps the map
    alive; for ``lightmap_atlases()`` and ``texture_arrays()`` it owns the buffer made in Rust
    (no copy)."""

    def __len__(self) -> int:
        """Bytes of a buffer owned here (0 for a view over a map)."""
    @property
    def owns_buffer(self) -> bool: ...

class ArrowTable:
    """One table of :func:`bspkit.scan` as an Arrow record batch (PyCapsule interface)."""

    @property
    def name(self) -> str: ...
    @property
    def num_rows(self) -> int: ...
    def __len__(self) -> int: ...
    def __arrow_c_schema__(self) -> Any: ...
    def __arrow_c_array__(self, requested_schema: Any = None) -> Tuple[Any, Any]: ...

def _scan_tables(paths: Sequence[Union[str, os.PathLike]], check: bool = True) -> List[ArrowTable]: ...
def _list_map_files(paths: Sequence[Union[str, os.PathLike]]) -> List[str]: ...
def _scan_tables_mixed(
    paths: Sequence[Union[str, os.PathLike]],
    objects: Sequence[Tuple[str, bytes, int, int]],
    failed: Sequence[Tuple[str, str]],
    check: bool = True,
    changed: Sequence[Tuple[str, str]] = ...,
) -> List[ArrowTable]: ...
def _is_scanned_name(name: str) -> bool: ...
