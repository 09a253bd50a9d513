"""bsp_tool 0.7.0 write side of the round-trip comparison: load_bsp() then .save_as() unchanged.

Usage: bsp_tool_save.py RUNS OUT_FILE MAP...  -> one JSON line per map, same fields as the Rust
drivers plus "identical" (the written file equals the input byte for byte) and "out_size". bsp_tool 0.7.0 defines
save_as for its Valve (Source) and Respawn classes; the others raise NotImplementedError, which is
recorded as that map's error.
"""
import contextlib
import json
import os
import sys

import bsp_tool

from _bsp_tool_runs import best_of


def main():
    runs, out_file = int(sys.argv[1]), sys.argv[2]
    for path in sys.argv[3:]:
        identical, out_size = None, None

        def save():
            # save_as prints its own messages; stdout carries only the JSON lines.
            with contextlib.redirect_stdout(sys.stderr):
                bsp_tool.load_bsp(path).save_as(out_file)

        best, err, _, done = best_of(runs, save)
        with open(path, "rb") as f:
            data = f.read()
        if err is None:
            with open(out_file, "rb") as f:
                written = f.read()
            identical, out_size = written == data, len(written)
        if os.path.exists(out_file):
            os.remove(out_file)
        print(json.dumps({"tool": "bsp_tool_save", "map": path, "size": len(data), "ok": err is None, "panic": False,
                          "error": err, "min_s": best if err is None else None, "runs": done, "identical": identical,
                          "out_size": out_size}))


if __name__ == "__main__":
    main()
