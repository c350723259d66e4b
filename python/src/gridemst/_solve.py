"""One solve from the caller's points and options: the library's tree."""
import numbers

from . import _cuda_driver, _gridemst
from ._gpu_points import DEFAULT_STREAMS, gpu_points
from ._points import host_points

# The options every function takes, documented once for the docstrings.
OPTIONS_DOC = """\
    precision : {"double", "float"}, default="double"
        Working precision of the distances.  "float" is exact for the
        float32-rounded squared distances, and faster.
    backend : {"auto", "cpu", "cuda"}, default="auto"
        "auto" runs on the GPU when a CUDA device is present (and the job
        fits in its memory), else on the CPU.
    threads : int or None, default=None
        CPU threads (cpu backend); None for OpenMP's default
        (``OMP_NUM_THREADS`` or one per CPU).
    index : {"auto", "grid", "bvh"}, default="auto"
        Spatial index of the nearest-neighbour searches: the uniform grid
        or a linear BVH.  All give the same tree.  "auto" is the grid on
        the CPU; on the GPU the BVH below 100,000 points or where the
        points lie along curves, on surfaces or in clusters, else the
        grid.
    devices : None, "all" or sequence of int, default=None
        Solve over several GPUs of this host together: "all", or their
        CUDA device numbers (one named twice holds two parts).  The
        identical tree, from points in host memory.
        None: one GPU (device 0) or the CPU, as backend says."""


def options_doc(function):
    """Puts the options' documentation where the docstring has {options}."""
    function.__doc__ = function.__doc__.replace("    {options}", OPTIONS_DOC)
    return function


def _threads(threads):
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError("threads must be None or an integer >= 1; got %r" % (threads,))
    return int(threads)


def _devices(devices):
    """The devices option as the extension takes it: a tuple of device
    numbers, and whether every device is meant."""
    if devices is None:
        return (), False
    if isinstance(devices, str):
        if devices != "all":
            raise ValueError("devices must be None, 'all' or a sequence of device numbers; got %r" % (devices,))
        return (), True
    try:
        numbers_given = tuple(devices)
    except TypeError:
        raise ValueError("devices must be None, 'all' or a sequence of device numbers; got %r"
                         % (devices,)) from None
    for d in numbers_given:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 0:
            raise ValueError("devices must hold device numbers (integers >= 0); got %r" % (d,))
    if not numbers_given:
        raise ValueError("devices must name at least one device; got %r" % (devices,))
    return tuple(int(d) for d in numbers_given), False


def solve(X, precision="double", backend="auto", threads=None, index="auto", result="host", devices=None):
    """The library's tree of X (host or GPU points), a _gridemst.Tree."""
    if result not in ("host", "device"):
        raise ValueError("result must be 'host' or 'device'; got %r" % (result,))
    options = dict(precision=precision, backend=backend, index=index, threads=_threads(threads),
                   device_result=result == "device")
    gpu = gpu_points(X)
    if devices is not None:
        ordinals, every = _devices(devices)
        if gpu is not None:
            raise ValueError("devices takes points in host memory; got an array in GPU memory")
        return _gridemst.solve(host_points(X), devices=ordinals, all_devices=every, **options)
    if gpu is None:
        return _gridemst.solve(host_points(X), **options)
    stream = gpu.stream
    if result == "device" and stream not in DEFAULT_STREAMS:
        # A tree left on the device is freed in the order of the stream it
        # was made on, which must outlive it; a stream the producer made may
        # not: wait for it, and solve on a stream of the solve's own.
        _cuda_driver.wait_for_stream(stream)
        stream = 0
    return _gridemst.solve_device(gpu.address, gpu.n, gpu.dim, gpu.float64, gpu.device, stream, **options)
