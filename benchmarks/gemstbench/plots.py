"""Plots of a results directory with gnuplot, as PNG and SVG in OUT/plots/.

  time.*          median solve time against n (log-log), with the floor
  mfeatures.*     MFeatures/s = n * dim / seconds against n
  floor_ratio.*   solve time / floor against n
  operators-*.*   accumulated per-operator time by Borůvka iteration (the
                  paper's Figs. 12-14), one file per operators dataset
  gridvsbvh.*     grid against BVH: solve time and FindMin1 time against n

Each plot's data (.dat) and script (.gp) stay next to it.
"""
import os
import shutil
import statistics
import subprocess

from . import summary

# colour and point type per series
STYLE = {"2d": ("#1f77b4", 7), "3d": ("#d62728", 5), "tsplib": ("#2ca02c", 9),
         "none": ("#9467bd", 7), "dynamic": ("#ff7f0e", 5), "static": ("#1f77b4", 9),
         "list": ("#d62728", 7), "atomic": ("#1f77b4", 9),
         "findmin1": ("#1f77b4", 7), "findmin2": ("#d62728", 5), "connect": ("#2ca02c", 9),
         "flatten": ("#ff7f0e", 11)}


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


def default_rows(rows, nns="grid"):
    """The rows of the library's default configuration (static pruning, atomic FindMin2) on one index."""
    return [r for r in rows if r["prune"] == "static" and r["findmin2"] == "atomic" and r["nns"] == nns]


def series_by_n(plot_dir, all_rows, value, tag):
    """.dat files of (n, value) for uniform 2D, uniform 3D and TSPLIB; the plot clauses drawing them."""
    groups = [("uniform 2D", "2d", lambda r: r["kind"] == "uniform" and r["dim"] == 2),
              ("uniform 3D", "3d", lambda r: r["kind"] == "uniform" and r["dim"] == 3),
              ("TSPLIB", "tsplib", lambda r: r["kind"] == "tsplib")]
    clauses = []
    for title, key, keep in groups:
        rows = sorted((r for r in default_rows(all_rows) if keep(r)), key=lambda r: r["n"])
        points = [(r["n"], value(r)) for r in rows if value(r)]
        if not points:
            continue
        dat = f"{tag}-{key}.dat"
        write_dat(os.path.join(plot_dir, dat), ["n", tag], points)
        with_ = "points" if key == "tsplib" else "linespoints"
        clauses.append((dat, title, key, with_, rows))
    return clauses


def device_title(rows):
    """'NVIDIA H200 (cuda)', or 'CPU backend' where the device is the CPU."""
    names = sorted({r["device"] if r["device"] == r["backend"] else f"{r['device']} ({r['backend']})"
                    for r in rows})
    return ", ".join("CPU backend" if n == "cpu" else n for n in names)


def log_axes(ylabel):
    return "\n".join(["set logscale xy", 'set format x "10^{%L}"', 'set xlabel "points n"',
                      f'set ylabel "{ylabel}"', "set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'",
                      "set key top left box opaque"])


def plot_time(plot_dir, rows):
    clauses = series_by_n(plot_dir, rows, lambda r: r["median_ms"], "time")
    if not clauses:
        return None
    parts = []
    for dat, title, key, with_, srows in clauses:
        parts.append(f"'{dat}' using 1:2 with {with_} {style(key)} lw 2 title '{title}: EMST'")
        floor = [(r["n"], r["floor_ms"]) for r in srows if r["floor_ms"]]
        if floor and key != "tsplib":
            fdat = f"floor-{key}.dat"
            write_dat(os.path.join(plot_dir, fdat), ["n", "floor_ms"], floor)
            parts.append(f"'{fdat}' using 1:2 with linespoints {style(key, 2, 6)} lw 1.5 "
                         f"title '{title}: floor (one all-points NN query)'")
    body = "\n".join([log_axes("median solve time (ms)"),
                      f'set title "EMST time against n, {device_title(rows)}"', "plot " + ", \\\n  ".join(parts)])
    return render(plot_dir, "time", body)


def plot_mfeatures(plot_dir, rows):
    clauses = series_by_n(plot_dir, rows, lambda r: r["mfeatures_s"], "mfeatures")
    if not clauses:
        return None
    parts = [f"'{dat}' using 1:2 with {with_} {style(key)} lw 2 title '{title}'"
             for dat, title, key, with_, _ in clauses]
    body = "\n".join([log_axes("MFeatures/s = n * dim / median seconds"), "set key bottom right box opaque",
                      f'set title "Throughput against n, {device_title(rows)}"', "plot " + ", \\\n  ".join(parts)])
    return render(plot_dir, "mfeatures", body)


def plot_floor_ratio(plot_dir, rows):
    clauses = series_by_n(plot_dir, rows, lambda r: r["floor_ratio"], "ratio")
    if not clauses:
        return None
    parts = [f"'{dat}' using 1:2 with {with_} {style(key)} lw 2 title '{title}'"
             for dat, title, key, with_, _ in clauses]
    body = "\n".join([log_axes("EMST time / floor"), "unset logscale y", "set format y '%g'", "set yrange [0:*]",
                      f'set title "EMST time over one all-points nearest-neighbour query, {device_title(rows)}"',
                      "plot " + ", \\\n  ".join(parts)])
    return render(plot_dir, "floor_ratio", body)


def accumulated(iter_rows, prepare_ms, column):
    """Per iteration, the median over runs of column, accumulated; prepare_ms added to the first."""
    per = {}
    for r in iter_rows:
        per.setdefault(int(r["iteration"]), []).append(float(r[column]))
    total, out = prepare_ms or 0.0, []
    for it in sorted(per):
        total += statistics.median(per[it])
        out.append((it + 1, total))
    return out


def operator_panel(plot_dir, stem, title, ylabel, curves):
    """One panel: curves are (label, style key, points); a log y axis when they span decades."""
    parts, values = [], []
    for k, (label, key, points) in enumerate(curves):
        if not points:
            continue
        dat = f"{stem}-{k}.dat"
        write_dat(os.path.join(plot_dir, dat), ["iteration", "accumulated_ms"], points)
        parts.append(f"'{dat}' using 1:2 with linespoints {style(key)} lw 2 title '{label}'")
        values += [v for _, v in points if v > 0]
    if not parts:
        return ""
    logy = values and max(values) / min(values) > 100
    return "\n".join([f'set title "{title}"', 'set xlabel "Borůvka iteration"', f'set ylabel "{ylabel}"',
                      "set logscale y" if logy else "unset logscale y", "set xtics 1" if len(values) < 60 else "",
                      "set key below horizontal", "set grid lc rgb '#dddddd'",
                      "plot " + ", \\\n  ".join(parts)])


def plot_operators(plot_dir, rows, iterations):
    names = []
    by_config = {}
    for r in iterations:
        by_config.setdefault((r["dataset"], r["backend"], r["prune"], r["findmin2"]), []).append(r)
    prepare = {(r["dataset"], r["backend"], r["prune"], r["findmin2"]): r["prepare_ms"] for r in rows}
    for dataset, backend in dict.fromkeys((r["dataset"], r["backend"]) for r in rows):
        stem = f"operators-{dataset}-{backend}"

        def curve(prune, findmin2, column):
            key = (dataset, backend, prune, findmin2)
            prep = prepare.get(key) if column == "findmin1_ms" else 0.0
            return accumulated(by_config.get(key, []), prep, column)

        panels = [
            operator_panel(plot_dir, stem + "-a", "FindMin1 by pruning (FindMin2 atomic)",
                           "accumulated FindMin1 time (ms)",
                           [(p, p, curve(p, "atomic", "findmin1_ms")) for p in ("none", "dynamic", "static")]),
            operator_panel(plot_dir, stem + "-b", "FindMin2 by method (static pruning)",
                           "accumulated FindMin2 time (ms)",
                           [(f, f, curve("static", f, "findmin2_ms")) for f in ("list", "atomic")]),
            operator_panel(plot_dir, stem + "-c", "Every operator (static, atomic)", "accumulated time (ms)",
                           [(label, key, curve("static", "atomic", key + "_ms"))
                            for label, key in (("FindMin1", "findmin1"), ("FindMin2", "findmin2"),
                                               ("connect (union)", "connect"), ("flatten", "flatten"))]),
        ]
        panels = [p for p in panels if p]
        if not panels:
            continue
        n = next(r["n"] for r in rows if r["dataset"] == dataset)
        device = next(r["device"] for r in rows if r["dataset"] == dataset and r["backend"] == backend)
        body = "\n".join([f'set multiplot layout 1,{len(panels)} title "{dataset} (n = {n:,}), {device}: '
                          f'accumulated operator time by iteration (static pruning: its candidate search '
                          f'counts in iteration 1)"'] + [p + "\nunset logscale y" for p in panels])
        names.append(render(plot_dir, stem, body, size=(520 * len(panels), 480)))
    return names


def gridvsbvh_panel(plot_dir, rows, column, ylabel, title, key):
    """One panel: COLUMN against n per point set, grid solid and BVH dashed; KEY: gnuplot's key setting."""
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]
    parts = []
    for k, (kind, dim) in enumerate(dict.fromkeys((r["kind"], r["dim"]) for r in rows)):
        name = "TSPLIB" if kind == "tsplib" else f"{kind} {dim}D"
        for nns, dash, point in (("grid", 1, 7), ("bvh", 2, 5)):
            points = sorted((r["n"], r[column]) for r in default_rows(rows, nns)
                            if (r["kind"], r["dim"]) == (kind, dim) and r[column])
            if not points:
                continue
            dat = f"gridvsbvh-{column}-{kind}-{dim}d-{nns}.dat"
            write_dat(os.path.join(plot_dir, dat), ["n", column], points)
            parts.append(f"'{dat}' using 1:2 with linespoints lc rgb '{colours[k % len(colours)]}' dt {dash} "
                         f"pt {point} lw 2 title '{name}, {nns}'")
    return "\n".join([log_axes(ylabel), key, f'set title "{title}"',
                      "plot " + ", \\\n  ".join(parts)])


def plot_gridvsbvh(plot_dir, rows):
    """Solve time, MFeatures/s and FindMin1 time against n, grid against BVH; None without BVH rows."""
    if not any(r["nns"] == "bvh" for r in rows):
        return None
    panels = [gridvsbvh_panel(plot_dir, rows, "median_ms", "median solve time (ms)", "Whole solve", "unset key"),
              gridvsbvh_panel(plot_dir, rows, "mfeatures_s", "MFeatures/s = n dim / solve seconds",
                              "Throughput", "unset key"),
              gridvsbvh_panel(plot_dir, rows, "findmin1_ms", "FindMin1 time, all iterations (ms)",
                              "FindMin1 (the only step where the indexes differ)",
                              "set key outside right top vertical box")]
    body = "\n".join([f'set multiplot layout 1,3 title "Grid (solid) against BVH (dashed), {device_title(rows)}"']
                      + panels)
    return render(plot_dir, "gridvsbvh", body, size=(2100, 600))


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
                               summary.read_csv(os.path.join(out, "operators", "iterations.csv")))
    made.append(plot_gridvsbvh(plot_dir, rows.get("gridvsbvh", [])))
    return [m for m in made if m]
