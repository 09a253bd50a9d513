"""The Blender add-on (blender/bspkit_blender), tested in a real Blender run headless:
import a corpus map of every family, compare what Blender holds with the bspkit package's own
numbers, render one picture per family (blender/tests/import_and_render.py does the work inside
Blender). Skips where `blender` is absent (BSPKIT_BLENDER names another binary); with
BSPKIT_BLENDER_PICTURES=DIR the renders are copied there (how docs/pictures/blender_*.png were
made)."""

import functools
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest

import bspkit
from conftest import MAPS as CORPUS
from conftest import REPO, corpus_dir

BLENDER = shutil.which(os.environ.get("BSPKIT_BLENDER", "blender"))
SCRIPT = REPO / "blender" / "tests" / "import_and_render.py"
# Maps of every family the scene API builds (corpus paths): lit maps, embedded textures, an
# alpha-tested texture (fence2), brush models, lights, static props (tf2_test2), Respawn's
# .ent partitions. The Quake 3 map is imported from a .pk3 made by the test.
MAPS = [
    "quake1/qbsp__lq_e0m1.bsp",
    "quake1/ericw__q1_detail_fence2.bsp",
    "goldsrc/goldsrc-renderer__in-bsp-texture-test.bsp",
    "quake2/qbsp__lq_e0m1-quake2.bsp",
    "quake3/rtcwviewer__TESTROOM.bsp",
    "source/bsp_tool__tf2_test2.bsp",
    "respawn/bsp_tool__tf2r_mp_crossfire.bsp",
    "cod/bsp_tool__cod4_test_traverses.d3dbsp",
    "genesis3d/genesis3d__genvs2.bsp",
]
IN_PK3 = "quake3/turtlearena__test_smash.bsp"
FAMILIES = {"quake", "goldsrc", "quake2", "quake3", "source", "respawn", "cod", "genesis3d"}


@functools.lru_cache(maxsize=None)
def blender_python():
    """(major, minor) of the Python inside Blender, asked once per test process (a Blender
    start, about 1.2 s of CPU)."""
    p = subprocess.run(
        [BLENDER, "-b", "--factory-startup", "--python-expr", "import sys; print('PYVER', *sys.version_info[:2])"],
        capture_output=True, text=True, timeout=600,
    )
    line = next(l for l in p.stdout.splitlines() if l.startswith("PYVER"))
    return tuple(int(x) for x in line.split()[1:3])


def test_addon_zips(tmp_path):
    """The packaging script makes a legacy add-on zip (folder + bl_info) and a 4.2+ extension
    zip (manifest at the top) whose versions agree."""
    out = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_blender_addon.py"), "--out", str(tmp_path)],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    legacy, ext = (zipfile.ZipFile(p) for p in out)
    assert "bspkit_blender/__init__.py" in legacy.namelist()
    assert "bspkit_blender/importer.py" in legacy.namelist()
    assert "bl_info" in legacy.read("bspkit_blender/__init__.py").decode()
    assert {"__init__.py", "importer.py", "blender_manifest.toml"} <= set(ext.namelist())
    manifest = ext.read("blender_manifest.toml").decode()
    assert 'type = "add-on"' in manifest and 'id = "bspkit_importer"' in manifest
    assert pathlib.Path(out[0]).name == "bspkit_blender-0.1.0.zip"
    # Deterministic: a second build is byte-identical.
    again = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_blender_addon.py"), "--out", str(tmp_path / "b")],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    assert [pathlib.Path(p).read_bytes() for p in out] == [pathlib.Path(p).read_bytes() for p in again]


def run_blender(tmp_path, maps, *extra):
    """Run import_and_render.py in a headless Blender over `maps`; its results, as a list."""
    # bspkit as this interpreter has it (the venv scripts/test.sh builds), with its NumPy: the
    # venv's site-packages processed as a site directory (maturin's editable install is a .pth).
    sites = [sysconfig.get_paths()["purelib"], str(pathlib.Path(bspkit.__file__).resolve().parents[1])]
    # The abi3 bspkit runs in any Python >= 3.9; NumPy is built per Python version. When
    # Blender's Python is not this one (and Blender brings no NumPy), a NumPy wheel for its
    # version goes into a folder searched first.
    ver = blender_python()
    if ver != sys.version_info[:2]:
        import numpy

        target = tmp_path / "numpy"
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--only-binary=:all:", "--python-version", f"{ver[0]}.{ver[1]}", "--target", str(target),
             f"numpy=={numpy.__version__}"],
            check=True,
        )
        sites.insert(0, str(target))
    out = tmp_path / "renders"
    cmd = [BLENDER, "-b", "--factory-startup", "--python-exit-code", "1", "--python", str(SCRIPT), "--"]
    for s in sites:
        cmd += ["--site", s]
    cmd += ["--out", str(out), *extra, *maps]
    env = dict(os.environ, BLENDER_USER_SCRIPTS=str(tmp_path / "scripts"), BLENDER_USER_CONFIG=str(tmp_path / "config"))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    log = "\n".join(l for l in (p.stdout + p.stderr).splitlines() if "bspkit-blender" in l or "Error" in l or "assert" in l.lower())
    assert p.returncode == 0, f"blender exited {p.returncode}:\n{log}\n{p.stderr[-3000:]}"
    results = json.loads((out / "results.json").read_text())
    assert len(results) == len(maps)
    return results


@pytest.mark.skipif(BLENDER is None, reason="blender is not installed (apt-get install blender)")
def test_blender_imports_and_renders_every_family(tmp_path):
    root = corpus_dir()
    if root is None:
        pytest.skip("set BSPKIT_CORPUS to the real-map corpus directory")
    pk3 = tmp_path / "pak0.pk3"
    with zipfile.ZipFile(pk3, "w") as z:
        z.write(root / IN_PK3, "maps/" + pathlib.Path(IN_PK3).name)
    maps = [str(pk3)] + [str(root / m) for m in MAPS]
    # The add-on as users install it: the zip the packaging script makes.
    addon_zip = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_blender_addon.py"), "--out", str(tmp_path / "zips")],
        check=True, capture_output=True, text=True,
    ).stdout.split()[0]
    # The render checks (the map covers >= 5 % of the frame, not black where drawn) read the
    # same at 240x135 and 2 samples as at the pictures' 480x270 and 8 (coverage and mean colour
    # within 0.01 on every map), at a fifth of Cycles' CPU (docs/setup-test-time.md, session
    # 42). The pictures for docs/ are made at the full size.
    pictures = os.environ.get("BSPKIT_BLENDER_PICTURES")
    quality = ["--samples", "8", "--size", "480", "270"] if pictures else ["--samples", "2", "--size", "240", "135"]
    results = run_blender(tmp_path, maps, "--zip", addon_zip, *quality)
    assert {r["family"] for r in results} == FAMILIES, [r["family"] for r in results]
    for r in results:
        assert not r["problems"], r
        assert r["got"]["triangles"] > 0 and r["got"]["triangles"] == r["expected"]["triangles"], r
        assert pathlib.Path(r["render"]["file"]).stat().st_size > 1000, r
    if pictures:
        os.makedirs(pictures, exist_ok=True)
        for r in results:
            src = pathlib.Path(r["render"]["file"])
            shutil.copy(src, pathlib.Path(pictures) / f"blender_{src.name}")


@pytest.mark.skipif(BLENDER is None, reason="blender is not installed (apt-get install blender)")
def test_blender_imports_every_corpus_map(tmp_path):
    """Every corpus map imports (no render), with the same checks as above. Four corpus maps
    draw nothing by default and make no mesh: two whose faces are all sky / triggers, two with
    no faces in their scene (gchimp's bsp_compile, srctools' rot_main). The maps of MAPS are
    imported and checked by the test above (the same checks, and more): not a second time here."""
    root = corpus_dir()
    if root is None:
        pytest.skip("set BSPKIT_CORPUS to the real-map corpus directory")
    above = {str(root / m) for m in MAPS}
    maps = [str(p.values[0]) for p in CORPUS if str(p.values[0]) not in above]
    assert len(maps) == len(CORPUS) - len(MAPS), "a map of MAPS is not a corpus map"
    results = run_blender(tmp_path, maps, "--no-render")
    for r in results:
        assert not r["problems"], r
        assert r["got"]["triangles"] == r["expected"]["triangles"], r
    assert sum(1 for r in results if r["got"]["triangles"]) >= len(maps) - 4
