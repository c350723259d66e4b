#!/usr/bin/env python3
"""Times gridemst on named suites of point sets and prints a table.

Each case runs the command-line tool once with --repeat R: one warm-up solve,
then R timed solves, reporting the median of each phase.  "device ms" is the
time from the points on the device to the sorted tree on the device (CUDA),
or the whole solve (CPU): grid + findmin1 + findmin2 + merge + edges.
MFeatures/s = n * dim / seconds, as the ArborX paper reports.

    benchmarks/bench.py SUITE [--gridemst PATH] [--repeat R] [--csv FILE]

Suites:
  cpu-uniform   CPU backend, 2 threads, uniform 2D/3D at 1e5, 1e6, 1e7
  gpu           CUDA backend: uniform 2D/3D at 1e6, 1e7, 1e8, normal and
                blobs 3D at 1e7, the largest TSPLIB instances
  gpu-strategies  CUDA backend, every prune x findmin2 on uniform 2D/3D 1e6
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TSPLIB = os.path.join(HERE, "..", "tsplib")


def gen(kind, n, dim):
    return {"label": f"{kind} {dim}D", "n": n, "dim": dim,
            "args": ["--generate", kind, "--n", str(n), "--dim", str(dim)]}


def tsp(name):
    return {"label": name, "n": None, "dim": 2, "args": [os.path.join(TSPLIB, name + ".tsp")]}


SUITES = {
    "cpu-uniform": {
        "options": ["--backend", "cpu", "--threads", "2"],
        "cases": [gen("uniform", n, d) for d in (2, 3) for n in (10**5, 10**6, 10**7)],
    },
    "gpu": {
        "options": ["--backend", "cuda"],
        "cases": [gen("uniform", n, d) for d in (2, 3) for n in (10**6, 10**7, 10**8)]
        + [gen("normal", 10**7, 3), gen("blobs", 10**7, 3), gen("clustered", 10**7, 3)]
        + [tsp(t) for t in ("usa115475", "earring200K", "sra104815", "pla85900", "ch71009")],
    },
    "gpu-strategies": {
        "options": ["--backend", "cuda"],
        "variants": [["--prune", p, "--findmin2", f] for p in ("static", "dynamic", "none")
                     for f in ("atomic", "list")],
        "cases": [gen("uniform", 10**6, d) for d in (2, 3)],
    },
}

COLUMNS = ["case", "n", "options", "device_ms", "min_ms", "max_ms", "grid", "findmin1", "prepare", "findmin2",
           "merge", "edges", "iterations", "fallbacks", "mfeatures_s", "bytes_per_point", "device"]


def run_case(tool, case, options, repeat):
    cmd = [tool] + case["args"] + options + ["--repeat", str(repeat), "--json", "-q"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    j = json.loads(out.stdout)
    t = j["time_ms"]
    return {
        "case": case["label"], "n": j["n"], "options": " ".join(options),
        "device_ms": j["device_ms"], "min_ms": j.get("device_ms_min", j["device_ms"]),
        "max_ms": j.get("device_ms_max", j["device_ms"]),
        "grid": t["grid"], "findmin1": t["findmin1"], "prepare": t["prepare"], "findmin2": t["findmin2"],
        "merge": t["merge"], "edges": t["edges"], "iterations": j["iterations"],
        "fallbacks": j["fallback_searches"], "mfeatures_s": j["device_mfeatures_per_s"],
        "bytes_per_point": j["peak_device_bytes"] / j["n"] if j["n"] else 0.0, "device": j["device"],
    }


def fmt(v):
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", choices=sorted(SUITES))
    ap.add_argument("--gridemst", default=os.path.join(HERE, "..", "gridemst"), help="the gridemst binary")
    ap.add_argument("--repeat", type=int, default=5, help="timed solves per case (default 5)")
    ap.add_argument("--csv", help="also write the rows to this CSV file")
    ap.add_argument("--max-n", type=float, default=float("inf"), help="skip cases larger than this")
    a = ap.parse_args()
    suite = SUITES[a.suite]
    rows = []
    for case in suite["cases"]:
        if case["n"] is not None and case["n"] > a.max_n:
            continue
        for variant in suite.get("variants", [[]]):
            try:
                rows.append(run_case(a.gridemst, case, suite["options"] + variant, a.repeat))
            except RuntimeError as e:
                print(f"# {e}", file=sys.stderr)
                continue
            r = rows[-1]
            print(f"# {r['case']} n={r['n']} {r['options']}: {r['device_ms']:.2f} ms", file=sys.stderr, flush=True)
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(fmt(r[c]) for c in COLUMNS) + " |")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
