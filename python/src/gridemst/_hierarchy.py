"""Single-linkage clustering, as scipy.cluster.hierarchy gives it."""
import numbers

from ._solve import options_doc, solve


@options_doc
def linkage(X, method="single", metric="euclidean", *, precision="double", backend="auto", threads=None,
            index="auto", devices=None):
    """Single-linkage hierarchy of 2D or 3D points, in SciPy's form.

    A drop-in for ``scipy.cluster.hierarchy.linkage(X, "single")`` on
    observation vectors: the same matrix, from the minimum spanning tree.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2) or (n_samples, 3)
        The points, as for emst (host or GPU memory).  SciPy's condensed
        distance matrices are not taken.
    method : {"single"}, default="single"
        Only single linkage comes from the tree.
    metric : {"euclidean"}, default="euclidean"
    {options}

    Returns
    -------
    Z : ndarray of shape (n_samples - 1, 4), dtype float64
        Row i merges clusters ``Z[i, 0] < Z[i, 1]`` (points are 0 ..
        n_samples - 1, row i makes cluster n_samples + i) at distance
        ``Z[i, 2]`` into a cluster of ``Z[i, 3]`` points.  Equal distances
        merge in the order of the tree's edges (smaller endpoint first), so
        on tied distances the rows may differ from SciPy's order, never the
        hierarchy they describe.

    Examples
    --------
    >>> import numpy as np, gridemst
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 0.0]])
    >>> gridemst.linkage(X)
    array([[0., 1., 1., 2.],
           [2., 3., 5., 3.]])
    """
    if method != "single":
        raise ValueError("gridemst's linkage is single linkage only; got method=%r" % (method,))
    if metric != "euclidean":
        raise ValueError("gridemst's linkage is Euclidean only; got metric=%r" % (metric,))
    tree = solve(X, precision, backend, threads, index, devices=devices)
    return tree.linkage()


def check_positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError("%s must be an integer >= 1; got %r" % (name, value))
    return int(value)


@options_doc
def fcluster(X, t, criterion="distance", *, min_cluster_size=1, precision="double", backend="auto",
             threads=None, index="auto", devices=None):
    """Flat single-linkage clusters of 2D or 3D points.

    Like ``scipy.cluster.hierarchy.fcluster(linkage(X, "single"), t,
    criterion)``, computed from the minimum spanning tree without the
    linkage matrix.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2) or (n_samples, 3)
        The points, as for emst (host or GPU memory).
    t : float or int
        With ``criterion="distance"``, the linking length: every tree edge
        longer than t is cut, so that points joined by a chain of steps of
        t or less share a cluster (the friends-of-friends groups).  With ``criterion="maxclust"``, the number of
        clusters: the t - 1 longest edges are cut.
    criterion : {"distance", "maxclust"}, default="distance"
    min_cluster_size : int, default=1
        Clusters of fewer points are labelled -1 (noise).
    {options}

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int64
        Cluster numbers 0, 1, ... in the order of each cluster's first
        point, and -1 for noise.  (SciPy numbers from 1, in no set order.)

    Notes
    -----
    Where edges of equal length straddle the cut, "maxclust" still makes
    exactly ``min(t, n_samples)`` clusters, cutting in the tree's edge
    order (length, then smaller endpoint, then larger); SciPy's maxclust
    then makes fewer than t, since it cuts at a distance.

    Examples
    --------
    >>> import numpy as np, gridemst
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 0.0], [5.0, 0.5]])
    >>> gridemst.fcluster(X, 2.0)
    array([0, 0, 1, 1])
    >>> gridemst.fcluster(X, 3, criterion="maxclust")
    array([0, 1, 2, 2])
    """
    min_size = check_positive_int("min_cluster_size", min_cluster_size)
    if criterion == "maxclust":
        k = check_positive_int("t", t)
        tree = solve(X, precision, backend, threads, index, devices=devices)
        return tree.clusters_k(k, min_size)[0]
    if criterion == "distance":
        if not isinstance(t, numbers.Real) or not t >= 0:
            raise ValueError("t must be a distance >= 0; got %r" % (t,))
        tree = solve(X, precision, backend, threads, index, devices=devices)
        return tree.clusters_cut(float(t), min_size)[0]
    raise ValueError("criterion must be 'distance' or 'maxclust'; got %r" % (criterion,))
