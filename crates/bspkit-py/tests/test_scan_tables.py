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

# One xdist worker runs this file (scripts/test.sh passes `--dist loadgroup`): its module
# fixtures (the corpus scan, the `bsp scan --out` tables, the Dask cluster) and its imports of
# Dask, moto and s3fs are then made once, not once on each worker.
pytestmark = pytest.mark.xdist_group("scan_tables")


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


# moto's server accepts any credentials: these are its documented placeholders, not secrets.
S3_TEST_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="module")
def corpus_scan():
    """`bspkit.scan` of the whole corpus, made once for this file's tests that compare with it
    (pyarrow tables are immutable; each scan took about 1.4 s of CPU, docs/setup-test-time.md,
    session 41)."""
    return bspkit.scan(need_corpus())


@pytest.fixture(scope="module")
def dask_client():
    """One local two-process Dask cluster for this file's distributed scans (its start-up, the
    worker processes importing Dask and bspkit, was made once per test). Its workers start
    with the S3 test server's fake credentials in their environment, as they had when the
    object-store test started its own cluster after `s3_store` had set them."""
    distributed = pytest.importorskip("distributed", reason="dask[distributed] not installed")
    with pytest.MonkeyPatch.context() as env:
        for k, v in S3_TEST_ENV.items():
            env.setenv(k, v)
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def cli_tables(tmp_path_factory):
    """`bsp scan --out` of the whole corpus into a fresh folder, made once for this file's tests
    that read its tables (each test only reads them, or rescans asserting nothing changes): the
    folder and the scan's first statistics."""
    out = tmp_path_factory.mktemp("cli_tables")
    return out, cli_scan(need_corpus(), out)


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
    assert rb.schema.metadata[b"bspkit.schema_version"] == b"2"


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


def test_corpus_tables_match_the_maps_and_the_cli(corpus_scan, cli_tables):
    root = need_corpus()
    t = corpus_scan
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
    tmp_path, stats = cli_tables
    assert stats["files_read"] == len(maps)
    for name in bspkit.TABLES:
        back = pq.read_table(tmp_path / f"{name}.parquet")
        assert back.schema.metadata[b"bspkit.schema_version"] == b"2"
        assert without_timing(back).equals(without_timing(t[name])), name
    # Again: nothing read, nothing written differently.
    before = {n: (tmp_path / f"{n}.parquet").read_bytes() for n in bspkit.TABLES}
    stats = cli_scan(root, tmp_path)
    assert (stats["files_read"], stats["files_unchanged"]) == (0, len(maps))
    assert before == {n: (tmp_path / f"{n}.parquet").read_bytes() for n in bspkit.TABLES}


def test_duckdb_recipe(tmp_path, request):
    duckdb = pytest.importorskip("duckdb", reason="duckdb not installed")
    need_corpus()
    # The tables `bsp scan --out` wrote (shared with the test above, which rescans them and
    # asserts not a byte changes); this test's own files (models.csv) go in its tmp_path.
    tables, _ = request.getfixturevalue("cli_tables")
    t = request.getfixturevalue("corpus_scan")
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{tables},{tmp_path}'")
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


def test_dask_distributed_scan_equals_single_process(tmp_path, request):
    pytest.importorskip("distributed", reason="dask[distributed] not installed")
    import bspkit.distributed

    root = need_corpus()
    single = request.getfixturevalue("corpus_scan")
    client = request.getfixturevalue("dask_client")
    tables = bspkit.distributed.scan([root], client, out=tmp_path, chunks=7)
    for name in bspkit.TABLES:
        assert without_timing(tables[name]).equals(without_timing(single[name])), name
        back = pq.read_table(tmp_path / f"{name}.parquet")
        assert without_timing(back).equals(without_timing(single[name])), name


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3_store(monkeypatch):
    """A local S3-compatible server (moto's, from PyPI) with an empty bucket; skips when moto,
    s3fs or boto3 is not installed (scripts/test.sh installs them)."""
    server = pytest.importorskip("moto.server", reason="moto[server] not installed")
    pytest.importorskip("s3fs", reason="s3fs not installed")
    boto3 = pytest.importorskip("boto3", reason="boto3 not installed")
    for k, v in S3_TEST_ENV.items():
        monkeypatch.setenv(k, v)
    port = free_port()
    moto = server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    moto.start()
    try:
        endpoint = f"http://127.0.0.1:{port}"
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
        client.create_bucket(Bucket="maps")
        options = {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": endpoint}}
        yield client, options
    finally:
        moto.stop()


def object_store_files(root):
    # Maps whose rows do not depend on files beside them: a Respawn map's `.bsp_lump` and `.ent`
    # files (and Source `.lmp` patches) are read from disk by a local scan but are not part of
    # the map's bytes.
    files = []
    for dirpath, _, names in os.walk(root):
        if any(n.endswith((".bsp_lump", ".ent", ".lmp")) for n in names):
            continue
        files += [os.path.join(dirpath, n) for n in names if bspkit._bspkit._is_scanned_name(n)]
    return sorted(files)


def test_object_store_scan_equals_the_local_scan(tmp_path, s3_store, request):
    root = need_corpus()
    client, options = s3_store
    files = object_store_files(root)
    assert len(files) >= 40, len(files)
    for f in files:
        client.upload_file(f, "maps", "lib/" + os.path.relpath(f, root))
    good = SAMPLE.read_bytes()
    client.put_object(Bucket="maps", Key="lib/zz/half.bsp", Body=good[: len(good) // 2])
    client.put_object(Bucket="maps", Key="lib/zz/notes.txt", Body=b"not a map: not listed")
    buf = tmp_path / "pak.pk3"
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("maps/good.bsp", good)
    client.upload_file(str(buf), "maps", "lib/zz/pak.pk3")

    local = bspkit.scan(files)
    remote = bspkit.scan(["s3://maps/lib/", "s3://maps/missing.bsp"], storage_options=options)
    maps = remote["maps"].to_pylist()
    url_of = {f: "s3://maps/lib/" + os.path.relpath(f, root) for f in files}
    # One row per object (the `.txt` not listed), in URL order; the corpus rows equal the local
    # scan's but for the path and time, and every content table is the same.
    assert [m["path"] for m in maps[: len(files)]] == [url_of[f] for f in files]
    for a, b in zip(local["maps"].to_pylist(), maps):
        assert b["path"] == url_of[a["path"]]
        assert b["mtime_ns"] > 0 and b["size"] == a["size"]
        for k in ("path", "mtime_ns", "scan_micros"):
            a.pop(k), b.pop(k)
        assert a == b
    # Content tables: the local scan's rows first, then only rows of the archive's map.
    good_sha = hashlib.sha256(good).hexdigest()
    for name in bspkit.TABLES[1:-1]:
        n = local[name].num_rows
        assert remote[name].slice(0, n).equals(local[name]), name
        assert set(remote[name].slice(n)["map_sha256"].to_pylist()) <= {good_sha}, name
    content = remote["problems"].filter(remote["problems"]["map_sha256"].is_valid())
    local_content = local["problems"].filter(local["problems"]["map_sha256"].is_valid())
    assert content.slice(0, local_content.num_rows).equals(local_content)
    # The hostile object, the archive's map and the missing object.
    tail = {(m["path"], m["entry"]): m for m in maps[len(files):]}
    assert tail[("s3://maps/lib/zz/half.bsp", None)]["error"]
    assert tail[("s3://maps/lib/zz/pak.pk3", "maps/good.bsp")]["sha256"] == hashlib.sha256(good).hexdigest()
    assert tail[("s3://maps/missing.bsp", None)]["error"] == "io"
    problems = remote["problems"].to_pylist()
    assert any(p["path"] == "s3://maps/missing.bsp" and "cannot list" in p["message"] for p in problems)

    # The same scan as a Dask job: the workers fetch their chunks' objects themselves.
    pytest.importorskip("distributed", reason="dask[distributed] not installed")
    from bspkit import distributed as bspkit_distributed

    dclient = request.getfixturevalue("dask_client")
    tables = bspkit_distributed.scan(["s3://maps/lib/", "s3://maps/missing.bsp"], dclient, out=tmp_path / "out", chunks=5, storage_options=options)
    for name in bspkit.TABLES:
        assert without_timing(tables[name]).equals(without_timing(remote[name])), name


def test_object_changed_while_read_is_reported(s3_store, monkeypatch):
    """An object rewritten while it is read — same size, within the same second, so only its
    ETag tells — is a ``file_changed`` row with nothing of it kept; the others are scanned."""
    client, options = s3_store
    good = SAMPLE.read_bytes()
    at = good.index(b"worldspawn") + 9
    other = good[:at] + b"m" + good[at + 1 :]
    assert len(other) == len(good)
    client.put_object(Bucket="maps", Key="race/a.bsp", Body=good)
    client.put_object(Bucket="maps", Key="race/b.bsp", Body=good)

    import fsspec

    real_open = fsspec.open

    class Racing:
        # The object is replaced by a writer right after its bytes were read.
        def __init__(self, inner):
            self.inner = inner

        def __enter__(self):
            f = self.inner.__enter__()
            real_read = f.read

            def read(*a):
                data = real_read(*a)
                client.put_object(Bucket="maps", Key="race/a.bsp", Body=other)
                return data

            f.read = read
            return f

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

    def racing_open(url, *a, **k):
        f = real_open(url, *a, **k)
        return Racing(f) if url.endswith("race/a.bsp") else f

    monkeypatch.setattr(fsspec, "open", racing_open)
    tables = bspkit.scan(["s3://maps/race/"], storage_options=options)
    maps = {m["path"]: m for m in tables["maps"].to_pylist()}
    assert set(maps) == {"s3://maps/race/a.bsp", "s3://maps/race/b.bsp"}
    a, b = maps["s3://maps/race/a.bsp"], maps["s3://maps/race/b.bsp"]
    assert a["error"] == "file_changed" and a["sha256"] is None, a
    assert b["error"] is None and b["sha256"] == hashlib.sha256(good).hexdigest()
    problems = [p for p in tables["problems"].to_pylist() if p["path"] == "s3://maps/race/a.bsp"]
    assert [p["code"] for p in problems] == ["file_changed"]
    assert "changed while it was read" in problems[0]["message"]
    # Nothing of the bytes read is kept: the only content rows are b.bsp's.
    assert set(tables["entities"]["map_sha256"].to_pylist()) == {b["sha256"]}

    # Without the writer: both objects read, no false report.
    monkeypatch.setattr(fsspec, "open", real_open)
    tables = bspkit.scan(["s3://maps/race/"], storage_options=options)
    assert [m["error"] for m in tables["maps"].to_pylist()] == [None, None]
