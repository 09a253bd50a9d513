"""bsp_tool 0.7.0's mesh building, for the export comparison (run by export.sh, never by CI).

Usage: bsp_tool_mesh.py RUNS MAP...  -> one JSON line per map, same fields as the Rust programs
(tool "bsp_tool_mesh"), plus "faces" (meshes built), "failed_faces" and "method".

Each run is `load_bsp(path)` followed by building the mesh of every face with the branch's own
method, whichever the branch has (bsp_tool 0.7.0):
- `face_mesh(i)` for every face (Quake 1, GoldSrc, Quake 2 and their relatives, Source), and
  `displacement_mesh(i)` instead for Source faces with a displacement;
- `mesh(i)` for every mesh (Respawn);
- `layered_triangle_soup_mesh(i)` and `simple_triangle_soup_mesh(i)` for every triangle soup
  of those two lumps (Call of Duty 4, read by bsp_tool as its `modern_warfare` branch).
Quake 3's `face_mesh` raises NotImplementedError in 0.7.0, and some branches have none: those
maps are errors ("no mesh method"). work = triangles of the meshes built (polygons fanned).
"""
import json
import sys

import bsp_tool

from _bsp_tool_runs import best_of


def tris_of(mesh):
    meshes = mesh if isinstance(mesh, list) else [mesh]
    n = 0
    for m in meshes:
        for poly in getattr(m, "polygons", []):
            n += max(len(poly.vertices) - 2, 0)
    return n


def plan(bsp):
    """(method name, list of (callable, index)) for the map's branch, or None."""
    faces = getattr(bsp, "FACES", None)
    if hasattr(bsp, "face_mesh") and faces is not None:
        disp = getattr(bsp, "displacement_mesh", None)
        calls = []
        for i, face in enumerate(faces):
            if disp is not None and getattr(face, "displacement_info", -1) != -1:
                calls.append((disp, i))
            else:
                calls.append((bsp.face_mesh, i))
        return "face_mesh" + ("/displacement_mesh" if disp else ""), calls
    if hasattr(bsp, "mesh") and getattr(bsp, "MESHES", None) is not None:
        return "mesh", [(bsp.mesh, i) for i in range(len(bsp.MESHES))]
    soups = getattr(bsp, "LAYERED_TRIANGLE_SOUPS", None)
    if hasattr(bsp, "layered_triangle_soup_mesh") and soups is not None:
        calls = [(bsp.layered_triangle_soup_mesh, i) for i in range(len(soups))]
        simple = getattr(bsp, "SIMPLE_TRIANGLE_SOUPS", None)
        if hasattr(bsp, "simple_triangle_soup_mesh") and simple is not None:
            calls += [(bsp.simple_triangle_soup_mesh, i) for i in range(len(simple))]
        return "layered/simple_triangle_soup_mesh", calls
    return None


def one_run(path):
    bsp = bsp_tool.load_bsp(path)
    p = plan(bsp)
    if p is None:
        raise LookupError(f"bsp_tool {bsp_tool.__name__} has no mesh method for branch {bsp.branch.__name__}")
    method, calls = p
    tris = built = failed = 0
    first_err = None
    for f, i in calls:
        try:
            tris += tris_of(f(i))
            built += 1
        except Exception as e:  # a face it cannot mesh: counted
            failed += 1
            if first_err is None:
                first_err = f"{method} {i}: {type(e).__name__}: {e}"
    return method, tris, built, failed, first_err


def main():
    runs = int(sys.argv[1])
    for path in sys.argv[2:]:
        best, err, res, done = best_of(runs, lambda: one_run(path))
        with open(path, "rb") as f:
            size = len(f.read())
        rec = {"tool": "bsp_tool_mesh", "map": path, "size": size, "panic": False, "runs": done}
        if err is None:
            method, tris, built, failed, first_err = res
            if built == 0 and failed:
                err = f"every one of {failed} meshes failed; first: {first_err}"
            rec.update({"method": method, "faces": built, "failed_faces": failed, "work": tris,
                        "first_failure": first_err})
        rec.update({"ok": err is None, "error": err, "min_s": best if err is None else None})
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
