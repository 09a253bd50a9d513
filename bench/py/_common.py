"""Shared by the migration scripts: `--lib bspkit|bsp_tool`, the maps to read, and the loop that
reports a map a library cannot read instead of stopping.

Each script is written the way bsp_tool's users write theirs (attribute lumps, entity dicts,
surfedge walks), with the few names that differ between the two libraries marked.
"""
import argparse
import io
import os
from contextlib import redirect_stdout


def main(per_map):
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", choices=["bspkit", "bsp_tool"], default="bspkit")
    ap.add_argument("maps", nargs="+")
    args = ap.parse_args()
    if args.lib == "bspkit":
        import bspkit

        load = bspkit.load
    else:
        import bsp_tool

        load = bsp_tool.load_bsp
    for path in args.maps:
        name = os.path.basename(path)
        out = io.StringIO()
        try:
            with redirect_stdout(out):
                per_map(load(path), args.lib)
        except Exception as e:  # a map this library cannot read: said, not fatal
            print(f"{name}: cannot read ({type(e).__name__})")
            continue
        print(f"{name}:")
        print(out.getvalue(), end="")
