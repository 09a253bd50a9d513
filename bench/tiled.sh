#!/usr/bin/env bash
# `bsp export` against bsp-to-glb on Source maps of real size (issue 8). The corpus's Source maps
# are 34 KB–0.9 MB, small enough that starting a process costs more than exporting them; here
# each is grown by `tile_source` (bench/src/bin/tile_source.rs: the world's faces copied until
# 16-bit edge indices are used up) into a 3–9 MB map of 22,000–64,000 faces, and both programs
# export it as whole processes. The maps are written to bench/out/tiled/, never committed.
# Writes the "Export on maps of real size" section of bench/RESULTS.md (before the Export
# section, which export.sh rewrites).
#
#   BSPKIT_CORPUS=/path/to/maps BSP_TO_GLB_DIR=/path/to/bsp-to-glb bench/tiled.sh
#
# Environment: CLI_RUNS (best of, default 5), BENCH_TARGET (cargo target dir, default
# bench/target), BSPKIT_GLTF_VALIDATOR (tools/gltf-validate/validate.mjs after `npm ci` there:
# every GLB is validated and the counts reported).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the map corpus directory}"
: "${BSP_TO_GLB_DIR:?set BSP_TO_GLB_DIR to a checkout of github.com/Hona/bsp-to-glb}"
[ -x /usr/bin/time ] || { echo "tiled.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }
tgt=${BENCH_TARGET:-$here/target}
out=$here/out/tiled
rm -rf "$out" && mkdir -p "$out"

echo "== tiled: building bsp, tile_source and bsp-to-glb (release)" >&2
(cd "$root" && CARGO_TARGET_DIR="$tgt/main" cargo build --release -q -p bsp-cli)
(cd "$here" && CARGO_TARGET_DIR="$tgt/cmp" cargo build --release -q --bin tile_source)
(cd "$BSP_TO_GLB_DIR" && env -u CARGO_TARGET_DIR cargo build --release -q)

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# The Source maps bsp-to-glb exports (export.sh lists its refusals) that have world faces.
for m in bsp_tool__tf2_mp_lobby bsp_tool__tf2_test2 bsp_tool__tf2_test_displacement_decompile \
    bsp_tool__tf2_test_physcollide bspsrc__csgo_tooltextures bspsrc__gmod_tooltextures; do
    src="$BSPKIT_CORPUS/source/$m.bsp"
    [ -f "$src" ] || { echo "== tiled: $src missing, skipped" >&2; continue; }
    "$tgt/cmp/release/tile_source" "$src" 0 "$out/$m.bsp" > "$out/$m.tile.txt"
done
{
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "bspkit=$(git -C "$root" rev-parse --short HEAD)"
    echo "b2g=$(git -C "$BSP_TO_GLB_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "load_start=$load_start"
} > "$out/meta.txt"
python3 "$here/tiled_report.py" "$out" "$tgt/main/release/bsp" "$BSP_TO_GLB_DIR/target/release/bsp-to-glb" \
    "${CLI_RUNS:-5}" --splice "$here/RESULTS.md"
