#!/usr/bin/env python3
"""Update only the "export (tex + lm)" numbers of RESULTS.md's Export section from a
`BSPKIT_ONLY=1 bench/export.sh` run (bspkit's in-process program alone), leaving every other
tool's numbers as the last full run wrote them:

    update_export_full.py OUT RESULTS.md

- the per-map table's `export (tex + lm)` and its MB/s cells;
- the per-family table's `export (tex + lm) MB/s` column (families, all, ≥ 1,000 triangles);
- the ≥100 MB/s target line;
- a subsection saying when and how they were re-measured, with a before/after table per family
  when the run also timed an older build (`bspkit_export_full_before` rows, same run).
"""
import json
import math
import os
import re
import sys

FAMILIES = ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360", "respawn", "cod", "genesis3d"]
SUB = "### Export with textures + lightmaps re-measured (issue 13)"


def fmt_t(s):
    return "–" if s is None else f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.0f} µs"


def fmt_x(x):
    return "–" if x is None else f"{x:,.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def parse_t(cell):
    """A time cell as report_export.py writes it ("44 µs", "2.04 ms", "1.86 s"), in seconds."""
    m = re.fullmatch(r"([\d,.]+) (µs|ms|s)", cell.strip())
    return float(m.group(1).replace(",", "")) * {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)] if m else None


def gmean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def main():
    out, path = sys.argv[1], sys.argv[2]
    rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl")) if l.strip()]
    machine = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(out, "machine.txt")) if "=" in l)
    by = {(r["tool"], r["map"]): r for r in rows}
    size = {r["map"]: r["size"] for r in rows}

    def t(tool, m):
        r = by.get((tool, m))
        return r["min_s"] if r and r.get("ok") and r.get("min_s") else None

    maps = sorted(size)
    big = [m for m in maps if ((by.get(("bspkit_export", m)) or {}).get("work") or 0) >= 1000]

    def rate(tool, ms):
        b = sum(size[m] for m in ms if t(tool, m))
        s = sum(t(tool, m) for m in ms if t(tool, m))
        return b / s / 1e6 if s else None

    fam_maps = {f: [m for m in maps if m.split("/")[0] == f] for f in FAMILIES}
    text = open(path).read()
    start = text.index("## Export (issues 8 and 13)")
    end = text.find("\n## ", start + 1)
    end = len(text) if end < 0 else end
    sec = text[start:end]

    # Per-map rows: | map | size | triangles | mesh | geo | MB/s | full | MB/s | …
    def per_map(line):
        cells = line.split(" | ")
        m = cells[0].lstrip("| ").strip()
        if m not in size or len(cells) < 9:
            return line
        tf = t("bspkit_export_full", m)
        cells[6] = fmt_t(tf)
        cells[7] = "–" if not tf else f"{size[m] / tf / 1e6:,.0f}"
        # qbsp's lightmap atlas + meshing against the full export: its time stays, the ratio moves.
        tql = parse_t(cells[10])
        if tql and tf:
            cells[11] = fmt_x(tql / tf)
            qlm.append(tql / tf)
        return " | ".join(cells)

    def per_family(line):
        cells = line.split(" | ")
        if len(cells) != 4:
            return line
        key = cells[0].lstrip("| ").strip()
        if key in fam_maps and fam_maps[key]:
            r = rate("bspkit_export_full", fam_maps[key])
        elif key == "**all**":
            r = rate("bspkit_export_full", maps)
        elif key.startswith("**maps with ≥ 1,000 triangles**"):
            r = rate("bspkit_export_full", big)
        else:
            return line
        cells[3] = f"{r or 0:,.0f} |"
        return " | ".join(cells)

    qlm = []
    lines = sec.split("\n")
    in_process = False
    for i, line in enumerate(lines):
        if line.startswith("### "):
            in_process = line.startswith("### In process, per map")
        if in_process and line.startswith("| ") and not line.startswith("|---"):
            lines[i] = per_family(per_map(line))
    full_slow = [f"{f} ({rate('bspkit_export_full', fam_maps[f]):,.0f} MB/s)" for f in FAMILIES
                 if fam_maps[f] and rate("bspkit_export_full", fam_maps[f]) is not None
                 and rate("bspkit_export_full", fam_maps[f]) < 100]
    tot, tot_big = rate("bspkit_export_full", maps) or 0, rate("bspkit_export_full", big) or 0
    verdict = lambda ok: "**met**" if ok else "**not met**"
    target = (f"- ≥100 MB/s of map per core, export with textures + lightmaps (re-measured, see above): {tot:,.0f} MB/s "
              f"over all maps — {verdict(tot >= 100)} overall; {tot_big:,.0f} MB/s over the maps with ≥ 1,000 triangles "
              f"— {verdict(tot_big >= 100)}" + ("; below in " + ", ".join(full_slow) if full_slow else "; met in every family") + ".")
    lines = [target if l.startswith("- ≥100 MB/s of map per core, export with textures + lightmaps") else l for l in lines]
    # The qbsp line's second ratio: the full export against qbsp's lightmap atlas + meshing.
    lines = [re.sub(r"the full export with textures and lightmaps is [\d.,]+× qbsp's lightmap atlas \+ meshing \(\d+ maps\)",
                    f"the full export with textures and lightmaps is {fmt_x(gmean(qlm))} qbsp's lightmap atlas + meshing "
                    f"({len(qlm)} maps, re-measured)", l) if qlm else l for l in lines]
    sec = "\n".join(lines)

    # The subsection, before the per-map table (replacing an earlier one).
    sub = [SUB, "",
           f"The `export (tex + lm)` numbers of this section (per map, per family, the target line) were re-measured "
           f"{machine['date']} at bspkit commit `{machine['bspkit']}` by `BSPKIT_ONLY=1 bench/export.sh` (bspkit's "
           f"in-process program alone, min of at least {machine['runs']} runs (until they add up to 20 ms); {machine['nproc']} cores, load average "
           f"{machine['load']}); the other columns and tables are from the full run above (the “×qbsp +lm” ratios set "
           "qbsp's time from that run against the re-measured export). The speed-up: PNGs with "
           "the `png` crate's fast mode (fdeflate) instead of zlib level 6, one lightmap image per page built (grey "
           "kept one byte a texel), per-exponent tables for `ColorRGBExp32`, one placeholder PNG."]
    if any(r["tool"] == "bspkit_export_full_before" for r in rows):
        before = machine.get("before") or "the previous build"
        sub += ["", f"Before (`{before}`) and after, same run, each map timed by both builds one after the other; "
                "MB/s = total map bytes / total time:", "",
                "| family | before MB/s | after MB/s | × |", "|---|---:|---:|---:|"]
        groups = [(f, fam_maps[f]) for f in FAMILIES if fam_maps[f]] + [("**all**", maps), (f"**maps with ≥ 1,000 triangles** ({len(big)})", big)]
        for name, ms in groups:
            b, a = rate("bspkit_export_full_before", ms), rate("bspkit_export_full", ms)
            sub.append(f"| {name} | {b or 0:,.0f} | {a or 0:,.0f} | {a / b:.1f}× |" if a and b else f"| {name} | – | – | |")
        ex = "quake1/qbsp__lq_e0m2.bsp"
        if t("bspkit_export_full", ex) and t("bspkit_export_full_before", ex):
            sub += ["", f"`{ex}` ({size[ex] / 1024:,.0f} KiB): `mesh::build` {fmt_t(t('bspkit_mesh', ex))}, geometry export "
                    f"{fmt_t(t('bspkit_export', ex))}, with textures + lightmaps {fmt_t(t('bspkit_export_full_before', ex))} "
                    f"before, {fmt_t(t('bspkit_export_full', ex))} after."]
    sub_text = "\n".join(sub) + "\n\n"
    if SUB in sec:
        a = sec.index(SUB)
        b = sec.index("\n### ", a + 1) + 1
        sec = sec[:a] + sub_text + sec[b:]
    else:
        a = sec.index("### In process, per map")
        sec = sec[:a] + sub_text + sec[a:]
    open(path, "w").write(text[:start] + sec + text[end:])


if __name__ == "__main__":
    main()
