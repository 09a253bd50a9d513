"""The "Export" section of RESULTS.md from bench/out/export/ (written by export.sh).

    report_export.py OUT_DIR                      print the section
    report_export.py OUT_DIR --splice RESULTS.md  replace the section in RESULTS.md (or append it)

report.py prints it as the last section when run.sh ran the export stage, and uses its number
formats (gmean, fmt_t, fmt_x). Only measured numbers.
"""
import json
import math
import os
import sys

FAMILIES = ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360", "respawn", "cod", "genesis3d"]
HEADING = "## Export (issues 8 and 13)"


def gmean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt_t(s, us_digits=0):
    """A time for a table: µs below 1 ms (with `us_digits` decimals), ms below 1 s, else s."""
    if s is None:
        return "–"
    return f"{s * 1e6:.{us_digits}f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def fmt_x(x):
    return "–" if x is None else f"{x:,.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def fmt_mb(b):
    return "–" if b is None else f"{b / 1e6:.2f} MB"


def section(out):
    rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl")) if l.strip()]
    cli = [json.loads(l) for l in open(os.path.join(out, "cli.jsonl")) if l.strip()]
    machine = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(out, "machine.txt")) if "=" in l)
    by = {(r["tool"], r["map"]): r for r in rows}
    cby = {(r["tool"], r["map"]): r for r in cli if r.get("map")}
    base_kb = next((r["maxrss_kb"] for r in cli if r["tool"] == "baseline"), None)
    maps = sorted({r["map"] for r in rows} | {r["map"] for r in cli if r.get("map")},
                  key=lambda m: (FAMILIES.index(m.split("/")[0]) if m.split("/")[0] in FAMILIES else 99, m))
    size = {r["map"]: r["size"] for r in rows + cli if r.get("size") and r.get("map")}
    has_b2g = any(r["tool"] == "bsp_to_glb" for r in cli)

    def t(tool, m):
        r = by.get((tool, m)) or cby.get((tool, m))
        return r["min_s"] if r and r.get("ok") and r.get("min_s") else None

    def st(tool, m):
        r = by.get((tool, m)) or cby.get((tool, m))
        return None if r is None else "ok" if r.get("ok") else "error"

    lines = []
    p = lines.append
    p(HEADING + "\n")
    p(f"Measured {machine['date']} by `bench/export.sh` at bspkit commit `{machine['bspkit']}`"
      + (f", bsp-to-glb at `{machine['bsp_to_glb']}`" if machine.get("bsp_to_glb") else "") + ". "
      f"**The machine was shared and loaded** ({machine['nproc']} cores; load average {machine['load']}), "
      "so every time here is a minimum over runs on a busy machine: absolute numbers are pessimistic and "
      "noisy, ratios between tools measured the same way are the more meaningful part.\n")
    p("- **bspkit in process** (`bench/src/bin/bspkit_export.rs`, min of "
      f"at least {machine['runs']} runs, repeated until they add up to 20 ms, from a byte buffer, `Bsp::from_bytes` included, LZMA lumps decompressed every run): "
      "`mesh::build` alone (every model, no textures, no lightmaps); `export` as GLB, geometry only "
      "(`textures: None`, `lightmaps: false`); `export` as GLB with textures (those the map carries or "
      "`bsp export` finds without `--game-dir`) and lightmaps. The GLB goes to the null device: the writer runs in "
      "full, no disk. MB/s = map bytes / time, one thread.")
    p("- **`bsp export MAP -o out.glb`**: the whole command as a process (start, read, export, write to disk), "
      f"best of {machine['cli_runs']}; default (textures + lightmaps) and `--no-textures --no-lightmaps`. The first "
      "run is under GNU time for the peak resident set (max RSS).")
    if has_b2g:
        p("- **bsp-to-glb** (github.com/Hona/bsp-to-glb, built with `cargo build --release` from the checkout "
          "in `BSP_TO_GLB_DIR`): `bsp-to-glb --bsp MAP --out out.glb` as a process, best of "
          f"{machine['cli_runs']}, Source maps only (its only family). By default it writes brush geometry with "
          "material names, hidden surfaces kept, no texture images and no lightmaps, so it is compared with "
          "`bsp export --no-textures --no-lightmaps --skip none`.")
    p("- **qbsp 0.17** (`bench/src/bin/qbsp_mesh.rs`, Quake 1 / GoldSrc / Quake 2): `BspData::parse` + "
      "`mesh_model` for every model (in-memory meshes, it writes no file format); “+lm” first packs its lightmap "
      "atlas and meshes with lightmap UVs. Compared with `mesh::build` (and, with lightmaps, with the full export).")
    p("- **bsp_tool 0.7.0** (`bench/bsp_tool_mesh.py`, min of "
      f"{machine['py_runs']} runs): `load_bsp` then the branch's mesh method for every face (`face_mesh`, "
      "`displacement_mesh` for Source displacements, `mesh` for Respawn, the triangle-soup meshes for CoD4). "
      "Compared with `mesh::build`. 0.7.0 has no mesh method for Quake 3 (its `face_mesh` raises "
      "`NotImplementedError`), Source X360 or Genesis3D.\n")

    p("### In process, per map\n")
    p("| map | size | triangles | `mesh::build` | export (geometry) | MB/s | export (tex + lm) | MB/s | "
      "qbsp mesh | ×qbsp | qbsp +lm | ×qbsp +lm | bsp_tool meshes | ×bsp_tool |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    agg = {k: [0, 0.0] for k in ("geo", "full", "mesh")}
    fam_agg = {}
    r_py, r_q, r_qlm = [], [], []
    notes = []
    for m in maps:
        sz = size.get(m, 0)
        tm, tg, tf = t("bspkit_mesh", m), t("bspkit_export", m), t("bspkit_export_full", m)
        tq, tql, tp = t("qbsp_mesh", m), t("qbsp_mesh_lm", m), t("bsp_tool_mesh", m)
        tris = (by.get(("bspkit_export", m)) or {}).get("work")
        for k, v in (("geo", tg), ("full", tf), ("mesh", tm)):
            if v:
                agg[k][0] += sz
                agg[k][1] += v
                fa = fam_agg.setdefault(m.split("/")[0], {x: [0, 0.0] for x in ("geo", "full", "mesh")})
                fa[k][0] += sz
                fa[k][1] += v
        xq = tq / tm if tq and tm else None
        xql = tql / tf if tql and tf else None
        xp = tp / tm if tp and tm else None
        r_q += [xq] if xq else []
        r_qlm += [xql] if xql else []
        r_py += [xp] if xp else []
        py = by.get(("bsp_tool_mesh", m))
        py_cell = fmt_t(tp)
        if py and py.get("ok") and py.get("failed_faces"):
            py_cell += f" ({py['failed_faces']} of {py['failed_faces'] + py['faces']} failed)"
        for tool in ("bspkit_mesh", "bspkit_export", "bspkit_export_full", "qbsp_mesh", "qbsp_mesh_lm", "bsp_tool_mesh"):
            r = by.get((tool, m))
            if r and not r.get("ok"):
                notes.append((tool, m, (r.get("error") or "").splitlines()[0][:200] if r.get("error") else ""))
        q_cell = fmt_t(tq) if st("qbsp_mesh", m) != "error" else "error"
        ql_cell = fmt_t(tql) if st("qbsp_mesh_lm", m) != "error" else "error"
        p(f"| {m} | {sz / 1024:,.0f} KiB | {'–' if tris is None else f'{tris:,}'} | {fmt_t(tm)} | {fmt_t(tg)} | "
          f"{'–' if not tg else f'{sz / tg / 1e6:,.0f}'} | {fmt_t(tf)} | {'–' if not tf else f'{sz / tf / 1e6:,.0f}'} | "
          f"{q_cell if st('qbsp_mesh', m) else ''} | {fmt_x(xq) if xq else ''} | {ql_cell if st('qbsp_mesh_lm', m) else ''} | "
          f"{fmt_x(xql) if xql else ''} | {py_cell if st('bsp_tool_mesh', m) == 'ok' else ('error' if st('bsp_tool_mesh', m) else '')} | "
          f"{fmt_x(xp) if xp else ''} |")
    p("\nPer family, MB/s = total map bytes / total time over the maps exported:\n")
    p("| family | `mesh::build` MB/s | export (geometry) MB/s | export (tex + lm) MB/s |\n|---|---:|---:|---:|")
    for fam in FAMILIES:
        fa = fam_agg.get(fam)
        if not fa:
            continue
        cells = [f"{fa[k][0] / fa[k][1] / 1e6:,.0f}" if fa[k][1] else "–" for k in ("mesh", "geo", "full")]
        p(f"| {fam} | " + " | ".join(cells) + " |")
    tot = {k: (agg[k][0] / agg[k][1] / 1e6 if agg[k][1] else None) for k in agg}
    # Maps whose file is mostly not geometry (a few triangles in MBs of lighting or collision)
    # inflate bytes/time; the same totals over maps with at least 1,000 triangles:
    big_maps = [m for m in maps if ((by.get(("bspkit_export", m)) or {}).get("work") or 0) >= 1000]
    tot_big = {}
    for k, tool in (("mesh", "bspkit_mesh"), ("geo", "bspkit_export"), ("full", "bspkit_export_full")):
        b_ = sum(size[m] for m in big_maps if t(tool, m))
        s_ = sum(t(tool, m) for m in big_maps if t(tool, m))
        tot_big[k] = b_ / s_ / 1e6 if s_ else None
    p(f"| **all** | {tot['mesh'] or 0:,.0f} | {tot['geo'] or 0:,.0f} | {tot['full'] or 0:,.0f} |")
    p(f"| **maps with ≥ 1,000 triangles** ({len(big_maps)}) | {tot_big['mesh'] or 0:,.0f} | {tot_big['geo'] or 0:,.0f} | "
      f"{tot_big['full'] or 0:,.0f} |")
    if notes:
        p("\n<details><summary>failures (in process)</summary>\n")
        for tool, m, msg in notes:
            p(f"- {tool} on `{m}`: {msg}")
        p("\n</details>")

    p("\n### Whole process and peak memory, per map\n")
    p("Peak RSS is the whole process's maximum resident set (GNU time); a `bsp` process that opens no map "
      f"(`bsp --version`) peaks at {fmt_mb(base_kb * 1024) if base_kb else '–'}, shown as “baseline”. "
      "“RSS/GLB” is peak RSS / output size; “(RSS−baseline)/GLB” discounts the process baseline.\n")
    p("| map | size | `bsp export` (tex + lm) | GLB | peak RSS | RSS/GLB | (RSS−baseline)/GLB | (RSS−baseline−map)/GLB | "
      "`--no-textures --no-lightmaps` | GLB | peak RSS | RSS/GLB |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    mem_ratio, mem_ratio_net, mem_ratio_map = [], [], []
    for m in maps:
        f, g = cby.get(("bsp_export", m)), cby.get(("bsp_export_geo", m))
        if not f:
            continue

        def cells(r):
            if not r or not r.get("ok"):
                return ["error", "–", fmt_mb((r or {}).get("maxrss_kb", 0) * 1024) if r and r.get("maxrss_kb") else "–", "–"]
            rss = r["maxrss_kb"] * 1024 if r.get("maxrss_kb") else None
            ratio = rss / r["glb_bytes"] if rss and r.get("glb_bytes") else None
            return [fmt_t(r["min_s"]), fmt_mb(r.get("glb_bytes")), fmt_mb(rss), f"{ratio:,.1f}×" if ratio else "–"]

        fc, gc = cells(f), cells(g)
        net = netm = None
        if f.get("ok") and f.get("maxrss_kb") and f.get("glb_bytes"):
            mem_ratio.append((f["maxrss_kb"] * 1024 / f["glb_bytes"], m))
            if base_kb:
                net = (f["maxrss_kb"] - base_kb) * 1024 / f["glb_bytes"]
                netm = ((f["maxrss_kb"] - base_kb) * 1024 - size.get(m, 0)) / f["glb_bytes"]
                mem_ratio_net.append((net, m))
                mem_ratio_map.append((netm, m))
        p(f"| {m} | {size.get(m, 0) / 1024:,.0f} KiB | " + " | ".join(fc) + f" | {'–' if net is None else f'{net:,.1f}×'} | "
          f"{'–' if netm is None else f'{netm:,.1f}×'} | " + " | ".join(gc) + " |")

    b2g_ratio, b2g_net, b2g_geo, b2g_notes = [], [], [], []
    b2g_base = next((r for r in cli if r["tool"] == "baseline_b2g"), None)
    kit_base = next((r for r in cli if r["tool"] == "baseline"), None)
    if has_b2g:
        p("\n### Against bsp-to-glb (Source maps, whole process)\n")
        p("bsp-to-glb keeps hidden surfaces (sky, triggers, tool brushes) in its GLB, so the like-for-like bspkit run is "
          "`bsp export MAP -o out.glb --no-textures --no-lightmaps --skip none`; the default skip set (fewer surfaces) "
          "is shown too. “net” subtracts each program's process start (best wall time of its `--version`: "
          f"`bsp` {fmt_t((kit_base or {}).get('min_s'))}, bsp-to-glb {fmt_t((b2g_base or {}).get('min_s'))}), "
          "which dominates on maps this small.\n")
        p("| map | size | `bsp export --skip none` | its GLB | bsp-to-glb | its GLB | its peak RSS | ×bsp-to-glb | "
          "×bsp-to-glb, net of process start | `bsp export` (default skip) | ×bsp-to-glb |")
        p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for m in maps:
            a, g, b = cby.get(("bsp_export_all", m)), cby.get(("bsp_export_geo", m)), cby.get(("bsp_to_glb", m))
            if not b:
                continue
            x = b["min_s"] / a["min_s"] if b.get("ok") and a and a.get("ok") else None
            xg = b["min_s"] / g["min_s"] if b.get("ok") and g and g.get("ok") else None
            xn = None
            if x and kit_base and b2g_base and kit_base.get("min_s") and b2g_base.get("min_s"):
                da, db = a["min_s"] - kit_base["min_s"], b["min_s"] - b2g_base["min_s"]
                xn = db / da if da > 0 and db > 0 else None
            if x:
                b2g_ratio.append((x, m))
            if xn:
                b2g_net.append((xn, m))
            if xg:
                b2g_geo.append((xg, m))
            if not b.get("ok"):
                b2g_notes.append((m, b.get("error") or f"exit {b.get('exit')}"))
            p(f"| {m} | {size.get(m, 0) / 1024:,.0f} KiB | {fmt_t(a['min_s']) if a and a.get('ok') else 'error'} | "
              f"{fmt_mb((a or {}).get('glb_bytes'))} | {fmt_t(b['min_s']) if b.get('ok') else 'refused'} | "
              f"{fmt_mb(b.get('glb_bytes'))} | {fmt_mb(b['maxrss_kb'] * 1024) if b.get('maxrss_kb') else '–'} | "
              f"{fmt_x(x) if x else '–'} | {fmt_x(xn) if xn else '–'} | {fmt_t(g['min_s']) if g and g.get('ok') else 'error'} | "
              f"{fmt_x(xg) if xg else '–'} |")
    b2g_lib, b2g_lib_lm = [], []
    if any(r["tool"] == "b2g_inproc" for r in rows):
        p("\n### Against bsp-to-glb in process (Source maps, no process start)\n")
        p("bsp-to-glb's library (`export_bsp_with_options`, its defaults: hidden surfaces kept, lightmap UVs computed as "
          "`TEXCOORD_1`, no images) against bspkit's `export` of every surface (`--skip none`, no textures) to the null "
          "device, without and with lightmaps (bspkit's “with” also packs the atlas and encodes its PNG), both from a "
          "byte buffer, best of the in-process runs.\n")
        p("| map | size | bsp-to-glb | bspkit, no lightmaps | ×bsp-to-glb | bspkit, lightmaps | ×bsp-to-glb |")
        p("|---|---:|---:|---:|---:|---:|---:|")
        for m in maps:
            b = by.get(("b2g_inproc", m))
            if not b:
                continue
            tb, ta, tl = t("b2g_inproc", m), t("bspkit_export_all", m), t("bspkit_export_all_lm", m)
            x = tb / ta if tb and ta else None
            xl = tb / tl if tb and tl else None
            if x:
                b2g_lib.append((x, m))
            if xl:
                b2g_lib_lm.append((xl, m))
            p(f"| {m} | {size.get(m, 0) / 1024:,.0f} KiB | {fmt_t(tb) if tb else 'refused'} | {fmt_t(ta) if ta else 'error'} | "
              f"{fmt_x(x) if x else '–'} | {fmt_t(tl) if tl else 'error'} | {fmt_x(xl) if xl else '–'} |")
    if b2g_notes:
        p("\n<details><summary>bsp-to-glb refusals</summary>\n")
        for m, e in b2g_notes:
            p(f"- `{m}`: {e}")
        p("\n</details>")
    cli_fail = [r for r in cli if r.get("map") and r["tool"] != "bsp_to_glb" and not r.get("ok")]
    if cli_fail:
        p("\n<details><summary>`bsp export` failures</summary>\n")
        for r in cli_fail:
            p(f"- {r['tool']} on `{r['map']}`: {r.get('error')}")
        p("\n</details>")

    p("\n### Targets\n")

    def verdict(ok):
        return "**met**" if ok else "**not met**"

    if has_b2g:
        n_src = sum(1 for r in cli if r["tool"] == "bsp_to_glb")

        def line(rs, what):
            g = gmean([x for x, _ in rs])
            below = [f"`{m}` {fmt_x(x)}" for x, m in sorted(rs) if x < 3]
            return (f"{what}: geometric mean {fmt_x(g)}, range {fmt_x(min(rs)[0]) if rs else '–'} – "
                    f"{fmt_x(max(rs)[0]) if rs else '–'} over {len(rs)} maps — "
                    f"{verdict(bool(rs) and all(x >= 3 for x, _ in rs))} on every map"
                    + (f" (below 3×: {', '.join(below)})" if below else ""))

        p(f"- ≥3× faster than bsp-to-glb, on the Source maps it exports ({len(b2g_ratio)} of {n_src}; it refuses the "
          "others), like for like (`--skip none`, no textures, no lightmaps). "
          + line(b2g_ratio, "Whole process") + ". " + line(b2g_net, "Net of process start (only maps where both times exceed their program's start, "
                 "a noisy difference on a loaded machine)") + ". "
          + line(b2g_geo, "Default skip set (bspkit writes fewer surfaces)") + ".")
        if b2g_lib:
            p("- The same comparison in process (no process start on either side): "
              + line(b2g_lib, "bspkit without lightmaps") + ". " + line(b2g_lib_lm, "bspkit with lightmaps (atlas and PNG too)") + ".")
    else:
        p("- ≥3× faster than bsp-to-glb: not measured (set `BSP_TO_GLB_DIR`).")
    g = gmean(r_py)
    p(f"- ≥1000× bsp_tool's mesh building (bsp_tool `load_bsp` + every face's mesh against `mesh::build` "
      f"from bytes, on the {len(r_py)} maps bsp_tool meshes): geometric mean {fmt_x(g)}, range "
      f"{fmt_x(min(r_py)) if r_py else '–'} – {fmt_x(max(r_py)) if r_py else '–'} — {verdict(g is not None and g >= 1000)} "
      f"(geometric mean); {sum(1 for x in r_py if x < 1000)} of {len(r_py)} maps below 1000×.")
    g, gl = gmean(r_q), gmean(r_qlm)
    p(f"- qbsp 0.17 meshing (no target; Quake 1 / GoldSrc / Quake 2): `mesh::build` is {fmt_x(g)} qbsp's "
      f"`mesh_model` over all models (geometric mean, {len(r_q)} maps); the full export with textures and lightmaps "
      f"is {fmt_x(gl)} qbsp's lightmap atlas + meshing ({len(r_qlm)} maps). A ratio below 1× means qbsp is faster.")
    def slow(kind, floor):
        # Families whose `kind` export (total bytes / total time) stays below `floor` MB/s.
        rate = {f: fam_agg[f][kind][0] / fam_agg[f][kind][1] / 1e6 for f in FAMILIES if f in fam_agg and fam_agg[f][kind][1]}
        return [f"{f} ({r:,.0f} MB/s)" for f, r in rate.items() if r < floor]

    geo_slow = slow("geo", 200)
    p(f"- ≥200 MB/s of map per core, geometry-only export: {tot['geo'] or 0:,.0f} MB/s over all maps (total bytes / "
      f"total time, one thread) — {verdict((tot['geo'] or 0) >= 200)} overall; {tot_big['geo'] or 0:,.0f} MB/s over "
      f"the {len(big_maps)} maps with ≥ 1,000 triangles — {verdict((tot_big['geo'] or 0) >= 200)}"
      + ("; below in " + ", ".join(geo_slow) if geo_slow else "; met in every family") + ".")
    full_slow = slow("full", 100)
    p(f"- ≥100 MB/s of map per core, export with textures + lightmaps: {tot['full'] or 0:,.0f} MB/s over all maps — "
      f"{verdict((tot['full'] or 0) >= 100)} overall; {tot_big['full'] or 0:,.0f} MB/s over the maps with ≥ 1,000 "
      f"triangles — {verdict((tot_big['full'] or 0) >= 100)}"
      + ("; below in " + ", ".join(full_slow) if full_slow else "; met in every family") + ".")
    over = [(x, m) for x, m in mem_ratio if x > 3]
    over_net = [(x, m) for x, m in mem_ratio_net if x > 3]
    over_map = [(x, m) for x, m in mem_ratio_map if x > 3]
    big = [(x, m) for x, m in mem_ratio_net if (cby.get(("bsp_export", m)) or {}).get("glb_bytes", 0) >= 500_000]
    p(f"- Peak memory ≤ 3× the output size (`bsp export`, textures + lightmaps): {len(mem_ratio) - len(over)} of "
      f"{len(mem_ratio)} maps within 3× counting the whole process; {len(mem_ratio_net) - len(over_net)} of "
      f"{len(mem_ratio_net)} after subtracting the process baseline — {verdict(not over)} "
      f"(whole process), {verdict(not over_net)} (net of baseline); net of baseline and of the map itself (read "
      f"into memory / mapped), {len(mem_ratio_map) - len(over_map)} of {len(mem_ratio_map)} within 3×. On the "
      f"{len(big)} maps whose GLB is ≥ 0.5 MB, net of baseline: "
      + ", ".join(f"`{m}` {x:.1f}×" for x, m in sorted(big)) + "."
      + (" Over 3× (whole process): " + ", ".join(f"`{m}` {x:.1f}×" for x, m in sorted(over, reverse=True)[:12])
         + (" …" if len(over) > 12 else "") + "." if over else ""))
    # The export's own heap (bspkit_export_heap: peak bytes one export allocates beyond the map it
    # is given) over the GLB `bsp export` wrote for the same map and options.
    heap = []
    for m in maps:
        for tool, cli_tool, what in (("bspkit_export_heap", "bsp_export_geo", "geometry"), ("bspkit_export_full_heap", "bsp_export", "tex + lm")):
            r, c = by.get((tool, m)), cby.get((cli_tool, m))
            if r and r.get("ok") and r.get("work") and c and c.get("ok") and c.get("glb_bytes"):
                heap.append((r["work"] / c["glb_bytes"], m, what, c["glb_bytes"]))
    if heap:
        big_heap = [h for h in heap if h[3] >= 500_000]
        over_heap = [h for h in big_heap if h[0] > 3]
        p(f"- The export's own memory (`bspkit_export_heap`: peak heap one `export::export` allocates beyond the map "
          f"bytes it is given, over the GLB size), on the {len(big_heap)} exports whose GLB is ≥ 0.5 MB: "
          + ", ".join(f"`{m}` {what} {x:.1f}×" for x, m, what, _ in sorted(big_heap)) + " — "
          + verdict(not over_heap) + " within 3×"
          + (f" ({len(over_heap)} over)" if over_heap else "") + f"; over all {len(heap)} exports, median "
          f"{sorted(h[0] for h in heap)[len(heap) // 2]:.1f}× (small outputs are dominated by fixed costs).")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1]
    text = section(out)
    if len(sys.argv) > 3 and sys.argv[2] == "--splice":
        path = sys.argv[3]
        old = open(path).read() if os.path.exists(path) else ""
        at = old.find("\n" + HEADING)
        base = old if at < 0 else old[:at + 1]
        open(path, "w").write(base.rstrip("\n") + "\n\n" + text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
