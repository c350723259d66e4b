"""The peer programs measured beside gridemst, on the same points file.

A peer reads the binary points format (points_file.py: int32 n, int32 dim,
n*dim float32), solves once to warm up and R times timed, and prints one line
per timed solve, `run K: X ms` (optional), and at the end

    median_ms=X min_ms=Y n=N dim=D edges=E total_weight=W

ArborX's and MemoGFK's programs read the 8-byte header only: a set of more
than 2^31 - 1 points, whose file has the 16-byte header, is beyond them.

Each peer is found through an option of `bench.py run` or an environment
variable, never at a fixed place; the variable applies to its own backend's
suites (ArborX to CUDA, the others to the CPU), the option to any.
"""
import os
import re
import subprocess
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
QUITEFASTMST_SCRIPT = os.path.join(HERE, "quitefastmst_peer.py")

# A peer's total weight must match gridemst's to this relative difference
# (a float32 peer's sum of n - 1 rounded weights; double peers do better).
WEIGHT_RTOL = 1e-6


@dataclass(frozen=True)
class Kind:
    name: str          # column prefix in the CSVs
    title: str         # in the tables
    backend: str       # the suites it runs beside when found through its variable
    option: str        # bench.py run's option
    variable: str      # the environment variable naming it
    threads_env: str   # the variable that sets its threads, or None
    version: str       # a regular expression whose groups tell the version in its output, or None
    version_text: str  # the version from those groups (str.format)


KINDS = [
    Kind("arborx", "ArborX", "cuda", "--arborx", "GRIDEMST_ARBORX", None,
         r"ArborX (\S+) \((\S*)\) Kokkos (\d+)", "ArborX {} ({}), Kokkos {}"),
    Kind("memogfk", "MemoGFK", "cpu", "--memogfk", "GRIDEMST_MEMOGFK", "PARLAY_NUM_THREADS", None, None),
    Kind("quitefastmst", "quitefastmst", "cpu", "--quitefastmst", "GRIDEMST_QUITEFASTMST", "OMP_NUM_THREADS",
         r"version=(\S+)", "{}"),
]
NAMES = [k.name for k in KINDS]
TITLES = {k.name: k.title for k in KINDS}


def add_options(parser):
    parser.add_argument("--arborx", metavar="PATH",
                        help="ArborX's emst_arborx program, run beside the driver (default: $GRIDEMST_ARBORX on cuda)")
    parser.add_argument("--memogfk", metavar="PATH",
                        help="MemoGFK's emst_memogfk program, run beside the driver (default: $GRIDEMST_MEMOGFK "
                             "on cpu)")
    parser.add_argument("--quitefastmst", metavar="PYTHON", nargs="?", const=sys.executable,
                        help="run quitefastmst beside the driver, with PYTHON (default: this one), which must "
                             "import numpy and quitefastmst (default: $GRIDEMST_QUITEFASTMST on cpu)")
    parser.add_argument("--scratch", help="where the points files for the peers go (default: the system's "
                                          "temporary directory)")


class Peer:
    """One peer program, configured."""

    def __init__(self, kind, path):
        self.kind = kind
        self.path = path
        self.version = None

    @property
    def name(self):
        return self.kind.name

    def describe(self):
        """What the meta records: the program's base name, and its version where known."""
        program = os.path.basename(self.path)
        if self.name == "quitefastmst":
            program = f"{os.path.basename(QUITEFASTMST_SCRIPT)} with {os.path.basename(self.path)}"
        out = {"title": self.kind.title, "program": program}
        if self.version:
            out["version"] = self.version
        return out

    def command(self, points, repeat):
        if self.name == "arborx":
            return [self.path, points, str(repeat)]
        if self.name == "memogfk":
            return [self.path, points, "-r", str(repeat)]
        return [self.path, os.path.relpath(QUITEFASTMST_SCRIPT), points, str(repeat)]

    def run(self, points, repeat, threads, env, timeout):
        """Runs one block in the environment env, with its threads set to
        threads; returns (times in ms, total weight, n, dim, output), or
        raises PeerError."""
        cmd = self.command(points, repeat)
        env = dict(env)
        if self.kind.threads_env and threads:
            env[self.kind.threads_env] = str(threads)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
        except OSError as e:
            raise PeerError(f"cannot run {cmd[0]}: {e.strerror}") from e
        result = parse(p.stdout)
        if p.returncode != 0 or result is None:
            last = (p.stderr.strip() or p.stdout.strip() or "no output").splitlines()[-1]
            raise PeerError(f"exit status {p.returncode}: {last}")
        m = re.search(self.kind.version, p.stdout) if self.kind.version else None
        if m and not self.version:
            self.version = self.kind.version_text.format(*m.groups())
        return result + (p.stdout + p.stderr,)


class PeerError(Exception):
    pass


RUN_LINE = re.compile(r"^run \d+: ([0-9.eE+-]+) ms", re.M)
RESULT_LINE = re.compile(r"^median_ms=(\S+) min_ms=(\S+) n=(\d+) dim=(\d+) edges=(\d+) total_weight=(\S+)\s*$", re.M)


def parse(stdout):
    """(times, total weight, n, dim) from a peer's output: every timed solve's
    time where it prints them, else its median alone; None without a result
    line or with other than n - 1 edges."""
    m = RESULT_LINE.search(stdout)
    if not m:
        return None
    n, dim, edges = int(m.group(3)), int(m.group(4)), int(m.group(5))
    if edges != n - 1:
        return None
    times = [float(t) for t in RUN_LINE.findall(stdout)] or [float(m.group(1))]
    return times, float(m.group(6)), n, dim


def configured(args, backend):
    """The peers to run beside the driver on this backend, from the options and
    the environment; exits with a message when one is not an executable program."""
    out = []
    for kind in KINDS:
        path, source = getattr(args, kind.name), kind.option
        if path is None and kind.backend == backend:
            path, source = os.environ.get(kind.variable) or None, "$" + kind.variable
        if not path:
            continue
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            sys.exit(f"bench.py: {source}: '{path}' is not an executable program")
        out.append(Peer(kind, path))
    return out


def agree(peer_weight, weight):
    return abs(peer_weight - weight) <= WEIGHT_RTOL * abs(weight)
