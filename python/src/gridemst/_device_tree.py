"""A tree left in GPU memory, as arrays that CuPy, PyTorch or Numba adopt."""


class DeviceArray:
    """One array of a tree in CUDA device memory, shared without a copy.

    It implements the CUDA Array Interface (version 3): ``cupy.asarray(a)``,
    ``torch.as_tensor(a, device="cuda")`` and ``numba.cuda.as_cuda_array(a)``
    adopt the memory, and keep this object, and with it the whole tree,
    alive as long as they use it.  The arrays are complete when the solve
    returns (the interface's "stream" is None: no synchronization needed).
    The memory is freed when the last reference to the tree's arrays goes:
    work queued on them must be finished by then.

    Attributes
    ----------
    shape : tuple of int
        ``(n_edges,)``.
    dtype : str
        ``"uint32"`` (endpoints) or ``"float64"`` (lengths).
    device : int
        The CUDA device ordinal.
    """

    __slots__ = ("_tree", "_address", "shape", "dtype", "device", "_typestr")

    def __init__(self, tree, address, dtype, typestr, device):
        self._tree = tree  # owns the memory
        self._address = address
        self.shape = (tree.n_edges,)
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
    (length, u, v), as in host results.

    Attributes
    ----------
    u, v : DeviceArray
        uint32 arrays of ``n - 1`` endpoint indices, ``u < v``.
    w : DeviceArray
        float64 array of the edges' Euclidean lengths.
    total_weight : float
        The sum of the lengths.
    device : int
        The CUDA device ordinal that holds the arrays.
    """

    __slots__ = ("u", "v", "w", "total_weight", "device")

    def __init__(self, tree):
        u, v, w, device = tree.device_arrays()
        self.u = DeviceArray(tree, u, "uint32", "<u4", device)
        self.v = DeviceArray(tree, v, "uint32", "<u4", device)
        self.w = DeviceArray(tree, w, "float64", "<f8", device)
        self.total_weight = tree.total_weight
        self.device = device

    def __repr__(self):
        return "DeviceTree(n_edges=%d, device=%d, total_weight=%r)" % (len(self.u), self.device,
                                                                      self.total_weight)
