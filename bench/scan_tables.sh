#!/usr/bin/env bash
# `bsp scan --out` (Parquet) over the corpus against bsp_tool 0.7.0 + multiprocessing doing the
# same rows (bench/scan_tables_bsp_tool.py), and the Dask distributed scan's overhead
# (bench/scan_tables_dask.py). Short: a few runs each. Needs a release `bsp`, the bench venv of
# README.md (bsp_tool, pyarrow), the test venv (target/py-venv: bspkit, dask) and GNU time.
#
#   BSPKIT_CORPUS=../shared/maps bench/scan_tables.sh
#
# Both sides are timed in CPU seconds (user + sys of the process and every child it waited
# for: GNU time's %U + %S), not wall time: on a shared machine wall time measures the other
# processes. COPIES=N (default 5) also scans a library of N copies of the corpus (a tree of
# symbolic links in a temporary directory), so that each side's per-map cost can be told from
# its fixed start-up cost: per map = (cpu(N copies) - cpu(1 copy)) / ((N - 1) * maps).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${BSPKIT_CORPUS:?set BSPKIT_CORPUS}"
copies="${COPIES:-5}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cargo build --release -q -p bsp-cli
mkdir -p "$out/lib"
for i in $(seq 1 "$copies"); do cp -rs "$(realpath "$corpus")" "$out/lib/copy$i"; done
bytes=$(find "$corpus" -type f \( -name '*.bsp' -o -name '*.d3dbsp' \) -printf '%s\n' | awk '{s+=$1} END {print s}')
cpu() { /usr/bin/time -f 'cpu_seconds %U %S' "$@" 2> >(grep cpu_seconds | awk '{printf "cpu %.3f s (user %s, sys %s)\n", $2 + $3, $2, $3}' >&2); }
for lib in "$corpus" "$out/lib"; do
    echo "== $lib" >&2
    echo "== bsp scan --out (Parquet), fresh output each run" >&2
    for run in 1 2 3; do
        rm -rf "$out/bspkit"
        cpu target/release/bsp scan "$lib" --out "$out/bspkit" --json
    done
    echo "== again over the same output: the index, nothing read" >&2
    cpu target/release/bsp scan "$lib" --out "$out/bspkit" --json
    echo "== again with --verify: every file hashed again, nothing parsed" >&2
    cpu target/release/bsp scan "$lib" --out "$out/bspkit" --json --verify
    echo "== bsp_tool + multiprocessing ($bytes bytes per copy)" >&2
    for run in 1 2 3; do
        cpu bench/.venv/bin/python bench/scan_tables_bsp_tool.py "$lib" "$out/bsp_tool"
    done
done
echo "== Dask distributed against one process (bspkit.scan in target/py-venv)" >&2
target/py-venv/bin/python bench/scan_tables_dask.py "$corpus" "$out/dask" 2 3
