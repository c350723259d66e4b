"""quitefastmst as a peer program: quitefastmst_peer.py FILE [R]

Reads FILE in the binary points format (points_file.py: int32 n, int32 dim,
then n*dim float32; the extended header above 2^31 - 1 points), solves it once to warm up and R times (default 5) timed with
quitefastmst.mst_euclid on the float32 points as read (so it computes in
float32, as gridemst's default precision does), and prints the peers' lines:

    run K: X ms                      (one per timed solve)
    median_ms=X min_ms=Y n=N dim=D edges=E total_weight=W

W sums the tree's weights in double.  Threads: OMP_NUM_THREADS.  Needs numpy
and quitefastmst (pip install quitefastmst) in the Python that runs it.
"""
import os
import statistics
import sys
import time

import numpy as np
import quitefastmst

# Run as a script: its own directory, gemstbench/, is on the path.
from points_file import read_points


def main(argv):
    if len(argv) not in (1, 2):
        sys.exit("usage: quitefastmst_peer.py FILE [R]")
    repeat = max(1, int(argv[1])) if len(argv) == 2 else 5
    try:
        points = read_points(argv[0])
    except ValueError as e:
        sys.exit(f"quitefastmst_peer.py: {e}")
    n, dim = points.shape
    if n < 2:
        sys.exit(f"quitefastmst_peer.py: {argv[0]}: {n} points (need n>=2)")
    print(f"quitefastmst: file={argv[0]} n={n} dim={dim} reps={repeat} version={quitefastmst.__version__} "
          f"threads={os.environ.get('OMP_NUM_THREADS', 'default')}", flush=True)
    quitefastmst.mst_euclid(points)  # warm-up
    times = []
    for r in range(repeat):
        t0 = time.perf_counter()
        weights, edges = quitefastmst.mst_euclid(points)
        times.append((time.perf_counter() - t0) * 1e3)
        print(f"run {r}: {times[-1]:.3f} ms", flush=True)
    print(f"median_ms={statistics.median(times):.3f} min_ms={min(times):.3f} n={n} dim={dim} edges={len(edges)} "
          f"total_weight={weights.astype(np.float64).sum():.17g}")
    return 0 if len(edges) == n - 1 else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
