"""What the Blender add-on reads from the package, checked against the package's other views
of the same map: per-triangle material / lightmap page / flags against `Mesh`, static props
against the glTF export, texture alpha modes, and maps inside a .pk3."""

import zipfile

import numpy as np
import pytest

import bspkit
from conftest import SAMPLE, corpus_dir


def corpus_map(rel):
    root = corpus_dir()
    if root is None:
        pytest.skip("set BSPKIT_CORPUS to the real-map corpus directory")
    return str(root / rel)


def per_triangle_from_meshes(model):
    """The same three arrays built the slow way, one `Mesh` at a time."""
    t = model.numpy()["indices"].shape[0]
    material = np.full(t, -1, np.int64)
    flags = np.zeros(t, np.int64)
    first = 0
    for mesh in model.meshes:
        n = len(mesh.polygons)
        material[first : first + n] = mesh.material_index
        flags[first : first + n] = sum(bspkit.SURFACE_FLAGS[f] for f in mesh.flags)
        first += n
    assert first == t
    return material, flags


@pytest.mark.parametrize("rel", [None, "quake3/turtlearena__test_smash.bsp", "source/bsp_tool__tf2_test2.bsp", "quake1/ericw__q1_detail_fence2.bsp"])
def test_per_triangle_arrays_match_the_meshes(rel):
    bsp = bspkit.load(SAMPLE if rel is None else corpus_map(rel))
    scene = bsp.scene()
    pages = {a["page"] for a in bsp.lightmap_atlases()}
    for model in scene.models:
        d = model.numpy()
        t = d["indices"].shape[0]
        assert d["material"].shape == d["lightmap_page"].shape == d["flags"].shape == (t,)
        material, flags = per_triangle_from_meshes(model)
        assert (d["material"] == material).all()
        assert (d["flags"] == flags).all()
        assert d["material"].max(initial=0) < len(scene.materials)
        # Pages are -1 or pages the atlases have; lit triangles have lightmap UVs.
        assert set(np.unique(d["lightmap_page"]).tolist()) <= pages | {-1}
        if (d["lightmap_page"] >= 0).any():
            assert len(d["uv1"]) == len(d["position"])
    # Material flags are each material's own; every surface carries at least those.
    assert len(scene.material_flags) == len(scene.materials)
    for model in scene.models:
        for mesh in model.meshes:
            assert set(scene.material_flags[mesh.material_index]) <= set(mesh.flags)


def test_surface_flags_are_bits():
    bits = list(bspkit.SURFACE_FLAGS.values())
    assert len(bits) == len(set(bits)) and all(b & (b - 1) == 0 for b in bits)
    assert {"sky", "nodraw", "trigger", "clip", "tool", "alphatest"} <= set(bspkit.SURFACE_FLAGS)


def test_brush_models_name_their_entity():
    bsp = bspkit.load(corpus_map("quake1/qbsp__lq_e0m1.bsp"))
    models = bsp.scene().models
    assert models[0].entity in (None, 0)
    placed = [m for m in models[1:] if m.entity is not None]
    assert placed
    for m in placed:
        assert bsp.ENTITIES[m.entity]["model"] == f"*{m.index}"


def test_props_are_the_exports(tmp_path):
    bsp = bspkit.load(corpus_map("source/bsp_tool__tf2_test2.bsp"))
    props = bsp.scene().props
    summary = bsp.export_gltf(tmp_path / "x.glb", textures=False)
    assert len(props) == summary["props"] == 17
    sprp = bsp.GAME_LUMP.sprp
    names = [p.model_name for p in sprp.props]
    assert [p["model"] for p in props] == names
    assert all(len(p["origin"]) == 3 and len(p["angles"]) == 3 for p in props)


def test_texture_alpha_modes():
    bsp = bspkit.load(corpus_map("quake1/ericw__q1_detail_fence2.bsp"))
    modes = {t["name"]: (t["alpha"], t.get("alpha_cutoff")) for t in bsp.textures() if "missing" not in t}
    # Quake: `{` textures are alpha-tested (palette index 255 transparent), the rest opaque.
    assert modes["{trigger"][0] == "mask" and modes["{trigger"][1] is not None
    assert modes["orangestuff8"] == ("opaque", None)
    arrays = {t["name"]: t["alpha"] for t in bsp.texture_arrays() if "missing" not in t}
    assert arrays == {k: v[0] for k, v in modes.items()}


def test_lightmap_overbright():
    for a in bspkit.load(SAMPLE).lightmap_atlases():
        assert a["overbright"] > 0


def test_maps_inside_an_archive(tmp_path):
    pk3 = tmp_path / "pak0.pk3"
    with zipfile.ZipFile(pk3, "w") as z:
        z.writestr("maps/b.bsp", SAMPLE.read_bytes())
        z.writestr("maps/a.bsp", SAMPLE.read_bytes())
        z.writestr("readme.txt", "not a map")
    assert bspkit.archive_maps(pk3) == ["maps/a.bsp", "maps/b.bsp"]
    inside = bspkit.load(f"{pk3}!maps/b.bsp")
    assert inside.to_bytes() == SAMPLE.read_bytes()
    assert inside.path is None or "pak0.pk3" in inside.path
    with pytest.raises(bspkit.BspError):
        bspkit.load(f"{pk3}!maps/none.bsp")
    with pytest.raises(bspkit.BspError):
        bspkit.archive_maps(tmp_path / "missing.pk3")
