"""README.md's Python examples as executable documentation: every statement of its fenced
`python` blocks runs, in order, in a scratch folder where the names the README uses exist
(`maps/ctf_2fort.bsp`, `maps/q3dm1.bsp`, `pak0.pk3`, ... : copies of corpus maps, prepared with
the `bsp` CLI so that the entities the examples search for are there). A statement may fail only
when `EXPECTED` lists it with the exception and the reason, so the README's Python cannot drift
from the package (the `sh` examples are run by scripts/readme_examples.py)."""

import ast
import pathlib
import re
import shutil
import subprocess
import zipfile

import pytest

import bspkit
from conftest import REPO, SAMPLE, corpus_dir

np = pytest.importorskip("numpy")

# Statements (their first line, stripped; `a; b` is two) allowed to raise, with the exception and why.
EXPECTED = {
    "bsp.ENTITIES_spawn": (
        AttributeError,
        "Respawn only, as its comment says; the stand-in bsp is a Source map",
    ),
}
# Blocks not run, by a line they contain, with the reason.
SKIPPED_BLOCKS = {
    'bspkit.scan(["s3://maps/quake/"], storage_options=opts)': "needs an S3 server "
    "(test_scan_tables.py runs the same scan against moto's local one)",
}
# Modules a block needs beyond bspkit and NumPy (by what it contains): the block is skipped,
# saying so, without them (scripts/test.sh installs them).
OPTIONAL = {"import duckdb": "duckdb", "bspkit.scan(": "pyarrow"}


def blocks():
    text = (REPO / "README.md").read_text()
    for m in re.finditer(r"```python\n(.*?)```", text, re.S):
        yield text[: m.start()].count("\n") + 2, m.group(1)


def corpus_map(rel):
    root = corpus_dir()
    if root is None or not (root / rel).is_file():
        pytest.skip(f"needs the corpus map {rel} (set BSPKIT_CORPUS)")
    return root / rel


@pytest.fixture
def scratch(tmp_path, cli, monkeypatch):
    """The README's names in `tmp_path`, and the names its blocks take as given."""
    (tmp_path / "maps").mkdir()
    src = tmp_path / "maps" / "ctf_2fort.bsp"
    shutil.copyfile(corpus_map("source/bsp_tool__tf2_test2.bsp"), src)
    shutil.copyfile(corpus_map("quake3/bsp_tool__q3_mp_lobby.bsp"), tmp_path / "maps" / "q3dm1.bsp")
    (tmp_path / "x.vmt").write_text('"UnlitGeneric"\n{\n}\n')

    def bsp(*args):
        r = subprocess.run([cli, *map(str, args)], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, (args, r.stderr)

    # What the entity examples search for and edit: a light_spot, relay1 with its outputs.
    bsp("ents", "add", src, "classname=light_spot", "_light=255 255 255 200", "--in-place")
    bsp("ents", "add", src, "classname=logic_relay", "targetname=relay1", "OnTrigger=a,Trigger,,0,-1",
        "OnTrigger=b,Trigger,,0,-1", "OnUser1=a,Kill,,0,-1", "--in-place")
    bsp("pak", "add", src, "materials/x.vmt", "x.vmt", "--in-place")
    bsp("lump", "extract", src, "0", "--lmp", "-o", "ctf_2fort_l_0.lmp")
    with zipfile.ZipFile(tmp_path / "pak0.pk3", "w") as z:
        z.write(tmp_path / "maps" / "q3dm1.bsp", "maps/q3dm1.bsp")
    (tmp_path / "hl2").mkdir()
    monkeypatch.chdir(tmp_path)
    return {
        "data": src.read_bytes(),
        "q2": bspkit.load(corpus_map("quake2/bsp_tool__q2_mp_lobby.bsp")),
        "q1": bspkit.load(SAMPLE),
        "new_bytes": bspkit.load(src).raw_lump("LIGHTING"),
    }


def test_readme_python_examples_run(scratch):
    ns = dict(scratch)
    ran = skipped = 0
    failures = []
    seen = set()
    for first, code in blocks():
        why = next((w for line, w in SKIPPED_BLOCKS.items() if line in code), None)
        missing = [m for text, m in OPTIONAL.items() if text in code and not _importable(m)]
        if why or missing:
            print(f"skip  README.md:{first}: {why or 'needs ' + ', '.join(missing)}")
            skipped += 1
            continue
        for stmt in ast.parse(code).body:
            src = ast.get_source_segment(code, stmt)
            key = src.splitlines()[0].strip()
            where = f"README.md:{first + stmt.lineno - 1}"
            want = EXPECTED.get(key)
            seen.add(key)
            try:
                exec(compile(ast.Module([stmt], []), where, "exec"), ns)
            except Exception as e:  # noqa: BLE001 - every failure is reported with its line
                if want and isinstance(e, want[0]):
                    continue
                failures.append(f"{where}: {key}: {type(e).__name__}: {e}")
                continue
            if want:
                failures.append(f"{where}: {key}: EXPECTED says it raises {want[0].__name__} ({want[1]}); it ran")
            ran += 1
    stale = sorted(set(EXPECTED) - seen)
    failures += [f"in EXPECTED but no longer in the README: {k}" for k in stale]
    assert ran > 50, f"only {ran} statements ran ({skipped} blocks skipped)"
    assert not failures, "\n".join(failures)


def _importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False
