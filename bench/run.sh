#!/usr/bin/env bash
# Comparison benchmark: bspkit against bsp_tool 0.7.0 (Python) and the Rust crates vbsp, qbsp,
# bspparser and bsp, over the maps in $BSPKIT_CORPUS, then the export stage (export.sh: bsp-to-glb,
# bsp_tool meshes, qbsp meshing). Writes bench/RESULTS.md. See README.md.
#
#   BSPKIT_CORPUS=/path/to/maps bench/run.sh
#
# Environment: RUNS (timed runs per map for the Rust programs, at least: more until they add up
# to 20 ms; default 20), PY_RUNS (bsp_tool,
# default 3), BENCH_TARGET (cargo target dir, default bench/target).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the map corpus directory}"
corpus=$(cd "$BSPKIT_CORPUS" && pwd)
RUNS=${RUNS:-20}
PY_RUNS=${PY_RUNS:-3}
tgt=${BENCH_TARGET:-$here/target}
out=$here/out
rm -rf "$out" && mkdir -p "$out"

[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)

echo "== building (release)" >&2
(cd "$root" && CARGO_TARGET_DIR="$tgt/main" cargo build --release -q -p bsp-cli)
(cd "$here" && CARGO_TARGET_DIR="$tgt/cmp" cargo build --release -q)
bsp="$tgt/main/release/bsp"
bin="$tgt/cmp/release"

echo "== bsp_tool venv" >&2
if [ ! -x "$here/.venv/bin/python" ]; then
    python3 -m venv "$here/.venv"
fi
"$here/.venv/bin/pip" install -q "bsp_tool==0.7.0"

# Which families each reader claims (the folder under the corpus is the family).
families_of() {
    case $1 in
        bspkit|bspkit_write|bsp_tool|bsp_tool_save) echo "quake1 goldsrc quake2 quake3 source source_x360 respawn cod" ;;
        vbsp|bspkit_lzma) echo "source source_x360" ;;
        qbsp) echo "quake1 goldsrc quake2" ;;
        bspparser) echo "quake1" ;;
        q3bsp) echo "quake3" ;;
    esac
}

mapfile -t maps < <(cd "$corpus" && find . -type f \( -iname '*.bsp' -o -iname '*.d3dbsp' \) | sed 's|^\./||' | sort)
echo "== ${#maps[@]} maps; ${RUNS} runs each (bsp_tool: ${PY_RUNS})" >&2

# One process per (reader, map): a reader that aborts (e.g. on a huge allocation) is counted
# for that map only, and /usr/bin/time gives that map's peak resident memory.
for tool in bspkit vbsp qbsp bspparser q3bsp bsp_tool bspkit_lzma bspkit_write bsp_tool_save; do
    fams=" $(families_of $tool) "
    for m in "${maps[@]}"; do
        fam=${m%%/*}
        [[ $fams == *" $fam "* ]] || continue
        if [ "$tool" = bsp_tool ]; then
            cmd=("$here/.venv/bin/python" "$here/bsp_tool_load.py" "$PY_RUNS" "$corpus/$m")
        elif [ "$tool" = bsp_tool_save ]; then
            cmd=("$here/.venv/bin/python" "$here/bsp_tool_save.py" "$PY_RUNS" "$out/bsp_tool_save.bsp" "$corpus/$m")
        else
            cmd=("$bin/$tool" "$RUNS" "$corpus/$m")
        fi
        set +e
        /usr/bin/time -f '%M' -o "$out/rss.txt" "${cmd[@]}" > "$out/line.json" 2>> "$out/stderr.log"
        rc=$?
        set -e
        rss=$(tail -n 1 "$out/rss.txt")
        python3 - "$tool" "$m" "$fam" "$rc" "$rss" "$out/line.json" >> "$out/results.jsonl" <<'PY'
import json, sys
tool, m, fam, rc, rss, path = sys.argv[1:]
text = open(path).read().strip()
rec = json.loads(text) if text else {"tool": tool, "ok": False, "panic": False,
                                     "error": f"process died (exit status {rc})", "min_s": None}
rec.update({"map": m, "family": fam, "exit": int(rc), "maxrss_kb": int(rss) if rss.isdigit() else None,
            "abort": not text})
print(json.dumps(rec))
PY
    done
    echo "   $tool done" >&2
done

echo "== memory bandwidth" >&2
"$bin/membw" > "$out/membw.json"

echo "== bsp scan over the corpus" >&2
python3 - "$bsp" "$corpus" "$(nproc)" "$out" <<'PY'
import json, subprocess, sys, time
bsp, corpus, nproc, out = sys.argv[1:]
with open(f"{out}/scan_times.jsonl", "w") as log:
    for jobs in sorted({1, int(nproc)}):
        for _ in range(5):
            t = time.perf_counter()
            with open(f"{out}/scan.jsonl", "w") as o:
                rc = subprocess.run([bsp, "scan", "--json", "--jobs", str(jobs), corpus], stdout=o,
                                    stderr=subprocess.DEVNULL).returncode
            log.write(json.dumps({"jobs": jobs, "seconds": time.perf_counter() - t, "exit": rc}) + "\n")
PY

echo "== round-trip write: bsp rewrite" >&2
# The whole command per map: process start, open, writer, atomic write (temp file + rename),
# reopen and check of the written file. Best of 5; the output must equal the input byte for byte.
python3 - "$bsp" "$corpus" "$out" "${maps[@]}" <<'PY'
import json, os, subprocess, sys, time
bsp, corpus, out, maps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
dst = os.path.join(out, "rewrite.bsp")
with open(os.path.join(out, "rewrite.jsonl"), "w") as log:
    for m in maps:
        src = os.path.join(corpus, m)
        best, rc, err = None, 0, [None]
        for _ in range(5):
            t = time.perf_counter()
            r = subprocess.run([bsp, "rewrite", src, "-o", dst], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            dt, rc = time.perf_counter() - t, r.returncode
            if rc != 0:
                # Relative paths only: RESULTS.md is committed.
                err = [l.replace(out + "/", "bench/out/").replace(corpus + "/", "")
                       for l in r.stderr.decode(errors="replace").strip().splitlines()[-1:]] or [""]
                break
            best = dt if best is None else min(best, dt)
        identical = None
        if rc == 0:
            with open(src, "rb") as a, open(dst, "rb") as b:
                identical = a.read() == b.read()
        if os.path.exists(dst):
            os.remove(dst)
        log.write(json.dumps({"map": m, "size": os.path.getsize(src), "exit": rc, "min_s": best, "identical": identical,
                              "error": err[0]}) + "\n")
PY

{
    echo "nproc=$(nproc)"
    echo "load=$load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (1/5/15-minute load averages)"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "mem=$(grep -m1 MemTotal /proc/meminfo | awk '{print $2}')"
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "rustc=$(rustc --version)"
    echo "python=$("$here/.venv/bin/python" --version 2>&1)"
    echo "bspkit=$(git -C "$root" rev-parse --short HEAD)"
    echo "runs=$RUNS"
    echo "py_runs=$PY_RUNS"
} > "$out/machine.txt"

echo "== export stage" >&2
# Its measurements go to bench/out/export; report.py adds them as the Export section.
BSPKIT_RUN_SH=1 RUNS=$RUNS PY_RUNS=$PY_RUNS "$here/export.sh"

python3 "$here/report.py" "$out" > "$here/RESULTS.md"
echo "== wrote bench/RESULTS.md" >&2
