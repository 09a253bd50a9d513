#!/usr/bin/env bash
# Do two `bsp` builds decompile alike? (issue 26: speed changes must not change the output.)
# Every corpus map of the brush-lump families and Quake 1 (the `.map` reader and writer are
# shared) is decompiled by both builds with `--report`; the `.map`/`.vmf`, stdout, stderr and
# the exit status are compared byte for byte, and so is the report JSON unless it differs only
# in floating-point measurements: the rule (lead's decision, session 40) is that every string,
# integer, boolean, key and list length of the report stays the same, and a float (volume,
# area, percentage) may move by at most 1e-9 of its magnitude (1e-9 absolute near zero), which
# `bench/report_close.py` checks field by field; every threshold verdict, being a boolean of the
# report or text of stdout/stderr, is then the same too. Quake 1, GoldSrc and Genesis3D maps
# (the tree-rebuilt families) also run with `--standard`, `--no-brushlist` and
# `--no-clip-brushes`. Both builds write to the same output path (the summary line names it), moved aside after each run.
#
#   BSPKIT_CORPUS=/path/to/maps bench/decompile_same.sh /tmp/before/bsp target/release/bsp
#
# FAMILIES (space-separated corpus folders) overrides the default list. Exit 1 on any difference.
set -euo pipefail
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the corpus directory}"
[ $# -eq 2 ] || { echo "usage: $0 BEFORE_BSP AFTER_BSP" >&2; exit 2; }
FAMILIES=${FAMILIES:-"quake1 goldsrc genesis3d quake2 quake3 source source_x360 cod respawn"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
runs=0 files=0 diffs=0 close=0
for fam in $FAMILIES; do
    for m in "$BSPKIT_CORPUS/$fam"/*.bsp "$BSPKIT_CORPUS/$fam"/*.d3dbsp; do
        [ -e "$m" ] || continue
        variants=("")
        case $fam in quake1 | goldsrc | genesis3d) variants=("" --standard --no-brushlist --no-clip-brushes) ;; esac
        ext=map
        case $fam in source | source_x360) ext=vmf ;; esac
        for v in "${variants[@]}"; do
            name="$(basename "$m")${v}"
            for side in a b; do
                bin=$1
                [ $side = b ] && bin=$2
                rm -f "$work/out.$ext" "$work/report.json"
                set +e
                # shellcheck disable=SC2086
                "$bin" decompile "$m" -o "$work/out.$ext" --report "$work/report.json" $v >"$work/stdout" 2>"$work/stderr"
                echo $? >"$work/exit"
                set -e
                mkdir -p "$work/$side/$name"
                for f in "out.$ext" report.json stdout stderr exit; do
                    if [ -e "$work/$f" ]; then mv "$work/$f" "$work/$side/$name/$f"; else : >"$work/$side/$name/$f.absent"; fi
                done
            done
            runs=$((runs + 1))
            for f in "$work/a/$name"/*; do
                files=$((files + 1))
                g="$work/b/$name/$(basename "$f")"
                if cmp -s "$f" "$g"; then continue; fi
                : >"$work/close"
                if [ "$(basename "$f")" = report.json ] && [ -e "$g" ] && python3 "$here/report_close.py" -v "$f" "$g" >"$work/close"; then
                    echo "within 1e-9: $fam/$name report.json ($(tail -n 1 "$work/close"))"
                    close=$((close + 1))
                    continue
                fi
                echo "DIFFERS: $fam/$name $(basename "$f")"
                sed 's/^/    /' "$work/close"
                diffs=$((diffs + 1))
            done
            [ "$(ls "$work/a/$name")" = "$(ls "$work/b/$name")" ] || { echo "DIFFERS: $fam/$name file set"; diffs=$((diffs + 1)); }
            rm -rf "$work/a/$name" "$work/b/$name"
        done
    done
done
echo "$runs runs, $files files compared, $diffs differences ($close reports equal only within 1e-9)"
[ $diffs -eq 0 ]
