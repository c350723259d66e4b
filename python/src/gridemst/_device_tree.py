"""A tree left in GPU memory, as arrays that CuPy, PyTorch or Numba adopt."""


class DeviceArray:
    """One array of a tree in CUDA device memory, shared without a copy.

    It implements the CUDA Array Interface (version 3): ``cupy.asarray(a)``,
    ``torch.as_tensor(a, device="cuda")`` and ``numba.cuda.as_cuda_array(a)``
    adopt the memory, and keep this object, and with it the whole tree,
    alive as long as they use it.  The arrays are complete when the solve
    returns (the interface's "stream" is None: no synchronization needed).
    The memory is freed when the last reference to the tree's arrays goes:
    work queued on them must be finished by then.  It belongs to its device:
    use it with that device current.

    Attributes
    ----------
    shape : tuple of int
        ``(n_edges,)``: the edges of its tree, or of its share.
    dtype : str
        ``"uint32"`` (endpoints) or ``"float64"`` (lengths).
    device : int
        The CUDA device ordinal.
    """

    __slots__ = ("_tree", "_address", "shape", "dtype", "device", "_typestr")

    def __init__(self, tree, address, n_edges, dtype, typestr, device):
        self._tree = tree  # owns the memory
        self._address = address
        self.shape = (n_edges,)
        self.dtype = dtype
        self._typestr = typestr
        self.device = device

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": self._typestr,
            "data": (self._address, False),
            "strides": None,
            "version": 3,
            "stream": None,
        }

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return "DeviceArray(shape=%s, dtype=%s, device=%d)" % (self.shape, self.dtype, self.device)


class DeviceTree:
    """The minimum spanning tree in CUDA device memory.

    Returned by ``emst(..., result="device")``.  Edges are sorted by
    (length, u, v), as in host results.  A solve over several GPUs
    (``devices=``) leaves the tree spread over them: ``emst`` then returns
    a list of DeviceTrees, one a device, each holding the next run of the
    sorted edges in that device's memory.

    Attributes
    ----------
    u, v : DeviceArray
        uint32 arrays of endpoint indices, ``u < v``: the tree's ``n - 1``
        edges, or the share's.
    w : DeviceArray
        float64 array of the edges' Euclidean lengths.
    total_weight : float
        The sum of the lengths of the whole tree (every share's).
    device : int
        The CUDA device ordinal that holds the arrays.
    first : int
        The position of the first edge of u, v and w in the whole sorted
        tree: 0 for a tree on one device.
    """

    __slots__ = ("u", "v", "w", "total_weight", "device", "first")

    def __init__(self, tree, share=None):
        """The whole device tree of one device (a _gridemst.Tree), or its
        share (u, v, w addresses, device, first, count) from tree.shares()."""
        if share is None:
            u, v, w, device = tree.device_arrays()
            share = (u, v, w, device, 0, tree.n_edges)
        u, v, w, device, first, n_edges = share
        self.u = DeviceArray(tree, u, n_edges, "uint32", "<u4", device)
        self.v = DeviceArray(tree, v, n_edges, "uint32", "<u4", device)
        self.w = DeviceArray(tree, w, n_edges, "float64", "<f8", device)
        self.total_weight = tree.total_weight
        self.device = device
        self.first = first

    def __repr__(self):
        return "DeviceTree(n_edges=%d, first=%d, device=%d, total_weight=%r)" % (len(self.u), self.first,
                                                                                self.device, self.total_weight)
