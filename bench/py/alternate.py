"""Run bench/py/load_touch.py for bspkit and bsp_tool side by side, one map at a time in turn.

    alternate.py --runs N --out-bspkit A.jsonl --out-bsp-tool B.jsonl MAP...

Both libraries run in their own long-lived process (`load_touch.py --serve`); this driver hands
each map to one, waits for its line, then to the other, the order swapped from map to map. On a
shared machine the load from other work then falls on both libraries' numbers for a map alike,
instead of on whichever library ran while it lasted (run one after the other, bsp_tool's 20 s
and bspkit's one second see different moments). A worker that exits is started again and the
map is reported as not read.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def start(lib, runs):
    cmd = [sys.executable, os.path.join(HERE, "load_touch.py"), "--lib", lib, "--runs", str(runs), "--serve"]
    # bsp_tool prints warnings for some branches; they are not results.
    err = subprocess.DEVNULL if lib == "bsp_tool" else None
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="bspkit's runs per pass (bsp_tool runs once)")
    ap.add_argument("--out-bspkit", required=True)
    ap.add_argument("--out-bsp-tool", required=True)
    ap.add_argument("maps", nargs="+")
    args = ap.parse_args()
    runs = {"bspkit": args.runs, "bsp_tool": 1}
    procs = {lib: start(lib, runs[lib]) for lib in runs}
    outs = {"bspkit": open(args.out_bspkit, "w"), "bsp_tool": open(args.out_bsp_tool, "w")}
    for i, path in enumerate(args.maps):
        order = ["bsp_tool", "bspkit"] if i % 2 == 0 else ["bspkit", "bsp_tool"]
        for lib in order:
            p = procs[lib]
            p.stdin.write(path + "\n")
            p.stdin.flush()
            line = p.stdout.readline()
            if not line:
                p.wait()
                procs[lib] = start(lib, runs[lib])
                line = json.dumps({"lib": lib, "map": os.path.basename(path), "size": os.path.getsize(path), "ok": False, "error": f"worker exited with {p.returncode}"}) + "\n"
            outs[lib].write(line)
            outs[lib].flush()
    for p in procs.values():
        p.stdin.close()
        p.wait()


if __name__ == "__main__":
    main()
