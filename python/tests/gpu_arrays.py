"""GPU memory for the tests without CuPy or PyTorch: the CUDA runtime
through ctypes, and minimal producers of the CUDA Array Interface and of
DLPack over memory the tests allocate."""
import ctypes
import os

import numpy as np

_H2D, _D2H = 1, 2  # cudaMemcpyKind


def load_runtime():
    """The CUDA runtime library (libcudart), or None where there is none."""
    names = [os.path.join(home, "lib64", "libcudart.so")
             for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda") if home]
    for name in names + ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]:
        try:
            return Runtime(ctypes.CDLL(name))
        except OSError:
            continue
    return None


class Runtime:
    def __init__(self, lib):
        self.lib = lib

    def _check(self, rc, what):
        if rc != 0:
            raise RuntimeError("%s failed: CUDA error %d" % (what, rc))

    def to_device(self, array):
        """A copy of a host array in device memory: its address (free it)."""
        array = np.ascontiguousarray(array)
        address = ctypes.c_void_p()
        self._check(self.lib.cudaMalloc(ctypes.byref(address), ctypes.c_size_t(max(array.nbytes, 1))), "cudaMalloc")
        self._check(self.lib.cudaMemcpy(address, array.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(array.nbytes),
                                        _H2D), "cudaMemcpy")
        return address.value

    def to_host(self, cai):
        """A host copy of what a __cuda_array_interface__ dict describes."""
        out = np.empty(cai["shape"], dtype=np.dtype(cai["typestr"]))
        stream = cai.get("stream")
        if stream:
            self._check(self.lib.cudaStreamSynchronize(ctypes.c_void_p(stream)), "cudaStreamSynchronize")
        if out.nbytes:
            self._check(self.lib.cudaMemcpy(out.ctypes.data_as(ctypes.c_void_p), ctypes.c_void_p(cai["data"][0]),
                                            ctypes.c_size_t(out.nbytes), _D2H), "cudaMemcpy")
        return out

    def free(self, address):
        self._check(self.lib.cudaFree(ctypes.c_void_p(address)), "cudaFree")

    def create_stream(self):
        stream = ctypes.c_void_p()
        self._check(self.lib.cudaStreamCreate(ctypes.byref(stream)), "cudaStreamCreate")
        return stream.value

    def destroy_stream(self, stream):
        self._check(self.lib.cudaStreamDestroy(ctypes.c_void_p(stream)), "cudaStreamDestroy")


class CudaArray:
    """Exposes __cuda_array_interface__ (version 3) over an address."""

    def __init__(self, address, shape, typestr, strides=None, stream=None, **extra):
        self.__cuda_array_interface__ = dict(shape=tuple(shape), typestr=typestr, data=(address, False),
                                             strides=strides, version=3, stream=stream, **extra)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DLPackArray:
    """Exposes __dlpack__ and __dlpack_device__ over an address (device
    type 2: CUDA).  The tensor lives as long as this object; the capsules
    it hands out free nothing.  `streams` records what consumers asked."""

    def __init__(self, address, shape, bits=64, code=2, device=(2, 0), strides=None):
        self.device = device
        self.streams = []
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        self._strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        t = _DLTensor(address, _DLDevice(*device), len(shape), _DLDataType(code, bits, 1), self._shape,
                      self._strides, 0)
        self._managed = _DLManagedTensor(t, None, None)

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _capsule_new(ctypes.addressof(self._managed), b"dltensor", None)
