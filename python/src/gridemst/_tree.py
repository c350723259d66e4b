"""The Euclidean minimum spanning tree: an edge list, or a sparse matrix."""
import numpy as np

from ._device_tree import DeviceTree
from ._solve import options_doc, solve


@options_doc
def emst(X, *, precision="double", backend="auto", threads=None, index="auto", result="host",
         devices=None):
    """Euclidean minimum spanning tree of 2D or 3D points.

    The tree is exact and deterministic: edges are ordered by (length,
    smaller index, larger index), under which the minimum spanning tree is
    unique, so every backend, index and run gives the same edges.  Exact
    duplicate points are joined to their first copy by zero-length edges.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2) or (n_samples, 3)
        The points: float32 or float64 (other real types are converted to
        float64), in any memory order.  An array in GPU memory (CuPy,
        PyTorch, Numba, JAX: ``__cuda_array_interface__`` or ``__dlpack__``)
        is read where it is, after the work queued on it on the producer's
        stream; it must then be C-contiguous float32 or float64.
    {options}
    result : {"host", "device"}, default="host"
        Where the tree goes: numpy arrays, or a DeviceTree in the memory of
        the GPU that solved (CUDA only; no fall back to the CPU).  With
        devices, the tree stays spread over the GPUs that solved it.

    Returns
    -------
    edges : ndarray of shape (n_samples - 1, 2), dtype int64
        Endpoints, ``edges[:, 0] < edges[:, 1]``, sorted by (length, u, v)
        like the command line's CSV output.  Empty for fewer than 2 points.
    weights : ndarray of shape (n_samples - 1,), dtype float64
        The edges' Euclidean lengths, in increasing order.

    With ``result="device"``, a DeviceTree (arrays u, v, w) instead.  With
    ``result="device"`` and devices, a list of DeviceTrees, one a device in
    the order of devices (empty for fewer than 2 points): share k holds the
    sorted tree's edges ``first`` to ``first + len(u) - 1`` in the memory of
    its ``device``, and is to be used with that device current.

    Raises
    ------
    ValueError
        For a shape other than (n, 2) or (n, 3), NaN or infinite
        coordinates, or an unknown option.
    MemoryError
        When the job does not fit in host or device memory.
    GridemstError
        No usable CUDA device for a GPU request, a CUDA error.

    Examples
    --------
    >>> import numpy as np, gridemst
    >>> X = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 3.0], [0.0, 0.5]])
    >>> edges, weights = gridemst.emst(X)
    >>> edges
    array([[0, 3],
           [1, 2],
           [0, 1]])
    >>> weights
    array([0.5, 3. , 4. ])
    """
    tree = solve(X, precision, backend, threads, index, result, devices)
    if result == "host":
        return tree.edges()
    if devices is None:
        return DeviceTree(tree)
    return [DeviceTree(tree, share) for share in tree.shares()]


@options_doc
def minimum_spanning_tree(X, *, precision="double", backend="auto", threads=None, index="auto",
                          devices=None):
    """Euclidean minimum spanning tree as a sparse matrix.

    Like ``scipy.sparse.csgraph.minimum_spanning_tree`` on the points'
    dense distance matrix, in O(n log n) memory and time.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2) or (n_samples, 3)
        The points, as for emst (host or GPU memory).
    {options}

    Returns
    -------
    tree : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The edge (u, v) of length w as ``tree[u, v] = w`` with u < v (upper
        triangular), n_samples - 1 stored entries.  The zero-length edges
        that join duplicate points are stored entries of value 0: they count
        in ``tree.nnz`` and in ``scipy.sparse.csgraph.connected_components``,
        but SciPy's arithmetic and csgraph's own minimum_spanning_tree drop
        explicit zeros, and with them the duplicates' edges; emst gives
        every edge.

    Notes
    -----
    Needs SciPy (1.8 or later, for sparse arrays).

    Examples
    --------
    >>> import numpy as np, gridemst
    >>> X = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 3.0], [0.0, 0.5]])
    >>> gridemst.minimum_spanning_tree(X).toarray()
    array([[0. , 4. , 0. , 0.5],
           [0. , 0. , 3. , 0. ],
           [0. , 0. , 0. , 0. ],
           [0. , 0. , 0. , 0. ]])
    """
    tree = solve(X, precision, backend, threads, index, devices=devices)
    n = tree.n_points
    edges, weights = tree.edges()
    from scipy.sparse import csr_array

    # rows in (u, v) order; the constructor keeps zeros as stored entries
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(edges[:, 0], minlength=n), out=indptr[1:])
    return csr_array((weights[order], edges[order, 1], indptr), shape=(n, n))
