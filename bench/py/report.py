"""Ratios of bench/py/load_touch.py results: bsp_tool time / bspkit time, summed over the maps
both libraries read."""
import json
import sys

a = {r["map"]: r for r in map(json.loads, open(sys.argv[1])) if r["ok"]}
b = {r["map"]: r for r in map(json.loads, open(sys.argv[2])) if r["ok"]}
both = sorted(set(a) & set(b))
print(f"maps: {len(both)} read by both; bsp_tool failed on {len(a) - len(both)} that bspkit read")
size = sum(a[m]["size"] for m in both)
touch = sum(b[m]["touch"] for m in both)
for p in ("numpy", "records"):
    t = sum(a[m][p] for m in both)
    print(f"load+touch via {p:8}: bspkit {t:.3f} s, bsp_tool {touch:.3f} s, ratio {touch / t:.0f}x ({size / 1e6:.1f} MB)")
s = [m for m in both if "search" in a[m] and "search" in b[m]]
ta, tb = sum(a[m]["search"] for m in s), sum(b[m]["search"] for m in s)
print(f"entity search ({len(s)} maps): bspkit {ta * 1e3:.3f} ms, bsp_tool {tb * 1e3:.3f} ms, ratio {tb / ta:.1f}x")
