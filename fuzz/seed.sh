#!/bin/sh
# Seed the fuzz corpora from the real-map corpus: copies maps (and .ent / .lmp files) into
# fuzz/corpus/<target>/, which git ignores. Never commit those files.
#
#   BSPKIT_CORPUS=path/to/maps fuzz/seed.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${BSPKIT_CORPUS:?set BSPKIT_CORPUS to the real-map corpus}
for t in open_decode entities visibility lzma lmp gamelump pakfile vtf wad vpk tga lightmap scene texture render; do mkdir -p "$here/corpus/$t"; done

# Whole maps for the open+decode target; small ones first matter most to libFuzzer
# (-max_len caps what it reads), so keep every map.
find "$src" -type f \( -name '*.bsp' -o -name '*.d3dbsp' \) | while read -r f; do
    cp "$f" "$here/corpus/open_decode/$(basename "$f")"
done

# Builder-made maps of branches without a real map (Genesis3D chunk files, SiN, Soldier of
# Fortune, Daikatana), written by the library itself.
(cd "$here/.." && cargo run -q -p bspkit --example fuzz_seeds -- "$here/corpus/open_decode")
# Lit maps for the lightmap target: the small ones (under 500 kB), which libFuzzer mutates best.
find "$src" -type f -name '*.bsp' -size -500k | while read -r f; do
    cp "$f" "$here/corpus/lightmap/$(basename "$f")"
done
# The scene, texture and render targets (issue 23's budgets): the small maps of every family.
find "$src" -type f \( -name '*.bsp' -o -name '*.d3dbsp' \) -size -300k | while read -r f; do
    for t in scene texture render; do cp "$f" "$here/corpus/$t/$(basename "$f")"; done
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
# Small Respawn and CoD4 seeds: the corpus maps with their big lumps (lightmaps, pakfile)
# dropped and the rest repacked, so that -max_len=65536 runs still reach those parsers.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$src" "$here/corpus/open_decode" <<'PY'
import os, struct, sys
src, out = sys.argv[1], sys.argv[2]
BIG = 16384
def rbsp(data):
    lumps = [struct.unpack_from("<4i", data, 16 + 16 * i) for i in range(128)]
    body, table = bytearray(), []
    for ofs, ln, ver, cc in lumps:
        if ln <= 0 or ln > BIG or ofs + ln > len(data):
            table.append((0, 0, ver, cc))
            continue
        body += b"\0" * (-len(body) % 4)
        table.append((2064 + len(body), ln, ver, cc))
        body += data[ofs:ofs + ln]
    head = bytearray(data[:16])
    for t in table:
        head += struct.pack("<4i", *t)
    return bytes(head + body)
def d3dbsp(data):
    n = struct.unpack_from("<I", data, 8)[0]
    cur, keep = 12 + 8 * n, []
    for i in range(n):
        lid, ln = struct.unpack_from("<II", data, 12 + 8 * i)
        cur = (cur + 3) & ~3
        if ln <= BIG:
            keep.append((lid, data[cur:cur + ln]))
        cur += ln
    out_ = bytearray(data[:8] + struct.pack("<I", len(keep)))
    for lid, b in keep:
        out_ += struct.pack("<II", lid, len(b))
    for lid, b in keep:
        out_ += b"\0" * (-len(out_) % 4)
        out_ += b
    return bytes(out_ + b"\0" * (-len(out_) % 4))
for root, _, files in os.walk(src):
    for name in files:
        p = os.path.join(root, name)
        head = open(p, "rb").read(8)
        if head[:4] == b"rBSP":
            open(os.path.join(out, "small_" + name), "wb").write(rbsp(open(p, "rb").read()))
        elif head == b"IBSP\x16\0\0\0":
            open(os.path.join(out, "small_" + name), "wb").write(d3dbsp(open(p, "rb").read()))
PY
fi
# Source game lumps (lump 35) and pakfiles (lump 40), cut out of the VBSP/PSBV maps.
# gamelump seeds are: one selector byte (bit 0 = big-endian), the lump's file offset as a
# little-endian u32, then the lump (the layout fuzz_targets/gamelump.rs reads).
# Small Zip archives made here cover the stored/deflate paths and a name that must be refused.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$src" "$here/corpus/gamelump" "$here/corpus/pakfile" <<'PY'
import io, os, struct, sys, zipfile
src, gout, pout = sys.argv[1:4]
def lump(data, idx, e):
    # lump_t is {fileofs, filelen, version, fourCC}; Left 4 Dead 2 stores {version, fileofs,
    # filelen, fourCC}: take whichever order lands inside the file past the header.
    a, b, c, _ = struct.unpack_from(e + "4i", data, 8 + 16 * idx)
    for ofs, ln in ((a, b), (b, c)):
        if ln > 0 and ofs >= 8 + 64 * 16 and ofs + ln <= len(data):
            return ofs, data[ofs:ofs + ln]
    return None
for root, _, files in os.walk(src):
    for name in files:
        p = os.path.join(root, name)
        with open(p, "rb") as f:
            head = f.read(4)
        if head not in (b"VBSP", b"PSBV"):
            continue
        data = open(p, "rb").read()
        e = "<" if head == b"VBSP" else ">"
        g = lump(data, 35, e)
        if g and len(g[1]) <= (1 << 20):
            sel = b"\x01" if e == ">" else b"\x00"
            open(os.path.join(gout, name), "wb").write(sel + struct.pack("<I", g[0]) + g[1])
        z = lump(data, 40, e)
        if z and len(z[1]) <= (256 << 10):
            open(os.path.join(pout, name), "wb").write(z[1])
for method, tag in ((zipfile.ZIP_STORED, "stored"), (zipfile.ZIP_DEFLATED, "deflate")):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        z.writestr("materials/a.vmt", "LightmappedGeneric { }\n")
        z.writestr("maps/x/", "")
        z.writestr("../escape.txt", "no")
    open(os.path.join(pout, "tiny_" + tag), "wb").write(buf.getvalue())
PY
fi
for t in open_decode entities visibility lzma lmp gamelump pakfile vtf wad vpk tga lightmap scene texture render; do
    printf '%s: %s files\n' "$t" "$(ls "$here/corpus/$t" | wc -l)"
done

# Texture targets: files written by bspkit's own builders, and the VTFs of the corpus pakfiles.
(cd "$here/.." && cargo run -q -p bspkit --example texture_seeds -- "$here/corpus")
tmp=$(mktemp -d)
find "$src" -type f -name '*.bsp' | while read -r f; do
    (cd "$here/.." && cargo run -q -p bsp-cli -- pak extract "$f" --out "$tmp/$(basename "$f")" >/dev/null 2>&1) || true
done
find "$tmp" -type f -iname '*.vtf' | while read -r f; do cp "$f" "$here/corpus/vtf/$(basename "$(dirname "$f")")_$(basename "$f")"; done
rm -rf "$tmp"
