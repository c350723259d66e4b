"""GPU points (CUDA Array Interface, DLPack) and trees left in GPU memory.

The checks of a GPU array's form run everywhere; solves on the GPU skip
where no CUDA device (or no CUDA runtime library) is present."""
import ctypes

import numpy as np
import pytest

import gridemst
from gridemst import _gridemst
from gpu_arrays import CudaArray, DLPackArray, load_runtime
from reference import random_points

has_cuda = gridemst.cuda_device_count() > 0
BOGUS = 0x10000  # an address never read: the form is refused first


@pytest.fixture(scope="module")
def cuda():
    if not has_cuda:
        pytest.skip("no CUDA device")
    runtime = load_runtime()
    if runtime is None:
        pytest.skip("no CUDA runtime library (libcudart.so) to allocate with")
    return runtime


@pytest.fixture
def on_device(cuda):
    """Copies host arrays to device memory, freed after the test."""
    addresses = []

    def put(array):
        addresses.append(cuda.to_device(array))
        return addresses[-1]

    yield put
    for a in addresses:
        cuda.free(a)


def same_tree(a, b):
    return np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def clustered_points(n, dim, seed):
    """n points in 50 clusters of widths 1 to 1e-3, far apart."""
    rng = np.random.default_rng(seed)
    centres = rng.random((50, dim)) * 1000
    widths = 10.0 ** -rng.integers(0, 4, size=50)
    cluster = rng.integers(0, 50, size=n)
    return centres[cluster] + rng.normal(size=(n, dim)) * widths[cluster, None]


def shares_to_host(cuda, shares):
    """The (u, v, w) of DeviceTrees left on several devices, each share
    copied to host memory with its device current: its memory comes from
    its device's pool, which other devices may not map."""
    current = ctypes.c_int()
    assert cuda.lib.cudaGetDevice(ctypes.byref(current)) == 0
    copies = []
    try:
        for share in shares:
            assert cuda.lib.cudaSetDevice(share.device) == 0
            copies.append([cuda.to_host(a.__cuda_array_interface__) for a in (share.u, share.v, share.w)])
    finally:
        cuda.lib.cudaSetDevice(current.value)
    return [np.concatenate(arrays) for arrays in zip(*copies)]


def check_shares(cuda, shares, X, devices):
    """shares, emst's list of DeviceTrees on devices (their ordinals in
    order), hold the CPU's tree of X edge for edge."""
    cpu = _gridemst.solve(X, backend="cpu")
    edges, weights = cpu.edges()
    assert isinstance(shares, list) and all(isinstance(s, gridemst.DeviceTree) for s in shares)
    assert [s.device for s in shares] == list(devices)
    counts = [len(s.u) for s in shares]
    assert sum(counts) == len(X) - 1
    assert [s.first for s in shares] == np.cumsum([0] + counts[:-1]).tolist()
    for s, count in zip(shares, counts):
        assert s.total_weight == cpu.total_weight
        for array, typestr in ((s.u, "<u4"), (s.v, "<u4"), (s.w, "<f8")):
            cai = array.__cuda_array_interface__
            assert array.device == s.device and cai["shape"] == (count,) and cai["typestr"] == typestr
    u, v, w = shares_to_host(cuda, shares)
    assert np.array_equal(u, edges[:, 0]) and np.array_equal(v, edges[:, 1]) and np.array_equal(w, weights)


# ---------------------------------------------------------------- forms, everywhere

@pytest.mark.parametrize("interface,message", [
    (dict(shape=(10, 4), typestr="<f8"), r"got shape \(10, 4\)"),
    (dict(shape=(10,), typestr="<f8"), r"got shape \(10,\)"),
    (dict(shape=(10, 3), typestr="<i8"), "float32 or float64; got typestr '<i8'"),
    (dict(shape=(10, 3), typestr=">f8"), "float32 or float64; got typestr '>f8'"),
    (dict(shape=(10, 3), typestr="<f2"), "float32 or float64"),
    (dict(shape=(10, 3), typestr="<f8", strides=(48, 8)), r"C-contiguous \(row-major\); got strides \(48, 8\)"),
    (dict(shape=(10, 3), typestr="<f8", strides=(8, 80)), "C-contiguous"),
    (dict(shape=(10, 3), typestr="<f8", mask=object()), "masked GPU arrays"),
    (dict(shape=(10, 3), typestr="<f8", stream=0), "does not allow stream 0"),
])
def test_cuda_array_interface_of_the_wrong_form_is_refused(interface, message):
    with pytest.raises(ValueError, match=message):
        gridemst.emst(CudaArray(BOGUS, **interface))


@pytest.mark.parametrize("kwargs,message", [
    (dict(shape=(10, 3), bits=32, code=0), r"float32 or float64; got DLPack type \(code 0, bits 32, lanes 1\)"),
    (dict(shape=(10, 3), bits=16), "float32 or float64"),
    (dict(shape=(10, 3), strides=(6, 1)), r"C-contiguous \(row-major\); got strides \(6, 1\)"),
    (dict(shape=(10, 5)), r"got shape \(10, 5\)"),
])
def test_dlpack_of_the_wrong_form_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gridemst.emst(DLPackArray(BOGUS, **kwargs))


def test_dlpack_capsules_are_read_as_dlpack_describes_them():
    X = np.arange(30.0).reshape(10, 3)
    view = X[::2, :2]
    t = _gridemst.dlpack_tensor(view.__dlpack__())
    assert t["data"] == view.ctypes.data
    assert t["device_type"] == 1 and t["device_id"] == 0
    assert t["shape"] == (5, 2) and t["strides"] == (6, 1)
    assert t["dtype"] == (2, 64, 1)
    with pytest.raises(TypeError, match="DLPack capsule"):
        _gridemst.dlpack_tensor(object())


@pytest.mark.parametrize("result", ["host", "device"])
def test_several_devices_take_host_points_only(result):
    with pytest.raises(ValueError, match="devices takes points in host memory"):
        gridemst.emst(CudaArray(BOGUS, (10, 3), "<f8"), devices="all", result=result)


@pytest.mark.parametrize("devices,message", [
    ("every", "devices must be None, 'all' or a sequence of device numbers; got 'every'"),
    ([0, -1], r"devices must hold device numbers \(integers >= 0\); got -1"),
    ([], r"devices must name at least one device; got \[\]"),
])
def test_bad_devices_are_named_for_a_tree_left_on_them(devices, message):
    with pytest.raises(ValueError, match=message):
        gridemst.emst(random_points(10, 2), devices=devices, result="device")


def test_a_tree_left_on_several_devices_needs_the_cuda_backend():
    with pytest.raises(ValueError, match="needs the cuda backend"):
        gridemst.emst(random_points(10, 2), devices=[0, 1], backend="cpu", result="device")


@pytest.mark.skipif(has_cuda, reason="a CUDA device is present")
def test_a_tree_left_on_several_devices_without_a_device_raises_gridemst_error():
    for devices in ["all", [0, 1]]:
        with pytest.raises(gridemst.GridemstError) as caught:
            gridemst.emst(random_points(10, 2), devices=devices, result="device")
        assert caught.value.status in ("unsupported", "no CUDA device")


def test_host_trees_have_no_shares():
    tree = _gridemst.solve(random_points(10, 2))
    with pytest.raises(ValueError, match="the tree is in host memory"):
        tree.shares()


@pytest.mark.skipif(has_cuda, reason="a CUDA device is present")
def test_gpu_points_without_a_device_raise_gridemst_error():
    with pytest.raises(gridemst.GridemstError) as caught:
        gridemst.emst(CudaArray(BOGUS, (10, 3), "<f8"))
    assert caught.value.status in ("unsupported", "no CUDA device")


# ---------------------------------------------------------------- solves on the GPU

@pytest.mark.parametrize("dtype,typestr", [(np.float32, "<f4"), (np.float64, "<f8")])
@pytest.mark.parametrize("dim", [2, 3])
def test_cuda_array_interface_points_give_the_host_tree(on_device, dtype, typestr, dim):
    X = random_points(20000, dim, seed=dim).astype(dtype)
    address = on_device(X)
    expected = gridemst.emst(X, backend="cpu")
    assert same_tree(gridemst.emst(CudaArray(address, X.shape, typestr)), expected)
    assert same_tree(gridemst.emst(CudaArray(address, X.shape, typestr, stream=1)), expected)


def test_the_producers_stream_is_followed_and_need_not_outlive_the_tree(cuda, on_device):
    X = random_points(50000, 3, seed=3)
    edges, weights = gridemst.emst(X, backend="cpu")
    stream = cuda.create_stream()
    points = CudaArray(on_device(X), X.shape, "<f8", stream=stream)
    assert same_tree(gridemst.emst(points), (edges, weights))
    tree = gridemst.emst(points, result="device")
    cuda.destroy_stream(stream)
    assert tree.w.__cuda_array_interface__["stream"] is None
    assert np.array_equal(cuda.to_host(tree.w.__cuda_array_interface__), weights)
    del tree


def test_dlpack_points_give_the_host_tree_on_the_legacy_stream(cuda, on_device):
    X = random_points(20000, 2, seed=4).astype(np.float32)
    producer = DLPackArray(on_device(X), X.shape, bits=32)
    edges, weights = gridemst.emst(X, backend="cpu")
    assert same_tree(gridemst.emst(producer), (edges, weights))
    tree = gridemst.emst(producer, result="device")
    assert producer.streams == [1, 1]
    assert np.array_equal(cuda.to_host(tree.v.__cuda_array_interface__), edges[:, 1])


@pytest.mark.parametrize("host_points", [False, True])
def test_device_results_hold_the_host_tree(cuda, on_device, host_points):
    X = random_points(30000, 3, seed=5)
    points = X if host_points else CudaArray(on_device(X), X.shape, "<f8")
    tree = gridemst.emst(points, result="device")
    edges, weights = gridemst.emst(X, backend="cpu")
    assert isinstance(tree, gridemst.DeviceTree) and tree.device == 0
    for array, typestr in ((tree.u, "<u4"), (tree.v, "<u4"), (tree.w, "<f8")):
        cai = array.__cuda_array_interface__
        assert cai["version"] == 3 and cai["shape"] == (len(X) - 1,) and cai["typestr"] == typestr
        assert cai["strides"] is None and cai["data"][0] != 0
    u, v, w = tree.u, tree.v, tree.w
    del tree  # each array keeps the whole result alive
    assert np.array_equal(cuda.to_host(u.__cuda_array_interface__), edges[:, 0])
    assert np.array_equal(cuda.to_host(v.__cuda_array_interface__), edges[:, 1])
    assert np.array_equal(cuda.to_host(w.__cuda_array_interface__), weights)
    assert float(np.sum(weights)) == pytest.approx(gridemst.emst(X, result="device").total_weight, rel=1e-12)


def test_device_results_of_fewer_than_two_points_are_empty(cuda):
    tree = gridemst.emst(np.zeros((1, 2)), result="device")
    assert tree.u.__cuda_array_interface__["shape"] == (0,) and len(tree.w) == 0 and tree.first == 0


def test_one_device_of_devices_leaves_a_list_of_one_tree(cuda):
    X = random_points(30000, 3, seed=9)
    shares = gridemst.emst(X, devices=[0], result="device")
    check_shares(cuda, shares, X, [0])
    assert shares[0].first == 0


def test_clustering_takes_gpu_points(on_device):
    X = random_points(5000, 2, seed=6)
    points = CudaArray(on_device(X), X.shape, "<f8")
    assert np.array_equal(gridemst.linkage(points), gridemst.linkage(X))
    assert np.array_equal(gridemst.fcluster(points, 9, "maxclust"), gridemst.fcluster(X, 9, "maxclust"))
    assert np.array_equal(gridemst.SingleLinkage(n_clusters=9).fit_predict(points),
                          gridemst.SingleLinkage(n_clusters=9).fit_predict(X))


def several_device_lists():
    """Device lists of several parts: every device and two in reverse
    order, or on one GPU its device named twice."""
    gpus = gridemst.cuda_device_count()
    return ["all", [1, 0]] if gpus >= 2 else [[0, 0]] if gpus == 1 else []


@pytest.mark.skipif(gridemst.cuda_device_count() < 1, reason="no CUDA device")
@pytest.mark.parametrize("devices", several_device_lists())
def test_several_devices_give_the_same_tree(devices):
    X = random_points(200000, 3, seed=7)
    got = gridemst.emst(X, devices=devices)
    assert same_tree(got, gridemst.emst(X, backend="cpu"))
    labels = gridemst.fcluster(X, 0.01, devices=devices)
    assert np.array_equal(labels, gridemst.fcluster(X, 0.01, backend="cpu"))


@pytest.mark.skipif(gridemst.cuda_device_count() < 1, reason="no CUDA device")
@pytest.mark.parametrize("devices", several_device_lists())
@pytest.mark.parametrize("clustered", [False, True])
def test_several_devices_leave_the_tree_on_them_in_shares(cuda, devices, clustered):
    X = clustered_points(200000, 3, seed=8) if clustered else random_points(200000, 3, seed=7)
    shares = gridemst.emst(X, devices=devices, result="device")
    check_shares(cuda, shares, X, range(gridemst.cuda_device_count()) if devices == "all" else devices)


def test_cupy_adopts_and_gives_arrays(cuda):
    cupy = pytest.importorskip("cupy")
    X = random_points(20000, 3, seed=7)
    expected = gridemst.emst(X, backend="cpu")
    assert same_tree(gridemst.emst(cupy.asarray(X)), expected)
    X32 = X.astype(np.float32)
    assert same_tree(gridemst.emst(cupy.asarray(X32)), gridemst.emst(X32, backend="cpu"))
    tree = gridemst.emst(cupy.asarray(X, dtype=cupy.float64), result="device")
    u, w = cupy.asarray(tree.u), cupy.asarray(tree.w)
    del tree
    assert np.array_equal(u.get(), expected[0][:, 0]) and np.array_equal(w.get(), expected[1])


def test_torch_adopts_and_gives_arrays(cuda):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    X = random_points(20000, 2, seed=8)
    expected = gridemst.emst(X, backend="cpu")
    assert same_tree(gridemst.emst(torch.as_tensor(X, device="cuda")), expected)
    tree = gridemst.emst(torch.as_tensor(X, device="cuda"), result="device")
    w = torch.as_tensor(tree.w, device="cuda")
    del tree
    assert np.array_equal(w.cpu().numpy(), expected[1])
