"""Ratios of bench/py/load_touch.py results: bsp_tool time / bspkit time, summed over the maps
both libraries read. Only measured numbers.

    report.py BSPKIT.jsonl BSP_TOOL.jsonl                      # the ratios, on stdout
    report.py BSPKIT.jsonl BSP_TOOL.jsonl --splice RESULTS.md  # and the "Python package" section
                                                               # of bench/RESULTS.md replaced

bench.sh writes `meta.json` (date, commit, load averages) beside the .jsonl files; the section
names them. bench/report.py (run.sh) prints the same section when target/bench-py holds results.
"""
import json
import os
import sys

HEADING = "## Python package against bsp_tool (issue 9)"


def load(path):
    return {r["map"]: r for r in map(json.loads, open(path)) if r["ok"]}


def fmt_t(s):
    return f"{s * 1e9:,.0f} ns" if s < 1e-6 else f"{s * 1e6:,.1f} µs" if s < 1e-3 else f"{s * 1e3:,.2f} ms" if s < 1 else f"{s:,.2f} s"


def summary(a, b):
    both = sorted(set(a) & set(b))
    lines = [f"maps: {len(both)} read by both; bsp_tool failed on {len(a) - len(both)} that bspkit read"]
    size = sum(a[m]["size"] for m in both)
    touch = sum(b[m]["touch"] for m in both)
    for p in ("numpy", "records"):
        t = sum(a[m][p] for m in both)
        lines.append(f"load+touch via {p:8}: bspkit {t:.3f} s, bsp_tool {touch:.3f} s, ratio {touch / t:.0f}x ({size / 1e6:.1f} MB)")
    s = [m for m in both if "search" in a[m] and "search" in b[m]]
    ta, tb = sum(a[m]["search"] for m in s), sum(b[m]["search"] for m in s)
    lines.append(f"entity search ({len(s)} maps): bspkit {ta * 1e3:.3f} ms, bsp_tool {tb * 1e3:.3f} ms, ratio {tb / ta:.1f}x")
    return "\n".join(lines) + "\n"


def section(folder):
    """The RESULTS.md section for the results in `folder` (bspkit.jsonl, bsp_tool.jsonl, meta.json)."""
    a, b = load(os.path.join(folder, "bspkit.jsonl")), load(os.path.join(folder, "bsp_tool.jsonl"))
    meta_path = os.path.join(folder, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    both = sorted(set(a) & set(b))
    size = sum(a[m]["size"] for m in both)
    touch = sum(b[m]["touch"] for m in both)
    s = [m for m in both if "search" in a[m] and "search" in b[m]]
    ta, tb = sum(a[m]["search"] for m in s), sum(b[m]["search"] for m in s)
    out = [HEADING, ""]
    when = f"Measured {meta['date']} by `bench/py/bench.sh` at bspkit commit `{meta['commit']}`" if meta else "Measured by `bench/py/bench.sh`"
    load_avg = f"; load average {meta['load_start']} at the start, {meta['load_end']} at the end" if meta.get("load_start") else ""
    out.append(
        f"{when} (release build of `crates/bspkit-py`, bsp_tool 0.7.0 from PyPI, one process per library, "
        f"one run of the script{load_avg}). Times are minima: load + touch best of 3 for bspkit and 1 run for "
        "bsp_tool; entity search best of 30 (bspkit) and 10 (bsp_tool) calls, wall clock with `time.perf_counter` "
        "around each call (the timer and the call itself are in every number, ~0.1 µs)."
    )
    out.append("")
    out.append(
        "Search: `bsp.search_all_entities(classname=C)` against bsp_tool's `bsp.ENTITIES.search(classname=C)` for "
        "the map's most common classname C, entities already parsed. bspkit answers from its `(key, value)` index "
        "(built by the first call, rebuilt after edits), bsp_tool walks its list of dicts."
    )
    out.append("")
    out.append("| pass | maps | bspkit | bsp_tool | ratio |")
    out.append("|---|---:|---:|---:|---:|")
    for p, name in (("numpy", "load + touch via NumPy"), ("records", "load + touch via record objects")):
        t = sum(a[m][p] for m in both)
        out.append(f"| {name} ({size / 1e6:.1f} MB) | {len(both)} | {fmt_t(t)} | {fmt_t(touch)} | {touch / t:,.0f}× |")
    out.append(f"| entity search, summed | {len(s)} | {fmt_t(ta)} | {fmt_t(tb)} | {tb / ta:,.1f}× |")
    if s:
        per = sorted(a[m]["search"] for m in s)
        over = [m for m in s if b[m]["search"] / a[m]["search"] >= 100]
        out.append("")
        out.append(
            f"bspkit takes {fmt_t(per[0])}–{fmt_t(per[-1])} per search on every map, whatever its entity count: the "
            f"fixed cost of the call and of the new result list. {len(over)} of {len(s)} maps reach 100× or more"
            + (f" (those with {min(a[m].get('entities', 0) for m in over)}–{max(a[m].get('entities', 0) for m in over)} entities)" if over else "")
            + "; the summed ratio is set by the many maps with a handful of entities, where bsp_tool's walk is short too."
        )
    out.append("")
    out.append("Entity search per map:")
    out.append("")
    out.append("| map | entities | hits | bspkit | bsp_tool | ratio |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for m in sorted(s, key=lambda m: -b[m]["search"]):
        n = a[m].get("entities", "")
        out.append(f"| {m} | {n} | {a[m].get('hits', '')} | {fmt_t(a[m]['search'])} | {fmt_t(b[m]['search'])} | {b[m]['search'] / a[m]['search']:,.1f}× |")
    return "\n".join(out) + "\n"


def splice(results, text):
    """Replace the section in `results` (up to the next `## ` heading), or put it before the
    Export section (which bench/export.sh replaces up to the end), or at the end."""
    old = open(results).read() if os.path.exists(results) else ""
    at = old.find("\n" + HEADING)
    if at >= 0:
        nxt = old.find("\n## ", at + 1)
        rest = old[nxt + 1 :] if nxt >= 0 else ""
        new = old[: at + 1] + text + ("\n" + rest if rest else "")
    else:
        exp = old.find("\n## Export")
        if exp >= 0:
            new = old[: exp + 1] + text + "\n" + old[exp + 1 :]
        else:
            new = old.rstrip("\n") + "\n\n" + text
    open(results, "w").write(new)


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    sys.stdout.write(summary(a, b))
    if len(sys.argv) > 4 and sys.argv[3] == "--splice":
        folder = os.path.dirname(os.path.abspath(sys.argv[1]))
        splice(sys.argv[4], section(folder))
        print(f"wrote the Python section of {sys.argv[4]}")


if __name__ == "__main__":
    main()
