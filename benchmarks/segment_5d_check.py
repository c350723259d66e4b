#!/usr/bin/env python3
"""How far gridemst-segment's colour tree is from the exact 5D EMST.

With three colour coordinates a pixel is the 5D point (x, y, lambda c1,
lambda c2, lambda c3), and gridemst-segment takes the minimum spanning tree of
the union of the exact 3D EMSTs of the ten projections on three coordinates,
each edge weighted by its 5D length.  This builds the same tree here (the 3D
trees by the gridemst tool, the union's tree by SciPy) on a reduced copy of a
scikit-image photograph, and the exact 5D tree by Prim's algorithm, and prints
how much heavier the first is and how many edges they share.

    benchmarks/segment_5d_check.py --gridemst ./gridemst astronaut 64 --lambda 4

Needs numpy, scipy, PIL and scikit-image.  The tool is found through
--gridemst or GEMST_GRIDEMST.  Prim's algorithm is quadratic: keep the
reduced image under about 150 x 150.
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
import skimage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import minimum_spanning_tree


def lab(rgb):
    """CIE L*a*b* (D65) of sRGB colours in [0, 1], times 2.55, as gridemst-segment computes it."""
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    d = 6 / 29
    f = np.where(xyz > d ** 3, np.cbrt(xyz), xyz / (3 * d * d) + 4 / 29)
    return 2.55 * np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def prim(points):
    """The exact EMST's edges (as a set of (u, v), u < v) and weight, by Prim in O(n^2)."""
    n = len(points)
    in_tree = np.zeros(n, bool)
    best = np.full(n, np.inf)
    parent = np.zeros(n, np.int64)
    edges, total, current = set(), 0.0, 0
    best[0] = 0.0
    for step in range(n):
        in_tree[current] = True
        if step > 0:
            edges.add((min(current, parent[current]), max(current, parent[current])))
            total += best[current]
        d = np.sqrt(((points - points[current]) ** 2).sum(1))
        closer = ~in_tree & (d < best)
        best[closer] = d[closer]
        parent[closer] = current
        current = int(np.where(in_tree, np.inf, best).argmin())
    return edges, total


def emst_3d(gridemst, points3, workdir):
    """The (u, v) columns of the gridemst tool's tree of float32 3D points."""
    pts, out = os.path.join(workdir, "p.txt"), os.path.join(workdir, "e.csv")
    np.savetxt(pts, points3.astype(np.float32), fmt="%.9g")
    subprocess.run([gridemst, pts, "-o", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    e = np.loadtxt(out, delimiter=",", usecols=(0, 1), ndmin=2, comments="u").astype(np.int64)
    return e[:, 0], e[:, 1]


def projections_tree(gridemst, points, workdir):
    """The MST of the union of the ten projections' EMSTs, edges weighted in 5D."""
    us, vs = [], []
    for axes in itertools.combinations(range(5), 3):
        u, v = emst_3d(gridemst, points[:, list(axes)], workdir)
        us.append(u)
        vs.append(v)
    u, v = np.concatenate(us), np.concatenate(vs)
    uv = np.unique(np.column_stack([np.minimum(u, v), np.maximum(u, v)]), axis=0)  # coo would add repeats
    w = np.sqrt(((points[uv[:, 0]] - points[uv[:, 1]]) ** 2).sum(1))
    n = len(points)
    # a tiny offset keeps zero-length edges (equal pixels) in the sparse matrix
    tree = minimum_spanning_tree(coo_matrix((w + 1e-300, (uv[:, 0], uv[:, 1])), shape=(n, n)).tocsr()).tocoo()
    return set(zip(np.minimum(tree.row, tree.col), np.maximum(tree.row, tree.col))), float(tree.data.sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("photo", help="a scikit-image data photograph: astronaut, coffee, ...")
    ap.add_argument("side", type=int, help="reduce the photo to side x side pixels")
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0)
    ap.add_argument("--features", choices=("rgb", "lab"), default="lab")
    ap.add_argument("--gridemst", default=os.environ.get("GEMST_GRIDEMST", "./gridemst"),
                    help="the gridemst program (default: $GEMST_GRIDEMST or ./gridemst)")
    args = ap.parse_args()
    path = os.path.join(os.path.dirname(skimage.__file__), "data", args.photo + ".png")
    img = Image.open(path).convert("RGB").resize((args.side, args.side), Image.BILINEAR)
    rgb = np.asarray(img).astype(float)
    colour = lab(rgb / 255) if args.features == "lab" else rgb
    ys, xs = np.mgrid[0:args.side, 0:args.side]
    points = np.column_stack([xs.ravel(), ys.ravel(), args.lam * colour.reshape(-1, 3)])
    exact_edges, exact_w = prim(points)
    with tempfile.TemporaryDirectory() as workdir:
        edges, w = projections_tree(args.gridemst, points, workdir)
    n = len(points)
    print(f"{args.photo} {args.side} x {args.side}, {args.features}, lambda {args.lam:g}: "
          f"weight {100 * (w / exact_w - 1):+.2f}% against the exact 5D EMST, "
          f"{100 * len(edges & exact_edges) / (n - 1):.1f}% of its edges shared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
