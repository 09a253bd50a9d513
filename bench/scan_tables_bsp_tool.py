"""The library-table scan done the usual Python way, for `bench/scan_tables.sh`: bsp_tool 0.7.0
(GPL-3.0, from PyPI; used as a program, nothing of it is copied) in a multiprocessing pool, one
map per task, building the rows `bsp scan --out` writes that bsp_tool can give — `maps`
(path, size, SHA-256, branch, lump and entity counts), `entities` (classname, targetname,
origin, every key/value), `lumps` (index, name, offset, length), `props` (Source/Respawn static
props: model, origin, angles, skin) — then writing them as Parquet with pyarrow. A map
bsp_tool cannot read becomes a `problems` row.

    bench/.venv/bin/python bench/scan_tables_bsp_tool.py CORPUS OUT [PROCESSES]

Prints one JSON line: maps, bytes, seconds, rows per table.
"""
import hashlib
import json
import multiprocessing
import os
import sys
import time


def rows_of(path):
    try:
        return _rows_of(path)
    except Exception as e:  # a map bsp_tool reads but whose lumps are not what it expects
        with open(path, "rb") as f:
            data = f.read()
        sha = hashlib.sha256(data).hexdigest()
        return {
            "maps": [{"path": path, "size": len(data), "sha256": sha, "branch": None, "lumps": None, "entities": None, "error": type(e).__name__}],
            "entities": [], "lumps": [], "props": [],
            "problems": [{"path": path, "code": type(e).__name__, "message": str(e)[:200]}],
        }


def _rows_of(path):
    import bsp_tool

    with open(path, "rb") as f:
        data = f.read()
    sha = hashlib.sha256(data).hexdigest()
    out = {"maps": [], "entities": [], "lumps": [], "props": [], "problems": []}
    try:
        bsp = bsp_tool.load_bsp(path)
    except Exception as e:  # bsp_tool raises anything; every failure is a problems row
        out["maps"].append({"path": path, "size": len(data), "sha256": sha, "branch": None, "lumps": None, "entities": None, "error": type(e).__name__})
        out["problems"].append({"path": path, "code": type(e).__name__, "message": str(e)[:200]})
        return out
    ents = getattr(bsp, "ENTITIES", None) or []
    for i, e in enumerate(ents):
        origin = None
        try:
            o = [float(x) for x in str(e.get("origin", "")).split()]
            origin = o if len(o) == 3 else None
        except ValueError:
            pass
        out["entities"].append({
            "map_sha256": sha,
            "index": i,
            "classname": e.get("classname"),
            "targetname": e.get("targetname"),
            "origin_x": origin[0] if origin else None,
            "origin_y": origin[1] if origin else None,
            "origin_z": origin[2] if origin else None,
            "keyvalues": [(str(k), str(v)) for k, v in e.items()],
        })
    for i, (name, h) in enumerate(bsp.headers.items()):
        out["lumps"].append({"map_sha256": sha, "index": i, "name": name, "offset": int(getattr(h, "offset", 0)), "length": int(getattr(h, "length", 0))})
    gl = getattr(bsp, "GAME_LUMP", None)
    sprp = getattr(gl, "sprp", None) if gl is not None else None
    for i, p in enumerate(getattr(sprp, "props", None) or []):
        names = getattr(sprp, "model_names", [])
        m = getattr(p, "model_name", None)
        model = names[m] if isinstance(m, int) and m < len(names) else None
        out["props"].append({
            "map_sha256": sha,
            "index": i,
            "model": str(model) if model is not None else None,
            "origin": [float(x) for x in getattr(p, "origin", (0, 0, 0))],
            "angles": [float(x) for x in getattr(p, "angles", (0, 0, 0))],
            "skin": int(getattr(p, "skin", 0)),
        })
    out["maps"].append({"path": path, "size": len(data), "sha256": sha, "branch": getattr(bsp.branch, "__name__", str(bsp.branch)), "lumps": len(bsp.headers), "entities": len(ents), "error": None})
    return out


def main():
    corpus, out_dir = sys.argv[1], sys.argv[2]
    procs = int(sys.argv[3]) if len(sys.argv) > 3 else os.cpu_count()
    import pyarrow as pa
    import pyarrow.parquet as pq

    start = time.perf_counter()
    files = sorted(
        os.path.join(r, f) for r, _, fs in os.walk(corpus) for f in fs if f.lower().endswith((".bsp", ".d3dbsp"))
    )
    with multiprocessing.Pool(procs) as pool:
        results = pool.map(rows_of, files, chunksize=1)
    tables = {k: [] for k in ("maps", "entities", "lumps", "props", "problems")}
    seen = set()
    for r in results:
        tables["maps"] += r["maps"]
        tables["problems"] += r["problems"]
        sha = r["maps"][0]["sha256"]
        if sha in seen:
            continue
        seen.add(sha)
        for k in ("entities", "lumps", "props"):
            tables[k] += r[k]
    os.makedirs(out_dir, exist_ok=True)
    for name, rows in tables.items():
        pq.write_table(pa.Table.from_pylist(rows), os.path.join(out_dir, f"{name}.parquet"), compression="snappy")
    secs = time.perf_counter() - start
    total = sum(m["size"] for m in tables["maps"])
    print(json.dumps({"tool": "bsp_tool", "processes": procs, "maps": len(files), "bytes": total, "seconds": secs, "rows": {k: len(v) for k, v in tables.items()}}))


if __name__ == "__main__":
    main()
