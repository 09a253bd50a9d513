#!/usr/bin/env bash
# `bsp render` of every corpus map in every view, into one directory: run it with two builds and
# compare the directories byte for byte (issue 25: a change meant to keep the pictures, such as
# computing the sealing box once, must give the same PNG bytes).
#
#   BSPKIT_CORPUS=/path/to/maps bench/render_corpus.sh /tmp/before /tmp/base/bsp
#   BSPKIT_CORPUS=/path/to/maps bench/render_corpus.sh /tmp/after target/debug/bsp
#   diff -r /tmp/before /tmp/after && echo same
#
# Each map gives `<family>__<name>.<view>.png` (absent when the render failed) and
# `<family>__<name>.<view>.txt` (exit status and the command's standard error), so a map that
# fails in one build and not the other also shows in the comparison. VIEWS overrides the views
# (default: every view `bsp render --view` takes).
set -uo pipefail
: "${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the corpus directory}"
[ $# -eq 2 ] || { echo "usage: $0 OUT_DIR BSP" >&2; exit 2; }
out=$1 bin=$2
VIEWS=${VIEWS:-"top iso spawn"}
mkdir -p "$out"
find "$BSPKIT_CORPUS" -type f \( -name '*.bsp' -o -name '*.d3dbsp' \) | sort | while read -r f; do
    rel=${f#"$BSPKIT_CORPUS"/}
    name=$(printf '%s' "${rel%.*}" | tr '/' '_')
    for v in $VIEWS; do
        "$bin" render "$f" -o "$out/$name.$v.png" --view "$v" 2>"$out/$name.$v.txt" >/dev/null
        echo "exit $?" >>"$out/$name.$v.txt"
    done
done
