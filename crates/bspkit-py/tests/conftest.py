"""Shared fixtures: the corpus maps (from BSPKIT_CORPUS, as the Rust tests read them), the
committed sample map, and the `bsp` CLI binary (BSPKIT_CLI) to compare against."""

import json
import os
import pathlib
import subprocess
import sys
import warnings

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
SAMPLE = REPO / "samples" / "sample_quake1.bsp"


def run_child_with_peak(code, timeout=300):
    """Run `code` in a child interpreter, which must exit normally: the lines it printed and its
    peak resident memory in MiB (its own VmHWM, printed after `code` has run). Not ru_maxrss:
    Linux keeps a process's maximum across fork and exec, so a child's ru_maxrss is at least
    what the pytest process held when it forked."""
    code = code + (
        "for _line in open('/proc/self/status'):\n"
        "    if _line.startswith('VmHWM:'):\n"
        "        print('peak', int(_line.split()[1]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    *lines, peak = out.stdout.splitlines() or [""]
    assert peak.startswith("peak "), out.stdout
    return lines, int(peak.split()[1]) / 1024


def corpus_dir():
    d = os.environ.get("BSPKIT_CORPUS")
    if not d:
        return None
    p = pathlib.Path(d)
    if not p.is_absolute() and not p.is_dir():
        p = REPO / d
    if not p.is_dir():
        # A fresh clone passes without the corpus: the corpus tests skip, saying why.
        warnings.warn(f"BSPKIT_CORPUS={d} is not a directory: the corpus tests are skipped")
        return None
    return p


def corpus_maps():
    """Every map of the corpus manifest, as (id, path)."""
    root = corpus_dir()
    if root is None:
        return []
    out = []
    for line in (root / "manifest.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        m = json.loads(line)
        folder = root / m["family"]
        name = pathlib.Path(m["file"]).name
        path = folder / m["file"]
        if not path.exists():
            hits = sorted(folder.rglob(name))
            path = hits[0] if hits else path
        out.append(pytest.param(path, id=f"{m['family']}/{name}"))
    return out


MAPS = corpus_maps()
if not MAPS:
    MAPS = [pytest.param(None, id="no-corpus", marks=pytest.mark.skip(reason="set BSPKIT_CORPUS to the real-map corpus directory"))]


@pytest.fixture(scope="session")
def cli():
    exe = os.environ.get("BSPKIT_CLI")
    if not exe:
        pytest.skip("set BSPKIT_CLI to the bsp binary to compare with it")
    return exe
