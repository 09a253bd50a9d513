#!/usr/bin/env bash
# `bsp decompile` CPU time per map for one or more `bsp` builds, in one interleaved run
# (issue 26): for each map and mode (quality measured, `--no-measure`), each build in turn runs
# `perf stat -r RUNS -e task-clock` (the process's CPU time, user + sys: the figure to compare
# on a shared machine, where wall time follows the load). Prints a Markdown table.
#
#   BSPKIT_CORPUS=/path/to/maps bench/decompile.sh before=/tmp/base/bsp after=target/release/bsp
#
# MAPS (space-separated paths below the corpus) and RUNS (default 5) override the defaults.
set -euo pipefail
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the corpus directory}"
RUNS=${RUNS:-5}
MAPS=${MAPS:-"quake1/qbsp__lq_e0m1.bsp quake1/qbsp__lq_e0m2.bsp quake1/qbsp__lq_e0m3.bsp quake1/qbsp__lq_e0m4.bsp quake2/qbsp__lq_e0m2-quake2.bsp"}
[ $# -ge 1 ] || { echo "usage: $0 LABEL=BSP [LABEL=BSP ...]" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is needed (linux-perf / linux-tools)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
labels=()
for a in "$@"; do labels+=("${a%%=*}"); done
printf '| map | size | mode |'
for l in "${labels[@]}"; do printf ' %s CPU ms |' "$l"; done
[ $# -ge 2 ] && printf ' %s / %s |' "${labels[0]}" "${labels[$(($# - 1))]}"
printf '\n|---|---|---|'
for _ in "$@"; do printf -- '---|'; done
[ $# -ge 2 ] && printf -- '---|'
printf '\n'
for m in $MAPS; do
    f="$BSPKIT_CORPUS/$m"
    size=$(du -k "$f" | cut -f1)
    for mode in measured --no-measure; do
        extra=()
        [ "$mode" = --no-measure ] && extra=(--no-measure)
        ms=()
        for a in "$@"; do
            bin=${a#*=}
            t=$(perf stat -r "$RUNS" -x, -e task-clock "$bin" decompile "$f" -o "$out/m.map" "${extra[@]}" 2>&1 >/dev/null |
                awk -F, '/task-clock/ {printf "%.0f", $1}')
            ms+=("$t")
        done
        printf '| %s | %s KiB | %s |' "$(basename "$m" .bsp)" "$size" "$mode"
        for t in "${ms[@]}"; do printf ' %s |' "$t"; done
        [ $# -ge 2 ] && awk -v a="${ms[0]}" -v b="${ms[$(($# - 1))]}" 'BEGIN { printf " %.2f× |", a / b }'
        printf '\n'
    done
done
