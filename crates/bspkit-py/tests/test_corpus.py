"""Every corpus map through the Python package: load, every lump, NumPy views against the
record objects and the bytes, entities and info/check against the CLI, save_as byte-identical,
edits that reopen clean."""

import gc
import json
import pathlib
import subprocess
import sys

import pytest

import bspkit
from conftest import MAPS, run_child_with_peak

np = pytest.importorskip("numpy")

# Record lumps up to this many records are compared record by record in full; longer ones at
# 500 positions spread over the lump (their bytes are still compared whole).
FULL = 2000


def positions(n):
    if n <= FULL:
        return range(n)
    step = n / 500
    return sorted({int(i * step) for i in range(500)} | {n - 1})


def assert_equal_arrays(got, want):
    """`np.testing.assert_array_equal(got, want)`, asked only where `np.array_equal` (same
    shape, every element equal, NaN where the other has NaN) does not already say they are
    equal: where that says so, the assertion passes too. The assertion's own checks cost about
    0.4 ms a call, nearly half of `test_every_lump_and_numpy_view`'s time on genvs2
    (docs/setup-test-time.md, session 41)."""
    if not np.array_equal(got, want, equal_nan=True):
        np.testing.assert_array_equal(got, want)


def as_plain(v):
    """A NumPy field value as the record objects give it (lists, bytes, numbers)."""
    if isinstance(v, np.void) and v.dtype.names:
        return {k: as_plain(v[k]) for k in v.dtype.names}
    if isinstance(v, np.ndarray):
        if v.dtype.names:
            return [as_plain(x) for x in v]
        if v.dtype == np.uint8 and v.ndim == 1:
            return v.tobytes()
        return [as_plain(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


@pytest.mark.parametrize("path", MAPS)
def test_every_lump_and_numpy_view(path):
    bsp = bspkit.load(path)
    assert bsp.family in {"quake", "goldsrc", "quake2", "quake3", "source", "respawn", "cod", "genesis3d"}
    assert bsp.endianness in {"little", "big"}
    assert bsp.detection["why"]
    assert len(bsp.headers) == len(bsp.lump_names())
    assert bsp.loading_errors == {}
    records = 0
    for name in bsp.lump_names():
        lump = bsp[name]
        if not isinstance(lump, bspkit.RecordLump):
            continue
        raw = bsp.raw_lump(name)
        assert len(lump) * lump.record_size == len(raw)
        arr = lump.numpy()
        assert len(arr) == len(lump)
        assert not arr.flags.writeable
        assert isinstance(arr.base, bspkit.ArrayHolder) and not arr.base.owns_buffer
        # The array is the lump's bytes, not a copy of them: two views share one address.
        assert arr.tobytes() == raw
        if len(arr):
            assert lump.numpy().__array_interface__["data"][0] == arr.__array_interface__["data"][0]
        if lump.record_type is None:  # a record lump without a schema: bytes each
            for i in positions(len(lump)):
                assert lump[i] == raw[i * lump.record_size : (i + 1) * lump.record_size]
            continue
        assert arr.strides[0] == lump.record_size
        if lump.plain:
            for i in positions(len(lump)):
                assert lump[i] == as_plain(arr[i]), (name, i)
            continue
        assert list(arr.dtype.names) == lump.fields
        for i in positions(len(lump)):
            rec = lump[i]
            row = arr[i]
            for f in lump.fields:
                got = getattr(rec, f)
                if isinstance(got, str):
                    # A fixed-size name: the text up to the first NUL; the stored bytes are
                    # the array's, junk after the NUL included.
                    raw_name = rec._raw(f)
                    assert raw_name == row[f].tobytes() == getattr(rec, f + "_bytes"), (name, i, f)
                    assert got.encode("utf-8", "surrogateescape") == raw_name.split(b"\0")[0], (name, i, f)
                    continue
                if isinstance(got, bspkit.Record):
                    got = got._asdict()
                elif isinstance(got, list) and got and isinstance(got[0], (bspkit.Record, list)):
                    got = json.loads(json.dumps(got, default=lambda r: r._asdict()))
                want = as_plain(row[f])
                if isinstance(want, float) or (isinstance(want, list) and want and isinstance(want[0], float)):
                    assert_equal_arrays(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64))
                else:
                    assert got == want, (name, i, f)
            records += 1
    assert records > 0


@pytest.mark.parametrize("path", MAPS)
def test_entities_match_cli(path, cli):
    bsp = bspkit.load(path)
    out = subprocess.run([cli, "ents", "--json", str(path)], capture_output=True, check=True).stdout
    want = json.loads(out)
    got = [e.pairs() for e in bsp.ENTITIES]
    assert got == want


@pytest.mark.parametrize("path", MAPS)
def test_info_and_check_match_cli(path, cli):
    bsp = bspkit.load(path)
    info = json.loads(subprocess.run([cli, "info", "--json", str(path)], capture_output=True, check=True).stdout)
    got = bsp.info()
    assert got == info
    check = json.loads(subprocess.run([cli, "check", "--json", str(path)], capture_output=True).stdout)[0]
    got = bsp.check()
    assert got["problems"] == check["problems"]
    assert got["counts"] == check["counts"]


@pytest.mark.parametrize("path", MAPS)
def test_save_as_is_byte_identical(path, tmp_path):
    bsp = bspkit.load(path)
    out = tmp_path / pathlib.Path(path).name
    bsp.save_as(out)
    assert out.read_bytes() == pathlib.Path(path).read_bytes()
    assert bsp.to_bytes() == pathlib.Path(path).read_bytes()


@pytest.mark.parametrize("path", MAPS)
def test_mmap_load_reads_the_same(path, tmp_path):
    """`mmap=True` maps the file instead of reading it: the same lumps, entities and bytes."""
    read, mapped = bspkit.load(path), bspkit.load(path, mmap=True)
    assert mapped.lump_names() == read.lump_names()
    for name in read.lump_names():
        assert mapped.raw_lump(name, stored=True) == read.raw_lump(name, stored=True), name
    if "ENTITIES" in read:
        assert [e.items() for e in mapped.ENTITIES] == [e.items() for e in read.ENTITIES]
    out = tmp_path / pathlib.Path(path).name
    mapped.save_as(out)
    assert out.read_bytes() == pathlib.Path(path).read_bytes()


@pytest.mark.parametrize("path", MAPS)
def test_decompress_all_reads_the_same(path):
    """`decompress_all()` decodes every compressed lump at once: the lumps read the same as
    lumps decoded one by one, and it reports exactly the compressed lumps' decoded bytes."""
    eager, lazy = bspkit.load(path), bspkit.load(path)
    total = eager.decompress_all()
    compressed = [h.name for h in eager.headers if h.compressed and h.source == "file"]
    assert total == sum(len(lazy.raw_lump(n)) for n in set(compressed))
    assert eager.decompress_all() == total  # nothing left to do the second time
    for name in eager.lump_names():
        assert eager.raw_lump(name) == lazy.raw_lump(name), name
        lump = eager[name]
        if isinstance(lump, bspkit.RecordLump):
            assert lump.numpy().tobytes() == lazy.raw_lump(name), name


def test_decompress_all_keeps_a_broken_lump_for_its_reader(tmp_path):
    """A damaged LZMA lump does not stop `decompress_all()`: the others decode, and the
    damaged one raises its error when read, naming the lump."""
    path = next((p.values[0] for p in MAPS if p.values[0] is not None and "shack.360" in p.id), None)
    if path is None:
        pytest.skip("the corpus's Xbox 360 map is not here")
    data = bytearray(pathlib.Path(path).read_bytes())
    bsp = bspkit.load(bytes(data))
    target = max((h for h in bsp.headers if h.compressed and h.source == "file"), key=lambda h: h.length)
    good = {h.name: bsp.raw_lump(h.name) for h in bsp.headers if h.compressed and h.name != target.name}
    # The stream's body (after the 17-byte Valve header) overwritten: it no longer decodes.
    data[target.offset + 17 : target.offset + target.length] = b"\xff" * (target.length - 17)
    broken = bspkit.load(bytes(data))
    broken.decompress_all()
    for name, raw in good.items():
        assert broken.raw_lump(name) == raw, name
    with pytest.raises(bspkit.BspError) as e:
        broken.raw_lump(target.name)
    assert target.name in str(e.value)


@pytest.mark.parametrize("path", MAPS)
def test_entity_edit_reopens_clean(path, tmp_path):
    bsp = bspkit.load(path)
    ents = bsp.ENTITIES
    if not ents:
        pytest.skip("no entities")
    before = len(ents)
    ents[0].set("bspkit_test", "1")
    ents.append(bspkit.Entity(classname="info_null", targetname="bspkit_spot"))
    out = tmp_path / pathlib.Path(path).name
    bsp.save_as(out)  # reopened and checked by the library before it replaces `out`
    again = bspkit.load(out)
    assert len(again.ENTITIES) == before + 1
    assert again.ENTITIES[0]["bspkit_test"] == "1"
    assert [e.classname for e in again.search_all_entities(targetname="bspkit_spot")] == ["info_null"]
    assert again.loading_errors == {}


@pytest.mark.parametrize("path", MAPS)
def test_arrays_outlive_the_map(path):
    bsp = bspkit.load(path)
    lumps = [n for n in bsp.lump_names() if isinstance(bsp[n], bspkit.RecordLump) and len(bsp[n])]
    if not lumps:
        pytest.skip("no record lump")
    arr = bsp[lumps[0]].numpy()
    rec = bsp[lumps[0]][0]
    want = arr.tobytes()
    del bsp
    gc.collect()
    assert arr.tobytes() == want
    assert repr(rec)


def source_maps():
    return [p for p in MAPS if p.values[0] is not None and "source" in p.id and "x360" not in p.id]


@pytest.mark.parametrize("path", source_maps() or [pytest.param(None, marks=pytest.mark.skip(reason="no Source maps"))])
def test_source_extras(path, tmp_path):
    bsp = bspkit.load(path)
    if bsp.family != "source":
        pytest.skip(bsp.branch)
    sprp = bsp.GAME_LUMP.sprp
    if sprp is not None:
        for p in sprp.props:
            assert p.model_name in sprp.model_names
            assert len(p.origin) == 3
    pak = bsp.PAKFILE
    names = pak.namelist()
    for n in names[:3]:
        if not n.endswith("/"):
            assert isinstance(pak.read(n), bytes)
    pak.add("bspkit/test.txt", b"hello")
    assert "bspkit/test.txt" in pak
    out = tmp_path / "pak.bsp"
    bsp.save_as(out)
    again = bspkit.load(out, external=False)
    assert again.PAKFILE.read("bspkit/test.txt") == b"hello"
    assert again.PAKFILE.namelist() == names + ["bspkit/test.txt"]
    again.PAKFILE.remove("bspkit/test.txt")
    assert again.PAKFILE.namelist() == names


@pytest.mark.parametrize("path", MAPS)
def test_geometry_objects_match_buffers(path):
    bsp = bspkit.load(path)
    try:
        scene = bsp.scene()
    except bspkit.BspError as e:
        if "not built yet" in str(e):
            pytest.skip(f"{bsp.family} geometry not built yet")
        raise
    assert scene.models
    # The scene's own first model (`bsp.model(i)` would build the whole scene again).
    world = scene.models[0]
    bufs = world.numpy()
    tris = sum(len(m.polygons) for m in world.meshes)
    assert tris == len(bufs["indices"])
    pos = bufs["position"]
    for mesh in world.meshes[:200]:
        assert mesh.material in scene.materials
        for poly in mesh.polygons[:20]:
            for v in poly.vertices:
                assert_equal_arrays(np.asarray(v.position, dtype=np.float32), pos[v.index])
                if len(bufs["uv0"]):
                    assert_equal_arrays(np.asarray(v.uv0, dtype=np.float32), bufs["uv0"][v.index])


@pytest.mark.parametrize("path", source_maps()[:2] or [pytest.param(None, marks=pytest.mark.skip(reason="no Source maps"))])
def test_read_lmp(path, cli, tmp_path):
    bsp = bspkit.load(path)
    out = tmp_path / "x_l_0.lmp"
    subprocess.run([cli, "lump", "extract", str(path), "PLANES", "--lmp", "-o", str(out)], check=True, capture_output=True)
    lmp = bspkit.read_lmp(out)
    assert lmp["lump"] == bsp.lump_names().index("PLANES")
    assert lmp["data"] == bsp.raw_lump("PLANES")
    assert bspkit.read_lmp(out.read_bytes()) == lmp
    with pytest.raises(bspkit.BspError):
        bspkit.read_lmp(b"short")


@pytest.mark.parametrize("path", MAPS)
def test_search_matches_a_walk(path):
    """The indexed search gives what a walk over the entity list gives, for every map."""
    bsp = bspkit.load(path)
    ents = bsp.ENTITIES
    keys = [("classname", e.classname) for e in ents[:3] if e.classname]
    keys += [(k, v) for e in ents[1:40:7] for k, v in e.items()[:2]]
    for k, v in keys:
        got = bsp.search_all_entities(**{k: v})
        want = [e for e in ents if v in e.get_all(k)]
        assert got == want and all(a is b for a, b in zip(got, want)), (k, v)
    # Two conditions: the hit sets intersected, in list order (a large set with a small one,
    # and pairs of one entity, which hold together).
    for e in ents[1:60:5]:
        pairs = e.items()[:3]
        for (k1, v1), (k2, v2) in zip(pairs, pairs[1:]):
            if k1 == k2:
                continue
            got = bsp.search_all_entities(**{k1: v1, k2: v2})
            want = [x for x in ents if v1 in x.get_all(k1) and v2 in x.get_all(k2)]
            assert e in got and got == want and all(a is b for a, b in zip(got, want)), (k1, v1, k2, v2)
    if len(ents) > 1 and ents[1].classname:
        e = ents[1]
        e.set("bspkit_probe", "1")
        assert bsp.search_all_entities(classname=e.classname, bspkit_probe="1") == [e]
        del e["bspkit_probe"]
        assert bsp.search_all_entities(bspkit_probe="1") == []


def respawn_sets():
    out = []
    for p in MAPS:
        path = p.values[0]
        if path is not None and p.id.startswith("respawn/"):
            out.append(pytest.param(path, id=p.id))
    return out or [pytest.param(None, marks=pytest.mark.skip(reason="no Respawn maps"))]


def copy_set(path, dest):
    """The map and the files of its set (`.bsp_lump`, `.ent`) copied into `dest`."""
    path = pathlib.Path(path)
    stem = path.name[:-4]
    files = [f for f in path.parent.iterdir() if f.name == path.name or f.name.startswith(path.name + ".") or (f.name.startswith(stem + "_") and f.suffix == ".ent")]
    for f in files:
        (dest / f.name).write_bytes(f.read_bytes())
    return dest / path.name, sorted(f.name for f in files)


@pytest.mark.parametrize("path", respawn_sets())
def test_respawn_partitions_edit_and_save(path, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    copied, names = copy_set(path, src)
    before = {n: (src / n).read_bytes() for n in names}
    bsp = bspkit.load(copied)
    parts = bsp.ent_partitions()
    # Unchanged: save_as in place and under the same name elsewhere leaves every file of the set as it was.
    bsp.save_as(copied)
    assert {n: (src / n).read_bytes() for n in names} == before
    same = tmp_path / "same"
    same.mkdir()
    bsp.save_as(same / copied.name)
    for n in names:
        assert (same / n).read_bytes() == before[n], n
    if not parts:
        pytest.skip("no .ent partitions beside this map")
    kind, ents = next((k, v) for k, v in parts.items() if v)
    assert getattr(bsp, f"ENTITIES_{kind}") is ents
    assert bsp.ent_partitions()[kind] is ents
    with pytest.raises(AttributeError):
        bsp.ENTITIES_nosuchkind
    n = len(ents)
    ents[0].set("bspkit_test", "edited")
    ents.append(bspkit.Entity(classname="info_target", targetname="bspkit_spot"))
    # Under a new name: the renamed partition has the edit, the copy's files are untouched.
    out = tmp_path / "out"
    out.mkdir()
    new = out / "bspkit_new.bsp"
    bsp.save_as(new)
    again = bspkit.load(new)
    got = again.ent_partitions()[kind]
    assert len(got) == n + 1 and got[0]["bspkit_test"] == "edited" and got[-1]["targetname"] == "bspkit_spot"
    assert {n: (src / n).read_bytes() for n in names} == before
    # The other partitions are copied as they were.
    for k in parts:
        if k != kind:
            assert (out / f"bspkit_new_{k}.ent").read_bytes() == (src / f"{copied.name[:-4]}_{k}.ent").read_bytes()
    # In place: the partition's file is rewritten, every other file of the set kept.
    bsp.save_as(copied)
    edited = f"{copied.name[:-4]}_{kind}.ent"
    for n2 in names:
        if n2 != edited:
            assert (src / n2).read_bytes() == before[n2], n2
    assert bspkit.load(copied).ent_partitions()[kind][0]["bspkit_test"] == "edited"
    # Only the edited entities' text changed: the rest of the file is the same bytes.
    text = (src / edited).read_bytes()
    assert text.startswith(before[edited].split(b"\n", 1)[0])
    # A map opened without its external files cannot write partition edits: refused.
    alone = bspkit.load(copied, external=False)
    alone.ent_partitions()[kind][0].set("bspkit_test", "x")
    with pytest.raises(ValueError):
        alone.save_as(tmp_path / "alone.bsp")


def png_size(png):
    """(width, height) from a PNG's IHDR chunk."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@pytest.mark.parametrize("path", MAPS)
def test_image_arrays_match_bytes(path):
    bsp = bspkit.load(path)
    try:
        as_bytes = bsp.lightmaps(png=True)
    except bspkit.BspError as e:
        as_bytes = None
        with pytest.raises(bspkit.BspError):
            bsp.lightmap_atlases()
        assert str(e)
    if as_bytes is not None:
        arrays = bsp.lightmap_atlases(stored=True)
        assert len(arrays) == len(as_bytes)
        for d, a in zip(as_bytes, arrays):
            assert (a["page"], a["style"], a["layer"]) == (d["page"], d["style"], d["layer"])
            assert a["rgb"].shape == d["shape"] == (d["height"], d["width"], 3)
            assert png_size(d["png"]) == (d["width"], d["height"])
            assert a["rgb"].dtype == np.uint8 and a["rgb"].tobytes() == d["rgb"]
            assert a["stored"].shape == d["shape"] and a["stored"].dtype == np.float32
            if a["format"] == "rgb8":
                np.testing.assert_allclose(a["stored"], a["rgb"] / 255.0, rtol=1e-6)
            else:
                assert np.isfinite(a["stored"]).all() or a["format"] == "rgbexp32"
    tex_bytes = bsp.textures()
    tex_arrays = bsp.texture_arrays()
    assert [t["name"] for t in tex_arrays] == [t["name"] for t in tex_bytes]
    for d, a in zip(tex_bytes, tex_arrays):
        assert ("missing" in d) == ("missing" in a)
        if "missing" not in d:
            assert a["rgba"].shape == d["shape"] == (d["height"], d["width"], 4)
            assert a["rgba"].tobytes() == d["rgba"]
            assert not a["rgba"].flags.writeable
            if a["hdr"] is not None:
                assert a["hdr"].shape == d["shape"] and a["hdr"].dtype == np.float32


SOURCE_MAPS = [p for p in MAPS if p.id.startswith(("source/", "source_x360/"))]


@pytest.mark.parametrize("path", SOURCE_MAPS or MAPS[:1])
def test_convert_console_pc_matches_cli(path, cli, tmp_path):
    """`Bsp.convert` writes what `bsp convert` writes, with the same report, both ways."""
    if path is None:
        pytest.skip("no corpus")
    bsp = bspkit.load(path)
    endian = "little" if bsp.endianness == "big" else "big"
    out, cli_out, cli_report = tmp_path / "py.bsp", tmp_path / "cli.bsp", tmp_path / "cli.json"
    report = bsp.convert(bsp.branch, out, endian=endian)
    subprocess.run([cli, "convert", str(path), "--to", bsp.branch, "--endian", endian, "-o", str(cli_out),
                    "--report", str(cli_report)], capture_output=True, check=True)
    assert out.read_bytes() == cli_out.read_bytes()
    assert report == json.loads(cli_report.read_text())
    assert report["to"]["endian"] == endian
    back = bspkit.load(out)
    assert back.endianness == endian
    if report["lossless"]:
        again = tmp_path / "again.bsp"
        back.convert(bsp.branch, again, endian=bsp.endianness, lzma="keep")
        assert bspkit.load(again).endianness == bsp.endianness
    else:
        with pytest.raises(bspkit.BspError) as e:
            bsp.convert(bsp.branch, tmp_path / "strict.bsp", endian=endian, strict=True)
        assert e.value.kind == "lossy"
        assert not (tmp_path / "strict.bsp").exists()


@pytest.mark.parametrize("path", respawn_sets())
def test_respawn_set_folds_and_splits_back(path, cli, tmp_path):
    """`save_as(fold_external=True)` then `split_external(split_plan())` gives every file of a
    corpus `.bsp_lump` set back byte for byte, as `bsp rewrite --fold-external` /
    `--split-external` do (the same files as the CLI writes)."""
    src = tmp_path / "src"
    src.mkdir()
    copied, names = copy_set(path, src)
    bsp = bspkit.load(copied)
    plan = bsp.split_plan()
    if not plan:
        pytest.skip("no .bsp_lump files beside this map")
    assert all(isinstance(i, int) and (n is None or isinstance(n, int)) for i, n in plan)
    folded_dir, split_dir, cli_dir = tmp_path / "folded", tmp_path / "split", tmp_path / "cli"
    for d in (folded_dir, split_dir, cli_dir):
        d.mkdir()
    bsp.save_as(folded_dir / copied.name, fold_external=True)
    assert not any(f.name.endswith(".bsp_lump") for f in folded_dir.iterdir())
    folded = bspkit.load(folded_dir / copied.name)
    written = folded.split_external(split_dir / copied.name, plan)
    assert pathlib.Path(written[-1]) == split_dir / copied.name
    got = {f.name: f.read_bytes() for f in split_dir.iterdir()}
    assert sorted(got) == names
    for n in names:
        assert got[n] == (src / n).read_bytes(), n
    # The CLI's split of the same folded map writes the same files.
    spec = ",".join(f"{i:04x}" if n is None else f"{i:04x}:{n}" for i, n in plan)
    subprocess.run([cli, "rewrite", str(folded_dir / copied.name), "-o", str(cli_dir / copied.name), "--split-external", spec],
                   capture_output=True, check=True)
    assert {f.name: f.read_bytes() for f in cli_dir.iterdir()} == got
    with pytest.raises(ValueError, match="lump index"):
        folded.split_external(tmp_path / "bad.bsp", ["x"])
    # An edited map is not split (the split writes the map as loaded).
    folded.ENTITIES[0].set("bspkit_probe", "1")
    with pytest.raises(ValueError, match="as loaded"):
        folded.split_external(tmp_path / "edited.bsp", plan)
    assert not (tmp_path / "bad.bsp").exists() and not (tmp_path / "edited.bsp").exists()


@pytest.mark.parametrize("path", respawn_sets())
def test_convert_titanfall2_to_titanfall_matches_cli(path, cli, tmp_path):
    """`Bsp.convert("titanfall")` on a corpus Titanfall 2 map writes what `bsp convert` writes,
    with the same report; the result loads as Titanfall with the same entities; strict refuses."""
    bsp = bspkit.load(path)
    out, cli_out, cli_report = tmp_path / "py.bsp", tmp_path / "cli.bsp", tmp_path / "cli.json"
    report = bsp.convert("titanfall", out)
    subprocess.run([cli, "convert", str(path), "--to", "titanfall", "-o", str(cli_out), "--report", str(cli_report)],
                   capture_output=True, check=True)
    assert out.read_bytes() == cli_out.read_bytes()
    assert report == json.loads(cli_report.read_text())
    assert (report["from"]["version"], report["to"]["version"], report["lossless"]) == (37, 29, False)
    # The `.ent` partitions the converted map names are written beside it under its name.
    kinds = sorted(bsp.ent_partitions())
    assert sorted(f.name for f in tmp_path.glob("py_*.ent")) == [f"py_{k}.ent" for k in kinds]
    back = bspkit.load(out)
    assert back.branch == "titanfall"
    assert len(back.ENTITIES) == len(bsp.ENTITIES)
    assert sorted(back.ent_partitions()) == kinds
    assert back.check()["counts"]["warnings"] == 0
    with pytest.raises(bspkit.BspError) as e:
        bsp.convert("titanfall", tmp_path / "strict.bsp", strict=True)
    assert e.value.kind == "lossy" and not (tmp_path / "strict.bsp").exists()



@pytest.mark.parametrize("path", respawn_sets())
def test_convert_titanfall_to_xbox360_and_back(path, cli, tmp_path):
    """`Bsp.convert("titanfall_x360")` on a corpus Titanfall 2 map taken to Titanfall writes what
    `bsp convert` writes, with the same report; the console map loads as `titanfall_x360`, checks
    clean, has the PC form's entities and `.ent` partitions, and converts back byte for byte."""
    pc_path = tmp_path / "pc.bsp"
    bspkit.load(path).convert("titanfall", pc_path)
    pc = bspkit.load(pc_path)
    out, cli_out, cli_report = tmp_path / "x.bsp", tmp_path / "cli" / "x.bsp", tmp_path / "cli.json"
    cli_out.parent.mkdir()
    report = pc.convert("titanfall_x360", out)
    subprocess.run([cli, "convert", str(pc_path), "--to", "titanfall_x360", "-o", str(cli_out), "--report", str(cli_report)],
                   capture_output=True, check=True)
    assert out.read_bytes() == cli_out.read_bytes()
    assert report == json.loads(cli_report.read_text())
    assert (report["from"]["endian"], report["to"]["branch"], report["to"]["endian"]) == ("little", "titanfall_x360", "big")
    assert {l["kind"] for l in report["losses"]} == {"kept_unconverted"}
    x = bspkit.load(out)
    assert x.branch == "titanfall_x360"
    assert x.check()["counts"]["errors"] == 0
    assert len(x.ENTITIES) == len(pc.ENTITIES)
    assert sorted(x.ent_partitions()) == sorted(pc.ent_partitions())
    back = tmp_path / "back.bsp"
    x.convert("titanfall", back, endian="little")
    assert back.read_bytes() == pc_path.read_bytes()
    with pytest.raises(bspkit.BspError) as e:
        pc.convert("titanfall_x360", tmp_path / "strict.bsp", strict=True)
    assert e.value.kind == "lossy" and not (tmp_path / "strict.bsp").exists()
    with pytest.raises(bspkit.BspError) as e:
        x.convert("titanfall2", tmp_path / "two_steps.bsp")
    assert e.value.kind == "unsupported" and "titanfall (its PC form) first" in str(e.value)

QUAKE3_MAPS = [p for p in MAPS if p.id.startswith("quake3/")]
QUAKE3_SIBLINGS = ["quake3", "ibsp47", "quakelive", "rbsp", "fbsp"]


@pytest.mark.parametrize("path", QUAKE3_MAPS or MAPS[:1])
def test_convert_quake3_siblings_match_cli_and_come_back(path, cli, tmp_path):
    """`Bsp.convert` among the Quake 3 family writes what `bsp convert` writes, and back is the original."""
    if path is None or not path.parent.name == "quake3":
        pytest.skip("no corpus")
    bsp = bspkit.load(path)
    original = path.read_bytes()
    for to in QUAKE3_SIBLINGS:
        if to == bsp.branch:
            continue
        out, cli_out, cli_report = tmp_path / f"{to}.bsp", tmp_path / f"cli_{to}.bsp", tmp_path / f"{to}.json"
        report = bsp.convert(to, out, strict=True)
        subprocess.run([cli, "convert", str(path), "--to", to, "-o", str(cli_out), "--report", str(cli_report), "--strict"],
                       capture_output=True, check=True)
        assert out.read_bytes() == cli_out.read_bytes()
        assert report == json.loads(cli_report.read_text())
        assert report["lossless"] and report["to"]["branch"] == to
        back = tmp_path / f"{to}_back.bsp"
        bspkit.load(out, branch=to).convert(bsp.branch, back, strict=True)
        assert back.read_bytes() == original


DECOMPILED_FOLDERS = ("quake2", "quake3", "source", "source_x360", "cod", "respawn")
DECOMPILED = [p for p in MAPS if p.values[0] is not None and p.values[0].parent.name in DECOMPILED_FOLDERS]


def _check_rows(report, cli_report):
    """The report's per-brush and per-entity rows are the CLI's and add up to the quality's totals."""
    q = report["quality"]
    every, ents = report["brush_list"], report["entity_list"]
    assert every == cli_report["brush_list"] and ents == cli_report["entity_list"]
    assert len(every) == report["brush_list_total"]
    rows = [r for r in every if r["measured"]]
    assert len(rows) == q["brushes"]
    assert sum(r["same"] for r in rows) == q["brushes_same"]
    for key in ("sides", "sides_same_texture", "sides_with_axes"):
        assert sum(r[key] for r in rows) == q[key], key
    assert len(ents) == report["entity_list_total"] >= q["entities"]
    assert sum(e["same"] for e in ents) == q["entities_same"]
    assert sum(e["brushes"] for e in ents) == len(every)


@pytest.mark.parametrize("path", DECOMPILED or MAPS[-1:])
def test_decompile_matches_cli(path, cli, tmp_path):
    """`bspkit.decompile` gives the CLI's report and text, and writes the same file."""
    ext = "vmf" if path.parent.name.startswith("source") else "map"
    out = tmp_path / f"out.{ext}"
    got = bspkit.decompile(path, out)
    cli_out = tmp_path / f"cli.{ext}"
    report = subprocess.run([cli, "decompile", str(path), "-o", str(cli_out), "--json"], capture_output=True, check=True).stdout
    assert got["report"] == json.loads(report)
    assert got["extension"] == ext
    assert out.read_text() == got["text"] == cli_out.read_text()
    assert got["report"]["quality"]["brushes"] == got["report"]["quality"]["brushes_same"]
    _check_rows(got["report"], json.loads(report))
    assert all(r["from"] in ("brush_lump", "displacement") for r in got["report"]["brush_list"])
    # `list_limit` keeps the first rows and counts them all, as `--list-limit`.
    cut = bspkit.decompile(path, list_limit=1)["report"]
    assert cut["brush_list"] == got["report"]["brush_list"][:1]
    assert cut["brush_list_total"] == got["report"]["brush_list_total"]


TREE_DECOMPILED = [p for p in MAPS if p.values[0] is not None and p.values[0].parent.name in ("quake1", "goldsrc")]


@pytest.mark.parametrize("path", TREE_DECOMPILED or MAPS[-1:])
def test_decompile_tree_matches_cli(path, cli, tmp_path):
    """Quake 1 / GoldSrc: `bspkit.decompile` (brushes rebuilt from the tree, standard form)
    gives the CLI's report and text; the tree figures meet the issue's targets."""
    out = tmp_path / "out.map"
    got = bspkit.decompile(path, out, standard=True, brushlist=False)
    cli_out = tmp_path / "cli.map"
    report = subprocess.run([cli, "decompile", str(path), "-o", str(cli_out), "--json", "--standard", "--no-brushlist"],
                            capture_output=True, check=True).stdout
    assert got["report"] == json.loads(report)
    assert out.read_text() == got["text"] == cli_out.read_text()
    _check_rows(got["report"], json.loads(report))
    tree = got["report"]["quality"]["tree"]
    assert tree["source"] == "tree"
    assert tree["volume_error"] < 0.1
    assert got["report"]["quality"]["entities_in_order"]


CLIP_MAPS = [p for p in MAPS if p.id == "quake1/qbsp__lq_e0m4.bsp"]


@pytest.mark.parametrize("path", CLIP_MAPS or MAPS[:1])
def test_decompile_without_clip_brushes_matches_cli(path, cli, tmp_path):
    """`clip_brushes=False` is `--no-clip-brushes`: the same text and report as the CLI, and
    no clip brushes where the default recovers some from clip hull 1 (e0m4 has 2)."""
    if path is None or path.parent.name != "quake1":
        pytest.skip("no corpus")
    got = bspkit.decompile(path, tmp_path / "out.map", clip_brushes=False)
    report = subprocess.run([cli, "decompile", str(path), "-o", str(tmp_path / "cli.map"), "--json", "--no-clip-brushes"],
                            capture_output=True, check=True).stdout
    assert got["report"] == json.loads(report)
    assert (tmp_path / "out.map").read_text() == got["text"] == (tmp_path / "cli.map").read_text()
    assert got["report"]["quality"]["tree"]["clip_brushes"] == 0
    with_clip = bspkit.decompile(path, measure=False)
    assert with_clip["report"]["brushes"] > got["report"]["brushes"]


SOURCE_VERSION_MAPS = [p for p in MAPS if p.id in ("source/bsp_tool__tf2_mp_lobby.bsp", "source/bsp_tool__tf2_test2.bsp")]


@pytest.mark.parametrize("path", SOURCE_VERSION_MAPS or MAPS[:1])
def test_convert_source_versions_match_cli(path, cli, tmp_path):
    """`Bsp.convert` moving a Source map to v21 / v19 and to another static prop version writes
    what `bsp convert` writes, with the same report; a lossless move comes back byte-identical."""
    if path is None or path.parent.name != "source":
        pytest.skip("no corpus")
    bsp = bspkit.load(path)
    for to, props in (("csgo", None), ("l4d2", 8), ("source2004", None)):
        out, cli_out, cli_report = tmp_path / f"{to}.bsp", tmp_path / f"cli_{to}.bsp", tmp_path / f"{to}.json"
        report = bsp.convert(to, out, prop_version=props)
        args = [cli, "convert", str(path), "--to", to, "-o", str(cli_out), "--report", str(cli_report)]
        if props is not None:
            args += ["--prop-version", str(props)]
        subprocess.run(args, capture_output=True, check=True)
        assert out.read_bytes() == cli_out.read_bytes()
        assert report == json.loads(cli_report.read_text())
        assert report["to"]["version"] == (19 if to == "source2004" else 21)
        if report["lossless"]:
            back = tmp_path / f"{to}_back.bsp"
            bspkit.load(out, branch=to).convert("source", back, strict=True, prop_version=10)
            assert back.read_bytes() == path.read_bytes()
    with pytest.raises(bspkit.BspError) as e:
        bsp.convert("source", tmp_path / "bad.bsp", prop_version=9)
    assert e.value.kind == "unsupported"
    assert not (tmp_path / "bad.bsp").exists()


def _png_claiming(width, height, rows=16):
    """A PNG whose header claims `width` x `height` RGB pixels, followed by only the first
    `rows` rows of its data (PNG spec: signature, IHDR, IDAT zlib stream, IEND): what a
    decoder without a limit sizes its output buffer from, at a few hundred bytes."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * (rows * (1 + 3 * width)), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


QUAKE3_MAP = next((p.values[0] for p in MAPS if p.values[0] is not None and p.values[0].name == "bsp_tool__q3_mp_lobby.bsp"), None)


@pytest.mark.skipif(QUAKE3_MAP is None, reason="the Quake 3 corpus map is not here (BSPKIT_CORPUS)")
def test_oversized_png_in_a_pk3_is_a_budget_miss_in_python(tmp_path):
    """Issue 23: a small pk3 holding a PNG that claims 32768 x 32767 pixels took export to
    4.25 GB. In Python, `textures()` and `texture_arrays()` with that pk3 in a game folder
    give the texture as a miss naming the budget, in a child interpreter that exits normally
    at a peak memory far below the 3.2 GB the image asks for; the other textures still come."""
    import zipfile

    names = [t["name"] for t in bspkit.load(QUAKE3_MAP).textures()]
    target = next(n for n in names if n.startswith("textures/"))
    game = tmp_path / "baseq3"
    game.mkdir()
    with zipfile.ZipFile(game / "zzz_big.pk3", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(target + ".png", _png_claiming(32768, 32767))
    assert (game / "zzz_big.pk3").stat().st_size < 40_000
    code = (
        "import bspkit\n"
        f"b = bspkit.load({str(QUAKE3_MAP)!r})\n"
        "for f in (b.textures, b.texture_arrays):\n"
        f"    t = {{d['name']: d for d in f(game_dirs=[{str(game)!r}])}}\n"
        f"    print(len(t), t[{target!r}].get('missing', 'FOUND'))\n"
    )
    lines, peak_mib = run_child_with_peak(code)
    assert len(lines) == 2, lines
    for line in lines:
        count, reason = line.split(" ", 1)
        assert int(count) == len(set(names)), line
        # The per-image texel cap, naming the texels the header claims (32768 x 32767).
        assert "budget" in reason.lower() and str(32768 * 32767) in reason, line
    print(f"{target}.png claiming 32768x32767: {lines[0]}; peak {peak_mib:.1f} MiB")
    assert peak_mib < 1000, peak_mib
