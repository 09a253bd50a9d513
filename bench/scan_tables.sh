#!/usr/bin/env bash
# `bsp scan --out` (Parquet) over the corpus against bsp_tool 0.7.0 + multiprocessing doing the
# same rows (bench/scan_tables_bsp_tool.py), and the Dask distributed scan's overhead
# (bench/scan_tables_dask.py). Short: a few runs each. Needs a release `bsp`, the bench venv of
# README.md (bsp_tool, pyarrow) and the test venv (target/py-venv: bspkit, dask).
#
#   BSPKIT_CORPUS=../shared/maps bench/scan_tables.sh
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${BSPKIT_CORPUS:?set BSPKIT_CORPUS}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cargo build --release -q -p bsp-cli
bytes=$(find "$corpus" -type f \( -name '*.bsp' -o -name '*.d3dbsp' \) -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "== bsp scan --out (Parquet), fresh output each run" >&2
for run in 1 2 3; do
    rm -rf "$out/bspkit"
    target/release/bsp scan "$corpus" --out "$out/bspkit" --json
done
echo "== again over the same output: the index, nothing read" >&2
target/release/bsp scan "$corpus" --out "$out/bspkit" --json
echo "== bsp_tool + multiprocessing ($bytes bytes)" >&2
for run in 1 2; do
    bench/.venv/bin/python bench/scan_tables_bsp_tool.py "$corpus" "$out/bsp_tool"
done
echo "== Dask distributed against one process (bspkit.scan in target/py-venv)" >&2
target/py-venv/bin/python bench/scan_tables_dask.py "$corpus" "$out/dask" 2 3
