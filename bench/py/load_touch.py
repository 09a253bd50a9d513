"""Benchmark: load a map and touch every lump, bspkit against bsp_tool, one process per library.

    python bench/py/load_touch.py --lib bspkit   [--runs N] MAP...   # NumPy and record-object passes
    python bench/py/load_touch.py --lib bsp_tool [--runs N] MAP...
    python bench/py/load_touch.py --lib LIB [--runs N] --serve     # map paths on stdin

Prints one JSON line per map and pass (best of N wall-clock seconds) and a total line.
Passes:
- bspkit `numpy`: `bspkit.load` + `decompress_all()` (every lump is going to be read: a
  compressed map's LZMA lumps decoded at once over the cores) + every record lump's `.numpy()`
  summed as bytes (every byte read) + every other lump's bytes (`raw_lump`); `numpy_lazy` the
  same without `decompress_all()` (each lump decoded when the touch reaches it); `numpy_mmap`
  the same as `numpy` with `bspkit.load(path, mmap=True)` (the file mapped, not read into memory);
- bspkit `records`: `bspkit.load` + `decompress_all()` + every record lump iterated, one object
  per record, and every other lump's bytes;
- bsp_tool `touch`: `bsp_tool.load_bsp` + every lump attribute iterated entry by entry (what
  bench/bsp_tool_load.py does);
- `search`, `search_classes`, `search_links` (both): `search_all_entities(…)` /
  `ENTITIES.search(…)` for the most common classname, for every classname once, and for every
  entity's `target` (see `search_pass`), timed with `timeit` in rounds of about 2 ms (best round).
Not a timed test: numbers are for bench/RESULTS.md ("Python package" section, bench/py/report.py).
"""
import argparse
import collections
import gc
import json
import os
import sys
import time
import timeit


def best(runs, f):
    t_best, out = None, None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        dt = time.perf_counter() - t
        t_best = dt if t_best is None else min(t_best, dt)
    return t_best, out


def timed_loop(runs, search, key, values):
    """Seconds for `search(key=v)` over every v in `values`, measured as `timeit` measures a
    statement: the calls written out in a loop compiled once (no Python function call per
    search around them), repeated for a round of about 2 ms so the timer's own cost is spread
    out, best of `runs` rounds. The garbage collector stays on, as in the libraries' own use."""
    stmt = f"search({key}=v)" if len(values) == 1 else f"for v in values: search({key}=v)"
    timer = timeit.Timer(stmt, setup="gc.enable()", globals={"search": search, "values": values, "v": values[0], "gc": gc})
    once = max(timer.timeit(1), 1e-7)
    reps = max(1, int(2e-3 / once))
    return min(timer.repeat(repeat=runs, number=reps)) / reps


def search_pass(out, runs, ents, search):
    """The search passes, the same for both libraries, entities already parsed:
    - `search`: `search(classname=C)` for the map's most common classname C, one call;
    - `search_classes`: one `search(classname=…)` per distinct classname (a map's inventory);
    - `search_links`: one `search(targetname=T)` per entity with a `target` key (resolving every
      entity's link, as a viewer or decompiler does).
    bspkit's first call per key builds its index; the best round is reported, so that is not in
    the numbers (bench/RESULTS.md says so)."""
    classes = collections.Counter(e.get("classname") for e in ents)
    classes.pop(None, None)
    if not classes:
        return
    common = classes.most_common(1)[0][0]
    out["search"] = timed_loop(runs * 10, search, "classname", [common])
    out["entities"], out["hits"] = len(ents), len(search(classname=common))
    names = sorted(classes)
    out["search_classes"], out["classes"] = timed_loop(runs * 3, search, "classname", names), len(names)
    targets = [e.get("target") for e in ents if e.get("target") is not None]
    if targets:
        out["search_links"], out["links"] = timed_loop(runs * 3, search, "targetname", targets), len(targets)


def bspkit_passes(path, runs):
    import bspkit
    import numpy as np

    def numpy_pass(mmap=False, eager=True):
        bsp = bspkit.load(path, mmap=mmap)
        if eager:
            bsp.decompress_all()  # every lump will be read: compressed ones decoded over all cores
        n = 0
        for name in bsp.lump_names():
            lump = bsp[name]
            if isinstance(lump, bspkit.RecordLump):
                a = lump.numpy()
                n += int(a.view(np.uint8).sum()) if a.size else 0
            elif isinstance(lump, bytes):
                n += len(lump)
            else:
                n += len(bsp.raw_lump(name))
        return n

    def records_pass():
        bsp = bspkit.load(path)
        bsp.decompress_all()
        n = 0
        for name in bsp.lump_names():
            lump = bsp[name]
            if isinstance(lump, bspkit.RecordLump):
                for _ in lump:
                    n += 1
            else:
                n += len(bsp.raw_lump(name))
        return n

    out = {}
    out["numpy"] = best(runs, numpy_pass)[0]
    out["numpy_mmap"] = best(runs, lambda: numpy_pass(mmap=True))[0]
    out["numpy_lazy"] = best(runs, lambda: numpy_pass(eager=False))[0]
    out["records"] = best(runs, records_pass)[0]
    bsp = bspkit.load(path)
    search_pass(out, runs, bsp.ENTITIES, bsp.search_all_entities)
    return out


def bsp_tool_passes(path, runs):
    import bsp_tool

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from _bsp_tool_runs import touch  # what bench/bsp_tool_load.py times

    out = {"touch": best(runs, lambda: touch(bsp_tool.load_bsp(path)))[0]}
    ents = bsp_tool.load_bsp(path).ENTITIES
    search_pass(out, runs, ents, ents.search)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", choices=["bspkit", "bsp_tool"], required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--serve", action="store_true", help="read map paths from stdin, one per line, and answer each at once (bench/py/alternate.py)")
    ap.add_argument("maps", nargs="*")
    args = ap.parse_args()
    passes = bspkit_passes if args.lib == "bspkit" else bsp_tool_passes
    for path in (line.rstrip("\n") for line in sys.stdin) if args.serve else args.maps:
        size = os.path.getsize(path)
        try:
            r = passes(path, args.runs)
            print(json.dumps({"lib": args.lib, "map": os.path.basename(path), "size": size, "ok": True, **r}))
        except Exception as e:  # counted, never fatal
            print(json.dumps({"lib": args.lib, "map": os.path.basename(path), "size": size, "ok": False, "error": f"{type(e).__name__}: {e}"}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
