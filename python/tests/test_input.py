"""Input forms, option checks and error messages."""
import numpy as np
import pytest

import gridemst
from gridemst._points import host_points
from reference import random_points

has_cuda = gridemst.cuda_device_count() > 0


@pytest.fixture(scope="module")
def points():
    X = random_points(500, 3, seed=1)
    return X, gridemst.emst(X)


def same_tree(a, b):
    return np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@pytest.mark.parametrize("form", [
    lambda X: np.asfortranarray(X),
    lambda X: X.tolist(),
    lambda X: np.hstack([X, X])[:, :3],  # a view with rows apart
    lambda X: X.astype(">f8"),
    lambda X: np.repeat(X, 2, axis=0)[::2],  # a view of every other row
])
def test_every_form_of_the_same_float64_points_gives_the_same_tree(points, form):
    X, tree = points
    assert same_tree(gridemst.emst(form(X)), tree)


def test_float32_points_solve_as_their_float64_values():
    X = random_points(500, 2, seed=2).astype(np.float32)
    assert same_tree(gridemst.emst(X), gridemst.emst(X.astype(np.float64)))
    assert same_tree(gridemst.emst(np.asfortranarray(X)), gridemst.emst(X.astype(np.float64)))


def test_integer_points_are_converted_to_float64():
    X = np.random.default_rng(4).permutation(np.arange(600)).reshape(300, 2) * 3
    assert same_tree(gridemst.emst(X), gridemst.emst(X.astype(np.float64)))


def test_contiguous_float_arrays_are_passed_without_a_copy():
    for dtype in (np.float32, np.float64):
        X = random_points(10, 2).astype(dtype)
        assert host_points(X) is X
    F = np.asfortranarray(random_points(10, 2))
    assert host_points(F).flags.c_contiguous and not np.shares_memory(host_points(F), F)


@pytest.mark.parametrize("shape", [(10,), (10, 1), (10, 4), (2, 10, 3), (3, 0)])
def test_a_wrong_shape_is_named(shape):
    with pytest.raises(ValueError, match=r"shape \(n_samples, 2\) or \(n_samples, 3\); got shape %s"
                       % repr(shape).replace("(", r"\(").replace(")", r"\)")):
        gridemst.emst(np.zeros(shape))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_coordinates_give_the_library_message(bad):
    X = random_points(20, 2)
    X[7, 1] = bad
    with pytest.raises(ValueError, match="point 7 has a non-finite coordinate"):
        gridemst.emst(X)


def test_non_real_points_are_refused():
    with pytest.raises(ValueError, match="real numbers; got dtype complex128"):
        gridemst.emst(np.zeros((4, 2), dtype=complex))
    with pytest.raises(ValueError, match="real numbers"):
        gridemst.emst([["a", "b"], ["c", "d"]])


@pytest.mark.parametrize("option,value,message", [
    ("precision", "half", "precision must be one of 'float', 'double'; got 'half'"),
    ("backend", "gpu", "backend must be one of 'auto', 'cpu', 'cuda'; got 'gpu'"),
    ("index", "kdtree", "index must be one of 'grid', 'bvh', 'auto'; got 'kdtree'"),
    ("threads", 0, "threads must be None or an integer >= 1; got 0"),
    ("threads", 2.5, "threads must be None or an integer >= 1; got 2.5"),
    ("threads", True, "threads must be None or an integer >= 1; got True"),
    ("result", "both", "result must be 'host' or 'device'; got 'both'"),
    ("devices", "every", "devices must be None, 'all' or a sequence of device numbers; got 'every'"),
    ("devices", 2, "devices must be None, 'all' or a sequence of device numbers; got 2"),
    ("devices", [0, -1], r"devices must hold device numbers \(integers >= 0\); got -1"),
    ("devices", [0, 1.0], r"devices must hold device numbers \(integers >= 0\); got 1.0"),
    ("devices", [True], r"devices must hold device numbers \(integers >= 0\); got True"),
    ("devices", [], r"devices must name at least one device; got \[\]"),
])
def test_bad_options_are_named(option, value, message):
    with pytest.raises(ValueError, match=message):
        gridemst.emst(random_points(10, 2), **{option: value})


@pytest.mark.skipif(has_cuda, reason="a CUDA device is present")
def test_cuda_requests_without_a_device_raise_gridemst_error():
    for options in [dict(backend="cuda"), dict(result="device")]:
        with pytest.raises(gridemst.GridemstError) as caught:
            gridemst.emst(random_points(10, 2), **options)
        assert caught.value.status in ("unsupported", "no CUDA device")
        assert isinstance(caught.value, RuntimeError)


@pytest.mark.skipif(has_cuda, reason="a CUDA device is present")
def test_several_devices_without_a_device_raise_gridemst_error():
    for devices in ["all", [0, 1], (1, 0)]:
        with pytest.raises(gridemst.GridemstError) as caught:
            gridemst.emst(random_points(10, 2), devices=devices)
        assert caught.value.status in ("unsupported", "no CUDA device")


def test_device_result_on_the_cpu_backend_is_a_value_error():
    with pytest.raises(ValueError, match="needs the cuda backend"):
        gridemst.emst(random_points(10, 2), backend="cpu", result="device")


def test_version_is_the_library_version():
    assert gridemst.__version__ == gridemst.library_version()
    assert len(gridemst.__version__.split(".")) == 3
