#!/usr/bin/env python3
"""README.md as executable documentation: every command line of the README's fenced `sh` examples
that starts with `bsp ` runs, verbatim, through `sh` in a scratch folder where the file names the
README uses (`map.bsp`, `e1m1.bsp`, `maps/`, ...) exist: links to corpus maps (BSPKIT_CORPUS) or to
the committed sample, and small inputs made here (table `FILES` below). Each line must exit with
the code the README gives it (0 unless `EXPECT` says otherwise, with the README's reason), so the
README's commands, flags and exit codes cannot drift from the binary.

Lines that need game data the corpus lacks (palettes, WADs, game folders) are listed in `SKIP` with
the reason and printed as skipped; a README command line that is neither run nor listed there
fails the script. Without the corpus, only the lines whose files all come from `samples/` run.

The same is done for the examples in every command's `--help` (its "Examples:" section, found by
walking `bsp --help` and each "Commands:" list): each `bsp` line runs in a scratch folder of its
own, with the stand-ins below (`HELP_SKIP` / `HELP_EXPECT` list its exceptions), so no `--help`
shows a command that does not run.

    BSP=target/debug/bsp BSPKIT_CORPUS=../shared/maps python3 scripts/readme_examples.py
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The README's placeholder names and what they stand for here: ("corpus", path below
# BSPKIT_CORPUS) or ("sample", path below samples/). The corpus maps are linked, never copied.
MAPS = {
    "map.bsp": ("corpus", "source/bsp_tool__tf2_test2.bsp"),  # Source: static props, lights
    "a.bsp": ("corpus", "quake1/ericw__q1_cube.bsp"),
    "b.bsp": ("sample", "sample_quake1.bsp"),
    "old.bsp": ("corpus", "source/bsp_tool__tf2_mp_lobby.bsp"),
    "new.bsp": ("corpus", "source/bsp_tool__momentum_mp_lobby.bsp"),
    "e1m1.bsp": ("sample", "sample_quake1.bsp"),  # Quake 1 (BSPX, miptex)
    "dm6.bsp": ("corpus", "quake1/qbsp__lq_e0m1.bsp"),  # Quake 1 with a player start
    "mp_rr_box.bsp": ("corpus", "respawn/bsp_tool__tf2r_mp_crossfire.bsp"),  # Respawn, .ent partitions
    "mp_rr_box_spawn.ent": ("corpus", "respawn/bsp_tool__tf2r_mp_crossfire_spawn.ent"),
    "mp_rr_box_env.ent": ("corpus", "respawn/bsp_tool__tf2r_mp_crossfire_env.ent"),
    "map.360.bsp": ("corpus", "source_x360/bsp_tool__shack.360.bsp"),  # big-endian Source
    "quake-map.bsp": ("corpus", "quake1/qbsp__lq_e0m1.bsp"),  # see QUAKE_LINES
    "samples/sample_quake1.bsp": ("sample", "sample_quake1.bsp"),  # README command 1
    "q2dm1.bsp": ("corpus", "quake2/bsp_tool__q2_mp_lobby.bsp"),  # Quake 2 (decompile)
    "q3dm17.bsp": ("corpus", "quake3/bsp_tool__q3_mp_lobby.bsp"),  # Quake 3 (decompile)
    "c1a0.bsp": ("corpus", "goldsrc/goldsrc-renderer__vis-test.bsp"),  # GoldSrc (decompile)
    "genvs2.bsp": ("corpus", "genesis3d/genesis3d__genvs2.bsp"),  # Genesis3D (decompile)
    "shack.360.bsp": ("corpus", "source_x360/bsp_tool__shack.360.bsp"),  # Xbox 360 Source (convert)
    # Names only the --help examples use.
    "maps/e1m1.bsp": ("sample", "sample_quake1.bsp"),
    "maps/cp_x.bsp": ("corpus", "source/bsp_tool__tf2_test2.bsp"),  # Source with static props
    "maps/mymap.bsp": ("corpus", "source/bsp_tool__tf2_test2.bsp"),
    "m.bsp": ("corpus", "quake1/qbsp__lq_e0m1.bsp"),  # Quake 1 with `light` entities
    "crossfire.bsp": ("corpus", "goldsrc/gchimp__normal.bsp"),  # GoldSrc (miptex)
    "ctf_2fort.bsp": ("corpus", "source/bsp_tool__tf2_test2.bsp"),  # Source (decompile)
}
# Lines about `light` entities with a `light` key (Quake's; Source's lights use `_light`) read
# `map.bsp` as the Quake map `quake-map.bsp`.
QUAKE_LINES = re.compile(r"--classname light |stripper\.cfg")
# maps/ (and maps/*.bsp): one map of a few families.
MAPS_DIR = [
    ("sample", "sample_quake1.bsp"),
    ("corpus", "quake2/bsp_tool__q2_mp_lobby.bsp"),
    ("corpus", "quake3/bsp_tool__q3_mp_lobby.bsp"),
    ("corpus", "source/bsp_tool__tf2_mp_lobby.bsp"),
]
# Archives the README names: a .pk3 holding a Quake 3 corpus map, made here.
ARCHIVES = {
    "pak0.pk3": [("maps/q3dm1.bsp", ("corpus", "quake3/bsp_tool__q3_mp_lobby.bsp"))],
    "a.pk3": [("maps/a.bsp", ("corpus", "quake1/ericw__q1_cube.bsp"))],
}
# Small inputs the README's edit commands read, made here.
FILES = {
    "stripper.cfg": 'modify:\n{\n\tmatch:\n\t{\n\t\t"classname" "light"\n\t}\n\treplace:\n\t{\n\t\t"light" "300"\n\t}\n}\n',
    "a.vmt": '"LightmappedGeneric"\n{\n\t"$basetexture" "dev/dev_measuregeneric01"\n}\n',
    "materials/a.vmt": '"UnlitGeneric"\n{\n}\n',
    "files.txt": "materials/b.vmt\na.vmt\n",
    "notes.txt": "notes\n",
}
# The --help examples' Stripper file sits where Stripper:Source keeps it.
FILES["stripper/maps/map.cfg"] = FILES["stripper.cfg"]
# Made by running bsp before the README's lines: (file, command). `map.bsp` gets a pakfile entry
# `maps/map.txt` (the name the README's `pak` lines use), so map.bsp is a scratch copy.
PREPARE = [
    ("map.bsp", "bsp pak add src-map.bsp maps/map.txt a.vmt -o map.bsp"),
    ("light.bin", "bsp lump extract map.bsp LIGHTING -o light.bin"),
    ("map_l_0.lmp", "bsp lump extract map.bsp 0 --lmp -o map_l_0.lmp"),
]

# Maps the README's lines write (and later lines read), never stand-ins: a stand-in is a link to a
# corpus map, which a line writing it would overwrite.
WRITTEN = (
    "shack.bsp",
    "shack_x360.bsp",
    "e1m1_bsp2.bsp",
    "q3dm17_rbsp.bsp",
    "q3dm17_back.bsp",
    "old_csgo.bsp",
    "shack_l4d2.bsp",
    "mp_rr_box_tf1.bsp",
    "mp_rr_box_x360.bsp",
    "mp_rr_box_back.bsp",
    "old_back.bsp",
    "old_v19.bsp",
    "map_props5.bsp",
    "map_lzma.bsp",
    "pak.zip",
)

# README lines not run, by their command text (comments stripped), with the reason.
GAME_DATA = "needs game files the corpus does not have"
SERVER = "starts a server that runs until Ctrl-C (tested by crates/bsp-cli/tests/all/view_cli.rs)"
SKIP = {
    "bsp textures e1m1.bsp --out tex/ --palette id1/gfx/palette.lmp": GAME_DATA + " (Quake's palette.lmp)",
    "bsp textures e1m1.bsp --out tex/ --game-dir ~/quake/id1": GAME_DATA + " (a Quake install)",
    "bsp textures crossfire.bsp --out tex/ --wad ~/hl/valve/": GAME_DATA + " (Half-Life's WAD3 files)",
    "bsp textures q2dm1.bsp --out tex/ --game-dir ~/quake2/baseq2": GAME_DATA + " (a Quake 2 install)",
    "bsp textures q3dm1.bsp --out tex/ --game-dir ~/quake3/baseq3": GAME_DATA + " (a Quake 3 install)",
    "bsp textures cp_x.bsp --out tex/ --game-dir ~/tf2/tf --game-dir ~/tf2/hl2": GAME_DATA + " (a TF2 install)",
    "bsp export e1m1.bsp -o e1m1.glb --palette id1/gfx/palette.lmp": GAME_DATA + " (Quake's palette.lmp)",
    "bsp export c1a0.bsp -o c1a0.gltf --wad ~/hl/valve/": GAME_DATA + " (Half-Life's c1a0 and WADs)",
    "bsp export e1m1.bsp -o e1m1.obj --palette id1/gfx/palette.lmp": GAME_DATA + " (Quake's palette.lmp)",
    "bsp render e1m1.bsp -o e1m1.png --game-dir ~/quake/id1": GAME_DATA + " (a Quake install)",
    "bsp scan ~/games/quake/id1": GAME_DATA + " (a Quake install)",
    "bsp scan ~/games/quake/id1 --thumbnails thumbs/": GAME_DATA + " (a Quake install)",
    "bsp scan ~/games/quake/id1 ~/xonotic/maps --out lib/": GAME_DATA + " (Quake and Xonotic installs)",
    "bsp view e1m1.bsp": SERVER,
    "bsp view a.bsp b.bsp c.bsp --open": SERVER,
    "bsp view c1a0.bsp --wad ~/hl/valve/ --port 8080": SERVER,
}

# Lines whose exit code is not 0, with the README's reason.
EXPECT = {
    # "exit 1: no entity matches" (map.bsp has no entity with these keys)
    "bsp ents get map.bsp --where 'classname~^func_' --where targetname=door1 --has spawnflags": 1,
    "bsp ents set map.bsp --targetname relay --key OnTrigger --value 'x,Kill,,0,-1' --nth 2 -o out.bsp": 1,
    "bsp ents set map.bsp --targetname relay --key OnTrigger --value 'x,Kill,,0,-1' --append -o out.bsp": 1,
    "bsp ents remove map.bsp --where targetname=door1 -o out.bsp": 1,
    # "exit 1 on warnings": the corpus has no game folder for the map's materials
    "bsp export map.bsp -o map.glb --json --strict": 1,
}


# --help lines not run, with the reason (as SKIP for the README).
HELP_SKIP = {
    "bsp view maps/e1m1.bsp": SERVER,
    "bsp view e1m1.bsp": SERVER,
    "bsp view a.bsp b.bsp --open": SERVER,
    "bsp view c1a0.bsp --wad ~/hl/valve/ --port 8080": SERVER,
    "bsp scan ~/games/quake/id1": GAME_DATA + " (a Quake install)",
    "bsp render e1m1.bsp -o e1m1.png --game-dir ~/quake/id1": GAME_DATA + " (a Quake install)",
    "bsp render cp_x.bsp -o cp_x.png --game-dir ~/tf2/tf --game-dir ~/tf2/hl2": GAME_DATA + " (a TF2 install)",
    "bsp export e1m1.bsp -o e1m1.glb --palette id1/gfx/palette.lmp": GAME_DATA + " (Quake's palette.lmp)",
    "bsp export c1a0.bsp -o c1a0.gltf --wad ~/hl/valve/": GAME_DATA + " (Half-Life's c1a0 and WADs)",
    "bsp export q2dm1.bsp -o q2dm1.obj --game-dir ~/q2/baseq2": GAME_DATA + " (a Quake 2 install)",
    "bsp textures e1m1.bsp --out tex/ --palette id1/gfx/palette.lmp": GAME_DATA + " (Quake's palette.lmp)",
    "bsp textures e1m1.bsp --out tex/ --game-dir ~/quake/id1": GAME_DATA + " (a Quake install)",
    "bsp textures crossfire.bsp --out tex/ --wad ~/hl/valve/": GAME_DATA + " (Half-Life's WAD3 files)",
    "bsp textures cp_x.bsp --out tex/ --game-dir ~/tf2/tf --game-dir ~/tf2/hl2": GAME_DATA + " (a TF2 install)",
    "bsp textures q3dm1.bsp --out tex/ --game-dir ~/q3/baseq3": GAME_DATA + " (a Quake 3 install)",
}

# --help lines whose exit code is not 0, with the reason.
NO_MATCH = 1  # "exit 1: no entity matches" (the stand-in has no such entity)
HELP_EXPECT = {
    'bsp ents set map.bsp --classname logic_relay --key OnTrigger --value "door,Open,,0,-1" --append -o out.bsp': NO_MATCH,
    "bsp ents unset map.bsp --where targetname~^lamp --key _light -o out.bsp": NO_MATCH,
    "bsp ents remove map.bsp --where targetname=door1 -o out.bsp": NO_MATCH,
    "bsp ents get map.bsp --classname light": NO_MATCH,
    "bsp ents get map.bsp --where targetname=door1 --key origin": NO_MATCH,
    "bsp ents get map.bsp --where classname~^func_ --has spawnflags": NO_MATCH,
    "bsp ents get --json map.bsp --classname info_player_start": NO_MATCH,
    "bsp ents set map.bsp --where targetname=door1 --key speed --value 200 --in-place": NO_MATCH,
    'bsp ents set map.bsp --targetname relay --key OnTrigger --value "x,Kill,,0,-1" --nth 2 -o out.bsp': NO_MATCH,
    'bsp ents set map.bsp --targetname relay --key OnTrigger --value "x,Kill,,0,-1" --append -o out.bsp': NO_MATCH,
    "bsp ents unset map.bsp --targetname relay --key OnTrigger --nth 2 -o out.bsp": NO_MATCH,
    "bsp ents remove map.bsp --classname info_null -o out.bsp": NO_MATCH,
    "bsp ents patch map.bsp stripper/maps/map.cfg -o out.bsp": NO_MATCH,  # the config matches nothing
    "bsp ents diff old.bsp new.bsp": 1,  # exit 1: the entities differ
    "bsp export map.bsp -o map.glb --json --strict": 1,  # exit 1 on warnings (no game folder)
    # exit 2: the stand-in's pakfile has no such entry
    "bsp pak extract map.bsp materials/maps/x/cubemapdefault.vtf": 2,
    "bsp pak cat map.bsp materials/x.vtf > x.vtf": 2,
}


def help_section(text, header):
    """The lines of a `--help` text after the line starting with `header`, up to the next line
    that is neither blank nor indented."""
    lines = text.splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if line.startswith(header)), len(lines))
    for line in lines[start:]:
        if line and not line.startswith(" "):
            break
        yield line


def help_commands(bsp):
    """(where, command) of every `bsp ` example line in the "Examples:" section of `bsp --help`
    and of every command's and subcommand's `--help`, the description after the command (two or
    more blanks, or a `# comment`) cut off."""
    out = []
    todo = [[]]
    while todo:
        path = todo.pop(0)
        text = subprocess.run([str(bsp), *path, "--help"], capture_output=True, text=True, check=True).stdout
        where = " ".join(["bsp", *path, "--help"])
        for line in help_section(text, "Examples:"):
            cmd = re.split(r"\s{2,}", strip_comment(line).strip())[0]
            if cmd.startswith("bsp "):
                out.append((where, cmd))
        for line in help_section(text, "Commands:"):
            if not line.strip():
                break
            name = line.split()[0]
            if name != "help" and not line.startswith("   "):
                todo.append([*path, name])
    return out


def strip_comment(line):
    """The command without its trailing `# comment` (a `#` after a blank, outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def readme_commands(text):
    """(line number, command) of every `bsp ` line of the README's ```sh blocks."""
    out = []
    for m in re.finditer(r"```sh\n(.*?)```", text, re.S):
        first = text[: m.start()].count("\n") + 2
        for k, line in enumerate(m.group(1).splitlines()):
            cmd = strip_comment(line)
            if cmd.startswith("bsp "):
                out.append((first + k, cmd))
    return out


def source(kind, rel, corpus):
    if kind == "sample":
        return ROOT / "samples" / rel
    return None if corpus is None else corpus / rel


def scratch(tmp, corpus, bsp, copy):
    """Make the stand-ins in the folder `tmp`: links to corpus and sample maps (copies when `copy`:
    the --help lines write to names the README only reads), archives, small files and the
    PREPARE outputs. Returns (names present, environment for the lines)."""
    present = set()

    def link(name, kind, rel):
        src = source(kind, rel, corpus)
        if src is None:
            return
        if not src.is_file():
            sys.exit(f"error: {src} (for the README's {name}) does not exist")
        dst = tmp / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if copy:
            shutil.copyfile(src, dst)
        else:
            dst.symlink_to(src)
        present.add(name)

    for name, (kind, rel) in MAPS.items():
        link("src-map.bsp" if name == "map.bsp" else name, kind, rel)
    for kind, rel in MAPS_DIR:
        link("maps/" + pathlib.Path(rel).name, kind, rel)
    if any(n.startswith("maps/") for n in present):
        present.add("maps/")
    for name, entries in ARCHIVES.items():
        srcs = [(inner, source(kind, rel, corpus)) for inner, (kind, rel) in entries]
        if all(s is not None for _, s in srcs):
            with zipfile.ZipFile(tmp / name, "w") as z:
                for inner, s in srcs:
                    z.write(s, inner)
            present.add(name)
    for name, text in FILES.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text)
        present.add(name)
    env = dict(os.environ, PATH=f"{bsp.parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("BSPKIT_CORPUS", None)
    if bsp.name != "bsp":
        sys.exit("error: BSP must name a file called bsp (the README's lines call `bsp`)")
    for name, cmd in PREPARE:
        if "src-map.bsp" in present or name != "map.bsp" and "map.bsp" in present:
            r = subprocess.run(cmd, shell=True, cwd=tmp, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"error: preparing {name}: `{cmd}` exited {r.returncode}: {r.stderr.strip()}")
            present.add(name)

    return present, env


def run_lines(lines, skip, expect, label, tmp, present, env, corpus):
    """Run each (place, command) of `lines` in `tmp`; returns (ran, skipped, failures)."""
    seen = {cmd for _, cmd in lines}
    stale = sorted(set(skip) - seen) + sorted(set(expect) - seen)
    failures = [f"listed as skipped or expected but no longer in {label}: {c}" for c in stale]
    ran = skipped = 0
    made = set()
    for lineno, cmd in lines:
        if cmd in skip:
            print(f"skip  {lineno}: {cmd}\n      ({skip[cmd]})")
            skipped += 1
            continue
        words = shlex.split(cmd)
        names = [w for w in words[1:] if w in MAPS or w in ARCHIVES or w in FILES or w.startswith("maps/")]
        names += [w.split("!")[0] for w in words if "!" in w]
        # A `maps/NAME` stand-in must exist itself; other `maps/` paths need only the folder.
        missing = [
            n for n in names
            if n not in present and not (n.startswith("maps/") and n not in MAPS and "maps/" in present)
        ]
        # A map an earlier line writes (WRITTEN) read by this one: that line must have run
        # (without the corpus it may have been skipped).
        outputs = {w for k, w in enumerate(words) if k > 0 and words[k - 1] in ("-o", "--output")}
        missing += [w for w in words[1:] if w in WRITTEN and w not in outputs and w not in made]
        unknown = [w for w in words[1:] if re.search(r"\.(bsp|d3dbsp|pk3|zip)$", w) and w not in present
                   and w.split("!")[0] not in present and not w.startswith("maps/")
                   and w not in ("out.bsp", "copy.bsp", "lzma.bsp", "plain.bsp")
                   and w not in WRITTEN]
        if unknown and corpus is not None:
            failures.append(f"{lineno}: {cmd}: no file stands for {unknown} (add it to MAPS or SKIP)")
            continue
        if missing or unknown:
            print(f"skip  {lineno}: {cmd}\n      (needs the corpus for {sorted(set(missing + unknown))})")
            skipped += 1
            continue
        run = re.sub(r"(?<![\w.-])map\.bsp\b", "quake-map.bsp", cmd) if QUAKE_LINES.search(cmd) else cmd
        r = subprocess.run(run, shell=True, cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
        want = expect.get(cmd, 0)
        ran += 1
        if r.returncode != want:
            err = r.stderr.strip().splitlines()
            failures.append(f"{lineno}: {cmd}: exit {r.returncode}, expected {want}: {err[-3:]}")
        else:
            print(f"ok    {lineno}: {cmd}")
            made.update(outputs)
    return ran, skipped, failures


def main():
    bsp = pathlib.Path(os.environ.get("BSP", ROOT / "target" / "debug" / "bsp")).resolve()
    if not bsp.is_file():
        sys.exit(f"error: no bsp binary at {bsp} (build it: cargo build -p bsp-cli, or set BSP)")
    corpus = os.environ.get("BSPKIT_CORPUS")
    corpus = pathlib.Path(corpus) if corpus else None
    if corpus is not None and not corpus.is_absolute() and not corpus.is_dir():
        corpus = ROOT / corpus
    if corpus is not None:
        # Absolute: the stand-ins are links made in a scratch folder.
        corpus = corpus.resolve()
    if corpus is not None and not corpus.is_dir():
        print(f"note: BSPKIT_CORPUS={os.environ['BSPKIT_CORPUS']} is not a directory: lines that need corpus maps are skipped")
        corpus = None
    elif corpus is None:
        print("note: BSPKIT_CORPUS is not set: lines that need corpus maps are skipped")

    failures = []
    with tempfile.TemporaryDirectory(prefix="bspkit-readme-") as tmp:
        tmp = pathlib.Path(tmp)
        present, env = scratch(tmp, corpus, bsp, copy=False)
        lines = [(f"README.md:{n}", c) for n, c in readme_commands((ROOT / "README.md").read_text())]
        ran, skipped, failed = run_lines(lines, SKIP, EXPECT, "the README", tmp, present, env, corpus)
        print(f"README examples: {ran} ran, {skipped} skipped, {len(failed)} failed")
        failures += failed
    with tempfile.TemporaryDirectory(prefix="bspkit-help-") as tmp:
        tmp = pathlib.Path(tmp)
        present, env = scratch(tmp, corpus, bsp, copy=True)
        lines = help_commands(bsp)
        ran, skipped, failed = run_lines(lines, HELP_SKIP, HELP_EXPECT, "any --help", tmp, present, env, corpus)
        print(f"--help examples: {ran} ran, {skipped} skipped, {len(failed)} failed")
        failures += failed
    for f in failures:
        print("FAIL  " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
