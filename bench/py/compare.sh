#!/usr/bin/env bash
# Run the three migration scripts with bspkit and with bsp_tool over the same maps and compare
# their output per map. Not run in CI: bsp_tool comes from PyPI into a bench venv.
#
#   BSPKIT_CORPUS=/path/to/maps bench/py/compare.sh
#
# Needs target/py-venv with bspkit (scripts/test.sh makes it). Prints, per script, the maps
# whose output is the same, differs, or that bsp_tool cannot read.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the map corpus}"
BENCH=target/bench-venv
[ -x "$BENCH/bin/python" ] || python3 -m venv "$BENCH"
"$BENCH/bin/python" -c "import bsp_tool" 2>/dev/null || "$BENCH/bin/pip" install --quiet --disable-pip-version-check "bsp_tool==0.7.0"
mapfile -t MAPS < <(find "$BSPKIT_CORPUS" -name '*.bsp' -o -name '*.d3dbsp' | sort)
OUT=target/bench-py
mkdir -p "$OUT"
for s in entities_by_classname face_areas static_props; do
    target/py-venv/bin/python "bench/py/$s.py" --lib bspkit "${MAPS[@]}" > "$OUT/$s.bspkit"
    "$BENCH/bin/python" "bench/py/$s.py" --lib bsp_tool "${MAPS[@]}" > "$OUT/$s.bsp_tool" 2>/dev/null
    python3 - "$OUT/$s.bspkit" "$OUT/$s.bsp_tool" "$s" <<'PY'
import sys
def maps(p):
    out, cur = {}, None
    for line in open(p):
        if not line.startswith("  "):
            cur = line.split(":")[0]
            out[cur] = [line]
        else:
            out[cur].append(line)
    return out
a, b = maps(sys.argv[1]), maps(sys.argv[2])
same = [m for m in a if m in b and a[m] == b[m]]
unread = [m for m in b if "cannot read" in b[m][0]]
unread_k = [m for m in a if "cannot read" in a[m][0]]
differ = [m for m in a if m in b and a[m] != b[m] and m not in unread and m not in unread_k]
print(f"{sys.argv[3]}: {len(same)} same, {len(differ)} differ, bsp_tool cannot read {len(unread)}, bspkit cannot read {len(unread_k)}")
for m in differ:
    print(f"  differs: {m}")
for m in unread_k:
    print(f"  bspkit cannot read: {m} {a[m][0].strip()}")
PY
done
