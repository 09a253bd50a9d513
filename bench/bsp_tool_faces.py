"""Face corners and texture coordinates bsp_tool 0.7.0 reads from the Quake 2 corpus maps.

Usage (from the repository root, in a venv with bsp_tool; never run by CI):

    python3 -m venv target/bsp_tool_venv && target/bsp_tool_venv/bin/pip install bsp_tool==0.7.0
    target/bsp_tool_venv/bin/python bench/bsp_tool_faces.py "$BSPKIT_CORPUS" > crates/bspkit/tests/fixtures/bsp_tool_faces.tsv

For five faces of each map (the first, the last and three between) prints one tab-separated
line per corner, in the order bsp_tool's `face_mesh` gives them:
`map  face  corner  x y z  s t`, where map is the path under the corpus, x y z the corner's
position and s t its texture coordinates in texels (the texinfo axes dotted with the position,
plus the offsets). crates/bspkit/tests/mesh_quake2.rs compares bspkit's scene with this file
(it never runs bsp_tool itself).
"""
import importlib.metadata
import os
import sys

import bsp_tool


def picks(n):
    return sorted({0, n // 4, n // 2, 3 * n // 4, n - 1}) if n else []


def main():
    corpus = sys.argv[1]
    version = importlib.metadata.version("bsp_tool")
    print(f"# bsp_tool {version}; made by: bench/bsp_tool_faces.py \"$BSPKIT_CORPUS\" (face_mesh corners)")
    for root, _, files in sorted(os.walk(os.path.join(corpus, "quake2"))):
        for f in sorted(files):
            if not f.endswith(".bsp"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, corpus).replace(os.sep, "/")
            bsp = bsp_tool.load_bsp(path)
            for i in picks(len(bsp.FACES)):
                for k, v in enumerate(bsp.face_mesh(i).polygons[0].vertices):
                    p, uv = v.position, v.uv[0]
                    print(f"{rel}\t{i}\t{k}\t{p.x!r} {p.y!r} {p.z!r}\t{uv.x!r} {uv.y!r}")


if __name__ == "__main__":
    main()
