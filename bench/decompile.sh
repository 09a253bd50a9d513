#!/usr/bin/env bash
# `bsp decompile` CPU time per map for one or more `bsp` builds (issue 26): RUNS rounds (default
# 7), each running every map once with every build, the builds' order alternating from round to
# round; the median per map and build is printed. Each run is measured by `perf stat -e
# task-clock` (the process's CPU time, user + sys: the figure to compare on a shared machine,
# where wall time follows the load). Prints a Markdown table, with the load average seen.
#
#   BSPKIT_CORPUS=/path/to/maps bench/decompile.sh before=/tmp/base/bsp after=target/release/bsp
#
# MAPS (space-separated paths below the corpus), RUNS and MODE (`measured`, the default, or
# `--no-measure`) override the defaults.
set -euo pipefail
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the corpus directory}"
RUNS=${RUNS:-7}
MODE=${MODE:-measured}
MAPS=${MAPS:-"quake1/qbsp__lq_e0m1.bsp quake1/qbsp__lq_e0m2.bsp quake1/qbsp__lq_e0m3.bsp quake1/qbsp__lq_e0m4.bsp
quake2/qbsp__lq_e0m2-quake2.bsp quake2/qbsp__lq_e0m3-quake2.bsp quake3/bsp_tool__q3_mp_lobby.bsp
source/bsp_tool__tf2_test_displacement_decompile.bsp goldsrc/qbsp__example-halflife.bsp"}
[ $# -ge 1 ] || { echo "usage: $0 LABEL=BSP [LABEL=BSP ...]" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is needed (linux-perf / linux-tools)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
extra=()
[ "$MODE" = --no-measure ] && extra=(--no-measure)
builds=("$@")
load_lo=999 load_hi=0
for ((r = 0; r < RUNS; r++)); do
    l=$(cut -d' ' -f1 /proc/loadavg)
    load_lo=$(awk -v a="$load_lo" -v b="$l" 'BEGIN { print (b < a) ? b : a }')
    load_hi=$(awk -v a="$load_hi" -v b="$l" 'BEGIN { print (b > a) ? b : a }')
    order=("${builds[@]}")
    if ((r % 2 == 1)); then
        order=()
        for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[$i]}"); done
    fi
    for m in $MAPS; do
        for a in "${order[@]}"; do
            t=$(perf stat -x, -e task-clock "${a#*=}" decompile "$BSPKIT_CORPUS/$m" -o "$out/m.map" "${extra[@]}" 2>&1 >/dev/null |
                awk -F, '/task-clock/ {print $1}')
            echo "$t" >>"$out/$(basename "$m").${a%%=*}"
        done
    done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "$RUNS rounds, mode $MODE, load average (1 min) $load_lo–$load_hi"
printf '| map | size | '
for a in "${builds[@]}"; do printf '%s CPU ms | ' "${a%%=*}"; done
[ $# -ge 2 ] && printf '%s / %s | ' "${builds[0]%%=*}" "${builds[$(($# - 1))]%%=*}"
for a in "${builds[@]}"; do printf '%s ms per MB | ' "${a%%=*}"; done
printf '\n|---|---|'
for _ in "${builds[@]}" "${builds[@]}"; do printf -- '---|'; done
[ $# -ge 2 ] && printf -- '---|'
printf '\n'
for m in $MAPS; do
    bytes=$(stat -L -c %s "$BSPKIT_CORPUS/$m")
    meds=()
    for a in "${builds[@]}"; do meds+=("$(median "$out/$(basename "$m").${a%%=*}")"); done
    printf '| %s | %s |' "$(basename "${m%.*}")" "$(awk -v b="$bytes" 'BEGIN { printf "%.2f MB", b / 1e6 }')"
    for t in "${meds[@]}"; do printf ' %s |' "$(awk -v t="$t" 'BEGIN { printf "%.1f", t }')"; done
    [ $# -ge 2 ] && awk -v a="${meds[0]}" -v b="${meds[$(($# - 1))]}" 'BEGIN { printf " %.2f× |", a / b }'
    for t in "${meds[@]}"; do printf ' %s |' "$(awk -v t="$t" -v b="$bytes" 'BEGIN { printf "%.0f", t / (b / 1e6) }')"; done
    printf '\n'
done
