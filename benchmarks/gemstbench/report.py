"""OUT/README.md: how the results were made, each suite's table and the plots."""
import os

from . import suites, summary

EXPLAIN = """\
Times are in milliseconds. "median ms" (with min and max) is the time of one solve
over the timed solves of a configuration: on CUDA, CUDA events on the driver's stream
around `gridemst_solve_device` with the points already on the GPU (so it includes the
solve's allocations, the edge sort and the copy of the tree to host memory); on the CPU,
the wall clock around `gridemst_solve`. The phase columns are the library's own
medians (`stats.time_ms`). "phase sum" = grid + FindMin1 + FindMin2 + merge + edge
sort: on CUDA, the time from the points on the device to the sorted tree on the device.
FindMin1 includes static pruning's one candidate search (in parentheses). The floor is
one all-points nearest-neighbour query on the same grid: FindMin1 of the first Borůvka
iteration with `--prune none` (every point its own component); "x floor" is median /
floor. MFeatures/s = n * dim / median seconds. B/pt: peak device bytes per point.
Every solve of a dataset gave the identical tree (checked edge by edge within a driver
run, by total weight across runs) unless a "trees agree" column says otherwise.
"""

PLOTS_AFTER = {"uniform3d": ["time", "mfeatures", "floor_ratio"], "gridvsbvh": ["gridvsbvh"]}


def image(name):
    return f"![{name}](plots/{name}.png)\n\n([SVG](plots/{name}.svg))\n"


def plots_for(suite, present):
    if suite == "operators":
        return sorted(n for n in present if n.startswith("operators-"))
    return [n for n in PLOTS_AFTER.get(suite, []) if n in present]


def write(out, meta):
    present = set()
    if os.path.isdir(os.path.join(out, "plots")):
        present = {os.path.splitext(f)[0] for f in os.listdir(os.path.join(out, "plots")) if f.endswith(".png")}
    order = [s for s in suites.ALL + sorted(suites.SUITES) if s in meta["suites"]]
    order = list(dict.fromkeys(order))
    devices = set()
    lines = []
    runs = ["| suite | backend | device | commit | started | seconds | command |", "|---|---|---|---|---|---:|---:|"]
    commands = []
    for s in order:
        m = meta["suites"][s]
        rows = summary.read_summary(os.path.join(out, s))
        dev = ", ".join(sorted({r["device"] for r in rows})) or "-"
        devices.add(dev)
        if m["command"] not in commands:
            commands.append(m["command"])
        runs.append(f"| {s} | {m['backend']} | {dev} | {m['commit']} | {m['started']} | {m['seconds']:g} | "
                    f"{commands.index(m['command']) + 1} |")
        lines += [f"## {s}", "", m["description"] + ".", "",
                  f"{m['repeat']} timed solves per configuration after {m['warmup']} warm-up(s); a configuration "
                  f"stops repeating once its solves took {m['max_seconds']:g} s (at least one timed solve); "
                  f"largest n: {m['max_n'] if m['max_n'] else 'no limit'}; precision {m['precision']}"
                  + (f"; {m['threads']} CPU threads" if m["threads"] and m["backend"] == "cpu" else "") + ".", ""]
        lines += [f"* {n}" for n in m["notes"]] + ([""] if m["notes"] else [])
        with open(os.path.join(out, s, "summary.md")) as f:
            lines.append(f.read())
        for name in plots_for(s, present):
            lines.append(image(name))
    title = ", ".join("CPU backend" if d == "cpu" else d for d in sorted(devices))
    head = [f"# gridemst benchmark results: {title}", "",
            "Made with `benchmarks/bench.py` and its driver `benchmarks/gridemst-bench` (see "
            "`benchmarks/README.md`); raw rows in `SUITE/runs.csv` and `SUITE/iterations.csv`, per-configuration "
            "summaries in `SUITE/summary.csv`, the driver's commands and messages in `SUITE/log.txt`.", ""]
    head += runs + [""] + ["Commands, run from the repository root:", ""]
    head += [f"{k + 1}. `{c}`" for k, c in enumerate(commands)] + [""]
    host = sorted({meta["suites"][s]["host"] for s in order})
    head += ["Host: " + "; ".join(host) + ".", ""]
    if meta.get("note"):
        head += [meta["note"], ""]
    head += [EXPLAIN]
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(head + lines).rstrip() + "\n")
