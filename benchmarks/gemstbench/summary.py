"""Per-configuration summaries of a suite's runs.csv: summary.csv and summary.md.

One summary row per (dataset, backend, nns, prune, findmin2, precision, result,
context): the median, min and max time (the whole call) over the timed solves, the medians of the library's
phase times, the floor (median FindMin1 of iteration 0 over the dataset's
grid prune-none solves on the same backend: one all-points nearest-neighbour
query on the grid, for the BVH's rows too) and time / floor; and for each
peer that ran on the dataset (peers.csv), its median time over all its timed
solves, the ratio peer / gridemst, and whether its total weight agrees.
"""
import csv
import os
import re
import statistics

from . import peers

# The driver's headline time per solve: the first of these columns its CSV
# has (the whole call where the driver reports it).
HEADLINE = ["call_ms", "time_ms"]

KEY = ["dataset", "n", "dim", "backend", "nns", "prune", "findmin2", "precision", "result", "context"]
# What runs.csv files written before the driver had those columns mean.
KEY_DEFAULTS = {"result": "host", "context": "none"}
PHASES = ["grid_ms", "findmin1_ms", "prepare_ms", "findmin2_ms", "merge_ms", "edges_ms"]
COLUMNS = ["suite", "dataset", "kind", "n", "dim", "backend", "nns", "prune", "findmin2", "precision", "result",
           "context", "threads", "runs", "median_ms", "min_ms", "max_ms", "wall_ms", "device_ms", "dark_ms"] + PHASES + [
           "iterations", "fallback_searches", "floor_ms", "floor_ratio", "mfeatures_s", "bytes_per_point",
           "trees_agree", "device"] + [f"{p}_{c}" for p in peers.NAMES for c in ("ms", "ratio", "agree")]
GENERATED = re.compile(r"^([a-z]+)-([23])d-(\d+)$")


def kind_of(label):
    m = GENERATED.match(label)
    return m.group(1) if m else "tsplib"


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


INTEGER_COLUMNS = {"n", "dim", "threads", "runs", "iterations", "fallback_searches"}
TEXT_COLUMNS = {"suite", "dataset", "kind", "backend", "nns", "prune", "findmin2", "precision", "result", "context",
                "trees_agree", "device"} | {f"{p}_agree" for p in peers.NAMES}


def read_summary(suite_dir):
    """summary.csv with numbers as numbers (None where empty)."""
    rows = read_csv(os.path.join(suite_dir, "summary.csv"))
    for r in rows:
        for k, v in r.items():
            if k not in TEXT_COLUMNS:
                r[k] = None if v == "" else int(v) if k in INTEGER_COLUMNS else float(v)
    return rows


def med(rows, column):
    values = [float(r[column]) for r in rows if r[column] != ""]
    return statistics.median(values) if values else None


def headline(rows):
    """The column of the driver's headline time in these rows."""
    present = rows[0].keys() if rows else []
    return next((c for c in HEADLINE if c in present), HEADLINE[-1])


def peer_stats(peer_rows):
    """{dataset: {peer: (median ms, [total weights])}} from peers.csv's rows."""
    times, weights = {}, {}
    for r in peer_rows:
        key = (r["dataset"], r["peer"])
        times.setdefault(key, []).append(float(r["time_ms"]))
        weights.setdefault(key, set()).add(float(r["total_weight"]))
    out = {}
    for (dataset, peer), t in times.items():
        out.setdefault(dataset, {})[peer] = (statistics.median(t), sorted(weights[(dataset, peer)]))
    return out


def peer_columns(row, stats, weight):
    """The peer columns of a summary row whose median is row["median_ms"] and tree weighs weight."""
    out = {}
    for p in peers.NAMES:
        ms, ws = stats.get(p, (None, None))
        out[f"{p}_ms"] = ms
        out[f"{p}_ratio"] = ms / row["median_ms"] if ms is not None and row["median_ms"] > 0 else None
        out[f"{p}_agree"] = None if ms is None else "yes" if all(peers.agree(w, weight) for w in ws) else "NO"
    return out


def summarize(suite, rows, peer_rows=()):
    time_column = headline(rows)
    per_peer = peer_stats(peer_rows)
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r.get(k, KEY_DEFAULTS.get(k)) for k in KEY), []).append(r)
    floors = {}
    for key, g in groups.items():
        if key[4] == "grid" and key[5] == "none":
            floors.setdefault((key[0], key[3], key[7]), []).extend(
                float(r["floor_ms"]) for r in g if r["floor_ms"] != "")
    # every tree of a dataset (one precision) must be the same tree
    weights = {}
    for r in rows:
        weights.setdefault((r["dataset"], r["precision"]), set()).add(r["total_weight"])
    out = []
    for key, g in groups.items():
        times = [float(r[time_column]) for r in g]
        n, dim = int(key[1]), int(key[2])
        f = floors.get((key[0], key[3], key[7]))
        floor = statistics.median(f) if f else None
        median = statistics.median(times)
        device = [sum(float(r[p]) for p in PHASES if p != "prepare_ms") for r in g]
        peak = med(g, "peak_device_bytes")
        agree = all(r["same_edges"] == "1" for r in g) and len(weights[(key[0], key[7])]) == 1
        row = {
            "suite": suite, "dataset": key[0], "kind": kind_of(key[0]), "n": n, "dim": dim,
            "backend": key[3], "nns": key[4], "prune": key[5], "findmin2": key[6], "precision": key[7],
            "result": key[8], "context": key[9],
            "threads": int(g[0]["threads"]), "runs": len(g), "median_ms": median, "min_ms": min(times),
            "max_ms": max(times), "wall_ms": med(g, "wall_ms"), "device_ms": statistics.median(device),
            "dark_ms": med(g, "dark_ms") if "dark_ms" in g[0] else None,
            **{p: med(g, p) for p in PHASES},
            "iterations": int(med(g, "iterations")), "fallback_searches": int(med(g, "fallback_searches")),
            "floor_ms": floor, "floor_ratio": median / floor if floor else None,
            "mfeatures_s": n * dim / median / 1e3 if median > 0 else None,
            "bytes_per_point": peak / n if peak and n else None,
            "trees_agree": "yes" if agree else "NO", "device": g[0]["device"],
        }
        row.update(peer_columns(row, per_peer.get(key[0], {}), float(g[0]["total_weight"])))
        out.append(row)
    return out


def fmt(x):
    if x is None or x == "":
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return f"{x:,}"
    a = abs(x)
    return f"{x:.0f}" if a >= 100 else f"{x:.1f}" if a >= 10 else f"{x:.2f}" if a >= 1 else f"{x:.3f}"


# Markdown columns: (heading, summary column).
DATASET_TABLE = [("dataset", "dataset"), ("n", "n"), ("tree", "result"), ("median ms", "median_ms"), ("min", "min_ms"),
                 ("max", "max_ms"), ("phase sum", "device_ms"), ("dark", "dark_ms"), ("MFeatures/s", "mfeatures_s"),
                 ("floor ms", "floor_ms"),
                 ("x floor", "floor_ratio"), ("grid", "grid_ms"), ("FindMin1 (static search)", "findmin1_ms"),
                 ("FindMin2", "findmin2_ms"), ("merge", "merge_ms"), ("edge sort", "edges_ms"),
                 ("iterations", "iterations"), ("fallback searches", "fallback_searches")]
CONFIG_TABLE = [("dataset", "dataset"), ("prune", "prune"), ("FindMin2", "findmin2"), ("median ms", "median_ms"),
                ("min", "min_ms"), ("max", "max_ms"), ("x floor", "floor_ratio"),
                ("FindMin1 (static search)", "findmin1_ms"), ("FindMin2 ms", "findmin2_ms"),
                ("merge", "merge_ms"), ("iterations", "iterations"), ("fallback searches", "fallback_searches")]


def table_rows(suite, rows):
    """The rows a suite's table shows, and its columns."""
    if suite == "operators":
        return rows, CONFIG_TABLE
    columns = DATASET_TABLE
    if suite == "gridvsbvh":
        columns = [("dataset", "dataset"), ("index", "nns")] + DATASET_TABLE[1:]
    shown = [r for r in rows if r["prune"] == "static" and r["findmin2"] == "atomic"] or rows
    return shown, columns


def with_peers(columns, shown):
    """columns with each peer's time and ratio after gridemst's median, min
    and max (and whether its weight agrees, where some does not)."""
    extra = []
    for p in peers.NAMES:
        if any(r[f"{p}_ms"] is not None for r in shown):
            extra += [(f"{peers.TITLES[p]} ms", f"{p}_ms"), (f"{peers.TITLES[p]} / gridemst", f"{p}_ratio")]
            if any(r[f"{p}_agree"] == "NO" for r in shown):
                extra.append((f"{peers.TITLES[p]} weight agrees", f"{p}_agree"))
    if not extra:
        return columns
    columns = [("gridemst ms", c) if c == "median_ms" else (h, c) for h, c in columns]
    names = [c for _, c in columns]
    at = names.index("max_ms" if "max_ms" in names else "median_ms") + 1
    return columns[:at] + extra + columns[at:]


def markdown(suite, rows):
    shown, columns = table_rows(suite, rows)
    columns = with_peers(columns, shown)
    if any(r["backend"] == "cuda" for r in shown):
        columns = columns + [("B/pt", "bytes_per_point")]
    if any(r["trees_agree"] != "yes" for r in shown):
        columns = columns + [("trees agree", "trees_agree")]
    cell = {("FindMin1 (static search)", "findmin1_ms")}
    lines = ["| " + " | ".join(h for h, _ in columns) + " |",
             "|" + "|".join("---" if c in ("dataset", "nns", "prune", "findmin2") else "---:"
                            for _, c in columns) + "|"]
    for r in shown:
        cells = []
        for h, c in columns:
            text = fmt(r[c])
            if (h, c) in cell and r["nns"] == "grid" and r["prune"] == "static" and r["prepare_ms"]:
                text += f" ({fmt(r['prepare_ms'])})"
            cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(suite_dir, suite):
    """summary.csv and summary.md of OUT/SUITE from its runs.csv and peers.csv; returns the summary rows."""
    rows = summarize(suite, read_csv(os.path.join(suite_dir, "runs.csv")),
                     read_csv(os.path.join(suite_dir, "peers.csv")))
    with open(os.path.join(suite_dir, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    with open(os.path.join(suite_dir, "summary.md"), "w") as f:
        f.write(markdown(suite, rows) if rows else "(no runs)\n")
    return rows
