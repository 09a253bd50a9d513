"""The library tables (``bspkit.scan``, ``bsp scan --out``) read back with pyarrow and DuckDB,
the README's DuckDB recipe, and the Dask distributed scan on a local multi-process cluster.
pyarrow, duckdb and dask[distributed] are installed by scripts/test.sh; each test skips with a
note when its package is absent."""

import hashlib
import json
import os
import shutil
import subprocess
import zipfile

import pytest

import bspkit

from conftest import SAMPLE, corpus_dir

pa = pytest.importorskip("pyarrow", reason="pyarrow not installed")
import pyarrow.parquet as pq  # noqa: E402


def cli():
    exe = os.environ.get("BSPKIT_CLI")
    if not exe:
        pytest.skip("BSPKIT_CLI (the bsp binary) not set")
    return exe


def need_corpus():
    root = corpus_dir()
    if root is None:
        pytest.skip("set BSPKIT_CORPUS to the real-map corpus")
    return root


def without_timing(t):
    # scan_micros is the one column that differs between two scans of the same files.
    return t.drop_columns(["scan_micros"]) if "scan_micros" in t.column_names else t


def cli_scan(root, out, *extra):
    r = subprocess.run([cli(), "scan", str(root), "--out", str(out), "--json", *extra], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_scan_without_pyarrow_gives_capsule_objects():
    t = bspkit.scan([SAMPLE], pyarrow=False)
    assert list(t) == list(bspkit.TABLES)
    assert t["maps"].num_rows == 1 and hasattr(t["maps"], "__arrow_c_array__")
    # The PyCapsule interface: pyarrow imports the batch without a copy.
    rb = pa.record_batch(t["entities"])
    assert rb.num_rows == len(t["entities"])
    assert rb.schema.metadata[b"bspkit.schema_version"] == b"1"


def test_hostile_files_are_problem_rows(tmp_path):
    good = SAMPLE.read_bytes()
    (tmp_path / "garbage.bsp").write_bytes(b"\xff" * 100)
    (tmp_path / "empty.bsp").write_bytes(b"")
    (tmp_path / "half.bsp").write_bytes(good[: len(good) // 2])
    with zipfile.ZipFile(tmp_path / "pak.pk3", "w") as z:
        z.writestr("maps/good.bsp", good)
        z.writestr("maps/bad.bsp", b"IBSP" + b"\x00" * 10)
    (tmp_path / "broken.pk3").write_bytes(b"PK\x03\x04 not really a zip")
    t = bspkit.scan(tmp_path)
    maps = t["maps"].to_pylist()
    bad = {(os.path.basename(m["path"]), m["entry"]) for m in maps if m["error"]}
    assert bad == {("garbage.bsp", None), ("empty.bsp", None), ("half.bsp", None), ("pak.pk3", "maps/bad.bsp"), ("broken.pk3", None)}
    good_rows = [m for m in maps if not m["error"]]
    assert [(os.path.basename(m["path"]), m["entry"]) for m in good_rows] == [("pak.pk3", "maps/good.bsp")]
    assert good_rows[0]["sha256"] == hashlib.sha256(good).hexdigest()
    problems = t["problems"].to_pylist()
    for name, entry in bad:
        assert any(p["path"] and p["path"].endswith(name) and p["entry"] == entry and p["severity"] == "error" for p in problems)


def test_corpus_tables_match_the_maps_and_the_cli(tmp_path):
    root = need_corpus()
    t = bspkit.scan(root)
    maps = t["maps"].to_pylist()
    assert len(maps) >= 50
    # Hashes: hashlib over the file, and `sha256sum` where it exists.
    sums = {}
    if shutil.which("sha256sum"):
        r = subprocess.run(["sha256sum", *[m["path"] for m in maps]], capture_output=True, text=True, check=True)
        sums = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in r.stdout.splitlines()}
    import pyarrow.compute as pc

    per = {name: pc.value_counts(t[name]["map_sha256"]).to_pylist() for name in ("entities", "lumps", "props")}
    per = {name: {d["values"]: d["counts"] for d in v} for name, v in per.items()}
    for m in maps:
        with open(m["path"], "rb") as f:
            assert m["sha256"] == hashlib.sha256(f.read()).hexdigest()
        if sums:
            assert m["sha256"] == sums[m["path"]]
        info = json.loads(subprocess.run([cli(), "info", "--json", m["path"]], capture_output=True, text=True, check=True).stdout)
        assert per["entities"].get(m["sha256"], 0) == info["entities"], m["path"]
        assert per["lumps"].get(m["sha256"], 0) == len(info["lumps"]), m["path"]
        r = subprocess.run([cli(), "props", "--json", m["path"]], capture_output=True, text=True)
        if r.returncode == 0:
            sprp = json.loads(r.stdout)  # null: no static prop lump
            assert per["props"].get(m["sha256"], 0) == (sprp["count"] if sprp else 0), m["path"]

    # `bsp scan --out` writes the same tables; pyarrow reads them back.
    stats = cli_scan(root, tmp_path)
    assert stats["files_read"] == len(maps)
    for name in bspkit.TABLES:
        back = pq.read_table(tmp_path / f"{name}.parquet")
        assert back.schema.metadata[b"bspkit.schema_version"] == b"1"
        assert without_timing(back).equals(without_timing(t[name])), name
    # Again: nothing read, nothing written differently.
    before = {n: (tmp_path / f"{n}.parquet").read_bytes() for n in bspkit.TABLES}
    stats = cli_scan(root, tmp_path)
    assert (stats["files_read"], stats["files_unchanged"]) == (0, len(maps))
    assert before == {n: (tmp_path / f"{n}.parquet").read_bytes() for n in bspkit.TABLES}


def test_duckdb_recipe(tmp_path):
    duckdb = pytest.importorskip("duckdb", reason="duckdb not installed")
    root = need_corpus()
    cli_scan(root, tmp_path)
    t = bspkit.scan(root)
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{tmp_path}'")
    # README recipe 1: every map with an item_quad (a map found twice is listed at both places);
    # the corpus has none, so the same query runs for a class it does have too.
    found = 0
    for classname in ("item_quad", "info_player_start", "info_player_deathmatch"):
        rows = con.execute("""
            SELECT DISTINCT m.path FROM 'maps.parquet' m
            JOIN 'entities.parquet' e ON e.map_sha256 = m.sha256
            WHERE e.classname = ? ORDER BY 1""", [classname]).fetchall()
        shas = {e["map_sha256"] for e in t["entities"].to_pylist() if e["classname"] == classname}
        expect = sorted({m["path"] for m in t["maps"].to_pylist() if m["sha256"] in shas})
        assert [p for (p,) in rows] == expect, classname
        found += len(expect)
    assert found, "the corpus has maps with player starts"
    # The key/value map column: a key's values.
    wad = con.execute("""
        SELECT count(*) FROM 'entities.parquet'
        WHERE classname = 'worldspawn' AND keyvalues['wad'] IS NOT NULL""").fetchone()[0]
    assert wad == sum(1 for e in t["entities"].to_pylist() if e["classname"] == "worldspawn" and any(k == "wad" for k, _ in e["keyvalues"]))
    # Recipe 2: texture use across the library.
    use = con.execute("""
        SELECT lower(name) AS texture, count(DISTINCT map_sha256) AS maps FROM 'textures.parquet'
        GROUP BY 1 ORDER BY maps DESC, texture""").fetchall()
    counts = {}
    for r in t["textures"].to_pylist():
        counts.setdefault(r["name"].lower(), set()).add(r["map_sha256"])
    assert dict(use) == {k: len(v) for k, v in counts.items()}
    # Recipe 3: props whose model is not among the game's models (here: a list holding half
    # the models used).
    models = sorted({p["model"] for p in t["props"].to_pylist() if p["model"]})
    assert models, "the corpus has Source maps with static props"
    have = models[: len(models) // 2]
    (tmp_path / "models.csv").write_text("model\n" + "".join(f"{m}\n" for m in have))
    missing = con.execute("""
        SELECT DISTINCT m.path, p.model FROM 'props.parquet' p
        JOIN 'maps.parquet' m ON m.sha256 = p.map_sha256
        WHERE p.model NOT IN (SELECT model FROM 'models.csv') ORDER BY 1, 2""").fetchall()
    path_of = {}
    for m in t["maps"].to_pylist():
        path_of.setdefault(m["sha256"], []).append(m["path"])
    expect = sorted({(path, p["model"]) for p in t["props"].to_pylist() if p["model"] and p["model"] not in have for path in path_of[p["map_sha256"]]})
    assert missing == expect and missing


def test_dask_distributed_scan_equals_single_process(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] not installed")
    import bspkit.distributed

    root = need_corpus()
    single = bspkit.scan(root)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            tables = bspkit.distributed.scan([root], client, out=tmp_path, chunks=7)
    for name in bspkit.TABLES:
        assert without_timing(tables[name]).equals(without_timing(single[name])), name
        back = pq.read_table(tmp_path / f"{name}.parquet")
        assert without_timing(back).equals(without_timing(single[name])), name
