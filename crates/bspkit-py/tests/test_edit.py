"""Editing from Python as bsp_tool users do (assign record fields, write NumPy arrays, replace
lumps, rename a texture, move an entity), then save, reopen with the `bsp` CLI and compare;
reads after an edit see it; names as text; snake_case field names with the old ones as aliases;
lightmap UVs (`uv1`) against the glTF export's TEXCOORD_1."""

import json
import pathlib
import struct
import subprocess

import pytest

import bspkit
from conftest import MAPS, SAMPLE

np = pytest.importorskip("numpy")


@pytest.fixture
def sample():
    return bspkit.load(SAMPLE)


def run_json(cli, *args):
    return json.loads(subprocess.run([cli, *map(str, args)], capture_output=True, check=False).stdout)


def extract(cli, path, lump, tmp_path):
    out = tmp_path / f"{lump}.bin"
    subprocess.run([cli, "lump", "extract", str(path), lump, "-o", str(out)], check=True, capture_output=True)
    return out.read_bytes()


# ---------------------------------------------------------------------------------------------
# Records and arrays on the sample map


def test_assign_a_plane_save_and_reload_with_the_cli(sample, tmp_path, cli):
    before = sample.PLANES[0]
    old = before.dist
    before.dist = old + 16
    before.normal = (0.0, 0.0, 1.0)
    # Every read sees the edit: the record objects (new and old), the arrays, the raw lump.
    assert sample.PLANES[0].dist == old + 16 == before.dist
    assert sample.PLANES[0].normal == [0.0, 0.0, 1.0]
    assert sample.PLANES.numpy()["dist"][0] == np.float32(old + 16)
    raw = sample.raw_lump("PLANES")
    assert struct.unpack_from("<4f", raw, 0) == (0.0, 0.0, 1.0, old + 16)
    out = tmp_path / "plane.bsp"
    sample.save_as(out)
    assert extract(cli, out, "PLANES", tmp_path) == raw
    orig = run_json(cli, "check", "--json", SAMPLE)[0]["counts"]
    assert run_json(cli, "check", "--json", out)[0]["counts"]["errors"] == orig["errors"]
    again = bspkit.load(out)
    assert again.PLANES[0].dist == old + 16
    # Only that record changed.
    assert again.raw_lump("PLANES")[20:] == bspkit.load(SAMPLE).raw_lump("PLANES")[20:]


def test_writable_array_is_the_map_lump(sample):
    view = sample.VERTICES.numpy()  # read-only, over the map as loaded
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = view[1]
    w = sample.VERTICES.numpy(writable=True)
    assert w.flags.writeable and w.flags.c_contiguous
    first = w[0].copy()
    w[0] = w[1]
    w["point"][2] += 8  # a whole field at once
    assert sample.VERTICES[0] == sample.VERTICES[1]
    assert sample.VERTICES[2].point == [float(x) for x in w["point"][2]]
    assert sample.raw_lump("VERTICES") == w.tobytes()
    assert view[0] == first, "an array taken before the first edit keeps the map as loaded"
    # A record assignment shows in the writable array (one buffer).
    sample.VERTICES[3].point = (1, 2, 3)
    assert list(w["point"][3]) == [1.0, 2.0, 3.0]
    assert bspkit.load(sample.to_bytes()).VERTICES.numpy().tobytes() == w.tobytes()


def test_record_items_assign(sample):
    lump = sample.PLANES
    lump[1] = lump[0]  # a record of the type
    assert lump[1] == lump[0]
    lump[2] = {"normal": [1, 0, 0], "dist": 5, "kind": 0}  # a dict of every field
    assert (lump[2].normal, lump[2].dist, lump[2].kind) == ([1.0, 0.0, 0.0], 5.0, 0)
    lump[3] = ([0, 1, 0], 6, 1)  # the fields in order
    assert lump[3]._asdict() == {"normal": [0.0, 1.0, 0.0], "dist": 6.0, "kind": 1}
    lump[-1] = lump[3]._bytes()  # its bytes
    assert lump[len(lump) - 1] == lump[3]
    lump[4]["dist"] = 7
    assert lump[4].dist == 7
    with pytest.raises(KeyError):
        lump[2] = {"normal": [1, 0, 0], "dist": 5}
    with pytest.raises(IndexError):
        lump[len(lump)] = lump[0]
    surfedges = sample.SURFEDGES  # a lump of plain values
    surfedges[0] = -surfedges[0]
    assert sample.SURFEDGES.numpy()[0] == surfedges[0]


def test_assignment_errors_say_what_is_wrong(sample):
    plane = sample.PLANES[0]
    with pytest.raises(AttributeError, match="Plane has no field 'distance' \\(fields: normal, dist, kind\\)"):
        plane.distance = 1
    with pytest.raises(ValueError, match="Plane.dist"):
        plane.dist = "far"
    with pytest.raises(ValueError, match="2 values for a field of 3"):
        plane.normal = (0, 1)
    with pytest.raises(ValueError, match="Plane.kind"):
        plane.kind = 2**40
    tex = sample.TEXINFO[0]
    with pytest.raises(ValueError, match="TexInfo.miptex"):
        tex.miptex = 2**33
    # The range in words (it said "is not a i32").
    with pytest.raises(ValueError, match="8589934592 is not an integer from -2147483648 to 2147483647 \\(i32\\)"):
        tex.miptex = 2**33
    with pytest.raises(TypeError, match="TexInfo.vecs takes a sequence of 2 values"):
        tex.vecs = 3
    assert sample.to_bytes() == SAMPLE.read_bytes(), "failed assignments change nothing"


def test_set_lump_from_an_array_checks_the_layout_and_reads_see_it(sample, tmp_path, cli):
    planes = sample.PLANES.numpy().copy()
    planes["dist"] += 1
    sample.set_lump("PLANES", planes)
    assert sample.PLANES[0].dist == planes["dist"][0]
    assert sample.raw_lump("PLANES") == planes.tobytes()
    fewer = planes[:-1]
    sample.set_lump("PLANES", fewer)
    assert len(sample.PLANES) == len(planes) - 1
    assert sample.PLANES.numpy().tobytes() == fewer.tobytes()
    # Whole-map reads see the replaced lump too (issue 23: they used to read the map as loaded).
    infos = {l["name"]: l for l in sample.info()["lumps"]}
    assert infos["PLANES"]["count"] == len(fewer)
    # The layout is checked: another dtype, another shape, a length that is not whole records.
    with pytest.raises(ValueError, match="record layout"):
        sample.set_lump("PLANES", np.zeros(len(planes) * 5, dtype="<f4"))
    with pytest.raises(ValueError, match="record layout"):
        sample.set_lump("PLANES", planes.reshape(-1, 1))
    with pytest.raises(bspkit.BadLumpLengthError):
        sample.set_lump("PLANES", planes.tobytes()[:-3])
    # Without titles (a dtype spelled out by hand) the layout still matches.
    plain = np.dtype([("normal", "<f4", (3,)), ("dist", "<f4"), ("kind", "<i4")])
    sample.set_lump("PLANES", planes.view(plain))
    assert sample.raw_lump("PLANES") == planes.tobytes()
    out = tmp_path / "planes.bsp"
    sample.save_as(out)
    assert extract(cli, out, "PLANES", tmp_path) == planes.tobytes()


def test_records_left_behind_by_a_shorter_lump_raise(sample):
    last = sample.PLANES[len(sample.PLANES) - 1]
    sample.set_lump("PLANES", sample.raw_lump("PLANES")[:20])
    with pytest.raises(IndexError, match="past the end"):
        last.dist
    with pytest.raises(IndexError, match="past the end"):
        last.dist = 1


def test_move_an_entity_and_rename_a_texture_then_compare_with_the_cli(sample, tmp_path, cli):
    start = sample.search_all_entities(classname="info_player_start")[0]
    start["origin"] = "16 32 48"
    old = sample.miptex()[0]["name"]
    assert sample.rename_texture(old.upper(), "bspkit_new") == 1
    assert sample.miptex()[0]["name"] == "bspkit_new"  # read back at once
    with pytest.raises(ValueError, match="holds 15 and a NUL"):
        sample.rename_texture("bspkit_new", "x" * 16)
    assert sample.rename_texture("no_such_texture", "y") == 0
    out = tmp_path / "moved.bsp"
    sample.save_as(out)
    ents = run_json(cli, "ents", "--json", out)
    starts = [dict(e) for e in ents if dict(e).get("classname") == "info_player_start"]
    assert starts[0]["origin"] == "16 32 48"
    listed = [t["name"] for t in run_json(cli, "miptex", "--json", out)]
    assert listed[0] == "bspkit_new"


# ---------------------------------------------------------------------------------------------
# Names and field names


def corpus(family):
    return [p for p in MAPS if p.values[0] is not None and p.id.startswith(family + "/")]


@pytest.mark.parametrize("path", corpus("quake2") + corpus("quake3") + corpus("cod") + corpus("genesis3d") or [pytest.param(None, marks=pytest.mark.skip(reason="no corpus"))])
def test_names_on_the_corpus(path, tmp_path):
    bsp = bspkit.load(path)
    lump, field = {"quake2": ("TEXINFO", "texture"), "quake3": ("SHADERS", "name"), "cod": ("MATERIALS", "name"), "genesis3d": ("TEXTURES", "name")}[bsp.family]
    recs = bsp[lump]
    if not len(recs):
        pytest.skip("no records")
    rec = recs[0]
    text = getattr(rec, field)
    raw = rec._raw(field)
    assert isinstance(text, str) and "\0" not in text
    assert raw == getattr(rec, field + "_bytes") == recs.numpy()[field][0].tobytes()
    assert text.encode() == raw.split(b"\0")[0]
    size = len(raw)
    with pytest.raises(ValueError, match=f"holds {size - 1} and a NUL"):
        setattr(rec, field, "x" * size)
    setattr(rec, field, "bspkit/x")
    assert getattr(rec, field) == "bspkit/x"
    assert rec._raw(field) == b"bspkit/x".ljust(size, b"\0")
    setattr(rec, field, b"bspkit/y")  # bytes, padded with NULs
    assert getattr(rec, field) == "bspkit/y"
    with pytest.raises(ValueError, match=f"{len(raw) + 1} bytes for a field of {size}"):
        setattr(rec, field, b"x" * (size + 1))
    # A value of the wrong type says what the field takes (it said "'int' object is not iterable").
    with pytest.raises(TypeError, match=f"takes str or bytes \\(at most {size - 1} bytes and a NUL\\), not int"):
        setattr(rec, field, 3)
    setattr(rec, field + "_bytes", raw)  # the stored bytes back, junk included
    assert bsp.to_bytes() == pathlib.Path(path).read_bytes()


def test_snake_case_field_names_with_the_old_ones_as_aliases():
    source = [p for p in MAPS if p.values[0] is not None and p.id.startswith("source/") and "360" not in p.id]
    if not source:
        pytest.skip("set BSPKIT_CORPUS for a Source map")
    bsp = bspkit.load(source[0].values[0])
    faces = bsp.FACES
    assert "num_edges" in faces.fields and "numedges" not in faces.fields
    assert faces.aliases["numedges"] == "num_edges"
    arr = faces.numpy()
    assert (arr["num_edges"] == arr["numedges"]).all()  # the old name is the field's title
    assert arr["num_edges"].sum() > 0  # the README's example
    face = faces[0]
    assert face.num_edges == face.numedges == face["numedges"] == face["num_edges"]
    assert "num_edges" in face._fields and "num_edges" in face._asdict()
    face.numedges = face.num_edges  # assignable under either name
    assert bsp.to_bytes() == pathlib.Path(source[0].values[0]).read_bytes()


# ---------------------------------------------------------------------------------------------
# Every corpus map: rename a texture, save, compare with the CLI


def cli_texture_names(cli, path):
    d = run_json(cli, "textures", "--json", path)
    return sorted({t["name"].lower() for t in d["textures"] + d["missing"]})


@pytest.mark.parametrize("path", MAPS)
def test_rename_texture_every_family(path, tmp_path, cli):
    bsp = bspkit.load(path)
    listed = cli_texture_names(cli, path)
    names = [n for n in listed if n and n != "noshader"]
    if not names:
        pytest.skip("the map names no texture")
    # The first listed name the map itself holds (Source lists pakfile cubemaps too).
    new = "bspkit/renamed"
    for old in names:
        n = bsp.rename_texture(old, new)
        if n:
            break
    assert n >= 1, names
    out = tmp_path / pathlib.Path(path).name
    bsp.save_as(out)  # reopened and checked by the library first
    got = cli_texture_names(cli, out)
    # `listed`: the original map's names as listed above (the same file and binary list the same).
    assert got == sorted((set(names) - {old}) | {new} | (set(listed) - set(names)))
    before = run_json(cli, "check", "--json", path)[0]["counts"]
    after = run_json(cli, "check", "--json", out)[0]["counts"]
    assert after["errors"] <= before["errors"], (before, after)


# ---------------------------------------------------------------------------------------------
# Lightmap UVs


def glb_attribute(path, name):
    """Every primitive's `name` attribute of a GLB, concatenated (float32 VEC2)."""
    data = pathlib.Path(path).read_bytes()
    (jlen,) = struct.unpack_from("<I", data, 12)
    doc = json.loads(data[20 : 20 + jlen])
    binary = data[20 + jlen + 8 :]
    rows, found = [], False
    for mesh in doc.get("meshes", []):
        for prim in mesh["primitives"]:
            if name not in prim["attributes"]:
                continue
            found = True
            acc = doc["accessors"][prim["attributes"][name]]
            assert acc["componentType"] == 5126 and acc["type"] == "VEC2"
            view = doc["bufferViews"][acc["bufferView"]]
            start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
            stride = view.get("byteStride", 8)
            for i in range(acc["count"]):
                rows.append(struct.unpack_from("<2f", binary, start + i * stride))
    return found, rows


LIGHTMAP_UV_FAMILIES = {"quake", "goldsrc", "quake2", "quake3", "source", "respawn", "genesis3d", "cod"}


@pytest.mark.parametrize("path", MAPS)
def test_uv1_is_the_exported_texcoord_1(path, tmp_path):
    bsp = bspkit.load(path)
    scene = bsp.scene()
    if not scene.models:
        pytest.skip("no geometry")
    # The scene's first model is what `bsp.model(scene.models[0].index)` would build again (a
    # second build of the whole scene; test_uv1_filled_in_every_family_that_bakes_lightmaps
    # reads `model(i)` itself).
    world = scene.models[0].numpy()
    glb = tmp_path / "m.glb"
    bsp.export_gltf(glb, models="world", skip=[], textures=False, lightmaps=True)
    found, rows = glb_attribute(glb, "TEXCOORD_1")
    uv1 = world["uv1"]
    if not found:
        assert len(uv1) == 0 or not uv1.any(), "uv1 without TEXCOORD_1 in the export"
        return
    assert bsp.family in LIGHTMAP_UV_FAMILIES
    assert uv1.shape == (len(world["position"]), 2)
    # The export writes the vertices triangles use (a face's collinear points are left out).
    used = np.unique(world["indices"])
    ours = set(map(tuple, uv1[used].astype(np.float32).tolist()))
    theirs = set(map(tuple, np.asarray(rows, dtype=np.float32).tolist()))
    assert theirs <= ours
    assert ours - {(0.0, 0.0)} <= theirs


def test_uv1_filled_in_every_family_that_bakes_lightmaps():
    if MAPS[0].values[0] is None:
        pytest.skip("set BSPKIT_CORPUS")
    filled = set()
    for p in MAPS:
        bsp = bspkit.load(p.values[0])
        if bsp.family in filled:
            continue
        scene = bsp.scene()
        if scene.models and len(bsp.model(scene.models[0].index).numpy()["uv1"]):
            filled.add(bsp.family)
    assert {"quake", "quake3", "source", "respawn", "genesis3d", "cod"} <= filled, filled
