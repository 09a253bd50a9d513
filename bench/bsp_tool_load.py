"""bsp_tool 0.7.0 side of the comparison: load_bsp() each map and touch every lump attribute.

Usage: bsp_tool_load.py RUNS MAP...  -> one JSON line per map, same fields as the Rust drivers.
Record lumps are iterated entry by entry (bsp_tool decodes entries lazily on access); raw
byte lumps are read whole with a slice, not byte by byte.
"""
import json
import sys

import bsp_tool

from _bsp_tool_runs import best_of, touch


def main():
    runs = int(sys.argv[1])
    ok = failed = 0
    for path in sys.argv[2:]:
        best, err, work, done = best_of(runs, lambda: touch(bsp_tool.load_bsp(path)))
        ok += err is None
        failed += err is not None
        with open(path, "rb") as f:
            size = len(f.read())
        print(json.dumps({"tool": "bsp_tool", "map": path, "size": size, "ok": err is None, "panic": False,
                          "error": err, "min_s": best if err is None else None, "runs": done, "work": work}))
    print(f"bsp_tool: {ok} ok, {failed} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
