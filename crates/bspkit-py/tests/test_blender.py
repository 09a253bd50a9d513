"""The Blender add-on (blender/bspkit_blender), tested in a real Blender run headless:
import a corpus map of every family, compare what Blender holds with the bspkit package's own
numbers, render one picture per family (blender/tests/import_and_render.py does the work inside
Blender). Skips where `blender` is absent (BSPKIT_BLENDER names another binary); with
BSPKIT_BLENDER_PICTURES=DIR the renders are copied there (how docs/pictures/blender_*.png were
made)."""

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
from conftest import REPO, corpus_dir

BLENDER = shutil.which(os.environ.get("BSPKIT_BLENDER", "blender"))
SCRIPT = REPO / "blender" / "tests" / "import_and_render.py"
# One map of every family the scene API builds (file names in the corpus manifest).
MAPS = {
    "quake": "quake1/qbsp__lq_e0m1.bsp",
    "goldsrc": "goldsrc/qbsp__example-halflife.bsp",
    "quake2": "quake2/qbsp__example-quake2.bsp",
    "quake3": "quake3/rtcwviewer__TESTROOM.bsp",
    "source": "source/bsp_tool__tf2_test2.bsp",
    "respawn": "respawn/bsp_tool__tf2r_mp_crossfire.bsp",
    "cod": "cod/bsp_tool__cod4_mp_lobby.d3dbsp",
    "genesis3d": "genesis3d/genesis3d__genvs2.bsp",
}


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


@pytest.mark.skipif(BLENDER is None, reason="blender is not installed (apt-get install blender)")
def test_blender_imports_and_renders_every_family(tmp_path):
    root = corpus_dir()
    if root is None:
        pytest.skip("set BSPKIT_CORPUS to the real-map corpus directory")
    maps = [str(root / m) for m in MAPS.values()]
    # bspkit as this interpreter has it (the venv scripts/test.sh builds), with its NumPy: the
    # venv's site-packages processed as a site directory (maturin's editable install is a .pth).
    sites = [sysconfig.get_paths()["purelib"], str(pathlib.Path(bspkit.__file__).resolve().parents[1])]
    out = tmp_path / "renders"
    cmd = [BLENDER, "-b", "--factory-startup", "--python-exit-code", "1", "--python", str(SCRIPT), "--"]
    for s in sites:
        cmd += ["--site", s]
    cmd += ["--out", str(out), "--samples", "8", *maps]
    env = dict(os.environ, BLENDER_USER_SCRIPTS=str(tmp_path / "scripts"), BLENDER_USER_CONFIG=str(tmp_path / "config"))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)
    log = "\n".join(l for l in (p.stdout + p.stderr).splitlines() if "bspkit-blender" in l or "Error" in l or "assert" in l.lower())
    assert p.returncode == 0, f"blender exited {p.returncode}:\n{log}\n{p.stderr[-3000:]}"
    results = json.loads((out / "results.json").read_text())
    assert {r["family"] for r in results} == set(MAPS), [r["family"] for r in results]
    for r in results:
        assert not r["problems"], r
        assert r["got"]["triangles"] > 0 and r["got"]["triangles"] == r["expected"]["triangles"], r
        assert pathlib.Path(r["render"]["file"]).stat().st_size > 1000, r
    pictures = os.environ.get("BSPKIT_BLENDER_PICTURES")
    if pictures:
        os.makedirs(pictures, exist_ok=True)
        for r in results:
            shutil.copy(r["render"]["file"], pictures)
