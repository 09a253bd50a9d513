#!/bin/sh
# Seed the fuzz corpora from the real-map corpus: copies maps (and .ent / .lmp files) into
# fuzz/corpus/<target>/, which git ignores. Never commit those files.
#
#   BSPKIT_CORPUS=path/to/maps fuzz/seed.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the real-map corpus}
for t in open_decode entities visibility lzma lmp; do mkdir -p "$here/corpus/$t"; done

# Whole maps for the open+decode target; small ones first matter most to libFuzzer
# (-max_len caps what it reads), so keep every map.
find "$src" -type f \( -name '*.bsp' -o -name '*.d3dbsp' \) | while read -r f; do
    cp "$f" "$here/corpus/open_decode/$(basename "$f")"
done

# Entity text: Respawn .ent partitions, and the .map sources (same quoted key/value syntax).
find "$src" -type f \( -name '*.ent' -o -name '*.map' \) | while read -r f; do
    cp "$f" "$here/corpus/entities/$(basename "$f")"
done

# Valve .lmp files, if the corpus has any.
find "$src" -type f -name '*.lmp' | while read -r f; do
    cp "$f" "$here/corpus/lmp/$(basename "$f")"
done

# Hand-made seeds for the small decoders (bytes written here, not taken from any map).
printf '\000\010\377\000\003\001\000\377' > "$here/corpus/visibility/rle"
printf '\001\001\000\000\000\014\000\000\000\014\000\000\000\001' > "$here/corpus/visibility/cluster1"
printf '\002\001\000\000\000\001\000\000\000\001' > "$here/corpus/visibility/q3"
printf 'LZMA\004\000\000\000\005\000\000\000\135\000\000\001\000\000\000\000\000\000' > "$here/corpus/lzma/tiny"
printf '\024\000\000\000\005\000\000\000\000\000\000\000\004\000\000\000\001\000\000\000abcd' > "$here/corpus/lmp/tiny"

# LZMA lumps of Source maps (a valid stream is the best seed): each "LZMA" header found.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$src" "$here/corpus/lzma" <<'PY'
import os, struct, sys
src, out = sys.argv[1], sys.argv[2]
n = 0
for root, _, files in os.walk(src):
    for name in files:
        if not name.endswith(".bsp"):
            continue
        data = open(os.path.join(root, name), "rb").read()
        at = data.find(b"LZMA")
        while at >= 0 and n < 64:
            if at + 17 <= len(data):
                size = struct.unpack_from("<I", data, at + 8)[0]
                chunk = data[at:at + 17 + size]
                if len(chunk) == 17 + size and size < (1 << 20):
                    open(os.path.join(out, f"{name}.{at}"), "wb").write(chunk)
                    n += 1
            at = data.find(b"LZMA", at + 4)
PY
fi
for t in open_decode entities visibility lzma lmp; do
    printf '%s: %s files\n' "$t" "$(ls "$here/corpus/$t" | wc -l)"
done
