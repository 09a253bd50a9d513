"""Shared by the bsp_tool side of the benchmarks (bsp_tool_load.py, bsp_tool_save.py,
bsp_tool_mesh.py, py/load_touch.py): the timed-runs loop and the walk over every lump.
"""
import time


def best_of(runs, fn):
    """Run `fn()` `runs` times (at least once). Returns `(best_seconds, error, result, done)`:
    an exception is counted as that map's error (never fatal) and stops the runs."""
    best, err, result, done = None, None, None, 0
    for _ in range(max(runs, 1)):
        t = time.perf_counter()
        try:
            result = fn()
        except Exception as e:  # counted, never fatal
            err = f"{type(e).__name__}: {e}"
            break
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
        done += 1
    return best, err, result, done


def touch(bsp):
    """Touch every lump attribute of a loaded bsp_tool map: record lumps entry by entry (bsp_tool
    decodes entries lazily on access), raw byte lumps whole with a slice. Returns the count."""
    n = 0
    for name in list(getattr(bsp, "headers", {})):
        lump = getattr(bsp, name, None)
        if lump is None:
            continue
        if isinstance(lump, (bytes, bytearray)):
            n += len(lump)
            continue
        if type(lump).__name__ == "RawBspLump":
            n += len(lump[:])
            continue
        try:
            for _ in lump:
                n += 1
        except TypeError:
            n += 1  # not iterable: a single parsed structure
    return n
