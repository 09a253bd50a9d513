"""Turn bench/out/ (written by run.sh) into RESULTS.md on stdout. Only measured numbers."""
import json
import os
import sys
from collections import defaultdict

# The number formats the export section uses too (this directory is on the path: run as a script).
import report_export
from report_export import fmt_x, gmean

out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl")) if l.strip()]
machine = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(out, "machine.txt")) if "=" in l)
membw = json.load(open(os.path.join(out, "membw.json")))
scan_times = [json.loads(l) for l in open(os.path.join(out, "scan_times.jsonl")) if l.strip()]
scan_lines = [json.loads(l) for l in open(os.path.join(out, "scan.jsonl")) if l.strip()]
rewrite_lines = [json.loads(l) for l in open(os.path.join(out, "rewrite.jsonl")) if l.strip()]

CRATES = ["vbsp", "qbsp", "bspparser", "q3bsp"]
CRATE_NAMES = {"vbsp": "vbsp 0.9.1", "qbsp": "qbsp 0.17", "bspparser": "bspparser 0.10", "q3bsp": "bsp 0.1.2",
               "bspkit_write": "bspkit write (to_bytes)"}
FAMILIES = ["quake1", "goldsrc", "quake2", "quake3", "source", "source_x360", "respawn", "cod"]
bw = membw["gb_per_s"]

by = {(r["tool"], r["map"]): r for r in rows}
WRITERS = ["bspkit_write", "bsp_tool_save", "bspkit_lzma"]  # extra measurements, not readers
maps = sorted({r["map"] for r in rows if r["tool"] not in WRITERS}, key=lambda m: (FAMILIES.index(m.split("/")[0]) if m.split("/")[0] in FAMILIES else 99, m))
size = {r["map"]: r.get("size") for r in rows if r.get("size")}


def t(tool, m):
    r = by.get((tool, m))
    return r["min_s"] if r and r.get("ok") else None


def fmt_t(s):
    return report_export.fmt_t(s, us_digits=1)


def status(tool, m):
    r = by.get((tool, m))
    if r is None:
        return None
    if r.get("ok"):
        return "ok"
    return "abort" if r.get("abort") else "panic" if r.get("panic") else "error"


p = print
p("# bspkit comparison benchmark results\n")
p(f"Measured {machine['date']} by `bench/run.sh` at bspkit commit `{machine['bspkit']}`.\n")
p("| machine | |\n|---|---|")
p(f"| CPU | {machine['cpu']} |\n| cores (nproc) | {machine['nproc']} |")
p(f"| memory | {int(machine['mem']) / 1048576:.1f} GiB |\n| rustc | {machine['rustc']} |\n| Python | {machine['python']} |")
p(f"| memory read bandwidth (bench `membw`, 1 thread, 512 MiB sum) | {bw:.2f} GB/s |")
if machine.get("load"):
    p(f"| load average | {machine['load']} |")
p(f"| timing | min of at least {machine['runs']} runs per map, repeated until they add up to 20 ms (bsp_tool: min of {machine['py_runs']}) |\n")
p("The machine is shared (2 cores, other jobs running), so absolute times are noisy; minima are reported.\n")

p("## What each reader does per map\n")
p("- **bspkit**: `Bsp::from_bytes` (detect + directory) then `bspkit::scan::decode_all`: every lump read "
  "(LZMA-decompressed where compressed), every record lump viewed as records of its declared size and walked, "
  "entities parsed, Quake 2/Source cluster PVS+PAS rows and Quake 3 vis rows decoded. Record views are zero-copy; "
  "the typed per-family decoders are not in this revision.")
p("- **vbsp** `Bsp::read` + every entity property + every cluster's PVS row; **qbsp** `BspData::parse`; "
  "**bspparser** `BspFile::parse`; **bsp** (Quake 3) `Bsp::read` + every entity property. These build owned "
  "structs for the lumps they model, so the work is not identical to bspkit's.")
p("- **bsp_tool 0.7.0** `load_bsp(path)` then every lump attribute iterated entry by entry (raw lumps sliced whole); "
  "it reads from the file (page cache), the Rust programs from a byte buffer.")
p("- A panic is caught (`catch_unwind`) and counted; a process that aborts (e.g. allocation failure) is counted "
  "for that map only (one process per reader and map).\n")

p("## Per map\n")
p("MB/s is map size / bspkit time; “% bw” is that throughput as a share of the memory read bandwidth above. "
  "The minimum is taken over repeated runs on the same buffer, so maps up to a few MB are cache-resident: "
  "above 100% means the data came from cache, not that memory bandwidth was exceeded. For Respawn and "
  "Call of Duty few lumps have a record size in this revision, so bspkit's work there is mostly one pass "
  "over raw bytes, while bsp_tool decodes entries; those ratios compare unequal work. bspkit reads the "
  "`.bsp` alone (`from_bytes`, no external `.bsp_lump` files); bsp_tool loads them for `mp_looby`.\n")
p("| map | size | bspkit | MB/s | % bw | bsp_tool | ×bsp_tool | fastest crate | ×crate |")
p("|---|---:|---:|---:|---:|---:|---:|---|---:|")
fam_stats = defaultdict(lambda: defaultdict(list))
per_map_cr = []
for m in maps:
    fam = m.split("/")[0]
    tb = t("bspkit", m)
    sz = size.get(m, 0)
    tp = t("bsp_tool", m)
    crate_times = [(t(c, m), c) for c in CRATES if t(c, m) is not None]
    best = min(crate_times) if crate_times else None
    mbs = sz / tb / 1e6 if tb else None
    r_py = tp / tb if tb and tp else None
    r_cr = best[0] / tb if tb and best else None
    notes = [f"{c}: {status(c, m)}" for c in CRATES if status(c, m) not in (None, "ok")]
    if status("bsp_tool", m) not in (None, "ok"):
        notes.append(f"bsp_tool: {status('bsp_tool', m)}")
    if status("bspkit", m) != "ok":
        notes.append(f"bspkit: {status('bspkit', m)}")
    crate_cell = f"{CRATE_NAMES[best[1]]} {fmt_t(best[0])}" if best else "–"
    if notes:
        crate_cell += " (" + ", ".join(notes) + ")"
    p(f"| {m} | {sz / 1024:,.0f} KiB | {fmt_t(tb)} | {'–' if mbs is None else f'{mbs:,.0f}'} | "
      f"{'–' if mbs is None else f'{mbs / 1e3 / bw * 100:.0f}%'} | {fmt_t(tp)} | {fmt_x(r_py)} | {crate_cell} | {fmt_x(r_cr)} |")
    s = fam_stats[fam]
    s["bytes"].append(sz)
    if tb:
        s["tb"].append(tb)
        s["tb_bytes"].append(sz)
    if r_py:
        s["py"].append(r_py)
    if r_cr:
        s["cr"].append(r_cr)
        per_map_cr.append((r_cr, m))
    for c in CRATES:
        if tb and t(c, m):
            s["c_" + c].append(t(c, m) / tb)

p("\n## Per family (geometric means over maps that both readers decoded)\n")
p("| family | maps | bspkit MB/s (total bytes / total time) | % bw | ×bsp_tool | ×fastest crate | per crate |")
p("|---|---:|---:|---:|---:|---:|---|")
all_py, all_cr, tot_b, tot_t = [], [], 0, 0.0
for fam in FAMILIES:
    s = fam_stats.get(fam)
    if not s:
        continue
    mbs = sum(s["tb_bytes"]) / sum(s["tb"]) / 1e6 if s["tb"] else None
    tot_b += sum(s["tb_bytes"])
    tot_t += sum(s["tb"])
    all_py += s["py"]
    all_cr += s["cr"]
    per = ", ".join(f"{CRATE_NAMES[c]} {fmt_x(gmean(s['c_' + c]))} ({len(s['c_' + c])})" for c in CRATES if s["c_" + c])
    p(f"| {fam} | {len(s['bytes'])} | {'–' if mbs is None else f'{mbs:,.0f}'} | "
      f"{'–' if mbs is None else f'{mbs / 1e3 / bw * 100:.0f}%'} | {fmt_x(gmean(s['py']))} | {fmt_x(gmean(s['cr']))} | {per or '–'} |")
all_mbs = tot_b / tot_t / 1e6 if tot_t else 0
p(f"| **all** | {len(maps)} | {all_mbs:,.0f} | {all_mbs / 1e3 / bw * 100:.0f}% | {fmt_x(gmean(all_py))} | {fmt_x(gmean(all_cr))} | |")

p("\n## Failures per reader\n")
p("| reader | maps tried | ok | error | panic (caught) | process aborted |\n|---|---:|---:|---:|---:|---:|")
for tool in ["bspkit", "bsp_tool"] + CRATES:
    rs = [r for r in rows if r["tool"] == tool]
    if not rs:
        continue
    cnt = defaultdict(int)
    for r in rs:
        cnt[status(tool, r["map"])] += 1
    p(f"| {CRATE_NAMES.get(tool, tool)} | {len(rs)} | {cnt['ok']} | {cnt['error']} | {cnt['panic']} | {cnt['abort']} |")
fails = [r for r in rows if not r.get("ok") and r["tool"] not in WRITERS]
if fails:
    p("\n<details><summary>failure messages</summary>\n")
    for r in fails:
        msg = (r.get("error") or "").splitlines()[0][:160] if r.get("error") else ""
        p(f"- {CRATE_NAMES.get(r['tool'], r['tool'])} on `{r['map']}`: {status(r['tool'], r['map'])}: {msg}")
    p("\n</details>")

p("\n## Peak memory (max resident set, per process: one map, all runs)\n")
p("| reader | family | maps | median | max |\n|---|---|---:|---:|---:|")
for tool in ["bspkit", "bsp_tool"] + CRATES + ["bspkit_write"]:
    for fam in FAMILIES:
        v = sorted(r["maxrss_kb"] for r in rows if r["tool"] == tool and r["family"] == fam and r.get("maxrss_kb"))
        if v:
            p(f"| {CRATE_NAMES.get(tool, tool)} | {fam} | {len(v)} | {v[len(v) // 2] / 1024:.1f} MiB | {v[-1] / 1024:.1f} MiB |")

p("\n## `bsp scan` over the whole corpus directory\n")
scan_bytes = sum(r.get("size", 0) for r in scan_lines)
p(f"{len(scan_lines)} maps, {scan_bytes / 1e6:.1f} MB (open + lump summary + all checks per map; includes process start "
  f"and the directory walk). Exit status {scan_times[-1]['exit']} (1 = some map has `bsp check` problems).\n")
p("| jobs | best of 5 | MB/s | % bw |\n|---:|---:|---:|---:|")
for jobs in sorted({s["jobs"] for s in scan_times}):
    best = min(s["seconds"] for s in scan_times if s["jobs"] == jobs)
    mbs = scan_bytes / best / 1e6
    p(f"| {jobs} | {fmt_t(best)} | {mbs:,.0f} | {mbs / 1e3 / bw * 100:.0f}% |")

p("\n## Round-trip write throughput\n")
p("- **bspkit in memory** (`bench/src/bin/bspkit_write.rs`): `Bsp::from_bytes` then "
  "`edit::Editor::new(&bsp)?.to_bytes()` with no change, min of "
  f"{machine['runs']} runs on a byte buffer. Before timing, the output is compared with the input once; a map "
  "whose output differs counts as a failure. Compressed lumps are carried over as stored (no recompression).")
p("- **`bsp rewrite MAP -o OUT`**: the whole command, best of 5: process start, read, writer, atomic write "
  "(temporary file, then rename), then the written file reopened and `bsp check`ed against the source; "
  "OUT compared with MAP afterwards. The output file is in `bench/out` on this machine's disk (page cache).")
p("- **bsp_tool 0.7.0** `load_bsp(path).save_as(out)`, min of "
  f"{machine['py_runs']} runs; written file compared with the input. Its base class's `save_as` raises "
  "`NotImplementedError`; the Valve (Source) and Respawn classes implement it.\n")
rw = {r["map"]: r for r in rewrite_lines}
p("| family | maps | bspkit byte-identical | bspkit MB/s | `bsp rewrite` byte-identical | `bsp rewrite` MB/s | "
  "bsp_tool save_as ok | bsp_tool identical | bsp_tool MB/s | ×bsp_tool (in memory) | ×bsp_tool (`bsp rewrite`) |")
p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
wt = defaultdict(lambda: defaultdict(float))
w_ratio, w_ratio_cli = defaultdict(list), defaultdict(list)
for m in maps:
    fam = m.split("/")[0]
    for key in (fam, "all"):
        w = wt[key]
        w["maps"] += 1
        kw, ks, cli = by.get(("bspkit_write", m)), by.get(("bsp_tool_save", m)), rw.get(m)
        if kw and kw.get("ok"):
            w["kit_ok"] += 1
            w["kit_b"] += kw["size"]
            w["kit_t"] += kw["min_s"]
        if cli and cli.get("exit") == 0 and cli.get("min_s"):
            w["cli_ok"] += 1
            w["cli_id"] += bool(cli.get("identical"))
            w["cli_b"] += cli["size"]
            w["cli_t"] += cli["min_s"]
        if ks and ks.get("ok"):
            w["py_ok"] += 1
            w["py_id"] += bool(ks.get("identical"))
            w["py_b"] += ks["size"]
            w["py_t"] += ks["min_s"]
            if kw and kw.get("ok"):
                w_ratio[key].append(ks["min_s"] / kw["min_s"])
            if cli and cli.get("exit") == 0 and cli.get("min_s"):
                w_ratio_cli[key].append(ks["min_s"] / cli["min_s"])


def mbps(b, t_):
    return f"{b / t_ / 1e6:,.0f}" if t_ else "–"


for key in [f for f in FAMILIES if f in wt] + ["all"]:
    w = wt[key]
    name = "**all**" if key == "all" else key
    n = int(w["maps"])
    p(f"| {name} | {n} | {int(w['kit_ok'])}/{n} | {mbps(w['kit_b'], w['kit_t'])} | {int(w['cli_id'])}/{n} | "
      f"{mbps(w['cli_b'], w['cli_t'])} | {int(w['py_ok'])}/{n} | {int(w['py_id'])}/{int(w['py_ok'])} | "
      f"{mbps(w['py_b'], w['py_t'])} | {fmt_x(gmean(w_ratio[key]))} | {fmt_x(gmean(w_ratio_cli[key]))} |")
p("\nMB/s is input bytes / time summed over the family's maps. ×bsp_tool is the geometric mean, over the maps "
  "both wrote, of bsp_tool's save_as time / bspkit's time: “in memory” against `to_bytes` (a file write against an "
  "in-memory one), “`bsp rewrite`” against the whole command (which also pays process start, a file sync and the "
  "reopen + check; bsp_tool's time excludes interpreter start).")
diffs = [r for r in rows if r["tool"] == "bsp_tool_save" and r.get("ok") and not r.get("identical")]
if diffs:
    p("\n<details><summary>bsp_tool save_as outputs that differ from the input</summary>\n")
    for r in diffs:
        p(f"- `{r['map']}`: {r['size']:,} bytes in, {r.get('out_size') or 0:,} bytes written")
    p("\n</details>")
pyfails = defaultdict(list)
for r in rows:
    if r["tool"] == "bsp_tool_save" and not r.get("ok"):
        pyfails[((r.get("error") or "").splitlines() or [""])[0][:160]].append(r["map"])
if pyfails:
    p("\n<details><summary>bsp_tool save_as errors</summary>\n")
    for msg, ms in sorted(pyfails.items(), key=lambda kv: -len(kv[1])):
        p(f"- {msg or '(no message)'}: {len(ms)} map(s): " + ", ".join(f"`{m}`" for m in ms))
    p("\n</details>")
wfails = [r for r in rows if r["tool"] == "bspkit_write" and not r.get("ok")]
wfails += [{"map": r["map"], "error": f"exit {r['exit']}" if r.get("exit") else "output differs"}
           for r in rewrite_lines if r.get("exit") or not r.get("identical")]
for r in wfails:
    if r.get("error") and str(r["error"]).startswith("exit") and rw.get(r["map"], {}).get("error"):
        r["error"] = f"{r['error']}: {rw[r['map']]['error']}"
if wfails:
    p("\n<details><summary>bspkit write failures</summary>\n")
    for r in wfails:
        p(f"- `{r['map']}`: {str(r.get('error'))[:300]}")
    p("\n</details>")

lz = [(m, by[("bspkit_lzma", m)]) for m in maps if by.get(("bspkit_lzma", m), {}).get("ok") and by[("bspkit_lzma", m)].get("work")]
if lz:
    p("\n## Maps with LZMA-compressed lumps: how much of the decode is LZMA\n")
    p("`bench/src/bin/bspkit_lzma.rs` times only `compression::decompress_valve_lzma` over every lump stored with "
      "Valve's LZMA header (min of the same number of runs). “ceiling” is bsp_tool's time / that LZMA time: the "
      "×bsp_tool ratio bspkit could reach if everything but LZMA took no time, with this LZMA decoder "
      "(liblzma, static, via the `liblzma` crate). Both are minima from separate processes, so a share "
      "slightly above 100% is timing noise.\n")
    p("| map | size | decompressed | bspkit decode | LZMA only | LZMA share | LZMA output MB/s | bsp_tool | ceiling |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, r in lz:
        tb, tl, tp = t("bspkit", m), r["min_s"], t("bsp_tool", m)
        p(f"| {m} | {size[m] / 1024:,.0f} KiB | {r['work'] / 1024:,.0f} KiB | {fmt_t(tb)} | {fmt_t(tl)} | "
          f"{'–' if not tb else f'{tl / tb * 100:.0f}%'} | {r['work'] / tl / 1e6:,.0f} | {fmt_t(tp)} | "
          f"{fmt_x(tp / tl) if tp else '–'} |")

p("\n## Targets\n")
py, cr = gmean(all_py), gmean(all_cr)


def below(key, goal):
    fams = [f for f in FAMILIES if f in fam_stats and fam_stats[f][key] and gmean(fam_stats[f][key]) < goal]
    return ("; **not met** for " + ", ".join(f"{f} ({fmt_x(gmean(fam_stats[f][key]))})" for f in fams)) if fams else "; met in every family"


def per(key):
    return ", ".join(f"{f} {fmt_x(gmean(fam_stats[f][key]))}" for f in FAMILIES if f in fam_stats and fam_stats[f][key])


p(f"- ≥1000× bsp_tool: geometric mean over all maps {fmt_x(py)} — **{'met' if py and py >= 1000 else 'not met'}** overall"
  f"{below('py', 1000)}. Per family: {per('py')}.")
p(f"- ≥3× the fastest crate: geometric mean {fmt_x(cr)} over the maps some crate decoded — "
  f"**{'met' if cr and cr >= 3 else 'not met'}** overall{below('cr', 3)}. Per family: {per('cr')}. "
  + (f"Per map, {sum(1 for x, _ in per_map_cr if x < 3)} of {len(per_map_cr)} maps are below 3×: "
     + ", ".join(f"`{m}` {fmt_x(x)}" for x, m in sorted(per_map_cr) if x < 3) + "." if any(x < 3 for x, _ in per_map_cr) else ""))
slow = [f for f in FAMILIES if f in fam_stats and fam_stats[f]["tb"] and sum(fam_stats[f]["tb_bytes"]) / sum(fam_stats[f]["tb"]) < 1e9]
p(f"- ≥1 GB/s decode: {all_mbs / 1e3:.2f} GB/s over all maps (total bytes / total time) — **{'met' if all_mbs >= 1000 else 'not met'}** overall"
  + ("; **not met** for " + ", ".join(f"{f} ({sum(fam_stats[f]['tb_bytes']) / sum(fam_stats[f]['tb']) / 1e6:,.0f} MB/s)" for f in slow) if slow else "; met in every family")
  + ". Caveat: timings are on cache-resident buffers (see above).")
for m, r in lz:
    tb, tp = t("bspkit", m), t("bsp_tool", m)
    if tb and tp:
        p(f"- `{m}`: LZMA decompression alone takes {r['min_s'] / tb * 100:.0f}% of bspkit's decode time, so with "
          f"this decoder neither the 1000× nor the 1 GB/s target is reachable on it (ceiling {fmt_x(tp / r['min_s'])} "
          f"bsp_tool, {size[m] / r['min_s'] / 1e6:,.0f} MB/s of file bytes; see “Maps with LZMA-compressed lumps”).")

# The Python package stage (bench/py/bench.sh, run on its own): its section, when its results
# are there, before the export section (which export.sh replaces up to the end).
py_results = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "bench-py")
if os.path.exists(os.path.join(py_results, "bsp_tool.jsonl")):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "py"))
    import report as py_report

    p("")
    print(py_report.section(py_results), end="")

# The tiled-map stage (bench/tiled.sh, run on its own): its section from its saved results.
tiled = os.path.join(out, "tiled")
if os.path.exists(os.path.join(tiled, "results.json")):
    import json as _json

    import tiled_report

    meta = dict(line.strip().split("=", 1) for line in open(os.path.join(tiled, "meta.txt")) if "=" in line)
    p("")
    print(tiled_report.section(_json.load(open(os.path.join(tiled, "results.json"))), meta), end="")

# The export stage (export.sh, run by run.sh last): its own section, at the end.
if os.path.exists(os.path.join(out, "export", "results.jsonl")):
    p("")
    print(report_export.section(os.path.join(out, "export")), end="")
