"""Points in host memory: checked and made ready for the library."""
import numpy as np


def shape_error(shape):
    return ValueError("X must have shape (n_samples, 2) or (n_samples, 3); got shape %s" % (tuple(shape),))


def host_points(X):
    """X as a C-contiguous float32 or float64 array of shape (n, 2) or (n, 3).

    float32 and float64 arrays are passed as they are when C-contiguous, and
    copied once otherwise (Fortran order, strided views, unaligned or
    byte-swapped data).  Other real types (integers, booleans, float16,
    long double) are copied once to float64.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] not in (2, 3):
        raise shape_error(X.shape)
    if X.dtype.kind not in "biuf":
        raise ValueError("X must hold real numbers; got dtype %s" % X.dtype)
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    return np.require(X, dtype=dtype, requirements=["C", "A"])
