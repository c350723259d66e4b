"""HDBSCAN* from gridemst against scikit-learn and the hdbscan package.

Run by tests/hdbscan.sh as: python3 hdbscan_check.py GRIDEMST TMPDIR.
Prints one line per failed check and exits 1 when any failed.

1. The same tree: gridemst's mutual-reachability tree is handed to
   scikit-learn's own single linkage, condensed tree and cluster selection
   (sklearn.cluster._hdbscan) and to the hdbscan package's condensed tree and
   GLOSH scores, in gridemst's merge order and orientation (the side of point
   0 first: a breadth-first walk here).  Labels, probabilities, condensed
   rows and outlier scores must be theirs exactly, for every selection
   option, ties in the tree included.
2. End to end against scikit-learn's exact HDBSCAN(algorithm="brute") on
   Gaussian blobs: the tree's total weight, labels to ARI >= 0.99 and the
   cluster count within 2% (the trees differ at ties of the mutual
   reachability, and so may the clusters).
3. Sets without ties in the tree: labels identical to scikit-learn's brute
   run up to renumbering (and to its K-d tree run, numbering included),
   probabilities to 1e-12; GLOSH scores, labels and probabilities as the
   hdbscan package's with its min_samples one less.
"""
import subprocess
import sys
from collections import deque

import numpy as np
import hdbscan
from hdbscan import _hdbscan_tree
from sklearn.cluster import HDBSCAN
from sklearn.cluster._hdbscan import _linkage, _tree
from sklearn.metrics import adjusted_rand_score

PROG, TMP = sys.argv[1], sys.argv[2]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def gridemst(points, *args):
    """Runs gridemst on points (float64, written as text) with HDBSCAN*'s
    files; returns the tree, labels, probabilities, outlier scores and
    condensed tree."""
    pts = f"{TMP}/pts.txt"
    np.savetxt(pts, points, fmt="%.17g")
    files = {k: f"{TMP}/{k}" for k in ("tree", "labels", "prob", "glosh", "cond")}
    cmd = [PROG, pts, "-q", "--precision", "double", "--hdbscan", "-o", files["tree"], "--labels", files["labels"],
           "--probabilities", files["prob"], "--outlier-scores", files["glosh"], "--condensed-tree", files["cond"]]
    subprocess.run(cmd + [str(a) for a in args], check=True)
    tree = np.loadtxt(files["tree"], delimiter=",", ndmin=2)
    return (tree, np.loadtxt(files["labels"], dtype=np.int64), np.loadtxt(files["prob"]),
            np.loadtxt(files["glosh"]), np.loadtxt(files["cond"], delimiter=",", ndmin=2))


def oriented_hierarchy(tree):
    """scikit-learn's single-linkage array from the tree's edges in their
    order, each edge from the endpoint on point 0's side."""
    n = len(tree) + 1
    u, v = tree[:, 0].astype(np.int64), tree[:, 1].astype(np.int64)
    adj = [[] for _ in range(n)]
    for a, b in zip(u, v):
        adj[a].append(b)
        adj[b].append(a)
    parent = np.full(n, -1)
    parent[0] = 0
    queue = deque([0])
    while queue:
        x = queue.popleft()
        for y in adj[x]:
            if parent[y] < 0:
                parent[y] = x
                queue.append(y)
    mst = np.empty(n - 1, dtype=_linkage.MST_edge_dtype)
    v_first = parent[u] == v
    mst["current_node"] = np.where(v_first, v, u)
    mst["next_node"] = np.where(v_first, u, v)
    mst["distance"] = tree[:, 2]
    return _linkage.make_single_linkage(mst)


def blobs(n, dim, centers, seed, noise=0.02):
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 100, size=(centers, dim))
    widths = rng.uniform(0.5, 3.0, size=centers)
    which = rng.integers(0, centers, size=n)
    pts = c[which] + rng.normal(size=(n, dim)) * widths[which, None]
    m = int(noise * n)
    pts[:m] = rng.uniform(0, 100, size=(m, dim))
    return pts


def same_partition(a, b):
    """Whether labels a and b are the same partition with the same noise."""
    if not np.array_equal(a < 0, b < 0):
        return False
    pairs = set(zip(a[a >= 0].tolist(), b[b >= 0].tolist()))
    return len(pairs) == len(set(a[a >= 0].tolist())) == len(set(b[b >= 0].tolist()))


# ------------------------------------------------------------ 1. same tree
SELECTIONS = [
    ("eom", False, 0.0, None),
    ("leaf", False, 0.0, None),
    ("eom", False, 1.5, None),
    ("leaf", False, 1.5, None),
    ("eom", True, 0.0, None),
    ("eom", True, 4.0, None),
    ("eom", False, 0.0, 150),
]


def check_same_tree(name, points, mcs, min_samples):
    for method, single, eps, max_size in SELECTIONS:
        args = ["--min-cluster-size", mcs, "--min-samples", min_samples, "--cluster-selection", method,
                "--cluster-selection-epsilon", eps]
        if single:
            args.append("--allow-single-cluster")
        if max_size:
            args += ["--max-cluster-size", max_size]
        tree, labels, prob, glosh, cond = gridemst(points, *args)
        what = f"{name} {method} single={single} eps={eps} max={max_size}"
        slt = oriented_hierarchy(tree)
        ref_cond = _tree._condense_tree(slt, mcs)
        ref_rows = np.column_stack([ref_cond["parent"], ref_cond["child"], ref_cond["value"],
                                    ref_cond["cluster_size"]]).astype(np.float64)
        if not np.array_equal(cond, ref_rows):
            fail(f"{what}: condensed tree differs from scikit-learn's")
        ref_labels, ref_prob = _tree.tree_to_labels(slt, mcs, method, single, eps, max_size)
        if not np.array_equal(labels, ref_labels):
            fail(f"{what}: labels differ from scikit-learn's ({labels.max() + 1} vs {ref_labels.max() + 1} clusters)")
        if not np.array_equal(prob, ref_prob):
            fail(f"{what}: probabilities differ from scikit-learn's by {np.abs(prob - ref_prob).max():.3g}")
        h_cond = _hdbscan_tree.condense_tree(
            np.column_stack([slt["left_node"], slt["right_node"], slt["value"], slt["cluster_size"]]).astype(float), mcs)
        ref_glosh = _hdbscan_tree.outlier_scores(h_cond)
        if not np.array_equal(glosh, ref_glosh, equal_nan=True):
            fail(f"{what}: GLOSH scores differ from the hdbscan package's")


check_same_tree("blobs 2D", blobs(4000, 2, 40, 1), 10, 10)
check_same_tree("blobs 3D", blobs(3000, 3, 20, 2), 15, 5)
# a lattice with duplicates: ties everywhere, and lambda = inf at distance 0
lattice = np.array([(x, y) for x in range(30) for y in range(30)] * 2, dtype=float)[:1500]
check_same_tree("lattice with duplicates", lattice, 8, 3)

# ------------------------------------------------------------ 2. end to end
for dim, seed in ((2, 11), (3, 12)):
    points = blobs(3000, dim, 12, seed)
    mcs = 20
    tree, labels, _, _, _ = gridemst(points, "--min-cluster-size", mcs)
    ref = HDBSCAN(min_cluster_size=mcs, algorithm="brute", copy=True).fit(points)
    core = np.sort(np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2), axis=1)[:, mcs - 1]
    ari = adjusted_rand_score(ref.labels_, labels)
    k_ref, k = ref.labels_.max() + 1, labels.max() + 1
    if not ari >= 0.99:
        fail(f"blobs {dim}D: ARI {ari:.4f} against scikit-learn's brute run")
    if not abs(k - k_ref) <= 0.02 * k_ref:
        fail(f"blobs {dim}D: {k} clusters, scikit-learn {k_ref}")
    # the tree's weight: Prim over the dense mutual-reachability matrix
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    mr = np.maximum(d, np.maximum(core[:, None], core[None, :]))
    ref_mst = _linkage.mst_from_mutual_reachability(mr)
    if not abs(tree[:, 2].sum() - ref_mst["distance"].sum()) <= 1e-9 * ref_mst["distance"].sum():
        fail(f"blobs {dim}D: tree weight {tree[:, 2].sum()!r}, scikit-learn's Prim {ref_mst['distance'].sum()!r}")

# ------------------------------------------------------------ 3. no ties
checked = 0
for seed in range(200):
    if checked == 6:
        break
    dim, min_samples, mcs = 2 + seed % 2, 2 + seed % 3, 5
    points = np.random.default_rng(100 + seed).normal(size=(120, dim)) * np.array([1.0, 3.0, 0.5][:dim])
    tree, labels, prob, glosh, _ = gridemst(points, "--min-cluster-size", mcs, "--min-samples", min_samples)
    if len(np.unique(tree[:, 2])) < len(tree):
        continue  # ties in the tree: another set
    checked += 1
    what = f"tie-free set {seed} ({dim}D, min_samples {min_samples})"
    brute = HDBSCAN(min_cluster_size=mcs, min_samples=min_samples, algorithm="brute", copy=True).fit(points)
    if not same_partition(labels, brute.labels_):
        fail(f"{what}: labels differ from scikit-learn's brute run")
    # labels, hence clusters, agree: membership strengths are per point
    elif not np.allclose(prob, brute.probabilities_, rtol=0, atol=1e-12):
        fail(f"{what}: probabilities differ from scikit-learn's by {np.abs(prob - brute.probabilities_).max():.3g}")
    kd = HDBSCAN(min_cluster_size=mcs, min_samples=min_samples, algorithm="kd_tree", copy=True).fit(points)
    if not np.array_equal(labels, kd.labels_):
        fail(f"{what}: labels (numbering included) differ from scikit-learn's K-d tree run")
    h = hdbscan.HDBSCAN(min_cluster_size=mcs, min_samples=min_samples - 1, algorithm="generic",
                        approx_min_span_tree=False).fit(points)
    if not same_partition(labels, h.labels_):
        fail(f"{what}: labels differ from the hdbscan package's")
    if not np.allclose(glosh, h.outlier_scores_, rtol=0, atol=1e-12):
        fail(f"{what}: GLOSH scores differ from the hdbscan package's by {np.abs(glosh - h.outlier_scores_).max():.3g}")
if checked < 6:
    fail(f"only {checked} of the random sets had a tree without ties")

print(f"{failures} failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
