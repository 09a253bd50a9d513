"""The world bounds of `bsp scan --out DIR --format jsonl` (`DIR/maps.jsonl`) against bsp_tool 0.7.0's
model 0 (GPL-3.0, from PyPI, used as a program only), run by hand in the bench venv:

    bsp scan CORPUS --out /tmp/lib --format jsonl
    bench/.venv/bin/python bench/bsp_tool_bounds.py /tmp/lib/maps.jsonl

Prints each difference and one JSON line of totals."""
import json
import math
import sys

import bsp_tool
rows = [json.loads(l) for l in open(sys.argv[1])]
same = differ = failed = 0
fams = {}
for r in rows:
    try:
        b = bsp_tool.load_bsp(r["path"])
        m = b.MODELS[0]
        bb = getattr(m, "bounds", m)
        mins = [bb.mins.x, bb.mins.y, bb.mins.z]; maxs = [bb.maxs.x, bb.maxs.y, bb.maxs.z]
    except Exception as e:
        failed += 1; print("bsp_tool failed:", r["path"].split("/maps/")[1], type(e).__name__, str(e)[:80]); continue
    ours = [r["min_x"], r["min_y"], r["min_z"]], [r["max_x"], r["max_y"], r["max_z"]]
    ok = all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-4) for a, b in zip(ours[0] + ours[1], mins + maxs))
    if ok:
        same += 1; fams[r["family"]] = fams.get(r["family"], 0) + 1
    else:
        differ += 1; print("DIFFER", r["path"].split("/maps/")[1], ours, mins, maxs)
print(json.dumps({"maps": len(rows), "same_as_bsp_tool": same, "differ": differ, "bsp_tool_failed": failed, "same_by_family": fams}))
