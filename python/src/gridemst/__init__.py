"""gridemst: exact Euclidean minimum spanning trees of 2D and 3D points.

On NVIDIA GPUs (CUDA) and CPUs (OpenMP), with single-linkage clustering
built on the tree.  Points may be numpy arrays (or anything numpy converts)
or GPU arrays (CuPy, PyTorch, Numba, JAX).

emst                   the tree as (edges, weights), a DeviceTree, or a list of
                       them (one a GPU of a solve over several)
minimum_spanning_tree  the tree as a scipy.sparse array
linkage                SciPy's single-linkage matrix
fcluster               flat clusters by distance or count
SingleLinkage          a scikit-learn clusterer
"""
from ._device_tree import DeviceArray, DeviceTree
from ._gridemst import GridemstError, cuda_device_count, library_version
from ._hierarchy import fcluster, linkage
from ._single_linkage import SingleLinkage
from ._tree import emst, minimum_spanning_tree

__version__ = library_version()

__all__ = ["emst", "minimum_spanning_tree", "linkage", "fcluster", "SingleLinkage", "DeviceTree", "DeviceArray",
           "GridemstError", "cuda_device_count", "library_version"]
