"""The named benchmark suites: which point sets, and which driver options.

A suite is a list of steps; a step is one run of the driver (gridemst-bench)
on one point set with a list of configurations.  Sizes depend on the backend:
the CPU runs smaller sets so that a suite finishes in minutes on two cores.
"""
import os
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
TSPLIB = os.path.normpath(os.path.join(HERE, "..", "..", "tsplib"))

# The 27 national TSPs (Waterloo), the instances Qiao & Creput use, and the
# large classic and art instances of tsplib/.
NATIONAL = ["wi29", "dj38", "qa194", "uy734", "zi929", "lu980", "rw1621", "mu1979", "nu3496", "ca4663",
            "tz6117", "eg7146", "ym7663", "pm8079", "ei8246", "ar9152", "ja9847", "gr9882", "kz9976",
            "fi10639", "mo14185", "ho14473", "it16862", "vm22775", "sw24978", "bm33708", "ch71009"]
LARGE_CLASSIC = ["usa13509", "d15112", "d18512", "pla33810", "pla85900", "mona-lisa100K", "sra104815",
                 "usa115475", "earring200K"]
# The largest TSPLIB instances, for the grid against the BVH.
GRIDVSBVH_TSPLIB = ["pla85900", "mona-lisa100K", "usa115475", "earring200K"]

# The shapes of data (src/tools/generate.h): volumes, then points on thin
# surfaces and along curves.
SHAPES = ["uniform", "normal", "clustered", "blobs", "shells", "planes", "tori", "filaments"]
# Kinds with no 2D form.
ONLY_3D = {"tori"}
# The 2D kinds whose points lie along curves, 12 to 17 long in all: at 1e8
# points, neighbours along them are about 2 float32 steps apart (2^-24 near
# 1), and many coincide, so these stop at 1e7.
CURVES_2D = {"shells", "planes", "filaments"}

# Configurations: the library's default, and prune none whose first
# iteration is the floor (one all-points nearest-neighbour query).
DEFAULT = ["--prune", "static", "--findmin2", "atomic"]
WITH_FLOOR = ["--prune", "static,none", "--findmin2", "atomic"]


@dataclass
class Step:
    label: str            # the dataset's name in the CSVs
    kind: str             # generator name, or "tsplib"
    n: int
    dim: int
    source: list          # driver arguments naming the points
    options: list         # driver arguments naming the configurations


def generated(kind, n, dim, options):
    return Step(f"{kind}-{dim}d-{n}", kind, n, dim,
                ["--generate", kind, "--n", str(n), "--dim", str(dim)], options)


def tsp_size(name):
    """DIMENSION from a TSPLIB file's header."""
    with open(os.path.join(TSPLIB, name + ".tsp")) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "DIMENSION":
                return int(value)
            if line.startswith("NODE_COORD_SECTION"):
                break
    raise ValueError(f"{name}.tsp: no DIMENSION")


def tsp(name, options):
    # relative to the working directory, so that logs do not name the checkout's place
    return Step(name, "tsplib", tsp_size(name), 2, [os.path.relpath(os.path.join(TSPLIB, name + ".tsp"))], options)


def log_sizes(lo_exp, hi_exp, count):
    """count sizes log-spaced from 10^lo_exp to 10^hi_exp, two significant digits."""
    out = []
    for k in range(count):
        x = 10 ** (lo_exp + (hi_exp - lo_exp) * k / (count - 1))
        digits = len(str(int(x))) - 2
        out.append(int(round(x / 10 ** digits) * 10 ** digits))
    return out


def bvh(kind, n, dim):
    """A step with the BVH index (pruning does not apply to it)."""
    return generated(kind, n, dim, DEFAULT + ["--nns", "bvh"])


def suite_tsplib(backend):
    return [tsp(name, WITH_FLOOR) for name in NATIONAL + LARGE_CLASSIC]


def suite_uniform(dim, count):
    def make(backend):
        return [generated("uniform", n, dim, WITH_FLOOR) for n in log_sizes(3, 8, count)]
    return make


def dims(kind, n):
    """The dimensions a kind is run in at n points."""
    if kind in ONLY_3D or (kind in CURVES_2D and n > 10**7):
        return (3,)
    return (2, 3)


def suite_skewed(backend):
    """Every shape; the floor up to 1e7 (at 1e8 the default configuration only)."""
    kinds = SHAPES + ["lattice"]
    if backend == "cuda":
        sizes = {k: [10**6, 10**7, 10**8] for k in kinds}
        sizes["lattice"] = [10**6, 10**7]
    else:
        sizes = {k: [10**4, 10**5, 10**6] for k in kinds}
        # seed-spreader clusters are the grid's worst case: 90 s at 1e5 in 3D on 2 cores
        sizes["clustered"] = [10**4]
    return [generated(k, n, d, WITH_FLOOR if n < 10**8 else DEFAULT)
            for k in kinds for n in sizes[k] for d in dims(k, n)]


def suite_shapes(backend):
    """Every shape at the size of the targets (CUDA 1e7, CPU 1e6), the default
    configuration (on the CPU also each index by name, to show auto's choice
    against the other): the sets to run the peers beside."""
    n = 10**7 if backend == "cuda" else 10**6
    kinds = SHAPES if backend == "cuda" else [k for k in SHAPES if k != "clustered"]
    options = DEFAULT if backend == "cuda" else DEFAULT + ["--nns", "auto,grid,bvh"]
    return [generated(k, n, d, options) for k in kinds for d in dims(k, n)]


def suite_operators(backend):
    every = ["--prune", "all", "--findmin2", "all"]
    return [generated("uniform", 700000, 2, every), tsp("ch71009", every), generated("uniform", 10**6, 3, every)]


def suite_gridvsbvh(backend):
    """Both indexes in one driver run per dataset, so their trees are checked against each other."""
    both = DEFAULT + ["--nns", "grid,bvh"]
    if backend == "cuda":
        sizes = {"uniform": [10**6, 10**7], "normal": [10**6, 10**7], "clustered": [10**6, 10**7]}
    else:
        sizes = {"uniform": [10**4, 10**5], "normal": [10**4, 10**5], "clustered": [10**4]}
    steps = [generated(kind, n, dim, both) for kind in sizes for dim in (2, 3) for n in sizes[kind]]
    return steps + [tsp(name, both) for name in GRIDVSBVH_TSPLIB]


def suite_smoke(backend):
    """A few seconds: for the tests."""
    return [generated("uniform", 3000, 2, ["--prune", "all", "--findmin2", "atomic"]), tsp("wi29", WITH_FLOOR),
            bvh("uniform", 2000, 3)]


SUITES = {
    "tsplib": (suite_tsplib, "the 27 national TSPs and the large classic and art instances of tsplib/"),
    "uniform2d": (suite_uniform(2, 23), "uniform in the unit square, 23 sizes from 1e3 to 1e8, log-spaced"),
    "uniform3d": (suite_uniform(3, 10), "uniform in the unit cube, 10 sizes from 1e3 to 1e8, log-spaced"),
    "skewed": (suite_skewed, "every shape: uniform, normal, clustered (varden), blobs, shells, planes, tori, "
                             "filaments and lattice, 2D and 3D, 1e6, 1e7 and 1e8 (lattice to 1e7; tori 3D only; "
                             "2D shells, planes and filaments to 1e7; CPU: 1e4, 1e5 and 1e6, clustered 1e4)"),
    "shapes": (suite_shapes, "every shape at one size, the default configuration, for the peers: 2D and 3D, "
                             "1e7 (CPU: 1e6, without clustered, and each index by name too)"),
    "operators": (suite_operators, "every pruning x FindMin2 on uniform 2D 7e5, ch71009 and uniform 3D 1e6 "
                                   "(the paper's operator comparison, Figs. 12-14)"),
    "gridvsbvh": (suite_gridvsbvh, "grid against BVH (--nns grid,bvh) on uniform, normal and clustered "
                                   "(varden) 2D and 3D at 1e6 and 1e7 (CPU: 1e4 and 1e5, clustered 1e4) "
                                   "and the four largest TSPLIB instances"),
    "smoke": (suite_smoke, "three tiny steps, for the tests"),
}

# What `run all` runs, cheapest and most central first.
ALL = ["uniform2d", "uniform3d", "tsplib", "operators", "gridvsbvh", "skewed"]


def steps(suite, backend, max_n):
    make = SUITES[suite][0]
    for step in make(backend):
        if max_n is None or step.n <= max_n:
            yield step
