"""Points already in GPU memory: CUDA Array Interface and DLPack producers.

A GPU array is passed to the library by address, with no copy; it must be
C-contiguous float32 or float64 of shape (n, 2) or (n, 3).  The solve runs
on the stream the producer names (the CUDA Array Interface's "stream"), so
it follows the producer's work on the points without a synchronization;
a DLPack producer is asked to make its points ready for the legacy default
stream, on which the solve then runs.  (A solve that leaves its tree on the
device waits for a stream the producer made instead: see solve.)
"""
from collections import namedtuple

import numpy as np

from . import _cuda_driver, _gridemst
from ._points import shape_error

LEGACY_DEFAULT_STREAM = 1
PER_THREAD_DEFAULT_STREAM = 2
# no stream (0: the data is ready), and the streams no one destroys
DEFAULT_STREAMS = (0, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM)

# DLPack device types and type codes (dlpack.h)
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_FLOAT = 2

# address, n, dim, float64, device, stream (0: the solve's own), and what
# must stay alive while the points are read
GpuPoints = namedtuple("GpuPoints", "address n dim float64 device stream keep")


def gpu_points(X):
    """X as GpuPoints when it lives in GPU memory, else None."""
    cai = getattr(X, "__cuda_array_interface__", None)
    if cai is not None:
        return _from_cuda_array_interface(X, cai)
    device = getattr(X, "__dlpack_device__", None)
    if device is not None and hasattr(X, "__dlpack__") and device()[0] in (_DL_CUDA, _DL_CUDA_MANAGED):
        return _from_dlpack(X)
    return None


def _check_shape(shape):
    if len(shape) != 2 or shape[1] not in (2, 3):
        raise shape_error(shape)


def _dtype_error(described):
    return ValueError("GPU points must be float32 or float64; got %s. Convert them on the device first, "
                      "e.g. X.astype(cupy.float32)" % described)


def _layout_error(strides):
    return ValueError("GPU points must be C-contiguous (row-major); got strides %s. Copy them on the device "
                      "first, e.g. cupy.ascontiguousarray(X)" % (strides,))


def _c_contiguous(shape, strides, itemsize):
    """Whether byte `strides` (None: C order) lay out `shape` in C order; the
    stride of an axis of length 1 does not matter."""
    if strides is None:
        return True
    expected = itemsize
    for length, stride in zip(reversed(shape), reversed(strides)):
        if length > 1 and stride != expected:
            return False
        expected *= length
    return True


def _from_cuda_array_interface(X, cai):
    shape = tuple(cai["shape"])
    _check_shape(shape)
    dtype = np.dtype(cai["typestr"])
    if not (dtype.kind == "f" and dtype.isnative and dtype.itemsize in (4, 8)):
        raise _dtype_error("typestr %r" % cai["typestr"])
    strides = cai.get("strides")
    if not _c_contiguous(shape, strides, dtype.itemsize):
        raise _layout_error(strides)
    if cai.get("mask") is not None:
        raise ValueError("masked GPU arrays are not supported")
    stream = cai.get("stream")
    if stream == 0:
        raise ValueError("the CUDA Array Interface does not allow stream 0 (use None, 1 or 2)")
    address = cai["data"][0]
    return GpuPoints(address, shape[0], shape[1], dtype.itemsize == 8, _cuda_driver.pointer_device(address),
                     stream or 0, X)


def _from_dlpack(X):
    capsule = X.__dlpack__(stream=LEGACY_DEFAULT_STREAM)
    t = _gridemst.dlpack_tensor(capsule)
    shape = t["shape"]
    _check_shape(shape)
    code, bits, lanes = t["dtype"]
    if code != _DL_FLOAT or bits not in (32, 64) or lanes != 1:
        raise _dtype_error("DLPack type (code %d, bits %d, lanes %d)" % (code, bits, lanes))
    itemsize = bits // 8
    strides = t["strides"]
    if not _c_contiguous(shape, strides and tuple(s * itemsize for s in strides), itemsize):
        raise _layout_error(strides)
    return GpuPoints(t["data"], shape[0], shape[1], bits == 64, t["device_id"], LEGACY_DEFAULT_STREAM,
                     (X, capsule))
