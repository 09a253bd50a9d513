#!/usr/bin/env python3
"""Time `bsp check` on one map with several builds of `bsp`, in one run (issue 12, item 10).

    python3 bench/check_x360.py --runs 200 MAP 'before=/path/a/bsp check' 'now=/path/b/bsp check' \
        'verify=/path/b/bsp check --verify-lzma'

Each argument after MAP is `LABEL=COMMAND` (split like a shell would; MAP is appended). The
commands run interleaved (run i of every command, in an order rotated each round, then run i+1)
so that a change in the machine's load touches them alike. For each: minimum and median wall
time, and the child's user + system CPU time (from `wait4`), minimum and median. Prints a
Markdown table and the load average (`/proc/loadavg`) before and after. Standard library only.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def load():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def run_once(argv):
    """Wall seconds, CPU seconds (user + system) and exit status of one run."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, p.returncode


def ms(s):
    return f"{s * 1000:.2f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100, help="timed runs per command (default 100)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs per command first (default 3)")
    ap.add_argument("map")
    ap.add_argument("commands", nargs="+", metavar="LABEL=COMMAND")
    a = ap.parse_args()

    cmds = []
    for c in a.commands:
        label, sep, cmd = c.partition("=")
        if not sep or not cmd:
            sys.exit(f"not LABEL=COMMAND: {c!r}")
        cmds.append((label, shlex.split(cmd) + [a.map]))

    codes = {}
    for label, argv in cmds:
        for _ in range(a.warmup):
            codes[label] = run_once(argv)[2]
    before = load()
    walls = {label: [] for label, _ in cmds}
    cpus = {label: [] for label, _ in cmds}
    for i in range(a.runs):
        k = i % len(cmds)
        for label, argv in cmds[k:] + cmds[:k]:
            wall, cpu, code = run_once(argv)
            walls[label].append(wall)
            cpus[label].append(cpu)
            codes[label] = code
    after = load()

    base = cmds[0][0]
    print(f"map: {os.path.basename(a.map)}; {a.runs} runs per command, interleaved; "
          f"load average (1/5/15 min) {before} before, {after} after\n")
    print(f"| command | exit | min wall | median wall | min CPU | median CPU | median wall vs `{base}` | median CPU vs `{base}` |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    bw, bc = statistics.median(walls[base]), statistics.median(cpus[base])
    for label, argv in cmds:
        w, c = walls[label], cpus[label]
        mw, mc = statistics.median(w), statistics.median(c)
        shown = " ".join([os.path.basename(argv[0])] + argv[1:-1])
        print(f"| {label} (`{shown}`) | {codes[label]} | {ms(min(w))} | {ms(mw)} | {ms(min(c))} | {ms(mc)} | "
              f"{bw / mw:.2f}× | {bc / mc if mc else float('inf'):.2f}× |")


if __name__ == "__main__":
    main()
