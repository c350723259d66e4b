"""Independent references for the tests: SciPy's minimum spanning trees and
a brute-force Prim in double precision, and small helpers."""
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial import Delaunay
from scipy.spatial.distance import cdist


def assert_lengths_close(weights, reference, X):
    """Equal up to the rounding of the coordinates' differences: a few ulps
    of the largest coordinate, and relative rounding."""
    atol = 4 * np.finfo(np.float64).eps * (np.abs(X).max() if len(X) else 0)
    np.testing.assert_allclose(weights, reference, rtol=1e-12, atol=atol)


def random_points(n, dim, seed=0):
    return np.random.default_rng(seed).random((n, dim))


def _edge_set(tree):
    """(u, v) pairs with u < v and lengths of a csgraph tree, by (w, u, v)."""
    t = tree.tocoo()
    u, v = np.minimum(t.row, t.col), np.maximum(t.row, t.col)
    order = np.lexsort((v, u, t.data))
    return np.stack([u[order], v[order]], axis=1).astype(np.int64), t.data[order]


def dense_mst(X):
    """csgraph's minimum spanning tree of the dense distance matrix (points
    must be distinct: csgraph reads a zero as no edge)."""
    return _edge_set(minimum_spanning_tree(cdist(X, X)))


def delaunay_mst(X):
    """Kruskal (csgraph) over the Delaunay triangulation's edges, which hold
    the Euclidean minimum spanning tree of distinct points."""
    simplices = Delaunay(X).simplices
    k = simplices.shape[1]
    pairs = np.concatenate([simplices[:, [i, j]] for i in range(k) for j in range(i + 1, k)])
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    w = np.linalg.norm(X[pairs[:, 0]] - X[pairs[:, 1]], axis=1)
    graph = coo_matrix((w, (pairs[:, 0], pairs[:, 1])), shape=(len(X), len(X)))
    return _edge_set(minimum_spanning_tree(graph))


def prim_weights(X):
    """The sorted edge lengths of a minimum spanning tree, by brute-force
    Prim in double precision; zero-length edges between duplicates count."""
    n = len(X)
    if n < 2:
        return np.zeros(0)
    best = np.full(n, np.inf)
    done = np.zeros(n, dtype=bool)
    current, weights = 0, []
    for _ in range(n - 1):
        done[current] = True
        best = np.minimum(best, np.linalg.norm(X - X[current], axis=1))
        best[done] = np.inf
        current = int(np.argmin(best))
        weights.append(best[current])
    return np.sort(np.array(weights))


def components(n, edges):
    """Component labels of a graph by union-find, numbered by first point."""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in edges:
        parent[find(u)] = find(v)
    return canonical([find(i) for i in range(n)])


def canonical(labels, noise=()):
    """Labels renumbered 0, 1, ... in the order of each group's first point;
    the groups in `noise` become -1."""
    out, names = [], {}
    for label in labels:
        if label in noise:
            out.append(-1)
        else:
            out.append(names.setdefault(label, len(names)))
    return np.array(out, dtype=np.int64)


def without_small(labels, min_size):
    """Labels with the clusters of fewer than min_size points made noise."""
    values, counts = np.unique(labels, return_counts=True)
    return canonical(labels, noise=set(values[counts < min_size].tolist()))
