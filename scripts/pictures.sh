#!/usr/bin/env bash
# Make the README's pictures (docs/pictures/*.png) with `bsp render`: the committed sample map,
# and corpus maps whose licence allows showing them (credited in README.md, "Pictures").
#
#   BSPKIT_CORPUS=path/to/maps scripts/pictures.sh     # all pictures
#   scripts/pictures.sh                                # the sample map's only
#
# Rendering is deterministic: running it again gives the same bytes. Pictures stay small
# (--size 480, under 300 KB each; the script checks).
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/pictures
mkdir -p "$out"
cargo build -q --release -p bsp-cli
bsp=target/release/bsp

render() { # MAP OUT VIEW
    "$bsp" render "$1" -o "$out/$2" --view "$3" --size 480
}

render samples/sample_quake1.bsp sample_quake1_iso.png iso

if [ -n "${BSPKIT_CORPUS:-}" ]; then
    c=$BSPKIT_CORPUS
    # file in the corpus | picture | view.  Licences (manifest.jsonl): LibreQuake BSD-3-Clause;
    # goldsrc-renderer example data Apache-2.0.
    while read -r map pic view; do
        if [ -f "$c/$map" ]; then
            render "$c/$map" "$pic" "$view"
        else
            echo "pictures.sh: $map not in $c, $pic not made" >&2
        fi
    done <<'EOF'
quake1/qbsp__lq_e0m1.bsp lq_e0m1_iso.png iso
quake1/qbsp__lq_e0m2.bsp lq_e0m2_top.png top
quake1/qbsp__lq_e0m4.bsp lq_e0m4_spawn.png spawn
quake2/qbsp__lq_e0m4-quake2.bsp lq_e0m4_quake2_iso.png iso
goldsrc/goldsrc-renderer__in-bsp-texture-test.bsp goldsrc_in_bsp_texture_test_iso.png iso
EOF
else
    echo "pictures.sh: BSPKIT_CORPUS is not set: only the sample map's picture was made" >&2
fi

for f in "$out"/*.png; do
    size=$(wc -c < "$f")
    if [ "$size" -ge 307200 ]; then
        echo "pictures.sh: $f is $size bytes (limit 300 KB)" >&2
        exit 1
    fi
done
ls -l "$out"
