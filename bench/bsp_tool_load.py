"""bsp_tool 0.7.0 side of the comparison: load_bsp() each map and touch every lump attribute.

Usage: bsp_tool_load.py RUNS MAP...  -> one JSON line per map, same fields as the Rust drivers.
Record lumps are iterated entry by entry (bsp_tool decodes entries lazily on access); raw
byte lumps are read whole with a slice, not byte by byte.
"""
import json
import sys
import time

import bsp_tool


def touch(bsp):
    n = 0
    for name in list(getattr(bsp, "headers", {})):
        lump = getattr(bsp, name, None)
        if lump is None:
            continue
        if isinstance(lump, (bytes, bytearray)):
            n += len(lump)
            continue
        if type(lump).__name__ == "RawBspLump":
            n += len(lump[:])
            continue
        try:
            for _ in lump:
                n += 1
        except TypeError:
            n += 1  # not iterable: a single parsed structure
    return n


def main():
    runs = int(sys.argv[1])
    ok = failed = 0
    for path in sys.argv[2:]:
        best, err, work, done = None, None, None, 0
        for _ in range(max(runs, 1)):
            t = time.perf_counter()
            try:
                work = touch(bsp_tool.load_bsp(path))
            except Exception as e:  # counted, never fatal
                err = f"{type(e).__name__}: {e}"
                break
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
            done += 1
        ok += err is None
        failed += err is not None
        with open(path, "rb") as f:
            size = len(f.read())
        print(json.dumps({"tool": "bsp_tool", "map": path, "size": size, "ok": err is None, "panic": False,
                          "error": err, "min_s": best if err is None else None, "runs": done, "work": work}))
    print(f"bsp_tool: {ok} ok, {failed} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
