"""Times `bsp export` and bsp-to-glb on the maps bench/tiled.sh grew, and writes the section.

    tiled_report.py OUT_DIR BSP BSP_TO_GLB RUNS [--splice RESULTS.md]

For each OUT_DIR/*.bsp: best of RUNS wall times as whole processes of
- `bsp export MAP -o a.glb --skip none --no-textures --no-lightmaps` (like for like: bsp-to-glb
  keeps hidden surfaces and writes no images),
- `bsp export MAP -o l.glb --skip none --no-textures` (lightmaps: atlas, PNG and TEXCOORD_1;
  bsp-to-glb computes TEXCOORD_1 but writes no atlas),
- `bsp-to-glb --bsp MAP --out b.glb`,
with each one's peak resident set (GNU time, first run) and output size; every GLB is validated
when BSPKIT_GLTF_VALIDATOR names tools/gltf-validate/validate.mjs. Only measured numbers.
"""
import json
import math
import os
import subprocess
import sys
import time

HEADING = "## Export on maps of real size (issue 8)"


def timed(cmd, runs):
    """(best wall seconds, peak RSS bytes of the first run)."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {r.stderr.strip()[-300:]}")
    rss = int(r.stderr.strip().splitlines()[-1]) * 1024
    best = math.inf
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - t)
    return best, rss


def validate(path):
    script = os.environ.get("BSPKIT_GLTF_VALIDATOR")
    if not script:
        return None
    r = subprocess.run(["node", script, path], capture_output=True, text=True)
    v = json.loads(r.stdout.strip().splitlines()[-1])
    return (v.get("errors"), v.get("warnings")) if "failure" not in v else ("failure", None)


def fmt_ms(s):
    return f"{s * 1e3:,.1f} ms"


def mb(n):
    return f"{n / 1e6:,.1f} MB"


def baseline(bsp):
    """Peak RSS of a `bsp` process that opens no map (`bsp --version`)."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", bsp, "--version"], capture_output=True, text=True, check=True)
    return int(r.stderr.strip().splitlines()[-1]) * 1024


def measure(out, bsp, b2g, runs):
    rows = []
    base = baseline(bsp)
    for name in sorted(f for f in os.listdir(out) if f.endswith(".bsp")):
        path = os.path.join(out, name)
        stem = name[:-4]
        tile = open(os.path.join(out, stem + ".tile.txt")).read().split()
        a, l, b = (os.path.join(out, f"{stem}.{k}.glb") for k in "alb")
        ta, ra = timed([bsp, "export", path, "-o", a, "--skip", "none", "--no-textures", "--no-lightmaps"], runs)
        tl, rl = timed([bsp, "export", path, "-o", l, "--skip", "none", "--no-textures"], runs)
        tb, rb = timed([b2g, "--bsp", path, "--out", b], runs)
        summary = json.loads(subprocess.run([bsp, "export", path, "-o", a, "--skip", "none", "--no-textures", "--no-lightmaps", "--json"],
                                            capture_output=True, text=True, check=True).stdout)
        rows.append({
            "map": stem, "baseline": base, "copies": int(tile[0]), "faces": int(tile[2]), "size": os.path.getsize(path),
            "triangles": summary["triangles"],
            "bspkit": ta, "bspkit_rss": ra, "bspkit_glb": os.path.getsize(a), "bspkit_valid": validate(a),
            "bspkit_lm": tl, "bspkit_lm_rss": rl, "bspkit_lm_glb": os.path.getsize(l), "bspkit_lm_valid": validate(l),
            "b2g": tb, "b2g_rss": rb, "b2g_glb": os.path.getsize(b), "b2g_valid": validate(b),
        })
        print(f"{stem}: bspkit {fmt_ms(ta)}, with lightmaps {fmt_ms(tl)}, bsp-to-glb {fmt_ms(tb)}: {tb / ta:.2f}x, {tb / tl:.2f}x", file=sys.stderr)
    return rows


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def section(rows, meta):
    out = [HEADING, ""]
    out.append(
        f"Measured {meta.get('date', '?')} by `bench/tiled.sh` at bspkit commit `{meta.get('bspkit', '?')}`, bsp-to-glb at "
        f"`{meta.get('b2g', '?')}` (load average {meta.get('load_start', '?')} at the start). The corpus's Source maps are "
        "34 KB–0.9 MB, so a whole `bsp export` of one is mostly process start (the Export section below). Here each map "
        "bsp-to-glb exports is grown by `tile_source` (bench/src/bin/tile_source.rs): its world's faces are copied, lying on "
        "the original, until 16-bit edge indices are used up, giving maps of 3–9 MB and 22,000–64,000 faces like released "
        "ones (copies lose displacements and primitives; lighting, planes and textures are shared). Whole processes, best of "
        "runs; peak RSS from GNU time. bsp-to-glb keeps hidden surfaces and writes no images, so the like-for-like `bsp "
        "export` is `--skip none --no-textures --no-lightmaps`; with lightmaps bspkit also packs the atlas and encodes its "
        "PNG, where bsp-to-glb computes lightmap UVs only."
    )
    out.append("")
    base = rows[0]["baseline"] if rows else 0
    out.append(
        f"“net” subtracts the peak RSS of a `bsp` process that opens no map (`bsp --version`: {mb(base)}): the "
        "program's own pages, which no map changes."
    )
    out.append("")
    out.append("| map grown from | copies | size | faces | triangles | `bsp export` | GLB | peak RSS | RSS/GLB | net RSS/GLB | with lightmaps | bsp-to-glb | GLB | peak RSS | ×bsp-to-glb | ×, bspkit with lightmaps |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        out.append(
            f"| {r['map']} | {r['copies']:,} | {mb(r['size'])} | {r['faces']:,} | {r['triangles']:,} | {fmt_ms(r['bspkit'])} | "
            f"{mb(r['bspkit_glb'])} | {mb(r['bspkit_rss'])} | {r['bspkit_rss'] / r['bspkit_glb']:.1f}× | "
            f"{(r['bspkit_rss'] - r['baseline']) / r['bspkit_glb']:.1f}× | {fmt_ms(r['bspkit_lm'])} | "
            f"{fmt_ms(r['b2g'])} | {mb(r['b2g_glb'])} | {mb(r['b2g_rss'])} | {r['b2g'] / r['bspkit']:.2f}× | {r['b2g'] / r['bspkit_lm']:.2f}× |"
        )
    out.append("")
    ratios = [r["b2g"] / r["bspkit"] for r in rows]
    lm = [r["b2g"] / r["bspkit_lm"] for r in rows]
    rss = [r["bspkit_rss"] / r["bspkit_glb"] for r in rows]
    net = [(r["bspkit_rss"] - r["baseline"]) / r["bspkit_glb"] for r in rows]
    if rows:
        out.append(
            f"- ≥3× faster than bsp-to-glb, whole process, like for like: geometric mean {gmean(ratios):.2f}×, range "
            f"{min(ratios):.2f}× – {max(ratios):.2f}× over {len(rows)} maps — **{'met' if min(ratios) >= 3 else 'not met'}** "
            f"on every map. With lightmaps (bspkit doing more): {gmean(lm):.2f}×, {min(lm):.2f}× – {max(lm):.2f}×."
        )
        out.append(
            f"- Peak memory ≤ 3× the output (whole process, geometry): RSS / GLB {min(rss):.1f}× – {max(rss):.1f}× — "
            f"**{'met' if max(rss) <= 3 else 'not met'}** on every map"
            + (f" ({sum(x <= 3 for x in rss)} of {len(rss)} within 3×)" if max(rss) > 3 else "")
            + f"; net of the program's own pages {min(net):.1f}× – {max(net):.1f}× — "
            f"**{'met' if max(net) <= 3 else 'not met'}** on every map"
            + (f" ({sum(x <= 3 for x in net)} of {len(net)} within 3×)." if max(net) > 3 else ".")
        )
        checked = [(r["map"], k, r[k]) for r in rows for k in ("bspkit_valid", "bspkit_lm_valid", "b2g_valid") if r[k] is not None]
        if checked:
            ours = [c for c in checked if c[1] != "b2g_valid"]
            # A list once read back from results.json (bench/report.py), a tuple when just measured.
            clean = sum(1 for c in ours if list(c[2]) == [0, 0])
            theirs = [c for c in checked if c[1] == "b2g_valid"]
            out.append(
                f"- Khronos glTF Validator: {clean} of {len(ours)} bspkit GLBs with 0 errors and 0 warnings; bsp-to-glb's: "
                + ", ".join(f"{m} {v[0]} errors / {v[1]} warnings" for m, _, v in theirs)
                + "."
            )
    return "\n".join(out) + "\n"


def main():
    out, bsp, b2g, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    meta = dict(line.strip().split("=", 1) for line in open(os.path.join(out, "meta.txt")) if "=" in line)
    rows = measure(out, bsp, b2g, runs)
    json.dump(rows, open(os.path.join(out, "results.json"), "w"), indent=1)
    text = section(rows, meta)
    sys.stdout.write(text)
    if len(sys.argv) > 6 and sys.argv[5] == "--splice":
        # bench/py/report.py's splice: replace the section, or put it before the Export section.
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "py"))
        from report import splice

        splice(sys.argv[6], text, HEADING)
        print(f"wrote the tiled-map section of {sys.argv[6]}", file=sys.stderr)


if __name__ == "__main__":
    main()
