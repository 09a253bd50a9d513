#!/usr/bin/env bash
# Comparison benchmark: bspkit against bsp_tool 0.7.0 (Python) and the Rust crates vbsp, qbsp,
# bspparser and bsp, over the maps in $BSPKIT_CORPUS. Writes bench/RESULTS.md. See README.md.
#
#   BSPKIT_CORPUS=/path/to/maps bench/run.sh
#
# Environment: RUNS (timed runs per map for the Rust programs, default 20), PY_RUNS (bsp_tool,
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
        bspkit|bsp_tool) echo "quake1 goldsrc quake2 quake3 source source_x360 respawn cod" ;;
        vbsp) echo "source source_x360" ;;
        qbsp) echo "quake1 goldsrc quake2" ;;
        bspparser) echo "quake1" ;;
        q3bsp) echo "quake3" ;;
    esac
}

mapfile -t maps < <(cd "$corpus" && find . -type f \( -iname '*.bsp' -o -iname '*.d3dbsp' \) | sed 's|^\./||' | sort)
echo "== ${#maps[@]} maps; ${RUNS} runs each (bsp_tool: ${PY_RUNS})" >&2

# One process per (reader, map): a reader that aborts (e.g. on a huge allocation) is counted
# for that map only, and /usr/bin/time gives that map's peak resident memory.
for tool in bspkit vbsp qbsp bspparser q3bsp bsp_tool; do
    fams=" $(families_of $tool) "
    for m in "${maps[@]}"; do
        fam=${m%%/*}
        [[ $fams == *" $fam "* ]] || continue
        if [ "$tool" = bsp_tool ]; then
            cmd=("$here/.venv/bin/python" "$here/bsp_tool_load.py" "$PY_RUNS" "$corpus/$m")
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

echo "== round-trip write" >&2
if "$bsp" --help | grep -qiE '^\s+(rewrite|write|roundtrip)\b'; then
    echo '{"measured": false, "why": "writer command present but run.sh does not drive it yet"}' > "$out/write.json"
else
    echo '{"measured": false, "why": "no writer API or rewrite command on this revision"}' > "$out/write.json"
fi

{
    echo "nproc=$(nproc)"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "mem=$(grep -m1 MemTotal /proc/meminfo | awk '{print $2}')"
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "rustc=$(rustc --version)"
    echo "python=$("$here/.venv/bin/python" --version 2>&1)"
    echo "bspkit=$(git -C "$root" rev-parse --short HEAD)"
    echo "runs=$RUNS"
    echo "py_runs=$PY_RUNS"
} > "$out/machine.txt"

python3 "$here/report.py" "$out" > "$here/RESULTS.md"
echo "== wrote bench/RESULTS.md" >&2
