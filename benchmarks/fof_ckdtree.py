#!/usr/bin/env python3
"""Friends-of-friends timings: gridemst --fof against SciPy's cKDTree and
against gridemst's whole tree cut at the same linking length.

    benchmarks/fof_ckdtree.py POINTS.bin [--b 0.2] [--threads 2] [--repeat 3]

POINTS.bin is in the binary points format (gridemst --save-points).  The
linking length is b times the mean spacing (volume / n)^(1/dim) of the
points' bounding box, as gridemst --fof-b computes it.  Each method runs
--repeat times; the fastest wall time is reported, and the least CPU
time (all threads; for gridemst the whole process, reading the file
included), which a busy machine distorts less:

  cKDTree  cKDTree(points), query_pairs(D), connected_components: the
           usual SciPy friends-of-friends (one thread)
  fof      gridemst --fof D: the library call (labels and forest), from
           --json's time_ms.solve
  emst     gridemst --cut D: the whole tree (time_ms.solve); cutting it
           and labelling the points come on top

All three must find the same number of groups.
"""
import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from gemstbench.points_file import read_points


def ckdtree_groups(pts, d):
    start, cpu = time.perf_counter(), time.process_time()
    pairs = cKDTree(pts).query_pairs(d, output_type="ndarray")
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(pts), len(pts)))
    groups, _ = connected_components(graph, directed=False)
    return time.perf_counter() - start, time.process_time() - cpu, groups


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def gridemst(args, option, d):
    cpu = children_cpu()
    out = subprocess.run([args.gridemst, args.points, option, repr(d), "--threads", str(args.threads), "--json"],
                         check=True, capture_output=True, text=True).stdout
    run = json.loads(out)
    return run["time_ms"]["solve"] / 1e3, children_cpu() - cpu, run.get("groups", run.get("clusters"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("points")
    ap.add_argument("--b", type=float, default=0.2, help="linking length in mean spacings (default 0.2)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--gridemst", default="./gridemst")
    args = ap.parse_args()
    pts = read_points(args.points).astype(np.float64)
    n, dim = pts.shape
    extent = pts.max(axis=0) - pts.min(axis=0)
    d = args.b * (np.prod(extent) / n) ** (1.0 / dim)
    results = {}
    for name, run in (("cKDTree", lambda: ckdtree_groups(pts, d)),
                      ("fof", lambda: gridemst(args, "--fof", d)),
                      ("emst", lambda: gridemst(args, "--cut", d))):
        times, cpus, groups = [], [], set()
        for _ in range(args.repeat):
            seconds, cpu, g = run()
            times.append(seconds)
            cpus.append(cpu)
            groups.add(g)
        results[name] = (min(times), min(cpus), groups)
    counts = {g for _, _, gs in results.values() for g in gs}
    print("%s: n %d, dim %d, D %.9g (%.3g mean spacings), groups %s" % (args.points, n, dim, d, args.b,
                                                                       sorted(counts)))
    base, base_cpu = results["cKDTree"][:2]
    print("  %-8s %9s %7s %9s %7s" % ("", "wall s", "", "CPU s", ""))
    for name, (seconds, cpu, _) in results.items():
        print("  %-8s %9.3f %6.1fx %9.3f %6.1fx" % (name, seconds, base / seconds, cpu, base_cpu / cpu))
    return 0 if len(counts) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
