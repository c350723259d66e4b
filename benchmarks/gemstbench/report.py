"""OUT/README.md: how the results were made, each suite's table and the plots."""
import os

from . import peers, suites, summary

EXPLAIN = """\
Times are in milliseconds. "median ms" (with min and max) is the whole call a user
waits for, over the timed solves of a configuration: the wall clock around
`gridemst_solve_device` with the points already on the GPU, to the tree in host
memory or ("tree" device) left on the device, on a context reused from solve to solve
(CUDA); the wall clock around `gridemst_solve` (CPU). The phase columns are the
library's own medians (`stats.time_ms`), a breakdown under it. "phase sum" = grid +
FindMin1 + FindMin2 + merge + edge sort: on CUDA, device time from the points on the
device to the sorted tree on the device; "dark" = the whole call less every measured
phase (the copy of the tree to host memory included). FindMin1 includes static
pruning's one candidate search (in parentheses). The floor is one all-points
nearest-neighbour query on the same grid: FindMin1 of the first Borůvka iteration
with `--prune none` (every point its own component); "x floor" is median / floor.
MFeatures/s = n * dim / median seconds. B/pt: peak device bytes per point. Every solve
of a dataset gave the identical tree (checked edge by edge within a driver run, the
device trees included, by total weight across runs) unless a "trees agree" column
says otherwise.
"""

PEERS_EXPLAIN = """\
Peers: {peers}. Each set was written once to a points file (binary, float32), and
the driver and each peer solved that file in turn, {blocks} times (driver, peers,
driver, peers, ...), each run a warm-up and the timed solves; a peer's time is the
median of all its timed solves, as the driver's is, and "/ gridemst" is the peer's
time over gridemst's (above 1: gridemst is faster). A peer's time is its whole solve
call as its own program measures it, its allocations included (ArborX: from the
points on the device to the tree on the device). Each peer's tree weight matched
gridemst's to a relative {rtol} unless a "weight agrees" column says otherwise.
"""

PLOTS_AFTER = {"uniform3d": ["time", "mfeatures", "floor_ratio"], "gridvsbvh": ["gridvsbvh", "gridvsbvh-findmin1"]}


def image(name):
    return f"![{name}](plots/{name}.png)\n\n([SVG](plots/{name}.svg))\n"


def plots_for(suite, present):
    if suite == "operators":
        return sorted(n for n in present if n.startswith("operators-"))
    return [n for n in PLOTS_AFTER.get(suite, []) + [f"peers-{suite}"] if n in present]


def peers_paragraph(meta, order):
    """The peers' paragraph: which programs (base names, versions) and how they were run."""
    seen, blocks = {}, set()
    for s in order:
        for name, d in meta["suites"][s].get("peers", {}).items():
            text = f"{d['title']} (`{d['program']}`" + (f", {d['version']}" if d.get("version") else "") + ")"
            seen.setdefault(text, None)
            blocks.add(meta["suites"][s].get("blocks", 1))
    if not seen:
        return []
    return [PEERS_EXPLAIN.format(peers=", ".join(seen), blocks=" or ".join(str(b) for b in sorted(blocks)),
                                 rtol=f"{peers.WEIGHT_RTOL:.0e}".replace("e-0", "e-"))]


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
                  f"{m['repeat']} timed solves per configuration after {m['warmup']} warm-up(s)"
                  + (f", in each of {m['blocks']} runs" if m.get("blocks", 1) > 1 else "") + "; a configuration "
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
            "`benchmarks/README.md`); raw rows in `SUITE/runs.csv` and `SUITE/iterations.csv` (and the peers' in "
            "`SUITE/peers.csv`), per-configuration summaries in `SUITE/summary.csv`, the commands and their "
            "messages in `SUITE/log.txt`.", ""]
    head += runs + [""] + ["Commands, run from the repository root:", ""]
    head += [f"{k + 1}. `{c}`" for k, c in enumerate(commands)] + [""]
    host = sorted({meta["suites"][s]["host"] for s in order})
    head += ["Host: " + "; ".join(host) + ".", ""]
    if meta.get("note"):
        head += [meta["note"], ""]
    head += [EXPLAIN]
    head += peers_paragraph(meta, order)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(head + lines).rstrip() + "\n")
