"""SingleLinkage: flat single-linkage clusters as a scikit-learn estimator."""
import numbers

import numpy as np

from ._hierarchy import check_positive_int
from ._solve import options_doc, solve

try:
    from sklearn.base import BaseEstimator, ClusterMixin
except ImportError:
    from ._estimator_base import BaseEstimator, ClusterMixin


@options_doc
class SingleLinkage(ClusterMixin, BaseEstimator):
    """Single-linkage clustering of 2D or 3D points, from the exact EMST.

    Gives the clusters of
    ``sklearn.cluster.AgglomerativeClustering(linkage="single")`` with the
    same n_clusters or distance_threshold, in O(n log n) memory and time.
    Set exactly one of n_clusters and distance_threshold.

    Parameters
    ----------
    n_clusters : int or None, default=None
        The number of clusters: the n_clusters - 1 longest tree edges are
        cut (fewer clusters only when there are fewer points).
    distance_threshold : float or None, default=None
        As in scikit-learn, the linkage distance at or above which clusters
        are not merged: every tree edge of this length or longer is cut.
    min_cluster_size : int, default=1
        Clusters of fewer points are labelled -1 (noise).
    {options}

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,), dtype int64
        Cluster numbers 0, 1, ... in the order of each cluster's first
        point, and -1 for noise.
    n_clusters_ : int
        The number of clusters found (noise not counted).
    n_features_in_ : int
        The points' dimension, 2 or 3.

    Examples
    --------
    >>> import numpy as np
    >>> from gridemst import SingleLinkage
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 0.0], [5.0, 0.5], [9.0, 9.0]])
    >>> SingleLinkage(n_clusters=2).fit_predict(X)
    array([0, 0, 0, 0, 1])
    >>> model = SingleLinkage(distance_threshold=2.0, min_cluster_size=2).fit(X)
    >>> model.labels_, model.n_clusters_
    (array([ 0,  0,  1,  1, -1]), 2)
    """

    def __init__(self, n_clusters=None, distance_threshold=None, min_cluster_size=1, *, precision="double",
                 backend="auto", threads=None, index="auto", devices=None):
        self.n_clusters = n_clusters
        self.distance_threshold = distance_threshold
        self.min_cluster_size = min_cluster_size
        self.precision = precision
        self.backend = backend
        self.threads = threads
        self.index = index
        self.devices = devices

    def fit(self, X, y=None):
        """Clusters X.

        Parameters
        ----------
        X : array_like of shape (n_samples, 2) or (n_samples, 3)
            The points, as for emst (host or GPU memory).
        y : None
            Ignored.

        Returns
        -------
        self : SingleLinkage
        """
        if (self.n_clusters is None) == (self.distance_threshold is None):
            raise ValueError("set exactly one of n_clusters and distance_threshold; got n_clusters=%r, "
                             "distance_threshold=%r" % (self.n_clusters, self.distance_threshold))
        min_size = check_positive_int("min_cluster_size", self.min_cluster_size)
        if self.n_clusters is not None:
            k = check_positive_int("n_clusters", self.n_clusters)
        else:
            t = self.distance_threshold
            if not isinstance(t, numbers.Real) or not t >= 0:
                raise ValueError("distance_threshold must be a distance >= 0; got %r" % (t,))
        tree = solve(X, self.precision, self.backend, self.threads, self.index, devices=self.devices)
        if self.n_clusters is not None:
            labels, count = tree.clusters_k(k, min_size)
        elif t > 0:
            # edges of length >= t are cut: cut above the next double below t
            labels, count = tree.clusters_cut(float(np.nextafter(t, 0.0)), min_size)
        else:
            # every edge is cut, the zero-length ones of duplicates too
            labels, count = tree.clusters_k(max(tree.n_points, 1), min_size)
        self.labels_ = labels
        self.n_clusters_ = count
        self.n_features_in_ = tree.dim
        return self
