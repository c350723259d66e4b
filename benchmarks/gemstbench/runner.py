"""Runs a suite's steps with the driver (and the peers) and collects their CSV rows.

Each suite writes into OUT/SUITE/: runs.csv (one row per timed solve),
iterations.csv (one row per Boruvka iteration of each), peers.csv (one row
per timed solve of a peer), log.txt (the commands and their messages);
OUT/meta.json records how, where and when.

With peers, each set is written once to a points file (by the gridemst
command-line tool), and the driver and every peer solve that file in turn,
--blocks times: driver, peers, driver, peers, ...
"""
import csv
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

from . import peers, suites

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Per backend: timed solves, warm-ups, seconds after which a configuration
# stops repeating, and the largest set run unless --max-n says otherwise.
DEFAULTS = {
    "cuda": {"repeat": 5, "warmup": 1, "max_seconds": 6.0, "max_n": None},
    "cpu": {"repeat": 3, "warmup": 1, "max_seconds": 10.0, "max_n": 10**6},
}


def git_commit():
    """The checkout's commit, '-dirty' when tracked files changed; None without git."""
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def host_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def local_path(path):
    """path relative to the working directory, so that logs do not name the
    checkout's place; with a directory part, so that it is not looked up in PATH."""
    rel = os.path.relpath(path)
    return rel if os.sep in rel else os.path.join(os.curdir, rel)


def find_driver(explicit):
    if explicit:
        return explicit
    for build in ("", "build", "build-gpu", "build-cpu"):
        path = os.path.join(REPO, build, "benchmarks", "gridemst-bench")
        if os.access(path, os.X_OK):
            return local_path(path)
    sys.exit("bench.py: gridemst-bench not found: build it (make) or give --driver PATH")


def find_cli(explicit, driver):
    """The gridemst program: given, or the one built beside the driver."""
    path = explicit or local_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(driver))), "gridemst"))
    if not os.access(path, os.X_OK):
        sys.exit(f"bench.py: the gridemst program, which writes the peers' points files, is not at {path}: "
                 "give --gridemst PATH")
    return path


def environment():
    """The environment of the driver and the peers: spinning OpenMP threads
    ruin timings on a shared machine."""
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "passive")
    return env


def last_line(p):
    """A finished process's last line on standard error, or its exit status."""
    return p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit status {p.returncode}"


def append_csv(src, dst):
    """Appends src's rows to dst (with src's header when dst is new); removes src."""
    if not os.path.exists(src):
        return
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    os.remove(src)
    if not rows:
        return
    new = not os.path.exists(dst)
    with open(dst, "a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerows(rows if new else rows[1:])


class Runner:
    def __init__(self, args, argv):
        self.args = args
        self.backend = args.backend
        d = DEFAULTS[self.backend]
        self.repeat = args.repeat or d["repeat"]
        self.warmup = d["warmup"] if args.warmup is None else args.warmup
        self.max_seconds = d["max_seconds"] if args.max_seconds is None else args.max_seconds
        self.max_n = d["max_n"] if args.max_n is None else (None if args.max_n <= 0 else args.max_n)
        self.driver = find_driver(args.driver)
        self.peers = peers.configured(args, self.backend)
        if args.blocks is not None and args.blocks < 1:
            sys.exit("bench.py: --blocks must be 1 or more")
        self.blocks = args.blocks or (2 if self.peers else 1)
        self.cli = find_cli(args.gridemst, self.driver) if self.peers else None
        self.out = args.out
        self.command = "python3 benchmarks/bench.py " + " ".join(shlex.quote(a) for a in argv)
        self.deadline = time.monotonic() + args.deadline if args.deadline else None
        self.commit = args.commit or git_commit() or "unknown"

    def driver_command(self, step, source, runs, iterations):
        cmd = [self.driver] + source + step.options + [
            "--backend", self.backend, "--label", step.label, "--precision", self.args.precision,
            "--repeat", str(self.repeat), "--warmup", str(self.warmup), "--max-seconds", str(self.max_seconds),
            "-o", runs, "--iterations", iterations]
        if self.backend == "cpu" and self.args.threads:
            cmd += ["--threads", str(self.args.threads)]
        if self.backend == "cuda" and "--result" not in step.options:
            cmd += ["--result", "host,device"]  # the whole call, for either place of the tree
        return cmd

    def remaining(self):
        return None if self.deadline is None else self.deadline - time.monotonic()

    def run_step(self, step, source, suite_dir, log, notes):
        """One driver run on source (its arguments naming the points); returns
        False when the deadline stops the suite."""
        tmp_runs = os.path.join(suite_dir, "step-runs.csv")
        tmp_iters = os.path.join(suite_dir, "step-iterations.csv")
        cmd = self.driver_command(step, source, tmp_runs, tmp_iters)
        log.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        left = self.remaining()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=environment(), timeout=left)
        except subprocess.TimeoutExpired:
            self.deadline_note(step.label, log, notes)
            for f in (tmp_runs, tmp_iters):
                if os.path.exists(f):
                    os.remove(f)
            return False
        log.write(p.stderr)
        if p.returncode != 0:
            notes.append(f"{step.label}: FAILED (exit status {p.returncode}): {last_line(p)}")
        append_csv(tmp_runs, os.path.join(suite_dir, "runs.csv"))
        append_csv(tmp_iters, os.path.join(suite_dir, "iterations.csv"))
        status = "ok" if p.returncode == 0 else f"exit {p.returncode}"
        print(f"bench.py: {step.label}: {status}", file=sys.stderr, flush=True)
        for line in p.stderr.splitlines():
            print("  " + line, file=sys.stderr, flush=True)
        return True

    def deadline_note(self, what, log, notes):
        notes.append(f"{what}: stopped at the deadline (--deadline {self.args.deadline:g} s)")
        log.write("stopped at the deadline\n")

    def save_points(self, step, points, log, notes):
        """Writes the step's points to a binary file with the gridemst program
        (which also solves them once); returns 'ok', 'failed' or 'deadline'."""
        cmd = [self.cli] + step.source + ["--save-points", points, "-q", "--backend", self.backend]
        if self.args.threads:
            cmd += ["--threads", str(self.args.threads)]
        log.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=environment(), timeout=self.remaining())
        except subprocess.TimeoutExpired:
            self.deadline_note(f"{step.label}: writing the points", log, notes)
            return "deadline"
        log.write(p.stderr)
        if p.returncode != 0:
            notes.append(f"{step.label}: FAILED writing the points for the peers: {last_line(p)}")
            return "failed"
        return "ok"

    def driver_threads(self, suite_dir):
        """The threads the driver's last run used (its CSV's threads column), or None."""
        path = os.path.join(suite_dir, "runs.csv")
        if not os.path.exists(path):
            return None
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        return int(rows[-1]["threads"]) if rows and rows[-1].get("threads") else None

    def run_peer(self, peer, step, points, block, suite_dir, log, notes):
        """One block of a peer on the points file, its rows into peers.csv;
        returns False when the deadline stops the suite."""
        threads = self.args.threads or self.driver_threads(suite_dir)
        log.write("$ " + " ".join(shlex.quote(c) for c in peer.command(points, self.repeat)) +
                  (f"  ({peer.kind.threads_env}={threads})" if peer.kind.threads_env and threads else "") + "\n")
        try:
            times, weight, n, dim, output = peer.run(points, self.repeat, threads, environment(), self.remaining())
        except subprocess.TimeoutExpired:
            self.deadline_note(f"{step.label}: {peer.kind.title}", log, notes)
            return False
        except peers.PeerError as e:
            notes.append(f"{step.label}: {peer.kind.title} FAILED ({e})")
            log.write(f"{peer.kind.title}: {e}\n")
            print(f"bench.py: {step.label}: {peer.kind.title}: {e}", file=sys.stderr, flush=True)
            return True
        log.write(output)
        path = os.path.join(suite_dir, "peers.csv")
        new = not os.path.exists(path)
        with open(path, "a", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            if new:
                w.writerow(PEER_COLUMNS)
            for k, t in enumerate(times):
                w.writerow([step.label, n, dim, peer.name, block, k + 1, f"{t:.6g}", f"{weight:.17g}",
                            threads if peer.kind.threads_env else ""])
        print(f"bench.py: {step.label}: {peer.kind.title}: median {statistics.median(times):.4g} ms over "
              f"{len(times)} runs", file=sys.stderr, flush=True)
        return True

    def run_set(self, step, suite_dir, log, notes):
        """The driver's blocks on one set, and with peers theirs in turn on
        its points file; returns False when the deadline stops the suite."""
        if not self.peers:
            return all(self.run_step(step, step.source, suite_dir, log, notes) for _ in range(self.blocks))
        with tempfile.TemporaryDirectory(prefix="gridemst-bench-", dir=self.args.scratch) as tmp:
            points = os.path.join(tmp, step.label + ".bin")
            saved = self.save_points(step, points, log, notes)
            if saved != "ok":
                return saved != "deadline"
            for block in range(1, self.blocks + 1):
                if not self.run_step(step, [points], suite_dir, log, notes):
                    return False
                for peer in self.peers:
                    if not self.run_peer(peer, step, points, block, suite_dir, log, notes):
                        return False
        return True

    def run_suite(self, suite):
        """Runs one suite into OUT/SUITE (replacing what was there); returns its meta record."""
        suite_dir = os.path.join(self.out, suite)
        os.makedirs(suite_dir, exist_ok=True)
        for name in ("runs.csv", "iterations.csv", "peers.csv", "summary.csv", "summary.md", "log.txt"):
            if os.path.exists(os.path.join(suite_dir, name)):
                os.remove(os.path.join(suite_dir, name))
        started = datetime.datetime.now(datetime.timezone.utc)
        notes, skipped, ran = [], [], 0
        stopped = False
        with open(os.path.join(suite_dir, "log.txt"), "w") as log:
            for step in suites.steps(suite, self.backend, self.max_n):
                left = self.remaining()
                if stopped or (left is not None and left <= 0):
                    skipped.append(step.label)
                    continue
                stopped = not self.run_set(step, suite_dir, log, notes)
                ran += 1
        if skipped:
            notes.append(f"not run (deadline): {', '.join(skipped)}")
        return {
            "suite": suite,
            "description": suites.SUITES[suite][1],
            "backend": self.backend,
            "command": self.command,
            "started": started.strftime("%Y-%m-%d %H:%M:%S UTC"),
            "seconds": round((datetime.datetime.now(datetime.timezone.utc) - started).total_seconds(), 1),
            "commit": self.commit,
            "host": f"{platform.node()}: {host_cpu()}, {os.cpu_count()} logical CPUs",
            "repeat": self.repeat, "warmup": self.warmup, "max_seconds": self.max_seconds,
            "max_n": self.max_n, "threads": self.args.threads, "precision": self.args.precision,
            "steps_run": ran, "notes": notes, "blocks": self.blocks,
            "peers": {p.name: p.describe() for p in self.peers},
        }


PEER_COLUMNS = ["dataset", "n", "dim", "peer", "block", "run", "time_ms", "total_weight", "threads"]


def load_meta(out):
    path = os.path.join(out, "meta.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {"suites": {}}


def save_meta(out, meta):
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
