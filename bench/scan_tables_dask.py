"""Overhead of the distributed library scan (`bspkit.distributed.scan` on a local Dask cluster)
against the single-process `bspkit.scan`, for `bench/scan_tables.sh`.

    target/py-venv/bin/python bench/scan_tables_dask.py CORPUS OUT [WORKERS] [RUNS]

Prints one JSON line: best-of-RUNS seconds of each, and the cluster's start-up time.
"""
import json
import sys
import time

import bspkit
import bspkit.distributed
from distributed import Client, LocalCluster


def best(f, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    single = best(lambda: bspkit.scan(corpus), runs)
    t = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        startup = time.perf_counter() - t
        dist = best(lambda: bspkit.distributed.scan([corpus], client, out=out), runs)
    print(json.dumps({"workers": workers, "single_process_s": single, "distributed_s": dist, "cluster_startup_s": startup}))


if __name__ == "__main__":
    main()
