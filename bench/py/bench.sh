#!/usr/bin/env bash
# bspkit (Python) against bsp_tool: load + touch every lump, entity search. One run, on demand,
# not in CI. Writes target/bench-py/{bspkit,bsp_tool}.jsonl, prints the ratios and replaces the
# "Python package" section of bench/RESULTS.md.
#
#   BSPKIT_CORPUS=/path/to/maps bench/py/bench.sh              # one library after the other
#   ALTERNATE=1 BSPKIT_CORPUS=/path/to/maps bench/py/bench.sh  # side by side, map by map
#
# bspkit is the release build of crates/bspkit-py (pip install into target/bench-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the map corpus}"
BENCH=target/bench-venv
[ -x "$BENCH/bin/python" ] || python3 -m venv "$BENCH"
"$BENCH/bin/pip" install --quiet --disable-pip-version-check "bsp_tool==0.7.0" "numpy==2.2.6" ./crates/bspkit-py
mapfile -t MAPS < <(find "$BSPKIT_CORPUS" -name '*.bsp' -o -name '*.d3dbsp' | sort)
OUT=target/bench-py
mkdir -p "$OUT"
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
if [ "${ALTERNATE:-0}" = 1 ]; then
    # Both libraries side by side, given the maps in turn (bench/py/alternate.py).
    "$BENCH/bin/python" bench/py/alternate.py --runs "${RUNS:-3}" --out-bspkit "$OUT/bspkit.jsonl" --out-bsp-tool "$OUT/bsp_tool.jsonl" "${MAPS[@]}"
else
    "$BENCH/bin/python" bench/py/load_touch.py --lib bspkit --runs "${RUNS:-3}" "${MAPS[@]}" > "$OUT/bspkit.jsonl"
    "$BENCH/bin/python" bench/py/load_touch.py --lib bsp_tool --runs 1 "${MAPS[@]}" > "$OUT/bsp_tool.jsonl" 2>/dev/null
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
python3 - "$OUT/meta.json" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$load_start" "$load_end" "${ALTERNATE:-0}" <<'PY'
import json, sys
json.dump(dict(zip(["date", "commit", "load_start", "load_end", "alternate"], sys.argv[2:])), open(sys.argv[1], "w"))
PY
# The ratios on stdout, and the "Python package" section of bench/RESULTS.md replaced.
python3 bench/py/report.py "$OUT/bspkit.jsonl" "$OUT/bsp_tool.jsonl" --splice bench/RESULTS.md
