"""The API on the committed sample map and on hostile input (no corpus needed)."""

import io
import os
import random
import struct
import subprocess
import sys

import pytest

import bspkit
from conftest import SAMPLE, run_child_with_peak


@pytest.fixture
def sample():
    return bspkit.load(SAMPLE)


def test_load_from_path_bytes_and_file(sample):
    data = SAMPLE.read_bytes()
    for src in (str(SAMPLE), SAMPLE, data, bytearray(data), memoryview(data), io.BytesIO(data)):
        bsp = bspkit.load(src)
        assert (bsp.branch, bsp.family, bsp.version, bsp.endianness) == ("quake1", "quake", 29, "little")
        assert bsp.to_bytes() == data


def test_lumps_by_name_attribute_and_index(sample):
    assert sample.PLANES[0] == sample["PLANES"][0] == sample[1][0]
    assert "PLANES" in sample and "NOPE" not in sample
    with pytest.raises(AttributeError):
        sample.NOPE
    with pytest.raises(KeyError):
        sample["NOPE"]
    with pytest.raises(IndexError):
        sample[99]
    with pytest.raises(TypeError):
        sample[1.5]
    p = sample.PLANES[0]
    assert p._fields == ["normal", "dist", "kind"]
    assert p.normal == p["normal"] == p[0] == list(p)[0]
    assert isinstance(p.dist, float) and isinstance(p.kind, int)
    assert sample.PLANES[-1] == sample.PLANES[len(sample.PLANES) - 1]
    assert sample.PLANES[1:3] == [sample.PLANES[1], sample.PLANES[2]]
    with pytest.raises(IndexError):
        sample.PLANES[len(sample.PLANES)]
    # Plain-value lumps give plain values.
    assert all(isinstance(v, int) for v in sample.SURFEDGES)
    assert isinstance(sample.TEXTURES, bytes)


def test_entities(sample):
    ents = sample.ENTITIES
    world = ents[0]
    assert world["classname"] == "worldspawn" == world.classname
    e = bspkit.Entity([("classname", "logic_relay"), ("OnTrigger", "a,Fire"), ("OnTrigger", "b,Fire")])
    assert e.get_all("OnTrigger") == ["a,Fire", "b,Fire"]
    assert e["OnTrigger"] == "a,Fire"
    e.add("OnTrigger", "c,Fire")
    e.set("OnTrigger", "z,Fire")
    assert e.get_all("OnTrigger") == ["z,Fire", "b,Fire", "c,Fire"]
    del e["OnTrigger"]
    assert "OnTrigger" not in e and e.get("OnTrigger") is None
    with pytest.raises(KeyError):
        e["OnTrigger"]
    with pytest.raises(KeyError):
        del e["OnTrigger"]
    with pytest.raises(bspkit.MalformedError):
        e.set("k", 'has "quotes"')
    e["targetname"] = "relay1"
    ents.append(e)
    assert sample.search_all_entities(targetname="relay1") == [e]
    assert sample.search_all_entities(classname="worldspawn")[0] is world
    again = bspkit.load(sample.to_bytes())
    assert again.ENTITIES[-1].items() == [("classname", "logic_relay"), ("targetname", "relay1")]


def test_entity_list_must_hold_entities(sample):
    sample.ENTITIES.append("not an entity")
    with pytest.raises(TypeError):
        sample.to_bytes()


def test_set_lump_and_save(sample, tmp_path):
    raw = bytearray(sample.raw_lump("VERTICES"))
    sample.set_lump("VERTICES", raw)
    assert sample.to_bytes() == SAMPLE.read_bytes()  # the same bytes: nothing changes
    out = tmp_path / "x.bsp"
    sample.save_as(out)
    assert out.read_bytes() == SAMPLE.read_bytes()


def test_set_entity_lump_then_read_it(sample):
    text = sample.raw_lump("ENTITIES").replace(b'"worldspawn"', b'"worldspawn"\n"bspkit" "1"', 1)
    sample.set_lump("ENTITIES", text)
    assert sample.ENTITIES[0]["bspkit"] == "1"
    assert bspkit.load(sample.to_bytes()).ENTITIES[0]["bspkit"] == "1"
    with pytest.raises(ValueError):
        sample.set_lump("ENTITIES", text)  # now edited through the list


def test_info_check_schema(sample):
    info = sample.info()
    assert info["format"]["branch"] == "quake1"
    assert [l["name"] for l in info["lumps"]] == sample.lump_names()
    check = sample.check()
    assert set(check) == {"path", "problems", "counts"}
    assert sample.check(verify_lzma=True) == check  # no LZMA lump in a Quake map: the same
    assert set(check["counts"]) == {"errors", "warnings", "notes"}
    assert {f["branch"] for f in bspkit.formats()} >= {"quake1", "source", "titanfall2", "cod4"}


def test_errors_are_typed():
    with pytest.raises(bspkit.UnknownFormatError) as e:
        bspkit.load(b"this is not a map at all, not even close")
    assert e.value.kind == "unknown_format"
    assert isinstance(e.value, bspkit.BspError)
    with pytest.raises(bspkit.IoError) as e:
        bspkit.load("/nonexistent/map.bsp")
    assert e.value.file == "/nonexistent/map.bsp"
    with pytest.raises(bspkit.UnknownBranchError):
        bspkit.load(SAMPLE, branch="no-such-branch")
    with pytest.raises(TypeError):
        bspkit.load(12345)
    with pytest.raises(TypeError):
        bspkit.load(io.StringIO("text"))
    f = open(SAMPLE, "rb")
    f.close()
    with pytest.raises(ValueError):
        bspkit.load(f)


def test_truncated_map_names_lump_and_offset():
    data = SAMPLE.read_bytes()
    with pytest.raises(bspkit.BspError) as e:
        bspkit.load(data[: len(data) // 2])
    assert e.value.kind in {"lump_out_of_bounds", "truncated"}
    assert e.value.lump is not None or e.value.offset is not None


def test_mutating_the_source_buffer_changes_nothing():
    data = bytearray(SAMPLE.read_bytes())
    bsp = bspkit.load(data)
    planes = bsp.PLANES.numpy() if _has_numpy() else None
    before = bsp.raw_lump("PLANES")
    data[:] = b"\0" * len(data)
    del data
    assert bsp.raw_lump("PLANES") == before
    if planes is not None:
        assert planes.tobytes() == before


def _has_numpy():
    try:
        import numpy  # noqa: F401

        return True
    except ImportError:
        return False


def test_hostile_maps_never_crash():
    """Random damage to a real map: every failure is a BspError, never a crash."""
    data = SAMPLE.read_bytes()
    rng = random.Random(9)
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 12)):
            i = rng.randrange(len(b))
            b[i] = rng.randrange(256)
        if rng.random() < 0.2:
            b = b[: rng.randrange(len(b))]
        try:
            bsp = bspkit.load(bytes(b))
        except bspkit.BspError:
            continue
        for name in bsp.lump_names():
            try:
                lump = bsp[name]
                if isinstance(lump, bspkit.RecordLump):
                    for r in lump[:50]:
                        repr(r)
                    if _has_numpy():
                        lump.numpy()
            except bspkit.BspError:
                pass
        for f in (bsp.info, bsp.check, bsp.to_bytes, bsp.miptex, bsp.bspx):
            try:
                f()
            except bspkit.BspError:
                pass


def test_numpy_is_optional():
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import bspkit\n"
        f"b = bspkit.load({str(SAMPLE)!r})\n"
        "assert b.PLANES[0].normal\n"
        "try:\n    b.PLANES.numpy()\nexcept ImportError:\n    print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_numpy_view(sample):
    np = pytest.importorskip("numpy")
    a = sample.PLANES.numpy()
    assert a.dtype.names == ("normal", "dist", "kind")
    assert a["normal"].shape == (len(sample.PLANES), 3)
    assert a["dist"][0] == pytest.approx(sample.PLANES[0].dist)
    with pytest.raises(ValueError):
        a["dist"][0] = 1.0
    s = sample.SURFEDGES.numpy()
    assert s.dtype == np.dtype("<i4")
    assert s.tolist() == list(sample.SURFEDGES)


def test_quake_extras(sample):
    tex = sample.miptex()
    assert tex and {"name", "width", "height", "embedded", "pixels"} <= set(tex[0])
    assert sample.bspx() == {}


def test_geometry_or_clear_error(sample):
    try:
        model = sample.model(0)
    except bspkit.BspError as e:
        assert "not built yet" in str(e)
        return
    assert model.meshes
    for mesh in model.meshes:
        assert isinstance(mesh.material, str)
        for poly in mesh.polygons:
            assert len(poly.vertices) == 3
            for v in poly.vertices:
                assert len(v.position) == 3


def test_help_and_stubs():
    assert "Open a map" in bspkit.load.__doc__
    assert bspkit.Bsp.__doc__ and bspkit.Entity.get_all.__doc__
    stub = os.path.join(os.path.dirname(bspkit.__file__), "_bspkit.pyi")
    assert os.path.exists(stub)


def test_export_gltf(sample, tmp_path):
    out = tmp_path / "sample.glb"
    summary = sample.export_gltf(out, textures=False)
    data = out.read_bytes()
    assert data[:4] == b"glTF"
    # The summary is `bsp export --json`'s, and agrees with the scene.
    scene = sample.scene()
    assert summary["format"] == "glb"
    assert summary["triangles"] > 0
    assert summary["triangles"] <= sum(m.numpy()["indices"].size // 3 for m in scene.models)
    # Nothing skipped: every surface is written, so the triangle count is the scene's.
    every = sample.export_gltf(tmp_path / "all.glb", skip=[], textures=False, lightmaps=False)
    assert every["skipped_surfaces"] == 0
    assert every["triangles"] == sum(m.numpy()["indices"].size // 3 for m in scene.models)
    obj = sample.export_gltf(tmp_path / "sample.obj", textures=False)
    assert obj["format"] == "obj" and (tmp_path / "sample.obj").read_text().startswith("#")
    with pytest.raises(ValueError):
        sample.export_gltf(tmp_path / "x.glb", models="some")
    with pytest.raises(ValueError):
        sample.export_gltf(tmp_path / "x.glb", skip=["nosuch"])
    with pytest.raises(bspkit.BspError):
        sample.export_gltf(tmp_path / "x.unknown")
    with pytest.raises(ValueError):
        sample.export_gltf(tmp_path / "x.glb", lightmap_mode="emissive")


def test_export_gltf_lightmap_mode_matches_the_cli(sample, tmp_path, cli):
    """`lightmap_mode="vertex"` writes what `bsp export --lightmap-mode vertex` writes: the
    light in COLOR_0, unlit materials, no occlusion texture."""
    import json as _json
    import struct
    py_out, cli_out = tmp_path / "py.glb", tmp_path / "cli.glb"
    sample.export_gltf(py_out, lightmap_mode="vertex")
    subprocess.run([cli, "export", str(SAMPLE), "-o", str(cli_out), "--lightmap-mode", "vertex"], check=True,
                   capture_output=True)
    assert py_out.read_bytes() == cli_out.read_bytes()
    data = py_out.read_bytes()
    (json_len,) = struct.unpack_from("<I", data, 12)
    doc = _json.loads(data[20:20 + json_len])
    assert all("KHR_materials_unlit" in m.get("extensions", {}) for m in doc["materials"])
    assert all("occlusionTexture" not in m for m in doc["materials"])
    assert all("COLOR_0" in p["attributes"] for mesh in doc["meshes"] for p in mesh["primitives"])
    default = sample.export_gltf(tmp_path / "occ.glb")
    assert default["lightmap_pages"] >= 1


def test_export_gltf_hdr_writes_what_the_cli_writes(sample, tmp_path, cli):
    """`hdr=True` writes the side files `bsp export --hdr` writes, byte for byte."""
    import json as _json
    py_dir, cli_dir = tmp_path / "py", tmp_path / "cli"
    py_dir.mkdir()
    cli_dir.mkdir()
    summary = sample.export_gltf(py_dir / "m.glb", textures=False, hdr=True)
    written = [os.path.basename(f["path"]) for f in summary["files"]]
    assert written[0] == "m.glb" and "m_lightmaps.json" in written
    assert any(n.endswith(".pfm") for n in written), written
    out = subprocess.run(
        [cli, "export", str(SAMPLE), "-o", str(cli_dir / "m.glb"), "--no-textures", "--hdr", "--json"],
        capture_output=True, check=True,
    ).stdout
    assert sorted(os.path.basename(f["path"]) for f in _json.loads(out)["files"]) == sorted(written)
    for name in written:
        assert (py_dir / name).read_bytes() == (cli_dir / name).read_bytes(), name
    # Without lightmaps there is nothing to write beside the output, and a warning says so.
    plain = sample.export_gltf(py_dir / "n.glb", textures=False, lightmaps=False, hdr=True)
    assert [os.path.basename(f["path"]) for f in plain["files"]] == ["n.glb"]
    assert any(w.startswith("hdr:") for w in plain["warnings"])


def _brute(ents, **kv):
    """What search_all_entities must return: a walk over the list."""
    return [e for e in ents if isinstance(e, bspkit.Entity) and all(str(v) in e.get_all(k) for k, v in kv.items())]


def test_search_counts_an_entity_listed_twice_twice(sample):
    """An entity object appended a second time is found at both places, with one condition or
    two (the intersection works on list positions, not on objects)."""
    ents = sample.ENTITIES
    e = next(x for x in ents if len({k for k, _ in x.items()}) >= 2)
    (k1, v1), (k2, v2) = [(k, v) for k, v in e.items() if k != e.items()[0][0]][:1] + [e.items()[0]]
    ents.append(e)
    ents.append(bspkit.Entity({k1: v1}))
    for kv in ({k1: v1}, {k1: v1, k2: v2}, {k2: v2, k1: v1}):
        got = sample.search_all_entities(**kv)
        assert got == _brute(ents, **kv), kv
        assert sum(x is e for x in got) == 2, kv


def test_search_index_sees_every_edit(sample):
    ents = sample.ENTITIES
    assert isinstance(ents, list) and isinstance(ents, bspkit.EntityList)
    assert sample.ENTITIES is ents
    cls = ents[1].classname
    first = sample.search_all_entities(classname=cls)
    assert first == _brute(ents, classname=cls) and first
    assert all(any(x is y for y in ents) for x in first)
    assert sample.search_all_entities() == list(ents)
    assert sample.search_all_entities(classname="no_such_class") == []
    assert sample.search_all_entities(no_such_key="x") == []
    # The result is a new list each time: changing it changes nothing.
    first.clear()
    assert sample.search_all_entities(classname=cls) == _brute(ents, classname=cls)

    # Edits of an entity: set, item assignment, add, del.
    e = ents[1]
    e.set("targetname", "bspkit_a")
    assert sample.search_all_entities(targetname="bspkit_a") == [e]
    e["targetname"] = "bspkit_b"
    assert sample.search_all_entities(targetname="bspkit_a") == []
    assert sample.search_all_entities(targetname="bspkit_b") == [e]
    e.add("target", "t1")
    e.add("target", "t2")
    assert sample.search_all_entities(target="t2") == [e]  # any value of a repeated key
    del e["targetname"]
    assert sample.search_all_entities(targetname="bspkit_b") == []

    # Edits of the list: append, insert, setitem, slices, extend, +=, pop, remove, sort, clear.
    a = bspkit.Entity(classname="info_null", targetname="spot", spawnflags=1)
    ents.append(a)
    assert sample.search_all_entities(targetname="spot") == [a]
    assert sample.search_all_entities(classname="info_null", spawnflags=1) == [a]  # str() of the value
    assert sample.search_all_entities(classname="info_null", spawnflags=2) == []
    b = bspkit.Entity(classname="info_null", targetname="spot")
    ents.insert(0, b)
    assert sample.search_all_entities(targetname="spot") == [b, a]
    assert sample.search_all_entities(targetname="spot")[0] is b
    c = bspkit.Entity(classname="info_null", targetname="other")
    ents[0] = c
    assert sample.search_all_entities(targetname="spot") == [a]
    ents[0:1] = [b, c]
    assert sample.search_all_entities(classname="info_null") == [b, c, a]
    del ents[0]
    assert sample.search_all_entities(classname="info_null") == [c, a]
    ents.extend([bspkit.Entity(classname="info_null", targetname="x1")])
    ents += [bspkit.Entity(classname="info_null", targetname="x2")]
    assert [x["targetname"] for x in sample.search_all_entities(classname="info_null")] == ["other", "spot", "x1", "x2"]
    ents.pop()
    ents.remove(c)
    assert [x["targetname"] for x in sample.search_all_entities(classname="info_null")] == ["spot", "x1"]
    ents.sort(key=lambda x: x.get("targetname") or "")
    assert sample.search_all_entities() == list(ents)
    ents.reverse()
    assert sample.search_all_entities() == list(ents)
    # A multi-key search is the intersection, in list order, whatever the key order.
    assert sample.search_all_entities(targetname="spot", classname="info_null") == [a]
    assert sample.search_all_entities(classname="info_null", targetname="x1") == _brute(ents, classname="info_null", targetname="x1")
    # Items that are not entities are skipped by the search (and refused by save).
    ents.append("not an entity")
    assert sample.search_all_entities(classname="info_null") == _brute(ents, classname="info_null")
    ents.pop()
    ents.clear()
    assert sample.search_all_entities() == []
    assert bspkit.load(sample.to_bytes()).ENTITIES == []


def test_search_after_entity_lump_replaced(sample):
    text = sample.raw_lump("ENTITIES") + b""
    sample.set_lump("ENTITIES", text.replace(b'"worldspawn"', b'"worldspawn"\n"bspkit" "2"', 1))
    assert [e.classname for e in sample.search_all_entities(bspkit="2")] == ["worldspawn"]


def test_image_arrays(sample):
    np = pytest.importorskip("numpy")
    for d, a in zip(sample.lightmaps(), sample.lightmap_atlases(stored=True)):
        assert d["shape"] == (d["height"], d["width"], 3)
        assert a["rgb"].shape == d["shape"] and a["rgb"].dtype == np.uint8
        assert a["rgb"].tobytes() == d["rgb"]
        assert not a["rgb"].flags.writeable
        assert a["stored"].dtype == np.float32 and a["stored"].shape == d["shape"]
        # 8-bit samples: stored values are byte / 255.
        if a["format"] == "rgb8":
            np.testing.assert_allclose(a["stored"], a["rgb"] / 255.0, rtol=1e-6)
    for d, a in zip(sample.textures(), sample.texture_arrays()):
        assert d["name"] == a["name"]
        if "missing" in d:
            assert "missing" in a
            continue
        assert a["rgba"].shape == d["shape"] == (d["height"], d["width"], 4)
        assert a["rgba"].tobytes() == d["rgba"]
    arr = sample.lightmap_atlases()[0]["rgb"]
    base = arr.base
    while not isinstance(base, bspkit.ArrayHolder) and getattr(base, "base", None) is not None:
        base = base.base
    assert isinstance(base, bspkit.ArrayHolder) and base.owns_buffer  # the Rust buffer itself, not a copy
    assert len(base) == arr.nbytes


def test_image_bytes_without_numpy():
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import bspkit\n"
        f"b = bspkit.load({str(SAMPLE)!r})\n"
        "lm = b.lightmaps()\n"
        "assert lm and all(len(d['rgb']) == d['shape'][0] * d['shape'][1] * 3 for d in lm)\n"
        "tx = [t for t in b.textures() if 'rgba' in t]\n"
        "assert all(len(t['rgba']) == t['shape'][0] * t['shape'][1] * 4 for t in tx)\n"
        "for f in (b.lightmap_atlases, b.texture_arrays):\n"
        "    try:\n        f()\n    except ImportError:\n        print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["ok", "ok"]


def test_search_and_save_from_inside_an_edit(sample):
    """A value whose str() searches or saves while its entity is being set: an error or an
    answer, never a crash or a deadlock."""
    ents = sample.ENTITIES
    seen = []

    class Sneaky:
        def __str__(self):
            for f in (lambda: sample.search_all_entities(classname="worldspawn"), sample.to_bytes):
                try:
                    seen.append(f())
                except RuntimeError as e:
                    seen.append(e)
            return "v"

    ents[0].set("sneaky", Sneaky())
    assert len(seen) == 2
    assert ents[0]["sneaky"] == "v"
    assert sample.search_all_entities(sneaky="v") == [ents[0]]


def _apex_streaming_set(d):
    """An Apex streaming set laid out as the real season-13 `mp_lobby` (issue 22), made here:
    the `.bsp` is the 2064-byte rBSP header alone (respawn_cod_facts.md §1.1: magic, version
    51 | 1 << 16, revision, 127, then 128 `{offset, length, version, fourcc}`), the entity lump
    and the partition list live in `.bsp_lump` files, their offsets run on after the header,
    and two empty lumps carry offsets past the end of the `.bsp`."""
    ents = b'{\n"classname" "worldspawn"\n"message" "streamed"\n}\n\0'
    parts = b"01* env\0"
    directory = [(0, 0)] * 128
    directory[0x00] = (2064, len(ents))
    directory[0x18] = (2064 + len(ents), len(parts))
    directory[0x14] = (40536, 0)
    directory[0x2C] = (5943300, 0)
    header = b"rBSP" + struct.pack("<3I", 51 | 1 << 16, 30, 127)
    header += b"".join(struct.pack("<4i", o, n, 0, 0) for o, n in directory)
    assert len(header) == 2064
    (d / "lobby.bsp").write_bytes(header)
    (d / "lobby.bsp.0000.bsp_lump").write_bytes(ents)
    (d / "lobby.bsp.0018.bsp_lump").write_bytes(parts)
    (d / "lobby_env.ent").write_bytes(b'ENTITIES01\n{\n"classname" "info_target"\n}\n\0')
    return d / "lobby.bsp"


def test_apex_streaming_set_loads_checks_and_saves(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    path = _apex_streaming_set(src)
    bsp = bspkit.load(path)
    assert (bsp.branch, bsp.version) == ("apex", 51)
    assert bsp.ENTITIES[0]["message"] == "streamed"
    assert bsp.check(False)["problems"] == []
    out = tmp_path / "out"
    out.mkdir()
    bsp.save_as(out / "lobby.bsp")
    names = sorted(f.name for f in src.iterdir())
    assert sorted(f.name for f in out.iterdir()) == names
    for n in names:
        assert (out / n).read_bytes() == (src / n).read_bytes(), n
    with pytest.raises(bspkit.BspError):
        bspkit.load(path, external=False)


def test_scene_budget_is_a_typed_error():
    """Issue 23: faces sharing one run of 65,532 surfedges (the sample room's first face's edges
    over and over). Before, `model(0).numpy()` on such a map aborted the interpreter (SIGABRT);
    now the scene budget stops the build with LimitExceededError naming it."""
    import struct

    bsp = bspkit.load(SAMPLE)
    faces, surfedges, models = (bytearray(bsp.raw_lump(n)) for n in ("faces", "surfedges", "models"))
    # Face29 (20 bytes): plane, side u16; first_edge i32; num_edges, texinfo u16; styles; light_ofs i32.
    face0 = bytearray(faces[:20])
    first, n = struct.unpack_from("<iH", face0, 4)
    run = surfedges[4 * first : 4 * (first + n)]
    start, count = len(surfedges) // 4, 65_532 // n * n
    surfedges += run * (count // n)
    face_count, extra = len(faces) // 20, 200
    struct.pack_into("<iH", face0, 4, start, count)
    struct.pack_into("<i", face0, 16, -1)
    faces += face0 * extra
    # Model 0 (64 bytes): first_face, num_faces at 56 and 60 take every face.
    struct.pack_into("<ii", models, 56, 0, face_count + extra)
    for name, data in (("faces", faces), ("surfedges", surfedges), ("models", models)):
        bsp.set_lump(name, bytes(data))
    hostile = bspkit.load(bsp.to_bytes())
    with pytest.raises(bspkit.LimitExceededError) as e:
        hostile.model(0)
    assert e.value.kind == "limit_exceeded"
    assert "--max-scene-vertices" in str(e.value)
    # The healthy sample still builds.
    assert bspkit.load(SAMPLE).model(0) is not None


def test_convert_refuses_pairs_it_does_not_cover(sample, tmp_path):
    with pytest.raises(bspkit.BspError) as e:
        sample.convert("quake2", tmp_path / "x.bsp")
    assert e.value.kind == "unsupported"
    with pytest.raises(ValueError):
        sample.convert("quake1", tmp_path / "x.bsp", endian="middle")
    assert not (tmp_path / "x.bsp").exists()


def _lumps_file(magic_version, count, lumps, revision=0, respawn=False):
    """A map file: header, a directory of `count` entries, then the lumps (index -> (bytes,
    version)) in index order, 4-byte aligned. Source (VBSP): `{ofs, len, version, fourCC}` then
    the map revision; Respawn (rBSP): version, revision, count - 1, then the same entries."""
    import struct

    head = 4 + (12 if respawn else 4) + 16 * count + (0 if respawn else 4)
    body, entries, at = b"", [(0, 0, 0, 0)] * count, head
    for i in sorted(lumps):
        data, version = lumps[i]
        pad = (-at) % 4
        body += b"\0" * pad
        at += pad
        entries[i] = (at, len(data), version, 0)
        body += data
        at += len(data)
    directory = b"".join(struct.pack("<4i", *e) for e in entries)
    if respawn:
        header = magic_version + struct.pack("<2I", revision, count - 1) + directory
    else:
        header = magic_version + directory + struct.pack("<i", revision)
    assert len(header) == head
    return header + body


def _source_shared_surfedges(extra):
    """A one-face Source (v20) square (source.md §7: planes, texdata, vertices, texinfo, faces,
    edges, surfedges, models, texdata strings), and `extra` more faces of numedges 32,767 over
    one shared run of 32,767 surfedges (edges 1..4 round the square again and again)."""
    import struct

    planes = struct.pack("<4fi", 0, 0, 1, 0, 2)
    verts = b"".join(struct.pack("<3f", x, y, 0) for x, y in ((0, 0), (0, 64), (64, 64), (64, 0)))
    edges = struct.pack("<2H", 0, 0) + b"".join(struct.pack("<2H", a, b) for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)))
    surfedges = struct.pack("<4i", 1, 2, 3, 4) + b"".join(struct.pack("<i", 1 + k % 4) for k in range(32_767))
    texinfo = struct.pack("<16f2i", 0.25, 0, 0, 0, 0, 0.25, 0, 0, 1 / 16, 0, 0, 0, 0, 1 / 16, 0, 0, 0, 0)
    texdata = struct.pack("<3f5i", 0, 0, 0, 0, 16, 16, 16, 16)

    # dface_t, 56 bytes: plane u16, side, on_node u8, firstedge i32, numedges, texinfo,
    # dispinfo, fog i16, styles[4], lightofs i32, area f32, mins[2], size[2], origface i32,
    # numprims, firstprim u16, smoothing u32.
    def face(first, n):
        return struct.pack("<HBBih3h4Bif2i2iiHHI", 0, 0, 1, first, n, 0, -1, -1, 255, 255, 255, 255, -1, 4096.0, 0, 0, 0, 0, -1, 0, 0, 0)

    faces = face(0, 4) + face(4, 32_767) * extra
    model = struct.pack("<9f3i", -1, -1, -1, 65, 65, 1, 0, 0, 0, 0, 0, 1 + extra)
    lumps = {
        0: (b'{\n"classname" "worldspawn"\n}\n\0', 0),
        1: (planes, 0),
        2: (texdata, 0),
        3: (verts, 0),
        6: (texinfo, 0),
        7: (faces, 1),
        12: (edges, 0),
        13: (surfedges, 0),
        14: (model, 0),
        43: (b"DEV/DEV_MEASUREGENERIC01\0", 0),
        44: (struct.pack("<i", 0), 0),
    }
    return _lumps_file(b"VBSP" + struct.pack("<i", 20), 64, lumps)


def _respawn_shared_index_run(meshes):
    """A Titanfall 2 (rBSP v37) world of `meshes` meshes, every one naming the same run of
    65,145 triangles (indices 0 1 2 over and over) of three lit-flat vertices (records as in
    respawn records.rs: ModelR1 32 bytes, MeshR2 28, VertexLitFlatR1 36, MaterialSortR1 12,
    TextureDataR1 36)."""
    import struct

    world = struct.pack("<6f2I", 0, 0, 0, 0, 0, 0, 0, meshes)
    mesh = struct.pack("<IH", 0, 65_145) + bytes(22)
    indices = struct.pack("<3H", 0, 1, 2) * 65_145
    verts = b"".join(struct.pack("<I", i) + bytes(32) for i in range(3))
    lumps = {
        0x00: (b'{\n"classname" "worldspawn"\n}\n\0', 0),
        0x02: (bytes(36), 0),
        0x03: (struct.pack("<9f", 0, 0, 0, 0, 64, 0, 64, 0, 0), 0),
        0x0E: (world, 0),
        0x1E: (struct.pack("<3f", 0, 0, 1), 0),
        0x2B: (b"dev/grid1\0", 0),
        0x2C: (struct.pack("<I", 0), 0),
        0x48: (verts, 1),
        0x4F: (indices, 0),
        0x50: (mesh * meshes, 0),
        0x52: (bytes(12), 0),
    }
    return _lumps_file(b"rBSP" + struct.pack("<I", 37), 128, lumps, revision=30, respawn=True)


@pytest.mark.parametrize(
    "family, build, flag, asked",
    [
        ("source", lambda: _source_shared_surfedges(5_000), "--max-scene-vertices", 5_000 * 32_767),
        ("titanfall2", lambda: _respawn_shared_index_run(2_000), "--max-scene-triangles", 2_000 * 65_145),
    ],
)
def test_scene_budget_stops_source_and_respawn_without_abort(tmp_path, family, build, flag, asked):
    """Issue 23: Source faces of numedges 32,767 sharing one surfedge run, Titanfall 2 meshes
    sharing one 65,145-triangle index run. Before, `model(0)` / `numpy()` on such maps aborted
    the interpreter (SIGABRT). Now each is LimitExceededError naming the budget's flag, in a
    child interpreter that exits normally, at a peak memory (its own VmHWM) far below
    what the file asks for; the same file with one such face or mesh builds."""
    data = build()
    assert len(data) < 500_000, len(data)
    path = tmp_path / f"{family}.bsp"
    path.write_bytes(data)
    code = (
        "import bspkit\n"
        f"b = bspkit.load({str(path)!r})\n"
        "for f in (lambda: b.model(0).numpy(), b.scene):\n"
        "    try:\n        f()\n        print('built')\n"
        "    except bspkit.LimitExceededError as e:\n        print(e.kind, '|', e)\n"
    )
    lines, peak_mib = run_child_with_peak(code)
    assert len(lines) == 2, lines
    for line in lines:
        assert line.startswith("limit_exceeded |") and flag in line, line
    print(f"{family}: {len(data)} bytes asking {asked} {flag[12:]}; LimitExceededError at peak {peak_mib:.1f} MiB")
    # Far below the many GB the file asks for: the budget (8 Mi) and the interpreter.
    assert peak_mib < 1200, peak_mib
    small = {"source": _source_shared_surfedges, "titanfall2": _respawn_shared_index_run}[family](1)
    assert bspkit.load(small).model(0) is not None


def test_special_files_as_texture_options_do_not_hang(tmp_path):
    """Issue 23: `textures(palette=FIFO)` hung, and a character device as the palette read
    without bound (6.7 GB in 10 s). Each path is now opened as maps are (regular files only):
    a child interpreter given a FIFO palette, /dev/zero as the palette and a FIFO `.wad` (named,
    and inside a folder) returns at once, the texture a typed miss, never a hang."""
    fifo = tmp_path / "palette.lmp"
    os.mkfifo(fifo)
    wads = tmp_path / "wads"
    wads.mkdir()
    os.mkfifo(wads / "inside.wad")
    code = (
        "import bspkit\n"
        f"b = bspkit.load({str(SAMPLE)!r})\n"
        f"for kw in (dict(palette={str(fifo)!r}), dict(palette='/dev/zero'),"
        f" dict(wads=[{str(fifo)!r}, {str(wads)!r}])):\n"
        "    for f in (b.textures, b.texture_arrays):\n"
        "        t = f(**kw)\n"
        "        print(len(t), t[0]['name'], 'missing' in t[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert len(lines) == 6, out.stdout
    # Without a palette the Quake texture is a miss; the WADs play no part in it.
    assert all(line.startswith("1 bspkit_grey") for line in lines), lines
    assert lines[0].endswith("True") and lines[2].endswith("True"), lines


def _titanfall2_set(d, name="m"):
    """`<name>.bsp` (Titanfall 2, rBSP v37) whose entity lump lives in `<name>.bsp.0000.bsp_lump`
    (message `external`; the `.bsp`'s own copy, of the same length, says `inside__`), with an
    `env` partition (ENTITY_PARTITIONS, lump 0x18)."""
    inside = b'{\n"classname" "worldspawn"\n"message" "inside__"\n}\n\0'
    external = b'{\n"classname" "worldspawn"\n"message" "external"\n}\n\0'
    lumps = {0x00: (inside, 0), 0x18: (b"01* env\0", 0)}
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{name}.bsp"
    path.write_bytes(_lumps_file(b"rBSP" + struct.pack("<I", 37), 128, lumps, revision=30, respawn=True))
    (d / f"{name}.bsp.0000.bsp_lump").write_bytes(external)
    (d / f"{name}_env.ent").write_bytes(b'ENTITIES01\n{\n"classname" "info_target"\n}\n\0')
    return path


def test_fold_external_killed_at_every_step(tmp_path):
    """Issue 23: `save_as(path, fold_external=True)` in place, the interpreter killed after each
    step of the set write (test hook BSPKIT_TEST_SET_ABORT_AFTER_STEP: abort after the K-th
    rename or removal). Before, a kill between the folded `.bsp`'s rename and the removal of the
    old `.bsp_lump` left that file overriding the folded entity lump (the old message read
    back, `check` clean). Now every state reads as the old set or the folded one; an old
    `.bsp_lump` left is named by the set's journal, not read, an `interrupted_set` error for
    `check`, and removed by the next `save_as`."""
    seen = []
    for k in range(20):
        d = tmp_path / f"k{k}"
        path = _titanfall2_set(d)
        code = (
            "import bspkit\n"
            f"b = bspkit.load({str(path)!r})\n"
            "b.ENTITIES[0]['message'] = 'folded'\n"
            f"b.save_as({str(path)!r}, fold_external=True)\n"
        )
        env = dict(os.environ, BSPKIT_TEST_SET_ABORT_AFTER_STEP=str(k))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        lump, journal = d / "m.bsp.0000.bsp_lump", d / ".m.bsp.bspkit-stale"
        message = bspkit.load(path).ENTITIES[0]["message"]
        codes = [p["code"] for p in bspkit.load(path).check(False)["problems"]]
        if message == "external":
            assert lump.is_file() and "interrupted_set" not in codes, (k, codes)
            seen.append("old")
        elif message == "folded" and not lump.exists():
            assert "interrupted_set" not in codes, (k, codes)
            seen.append("new")
        elif message == "folded":
            assert journal.is_file(), f"crash after step {k}: a stale .bsp_lump and no journal"
            assert "interrupted_set" in codes, (k, codes)
            bspkit.load(path).save_as(path)
            assert not lump.exists() and not journal.exists()
            assert bspkit.load(path).ENTITIES[0]["message"] == "folded"
            seen.append("new+stale")
        else:
            pytest.fail(f"crash after step {k}: a mixed set (message {message!r})")
        if out.returncode == 0:
            assert not journal.exists()
            break
        assert out.returncode < 0, (out.returncode, out.stderr[-2000:])  # killed by the hook (SIGABRT)
    else:
        pytest.fail("the hook never let the write finish")
    print("save_as(fold_external=True) killed after each step:", seen)
    assert seen[0] == "old" and seen[-1] == "new" and "new+stale" in seen, seen


def _quake1_big_lightmaps(copies, luxels=1024):
    """The sample room with `copies` more faces: copies of its first lit face whose texinfo is
    scaled so that the face is about `luxels` luxels wide (one style), all sharing one run of
    lighting bytes appended to LIGHTING (Quake 1: one byte a luxel). Returns the map's bytes
    and the luxels (width, height) of one copy as computed here (quake.md: extents from the
    texinfo rows, 16 units a luxel)."""
    import math

    bsp = bspkit.load(SAMPLE)
    names = ("FACES", "SURFEDGES", "EDGES", "VERTICES", "TEXINFO", "LIGHTING", "MODELS")
    faces, surfedges, edges, verts, texinfo, lighting, models = (bytearray(bsp.raw_lump(n)) for n in names)
    # Face29 (20 bytes): plane, side u16; first_edge i32; num_edges, texinfo u16; styles[4]; light_ofs i32.
    for i in range(len(faces) // 20):
        first, n, ti = struct.unpack_from("<iHH", faces, 20 * i + 4)
        if faces[20 * i + 12] != 255 and struct.unpack_from("<i", faces, 20 * i + 16)[0] >= 0:
            break
    points = []
    for j in range(n):
        se = struct.unpack_from("<i", surfedges, 4 * (first + j))[0]
        a, b = struct.unpack_from("<2H", edges, 4 * abs(se))
        points.append(struct.unpack_from("<3f", verts, 12 * (a if se >= 0 else b)))

    def size(vecs):
        dims = []
        for r in (vecs[:4], vecs[4:]):
            vals = [p[0] * r[0] + p[1] * r[1] + p[2] * r[2] + r[3] for p in points]
            dims.append(math.ceil(max(vals) / 16) - math.floor(min(vals) / 16) + 1)
        return dims

    vecs = struct.unpack_from("<8f", texinfo, 40 * ti)
    scale = luxels / max(size(vecs))
    big = [c * scale for c in vecs]
    w, h = size(big)
    texinfo += struct.pack("<8f", *big) + texinfo[40 * ti + 32 : 40 * ti + 40]
    face = bytearray(faces[20 * i : 20 * i + 20])
    struct.pack_into("<H", face, 10, len(texinfo) // 40 - 1)
    face[12:16] = bytes([0, 255, 255, 255])
    struct.pack_into("<i", face, 16, len(lighting))
    # A little more than the estimate: the engine's extents round in single precision.
    lighting += bytes((w + 2) * (h + 2))
    count = len(faces) // 20
    faces += face * copies
    struct.pack_into("<ii", models, 56, 0, count + copies)
    for name, data in (("FACES", faces), ("TEXINFO", texinfo), ("LIGHTING", lighting), ("MODELS", models)):
        bsp.set_lump(name, bytes(data))
    return bsp.to_bytes(), (w, h)


def test_stored_lightmap_atlases_over_the_budget_are_a_typed_error(tmp_path):
    """Issue 23: `lightmap_atlases(stored=True)` returned 3.84 GiB of arrays for a small Source
    map. Here a Quake 1 map (the sample room, about 1 MB) asks for more than the default atlas
    budget (64 Mi pixels, `--max-atlas-pixels`: 768 MiB as stored float32 values) with copies of
    one face of ~1024 luxels sharing one run of lighting bytes: LimitExceededError naming the
    budget, in a child interpreter that exits normally, at a bounded peak memory (its own
    VmHWM); the same map with one copy gives its arrays."""
    np = pytest.importorskip("numpy")
    one, (w, h) = _quake1_big_lightmaps(1)
    copies = (64 << 20) // (w * h) + 2
    data, _ = _quake1_big_lightmaps(copies)
    assert len(data) < 2_000_000, len(data)
    path = tmp_path / "big_lightmaps.bsp"
    path.write_bytes(data)
    code = (
        "import bspkit\n"
        f"b = bspkit.load({str(path)!r})\n"
        "for kw in (dict(stored=True), dict(stored=True, hdr=True), dict()):\n"
        "    try:\n        b.lightmap_atlases(**kw)\n        print('built')\n"
        "    except bspkit.LimitExceededError as e:\n        print(e.kind, '|', e)\n"
    )
    lines, peak_mib = run_child_with_peak(code)
    assert len(lines) == 3, lines
    for line in lines:
        assert line.startswith("limit_exceeded |") and "--max-atlas-pixels" in line, line
    asked = copies * w * h
    print(f"lightmap_atlases(stored=True): {len(data)} bytes, {copies} faces of {w}x{h} luxels (>= {asked} pixels asked);"
          f" LimitExceededError at peak {peak_mib:.1f} MiB")
    # The arrays asked for would take more than 1 GiB (12 bytes a pixel stored, 3 as RGB).
    assert peak_mib < 256, peak_mib
    # Within the budget: the arrays, the big face's page among them.
    atlases = bspkit.load(one).lightmap_atlases(stored=True)
    assert any(a["width"] * a["height"] >= w * h for a in atlases), [(a["width"], a["height"]) for a in atlases]
    for a in atlases:
        assert a["stored"].dtype == np.float32 and a["stored"].shape == (a["height"], a["width"], 3)


def _zip_of_copies(names, data):
    """A zip holding `data` under each of `names`, deflated once (as zipfile deflates, level 6):
    zipfile deflates every entry anew, 1.4 s of CPU for each 171 MiB VTF below."""
    import zlib

    co = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    packed = co.compress(data) + co.flush()
    # Version needed 2.0, no flags, deflate, 1980-01-01 00:00, CRC-32, sizes.
    fields = struct.pack("<5H3I", 20, 0, 8, 0, 0x21, zlib.crc32(data), len(packed), len(data))
    body, central = bytearray(), bytearray()
    for name in names:
        n = name.encode()
        central += b"PK\1\2" + struct.pack("<H", 20) + fields + struct.pack("<5H2I", len(n), 0, 0, 0, 0, 0, len(body)) + n
        body += b"PK\3\4" + fields + struct.pack("<2H", len(n), 0) + n + packed
    end = b"PK\5\6" + struct.pack("<4H2IH", 0, 0, len(names), len(names), len(central), len(body), 0)
    return bytes(body + central + end)


def test_oversized_vtfs_in_a_pakfile_are_budget_misses(tmp_path):
    """Issue 23: three VTFs in a Source map's pakfile, each claiming 16384 x 16376 texels (a
    161 KB map), took `texture_arrays()` to 5.4 GB. Each header now asks for more than the
    per-image cap (8192², checked from the header before a texel is decoded): in a child
    interpreter `texture_arrays()` gives three budget misses naming the cap and exits normally,
    at a bounded peak memory (its VmHWM; what remains is one inflated pakfile entry, 171 MiB)."""
    pytest.importorskip("numpy")
    # VTF 7.2 header (80 bytes): signature, version, header size, width, height, flags, frames,
    # first frame, reflectivity, bump scale, high-res format (13 = DXT1), mips, low-res format
    # (-1: none), low-res size, depth; then the 13 DXT1 mips (8 bytes a 4 x 4 block), zeros.
    head = struct.pack("<4s2II2HI2H4x3f4xfiBiBBH", b"VTF\0", 7, 2, 80, 16384, 16376, 0, 1, 0, 0, 0, 0, 1.0, 13, 13, -1, 0, 0, 1)
    mips = sum(-(-max(1, 16384 >> m) // 4) * -(-max(1, 16376 >> m) // 4) * 8 for m in range(13))
    vtf = head + bytes(80 - len(head)) + bytes(mips)
    pak = _zip_of_copies([f"materials/maps/big/t{i}.vtf" for i in range(3)], vtf)
    del vtf
    lumps = {0: (b'{\n"classname" "worldspawn"\n}\n\0', 0), 40: (pak, 0)}
    path = tmp_path / "big_vtfs.bsp"
    path.write_bytes(_lumps_file(b"VBSP" + struct.pack("<i", 20), 64, lumps))
    assert path.stat().st_size < 1_000_000
    code = (
        "import bspkit\n"
        f"b = bspkit.load({str(path)!r})\n"
        "for t in b.texture_arrays():\n    print(t['name'], '|', t.get('missing', 'decoded'))\n"
    )
    lines, peak_mib = run_child_with_peak(code)
    assert len(lines) == 3, lines
    for line in lines:
        assert "max_image_pixels" in line and str(16384 * 16376) in line, line
    print(f"3 VTFs of 16384x16376 in a {path.stat().st_size}-byte map: budget misses at peak {peak_mib:.1f} MiB")
    assert peak_mib < 400, peak_mib
