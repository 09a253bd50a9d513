"""Record counts bsp_tool 0.7.0 reads from the Respawn and Call of Duty 4 corpus maps.

Usage (from the repository root, in the bench venv of bench/README.md):

    bench/.venv/bin/python bench/bsp_tool_counts.py "$BSPKIT_CORPUS" > crates/bspkit/tests/fixtures/bsp_tool_counts.tsv

Prints one tab-separated line per lump bsp_tool parses into a countable form:
`map  lump  kind  count`, where map is the path under the corpus, lump is bsp_tool's lump
name and kind says what is counted: `records` (an array lump: its entries), `entities`
(entity blocks), `strings` (names in a string-data lump), `partitions` (ENTITY_PARTITIONS
tokens) or `sprp_props` (static props of the game lump). Lumps bsp_tool keeps as raw bytes, or
fails to parse, are left out. The fixture is compared with bspkit's own counts by
crates/bspkit/tests/bsp_tool_counts.rs (which never runs bsp_tool itself).
"""
import importlib.metadata
import os
import sys

import bsp_tool


def counts(bsp):
    for name in bsp.headers:
        lump = getattr(bsp, name, None)
        if lump is None:
            continue
        kind = type(lump).__name__
        if kind in ("BspLump", "BasicBspLump"):
            yield name, "records", len(lump)
        elif kind == "Entities":
            yield name, "entities", len(lump)
        elif kind == "TextureDataStringData":
            yield name, "strings", len(lump)
        elif kind == "EntityPartitions":
            yield name, "partitions", len(lump)
        elif kind == "GameLump":
            sprp = getattr(lump, "sprp", None)
            if sprp is not None and hasattr(sprp, "props"):
                yield name, "sprp_props", len(sprp.props)


def main():
    corpus = sys.argv[1]
    version = importlib.metadata.version("bsp_tool")
    print(f"# bsp_tool {version}; made by: bench/.venv/bin/python bench/bsp_tool_counts.py \"$BSPKIT_CORPUS\"")
    for family in ("respawn", "cod"):
        for root, _, files in sorted(os.walk(os.path.join(corpus, family))):
            for f in sorted(files):
                if not f.endswith((".bsp", ".d3dbsp")):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, corpus).replace(os.sep, "/")
                for name, kind, n in counts(bsp_tool.load_bsp(path)):
                    print(f"{rel}\t{name}\t{kind}\t{n}")


if __name__ == "__main__":
    main()
