"""SingleLinkage against scikit-learn's AgglomerativeClustering, and its
estimator interface (scikit-learn's, or the package's own without it)."""
import numpy as np
import pytest

import gridemst
from gridemst import SingleLinkage
from gridemst import _estimator_base
from reference import components, random_points, without_small

try:
    from sklearn.base import clone
    from sklearn.cluster import AgglomerativeClustering
    has_sklearn = True
except ImportError:
    has_sklearn = False
needs_sklearn = pytest.mark.skipif(not has_sklearn, reason="scikit-learn is not installed")


@needs_sklearn
@pytest.mark.parametrize("dim", [2, 3])
def test_n_clusters_as_agglomerative_clustering(dim):
    X = random_points(1200, dim, seed=51)
    for k in (1, 2, 9, 60):
        expected = AgglomerativeClustering(n_clusters=k, linkage="single").fit(X).labels_
        model = SingleLinkage(n_clusters=k).fit(X)
        assert np.array_equal(model.labels_, without_small(expected, 1)), k
        assert model.n_clusters_ == k and model.n_features_in_ == dim


@needs_sklearn
def test_distance_threshold_as_agglomerative_clustering():
    X = random_points(1200, 2, seed=52)
    _, weights = gridemst.emst(X)
    # thresholds between edge lengths, where rounding cannot decide
    for t in ((weights[-10] + weights[-11]) / 2, (weights[500] + weights[501]) / 2, weights[-1] * 2):
        reference = AgglomerativeClustering(n_clusters=None, distance_threshold=t, linkage="single").fit(X)
        model = SingleLinkage(distance_threshold=t).fit(X)
        assert np.array_equal(model.labels_, without_small(reference.labels_, 1)), t
        assert model.n_clusters_ == reference.n_clusters_


def test_distance_threshold_cuts_edges_of_exactly_that_length():
    # scikit-learn's rule: clusters at distance_threshold or more apart are
    # not merged (fcluster's distance keeps such edges)
    X = random_points(600, 3, seed=53)
    edges, weights = gridemst.emst(X)
    for i in (0, 300, 598):
        t = weights[i]
        expected = components(len(X), edges[weights < t])
        assert np.array_equal(SingleLinkage(distance_threshold=t).fit_predict(X), expected), i


def test_zero_threshold_separates_duplicates_too():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    assert SingleLinkage(distance_threshold=0).fit_predict(X).tolist() == [0, 1, 2]
    assert SingleLinkage(distance_threshold=1e-9).fit_predict(X).tolist() == [0, 0, 1]


def test_min_cluster_size_makes_small_clusters_noise():
    X = random_points(900, 2, seed=54)
    edges, weights = gridemst.emst(X)
    plain = components(len(X), edges[:-49])  # 50 clusters: the 49 longest edges cut
    for m in (2, 4, 30):
        model = SingleLinkage(n_clusters=50, min_cluster_size=m).fit(X)
        expected = without_small(plain, m)
        assert np.array_equal(model.labels_, expected), m
        assert model.n_clusters_ == expected.max() + 1


def test_fit_predict_and_options_give_the_same_labels():
    X = random_points(700, 3, seed=55)
    labels = SingleLinkage(n_clusters=5).fit(X).labels_
    assert np.array_equal(SingleLinkage(n_clusters=5).fit_predict(X), labels)
    assert np.array_equal(SingleLinkage(n_clusters=5, index="bvh", threads=1).fit_predict(X), labels)


@pytest.mark.parametrize("params,message", [
    (dict(), "set exactly one of n_clusters and distance_threshold"),
    (dict(n_clusters=2, distance_threshold=1.0), "set exactly one of n_clusters and distance_threshold"),
    (dict(n_clusters=0), "n_clusters must be an integer >= 1; got 0"),
    (dict(n_clusters=2.0), "n_clusters must be an integer >= 1; got 2.0"),
    (dict(distance_threshold=-0.5), "distance_threshold must be a distance >= 0; got -0.5"),
    (dict(n_clusters=3, min_cluster_size=0), "min_cluster_size must be an integer >= 1; got 0"),
    (dict(n_clusters=3, backend="gpu"), "backend must be one of"),
])
def test_bad_parameters_are_named_at_fit(params, message):
    model = SingleLinkage(**params)  # scikit-learn's rule: constructors do not check
    with pytest.raises(ValueError, match=message):
        model.fit(random_points(10, 2))


PARAMS = dict(n_clusters=None, distance_threshold=None, min_cluster_size=1, precision="double", backend="auto",
              threads=None, index="auto", devices=None)


def test_get_params_and_set_params():
    model = SingleLinkage(n_clusters=3)
    assert model.get_params() == dict(PARAMS, n_clusters=3)
    assert model.set_params(n_clusters=None, distance_threshold=0.5) is model
    assert model.get_params() == dict(PARAMS, distance_threshold=0.5)
    with pytest.raises(ValueError):
        model.set_params(linkage="complete")


@needs_sklearn
def test_clone_and_sklearn_base_classes():
    from sklearn.base import BaseEstimator, ClusterMixin
    model = SingleLinkage(n_clusters=4, index="bvh")
    assert isinstance(model, BaseEstimator) and isinstance(model, ClusterMixin)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()


def test_own_base_classes_behave_as_scikit_learn_describes():
    class Estimator(_estimator_base.ClusterMixin, _estimator_base.BaseEstimator):
        def __init__(self, a=1, *, b="x"):
            self.a = a
            self.b = b

        def fit(self, X, y=None):
            self.labels_ = np.zeros(len(X), dtype=np.int64) + self.a
            return self

    e = Estimator(a=2)
    assert e.get_params() == {"a": 2, "b": "x"}
    assert e.set_params(b="y") is e and e.b == "y"
    assert repr(e) == "Estimator(a=2, b='y')"
    with pytest.raises(ValueError, match="invalid parameter 'c'"):
        e.set_params(c=1)
    assert e.fit_predict(np.zeros((3, 2))).tolist() == [2, 2, 2]
    assert e._estimator_type == "clusterer"
