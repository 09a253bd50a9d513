#!/usr/bin/env bash
# Export benchmark (issues 8 and 13): bspkit's geometry export against bsp-to-glb, bsp_tool's
# mesh building and the qbsp crate's meshing, over the maps in $BSPKIT_CORPUS. Writes its
# measurements to bench/out/export/ and the "Export" section of bench/RESULTS.md. See README.md.
#
#   BSPKIT_CORPUS=/path/to/maps [BSP_TO_GLB_DIR=/path/to/bsp-to-glb] bench/export.sh
#
# run.sh calls it as its last stage (then report.py writes the whole RESULTS.md); run alone, it
# replaces only the Export section of an existing RESULTS.md.
#
# BSPKIT_ONLY=1 runs only bspkit's in-process program (no qbsp, bsp_tool, processes or
# bsp-to-glb) and updates only the "export (tex + lm)" numbers of RESULTS.md's Export section,
# with a before/after table when BSPKIT_EXPORT_BEFORE names an older build of bspkit_export
# (measured in the same run) — see update_export_full.py.
#
# Environment: RUNS (in-process timed runs per map, at least; more until they add up to 20 ms;
# default 20), PY_RUNS (bsp_tool, default 3),
# CLI_RUNS (process runs per map for `bsp export` and bsp-to-glb, best of, default 5),
# BENCH_TARGET (cargo target dir, default bench/target), BSP_TO_GLB_DIR (a checkout of
# github.com/Hona/bsp-to-glb; built there with `cargo build --release`; without it that
# comparison is left out).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the map corpus directory}"
corpus=$(cd "$BSPKIT_CORPUS" && pwd)
RUNS=${RUNS:-20}
PY_RUNS=${PY_RUNS:-3}
CLI_RUNS=${CLI_RUNS:-5}
tgt=${BENCH_TARGET:-$here/target}
out=$here/out/export
rm -rf "$out" && mkdir -p "$out"

[ -x /usr/bin/time ] || { echo "export.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# Each JSON line of a bench program gets its map and family (and, given a third argument, that
# suffix on its tool name).
tag() {
    python3 -c '
import json, sys
m, fam, sfx = sys.argv[1:]
for l in sys.stdin:
    if l.strip():
        r = json.loads(l)
        r.update({"map": m, "family": fam})
        if sfx:
            r["tool"] += sfx
        print(json.dumps(r))' "$1" "$2" "${3:-}"
}

# Every map of the corpus, as paths under it.
mapfile -t maps < <(cd "$corpus" && find . -type f \( -iname '*.bsp' -o -iname '*.d3dbsp' \) | sed 's|^\./||' | sort)

if [ -n "${BSPKIT_ONLY:-}" ]; then
    echo "== export: bspkit only: building bspkit_export (release)" >&2
    (cd "$here" && CARGO_TARGET_DIR="$tgt/cmp" cargo build --release -q --bin bspkit_export)
    echo "== export: ${#maps[@]} maps, ${RUNS} runs each" >&2
    for m in "${maps[@]}"; do
        fam=${m%%/*}
        # Before and after alternate map by map, so both see the same load.
        for b in "$tgt/cmp/release/bspkit_export" ${BSPKIT_EXPORT_BEFORE:+"$BSPKIT_EXPORT_BEFORE"}; do
            suffix=$([ "$b" = "$tgt/cmp/release/bspkit_export" ] || echo _before)
            "$b" "$RUNS" "$corpus/$m" 2>> "$out/stderr.log" | tag "$m" "$fam" "$suffix" >> "$out/results.jsonl" || true
        done
    done
    {
        echo "nproc=$(nproc)"
        echo "load=$load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (1/5/15-minute load averages)"
        echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "bspkit=$(git -C "$root" rev-parse --short HEAD)"
        echo "before=${BSPKIT_EXPORT_BEFORE_REV:-}"
        echo "runs=$RUNS"
    } > "$out/machine.txt"
    python3 "$here/update_export_full.py" "$out" "$here/RESULTS.md"
    echo "== export: updated the tex + lm numbers of bench/RESULTS.md" >&2
    exit 0
fi

echo "== export: building (release)" >&2
(cd "$root" && CARGO_TARGET_DIR="$tgt/main" cargo build --release -q -p bsp-cli)
(cd "$here" && CARGO_TARGET_DIR="$tgt/cmp" cargo build --release -q --bin bspkit_export --bin bspkit_export_heap --bin qbsp_mesh)
bsp="$tgt/main/release/bsp"
bin="$tgt/cmp/release"

b2g=
b2g_rev=
b2g_inproc=
if [ -n "${BSP_TO_GLB_DIR:-}" ]; then
    echo "== export: building bsp-to-glb in $BSP_TO_GLB_DIR" >&2
    # Its own target dir (the checkout's), its own toolchain file and lock file.
    (cd "$BSP_TO_GLB_DIR" && env -u CARGO_TARGET_DIR cargo build --release -q)
    b2g="$BSP_TO_GLB_DIR/target/release/bsp-to-glb"
    b2g_rev=$(git -C "$BSP_TO_GLB_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
    # Its library in process (b2g_inproc/main.rs, with the bench driver src/lib.rs): the
    # comparison without process start-up. A throw-away package under the bench target dir
    # points at the checkout and at those files.
    b2g_pkg="$tgt/b2g-inproc"
    mkdir -p "$b2g_pkg"
    cat > "$b2g_pkg/Cargo.toml" <<TOML
[package]
name = "b2g_inproc"
version = "0.0.0"
edition = "2021"
publish = false

[[bin]]
name = "b2g_inproc"
path = "$here/b2g_inproc/main.rs"

[dependencies]
bsp-to-glb = { path = "$(cd "$BSP_TO_GLB_DIR" && pwd)" }
serde_json = "1"

[profile.release]
debug = 1

[workspace]
TOML
    cp "$BSP_TO_GLB_DIR/Cargo.lock" "$b2g_pkg/Cargo.lock" 2>/dev/null || true
    (cd "$b2g_pkg" && env -u CARGO_TARGET_DIR cargo build --release -q)
    b2g_inproc="$b2g_pkg/target/release/b2g_inproc"
else
    echo "== export: BSP_TO_GLB_DIR not set: bsp-to-glb left out" >&2
fi

if [ ! -x "$here/.venv/bin/python" ]; then
    python3 -m venv "$here/.venv"
fi
"$here/.venv/bin/pip" install -q "bsp_tool==0.7.0"

echo "== export: ${#maps[@]} maps; in-process ${RUNS} runs, processes best of ${CLI_RUNS}, bsp_tool ${PY_RUNS}" >&2

# Lines of the in-process programs, tagged with the map's path under the corpus and its family.
for m in "${maps[@]}"; do
    fam=${m%%/*}
    "$bin/bspkit_export" "$RUNS" "$corpus/$m" 2>> "$out/stderr.log" | tag "$m" "$fam" >> "$out/results.jsonl" || true
    "$bin/bspkit_export_heap" 1 "$corpus/$m" 2>> "$out/stderr.log" | tag "$m" "$fam" >> "$out/results.jsonl" || true
    if [ -n "$b2g" ] && { [ "$fam" = source ] || [ "$fam" = source_x360 ]; }; then
        "$b2g_inproc" "$RUNS" "$corpus/$m" 2>> "$out/stderr.log" | tag "$m" "$fam" >> "$out/results.jsonl" || true
    fi
    case $fam in
        quake1|goldsrc|quake2)
            "$bin/qbsp_mesh" "$RUNS" "$corpus/$m" 2>> "$out/stderr.log" | tag "$m" "$fam" >> "$out/results.jsonl" || true ;;
    esac
    "$here/.venv/bin/python" "$here/bsp_tool_mesh.py" "$PY_RUNS" "$corpus/$m" 2>> "$out/stderr.log" \
        | tag "$m" "$fam" >> "$out/results.jsonl" || true
done
echo "   in-process done" >&2

# Whole processes: `bsp export` (default: textures + lightmaps; and geometry only) and
# bsp-to-glb (Source maps), best of CLI_RUNS wall time each; the first run under /usr/bin/time
# for the peak resident set; the output's size.
python3 - "$bsp" "$b2g" "$corpus" "$out" "$CLI_RUNS" "${maps[@]}" <<'PY'
import json, os, subprocess, sys, time
bsp, b2g, corpus, out, runs, maps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:]
glb = os.path.join(out, "out.glb")
rss_file = os.path.join(out, "rss.txt")


def rel(text):
    # Relative paths only: RESULTS.md is committed.
    return text.replace(out + "/", "bench/out/export/").replace(corpus + "/", "")


def measure(tool, cmd, m, fam):
    best, rc, err, rss = None, 0, None, None
    for k in range(runs):
        if os.path.exists(glb):
            os.remove(glb)
        full = (["/usr/bin/time", "-f", "%M", "-o", rss_file] if k == 0 else []) + cmd
        t = time.perf_counter()
        r = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt, rc = time.perf_counter() - t, r.returncode
        if k == 0:
            text = open(rss_file).read().split()
            rss = int(text[-1]) if text and text[-1].isdigit() else None
        if rc != 0:
            lines = r.stderr.decode(errors="replace").strip().splitlines()
            err = rel(lines[-1])[:300] if lines else f"exit {rc}"
            break
        best = dt if best is None else min(best, dt)
    size = os.path.getsize(glb) if rc == 0 and os.path.exists(glb) else None
    return {"tool": tool, "map": m, "family": fam, "size": os.path.getsize(os.path.join(corpus, m)), "exit": rc,
            "ok": rc == 0, "error": err, "min_s": best if rc == 0 else None, "maxrss_kb": rss, "glb_bytes": size}


def baseline(tool, cmd):
    # A process that opens no map: its peak resident set and its best wall time (process start).
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd, stdout=subprocess.DEVNULL)
    best = None
    for _ in range(max(4 * runs, 20)):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return {"tool": tool, "maxrss_kb": int(open(rss_file).read().split()[-1]), "min_s": best}


with open(os.path.join(out, "cli.jsonl"), "w") as log:
    log.write(json.dumps(baseline("baseline", [bsp, "--version"])) + "\n")
    if b2g:
        log.write(json.dumps(baseline("baseline_b2g", [b2g, "--version"])) + "\n")
    for m in maps:
        fam = m.split("/")[0]
        src = os.path.join(corpus, m)
        log.write(json.dumps(measure("bsp_export", [bsp, "export", src, "-o", glb], m, fam)) + "\n")
        log.write(json.dumps(measure("bsp_export_geo", [bsp, "export", src, "-o", glb, "--no-textures", "--no-lightmaps"], m, fam)) + "\n")
        if b2g and fam in ("source", "source_x360"):
            # bsp-to-glb keeps hidden surfaces (sky, triggers) in its GLB: the same work is
            # `--skip none`.
            log.write(json.dumps(measure("bsp_export_all", [bsp, "export", src, "-o", glb, "--no-textures", "--no-lightmaps",
                                                            "--skip", "none"], m, fam)) + "\n")
            log.write(json.dumps(measure("bsp_to_glb", [b2g, "--bsp", src, "--out", glb], m, fam)) + "\n")
        log.flush()
    if os.path.exists(glb):
        os.remove(glb)
PY
echo "   processes done" >&2

{
    echo "nproc=$(nproc)"
    echo "load=$load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (1/5/15-minute load averages)"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "rustc=$(rustc --version)"
    echo "python=$("$here/.venv/bin/python" --version 2>&1)"
    echo "bspkit=$(git -C "$root" rev-parse --short HEAD)"
    echo "bsp_to_glb=$b2g_rev"
    echo "runs=$RUNS"
    echo "py_runs=$PY_RUNS"
    echo "cli_runs=$CLI_RUNS"
} > "$out/machine.txt"

# Alone: splice the Export section into RESULTS.md (run.sh's report.py writes it otherwise).
if [ -z "${BSPKIT_RUN_SH:-}" ]; then
    python3 "$here/report_export.py" "$out" --splice "$here/RESULTS.md"
    echo "== export: wrote the Export section of bench/RESULTS.md" >&2
fi
