#!/usr/bin/env python3
"""Fails when a crate built alone would compile the library a second time.

`cargo test --workspace` (README command 2) resolves dependency features over every member and
the dev-dependencies. `cargo run -p bsp-cli` (README command 1 without installing, and `.ci/run`)
and maturin's build of `bspkit-py` (`scripts/test.sh`) resolve features for one crate alone,
without dev-dependencies. Where a package of the library's dependency closure (`bspkit`,
`bspkit-arrow` and everything they pull in, proc-macros included) gets other features there, its
hash changes, and with it the hash of everything above it: cargo compiles it, and the crates that
use it, once more (the Arrow crates and `bspkit-arrow` were compiled twice this way; earlier
serde, the derive macros and `bspkit` itself). The crates name the features the test build
resolves (their `Cargo.toml`, "Feature unification"); this script checks that they still do,
with `cargo tree -e features`, which resolves as those builds do and builds nothing.

Run from the workspace root: `python3 scripts/feature_drift.py` (exit 1 on drift, naming the
package, the build and both feature lists).
"""
import re
import subprocess
import sys

LINE = re.compile(r"^(\S+) v(\S+)(?: \([^)]*\))?\|(.*?)(?: \(\*\))?$")

# The builds that must reuse the test build's library, as `cargo tree` arguments.
ALONE = {
    "cargo build -p bsp-cli": ["-p", "bsp-cli", "-e", "features,no-dev"],
    "maturin's build of bspkit-py": ["-p", "bspkit-py", "-e", "features,no-dev", "--features", "extension-module"],
}


def tree(args, fmt="{p}|{f}"):
    run = subprocess.run(
        ["cargo", "tree", "--locked", "--prefix", "none", "--no-dedupe", "-f", fmt, *args],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.exit(f"error: cargo tree {' '.join(args)} failed:\n{run.stderr}")
    return run.stdout.splitlines()


def features(args):
    """{(name, version): {frozenset of features}} of every package node (a package built for
    the host and for the target can appear with two lists)."""
    found = {}
    for line in tree(args):
        m = LINE.match(line.strip())
        if not m or ' feature "' in line:
            continue
        name, version, feats = m.groups()
        found.setdefault((name, version), set()).add(frozenset(f for f in feats.split(",") if f))
    return found


def main():
    # The library's closure: what the CLI and the Python module share with the tests.
    closure = set()
    for line in tree(["-p", "bspkit-arrow", "--all-features", "-e", "normal,build"], fmt="{p}"):
        m = re.match(r"^(\S+) v(\S+)", line.strip())
        if m:
            closure.add(m.groups())
    workspace = features(["--workspace", "-e", "features,normal,build,dev"])
    drift = []
    for build, args in ALONE.items():
        for pkg, sets in sorted(features(args).items()):
            if pkg not in closure:
                continue
            for feats in sets - workspace.get(pkg, set()):
                drift.append(
                    f"{pkg[0]} {pkg[1]}: `{build}` resolves [{', '.join(sorted(feats))}], the test build "
                    + " or ".join(f"[{', '.join(sorted(w))}]" for w in sorted(workspace.get(pkg, ()), key=sorted))
                )
    if drift:
        print("error: feature lists drifted; these packages (and everything built on them) would be "
              "compiled again:", file=sys.stderr)
        for d in drift:
            print("  " + d, file=sys.stderr)
        print("Name the test build's features in the crate's Cargo.toml (\"Feature unification\").", file=sys.stderr)
        return 1
    print(f"feature_drift: {len(closure)} packages of the library's closure resolve alike in "
          f"`cargo test --workspace`, {' and '.join(ALONE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
