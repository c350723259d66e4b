"""Plots of a results directory with gnuplot, as PNG and SVG in OUT/plots/.

  time.*            median solve time against n (log-log), with the floor
  mfeatures.*       MFeatures/s = n * dim / seconds against n (log-log)
  floor_ratio.*     solve time / floor against n
  operators-*.*     accumulated per-operator time by Borůvka iteration (the
                    paper's Figs. 12-14), one file per operators dataset
  gridvsbvh.*       grid against BVH, solve time against n, a panel per set
  gridvsbvh-findmin1.*  the same for FindMin1, the only step where they differ
  peers-SUITE.*     gridemst beside the peer programs that ran in SUITE

Every plot follows the same rules: error bars span the recorded min and max of
the timed runs (the point is their median); separate instances (TSPLIB files)
are separate points, never joined by a line; each line is named by a label at
its end, in its colour, not by a key; and the panels of one figure share one
scale. Each plot's data (.dat) and script (.gp) stay next to it.
"""
import math
import os
import shutil
import statistics
import subprocess

from . import peers, summary

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]
# colour and point type per series
STYLE = {"2d": ("#1f77b4", 7), "3d": ("#d62728", 5), "tsplib": ("#2ca02c", 9),
         "none": ("#9467bd", 7), "dynamic": ("#ff7f0e", 5), "static": ("#1f77b4", 9),
         "list": ("#d62728", 7), "atomic": ("#1f77b4", 9),
         "findmin1": ("#1f77b4", 7), "findmin2": ("#d62728", 5), "connect": ("#2ca02c", 9),
         "flatten": ("#ff7f0e", 11),
         "grid": ("#1f77b4", 7), "bvh": ("#d62728", 5), "gridemst": ("#1f77b4", 7),
         "arborx": ("#d62728", 5), "memogfk": ("#2ca02c", 9), "quitefastmst": ("#ff7f0e", 11)}


def style(key, dash=1, point=None):
    colour, pt = STYLE[key]
    return f"lc rgb '{colour}' pt {pt if point is None else point} dt {dash}"


TERMINALS = [("pngcairo", "png", 'font "Sans,11"'), ("svg", "svg", 'dynamic font "Sans,11"')]


def write_dat(path, header, rows):
    with open(path, "w") as f:
        f.write("# " + " ".join(header) + "\n")
        for r in rows:
            f.write(" ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in r) + "\n")


def render(plot_dir, name, body, size=(900, 600)):
    """Writes NAME.gp drawing body into NAME.png and NAME.svg, and runs gnuplot on it."""
    script = []
    for term, ext, opts in TERMINALS:
        script += [f"set terminal {term} size {size[0]},{size[1]} {opts}", f"set output '{name}.{ext}'",
                   "reset", "set encoding utf8", body, "unset multiplot", "set output"]
    path = os.path.join(plot_dir, name + ".gp")
    with open(path, "w") as f:
        f.write("\n".join(s for s in script if s) + "\n")
    subprocess.run(["gnuplot", name + ".gp"], cwd=plot_dir, check=True)
    return name


class Figure:
    """The plot clauses and line labels of one panel."""

    def __init__(self, plot_dir):
        self.plot_dir = plot_dir
        self.parts, self.labels, self.values = [], [], []

    def series(self, dat, points, title, key, joined=True, dash=1, point=None):
        """points: (x, median, low, high); drawn with error bars, joined by a line when joined, named
        by a label in the right margin at the height of its last point, in the series' colour."""
        points = [p for p in points if p[1]]
        if not points:
            return
        write_dat(os.path.join(self.plot_dir, dat), ["x", "median", "min", "max"],
                  [(x, y, lo if lo else y, hi if hi else y) for x, y, lo, hi in points])
        how = "yerrorlines" if joined and len(points) > 1 else "yerrorbars"
        self.parts.append(f"'{dat}' using 1:2:3:4 with {how} {style(key, dash, point)} lw 2 notitle")
        self.labels.append((points[-1][1], title, key, dash, point))
        self.values += [v for p in points for v in p[1:] if v]

    def y_range(self, logy):
        """A y range holding every value: whole decades on a log axis, from 0 on a linear one."""
        values = [v for v in self.values if v > 0]
        if logy:
            return 10 ** math.floor(math.log10(min(values))), 10 ** math.ceil(math.log10(max(values)))
        return 0.0, max(values) * 1.05

    def body(self, logy, height, y_range=None):
        """The panel's y range, labels and plot; height: the panel's height in pixels, which tells how
        far apart labels must be not to overlap."""
        if not self.parts:
            return ""
        lo, hi = y_range or self.y_range(logy)

        def fraction(y):
            if logy:
                return (math.log(y) - math.log(lo)) / (math.log(hi) - math.log(lo))
            return (y - lo) / (hi - lo)

        # labels in order of height, each at least a line above the one below it, and the stack
        # moved down where it would leave the panel's top
        gap = 18 / max(height - 130, 100)
        labels = sorted(self.labels, key=lambda label: label[0])
        at = []
        for y, *_ in labels:
            at.append(max(fraction(y), at[-1] + gap) if at else fraction(y))
        for k in reversed(range(len(at))):
            at[k] = min(at[k], 1.0 if k == len(at) - 1 else at[k + 1] - gap)
        placed = [f"set label \"{title}\" at graph 1.04, graph {f:.4f} left tc rgb '{STYLE[key][0]}' "
                  f"point pt {STYLE[key][1] if point is None else point} lc rgb '{STYLE[key][0]}' offset char 1,0"
                  for f, (y, title, key, dash, point) in zip(at, labels)]
        return "\n".join([f"set yrange [{lo:.6g}:{hi:.6g}]"] + placed +
                          ["plot " + ", \\\n  ".join(self.parts), "unset label"])


def log_axes(ylabel, xlabel="points n"):
    return "\n".join(["set logscale xy", 'set format x "10^{%L}"', f'set xlabel "{xlabel}"',
                      f'set ylabel "{ylabel}"', "set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'",
                      "unset key", "set rmargin 30", "set offsets graph 0.02, graph 0.02, 0, 0"])


def default_rows(rows, nns="grid"):
    """The rows of the library's default configuration (static pruning, atomic FindMin2) on one index."""
    return [r for r in rows if r["prune"] == "static" and r["findmin2"] == "atomic" and r["nns"] == nns]


def peer_ranges(out, suite):
    """{(dataset, peer): (median, min, max) ms} from OUT/SUITE/peers.csv."""
    times = {}
    for r in summary.read_csv(os.path.join(out, suite, "peers.csv")):
        times.setdefault((r["dataset"], r["peer"]), []).append(float(r["time_ms"]))
    return {k: (statistics.median(t), min(t), max(t)) for k, t in times.items()}


SCALING = [("uniform 2D", "2d", lambda r: r["kind"] == "uniform" and r["dim"] == 2),
           ("uniform 3D", "3d", lambda r: r["kind"] == "uniform" and r["dim"] == 3),
           ("TSPLIB", "tsplib", lambda r: r["kind"] == "tsplib")]


def scaling_series(fig, tag, all_rows, value):
    """Uniform 2D and 3D as lines against n, the TSPLIB instances as separate points; value(r) gives
    (median, min, max) of a summary row."""
    for title, key, keep in SCALING:
        rows = sorted((r for r in default_rows(all_rows) if keep(r)), key=lambda r: r["n"])
        points = [(r["n"],) + value(r) for r in rows]
        fig.series(f"{tag}-{key}.dat", points, title if key != "tsplib" else "TSPLIB instances", key,
                   joined=key != "tsplib")
    return rows


def device_title(rows):
    """'NVIDIA H200 (cuda)', or 'CPU backend' where the device is the CPU."""
    names = sorted({r["device"] if r["device"] == r["backend"] else f"{r['device']} ({r['backend']})"
                    for r in rows})
    return ", ".join("CPU backend" if n == "cpu" else n for n in names)


def plot_time(plot_dir, rows):
    fig = Figure(plot_dir)
    scaling_series(fig, "time", rows, lambda r: (r["median_ms"], r["min_ms"], r["max_ms"]))
    if not fig.parts:
        return None
    for title, key, keep in SCALING[:2]:
        floor = sorted((r["n"], r["floor_ms"], None, None) for r in default_rows(rows) if keep(r) and r["floor_ms"])
        fig.series(f"floor-{key}.dat", floor, f"{title}: floor", key, dash=2, point=6)
    body = "\n".join([log_axes("median solve time (ms), bars: min to max"),
                      f'set title "EMST time against n, {device_title(rows)}\\n'
                      f'floor (dashed): one all-points nearest-neighbour query"', fig.body(True, 600)])
    return render(plot_dir, "time", body)


def mfeatures(r, ms):
    return r["n"] * r["dim"] / (ms / 1000) / 1e6 if ms else None


def plot_mfeatures(plot_dir, rows):
    fig = Figure(plot_dir)
    # the fastest run gives the highest throughput
    scaling_series(fig, "mfeatures", rows, lambda r: (r["mfeatures_s"], mfeatures(r, r["max_ms"]),
                                                       mfeatures(r, r["min_ms"])))
    if not fig.parts:
        return None
    body = "\n".join([log_axes("MFeatures/s = n * dim / median seconds, bars: slowest to fastest"),
                      f'set title "Throughput against n, {device_title(rows)}"', fig.body(True, 600)])
    return render(plot_dir, "mfeatures", body)


def plot_floor_ratio(plot_dir, rows):
    fig = Figure(plot_dir)

    def ratio(r):
        f = r["floor_ms"]
        return (r["floor_ratio"], r["min_ms"] / f if f and r["min_ms"] else None,
                r["max_ms"] / f if f and r["max_ms"] else None)

    scaling_series(fig, "ratio", rows, ratio)
    if not fig.parts:
        return None
    body = "\n".join([log_axes("EMST time / floor, bars: min to max"), "unset logscale y", "set format y '%g'",
                      f'set title "EMST time over one all-points nearest-neighbour query, {device_title(rows)}"',
                      fig.body(False, 600)])
    return render(plot_dir, "floor_ratio", body)


def accumulated(iter_rows, prepare, column):
    """Per iteration, the median, min and max over runs of each run's own accumulated column;
    prepare: {run: ms} added to a run's first iteration."""
    runs = {}
    for r in iter_rows:
        runs.setdefault(r["run"], {})[int(r["iteration"])] = float(r[column])
    totals = {}
    for run, per in runs.items():
        total = prepare.get(run, 0.0)
        for it in sorted(per):
            total += per[it]
            totals.setdefault(it, []).append(total)
    return [(it + 1, statistics.median(t), min(t), max(t)) for it, t in sorted(totals.items())]


def plot_operators(plot_dir, rows, iterations, runs):
    names = []
    by_config, prepare = {}, {}
    for r in iterations:
        by_config.setdefault((r["dataset"], r["backend"], r["prune"], r["findmin2"]), []).append(r)
    for r in runs:
        if r.get("prepare_ms"):
            prepare.setdefault((r["dataset"], r["backend"], r["prune"], r["findmin2"]), {})[r["run"]] = \
                float(r["prepare_ms"])
    for dataset, backend in dict.fromkeys((r["dataset"], r["backend"]) for r in rows):
        stem = f"operators-{dataset}-{backend}"

        def curve(prune, findmin2, column):
            key = (dataset, backend, prune, findmin2)
            prep = prepare.get(key, {}) if column == "findmin1_ms" else {}
            return accumulated(by_config.get(key, []), prep, column)

        panels = [
            ("FindMin1 by pruning (FindMin2 atomic)", "accumulated FindMin1 time (ms)",
             [(p, p, curve(p, "atomic", "findmin1_ms")) for p in ("none", "dynamic", "static")]),
            ("FindMin2 by method (static pruning)", "accumulated FindMin2 time (ms)",
             [(f, f, curve("static", f, "findmin2_ms")) for f in ("list", "atomic")]),
            ("Every operator (static, atomic)", "accumulated time (ms)",
             [(label, key, curve("static", "atomic", key + "_ms"))
              for label, key in (("FindMin1", "findmin1"), ("FindMin2", "findmin2"),
                                 ("connect (union)", "connect"), ("flatten", "flatten"))]),
        ]
        figs = []
        for k, (title, ylabel, curves) in enumerate(panels):
            fig = Figure(plot_dir)
            for j, (label, key, points) in enumerate(curves):
                fig.series(f"{stem}-{k}-{j}.dat", points, label, key)
            if fig.parts:
                figs.append((title, ylabel, fig))
        if not figs:
            continue
        # one scale for the whole figure: logarithmic when any panel spans decades
        values = [v for _, _, f in figs for v in f.values if v > 0]
        logy = max(values) / min(values) > 100
        iterations = max(len(points) for _, _, curves in panels for _, _, points in curves)
        n = next(r["n"] for r in rows if r["dataset"] == dataset)
        device = next(r["device"] for r in rows if r["dataset"] == dataset and r["backend"] == backend)
        body = [f'set multiplot layout 1,{len(figs)} title "{dataset} (n = {n:,}), {device}: accumulated '
                f'operator time by iteration, median of the runs, bars: min to max\\n(static pruning: its '
                f'candidate search counts in iteration 1)"']
        for title, ylabel, fig in figs:
            body += [f'set title "{title}"', 'set xlabel "Borůvka iteration"', f'set ylabel "{ylabel}"',
                     "set logscale y" if logy else "unset logscale y",
                     "set xtics 1" if iterations < 30 else "",
                     "unset key", "set rmargin 16", "set grid lc rgb '#dddddd'", fig.body(logy, 520)]
        names.append(render(plot_dir, stem, "\n".join(body), size=(600 * len(figs), 520)))
    return names


def set_name(kind, dim):
    return "TSPLIB instances" if kind == "tsplib" else f"{kind} {dim}D"


def plot_gridvsbvh(plot_dir, rows, column, name, ylabel, what):
    """COLUMN against n, a panel per point set, grid and BVH in each; one y range for all panels."""
    sets = list(dict.fromkeys((r["kind"], r["dim"]) for r in rows))
    figs = []
    for kind, dim in sets:
        fig = Figure(plot_dir)
        for nns, title in (("grid", "grid"), ("bvh", "BVH")):
            srows = sorted((r for r in default_rows(rows, nns) if (r["kind"], r["dim"]) == (kind, dim) and r[column]),
                           key=lambda r: r["n"])
            if column == "median_ms":
                points = [(r["n"], r["median_ms"], r["min_ms"], r["max_ms"]) for r in srows]
            else:
                points = [(r["n"], r[column], None, None) for r in srows]
            fig.series(f"{name}-{kind}-{dim}d-{nns}.dat", points, title, nns, joined=kind != "tsplib")
        if fig.parts:
            figs.append((set_name(kind, dim), fig))
    if not figs:
        return None
    everything = Figure(plot_dir)
    everything.values = [v for _, f in figs for v in f.values]
    y_range = everything.y_range(True)
    xs = [r["n"] for r in rows]
    cols = min(4, len(figs))
    layout_rows = (len(figs) + cols - 1) // cols
    body = [f'set multiplot layout {layout_rows},{cols} title "{what}, grid against BVH, {device_title(rows)}; '
            f'median of the runs' + (', bars: min to max' if column == 'median_ms' else '') + '"']
    for title, fig in figs:
        body += [log_axes(ylabel), "set rmargin 10", f"set xrange [{min(xs) / 2:.6g}:{max(xs) * 2:.6g}]",
                 f'set title "{title}"', fig.body(True, 400, y_range)]
    return render(plot_dir, name, "\n".join(body), size=(420 * cols, 400 * layout_rows))


def plot_peers(plot_dir, out, suite, rows):
    """gridemst and each peer on every set of SUITE: the median with bars from min to max, a column
    of points per set; None where no peer ran."""
    ranges = peer_ranges(out, suite)
    names = [p for p in peers.NAMES if any(k[1] == p for k in ranges)]
    if not names:
        return None
    datasets = list(dict.fromkeys(r["dataset"] for r in default_rows(rows)))
    programs = ["gridemst"] + names
    fig = Figure(plot_dir)
    for j, program in enumerate(programs):
        points = []
        for i, dataset in enumerate(datasets):
            if program == "gridemst":
                r = next(r for r in default_rows(rows) if r["dataset"] == dataset)
                value = (r["median_ms"], r["min_ms"], r["max_ms"])
            else:
                value = ranges.get((dataset, program))
            if value:
                points.append((i + (j - (len(programs) - 1) / 2) * 0.15,) + value)
        title = "gridemst" if program == "gridemst" else peers.TITLES[program]
        fig.series(f"peers-{suite}-{program}.dat", points, title, program, joined=False)
    # a TSPLIB instance by its name, a generated set by its shape
    kinds = {r["dataset"]: r["dataset"] if r["kind"] == "tsplib" else set_name(r["kind"], r["dim"]) for r in rows}
    xtics = ", ".join(f'"{kinds[d]}" {i}' for i, d in enumerate(datasets))
    device = device_title(rows)
    n = sorted({r["n"] for r in default_rows(rows)})
    body = "\n".join([f'set title "gridemst beside its peers, the same points file in the same run, {device}'
                      f'{", n = " + f"{n[0]:,}" if len(n) == 1 else ""}\\nmedian of the timed runs, bars: min to max"',
                      'set ylabel "solve time (ms)"', f"set xrange [-0.6:{len(datasets) - 0.4}]",
                      f"set xtics ({xtics}) rotate by {-30 if len(datasets) <= 20 else -70} left", "unset key", "set rmargin 16",
                      "set grid ytics lc rgb '#dddddd'", fig.body(False, 600)])
    return render(plot_dir, f"peers-{suite}", body, size=(1100, 600))


def make_all(out):
    """Every plot the results in OUT allow; returns the plot names made."""
    if not shutil.which("gnuplot"):
        raise SystemExit("bench.py: gnuplot is not installed (Debian: apt-get install gnuplot-nox)")
    plot_dir = os.path.join(out, "plots")
    os.makedirs(plot_dir, exist_ok=True)
    rows = {s: summary.read_summary(os.path.join(out, s)) for s in sorted(os.listdir(out))
            if os.path.exists(os.path.join(out, s, "summary.csv"))}
    scaling = [r for s in ("uniform2d", "uniform3d", "tsplib") for r in rows.get(s, [])]
    made = [plot_time(plot_dir, scaling), plot_mfeatures(plot_dir, scaling), plot_floor_ratio(plot_dir, scaling)]
    if "operators" in rows:
        made += plot_operators(plot_dir, rows["operators"],
                               summary.read_csv(os.path.join(out, "operators", "iterations.csv")),
                               summary.read_csv(os.path.join(out, "operators", "runs.csv")))
    gvb = rows.get("gridvsbvh", [])
    if any(r["nns"] == "bvh" for r in gvb):
        made.append(plot_gridvsbvh(plot_dir, gvb, "median_ms", "gridvsbvh", "median solve time (ms)",
                                   "Whole solve"))
        made.append(plot_gridvsbvh(plot_dir, gvb, "findmin1_ms", "gridvsbvh-findmin1",
                                   "FindMin1 time, all iterations (ms)", "FindMin1, the only step where they differ"))
    for suite, srows in rows.items():
        made.append(plot_peers(plot_dir, out, suite, srows))
    return [m for m in made if m]
