"""emst against SciPy's trees, and the properties every tree must have."""
import numpy as np
import pytest

import gridemst
from reference import assert_lengths_close, delaunay_mst, dense_mst, prim_weights, random_points

has_cuda = gridemst.cuda_device_count() > 0


def check_sorted_tree(edges, weights, n):
    assert edges.dtype == np.int64 and edges.shape == (max(n - 1, 0), 2)
    assert weights.dtype == np.float64 and weights.shape == (max(n - 1, 0),)
    assert np.all(edges[:, 0] < edges[:, 1])
    # sorted by (w, u, v), as the command line's CSV
    order = np.lexsort((edges[:, 1], edges[:, 0], weights))
    assert np.array_equal(order, np.arange(len(weights)))


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("n", [2, 3, 50, 400])
def test_small_sets_match_dense_scipy(n, dim):
    X = random_points(n, dim, seed=n + dim)
    edges, weights = gridemst.emst(X)
    check_sorted_tree(edges, weights, n)
    ref_edges, ref_weights = dense_mst(X)
    # random lengths are distinct: the tree is unique, edge for edge
    assert np.array_equal(edges, ref_edges)
    assert_lengths_close(weights, ref_weights, X)


@pytest.mark.parametrize("n,dim", [(20000, 2), (4000, 3)])
def test_larger_sets_match_delaunay_kruskal(n, dim):
    X = random_points(n, dim, seed=7)
    edges, weights = gridemst.emst(X)
    check_sorted_tree(edges, weights, n)
    ref_edges, ref_weights = delaunay_mst(X)
    assert np.array_equal(edges, ref_edges)
    assert_lengths_close(weights, ref_weights, X)


@pytest.mark.parametrize("dim", [2, 3])
def test_clustered_set_matches_dense_scipy(dim):
    # clusters of widths 1 to 1e-3 far apart (Qhull merges such near points:
    # the dense matrix is the reference)
    rng = np.random.default_rng(3)
    centres = rng.random((20, dim)) * 1000
    X = np.concatenate([c + rng.normal(scale=10.0 ** -rng.integers(0, 4), size=(100, dim)) for c in centres])
    edges, weights = gridemst.emst(X)
    ref_edges, ref_weights = dense_mst(X)
    assert np.array_equal(edges, ref_edges)
    assert_lengths_close(weights, ref_weights, X)


@pytest.mark.parametrize("dim", [2, 3])
def test_duplicates_have_zero_length_edges_to_their_first_copy(dim):
    base = random_points(60, dim, seed=11)
    X = np.concatenate([base, base[:25], base[:5]])  # 30 duplicates
    edges, weights = gridemst.emst(X)
    check_sorted_tree(edges, weights, len(X))
    assert_lengths_close(weights, prim_weights(X), X)
    first = np.concatenate([np.arange(60), np.arange(25), np.arange(5)])  # each point's first copy
    zero = edges[weights == 0]
    assert np.array_equal(zero[np.argsort(zero[:, 1])], np.stack([first[60:], np.arange(60, 90)], axis=1))


def test_lattice_ties_give_a_tree_of_minimum_weight():
    g = np.arange(12.0)
    X = np.stack(np.meshgrid(g, g, g), axis=-1).reshape(-1, 3)
    edges, weights = gridemst.emst(X)
    check_sorted_tree(edges, weights, len(X))
    assert np.all(weights == 1.0)
    assert len(np.unique(edges, axis=0)) == len(X) - 1


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_points_give_an_empty_tree(n):
    edges, weights = gridemst.emst(np.zeros((n, 3)))
    check_sorted_tree(edges, weights, n)


def test_every_index_and_thread_count_gives_the_same_tree():
    X = random_points(5000, 3, seed=5)
    first = gridemst.emst(X)
    for options in [dict(index="bvh"), dict(threads=1), dict(threads=2, index="bvh"), dict(backend="cpu")]:
        edges, weights = gridemst.emst(X, **options)
        assert np.array_equal(edges, first[0]) and np.array_equal(weights, first[1]), options


def test_float_precision_is_a_tree_of_float_accurate_weight():
    X = random_points(3000, 2, seed=9)
    edges, weights = gridemst.emst(X, precision="float")
    check_sorted_tree(edges, weights, len(X))
    ref = prim_weights(X)
    # float32 squared distances of points in the unit square: errors of about
    # 1e-7 in the squared length, far less in the length
    np.testing.assert_allclose(weights, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.skipif(not has_cuda, reason="no CUDA device")
@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("index", ["grid", "bvh"])
def test_cuda_backend_gives_the_cpu_tree(precision, index):
    for dim in (2, 3):
        X = random_points(30000, dim, seed=dim)
        cpu = gridemst.emst(X, backend="cpu", precision=precision, index=index)
        gpu = gridemst.emst(X, backend="cuda", precision=precision, index=index)
        assert np.array_equal(cpu[0], gpu[0]) and np.array_equal(cpu[1], gpu[1])
