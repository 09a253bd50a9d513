#!/usr/bin/env python3
"""Package the Blender add-on (blender/bspkit_blender) as installable zips:

    python3 scripts/build_blender_addon.py [--wheel bspkit-…-abi3-….whl] [--out dist/]

Writes two zips (deterministic: sorted entries, fixed timestamps):

* ``bspkit_blender-VERSION.zip``: the add-on folder, for Blender 3.x–4.x
  (Edit › Preferences › Add-ons › Install…). With ``--wheel`` the wheel's ``bspkit`` package is
  unpacked into ``bspkit_blender/vendor/`` (the add-on puts it on ``sys.path`` when ``bspkit``
  is not importable already); without it, ``bspkit`` must be installed into Blender's Python
  (``<blender's python> -m pip install bspkit``).
* ``bspkit_blender-VERSION-extension.zip``: a Blender 4.2+ extension (Get Extensions › Install
  from Disk): the add-on's files at the top with ``blender_manifest.toml``; with ``--wheel`` the
  wheel under ``wheels/`` and listed in the manifest, so Blender installs it.

The wheel is the abi3 one maturin builds (``maturin build --release -m
crates/bspkit-py/Cargo.toml``): one platform per zip; NumPy is not bundled (Blender's official
builds ship it). Prints the zips written.
"""

import argparse
import ast
import io
import pathlib
import re
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
ADDON = ROOT / "blender" / "bspkit_blender"
STAMP = (2020, 1, 1, 0, 0, 0)
# Wheel platform tags → Blender extension platforms.
PLATFORMS = {
    "manylinux": {"x86_64": "linux-x64", "aarch64": "linux-arm64"},
    "macosx": {"x86_64": "macos-x64", "arm64": "macos-arm64", "universal2": "macos-arm64"},
    "win": {"amd64": "windows-x64", "arm64": "windows-arm64"},
}


def addon_files():
    """The add-on's own files, as (name inside the folder, bytes), sorted."""
    out = []
    for p in sorted(ADDON.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc" and "vendor" not in p.relative_to(ADDON).parts:
            out.append((p.relative_to(ADDON).as_posix(), p.read_bytes()))
    return out


def version():
    tree = ast.parse((ADDON / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "bl_info" for t in node.targets):
            info = ast.literal_eval(node.value)
            return ".".join(str(x) for x in info["version"])
    raise SystemExit("bl_info not found in the add-on's __init__.py")


def platform_of(wheel):
    tag = wheel.name[: -len(".whl")].split("-")[-1]
    for prefix, arches in PLATFORMS.items():
        if tag.startswith(prefix):
            for arch, name in arches.items():
                if tag.endswith(arch):
                    return name
    return None


def wheel_members(wheel):
    """The wheel's files (its bspkit package and dist-info), as (name, bytes)."""
    with zipfile.ZipFile(wheel) as z:
        return [(n, z.read(n)) for n in sorted(z.namelist()) if not n.endswith("/")]


def write_zip(path, entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(name, STAMP)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    path.write_bytes(buf.getvalue())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=pathlib.Path, help="bspkit wheel to bundle (abi3, one platform)")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "target" / "blender-addon")
    a = ap.parse_args(argv)
    v = version()
    files = addon_files()
    manifest = dict(files)["blender_manifest.toml"].decode()
    if not re.search(rf'^version = "{re.escape(v)}"$', manifest, re.M):
        raise SystemExit(f"blender_manifest.toml's version is not bl_info's {v}")
    a.out.mkdir(parents=True, exist_ok=True)

    legacy = [(f"bspkit_blender/{n}", b) for n, b in files]
    extension = list(files)
    if a.wheel:
        legacy += [(f"bspkit_blender/vendor/{n}", b) for n, b in wheel_members(a.wheel)]
        extension.append((f"wheels/{a.wheel.name}", a.wheel.read_bytes()))
        extra = f'\nwheels = ["./wheels/{a.wheel.name}"]\n'
        plat = platform_of(a.wheel)
        if plat:
            extra += f'platforms = ["{plat}"]\n'
        # Top-level keys go before the first [table].
        head, sep, tail = manifest.partition("\n[")
        manifest = head.rstrip("\n") + "\n" + extra + sep + tail
        extension = [(n, manifest.encode() if n == "blender_manifest.toml" else b) for n, b in extension]
    outs = [a.out / f"bspkit_blender-{v}.zip", a.out / f"bspkit_blender-{v}-extension.zip"]
    write_zip(outs[0], legacy)
    write_zip(outs[1], extension)
    for o in outs:
        print(o)
    return 0


if __name__ == "__main__":
    sys.exit(main())
