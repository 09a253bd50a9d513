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
    for p, _, t in load_passes(a, both):
        lines.append(f"load+touch via {p:8}: bspkit {t:.3f} s, bsp_tool {touch:.3f} s, ratio {touch / t:.0f}x ({size / 1e6:.1f} MB)")
    for key, name, s, ta, tb in searches(a, b, both):
        lines.append(f"entity search, {name} ({len(s)} maps): bspkit {ta * 1e3:.3f} ms, bsp_tool {tb * 1e3:.3f} ms, ratio {tb / ta:.1f}x")
    return "\n".join(lines) + "\n"


LOAD_PASSES = (
    ("numpy", "load + touch via NumPy"),
    ("numpy_lazy", "load + touch via NumPy, each lump decompressed when first read"),
    ("numpy_mmap", "`load(mmap=True)` + touch via NumPy"),
    ("records", "load + touch via record objects"),
)


def load_passes(a, both):
    """(key, name, bspkit seconds summed) per load + touch pass that every map in `both` has."""
    return [(p, name, sum(a[m][p] for m in both)) for p, name in LOAD_PASSES if all(p in a[m] for m in both)]


SEARCHES = (
    ("search", "most common classname, one call"),
    ("search_classes", "every classname once"),
    ("search_links", "every entity's `target` resolved"),
)


def searches(a, b, both):
    """(key, name, maps, bspkit seconds summed, bsp_tool seconds summed) per search workload,
    over the maps where both libraries ran it."""
    out = []
    for key, name in SEARCHES:
        s = [m for m in both if key in a[m] and key in b[m]]
        if s:
            out.append((key, name, s, sum(a[m][key] for m in s), sum(b[m][key] for m in s)))
    return out


def section(folder):
    """The RESULTS.md section for the results in `folder` (bspkit.jsonl, bsp_tool.jsonl, meta.json)."""
    a, b = load(os.path.join(folder, "bspkit.jsonl")), load(os.path.join(folder, "bsp_tool.jsonl"))
    meta_path = os.path.join(folder, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    both = sorted(set(a) & set(b))
    size = sum(a[m]["size"] for m in both)
    touch = sum(b[m]["touch"] for m in both)
    found = searches(a, b, both)
    out = [HEADING, ""]
    when = f"Measured {meta['date']} by `bench/py/bench.sh` at bspkit commit `{meta['commit']}`" if meta else "Measured by `bench/py/bench.sh`"
    order = (
        "the two side by side and given the maps in turn, one map at a time (`ALTERNATE=1`, `bench/py/alternate.py`)"
        if meta.get("alternate") == "1"
        else "bspkit's over every map, then bsp_tool's"
    )
    load_avg = f"; load average {meta['load_start']} at the start, {meta['load_end']} at the end" if meta.get("load_start") else ""
    out.append(
        f"{when} (release build of `crates/bspkit-py`, bsp_tool 0.7.0 from PyPI, one process per library, "
        f"{order}, one run of the script{load_avg}). Times are minima: load + touch best of 3 for bspkit and 1 run for "
        "bsp_tool; each entity search workload is timed with `timeit` (the calls in a loop compiled once, no "
        "Python function call around each; garbage collector on), a round of about 2 ms divided by its "
        "repetitions, best of 30 rounds (most common classname) or 9 (the others) for bspkit and 10 or 3 for "
        "bsp_tool. `load` reads a map of up to 256 MiB into memory (a copy of the file, so that another process "
        "truncating it gives an error, not SIGBUS); `load(path, mmap=True)` maps it instead, and the touch then "
        "reads its pages from the page cache. Every lump is going to be read, so the passes call "
        "`bsp.decompress_all()` after `load`: a compressed map's LZMA lumps (here the Xbox 360 map's) are "
        "decoded at once over the cores, largest first, instead of one by one as the touch reaches them; the "
        "row \"each lump decompressed when first read\" leaves that call out."
    )
    out.append("")
    out.append(
        "Search, entities already parsed, bspkit's `bsp.search_all_entities(k=v)` against bsp_tool's "
        "`bsp.ENTITIES.search(k=v)`: (1) `classname=C` for the map's most common classname C, one call; "
        "(2) one call per distinct classname, a map's inventory; (3) `targetname=T` for every entity with a "
        "`target` key, resolving every link as a viewer or decompiler does. bspkit answers from its "
        "`(key, value)` index, built by the first call naming a key and rebuilt after edits (the best round "
        "leaves that first call out); bsp_tool walks its list of dicts on every call."
    )
    out.append("")
    out.append("| pass | maps | bspkit | bsp_tool | ratio |")
    out.append("|---|---:|---:|---:|---:|")
    for _, name, t in load_passes(a, both):
        out.append(f"| {name} ({size / 1e6:.1f} MB) | {len(both)} | {fmt_t(t)} | {fmt_t(touch)} | {touch / t:,.0f}× |")
    for key, name, s, ta, tb in found:
        out.append(f"| entity search, {name}, summed | {len(s)} | {fmt_t(ta)} | {fmt_t(tb)} | {tb / ta:,.1f}× |")
    single = next((f for f in found if f[0] == "search"), None)
    if single:
        s = single[2]
        per = sorted(a[m]["search"] for m in s)
        over = [m for m in s if b[m]["search"] / a[m]["search"] >= 100]
        out.append("")
        out.append(
            f"One bspkit search takes {fmt_t(per[0])}–{fmt_t(per[-1])} on every map, whatever its entity count: the "
            f"fixed cost of a Python method call with keyword arguments and of the new result list. {len(over)} of "
            f"{len(s)} maps reach 100× or more on a single search"
            + (f" (those with {min(a[m].get('entities', 0) for m in over)}–{max(a[m].get('entities', 0) for m in over)} entities)" if over else "")
            + ". On a map of 2–5 entities bsp_tool's whole walk takes about 1 µs, so no call into an extension "
            "reaches 100× there; the workloads that search a map many times are summed over the maps where "
            "searching costs something."
        )
    out.append("")
    out.append("Entity search per map (ratios are bsp_tool time / bspkit time):")
    out.append("")
    out.append("| map | entities | hits | bspkit, one search | bsp_tool | ratio | classnames | ratio | links | ratio |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    s = single[2] if single else []

    def ratio(m, key):
        return f"{b[m][key] / a[m][key]:,.1f}×" if key in a[m] and key in b[m] else ""

    for m in sorted(s, key=lambda m: -b[m]["search"]):
        out.append(
            f"| {m} | {a[m].get('entities', '')} | {a[m].get('hits', '')} | {fmt_t(a[m]['search'])} | {fmt_t(b[m]['search'])} "
            f"| {ratio(m, 'search')} | {a[m].get('classes', '')} | {ratio(m, 'search_classes')} | {a[m].get('links', '')} | {ratio(m, 'search_links')} |"
        )
    return "\n".join(out) + "\n"


def splice(results, text, heading=HEADING):
    """Replace the section `heading` in `results` (up to the next `## ` heading), or put it
    before the Export section (which bench/export.sh replaces up to the end), or at the end.
    bench/tiled_report.py splices its section with it too."""
    old = open(results).read() if os.path.exists(results) else ""
    at = old.find("\n" + heading)
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
