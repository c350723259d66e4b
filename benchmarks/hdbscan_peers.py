#!/usr/bin/env python3
"""HDBSCAN* end to end: gridemst --hdbscan against fast_hdbscan and
scikit-learn on the same points, in one run.

    python3 benchmarks/hdbscan_peers.py --gridemst build/gridemst --n 1e6 --dim 2 \\
        --threads 2 --min-cluster-size 10 --peers fast_hdbscan

The points are gridemst's `blobs` set (--generate blobs, saved as float32).
gridemst's time is its whole run (reading the points, the tree, the
clustering, writing the labels), measured around the process, with the
phases from its --json; a peer's is its fit() on the points in memory, after
a warm-up fit on a small set (numba compiles fast_hdbscan's functions on its
first call).  Each line gives the wall time and the CPU time of all threads
(on a busy machine the CPU time is the steadier).  fast_hdbscan and
scikit-learn are found in the Python that runs this script; fast_hdbscan's
threads are NUMBA_NUM_THREADS, set here to --threads.  fast_hdbscan, like the
hdbscan package, does not count a point among its own min_samples nearest:
it gets --min-samples minus one, so that all three compute the same core
distances.  Prints one line per program, with the adjusted Rand index of
each peer's labels against gridemst's.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from gemstbench.points_file import read_points


def run_gridemst(args, points_file, labels_file):
    cmd = [args.gridemst, points_file, "--backend", "cpu", "--threads", str(args.threads), "--hdbscan",
           "--min-cluster-size", str(args.min_cluster_size), "--labels", labels_file, "--json"]
    if args.min_samples:
        cmd += ["--min-samples", str(args.min_samples)]
    t0 = time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
    report = json.loads(out)
    t = report["time_ms"]
    phases = (f"input {t['input'] / 1e3:.2f} s, core distances {t['prepare'] / 1e3:.2f} s, "
              f"tree {(t['solve'] - t['prepare']) / 1e3:.2f} s, clustering {report['clusters_ms'] / 1e3:.2f} s")
    return wall, cpu, report, phases


def fit_peer(name, args, points):
    min_samples = args.min_samples or args.min_cluster_size
    if name == "fast_hdbscan":
        import fast_hdbscan
        make = lambda: fast_hdbscan.HDBSCAN(min_cluster_size=args.min_cluster_size, min_samples=min_samples - 1)
    elif name == "sklearn":
        from sklearn.cluster import HDBSCAN
        make = lambda: HDBSCAN(min_cluster_size=args.min_cluster_size, min_samples=min_samples, copy=True)
    else:
        sys.exit(f"unknown peer {name}")
    make().fit(points[:2000])  # warm-up: compilation, imports
    t0, c0 = time.perf_counter(), time.process_time()
    labels = make().fit(points).labels_
    return time.perf_counter() - t0, time.process_time() - c0, labels


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gridemst", required=True, help="the gridemst program")
    p.add_argument("--n", default="1e6")
    p.add_argument("--dim", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--min-cluster-size", type=int, default=10)
    p.add_argument("--min-samples", type=int, default=0, help="default: the min cluster size")
    p.add_argument("--peers", default="fast_hdbscan", help="comma-separated: fast_hdbscan, sklearn")
    args = p.parse_args()
    os.environ["NUMBA_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    from sklearn.metrics import adjusted_rand_score

    with tempfile.TemporaryDirectory() as tmp:
        points_file, labels_file = f"{tmp}/points.bin", f"{tmp}/labels.txt"
        subprocess.run([args.gridemst, "--generate", "blobs", "--n", args.n, "--dim", str(args.dim), "--seed",
                        str(args.seed), "--save-points", points_file, "-q", "--backend", "cpu"], check=True)
        points = read_points(points_file).astype(np.float64)
        wall, cpu, report, phases = run_gridemst(args, points_file, labels_file)
        ours = np.loadtxt(labels_file, dtype=np.int64)
        print(f"blobs {args.dim}D n={len(points)} min_cluster_size={args.min_cluster_size} "
              f"min_samples={args.min_samples or args.min_cluster_size} threads={args.threads}")
        print(f"gridemst      {wall:8.2f} s wall {cpu:8.2f} s CPU  {report['clusters']} clusters, "
              f"{report['noise_points']} noise  ({phases})")
        for name in filter(None, args.peers.split(",")):
            t, c, labels = fit_peer(name, args, points)
            print(f"{name:13s} {t:8.2f} s wall {c:8.2f} s CPU  {labels.max() + 1} clusters, {(labels < 0).sum()} noise  "
                  f"(ARI against gridemst {adjusted_rand_score(labels, ours):.4f}; gridemst {t / wall:.1f}x faster "
                  f"in wall time, {c / cpu:.1f}x in CPU time)")


if __name__ == "__main__":
    main()
