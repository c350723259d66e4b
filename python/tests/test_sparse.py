"""minimum_spanning_tree against scipy.sparse.csgraph's."""
import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial.distance import cdist

import gridemst
from reference import assert_lengths_close, prim_weights, random_points


def test_same_tree_as_csgraph_on_the_dense_distance_matrix():
    X = random_points(300, 3, seed=21)
    T = gridemst.minimum_spanning_tree(X)
    assert isinstance(T, csr_array) and T.shape == (300, 300) and T.nnz == 299
    R = minimum_spanning_tree(cdist(X, X)).tocoo()
    # csgraph puts an edge on either side of the diagonal: compare (u < v)
    ref = {(min(u, v), max(u, v)): w for u, v, w in zip(R.row.tolist(), R.col.tolist(), R.data)}
    coo = T.tocoo()
    assert np.all(coo.row < coo.col)
    assert set(zip(coo.row.tolist(), coo.col.tolist())) == set(ref)
    assert_lengths_close(coo.data, np.array([ref[(u, v)] for u, v in zip(coo.row, coo.col)]), X)


def test_duplicate_points_keep_their_zero_length_edges_as_stored_entries():
    base = random_points(40, 2, seed=22)
    X = np.concatenate([base, base[:10]])
    T = gridemst.minimum_spanning_tree(X)
    assert T.nnz == len(X) - 1
    assert np.count_nonzero(T.data == 0) == 10
    assert connected_components(T, directed=False)[0] == 1
    assert_lengths_close(np.sort(T.data), prim_weights(X), X)


def test_fewer_than_two_points():
    for n in (0, 1):
        T = gridemst.minimum_spanning_tree(np.zeros((n, 2)))
        assert T.shape == (n, n) and T.nnz == 0
