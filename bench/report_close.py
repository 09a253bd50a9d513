#!/usr/bin/env python3
"""Are two `bsp decompile --report` JSON files the same up to the measurements' rounding?

The rule (issue 26, session 40): every string, integer, boolean and null, every key (in order)
and every list length must be equal; a floating-point value (a JSON number with a fraction or
an exponent: volumes, areas, percentages) may differ by at most 1e-9 of the larger magnitude,
or by 1e-9 absolute where both are near zero. An integer never equals a float. Prints each
differing field by its path; exit 1 when any differs, 2 on bad arguments.

    python3 bench/report_close.py [-v] before.json after.json

`-v` also prints the largest relative difference among the floats that differ.
"""

import json
import sys

REL = 1e-9
ABS = 1e-9


def is_float_token(text):
    return any(c in text for c in ".eE") or text in ("NaN", "Infinity", "-Infinity")


class Number:
    """A JSON number as written: its token decides integer or float."""

    def __init__(self, text):
        self.text = text
        self.is_float = is_float_token(text)
        self.value = float(text) if self.is_float else int(text)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(
            f,
            parse_float=Number,
            parse_int=Number,
            parse_constant=Number,
            object_pairs_hook=lambda pairs: ("object", pairs),
        )


WORST = [0.0, 0]


def close(a, b):
    if a != b and a == a and b == b:
        WORST[1] += 1
        scale = max(abs(a), abs(b))
        WORST[0] = max(WORST[0], abs(a - b) / scale if scale > 0 else 0.0)
    if a == b:
        return True
    if a != a or b != b:  # NaN only equals NaN here
        return a != a and b != b
    diff = abs(a - b)
    return diff <= ABS or diff <= REL * max(abs(a), abs(b))


def compare(a, b, path, out):
    if isinstance(a, Number) and isinstance(b, Number):
        if a.is_float != b.is_float:
            out.append(f"{path}: {a.text} vs {b.text} (integer against float)")
        elif a.is_float:
            if not close(a.value, b.value):
                out.append(f"{path}: {a.text} vs {b.text} (beyond 1e-9)")
        elif a.value != b.value:
            out.append(f"{path}: {a.text} vs {b.text}")
        return
    if isinstance(a, tuple) and isinstance(b, tuple):
        ka, kb = [k for k, _ in a[1]], [k for k, _ in b[1]]
        if ka != kb:
            out.append(f"{path}: keys {ka} vs {kb}")
            return
        for (k, va), (_, vb) in zip(a[1], b[1]):
            compare(va, vb, f"{path}.{k}", out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} vs {len(b)} items")
            return
        for i, (va, vb) in enumerate(zip(a, b)):
            compare(va, vb, f"{path}[{i}]", out)
        return
    # Strings, booleans, null, or different kinds.
    if type(a) is not type(b) or a != b:
        out.append(f"{path}: {a!r} vs {b!r}")


def main():
    args = sys.argv[1:]
    verbose = args[:1] == ["-v"]
    if verbose:
        args = args[1:]
    if len(args) != 2:
        print("usage: report_close.py [-v] BEFORE.json AFTER.json", file=sys.stderr)
        return 2
    out = []
    compare(load(args[0]), load(args[1]), "$", out)
    for line in out:
        print(line)
    if verbose:
        print(f"{WORST[1]} floats differ, largest relative difference {WORST[0]:.3g}")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
