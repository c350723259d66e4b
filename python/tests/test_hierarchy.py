"""linkage and fcluster against scipy.cluster.hierarchy."""
import numpy as np
import pytest
from scipy.cluster import hierarchy

import gridemst
from reference import assert_lengths_close, canonical, components, random_points, without_small


@pytest.mark.parametrize("n,dim", [(2, 2), (3, 3), (200, 2), (2000, 3)])
def test_linkage_is_scipy_single_linkage(n, dim):
    X = random_points(n, dim, seed=n)
    Z = gridemst.linkage(X)
    R = hierarchy.linkage(X, "single")
    assert Z.dtype == np.float64 and Z.shape == (n - 1, 4)
    # distinct random distances: the same merges in the same order
    assert np.array_equal(Z[:, [0, 1, 3]], R[:, [0, 1, 3]])
    assert_lengths_close(Z[:, 2], R[:, 2], X)
    assert gridemst.linkage(X, "single", "euclidean").tolist() == Z.tolist()


def test_linkage_of_duplicates_merges_them_at_zero():
    base = random_points(30, 2, seed=31)
    X = np.concatenate([base, base[:5]])
    Z = gridemst.linkage(X)
    assert np.count_nonzero(Z[:, 2] == 0) == 5
    # a valid hierarchy: SciPy reads it, and cutting it gives the same flat
    # clusters as SciPy's own
    assert hierarchy.is_valid_linkage(Z)
    R = hierarchy.linkage(X, "single")
    for k in (1, 3, 10, 30):
        mine = canonical(hierarchy.fcluster(Z, k, "maxclust"))
        assert np.array_equal(mine, canonical(hierarchy.fcluster(R, k, "maxclust")))


@pytest.mark.parametrize("method,metric", [("complete", "euclidean"), ("single", "cityblock")])
def test_linkage_refuses_other_methods_and_metrics(method, metric):
    with pytest.raises(ValueError, match="single linkage only|Euclidean only"):
        gridemst.linkage(random_points(10, 2), method, metric)


@pytest.mark.parametrize("dim", [2, 3])
def test_fcluster_is_scipy_fcluster(dim):
    X = random_points(1500, dim, seed=41)
    R = hierarchy.linkage(X, "single")
    heights = np.sort(R[:, 2])
    for k in (1, 2, 7, 40, 1400):
        expected = canonical(hierarchy.fcluster(R, k, "maxclust"))
        assert np.array_equal(gridemst.fcluster(X, k, "maxclust"), expected), k
    # SciPy's maxclust gives n - 2 clusters for t = n - 1 and more; ours
    # gives min(t, n), from the tree's lightest edges
    edges, _ = gridemst.emst(X)
    assert np.array_equal(gridemst.fcluster(X, 1499, "maxclust"), components(1500, edges[:1]))
    for k in (1500, 2000):
        assert np.array_equal(gridemst.fcluster(X, k, "maxclust"), np.arange(1500))
    for t in (0.0, heights[100] * 1.0001, heights[-30] * 1.0001, heights[-1] * 2):
        expected = canonical(hierarchy.fcluster(R, t, "distance"))
        assert np.array_equal(gridemst.fcluster(X, t), expected), t


def test_fcluster_distance_keeps_edges_of_exactly_t():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, 3.0], [0.0, 6.0]])
    # lengths 1, 2, 3 exactly
    assert gridemst.fcluster(X, 2.0).tolist() == [0, 0, 0, 1]
    assert gridemst.fcluster(X, np.nextafter(2.0, 0)).tolist() == [0, 0, 1, 2]


def test_fcluster_small_clusters_are_noise():
    X = random_points(800, 2, seed=43)
    edges, weights = gridemst.emst(X)
    t = weights[-40]
    plain = components(len(X), edges[weights <= t])
    for m in (1, 2, 5, 50):
        expected = without_small(plain, m)
        assert np.array_equal(gridemst.fcluster(X, t, min_cluster_size=m), expected), m


def test_maxclust_splits_ties_in_edge_order():
    # a row of equally spaced points: every edge has length 1
    X = np.stack([np.arange(10.0), np.zeros(10)], axis=1)
    for k in (1, 2, 5, 10):
        labels = gridemst.fcluster(X, k, "maxclust")
        assert len(np.unique(labels)) == k
    # SciPy cuts at a distance: all or nothing
    R = hierarchy.linkage(X, "single")
    assert len(np.unique(hierarchy.fcluster(R, 5, "maxclust"))) == 1


@pytest.mark.parametrize("args,kwargs,message", [
    ((1.0, "inconsistent"), {}, "criterion must be 'distance' or 'maxclust'"),
    ((-1.0,), {}, "t must be a distance >= 0"),
    ((float("nan"),), {}, "t must be a distance >= 0"),
    ((2.5, "maxclust"), {}, "t must be an integer >= 1"),
    ((0, "maxclust"), {}, "t must be an integer >= 1"),
    ((1.0,), {"min_cluster_size": 0}, "min_cluster_size must be an integer >= 1"),
])
def test_fcluster_checks_its_arguments(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        gridemst.fcluster(random_points(10, 2), *args, **kwargs)
