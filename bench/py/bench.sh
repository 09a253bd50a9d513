#!/usr/bin/env bash
# bspkit (Python) against bsp_tool: load + touch every lump, entity search. One run, on demand,
# not in CI. Writes target/bench-py/{bspkit,bsp_tool}.jsonl and prints the ratios.
#
#   BSPKIT_CORPUS=/path/to/maps bench/py/bench.sh
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
"$BENCH/bin/python" bench/py/load_touch.py --lib bspkit --runs "${RUNS:-3}" "${MAPS[@]}" > "$OUT/bspkit.jsonl"
"$BENCH/bin/python" bench/py/load_touch.py --lib bsp_tool --runs 1 "${MAPS[@]}" > "$OUT/bsp_tool.jsonl" 2>/dev/null
python3 bench/py/report.py "$OUT/bspkit.jsonl" "$OUT/bsp_tool.jsonl"
