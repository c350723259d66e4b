"""What the CUDA driver (libcuda, installed with the NVIDIA driver) tells:
the device whose memory holds an address (the CUDA Array Interface does not
say), and the end of a producer's work on a stream."""
import ctypes

_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
_driver = []  # the loaded library, or None where there is none, once asked


def _load():
    if not _driver:
        lib = None
        for name in ("libcuda.so.1", "libcuda.so"):
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if lib is not None and lib.cuInit(0) != 0:
            lib = None
        _driver.append(lib)
    return _driver[0]


def pointer_device(address):
    """The ordinal of the CUDA device that holds `address`.

    0 when the driver cannot tell (no driver, or not CUDA memory): the solve
    on device 0 then reports what is wrong.
    """
    lib = _load()
    if lib is None:
        return 0
    ordinal = ctypes.c_int(0)
    rc = lib.cuPointerGetAttribute(ctypes.byref(ordinal), ctypes.c_int(_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL),
                                   ctypes.c_uint64(address))
    return ordinal.value if rc == 0 else 0


def wait_for_stream(stream):
    """Waits until the work queued on `stream` (a CUstream or cudaStream_t
    that a program created, as an integer) is done."""
    lib = _load()
    rc = 0 if lib is None else lib.cuStreamSynchronize(ctypes.c_void_p(stream))
    if rc != 0:
        from ._gridemst import GridemstError

        error = GridemstError("waiting for the points' CUDA stream failed: CUDA driver error %d" % rc)
        error.status = "CUDA error"
        raise error
